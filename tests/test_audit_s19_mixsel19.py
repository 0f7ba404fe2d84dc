"""Audit s19 (mixsel19): the mixed model, the cherry-picking check and the per-task table used as a paper author
would, on published scores (Atari 100k, the AdaStop MuJoCo batches): every sentence true of the rows analysed.
"""

import numpy as np
import pytest

import rlstats


@pytest.fixture
def atari_four(atari):
    """Four Atari 100k agents with 100 runs a game, first 5 runs (26 games x 4 agents x 5 runs = 520 rows)."""
    return atari[atari["agent"].isin(["CURL", "DER", "DrQ(eps)", "SPR"]) & (atari["seed"] < 5)]


def test_task_table_aggregate_of_a_normalised_frame_is_not_called_raw(atari_four):
    # it said "the aggregate row pools raw scores of tasks on different scales" beside its own note that
    # rlstats.normalize had put them on one scale: only normalize= was read, not the frame's record
    by_option = rlstats.task_table(atari_four, "score ~ agent | task/seed", aggregate="bootstrap", n_resamples=200,
                                   normalize="atari100k_reference", rng=0)
    normalised = rlstats.normalize(atari_four, "atari100k_reference")
    before = rlstats.task_table(normalised, "score ~ agent | task/seed", aggregate="bootstrap", n_resamples=200,
                                rng=0)
    assert any(note.startswith("'score' normalised per task") for note in before.notes)
    assert not any("raw scores" in note for note in before.notes)
    assert "raw scores" not in before.report()
    # the same notes and numbers as normalize= gives: the same scores
    assert before.notes == by_option.notes
    for key in ("estimates", "intervals"):
        np.testing.assert_array_equal(before.aggregate[key], by_option.aggregate[key])
