"""The package's calibration table (``rlstats/calibration.csv``): its schema, the script that writes it, the rank
test's size, the effect-size intervals, the bootstrap's intervals at few runs and the performance percentiles'
intervals re-measured at a few grid points (the whole grid under ``-m slow``) and the notes that quote it.

The other procedures' rows are re-measured by the test files of their back ends (``tests/test_task_table.py``,
``tests/test_curves.py``).
"""

import dataclasses
import math
import pathlib
import re
import runpy
import typing

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration
from rlstats.methods.equivalence._api import _CALIBRATED_TESTS, EquivalenceAlternative

REFERENCE = pathlib.Path(__file__).parent / "reference"
CALIBRATE = runpy.run_path(str(REFERENCE / "calibrate.py"))
SIZE = runpy.run_path(str(REFERENCE / "size_rank_test.py"))


def test_table_has_one_schema_and_binomial_errors():
    table = pd.read_csv(calibration.PATH, dtype=str, keep_default_na=False)
    assert list(table.columns) == CALIBRATE["COLUMNS"]
    coverage, n_sim, se = (table[c].astype(float) for c in ("coverage", "n_sim", "se"))
    assert ((coverage >= 0) & (coverage <= 1)).all() and (n_sim > 0).all()
    # rows pooling design draws (tests/reference/designs.pooled_row) floor the binomial variance at the level's
    level = table["level"].astype(float)
    pooled = table["design_draws"].astype(str).str.strip().isin(("", "nan")) == False  # noqa: E712
    variance = np.where(pooled, np.maximum(coverage * (1 - coverage), level * (1 - level)), coverage * (1 - coverage))
    # audit s33 (calib33): the rows of Welch's difference intervals give the Monte Carlo SE of their false
    # coverage-statement rate over tasks (k - 1 intervals a task): a share in [0, 1] has variance at most 1/4
    fcr = (table["metric"] == "difference").to_numpy()
    assert fcr.sum() == 360
    np.testing.assert_allclose(se[~fcr], np.sqrt(variance / n_sim)[~fcr], atol=1e-5)
    tasks = n_sim[fcr] / (table["agents"][fcr].astype(int) - 1)
    assert ((se[fcr] >= 0) & (se[fcr] <= np.sqrt(0.25 / tasks) + 1e-6)).all()
    # audit s36 (calib36): the runs wrongly ruling out unlike spreads, one side of Bonett's 99% interval
    assert set(table["level"].astype(float)) == {0.95, 0.995}
    assert set(table[table["level"] == "0.995"]["procedure"]) == {"equivalence.spread_ruled_out"}


def test_every_procedure_quoted_has_rows_for_its_whole_grid():
    from rlstats.methods.adastop import _api as adastop_api
    from rlstats.methods.bootstrap import _api as bootstrap_api
    from rlstats.methods.bootstrap import _small_runs as small_runs
    from rlstats.methods.curves import _api as curves_api
    from rlstats.methods.equivalence import _api as equivalence_api
    from rlstats.methods.mixed import _api as mixed_api
    from rlstats.methods.percentiles import _api as percentiles_api
    from rlstats.methods.selection import _api as selection_api
    from rlstats.methods.skillings_mack import _api as skillings_mack_api
    from rlstats.methods.task_table import _calibration as task_table_calibration

    quoted = {curves_api.CALIBRATION, skillings_mack_api.SIZE_PROCEDURE, task_table_calibration.PROCEDURE,
              small_runs.PROCEDURE, percentiles_api.CALIBRATION, bootstrap_api.PROFILE_CALIBRATION,
              selection_api.SIZE_PROCEDURE, adastop_api.FWE_PROCEDURE, adastop_api.FWE_MEANS_PROCEDURE,
              mixed_api.CALIBRATION,
              mixed_api.MEANS_CALIBRATION, bootstrap_api.TASKS_PROFILE_CALIBRATION,
              equivalence_api.CALIBRATION}
    assert quoted <= set(calibration.procedures()) == set(CALIBRATE["MODULES"])
    for procedure in CALIBRATE["MODULES"]:
        module = CALIBRATE["load"](procedure)
        rows = calibration.rows(procedure)
        if procedure == small_runs.PROCEDURE:  # the studentised default has no rows where it withholds
            # (audit s19's one-task rows, another script's: tests/test_audit_s19_onetask19.py counts them)
            rows = [r for r in rows if not small_runs.one_task_only(r)]
            # audit s28 (gapboot28): coverage_bootstrap_gap.py's 39 rows of the gap's default of agents below gamma
            # (36 beside its 3 one-task rows, left out above)
            below = [r for r in rows if r["configuration"] == calibration.GAP_BELOW_GAMMA]
            assert len(below) == 36 and {r["metric"] for r in below} == {"optimality_gap"}
            rows = [r for r in rows if r["configuration"] != calibration.GAP_BELOW_GAMMA]
            # audit s34 (iqmfar34): coverage_far_apart.py's 12 rows of the default on 3 tasks far apart (the IQM and
            # the mean, 3 and 5 runs, normal, skewed and capped)
            far = [r for r in rows if r["configuration"] == calibration.FAR_APART]
            assert len(far) == 12 and {r["metric"] for r in far} == {"iqm", "mean"}
            rows = [r for r in rows if r["configuration"] != calibration.FAR_APART]
            # audit s35 (farapart35): coverage_apart_by_chance.py's 18 rows of the default on 3 tasks that overlap,
            # their runs apart by chance (the IQM and the mean, 3, 5 and 10 runs, normal, skewed and capped)
            chance = [r for r in rows if r["configuration"] == calibration.APART_BY_CHANCE]
            # audit s35 (apart35): and 12 of the median and the optimality gap (3 and 5 runs)
            assert len(chance) == 30 and {r["metric"] for r in chance} == {"iqm", "mean", "median", "optimality_gap"}
            rows = [r for r in rows if r["configuration"] != calibration.APART_BY_CHANCE]
            given = [p for p in module["grid"]() if p[2] >= small_runs.STUDENTIZED_MIN_RUNS and p[1] > 1]
            assert sum(r["interval"] == "studentized" for r in rows) == 4 * len(given)
            # and the former default's (its mean and median only: the IQM's and gap's are the default's)
            assert sum(r["interval"] == "studentized_unwidened" for r in rows) == 2 * len(given)
            rows = [r for r in rows if r["interval"] not in small_runs.STUDENTIZED_INTERVALS]
        if procedure == "tuning.complete_interval":  # the default has no rows where it withholds (few configurations)
            assert sum(r["interval"] == "two_stage" for r in rows) == len(module["grid"]())
            rows = [r for r in rows if r["interval"] == "two_stage"]
        if procedure in ("tuning.expected_max_band", "tuning.best_interval"):  # audit s22: real sweeps' rows
            mine = runpy.run_path(str(REFERENCE / f"{CALIBRATE['APPENDED'][procedure]}.py"))["appended"]
            assert sum(map(mine, rows)) == (15 if procedure == "tuning.expected_max_band" else 3)
            rows = [r for r in rows if not mine(r)]
        if procedure == "mixed.contrast":  # audit s34 (mixbal34): the unbalanced designs' rows, 8 a point (4 with
            # 2 agents, whose Sidak and Scheffe intervals are Tukey's): 9 patterns x 4 families x 3 configurations
            unbalanced = runpy.run_path(str(REFERENCE / "coverage_mixed_unbalanced.py"))
            assert sum(map(unbalanced["appended"], rows)) == 8 * 8 * 12 + 4 * 12
            rows = [r for r in rows if not unbalanced["appended"](r)]
            # audit s36 (calib36): agents whose runs differ in spread, Satterthwaite's Tukey and Bonferroni rows
            spreads = runpy.run_path(str(REFERENCE / "coverage_mixed_spreads.py"))
            assert sum(map(spreads["appended"], rows)) == 2 * len(spreads["grid"]())
            rows = [r for r in rows if not spreads["appended"](r)]
        if procedure in ("task_table.effect_size", "task_table.next_ranked", "mixed.contrast"):
            # audit s33 (calib33): the difference intervals' FCR rows (its own grid of 2, 3 and 8 agents x 2-20 runs x
            # 4 families x 3 configurations) and mixed()'s Sidak and Scheffe rows (80 points of 3 and 8 agents)
            script = runpy.run_path(str(REFERENCE / f"{CALIBRATE['appended_scripts'](procedure)[0]}.py"))
            appended = [r for r in rows if script["appended"](r)]
            assert len(appended) == (320 if procedure == "mixed.contrast" else 180) == (
                4 if procedure == "mixed.contrast" else 1) * len(script["grid"]())
            rows = [r for r in rows if not script["appended"](r)]
        if procedure == equivalence_api.CALIBRATION:  # appended by other scripts: audit s20's aggregate mean's rows,
            # audit s23's of Welch's t with unlike spreads, audit s32's of pairs that did not share every task
            mean, spread, incomplete = (runpy.run_path(str(REFERENCE / f"{script}.py"))["appended"]
                                        for script in CALIBRATE["appended_scripts"](procedure))
            assert sum(map(mean, rows)) == 18 and sum(map(spread, rows)) == 486 and sum(map(incomplete, rows)) == 432
            rows = [r for r in rows if not (mean(r) or spread(r) or incomplete(r))]
        # curves.band writes no row for a band withheld at a point (its studentised bands at 2 runs per task, and at
        # 3 runs of one task); tests/test_curves.py checks that its rows cover its grid point by point; the kind="tasks"
        # profile reads 2 steps of the truth on one task, 10 on 5 and 14 on 26 (tests/test_audit_s10_profile.py);
        # power.bootstrap has a size row at 2 agents only (tests/test_audit_s11_powercal.py counts them)
        assert rows and (len(rows) % len(module["grid"]()) == 0
                         or procedure in ("curves.band", "bootstrap.profile_tasks", "power.bootstrap")), procedure


