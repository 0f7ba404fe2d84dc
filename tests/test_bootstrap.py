"""Tests of the stratified bootstrap back end (aggregate metrics, probability of improvement, profiles, ICIs).

Every statistic is checked against an independent value: direct numpy/scipy
on small arrays (``scipy.stats.trim_mean``, ``scipy.stats.mannwhitneyu``),
exhaustive enumeration of tiny bootstrap distributions, closed forms (the
asymptotic standard error of a sample quantile, normal partial expectations,
thesis Table 2.7), rliable 1.2.0's recipe written out as a slow loop (spec
anchors_ecosystem.md Section 1.4; arch 7's ``conf_int`` percentile levels),
and simulation within Monte Carlo error (interval coverage, the Monte Carlo
standard error of the bounds).
"""

import dataclasses
import importlib
import itertools
import json
import math
import os
import pathlib
import runpy
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize, special, stats

from conftest import HANG_SECONDS
import rlstats
from rlstats import calibration
from rlstats.design import build
from rlstats.errors import DesignError, OptionError, RlstatsWarning
from rlstats import resampling
from rlstats.methods.bootstrap import _kernels as K
from rlstats.methods.bootstrap import (
    BootstrapResult,
    InferentialIntervalsResult,
    PerformanceProfileResult,
    ProbabilityOfImprovementResult,
    bootstrap,
    performance_profile,
    probability_of_improvement,
)

RESULT_TYPES = (BootstrapResult, ProbabilityOfImprovementResult, PerformanceProfileResult, InferentialIntervalsResult)
from rlstats.methods.skillings_mack import skillings_mack
from rlstats.vocabulary import unknown_columns
from rlstats.tables import read_csv

