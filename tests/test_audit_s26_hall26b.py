"""Audit s26 (hall26b): the other inversions of Hall's (1992) cubic (``rlstats.statistics.hall_inverse``).

Hall's cubic u + k u^2 / 3 + k^2 u^3 / 27 + k / 6 (k the mean's skewness, u in standard errors) is flat at
u = -3 / k; an interval's end on the side away from the skew, inverted at a quantile q past 1 / |k| - |k| / 6, crosses
that point, and the interval's width jumps with the skewness, then shrinks (audit s26 hall26, curves' band of the
mean). The cap hall26 gave curves now lives beside the inversion (``hall_inverse(..., capped=True)``, ``hall_cap``).

``performance_profile(kind="tasks")``'s skew-corrected band bounds each task's mean one-sided at 0.05 / T
(``bootstrap._kernels.profile_task_bounds``): its quantile is large (6.02 at 26 tasks of 5 runs), so it crossed at a
G1 of 0.38 there, 0.25 at 5 tasks of 3 runs, inside the skewness of real runs (Atari 100k's SimPLe, 5 runs, pooled
G1 0.41: every task's bound interval 2.51 times the t interval's, against 1.29 at G1 0.30, 1.41 at 1.5). Since audit
s26 it inverts capped: 1.53 at SimPLe's skewness, rising continuously.

Criterion of continuity, as hall26's: on a grid of the runs' G1 in steps of 0.01, a task's bound interval's width
over the t interval's never falls as the skewness grows, and changes by at most 0.03 between neighbours at 5 and 10
runs; at 3 runs the far end goes on along its tangent in k, whose slope is steeper at the large quantiles of 0.05 / T
(steps of 0.032 at 5 tasks, 0.074 at 26: 3.2 and 7.4 per unit of G1, constant beyond the cap).

The selection check's reporter (``selection._kernels._reporter_skew_t``) compares Hall's transformed t with the t
quantile at 0.95 with min(gamma, 0): its rejection threshold crosses the flat point too (at 8 reported tasks it is
1.45 times the t's at gamma -1.0, 4.10 at -1.5, at most 4.20 at -1.61, then 1.91 at -6), left as it is (see
``test_reporter_threshold_...``).
"""
import math
import pathlib
import runpy

import numpy as np
import pytest
from scipy import stats

from rlstats import statistics
from rlstats.methods.bootstrap import _kernels
from rlstats.methods.selection import _kernels as selection_kernels

TASKS = runpy.run_path(str(pathlib.Path(__file__).resolve().parent / "reference" / "coverage_profiles_tasks.py"))


def _layout(runs, tasks):
    offsets = 10.0 * np.arange(tasks)
    y = (offsets[:, None] + np.linspace(-1.0, 1.0, runs)[None, :]).ravel()
    return _kernels.agent_layout(y, np.repeat(np.arange(tasks), runs), np.tile(np.arange(runs), tasks), tasks)


def width_ratio(g1, runs, tasks):
    """Task 0's skew-corrected bound interval's width over its t interval's, at the pooled skewness ``g1``."""
    layout = _layout(runs, tasks)
    low_t, high_t, _ = _kernels.profile_task_bounds(layout, 0.95)
    out = []
    for g in np.atleast_1d(g1):
        low, high, _ = _kernels.profile_task_bounds(layout, 0.95, float(g))
        out.append((high[0] - low[0]) / (high_t[0] - low_t[0]))
    return np.array(out)


def _grid(runs):
    return np.arange(0.01, (runs - 2) / math.sqrt(runs - 1), 0.01)


@pytest.mark.parametrize("runs, tasks, step", [(3, 5, 0.033), (3, 26, 0.075), (5, 26, 0.03), (10, 26, 0.03)])
def test_profile_bounds_continuous_and_monotone_in_the_skewness(runs, tasks, step):
    g = _grid(runs)
    r = width_ratio(g, runs, tasks)
    assert np.all(np.abs(np.diff(r)) <= step), (runs, tasks, float(np.abs(np.diff(r)).max()))
    assert np.all(np.diff(r) >= -1e-12), (runs, tasks, float(np.diff(r).min()))
    np.testing.assert_allclose(width_ratio(-g, runs, tasks), r, rtol=1e-12)


