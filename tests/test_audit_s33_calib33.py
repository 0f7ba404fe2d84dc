"""Audit s33 (calib33): calibration rows for two kinds of interval the package prints and the table did not measure.

1. task_table's intervals of the difference of means (Welch's, ``welch`` and ``welch_next``), at the false
   coverage-statement level 1 - 2 (1 - 0.95) / k since audit s32: the ``metric`` "difference" rows of
   ``task_table.effect_size`` (against the best) and ``task_table.next_ranked``, whose ``coverage`` is 1 - FCR, the
   mean over tasks of the share of a task's k - 1 printed intervals that hold, and ``se`` its Monte Carlo error over
   tasks (``tests/reference/coverage_fcr_difference.py``).
2. mixed()'s Sidak and Scheffe families of the pairwise contrasts (emmeans' adjust="sidak", "scheffe", audit s32
   rhabit32): ``mixed.contrast`` rows of ``interval`` "sidak" and "scheffe", simultaneous coverage of the family
   (``tests/reference/coverage_mixed_adjust.py``, the data sets and fits of ``coverage_mixed.py``).

The default suite re-measures one reduced point of each on fresh data sets; the whole grids are under ``-m slow``.
"""
from __future__ import annotations

import dataclasses
import math
import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats import calibration
from rlstats.methods.task_table import _kernels

REFERENCE = pathlib.Path(__file__).parent / "reference"
FCR = runpy.run_path(str(REFERENCE / "coverage_fcr_difference.py"))
EFFECTS = runpy.run_path(str(REFERENCE / "coverage_effect_sizes.py"))
MIXED = runpy.run_path(str(REFERENCE / "coverage_mixed.py"))
ADJUST = runpy.run_path(str(REFERENCE / "coverage_mixed_adjust.py"))
CALIBRATE = runpy.run_path(str(REFERENCE / "calibrate.py"))


# ---- 1. the false coverage-statement rate of the intervals of the difference of means

def test_true_mean_difference_against_closed_forms():
    # uncapped families: deviations of mean 0, so the locations' difference; capped at c: E min(mu + Z, c) =
    # mu Phi(c - mu) - phi(c - mu) + c (1 - Phi(c - mu)) for Z standard normal
    for family in ("normal", "skewed"):  # (heavy_tailed's t quantiles cost a second; the same rule)
        assert EFFECTS["mean_difference"](0.0, -0.75, family) == pytest.approx(0.75, abs=2e-4)
    cap = runpy.run_path(str(REFERENCE / "designs.py"))["CAP"]

    def capped(mu):
        return mu * stats.norm.cdf(cap - mu) - stats.norm.pdf(cap - mu) + cap * stats.norm.sf(cap - mu)

    assert EFFECTS["mean_difference"](0.0, -0.75, "capped") == pytest.approx(capped(0.0) - capped(-0.75), abs=1e-5)
    assert EFFECTS["mean_difference"](0.0, -0.75, "capped") < 0.6  # the cap takes a fifth off


def test_fcr_se_is_the_spread_of_the_tasks_shares():
    # 3 agents: 2 intervals a task; shares 1, 0.5, 1, 0 over two draws
    held = [np.array([True, True, True, False]), np.array([True, True, False, False])]
    shares = np.array([1.0, 0.5, 1.0, 0.0])
    assert EFFECTS["fcr_se"](held, 2) == pytest.approx(shares.std(ddof=1) / 2, rel=1e-12)
    # one interval a task: the binomial SE of the share
    one = [np.array([True, False, True, True])]
    assert EFFECTS["fcr_se"](one, 1) == pytest.approx(math.sqrt(0.75 * 0.25 / 3), rel=1e-12)


def test_difference_interval_read_is_welchs_at_the_fcr_level():
    # the interval the rows judge is Welch's t interval of the two agents' means at 1 - 2 (1 - 0.95) / k (scipy)
    locations = np.array([0.0, -0.5, -1.0])
    data = EFFECTS["simulate"](locations, 4, 2, "skewed", 0, np.random.default_rng(5))
    res = EFFECTS["task_table"](data, "fcr")
    level = _kernels.fcr_level(0.95, np.array([3]))[0]
    for t, task in enumerate(res.tasks):
        here = data[data["task"] == task]
        runs = {a: here.loc[here["agent"] == a, "score"].to_numpy() for a in res.agents}
        best = res.agents[res.best[t]]
        for j, other in enumerate(res.agents):
            if other == best:
                continue
            x, y = runs[best], runs[other]
            vx, vy = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
            df = (vx + vy) ** 2 / (vx ** 2 / (x.size - 1) + vy ** 2 / (y.size - 1))
            half = stats.t.ppf(0.5 + level / 2, df) * math.sqrt(vx + vy)
            d = x.mean() - y.mean()
            assert res.welch[t, j, 2:4] == pytest.approx([d - half, d + half], rel=1e-10)


