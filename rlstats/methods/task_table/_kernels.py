"""One-sided two-sample tests and effect sizes between the runs of agents on one task.

Arrays in, arrays out; inputs are trusted. The tests are vectorised over pairs of agents with the same run counts:
``x`` (P, n) and ``y`` (P, m) hold the runs of P pairs, higher is better (the caller negates scores where lower is
better), and :func:`one_sided` returns the p-values of "x is better than y" and of "y is better than x". The
permutation-type tests (the difference of means, Mann-Whitney's rank sum, the studentized Brunner-Munzel statistic)
share one set of splits per pair of run counts: all C(n + m, n) of them up to ``EXACT_SPLITS`` or ``n_resamples``,
whichever is larger (and while their table has at most ``ENUMERATED_CELLS`` cells), random ones beyond, with the
p-value (1 + hits) / (B + 1).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from ...bounds import variance_floor
from ...statistics import (listable, monte_carlo_pvalue, noise_free, relabellings, tie_tolerance,
                           welch_satterthwaite_df)

TESTS = ("welch", "mannwhitney", "brunnermunzel", "fisher_pitman")
#: the tests that read ranks: they see noise-level differences within a task as ties (statistics.near_ties), and their
#: possibly-best set is one for the agent whose runs no other's beat, not for a best mean (the result's key)
RANK_TESTS = ("mannwhitney", "brunnermunzel")
#: a former name of a test: "permutation" is the step-down back end (method="permutation")
RENAMED = {"permutation": ("fisher_pitman", "the permutation test of the mean difference, as in R's coin::oneway_test; "
                           "\"permutation\" names the step-down back end")}
#: exact enumeration of the permutation-type tests up to this many splits, or up to n_resamples where more are asked
#: for (no more random draws than there are splits, as in curves' max-T test) while the table of all of them stays
#: small (``ENUMERATED_SPLITS``); Monte Carlo above
EXACT_SPLITS = 20_000
#: the most splits enumerated however many resamples are asked for (C(20, 10) = 184,756 is below it)
ENUMERATED_SPLITS = 250_000
#: and the most cells of the cached table of them (splits x runs, one byte each) is the package's
#: ``rlstats.statistics.ENUMERATED_CELLS`` (curves' max-T null reads it too)
#: rows of a block of splits; a constant, so the random splits never depend on how the pairs are batched
_SPLIT_ROWS = 4096
#: elements of one (splits, pairs, runs) work array
_WORK = 2**21


def split_count(n, m, n_resamples):
    """``(splits, exact)``: all C(n + m, n) splits of n and m runs when they are few (at most ``EXACT_SPLITS``, or
    at most ``n_resamples`` up to ``ENUMERATED_SPLITS``) and their table has at most ``ENUMERATED_CELLS`` cells, else
    ``n_resamples`` random.

    >>> split_count(9, 9, 10_000), split_count(9, 9, 60_000), split_count(13, 13, 10**7)
    ((10000, False), (48620, True), (10000000, False))
    >>> split_count(2, 700, 250_000), split_count(1, 4_999, 10_000)
    ((250000, False), (10000, False))
    """
    total = relabellings(n, m)
    few = total <= max(EXACT_SPLITS, min(n_resamples, ENUMERATED_SPLITS))
    # the cells' cap holds at or below EXACT_SPLITS too (review21c: 1 run against 4,999 is 5,000 x 5,000 cells)
    return (total, True) if few and listable(total, n + m) else (n_resamples, False)


def smallest_pvalue(test, n, m, n_resamples):
    """The smallest one-sided p-value ``test`` can attain with n and m runs (NaN where it cannot test them).

    1 / C(n + m, n) for an enumerated permutation-type test, 1 / (B + 1) for a Monte Carlo one, 0 for Welch's t.

    >>> smallest_pvalue("mannwhitney", 3, 3, 10_000), smallest_pvalue("welch", 1, 5, 10_000)
    (0.05, nan)
    """
    if test in ("welch", "brunnermunzel") and min(n, m) < 2:
        return math.nan
    if test == "welch":
        return 0.0
    total, exact = split_count(n, m, n_resamples)
    return 1.0 / total if exact else monte_carlo_pvalue(0, total, 1.0 / relabellings(n, m))


def one_sided(test, x, y, generator, n_resamples):
    """One-sided p-values of "x is better than y" and of "y is better than x" for each of P pairs.

    Parameters
    ----------
    test : str
        One of ``TESTS``.
    x, y : ndarray, shape (P, n) and (P, m)
        Runs of the pairs, higher is better.
    generator : numpy.random.Generator
        Draws the random splits when they are not enumerated (:func:`split_count`); the same splits serve every pair.
    n_resamples : int

    Returns
    -------
    greater, less : ndarray, shape (P,)
        NaN where the test cannot compare the run counts (Welch's t and Brunner-Munzel's statistic need 2 runs
        in each sample).
    how : str
        "t", "exact", "monte_carlo" or "untestable".
    """
    n, m = x.shape[1], y.shape[1]
    if np.isnan(smallest_pvalue(test, n, m, n_resamples)):
        nan = np.full(x.shape[0], np.nan)
        return nan, nan.copy(), "untestable"
    if test == "welch":
        return (*welch(x, y), "t")
    statistic, slack = _STATISTICS[test]
    return _permutation(statistic, slack, x, y, generator, n_resamples)


def welch_t(x, y, floors=(0.0, 0.0)):
    """Welch's t of x minus y over the last axis: ``(t, df, difference, standard_error)``.

    A sample with no spread has variance 0 and its one value as mean (np.mean of equal floats can differ in the
    last bit); with no spread in either sample t is +-inf for different values and NaN for equal ones, df NaN.
    ``floors``: lower bounds of the two samples' run variances (:func:`cap_floors`; 0: none).
    """
    n, m = x.shape[-1], y.shape[-1]
    flat_x, flat_y = np.ptp(x, axis=-1) == 0, np.ptp(y, axis=-1) == 0
    mean_x = np.where(flat_x, x[..., 0], x.mean(axis=-1))
    mean_y = np.where(flat_y, y[..., 0], y.mean(axis=-1))
    var_x = np.maximum(np.where(flat_x, 0.0, x.var(axis=-1, ddof=1)), floors[0]) / n
    var_y = np.maximum(np.where(flat_y, 0.0, y.var(axis=-1, ddof=1)), floors[1]) / m
    difference = mean_x - mean_y
    variance = var_x + var_y
    with np.errstate(divide="ignore", invalid="ignore"):
        t = difference / np.sqrt(variance)
    return t, welch_satterthwaite_df((var_x, var_y), (n, m)), difference, np.sqrt(variance)


def _floored_welch(x, y):
    """:func:`welch_t` of one pair's runs (1-D) with :func:`cap_floors`' floors, the statistics its p-values read."""
    floors = cap_floors(x[None, :], y[None, :])
    return welch_t(x, y, (floors[0][0], floors[1][0]))


def welch(x, y):
    """One-sided Welch t tests ``(greater, less)`` of each pair (n, m >= 2).

    With no spread in either sample (a capped score on every seed), equal values are tied (p = 1 both ways) and
    different ones are ordered by the exact permutation p-value, 1 / C(n + m, n) for the better (every run of one
    above every run of the other: the one split of the runs as extreme), 1 for the other. Welch's t is infinite there
    and its p-value 0, which runs that tie say nothing to support: at 8 agents x 3 runs of success rates k / 10
    (p = 0.9, all agents alike) it dropped a truly best agent from the possibly-best set in 0.137 of tasks (audit s9).
    """
    from scipy import special

    t, df, difference, _ = welch_t(x, y, cap_floors(x, y))
    flat = np.isnan(df)
    n, m = x.shape[-1], y.shape[-1]
    extreme = 1.0 / relabellings(n, m)  # 0 past C ~ 1.8e308 (review s20: OverflowError at 600 + 600)
    with np.errstate(invalid="ignore"):
        greater, less = special.stdtr(df, -t), special.stdtr(df, t)
    greater = np.where(flat, np.where(difference > 0, extreme, 1.0), greater)
    less = np.where(flat, np.where(difference < 0, extreme, 1.0), less)
    return greater, less


def cap_floors(x, y):
    """Lower bounds ``(floor_x, floor_y)``, each (P,), of the run variance of a sample whose runs all sit at a cap.

    A sample of 2 or more runs that all tie, at the pair's largest or smallest score while the other's runs vary, is
    read as runs at a score cap: its variance 0 says only that none of its few runs fell off the cap ("tie", "largest"
    and "off" within the pair's :func:`rlstats.statistics.tie_tolerance`, so that runs one ulp apart tie at any
    units and origin; review s38 fixe38). Its floor is equivalence()'s across-tasks one
    (:func:`rlstats.bounds.variance_floor`): a run at the cap or ``d`` off it, off with probability p, has variance
    p (1 - p) d^2, with p the Wilson 95% upper bound of the share off it (0 of its n runs: z^2 / (n + z^2), at most
    1/2) and d the mean distance off the cap of the other sample's runs. 0 elsewhere (both samples tied, a tied
    sample between the other's runs, one run). Audit s38 cap38 (tests/reference/task_table_capped_cells.py, with and
    without ``--no-floor``; review s38 fixe38): two agents alike with 70% of their runs at the cap, 10 runs each,
    Welch's t (the other sample's variance alone) left a truly best agent out of the possibly-best set in 0.113 (130)
    of the 1,146 tasks of 20,000 where a cell sat at the cap, 0.056 (64) with the floor, within 1 Monte Carlo SE of
    0.05 (at most 0.010 elsewhere on 2, 3, 8 agents x 3, 5, 10 runs x 70-95% at the cap), and its one-sided tests of
    such a cell against the other agent rejected at 0.05 in 0.32 of them (0.18 with it: a single p-value there stays
    too small; the set, Holm over every ordered pair, holds).
    """
    n, m = x.shape[-1], y.shape[-1]
    pooled = np.concatenate([x, y], axis=-1)
    # runs within the pair's tie tolerance of each other tie (1.0 and 0.9999999999999999 both sit at a cap of 1)
    tolerance = tie_tolerance(np.ptp(pooled, axis=-1), np.abs(pooled).max(axis=-1))
    floors = []
    for own, other, size in ((x, y, n), (y, x, m)):
        value = own[..., 0]
        tied = (np.ptp(own, axis=-1) <= tolerance) & (np.ptp(other, axis=-1) > tolerance) & (size >= 2)
        capped = tied & ((own.min(axis=-1) >= other.max(axis=-1) - tolerance)
                         | (own.max(axis=-1) <= other.min(axis=-1) + tolerance))
        gap = np.abs(other - value[..., None])
        off = gap > tolerance[..., None]
        with np.errstate(invalid="ignore", divide="ignore"):
            distance = np.where(off, gap, 0.0).sum(axis=-1) / off.sum(axis=-1)
        floors.append(np.where(capped, variance_floor(size, size, np.nan_to_num(distance)), 0.0))
    return floors[0], floors[1]


@functools.lru_cache(maxsize=32)
def _all_splits(n, m):
    """Every choice of the first sample's n positions among n + m: bool (C(n + m, n), n + m), read-only."""
    chosen = np.array(list(itertools.combinations(range(n + m), n)), dtype=np.intp).reshape(-1, n)
    splits = np.zeros((chosen.shape[0], n + m), dtype=bool)
    np.put_along_axis(splits, chosen, True, axis=1)
    splits.flags.writeable = False
    return splits


