"""Numerical kernels of the blocked rank tests (Skillings–Mack 1981, Mack–Skillings 1980).

Pure numpy, array in and array out: the caller hands over the validated design
(responses ``y``, agent codes ``agent`` in 0..k-1, task codes ``task`` in
0..n-1, every task holding at least two agents) and gets numbers back.  Nothing
here knows about formulas or DataFrames.

One formula covers both statistics.  Within task i, let ``q_i`` be the number of
runs, ``c_ij`` the runs of agent j, ``r`` the mid-rank of a run among the task's
``q_i`` runs and ``w_i`` a task weight.  Then

    d_j = sum over runs of agent j of w_i (r - (q_i + 1) / 2),
    Cov0(d) = sum_i w_i**2 (q_i + 1) / 12 * (diag(q_i c_i) - c_i c_i'),
    T = d' Cov0^+ d,   df = rank(Cov0).

``variant="skillings_mack"`` (Skillings & Mack 1981, cells with at most one
run): ``w_i = sqrt(12 / (k_i + 1))`` with ``k_i`` the agents present; a missing
cell is given the centre rank and contributes 0.  ``variant="mack_skillings"``
(Mack & Skillings 1980, all runs of a task ranked jointly): ``w_i = 1 / q_i``.
The covariance has negative off-diagonal terms (the erratum to eq. 2.17 of the
thesis, spec pitfall P2).

Ranks are handled as doubled mid-ranks, which are integers, so ties are exact
and the permutation engine can pack them into sort keys.

References
----------
Skillings, J. H. and Mack, G. A. (1981). On the use of a Friedman-type statistic
in balanced and unbalanced block designs. Technometrics 23(2), 171-177.
Mack, G. A. and Skillings, J. H. (1980). A Friedman-type rank test for main
effects in a two-factor ANOVA. JASA 75(372), 947-951.
Hollander, M., Wolfe, D. A. and Chicken, E. (2014). Nonparametric Statistical
Methods, 3rd ed., Chapter 7 (Mack–Skillings and Skillings–Mack tests).
rlstats spec ``skillings_mack.md`` Sections 1-2 (the algorithms used here).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from ...connectivity import components
from ...errors import DesignError, OptionError
from ...format import count, plural, singular
from ...statistics import (P_ADJUST, chi2_sf, difference_ties, difference_tolerance, doubled_midranks,
                           monte_carlo_pvalue, monte_carlo_se, near_ties, noise_free, normal_sf,
                           studentized_range_isf,
                           studentized_range_sf, wilcoxon_signed_rank)
from ...resampling import block_layout, chunk_generators, group_streams, parallel_map, permute_blocks

VARIANTS = ("skillings_mack", "mack_skillings")
ADJUSTMENTS = ("auto", "tukey", "holm", "bonferroni", "hochberg", "hommel", "bh", "by", "none")

# Resamples drawn from one spawned generator; fixed so that results never
# depend on how many resamples are processed together.
_RNG_BLOCK = 100
# Elements (resamples x runs) processed at once by the Monte Carlo loop: 1 MB of sort keys stays in
# cache through the fill, pack, sort and sums (2**23 took 45% longer on Atari) and bounds memory.
_ELEMENT_BUDGET = 2**17
# Exact enumeration: largest number of arrangements per block and in total.
_ENUMERATION_LIMIT = 200_000
# Exact convolution (k = 2): largest lattice and largest dynamic-programme work.
_LATTICE_LIMIT = 5_000_000
_DP_WORK_LIMIT = 500_000_000


def _relative_tol(t):
    """Tolerance used whenever statistics are compared: 1e-9 * max(1, |t|)."""
    return 1e-9 * np.maximum(1.0, np.abs(t))


# --------------------------------------------------------------------------- setup


@dataclass(frozen=True)
class BlockedRankSetup:
    """Everything the statistic needs for any arrangement of ranks of one design.

    Attributes
    ----------
    variant : str
        ``"skillings_mack"`` (1981, cell level) or ``"mack_skillings"`` (1980, run level).
    k, n : int
        Numbers of agents and of blocks (tasks).
    agent, block : ndarray of intp, shape (N,)
        Codes of each run, in the caller's row order.
    ranks2 : ndarray of int64, shape (N,)
        Twice the observed within-block mid-ranks (ascending in y).
    weight : ndarray, shape (N,)
        Block weight of each run: sqrt(12 / (k_i + 1)) or 1 / q_i.
    centre : ndarray, shape (N,)
        Null mean (q_i + 1) / 2 of each run's rank.
    counts : ndarray of int, shape (n, k)
        Runs per cell c_ij.
    block_size : ndarray of int, shape (n,)
        q_i, the runs per block.
    agents_present : ndarray of int, shape (n,)
        k_i, the agents with at least one run in the block.
    tie_sum : ndarray, shape (n,)
        sum over tie groups of t**3 - t in each block.
    tie_correction : bool
        Whether ``cov`` is scaled per block by 1 - tie_sum / (q_i**3 - q_i).
    expected : ndarray, shape (k,)
        Null expectation of the weighted rank sums sum w r per agent.
    cov, cov_pinv : ndarray, shape (k, k)
        Null covariance of the centred sums and its Moore–Penrose inverse.
    df : int
        Rank of ``cov``.
    connected : bool
        ``df == k - 1``.
    """

    variant: str
    k: int
    n: int
    agent: np.ndarray
    block: np.ndarray
    ranks2: np.ndarray
    weight: np.ndarray
    centre: np.ndarray
    counts: np.ndarray
    block_size: np.ndarray
    agents_present: np.ndarray
    tie_sum: np.ndarray
    tie_correction: bool
    expected: np.ndarray
    cov: np.ndarray
    cov_pinv: np.ndarray
    df: int
    connected: bool

    @property
    def ranks(self):
        """Observed within-block mid-ranks (float, ascending in y)."""
        return self.ranks2 / 2.0

    @property
    def has_ties(self):
        """Whether any block contains tied responses."""
        return bool(np.any(self.tie_sum > 0))

    @property
    def all_tied(self):
        """Whether every block ties all its runs: no relabelling changes any rank, so the exact p-value is 1."""
        return bool(np.all(self.tie_sum == self.block_size.astype(float) ** 3 - self.block_size))

    @property
    def balanced(self):
        """Whether every cell holds the same number c >= 1 of runs."""
        return bool(np.all(self.counts == self.counts[0, 0]) and self.counts[0, 0] >= 1)


def build_setup(y, agent, task, k, n, *, variant, tie_correction=False):
    """Build the :class:`BlockedRankSetup` of a design.

    Parameters
    ----------
    y : array_like of float, shape (N,)
        Responses (finite).
    agent, task : array_like of int, shape (N,)
        Codes 0..k-1 and 0..n-1; every task holds at least two agents.
    k, n : int
        Numbers of agents and tasks.
    variant : {"skillings_mack", "mack_skillings"}
        Skillings–Mack (1981) needs at most one run per cell; Mack–Skillings
        (1980) ranks every run of a task jointly.
    tie_correction : bool, default False
        Scale each block's covariance by 1 - sum(t**3 - t) / (q_i**3 - q_i).
        On complete unreplicated designs this gives R's ``friedman.test``.

    Returns
    -------
    BlockedRankSetup

    Raises
    ------
    OptionError
        Unknown ``variant``.
    DesignError
        ``variant="skillings_mack"`` with a cell holding several runs.

    References
    ----------
    Skillings & Mack (1981) and spec Section 1 (cell level); Mack & Skillings
    (1980), thesis eqs. 2.13-2.18 with the sign of eq. 2.17 corrected, and
    spec Section 2 (run level).
    """
    agent = np.asarray(agent, dtype=np.intp)
    task = np.asarray(task, dtype=np.intp)
    counts = np.bincount(task * k + agent, minlength=n * k).reshape(n, k)
    if variant == "skillings_mack" and counts.max() > 1:
        raise DesignError(
            "the Skillings-Mack (1981) statistic needs at most one run per agent and task, "
            f"but a cell holds {counts.max()} runs; use variant='mack_skillings' or aggregate the runs"
        )
    ranks2, tie_sum = doubled_midranks(y, task, n)
    q = counts.sum(axis=1)
    k_i = (counts > 0).sum(axis=1)
    w_block = _block_weights(counts, variant)
    tie_factor = 1.0 - tie_sum / (q**3 - q) if tie_correction else np.ones(n)
    centre_block = (q + 1) / 2.0
    expected = (counts * (w_block * centre_block)[:, None]).sum(axis=0)
    block_scale = w_block**2 * (q + 1) / 12.0 * tie_factor
    cov = _null_covariance(counts, q, block_scale)
    df = k - _agent_groups(counts[block_scale > 0])
    return BlockedRankSetup(
        variant=variant, k=k, n=n, agent=agent, block=task, ranks2=ranks2,
        weight=w_block[task], centre=centre_block[task], counts=counts, block_size=q,
        agents_present=k_i, tie_sum=tie_sum, tie_correction=bool(tie_correction),
        expected=expected, cov=cov, cov_pinv=_pseudo_inverse(cov, df), df=df, connected=df == k - 1,
    )


def _block_weights(counts, variant):
    """Each block's weight, from its runs per agent: sqrt(12 / (k_i + 1)) (Skillings-Mack) or 1 / q_i."""
    if variant == "skillings_mack":
        return np.sqrt(12.0 / ((counts > 0).sum(axis=1) + 1))
    return 1.0 / counts.sum(axis=1)


