"""Arrays in, arrays out: the numbers behind rlstats.tuning (no pandas; trusts its input).

A *sweep* is one agent's configurations on one task: ``values`` holds every run's score, configuration after
configuration (oriented so that higher is better), ``starts`` where each configuration's runs begin and ``sizes``
how many it has. Resampling seeds within configurations draws, for every resample and configuration, ``size``
indices uniformly among that configuration's runs (:class:`rlstats.resampling.UniformIndices`, 16 bits a draw,
rows = resamples), so a bootstrap mean is a counts-weighted mean of the configuration's runs; rows are drawn in
chunks and no Python loop runs per resample.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...resampling import UniformIndices, child_stream

#: resamples drawn at once (rows of one chunk); a chunk of 64 configurations x 10 runs is ~5 MB
CHUNK = 2048
#: configurations per block of the best-set search (each block has its own stream)
BLOCK = 64


def config_means(values, starts, sizes):
    return np.add.reduceat(values, starts) / sizes


class SeedResampler:
    """Bootstrap means of a set of configurations of one sweep, rows = resamples, from one stream.

    ``rows(k)`` gives the next k resamples as a (k, G) array; drawing a stream's rows in several calls gives the
    rows of one call, so results do not depend on the chunk size.
    """

    def __init__(self, values, starts, sizes, ids, seed):
        ids = np.asarray(ids, dtype=np.intp)
        self.sizes = sizes[ids].astype(np.float64)
        lengths = sizes[ids]
        self.local_starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.intp)
        # absolute position of each column's configuration start, and each column's bound
        self.offsets = np.repeat(starts[ids], lengths).astype(np.uint32)
        self.values = values
        self.draws = UniformIndices(seed, np.repeat(lengths, lengths), int(lengths.sum()))

    def rows(self, k):
        index = self.draws.rows(k, self.offsets)
        return np.add.reduceat(self.values[index], self.local_starts, axis=1) / self.sizes


def all_resampled_means(values, starts, sizes, seed, n_resamples):
    """(n_resamples, G) bootstrap means of every configuration (one stream for the sweep)."""
    return _block_means(values, starts, sizes, np.arange(sizes.size), seed, n_resamples)


def best_set(values, starts, sizes, seed, n_resamples, prune=True):
    """Each configuration's probability of being the arg-max of the bootstrap means (ties share the credit).

    Returns ``(probability (G,), best_resampled (B,), winner (B,))``: the largest bootstrap mean of each resample and
    the configuration reaching it (the first such in search order). Exact pruning: a bootstrap mean never exceeds
    its configuration's largest run, so once the smallest running maximum over resamples exceeds a configuration's
    largest run it can win no resample. The configurations with the best means come first (block 0), the others by
    their largest run, in blocks of :data:`BLOCK` each drawn from its own stream (``child_stream(seed, block)``).
    """
    means = config_means(values, starts, sizes)
    G = sizes.size
    top = np.argsort(-means, kind="stable")[:BLOCK]
    largest = np.maximum.reduceat(values, starts)
    rest = np.setdiff1d(np.arange(G), top)
    rest = rest[np.argsort(-largest[rest], kind="stable")]
    blocks = [top] + [rest[i:i + BLOCK] for i in range(0, rest.size, BLOCK)]
    running = np.full(n_resamples, -np.inf)
    winner = np.zeros(n_resamples, dtype=np.intp)
    block_maxima = []  # (B,) per block: the block means themselves are drawn again below, not kept
    for b, ids in enumerate(blocks):
        if prune and b > 0 and largest[ids[0]] < running.min():
            break  # blocks after 0 are in decreasing order of their largest run: no later one can win
        block_means = _block_means(values, starts, sizes, ids, child_stream(seed, b), n_resamples)
        at = block_means.argmax(axis=1)
        best = block_means[np.arange(n_resamples), at]
        better = best > running
        winner[better] = ids[at[better]]
        running = np.maximum(running, best)
        block_maxima.append(best)
    # second pass over the blocks holding a resample's maximum: credit every configuration reaching it (ties share)
    reaching = [b for b, best in enumerate(block_maxima) if (best == running).any()]
    hits = {b: _block_means(values, starts, sizes, blocks[b], child_stream(seed, b), n_resamples) == running[:, None]
            for b in reaching}
    ties = sum(hit.sum(axis=1) for hit in hits.values())
    probability = np.zeros(G)
    for b, hit in hits.items():
        probability[blocks[b]] += (hit / ties[:, None]).sum(axis=0)
    return probability / n_resamples, running, winner


def _block_means(values, starts, sizes, ids, seed, n_resamples):
    sampler = SeedResampler(values, starts, sizes, ids, seed)
    out = np.empty((n_resamples, len(ids)))
    for lo in range(0, n_resamples, CHUNK):
        hi = min(lo + CHUNK, n_resamples)
        out[lo:hi] = sampler.rows(hi - lo)
    return out


def tuned_interval(means, sizes, spread, selected, best_resampled, winner, level):
    """The select-then-report interval of the tuned score, from the best-set bootstrap.

    The optimism of reporting the winner's own mean is estimated by bootstrapping the whole procedure: in resample
    b the selection picks ``winner[b]`` and reports ``best_resampled[b]``, which overstates that configuration's
    mean in the data by ``best_resampled[b] - means[winner[b]]``. The estimate is the winner's mean less the mean
    optimism; the interval runs from the winner's mean less the optimism's ``0.5 + level / 2`` quantile less
    Student's t (n - 1 df) times the winner's standard error, to the winner's mean plus that t times standard
    error. Returns ``(corrected, low, high, optimism)`` (NaN bounds with one run).
    """
    from scipy.stats import t as student

    optimism = float(np.mean(best_resampled - means[winner]))
    corrected = means[selected] - optimism
    n = sizes[selected]
    if n < 2:
        return corrected, np.nan, np.nan, optimism
    half = student.ppf(0.5 + level / 2, n - 1) * spread[selected] / math.sqrt(n)
    # the optimism only lowers the lower bound: when the bootstrap overstates it (a skewed winner whose resamples
    # swing widely), moving the upper bound down would miss the truth from above
    # the lower end takes the optimism's upper quantile rather than its mean: the bootstrap world separates the
    # configurations more than the truth does, so the mean optimism understates it where configurations nearly tie
    worst = float(np.quantile(best_resampled - means[winner], 0.5 + level / 2))
    return corrected, means[selected] - worst - half, means[selected] + half, optimism


def expected_max_weights(n, budgets, replace):
    """(K, n) weights w[k, i]: the probability that the i-th smallest of n values is the best of ``budgets[k]`` draws.

    Without replacement (Dodge et al. 2019, with the hypergeometric order statistic): C(i, k - 1) / C(n, k) for the
    i-th smallest counted from 0; with replacement: ((i + 1) / n)^k - (i / n)^k.
    """
    k = np.asarray(budgets, dtype=np.float64)[:, None]
    i = np.arange(n, dtype=np.float64)[None, :]
    if replace:
        return np.exp(k * np.log((i + 1) / n)) - np.where(i > 0, np.exp(k * np.log(np.maximum(i, 1) / n)), 0.0)
    feasible = i >= k - 1
    from scipy.special import gammaln  # here, so that importing rlstats does not import scipy

    log_w = (gammaln(i + 1) - gammaln(k) - gammaln(np.maximum(i - k + 2, 1))
             - (gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)))
    return np.where(feasible, np.exp(np.where(feasible, log_w, 0.0)), 0.0)


def expected_max(means, budgets, replace):
    """Expected best of ``budgets`` configurations drawn from ``means`` (..., n): the order-statistic formula."""
    sorted_means = np.sort(means, axis=-1)
    return sorted_means @ expected_max_weights(sorted_means.shape[-1], budgets, replace).T


def centred_band(point, band, tail):
    """Pointwise percentile band of ``band`` (B, K), shifted so that the resamples' mean sits at ``point``.

    Resampling seeds adds their noise to configuration means that already carry it, so the resampled expected
    maximum is biased upward (at large budgets the whole band can lie above the estimate); the shift removes that
    bias and keeps the band's width. Returns ``(low, high)``.
    """
    shift = band.mean(axis=0) - point
    low, high = np.quantile(band, [tail, 1 - tail], axis=0)
    return low - shift, high - shift


def budget_grid(n, budgets=None):
    """Budgets 1..n, thinned to at most ~200 (all up to 100, then log-spaced) when n is large."""
    if budgets is not None:
        return np.asarray(budgets, dtype=np.intp)
    if n <= 200:
        return np.arange(1, n + 1)
    tail = np.unique(np.geomspace(101, n, 100).round().astype(np.intp))
    return np.concatenate([np.arange(1, 101), tail])


def complete_bootstrap(resampled_means, weights, generator):
    """Two-stage bootstrap of the complete algorithm: configurations resampled (multinomial counts), then seeds.

    ``resampled_means`` (B, G) are the second stage (seeds resampled within each configuration); each resample draws
    G configurations with replacement and weighs their means by ``weights``: sum(c w m) / sum(c w).
    """
    B, G = resampled_means.shape
    counts = generator.multinomial(G, np.full(G, 1.0 / G), size=B) * weights
    total = counts.sum(axis=1)
    total[total == 0] = np.nan  # every drawn configuration had weight 0
    return (counts * resampled_means).sum(axis=1) / total


def percentile_normalise(values, task, n_tasks, percentiles):
    """(y - q_low) / (q_high - q_low) per task, the quantiles of all the task's runs (Adkins et al. 2024)."""
    out = np.empty_like(values)
    low_high = np.empty((n_tasks, 2))
    for t in range(n_tasks):
        here = task == t
        low, high = np.percentile(values[here], percentiles)
        low_high[t] = low, high
        out[here] = (values[here] - low) / (high - low) if high > low else 0.0
    return out, low_high


