"""Audit s35 (adastop35): AdaStop's notes on copied runs.

Found (new-user trial s35): in the AdaStop paper's MuJoCo batches (``mujoco_adastop``), 20 of PPO's 30 HalfCheetah runs
repeat PPO's Hopper scores exactly. compare, task_table, bootstrap, mixed, equivalence, bayes and
probability_of_improvement each said so (``design.copied_runs_note``, the front door's), but ``rlstats.adastop`` built
its Design with ``note_copies=False`` and said only its own batch check (Hopper's batches 3 and 4 repeat 1 and 2),
though HalfCheetah's test fed PPO's batch 1, a copy.  Nor did it say runs repeated within a cell that do not make up
a whole batch.
"""

import io

import numpy as np
import pandas as pd
import pytest
from conftest import load_dataset

import rlstats
from rlstats.cli import main
from rlstats.design import COPIED_ACROSS, COPIED_RUNS, _rows_selected
from rlstats.methods.adastop._backend import REPEATED_RUNS

FORMULA = "score ~ agent | task"


def frame(means=(0.0, 0.0), copied=(1, 2), seed=0):
    """Agents X and Y on tasks a and b, 2 batches of 5 runs a cell, scores of 4 decimals (sd 10; on b the agents'
    means are ``means``); X's runs on b in the batches ``copied`` are X's runs on a in those batches."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame([dict(task=t, agent=a, batch=i // 5 + 1,
                            score=round(float(rng.normal(means[j] if t == "b" else 0.0, 10)), 4))
                       for t in "ab" for j, a in enumerate("XY") for i in range(10)])
    into = (df.task == "b") & (df.agent == "X") & df.batch.isin(copied)
    df.loc[into, "score"] = df.loc[(df.task == "a") & (df.agent == "X") & df.batch.isin(copied), "score"].to_numpy()
    return df


def adastop(df, **options):
    return rlstats.adastop(df, FORMULA, **{"n": 5, "K": 2, "batch": "batch", "rng": 0, "progress": False, **options})


def across(notes):
    return [n for n in notes if COPIED_ACROSS in n]


def test_adastop_says_runs_copied_across_tasks():
    """Every run fed (the agents tie: both tests run to K = 2): the note is the front door's, as build says it."""
    df = frame()
    res = adastop(df)
    assert res.runs_used["n_runs"].tolist() == [10, 10, 10, 10]
    said = across(res.notes)
    assert len(said) == 1 and said[0].startswith(
        "10 of X's 10 runs on a repeat exactly the scores of 10 of its 10 runs on b (10 scores shared), whose chance at "
        "the scores' resolution is at most 3e-40: one task's runs look copied into the other's file")
    (built,) = across(rlstats.build(df, FORMULA).notes)
    assert said[0].split(" (")[0] == built.split(" (")[0]  # the one home's sentence, up to its way on
    assert said[0] in " ".join(str(res).split())  # printed


def test_adastop_says_a_copy_of_the_runs_it_fed_only():
    """X's batch 2 on b copies its batch 2 on a, but b's test decides at interim 1 (Y's mean 100 there): the copy was
    never fed, so not analysed, and AdaStop's notes are true of the runs it analysed; build, which analyses them all,
    says it."""
    df = frame(means=(0.0, 100.0), copied=(2,))
    res = adastop(df)
    assert res.runs_used["n_runs"].tolist() == [10, 10, 5, 5]
    assert across(res.notes) == []
    assert len(across(rlstats.build(df, FORMULA).notes)) == 1


def test_adastop_says_runs_copied_within_a_cell_off_its_batches():
    """3 of X's runs of batch 2 on a repeat scores of its batch 1 (no whole batch repeated, which the batch check
    reads): the front door's note on runs copied within a cell says it."""
    df = frame(copied=())
    at = np.flatnonzero(((df.task == "a") & (df.agent == "X") & (df.batch == 2)).to_numpy())[:3]
    df.loc[at, "score"] = df.loc[(df.task == "a") & (df.agent == "X") & (df.batch == 1), "score"].to_numpy()[:3]
    res = adastop(df)
    within = [n for n in res.notes if COPIED_RUNS in n]
    assert len(within) == 1 and within[0].startswith(
        "3 runs repeat another run's score exactly within 1 agent x task cell (a: X 3 of 10)")
    assert not any(n.startswith(REPEATED_RUNS) for n in res.notes)


