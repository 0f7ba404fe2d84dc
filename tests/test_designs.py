"""The calibration grid's score distributions and design draws (``tests/reference/designs.py``) against closed forms.

Every ``coverage_*`` module takes its truths from ``designs.population`` (stratified quantiles) and its data from
``designs.deviations``; if either drifted from the distribution it names, every row of the table would measure
coverage against a wrong truth. Here: the standardised moments (mean 0, variance 1, the lognormal's skewness) by
quadrature of the transforms, by the quantiles and by large draws; the cap a third of a baseline agent's runs hit,
and the capped normal's mean and variance; the design draws' reproducibility and laws; ``pooled_row``'s arithmetic.
"""

import math
import pathlib
import runpy

import numpy as np
import pytest
from scipy import integrate, stats

DESIGNS = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "designs.py"))
SIGMA, CAP, T_DF = DESIGNS["SIGMA"], DESIGNS["CAP"], DESIGNS["T_DF"]


def _moment(distribution, power):
    """E[X**power] of the standardised deviations, by quadrature of the transform the module applies."""
    if distribution == "normal":
        return integrate.quad(lambda z: z ** power * stats.norm.pdf(z), -np.inf, np.inf)[0]
    if distribution == "skewed":
        def integrand(z):
            return float(DESIGNS["_lognormal"](np.array(z))) ** power * stats.norm.pdf(z)
        return integrate.quad(integrand, -12, 12, limit=200)[0]
    # Student's t with 3 df over sqrt(3); its third moment diverges, so powers 1 and 2 only
    assert power <= 2
    return integrate.quad(lambda t: (t / math.sqrt(T_DF)) ** power * stats.t.pdf(t, T_DF), -np.inf, np.inf)[0]


@pytest.mark.parametrize("distribution", ["normal", "skewed", "heavy_tailed"])
def test_deviations_are_standardised(distribution):
    assert abs(_moment(distribution, 1)) < 1e-9
    assert _moment(distribution, 2) == pytest.approx(1.0, abs=1e-9)


def test_skewed_has_the_lognormal_skewness():
    # a lognormal's skewness (e^s2 + 2) sqrt(e^s2 - 1) with s2 = 0.8^2: 3.689, whatever the shift and scale
    closed = (math.exp(SIGMA ** 2) + 2) * math.sqrt(math.exp(SIGMA ** 2) - 1)
    assert closed == pytest.approx(3.6893, abs=1e-4)
    assert _moment("skewed", 3) == pytest.approx(closed, rel=1e-8)
    q = DESIGNS["quantiles"]("skewed")
    assert np.mean(q ** 3) == pytest.approx(closed, rel=0.02)  # the stratified quantiles miss a little of the tail


def _t_tail_second_moment(x):
    """E[X^2; |X| > x] for X = T / sqrt(3), T Student's t with 3 df: from the antiderivative of s^2 / (3 + s^2)^2,
    arctan(s / sqrt 3) / (2 sqrt 3) - s / (2 (3 + s^2)), times the density's constant 6 sqrt(3) / pi."""
    t = x * math.sqrt(3)
    upper = (math.pi / 2 - math.atan(t / math.sqrt(3))) / (2 * math.sqrt(3)) + t / (2 * (3 + t * t))
    return 2 * (6 * math.sqrt(3) / math.pi) * upper / 3


@pytest.mark.parametrize("distribution", ["normal", "skewed", "heavy_tailed"])
def test_stratified_quantiles_have_the_moments(distribution):
    points = 200_000
    q = DESIGNS["quantiles"](distribution, points)
    assert q.shape == (points,) and np.all(np.diff(q) > 0)
    assert abs(q.mean()) < 2e-5
    if distribution == "heavy_tailed":
        # the variance missing is, nearly all, the outer strata's: their second moment beyond the stratum edge
        # (closed form) less what their midpoints stand for, Q(1 - 1/(2 points))^2 / points on each side
        edge, outer = (stats.t.ppf(1 - u / points, T_DF) / math.sqrt(T_DF) for u in (1, 0.5))
        missing = _t_tail_second_moment(edge) - 2 * outer ** 2 / points
        assert missing == pytest.approx(0.0172, abs=1e-4)
        assert 1 - q.var() == pytest.approx(missing, rel=0.05)
    else:
        assert q.var() == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("distribution", ["normal", "skewed", "heavy_tailed", "capped"])
def test_draws_follow_their_law(distribution):
    n = 400_000
    x = DESIGNS["deviations"](np.random.default_rng(7), distribution, n)
    assert x.shape == (n,)
    assert abs(x.mean()) < 5 / math.sqrt(n)  # variance 1
    if distribution != "heavy_tailed":  # with 3 df the sample variance has no finite variance of its own
        kurtosis = {"normal": 3.0, "capped": 3.0,
                    "skewed": math.exp(4 * SIGMA ** 2) + 2 * math.exp(3 * SIGMA ** 2) + 3 * math.exp(2 * SIGMA ** 2)
                    - 3}[distribution]
        assert abs(x.var() - 1) < 5 * math.sqrt((kurtosis - 1) / n)
    else:
        # the quartiles of t with 3 df over sqrt(3)
        quartile = stats.t.ppf(0.75, T_DF) / math.sqrt(T_DF)
        share = np.mean(np.abs(x) <= quartile)
        assert abs(share - 0.5) < 5 * math.sqrt(0.25 / n)


