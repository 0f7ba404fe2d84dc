"""Arrays in, arrays out: the Bayesian signed-rank test's posterior and the hierarchical model's Gibbs sampler.

No pandas; inputs are trusted (``_api.py`` checks them).  Every random draw comes from the generator handed in, so
the caller decides the streams (a stream per block of Dirichlet samples, per pair of agents for the chains), and a
result never depends on how the work is split.
"""

from __future__ import annotations

import math
from itertools import permutations
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ...statistics import TIE_TOLERANCE

#: Dirichlet samples drawn per block of the signed-rank posterior (a fixed size: blocks, not n_jobs, key the streams)
BLOCK = 10_000

#: Metropolis steps of (sigma0, nu) per sweep of the Gibbs sampler
SCALE_STEPS = 4

#: draws kept per pair for the figures (the first ones, in stream order)
KEPT_DRAWS = 1_000


# ---------------------------------------------------------------------------- the Bayesian signed-rank test

def dirichlet_block(generator: np.random.Generator, n_samples: int, n_tasks: int,
                    prior: float) -> NDArray[np.float64]:
    """(1 + n_tasks, n_samples) Dirichlet weights, one sample a column: the pseudo-observation's (concentration
    ``prior``) first, then one per task (concentration 1), as normalised gamma draws (Gamma(1) is the exponential).
    Atoms are rows, so the gathers of :func:`signed_rank_block` copy contiguous rows."""
    gammas = np.empty((1 + n_tasks, n_samples))
    gammas[0] = generator.standard_gamma(prior, size=n_samples)
    gammas[1:] = generator.standard_exponential(size=(n_tasks, n_samples))
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
                      rope: float, scale: NDArray[np.float64] | None = None
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
    scale : (n_pairs,), optional
        Each pair's largest absolute task-level score: a Walsh sum within ``2 * TIE_TOLERANCE * scale`` of a ROPE
        bound is on it (the tie rule of :func:`rlstats.statistics.near_ties`); exact comparisons when omitted.

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
        cum = np.zeros((d.size + 1, n_samples))
        np.cumsum(w[order], axis=0, out=cum[1:])
        tolerance = 0.0 if scale is None else 2 * TIE_TOLERANCE * float(scale[p])
        sums = d[:, None] + d[None, order]
        theta[:, p, 0] = _form(w, cum, _staircase(sums, -2 * rope, tolerance))
        # above rope: the mass below -rope of the negated atoms, computed the same way (not 1 - the mass below
        # rope, whose rounding would break exact ties between worse and better)
        mirror = np.argsort(-d, kind="stable")
        cum_m = np.zeros((d.size + 1, n_samples))
        np.cumsum(w[mirror], axis=0, out=cum_m[1:])
        theta[:, p, 2] = _form(w, cum_m, _staircase(-d[:, None] - d[None, mirror], -2 * rope, tolerance))
        mean[:, p] = d[1:] @ w[1:]
    theta[:, :, 1] = 1.0 - theta[:, :, 0] - theta[:, :, 2]
    return theta, mean


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
    """Per sample, the ordering of the agents by their Dirichlet-weighted mean over tasks (best first), as an index
    into :func:`orderings` of ``n_agents``."""
    means = weights[1:].T @ task_means            # (S, n_agents); the pseudo-observation carries no agent
    return codes_of(means, higher_is_better)


def codes_of(values: NDArray[np.float64], higher_is_better: bool = True) -> NDArray[np.int64]:
    """Per row of ``values`` (S, n_agents), the ordering of the agents by their value (best first; equal values in
    the agents' order), as an index into :func:`orderings` of ``n_agents``."""
    order = np.argsort(-values if higher_is_better else values, axis=1, kind="stable")
    k = values.shape[1]
    # lexicographic rank of a permutation (Lehmer code), so every ordering has one integer
    code = np.zeros(order.shape[0], dtype=np.int64)
    remaining = np.ones((order.shape[0], k), dtype=bool)
    rows = np.arange(order.shape[0])
    for position in range(k):
        chosen = order[:, position]
        smaller = np.cumsum(remaining, axis=1)[rows, chosen] - 1
        code += smaller * math.factorial(k - 1 - position)
        remaining[rows, chosen] = False
    return code


