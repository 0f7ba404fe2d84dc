"""Audit s29 (profile29): the bands of ``performance_profile(task_bootstrap=True)`` are replaced, not quoted.

Found: with tasks resampled the ``kind="runs"`` profile's bands were the percentile bands of the two-stage resamples,
which against the profile of the population of tasks (``tests/reference/coverage_profile_tasks_resampled.py``,
thresholds at its 10-90% points) held in as few as 0.48 of data sets at 5 tasks, 0.69 at 10 and 0.89 at 26; the
result only quoted that (taskboot29).

Measured (the script's population, 5/10/26 tasks x 3/5/10 runs, normal and skewed task means, runs' sd 0.3 and 2
times theirs; worst threshold): the percentile bands read at the expanded level sqrt(n/(n-1)) t_{n-1} 0.51 at 5
tasks, 0.71 at 10, 0.90 at 26 (300 data sets of 500 resamples); a t interval on the tasks' fractions, expanded the
same way, 0.48, 0.71, 0.87 (2,000 data sets): both collapse where every task drawn sits on one side of tau. The
Wilson score interval with continuity correction on the mean of the tasks' fractions, n = the number of tasks (each
task's fraction lies in [0, 1], so its variance is at most p(1 - p): the tasks as a binomial sample is the worst
case), held 0.98-1.00 at every design (2,000 data sets), and on exactly binary tasks (the binomial: enumerated) at
least 0.949 from 2 tasks; without the continuity correction 0.947 at 5 tasks in simulation and 0.92 on binary tasks.

Fixed: ``interval="wilson_tasks"`` is the default of ``task_bootstrap=True`` profiles of ``kind="runs"``, a closed
form (no resamples); ``interval="percentile"`` keeps the old reading (and its quoted note). Checked independently:
the bounds against the Wilson score interval with continuity correction solved here from its quadratic; the coverage
by exact binomial enumeration and by a reduced simulation of the population; the calibration rows against the script.
"""
import pathlib
import runpy

import numpy as np
import pytest

import rlstats

HERE = pathlib.Path(__file__).resolve().parent
SIM = runpy.run_path(str(HERE / "reference" / "coverage_profile_tasks_resampled.py"))


def _population_sets(tasks, runs, n_sets, seed):
    """(tau, true, frames): data sets of the script's population (skewed task means, runs' sd 0.3), as DataFrames."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    tau, true = SIM["truth"]("skewed", 0.3)
    scores = SIM["TASKS"]["data"]("skewed", tasks, runs, 0.3, n_sets, rng)
    index = pd.MultiIndex.from_product([range(tasks), range(runs)], names=["task", "seed"]).to_frame(index=False)
    frames = [index.assign(agent="a", score=s.ravel()) for s in scores]
    return tau, true, frames


@pytest.mark.xfail(strict=True, reason="audit s29 profile29: the task_bootstrap=True bands miss the population")
def test_the_default_bands_hold_the_population_profile():
    # 5 tasks x 3 runs, 40 data sets through performance_profile: the percentile default held the population's profile
    # at its 90% point in about half of them (0.49 in the script's 400); a 95% band misses at most 5 of 40 in 99.7%
    tau, true, frames = _population_sets(5, 3, 40, 29)
    held = []
    for df in frames:
        res = rlstats.performance_profile(df, "score ~ agent | task", tau=tau, task_bootstrap=True, n_resamples=200,
                                          rng=1, progress=False)
        band = res.intervals[0]
        held.append((band[:, 0] <= true) & (true <= band[:, 1]))
    assert np.mean(held, axis=0).min() >= 0.85
