"""Two one-sided tests (TOST) and the one-sided non-inferiority test: arrays in, arrays out, no pandas.

Every test here is a t test of a difference ``estimate`` with standard error ``se`` on ``df`` degrees of freedom
against a margin ``m`` > 0 (Schuirmann 1987): equivalence rejects both H0: delta <= -m (t_lower = (estimate + m) / se
large) and H0: delta >= m (t_upper = (estimate - m) / se small), each at level alpha; that is the same decision as
the (1 - 2 alpha) interval estimate +- t(1 - alpha, df) se lying inside (-m, m). Non-inferiority is the one of the
two on the side of "worse". The inputs are trusted (the api layer checks them).
"""

from __future__ import annotations

import numpy as np

from ...bounds import mostly_at_bound
from ...statistics import monte_carlo_pvalue, welch_satterthwaite_df

#: the alternatives: what a rejection shows
ALTERNATIVES = ("equivalence", "noninferior")


def welch(mean_1, sd_1, n_1, mean_2, sd_2, n_2):
    """(estimate, se, df) of Welch's difference mean_1 - mean_2, broadcast; NaN where a side has fewer than 2 runs
    (no spread to read) or both spreads are 0 (no t)."""
    mean_1, sd_1, n_1, mean_2, sd_2, n_2 = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64)
                                                                 for v in (mean_1, sd_1, n_1, mean_2, sd_2, n_2)))
    with np.errstate(divide="ignore", invalid="ignore"):
        v_1, v_2 = sd_1 ** 2 / n_1, sd_2 ** 2 / n_2
        variance = v_1 + v_2
    df = welch_satterthwaite_df((v_1, v_2), (n_1, n_2))
    bad = (n_1 < 2) | (n_2 < 2) | ~(variance > 0)
    return (mean_1 - mean_2, np.where(bad, np.nan, np.sqrt(variance)), np.where(bad, np.nan, df))


def paired(differences):
    """(estimate, se, df) of the one-sample t of each row of ``differences`` (rows, n): mean, sd / sqrt(n), n - 1;
    NaN with fewer than 2 values or no spread."""
    differences = np.asarray(differences, dtype=np.float64)
    n = differences.shape[-1]
    if n == 0:  # a pair that shared no task (audit s31: numpy's "Mean of empty slice" reached the user)
        return (np.full(differences.shape[:-1], np.nan),) * 3
    mean = differences.mean(axis=-1)
    if n < 2:
        return mean, np.full(mean.shape, np.nan), np.full(mean.shape, np.nan)
    se = differences.std(axis=-1, ddof=1) / np.sqrt(n)
    se = np.where(se > 0, se, np.nan)
    return mean, se, np.full(mean.shape, float(n - 1))


def paired_bounded(differences, within, always):
    """(estimate, se, df) of the one-sample t of each row of ``differences`` (..., T) where some cell's runs mostly sit
    at a bound (audit s11): its variance sd^2 / T is bounded from below by the within-task variance of the mean
    difference, sum_t ``within``_t / T^2 (``within``: each task's s_1t^2 / n_1t + s_2t^2 / n_2t, a saturated cell's s^2
    at least :func:`rlstats.bounds.variance_floor`), on T - 1 df; where a task's runs of both sides all tie at the
    bound (``always``, one per row), whose difference of exactly 0 bounds nothing, the two are added instead (the
    larger alone missed alpha there: 0.098 at 5 tasks x 3 runs). NaN where the differences do not vary."""
    mean, se, df = paired(differences)
    within = np.asarray(within, dtype=np.float64)
    bound = np.sqrt(within.sum(axis=-1)) / within.shape[-1]
    se = np.where(np.isfinite(se), np.where(always, np.hypot(se, bound), np.fmax(se, bound)), np.nan)
    return mean, se, df


