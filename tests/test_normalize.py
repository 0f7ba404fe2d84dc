"""Tests of rlstats.normalization.normalize against hand-computed values."""

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from rlstats.errors import DesignError, OptionError
from rlstats.normalization import normalize
from rlstats.tables import read_csv


@pytest.fixture
def scores():
    return pd.DataFrame(
        {
            "agent": ["A", "A", "B", "B"],
            "task": ["Pong", "Boxing", "Pong", "Boxing"],
            "seed": [0, 0, 0, 0],
            "score": [0.0, 6.1, 14.75, -2.0],
        },
        index=[10, 11, 12, 13],
    )


@pytest.fixture
def reference():
    return pd.DataFrame(
        {
            "task": ["Boxing", "Pong", "Freeway"],  # Freeway is not in the data: fine
            "random": [0.1, -20.7, 0.0],
            "human": [12.1, 14.6, 29.6],
        }
    )


def test_values_by_hand(scores, reference):
    out = normalize(scores, reference)
    expected = [
        (0.0 + 20.7) / (14.6 + 20.7),
        (6.1 - 0.1) / (12.1 - 0.1),
        (14.75 + 20.7) / (14.6 + 20.7),
        (-2.0 - 0.1) / (12.1 - 0.1),
    ]
    np.testing.assert_allclose(out["score"], expected, rtol=1e-15)
    assert out["score"].iloc[1] == pytest.approx(0.5)


def test_new_frame_and_caller_untouched(scores, reference):
    before, ref_before = scores.copy(), reference.copy()
    out = normalize(scores, reference)
    assert out is not scores
    assert_frame_equal(scores, before)
    assert_frame_equal(reference, ref_before)
    assert out.index.tolist() == [10, 11, 12, 13]
    assert_frame_equal(out.drop(columns="score"), scores.drop(columns="score"))
    out.loc[10, "agent"] = "changed"
    assert scores.loc[10, "agent"] == "A"


def test_low_and_high_map_to_zero_and_one():
    df = pd.DataFrame({"task": ["t1", "t1", "t2"], "score": [3.0, 7.0, 100.0]})
    ref = pd.DataFrame({"task": ["t1", "t2"], "random": [3.0, 50.0], "human": [7.0, 100.0]})
    assert normalize(df, ref)["score"].tolist() == [0.0, 1.0, 1.0]


def test_custom_column_names():
    df = pd.DataFrame({"game": ["g"], "ret": [5], "other": ["x"]})
    ref = pd.DataFrame({"game": ["g"], "floor": [1.0], "ceiling": [9.0]})
    out = normalize(df, ref, low="floor", high="ceiling", by="game", score="ret")
    assert out["ret"].tolist() == [0.5]
    assert out["ret"].dtype == np.float64
    assert out["other"].tolist() == ["x"]


def test_missing_scores_stay_missing(reference):
    df = pd.DataFrame({"task": ["Pong", "Boxing"], "score": [np.nan, 12.1]})
    out = normalize(df, reference)
    assert np.isnan(out["score"].iloc[0]) and out["score"].iloc[1] == 1.0


def test_categorical_task_column(scores, reference):
    cat = scores.assign(task=pd.Categorical(scores["task"], categories=["Pong", "Boxing", "Qbert"]))
    np.testing.assert_array_equal(
        normalize(cat, reference)["score"], normalize(scores, reference)["score"]
    )


def test_tasks_missing_from_reference_are_all_listed(scores, reference):
    df = pd.concat(
        [scores, pd.DataFrame({"task": ["Qbert", "Seaquest", "Qbert"], "score": [1.0, 2.0, 3.0]})]
    )
    with pytest.raises(DesignError) as info:
        normalize(df, reference)
    text = str(info.value)
    assert "Qbert" in text and "Seaquest" in text and "Pong" not in text


def test_zero_and_negative_ranges_are_named(scores):
    ref = pd.DataFrame(
        {"task": ["Pong", "Boxing"], "random": [1.0, 5.0], "human": [1.0, 2.0]}
    )
    with pytest.raises(DesignError) as info:
        normalize(scores, ref)
    assert "Pong" in str(info.value) and "Boxing" in str(info.value)
    ok = pd.DataFrame({"task": ["Pong", "Boxing"], "random": [0.0, 0.0], "human": [1.0, 1.0]})
    normalize(scores, ok)  # positive ranges pass