def test_a_third_of_a_baseline_agents_runs_hit_the_cap():
    assert stats.norm.sf(CAP) == pytest.approx(1 / 3, abs=1e-15)
    points = 30_000
    population = DESIGNS["population"]("capped", points=points)
    assert np.mean(population == CAP) == pytest.approx(1 / 3, abs=1 / points)
    assert population.max() == CAP
    # an agent placed 0.5 noise units above the baseline hits the task's ceiling more often: P(Z > CAP - 0.5)
    above = DESIGNS["population"]("capped", location=0.5, offset=2.0, scale=3.0, points=points)
    ceiling = 2.0 + 3.0 * CAP
    assert np.isclose(above.max(), ceiling)
    assert np.mean(np.isclose(above, ceiling)) == pytest.approx(stats.norm.sf(CAP - 0.5), abs=1 / points)
    n = 300_000
    drawn = DESIGNS["scores"]("capped", DESIGNS["deviations"](np.random.default_rng(3), "capped", n))
    assert abs(np.mean(drawn == CAP) - 1 / 3) < 5 * math.sqrt(2 / 9 / n)


def test_capped_normal_mean_and_variance():
    # E min(Z, c) = c (1 - Phi(c)) - phi(c);  E min(Z, c)^2 = Phi(c) - c phi(c) + c^2 (1 - Phi(c))
    c = CAP
    mean = c * stats.norm.sf(c) - stats.norm.pdf(c)
    second = stats.norm.cdf(c) - c * stats.norm.pdf(c) + c * c * stats.norm.sf(c)
    population = DESIGNS["population"]("capped")
    assert population.mean() == pytest.approx(mean, abs=1e-5)
    assert population.var() == pytest.approx(second - mean ** 2, abs=1e-4)
    assert mean == pytest.approx(-0.2200, abs=1e-4) and second - mean ** 2 == pytest.approx(0.5235, abs=1e-4)


def test_scores_place_and_scale_the_deviations():
    deviation = np.array([-1.0, 0.0, 0.3, 2.0])
    np.testing.assert_allclose(DESIGNS["scores"]("normal", deviation, location=0.5, offset=1.0, scale=2.0),
                               1.0 + 2.0 * (0.5 + deviation))
    # the cap acts on location + deviation, in noise units, before the task's offset and scale
    np.testing.assert_allclose(DESIGNS["scores"]("capped", deviation, location=0.2, offset=1.0, scale=2.0),
                               1.0 + 2.0 * np.minimum(0.2 + deviation, CAP))
    offset, scale = np.array([0.0, 1.0, 2.0]), np.array([1.0, 0.5, 2.0])
    population = DESIGNS["population"]("skewed", offset=offset, scale=scale, points=1000)
    assert population.shape == (3, 1000)
    np.testing.assert_allclose(population, offset[:, None] + scale[:, None] * DESIGNS["quantiles"]("skewed", 1000))


def test_design_draws_are_reproducible_and_follow_their_laws():
    first, again = DESIGNS["design_draw"](3, 26), DESIGNS["design_draw"](3, 26)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    offset, scale = first
    assert offset.shape == scale.shape == (26,)
    other = DESIGNS["design_draw"](4, 26)
    assert not np.array_equal(offset, other[0]) and not np.array_equal(scale, other[1])
    # offsets uniform on [0, 2] (mean 1, variance 1/3); scales lognormal with log-scale sd 0.5
    offset, scale = DESIGNS["design_draw"](0, 200_000)
    assert offset.min() >= 0 and offset.max() < 2
    assert abs(offset.mean() - 1) < 5 * math.sqrt(1 / 3 / offset.size)
    assert abs(offset.var() - 1 / 3) < 5 * math.sqrt((1 / 5 - 1 / 9) / offset.size)  # E(U-1)^4 = 1/5
    log = np.log(scale)
    assert abs(log.mean()) < 5 * 0.5 / math.sqrt(log.size)
    assert abs(log.std() - 0.5) < 5 * 0.5 / math.sqrt(2 * log.size)


def test_pooled_row_arithmetic():
    held = [np.array([True, True, False, True]), [True, False], np.ones(4, dtype=bool)]
    row = DESIGNS["pooled_row"](held, 0.95)
    assert row["n_sim"] == 10 and row["design_draws"] == 3
    assert row["coverage"] == pytest.approx(0.8) and row["coverage_min"] == pytest.approx(0.5)
    # the binomial SE at the coverage, or at the level where that is the larger (coverage near 1)
    assert row["se"] == pytest.approx(math.sqrt(0.8 * 0.2 / 10))
    all_held = DESIGNS["pooled_row"]([np.ones(50, bool), np.ones(50, bool)], 0.95)
    assert all_held["coverage"] == all_held["coverage_min"] == 1.0
    assert all_held["se"] == pytest.approx(math.sqrt(0.95 * 0.05 / 100))
    assert DESIGNS["binomial_se"](0.95, 400) == pytest.approx(0.010897247)
    # the table's rule reads these columns: the pooled 0.8 misses 0.95; a draw of 0.5 in 10 does too
    from rlstats import calibration

    as_text = {k: str(v) for k, v in row.items()}
    assert calibration.misses(as_text, 0.95) and calibration.worst_coverage(as_text) == 0.5


@pytest.mark.parametrize("function, arguments", [("deviations", (np.random.default_rng(0), "lognormal", 3)),
                                                 ("quantiles", ("exponential",))])
def test_an_unknown_distribution_is_named(function, arguments):
    with pytest.raises(ValueError, match="one of \\('normal', 'skewed', 'heavy_tailed', 'capped', 'saturated'\\)"):
        DESIGNS[function](*arguments)
