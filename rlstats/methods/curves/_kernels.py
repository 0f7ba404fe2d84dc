"""Learning-curve kernels: per-step aggregates of weighted runs, whole-run bootstrap and permutation.

Arrays in, arrays out; inputs are trusted (the API layer validated them).

The unit of resampling is a whole run: a resample (or a relabelling) of one agent's runs is a
vector of weights over its runs, the same at every step, so a run's trajectory stays together.
Every built-in statistic is then a function of (weights, values) that needs no sort per
resample: the runs are sorted once per step, and a trimmed mean of a weighted sample is read
from cumulative weights. A custom statistic gets the resampled runs themselves.

Layout: ``values`` has shape (n_runs, n_steps), NaN where a run has no value at a step (outside
its logged range after alignment); ``task_of`` gives each run's task code (runs are sorted by
task); ``weights`` has shape (n_resamples, n_runs).
"""

from __future__ import annotations

import warnings

import numpy as np

from ...resampling import fixed_dot
from ...statistics import monte_carlo_pvalue

#: Built-in per-step statistics.
STATISTICS = ("iqm", "mean", "median", "optimality_gap")
# Resamples drawn from one child generator: fixed, so results never depend on how work is sliced.
RNG_BLOCK = 100
# Elements of the largest temporary array of one slice of resamples (resamples x steps x runs).
CHUNK_ELEMENTS = 4_000_000


