"""Audit s12 (proftasks): the default band of ``performance_profile(kind="tasks")`` on skewed and capped runs.

The default ``interval="t"`` band (audit s10) bounds each task's mean by Student t bounds one-sided at 0.05 / T and
counts the tasks whose bounds lie above tau. Its ``bootstrap.profile_tasks`` rows of rlstats/calibration.csv
(tests/reference/coverage_profiles_tasks.py) miss 95% on the grid's skewed runs just below the lowest task mean
(0.81-0.86 on one task, 0.85-0.90 on 5, 0.88-0.93 on 26) and on its capped runs at the highest (0.89-0.93 at 3-5
runs); the result only quoted those rows. The project's rule is that a default that misses is replaced.
"""

from __future__ import annotations

import math
import pathlib
import runpy

import numpy as np
import pytest

TASKS = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_profiles_tasks.py"))


def _worst(distribution, tasks, runs, n_sim, draws=(0,)):
    """(coverage, configuration, bands) of the default band at its worst threshold of the grid's design."""
    by_draw = [TASKS["held"](distribution, tasks, runs, draw, n_sim, seed=12)[0] for draw in draws]
    held = np.concatenate(by_draw)
    coverage = held.mean(axis=0)
    j = int(np.argmin(coverage))
    return float(coverage[j]), TASKS["truth"](distribution, tasks, 0)[2][j], held.shape[0]


@pytest.mark.xfail(strict=True, reason="the default t band misses 95% on skewed runs (s12 reproducer)")
def test_default_tasks_band_holds_on_skewed_runs():
    """Skewed (lognormal) runs, 5 tasks of 5 runs, the grid's first design draw: the default band held the true
    fraction of tasks above tau just below the lowest task mean in 0.86 of 240 bands (the table: 0.858, 4,000
    bands); it must hold 0.95 - 3 SE."""
    coverage, where, bands = _worst("skewed", 5, 5, 12)
    assert coverage >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / bands), (coverage, where)
