"""Audit s36 (calib36): measured levels of decisions that had none in the calibration table.

1. equivalence()'s note of unlike spreads leaves out a task whose runs rule the rows' spreads out (Bonett's 99%
   interval of the SD ratio within 1/1.7 to 1.7, audit s34 eqnote34). That decision is a claim of its own (the true
   spreads are not the rows'), measured where it is false by ``tests/reference/spread_ruled_out.py``: the
   ``equivalence.spread_ruled_out`` rows (168: runs 3-100, four families, the rows' factors 1/8-8; 20,000 data sets
   a row, seed 36). One misses its level 0.995: capped scores' factor 1/2 (SD ratio 1/1.73) at 30 runs, 0.0067
   wrongly ruled out. The note quotes the worst row at the runs nearest the ruled-out task's.
"""

import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats import calibration

REFERENCE = pathlib.Path(__file__).resolve().parent / "reference"
PROCEDURE = "equivalence.spread_ruled_out"


def _rows():
    return calibration.rows(PROCEDURE)


def test_rows_cover_the_grid_and_one_misses():
    rows = _rows()
    script = runpy.run_path(str(REFERENCE / "spread_ruled_out.py"))
    assert [script["point_of"](r) for r in rows] == script["grid"]()
    assert {r["level"] for r in rows} == {"0.995"} and {r["n_sim"] for r in rows} == {"20000"}
    missed = [r for r in rows if calibration.misses(r, 0.995)]
    assert [(r["runs"], r["distribution"], r["configuration"]) for r in missed] == [("30", "capped", "spread 1/2")]
    assert 1 - float(missed[0]["coverage"]) == pytest.approx(0.00665, abs=1e-9)
    # nothing ruled out at 3 and 5 runs: the interval is too wide to lie within the band
    assert all(float(r["coverage"]) == 1.0 for r in rows if r["runs"] in ("3", "5"))
    # the capped factor-1/2 row at 50 runs is 0.0063, within 3 SE (0.0015) of 0.005
    fifty = next(r for r in rows if (r["runs"], r["distribution"], r["configuration"]) == ("50", "capped", "spread 1/2"))
    assert 1 - float(fifty["coverage"]) == pytest.approx(0.0063, abs=1e-9) and not calibration.misses(fifty, 0.995)
    assert all(calibration.is_default(r) for r in rows)


def test_a_row_reproduces_from_its_script():
    """The 10-run capped factor-2 row (2 data sets ruled out of 20,000) from the script, bit for bit."""
    script = runpy.run_path(str(REFERENCE / "spread_ruled_out.py"))
    (row,) = script["table_rows"]((10, "capped", "2"), 20_000)
    table = next(r for r in _rows() if (r["runs"], r["distribution"], r["configuration"]) == ("10", "capped", "spread 2"))
    assert f"{row['coverage']:.6g}" == table["coverage"] == "0.9999" and f"{row['se']:.6g}" == table["se"]


def _frame(x):
    return pd.DataFrame({"agent": ["A"] * len(x) + ["B"] * len(x), "task": "t1",
                         "score": np.r_[x, x + 0.01]})


@pytest.mark.parametrize("runs, quoted", [(30, 30), (40, 30), (100, 100), (250, 100)])
def test_note_quotes_the_rows_at_the_runs_nearest(runs, quoted):
    """Two agents' runs of one spread (normal quantiles, B = A + 0.01) rule the rows' spreads out: the note names
    the task as ruled out and quotes the worst row at the runs nearest, the miss at 30 in miss_clause's words."""
    x = stats.norm.ppf((np.arange(runs) + 0.5) / runs)
    result = rlstats.equivalence(_frame(x), "score ~ agent | task", margin=1.0, aggregate=None, progress=False, rng=0)
    (note,) = [n for n in result.notes if "ruled out on t1" in n]
    share = {30: "0.0067", 100: "0.0028"}[quoted]
    beyond = ", the most simulated" if runs > 100 else ""
    assert (f"within 1/1.7 to 1.7; wrongly, at the rows' spreads, in up to {share} of 20,000 simulated tasks: capped "
            f"scores, deviations x 1/2, {quoted} runs of each agent{beyond}") in note
    missed = ", above 0.005 by more than 3 Monte Carlo standard errors; " in note
    assert missed == (quoted == 30)
    assert note.endswith("the calibration table's 'equivalence.spread_ruled_out' rows)")


