"""Session 16 user audit of AdaStop beyond its numbers: the result's report and LaTeX captions while a test runs,
and the state lock of ``rlstats adastop update`` (interim analyses after each batch of seeds)."""
from __future__ import annotations

import fcntl
import os
import threading
import time

import numpy as np
import pandas as pd
import pytest

from rlstats.cli import main
from rlstats.errors import DesignError
from rlstats.methods.adastop import AdaStop, state_lock


def _running(n_resamples=400):
    """A 3-agent test after its first batch: C is far above A and B (decided), A vs B is undecided."""
    seq = AdaStop(["A", "B", "C"], n=5, K=4, n_resamples=n_resamples, rng=0, permutations="joint")
    seq.update({"A": [0.1, -0.3, 0.4, 0.0, -0.2], "B": [0.2, -0.1, 0.3, 0.1, 0.0],
                "C": [10.1, 9.8, 10.3, 10.0, 9.9]})
    return seq


def test_report_of_a_running_test_says_undecided_without_a_none():
    """While the test runs, report() printed "A vs B undecided (None)": the empty reason of a comparison that is
    merely not decided yet, printed as Python's None."""
    seq = _running()
    assert seq.decisions.set_index(["agent_1", "agent_2"]).loc[("A", "B"), "decision"] == "continue"
    text = seq.result().report(format="text")
    assert "None" not in text
    assert "A vs B undecided so far" in text
    assert "A smaller than C (interim 1, 5 and 5 runs" in text


def test_latex_captions_say_what_the_numbers_are():
    """A table pasted alone into a paper: the Decisions caption did not say which way "larger" reads, what the
    estimate is nor on what scale the boundary is; "Runs used per agent" did not say whose mean; the level table of
    a running test listed interims 2-4, not yet run, under "Level spent per interim" with no word that they are
    the schedule."""
    latex = _running().result().summary().to_latex()
    captions = {block.split("\\caption{")[1].split(": ")[1].split(".")[0]: block.split("\\caption{")[1].split("}\n")[0]
                for block in latex.split("\n\n") if "\\caption{" in block}
    decisions = captions["Decisions"]
    # (audit s26: the pair said as "the first agent" and "the second", as the headers are)
    assert ("decision: the first agent against the second (larger or smaller: their score distributions differ, the "
            "first agent's mean above or below; no difference found: not shown to differ at this level, which does not "
            "show them equal (the value `equal' in the decisions table, the AdaStop paper's name); continue: "
            "undecided)"
            ) in decisions
    assert "estimate: mean of the first agent minus mean of the second" in decisions
    assert "boundary: the rejection boundary of \\textbar{}estimate\\textbar{}" in decisions
    assert "mean: of the runs used" in captions["Runs used per agent"]
    assert "statistic: \\textbar{}estimate\\textbar{}" in captions["Statistic \\textbar{}mean difference\\textbar{} "
                                                                  "and boundaries per interim"]
    level = captions["Level spent per interim"]
    assert "level: cumulated" in level
    assert "Interims 2-4 are not run yet: their levels are the schedule's" in level


def test_latex_level_caption_of_a_finished_test_says_nothing_of_interims_not_run_when_all_ran():
    seq = AdaStop(["A", "B"], n=5, K=2, n_resamples=400, rng=0)
    for shift in (0.0, 0.1):
        seq.update({"A": np.arange(5.0) + shift, "B": np.arange(5.0)[::-1] + 0.05 + shift})
    assert seq.done and seq.interim == 2
    assert "not run" not in seq.result().summary().to_latex()


# ---- the state lock ------------------------------------------------------------------------------------------------