def _agent_groups(counts):
    """Number of groups of agents linked through shared informative blocks (graph components).

    The null covariance is a sum of block Laplacian-like terms, so its rank is
    exactly k minus this number; counting it on the graph avoids the
    floating-point rank decision of ``matrix_rank`` (which can count a 5e-16
    eigenvalue as real and report df = 2 for two agents).
    """
    groups = components(counts > 0)  # the package's one home of the agent graph (rlstats.connectivity)
    return int(groups.max()) + 1 if groups.size else 0


def _pseudo_inverse(cov, df):
    """Moore-Penrose inverse of the symmetric PSD ``cov`` keeping its ``df`` largest eigenvalues."""
    values, vectors = np.linalg.eigh(cov)
    keep = np.argsort(values)[::-1][:df]
    kept = vectors[:, keep]
    return (kept / values[keep]) @ kept.T


def _null_covariance(counts, q, scale):
    """sum_i scale_i (diag(q_i c_i) - c_i c_i') (sampling without replacement in each block)."""
    c = counts.astype(np.float64)
    return np.diag((scale * q) @ c) - (c * scale[:, None]).T @ c


# --------------------------------------------------------------------------- statistic


def centred_sums(setup, ranks):
    """Centred weighted rank sums d_j = sum w (r - (q_i + 1) / 2) per agent.

    Parameters
    ----------
    setup : BlockedRankSetup
    ranks : array_like, shape (..., N)
        Within-block ranks of the runs in the setup's row order.

    Returns
    -------
    ndarray, shape (..., k)
        For ``variant="skillings_mack"`` these are the adjusted treatment sums
        A_j of Skillings & Mack (1981) (spec Section 1, step 5).
    """
    centred = np.asarray(ranks, dtype=np.float64) - setup.centre
    if centred.ndim == 1:
        # One arrangement (the observed one): no (N, k) matrix, which is 48 MB at a million runs.
        return np.bincount(setup.agent, weights=centred * setup.weight, minlength=setup.k)
    onehot = np.zeros((setup.agent.size, setup.k))
    onehot[np.arange(setup.agent.size), setup.agent] = setup.weight
    return centred @ onehot


def quadratic_form(setup, d):
    """T = d' Cov0^+ d along the last axis of ``d`` (shape (..., k))."""
    return np.einsum("...j,jl,...l->...", d, setup.cov_pinv, d)


def statistic(setup, ranks):
    """The statistic T for any arrangement of ranks, vectorised over leading axes.

    Parameters
    ----------
    setup : BlockedRankSetup
    ranks : array_like, shape (..., N)

    Returns
    -------
    ndarray, shape (...)
    """
    return quadratic_form(setup, centred_sums(setup, ranks))


def observed_statistic(setup):
    """T on the observed mid-ranks."""
    return float(statistic(setup, setup.ranks))


def asymptotic_pvalue(setup, t):
    """P(chi2_df >= t) with df = rank of the covariance (1.0 when df = 0)."""
    return float(chi2_sf(t, setup.df)) if setup.df > 0 else 1.0


# --------------------------------------------------------------------------- Monte Carlo


@dataclass(frozen=True)
class MonteCarloResult:
    """Permutation p-value by Monte Carlo.

    Attributes
    ----------
    statistic : float
        Observed T.
    pvalue : float
        (1 + hits) / (B + 1).
    pvalue_reference : float
        hits / B, the convention of R's Skillings.Mack and NSM3 (can be 0).
    hits : int
        Number of resampled T* >= T - 1e-9 * max(1, |T|).
    n_resamples : int
        B.
    standard_error : float
        sqrt(p (1 - p) / B) for the reported ``pvalue``.
    null_distribution : ndarray, shape (B,)
        The resampled statistics.
    """

    statistic: float
    pvalue: float
    pvalue_reference: float
    hits: int
    n_resamples: int
    standard_error: float
    null_distribution: np.ndarray


@dataclass(frozen=True)
class _CellLayout:
    """Within-block slots ordered so that each (block, agent) cell is contiguous."""

    blocks: object  # BlockLayout of doubled ranks
    cell_starts: tuple  # per size group, starts of cells in the flattened group array
    cell_agents: tuple  # per size group, ((w / 2, (n_cells_g, k) int64 indicator of the agent), ...) by weight


def _cell_layout(setup, places=None):
    # The draws act on the blocks, and on the agents within a block, in the order of ``places`` (each task's and
    # agent's place among the names sorted; the codes' own order without it), so the same resamples land on the
    # same agents whatever the order of the agents or tasks in the data (a Categorical's category order).
    block, agent = (setup.block, setup.agent) if places is None else (places[0][setup.block], places[1][setup.agent])
    order = np.lexsort((agent, block))
    layout = block_layout(setup.ranks2[order], block[order])
    agent_sorted, weight_sorted = setup.agent[order], setup.weight[order]
    starts, agents = [], []
    for vals, slots in zip(layout.values, layout.slots):
        size = vals.shape[1]
        agent = agent_sorted[slots]
        new_cell = np.r_[True, agent[1:] != agent[:-1]] | (np.arange(agent.size) % size == 0)
        s = np.flatnonzero(new_cell)
        weight = weight_sorted[slots][s]
        # One weight per block size in both variants (1 / q_i; sqrt(12 / (k_i + 1)) with k_i = q_i),
        # but any number of weights works.
        levels = []
        for w in np.unique(weight):
            indicator = np.zeros((s.size, setup.k), dtype=np.int64)
            at = weight == w
            indicator[np.flatnonzero(at), agent[s][at]] = 1
            levels.append((w / 2.0, indicator))
        starts.append(s)
        agents.append(tuple(levels))
    return _CellLayout(layout, tuple(starts), tuple(agents))


def _resampled_statistics(setup, cells, streams, sizes):
    """T for the resamples drawn from ``streams`` (``sizes`` resamples each, see ``permute_blocks``).

    Every step is exact integer arithmetic or elementwise per resample, so a
    resample's T does not depend on how many are computed together (a float
    matmul would: BLAS rounds differently by shape).
    """
    permuted = permute_blocks(cells.blocks, streams, sizes)
    d = np.repeat(-setup.expected[None, :], permuted[0].shape[0], axis=0)
    for perm, starts, levels in zip(permuted, cells.cell_starts, cells.cell_agents):
        sums = np.add.reduceat(perm.reshape(perm.shape[0], -1), starts, axis=1)
        for half_weight, indicator in levels:
            d += half_weight * (sums @ indicator)
    return _rowwise_quadratic_form(setup.cov_pinv, d)


def _rowwise_quadratic_form(pinv, d):
    """d' P d for each row of ``d``: elementwise products, then one sum along each contiguous row."""
    terms = d[:, :, None] * d[:, None, :] * pinv
    return terms.reshape(d.shape[0], -1).sum(axis=1)


def _batches(seed_sequence, n_resamples, layout, per_batch):
    """Yield ``(start, [(streams, rows), ...])`` holding ``per_batch`` resamples each (fewer at the end).

    Generator blocks of _RNG_BLOCK resamples are grouped when several fit in a
    batch and split into row chunks when one does not; either way every
    resample gets the keys it gets in one call for its whole block.  Each
    piece has streams of its own, so batches can be computed in any order.
    """
    batch, start, held = [], 0, 0
    for first, stop, gen in chunk_generators(seed_sequence, n_resamples, _RNG_BLOCK):
        row = first
        while row < stop:
            rows = min(stop - row, per_batch - held)
            # A whole block drawn in one piece takes its generator as is (the same keys, no copies).
            whole = rows == stop - first
            batch.append((gen if whole else group_streams(layout, gen, stop - first, row - first), rows))
            held, row = held + rows, row + rows
            if held == per_batch:
                yield start, batch
                batch, start, held = [], start + held, 0
    if batch:
        yield start, batch


