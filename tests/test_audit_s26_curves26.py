"""Audit s26 (curves26): at every step the median of task means is the mean of task means on 1 or 2 tasks (one
number, with any runs per task and runs missing at some steps: both weigh each task alike), yet curves() gave the
two statistics different bands there."""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats


def _frame(tasks=2, runs=(4, 6), steps=6, seed=4, early=True):
    """Skewed learning curves of 2 agents: ``runs[t]`` runs of task t (the last task's count for the others), one run
    of each agent ending two steps early."""
    rng = np.random.default_rng(seed)
    rows = []
    for agent in ("a", "b"):
        for task in range(tasks):
            for seed_ in range(runs[min(task, len(runs) - 1)]):
                last = steps - 2 if early and task == 0 and seed_ == 0 else steps
                trend = np.linspace(0.0, 1.0, steps) * (3.0 + task) + (0.5 if agent == "b" else 0.0)
                noise = np.exp(rng.normal(size=steps) * 0.8)
                for s in range(last):
                    rows.append((agent, f"t{task}", seed_, 10 * s, 10.0 * task + trend[s] + noise[s]))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def _curves(df, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.curves(df, "score ~ agent | task/seed", step="step", normalize=False,
                              **{"n_resamples": 200, "rng": 0, "progress": False, **options})


@pytest.mark.xfail(strict=True, reason="audit s26 curves26: the median's bands on 2 tasks differ from the mean's")
def test_median_bands_are_the_means_on_two_tasks_reproducer():
    df = _frame()
    mean, median = _curves(df, statistic="mean"), _curves(df, statistic="median")
    np.testing.assert_array_equal(mean.estimates, median.estimates)
    np.testing.assert_array_equal(mean.pointwise, median.pointwise)
    np.testing.assert_array_equal(mean.simultaneous, median.simultaneous)
