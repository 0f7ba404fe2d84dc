"""Arrays in, arrays out: the numbers behind rlstats.tuning (no pandas; trusts its input).

A *sweep* is one agent's configurations on one task: ``values`` holds every run's score, configuration after
configuration (oriented so that higher is better), ``starts`` where each configuration's runs begin and ``sizes``
how many it has. Resampling seeds within configurations draws, for every resample and configuration, ``size``
indices uniformly among that configuration's runs (:class:`rlstats.resampling.UniformIndices`, 16 or 32 bits a
draw by its one width rule; rows = resamples), so a bootstrap mean is a counts-weighted mean of the
configuration's runs; rows are drawn in chunks and no Python loop runs per resample. The complete view's
two-stage bootstrap draws its configurations and
then seeds for the drawn configurations only (:meth:`rlstats.resampling.UniformIndices.units`,
:func:`complete_bootstrap`); its default interval reads no resample (:func:`complete_moments`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...resampling import UniformIndices, child_stream, fixed_dot
from ...statistics import grouped_shape_ratios, near_ties, tie_tolerance

#: draws per chunk (rows x columns): a chunk is ~10 MB of int64 indices whatever the number of configurations
CELLS = 2048 * 640
#: configurations per block of the best-set search (each block has its own stream)
BLOCK = 64
#: (budgets x configurations) values per block of :func:`expected_max_moments` (about 1 MB a temporary)
_BUDGET_CELLS = 2 ** 17


def config_means(values, starts, sizes):
    return np.add.reduceat(values, starts) / sizes


#: configurations with at most this many runs draw them two at a time (a table of n * n pair sums each)
PAIRED = 16


def run_tables(values, starts, sizes, ids):
    """The look-up table of :class:`SeedResampler`: ``(table, high, offsets, width)``.

    ``width`` slots per configuration of ``ids``; ``high`` (width, G) is each slot's number of equally likely
    outcomes (n * n pairs, n runs, or 1 for a spare slot) and ``offsets`` (width, G) where its outcomes start in
    ``table``: slot j of configuration g reads ``table[offsets[j, g] + i]`` for its draw i in [0, high[j, g]).
    The table holds, for each number of runs n in turn, the pair sums of the configurations with n runs (pair
    (i, j) at i * n + j) and then their single runs; last, one 0.0 that the spare slots read.
    """
    ids = np.asarray(ids, dtype=np.intp)
    n = sizes[ids]
    pairs = np.where(n <= PAIRED, n // 2, 0)
    slots = n - pairs
    width, G = int(slots.max()), ids.size
    high = np.ones((width, G), dtype=np.int64)
    offsets = np.zeros((width, G), dtype=np.int64)
    tables, used = [], 0
    for m in np.unique(n).tolist():  # one pass per distinct number of runs
        here = np.flatnonzero(n == m)
        runs = values[starts[ids[here]][:, None] + np.arange(m)]
        p = m // 2 if m <= PAIRED else 0
        if p:
            tables.append((runs[:, :, None] + runs[:, None, :]).ravel())  # pair (i, j) at i * m + j
            high[:p, here], offsets[:p, here] = m * m, used + np.arange(here.size) * m * m
            used += here.size * m * m
        if m > 2 * p:
            tables.append(runs.ravel())
            high[p:m - p, here], offsets[p:m - p, here] = m, used + np.arange(here.size) * m
            used += runs.size
    offsets[np.arange(width)[:, None] >= slots[None, :]] = used  # spare slots read the 0.0
    return np.concatenate(tables + [np.zeros(1)]), high, offsets, width


class SeedResampler:
    """Bootstrap means of a set of configurations of one sweep, rows = resamples, from one stream.

    A configuration with at most :data:`PAIRED` runs draws them two at a time: one uniform draw among its n * n
    ordered pairs of runs is two independent uniform draws among its runs, and a table of the pairs' sums turns it
    into their sum with one look-up (half the draws and look-ups); an odd run out, or every run of a larger
    configuration, is drawn alone. A row holds ``width * G`` slots, slot-major: column ``j * G + g`` is slot j of
    configuration g, so that a row's means are a sum of ``width`` contiguous slabs (each mean a function of its own
    draws alone); a configuration with fewer slots than ``width`` fills the rest with a 0.0 (a bound of 1: never
    rejected). ``rows(k)`` gives the next k resamples as a (k, G) array; drawing a stream's rows in several calls
    gives the rows of one call, so results do not depend on the chunk size.
    """

    def __init__(self, values, starts, sizes, ids, seed):
        self.table, high, offsets, self.width = run_tables(values, starts, sizes, ids)
        self.G = high.shape[1]
        self.sizes = sizes[np.asarray(ids, dtype=np.intp)].astype(np.float64)
        # uint32 offsets: UniformIndices adds them in 32 bits (a table of 2**32 entries is out of reach)
        self.offsets = offsets.ravel().astype(np.uint32)
        self.draws = UniformIndices(seed, high.ravel(), self.width * self.G)

    def rows(self, k, live=None):
        """The next k resamples' means, (k, G); with ``live`` (k booleans) only those rows' (the stream still
        advances by k rows, so which rows are computed never changes their values)."""
        index = self.draws.rows(k, self.offsets, live)
        means = self.table[index].reshape(-1, self.width, self.G).sum(axis=1)
        return np.divide(means, self.sizes, out=means)


def resampled_mean_chunks(values, starts, sizes, seed, n_resamples):
    """(n_resamples, G) bootstrap means of every configuration (one stream for the sweep), chunk after chunk (each
    (rows, G), about :data:`CELLS` draws): their concatenation is the one draw of :func:`_block_means` bit for bit,
    while memory stays that of one chunk whatever ``n_resamples``."""
    sampler = SeedResampler(values, starts, sizes, np.arange(sizes.size), seed)
    chunk = max(1, CELLS // (sampler.width * sampler.G))
    for lo in range(0, n_resamples, chunk):
        yield sampler.rows(min(lo + chunk, n_resamples) - lo)


def sweep_tolerance(values):
    """The distance below which runs ``values`` of a sweep, or means of them, tie: ``statistics.tie_tolerance`` of
    their range and largest |run| (so that a map a * y + b of the runs ties the same pairs; audit s20 ties20b)."""
    return float(tie_tolerance(np.ptp(values), np.abs(values).max())) if values.size else 0.0


def best_set(values, starts, sizes, seed, n_resamples, prune=True, with_ties=False):
    """Each configuration's probability of being the arg-max of the bootstrap means (ties share the credit).

    Returns ``(probability (G,), best_resampled (B,), winner (B,))``: the largest bootstrap mean of each resample and
    the configuration reaching it (the first such in search order); ``with_ties=True`` adds ``reached`` (G,), the
    share of resamples in which each configuration is best or tied for best (full credit for a tie), which the best
    set reads: configurations that always tie at a cap would otherwise each get 1 / (the number tied) and drop out.

    Exact pruning: a bootstrap mean never exceeds its configuration's largest run, so a configuration whose largest
    run is below a resample's running maximum by more than the tie tolerance can neither win nor tie that resample.
    The configurations with the best means come first (block 0), the others by their largest run, in blocks of
    :data:`BLOCK` each drawn from its
    own stream (``child_stream(seed, block)``); a block's means are computed only for the resamples it can still
    reach, and the search stops at the first block that reaches none. Ties are kept as they are found (each block's
    (resample, configuration) pairs at the running maximum), so no block is drawn twice. Means within
    the sweep's tie tolerance of each other tie (:func:`sweep_tolerance`: tied runs, such as successes out of 10,
    give equal means that the rounding of their sums would split by an ulp or two, and a shift of the runs must not
    join means that differ), in the search order, the winners and the shared credit alike.
    """
    means = config_means(values, starts, sizes)
    G, B = sizes.size, n_resamples
    tolerance = sweep_tolerance(values)
    top = np.argsort(-near_ties(means, np.zeros(G, dtype=np.intp), [tolerance])[0], kind="stable")[:BLOCK]
    largest = np.maximum.reduceat(values, starts)
    # the bound, loosened by rounding (a sum of n copies of the largest run, over n, can come out a few ulps above it)
    # and by the tolerance, within which a mean below the running best still ties it
    bound = largest + 1e-12 * np.maximum(1.0, np.abs(largest)) + tolerance
    rest = np.setdiff1d(np.arange(G), top)
    rest = rest[np.argsort(-largest[rest], kind="stable")]
    blocks = [top] + [rest[i:i + BLOCK] for i in range(0, rest.size, BLOCK)]
    running = np.full(B, -np.inf)
    winner = np.zeros(B, dtype=np.intp)
    found = []  # (resamples, configurations, values): pairs at the running maximum when their block was drawn
    for b, ids in enumerate(blocks):
        live = None
        if prune and b > 0:
            live = running <= bound[ids[0]]  # blocks after 0 are in decreasing order of their largest run
            if not live.any():
                break  # no later block can win or tie any resample
        block_means = _block_means(values, starts, sizes, ids, child_stream(seed, b), B, live)
        rows = np.arange(B) if live is None else np.flatnonzero(live)
        best = block_means.max(axis=1)
        at = (block_means >= best[:, None] - tolerance).argmax(axis=1)  # the first of the block's tied best
        better = best > running[rows] + tolerance  # beyond a tie with an earlier block's winner
        winner[rows[better]] = ids[at[better]]
        running[rows] = np.maximum(running[rows], best)
        reach = np.flatnonzero(best >= running[rows] - tolerance)
        r, c = np.nonzero(block_means[reach] >= running[rows][reach, None] - tolerance)
        found.append((rows[reach[r]], ids[c], block_means[reach[r], c]))
    rows, configs, reached = (np.concatenate(parts) for parts in zip(*found))
    final = reached >= running[rows] - tolerance  # a later block may have raised the maximum
    rows, configs = rows[final], configs[final]
    ties = np.bincount(rows, minlength=B)
    probability = np.bincount(configs, weights=1.0 / ties[rows], minlength=G)
    if with_ties:
        return probability / B, running, winner, np.bincount(configs, minlength=G) / B
    return probability / B, running, winner


def _block_means(values, starts, sizes, ids, seed, n_resamples, live=None):
    """(n_resamples, len(ids)) bootstrap means, or only the ``live`` rows', drawn in chunks of rows."""
    sampler = SeedResampler(values, starts, sizes, ids, seed)
    chunk = max(1, CELLS // (sampler.width * sampler.G))
    parts = [sampler.rows(min(lo + chunk, n_resamples) - lo, None if live is None else live[lo:lo + chunk])
             for lo in range(0, n_resamples, chunk)]
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def tuned_interval(means, sizes, spread, selected, best_resampled, winner, level, lower="pooled"):
    """The select-then-report interval of the tuned score, from the best-set bootstrap.

    The optimism of reporting the winner's own mean is estimated by bootstrapping the whole procedure: in resample
    b the selection picks ``winner[b]`` and reports ``best_resampled[b]``, which overstates that configuration's
    mean in the data by ``best_resampled[b] - means[winner[b]]``. The estimate is the winner's mean less the mean
    optimism (floored at 0, its least value in expectation); the interval runs from the winner's mean less the
    optimism's ``0.5 + level / 2`` quantile less Student's t (n - 1 df) times the winner's standard error, to the
    winner's mean plus t times the larger of the winner's standard deviation and the sweep's pooled one
    (``spread``'s, weighted by degrees of freedom), over sqrt(n). ``lower="pooled"`` takes that larger spread on
    the lower end too; ``lower="winner"`` (the rule before issue 40) the winner's own. A sweep of one configuration
    selects nothing: its optimism is 0 (the bootstrap's mean deviation there is Monte Carlo noise) and its interval
    Student's t. Returns ``(corrected, low, high, optimism)`` (NaN bounds with one run).

    Ties. ``selected`` is the first configuration with the largest mean (``np.argmax``: configurations in their
    sorted label order). In a resample where several configurations tie for the largest bootstrap mean,
    ``winner[b]`` is the tied one that comes first in :func:`best_set`'s search order: the :data:`BLOCK`
    configurations with the largest means first, by decreasing mean (equal means: label order), then the others by
    decreasing largest run. Whenever one of the tied configurations is among those :data:`BLOCK` (always, with at
    most :data:`BLOCK` configurations), that is the tied configuration with the largest mean in the data, so the
    optimism counted for the resample, ``best_resampled[b]`` less its mean, is the smallest of the tied ones: two
    configurations that always score alike add an optimism of exactly 0, where crediting the worse of them would
    count the gap between their means as optimism. (The probability of being best is shared among tied
    configurations instead; see :func:`best_set`.)
    """
    from scipy.special import stdtrit  # Student's t quantile, without scipy.stats' import time

    single = means.size == 1  # nothing selected, nothing to correct
    # at least 0: each resample's largest mean is at least the selected configuration's, whose mean over resamples is
    # its data mean, the largest, so the bootstrap's optimism is never negative in expectation; a negative average is
    # Monte Carlo noise (one configuration winning every resample gave -0.47 to -1.87 on a real sweep, a "corrected"
    # score above the winner's own mean; audit s11)
    optimism = 0.0 if single else max(0.0, float(np.mean(best_resampled - means[winner])))
    corrected = means[selected] - optimism
    n = sizes[selected]
    if n < 2:
        return corrected, np.nan, np.nan, optimism
    t = stdtrit(n - 1, 0.5 + level / 2)
    half = t * spread[selected] / math.sqrt(n)
    # the optimism only lowers the lower bound: when the bootstrap overstates it (a skewed winner whose resamples
    # swing widely), moving the upper bound down would miss the truth from above
    # the lower end takes the optimism's upper quantile rather than its mean: the bootstrap world separates the
    # configurations more than the truth does, so the mean optimism understates it where configurations nearly tie
    worst = 0.0 if single else float(np.quantile(best_resampled - means[winner], 0.5 + level / 2))
    # the upper end uses the sweep's pooled spread when it is larger: a few seeds of skewed scores often miss the rare
    # high ones, so the winner's own spread understates it and its true mean lies above its t interval (every miss
    # of the calibration grid's skewed landscape was from above; 0.83-0.92 coverage with the winner's spread alone)
    pooled = pooled_sd(sizes, spread)
    upper = t * max(spread[selected], pooled) / math.sqrt(n)
    # and so does the lower end, by default: at a score ceiling the winner's few seeds often all sit at it (spread 0),
    # and its true mean lies below the winner's interval (0.84-0.92 coverage at 3 seeds of capped scores)
    if lower == "pooled":
        half = upper
    return corrected, means[selected] - worst - half, means[selected] + upper, optimism


def pooled_sd(sizes, spread):
    """The sweep's pooled standard deviation: the configurations' variances weighted by their degrees of freedom
    (n - 1), the spread the tuned-score interval takes where it is larger than the winner's own."""
    df = np.maximum(sizes - 1, 0)
    return math.sqrt(np.nansum(df * spread ** 2) / df.sum())


def expected_max_weights(n, budgets, replace):
    """(K, n) weights w[k, i]: the probability that the i-th smallest of n values is the best of ``budgets[k]`` draws.

    Without replacement (Dodge et al. 2019, with the hypergeometric order statistic): C(i, k - 1) / C(n, k) for the
    i-th smallest counted from 0; with replacement: ((i + 1) / n)^k - (i / n)^k.
    """
    k = np.asarray(budgets, dtype=np.float64)[:, None]
    i = np.arange(n, dtype=np.float64)[None, :]
    if replace:
        # ((i + 1) / n)^k, and (i / n)^k is the same array one column on (the same operations on the same values)
        upper = np.exp(k * np.log((i + 1) / n))
        out = upper.copy()
        out[:, 1:] -= upper[:, :-1]
        return out
    feasible = i >= k - 1
    from scipy.special import gammaln  # here, so that importing rlstats does not import scipy

    # log Gamma at the integers 0..n + 1 once, then looked up: the values of gammaln at each (K, n) argument
    table = gammaln(np.arange(n + 2, dtype=np.float64))
    log_w = (table[1:n + 1][None, :] - gammaln(k) - table[np.maximum(i - k + 2, 1).astype(np.intp)]
             - (gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)))
    return np.where(feasible, np.exp(np.where(feasible, log_w, 0.0)), 0.0)


