"""Audit s32, the lead's merges: what the helpers' branches needed of each other."""
import numpy as np
import pytest
from scipy import stats

from rlstats.methods.adastop._kernels import binomial_cdf


@pytest.mark.parametrize("n", [0, 1, 2, 5, 19, 99, 999, 9_999])
def test_binomial_cdf_is_scipys_without_scipy(n):
    """``adastop update`` must not load scipy (tests/test_startup.py), and since left32 every schedule that spends
    is asked its chance of rejecting separated runs, a binomial tail: the scipy-free sum agrees with scipy's
    ``binom.cdf`` over tails, p near 0 and 1 and k out of range."""
    for p in (0.0, 1e-300, 1e-12, 1e-6, 0.001, 0.1, 0.5, 0.9, 0.999, 1.0):
        for k in sorted({-1, 0, 1, 2, n // 10, n // 2, n - 1, n, n + 1}):
            expected = float(stats.binom.cdf(k, n, p))
            assert binomial_cdf(k, n, p) == pytest.approx(expected, rel=1e-10, abs=1e-300), (k, n, p)
    assert np.isclose(binomial_cdf(9, 19, 0.3), 0.9674, atol=1e-4)