def test_only_replaces_the_procedures_measured(tmp_path):
    out = tmp_path / "table.csv"
    pd.DataFrame([{"procedure": "curves.band", "statistic": "mean", "level": "0.95", "coverage": "0.9",
                   "n_sim": "10", "se": "0.0948683"}]).reindex(columns=CALIBRATE["COLUMNS"]).to_csv(out, index=False)
    # 4 simulations a point: the rows' plumbing is checked here, not their numbers (20 took 1.3 s of CPU)
    CALIBRATE["main"](["--quick", "--only", "skillings_mack.size", "--simulations", "4", "--out", str(out)])
    table = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(table.columns) == CALIBRATE["COLUMNS"]
    assert (table["procedure"] == "curves.band").sum() == 1
    size = table[table["procedure"] == "skillings_mack.size"]
    assert len(size) == len(SIZE["grid"](quick=True)) and (size["n_sim"] == "4").all()
    assert set(size["test"]) == {"friedman", "mack_skillings"}


# Grid points re-measured in the default suite: Friedman with a Monte Carlo p-value on tied (capped) scores, and
# Mack-Skillings with replicates on heavy-tailed scores (each pooling the module's design draws).
QUICK_POINTS = [(3, 10, 1, "capped"), (8, 3, 5, "heavy_tailed")]


def _size_row(agents, tasks, runs, distribution):
    rows = [r for r in calibration.rows(SIZE["PROCEDURE"])
            if (int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"]) == (agents, tasks, runs,
                                                                                              distribution)]
    assert len(rows) == 1, "the calibration table lacks this grid point"
    return rows[0]


def _check_size(point, n_sim):
    """Re-measured: at level within 3 SE or quoted by the result, and within 4 joint SE of the table."""
    measured = SIZE["measure"](*point, n_sim, seed=99)
    row = _size_row(*point)
    agents, tasks, runs, _ = point
    design = SIZE["design"](agents, tasks, runs)
    data = dataclasses.replace(design, y=np.random.default_rng(0).normal(size=design.y.size))
    res = rlstats.compare(data, data.formula, rng=0, n_resamples=999)
    quoted = any(n.startswith("measured size") for n in res.notes)
    assert measured["coverage"] >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / n_sim) or quoted, (point, measured)
    joint = math.sqrt(0.05 * 0.95 * (1 / n_sim + 1 / int(row["n_sim"])))
    assert abs(measured["coverage"] - float(row["coverage"])) <= 4 * joint, (point, measured, row["coverage"])


def grid_points(quick, grid, n_quick, n_full):
    """(point, n_sim) parameters: the quick points in the default suite, the whole grid under ``-m slow``."""
    name = "-".join
    return ([pytest.param(point, n_quick, id="quick-" + name(map(str, point))) for point in quick]
            + [pytest.param(point, n_full, id=name(map(str, point)), marks=pytest.mark.slow) for point in grid])


@pytest.mark.parametrize("point, n_sim", grid_points(QUICK_POINTS, SIZE["grid"](), 400, SIZE["SIMULATIONS"][0]))
def test_rank_test_size(point, n_sim):
    _check_size(point, n_sim)


PAIRS = runpy.run_path(str(REFERENCE / "pairs_fwer.py"))


def _pairs_row(point):
    rows = [r for r in calibration.rows(PAIRS["PROCEDURE"])
            if (int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"], r["configuration"]) == point]
    assert len(rows) == 1, "the calibration table lacks this grid point"
    return rows[0]


# the default run: Tukey's single step on a complete design, and Holm with exact pair p-values on an incomplete one
@pytest.mark.parametrize("point, n_sim", grid_points([(3, 3, 1, "normal", "complete"),
                                                     (3, 10, 1, "capped", "incomplete")],
                                                    PAIRS["grid"](), 120, PAIRS["SIMULATIONS"][0]))
def test_default_post_hoc_family_wise_error(point, n_sim):
    """Re-measured on fresh data sets: at most alpha + 3 SE, within 4 joint SE of the table, and the row's adjustment
    and kind of pair p-values are the result's."""
    measured = PAIRS["measure"](*point, n_sim, seed=99)
    row = _pairs_row(point)
    assert 1 - measured["coverage"] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / measured["n_sim"]), (point, measured)
    joint = math.sqrt(0.05 * 0.95 * (1 / measured["n_sim"] + 1 / int(row["n_sim"])))
    assert abs(measured["coverage"] - float(row["coverage"])) <= 4 * joint, (point, measured, row["coverage"])
    assert {c: str(measured[c]) for c in ("test", "statistic", "interval")} == {c: row[c] for c in
                                                                              ("test", "statistic", "interval")}


def test_post_hoc_rows_say_which_pairs_had_exact_p_values():
    # complete and balanced: Tukey on the normal z; incomplete, one run per cell: Holm on each pair's exact p-value
    # (3 agents, 10 tasks each missing one agent: a pair shares 3-4 tasks of 2 runs, 2^4 arrangements); 8 agents on
    # 3 tasks: pairs sharing 3 tasks have 42^3 > 20,000 arrangements (normal), those sharing 2, 42^2 (exact)
    expected = {(3, 3, 1, "complete"): ("friedman", "normal", "tukey"),
                (3, 10, 1, "incomplete"): ("skillings_mack", "exact", "holm"),
                (8, 3, 1, "incomplete"): ("skillings_mack", "exact_and_normal", "holm"),
                (2, 3, 3, "unbalanced"): ("mack_skillings", "omnibus", "none")}
    for (agents, tasks, runs, configuration), told in expected.items():
        row = _pairs_row((agents, tasks, runs, "normal", configuration))
        assert (row["test"], row["statistic"], row["interval"]) == told
        cells = PAIRS["counts"](agents, tasks, runs, configuration)
        frame = PAIRS["runs_frame"](cells)
        frame["score"] = np.random.default_rng(1).normal(size=len(frame))
        res = rlstats.compare(frame, PAIRS["formula"](cells), rng=0)
        assert (res.variant, PAIRS["pvalue_kind"](res), res.posthoc_adjustment) == told
    # the exact count: 8 agents on 3 tasks, agent i % 8 missing from task i: pairs of agents 3-7 share all 3 tasks
    cells = PAIRS["counts"](8, 3, 1, "incomplete")
    frame = PAIRS["runs_frame"](cells).assign(score=np.random.default_rng(2).normal(size=int(cells.sum())))
    res = rlstats.compare(frame, "score ~ agent | task", rng=0)
    assert res.pairs_exact == 28 - 10  # C(5, 2) = 10 pairs share 3 tasks


def test_post_hoc_screen_loses_no_declaration():
    # pairs_fwer.py calls the public function only where the omnibus p-value (pvalue_only with the same rng) is at
    # most alpha: that p-value is the public call's, and a data set above alpha has no pair declared. Checked where
    # pairs are declared (agent a0 one noise unit better), with Tukey on a complete design and Holm on an incomplete
    from rlstats.methods.skillings_mack._api import pvalue_only

    declared = 0
    for point in [(3, 3, 1, "normal", "complete"), (3, 10, 1, "capped", "incomplete")]:
        frame, form, template, scores, seeds = PAIRS["null_data"](*point, 12, 0, seed=5)
        order = PAIRS["_frame_order"](frame, template)
        scores = scores + (template.agent == 0) * np.abs(scores).max()  # a0 first on every task
        for y, seed in zip(scores, seeds):
            p = pvalue_only(dataclasses.replace(template, y=y), rng=int(seed))
            some, res = PAIRS["declared"](frame.assign(score=y[order]), form, int(seed))
            assert res.pvalue == p and (p <= 0.05 or not some)
            declared += some
    assert declared >= 3  # some data sets with pairs declared: the check has something to check


def test_worst_draw_clause_words_the_lowest_design_draw():
    row = {"coverage": "0.95", "coverage_min": "0.871", "design_draws": "4"}
    assert calibration.worst_draw_clause(row) == ", 0.871 in the worst of its 4 draws of the tasks' offsets and scales"
    assert calibration.worst_draw_clause(row, size=True).startswith(", 0.129 in the worst of its 4 draws")
    # rows on one fixed design (no draws, or blank or nan after pandas), and a worst draw at the pooled value: nothing
    for other in ({"coverage": "0.9"}, {"coverage": "0.9", "coverage_min": "nan", "design_draws": ""},
                  {"coverage": "0.9", "coverage_min": "0.9", "design_draws": "4"}):
        assert calibration.worst_draw_clause(other) == "", other


def test_rank_test_quotes_a_measured_size(monkeypatch):
    rows = ({"procedure": "skillings_mack.size", "test": "friedman", "agents": "3", "tasks": "8", "runs": "1",
             "distribution": "capped", "level": "0.95", "n_sim": "1000", "n_resamples": "999", "coverage": "0.92",
             "se": "0.0086", "design_draws": "4", "coverage_min": "0.9"},)
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "skillings_mack.size" else ())
    df = rlstats.datasets.simulate(agents=3, tasks=8, seeds=1, rng=0)
    notes = rlstats.compare(df, "score ~ agent | task").notes
    assert ("measured size of the Friedman rank sum test with 3 agents, 8 tasks and 1 run per cell: 0.080, 0.100 in "
            "the worst of its 4 draws of the tasks' offsets and scales (capped scores, 1000 null data sets), above "
            "alpha = 0.05 by more than 3 Monte Carlo standard errors" in notes)
    for options in ({"pvalue": "asymptotic"}, {"alpha": 0.1}):
        assert not any("measured size" in n for n in rlstats.compare(df, "score ~ agent | task", **options).notes)
    assert not any("measured size" in n for n in rlstats.compare(df[df["task"] != df["task"].iloc[0]],
                                                                 "score ~ agent | task").notes)


