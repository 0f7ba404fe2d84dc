"""Audit s18 (perf18): the cost of the rank post hoc's exact pair p-values, and the memory bounds."""

import functools
import itertools
import math
import types

import numpy as np
import pytest

import rlstats
from rlstats.cost import Shape
from rlstats.methods.skillings_mack import _api, _backend, _kernels


def _setup(counts, rng=0, decimals=None):
    counts = np.asarray(counts)
    task, agent = np.nonzero(counts)
    reps = counts[task, agent]
    task, agent = np.repeat(task, reps), np.repeat(agent, reps)
    y = np.random.default_rng(rng).normal(size=task.size)
    y = y if decimals is None else np.round(y, decimals)
    return _kernels.build_setup(y, agent, task, counts.shape[1], counts.shape[0], variant="mack_skillings")


def _loop_pvalues(setup, u, v, diff, higher_is_better, limit=_kernels.AUTO_EXACT_LIMIT, laws=None):
    """The exact pair p-values as first written (a Python loop a choice of places): the reference, to the bit.
    ``laws``: a dict in which a task's law, which depends only on the task and the pair's two counts there, is kept
    for the other pairs and calls on the same setup and orientation (the same numbers, each computed once)."""
    laws = {} if laws is None else laws
    q = setup.block_size[setup.block]
    ranks = q + 1 - setup.ranks2 / 2.0 if higher_is_better else setup.ranks2 / 2.0
    scale = setup.agents_present / setup.block_size
    out = np.full(len(u), np.nan)
    for index, (a, b) in enumerate(zip(u, v)):
        shared = np.flatnonzero((setup.counts[:, a] > 0) & (setup.counts[:, b] > 0))
        sizes = [math.comb(int(setup.block_size[i]), int(setup.counts[i, a]))
                 * math.comb(int(setup.block_size[i] - setup.counts[i, a]), int(setup.counts[i, b])) for i in shared]
        if shared.size == 0 or math.prod(sizes) > limit:
            continue
        values, probabilities = np.zeros(1), np.ones(1)
        for i in shared:
            key = (int(i), int(setup.counts[i, a]), int(setup.counts[i, b]))
            if key not in laws:
                r, places = ranks[setup.block == i], np.arange(setup.block_size[i])
                laws[key] = [scale[i] * (r[list(first)].mean() - r[list(second)].mean())
                             for first in itertools.combinations(places, int(setup.counts[i, a]))
                             for second in itertools.combinations(np.setdiff1d(places, first), int(setup.counts[i, b]))]
            law = laws[key]
            values = (values[:, None] + np.asarray(law)[None, :]).ravel()
            probabilities = (probabilities[:, None] * np.full(len(law), 1.0 / len(law))[None, :]).ravel()
        observed = abs(diff[index])
        out[index] = min(1.0, float(probabilities[np.abs(values) >= observed - _kernels._relative_tol(observed)].sum()))
    return out


@pytest.mark.parametrize("trials, least_exact", [pytest.param(60, 500, marks=pytest.mark.slow), (15, 100)],
                         ids=["60 designs", "reduced"])
def test_pair_exact_pvalues_equal_the_loop_to_the_bit(trials, least_exact):
    """60 random designs of 2-6 agents, 1-4 tasks, 0-3 runs a cell, ties by rounding, both orientations and two limits:
    the enumeration at once gives the loop's p-values bit for bit (and as many pairs exact). The test's own loop takes
    the time (about 3 s of 60 designs): the default run checks the first 15."""
    rng = np.random.default_rng(5)
    exact = 0
    for trial in range(trials):
        counts = rng.integers(0, 4, size=(int(rng.integers(1, 5)), int(rng.integers(2, 7))))
        counts[:, :2] = np.maximum(counts[:, :2], 1)
        setup = _setup(counts, rng=trial, decimals=int(rng.integers(0, 3)))
        u, v = np.triu_indices(setup.k, 1)
        for higher in (True, False):
            diff = _kernels.shared_task_contrasts(setup, higher_is_better=higher)[0][u, v]
            laws = {}  # the loop's laws of this setup and orientation, each enumerated once (as they are the same)
            for limit in (_kernels.AUTO_EXACT_LIMIT, 300):
                got = _kernels.pair_exact_pvalues(setup, u, v, diff, higher_is_better=higher, limit=limit)
                want = _loop_pvalues(setup, u, v, diff, higher, limit, laws)
                np.testing.assert_array_equal(got, want)
                exact += int(np.count_nonzero(~np.isnan(got)))
    assert exact > least_exact