def test_calibration_page_counts_the_rows():
    from test_audit_s26_docs26 import _words

    page = _words("docs/calibration.md")
    assert ("At 3-20 runs per cell 254 of the defaults' 7,129 rows miss (250 of 7,093 until audit s36, calib36, added "
            "mixed's 36") in page and "250 of 6,997 until audit s36, calib36, added the 96" in page
    assert "0.0048 of 20,000 at 20 runs, 0.0067 at 30, 0.0063 at 50 and 0.0028 at 100 (SE 0.0005)" in page


# 2. mixed(): its pairwise intervals where the agents' runs differ in spread (tests/reference/coverage_mixed_spreads.py,
# the mixed.contrast rows "run sd by agent ..."), and the note of designs whose agents' run SDs are 2 or more times apart
# (and, since audit s36 rv36c, a test that the spreads differ: Hartley's F-max under normal runs until audit s37
# spread37, Levene's about medians since)


def _spread_frame(sds, tasks=5, runs=3, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"agent": f"a{a}", "task": f"t{t}", "seed": s, "score": t + sd * rng.normal()}
                         for t in range(tasks) for a, sd in enumerate(sds) for s in range(runs)])


def test_run_sd_ratio_by_hand():
    from rlstats.design import design_of
    from rlstats.methods.mixed import _api

    frame = pd.DataFrame({"agent": ["a"] * 4 + ["b"] * 4, "task": ["x", "x", "y", "y"] * 2, "seed": [0, 1] * 4,
                          "score": [0.0, 2.0, 5.0, 7.0, 0.0, 8.0, 1.0, 9.0]})
    # a: within-cell squares 2 + 2 over 2 df, sd 1.414; b: 32 + 32 over 2 df, sd 5.657: 4 times apart
    design = design_of(frame, "score ~ agent | task/seed")
    assert _api.run_sd_ratio(design) == pytest.approx(4.0, rel=1e-12)


def _rows_of_spreads():
    return [r for r in calibration.rows("mixed.contrast") if r["configuration"].startswith(calibration.RUN_SPREADS)]


def test_mixed_spread_rows_cover_their_grid():
    rows = _rows_of_spreads()
    script = runpy.run_path(str(REFERENCE / "coverage_mixed_spreads.py"))
    assert len(rows) == 2 * len(script["grid"]()) == 72
    assert {r["configuration"] for r in rows} == {"run sd by agent 1/4: all_equal", "run sd by agent 1/1/4/4: all_equal",
                                                  "run sd by agent 1/1/1/4: all_equal"}
    # 400 data sets a row, 1,600 at the 13 points continued (a row below 0.95 or a draw 2 SE below)
    assert sorted(r["n_sim"] for r in rows) == ["1600"] * 26 + ["400"] * 46 and {r["test"] for r in rows} == {
        "satterthwaite"}
    # one unstable agent among three misses (4 agents, run sd 1/1/1/4), none else: 7 rows, 4 of the default's
    missed = [r for r in rows if calibration.misses(r, 0.95)]
    assert {r["configuration"] for r in missed} == {"run sd by agent 1/1/1/4: all_equal"} and len(missed) == 7
    assert sum(r["interval"] == "tukey" for r in missed) == 4
    worst = min(rows, key=lambda r: float(r["coverage"]))
    assert (worst["tasks"], worst["runs"], worst["distribution"], worst["interval"], worst["coverage"],
            worst["n_sim"]) == ("5", "3", "skewed", "tukey", "0.90375", "1600")


