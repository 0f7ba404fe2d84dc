"""Intervals from few runs per task: the expanded percentile interval and what simulation measured.

With c runs in a task, the bootstrap sees each task mean's variance shrunk by
(c - 1) / c and reads normal rather than t quantiles, so nominal 95% percentile
intervals of the IQM or mean cover about 0.86 at 3 runs.  ``interval="expanded"``
is Hesterberg's expanded percentile interval (Hesterberg 2015, Section 4.5)
carried over to strata: the percentile interval read at the level whose normal
quantile is sqrt(c / (c - 1)) t_{df}, with c the fewest runs in a task and df
the Welch-Satterthwaite degrees of freedom of the mean over tasks.

The ``bootstrap.interval`` rows of the package calibration table
(:mod:`rlstats.calibration`, written by ``tests/reference/coverage_small_runs.py``)
hold the coverage simulation measured for nominal 95% intervals (normal and
skewed scores, 5 and 26 tasks); results quote it when the runs per task are too
few for the interval asked for.
"""

from __future__ import annotations

import numpy as np

from ... import calibration
from .._replication import verdict
from . import _kernels as kernels

# Coverage below this (at nominal 0.95) is worth a line in the result.
SHORTFALL = 0.94

# The calibration table's procedure measuring these intervals.
PROCEDURE = "bootstrap.interval"


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
    from scipy import special, stats
    fewest_runs = np.asarray(fewest_runs, dtype=float)
    z = np.sqrt(fewest_runs / (fewest_runs - 1)) * stats.t.ppf((1 + confidence_level) / 2, df)
    return 1 - 2 * special.ndtr(-z)


def check_single_runs(method, counts, names, options, tasks=()):
    """``counts`` (tasks, agents): an error when the declared replication of ``method``'s intervals is not met (an
    agent with one run in every task; for the expanded interval, any single-run task), else notes for the rest.

    One run leaves nothing to resample in its task, so an agent with one run everywhere would get an
    interval of zero width; with some single-run tasks, those tasks add no spread to the interval, and
    the expanded interval, whose factor sqrt(c / (c - 1)) needs c >= 2, is refused.
    """
    verdict(method, counts, options=options, agents=names, tasks=tasks)  # raises below the declared need
    single = counts == 1
    return [f"{name}: {n} of {counts.shape[0]} tasks have a single run, which adds no spread to the intervals"
            for name, n in zip(names, single.sum(axis=0)) if n]


def measured_coverage(interval, metric_key):
    """{runs per task: (lowest, highest) coverage over the simulated settings} of nominal 95% ``interval``
    intervals of ``metric_key``, from the calibration table (empty when it has no rows for them)."""
    spans = {}
    for row in calibration.rows(PROCEDURE):
        if (row["interval"], row["metric"]) == (interval, metric_key):
            spans.setdefault(int(row["runs"]), []).append(float(row["coverage"]))
    return {runs: (min(values), max(values)) for runs, values in spans.items()}


def coverage_note(interval, metric_label, metric_key, fewest_runs):
    """A line quoting the simulated coverage when ``fewest_runs`` are too few for ``interval``, else None."""
    table = measured_coverage(interval, metric_key)
    measured = [c for c in table if c <= fewest_runs]
    if not measured or fewest_runs > max(table):
        return None  # beyond the simulated run counts nothing is claimed
    runs = max(measured)
    low, high = table[runs]
    if low >= SHORTFALL:
        return None
    text = (f"{fewest_runs} runs per task are few for {interval} intervals of the {metric_label}: in simulations "
            f"with {runs} runs per task, nominal 95% intervals covered {low:.2f} to {high:.2f}")
    better = measured_coverage("expanded", metric_key).get(runs)
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
    """(bounds, mc_se) of shape (K, M, 2) for any interval kind (the expanded one needs fewest runs and df per agent).

    Where a user metric returned NaN for the estimate or any resample the bounds are NaN: a quantile of
    resamples with NaN among them (NaN sorts last) is no interval.
    """
    if interval == "expanded":
        bounds, se = expanded_bounds(distribution, estimates, level, fewest_runs, df)
    else:
        bounds, se = kernels.metric_bounds(distribution, estimates, level, interval, z0, acceleration, compat)
    undefined = np.isnan(distribution).any(axis=-1) | np.isnan(estimates)
    if undefined.any():
        bounds = bounds.copy()
        bounds[undefined] = np.nan
    return bounds, se
