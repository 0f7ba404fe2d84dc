"""Audit s36 (bayes36): the Bayesian models under the score's units, with the same rng.

The project's standard: every statistic is unchanged by the score's units (shift and positive scale) and row order.
The hierarchical model's Gibbs sampler read its standardised sufficient statistics as they came, and a shift's
rounding (the paired differences of scores + 1e4 are the data's to about 1e-12 relative) was amplified by its
sweeps (bursts of 1e5 to 1e7 where sigma0 is small) until a Metropolis or rejection decision flipped and the chains
parted: p_better 0.6384 -> 0.6397 at + 1e4 (audit s35 meta35's slow reproducer); here, on the pair agent_3 vs
agent_1 alone, the estimate moved 2e-9 relative at + 1e4 and 3e-8 at + 1e6 (decisions not yet flipped).

Fixed: the sampler reads the standardised sums, squares and delta0's bound on a grid of 2^-20 of the pair's scale (a
step of at most 2^-20 of the value for the squares and bounds; ``bayes._kernels.snapped``), far coarser than a shift's
rounding and far finer than the posterior resolves, so the draws are the same bit for bit unless an input lies within
that rounding of a midpoint of the grid.  Measured on 200,000 simulated pairs (5 tasks x 4 runs, scores ~ 20,
differences of sd 1): an input of the pair moved to another grid point in 3e-5 of the pairs at + 1e4, 1.1e-3 at + 1e6,
0.13 at + 1e8 (where the shifted scores keep 1e-8 of the differences' digits), none at x 7.3 and x 1e-6; a grid of
2^-30 would have moved 0.017 at + 1e4 and 0.67 at + 1e6.  The R-hat and ESS are read off the standardised draws (the
pair's scale times them let the folded ranks of two draws equally far from the median swap: an R-hat moved 7e-6 under
a shift, the draws the same), and the joint fit of orderings=True takes each task's runs less the reference agent's
mean there, snapped alike (its inputs were the runs' own sums, which a shift moves: 2e-8 relative in its delta0 at +
1e6).  On audit s35's design (3 agents, control agent_1, 2 chains of 200 draws), p_better and every probability are
now the same under + 1e4, + 1e6, x 1e-6 and x 7.3, the estimates and per-task estimates within 6e-12 relative.  What
it moved: on 30 small designs (2 agents x 5 tasks x 3 runs) no P(better); delta0's posterior mean by 8e-7 relative
(median), 1.5e-4 at most; no pinned value of the default suite; on audit s35's design agent_3 vs agent_1 (its chains
run again at 16 times the draws) P(better) 0.6384 -> 0.6269 and the estimate 0.4986 -> 0.4977, within the Monte Carlo
error its note states (0.014).

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


@pytest.mark.parametrize("scale, shift", [(1.0, 1e4), (1.0, 1e6)])
def test_hierarchical_draws_follow_the_units(scale, shift):
    df = _runs()
    df = df[df["agent"] != "agent_2"]           # agent_3 vs agent_1: the pair whose chains parted
    base, other = _hierarchical(df), _hierarchical(df, scale, shift)
    for column in PROBABILITIES + ("p_better_next", "p_rope_next", "p_worse_next", "r_hat", "ess_bulk"):
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


def test_the_joint_fit_behind_the_orderings_follows_the_units():
    # the joint fit read each agent's own runs, whose sums carry a shift's size into every sweep (1.2e-9 relative in
    # its delta0 draws at + 1e6 on 3 agents x 5 tasks, measured); now each task's runs less the reference's mean
    df = _runs()
    df = df[df["task"] != "task_04"]            # orderings=True fits every agent on every task
    fits = [_bayes(df, scale, shift, model="hierarchical", chains=2, warmup=100, draws=200, max_seconds=0.6,
                   orderings=True, control="agent_1") for scale, shift in [(1.0, 0.0), (1.0, 1e6), (7.3, 0.0)]]
    joint = [f.diagnostics[f.diagnostics["parameter"].str.contains("joint")] for f in fits]
    for (scale, _), fit, rows in zip([(1.0, 1e6), (7.3, 0.0)], fits[1:], joint[1:]):
        np.testing.assert_array_equal(fit.orderings["probability"], fits[0].orderings["probability"])
        np.testing.assert_array_equal(rows["r_hat"], joint[0]["r_hat"])
        np.testing.assert_allclose(rows["estimate"], scale * joint[0]["estimate"], rtol=1e-10)
