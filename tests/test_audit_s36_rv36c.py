"""Audit s36 (rv36c): review of digits36 and calib36.

Found (reproducers below):

* format.level_digits read a 1-ulp difference (the IQM interval of an agent whose runs are constant in every task:
  0.3923076923076924 [0.3923076923076924, 0.3923076923076925], which 15 digits round to ...692 and ...693) as an
  interval that must print apart, and widened the whole table to 15 digits: the bootstrap's other agent's mean read
  "0.437188320979104 0.296173832465967 0.571634030039472", not "0.43719 0.29617 0.57163".
* format._level_digits sized the t statistic (6.3e8 at scores x 1e-4 + 5e4) and the levels as one block, and
  signif_levels(among=) took the widest column: mixed's estimates read "50000.0001695403" (16 digits) where their
  intervals need 11.
* mixed's note of agents whose runs differ in spread said the agents' runs "differ in spread" (a claim about the true
  spreads) at a fixed sample SD ratio of 2, which equal spreads reach often (6 of 60 data sets at 4 agents x 5 tasks x
  3 runs, 17 of 40 at 8 agents), quoted the 4-agent rows for 8 agents without saying they were beyond the agents
  measured, and read an unbalanced design's most runs in a cell as a balanced design's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import format as fmt
from rlstats.methods.mixed import _api

F = "score ~ agent | task/seed"

# 1. values a few ulps apart

ULP_ROW = [0.3923076923076924, 0.3923076923076924, 0.3923076923076925]



def test_values_a_few_ulps_apart_read_as_one():
    assert fmt.level_digits([ULP_ROW]) == 5
    frame = pd.DataFrame({"agent": ["A", "B"], "estimate": [ULP_ROW[0], 0.437188320979104],
                          "conf_low": [ULP_ROW[1], 0.296173832465967], "conf_high": [ULP_ROW[2], 0.571634030039472]})
    lines = fmt.table_text(frame).splitlines()
    assert lines[1].split() == ["A", "0.39231", "0.39231", "0.39231"]
    assert lines[2].split() == ["B", "0.43719", "0.29617", "0.57163"]


def test_values_apart_by_more_than_arithmetic_still_print_apart():
    # 1e-11 apart (relative): 14 digits; 1e16 + 14 and + 18 (a double's step 2) still every digit (digits36)
    assert fmt.level_digits([[1.0, 1.0 + 1e-11, 1.0 + 2e-11]]) == 14
    assert fmt.level_digits([[1e16 + 16, 1e16 + 14, 1e16 + 18]]) == 17
    assert fmt.signif_levels([123.45678, 123.45677, 123.45679]) == ["123.45678", "123.45677", "123.45679"]


# 2. a statistic's digits are not the levels'

def _shifted_mixed():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame([(f"agent_{a}", f"T{t}", s, a * 0.5 + t + rng.normal())
                          for t in range(5) for a in range(3) for s in range(5)],
                         columns=["agent", "task", "seed", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.mixed(frame.assign(score=frame["score"] * 1e-4 + 5e4), F)



def test_levels_take_their_own_digits_not_a_statistics():
    res = _shifted_mixed()
    means = res.emmeans
    # the levels alone need 11 digits (their smallest spread, 6.5e-5 down a column, to 3 digits)
    assert fmt.level_digits(means[["estimate", "conf_low", "conf_high"]].to_numpy()) == 11
    assert fmt.signif_levels(means[["estimate"]].to_numpy(), 3, among=means) == [
        "50000.00017", "50000.000235", "50000.000305"]
    assert fmt.table_text(means).splitlines()[1].split()[1:5] == ["50000.00017", "7.8964e-05", "4.2922", "633201166.35"]
    assert r"agent\_0 50000.00017." in res.report() and "50000.0001695403" not in res.report()
    latex = res.to_latex()
    assert "agent\\_0 & 50000.00017 & 633201166.35 & 49999.999956 & 50000.000383" in latex, latex


# 3. mixed's note of agents whose runs differ in spread

def _spread_frame(sds, tasks=5, runs=3, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"agent": f"a{a}", "task": f"t{t}", "seed": s, "score": 3 * t + sd * rng.normal()}
                         for t in range(tasks) for a, sd in enumerate(sds) for s in range(runs)])


def _spread_notes(frame, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.mixed(frame, F, **options)
    return [n for n in res.notes if "simultaneous intervals" in n and "run sd by agent" in n]


def test_the_spread_note_says_what_the_sample_shows():
    # 8 agents of one run SD, 5 tasks x 3 runs: their SDs lie 2.2 times apart, which such samples reach often: no
    # note (the review's mixfire.py: 17 of 40 such data sets fired; since audit s37 spread37 Levene's test about
    # medians gives p 0.57 here)
    frame = _spread_frame((1,) * 8, seed=2)
    assert _api.run_sd_ratio(_design(frame)) >= 2 and _spread_notes(frame) == []
    assert _api.run_spread_test(_design(frame))[3] == pytest.approx(0.5666, abs=1e-4)
    (note,) = _spread_notes(_spread_frame((1, 1, 1, 4)))
    assert "differ in spread (" not in note and "in this sample" in note


def _design(frame):
    from rlstats.design import design_of

    return design_of(frame, F)


def test_the_spread_note_quotes_where_the_rows_were_measured():
    # 8 agents, one of run SD 4: the 4-agent rows, said to be beyond the agents measured
    (note,) = _spread_notes(_spread_frame((1,) * 7 + (4,)))
    assert ("at 4 agents with runs of SD 1, 1, 1, 4 in noise units, 5 tasks and 3 runs per cell (the nearest design "
            "measured; this design's 8 agents are beyond the 2 and 4 agents measured): 0.904") in note
    # unbalanced (cells of 1 to 3 runs): the rows of balanced designs from its fewest runs to its most, said so
    (note,) = _spread_notes(_spread_frame((1, 1, 1, 4)).drop(index=[0, 1, 20]))
    assert "and 3 runs per cell (the nearest balanced design measured; cells here hold 1 to 3 runs): 0.904" in note
    (note,) = _spread_notes(_spread_frame((1, 1, 1, 4)))
    assert note.startswith("the agents' runs' SDs within cells, each agent's pooled over its cells, lie 4.6 times "
                           "apart in this sample, largest over smallest (2 or more), and Levene's test of equal "
                           "spreads (the runs' absolute deviations from their cell's median, tasks as blocks) gives "
                           "p < 0.0001 (under 0.05; both held in at most 5.9% of simulated data sets whose agents' "
                           "runs share one spread: 2 to 8 agents x 1 to 26 tasks x 2 to 10 runs a cell, balanced or "
                           "not, of normal, skewed, heavy-tailed and capped scores, 2,000 a design)")
    assert "5 tasks and 3 runs per cell: 0.904" in note
