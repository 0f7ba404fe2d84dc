"""Audit s36 (bayes36): the Bayesian models under the score's units, with the same rng.

The project's standard: every statistic is unchanged by the score's units (shift and positive scale) and row order.
The hierarchical model's Gibbs sampler read its standardised sufficient statistics as they came, and a shift's
rounding (the paired differences of scores + 1e4 are the data's to about 1e-12 relative) was amplified by its
sweeps (bursts of 1e5 to 1e7 where sigma0 is small) until a Metropolis or rejection decision flipped and the chains
parted: p_better 0.6384 -> 0.6397 at + 1e4 (audit s35 meta35's slow reproducer); here, on the pair agent_3 vs
agent_1 alone, the estimate moved 2e-9 relative at + 1e4 and 3e-8 at + 1e6 (decisions not yet flipped).

The signed-rank model's Dirichlet draws do not read the scores: its probabilities are bit-identical under a shift
and a scale (with the ROPE in the same units), its estimate and interval equal to rounding.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rlstats
from test_audit_s34_meta34 import _runs  # the unbalanced 3 x 5 runs meta34 sweeps (one home)

PROBABILITIES = ("p_better", "p_rope", "p_worse")
LEVELS = ("estimate", "conf_low", "conf_high")
UNITS = [(1.0, 1e4), (1.0, 1e6), (1e-6, 0.0), (7.3, 0.0), (7.3, 1e6)]


def _bayes(df, scale=1.0, shift=0.0, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.bayes(df.assign(score=df["score"] * scale + shift), "score ~ agent | task/seed",
                             rope=0.1 * scale, rng=1, **options)


def _hierarchical(df, scale=1.0, shift=0.0):
    # one pair, chains that are not run again (max_seconds= leaves no room: about 0.3 s a fit)
    return _bayes(df, scale, shift, model="hierarchical", chains=2, warmup=100, draws=200, max_seconds=0.3)


@pytest.mark.xfail(strict=True, reason="the Gibbs sampler amplifies a shift's rounding until its chains part")
@pytest.mark.parametrize("scale, shift", [(1.0, 1e4), (1.0, 1e6)])
def test_hierarchical_draws_follow_the_units(scale, shift):
    df = _runs()
    df = df[df["agent"] != "agent_2"]           # agent_3 vs agent_1: the pair whose chains parted
    base, other = _hierarchical(df), _hierarchical(df, scale, shift)
    for column in PROBABILITIES + ("p_better_next", "p_rope_next", "p_worse_next"):
        np.testing.assert_array_equal(other.tidy()[column], base.tidy()[column])
    for column in LEVELS:
        np.testing.assert_allclose(other.tidy()[column], scale * base.tidy()[column], rtol=1e-10)
    np.testing.assert_allclose(other.task_effects["estimate"], scale * base.task_effects["estimate"], rtol=1e-10)


@pytest.mark.parametrize("scale, shift", UNITS)
def test_signed_rank_draws_follow_the_units(scale, shift):
    df = _runs()
    base, other = _bayes(df, n_samples=20_000).tidy(), _bayes(df, scale, shift, n_samples=20_000).tidy()
    for column in PROBABILITIES:     # the Dirichlet weights never read the scores: the same draws, bit for bit
        np.testing.assert_array_equal(other[column], base[column])
    for column in LEVELS:            # measured: at most 1.2e-12 at + 1e4, 6.6e-11 at + 1e6, 5e-15 at x 7.3 (the scores'
        # own rounding: ulp(1e6) = 1.2e-10), so equal to 1e-9 of the data's units
        np.testing.assert_allclose(other[column], scale * base[column], rtol=1e-9, atol=1e-9 * scale)