def _split_blocks(n, m, generator, n_resamples):
    """Blocks of splits, bool (rows, n + m) with True at the first sample's positions: all of them, or random."""
    total, exact = split_count(n, m, n_resamples)
    if exact:
        splits = _all_splits(n, m)
        for start in range(0, total, _SPLIT_ROWS):
            yield splits[start:start + _SPLIT_ROWS]
        return
    first = np.arange(n + m) < n
    for start in range(0, total, _SPLIT_ROWS):
        yield generator.permuted(np.tile(first, (min(_SPLIT_ROWS, total - start), 1)), axis=1)


def _sorted_pairs(x, y):
    """Each pair's pooled runs in increasing order: ``(values, observed, first, last)``, all (P, n + m).

    ``observed`` is True where the sorted value is a run of x; ``first`` and ``last`` are the sorted positions of the
    first and last member of each value's tie group (exact equality). Under exchangeability the observed split is
    uniform over the splits of the sorted positions, which is what lets every pair share the same splits.
    """
    pooled = np.concatenate([x, y], axis=1)
    order = np.argsort(pooled, axis=1, kind="stable")
    values = np.take_along_axis(pooled, order, axis=1)
    size = values.shape[1]
    positions = np.broadcast_to(np.arange(size), values.shape)
    starts = np.ones(values.shape, dtype=bool)
    starts[:, 1:] = values[:, 1:] != values[:, :-1]
    ends = np.ones(values.shape, dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, positions, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, positions, size - 1)[:, ::-1], axis=1)[:, ::-1]
    return values, order < x.shape[1], first, last


