"""Audit s12, as a careful new user (familiar with R and the scientific Python stack) would run them:
``rlstats.percentiles`` (print, summary, LaTeX, its three plots at one column's width; rescaled, shifted, reordered and
polars frames; lower-is-better against negated scores; payoffs against a brute-force loop), ``rlstats.adastop`` and
``rlstats.AdaStop`` with ``python -m rlstats adastop update|status|plot`` (the AdaStop paper's MuJoCo batches replayed
batch by batch and in one call, rescaled, shifted, reordered, polars, pyarrow and categorical frames), and
``rlstats.read_logs`` on the shared SB3 logs (TensorBoard, monitor.csv, evaluations.npz, smoothing) and marl-eval's
JSON (each checked against the files read with json, pandas and numpy). Each test is a minimal reproducer of one
defect found; its docstring gives the numbers seen."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import rlstats
import rlstats.cli as cli
from rlstats.errors import DesignError
from rlstats.tables import read_csv


def _cli(*argv):
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


@pytest.fixture
def mujoco_first_batch(published):
    """The first batch of the AdaStop paper's hopper and walker runs, long format with its task column."""
    runs = read_csv(published / "mujoco_batches.csv")
    return runs[(runs["batch"] == 1) & runs["task"].isin(["hopper", "walker"])].reset_index(drop=True)


# ----------------------------------------------------------------------------- AdaStop batches


def test_incremental_batch_of_two_tasks_is_refused(mujoco_first_batch):
    """``AdaStop.update`` (and so ``rlstats adastop update``) read a long batch's ``agent`` and ``score`` and ignored
    every other column: the first batch of the paper's hopper and walker runs (``task`` holding both) was taken as
    one task, 10 runs per agent (5 hopper + 5 walker), and the CLI created a state with ``n = 10`` and decided
    SAC > DDPG and SAC > TRPO on the pooled scores (estimates 2201.6 and 2121.4), with no word of the two tasks.
    A batch whose ``task`` (or ``environment``, ``batch``) column holds several values is now a DesignError naming
    the column and its values."""
    seq = rlstats.AdaStop(["PPO", "SAC", "DDPG", "TRPO"], n=10, K=6, rng=0)
    with pytest.raises(DesignError, match=r"column 'task' holds 2 values \(hopper, walker\)"):
        seq.update(mujoco_first_batch)
    assert seq.interim == 0
    # one task's rows with its task column are a batch as before
    one = rlstats.AdaStop(["PPO", "SAC", "DDPG", "TRPO"], n=5, K=6, rng=0)
    one.update(mujoco_first_batch[mujoco_first_batch["task"] == "hopper"])
    assert one.interim == 1


def test_cli_batch_of_two_tasks_is_refused(mujoco_first_batch, published, tmp_path, capsys):
    """The same from the shell: ``rlstats adastop update state.json batch.csv`` on that file printed "created
    state.json: agents PPO, SAC, DDPG, TRPO; n = 10" and exited 0. It now exits 2 naming the column, writes no
    state, and says how to run one test per task."""
    path = tmp_path / "batch1.csv"
    mujoco_first_batch.to_csv(path, index=False)
    state = tmp_path / "state.json"
    status, _ = _cli("adastop", "update", str(state), str(path), "--seed", "0")
    err = capsys.readouterr().err
    assert status == 2 and "column 'task' holds 2 values" in err and "Traceback" not in err
    assert not state.exists()
    # tasks with different agents (walker's SAC stops later than halfcheetah's): the same error, not "pass --n"
    runs = read_csv(published / "mujoco_batches.csv")
    mixed = runs[(runs["batch"] == 2) & runs["task"].isin(["walker", "halfcheetah"])]
    mixed.to_csv(path, index=False)
    status, _ = _cli("adastop", "update", str(state), str(path), "--seed", "0")
    err = capsys.readouterr().err
    assert status == 2 and "column 'task' holds 2 values (halfcheetah, walker)" in err and "--n" not in err