FORMULA = "score ~ agent | task"
SIX = ["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]


def long_frame(matrices, tasks=None):
    """Long data from {agent: (runs, tasks) matrix} or {agent: [task arrays]} (ragged)."""
    rows = []
    for agent, data in matrices.items():
        columns = [np.asarray(data)[:, t] for t in range(np.asarray(data).shape[1])] if not isinstance(data, list) \
            else data
        for t, runs in enumerate(columns):
            name = tasks[t] if tasks else f"t{t}"
            rows += [(agent, name, r, float(v)) for r, v in enumerate(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def ragged_data(rng, agents=("A", "B"), sizes=((3, 4, 2), (5, 2, 3))):
    return {a: [np.round(rng.normal(loc=i, size=c), 1) for c in s] for i, (a, s) in enumerate(zip(agents, sizes))}


# ----------------------------------------------------------------------------- metric definitions


def direct_metrics(groups, gamma=1.0, weight_to=None):
    """The four metrics straight from their definitions: groups = list of per-task run arrays.

    ``weight_to``: None pools the runs (rliable's IQM and optimality gap, every task with the agent's c runs);
    c_max weighs each run of a task of c_t runs c_max / c_t, as if every task had c_max runs (an agent with unequal
    runs per task, audit s8): the IQM then cuts floor(T c_max / 4) weighted copies from each end, with the copies
    of a value straddling a cut counted in part, and the optimality gap is the mean over tasks of each task's mean.
    """
    task_means = np.array([g.mean() for g in groups])
    pooled = np.concatenate(groups)
    if weight_to is None:
        return {"iqm": stats.trim_mean(pooled, 0.25), "mean": task_means.mean(), "median": np.median(task_means),
                "optimality_gap": np.mean(np.maximum(gamma - pooled, 0.0))}
    weights = np.concatenate([np.full(g.size, weight_to / g.size) for g in groups])
    order = np.argsort(pooled, kind="stable")
    values, weights = pooled[order], weights[order]
    total = len(groups) * weight_to
    cut = np.floor(total / 4)
    upper = np.cumsum(weights)
    inside = np.clip(upper, cut, total - cut) - np.clip(upper - weights, cut, total - cut)  # each value's kept copies
    return {"iqm": float(np.sum(values * inside) / (total - 2 * cut)), "mean": task_means.mean(),
            "median": np.median(task_means),
            "optimality_gap": float(np.mean([np.mean(np.maximum(gamma - g, 0.0)) for g in groups]))}


def weight_to(sizes):
    """The c_max to weigh an agent's tasks to where their runs differ (None: pooled, every task alike)."""
    sizes = np.asarray(sizes)
    return None if (sizes == sizes[0]).all() else int(sizes.max())


@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("gamma", [1.0, 0.3])
def test_point_estimates_match_direct_definitions(ragged, gamma):
    rng = np.random.default_rng(1)
    data = ragged_data(rng) if ragged else {a: rng.gamma(1.5, size=(7, 4)) for a in ("A", "B", "C")}
    res = bootstrap(long_frame(data), FORMULA, n_resamples=50, gamma=gamma, rng=0)
    for i, agent in enumerate(res.agents):
        groups = data[agent] if ragged else list(data[agent].T)
        expected = direct_metrics(groups, gamma, weight_to([len(g) for g in groups]))
        for j, metric in enumerate(res.metrics):
            assert res.estimates[i, j] == pytest.approx(expected[metric], rel=1e-12, abs=1e-12)


def test_iqm_uses_floor_trimming_without_fractional_weights():
    # 30 values: floor(7.5) = 7 cut from each end, the middle 16 averaged (spec 1.3).
    x = np.arange(30.0) ** 2
    df = pd.DataFrame({"agent": ["A"] * 30 + ["B"] * 30, "task": "t", "score": np.r_[x, x]})
    res = bootstrap(df, "score ~ agent", metrics=["iqm"], n_resamples=10, rng=0)
    assert res.estimates[0, 0] == pytest.approx(np.mean(np.sort(x)[7:23]), rel=1e-14)


def test_kernel_metrics_on_resamples_match_explicit_resampled_values():
    """Count-based statistics equal the definitions applied to the explicit resampled runs."""
    rng = np.random.default_rng(2)
    for sizes in (np.array([3, 4, 2, 5, 3]), np.array([4] * 5)):
        task = np.repeat(np.arange(5), sizes)
        y = np.round(rng.normal(size=task.size), 1)  # ties on purpose
        layout = K.agent_layout(y, task, np.concatenate([np.arange(c) for c in sizes]), 5)
        for task_bootstrap in (False, True):
            ss = np.random.SeedSequence(3)
            draws = (K.draw(ss, layout, 40, task_bootstrap) if task_bootstrap else
                     K.draw_blocks(K.agent_blocks(ss, 40), layout, ss=ss))
            got = K.metric_values(layout, K.resample_from_draws(layout, draws), list(K.BUILTIN_METRICS), 0.5)
            for b in range(40):
                if task_bootstrap:
                    groups = [layout.sorted_by_task[s, draws.slots[b, p, :sizes[s]] - layout.task_start[s]]
                              for p, s in enumerate(draws.chosen[b])]
                else:
                    picked = layout.canonical_values[draws.slots[b]]
                    groups = np.split(picked, np.cumsum(sizes)[:-1])
                expected = direct_metrics(groups, 0.5, weight_to(sizes))  # the agent's tasks, not those drawn
                np.testing.assert_allclose(got[b], [expected[m] for m in K.BUILTIN_METRICS], rtol=1e-12, atol=1e-12)


def test_stratified_resampling_distribution_matches_enumeration():
    """Two tasks with two and three runs: 4 x 27 equally likely resamples; the mean's distribution is exact."""
    a = {"A": [np.array([0.0, 1.0]), np.array([0.0, 10.0, 100.0])], "B": [np.array([0.0, 1.0]), np.array([5.0])]}
    res = bootstrap(long_frame(a), FORMULA, metrics=["mean"], n_resamples=40_000, rng=5)
    draws = res.bootstrap_distribution[0, 0]
    exact = {}
    for first in itertools.product([0.0, 1.0], repeat=2):
        for second in itertools.product([0.0, 10.0, 100.0], repeat=3):
            value = round((np.mean(first) + np.mean(second)) / 2, 9)
            exact[value] = exact.get(value, 0) + 1 / (4 * 27)
    observed = pd.Series(np.round(draws, 9)).value_counts(normalize=True)
    assert set(observed.index) <= set(exact)
    worst = max(abs(observed.get(v, 0.0) - p) / math.sqrt(p * (1 - p) / draws.size) for v, p in exact.items())
    assert worst < 4.5  # every cell within 4.5 binomial SEs (about 20 cells)


def test_task_bootstrap_resamples_tasks():
    """With task resampling, the median of task means takes task-level values impossible without it."""
    data = {a: np.tile([[0.0, 1.0, 2.0]], (3, 1)) + i for i, a in enumerate("AB")}  # no within-task spread
    res = bootstrap(long_frame(data), FORMULA, metrics=["median", "mean"], n_resamples=4000, task_bootstrap=True,
                    rng=0)
    no_tasks = bootstrap(long_frame(data), FORMULA, metrics=["median"], n_resamples=200, rng=0)
    assert (np.ptp(no_tasks.bootstrap_distribution, axis=-1) == 0).all()  # runs are identical within tasks
    medians = res.bootstrap_distribution[0, 0]
    assert set(np.unique(medians)) == {0.0, 1.0, 2.0}
    # P(median of 3 draws from {0,1,2} = 1) = 13/27
    assert np.mean(medians == 1.0) == pytest.approx(13 / 27, abs=4 * math.sqrt(13 / 27 * 14 / 27 / 4000))
    assert np.mean(res.bootstrap_distribution[0, 1]) == pytest.approx(1.0, abs=0.03)


# ----------------------------------------------------------------------------- intervals


def test_percentile_and_basic_bounds_from_the_distribution():
    rng = np.random.default_rng(4)
    df = long_frame({a: rng.gamma(2.0, size=(6, 5)) for a in "AB"})
    pct = bootstrap(df, FORMULA, n_resamples=999, confidence_level=0.9, interval="percentile", rng=3)
    basic = bootstrap(df, FORMULA, n_resamples=999, confidence_level=0.9, interval="basic", rng=3)
    np.testing.assert_array_equal(pct.bootstrap_distribution, basic.bootstrap_distribution)
    lo, hi = np.percentile(pct.bootstrap_distribution, [5.0, 95.0], axis=-1)
    np.testing.assert_allclose(pct.intervals[..., 0], lo, rtol=1e-12)
    np.testing.assert_allclose(pct.intervals[..., 1], hi, rtol=1e-12)
    np.testing.assert_allclose(basic.intervals[..., 0], 2 * pct.estimates - hi, rtol=1e-12)
    np.testing.assert_allclose(basic.intervals[..., 1], 2 * pct.estimates - lo, rtol=1e-12)
    again = pct.confidence_interval(confidence_level=0.8)
    lo8, hi8 = np.percentile(pct.bootstrap_distribution, [10.0, 90.0], axis=-1)
    np.testing.assert_allclose(again["conf_low"], lo8.T.ravel(), rtol=1e-12)
    np.testing.assert_allclose(again["conf_high"], hi8.T.ravel(), rtol=1e-12)


def direct_bca(distribution, estimate, acceleration, level):
    """Efron's BCa bounds written out (z0 counts ties half, as scipy.stats.bootstrap does)."""
    z0 = special.ndtri((np.sum(distribution < estimate) + 0.5 * np.sum(distribution == estimate)) / distribution.size)
    z = special.ndtri([(1 - level) / 2, (1 + level) / 2])
    adjusted = special.ndtr(z0 + (z0 + z) / (1 - acceleration * (z0 + z)))
    return np.percentile(distribution, 100 * adjusted)


def test_bca_single_stratum_matches_plain_jackknife_formula():
    rng = np.random.default_rng(5)
    x = rng.lognormal(size=25)
    y = rng.lognormal(size=25)
    df = pd.DataFrame({"agent": ["A"] * 25 + ["B"] * 25, "score": np.r_[x, y]})
    res = bootstrap(df, "score ~ agent", metrics=["mean", "iqm"], interval="bca", n_resamples=4000, rng=1)
    for i, values in enumerate((x, y)):
        for j, stat in enumerate((np.mean, lambda v: stats.trim_mean(v, 0.25))):
            loo = np.array([stat(np.delete(values, k)) for k in range(values.size)])
            u = loo.mean() - loo
            a = np.sum(u**3) / (6 * np.sum(u**2) ** 1.5)
            assert res.acceleration[i, j] == pytest.approx(a, rel=1e-9, abs=1e-12)
            expected = direct_bca(res.bootstrap_distribution[i, j], res.estimates[i, j], a, 0.95)
            np.testing.assert_allclose(res.intervals[i, j], expected, rtol=1e-10)


@pytest.mark.parametrize("sizes", [((4, 3, 5), (3, 3, 3)), ((4, 1, 5, 2), (3, 3, 1, 6))])
def test_bca_stratified_acceleration_matches_within_task_jackknife(sizes):
    rng = np.random.default_rng(6)
    data = ragged_data(rng, sizes=sizes)
    res = bootstrap(long_frame(data), FORMULA, interval="bca", n_resamples=500, rng=0)
    for i, agent in enumerate(res.agents):
        groups = data[agent]
        for j, metric in enumerate(res.metrics):
            num = den = 0.0
            for t, runs in enumerate(groups):
                if runs.size == 1:  # no within-task variation: skipped
                    continue
                loo = np.array([direct_metrics([np.delete(runs, k) if s == t else g for s, g in enumerate(groups)],
                                               weight_to=weight_to([len(g) for g in groups]))
                                [metric] for k in range(runs.size)])
                influence = (runs.size - 1) * (loo.mean() - loo)
                num += np.sum(influence**3) / runs.size**3
                den += np.sum(influence**2) / runs.size**2
            expected = num / (6 * den**1.5) if den > 0 else 0.0
            assert res.acceleration[i, j] == pytest.approx(expected, rel=1e-9, abs=1e-12)


def distinct_values(scores):
    return float(np.unique(scores).size)


@pytest.mark.parametrize("sizes", [[3, 7, 5, 2], [4, 4, 4, 4, 4], [8], [2, 3]])
def test_closed_form_jackknife_equals_refitting_without_each_run(sizes):
    """BCa's leave-one-out values (O(n log T)) equal the definitions refitted on n - 1 runs."""
    rng = np.random.default_rng(len(sizes))
    sizes = np.array(sizes)
    task = np.repeat(np.arange(sizes.size), sizes)
    y = np.round(rng.normal(size=task.size), 1)  # ties on purpose
    layout = K.agent_layout(y, task, np.concatenate([np.arange(c) for c in sizes]), sizes.size)
    metrics = list(K.BUILTIN_METRICS)
    got = K.leave_one_out_values(layout, metrics, 0.3)
    groups = [layout.values[layout.task_of == t] for t in range(sizes.size)]
    for p in range(layout.n_runs):
        t = layout.task_of[p]
        i = np.flatnonzero(np.flatnonzero(layout.task_of == t) == p)[0]
        expected = direct_metrics([np.delete(g, i) if s == t else g for s, g in enumerate(groups)], 0.3,
                                  weight_to(sizes))
        np.testing.assert_allclose(got[p], [expected[m] for m in metrics], rtol=1e-12, atol=1e-12)


def test_bca_undefined_gives_nan_and_warns():
    # 24 distinct runs, 6 per task: a resample draws every run once with probability (6! / 6^6)^4 = 6e-8,
    # so all 2 x 200 resamples have fewer distinct values and lie below the estimate (for a seed: 1 - 2e-5)
    df = long_frame({a: np.arange(24.0).reshape(6, 4) + i for i, a in enumerate("AB")})
    with pytest.warns(RlstatsWarning, match="BCa is undefined"):
        res = bootstrap(df, FORMULA, metrics=["mean", distinct_values], interval="bca", n_resamples=200, rng=0)
    assert np.isnan(res.intervals[:, 1]).all() and np.isnan(res.interval_mc_se[:, 1]).all()
    assert np.isfinite(res.intervals[:, 0]).all()
    assert any("BCa is undefined" in n for n in res.notes)
    # ties with the estimate count half (as scipy does): a constant statistic gets the point interval
    flat = bootstrap(df, FORMULA, metrics=["optimality_gap"], gamma=-1.0, interval="bca", n_resamples=100, rng=0)
    np.testing.assert_array_equal(flat.intervals, 0.0)


# ----------------------------------------------------------------------------- Monte Carlo error of the bounds


def test_order_statistic_se_matches_closed_form_and_repetition():
    """SE of the 2.5% quantile of B normal draws: sqrt(p(1-p)/B) / phi(z_p) (asymptotic), and the spread of repeats."""
    rng = np.random.default_rng(7)
    b, p = 2000, 0.025
    truth = math.sqrt(p * (1 - p) / b) / stats.norm.pdf(stats.norm.ppf(p))
    samples = rng.standard_normal((400, b))
    estimated = K.order_statistic_se(np.sort(samples, axis=1), np.full(400, p))
    quantiles = np.percentile(samples, 100 * p, axis=1)
    assert np.mean(estimated) == pytest.approx(truth, rel=0.12)
    assert np.std(quantiles, ddof=1) == pytest.approx(truth, rel=0.12)  # 400 repeats: SD known to ~4%


def test_reported_mc_se_matches_spread_over_seeds():
    rng = np.random.default_rng(8)
    df = long_frame({a: rng.gamma(2.0, size=(8, 6)) for a in "AB"})
    runs = [bootstrap(df, FORMULA, metrics=["mean", "iqm"], n_resamples=400, rng=s) for s in range(60)]
    bounds = np.stack([r.intervals for r in runs])
    reported = np.stack([r.interval_mc_se for r in runs]).mean(axis=0)
    ratio = bounds.std(axis=0, ddof=1) / reported
    assert 0.75 < np.mean(ratio) < 1.3  # 8 bounds, each SD known to about 9%


# ----------------------------------------------------------------------------- rliable_compat


def rliable_recipe(score_dict, seed, reps, gamma=1.0, task_bootstrap=False):
    """rliable 1.2.0 as spec 1.4 describes it, one replicate at a time: distributions and point estimates."""
    rs = np.random.RandomState(seed)

    def metrics(s):
        return [stats.trim_mean(s, proportiontocut=0.25, axis=None), np.mean(np.mean(s, axis=0)),
                np.median(np.mean(s, axis=0)), gamma - np.mean(np.minimum(s, gamma))]

    out = {}
    for name, x in score_dict.items():  # dict order
        runs, tasks = x.shape
        values = []
        for _ in range(reps):
            idx = rs.choice(runs, (runs, tasks))
            columns = rs.choice(tasks, (1, tasks)) if task_bootstrap else np.arange(tasks)
            values.append(metrics(x[idx, columns]))
        out[name] = (np.array(metrics(x)), np.array(values))
    return out


@pytest.mark.parametrize("task_bootstrap,scale", [(False, 1), (True, 1), (False, 10)])
def test_rliable_compat_reproduces_the_recipe_bit_for_bit(task_bootstrap, scale):
    """At scale 10 (50-60 runs x 70 tasks) the draws span several batches of about COMPAT_BUDGET values."""
    rng = np.random.default_rng(9)
    tasks = 7 * scale
    runs = (5, 3, 6) if scale == 1 else (55, 50, 60)
    score_dict = {name: rng.gamma(shape, size=(r, tasks)) for name, shape, r in zip(("DQN", "C51", "Apex"),
                                                                                  (1.5, 2.0, 1.0), runs)}
    assert scale == 1 or K.COMPAT_BUDGET // score_dict["DQN"].size < 300
    # task names sort in column order: the design orders tasks by name, and sums follow that order
    df = long_frame(score_dict, tasks=[f"t{t:03d}" for t in range(tasks)])
    df["agent"] = pd.Categorical(df["agent"], categories=list(score_dict))  # dict order = draw order
    state = np.random.get_state()[1].copy()
    res = bootstrap(df, FORMULA, rliable_compat=True, task_bootstrap=task_bootstrap, n_resamples=300, rng=2024)
    assert np.array_equal(np.random.get_state()[1], state)  # the global state is never touched
    recipe = rliable_recipe(score_dict, 2024, 300, task_bootstrap=task_bootstrap)
    alpha = (1 - 0.95) / 2
    for i, name in enumerate(res.agents):
        point, values = recipe[name]
        assert np.array_equal(res.estimates[i], point)
        assert np.array_equal(res.bootstrap_distribution[i].T, values)
        for j in range(4):
            # arch's conf_int: np.percentile per column at 100 a and 100 (1 - a)
            assert np.array_equal(res.intervals[i, j], np.percentile(values[:, j], [100 * alpha, 100 * (1 - alpha)]))
        # the spec's literal [2.5, 97.5] differs only in the last bits of the percentile level
        np.testing.assert_allclose(res.intervals[i].T, np.percentile(values, [2.5, 97.5], axis=0), rtol=1e-12)


def test_rliable_iqm_in_place_gives_np_partitions_bits_and_runs_after_every_other_metric():
    rng = np.random.default_rng(12)
    matrices = np.round(rng.gamma(2.0, size=(40, 9, 13)), 2)  # ties
    first_score = lambda m: m[0, 0]  # noqa: E731 - reads the matrix in its order

    def first_scores(m):  # vectorised, and returns a view of the matrices the IQM then reorders
        return m[:, 0, 0]
    first_scores.vectorized = True
    metrics = ["iqm", first_score, "mean", "iqm", first_scores, "optimality_gap"]
    kept = K.rliable_values(matrices, metrics, 1.0)
    scratch = matrices.copy()
    reordered = K.rliable_values(scratch, metrics, 1.0, scratch=True)
    assert np.array_equal(reordered.view(np.int64), kept.view(np.int64))
    assert np.array_equal(kept[:, 1], matrices[:, 0, 0]) and np.array_equal(kept[:, 4], matrices[:, 0, 0])
    assert not np.array_equal(scratch, matrices)  # partitioned in place: the copy np.partition makes is saved
    trim = [stats.trim_mean(m, 0.25, axis=None) for m in matrices]
    assert np.array_equal(kept[:, 0], trim) and np.array_equal(kept[:, 3], trim)


def test_rliable_compat_takes_user_metrics_that_cannot_be_hashed():
    @dataclasses.dataclass  # eq=True: instances are unhashable
    class Top:
        scale: float = 1.0

        def __call__(self, matrix):
            return float(self.scale * matrix.max())

    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=1)
    metrics = {"mean": "mean", "median": "median"}
    ours = bootstrap(df, FORMULA, metrics={**metrics, "top": Top()}, rliable_compat=True, n_resamples=60, rng=3)
    plain = bootstrap(df, FORMULA, metrics={**metrics, "top": lambda m: float(m.max())}, rliable_compat=True,
                      n_resamples=60, rng=3)
    assert np.array_equal(ours.bootstrap_distribution, plain.bootstrap_distribution)


def test_rliable_compat_basic_and_run_order():
    rng = np.random.default_rng(10)
    x = rng.normal(size=(4, 3))
    df = long_frame({"A": x, "B": x + 1})
    df = df.sample(frac=1.0, random_state=0)  # shuffled rows: the seed column fixes run order
    res = bootstrap(df, "score ~ agent | task/seed", rliable_compat=True, interval="basic", n_resamples=200, rng=3,
                    metrics=["mean"])
    point, values = rliable_recipe({"A": x, "B": x + 1}, 3, 200)["A"]
    lower, upper = np.percentile(values[:, 1], [2.5000000000000022, 97.5])
    assert res.intervals[0, 0, 0] == 2.0 * point[1] - upper
    assert res.intervals[0, 0, 1] == 2.0 * point[1] - lower


def test_rliable_compat_refusals():
    df = long_frame(ragged_data(np.random.default_rng(0)))
    with pytest.raises(DesignError, match="runs per task"):
        bootstrap(df, FORMULA, rliable_compat=True, rng=1)
    balanced = long_frame({a: np.ones((3, 2)) for a in "AB"})
    with pytest.raises(OptionError, match="rng= the int seed"):
        bootstrap(balanced, FORMULA, rliable_compat=True, rng=None)
    with pytest.raises(OptionError, match="percentile' and 'basic'"):
        bootstrap(balanced, FORMULA, rliable_compat=True, interval="bca", rng=1)


# ----------------------------------------------------------------------------- coverage


def mixture_iqm(mus, sigma):
    """Interquartile mean of the equal mixture of N(mu_t, sigma): 2 * integral of x f(x) between the quartiles."""
    cdf = lambda x: np.mean(stats.norm.cdf(x, mus, sigma))  # noqa: E731
    q = [optimize.brentq(lambda x, p=p: cdf(x) - p, -50, 50) for p in (0.25, 0.75)]
    density = lambda x: x * np.mean(stats.norm.pdf(x, mus, sigma))  # noqa: E731
    return 2 * integrate.quad(density, q[0], q[1])[0]


def coverage(n_datasets, n_resamples, seed, agents="ABCD"):
    """Coverage of each metric's intervals over ``n_datasets`` data sets of ``len(agents)`` agents of one law: each
    agent's resamples come from its own stream (agent_seed_sequence), so its interval is an independent trial."""
    mus, sigma, runs, gamma = np.array([0.0, 0.5, 1.0, 2.5, 4.0]), 1.0, 20, 1.0
    z = (gamma - mus) / sigma
    truth = {"iqm": mixture_iqm(mus, sigma), "mean": mus.mean(), "median": np.median(mus),
             "optimality_gap": np.mean((gamma - mus) * stats.norm.cdf(z) + sigma * stats.norm.pdf(z))}
    rng = np.random.default_rng(seed)
    hits = {m: [] for m in truth}
    for d in range(n_datasets):
        data = {a: rng.normal(mus, sigma, size=(runs, mus.size)) for a in agents}
        res = bootstrap(long_frame(data), FORMULA, n_resamples=n_resamples, rng=d)
        for j, m in enumerate(res.metrics):
            hits[m] += list((res.intervals[:, j, 0] <= truth[m]) & (truth[m] <= res.intervals[:, j, 1]))
    return {m: np.mean(h) for m, h in hits.items()}, len(agents) * n_datasets


# Percentile intervals see each task mean's variance shrunk by (c - 1) / c (the bootstrap's plug-in
# variance), so with c = 20 runs their coverage is about 2 Phi(1.96 sqrt(19 / 20)) - 1 = 0.944, not 0.95.
EXPECTED_COVERAGE = 2 * stats.norm.cdf(1.959964 * math.sqrt(19 / 20)) - 1


def test_interval_coverage_reduced():
    # 400 intervals a metric, as 100 data sets of 4 agents gave, from 25 data sets of 16 agents (the cost is per
    # call more than per agent: 3.0 -> 2.2 s CPU); covered 0.9575-0.9675 (4 x 100: 0.9625-0.965)
    covered, n = coverage(25, 400, seed=11, agents="ABCDEFGHIJKLMNOP")
    assert n == 400
    se = math.sqrt(0.95 * 0.05 / n)
    for metric, rate in covered.items():
        assert abs(rate - EXPECTED_COVERAGE) < 3 * se + 0.01, (metric, rate)


@pytest.mark.slow
def test_interval_coverage_full():
    covered, n = coverage(1500, 1000, seed=12)
    se = math.sqrt(0.95 * 0.05 / n)
    for metric, rate in covered.items():
        assert abs(rate - EXPECTED_COVERAGE) < 3 * se + 0.01, (metric, rate)


# ----------------------------------------------------------------------------- reproducibility


def test_determinism_and_seed_record():
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, rng=0)
    a = bootstrap(df, FORMULA, n_resamples=300, rng=7)
    b = bootstrap(df, FORMULA, n_resamples=300, rng=7)
    c = bootstrap(df, FORMULA, n_resamples=300, rng=8)
    assert np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution) and a.seed == 7
    assert not np.array_equal(a.bootstrap_distribution, c.bootstrap_distribution)
    fresh = bootstrap(df, FORMULA, n_resamples=300, rng=None)
    assert isinstance(fresh.seed, int)
    again = bootstrap(df, FORMULA, n_resamples=300, rng=fresh.seed)
    assert np.array_equal(fresh.bootstrap_distribution, again.bootstrap_distribution)
    g1 = bootstrap(df, FORMULA, n_resamples=300, rng=np.random.default_rng(3))
    g2 = bootstrap(df, FORMULA, n_resamples=300, rng=np.random.default_rng(3))
    assert np.array_equal(g1.bootstrap_distribution, g2.bootstrap_distribution)
    # a Generator is recorded by the int drawn from it, which repeats the run (was the word 'Generator')
    assert g1.seed == np.random.default_rng(3).integers(2**63) and isinstance(g1.seed, int)
    assert np.array_equal(bootstrap(df, FORMULA, n_resamples=300, rng=g1.seed).bootstrap_distribution,
                          g1.bootstrap_distribution)


