"""Audit s10 (profile): the band of ``performance_profile(kind="tasks")``, the fraction of tasks whose mean is above tau.

Its default was the stratified percentile bootstrap of the runs within tasks, which held its "95%" pointwise band in
0.71-0.77 of thresholds at 26 tasks of 3 runs, 0.84-0.86 at 5 runs, and 0.00-0.49 at its worst threshold (audit
s9, tests/test_audit_s9_levels.py); a note quoted that. The default is now the ``"t"`` band: each task's mean gets
Student t bounds one-sided at (1 - level) / T, and the band counts the tasks whose lower (upper) bound lies above tau.
Its coverage is in the ``bootstrap.profile_tasks`` rows of rlstats/calibration.csv
(tests/reference/coverage_profiles_tasks.py); the old band stays as ``interval="percentile"``.
"""

from __future__ import annotations

import math
import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats import calibration
from rlstats.errors import OptionError

FORMULA = "score ~ agent | task"


def _frame(rng, tasks, runs, agents=2):
    """Long frame: agents alike, task means evenly from -1 to 1, normal runs (sd 1), as audit s9's."""
    means = np.linspace(-1.0, 1.0, tasks)
    rows = [(f"a{a}", f"t{t:02d}", s, means[t] + rng.standard_normal())
            for t in range(tasks) for a in range(agents) for s in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.xfail(strict=True, reason="the default kind='tasks' band is the percentile bootstrap (0.00-0.49 at its "
                                      "worst threshold at 26 tasks x 3 runs)")
def test_tasks_profile_default_band_holds_its_level_at_every_threshold():
    """The default band at 26 tasks of 3 runs (audit s9's design) at thresholds on and just below the true task
    means, where a band is hardest to hold: 120 bands (60 data sets x 2 agents) hold the truth at every one of 52
    thresholds in at least 0.95 - 3 SE. The percentile band, the default before, held 0.79 on average over these
    thresholds and 0.075 at the worst."""
    rng = np.random.default_rng(10)
    means = np.linspace(-1.0, 1.0, 26)
    taus = np.concatenate([means, np.nextafter(means, -np.inf)])
    truth = (means[None, :] > taus[:, None]).mean(axis=1)
    held = []
    for _ in range(60):
        res = rlstats.performance_profile(_frame(rng, 26, 3), FORMULA, tau=taus, kind="tasks")
        held.append((res.intervals[..., 0] <= truth) & (truth <= res.intervals[..., 1]))
    held = np.concatenate(held)
    assert res.interval == "t" and res.n_resamples is None and not res.interval_mc_se.any()
    assert held.mean(axis=0).min() >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / held.shape[0])