def test_no_lock_file_stays_after_a_successful_or_refused_update(tmp_path, capsys):
    """``rlstats adastop update`` left ``state.json.lock`` (empty) next to the state after every run: clutter that
    reads as a lock still held, and invites deleting it by hand while another update holds it."""
    batch = tmp_path / "b1.csv"
    pd.DataFrame({"A": [1.0, 2.0, 3.0], "B": [2.0, 3.0, 5.0]}).to_csv(batch)
    state = tmp_path / "s.json"
    assert main(["adastop", "update", str(state), str(batch), "--K", "3", "--seed", "0", "--n-resamples", "200"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b1.csv", "s.json"]
    assert main(["adastop", "update", str(state), str(batch)]) == 2  # refused: the same batch fed twice
    capsys.readouterr()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b1.csv", "s.json"]


def test_state_lock_removes_its_file_and_excludes_a_waiter_whose_file_was_removed(tmp_path):
    """The lock file is removed on release, so a process that waited on the removed file must not hold the lock
    while another holds the file now at the path: it retries on the new file (here held, so it times out)."""
    state = tmp_path / "s.json"
    with state_lock(state, timeout=0.5):
        assert (tmp_path / "s.json.lock").read_text() == f"{os.getpid()}\n"
    assert not (tmp_path / "s.json.lock").exists()

    lock_path = tmp_path / "s.json.lock"
    first = os.open(lock_path, os.O_RDWR | os.O_CREAT)  # holder 1, about to release (removing the file)
    fcntl.flock(first, fcntl.LOCK_EX)
    outcome = {}

    def waiter():
        try:
            with state_lock(state, timeout=1.0):
                outcome["held"] = True
        except DesignError as exc:
            outcome["refused"] = str(exc)

    thread = threading.Thread(target=waiter)
    thread.start()
    time.sleep(0.3)  # the waiter has opened the old file and polls its lock
    os.unlink(lock_path)  # holder 1 releases as state_lock does: remove the file, then close
    second = os.open(lock_path, os.O_RDWR | os.O_CREAT)  # holder 2 takes the new file at the path
    fcntl.flock(second, fcntl.LOCK_EX)
    os.close(first)
    thread.join(5)
    os.close(second)
    assert "held" not in outcome, "two processes held the state's lock at once"
    assert "was not released within 1 s" in outcome["refused"]


def test_latex_level_caption_of_a_test_that_stopped_early_says_which_interims_never_ran():
    seq = AdaStop(["A", "B"], n=5, K=4, n_resamples=400, rng=0)
    seq.update({"A": np.arange(5.0) + 100, "B": np.arange(5.0)})
    assert seq.done and seq.interim == 1
    latex = seq.result().summary().to_latex()
    assert "The test stopped at interim 1: interims 2-4 were not run, their levels are the schedule's." in latex
    assert "continue: undecided" not in latex  # no comparison is undecided: the caption names only words it uses


# ---- the boundaries figure at paper size ---------------------------------------------------------------------------

def test_boundaries_legend_is_not_drawn_over_the_lines_at_paper_size():
    """Four agents (six comparisons and the four marks' key): the legend, placed inside the Axes, covered the
    boundary and statistic lines of a 3.5 x 2.6 in figure. It goes beside the Axes, inside the figure."""
    import matplotlib.pyplot as plt

    seq = AdaStop(["A", "B", "C", "D"], n=5, K=3, n_resamples=400, rng=0)
    gen = np.random.default_rng(2)
    while not seq.done:
        seq.update({a: gen.normal(3.0 * i, 2.0, 5) for i, a in enumerate(seq.agents) if a in seq.agents_to_run})
    for size in ((3.5, 2.6), (7.0, 3.0)):
        ax = seq.result().plot(kind="boundaries", figsize=size)
        fig = ax.figure
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        legend, frame = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
        assert legend.x0 >= frame.x1 - 1, "the legend overlaps the plotting area"
        assert legend.x1 <= fig.bbox.x1 + 1 and legend.y0 >= fig.bbox.y0 - 1, "the legend is cut off by the figure"
        assert frame.width > 0.45 * fig.bbox.width  # the lines keep most of the width
        plt.close(fig)


# ---- the command line's interim report ------------------------------------------------------------------------------

def test_update_and_status_state_the_level_spent_and_the_batches_left(tmp_path, capsys):
    """After each batch ``rlstats adastop update`` and ``status`` printed the decisions and what to run next, but
    not the family-wise level (nor how much of it the interims so far spent) nor how many batches may be left: what
    a user running interim analyses reads to judge where the test stands."""
    gen = np.random.default_rng(4)
    files = []
    for k in range(2):
        path = tmp_path / f"b{k}.csv"
        pd.DataFrame({"A": gen.normal(0, 1, 4), "B": gen.normal(0, 1, 4)}).to_csv(path)
        files.append(path)
    state = tmp_path / "s.json"
    assert main(["adastop", "update", str(state), str(files[0]), "--K", "4", "--seed", "0", "--n-resamples",
                 "300"]) == 0
    out = capsys.readouterr().out
    # interim 1 enumerates its 35 distinct paths, so 0.0125 spends nothing; interim 2 (300 random paths) 7 of 300
    spent = AdaStop.load(state).result().spending["level"].to_numpy()
    assert spent[0] == 0 and spent[1] == pytest.approx(7 / 300) and spent[-1] == pytest.approx(0.05)
    assert ("undecided = 1 (of 1 comparison), schedule's level = 0.05 (alpha = 0.05), of which 0 spent by "
            "interim 1") in out
    assert "next batch: 4 new runs of each of: A, B (at most 3 batches left)" in out
    assert main(["adastop", "update", str(state), str(files[1])]) == 0
    capsys.readouterr()
    assert main(["adastop", "status", str(state)]) == 0
    out = capsys.readouterr().out
    assert "of which 0.02333 spent by interim 2" in out and "(at most 2 batches left)" in out


def test_wide_batch_with_an_unknown_agent_names_it(tmp_path, capsys):
    """A wide batch (one column per agent) whose column D is no agent of the test (a typo, or another experiment's
    file) was refused with "expected long format ... got columns ['Unnamed: 0', 'A', 'B', 'D']", which names
    neither the unknown column nor the long format's absence as the problem; a long batch names it."""
    seq = AdaStop(["A", "B", "C"], n=2, K=3, n_resamples=200, rng=0)
    with pytest.raises(DesignError, match=r"unknown agent D in the batch; this test compares A, B, C"):
        seq.update(pd.DataFrame({"A": [1.0, 2.0], "B": [2.0, 3.0], "D": [3.0, 4.0]}))
    assert seq.interim == 0


def test_state_lock_leaves_a_lock_file_that_is_not_its_own(tmp_path):
    """Released, the holder removes the lock file only if it is still the one it locked: a file removed by hand
    meanwhile and made anew (another process's lock now) stays."""
    state = tmp_path / "s.json"
    lock_path = tmp_path / "s.json.lock"
    with state_lock(state, timeout=0.5):
        lock_path.unlink()
        lock_path.write_text("other\n")
    assert lock_path.read_text() == "other\n"


def test_result_before_the_first_batch_prints_and_status_reads_it(tmp_path, capsys):
    """``print(AdaStop(...).result())`` before any batch raised IndexError (the level spent by interim 0 was looked
    up in the spending table, which starts at interim 1); a state saved so could not be read by ``status``."""
    seq = AdaStop(["A", "B"], n=3, K=3, n_resamples=200, rng=0)
    text = str(seq.result())
    assert "undecided = 1 (of 1 comparison), schedule's level = 0.05 (alpha = 0.05), nothing spent yet (no " \
           "interim run)" in text
    assert "Interims 1-3 are not run yet: their levels are the schedule's." in seq.result().summary().to_latex()
    seq.save(tmp_path / "s.json")
    assert main(["adastop", "status", str(tmp_path / "s.json")]) == 0
    out = capsys.readouterr().out
    assert "after batch 0 of at most 3" in out and "next batch: 3 new runs of each of: A, B (at most 3 batches left)" \
        in out
