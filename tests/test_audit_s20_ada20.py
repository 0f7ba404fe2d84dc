"""Session 20 audit of AdaStop on the AdaStop paper's own MuJoCo batches (Mathieu et al., Section 5.3): the
published decisions replayed batch by batch, the command line's incremental use, and a data defect of those files
(Hopper's batches 3 and 4 repeat batches 1 and 2 exactly for PPO, SAC and DDPG) that no check caught."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.cli import main
from rlstats.errors import DesignError

XP = ("raw/TimotheeMathieu/Adaptive_stopping_MC_RL/a909c18b87e4435754067f5c604bf607215d60a9/Deep_RL_xp/"
      "experiments")


def _batch_files(shared_data, task):
    folder = shared_data / XP / task
    files = sorted(folder.glob(f"{task}*.csv"))
    if not files:
        pytest.skip(f"the AdaStop paper's batch files are not under {folder}")
    return files


def test_interim_one_boundaries_match_an_enumeration_of_the_252_slot_choices(shared_data):
    """HalfCheetah batch 1 (the paper's n = 5, K = 6, alpha = 0.05, pairwise scheme): the step-down boundaries at
    interim 1 are the 3rd largest max |mean difference| over the C(10, 5) = 252 slot choices shared by every pair
    (r = floor(alpha / K * 252) = 2), recomputed here from the file alone."""
    first = pd.read_csv(_batch_files(shared_data, "halfcheetah")[0], index_col=0)
    agents = list(first.columns)
    pairs = list(itertools.combinations(range(len(agents)), 2))
    x = np.sort(first.to_numpy().T, axis=1)
    masks = np.zeros((252, 10), dtype=bool)
    for i, slots in enumerate(itertools.combinations(range(10), 5)):
        masks[i, list(slots)] = True
    paths = np.stack([np.abs(np.where(masks, 1, -1) @ np.concatenate([x[a], x[b]])) / 5 for a, b in pairs], axis=1)
    observed = np.abs(x.mean(axis=1)[[a for a, _ in pairs]] - x.mean(axis=1)[[b for _, b in pairs]])
    r = math.floor(0.05 / 6 * 252)
    expected, left = [], list(range(len(pairs)))
    while left:
        boundary = np.sort(paths[:, left].max(axis=1))[::-1][r]
        j = left[int(np.argmax(observed[left]))]
        if observed[j] <= boundary:
            break
        expected.append((agents[pairs[j][0]], agents[pairs[j][1]], boundary))
        left.remove(j)
    seq = rlstats.AdaStop(agents, n=5, K=6, permutations="pairwise", rng=0)
    decided = seq.update(first).query("decision != 'continue'")
    got = sorted(zip(decided["agent_1"], decided["agent_2"], decided["boundary"]))
    assert [g[:2] for g in got] == sorted(e[:2] for e in expected)  # PPO-SAC, SAC-DDPG, SAC-TRPO
    assert np.allclose([g[2] for g in got], [e[2] for e in sorted(expected)], rtol=1e-12)


@pytest.mark.parametrize("task, used, decisions", [
    # Fig. 3 and App. F of the paper: SAC beats DDPG and TRPO on Hopper with 10 runs each, SAC = PPO at 30;
    # Walker2d's DDPG and TRPO use all 30 runs (equal)
    ("hopper", {"PPO": 30, "SAC": 30, "DDPG": 30, "TRPO": 30},
     {("PPO", "SAC"): ("equal", 6), ("SAC", "DDPG"): ("larger", 2), ("SAC", "TRPO"): ("larger", 2),
      ("PPO", "DDPG"): ("larger", 2), ("PPO", "TRPO"): ("larger", 2), ("DDPG", "TRPO"): ("equal", 6)}),
    ("walker", {"SAC": 10, "DDPG": 30, "TRPO": 30, "PPO": 10},
     {("SAC", "DDPG"): ("larger", 1), ("SAC", "TRPO"): ("larger", 1), ("SAC", "PPO"): ("larger", 2),
      ("DDPG", "TRPO"): ("equal", 6), ("DDPG", "PPO"): ("smaller", 2), ("TRPO", "PPO"): ("smaller", 2)}),
    # Fig. 3: SAC beats PPO on HalfCheetah with 5 runs each
    ("halfcheetah", {"PPO": 25, "SAC": 5, "DDPG": 25, "TRPO": 25},
     {("PPO", "SAC"): ("smaller", 1), ("SAC", "DDPG"): ("larger", 1), ("SAC", "TRPO"): ("larger", 1),
      ("PPO", "DDPG"): ("smaller", 3), ("PPO", "TRPO"): ("smaller", 5), ("DDPG", "TRPO"): ("larger", 5)}),
])
def test_the_papers_mujoco_decisions_replay_batch_by_batch(shared_data, task, used, decisions):
    files = _batch_files(shared_data, task)
    seq = rlstats.AdaStop(list(pd.read_csv(files[0], index_col=0).columns), n=5, K=6, alpha=0.05,
                          n_resamples=10_000, permutations="pairwise", rng=0)
    for k, path in enumerate(files, start=1):
        if seq.done:
            break
        seq.update(pd.read_csv(path, index_col=0), allow_repeat=True)  # Hopper repeats runs (test below)
    table = seq.decisions.set_index(["agent_1", "agent_2"])
    assert {pair: (row.decision, row.interim) for pair, row in table.iterrows()} == decisions
    assert dict(zip(seq.result().runs_used["agent"], seq.result().runs_used["n_runs"])) == used


def test_an_agent_repeating_its_runs_of_an_earlier_batch_is_refused():
    """A batch in which one agent's runs are exactly those of an earlier batch (the same file's column copied) was
    accepted whenever another agent's runs were new: only a repeat of every agent was refused."""
    seq = rlstats.AdaStop(["a", "b", "c"], n=3, K=4, n_resamples=500, rng=0)
    first = {"a": [1.0, 2.0, 3.5], "b": [1.5, 2.5, 3.0], "c": [2.0, 0.5, 1.0]}
    seq.update(first)
    with pytest.raises(DesignError, match=r"agents a, b: their runs in this batch repeat batch 1 exactly"):
        seq.update({"a": [3.5, 1.0, 2.0], "b": [1.5, 2.5, 3.0], "c": [7.0, 0.1, 1.0]})
    assert seq.interim == 1
    seq.update({"a": [3.5, 1.0, 2.0], "b": [1.5, 2.5, 3.0], "c": [7.0, 0.1, 1.0]}, allow_repeat=True)
    assert seq.interim == 2
    capped = rlstats.AdaStop(["a", "b"], n=3, K=4, n_resamples=500, rng=0)
    capped.update({"a": [500.0] * 3, "b": [1.0, 2.0, 3.0]})
    capped.update({"a": [500.0] * 3, "b": [4.0, 2.0, 3.0]})  # every run at the cap: no sign of a copied file
    assert capped.interim == 2
    counts = rlstats.AdaStop(["a", "b"], n=3, K=4, n_resamples=500, rng=0)  # successes out of 10: a grid
    counts.update({"a": [7.0, 9.0, 10.0], "b": [6.0, 9.0, 8.0]})
    counts.update({"a": [9.0, 8.0, 6.0], "b": [7.0, 10.0, 9.0]})
    counts.update({"a": [10.0, 7.0, 9.0], "b": [7.0, 8.0, 10.0]})  # a's batch 1 again, but 9 also ran in batch 2
    assert counts.interim == 3


