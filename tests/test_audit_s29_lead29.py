"""Audit s29, the lead's own finds while merging.

real29 saw the copied-runs note on the AdaStop MuJoCo batches say "20 of PPO's 30 runs on halfcheetah repeat exactly
the scores of 30 of its 30 runs on hopper (20 scores shared)": read as written, 30 runs repeat 20 scores, which
contradicts itself unless some hopper runs repeat each other (10 of PPO's 30 hopper runs repeat a score within the
cell, which the note on cells says separately). Where more runs than distinct scores hold the shared scores, the
parenthesis now says the scores are distinct and that some repeat within a cell; where every run holds its own score
the words are unchanged.
"""
import numpy as np
import pandas as pd
from conftest import caught

import rlstats
from rlstats.design import COPIED_ACROSS


def _across(notes):
    return [n for n in notes if COPIED_ACROSS in n]


def _frame(extra_repeat):
    # two tasks of 10 runs a cell, scores to 3 decimals; agent A's runs on t2 are its runs on t1 read again, one of
    # them twice in place of another where extra_repeat
    rng = np.random.default_rng(29)
    t1 = np.round(rng.normal(100, 10, 10), 3)
    t2 = t1.copy()
    if extra_repeat:
        t2[-1] = t2[0]
    rows = [("A", "t1", s) for s in t1] + [("A", "t2", s) for s in t2]
    rows += [("B", task, s) for task in ("t1", "t2") for s in np.round(rng.normal(90, 10, 10), 3)]
    return pd.DataFrame(rows, columns=["agent", "task", "score"])


def test_shared_scores_fewer_than_runs_say_they_repeat_within_a_cell():
    frame = _frame(True)
    notes = _across(rlstats.build(frame, "score ~ agent | task").notes)
    t1, t2 = (frame.loc[(frame.agent == "A") & (frame.task == t), "score"] for t in ("t1", "t2"))
    shared = set(t1) & set(t2)
    # counted by hand: t2's 10 runs hold 9 distinct scores, all on t1, where 9 runs hold them
    assert (t1.isin(shared).sum(), t2.isin(shared).sum(), len(shared)) == (9, 10, 9)
    assert len(notes) == 1
    assert notes[0].startswith("9 of A's 10 runs on t1 repeat exactly the scores of 10 of its 10 runs on t2 "
                               "(9 distinct scores shared, some repeated within a cell), ")


def test_one_run_a_score_keeps_the_plain_words():
    notes = _across(rlstats.build(_frame(False), "score ~ agent | task").notes)
    assert len(notes) == 1
    assert notes[0].startswith("10 of A's 10 runs on t1 repeat exactly the scores of 10 of its 10 runs on t2 "
                               "(10 scores shared), ")


def test_calibration_legend_names_methods_not_task_counts():
    """bootstrap.interval_tasks' default is told by its task counts (given from 10 tasks): method_label named them,
    so the calibration figure drew a legend line per metric, interval and task count (about 100 entries, a 30 in
    figure). The sizes are design, over which each point is the lowest: the legend names metric and interval."""
    import csv

    from rlstats import calibration

    with open(calibration.PATH, newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["procedure"] == "bootstrap.interval_tasks"]
    expected = {f"{r['metric']}, {r['interval']}" for r in rows}  # counted from the file, not by the package
    points = calibration.coverage_by_runs(rlstats.calibration_table("bootstrap.interval_tasks"))
    assert {m.removesuffix(calibration.OUTSIDE_DEFAULT) for m in points["method"]} == expected
    assert not any(str(t) in m.split(", ") for m in points["method"] for t in (2, 3, 5, 10, 26))
    # review29a: the default's rows below the task count it is given from drew a dotted line under the default's own
    # name (0.00 at 2 tasks); they are named apart, and no name is both a default's and another role's
    by_role = points.groupby("method")["role"].nunique()
    assert (by_role == 1).all()
    outside = {m for m in points["method"] if m.endswith(calibration.OUTSIDE_DEFAULT)}
    assert outside == {"iqm, expanded_tasks" + calibration.OUTSIDE_DEFAULT,
                       "median, expanded_tasks" + calibration.OUTSIDE_DEFAULT,
                       "optimality_gap, expanded_tasks" + calibration.OUTSIDE_DEFAULT,
                       "mean, expanded_tasks_t" + calibration.OUTSIDE_DEFAULT}


def test_powerless_warning_names_n_resamples_where_drawn_paths_cap_the_p_value():
    """CI's log (audit s29): the permutation test of 4 agents x 30 runs with n_resamples=100 warned that it can never
    reject and said "add runs". Holm's first step spends alpha / 6 = 0.0083, and 100 drawn paths give it
    floor(0.0083 x 100) = 0 of them (by hand); more runs cannot help, more paths can: 2,000 give 16."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame([(a, s, rng.normal(i, 1)) for i, a in enumerate("ABCD") for s in range(30)],
                      columns=["agent", "seed", "score"])
    _, said = caught(lambda: rlstats.compare(df, "score ~ agent", n_resamples=100, rng=0, progress=False))
    said = [s for s in said if "never reject" in s]
    assert len(said) == 1
    assert said[0].endswith("can never reject; pass n_resamples=120 or more (its 100 random paths cap the smallest "
                            "p-value; more runs cannot help at 100 paths)")  # 120 x 0.05 / 6 = 1 (review s31)
    _, said = caught(lambda: rlstats.compare(df, "score ~ agent", n_resamples=2000, rng=0, progress=False))
    assert not [s for s in said if "never reject" in s]