def width_ratio_by_hand(g1, runs, tasks):
    """``width_ratio`` without rlstats: q scipy's t quantile at 1 - 0.05 / T, k = G1 / sqrt(n); the near end stays
    the t's (-q), the far end the cubic's root at -q (numpy's roots) while k is at most the cap (the positive root of
    k^2 / 6 + q k - (1 - 0.6^3), numpy's roots of the quadratic), beyond it the cap's moved on by the far end's
    derivative in k there (a central difference); the uncapped inversion (the band before audit s26) alongside."""
    q = stats.t.ppf(1 - 0.05 / tasks, runs - 1)
    cap = float(max(np.roots([1 / 6, q, -(1 - 0.6 ** 3)]).real))
    h = 1e-6 * cap
    slope = -(_roots(cap + h, -q) - _roots(cap - h, -q)) / (2 * h)
    capped, uncapped = [], []
    for g in np.atleast_1d(g1):
        k = float(g) / math.sqrt(runs)
        far = max(-_roots(min(k, cap), -q), q) + slope * max(k - cap, 0.0)
        capped.append((far + q) / (2 * q))
        uncapped.append((max(-_uncapped_root(k, -q), q) + q) / (2 * q))
    return np.array(capped), np.array(uncapped)


def _uncapped_root(k, x):
    """The root the inversion took before audit s26: the real root on the branch through u = x at k = 0, followed
    past the flat point u = -3 / k (the cubic is increasing, so it has one real root, the largest real part)."""
    roots = np.roots([k * k / 27, k / 3, 1.0, k / 6 - x])
    return float(roots[np.abs(roots.imag) < 1e-7].real.max())


def test_profile_bounds_at_26_tasks_of_5_runs():
    """1.29 at G1 0.30 (below the cap, as before), 1.53 at SimPLe's 0.41 (2.51 before), 3.90 at 1.5 (1.41 before):
    the package's widths against ``width_ratio_by_hand``, which also gives the figures quoted."""
    g = [0.3, 0.38, 0.41, 0.5, 1.0, 1.5]
    capped, uncapped = width_ratio_by_hand(g, 5, 26)
    np.testing.assert_allclose(width_ratio(g, 5, 26), capped, rtol=1e-7)
    assert [round(capped[i], 2) for i in (0, 2, 5)] == [1.29, 1.53, 3.90]
    assert [round(uncapped[i], 2) for i in (0, 2, 5)] == [1.29, 2.51, 1.41]


def _roots(k, x):
    """The real root of u + k u^2 / 3 + k^2 u^3 / 27 + k / 6 = x nearest x (numpy's polynomial roots)."""
    roots = np.roots([k * k / 27, k / 3, 1.0, k / 6 - x])
    real = roots[np.abs(roots.imag) < 1e-7].real
    return real[np.argmin(np.abs(real - x))]


@pytest.mark.parametrize("runs, tasks", [(3, 5), (5, 26), (20, 57)])
def test_profile_bounds_against_the_cubic_and_its_tangent(runs, tasks):
    """Task bounds of spread s and mean m: below the cap m -+ s / sqrt(n) times the cubic's roots at the quantile
    q of 0.05 / T (k = G1 / sqrt(n)), never inside the t bounds; beyond, the far end the cap's moved on by the far
    end's derivative in k there (a central difference of the roots), the near end the cap's (inside the t's)."""
    layout = _layout(runs, tasks)
    q = stats.t.ppf(1 - 0.05 / tasks, runs - 1)
    s = np.std(np.linspace(-1.0, 1.0, runs), ddof=1) / math.sqrt(runs)  # the mean's standard error
    low_t, high_t, _ = _kernels.profile_task_bounds(layout, 0.95)
    cap, slope = statistics.hall_cap(q)
    assert abs(1 - cap * q - cap * cap / 6 - 0.6 ** 3) < 1e-13
    h = 1e-5 * cap
    numeric = -(_roots(cap + h, -q) - _roots(cap - h, -q)) / (2 * h)
    np.testing.assert_allclose(slope, numeric, rtol=1e-6)
    for k in (0.5 * cap, 0.95 * cap, 1.5 * cap, 3 * cap):
        low, high, _ = _kernels.profile_task_bounds(layout, 0.95, k * math.sqrt(runs))
        if k <= cap:
            far = max(-_roots(k, -q), q)
        else:
            far = -_roots(cap, -q) + slope * (k - cap)
        np.testing.assert_allclose(high[0], 0.0 + s * far, rtol=1e-9)
        np.testing.assert_allclose(low[0], low_t[0], rtol=1e-12)  # the near end stays the t's
        mirrored_low, mirrored_high, _ = _kernels.profile_task_bounds(layout, 0.95, -k * math.sqrt(runs))
        np.testing.assert_allclose([-mirrored_low[0], mirrored_high[0]], [high[0], -low[0]], rtol=1e-12)