def test_a_task_law_is_enumerated_once_for_the_pairs_that_share_it(monkeypatch):
    """8 agents of 2 runs on one task (adjustment='holm'): the 28 pairs' law of D is one (every pair has 2 + 2 runs
    among the task's 16 places, 10,920 choices), enumerated once (before: 28 times, 1.5 s)."""
    calls = []
    real = _kernels._pair_task_null
    monkeypatch.setattr(_kernels, "_pair_task_null", lambda *a: calls.append(a[1:3]) or real(*a))
    setup = _setup([[2] * 8])
    u, v = np.triu_indices(8, 1)
    diff = _kernels.shared_task_contrasts(setup)[0][u, v]
    p = _kernels.pair_exact_pvalues(setup, u, v, diff)
    assert np.isfinite(p).all() and calls == [(2, 2)]


def test_the_cost_formula_counts_the_exact_pair_pvalues():
    """Every pair of 8 agents on a task of its own of 8 + 8 runs: 28 x 12,870 arrangements (12.5 s in the loop, 0.18 s
    now; benchmarks/README.md), priced as an upper bound of 20,000 a pair (0.14 s); the default on a balanced design
    (Tukey's single step, no pair p-value) and a complete design whose pairs share too many tasks count none."""
    options = _api.SkillingsMackOptions.checked(**_api._default_options())
    shape = Shape(rows=28 * 16, agents=8, tasks=28, cells=56, most_runs=8)
    work = _backend.cost(shape, options)
    assert work.seconds - _backend.pvalue_cost(shape, options).seconds == pytest.approx(28 * 20_000 * 2.5e-7)
    assert "exact pair p-values, at most 560,000 arrangements" in work.what
    balanced = Shape(rows=8 * 2 * 2, agents=8, tasks=2, cells=16, most_runs=2)
    # no arrangements there: Tukey's tails of its 28 pairs alone (audit s31 bounds31, 1.5e-6 s a pair and agent)
    assert _backend.cost(balanced, options).seconds - _backend.pvalue_cost(balanced, options).seconds == pytest.approx(
        28 * 8 * 1.5e-6)
    holm = _api.SkillingsMackOptions.checked(**{**_api._default_options(), "adjustment": "holm"})
    assert _backend.cost(balanced, holm) == _backend.pvalue_cost(balanced, holm)  # 56**2 * ... > 20,000 at 2 runs
    two_tasks = Shape(rows=16, agents=8, tasks=2, cells=16, most_runs=1)  # 56 ** 2 = 3,136 arrangements a pair
    assert _backend.cost(two_tasks, holm).seconds > _backend.pvalue_cost(two_tasks, holm).seconds
    three_tasks = Shape(rows=24, agents=8, tasks=3, cells=24, most_runs=1)  # 56 ** 3 > 20,000
    assert _backend.cost(three_tasks, holm) == _backend.pvalue_cost(three_tasks, holm)


def test_power_prices_its_data_sets_without_the_post_hoc():
    """power()'s data sets take skillings_mack()'s p-value alone (pvalue_only): on 3 agents x 5 tasks, Monte Carlo
    (no vectorised path) and adjustment='holm', each is priced as the p-value, not the post hoc's 3 x 20,000
    arrangements it never computes."""
    template = rlstats.build(rlstats.datasets.simulate(3, 5, 1, rng=0), "score ~ agent | task")
    work = _api.batch_cost(template, 100, True, adjustment="holm", pvalue="monte_carlo")
    options = _api.SkillingsMackOptions.checked(**{**_api._default_options(), "adjustment": "holm",
                                                   "pvalue": "monte_carlo"})
    assert work.seconds == pytest.approx(100 * _backend.pvalue_cost(Shape.of(template), options).seconds)
    assert _backend.cost(Shape.of(template), options).seconds > _backend.pvalue_cost(Shape.of(template), options).seconds


def _huge(call, formula, data, formula_text, **options):
    """The OptionError a call asking for more kept resamples than MAX_BYTES raises, and its seconds (wall); the
    declared formula is asked first, so a formula without the memory term fails here, before the call is made."""
    import time

    from rlstats import cost

    shape = data if isinstance(data, Shape) else Shape.of(rlstats.build(data, formula_text))
    assert formula(shape, types.SimpleNamespace(**options)).memory > cost.MAX_BYTES
    start = time.perf_counter()
    with pytest.raises(rlstats.OptionError) as caught:
        call()
    return str(caught.value), time.perf_counter() - start


