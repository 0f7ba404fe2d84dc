"""Audit s35 bayes35: the hierarchical Gibbs sweep's fixed costs cut without changing a draw.

The sampler's numbers for a stream are those of the sampler before the change (main at 0616069a): pinned below from
that commit's run (the same digits here; 61 outputs of gibbs and of bayes() were compared bit for bit when the change
was made, ``benchmarks/bench_bayes.py scaling --checkout`` compares the public call's digests).  The truncated normal
now takes its bounds at the draws' shape or as a number; it is checked against the former broadcasting version.
"""

import numpy as np
import pytest

from rlstats.methods.bayes import _kernels as kernels


def _short_run():
    """2 pairs x 5 tasks with unequal runs (2 to 6 a task), 4 chains of 60 + 40 sweeps: short enough that the last
    bits of a platform's log/exp cannot move an accept decision (the pins are to 1e-9)."""
    rng = np.random.default_rng(35)
    counts = np.array([[5, 5, 4, 6, 5], [3, 5, 5, 5, 2]], dtype=float)
    x = [[rng.normal(0.3 * p + 0.1 * i, 1.0, size=int(counts[p, i])) for i in range(5)] for p in range(2)]
    sums = np.array([[v.sum() for v in row] for row in x])
    within = np.array([[((v - v.mean()) ** 2).sum() for v in row] for row in x])
    priors = kernels.Priors(delta_high=np.array([4.0, 5.0]), sigma0_high=np.array([300.0, 400.0]),
                            sigma_high=np.full(2, 1000.0))
    streams = [np.random.SeedSequence(35, spawn_key=(p,)) for p in range(2)]
    return kernels.gibbs(sums, counts, within, priors, streams, 4, 60, 40)


def test_the_sweep_gives_the_draws_of_the_sampler_before_it():
    chains, acceptance = _short_run()
    # main at 0616069a, the same script: the values below are its output
    np.testing.assert_allclose(chains.delta0.mean(axis=(1, 2)), [0.0035143828877917866, 0.9437032944727128],
                               rtol=1e-9)
    np.testing.assert_allclose(chains.sigma0[:, :, -1].mean(axis=1), [0.5646114953252807, 0.46893799133499453],
                               rtol=1e-9)
    np.testing.assert_allclose(chains.nu.mean(axis=(1, 2)), [43.31026006182297, 49.084426101706185], rtol=1e-9)
    np.testing.assert_allclose(chains.delta[:, 2, -1, :], [
        [-0.13908730340266032, -0.7402884705583982, 0.38141190268837116, 0.06930650790449339, 0.04286549681018772],
        [1.566739395248687, 1.3029680990076065, 0.8392202509494278, 1.2251086488878171, 0.6636419280411795]],
        rtol=1e-9)
    np.testing.assert_allclose(acceptance.mean(axis=1), [0.20208333333333334, 0.2], rtol=1e-12)


def _former_truncated_normal(mean, sd, low, high, u, first):
    """The truncated normal as it was before audit s35: bounds broadcast, np.clip."""
    from scipy.special import ndtr, ndtri

    out = mean + sd * first
    outside = (out <= low) | (out >= high)
    if outside.any():
        shape = out.shape
        m, s = np.broadcast_to(mean, shape)[outside], np.broadcast_to(sd, shape)[outside]
        lo, hi = np.broadcast_to(low, shape)[outside], np.broadcast_to(high, shape)[outside]
        a, b = ndtr((lo - m) / s), ndtr((hi - m) / s)
        p = np.clip(a + u[outside] * (b - a), 1e-300, 1 - 1e-16)
        out[outside] = np.clip(m + s * ndtri(p), lo, hi)
    return out


@pytest.mark.parametrize("scalar_low", [True, False])
def test_the_truncated_normal_is_the_former_one_bit_for_bit(scalar_low):
    """Means near and far beyond the bounds (so that about half the draws take the inverse CDF), a bound as a number
    (sigma0's 0) or at the draws' shape (delta0's +-delta_high): the same bits as the broadcasting version."""
    rng = np.random.default_rng(5)
    shape = (6, 50)
    mean, sd = rng.normal(0.0, 3.0, shape), rng.uniform(0.1, 2.0, shape)
    high = np.broadcast_to(rng.uniform(0.5, 4.0, (6, 1)), shape).copy()
    low = 0.0 if scalar_low else -high
    u, first = rng.random(shape), rng.standard_normal(shape)
    got = kernels._truncated_normal(mean, sd, low, high, u, first)
    former = _former_truncated_normal(mean, sd, low, high, u, first)
    assert 50 < np.count_nonzero((mean + sd * first <= low) | (mean + sd * first >= high)) < 250
    assert np.array_equal(got, former)
    assert np.all((got >= low) & (got <= high))
