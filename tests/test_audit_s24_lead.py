"""Audit s24 (lead): defects found by the lead this session, each with its reproducer."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.adastop import AdaStop


def _fed(data, agents, n, K):
    """The incremental class fed ``data``'s runs in their seed order, n per agent per batch."""
    seq = AdaStop(agents, n=n, K=K, rng=0)
    for k in range(K):
        if seq.done:
            break
        seq.update({a: data.loc[data["agent"] == a, "score"].to_numpy()[n * k:n * (k + 1)]
                    for a in seq.agents_to_run})
    return seq.result()


def _level_notes(result):
    return [note for note in result.notes
            if "standard deviations" in note or "level is exact" in note or "family-wise error" in note]


def test_incremental_adastop_prints_the_level_notes_of_adastop():
    # The incremental class ran the same test as adastop() on the same batches, with the same decisions, but its
    # result left out the measured-level notes: unlike spreads under joint relabelling and equal means of unlike
    # shapes (the adastop.fwe_spread and adastop.fwe_means rows).
    gen = np.random.default_rng(1)
    spreads = {"a": 10, "b": 10, "c": 1, "d": 1}
    data = pd.DataFrame([(agent, i, v) for agent, s in spreads.items() for i, v in enumerate(gen.normal(0, s, 10))],
                        columns=["agent", "seed", "score"])
    batch = rlstats.adastop(data, "score ~ agent", n=5, K=2, rng=0, progress=False)
    fed = _fed(data, list(spreads), n=5, K=2)
    assert fed.decisions["decision"].tolist() == batch.decisions["decision"].tolist()
    (note,) = _level_notes(fed)
    assert note == _level_notes(batch)[0] and "differ 5.5 times: a 6.634, c 1.213" in note
    # three agents at n = 5, K = 4: the equal-means row (0.073 rejections) is quoted by both
    three = pd.DataFrame([(agent, i, gen.normal()) for agent in "acd" for i in range(20)],
                         columns=["agent", "seed", "score"])
    batch = rlstats.adastop(three, "score ~ agent", n=5, K=4, rng=0, progress=False)
    fed = _fed(three, ["a", "c", "d"], n=5, K=4)
    assert _level_notes(fed) == _level_notes(batch)
    assert any("agents of equal mean" in note and "in 0.073 of 400" in note for note in _level_notes(fed))
