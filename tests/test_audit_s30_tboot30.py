"""Audit s30 (tboot30): leftovers of performance_profile(task_bootstrap=True) and bootstrap(task_bootstrap=True).

1. performance_profile(kind="tasks", task_bootstrap=True)'s default, the percentile band of tasks and runs resampled,
   had no measured coverage. Measured against the profile of the population of tasks (the fraction of its tasks whose
   mean is above tau; ``bootstrap.profile_population`` rows with ``metric`` ``tasks``), it held as little as 0.13 (26
   tasks x 3 runs, skewed task means, runs' sd twice theirs): the fraction of noisy task means estimates another
   profile. Replaced by ``interval="wilson_tasks"`` for that kind too: each task's mean bounded (skew-corrected t, at
   1 - 0.05 / 2), then Wilson's interval over the tasks (at 1 - 0.05 / 2) from the counts whose bounds lie above tau.
2. Its docstring's sentence on the ceiling of a percentile band's level was not true of kind="tasks".
3. interval="studentized" with task_bootstrap=True: which interval was used.
4. At 2 tasks the median's withheld note quoted the mean's rows (the population's mean, not its median).
"""
import runpy
import pathlib

import numpy as np
import pytest

import rlstats

HERE = pathlib.Path(__file__).parent
SIM = runpy.run_path(str(HERE / "reference" / "coverage_profile_tasks_resampled.py"))


def _default_coverage(tasks, runs, distribution, run_sd, n_sim, seed=0):
    """The default kind="tasks" band (task_bootstrap=True) of rlstats on ``n_sim`` data sets of the population, its
    coverage at the five thresholds (the task means' 10%-90% quantiles)."""
    rng = np.random.default_rng([30, tasks, runs, seed])
    tau, true = SIM["truth_tasks"](distribution)
    scores = SIM["TASKS"]["data"](distribution, tasks, runs, run_sd, n_sim, rng)
    bands = SIM["tasks_default"](scores, tau)
    return ((bands[..., 0] <= true) & (true <= bands[..., 1])).mean(axis=0)


@pytest.mark.xfail(strict=True, reason="audit s30 tboot30: the percentile default missed (0.13 at 26 x 3, skewed)")
def test_default_tasks_band_holds_the_population_profile():
    # the percentile band held 0.13 here in the table's 1,000 data sets at the 10% point (profile 0.90)
    coverage = _default_coverage(26, 3, "skewed", 2.0, 16)
    assert coverage.min() >= 0.9
