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

from ...errors import DesignError
from . import _kernels as kernels

# Coverage below this (at nominal 0.95) is worth a line in the result.
SHORTFALL = 0.94

# (interval, metric) -> {fewest runs per task: (lowest, highest) coverage of nominal 95% intervals}
# over normal and exponential scores with 5 and 26 tasks, 150 data sets of 4 agents each (600 intervals, Monte
# Carlo SE about 0.009), measured 2026-11-23 by tests/reference/coverage_small_runs.py --datasets 150.
COVERAGE = {
    ('basic', 'iqm'): {2: (0.665, 0.812), 3: (0.813, 0.868), 5: (0.865, 0.923), 10: (0.917, 0.925), 20: (0.932, 0.950)},
    ('basic', 'mean'): {2: (0.717, 0.817), 3: (0.810, 0.892), 5: (0.863, 0.928), 10: (0.910, 0.932), 20: (0.928, 0.962)},
    ('basic', 'median'): {2: (0.418, 0.670), 3: (0.567, 0.740), 5: (0.668, 0.818), 10: (0.755, 0.870), 20: (0.833, 0.892)},
    ('basic', 'optimality_gap'): {2: (0.598, 0.787), 3: (0.758, 0.850), 5: (0.833, 0.895), 10: (0.878, 0.937), 20: (0.923, 0.942)},
    ('bca', 'iqm'): {2: (0.678, 0.820), 3: (0.812, 0.877), 5: (0.897, 0.933), 10: (0.922, 0.942), 20: (0.938, 0.945)},
    ('bca', 'mean'): {2: (0.712, 0.815), 3: (0.828, 0.890), 5: (0.885, 0.935), 10: (0.923, 0.938), 20: (0.932, 0.960)},
    ('bca', 'median'): {2: (0.552, 0.735), 3: (0.692, 0.768), 5: (0.767, 0.835), 10: (0.773, 0.885), 20: (0.850, 0.907)},
    ('bca', 'optimality_gap'): {2: (0.598, 0.780), 3: (0.793, 0.867), 5: (0.863, 0.917), 10: (0.908, 0.945), 20: (0.938, 0.950)},
    ('expanded', 'iqm'): {2: (0.723, 0.945), 3: (0.928, 0.955), 5: (0.942, 0.957), 10: (0.938, 0.955), 20: (0.943, 0.955)},
    ('expanded', 'mean'): {2: (0.813, 0.955), 3: (0.918, 0.953), 5: (0.933, 0.957), 10: (0.940, 0.947), 20: (0.938, 0.970)},
    ('expanded', 'median'): {2: (0.555, 0.953), 3: (0.793, 0.978), 5: (0.915, 0.997), 10: (0.928, 0.982), 20: (0.905, 0.987)},
    ('expanded', 'optimality_gap'): {2: (0.598, 0.895), 3: (0.838, 0.937), 5: (0.895, 0.947), 10: (0.908, 0.960), 20: (0.940, 0.950)},
    ('expanded', 'probability_of_improvement'): {2: (0.893, 0.980), 3: (0.963, 0.987), 5: (0.937, 0.980), 10: (0.943, 0.967), 20: (0.950, 0.960)},
    ('percentile', 'iqm'): {2: (0.678, 0.827), 3: (0.832, 0.875), 5: (0.902, 0.932), 10: (0.923, 0.930), 20: (0.942, 0.947)},
    ('percentile', 'mean'): {2: (0.717, 0.815), 3: (0.828, 0.893), 5: (0.872, 0.930), 10: (0.920, 0.935), 20: (0.932, 0.963)},
    ('percentile', 'median'): {2: (0.555, 0.868), 3: (0.777, 0.935), 5: (0.863, 0.983), 10: (0.912, 0.977), 20: (0.893, 0.983)},
    ('percentile', 'optimality_gap'): {2: (0.598, 0.783), 3: (0.782, 0.855), 5: (0.848, 0.903), 10: (0.890, 0.947), 20: (0.930, 0.945)},
    ('percentile', 'probability_of_improvement'): {2: (0.843, 0.903), 3: (0.913, 0.957), 5: (0.917, 0.953), 10: (0.920, 0.957), 20: (0.940, 0.960)},
}


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


def check_single_runs(counts, names, what, interval):
    """``counts`` (tasks, agents): an error when every task of some agent has one run, else notes for the rest.

    One run leaves nothing to resample in its task, so an agent with one run everywhere would get an
    interval of zero width; with some single-run tasks, those tasks add no spread to the interval, and
    the expanded interval, whose factor sqrt(c / (c - 1)) needs c >= 2, is refused.
    """
    single = counts == 1
    everywhere = [name for name, all_single in zip(names, single.all(axis=0)) if all_single]
    if everywhere:
        raise DesignError(
            f"{what}: {', '.join(map(repr, everywhere))} {'has' if len(everywhere) == 1 else 'have'} one run in "
            "every task, so resampling runs within tasks gives intervals of zero width; add runs, or pass "
            "task_bootstrap=True (bootstrap, performance_profile) to resample tasks as well")
    notes = [f"{name}: {n} of {counts.shape[0]} tasks have a single run, which adds no spread to the intervals"
             for name, n in zip(names, single.sum(axis=0)) if n]
    if notes and interval == "expanded":
        raise DesignError(f"interval='expanded' needs at least 2 runs in every task of the agents compared "
                          f"({'; '.join(notes)}); use interval='percentile' or add runs")
    return notes


def coverage_note(interval, metric_label, metric_key, fewest_runs):
    """A line quoting the simulated coverage when ``fewest_runs`` are too few for ``interval``, else None."""
    table = COVERAGE.get((interval, metric_key))
    measured = [c for c in (table or ()) if c <= fewest_runs]
    if not measured or fewest_runs > max(table):
        return None  # beyond the simulated run counts nothing is claimed
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