EFFECTS = runpy.run_path(str(REFERENCE / "coverage_effect_sizes.py"))


def _check_effects(point, n_sim):
    """Re-measured coverage of the A12 and Hedges' g intervals agrees with the table; the default intervals
    (``effect_intervals="fcr"``) hold their level, and so does the per-pair Hedges' g of two agents (no selection)."""
    for measured in EFFECTS["measure"](*point, n_sim, seed=99):
        rows = [r for r in calibration.rows(EFFECTS["PROCEDURE"]) if (r["interval"], r["metric"], int(r["agents"]),
                int(r["runs"]), r["distribution"], r["configuration"]) == (measured["interval"], measured["metric"],
                                                                            *point)]
        assert len(rows) == 1, "the calibration table lacks this grid point"
        # the agents - 1 pairs of a task share the best's runs: count tasks, not pairs, and use the binomial
        # variance at the table's coverage (far from the level where the interval misses)
        tabled, pairs_per_task = float(rows[0]["coverage"]), point[0] - 1
        inverse_tasks = pairs_per_task * (1 / measured["n_sim"] + 1 / int(rows[0]["n_sim"]))
        joint = math.sqrt(max(tabled * (1 - tabled), 0.05 * 0.95) * inverse_tasks)
        assert abs(measured["coverage"] - tabled) <= 4 * joint, (point, measured, rows[0])
        if measured["interval"] == "fcr" or (measured["metric"] == "hedges_g" and point[0] == 2):
            assert measured["coverage"] >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / measured["n_sim"]), measured


# the suite's time budget: two quick points (2 agents); 8 agents x 2 tasks of capped runs is in the -m slow grid
@pytest.mark.parametrize("point, n_sim", grid_points([(2, 3, "normal", "one_best"), (2, 10, "skewed", "all_equal")],
                                                    EFFECTS["grid"](), 15, 100))
def test_effect_size_intervals(point, n_sim):
    _check_effects(point, n_sim)


def test_effect_size_notes_read_the_nearest_measured_design(monkeypatch):
    from rlstats.methods.task_table import _calibration as task_table_calibration

    shortfall = task_table_calibration.effect_size_shortfall
    # the real table: 2 and 8 agents and 2 runs per agent are on its grid and read as they are (the per-pair
    # intervals, which miss; the default's hold their level)
    for agents, runs in [(2, 3), (8, 20), (2, 2), (8, 2)]:
        assert shortfall("a12", agents, runs, 0.95) is None
        row = shortfall("a12", agents, runs, 0.95, "per_pair")
        assert (row["agents"], row["runs"]) == (str(agents), str(runs))
        assert float(row["coverage"]) < 0.95 - 3 * math.sqrt(0.05 * 0.95 / int(row["n_sim"]))
    df = rlstats.datasets.simulate(agents=8, tasks=2, seeds=3, effect=1.0, rng=0)
    quoted = shortfall("a12", 8, 3, 0.95, "per_pair")
    assert any(n.startswith("measured coverage of the 95% Vargha-Delaney A12 interval (Brunner-Munzel) against the "
                            f"best with 8 agents and 3 runs per agent: {float(quoted['coverage']):.3f}")
               for n in rlstats.task_table(df, "score ~ agent | task/seed", effect_intervals="per_pair").notes)

    # a made-up table: agents nearest on a log scale (the more on a tie), runs the largest measured up to the design's
    def row(agents, runs, coverage):
        return {"procedure": "task_table.effect_size", "interval": "fcr", "metric": "a12", "agents": str(agents),
                "runs": str(runs), "n_sim": "1000", "coverage": str(coverage)}

    rows = tuple(row(a, r, 0.5 + a / 100 + r / 1000) for a in (2, 8) for r in (3, 10))
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "task_table.effect_size" else ())
    for (agents, runs), near in {(2, 3): (2, 3), (3, 9): (2, 3), (4, 10): (8, 10), (5, 2): (8, 3),
                                 (7, 50): (8, 10)}.items():
        found = shortfall("a12", agents, runs, 0.95)
        assert (int(found["agents"]), int(found["runs"])) == near, (agents, runs)
    assert shortfall("hedges_g", 4, 3, 0.95) is None and shortfall("a12", 4, 3, 0.9) is None


INTERVALS = runpy.run_path(str(REFERENCE / "coverage_small_runs.py"))


def _check_intervals(point, n_sim):
    """Re-measured coverage of every bootstrap interval kind and metric within 4 joint SE of the table (binomial
    variance at the table's coverage, or at the level where that is nearer 1/2)."""
    distribution, tasks, runs = point
    # rows other scripts appended at the grid's points (coverage_one_task.py's default on one task) are theirs
    others = [runpy.run_path(str(REFERENCE / f"{script}.py"))["appended"]
              for script in CALIBRATE["appended_scripts"](INTERVALS["PROCEDURE"])]
    tabled = {(r["interval"], r["metric"]): r for r in calibration.rows(INTERVALS["PROCEDURE"])
              if (r["distribution"], int(r["tasks"]), int(r["runs"])) == point and not any(own(r) for own in others)}
    measured = INTERVALS["measure"](distribution, tasks, runs, n_sim, seed=99, n_resamples=500)
    measured += INTERVALS["score_rows"](distribution, tasks, runs, n_sim, seed=99)
    assert {(r["interval"], r["metric"]) for r in measured} == set(tabled), "the table lacks this grid point"
    for row in measured:
        table_row = tabled[row["interval"], row["metric"]]
        coverage = float(table_row["coverage"])
        inverse = 1 / row["n_sim"] + 1 / int(table_row["n_sim"])
        joint = math.sqrt(max(coverage * (1 - coverage), 0.05 * 0.95) * inverse)
        assert abs(row["coverage"] - coverage) <= 4 * joint, (point, row, coverage)


@pytest.mark.filterwarnings("ignore")  # the raw-scale warning: the simulated tasks share one scale on purpose
# No quick point in the default run: tests/test_small_runs.py's reduced checks measure the defaults at the same point
# (skewed, 5 tasks x 3 runs) against their level; the whole grid against the table under -m slow.
@pytest.mark.parametrize("point, n_sim", grid_points([], INTERVALS["grid"](), 5, 10))
def test_bootstrap_intervals_at_few_runs(point, n_sim):
    _check_intervals(point, n_sim)


PERCENTILES = runpy.run_path(str(REFERENCE / "coverage_percentiles.py"))