def _first_sum(split, scores):
    """Sum of the first sample's scores: splits (rows, 1, N) shared by the pairs, or one split per pair (P, N)."""
    if split.ndim == 3:
        return split[:, 0, :].astype(np.float64) @ scores.T
    return (split * scores).sum(axis=-1)


def _mean_sum(split, values, first, last, n):
    """Sum of the first sample's runs: at fixed run counts the difference of means increases with it."""
    return _first_sum(split, values)


def _rank_sum(split, values, first, last, n):
    """Sum of the first sample's doubled mid-ranks (integers, so ties compare exactly): Mann-Whitney's U + const."""
    return _first_sum(split, (first + last + 2).astype(np.float64))


def _brunner_munzel(split, values, first, last, n):
    """Brunner-Munzel statistic of "the first sample is better" on each split.

    With p_i the placement of a first-sample run among the m others (runs below it, ties half) and q_j that of a
    second-sample run among the first, A12 = sum(p) / (n m) and T = (sum(p) - n m / 2) / sqrt(D_p / (n - 1) +
    D_q / (m - 1)), D = n sum(p^2) - sum(p)^2 for p (m for q): scipy's W^BF with the samples swapped. Placements
    are halves, so the sums are exact and equal splits give equal T. At zero variance T is +-inf for a complete
    separation and 0 when every run ties.
    """
    size = split.shape[-1]
    m = size - n
    counts = np.cumsum(split, axis=-1)
    counts = np.concatenate([np.zeros(counts.shape[:-1] + (1,), dtype=counts.dtype), counts], axis=-1)
    shape = np.broadcast_shapes(split.shape, first.shape)
    counts = np.broadcast_to(counts, shape[:-1] + (size + 1,))
    below = np.take_along_axis(counts, np.broadcast_to(first, shape), axis=-1)  # first-sample runs below the group
    within = np.take_along_axis(counts, np.broadcast_to(last + 1, shape), axis=-1) - below
    over_second = (first - below) + 0.5 * (last - first + 1 - within)
    over_first = below + 0.5 * within
    p = np.where(split, over_second, 0.0)
    q = np.where(split, 0.0, over_first)
    sum_p, sum_q = p.sum(axis=-1), q.sum(axis=-1)
    spread = (n * (p * p).sum(axis=-1) - sum_p**2) / (n - 1) + (m * (q * q).sum(axis=-1) - sum_q**2) / (m - 1)
    centred = sum_p - n * m / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = centred / np.sqrt(spread)
    return np.where(spread > 0, t, np.where(centred == 0, 0.0, np.copysign(np.inf, centred)))


def _relative_slack(observed, values):
    """The tie tolerance of a sum of runs: sums of the same runs in another order may differ in the last bits, and
    near-tied runs move it by 1e-12 of their range each (``statistics.tie_tolerance`` of the runs x their range and
    their summed ``|score|``: the same splits tie after a map a * y + b of the runs, audit s20 ties20b)."""
    return tie_tolerance(values.shape[1] * np.ptp(values, axis=1), np.abs(values).sum(axis=1))


def _no_slack(observed, values):
    return np.zeros_like(observed)


def _ratio_slack(observed, values):
    return np.where(np.isfinite(observed), 1e-9 * np.maximum(1.0, np.abs(observed)), 0.0)


_STATISTICS = {"fisher_pitman": (_mean_sum, _relative_slack), "mannwhitney": (_rank_sum, _no_slack),
               "brunnermunzel": (_brunner_munzel, _ratio_slack)}


