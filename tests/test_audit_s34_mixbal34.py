"""Audit s34 (mixbal34): the mixed model calibrated on unbalanced designs.

``rlstats.mixed`` / ``compare(method="mixed")`` was calibrated on balanced designs only (``mixed.contrast`` rows of
``coverage_mixed.py``); audit s33 measured its omnibus F on three unbalanced designs outside the table.
``tests/reference/coverage_mixed_unbalanced.py`` now measures, on nine unbalanced patterns of 2-8 agents x 3-26 tasks
(unequal runs per cell, empty cells, agents with one run on some tasks, two agents never on a common task), four
score families and tasks of different levels and spreads: the F's level at 0.05 in both ``f_basis=`` and with
Kenward-Roger's df (``mixed.f_size`` rows, agents alike, with and without a random task x agent term), and the
simultaneous coverage of the Tukey, Bonferroni (beside Holm), Sidak and Scheffe families with both df methods
(``mixed.contrast`` rows of ``configuration`` "unbalanced ..."; under agents alike 1 - coverage is the family-wise
error, under agents shifted 0 to 1 noise sd apart the coverage of the true differences).

Independent values: the script's decisions are checked here against the F and the intervals :func:`rlstats.mixed`
prints (whose fit, df and intervals equal lme4/lmerTest/pbkrtest/emmeans on unbalanced designs:
``tests/test_audit_s33_mixed33.py``, ``tests/test_mixed.py``), and the rows against the binomial bound at their level.
"""

from __future__ import annotations

import math
import runpy
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration

REFERENCE = Path(__file__).parent / "reference"
UNB = runpy.run_path(str(REFERENCE / "coverage_mixed_unbalanced.py"))
DESIGNS = runpy.run_path(str(REFERENCE / "designs.py"))
CALIBRATE = runpy.run_path(str(REFERENCE / "calibrate.py"))


def _frame(design, y):
    tasks, agents = np.asarray(design.tasks), np.asarray(design.agents)
    return pd.DataFrame({"task": tasks[design.task], "agent": agents[design.agent], "score": y})


def _mixed(frame, **options):
    with warnings.catch_warnings():  # the raw-scales caution of tasks of different spreads
        warnings.simplefilter("ignore")
        return rlstats.mixed(frame, "score ~ agent | task", normalize=False, **options)


@pytest.mark.parametrize("name", ["atari_incomplete", "single_runs"])
def test_the_scripts_decisions_are_those_mixed_prints(name):
    # the F p-values of each df method and basis, and whether each family's printed intervals hold the truth, as
    # decided by the script from one fit (agents shifted 0 to 1 apart, so the truths are not 0)
    design = UNB["template"](name)
    offset, scale = DESIGNS["design_draw"](1, design.n_tasks)
    y = UNB["simulate"](design, "normal", "shift 0 to 1", offset, scale, np.random.default_rng(7))
    shift = dict(zip(design.agents, UNB["shifts"]("shift 0 to 1", design.n_agents)))
    from rlstats.methods.mixed import _kernels

    _, _, first, second = _kernels.agent_contrasts(design.n_agents)
    truth = np.array([shift[design.agents[i]] - shift[design.agents[j]] for i, j in zip(first, second)])
    f, held = UNB["decide"](design, y, truth)
    frame = _frame(design, y)
    for (ddf, basis), p in f.items():
        assert _mixed(frame, ddf=ddf, f_basis=basis, adjust="none").pvalue == pytest.approx(p, rel=1e-7)
    # a family's verdict is its intervals' (truths moved to the edge of one interval flip it)
    for ddf in UNB["DDF"]:
        for adjust in UNB["ADJUST"]:
            pairs = _mixed(frame, ddf=ddf, adjust=adjust).comparisons
            named = np.array([shift[a] - shift[b] for a, b in zip(pairs["agent_1"], pairs["agent_2"])])
            inside = bool(((pairs["conf_low"] <= named) & (named <= pairs["conf_high"])).all())
            assert held[ddf, adjust] == inside, (ddf, adjust)
            low, high = pairs["conf_low"].to_numpy(), pairs["conf_high"].to_numpy()
            order = {(a, b): k for k, (a, b) in enumerate(zip(pairs["agent_1"], pairs["agent_2"]))}
            at = [order[design.agents[i], design.agents[j]] for i, j in zip(first, second)]
            for edge, expect in ((0.999, True), (1.001, False)):
                moved = (low + (high - low) * (1 + edge) / 2)[at]  # the upper end's side of each centre
                assert UNB["decide"](design, y, moved)[1][ddf, adjust] == expect, (ddf, adjust, edge)


