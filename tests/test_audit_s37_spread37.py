"""Audit s37 (spread37): mixed()'s note of agents whose runs differ in spread fired on agents of one run spread in
8.7-46% of data sets of skewed scores (audit s36 rv36c's own measurement; 2.2-52% on this audit's data sets at 3 runs,
46% at 4 agents x 5 tasks x 5 runs): its test, Hartley's F-max of the agents' run SDs under normal runs, is a
variance-ratio test of normal theory, which skewed or heavy-tailed runs break. The note now asks Levene's test about
the cells' medians, tasks as blocks (``_api.spread_levene``), measured by ``tests/reference/mixed_spread_trigger.py``.
"""

from __future__ import annotations

import json
import pathlib
import runpy
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats.design import design_of
from rlstats.methods.mixed import _api

REFERENCE = pathlib.Path(__file__).resolve().parent / "reference"
F = "score ~ agent | task/seed"


def _script():
    return runpy.run_path(str(REFERENCE / "mixed_spread_trigger.py"))


# 1. the statistic against independent values


@pytest.mark.parametrize("runs, sds", [((2, 3), (1, 3)), ((3, 3, 3), (1, 1, 2)), ((4, 5, 6, 7), (1, 2, 1, 3)),
                                       ((10, 10), (1, 1)), ((3, 8, 5, 2, 9), (2, 1, 1, 4, 1))])
def test_one_task_with_every_deviation_is_scipys_levene_about_medians(runs, sds):
    rng = np.random.default_rng(sum(runs))
    agent = np.repeat(np.arange(len(runs)), runs)
    y = rng.standard_normal(agent.size) * np.asarray(sds, dtype=float)[agent] + 3.0
    order = rng.permutation(y.size)  # the rows in any order
    f, df1, df2, p = _api.spread_levene(y[order], np.zeros(y.size, dtype=int), agent[order], 1, len(runs),
                                        drop_middle=False)
    expected = stats.levene(*[y[agent == a] for a in range(len(runs))], center="median")
    assert (df1, df2) == (len(runs) - 1, y.size - len(runs))
    assert f == pytest.approx(expected.statistic, rel=1e-12) and p == pytest.approx(expected.pvalue, rel=1e-12)


