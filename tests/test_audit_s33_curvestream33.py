"""Audit s33 (curvestream33): with rng= fixed, a cell's (agent, task) draws in curves(), tuning() and bayes()'s
signed-rank model depend on rng, the agent's and the task's labels and that cell's runs alone, laid out by their
content: not on the seeds' names nor on the other tasks (their names, order or number).

Found by meta33 (tests/test_audit_s33_meta33.py): renaming one task so that it sorted elsewhere moved every agent's
curve resamples (the runs laid out over the tasks in their names' order on one stream per agent) and the signed-rank
model's Dirichlet weights (one block of exponentials over the tasks in name order); renaming the seeds alike in every
cell moved curves' bands and tuning's tuned score (a cell's runs laid out in their seeds' sorted order).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import rlstats
from conftest import lr_sweep, simulated_curves

NESTED = "score ~ agent | task/seed"
F = "score ~ agent | task"


def _renamed_task(df, old, new):
    return df.assign(task=df["task"].astype(str).replace({old: new}))


def _cell_shuffled_seeds(df, seed=0):
    """Each cell's seeds relabelled by its own permutation (the same runs; which run a seed names differs by cell)."""
    rng = np.random.default_rng(seed)
    out = df.copy()
    for _, rows in out.groupby(["agent", "task"], observed=True).groups.items():
        seeds = np.sort(out.loc[rows, "seed"].unique())
        out.loc[rows, "seed"] = out.loc[rows, "seed"].map(dict(zip(seeds, rng.permutation(seeds))))
    return out


def _curves(df, **options):
    res = rlstats.curves(df, NESTED, step="step", n_resamples=200, rng=1, progress=False, **options)
    return res.tidy()


def _sorted(frame):
    keys = [c for c in ("scope", "agent", "agent_1", "agent_2", "task", "step") if c in frame]
    return frame.astype({k: str for k in keys}).sort_values(keys, kind="stable").reset_index(drop=True)


def _mean_replicates(df, **options):
    return rlstats.curves(df, NESTED, step="step", statistic="mean", n_resamples=60, rng=3, progress=False,
                          **options).bootstrap_distribution


def test_curves_each_tasks_draws_are_its_own_whatever_the_other_tasks():
    """The mean over tasks is the mean of each task's: every resample over all the tasks is the mean of the same
    resample drawn on each task alone (its cell's own stream, keyed by the agent's and the task's labels), with a task
    dropped too, and renaming task_03 a_task_03 (it then sorts first) moves its own draws alone. (meta33's relation,
    every band unchanged under that renaming, cannot hold: the renamed task's cells are keyed by their new label.)"""
    df = simulated_curves(tasks=3, steps=3)
    tasks = ["task_01", "task_02", "task_03"]
    one = {t: _mean_replicates(df[df["task"] == t]) for t in tasks}
    full = _mean_replicates(df)
    assert full.shape == (3, 60, 3)
    np.testing.assert_allclose(full, sum(one.values()) / 3, rtol=1e-12, atol=1e-13)
    kept = _mean_replicates(df[df["task"] != "task_02"])
    np.testing.assert_allclose(kept, (one["task_01"] + one["task_03"]) / 2, rtol=1e-12, atol=1e-13)
    renamed = _renamed_task(df, "task_03", "a_task_03")
    moved = _mean_replicates(renamed)
    alone = _mean_replicates(renamed[renamed["task"] == "a_task_03"])
    np.testing.assert_allclose(moved - full, (alone - one["task_03"]) / 3, rtol=1e-9, atol=1e-12)
    assert not np.allclose(alone, one["task_03"])


def _null(first, second, tasks, n_tasks):
    from types import SimpleNamespace

    from rlstats.methods.curves import _api
    from rlstats.resampling import agent_seed_sequence, cell_seed_sequence

    options = SimpleNamespace(n_resamples=200, statistic="mean", gamma=0.0)
    pair = agent_seed_sequence(agent_seed_sequence(np.random.SeedSequence(5), "A"), "B")
    return _api._permutation_null(first, second, n_tasks, options, [cell_seed_sequence(pair, t) for t in tasks])


def test_curves_a_pairs_relabellings_of_a_task_are_its_own():
    """A pair's max-T null of the mean (5 runs v 5 on each of 3 tasks, 252 relabellings a task: drawn, not listed) is
    the mean of each task's null drawn alone from the pair's stream keyed by that task's label."""
    rng = np.random.default_rng(0)
    runs = [rng.normal(size=(15, 4)) + a for a in range(2)]
    task_of = np.repeat(np.arange(3), 5)
    labels = ["x", "y", "z"]
    full = _null((runs[0], task_of), (runs[1], task_of), labels, 3)
    one = np.zeros(5, dtype=np.intp)
    alone = [_null((runs[0][task_of == t], one), (runs[1][task_of == t], one), [labels[t]], 1) for t in range(3)]
    assert full.shape == (200, 4)
    np.testing.assert_allclose(full, sum(alone) / 3, rtol=1e-12, atol=1e-13)
    # under the null each step's relabelled difference has mean 0 and sd sqrt(1/5 + 1/5) * sd(runs pooled) / sqrt(3)
    assert abs(full.mean()) < 4 * full.std() / np.sqrt(200)