def _fcr_rows(point):
    return {row["procedure"]: row for procedure in FCR["PROCEDURES"] for row in calibration.rows(procedure)
            if row["metric"] == "difference" and (int(row["agents"]), int(row["runs"]), row["distribution"],
                                                  row["configuration"]) == point}


def _check_fcr(point, n_sim):
    """Re-measured on fresh tasks (seed 99): within 4 joint SE of the table (each side's SE over tasks, at least the
    binomial at the level over tasks), and at least 0.95 - 3 SE where the table's row holds."""
    tabled = _fcr_rows(point)
    assert set(tabled) == set(FCR["PROCEDURES"]), "the table lacks this grid point"
    agents = point[0]
    measured = list(FCR["rows_of"](point, FCR["held_by_draw"](*point, n_sim, seed=99)))
    assert {r["procedure"] for r in measured} == set(tabled)  # never an empty loop (review rt33a)
    for row in measured:
        table = tabled[row["procedure"]]
        tasks = n_sim * 4
        floor = math.sqrt(0.05 * 0.95 / tasks)
        se_table = max(float(table["se"]), math.sqrt(0.05 * 0.95 * (agents - 1) / int(table["n_sim"])))
        joint = math.hypot(max(row["se"], floor), se_table)
        assert abs(row["coverage"] - float(table["coverage"])) <= 4 * joint, (point, row, table)
        if not calibration.misses(table, 0.95):
            assert row["coverage"] >= 0.95 - 3 * max(row["se"], floor), (point, row)


@pytest.mark.parametrize("point", [(3, 3, "capped", "all_equal")])
def test_fcr_difference_rows_reduced(point):
    _check_fcr(point, 15)  # 60 tasks: ~0.3 s


@pytest.mark.slow
@pytest.mark.parametrize("point", FCR["grid"](), ids=lambda point: "-".join(map(str, point)))
def test_fcr_difference_rows_full_grid(point):
    _check_fcr(point, 50)


def _as_written(row):
    return {c: f"{row[c]:.6g}" if isinstance(row[c], float) else str(row[c]) for c in ("n_sim", "coverage", "se",
                                                                                       "coverage_min")}


def test_fcr_difference_rows_reproduce_bit_for_bit():
    # the script's seeds give the table's rows again (a 2-agent point: one interval a task, 400 tasks)
    point = (2, 3, "normal", "one_best")
    tabled = _fcr_rows(point)
    for row in FCR["rows_of"](point, FCR["held_by_draw"](*point, FCR["SIMULATIONS"][0])):
        assert _as_written(row) == {c: tabled[row["procedure"]][c] for c in ("n_sim", "coverage", "se",
                                                                              "coverage_min")}


@pytest.mark.slow
def test_mixed_sidak_scheffe_rows_reproduce_bit_for_bit():
    point = (3, 3, 5, "skewed", "spread 0 to 1")
    tabled = {(r["test"], r["interval"]): r for r in calibration.rows("mixed.contrast") if
              ADJUST["appended"](r) and (int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"],
                                         r["configuration"]) == point}
    for row in ADJUST["table_rows"](point):
        assert _as_written(row) == {c: tabled[row["test"], row["interval"]][c] for c in ("n_sim", "coverage", "se",
                                                                                           "coverage_min")}


def test_fcr_difference_rows_in_the_table():
    table = rlstats.calibration_table(["task_table.effect_size", "task_table.next_ranked"], metric="difference")
    assert len(table) == 2 * len(FCR["grid"]()) == 360
    assert table["default"].all() and (table["interval"] == "fcr").all()
    assert set(table["agents"]) == {2, 3, 8} and set(table["runs"]) == {2, 3, 5, 10, 20}
    # every row is one the appending script owns, so a re-run of the procedures' grids keeps them
    raw = [row for procedure in FCR["PROCEDURES"] for row in calibration.rows(procedure)]
    assert sum(FCR["appended"](row) for row in raw) == 360
    frame = pd.DataFrame(raw).astype(str)
    assert CALIBRATE["_appended"](frame, list(FCR["PROCEDURES"])).sum() == 360


def test_task_table_quotes_a_short_difference_row(monkeypatch):
    from rlstats.methods.task_table import _calibration as task_calibration

    rows = ({"procedure": "task_table.effect_size", "interval": "fcr", "metric": "difference", "agents": "3",
             "runs": "3", "distribution": "capped", "configuration": "all_equal", "level": "0.95", "n_sim": "800",
             "coverage": "0.9", "se": "0.01"},)
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "task_table.effect_size" else ())
    data = EFFECTS["simulate"](np.zeros(3), 3, 2, "normal", 0, np.random.default_rng(1))
    for intervals in ("fcr", "fcr_normal"):  # Welch's interval is the same with either
        notes = rlstats.task_table(data, "score ~ agent | task/seed", effect_intervals=intervals).notes
        assert any(n.startswith("measured coverage of the 95% Welch interval of the difference of means against "
                                "the best with 3 agents and 3 runs per agent: 0.900") for n in notes), intervals
    assert task_calibration.effect_size_shortfall("a12", 3, 3, 0.95) is None  # the metric's own rows only