def sensitivity(gamma, factors, fraction):
    """Hyperparameter sensitivity and effective dimensionality of one agent.

    ``gamma`` (T, C): the normalised mean score of each configuration on each task (configurations present on every
    task); ``factors`` (C, d): each configuration's level code of each hyperparameter.

    * per-task tuned score: mean over tasks of the best configuration of each task;
    * cross-task tuned score: the best configuration's mean over tasks (one configuration for all tasks);
    * sensitivity = per-task tuned - cross-task tuned;
    * for each subset S of the hyperparameters, the score when S is tuned per task and the others are fixed across
      tasks: max over the others' levels of the mean over tasks of the max over S's levels;
    * effective dimensionality: the size of the smallest S whose score reaches ``fraction`` of the per-task tuned
      score (on the normalised scale).

    Returns ``(per_task, cross_task, subsets [(S, score)], dimension)``.
    """
    T, C = gamma.shape
    d = factors.shape[1]
    per_task = float(gamma.max(axis=1).mean())
    cross_task = float(gamma.mean(axis=0).max())
    subsets = []
    for size in range(d + 1):
        for S in itertools.combinations(range(d), size):
            others = [j for j in range(d) if j not in S]
            if others:
                _, group = np.unique(factors[:, others], axis=0, return_inverse=True)
                group = np.asarray(group).ravel()
            else:
                group = np.zeros(C, dtype=np.intp)
            best = np.full((T, group.max() + 1), -np.inf)
            np.maximum.at(best, (slice(None), group), gamma)
            subsets.append((S, float(best.mean(axis=0).max())))
    dimension = min(len(S) for S, score in subsets if score >= fraction * per_task - 1e-12)
    return per_task, cross_task, subsets, dimension
