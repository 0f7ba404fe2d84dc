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