def test_nan_in_reference_is_an_error(scores, reference):
    ref = reference.copy()
    ref.loc[ref["task"] == "Boxing", "human"] = np.nan
    with pytest.raises(DesignError, match="Boxing"):
        normalize(scores, ref)


def test_unused_reference_rows_are_not_checked(scores, reference):
    ref = pd.concat(
        [reference, pd.DataFrame({"task": ["Broken"], "random": [np.nan], "human": [0.0]})]
    )
    assert_frame_equal(normalize(scores, ref), normalize(scores, reference))


def test_duplicate_reference_task_is_an_error(scores, reference):
    ref = pd.concat([reference, reference.iloc[[0]]])
    with pytest.raises(DesignError, match="Boxing"):
        normalize(scores, ref)


def test_missing_columns_are_named(scores, reference):
    with pytest.raises(DesignError, match="'human'"):
        normalize(scores, reference.drop(columns="human"))
    with pytest.raises(DesignError, match="'score'"):
        normalize(scores.drop(columns="score"), reference)
    with pytest.raises(DesignError, match="'task'"):
        normalize(scores.rename(columns={"task": "game"}), reference)


def test_bad_inputs(scores, reference):
    with pytest.raises(OptionError, match="reference"):
        normalize(scores, {"Pong": (0, 1)})
    with pytest.raises(OptionError, match="same column"):
        normalize(scores, reference, low="human")
    with pytest.raises(DesignError, match="numeric"):
        normalize(scores.assign(score=["a", "b", "c", "d"]), reference)
    with pytest.raises(DesignError, match="missing"):
        normalize(scores.assign(task=["Pong", None, "Pong", "Boxing"]), reference)


def test_reference_by_dataset_name(shared_data, monkeypatch, tmp_path):
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", str(shared_data / "raw"))
    monkeypatch.setenv("RLSTATS_DATA_DIR", str(tmp_path))
    atari = read_csv(shared_data / "atari100k.csv")
    ref = read_csv(shared_data / "atari100k_reference.csv")
    out = normalize(atari, "atari100k_reference")
    merged = atari.merge(ref, on="task", how="left")
    expected = (merged["score"] - merged["random"]) / (merged["human"] - merged["random"])
    np.testing.assert_array_equal(out["score"].to_numpy(), expected.to_numpy())
    # Human-normalised Pong score of a random policy is 0, of a human 1.
    one = pd.DataFrame({"task": ["Pong", "Pong"], "score": [-20.7, 14.6]})
    assert normalize(one, "atari100k_reference")["score"].tolist() == [0.0, 1.0]


def test_the_frame_says_how_it_was_normalised(scores, reference):
    """Results from a normalised frame print how, and do not warn that the tasks are on their own scales."""
    import warnings

    import rlstats
    from rlstats.design import NOTES_ATTR

    out = normalize(scores, reference)
    assert out.attrs[NOTES_ATTR] == (
        "'score' normalised per task as (score - random) / (human - random) with random and human from the "
        "reference frame",)
    assert scores.attrs == {}  # the caller's frame is untouched
    big = pd.DataFrame({"agent": np.repeat(["A", "B"], 6), "task": np.tile(np.repeat(["Pong", "Boxing"], 3), 2),
                        "score": [1.0, 2.0, 3.0, 100.0, 200.0, 300.0, 2.0, 3.0, 4.0, 150.0, 250.0, 350.0]})
    with pytest.warns(rlstats.RlstatsWarning, match="on their own scales"):
        rlstats.bootstrap(big, "score ~ agent | task", n_resamples=100, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = rlstats.bootstrap(normalize(big, reference), "score ~ agent | task", n_resamples=100, rng=0)
    assert out.attrs[NOTES_ATTR][0] in res.notes and out.attrs[NOTES_ATTR][0] in str(res)
    twice = normalize(out, reference, low="random", high="human")  # earlier notes are kept, in order
    assert len(twice.attrs[NOTES_ATTR]) == 2
