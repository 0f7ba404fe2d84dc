"""Second reading of session 12's changes (audit s12, review): Hall's inversion (rlstats.statistics.hall_inverse)
checked against a root finder, the "skew_t" band of performance_profile(kind="tasks"), and the other changes of
the session (mixed()'s omnibus F, selection_check's one interval, percentiles' near ties)."""
import numpy as np
import pytest
from scipy import optimize

from rlstats import statistics


@pytest.mark.parametrize("gamma", [0.0, 1e-11, 1e-9, -3e-10, 1e-7, 0.4, -2.5, 6.0])
def test_hall_inverse_agrees_with_a_root_finder_at_small_skewness(gamma):
    """hall_inverse computed 3 / gamma (cbrt(1 + gamma y) - 1), which cancels for small gamma: at gamma 1e-11,
    x 2 and n 5 it gave 0.894417873 where the root of hall_transform(s) = 2 is 0.894427191 (1e-5 relative off),
    so a nearly symmetric sample (a skewness of round-off size) moved its bound in the fifth digit."""
    for x, n in [(2.0, 5), (-1.7, 3), (0.3, 40)]:
        root = optimize.brentq(lambda s: float(statistics.hall_transform(s, gamma, n)) - x, -1e3, 1e3,
                               xtol=1e-15, rtol=1e-15)
        assert float(statistics.hall_inverse(x, gamma, n)) == pytest.approx(root, rel=1e-12, abs=1e-14)
