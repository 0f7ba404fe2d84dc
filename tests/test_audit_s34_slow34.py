"""Audit s34, slow34: the slow tests that reproduce calibration rows measured before audit s33 bootstream33.

Session 33 drew each (agent, task) cell of the stratified bootstrap from a stream of its own. The rows of
rlstats/calibration.csv that its scripts measured through the package's bootstrap before then (bootstrap.interval's
small-runs, one-task, capped and heavy-tailed points; the gap's; the early-steps rows) were drawn from the former
streams, one per agent in blocks of RNG_BLOCK, whole rows of all its runs. The slow tests that give those rows back
digit for digit from their scripts failed on today's streams (they are not run by default, so no one saw it); they now
run their scripts under ``former_streams``, as test_audit_s28_gapkinds28 reproduces curves rows under the former
curves keys (test_audit_s32_curves32.rank_keyed), and state today's digits beside the stored ones.

``former_streams`` is the patch repin34 removed from test_audit_s33_bootstream33 (no default test needed it), kept
here with its check against draws the package made before audit s33.

Audit s35 (former35) re-measured on today's streams, with their scripts and seeds, the rows those slow tests give back
(s19_onetask19, s20_calib20b, s28_gapboot28, s32_cal32, s20_calib20's capped point; and the curves rows of
s28_gapkinds28 and s28_early28, for which test_audit_s32_curves32.rank_keyed went), and those tests run on today's
streams. One reader is left: s20_calib20's heavy-tailed point (5 tasks x 20 runs), whose continuation to 1,920
intervals the rule no longer triggers on today's streams (its rows would fall to 480 and its former default's two
misses, the Welch floor's evidence, would read as holding): left for the lead.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlstats import resampling as R
from rlstats.methods.bootstrap import _kernels as K


def former_streams(patch):
    """Patch the bootstrap's kernels back to the streams before audit s33 bootstream33: each agent's resamples in
    blocks of RNG_BLOCK, each block from its own spawned SeedSequence drawing whole rows of all the agent's runs (the
    tasks in their names' sorted order) by UniformIndices."""
    spawned = K.agent_blocks

    def run_bounds(layout):  # each run's draw's bound: its task's size (one int when every task has the same)
        sizes = layout.task_sizes
        return int(sizes[0]) if layout.balanced else np.repeat(sizes, sizes)

    def blocks(ss, n_resamples, seeds=True):
        return spawned(ss, n_resamples, True)

    def chunks(self, blocks):
        n, rows = self.n, self.rows
        high = run_bounds(self.layout)
        offsets = self.layout.slot_base[None, :] + (np.arange(rows, dtype=np.intp) * n)[:, None]
        if rows * n <= 2**32:
            offsets = offsets.astype(np.uint32)
        for start, stop, seed in blocks:
            draws = R.UniformIndices(seed, high, n)
            for first in range(start, stop, rows):
                k = min(rows, stop - first)
                keys = draws.rows(k, offsets[:k])
                yield first, first + k, np.bincount(keys.ravel(), minlength=k * n).reshape(k, n)

    def draw_blocks(blocks, layout, task_bootstrap=False, ss=None):
        if task_bootstrap:
            return K._concatenate([K.draw(seed, layout, stop - start, True) for start, stop, seed in blocks])
        high = run_bounds(layout)
        return K.Draws(slots=np.concatenate([R.UniformIndices(seed, high, layout.n_runs).rows(stop - start,
                                                                                              layout.slot_base)
                                             for start, stop, seed in blocks]))

    patch.setattr(K, "agent_blocks", blocks)
    patch.setattr(K.CountDrawer, "chunks", chunks)
    patch.setattr(K, "draw_blocks", draw_blocks)


def test_the_former_streams_give_the_former_draws():
    """The patch draws what the streams before audit s33 drew: one resample of one agent pinned from then."""
    rng = np.random.default_rng(21)
    sizes = np.asarray([3, 2, 4])
    task = np.repeat(np.arange(sizes.size), sizes)
    y = np.round(rng.gamma(2.0, 0.5, size=task.size), 1)
    layout = K.agent_layout(y, task, np.concatenate([np.arange(c) for c in sizes]), sizes.size, ("w", "x", "y"))
    ss = np.random.SeedSequence(5)
    with pytest.MonkeyPatch.context() as patch:
        former_streams(patch)
        slots = K.draw_blocks(K.agent_blocks(ss, 2), layout).slots
    # drawn by the package at dd124484 (main before audit s33 bootstream33), the same call
    assert slots.tolist() == [[2, 0, 2, 3, 4, 8, 6, 8, 8], [0, 1, 2, 3, 4, 8, 8, 5, 8]]
