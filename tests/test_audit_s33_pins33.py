"""Audit s33 (pins33): AdaStop's searches for a number of paths, read against stepping one path at a time.

``_fewest_spending`` (the fewest n_resamples that spend some level) and ``least_resamples`` (the fewest from which
on perfectly separated runs are rejected for 95% of seeds) were asked whether a bisection would give their answers
in log steps. Whether a schedule spends is monotone in n_resamples (interim k's grid has m_k = min(T_k, m) paths,
nondecreasing in m, and nothing spends until some floor(alpha / J * k / K * m_k) reaches 1, each nondecreasing),
checked on 770,328 (n, K, J, alpha, joint, m) in session 33 (n, K 1-6, J 1, 3, 10, alpha 0.05, 0.01, m up to
3 K J / alpha): no violation; but ``_fewest_spending`` already finds it in closed form, checked with at most 2
schedules (measured over n, K 1-10, 8 values of J, 6 of alpha, both ways of drawing paths), fewer than a bisection's
log2(10^7) = 24. The chance of rejecting separated runs is not monotone (below): a bisection of ``least_resamples``
would answer otherwise, so both keep their searches.
"""

from __future__ import annotations

import itertools

import pytest

from rlstats.methods.adastop import _api
from rlstats.methods.adastop import _kernels as kn


def _stepped_fewest(n, K, alpha, shares, joint):
    """The smallest n_resamples that spends, stepping from 1."""
    m = 1
    while not _api._spends(n, K, m, alpha, shares, joint):
        m += 1
    return m


@pytest.mark.parametrize("joint", [False, True])
def test_fewest_spending_is_the_first_number_that_spends(joint):
    for n, K, shares, alpha in itertools.product((1, 2, 3, 5), (1, 2, 4), (1, 3), (0.05,)):
        found = _api._fewest_spending(n, K, alpha, shares, joint)
        if found is None:  # no number up to MAX_RESAMPLES: the whole tree spends nothing
            assert not _api._spends(n, K, _api.MAX_RESAMPLES, alpha, shares, joint), (n, K, shares, alpha)
            continue
        assert found == _stepped_fewest(n, K, alpha, shares, joint), (n, K, shares, alpha, joint)
        # and every number past it spends (monotone), over the next K J / alpha
        assert all(_api._spends(n, K, m, alpha, shares, joint)
                   for m in range(found, found + int(K * shares / alpha))), (n, K, shares)


def test_the_chance_of_rejecting_separated_runs_is_not_monotone():
    """n = 2, K = 4: at 26 paths the one path spendable beyond the boundary falls to the 4th interim, whose random
    paths tie the observed one with chance 2 / C(4, 2)^4 = 1/648 each: (1 - 1/648)^25 = 0.962; at 27 to the 3rd,
    1/108 each: (1 - 1/108)^26 = 0.785. A bisection for the first number reaching 0.95 could land either side."""
    at_26, at_27 = (kn.make_schedule(2, 4, m, 0.05) for m in (26, 27))
    assert at_26.reject_counts == (0, 0, 0, 1) and at_27.reject_counts == (0, 0, 1, 0)
    assert kn.separated_rejection(at_26) == pytest.approx((1 - 1 / 648) ** 25, rel=1e-12)
    assert kn.separated_rejection(at_27) == pytest.approx((1 - 1 / 108) ** 26, rel=1e-12)
    assert round((1 - 1 / 648) ** 25, 3) == 0.962 and round((1 - 1 / 108) ** 26, 3) == 0.785


def test_least_resamples_against_stepping():
    """The answer is the first number m from which on every number up to 2 m (or the whole tree) reaches 0.95."""
    for n, K, shares in ((4, 1, 1), (3, 2, 1), (2, 3, 1), (2, 4, 1), (2, 5, 3), (3, 3, 10)):
        found = _api.least_resamples(n, K, 0.05, shares)
        start = _api._fewest_spending(n, K, 0.05, shares)
        chance = {m: kn.separated_rejection(kn.make_schedule(n, K, m, 0.05), shares)
                  for m in range(start, 2 * (found or start) + 2)}
        ok = [m for m in chance if m <= (found or 0) and all(
            chance[x] >= 0.95 for x in range(m, 2 * m + 1) if x in chance)]
        assert found is not None and ok[0] == found, (n, K, shares, found, ok[:3])