def tost(estimate, se, df, margin, alpha, alternative="equivalence", higher_is_better=True):
    """The test of each difference against its margin, as a dict of arrays (broadcast).

    ``t_lower``, ``p_lower``: H0 delta <= -margin (rejected for large t); ``t_upper``, ``p_upper``: H0 delta >=
    margin (rejected for small t); ``p_below``, ``p_above``: the reverse one-sided tests, H0 delta >= -margin and H0
    delta <= margin, whose rejection at alpha is the (1 - 2 alpha) interval wholly past a bound (a verdict beyond the
    margin); ``p_value``: equivalence takes the larger of the two, non-inferiority the side of
    "worse" (delta <= -margin when higher is better, delta >= margin otherwise); ``statistic``: the t of that
    p-value; ``conf_low``, ``conf_high``: the (1 - 2 alpha) interval estimate +- t(1 - alpha, df) se, whose ends
    inside the margin decide; ``shown``: the alternative shown (False where se is NaN: no test).
    """
    from scipy import stats

    estimate, se, df, margin = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64)
                                                     for v in (estimate, se, df, margin)))
    with np.errstate(divide="ignore", invalid="ignore"):
        t_lower, t_upper = (estimate + margin) / se, (estimate - margin) / se
    p_lower, p_upper = stats.t.sf(t_lower, df), stats.t.cdf(t_upper, df)
    p_below, p_above = stats.t.cdf(t_lower, df), stats.t.sf(t_upper, df)  # 1 - p_lower, 1 - p_upper, unrounded
    half = stats.t.ppf(1 - alpha, df) * se
    low, high = estimate - half, estimate + half
    if alternative == "equivalence":
        upper_decides = p_upper >= p_lower
        p_value = np.maximum(p_lower, p_upper)
        statistic = np.where(upper_decides, t_upper, t_lower)
        shown = (low > -margin) & (high < margin)
    elif higher_is_better:
        p_value, statistic, shown = p_lower, t_lower, low > -margin
    else:
        p_value, statistic, shown = p_upper, t_upper, high < margin
    return {"statistic": statistic, "p_value": p_value, "t_lower": t_lower, "t_upper": t_upper, "p_lower": p_lower,
            "p_upper": p_upper, "p_below": p_below, "p_above": p_above, "conf_low": low, "conf_high": high,
            "shown": shown & np.isfinite(se)}


