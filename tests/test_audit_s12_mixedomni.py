"""Audit s12 (mixedomni): mixed()'s omnibus F test and its agents' marginal-mean intervals on saturated runs.

Audit s11 withheld the pairwise contrasts of an agent whose runs mostly sit at a score cap and gave the others' from
the model refitted without it; the omnibus F (lmerTest's type III anova) and the agents' mean intervals were left as
the model of every agent gives them. Measured here (``tests/reference/coverage_mixed_saturated.py``, ``omnibus``):
the F's size where the agents are alike in mean but runs pile at the cap (all agents at it in 85% of runs; one agent
at it in 85% or 95%, the others in a third), and the mean intervals' coverage of each agent's mean over the tasks at
hand, on the same runs and on the grid's saturated runs with agents apart.
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np
import pytest
from scipy import stats

import rlstats

from test_audit_s11_mixedsat import _capped_frame

SCRIPT = pathlib.Path(__file__).parent / "reference" / "coverage_mixed_saturated.py"


def test_the_f_test_leaves_out_the_saturated_agents():
    """C and D sit at the cap 10 in 14 of their 15 runs, so their pairs are withheld; the F test (F = 117 on 3 and
    12 df, p = 4e-9) still rested on them. It should be the F of the refit the pairs left come from, A and B alone:
    with two agents that is the square of the paired t test of their task-wise cell-mean differences (F = t^2 on 1
    and T - 1 df), and the print and the notes say which agents it compares."""
    frame = _capped_frame()
    res = rlstats.mixed(frame, "score ~ agent | task/seed")
    cells = frame[frame["agent"].isin(["A", "B"])].groupby(["task", "agent"])["score"].mean().unstack()
    test = stats.ttest_1samp((cells["A"] - cells["B"]).to_numpy(), 0.0)
    np.testing.assert_allclose(res.statistic, test.statistic ** 2, rtol=1e-6)
    assert res.num_df == 1
    np.testing.assert_allclose(res.den_df, cells.shape[0] - 1, rtol=1e-6)
    np.testing.assert_allclose(res.pvalue, test.pvalue, rtol=1e-6)
    assert res.omnibus_agents == ("A", "B")
    assert "agents A, B only" in str(res)
    assert any(note.startswith("the F test compares A, B only") for note in res.notes)



def test_the_f_test_is_withheld_without_two_agents_off_the_cap_and_ignores_units_and_order():
    """A against C (at the cap in 14 of 15 runs): C's pair is withheld and no two agents are left, so the F is NaN
    and the print, the prose and a note say so. With every agent, the refit's F is the same for scores times 1000
    and shuffled rows."""
    frame = _capped_frame()
    res = rlstats.mixed(frame[frame["agent"].isin(["A", "C"])], "score ~ agent | task/seed")
    assert np.isnan([res.statistic, res.den_df, res.pvalue]).all() and res.omnibus_agents == ()
    assert "F test withheld" in str(res) and "No F test of the agents is given" in res.report("text")
    assert any(note.startswith("the F test that the agents' means are equal is withheld") for note in res.notes)
    base = rlstats.mixed(frame, "score ~ agent | task/seed")
    moved = frame.sample(frac=1.0, random_state=4).assign(score=lambda f: f["score"] * 1000.0)
    again = rlstats.mixed(moved, "score ~ agent | task/seed")
    np.testing.assert_allclose([again.statistic, again.den_df, again.pvalue], [base.statistic, base.den_df,
                                                                                base.pvalue], rtol=1e-9)
    assert again.omnibus_agents == base.omnibus_agents == ("A", "B")


def _summary(agents, tasks, runs, scenario, n_sim, ddf="satterthwaite"):
    """(F rejections, F tests given, mean intervals that held, mean intervals given) of ``measure_omnibus_means``."""
    rows = runpy.run_path(str(SCRIPT))["measure_omnibus_means"](agents, tasks, runs, scenario, n_sim, ddf)
    given = [r["rejected"] for r in rows if r["rejected"] is not None]
    held = [h for r in rows for h in r["held"] if h is not None]
    return sum(given), len(given), sum(held), len(held)


def test_mean_intervals_hold_on_saturated_runs_reduced():
    """The agents' mean intervals on runs at a cap hold each agent's mean over the tasks at hand (the audit measured
    0.97-1 at 2-8 agents x 3-26 tasks x 3-20 runs, 100 data sets a design; they count the tasks' spread, so they are
    conservative there): here 2 agents x 3 tasks x 3 runs, one agent at the cap in 95% of its runs, 8 data sets (2 a
    design draw), every interval given and at least 14 of the 16 holding (0.95 less 3 SE of 16 is 0.79)."""
    _, _, held, given = _summary(2, 3, 3, "one at 95%, others a third", 2)
    assert given == 16 and held >= 14


@pytest.mark.slow
@pytest.mark.parametrize("point", [(3, 10, 3), (2, 26, 3), (8, 26, 3)])
@pytest.mark.parametrize("scenario", ["one at 85%, others a third", "one at 95%, others a third", "all at 85%"])
def test_f_size_and_mean_intervals_on_saturated_runs(point, scenario):
    """The F's size where the agents are alike in mean (before audit s12, with the saturated agents in it: 0.13 at 3 x
    10 x 3 and 0.11 at 2 and 8 x 26 x 3, one agent at the cap in 85% of runs; 0.30, 0.20, 0.20 at 95%), and the mean
    intervals' coverage: 100 data sets a design (25 a design draw), the F's rejections among those given at most
    0.05 + 3 SE and the intervals at least 0.95 - 3 SE."""
    rejected, tests, held, given = _summary(*point, scenario, 25)
    if tests:
        assert rejected / tests <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / tests)
    assert given >= 100 and held / given >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / 100)