@pytest.mark.parametrize("task_bootstrap", [False, True])
def test_results_do_not_depend_on_batch_size(task_bootstrap):
    rng = np.random.default_rng(12)
    sizes = np.array([3, 7, 5])
    task = np.repeat(np.arange(3), sizes)
    layout = K.agent_layout(rng.normal(size=task.size), task, np.concatenate([np.arange(c) for c in sizes]), 3)
    runs = [K.bootstrap_agent(layout, ["iqm", "median"], 1.0, 1234, np.random.SeedSequence(5),
                              task_bootstrap=task_bootstrap, batch_size=size) for size in (100, 300, 5000, None)]
    for other in runs[1:]:
        assert np.array_equal(runs[0], other)
    # the one-buffer fast path draws exactly what block-by-block draw() does
    blocks = K.agent_blocks(np.random.SeedSequence(6), 350)
    joined = K.draw_blocks(blocks, layout, task_bootstrap, np.random.SeedSequence(6))
    again = K.agent_blocks(np.random.SeedSequence(6), 350)
    parts = [K.draw_blocks([block], layout, task_bootstrap, np.random.SeedSequence(6)) for block in again]
    assert np.array_equal(joined.slots, np.concatenate([p.slots for p in parts]))


def _unequal_runs(seed=31):
    """Three agents x four tasks with unequal runs per task (and one single-run task)."""
    rng = np.random.default_rng(seed)
    rows = [(a, t, s, float(np.round(rng.gamma(2.0, 0.5 + i / 4), 1)))
            for i, a in enumerate("ABC") for t, c in zip("wxyz", (4, 9, 6, 1)) for s in range(c + (a == "B"))]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.parametrize("options", [
    {}, {"interval": "bca"}, {"task_bootstrap": True},
    {"metrics": {"iqm": "iqm", "top": lambda m: float(m.max())}},
])
def test_bootstrap_identical_whatever_n_jobs(options):
    """Threads share out whole RNG blocks: every n_jobs gives the same bits, balanced or not."""
    df = _unequal_runs()
    if "metrics" in options:  # user metrics need a run matrix: equal runs
        df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, rng=2)
    one = bootstrap(df, FORMULA, n_resamples=1050, rng=4, **options)
    for n_jobs in (2, 3, -1):
        other = bootstrap(df, FORMULA, n_resamples=1050, rng=4, n_jobs=n_jobs, **options)
        assert np.array_equal(one.bootstrap_distribution, other.bootstrap_distribution)
        assert np.array_equal(one.intervals, other.intervals, equal_nan=True)


def test_rliable_compat_identical_whatever_n_jobs():
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, rng=2)
    one = bootstrap(df, FORMULA, n_resamples=700, rng=9, rliable_compat=True)
    two = bootstrap(df, FORMULA, n_resamples=700, rng=9, rliable_compat=True, n_jobs=2)
    assert np.array_equal(one.bootstrap_distribution, two.bootstrap_distribution)


def test_profiles_and_improvement_identical_whatever_n_jobs():
    df = _unequal_runs()
    for kind in ("runs", "tasks"):
        one = performance_profile(df, FORMULA, kind=kind, interval="percentile", n_resamples=650, rng=5)
        two = performance_profile(df, FORMULA, kind=kind, interval="percentile", n_resamples=650, rng=5, n_jobs=2)
        assert np.array_equal(one.intervals, two.intervals)
    one = probability_of_improvement(df, FORMULA, n_resamples=650, rng=5)
    two = probability_of_improvement(df, FORMULA, n_resamples=650, rng=5, n_jobs=-1)
    assert np.array_equal(one.bootstrap_distribution, two.bootstrap_distribution)


def profile_design(sizes, seed):
    """One agent's layout with the given runs per task (scores with ties), and thresholds on data values."""
    rng = np.random.default_rng(seed)
    sizes = np.array(sizes)
    task = np.repeat(np.arange(sizes.size), sizes)
    layout = K.agent_layout(np.round(rng.gamma(2.0, 0.5, size=task.size), 1), task,
                            np.concatenate([np.arange(c) for c in sizes]), sizes.size)
    return layout, np.linspace(-0.1, 3.0, 32)


@pytest.mark.parametrize("sizes", [[3, 7, 5, 1], [6, 6, 6, 6]])
def test_task_bootstrap_profile_is_the_mean_over_drawn_tasks_of_the_fraction_above(sizes):
    layout, tau = profile_design(sizes, 23)
    draws = K.draw(np.random.SeedSequence(5), layout, 300, task_bootstrap=True)
    scores = layout.canonical_values[draws.slots]  # (b, T, runs of the largest task)
    valid = np.ones(scores.shape, dtype=bool) if draws.mask is None else draws.mask
    above = ((scores[..., None] > tau) & valid[..., None]).sum(axis=2) / layout.task_sizes[draws.chosen][..., None]
    np.testing.assert_allclose(K.profile_values(layout, K.resample_from_draws(layout, draws), tau, "runs"),
                               above.mean(axis=1), rtol=1e-13, atol=1e-15)


def test_task_bootstrap_profiles_identical_whatever_n_jobs():
    """The draw path's profile is one cumulative sum per row: a matrix product's row bits would follow the batch."""
    df = rlstats.datasets.simulate(agents=2, tasks=26, seeds=100, rng=7)
    tau = np.linspace(-2.0, 4.0, 81)
    one = performance_profile(df, FORMULA, tau=tau, n_resamples=1000, rng=3, task_bootstrap=True,
                              interval="percentile")  # audit s29: the default with tasks resampled draws none
    for options in ({"n_jobs": 2}, {"n_jobs": -1}):
        other = performance_profile(df, FORMULA, tau=tau, n_resamples=1000, rng=3, task_bootstrap=True,
                                    interval="percentile", **options)
        assert np.array_equal(one.intervals, other.intervals)


@pytest.mark.parametrize("function", ["bootstrap", "performance_profile", "probability_of_improvement"])
def test_bad_n_jobs_is_an_option_error(function):
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    with pytest.raises(OptionError, match="n_jobs must be"):
        getattr(rlstats, function)(df, FORMULA, n_resamples=100, rng=0, n_jobs=0)


def test_thread_work_items_cover_every_block_in_order():
    blocks = K.agent_blocks(np.random.SeedSequence(1), 2050)
    for per_item in (1, 4, 100):
        for n_jobs in (1, 2, -1):
            groups = K.block_groups(blocks, per_item, n_jobs)
            assert [b for g in groups for b in g] == blocks
            if n_jobs != 1:
                assert len(groups) >= min(len(blocks), 8)  # at least four items per thread where blocks allow
            else:
                assert all(len(g) == per_item for g in groups[:-1])


def block_draws(ss, layout, n_resamples):
    """The draw path one RNG block at a time: ``(start, stop, Draws)`` from :func:`draw_blocks`."""
    for start, stop, seed in K.agent_blocks(ss, n_resamples):
        yield start, stop, K.draw_blocks([(start, stop, seed)], layout, ss=ss)


@pytest.mark.parametrize("sizes", [[3, 7, 5, 1], [6, 6, 6, 6]])
def test_count_kernel_equals_the_draw_path_and_ignores_chunking(sizes):
    """The counts-based default path reads the same draws as draw() + resample_from_draws()."""
    rng = np.random.default_rng(21)
    sizes = np.array(sizes)
    task = np.repeat(np.arange(sizes.size), sizes)
    y = np.round(rng.gamma(2.0, 0.5, size=task.size), 1)  # ties on purpose
    layout = K.agent_layout(y, task, np.concatenate([np.arange(c) for c in sizes]), sizes.size)
    metrics = list(K.BUILTIN_METRICS)
    fast = K.bootstrap_agent(layout, metrics, 1.0, 450, np.random.SeedSequence(9))
    slow = np.empty_like(fast)
    for start, stop, draws in block_draws(np.random.SeedSequence(9), layout, 450):
        slow[start:stop] = K.metric_values(layout, K.resample_from_draws(layout, draws), metrics, 1.0)
    np.testing.assert_allclose(fast, slow, rtol=1e-13, atol=1e-13)
    # row chunks inside a block of RNG_BLOCK resamples (batch_size=1: one resample at a time)
    for size in (1, 7, 100, 1000):
        assert np.array_equal(fast, K.bootstrap_agent(layout, metrics, 1.0, 450, np.random.SeedSequence(9),
                                                      batch_size=size))


@pytest.mark.parametrize("sizes", [[700] * 4, [3100, 3, 900, 1200, 40]])  # 16 bits a draw; 32 and unequal tasks
def test_one_resample_in_slices_of_whole_tasks_changes_no_bit(monkeypatch, sizes):
    """Issue 43 item 1: in a chunk of one resample of more than TASK_BLOCK runs, the standard errors' task moments
    are summed slice by slice of whole tasks: the same bits as the whole row and as chunks of several resamples, for
    the four metrics' studentised standard errors (and the bootstrap distributions beside them)."""
    from rlstats.methods.bootstrap import _small_runs

    rng = np.random.default_rng(4)
    sizes = np.array(sizes)
    task = np.repeat(np.arange(sizes.size), sizes)
    y = np.round(rng.gamma(2.0, 0.5, size=task.size), 2)  # ties
    layout = K.agent_layout(y, task, np.concatenate([np.arange(c) for c in sizes]), sizes.size)
    metrics = list(K.BUILTIN_METRICS)

    def run():
        ss = np.random.SeedSequence(8)
        return (K.bootstrap_agent(layout, metrics, 1.0, 150, ss),
                _small_runs.resampled_se(layout, metrics, 1.0, 150, ss))

    several = run()  # chunks of several resamples
    monkeypatch.setattr(K, "COUNT_BUDGET", 64)  # one resample a chunk
    monkeypatch.setattr(K, "TASK_BLOCK", 10**9)
    whole = run()
    monkeypatch.setattr(K, "TASK_BLOCK", 1000)
    assert _small_runs.StandardErrors(layout, metrics, 1.0).slices  # three slices: 3,100 | 3 + 900 | 1,200 + 40
    sliced = run()
    for a, b, c in zip(several, whole, sliced):
        assert np.array_equal(a, b) and np.array_equal(b, c)


