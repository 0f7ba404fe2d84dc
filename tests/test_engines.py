"""rlstats.engines: one engine for power, the bootstrap, tuning and the calibration grid, the same bits on Dask.

Every random item of work (a block of simulations, a group of RNG blocks of resamples, a sweep) draws from a stream
keyed by the item, so a Dask LocalCluster of 1 or 2 workers gives the bits of n_jobs=1, of threads and of joblib.
The clusters run in this process (processes=False: fast to start); ``benchmarks/dask_percentiles_grid.py`` and the
slow calibration test run worker processes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.engines import Engine, engine, map_ordered, workers
from rlstats.errors import OptionError
from rlstats.methods.bootstrap import _kernels as boot_kernels


def _distributed():
    """dask.distributed, imported when a test first uses it (skips without it): imported at the top, it cost every
    test worker 0.4 s of CPU at collection, though only this file's slow tests and two others use it."""
    return pytest.importorskip("distributed", reason="dask.distributed is not installed "
                                                     "(pip install 'rlstats[distributed]')")


FORMULA = "score ~ agent | task"


@pytest.mark.slow  # importing distributed takes seconds on a shared machine; power's default test checks the message
@pytest.mark.parametrize("call", [
    lambda: rlstats.bootstrap(rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0), FORMULA,
                              backend="dask", n_resamples=100),
    lambda: rlstats.tuning(pd.DataFrame({"agent": ["a"] * 4, "task": ["t"] * 4, "lr": [1, 1, 2, 2],
                                         "seed": [0, 1, 0, 1], "score": [1.0, 2.0, 3.0, 4.0]}),
                           "score ~ agent | task/seed", config="lr", backend="dask"),
], ids=["bootstrap", "tuning"])
def test_dask_without_a_running_client_is_powers_error(call):
    try:
        _distributed().Client.current()
        pytest.skip("a Dask client is already running in this process")
    except ValueError:
        pass
    with pytest.raises(OptionError, match="backend='dask' runs on a dask.distributed Client, and none is running"):
        call()


# The tests below start Dask clusters (seconds each on a shared machine): slow.


@pytest.fixture(scope="module", params=[1, 2], ids=["1-worker", "2-workers"])
def client(request):
    distributed = _distributed()
    with distributed.LocalCluster(n_workers=request.param, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as made:
        yield made


@pytest.fixture(scope="module")
def runs():
    # unequal runs per task (the general layout), 3 agents
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=6, effect=1.0, rng=2)
    return df[~((df["task"] == df["task"].iloc[0]) & (df["seed"] > 3))].reset_index(drop=True)


@pytest.fixture(scope="module")
def sweep():
    rng = np.random.default_rng(0)
    return pd.DataFrame([(a, t, lr, s, (lr == 0.01) + rng.normal()) for a in ("ppo", "sac") for t in ("t1", "t2")
                         for lr in (0.1, 0.01, 0.001) for s in range(4)],
                        columns=["agent", "task", "lr", "seed", "score"]).assign(w=1.0)


def _same_bootstrap(a, b):
    assert np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    assert np.array_equal(a.intervals, b.intervals, equal_nan=True)
    if a.resampled_standard_errors is not None:
        assert np.array_equal(a.resampled_standard_errors, b.resampled_standard_errors, equal_nan=True)


@pytest.mark.slow
@pytest.mark.parametrize("options", [{}, {"task_bootstrap": True, "interval": "percentile"}],
                         ids=["studentized-counts", "task-bootstrap-draws"])
def test_bootstrap_on_dask_is_the_bits_of_one_thread_and_of_threads(client, runs, options):
    kw = dict(n_resamples=700, rng=5, **options)
    one = rlstats.bootstrap(runs, FORMULA, **kw)
    _same_bootstrap(one, rlstats.bootstrap(runs, FORMULA, n_jobs=2, **kw))
    on_dask = rlstats.bootstrap(runs, FORMULA, backend="dask", client=client, **kw)
    _same_bootstrap(one, on_dask)
    assert on_dask.to_dict()["options"]["backend"] == "dask"  # recorded; the client is not


