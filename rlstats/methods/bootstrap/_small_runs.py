"""Intervals from few runs per task: the expanded percentile interval and what simulation measured.

With c runs in a task, the bootstrap sees each task mean's variance shrunk by
(c - 1) / c and reads normal rather than t quantiles, so nominal 95% percentile
intervals of the IQM or mean cover about 0.86 at 3 runs.  ``interval="expanded"``
is Hesterberg's expanded percentile interval (Hesterberg 2015, Section 4.5)
carried over to strata: the percentile interval read at the level whose normal
quantile is sqrt(c / (c - 1)) t_{df}, with c the fewest runs in a task and df
the Welch-Satterthwaite degrees of freedom of the mean over tasks.

``COVERAGE`` holds the coverage that ``tests/reference/coverage_small_runs.py``
measured for nominal 95% intervals (normal and skewed scores, 5 and 26 tasks);
results quote it when the runs per task are too few for the interval asked for.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from ...errors import DesignError
from . import _kernels as kernels

# Coverage below this (at nominal 0.95) is worth a line in the result.
SHORTFALL = 0.94

# (interval, metric) -> {fewest runs per task: (lowest, highest) coverage of nominal 95% intervals}
# over normal and exponential scores with 5 and 26 tasks; measured by tests/reference/coverage_small_runs.py.
COVERAGE = {}


def welch_df(y, task, n_tasks):
    """Welch-Satterthwaite degrees of freedom of the mean over tasks of one agent's task means.

    ``y`` and ``task`` are that agent's runs.  Infinite when no task varies.
    """
    sizes = np.bincount(task, minlength=n_tasks).astype(float)
    sums = np.bincount(task, weights=y, minlength=n_tasks)
    squares = np.bincount(task, weights=y * y, minlength=n_tasks)
    centred = np.maximum(squares - sums * sums / sizes, 0.0)
    share = centred / (sizes - 1) / sizes  # s_t^2 / c_t, the variance of task t's mean
    denominator = np.sum(share ** 2 / (sizes - 1))
    return np.inf if denominator == 0 else float(share.sum() ** 2 / denominator)


def expanded_level(confidence_level, fewest_runs, df):
    """The level at which the percentile interval spans sqrt(c / (c - 1)) t_df standard errors (arrays broadcast)."""
    fewest_runs = np.asarray(fewest_runs, dtype=float)
    z = np.sqrt(fewest_runs / (fewest_runs - 1)) * stats.t.ppf((1 + confidence_level) / 2, df)
    return 1 - 2 * special.ndtr(-z)


def check_single_runs(counts, names, what):
    """``counts`` (tasks, agents): an error when every task of some agent has one run, else notes for the rest.

    One run leaves nothing to resample in its task, so an agent with one run everywhere would get an
    interval of zero width; with some single-run tasks, those tasks add no spread to the interval.
    """
    single = counts == 1
    everywhere = [name for name, all_single in zip(names, single.all(axis=0)) if all_single]
    if everywhere:
        raise DesignError(
            f"{what}: {', '.join(map(repr, everywhere))} {'has' if len(everywhere) == 1 else 'have'} one run in "
            "every task, so resampling runs within tasks gives intervals of zero width; add runs, or pass "
            "task_bootstrap=True (bootstrap, performance_profile) to resample tasks as well")
    return [f"{name}: {n} of {counts.shape[0]} tasks have a single run, which adds no spread to the intervals"
            for name, n in zip(names, single.sum(axis=0)) if n]


def coverage_note(interval, metric_label, metric_key, fewest_runs):
    """A line quoting the simulated coverage when ``fewest_runs`` are too few for ``interval``, else None."""
    table = COVERAGE.get((interval, metric_key))
    measured = [c for c in (table or ()) if c <= fewest_runs]
    if not measured:
        return None
    runs = max(measured)
    low, high = table[runs]
    if low >= SHORTFALL:
        return None
    text = (f"{fewest_runs} runs per task are few for {interval} intervals of the {metric_label}: in simulations "
            f"with {runs} runs per task, nominal 95% intervals covered {low:.2f} to {high:.2f}")
    better = COVERAGE.get(("expanded", metric_key), {}).get(runs)
    if interval == "expanded":
        return text + "; more runs are needed for the stated level"
    if better is not None:
        text += f"; interval=\"expanded\" covered {better[0]:.2f} to {better[1]:.2f}"
    return text


def expanded_bounds(distribution, estimates, confidence_level, fewest_runs, df):
    """(bounds, mc_se) of the expanded percentile interval; the leading axis of every array is the agent (or pair)."""
    levels = expanded_level(confidence_level, fewest_runs, df)
    parts = [kernels.interval_bounds(distribution[i], estimates[i], float(level), "percentile")
             for i, level in enumerate(levels)]
    return np.stack([bounds for bounds, _ in parts]), np.stack([se for _, se in parts])


def bootstrap_bounds(distribution, estimates, level, interval, z0, acceleration, compat, fewest_runs, df):
    """(bounds, mc_se) of shape (K, M, 2) for any interval kind (the expanded one needs fewest runs and df per agent)."""
    if interval == "expanded":
        return expanded_bounds(distribution, estimates, level, fewest_runs, df)
    return kernels.metric_bounds(distribution, estimates, level, interval, z0, acceleration, compat)