def bootstrap_t(delta, se, resampled_delta, resampled_se, margin, alpha, alternative="equivalence",
                higher_is_better=True, tolerance=0.0):
    """The same test of an aggregate difference from bootstrap-t resamples (Efron and Tibshirani 1993, 12.5).

    ``delta``, ``se``: the data's difference and its standard error; ``resampled_delta``, ``resampled_se`` (..., B):
    each resample's. t* = (delta* - delta) / se*; the one-sided p-values are the shares of t* beyond (delta +
    margin) / se and (delta - margin) / se, (hits + 1) / (B + 1). The (1 - 2 alpha) interval is delta - t*_(B-k) se
    to delta - t*_(k+1) se (order statistics of t*, 1-based), k + 1 the largest number of hits whose p-value is at
    most alpha, about (B + 1) alpha (Efron and Tibshirani 1993, 12.5): its lower end is above -margin exactly when
    p_lower <= alpha, its upper end below margin exactly when p_upper <= alpha, so the interval, the p-value and
    ``shown`` (decided on the p-values) agree by construction, ties included. With (B + 1) alpha < 1 no p-value
    reaches alpha: the interval is infinite and nothing is shown. A resample with se* = 0 counts as t* = +-inf (0
    where delta* = delta).

    ``tolerance``: the rounding of a difference of the two aggregates (``statistics.difference_tolerance`` of the
    pair's scores); a deviation delta* - delta, and delta +- margin, within it of 0 are 0, so that a resample
    reproducing the data's difference ties with the observed t, and a difference at the margin ties with it, in any
    units (audit s37 meta37: a difference of -1 at margin 1, x 0.1, rounded to t = +-1e-16 and moved p from 0.525 to
    0.5 and back with the score's units).
    """
    delta, se, margin, tolerance = (np.asarray(v, dtype=np.float64) for v in (delta, se, margin, tolerance))
    deviation = resampled_delta - delta[..., None]
    deviation = np.where(np.abs(deviation) <= tolerance[..., None], 0.0, deviation)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(resampled_se > 0, deviation / resampled_se, np.sign(deviation) * np.inf)
        t_lower, t_upper = ((np.where(np.abs(delta + sign * margin) <= tolerance, 0.0, delta + sign * margin) / se)
                            for sign in (1.0, -1.0))
    t = np.where(np.isnan(t), 0.0, t)
    b = t.shape[-1]
    # k: hits allowed at level alpha, counted with the p-value's own float arithmetic so that no rounding parts them
    k = int(np.count_nonzero(monte_carlo_pvalue(np.arange(b), b) <= alpha)) - 1
    if k >= 0:
        ordered = np.sort(t, axis=-1)
        # #{t* >= x} <= k iff x > t*_(B-k), and #{t* <= x} <= k iff x < t*_(k+1) (1-based; ties included)
        q_low, q_high = ordered[..., k], ordered[..., b - 1 - k]
    else:
        q_low, q_high = np.full(delta.shape, -np.inf), np.full(delta.shape, np.inf)
    with np.errstate(invalid="ignore"):
        low, high = delta - q_high * se, delta - q_low * se
    # under H0 delta = -margin, t* stands for (estimate + margin) / se: large values reject
    p_lower = monte_carlo_pvalue((t >= t_lower[..., None]).sum(axis=-1), b)
    p_upper = monte_carlo_pvalue((t <= t_upper[..., None]).sum(axis=-1), b)
    # the reverse tests (tost's p_below, p_above): the interval's upper end is below -margin exactly when p_below <=
    # alpha, its lower end above margin exactly when p_above <= alpha, by the same order statistics
    p_below = monte_carlo_pvalue((t <= t_lower[..., None]).sum(axis=-1), b)
    p_above = monte_carlo_pvalue((t >= t_upper[..., None]).sum(axis=-1), b)
    if alternative == "equivalence":
        p_value = np.maximum(p_lower, p_upper)
        statistic = np.where(p_upper >= p_lower, t_upper, t_lower)
    elif higher_is_better:
        p_value, statistic = p_lower, t_lower
    else:
        p_value, statistic = p_upper, t_upper
    # decided on the p-value; the interval's ends agree with it by construction (the docstring)
    shown = p_value <= alpha
    finite = np.isfinite(delta) & (se > 0) & np.isfinite(se)
    nan = np.where(finite, 0.0, np.nan)
    return {"statistic": statistic + nan, "p_value": p_value + nan, "t_lower": t_lower + nan,
            "t_upper": t_upper + nan, "p_lower": p_lower + nan, "p_upper": p_upper + nan, "p_below": p_below + nan,
            "p_above": p_above + nan, "conf_low": low + nan,
            "conf_high": high + nan, "shown": shown & finite}


