"""rlstats.curves: per-step aggregates, whole-run bootstrap bands and max-T curve comparisons.

Estimates are checked against scipy/pandas on the raw frame, the comparison's p-values against
exhaustive enumeration of the relabellings, and the bands' coverage and the comparison's
family-wise error by simulation from curves with a known truth (AR(1) run deviations).
"""

import itertools
import math
import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats.datasets import simulate_curves
from rlstats.errors import DesignError, OptionError
from rlstats.format import format_step
from rlstats.methods.curves import _api, _kernels

FORMULA = "score ~ agent | task/seed"
COVERAGE = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_curves_bands.py"))


@pytest.fixture(scope="module")
def data():
    return simulate_curves(agents=3, tasks=4, seeds=6, steps=8, effect=0.4, rng=5)


def _pooled(data, agent, step):
    return data[(data["agent"] == agent) & (data["step"] == step)]


def test_iqm_matches_scipy_trim_mean_at_every_step(data):
    res = rlstats.curves(data, FORMULA, step="step", n_resamples=50, rng=0)
    for j, agent in enumerate(res.agents):
        for s, step in enumerate(res.steps):
            expected = stats.trim_mean(_pooled(data, agent, step)["score"], 0.25)
            assert res.estimates[j, s] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("statistic", ["mean", "median", "optimality_gap"])
def test_other_statistics_match_pandas(data, statistic):
    res = rlstats.curves(data, FORMULA, step="step", statistic=statistic, gamma=5.0, n_resamples=50, rng=0)
    for j, agent in enumerate(res.agents):
        for s, step in enumerate(res.steps):
            cell = _pooled(data, agent, step)
            if statistic == "optimality_gap":
                expected = np.maximum(5.0 - cell["score"], 0).mean()
            else:
                means = cell.groupby("task", observed=True)["score"].mean()
                expected = means.mean() if statistic == "mean" else means.median()
            assert res.estimates[j, s] == pytest.approx(expected, rel=1e-12)


def test_a_custom_statistic_agrees_with_the_built_in(data):
    def iqm(x):  # (..., runs, tasks) -> (...)
        return stats.trim_mean(x.reshape(x.shape[:-2] + (-1,)), 0.25, axis=-1)

    built_in = rlstats.curves(data, FORMULA, step="step", n_resamples=100, rng=1, compare="all")
    custom = rlstats.curves(data, FORMULA, step="step", statistic=iqm, n_resamples=100, rng=1, compare="all")
    np.testing.assert_allclose(custom.estimates, built_in.estimates, rtol=1e-12)
    np.testing.assert_allclose(custom.bootstrap_distribution, built_in.bootstrap_distribution, rtol=1e-10)
    np.testing.assert_allclose(custom.difference_pvalues, built_in.difference_pvalues)


def test_whole_runs_are_resampled():
    # Each run is flat over steps: a resampled curve made of whole runs is flat too; drawing a new run
    # for every step (rliable's learning-curve bootstrap) would make it wiggle.
    flat = simulate_curves(agents=2, tasks=3, seeds=5, steps=6, noise=1.0, rho=0.0, rng=2)
    run_level = flat.groupby(["agent", "task", "seed"], observed=True)["score"].transform("first")
    flat = flat.assign(score=run_level)
    res = rlstats.curves(flat, FORMULA, step="step", statistic="mean", n_resamples=200, rng=0)
    spread_over_steps = np.ptp(res.bootstrap_distribution, axis=2)
    assert spread_over_steps.max() < 1e-12
    assert res.std_error.min() > 0


def test_reproducible_and_independent_of_chunking(data, monkeypatch):
    a = rlstats.curves(data, FORMULA, step="step", n_resamples=300, rng=7, compare="all")
    monkeypatch.setattr(_kernels, "CHUNK_ELEMENTS", 500)  # many small chunks
    b = rlstats.curves(data, FORMULA, step="step", n_resamples=300, rng=7, compare="all")
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    np.testing.assert_array_equal(a.difference_pvalues, b.difference_pvalues)
    c = rlstats.curves(data, FORMULA, step="step", n_resamples=300, rng=8)
    assert not np.array_equal(a.bootstrap_distribution, c.bootstrap_distribution)
    assert a.seed == 7


def test_max_t_pvalues_match_exhaustive_relabelling():
    # One task, 3 runs per agent: 20 relabellings, enumerated here, against 20,000 drawn ones.
    small = simulate_curves(agents=2, tasks=1, seeds=3, steps=4, effect=0.6, noise=0.4, rng=11)
    res = rlstats.curves(small, FORMULA, step="step", statistic="mean", n_resamples=20_000, rng=0, compare="all")
    runs = small.pivot_table(index=["agent", "seed"], columns="step", values="score", observed=True).to_numpy()
    observed = runs[:3].mean(axis=0) - runs[3:].mean(axis=0)
    null = np.array([runs[list(g)].mean(axis=0) - runs[[i for i in range(6) if i not in g]].mean(axis=0)
                     for g in itertools.combinations(range(6), 3)])
    se = null.std(axis=0, ddof=1)
    t_max = np.abs(null / se).max(axis=1)
    exact = np.array([(t_max >= abs(o) / s - 1e-12).mean() for o, s in zip(observed, se)])
    np.testing.assert_allclose(res.differences[0], observed, rtol=1e-12)
    np.testing.assert_allclose(res.difference_pvalues[0], exact, atol=0.015)


def test_difference_table_and_verdicts(data):
    res = rlstats.curves(data, FORMULA, step="step", n_resamples=300, rng=0, compare=[("agent_3", "agent_1")])
    forward = res.difference("agent_3", "agent_1")
    backward = res.difference("agent_1", "agent_3")
    np.testing.assert_allclose(forward["estimate"], -backward["estimate"])
    assert (forward["conf_low"] <= forward["estimate"]).all() and (forward["estimate"] <= forward["conf_high"]).all()
    assert list(forward.columns) == ["step", "estimate", "conf_low", "conf_high", "p_adjusted", "significant"]
    with pytest.raises(OptionError, match="no comparison of 'agent_1' and 'agent_2'"):
        res.difference("agent_1", "agent_2")
    assert "curve comparisons" in str(res) and "max-T permutation" in res.report()


def test_bands_contain_the_estimate(data):
    res = rlstats.curves(data, FORMULA, step="step", n_resamples=300, rng=0)
    assert (res.simultaneous[..., 0] <= res.estimates + 1e-12).all()
    assert (res.estimates <= res.simultaneous[..., 1] + 1e-12).all()
    assert (res.simultaneous[..., 1] - res.simultaneous[..., 0] >= res.pointwise[..., 1] - res.pointwise[..., 0]
            - 1e-9).mean() > 0.9  # the whole-curve band is the wider one


def test_misaligned_runs_are_put_on_a_grid_and_said(data):
    jittered = data.assign(step=data["step"] + np.where(data["step"] > 0, data["seed"] * 7, 0))
    late = (jittered["seed"] == 1) & (jittered["task"] == "task_02") & (jittered["step"] < 200_000)
    res = rlstats.curves(jittered[~late], FORMULA, step="step", n_resamples=50, rng=0, align="linear")
    assert "runs aligned to a grid of 8 steps" in str(res)
    assert any("miss some grid steps" in n for n in res.notes)


