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
