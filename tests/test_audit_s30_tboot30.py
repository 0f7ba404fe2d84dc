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


def _interval_tasks_rows(interval, metric, tasks, runs):
    import csv
    with open(HERE.parent / "rlstats" / "calibration.csv", newline="") as f:
        return [r for r in csv.DictReader(f) if r["procedure"] == "bootstrap.interval_tasks"
                and (r["interval"], r["metric"], int(r["tasks"]), int(r["runs"])) == (interval, metric, tasks, runs)]


def test_two_task_median_note_quotes_the_median_rows():
    # the mean's bootstrap-t rows (the population's mean) at 2 tasks x 5 runs: 0.006-0.012; the median's expanded
    # rows (the population's median): worst 0.685 (normal task means, runs' sd 0.3)
    mean_rows = _interval_tasks_rows("expanded_tasks_t", "mean", 2, 5)
    median_rows = _interval_tasks_rows("expanded_tasks", "median", 2, 5)
    assert max(float(r["coverage"]) for r in mean_rows) == 0.012
    assert min(float(r["coverage"]) for r in median_rows) == 0.685
    df = rlstats.datasets.simulate(agents=2, tasks=2, seeds=5, rng=0)
    res = rlstats.bootstrap(df, "score ~ agent | task", metrics=["median"], task_bootstrap=True, n_resamples=200,
                            rng=0, normalize=False)
    assert np.isnan(res.intervals).all()
    (note,) = [n for n in res.notes if "withheld" in n]
    assert "0.01 " not in note and "only 0.69 of data sets for the median of task means" in note
    assert "was not measured against the median of a population of tasks" in note
    assert "(given from 10 tasks by the mean's rule, which the median of 2 task means takes; its own from 5)" in note
    assert "(normal task means, runs' sd 0.3 times theirs)" in note
