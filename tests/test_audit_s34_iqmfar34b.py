"""Audit s34 (iqmfar34b): data whose tasks lie apart are told the far-apart rows' coverage of the IQM's defaults.

Audit s34 iqmfar34 measured the IQM's default intervals and bands on 3 tasks far apart (offsets 0, 3, 12 and scales
0.3, 0.6, 3 in noise units; ``tests/reference/coverage_far_apart.py``, the rows of ``calibration.FAR_APART``): the
bootstrap's interval covered 0.75-0.91, the curves' bands 0.84-0.92 where they miss, the mean's held; no note read
those rows, so such data got intervals the package knew to miss, silently (the grid's note said 0.93 to 0.97).

The rule (``calibration.tasks_apart``): an agent's tasks' runs lie apart where 3 tasks have runs (3 or more until
review s34 rtfix34b: 4 and 5 tasks apart hold, tests/test_audit_s34_rtfix34b.py) and their
ranges are pairwise disjoint, so that the pooled IQM's trim of floor(N / 4) runs from each end cuts within the outer
tasks alone. Measured on 4,000 data sets each (the helper's script): the far-apart design's 98.5-99.7% at 3 and 5
runs; the grid's 5- and 26-task designs (offsets uniform on [0, 2], scales lognormal) at most 0.1% at 3-5 runs
(none since the rule reads exactly 3 tasks); 3 tasks drawn as the grid draws them (a design the grid does not simulate)
0.5-6.7%. The test below re-measures it on 2,000 data sets a design: 0.983-0.9955, none, 0.001-0.04. There bootstrap() (so compare(method="bootstrap")), task_table()'s
aggregate row and curves(statistic="iqm") quote the far-apart rows at the runs read (3 or 5; beyond 5 nothing) and the
mean's on that design, which hold.
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np

import rlstats

REFERENCE = pathlib.Path(__file__).parent / "reference"
FAR = runpy.run_path(str(REFERENCE / "coverage_far_apart.py"))


def _far_data(runs, agents=2, seed=0, distribution="normal"):
    """Final scores of ``agents`` alike agents on the far-apart design, as coverage_far_apart.measure draws them."""
    designs = FAR["designs"]
    offset, scale = FAR["FAR"]
    rng = np.random.default_rng(seed)
    deviation = designs.deviations(rng, distribution, (agents, offset.size, runs))
    scores = designs.scores(distribution, deviation, 0.0, offset[None, :, None], scale[None, :, None])
    return FAR["_frame"](scores)


def test_far_apart_data_told_the_iqm_misses():
    """5 runs: the far-apart rows' 0.85-0.87 and the mean's 0.94-0.97, in place of the grid's 0.93-0.97 (every agent's
    tasks apart); 3 runs: 0.75-0.91."""
    for runs, quoted in ((5, "0.85 to 0.87"), (3, "0.75 to 0.91")):
        res = rlstats.bootstrap(_far_data(runs), "score ~ agent | task", metrics=("iqm",), n_resamples=100,
                                normalize=False, rng=0)
        (note,) = res.notes
        assert note.startswith("the 3 tasks' runs lie apart") and f"with {runs} runs per task" in note
        assert f"intervals of the IQM covered {quoted} on 3 tasks far apart" in note
        # audit s35 (farapart35): the mean's on that design in brackets, and the rows of runs apart by chance beside
        assert "on 3 tasks far apart (the mean's, metrics=(\"mean\",), 0.94 to 0.97) and " in note
        assert note.endswith("whose runs lay apart by chance (the mean's 0.65 to 0.78)" if runs == 5
                             else "whose runs lay apart by chance (the mean's 0.80 to 0.91)")


def test_rule_statistic_on_grid_and_far_apart_designs():
    """The share of data sets (final scores, 2,000 each, normal and capped, 3 and 5 runs) whose tasks' runs lie apart:
    the far-apart design's 0.983 to 0.996, the grid's 5- and 26-task designs' none (exactly 3 tasks are read), 3
    tasks drawn as the grid draws them 0.001 to 0.04 (not simulated by the grid; the 2-task designs are not read)."""
    from rlstats import calibration

    designs = FAR["designs"]
    rng = np.random.default_rng(7)

    def share(offset, scale, runs, distribution, n=2000):
        deviation = designs.deviations(rng, distribution, (n, offset.shape[-1], runs))
        scores = designs.scores(distribution, deviation, 0.0, offset[..., None], scale[..., None])
        return calibration.tasks_apart(scores.min(axis=-1), scores.max(axis=-1)).mean()

    def grid_share(tasks, runs, distribution, draws=20):
        return np.mean([share(*designs.design_draw(d, tasks), runs, distribution, 2000 // draws) for d in range(draws)])

    offset, scale = FAR["FAR"]
    found = {}
    for runs in (3, 5):
        for distribution in ("normal", "capped"):
            found[runs, distribution] = [share(offset, scale, runs, distribution), grid_share(5, runs, distribution),
                                         grid_share(26, runs, distribution), grid_share(3, runs, distribution)]
    # (far apart, grid 5 tasks, grid 26 tasks, 3 tasks drawn as the grid's), each of 2,000 data sets
    assert {k: [round(float(x), 4) for x in v] for k, v in found.items()} == {
        (3, "normal"): [0.991, 0.0, 0.0, 0.0175], (3, "capped"): [0.9955, 0.0, 0.0, 0.04],
        (5, "normal"): [0.983, 0.0, 0.0, 0.001], (5, "capped"): [0.993, 0.0, 0.0, 0.003]}
    assert not calibration.tasks_apart([[0.0, 5.0]], [[1.0, 6.0]]).any()  # 2 tasks apart: not read


def test_some_agents_apart_named_beside_the_grid_note():
    data = _far_data(5)
    data.loc[(data.agent == "a01") & (data.task == "t01"), "score"] += 9.5  # a01's middle task into its top one
    res = rlstats.bootstrap(data, "score ~ agent | task", metrics=("iqm",), n_resamples=100, normalize=False, rng=0)
    grid, far = res.notes
    assert grid.startswith("5 runs per task are few for studentized intervals of the IQM") and "0.93 to 0.97" in grid
    assert far.startswith("the 3 tasks' runs (of a00) lie apart") and "covered 0.85 to 0.87" in far


def test_compare_and_task_table_aggregate_say_it():
    data = _far_data(3)
    res = rlstats.compare(data, "score ~ agent | task", method="bootstrap", metrics=("iqm",), n_resamples=100,
                          normalize=False, rng=0)
    assert any("lie apart" in n and "covered 0.75 to 0.91" in n for n in res.notes)
    table = rlstats.compare(data, "score ~ agent | task", method="task_table", aggregate="bootstrap", statistic="iqm",
                            normalize=False, rng=0)
    (note,) = [n for n in table.notes if "lie apart" in n]
    assert note.startswith("the aggregate row's intervals, from rlstats.bootstrap()") and "0.75 to 0.91" in note


def test_curves_iqm_bands_quote_the_far_apart_rows():
    """3 normal runs: the bands' rows 0.843 (simultaneous) and 0.878 (pointwise), both capped, the mean's 0.960 and
    0.940; the figure's title reads the lower; 10 runs (beyond the rows): that they are beyond (audit s36)."""
    offset, scale = FAR["FAR"]
    data = FAR["BANDS"]["simulate"](2, 3, "normal", offset, scale, np.random.default_rng(0))
    res = rlstats.curves(data, "score ~ agent | task/seed", step="step", statistic="iqm", n_resamples=100,
                         normalize=False, rng=0, progress=False)
    simultaneous, pointwise = [n for n in res.notes if "lie apart" in n]
    assert "simultaneous band of the IQM at the simulated design of tasks far apart (3 runs per task" in simultaneous
    # audit s35 apart35: beside them the rows of runs apart by chance, and the mean's there (tests/test_audit_s35_apart35)
    assert '0.843 (capped scores' in simultaneous and 'the mean\'s (statistic="mean") 0.960 there; and at' in simultaneous
    assert '0.878 (capped scores' in pointwise and 'the mean\'s (statistic="mean") 0.940 there; and at' in pointwise
    for runs, statistic in ((10, "iqm"),):  # (the mean's now has a note there: its rows by chance miss, apart35)
        data = FAR["BANDS"]["simulate"](1, runs, "normal", offset, scale, np.random.default_rng(0))
        res = rlstats.curves(data, "score ~ agent | task/seed", step="step", statistic=statistic, n_resamples=50,
                             normalize=False, rng=0, progress=False)
        # audit s36 former36: beyond the rows' runs, said so (nothing was said, the grid's rows read alone)
        assert [n for n in res.notes if "lie apart" in n] == [
            "the 3 tasks' runs lie apart (each task's all below or all above every other's): 10 runs per task is "
            "beyond those measured on such data for the bands of the IQM, 3 and 5 on 3 tasks far apart and 3 and 5 on "
            "3 tasks whose scores overlap (offsets and scales drawn as the grid's) and whose runs lay apart by chance, "
            "so their coverage there is not measured"]


