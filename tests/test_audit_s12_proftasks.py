"""Audit s12 (proftasks): the default band of ``performance_profile(kind="tasks")`` on skewed and capped runs.

The default ``interval="t"`` band (audit s10) bounds each task's mean by Student t bounds one-sided at 0.05 / T and
counts the tasks whose bounds lie above tau. Its ``bootstrap.profile_tasks`` rows of rlstats/calibration.csv
(tests/reference/coverage_profiles_tasks.py) miss 95% on the grid's skewed runs just below the lowest task mean
(0.81-0.86 on one task, 0.85-0.90 on 5, 0.88-0.93 on 26) and on its capped runs at the highest (0.89-0.93 at 3-5
runs); the result only quoted those rows. The project's rule is that a default that misses is replaced.
"""

from __future__ import annotations

import math
import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest

TASKS = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_profiles_tasks.py"))


def _worst(distribution, tasks, runs, n_sim, draws=(0,)):
    """(coverage, configuration, bands) of the default band at its worst threshold of the grid's design."""
    # interval None: the function's default band
    by_draw = [TASKS["held"](distribution, tasks, runs, draw, n_sim, 12, (None,))[None][0] for draw in draws]
    held = np.concatenate(by_draw)
    coverage = held.mean(axis=0)
    j = int(np.argmin(coverage))
    return float(coverage[j]), TASKS["truth"](distribution, tasks, 0)[2][j], held.shape[0]


def test_default_tasks_band_holds_on_skewed_runs():
    """Skewed (lognormal) runs, 5 tasks of 5 runs, the grid's first design draw: the default band (then the t band)
    held the true fraction of tasks above tau just below the lowest task mean in 0.86 of 240 bands (the table:
    0.858, 4,000 bands); it must hold 0.95 - 3 SE of 160 bands. The skew-corrected band: 0.97 (its row 0.968)."""
    coverage, where, bands = _worst("skewed", 5, 5, 8)
    assert coverage >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / bands), (coverage, where)


def _hall_bounds(x, g, q, root=0.6):
    """Independent of the package: Hall's (1992) transformed t, u + k u^2 / 3 + k^2 u^3 / 27 + k / 6 with
    u = sqrt(n) (mean - mu) / sd and k = g / sqrt(n), solved for the u where it equals +q (lower bound) and -q (upper
    bound) by bisection, never inside the t bounds. Since audit s26 (hall26b) k is held at the cap where
    1 - k q - k^2 / 6 = ``root``^3 (the cubic's slope at the far end root^2), and beyond it the far end goes on along
    its derivative in k (implicit differentiation of the cubic)."""
    from scipy import optimize

    n, mean, sd = x.size, x.mean(), x.std(ddof=1)
    k = g / math.sqrt(n)
    cap = optimize.brentq(lambda c: 1 - c * q - c * c / 6 - root ** 3, 0.0, 10.0, xtol=1e-15)
    held = math.copysign(min(abs(k), cap), k)

    def end(target):
        return optimize.brentq(lambda u: u + held * u ** 2 / 3 + held ** 2 * u ** 3 / 27 + held / 6 - target,
                               -1e3, 1e3, xtol=1e-13)

    u_low, u_high = end(q), end(-q)
    if abs(k) > cap:  # the far end, on the side of the skew: x = -q for k > 0, +q for k < 0
        u = u_high if k > 0 else u_low
        slope = -(u * u / 3 + 2 * held * u ** 3 / 27 + 1 / 6) / (1 + 2 * held * u / 3 + held ** 2 * u ** 2 / 9)
        u += slope * (k - held)
        u_high, u_low = (u, u_low) if k > 0 else (u_high, u)
    half = q * sd / math.sqrt(n)
    return min(mean - sd * u_low / math.sqrt(n), mean - half), max(mean - sd * u_high / math.sqrt(n), mean + half)