def test_errors(data):
    with pytest.raises(DesignError, match="bands of the curves cannot be computed for every agent: they need at least "
                                          "2 runs in some task of each agent, and each has one run in every task"):
        rlstats.curves(data[data["seed"] == 0], FORMULA, step="step")
    with pytest.raises(OptionError, match="'nobody' in compare= is not an agent"):
        rlstats.curves(data, FORMULA, step="step", compare=[("agent_1", "nobody")])
    with pytest.raises(OptionError, match="statistic"):
        rlstats.curves(data, FORMULA, step="step", statistic="mode")
    with pytest.raises(DesignError, match="run column"):
        rlstats.curves(data, "score ~ agent | task", step="step")


def test_grids_and_kept_resamples_are_bounded_before_they_are_allocated(data, monkeypatch):
    import tracemalloc

    far = data.copy()
    far["step"] = far["step"] // 100_000  # logged every step, 0 to 7 ...
    # ... but one run of every agent on every task ends at 10**9: every agent reaches it, a grid of 10**9 steps
    far.loc[far.groupby(["agent", "task"], observed=True)["step"].idxmax(), "step"] = 10**9
    tracemalloc.start()
    with pytest.raises(DesignError, match=r"would have 1,000,000,001 steps, more than the 100,000 a grid may have; "
                                          r"pass steps= with a coarser grid, e.g. steps=range\(0, 1_000_000_001, "):
        rlstats.curves(far, FORMULA, step="step", n_resamples=50)  # 7.45 GiB asked for before
    assert tracemalloc.get_traced_memory()[1] < 50e6
    tracemalloc.stop()
    assert rlstats.curves(far, FORMULA, step="step", steps=range(0, 10**9 + 1, 10**8), n_resamples=50,
                          rng=0).steps.size == 11  # the way out the message names
    with pytest.raises(OptionError, match="steps= has 1,000,000,000,000 steps, more than the 100,000"):
        rlstats.curves(data, FORMULA, step="step", steps=range(10**12))
    with pytest.raises(OptionError, match=r"curves would keep 9,600,000,000 resampled values \(3 agents and 3 "
                                          r"comparisons x n_resamples=10,000,000 x 160 grid steps.*more than the "
                                          r"67,108,864 allowed"):
        rlstats.curves(data, FORMULA, step="step", steps=range(0, 1_600_000, 10_000), n_resamples=10**7,
                       compare="all")


def test_through_compare(data):
    res = rlstats.compare(data, FORMULA, method="curves", step="step", n_resamples=50, rng=0)
    assert isinstance(res, rlstats.CurvesResult) and res.tidy().shape == (3 * 8, 8)


# ----------------------------------------------------------------------------- calibration by simulation


def _truth(df):
    info = df.attrs["simulate_curves"]
    progress = np.array(info["progress"])
    offset, scale = (np.array(list(info[key].values())) for key in ("offset", "scale"))
    effect = np.array(list(info["effect"].values()))
    return (offset[None, :, None] + scale[None, :, None] * progress * (1 + effect[:, None, None])).mean(axis=1)


def _calibrate(n_experiments, seeds, effect):
    """(pointwise coverage, simultaneous coverage, family-wise error, experiments x agents)."""
    pointwise = simultaneous = rejections = 0
    for e in range(n_experiments):
        df = simulate_curves(agents=2, tasks=8, seeds=seeds, steps=20, effect=effect, rho=0.9, noise=0.5,
                             heterogeneity=0.0, rng=1000 + e)
        res = rlstats.curves(df, FORMULA, step="step", statistic="mean", n_resamples=400, rng=e, compare="all")
        truth = _truth(df)
        pointwise += ((res.pointwise[..., 0] <= truth) & (truth <= res.pointwise[..., 1])).mean(axis=1).sum()
        simultaneous += ((res.simultaneous[..., 0] <= truth) & (truth <= res.simultaneous[..., 1])).all(axis=1).sum()
        rejections += bool((res.difference_pvalues[0] <= 0.05).any())
    n = 2 * n_experiments
    return pointwise / n, simultaneous / n, rejections / n_experiments, n


def _check(n_experiments):
    point, simul, fwer, n = _calibrate(n_experiments, seeds=10, effect=0.0)
    se_cover = np.sqrt(0.93 * 0.07 / n)
    se_fwer = np.sqrt(0.05 * 0.95 / n_experiments)
    assert point >= 0.93 - 2 * se_cover, point
    assert simul >= 0.93 - 2 * se_cover, simul
    assert fwer <= 0.05 + 2 * se_fwer, fwer


def test_calibration_reduced():
    """Pointwise and simultaneous 95% bands cover, and alike curves are rarely called different (30 runs: the
    default run's budget, beside the reduced checks of the studentised bands and of the difference band below;
    -m slow runs 1,000)."""
    _check(30)


@pytest.mark.slow
def test_calibration_full():
    _check(1_000)


def test_identical_with_two_jobs_where_blas_would_thread():
    """Per-step sums big enough for OpenBLAS to use several threads here and one in joblib's workers.

    With a matrix product for the optimality gap's sums, this design gave other bits with n_jobs=2.
    """
    data = simulate_curves(agents=2, tasks=20, seeds=20, steps=200, rng=4)
    one = rlstats.curves(data, FORMULA, step="step", statistic="optimality_gap", n_resamples=100, rng=3)
    two = rlstats.curves(data, FORMULA, step="step", statistic="optimality_gap", n_resamples=100, rng=3, n_jobs=2)
    np.testing.assert_array_equal(one.bootstrap_distribution, two.bootstrap_distribution)


def test_identical_with_two_jobs(data):
    one = rlstats.curves(data, FORMULA, step="step", n_resamples=200, rng=3, compare="all")
    two = rlstats.curves(data, FORMULA, step="step", n_resamples=200, rng=3, compare="all", n_jobs=2)
    np.testing.assert_array_equal(one.bootstrap_distribution, two.bootstrap_distribution)
    np.testing.assert_array_equal(one.difference_pvalues, two.difference_pvalues)
    for field in ("df", "pointwise", "simultaneous", "difference_bands"):
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field))


# ----------------------------------------------------------------------------- small-sample widening


def test_effective_df_is_n_minus_one_for_one_task_and_follows_the_variance_over_tasks():
    one = simulate_curves(agents=2, tasks=1, seeds=5, steps=4, rng=0)
    res = rlstats.curves(one, FORMULA, step="step", statistic="mean", n_resamples=500, rng=0)
    np.testing.assert_allclose(res.df, 4.0, rtol=1e-9)
    alike = simulate_curves(agents=2, tasks=6, seeds=5, steps=4, heterogeneity=0.0, rng=0)
    res = rlstats.curves(alike, FORMULA, step="step", statistic="mean", n_resamples=2_000, rng=0)
    assert (res.df > 12).all() and (res.df <= 24 + 1e-9).all(), res.df  # 6 x 4 when the tasks' variances agree
    loud = alike.assign(score=np.where(alike["task"] == "task_01", 100.0, 1.0) * alike["score"])
    res = rlstats.curves(loud, FORMULA, step="step", statistic="mean", n_resamples=2_000, rng=0)
    assert (res.df < 4.5).all(), res.df  # one task carries the variance: its n - 1


