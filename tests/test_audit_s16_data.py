"""Audit s16, as a careful user of ``rlstats.datasets`` and ``rlstats.normalize``: every loader read against an
independent reading of the pinned raw files (json/csv/numpy here, not the package's parsers), the normalisers
against published numbers, and the bad inputs a user meets first (task names spelled as the environment ids,
a cache folder that is not a path). Tests that read published files use the mirror (``../shared/data/raw`` or
``RLSTATS_DATA_MIRROR``) and skip with the reason when it is absent. Each defect test's docstring says what was
seen."""

from __future__ import annotations

import ast
import json
import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError, OptionError
from rlstats.tables import EXACT_FLOATS  # pandas 2.0's default float parser can be 1 ulp off

IRIS = "eloialonso/iris/24326aaaa283c527f42b89b44cfdecf2665a7a16/results/data"
RLLTE = "RLE-Foundation/rllte/929347a6e9cfaa81ff37186d35fa531ee3d45b5d/hsuanwu/evaluation/atari_100k"
RL_STATS = "flowersteam/rl_stats/d86bc5991c56743a7602b87afdd21d1de0155fac/data"
HPO = "ADA-research/combined_hpo_and_reward_shaping/0012b924873a42c3b9a9d0c9766f0b0f92d767aa/experimental_results"


# ----------------------------------------------------------------------------- loaders against the raw files

def test_atari100k_holds_every_run_of_every_file_in_file_order(mirror):
    """16,250 rows: 6 agents x 26 games x 100 runs, PlayVirtual 15, IRIS and SimPLe 5; each agent's runs of a game
    equal to the published list (CURL: records sorted by run_number), no NaN, no duplicate (agent, task, seed)."""
    got = rlstats.datasets.load("atari100k")
    files = {"SPR": f"{IRIS}/SPR.json", "DrQ(eps)": f"{IRIS}/DrQ(eps).json", "IRIS": f"{IRIS}/IRIS.json",
             "SimPLe": f"{IRIS}/SimPLe.json", "DER": f"{RLLTE}/DER.json", "DrQ": f"{RLLTE}/DrQ.json",
             "OTRainbow": f"{RLLTE}/OTRainbow.json", "PlayVirtual": f"{RLLTE}/PlayVirtual.json"}
    expected = {}
    for agent, key in files.items():
        for game, runs in json.loads((mirror / key).read_text()).items():
            expected[agent, game] = [float(x) for x in runs]
    for game in got["task"].unique():
        records = json.loads((mirror / f"{RLLTE}/CURL/{game}.json").read_text())
        expected["CURL", game] = [float(r["eval_average_return"]) for r in sorted(records, key=lambda r: r["run_number"])]
    assert len(got) == sum(map(len, expected.values())) == 16250
    assert not got.duplicated(["agent", "task", "seed"]).any() and not got["score"].isna().any()
    for (agent, game), frame in got.groupby(["agent", "task"], sort=False):
        assert frame["seed"].tolist() == list(range(len(frame)))
        assert frame["score"].tolist() == expected[agent, game], (agent, game)
    assert got.groupby("agent").size().to_dict() == {"CURL": 2600, "DER": 2600, "DrQ": 2600, "DrQ(eps)": 2600,
                                                     "IRIS": 130, "OTRainbow": 2600, "PlayVirtual": 390,
                                                     "SPR": 2600, "SimPLe": 130}


def test_atari100k_reference_matches_the_iris_files_and_the_57_game_table(mirror):
    """HUMAN.json and RANDOM.json (one score per game) against the loader, and the 26 games of the 57-game table
    (typed from DQN Zoo) equal to them: one table, two sources."""
    ref = rlstats.datasets.load("atari100k_reference").set_index("task")
    human = json.loads((mirror / f"{IRIS}/HUMAN.json").read_text())
    random = json.loads((mirror / f"{IRIS}/RANDOM.json").read_text())
    assert sorted(ref.index) == sorted(human) == sorted(random) and len(ref) == 26
    for game in ref.index:
        assert [ref.loc[game, "human"]] == human[game] and [ref.loc[game, "random"]] == random[game]
    big = rlstats.datasets.load("atari_reference").set_index("task")
    assert len(big) == 57
    assert (big.loc[ref.index, ["random", "human"]] == ref[["random", "human"]]).all().all()
    # published numbers (Badia et al. 2020, Table of human and random scores; rliable's atari_data)
    assert big.loc["Pong", ["random", "human"]].tolist() == [-20.7, 14.6]
    assert big.loc["MontezumaRevenge", ["random", "human"]].tolist() == [0.0, 4753.3]
    assert big.loc["Skiing", ["random", "human"]].tolist() == [-17098.1, -4336.9]


