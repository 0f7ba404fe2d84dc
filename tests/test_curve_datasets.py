"""Tests of the learning-curve datasets and the 57-game Atari normalisers.

``load("dopamine_atari")`` and ``load("spinningup_halfcheetah")`` are read
through the offline mirror (RLSTATS_DATA_MIRROR, or ../shared/data/raw beside the clone) and checked against the raw
files parsed here another way (``json.load`` with a run counter, and
``numpy.loadtxt``); nothing is downloaded.
"""

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import NO_MIRROR, data_mirror
from rlstats import datasets
from rlstats.datasets import _published as published
from rlstats.datasets._atari_reference import WITHOUT_REFERENCE
from rlstats.datasets import load
from rlstats.errors import DataUnavailableError, DesignError
from rlstats.normalization import normalize

DOPAMINE = "google/dopamine/5873f5494ee0c2d7c016d0ab2ad530354fec59d0/baselines/atari/data"
RL_STATS = "flowersteam/rl_stats/d86bc5991c56743a7602b87afdd21d1de0155fac/data"
AGENTS = ["DQN", "C51", "Rainbow", "IQN", "Quantile (JAX)", "DQN (Adam + MSE in JAX)"]






@pytest.fixture(scope="module")
def dopamine():
    """The Dopamine curves, loaded once for the module (read-only use), from the mirror the loader reads."""
    root = data_mirror()
    if root is None or not (root / DOPAMINE).is_dir():
        pytest.skip(f"the Dopamine files are not in the mirror {root}: {NO_MIRROR}")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RLSTATS_DATA_MIRROR", str(root))
        return load("dopamine_atari")


def _copy(src, dst):
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(src.read_bytes())


# --------------------------------------------------------------------------
# dopamine_atari
# --------------------------------------------------------------------------


def test_dopamine_layout_and_dtypes(dopamine):
    df = dopamine
    assert df.shape == (60 * 6 * 5 * 199, 6)
    assert df.columns.tolist() == ["agent", "task", "seed", "step", "frames", "score"]
    assert pd.api.types.is_string_dtype(df["agent"]) and pd.api.types.is_string_dtype(df["task"])
    assert [df[c].dtype for c in ("seed", "step", "frames", "score")] == [np.int64] * 3 + [np.float64]
    assert df["agent"].unique().tolist() == AGENTS
    assert df["task"].nunique() == 60
    assert np.isfinite(df["score"]).all()
    # every (agent, game) has exactly 5 runs of iterations 0..198
    cells = df.groupby(["agent", "task"], sort=False)
    assert cells.ngroups == 360 and (cells.size() == 5 * 199).all()
    assert (df.groupby(["agent", "task", "seed"]).size() == 199).all()
    assert sorted(df["seed"].unique()) == [0, 1, 2, 3, 4]
    assert df["step"].min() == 0 and df["step"].max() == 198
    assert (df["frames"] == (df["step"] + 1) * 1_000_000).all()


def test_dopamine_games_are_the_files_in_camel_case(dopamine, mirror_root):
    files = sorted(p.stem for p in (mirror_root / DOPAMINE).glob("*.json"))
    assert len(files) == 60, "the mirror holds only the 60 plain files (no _CNN, _Impala, .vg.json)"
    games = dopamine["task"].unique().tolist()
    assert [g.lower() for g in games] == files
    assert {"MontezumaRevenge", "UpNDown", "MsPacman", "AirRaid", "Jamesbond"} <= set(games)


def test_dopamine_row_order_is_agent_task_run_step(dopamine):
    df = dopamine
    agent_rank = df["agent"].map({a: i for i, a in enumerate(AGENTS)})
    key = pd.DataFrame({"a": agent_rank, "t": df["task"], "s": df["seed"], "i": df["step"]})
    assert key.sort_values(["a", "t", "s", "i"]).index.equals(df.index)


@pytest.mark.parametrize("game", ["airraid", "pong", "montezumarevenge", "zaxxon"])
def test_dopamine_scores_match_the_raw_records(dopamine, mirror_root, game):
    """Every score of a game, read back with json.load and a run counter per agent."""
    with open(mirror_root / DOPAMINE / f"{game}.json", encoding="utf-8") as fh:
        records = json.load(fh)
    run = {}
    expected = {}
    for r in records:
        if r["Iteration"] == 0:
            run[r["Agent"]] = run.get(r["Agent"], -1) + 1
        expected[(r["Agent"], run[r["Agent"]], r["Iteration"])] = r["Value"]
    cell = dopamine[dopamine["task"].str.lower() == game]
    got = dict(zip(zip(cell["agent"], cell["seed"], cell["step"]), cell["score"]))
    assert got == expected