def test_task_table_at_the_missing_design_says_so_and_what_to_add():
    # the table's one difference row that misses (8 alike agents, 2 capped runs: 0.944 of 11,200, counting the
    # intervals not formed as missing) is quoted for 8 agents x 2 runs, with the runs at which every row holds
    from rlstats.methods.task_table import _calibration as task_calibration

    data = EFFECTS["simulate"](np.zeros(8), 2, 2, "normal", 0, np.random.default_rng(1))
    [note] = [n for n in rlstats.task_table(data, "score ~ agent | task/seed").notes
              if "Welch interval of the difference of means" in n and n.startswith("measured")]
    assert note.startswith("measured coverage of the 95% Welch interval of the difference of means against the best "
                           "with 8 agents and 2 runs per agent: 0.944, 0.942 in the worst of its 4 draws")
    assert note.endswith("; it is 1 - the false coverage-statement rate, the share of the intervals against the best "
                         "that hold, one not formed (both agents' runs tied) counted as missing; at 3 runs per agent "
                         "every design measured held: add runs")
    assert task_calibration.runs_that_hold("difference", 8, 2, 0.95) == 3
    assert task_calibration.effect_size_shortfall("difference", 8, 3, 0.95) is None
    assert task_calibration.effect_size_shortfall("difference", 3, 2, 0.95) is None


# ---- 2. mixed()'s Sidak and Scheffe families

def _balanced(agents, tasks, runs, seed=0):
    design = MIXED["template"](agents, tasks, runs)
    rng = np.random.default_rng(seed)
    return dataclasses.replace(design, y=rng.normal(size=design.y.size) + rng.normal(size=tasks)[design.task])


def test_sidak_and_scheffe_decisions_are_the_intervals_own():
    # coverage_mixed.held's Sidak and Scheffe multipliers decide as the intervals rlstats.mixed prints: truths just
    # inside every interval (0.99 of its half-width) are held, one just outside (1.01) is not
    data = _balanced(4, 5, 2, seed=3)
    fitted = MIXED["pairs"](data, data.y)
    for ddf in MIXED["DDF"]:
        for adjust in MIXED["OTHER_ADJUST"]:
            pairs = rlstats.mixed(data, ddf=ddf, adjust=adjust).comparisons
            estimate, se, df = (pairs[c].to_numpy() for c in ("estimate", "std_error", "df"))
            np.testing.assert_allclose(np.vstack(fitted[ddf]), [estimate, se ** 2, df], rtol=1e-10)
            half = (pairs["conf_high"] - pairs["estimate"]).to_numpy()
            for outside in (None, 0, 5):
                factor = np.full(estimate.size, 0.99)
                if outside is not None:
                    factor[outside] = 1.01
                truth = estimate - half * factor * np.where(np.arange(estimate.size) % 2, 1, -1)
                assert MIXED["held"](estimate, se ** 2, df, truth, 4)[adjust] == (outside is None), (ddf, adjust)


def test_two_agents_sidak_and_scheffe_are_tukeys_interval():
    # m = 1 pair, rank 1: Sidak's t at 0.95, Scheffe's sqrt(F(1, df)) and Tukey's q / sqrt(2) are the one t quantile,
    # so the Tukey rows speak for them at 2 agents
    from rlstats.methods.mixed import _kernels

    for df in (3.0, 11.5, 80.0):
        t = stats.t.ppf(0.975, df)
        assert math.sqrt(stats.f.ppf(0.95, 1, df)) == pytest.approx(t, rel=1e-9)
        assert float(np.ravel(_kernels.tukey_quantiles(0.95, np.array([df]), 2))[0]) == pytest.approx(t, rel=1e-6)
    data = _balanced(2, 4, 3, seed=1)
    bounds = {adjust: rlstats.mixed(data, adjust=adjust).comparisons[["conf_low", "conf_high"]].to_numpy()
              for adjust in ("tukey", "sidak", "scheffe")}
    np.testing.assert_allclose(bounds["sidak"], bounds["tukey"], rtol=1e-6)
    np.testing.assert_allclose(bounds["scheffe"], bounds["tukey"], rtol=1e-6)