def test_mujoco_adastop_and_halfcheetah_hold_every_cell_of_their_files(mirror):
    """415 scores in 24 batch files (each agent column of each batch), 385 final HalfCheetah scores (SAC 192 lines,
    TD3 193): the loader's rows are the files' cells, in order, none dropped."""
    got = rlstats.datasets.load("mujoco_adastop")
    root = mirror / "TimotheeMathieu/Adaptive_stopping_MC_RL/a909c18b87e4435754067f5c604bf607215d60a9"
    cells = 0
    for path in sorted(root.glob("Deep_RL_xp/experiments/*/*.csv")):
        task = path.parent.name
        batch = int(path.stem[len(task):])
        raw = pd.read_csv(path, index_col=0, **EXACT_FLOATS)
        for agent in raw.columns:
            mine = got[(got["task"] == task) & (got["batch"] == batch) & (got["agent"] == agent)]
            assert mine["score"].tolist() == raw[agent].tolist(), (task, batch, agent)
            cells += raw[agent].notna().sum()
    assert cells == len(got) == 415
    hc = rlstats.datasets.load("halfcheetah_sac_td3")
    for agent, name in (("SAC", "sac"), ("TD3", "td3")):
        lines = [float(x) for x in (mirror / f"{RL_STATS}/{name}_hc_final_perfs.txt").read_text().split()]
        assert hc[hc["agent"] == agent]["score"].tolist() == lines
    assert hc.groupby("agent").size().to_dict() == {"SAC": 192, "TD3": 193}


def test_spinningup_curves_keep_the_three_nans_of_the_file(mirror):
    """(400, 193) arrays per agent; SAC's run 0 has 3 NaN at the end, kept as NaN (the description says so)."""
    got = rlstats.datasets.load("spinningup_halfcheetah")
    for agent, name in (("SAC", "sac"), ("TD3", "td3")):
        raw = np.loadtxt(mirror / f"{RL_STATS}/{name}_hc_all_perfs.txt")
        table = got[got["agent"] == agent].pivot(index="step", columns="seed", values="score")
        assert table.shape == raw.shape == (400, 193)
        np.testing.assert_array_equal(table.to_numpy(), raw)
        assert table.index[0] == 5000 and table.index[-1] == 2_000_000
    assert int(got["score"].isna().sum()) == 3
    assert got[got["score"].isna()][["agent", "seed", "step"]].values.tolist() == [
        ["SAC", 0, 1_990_000], ["SAC", 0, 1_995_000], ["SAC", 0, 2_000_000]]


@pytest.mark.slow
def test_hpo_landscapes_against_the_csv_files(mirror):
    """9 files x 10,000 rows x 10 seeds, each row's quoted list read with ast.literal_eval (about 7 s: slow)."""
    land = rlstats.datasets.load("hpo_landscapes")
    assert len(land) == 900_000 and not land["score"].isna().any()
    for path in sorted((mirror / HPO / "landscape_analysis").glob("*.csv")):
        raw = pd.read_csv(path, **EXACT_FLOATS)
        values = np.array([ast.literal_eval(x) for x in raw["final_mean_return"]], dtype=float)
        mine = land[land["landscape"] == path.stem]
        assert values.shape == (10_000, 10)
        np.testing.assert_array_equal(mine["score"].to_numpy(), values.ravel())
        np.testing.assert_array_equal(mine["hyperparameter"].to_numpy()[::10], raw.iloc[:, 0].to_numpy())
        np.testing.assert_array_equal(mine["reward_weight"].to_numpy()[::10], raw.iloc[:, 1].to_numpy())


def test_hpo_optimisation_against_the_csv_file(mirror):
    """2,670 rows, 120 baselines without optimisation_seed (tuning_run 0), 5 duplicated rows kept as published."""
    raw = pd.read_csv(mirror / HPO / "optimisation_experiments/optimisation_evaluation_results.csv", **EXACT_FLOATS)
    opt = rlstats.datasets.load("hpo_optimisation")
    assert len(opt) == len(raw) == 2670
    np.testing.assert_array_equal(opt["score"].to_numpy(), raw["final_mean_return"].to_numpy())
    np.testing.assert_array_equal(opt["seed"].to_numpy(), raw["evaluation_seed"].to_numpy())
    assert raw["optimisation_seed"].isna().sum() == 120 == (opt["tuning_run"] == 0).sum()
    assert set(raw.loc[raw["optimisation_seed"].isna(), "hpo"]) == {"base"}
    assert raw.duplicated().sum() == 5 == opt.duplicated().sum()


