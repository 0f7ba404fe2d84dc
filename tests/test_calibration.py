"""The package's calibration table (``rlstats/calibration.csv``): its schema, the script that writes it, the rank
test's size, the effect-size intervals, the bootstrap's intervals at few runs and the performance percentiles'
intervals re-measured at a few grid points (the whole grid under ``-m slow``) and the notes that quote it.

The other procedures' rows are re-measured by the test files of their back ends (``tests/test_task_table.py``,
``tests/test_curves.py``).
"""

import dataclasses
import math
import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration

REFERENCE = pathlib.Path(__file__).parent / "reference"
CALIBRATE = runpy.run_path(str(REFERENCE / "calibrate.py"))
SIZE = runpy.run_path(str(REFERENCE / "size_rank_test.py"))


def test_table_has_one_schema_and_binomial_errors():
    table = pd.read_csv(calibration.PATH, dtype=str, keep_default_na=False)
    assert list(table.columns) == CALIBRATE["COLUMNS"]
    coverage, n_sim, se = (table[c].astype(float) for c in ("coverage", "n_sim", "se"))
    assert ((coverage >= 0) & (coverage <= 1)).all() and (n_sim > 0).all()
    # the binomial SE at the coverage, or (designs.pooled_row, issue 40 item 5) at the larger of it and the level's
    level = table["level"].astype(float)
    pooled = np.sqrt(np.maximum(coverage * (1 - coverage), level * (1 - level)) / n_sim)
    assert (np.isclose(se, np.sqrt(coverage * (1 - coverage) / n_sim), atol=1e-5, rtol=0)
            | np.isclose(se, pooled, atol=1e-5, rtol=0)).all()
    assert set(table["level"].astype(float)) == {0.95}


def test_every_procedure_quoted_has_rows_for_its_whole_grid():
    from rlstats.methods.adastop import _api as adastop_api
    from rlstats.methods.bootstrap import _api as bootstrap_api
    from rlstats.methods.bootstrap import _small_runs as small_runs
    from rlstats.methods.curves import _api as curves_api
    from rlstats.methods.mixed import _api as mixed_api
    from rlstats.methods.percentiles import _api as percentiles_api
    from rlstats.methods.selection import _api as selection_api
    from rlstats.methods.skillings_mack import _api as skillings_mack_api
    from rlstats.methods.task_table import _calibration as task_table_calibration

    quoted = {curves_api.CALIBRATION, skillings_mack_api.SIZE_PROCEDURE, task_table_calibration.PROCEDURE,
              small_runs.PROCEDURE, percentiles_api.CALIBRATION, bootstrap_api.PROFILE_CALIBRATION,
              selection_api.SIZE_PROCEDURE, adastop_api.FWE_PROCEDURE, mixed_api.CALIBRATION}
    assert quoted <= set(calibration.procedures()) == set(CALIBRATE["MODULES"])
    for procedure in CALIBRATE["MODULES"]:
        module = CALIBRATE["load"](procedure)
        rows = calibration.rows(procedure)
        assert len(rows) % len(module["grid"]()) == 0 and rows, procedure


def test_only_replaces_the_procedures_measured(tmp_path):
    out = tmp_path / "table.csv"
    pd.DataFrame([{"procedure": "curves.band", "statistic": "mean", "level": "0.95", "coverage": "0.9",
                   "n_sim": "10", "se": "0.0948683"}]).reindex(columns=CALIBRATE["COLUMNS"]).to_csv(out, index=False)
    CALIBRATE["main"](["--quick", "--only", "skillings_mack.size", "--simulations", "20", "--out", str(out)])
    table = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(table.columns) == CALIBRATE["COLUMNS"]
    assert (table["procedure"] == "curves.band").sum() == 1
    size = table[table["procedure"] == "skillings_mack.size"]
    assert len(size) == len(SIZE["grid"](quick=True)) and (size["n_sim"] == "20").all()
    assert set(size["test"]) == {"friedman", "mack_skillings"}


# Grid points re-measured in the default suite: Friedman with a Monte Carlo p-value on tied (capped) scores, and
# Mack-Skillings with replicates on skewed scores.
QUICK_POINTS = [(3, 5, 1, "capped"), (5, 10, 3, "skewed")]


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


@pytest.mark.parametrize("point, n_sim", grid_points(QUICK_POINTS, SIZE["grid"](), 400, 1000))
def test_rank_test_size(point, n_sim):
    _check_size(point, n_sim)