def test_capped_inverse_in_the_runs_units():
    """``hall_inverse(x, gamma, n, capped=True)`` is the mean's capped inversion at k = gamma / sqrt(n), over
    sqrt(n); below the cap it is the plain inversion; an infinite x stays infinite; no skewness gives x / sqrt(n)."""
    x = np.array([-6.0, -2.0, 2.0, 6.0])
    for n in (3.0, 5.0, 26.0):
        for gamma in (-4.0, -0.9, -0.01, 0.0, 0.3, 2.5):
            capped = statistics.hall_inverse(x, gamma, n, capped=True)
            np.testing.assert_allclose(capped * math.sqrt(n),
                                       statistics.hall_inverse(x, gamma / math.sqrt(n), 1.0, capped=True),
                                       rtol=1e-12, atol=1e-15)
            cap = statistics.hall_cap(np.abs(x))[0]
            below = abs(gamma) / math.sqrt(n) <= cap
            np.testing.assert_array_equal(capped[below], statistics.hall_inverse(x, gamma, n)[below])
    assert statistics.hall_inverse([np.inf, -np.inf], 1.3, 5, capped=True).tolist() == [np.inf, -np.inf]
    np.testing.assert_allclose(statistics.hall_inverse(x, 0.0, 5.0, capped=True), x / math.sqrt(5.0), rtol=1e-15)


def test_profile_coverage_reduced():
    """``coverage_profiles_tasks`` on one design draw of 5 data sets (100 bands): 5 tasks of 3 skewed runs just below
    the lowest task mean, the grid's lowest row before audit s26 hall26b (0.95 here before; 0.946 of 4,000 in the
    table, 0.953 since), and the gamma of skewness 2.8 at 26 and 5 tasks of 3 runs (0.82 and 0.92 here before): each
    at or above the level less 3 Monte Carlo SEs of 100 bands (not the seeded figures, which another numpy may order
    differently), the worst threshold just below the lowest task mean."""
    rows = TASKS["measure"]("skewed", 5, 3, 5, draws=(0,), intervals=("skew_t",))
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / 100)  # 3 Monte Carlo SEs of 100 bands below the level: 0.885
    assert [r["coverage"] >= floor for r in rows[:2]] == [True, True]  # 0.96 and 1.0 measured (seeded)
    for tasks in (26, 5):  # 0.99 and 0.95 measured; the uncapped band's 0.82 at 26 tasks fell below the floor
        pooled, _, where = TASKS["measure_shape"]("gamma", tasks, 3, 5, draws=(0,), intervals=("skew_t",))["skew_t"]
        assert pooled >= floor and where == f"tau below mean 1 of {tasks}", (tasks, pooled, where)


#: The nominal level of the bands, and the 2,000 bands per design ``test_profile_shapes_beyond_the_grid`` measures.
PROFILE_LEVEL, PROFILE_BANDS = 0.95, 2000
#: Their Monte Carlo SE at the nominal level (0.0049) and the floor 3 SE below it (0.9354), the project's rule.
PROFILE_SE = math.sqrt(PROFILE_LEVEL * (1 - PROFILE_LEVEL) / PROFILE_BANDS)
PROFILE_FLOOR = PROFILE_LEVEL - 3 * PROFILE_SE
#: Documented shortfalls below that floor (docs/calibration.md, audit s26 hall26b: "lowest at 5 tasks: the gamma 0.930
#: at 3 runs and 0.935 at 5"): the capped band's worst threshold on the gamma of skewness 2.8 at 5 tasks, a shape
#: outside the calibration grid. The test asserts they stay at or above the documented figure, not that they hold.
PROFILE_SHORTFALLS = {("gamma", 5, 3): 0.930, ("gamma", 5, 5): 0.935}
#: The room a measured coverage has around the table's figure: 5 of the 2,000 bands (half an SE), for a band's end
#: that another numpy orders differently (the draws are seeded: on one version the figure comes back exactly).
PROFILE_ROOM = 5 / PROFILE_BANDS


@pytest.mark.slow
@pytest.mark.parametrize("shape, tasks, runs, before, after", [
    ("gamma", 5, 3, 0.882, 0.93), ("gamma", 26, 3, 0.8265, 0.983), ("gamma", 5, 5, 0.937, 0.935),
    ("gamma", 26, 5, 0.9375, 0.9875), ("reflected_gamma", 5, 3, 0.9015, 0.9435),
    ("reflected_gamma", 26, 3, 0.8335, 0.9825), ("reflected_gamma", 5, 5, 0.9525, 0.9585),
    ("gamma", 5, 10, 0.985, 0.973), ("reflected_gamma", 5, 10, 0.988, 0.9755)])