def welch_mean(mean_1, sd_1, n_1, mean_2, sd_2, n_2):
    """(estimate, se, df) of the mean over tasks (the last axis) of the differences mean_1 - mean_2, tasks fixed:
    se = sqrt(sum_t (sd_1t^2 / n_1t + sd_2t^2 / n_2t)) / T on Welch-Satterthwaite df; NaN where a task lacks a
    spread (fewer than 2 runs) or none has any."""
    mean_1, sd_1, n_1, mean_2, sd_2, n_2 = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64)
                                                                 for v in (mean_1, sd_1, n_1, mean_2, sd_2, n_2)))
    tasks = mean_1.shape[-1]
    v_1, v_2 = sd_1 ** 2 / n_1, sd_2 ** 2 / n_2
    variance = np.sum(v_1 + v_2, axis=-1)
    df = welch_satterthwaite_df((v_1, v_2), (n_1, n_2), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = np.mean(mean_1 - mean_2, axis=-1) if tasks else np.full(variance.shape, np.nan)
    good = (variance > 0) & np.isfinite(variance) & (tasks > 0)
    return estimate, np.where(good, np.sqrt(variance) / max(tasks, 1), np.nan), np.where(good, df, np.nan)


def saturated(at_bound, n):
    """Where a cell's runs mostly sit at the largest or smallest score of a task (a cap often reached): 2 runs or more
    there and half or more of the cell's ``n``. Welch's t misses alpha on such runs (audit s9; tests/reference/
    size_equivalence.py, the ``saturated`` rows); the rule's home is :func:`rlstats.bounds.mostly_at_bound`."""
    return mostly_at_bound(at_bound, n)


def spread_sums(y, cell, n_cells):
    """(n, squares, fourths), each (n_cells,), of the runs ``y`` of each cell (codes ``cell``): their count, the sum of
    squared deviations from the cell's mean and the sum of fourth powers of the deviations from its trimmed mean, a
    share 1 / (2 sqrt(n - 4)) cut from each end (none below 5 runs), as :func:`sd_ratio_interval` reads them (Bonett
    2006: the trimmed mean's fourth moment estimates the kurtosis of a skewed cell less low)."""
    from ...statistics import block_value_order

    y, cell = np.asarray(y, dtype=np.float64), np.asarray(cell, dtype=np.intp)
    n = np.bincount(cell, minlength=n_cells).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(cell, y, minlength=n_cells) / n
        cut = np.floor(np.where(n > 4, n / (2 * np.sqrt(np.fmax(n - 4, 1))), 0.0))
    order = block_value_order(y, cell)
    sorted_cell = cell[order]
    rank = np.arange(y.size) - (np.cumsum(n) - n).astype(np.intp)[sorted_cell]  # 0-based within the cell
    kept = (rank >= cut[sorted_cell]) & (rank < n[sorted_cell] - cut[sorted_cell])
    with np.errstate(invalid="ignore", divide="ignore"):
        trimmed = (np.bincount(sorted_cell, y[order] * kept, minlength=n_cells)
                   / np.bincount(sorted_cell, kept, minlength=n_cells))
    squares = np.bincount(cell, (y - mean[cell]) ** 2, minlength=n_cells)
    fourths = np.bincount(cell, (y - trimmed[cell]) ** 4, minlength=n_cells)
    return n, squares, fourths


def sd_ratio_interval(first, second, level):
    """(low, high) of Bonett's (2006) interval of the ratio of two SDs, sd_1 / sd_2, at ``level``, from each side's
    :func:`spread_sums` (n, squares, fourths), broadcast: the log variance ratio, each variance times n / (n - z),
    plus or minus z times its standard error from the pooled kurtosis (n_1 + n_2) (f_1 + f_2) / (q_1 + q_2)^2,
    sqrt(sum_i (k - (n_i - 3) / n_i) / (n_i - 1)), halved to the SDs. NaN where a side has too few runs (n <= z) or no
    spread. Bonett, D. G. (2006). Robust confidence interval for a ratio of standard deviations. Applied Psychological
    Measurement 30(5), 432-439."""
    from scipy import stats

    (n_1, q_1, f_1), (n_2, q_2, f_2) = ([np.asarray(v, dtype=np.float64) for v in side] for side in (first, second))
    z = float(stats.norm.ppf((1 + level) / 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        kurtosis = (n_1 + n_2) * (f_1 + f_2) / (q_1 + q_2) ** 2
        se = np.sqrt((kurtosis - (n_1 - 3) / n_1) / (n_1 - 1) + (kurtosis - (n_2 - 3) / n_2) / (n_2 - 1))
        # each variance q / (n - 1) times Bonett's small-sample factor n / (n - z) (1 in the ratio of equal runs)
        centre = np.log((n_1 * q_1 / ((n_1 - 1) * (n_1 - z))) / (n_2 * q_2 / ((n_2 - 1) * (n_2 - z))))
    bad = (n_1 <= z) | (n_2 <= z) | ~(q_1 > 0) | ~(q_2 > 0) | ~np.isfinite(se)
    return (np.where(bad, np.nan, np.exp((centre - z * se) / 2)), np.where(bad, np.nan, np.exp((centre + z * se) / 2)))
