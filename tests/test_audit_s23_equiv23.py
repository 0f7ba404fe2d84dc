"""Audit s23 (equiv23): Welch's equivalence tests with equal runs but unlike spreads.

With as many runs of each agent, the skewness of the two means cancels in their difference only where the spreads
are alike; where one agent's spread is several times the other's, on skewed (or capped) scores, Welch's t declared
non-inferiority (and TOST) at the margin above alpha: per task up to 0.18 (skewed, spread 1/4-1/8) and 0.20 (capped,
spread 8), across tasks up to 0.14 (``tests/reference/size_equivalence_spread.py``: runs 3, 5, 10; 1, 5, 26 tasks;
spread ratios 1-8 either way; skewed, heavy-tailed, capped). No candidate measured in its place (Welch's t on
min(n) - 1 df, Hall's skewness-corrected t at each agent's or the pooled skewness, the bootstrap-t), each floored at
Welch's t, held alpha on that grid (per task still 0.10-0.13 at a ratio of 2-8 on skewed scores), so Welch's t stays
and :func:`rlstats.equivalence` says it: a note quoting the calibration table's rows of unlike spreads
(``configuration`` "..., spread r") where a declared test's runs are alike in number, whatever their SDs (since
equivgate23: a few runs cannot tell the true spreads, so the note is a conditional; review23a).
"""

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats import calibration
from rlstats.methods.equivalence import _api

from conftest import script_module

REFERENCE = Path(__file__).parent / "reference"


@pytest.fixture(scope="module")
def spread():
    return script_module(REFERENCE / "size_equivalence_spread.py", "size_equivalence_spread")


def _table_size(test, interval, runs, spread_label, tasks=1, side=None):
    """The largest size (1 - coverage) over the families of the package table's rows of unlike spreads, read with
    the csv module (not through rlstats.calibration)."""
    with open(calibration.PATH, newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["procedure"] == "equivalence.size"
                and r["configuration"].endswith(", " + spread_label) and r["test"] == test
                and r["interval"] == interval and r["runs"] == str(runs) and r["tasks"] == str(tasks)
                and (side is None or r["configuration"].startswith(f"delta = {side},"))]
    return max(rows, key=lambda r: 1 - float(r["coverage"]))


def test_welch_noninferiority_unlike_spreads_measured_above_alpha(spread):
    """Was a strict xfail (Welch's t holding alpha at 5 vs 5 runs, skewed, agent 1's spread a quarter of agent 2's).
    It does not: 0.158 of 2,000 fresh data sets (the table's row, seed 23, 4,000: 0.1715; Monte Carlo SE 0.008), and
    every candidate stays above alpha there too; the note says it (below)."""
    shares = spread.declared("skewed", 5, 1, 0.25, 2_000, np.random.default_rng(5), n_resamples=99)
    se = (0.05 * 0.95 / 2_000) ** 0.5
    assert shares["welch", "noninferior -margin"] == pytest.approx(0.158, abs=1e-9)  # the seed's, reproducible
    row = _table_size("noninferior", "welch", 5, "spread 1/4")
    assert row["distribution"] == "skewed" and 1 - float(row["coverage"]) == pytest.approx(0.1715)
    assert abs(shares["welch", "noninferior -margin"] - (1 - float(row["coverage"]))) < 4 * 0.0085
    for name in spread.CANDIDATES:  # none in Welch's place holds alpha here
        assert shares[name, "noninferior -margin"] > 0.05 + 3 * se, name
        assert shares[name, "noninferior -margin"] <= shares["welch", "noninferior -margin"]  # floored at Welch's


def test_candidates_p_values_against_scipy(spread):
    """Welch's p-values of the script are scipy's Welch t-test of x + margin against y, and its G1 scipy's
    bias-corrected skewness; every candidate's p at least Welch's (the floor)."""
    rng = np.random.default_rng(0)
    y = [np.exp(rng.normal(0, 0.8, (6, 1, 5))) * 0.3, np.exp(rng.normal(0, 0.8, (6, 1, 5)))]
    p = spread.candidate_p(y, 0.7, np.random.default_rng(1), n_resamples=99)
    x, z = y[0][:, 0], y[1][:, 0]
    lower = stats.ttest_ind(x + 0.7, z, equal_var=False, axis=1, alternative="greater").pvalue
    upper = stats.ttest_ind(x - 0.7, z, equal_var=False, axis=1, alternative="less").pvalue
    np.testing.assert_allclose(p["welch"][0], lower, rtol=1e-10)
    np.testing.assert_allclose(p["welch"][1], upper, rtol=1e-10)
    np.testing.assert_allclose(spread._g1(y[0])[:, 0], stats.skew(x, axis=1, bias=False), rtol=1e-10)
    # Welch's t on min(n) - 1 = 4 df, by scipy's t
    t = (x.mean(1) + 0.7 - z.mean(1)) / np.sqrt(x.var(1, ddof=1) / 5 + z.var(1, ddof=1) / 5)
    np.testing.assert_allclose(p["welch_min_df"][0], np.fmax(stats.t.sf(t, 4), lower), rtol=1e-10)
    for name in spread.CANDIDATES:
        assert (p[name][0] >= p["welch"][0]).all() and (p[name][1] >= p["welch"][1]).all()


