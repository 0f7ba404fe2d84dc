"""The shared small statistics (rlstats.statistics) against definitions and other software."""

import numpy as np
import pytest

from rlstats import statistics
from rlstats.methods.bootstrap import _kernels as bootstrap_kernels


def test_monte_carlo_pvalue_and_its_error():
    assert statistics.monte_carlo_pvalue(0, 999) == 1 / 1000
    assert statistics.monte_carlo_pvalue(999, 999) == 1.0
    np.testing.assert_array_equal(statistics.monte_carlo_pvalue(np.array([0, 9]), 9), [0.1, 1.0])
    assert statistics.monte_carlo_se(0.5, 100) == pytest.approx(0.05)


def test_holm_and_bonferroni_match_statsmodels():
    from statsmodels.stats.multitest import multipletests

    p = np.random.default_rng(3).uniform(0, 0.2, 7)
    np.testing.assert_allclose(statistics.holm(p), multipletests(p, method="holm")[1], rtol=1e-12)
    np.testing.assert_allclose(statistics.bonferroni(p), multipletests(p, method="bonferroni")[1], rtol=1e-12)


# R 4.2.2 p.adjust(p, method) of these ten p-values (two equal), printed with 17 digits (issue 41 item 3)
_P10 = np.array([0.006, 0.006, 0.057, 0.456, 0.123, 0.37, 0.976, 0.055, 0.47, 0.817])
_R_P_ADJUST = {
    "hochberg": [0.054, 0.054, 0.399, 0.976, 0.738, 0.976, 0.976, 0.399, 0.976, 0.976],
    "hommel": [0.054, 0.054, 0.399, 0.976, 0.705, 0.976, 0.976, 0.385, 0.976, 0.976],
    "benjamini_hochberg": [0.03, 0.03, 0.14250000000000002, 0.58749999999999991, 0.246, 0.58749999999999991, 0.976,
                           0.14250000000000002, 0.58749999999999991, 0.90777777777777779],
    "benjamini_yekutieli": [0.087869047619047611, 0.087869047619047611, 0.41737797619047617, 1, 0.72052619047619038,
                            1, 1, 0.41737797619047617, 1, 1],
}


@pytest.mark.parametrize("name", sorted(_R_P_ADJUST))
def test_step_up_adjustments_match_r_p_adjust_and_statsmodels(name):
    from statsmodels.stats.multitest import multipletests

    np.testing.assert_allclose(getattr(statistics, name)(_P10), _R_P_ADJUST[name], rtol=1e-14, atol=1e-16)
    method = {"hochberg": "simes-hochberg", "hommel": "hommel", "benjamini_hochberg": "fdr_bh",
              "benjamini_yekutieli": "fdr_by"}[name]
    rng = np.random.default_rng(7)
    for m in (1, 2, 3, 6, 28):
        p = np.round(rng.uniform(0, 1, m) ** 3, 3)  # rounded: some equal p-values
        np.testing.assert_allclose(getattr(statistics, name)(p), multipletests(p, method=method)[1], rtol=1e-12)


def test_wilson_interval_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    low, high = statistics.wilson_interval(np.array([3, 17]), np.array([40, 40]), 0.9)
    ref = proportion_confint(np.array([3, 17]), 40, alpha=0.1, method="wilson")
    np.testing.assert_allclose(low, ref[0], rtol=1e-12)
    np.testing.assert_allclose(high, ref[1], rtol=1e-12)


def _brute_force(x, y):
    return np.mean([(a > b) + 0.5 * (a == b) for a in x for b in y])


