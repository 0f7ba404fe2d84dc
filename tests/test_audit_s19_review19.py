"""Audit s19 (review19): the second reading of this session's merged change, each defect's reproducer."""

import json

import numpy as np
import pytest

import rlstats
from rlstats.methods.adastop import _incremental


def _old_seed_sequence(rng):
    """How rlstats before s19 seeded a run from a spawned SeedSequence: used as it is, recorded 'SeedSequence'."""
    return np.random.SeedSequence(rng.entropy, spawn_key=rng.spawn_key), "SeedSequence"


def _batches():
    gen = np.random.default_rng(1)
    return [{a: gen.normal(m, 1, 5) for a, m in zip("ABC", (0.0, 0.3, 1.5))} for _ in range(3)]


def test_a_state_begun_on_a_spawned_seedsequence_before_s19_resumes_with_its_own_stream(monkeypatch):
    """An AdaStop begun with rng=SeedSequence(7).spawn(2)[1] under the rlstats before this session saved its stream's
    entropy and spawn key; the spawned-SeedSequence change (a 128-bit int drawn from it) made from_state draw a new
    stream from them, and the state's digest then refused it: "the seed changed since the batches were fed (edited by
    hand?)". A test in progress must resume with the stream it began with."""
    batches = _batches()
    with monkeypatch.context() as patch:  # the state as the earlier rlstats wrote it
        patch.setattr(_incremental, "seed_sequence", _old_seed_sequence)
        seq = rlstats.AdaStop(["A", "B", "C"], n=5, K=3, n_resamples=200, rng=np.random.SeedSequence(7).spawn(2)[1])
        seq.update(batches[0])
        state = json.loads(json.dumps(seq.to_state()))  # as a file holds it
        seq.update(batches[1])
        expected = seq.result().decisions
    resumed = rlstats.AdaStop.from_state(state)
    resumed.update(batches[1])
    got = resumed.result().decisions
    assert got["decision"].tolist() == expected["decision"].tolist()
    np.testing.assert_array_equal(got["boundary"].to_numpy(float), expected["boundary"].to_numpy(float))
    assert resumed.to_state()["seed"] == {"entropy": 7, "spawn_key": [1], "record": "SeedSequence"}


def test_a_state_begun_now_on_a_spawned_seedsequence_resumes_alike():
    """The same under this rlstats: the stream is SeedSequence(the drawn int), saved and read back as it is."""
    batches = _batches()
    seq = rlstats.AdaStop(["A", "B", "C"], n=5, K=3, n_resamples=200, rng=np.random.SeedSequence(7).spawn(2)[1])
    seq.update(batches[0])
    state = json.loads(json.dumps(seq.to_state()))  # as a file holds it
    seq.update(batches[1])
    resumed = rlstats.AdaStop.from_state(state)
    resumed.update(batches[1])
    np.testing.assert_array_equal(resumed.result().decisions["boundary"].to_numpy(float),
                                  seq.result().decisions["boundary"].to_numpy(float))
    assert state["seed"]["record"] == state["seed"]["entropy"] and state["seed"]["spawn_key"] == []