def _permutation(statistic, slack, x, y, generator, n_resamples):
    """``(greater, less, how)``: the share of splits whose statistic is at least (at most) the observed one."""
    n, m = x.shape[1], y.shape[1]
    values, observed, first, last = _sorted_pairs(x, y)
    seen = statistic(observed, values, first, last, n)
    upper = seen - slack(seen, values)
    lower = seen + slack(seen, values)
    above, below = np.zeros(seen.size), np.zeros(seen.size)
    step = max(1, _WORK // (_SPLIT_ROWS * (n + m)))
    if statistic is _mean_sum:
        for block in _split_blocks(n, m, generator, n_resamples):
            for start in range(0, seen.size, step):
                part = slice(start, start + step)
                resampled = statistic(block[:, None, :], values[part], first[part], last[part], n)
                above[part] += np.count_nonzero(resampled >= upper[part], axis=0)
                below[part] += np.count_nonzero(resampled <= lower[part], axis=0)
    else:
        # A rank statistic of a split depends on the pair only through its ties: computed once for each pattern
        # of ties (once in all for tie-free pairs), sorted, and each pair's observed value found by search.
        patterns, index, pattern_of = np.unique(first, axis=0, return_index=True, return_inverse=True)
        order = np.argsort(pattern_of.ravel(), kind="stable")
        members = np.split(order, np.cumsum(np.bincount(pattern_of.ravel(), minlength=len(patterns)))[:-1])
        for block in _split_blocks(n, m, generator, n_resamples):
            for start in range(0, len(patterns), step):
                chunk = slice(start, start + step)
                resampled = statistic(block[:, None, :], None, patterns[chunk], last[index[chunk]], n)
                for column, pairs in zip(np.sort(resampled, axis=0).T, members[chunk]):
                    above[pairs] += column.size - np.searchsorted(column, upper[pairs], side="left")
                    below[pairs] += np.searchsorted(column, lower[pairs], side="right")
    total, exact = split_count(n, m, n_resamples)
    if exact:
        return above / total, below / total, "exact"
    # never below the exact test's least, 1 / C(n + m, n), which more draws than splits could pass by chance
    floor = 1.0 / relabellings(n, m)
    return monte_carlo_pvalue(above, total, floor), monte_carlo_pvalue(below, total, floor), "monte_carlo"


def a12(x, y):
    """Vargha-Delaney A12 = P(X > Y) + P(X = Y)/2 over all pairs of runs."""
    greater = (x[:, None] > y[None, :]).mean()
    equal = (x[:, None] == y[None, :]).mean()
    return float(greater + 0.5 * equal)


def _placements(x, y):
    """How many runs of y each run of x beats, ties half."""
    return (x[:, None] > y[None, :]).sum(axis=1) + 0.5 * (x[:, None] == y[None, :]).sum(axis=1)


def _a12_parts(x, y):
    """A12 of one pair with its Brunner-Munzel variance and Welch-Satterthwaite df (NaN below 2 runs)."""
    estimate = a12(x, y)
    n, m = x.size, y.size
    if n < 2 or m < 2:
        return estimate, math.nan, math.nan
    s2_x, s2_y = np.var(_placements(x, y), ddof=1), np.var(_placements(y, x), ddof=1)
    variance = s2_x / (n * m * m) + s2_y / (m * n * n)
    df_den = (s2_x / m) ** 2 / (n - 1) + (s2_y / n) ** 2 / (m - 1)
    df = (s2_x / m + s2_y / n) ** 2 / df_den if df_den > 0 else float(n + m - 2)
    return estimate, float(variance), float(df)


def hedges_correction(df):
    """Hedges' exact small-sample correction J(df) = Gamma(df / 2) / (sqrt(df / 2) Gamma((df - 1) / 2)).

    The factor that makes g = J d unbiased for normal runs (Hedges 1981), the one R's ``effectsize`` (0.8.0 and
    later: ``.J`` in its R/cohens_d.R) applies with df = n + m - 2; the familiar 1 - 3 / (4 df - 1) is its
    approximation, 0.5% higher at n + m = 5. Written as a Pochhammer symbol, which stays exact where a difference
    of log-gammas loses digits (1.5e-8 relative at df = 1e8).

    References
    ----------
    Hedges, L. V. (1981), Distribution theory for Glass's estimator of effect size and related estimators,
    J. Educational Statistics 6(2).

    Examples
    --------
    >>> round(hedges_correction(3), 12), round(float(np.sqrt(np.pi / 6)), 12)  # n + m = 5
    (0.723601254558, 0.723601254558)
    """
    from scipy import special

    return float(special.poch((df - 1) / 2.0, 0.5) / math.sqrt(df / 2.0))


def _hedges_parts(x, y):
    """Hedges' g of one pair, its t = g / J sqrt(n m / (n + m)), df and the scale J / sqrt(n m / (n + m))."""
    n, m = x.size, y.size
    if n < 2 or m < 2:
        return (math.nan,) * 4
    pooled = np.sqrt(((n - 1) * np.var(x, ddof=1) + (m - 1) * np.var(y, ddof=1)) / (n + m - 2))
    if not pooled > 0:
        return (math.nan,) * 4
    correction = hedges_correction(n + m - 2)
    root = math.sqrt(n * m / (n + m))
    both = np.concatenate((x, y))
    # means that tie but for rounding differ by 0 (the tie rule: audit s36 meta36, g = 1.6e-11 at scores + 1e6)
    d = float(noise_free(x.mean() - y.mean(), np.ptp(both), np.abs(both).max())) / pooled
    return float(correction * d), float(d * root), float(n + m - 2), correction / root


def kurtosis_stretch(x, y, d):
    """The factor by which to widen a noncentral-t interval of delta around d, ``sqrt(max(1, V / V_normal))``.

    The noncentral-t interval is exact for normal runs, whose pooled variance has Var(s^2) / sigma^4 = 2 / (N - 2)
    (N = n + m). The delta method gives the standardised difference d the variance V = 1 / n + 1 / m + d^2
    Var(s^2) / (4 sigma^4), and for runs of kurtosis kappa Var(s^2) / sigma^4 = (kappa - 1) / (N - 2), so that
    V_normal = 1 / n + 1 / m + d^2 / (2 (N - 2)) (the normal-theory large-sample variance of d, Hedges and Olkin
    1985, chapter 5). With kappa the pooled sample kurtosis (fourth over squared second moment of the residuals about
    each agent's mean) the interval widens where the runs' tails are heavier than the normal's and never narrows:
    at d = 0 it is the exact t test's inversion whatever kappa. Two agents' lognormal (skewed) runs at 20 runs each,
    a true delta of 0.5: covered 0.924 without it and 0.940 with it in 20,000 simulated pairs, 0.9205 without it in
    2,000 tasks of tests/reference/coverage_effect_sizes.py's grid; it costs at most 3% of width there and nothing on
    normal runs. The sample kurtosis of 20 runs sees little of the lognormal's (34), so some shortfall remains.

    >>> x, y = np.array([0.0, 1.0, 2.0, 3.0, 4.0]), np.array([1.0, 1.0, 1.0, 1.0, 10.0])
    >>> round(kurtosis_stretch(x, y, 1.0), 4), kurtosis_stretch(x, y, 0.0)
    (1.0635, 1.0)
    """
    n, m = x.size, y.size
    residual = np.concatenate([x - x.mean(), y - y.mean()])
    largest = float(np.max(np.abs(residual)))
    residual = residual / largest if largest > 0 else residual  # kurtosis is unit-free; powers of 1e-150 underflow
    # the pooled plug-in m4 / m2^2, not statistics.shape_ratios' per-agent G2: Var(s^2) of the pooled s^2 reads it
    second = float(np.mean(residual**2))
    kappa = float(np.mean(residual**4)) / second**2 if second > 0 else 3.0
    base = 1.0 / n + 1.0 / m
    normal = base + d * d / (2.0 * (n + m - 2))
    return math.sqrt(max(1.0, (base + d * d * (kappa - 1.0) / (4.0 * (n + m - 2))) / normal))


#: |noncentrality| from which :func:`noncentral_t_limits` reads :func:`noncentral_t_cdf` instead of calling
#: ``scipy.special.nctdtr``: up to it nctdtr is fast and accurate (Boost's from scipy 1.15; cdflib's before, to
#: 1e-6 absolute, which those limits inherit: tests/conftest.NCT_ATOL); past 1e4 it takes 1-80 ms an evaluation, drifts
#: (5e-7 at 1e5 in scipy 1.17) and returns NaN from about 1e6 (audit s38 cap38: a 2 x 2 table of 4 runs whose effect
#: was 3e6 SDs took 3.8 s in 232 evaluations and printed a Hedges' g interval of zero width). At it the two differ by
#: at most 4e-15 (df 2 to 1e7, T's quantiles 1e-6 to 1 - 1e-6; review s38 fixe38), so a limit does not jump there
NCT_QUADRATURE_NCP = 40.0
#: Gauss nodes of each of :func:`noncentral_t_cdf`'s two integrals
_HERMITE_NODES = 48
#: the degrees of freedom from which :func:`chi_square_tails` reads Temme's expansion, not scipy's chdtr: scipy 1.17's
#: lower tail loses digits below 4 SDs under the mean from about 1e6 df (relative 2e-8 at 4.7 SDs at 1e6, 8e-3 at
#: 1e7, 0.2 at 1e8; review s38 fixe38, against mpmath), while the expansion's two terms agree with mpmath to 1.3e-13
#: relative in either tail from 1e5 (2e-15 from 3e5)
TEMME_DF = 1e5
#: Taylor coefficients in eta of Temme's c0 and c1 (DLMF 8.12.9-8.12.10; computed from those definitions with mpmath
#: at 80 digits), read where |eta| < 0.05, where the definitions lose digits to cancellation
_TEMME_C0 = (-1 / 3, 1 / 12, -2 / 135, 1 / 864, 1 / 2835, -139 / 777600, 3.9192631785224337e-5,
             -2.185448510679991e-6)
_TEMME_C1 = (-1 / 540, -1 / 288, 1 / 378, -9.9022633744855967e-4, 2.0576131687242798e-4, -4.018775720164609e-7)


@functools.lru_cache(maxsize=1)
def _hermite():
    x, w = np.polynomial.hermite.hermgauss(_HERMITE_NODES)
    return math.sqrt(2.0) * x, w / math.sqrt(math.pi)


@functools.lru_cache(maxsize=64)
def _chi_square_rule(df):
    """Gauss nodes and weights of the chi-square on ``df`` degrees of freedom, as ``(sqrt(V / df) - 1, weight)``.

    Golub and Welsch's eigenvalues of the Jacobi matrix of the Laguerre polynomials of V / 2 ~ Gamma(a), a = df / 2
    (recurrence alpha_k = 2k + a, beta_k = k (k + a - 1)), standardised to z = (V / 2 - a) / sqrt(a) before solving,
    so that V / df - 1 = z / sqrt(a) keeps its digits at any df (V itself rounds to 1e-16 of df, which at df 1e8 is
    1e-12 of its spread; scipy's gammaincinv is 2e-9 off there).
    """
    from scipy import linalg

    a = df / 2.0
    k = np.arange(_HERMITE_NODES, dtype=np.float64)
    z, vectors = linalg.eigh_tridiagonal(2.0 * k / math.sqrt(a), np.sqrt(k[1:] * (k[1:] + a - 1.0) / a))
    weights = vectors[0] ** 2
    ratio = z / math.sqrt(a)
    root = ratio / (np.sqrt(1.0 + ratio) + 1.0)
    weights = weights / weights.sum()
    root.flags.writeable = weights.flags.writeable = False
    return root, weights


def _x_minus_log1p(x):
    """x - log(1 + x), elementwise, without the cancellation of the difference near 0 (its series below |x| = 1/2)."""
    x = np.asarray(x, dtype=np.float64)
    near = np.abs(x) < 0.5
    small = np.where(near, x, 0.0)
    series = np.zeros_like(small)
    for k in range(60, 1, -1):  # x^2 / 2 - x^3 / 3 + ... by Horner's rule; 0.5^60 is 1e-18
        series = small * (series + (-1.0) ** k / k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(near, small * series, x - np.log1p(x))


def chi_square_tails(df, excess):
    """``(P, Q)``: the chi-square's lower and upper tails on ``df`` degrees of freedom at df (1 + excess), broadcast.

    Below :data:`TEMME_DF` scipy's chdtr and chdtrc; from it Temme's uniform expansion (DLMF 8.12.3-8.12.10) to two
    terms, Q = erfc(eta sqrt(a / 2)) / 2 + exp(-a eta^2 / 2) (c0(eta) + c1(eta) / a) / sqrt(2 pi a), a = df / 2,
    eta^2 / 2 = excess - log(1 + excess) signed as ``excess``, read from ``excess`` (not from df (1 + excess), whose
    rounding is 1e-16 of df), so that either tail keeps its relative digits however far out.

    >>> from scipy import special  # 4.7 SDs under the mean of 4e6 df: 1.26944791239964e-06 (mpmath, 40 digits)
    >>> excess = -4.7 * np.sqrt(2 / 4e6)
    >>> ours, scipys = chi_square_tails(4e6, excess)[0], special.chdtr(4e6, 4e6 * (1 + excess))
    >>> round(float(ours) * 1e6, 12), round(float(scipys) * 1e6, 5)
    (1.2694479124, 1.26898)
    """
    from scipy import special

    df, excess = np.broadcast_arrays(np.asarray(df, dtype=np.float64), np.asarray(excess, dtype=np.float64))
    lower, upper = np.empty(df.shape), np.empty(df.shape)
    scipy_side = df < TEMME_DF
    if scipy_side.any():
        chi = df[scipy_side] * (1.0 + excess[scipy_side])
        lower[scipy_side], upper[scipy_side] = special.chdtr(df[scipy_side], chi), special.chdtrc(df[scipy_side], chi)
    large = ~scipy_side
    if large.any():
        a, x = df[large] / 2.0, excess[large]
        half_square = _x_minus_log1p(x)
        eta = np.copysign(np.sqrt(2.0 * half_square), x)
        near = np.abs(eta) < 0.05
        small = np.where(near, eta, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            c0 = np.where(near, np.polyval(_TEMME_C0[::-1], small), 1.0 / x - 1.0 / eta)
            c1 = np.where(near, np.polyval(_TEMME_C1[::-1], small),
                          1.0 / eta**3 - 1.0 / x**3 - 1.0 / x**2 - 1.0 / (12.0 * x))
            rest = np.exp(-a * half_square) / np.sqrt(2.0 * np.pi * a) * (c0 + c1 / a)
        rest = np.where(np.isfinite(rest), rest, 0.0)  # no chi-square value (excess -1) or beyond any scale
        scaled = np.sqrt(a / 2.0) * eta
        lower[large] = 0.5 * special.erfc(-scaled) - rest
        upper[large] = 0.5 * special.erfc(scaled) + rest
    return lower, upper


def noncentral_t_cdf(t, df, ncp):
    """P(T <= t) for T noncentral t on ``df`` degrees of freedom with noncentrality ``ncp`` (broadcast), T = W /
    sqrt(V / df) with W ~ N(ncp, 1) and V ~ chi-square(df), by 48-point Gauss quadrature of one of two integrals, each
    where its integrand is smooth on the scale of its nodes:

    * where t^2 >= 2 df, over W: for t >= 0 E[1(W <= 0) + 1(W > 0) Q(df, df W^2 / t^2)], for t < 0 E[1(W < 0)
      P(df, df W^2 / t^2)] (Q and P the chi-square's tails, :func:`chi_square_tails`), Gauss-Hermite nodes. The tail
      steps in W over about |t| / sqrt(2 df), at least 1 here;
    * elsewhere over V: E[Phi((t - ncp) + t (sqrt(V / df) - 1))], the chi-square's own Gauss nodes
      (:func:`_chi_square_rule`). Phi steps in the standardised V over about sqrt(2 df) / |t|, more than 1 here.

    With the mixture over W alone (audit s38 cap38) the step at large df fell between the nodes: 4e-11 off at df
    3,000, 1.3e-5 at 1e4, 9e-3 at 1e6 (review s38 fixe38). Against an adaptive integral over V (tests/
    test_audit_s38_fixe38.py), at df 2 to 1e6 and ncp 40 to 1e6, T's quantiles 1e-10 to 1 - 1e-10: at most 5e-15
    absolute and 3.4e-13 relative in the lower tail (the upper tail's 1 - P has the float's 1e-16 absolute only).
    The kink of the first integrand at W = 0 lies beyond the nodes from |ncp| about 12; :data:`NCT_QUADRATURE_NCP` is
    where :func:`noncentral_t_limits` reads this function. Finite where nctdtr is NaN; for huge ncp it tends to Q(df,
    df ncp^2 / t^2), t = ncp sqrt(df / V).

    >>> from scipy import stats
    >>> round(float(noncentral_t_cdf(50.0, 6, 45.0)), 9) == round(float(stats.nct.cdf(50.0, 6, 45.0)), 9)
    True
    """
    from scipy import special

    t, df, ncp = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (t, df, ncp)))
    out = np.empty(t.shape)
    steep = t * t >= 2.0 * df  # the chi-square's step in W is a unit or more wide
    if steep.any():
        t_w, ncp_w = t[steep][:, None], ncp[steep][:, None]
        nodes, weights = _hermite()
        w = ncp_w + nodes
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = w / t_w  # w / t first: (w / t)^2 stays finite where w^2 overflows
            lower, upper = chi_square_tails(df[steep][:, None], (ratio - 1.0) * (ratio + 1.0))
        out[steep] = np.where(t_w >= 0, np.where(w <= 0, 1.0, upper), np.where(w < 0, lower, 0.0)) @ weights
    flat = ~steep
    if flat.any():
        unique, index = np.unique(df[flat], return_inverse=True)
        rules = [_chi_square_rule(float(value)) for value in unique]
        root = np.stack([rule[0] for rule in rules])[index]
        weights = np.stack([rule[1] for rule in rules])[index]
        t_v = t[flat][:, None]
        out[flat] = (special.ndtr((t_v - ncp[flat][:, None]) + t_v * root) * weights).sum(axis=1)
    return out


def noncentral_t_limits(t, df, level, counter=None):
    """The noncentrality parameters that put ``t`` at the upper and at the lower (1 - level) / 2 tail (``level``
    one number or one per t).

    Bisection on the noncentral t cdf (decreasing in the noncentrality) until the midpoint stops moving: at
    |noncentrality| below :data:`NCT_QUADRATURE_NCP`, ``scipy.special.nctdtr``, whose NaN far in a tail counts as 1
    below t and 0 above it; from it, :func:`noncentral_t_cdf` (nctdtr is slow there and NaN from about 1e6, where the
    limits came out equal to t, an interval of zero width). NaN for NaN t. ``counter``: a dict whose "nctdtr" and
    "quadrature" entries count the values each computed (a test's CPU-free measure of the work).

    >>> low, high = noncentral_t_limits(np.array([0.0]), np.array([38.0]), 0.95)
    >>> round(float(low[0]), 6), round(float(high[0]), 6)
    (-1.959964, 1.959964)
    >>> from scipy import stats  # far past nctdtr's range, the chi-square limits t sqrt(q / df)
    >>> low, high = noncentral_t_limits(np.array([7.7e6]), np.array([6.0]), 0.95)
    >>> bool(np.allclose([low[0], high[0]], 7.7e6 * np.sqrt(stats.chi2.ppf([0.025, 0.975], 6) / 6), rtol=1e-9))
    True
    """
    from scipy import special

    t, df = np.asarray(t, dtype=np.float64), np.asarray(df, dtype=np.float64)
    valid = np.isfinite(t) & np.isfinite(df)
    t_ok, df_ok = t[valid], df[valid]
    level = np.broadcast_to(np.asarray(level, dtype=np.float64), t.shape)[valid]
    counts = {"nctdtr": 0, "quadrature": 0} if counter is None else counter
    counts.setdefault("nctdtr", 0)
    counts.setdefault("quadrature", 0)

    def cdf(ncp):
        ncp = np.broadcast_to(ncp, t_ok.shape)
        far = np.abs(ncp) >= NCT_QUADRATURE_NCP
        value = np.empty(t_ok.shape)
        near = ~far
        if near.any():
            value[near] = special.nctdtr(df_ok[near], ncp[near], t_ok[near])
            counts["nctdtr"] += int(near.sum())
        if far.any():
            value[far] = noncentral_t_cdf(t_ok[far], df_ok[far], ncp[far])
            counts["quadrature"] += int(far.sum())
        return np.where(np.isnan(value), np.where(ncp < t_ok, 1.0, 0.0), value)

    limits = []
    for target in (0.5 + level / 2.0, 0.5 - level / 2.0):
        width = 10.0 + 4.0 * np.abs(t_ok)
        for _ in range(64):  # widen until the root is bracketed
            short = (cdf(t_ok - width) < target) | (cdf(t_ok + width) > target)
            if not short.any():
                break
            width = np.where(short, 2.0 * width, width)
        low, high = t_ok - width, t_ok + width
        while True:
            middle = 0.5 * (low + high)
            moving = (middle != low) & (middle != high)
            if not moving.any():
                break
            above = cdf(middle) > target  # the root lies above the midpoint
            low = np.where(moving & above, middle, low)
            high = np.where(moving & ~above, middle, high)
        out = np.full(t.shape, np.nan)
        out[valid] = 0.5 * (low + high)
        limits.append(out)
    return limits[0], limits[1]


#: the effect-size intervals (``effect_intervals=``): "fcr", the default; "fcr_normal", the default of earlier
#: releases (Hedges' g without the kurtosis widening); "per_pair", the unadjusted intervals of earlier releases
EFFECT_INTERVALS = ("fcr", "fcr_normal", "per_pair")
#: the intervals at the false coverage-statement level (:func:`fcr_level`)
FCR_INTERVALS = ("fcr", "fcr_normal")


def fcr_level(level, agents):
    """The per-pair level 1 - 2 (1 - level) / k that keeps the expected share of a task's k - 1 printed intervals
    against its point best that miss at most 1 - level, whichever agent is best (not joint coverage).

    The k - 1 printed intervals are k - 1 of the k (k - 1) / 2 pairs, and an interval of (i, j) misses exactly when
    that of (j, i) does, so the expected number of misses is at most k (k - 1) / 2 times the per-pair error: the
    false coverage-statement rate of Benjamini and Yekutieli (2005) with R = k - 1 selected of m = k (k - 1) / 2.
    With two agents nothing is selected and the level is ``level``.

    >>> fcr_level(0.95, np.array([2, 3, 8])).round(4).tolist()
    [0.95, 0.9667, 0.9875]
    """
    return 1.0 - 2.0 * (1.0 - level) / np.maximum(np.asarray(agents, dtype=np.float64), 2.0)


def a12_score_limits(estimate, n, m, level):
    """Score-type limits of A12 (Newcombe 2006's method 5) with a t quantile on n + m - 2 df and a continuity
    correction of half a step of the estimate, 1 / (2 n m).

    Each limit solves (A - theta)^2 = q^2 V(theta), with V the variance Hanley and McNeil (1982) give A12's estimate as
    a function of the true value, V(theta) = theta (1 - theta) / (n m) [1 + (N - 1) (1 - theta) / (2 - theta) +
    (N - 1) theta / (1 + theta)], N = (n + m) / 2 (Newcombe's N* - 1 form), A moved by the correction towards the
    limit sought. Like Wilson's interval for a proportion it exists at a complete separation (A = 1) and stays in
    [0, 1]; the t quantile and the correction keep it at its level at 3 runs per agent on skewed, heavy-tailed and
    capped scores (``tests/reference/coverage_effect_sizes.py``). Vectorised: ``estimate``, ``n``, ``m`` and
    ``level`` broadcast.

    References
    ----------
    Newcombe, R. G. (2006), Confidence intervals for an effect size measure based on the Mann-Whitney statistic.
    Part 2: asymptotic methods and evaluation, Statistics in Medicine 25(4).
    Hanley, J. A. and McNeil, B. J. (1982), The meaning and use of the area under a receiver operating
    characteristic (ROC) curve, Radiology 143(1).

    >>> low, high = a12_score_limits(np.array([1.0, 0.5]), 3, 3, 0.95)
    >>> bool(low[0] < 0.75 and high[0] == 1.0), bool(abs(low[1] + high[1] - 1) < 1e-12)
    (True, True)
    """
    from scipy import special

    estimate, n, m, level = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (estimate, n, m, level)))
    q = special.stdtrit(n + m - 2.0, 0.5 + level / 2.0)
    correction = 0.5 / (n * m)
    spread = (n + m) / 2.0 - 1.0

    def excess(theta, centre):  # > 0 where theta lies outside the interval around centre
        shape = 1 + (spread - 1) * ((1 - theta) / (2 - theta) + theta / (1 + theta))
        variance = theta * (1 - theta) / (n * m) * shape
        return (centre - theta) ** 2 - q * q * variance

    limits = []
    for side in (-1.0, 1.0):
        centre = np.clip(estimate + side * correction, 0.0, 1.0)
        inside, outside = centre.copy(), np.full(centre.shape, 0.0 if side < 0 else 1.0)
        for _ in range(60):  # bisection between the centre (inside) and the end of [0, 1]
            middle = 0.5 * (inside + outside)
            out = excess(middle, centre) > 0
            outside, inside = np.where(out, middle, outside), np.where(out, inside, middle)
        limit = np.where(excess(outside, centre) > 0, 0.5 * (inside + outside), outside)
        limits.append(limit)
    return limits[0], limits[1]


