"""Arrays in, arrays out: the Bayesian signed-rank test's posterior and the hierarchical model's Gibbs sampler.

No pandas; inputs are trusted (``_api.py`` checks them).  Every random draw comes from the streams handed in, so
the caller decides them (a stream per block of Dirichlet samples; per pair of agents for the chains, whose draws come
from that pair's stream alone however many pairs are sampled together), and a result never depends on how the work
is split.
"""

from __future__ import annotations

import math
from itertools import permutations
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ...resampling import child_stream
from ...statistics import TIE_TOLERANCE, near_ties, tie_tolerance

#: Dirichlet samples drawn per block of the signed-rank posterior (a fixed size: blocks, not n_jobs, key the streams)
BLOCK = 10_000

#: Metropolis steps of (sigma0, nu) per sweep of the Gibbs sampler
SCALE_STEPS = 6

#: draws kept per pair for the figures (the first ones, in stream order)
KEPT_DRAWS = 1_000

#: Marsaglia-Tsang candidates drawn for each lambda of a sweep (:func:`_gamma_above_one`): both are rejected with
#: chance below 0.049^2 = 0.0024 (at shape 1, the least acceptance), and then the pair's own extra stream draws it
LAMBDA_TRIES = 2

#: the grid on which the hierarchical sampler reads its standardised inputs (:func:`snapped`): 2^-20 of each task's
#: own spread (its differences' standard deviation, to a power of 2), about 1e-6 of it, for the sums; a step of at
#: most 2^-20 of the value for the squares and the priors' bounds
SNAP_BITS = 20

#: the most bytes of a pair's variates drawn ahead, for all the pairs together (:class:`_PairDraws`); the draws
#: never depend on it (each kind of variate has a stream of its own)
DRAWN_AHEAD = 8 << 20


# ---------------------------------------------------------------------------- the Bayesian signed-rank test

def runs_do_not_vary(within: ArrayLike, squares: ArrayLike) -> NDArray[np.bool_]:
    """Where runs do not vary: their sum of squared deviations ``within`` is rounding noise beside their sum of
    squares (at most 1e-24 of it, a relative test, so the same whatever the score's units; review s7: a floor of 1
    refused runs of 1e-13 to 3e-13 that vary, and passed them times 1e13)."""
    return np.asarray(within, dtype=np.float64) <= 1e-24 * np.asarray(squares, dtype=np.float64)


def dirichlet_block(generator: np.random.Generator, n_samples: int, n_tasks: int,
                    prior: float, tasks: Any = None) -> NDArray[np.float64]:
    """(1 + n_tasks, n_samples) Dirichlet weights, one sample a column: the pseudo-observation's (concentration
    ``prior``) first, then one per task (concentration 1), as normalised gamma draws (Gamma(1) is the exponential).
    Atoms are rows, so the gathers of :func:`signed_rank_block` copy contiguous rows.

    ``tasks``: one generator per task, whose row it alone draws (bayes() keys each by the task's label, so that a
    task's draws follow neither the other tasks' names nor their number: audit s33 curvestream33); None, every row
    from ``generator``."""
    gammas = np.empty((1 + n_tasks, n_samples))
    gammas[0] = generator.standard_gamma(prior, size=n_samples)
    if tasks is None:
        gammas[1:] = generator.standard_exponential(size=(n_tasks, n_samples))
    else:
        for row, task in zip(gammas[1:], tasks):
            task.standard_exponential(out=row)
    gammas /= gammas.sum(axis=0)
    return gammas


def _staircase(sums, bound, tolerance):
    """Per atom i, how many atoms j have d_i + d_j below ``bound`` and how many at most ``bound``.

    The sums d_i + d_j of the atoms (the pseudo-observation 0 first) are compared with 2 rope, the Walsh average's
    bound (Benavoli et al. 2014, eq. 9; a row of sums in sorted order is monotone, since
    rounded addition is, so each count is a prefix of the sorted atoms).  A sum within ``tolerance`` of the bound is
    on it, so that rounding in the differences (scores shifted or scaled) cannot move it across.
    """
    return (sums < bound - tolerance).sum(axis=1), (sums <= bound + tolerance).sum(axis=1)


def _form(w, cum, counts):
    """sum_i w_i (mass of the atoms j whose Walsh average with atom i is below the bound, those on it counted 1/2),
    per sample: the quadratic form w' B w, B_ij = [Walsh average of atoms i and j beyond the bound] (1/2 on it), in O(n)
    per sample instead of O(n^2)."""
    lt, le = counts
    return 0.5 * (np.einsum("is,is->s", w, cum[lt]) + np.einsum("is,is->s", w, cum[le]))