def chunk_size(n_runs, n_steps):
    """Resamples per chunk so that a (chunk, steps, runs) array stays near CHUNK_ELEMENTS."""
    return int(max(1, min(RNG_BLOCK, CHUNK_ELEMENTS // max(1, n_runs * n_steps))))


class Prepared:
    """One agent's runs arranged once for every resample: per-step sort order, task blocks, validity."""

    def __init__(self, values, task_of, n_tasks, gamma):
        self.valid = ~np.isnan(values)
        self.all_valid = bool(self.valid.all())
        filled = np.where(self.valid, values, 0.0)
        # Sorted once per step (missing values last, as zeros with zero weight), for the trimmed mean.
        self.order = np.argsort(values.T, axis=1, kind="stable")  # (steps, runs)
        self.sorted_values = np.take_along_axis(filled.T, self.order, axis=1)
        self.sorted_valid = np.take_along_axis(self.valid.T, self.order, axis=1)
        # v_j - v_(j+1): the trimmed sum is then a dot product with clipped cumulative weights.
        self.value_steps = self.sorted_values - np.concatenate(
            [self.sorted_values[:, 1:], np.zeros((values.shape[1], 1))], axis=1)
        # Runs padded into (tasks, slots) blocks, so per-task sums are one batched sum (einsum).
        starts = np.searchsorted(task_of, np.arange(n_tasks))
        sizes = np.diff(np.r_[starts, task_of.size])
        self.slots = int(sizes.max())
        self.position = task_of * self.slots + (np.arange(task_of.size) - starts[task_of])
        shape = (n_tasks * self.slots, values.shape[1])
        self.padded_values = np.zeros(shape)
        self.padded_values[self.position] = filled
        self.padded_valid = np.zeros(shape)
        self.padded_valid[self.position] = self.valid
        self.n_tasks = n_tasks
        # By step, runs contiguous: each resample's sum at a step is one dot (fixed_dot).
        self.shortfall = np.where(self.valid, np.maximum(gamma - values, 0.0), 0.0).T.copy()
        self.valid_by_step = np.ascontiguousarray(self.valid.T, dtype=np.float64)
        # A step counts only where every task has a value of this agent.
        self.complete = (self.padded_valid.reshape(n_tasks, self.slots, -1).sum(axis=1) > 0).all(axis=0)


def _task_means(prepared, weights):
    """(tasks, B, steps) weighted mean of each task's runs."""
    padded = np.zeros((weights.shape[0], prepared.n_tasks * prepared.slots))
    padded[:, prepared.position] = weights
    blocks = padded.reshape(weights.shape[0], prepared.n_tasks, prepared.slots).transpose(1, 0, 2)
    shape = (prepared.n_tasks, prepared.slots, -1)
    # einsum, not matmul: BLAS's bits depend on its thread count (1 in joblib's workers), so n_jobs would
    # change them; einsum is several times slower on these products (about 13% of a "mean" curves call).
    sums = np.einsum("tbj,tjs->tbs", blocks, prepared.padded_values.reshape(shape))
    counts = np.einsum("tbj,tjs->tbs", blocks, prepared.padded_valid.reshape(shape))
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def _iqm(prepared, weights):
    """(B, steps) interquartile mean of the pooled weighted runs: floor(N/4) cut from each end.

    With C the cumulative weights in sorted order, the sum of the values at expanded positions
    (low, high] is sum_j v_j (m_j - m_(j-1)) with m = clip(C, low, high), which by summation by
    parts is sum_j m_j (v_j - v_(j+1)) - low * v_1: no sort and no difference per resample.
    """
    # Counts are whole numbers below the number of runs: a small integer type moves a quarter of
    # the memory of float64 through the three passes over (B, steps, runs), exactly.
    small = np.int16 if weights.shape[1] < np.iinfo(np.int16).max else np.int32
    cumulative = weights.astype(small)[:, prepared.order]  # (B, steps, runs) in sorted order
    if not prepared.all_valid:
        cumulative *= prepared.sorted_valid[None]
    np.cumsum(cumulative, axis=2, dtype=small, out=cumulative)
    total = cumulative[:, :, -1].astype(np.float64)
    low = np.floor(total / 4.0)
    high = total - low
    np.clip(cumulative, low.astype(small)[:, :, None], high.astype(small)[:, :, None], out=cumulative)
    trimmed = np.einsum("bsj,sj->bs", cumulative, prepared.value_steps) - low * prepared.sorted_values[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return trimmed / (high - low)


def _optimality_gap(prepared, weights):
    with np.errstate(invalid="ignore", divide="ignore"):
        by_run = weights[:, None, :]  # a matrix product's bits would depend on BLAS's thread count
        return fixed_dot(by_run, prepared.shortfall) / fixed_dot(by_run, prepared.valid_by_step)


def weighted_statistic(prepared, weights, statistic):
    """(B, steps) statistic of the weighted runs; NaN at steps where a task has no value."""
    if statistic == "iqm":
        out = _iqm(prepared, weights)
    elif statistic == "optimality_gap":
        out = _optimality_gap(prepared, weights)
    else:
        means = _task_means(prepared, weights)
        out = means.mean(axis=0) if statistic == "mean" else np.median(means, axis=0)
    out = np.asarray(out, dtype=float)
    out[:, ~prepared.complete] = np.nan
    return out


def custom_statistic(values, task_of, n_tasks, indices, function):
    """(B, steps) of ``function`` on resampled runs arranged (B, steps, runs, tasks), NaN-padded.

    ``indices`` (B, n_runs) picks, for each resample, which run fills each slot (slots keep
    their task), so every task keeps its number of runs.
    """
    starts = np.searchsorted(task_of, np.arange(n_tasks))
    sizes = np.diff(np.r_[starts, task_of.size])
    arranged = np.full((indices.shape[0], values.shape[1], sizes.max(), n_tasks), np.nan)
    for t, (start, size) in enumerate(zip(starts, sizes)):  # one loop per task, vectorised over resamples
        picked = values[indices[:, start:start + size]]  # (B, size, steps)
        arranged[:, :, :size, t] = picked.transpose(0, 2, 1)
    return np.asarray(function(arranged), dtype=float).reshape(indices.shape[0], values.shape[1])


def bootstrap_indices(generator, task_of, n_tasks, n_resamples):
    """(B, n_runs) run indices drawn with replacement within each task (a whole run per draw)."""
    starts = np.searchsorted(task_of, np.arange(n_tasks))
    sizes = np.diff(np.r_[starts, task_of.size])
    draws = generator.random((n_resamples, task_of.size))
    return (starts[task_of][None, :] + np.floor(draws * sizes[task_of][None, :])).astype(np.intp)


def weights_from_indices(indices, n_runs):
    """(B, n_runs) how often each run was drawn."""
    rows = np.repeat(np.arange(indices.shape[0]), indices.shape[1])
    return np.bincount(rows * n_runs + indices.ravel(), minlength=indices.shape[0] * n_runs).reshape(
        indices.shape[0], n_runs).astype(float)


def shuffle_within_tasks(generator, task_of, n_tasks, n_permutations):
    """(B, n_runs) run indices, each task's runs shuffled among that task's positions.

    Uniform keys plus the task code sort every run back into its task's block in a random order;
    the first positions of a task's block then go to one agent and the rest to the other.
    """
    keys = generator.random((n_permutations, task_of.size)) + task_of[None, :]
    return np.argsort(keys, axis=1, kind="stable")


def effective_df(replicates, weights, task_of, n_tasks):
    """(steps,) Welch-Satterthwaite degrees of freedom of a stratified statistic, read from its bootstrap.

    A run's empirical influence at a step is estimated by the covariance over resamples of how often it was
    drawn with the statistic (the counts of a task's n runs have covariance I - J/n, the identity on influences
    that sum to zero within the task, so no matrix is inverted). Task t's share of the variance is the sum of
    its runs' squared influences, v_t, and df = (sum v_t)^2 / sum(v_t^2 / (n_t - 1)): n - 1 for one task,
    the sum of n_t - 1 when tasks weigh alike, near n - 1 when one task carries the variance (as the median
    of task means does). ``weights`` (B, runs) are the resampling counts; steps without spread give NaN.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        centred = np.nan_to_num(replicates - np.nanmean(replicates, axis=0))
    influence = (weights - 1.0).T @ centred / replicates.shape[0]  # (runs, steps)
    top = np.abs(influence).max(axis=0)
    influence = influence / np.where(top > 0, top, 1.0)  # df is scale-free; v_t^2 in tiny units would underflow
    shares = np.zeros((n_tasks, replicates.shape[1]))
    np.add.at(shares, task_of, influence ** 2)
    sizes = np.bincount(task_of, minlength=n_tasks)
    shares, sizes = shares[sizes > 1], sizes[sizes > 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return shares.sum(axis=0) ** 2 / (shares ** 2 / (sizes[:, None] - 1.0)).sum(axis=0)


def t_quantile_ratio(df, level):
    """(steps,) t quantile over normal quantile at two-sided ``level``: 1 where df is not finite."""
    from scipy import stats

    tail = (1.0 - level) / 2.0
    finite = np.isfinite(df) & (df > 0)
    out = np.ones(df.shape)
    out[finite] = stats.t.isf(tail, df[finite]) / stats.norm.isf(tail)
    return out


def percentile_bounds(replicates, estimate, level, df=None):
    """(steps, 2) percentile interval of each column of (B, steps) replicates; NaN where a step has none.

    With ``df`` (steps,), each end's distance from the estimate is widened by the t quantile at ``df`` over
    the normal quantile, as a t interval would be with the bootstrap's standard error.
    """
    tail = (1.0 - level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN steps give NaN bounds, as they should
        bounds = np.stack([np.nanquantile(replicates, tail, axis=0),
                           np.nanquantile(replicates, 1.0 - tail, axis=0)], axis=-1)
    if df is None:
        return bounds
    ratio = t_quantile_ratio(df, level)[:, None]
    return estimate[:, None] + ratio * (bounds - estimate[:, None])


def sup_t_band(replicates, estimate, level, df=None):
    """Simultaneous band: estimate +- c * se, c from the level-quantile of the max studentised deviation.

    Returns (band (steps, 2), se (steps,), c (steps,)). Without ``df``, c is that quantile at every step.
    With ``df``, c at a step is the t quantile at its df with the same two-sided tail as the bootstrap's
    quantile has under the normal: the steps' joint behaviour from the bootstrap, each step's studentised
    deviation t-distributed rather than normal, as a standard error from few runs makes it. Steps with no
    spread (se = 0) or no estimate are left out of the maximum; their band is the estimate itself.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(replicates, axis=0, ddof=1)
    usable = np.isfinite(estimate) & np.isfinite(se) & (se > 0)
    c = np.full(estimate.shape, np.nan)
    if not usable.any():
        return np.stack([estimate, estimate], axis=-1), se, c
    deviation = np.abs(replicates[:, usable] - estimate[usable]) / se[usable]
    c[:] = np.quantile(np.nanmax(deviation, axis=1), level)
    if df is not None:
        from scipy import stats

        tail = stats.norm.sf(c[0])
        finite = usable & np.isfinite(df) & (df > 0)
        c[finite] = stats.t.isf(tail, df[finite])
    half = np.where(usable, c * se, 0.0)
    return np.stack([estimate - half, estimate + half], axis=-1), se, c


def _max_t(observed, null):
    """(usable steps, se, |t| observed at usable steps, max |t| of each relabelling) of a max-T test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(null, axis=0, ddof=1)
    usable = np.isfinite(observed) & np.isfinite(se) & (se > 0)
    if not usable.any():
        return usable, se, np.empty(0), np.empty(0)
    return (usable, se, np.abs(observed[usable]) / se[usable],
            np.nanmax(np.abs(null[:, usable]) / se[usable], axis=1))


def max_t_band(observed, null, alpha):
    """(steps, 2) band observed +- c * se of the max-T test: it excludes 0 at a step where p_adjusted <= alpha.

    se is the null's standard deviation at each step and c the largest of the relabellings' max |t| that
    keeps p <= alpha (the ceil(alpha (B + 1))-th largest), so that |observed| / se > c exactly when
    :func:`max_t_pvalues` gives p <= alpha. The band is infinite when B relabellings cannot reach alpha,
    and NaN where the p-value is (the null has no spread there).
    """
    usable, se, _, t_max = _max_t(observed, null)
    allowed = int(np.floor(alpha * (null.shape[0] + 1.0) - 1.0 + 1e-9))  # relabellings at or above a rejection
    c = np.inf if allowed < 0 or not usable.any() else np.sort(t_max)[::-1][allowed] / (1 - 1e-12)
    half = np.where(usable, c * se, np.nan)
    return np.stack([observed - half, observed + half], axis=-1), c


def max_t_pvalues(observed, null):
    """Single-step max-T adjusted p-values over steps (Westfall and Young 1993).

    ``observed`` (steps,) and ``null`` (B, steps) differences; each step is studentised by the
    null's standard deviation there, and a step's p-value is the share of relabellings whose
    largest |t| over all steps reaches its |t| (with the observed labelling counted).
    """
    usable, se, t_observed, t_max = _max_t(observed, null)
    p = np.full(observed.size, np.nan)
    if not usable.any():
        return p, se
    hits = (t_max[:, None] >= t_observed[None, :] * (1 - 1e-12)).sum(axis=0)
    p[usable] = monte_carlo_pvalue(hits, null.shape[0])
    return p, se