# ----------------------------------------------------------------------------- normalisation

def test_normalize_against_an_independent_computation_row_order_and_polars(mirror):
    """Human-normalised Atari 100k scores computed here by hand from the reference; the same numbers for shuffled rows
    and for a polars frame; the caller's frame untouched."""
    pl = pytest.importorskip("polars")
    data = rlstats.datasets.load("atari100k")
    data = data[data["agent"].isin(["DER", "SPR"])]
    before = data.copy()
    ref = rlstats.datasets.load("atari100k_reference").set_index("task")
    by_hand = (data["score"] - data["task"].map(ref["random"])) / (data["task"].map(ref["human"])
                                                                    - data["task"].map(ref["random"]))
    out = rlstats.normalize(data, "atari100k_reference")
    np.testing.assert_allclose(out["score"].to_numpy(), by_hand.to_numpy(), rtol=0, atol=1e-12)
    pd.testing.assert_frame_equal(data, before)
    shuffled = rlstats.normalize(data.sample(frac=1.0, random_state=3), "atari100k_reference")
    np.testing.assert_array_equal(shuffled.loc[out.index, "score"].to_numpy(), out["score"].to_numpy())
    polars = rlstats.normalize(pl.from_pandas(data.reset_index(drop=True)), "atari100k_reference")
    np.testing.assert_array_equal(polars["score"].to_numpy(), out["score"].to_numpy())
    # SPR's mean human-normalised score over the 26 games, as published to 3 digits: 0.616 in Micheli, Alonso &
    # Fleuret (2023, IRIS) Table 1, computed with rliable from these files (each score is checked to 1e-12 above)
    spr = out[out["agent"] == "SPR"].groupby("task")["score"].mean().mean()
    assert spr == pytest.approx(0.616, abs=5e-4)


def test_nan_scores_stay_nan_and_d4rl_numbers():
    """A NaN score stays NaN (the others normalised); D4RL's hopper-medium-v2 normalised with the release's
    ref_min -20.272305 and ref_max 3234.3 (d4rl/infos.py)."""
    data = pd.DataFrame({"agent": ["A", "B"], "task": ["Pong", "Pong"], "score": [np.nan, 1.0]})
    out = rlstats.normalize(data, "atari_reference")
    assert np.isnan(out["score"].iloc[0]) and out["score"].iloc[1] == pytest.approx((1.0 + 20.7) / 35.3, rel=1e-14)
    d4rl = pd.DataFrame({"agent": ["A"], "task": ["hopper-medium-v2"], "score": [1500.0]})
    got = rlstats.normalize(d4rl, "d4rl_reference")["score"].iloc[0]
    assert got == pytest.approx((1500.0 + 20.272305) / (3234.3 + 20.272305), rel=1e-14)


def test_a_task_spelled_as_the_environment_id_is_named_with_the_reference_spelling():
    """Scores logged under Gym's ids ('PongNoFrameskip-v4', 'ALE/Breakout-v5') or in lower case ('boxing') were
    refused with "3 task(s) of the data are missing from the reference ... add their 'random' and 'human' scores
    to the reference or drop them from the data": advice that would make the user retype published numbers or
    throw the runs away, when the games are in the table under 'Pong', 'Breakout' and 'Boxing'. The error now
    names the reference's spelling of each and how to rename; nothing is renamed silently."""
    data = pd.DataFrame({"agent": ["A"] * 3, "task": ["PongNoFrameskip-v4", "ALE/Breakout-v5", "boxing"],
                         "score": [0.0, 1.0, 2.0]})
    with pytest.raises(DesignError) as info:
        rlstats.normalize(data, "atari_reference")
    text = str(info.value)
    assert "'PongNoFrameskip-v4' -> 'Pong'" in text and "'ALE/Breakout-v5' -> 'Breakout'" in text
    assert "'boxing' -> 'Boxing'" in text and "rename" in text
    # the advised rename, run as printed, works on a categorical task column too and lets normalize through
    code = text.split("e.g. ", 1)[1]
    data["task"] = data["task"].astype("category")
    exec(code, {"df": data})
    assert rlstats.normalize(data, "atari_reference")["score"].tolist() == pytest.approx(
        [20.7 / 35.3, (1.0 - 1.7) / 28.8, (2.0 - 0.1) / 12.0], rel=1e-14)
    assert "add their" not in text  # every missing task has a match: adding or dropping is not the fix
    procgen = pd.DataFrame({"agent": ["A", "A"], "task": ["procgen-coinrun-v0", "procgen:procgen-bigfish-v0"],
                            "score": [5.0, 6.0]})
    with pytest.raises(DesignError, match=re.escape("('procgen-coinrun-v0' -> 'coinrun', 'procgen:procgen-bigfish-v0' "
                                                    "-> 'bigfish')")):
        rlstats.normalize(procgen, "procgen_easy_reference")