@pytest.mark.parametrize("which", ["equivalence", "probability_of_improvement", "tuning"])
def test_kept_resamples_beyond_max_bytes_are_refused_before_drawing(which):
    """10**7 resamples (the most n_resamples takes) of 20 agents' aggregates (equivalence: 64 bytes an agent a resample,
    12.8 GB), 10 agents' 45 pairs (probability of improvement, percentile: 32 bytes a pair, 14.4 GB), and a sweep of
    100 configurations (the best set: 32 bytes a configuration of its block and a sweep, 20.8 GB) are refused at
    once, naming n_resamples; each was admitted and would have run for minutes towards gigabytes."""
    import pandas as pd

    from rlstats.methods.bootstrap import _backend as bootstrap_backend
    from rlstats.methods.equivalence import _backend as equivalence_backend
    from rlstats.methods.tuning import _backend as tuning_backend

    sim, flat, big = rlstats.datasets.simulate, "score ~ agent | task", 10**7
    if which == "equivalence":
        data = sim(20, 3, 4, rng=0)
        message, seconds = _huge(lambda: rlstats.equivalence(data, flat, margin=1.0, n_resamples=big,
                                                             max_seconds=float("inf"), rng=0),
                                 equivalence_backend.cost, data, flat, n_resamples=big, aggregate="iqm")
    elif which == "probability_of_improvement":
        data = sim(10, 3, 4, rng=0)
        message, seconds = _huge(lambda: rlstats.probability_of_improvement(
            data, flat, interval="percentile", n_resamples=big, max_seconds=float("inf"), rng=0),
            bootstrap_backend.improvement_cost, data, flat, n_resamples=big, interval="percentile", pairs=None)
    else:
        rng = np.random.default_rng(0)
        data = pd.DataFrame({"agent": "ppo", "task": "t0", "lr": np.repeat(np.arange(100), 4),
                             "seed": np.tile(np.arange(4), 100), "score": rng.normal(size=400)})
        message, seconds = _huge(lambda: rlstats.tuning(data, "score ~ agent | task/seed", config=["lr"],
                                                        n_resamples=big, max_seconds=float("inf"), rng=0),
                                 functools.partial(tuning_backend.cost, configurations=[100]),
                                 Shape(rows=400, agents=1, tasks=1, cells=1, most_runs=400), flat, n_resamples=big)
    assert "GiB of resamples" in message and "n_resamples" in message and "4 GiB" in message, message
    assert seconds < 1.0, seconds


def test_adastop_memory_bound_is_the_packages():
    """AdaStop's memory_estimate is already the call's peak (measured / estimated peak RSS 0.94-1.02 at 2-6 agents,
    joint and pairwise, 2e5-5e5 paths; benchmarks/README.md), so its bound is the package's, with no factor: a
    request just under 4 GiB is admitted before any path is drawn, one above it refused naming n_resamples."""
    from rlstats import cost
    from rlstats.methods.adastop import _api as adastop_api, _kernels as adastop_kernels

    assert adastop_api.MEMORY_LIMIT == cost.MAX_BYTES
    options = types.SimpleNamespace(n_resamples=10_000_000, permutations="pairwise")
    need = adastop_kernels.memory_estimate(5, 6, 10_000_000, 1, 2, joint=False)
    assert 2 * 1024 ** 3 < need < cost.MAX_BYTES  # 2.5 GiB: refused before, within the bound now (4.1 with 3 pairs)
    adastop_api._check_memory(options, 5, 6, [(0, 1)])
    with pytest.raises(rlstats.OptionError, match=r"more than the 4 GiB rlstats allows.*n_resamples"):
        adastop_api._check_memory(options, 5, 6, [(0, 1), (0, 2), (1, 2)])


def test_tuning_percentile_band_counts_its_resampled_curves():
    """The expected-max curves' percentile band keeps every resample's curve (budgets x 2 samplings, a sweep each):
    peak RSS 4,012 bytes a resample at one sweep of 100 configurations, 13,811 at six (benchmarks/README.md); at
    10**7 resamples it is refused at once, naming n_resamples."""
    import pandas as pd

    from rlstats.methods.tuning import _backend as tuning_backend

    rng = np.random.default_rng(0)
    data = pd.DataFrame({"agent": "ppo", "task": "t0", "lr": np.repeat(np.arange(100), 4),
                         "seed": np.tile(np.arange(4), 100), "score": rng.normal(size=400)})
    message, seconds = _huge(lambda: rlstats.tuning(data, "score ~ agent | task/seed", config=["lr"], n_resamples=10**7,
                                                    views=["expected_max"], band="percentile",
                                                    max_seconds=float("inf"), rng=0),
                             functools.partial(tuning_backend.cost, configurations=[100]),
                             Shape(rows=400, agents=1, tasks=1, cells=1, most_runs=400), None,
                             n_resamples=10**7, views=["expected_max"], band="percentile")
    assert "GiB of resamples" in message and "n_resamples" in message and "percentile band" in message, message
    assert seconds < 1.0, seconds
    small = tuning_backend.cost(Shape(rows=400, agents=1, tasks=1, cells=1, most_runs=400),
                                types.SimpleNamespace(n_resamples=30_000, views=["expected_max"], band="percentile"),
                                configurations=[100])
    assert 4012 * 30_000 <= small.memory <= 2 * 4012 * 30_000  # an upper estimate of the measured peak