def test_bands_are_t_intervals_for_the_mean_of_one_task():
    # One task: the bootstrap SE widened by sqrt(n/(n - 1)) is s / sqrt(n), and the pointwise band's half-widths
    # are the percentile's scaled by t_(n-1) / z; the simultaneous band's multiplier is a t_(n-1) quantile.
    one = simulate_curves(agents=2, tasks=1, seeds=6, steps=5, rng=1)
    res = rlstats.curves(one, FORMULA, step="step", statistic="mean", n_resamples=4_000, rng=0, bands="expanded")
    runs = one[one["agent"] == "agent_1"].pivot_table(index="seed", columns="step", values="score",
                                                       observed=True).to_numpy()
    np.testing.assert_allclose(res.std_error[0], runs.std(axis=0, ddof=1) / np.sqrt(6), rtol=0.05)
    ratio = stats.t.isf(0.025, 5) / stats.norm.isf(0.025)
    raw = _kernels.percentile_bounds(res.bootstrap_distribution[0], res.estimates[0], 0.95)
    np.testing.assert_allclose(res.pointwise[0] - res.estimates[0][:, None],
                               ratio * (raw - res.estimates[0][:, None]), rtol=1e-12)
    tail = stats.t.sf(res.critical_value[0], 5)
    np.testing.assert_allclose(tail, tail[0], rtol=1e-9)
    assert res.critical_value[0, 0] > stats.t.isf(0.025, 5)  # wider than pointwise


# ----------------------------------------------------------------------------- studentised bands (issue 40)


def _runs(n_per_task, steps=3, seed=0):
    """(values (runs, steps) sorted by task, task codes) of tasks with these run counts, on other scales."""
    rng = np.random.default_rng(seed)
    task_of = np.repeat(np.arange(len(n_per_task)), n_per_task)
    values = rng.lognormal(size=(task_of.size, steps)) * (1 + task_of)[:, None]
    return values, task_of


@pytest.mark.parametrize("statistic", ["mean", "iqm", "median", "optimality_gap"])
def test_standard_error_of_each_statistic_on_the_runs_and_on_weights(statistic):
    values, task_of = _runs([4, 6, 5])
    prepared = _kernels.Prepared(values, task_of, 3, 2.0)
    ones = np.ones((1, task_of.size))
    limits = _kernels.iqm_limits(prepared, ones) if statistic == "iqm" else None
    se = _kernels.weighted_std_error(prepared, ones, statistic, limits)[0]
    groups = [values[task_of == t] for t in range(3)]
    n = np.array([g.shape[0] for g in groups])[:, None]
    if statistic == "mean":
        expected = np.sqrt(sum(g.var(axis=0, ddof=1) / g.shape[0] for g in groups)) / 3
    elif statistic == "median":
        expected = np.sqrt(np.mean([g.var(axis=0, ddof=1) / g.shape[0] for g in groups], axis=0))
    elif statistic == "iqm":
        # tasks of 4, 6 and 5 runs weigh alike (audit s8): a run counts 6 / c_t copies of 18, floor(18 / 4) = 4 cut
        # from each end, winsorised at the first and last kept value; a task's weight 6 of the 10 kept
        copies = np.concatenate([np.full(g.shape[0], 6 / g.shape[0]) for g in groups])
        pooled = np.concatenate(groups)
        order = np.argsort(pooled, axis=0, kind="stable")
        cumulative = np.cumsum(copies[order], axis=0)
        ordered = np.take_along_axis(pooled, order, axis=0)
        low = np.take_along_axis(ordered, np.argmax(cumulative > 4 + 1e-9, axis=0)[None], axis=0)[0]
        high = np.take_along_axis(ordered, np.argmax(cumulative > 14 - 1e-9, axis=0)[None], axis=0)[0]
        groups = [np.clip(g, low, high) for g in groups]
        expected = 6 * np.sqrt(sum(g.var(axis=0, ddof=1) / g.shape[0] for g in groups)) / 10
    else:  # each task alike: the mean over tasks of the shortfalls' task means
        groups = [np.maximum(2.0 - g, 0.0) for g in groups]
        expected = np.sqrt(sum(g.var(axis=0, ddof=1) / g.shape[0] for g in groups)) / 3
    np.testing.assert_allclose(se, expected, rtol=1e-12)
    if statistic == "iqm":  # repeating runs changes c_max, and with it the copies the IQM cuts: no such identity
        return
    # weights are runs repeated: the standard error of the runs written out that often
    weights = np.random.default_rng(1).integers(1, 4, size=(1, task_of.size)).astype(float)
    repeated = np.repeat(np.arange(task_of.size), weights[0].astype(int))
    again = _kernels.Prepared(values[repeated], task_of[repeated], 3, 2.0)
    flat = np.ones((1, repeated.size))
    np.testing.assert_allclose(
        _kernels.weighted_std_error(prepared, weights, statistic, limits),
        _kernels.weighted_std_error(again, flat, statistic, limits), rtol=1e-12)
    assert n.sum() == 15


def test_studentized_bands_are_the_bootstrap_t_quantiles():
    rng = np.random.default_rng(0)
    replicates, errors = rng.normal(size=(999, 4)), rng.uniform(0.05, 1.5, size=(999, 4))
    estimate, se = np.array([0.1, 0.0, -0.2, 0.3]), np.array([1.0, 2.0, 0.5, 1.0])
    pointwise, simultaneous = _kernels.studentized_bands(replicates, errors, estimate, se, 0.95, np.full(4, 1e-12), 0.25)
    # each resample's standard error floored at a quarter of the resamples' standard deviation at the step
    floor = 0.25 * replicates.std(axis=0, ddof=1)
    t = (replicates - estimate) / np.maximum(errors, floor)
    by_hand = np.sort(t, axis=0)  # 'higher' and 'lower' quantiles of 999: the 975th and 25th smallest
    np.testing.assert_allclose(pointwise[:, 0], estimate - by_hand[974] * se, rtol=1e-12)
    np.testing.assert_allclose(pointwise[:, 1], estimate - by_hand[24] * se, rtol=1e-12)
    top, bottom = np.sort(t.max(axis=1))[974], np.sort(t.min(axis=1))[24]
    np.testing.assert_allclose(simultaneous, np.stack([estimate - top * se, estimate - bottom * se], axis=1))
    assert (floor > errors.min(axis=0)).all()  # the floor acts here
    # 3% of resamples without spread, far above the estimate: floored, their t is their deviation over the floor
    errors[:30, 2], replicates[:30, 2] = 0.0, 5.0
    pointwise, simultaneous = _kernels.studentized_bands(replicates, errors, estimate, se, 0.95, np.full(4, 1e-12), 0.25)
    t = (replicates[:, 2] - estimate[2]) / np.maximum(errors[:, 2], 0.25 * replicates[:, 2].std(ddof=1))
    np.testing.assert_allclose(pointwise[2, 0], estimate[2] - np.sort(t)[974] * se[2], rtol=1e-12)
    assert np.isfinite(simultaneous).all()
    # without the floor (the bootstrap-t as such) their t is infinite: the step is withheld (NaN) in both bands
    pointwise, simultaneous = _kernels.studentized_bands(replicates, errors, estimate, se, 0.95, np.full(4, 1e-12))
    assert np.isnan(pointwise[2]).all() and np.isnan(simultaneous[2]).all() and np.isfinite(simultaneous[[0, 1, 3]]).all()