@pytest.mark.slow
def test_bootstrap_chunks_sent_to_workers_do_not_change_the_resamples(client, runs):
    """Other chunkings (batch sizes, items per worker) on Dask: the same (n_resamples, M) distribution."""
    layout = boot_kernels.agent_layout(runs["score"].to_numpy(), runs["task"].cat.codes.to_numpy(),
                                       runs["seed"].to_numpy(), runs["task"].nunique())
    def ss():  # agent_blocks spawns its blocks from it: a fresh one per call, as the API makes per agent
        return np.random.SeedSequence(11)
    reference = boot_kernels.bootstrap_agent(layout, ("iqm", "mean"), 1.0, 1234, ss())
    on_dask = Engine(backend="dask", client=client)
    for batch_size in (None, 7, 100):
        assert np.array_equal(reference, boot_kernels.bootstrap_agent(layout, ("iqm", "mean"), 1.0, 1234, ss(),
                                                                      batch_size=batch_size, n_jobs=on_dask))
    assert np.array_equal(boot_kernels.bootstrap_agent(layout, ("mean",), 1.0, 1234, ss(), task_bootstrap=True),
                          boot_kernels.bootstrap_agent(layout, ("mean",), 1.0, 1234, ss(), task_bootstrap=True,
                                                       batch_size=3, n_jobs=on_dask))


@pytest.mark.slow
def test_tuning_on_dask_is_the_bits_of_one_thread(client, sweep):
    # the complete view's two-stage bootstrap resamples (its default interval reads none)
    kw = dict(config="lr", rng=0, band="percentile", weights="w", n_resamples=300, complete_interval="two_stage")
    one = rlstats.tuning(sweep, "score ~ agent | task/seed", **kw)
    for other in (rlstats.tuning(sweep, "score ~ agent | task/seed", n_jobs=2, **kw),
                  rlstats.tuning(sweep, "score ~ agent | task/seed", backend="dask", client=client, **kw)):
        for name, table in one.tables.items():
            if table is not None:
                pd.testing.assert_frame_equal(table, other.tables[name], check_exact=True)
    assert one.tables["expected_max"]["conf_low"].notna().any()  # the resampled band was drawn and compared
    assert one.tables["complete"]["conf_low"].notna().any()  # and so was the complete view's bootstrap


@pytest.mark.slow
def test_power_on_a_given_client_is_the_bits_of_one_process_and_of_joblib(client):
    kw = dict(effect=1.0, seeds=[3], tasks=3, n_sim=60, rng=1, progress=False)  # two blocks of simulations
    one = rlstats.power("skillings_mack", **kw)
    for other in (rlstats.power("skillings_mack", n_jobs=2, backend="threading", **kw),
                  rlstats.power("skillings_mack", backend="dask", client=client, **kw)):
        pd.testing.assert_frame_equal(one.table, other.table)


@pytest.mark.slow
def test_the_default_client_is_used_when_none_is_given(client):
    assert engine(backend="dask").client is _distributed().Client.current()
    assert workers(engine(backend="dask", client=client)) == sum(client.nthreads().values())


@pytest.mark.slow
def test_map_ordered_keeps_order_and_raises_the_workers_error(client):
    where = Engine(backend="dask", client=client)
    items = list(range(40))  # more than the tasks kept in flight
    assert list(map_ordered(lambda x: x * x, items, where)) == [x * x for x in items]
    assert list(map_ordered(lambda x: x * x, items, 3)) == [x * x for x in items]

    def fail(x):
        raise ZeroDivisionError(f"item {x}")
    with pytest.raises(ZeroDivisionError, match="item 0"):
        list(map_ordered(fail, items, where))


@pytest.mark.slow
def test_rliable_compat_stays_on_this_machine(client, runs):
    with pytest.raises(OptionError, match="rliable_compat=True draws every resample from rliable's one sequential"):
        rlstats.bootstrap(runs, FORMULA, rliable_compat=True, rng=0, backend="dask", client=client)


@pytest.mark.slow
def test_a_closed_client_is_refused():
    distributed = _distributed()
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        closed = distributed.Client(cluster)
        closed.close()
    with pytest.raises(OptionError, match="not running"):
        engine(backend="dask", client=closed)


def test_power_names_a_client_without_dask():
    with pytest.raises(OptionError, match="client= is a Dask client and runs only with backend='dask'"):
        rlstats.power("skillings_mack", client=object(), n_sim=5, progress=False)



def test_one_blas_thread_is_restored_by_the_last_of_overlapping_callers():
    # threadpoolctl's limit is the process's: callers that overlap (user threads each running percentiles()) share
    # it, and only the last one out restores the caller's setting. Overlap is shown here by nesting in one thread:
    # OpenBLAS applies a limit set from another thread to that thread only when the main thread has set its own.
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from rlstats.engines import one_blas_thread

    def blas_threads():
        return {info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"}

    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        first, second = one_blas_thread(), one_blas_thread()
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)  # the first caller leaves while the second is still inside
        inside = blas_threads()
        second.__exit__(None, None, None)
        after = blas_threads()
    assert inside == {1}
    assert after == {2}
