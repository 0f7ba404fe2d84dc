"""Audit s33 (bootstream33): a stratified bootstrap's draws for a cell (agent, task) depend on rng, the agent's label,
the task's label and that cell's runs alone (found by meta33's metamorphic hunt: renaming one task so that it sorts
elsewhere moved every agent's resamples on every task, as did a subset that drops a task).

Each agent's stream was keyed by its label (resampling.agent_seed_sequence) but laid out over its tasks in their names'
sorted order (bootstrap._kernels.agent_layout, one row of all the agent's runs a resample), so which draw fell on which
task followed the other tasks' names and number.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlstats

F = "score ~ agent | task"


def _runs():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=4, effect=1.0, rng=0)
    df.attrs = {}
    return df


def _renamed(df, column, old, new):
    return df.assign(**{column: df[column].astype(str).replace({old: new})})


def _single(df, function, task, **options):
    return function(df[df["task"] == task], F, n_resamples=300, rng=3, **options).bootstrap_distribution


@pytest.mark.parametrize("function, options", [
    (rlstats.bootstrap, {"metrics": ("mean",), "interval": "percentile"}),
    (rlstats.probability_of_improvement, {"interval": "percentile"}),
])
def test_each_tasks_draws_are_its_own_whatever_the_other_tasks(function, options):
    """The mean (and the probability of improvement) over tasks is the mean of each task's: each resample over all the
    tasks is the mean of the same resample drawn on each task alone (its cells' own streams, keyed by the agent's and
    the task's labels), with a task dropped too, and renaming task_05 a_task_05 (it then sorts first) moves its own
    draws alone (meta33's relation, every interval unchanged under the renaming, cannot hold: the renamed task's
    cells are keyed by their new label)."""
    df = _runs()
    tasks = ["task_01", "task_02", "task_03", "task_04", "task_05"]
    one = {t: _single(df, function, t, **options) for t in tasks}
    full = function(df, F, n_resamples=300, rng=3, **options).bootstrap_distribution
    np.testing.assert_allclose(full, sum(one.values()) / 5, rtol=1e-12, atol=1e-14)
    kept = function(df[df["task"] != "task_03"], F, n_resamples=300, rng=3, **options).bootstrap_distribution
    np.testing.assert_allclose(kept, sum(v for t, v in one.items() if t != "task_03") / 4, rtol=1e-12, atol=1e-14)
    renamed = _renamed(df, "task", "task_05", "a_task_05")
    moved = function(renamed, F, n_resamples=300, rng=3, **options).bootstrap_distribution
    np.testing.assert_allclose(moved - full, (_single(renamed, function, "a_task_05", **options) - one["task_05"]) / 5,
                               rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------------------------------------ the cells' streams

from rlstats import resampling as R  # noqa: E402
from rlstats.methods.bootstrap import _kernels as K  # noqa: E402


def _layout(sizes, labels, seed=21):
    rng = np.random.default_rng(seed)
    sizes = np.asarray(sizes)
    task = np.repeat(np.arange(sizes.size), sizes)
    y = np.round(rng.gamma(2.0, 0.5, size=task.size), 1)
    return K.agent_layout(y, task, np.concatenate([np.arange(c) for c in sizes]), sizes.size, labels)


def _cell_columns(layout, slots):
    """Each task's label -> (resamples, c_t) the draws of its runs within the task."""
    return {label: slots[:, s:s + c] - s for label, s, c in zip(layout.tasks, layout.task_start, layout.task_sizes)}


def test_a_cells_draws_depend_on_its_labels_and_runs_alone():
    """Cell by cell, the draws of an agent with tasks w, x, y, z (3, 1500, 5, 1 runs: the 1,500-run cell rejects 1.6%
    of its 16-bit lanes, replaced from its blocks' reserves) are those of each task alone, of the tasks in another
    order, and of a design where w is renamed (it then sorts last: its own draws move, no other's)."""
    ss = R.agent_seed_sequence(np.random.SeedSequence(7), "A")
    n = 250  # two whole blocks and a part
    full = _layout([3, 1500, 5, 1], ("w", "x", "y", "z"))

    def cells(layout):
        return _cell_columns(layout, K.draw_blocks(K.agent_blocks(ss, n), layout, ss=ss).slots)

    drawn = cells(full)
    for t, (label, c) in enumerate(zip("wxyz", (3, 1500, 5, 1))):
        alone = cells(_layout([c], (label,)))[label]
        assert np.array_equal(alone, drawn[label])
    other = cells(_layout([5, 1500, 1, 3], ("y", "x", "z", "w")))
    assert all(np.array_equal(other[label], drawn[label]) for label in "wxyz")
    renamed = cells(_layout([1500, 5, 1, 3], ("x", "y", "z", "zz")))
    assert all(np.array_equal(renamed[label], drawn[label]) for label in "xyz")
    assert not np.array_equal(renamed["zz"], drawn["w"])
    # exactly uniform within each cell: the 1,500-run cell's 375,000 draws (of which some 6,100 replaced)
    counts = np.bincount(drawn["x"].ravel(), minlength=1500)
    chi2 = ((counts - counts.mean()) ** 2 / counts.mean()).sum()
    assert abs(chi2 - 1499) < 6 * np.sqrt(2 * 1499)  # chi-square on 1,499 df: mean 1,499, sd 54.8


@pytest.mark.parametrize("reserve_sd", [R.RESERVE_SD, 0])
def test_rows_in_any_pieces_from_any_block_are_the_same_draws(monkeypatch, reserve_sd):
    """Drawing rows in chunks of any size, in slabs of any size, or starting at a later block gives the same rows; with
    no reserve beyond the expected rejections the overflow stream (child_stream(seed, block)) takes over, alike."""
    monkeypatch.setattr(R, "RESERVE_SD", reserve_sd)
    seeds = [R.cell_seed_sequence(np.random.SeedSequence(3), t) for t in ("a", "b", "c")]
    sizes = [1500, 3000, 7]  # 16 bits (1.6% rejected), 32 bits (3.9% at 16: too many), 16 bits
    drawer = R.CellIndices(seeds, sizes, 0, 450, 100)
    whole = drawer.rows(450)
    assert whole.shape == (450, 4507)
    assert bool(drawer.overflow) == (reserve_sd == 0)  # some block of the 1,500-run cell met more than its reserve
    for chunk in (1, 37, 100, 450):
        drawer = R.CellIndices(seeds, sizes, 0, 450, 100)
        parts = np.concatenate([drawer.rows(min(chunk, 450 - r)) for r in range(0, 450, chunk)])
        assert np.array_equal(parts, whole)
    later = R.CellIndices(seeds, sizes, 200, 450, 100).rows(250)
    assert np.array_equal(later, whole[200:])
    monkeypatch.setattr(R, "SLAB_LANES", 5000)  # slabs of one row, each block's reserve read at its first row
    assert np.array_equal(R.CellIndices(seeds, sizes, 100, 450, 100).rows(350), whole[100:])
    assert ((whole[:, :1500] >= 0) & (whole[:, :1500] < 1500)).all() and (whole[:, 1500:4500] < 3000).all()
    assert (whole[:, 4500:] < 7).all()
    with pytest.raises(ValueError, match="block's first row"):
        R.CellIndices(seeds, sizes, 50, 450, 100)


def test_a_runs_profile_is_the_mean_of_its_tasks_profiles_drawn_alone():
    """performance_profile's "runs" band reads the same cells' draws: each resample's profile over the tasks w, x, y
    (3, 5, 4 runs) is the mean of each task's drawn alone (the fraction of its runs above tau)."""
    ss = R.agent_seed_sequence(np.random.SeedSequence(2), "A")
    tau = np.linspace(0.0, 3.0, 13)
    layout = _layout([3, 5, 4], ("w", "x", "y"))
    full = K.profile_agent(layout, tau, "runs", 250, ss)
    alone = [K.profile_agent(_layout_of(layout, t), tau, "runs", 250, ss) for t in range(3)]
    assert full.shape == (250, 13) and 0.0 < full.mean() < 1.0
    np.testing.assert_allclose(full, sum(alone) / 3, rtol=1e-12, atol=1e-15)


def _layout_of(layout, t):
    """The layout of task t of ``layout`` alone (its runs, its label)."""
    start, c = layout.task_start[t], layout.task_sizes[t]
    return K.agent_layout(layout.canonical_values[start:start + c], np.zeros(c, dtype=int), np.arange(c), 1,
                          (layout.tasks[t],))
