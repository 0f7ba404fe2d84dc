"""Audit s35 (mixed35): Kenward-Roger's F where the task x agent variance is fitted at 0; the unbalanced rows quoted.

1. ``ddf="kenward-roger"`` (pbkrtest's df, emmeans' default for lmer fits; rlstats' default is Satterthwaite's, as
   lmerTest's) rejected agents alike in 0 of 400 data sets on several unbalanced ``mixed.f_size`` rows (audit s34).
   ``tests/reference/size_mixed_boundary.py`` measures where: by whether the fit puts the task x agent SD at 0. At
   that boundary pbkrtest keeps the component in the information matrix, so its df are the interaction's
   ((tasks - 1)(agents - 1) in a balanced design: 2 at 2 agents x 3 tasks) while Satterthwaite's are the residual's
   (58 there); the F is the same. lmerTest's anova(ddf = "Kenward-Roger") gives the same numbers
   (``mixed_boundary35_r.R``) and R's own simulation the same conservatism (``size_mixed_boundary_r.R``): pbkrtest's,
   not ours. The note of a singular fit with Kenward-Roger's df now quotes what was measured there.
2. The notes of an unbalanced design quote the unbalanced calibration rows (audit s34's, none of which misses), for
   its number of agents: the lowest coverage of the family asked for and the F's level range.
"""

from __future__ import annotations

import json
import re
import runpy
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration

REFERENCE = Path(__file__).parent / "reference"
BOUNDARY = runpy.run_path(str(REFERENCE / "size_mixed_boundary.py"))
DATA = pd.read_csv(REFERENCE / "mixed_boundary35.csv")


def _mixed(frame, formula="score ~ agent | task/seed", **options):
    with warnings.catch_warnings():  # the raw-scales caution of tasks of different spreads
        warnings.simplefilter("ignore")
        return rlstats.mixed(frame, formula, **options)


def _r_output():
    """{design: {ddf: (F, df, p)}} of mixed_boundary35_r.out (lmerTest 3.1-3, pbkrtest 0.5.2)."""
    out = {}
    for line in (REFERENCE / "mixed_boundary35_r.out").read_text().splitlines():
        name = line.split()[0]
        out[name] = {ddf: tuple(float(x) for x in re.search(rf"{ddf} F (\S+) df (\S+) p (\S+)", line).groups())
                     for ddf in ("satterthwaite", "kenward-roger")}
        out[name]["theta_cell"] = float(re.search(r"theta_cell (\S+)", line).group(1))
    return out


@pytest.mark.parametrize("name", ["b2x3x10", "b3x10x3"])
def test_boundary_f_tests_equal_lmertest_anova(name):
    # the same F; Kenward-Roger's df the interaction's (2 = (3 - 1)(2 - 1); 18 = (10 - 1)(3 - 1)), Satterthwaite's
    # the residual's (58 = 60 - 2; 78 = 90 - 3, to lme4's optimum): pbkrtest's df at the boundary, not ours
    r = _r_output()[name]
    assert r["theta_cell"] == 0.0
    frame = DATA[DATA["design"] == name]
    for ddf in ("satterthwaite", "kenward-roger"):
        res = _mixed(frame, ddf=ddf)
        assert res.theta[1] < 1e-4 and res.singular
        np.testing.assert_allclose([res.statistic, res.den_df, res.pvalue], r[ddf], rtol=2e-6)
    expected = {"b2x3x10": (2.0, 58.0), "b3x10x3": (18.0, 78.0)}[name]
    assert round(_mixed(frame, ddf="kenward-roger").den_df, 6) == expected[0]
    assert round(_mixed(frame).den_df, 4) == expected[1]


def test_r_draws_the_same_conservatism():
    # R's own simulation (size_mixed_boundary_r.R: task intercepts sd 1, runs sd 1, agents alike, no task x agent
    # term; 400 data sets a design; lmerTest's anova): Kenward-Roger's F rejects less often than Satterthwaite's at
    # every design, never at 2 agents x 3 tasks x 10 runs; at the boundary Satterthwaite's conditional rate can exceed
    # 0.05 (0.096 at 3 agents x 5 tasks x 5 runs), the reason the boundary is not given Satterthwaite's df under
    # ddf="kenward-roger"
    text = (REFERENCE / "size_mixed_boundary_r.out").read_text().splitlines()
    rates = {}
    for line in text:
        design, words = line.split(":")
        rates[design] = dict(zip(words.split()[::2], map(float, words.split()[1::2])))
    assert len(rates) == 4 and all(r["n"] == 400 and r["kr"] < r["sat"] for r in rates.values())
    assert rates["2 agents x 3 tasks x 10 runs"]["kr"] == 0.0 and rates["2 agents x 3 tasks x 10 runs"]["sat"] == 0.0225
    assert rates["3 agents x 5 tasks x 5 runs"]["sat_boundary"] == 0.0962