def _check_mixed_adjust(point, n_sim):
    tabled = {(r["test"], r["interval"]): r for r in calibration.rows("mixed.contrast")
              if ADJUST["appended"](r)
              and (int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"], r["configuration"]) == point}
    measured = MIXED["rows_of"](point, MIXED["measure"](*point, n_sim, seed=99, adjusts=MIXED["OTHER_ADJUST"]))
    assert {(r["test"], r["interval"]) for r in measured} == set(tabled), "the table lacks this grid point"
    for row in measured:
        table = tabled[row["test"], row["interval"]]
        coverage = float(table["coverage"])
        assert row["coverage"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / row["n_sim"]), (point, row)
        joint = math.sqrt(max(coverage * (1 - coverage), 0.05 * 0.95) * (1 / row["n_sim"] + 1 / int(table["n_sim"])))
        assert abs(row["coverage"] - coverage) <= 4 * joint, (point, row, coverage)


@pytest.mark.parametrize("point", [(3, 3, 3, "capped", "spread 0 to 1")])
def test_mixed_sidak_scheffe_rows_reduced(point):
    _check_mixed_adjust(point, 10)  # 40 data sets, 2 df methods: ~1 s


@pytest.mark.slow
@pytest.mark.parametrize("point", ADJUST["grid"](), ids=lambda point: "-".join(map(str, point)))
def test_mixed_sidak_scheffe_rows_full_grid(point):
    _check_mixed_adjust(point, 25)


def test_mixed_sidak_scheffe_rows_in_the_table():
    table = rlstats.calibration_table("mixed.contrast", interval=["sidak", "scheffe"])
    table = table[~table["configuration"].str.startswith(calibration.UNBALANCED)]  # audit s34's, its own test's
    assert len(table) == 4 * len(ADJUST["grid"]()) == 320
    assert not table["default"].any() and set(table["agents"]) == {3, 8}
    raw = calibration.rows("mixed.contrast")
    assert sum(ADJUST["appended"](row) for row in raw) == 320
    # with audit s34's 816 rows of unbalanced designs and audit s36's 72 of agents whose runs differ in spread, the
    # other scripts appending to mixed.contrast
    assert CALIBRATE["_appended"](pd.DataFrame(raw).astype(str), ["mixed.contrast"]).sum() == 320 + 816 + 72


def test_sidak_and_scheffe_rows_cover_at_least_tukeys_on_the_same_data_sets():
    # on a balanced design every pair has one df, and at 3 and 8 agents Tukey's q / sqrt(2) < Sidak's t quantile <
    # Scheffe's sqrt(r F): each family holds wherever the narrower one does, so on the same data sets (rows of equal
    # n_sim, the same seeds) the coverages are ordered; an independent check of the appended rows against the grid's
    from rlstats.methods.mixed import _kernels

    for agents, df in ((3, 20.0), (8, 150.0)):
        m = agents * (agents - 1) // 2
        tukey = float(np.ravel(_kernels.tukey_quantiles(0.95, np.array([df]), agents))[0])
        sidak = stats.t.ppf(0.5 + 0.95 ** (1 / m) / 2, df)
        assert tukey < sidak < math.sqrt((agents - 1) * stats.f.ppf(0.95, agents - 1, df))
    rows = {}
    for r in calibration.rows("mixed.contrast"):
        rows[r["test"], r["interval"], r["agents"], r["tasks"], r["runs"], r["distribution"], r["configuration"]] = r
    compared = 0
    for (test, interval, *point), row in rows.items():
        if interval != "sidak":
            continue
        tukey, scheffe = rows[(test, "tukey", *point)], rows[(test, "scheffe", *point)]
        if tukey["n_sim"] == row["n_sim"] == scheffe["n_sim"]:
            assert float(tukey["coverage"]) <= float(row["coverage"]) <= float(scheffe["coverage"]), point
            compared += 1
    assert compared >= 150


def test_mixed_sidak_quotes_a_short_row(monkeypatch):
    rows = ({"procedure": "mixed.contrast", "test": "satterthwaite", "interval": "sidak", "agents": "3", "tasks": "5",
             "runs": "2", "distribution": "capped", "configuration": "spread 0 to 1", "level": "0.95", "n_sim": "600",
             "coverage": "0.9", "se": "0.0122"},)
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "mixed.contrast" else ())
    data = _balanced(3, 5, 2)
    note = ("measured coverage of the 95% Sidak simultaneous intervals with Satterthwaite's df at 3 agents, 5 tasks "
            "and 2 runs per cell: 0.900 (capped scores, agents 0 to 1 noise sd apart; 600 simulated data sets), below "
            "0.95 by more than 3 Monte Carlo standard errors")
    assert note in rlstats.mixed(data, adjust="sidak").notes
    for adjust in ("tukey", "scheffe", "holm"):
        assert not any("measured coverage" in n for n in rlstats.mixed(data, adjust=adjust).notes), adjust