def test_default_bands_hold_the_expanded_ones_and_those_stay_as_they_were(data):
    new = rlstats.curves(data, FORMULA, step="step", n_resamples=300, rng=4)
    old = rlstats.curves(data, FORMULA, step="step", n_resamples=300, rng=4, bands="expanded")
    np.testing.assert_array_equal(new.bootstrap_distribution, old.bootstrap_distribution)  # the same resamples
    np.testing.assert_array_equal(old.pointwise, COVERAGE["expanded_bands"](data, "iqm", 300, 4)[0])
    np.testing.assert_array_equal(old.simultaneous, COVERAGE["expanded_bands"](data, "iqm", 300, 4)[1])
    assert (new.pointwise[..., 0] <= old.pointwise[..., 0]).all() and (new.pointwise[..., 1] >= old.pointwise[..., 1]).all()
    assert (new.simultaneous[..., 0] <= old.simultaneous[..., 0]).all()
    assert (new.simultaneous[..., 1] >= old.simultaneous[..., 1]).all()
    assert any("studentised (bootstrap-t)" in n for n in new.notes) and not any("bootstrap-t" in n for n in old.notes)


def test_bands_are_withheld_at_two_runs_and_where_resamples_have_no_spread():
    two = simulate_curves(agents=2, tasks=4, seeds=2, steps=5, rng=0)
    res = rlstats.curves(two, FORMULA, step="step", n_resamples=200, rng=0)
    assert np.isnan(res.pointwise).all() and np.isnan(res.simultaneous).all() and np.isfinite(res.estimates).all()
    assert any("withheld for agent_1 and agent_2: with 2 runs of a task" in n and "add runs" in n for n in res.notes)
    assert "band withheld" in str(res)
    assert np.isfinite(rlstats.curves(two, FORMULA, step="step", n_resamples=200, rng=0,
                                      bands="expanded").simultaneous).all()
    one = simulate_curves(agents=1, tasks=1, seeds=3, steps=5, rng=0)
    res = rlstats.curves(one, FORMULA, step="step", statistic="mean", n_resamples=400, rng=0)
    assert np.isnan(res.simultaneous).all()  # 3 of 27 resamples repeat one run: single runs set the tail
    assert any("withheld for agent_1: more than 0.025 of the resamples repeat one run in every task" in n
               and "add runs (at least 4 with one task) or tasks" in n for n in res.notes)
    four = simulate_curves(agents=1, tasks=1, seeds=4, steps=5, rng=0)
    assert np.isfinite(rlstats.curves(four, FORMULA, step="step", statistic="mean", n_resamples=400,
                                      rng=0).simultaneous).all()
    # read at each step on the runs logged there: a run that ends early leaves 3, and those steps are withheld
    cut = four[~((four["seed"] == 0) & (four["step"] >= sorted(four["step"].unique())[3]))]
    res = rlstats.curves(cut, FORMULA, step="step", statistic="mean", n_resamples=400, rng=0)
    assert np.isnan(res.simultaneous[0, 3:]).all() and np.isfinite(res.simultaneous[0, :3]).all()
    assert any("withheld for agent_1 at 2 steps: more than 0.025" in n for n in res.notes)


def test_the_default_band_at_five_runs_stays_within_the_data(monkeypatch):
    """2 tasks x 5 runs whose IQM's winsorised runs tie in some resamples: their standard error near 0 once gave a
    band 75 data ranges wide (below: its lower end 74.8 ranges under the data; since audit s32's label-keyed streams
    the unfloored band is 54.8 ranges wide, its lower end 39.1 under; the former keys gave 74.8);
    floored at a quarter of the resamples' spread, the band stays near the data. Since audit s33 curvestream33 (each
    task's runs drawn from its cell's stream, in their content's order) rng=0 draws an unfloored lower end 9.0 ranges
    under; over rng=0..7 it lies 9.0, 32.0, 0.5, -, 0.6, 70.6, - and 67.5 under (-: withheld at every step as far
    beyond the scores), the floored one within 0.06 of the data's range at every one: rng=1 here."""
    data = simulate_curves(agents=2, tasks=2, seeds=5, steps=5, rng=35)
    low, high = data["score"].min(), data["score"].max()
    res = rlstats.curves(data, FORMULA, step="step", n_resamples=200, rng=1)
    assert np.isfinite(res.simultaneous).all()
    assert (res.simultaneous[..., 0] > low - (high - low)).all()
    assert (res.simultaneous[..., 1] < high + (high - low)).all()
    monkeypatch.setitem(_kernels.SE_FLOOR, "iqm", 0.0)  # the bootstrap-t without the floor, as before
    monkeypatch.setattr(_api, "UNITS_SLIP", np.inf)  # and without withholding bands far beyond the scores (audit s20)
    bare = rlstats.curves(data, FORMULA, step="step", n_resamples=200, rng=1)
    assert np.nanmin(bare.simultaneous[..., 0]) < low - 30 * (high - low)


def test_the_mean_band_of_one_task_is_floored_and_says_so(monkeypatch):
    """5 runs of one task: resamples of 2 distinct runs have a standard error near 0 where their runs cross, which
    unfloored set the largest ratio over steps; floored at 0.15 of the resamples' spread the band is far narrower.
    (Since audit s33 curvestream33's streams, the mean widths floored and not over rng=0..7 are 3.0/5.9, 3.0/19.6,
    3.1/19.6, 3.3/5.9, 3.1/7.0, 3.1/5.6, 3.8/19.8 and 3.0/6.2: rng=1 here, as rng=0 drew before.)"""
    one = simulate_curves(agents=1, tasks=1, seeds=5, steps=10, rho=0.8, rng=3)
    res = rlstats.curves(one, FORMULA, step="step", statistic="mean", n_resamples=400, rng=1)
    assert _kernels.SE_FLOOR["mean"] == 0.15
    assert any("at least 0.15 times the resamples' standard deviation at the step" in n for n in res.notes)
    monkeypatch.setitem(_kernels.SE_FLOOR, "mean", 0.0)  # the bootstrap-t of the mean before the floor
    monkeypatch.setattr(_api, "UNITS_SLIP", np.inf)  # and without withholding bands far beyond the scores (audit s20)
    bare = rlstats.curves(one, FORMULA, step="step", statistic="mean", n_resamples=400, rng=1)
    np.testing.assert_array_equal(res.estimates, bare.estimates)
    width, bare_width = (np.mean(r.simultaneous[0, :, 1] - r.simultaneous[0, :, 0]) for r in (res, bare))
    assert width < bare_width / 3, (width, bare_width)  # 3.0 against 19.6 here
    assert not any("at least" in n for n in bare.notes)