def monte_carlo_test(setup, n_resamples, seed_sequence, *, progress=None, batch_size=None, n_jobs=1,
                     places=None, smallest=0.0):
    """Permutation p-value: permute the observed mid-ranks within every block.

    Each resample permutes, independently in every block, the observed
    mid-ranks over that block's run slots, so ties, missing cells and
    replicate counts are kept (spec Section 5.3); T* uses the fixed Cov0^+.

    Parameters
    ----------
    setup : BlockedRankSetup
    n_resamples : int
        B >= 1.
    seed_sequence : numpy.random.SeedSequence
        Split with :func:`rlstats.resampling.chunk_generators` into one
        generator per 100 resamples; each resample's permutation depends only
        on its generator and its place in it, so the result does not depend
        on ``batch_size`` or ``n_jobs``.
    progress : callable, optional
        Called after each batch with the number of resamples that batch
        added (an increment, as ``tqdm.update`` expects).
    batch_size : int, optional
        Resamples held in memory at once (per worker), any number >= 1 (a
        generator's 100 resamples are split when it is smaller); by default
        about ``_ELEMENT_BUDGET`` run slots, at least one resample.
    n_jobs : int
        Threads computing batches (-1: one per core).
    places : (ndarray of int, ndarray of int), optional
        Each block's and each agent's place in the order the draws take them in (their names sorted,
        :func:`rlstats.resampling.label_ranks`, so that a Categorical's category order does not change the
        draws); the codes' own order by default.
    smallest : float
        The exact test's smallest attainable p-value, a floor of the Monte Carlo one
        (:func:`rlstats.statistics.monte_carlo_pvalue`): :func:`least_pvalue` of ``setup.counts``.

    Returns
    -------
    MonteCarloResult

    References
    ----------
    Spec Sections 5.2-5.3 (the simulated p-value of R's ``Ski.Mack``, which
    permutes the same way); Phipson, B. and Smyth, G. K. (2010), Permutation
    p-values should never be zero, Stat. Appl. Genet. Mol. Biol. 9(1)
    (the (1 + hits) / (B + 1) rule).
    """
    t_obs = observed_statistic(setup)
    cells = _cell_layout(setup, places)
    per_batch = batch_size if batch_size is not None else max(1, _ELEMENT_BUDGET // setup.agent.size)
    null = np.empty(n_resamples)

    def compute(item):
        start, batch = item
        return start, _resampled_statistics(setup, cells, *zip(*batch))

    for start, values in parallel_map(compute, _batches(seed_sequence, n_resamples, cells.blocks, per_batch), n_jobs):
        null[start:start + values.size] = values
        if progress is not None:
            progress(values.size)
    hits = int(np.count_nonzero(null >= t_obs - _relative_tol(t_obs)))
    p = monte_carlo_pvalue(hits, n_resamples, smallest)
    return MonteCarloResult(
        statistic=t_obs, pvalue=p, pvalue_reference=hits / n_resamples, hits=hits,
        n_resamples=n_resamples, standard_error=float(monte_carlo_se(p, n_resamples)),
        null_distribution=null,
    )


# --------------------------------------------------------------------------- exact null


@dataclass(frozen=True)
class ExactNull:
    """Exact permutation distribution of T.

    Attributes
    ----------
    values : ndarray
        Distinct attainable values of T, ascending (values within
        1e-9 * max(1, |T|) are merged).
    probabilities : ndarray
        Their null probabilities (sum to 1).
    method : str
        ``"enumerate"`` or ``"convolve"``.
    """

    values: np.ndarray
    probabilities: np.ndarray
    method: str


def exact_null(setup, *, method="auto", limit=_ENUMERATION_LIMIT):
    """Exact null distribution of T under within-block permutation of the mid-ranks.

    Parameters
    ----------
    setup : BlockedRankSetup
    method : {"auto", "enumerate", "convolve"}
        ``"enumerate"`` lists every distinct within-block arrangement (tiny
        designs); ``"convolve"`` (k = 2 only) convolves the blocks' exact
        rank-sum distributions.  ``"auto"``: convolve when k = 2, else enumerate.
    limit : int
        Largest number of arrangements enumerated, per block and in total.

    Returns
    -------
    ExactNull

    Raises
    ------
    OptionError
        When the exact distribution is not feasible for this design.

    References
    ----------
    Spec Sections 5.3-5.4; for k = 2 and no ties each block's distribution
    is the Wilcoxon rank-sum distribution.
    """
    if method == "auto":
        method = "convolve" if setup.k == 2 else "enumerate"
    return _EXACT_METHODS[method](setup, limit)


def _infeasible(reason):
    return OptionError(
        f"the exact p-value is not feasible for this design ({reason}); "
        "use pvalue='monte_carlo' (or 'asymptotic') instead"
    )


def _merge_levels(values, probabilities, method):
    """Sort statistic values, merging those equal up to the comparison tolerance."""
    order = np.argsort(values, kind="stable")
    v, p = values[order], probabilities[order]
    new = np.r_[True, np.diff(v) > _relative_tol(v[1:])]
    level = np.cumsum(new) - 1
    return ExactNull(v[new], np.bincount(level, weights=p), method)


def _multiset_permutations(counts):
    """All distinct sequences with ``counts[j]`` copies of label j, shape (P, sum(counts))."""
    rows = np.zeros((1, 0), dtype=np.intp)
    left = np.asarray(counts, dtype=np.intp)[None, :]
    step = np.eye(left.shape[1], dtype=np.intp)
    for _ in range(int(np.sum(counts))):
        # Extend every partial sequence by each label it still has copies of.
        new_rows, new_left = [], []
        for j in range(left.shape[1]):
            ok = left[:, j] > 0
            new_rows.append(np.column_stack([rows[ok], np.full(ok.sum(), j)]))
            new_left.append(left[ok] - step[j])
        rows, left = np.concatenate(new_rows), np.concatenate(new_left)
    return rows


def _multinomial(counts):
    total, out = 0, 1
    for c in counts:
        total += int(c)
        out *= math.comb(total, int(c))
    return out


def _block_contributions(setup, i, limit):
    """Distinct contributions of block i to d, with their probabilities."""
    present = np.flatnonzero(setup.counts[i])
    c = setup.counts[i, present]
    if _multinomial(c) > limit:
        raise _infeasible(f"block {i} alone has {_multinomial(c)} arrangements, more than {limit}")
    r2 = setup.ranks2[setup.block == i]
    labels = _multiset_permutations(c)
    sums = np.stack([(labels == j) @ r2 for j in range(c.size)], axis=1)
    sums, mult = np.unique(sums, axis=0, return_counts=True)
    w = setup.weight[setup.block == i][0]
    contrib = np.zeros((sums.shape[0], setup.k))
    contrib[:, present] = w / 2.0 * (sums - c * (setup.block_size[i] + 1))
    return contrib, mult / mult.sum()


def _enumerate_null(setup, limit):
    parts = [_block_contributions(setup, i, limit) for i in range(setup.n)]
    total = math.prod(p.size for _, p in parts)
    if total > limit:
        raise _infeasible(f"{total} distinct within-block arrangements, more than {limit}")
    d, prob = np.zeros((1, setup.k)), np.ones(1)
    for contrib, p in parts:
        d = (d[:, None, :] + contrib[None, :, :]).reshape(-1, setup.k)
        prob = (prob[:, None] * p[None, :]).ravel()
    return _merge_levels(quadratic_form(setup, d), prob, "enumerate")


def _subset_sum_pmf(values, m):
    """Distribution of the sum of m values drawn without replacement from ``values`` (ints > 0).

    Returns ``(offset, pmf)``: pmf[s - offset] = P(sum = s).
    """
    v = np.sort(np.asarray(values, dtype=np.intp))
    lo, hi = int(v[:m].sum()), int(v[-m:].sum())
    dp = np.zeros((m + 1, hi + 1))
    dp[0, 0] = 1.0
    for x in v:
        dp[1:, x:] = dp[1:, x:] + dp[:-1, :-x]
    pmf = dp[m, lo:]
    return lo, pmf / pmf.sum()


def _lattice_multipliers(counts, variant):
    """Integers a_i and unit u with w_i = a_i * u, so T1 lives on an integer lattice."""
    q = counts.sum(axis=1)
    w = _block_weights(counts, variant)[q > 0]
    if np.allclose(w, w[0], rtol=1e-12, atol=0):
        return np.ones(counts.shape[0], dtype=np.int64), float(w[0])
    if variant != "mack_skillings":  # Skillings-Mack with k = 2: a task that one agent alone ran (k_i = 1)
        raise _infeasible("block weights are not commensurable")
    lcm = math.lcm(*(int(qi) for qi in q))
    return lcm // q.astype(np.int64), 1.0 / lcm


def _convolution_plan(counts, variant):
    """Two agents' lattice (a_i, unit) for :func:`_convolve_null`, from the counts alone; an OptionError where the
    weights are not commensurable or the lattice or its work pass ``_LATTICE_LIMIT`` or ``_DP_WORK_LIMIT``."""
    if counts.shape[1] != 2:
        raise OptionError(f"method='convolve' needs exactly 2 agents, the design has {counts.shape[1]}")
    a, unit = _lattice_multipliers(counts, variant)
    c0, q = counts[:, 0], counts.sum(axis=1)
    # in floats, exact up to 2**53 and far past the limits above it (ints could overflow on a large shape)
    work = float(np.sum(q.astype(float) ** 2 * (c0 + 1.0) * 2.0 * c0))
    span = float(np.sum(a * 2.0 * c0 * q))
    if work > _DP_WORK_LIMIT or span > _LATTICE_LIMIT:
        raise _infeasible(f"the k = 2 convolution needs a lattice of {span:.0f} points and {work:.0f} steps")
    return a, unit


def _convolve_null(setup, limit):
    from scipy import signal
    a, unit = _convolution_plan(setup.counts, setup.variant)
    c0, q = setup.counts[:, 0], setup.block_size
    offset, pmf, cache = 0, np.ones(1), {}
    for i in range(setup.n):
        r2 = np.sort(setup.ranks2[setup.block == i])
        key = (r2.tobytes(), int(c0[i]))
        if key not in cache:
            cache[key] = _subset_sum_pmf(r2, int(c0[i]))
        lo, block_pmf = cache[key]
        spread = np.zeros((block_pmf.size - 1) * a[i] + 1)
        spread[:: a[i]] = block_pmf
        pmf = np.clip(signal.convolve(pmf, spread), 0.0, None)
        offset += int(a[i]) * lo
    # x = sum a_i s_i; d_0 = unit / 2 (x - centre); T = d_0**2 * (P00 + P11 - 2 P01).
    centre = int(np.sum(a * c0 * (q + 1)))
    dist = np.abs(offset + np.arange(pmf.size) - centre)
    prob = np.bincount(dist, weights=pmf)
    keep = np.flatnonzero(prob > 0)
    g = setup.cov_pinv[0, 0] + setup.cov_pinv[1, 1] - 2 * setup.cov_pinv[0, 1]
    values = (unit / 2.0 * keep) ** 2 * g
    return _merge_levels(values, prob[keep] / prob.sum(), "convolve")


_EXACT_METHODS = {"enumerate": _enumerate_null, "convolve": _convolve_null}


def tail_probability(null, t):
    """P0(T >= t), comparing with the tolerance 1e-9 * max(1, |t|); exactly 1 at or below the null's smallest value,
    where the sum of every probability rounds to 1 +- 1 ulp (1.0000000000000002; 0.9999999999999999 with numpy 1.24)."""
    if t - _relative_tol(t) <= null.values.min():
        return 1.0
    return min(1.0, float(null.probabilities[null.values >= t - _relative_tol(t)].sum()))


def exact_pvalue(null, t):
    """Exact permutation p-value P0(T >= t) of an observed statistic ``t``."""
    return tail_probability(null, t)


# --------------------------------------------------------------------------- automatic choice

# Largest number of arrangements enumerated where the exact null is not the p-value asked for: a pair's runs in its
# shared tasks, whose exact post-hoc p-value is computed (pair_exact_pvalues), and a design's relabellings under
# pvalue="monte_carlo", all enumerated instead of drawn when they number at most n_resamples and this (_api._test;
# audit s21: 2,000 draws of 36 printed 0.148 where the exact least is 1/6; audit s32 rfix32: this comment named the
# post hoc alone). The test's own exact null, under pvalue="auto" as under "exact", is enumerated up to
# _ENUMERATION_LIMIT (audit s31 trialfix31: auto stopped at this 20,000 and took chi-squared at 33,600, 0.03079 for
# the exact 0.008333; 33,600 arrangements are enumerated in 6 ms, 46,656 of 3 agents x 6 tasks in 14 ms and 4 MiB).
AUTO_EXACT_LIMIT = 20_000
# Below this many informative tasks, three agents with one run per cell get a Monte Carlo p-value.
AUTO_MC_TASKS_K3 = 40


def _arrangements(counts, cap):
    """Product over blocks of the multinomial numbers of arrangements, stopping once it exceeds ``cap``."""
    total = 1
    for row in counts:
        total *= _multinomial(row[row > 0])
        if total > cap:
            break
    return total


def design_relabellings(counts, cap=math.inf):
    """The distinct within-task relabellings of a design with these runs per (task, agent) cell, the product over
    tasks of the multinomial numbers of its cells (an exact int; past ``cap`` some number above it, the product
    stopped there). Named apart from :func:`rlstats.statistics.relabellings`, the count of two agents' runs."""
    return _arrangements(np.asarray(counts), cap)


def least_pvalue(counts):
    """The smallest p-value the exact permutation test can attain on a design with these runs per (task, agent)
    cell: s / ``design_relabellings(counts)``, s the product of m! over the classes of m agents run on the same
    tasks as often (equal columns of ``counts``).

    Renaming such agents alike on every task is a relabelling that keeps the design, and with it the statistic's
    covariance, so it maps the centred rank sums to a permutation of themselves and keeps the statistic; the s
    renamings of a relabelling are distinct (every agent has a run), so each value of the statistic is taken by a
    multiple of s relabellings (review s21: 3 agents on 5 complete tasks, 6 / 6^5 = 1/1296, not 1/7776). The exact
    least where the design has no other symmetry (complete designs); a lower bound of it otherwise. The ratio of the
    exact ints below 1e299 relabellings, in logarithms above (0.0 past a double's range), never forming a huge count.
    """
    counts = np.asarray(counts, dtype=np.int64)
    used = counts[:, counts.sum(axis=0) > 0]
    log_total = sum(math.lgamma(int(row.sum()) + 1) - sum(math.lgamma(int(c) + 1) for c in row) for row in used)
    _, sizes = np.unique(used.T, axis=0, return_counts=True)
    symmetric = math.prod(math.factorial(int(m)) for m in sizes)
    if log_total < 690.0:  # below 1e299: the exact ratio, rounded once
        return symmetric / design_relabellings(used)
    return math.exp(math.log(symmetric) - log_total)


def auto_case(counts, variant):
    """Which case of :func:`auto_pvalue_method`'s rule a design with these runs per cell is in: the rule's one home.

    It reads the counts alone, so every data set of one design is in the same case: skillings_mack()'s kernel
    decides on its setup's counts, the cost estimate (``_backend.cost``) on a Design's shape before any setup
    exists, and :func:`rlstats.power`'s vectorised p-values on the simulated design's.

    Parameters
    ----------
    counts : array_like of int, shape (n, k)
        Runs per (task, agent) cell.
    variant : {"skillings_mack", "mack_skillings"}
        The kernel's statistic (its block weights decide whether two agents' null can be convolved).

    Returns
    -------
    str
        ``"convolve"`` (two agents' exact null), ``"enumerate"`` (the exact null of at most ``_ENUMERATION_LIMIT``
        arrangements, pvalue="exact"'s), ``"monte_carlo"`` or ``"asymptotic"``.
    """
    counts = np.asarray(counts)
    if counts.shape[1] == 2:
        try:
            _convolution_plan(counts, variant)
        except OptionError:  # the weights are incommensurable or the lattice too large: Monte Carlo
            return "monte_carlo"
        return "convolve"
    if _arrangements(counts, _ENUMERATION_LIMIT) <= _ENUMERATION_LIMIT:
        return "enumerate"
    informative = int(np.count_nonzero(counts.sum(axis=1) > 1))
    if counts.shape[1] == 3 and counts.max() <= 1 and informative < AUTO_MC_TASKS_K3:
        return "monte_carlo"
    return "asymptotic"


def auto_pvalue_method(setup, task="task", tasks="tasks", agents="agents"):
    """The p-value method ``pvalue="auto"`` uses on this design, and why (``task``, ``tasks``, ``agents``: the
    formula's columns as the reason's words about this design call them, audit s32 block32; the words of the grid
    measured stay the package's).

    The rule, from the size of the chi-squared test measured by simulation
    over 2-5 agents, 3-50 tasks and 1-3 runs per cell (20 000-40 000 null data
    sets per design, ``tests/test_skillings_mack.py``), then over 3-8 agents x
    3-50 tasks x 1-20 runs (audit s38 sm38, below):

    1. the exact permutation distribution when it can be enumerated
       (at most ``_ENUMERATION_LIMIT`` arrangements, as pvalue="exact" does) or, for two agents, convolved;
    2. otherwise Monte Carlo when the chi-squared approximation is known to
       be liberal: two agents (a lattice of few values; size 0.127 at 4 tasks,
       0.072 at 8, 0.076 at 16, 0.065 at 50 with one run per cell), or three
       agents with one run per cell on fewer than ``AUTO_MC_TASKS_K3`` tasks
       (0.072 at 4 tasks, 0.057-0.060 at 9-16, 0.054 at 30);
    3. otherwise the chi-squared p-value. Under the null its size depends
       on the scores only through their ties (each task's ranks are a random
       permutation), so it was measured on permutations of the ranks, untied
       and with ties (half or 85% of the runs at a cap, five integer levels),
       10 000-40 000 a design, on the 456 complete designs of ``_SIZE_GRID``
       (3-8 agents x 3-50 tasks x 1, 2, 3, 5, 10, 20 runs per cell) where
       this rule takes it (``tests/reference/chi_squared_size_grid.py``):
       at most ``_SIZE_MEASURED`` = 0.0522 (untied, 7 x 16 x 20 and 3 x 30 x
       2; SE 0.0011), none more than 3 SE above 0.05, so no Monte Carlo is
       needed there (issue 40); conservative with few tasks (0.015 at 6 x 3
       x 1). Mack-Skillings takes no tie correction, so ties lower its size
       (0.012-0.033 with half the runs at a cap); Friedman's corrected
       statistic keeps it at most 0.0503 with ties.

    Returns
    -------
    (method, reason, null) : str, str, ExactNull or None
    """
    case = auto_case(setup.counts, setup.variant)
    if case == "convolve":
        return "exact", f"two {agents}: the exact null is convolved", exact_null(setup, method="convolve")
    arrangements = _arrangements(setup.counts, _ENUMERATION_LIMIT)
    if case == "enumerate":
        return "exact", (f"{arrangements:,} within-{task} arrangements, at most the {_ENUMERATION_LIMIT:,} enumerated: "
                         "the exact null"), exact_null(setup, method="enumerate", limit=_ENUMERATION_LIMIT)
    beyond = f"more than {_ENUMERATION_LIMIT:,} within-{task} arrangements, the most the exact null enumerates"
    if case == "monte_carlo" and setup.k == 2:
        return "monte_carlo", f"two {agents}: the chi-squared approximation is liberal", None
    if case == "monte_carlo":
        informative = int(np.count_nonzero(setup.block_size > 1))
        return "monte_carlo", (f"{beyond}, and three {agents} on {informative} < {AUTO_MC_TASKS_K3} {tasks} with one run "
                               "per cell, where the chi-squared approximation is liberal"), None
    # not a check of this design: the size measured over the grid of designs this case covers (the docstring)
    # (audit s31 autocal31: it said 2-5 agents, and two agents take the convolved or Monte Carlo p-value, their
    # chi-squared size 0.065-0.127. Audit s38 sm38: the grid was 3-5 agents x 3-50 tasks x 1-3 runs, so every design of
    # more than 3 runs per cell, Atari's at 5 and 10 seeds among them, printed "its size there was not measured"; now
    # the 456 designs of _SIZE_GRID where it is taken, untied and tied, tests/reference/chi_squared_size_grid.py)
    return "asymptotic", (f"{beyond}; the chi-squared p-value's size was measured at most {_SIZE_MEASURED} on the "
                          f"complete designs of {_grid_ranges()} in every cell where this rule takes it, on untied "
                          "scores and on scores tied at a cap or on five levels; "
                          f"{_on_size_grid(setup.counts, tasks, agents)}"), None


#: the complete designs whose chi-squared size the reason above quotes, and the most it was measured there over
#: untied and tied scores: untied at 7 x 16 x 20 and 3 x 30 x 2, 40,000 permutations of the ranks, SE 0.0011
#: (tests/reference/chi_squared_size_grid.py and its table, chi_squared_size_grid.txt; test_audit_s38_sm38)
_SIZE_GRID = {"agents": (3, 4, 5, 6, 7, 8), "tasks": (3, 4, 5, 6, 8, 10, 12, 16, 20, 26, 30, 40, 50),
              "runs": (1, 2, 3, 5, 10, 20)}
_SIZE_MEASURED = 0.0522


def _grid_ranges():
    """The ranges of :data:`_SIZE_GRID` in the package's words: "3-8 agents x 3-50 tasks x 1-20 runs"."""
    return " x ".join(f"{min(values)}-{max(values)} {name}" for name, values in _SIZE_GRID.items())


def _on_size_grid(counts, tasks="tasks", agents="agents"):
    """Where a design with these runs per (task, agent) cell lies against :data:`_SIZE_GRID`: one of its designs,
    within its ranges but not itself measured (a task or run count between two, cells unequal or empty), or outside them
    (audit s32 rfix32: "(not on this design)" was said of 3 x 4 x 3, one of them, and of designs far outside).
    ``tasks``, ``agents``: this design's blocks and arms as the reason calls them, plural ("3 algos x 4 envs"; audit
    s33 words33b); the grid's designs keep the package's words."""
    n, k = counts.shape
    low, high = int(counts.min()), int(counts.max())
    runs = f"{high} {plural('run', high)}" if low == high else f"{low}-{high} runs"
    shown = f"this design, {k} {agents} x {count(n, singular(tasks))} x {runs} per cell,"
    grid = _SIZE_GRID
    if low == high and k in grid["agents"] and n in grid["tasks"] and high in grid["runs"]:
        return f"{shown} is one of those measured"
    if (min(grid["agents"]) <= k <= max(grid["agents"]) and min(grid["tasks"]) <= n <= max(grid["tasks"])
            and high <= max(grid["runs"])):
        return f"{shown} lies within that range but was not itself measured"
    return f"{shown} lies outside that range: its size there was not measured"


# --------------------------------------------------------------------------- post hoc


def mean_ranks(setup, *, higher_is_better=True):
    """Mean rank of each agent on the 1..k scale, rank 1 = best.

    Within block i a run's mid-rank r among q_i runs (reversed to
    q_i + 1 - r when ``higher_is_better``) is rescaled to the k_i agents
    present: r' = (r - 1/2) k_i / q_i + 1/2.  An agent's mean rank is the mean,
    over the blocks where it has runs, of its runs' mean r'.

    This is exactly Friedman's mean rank R_j / n for one run per cell in
    complete blocks; with c runs in every cell it is (S_j / n - 1/2) / c + 1/2,
    the HWC sum S_j of mean cell ranks (Mack & Skillings 1980; thesis Figure
    12, which divides S_j by n) brought back from 1..kc to 1..k.  With missing
    cells each block counts on the scale of the agents it holds.

    Returns
    -------
    ndarray, shape (k,)
    """
    q = setup.block_size[setup.block]
    r = setup.ranks2 / 2.0
    if higher_is_better:
        r = q + 1 - r
    scaled = (r - 0.5) * setup.agents_present[setup.block] / q + 0.5
    cell = setup.block * setup.k + setup.agent
    sums = np.bincount(cell, weights=scaled, minlength=setup.n * setup.k).reshape(setup.n, setup.k)
    present = setup.counts > 0
    cell_means = np.divide(sums, setup.counts, out=np.zeros_like(sums), where=present)
    return cell_means.sum(axis=0) / present.sum(axis=0)


@dataclass(frozen=True)
class PairwiseComparisons:
    """All pairwise contrasts of mean ranks on the tasks each pair shares.

    Attributes
    ----------
    agent_u, agent_v : ndarray of intp
        Agent codes of each pair (u < v).
    mean_rank : ndarray, shape (k,)
        From :func:`mean_ranks` (rank 1 = best in the chosen direction).
    n_shared : ndarray of int
        Tasks where both agents have runs.
    mean_rank_diff : ndarray
        Mean over the shared tasks of (u's mean rank - v's mean rank) on the
        1..k scale of :func:`mean_ranks` (negative: u ranks better).  Equal to
        mean_rank[u] - mean_rank[v] on complete designs; NaN without shared tasks.
    diff : ndarray
        The sum over shared tasks of the same differences.
    se : ndarray
        Its exact standard error under within-task permutation.
    z, pvalue : ndarray
        diff / se and the two-sided normal p-value, or the exact permutation
        p-value where ``exact`` (NaN without shared tasks).
    pvalue_adjusted : ndarray
        Adjusted for the comparisons that have shared tasks.
    adjustment : str
        ``"tukey"``, ``"holm"`` or ``"bonferroni"``.
    alpha : float
    reject : ndarray of bool
        ``pvalue_adjusted <= alpha``.
    q_alpha, cd_sum, cd_mean_rank : float or None
        Tukey only: upper-alpha quantile of the range of k standard normals,
        the critical difference on the HWC S scale (thesis eq. 2.23) and on
        the mean-rank (1..k) scale.
    """

    agent_u: np.ndarray
    agent_v: np.ndarray
    mean_rank: np.ndarray
    n_shared: np.ndarray
    mean_rank_diff: np.ndarray
    diff: np.ndarray
    se: np.ndarray
    z: np.ndarray
    pvalue: np.ndarray
    pvalue_adjusted: np.ndarray
    adjustment: str
    alpha: float
    reject: np.ndarray
    q_alpha: float | None
    cd_sum: float | None
    cd_mean_rank: float | None
    exact: np.ndarray | None = None  # where pvalue is the pair's exact permutation p (pair_exact_pvalues)


def critical_difference(k, n, c, alpha=0.05):
    """Critical difference of the Mack–Skillings / Nemenyi all-pairs procedure.

    CD = sqrt(k (N + n) / 12) q_alpha with N = n k c and q_alpha the upper-alpha
    quantile of the range of k independent standard normals
    (``studentized_range(k, df=inf)``).

    Returns
    -------
    (cd_sum, cd_mean_rank, q_alpha)
        CD on the HWC S scale (sum over tasks of mean cell ranks) and on the
        1..k mean-rank scale of :func:`mean_ranks` (CD / (n c)).

    References
    ----------
    Thesis eq. 2.23 and spec Section 6; HWC Chapter 7 (Mack–Skillings);
    Demšar, J. (2006), JMLR 7, 1-30 (Nemenyi, c = 1).
    """
    q_alpha = studentized_range_quantile(int(k), float(alpha))
    cd = math.sqrt(k * (n * k * c + n) / 12.0) * q_alpha
    return cd, cd / (n * c), q_alpha


@functools.lru_cache(maxsize=256)
def studentized_range_quantile(k, alpha):
    """Upper-alpha quantile of the range of k standard normals, computed once per (k, alpha).

    It is integrated numerically (:func:`rlstats.statistics.studentized_range_isf`); power
    simulations ask for the same few values thousands of times.
    """
    return studentized_range_isf(float(alpha), int(k))


def _tukey(z, k):
    return studentized_range_sf(np.sqrt(2.0) * np.abs(z), k)


def _cell_mean_ranks(setup, higher_is_better):
    """(n, k) mean mid-rank of each cell on the 1..q_i scale (0 for empty cells), best = 1 when asked."""
    q = setup.block_size[setup.block]
    r = setup.ranks2 / 2.0
    if higher_is_better:
        r = q + 1 - r
    cell = setup.block * setup.k + setup.agent
    sums = np.bincount(cell, weights=r, minlength=setup.n * setup.k).reshape(setup.n, setup.k)
    return np.divide(sums, setup.counts, out=np.zeros_like(sums), where=setup.counts > 0)


def shared_task_contrasts(setup, *, higher_is_better=True):
    """Sum over shared tasks of mean-rank differences, and its exact permutation variance, for all pairs.

    In task i a run's rank r becomes r' = (r - 1/2) s_i + 1/2 with s_i = k_i / q_i
    (the 1..k scale of :func:`mean_ranks`).  For agents u, v present in task i,
    D_i = s_i (mean r_u - mean r_v) is a linear rank statistic with mean 0 under
    within-task exchangeability and variance

        s_i**2 (1/c_iu + 1/c_iv) * sum_m (r_m - mean r)**2 / (q_i - 1)
        = s_i**2 (1/c_iu + 1/c_iv) q_i (q_i + 1) / 12          (no ties),

    the permutation variance of a linear statistic (sampling without
    replacement).  With ``tie_correction`` the observed mid-ranks' spread is
    used instead.  Tasks are independent, so the variances add.

    Returns
    -------
    (diff, var, n_shared) : three (k, k) arrays; diff is antisymmetric.
    """
    present = (setup.counts > 0).astype(np.float64)
    q = setup.block_size.astype(np.float64)
    scale = setup.agents_present / q
    weighted = present * scale[:, None] * _cell_mean_ranks(setup, higher_is_better)
    diff = weighted.T @ present - present.T @ weighted
    # a pair whose mean ranks tie (tasks where each leads by as much) sums its tasks' differences to rounding: 0
    # within the tie rule's tolerance of the sum's terms (statistics.noise_free; new-user trial s37: such a pair of
    # an unbalanced design wrote estimate 2.7e-16, z 1.5e-15 and p = 0.9999999999999988)
    size = weighted.T @ present + present.T @ weighted  # the sum of |terms| (ranks and scales are positive)
    diff = noise_free(diff, size, size)
    spread = q * (q + 1) / 12.0
    if setup.tie_correction:
        spread = spread * (1.0 - setup.tie_sum / (q**3 - q))
    inverse_counts = np.divide(1.0, setup.counts, out=np.zeros(setup.counts.shape), where=setup.counts > 0)
    per_cell = present * inverse_counts * (scale**2 * spread)[:, None]
    var = per_cell.T @ present + present.T @ per_cell
    return diff, var, present.T @ present


def _pair_task_null(ranks, c_u, c_v, scale):
    """The null law of one task's D = scale (mean rank of u's c_u runs - mean of v's c_v runs), every choice of the
    runs' places among the task's mid-ranks ``ranks`` equally likely: (values, probabilities), the choices in
    lexicographic order (u's places, then v's among the others), all at once (audit s18: a Python loop a choice took
    17 s for 171 pairs of 19,740 choices)."""
    q = ranks.size
    first = np.array(list(itertools.combinations(range(q), c_u)), dtype=np.intp)
    free = np.ones((first.shape[0], q), dtype=bool)
    free[np.arange(first.shape[0])[:, None], first] = False
    others = np.nonzero(free)[1].reshape(first.shape[0], q - c_u)  # each row's free places, increasing
    second = np.array(list(itertools.combinations(range(q - c_u), c_v)), dtype=np.intp)
    values = (scale * (ranks[first].mean(axis=1)[:, None] - ranks[others[:, second]].mean(axis=2))).ravel()
    return values, np.full(values.size, 1.0 / values.size)


def _exact_pairs(counts, u, v, limit):
    """{pair index: its shared tasks} for the pairs whose runs have at most ``limit`` arrangements in the tasks they
    share (the places of the pair's runs in each, the other runs' labels aside); pairs sharing more than
    log2(limit) tasks are skipped unread, so the check costs a matrix product, not a pass over the tasks a pair."""
    present = (counts > 0).astype(np.float64)
    n_shared = (present.T @ present)[u, v]
    most = int(math.log2(limit)) if limit >= 1 else 0
    tasks_of, q = {}, counts.sum(axis=1)
    found = {}
    for index in np.flatnonzero((n_shared >= 1) & (n_shared <= most)):
        a, b = int(u[index]), int(v[index])
        for agent in (a, b):
            if agent not in tasks_of:
                tasks_of[agent] = np.flatnonzero(counts[:, agent] > 0)
        shared = np.intersect1d(tasks_of[a], tasks_of[b], assume_unique=True)
        total = 1
        for i in shared:
            total *= math.comb(int(q[i]), int(counts[i, a])) * math.comb(int(q[i] - counts[i, a]), int(counts[i, b]))
        if total <= limit:
            found[int(index)] = shared
    return found


def pair_exact_pvalues(setup, u, v, diff, *, higher_is_better=True, limit=None):
    """Each pair's exact two-sided permutation p-value P0(|D| >= |diff|), D the sum over its shared tasks of
    :func:`shared_task_contrasts`' differences, where its arrangements (the places of the pair's runs in each shared
    task, the other runs' labels aside) number at most ``limit`` (``AUTO_EXACT_LIMIT``); NaN elsewhere.

    On few shared tasks the normal tail of z is liberal: 4 tasks of one run each, A winning all four, z = 2 and
    p = 0.0455, where the exact p is 2 / 16 = 0.125 (audit s18: a pair alike declared different in 13.75% of data
    sets after Holm).  The tasks' laws are convolved whole (at most ``limit`` values, none merged), and a value
    within ``_relative_tol`` of the observed counts as reaching it; a task's law
    is enumerated once for every pair with the same runs there (it depends on the task and the two cells' sizes).
    """
    limit = AUTO_EXACT_LIMIT if limit is None else limit
    out = np.full(len(u), np.nan)
    plans = _exact_pairs(setup.counts, u, v, limit)
    if not plans:
        return out
    q = setup.block_size[setup.block]
    r = setup.ranks2 / 2.0
    ranks = q + 1 - r if higher_is_better else r
    order = np.argsort(setup.block, kind="stable")  # each task's runs in row order, as ranks[block == i]
    starts = np.r_[0, np.cumsum(setup.block_size)]
    scale = setup.agents_present / setup.block_size
    laws = {}
    for index, shared in plans.items():
        a, b = u[index], v[index]
        values, probabilities = np.zeros(1), np.ones(1)
        for i in shared:
            key = (int(i), int(setup.counts[i, a]), int(setup.counts[i, b]))
            if key not in laws:
                laws[key] = _pair_task_null(ranks[order[starts[i]:starts[i + 1]]], key[1], key[2], scale[i])
            task_values, task_probabilities = laws[key]
            values = (values[:, None] + task_values[None, :]).ravel()
            probabilities = (probabilities[:, None] * task_probabilities[None, :]).ravel()
        observed = abs(diff[index])
        out[index] = min(1.0, float(probabilities[np.abs(values) >= observed - _relative_tol(observed)].sum()))
    return out


def pairwise(setup, *, higher_is_better=True, adjustment="auto", alpha=0.05, pairs=None):
    """Post-hoc comparisons of every pair of agents on the tasks they share.

    z = sum_i D_i / sqrt(sum_i Var0 D_i) from :func:`shared_task_contrasts`:
    the difference of the pair's mean ranks, task by task, against its exact
    null variance under within-task permutation.  Comparing means of runs
    (not rank sums) keeps the sign of z equal to the sign of the mean-rank
    difference whatever the numbers of runs per cell.  On balanced complete
    designs z is the contrast of the thesis's sums S_u - S_v (HWC scaling), and
    ``"tukey"`` -- the single-step studentized range with df = inf,
    p = P(range_k >= sqrt(2) |z|) -- rejects exactly when |S_u - S_v| >= CD of
    thesis eq. 2.23 (Nemenyi when c = 1).  ``"holm"`` (Holm 1979 step-down)
    and ``"bonferroni"`` use the two-sided normal p-values, exact ones for the
    pairs :func:`pair_exact_pvalues` can count, and hold in any design;
    ``"auto"``: tukey when balanced, else holm.  Pairs that share no
    task get NaN and are never declared different.  The procedures beyond the
    balanced case extend the sources (spec Section 6).  ``pairs=(u, v)`` (agent
    code arrays) compares those pairs only, e.g. every agent against a control
    (Bonferroni-Dunn with ``"bonferroni"``; Demsar 2006, Section 3.2.2).

    Returns
    -------
    PairwiseComparisons

    Raises
    ------
    OptionError
        Unknown adjustment, or ``"tukey"`` on an unbalanced or incomplete design.
    """
    if adjustment == "auto":
        adjustment = "tukey" if setup.balanced else "holm"
    if adjustment == "tukey" and not setup.balanced:
        raise OptionError(
            "adjustment='tukey' needs every agent-task cell to hold the same number of runs; "
            "use adjustment='holm' for this design"
        )
    u, v = np.triu_indices(setup.k, 1) if pairs is None else pairs
    diff, var, shared = (m[u, v] for m in shared_task_contrasts(setup, higher_is_better=higher_is_better))
    testable = (shared > 0) & (var > 0)
    se = np.sqrt(np.maximum(var, 0.0))
    z = np.full(u.size, np.nan)
    z[testable] = diff[testable] / se[testable]
    p = 2 * normal_sf(np.abs(z))
    exact = None
    if adjustment != "tukey":  # the pairs' own tests: exact where their null is small (the normal tail is liberal)
        p_exact = pair_exact_pvalues(setup, u, v, diff, higher_is_better=higher_is_better)
        exact = testable & ~np.isnan(p_exact)
        p = np.where(exact, p_exact, p)
    p_adj = np.full(u.size, np.nan)
    if adjustment == "tukey":
        p_adj[testable] = _tukey(z[testable], setup.k)
    else:
        p_adj[testable] = _ADJUST[adjustment](p[testable])
    cd = critical_difference(setup.k, setup.n, int(setup.counts[0, 0]), alpha) if adjustment == "tukey" else (None,) * 3
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_diff = np.where(shared > 0, diff / shared, np.nan)
    return PairwiseComparisons(
        agent_u=u, agent_v=v, mean_rank=mean_ranks(setup, higher_is_better=higher_is_better),
        n_shared=shared.astype(int), mean_rank_diff=mean_diff, diff=diff, se=se, z=z, pvalue=p,
        pvalue_adjusted=p_adj, adjustment=adjustment, alpha=alpha, reject=np.nan_to_num(p_adj, nan=1.0) <= alpha,
        q_alpha=cd[2], cd_sum=cd[0], cd_mean_rank=cd[1], exact=exact,
    )


#: adjust()'s procedures, R's p.adjust methods (the one table: statistics.P_ADJUST)
_ADJUST = P_ADJUST


@dataclass(frozen=True)
class WilcoxonComparisons:
    """Pairwise Wilcoxon signed-rank tests on per-task scores.

    Attributes
    ----------
    agent_u, agent_v : ndarray of intp
        Agent codes of each pair (u < v).
    n_shared : ndarray of int
        Tasks where both agents have a score.
    n_used : ndarray of int
        Tasks with a non-zero difference (zeros are dropped, as in R).
    median_diff : ndarray
        Median over the shared tasks of u's score minus v's.
    statistic : ndarray
        V, the sum of the ranks of |u - v| over tasks where u scored higher: R's
        ``wilcox.test(x = u, y = v, paired = TRUE)$statistic``.
    rank_biserial : ndarray
        Matched-pairs rank-biserial correlation (Kerby 2014), (V - V') / (V + V')
        with V' the rank sum of the tasks where v scored higher: from -1 (v higher
        on every task) to 1 (u higher on every task).
    pvalue, pvalue_adjusted : ndarray
        Two-sided p-values (R's ``wilcox.test`` defaults) and their adjustment; 1 for a pair tied on every
        shared task (``n_used`` 0), where R gives NA.
    adjustment : str
    alpha : float
    reject : ndarray of bool
    """

    agent_u: np.ndarray
    agent_v: np.ndarray
    n_shared: np.ndarray
    n_used: np.ndarray
    median_diff: np.ndarray
    statistic: np.ndarray
    rank_biserial: np.ndarray
    pvalue: np.ndarray
    pvalue_adjusted: np.ndarray
    adjustment: str
    alpha: float
    reject: np.ndarray


def pairwise_wilcoxon(scores, *, adjustment="holm", alpha=0.05, pairs=None):
    """Wilcoxon signed-rank test of every pair of agents across tasks, with Holm (or Bonferroni) adjustment.

    The comparison Demšar (2006) and Benavoli et al. (2016) recommend after a
    Friedman-type test, and what R's ``pairwise.wilcox.test(paired = TRUE)``
    computes: for each pair, the paired differences of the per-task scores
    over the tasks both agents ran.

    Parameters
    ----------
    scores : ndarray, shape (n, k)
        One score per task and agent (NaN for an empty cell).
    adjustment : {"auto", "holm", "bonferroni", "none"}
        ``"auto"`` is Holm.
    alpha : float
    pairs : (ndarray, ndarray), optional
        Agent codes (u, v) of the pairs to compare; every pair u < v by default.

    Returns
    -------
    WilcoxonComparisons

    Raises
    ------
    OptionError
        ``adjustment="tukey"``, which belongs to the rank contrasts.

    References
    ----------
    Demšar, J. (2006), Statistical comparisons of classifiers over multiple
    data sets, JMLR 7, 1-30, Section 3.1.3; Benavoli, A., Corani, G. and
    Mangili, F. (2016), Should we really use post-hoc tests based on
    mean-ranks?, JMLR 17(5), 1-10; Holm, S. (1979), Scand. J. Statist. 6, 65-70;
    Kerby, D. S. (2014), The simple difference formula, Comprehensive Psychology 3, 11.IT.3.1.
    """
    if adjustment == "auto":
        adjustment = "holm"
    if adjustment == "tukey":
        raise OptionError("adjustment='tukey' goes with the rank post hoc; with posthoc='wilcoxon' use "
                          "adjustment='holm' (the default) or 'bonferroni'")
    k = scores.shape[1]
    u, v = np.triu_indices(k, 1) if pairs is None else pairs
    ranked = near_ties_by_row(scores)
    n_shared, n_used = np.zeros(u.size, dtype=int), np.zeros(u.size, dtype=int)
    median, statistic, p = (np.full(u.size, np.nan) for _ in range(3))
    for m, (a, b) in enumerate(zip(u, v)):
        both = ~np.isnan(scores[:, a]) & ~np.isnan(scores[:, b])
        n_shared[m] = both.sum()
        if n_shared[m] == 0:
            continue
        median[m] = np.median(scores[both, a] - scores[both, b])
        # the signed ranks read a difference the task's ranks tie (near_ties_by_row: within 1e-12 of its range, issue
        # 39) or within its rounding as 0, and |d| within their two roundings of one another as tied, without a
        # chain; each rounding of the pair's own two cells (review s36 rv36a: twice the largest task's tolerance of
        # every agent's cells, chained, tied A - B's |d| of 1e-4 .. 8e-4 on every task where a third agent had a run
        # at 1e9 on one); the medians read the differences as they are
        x, y = scores[both, a], scores[both, b]
        spread, magnitude = np.abs(x - y), np.maximum(np.abs(x), np.abs(y))
        d = ranked[both, a] - ranked[both, b]  # difference_ties zeroes those within their rounding of 0 (noise_free's)
        d = np.sign(d) * difference_ties(np.abs(d), difference_tolerance(spread, magnitude))
        statistic[m], p[m], n_used[m] = wilcoxon_signed_rank(d)
        if n_used[m] == 0:  # tied on every shared task: no evidence either way (R's wilcox.test gives NA)
            statistic[m], p[m] = 0.0, 1.0
    testable = ~np.isnan(p)
    p_adj = np.full(u.size, np.nan)
    p_adj[testable] = _ADJUST[adjustment](p[testable])
    # V + V' = n (n + 1) / 2 over the non-zero differences (mid-ranks keep the total), so r = 2 V / total - 1.
    total = n_used * (n_used + 1) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        biserial = np.where(n_used > 0, 2.0 * statistic / total - 1.0, np.nan)
    return WilcoxonComparisons(
        agent_u=u, agent_v=v, n_shared=n_shared, n_used=n_used, median_diff=median, statistic=statistic,
        rank_biserial=biserial, pvalue=p, pvalue_adjusted=p_adj, adjustment=adjustment, alpha=alpha,
        reject=np.nan_to_num(p_adj, nan=1.0) <= alpha)


# --------------------------------------------------------------------------- Quade (1979)


@dataclass(frozen=True)
class QuadeTest:
    """Quade's test of a complete design with one score per cell, and what its post hoc needs.

    Attributes
    ----------
    statistic : float
        F = (b - 1) B / (A - B); NaN when A = B (every block ranks the agents alike with equal ranges, or every
        block ties all its agents), as in R.
    df : int
        k - 1 (numerator degrees of freedom).
    df_denominator : int
        (b - 1)(k - 1).
    pvalue : float
        P(F > statistic); (k!)^(1 - b) when the blocks rank the agents alike with equal ranges (R's value); 1 when
        every block ties all its agents (R gives (k!)^(1 - b) there too, though no ranking was observed).
    sums : ndarray, shape (k,)
        S_j = sum_i Q_i (R_ij - (k + 1) / 2) on the 1 = best scale of ``higher_is_better``.
    residual : float
        A - B, the within-block sum of squares of the weighted ranks minus the between-agent part.
    weighted_mean_ranks : ndarray, shape (k,)
        sum_i Q_i R_ij / sum_i Q_i, the mean rank with blocks weighted by the rank of their range (1 = best).
    n : int
        Blocks b.
    """

    statistic: float
    df: int
    df_denominator: int
    pvalue: float
    sums: np.ndarray
    residual: float
    weighted_mean_ranks: np.ndarray
    n: int


def quade_test(scores, *, higher_is_better=True):
    """Quade's (1979) F test on an (n, k) matrix of scores (complete, one per cell), as R's ``quade.test``.

    Within each block the agents get mid-ranks R_ij; the blocks get mid-ranks Q_i of their ranges
    max - min; S_ij = Q_i (R_ij - (k + 1) / 2), A = sum S_ij**2, B = sum_j S_j**2 / b and
    F = (b - 1) B / (A - B) on (k - 1, (b - 1)(k - 1)) degrees of freedom.  The direction of the ranks
    (``higher_is_better``) changes the signs of ``sums`` only, never F.  Scores of a block within
    ``TIE_TOLERANCE`` of each other are ties (:func:`near_ties_by_row`), and so are ranges within their rounding of
    each other (:func:`rlstats.statistics.difference_ties` of each block's
    :func:`rlstats.statistics.difference_tolerance`; audit s36 meta36: tied within the ranges' own tolerance, the
    ranges of integer scores x 7.3 + 1e6 untied and moved F from 21.618 to 21.0).

    References
    ----------
    Quade, D. (1979), JASA 74(367), 680-683; Conover, W. J. (1999), Practical Nonparametric Statistics,
    3rd ed., Section 5.8 (Quade test), eqs. 3-5; R's ``stats::quade.test``.
    """
    from scipy import stats

    n, k = scores.shape
    scores = near_ties_by_row(scores)
    ranks = stats.rankdata(scores, axis=1)
    if higher_is_better:
        ranks = k + 1 - ranks
    low, high = scores.min(axis=1), scores.max(axis=1)
    q = stats.rankdata(difference_ties(high - low, difference_tolerance(high - low,
                                                                        np.maximum(np.abs(low), np.abs(high)))))
    s = q[:, None] * (ranks - (k + 1) / 2.0)
    a = float((s**2).sum())
    sums = s.sum(axis=0)
    b = float((sums**2).sum() / n)
    df, df_den = k - 1, (n - 1) * (k - 1)
    # A = B exactly (R's test) when every block orders the agents alike; the values are multiples of 1/4.
    if a == 0.0:  # every block ties all its agents: every relabelling gives the same ranks, so p = 1
        statistic, pvalue = float("nan"), 1.0
    elif a - b <= 1e-12 * max(a, 1.0):
        statistic, pvalue = float("nan"), float(math.factorial(k)) ** (1 - n)
    else:
        statistic = (n - 1) * b / (a - b)
        pvalue = float(stats.f.sf(statistic, df, df_den))
    return QuadeTest(statistic=statistic, df=df, df_denominator=df_den, pvalue=pvalue, sums=sums,
                     residual=a - b, weighted_mean_ranks=(q[:, None] * ranks).sum(axis=0) / q.sum(), n=n)


def quade_pairs(test, u, v):
    """Conover's t for pairs (u, v) after Quade's test: t = (S_u - S_v) / sqrt(2 b (A - B) / ((b-1)(k-1))).

    Two-sided p-values from Student's t on (b - 1)(k - 1) df, unadjusted (PMCMRplus's
    ``quadeAllPairsTest`` with ``dist = "TDist"``).  NaN when A = B.

    Returns
    -------
    (estimate, t, pvalue) : difference of weighted mean ranks (u minus v), t and p, one per pair.

    References
    ----------
    Conover (1999), Section 5.8, eq. 6 (multiple comparisons after the Quade test).
    """
    from scipy import stats

    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = math.sqrt(2 * test.n * test.residual / test.df_denominator) if test.residual > 0 else 0.0
        t = (test.sums[u] - test.sums[v]) / denominator
    p = 2 * stats.t.sf(np.abs(t), test.df_denominator)
    if not np.any(test.sums):  # every block tied: no pair differs
        t, p = np.zeros(np.size(u)), np.ones(np.size(u))
    estimate = test.weighted_mean_ranks[u] - test.weighted_mean_ranks[v]
    return estimate, t, p


# --------------------------------------------------------------------------- Conover after Friedman


@dataclass(frozen=True)
class ConoverPairs:
    """Conover's all-pairs t after Friedman's test, for the pairs (u, v) asked for.

    Attributes
    ----------
    estimate : ndarray
        Difference of mean ranks, u minus v (1 = best).
    t : ndarray
        (R_u - R_v) / sqrt(2 (b A1 - sum_j R_j**2) / ((b - 1)(k - 1))), rank sums R on the 1 = best scale.  With no
        residual (every agent has the same rank in every task) +-inf, as in R, and 0 for a pair of equal rank sums
        (R's 0/0, NaN): no difference at all, which covers every task tying all its agents.
    pvalue : ndarray
        Two-sided, Student's t on (b - 1)(k - 1) df (0 at an infinite t, 1 at t = 0).
    pvalue_range : ndarray
        P(Q_k >= sqrt(2) |t|), the range of k standard normals (df = inf): PMCMRplus's "single-step".
    df : int
        (b - 1)(k - 1).
    residual : float
        b A1 - sum_j R_j**2, the rank residual (0: every task ranks alike, or every task tied).
    """

    estimate: np.ndarray
    t: np.ndarray
    pvalue: np.ndarray
    pvalue_range: np.ndarray
    df: int
    residual: float


def conover_pairs(scores, u, v, *, higher_is_better=True):
    """Conover's t of rank-sum differences after Friedman's test on an (n, k) complete matrix, one score per cell.

    Within-task mid-ranks r_ij (ties as :func:`near_ties_by_row` makes them), A1 = sum r_ij**2, R_j = sum_i r_ij.
    The pair (u, v) differs when |R_u - R_v| > t_{1 - alpha/2} sqrt(2 (b A1 - sum R_j**2) / ((b - 1)(k - 1))), Student's
    t on (b - 1)(k - 1) df (Conover 1999, Section 5.8, eq. 5.8.6 with ties in A1): the least significant difference of
    an analysis of variance of the within-task ranks.  This is PMCMRplus's ``frdAllPairsConoverTest`` (its
    S2, T2, A, B of Conover and Iman 1979 reduce to the same denominator when m = 1); its "single-step" p-value is the
    studentized range with df = inf at sqrt(2) |t|, as it is here in ``pvalue_range``.

    Returns
    -------
    ConoverPairs

    References
    ----------
    Conover, W. J. (1999), Practical Nonparametric Statistics, 3rd ed., Wiley, Section 5.8 (Friedman test, multiple
    comparisons); Conover, W. J. and Iman, R. L. (1979), On multiple-comparisons procedures, Los Alamos report
    LA-7677-MS.
    """
    from scipy import stats

    n, k = scores.shape
    ranks = stats.rankdata(near_ties_by_row(scores), axis=1)
    if higher_is_better:
        ranks = k + 1 - ranks
    sums = ranks.sum(axis=0)
    df = (n - 1) * (k - 1)
    # b A1 - sum R_j^2 sums squares of integers and half-integers times b: exact in doubles, so 0 is exactly 0
    residual = float(n * (ranks**2).sum() - (sums**2).sum())
    difference = sums[u] - sums[v]
    if residual > 0:
        t = difference / math.sqrt(2.0 * residual / df)
    else:  # each agent keeps one rank in every task: R's 0/0 for a tied pair is 0 here (no difference at all)
        t = np.where(difference == 0, 0.0, np.copysign(np.inf, difference))
    finite = np.where(np.isinf(t), 0.0, t)
    pvalue = np.where(np.isinf(t), 0.0, 2.0 * stats.t.sf(np.abs(finite), df))
    pvalue_range = np.where(np.isinf(t), 0.0, studentized_range_sf(np.sqrt(2.0) * np.abs(finite), k))
    return ConoverPairs(estimate=difference / n, t=np.asarray(t, dtype=float), pvalue=pvalue,
                        pvalue_range=pvalue_range, df=df, residual=residual)


# --------------------------------------------------------------------------- exact rank-sum differences


@functools.lru_cache(maxsize=64)
def rank_sum_difference_null(k, n):
    """Null distribution of D = R_u - R_v, the difference of two Friedman rank sums (k agents, n blocks).

    In one block without ties the ranks of two agents are a random ordered pair of distinct values of
    1..k, so d = r_u - r_v has P(d) = (k - |d|) / (k (k - 1)) for 0 < |d| < k; blocks are independent
    and D is the n-fold convolution.  This is the distribution whose closed form Eisinga et al. (2017,
    eq. 5) give; the convolution of non-negative terms keeps the relative precision of the far tail
    (the closed form's alternating sums need multiple-precision arithmetic).

    Returns
    -------
    upper : ndarray, shape (n (k - 1) + 1,)
        upper[d] = P(|D| >= d) for d = 0..n(k - 1).

    References
    ----------
    Eisinga, R., Heskes, T., Pelzer, B. and Te Grotenhuis, M. (2017), Exact p-values for pairwise
    comparison of Friedman rank sums, with application to comparing classifiers, BMC Bioinformatics 18:68.
    """
    d = np.arange(-(k - 1), k)
    block = (k - np.abs(d)) / float(k * (k - 1))
    block[k - 1] = 0.0  # d = 0 is impossible without ties
    pmf = np.ones(1)
    for _ in range(n):
        pmf = np.convolve(pmf, block)
    centre = n * (k - 1)
    folded = pmf[centre:].copy()   # P(D = d), d >= 0
    folded[1:] += pmf[:centre][::-1]  # plus P(D = -d)
    upper = np.cumsum(folded[::-1])[::-1]
    upper[0] = 1.0  # P(|D| >= 0), which the sum reaches only to round-off
    upper.setflags(write=False)
    return np.minimum(upper, 1.0)


def exact_rank_sum_pvalues(differences, k, n):
    """Two-sided exact p-values P(|D| >= |d|) of rank-sum differences (Eisinga et al. 2017).

    Mid-ranks can make |d| a half-integer; it is then rounded up (the next value D can take).
    """
    upper = rank_sum_difference_null(int(k), int(n))
    at = np.ceil(np.abs(np.asarray(differences, dtype=float)) - 1e-9).astype(int)
    return upper[np.minimum(at, upper.size - 1)]


def rank_sums(scores, *, higher_is_better=True):
    """Friedman's rank sums R_j over the blocks of an (n, k) complete matrix (mid-ranks, 1 = best)."""
    from scipy import stats

    scores = near_ties_by_row(scores)
    ranks = stats.rankdata(-scores if higher_is_better else scores, axis=1)
    return ranks.sum(axis=0), bool(np.any(np.diff(np.sort(scores, axis=1), axis=1) == 0))


def near_ties_by_row(scores):
    """The (n, k) matrix with each row's (block's) near-equal scores made equal (:func:`near_ties`); NaN stays."""
    n, k = scores.shape
    return near_ties(scores.ravel(), np.repeat(np.arange(n), k))[0].reshape(n, k)


def adjust(pvalues, adjustment):
    """The finite p-values adjusted by ``adjustment`` (a key of ``_ADJUST``, R's p.adjust methods); NaN stays NaN."""
    out = np.full(pvalues.shape, np.nan)
    finite = ~np.isnan(pvalues)
    out[finite] = _ADJUST[adjustment](pvalues[finite])
    return out