def test_the_scripts_runs_have_the_spreads_its_rows_name():
    script = runpy.run_path(str(REFERENCE / "coverage_mixed_spreads.py"))
    assert script["configuration"](4, "one") == "run sd by agent 1/1/1/4: all_equal"
    assert script["configuration"](4, "half") == "run sd by agent 1/1/4/4: all_equal"
    y = script["simulate"]("normal", script["run_sds"](4, "one"), np.zeros(50), np.ones(50), 40,
                           np.random.default_rng(0)).reshape(50, 4, 40)
    assert y.std(axis=(0, 2)) == pytest.approx([1, 1, 1, 4], rel=0.05)


@pytest.mark.slow
def test_a_mixed_spread_row_reproduces_from_its_script():
    """The row of 2 agents (run SD 1 and 4) on 5 tasks x 3 normal runs, Tukey's, from the script (400 fits)."""
    script = runpy.run_path(str(REFERENCE / "coverage_mixed_spreads.py"))
    rows = script["table_rows"]((2, "half", 5, 3, "normal"), 100)
    (table,) = [r for r in _rows_of_spreads() if (r["agents"], r["tasks"], r["runs"], r["distribution"],
                                                 r["interval"]) == ("2", "5", "3", "normal", "tukey")]
    (mine,) = [r for r in rows if r["interval"] == "tukey"]
    assert (f"{mine['coverage']:.6g}", f"{mine['coverage_min']:.6g}", str(mine["n_sim"])) == (
        table["coverage"], table["coverage_min"], table["n_sim"])


def test_the_note_of_agents_whose_runs_differ_in_spread():
    import warnings

    def notes(sds, tasks=5, runs=3, **options):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rlstats.mixed(_spread_frame(sds, tasks, runs), "score ~ agent | task/seed", **options)
        return [n for n in res.notes if n.startswith("the agents' runs' SDs within cells")]

    # worded as the sample shows (audit s36 rv36c: it said the agents' runs "differ in spread")
    (note,) = notes((1, 1, 1, 4))
    assert note == ("the agents' runs' SDs within cells, each agent's pooled over its cells, lie 4.6 times apart in "
                    "this sample, largest over smallest (2 or more), and Levene's test of equal spreads (the runs' "
                    "absolute deviations from their cell's median, tasks as blocks) gives p < 0.0001 (under 0.05; "
                    "both held in at most 5.9% of simulated data sets whose agents' runs share one spread: 2 to 8 "
                    "agents x 1 to 26 tasks x 2 to 10 runs a cell, balanced or not, of normal, skewed, heavy-tailed "
                    "and capped scores, 2,000 a design), where the model fits one residual variance to all; at designs measured with agents alike in mean whose runs differ in spread, the "
                    "measured coverage of the 95% Tukey simultaneous intervals with Satterthwaite's df at 4 agents "
                    "with runs of SD 1, 1, 1, 4 in noise units, 5 tasks and 3 runs per cell: 0.904, 0.897 in the worst "
                    "of its 4 draws of the tasks' levels and spreads (skewed scores; 1600 simulated data sets; the "
                    "calibration table's 'run sd by agent ...' rows), below 0.95 by more than 3 Monte Carlo standard "
                    "errors")
    # 7 tasks x 4 runs read the 3-run rows (the nearest, the smaller on a tie) of 5 and 10 tasks, the worse on 5
    (note,) = notes((1, 1, 1, 4), tasks=7, runs=4)
    assert "5 and 10 tasks (the worse on 5) and 3 runs per cell (the nearest design measured): 0.904" in note
    (note,) = notes((1, 1, 1, 4), adjust="holm")
    assert "95% Bonferroni (beside Holm's p-values) simultaneous intervals" in note and ": 0.915, 0.905" in note
    # held there (10 runs; 2 agents, whose pooled variance is their pair's), not measured (Kenward-Roger's df), or
    # the runs' SDs alike: no note
    assert notes((1, 1, 1, 4), runs=10) == notes((1, 4)) == notes((1, 1, 1, 1)) == []
    assert notes((1, 1, 1, 4), ddf="kenward-roger") == [] and notes((1, 1, 1, 4), confidence_level=0.9) == []