def test_share_of_resamples_repeating_one_run_in_every_task_is_counted():
    from itertools import product

    counts = np.array([[3, 2, 4], [0, 3, 1]])  # (tasks, agents); agent 3 has one run on task 2: always repeated
    expected = []
    for a in range(3):
        sizes = [n for n in counts[:, a] if n]
        draws = list(product(*[list(product(range(n), repeat=n)) for n in sizes]))  # every resample of every task
        expected.append(np.mean([all(len(set(task)) == 1 for task in draw) for draw in draws]))
    np.testing.assert_allclose(_api.repeat_share(counts), expected, rtol=1e-12)
    assert _api.repeat_share(counts)[0] == pytest.approx(1 / 9)


def test_a_statistic_function_keeps_the_expanded_bands_and_says_so(data):
    def middle(x):
        return np.nanmedian(x, axis=(-2, -1))

    res = rlstats.curves(data, FORMULA, step="step", statistic=middle, n_resamples=100, rng=0)
    assert np.isfinite(res.simultaneous).all()
    assert any("the bands of the statistic function middle are the t-expanded" in n for n in res.notes)


# ----------------------------------------------------------------------------- difference band and max-T


def test_max_t_band_excludes_zero_exactly_where_p_is_at_most_alpha():
    rng = np.random.default_rng(0)
    null = rng.normal(size=(199, 5)) * np.array([1.0, 2.0, 1.0, 0.5, 3.0])
    observed = np.array([0.0, 5.0, -2.9, 1.4, 0.2])
    p, se = _kernels.max_t_pvalues(observed, null)
    band, c = _kernels.max_t_band(observed, null, 0.05)
    t_max = np.max(np.abs(null) / se, axis=1)
    # the threshold is the 10th largest max |t|: 1 + 9 hits of 200 relabellings is p = 0.05, 1 + 10 is above
    assert np.sum(t_max > c * (1 - 1e-12)) == 9 and np.sum(t_max >= c * (1 - 1e-12)) == 10
    excludes = (band[:, 0] > 0) | (band[:, 1] < 0)
    np.testing.assert_array_equal(excludes, p <= 0.05)
    assert excludes.any() and not excludes.all()
    for t in (c * (1 - 1e-9), c * (1 + 1e-9)):  # either side of the threshold
        at = np.array([t * se[0], 0, 0, 0, 0])
        assert (_kernels.max_t_pvalues(at, null)[0][0] <= 0.05) == (_kernels.max_t_band(at, null, 0.05)[0][0, 0] > 0)
    band, c = _kernels.max_t_band(observed, null[:15], 0.05)  # 15 relabellings cannot reach p <= 0.05
    assert c == np.inf and np.isinf(band).all()


def test_difference_band_agrees_with_the_decision_on_an_example():
    df = simulate_curves(agents=2, tasks=3, seeds=5, steps=10, effect=[0.0, 0.6], noise=0.3, rng=3)
    res = rlstats.curves(df, FORMULA, step="step", statistic="mean", n_resamples=999, rng=0, compare="all")
    table = res.difference("agent_2", "agent_1")
    excludes = (table["conf_low"] > 0) | (table["conf_high"] < 0)
    np.testing.assert_array_equal(excludes, table["significant"])
    assert 0 < table["significant"].sum() < len(table)  # step 0 (no progress yet) does not differ
    assert "excludes 0 exactly where a step is declared different" in res.report()


def test_difference_band_holds_zero_as_often_as_max_t_and_at_level():
    """Null curves: the band excludes 0 somewhere exactly when max-T rejects, at rate <= alpha (60 data sets; the
    level's bound, 0.134, still fails a band that rejects in a seventh of null data sets)."""
    excludes = rejects = 0
    for e in range(60):
        df = simulate_curves(agents=2, tasks=3, seeds=4, steps=8, rho=0.7, heterogeneity=1.0, rng=500 + e)
        res = rlstats.curves(df, FORMULA, step="step", statistic="iqm", n_resamples=199, rng=e, compare="all")
        band, p = res.difference_bands[0], res.difference_pvalues[0]
        step_excludes = (band[:, 0] > 0) | (band[:, 1] < 0)
        np.testing.assert_array_equal(step_excludes, p <= 0.05)
        excludes += step_excludes.any()
        rejects += (p <= 0.05).any()
    assert excludes == rejects
    assert rejects / 60 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 60), rejects


# ----------------------------------------------------------------------------- measured coverage


def _calibration_row(statistic, runs, tasks, distribution, agents, band, interval):
    from rlstats import calibration

    rows = [r for r in calibration.rows(_api.CALIBRATION) if (r["statistic"], int(r["runs"]), int(r["tasks"]),
            r["distribution"], int(r["agents"]), r["band"], r["interval"])
            == (statistic, runs, tasks, distribution, agents, band, interval)]
    assert len(rows) == 1, "the calibration table lacks this grid point"
    return rows[0]


def _check_coverage(point, n_sim, n_resamples, draws=None):
    """Re-measured: the studentised bands, the difference band and max-T hold their level within 3 SE, and each
    re-measured row agrees with the table's within 4 SE of the two (the expanded bands may miss: they are
    quoted). Returns the rows by (interval, band)."""
    rows = {}
    for row in COVERAGE["measure"](*point, n_sim, n_resamples=n_resamples, seed=99, draws=draws):
        rows[row["interval"], row["band"]] = row
        if row["interval"] != "expanded":
            bound = 0.95 - 3 * math.sqrt(0.05 * 0.95 / row["n_sim"])
            assert row["coverage"] >= bound, (point, row)
        tabled = _calibration_row(*point, row["band"], row["interval"])
        # the SE of the difference of two binomial shares at their pooled coverage (at least 95%'s): an expanded row
        # lies far below 95% (0.633 of 120 at 3 runs of one skewed task), where 95%'s SE is under half the binomial one
        n_tabled = int(tabled["n_sim"])
        pooled = (row["coverage"] * row["n_sim"] + float(tabled["coverage"]) * n_tabled) / (row["n_sim"] + n_tabled)
        joint = math.sqrt(max(pooled * (1 - pooled), 0.05 * 0.95) * (1 / row["n_sim"] + 1 / n_tabled))
        assert abs(row["coverage"] - float(tabled["coverage"])) <= 4 * joint, (point, row, tabled["coverage"])
    return rows