def test_tasks_apart_against_pairwise_disjoint_ranges_by_brute_force():
    """calibration.tasks_apart against its definition checked pair by pair, on 3,000 random sets of 2-6 tasks' ranges
    (integer ends, so ranges touch and nest; some tasks without runs, NaN or infinite): the ranges of the tasks with
    runs pairwise disjoint (touching is not apart), and exactly 3 such tasks (calibration.APART_TASKS: 3 or more
    until review s34 rtfix34b, which measured 4 and 5 tasks apart holding). Touching ranges are not apart."""
    from rlstats import calibration

    assert calibration.APART_TASKS == 3
    doc = " ".join(calibration.tasks_apart.__doc__.split())
    assert "True where exactly :data:`APART_TASKS` (3) tasks have runs" in doc, doc
    rng = np.random.default_rng(11)
    checked = {True: 0, False: 0}
    for _ in range(3000):
        tasks = int(rng.integers(2, 7))
        low = rng.integers(0, 30, tasks).astype(float)
        high = low + rng.integers(0, 6, tasks)
        empty = rng.random(tasks) < 0.15
        low[empty] = rng.choice([np.nan, np.inf, -np.inf], empty.sum())
        ran = [t for t in range(tasks) if np.isfinite(low[t]) and np.isfinite(high[t])]
        disjoint = all(high[i] < low[j] or high[j] < low[i] for i in ran for j in ran if i < j)
        expected = disjoint and len(ran) == 3
        assert bool(calibration.tasks_apart(low, high)) == expected, (low, high)
        checked[expected] += 1
    assert checked[True] > 200 and checked[False] > 200, checked