def test_rank_test_quotes_a_measured_size(monkeypatch):
    rows = ({"procedure": "skillings_mack.size", "test": "friedman", "agents": "3", "tasks": "8", "runs": "1",
             "distribution": "capped", "level": "0.95", "n_sim": "1000", "n_resamples": "999", "coverage": "0.92",
             "se": "0.0086"},)
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "skillings_mack.size" else ())
    df = rlstats.datasets.simulate(agents=3, tasks=8, seeds=1, rng=0)
    notes = rlstats.compare(df, "score ~ agent | task").notes
    assert ("measured size of the Friedman rank sum test with 3 agents, 8 tasks and 1 run per cell: 0.080 (capped "
            "scores, 1000 null data sets), above alpha = 0.05 by more than 3 Monte Carlo standard errors" in notes)
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


@pytest.mark.parametrize("point, n_sim", grid_points([(2, 3, "normal", "one_best"), (2, 10, "skewed", "all_equal"),
                                                     (8, 2, "capped", "one_best")], EFFECTS["grid"](), 15, 100))
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
    tabled = {(r["interval"], r["metric"]): r for r in calibration.rows(INTERVALS["PROCEDURE"])
              if (r["distribution"], int(r["tasks"]), int(r["runs"])) == point}
    measured = INTERVALS["measure"](distribution, tasks, runs, n_sim, seed=99, n_resamples=500)
    assert {(r["interval"], r["metric"]) for r in measured} == set(tabled), "the table lacks this grid point"
    for row in measured:
        table_row = tabled[row["interval"], row["metric"]]
        coverage = float(table_row["coverage"])
        inverse = 1 / row["n_sim"] + 1 / int(table_row["n_sim"])
        joint = math.sqrt(max(coverage * (1 - coverage), 0.05 * 0.95) * inverse)
        assert abs(row["coverage"] - coverage) <= 4 * joint, (point, row, coverage)


@pytest.mark.filterwarnings("ignore")  # the raw-scale warning: the simulated tasks share one scale on purpose
@pytest.mark.parametrize("point, n_sim", grid_points([("normal", 5, 3), ("exponential", 26, 10)], INTERVALS["grid"](),
                                                    40, 150))
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
    # within 3 SE of the level, but below the bootstrap's floor
    notes = rlstats.percentiles(df, "score ~ agent | task", interval="bootstrap", n_resamples=500, rng=0).notes
    assert any(n.startswith("4 runs in the smallest cell are few for the percentile bootstrap") for n in notes)
    assert not any("are few" in n for n in rlstats.percentiles(df, "score ~ agent | task", interval="pbp").notes)
    more = rlstats.datasets.simulate(agents=3, tasks=2, seeds=10, rng=0)  # 10 runs: pbp_t holds its level
    assert not any("are few" in n for n in rlstats.percentiles(more, "score ~ agent | task", interval="pbp_t").notes)

    # off the grid: the design nearest on a log scale among those measured at most at the smallest cell's runs
    def quoted(agents, tasks, smallest):
        note = _api._coverage_note("pbp_t", smallest, agents, tasks)
        return note and note.split("in simulations of ")[1].split(", nominal")[0]

    assert quoted(8, 5, 7) == "8 agents x 5 tasks with 5 runs per cell"
    assert quoted(8, 5, 4) == "8 agents x 5 tasks with 3 runs per cell"
    assert quoted(7, 6, 2) == "8 agents x 5 tasks with 3 runs per cell"  # fewer runs than measured: the smallest
    assert quoted(2, 1, 4) == "3 agents x 2 tasks with 3 runs per cell"  # 2 x 1 was measured at 5 runs only
    assert quoted(2, 1, 6) == "2 agents x 1 task with 5 runs per cell"
    assert quoted(4, 4, 3) == "4 agents x 8 tasks with 3 runs per cell"  # a tie with 4 x 2: the larger design
    assert quoted(3, 3, 20) is None  # 3 x 2 at 10 runs holds its level


MIXED = runpy.run_path(str(REFERENCE / "coverage_mixed.py"))


def _mixed_data(agents, tasks, runs, seed=0):
    design = MIXED["template"](agents, tasks, runs)
    rng = np.random.default_rng(seed)
    return dataclasses.replace(design, y=rng.normal(size=design.y.size) + rng.normal(size=tasks)[design.task])