def test_bands_hold_their_level_reduced():
    """Skewed scores, 5 runs of 5 tasks, the mean: the studentised simultaneous band holds its level where the
    expanded one (the default before issue 40) does not, from the same resamples (40 data sets, 2 design draws);
    and the IQM's band at 5 runs of one task is given and holds its level (10 data sets: 20 until session 40; both
    one-task checks still fail with their standard errors unfloored)."""
    rows = _check_coverage(("mean", 5, 5, "skewed", 2), n_sim=40, n_resamples=200, draws=2)
    new, old = rows["studentized", "simultaneous"], rows["expanded", "simultaneous"]
    assert new["coverage"] >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / new["n_sim"]) > old["coverage"], (new, old)
    assert 1.0 < new["width"] / old["width"] < 3.0  # wider, as covering asks, within a bound
    # the IQM of 5 runs of one task with capped scores: its winsorised runs tie in many resamples, whose floored
    # standard error keeps the band given (it was withheld in 9 of 10 data sets) and at its level
    rows = _check_coverage(("iqm", 5, 1, "capped", 2), n_sim=10, n_resamples=200, draws=2)
    new, old = rows["studentized", "simultaneous"], rows["expanded", "simultaneous"]
    assert new["withheld"] == 0 and new["n_sim"] == 20 and 1.0 <= new["width"] / old["width"] < 2.0, (new, old)
    # the mean of 5 skewed runs of one task: a tenth of the resamples hold 2 distinct runs, whose standard error nears
    # 0 where their trajectories cross; floored at 0.15 of the resamples' spread, the band holds its level at 2.5
    # times the expanded band's width (unfloored: 7.6 times, covering 1.00)
    rows = _check_coverage(("mean", 5, 1, "skewed", 2), n_sim=10, n_resamples=200, draws=2)
    new, old = rows["studentized", "simultaneous"], rows["expanded", "simultaneous"]
    assert new["withheld"] == 0 and 1.0 < new["width"] / old["width"] < 4.0, (new, old)


@pytest.mark.slow
@pytest.mark.parametrize("point", COVERAGE["grid"](), ids=lambda point: "-".join(map(str, point)))
def test_bands_hold_their_level(point):
    _check_coverage(point, n_sim=60, n_resamples=300)


def test_results_quote_a_measured_shortfall(monkeypatch):
    from rlstats import calibration

    rows = ({"statistic": "iqm", "band": "simultaneous", "interval": "studentized", "runs": "3", "tasks": "5",
             "distribution": "capped", "agents": "2", "n_sim": "150", "n_resamples": "500", "coverage": "0.88",
             "se": "0.019"},)
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "curves.band" else ())
    df = simulate_curves(agents=2, tasks=4, seeds=4, steps=5, rng=0)
    res = rlstats.curves(df, FORMULA, step="step", n_resamples=50, rng=0)
    assert ("measured coverage of the simultaneous band of the IQM at the nearest simulated design (3 runs per task, "
            "5 tasks): 0.880 (capped scores, 150 simulated curves), below 0.95 by more than 3 Monte Carlo standard "
            "errors"
            in res.notes)
    assert not any("measured" in n for n in rlstats.curves(df, FORMULA, step="step", n_resamples=50, rng=0,
                                                            confidence_level=0.9).notes)
    assert not any("measured" in n for n in rlstats.curves(df[df["seed"] < 2], FORMULA, step="step",
                                                            n_resamples=50, rng=0).notes)  # 2 runs: not on file


def test_calibration_table_ships_with_the_package():
    import configparser

    from rlstats import calibration

    config = configparser.ConfigParser()
    config.read(pathlib.Path(__file__).resolve().parents[1] / "setup.cfg")
    assert "calibration.csv" in config.get("options.package_data", "rlstats")
    # audit s12's re-measurement at 8 agents, 10 and 26 tasks (tests/reference/coverage_curves_fresh.py) is checked
    # by tests/test_audit_s12_curvessim.py
    # and audit s28's gap bands of agents below gamma (tests/reference/coverage_curves_gap.py), by
    # tests/test_audit_s28_gapkinds28.py
    # and audit s28's rows where runs end early or start late (tests/reference/coverage_curves_early.py), by
    # tests/test_audit_s28_early28.py
    # and audit s34's on 3 tasks far apart (tests/reference/coverage_far_apart.py), by tests/test_audit_s34_iqmfar34.py
    # and audit s35's on 3 tasks whose runs lie apart by chance (coverage_apart_by_chance.py), by
    # tests/test_audit_s35_apart35.py
    rows = [r for r in calibration.rows(_api.CALIBRATION) if r["agents"] != "8" and r["statistic"] != "optimality_gap"
            and not r["configuration"].startswith(calibration.RUNS_CUT)
            and r["configuration"] not in (calibration.FAR_APART, calibration.APART_BY_CHANCE)]
    assert calibration.PATH.is_file() and {(r["statistic"], int(r["runs"]), int(r["tasks"]), r["distribution"],
                                            int(r["agents"])) for r in rows} == set(COVERAGE["grid"]())
    assert all(r["design_draws"] == "4" and r["distribution"] in COVERAGE["DISTRIBUTIONS"] for r in rows)
    # both band methods at every design where the studentised bands are given (from 3 runs; 4 with one task)
    for point in COVERAGE["grid"]():
        methods = {r["interval"] for r in rows if (r["statistic"], int(r["runs"]), int(r["tasks"]),
                                                   r["distribution"], int(r["agents"])) == point}
        assert "expanded" in methods and ("studentized" in methods or point[1] == 2 or point[1:3] == (3, 1))


# ----------------------------------------------------------------------------- budgets, missing agents, scales (issue 29)


def _budgets(scale=1.0):
    """Two agents on a 30k task and a 20k task (3 seeds, evaluations every 5k) and a third agent on the 30k task
    only, for 20k, as in the SB3 logs; ``scale`` multiplies the 20k task's scores."""
    rng = np.random.default_rng(0)
    rows = []
    for agent, tasks in (("A2C", ("CartPole-v1", "Acrobot-v1")), ("PPO", ("CartPole-v1", "Acrobot-v1")),
                         ("DQN", ("CartPole-v1",))):
        for task in tasks:
            end = 20_000 if agent == "DQN" or task == "Acrobot-v1" else 30_000
            for seed in range(3):
                for step in range(5_000, end + 1, 5_000):
                    value = step / 1_000 + rng.normal()
                    rows.append((agent, task, seed, step, value * (scale if task == "Acrobot-v1" else 1.0)))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_an_agent_without_runs_on_a_task_is_named_unless_dropped():
    data = _budgets()
    with pytest.raises(DesignError) as error:
        rlstats.curves(data, FORMULA, step="step", n_resamples=50, rng=0)
    for phrase in ("agent 'DQN' on task 'Acrobot-v1'", "subset=\"agent != 'DQN'\" leaves that agent out",
                   "na_action=\"drop\""):
        assert phrase in str(error.value)
    dropped = rlstats.curves(data, FORMULA, step="step", n_resamples=50, rng=0, na_action="drop")
    assert dropped.tasks == ("CartPole-v1",) and "1 task left out because some agent has no runs there" in str(dropped)