def test_cumulative_count_moments_by_enumeration():
    """E and Var of the cumulative counts in pooled order, over all 27,648 equally likely resamples."""
    sizes = [2, 3, 4]
    task = np.repeat(np.arange(3), sizes)
    y = np.array([0.5, 2.0, 0.5, 1.0, 3.0, 0.2, 1.0, 1.0, 4.0])  # ties across tasks and within one
    layout = K.agent_layout(y, task, np.concatenate([np.arange(c) for c in sizes]), 3)
    per_task = [np.array([np.bincount(d, minlength=c) for d in itertools.product(range(c), repeat=c)])
                for c in sizes]
    grid = np.meshgrid(*[np.arange(len(p)) for p in per_task], indexing="ij")
    canonical = np.concatenate([p[g.ravel()] for p, g in zip(per_task, grid)], axis=1)
    cum = np.cumsum(canonical[:, K.pooled_slots(layout)], axis=1)
    mean, variance = K.cumulative_count_moments(layout)
    np.testing.assert_allclose(mean, cum.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(variance, cum.var(axis=0), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("width", [1, 2, 5, 26])
def test_median_of_rows_is_numpy_median_bit_for_bit(width):
    rng = np.random.default_rng(width)
    x = np.round(rng.normal(size=(300, width)), 1)  # ties
    x[:50] = rng.normal(size=(50, width)) * 1e-308  # subnormal halves: (a + b) / 2 and a / 2 + b / 2 differ
    x[50:80] = rng.choice([-0.0, 0.0, -1.0, 1.0], size=(30, width))  # signed zeros: np.median gives +0.0
    assert np.array_equal(K.median_of_rows(x).view(np.int64), np.median(x, axis=1).view(np.int64))


@pytest.mark.parametrize("sizes", [[100] * 26, [3, 7, 5, 1]])
def test_count_statistics_mean_and_median_are_numpys_of_the_task_means_bit_for_bit(sizes):
    """The counts path's mean and median of task means are np.mean's and np.median's bits (without their cost)."""
    layout, _ = profile_design(sizes, 5)
    counts = drawn_and_extreme_counts(layout, 200)
    statistics = K.CountStatistics(layout, ["mean", "median"], 1.0, len(counts))
    means = statistics.task_means(counts.astype(float))
    got = statistics(counts)
    assert np.array_equal(got[:, 0].view(np.int64), np.mean(means, axis=1).view(np.int64))
    assert np.array_equal(got[:, 1].view(np.int64), np.median(means, axis=1).view(np.int64))


DOT_LENGTHS = [1, 7, 2600, 5000, resampling.DOT_SEGMENT, resampling.DOT_SEGMENT + 1, 3 * resampling.DOT_SEGMENT + 5]


@pytest.mark.parametrize("by_blas", [True, False])
@pytest.mark.parametrize("n", DOT_LENGTHS)
def test_fixed_dot_is_each_rows_dot_whatever_the_other_rows_and_alignment(monkeypatch, by_blas, n):
    if by_blas and not resampling.DOT_BY_BLAS:
        pytest.skip("numpy here does not link OpenBLAS: rows are summed by einsum")
    monkeypatch.setattr(resampling, "DOT_BY_BLAS", by_blas)
    rng = np.random.default_rng(n)
    matrix, vector = rng.normal(size=(9, n)), rng.normal(size=n)
    together = resampling.fixed_dot(matrix, vector)
    exact = [math.fsum(row * vector) for row in matrix]
    np.testing.assert_allclose(together, exact, rtol=1e-12, atol=1e-12 * np.abs(matrix @ np.abs(vector)).max())
    for i in range(matrix.shape[0]):
        for shift in (0, 1, 3):  # the row alone, at another alignment, and inside a wider (strided) matrix
            wide = np.zeros((2, n + 8))
            wide[1, shift:shift + n] = matrix[i]
            assert resampling.fixed_dot(wide[1:, shift:shift + n], vector)[0] == together[i]
    columns = rng.normal(size=(n, 4))  # broadcast: (rows, 1, n) against (4, n), each value its own dot
    np.testing.assert_array_equal(resampling.fixed_dot(matrix[:, None, :], columns.T)[:, 1],
                                  resampling.fixed_dot(matrix, np.ascontiguousarray(columns[:, 1])))


def test_fixed_dot_bits_do_not_depend_on_the_blas_thread_count(tmp_path):
    """OpenBLAS sums dots of more than 10,000 values on several threads; rows are cut into shorter segments."""
    one_thread = any(os.environ.get(name) == "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"))
    if not resampling.DOT_BY_BLAS or (os.cpu_count() or 1) < 2 or one_thread:
        pytest.skip("numpy here does not link OpenBLAS, or it runs on one thread already: nothing to compare")
    rng = np.random.default_rng(5)
    n = 3 * resampling.DOT_SEGMENT + 5
    here = resampling.fixed_dot(rng.normal(size=(4, n)), rng.normal(size=n))  # OpenBLAS's default: one per core
    script = ("import sys, numpy as np\n"
              "from rlstats.resampling import fixed_dot\n"
              "rng = np.random.default_rng(5)\n"
              f"np.save(sys.argv[1], fixed_dot(rng.normal(size=(4, {n})), rng.normal(size={n})))\n")
    out = tmp_path / "one_thread.npy"
    subprocess.run([sys.executable, "-c", script, str(out)], check=True, timeout=HANG_SECONDS,
                   env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    assert np.array_equal(np.load(out), here)


def windowed_design(seed=31, tasks=12, runs=40):
    rng = np.random.default_rng(seed)
    task = np.repeat(np.arange(tasks), runs)
    y = np.round(rng.gamma(2.0, 0.5, size=task.size) + 0.1 * task, 3)  # a few ties
    return K.agent_layout(y, task, np.tile(np.arange(runs), tasks), tasks)


def drawn_and_extreme_counts(layout, n_resamples=300):
    """Canonical counts of real draws, then rows far in the tails: every copy on a task's lowest, highest run."""
    drawn = np.concatenate([np.apply_along_axis(np.bincount, 1, draws.slots, minlength=layout.n_runs)
                            for _, _, draws in block_draws(np.random.SeedSequence(4), layout, n_resamples)])
    extremes = []
    for pick in (0, -1):
        row = np.zeros(layout.n_runs, dtype=np.int64)
        row[layout.task_start + (pick % layout.task_sizes)] = layout.task_sizes
        extremes.append(row)
    return np.vstack([drawn, extremes])


@pytest.mark.parametrize("windows", ["auto", "narrow", "from the edges"])
def test_windowed_iqm_equals_the_full_cumulative_sum(windows):
    layout = windowed_design()
    n = layout.n_runs
    low, high = n // 4, n - n // 4
    counts = drawn_and_extreme_counts(layout)
    chosen = {"auto": K.trim_windows(layout), "narrow": (low - 3, low + 3, high - 3, high + 3),
              "from the edges": (0, low + 6, high - 6, n)}[windows]
    assert chosen is not None
    full = K.CountStatistics(layout, ["iqm"], 1.0, len(counts), windows=None)
    windowed = K.CountStatistics(layout, ["iqm"], 1.0, len(counts), windows=chosen)
    outside = []

    def fallback(rows):
        outside.append(len(rows))
        return full.iqm(rows)
    got = windowed.windowed(counts, counts.astype(float), fallback)
    np.testing.assert_allclose(got, full.iqm(counts), rtol=1e-13)
    np.testing.assert_allclose(windowed(counts)[:, 0], full(counts)[:, 0], rtol=1e-13)
    if windows == "auto":  # real draws stay inside; the two extreme rows cannot
        assert outside == [2]
    else:
        assert 2 < outside[0] < len(counts) - 20  # the fallback and the windows both at work


@pytest.mark.parametrize("sizes", [[1, 7, 30, 3, 19, 40], [120]])
def test_windowed_iqm_on_random_windows_of_an_unbalanced_design(sizes):
    """Any windows a1 < b1 <= a2 < b2 (adjacent ones, the edges) give the full sum, on a tie-heavy design (an agent
    with unequal runs per task weighs them, audit s8, and takes the full weighted sum whatever windows are given)."""
    rng = np.random.default_rng(len(sizes))
    sizes = np.array(sizes)
    task = np.repeat(np.arange(sizes.size), sizes)
    layout = K.agent_layout(np.round(rng.gamma(2.0, 0.5, size=task.size), 0), task,
                            np.concatenate([np.arange(c) for c in sizes]), sizes.size)
    n = layout.n_runs
    counts = drawn_and_extreme_counts(layout, 200)
    full = K.CountStatistics(layout, ["iqm"], 1.0, len(counts), windows=None)
    expected = full.iqm(counts)
    for _ in range(40):
        a1, b1, a2, b2 = np.sort(rng.choice(n + 1, size=4, replace=False))
        if rng.random() < 0.3:
            b1 = a2  # adjacent windows
        windowed = K.CountStatistics(layout, ["iqm"], 1.0, len(counts), windows=(a1, b1, a2, b2))
        np.testing.assert_allclose(windowed(counts)[:, 0], expected, rtol=1e-13)


def test_trim_windows_only_where_two_counts_pack_exactly_into_a_double():
    assert 2 * 2 ** K.WINDOW_MAX_RUNS.bit_length() * K.WINDOW_MAX_RUNS < 2**53
    too_many = np.broadcast_to(0.0, K.WINDOW_MAX_RUNS + 1)  # n_runs only: trim_windows stops before reading them
    assert K.trim_windows(dataclasses.replace(windowed_design(), values=too_many)) is None


def test_windowed_iqm_ignores_chunking_and_equals_the_draw_path():
    layout = windowed_design(seed=32, tasks=10, runs=50)
    assert K.trim_windows(layout) is not None
    fast = K.bootstrap_agent(layout, ["iqm", "mean"], 1.0, 450, np.random.SeedSequence(9))
    slow = np.empty_like(fast)
    for start, stop, draws in block_draws(np.random.SeedSequence(9), layout, 450):
        slow[start:stop] = K.metric_values(layout, K.resample_from_draws(layout, draws), ["iqm", "mean"], 1.0)
    np.testing.assert_allclose(fast, slow, rtol=1e-13)
    for size in (1, 7, 1000):
        assert np.array_equal(fast, K.bootstrap_agent(layout, ["iqm", "mean"], 1.0, 450, np.random.SeedSequence(9),
                                                      batch_size=size))
    assert np.array_equal(fast, K.bootstrap_agent(layout, ["iqm", "mean"], 1.0, 450, np.random.SeedSequence(9),
                                                  n_jobs=2))


@pytest.mark.parametrize("sizes", [[3, 7, 5, 1], [6, 6, 6, 6]])
def test_profile_count_kernel_equals_the_draw_path(sizes):
    layout, tau = profile_design(sizes, 22)
    fast = K.profile_agent(layout, tau, "runs", 250, np.random.SeedSequence(3))
    slow = np.empty_like(fast)
    for start, stop, draws in block_draws(np.random.SeedSequence(3), layout, 250):
        slow[start:stop] = K.profile_values(layout, K.resample_from_draws(layout, draws), tau, "runs")
    np.testing.assert_allclose(fast, slow, rtol=1e-13, atol=1e-14)
    assert np.array_equal(fast, K.profile_agent(layout, tau, "runs", 250, np.random.SeedSequence(3), batch_size=1))
    np.testing.assert_allclose(K.profile_estimate(layout, tau, "runs"),
                               K.profile_values(layout, K.observed(layout), tau, "runs")[0], atol=1e-14)


def test_invariant_to_agent_order_rows_and_other_agents():
    df = rlstats.datasets.simulate(agents=4, tasks=5, seeds=4, effect=0.5, rng=1)
    base = bootstrap(df, FORMULA, n_resamples=500, rng=4).tidy().set_index(["metric", "agent"]).sort_index()
    shuffled = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
    names = sorted(df["agent"].unique())
    shuffled["agent"] = pd.Categorical(shuffled["agent"], categories=names[::-1])
    other = bootstrap(shuffled, FORMULA, n_resamples=500, rng=4)
    assert other.agents == tuple(names[::-1])
    pd.testing.assert_frame_equal(other.tidy().set_index(["metric", "agent"]).sort_index(), base)
    subset = bootstrap(df[df["agent"] != names[0]], FORMULA, n_resamples=500, rng=4).tidy()
    pd.testing.assert_frame_equal(subset.set_index(["metric", "agent"]).sort_index(),
                                  base.drop(index=names[0], level="agent"))


# ----------------------------------------------------------------------------- missing values


def test_missing_cells_raise_or_drop_tasks():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, rng=2)
    gap = df[~((df["agent"] == df["agent"].iloc[0]) & (df["task"] == df["task"].iloc[0]))]
    with pytest.raises(DesignError, match="na_action=\"drop\""):
        bootstrap(gap, FORMULA, n_resamples=50, rng=0)
    res = bootstrap(gap, FORMULA, n_resamples=50, rng=0, na_action="drop")
    assert res.tasks == tuple(sorted(df["task"].unique()))[1:]
    assert any("1 task left out" in n and "6 runs dropped" in n for n in res.notes)
    expected = bootstrap(df[df["task"] != df["task"].iloc[0]], FORMULA, n_resamples=50, rng=0)
    np.testing.assert_array_equal(res.bootstrap_distribution, expected.bootstrap_distribution)


def test_nan_scores_raise_or_are_dropped_and_stated():
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=3)
    df.loc[df.index[2], "score"] = np.nan
    with pytest.raises(DesignError, match="missing"):
        bootstrap(df, FORMULA, n_resamples=50, rng=0)
    res = bootstrap(df, FORMULA, n_resamples=50, rng=0, na_action="drop")
    assert res.nobs == len(df) - 1 and any("1 of 24 rows dropped" in n for n in res.notes)