def test_a_repeated_batch_is_said_once():
    """X's batch 2 on a repeats its batch 1: the batch check names the interims, and the front door's note on the same
    runs is not said again."""
    df = frame(copied=())
    first = ((df.task == "a") & (df.agent == "X") & (df.batch == 1)).to_numpy()
    df.loc[((df.task == "a") & (df.agent == "X") & (df.batch == 2)).to_numpy(), "score"] = df.loc[first, "score"].to_numpy()
    with pytest.warns(rlstats.RlstatsWarning, match=REPEATED_RUNS):
        res = adastop(df)
    assert [n for n in res.notes if n.startswith(REPEATED_RUNS)] == [
        f"{REPEATED_RUNS} (the same 5 scores in any order; a batch should hold new runs): a: X at interim 2 (= 1)"]
    assert not any(COPIED_RUNS in n for n in res.notes)


def test_cli_compare_method_adastop_says_it(tmp_path):
    path = tmp_path / "runs.csv"
    frame().to_csv(path, index=False)
    out = io.StringIO()
    assert main(["compare", str(path), FORMULA, "--method", "adastop", "-o", "n=5", "-o", "K=2", "-o", "batch=batch",
                 "--seed", "0"], out=out) == 0
    text = " ".join(out.getvalue().split())
    assert "10 of X's 10 runs on a repeat exactly the scores of 10 of its 10 runs on b (10 scores shared)" in text


def test_mujoco_adastop_halfcheetah_copy(mirror):
    """The trial's call: HalfCheetah's test fed PPO's batch 1 (5 runs), which repeat 5 scores of PPO's Hopper runs
    (10 of its 30 fed, Hopper's batch 3 repeating its batch 1); the Hopper batches said once, by the batch check."""
    mj = load_dataset("mujoco_adastop")
    with pytest.warns(rlstats.RlstatsWarning, match=REPEATED_RUNS):
        res = rlstats.adastop(mj, FORMULA, n=5, K=6, batch="batch", rng=0, progress=False)
    said = across(res.notes)
    assert len(said) == 1 and said[0].startswith(
        "5 of PPO's 5 runs on halfcheetah repeat exactly the scores of 10 of its 30 runs on hopper (5 distinct scores "
        "shared, some repeated within a cell), whose chance at the scores' resolution is at most 2e-24")
    assert [n for n in res.notes if n.startswith(REPEATED_RUNS)] == [
        f"{REPEATED_RUNS} (the same 5 scores in any order; a batch should hold new runs): hopper: DDPG, PPO, SAC at "
        "interims 3 (= 1) and 4 (= 2)"]
    assert not any(COPIED_RUNS in n for n in res.notes)


# ---------------------------------------------------------------------------
# 2. A comparison not rejected is no equality (audit s35: "equal" 99 times in the demo's print)
# ---------------------------------------------------------------------------

def _words(text):
    return " ".join(text.split())


def test_a_comparison_not_rejected_is_said_no_difference_found():
    """The decisions table keeps the paper's value 'equal' (code ported from its implementation filters on it); the
    print, summary, LaTeX, report and plots say "no difference found" and never call the agents equal."""
    res = adastop(frame())
    assert res.decisions["decision"].tolist() == ["equal", "equal"] and res.glance()["n_equal"].item() == 2
    text = str(res)
    lines = text.splitlines()
    assert lines[4].startswith("rejected = 0, no difference found = 2, undecided = 0 (of 2 comparisons)")
    rows = [line.split() for line in lines if line.startswith("  a ") or line.startswith("  b ")][:2]
    assert [row[:6] for row in rows] == [["a", "X", "Y", "no", "difference", "found"],
                                         ["b", "X", "Y", "no", "difference", "found"]]
    legend = ("no difference found: not shown to differ at this level, which does not show them equal (the value "
              "'equal' in the decisions table, the AdaStop paper's name)")
    assert legend in _words(text)
    # "equal" nowhere else in the print but the notes (the copied-runs note's "equal scores tie")
    body = _words(text.split("\nNote:")[0]).replace(legend, "")
    assert "equal" not in body
    summary = res.summary()
    assert set(summary.tables["Decisions"]["decision"]) == {"no difference found"}
    assert "equal" not in set(summary.tables["Statistic |mean difference| and boundaries per interim"]["decision"])
    said = [part for part in _words(res.report()).split("decisions: ")[1:]]
    assert len(said) == 2 and all(part.startswith("not shown to differ at interim 2 with 10 and 10 runs") and
                                  "equal" not in part.split(". ")[0] for part in said)
    assert res.decision_matrix(task="a").loc["X", "Y"] == "ns"


