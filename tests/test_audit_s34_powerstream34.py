"""Audit s34 (powerstream34): power() and sample_size() on a pilot draw each agent-task cell's simulated runs from a
stream of its own, keyed by the cell's labels (resampling.cell_seed_sequence below rng='s root), as the stratified
bootstrap, curves, tuning, AdaStop and the permutation test do since audit s33.

Before, every cell's runs came from one stream a data set in the cells' sorted order (meta34): a task renamed so
that it sorted elsewhere moved every later cell's runs, and the power with them (0.825 -> 0.8, tasks reversed).
What holds now: a cell's runs are a function of rng=, the number of seeds, its agent's and its task's labels and its
own pool alone, so renaming one task leaves every other cell's runs as they were (the renamed cell's own runs
change: its stream is its new label's), and the rows' order and the labels' order (a Categorical's categories)
change nothing (tests/test_audit_s34_meta34.py, test_pilot_power_follows_each_cells_own_labels: the strict xfail
made plain).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.planning import _api


def _pilot():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, effect=0.5, rng=0)
    df.attrs = {}
    return df.astype({"agent": str, "task": str})


def _source(df):
    def prepared():  # a frame for the formula's environment
        return _api._prepare("skillings_mack", df, "score ~ agent | task", 0.5, None, None, "mixed", 1.0, "agents",
                             "agent_2", 0.05, 60, 1, 1, None, None, False, None, {}, None)
    return prepared()[0]


def _cell_runs(df, n_sim=60, seeds=3):
    """{(agent, task): (n_sim, seeds) runs drawn} of data sets 0..n_sim-1."""
    study = _source(df)
    source = study.source
    responses = source.draws(study.root, seeds, 0, n_sim)
    tasks, agents = np.nonzero(source.present)
    runs = responses.reshape(n_sim, tasks.size, seeds)
    return {(source.agents[a], source.tasks[t]): runs[:, i] for i, (t, a) in enumerate(zip(tasks, agents))}


def test_a_cells_runs_do_not_depend_on_the_data_sets_drawn_with_them():
    """Data set j's runs are row j % DRAW_BLOCK of its cell's block j // DRAW_BLOCK: the same drawn alone (the dry
    run's data set 0), in any range (power()'s blocks of work, _BLOCK), across a block's end."""
    study = _source(_pilot())
    every = study.source.draws(study.root, 3, 0, 120)
    assert every.shape == (120, 45)
    np.testing.assert_array_equal(study.source.draws(study.root, 3, 0, 1), every[:1])
    np.testing.assert_array_equal(study.source.draws(study.root, 3, 7, 14), every[7:14])
    np.testing.assert_array_equal(study.source.draws(study.root, 3, 42, 107), every[42:107])
    # another number of seeds draws from other streams
    assert not np.array_equal(study.source.draws(study.root, 4, 0, 1)[0, :3], every[0, :3])


def _power(df, shifted="agent_2", **options):
    return rlstats.power("skillings_mack", design=df, formula="score ~ agent | task", effect=0.5,
                         shifted_agent=shifted, seeds=[3], n_sim=60, rng=1, progress=False, **options)


def test_the_names_order_and_the_rows_order_leave_the_power_bit_identical():
    df = _pilot()
    base = _power(df).table
    assert base["power"].tolist() == [46 / 60]  # as with one stream a data set (other runs)
    reordered = df.sample(frac=1.0, random_state=3).astype(
        {"agent": pd.CategoricalDtype(["agent_3", "agent_1", "agent_2"]),
         "task": pd.CategoricalDtype(sorted(df["task"].unique(), reverse=True))})
    pd.testing.assert_frame_equal(_power(reordered).table, base)


def test_a_pilots_power_is_the_same_on_threads_and_in_other_blocks(monkeypatch):
    df = _pilot()
    base = _power(df).table
    pd.testing.assert_frame_equal(_power(df, n_jobs=2, backend="threading").table, base)
    monkeypatch.setattr(_api, "_BLOCK", 7)
    pd.testing.assert_frame_equal(_power(df).table, base)


@pytest.mark.slow
def test_a_pilots_power_is_the_same_on_a_local_dask_cluster():
    distributed = pytest.importorskip("distributed")
    df = _pilot()
    base = _power(df).table
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        pd.testing.assert_frame_equal(_power(df, backend="dask").table, base)
    pd.testing.assert_frame_equal(_power(df, n_jobs=2).table, base)  # joblib's processes (loky)


def test_a_pilots_sample_size_search_is_the_same_whatever_the_names_order():
    """sample_size()'s search reads the same rows: before, names that sorted otherwise stopped it at another row."""
    df = _pilot()

    def searched(frame):
        return rlstats.sample_size("skillings_mack", 0.8, design=frame, formula="score ~ agent | task", effect=0.5,
                                   shifted_agent="agent_2", n_sim=40, rng=1, progress=False)
    base = searched(df)
    assert base.table["seeds"].tolist() == [2, 3, 4, 5, 6, 8]
    assert base.table["power"].tolist() == [0.45, 0.75, 0.875, 0.95, 1.0, 1.0]
    reordered = df.sample(frac=1.0, random_state=3).astype(
        {"agent": pd.CategoricalDtype(["agent_3", "agent_1", "agent_2"]),
         "task": pd.CategoricalDtype(sorted(df["task"].unique(), reverse=True))})
    pd.testing.assert_frame_equal(searched(reordered).table, base.table)
