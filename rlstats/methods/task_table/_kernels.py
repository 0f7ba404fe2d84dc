"""Two-sample tests and effect sizes between the runs of two agents on one task.

Arrays in, numbers out; inputs are trusted. ``x`` are the runs of the best agent, ``y`` those of
the agent compared with it; every function returns plain floats.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats

TESTS = ("welch", "mannwhitney", "brunnermunzel", "permutation")
# Exact enumeration of the permutation test up to this many splits; Monte Carlo above.
EXACT_SPLITS = 20_000


def welch(x, y):
    """Two-sided Welch t test of equal means (NaN when a sample has fewer than 2 runs or no spread)."""
    if x.size < 2 or y.size < 2 or (np.ptp(x) == 0 and np.ptp(y) == 0):
        return float("nan")
    return float(stats.ttest_ind(x, y, equal_var=False).pvalue)


def mannwhitney(x, y):
    """Two-sided Mann-Whitney U test: exact without ties (scipy's 'auto'), normal with ties."""
    return float(stats.mannwhitneyu(x, y, alternative="two-sided").pvalue)


def brunnermunzel(x, y):
    """Two-sided Brunner-Munzel test of P(X < Y) + P(X = Y)/2 = 1/2 (t distribution)."""
    if x.size < 2 or y.size < 2:
        return float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = stats.brunnermunzel(x, y, alternative="two-sided").pvalue
    return float(p) if np.isfinite(p) else float("nan")


def permutation(x, y, generator, n_resamples):
    """Two-sided permutation test of the difference in means: exact when the splits are few.

    Returns (p-value, how): all C(n, n_x) splits are enumerated up to EXACT_SPLITS; otherwise
    ``n_resamples`` random splits give (1 + hits) / (1 + n_resamples).
    """
    pooled = np.concatenate([x, y])
    n, m = pooled.size, x.size
    observed = abs(x.mean() - y.mean())
    total = pooled.sum()
    if math.comb(n, m) <= EXACT_SPLITS:
        firsts = np.array(list(itertools.combinations(range(n), m)))
        sums = pooled[firsts].sum(axis=1)
        differences = np.abs(sums / m - (total - sums) / (n - m))
        return float(np.mean(differences >= observed * (1 - 1e-12))), "exact"
    keys = generator.random((n_resamples, n))
    firsts = np.argsort(keys, axis=1)[:, :m]
    sums = pooled[firsts].sum(axis=1)
    differences = np.abs(sums / m - (total - sums) / (n - m))
    hits = int(np.sum(differences >= observed * (1 - 1e-12)))
    return (hits + 1.0) / (n_resamples + 1.0), "monte_carlo"


def a12(x, y):
    """Vargha-Delaney A12 = P(X > Y) + P(X = Y)/2 over all pairs of runs."""
    greater = (x[:, None] > y[None, :]).mean()
    equal = (x[:, None] == y[None, :]).mean()
    return float(greater + 0.5 * equal)


def a12_interval(x, y, level):
    """A12 with a Brunner-Munzel interval: placements' variance, t with Welch-Satterthwaite df.

    Brunner and Munzel (2000): p = P(X < Y) + P(X = Y)/2 is estimated from mid-ranks; here the
    roles are swapped so the estimate is A12 = P(X > Y) + P(X = Y)/2. The interval is clipped to
    [0, 1]; with fewer than 2 runs in a sample, or no spread in the placements, it is NaN.
    """
    estimate = a12(x, y)
    n, m = x.size, y.size
    if n < 2 or m < 2:
        return estimate, float("nan"), float("nan")
    combined = stats.rankdata(np.concatenate([x, y]))
    rank_x, rank_y = combined[:n], combined[n:]
    within_x, within_y = stats.rankdata(x), stats.rankdata(y)
    s2_x = np.var(rank_x - within_x, ddof=1)
    s2_y = np.var(rank_y - within_y, ddof=1)
    variance = s2_x / (n * m * m) + s2_y / (m * n * n)
    if not variance > 0:
        return estimate, float("nan"), float("nan")
    df_num = (s2_x / m + s2_y / n) ** 2
    df_den = (s2_x / m) ** 2 / (n - 1) + (s2_y / n) ** 2 / (m - 1)
    df = df_num / df_den if df_den > 0 else float(n + m - 2)
    half = stats.t.ppf(0.5 + level / 2.0, df) * np.sqrt(variance)
    return estimate, float(max(0.0, estimate - half)), float(min(1.0, estimate + half))


def hedges_g(x, y, level):
    """Hedges' g (bias-corrected standardised mean difference) with its normal-approximation interval.

    g = J (mean_x - mean_y) / s_pooled, J = 1 - 3 / (4 (n + m) - 9); standard error
    sqrt((n + m) / (n m) + g^2 / (2 (n + m))) (Hedges and Olkin 1985, eq. 5.15).
    """
    n, m = x.size, y.size
    if n < 2 or m < 2:
        return float("nan"), float("nan"), float("nan")
    pooled = np.sqrt(((n - 1) * np.var(x, ddof=1) + (m - 1) * np.var(y, ddof=1)) / (n + m - 2))
    if not pooled > 0:
        return float("nan"), float("nan"), float("nan")
    correction = 1.0 - 3.0 / (4.0 * (n + m) - 9.0)
    g = correction * (x.mean() - y.mean()) / pooled
    se = np.sqrt((n + m) / (n * m) + g * g / (2.0 * (n + m)))
    z = stats.norm.ppf(0.5 + level / 2.0)
    return float(g), float(g - z * se), float(g + z * se)


def iqm(x):
    return float(stats.trim_mean(x, 0.25))


SUMMARIES = {"mean": np.mean, "median": np.median, "iqm": iqm}
