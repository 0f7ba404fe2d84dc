"""Audit s12 (curvessim): curves()' simultaneous and pointwise bands of the median (and of the IQM and the mean)
re-measured on fresh data sets at 10 and 26 tasks x 5, 10 and 20 runs (``tests/reference/coverage_curves_fresh.py``),
after audit s11 left the median's simultaneous band at 26 tasks x 10 runs at the 3-SE line (0.926 of 240 bands on
saturated curves); and the counts of a step's runs at the bounds read in one pass (``rlstats.bounds.tie_counts``).
"""

from __future__ import annotations

import math
import pathlib
import runpy

import numpy as np
import pytest

import rlstats
from conftest import rising_curves
from rlstats.bounds import tie_counts, ties_at_bounds
from rlstats.methods.curves import _api

from test_audit_s10_saturated import CAPPED_CAP, SATURATED_CAP


def test_tie_counts_are_the_two_counts_of_ties_at_bounds():
    """curves() counted a step's runs at the bounds twice for the median (``ties_at_bounds`` with and without
    ``tied_only``); ``tie_counts`` gives both from one pass, equal bit for bit (same values and dtype) on runs tied at
    both bounds, a task without ties and a bound one run reaches."""
    rng = np.random.default_rng(12)
    for n_tasks, n_agents, n in ((4, 3, 60), (1, 2, 5), (6, 5, 200)):
        task = np.sort(rng.integers(0, n_tasks, n))
        agent = rng.integers(0, n_agents, n)
        y = rng.integers(0, 4, n).astype(float)
        y[task == 0] = np.arange((task == 0).sum()) * 0.5  # no ties in task 0: the tied count is 0 there
        both = tie_counts(task, agent, y, n_tasks, n_agents)
        for got, tied_only in zip(both, (False, True)):
            expected = ties_at_bounds(task, agent, y, n_tasks, n_agents, tied_only=tied_only)[0]
            assert got.dtype == expected.dtype and np.array_equal(got, expected)
        assert (both[1][0] == 0).all() and both[0][0].sum() >= 1  # task 0: its largest and smallest, tied with none


def test_saturated_steps_unchanged_by_the_one_pass():
    """The steps curves() withholds (every statistic's three-quarters rule and the median's tied rule) read from
    ``tie_counts`` are those of the two calls it made before, on saturated, capped and continuous curves (the median's
    rule since audit s13 bootstrap()'s, ``median_tied_at_middle``, on task means taken here cell by cell)."""
    from rlstats.bounds import median_tied_at_middle, saturated_withheld

    def before(design, matrix, starts, statistic):  # the former loop, two counts per step
        task, agent = design.task[starts], design.agent[starts]
        shape = (design.n_tasks, design.n_agents * matrix.shape[1])
        at_bound, tied, counts, means = np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape)
        for s in range(matrix.shape[1]):
            logged = ~np.isnan(matrix[:, s])
            there = (task[logged], agent[logged], matrix[logged, s], design.n_tasks, design.n_agents)
            at_bound[:, s::matrix.shape[1]] = ties_at_bounds(*there)[0]
            if statistic == "median":
                tied[:, s::matrix.shape[1]] = ties_at_bounds(*there, tied_only=True)[0]
            cells = np.bincount(task[logged] * design.n_agents + agent[logged],
                                minlength=design.n_tasks * design.n_agents)
            counts[:, s::matrix.shape[1]] = cells.reshape(design.n_tasks, design.n_agents)
            for t, a in np.ndindex(design.n_tasks, design.n_agents):  # audit s13: the median's rule reads task means
                mine = logged & (task == t) & (agent == a)
                means[t, a * matrix.shape[1] + s] = matrix[mine, s].mean() if mine.any() else np.nan
        withheld = saturated_withheld(at_bound, counts, (statistic,))[:, 0]
        if statistic == "median":
            withheld |= median_tied_at_middle(tied, counts, means)
        return withheld.reshape(design.n_agents, matrix.shape[1])

    seen = []
    original = _api._saturated_steps

    def compare(*args):
        got = original(*args)
        assert np.array_equal(got, before(*args))
        seen.append(int(got.sum()))
        return got

    try:
        _api._saturated_steps = compare
        for cap, statistic in ((SATURATED_CAP, "median"), (SATURATED_CAP, "mean"), (CAPPED_CAP, "median"),
                               (None, "median")):
            rlstats.curves(rising_curves(cap, 2, runs=5, steps=6), "score ~ agent | task/seed", step="step",
                           statistic=statistic, n_resamples=20, rng=1, progress=False)
    finally:
        _api._saturated_steps = original
    # the median's 8 saturated agent-steps (audit s11), the mean's 3; B's last capped step (1 under the share alone)
    # is given since audit s13's finer rule (2 of 5 runs of its middle task tied)
    assert seen == [8, 3, 0, 0]