def _check_percentiles(point, n_sim):
    """Re-measured simultaneous coverage within 4 joint SE of the table (binomial variance at the table's coverage,
    or at the level where that is nearer 1/2), and at the level within 3 SE or quoted by the result."""
    from rlstats.methods.percentiles import _api

    interval, agents, tasks, runs, _ = point
    rows = [r for r in calibration.rows(PERCENTILES["PROCEDURE"])
            if (r["interval"], int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"]) == point]
    assert len(rows) == 1, "the calibration table lacks this grid point"
    measured = PERCENTILES["table_rows"](point, n_sim)[0]  # at most the design's planned data sets
    coverage, n_measured = measured["coverage"], measured["n_sim"]
    tabled = float(rows[0]["coverage"])
    joint = math.sqrt(max(tabled * (1 - tabled), 0.05 * 0.95) * (1 / n_measured + 1 / int(rows[0]["n_sim"])))
    assert abs(coverage - tabled) <= 4 * joint, (point, coverage, tabled)
    quoted = _api._coverage_note(interval, runs, agents, tasks) is not None
    assert coverage >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / n_measured) or quoted, (point, coverage)


@pytest.mark.parametrize("point, n_sim", grid_points([("pbp", 2, 1, 3, "skewed"), ("bootstrap", 2, 1, 5, "capped"),
                                                     ("pbp_t", 2, 1, 3, "heavy_tailed")], PERCENTILES["grid"](), 10, 60))
def test_percentiles_intervals(point, n_sim):
    _check_percentiles(point, n_sim)


@pytest.mark.parametrize("distribution", ["skewed", "capped"])
def test_percentiles_truth_of_a_design(distribution):
    # the truth of a 5 x 3 design in its two steps: exact payoffs against the payoffs of 2,000 runs per cell (within
    # 4 SE at most; the capped scores' ties at the ceiling count as wins on both sides), and the test file's naive
    # game solver against the package's aggregate of those estimated payoffs
    payoffs = PERCENTILES["true_payoffs"](5, 3, distribution)
    data = PERCENTILES["simulate"](5, 3, 2000, distribution, 0, np.random.default_rng(0))
    res = rlstats.percentiles(data, "score ~ agent | task", interval=None)
    np.testing.assert_allclose(res.payoff, payoffs, atol=4 * 0.5 / math.sqrt(2 * 2000))
    np.testing.assert_allclose(PERCENTILES["TESTS"]["naive_solution"](res.payoff)[1], res.estimate, atol=1e-9)


def test_percentiles_quote_the_nearest_measured_design(monkeypatch):
    from rlstats.methods.percentiles import _api

    # the real table: a measured design quotes its lowest row (of its score distributions), or nothing where that
    # row holds its level
    lowest = {}
    for row in calibration.rows(PERCENTILES["PROCEDURE"]):
        key = row["interval"], row["agents"], row["tasks"], row["runs"]
        if key not in lowest or float(row["coverage"]) < float(lowest[key]["coverage"]):
            lowest[key] = row
    for row in lowest.values():
        design = int(row["agents"]), int(row["tasks"])
        note = _api._coverage_note(row["interval"], int(row["runs"]), *design)
        short = (calibration.shortfall([row], 0.95) is not None
                 or float(row["coverage"]) < _api.COVERAGE_FLOOR.get(row["interval"], 0.0))
        assert (note is not None) == short, row
        assert note is None or (f"in simulations of {row['agents']} agents x {row['tasks']} task" in note
                                and f"with {row['runs']} runs per cell of {row['distribution'].replace('_', '-')}"
                                in note
                                and f"{float(row['coverage']):.2f} of {row['n_sim']} data sets" in note), (note, row)

    def row(interval, agents, tasks, runs, coverage):
        return {"procedure": "percentiles.interval", "interval": interval, "agents": str(agents), "tasks": str(tasks),
                "runs": str(runs), "level": "0.95", "n_sim": "1000", "coverage": str(coverage)}

    rows = (row("pbp", 3, 2, 3, 0.99), row("pbp_t", 3, 2, 3, 0.85), row("pbp_t", 3, 2, 10, 0.95),
            row("bootstrap", 3, 2, 3, 0.935), row("pbp_t", 8, 5, 3, 0.5), row("pbp_t", 8, 5, 5, 0.6),
            row("pbp_t", 2, 1, 5, 0.7), row("pbp_t", 4, 8, 3, 0.8), row("pbp_t", 4, 2, 3, 0.75),
            row("pbp_t", 8, 2, 3, 0.9))
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "percentiles.interval" else ())
    df = rlstats.datasets.simulate(agents=3, tasks=2, seeds=4, rng=0)
    notes = rlstats.percentiles(df, "score ~ agent | task", interval="pbp_t").notes
    assert ("4 runs in the smallest cell are few for Student-t payoff intervals: in simulations of 3 agents x 2 tasks "
            "with 3 runs per cell, nominal 95% simultaneous intervals held every true value in 0.85 of 1000 data sets; "
            'interval="pbp" keeps its level' in notes)
    # within 3 SE of the level, but below the bootstrap's floor; its one row has 3 runs, fewer than the 4 here, which
    # the note does not call few (audit s17)
    notes = rlstats.percentiles(df, "score ~ agent | task", interval="bootstrap", n_resamples=500, rng=0).notes
    assert any(n.startswith("the smallest cell has 4 runs, more than any design simulated for the percentile "
                            "bootstrap (its coverage there was not measured); at the most runs simulated, 3 agents x "
                            "2 tasks with 3 runs per cell") for n in notes), notes
    assert not any("are few" in n for n in rlstats.percentiles(df, "score ~ agent | task", interval="pbp").notes)
    more = rlstats.datasets.simulate(agents=3, tasks=2, seeds=10, rng=0)  # 10 runs: pbp_t holds its level
    assert not any("are few" in n for n in rlstats.percentiles(more, "score ~ agent | task", interval="pbp_t").notes)

    # off the grid: the design nearest on a log scale among those measured at most at the smallest cell's runs
    def quoted(agents, tasks, smallest):
        note = _api._coverage_note("pbp_t", smallest, agents, tasks)
        # below the fewest runs measured the note says so and quotes the fewest as such (audit s8)
        return note and re.split("in simulations of |at the fewest runs simulated, ", note)[1].split(", nominal")[0]

    assert quoted(8, 5, 7) == "8 agents x 5 tasks with 5 runs per cell"
    assert quoted(8, 5, 4) == "8 agents x 5 tasks with 3 runs per cell"
    assert quoted(7, 6, 2) == "8 agents x 5 tasks with 3 runs per cell"  # fewer runs than measured: the smallest
    assert _api._coverage_note("pbp_t", 2, 7, 6).startswith("the smallest cell has 2 runs, fewer than any design "
                                                              "simulated for Student-t payoff intervals")
    assert quoted(2, 1, 4) == "3 agents x 2 tasks with 3 runs per cell"  # 2 x 1 was measured at 5 runs only
    assert quoted(2, 1, 6) == "2 agents x 1 task with 5 runs per cell"
    assert quoted(4, 4, 3) == "4 agents x 8 tasks with 3 runs per cell"  # a tie with 4 x 2: the larger design
    assert quoted(3, 3, 20) is None  # 3 x 2 at 10 runs holds its level


MIXED = runpy.run_path(str(REFERENCE / "coverage_mixed.py"))


def _mixed_data(agents, tasks, runs, seed=0):
    design = MIXED["template"](agents, tasks, runs)
    rng = np.random.default_rng(seed)
    return dataclasses.replace(design, y=rng.normal(size=design.y.size) + rng.normal(size=tasks)[design.task])


def _balanced_rows():
    """The ``mixed.contrast`` rows of coverage_mixed.py's balanced grid (not audit s34's unbalanced designs, nor
    audit s36's of agents whose runs differ in spread, which _run_spread_notes quotes)."""
    return [r for r in calibration.rows(MIXED["PROCEDURE"])
            if not r["configuration"].startswith((calibration.UNBALANCED, calibration.RUN_SPREADS))]