def test_table_rows_of_unlike_spreads(spread):
    """The 486 rows the script appends (3 families x 3 runs x 6 spreads x (1 per-task + 2 across-tasks points) x
    TOST at +-margin and non-inferiority), the spreads the package quotes, and their Monte Carlo SE."""
    rows = [r for r in calibration.rows("equivalence.size") if spread.appended(r)]
    assert len(rows) == 486 and tuple(spread.ROW_SPREADS) == _api.UNLIKE_SPREADS
    assert {r["distribution"] for r in rows} == {"skewed", "heavy_tailed", "capped"}
    for r in rows[:20]:
        c, n = float(r["coverage"]), int(r["n_sim"])
        assert float(r["se"]) == pytest.approx((c * (1 - c) / n) ** 0.5, abs=1e-6)
    # heavy-tailed scores, the note's "at most 0.063"
    assert max(1 - float(r["coverage"]) for r in rows if r["distribution"] == "heavy_tailed") == pytest.approx(
        0.063, abs=5e-4)
    # the smallest ratio measured, 2, misses on skewed and capped per task (the note's threshold)
    assert _api.UNLIKE_SPREAD == 2.0
    assert 1 - float(_table_size("noninferior", "welch", 10, "spread 1/2")["coverage"]) > 0.09
    assert 1 - float(_table_size("noninferior", "welch", 5, "spread 2")["coverage"]) > 0.08


def test_lower_is_better_reads_the_mirrored_row(spread):
    """Non-inferiority with lower scores better (delta < margin) of agent 1 with 4 times agent 2's spread is the
    higher-is-better test of agent 2 against agent 1 at spread 1/4: simulated directly with the kernels (2,000 data
    sets) it declares as often as that row (0.172 skewed), not as the row of spread 4 (0.007)."""
    from rlstats.methods.equivalence import _kernels as kernels

    offset, scale = np.zeros(1), np.ones(1)
    margin = abs(spread._truth("skewed", spread.SHIFT, 4.0, offset, scale)[0])
    y = spread._simulate("skewed", 5, spread.SHIFT, 4.0, offset, scale, 2_000, np.random.default_rng(9))
    estimate, se, df = (v[:, 0] for v in kernels.welch(y[0].mean(-1), y[0].std(-1, ddof=1), 5, y[1].mean(-1),
                                                       y[1].std(-1, ddof=1), 5))
    share = kernels.tost(estimate, se, df, margin, 0.05, "noninferior", higher_is_better=False)["shown"].mean()
    assert abs(share - (1 - float(_table_size("noninferior", "welch", 5, "spread 1/4")["coverage"]))) < 4 * 0.0085


def _frame(a, b, tasks=("t1",), scale=1.0):
    return pd.DataFrame([(agent, task, scale * v) for task in tasks for agent, values in (("A", a), ("B", b))
                         for v in values], columns=["agent", "task", "score"])


A = [1.0, 1.1, 0.9, 1.05, 0.95]  # SD 0.079
B = [0.6, 0.7, 0.8, 1.5, 1.4]  # SD 0.418: 5.3 times A's


def _notes(frame, **options):
    options = {"margin": 1.0, "alternative": "noninferior",
               "control": "B", "aggregate": None, "progress": False, **options}
    return [n for n in rlstats.equivalence(frame, "score ~ agent | task", **options).notes
            if "true spreads differ" in n]