def test_tasks_with_different_budgets_are_aggregated_where_every_task_has_data():
    data = _budgets()
    # 3 runs of 2 tasks: the studentised bands are withheld at some steps; the grid is the point here
    res = rlstats.curves(data, FORMULA, step="step", subset="agent != 'DQN'", n_resamples=50, rng=0, bands="expanded")
    assert res.steps.dtype == np.int64 and res.steps.tolist() == [5_000, 10_000, 15_000, 20_000]
    assert np.isfinite(res.estimates).all() and np.isfinite(res.simultaneous).all()
    for j, agent in enumerate(res.agents):  # IQM of the 6 runs of both tasks at each step (scipy)
        for s, step in enumerate(res.steps):
            cell = data[(data["agent"] == agent) & (data["step"] == step)]["score"]
            assert res.estimates[j, s] == pytest.approx(stats.trim_mean(cell, 0.25), rel=1e-12)
    text = str(res)
    assert "steps = 4 (5k to 20k)" in text and "IQM at the last step (20k)" in text
    assert ("curves cover steps 5k to 20k, within the steps every agent reaches on every task (the runs of A2C on "
            "Acrobot-v1, PPO on Acrobot-v1 stop at 20k)") in text
    assert "logged beyond them: CartPole-v1 (5k to 30k); pass subset= to see one task" in text
    assert "subset=\"agent != 'DQN'\" kept 60 of 72 rows" in text
    one_task = rlstats.curves(data, FORMULA, step="step", subset="task == 'CartPole-v1' and agent != 'DQN'",
                              n_resamples=50, rng=0)
    assert one_task.steps.tolist() == [5_000, 10_000, 15_000, 20_000, 25_000, 30_000]
    assert not any("logged beyond" in note for note in one_task.notes)


def test_subset_works_as_in_compare(data):
    mask = (data["task"] != "task_01").to_numpy()
    by_text = rlstats.curves(data, FORMULA, step="step", subset="task != 'task_01'", n_resamples=50, rng=0)
    by_mask = rlstats.curves(data, FORMULA, step="step", subset=mask, n_resamples=50, rng=0)
    through_compare = rlstats.compare(data, FORMULA, method="curves", step="step", subset="task != 'task_01'",
                                      n_resamples=50, rng=0)
    np.testing.assert_array_equal(by_text.bootstrap_distribution, by_mask.bootstrap_distribution)
    np.testing.assert_array_equal(by_text.bootstrap_distribution, through_compare.bootstrap_distribution)
    assert by_text.tasks == ("task_02", "task_03", "task_04")
    assert "subset=\"task != 'task_01'\" kept 432 of 576 rows" in str(by_text)
    assert "subset=a boolean mask kept 432 of 576 rows" in str(by_mask)


def test_one_agent_is_enough_for_curves_and_bootstrap(data):
    alone = data[data["agent"] == "agent_2"]
    res = rlstats.curves(alone, FORMULA, step="step", n_resamples=200, rng=0)
    assert res.agents == ("agent_2",) and res.tasks == ("task_01", "task_02", "task_03", "task_04")
    both = rlstats.curves(data, FORMULA, step="step", n_resamples=200, rng=0)
    np.testing.assert_array_equal(res.estimates[0], both.estimates[1])
    band = res.simultaneous[0]
    assert (band[:, 0] < res.estimates[0]).all() and (res.estimates[0] < band[:, 1]).all()
    assert res.plot() is not None
    last = alone[alone["step"] == alone["step"].max()]
    boot = rlstats.bootstrap(last, "score ~ agent | task", metrics=["iqm"], n_resamples=200, rng=0)
    assert boot.estimates[0, 0] == pytest.approx(stats.trim_mean(last["score"], 0.25), rel=1e-12)
    pair = rlstats.bootstrap(data[data["step"] == data["step"].max()], "score ~ agent | task", metrics=["iqm"],
                             n_resamples=200, rng=0)
    np.testing.assert_array_equal(boot.intervals[0], pair.intervals[1])  # each agent draws from its own stream