def test_wide_batch_seed_index_is_not_an_agent(mujoco_first_batch, tmp_path, capsys):
    """A wide batch written the pandas way, ``df.pivot(index="seed", columns="agent", values="score").to_csv(path)``,
    has the header ``seed,DDPG,PPO,SAC,TRPO``. ``rlstats adastop update`` took ``seed`` for a fifth agent whose scores
    were the run ids 0 to 4: it created a state with "agents seed, DDPG, PPO, SAC, TRPO", decided "seed smaller
    than PPO" at interim 1 (estimate -2511.8) and asked for "5 new runs of each of: seed, DDPG, PPO, SAC, TRPO";
    the ids' block also widened the joint permutation boundaries of the real comparisons (2162.4 against 1811.5
    without it, both at 500 paths). Columns ``seed`` and ``run`` (and the task and batch columns, which must hold
    one value) are now not agents, as an unnamed index column was not."""
    hopper = mujoco_first_batch[mujoco_first_batch["task"] == "hopper"]
    path = tmp_path / "batch1.csv"
    hopper.pivot(index="seed", columns="agent", values="score").to_csv(path)
    assert path.read_text().splitlines()[0] == "seed,DDPG,PPO,SAC,TRPO"
    state = tmp_path / "state.json"
    status, text = _cli("adastop", "update", str(state), str(path), "--seed", "0", "--n-resamples", "500")
    assert status == 0 and "agents DDPG, PPO, SAC, TRPO;" in text and "seed " not in text.split("\n", 2)[2]
    assert rlstats.AdaStop.load(state).agents == ("DDPG", "PPO", "SAC", "TRPO")
    # the same wide frame fed from Python, with its seed column
    seq = rlstats.AdaStop(["DDPG", "PPO", "SAC", "TRPO"], n=5, K=6, rng=0, n_resamples=500)
    seq.update(hopper.pivot(index="seed", columns="agent", values="score").reset_index())
    assert seq.interim == 1


def test_batch_of_learning_curves_is_refused(sb3_evaluations, tmp_path, capsys):
    """The shared SB3 logs read with ``rlstats read-logs --format sb3_eval --tags eval/mean_reward=score`` hold
    every evaluation of every run (columns agent, task, seed, step, score). Fed as an AdaStop batch, each evaluation
    counted as a run: A2C and PPO on CartPole-v1 had 18 "runs" each (3 seeds x 6 evaluations), which
    ``AdaStop.update`` took as a batch of n = 18 (and the CLI, with DQN's 12, answered "pass --n"), while
    ``rlstats.adastop(df, "score ~ agent")`` refuses the same rows as learning curves. The batch is now refused
    the same way, naming the step column and how to keep one score per run."""
    curves = sb3_evaluations[(sb3_evaluations["task"] == "CartPole-v1") & (sb3_evaluations["agent"] != "DQN")]
    assert curves.groupby("agent").size().tolist() == [18, 18]
    seq = rlstats.AdaStop(["A2C", "PPO"], n=18, K=2, rng=0, n_resamples=200)
    with pytest.raises(DesignError, match="column 'step' takes 6 values within run seed=0 of agent 'A2C'"):
        seq.update(curves)
    assert seq.interim == 0
    path = tmp_path / "curves.csv"
    curves.to_csv(path, index=False)
    status, _ = _cli("adastop", "update", str(tmp_path / "state.json"), str(path), "--seed", "0")
    err = capsys.readouterr().err
    assert status == 2 and "learning curves" in err and not (tmp_path / "state.json").exists()
    # one row per run (its last evaluation) is a batch
    last = curves.sort_values("step").groupby(["agent", "seed"]).tail(1)
    rlstats.AdaStop(["A2C", "PPO"], n=3, K=2, rng=0, n_resamples=200).update(last)


def test_batch_repeating_a_run_is_refused(mujoco_first_batch, tmp_path, capsys):
    """The hopper first batch concatenated with itself (``pd.concat([b, b])``: the file read twice) has every
    (agent, seed) twice. ``rlstats adastop update`` created a state with n = 10 from it, each run counted twice,
    while ``rlstats.adastop(df, "score ~ agent | task/seed", batch="batch")`` refuses the same rows ("replicate
    column 'seed' repeats id '0'"). A long batch with a ``seed`` (or ``run``) column repeating an id within an agent
    is now a DesignError naming the run. (Session 13: the batch is built into the Design rlstats.adastop builds, so
    rows repeated whole get the formula's refusal, naming the run column; a run id repeated with other scores keeps
    the batch's own message, from the same check as the formula's replicate column.)"""
    hopper = mujoco_first_batch[mujoco_first_batch["task"] == "hopper"]
    twice = pd.concat([hopper, hopper], ignore_index=True)
    seq = rlstats.AdaStop(["PPO", "SAC", "DDPG", "TRPO"], n=10, K=6, rng=0, n_resamples=200)
    with pytest.raises(DesignError, match="20 rows repeat another row in every column, including the run column "
                                          "'seed'.*the same run would count twice"):
        seq.update(twice)
    edited = twice.assign(score=twice["score"] + np.r_[np.zeros(20), np.ones(20)])  # same ids, other scores
    with pytest.raises(DesignError, match="run seed=0 of agent 'DDPG' on task 'hopper' has 2 rows in this batch"):
        seq.update(edited)
    assert seq.interim == 0
    path = tmp_path / "batch1.csv"
    twice.to_csv(path, index=False)
    status, _ = _cli("adastop", "update", str(tmp_path / "state.json"), str(path), "--seed", "0")
    assert status == 2 and "count twice" in capsys.readouterr().err and not (tmp_path / "state.json").exists()