def test_note_quotes_the_row_of_the_design():
    """The worst row of each family over every spread (2-8 times either way) at the design's runs: the runs cannot
    tell the true spreads, so the SDs are printed, not read."""
    (note,) = _notes(_frame(A, B))
    skewed = min((_table_size("noninferior", "welch", 5, label) for label in ("spread 1/8", "spread 1/4", "spread 1/2",
                                                                           "spread 2", "spread 4", "spread 8")),
                 key=lambda r: float(r["coverage"]) if r["distribution"] == "skewed" else 2)
    assert skewed["configuration"] == "delta = -margin, spread 1/8" and skewed["coverage"] == "0.821"
    # review23d: each row's share said once, the design the rows share (side, runs) said once
    # audit s34 eqnote34: the data's runs ('5 vs 5 runs'), the rows' design said as measured
    assert note == ("'non-inferior' with runs alike in number (the larger under 2 times the smaller): A vs B, 5 vs 5 "
                    "runs (t1: SDs 5.3 times apart); if the two agents' true spreads differ there (SD ratio, the 1st "
                    "agent's over the 2nd's, 1/8 to 1/2 or 2 to 8; their runs do not rule it out: Bonett's 99% "
                    "interval of the SD ratio reaches past 1/1.7 to 1.7), Welch's t declared non-inferiority falsely, "
                    "at a true difference of exactly the margin and alpha = 0.05, in up to 0.179 of 4,000 simulated "
                    "tests per task on skewed scores (deviations x 1/8) and 0.159 on capped scores (deviations x 8) "
                    "(delta = "
                    "-margin, measured at 5 runs of each agent; heavy-tailed scores at most 0.063; the calibration "
                    "table's 'spread' rows); no test tried in Welch's place held alpha there (a bootstrap-t, Hall's "
                    "t, Welch's t on fewer df)")
    # lower scores better: the mirrored rows (agent 2's SD 1/8 of agent 1's, +margin), the same worst shares
    (note,) = _notes(_frame(A, B), higher_is_better=False)
    assert "(SD ratio, the 2nd agent's over the 1st's, 1/8 to 1/2 or 2 to 8; " in note
    assert "0.179 of 4,000 simulated tests per task on skewed scores (deviations x 1/8) and 0.159 on capped " \
           "scores (deviations x 8) (delta = +margin, measured at 5 runs of each agent; " in note
    # TOST: the worst row of either margin (skewed 0.171 at -margin, capped 0.170 at +margin), each row's margin
    (note,) = _notes(_frame(A, B), alternative="equivalence")
    assert "'equivalent' with runs alike" in note and "equivalence falsely, at a true difference of exactly the " \
           "margin and alpha = 0.05, in up to 0.171 of 4,000 simulated tests per task on skewed scores (deviations " \
           "x 1/8, delta = -margin) and 0.170 on capped scores (deviations x 8, delta = +margin) (measured at 5 " \
           "runs of each agent; " \
           in note
    # SDs alike (1.6 times apart, numpy's 0.0791 and 0.1275; the old gate printed nothing): the same conditional
    (note,) = _notes(_frame(A, [0.9, 1.0, 1.1, 1.15, 0.85]))
    assert np.std([0.9, 1.0, 1.1, 1.15, 0.85], ddof=1) == pytest.approx(0.1275, abs=1e-4)
    assert "A vs B, 5 vs 5 runs (t1: SDs 1.6 times apart); if the two agents' true spreads differ" in note


def test_note_across_tasks_and_its_invariances():
    """Across tasks the agents' parts of the standard error; units, row order and frame library change nothing."""
    tasks = ("t1", "t2", "t3", "t4", "t5")
    frame = _frame(A, B, tasks)
    (note,) = _notes(frame)
    assert "A vs B, 5 vs 5 runs (across tasks: the agents' parts of its standard error 5.3 times apart, t1: SDs 5.3 " \
        "times apart" \
        in note
    assert "0.159 on capped scores (deviations x 8), 0.141 of 1,000 across 5 tasks on skewed scores (deviations x " \
        "1/8) and 0.093 on capped scores (deviations x 8) (delta = -margin, measured at 5 runs of each agent; " in note
    row = _table_size("noninferior", "welch_mean", 5, "spread 1/8", tasks=5)
    assert f"{1 - float(row['coverage']):.3f} of 1,000 across 5 tasks on skewed" in note and row["coverage"] == "0.859"
    # units: the same note (the SDs' ratios, not the SDs)
    assert _notes(_frame(A, B, tasks, scale=100.0), margin=100.0) == [note]
    assert _notes(frame.sample(frac=1.0, random_state=3)) == [note]
    polars = pytest.importorskip("polars")
    assert _notes(polars.from_pandas(frame)) == [note]  # the frame library


def test_no_note_where_not_measured_above_alpha_or_not_declared():
    assert _notes(_frame(A, B), alpha=0.1) == []  # the rows are of alpha = 0.05
    assert _notes(_frame(A, B), margin=0.01) == []  # nothing declared
    # unequal runs (5 vs 10, twice: non-inferiority's UNEQUAL_RATIO): the note of unequal runs, not this one
    res = rlstats.equivalence(_frame(A, B + B), "score ~ agent | task", margin=1.0, alternative="noninferior",
                              control="B",
                              aggregate=None, progress=False)
    assert not [n for n in res.notes if "true spreads differ" in n]
    assert [n for n in res.notes if n.startswith("runs differing in number")]
    # the size notes of the equal-spread rows are not fed the rows of unlike spreads
    assert not [n for n in rlstats.equivalence(_frame(A, B), "score ~ agent | task", margin=1.0,
                                               alternative="noninferior",
                                               control="B", aggregate=None, progress=False).notes
                if n.startswith("measured size at the margin")]
