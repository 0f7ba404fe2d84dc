"""Review s30 (rfix30c): a mapping's key naming no task, options recording the labels they resolved, and the
equivalence aggregate's own tasks in its paragraph and its measured-size note."""
import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _curves():
    rows = [dict(agent=a, task=t, seed=s, step=k, score=k * 0.1 + s) for a in "AB" for t in ["x", "y"]
            for s in range(2) for k in range(5)]
    return pd.DataFrame(rows)


def test_threshold_key_naming_no_task_is_said():
    """A key naming no task was ignored without a word. Where a task of the data has no value it is the error of an
    unknown task (a misspelt key); where every task has one, the others are said in a note and not used (the lead:
    one table of a benchmark's thresholds on a subset of its tasks, as test_audit_s28_censor28 passes them)."""
    with pytest.raises(OptionError) as info:
        rlstats.summarize_runs(_curves(), "score ~ agent | task/seed", step="step", how="time_to_threshold",
                               threshold={"x": 0.2, "yy": 5})
    assert str(info.value) == ("'yy' in threshold= is not a task in column 'task' (did you mean 'y'?); the tasks "
                               "are: 'x', 'y'")
    out = rlstats.summarize_runs(_curves(), "score ~ agent | task/seed", step="step", how="time_to_threshold",
                                 threshold={"x": 0.2, "y": 0.3, "yy": 5})
    assert ("threshold= gives 1 key naming no task of the data, not used: 'yy' (the tasks are: 'x', 'y')"
            in out.attrs["rlstats_notes"])
    # the keys that name tasks still give the times: run k*0.1+s first reaches 0.2 at step 2 (seed 0), 0 (seed 1)
    out = rlstats.summarize_runs(_curves(), "score ~ agent | task/seed", step="step", how="time_to_threshold",
                                 threshold={"x": 0.2, "y": 0.3})
    assert sorted(out.loc[out["task"] == "x", "score"].tolist()) == [0, 0, 2, 2]
    assert sorted(out.loc[out["task"] == "y", "score"].tolist()) == [0, 0, 3, 3]


def _numbered():
    rng = np.random.default_rng(0)
    rows = [dict(agent=a, task=t, seed=s, score=rng.normal(a * 0.3 + (5 if t == "t1" else 0), 1))
            for a in [0, 1, 2] for t in ["t1", "t2", "t3"] for s in range(4)]
    return pd.DataFrame(rows)


def test_options_record_the_labels_resolved():
    df = _numbered()
    res = rlstats.permutation(df, "score ~ agent | task", reference=np.int64(2), n_resamples=99, rng=1,
                              progress=False)
    assert res.options["reference"] == "2" and len(res.tidy()) == 6  # 2 pairs on 3 tasks
    res = rlstats.permutation(df, "score ~ agent | task", comparisons=[(0, 2.0)], n_resamples=99, rng=1,
                              progress=False)
    assert res.options["comparisons"] == (("0", "2"),) and len(res.tidy()) == 3
    res = rlstats.adastop(df, "score ~ agent | task", reference=2.0, n=4, K=1, n_resamples=99, rng=1,
                          progress=False)
    assert res.options["reference"] == "2"
    res = rlstats.percentiles(df, "score ~ agent | task", identical=[(np.int64(0), 1.0, "t2")], interval=None)
    assert res.options["identical"] == [("0", "1", "t2")]
    assert any(n.startswith("identical=: the payoffs of 0 and 1 against each other on t2 were set") for n in res.notes)
    # as equivalence records control=
    res = rlstats.equivalence(df, "score ~ agent | task", margin=1.0, control=np.int64(2), aggregate=None)
    assert res.options["control"] == "2"


def _dropped():
    rng = np.random.default_rng(3)
    rows = [dict(agent=a, task=t, seed=s, score=rng.normal({"A": 0, "B": 0.2, "C": 0.1}[a], 1))
            for a in "ABC" for t in ["t1", "t2", "t3", "t4"] for s in range(6) if not (a == "C" and t == "t4")]
    return pd.DataFrame(rows)


def test_equivalence_paragraph_says_the_aggregates_tasks():
    res = rlstats.equivalence(_dropped(), "score ~ agent | task", margin=0.5, na_action="drop", n_resamples=200,
                              rng=1)
    # audit s31 (equiv31): each pair's aggregate on the tasks both its agents ran, said of the pair
    assert res.n_tasks == 4 and res.aggregate_tasks == {("A", "C"): ("t1", "t2", "t3"), ("B", "C"): ("t1", "t2", "t3")}
    assert "; each pair's tests read the tasks both its agents ran." in res._prose()
    assert "A against C: across the 3 tasks both ran, " in res._prose()
    assert "aggregate over the 3 tasks both ran, " in res._prose()
    whole = rlstats.equivalence(_dropped().query("task != 't4'"), "score ~ agent | task", margin=0.5,
                                n_resamples=200, rng=1)
    assert whole.aggregate_tasks is None and "in aggregate the IQM difference" in whole._prose()


def test_equivalence_size_note_reads_the_aggregates_runs(monkeypatch):
    from rlstats import calibration

    # A and B: 10 runs on t1-t3, 3 on t4; C lacks t4, so the aggregate reads t1-t3 and their 10 runs
    rng = np.random.default_rng(3)
    rows = [dict(agent=a, task=t, seed=s, score=rng.normal(0, 1)) for a in "ABC" for t in ["t1", "t2", "t3", "t4"]
            for s in range(3 if t == "t4" else 10) if not (a == "C" and t == "t4")]
    seen = []
    real = calibration.nearest_count
    monkeypatch.setattr(calibration, "nearest_count", lambda grid, runs: seen.append(runs) or real(grid, runs))
    rlstats.equivalence(pd.DataFrame(rows), "score ~ agent | task", margin=0.5, na_action="drop", n_resamples=200,
                        rng=1)
    # audit s31 (equiv31): each pair's own, per test: A vs B all 4 tasks (3 runs on t4), A vs C and B vs C t1-t3
    # (10 runs), for the per-task, across-tasks and aggregate tests alike
    # audit s32 (equivtab32): first the aggregate's note of its decision's rows for A vs B (the bootstrap noted its
    # 95% intervals at the 3 runs of t4), by the same reading; audit s39 (eq39): A vs C and B vs C share one design
    # (3 tasks, 10 runs), whose rows each test reads once a call
    assert seen == [3] + [3, 10] * 3
