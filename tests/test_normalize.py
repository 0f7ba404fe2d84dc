"""Tests of rlstats.normalization.normalize against hand-computed values."""

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import rlstats
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



def test_reference_of_other_bounds_names_low_and_high():
    """A table with 'low' and 'high' (an environment's return range) is refused saying how to name them, also through
    normalize= of a back end (found as a new user on the SB3 logs, issue 41 item 5), and the way it names works."""
    df = pd.DataFrame({"agent": ["a", "b"] * 2, "task": ["t1", "t1", "t2", "t2"], "score": [1.0, 2.0, -3.0, -4.0]})
    ref = pd.DataFrame({"task": ["t1", "t2"], "low": [0.0, -5.0], "high": [5.0, 0.0]})
    with pytest.raises(DesignError, match=r"no columns 'random', 'human'.*low= and high=.*'reference': table"):
        normalize(df, ref)
    with pytest.raises(DesignError, match=r"low= and high="):
        rlstats.bootstrap(df, "score ~ agent | task", normalize=ref, n_resamples=100, rng=0)
    assert normalize(df, ref, low="low", high="high")["score"].tolist() == [0.2, 0.4, 0.4, 0.2]
    with pytest.raises(DesignError) as caught:
        normalize(df, ref, low="rnd", high="high")
    assert "low= and high=" in str(caught.value)  # a named column that is not there: the same hint

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
    missing, has = text.split("(it has ")
    assert "Qbert" in missing and "Seaquest" in missing and "Pong" not in missing
    assert "Pong" in has  # the reference's own names, to spot a spelling difference


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


def test_reference_by_dataset_name(published, mirror, monkeypatch, tmp_path):
    monkeypatch.setenv("RLSTATS_DATA_DIR", str(tmp_path))
    atari = read_csv(published / "atari100k.csv")
    ref = read_csv(published / "atari100k_reference.csv")
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


# ------------------------------------------------------------------------------ named normalisers and rules

# D4RL's reference scores as published in the D4RL release: d4rl/infos.py (REF_MIN_SCORE, REF_MAX_SCORE) of
# Farama-Foundation/D4RL at commit 89141a689b0353b0dac3da5cba60da4b1b16254d; the Gym-MuJoCo pairs are also
# d4rl/gym_mujoco/__init__.py's HOPPER_RANDOM_SCORE = -20.272305, HOPPER_EXPERT_SCORE = 3234.3, ... (Fu et al.
# 2020, arXiv:2004.07219). Typed here from that file, independently of the module's table.
D4RL_RELEASE = {
    "halfcheetah-random-v0": (-280.178953, 12135.0), "halfcheetah-medium-expert-v2": (-280.178953, 12135.0),
    "hopper-random-v0": (-20.272305, 3234.3), "hopper-medium-v2": (-20.272305, 3234.3),
    "hopper-full-replay-v1": (-20.272305, 3234.3),
    "walker2d-random-v0": (1.629008, 4592.3), "walker2d-medium-replay-v2": (1.629008, 4592.3),
    "ant-random-v0": (-325.6, 3879.7), "ant-expert-v2": (-325.6, 3879.7),
    "pen-human-v0": (96.262799, 3076.8331017826877), "pen-cloned-v1": (96.262799, 3076.8331017826877),
    "hammer-expert-v1": (-274.856578, 12794.134825156867), "relocate-human-v0": (-6.425911, 4233.877797728884),
    "door-cloned-v0": (-56.512833, 2880.5693087298737),
    "antmaze-umaze-v0": (0.0, 1.0), "antmaze-large-diverse-v2": (0.0, 1.0),
    "kitchen-complete-v0": (0.0, 4.0), "kitchen-mixed-v0": (0.0, 4.0),
    "maze2d-open-v0": (0.01, 20.66), "maze2d-umaze-v1": (23.85, 161.86), "maze2d-medium-v1": (13.13, 277.39),
    "maze2d-large-v1": (6.7, 273.99), "maze2d-open-dense-v0": (11.17817, 27.166538620695782),
    "maze2d-umaze-dense-v1": (68.537689, 193.66285642381482),
    "maze2d-medium-dense-v1": (44.264742, 297.4552547777125),
    "maze2d-large-dense-v1": (30.569041, 303.4857382709002),
}


