"""Audit s21 (review21d): review of the merges left21b, bayescal21, bayescal21b, review21c and the lead's
warn_raw_scales change."""

import sys
import pathlib
import warnings

import numpy as np
import pytest

import rlstats

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_audit_s21_bayescal21b import _frame  # noqa: E402
from conftest import BAYES_CHAINS  # noqa: E402

#: the hierarchical model in short chains (conftest.BAYES_CHAINS): the decision notes read the pair's tasks and runs,
#: not the chains' length; its default 8 chains of 1,300 draws were 5 of this file's 8 CPU seconds (speed39)
HIERARCHICAL = {key: value for key, value in BAYES_CHAINS.items() if key != "model"}


def _decision_notes(tasks, runs, model="signed_rank", seed=3):
    x = np.random.default_rng(seed).normal(0.0, 0.5, size=(tasks, runs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(_frame(x), "score ~ agent | task/seed", rope=1.0, model=model,
                            **(HIERARCHICAL if model == "hierarchical" else {"rng": 0, "progress": False}))
    # the decision's notes (the credible-interval note cites the bayes.decision rows too: audit s24 curves24)
    return res, [n for n in res.notes if "practically equivalent" in n
                 and ("posterior decision" in n or "calibration table's bayes.decision" in n)]


def test_a_decision_outside_the_measured_designs_says_so():
    # a 'practically equivalent' reading of 2 tasks was looked up at the 5-task rows, which hold (0.025-0.063 at 3
    # runs), so no note; at 2 tasks x 3 runs the signed-rank model read 'equivalent' with the true difference on the
    # ROPE's edge in 11 of 60 data sets, 0.18 (tests/reference/bayes_decision_two_tasks.py)
    res, notes = _decision_notes(2, 3)
    assert res.comparisons["p_rope"].iloc[0] >= 0.95
    assert notes == ["a0 vs a1 (2 tasks, 3 runs): P(rope) of at least 0.95 read as 'practically equivalent' at a "
                     "design outside those the calibration table's bayes.decision rows measured (5 to 26 shared "
                     "tasks, 1 to 10 runs per agent): how often this decision errs here is not measured"]


@pytest.mark.parametrize("tasks, runs, model, outside", [(100, 3, "signed_rank", True), (10, 2, "hierarchical", True),
                                                         (10, 5, "signed_rank", False), (5, 3, "signed_rank", False),
                                                         (26, 10, "signed_rank", False)])
def test_the_grid_edges(tasks, runs, model, outside):
    res, notes = _decision_notes(tasks, runs, model)
    assert res.comparisons["p_rope"].iloc[0] >= 0.95
    assert [f"({tasks} tasks, {runs} runs)" in n and "is not measured" in n for n in notes].count(True) == outside
    # the nearest measured row's note, where it misses, names the row it read, never the off-grid design as measured
    for n in notes:
        if "nearest this one" in n:
            assert f"({min((5, 10, 26), key=lambda t: (abs(t - tasks), t))} tasks" in n


@pytest.mark.parametrize("tasks, runs, model", [
    pytest.param(100, 3, "hierarchical", marks=pytest.mark.slow),  # 12 s: the signed-rank case stands in by default
    (2, 3, "signed_rank")])
def test_decision_notes_alike_under_a_common_affine_map(tasks, runs, model):
    # scores 1000 y + 7 with the ROPE 1000 times as wide: the same probabilities, the same decision notes
    x = np.random.default_rng(3).normal(0.0, 0.5, size=(tasks, runs))
    frame = _frame(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one, other = (rlstats.bayes(f, "score ~ agent | task/seed", rope=rope, rng=0, progress=False, model=model)
                      for f, rope in ((frame, 1.0), (frame.assign(score=1000 * frame["score"] + 7), 1000.0)))
    assert one.comparisons["p_rope"].iloc[0] >= 0.95
    np.testing.assert_allclose(other.comparisons["p_rope"], one.comparisons["p_rope"], atol=1e-9)
    assert ([n for n in one.notes if "bayes.decision" in n and "practically equivalent" in n]
            == [n for n in other.notes if "bayes.decision" in n and "practically equivalent" in n] != [])


def test_unequal_runs_are_read_at_the_fewer():
    # a0 has 10 runs of every task and a1 3: the pair is looked up at 3 runs (its paired runs), not 10
    x = np.random.default_rng(3).normal(0.0, 0.5, size=(26, 10))
    frame = _frame(x)
    frame = frame[(frame["agent"] == "a0") | (frame["seed"] < 3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(frame, "score ~ agent | task/seed", rope=1.0, model="hierarchical", **HIERARCHICAL)
    notes = [n for n in res.notes if "bayes.decision" in n and "practically equivalent" in n]
    assert res.comparisons["p_rope"].iloc[0] >= 0.95
    assert len(notes) == 1 and "(26 tasks, 3 runs per agent," in notes[0]