def _check_mixed(point, n_sim):
    """Re-measured coverage of every df method and adjustment within 4 joint SE of the table (binomial variance at
    the table's coverage, or at the level where that is nearer 1/2), and a result at that design quoting the row
    where the table has it short by over 3 SE (the package's rule, calibration.shortfall: decided by the table's
    row, not by this smaller re-measure)."""
    agents, tasks, runs, _, _ = point
    tabled = {(r["test"], r["interval"]): r for r in calibration.rows(MIXED["PROCEDURE"])
              if (int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"], r["configuration"]) == point}
    measured = MIXED["measure"](*point, n_sim, seed=99)
    assert {(r["test"], r["interval"]) for r in measured} == set(tabled), "the table lacks this grid point"
    for row in measured:
        table_row = tabled[row["test"], row["interval"]]
        coverage = float(table_row["coverage"])
        joint = math.sqrt(max(coverage * (1 - coverage), 0.05 * 0.95) * (1 / n_sim + 1 / int(table_row["n_sim"])))
        assert abs(row["coverage"] - coverage) <= 4 * joint, (point, row, coverage)
        if calibration.shortfall([table_row], 0.95) is not None:
            notes = rlstats.mixed(_mixed_data(agents, tasks, runs), ddf=row["test"], adjust=row["interval"]).notes
            assert any(n.startswith("measured coverage of the 95%") for n in notes), (point, row)


@pytest.mark.parametrize("point, n_sim", grid_points([(3, 5, 3, "normal", "all_equal"),
                                                     (2, 3, 2, "capped", "spread 0 to 1")], MIXED["grid"](), 60, 200))
def test_mixed_contrast_intervals(point, n_sim):
    _check_mixed(point, n_sim)


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


def test_mixed_capped_truth_is_the_mean_capped_score():
    # E min(mu + X, 0) for X ~ N(0, 2) (no task x agent variance), closed form against 2 million draws
    x = np.random.default_rng(0).normal(0.0, math.sqrt(2.0), 2_000_000)
    mu = np.array([0.0, 0.5, 1.0])
    expected = [np.minimum(m + x, 0.0).mean() for m in mu]
    np.testing.assert_allclose(MIXED["true_means"]("capped", mu, 0.0), expected, atol=4 * 1.0 / math.sqrt(2e6))


def test_mixed_quotes_a_measured_coverage(monkeypatch):
    rows = ({"procedure": "mixed.contrast", "test": "satterthwaite", "interval": "tukey", "agents": "3", "tasks": "5",
             "runs": "2", "distribution": "capped", "configuration": "spread 0 to 1", "level": "0.95", "n_sim": "600",
             "coverage": "0.9", "se": "0.0122"},)
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "mixed.contrast" else ())
    data = _mixed_data(3, 5, 2)
    res = rlstats.mixed(data)
    note = ("measured coverage of the 95% Tukey simultaneous intervals with Satterthwaite's df at 3 agents, 5 tasks "
            "and 2 runs per cell: 0.900 (capped scores, agent means 0 to 1; 600 simulated data sets), below 0.95 by "
            "more than 3 Monte Carlo standard errors")
    assert note in res.notes and "measured coverage of the 95% Tukey" in str(res)
    for options in ({"ddf": "kenward-roger"}, {"adjust": "holm"}, {"adjust": "none"}, {"confidence_level": 0.9}):
        assert not any("measured coverage" in n for n in rlstats.mixed(data, **options).notes), options
    frame = pd.DataFrame({"task": data.task, "agent": data.agent, "seed": np.tile([0, 1], data.y.size // 2),
                          "score": data.y})
    assert note in rlstats.mixed(frame, "score ~ agent | task/seed").notes
    unbalanced = frame.iloc[1:]  # one cell with one run: off the table's balanced grid
    assert not any("measured coverage" in n for n in rlstats.mixed(unbalanced, "score ~ agent | task/seed").notes)


def test_mixed_notes_follow_the_table():
    # the real table: a design quotes its lowest row short by more than 3 SE, and nothing where every row holds
    rows = calibration.rows(MIXED["PROCEDURE"])
    designs = {(r["test"], r["interval"], int(r["agents"]), int(r["tasks"]), int(r["runs"])) for r in rows}
    short = sorted(d for d in designs if calibration.shortfall(rows, 0.95, test=d[0], interval=d[1], agents=d[2],
                                                               tasks=d[3], runs=d[4]))
    holding = sorted(designs - set(short))
    assert short and holding
    for ddf, adjust, agents, tasks, runs in (short[0], short[-1], holding[0], holding[-1]):
        if agents * tasks * runs > 600:
            continue  # keep the default run quick
        row = calibration.shortfall(rows, 0.95, test=ddf, interval=adjust, agents=agents, tasks=tasks, runs=runs)
        notes = [n for n in rlstats.mixed(_mixed_data(agents, tasks, runs), ddf=ddf, adjust=adjust).notes
                 if n.startswith("measured coverage")]
        assert len(notes) == (row is not None), (ddf, adjust, agents, tasks, runs)
        assert not notes or f": {float(row['coverage']):.3f} ({row['distribution']} scores" in notes[0]