def test_adastop_latex_caption_has_no_empty_reason(published):
    """``adastop(...).to_latex()`` on the paper's MuJoCo batches (every comparison decided, so no reason to continue
    anywhere) captioned the decisions table "... In every row, reason: NA.": the summary's reason column, empty text
    in all 30 rows, went to the caption as a constant column. The printed result leaves an empty reason column out;
    the LaTeX tables now do too."""
    runs = read_csv(published / "mujoco_batches.csv")
    runs = runs[runs["task"] == "walker"]
    res = rlstats.adastop(runs, "score ~ agent", n=5, K=6, batch="batch", rng=0, permutations="pairwise",
                          n_resamples=2000)
    assert (res.decisions["decision"] != "continue").all()
    latex = res.to_latex()
    assert "reason: NA" not in latex and "reason" not in latex.split("\\begin{tabular}")[1].split("\\end{tabular}")[0]


def test_adastop_says_which_runs_it_left_unused(published):
    """``adastop`` on the paper's HalfCheetah batches (PPO, DDPG and TRPO have 30 runs, SAC 5; the pairwise test
    decided everything at interim 5) analysed 25 runs of PPO, DDPG and TRPO and printed no line about the other 15
    rows: only "runs used per agent: 25" told the reader, and only a reader who knew there were 30. Runs beyond K
    batches had their note; runs within them left unused because the test had stopped did not. A note now counts
    them per agent."""
    runs = read_csv(published / "mujoco_batches.csv")
    runs = runs[runs["task"] == "halfcheetah"]
    res = rlstats.adastop(runs, "score ~ agent", n=5, K=6, batch="batch", rng=0, permutations="pairwise",
                          n_resamples=2000)
    used = res.runs_used.set_index("agent")
    assert used["n_runs"].to_dict() == {"DDPG": 25, "PPO": 25, "SAC": 5, "TRPO": 25}
    assert (used["n_available"] - used["n_runs"]).sum() == 15
    line = [note for note in res.notes if "not used" in note]
    assert len(line) == 1 and line[0].startswith("15 runs") and "DDPG 5, PPO 5, TRPO 5" in line[0]
    assert "15 runs" in str(res)


# ----------------------------------------------------------------------------- percentiles


def _noise_pair():
    """Agents a and b with b's scores a's up to round-off (1e-15 of scores near 1), and c above both."""
    base = np.array([0.3, 0.7, 1.1, 1.9])
    rows = [("t1", "a", s, v) for s, v in enumerate(base)]
    rows += [("t1", "b", s, v * (1 + 1e-15) if s % 2 else v) for s, v in enumerate(base)]
    rows += [("t1", "c", s, v + 5.0) for s, v in enumerate(base)]
    rows += [("t2", agent, s, float(s + i)) for i, agent in enumerate("abc") for s in range(4)]
    return pd.DataFrame(rows, columns=["task", "agent", "seed", "score"])


def test_percentiles_round_off_is_a_tie():
    """``percentiles`` built its ECDFs comparing scores bit for bit, unlike the rank methods (skillings_mack,
    bootstrap's ranks, task_table), which tie scores within 1e-12 of the task's largest |score| (issue 39). Scores
    equal up to round-off then decided payoffs: b = a x (1 + 1e-15) on two of four runs gave A[a, t1, b] = 0.5
    instead of the 0.625 of exact ties (A[b, t1, a] stayed 0.625), and the aggregates moved with it. On the Atari
    100k scores, Breakout's DrQ has 14.77 and SPR 14.770000000000001 (two such pairs): adding 1000 to every score
    (which rounds them equal) moved A[DrQ, Breakout, SPR] by 2e-4 and DrQ's aggregate by 1.8e-5, so the result was
    not shift invariant. Near ties are now ties, with the note the rank methods give."""
    noisy = _noise_pair()
    exact = noisy.assign(score=noisy["score"].round(9))
    a = rlstats.percentiles(noisy, "score ~ agent | task", interval="pbp")
    b = rlstats.percentiles(exact, "score ~ agent | task", interval="pbp")
    i, k = a.agents.index("a"), a.agents.index("b")
    assert a.payoff[i, 0, k] == pytest.approx(0.625, abs=1e-12) and a.payoff[k, 0, i] == pytest.approx(0.625)
    np.testing.assert_allclose(a.payoff, b.payoff, atol=1e-12)
    np.testing.assert_allclose(a.estimate, b.estimate, atol=1e-12)
    np.testing.assert_allclose(a.conf_low, b.conf_low, atol=1e-12)
    np.testing.assert_allclose(a.conf_high, b.conf_high, atol=1e-12)
    assert any("treated as ties" in note for note in a.notes)
    # the per-task means stay those of the scores given
    mean_b = noisy[(noisy.task == "t1") & (noisy.agent == "b")].score.mean()
    row = a.per_task[(a.per_task.task == "t1") & (a.per_task.agent == "b")]
    assert row["estimate"].iloc[0] == mean_b


