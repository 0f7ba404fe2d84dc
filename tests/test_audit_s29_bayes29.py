"""Audit s29 (bayes29): the signed-rank model's "practically equivalent" at the ROPE's edge.

Found: of the default model's (``signed_rank``) 108 ``bayes.decision`` rows at 5, 10 and 26 tasks x 3, 5 and 10 runs,
28 miss by the table's 3-SE rule, all of them ``false_equivalence`` at ``delta = rope`` (the true mean difference on
the ROPE's edge), on normal scores as on skewed, heavy-tailed and capped ones, and more at 10 runs than at 3 (4 more
at 1 or 2 runs).  The cause is the estimand: P(rope) is the share of posterior draws in which the ROPE holds the
largest Dirichlet-weighted mass of the Walsh averages of the task differences, and the calibration grid's task
differences (SHIFT times a lognormal task scale) are right-skewed, so in every design draw 0.52-0.75 of their Walsh
averages lie within a ROPE at their mean: the model's own reading there is "equivalent", held more surely as the
runs' noise shrinks.  On one such design without noise (10 tasks, design draw 2) P(rope) is 0.93 where the
posterior of the mean difference the same result prints puts 0.66 within the ROPE.

Measured (``tests/reference/bayes_decision_estimands.py``, its docstring's table; rates of a false "equivalent" at the
mean's edge, ranges over families, worst draw in brackets): no Bayesian reading holds at 0.95 on every design: the
model's P(rope) at the rows' edge 0.044-0.169 (0.275), with the ROPE at its own estimand's boundary (the true Walsh
median) still 0.062-0.150 at 5 tasks; P(|mean| <= rope) of the same Dirichlet draws 0.062-0.181 at 5 and 10 tasks; a
t posterior of the task means (TOST across tasks, a population of tasks) 0.066-0.087 (0.125) at 10 tasks x 10 runs;
no threshold below 1 (the 95th percentile of P(rope) at the mean's edge was 0.95-1.00 in the worst draw of every
design).  The one reading that held on every design judges the rows' own estimand, the mean over the tasks at hand,
with the runs' noise as its only spread (Welch-Satterthwaite, paired by run): at most 0.054 pooled (1,600 data sets),
0.065 in a draw (400).  Nothing was changed in the package (replacing the default reading is an API decision left to
the lead); the two strict xfails below are the open defect's reproducers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration

from conftest import script_module

REFERENCE = Path(__file__).parent / "reference"
SHIFT = 0.5  # size_equivalence.SHIFT: the first agent half a noise unit above the second on every task


def design_differences(draw, tasks):
    """The true task differences of a calibration design draw, SHIFT times the task's scale, drawn here as
    ``designs.design_draw`` documents it (offsets uniform on [0, 2], then scales lognormal with log-sd 0.5)."""
    rng = np.random.default_rng([20401, draw, tasks])
    rng.uniform(0.0, 2.0, tasks)
    return SHIFT * np.exp(rng.normal(0.0, 0.5, tasks))


def walsh_share_within(d, rope):
    """The share of the Walsh averages (d_i + d_j) / 2, ordered pairs with each d_i with itself, within +-rope."""
    w = (d[:, None] + d[None, :]) / 2
    return float(np.mean(np.abs(w) <= rope))


@pytest.mark.slow
def test_task_differences_match_the_reference_truths():
    """The differences above are those the rows judge against: designs.py's truths on normal scores (slow: the
    reference scripts' stratified quantiles take about 3 s)."""
    reference = script_module(REFERENCE / "bayes_decision_estimands.py", "bayes_decision_estimands")
    offset, scale = reference.DESIGNS["design_draw"](2, 10)
    truth = reference.EQUIVALENCE["truths"]("normal", 1.0, offset, scale)
    np.testing.assert_allclose(truth["task"], design_differences(2, 10), rtol=1e-3)
    assert reference.walsh_median(truth["task"]) == pytest.approx(0.77 * truth["mean"], abs=0.01 * truth["mean"])


@pytest.mark.parametrize("tasks", [5, 10, 26])
def test_most_walsh_averages_lie_within_a_rope_at_the_mean(tasks):
    """The cause: in every design draw the signed-rank model's estimand reads 'equivalent' at the rows' edge (the ROPE
    at the true mean difference): more than half the true differences' Walsh averages lie within it (0.52-0.75)."""
    shares = [walsh_share_within(d, d.mean()) for d in (design_differences(draw, tasks) for draw in range(4))]
    assert min(shares) > 0.5
    assert max(shares) <= 0.75


def _noise_free_result():
    """rlstats.bayes on design draw 2 of 10 tasks with the true differences exactly (two paired runs a cell whose
    differences do not vary), the ROPE at their mean: the true mean difference on its edge."""
    rng = np.random.default_rng([20401, 2, 10])
    offset = rng.uniform(0.0, 2.0, 10)
    d = design_differences(2, 10)
    rows = [{"agent": agent, "task": f"t{t}", "seed": s, "score": offset[t] + shift + 0.01 * s}
            for t in range(10) for s in range(2) for agent, shift in (("A", d[t]), ("B", 0.0))]
    return d, rlstats.bayes(pd.DataFrame(rows), "score ~ agent | task/seed", rope=float(d.mean()), rng=1,
                            n_samples=20_000)


@pytest.mark.xfail(strict=True, reason="audit s29 bayes29, open: the signed-rank model's P(rope) reads the Walsh "
                                       "averages, not the mean difference (0.93 where the mean's posterior gives 0.66)")
def test_p_rope_claims_no_more_than_the_mean_posterior():
    """P(equivalent) on one data set whose observed mean difference sits on the ROPE's edge: a probability about the
    mean difference cannot exceed what the result's own posterior of that mean puts within the ROPE, computed here
    independently (Dir(0.5, 1, ..., 1) weights over 0 and the ten differences, 50,000 draws): 0.66, against 0.93."""
    d, result = _noise_free_result()
    weights = np.random.default_rng(0).dirichlet(np.r_[0.5, np.ones(d.size)], 50_000)
    within = float(np.mean(np.abs(weights[:, 1:] @ d) <= d.mean()))
    assert within == pytest.approx(0.66, abs=0.01)
    assert walsh_share_within(d, d.mean()) == pytest.approx(0.75)
    assert result.comparisons["p_rope"].iloc[0] <= within + 0.02


@pytest.mark.xfail(strict=True, reason="audit s29 bayes29, open: 28 of the default model's rows at 3-10 runs miss, "
                                       "all false equivalence at the ROPE's edge; no measured replacement holds")
def test_default_equivalence_decisions_hold():
    """The default model's 'practically equivalent' at the ROPE's edge, as the table rows measure it, at its level."""
    rows = [r for r in calibration.rows("bayes.decision") if r["test"] == "signed_rank" and int(r["runs"]) >= 3]
    assert len(rows) == 108
    missed = [r for r in rows if calibration.misses(r, 0.95)]
    assert {(r["statistic"], r["configuration"]) for r in missed} <= {("false_equivalence", "delta = rope")}
    assert not missed