FRESH = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_curves_fresh.py"))


def test_simultaneous_band_holds_the_pointwise_band():
    """A band that holds the whole curve at 95% holds each step at 95%, so it cannot be narrower than the 95%
    pointwise band there; each default band is a hull with an expanded band (a symmetric sup-t band for the
    simultaneous one, the asymmetric percentile band for the pointwise one), and on saturated curves, where the
    median's and IQM's bands are given at a step or two, the simultaneous band was the narrower: here B's median at
    step 0 read -2.3303 to -1.9023 against the pointwise -2.3303 to -1.8952, the IQM's at step 4 -1.0455 to -1.0279
    (A) against -1.0464 to -1.0279. At 26 tasks x 10 runs of the grid's saturated curves (1,920 bands) the median's
    simultaneous band covered 0.930 (worst design draw 0.898), its pointwise band 0.955."""
    data = rising_curves(SATURATED_CAP, 2, runs=10, tasks=26, steps=6)
    for statistic in ("median", "iqm"):
        res = rlstats.curves(data, "score ~ agent | task/seed", step="step", statistic=statistic, n_resamples=200,
                             rng=1, progress=False)
        given = np.isfinite(res.simultaneous).all(axis=-1)
        assert given.sum() >= 4
        assert (res.simultaneous[given, 0] <= res.pointwise[given, 0]).all()
        assert (res.simultaneous[given, 1] >= res.pointwise[given, 1]).all()


def _fresh_rows(statistic, runs, tasks, distribution, **options):
    """The table rows (simultaneous, pointwise) of :mod:`coverage_curves_fresh` at one design, and its records, on
    today's streams: the rows were measured with the agents' streams at their places among their names, which audit
    s32 curves32 keyed by their labels (a stream a cell since audit s33): other resamples of the same data sets, whose
    coverage differs within its Monte Carlo error."""
    got = FRESH["measure"]((statistic,), runs, tasks, distribution, **options)[statistic]
    return {r["band"]: r for r in FRESH["rows"](statistic, runs, tasks, distribution, got)}, got


def _tabled(statistic, runs, tasks, distribution, band):
    from rlstats import calibration

    rows = [r for r in calibration.rows("curves.band") if (r["statistic"], int(r["runs"]), int(r["tasks"]),
            r["distribution"], r["agents"], r["band"], r["interval"])
            == (statistic, runs, tasks, distribution, str(FRESH["AGENTS"]), band, "studentized")]
    assert len(rows) == 1, "the table lacks this design of audit s12"
    return rows[0]


def test_audit_rows_of_the_table_hold():
    """The rows of this audit (8 agents; 1,920 bands a row over the grid's 4 design draws) hold 95% within 3 SE,
    pooled and in the worst draw, at every design measured (10 and 26 tasks x 5, 10 and 20 runs)."""
    from rlstats import calibration

    rows = [r for r in calibration.rows("curves.band") if r["agents"] == str(FRESH["AGENTS"])]
    assert rows and all(r["n_sim"] == "1920" and r["interval"] == "studentized" for r in rows)
    assert {("median", 26, 10, d) for d in FRESH["designs"].DISTRIBUTIONS} <= {
        (r["statistic"], int(r["tasks"]), int(r["runs"]), r["distribution"]) for r in rows}
    assert not [r for r in rows if calibration.misses(r, 0.95)]