# ----------------------------------------------------------------------------- user metrics


def mean_of_task_means(scores):
    return scores.mean(axis=0).mean()


def lambda_free_median():
    def median_of_task_means(scores):
        return np.median(scores.mean(axis=1), axis=1)

    median_of_task_means.vectorized = True
    return median_of_task_means


def test_user_metrics_plain_and_vectorised_equal_builtin():
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, rng=4)

    def vectorised(scores):
        return scores.mean(axis=1).mean(axis=1)

    vectorised.vectorized = True
    res = bootstrap(df, FORMULA, metrics={"mean": "mean", "plain": mean_of_task_means, "fast": vectorised},
                    n_resamples=300, rng=5)
    np.testing.assert_allclose(res.bootstrap_distribution[:, 1], res.bootstrap_distribution[:, 0], rtol=1e-12)
    np.testing.assert_allclose(res.bootstrap_distribution[:, 2], res.bootstrap_distribution[:, 0], rtol=1e-12)
    np.testing.assert_allclose(res.estimates[:, 1:], res.estimates[:, [0, 0]], rtol=1e-12)
    tasks_too = bootstrap(df, FORMULA, metrics={"median": "median", "fast": lambda_free_median()},
                          task_bootstrap=True, n_resamples=300, rng=5)
    np.testing.assert_array_equal(tasks_too.bootstrap_distribution[:, 1], tasks_too.bootstrap_distribution[:, 0])
    bca = bootstrap(df, FORMULA, metrics=[mean_of_task_means], interval="bca", n_resamples=300, rng=5)
    assert np.isfinite(bca.intervals).all() and bca.metrics == ("mean_of_task_means",)
    ragged = long_frame(ragged_data(np.random.default_rng(0)))
    with pytest.raises(DesignError, match="user metric"):
        bootstrap(ragged, FORMULA, metrics=[mean_of_task_means], rng=0)


def test_option_errors():
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    for kwargs, match in [({"metrics": ["iqr"]}, "not one of the built-in"), ({"metrics": []}, "empty"),
                          ({"metrics": [lambda s: 0.0]}, "needs a name"), ({"interval": "bc"}, "interval="),
                          ({"n_resamples": 1}, "at least 2"), ({"confidence_level": 95}, "between 0 and 1"),
                          ({"gamma": float("nan")}, "finite"), ({"metrics": {"a": "mean", "b": "x"}}, "'x'")]:
        with pytest.raises(OptionError, match=match):
            bootstrap(df, FORMULA, **kwargs)
    with pytest.raises(OptionError, match="normalize"):
        bootstrap(build(df, FORMULA), normalize="atari100k_reference")


# ----------------------------------------------------------------------------- probability of improvement


def direct_improvement(groups_x, groups_y):
    """Mean over tasks of mannwhitneyu(x, y, 'greater').statistic / (n_x n_y) (rliable's definition)."""
    return np.mean([stats.mannwhitneyu(x, y, alternative="greater").statistic / (x.size * y.size)
                    for x, y in zip(groups_x, groups_y)])


def test_probability_of_improvement_matches_mann_whitney():
    rng = np.random.default_rng(13)
    data = {"A": [rng.integers(0, 4, c).astype(float) for c in (3, 5, 2, 4)],
            "B": [rng.integers(0, 4, c).astype(float) for c in (2, 4, 6, 1)],
            "C": [rng.integers(0, 4, c).astype(float) for c in (4, 4, 4, 4)]}
    res = probability_of_improvement(long_frame(data), FORMULA, n_resamples=200, rng=0)
    assert res.pairs == (("A", "B"), ("A", "C"), ("B", "C"))
    for (x, y), estimate in zip(res.pairs, res.estimates):
        assert estimate == pytest.approx(direct_improvement(data[x], data[y]), rel=1e-12)
    identical = probability_of_improvement(long_frame({"A": data["A"], "B": data["A"]}), FORMULA, n_resamples=50,
                                           rng=0)
    assert identical.estimates[0] == pytest.approx(0.5)


def test_probability_of_improvement_resamples_and_symmetry():
    rng = np.random.default_rng(14)
    data = ragged_data(rng, sizes=((4, 6, 3), (5, 2, 4)))
    df = long_frame(data)
    forward = probability_of_improvement(df, FORMULA, pairs=[("A", "B")], n_resamples=500, rng=9,
                                         interval="percentile")
    backward = probability_of_improvement(df, FORMULA, pairs=[("B", "A")], n_resamples=500, rng=9,
                                          interval="percentile")
    np.testing.assert_allclose(backward.bootstrap_distribution, 1 - forward.bootstrap_distribution, atol=1e-12)
    np.testing.assert_allclose(backward.intervals[0], 1 - forward.intervals[0, ::-1], atol=1e-12)
    # the resamples are each agent's bootstrap() resamples: check replicate-by-replicate on the kernels
    groups = drawn_task_groups(df, 9, 500)
    for b in range(0, 500, 50):
        assert forward.bootstrap_distribution[0, b] == pytest.approx(direct_improvement(*groups(b)), rel=1e-12)


def test_probability_of_improvement_score_interval_solves_its_equation():
    # ragged runs (c_x != c_y, varying by task): each bound is the root, found here by brentq, of
    # (estimate - theta)^2 = z^2 sum_t V_t(theta) / T^2 with Hanley and McNeil's V_t written out
    rng = np.random.default_rng(15)
    data = ragged_data(rng, sizes=((4, 6, 3), (5, 2, 4)))
    res = probability_of_improvement(long_frame(data), FORMULA, pairs=[("A", "B")], n_resamples=50, rng=0)
    assert res.options["interval"] == "score" and res.method.startswith("Probability of improvement with score")
    z = stats.norm.ppf(0.975)
    m, n = np.array([4.0, 6.0, 3.0]), np.array([5.0, 2.0, 4.0])

    def gap(theta):
        q1, q2 = theta / (2 - theta), 2 * theta ** 2 / (1 + theta)
        v = (theta * (1 - theta) + (m - 1) * (q1 - theta ** 2) + (n - 1) * (q2 - theta ** 2)) / (m * n)
        return (res.estimates[0] - theta) ** 2 - z ** 2 * v.sum() / 9

    low = optimize.brentq(gap, 1e-12, res.estimates[0])
    high = optimize.brentq(gap, res.estimates[0], 1 - 1e-12)
    np.testing.assert_allclose(res.intervals[0], [low, high], atol=1e-12)
    old = probability_of_improvement(long_frame(data), FORMULA, pairs=[("A", "B")], n_resamples=50, rng=0,
                                     interval="percentile")
    assert old.options["interval"] == "percentile" and not np.allclose(old.intervals, res.intervals)


def drawn_task_groups(df, seed, n_resamples):
    """groups(b): each agent's scores in resample b, split by task, as bootstrap() draws them with ``rng=seed``."""
    design = build(df, FORMULA)
    layouts = [K.agent_layout(design.y[design.agent == j], design.task[design.agent == j],
                              design.run[design.agent == j], design.n_tasks, design.tasks)
               for j in range(len(design.agents))]
    root = np.random.SeedSequence(seed)
    streams = [rlstats.resampling.agent_seed_sequence(root, name) for name in design.agents]
    draws = [K.draw_blocks(K.agent_blocks(ss, n_resamples), layout, ss=ss) for ss, layout in zip(streams, layouts)]

    def groups(b):
        return [np.split(layout.canonical_values[d.slots[b]], np.cumsum(layout.task_sizes)[:-1])
                for layout, d in zip(layouts, draws)]
    return groups


def test_probability_of_improvement_chunks_agents_of_different_sizes_alike():
    """Agents of 2,400, 60 and 600 runs: chunks of 54 resamples for all, blocks split; three pairs sharing agents."""
    rng = np.random.default_rng(15)
    data = {"A": [rng.gamma(2.0, size=120) for _ in range(20)],
            "B": [np.round(rng.gamma(2.0, size=3), 1) for _ in range(20)],
            "C": [np.round(rng.gamma(2.2, size=30), 1) for _ in range(20)]}
    assert K.chunk_rows(2400) == 54 and K.chunk_rows(60) == K.chunk_rows(600) == K.RNG_BLOCK
    df = long_frame(data)
    res = probability_of_improvement(df, FORMULA, n_resamples=230, rng=4, interval="percentile")
    assert res.pairs == (("A", "B"), ("A", "C"), ("B", "C"))
    threads = probability_of_improvement(df, FORMULA, n_resamples=230, rng=4, n_jobs=2, interval="percentile")
    assert np.array_equal(res.bootstrap_distribution, threads.bootstrap_distribution)
    groups = drawn_task_groups(df, 4, 230)
    for b in (0, 53, 54, 99, 100, 229):  # either side of the chunk and block edges
        drawn = groups(b)
        for i, (x, y) in enumerate(((0, 1), (0, 2), (1, 2))):
            assert res.bootstrap_distribution[i, b] == pytest.approx(direct_improvement(drawn[x], drawn[y]), rel=1e-12)


def test_probability_of_improvement_pairs_errors():
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    for pairs, match in [([("agent_1", "nope")], "'nope' in pairs= is not an agent"), ([("agent_1", "agent_1")], "itself"),
                         (["agent_1"], "tuples"), ([], "empty")]:
        with pytest.raises(OptionError, match=match):
            probability_of_improvement(df, FORMULA, pairs=pairs)


# ----------------------------------------------------------------------------- performance profiles


def test_profiles_match_direct_fractions():
    rng = np.random.default_rng(15)
    data = ragged_data(rng, sizes=((4, 6, 3), (5, 2, 4)))
    tau = np.array([-1.0, 0.0, 0.5, 1.0, 2.5])
    runs = performance_profile(long_frame(data), FORMULA, tau=tau, n_resamples=300, rng=0)
    tasks = performance_profile(long_frame(data), FORMULA, tau=tau, kind="tasks", n_resamples=300, rng=0)
    for i, agent in enumerate(runs.agents):
        groups = data[agent]
        expected_runs = [np.mean([np.mean(g > t) for g in groups]) for t in tau]
        expected_tasks = [np.mean([g.mean() > t for g in groups]) for t in tau]
        np.testing.assert_allclose(runs.estimates[i], expected_runs, rtol=1e-12)
        np.testing.assert_allclose(tasks.estimates[i], expected_tasks, rtol=1e-12)
    assert (np.diff(runs.intervals, axis=1) <= 1e-12).all()  # bands fall with tau
    assert (runs.intervals[..., 0] <= runs.estimates + 1e-12).all()


def test_profile_tables_and_report_read_as_text_and_latex():
    """The table is named by what it holds (the caption read "Performance profiles ...: Performance profiles."),
    and the Wilson band's effective runs T² / sum(1 / n_t) is set as math in LaTeX, not as a caret."""
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=6)
    runs = performance_profile(df, FORMULA, tau=[0.0, 1.0])
    tasks = performance_profile(df, FORMULA, tau=[0.0, 1.0], kind="tasks")
    assert list(runs._summary_tables()) == ["Fraction of runs above each threshold (mean over tasks)"]
    assert list(tasks._summary_tables()) == ["Fraction of tasks whose mean score is above each threshold"]
    caption = next(line for line in runs.to_latex().splitlines() if line.startswith(r"\caption"))
    assert caption.startswith(r"\caption{Performance profiles with stratified Wilson bands: Fraction of runs above "
                              "each threshold (mean over tasks). ")
    assert "runs T² / sum(1 / n_t)" in runs.report("text")
    latex = runs.report("latex")
    assert r"runs T$^2$ / sum(1 / n\_t)" in latex and "textasciicircum" not in latex