def test_skew_t_band_counts_the_tasks_whose_hall_bounds_lie_above_tau():
    """The default band against an independent computation: 6 tasks of 3-6 lognormal runs (one with tied runs), the
    runs' skewness the mean of scipy's bias-corrected skewness over the tasks with spread, each task's bounds
    Hall's transformed t at the t quantile of 1 - 0.05 / 6, never inside the t bounds."""
    from scipy import stats

    import rlstats

    rng = np.random.default_rng(5)
    sizes = [3, 4, 5, 6, 3, 4]
    runs = {f"t{t}": np.exp(rng.normal(0.0, 0.8, c)) + t for t, c in enumerate(sizes)}
    runs["t5"] = np.full(4, 2.5)
    frame = pd.DataFrame([(agent, task, s, v + shift) for agent, shift in (("A", 0.0), ("B", 0.5))
                          for task, x in runs.items() for s, v in enumerate(x)],
                         columns=["agent", "task", "seed", "score"])
    tau = np.linspace(0.0, 8.0, 161)
    res = rlstats.performance_profile(frame, "score ~ agent | task", tau=tau, kind="tasks")
    assert res.interval == "skew_t" and "skew-corrected" in res.method
    g = float(np.mean([stats.skew(x, bias=False) for x in runs.values() if np.ptp(x) > 0]))
    assert g > 0.3  # skewed to the right: the upper bounds move out
    low, high = [], []
    for task, x in runs.items():
        if np.ptp(x) == 0:
            low.append(-np.inf), high.append(np.inf)
            continue
        lo, hi = _hall_bounds(x, g, stats.t.ppf(1 - 0.05 / 6, x.size - 1))
        low.append(lo), high.append(hi)
    np.testing.assert_array_equal(res.intervals[0, :, 0], (np.array(low)[:, None] > tau).mean(axis=0))
    np.testing.assert_array_equal(res.intervals[0, :, 1], (np.array(high)[:, None] > tau).mean(axis=0))
    # wider than the t band on the side of the skew only
    t_band = rlstats.performance_profile(frame, "score ~ agent | task", tau=tau, kind="tasks", interval="t")
    assert (res.intervals[0, :, 1] >= t_band.intervals[0, :, 1]).all()
    assert (res.intervals[0, :, 1] > t_band.intervals[0, :, 1]).any()
    np.testing.assert_array_equal(res.intervals[0, :, 0], t_band.intervals[0, :, 0])


def test_skew_t_band_is_withheld_below_five_tasks_with_a_note():
    """One task (or 4): the runs' skewness would be read from the runs whose mean it corrects, and no bound of a
    mean from a few runs holds whatever their shape; the band is NaN with a note saying why and pointing to
    interval="t", which still gives the Student t band. At 5 tasks it is given."""
    import rlstats

    frame = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, rng=0)
    res = rlstats.performance_profile(frame, "score ~ agent | task", kind="tasks", tau=[0.0, 1.0])
    assert np.isnan(res.intervals).all() and np.isfinite(res.estimates).all()
    note = [n for n in res.notes if n.startswith("the skew-corrected t band")]
    assert len(note) == 1 and "withheld (NaN) for 'agent_1' (4), 'agent_2' (4)" in note[0]
    assert "Bahadur and Savage" in note[0] and "interval='t'" in note[0]
    assert not any(n.startswith("pointwise 95%") for n in res.notes)  # no table row quoted for a withheld band
    assert np.isfinite(rlstats.performance_profile(frame, "score ~ agent | task", kind="tasks", tau=[0.0, 1.0],
                                                   interval="t").intervals).all()
    frame = rlstats.datasets.simulate(agents=2, tasks=5, seeds=3, rng=0)
    res = rlstats.performance_profile(frame, "score ~ agent | task", kind="tasks", tau=[0.0, 1.0])
    assert np.isfinite(res.intervals).all() and not any("withheld" in n for n in res.notes)


def test_skew_t_band_from_few_runs_says_how_far_its_skewness_reaches():
    """n runs show a sample skewness of at most sqrt(n) (n - 1 tied below one: scipy's bias-corrected skewness), 1.73
    at 3 runs, so the correction stops there; below 10 runs the result says so, with the shape measured beyond it (a
    gamma with shape 1/2, skewness 2.8: 0.93-0.98 at 3 runs, 0.935-0.99 at 5 since audit s26 hall26b, 0.83-0.90 and
    0.92-0.955 before); from 10 runs no such note."""
    import rlstats
    from scipy import stats

    for n in (3, 4, 5, 9):
        assert stats.skew([0.0] * (n - 1) + [1.0], bias=False) == pytest.approx(math.sqrt(n))
    frame = rlstats.datasets.simulate(agents=2, tasks=6, seeds=3, rng=0)
    res = rlstats.performance_profile(frame, "score ~ agent | task", kind="tasks", tau=[0.0])
    note = [n for n in res.notes if "as few as 3 runs" in n]
    assert len(note) == 1 and "at most 1.73" in note[0] and "0.93-0.98 at 3 runs" in note[0]
    frame = rlstats.datasets.simulate(agents=2, tasks=6, seeds=5, rng=0)
    res = rlstats.performance_profile(frame, "score ~ agent | task", kind="tasks", tau=[0.0])
    assert any("as few as 5 runs, which show a skewness of at most 2.24" in n for n in res.notes)
    frame = rlstats.datasets.simulate(agents=2, tasks=6, seeds=10, rng=0)
    res = rlstats.performance_profile(frame, "score ~ agent | task", kind="tasks", tau=[0.0])
    assert not any("as few as" in n for n in res.notes)