@pytest.mark.slow
def test_median_band_of_saturated_curves_at_26_tasks_of_10_runs():
    """Audit s11's open design on fresh data sets (1,920 bands): the simultaneous band covered 0.930 (worst draw
    0.898), 0.955 (0.931) once it held the pointwise band, and 0.981 (0.971) with the median's skew widening too
    (pointwise 0.955, then 0.981 (0.970)).

    Session 33: those numbers were not measured again when curves() took bootstrap()'s rule for runs tied at a cap
    (commit 1148e804, rlstats.bounds.median_tied_at_middle), which gives the median's bands at more of these
    saturated steps (on 6 data sets of draw 3, 17-23 of 80 agent-steps against 8 before); the worst draw moved past
    this test's 2 bands (its parent commit gives the numbers pinned here before, 1148e804 pointwise 0.9818 (0.9627),
    simultaneous 0.9818 (0.9646)), and by a band again at commit 7dc07bce, where a spawned SeedSequence given as rng=
    (as the script passes) began to seed the run by an int drawn from it: other resamples. Then, per draw:
    simultaneous 0.998, 0.983, 0.975, 0.967, pointwise 0.997, 0.981, 0.984, 0.962 (before 1148e804: 0.996, 0.979,
    0.979, 0.971 and 0.995, 0.979, 0.979, 0.970), pooled 0.980729 (worst 0.966667) and 0.980773 (0.961632), on the
    agents' streams at their places among their names; on today's label-keyed cell streams (audit s32 curves32, s33
    curvestream33; re-pinned in audit s34) 0.982292 (0.970833) and 0.982552 (0.963889), 0.0016 and 0.0018
    higher: within one SD of a difference on independent resamples (sqrt(2) binomial SEs at 95%, 0.0070). The
    claim, coverage of 95% or more pooled and in the worst draw within 3 SE, holds; the numbers below are today's."""
    from rlstats import calibration

    rows, _ = _fresh_rows("median", 10, 26, "saturated")
    for band, (coverage, worst) in {"simultaneous": (0.982292, 0.970833), "pointwise": (0.982552, 0.963889)}.items():
        assert rows[band]["n_sim"] == 1920
        assert abs(rows[band]["coverage"] - coverage) <= 2 / 1920 and abs(rows[band]["coverage_min"] - worst) <= 2 / 480
        assert not calibration.misses({k: str(v) for k, v in rows[band].items()}, 0.95)


def _audit_points():
    from rlstats import calibration

    return sorted({(r["statistic"], int(r["runs"]), int(r["tasks"]), r["distribution"])
                   for r in calibration.rows("curves.band") if r["agents"] == str(FRESH["AGENTS"])})


@pytest.mark.slow
@pytest.mark.parametrize("point", _audit_points(), ids=lambda point: "-".join(map(str, point)))
def test_fresh_bands_full(point):
    """Each row of this audit re-measured: the same data sets on today's streams (other resamples than the row's, see
    _fresh_rows), so the same coverage within Monte Carlo error and the same verdict against 95%."""
    from rlstats import calibration

    rows, _ = _fresh_rows(*point)
    for band, row in rows.items():
        tabled = _tabled(*point, band)
        # two coverages of the same 1,920 data sets on independent resamples: their difference's SD is at most sqrt(2)
        # binomial SEs at 95% (less, the data sets being shared); 3 of them
        assert row["n_sim"] == 1920
        assert abs(row["coverage"] - float(tabled["coverage"])) <= 3 * math.sqrt(2 * 0.95 * 0.05 / 1920), (row, tabled)
        assert calibration.misses({k: str(v) for k, v in row.items()}, 0.95) == calibration.misses(tabled, 0.95)