def test_profile_default_grid_and_task_bootstrap():
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=3, rng=6)
    res = performance_profile(df, FORMULA, n_resamples=100, task_bootstrap=True, rng=0)
    low, high = df["score"].min(), df["score"].max()
    # From where every profile is still >= 0.95 (or the lowest score) to where every one is <= 0.05.
    assert res.tau.size == 81 and low <= res.tau[0] < res.tau[-1] <= high
    assert res.tau[0] == low or (res.estimates[:, 0] >= 0.95).all()
    assert (res.estimates[:, -1] <= 0.05).all()
    assert sum(note.startswith("thresholds tau span") and "pass tau=" in note for note in res.notes) == 1
    chosen = performance_profile(df, FORMULA, tau=[0.0, 1.0], n_resamples=100, rng=0)
    assert chosen.tau.tolist() == [0.0, 1.0] and not any("thresholds tau" in note for note in chosen.notes)
    with pytest.raises(OptionError, match="tau"):
        performance_profile(df, FORMULA, tau=[[1.0]])
    with pytest.raises(OptionError, match="kind"):
        performance_profile(df, FORMULA, kind="seeds")


# ----------------------------------------------------------------------------- inferential intervals


@pytest.mark.parametrize("statistic, ratio, expected", [
    (4.952381, 1.218, 0.44),  # c = 3 (spec 7.5: the lattice statistic)
    (15.1, 0.462, 0.65),  # c = 5
    (21.2, 0.011, 0.94),  # c = 10
])
def test_epsilon_reproduces_thesis_table_2_7(statistic, ratio, expected):
    p = stats.chi2.sf(statistic, 1)
    # t1 = 0, t2 = 1, so (t1_up - t2_low) / (t2 - t1) = ratio
    eps, branch = K.inferential_epsilon(0.0, 1.0, ratio / 2, -ratio / 2, p, 0.05)
    assert branch == "shrunk"
    assert eps == pytest.approx(0.999 * (1 + p - 0.05) / (1 + ratio))
    assert round(eps, 2) == expected


def test_epsilon_branches():
    # significant, already disjoint: eq 2.28 > 1, so 0.999
    assert K.inferential_epsilon(0.0, 1.0, 0.2, 0.8, 0.01, 0.05) == (0.999, "shrunk")
    # not significant, overlapping: descriptive intervals kept
    assert K.inferential_epsilon(0.0, 1.0, 0.7, 0.3, 0.2, 0.05) == (1.0, "unchanged")
    # not significant, disjoint: widened to a gap of (t2 - t1)(alpha - P) < 0, times 1.001
    eps, branch = K.inferential_epsilon(0.0, 1.0, 0.2, 0.8, 0.2, 0.05)
    assert branch == "widened" and eps == pytest.approx(1.001 * 1.15 / 0.4)
    gap = (1.0 - eps * 0.2) - (0.0 + eps * 0.2)  # lower end of the upper ICI minus upper end of the lower
    assert gap == pytest.approx(1.001 * (0.05 - 0.2) - 0.001)
    # eq 2.28 before the nudge leaves exactly the gap (t2 - t1)(alpha - P)
    raw = eps / 1.001
    assert (1.0 - raw * 0.2) - raw * 0.2 == pytest.approx(0.05 - 0.2)


def test_inferential_intervals_formula_on_a_result():
    df = rlstats.datasets.simulate(agents=3, tasks=8, seeds=5, effect=0.6, rng=21)
    res = bootstrap(df, FORMULA, metrics=["iqm", "mean"], n_resamples=500, rng=0)
    test = skillings_mack(build(df, FORMULA).select_agents(["agent_1", "agent_3"]))
    ici = res.inferential_intervals("agent_1", "agent_3")
    assert ici.pvalue == test.pvalue and ici.alpha == 0.05
    for j in range(2):
        est = res.estimates[[0, 2], j]
        low, high = np.argsort(est)
        eps, _ = K.inferential_epsilon(est[low], est[high], res.intervals[[0, 2][low], j, 1],
                                       res.intervals[[0, 2][high], j, 0], test.pvalue, 0.05)
        assert ici.epsilon[j] == eps
        expected = est[:, None] + eps * (res.intervals[[0, 2], j] - est[:, None])
        np.testing.assert_allclose(ici.inferential[:, j], expected, rtol=1e-12)
    same = res.inferential_intervals("agent_1", "agent_3", test=test)
    np.testing.assert_array_equal(same.inferential, ici.inferential)
    with pytest.raises(OptionError, match="exactly"):
        res.inferential_intervals("agent_1", "agent_3", test=skillings_mack(df, FORMULA))
    with pytest.raises(OptionError, match="b=.agent_9. is not an agent"):
        res.inferential_intervals("agent_1", "agent_9")


@pytest.mark.parametrize("n_datasets", [40, pytest.param(120, marks=pytest.mark.slow)])
def test_inferential_intervals_agree_with_the_test_on_many_datasets(n_datasets):
    # The first 40 data sets of the 120 (the same draws) reach every branch: 78 rows shrunk, 40 unchanged and 2
    # widened (of 120: 189, 161 and 10).
    rng = np.random.default_rng(22)
    branches = set()
    for d in range(n_datasets):
        seeds = int(rng.choice([2, 3, 5, 10]))
        df = rlstats.datasets.simulate(agents=2, tasks=int(rng.integers(3, 12)), seeds=seeds,
                                       effect=float(rng.uniform(0, 1.2)), rng=d)
        # percentile intervals: the default withholds its intervals at 2 runs per task
        res = bootstrap(df, FORMULA, metrics=["iqm", "mean", "median"], n_resamples=200, interval="percentile", rng=d)
        ici = res.inferential_intervals("agent_1", "agent_2")
        assert ici.agrees.all()
        assert (ici.overlap == (not ici.significant)).all()
        branches.update(ici.branch)
    assert branches == {"shrunk", "widened", "unchanged"}


# ----------------------------------------------------------------------------- Atari 100k


def test_atari_iqm_equals_direct_trimmed_mean(atari, published):
    reference = read_csv(published / "atari100k_reference.csv")
    data = atari[atari["agent"].isin(SIX)]
    res = bootstrap(data, FORMULA, metrics=["iqm"], normalize=reference, n_resamples=300, rng=0)
    assert res.agents == tuple(sorted(SIX)) and res.counts.min() == 100 and len(res.tasks) == 26
    merged = data.merge(reference, on="task")
    normalised = (merged["score"] - merged["random"]) / (merged["human"] - merged["random"])
    for i, agent in enumerate(res.agents):
        direct = stats.trim_mean(normalised[merged["agent"] == agent].to_numpy(), 0.25)
        assert res.estimates[i, 0] == pytest.approx(direct, rel=1e-12)
        assert res.intervals[i, 0, 0] < direct < res.intervals[i, 0, 1]


# ----------------------------------------------------------------------------- result contract


def results(df):
    res = bootstrap(df, FORMULA, n_resamples=200, rng=0)
    return [res, probability_of_improvement(df, FORMULA, n_resamples=200, rng=0),
            performance_profile(df, FORMULA, n_resamples=200, rng=0), res.inferential_intervals("agent_1", "agent_2")]


def test_result_contract(capsys):
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=4, effect=1.0, rng=0)
    before = df.copy()
    made = results(df)
    pd.testing.assert_frame_equal(df, before)
    expected_columns = [["agent", "metric", "estimate", "conf_low", "conf_high"],
                        ["agent_1", "agent_2", "estimate", "conf_low", "conf_high"],
                        ["agent", "tau", "estimate", "conf_low", "conf_high"], None]
    for res, columns, kind in zip(made, expected_columns, RESULT_TYPES):
        assert type(res) is kind
        if columns is not None:
            assert res.tidy().columns.tolist() == columns
        assert unknown_columns(res.tidy().columns) == [] and unknown_columns(res.glance().columns) == []
        assert len(res.glance()) == 1
        for table in res.summary().tables.values():
            assert unknown_columns(table.columns) == []
        json.loads(json.dumps(res.to_dict()))
        assert isinstance(str(res), str) and isinstance(res.report(), str) and res.summary().to_latex()
        with pytest.raises(dataclasses.FrozenInstanceError):
            res.method = "x"
        drawn = res.plot()
        assert hasattr(drawn, "savefig") or hasattr(drawn, "plot")
    assert capsys.readouterr().out == ""
    assert made[0].tidy()["metric"].tolist()[:3] == ["iqm"] * 3
    assert "bootstrap_distribution" not in made[0].to_dict()


def test_progress_bar_goes_to_stderr(capsys):
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    quiet = bootstrap(df, FORMULA, n_resamples=200, rng=1)
    shown = bootstrap(df, FORMULA, n_resamples=200, rng=1, progress=True)
    np.testing.assert_array_equal(quiet.bootstrap_distribution, shown.bootstrap_distribution)
    assert capsys.readouterr().out == ""


def test_print_and_report_contents():
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=4, rng=0)
    res = bootstrap(df, FORMULA, metrics=["iqm"], n_resamples=200, rng=0)
    text = str(res)
    assert "Stratified bootstrap confidence intervals" in text and "resamples = 200" in text
    assert "largest Monte Carlo SE of a bound" in text
    assert "IQM" in res.report() and "stratified bootstrap resamples" in res.report()


def test_compare_dispatch(monkeypatch):
    compare_module = importlib.import_module("rlstats.methods")
    monkeypatch.setitem(compare_module.METHODS, "bootstrap", "rlstats.methods.bootstrap:bootstrap")
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0)
    offset = 3.0
    res = rlstats.compare(df, "I(score + offset) ~ agent | task", method="bootstrap", n_resamples=100, rng=1)
    assert isinstance(res, BootstrapResult)
    direct = bootstrap(df.assign(score=df["score"] + offset), FORMULA, n_resamples=100, rng=1)
    np.testing.assert_allclose(res.estimates, direct.estimates)


def test_normalize_option_equals_normalising_first():
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0)
    reference = pd.DataFrame({"task": sorted(df["task"].unique()), "random": [0.0, 1.0, -2.0],
                              "human": [10.0, 3.0, 2.0]})
    via_option = bootstrap(df, FORMULA, normalize=reference, n_resamples=100, rng=0)
    first = bootstrap(rlstats.normalize(df, reference), FORMULA, n_resamples=100, rng=0)
    np.testing.assert_array_equal(via_option.bootstrap_distribution, first.bootstrap_distribution)
    assert any("'score' normalised per task as (score - random) / (human - random)" in n for n in via_option.notes)
    with pytest.raises(OptionError, match="normalize"):
        bootstrap(df[df["task"] == df["task"].iloc[0]], "score ~ agent", normalize=reference)


# ----------------------------------------------------------------------------- plots


def test_plots_take_axes_and_scalings():
    import matplotlib.pyplot as plt

    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=4, rng=0)
    res, poi, profile, ici = results(df)
    fig, axes = plt.subplots(1, 2)
    assert res.plot(ax=axes, metrics=["iqm", "mean"]) is fig
    _, ax = plt.subplots()
    assert res.plot(ax=ax, metrics=["iqm"]) is ax
    with pytest.raises(OptionError, match="panel"):
        res.plot(ax=ax)
    for scaling in ("linear", "nonlinear"):
        _, ax = plt.subplots()
        assert profile.plot(ax=ax, scaling=scaling, linewidth=3) is ax
        assert all(line.get_linewidth() == 3 for line in ax.get_lines())
    with pytest.raises(OptionError, match="scaling"):
        profile.plot(scaling="log")
    _, ax = plt.subplots()
    assert poi.plot(ax=ax) is ax and ici.plot(ax=ax, metric="mean") is ax


def test_raw_scales_across_tasks_are_warned_about():
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, heterogeneity=1.5, rng=0)
    with pytest.warns(rlstats.RlstatsWarning, match="normalize="):
        bootstrap(df, FORMULA, n_resamples=50, rng=0)
    alike = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, heterogeneity=0.0, rng=0)
    alike["score"] = alike["score"] + 10.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bootstrap(alike, FORMULA, n_resamples=50, rng=0)


# Issue 28: a user metric that returns NaN is named in a note, with its resample counts per agent.
def test_user_metric_returning_nan_is_named_and_its_intervals_are_nan():
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, effect=1.0, rng=0)
    before = df.copy()

    def spiky(m):
        return np.nan if m[0, 0] > 0.9 else float(np.mean(m))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bootstrap(df, "score ~ agent | task", metrics=[spiky, "iqm"], n_resamples=300, rng=0,
                                normalize=False)  # one scale, as simulated: no raw-scales note before the two
    pd.testing.assert_frame_equal(df, before)
    bad = np.isnan(res.bootstrap_distribution[:, 0]).sum(axis=-1)
    assert 0 < bad[0] < 300 and bad[1] == 300  # the note's counts are the distribution's
    assert res.notes[:2] == ("interval=\"studentized\" needs the within-task standard errors of the built-in metrics, "
                         "which a metric function does not have: percentile intervals are given",
                         f"the metric 'spiky' returned NaN for {bad[0]} of 300 resamples and the point estimate "
                         "of agent_1; 300 of 300 resamples and the point estimate of agent_2: those intervals are "
                         "NaN")
    assert res.interval == "percentile"
    tidy = res.tidy()
    assert tidy.loc[tidy["metric"] == "spiky", ["conf_low", "conf_high"]].isna().all().all()
    assert tidy.loc[tidy["metric"] == "iqm", ["conf_low", "conf_high"]].notna().all().all()
    other = res.confidence_interval(0.9)
    assert other.loc[other["metric"] == "spiky", ["conf_low", "conf_high"]].isna().all().all()
    assert "The metric `spiky' returned NaN" in res.report()  # LaTeX's quotes (audit s25)

    def finite(m):
        return float(np.mean(m))

    assert not any("NaN" in n for n in rlstats.bootstrap(df, "score ~ agent | task", metrics=[finite],
                                                          n_resamples=50, rng=0).notes)