def effect_sizes(pairs, level, ranked=None, intervals="per_pair", effect_levels=None):
    """Effect sizes of each ``(x, y)`` pair, x the runs of the best oriented so that higher is better.

    ``ranked`` holds the same pairs with noise-level ties made exact (``statistics.near_ties``), which A12 reads;
    Hedges' g and Welch's t read ``pairs``. ``effect_levels`` (one per pair, or one for all; ``level`` when None)
    is the level of the A12, Hedges' g and Welch's intervals (audit s32: Welch's stayed at ``level`` while the note
    said every effect-size interval of a task was at ``level`` jointly).

    Returns
    -------
    a12 : ndarray, shape (P, 3)
        Vargha-Delaney A12 with its interval, clipped to [0, 1]. ``intervals="fcr"``: the score-type interval of
        :func:`a12_score_limits`, defined whatever the runs. ``"per_pair"``: the Brunner-Munzel interval (Brunner
        and Munzel 2000: placements' variance, t with Welch-Satterthwaite df); NaN bounds with fewer than 2 runs or
        no spread in the placements (a complete separation, or every run tied).
    hedges_g : ndarray, shape (P, 3)
        g = J (mean_x - mean_y) / s_pooled with Hedges' exact J on n + m - 2 df (:func:`hedges_correction`), with
        the interval that inverts the noncentral t distribution of t = d sqrt(n m / (n + m)) on n + m - 2 df
        (Steiger and Fouladi 1997). ``"fcr_normal"``: the limits over sqrt(n m / (n + m)), the exact interval of the
        standardised difference delta for normal runs; ``"fcr"``: those widened around d by
        :func:`kurtosis_stretch` where the runs' kurtosis exceeds the normal's. ``"per_pair"``: the limits also times J, R's
        ``effectsize::hedges_g(x, y)`` (0.8.0 and later), estimate and limits, which shrinks the interval towards 0
        and covers delta less the larger it is.
    welch : ndarray, shape (P, 4)
        Welch's t, its df and the interval of the difference of means x - y at ``effect_levels``, as R's
        ``t.test(x, y, conf.level = ...)`` prints them; against a cell whose runs all sit at a cap, with its run
        variance at its floor (:func:`cap_floors`), as the pair's p-values read it (review s38 fixe38: t 2.25 on 4
        df was printed beside a p-value of 0.059, whose t is 1.76 on 7.6 df).
    """
    from scipy import special

    a12_parts = np.array([_a12_parts(x, y) for x, y in (pairs if ranked is None else ranked)],
                         dtype=np.float64).reshape(-1, 3)
    hedges_parts = np.array([_hedges_parts(x, y) for x, y in pairs], dtype=np.float64).reshape(-1, 4)
    welch_parts = np.array([_floored_welch(x, y) if min(x.size, y.size) > 1 else (math.nan,) * 4 for x, y in pairs],
                           dtype=np.float64).reshape(-1, 4)
    levels = np.broadcast_to(np.asarray(level if effect_levels is None else effect_levels, dtype=np.float64),
                             (len(pairs),))
    estimate, variance, df = a12_parts.T
    g, t, df_g, scale = hedges_parts.T
    if intervals in FCR_INTERVALS:
        sizes = np.array([(x.size, y.size) for x, y in pairs], dtype=np.float64).reshape(-1, 2)
        low_a, high_a = a12_score_limits(estimate, sizes[:, 0], sizes[:, 1], levels)
        a12_out = np.stack([estimate, low_a, high_a], axis=1)
        root = np.sqrt(sizes.prod(axis=1) / sizes.sum(axis=1))
        low, high = noncentral_t_limits(t, df_g, levels)
        low, high = low / root, high / root
        if intervals == "fcr":  # widened where the runs' tails are heavier than the normal's (kurtosis_stretch)
            d = t / root
            stretch = np.array([kurtosis_stretch(x, y, float(v)) if np.isfinite(v) else 1.0
                                for (x, y), v in zip(pairs, d)]).reshape(d.shape)
            widen = stretch > 1  # elsewhere the limits stay fcr_normal's, bit for bit
            low, high = np.where(widen, d + stretch * (low - d), low), np.where(widen, d + stretch * (high - d), high)
        hedges_out = np.stack([g, low, high], axis=1)
    else:
        quantile = 0.5 + levels / 2.0
        with np.errstate(invalid="ignore"):
            half = special.stdtrit(df, quantile) * np.sqrt(variance)
        half = np.where(variance > 0, half, np.nan)
        a12_out = np.stack([estimate, np.maximum(0.0, estimate - half), np.minimum(1.0, estimate + half)], axis=1)
        low, high = noncentral_t_limits(t, df_g, levels)
        hedges_out = np.stack([g, low * scale, high * scale], axis=1)
    t_w, df_w, difference, se = welch_parts.T
    with np.errstate(invalid="ignore"):
        half = special.stdtrit(df_w, 0.5 + levels / 2.0) * se
    welch_out = np.stack([t_w, df_w, difference - half, difference + half], axis=1)
    return a12_out, hedges_out, welch_out


def iqm(x):
    from scipy import stats
    return float(stats.trim_mean(x, 0.25))


SUMMARIES: dict = {"mean": np.mean, "median": np.median, "iqm": iqm}
