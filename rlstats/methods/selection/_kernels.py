"""Numerical kernels of the selection check (Komiyama and Maehara, 2018).

Arrays in, arrays out; no pandas, no option checking (the public layer in
:mod:`rlstats.methods.selection` validates once).  Every test works on a batch
axis: ``v_reported`` has shape ``(T, N_P)`` and ``v_heldout`` ``(T, N_I)``, T
independent data sets of per-task effects, so one check (T = 1) and a
simulation of many trials run the same code.

Symbols follow the paper: ``N_P`` reported tasks, ``N_I`` held-out tasks,
``N_A`` candidate tasks the reporter could have chosen from, per-task effects
``v``, level ``alpha`` for the reporter and ``beta`` for the inspector.
Everything is one-sided: improvement means ``v > 0`` and selection bias means
the reported tasks have the larger mean.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from ...resampling import chunk_generators
from ...statistics import (block_ranges, difference_tolerance, hall_inverse, hall_transform, monte_carlo_pvalue,
                           monte_carlo_se, noise_free, probability_of_improvement, spread_and_magnitude)

EPS = float(np.finfo(float).eps)
#: Resamples per block of the permutation inspector (blocks get their own spawned stream).
PERMUTATION_CHUNK = 4096
#: Draws of the top-N_P mean behind the conservative p-value (spec section 4: 1e5 with its MC error).
CONSERVATIVE_RESAMPLES = 100_000
#: Rows per block of the conservative null; the block size only depends on N_A.
_NULL_BLOCK_ELEMENTS = 1 << 21


# --------------------------------------------------------------------------- per-task effects

def _arm_sums(values, task, is_treatment, n_tasks):
    """Per-task sums of ``values`` for the treatment (column 0) and the baseline (column 1)."""
    cell = 2 * task + (~is_treatment)
    return np.bincount(cell, weights=values, minlength=2 * n_tasks).reshape(n_tasks, 2)


def _cell_means(y, task, is_treatment, counts):
    sums = _arm_sums(y, task, is_treatment, counts.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def _mean_difference(y, task, means):
    """Treatment mean minus baseline mean per task; 0 where they tie but for round-off (``statistics.noise_free``
    of the pair's scores on the task, the package's tie rule): the same runs summed in another order differ by an
    ulp, which the effects' spread would read as a difference and scale with the units (review s15)."""
    with np.errstate(invalid="ignore"):
        return noise_free(means[:, 0] - means[:, 1], *_task_scale(y, task, means.shape[0]))


def _task_scale(y, task, n_tasks):
    """(spread, magnitude) of the pair's scores on each task (statistics.spread_and_magnitude)."""
    return spread_and_magnitude(*block_ranges(y, task, n_tasks))


def _mean_diff(y, task, is_treatment, counts):
    return _mean_difference(y, task, _cell_means(y, task, is_treatment, counts))