def test_median_pointwise_band_on_skewed_runs_reduced():
    """The median's pointwise band at 10 tasks x 10 skewed runs covered 0.927 of 1,920 fresh bands (worst design
    draw 0.876, draw 1), its misses above the band: a middle task whose runs lack their rare large values, which
    bootstrap()'s median interval had shown at 5 tasks (audit s10). Here draw 1 on 32 fresh bands (4 data sets of
    8 agents; 96 until session 40, 0.890 and simultaneous 0.927 then): 0.859 (simultaneous 0.938) unwidened; widened
    on the side of the runs' skew (bootstrap()'s Cornish-Fisher term at each step), 0.972 (1.0). The full
    measurement: ``test_fresh_bands_full`` (-m slow)."""
    got = FRESH["measure"](("median",), 10, 10, "skewed", data_sets=4, draws=[1], seed=98)["median"]
    rows = {r["band"]: r for r in FRESH["rows"]("median", 10, 10, "skewed", got)}
    assert rows["pointwise"]["n_sim"] == 32 and rows["pointwise"]["coverage"] >= 0.95
    assert rows["simultaneous"]["coverage"] >= 0.95


def test_median_skewness_against_a_loop():
    """The median's skewness at each step (curves' widening), against a loop over steps with scipy's G1: tasks of
    2-6 runs, runs missing at some steps, an odd and an even number of tasks, a task whose runs tie."""
    from scipy import stats

    from rlstats.methods.curves import _kernels

    rng = np.random.default_rng(5)
    for n_tasks in (5, 6):
        task_of = np.sort(np.r_[np.arange(n_tasks), rng.integers(0, n_tasks, 4 * n_tasks)])
        values = rng.lognormal(0.0, 0.8, (task_of.size, 4)) + task_of[:, None]
        values[rng.random(values.shape) < 0.15] = np.nan
        values[task_of == 1, 2] = 3.0  # tied runs: no spread, no G1
        got = _kernels.median_skewness(values, task_of, n_tasks)
        for s in range(values.shape[1]):
            runs = [values[(task_of == t) & ~np.isnan(values[:, s]), s] for t in range(n_tasks)]
            g1 = [stats.skew(x, bias=False) for x in runs if x.size >= 3 and x.var() > 0]
            means = np.array([x.mean() for x in runs])
            middle = np.argsort(means, kind="stable")[(n_tasks - 1) // 2:n_tasks // 2 + 1]
            share = np.array([runs[t].var(ddof=1) / runs[t].size for t in middle])
            sizes = np.array([runs[t].size for t in middle])
            expected = np.mean(g1) * np.sum(share ** 1.5 / np.sqrt(sizes)) / share.sum() ** 1.5 if g1 else 0.0
            np.testing.assert_allclose(got[s], expected, rtol=1e-9, atol=1e-12)


def test_median_widening_is_free_of_units_and_row_order():
    """The median's skew widening reads shape ratios only: its bands scale with the scores and move with a shift
    (a location-free statistic's band), and the rows' order changes nothing, bit for bit."""
    rng = np.random.default_rng(8)
    data = rising_curves(None, 3, runs=6, tasks=5, steps=4)
    data["score"] = np.exp(0.8 * data["score"] + rng.normal(0, 0.5, len(data)))  # right-skewed runs
    options = dict(step="step", statistic="median", n_resamples=100, rng=4, progress=False)
    base = rlstats.curves(data, "score ~ agent | task/seed", **options)
    moved = data.assign(score=1000.0 * data["score"] + 7.0)
    scaled = rlstats.curves(moved, "score ~ agent | task/seed", **options)
    np.testing.assert_allclose(scaled.pointwise, 1000.0 * base.pointwise + 7.0, rtol=1e-9)
    np.testing.assert_allclose(scaled.simultaneous, 1000.0 * base.simultaneous + 7.0, rtol=1e-9)
    shuffled = rlstats.curves(data.sample(frac=1.0, random_state=2), "score ~ agent | task/seed", **options)
    np.testing.assert_array_equal(shuffled.pointwise, base.pointwise)
    np.testing.assert_array_equal(shuffled.simultaneous, base.simultaneous)
    assert any("widened on the side of the runs' skew" in n for n in base.notes)