def test_dopamine_a_few_cells_by_hand(dopamine):
    df = dopamine.set_index(["agent", "task", "seed", "step"])["score"]
    # pong.json records 0 and 1, 199 (DQN's second run starts), 2 * 995 + 3 * 199 + 5 and the last
    assert df[("DQN", "Pong", 0, 0)] == -20.333333333333332
    assert df[("DQN", "Pong", 0, 1)] == -19.308823529411764
    assert df[("DQN", "Pong", 1, 0)] == -20.316176470588236
    assert df[("Rainbow", "Pong", 3, 5)] == 8.15
    assert df[("DQN (Adam + MSE in JAX)", "Pong", 4, 198)] == 19.736842105263158


def test_dopamine_broken_run_layout_names_game_and_agent(mirror_root, tmp_path):
    key = published._dopamine_file("Pong")
    records = json.loads((mirror_root / DOPAMINE / "pong.json").read_text())
    rainbow = [i for i, r in enumerate(records) if r["Agent"] == "Rainbow"]
    del records[rainbow[300]]  # one iteration missing from Rainbow's second run
    broken = tmp_path / "pong.json"
    broken.write_text(json.dumps(records))
    with pytest.raises(DataUnavailableError) as info:
        published._dopamine_game({key: broken}, "Pong")
    text = str(info.value)
    assert "'Rainbow'" in text and "Pong" in text and "pong.json" in text
    assert "[199, 198, 199, 199, 199]" in text

    other = [dict(r, Agent="PPO") if r["Agent"] == "IQN" else r for r in records]
    broken.write_text(json.dumps(other))
    with pytest.raises(DataUnavailableError, match="found .*'PPO'"):
        published._dopamine_game({key: broken}, "Pong")


def test_dopamine_checksum_and_missing_file_errors(mirror_root, tmp_path, monkeypatch, no_network):
    mirror = tmp_path / "mirror"
    for game in datasets.DOPAMINE_GAMES[:3]:
        _copy(mirror_root / published._dopamine_file(game), mirror / published._dopamine_file(game))
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", str(mirror))
    with pytest.raises(DataUnavailableError) as info:
        load("dopamine_atari")
    assert "assault.json is missing from the mirror" in str(info.value)
    assert f"https://raw.githubusercontent.com/{DOPAMINE}/assault.json" in str(info.value)

    bogus = b'[{"Iteration": 0, "Value": 1.0, "Agent": "DQN"}]'
    (mirror / published._dopamine_file("Alien")).write_bytes(bogus)
    with pytest.raises(DataUnavailableError) as info:
        load("dopamine_atari")
    text = str(info.value)
    assert "alien.json" in text and "does not match its pinned SHA-256" in text
    assert hashlib.sha256(bogus).hexdigest() in text


# --------------------------------------------------------------------------
# spinningup_halfcheetah
# --------------------------------------------------------------------------


def test_spinningup_layout_against_loadtxt(mirror):
    df = load("spinningup_halfcheetah")
    assert df.shape == (2 * 193 * 400, 5)
    assert df.columns.tolist() == ["agent", "task", "seed", "step", "score"]
    assert [df[c].dtype for c in ("seed", "step", "score")] == [np.int64, np.int64, np.float64]
    assert df["agent"].unique().tolist() == ["SAC", "TD3"] and set(df["task"]) == {"HalfCheetah"}
    # 193 runs per agent: the files have 193 columns, although their README says 192 runs
    assert df.groupby("agent")["seed"].nunique().tolist() == [193, 193]
    assert sorted(df["step"].unique()) == list(range(5_000, 2_000_001, 5_000))
    for agent, name in (("SAC", "sac"), ("TD3", "td3")):
        raw = np.loadtxt(mirror / RL_STATS / f"{name}_hc_all_perfs.txt")
        assert raw.shape == (400, 193)
        mine = df[df["agent"] == agent]
        # run after run, each in step order: the raw columns one after another
        np.testing.assert_array_equal(mine["score"].to_numpy(), raw.T.reshape(-1))
        assert mine["seed"].tolist() == np.repeat(np.arange(193), 400).tolist()
    assert df.loc[0, ["seed", "step", "score"]].tolist() == [0, 5000, -494.71655]