def test_probability_of_improvement_by_definition_and_as_the_bootstrap_computes_it():
    rng = np.random.default_rng(0)
    sizes_x, sizes_y = [3, 5, 4], [4, 2, 6]
    xs = [np.round(rng.normal(size=n), 1) for n in sizes_x]  # rounded: ties on purpose
    ys = [np.round(rng.normal(size=n), 1) for n in sizes_y]
    y = np.concatenate([np.concatenate([a, b]) for a, b in zip(xs, ys)])
    block = np.concatenate([np.full(a.size + b.size, t) for t, (a, b) in enumerate(zip(xs, ys))])
    is_x = np.concatenate([np.r_[np.ones(a.size, bool), np.zeros(b.size, bool)] for a, b in zip(xs, ys)])
    counts = np.column_stack([sizes_x, sizes_y])
    per_task = statistics.probability_of_improvement(y, block, is_x, counts)
    np.testing.assert_allclose(per_task, [_brute_force(a, b) for a, b in zip(xs, ys)], rtol=1e-12)

    # The bootstrap's count-based kernel gives the same mean over tasks on the observed runs.
    def layout(parts):
        task = np.concatenate([np.full(p.size, t) for t, p in enumerate(parts)])
        run = np.concatenate([np.arange(p.size) for p in parts])
        return bootstrap_kernels.agent_layout(np.concatenate(parts), task, run, len(parts))

    lx, ly = layout(xs), layout(ys)
    point = bootstrap_kernels.improvement_point(bootstrap_kernels.pair_layout(lx, ly), lx, ly)
    assert point == pytest.approx(per_task.mean(), rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_wilcoxon_signed_rank_matches_scipy_with_r_defaults(seed):
    from scipy.stats import wilcoxon
    from rlstats.statistics import wilcoxon_signed_rank
    rng = np.random.default_rng(seed)
    n = [5, 12, 30, 49, 50, 80][seed]
    d = rng.normal(0.3, 1, n)
    v, p, used = wilcoxon_signed_rank(d)
    ref = wilcoxon(d, method="exact" if n < 50 else "approx", correction=True)
    assert used == n and p == pytest.approx(ref.pvalue, rel=1e-10)
    assert min(v, n * (n + 1) / 2 - v) == ref.statistic
    rounded = np.round(d, 1)  # ties and zeros: normal approximation, zeros dropped as R's zero_method
    v, p, used = wilcoxon_signed_rank(rounded)
    ref = wilcoxon(rounded, method="approx", correction=True, zero_method="wilcox")
    assert used == np.count_nonzero(rounded) and p == pytest.approx(ref.pvalue, rel=1e-10)


# --------------------------------------------------------------------------- tails computed without scipy


def test_normal_and_chi2_tails_match_scipy():
    from scipy import stats

    z = np.array([-40.0, -5, -1, 0, 1e-9, 1, 5, 30, 37, np.inf, -np.inf, np.nan])
    np.testing.assert_allclose(statistics.normal_sf(z), stats.norm.sf(z), rtol=1e-13, atol=0)
    x = np.array([-1.0, 0, 1e-300, 1e-6, 0.1, 1, 2.5, 5.6, 10, 50, 100, 300, 700, 1300, 1480, 3000, np.inf, np.nan])
    for df in range(1, 80):
        # relative error grows like x * eps in exp(-x / 2): 1e-13 at x = 1480, where the p-value is 1e-300
        np.testing.assert_allclose(statistics.chi2_sf(x, df), stats.chi2.sf(x, df), rtol=2e-13, atol=1e-300,
                                   err_msg=f"df = {df}")
    assert isinstance(float(statistics.chi2_sf(5.6, 2)), float)


@pytest.mark.parametrize("k", [2, 3, 4, 7, 26, 100])
def test_studentized_range_matches_scipy_at_infinite_df(k):
    from scipy import stats

    q = np.concatenate([[-1.0, 0.0, np.inf, np.nan], np.linspace(0.01, 9, 120)])
    # scipy's upper tail is 1 - cdf: equal to about 1e-14 in absolute terms, not relatively in far tails
    np.testing.assert_allclose(statistics.studentized_range_sf(q, k), stats.studentized_range.sf(q, k, np.inf),
                               rtol=1e-12, atol=5e-14)
    for alpha in (0.1, 0.05, 0.01):
        assert statistics.studentized_range_isf(alpha, k) == pytest.approx(
            stats.studentized_range.ppf(1 - alpha, k, np.inf), rel=1e-13)


def test_studentized_range_far_tail_keeps_its_digits():
    # k = 2: the range of two standard normals is |X - Y|, sqrt(2) |N(0, 1)|, so P(R > q) = 2 Q(q / sqrt(2)).
    from scipy import special

    q = np.array([10.0, 20.0, 30.0])
    np.testing.assert_allclose(statistics.studentized_range_sf(q, 2), 2 * special.ndtr(-q / np.sqrt(2)), rtol=1e-12)


# ---------------------------------------------------------------- issue 39 item 4: ties at floating-point noise

def _near_ties_by_brute_force(y, block):
    """Groups of a block by walking its sorted values one at a time; pairs joined counted over every pair."""
    snapped, pairs = np.array(y, dtype=float), 0
    for b in np.unique(block):
        rows = np.flatnonzero(block == b)
        values = np.asarray(y, dtype=float)[rows]
        tolerance = statistics.TIE_TOLERANCE * np.abs(values).max()
        order = np.argsort(values, kind="stable")
        low = values[order[0]]
        for previous, row in zip(order[:-1], order[1:]):
            if values[row] - values[previous] > tolerance:
                low = values[row]
            snapped[rows[row]] = low
        snapped[rows[order[0]]] = values[order[0]]
        for i in range(rows.size):
            for j in range(i + 1, rows.size):
                pairs += values[i] != values[j] and snapped[rows[i]] == snapped[rows[j]]
    return snapped, pairs


def test_near_ties_join_noise_within_a_block_and_count_the_pairs():
    rng = np.random.default_rng(0)
    base = rng.choice([0.0, 1.0, 186.1, 12650.0, -3.25], size=60)
    noise = base * rng.choice([0.0, 1e-16, -3e-16, 2e-15], size=60) + rng.choice([0.0, 0.0, 7e-15], size=60)
    y, block = base + noise, rng.integers(0, 4, size=60)
    snapped, pairs = statistics.near_ties(y, block)
    expected, expected_pairs = _near_ties_by_brute_force(y, block)
    np.testing.assert_array_equal(snapped, expected)
    assert pairs == expected_pairs > 0
    # the ties are those of the noise-free scores, and nothing but the ranks changes
    np.testing.assert_array_equal(statistics.midranks(y, block), statistics.midranks(base, block))
    # units: the same at any scale, the tolerance being relative to each block's largest |score|
    for factor in (1e-150, 1e-12, 1e12, 1e150):
        np.testing.assert_array_equal(statistics.midranks(y * factor, block), statistics.midranks(base, block))
    # float32 round-off (1e-8 relative) is not noise of this kind: 0.1 and float32(0.1) stay apart, while
    # 0.1 + 1e-17 (0.10000000000000002, one ulp away) joins 0.1; NaN stays
    snapped, pairs = statistics.near_ties([0.1, float(np.float32(0.1)), np.nan, 0.1 + 1e-17], [0, 0, 0, 0])
    assert pairs == 1 and snapped[1] != snapped[0] == snapped[3] and np.isnan(snapped[2])
    assert statistics.near_tie_note(0) is None
    assert statistics.near_tie_note(1).startswith("some scores of one task are within 1e-12 of each other")
    # the tasks named where given, the first three and the rest counted (audit s30 mends30)
    assert statistics.near_tie_note(1, tasks=["a"]).startswith("some scores of a are within")
    assert statistics.near_tie_note(1, tasks=["a", "b, c"]).startswith("some scores of 'a' and 'b, c' are within")
    assert statistics.near_tie_note(1, tasks="abcde").startswith("some scores of a, b, c and 2 more tasks are within")


def test_probability_of_improvement_reads_noise_as_a_tie():
    # 0 and -7e-15 beside a score of 1: a tie (P = 0.5 for that pair), as with an exact 0
    y, block, is_x = np.array([0.0, -7e-15, 1.0, 0.5]), np.zeros(4, int), np.array([True, False, False, True])
    counts = np.array([[2, 2]])
    exact = statistics.probability_of_improvement(np.array([0.0, 0.0, 1.0, 0.5]), block, is_x, counts)
    np.testing.assert_array_equal(statistics.probability_of_improvement(y, block, is_x, counts), exact)
    assert exact[0] == (0.5 + 0 + 1 + 0) / 4


def test_floored_standard_errors_closed_form():
    # the floor is share x the resamples' standard deviation (ddof 1) along the resamples' axis; NaN replicates are
    # left out of it, a slice without spread has none, and a NaN standard error takes the floor
    from rlstats.statistics import floored_standard_errors
    replicates = np.array([[1.0, 3.0, np.nan, 5.0], [2.0, 2.0, 2.0, 2.0]])  # two statistics x four resamples
    errors = np.array([[0.1, 2.0, 0.0, np.nan], [0.0, 0.5, 0.0, 0.0]])
    out = floored_standard_errors(errors, replicates, 0.5, axis=-1)
    floor = 0.5 * 2.0  # std of 1, 3, 5 with ddof 1 is 2
    np.testing.assert_array_equal(out, [[floor, 2.0, floor, floor], [0.0, 0.5, 0.0, 0.0]])
    np.testing.assert_array_equal(floored_standard_errors(errors.T, replicates.T, 0.5, axis=0), out.T)
    np.testing.assert_array_equal(floored_standard_errors(errors, replicates, 0.0, axis=-1), np.fmax(errors, 0.0))
def test_welch_satterthwaite_df_matches_its_closed_form_and_scipy():
    """issue 40 item 4: the one home of the Welch-Satterthwaite df: (sum v)^2 / sum v^2 / (n - 1), two samples as
    scipy's Welch t reads them, per-task sums over an axis, and no underflow at scores ~1e-100."""
    from scipy import stats

    from rlstats.statistics import welch_satterthwaite_df

    rng = np.random.default_rng(4)
    x, y = rng.normal(size=6), rng.normal(0.0, 3.0, size=9)
    v = (x.var(ddof=1) / 6, y.var(ddof=1) / 9)
    expected = sum(v) ** 2 / (v[0] ** 2 / 5 + v[1] ** 2 / 8)
    assert float(welch_satterthwaite_df(v, (6, 9))) == pytest.approx(expected, rel=1e-13)
    assert float(stats.ttest_ind(x, y, equal_var=False).df) == pytest.approx(expected, rel=1e-13)
    per_task = rng.uniform(0.1, 2.0, size=(3, 4)), rng.integers(2, 9, size=(3, 4))
    summed = (per_task[0] ** 2 / (per_task[1] - 1)).sum(axis=-1)
    assert welch_satterthwaite_df((per_task[0],), (per_task[1],), axis=-1) == pytest.approx(
        per_task[0].sum(axis=-1) ** 2 / summed, rel=1e-13)
    assert float(welch_satterthwaite_df((1e-200, 1e-200), (3, 3))) == 4.0  # squares would underflow to 0 / 0
    assert np.isnan(welch_satterthwaite_df((0.0, 0.0), (3, 3)))  # no spread: the caller decides


# issue 43 item 1: lexsort's permutation, sorted within blocks (linear in the number of blocks)
def test_block_value_order_is_lexsort_permutation():
    rng = np.random.default_rng(7)
    for trial in range(120):
        n_blocks, n = int(rng.integers(1, 25)), int(rng.integers(1, 200))
        block = rng.integers(0, n_blocks, n)
        if trial % 5 == 0:  # balanced, with ties
            block = np.repeat(np.arange(n_blocks), 4)
        size = block.size
        values = [rng.normal(size=size), rng.integers(0, 3, size).astype(float),
                  rng.choice([np.nan, -0.0, 0.0, 1.0, np.inf, -np.inf], size), rng.integers(-2, 2, size)][trial % 4]
        np.testing.assert_array_equal(statistics.block_value_order(values, block), np.lexsort((values, block)))
    # very unequal blocks and more than 65,535 blocks fall back to lexsort itself
    block = np.r_[np.zeros(5000, dtype=int), np.arange(1, 50)]
    values = rng.normal(size=block.size)
    np.testing.assert_array_equal(statistics.block_value_order(values, block), np.lexsort((values, block)))
    block = np.arange(70_000)[::-1]
    zeros = np.zeros(70_000)
    np.testing.assert_array_equal(statistics.block_value_order(zeros, block), np.lexsort((zeros, block)))


def test_cornish_fisher_shift_inverts_the_studentised_means_edgeworth_expansion():
    # issue 43 tidy: P(T <= x) = Phi(x) + gamma (2 x^2 + 1) / 6 phi(x) for the studentised mean T of skewness gamma
    # (Hall 1992); its (1 + level) / 2 quantile is z - the shift, to first order in gamma, so the interval
    # mean - se T-quantiles has its ends moved up by the shift
    from scipy import optimize, special, stats

    z = special.ndtri(0.975)
    assert statistics.cornish_fisher_shift(1.0, 0.95) == pytest.approx((2 * z * z + 1) / 6, rel=1e-15)
    np.testing.assert_array_equal(statistics.cornish_fisher_shift([-2.0, 0.0], 0.9),
                                  [-2.0 / 6 * (2 * special.ndtri(0.95) ** 2 + 1), 0.0])
    for level in (0.8, 0.95, 0.99):
        for gamma in (-1e-3, 2e-3):
            edgeworth = lambda x: stats.norm.cdf(x) + gamma * (2 * x * x + 1) / 6 * stats.norm.pdf(x) - (1 + level) / 2
            quantile = optimize.brentq(edgeworth, -10, 10, xtol=1e-14)
            shift = stats.norm.ppf((1 + level) / 2) - quantile
            assert float(statistics.cornish_fisher_shift(gamma, level)) == pytest.approx(shift, rel=1e-2)
    # Hall's transformation (the selection reporter's) has it as its first-order term (mean of n, skewness g / sqrt(n))
    n, g = 10_000, 1e-2
    moved = statistics.hall_transform(z / np.sqrt(n), g, n) - z
    assert moved == pytest.approx(statistics.cornish_fisher_shift(g / np.sqrt(n), 0.95), rel=1e-3)


def test_shape_ratios_are_scipys_unbiased_skewness_and_kurtosis_per_group():
    # issue 43 tidy: G1 = k3 / k2^1.5 and G2 = k4 / k2^2, grouped, against scipy.stats with bias=False
    from scipy import stats

    rng = np.random.default_rng(43)
    sizes = np.array([4, 7, 25, 5, 100])
    values = rng.lognormal(sigma=1.0, size=sizes.sum()) * 1e-120  # tiny scores, in units of their spread below
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    groups = np.split(values, starts[1:])
    means = np.array([x.mean() for x in groups])
    deviations = (values - np.repeat(means, sizes)) / 1e-120
    g1, g2 = statistics.grouped_shape_ratios(deviations, starts, sizes)
    np.testing.assert_allclose(g1, [stats.skew(x / 1e-120, bias=False) for x in groups], rtol=1e-10)
    np.testing.assert_allclose(g2, [stats.kurtosis(x / 1e-120, bias=False) for x in groups], rtol=1e-10)
    # from the sums of powers directly; one of the two only; a group whose values tie has shape 0
    sums = [np.add.reduceat(deviations ** r, starts) for r in (2, 3, 4)]
    np.testing.assert_array_equal(statistics.shape_ratios(sizes, *sums)[0], g1)
    assert statistics.grouped_shape_ratios(deviations, starts, sizes, kurtosis=False)[1] is None
    flat = statistics.grouped_shape_ratios(np.zeros(8), [0, 4], [4, 4])
    assert flat[0].tolist() == [0.0, 0.0] and flat[1].tolist() == [0.0, 0.0]