def test_profile_shapes_beyond_the_grid(shape, tasks, runs, before, after):
    """The gammas of ``SHAPES`` (skewness 2.8) on the same 2,000 bands per design (4 draws of 500): the capped band
    at its worst threshold, against the band before audit s26 hall26b (``before``: the uncapped inversion).

    Each design's worst threshold holds the level to within 3 Monte Carlo SEs (``PROFILE_FLOOR``, 0.9354), except the
    two documented shortfalls (``PROFILE_SHORTFALLS``: the gamma at 5 tasks of 3 and 5 runs, 0.930 and 0.935), which
    must not fall below their documented figure; and each reproduces the figure docs/calibration.md quotes
    (``after``) within ``PROFILE_ROOM``."""
    pooled = TASKS["measure_shape"](shape, tasks, runs, 25, intervals=("skew_t",))["skew_t"][0]
    assert abs(pooled - after) <= PROFILE_ROOM, (shape, tasks, runs, pooled, before)
    documented = PROFILE_SHORTFALLS.get((shape, tasks, runs))
    if documented is None:
        assert pooled >= PROFILE_FLOOR, (shape, tasks, runs, pooled)
    else:  # a documented shortfall: below the 3-SE floor, and said so; it must not grow
        assert after < PROFILE_FLOOR
        assert pooled >= documented - PROFILE_ROOM, (shape, tasks, runs, pooled, documented)


def test_profile_shortfalls_are_the_documented_ones():
    """The shortfalls the slow test allows are the figures docs/calibration.md states, and no others: every other
    design's figure in its table is at or above the 3-SE floor."""
    assert round(PROFILE_FLOOR, 4) == 0.9354
    text = " ".join((pathlib.Path(__file__).resolve().parents[1] / "docs" / "calibration.md").read_text().split())
    assert "lowest at 5 tasks: the gamma 0.930 at 3 runs and 0.935 at 5" in text
    assert all(value < PROFILE_FLOOR for value in PROFILE_SHORTFALLS.values())


def _reporter_threshold(gamma, n):
    """The smallest t = sqrt(n) (mean - mu0) / sd the skew-corrected reporter rejects at 0.05, over the t's quantile."""
    q = stats.t.ppf(0.95, n - 1)
    return max(q / math.sqrt(n), float(statistics.hall_inverse(q, min(gamma, 0.0), n))) * math.sqrt(n) / q


def test_reporter_threshold_crosses_the_flat_point():
    """The reporter's threshold, checked against its test on effects of mean s and sd 1 just above and below it; at 8
    reported tasks it rises from 1.45 times the t's at gamma -1.0 to 4.10 at -1.5 (the flat point at -1.43) and falls
    back to 1.91 at -6.

    Left as it is (audit s26 hall26b): a test's p-value is read from the transformed statistic at every level
    (sf(T(s)), T monotone in s for each gamma), and the larger of it and the t's p-value is taken, so the reporter never
    rejects where the t does not; past the flat point the test is more conservative than the cubic's first-order term
    asks, a loss of power, not of level. hall_cap's cap depends on the quantile, so it defines a threshold at one
    level, not a statistic whose p-value the check reports and the reporter's one-sided interval inverts."""
    n = 8
    z = np.linspace(-1.0, 1.0, n)
    z = z / z.std(ddof=1)
    ratios = []
    for gamma in (-1.0, -1.5, -1.61, -6.0):
        ratio = _reporter_threshold(gamma, n)
        s = ratio * stats.t.ppf(0.95, n - 1) / math.sqrt(n)
        p = selection_kernels.reporter_test(np.stack([s * 1.0001 + z, s * 0.9999 + z]), "skew_t",
                                            skewness=np.array([gamma, gamma]))[2]
        assert p[0] <= 0.05 < p[1], (gamma, p)
        ratios.append(round(ratio, 2))
    assert ratios == [1.45, 4.10, 4.20, 1.91]


@pytest.mark.xfail(strict=True, reason="left (audit s26 hall26b): the selection reporter's rejection threshold rises "
                   "steeply past Hall's flat point and falls as the negative skewness grows (8 reported tasks: 1.45 -> "
                   "4.10 times the t's between gamma -1.0 and -1.5, 1.91 at -6); a test needs a capped statistic, not "
                   "hall_cap's one-level threshold")
def test_reporter_threshold_monotone_in_the_skewness():
    gammas = -np.arange(0.0, 6.0, 0.01)
    r = np.array([_reporter_threshold(g, 8) for g in gammas])
    assert np.all(np.diff(r) >= -1e-12) and np.all(np.diff(r) <= 0.05)