def expected_max(means, budgets, replace):
    """Expected best of ``budgets`` configurations drawn from ``means`` (..., n): the order-statistic formula."""
    return weighted_order_sums(np.sort(means, axis=-1), expected_max_weights(np.shape(means)[-1], budgets, replace))


def weighted_order_sums(ordered, weights):
    """``ordered @ weights.T`` for sorted values (..., n) and weights (K, n), each value one fixed-order dot.

    A matrix product rounds otherwise with BLAS's thread count, and Dask or joblib workers run one thread, so
    the band would differ in its last bits from the caller's (measured at 3,000 configurations; issue 43 item 3).
    """
    return fixed_dot(ordered[..., None, :], weights)


def centred_band(point, band, tail):
    """Pointwise percentile band of ``band`` (B, K), shifted so that the resamples' mean sits at ``point``.

    Resampling seeds adds their noise to configuration means that already carry it, so the resampled expected
    maximum is biased upward (at large budgets the whole band can lie above the estimate); the shift removes that
    bias and keeps the band's width. Returns ``(low, high)``.
    """
    shift = band.mean(axis=0) - point
    low, high = np.quantile(band, [tail, 1 - tail], axis=0)
    return low - shift, high - shift


def moment_unit(values):
    """A power of two near the spread of ``values`` (1.0 if they do not spread): the unit in which
    :func:`expected_max_moments` forms its moments. Scores far from 1 (e.g. x 1e-150) would otherwise underflow in
    their squares, cubes and fourth powers; a power of two divides exactly, so nothing changes for ordinary scores'
    rounding beyond the unit itself."""
    finite = values[np.isfinite(values)]
    spread = float(np.ptp(finite)) if finite.size else 0.0
    return float(2.0 ** np.frexp(spread)[1]) if spread > 0 and np.isfinite(spread) else 1.0