def test_d4rl_table_matches_the_release():
    from rlstats import datasets

    table = datasets.load("d4rl_reference").set_index("task")
    assert len(table) == 115 and table.index.is_unique
    for name, (low, high) in D4RL_RELEASE.items():
        assert (table.loc[name, "random"], table.loc[name, "expert"]) == (low, high), name
        assert table.loc[name, "version"] == name.rsplit("-", 1)[1]
    # 4 Gym-MuJoCo environments x (5 datasets in v0, 6 with full-replay in v1 and v2), Adroit 4 x 3 x (v0, v1),
    # AntMaze 6 x (v0, v2), Kitchen 3, Maze2D 8
    versions = table["version"].value_counts().to_dict()
    assert versions == {"v0": 20 + 12 + 6 + 3 + 2, "v1": 24 + 12 + 6, "v2": 24 + 6}
    assert table["source"].str.contains("Farama-Foundation/D4RL@89141a6").all()
    # the circulating copies are not these numbers, and available() names them
    assert table.loc["hopper-medium-v2", "random"] != -19.5 and table.loc["walker2d-medium-v2", "random"] != -0.48
    described = datasets.available().set_index("name").loc["d4rl_reference", "description"]
    assert "hopper ref_min_score -19.5 instead of -20.272305" in described
    assert "walker2d ref_min_score -0.48 instead of 1.629008" in described


def test_d4rl_normalised_score_by_hand():
    runs = pd.DataFrame({"agent": ["A", "B", "A", "B"],
                         "task": ["hopper-medium-v2", "hopper-medium-v2", "walker2d-medium-v2", "walker2d-medium-v2"],
                         "score": [1000.0, 3234.3, 1.629008, 2300.0]})
    out = normalize(runs, "d4rl_reference")  # random and expert, D4RL's own, by default
    expected = [(1000.0 + 20.272305) / (3234.3 + 20.272305), 1.0, 0.0, (2300.0 - 1.629008) / (4592.3 - 1.629008)]
    np.testing.assert_allclose(out["score"], expected, rtol=1e-15)
    assert out.attrs["rlstats_notes"][-1] == (
        "'score' normalised per task as (score - random) / (expert - random) with random and expert from "
        "d4rl_reference (D4RL release, d4rl/infos.py (Farama-Foundation/D4RL@89141a6))")


# Procgen's normalisation constants, Cobbe et al. (2020, arXiv:1912.01588), appendix table, typed here again in
# the paper's order (game: hard R_min, R_max; easy R_min, R_max), independently of the module's table.
PROCGEN_PAPER = """
CoinRun 5 10 5 10
StarPilot 1.5 35 2.5 64
CaveFlyer 2 13.4 3.5 12
Dodgeball 1.5 19 1.5 19
FruitBot -.5 27.2 -1.5 32.4
Chaser .5 14.2 .5 13
Miner 1.5 20 1.5 13
Jumper 1 10 3 10
Leaper 1.5 10 3 10
Maze 4 10 5 10
BigFish 0 40 1 40
Heist 2 10 3.5 10
Climber 1 12.6 2 12.6
Plunder 3 30 4.5 30
Ninja 2 10 3.5 10
BossFight .5 13 .5 13
"""


def test_procgen_tables_match_the_paper():
    from rlstats import datasets

    rows = [line.split() for line in PROCGEN_PAPER.strip().splitlines()]
    for mode, (lo, hi) in (("hard", (1, 2)), ("easy", (3, 4))):
        table = datasets.load(f"procgen_{mode}_reference").set_index("task")
        assert len(table) == 16 and table.index.is_unique and (table["mode"] == mode).all()
        for row in rows:
            game = row[0].lower()
            assert (table.loc[game, "r_min"], table.loc[game, "r_max"]) == (float(row[lo]), float(row[hi])), game
        assert table["source"].str.contains("arXiv:1912.01588").all()
    described = datasets.available().set_index("name")["description"]
    assert "jumper (1, 10) and leaper (1.5, 10) instead of (3, 10)" in described["procgen_easy_reference"]
    assert "(0, R_max) instead of (R_min, R_max)" in described["procgen_hard_reference"]


def test_procgen_normalised_score_by_hand():
    runs = pd.DataFrame({"agent": ["A", "B", "A"], "task": ["fruitbot", "fruitbot", "starpilot"],
                         "score": [10.0, 27.2, 20.0]})
    hard = normalize(runs, "procgen_hard_reference")  # r_min and r_max by default
    np.testing.assert_allclose(hard["score"], [(10 + 0.5) / 27.7, 1.0, (20 - 1.5) / 33.5], rtol=1e-15)
    easy = normalize(runs, "procgen_easy_reference")
    np.testing.assert_allclose(easy["score"], [(10 + 1.5) / 33.9, (27.2 + 1.5) / 33.9, 17.5 / 61.5], rtol=1e-15)
    assert easy.attrs["rlstats_notes"][-1].startswith(
        "'score' normalised per task as (score - r_min) / (r_max - r_min) with r_min and r_max from "
        "procgen_easy_reference (Cobbe et al. (2020)")
    with pytest.raises(DesignError, match="missing from the reference's 'task' column: 'procgen-coinrun-v0'"):
        normalize(runs.assign(task="procgen-coinrun-v0"), "procgen_easy_reference")


