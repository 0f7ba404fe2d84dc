"""Audit s29 (real29): the public API run as an R user writing a paper would, on the published scores (Atari 100k
raw and human-normalised, the AdaStop MuJoCo batches, the HalfCheetah SAC/TD3 runs), the Dopamine curves, the
hyperparameter sweeps of Dierkes et al., the marl-eval log and the Stable-Baselines3 logs: pandas subsets, unused
Categorical levels, reordered rows, scores x10 and /1000, polars and pyarrow frames, agents that never shared a task,
cells of one run, ties and capped scores, the CLI. Rows shuffled, pyarrow and polars frames (Enum levels) left every
statistic unchanged; rescaling changed only printed units.

Defects found and mended:

- The rank test's mean ranks, printed under "mean ranks (1 = best)" and in the report, fell below 1 where runs per
  cell differ within a task: on the AdaStop MuJoCo batches without DDPG and hopper (SAC has 5 runs on halfcheetah
  beside PPO's and TRPO's 30, and beats them all), SAC's mean rank was 0.977. The mean rank puts a run's rank r of a
  task's q runs on the 1..k scale of equal runs, (r - 1/2) k / q + 1/2, so an agent with fewer runs than its task's
  average that beats every run there sits below 1 (and one that loses to all above k). The numbers stay (the pairwise
  tests read these positions); a note now says why a mean rank lies outside 1..k and how to read ranks on that scale,
  and the critical-difference diagram's axis reaches every mean rank (SAC was drawn right of the axis' end at 1).
- curves(), align_steps() and summarize_runs() left out, unsaid, the evaluations logged one interval past the steps
  every agent reaches: CartPole's SB3 evaluations up to 25k, DQN's runs stopping at 20k, gave curves to 20k that
  printed "every run is logged at the same 4 steps from 5k to 20k" and nothing of A2C's and PPO's 6 evaluations at
  25k (a task counted as logged beyond its grid only more than a grid interval past it). A grid of the steps every
  run logs now counts any logged step past its ends; an even grid keeps the interval's slack (its steps need not fall
  on the logged ones). summarize_runs(how='final') took DQN's values there at 20k beside the others' at 25k and
  named no run as read earlier (only runs ending more than one logging interval early were); runs on one lattice of
  steps (same first step, one interval) are now named when they end a logged step or more before their siblings.
- equivalence(): the withheld across-tasks note read "1 task of 3 (Pong) lack one".
- A back end called by its own function (rlstats.bootstrap, probability_of_improvement, performance_profile,
  percentiles, mixed, task_table, ...) that refused agents apart offered subset= and na_action= "to rlstats.compare",
  whose default method is the rank test: followed as written, DER and SPR apart on Atari gave a Mack-Skillings test in
  place of the bootstrap. The way on now reads "to rlstats.compare(..., method='bootstrap')" (test_connectivity's
  pinned text updated on purpose).

Tests reading the published scores skip with the reason when neither ../shared/data nor the mirror is here."""

from __future__ import annotations

import numpy as np
import pytest

import rlstats
from rlstats.tables import read_csv


@pytest.fixture
def mujoco(published):
    """The AdaStop MuJoCo batches (4 agents, 5 tasks, 5 to 30 runs per cell)."""
    return read_csv(published / "mujoco_batches.csv")


def _mean_position(frame):
    """Each agent's mean rank as the package defines it, written here from the definition: within a task every run
    gets its mid-rank r among the task's q runs (1 = best), counted as (r - 1/2) k_i / q + 1/2 (k_i the agents
    present); an agent's mean rank is the mean over its tasks of its runs' mean."""
    out = {}
    for _, g in frame.groupby("task"):
        r = g["score"].rank(ascending=False, method="average")
        scaled = (r - 0.5) * g["agent"].nunique() / len(g) + 0.5
        for agent, value in scaled.groupby(g["agent"]).mean().items():
            out.setdefault(agent, []).append(value)
    return {agent: float(np.mean(v)) for agent, v in out.items()}


# ----------------------------------------------------------------------------- rank test: mean ranks below 1

def _unequal(mujoco):
    return mujoco[(mujoco["agent"] != "DDPG") & (mujoco["task"] != "hopper")]