def expected_max_moments(values, starts, sizes, budgets, replace, unit=1.0, kurtosis=True):
    """The expected maximum at ``budgets`` and the moments of its estimate, for :func:`skew_t_band`.

    The estimate sum_i w_ki m_(i) is linear in the configurations' means at their observed ranks, with weight a_kc
    for configuration c (its rank's w). Its variance is sum_c a_kc^2 v_c / n_c, with v_c each configuration's
    variance floored at its shrinkage towards the sweep's pooled variance ((n_c - 1) s_c^2 + s_pooled^2) / n_c:
    a configuration whose few seeds happen to agree (or all sit at a score ceiling) would otherwise claim a
    precision no other configuration shows. Its third cumulant is sum_c a_kc^3 g v_c^1.5 / n_c^2, with g the
    sweep's pooled standardised third cumulant (the mean of the configurations' unbiased k3 over the pooled
    variance^1.5; 0 where no configuration has 3 seeds). Returns ``(point, variance, variance_sq_df, third)``, each (K,):
    ``variance_sq_df`` = sum_c (a_kc^2 v_c / n_c)^2 / df_c, the Welch-Satterthwaite denominator, with
    1 / df_c = 1 / (n_c - 1) + kappa / (2 n_c): a variance estimate from runs of excess kurtosis kappa varies by
    Var(s^2) / sigma^4 = 2 / (n - 1) + kappa / n, so heavy tails leave fewer degrees of freedom than the normal's
    n - 1. kappa is the sweep's excess kurtosis, :func:`sweep_excess_kurtosis` (never below 0, so the band is never
    narrower than the normal-theory one). ``kurtosis=False`` keeps n_c - 1 (the band before, bit for bit).
    ``point`` is in the scores' units; the three moments are in ``unit`` (see :func:`moment_unit`), so that they
    neither underflow nor overflow: pass the same ``unit`` to :func:`skew_t_band`.
    """
    means = config_means(values, starts, sizes)
    n = sizes.astype(np.float64)
    residual = (values - np.repeat(means, sizes)) / unit
    df = np.maximum(n - 1, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        s2 = np.where(n > 1, np.add.reduceat(residual ** 2, starts) / np.maximum(df, 1), np.nan)
        pooled = float(np.nansum(df * s2) / df.sum()) if df.sum() > 0 else 0.0
        v = np.where(n > 1, np.maximum(s2, (df * s2 + pooled) / n), pooled)
        k3 = np.add.reduceat(residual ** 3, starts) * n / (np.maximum(df, 1) * np.maximum(n - 2, 1))
        # the mean k3 over the pooled variance^1.5, not the mean G1 (statistics.shape_ratios) the bootstrap pools:
        # dividing by each configuration's own s^3 would shrink g, since the configuration whose few seeds caught a
        # rare high run has both its k3 and its s large
        third_ok = n > 2
        g = float(np.mean(k3[third_ok]) / pooled ** 1.5) if third_ok.any() and pooled > 0 else 0.0
        kappa = _excess_kurtosis(residual, starts, n) if kurtosis else 0.0
    # the configurations' ranks: means within the sweep's tie tolerance tie, in the configurations' order, as in
    # best_set (audit s36 meta36: two means tied exactly, untied by the rounding of the runs x 7.3, swapped their
    # ranks' weights and moved the band's lower end by up to 112% of the estimate's unit change)
    order = np.argsort(near_ties(means, np.zeros(means.size, dtype=np.intp), [sweep_tolerance(values)])[0],
                       kind="stable")
    weights = expected_max_weights(means.size, budgets, replace)  # (K, G): computed once, the costly part
    point = np.sort(means) @ weights.T
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)  # a[k, c] = weights[k, rank[c]]: configuration c's weight
    # 1 / df_c: the normal's 1 / (n_c - 1), plus the share of a variance estimate's noise that heavy tails add
    inverse_df = 1 / np.maximum(df, 1) + kappa / (2 * n) if kurtosis else None
    floor_df, v_three_halves = np.maximum(df, 1), v ** 1.5
    n_squared = n ** 2
    variance, sq_df, third = (np.empty(len(budgets)) for _ in range(3))
    # a few budgets at a time, so that the (budgets, G) temporaries stay in cache; each value and each row's sum
    # is the one of the whole array's operations, bit for bit
    step = max(1, _BUDGET_CELLS // max(means.size, 1))
    for lo in range(0, len(budgets), step):
        rows = slice(lo, lo + step)
        a = np.take(weights[rows], rank, axis=1)
        u = a ** 2
        u *= v
        u /= n
        variance[rows] = u.sum(axis=1)
        u *= u
        if inverse_df is None:
            u /= floor_df
        else:
            u *= inverse_df
        sq_df[rows] = u.sum(axis=1)
        # a^3 is |a|^3 sign(a) bit for bit (IEEE cubing is odd), without two more passes
        a **= 3
        a *= v_three_halves
        a /= n_squared
        third[rows] = a.sum(axis=1)
    return point, variance, sq_df, g * third


def sweep_excess_kurtosis(values, starts, sizes, unit=1.0):
    """The excess kurtosis that :func:`expected_max_moments` counts in the band's degrees of freedom: the mean, over
    the configurations with at least 4 runs, of each one's unbiased k-statistic ratio k4 / k2^2 (0 for a
    configuration whose runs do not spread), floored at 0 (0 where none has 4 runs). ``unit`` as there (the ratio
    is unit-free; the unit keeps fourth powers from underflowing).

    Each configuration's own ratio rather than the mean k4 over the pooled variance^2: one configuration whose few
    seeds caught an extreme run has a k4 that swamps the pooled variance^2 (kappa in the tens, bands 1.4-2x as
    wide, coverage 0.97-0.99 on the calibration grid), while its own ratio is bounded by its own spread. The mean
    is floored, not each ratio: flooring each would count normal runs' sampling noise as kurtosis (bands 1.08-1.15x
    as wide at 5 normal seeds and large budgets, against 1.01-1.05x).
    """
    n = sizes.astype(np.float64)
    residual = (values - np.repeat(config_means(values, starts, sizes), sizes)) / unit
    return _excess_kurtosis(residual, starts, n)


def _excess_kurtosis(residual, starts, n):
    """:func:`sweep_excess_kurtosis` from the runs' deviations from their configuration's mean: k2 = n m2 / (n - 1),
    k4 = n^2 ((n + 1) m4 - 3 (n - 1) m2^2) / ((n - 1)(n - 2)(n - 3)), m_r the r-th central moment."""
    ok = n > 3
    if not ok.any():
        return 0.0
    ratio = grouped_shape_ratios(residual, starts, n, skewness=False)[1]  # each configuration's G2 = k4 / k2^2
    return max(0.0, float(np.mean(ratio[ok])))


def skew_t_band(point, variance, variance_sq_df, third, level, unit=1.0):
    """Student's t band with Welch-Satterthwaite degrees of freedom and a skewness correction: ``(low, high)``.

    For a studentised linear statistic with skewness gamma = third / variance^1.5, the Edgeworth expansion puts its
    quantiles at t -/+ c with c = gamma (2 z^2 + 1) / 6 (z the normal quantile; Hall 1992, Section 3.5): the side
    the skew points to is widened by se |c| (a right-skewed score, rare high runs that few seeds miss, puts the truth
    above a symmetric band), the other side keeps Student's t. The correction is first order, so it is kept within
    t / 2. The moments are in ``unit`` (that of :func:`expected_max_moments`); the band is in the scores' units.
    """
    from scipy.special import ndtri, stdtrit  # here, so that importing rlstats does not import scipy

    q = 0.5 + level / 2
    se = np.sqrt(variance) * unit
    with np.errstate(invalid="ignore", divide="ignore"):
        nu = np.where(variance_sq_df > 0, variance ** 2 / variance_sq_df, np.inf)
        t = np.where(np.isfinite(nu), stdtrit(np.maximum(nu, 1.0), q), ndtri(q))
        gamma = np.where(variance > 0, third / variance ** 1.5, 0.0)
    z = float(ndtri(q))
    # statistics.cornish_fisher_shift's term rounded in this order: through it, 649 of 9,000 random bands changed bits
    c = np.minimum(np.abs(gamma) * (2 * z * z + 1) / 6, t / 2)
    # the correction only widens the side the skew points to: a heavy-tailed symmetric score gives a noisy third
    # cumulant, and narrowing the other side on that noise cost up to 0.05 coverage at 10-20 seeds
    return point - se * (t + np.where(gamma < 0, c, 0.0)), point + se * (t + np.where(gamma > 0, c, 0.0))


def budget_grid(n, budgets=None):
    """Budgets 1..n, thinned to at most ~200 (all up to 100, then log-spaced) when n is large."""
    if budgets is not None:
        return np.asarray(budgets, dtype=np.intp)
    if n <= 200:
        return np.arange(1, n + 1)
    tail = np.unique(np.geomspace(101, n, 100).round().astype(np.intp))
    return np.concatenate([np.arange(1, 101), tail])


def configuration_counts(picks, k):
    """The next k resamples' configuration counts, ``(G * k,)`` laid out configuration-major (the count of
    configuration g in resample r at ``g * k + r``): each resample's G indices from ``picks`` (a
    :class:`rlstats.resampling.UniformIndices` of G columns of bound G, read as units of one column), counted."""
    G = picks.n
    index = picks.units(k)[0].reshape(k, G)  # uint32 at 16 bits a lane, int64 at 32
    # the positions in place at 32 bits; from 16-bit lanes' uint32 in the same pass as their conversion
    position = np.multiply(index, k, out=index) if index.dtype == np.intp else np.multiply(index, k, dtype=np.intp)
    position += np.arange(k)[:, None]
    return np.bincount(position.ravel(), minlength=G * k)


def complete_bootstrap(values, starts, sizes, weights, widen, seed, n_resamples):
    """Two-stage bootstrap of the complete algorithm, ``(n_resamples,)``: configurations, then seeds within them.

    Resample b draws G configurations uniformly with replacement, configuration g c_bg times, and one seed
    resample of each drawn configuration (its ``sizes[g]`` runs drawn uniformly with replacement, two at a time as
    in :class:`SeedResampler`; mean m*_bg, its deviation from the configuration's mean widened by ``widen[g]``);
    a configuration drawn several times enters with that one seed resample, c_bg times. The statistic is
    sum_g c_bg w_g m*_bg / sum_g c_bg w_g (NaN when every drawn configuration has weight 0).

    The counts are drawn as G configuration indices a resample, uniform on [0, G)
    (:class:`rlstats.resampling.UniformIndices` on ``child_stream(seed, 1)``), and counted: the G indices are
    independent and each exactly uniform, so each of the G^G sequences has probability G^-G, and the counts c are
    those of G! / prod_g c_g! sequences, which is the multinomial(G; 1/G, ..., 1/G) probability of c: the counts
    are exactly multinomial. A configuration drawn 0 times (about 37% of them) weighs 0 in the statistic, so its
    seed resample is not computed: the seeds of configuration g in resample b are unit (b, g) of
    :meth:`rlstats.resampling.UniformIndices.units` on ``child_stream(seed, 2)`` (a row is G units of ``width``
    slots), whose stream advances alike whichever units are read, so the units read have the law and independence
    of a draw of every unit. A chunk's units are taken configuration after configuration (then by resample), so that
    the table look-ups of one configuration's resamples are adjacent in memory; each resample's sums add its
    configurations in their order whatever the chunk. Rows are drawn in chunks of about :data:`CELLS` lanes, with
    no Python loop per resample; the result does not depend on the chunk size.
    """
    G = sizes.size
    table, high, offsets, width = run_tables(values, starts, sizes, np.arange(G))
    picks = UniformIndices(child_stream(seed, 1), G, G)
    seeds = UniformIndices(child_stream(seed, 2), high.T.ravel(), G * width, width=width)
    means = config_means(values, starts, sizes)
    # m*_bg w_g = A_g (sum of the drawn runs) + B_g: the resampled mean, its deviation widened, weighted
    even = bool((weights == weights[0]).all())  # equal weights: the statistic is sum_g c_bg m*_bg / G
    w = np.ones(G) if even else weights
    a, b = w * widen / sizes, w * means * (1 - widen)
    drawn = w > 0
    out = np.empty(n_resamples)
    chunk = max(1, CELLS // (width * G))
    for lo in range(0, n_resamples, chunk):
        k = min(lo + chunk, n_resamples) - lo
        counts = configuration_counts(picks, k)
        live = counts > 0
        if not drawn.all():
            live &= np.repeat(drawn, k)
        at = np.flatnonzero(live)
        per = live.reshape(G, k).sum(axis=1)  # the units of each configuration, adjacent
        g = np.repeat(np.arange(G), per)
        row = at - g * k
        index = np.repeat(offsets, per, axis=1)  # (width, units): where each slot's outcomes start
        index += seeds.units(k, row * G + g)
        sums = np.add.reduce(np.take(table, index), axis=0)  # slot after slot
        c = counts[at].astype(np.float64)
        total = G if even else np.bincount(row, weights=c * w[g], minlength=k)
        c *= np.repeat(a, per) * sums + np.repeat(b, per)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[lo:lo + k] = np.bincount(row, weights=c, minlength=k) / np.where(total > 0, total, np.nan)
    return out


def _kish(p):
    """Kish's effective number of configurations of shares ``p`` (summing to 1): 1 / sum_g p_g^2."""
    return 1.0 / float(p @ p)


def effective_configurations(weights):
    """:func:`_kish` of ``weights``, floored (G with equal weights; 1 when every weight is 0, which the caller
    refuses)."""
    total = float(np.sum(weights))
    if total <= 0:
        return 1
    return int(math.floor(_kish(np.asarray(weights, dtype=np.float64) / total) + 1e-9))


def complete_moments(means, weights):
    """The complete algorithm's estimate and the moments of its sampling law over configurations, for
    :func:`skew_t_band`: ``(point, variance, variance_sq_df, third)``.

    The sweep's G configurations are a sample from the hyperparameter distribution and each configuration's mean
    ``means[g]`` already carries its seeds' noise, so the estimate theta^ = sum_g p_g m_g (p = weights / sum) is a
    mean of G independent terms, and its variance is estimated from the spread of the m_g alone: with
    e_g = p_g (m_g - theta^), variance = G / (G - 1) sum_g e_g^2 (s^2 / G with equal weights: unbiased for
    (between-configuration variance + seed variance / n) / G) and third cumulant G^2 / ((G - 1)(G - 2)) sum_g e_g^3
    (k3 / G^2 with equal weights; 0 below 3 configurations). The degrees of freedom are the effective number of
    configurations less one, 1 / sum p_g^2 - 1 (G - 1 with equal weights). Resampling seeds again inside resampled
    configurations would count the seed noise twice. NaN variance with one configuration of positive weight.
    """
    G = means.size
    p = weights / weights.sum()
    point = float(p @ means)
    e = p * (means - point)
    effective = _kish(p)
    if G < 2 or effective <= 1.0 + 1e-12:
        return np.float64(point), np.float64(np.nan), np.float64(np.nan), np.float64(0.0)
    variance = np.float64(G / (G - 1) * float(e @ e))  # numpy scalars: skew_t_band divides by them
    third = np.float64(G * G / ((G - 1) * (G - 2)) * float(np.sum(e ** 3)) if G > 2 else 0.0)
    return np.float64(point), variance, variance ** 2 / np.float64(effective - 1.0), third


def percentile_normalise(values, task, n_tasks, percentiles):
    """(y - q_low) / (q_high - q_low) per task, the quantiles of all the task's runs (Adkins et al. 2024).

    Where a task's two percentiles coincide (most runs at a cap) its smallest and largest run serve instead, so that
    the runs beyond them still count; where those coincide too, the task's runs all tie and map to 0. Returns
    ``(normalised, ranged, tied)``: the tasks read by their range, and those whose runs all tie.
    """
    out = np.empty_like(values)
    ranged, tied = [], []
    for t in range(n_tasks):
        here = task == t
        low, high = np.percentile(values[here], percentiles)
        if not high > low:
            low, high = values[here].min(), values[here].max()
            (ranged if high > low else tied).append(t)
        out[here] = (values[here] - low) / (high - low) if high > low else 0.0
    return out, ranged, tied


def sensitivity(gamma, factors, fraction, task_best=None):
    """Hyperparameter sensitivity and effective dimensionality of one agent, as Adkins et al. (2024) define them
    (and as their code, jadkins99/hyperparameter_sensitivity, computes them).

    ``gamma`` (T, C): the normalised mean score of each configuration on each task (configurations present on every
    task); ``factors`` (C, d): each configuration's level code of each hyperparameter; ``task_best`` (T,): each
    task's best normalised score over every configuration run there, those missing elsewhere included (default:
    over ``gamma``'s).

    * per-task tuned score: mean over tasks of each task's best configuration;
    * cross-task tuned score: the best configuration's mean over tasks (one configuration for all tasks, the
      "default");
    * sensitivity = per-task tuned - cross-task tuned;
    * for each subset S of the hyperparameters, the score when S is tuned per task and the others stay at the
      default's levels: the mean over tasks of the best configuration that agrees with the default outside S
      (all of S: the per-task tuned score; none: the cross-task one);
    * effective dimensionality: the size of the smallest S whose score reaches ``fraction`` of the per-task tuned
      score (on the normalised scale).

    Returns ``(per_task, cross_task, subsets [(S, score)], dimension)``.
    """
    d = factors.shape[1]
    task_best = gamma.max(axis=1) if task_best is None else np.asarray(task_best, dtype=float)
    per_task = float(task_best.mean())
    across = gamma.mean(axis=0)
    default = int(np.argmax(across))
    cross_task = float(across[default])
    subsets = []
    for size in range(d + 1):
        for S in itertools.combinations(range(d), size):
            if size == d:
                subsets.append((S, per_task))
                continue
            others = [j for j in range(d) if j not in S]
            agree = (factors[:, others] == factors[default, others]).all(axis=1)
            subsets.append((S, float(gamma[:, agree].max(axis=1).mean())))
    # rounding slack relative to the scores' scale: with percentiles=None they are in the caller's units
    slack = 1e-12 * float(max(np.abs(gamma).max(), np.abs(task_best).max()))
    dimension = min(len(S) for S, score in subsets if score >= fraction * per_task - slack)
    return per_task, cross_task, subsets, dimension
