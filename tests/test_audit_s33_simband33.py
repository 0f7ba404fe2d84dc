"""Audit s33 (simband33): curves()' default simultaneous band against the Bonferroni band of its resamples.

Audit s32 left two strict xfails asking that the bootstrap-t simultaneous band be never wider than the Bonferroni
band of its own resamples (each step's (1 - level) / (2 steps) quantiles of the studentised deviations), as it is a
median 1.8 times (at most 3.5) on the Dopamine trial's IQN curve at 500 resamples. Measured on the calibration
grid's curves and on curves of 3 tasks as far apart as the trial's (``tests/reference/curves_band_bonferroni.py``,
whose docstring holds the table), no band within that Bonferroni band holds its level: the Bonferroni band itself
covered 0.76-0.90 of 240 where the default covers 0.96-1.00 (the median of task means whose runs reach a cap, the
mean of 5 skewed runs of one task, the IQM of tasks far apart; 0.89-0.93 with capped runs of those), and the
balanced (min-p) band, never wider than it, 0.76-0.88. Cut to the package's own (wider) Bonferroni band, the default
held at the grid's points measured but covered 0.78-0.88 on the far-apart tasks. The common quantile over steps is
what holds the curve there: the per-step bootstrap-t distribution's tail is too light at some steps, and the steps
whose deviations run heavier set it. So the default is kept; these tests pin the reference script's candidates and
one data set where the truth lies beyond the Bonferroni band and inside the default's.
"""

from __future__ import annotations

import functools
import pathlib
import runpy

import numpy as np
import pytest

from rlstats.methods.curves import _api, _kernels

REFERENCE = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "curves_band_bonferroni.py"))