def test_the_plots_say_no_difference_found():
    import matplotlib.pyplot as plt

    res = adastop(frame())
    ax = res.plot(kind="boundaries", task="a")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "no difference found" in labels and not any("equal" in label for label in labels)
    plt.close(ax.figure)
    ax = res.plot(kind="decisions", task="a")
    assert "ns: no difference found" in _words(ax.get_title()) and "=" not in ax.get_title()
    assert [t.get_text() for t in ax.texts] == ["ns", "ns"]
    plt.close(ax.figure)


# ---------------------------------------------------------------------------
# 3. The note's way on, as the function called takes it
# ---------------------------------------------------------------------------

def test_the_way_on_is_the_function_called_own():
    """rlstats.adastop (as bootstrap, mixed, ...) takes no subset=: the note's way on selects the rows first with a
    boolean mask, as build's does; compare's, which takes subset=, keeps it."""
    df = frame()
    (said,) = across(adastop(df).notes)
    assert said.endswith("(data=df[mask] (a boolean mask of the rows where ~(agent == 'X' & task == 'a') holds) to "
                         "rlstats.adastop)")
    (said,) = across(rlstats.bootstrap(df, FORMULA, n_resamples=200, rng=0, progress=False).notes)
    assert said.endswith("to rlstats.bootstrap and na_action=\"drop\", which leaves out a where the method compares "
                         "every agent on every task)")  # bootstrap refuses the cell left out without it (small36)
    (said,) = across(rlstats.compare(df, FORMULA, method="task_table").notes)
    assert said.endswith("(subset=\"~(agent == 'X' & task == 'a')\" and na_action=\"drop\", which leaves out a "
                         "where the method compares every agent on every task)")


def test_select_rows_recounts_cells_and_runs():
    """The Design of the runs fed (AdaStop's batches 1 of task b): counts and run indices recounted, the rest kept."""
    design = rlstats.build(frame(), FORMULA, extra_columns=("batch",))
    rows = np.flatnonzero((design.task == 0) | (design.extra["batch"] == 1))
    fed = _rows_selected(design, rows)  # design._rows_selected since s36 small36 (was Design._select_rows)
    assert fed.counts.tolist() == [[10, 10], [5, 5]] and fed.nobs == 30
    assert fed.run.tolist() == list(range(10)) * 2 + list(range(5)) * 2
    assert np.array_equal(fed.y, design.y[rows]) and np.array_equal(fed.row_position, design.row_position[rows])
    assert fed.agents == design.agents and fed.tasks == design.tasks


def test_a_repeated_batch_is_a_copy_the_front_door_would_say():
    """What said_within= leaves to the batch check: the front door's note on the same runs (5 of X's 10 on a)."""
    from rlstats.design import copied_runs_note

    df = frame(copied=())
    first = ((df.task == "a") & (df.agent == "X") & (df.batch == 1)).to_numpy()
    df.loc[((df.task == "a") & (df.agent == "X") & (df.batch == 2)).to_numpy(), "score"] = df.loc[first, "score"].to_numpy()
    design = rlstats.build(df, FORMULA, note_copies=False)
    (said,) = copied_runs_note(design, df)
    assert said.startswith("5 runs repeat another run's score exactly within 1 agent x task cell (a: X 5 of 10)")
    assert copied_runs_note(design, df, said_within=[0]) == []  # task a (0) x agent X (0)