def pooled_run_sd(y, task, is_treatment, counts):
    """Per-task pooled within-arm sd of the runs (ddof = 1 in each arm); NaN with fewer than 3 runs."""
    means = _cell_means(y, task, is_treatment, counts)
    # Centre on the cell mean before squaring: stable even for scores of order 1e6.
    centred = y - means[task, (~is_treatment).astype(np.intp)]
    squares = _arm_sums(centred**2, task, is_treatment, counts.shape[0]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(squares / (counts.sum(axis=1) - 2))


def _std_diff(y, task, is_treatment, counts):
    means = _cell_means(y, task, is_treatment, counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _mean_difference(y, task, means) / pooled_run_sd(y, task, is_treatment, counts)


def effect_tolerances(y, task, is_treatment, counts, measure):
    """Per task, the rounding of its effect (``"mean_diff"`` or ``"std_diff"``), the distance within which two tasks'
    effects are one value: a difference of means, :func:`rlstats.statistics.difference_tolerance` of the pair's
    scores on the task (tol); a standardised one d = difference / s, tol / s + |d| tol_s / s, where tol_s, the
    rounding of the pooled sd s, is the larger cell's tolerance of its own runs (each deviation from a cell mean is a
    difference of its scores) times sqrt(N / (N - 2)), N the task's runs (review s36 rv36a: 2 tol / s (1 + max |d|)
    read effects 1e8 x (1, 1.00005, 1.0001, ...) of runs with sd 1e-8 as one value). NaN where s is not positive."""
    n_tasks = counts.shape[0]
    tolerance = difference_tolerance(*_task_scale(y, task, n_tasks))
    if measure == "mean_diff":
        return tolerance
    cell = 2 * task + (~is_treatment)
    within = difference_tolerance(*spread_and_magnitude(*block_ranges(y, cell, 2 * n_tasks))).reshape(n_tasks, 2)
    runs = counts.sum(axis=1).astype(np.float64)
    sd = pooled_run_sd(y, task, is_treatment, counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = _std_diff(y, task, is_treatment, counts)
        tolerance_sd = within.max(axis=1) * np.sqrt(runs / (runs - 2))
        return np.where(sd > 0, (tolerance + np.abs(d) * tolerance_sd) / sd, np.nan)


def _probability_of_improvement(y, task, is_treatment, counts):
    return probability_of_improvement(y, task, is_treatment, counts) - 0.5


EFFECTS = {"mean_diff": _mean_diff, "std_diff": _std_diff, "poi": _probability_of_improvement}


def task_effects(y, task, is_treatment, n_tasks, measure):
    """Per-task effect of the treatment over the baseline.

    Parameters
    ----------
    y : ndarray of float, shape (N,)
        Runs of the two agents only, sorted by task.
    task : ndarray of int, shape (N,)
        Task code of each run, ``0 .. n_tasks - 1``.
    is_treatment : ndarray of bool, shape (N,)
        True for the treatment's runs, False for the baseline's.
    n_tasks : int
    measure : str or callable
        A key of :data:`EFFECTS`, or ``f(treatment_runs, baseline_runs) -> float``.

    Returns
    -------
    effects : ndarray of float, shape (n_tasks,)
        NaN where an arm has no run.
    counts : ndarray of int, shape (n_tasks, 2)
        Runs of the treatment and of the baseline per task.
    """
    counts = np.bincount(2 * task + (~is_treatment), minlength=2 * n_tasks).reshape(n_tasks, 2)
    if callable(measure):
        effects = np.full(n_tasks, np.nan)
        for t in np.flatnonzero((counts > 0).all(axis=1)):
            rows = task == t
            effects[t] = measure(y[rows & is_treatment], y[rows & ~is_treatment])
        return effects, counts
    effects = EFFECTS[measure](y, task, is_treatment, counts)
    effects[(counts == 0).any(axis=1)] = np.nan
    return effects, counts


# --------------------------------------------------------------------------- reporter tests

def _mean_sd(v):
    n = v.shape[-1]
    mean = v.mean(axis=-1)
    sd = np.sqrt(((v - mean[..., None]) ** 2).sum(axis=-1) / (n - 1)) if n > 1 else np.full(mean.shape, np.nan)
    return mean, sd


def _reporter_z(v, mu0, sigma):
    from scipy import stats
    n = v.shape[-1]
    statistic = (v.mean(axis=-1) - mu0) * np.sqrt(n) / sigma
    return statistic, np.full(statistic.shape, np.nan), stats.norm.sf(statistic)


def _reporter_t(v, mu0, sigma):
    # Centred, ddof = 1 variance (the paper's section 6.1 prints an uncentred one: erratum 4).
    from scipy import stats
    n = v.shape[-1]
    mean, sd = _mean_sd(v)
    with np.errstate(invalid="ignore", divide="ignore"):
        statistic = (mean - mu0) * np.sqrt(n) / sd
    # effects with no spread beyond round-off: no t test (R's t.test stops, 'data are essentially constant')
    statistic = np.where(essentially_constant(mean, sd / np.sqrt(n)), np.nan, statistic)
    return statistic, np.full(statistic.shape, n - 1.0), stats.t.sf(statistic, n - 1)


def essentially_constant(mean, std_error):
    """True where a standard error is below round-off of the mean (R's t.test rule: 10 eps |mean|), or undefined."""
    with np.errstate(invalid="ignore"):
        return ~(np.asarray(std_error) >= 10 * np.finfo(float).eps * np.abs(mean)) | (np.asarray(std_error) == 0)


def effect_cumulants(y, task, is_treatment, counts):
    """Per-task second and third cumulants of the ``mean_diff`` effect, from the runs: ``(k2, k3)``, each (n_tasks,).

    The effect is mean(treatment runs) - mean(baseline runs), so its variance is k2_T / n_T + k2_B / n_B and its
    third cumulant k3_T / n_T^2 - k3_B / n_B^2, with k2 and k3 each arm's unbiased k-statistics of its runs. NaN
    where an arm has fewer than 3 runs (no k3). Both are in units of the largest deviation of a run from its cell's
    mean (their squares and cubes would underflow at scores of 1e-150): the skewness they give is unitless.
    """
    n_tasks = counts.shape[0]
    means = _cell_means(y, task, is_treatment, counts)
    column = (~is_treatment).astype(np.intp)
    centred = y - means[task, column]
    largest = float(np.abs(centred).max(initial=0.0))
    # each deviation's rounding, a difference of scores (statistics.difference_tolerance of the pair's scores on the
    # task), in the same units as the deviations
    rounding = difference_tolerance(*_task_scale(y, task, n_tasks))
    if largest > 0 and np.isfinite(largest):
        centred, rounding = centred / largest, rounding / largest
    m = counts.astype(float)
    enough = (counts >= 3).all(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):  # fewer than 3 runs: 0 / 0 or x / 0, masked
        k2 = _arm_sums(centred ** 2, task, is_treatment, n_tasks) / (m - 1)
        k3 = _arm_sums(centred ** 3, task, is_treatment, n_tasks) * m / ((m - 1) * (m - 2))
        second = np.where(enough, k2[:, 0] / m[:, 0] + k2[:, 1] / m[:, 1], np.nan)
        third = np.where(enough, k3[:, 0] / m[:, 0] ** 2 - k3[:, 1] / m[:, 1] ** 2, np.nan)
        # a third cumulant within what the deviations' rounding moves it by (to first order 3 e sum d^2 of each
        # arm's k3, e the rounding) is 0: symmetric runs' k3 is rounding whose sign the units set (audit s37 meta37:
        # x 7.3 + 1e6 a skewness of -7.41e-12 applied Hall's correction where the data's units gave none)
        noise = 3.0 * rounding[:, None] * k2 * m / (m - 2)
        third = np.where(np.abs(third) <= noise[:, 0] / m[:, 0] ** 2 + noise[:, 1] / m[:, 1] ** 2, 0.0, third)
    return second, third


def effect_skewness(v, k2=None, k3=None):
    """Skewness of the per-task effects for the skew-corrected t, one per row of ``v`` (shape ``v.shape[:-1]``).

    From the runs when their cumulants are given (:func:`effect_cumulants`; the mean k3 over the mean k2^1.5 of the
    tasks that have them): each task's runs estimate its noise's shape, far more steadily than a handful of effects
    do (the effects' own sample skewness is biased towards 0 by a factor of about 4 at 8 tasks). Otherwise, or where
    no task has 3 runs of each agent, the sample skewness of the effects (0 with fewer than 3): Hall's (1992) plug-in
    ``m3 / m2^1.5``, both central moments over n (scipy's ``skew(bias=True)``), as his correction term is defined.
    """
    # not statistics.shape_ratios' G1 (k3 / k2^1.5): Hall's correction is defined on the plug-in m3 / m2^1.5, and
    # the runs' form pools k3 and k2 over tasks before dividing (one task's few runs give a noisy ratio)
    v = np.asarray(v, dtype=float)
    n = v.shape[-1]
    centred = v - v.mean(axis=-1, keepdims=True)
    # in units of each row's largest deviation, so that cubes of tiny effects (1e-150) do not underflow
    largest = np.abs(centred).max(axis=-1, keepdims=True, initial=0.0)
    centred = centred / np.where((largest > 0) & np.isfinite(largest), largest, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        own = (centred ** 3).mean(axis=-1) / (centred ** 2).mean(axis=-1) ** 1.5 if n > 2 else np.zeros(v.shape[:-1])
    own = np.where(np.isfinite(own), own, 0.0)
    if k2 is None:
        return own
    k2, k3 = np.asarray(k2, dtype=float), np.asarray(k3, dtype=float)
    have = np.isfinite(k2) & np.isfinite(k3)
    with np.errstate(invalid="ignore", divide="ignore"):
        second = np.where(have, k2, 0.0).sum(axis=-1) / have.sum(axis=-1)
        runs = np.where(have, k3, 0.0).sum(axis=-1) / have.sum(axis=-1) / second ** 1.5
    return np.where(have.any(axis=-1) & (second > 0), runs, own)


def _reporter_skew_t(v, mu0, sigma, skewness=None):
    """The one-sample t made safe against effects skewed towards losses: the larger of the t p-value and that of
    Hall's transformation with the effects' skewness where it is negative (kept at 0 where positive, where the t
    errs on the safe side), both against Student's t with N_P - 1 df."""
    from scipy import stats
    statistic, df, p_t = _reporter_t(v, mu0, sigma)
    n = v.shape[-1]
    gamma = np.minimum(effect_skewness(v) if skewness is None else np.asarray(skewness, dtype=float), 0.0)
    mean, sd = _mean_sd(v)
    with np.errstate(invalid="ignore", divide="ignore"):
        corrected = hall_transform((mean - mu0) / sd, gamma, n)
    corrected = np.where(gamma < 0, corrected, statistic)  # the t itself, to the bit, where nothing is corrected
    # reject only where both reject: never more often than the t (Hall's cubic passes the t far in the tail)
    statistic = np.minimum(statistic, corrected)
    return statistic, df, np.maximum(p_t, stats.t.sf(corrected, n - 1))


def _reporter_wilcoxon(v, mu0, sigma):
    from scipy import stats
    result = stats.wilcoxon(v - mu0, alternative="greater", axis=-1)
    statistic = np.asarray(result.statistic, dtype=float)
    return statistic, np.full(statistic.shape, np.nan), np.asarray(result.pvalue, dtype=float)


REPORTERS = {"skew_t": _reporter_skew_t, "t": _reporter_t, "z": _reporter_z, "wilcoxon": _reporter_wilcoxon}
#: the inspector's tests; fisher_pitman is the permutation test over task labels
INSPECTORS = ("fisher_pitman", "t", "welch", "z")
#: a former name of an inspector: "permutation" is the step-down back end (method="permutation")
RENAMED_INSPECTORS = {"permutation": ("fisher_pitman", "the permutation test of the mean difference over task "
                                      "labels, as in R's coin::oneway_test; \"permutation\" names the step-down "
                                      "back end")}


def reporter_test(v, test, mu0=0.0, sigma=None, skewness=None):
    """One-sided test of ``mean(v) > mu0`` for each row of ``v``.

    ``"skew_t"``: the t below, corrected for effects skewed towards losses
    (left-skewed: rare large losses), which make the t reject too often at
    few tasks: the p-value is the larger of the t's and that of Hall's (1992)
    transformation ``hall_transform((mean - mu0) / sd, min(gamma, 0), N_P)``
    against t with N_P - 1 df, gamma the effects' skewness (``skewness``, one
    per row, e.g. from the runs by :func:`effect_cumulants` and
    :func:`effect_skewness`; the effects' sample skewness when None); its
    statistic is the smaller of the two. ``"z"``: ``(mean - mu0) sqrt(N_P) / sigma`` against N(0, 1) (paper Def. 1
    and section 5.1); ``"t"``: the one-sample t with the centred ddof = 1 sd
    and N_P - 1 df (section 6.1, corrected); ``"wilcoxon"``: the signed-rank
    statistic W+ of ``v - mu0`` with scipy's default ``method="auto"``: the
    exact null distribution up to 50 reported tasks, the normal approximation
    above; with tied or zero differences scipy's "exact" p-value is not exact.

    Returns ``(statistic, df, pvalue)``, arrays of shape ``v.shape[:-1]``;
    df is NaN for z and Wilcoxon.
    """
    if test == "skew_t":
        return _reporter_skew_t(np.asarray(v, dtype=float), mu0, sigma, skewness)
    return REPORTERS[test](np.asarray(v, dtype=float), mu0, sigma)


# --------------------------------------------------------------------------- parametric inspectors

@dataclass(frozen=True)
class Difference:
    """Reported minus held-out mean effect with the standard error and df of one reference distribution."""

    estimate: np.ndarray
    std_error: np.ndarray
    df: np.ndarray  # NaN: normal reference


def difference(v_reported, v_heldout, kind, sigma=None):
    """``mean(reported) - mean(held-out)`` with its standard error.

    kind ``"z"``: ``sigma sqrt(1/N_P + 1/N_I)`` (paper section 5.2);
    ``"t"``: pooled sd, N_P + N_I - 2 df (section 6.1); ``"welch"``:
    Welch's separate variances and Satterthwaite's df.
    """
    n_p, n_i = v_reported.shape[-1], v_heldout.shape[-1]
    mean_p, sd_p = _mean_sd(v_reported)
    mean_i, sd_i = _mean_sd(v_heldout)
    estimate = mean_p - mean_i
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind == "z":
            se = np.full(estimate.shape, sigma * np.sqrt(1 / n_p + 1 / n_i))
            df = np.full(estimate.shape, np.nan)
        elif kind == "t":
            ss = (n_p - 1) * np.nan_to_num(sd_p) ** 2 + (n_i - 1) * np.nan_to_num(sd_i) ** 2
            pooled = np.sqrt(ss / (n_p + n_i - 2))
            se = pooled * np.sqrt(1 / n_p + 1 / n_i)
            df = np.full(estimate.shape, n_p + n_i - 2.0)
        else:
            a, b = sd_p**2 / n_p, sd_i**2 / n_i
            se = np.sqrt(a + b)
            # Satterthwaite from the variances' shares: squares of variances in tiny units would underflow to 0
            share_a, share_b = a / (a + b), b / (a + b)
            df = 1.0 / (share_a**2 / (n_p - 1) + share_b**2 / (n_i - 1))
    return Difference(estimate, se, df)


def upper_tail(statistic, df):
    """P(T >= statistic) under N(0, 1) where df is NaN, Student t with df otherwise."""
    from scipy import stats
    statistic, df = np.broadcast_arrays(np.asarray(statistic, dtype=float), np.asarray(df, dtype=float))
    normal = np.isnan(df)
    out = np.empty(statistic.shape)
    out[normal] = stats.norm.sf(statistic[normal])
    out[~normal] = stats.t.sf(statistic[~normal], df[~normal])
    return out


def parametric_inspector(v_reported, v_heldout, kind, sigma=None):
    """The paper's inspector (z, pooled t) or Welch's test: ``(statistic, df, pvalue, Difference)``."""
    diff = difference(v_reported, v_heldout, kind, sigma)
    with np.errstate(invalid="ignore", divide="ignore"):
        statistic = diff.estimate / diff.std_error
    return statistic, diff.df, upper_tail(statistic, diff.df), diff


# --------------------------------------------------------------------------- permutation inspector

def n_subsets(n_tasks, n_reported):
    """Number of ways to choose the reported tasks among all tasks used."""
    return math.comb(n_tasks, n_reported)


def is_exact(n_tasks, n_reported, n_resamples):
    """Enumerate every subset when there are no more of them than resamples (scipy's rule)."""
    return n_subsets(n_tasks, n_reported) <= n_resamples


def _all_subsets(n, k):
    """Every k-subset of range(n) as an (C(n, k), k) index array, built in C by itertools."""
    flat = itertools.chain.from_iterable(itertools.combinations(range(n), k))
    return np.fromiter(flat, dtype=np.intp, count=n_subsets(n, k) * k).reshape(-1, k)


def _random_subsets(gen, shape, n, k):
    """Uniform random k-subsets of range(n): the k smallest of n i.i.d. uniform keys."""
    keys = gen.random(shape + (n,))
    return np.argpartition(keys, k - 1, axis=-1)[..., :k]


def _sums_to_difference(sums, total, k, m):
    """Subset sum S of the reported effects -> mean(reported) - mean(held-out)."""
    return sums * (1 / k + 1 / m) - total / m


def _tolerance(v_all, k):
    # Sums of the same k numbers in different orders differ by at most about
    # k * eps * sum|v|; a margin of 4x keeps exact ties tied.
    return 4 * k * EPS * np.abs(v_all).sum(axis=-1)


def least_pvalue(v_all, k):
    """The smallest p-value the exact inspector can attain: the share of the C(n, k) subsets whose sum ties the
    largest (to :func:`_tolerance`), C(t, k - g) / C(n, k) where g values are above the k-th largest and t tie it
    (along the last axis of ``v_all``: one per data set).

    Every subset that holds the g larger values and k - g of the t tied ones has the largest sum, and no other; a
    Monte Carlo p-value is floored here (audit s21: 100 draws printed 0.149 where 45 of 190 subsets tie the top).
    """
    from scipy.special import comb

    v = np.asarray(v_all, dtype=float)
    tol = _tolerance(v, k)[..., None]
    kth = -np.partition(-v, k - 1, axis=-1)[..., k - 1:k]  # the k-th largest, along the last axis
    above = np.count_nonzero(v > kth + tol, axis=-1)
    tied = np.count_nonzero(np.abs(v - kth) <= tol, axis=-1)
    least = comb(tied, k - above) / comb(v.shape[-1], k)
    return float(least) if least.ndim == 0 else least


@dataclass(frozen=True)
class PermutationOutcome:
    """The permutation inspector on one data set."""

    statistic: float          # mean(reported) - mean(held-out)
    pvalue: float
    mc_se: float | None       # None when exact
    n_resamples: int          # resamples drawn, or subsets enumerated when exact
    exact: bool
    null_distribution: np.ndarray
    shifts: np.ndarray | None = None  # sorted; see shift_thresholds


def shift_thresholds(subset_sums, n_reported_in, observed_sum, tol, k):
    """For each subset S of the permutation null, the least shift delta of the reported effects (each less delta)
    at which S's sum reaches the observed one, so that S counts as a hit: ``(observed - tol - sum_S) / (k - |S &
    reported|)``, -inf for the reported set itself (always a hit). Sorted: the hits at delta are the values <= delta.

    Shifting the reported effects by delta moves the observed sum by -k delta and S's by -|S & reported| delta, so
    S is a hit exactly when delta reaches its threshold, and the permutation p-value of the shifted effects rises
    with delta in steps; :func:`permutation_lower_bound` inverts it.
    """
    outside = k - np.asarray(n_reported_in, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        shifts = np.where(outside > 0, (observed_sum - tol - np.asarray(subset_sums, dtype=float)) / outside, -np.inf)
    return np.sort(shifts)


def permutation_lower_bound(shifts, exact, level):
    """One-sided lower confidence bound of the shift of the reported effects over the held-out ones: the least delta
    whose permutation p-value (effects shifted by delta) is above ``1 - level``; -inf when no delta is rejected.

    The p-value at delta counts the thresholds <= delta (:func:`shift_thresholds`) as :func:`permutation_inspector`
    counts hits (their share when exact, ``(1 + hits) / (B + 1)`` otherwise), so the bound is above 0 exactly when
    the test rejects at ``1 - level``: the interval ``(bound, inf)`` inverts the test.
    """
    hits = np.arange(shifts.size + 1)
    p = hits / shifts.size if exact else monte_carlo_pvalue(hits, shifts.size)
    first = int(np.argmax(p > 1 - level))  # p at the largest count is 1 (exact) or 1 (Monte Carlo): always found
    return -np.inf if first == 0 else float(shifts[first - 1])


def permutation_inspector(v_reported, v_heldout, n_resamples, ss, progress=None):
    """Permutation test of "the reported tasks are a uniformly random subset of all tasks used".

    The statistic is ``mean(reported) - mean(held-out)``, a monotone function of
    the reported sum, so only subset sums are formed.  All ``C(N_P + N_I, N_P)``
    subsets are enumerated when there are at most ``n_resamples`` of them
    (p-value = share of subsets at least as extreme, observed included);
    otherwise ``n_resamples`` uniform random subsets give
    ``(1 + hits) / (n_resamples + 1)`` with its Monte Carlo standard error,
    never below the exact test's least (:func:`least_pvalue`).
    Random subsets are drawn in blocks of :data:`PERMUTATION_CHUNK`, each from
    its own stream spawned from ``ss``.
    """
    v_all = np.concatenate([v_reported, v_heldout])
    n, k = v_all.size, v_reported.size
    m = n - k
    total = float(v_all.sum())
    observed_sum = v_reported.sum()
    tol = _tolerance(v_all, k)
    if is_exact(n, k, n_resamples):
        subsets = _all_subsets(n, k)
        sums = v_all[subsets].sum(axis=-1)
        if progress is not None:
            progress(n_resamples)
        p = np.count_nonzero(sums >= observed_sum - tol) / sums.size
        null = _sums_to_difference(sums, total, k, m)
        shifts = shift_thresholds(sums, (subsets < k).sum(axis=-1), observed_sum, tol, k)
        return PermutationOutcome(float(_sums_to_difference(observed_sum, total, k, m)), float(p), None,
                                  int(sums.size), True, null, shifts)
    sums = np.empty(n_resamples)
    reported_in = np.empty(n_resamples)  # how many of each subset's tasks are reported ones (indices below k)
    for start, stop, gen in chunk_generators(ss, n_resamples, PERMUTATION_CHUNK):
        subsets = _random_subsets(gen, (stop - start,), n, k)
        sums[start:stop] = v_all[subsets].sum(axis=-1)
        reported_in[start:stop] = (subsets < k).sum(axis=-1)
        if progress is not None:
            progress(stop - start)
    hits = np.count_nonzero(sums >= observed_sum - tol)
    p = monte_carlo_pvalue(hits, n_resamples, least_pvalue(v_all, k))
    return PermutationOutcome(float(_sums_to_difference(observed_sum, total, k, m)), float(p),
                              float(monte_carlo_se(p, n_resamples)), n_resamples, False,
                              _sums_to_difference(sums, total, k, m),
                              shift_thresholds(sums, reported_in, observed_sum, tol, k))


def permutation_pvalues(v_reported, v_heldout, n_resamples, gen, block_elements=1 << 22):
    """Permutation p-values of T data sets at once (rows of the inputs), for simulations.

    Same rule as :func:`permutation_inspector` (exact enumeration when it fits);
    the random subsets of all rows come from ``gen``, in row blocks sized so
    that one block's keys stay below ``block_elements`` numbers.
    """
    v_all = np.concatenate([v_reported, v_heldout], axis=-1)
    rows, n = v_all.shape
    k = v_reported.shape[-1]
    threshold = (v_reported.sum(axis=-1) - _tolerance(v_all, k))[:, None]
    if is_exact(n, k, n_resamples):
        subsets = _all_subsets(n, k)
        step = max(1, block_elements // (subsets.size))
        hits = np.concatenate([np.count_nonzero(v_all[lo:lo + step, subsets].sum(axis=-1) >= threshold[lo:lo + step],
                                                axis=-1) for lo in range(0, rows, step)])
        return hits / subsets.shape[0]
    step = max(1, block_elements // (n_resamples * n))
    hits = np.empty(rows)
    for lo in range(0, rows, step):
        block = v_all[lo:lo + step]
        index = _random_subsets(gen, (block.shape[0], n_resamples), n, k)
        sums = np.take_along_axis(block[:, None, :], index, axis=-1).sum(axis=-1)
        hits[lo:lo + step] = np.count_nonzero(sums >= threshold[lo:lo + step], axis=-1)
    return monte_carlo_pvalue(hits, n_resamples, least_pvalue(v_all, k))


# --------------------------------------------------------------------------- conservative p-value

@functools.lru_cache(maxsize=16)
def _top_mean_null_cached(n_reported, n_candidates, n_resamples, entropy, spawn_key):
    ss = np.random.SeedSequence(entropy, spawn_key=spawn_key)
    rows = max(1, _NULL_BLOCK_ELEMENTS // n_candidates)
    null = np.empty(n_resamples)
    cut = n_candidates - n_reported
    for start, stop, gen in chunk_generators(ss, n_resamples, rows):
        x = gen.standard_normal((stop - start, n_candidates))
        null[start:stop] = np.partition(x, cut, axis=1)[:, cut:].mean(axis=1) if cut else x.mean(axis=1)
    null.sort()
    null.flags.writeable = False
    return null


def top_mean_null(n_reported, n_candidates, n_resamples, ss):
    """Sorted draws of the mean of the top ``n_reported`` of ``n_candidates`` i.i.d. N(0, 1).

    The null distribution of the conservative p-value (paper section 4,
    eq. 4.3 corrected: the survival function of this top-N_P mean).  It depends
    only on (N_P, N_A) and the stream, so it is cached; the array is read-only.
    """
    return _top_mean_null_cached(int(n_reported), int(n_candidates), int(n_resamples),
                                 ss.entropy, tuple(ss.spawn_key))


def conservative_pvalue(null_sorted, mean_reported):
    """``(1 + #{null >= mean}) / (B + 1)`` and its Monte Carlo standard error (vectorised over means)."""
    b = null_sorted.size
    hits = b - np.searchsorted(null_sorted, mean_reported, side="left")
    p = monte_carlo_pvalue(hits, b)
    return p, monte_carlo_se(p, b)


# --------------------------------------------------------------------------- planning

def detection_probability(mean_reported, n_reported, n_heldout, beta=0.05, mu0=0.0):
    """Probability that the z inspector flags the report with ``n_heldout`` fresh tasks.

    In units of the sd of the per-task effects: the fresh mean is
    ``N(mu0, 1/N_I)``, so P(detect) =
    ``Phi(sqrt(N_I) (mean_reported - mu0 - z_beta sqrt(1/N_P + 1/N_I)))``
    (spec section 2.5; the exact form of the paper's Theorem 5).
    Vectorised over every argument.
    """
    from scipy import stats
    n_heldout = np.asarray(n_heldout, dtype=float)
    z_beta = stats.norm.isf(beta)
    margin = mean_reported - mu0 - z_beta * np.sqrt(1 / n_reported + 1 / n_heldout)
    return stats.norm.cdf(np.sqrt(n_heldout) * margin)


def required_heldout(mean_reported, n_reported, beta=0.05, power=0.95, mu0=0.0, max_heldout=1_000_000):
    """Smallest N_I with ``detection_probability >= power``, or None if none up to ``max_heldout``."""
    candidates = np.arange(1, max_heldout + 1)
    reached = np.flatnonzero(detection_probability(mean_reported, n_reported, candidates, beta, mu0) >= power)
    return int(candidates[reached[0]]) if reached.size else None


# --------------------------------------------------------------------------- simulation of the paper's setting

#: Trials per block of a simulation; each block draws from its own spawned stream.
SIMULATION_CHUNK = 2048


@dataclass(frozen=True)
class SimulationSetting:
    """One synthetic setting of the paper's section 7.1 (effects in units of their sd)."""

    n_candidates: int
    n_reported: int
    n_heldout: int
    mu: float
    mu_gap: float
    reporter: str      # "top" (Scenario 2, cherry-picking) or "random" (Scenario 1, honest)
    variance: str      # "known" (z tests, sigma = 1) or "unknown" (t tests)
    heldout: str       # "fresh", "complement" or "resample"
    inspector: str     # "z", "t", "welch" or "fisher_pitman"
    alpha: float
    beta: float
    n_resamples: int


def _draw_sets(gen, rows, s):
    """Reported and held-out effects of ``rows`` trials."""
    x = gen.standard_normal((rows, s.n_candidates)) + s.mu
    cut = s.n_candidates - s.n_reported
    if s.reporter == "top":
        x = np.partition(x, cut - 1, axis=1) if cut else x
        reported, rest = x[:, cut:], x[:, :cut]
    else:
        reported, rest = x[:, :s.n_reported], x[:, s.n_reported:]
    if s.heldout == "complement":
        return reported, rest
    if s.heldout == "resample":
        # The paper's section 7.2: D_I drawn uniformly from all candidates, so it may hold reported tasks.
        index = _random_subsets(gen, (rows,), s.n_candidates, s.n_heldout)
        return reported, np.take_along_axis(x, index, axis=1)
    return reported, gen.standard_normal((rows, s.n_heldout)) + s.mu


def _trial_outcomes(gen, rows, s, null_top):
    """Per-trial booleans: naive claim, gap claim, conservative claim, detection; and the reported means."""
    reported, heldout = _draw_sets(gen, rows, s)
    test = "z" if s.variance == "known" else "t"
    claim_naive = reporter_test(reported, test, 0.0, 1.0)[2] <= s.alpha
    claim_gap = reporter_test(reported, test, s.mu_gap, 1.0)[2] <= s.alpha if s.mu_gap > 0 else claim_naive
    means = reported.mean(axis=1)
    claim_con = conservative_pvalue(null_top, means)[0] <= s.alpha if null_top is not None else None
    if s.inspector == "fisher_pitman":
        p_inspector = permutation_pvalues(reported, heldout, s.n_resamples, gen)
    else:
        p_inspector = parametric_inspector(reported, heldout, s.inspector, 1.0)[2]
    return claim_naive, claim_gap, claim_con, p_inspector <= s.beta, means


def simulate_counts(setting, n_trials, ss):
    """Counts over ``n_trials`` trials: claims (naive, gap, conservative), detections, joint events, sum of means.

    Trials are drawn in blocks of :data:`SIMULATION_CHUNK`, block b from the
    b-th stream spawned from ``ss`` (the conservative null takes one more
    stream), so counts do not depend on how the work is split.
    """
    data_ss, null_ss = ss.spawn(2)
    null_top = None
    if setting.variance == "known":
        null_top = top_mean_null(setting.n_reported, setting.n_candidates, CONSERVATIVE_RESAMPLES, null_ss)
    counts = dict.fromkeys(("claim_naive", "claim_gap", "claim_conservative", "detect", "claim_and_detect",
                            "sum_mean_reported"), 0.0)
    for start, stop, gen in chunk_generators(data_ss, n_trials, SIMULATION_CHUNK):
        naive, gap, con, detect, means = _trial_outcomes(gen, stop - start, setting, null_top)
        counts["claim_naive"] += np.count_nonzero(naive)
        counts["claim_gap"] += np.count_nonzero(gap)
        counts["claim_conservative"] += np.count_nonzero(con) if con is not None else np.nan
        counts["detect"] += np.count_nonzero(detect)
        counts["claim_and_detect"] += np.count_nonzero(gap & detect)
        counts["sum_mean_reported"] += means.sum()
    return counts