# ----------------------------------------------------------------------------- the profile bands' measured coverage
# Issues 28 and 40: the bands' pointwise coverage in the package table (``bootstrap.profile`` rows, written by
# tests/reference/coverage_profiles.py through calibrate.py), checked against enumerations and re-measured.

PROFILES = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_profiles.py"))
Z95 = stats.norm.ppf(0.975)


def test_profile_truth_matches_fresh_draws():
    """The thresholds sit where the true profile is nearest its nominal values (exactly there for continuous scores;
    capped ones jump over some); the truth agrees with the share of 40,000 fresh runs per task above tau (4 SE)."""
    designs = PROFILES["DESIGNS"]
    rng = np.random.default_rng(2)
    draws = 40_000
    for distribution, tasks in itertools.product(PROFILES["DISTRIBUTIONS"], (1, 5)):
        tau, truth = PROFILES["truth"](distribution, tasks, 1)
        if distribution != "capped":
            np.testing.assert_allclose(truth, PROFILES["PROFILE_VALUES"], atol=2 / (tasks * PROFILES["POINTS"]))
        offset, scale = designs["design_draw"](1, tasks)
        y = designs["scores"](distribution, designs["deviations"](rng, distribution, (draws, tasks)), 0.0, offset,
                              scale)
        direct = (y[:, :, None] > tau).mean(axis=(0, 1))
        assert np.all(np.abs(direct - truth) <= 4 * np.sqrt(truth * (1 - truth) / draws)), (distribution, tasks)
    assert PROFILES["truth"]("capped", 1, 0)[1][:3] == pytest.approx([1 / 3] * 3, abs=1e-3)  # just below the cap


def test_corrected_wilson_interval_is_newcombes_method_4():
    """Newcombe's (1998) closed form of Wilson's interval with continuity correction, for every count of 1 to 40
    trials; at an effective (non-integer) size each bound solves (|p_hat - p| - 1 / (2 n))^2 = z^2 p (1 - p) / n."""
    from rlstats.statistics import corrected_wilson_interval

    z = Z95
    for n in range(1, 41):
        k = np.arange(n + 1)
        p = k / n
        low = (2 * n * p + z**2 - 1 - z * np.sqrt(np.maximum(z**2 - 2 - 1 / n + 4 * p * (n * (1 - p) + 1), 0))) \
            / (2 * (n + z**2))
        high = (2 * n * p + z**2 + 1 + z * np.sqrt(np.maximum(z**2 + 2 - 1 / n + 4 * p * (n * (1 - p) - 1), 0))) \
            / (2 * (n + z**2))
        low, high = np.where(k == 0, 0.0, low), np.where(k == n, 1.0, high)
        ours = corrected_wilson_interval(p, n)
        np.testing.assert_allclose(ours[0], np.clip(low, 0, 1), atol=1e-12)
        np.testing.assert_allclose(ours[1], np.clip(high, 0, 1), atol=1e-12)
    n, p = 7.3, np.array([0.2, 0.5, 0.9])
    low, high = corrected_wilson_interval(p, n)
    for bound in (low, high):
        np.testing.assert_allclose((np.abs(p - bound) - 0.5 / n) ** 2, z**2 * bound * (1 - bound) / n, rtol=1e-9)


def test_wilson_band_is_the_corrected_wilson_interval_at_the_effective_runs():
    """Unequal runs: the band at each tau is the corrected Wilson interval of the profile at T^2 / sum(1 / n_t) runs;
    no resamples, no Monte Carlo error; the seed changes nothing; the percentile band stays reachable."""
    from rlstats.statistics import corrected_wilson_interval

    rng = np.random.default_rng(15)
    sizes = ((4, 6, 3), (5, 2, 4))
    df = long_frame(ragged_data(rng, sizes=sizes))
    tau = np.array([-1.0, 0.0, 0.5, 1.0, 2.5])
    res = performance_profile(df, FORMULA, tau=tau, rng=0)
    assert res.interval == "wilson" and res.n_resamples is None and not res.interval_mc_se.any()
    assert res.options["interval"] == "wilson" and res.method.endswith("stratified Wilson bands")
    for i, runs in enumerate(sizes):
        n_eff = 9 / sum(1 / n for n in runs)
        expected = corrected_wilson_interval(res.estimates[i], n_eff)
        np.testing.assert_array_equal(res.intervals[i], np.stack(expected, axis=-1))
    assert np.array_equal(performance_profile(df, FORMULA, tau=tau, rng=7).intervals, res.intervals)
    old = performance_profile(df, FORMULA, tau=tau, interval="percentile", n_resamples=300, rng=0)
    assert old.interval == "percentile" and old.n_resamples == 300 and "percentile bands" in old.report()
    # their defaults (task_bootstrap=True: "wilson_tasks" since audit s29 profile29, "percentile" before)
    for options, band in (({"kind": "tasks"}, "skew_t"), ({"task_bootstrap": True}, "wilson_tasks")):
        assert performance_profile(df, FORMULA, tau=tau, n_resamples=100, rng=0, **options).interval == band
        with pytest.raises(OptionError, match="interval='wilson' bands the fraction of runs above tau"):
            performance_profile(df, FORMULA, tau=tau, interval="wilson", **options)


def _wilson_coverage(runs, p):
    """Exact coverage of the corrected Wilson interval of Binomial(runs, p) / runs: one task's band."""
    from rlstats.statistics import corrected_wilson_interval

    k = np.arange(runs + 1)
    low, high = corrected_wilson_interval(k / runs, runs)
    return float(np.sum(stats.binom.pmf(k, runs, p) * ((low <= p) & (p <= high))))


def test_wilson_band_covers_two_unequal_tasks_by_enumeration():
    """The stratified band by enumeration of both tasks' counts (3 and 5 runs) over a grid of their shares above
    tau, alike or far apart: at least 0.95 - 0.01 wherever the profile is between 0.05 and 0.95."""
    from rlstats.statistics import corrected_wilson_interval

    sizes = np.array([3, 5])
    n_eff = 4 / np.sum(1 / sizes)
    k1, k2 = np.meshgrid(np.arange(4), np.arange(6), indexing="ij")
    estimate = (k1 / 3 + k2 / 5) / 2
    low, high = corrected_wilson_interval(estimate, n_eff)
    worst = 1.0
    for p1, p2 in itertools.product(np.linspace(0.01, 0.99, 50), repeat=2):
        truth = (p1 + p2) / 2
        if not 0.05 <= truth <= 0.95:
            continue
        weight = stats.binom.pmf(k1, 3, p1) * stats.binom.pmf(k2, 5, p2)
        worst = min(worst, float(np.sum(weight * ((low <= truth) & (truth <= high)))))
    assert 0.94 <= worst < 0.99


def binomial_band_coverage(runs, p, level=0.95, resamples=2000):
    """Coverage at one task of the percentile band, by enumeration; and how far finite resampling can move it.

    ``above`` of the runs lie above tau, Binomial(runs, p); a resample's fraction above is Binomial(runs, above /
    runs) / runs, and with unlimited resamples the band spans its (1 - level) / 2 and (1 + level) / 2 quantiles.
    With ``resamples`` of them a band end can land anywhere between counts j and j + 1 when the CDF at j is within
    4 binomial SE of its level: the probability of the counts ``above`` for which p lies there is returned as slack.
    """
    k = np.arange(runs + 1)
    near = 4 * math.sqrt(0.025 * 0.975 / resamples)
    covered = slack = 0.0
    for above in k:
        cdf = stats.binom.cdf(k, runs, above / runs)
        low, high = (k[np.argmax(cdf >= q)] / runs for q in ((1 - level) / 2, (1 + level) / 2))
        weight = stats.binom.pmf(above, runs, p)
        covered += weight * (low <= p <= high)
        unsure = [j for q in ((1 - level) / 2, (1 + level) / 2) for j in k[:-1] if abs(cdf[j] - q) < near]
        slack += weight * any(j / runs < p < (j + 1) / runs for j in unsure)
    return covered, slack


def test_one_task_profile_rows_match_the_binomial_enumeration():
    """With one task only the count of runs above tau matters, whatever the distribution or design draw: every
    one-task row of the table agrees with the enumeration of its band within 4 SE (binomial, at the enumerated
    coverage or the level's variance; the worst draw within 4 SE of one draw), plus for the percentile band the
    slack of finite resampling."""
    rows = [row for row in calibration.rows(PROFILES["PROCEDURE"]) if row["tasks"] == "1"]
    assert len(rows) == (len(PROFILES["INTERVALS"]) * len(PROFILES["DISTRIBUTIONS"]) * len(PROFILES["RUNS"])
                         * len(PROFILES["PROFILE_VALUES"]))
    truths = {d: PROFILES["truth"](d, 1, 0)[1] for d in {row["distribution"] for row in rows}}  # once per law
    for row in rows:
        truth = truths[row["distribution"]]
        p = float(truth[PROFILES["PROFILE_VALUES"].index(float(row["configuration"].split()[1]))])
        runs = int(row["runs"])
        if row["interval"] == "wilson":
            exact, slack = _wilson_coverage(runs, p), 0.0
        else:
            exact, slack = binomial_band_coverage(runs, p, resamples=int(row["n_resamples"]))
        variance = max(exact * (1 - exact), 0.05 * 0.95)
        assert abs(float(row["coverage"]) - exact) <= 4 * math.sqrt(variance / int(row["n_sim"])) + slack, row
        per_draw = int(row["n_sim"]) / int(row["design_draws"])
        assert float(row["coverage_min"]) >= exact - 4 * math.sqrt(variance / per_draw) - slack, row
    # the enumerations themselves: the percentile band at 2 runs covers only when one is above tau, 2 p (1 - p); the
    # corrected Wilson interval at 3 runs misses p = 0.051 only when 2 or 3 runs are above it (from 2 of 3 it spans
    # 0.125 to 0.98)
    assert binomial_band_coverage(2, 0.251)[0] == pytest.approx(2 * 0.251 * 0.749, abs=1e-12)
    assert _wilson_coverage(3, 0.051) == pytest.approx(stats.binom.cdf(1, 3, 0.051), abs=1e-12)


def _check_profile_coverage(point, n_sim, intervals=("wilson",), draws=(0,)):
    """Re-measured coverage of each band at every profile value: within 4 joint SE of the table, and for the Wilson
    band at its level within 3 SE (the percentile band's shortfall is what the table quotes)."""
    distribution, tasks, runs = point
    tabled = {(row["interval"], row["configuration"]): row for row in calibration.rows(PROFILES["PROCEDURE"])
              if (row["distribution"], int(row["tasks"]), int(row["runs"])) == point}
    by_draw = [PROFILES["held"](distribution, tasks, runs, draw, n_sim, seed=99, share=1.0 if "percentile" in
                                intervals else 0.0)[0] for draw in draws]
    for interval in intervals:
        for j, value in enumerate(PROFILES["PROFILE_VALUES"]):
            row = PROFILES["DESIGNS"]["pooled_row"]([h[interval][:, j] for h in by_draw], 0.95)
            table = tabled[interval, f"profile {value:g}"]
            coverage = float(table["coverage"])
            joint = math.sqrt(max(coverage * (1 - coverage), 0.05 * 0.95)
                              * (1 / row["n_sim"] + 1 / int(table["n_sim"])))
            assert abs(row["coverage"] - coverage) <= 4 * joint, (point, interval, value, row, coverage)
            if interval == "wilson":
                assert row["coverage"] >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / row["n_sim"]), (point, value, row)
    return by_draw


@pytest.mark.parametrize("point, n_sim", [pytest.param(point, n, id="-".join(map(str, point)), marks=marks)
                                          for point, n, marks in
                                          [(("skewed", 26, 3), 8, ()), (("capped", 5, 5), 8, ())]
                                          + [(point, 40, pytest.mark.slow) for point in PROFILES["grid"]()]])
def test_profile_band_coverage(point, n_sim):
    slow = n_sim > 10
    _check_profile_coverage(point, n_sim, intervals=PROFILES["INTERVALS"] if slow else ("wilson",),
                            draws=range(PROFILES["DESIGNS"]["DESIGN_DRAWS"]) if slow else (0,))