def test_mean_rank_below_one_is_explained(mujoco):
    """SAC's 5 runs on halfcheetah beat PPO's and TRPO's 30 each: its mean rank, 0.977 (checked against the
    definition written here with pandas' ranks), is below the '1 = best' the print states; a note says why, names
    the agent and its value, and how to read ranks on 1..k."""
    data = _unequal(mujoco)
    res = rlstats.compare(data, "score ~ agent | task")
    ranks = dict(zip(res.agents, res.mean_ranks))
    expected = _mean_position(data)
    for agent in res.agents:
        assert ranks[agent] == pytest.approx(expected[agent], rel=1e-12)
    assert ranks["SAC"] < 1
    counts = data.groupby(["task", "agent"]).size()
    assert (counts.min(), counts.max()) == (5, 30)
    notes = [n for n in res.notes if "outside" in n]
    assert len(notes) == 1
    note = notes[0]
    assert "SAC (0.977)" in note and "5 to 30 runs" in note
    assert "(r - 1/2) k / q + 1/2" in note and "within_cell='mean'" in note
    assert note.startswith("mean rank of SAC (0.977) outside 1..3: ")
    assert "Mean rank of SAC (0.977) outside 1..3: runs per agent differ" in res.report(format="text")
    assert "Note: " + note in str(res)


def test_mean_ranks_within_one_to_k_get_no_such_note(mujoco):
    """Equal runs per cell (the first 5 runs of each), and the full batches, whose mean ranks lie within 1..4
    (3.30, 2.09, 1.10, 2.84): no note about the scale."""
    first = mujoco[mujoco["seed"] < 5]
    for data in (first, mujoco):
        res = rlstats.compare(data, "score ~ agent | task")
        assert (res.mean_ranks >= 1).all() and (res.mean_ranks <= len(res.agents)).all()
        assert not [n for n in res.notes if "outside" in n]


