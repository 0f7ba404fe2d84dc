"""Session 18, helper par18: reproducibility, engines and bounds (rng= forms, n_jobs/backends, sizes)."""

from __future__ import annotations

import numpy as np
import pytest

import rlstats
from rlstats.errors import OptionError

FORMULA = "score ~ agent | task"


@pytest.fixture(scope="module")
def runs():
    return rlstats.datasets.simulate(agents=3, tasks=3, seeds=4, effect=0.5, rng=0)


@pytest.fixture(scope="module")
def curves_data():
    return rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=4, rng=0)


def _rank_test(runs, rng):
    return rlstats.skillings_mack(runs, FORMULA, pvalue="monte_carlo", n_resamples=200, rng=rng, progress=False)


def _curves(data, rng):
    return rlstats.curves(data, "score ~ agent | task/seed", step="step", n_resamples=20, compare="all", rng=rng,
                          progress=False)


def _same(a, b):
    da, db = a.to_dict(), b.to_dict()
    da.pop("versions"), db.pop("versions")
    return da == db


@pytest.mark.parametrize("which", ["skillings_mack", "curves"])
def test_a_seedsequence_given_twice_gives_the_same_result_and_is_left_as_it_was(runs, curves_data, which):
    # skillings_mack's Monte Carlo p-values and curves' bands spawned their streams from the caller's object
    # (ss.spawn), so a second call with the same SeedSequence drew other numbers while both results said seed 3
    call = (lambda rng: _rank_test(runs, rng)) if which == "skillings_mack" else (lambda rng: _curves(curves_data, rng))
    seq = np.random.SeedSequence(3)
    first, second = call(seq), call(seq)
    assert seq.n_children_spawned == 0
    assert first.seed == second.seed == 3
    assert _same(first, second)
    assert _same(first, call(3))  # the record repeats the run
    used = np.random.SeedSequence(3)
    used.spawn(2)  # a SeedSequence that has spawned before: the same seed, the same numbers
    assert _same(call(used), first)


def test_a_seedsequence_of_a_list_of_ints_is_a_seed(runs):
    # SeedSequence([1, 2, 3]) is numpy's documented way to seed from several ints; int(entropy) raised TypeError
    res = rlstats.permutation(runs, FORMULA, n_resamples=99, rng=np.random.SeedSequence([1, 2, 3]), progress=False, permutations="joint")
    again = rlstats.permutation(runs, FORMULA, n_resamples=99, rng=np.random.SeedSequence([1, 2, 3]), progress=False, permutations="joint")
    other = rlstats.permutation(runs, FORMULA, n_resamples=99, rng=np.random.SeedSequence([1, 2, 4]), progress=False, permutations="joint")
    # its record is the int the run was seeded by, drawn from it, which repeats the run (audit s19: "SeedSequence")
    assert isinstance(res.seed, int)
    assert np.array_equal(res.pvalue, rlstats.permutation(runs, FORMULA, n_resamples=99, rng=res.seed,
                                                          progress=False, permutations="joint").pvalue)
    assert np.array_equal(res.pvalue, again.pvalue)
    assert not np.array_equal(res.pvalue, other.pvalue)


@pytest.mark.parametrize("max_step, phrase", [
    (2.5, "max_step=2.5 is smaller than steps - 1 = 19"),  # was steps 0, 0, 0, 1, ... repeated within a run
    (True, "max_step must be a positive number, got True"),  # was 0 and 1 each repeated ten times
    (1e300, "max_step=1e+300 is more than 2**53"),  # was int64 overflow: every step -9223372036854775808
    (float("inf"), "max_step must be a positive number, got inf"),
    (10**30, "max_step=1000000000000000000000000000000 is more than 2**53"),  # was numpy's UFuncTypeError
])
def test_simulate_curves_refuses_a_max_step_that_cannot_space_the_steps(max_step, phrase):
    with pytest.raises(OptionError, match=phrase.replace("*", r"\*").replace("+", r"\+")):
        rlstats.datasets.simulate_curves(agents=1, tasks=1, seeds=1, steps=20, max_step=max_step, rng=0)


def test_simulate_curves_with_the_least_max_step_logs_every_step_once():
    data = rlstats.datasets.simulate_curves(agents=1, tasks=1, seeds=1, steps=20, max_step=19, rng=0)
    assert data["step"].tolist() == list(range(20))