def test_percentile_band_misses_where_the_wilson_band_holds():
    """On the same data sets (normal scores, 5 tasks, 3 runs): the percentile band is short of 95% by far more than
    3 SE near the edges of the profile, the Wilson band is not."""
    held = PROFILES["held"]("normal", 5, 3, 0, 6, seed=5, share=1.0)[0]
    n = held["wilson"].shape[0]
    bound = 0.95 - 3 * math.sqrt(0.05 * 0.95 / n)
    assert held["percentile"][:, 0].mean() < bound and held["percentile"][:, -1].mean() < bound
    assert (held["wilson"].mean(axis=0) >= bound).all()


def test_wilson_band_width_against_the_oracle():
    """Issue 40 item 3: at 10 runs per task on 26 tasks (normal scores) the band's median width is within 1.0 to 1.3
    times the oracle's, the normal interval with each threshold's true variance sum_t p_t (1 - p_t) / (T^2 n)."""
    designs = PROFILES["DESIGNS"]
    tasks, runs = 26, 10
    _, width = PROFILES["held"]("normal", tasks, runs, 0, 3, seed=4, share=0.0)
    tau, _ = PROFILES["truth"]("normal", tasks, 0)
    offset, scale = designs["design_draw"](0, tasks)
    population = designs["population"]("normal", 0.0, offset, scale, points=PROFILES["POINTS"])
    shares = (population[:, None, :] > tau[None, :, None]).mean(axis=-1)
    oracle = 2 * Z95 * np.sqrt((shares * (1 - shares)).sum(axis=0) / (tasks ** 2 * runs))
    ratio = np.median(width["wilson"], axis=0) / oracle
    assert np.all((1.0 <= ratio) & (ratio <= 1.3)), ratio


def test_profile_band_quotes_its_measured_coverage(monkeypatch):
    def row(tasks, runs, distribution, value, coverage, interval="percentile"):
        return {"procedure": "bootstrap.profile", "band": "pointwise", "interval": interval, "metric": "runs",
                "tasks": str(tasks), "runs": str(runs), "distribution": distribution,
                "configuration": f"profile {value}", "level": "0.95", "n_sim": "6000", "coverage": str(coverage),
                "design_draws": "4", "coverage_min": str(coverage - 0.01)}

    # the package table: the percentile band at 3 runs per task on 5 tasks falls short; the lowest row is quoted
    short = [r for r in calibration.rows("bootstrap.profile")
             if (r["tasks"], r["runs"], r["interval"]) == ("5", "3", "percentile") and calibration.misses(r, 0.95)]
    lowest = min(short, key=calibration.worst_coverage)
    df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=3, rng=0)
    assert any(n.startswith("pointwise 95% percentile profile bands from 3 runs per task: in simulations with 3 runs "
                            "per task on 5 tasks, a band held the true profile at a threshold where it is "
                            f"{float(lowest['configuration'].split()[1]):.2f} in {float(lowest['coverage']):.2f} of "
                            f"{lowest['n_sim']} simulated bands ({lowest['distribution']} scores")
               and n.endswith("the default interval='wilson' held its level there")
               for n in performance_profile(df, FORMULA, interval="percentile", n_resamples=100, rng=0).notes)
    # the Wilson band holds there: nothing quoted
    assert not any("profile bands from" in n for n in performance_profile(df, FORMULA).notes)

    rows = (row(5, 3, "normal", 0.051, 0.45), row(5, 3, "normal", 0.501, 0.88), row(5, 3, "skewed", 0.051, 0.5),
            row(1, 3, "normal", 0.051, 0.1), row(5, 10, "normal", 0.501, 0.95),
            row(5, 3, "normal", 0.051, 0.9, "wilson"), row(5, 10, "normal", 0.501, 0.95, "wilson"))
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "bootstrap.profile" else ())
    # nearest23: 4 tasks read the 1- and 5-task rows that bracket them and quote the worse, the 1-task row's 0.10
    # (the 5-task row's 0.45 before, 5 the nearest on a log scale); 5 tasks read their own
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=4, rng=0)  # 4 runs read as 3
    notes = performance_profile(df, FORMULA, interval="percentile", n_resamples=100, rng=0).notes
    assert ("pointwise 95% percentile profile bands from 4 runs per task: in simulations with 3 runs per task on 1 "
            "and 5 tasks (the worse on 1), a band held the true profile at a threshold where it is 0.05 in 0.10 of "
            "6000 simulated bands (normal scores, 0.09 in its worst draw of the tasks' offsets and scales); the "
            "default interval='wilson' held its level there") in notes
    df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=4, rng=0)
    notes = performance_profile(df, FORMULA, interval="percentile", n_resamples=100, rng=0).notes
    assert ("pointwise 95% percentile profile bands from 4 runs per task: in simulations with 3 runs per task on 5 "
            "tasks, a band held the true profile at a threshold where it is 0.05 in 0.45 of 6000 simulated bands "
            "(normal scores, 0.44 in its worst draw of the tasks' offsets and scales); 0.88 where it is 0.5; the "
            "default interval='wilson' held its level there") in notes
    assert ("pointwise 95% wilson profile bands from 4 runs per task: in simulations with 3 runs per task on 5 tasks, "
            "a band held the true profile at a threshold where it is 0.05 in 0.90 of 6000 simulated bands (normal "
            "scores, 0.89 in its worst draw of the tasks' offsets and scales); more runs per task are needed for the "
            "stated level") in performance_profile(df, FORMULA).notes
    for options in ({"kind": "tasks"}, {"task_bootstrap": True}, {"confidence_level": 0.9}):
        assert not any("profile bands from" in n for n in performance_profile(df, FORMULA, n_resamples=100, rng=0,
                                                                              **options).notes), options
    for seeds in (12, 25):  # a run count whose row holds its level; more runs than were measured
        more = rlstats.datasets.simulate(agents=2, tasks=4, seeds=seeds, rng=0)
        assert not any("profile bands from" in n for n in performance_profile(
            more, FORMULA, interval="percentile", n_resamples=100, rng=0).notes), seeds


# ---- issue 39 item 5: a score with known bounds never gets an interval outside them
def test_bounds_clip_the_basic_interval_at_the_cap_and_leave_the_draws_alone():
    import pandas as pd

    values = {"A": [1.0, 1.0, 0.6], "B": [0.2, 0.5, 0.9]}
    df = pd.DataFrame([(a, t, s, values[a][(s + i) % 3]) for a in "AB" for i, t in enumerate(("t1", "t2", "t3"))
                       for s in range(3)], columns=["agent", "task", "seed", "score"])
    options = {"interval": "basic", "n_resamples": 500, "rng": 0}
    free = rlstats.bootstrap(df, "score ~ agent | task", **options)
    capped = rlstats.bootstrap(df, "score ~ agent | task", bounds=(0, 1), **options)
    assert free.intervals[0, 0, 1] == pytest.approx(1.16)  # A's IQM is 0.92; the basic interval reflects past 1
    np.testing.assert_array_equal(capped.intervals, np.clip(free.intervals, 0.0, 1.0))  # gap range [0, 1] too
    np.testing.assert_array_equal(capped.bootstrap_distribution, free.bootstrap_distribution)
    assert "1 end of the IQM intervals clipped to [0, 1], the score's bounds (bounds=(0, 1)): the true value " \
           "lies within them, so clipping keeps the coverage" in capped.notes
    # a metric function is on a scale the bounds say nothing about: never clipped
    def spread(matrix):
        return float(matrix.max() - matrix.min()) * 10

    assert rlstats.bootstrap(df, "score ~ agent | task", metrics=[spread], bounds=(0, 1), **options).intervals.max() > 1
    with pytest.raises(rlstats.errors.DesignError, match=r"index label 0 \(agent 'A', task 't1', value 1.0\)"):
        rlstats.bootstrap(df, "score ~ agent | task", bounds=(0, 0.95), **options)


def test_bounds_clip_widened_inferential_intervals_and_keep_their_overlap():
    import types

    import pandas as pd

    values = {"A": [1.0, 1.0, 0.9], "B": [0.5, 0.55, 0.52]}
    df = pd.DataFrame([(a, t, s, values[a][(s + i) % 3]) for a in "AB" for i, t in enumerate(("t1", "t2"))
                       for s in range(3)], columns=["agent", "task", "seed", "score"])
    options = {"n_resamples": 500, "rng": 0, "metrics": ["mean"], "interval": "percentile"}
    test = types.SimpleNamespace(pvalue=0.9, method="a test that does not reject", statistic=None)
    free = rlstats.bootstrap(df, "score ~ agent | task", **options).inferential_intervals("A", "B", test)
    capped = rlstats.bootstrap(df, "score ~ agent | task", bounds=(0, 1), **options).inferential_intervals("A", "B",
                                                                                                          test)
    assert free.branch == ("widened",) and free.inferential[0, 0, 1] > 1.5  # widened until they overlap
    np.testing.assert_array_equal(capped.inferential, np.clip(free.inferential, 0.0, 1.0))
    assert capped.overlap.tolist() == free.overlap.tolist() == [True] and capped.agrees.all()


# ---------------------------------------------------------------- issue 39 item 4: ties at floating-point noise

from conftest import noise_ties  # noqa: E402

def test_probability_of_improvement_reads_noise_as_ties_and_says_so():
    # b's runs equal a's up to 1e-15 (a sum in another order): P(a > b) is 0.5, as with exact ties, not 0 or 1
    noisy, exact = noise_ties(6)
    res = rlstats.probability_of_improvement(noisy, "score ~ agent | task", n_resamples=300, rng=0)
    ties = rlstats.probability_of_improvement(exact, "score ~ agent | task", n_resamples=300, rng=0)
    np.testing.assert_allclose(res.estimates, [0.5, 0.0, 0.0], rtol=1e-15, atol=0)
    np.testing.assert_array_equal(res.estimates, ties.estimates)
    np.testing.assert_array_equal(res.bootstrap_distribution, ties.bootstrap_distribution)
    assert "are within 1e-12 of each other" in res.notes[0]
    assert not any("within 1e-12" in note for note in ties.notes)


@pytest.mark.parametrize("sizes, size, edges", [
    ([10, 3, 3, 3, 3], 8, [0, 10, 16, 22]),  # a first task larger than a slice: alone (it made one slice of all)
    ([5000, 300, 4000, 20], 3000, [0, 5000, 5300, 9300, 9320]),
    ([2, 2, 9, 1, 1], 4, [0, 4, 13, 15]),
    ([3, 3], 6, None),
])
def test_task_slices_hold_whole_tasks_of_at_most_a_slice_or_one_task(sizes, size, edges):
    from types import SimpleNamespace

    from rlstats.methods.bootstrap._kernels import task_slices

    layout = SimpleNamespace(n_runs=sum(sizes), task_sizes=np.array(sizes))
    assert task_slices(layout, size) == edges


def test_renamed_builtin_metrics_keep_their_arithmetic_everywhere():
    """metrics={"middle": "median", ...} is the median under another name: the printed intervals, the report,
    confidence_interval() at the printed level and the inferential intervals are those of the built-in names (the
    result once went by the names, so confidence_interval() gave the median a bootstrap-t interval)."""
    df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=5, rng=1)
    builtin = ["median", "mean", "optimality_gap", "iqm"]
    renamed = {"middle": "median", "avg": "mean", "gap": "optimality_gap", "trimmed": "iqm"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = rlstats.bootstrap(df, FORMULA, metrics=builtin, n_resamples=400, rng=2, normalize=False)
        b = rlstats.bootstrap(df, FORMULA, metrics=renamed, n_resamples=400, rng=2, normalize=False)
    assert b.metric_kinds == tuple(builtin)
    np.testing.assert_array_equal(a.intervals, b.intervals)
    for res in (a, b):
        again = res.confidence_interval()
        np.testing.assert_array_equal(again[["conf_low", "conf_high"]].to_numpy(),
                                      res.tidy()[["conf_low", "conf_high"]].to_numpy())
    assert "mean shortfall of the runs below" in b.report() and "middle 50" in b.report()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(a.inferential_intervals("agent_1", "agent_2").inferential,
                                      b.inferential_intervals("agent_1", "agent_2").inferential)


def test_optimality_gap_interval_is_clipped_at_zero_without_bounds():
    """The gap is a mean of max(gamma - score, 0): its interval never goes below 0, bounds= or not, and the note
    says so; at another level too."""
    rng = np.random.default_rng(4)
    rows = [("A", f"t{t}", r, float(v)) for t in range(4) for r, v in enumerate(rng.normal(1.6, 0.5, 4))]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = rlstats.bootstrap(df, FORMULA, metrics=["optimality_gap"], n_resamples=500, rng=1)
    unclipped = res.estimates[0, 0] - res.standard_errors[0, 0] * 3  # the studentized low end falls below 0 here
    assert unclipped < 0 and res.intervals[0, 0, 0] == 0.0
    assert any("clipped to [0, inf), the optimality gap's range (a mean of max(gamma - score, 0)" in n
               for n in res.notes)
    assert (res.confidence_interval(0.99)["conf_low"] >= 0).all()