def test_percentiles_atari_shift_invariant(atari):
    """The Atari 100k case of the test above: DER, DrQ and SPR on Alien, Boxing, Breakout and Pong, every score shifted
    by +1000, changed A[DrQ, Breakout, SPR] from 0.3105 to 0.3106 and A[SPR, Breakout, DrQ] from 0.6901 to 0.6903
    and the aggregates by up to 1.8e-5."""
    sub = atari[atari.agent.isin(["DER", "DrQ", "SPR"]) & atari.task.isin(["Alien", "Pong", "Boxing", "Breakout"])]
    a = rlstats.percentiles(sub, "score ~ agent | task", interval=None)
    b = rlstats.percentiles(sub.assign(score=sub["score"] + 1000), "score ~ agent | task", interval=None)
    np.testing.assert_allclose(a.payoff, b.payoff, atol=1e-12)
    np.testing.assert_allclose(a.estimate, b.estimate, atol=1e-12)


def test_percentiles_bounds_note_names_what_was_observed(atari):
    """With ``bounds={"Pong": (-21, 21)}`` (Pong's known limits) on DER, DrQ and SPR on Alien, Boxing and Pong, the
    result said "PBP used the observed minimum and maximum score of each task as its bounds", untrue of Pong; with
    ``bounds=(None, 5000)`` it said the same although every task's upper bound was the 5000 given. The note now
    names the tasks (or the side) whose bounds were observed."""
    sub = atari[atari.agent.isin(["DER", "DrQ", "SPR"]) & atari.task.isin(["Alien", "Pong", "Boxing"])]
    res = rlstats.percentiles(sub, "score ~ agent | task", bounds={"Pong": (-21, 21)})
    line = [note for note in res.notes if "PBP used" in note]
    assert len(line) == 1 and "of each task" not in line[0]
    assert "tasks Alien and Boxing" in line[0] and "Pong" in line[0]
    res = rlstats.percentiles(sub, "score ~ agent | task", bounds=(None, 5000))
    line = [note for note in res.notes if "PBP used" in note]
    assert len(line) == 1 and "observed minimum score of each task as its lower bound" in line[0]
    assert "maximum" not in line[0]
    res = rlstats.percentiles(sub, "score ~ agent | task")
    assert any("observed minimum and maximum score of each task" in note for note in res.notes)
    assert not any("PBP used" in note for note in rlstats.percentiles(sub, "score ~ agent | task",
                                                                      bounds=(-1e6, 1e6)).notes)


# ----------------------------------------------------------------------------- read_logs


def test_monitor_run_missing_a_file_is_skipped_whole(sb3_run_missing_a_file):
    """A monitor.csv row's step is the cumulative episode length over all monitor files of its run (the VecEnv's
    copies, side by side). With ``on_error="skip"``, PPO CartPole-v1 seed 0 of the shared logs with one of its four
    files cut mid-line (training killed while writing) kept its other three files, and its steps were counted
    without the fourth's episodes: its last step read 24,165 instead of about 32,278, every step of the run ~25% too
    small, with only "1 file or run could not be used and was skipped". A run missing one of its files is now
    skipped whole, as a problem of its own in the read log."""
    import warnings

    from conftest import SHARED_DATA

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = rlstats.read_logs(sb3_run_missing_a_file, "seed_{seed}", format="sb3_monitor", on_error="skip",
                               progress=False)
    assert sorted(df["seed"].unique().tolist()) == [1]
    source = SHARED_DATA / "logs" / "sb3_classic" / "PPO" / "CartPole-v1"
    whole = rlstats.read_logs(source, "seed_{seed}", format="sb3_monitor", progress=False)
    assert df["step"].max() == whole.loc[whole["seed"] == 1, "step"].max()
    problems = df.attrs["read_log"].problems
    assert [p.kind for p in problems] == ["truncated", "incomplete run"]
    assert "seed=0" in problems[1].source and "2.monitor.csv" in problems[1].detail