def test_dm_control_divides_by_1000():
    # Control Suite rewards lie in [0, 1] per step over 1000-step episodes (Tassa et al. 2018, dm_control's
    # suite_test.py checks the reward range): returns lie in [0, 1000].
    runs = pd.DataFrame({"agent": ["A", "B", "A"], "task": ["walker-walk", "walker-walk", "cheetah-run"],
                         "score": [0.0, 1000.0, 437.5]})
    out = normalize(runs, "dm_control")
    assert out["score"].tolist() == [0.0, 1.0, 0.4375]
    assert "score / 1000" in out.attrs["rlstats_notes"][-1]


def test_minmax_uses_each_tasks_range_in_the_data_and_states_it(scores):
    many = pd.DataFrame({"task": np.repeat([f"t{i:02d}" for i in range(12)], 2),
                         "score": np.arange(24, dtype=float) ** 2})
    out = normalize(many, "minmax")
    np.testing.assert_array_equal(out["score"], np.tile([0.0, 1.0], 12))
    note = out.attrs["rlstats_notes"][-1]
    assert note.endswith("in the data: t00 0 to 1, t01 4 to 9, t02 16 to 25, t03 36 to 49, t04 64 to 81, "
                         "t05 100 to 121, t06 144 to 169, t07 196 to 225, t08 256 to 289, t09 324 to 361 and 2 more")
    # a missing score is left out of the bounds and stays missing
    gappy = pd.concat([scores, pd.DataFrame({"agent": ["C"], "task": ["Pong"], "seed": [0], "score": [np.nan]})])
    out = normalize(gappy, "minmax")
    np.testing.assert_allclose(out["score"], [0.0, (6.1 + 2.0) / 8.1, 1.0, 0.0, np.nan], rtol=1e-15)
    assert out.attrs["rlstats_notes"][-1].endswith("in the data: Boxing -2 to 6.1, Pong 0 to 14.75")  # sorted, as results list tasks


# ---- issue 39 item 5: what each normaliser's range is (a bound, a convention, or no range at all)
def test_minmax_refuses_an_infinite_score_and_names_its_row():
    runs = pd.DataFrame({"agent": ["A", "B", "A", "B"], "task": ["Pong", "Pong", "Box", "Box"],
                         "score": [1.0, np.inf, 2.0, 3.0]}, index=[10, 11, 12, 13])
    with pytest.raises(DesignError, match=r"1 row holds an infinite 'score': index label 11 \(agent 'B', task 'Pong', "
                                          r"score inf\)"):
        normalize(runs, "minmax")
    # through a back end the agent is the formula's column
    with pytest.raises(DesignError, match=r"index label 11 \(player 'B', task 'Pong', score inf\)|index label 11 \(agent"):
        rlstats.bootstrap(runs.rename(columns={"agent": "player"}).assign(seed=[0, 0, 0, 0]),
                          "score ~ player | task", normalize="minmax", n_resamples=100, rng=0)


def test_dm_control_refuses_returns_outside_0_to_1000():
    runs = pd.DataFrame({"agent": ["A", "B", "A"], "task": ["walker-walk"] * 3, "score": [1000.0, 1000.5, -1e-9]})
    with pytest.raises(DesignError, match=r"2 rows of 'score' lie outside it: index label 1 \(agent 'B', task "
                                          r"'walker-walk', score 1000.5\), index label 2 \(agent 'A', task 'walker-walk', "
                                          r"score -1e-09\)"):
        normalize(runs, "dm_control")
    assert normalize(runs.iloc[:1], "dm_control")["score"].tolist() == [1.0]  # the bound itself is a return


def test_procgen_constants_are_a_convention_stated_not_enforced():
    # coinrun's easy R_min is 5, yet an agent that fails every level scores 0: kept (normalised to -1) and counted
    runs = pd.DataFrame({"agent": ["A", "B", "A"], "task": ["coinrun", "coinrun", "bigfish"],
                         "score": [0.0, 10.0, 41.0]})
    out = normalize(runs, "procgen_easy_reference")
    np.testing.assert_allclose(out["score"], [-1.0, 1.0, 40.0 / 39.0], rtol=1e-15)
    assert out.attrs["rlstats_notes"][-1].endswith(
        "; 2 scores lie outside the table's [r_min, r_max] range of their task (first: index label 0 (agent 'A', task "
        "'coinrun', score 0.0), index label 2 (agent 'A', task 'bigfish', score 41.0)), which is a convention rather than "
        "a bound, so they are kept (normalised below 0 or above 1)")
    # Atari's random and human are reference points, not a range: a superhuman score is said nothing about
    pong = pd.DataFrame({"task": ["Pong"], "random": [-20.7], "human": [14.6]})
    atari = normalize(pd.DataFrame({"task": ["Pong"], "score": [21.0]}), pong)
    assert "outside" not in atari.attrs["rlstats_notes"][-1]