def test_gamma_shape_checks_the_band_beyond_the_grid():
    """The gamma shape of ``coverage_profiles_tasks.SHAPES`` is standardised (mean 0, variance 1, skewness 2.83), so
    its task means are the design's offsets, as ``measure_shape`` reads them."""
    rng = np.random.default_rng(0)
    for name, skewness in (("gamma", 2 * math.sqrt(2)), ("reflected_gamma", -2 * math.sqrt(2)),
                           ("mixture", None)):
        x = TASKS["SHAPES"][name](rng, 400_000)
        assert abs(x.mean()) < 0.01 and abs(x.var() - 1) < 0.02, name
        if skewness is not None:
            from scipy import stats
            assert stats.skew(x) == pytest.approx(skewness, abs=0.1), name


@pytest.mark.slow
@pytest.mark.parametrize("point", [("skewed", 5, 3), ("skewed", 26, 10), ("capped", 26, 3), ("capped", 5, 5),
                                   ("normal", 26, 3), ("heavy_tailed", 5, 10)])
def test_default_band_re_measured_on_fresh_data(point):
    """The default band's rows re-measured on fresh data sets (seed 112, every design draw, 1,600 bands): within 4
    joint SE of the table's ``skew_t`` row and at 95% within 3 SE, pooled and in each draw (the grid's hardest
    points: the rows nearest their level, skewed 5 x 3 and capped 26 x 3)."""
    from rlstats import calibration

    distribution, tasks, runs = point
    tabled = {r["configuration"]: r for r in calibration.rows(TASKS["PROCEDURE"]) if r["interval"] == "skew_t"
              and (r["distribution"], int(r["tasks"]), int(r["runs"])) == point}
    for row in TASKS["measure"](distribution, tasks, runs, 20, seed=112, intervals=("skew_t",)):
        table = tabled[row["configuration"]]
        coverage = float(table["coverage"])
        joint = math.sqrt(max(coverage * (1 - coverage), 0.05 * 0.95) * (1 / row["n_sim"] + 1 / int(table["n_sim"])))
        assert abs(row["coverage"] - coverage) <= 4 * joint, (point, row, coverage)
        assert not calibration.misses({k: str(v) for k, v in row.items()}, 0.95), (point, row)


@pytest.mark.slow
@pytest.mark.parametrize("shape, fewest", [("gamma", 10), ("reflected_gamma", 10), ("mixture", 3)])
def test_default_band_beyond_the_grid(shape, fewest):
    """Shapes the grid does not have (``SHAPES``), 5 and 26 tasks, 4 design draws of 500 bands: the default band
    holds 95% within 3 SE at its worst threshold from 3 runs on the mixture and from 10 on the gammas (measured:
    0.977-1.00 and 0.985-1.00; the t band 0.947-0.981 and 0.80-0.91). On the gammas at 3 and 5 runs it does not
    (0.83-0.90, 0.92-0.955), which its note says."""
    for tasks in (5, 26):
        for runs in (fewest, 20):
            pooled, worst, where = TASKS["measure_shape"](shape, tasks, runs, 25, intervals=("skew_t",))["skew_t"]
            assert pooled >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / 2000), (shape, tasks, runs, pooled, where)
            assert worst >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / 500), (shape, tasks, runs, worst, where)



def test_skew_t_result_reads_its_own_rows_and_describes_its_band():
    """The coverage note of the default band reads the ``skew_t`` rows (none short of 95%: no note at 26 tasks of 3
    runs, where the t band's row 0.88 is quoted with interval="t"); were a row short, the note names the band and why
    (a synthetic row); the report describes Hall's correction."""
    import rlstats
    from rlstats import calibration
    from rlstats.methods.bootstrap import _api

    rows = [r for r in calibration.rows(TASKS["PROCEDURE"]) if r["interval"] == "skew_t"]
    assert len(rows) == 384 and not any(calibration.misses(r, 0.95) for r in rows)
    frame = rlstats.datasets.simulate(agents=2, tasks=26, seeds=3, rng=0)
    res = rlstats.performance_profile(frame, "score ~ agent | task", kind="tasks", tau=[0.0])
    assert not any(n.startswith("pointwise 95%") for n in res.notes)
    assert "Hall's (1992) transformation" in res.report() and "skew-corrected t bounds" in str(res)
    t_band = rlstats.performance_profile(frame, "score ~ agent | task", kind="tasks", tau=[0.0], interval="t")
    assert any(n.startswith("pointwise 95% t profile bands from 3 runs") for n in t_band.notes)
    row = {**rows[0], "coverage": "0.9", "coverage_min": "0.88", "configuration": "tau below mean 1 of 5"}
    note = _api._tasks_shortfall_note(row, 3, "skew_t", (5,))
    assert note.startswith("pointwise 95% skew_t profile bands from 3 runs per task") and "0.90 of 4000" in note
    assert "skewness read from the agent's tasks" in note and "lowest true task mean" in note