def _unbalanced_rows(procedure, agents, **columns):
    """The table's unbalanced rows of ``procedure`` at ``agents`` agents, read with pandas (independently of the
    note's own reading)."""
    table = pd.read_csv(calibration.PATH)
    rows = table[(table["procedure"] == procedure) & table["configuration"].str.startswith(calibration.UNBALANCED)
                 & (table["agents"] == agents)]
    for column, value in columns.items():
        rows = rows[rows[column] == value]
    return rows


def _relabel():
    return pd.read_csv(REFERENCE / "mixed_relabel33.csv")  # Atari 100k: 4 agents x 6 tasks, two never met


@pytest.mark.parametrize("ddf,adjust,interval", [("satterthwaite", "tukey", "tukey"),
                                                 ("kenward-roger", "holm", "holm")])
def test_an_unbalanced_design_quotes_the_unbalanced_rows(ddf, adjust, interval):
    res = _mixed(_relabel(), ddf=ddf, adjust=adjust)
    quoted = [n for n in res.notes if n.startswith("measured on unbalanced designs")]
    assert len(quoted) == 1
    note = quoted[0]
    family = _unbalanced_rows("mixed.contrast", 4, test=ddf, interval=interval)
    f_rows = _unbalanced_rows("mixed.f_size", 4, test=ddf, statistic="orthonormal")
    assert len(family) == 24 and len(f_rows) == 16   # agent_runs and atari_incomplete, 4 families x 3 (2) configs
    worst = family.loc[family[["coverage", "coverage_min"]].min(axis=1).idxmin()]
    size = 1 - f_rows["coverage"]
    assert "the patterns agent_runs (4 agents x 10 tasks, 0 empty cells, runs 3/5/10) and atari_incomplete" in note
    assert f"covered {worst['coverage']:.4g} in the lowest row, {worst['coverage_min']:.3f} in the worst" in note
    assert f"none of the {len(family)} rows below 0.95" in note
    assert f"rejected agents alike in {size.min():.4g} to {size.max():.4g} of the data sets (16 rows)" in note
    # the numbers of the rows as audit s34 left them
    assert {"satterthwaite": "covered 0.95 in the lowest row, 0.910 in the worst",
            "kenward-roger": "covered 0.975 in the lowest row, 0.940 in the worst"}[ddf] in note
    assert {"satterthwaite": "0.0025 to 0.055", "kenward-roger": "0 to 0.0425"}[ddf] in note


def test_the_unbalanced_note_is_not_printed_where_no_row_speaks():
    balanced = DATA[DATA["design"] == "b3x10x3"]
    assert not [n for n in _mixed(balanced).notes if "unbalanced designs" in n]
    # at a level the rows did not measure
    assert not [n for n in _mixed(_relabel(), confidence_level=0.9).notes if "unbalanced designs" in n]
    # 2 agents read the two_agents pattern; Sidak's family there is Tukey's one t interval, whose rows speak for it
    two = _relabel()
    two = two[two["agent"].isin(["DrQ", "SPR"])].iloc[:-3]
    note = [n for n in _mixed(two, adjust="sidak").notes if n.startswith("measured on unbalanced")][0]
    assert "designs of 2 agents" in note and "the pattern two_agents (2 agents x 3 tasks" in note
    assert "the 95% Sidak simultaneous intervals" in note
    tukey = _unbalanced_rows("mixed.contrast", 2, test="satterthwaite", interval="tukey")
    assert f"none of the {len(tukey)} rows" in note and len(tukey) == 12
    # no family to quote (adjust="none"): the F's level alone
    note = [n for n in _mixed(_relabel(), adjust="none").notes if n.startswith("measured on unbalanced")][0]
    assert "simultaneous" not in note and "rejected agents alike in 0.0025 to 0.055" in note