def orderings(n_agents: int) -> list[tuple[int, ...]]:
    """Every ordering of ``n_agents`` in lexicographic order: the index is :func:`ordering_codes`'s code."""
    return list(permutations(range(n_agents)))


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


def _ndtr(x):
    from scipy.special import ndtr

    return ndtr(x)


def _ndtri(p):
    from scipy.special import ndtri

    return ndtri(p)


def _truncated_normal(mean, sd, low, high, u, first):
    """Draws of N(mean, sd) truncated to (low, high): ``mean + sd * first`` (``first`` standard normal draws) where it
    falls inside, else an inverse-CDF draw from uniform ``u`` (exact, as :func:`_truncated_gamma` explains)."""
    out = mean + sd * first
    low, high = np.broadcast_to(low, out.shape), np.broadcast_to(high, out.shape)
    outside = (out <= low) | (out >= high)
    if outside.any():
        m, s, lo, hi = mean[outside], sd[outside], low[outside], high[outside]
        a, b = _ndtr((lo - m) / s), _ndtr((hi - m) / s)
        p = np.clip(a + u[outside] * (b - a), 1e-300, 1 - 1e-16)
        out[outside] = np.clip(m + s * _ndtri(p), lo, hi)
    return out


def _t_logpdf_sum(nu, z2):
    """sum over tasks of log t_nu(z) up to the terms free of nu, z2 = ((delta_i - delta0) / sigma0)^2: (..., n_tasks)."""
    from scipy.special import gammaln

    per_task = gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu)
    return z2.shape[-1] * per_task - (nu + 1) / 2 * np.log1p(z2 / nu[..., None]).sum(axis=-1)


def _log_m_prior(m, alpha, beta_low, beta_high):
    """log p(m | alpha) up to terms free of m and alpha, m = nu - 1 ~ Gamma(alpha, rate beta) with beta ~ U(beta_low,
    beta_high) integrated out: the integral of beta^alpha m^(alpha - 1) e^(-beta m) / Gamma(alpha) over the interval
    is alpha m^-2 [P(alpha + 1, beta_high m) - P(alpha + 1, beta_low m)], P the regularised lower incomplete gamma."""
    from scipy.special import gammainc

    mass = gammainc(alpha + 1, beta_high * m) - gammainc(alpha + 1, beta_low * m)
    with np.errstate(divide="ignore"):
        return np.log(alpha) - 2 * np.log(m) + np.log(mass)


def _log_alpha_density(alpha, m, beta_low, beta_high):
    """log p(alpha | m) on its uniform prior's interval, beta integrated out (:func:`_log_m_prior`)."""
    return _log_m_prior(m, alpha, beta_low, beta_high)


def _log_scale_density(log_sigma0, log_m, alpha, beta_low, beta_high, deviations):
    """log p(log sigma0, log(nu - 1) | delta, delta0, alpha), the lambdas and beta integrated out, with the Jacobians;
    ``deviations`` = delta_i - delta0, (..., n_tasks).  sigma0's uniform prior is flat (its interval is checked by the
    caller).  Integrating beta out removes the slow see-saw of nu and beta (beta ~ alpha / (nu - 1) given nu) that
    limited nu's effective sample size when each was drawn given the other."""
    sigma0, m = np.exp(log_sigma0), np.exp(log_m)
    z2 = np.square(deviations / sigma0[..., None])
    q = deviations.shape[-1]
    return (1 - q) * log_sigma0 + log_m + _log_m_prior(m, alpha, beta_low, beta_high) + _t_logpdf_sum(1.0 + m, z2)


