"""Audit s24 (gap24): the bootstrap default's 2-task misses (tests/reference/coverage_two_tasks_floor.py)."""

from __future__ import annotations

import pytest

from rlstats import calibration
from rlstats.methods.bootstrap import _small_runs


def _gap_rows(runs, tasks=2):
    return _small_runs._rows_by_runs("studentized", "optimality_gap", tasks=tasks)[runs]


def test_note_names_a_worst_draw_miss():
    # the optimality gap's 2-task rows at 20 runs: 0.942-0.971 pooled; the skewed row (0.9526 of 1,920) misses only
    # in its worst design draw (0.892, below 0.95 - 3 sqrt(0.95 * 0.05 * 4 / 1920) = 0.9203)
    rows = _gap_rows(20)
    (skewed,) = [r for r in rows if calibration.misses(r, 0.95)]
    assert skewed["distribution"] == "skewed" and not calibration._pooled_misses(skewed, 0.95, 3.0)
    assert float(skewed["coverage_min"]) == pytest.approx(0.891667, abs=1e-6)
    note = _small_runs.coverage_note("studentized", "optimality gap", "optimality_gap", 20, tasks=2)
    # before: "... covered 0.94 to 0.97; 20 runs per task are the most simulated, ..." (the miss not visible)
    assert note == (
        "20 runs per task are few for studentized intervals of the optimality gap: in simulations on 2 tasks with 20 "
        "runs per task, nominal 95% intervals covered 0.94 to 0.97 (skewed scores on 2 tasks: 0.953, 0.892 in the "
        "worst of its 4 draws of the tasks' offsets and scales, its worst draw below 0.95 by more than 3 Monte Carlo "
        "standard errors of a draw); 20 runs per task are the most simulated, so whether more reach the stated level "
        "is not measured")
    # a note whose range shows a pooled miss is unchanged (at 3 runs the heavy-tailed row, 0.805 of 1,920)
    three = _small_runs.coverage_note("studentized", "optimality gap", "optimality_gap", 3, tasks=2)
    assert three.endswith("covered 0.81 to 0.87; more runs are needed for the stated level"), three


def test_worst_draw_clause_threshold_by_hand():
    # 3 SE of a draw of 1,920 / 4 = 480 intervals at 0.95: sqrt(0.95 * 0.05 / 480) = 0.009947 -> 0.92016
    row = {"coverage": "0.9526", "n_sim": "1920", "design_draws": "4", "coverage_min": "0.9203"}
    assert not calibration.misses(row, 0.95)
    row["coverage_min"] = "0.9201"
    assert calibration.misses(row, 0.95)
    assert calibration.miss_clause(row, 0.95).startswith("its worst draw below 0.95")
