"""Audit s25 (meta25): the metamorphic relations of tests/test_metamorphic.py on the paths earlier sweeps left out:
AdaStop with ``batch=`` and run batch by batch (:class:`rlstats.AdaStop`), ``summarize_runs(how="time_to_threshold")``
and ``how="max"``, ``selection_check`` with ``heldout=`` (a list of tasks or a frame of fresh runs, and the z, Welch,
gap and bounds options), ``power`` and ``sample_size`` of AdaStop, the permutation test and the bootstrap from a
pilot, and ``normalize`` with a reference frame.

Each case is compared whole (tidy, glance, to_dict, warnings and every printed text with its numbers parsed: test
metamorphic's own comparison) under a row shuffle, the score times 1000 and times 1e-3, the score moved by 1000, the
names prefixed, a polars frame and an index that is not a RangeIndex; options in the score's units (thresholds,
bounds, margins, the gap, a known sd) move with the score.  A reversed category order (which sets the order results
list agents and tasks in) is compared without regard to order: the tidy rows matched by their names, the printed
words and numbers as multisets.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
import test_metamorphic as M


# ------------------------------------------------------------------------------------------------ defects found

def _three_batches():
    """3 agents on one task, 15 runs each in 3 batches of 5 (column ``batch``)."""
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=15, effect=[0.0, 0.5, 1.5], rng=6)
    df.attrs = {}
    return df.assign(batch=df["seed"] // 5 + 1).drop(columns="seed")


def _fed(df, **options):
    """AdaStop fed ``df``'s batches in turn, each with the agents it asks for."""
    test = rlstats.AdaStop(["agent_1", "agent_2", "agent_3"], n=5, K=3, n_resamples=200, rng=3, **options)
    for b in (1, 2, 3):
        if test.done:
            break
        rows = df[(df["batch"] == b) & df["agent"].astype(str).isin(test.agents_to_run)]
        test.update(rows.drop(columns="batch"))
    return test.result()


# AdaStop's result listed each batch's runs in the order they were fed (result().scores, to_dict()["scores"]), so
# the same batches with their rows in another order gave another result: agent_1's first batch read 11.337, 6.961,
# 4.450, 6.410, 17.589 as fed and 6.961, 4.450, 11.337, 6.410, 17.589 shuffled; adastop(batch=) lists them in score
# order within a batch, as the test takes them (its decisions did not change). Now both list them so.
def test_incremental_scores_do_not_follow_the_batch_row_order():
    df = _three_batches()
    a, b = _fed(df), _fed(M._shuffle(df))
    pd.testing.assert_frame_equal(a.scores, b.scores)
    assert a.to_dict()["scores"] == b.to_dict()["scores"]
    one_shot = rlstats.adastop(df, "score ~ agent", n=5, K=3, batch="batch", n_resamples=200, rng=3)
    pd.testing.assert_frame_equal(a.scores, one_shot.scores)
    first = a.scores[(a.scores["agent"] == "agent_1") & (a.scores["interim"] == 1)]["score"]
    np.testing.assert_allclose(first, [4.450074121822811, 6.410036501690238, 6.960787575559828, 11.3374742742986,
                                       17.588521443975992], rtol=1e-15)
    pd.testing.assert_frame_equal(a.decisions, one_shot.decisions)
    assert a.decisions["decision"].tolist() == ["equal", "smaller", "equal"]