def test_scales_apart_warn_unless_said_to_be_one_scale():
    import warnings

    apart = _budgets(scale=1_000.0)
    options = dict(step="step", subset="agent != 'DQN'", n_resamples=50, rng=0)
    with pytest.warns(rlstats.RlstatsWarning, match=r"scores of 2 tasks are aggregated on their own scales .* "
                                                    r"or pass normalize=False if they are on one scale already"):
        rlstats.curves(apart, FORMULA, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = rlstats.curves(apart, FORMULA, normalize=False, **options)
        rlstats.curves(_budgets(), FORMULA, **options)  # the same scale: no warning
        final = apart[(apart["step"] == 20_000) & (apart["agent"] != "DQN")]
        rlstats.bootstrap(final, "score ~ agent | task", normalize=False, n_resamples=50, rng=0)
    with pytest.warns(rlstats.RlstatsWarning, match="on their own scales"):
        rlstats.bootstrap(final, "score ~ agent | task", n_resamples=50, rng=0)
    assert plain.estimates.shape == (2, 4)
    with pytest.raises(OptionError, match="normalize=True does not say how to normalise"):
        rlstats.curves(apart, FORMULA, normalize=True, **options)


def test_real_sb3_logs(sb3):
    with pytest.raises(DesignError, match="agent 'DQN' on task 'Acrobot-v1'"):
        rlstats.curves(sb3, FORMULA, step="step", n_resamples=200, rng=0)
    res = rlstats.curves(sb3, FORMULA, step="step", n_resamples=200, rng=0, na_action="drop")
    assert res.agents == ("A2C", "DQN", "PPO") and res.steps.tolist() == [5_000, 10_000, 15_000, 20_000]
    assert np.isfinite(res.estimates).all() and "NaN" not in str(res)
    at_20k = sb3[(sb3["step"] == 20_000) & (sb3["task"] == "CartPole-v1")]
    for j, agent in enumerate(res.agents):
        assert res.estimates[j, -1] == pytest.approx(
            stats.trim_mean(at_20k[at_20k["agent"] == agent]["score"], 0.25), rel=1e-6)
    assert "the runs of DQN on CartPole-v1 stop at 20k" in str(res)
    others = rlstats.curves(sb3, FORMULA, step="step", n_resamples=200, rng=0, subset="agent != 'DQN'")
    assert np.isfinite(others.estimates).all() and others.steps[-1] == 20_000
    ppo = rlstats.curves(sb3, FORMULA, step="step", n_resamples=200, rng=0,
                         subset="agent == 'PPO' and task == 'CartPole-v1'")
    # 3 runs of one task: the studentised bands are withheld (issue 40), the expanded ones are not
    assert ppo.steps.tolist() == list(range(5_000, 30_001, 5_000)) and np.isnan(ppo.simultaneous).all()
    assert any("add runs (at least 4 with one task) or tasks" in n for n in ppo.notes)
    ppo = rlstats.curves(sb3, FORMULA, step="step", n_resamples=200, rng=0, bands="expanded",
                         subset="agent == 'PPO' and task == 'CartPole-v1'")
    assert np.isfinite(ppo.simultaneous).all()


# ---- issue 39 item 5: a score with known bounds never gets a band outside them
def test_bounds_clip_the_bands_at_the_cap():
    df = rlstats.datasets.simulate_curves(agents=2, tasks=1, seeds=4, steps=5, rng=0)
    cap = float(df["score"].quantile(0.6))
    df["score"] = np.minimum(df["score"], cap)  # a return capped where most runs reach it
    # bands="expanded": at 4 runs of one task the studentised bands are withheld where the runs tie at the cap
    options = {"step": "step", "n_resamples": 200, "rng": 0, "compare": "all", "statistic": "mean", "bands": "expanded"}
    free = rlstats.curves(df, "score ~ agent | task/seed", **options)
    capped = rlstats.curves(df, "score ~ agent | task/seed", bounds=(None, cap), **options)
    assert free.simultaneous.max() > cap and free.pointwise.max() > cap
    np.testing.assert_array_equal(capped.simultaneous, np.minimum(free.simultaneous, cap))
    np.testing.assert_array_equal(capped.pointwise, np.minimum(free.pointwise, cap))
    np.testing.assert_array_equal(capped.estimates, free.estimates)
    moved = int((free.simultaneous > cap).sum())
    ends = rlstats.format.count(moved, "end")
    assert any(note.startswith(f"{ends} of the simultaneous bands of the mean clipped to (-inf, ")
               for note in capped.notes)
    # the difference of two means lies within plus or minus the bounds' width: (0, cap) leaves the bands as they are
    both = rlstats.curves(df, "score ~ agent | task/seed", bounds=(0, cap), **options)
    np.testing.assert_array_equal(both.difference_bands, np.clip(free.difference_bands, -cap, cap))


# issue 43 item 1: the standard errors of a block of resamples, a few rows at a time, are those of one pass
@pytest.mark.parametrize("statistic", ["mean", "iqm"])
def test_standard_errors_in_row_pieces_equal_one_pass(statistic, monkeypatch):
    values, task_of = _runs([4, 6, 5], steps=7)
    prepared = _kernels.Prepared(values, task_of, 3, 2.0)
    weights = np.random.default_rng(1).poisson(1.0, size=(9, task_of.size)).astype(float) + 0.5
    whole = _kernels.weighted_std_error(prepared, weights, statistic)
    monkeypatch.setattr(_kernels, "CHUNK_ELEMENTS", 3 * prepared.slots * 7 * 2)  # two rows a piece
    np.testing.assert_array_equal(_kernels.weighted_std_error(prepared, weights, statistic), whole)
    assert whole.shape == (9, 7) and np.isfinite(whole).all()


def test_a_comparison_gives_the_same_pvalues_whichever_agent_is_named_first(data):
    # [audit s7c] the relabellings draw on the pair's runs in the design's order, so (a, b) and (b, a) share them
    kw = dict(step="step", n_resamples=100, rng=2, progress=False, bands="expanded")
    ab = rlstats.curves(data, FORMULA, compare=[("agent_1", "agent_3")], **kw)
    ba = rlstats.curves(data, FORMULA, compare=[("agent_3", "agent_1")], **kw)
    np.testing.assert_array_equal(ab.difference_pvalues, ba.difference_pvalues)
    np.testing.assert_array_equal(ab.differences, -ba.differences)
    np.testing.assert_array_equal(ab.difference_bands, -ba.difference_bands[..., ::-1])


def test_a_comparison_does_not_depend_on_the_other_pairs_compared(data):
    # each pair's relabellings are keyed by the pair, as each agent's resamples are by the agent
    kw = dict(step="step", n_resamples=100, rng=2, progress=False, bands="expanded")
    alone = rlstats.curves(data, FORMULA, compare=[("agent_1", "agent_3")], **kw)
    listed = rlstats.curves(data, FORMULA, compare=[("agent_2", "agent_3"), ("agent_3", "agent_1")], **kw)
    np.testing.assert_array_equal(alone.difference_pvalues[0], listed.difference_pvalues[1])
    np.testing.assert_array_equal(alone.difference_bands[0], -listed.difference_bands[1][..., ::-1])
    other = rlstats.curves(data, FORMULA, compare=[("agent_2", "agent_3")], **kw)
    np.testing.assert_array_equal(other.difference_pvalues[0], listed.difference_pvalues[0])


def test_steps_where_an_agent_has_no_run_logged_on_a_task_are_said_to_be_so(data):
    # [audit s7c] agent_2's runs of task_02 end at the median step: its curve is missing past it, and the note says
    # why (no run logged), not that its resamples repeat one run in every task
    grid = np.sort(data["step"].unique())
    cut = data[~((data["agent"] == "agent_2") & (data["task"] == "task_02") & (data["step"] > grid[3]))]
    res = rlstats.curves(cut, FORMULA, step="step", steps=grid, n_resamples=100, rng=0, progress=False)
    assert ("curves and bands are missing where a task has no run of the agent logged: agent_2 has no run logged on "
            f"task_02 at 4 steps ({format_step(grid[4])} to {format_step(grid[7])}); pass steps= within the range the "
            "runs reach, or add runs that reach those steps") in res.notes
    assert not any("repeat one run" in note for note in res.notes)
    assert np.isnan(res.estimates[1, 4:]).all() and np.isfinite(res.estimates[1, :4]).all()
    assert np.isnan(res.simultaneous[1, 4:]).all() and np.isfinite(res.simultaneous[[0, 2]]).all()
    def middle(x):
        return np.nanmedian(x, axis=(-2, -1))

    res = rlstats.curves(cut, FORMULA, step="step", steps=grid, statistic=middle, n_resamples=100, rng=0,
                         progress=False)
    assert any(note.startswith("the statistic function gets a task without runs (NaN-padded) where a task has no run "
                               "of the agent logged: agent_2 has no run logged on task_02 at 4 steps")
               for note in res.notes)


def test_curves_do_not_read_rows_dropped_by_na_action():
    """na_action='drop' is R's na.omit: a grid step whose value would come from a dropped row (by "last", the step
    before's value carried over it) is not read; the agent's aggregate uses its other runs there, and a note says so."""
    rows = [(agent, "t", seed, s, s + 1000.0 * seed + 100.0 * (agent == "B"))
            for agent in "AB" for seed in range(3) for s in range(0, 100, 10)]
    data = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    data.loc[[5, 6, 17], "score"] = np.nan  # A seed 0 at steps 50 and 60, A seed 1 at step 70
    for subset in (None, "agent == 'A' | agent == 'B'"):
        res = rlstats.curves(data, "score ~ agent | task/seed", step="step", statistic="mean", na_action="drop",
                             n_resamples=100, rng=0, progress=False, steps=[45, 55, 65], subset=subset)
        a = res.tidy().query("agent == 'A'")["estimate"].tolist()
        # by hand: at 45 all three runs (40, 1040, 2040); at 55 and 65 seed 0 would carry step 40 over its dropped
        # rows, so only seeds 1 and 2 count (1050 and 2050; 1060 and 2060)
        assert a == [1040.0, 1550.0, 1560.0]
        assert any(n.startswith("2 grid steps of 1 run not read because their value would come from a row dropped "
                                "by na_action='drop' (a dropped row is not used, nor filled in by the value of the "
                                "step before): run '0' of agent 'A' on task 't' at step 55") for n in res.notes)
