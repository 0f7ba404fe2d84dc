"""Audit s28 (gapboot28): bootstrap()'s default interval of the optimality gap where every score of an agent is at or
below gamma while its true scores cross gamma.

Found: there the gap takes the mean's interval reflected (``_small_runs.interval_kinds``), whose rows in the table
measure a truth below gamma; gapkinds28 measured curves()' bands of such agents into the table and its notes, and the
bootstrap's interval only beside it (0.928 of 304 agents at 2 tasks x 5 skewed runs), with no rows and no note.

Measured (``tests/reference/coverage_bootstrap_gap.py``: 1, 2, 5, 10 tasks x 3, 5, 10, 20 runs, one task from 20;
normal, skewed, capped; gamma at the 1 - 1/(2n) quantile, just below the top ceiling on capped runs; 400 agents a
row whose every score is at or below gamma, four design draws, 500 resamples): normal and skewed hold (0.933-0.990
pooled; skewed 1 task x 20 runs misses in its worst draw, 0.86 of 100); capped runs miss at 10 and 20 runs (0.525 on
one task x 20, 0.723-0.925 elsewhere; audit s35 former35 re-measured the 39 rows on today's streams), where staying below the ceiling is rare ((2/3)^runs) and leaves the lower two
thirds of the top task. The gap's own studentised interval covered less at each of those misses, and the mean's of
the true mean exactly as much: the default is kept.

Changed: the 39 rows are in the table (``configuration`` ``calibration.GAP_BELOW_GAMMA``, now the one name both back
ends read; default rows), registered in ``calibrate.APPENDED`` (and left out of ``coverage_one_task.py``'s own), left
out of the rows the gap's own and the mean's notes read, and quoted by a note of their own
(``_small_runs.coverage_note(below_gamma=True)``) for the agents whose gap takes the mean's interval, at the fewest runs
among them (curves()' rule, gapkinds28).
"""

import csv
import functools
import math
import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration
from rlstats.methods.bootstrap import _small_runs as small_runs

ROOT = pathlib.Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "reference"
BELOW = "every score at or below gamma"
NOTE = ("are few for studentized intervals of the optimality gap of an agent whose every score is at or below gamma, "
        "where its true scores can exceed gamma")


@functools.lru_cache(maxsize=1)
def _bootstrap_csv():
    """The package table's bootstrap.interval rows, read with the csv module (not through rlstats.calibration)."""
    with open(ROOT / "rlstats" / "calibration.csv", newline="") as handle:
        return tuple(r for r in csv.DictReader(handle) if r["procedure"] == "bootstrap.interval")


def _csv_rows(**match):
    """The table's bootstrap.interval rows matching ``match`` (each column's text is the value's)."""
    return [r for r in _bootstrap_csv() if all(r[k] == str(v) for k, v in match.items())]


def _below_frame(rng, runs, tasks, agents):
    """Long frame of left-skewed scores at most 0.95 (every score below gamma = 1): {agent: runs per task}."""
    rows = [{"agent": a, "task": f"t{t}", "seed": r, "score": 0.95 - rng.lognormal(-1.0, 0.6)}
            for a, n in agents.items() for t in range(tasks) for r in range(n)]
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------------ the rows

def test_rows_written_for_the_grid():
    """39 rows: every (runs, tasks, distribution) of the grid but one task below 20 runs, 400 agents each, default
    interval of the gap, the one configuration; the shortfalls are the 7 capped rows at 10 and 20 runs and skewed one
    task x 20 runs in its worst draw (read from the csv, judged by the 3-SE rule written out here)."""
    rows = _csv_rows(configuration=BELOW)
    points = {(int(r["runs"]), int(r["tasks"]), r["distribution"]) for r in rows}
    assert points == {(n, t, d) for n in (3, 5, 10, 20) for t in (1, 2, 5, 10) for d in ("normal", "skewed", "capped")
                      if t > 1 or n >= 20} and len(rows) == 39
    assert {(r["interval"], r["metric"], r["n_sim"], r["design_draws"]) for r in rows} == {
        ("studentized", "optimality_gap", "400", "4")}

    def misses(r):
        return (float(r["coverage"]) < 0.95 - 3 * math.sqrt(0.95 * 0.05 / 400)
                or float(r["coverage_min"]) < 0.95 - 3 * math.sqrt(0.95 * 0.05 / 100))

    missed = {(int(r["runs"]), int(r["tasks"]), r["distribution"]) for r in rows if misses(r)}
    assert missed == {(20, 1, "skewed"), (20, 1, "capped"), *((n, t, "capped") for n in (10, 20) for t in (2, 5, 10))}
    assert [calibration.misses(r, 0.95) for r in rows] == [misses(r) for r in rows]
    # the default's rows (calibration.DEFAULTS), the one name curves' rows use too
    table = rlstats.calibration_table("bootstrap.interval", configuration=BELOW)
    assert len(table) == 39 and table["default"].all()
    assert {r["configuration"] for r in calibration.rows("curves.band") if r["statistic"] == "optimality_gap"} == {
        calibration.GAP_BELOW_GAMMA}


