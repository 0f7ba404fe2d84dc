"""Audit s12 (curvessim): curves()' simultaneous and pointwise bands of the median (and of the IQM and the mean)
re-measured on fresh data sets at 10 and 26 tasks x 5, 10 and 20 runs (``tests/reference/coverage_curves_fresh.py``),
after audit s11 left the median's simultaneous band at 26 tasks x 10 runs at the 3-SE line (0.926 of 240 bands on
saturated curves); and the counts of a step's runs at the bounds read in one pass (``rlstats.bounds.tie_counts``).
"""

from __future__ import annotations

import math
import pathlib
import runpy

import numpy as np
import pytest

import rlstats
from rlstats.bounds import tie_counts, ties_at_bounds
from rlstats.methods.curves import _api

from test_audit_s10_saturated import CAPPED_CAP, SATURATED_CAP, _curves_frame


def test_tie_counts_are_the_two_counts_of_ties_at_bounds():
    """curves() counted a step's runs at the bounds twice for the median (``ties_at_bounds`` with and without
    ``tied_only``); ``tie_counts`` gives both from one pass, equal bit for bit (same values and dtype) on runs tied at
    both bounds, a task without ties and a bound one run reaches."""
    rng = np.random.default_rng(12)
    for n_tasks, n_agents, n in ((4, 3, 60), (1, 2, 5), (6, 5, 200)):
        task = np.sort(rng.integers(0, n_tasks, n))
        agent = rng.integers(0, n_agents, n)
        y = rng.integers(0, 4, n).astype(float)
        y[task == 0] = np.arange((task == 0).sum()) * 0.5  # no ties in task 0: the tied count is 0 there
        both = tie_counts(task, agent, y, n_tasks, n_agents)
        for got, tied_only in zip(both, (False, True)):
            expected = ties_at_bounds(task, agent, y, n_tasks, n_agents, tied_only=tied_only)[0]
            assert got.dtype == expected.dtype and np.array_equal(got, expected)
        assert (both[1][0] == 0).all() and both[0][0].sum() >= 1  # task 0: its largest and smallest, tied with none


def test_saturated_steps_unchanged_by_the_one_pass():
    """The steps curves() withholds (every statistic's three-quarters rule and the median's tied share) read from
    ``tie_counts`` are those of the two calls it made before, on saturated, capped and continuous curves."""
    from rlstats.bounds import median_tied, saturated_withheld

    def before(design, matrix, starts, statistic):  # the former loop, two counts per step
        task, agent = design.task[starts], design.agent[starts]
        shape = (design.n_tasks, design.n_agents * matrix.shape[1])
        at_bound, tied, counts = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        for s in range(matrix.shape[1]):
            logged = ~np.isnan(matrix[:, s])
            there = (task[logged], agent[logged], matrix[logged, s], design.n_tasks, design.n_agents)
            at_bound[:, s::matrix.shape[1]] = ties_at_bounds(*there)[0]
            if statistic == "median":
                tied[:, s::matrix.shape[1]] = ties_at_bounds(*there, tied_only=True)[0]
            cells = np.bincount(task[logged] * design.n_agents + agent[logged],
                                minlength=design.n_tasks * design.n_agents)
            counts[:, s::matrix.shape[1]] = cells.reshape(design.n_tasks, design.n_agents)
        withheld = saturated_withheld(at_bound, counts, (statistic,))[:, 0]
        if statistic == "median":
            withheld |= median_tied(tied, counts)
        return withheld.reshape(design.n_agents, matrix.shape[1])

    seen = []
    original = _api._saturated_steps

    def compare(*args):
        got = original(*args)
        assert np.array_equal(got, before(*args))
        seen.append(int(got.sum()))
        return got

    try:
        _api._saturated_steps = compare
        for cap, statistic in ((SATURATED_CAP, "median"), (SATURATED_CAP, "mean"), (CAPPED_CAP, "median"),
                               (None, "median")):
            rlstats.curves(_curves_frame(cap, 2, runs=5, steps=6), "score ~ agent | task/seed", step="step",
                           statistic=statistic, n_resamples=20, rng=1, progress=False)
    finally:
        _api._saturated_steps = original
    assert seen == [8, 3, 1, 0]  # the median's 8 saturated agent-steps (audit s11), the mean's 3, B's last capped step


FRESH = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_curves_fresh.py"))


def test_simultaneous_band_holds_the_pointwise_band():
    """A band that holds the whole curve at 95% holds each step at 95%, so it cannot be narrower than the 95%
    pointwise band there; each default band is a hull with an expanded band (a symmetric sup-t band for the
    simultaneous one, the asymmetric percentile band for the pointwise one), and on saturated curves, where the
    median's and IQM's bands are given at a step or two, the simultaneous band was the narrower: here B's median at
    step 0 read -2.3303 to -1.9023 against the pointwise -2.3303 to -1.8952, the IQM's at step 4 -1.0455 to -1.0279
    (A) against -1.0464 to -1.0279. At 26 tasks x 10 runs of the grid's saturated curves (1,920 bands) the median's
    simultaneous band covered 0.930 (worst design draw 0.898), its pointwise band 0.955."""
    data = _curves_frame(SATURATED_CAP, 2, runs=10, tasks=26, steps=6)
    for statistic in ("median", "iqm"):
        res = rlstats.curves(data, "score ~ agent | task/seed", step="step", statistic=statistic, n_resamples=200,
                             rng=1, progress=False)
        given = np.isfinite(res.simultaneous).all(axis=-1)
        assert given.sum() >= 4
        assert (res.simultaneous[given, 0] <= res.pointwise[given, 0]).all()
        assert (res.simultaneous[given, 1] >= res.pointwise[given, 1]).all()
