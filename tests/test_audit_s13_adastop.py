"""Audit s13, AdaStop's batches, wording and the marl-eval reader's run order.

Audited: how ``rlstats.AdaStop.update`` (and ``check_batch_columns``, the CLI's ``adastop update``) refuses a batch
against how ``rlstats.adastop``'s formula refuses the same rows (one home: :mod:`rlstats.design`); what AdaStop's
printed result, summary, LaTeX and ``rlstats adastop status`` say of the level and of counts; what a ``pattern=``
callable that raises gives; the run order of frames read from marl-eval JSON.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
import rlstats.cli as cli
from rlstats.errors import DesignError, OptionError


def _cli(*argv):
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


def _running(n=5, n_resamples=500):
    """An AdaStop of two agents after its first batch, still running."""
    gen = np.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # n = 1: no level can be spent (its own warning)
        seq = rlstats.AdaStop(["a", "b"], n=n, K=4, rng=0, n_resamples=n_resamples)
        seq.update({a: gen.normal(0.0, 1.0, n) for a in seq.agents_to_run})
    return seq


# ----------------------------------------------------------------------------- batches: one home with design.py


def test_batch_refusals_are_the_designs():
    """``check_batch_columns`` had its own copies of three of ``rlstats.design.build``'s refusals (learning-curve
    rows, a run counted twice, rows of several tasks), which could drift apart. A batch is now built into the
    Design the formula API builds, so the formula's refusals are the batch's: the curve message is build's (with
    its ways on), and a run id repeated within an agent is found by ``rlstats.design.repeated_run``, the check of
    the formula's replicate column."""
    from rlstats.design import build, repeated_run
    from rlstats.methods.adastop import check_batch_columns

    batch = pd.DataFrame({"agent": ["a"] * 3 + ["b"] * 3, "score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    curves = batch.assign(seed=[0, 0, 1, 0, 0, 1], step=[1, 2, 1, 1, 2, 1])
    with pytest.raises(DesignError) as formula:
        build(curves, "score ~ agent", curve_summaries=False)  # a batch's way on keeps each run's last row (s18)
    with pytest.raises(DesignError) as fed:
        check_batch_columns(curves)
    assert str(formula.value) in str(fed.value) and "this batch" in str(fed.value)
    # a run id twice within an agent: the same finding for the batch and for the formula's replicate column
    twice = batch.assign(seed=[0, 0, 1, 0, 1, 2], task="t")
    design = build(twice, "score ~ agent | task", extra_columns=["seed"])
    assert repeated_run(design, design.extra["seed"]) == (0, "agent 'a' on task 't'", 2, 1)
    with pytest.raises(DesignError, match="replicate column 'seed' repeats id '0' within agent 'a' on task 't'"):
        build(twice, "score ~ agent | task/seed")
    with pytest.raises(DesignError, match="run seed=0 of agent 'a' on task 't' has 2 rows in this batch"):
        check_batch_columns(twice)
    # a wide batch goes the same way: its task column, melted with the runs, holds two tasks
    wide = pd.DataFrame({"seed": [0, 1, 0, 1], "task": ["x", "x", "y", "y"], "a": [1.0, 2, 3, 4], "b": [5.0, 6, 7, 8]})
    with pytest.raises(DesignError, match=r"the batch's column 'task' holds 2 values \(x, y\)"):
        rlstats.AdaStop(["a", "b"], n=4, K=2, rng=0).update(wide)
    check_batch_columns(wide[wide["task"] == "x"])
    with pytest.raises(DesignError, match=r"run seed=0 of agent 'a' on task 'x' has 2 rows in this batch \(2 repeated "
                                          r"scores in all\).*df.drop_duplicates\('seed'\)"):
        check_batch_columns(wide.assign(seed=[0, 0, 1, 2], task="x"))
    # scores written as text are left to the scores' own refusal, which names the agent (not the formula's caret)
    text = batch.assign(score=batch["score"].astype(str))
    check_batch_columns(text)
    with pytest.raises(DesignError, match=r"scores of agent 'a' are not numbers"):
        rlstats.AdaStop(["a", "b"], n=3, K=2, rng=0).update(text)


def test_a_task_column_by_another_name_is_not_pooled():
    """A batch with no 'task' or 'environment' column but a 'game' column of two values, each with runs of both
    agents, was built with pool_tasks=True: the two games' runs were pooled into one test with no word (the formula
    API refuses such rows unasked). Found and left by the helper; the lead's change: the batch reads such a column
    as its task column (``rlstats.design.block_like_columns``, the formula API's reading), so it is refused as a
    batch of two tasks, naming the column."""
    from rlstats.methods.adastop import check_batch_columns

    batch = pd.DataFrame({"agent": ["a", "b"] * 4, "score": np.arange(8.0), "game": ["pong"] * 4 + ["alien"] * 4})
    with pytest.raises(DesignError, match=r"the batch's column 'game' holds 2 values \(alien, pong\).*"
                                          r"'score ~ agent \| game', batch=\.\.\.\)"):
        check_batch_columns(batch)
    with pytest.raises(DesignError, match="column 'game' holds 2 values"):
        rlstats.AdaStop(["a", "b"], n=4, K=2, rng=0).update(batch)
    check_batch_columns(batch[batch["game"] == "pong"])  # one game's runs: a batch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # n = 2: a small test (its own warning)
        seq = rlstats.AdaStop(["a", "b"], n=2, K=2, rng=0, n_resamples=200)
        seq.update(batch[batch["game"] == "pong"])
    assert seq.interim == 1


def test_design_names_no_all_runs_task():
    """Without a task in the formula, build's messages named the cell "agent 'a' on task '(all runs)'", a task the
    data do not have. They now name the agent alone."""
    from rlstats.design import build

    curves = pd.DataFrame({"agent": ["a", "a", "b", "b"], "seed": [0, 0, 0, 0], "step": [1, 2, 1, 2],
                           "score": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(DesignError) as info:
        build(curves, "score ~ agent")
    assert "within run seed=0 of agent 'a' (2 rows)" in str(info.value) and "(all runs)" not in str(info.value)


# ----------------------------------------------------------------------------- wording


def test_running_test_states_the_schedules_level_and_what_is_spent():
    """After its first batch of K = 4, a running AdaStop printed "level spent = 0.04994 (alpha = 0.05)" in its
    result, summary and LaTeX captions: the level of the whole schedule (Q_4), read as spent though only interim 1
    had run (Q_1 = 1/126 = 0.007937 spent so far). The line now names the schedule's level and, while the test
    runs, what is spent by the last interim tested."""
    res = _running().result()
    level = res.spending["level"].to_numpy()
    assert level[0] == pytest.approx(1 / 126) and level[-1] == pytest.approx(res.level_spent)
    line = f"schedule's level = {res.level_spent:.4g} (alpha = 0.05), of which 0.007937 spent by interim 1"
    for text in (str(res), str(res.summary()), res.to_latex()):
        assert "level spent" not in text and line in text
    # a finished test states the schedule's level alone
    done = rlstats.adastop(rlstats.datasets.simulate(agents=2, tasks=1, seeds=20, effect=[0.0, 3.0], rng=0),
                           "score ~ agent", n=5, K=4, rng=0, n_resamples=500)
    assert done.done and f"schedule's level = {done.level_spent:.4g} (alpha = 0.05)\n" in str(done)
    assert "spent by interim" not in str(done)
    # one test per task: task_01 decided at interim 1 (Q_1 = 1/126), task_02 still undecided at interim 2 when its
    # runs ran out (Q_2 = 1/126 + 8/500): what each spent, as a range
    df = rlstats.datasets.simulate(agents=2, tasks=2, seeds=10, effect=[0.0, 0.0], rng=0)
    df.loc[(df.task == "task_01") & (df.agent == "agent_2"), "score"] += 50
    blocked = rlstats.adastop(df, "score ~ agent | task", n=5, K=4, rng=0, n_resamples=500)
    assert blocked.decisions["interim"].tolist() == [1, 2]
    assert "of which 0.007937 to 0.02394 spent so far by task" in str(blocked)
    assert 1 / 126 + 8 / 500 == pytest.approx(0.023937, abs=1e-6)


def test_counts_of_one_are_singular(tmp_path):
    """With n = 1 and one comparison AdaStop printed "(of 1 comparisons)", "1 batch(es) of n = 1 runs", "n = 1 runs
    per agent per interim" and "incremental AdaStop: 1 batch(es) fed"; ``rlstats adastop status`` printed "(n = 1
    runs per agent per batch)" and "next batch: 1 new runs of each of". Counts now agree with their nouns
    (``rlstats.format.count``)."""
    seq = _running(n=1)
    res = seq.result()
    for text in (str(res), str(res.summary()), res.to_latex()):
        assert "(of 1 comparison)" in text and "comparisons)" not in text
        assert "1 runs" not in text
        assert "batch(es)" not in text
    assert "1 batch of n = 1 run" in str(res) and "n = 1 run per agent per interim" in str(res)
    state = tmp_path / "state.json"
    seq.save(state)
    status, text = _cli("adastop", "status", str(state))
    assert status == 0 and "(n = 1 run per agent per batch)" in text and "next batch: 1 new run of each of" in text


def test_a_raising_pattern_callable_is_an_option_error(tmp_path):
    """``read_logs(folder, pattern=f)`` with an ``f`` that raises (an IndexError on a path with fewer parts than it
    expected) let the IndexError through, naming neither the option nor the file. It is now an OptionError
    naming pattern=, the file and the error."""
    run = tmp_path / "runs" / "ppo" / "s0"
    run.mkdir(parents=True)
    (run / "progress.csv").write_text("step,score\n1,2.0\n2,3.0\n")

    def fields(relative):
        return {"agent": relative.split("/")[3]}

    with pytest.raises(OptionError, match=r"the pattern= callable raised IndexError \(.*\) on 'ppo/s0/progress.csv'"):
        rlstats.read_logs(tmp_path / "runs", fields, progress=False)


# ----------------------------------------------------------------------------- marl-eval run order


MARL_EVAL = "instadeepai/marl-eval/5675ad67e8eeb7450bbbe827883849a938b27d80/tests/mock_data_test.json"


@pytest.fixture
def marl_eval_json():
    from conftest import data_mirror

    root = data_mirror()
    path = None if root is None else root / MARL_EVAL
    if path is None or not path.is_file():
        pytest.skip(f"marl-eval's mock log is not in the data mirror ({MARL_EVAL})")
    return path


def _reversed_json(data, levels=4):
    """The same marl-eval log with the keys of its environments, tasks, algorithms and runs in the reverse order
    (each run's evaluations as they are)."""
    if levels == 0:
        return data
    return {key: _reversed_json(data[key], levels - 1) for key in reversed(list(data))}


def test_marl_eval_runs_are_sorted_and_results_ignore_the_json_order(marl_eval_json, tmp_path):
    """``read_logs`` documents its frame as "sorted by run and step", but a marl-eval JSON's runs came in the file's
    order: in marl-eval's mock log every algorithm lists seed 43289 before 42, so the frame's rows 0-2 were seed
    43289 and rows 3-5 seed 42. Runs are now sorted by their fields (agent, task, seed, environment; numbers as
    numbers), stably; a copy of the file listing its environments, tasks, algorithms and runs in reverse reads to
    the same frame, and an analysis of it gives the same result."""
    import json

    frame = rlstats.read_logs(marl_eval_json, format="marl_eval", progress=False)
    keys = ["agent", "task", "seed", "environment", "step"]
    assert frame[["agent", "seed"]].iloc[[0, 3]].values.tolist() == [["algo_1", 42], ["algo_1", 43289]]
    pd.testing.assert_frame_equal(frame, frame.sort_values(keys, kind="stable").reset_index(drop=True))
    data = json.loads(marl_eval_json.read_text())
    (tmp_path / "reversed").mkdir()
    path = tmp_path / "reversed" / marl_eval_json.name
    path.write_text(json.dumps(_reversed_json(data)))
    backwards = rlstats.read_logs(path, format="marl_eval", progress=False)
    assert backwards["seed"].iloc[0] == 42  # the file's first run is 42 of algo_3 on task_3
    pd.testing.assert_frame_equal(backwards, frame)
    final = [rlstats.summarize_runs(f, "`return` ~ agent | task/seed", step="step") for f in (frame, backwards)]
    results = [rlstats.compare(f, "`return` ~ agent | task", method="skillings_mack") for f in final]
    assert str(results[0]) == str(results[1])
    # the result is the one of the rows in any order, as every rlstats statistic is (row-order invariance)
    shuffled = final[0].sample(frac=1.0, random_state=0)
    assert rlstats.compare(shuffled, "`return` ~ agent | task", method="skillings_mack").statistic == \
        pytest.approx(results[0].statistic, rel=1e-12)
