"""Audit s36 (rvfix36): two defects a review found (reproducers below).

* statistics.difference_ties depended on the order of its input (a group started at the first of equal values in
  input order, whose tolerance decided what joined): swapping two tasks' rows changed the Wilcoxon post hoc's V from 4
  (p 0.2034) to 4.5 (p 0.2476); and a 0 leading a group set real differences to 0 under another task's tolerance (8
  tasks at ~1 with A - B = 1e-5 .. 8e-5 and one at 1e11 with A = B: n_used 0, V 0, p 1 instead of V 36, p 1/128).
* mixed's run_sd_chance (Hartley's F-max for unequal df) integrated on one 2,001-point log grid whose bounds mixed the
  df: [1, 20000] at an SD ratio of 4 gave 0.054 (exact 0.198), at 12.7 0.0 (0.0625); [10, 1e5] at 1.9 0.079 (0.014).
  (Audit s37 spread37 replaced run_sd_chance by Levene's test about medians, whose checks are in
  tests/test_audit_s37_spread37.py; its tests here went with it.)
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rlstats.methods.skillings_mack._kernels import pairwise_wilcoxon
from rlstats.statistics import difference_ties



def test_difference_ties_do_not_depend_on_order():
    assert difference_ties([0.0, 0.0, 1.0], [0.1, 1.0, 0.1]).tolist() == [0.0, 0.0, 1.0]
    assert difference_ties([0.0, 0.0, 1.0], [1.0, 0.1, 0.1]).tolist() == [0.0, 0.0, 1.0]
    # a 0 takes only the values within their own tolerance of 0; the others group among themselves
    assert difference_ties([1e-5, 0.0, 2e-5, 1e-16], [1e-15, 1e-3, 1e-15, 1e-15]).tolist() == [1e-5, 0.0, 2e-5, 0.0]
    # equal values lead with the largest tolerance whatever their order
    for tol in ([1.0, 0.1, 0.1], [0.1, 1.0, 0.1]):
        assert difference_ties([2.0, 2.0, 2.5], tol).tolist() == [2.0, 2.0, 2.0]


def test_the_wilcoxon_post_hoc_does_not_depend_on_the_tasks_order():
    rows = [[1e11 + 1.0, 1e11], [1.0, 2.0], [3.0001, 2.0], [5.0, 7.0], [6.0, 9.0], [2.0, 6.0]]
    # |d| 1 (task at 1e11, rounding ~1.8e-4), 1, 1.0001 tie (the first two equal, the third within the first's
    # tolerance): ranks 2, 2, 2, 4, 5, 6; V = 2 + 2 = 4, exact p of the signed ranks with ties (R: 0.2034)
    said = set()
    for order in ([0, 1, 2, 3, 4, 5], [1, 0, 2, 3, 4, 5], [5, 2, 4, 0, 3, 1], [2, 1, 0, 5, 4, 3]):
        r = pairwise_wilcoxon(np.array(rows)[order])
        said.add((float(r.statistic[0]), round(float(r.pvalue[0]), 10), int(r.n_used[0])))
    assert len(said) == 1
    (v, p, n), = said
    assert (v, n) == (4.0, 6) and p == pytest.approx(0.2033740, abs=1e-6)


def test_a_zero_at_a_large_scale_does_not_zero_small_differences():
    small = np.array([[1.0 + i * 1e-5, 1.0] for i in range(1, 9)])
    big = np.array([[1e11, 1e11]])
    # V = 36 of ranks 1..8, all positive: exact p 2 / 2^8 = 1/128 without the tied task; with it (one zero, as R's
    # wilcox.test) the normal approximation with continuity correction, z = (36 - 18 - 0.5) / sqrt(8 * 9 * 17 / 24)
    rng = np.random.default_rng(0)
    with_zero = 2 * stats.norm.sf(17.5 / np.sqrt(51.0))
    for scores, p in ((small, 1 / 128), (np.vstack([small, big]), with_zero), (np.vstack([big, small]), with_zero),
                      (rng.permutation(np.vstack([small, big])), with_zero)):
        r = pairwise_wilcoxon(scores)
        assert (float(r.statistic[0]), int(r.n_used[0])) == (36.0, 8)
        assert float(r.pvalue[0]) == pytest.approx(p, rel=1e-12)
