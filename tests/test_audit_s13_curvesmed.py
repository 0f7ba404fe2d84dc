"""Audit s13 (curvesmed): curves()' median bands under bootstrap()'s rule for runs tied at a cap, and one home for
the skewness of a mean of task means.

curves() withheld the median's bands at a step wherever 0.3 or more of the agent's runs tie at a task's bound
(``rlstats.bounds.median_tied``, audit s11), while bootstrap() has withheld its median interval since audit s12 only
where also half or more of the runs of the task(s) the median sits on tie, or 0.6 or more of all
(``median_tied_at_middle``): the two back ends withheld the median on different data. Measured with
``tests/reference/coverage_curves_median_tied.py`` (the grid's saturated and capped curves, 5 and 10 tasks x 3, 5
and 10 runs, 800 bands a design), the bands the finer rule gives and the share alone withheld held (pointwise 0.969-
0.994, simultaneous 0.974-1.0), so curves() now reads the same rule. The skewness of a mean of task means, written
twice (curves' ``_kernels.median_skewness`` and the bootstrap's ``_small_runs.widening_skewness``), now has one home,
``rlstats.statistics.skewness_of_means``.
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np
import pandas as pd
from scipy import stats

import rlstats
from rlstats import bounds, statistics
from rlstats.methods.bootstrap import _small_runs
from rlstats.methods.curves import _api, _kernels

HERE = pathlib.Path(__file__).parent


def test_curves_read_bootstraps_median_rule():
    """One rule, one home: curves() withholds the median's bands by ``bounds.median_tied_at_middle`` (the share alone,
    ``median_tied``, is no longer read there), the function bootstrap() reads."""
    from rlstats.methods.bootstrap import _api as boot_api

    assert _api.median_tied_at_middle is boot_api.median_tied_at_middle is bounds.median_tied_at_middle
    assert not hasattr(_api, "median_tied")


def test_steps_the_finer_rule_gives_back_hold_their_level():
    """A reduced check of the decision (the measurement's saturated curves, 5 tasks x 3 runs, 2 data sets of 8 alike
    agents per design draw, 64 bands): the finer rule gives back steps the share alone withheld (43 here, of 35
    bands), and their pointwise bands hold the truth (42 of 43; 0.969 over 766 such steps at 800 bands, where the
    steps the share alone kept covered 0.961), as do the simultaneous bands of the agents with such a step (35 of
    35; 0.975 of 524); before audit s11 (no tied rule) the median's pointwise bands on such curves covered
    0.87-0.90. Under the share alone no step is given back and the test fails."""
    script = runpy.run_path(str(HERE / "reference" / "coverage_curves_median_tied.py"))
    point = {"tasks": 5, "runs": 3, "distribution": "saturated",
             "records": script["measure"](5, 3, "saturated", data_sets=2)}
    row = script["summary"](point)
    assert _api._saturated_steps is script["_ORIGINAL"]  # the measurement put the package's rule back
    rate, steps, se = row["new_point"]
    assert steps >= 40 and rate >= 0.95 - 3 * se
    rate, bands, se = row["new_sim"]
    assert bands >= 30 and rate >= 0.95 - 3 * se


def _runs_frame(rng, sizes, scales, shape):
    """One agent's runs: task t has sizes[t] gamma(shape, scales[t]) runs (a common skewness 2 / sqrt(shape))."""
    rows = [(f"t{t}", float(v)) for t, (c, s) in enumerate(zip(sizes, scales)) for v in rng.gamma(shape, s, c)]
    return pd.DataFrame(rows, columns=["task", "score"])


def test_skewness_of_means_against_scipy():
    """The skewness of an average of independent task means of gamma runs (one shape a, task scales theta_t, c_t
    runs): each task mean is gamma(c_t a, theta_t / c_t) exactly, whose variance and skewness scipy gives; the
    average's skewness is the sum of their third cumulants over the sum of their variances to the 3/2. The shared
    formula, fed the runs' skewness 2 / sqrt(a), the means' variances a theta_t^2 / c_t and c_t, gives the same."""
    shape = 0.7
    for sizes, scales in (([3, 5, 10], [1.0, 4.0, 0.2]), ([4], [2.5]), ([2, 2, 7, 3, 20], [1.0, 1.0, 3.0, 0.5, 9.0])):
        sizes, scales = np.array(sizes, dtype=float), np.array(scales)
        variance, skewness = stats.gamma(sizes * shape, scale=scales / sizes).stats(moments="vs")
        expected = np.sum(skewness * variance ** 1.5) / np.sum(variance) ** 1.5
        got = statistics.skewness_of_means(2 / np.sqrt(shape), shape * scales ** 2 / sizes, sizes)
        assert abs(got - expected) <= 1e-12 * abs(expected)
    # tasks along an axis: one skewness per column; a column without spread gives 0, not NaN
    v, c = np.array([[1.0, 0.0], [2.0, 0.0]]), np.array([[3.0, 3.0], [4.0, 4.0]])
    got = statistics.skewness_of_means(np.array([1.5, 1.5]), v, c)
    assert got[1] == 0.0 and abs(got[0] - 1.5 * (1 / np.sqrt(3) + 2 ** 1.5 / 2) / 3 ** 1.5) <= 1e-15


def test_both_back_ends_read_the_shared_skewness():
    """curves()' per-step median skewness and bootstrap()'s per-agent skewness of its median and mean come from
    ``statistics.skewness_of_means``: on one step's runs of gamma scores the curves' value equals the bootstrap's
    median entry (to 1e-12: the curves scale the deviations by the step's largest), and the bootstrap's mean entry
    equals the shared formula on all tasks."""
    assert _kernels.skewness_of_means is _small_runs.skewness_of_means is statistics.skewness_of_means
    rng = np.random.default_rng(13)
    frame = _runs_frame(rng, [4, 6, 5, 3, 8], [1.0, 3.0, 0.5, 2.0, 1.5], 0.8)
    frame["agent"] = "A"
    design = rlstats.design.build(frame, "score ~ agent | task", min_agents=1)
    mean, median = _small_runs.widening_skewness(design, 0, ["mean", "median"])
    values = design.y[:, None]
    curves_value = _kernels.median_skewness(values, design.task, design.n_tasks)[0]
    assert abs(curves_value - median) <= 1e-12 * abs(median) and median != 0
    # the mean over all tasks, from the runs' skewness pooled as the bootstrap pools it
    g = _small_runs.pooled_run_skewness(design.y, design.task, design.n_tasks)[0]
    sizes = np.bincount(design.task).astype(float)
    variances = np.array([np.var(design.y[design.task == t], ddof=1) for t in range(5)]) / sizes
    assert abs(mean - g * np.sum(variances ** 1.5 / np.sqrt(sizes)) / np.sum(variances) ** 1.5) <= 1e-12 * abs(mean)