def _tabled(point):
    """{(procedure, test, statistic or interval): row} of the table at one grid point of the script."""
    name, distribution, configuration = point
    out = {}
    for procedure in (UNB["PROCEDURE"], UNB["CONTRAST"]):
        for r in calibration.rows(procedure):
            if r["configuration"].startswith(calibration.UNBALANCED) and UNB["point_of"](r) == point:
                out[procedure, r["test"], r["statistic"] or r["interval"]] = r
    return out


def _check(point, n_sim):
    """Re-measured on other data sets (seed 99, ``n_sim`` a design draw): every row at its level (its rate within 3
    binomial SE of 0.95) and within 4 joint SE of the table's row."""
    tabled = _tabled(point)
    f_rows, contrast_rows = UNB["rows_of"](point, *UNB["measure"](*point, n_sim, seed=99))
    measured = {(UNB["PROCEDURE"], r["test"], r["statistic"]): r for r in f_rows}
    measured.update({(UNB["CONTRAST"], r["test"], r["interval"]): r for r in contrast_rows})
    assert set(measured) == set(tabled), "the table lacks this grid point"
    for key, row in measured.items():
        coverage = float(tabled[key]["coverage"])
        assert row["coverage"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / row["n_sim"]), (point, key, row)
        n_tabled = int(tabled[key]["n_sim"])
        joint = math.sqrt(max(coverage * (1 - coverage), 0.05 * 0.95) * (1 / row["n_sim"] + 1 / n_tabled))
        assert abs(row["coverage"] - coverage) <= 4 * joint, (point, key, row["coverage"], coverage)
    return measured


@pytest.mark.parametrize("point", [("runs_3_5_10", "capped", "all_equal, cells sd 0.5")])
def test_unbalanced_rows_reduced(point):
    """The reduced run pinned (seed 99, deterministic): all 11 rows (3 F tests, 8 families of intervals) hold on all
    20 data sets, which the bar of 3 binomial SE (0.804) alone would not say."""
    measured = _check(point, 5)  # 20 data sets of 94 runs: ~0.6 s
    assert len(measured) == 11
    assert {key: (row["n_sim"], round(row["coverage"] * row["n_sim"])) for key, row in measured.items()} == {
        key: (20, 20) for key in measured}


@pytest.mark.slow
@pytest.mark.parametrize("point", UNB["grid"](), ids=lambda point: "-".join(point).replace(" ", "_"))
def test_unbalanced_rows_full_grid(point):
    _check(point, 25)


@pytest.mark.slow
def test_unbalanced_rows_reproduce_bit_for_bit():
    point = ("atari_incomplete", "skewed", "all_equal, cells sd 0.5")
    tabled = _tabled(point)
    f_rows, contrast_rows = UNB["point_rows"](point, UNB["SIMULATIONS"][0])
    for procedure, rows, column in ((UNB["PROCEDURE"], f_rows, "statistic"), (UNB["CONTRAST"], contrast_rows,
                                                                               "interval")):
        for row in rows:
            table = tabled[procedure, row["test"], row[column]]
            assert {c: f"{row[c]:.6g}" if isinstance(row[c], float) else str(row[c])
                    for c in ("n_sim", "coverage", "se", "coverage_min")} == {
                c: table[c] for c in ("n_sim", "coverage", "se", "coverage_min")}


#: lmerTest 3.1-3 / pbkrtest / emmeans 1.8.4-1 on mixed_unbalanced34.csv (mixed_unbalanced34_r.R, its output
#: mixed_unbalanced34_r.out): one data set of the eight_by_26 pattern, skewed scores with task x agent intercepts
R_F = {("satterthwaite", "lmertest"): (0.4013777839, 135.1865628, 0.9001048531),
       ("satterthwaite", "orthonormal"): (0.4013777839, 135.2402878, 0.9001056063),  # contestMD of the orthonormal rows
       ("kenward-roger", "orthonormal"): (0.3989632347, 125.0437581, 0.9014161119)}