def test_spinningup_unfinished_sac_run_is_kept_as_nan(mirror):
    df = load("spinningup_halfcheetah")
    gaps = df[df["score"].isna()]
    assert gaps[["agent", "seed"]].drop_duplicates().values.tolist() == [["SAC", 0]]
    assert gaps["step"].tolist() == [1_990_000, 1_995_000, 2_000_000]


def test_final_perfs_are_not_the_last_evaluations(mirror):
    """PROVENANCE calls *_final_perfs.txt the final evaluations of the runs; they are not the
    curves' last points, but a separate measure of the same runs in the same column order."""
    curves = load("spinningup_halfcheetah")
    final = load("halfcheetah_sac_td3")
    last = curves[curves["step"] == 2_000_000]
    for agent, n_final, first in (("SAC", 192, 1), ("TD3", 193, 0)):
        end = last.loc[last["agent"] == agent, "score"].to_numpy()
        reported = final.loc[final["agent"] == agent, "score"].to_numpy()
        assert len(reported) == n_final
        same_runs = end[first : first + n_final]  # SAC's final file skips the unfinished run 0
        assert (np.abs(same_runs - reported) > 1).all(), "no final score is its run's last evaluation"
        # ... but they measure the same runs: rank correlation 0.54 (SAC) and 0.88 (TD3)
        assert stats.spearmanr(same_runs, reported).statistic > 0.5
    sac = last.loc[last["agent"] == "SAC", "score"].to_numpy()
    sac_final = final.loc[final["agent"] == "SAC", "score"].to_numpy()
    assert abs(stats.spearmanr(sac[:192], sac_final, nan_policy="omit").statistic) < 0.1, "shifted by one"


# --------------------------------------------------------------------------
# atari_reference and normalize()
# --------------------------------------------------------------------------


def test_atari_reference_table(monkeypatch):
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", "/nonexistent")  # no file is read
    ref = load("atari_reference")
    assert ref.shape == (57, 4)
    assert ref.columns.tolist() == ["task", "random", "human", "source"]
    assert ref["task"].is_unique and (ref["human"] > ref["random"]).all()
    assert ref["source"].str.contains("DQN Zoo").all()
    row = ref.set_index("task")
    # the later (no-op) human scores, not Mnih et al. (2015)'s (Pong 9.3, Breakout 31.8 there)
    assert row.loc["Breakout", ["random", "human"]].tolist() == [1.7, 30.5]
    assert row.loc["Pong", ["random", "human"]].tolist() == [-20.7, 14.6]
    assert row.loc["VideoPinball", ["random", "human"]].tolist() == [16256.9, 17667.9]


def test_atari_reference_agrees_with_atari100k_reference(mirror):
    ref = load("atari_reference").set_index("task")
    small = load("atari100k_reference").set_index("task")
    pd.testing.assert_frame_equal(
        ref.loc[small.index, ["random", "human"]], small[["random", "human"]], check_exact=True
    )


def test_every_dopamine_game_has_a_normaliser_or_is_listed_without_one():
    ref = set(load("atari_reference")["task"])
    games = set(datasets.DOPAMINE_GAMES)
    assert set(WITHOUT_REFERENCE) == games - ref
    assert WITHOUT_REFERENCE == ("AirRaid", "Carnival", "ElevatorAction", "JourneyEscape", "Pooyan")
    assert ref - games == {"Defender", "Surround"}  # in the 57 but not in the Dopamine files


def test_normalize_dopamine_names_the_games_without_values(dopamine):
    with pytest.raises(DesignError) as info:
        normalize(dopamine, "atari_reference")
    text = str(info.value)
    assert "5 tasks of the data are missing" in text
    for game in WITHOUT_REFERENCE:
        assert repr(game) in text
    kept = dopamine[~dopamine["task"].isin(WITHOUT_REFERENCE)]
    hns = normalize(kept, "atari_reference")
    assert len(hns) == 55 * 6 * 5 * 199
    pong = hns[(hns["task"] == "Pong") & (hns["agent"] == "DQN") & (hns["step"] == 0)]
    raw = kept[(kept["task"] == "Pong") & (kept["agent"] == "DQN") & (kept["step"] == 0)]
    np.testing.assert_allclose(pong["score"], (raw["score"] + 20.7) / (14.6 + 20.7), rtol=1e-15)
    # Rainbow ends above human level on the median game, DQN's first iteration far below it
    final = hns[hns["step"] == 198].groupby(["agent", "task"])["score"].mean()
    assert final["Rainbow"].median() > 1.0
    assert hns[hns["step"] == 0].groupby("task")["score"].mean().median() < 0.1