def test_curves_leave_their_bands_and_pvalues_when_each_cell_relabels_its_seeds():
    df = simulated_curves(tasks=2, steps=4)
    pairs = [("agent_1", "agent_3")]
    pd.testing.assert_frame_equal(_curves(_cell_shuffled_seeds(df), compare=pairs), _curves(df, compare=pairs),
                                  rtol=1e-12)


def test_tuning_leaves_its_result_when_each_cell_relabels_its_seeds():
    df = lr_sweep()
    shuffled = df.copy()
    rng = np.random.default_rng(0)
    for _, rows in df.groupby(["agent", "task", "lr"]).groups.items():
        shuffled.loc[rows, "seed"] = rng.permutation(df.loc[rows, "seed"].to_numpy())

    def call(d):
        return rlstats.tuning(d, NESTED, config="lr", n_resamples=200, rng=1, progress=False).tidy()
    pd.testing.assert_frame_equal(call(shuffled), call(df), rtol=1e-12)


def _bayes(df, **options):
    res = rlstats.bayes(df, F, rope=0.1, n_samples=2000, rng=1, progress=False, **options)
    return res.comparisons.reset_index(drop=True)


def test_signed_rank_renaming_a_task_moves_its_own_weights_alone():
    """Each task's Dirichlet weight is drawn (before normalising) from a stream keyed by its label: renaming task_06
    a_task_06 (it sorts first) leaves the other tasks' draws, so a pair present on task_01 to task_05 alone reads the
    same posterior (agent_3 never ran task_06 here, agent_1 and agent_2 did)."""
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=0.3, rng=0)
    df.attrs = {}
    df = df[~((df.agent == "agent_3") & (df.task == "task_06"))]
    base = _bayes(df, orderings=False)
    other = _bayes(_renamed_task(df, "task_06", "a_task_06"), orderings=False)
    kept = (base.agent_1 != "agent_1") | (base.agent_2 != "agent_2")  # the pairs with agent_3, on task_01..task_05
    assert kept.sum() == 2
    pd.testing.assert_frame_equal(other[kept], base[kept], rtol=1e-12)
    assert not np.allclose(other.loc[~kept, "conf_low"], base.loc[~kept, "conf_low"])


def test_signed_rank_pair_ignores_a_task_it_did_not_run():
    """A pair's posterior reads its own tasks' weights (renormalised with the pseudo-observation's): a task that
    another pair ran and it did not (a_task, sorting first) leaves it alone."""
    df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=3, effect=0.3, rng=0)
    df.attrs = {}
    extra = pd.DataFrame({"agent": ["agent_3", "agent_1", "agent_3"], "task": ["a_task", "a_task", "task_02"],
                          "seed": 0, "score": [1.0, 1.5, 2.0]})
    extra = pd.concat([extra.assign(seed=s, score=extra.score + s) for s in range(3)])
    both = pd.concat([df, extra], ignore_index=True)
    base = _bayes(df, orderings=False)
    other = _bayes(both, orderings=False)
    other = other[(other.agent_1 == "agent_1") & (other.agent_2 == "agent_2")].reset_index(drop=True)
    pd.testing.assert_frame_equal(other[base.columns], base, rtol=1e-12)


def test_signed_rank_weights_are_the_same_whatever_n_jobs_and_keep_their_law():
    """Two blocks of 10,000 draws on two workers or one: the same bits; each task's unnormalised weight is Exp(1)
    (the Dirichlet(prior, 1, ..., 1) law): the weights' mean is 1 / (prior + tasks) within 4 Monte Carlo SEs."""
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=2, effect=0.3, rng=0)
    df.attrs = {}
    one, two = (rlstats.bayes(df, F, rope=0.1, n_samples=20_000, rng=2, progress=False, n_jobs=n) for n in (1, 2))
    pd.testing.assert_frame_equal(one.comparisons, two.comparisons, rtol=0, atol=0)
    from rlstats.methods.bayes import _kernels as kernels
    from rlstats.resampling import cell_seed_sequence

    seed = np.random.SeedSequence(4)
    tasks = [np.random.Generator(np.random.PCG64(cell_seed_sequence(seed, t))) for t in "abcd"]
    w = kernels.dirichlet_block(np.random.Generator(np.random.PCG64(seed)), 40_000, 4, 0.5, tasks)
    se = np.sqrt((1 / 4.5) * (1 - 1 / 4.5) / 5.5 / 40_000)  # Beta(1, 3.5)'s sd over sqrt(draws)
    assert np.all(np.abs(w[1:].mean(axis=1) - 1 / 4.5) < 4 * se)
    assert abs(w[0].mean() - 0.5 / 4.5) < 4 * np.sqrt((0.5 / 4.5) * (4 / 4.5) / 5.5 / 40_000)
