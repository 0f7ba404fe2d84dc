"""Audit s21 (raw21): the raw-scales caution (``normalization.warn_raw_scales``) read each task's largest |score|,
which a common scale a * y leaves alike but a common shift does not: human-normalised Atari 100k scores (26 games)
were cautioned (largest |score| 0.0204 on Seaquest to 12.7 on UpNDown, 621-fold) and the same scores + 1e6 were not,
though every task's spread, what lets a task decide a mean of differences, was the same."""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats

RAW = "aggregated on their own scales"


@pytest.fixture
def normalised(atari, published):
    """DER, DrQ and SPR on the 26 games, 5 runs each, human-normalised by hand (as a user who did it before calling:
    rlstats does not know, so it may caution) in column ``y``."""
    reference = pd.read_csv(published / "atari100k_reference.csv").set_index("task")
    runs = atari[atari["agent"].isin(["DER", "DrQ", "SPR"]) & (atari["seed"] < 5)].reset_index(drop=True)
    low, high = runs["task"].map(reference["random"]), runs["task"].map(reference["human"])
    return runs.assign(y=(runs["score"] - low) / (high - low))


def _cautions(call):
    """The raw-scales warnings a call raises and the notes of its result saying the same."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return ([str(w.message) for w in caught if RAW in str(w.message)],
            [note for note in result.notes if RAW in note])


@pytest.mark.xfail(strict=True, reason="the caution reads the tasks' largest |score|, which a shift makes alike")
def test_the_raw_scales_caution_is_the_same_after_a_common_shift(normalised):
    def bootstrap(data):
        return rlstats.bootstrap(data, "y ~ agent | task", metrics=["mean"], n_resamples=200, rng=0)

    before = _cautions(lambda: bootstrap(normalised))
    after = _cautions(lambda: bootstrap(normalised.assign(y=normalised["y"] + 1e6)))
    assert before[0] and before[1]
    assert after == before