def test_the_boundary_table_is_the_measurements():
    # _api.BOUNDARY_MEASURED, which the singular-fit note quotes, is size_mixed_boundary.py's pooled counts as stored
    from rlstats.methods.mixed import _api

    stored = json.loads((REFERENCE / "size_mixed_boundary.json").read_text())
    keys = ("fits", "satterthwaite", "kenward-roger", "data_sets", "satterthwaite_all", "kenward-roger_all")
    assert sorted(_api.BOUNDARY_MEASURED) == sorted(int(t) for t in stored)
    for tasks, measured in _api.BOUNDARY_MEASURED.items():
        assert list(measured["agents"]) == stored[str(tasks)]["agents"]
        for name, configuration in _api._BOUNDARY_CONFIGURATIONS.items():
            assert measured[name] == tuple(stored[str(tasks)][configuration][k] for k in keys)
    three = _api.BOUNDARY_MEASURED[3]
    # the finding: at 3 tasks Kenward-Roger's F all but never rejects at the boundary, and keeps under half of
    # Satterthwaite's power there; Satterthwaite's exceeds 0.05 there when a task x agent spread was missed
    assert three["alike"][2] <= 0.002 * three["alike"][0] < three["alike"][1]
    assert three["apart"][2] < 0.5 * three["apart"][1]
    assert three["missed"][1] > 0.065 * three["missed"][0]
    # the ddf= docstring quotes the 3-task counts
    doc = " ".join(rlstats.mixed.__doc__.split())
    assert f"at 0.05 in {three['alike'][2]} of {three['alike'][0]:,} and agents 0 to 1 noise sd apart" in doc


@pytest.mark.parametrize("ddf", ["satterthwaite", "kenward-roger"])
def test_a_singular_fit_quotes_the_boundary_measurements(ddf):
    from rlstats.methods.mixed import _api

    notes = _mixed(DATA[DATA["design"] == "b2x3x10"], ddf=ddf).notes
    note = [n for n in notes if n.startswith("singular fit")][0]
    alike, missed, apart = (_api.BOUNDARY_MEASURED[3][k] for k in ("alike", "missed", "apart"))
    own = 1 if ddf == "satterthwaite" else 2
    assert "(3 tasks, 2, 3 and 8 agents, 3 to 10 runs" in note
    assert f"rejected agents alike in {alike[own]:,} of {alike[0]:,} (" in note
    assert f"missed in {missed[own]:,} of {missed[0]:,} (" in note
    assert f"agents 0 to 1 noise sd apart in {apart[own]:,} of {apart[0]:,} (" in note
    high = missed[1] / missed[0] > 0.05 + 3 * (0.05 * 0.95 / missed[0]) ** 0.5   # Satterthwaite's, missed spread
    if ddf == "kenward-roger":
        assert "conservative, with power lost, as pbkrtest's df are there" in note
        assert "exceeded 0.05" not in note
        assert high == ("and above 0.05 at this boundary where a task x agent spread was missed" in note)
    else:
        assert "conservative" not in note
        assert high == ("Satterthwaite's level at this boundary exceeded 0.05 by more than 3 Monte Carlo standard "
                        f"errors with a task x agent spread the fit missed (over all {missed[3]:,} such data sets"
                        in note)
    # 10 tasks read the 10-task designs, where the two df methods come close
    ten = [n for n in _mixed(DATA[DATA["design"] == "b3x10x3"], ddf=ddf).notes if n.startswith("singular fit")][0]
    assert "(10 tasks, 3 agents" in ten and "conservative" not in ten
    # a fit off the boundary says nothing of it
    off = DATA[DATA["design"] == "b3x10x3"].copy()
    off["score"] += np.random.default_rng(0).normal(size=(10, 3))[pd.factorize(off["task"])[0],
                                                                    pd.factorize(off["agent"])[0]] * 3
    res = _mixed(off, ddf=ddf)
    assert res.theta[1] > 1e-4 and not [n for n in res.notes if "task x agent SD at 0" in n]


@pytest.mark.parametrize("point", [((2, 3, 5), "normal", "shift 0 to 1"), ((2, 3, 5), "capped", "all_equal")])
def test_a_reduced_measurement(point):
    # the script's decisions at one point, 5 data sets a draw (20): numbers of its seeded stream, and the direction
    # of the finding (Kenward-Roger's F rejects no more often than Satterthwaite's there)
    records = BOUNDARY["measure"](*point, 5)
    boundary = [r[0] for r in records]
    sat = sum(r[1] <= 0.05 for r in records)
    kr = sum(r[2] <= 0.05 for r in records)
    assert len(records) == 20 and kr <= sat
    assert (sum(boundary), sat, kr) == {"shift 0 to 1": (10, 9, 2), "all_equal": (17, 0, 0)}[point[2]]


@pytest.mark.slow
def test_the_stored_summary_reproduces():
    # a point of the stored measurement rerun in full (200 data sets): the same decisions, hence the same counts
    point = ((2, 3, 5), "normal", "shift 0 to 1")
    done = {json.dumps(point): BOUNDARY["measure"](*point, 50)}
    stored = json.loads((REFERENCE / "size_mixed_boundary_points.json").read_text())
    assert BOUNDARY["summary"](done)[json.dumps(point)] == pytest.approx(stored[json.dumps(point)])