def signed_rank_block(weights: NDArray[np.float64], differences: NDArray[np.float64], present: NDArray[np.bool_],
                      rope: float, tolerance: NDArray[np.float64] | None = None
                      ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The posterior draws of one block for every pair.

    Parameters
    ----------
    weights : (1 + n_tasks, S)
        Shared Dirichlet weights (pseudo-observation first), :func:`dirichlet_block`.  A pair present on a subset of
        the tasks uses that subset's weights renormalised, which is the Dirichlet posterior of its own tasks (the
        aggregation property).
    differences : (n_pairs, n_tasks)
        Task-level mean differences (any value where the pair did not both run).
    present : (n_pairs, n_tasks)
    tolerance : (n_pairs,), optional
        Each pair's distance within which a sum of two atoms, d_i + d_j, is on a ROPE bound -2 rope (twice the
        :func:`rlstats.statistics.tie_tolerance` of its differences' range and its largest |task-level score|, the
        tie rule of :func:`rlstats.statistics.near_ties`); exact comparisons when omitted.

    Returns
    -------
    theta : (S, n_pairs, 3)
        The posterior masses of (worse, rope, better): the Dirichlet-weighted share of the pairs of atoms (Walsh
        averages, the pseudo-observation 0 and each atom with itself included) below -rope, within, above rope;
        ties with the bounds count 1/2 (Benavoli et al. 2014, eq. 9; Benavoli et al. 2017, section 5.2).  The masses
        below and above are each computed directly (above: below -rope of the negated atoms), not as complements,
        so that mirrored data give bit-identical masses.
    mean : (S, n_pairs)
        The Dirichlet process posterior of the mean difference (the pseudo-observation at 0 included).
    """
    n_samples, n_pairs = weights.shape[1], differences.shape[0]
    theta = np.empty((n_samples, n_pairs, 3))
    mean = np.empty((n_samples, n_pairs))
    for p in range(n_pairs):
        keep = np.concatenate(([True], present[p]))
        d = np.concatenate(([0.0], differences[p, present[p]]))
        w = weights if keep.all() else weights[keep] / weights[keep].sum(axis=0)
        order = np.argsort(d, kind="stable")
        cum = _cumulative(w, order)
        on = 0.0 if tolerance is None else float(tolerance[p])
        sums = d[:, None] + d[None, order]
        theta[:, p, 0] = _form(w, cum, _staircase(sums, -2 * rope, on))
        # above rope: the mass below -rope of the negated atoms, computed the same way (not 1 - the mass below
        # rope, whose rounding would break exact ties between worse and better)
        mirror = np.argsort(-d, kind="stable")
        cum_m = _cumulative(w, mirror)
        theta[:, p, 2] = _form(w, cum_m, _staircase(-d[:, None] - d[None, mirror], -2 * rope, on))
        mean[:, p] = d[1:] @ w[1:]
    theta[:, :, 1] = 1.0 - theta[:, :, 0] - theta[:, :, 2]
    return theta, mean


def _cumulative(w, order):
    """(n + 1, S): the cumulative weights of the atoms in ``order`` (row 0 zero), row by row: the sums
    ``np.cumsum(w[order], axis=0)`` gives, bit for bit (one addition a row, in order), at a fraction of its cost
    (numpy accumulates down a column of a C-ordered array with a stride of a row)."""
    cum = np.empty((w.shape[0] + 1, w.shape[1]))
    cum[0] = 0.0
    for k, i in enumerate(order):
        np.add(cum[k], w[i], out=cum[k + 1])
    return cum


def posterior_pseudo_median(weights: NDArray[np.float64], differences: NDArray[np.float64],
                            present: NDArray[np.bool_]) -> float:
    """The posterior median of a pair's pseudo-median: per draw, the median of the Walsh averages (d_i + d_j) / 2 of
    its atoms (the pseudo-observation 0 and its ``differences`` where ``present``) weighted w_i w_j over every ordered
    pair (i, j), itself included, whose masses below -rope, within and above rope are :func:`signed_rank_block`'s
    ``theta``: the quantity the regions' probabilities are about (the mean of the differences is another, which an
    outlying task can give the other sign).  The median over draws as ``np.median`` takes it (the mean of the two
    middle draws for an even count).

    ``weights`` (1 + n_tasks, S): every draw's Dirichlet weights (:func:`dirichlet_block`).  A draw's pseudo-median is at
    most v exactly where the weight of its pairs whose sum is at most 2 v reaches 1/2, sum_i w_i cum[c_i(v)] >= 1/2 (cum
    the cumulative weights of the sorted atoms, c_i(v) the atoms j with d_i + d_j <= 2 v, a prefix count since each row
    of sums is monotone), so the draws' order statistics are found by bisection over the sorted distinct sums, each
    step reading all draws at one sum: rows of ``cum``, not a gather per draw."""
    keep = np.concatenate(([True], present))
    d = np.concatenate(([0.0], differences[present]))
    w = weights if keep.all() else weights[keep] / weights[keep].sum(axis=0)
    order = np.argsort(d, kind="stable")
    cum = _cumulative(w, order)
    ordered = d[order]
    sums = np.unique(ordered[:, None] + ordered[None, :])
    rows = [di + ordered for di in d]  # row i's sums in sorted order: searched exactly, not as v - d_i (rounded)
    seen: dict[int, int] = {}

    def at_most(k):
        """How many draws' pseudo-medians are at most sums[k] / 2."""
        if k not in seen:
            counts = [int(np.searchsorted(row, sums[k], side="right")) for row in rows]
            seen[k] = int(np.count_nonzero(np.einsum("is,is->s", w, cum[counts]) >= 0.5))
        return seen[k]

    def smallest(j, low=0):
        """The index of the j-th smallest draw's pseudo-median among the sums."""
        high = sums.size - 1
        while low < high:
            middle = (low + high) // 2
            if at_most(middle) >= j:
                high = middle
            else:
                low = middle + 1
        return low

    n = w.shape[1]
    first = smallest((n + 1) // 2)
    second = first if n % 2 or at_most(first) >= n // 2 + 1 else smallest(n // 2 + 1, first + 1)
    return float((sums[first] / 2 + sums[second] / 2) / 2)


def winner_counts(theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """(n_pairs, 3): in how many samples each of (worse, rope, better) holds the largest posterior mass.

    Regions whose masses are within ``TIE_TOLERANCE`` of the largest share that sample equally (1/2 each for two,
    1/3 for three), so that identical agents give P(worse) = P(better) whichever is named first (baycomp's
    ``probs`` gives a tie to the first region instead).
    """
    top = theta.max(axis=2, keepdims=True)
    tied = theta >= top - TIE_TOLERANCE
    share = tied / tied.sum(axis=2, keepdims=True)
    return share.sum(axis=0)


def ordering_codes(weights: NDArray[np.float64], task_means: NDArray[np.float64],
                   higher_is_better: bool) -> NDArray[np.int64]:
    """Per sample, the weak ordering of the agents by their Dirichlet-weighted mean over tasks (best first), as a code
    of :func:`codes_of`.  Two means tie within 1e-12 of the sample's range of means plus 4 eps of n_tasks times
    its largest weighted mean of |task means| (the bound on the rounding of a weighted sum of n_tasks terms), so
    that agents with the same task means (both at a score cap, or the same runs summed in another order, which can
    differ in the last bit) tie in every sample, and a shift of a task's scores (which moves every agent's mean
    alike) leaves the ties as they were but for its rounding."""
    task_weights = weights[1:].T                    # (S, n_tasks); the pseudo-observation carries no agent
    means = task_weights @ task_means               # (S, n_agents)
    scale = task_means.shape[0] * (task_weights @ np.abs(task_means)).max(axis=1)
    return codes_of(means, higher_is_better, scale)


def codes_of(values: NDArray[np.float64], higher_is_better: bool = True,
             scale: NDArray[np.float64] | None = None) -> NDArray[np.int64]:
    """Per row of ``values`` (S, n_agents), the weak ordering of the agents by their value, best first, as one integer.

    Values of a row within the row's :func:`rlstats.statistics.tie_tolerance` of each other tie (the rule of
    :func:`rlstats.statistics.near_ties`, a chain of such steps joining one group): 1e-12 of the row's range plus 4
    eps of ``scale``, the size that bounds the rounding of the row's values (default: its largest |value|).  The
    code is ``lehmer + n_agents! * links``: ``lehmer`` the index in :func:`orderings` of the agents ranked best
    first, tied agents in the agents' order (so each weak ordering has one code whatever the agents' order in the
    row), and ``links`` has bit ``p`` set when the agents at places ``p`` and ``p + 1`` tie.
    A row without ties is its strict ordering's index, as before ties were told apart; :func:`weak_ordering` decodes.
    """
    rows, k = values.shape
    sign = -1.0 if higher_is_better else 1.0
    order = np.argsort(sign * values, axis=1, kind="stable")
    ranked = np.take_along_axis(values, order, axis=1)
    bound = np.abs(values).max(axis=1) if scale is None else np.asarray(scale, dtype=np.float64)
    tolerance = tie_tolerance(values.max(axis=1) - values.min(axis=1), bound)
    near = (np.abs(np.diff(ranked, axis=1)) <= tolerance[:, None]).any(axis=1)
    if near.any():
        # the rows holding a tie (most draws hold none): their tied values made exactly equal, then ranked again
        tied = values[near]
        draw = np.repeat(np.arange(tied.shape[0]), k)  # each row a block
        snapped = near_ties(tied.ravel(), draw, tolerance[near])[0].reshape(tied.shape)
        order[near] = np.argsort(sign * snapped, axis=1, kind="stable")
        ranked[near] = np.take_along_axis(snapped, order[near], axis=1)
    # lexicographic rank of a permutation (Lehmer code), so every ordering has one integer
    code = np.zeros(rows, dtype=np.int64)
    remaining = np.ones((rows, k), dtype=bool)
    index = np.arange(rows)
    for position in range(k):
        chosen = order[:, position]
        smaller = np.cumsum(remaining, axis=1)[index, chosen] - 1
        code += smaller * math.factorial(k - 1 - position)
        remaining[index, chosen] = False
    links = (ranked[:, 1:] == ranked[:, :-1]).astype(np.int64) @ (np.int64(1) << np.arange(k - 1, dtype=np.int64))
    return code + math.factorial(k) * links


def orderings(n_agents: int) -> list[tuple[int, ...]]:
    """Every strict ordering of ``n_agents`` in lexicographic order: the index is :func:`codes_of`'s Lehmer code."""
    return list(permutations(range(n_agents)))


def weak_ordering(code: int, n_agents: int) -> list[tuple[int, ...]]:
    """The agents' tied groups, best first, of a :func:`codes_of` code (agents in their order within a group)."""
    links, lehmer = divmod(int(code), math.factorial(n_agents))
    remaining = list(range(n_agents))
    ranked = []
    for position in range(n_agents):
        step = math.factorial(n_agents - 1 - position)
        ranked.append(remaining.pop(lehmer // step))
        lehmer %= step
    groups = [[ranked[0]]]
    for position in range(1, n_agents):
        if links >> (position - 1) & 1:
            groups[-1].append(ranked[position])
        else:
            groups.append([ranked[position]])
    return [tuple(group) for group in groups]


# ---------------------------------------------------------------------------- the hierarchical model

class Priors(NamedTuple):
    """The hierarchical model's priors on the standardised differences (Corani et al. 2017, section 4; the values of
    baycomp's ``HierarchicalTest``): delta0 ~ U(-delta_high, delta_high), sigma0 ~ U(0, sigma0_high),
    sigma_i ~ U(0, sigma_high), nu - 1 ~ Gamma(alpha, beta) (shape, rate), alpha ~ U(alpha_low, alpha_high),
    beta ~ U(beta_low, beta_high)."""

    delta_high: NDArray[np.float64]     # (n_pairs,)
    sigma0_high: NDArray[np.float64]    # (n_pairs,)
    sigma_high: NDArray[np.float64]     # (n_pairs,)
    alpha_low: float = 1.0
    alpha_high: float = 2.0
    beta_low: float = 0.01
    beta_high: float = 0.1


class Chains(NamedTuple):
    """Draws after warm-up, shape (n_pairs, chains, draws[, n_tasks])."""

    delta0: NDArray[np.float64]
    sigma0: NDArray[np.float64]
    nu: NDArray[np.float64]
    delta: NDArray[np.float64]


def _ndtri(p):
    from scipy.special import ndtri

    return ndtri(p)


def _truncated_normal(mean, sd, low, high, u, first):
    """Draws of N(mean, sd) truncated to (low, high): ``mean + sd * first`` (``first`` standard normal draws) where it
    falls inside, else an inverse-CDF draw from uniform ``u`` (exact, as :func:`_truncated_gamma` explains).
    ``mean``, ``sd`` and ``u`` have the draws' shape; ``low`` and ``high`` that shape or a number (the sampler hands
    them so: a sweep draws three of these, and broadcasting small arrays costs more than the draws)."""
    out = mean + sd * first
    outside = (out <= low) | (out >= high)
    if np.count_nonzero(outside):
        m, s = mean[outside], sd[outside]
        lo = low if np.ndim(low) == 0 else low[outside]
        hi = high if np.ndim(high) == 0 else high[outside]
        special = _special()
        a, b = special.ndtr((lo - m) / s), special.ndtr((hi - m) / s)
        # np.minimum(np.maximum(x, lo), hi) is np.clip(x, lo, hi) (NaN kept) without its Python layers
        p = np.minimum(np.maximum(a + u[outside] * (b - a), 1e-300), 1 - 1e-16)
        out[outside] = np.minimum(np.maximum(m + s * special.ndtri(p), lo), hi)
    return out


_SPECIAL: list[Any] = []


def _special():
    """scipy.special, imported on first use and kept (an import statement in a function called 10^4 times a fit
    costs; scipy's import is not paid by ``import rlstats``)."""
    if not _SPECIAL:
        import scipy.special

        _SPECIAL.append(scipy.special)
    return _SPECIAL[0]


def _log_m_prior(m, log_m, alpha_1, log_alpha, beta):
    """log p(m | alpha) up to terms free of m and alpha, m = nu - 1 ~ Gamma(alpha, rate beta) with beta ~ U(beta_low,
    beta_high) integrated out: the integral of beta^alpha m^(alpha - 1) e^(-beta m) / Gamma(alpha) over the interval
    is alpha m^-2 [P(alpha + 1, beta_high m) - P(alpha + 1, beta_low m)], P the regularised lower incomplete gamma.
    ``alpha_1`` is alpha + 1, ``beta`` (2, 1, 1): (beta_high, beta_low), so both incomplete gammas are one call.  The caller silences log(0)
    (a mass that underflows is -inf: a proposal there is rejected)."""
    both = _special().gammainc(alpha_1, beta * m)
    return log_alpha - 2 * log_m + np.log(both[0] - both[1])


def _log_nu_terms(m, log_m, q):
    """The terms of log p(log sigma0, log(nu - 1) | ...) that depend on m = nu - 1 alone (alpha's prior aside): the q
    Student t normalising constants up to terms free of nu, log Gamma((nu + 1)/2) - log Gamma(nu/2) - log(nu)/2 =
    log Gamma(1/2) - log B(nu/2, 1/2) - log(nu)/2 (one call, and no cancellation of two large log-gammas when nu is
    large), and the Jacobian log m."""
    return log_m - q * (_special().betaln(0.5 + 0.5 * m, 0.5) + 0.5 * np.log1p(m))


def snapped(values: ArrayLike, relative: bool = False, unit: ArrayLike = 1.0) -> NDArray[np.float64]:
    """``values`` rounded to a grid of :data:`SNAP_BITS`: 2^-20 of ``unit`` apart (``unit`` to a power of 2 below it:
    a step 2^-21 to 2^-20 of it, broadcast against ``values``; ``relative``: a step of at most 2^-20 of the value, 21
    significant bits, so that a small positive value is never rounded to 0), to the nearest point, ties to even.

    The Gibbs sampler's draws are not a smooth function of its inputs: a sweep can amplify a perturbation of 1e-11 a
    million times (where sigma0 is small), until a Metropolis or rejection decision flips and the chains part.  The
    standardised inputs of scores shifted by 1e4 are those of the scores to about 1e-12 (the shifted scores' own
    rounding), so read as they come they gave other chains (audit s35 meta35: p_better 0.6384 -> 0.6397).  Rounded to
    this grid, they are the same numbers unless one lies within that rounding of a point halfway between two of the
    grid's (or a ``unit`` within it of a power of 2), a chance of about the rounding / the grid's step each, and the
    draws are then the same bit for bit (audit s36 rv36b, 1.2 million pairs of 5 tasks x 4 runs of scores ~ 20 whose
    differences spread by 1: some input of a pair moved in 2.3e-5 of the pairs at + 1e4, 1.5e-3 at + 1e6, none under
    a scale; bayes36's one grid of 2^-20 of the pair's scale, 1.6e-5 and 1.1e-3; a grid of 2^-30, 0.017 and 0.67).
    The sampler's sums take their task's own spread as ``unit`` (its runs' standard deviation, in the standardised
    units): the grid's step is then far below anything the posterior resolves of each task (1e-6 of the task's
    spread, where the posterior of the task's mean spreads over its spread / sqrt(runs) and its Monte Carlo error is
    about 1e-2 of that), and a scale of the scores does not move it (audit s36 rv36b: on one grid for the pair, a task
    whose differences varied by 5e-4 beside a pair's scale of 2.8e5 had its mean, -0.005, rounded to 0).

    >>> snapped([1 + 2.0 ** -22, -3e-8, 0.0]).tolist()
    [1.0, 0.0, 0.0]
    >>> snapped([-3e-8, 1 + 2.0 ** -22], unit=[1e-6, 3.0]).tolist()    # steps 2^-40 and 2^-19
    [-2.999968273798004e-08, 1.0]
    >>> low, high = snapped([1e-30, 1e-30 * (1 + 1e-12)], relative=True)
    >>> bool(low == high), bool(abs(low / 1e-30 - 1) < 2.0 ** -20)
    (True, True)
    """
    values = np.asarray(values, dtype=np.float64)
    if relative:
        fraction, exponent = np.frexp(values)      # fraction in [0.5, 1): times 2^21, an integer of 21 bits
        return np.ldexp(np.round(np.ldexp(fraction, SNAP_BITS + 1)), exponent - (SNAP_BITS + 1))
    # unit in [2^(e - 1), 2^e): values on the grid of 2^(e - 1 - SNAP_BITS), as integers; multiplying by 2^k is exact
    bits = SNAP_BITS + 1 - np.frexp(np.asarray(unit, dtype=np.float64))[1]
    with np.errstate(over="ignore"):
        steps = np.ldexp(values, bits)
    # beyond 2^60 steps, floats are coarser than the grid (and 2^k may overflow); + 0.0 makes a -0.0 (a small
    # negative value's point) 0.0
    return np.where(np.abs(steps) < 2.0 ** 60, np.ldexp(np.round(steps), -bits), values) + 0.0


def gibbs(sums: NDArray[np.float64], counts: NDArray[np.float64], within: NDArray[np.float64], priors: Priors,
          streams: list[np.random.SeedSequence], chains: int, warmup: int, draws: int,
          reference: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None = None,
          shared: np.random.Generator | None = None) -> tuple[Chains, NDArray[Any]]:
    """Run the Gibbs sampler of the hierarchical model for a group of pairs at once.

    The model (Corani et al. 2017, with independent runs: their correlation rho = 0) on the standardised run-level
    differences x_ij of task i:

        x_ij ~ N(delta_i, sigma_i^2),  delta_i ~ t_nu(delta0, sigma0),  priors as in :class:`Priors`.

    The Student t is written as a scale mixture, delta_i | lambda_i ~ N(delta0, sigma0^2 / lambda_i) with
    lambda_i ~ Gamma(nu / 2, rate nu / 2), so that delta_i, lambda_i, delta0, 1/sigma0^2 and 1/sigma_i^2 have
    conjugate conditionals (truncated to the priors' intervals: an untruncated draw where it falls inside, else an
    inverse-CDF draw, or a redraw of the rare 1/sigma_i^2 that falls out).  Three moves fight the model's slow directions: delta0 and sigma0 are drawn again given
    z = (delta - delta0) / sigma0 (interweaving the centred and non-centred parametrisations, Yu and Meng 2011);
    (sigma0, nu, lambda) is updated as a block, (sigma0, nu) by random-walk Metropolis on (log sigma0, log(nu - 1))
    with the lambdas integrated out and a proposal covariance learnt in warm-up (heavy tails and a small spread trade
    off), then the lambdas given them; alpha by random-walk Metropolis on its interval.  beta (the rate of nu - 1's
    Gamma prior) is integrated out of both Metropolis moves in closed form (:func:`_log_m_prior`): drawn given nu,
    as it was before issue 41's R-hat work, it made a slow see-saw with nu.

    The runs enter only through their sufficient statistics per task (sum, number, squares around the mean), and a
    sweep is a fixed sequence of whole-array operations over (tasks, pairs, chains), tasks first so that sums over
    the tasks add contiguous rows; the Metropolis densities reuse what a sweep already knows (the squared deviations
    once per sweep, the terms of nu and alpha alone carried with the state), so a proposal costs one pass over the
    tasks (issue 41 item 4's speed work; the moves and their law are those of the sampler before it).

    Parameters
    ----------
    sums, counts, within : (n_pairs, n_tasks)
        Per pair and task: the sum of the paired run differences, their number (at least 2) and their sum of
        squares around their mean.
    streams : list of numpy.random.SeedSequence
        One per pair (row): every draw of a pair's chains comes from its own stream (:class:`_PairDraws`), so a
        pair's chains are the same whichever other pairs are sampled with it (audit s33; they were drawn from one
        generator in arrays over the group's pairs).  Each sweep's variates are the same whole-array operations
        over the pairs as before, drawn ahead a block of sweeps at a time.
    reference : (sums, counts, within) of shape (n_tasks,), optional
        The joint model of all agents against one reference agent (the orderings' model): ``sums``, ``counts`` and
        ``within`` are then each other agent's own runs (a row per agent), these the reference's, and the model is
        y_aij ~ N(mu_i + delta_ai, sigma_ai^2), y_rij ~ N(mu_i, sigma_ri^2), delta_ai ~ t_nu_a(delta0_a, sigma0_a)
        with a flat prior on the reference's task means mu_i, sigma_ri ~ U(0, max ``sigma_high``).  Each sweep draws
        the 1/sigma^2, then mu given them with the deltas integrated out (a normal per task and chain), then the
        deltas given mu, then each agent's hyperparameters as in the pairwise model.  Without it the stream of
        draws is exactly the pairwise model's.
    shared : numpy.random.Generator
        With ``reference``, the stream of the draws the rows share (the reference's 1/sigma^2 and task means).

    Returns
    -------
    (Chains, acceptance) with acceptance (n_pairs, chains) the Metropolis acceptance rate of (sigma0, nu) after
    warm-up.  ``Chains.delta`` is a (n_pairs, chains, draws, n_tasks) view of task-major memory, so that one task's
    draws are contiguous.
    """
    n_pairs, q = sums.shape
    c = chains
    shape3 = (q, n_pairs, c)                     # tasks first: a sum over the tasks adds contiguous rows
    n_t = np.ascontiguousarray(counts.T)[:, :, None]
    within_t = np.ascontiguousarray(within.T)[:, :, None]
    mean_t = np.ascontiguousarray((sums / counts).T)[:, :, None]
    dh, s0h = priors.delta_high[:, None], priors.sigma0_high[:, None]
    log_s0h = np.log(s0h)
    low_tau = (1.0 / np.square(priors.sigma_high))[:, None]
    beta = np.array([priors.beta_high, priors.beta_low])[:, None, None]
    mx = mean_t                                  # the data's per-task mean of the differences, (q, n_pairs, 1 or c)
    if reference is not None:
        sums_r, counts_r, within_r = (np.asarray(v, dtype=np.float64)[:, None] for v in reference)
        mean_r = sums_r / counts_r
        mu = np.repeat(mean_r, c, axis=1)        # (q, c)
        mx = mean_t - mu[:, None, :]
        shape_r = (counts_r - 1) / 2
        low_tau_r = 1.0 / np.square(priors.sigma_high.max())
    # start each chain at a dispersed point: the task means jittered, delta0 and sigma0 from their spread
    own = _PairDraws(streams, c, q, counts, warmup + draws)
    u0 = np.stack([extra.random((c, q + 2)) for extra in own.extra])
    spread0 = np.sqrt(within / np.maximum(counts - 1, 1)).T[:, :, None]
    delta = mx + (np.moveaxis(u0[..., :q], -1, 0) - 0.5) * spread0
    delta0 = (u0[..., q] - 0.5) * dh
    sigma0 = np.maximum(np.std(mx, axis=0), 1e-3 * s0h) * (0.5 + u0[..., q + 1])
    sigma0 = np.minimum(sigma0, 0.999 * s0h)
    lam = np.ones(shape3)
    alpha = np.full((n_pairs, c), 0.5 * (priors.alpha_low + priors.alpha_high))
    # the Metropolis state, one row each: log sigma0, log m (m = nu - 1), m's terms alone (:func:`_log_nu_terms`),
    # m's prior given alpha (:func:`_log_m_prior`), and the density; a proposal fills the same rows and one masked
    # copy moves the accepted chains
    LOG_S, LOG_M, NU_TERMS, M_PRIOR, DENSITY = range(5)
    state = np.empty((5, n_pairs, c))
    proposal = np.empty((5, n_pairs, c))
    m = np.full((n_pairs, c), 4.0)
    state[LOG_M] = np.log(m)
    with np.errstate(divide="ignore"):
        state[NU_TERMS] = _log_nu_terms(m, state[LOG_M], q)
        state[M_PRIOR] = _log_m_prior(m, state[LOG_M], alpha + 1, np.log(alpha), beta)
    # the (log sigma0, log m) proposal: a lower Cholesky factor per chain times the step's scale, learnt from the
    # warm-up's states
    chol = np.zeros((n_pairs, c, 2, 2))
    chol[..., 0, 0], chol[..., 1, 1] = 0.3, 0.5
    scale = np.ones((n_pairs, c))
    l00, l10, l11 = chol[..., 0, 0] * scale, chol[..., 1, 0] * scale, chol[..., 1, 1] * scale
    history = np.empty((n_pairs, c, warmup, 2))
    step_alpha = 0.5 * (priors.alpha_high - priors.alpha_low)
    # 1/sigma_i^2's gamma shape under sigma_i's prior, for the rare redraw (the draws themselves are own's)
    shape_sigma = np.broadcast_to((n_t - 1) / 2, shape3)
    low_tau0 = 1.0 / np.square(s0h)
    total = warmup + draws
    out_delta0 = np.empty((n_pairs, c, draws))
    out_sigma0 = np.empty((n_pairs, c, draws))
    out_nu = np.empty((n_pairs, c, draws))
    out_delta = np.empty((draws,) + shape3)
    accepted = np.zeros((n_pairs, c))
    window = np.zeros((n_pairs, c))
    # one block of draws per sweep: normals (the deltas' q, then alpha's, 2 per Metropolis step, delta0's and the
    # interweaving's 3) and uniforms (the truncations' inverse CDFs, then alpha's and the steps' acceptances)
    # (and the lambdas' Marsaglia-Tsang candidates after them, :class:`_PairDraws`)
    N_ALPHA, N_STEPS, N_DELTA0 = q, q + 1, q + 1 + 2 * SCALE_STEPS
    U_ALPHA = 4
    g = shared
    # what a sweep reads but never changes, made once: the bounds at the chains' shape (so the truncated draws index
    # them without broadcasting), scipy's functions, the sums as one C call (ndarray.sum's Python layer is half the
    # cost of these small sums); every value a sweep computes is the same operation on the same numbers as before
    # (audit s35 bayes35: the same draws bit for bit, in about half the time on small designs)
    special = _special()
    betaln, gammainc, add = special.betaln, special.gammainc, np.add.reduce
    chain_shape = (n_pairs, c)
    low_d, high_d = np.broadcast_to(-dh, chain_shape).copy(), np.broadcast_to(dh, chain_shape).copy()
    high_s = np.broadcast_to(s0h, chain_shape).copy()
    one_q = 1 - q
    lambda_normals, lambda_uniforms = own.tries
    take = np.empty(chain_shape)
    steps = np.empty((SCALE_STEPS, 2) + chain_shape)
    # the proposal's rows, named once (views)
    proposal_logs, log_s, log_m = proposal[LOG_S:LOG_M + 1], proposal[LOG_S], proposal[LOG_M]
    nu_terms, m_prior, density = proposal[NU_TERMS], proposal[M_PRIOR], proposal[DENSITY]
    state_logs, state_density = state[LOG_S:LOG_M + 1], state[DENSITY]
    inside = np.empty(chain_shape, dtype=bool)
    moved = np.empty(chain_shape, dtype=bool)
    with np.errstate(divide="ignore"):         # log(0) of an underflowed prior mass: -inf, a rejection
        for it in range(total):
            normals, uniforms, gamma_sigma, gamma0 = own.sweep()
            log_u = np.log(uniforms[U_ALPHA:U_ALPHA + 1 + SCALE_STEPS])
            # 1/sigma_i^2 | delta_i: Gamma((n_i - 1)/2, rate S_i/2), S_i the squares around delta_i; redraw below
            # 1/high^2 (from the pair's own extra stream)
            resid = mx - delta
            half_squares = 0.5 * (within_t + n_t * (resid * resid))
            tau = gamma_sigma / half_squares
            low = tau < low_tau
            while np.count_nonzero(low):
                for i in np.flatnonzero(low):
                    pair = i // c % n_pairs
                    tau.flat[i] = own.extra[pair].standard_gamma(shape_sigma.flat[i]) / half_squares.flat[i]
                low = tau < low_tau
            if reference is not None:
                # the reference's 1/sigma^2, then mu_i | the 1/sigma^2, delta0, sigma0, lambda with the deltas
                # integrated out: each other agent's task mean is N(mu_i + delta0_a, 1/(n tau) + sigma0^2/lambda),
                # the reference's N(mu_i, 1/(n_r tau_r)); then the deltas given mu (below)
                assert g is not None  # given with the reference (the rows' shared draws)
                half_r = 0.5 * (within_r + counts_r * np.square(mean_r - mu))
                tau_r = g.standard_gamma(shape_r, size=(q, c)) / half_r
                low = tau_r < low_tau_r
                while low.any():
                    tau_r = np.where(low, g.standard_gamma(shape_r, size=(q, c)) / half_r, tau_r)
                    low = tau_r < low_tau_r
                weight_a = 1.0 / (1.0 / (n_t * tau) + np.square(sigma0) / lam)
                precision_mu = counts_r * tau_r + weight_a.sum(axis=1)
                centre_mu = (counts_r * tau_r * mean_r + (weight_a * (mean_t - delta0)).sum(axis=1)) / precision_mu
                mu = centre_mu + g.standard_normal((q, c)) / np.sqrt(precision_mu)
                mx = mean_t - mu[:, None, :]
            # delta_i | sigma_i, lambda_i, delta0, sigma0: normal
            data_precision = n_t * tau
            data_term = data_precision * mx
            prior_precision = lam * (1.0 / (sigma0 * sigma0))
            precision = data_precision + prior_precision
            delta = (data_term + prior_precision * delta0) / precision + normals[:q] / np.sqrt(precision)
            # delta0 | delta, lambda, sigma0: normal truncated to the prior's interval
            weight = add(lam, 0)
            delta0 = _truncated_normal(add(lam * delta, 0) / weight, sigma0 / np.sqrt(weight), low_d, high_d,
                                       uniforms[0], normals[N_DELTA0])
            # 1/sigma0^2 | delta, delta0, lambda: Gamma((q - 1)/2, rate sum lambda_i (delta_i - delta0)^2 / 2),
            # truncated below at 1/sigma0_high^2 by the inverse CDF
            deviations = delta - delta0
            spread = 0.5 * add(lam * (deviations * deviations), 0)
            tau0 = _truncated_gamma((q - 1) / 2, spread, low_tau0, uniforms[1], gamma0)
            sigma0 = 1.0 / np.sqrt(tau0)
            # interweaving (Yu and Meng 2011): delta0 and sigma0 again given z = (delta - delta0) / sigma0, whose
            # prior N(0, 1/lambda) involves neither, so the data alone speak: each is normal, truncated to its
            # prior's interval.  The centred updates above mix slowly when the tasks' differences are noisy next to
            # their spread (a funnel); these mix slowly in the opposite case: together they do not.  The sums over
            # the tasks are expanded (sum w (mx - sigma0 z) = sum w mx - sigma0 sum w z) so each is taken once.
            z = deviations / sigma0
            weighted_z = data_precision * z
            prec0 = add(data_precision, 0)
            sum_wz = add(weighted_z, 0)
            delta0 = _truncated_normal((add(data_term, 0) - sigma0 * sum_wz) / prec0, 1.0 / np.sqrt(prec0),
                                       low_d, high_d, uniforms[2], normals[N_DELTA0 + 1])
            prec_s = add(weighted_z * z, 0)
            sigma0 = _truncated_normal((add(weighted_z * mx, 0) - delta0 * sum_wz) / prec_s,
                                       1.0 / np.sqrt(prec_s), 0.0, high_s, uniforms[3], normals[N_DELTA0 + 2])
            sigma0 = np.maximum(sigma0, 1e-300)
            deviations = sigma0 * z
            delta = delta0 + deviations
            # (sigma0, nu) | delta, delta0, alpha, the lambdas and beta integrated out: Metropolis on the logs.  The
            # density: (1 - q) log sigma0 + the terms of m + m's prior - (nu + 1)/2 sum_i log(1 + d_i^2/(sigma0^2 nu))
            squares = deviations * deviations
            np.log(sigma0, out=state[LOG_S])
            log_alpha = np.log(alpha)
            state[DENSITY] = ((1 - q) * state[LOG_S] + state[NU_TERMS] + state[M_PRIOR]
                              - 0.5 * (m + 2) * add(np.log1p(squares * (1.0 / (sigma0 * sigma0 * (1 + m)))), 0))
            take.fill(0.0)
            # every step's random-walk increments at once, (steps, 2, n_pairs, c): log sigma0's, then log m's
            first, second = normals[N_STEPS:N_DELTA0:2], normals[N_STEPS + 1:N_DELTA0:2]
            np.multiply(l00, first, out=steps[:, 0])
            np.multiply(l11, second, out=steps[:, 1])
            steps[:, 1] += l10 * first                    # l10 first + l11 second (addition commutes exactly)
            alpha_1 = alpha + 1
            for step, log_u_step in zip(steps, log_u[1:]):   # these are the slowest directions
                # each row of the proposal written in place (:func:`_log_nu_terms` and :func:`_log_m_prior`, the
                # same operations in the same order); both logs moved by one addition
                np.add(state_logs, step, out=proposal_logs)
                m_new = np.exp(log_m)
                np.subtract(log_m, q * (betaln(0.5 + 0.5 * m_new, 0.5) + 0.5 * np.log1p(m_new)), out=nu_terms)
                both = gammainc(alpha_1, beta * m_new)
                np.add(log_alpha - 2 * log_m, np.log(both[0] - both[1]), out=m_prior)
                t_sum = add(np.log1p(squares * (np.exp(-2.0 * log_s) / (1 + m_new))), 0)
                np.subtract(one_q * log_s + nu_terms + m_prior, 0.5 * (m_new + 2) * t_sum, out=density)
                # a proposal beyond sigma0's prior bound is rejected (its density -inf: never moved to)
                np.less(log_s, log_s0h, out=inside)
                np.less(log_u_step, density - state_density, out=moved)
                moved &= inside
                np.copyto(state, proposal, where=moved)
                take += moved
            take /= SCALE_STEPS
            sigma0, m = np.exp(state[LOG_S]), np.exp(state[LOG_M])
            nu = 1.0 + m
            # lambda_i | nu, delta_i, delta0, sigma0: Gamma((nu + 1)/2, rate (nu + z_i^2)/2)
            lam = _gamma_above_one(0.5 * (nu + 1), normals[lambda_normals:], uniforms[lambda_uniforms:], own.extra) \
                / (0.5 * (nu + squares * (1.0 / (sigma0 * sigma0))))
            # alpha | m, beta integrated out: Metropolis, proposals outside the interval rejected
            proposal_a = alpha + step_alpha * normals[N_ALPHA]
            inside_a = (proposal_a > priors.alpha_low) & (proposal_a < priors.alpha_high)
            clipped = np.minimum(np.maximum(proposal_a, priors.alpha_low), priors.alpha_high)  # np.clip's values
            prior_a = _log_m_prior(m, state[LOG_M], clipped + 1, np.log(clipped), beta)
            moved_a = inside_a & (log_u[0] < prior_a - state[M_PRIOR])
            alpha = np.where(moved_a, proposal_a, alpha)
            np.copyto(state[M_PRIOR], prior_a, where=moved_a)
            # beta is integrated out of every update (collapsed), so it is never drawn: nothing reported depends on it
            if it < warmup:
                history[:, :, it, 0], history[:, :, it, 1] = state[LOG_S], state[LOG_M]
                window += take
                if (it + 1) % 50 == 0:
                    # the step towards ~0.3 acceptance (2-d); from half-way, the covariance of the states so far
                    scale = scale * np.exp(np.clip(window / 50 - 0.3, -0.3, 0.3) * 3)
                    window[:] = 0
                    if it + 1 >= warmup // 2:
                        seen = history[:, :, it // 2: it + 1]
                        cov = np.einsum("pcti,pctj->pcij", seen - seen.mean(axis=2, keepdims=True),
                                        seen - seen.mean(axis=2, keepdims=True)) / max(seen.shape[2] - 1, 1)
                        cov = cov * 2.38 ** 2 / 2 + 1e-6 * np.eye(2)
                        chol = np.linalg.cholesky(cov)
                        scale = np.ones((n_pairs, c))
                    l00, l10, l11 = chol[..., 0, 0] * scale, chol[..., 1, 0] * scale, chol[..., 1, 1] * scale
            else:
                k = it - warmup
                accepted += take
                out_delta0[..., k], out_sigma0[..., k], out_nu[..., k] = delta0, sigma0, nu
                out_delta[k] = delta
    # task-major memory (n_pairs, q, chains, draws), seen as (n_pairs, chains, draws, q)
    task_major = np.ascontiguousarray(out_delta.transpose(2, 1, 3, 0))
    return (Chains(out_delta0, out_sigma0, out_nu, task_major.transpose(0, 2, 3, 1)),
            accepted / max(draws, 1))


class _PairDraws:
    """Each pair's own variates for the sweeps of :func:`gibbs`, drawn ahead a block of sweeps at a time.

    A pair's stream (a SeedSequence) has a generator per kind of variate below it (:func:`child_stream` 0 to 4):
    the sweeps' standard normals, uniforms, the 1/sigma_i^2 gammas (shape (n_i - 1)/2, fixed by the data) and
    the 1/sigma0^2 gammas (shape (q - 1)/2), and an extra generator for the chains' starting points and for the
    rare redraws (:attr:`extra`).  So a pair's draws depend on its stream alone, not on the pairs beside it nor on
    how many sweeps a block holds (:data:`DRAWN_AHEAD` bounds the block's bytes), and a sweep reads each kind as
    one array over (variate, pair, chain), as the sampler's whole-array operations want them.
    """

    def __init__(self, streams, chains, q, counts, total):
        self.n_pairs, self.chains, self.left = len(streams), chains, total
        self.n_normals = q + 4 + 2 * SCALE_STEPS + LAMBDA_TRIES * q
        self.n_uniforms = 5 + SCALE_STEPS + LAMBDA_TRIES * q
        #: where the lambdas' candidates start in a sweep's normals and its uniforms: (LAMBDA_TRIES * q, pairs,
        #: chains) of each, after the sweep's other variates
        self.tries = (q + 4 + 2 * SCALE_STEPS, 5 + SCALE_STEPS)
        self.q = q
        self.generators = [[np.random.Generator(np.random.PCG64(child_stream(ss, kind))) for kind in range(4)]
                           for ss in streams]
        self.extra = [np.random.Generator(np.random.PCG64(child_stream(ss, 4))) for ss in streams]
        # a pair's shape: one number when each of its tasks has as many runs (a faster draw), else one per task
        self.shapes = [float((row[0] - 1) / 2) if np.all(row == row[0]) else ((row - 1) / 2)[:, None]
                       for row in np.asarray(counts, dtype=np.float64)]
        per_sweep = 8 * (self.n_normals + self.n_uniforms + q + 1) * self.n_pairs * chains
        self.block = int(max(1, min(total, DRAWN_AHEAD // per_sweep)))
        self.at = self.size = 0

    def _draw(self):
        """The next block's variates: each pair's drawn in place, contiguous, then the block laid out sweep-major
        once (one copy a block, not three a sweep), so that a sweep's variates are contiguous views."""
        size = min(self.block, self.left)
        n, c, q = self.n_pairs, self.chains, self.q
        normals = np.empty((n, size, self.n_normals, c))
        uniforms = np.empty((n, size, self.n_uniforms, c))
        gamma_sigma = np.empty((n, size, q, c))
        gamma0 = np.empty((n, size, c))
        for p, (normal, uniform, sigma, sigma0) in enumerate(self.generators):
            normal.standard_normal(out=normals[p])
            uniform.random(out=uniforms[p])
            sigma.standard_gamma(self.shapes[p], out=gamma_sigma[p])
            sigma0.standard_gamma((q - 1) / 2, out=gamma0[p])
        # (sweep, variate, pair, chain): a sweep reads each kind as one array over (variate, pair, chain)
        self.normals = np.ascontiguousarray(normals.transpose(1, 2, 0, 3))
        self.uniforms = np.ascontiguousarray(uniforms.transpose(1, 2, 0, 3))
        self.gamma_sigma = np.ascontiguousarray(gamma_sigma.transpose(1, 2, 0, 3))
        self.gamma0 = np.ascontiguousarray(gamma0.transpose(1, 0, 2))
        self.left -= size
        self.at, self.size = 0, size

    def sweep(self):
        """The next sweep's (normals, uniforms, 1/sigma_i^2 gammas), each (variates, pairs, chains), and 1/sigma0^2
        gammas (pairs, chains), contiguous views of the block."""
        if self.at == self.size:
            self._draw()
        k = self.at
        self.at += 1
        return self.normals[k], self.uniforms[k], self.gamma_sigma[k], self.gamma0[k]


def _gamma_above_one(shape, normals, uniforms, extra):
    """Gamma(``shape``) draws, shape (q, pairs, chains) for ``shape`` (pairs, chains) above 1, by Marsaglia and Tsang's
    method (2000, ACM TOMS 26(3): with d = shape - 1/3, v = (1 + x / sqrt(9 d))^3, x standard normal, the draw d v is
    accepted where v > 0 and log u < x^2 / 2 + d - d v + d log v) on each pair's pre-drawn candidates ``normals`` and
    ``uniforms`` (LAMBDA_TRIES * q, pairs, chains), the first accepted of each; where all LAMBDA_TRIES are rejected
    (rarely: :data:`LAMBDA_TRIES`) the pair's ``extra`` generator draws it.  A rejection sampler's draw is the
    shape's law whatever the trials before it, so this is exact, and a pair's draws are its own."""
    q = normals.shape[0] // LAMBDA_TRIES
    d = shape - 1.0 / 3.0
    out, accepted = _marsaglia_tsang(d, normals[:q], uniforms[:q])   # (q, pairs, chains), a new array
    todo = np.flatnonzero(~accepted)          # flat indices into it
    n_pairs, chains = out.shape[1], out.shape[2]
    d_of = np.ravel(d)                        # a flat index i's d: d_of[i % (pairs * chains)]
    if d_of.size != n_pairs * chains:
        d_of = np.broadcast_to(d, out.shape[1:]).ravel()
    for trial in range(1, LAMBDA_TRIES):
        if not todo.size:
            return out
        value, ok = _marsaglia_tsang(d_of[todo % d_of.size], normals[trial * q:(trial + 1) * q].ravel()[todo],
                                     uniforms[trial * q:(trial + 1) * q].ravel()[todo])
        out.flat[todo[ok]] = value[ok]
        todo = todo[~ok]
    for i in todo:
        out.flat[i] = extra[i // chains % n_pairs].standard_gamma(d_of[i % d_of.size] + 1.0 / 3.0)
    return out


def _marsaglia_tsang(d, x, u):
    """Marsaglia and Tsang's candidate d v, v = (1 + x / sqrt(9 d))^3, and whether uniform ``u`` accepts it."""
    v = 1.0 + x * (1.0 / np.sqrt(9.0 * d))
    v = v * v * v
    with np.errstate(invalid="ignore", divide="ignore"):
        accepted = (v > 0) & (np.log(u) < 0.5 * x * x + d - d * v + d * np.log(v))
    return d * v, accepted


def _truncated_gamma(shape, rate, low, u, first):
    """Draws of Gamma(shape, rate) truncated to (low, inf): ``first / rate`` (``first`` standard gamma draws) where it
    falls there, else an inverse-CDF draw from uniform ``u``.  Keeping an untruncated draw that lands in the interval
    and drawing the truncated law otherwise gives the truncated law exactly, and the costly inverse CDF only runs
    where the truncation bites (rarely: the bound is far below the data's scale)."""
    out = first / rate
    outside = out <= low
    if np.count_nonzero(outside):
        from scipy.special import gammainc, gammaincinv

        r, lo, uu = np.broadcast_to(rate, out.shape)[outside], np.broadcast_to(low, out.shape)[outside], u[outside]
        a = np.broadcast_to(shape, out.shape)[outside]
        start = gammainc(a, r * lo)
        p = np.clip(start + uu * (1 - start), 1e-300, 1 - 1e-16)
        out[outside] = np.maximum(gammaincinv(a, p) / r, lo)
    return out


def next_task_masses(delta0: NDArray[np.float64], sigma0: NDArray[np.float64], nu: NDArray[np.float64],
                     rope: float) -> NDArray[np.float64]:
    """(draws, 3): per posterior draw, the masses of a next task's difference t(nu, delta0, sigma0) below -rope,
    within the ROPE and above it (Corani et al. 2017, section 4.3)."""
    from scipy.special import stdtr

    below = stdtr(nu, (-rope - delta0) / sigma0)
    above = 1.0 - stdtr(nu, (rope - delta0) / sigma0)
    return np.stack([below, 1.0 - below - above, above], axis=-1)


# ---------------------------------------------------------------------------- convergence diagnostics

def _split(x):
    """(..., chains, draws) -> (..., 2 chains, draws // 2): each chain cut in halves (Vehtari et al. 2021)."""
    half = x.shape[-1] // 2
    return np.concatenate([x[..., :half], x[..., x.shape[-1] - half:]], axis=-2)


def _rank_normal(x, median=False):
    """Rank-normalised draws: ranks over all chains, Blom's offsets, normal quantiles (Vehtari et al. 2021, eq. 14);
    equal draws (a rejected Metropolis move repeats one) are ranked in their order of appearance.  With ``median``,
    also the median over all chains (..., 1, 1), read off the same sort.

    The sort is numpy's default (several times faster than a stable one), redone stably only for the rows that hold
    equal draws, so the ranks are those of a stable sort; the normal quantiles of the n ranks are computed once."""
    shape = x.shape
    flat = x.reshape(*shape[:-2], -1)
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1)
    ordered = np.take_along_axis(flat, order, axis=-1)
    tied = (ordered[..., 1:] == ordered[..., :-1]).any(axis=-1)
    if tied.any():
        order[tied] = np.argsort(flat[tied], axis=-1, kind="stable")
    scores = _ndtri((np.arange(1.0, n + 1) - 3 / 8) / (n + 1 / 4))
    out = np.empty(flat.shape)
    np.put_along_axis(out, order, np.broadcast_to(scores, flat.shape), axis=-1)
    out = out.reshape(shape)
    if not median:
        return out
    middle = ordered[..., (n - 1) // 2: n // 2 + 1]
    return out, (middle.sum(axis=-1) / middle.shape[-1])[..., None, None]


def _rhat_basic(x):
    """Gelman-Rubin potential scale reduction of (..., chains, draws)."""
    n = x.shape[-1]
    chain_means = x.mean(axis=-1)
    between = n * chain_means.var(axis=-1, ddof=1)
    within = x.var(axis=-1, ddof=1).mean(axis=-1)
    return np.sqrt(((n - 1) / n * within + between / n) / within)


def diagnose(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(R-hat, bulk ESS) of draws (..., chains, draws), the rank-normalised split chains computed once for both."""
    split = _split(x)
    bulk, median = _rank_normal(split, median=True)
    folded = _rank_normal(np.abs(split - median))
    return np.maximum(_rhat_basic(bulk), _rhat_basic(folded)), _ess(bulk)


def ess_bulk(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bulk effective sample size of draws (..., chains, draws): on the rank-normalised split chains, with Geyer's
    initial monotone sequence of autocorrelation pairs (Vehtari et al. 2021, section 3.2; Stan's estimator)."""
    return _ess(_rank_normal(_split(x)))


def share_se(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Monte Carlo standard error of the share of draws where an indicator holds, x (..., chains, draws) of 0 and 1:
    sqrt(p (1 - p) / ESS) with the ESS of the mean, on the split chains as they are (Vehtari et al. 2021, section
    3.2: ranks would say nothing of a 0/1 draw); 0 where the indicator never changes (no draw says otherwise)."""
    x = np.asarray(x, dtype=np.float64)
    p = x.mean(axis=(-2, -1))
    varies = (p > 0) & (p < 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        # an indicator constant within every split chain has no autocorrelation to read: its draws count as they are
        ess = np.where(varies, _ess(_split(x)), 1.0)
        ess = np.where(np.isfinite(ess) & (ess > 0), ess, x.shape[-2] * x.shape[-1])
        return np.where(varies, np.sqrt(p * (1 - p) / ess), 0.0)


def _ess(z):
    """The effective sample size of rank-normalised split chains z (..., chains, draws)."""
    m, n = z.shape[-2], z.shape[-1]
    centred = z - z.mean(axis=-1, keepdims=True)
    from scipy.fft import next_fast_len

    size = next_fast_len(2 * n - 1, real=True)      # zero-padded past 2n - 1: the linear (not circular) autocovariance
    spectrum = np.fft.rfft(centred, n=size, axis=-1)
    acov = np.fft.irfft(spectrum * np.conj(spectrum), n=size, axis=-1)[..., :n] / n
    chain_var = acov[..., 0] * n / (n - 1)
    within = chain_var.mean(axis=-1)
    var_plus = within * (n - 1) / n + z.mean(axis=-1).var(axis=-1, ddof=1)
    rho = 1.0 - (within[..., None] - acov.mean(axis=-2)) / var_plus[..., None]
    rho[..., 0] = 1.0
    # Geyer: sums of consecutive pairs while positive, made monotone
    pairs = rho[..., : n - n % 2].reshape(*rho.shape[:-1], -1, 2).sum(axis=-1)
    positive = np.cumprod(pairs > 0, axis=-1).astype(bool)
    pairs = np.where(positive, pairs, 0.0)
    pairs = np.minimum.accumulate(np.where(positive, pairs, np.inf), axis=-1)
    pairs = np.where(positive, pairs, 0.0)
    tau = -1.0 + 2.0 * pairs.sum(axis=-1)
    tau = np.maximum(tau, 1.0 / np.log10(m * n))
    return m * n / tau