def test_cd_diagram_axis_reaches_a_mean_rank_below_one(mujoco):
    """The critical-difference diagram's rank axis runs from the smallest mean rank's floor (0 here) to k: SAC's
    line starts on the axis, not right of its end at 1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = rlstats.compare(_unequal(mujoco), "score ~ agent | task")
    ax = res.plot()
    try:
        axis = [line for line in ax.collections if len(line.get_segments()) == 1
                and line.get_segments()[0][0][1] == 0 and line.get_segments()[0][1][1] == 0]
        assert axis, "the rank axis (a horizontal line at height 0) was not found"
        xs = axis[0].get_segments()[0][:, 0]
        assert min(xs) <= min(res.mean_ranks) and max(xs) >= max(res.mean_ranks)
        ticks = [t.get_text() for t in ax.texts]
        assert "0" in ticks
    finally:
        plt.close(ax.figure)


# ----------------------------------------------------------------------------- equivalence: grammar of a withheld test

@pytest.fixture
def atari(published):
    """Atari 100k raw game scores (9 agents, 26 games)."""
    return read_csv(published / "atari100k.csv")


def test_across_tasks_withheld_for_one_task_says_lacks(atari):
    """SPR with a single run on Pong beside DER's 5, on three games: the across-tasks Welch test is withheld, and the
    note reads '1 task of 3 (Pong) lacks one' (it read 'lack one')."""
    runs = atari[atari["agent"].isin(["DER", "SPR"]) & atari["task"].isin(["Alien", "Boxing", "Pong"])
                 & (atari["seed"] < 5)]
    runs = runs[~((runs["agent"] == "SPR") & (runs["task"] == "Pong") & (runs["seed"] > 0))]
    res = rlstats.equivalence(runs, "score ~ agent | task/seed", margin=5)
    across = res.tidy().query("scope == 'across tasks'")
    assert len(across) == 1 and np.isnan(across["conf_low"].iloc[0])
    assert any("1 task of 3 (Pong) lacks one (fewer than 2 runs of an agent)" in n for n in res.notes)


# ----------------------------------------------------------------------------- curves: an evaluation left out unsaid

def test_curves_name_the_evaluations_past_the_grid(sb3_evaluations):
    """CartPole's EvalCallback logs up to 25k (a subset of the steps, as a user writes it): A2C's and PPO's runs
    evaluate at 5k..25k, DQN's stop at 20k. The curves end at 20k, the last step every agent reaches; A2C's and PPO's
    6 evaluations at 25k are left out. The print said "every run is logged at the same 4 steps from 5k to 20k" and
    nothing of them (a task logged one interval past the grid was not 'beyond' it); it now says they are left out."""
    runs = sb3_evaluations[(sb3_evaluations["task"] == "CartPole-v1") & (sb3_evaluations["step"] <= 25_000)]
    last = runs.groupby("agent")["step"].max()
    assert last.to_dict() == {"A2C": 25_000, "DQN": 20_000, "PPO": 25_000}
    res = rlstats.curves(runs, "score ~ agent | task/seed", step="step", rng=0, n_resamples=50, bands="expanded")
    assert res.steps.tolist() == [5_000, 10_000, 15_000, 20_000]
    assert int((runs["step"] > res.steps.max()).sum()) == 6
    text = str(res)
    assert "logged beyond them: CartPole-v1 (5k to 25k)" in text
    assert "(the runs of DQN on CartPole-v1 stop at 20k)" in text
    assert ("every run is logged at the same 4 steps from 5k to 20k within the curves' range (some runs log steps "
            "beyond it") in text


def test_align_steps_names_the_evaluations_past_the_grid(sb3_evaluations):
    """The same runs through align_steps (each task's own grid): its note says 25k is left out."""
    runs = sb3_evaluations[(sb3_evaluations["task"] == "CartPole-v1") & (sb3_evaluations["step"] <= 25_000)]
    aligned = rlstats.align_steps(runs, "score ~ agent | task/seed", step="step")
    assert sorted(aligned["step"].unique().tolist()) == [5_000, 10_000, 15_000, 20_000]
    notes = aligned.attrs["rlstats_notes"]
    assert any("steps logged beyond are left out: CartPole-v1 (5k to 25k)" in str(n) for n in notes)


def test_final_names_the_runs_that_missed_the_last_evaluation(sb3_evaluations):
    """summarize_runs(how='final') on the same runs takes DQN's values at 20k and A2C's and PPO's at 25k (read here
    with pandas: each run's row at its largest step); the note named only the range of ends, since DQN stops one
    evaluation short, not 'more than one logging interval'; it now names DQN's runs as taken earlier in training."""
    runs = sb3_evaluations[(sb3_evaluations["task"] == "CartPole-v1") & (sb3_evaluations["step"] <= 25_000)]
    final = rlstats.summarize_runs(runs, "score ~ agent | task/seed", step="step", how="final")
    expected = runs.loc[runs.groupby(["agent", "seed"])["step"].idxmax()].set_index(["agent", "seed"])["score"]
    got = final.set_index(["agent", "seed"])["score"]
    assert np.allclose(got.loc[expected.index].to_numpy(), expected.to_numpy(), rtol=0, atol=0)
    note = [str(n) for n in final.attrs["rlstats_notes"] if str(n).startswith("score: the value")][0]
    assert ("3 runs end one logging interval or more before the last run of their task, so their values come from "
            "earlier in training (run '0' of agent 'DQN' on task 'CartPole-v1' at 20k, its task's runs reaching 25k")\
        in note


# ----------------------------------------------------------------------------- a back end's way on names its method

def test_way_on_from_a_back_end_keeps_its_method(atari):
    """DER on three games, SPR on three others, DrQ on all six: rlstats.bootstrap refuses (no task has every agent)
    and offered subset= and na_action= 'to rlstats.compare', whose default method is the rank test: followed
    literally, the user got a Mack-Skillings test in place of the bootstrap. The way on now names the method, and
    followed as written it gives the bootstrap of DER and DrQ on their three shared games."""
    games = ["Alien", "Boxing", "Breakout", "Pong", "Qbert", "Seaquest"]
    runs = atari[(atari["seed"] < 5) & atari["task"].isin(games)
                 & (((atari["agent"] == "DER") & atari["task"].isin(games[:3]))
                    | ((atari["agent"] == "SPR") & atari["task"].isin(games[3:])) | (atari["agent"] == "DrQ"))]
    with pytest.raises(rlstats.errors.DesignError) as refused:
        rlstats.bootstrap(runs, "score ~ agent | task", n_resamples=200, rng=0)
    message = str(refused.value)
    # audit s35: rlstats.bootstrap's own way (it takes no subset=): the rows first, by a mask, then the same call
    said = ("data=df[mask] (a boolean mask of the rows where agent not in ['SPR'] holds) and na_action=\"drop\" to "
            "rlstats.bootstrap")
    assert said in message
    res = rlstats.bootstrap(runs[runs["agent"] != "SPR"], "score ~ agent | task", na_action="drop", n_resamples=200,
                            rng=0, metrics=["mean"], normalize=False)
    assert type(res).__name__ == "BootstrapResult"
    assert set(res.tidy()["agent"]) == {"DER", "DrQ"} and res.tasks == ("Alien", "Boxing", "Breakout")