def _heterogeneous_t(rng=0, n_resamples=1000, steps=40):
    """Audit s32's resamples whose studentised deviations at steps 0-3 run 4 times larger (a fifth of their
    resamples' standard errors at a quarter)."""
    generator = np.random.default_rng(rng)
    replicates = generator.normal(size=(n_resamples, steps))
    errors = np.full((n_resamples, steps), 1.0)
    errors[: n_resamples // 5, :4] = 0.25
    return replicates, errors, np.zeros(steps), np.ones(steps)


def test_reference_default_kernel_is_the_package_band_bit_for_bit():
    replicates, errors, estimate, se = _heterogeneous_t()
    tolerance = np.full(estimate.size, 1e-12)
    mine = REFERENCE["kernel"]("sup")(replicates, errors, estimate, se, 0.95, tolerance, 0.25)
    package = _kernels.studentized_bands(replicates, errors, estimate, se, 0.95, tolerance, 0.25)
    for a, b in zip(mine, package):
        np.testing.assert_array_equal(a, b)


def test_minp_band_within_the_bonferroni_band_and_simultaneous():
    """The min-p band on audit s32's heterogeneous resamples: within the Bonferroni band at every step, at most 2.5%
    of the resamples past an end at some step, and at the steps 4-39 far inside the common quantile's band (the
    property the s32 xfail asks, which it meets and the grid's coverage does not keep)."""
    replicates, errors, estimate, se = _heterogeneous_t()
    steps = estimate.size
    tolerance = np.full(steps, 1e-12)
    t = (replicates - estimate) / np.maximum(errors, 0.25 * replicates.std(axis=0, ddof=1))
    _, minp = REFERENCE["kernel"]("minp")(replicates, errors, estimate, se, 0.95, tolerance, 0.25)
    _, bonferroni = REFERENCE["kernel"]("bonf")(replicates, errors, estimate, se, 0.95, tolerance, 0.25)
    _, common = _kernels.studentized_bands(replicates, errors, estimate, se, 0.95, tolerance, 0.25)
    assert (minp[:, 0] >= bonferroni[:, 0]).all() and (minp[:, 1] <= bonferroni[:, 1]).all()
    assert (t > -minp[:, 0]).any(axis=1).mean() <= 0.025 and (t < -minp[:, 1]).any(axis=1).mean() <= 0.025
    widths = minp[:, 1] - minp[:, 0]
    assert np.median(widths[4:]) == pytest.approx(6.419, abs=1e-3)  # wider at the steps 0-3: 19.4-23.3
    assert (common[:, 1] - common[:, 0])[0] == pytest.approx(14.299, abs=1e-3)  # one width at every step


def test_far_apart_tasks_truth_beyond_the_bonferroni_band_and_inside_the_default():
    """3 tasks as far apart as the Dopamine trial's (offsets 0, 3, 12, scales 0.3, 0.6, 3 in noise units), 5 normal
    runs, the IQM over 10 steps, data set 21 (the first of 0-39 where the default band holds a curve the Bonferroni
    one misses, since audit s33 curvestream33 drew each task's runs from its own stream; data set 28 before, at step
    7: 3.334 below 3.504, inside 2.694): the second agent's true IQM at step 2, 2.502, lies below the lower end of
    the Bonferroni band of its resamples (2.622, the min-p band's too), inside the default's (2.463). Over 240 such
    bands the default covered 0.958, the Bonferroni band 0.896, the min-p one 0.858 (measured on the former draws:
    the law of the resamples is the same)."""
    offset, scale = REFERENCE["FAR"]
    factor = np.ones(10)
    true = REFERENCE["truth"]("iqm", "normal", offset, scale, factor)
    data = REFERENCE["simulate"](5, "normal", offset, scale, factor, np.random.default_rng(21))
    captured = REFERENCE["_captured"]
    old = _api._studentized
    _api._studentized = REFERENCE["_every_kernel"]
    try:
        res = _api.curves(data, "score ~ agent | task/seed", step="step", statistic="iqm", n_resamples=300,
                          normalize=False, rng=21, progress=False)
    finally:
        _api._studentized = old
    assert true[2] == pytest.approx(2.50158, abs=1e-5)
    np.testing.assert_array_equal(res.simultaneous, captured["sup"])
    assert captured["bonf"][1, 2, 0] == pytest.approx(2.62226, abs=1e-5)
    assert captured["bonf"][1, 2, 0] > true[2]
    assert captured["minp"][1, 2, 0] == captured["bonf"][1, 2, 0]
    assert res.simultaneous[1, 2, 0] == pytest.approx(2.46348, abs=1e-5)
    held = REFERENCE["coverage"]["_held"]
    assert held(res.simultaneous, true)[0].tolist() == [1.0, 1.0]
    assert held(captured["bonf"], true)[0].tolist() == [1.0, 0.0]


@pytest.mark.slow  # about 15 s: 240 bands of the far-apart tasks and of the median's capped curves (the table's rows
# of tests/reference/curves_band_bonferroni.py); the data set above is its reduced version
@pytest.mark.parametrize("point, held", [
    # sup, minp, bonf, capped, pkg_bonf, sup_and_pkg_bonf: bands of 240 that hold the whole true curve; since audit
    # s33 curvestream33 (each task's runs drawn from its own stream, the same law) from (230, 206, 215, 212, 210, 207)
    # and (240, 185, 186, 186, 238, 238): the far tasks' Bonferroni band now holds 222 (0.925), short of 0.95 but
    # within the table's 3 SEs (217.9), where it held 215 (0.896) on the former draws; the min-p band still misses
    ("far:iqm:normal", (229, 212, 222, 218, 218, 214)),
    ("median:3:5:capped", (240, 185, 185, 185, 236, 236)),
])
def test_bonferroni_bands_of_the_resamples_miss_where_the_default_holds(point, held):
    out, _, n = REFERENCE["measure"](point, 120, 300, 0, 10)
    assert n == 240
    assert [round(out[band][0] * n) for band in REFERENCE["BANDS"]] == list(held)
    for band, count in zip(REFERENCE["BANDS"], held):
        assert out[band][0] == pytest.approx(count / n, abs=1e-12)
    bound = 0.95 - 3 * np.sqrt(0.95 * 0.05 / n)  # the table's 3-SE rule
    assert out["sup"][0] >= bound and out["bonf"][0] < 0.95 and out["minp"][0] < bound
    assert (out["bonf"][0] < bound) == point.startswith("median")


@functools.lru_cache(maxsize=None)
def _far_apart_capped_iqm():
    """(simultaneous, pointwise) coverage of the IQM's default bands of 5 capped runs on 3 far-apart tasks, over the
    480 bands of seeds 2 and 3 (``tests/reference/curves_band_bonferroni.py``)."""
    simultaneous, pointwise = [], []
    for seed in (2, 3):
        out, share, n = REFERENCE["measure"]("far:iqm:capped", 120, 300, seed, 10)
        assert n == 240
        simultaneous.append(out["sup"][0])
        pointwise.append(share)
    return float(np.mean(simultaneous)), float(np.mean(pointwise))


FAR_BOUND = 0.95 - 3 * np.sqrt(0.95 * 0.05 / 480)  # the table's 3-SE rule at 480 bands


@pytest.mark.slow  # about 12 s: 480 bands
def test_far_apart_tasks_iqm_bands_of_capped_runs_as_measured():
    """Found while measuring the Bonferroni bands: the default's simultaneous band of far:iqm:capped covered 0.896,
    0.929, 0.896 and 0.892 of 240 with seeds 0-3 (0.903 of 960), its pointwise band 0.918, 0.924, 0.919 and 0.906; of
    normal runs 0.958 and 0.971 (pointwise 0.923, 0.923). The measurement pinned here, the miss below in its own
    strict xfail (review rt33a: a pin inside the xfail would keep it failing once the band is fixed)."""
    simultaneous, pointwise = _far_apart_capped_iqm()
    # 429 of 480 on the draws it was found with; 431 on curvestream33's per-cell draws (that stale pin was hidden
    # inside the strict xfail until review rt33a)
    assert simultaneous == pytest.approx(431 / 480, abs=1e-12)
    assert simultaneous < FAR_BOUND


@pytest.mark.slow  # the measurement above, cached
@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="audit s33 simband33, left: on 3 tasks as far apart as the Dopamine trial's (outside "
                   "the calibration grid, whose tasks overlap), the IQM's default bands of 5 capped runs cover "
                   "0.89-0.90 (simultaneous) and about 0.91 (pointwise) of 480, below 0.95 by more than 3 SE")
def test_far_apart_tasks_iqm_bands_of_capped_runs_hold_their_level():
    simultaneous, pointwise = _far_apart_capped_iqm()
    assert simultaneous >= FAR_BOUND and pointwise >= FAR_BOUND