def test_a_spelling_match_among_truly_missing_tasks_keeps_both_pieces_of_advice():
    """Two tasks with a match ('Hopper-Medium-V2' -> 'hopper-medium-v2', and 'walker2d_medium_v2' to its version,
    not to all three), one without ('hopper-medium', in three
    versions of the table: named as ambiguous, not guessed) and one absent from D4RL."""
    data = pd.DataFrame({"agent": ["A"] * 4, "task": ["Hopper-Medium-V2", "hopper-medium", "pendulum",
                                                      "walker2d_medium_v2"], "score": [0.0, 1.0, 2.0, 3.0]})
    with pytest.raises(DesignError) as info:
        rlstats.normalize(data, "d4rl_reference")
    text = str(info.value)
    assert "4 tasks of the data are missing" in text
    assert "('Hopper-Medium-V2' -> 'hopper-medium-v2', 'walker2d_medium_v2' -> 'walker2d-medium-v2')" in text
    assert "'hopper-medium' could be 'hopper-medium-v0', 'hopper-medium-v1' or 'hopper-medium-v2'" in text
    assert "for the rest, add their 'random' and 'expert' scores to the reference or drop them" in text


# ----------------------------------------------------------------------------- load's options and docstring

@pytest.mark.parametrize("value", [5, ["/tmp"], 1.5])
def test_cache_dir_that_is_not_a_path_is_an_option_error(value, no_network, monkeypatch):
    """``load("halfcheetah_sac_td3", cache_dir=5)`` raised Python's "TypeError: expected str, bytes or os.PathLike
    object, not int" from pathlib (and was ignored without a word when a mirror was set)."""
    monkeypatch.delenv("RLSTATS_DATA_MIRROR", raising=False)
    with pytest.raises(OptionError, match=re.escape(f"cache_dir must be a folder (a str or os.PathLike), got {value!r}")):
        rlstats.datasets.load("halfcheetah_sac_td3", cache_dir=value)


def test_load_docstring_names_every_dataset():
    """load()'s docstring listed 8 of the 12 names ('hpo_landscapes', 'hpo_optimisation' and the two Procgen
    tables were missing) and called atari_reference and d4rl_reference 'the last two with no file to read', which
    the Procgen tables are too."""
    doc = rlstats.datasets.load.__doc__
    missing = [name for name in rlstats.datasets.available()["name"] if f'"{name}"' not in doc]
    assert missing == []


def test_hpo_optimisation_description_says_what_dropping_the_repeats_leaves(mirror):
    """The description said each found configuration was trained with 10 evaluation seeds and told the user to
    drop_duplicates() the 5 repeated rows, without saying that each repeat stands where another seed's row should
    be: 5 tuning runs (PPO ant dehb/base run 3 and rs run 2, PPO humanoid dehb/dehb run 5, SAC wipe dehb/base runs 3
    and 4) have 10 rows but 9 distinct seeds (13, 12, 13, 12, 20 absent), so after the advised drop they hold 9."""
    raw = pd.read_csv(mirror / HPO / "optimisation_experiments/optimisation_evaluation_results.csv", **EXACT_FLOATS)
    keys = ["algorithm", "environment", "single_obj", "hpo", "rpo", "optimisation_seed"]
    distinct = raw.drop_duplicates().groupby(keys, dropna=False)["evaluation_seed"].nunique()
    assert (distinct == 9).sum() == 5 and (distinct == 10).sum() == 262
    text = rlstats.datasets.available().set_index("name").loc["hpo_optimisation", "description"]
    assert "5 tuning runs then have 9 evaluation seeds" in text


def test_hpo_optimisation_keeps_every_column_of_the_file(mirror):
    """The file's 13 columns were read into 13 columns, but not one for one: ``def_rew_std_return`` (the published standard
    deviation of the return under the default reward) was dropped without a word while its sibling
    ``final_std_return`` became ``score_std``. It is now ``default_reward_score_std``."""
    raw = pd.read_csv(mirror / HPO / "optimisation_experiments/optimisation_evaluation_results.csv", **EXACT_FLOATS)
    opt = rlstats.datasets.load("hpo_optimisation")
    np.testing.assert_array_equal(opt["default_reward_score_std"].to_numpy(), raw["def_rew_std_return"].to_numpy())
    np.testing.assert_array_equal(opt["score_std"].to_numpy(), raw["final_std_return"].to_numpy())