def test_registered_and_kept_apart_from_the_one_task_rows():
    """calibrate.py keeps them when the procedure is re-measured (APPENDED), and coverage_one_task.py's rewrite of its
    own one-task rows does not claim the 3 one-task rows."""
    calibrate = runpy.run_path(str(REFERENCE / "calibrate.py"))
    # (audit s34 iqmfar34 appended coverage_far_apart.py, the default on 3 tasks far apart)
    assert calibrate["appended_scripts"]("bootstrap.interval")[:2] == ("coverage_one_task", "coverage_bootstrap_gap")
    mine = runpy.run_path(str(REFERENCE / "coverage_bootstrap_gap.py"))["appended"]
    one_task = _csv_rows(configuration=BELOW, tasks=1)
    assert len(one_task) == 3 and all(map(mine, one_task))
    text = (REFERENCE / "coverage_one_task.py").read_text(encoding="utf-8")
    assert 'row.get("configuration", "") != calibration.GAP_BELOW_GAMMA' in text


def test_default_call_below_gamma_names_the_families_that_miss():
    """Scores scaled into [0, 1] by hand (no normaliser's record, no bounds=: a true score may exceed gamma = 1) sit
    at or below gamma, so every agent's gap takes the mean's interval; from 10 runs the note quotes the rows below
    gamma, whose misses are of capped scores (and of skewed ones on one task x 20 runs, in a draw): one task x 20 runs
    names both. (Audit s29 minmax29: with normalize="minmax", whose 1 is each task's largest score by construction,
    the note gives way to the mean's coverage, ``tests/test_audit_s29_minmax29.py``; this test used that call.)"""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = rlstats.datasets.simulate(agents=2, tasks=1, seeds=20, effect=0.5, rng=0)
        df = df.assign(score=(df["score"] - df["score"].min()) / (df["score"].max() - df["score"].min()))
        res = rlstats.bootstrap(df, "score ~ agent | task", normalize=False, n_resamples=100, rng=0, progress=False)
    (said,) = [n for n in res.notes if NOTE in n]
    rows = _csv_rows(configuration=BELOW, tasks=1, runs=20)
    low, high = (min(float(r["coverage"]) for r in rows), max(float(r["coverage"]) for r in rows))
    assert f"of one task with 20 runs per task, nominal 95% intervals covered {low:.2f} to {high:.2f}, short of " \
           "95% on capped and skewed scores only" in said


def test_other_reads_leave_them_out():
    """The gap's own rows (agents with a score above gamma) and the mean's, which the other notes quote, are the
    rows of empty configuration: at 2 tasks x 10 runs the gap's own read 0.939-0.965 (normal, skewed, heavy-tailed,
    capped rows of the grid), not the capped 0.898 of agents below gamma."""
    own = [r for r in _csv_rows(interval="studentized", metric="optimality_gap",
                                tasks=2, runs=10) if r["configuration"] == ""]
    expected = (min(float(r["coverage"]) for r in own), max(float(r["coverage"]) for r in own))
    assert small_runs.measured_coverage("studentized", "optimality_gap", tasks=2)[10] == expected
    below = _csv_rows(configuration=BELOW, tasks=2, runs=10)
    assert small_runs.measured_coverage("studentized", "optimality_gap", tasks=2, below_gamma=True)[10] == (
        min(float(r["coverage"]) for r in below), max(float(r["coverage"]) for r in below))
    assert small_runs.measured_coverage("studentized", "mean", tasks=2, below_gamma=True) == {}


# ------------------------------------------------------------------------------------------------ the notes

def test_note_quotes_the_rows_of_the_agents_below_gamma():
    """2 tasks: A and B (10 runs, every score below gamma = 1) take the mean's interval; C (20 runs) has scores above
    gamma. The note names A and B and quotes the 2-task rows at 10 runs (0.90 to 0.96 from the csv; only the capped
    row misses, and the note says so), and the rows at 20 runs that still miss (capped, worst draw 0.64); at 5 runs,
    where those rows hold, there is no such note."""
    rng = np.random.default_rng(3)
    df = _below_frame(rng, 10, 2, {"A": 10, "B": 10})
    above = _below_frame(rng, 20, 2, {"C": 20})
    df = pd.concat([df, above.assign(score=above["score"] + 0.6)], ignore_index=True)
    res = rlstats.bootstrap(df, "score ~ agent | task", metrics=("mean", "optimality_gap"), gamma=1.0,
                            n_resamples=100, rng=1, normalize=False, progress=False)
    assert res.gap_as_mean.tolist() == [True, True, False]
    said = [n for n in res.notes if NOTE in n]
    rows = _csv_rows(configuration=BELOW, tasks=2, runs=10)
    low, high = (min(float(r["coverage"]) for r in rows), max(float(r["coverage"]) for r in rows))
    assert (round(low, 2), round(high, 2)) == (0.90, 0.96)
    worst = min(float(r["coverage_min"]) for r in _csv_rows(configuration=BELOW,
                                                             tasks=2, runs=20))
    assert len(said) == 1 and said[0].startswith("10 runs per task (of A and B) " + NOTE)
    assert f"covered {low:.2f} to {high:.2f}, short of 95% on capped scores only;" in said[0]
    assert f"as low as {worst:.2f}" in said[0]
    held = _below_frame(rng, 5, 2, {"A": 5, "B": 5})
    res = rlstats.bootstrap(held, "score ~ agent | task", metrics=("optimality_gap",), gamma=1.0, n_resamples=100,
                            rng=1, normalize=False, progress=False)
    assert res.gap_as_mean.all() and not any(NOTE in n for n in res.notes)
    assert all(not calibration.misses(r, 0.95)
               for r in _csv_rows(configuration=BELOW, tasks=2, runs=5))