def _check_mixed(point, n_sim):
    """Re-measured coverage (``n_sim`` data sets per design draw) of every df method and adjustment: at the level
    (at least 0.95 - 3 SE pooled), within 4 joint SE of the table (binomial variance at the table's coverage, or at the
    level where that is nearer 1/2), and a result at that design quoting the row where the table has it short (the
    package's rule, calibration.shortfall: decided by the table's row, not by this smaller re-measure)."""
    agents, tasks, runs, _, _ = point
    tabled = {(r["test"], r["interval"]): r for r in _balanced_rows()
              if (int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"], r["configuration"]) == point
              and r["interval"] in MIXED["ADJUST"]}  # (Sidak's and Scheffe's: tests/test_audit_s33_calib33.py)
    measured = MIXED["rows_of"](point, MIXED["measure"](*point, n_sim, seed=99))
    assert {(r["test"], r["interval"]) for r in measured} == set(tabled), "the table lacks this grid point"
    for row in measured:
        table_row = tabled[row["test"], row["interval"]]
        coverage = float(table_row["coverage"])
        assert row["design_draws"] == int(table_row["design_draws"]) == 4
        assert row["coverage"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / row["n_sim"]), (point, row)
        joint = math.sqrt(max(coverage * (1 - coverage), 0.05 * 0.95) * (1 / row["n_sim"] + 1 / int(table_row["n_sim"])))
        assert abs(row["coverage"] - coverage) <= 4 * joint, (point, row, coverage)
        if calibration.shortfall([table_row], 0.95) is not None:
            notes = rlstats.mixed(_mixed_data(agents, tasks, runs), ddf=row["test"], adjust=row["interval"]).notes
            assert any(n.startswith("measured coverage of the 95%") for n in notes), (point, row)


# the quick point: few tasks with capped scores and 3 agents (Tukey's and Bonferroni's intervals apart, both df
# methods; the 2-agent heavy-tailed point, whose Tukey is the t interval, in the grid under -m slow since session 40:
# 1.3-1.8 s of CPU), and (behind -m slow; 8 data sets per draw: 28 pairs, 26 tasks) issue 40's 8 x 26 x 10 skewed
# row, 0.76 in a draw of 25 data sets before it was measured on 100 per draw
@pytest.mark.parametrize("point, n_sim", grid_points([(3, 3, 3, "capped", "spread 0 to 1")], MIXED["grid"](), 15, 25)
                         + [pytest.param((8, 26, 10, "skewed", "all_equal"), 8, id="quick-8-26-10-skewed-all_equal",
                                         marks=pytest.mark.slow)])  # 5 s: the default run's budget
def test_mixed_contrast_intervals(point, n_sim):
    _check_mixed(point, n_sim)


# [s8 audit calib] the intervals of the agents' estimated marginal means (mixed.means), on few tasks of capped scores
MIXED_MEANS = runpy.run_path(str(REFERENCE / "coverage_mixed_means.py"))


@pytest.mark.parametrize("point, n_sim", grid_points([(2, 3, 3, "capped", "tasks drawn afresh")],
                                                     MIXED_MEANS["grid"](), 15, MIXED_MEANS["SIMULATIONS"][0]))
def test_mixed_means_intervals(point, n_sim):
    """Re-measured coverage of each df method's 95% intervals of the marginal means (``n_sim`` data sets per draw,
    other seeds than the table's): within 4 joint SE of the table's row, and at the level (0.95 - 3 SE pooled) where
    the row holds it; where it misses, a result at that design quotes it (tests/test_audit_s8_calib.py holds the
    strict xfail of those misses)."""
    tabled = {r["test"]: r for r in calibration.rows(MIXED_MEANS["PROCEDURE"])
              if (int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"], r["configuration"]) == point}
    measured = MIXED_MEANS["rows_of"](point, MIXED_MEANS["measure"](*point, n_sim, seed=99))
    assert {r["test"] for r in measured} == set(tabled) == set(MIXED["DDF"]), "the table lacks this grid point"
    for row in measured:
        table_row = tabled[row["test"]]
        coverage = float(table_row["coverage"])
        assert row["n_sim"] == 4 * n_sim and int(table_row["design_draws"]) == 4
        joint = math.sqrt(max(coverage * (1 - coverage), 0.05 * 0.95) * (1 / row["n_sim"] + 1 / int(table_row["n_sim"])))
        assert abs(row["coverage"] - coverage) <= 4 * joint, (point, row, coverage)
        if calibration.misses(table_row, 0.95):
            notes = rlstats.mixed(_mixed_data(*point[:3]), ddf=row["test"]).notes
            assert any("intervals of the agents' marginal means" in note for note in notes), (point, row)
        else:
            assert row["coverage"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / row["n_sim"]), (point, row)


def test_mixed_quotes_the_means_row_that_misses_at_its_number_of_tasks():
    # 8 agents x 3 tasks x 10 runs: the table's worst row there (tasks drawn afresh) is quoted; at 7 agents (the
    # nearest measured: 8) and at 4 tasks (the nearest measured at or below them: 3) too, as the nearest design; at
    # 5 tasks, whose rows hold, nothing is
    row = calibration.shortfall(calibration.rows("mixed.means"), 0.95, test="satterthwaite", agents=8, tasks=3, runs=10,
                                configuration="tasks drawn afresh")
    assert row is not None
    for agents in (8, 7):
        notes = [n for n in rlstats.mixed(_mixed_data(agents, 3, 10)).notes if "agents' marginal means" in n]
        worst = f", {float(row['coverage_min']):.3f} in the worst of its 4 draws of 160 data sets each ("
        assert len(notes) == 1 and f": {float(row['coverage']):.3f}{worst}" in notes[0], notes
        assert "at 8 agents, 3 tasks and 10 runs per cell" in notes[0], notes
        assert ("(the nearest design measured)" in notes[0]) is (agents == 7), notes
    notes = [n for n in rlstats.mixed(_mixed_data(8, 4, 10)).notes if "agents' marginal means" in n]
    assert len(notes) == 1 and "3 tasks and 10 runs per cell (the nearest design measured)" in notes[0], notes
    assert not any("agents' marginal means" in n for n in rlstats.mixed(_mixed_data(8, 5, 10)).notes)


def test_mixed_means_coverage_decision_is_the_printed_interval():
    # the module's decision (|estimate - truth| <= t(0.975, df) SE of the agent's mean) is rlstats.mixed's emmeans
    # interval: truths just inside and just outside each printed bound are held and missed
    data = _mixed_data(3, 4, 3, seed=5)
    for ddf in MIXED["DDF"]:
        means = rlstats.mixed(data, ddf=ddf).emmeans
        for agent in range(3):
            low, high = means["conf_low"].iloc[agent], means["conf_high"].iloc[agent]
            inside, outside = 1e-9 * (high - low), 1e-6 * (high - low)
            for true, expected in ((low + inside, True), (high - inside, True), (low - outside, False),
                                   (high + outside, False)):
                assert MIXED_MEANS["held"](data, data.y, agent, true)[ddf] is expected, (ddf, agent, true)


@pytest.mark.filterwarnings("ignore")  # the raw-scale warning: simulate()'s tasks differ in scale on purpose
def test_mixed_coverage_decision_is_the_intervals_own():
    # the calibration's route (its fit of the pairs, then the p-value of estimate - truth against 0.05, or the
    # Bonferroni bound) decides as the intervals rlstats.mixed prints do, with truths placed just inside (0.99 of
    # the half-width) or one pair just outside (1.01); the unbalanced frame gives pairs different df
    balanced = _mixed_data(4, 5, 2, seed=3)
    unbalanced = rlstats.datasets.simulate(agents=4, tasks=6, seeds=3, effect=0.5, missing=0.2, rng=1)
    for data, formula in ((balanced, None), (unbalanced, "score ~ agent | task/seed")):
        fitted = MIXED["pairs"](data, data.y) if formula is None else None
        for ddf in MIXED["DDF"]:
            for adjust in MIXED["ADJUST"]:
                pairs = rlstats.mixed(data, formula, ddf=ddf, adjust=adjust).comparisons
                estimate, se, df = (pairs[c].to_numpy() for c in ("estimate", "std_error", "df"))
                if fitted is not None:
                    np.testing.assert_allclose(np.vstack(fitted[ddf]), [estimate, se**2, df], rtol=1e-10)
                half = (pairs["conf_high"] - pairs["estimate"]).to_numpy()
                for outside in (None, 0, 5):
                    factor = np.full(estimate.size, 0.99)
                    if outside is not None:
                        factor[outside] = 1.01
                    truth = estimate - half * factor * np.where(np.arange(estimate.size) % 2, 1, -1)
                    held = MIXED["held"](estimate, se**2, df, truth, 4)[adjust]
                    assert held == (outside is None), (ddf, adjust, outside)


def test_mixed_intervals_move_with_the_agents_effects():
    # the equivariance that lets the table measure true differences with normal and skewed scores on the data sets
    # of agents alike: adding agent effects moves each estimate by its true difference, SE and df unchanged
    data = _mixed_data(3, 5, 3, seed=4)
    shifted = dataclasses.replace(data, y=data.y + np.array([0.0, 0.5, 1.0])[data.agent])
    for ddf in MIXED["DDF"]:
        before, after = (rlstats.mixed(d, ddf=ddf).comparisons for d in (data, shifted))
        np.testing.assert_allclose(after["estimate"] - before["estimate"], [-0.5, -1.0, -0.5], atol=1e-10)
        np.testing.assert_allclose(after[["std_error", "df"]], before[["std_error", "df"]], rtol=1e-7)
        np.testing.assert_allclose(after["conf_low"] - before["conf_low"], [-0.5, -1.0, -0.5], atol=1e-6)


def test_mixed_truth_is_the_agents_mean_score_over_the_tasks():
    # the exact truths (stratified quantiles) against the mean of 4,000 simulated data sets of 3 agents x 4 tasks x 5
    # runs, per distribution, with the tasks' offsets and scales of one design draw (capped: the task's ceiling)
    from rlstats.methods.mixed import _kernels as kernels

    _, _, first, second = kernels.agent_contrasts(3)
    offset, scale = MIXED["DESIGNS"]["design_draw"](0, 4)
    location = MIXED["locations"]("spread 0 to 1", 3)
    rng = np.random.default_rng(5)
    for distribution in MIXED["DISTRIBUTIONS"]:
        runs = np.stack([MIXED["simulate"](distribution, location, offset, scale, 5, rng) for _ in range(4000)])
        means = runs.reshape(4000, 4, 3, 5).mean(axis=(0, 1, 3))
        sd = runs.reshape(4000, 4, 3, 5).mean(axis=(1, 3)).std(axis=0)
        true = MIXED["truth"](distribution, location, offset, scale, first, second)
        np.testing.assert_allclose(means[first] - means[second], true, atol=5 * 2 * sd.max() / math.sqrt(4000),
                                   err_msg=distribution)
    assert true[0] < -0.2  # capped: agents 0 to 1 noise sd apart differ, by less than uncapped ones


def test_mixed_quotes_a_measured_coverage(monkeypatch):
    rows = ({"procedure": "mixed.contrast", "test": "satterthwaite", "interval": "tukey", "agents": "3", "tasks": "5",
             "runs": "2", "distribution": "capped", "configuration": "spread 0 to 1", "level": "0.95", "n_sim": "600",
             "coverage": "0.9", "se": "0.0122"},)
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "mixed.contrast" else ())
    data = _mixed_data(3, 5, 2)
    res = rlstats.mixed(data)
    note = ("measured coverage of the 95% Tukey simultaneous intervals with Satterthwaite's df at 3 agents, 5 tasks "
            "and 2 runs per cell: 0.900 (capped scores, agents 0 to 1 noise sd apart; 600 simulated data sets), below "
            "0.95 by more than 3 Monte Carlo standard errors")
    assert note in res.notes and "measured coverage of the 95% Tukey" in str(res)
    for options in ({"ddf": "kenward-roger"}, {"adjust": "holm"}, {"adjust": "none"}, {"confidence_level": 0.9}):
        assert not any("measured coverage" in n for n in rlstats.mixed(data, **options).notes), options
    frame = pd.DataFrame({"task": data.task, "agent": data.agent, "seed": np.tile([0, 1], data.y.size // 2),
                          "score": data.y})
    assert note in rlstats.mixed(frame, "score ~ agent | task/seed").notes
    unbalanced = frame.iloc[1:]  # one cell with one run: off the table's balanced grid
    assert not any("measured coverage" in n for n in rlstats.mixed(unbalanced, "score ~ agent | task/seed").notes)


def test_mixed_quotes_a_row_short_in_its_worst_design_draw(monkeypatch):
    # pooled 0.93 holds (3 SE = 0.065 at 100), the worst of 4 draws (25 data sets) misses: the note gives both
    rows = ({"procedure": "mixed.contrast", "test": "satterthwaite", "interval": "tukey", "agents": "3", "tasks": "5",
             "runs": "2", "distribution": "heavy_tailed", "configuration": "all_equal", "level": "0.95",
             "n_sim": "100", "coverage": "0.93", "se": "0.0255", "design_draws": "4", "coverage_min": "0.8"},)
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "mixed.contrast" else ())
    notes = [n for n in rlstats.mixed(_mixed_data(3, 5, 2)).notes if n.startswith("measured coverage")]
    assert notes == ["measured coverage of the 95% Tukey simultaneous intervals with Satterthwaite's df at 3 agents, "
                     "5 tasks and 2 runs per cell: 0.930, 0.800 in the worst of its 4 draws of the tasks' levels and "
                     "spreads (heavy-tailed scores, agents alike; 100 simulated data sets), its worst draw below 0.95 "
                     "by more than 3 Monte Carlo standard errors of a draw"]


def test_mixed_notes_follow_the_table():
    # the real table: a design quotes its lowest row short by more than 3 SE, and nothing where every row holds
    # (the balanced grid's rows, which mixed() reads; the unbalanced designs' have no runs to match)
    rows = _balanced_rows()
    designs = {(r["test"], r["interval"], int(r["agents"]), int(r["tasks"]), int(r["runs"])) for r in rows}
    short = sorted(d for d in designs if calibration.shortfall(rows, 0.95, test=d[0], interval=d[1], agents=d[2],
                                                               tasks=d[3], runs=d[4]))
    holding = sorted(designs - set(short))
    assert holding
    # since issue 40 no row is short (its 8 x 26 rows measured on 100 data sets per draw): the quoting of a short row
    # is checked on a table of chosen rows above (test_mixed_quotes_a_measured_coverage)
    for ddf, adjust, agents, tasks, runs in short[:1] + short[-1:] + [holding[0], holding[-1]]:
        if agents * tasks * runs > 600:
            continue  # keep the default run quick
        row = calibration.shortfall(rows, 0.95, test=ddf, interval=adjust, agents=agents, tasks=tasks, runs=runs)
        notes = [n for n in rlstats.mixed(_mixed_data(agents, tasks, runs), ddf=ddf, adjust=adjust).notes
                 if n.startswith("measured coverage")]
        assert len(notes) == (row is not None), (ddf, adjust, agents, tasks, runs)
        assert not notes or f": {float(row['coverage']):.3f} ({row['distribution']} scores" in notes[0]


# issue 40 item 4: the table as users read it (rlstats.calibration_table), the defaults it marks, and the figure

def _csv_rows():
    """The package table read independently of rlstats.calibration: csv's dicts of strings."""
    import csv

    with calibration.PATH.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_calibration_table_holds_the_csv_with_types():
    raw = _csv_rows()
    table = rlstats.calibration_table()
    assert len(table) == len(raw) and list(table.columns) == [*raw[0], "default", "worst", "misses"]
    for column in ("agents", "tasks", "runs", "n_sim", "n_resamples", "design_draws"):
        assert str(table[column].dtype) == "Int64"
        expected = [int(r[column]) if r[column] else None for r in raw]
        assert [None if pd.isna(v) else int(v) for v in table[column]] == expected, column
    for column in ("level", "coverage", "se", "set_size", "coverage_min"):
        assert table[column].dtype == np.float64
        expected = np.array([float(r[column]) if r[column] else np.nan for r in raw])
        np.testing.assert_array_equal(table[column].to_numpy(), expected)
    for column in ("procedure", *calibration.DESIGN_COLUMNS[:5], "distribution", "configuration"):
        assert str(table[column].dtype) == "string"
        assert [None if pd.isna(v) else v for v in table[column]] == [r[column] or None for r in raw], column
    # the derived columns, recomputed here from their definitions
    coverage, level, n_sim = (np.array([float(r[c]) for r in raw]) for c in ("coverage", "level", "n_sim"))
    low = np.array([float(r["coverage_min"]) if r["coverage_min"] else np.inf for r in raw])
    draws = np.array([float(r["design_draws"]) if r["design_draws"] else 1.0 for r in raw])
    np.testing.assert_array_equal(table["worst"], np.minimum(coverage, low))
    binomial = level * (1 - level)
    expected = (coverage < level - 3 * np.sqrt(binomial / n_sim)) | (low < level - 3 * np.sqrt(binomial * draws / n_sim))
    np.testing.assert_array_equal(table["misses"], expected)
    assert table["misses"].any() and not table["misses"].all()
    assert rlstats.calibration_table is calibration.calibration_table


ADASTOP_MEANS = runpy.run_path(str(REFERENCE / "size_adastop_means.py"))


def _means_scheme(point):
    """A grid point's permutations= scheme (a fifth field; four fields: "joint") and its rows' ``interval``."""
    scheme = point[4] if len(point) > 4 else "joint"
    return scheme, scheme if point[0] > 2 else ""


def _means_row(point):
    interval = _means_scheme(point)[1]
    rows = [r for r in calibration.rows(ADASTOP_MEANS["PROCEDURE"])
            if (int(r["agents"]), int(r["runs"]), r["configuration"], r["distribution"], r["interval"])
            == (point[0], point[1], f"K={point[2]}", point[3], interval)]
    assert len(rows) == 1, "the calibration table lacks this grid point"
    return rows[0]


# audit s21: AdaStop's default at equal means of different shapes (two agents, skewed against normal; three, one
# heavy-tailed among normal ones, a design whose joint row misses, measured for the default "holm" since audit s29b);
# the whole grid, both schemes, under -m slow
@pytest.mark.parametrize("point, n_sim", grid_points([(2, 5, 4, "skewed_vs_normal"),
                                                     (3, 10, 2, "heavy_tailed_vs_normal", "holm")],
                                                    ADASTOP_MEANS["grid"](), 120, ADASTOP_MEANS["SIMULATIONS"][0]))
def test_adastop_rejection_rate_at_equal_means(point, n_sim):
    """Re-measured on fresh data sets: within 4 joint SE of the table's row, and the row quoted by the result of its
    design and scheme exactly where it misses the level."""
    import warnings

    scheme, interval = _means_scheme(point)
    measured = ADASTOP_MEANS["measure"](*point[:4], n_sim, seed=99, permutations=scheme)
    row = _means_row(point)
    assert measured["n_sim"] >= n_sim and measured["configuration"] == row["configuration"]
    joint = math.sqrt(0.05 * 0.95 * (1 / measured["n_sim"] + 1 / int(row["n_sim"])))
    assert abs(measured["coverage"] - float(row["coverage"])) <= 4 * joint, (point, measured, row["coverage"])
    agents, runs, K, _ = point[:4]
    template = ADASTOP_MEANS["SIZE"]["design"](agents, 1, runs * K)
    data = dataclasses.replace(template, y=np.random.default_rng(0).normal(size=template.y.size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        notes = rlstats.adastop(data, n=runs, K=K, rng=0, permutations=scheme).notes
    quoted = [n for n in notes if n.startswith("AdaStop's level is exact when")]
    scheme_rows = [r for r in calibration.rows("adastop.fwe_means") if r["interval"] == interval]
    worst = calibration.shortfall(scheme_rows, 0.95, agents=agents, runs=runs, configuration=f"K={K}")
    assert bool(quoted) == (worst is not None)
    if quoted:
        rate = f"{1 - float(worst['coverage']):.3f} of {worst['n_sim']} simulated tests"
        assert f"declared different in {rate}" in quoted[0]


def test_calibration_table_filters():
    table = rlstats.calibration_table()
    both = rlstats.calibration_table(["curves.band", "mixed.contrast"], runs=[3, 5], distribution="skewed")
    expected = table[table["procedure"].isin(["curves.band", "mixed.contrast"]) & table["runs"].isin([3, 5])
                     & (table["distribution"] == "skewed")]
    pd.testing.assert_frame_equal(both, expected.reset_index(drop=True))
    assert set(both["procedure"]) == {"curves.band", "mixed.contrast"} and len(both) > 20
    pd.testing.assert_frame_equal(rlstats.calibration_table("curves.band", runs="5"),
                                  rlstats.calibration_table("curves.band", runs=5.0))
    # None keeps the rows where the procedure has no such choice
    empty_tasks = rlstats.calibration_table(tasks=None)
    assert len(empty_tasks) == sum(1 for r in _csv_rows() if not r["tasks"]) > 0
    assert empty_tasks["tasks"].isna().all()
    defaults = rlstats.calibration_table("bootstrap.interval", default=True)
    assert set(defaults["interval"]) == set(calibration.DEFAULTS["bootstrap.interval"][0]["interval"])
    short = rlstats.calibration_table(misses=True)
    assert len(short) == int(table["misses"].sum())


def _made_up(monkeypatch, rows):
    columns = CALIBRATE["COLUMNS"]
    rows = tuple({c: str(row.get(c, "")) for c in columns} for row in rows)
    monkeypatch.setattr(calibration, "read", lambda path=calibration.PATH: rows)


def test_calibration_table_judges_rows_by_the_3_se_rule(monkeypatch):
    # 400 simulations at 0.95: 3 SE = 3 sqrt(0.0475 / 400) = 0.0327 pooled, and 0.0654 for one of 4 draws (100 each)
    base = {"procedure": "curves.band", "band": "simultaneous", "statistic": "mean", "runs": 5, "level": 0.95,
            "n_sim": 400, "se": 0.01}
    _made_up(monkeypatch, [{**base, "coverage": 0.93, "distribution": "normal"},
                           {**base, "coverage": 0.91, "distribution": "skewed"},
                           {**base, "coverage": 0.93, "design_draws": 4, "coverage_min": 0.88, "distribution": "capped"},
                           {**base, "coverage": 0.93, "design_draws": 4, "coverage_min": 0.89,
                            "distribution": "heavy_tailed"}])
    table = rlstats.calibration_table()
    assert table["misses"].tolist() == [False, True, True, False]  # 0.9173 pooled; 0.8846 in a draw
    np.testing.assert_array_equal(table["worst"], [0.93, 0.91, 0.88, 0.89])
    assert table["design_draws"].tolist()[2:] == [4, 4] and table["design_draws"].isna().tolist()[:2] == [True, True]
    assert table["default"].all()  # every band kind of curves is drawn by default
    assert rlstats.calibration_table(distribution=["normal", "capped"])["worst"].tolist() == [0.93, 0.88]


def _keyword_default(function, name):
    import inspect

    return inspect.signature(function).parameters[name].default


def test_defaults_name_the_public_functions_defaults():
    # DEFAULTS (rlstats/calibration.py) marks the rows measuring what each function does when no method is named;
    # here each value is read from the function's signature, so a changed default fails until DEFAULTS follows
    d = calibration.DEFAULTS
    assert set(d) == set(calibration.procedures()) == set(CALIBRATE["MODULES"])
    assert d["bootstrap.interval"] == ({"interval": (_keyword_default(rlstats.bootstrap, "interval"),
                                                     _keyword_default(rlstats.probability_of_improvement,
                                                                      "interval")),
                                                    # audit s28 (gapboot28): the gap's default of agents below gamma;
                                                    # audit s34 (iqmfar34): on 3 tasks far apart; audit s35
                                                    # (farapart35): on 3 that overlap, runs apart by chance
                                                    "configuration": ("", calibration.GAP_BELOW_GAMMA,
                                                                      calibration.FAR_APART,
                                                                      calibration.APART_BY_CHANCE)},)
    # each names its own rows: the metrics' default has none of the probability of improvement, and back
    rows = calibration.rows("bootstrap.interval")
    assert {r["metric"] for r in rows if r["interval"] == d["bootstrap.interval"][0]["interval"][0]} == {
        "iqm", "mean", "median", "optimality_gap"}
    assert {r["metric"] for r in rows if r["interval"] == d["bootstrap.interval"][0]["interval"][1]} == {
        "probability_of_improvement"}
    # the profile's band is chosen from its kind (None: Wilson's band for kind="runs", the percentile one otherwise)
    assert d["bootstrap.profile"] == ({"metric": _keyword_default(rlstats.performance_profile, "kind"),
                                       "interval": "wilson"},)
    # and kind="tasks" the skew-corrected t band (audit s12; the t band from audit s10), the one performance_profile
    # chooses for it
    assert d["bootstrap.profile_tasks"] == ({"metric": "tasks", "interval": "skew_t"},)
    assert rlstats.performance_profile(rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0), "score ~ agent | "
                                       "task", kind="tasks", tau=[0.0]).interval == "skew_t"
    assert rlstats.performance_profile.__doc__ and "wilson" in rlstats.performance_profile.__doc__
    assert d["mixed.contrast"] == ({"test": _keyword_default(rlstats.mixed, "ddf"),
                                    "interval": _keyword_default(rlstats.mixed, "adjust")},)
    assert d["mixed.means"] == ({"test": _keyword_default(rlstats.mixed, "ddf"), "configuration": "tasks at hand"},)
    assert d["mixed.f_size"] == ({"test": _keyword_default(rlstats.mixed, "ddf"),
                                  "statistic": _keyword_default(rlstats.mixed, "f_basis")},)  # audit s34
    assert d["percentiles.interval"] == ({"interval": _keyword_default(rlstats.percentiles, "interval")},)
    assert d["selection.size"] == tuple({"statistic": role, "test": _keyword_default(rlstats.selection_check, role)}
                                        for role in ("inspector", "reporter"))
    assert d["task_table.possibly_best"] == ({"test": _keyword_default(rlstats.task_table, "test")},)
    assert d["curves.band"] == ({"interval": (_keyword_default(rlstats.curves, "bands"), "")},)
    assert d["task_table.effect_size"] == ({"interval": _keyword_default(rlstats.task_table, "effect_intervals")},)
    assert d["tuning.expected_max_band"] == ({"band": _keyword_default(rlstats.tuning, "band")},)
    assert _keyword_default(rlstats.tuning, "tuned_lower") == "pooled"
    assert d["tuning.best_interval"] == ({"interval": "select_then_report_pooled_t"},)
    assert d["tuning.complete_interval"] == ({"interval": _keyword_default(rlstats.tuning, "complete_interval")},)
    # issue 41 item 2: TOST per task and across tasks (Welch-Satterthwaite), and the aggregate's default metric
    assert (_keyword_default(rlstats.equivalence, "alternative"), _keyword_default(rlstats.equivalence, "across"),
            _keyword_default(rlstats.equivalence, "aggregate")) == ("equivalence", "welch", "iqm")
    tests = tuple(_CALIBRATED_TESTS[a] for a in typing.get_args(EquivalenceAlternative))  # both alternatives
    assert d["equivalence.size"] == ({"test": tests, "interval": ("welch", "welch_mean")},
                                     {"test": tests, "interval": "bootstrap_t", "metric": "iqm"})
    # issue 41 item 4: the next-ranked intervals are task_table's effect intervals; Conover's "auto" is Holm
    assert d["task_table.next_ranked"] == ({"interval": _keyword_default(rlstats.task_table, "effect_intervals")},)
    assert d["skillings_mack.conover_fwer"] == ({"test": "conover", "statistic": "holm"},)
    # audit s11: power("bootstrap") separates bootstrap()'s default intervals (interval= given to it is bootstrap()'s)
    assert d["power.bootstrap"] == ({"statistic": ("size", "agreement"),
                                     "interval": _keyword_default(rlstats.bootstrap, "interval")},)
    # audit s21: bayes()'s decisions, of its default model
    assert d["bayes.decision"] == ({"test": _keyword_default(rlstats.bayes, "model")},)
    # no method to choose, or chosen from the design: every row is a default
    for procedure in ("skillings_mack.size", "skillings_mack.pairs_fwer"):
        assert d[procedure] == calibration.ALL, procedure
    # AdaStop's and the permutation test's scheme (audit s29b: "holm"; two agents' rows, one test, leave it empty)
    scheme = _keyword_default(rlstats.adastop, "permutations")
    assert scheme == _keyword_default(rlstats.permutation, "permutations") == "holm"
    assert d["adastop.fwe"] == d["adastop.fwe_means"] == ({"interval": (scheme, "")},)
    assert d["adastop.fwe_spread"] == ({"interval": scheme},)
    assert _keyword_default(rlstats.skillings_mack, "variant") == "auto"
    # the default post hoc's rows: the rank contrasts, their adjustment chosen from the design
    assert (_keyword_default(rlstats.skillings_mack, "posthoc"),
            _keyword_default(rlstats.skillings_mack, "adjustment")) == ("ranks", "auto")
    # and the rows say so: each procedure's default is measured, and the flag is the patterns' match
    table = rlstats.calibration_table()
    assert table.groupby("procedure")["default"].any().all()
    raw = _csv_rows()
    for row, flag in zip(raw, table["default"]):
        patterns = d[row["procedure"]]
        assert flag == any(all(row[c] == v if isinstance(v, str) else row[c] in v for c, v in p.items())
                           for p in patterns), row


def test_coverage_by_runs_is_the_lowest_over_the_design(monkeypatch):
    base = {"procedure": "bootstrap.interval", "level": 0.95, "n_sim": 200, "se": 0.01, "tasks": 5}
    rows = [{**base, "interval": interval, "metric": metric, "runs": runs, "distribution": dist, "coverage": cov}
            for interval, metric, runs, dist, cov in [
                ("percentile", "iqm", 3, "normal", 0.90), ("percentile", "mean", 3, "skewed", 0.80),
                ("percentile", "iqm", 5, "normal", 0.93), ("percentile", "mean", 5, "skewed", 0.86),
                ("bca", "iqm", 3, "normal", 0.70), ("bca", "iqm", 5, "normal", 0.75)]]
    rows.append({**rows[0], "runs": 10, "coverage": 0.96, "design_draws": 4, "coverage_min": 0.91})
    _made_up(monkeypatch, rows)
    monkeypatch.setitem(calibration.DEFAULTS, "bootstrap.interval", ({"interval": "percentile"},))
    points = calibration.coverage_by_runs(rlstats.calibration_table())
    assert points[["method", "role", "runs", "coverage", "cells"]].values.tolist() == [
        ["percentile", "default", 3, 0.80, 2], ["percentile", "default", 5, 0.86, 2],
        ["percentile", "default", 10, 0.96, 1], ["bca", "other", 3, 0.70, 1], ["bca", "other", 5, 0.75, 1]]
    np.testing.assert_array_equal(points["worst"], [np.nan, np.nan, 0.91, np.nan, np.nan])
    # once the default moves, the method that was the default is drawn as the former one
    monkeypatch.setitem(calibration.DEFAULTS, "bootstrap.interval", ({"interval": "bca"},))
    points = calibration.coverage_by_runs(rlstats.calibration_table())
    assert list(dict.fromkeys(zip(points["role"], points["method"]))) == [("default", "bca"),
                                                                          ("former default", "percentile")]


def test_calibration_figure_draws_the_table(monkeypatch):
    import matplotlib.pyplot as plt

    table = rlstats.calibration_table(["bootstrap.interval", "curves.band", "skillings_mack.size"])
    points = calibration.coverage_by_runs(table)
    figure = rlstats.plotting.calibration_figure(table)
    try:
        assert [panel.get_title() for panel in figure.axes] == ["bootstrap.interval", "curves.band",
                                                               "skillings_mack.size"]
        for panel in figure.axes:
            mine = points[points["procedure"] == panel.get_title()]
            lines = {line.get_label(): line for line in panel.get_lines() if not line.get_label().startswith("_")}
            assert set(lines) == set(mine["method"])
            for method, line in lines.items():
                expected = mine[mine["method"] == method].sort_values("runs")
                np.testing.assert_array_equal(line.get_xdata(), expected["runs"])
                np.testing.assert_array_equal(line.get_ydata(), expected["coverage"])
                role = expected["role"].iloc[0]
                assert line.get_linestyle() == {"default": "-", "former default": "--", "other": ":"}[role]
            # the nominal level, as a horizontal line at 0.95
            assert any(np.allclose(line.get_ydata(), 0.95) for line in panel.get_lines()
                       if line.get_label().startswith("_") and len(line.get_xdata()) == 2)
        assert figure.get_figwidth() == rlstats.plotting.PAGE_WIDTH
    finally:
        plt.close(figure)
    # a row with design draws adds its worst draw as open triangles; two panels on the caller's Axes
    rows = [{"procedure": "curves.band", "band": "simultaneous", "statistic": "mean", "runs": runs, "level": 0.95,
             "n_sim": 400, "se": 0.01, "coverage": 0.95, "design_draws": 4, "coverage_min": low}
            for runs, low in ((3, 0.82), (5, 0.9))] + [
            {"procedure": "mixed.contrast", "test": "satterthwaite", "interval": "tukey", "runs": 3, "level": 0.95,
             "n_sim": 400, "se": 0.01, "coverage": 0.94}]
    _made_up(monkeypatch, rows)
    fig, axes = plt.subplots(1, 2)
    try:
        assert rlstats.plotting.calibration_figure(ax=axes) is fig
        triangles = [line for line in axes[0].get_lines() if line.get_marker() == "v"]
        assert len(triangles) == 1 and triangles[0].get_ydata().tolist() == [0.82, 0.9]
    finally:
        plt.close(fig)


# issue 40 item 3: the grid runner's backends. A tiny grid (the rank test's first 3 quick points, 10 data sets each)
# gives the same table byte for byte in one process and on two Dask workers (threads of an in-process cluster, by
# its scheduler's address); under -m slow, also on two loky worker processes and a local Dask cluster of processes.
TINY_GRID = ["--quick", "--only", "skillings_mack.size", "--simulations", "10", "--points", "3", "--no-progress"]


@pytest.fixture(scope="module")
def tiny_table(tmp_path_factory):
    out = tmp_path_factory.mktemp("calibrate") / "one_process.csv"
    CALIBRATE["main"]([*TINY_GRID, "--out", str(out)])
    return out.read_bytes()


def test_tiny_grid_rows(tiny_table, tmp_path, capsys):
    table = pd.read_csv(__import__("io").BytesIO(tiny_table), dtype=str, keep_default_na=False)
    points = SIZE["grid"](quick=True)[:3]
    assert [(int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"]) for _, r in table.iterrows()] == \
        points
    assert (table["n_sim"] == "10").all() and list(table.columns) == CALIBRATE["COLUMNS"]
    # each row is the module's own measurement of its point
    for (_, row), point in zip(table.iterrows(), points):
        assert float(row["coverage"]) == SIZE["measure"](*point, 10)["coverage"]
    # --points alone writes the trial file in the working directory, never the package table
    monkey = pytest.MonkeyPatch()
    monkey.chdir(tmp_path)
    try:
        CALIBRATE["main"](["--only", "skillings_mack.size", "--simulations", "5", "--points", "1", "--no-progress"])
    finally:
        monkey.undo()
    assert len(pd.read_csv(tmp_path / "calibration-quick.csv")) == 1
    assert "grid points:" not in capsys.readouterr().err  # --no-progress: no bar


def test_tiny_grid_on_dask_is_the_same_table(tiny_table, tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    out = tmp_path / "dask.csv"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client, distributed.get_task_stream(client) as stream:
            CALIBRATE["main"]([*TINY_GRID, "--out", str(out), "--backend", "dask", "--scheduler",
                               cluster.scheduler_address])
    assert out.read_bytes() == tiny_table
    assert len(stream.data) >= 3  # the grid points ran as tasks on the cluster


@pytest.mark.slow  # worker processes start and import rlstats: 20 s or more on a shared machine
@pytest.mark.parametrize("options", [["--jobs", "2"], ["--backend", "dask", "--jobs", "2"]],
                         ids=["loky-2-workers", "local-dask-cluster"])
def test_tiny_grid_on_worker_processes_is_the_same_table(tiny_table, tmp_path, options):
    if "dask" in options:
        pytest.importorskip("distributed", reason="dask.distributed is not installed")
    out = tmp_path / "workers.csv"
    CALIBRATE["main"]([*TINY_GRID, "--out", str(out), *options])
    assert out.read_bytes() == tiny_table


@pytest.mark.parametrize("options, phrase", [(["--scheduler", "tcp://nowhere:8786"], "--scheduler needs --backend dask"),
                                             (["--backend", "spark"], "invalid choice: 'spark'"),
                                             (["--jobs", "0"], "--jobs and --points must be at least 1")])
def test_runner_options_that_cannot_run(options, phrase, capsys):
    with pytest.raises(SystemExit):
        CALIBRATE["main"]([*TINY_GRID, *options])
    assert phrase in capsys.readouterr().err



def test_mack_skillings_chi_squared_size_is_the_permutation_law_of_the_ranks():
    # Issue 40 item 2: the default at 8 agents x 10 tasks x 10 runs is the chi-squared p-value of a statistic of the
    # within-task ranks alone (checked against Mack & Skillings' statistic written out here), so on tie-free scores
    # its size is that of the permutation law of the ranks: at most alpha + 3 SE (0.0499 over 100,000 permutations;
    # with few tasks the statistic's variance is below the chi-squared's 2 (k - 1): the approximation errs safe).
    from scipy import stats

    from rlstats.methods.skillings_mack._api import pvalue_only

    agents, tasks, runs = 8, 10, 10
    q = agents * runs
    # the null covariance of the agents' mean rank sums d_j = sum_i (R_ij - runs (q + 1) / 2) / q
    cov = tasks * (q + 1) / (12.0 * q**2) * (q * runs * np.eye(agents) - runs**2 * np.ones((agents, agents)))
    template = SIZE["design"](agents, tasks, runs)
    rng = np.random.default_rng(40)
    for draw in range(3):
        y = SIZE["null_scores"]("skewed", template, rng, draw)
        ranks = pd.Series(y).groupby(template.task).rank().to_numpy()
        d = np.bincount(template.agent, weights=(ranks - (q + 1) / 2) / q, minlength=agents)
        expected = stats.chi2.sf(d @ np.linalg.pinv(cov) @ d, agents - 1)
        assert pvalue_only(dataclasses.replace(template, y=y), rng=0) == pytest.approx(expected, rel=1e-9)
    size, se, statistics = SIZE["chi_squared_size"](agents, tasks, runs, 10_000, rng)
    assert size <= 0.05 + 3 * se, size
    assert statistics.mean() == pytest.approx(agents - 1, abs=4 * np.sqrt(2 * (agents - 1) / 10_000))


def test_reproduce_rows_gives_a_rank_test_row_digit_for_digit():
    # session 19's staleness check: a grid point re-run with its seeds is its table row, unless something changed
    reproduce = runpy.run_path(str(REFERENCE / "reproduce_rows.py"))["reproduced"]
    (found,) = reproduce("skillings_mack.size", [100])
    assert found["design"]["agents"] == "3" and found["design"]["tasks"] == "1" and found["same"], found
    assert found["now"]["coverage"] == _size_row(3, 1, 5, "normal")["coverage"]


BAYES_DECISIONS = runpy.run_path(str(REFERENCE / "bayes_decisions.py"))


def _bayes_frame(x, offset=0.0):
    """A two-agent DataFrame whose paired run differences (a0 - a1) are x (tasks, runs)."""
    tasks, runs = x.shape
    task, seed = np.meshgrid(np.arange(tasks), np.arange(runs), indexing="ij")
    base = offset + np.arange(x.size, dtype=float).reshape(x.shape) % 3  # the second agent's runs: any values
    rows = [pd.DataFrame({"task": [f"t{t}" for t in task.ravel()], "seed": seed.ravel(), "agent": agent,
                          "score": (base + x if agent == "a0" else base).ravel()}) for agent in ("a0", "a1")]
    return pd.concat(rows, ignore_index=True)


@pytest.mark.parametrize("model", ["signed_rank", "hierarchical"])
def test_bayes_decision_kernels_give_the_public_probabilities(model):
    """audit s21 (bayescal21): the script's batched fits are rlstats.bayes's probabilities, within Monte Carlo error
    (different streams: 50,000 Dirichlet draws, SE <= 0.0023; 8,000 correlated Gibbs draws, within 0.05)."""
    import warnings

    x = np.random.default_rng(5).normal(0.3, 1.0, size=(5, 3))
    rope = 0.25
    if model == "signed_rank":
        p = BAYES_DECISIONS["signed_rank_probabilities"](x.mean(axis=1)[None], rope, np.random.default_rng(1))[0]
    else:
        p = BAYES_DECISIONS["hierarchical_probabilities"](x[None], rope, np.random.default_rng(1))[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(_bayes_frame(x), "score ~ agent | task/seed", rope=rope, model=model, rng=0,
                            progress=False)
    public = res.comparisons[["p_worse", "p_rope", "p_better"]].to_numpy(dtype=float)[0]
    np.testing.assert_allclose(p, public, atol=0.01 if model == "signed_rank" else 0.05)
    assert abs(p.sum() - 1) < 1e-12 if model == "hierarchical" else True


@pytest.mark.parametrize("configuration", [
    pytest.param(c, marks=() if c == BAYES_DECISIONS["DEFAULT_CONFIGURATION"] else pytest.mark.slow)
    for c in BAYES_DECISIONS["CONFIGURATIONS"]])  # ~1 s each: the default configuration in the default run
def test_bayes_decision_row_remeasured(configuration):
    """A quick point of the bayes.decision rows (the signed-rank model, the default, at 5 tasks x 3 normal runs) on
    fresh data sets: each configuration within 4 joint SE of the table's row."""
    point = ("signed_rank", 5, 3, "normal")
    held = np.concatenate(BAYES_DECISIONS["held_by_draw"](*point, configuration, 30, seed=99))
    row = next(r for r in calibration.rows("bayes.decision") if r["test"] == point[0]
               and (int(r["tasks"]), int(r["runs"]), r["distribution"]) == point[1:]
               and r["configuration"] == configuration)
    measured, table = 1 - held.mean(), 1 - float(row["coverage"])
    joint = math.sqrt(max(table * (1 - table), 0.05 * 0.95) * (1 / held.size + 1 / int(row["n_sim"])))
    assert abs(measured - table) <= 4 * joint, (configuration, measured, table)