#: (ddf, pair): estimate, SE, df, Tukey p, Tukey interval
R_PAIRS = {("satterthwaite", "a0 - a1"): (-0.235992923, 0.2855751222, 157.7512285, 0.9913761974, -1.113293938,
                                          0.6413080915),
           ("satterthwaite", "a0 - a7"): (-0.4386852343, 0.3097534158, 140.4157635, 0.8483898037, -1.39184949,
                                          0.5144790214),
           ("satterthwaite", "a6 - a7"): (-0.347749548, 0.3156298362, 127.0629184, 0.9553740949, -1.320544822,
                                          0.625045726),
           ("kenward-roger", "a0 - a1"): (-0.235992923, 0.2861721561, 146.2849055, 0.9914606566, -1.116058254,
                                          0.6440724075),
           ("kenward-roger", "a0 - a7"): (-0.4386852343, 0.310613531, 129.9108412, 0.8500916754, -1.395668411,
                                          0.5182979429),
           ("kenward-roger", "a6 - a7"): (-0.347749548, 0.3166098609, 117.3636766, 0.9560002232, -1.324917033,
                                          0.6294179374)}


def test_an_unbalanced_data_set_of_the_grid_equals_r():
    frame = pd.read_csv(REFERENCE / "mixed_unbalanced34.csv")
    for (ddf, basis), expected in R_F.items():
        res = _mixed(frame, ddf=ddf, f_basis=basis)
        np.testing.assert_allclose([res.statistic, res.den_df, res.pvalue], expected, rtol=2e-5)
        pairs = res.comparisons.assign(contrast=lambda p: p["agent_1"] + " - " + p["agent_2"]).set_index("contrast")
        for (d, contrast), (estimate, se, df, p, low, high) in R_PAIRS.items():
            if d == ddf:
                row = pairs.loc[contrast]
                np.testing.assert_allclose([row.estimate, row.std_error, row.df, row.p_adjusted, row.conf_low,
                                            row.conf_high], [estimate, se, df, p, low, high], rtol=2e-5)


def test_unbalanced_rows_in_the_table():
    # 216 F rows (72 null points x 3 F's) and 816 contrast rows (8 a point, 4 with 2 agents); none misses
    f = rlstats.calibration_table(UNB["PROCEDURE"])
    contrast = rlstats.calibration_table(UNB["CONTRAST"])
    contrast = contrast[contrast["configuration"].str.startswith(calibration.UNBALANCED)]
    assert (len(f), len(contrast)) == (216, 816) == (3 * 72, 8 * 8 * 12 + 4 * 12)
    assert f["runs"].isna().all() and contrast["runs"].isna().all()  # no balanced design's note reads them
    assert not f["misses"].any() and not contrast["misses"].any()
    raw = calibration.rows(UNB["CONTRAST"])
    assert sum(map(UNB["appended"], raw)) == 816
    # with audit s33's 320 Sidak and Scheffe rows and audit s36's 72 of agents whose runs differ in spread (calib36)
    assert CALIBRATE["_appended"](pd.DataFrame(raw).astype(str), [UNB["CONTRAST"]]).sum() == 816 + 320 + 72
    # the defaults: the F in the orthonormal basis with Satterthwaite's df, Tukey's family with Satterthwaite's df
    default_f = f[f["default"]]
    assert len(default_f) == 72 and set(default_f["statistic"]) == {"orthonormal"}
    assert 1 - default_f["coverage"].min() == pytest.approx(0.0625)  # 6 x 26, capped, task x agent term
    assert 1 - default_f["worst"].min() == pytest.approx(0.10)  # of 100 data sets in a draw (3-SE bound 0.115)
    default_pairs = contrast[contrast["default"]]
    alike = ~default_pairs["configuration"].str.endswith("shift 0 to 1")
    assert len(default_pairs) == 108 and set(default_pairs["interval"]) == {"tukey"}
    # family-wise error under agents alike at most 0.0625 (8 x 26, normal, task x agent term), coverage of the
    # true differences under agents shifted apart at least 0.9525 (6 x 26, heavy-tailed)
    assert (default_pairs[alike]["coverage"].min(), default_pairs[~alike]["coverage"].min()) == (0.9375, 0.9525)
    # the F's level is no worse in lmerTest's basis, and Kenward-Roger's df are the more conservative
    lmertest = f[f["statistic"] == "lmertest"]["coverage"].to_numpy()
    kr = f[f["test"] == "kenward-roger"]["coverage"].to_numpy()
    assert (1 - lmertest).max() == pytest.approx(0.0625) and (1 - kr).mean() < (1 - default_f["coverage"]).mean()