def gibbs(sums: NDArray[np.float64], counts: NDArray[np.float64], within: NDArray[np.float64], priors: Priors,
          generator: np.random.Generator, chains: int, warmup: int, draws: int,
          reference: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None = None
          ) -> tuple[Chains, NDArray[Any]]:
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

    Parameters
    ----------
    sums, counts, within : (n_pairs, n_tasks)
        Per pair and task: the sum of the paired run differences, their number (at least 2) and their sum of
        squares around their mean.
    generator : numpy.random.Generator
        The group's stream (a group's pairs are fixed by the design, not by ``n_jobs``).
    reference : (sums, counts, within) of shape (n_tasks,), optional
        The joint model of all agents against one reference agent (the orderings' model): ``sums``, ``counts`` and
        ``within`` are then each other agent's own runs (a row per agent), these the reference's, and the model is
        y_aij ~ N(mu_i + delta_ai, sigma_ai^2), y_rij ~ N(mu_i, sigma_ri^2), delta_ai ~ t_nu_a(delta0_a, sigma0_a)
        with a flat prior on the reference's task means mu_i, sigma_ri ~ U(0, max ``sigma_high``).  Each sweep draws
        the 1/sigma^2, then mu given them with the deltas integrated out (a normal per task and chain), then the
        deltas given mu, then each agent's hyperparameters as in the pairwise model.  Without it the stream of
        draws is exactly the pairwise model's.

    Returns
    -------
    (Chains, acceptance) with acceptance (n_pairs, chains) the Metropolis acceptance rate of (sigma0, nu) after
    warm-up.
    """
    g = generator
    n_pairs, q = sums.shape
    c = chains
    shape3 = (n_pairs, c, q)
    mean_x = sums / counts
    dh, s0h, sh = (priors.delta_high[:, None], priors.sigma0_high[:, None], priors.sigma_high[:, None, None])
    mx = mean_x[:, None, :]          # the data's per-task mean of each pair's differences, (n_pairs, 1 or c, q)
    if reference is not None:
        sums_r, counts_r, within_r = reference
        mean_r = sums_r / counts_r
        mu = np.broadcast_to(mean_r, (c, q)).copy()
        mx = mean_x[:, None, :] - mu[None]
        shape_r = np.broadcast_to((counts_r - 1) / 2, (c, q))
        low_tau_r = 1.0 / np.square(priors.sigma_high.max())
    # start each chain at a dispersed point: the task means jittered, delta0 and sigma0 from their spread
    u0 = g.random((n_pairs, c, q + 2))
    delta = mx + (u0[..., :q] - 0.5) * np.sqrt(within / np.maximum(counts - 1, 1))[:, None, :]
    delta0 = (u0[..., q] - 0.5) * dh
    sigma0 = np.maximum(np.std(mx, axis=-1), 1e-3 * s0h) * (0.5 + u0[..., q + 1])
    sigma0 = np.minimum(sigma0, 0.999 * s0h)
    lam = np.ones(shape3)
    m = np.full((n_pairs, c), 4.0)   # nu - 1
    alpha = np.full((n_pairs, c), 0.5 * (priors.alpha_low + priors.alpha_high))
    # the (log sigma0, log m) proposal: a Cholesky factor per chain, learnt from the warm-up's states
    chol = np.zeros((n_pairs, c, 2, 2))
    chol[..., 0, 0], chol[..., 1, 1] = 0.3, 0.5
    scale = np.ones((n_pairs, c))
    history = np.empty((n_pairs, c, warmup, 2))
    step_alpha = 0.5 * (priors.alpha_high - priors.alpha_low)
    shape_sigma = np.broadcast_to(((counts - 1) / 2)[:, None, :], shape3)   # 1/sigma_i^2 under sigma_i's prior
    low_tau = 1.0 / np.square(sh)
    total = warmup + draws
    out_delta0 = np.empty((n_pairs, c, draws))
    out_sigma0 = np.empty((n_pairs, c, draws))
    out_nu = np.empty((n_pairs, c, draws))
    out_delta = np.empty((n_pairs, c, draws, q))
    accepted = np.zeros((n_pairs, c))
    window = np.zeros((n_pairs, c))
    for it in range(total):
        normals = g.standard_normal((n_pairs, c, q + 4 + 2 * SCALE_STEPS))
        uniforms = g.random((n_pairs, c, 7 + SCALE_STEPS))
        # 1/sigma_i^2 | delta_i: Gamma((n_i - 1)/2, rate S_i/2), S_i the squares around delta_i; redraw below 1/high^2
        squares = within[:, None, :] + counts[:, None, :] * np.square(mx - delta)
        tau = g.standard_gamma(shape_sigma) / (squares / 2)
        low = tau < low_tau
        while low.any():
            tau = np.where(low, g.standard_gamma(shape_sigma) / (squares / 2), tau)
            low = tau < low_tau
        if reference is not None:
            # the reference's 1/sigma^2, then mu_i | the 1/sigma^2, delta0, sigma0, lambda with the deltas integrated
            # out: each other agent's task mean is N(mu_i + delta0_a, 1/(n tau) + sigma0^2/lambda), the reference's
            # N(mu_i, 1/(n_r tau_r)); then the deltas given mu (below)
            squares_r = within_r + counts_r * np.square(mean_r - mu)
            tau_r = g.standard_gamma(shape_r) / (squares_r / 2)
            low = tau_r < low_tau_r
            while low.any():
                tau_r = np.where(low, g.standard_gamma(shape_r) / (squares_r / 2), tau_r)
                low = tau_r < low_tau_r
            weight_a = 1.0 / (1.0 / (counts[:, None, :] * tau) + (np.square(sigma0)[..., None] / lam))
            precision_mu = counts_r * tau_r + weight_a.sum(axis=0)
            centre_mu = (counts_r * tau_r * mean_r + (weight_a * (mean_x[:, None, :] - delta0[..., None])).sum(axis=0)
                         ) / precision_mu
            mu = centre_mu + g.standard_normal((c, q)) / np.sqrt(precision_mu)
            mx = mean_x[:, None, :] - mu[None]
        # delta_i | sigma_i, lambda_i, delta0, sigma0: normal
        precision = counts[:, None, :] * tau + lam / np.square(sigma0)[..., None]
        data_term = sums[:, None, :] * tau if reference is None else counts[:, None, :] * tau * mx
        centre = (data_term + lam * (delta0 / np.square(sigma0))[..., None]) / precision
        delta = centre + normals[..., :q] / np.sqrt(precision)
        # delta0 | delta, lambda, sigma0: normal truncated to the prior's interval
        weight = lam.sum(axis=-1)
        delta0 = _truncated_normal((lam * delta).sum(axis=-1) / weight, sigma0 / np.sqrt(weight), -dh, dh,
                                   uniforms[..., 0], normals[..., q + 1 + 2 * SCALE_STEPS])
        # 1/sigma0^2 | delta, delta0, lambda: Gamma((q - 1)/2, rate sum lambda_i (delta_i - delta0)^2 / 2), truncated
        # below at 1/sigma0_high^2 by the inverse CDF
        spread = (lam * np.square(delta - delta0[..., None])).sum(axis=-1) / 2
        tau0 = _truncated_gamma((q - 1) / 2, spread, 1.0 / np.square(s0h), uniforms[..., 1],
                                g.standard_gamma((q - 1) / 2, size=(n_pairs, c)))
        sigma0 = 1.0 / np.sqrt(tau0)
        # interweaving (Yu and Meng 2011): delta0 and sigma0 again given z = (delta - delta0) / sigma0, whose prior
        # N(0, 1/lambda) involves neither, so the data alone speak: each is normal, truncated to its prior's interval.
        # The centred updates above mix slowly when the tasks' differences are noisy next to their spread (a funnel);
        # these mix slowly in the opposite case: together they do not.
        z = (delta - delta0[..., None]) / sigma0[..., None]
        data_precision = counts[:, None, :] * tau
        prec0 = data_precision.sum(axis=-1)
        delta0 = _truncated_normal((data_precision * (mx - sigma0[..., None] * z)).sum(axis=-1)
                                   / prec0, 1.0 / np.sqrt(prec0), -dh, dh, uniforms[..., 5],
                                   normals[..., q + 2 + 2 * SCALE_STEPS])
        prec_s = (data_precision * np.square(z)).sum(axis=-1)
        sigma0 = _truncated_normal((data_precision * z * (mx - delta0[..., None])).sum(axis=-1)
                                   / prec_s, 1.0 / np.sqrt(prec_s), 0.0, s0h, uniforms[..., 6],
                                   normals[..., q + 3 + 2 * SCALE_STEPS])
        sigma0 = np.maximum(sigma0, 1e-300)
        delta = delta0[..., None] + sigma0[..., None] * z
        # (sigma0, nu) | delta, delta0, alpha, the lambdas and beta integrated out: Metropolis on the logs
        deviations = delta - delta0[..., None]
        current = np.stack([np.log(sigma0), np.log(m)], axis=-1)
        density = _log_scale_density(current[..., 0], current[..., 1], alpha, priors.beta_low, priors.beta_high,
                                     deviations)
        take = np.zeros((n_pairs, c))
        for step in range(SCALE_STEPS):   # cheap next to a sweep, and these are the slowest directions
            proposal = current + scale[..., None] * np.einsum("pcij,pcj->pci", chol,
                                                              normals[..., q + 1 + 2 * step:q + 3 + 2 * step])
            inside = np.exp(proposal[..., 0]) < s0h
            proposed = np.where(inside, _log_scale_density(proposal[..., 0], proposal[..., 1], alpha, priors.beta_low,
                                                           priors.beta_high, deviations), -np.inf)
            moved = np.log(uniforms[..., 7 + step]) < proposed - density
            current = np.where(moved[..., None], proposal, current)
            density = np.where(moved, proposed, density)
            take += moved / SCALE_STEPS
        sigma0, m = np.exp(current[..., 0]), np.exp(current[..., 1])
        nu = 1.0 + m
        # lambda_i | nu, delta_i, delta0, sigma0: Gamma((nu + 1)/2, rate (nu + z_i^2)/2)
        z2 = np.square(deviations / sigma0[..., None])
        lam = g.standard_gamma(np.broadcast_to(((nu + 1) / 2)[..., None], shape3)) / ((nu[..., None] + z2) / 2)
        # alpha | m, beta integrated out: Metropolis, proposals outside the interval rejected
        proposal_a = alpha + step_alpha * normals[..., q]
        inside_a = (proposal_a > priors.alpha_low) & (proposal_a < priors.alpha_high)
        bounds = (priors.beta_low, priors.beta_high)
        ratio_a = np.where(inside_a, _log_alpha_density(np.clip(proposal_a, priors.alpha_low, priors.alpha_high),
                                                        m, *bounds) - _log_alpha_density(alpha, m, *bounds), -np.inf)
        alpha = np.where(np.log(uniforms[..., 4]) < ratio_a, proposal_a, alpha)
        # beta is integrated out of every update (collapsed), so it is never drawn: nothing reported depends on it
        if it < warmup:
            history[:, :, it] = current
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
        else:
            k = it - warmup
            accepted += take
            out_delta0[..., k], out_sigma0[..., k], out_nu[..., k] = delta0, sigma0, nu
            out_delta[:, :, k, :] = delta
    return Chains(out_delta0, out_sigma0, out_nu, out_delta), accepted / max(draws, 1)


def _truncated_gamma(shape, rate, low, u, first):
    """Draws of Gamma(shape, rate) truncated to (low, inf): ``first / rate`` (``first`` standard gamma draws) where it
    falls there, else an inverse-CDF draw from uniform ``u``.  Keeping an untruncated draw that lands in the interval
    and drawing the truncated law otherwise gives the truncated law exactly, and the costly inverse CDF only runs
    where the truncation bites (rarely: the bound is far below the data's scale)."""
    out = first / rate
    outside = out <= low
    if outside.any():
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


def _rank_normal(x):
    """Rank-normalised draws: ranks over all chains, Blom's offsets, normal quantiles (Vehtari et al. 2021, eq. 14)."""
    shape = x.shape
    flat = x.reshape(*shape[:-2], -1)
    n = flat.shape[-1]
    ranks = np.empty(flat.shape)
    order = np.argsort(flat, axis=-1, kind="stable")
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(1.0, n + 1), flat.shape), axis=-1)
    return _ndtri((ranks - 3 / 8) / (n + 1 / 4)).reshape(shape)


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
    bulk = _rank_normal(split)
    folded = _rank_normal(np.abs(split - np.median(split, axis=(-2, -1), keepdims=True)))
    return np.maximum(_rhat_basic(bulk), _rhat_basic(folded)), _ess(bulk)


def ess_bulk(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bulk effective sample size of draws (..., chains, draws): on the rank-normalised split chains, with Geyer's
    initial monotone sequence of autocorrelation pairs (Vehtari et al. 2021, section 3.2; Stan's estimator)."""
    return _ess(_rank_normal(_split(x)))


def _ess(z):
    """The effective sample size of rank-normalised split chains z (..., chains, draws)."""
    m, n = z.shape[-2], z.shape[-1]
    centred = z - z.mean(axis=-1, keepdims=True)
    size = 1 << int(np.ceil(np.log2(2 * n)))
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