# n_resamples is bounded at 10**7 and the cost bound at an hour of estimated time, but the resamples' statistics are
# kept in memory: on 36 runs these calls were admitted (estimates 29 s to 110 s) and, measured at 10**6 resamples,
# peaked at +695 MB (bootstrap), +778 MB (curves) and +1,385 MB (performance_profile), so 7 to 14 GB at 10**7.
@pytest.mark.parametrize("which", ["bootstrap", "curves", "performance_profile"])
def test_resamples_that_would_not_fit_in_memory_are_refused_before_any_is_drawn(runs, curves_data, which):
    import resource
    import time

    calls = {
        "bootstrap": lambda: rlstats.bootstrap(runs, FORMULA, n_resamples=10**7, rng=0, max_seconds=1e-9),
        # curves counts its grid's values itself (about 14 s estimated: the time bound admits it)
        "curves": lambda: rlstats.curves(curves_data, "score ~ agent | task/seed", step="step", compare="all",
                                         n_resamples=10**7, rng=0),
        "performance_profile": lambda: rlstats.performance_profile(runs, FORMULA, interval="percentile",
                                                                   n_resamples=10**7, rng=0, max_seconds=1e-9),
    }
    before, start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.perf_counter()
    # max_seconds=1e-9: the time bound would refuse them too (and keeps this test fast), the memory bound comes first
    message = {"bootstrap": r"bootstrap\(\) would keep about 7.15 GiB of resamples \(10,000,000 resamples x 3 agents x "
                            r"4 metrics\) in memory, more than the 4 GiB rlstats allocates; pass a smaller n_resamples",
               "curves": r"curves would keep 120,000,000 resampled values \(2 agents and 1 comparisons x "
                         r"n_resamples=10,000,000 x 4 grid steps, about 7.2 GiB at its peak\), more than the "
                         r"67,108,864 allowed; pass steps= with fewer steps, a smaller n_resamples",
               "performance_profile": r"performance_profile\(\) would keep about 18.1 GiB of resamples \(10,000,000 "
                                      r"resamples x 3 agents x 81 thresholds\) in memory, more than the 4 GiB"}
    with pytest.raises(OptionError, match=message[which]):
        calls[which]()
    assert time.perf_counter() - start < 1
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024  # KiB: nothing was drawn


@pytest.mark.parametrize("steps", [True, "100", ["0", "200000"], [True, False]])
def test_a_grid_of_steps_is_numbers_not_text_or_truth_values(curves_data, steps):
    # np.asarray(steps, dtype=float) read True as step 1 and "100" as step 100: curves() drew a grid nobody wrote
    with pytest.raises(OptionError, match=r"steps= must be numbers, a grid such as steps=range\(0, 1_000_001, "
                                          r"50_000\); got "):
        rlstats.curves(curves_data, "score ~ agent | task/seed", step="step", steps=steps, n_resamples=20, rng=0)


def test_the_hierarchical_models_estimate_counts_each_sweeps_own_work():
    # Each sweep of the chains (vectorised over them) costs about 4.5e-4 s whatever the design, which the formula's
    # 2e-6 s a chain-pair-task left out: 2 agents x 3 tasks, 8 chains x 1,300 sweeps, measured 0.56 s CPU against
    # 0.062 s estimated; 2 chains x 20,300 sweeps 6.96 s against 0.24 s (29x, so a call of hours passed the bound of
    # an hour, and with no bar); the calibration designs (3 x 10, 4 x 20, Atari 100k's 15 pairs x 26 games) hid it
    from rlstats.cost import Shape
    from rlstats.methods.bayes._api import BayesOptions
    from rlstats.methods.bayes._backend import cost

    options = BayesOptions.checked(
        rope=0.0, model="hierarchical", control=None, higher_is_better=True, prior=0.5, n_samples=50_000, chains=2,
        warmup=300, draws=20_000, confidence_level=0.95, n_jobs=1, progress=False, max_seconds=None, orderings=None,
        na_action="raise")
    work = cost(Shape(rows=30, agents=2, tasks=3, cells=6, most_runs=5), options)
    assert 6.96 / 4 < work.seconds < 6.96 * 4  # rlstats.cost.FACTOR either way


def test_one_dask_cluster_gives_the_bits_of_one_thread_and_a_closed_client_is_an_rlstats_error(runs):
    # the heavier engine tests (1 and 2 workers, tuning, power on joblib) are tests/test_engines.py's, marked slow
    distributed = pytest.importorskip("distributed")
    serial = rlstats.bootstrap(runs, FORMULA, n_resamples=200, rng=5, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        client = distributed.Client(cluster)
        on_dask = rlstats.bootstrap(runs, FORMULA, n_resamples=200, rng=5, progress=False, backend="dask",
                                    client=client)
        client.close()
        with pytest.raises(OptionError, match=r"client= is a dask.distributed Client that is not running \(status "
                                              r"'closed'\): pass a connected Client"):
            rlstats.bootstrap(runs, FORMULA, n_resamples=200, rng=5, progress=False, backend="dask", client=client)
    assert np.array_equal(on_dask.bootstrap_distribution, serial.bootstrap_distribution)
    assert np.array_equal(on_dask.intervals, serial.intervals, equal_nan=True)
    with pytest.raises(OptionError, match=r"backend='Dask' is not available here; use backend=None"):
        rlstats.bootstrap(runs, FORMULA, n_resamples=200, rng=5, progress=False, backend="Dask")


def test_the_samplers_size_bounds_say_what_they_count(runs):
    # warmup=10**8 said "more than 10,000,000 resamples ...; every resample is kept in memory": warm-up iterations
    # are neither resamples nor kept
    with pytest.raises(OptionError, match=r"warmup=100000000 is more than 10,000,000 warm-up iterations, the most "
                                          r"rlstats takes; they are not kept \(the default is 300, and chains that "
                                          r"miss R-hat or ESS are run again longer\); pass a smaller warmup"):
        rlstats.bayes(runs, "score ~ agent | task/seed", model="hierarchical", warmup=10**8)
    with pytest.raises(OptionError, match=r"draws=100000000 is more than 10,000,000 draws a chain, the most rlstats "
                                          r"takes; each is kept in memory; pass a smaller draws \(the default is "
                                          r"1,000\)"):
        rlstats.bayes(runs, "score ~ agent | task/seed", model="hierarchical", draws=10**8)
    with pytest.raises(OptionError, match=r"n_samples=100000000 is more than 10,000,000 posterior draws, the most"):
        rlstats.bayes(runs, FORMULA, n_samples=10**8)