def test_hoppers_copied_batches_are_refused_on_the_command_line(shared_data, tmp_path, capsys):
    """The paper's hopper3.csv and hopper4.csv hold the runs of hopper1.csv and hopper2.csv again for PPO, SAC and
    DDPG (only TRPO's are new): fed batch by batch they were accepted without a word, and the test reached its
    decisions on 20 distinct runs of those agents while saying 30."""
    files = _batch_files(shared_data, "hopper")
    state = str(tmp_path / "hopper.json")
    assert main(["adastop", "update", state, str(files[0]), "--n", "5", "--K", "6", "--seed", "0",
                 "--n-resamples", "500"]) == 0
    assert main(["adastop", "update", state, str(files[1])]) == 0
    capsys.readouterr()
    assert main(["adastop", "update", state, str(files[2])]) == 2
    err = capsys.readouterr().err
    assert ("agents PPO, SAC, DDPG: their runs in this batch repeat batch 1 exactly" in err
            and "--allow-repeat" in err and "Traceback" not in err)


def test_one_shot_adastop_says_which_runs_repeat_an_earlier_interim(shared_data):
    frame = pd.read_csv(shared_data / "mujoco_batches.csv")
    hopper = frame[frame["task"] == "hopper"]
    with pytest.warns(rlstats.RlstatsWarning, match="repeat"):
        res = rlstats.adastop(hopper, "score ~ agent", batch="batch", n=5, K=6, n_resamples=500, rng=0)
    note = [line for line in res.notes if "repeat" in line]
    assert note == ["runs that repeat an earlier interim's exactly (the same 5 scores in any order; a batch should "
                    "hold new runs): DDPG, PPO, SAC at interims 3 (= 1) and 4 (= 2)"]