# ------------------------------------------------------------------------------------------------ the measurement

def test_truth_gamma_and_share_against_closed_forms():
    """The script's truth on normal scores against E max(g - X, 0) = (g - m) Phi(d) + s phi(d), d = (g - m) / s,
    averaged over tasks; its gamma on one task against the normal quantile; the share of agents below gamma against
    prod_t Phi((g - m_t) / s_t)^runs; on capped runs, gamma just below the ceiling and the share (2/3)^runs."""
    from scipy import stats

    gap = runpy.run_path(str(REFERENCE / "coverage_bootstrap_gap.py"))
    offset, scale, gamma = np.array([0.3, 1.2]), np.array([1.0, 0.5]), 1.4
    d = (gamma - offset) / scale
    closed = float(((gamma - offset) * stats.norm.cdf(d) + scale * stats.norm.pdf(d)).mean())
    true_gap, reflected = gap["truths"]("normal", gamma, offset, scale)
    assert true_gap == pytest.approx(closed, abs=2e-4) and reflected == pytest.approx(gamma - offset.mean(), abs=1e-6)
    assert gap["gamma_of"](5, 1, "normal", offset[:1], scale[:1]) == pytest.approx(
        offset[0] + scale[0] * stats.norm.ppf(1 - 1 / 10), abs=2e-3)
    assert gap["share_below"](5, "normal", offset, scale, gamma) == pytest.approx(
        float(np.prod(stats.norm.cdf(d) ** 5)), abs=1e-3)
    top = gap["gamma_of"](10, 2, "capped", offset, scale)
    ceiling = float((offset + scale * 0.4307272992954576).max())
    assert top < ceiling and top == pytest.approx(ceiling, abs=1e-3)
    assert gap["share_below"](10, "capped", offset, scale, top) == pytest.approx((2 / 3) ** 10, rel=1e-3)


def test_reduced_measurement():
    """A few agents of one point (2 tasks x 5 skewed runs, 8 a draw, 100 resamples): every agent kept has every score
    at or below its draw's gamma (checked in the script: each takes the mean's interval), and the default interval is
    gamma minus the mean's interval of the same data and resamples, reversed (the reflection, from a second call
    asking for the mean); the full measurement is the slow test below."""
    gap = runpy.run_path(str(REFERENCE / "coverage_bootstrap_gap.py"))
    per_draw = gap["measure"](5, 2, "skewed", agents=8, n_resamples=100, others=False)
    assert [d["found"] for d in per_draw] == [8] * 4
    coverage, worst, n, _, low, high = gap["summary"](per_draw)
    assert n == 32 and 0 <= worst <= coverage <= 1 and low + high == round((1 - coverage) * n)
    offset, scale = gap["designs"].design_draw(0, 2)
    g = gap["gamma_of"](5, 2, "skewed", offset, scale)
    y, _ = gap["below_agents"](5, "skewed", offset, scale, g, 3, np.random.default_rng(1))
    assert y.shape == (3, 2, 5) and (y <= g).all()
    data = gap["frame"](y)
    common = dict(n_resamples=100, normalize=False, rng=2, progress=False)
    gap_res = rlstats.bootstrap(data, "score ~ agent | task/seed", metrics=("optimality_gap",), gamma=g, **common)
    mean_res = rlstats.bootstrap(data, "score ~ agent | task/seed", metrics=("mean",), **common)
    np.testing.assert_allclose(gap_res.intervals[:, 0], g - mean_res.intervals[:, 0, ::-1], atol=1e-9)


@pytest.mark.slow
def test_full_measurement_reproduces_the_rows():
    """The script's rows at two points (2 tasks x 5 skewed runs; 2 x 10 capped, a miss) are the table's (same seeds),
    on the bootstrap's cell streams of audit s33 bootstream33, on which audit s35 former35 re-measured the 39 rows (the
    skewed point 0.945, 0.9525 on the streams before; the capped one 0.8975, 0.8825 before)."""
    gap = runpy.run_path(str(REFERENCE / "coverage_bootstrap_gap.py"))
    for runs, tasks, distribution in ((5, 2, "skewed"), (10, 2, "capped")):
        row = gap["row_of"](gap["measure"](runs, tasks, distribution, others=False), runs, tasks, distribution)
        (mine,) = _csv_rows(configuration=BELOW, runs=runs, tasks=tasks,
                            distribution=distribution)
        assert float(mine["coverage"]) == pytest.approx(row["coverage"], abs=1e-6)
        assert float(mine["coverage_min"]) == pytest.approx(row["coverage_min"], abs=1e-6)
