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
    # note (the review's mixfire.py: 17 of 40 such data sets fired)
    frame = _spread_frame((1,) * 8, seed=2)
    assert _api.run_sd_ratio(_design(frame)) >= 2 and _spread_notes(frame) == []
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
                           "apart in this sample, largest over smallest (2 or more, and a ratio that agents whose "
                           "normal runs share one SD reach in 0.23% of samples with these df, under 5%)")
    assert "5 tasks and 3 runs per cell: 0.904" in note


def test_run_sd_chance_against_closed_forms():
    from scipy import stats

    # 2 agents: 2 P(F >= r^2); 4 agents of 10 df: Hartley's F-max 5.67 at 0.05
    assert _api.run_sd_chance([10, 10], np.sqrt(stats.f.ppf(0.975, 10, 10))) == pytest.approx(0.05, abs=1e-6)
    assert _api.run_sd_chance([7, 12], 2.0) == pytest.approx(
        stats.f.sf(4, 7, 12) + stats.f.sf(4, 12, 7), abs=1e-6)
    assert _api.run_sd_chance([10] * 4, np.sqrt(5.67)) == pytest.approx(0.05, abs=5e-4)
    # unequal df against simulation (200,000 draws: SE 0.0005)
    rng = np.random.default_rng(0)
    df = np.array([5.0, 10.0, 20.0])
    v = rng.chisquare(df, (200_000, 3)) / df
    assert np.mean(np.sqrt(v.max(1) / v.min(1)) >= 2.5) == pytest.approx(_api.run_sd_chance(df, 2.5), abs=0.002)


def _trigger_rates(agents, pattern, distribution, n, tasks=5, runs=3):
    """(the note's trigger, the fixed ratio of 2 alone) over n data sets of coverage_mixed_spreads.py's simulate."""
    import runpy

    from test_audit_s36_calib36 import REFERENCE

    script = runpy.run_path(str(REFERENCE / "coverage_mixed_spreads.py"))
    sds = np.ones(agents) if pattern is None else script["run_sds"](agents, pattern)
    offset, scale = script["DESIGNS"]["design_draw"](0, tasks)
    import dataclasses

    design = _design(_spread_frame([1.0] * agents, tasks, runs))  # its order: task, agent, run, as simulate's
    rng = np.random.default_rng(36)
    fired = ratio_alone = 0
    for _ in range(n):
        design = dataclasses.replace(design, y=script["simulate"](distribution, sds, offset, scale, runs, rng))
        ratio = _api.run_sd_ratio(design)
        sd, df = _api._run_sds(design)
        fired += ratio >= _api.RUN_SD_RATIO and _api.run_sd_chance(df[(df > 0) & (sd > 0)], ratio) < _api.RUN_SD_LEVEL
        ratio_alone += ratio >= _api.RUN_SD_RATIO
    return fired / n, ratio_alone / n


def test_the_spread_trigger_is_rare_under_equal_normal_spreads():
    # 4 agents x 5 tasks x 3 runs, normal, one run SD (tasks of different spreads): the note fires in 1.5% of 2,000
    # data sets (the ratio of 2 alone: 29%); here 300
    fired, alone = _trigger_rates(4, None, "normal", 300)
    assert fired <= 0.05 and alone >= 0.2


@pytest.mark.slow
@pytest.mark.parametrize("agents, pattern, distribution, n, low, high", [
    (8, None, "normal", 2000, 0.0, 0.03), (4, None, "normal", 2000, 0.0, 0.03), (4, None, "skewed", 2000, 0.15, 0.23),
    (4, "one", "normal", 500, 0.8, 0.9), (4, "half", "normal", 500, 0.9, 0.97)])
def test_the_spread_trigger_rates_as_the_docstring_says(agents, pattern, distribution, n, low, high):
    fired, _ = _trigger_rates(agents, pattern, distribution, n)
    assert low <= fired <= high