def test_runs_past_k_batches_need_not_fill_a_last_batch(shared_data):
    """Colas et al.'s HalfCheetah runs (192 SAC, 193 TD3) with the paper's n = 5, K = 6: only the first 30 runs of
    each agent can ever be fed, yet the call was refused because 192 is not a multiple of 5 ("pass n= a divisor of
    the runs"). Now the runs past K batches are left out and counted, and the decisions are those of feeding the
    seeds 0-4, 5-9, ... batch by batch."""
    frame = pd.read_csv(shared_data / "halfcheetah_sac_td3.csv")
    res = rlstats.adastop(frame, "score ~ agent", n=5, K=6, n_resamples=2000, rng=0)
    assert "runs beyond the first K = 6 batches of n = 5 are not used (SAC 162, TD3 163)" in res.notes
    seq = rlstats.AdaStop(["SAC", "TD3"], n=5, K=6, n_resamples=2000, rng=0)
    for k in range(6):
        if seq.done:
            break
        seq.update(frame[frame["seed"].between(5 * k, 5 * k + 4)])
    assert res.decisions[["agent_1", "agent_2", "decision", "interim"]].values.tolist() == \
        seq.decisions[["agent_1", "agent_2", "decision", "interim"]].values.tolist() == [["SAC", "TD3", "larger", 3]]
    with pytest.raises(DesignError, match="not a multiple of n = 5"):  # the short group would be fed: refused
        rlstats.adastop(frame[frame["seed"] < 27], "score ~ agent", n=5, K=6, n_resamples=2000, rng=0)


def test_an_unequal_first_batch_names_each_agents_runs(tmp_path, capsys):
    """A first batch with 3 runs of A and 2 of B said "different numbers of runs per agent ([2, 3]); pass --n": it
    named no agent, and --n cannot help (the batch is refused whatever n is)."""
    batch = tmp_path / "b1.csv"
    pd.DataFrame({"agent": ["A", "A", "A", "B", "B"], "score": [1.0, 2.0, 3.0, 1.5, 2.5]}).to_csv(batch, index=False)
    assert main(["adastop", "update", str(tmp_path / "s.json"), str(batch)]) == 2
    err = capsys.readouterr().err
    assert "the first batch has different numbers of runs per agent (A 3, B 2)" in err
    assert "pass --n" not in err and "the same number of runs of every agent" in err
    assert not (tmp_path / "s.json").exists()


def test_repeats_accepted_with_allow_repeat_are_said_in_the_result():
    """Hopper's copied runs fed with allow_repeat=True (or a state written before the check) printed a result that
    read as 30 new runs per agent; the one-shot adastop() notes them, so the incremental result does too."""
    seq = rlstats.AdaStop(["a", "b", "c"], n=3, K=4, n_resamples=500, rng=0)
    seq.update({"a": [1.0, 2.0, 3.5], "b": [1.5, 2.5, 3.0], "c": [2.0, 0.5, 1.0]})
    seq.update({"a": [3.5, 1.0, 2.0], "b": [1.5, 2.5, 3.0], "c": [7.0, 0.1, 1.0]}, allow_repeat=True)
    assert ("runs that repeat an earlier interim's exactly (the same 3 scores in any order; a batch should hold new "
            "runs): a, b at interim 2 (= 1)") in seq.result().notes