def _deviations_by_hand(y, task, agent):
    """Each run's |y - its cell's median| with one a cell dropped (the median's own run, odd; the upper middle one,
    even), each task's over their mean: a loop over cells, written apart from the kernel."""
    kept_z, kept_task, kept_agent = [], [], []
    for t in np.unique(task):
        z_t, a_t = [], []
        for a in np.unique(agent[task == t]):
            runs = np.sort(y[(task == t) & (agent == a)])
            n = runs.size
            deviations = np.abs(runs - np.median(runs))
            z_t += list(np.delete(deviations, n // 2))
            a_t += [a] * (n - 1)
        z_t = np.asarray(z_t)
        if z_t.sum() > 0:
            kept_z += list(z_t / z_t.mean())
            kept_task += [t] * len(a_t)
            kept_agent += a_t
    return np.asarray(kept_z), np.asarray(kept_task), np.asarray(kept_agent)


def _agents_f_by_least_squares(z, task, agent):
    """The agents' F after the tasks: two nested least-squares fits on indicator columns."""
    tasks, agents = np.unique(task), np.unique(agent)
    blocks = (task[:, None] == tasks[None, :]).astype(float)
    full = np.hstack([blocks, (agent[:, None] == agents[None, 1:]).astype(float)])

    def rss(x):
        fitted = x @ np.linalg.lstsq(x, z, rcond=None)[0]
        return float(((z - fitted) ** 2).sum()), int(np.linalg.matrix_rank(x))

    (rss0, rank0), (rss1, rank1) = rss(blocks), rss(full)
    df1, df2 = rank1 - rank0, z.size - rank1
    f = ((rss0 - rss1) / df1) / (rss1 / df2)
    return f, df1, df2, stats.f.sf(f, df1, df2)


def test_blocked_statistic_against_least_squares_on_an_unbalanced_design():
    rng = np.random.default_rng(37)
    counts = rng.integers(1, 7, (6, 4))
    counts[2, 1] = 0  # an empty cell
    task = np.repeat(np.repeat(np.arange(6), 4), counts.ravel())
    agent = np.repeat(np.tile(np.arange(4), 6), counts.ravel())
    y = rng.lognormal(0, 0.8, task.size) * np.array([1.0, 1.0, 1.5, 3.0])[agent] * (1 + task)
    got = _api.spread_levene(y, task, agent, 6, 4)
    want = _agents_f_by_least_squares(*_deviations_by_hand(y, task, agent))
    assert np.allclose(got, want, rtol=1e-10, atol=0), (got, want)
    # one task, a cell of odd runs: the median's own 0 dropped, then Levene's F (scipy's one-way F of the deviations)
    one = task == 0
    z, _, a = _deviations_by_hand(y[one], task[one], agent[one])
    f, _, _, p = _api.spread_levene(y[one], task[one], agent[one], 1, 4)
    expected = stats.f_oneway(*[z[a == k] for k in np.unique(a)])
    assert (f, p) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    # review s37 rv37a (fixa37): cells of one run carry no deviation, and the information matrix's null eigenvalue
    # came out 6.7e-16, counted by matrix_rank and not by pinv: df1 2 for 2 agents (F 0.110, p 0.897 against
    # least squares' df1 1, F 0.248, p 0.630); the rank is now the design's graph's, exactly
    counts = np.array([[5, 1], [2, 3], [6, 1], [3, 1]])
    task = np.repeat(np.repeat(np.arange(4), 2), counts.ravel())
    agent = np.repeat(np.tile(np.arange(2), 4), counts.ravel())
    for seed in range(5):
        y = np.random.default_rng(seed).gamma(2.0, size=task.size)
        got = _api.spread_levene(y[None], task, agent, 4, 2)
        want = _agents_f_by_least_squares(*_deviations_by_hand(y, task, agent))
        assert want[1] == 1 and np.allclose(np.ravel(got), want, rtol=1e-10, atol=0), (seed, got, want)


def test_the_agents_df_is_the_designs_connected_agents_less_its_components():
    # two tasks share no agent: 4 agents in 2 connected sets, df1 2; a third task joining them makes it 3
    rng = np.random.default_rng(4)
    cells = np.array([[3, 3, 0, 0], [0, 0, 4, 2], [0, 0, 0, 0]])
    for extra, df1 in ((None, 2), ((2, 1, 3), 3)):
        c = cells.copy()
        if extra:
            c[extra[0], extra[1]] = c[extra[0], 2] = extra[2]
        task = np.repeat(np.repeat(np.arange(3), 4), c.ravel())
        agent = np.repeat(np.tile(np.arange(4), 3), c.ravel())
        y = rng.gamma(2.0, size=task.size)
        got = _api.spread_levene(y, task, agent, 3, 4)
        want = _agents_f_by_least_squares(*_deviations_by_hand(y, task, agent))
        assert got[1] == df1 == want[1] and np.allclose(got, want, rtol=1e-10, atol=0), (got, want)


def test_the_statistic_ignores_each_tasks_units_the_row_order_and_takes_data_sets_as_rows():
    rng = np.random.default_rng(1)
    task = np.repeat(np.arange(5), 12)
    agent = np.tile(np.repeat(np.arange(4), 3), 5)
    y = rng.standard_t(3, (3, task.size)) * np.array([1.0, 1.0, 1.0, 4.0])[agent]
    rows = _api.spread_levene(y, task, agent, 5, 4)
    one_by_one = np.array([_api.spread_levene(row, task, agent, 5, 4) for row in y]).T
    assert np.allclose(np.array(rows), one_by_one, rtol=1e-13, atol=0)
    rescaled = y * np.array([1e-6, 1.0, 3.0, 1e4, 7.0])[task] - np.array([1.0, 2e5, 0.0, -3.0, 1e3])[task]
    order = rng.permutation(task.size)
    moved = _api.spread_levene(rescaled[:, order], task[order], agent[order], 5, 4)
    assert np.allclose(np.array(moved), np.array(rows), rtol=1e-8, atol=0)


def test_an_agent_left_out_is_its_rows_dropped_and_constant_tasks_carry_nothing():
    rng = np.random.default_rng(2)
    task = np.repeat(np.arange(3), 15)
    agent = np.tile(np.repeat(np.arange(3), 5), 3)
    y = rng.standard_normal(task.size)
    left_out = _api.spread_levene(y, task, agent, 3, 3, use=np.array([True, False, True]))
    keep = agent != 1
    dropped = _api.spread_levene(y[keep], task[keep], np.where(agent[keep] == 2, 1, 0), 3, 2)
    assert np.allclose(left_out, dropped, rtol=1e-12)
    # a task whose runs are all equal adds no deviations and no block
    flat = np.where(task == 1, 5.0, y)
    others = task != 1
    assert np.allclose(_api.spread_levene(flat, task, agent, 3, 3),
                       _api.spread_levene(y[others], np.where(task[others] == 2, 1, 0), agent[others], 2, 3),
                       rtol=1e-12)


# 2. the script measures the package's trigger


def _frame(cells, y):
    tasks, agents = cells.shape
    task = np.repeat(np.repeat(np.arange(tasks), agents), cells.ravel())
    agent = np.repeat(np.tile(np.arange(agents), tasks), cells.ravel())
    seed = np.concatenate([np.arange(n) for n in cells.ravel()])
    return pd.DataFrame({"agent": [f"a{a}" for a in agent], "task": [f"t{t:02d}" for t in task], "seed": seed,
                         "score": y})


def test_the_scripts_trigger_is_the_notes():
    script = _script()
    for sds, cells in (((1.0, 1.0, 1.0, 4.0), script["counts"](4, 5, 3)), ((1.0,) * 4, script["counts"](4, 5, 1, 5)),
                       ((1.0, 2.0, 1.0), script["counts"](3, 4, 2, 4))):
        rng = np.random.default_rng(len(sds) + cells.size)
        y = script["simulate"]("skewed", sds, cells, 12, rng, 0)
        ratio, used = script["sd_ratios"](y, cells)
        task, agent = script["codes"](cells)
        p = _api.spread_levene(y, task, agent, *cells.shape, use=used)[3]
        for i in range(y.shape[0]):
            design = design_of(_frame(cells, y[i]), F)
            assert _api.run_sd_ratio(design) == pytest.approx(ratio[i], rel=1e-12, nan_ok=True)
            assert _api.run_spread_test(design)[3] == pytest.approx(p[i], rel=1e-9)
    # the note fires where both hold (1/1/1/4 at 5 tasks x 3 runs: the rows there miss)
    cells = script["counts"](4, 5, 3)
    y = script["simulate"]("skewed", (1.0, 1.0, 1.0, 4.0), cells, 6, np.random.default_rng(3), 0)
    ratio, used = script["sd_ratios"](y, cells)
    p = _api.spread_levene(y, *script["codes"](cells), 5, 4, use=used)[3]
    fires = (ratio >= _api.RUN_SD_RATIO) & (p < _api.RUN_SD_LEVEL)
    assert 0 < fires.sum() < fires.size
    for i in range(y.shape[0]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            notes = rlstats.mixed(_frame(cells, y[i]), F).notes
        assert any("Levene's test of equal spreads" in n for n in notes) == bool(fires[i])


# 3. the rates measured

#: --quick's rows (400 data sets a design of one spread, 200 of 1/1/1/4): (fired, test alone, ratio alone)
QUICK = {("normal", "1/1/1/1", 5, "3"): (0.02, 0.025, 0.305),
         ("normal", "1/1/1/1/1/1/1/1", 26, "3"): (0.0, 0.0075, 0.0275),
         ("normal", "1/1", 1, "5"): (0.0275, 0.03, 0.2025),
         ("skewed", "1/1/1/1", 5, "3"): (0.05, 0.05, 0.76),
         ("skewed", "1/1/1/1/1/1/1/1", 26, "3"): (0.035, 0.0375, 0.6675),
         ("skewed", "1/1", 1, "5"): (0.035, 0.035, 0.435),
         ("heavy_tailed", "1/1/1/1", 5, "3"): (0.0575, 0.06, 0.56),
         ("heavy_tailed", "1/1/1/1/1/1/1/1", 26, "3"): (0.03, 0.0475, 0.505),
         ("heavy_tailed", "1/1", 1, "5"): (0.025, 0.025, 0.3575),
         ("capped", "1/1/1/1", 5, "3"): (0.01, 0.01, 0.3175),
         ("capped", "1/1/1/1/1/1/1/1", 26, "3"): (0.01, 0.03, 0.0825),
         ("capped", "1/1", 1, "5"): (0.04, 0.05, 0.2725),
         # the rows' design where they miss: one agent's runs 4 times as spread as three others'
         ("normal", "1/1/1/4", 5, "3"): (0.945, 0.945, 1.0),
         ("skewed", "1/1/1/4", 5, "3"): (0.79, 0.79, 0.99)}


def test_the_trigger_rates_reduced():
    rows = _script()["measure"](quick=True)
    got = {(r["distribution"], r["sds"], r["tasks"], r["runs"]): (r["fired"], r["test"], r["ratio"]) for r in rows}
    assert got == QUICK
    equal = [v[0] for k, v in got.items() if set(k[1].split("/")) == {"1"}]
    assert max(equal) <= _api.RUN_SD_EQUAL_FIRES


@pytest.mark.slow
def test_the_trigger_rates_of_the_whole_grid_reproduce_the_stored_ones():
    """The script's whole grid (about 2 minutes at one job): its rows are the stored JSON's, the note's quoted rate
    is the highest over agents of one spread, and it fires at the rows' 1/1/1/4 design as the docs say."""
    rows = _script()["measure"]()
    stored = json.loads((REFERENCE / "mixed_spread_trigger.json").read_text())
    assert rows == stored
    equal = [r for r in rows if set(r["sds"].split("/")) == {"1"}]
    grid = [r for r in equal if r["runs"] in ("3", "5", "10")]
    assert len(grid) == 4 * 5 * 3 * 3 and len(equal) == len(grid) + 4 * 7
    assert max(r["fired"] for r in equal) == _api.RUN_SD_EQUAL_FIRES
    assert max(r["fired"] for r in grid) == 0.055 and max(r["test"] for r in grid) == 0.06
    assert max(r["fired"] for r in grid if r["distribution"] == "normal") == 0.0385
    one_of_four = {(r["distribution"], r["tasks"], r["runs"]): r["fired"] for r in rows if r["sds"] == "1/1/1/4"}
    assert [one_of_four[("normal", t, r)] for t, r in ((5, "3"), (5, "5"), (10, "3"))] == [0.924, 0.999, 0.997]
    assert [one_of_four[("skewed", t, r)] for t, r in ((5, "3"), (5, "5"), (10, "3"))] == [0.759, 0.966, 0.961]
