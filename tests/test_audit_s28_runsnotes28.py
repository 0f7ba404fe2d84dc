"""Audit s28 (meta28), runsnotes28: the notes a frame of runs carries are said of the runs a subset keeps.

1. curves(): on the SB3 monitor logs (shared/data/logs/sb3_classic, CartPole-v1) the range note said "the runs of
   DQN on CartPole-v1 start at 14" beside "curves cover steps 20 to 19.99k": the even grid's steps sit 10 apart, so
   its first step at or after 14 is 20 (and its last at or before 20k, 19.99k). The note now says both: "start at 14,
   so the grid of steps 10 apart starts at 20; those of DQN on CartPole-v1 stop at 20k, so it ends at 19.99k"; where
   the grid starts (ends) at the runs' step, the words of before stay.
2. align_steps() and summarize_runs(how='auc'): the note on steps logged beyond each task's grid ("each task's grid
   stays within the steps every agent reaches there (...); steps logged beyond are left out: t1 (0 to 200), t2 (0 to
   300)") was a note of the frame as a whole: after any subset of the runs (pandas, or subset=) it was not shown,
   though the tasks it named were kept. It is now bound to its tasks and said again of those kept (the same words of
   the whole frame as before, checked against the code before the change); a subset keeping only tasks logged within
   their grid has no such note.
3. read_logs(): the note on runs several files give at different steps or of different scalars, read as one run
   each ("4 runs given by several files ...: agent=ppo seed=1 (loss.csv, return.csv); ..."), was a note of the frame:
   any subset lost it. It is now bound to the runs it names and said again of those kept.
4. read_logs(): after the subset= its rerun note proposes (keeping the last attempt of a run started again), the
   rerun note and the note on runs read from several files still named the attempt left out ("agent=ppo task=hopper
   seed=1: PPO_1 (steps 0 to 1,000), PPO_2 (...)"). Both are now bound to the attempts too: a run is named while two
   or more of its files (attempts) are among the rows; else not, and the line on rows left out says so.
5. read_logs(): the note on a name written in two Unicode forms in the paths, read as one ("agent 'Käfer' is written
   in two Unicode forms ...") was a note of the frame: a subset keeping that agent lost it. It is now bound to the
   name: said while its rows are there, not of a subset without them.
6. summarize_runs() and align_steps() with na_action="drop": a run every row of which was dropped is in no frame
   made, so the note on the rows dropped, bound to the runs since curvenotes28, no longer named it after a subset
   ("1 row of 1 run dropped" of task t2, where 11 rows of 2 runs were). A note now names such runs ("1 run had every
   row dropped ..., so it is not among the runs summarised: run '1' of agent 'B' on task 't2' (10 rows)"), bound to
   their agent and task: said while the agent's runs on that task are analysed; the runs of an agent with no run
   left (all its rows dropped) are bound to their task alone (no subset holds that agent's rows).
7. read_logs(): the note on runs that copy another run's rows, times included, was a note of the frame: any subset
   lost it, the copies kept or not. It is now bound to the runs: a group of copies is said while two or more of its
   runs are there.
"""

import json
import unicodedata

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import runs
from rlstats.design import design_of
from rlstats.provenance import notes_for

FORMULA = "score ~ agent | task/seed"


def _beyond(notes):
    found = [n for n in notes if "steps logged beyond are left out" in n]
    assert len(found) <= 1, notes
    return found[0] if found else None


def _budgets():
    """Agents A, B, C on t1 (200 steps), t2 (300) and t3 (150), 3 runs each, seed 0 logged every 5 steps and the
    others every 10 (so the runs are aligned to a grid). By construction B's runs on t2 start at 30 and C's runs on
    t1 and t2 stop 50 steps before the budget: t1's grid is 0-150, t2's 30-250, t3's 0-150, so t1 and t2 are logged
    beyond their grids and t3 is not."""
    rng = np.random.default_rng(0)
    rows = []
    for agent in ("A", "B", "C"):
        for task, budget in (("t1", 200), ("t2", 300), ("t3", 150)):
            start = 30 if (agent, task) == ("B", "t2") else 0
            end = budget - (50 if agent == "C" and task != "t3" else 0)
            for seed in range(3):
                rows += [(agent, task, seed, k, rng.normal()) for k in range(start, end + 1, 10 if seed else 5)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


WHOLE = ("each task's grid stays within the steps every agent reaches there (the runs of B on t2 start where their "
         "task's grid starts; those of C on t1, C on t2 stop where their task's grid ends); steps logged beyond are "
         "left out: t1 (0 to 200), t2 (0 to 300); pass steps= for other steps")


@pytest.mark.parametrize("make", ["align", "auc"])
def test_the_note_on_steps_beyond_the_grids_is_said_of_the_tasks_kept(make):
    df = _budgets()
    if make == "align":
        frame = rlstats.align_steps(df, FORMULA, step="step")
    else:
        frame = rlstats.summarize_runs(df, FORMULA, step="step", how="auc")
    assert _beyond(frame.attrs["rlstats_notes"]) == WHOLE  # the words of before, of the whole frame
    assert _beyond(notes_for(frame[frame.task == "t1"])) == (
        "each task's grid stays within the steps every agent reaches there (the runs of C on t1 stop where their "
        "task's grid ends); steps logged beyond are left out: t1 (0 to 200); pass steps= for other steps")
    assert _beyond(notes_for(frame[frame.task != "t1"])) == (
        "each task's grid stays within the steps every agent reaches there (the runs of B on t2 start where their "
        "task's grid starts; those of C on t2 stop where their task's grid ends); steps logged beyond are left out: "
        "t2 (0 to 300); pass steps= for other steps")
    assert _beyond(notes_for(frame[frame.task == "t3"])) is None  # t3 is logged within its grid
    if make == "auc":  # a back end's subset= says the same of the runs it analyses
        res = rlstats.compare(frame, FORMULA, subset="task == 't2'")
        assert _beyond(res.notes) == _beyond(notes_for(frame[frame.task == "t2"]))


def _range_note(df, formula):
    design = design_of(df, formula, step="step", curves=True)
    starts, stops = runs.run_bounds(design)
    logged = runs.snap_steps(design.extra["step"], starts)
    return runs.common_grid(design, logged, starts, stops)


def test_range_note_says_where_the_grid_starts():
    """A's runs start at 0, B's at 14, all every 10 steps from there: the grid (10 apart) starts at 20, the first
    multiple of 10 at or after 14; A's runs stop at 300, B's at 294 (B is logged at 14 + 10k), the grid ends at
    290."""
    rows = [("A", "t", s, k, 0.0) for s in range(2) for k in range(0, 301, 10)]
    rows += [("A", "u", s, k, 0.0) for s in range(2) for k in range(0, 401, 10)]
    rows += [("B", task, s, k, 0.0) for task in "tu" for s in range(2) for k in range(14, 301, 10)]
    grid, shared, note = _range_note(pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"]), FORMULA)
    assert not shared and (grid[0], grid[-1]) == (20, 290)
    assert ("curves cover steps 20 to 290, within the steps every agent reaches on every task (the runs of B on t, "
            "B on u start at 14, so the grid of steps 10 apart starts at 20; those of B on t, B on u stop at 294, so "
            "it ends at 290)") in note


def test_range_note_on_the_sb3_monitor_logs(shared_data):
    """DQN's earliest run on CartPole-v1 logs its first episode at step 14 and its longest its last at 19,999 (read
    from the monitor.csv files: seeds 0-2 start at 18, 29, 14); A2C's and PPO's start at 11-19 and end past 27k."""
    df = rlstats.read_logs(shared_data / "logs" / "sb3_classic", "{agent}/{task}/seed_{seed}", format="sb3_monitor",
                           progress=False)
    cart = df[df.task == "CartPole-v1"]
    firsts = cart.groupby(["agent", "seed"]).step.min()
    assert firsts.loc["DQN"].min() == 14 and cart[cart.agent == "DQN"].step.max() == 19_999
    grid, _, note = _range_note(cart, "r ~ agent | task/seed")
    assert (grid[0], grid[1] - grid[0], grid[-1]) == (20, 10, 19_990)
    assert ("(the runs of DQN on CartPole-v1 start at 14, so the grid of steps 10 apart starts at 20; those of DQN on "
            "CartPole-v1 stop at 20k, so it ends at 19.99k)") in note


def test_runs_joined_from_several_files_are_said_of_the_runs_kept(tmp_path):
    """Three W&B chart exports: return.csv gives the 4 runs' returns, loss.csv ppo's losses and sac_loss.csv sac's, so
    each run is joined from two files (by construction). The note naming them was a note of the frame: any subset lost
    it, its runs kept or not."""
    (tmp_path / "return.csv").write_text("Step,ppo-1 - return,ppo-2 - return,sac-1 - return,sac-2 - return\n"
                                         "100,1,4,1,2\n200,2,5,3,3\n")
    (tmp_path / "loss.csv").write_text("Step,ppo-1 - loss,ppo-2 - loss\n100,0.5,0.7\n200,0.25,0.35\n")
    (tmp_path / "sac_loss.csv").write_text("Step,sac-1 - loss,sac-2 - loss\n100,0.5,0.7\n200,0.25,0.35\n")
    frame = rlstats.read_logs(tmp_path, "{agent}-{seed}", format="wandb_csv", tags=["return", "loss"], progress=False)
    head = "given by several files, at different steps or of different scalars, read as one run each: "
    ppo1, sac1 = "agent=ppo seed=1 (loss.csv, return.csv)", "agent=sac seed=1 (return.csv, sac_loss.csv)"
    assert (f"4 runs {head}{ppo1}; agent=ppo seed=2 (loss.csv, return.csv); {sac1}; agent=sac seed=2 (return.csv, "
            "sac_loss.csv)") in frame.attrs["rlstats_notes"]
    kept = notes_for(frame[frame.seed == 1])
    assert [n for n in kept if "several files" in n] == [f"2 runs {head}{ppo1}; {sac1}"]


def test_a_rerun_kept_as_one_attempt_is_no_longer_said_to_have_two(tmp_path):
    """ppo on hopper, seeds 0-2 in tb/PPO_1; seed 1 started again from step 0 in tb/PPO_2 (a rerun: an attempt of its
    own), seed 2 continued in tb/PPO_2 at step 1,100 (one attempt, two files). By construction."""
    from test_logs import write_tb

    def run(seed, name):
        return tmp_path / "ppo" / "hopper" / f"seed_{seed}" / "tb" / name

    for seed in range(3):
        write_tb(run(seed, "PPO_1"), {"eval/return": [(s, s / 100 + seed) for s in range(0, 1001, 100)]})
    write_tb(run(1, "PPO_2"), {"eval/return": [(s, -s / 100) for s in range(0, 1001, 100)]}, 1_700_100_000.0)
    write_tb(run(2, "PPO_2"), {"eval/return": [(s, -s / 100) for s in range(1100, 1201, 100)]}, 1_700_100_000.0)
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    seed1 = "agent=ppo task=hopper seed=1: PPO_1 (steps 0 to 1,000), PPO_2 (steps 0 to 1,000, a rerun from the start)"
    seed2 = "agent=ppo task=hopper seed=2: PPO_1 (steps 0 to 1,000), PPO_2 (steps 1,100 to 1,200, continues)"
    files = "read from several files, in the order written (attrs['read_log'].segments): "
    proposed = "~(agent == 'ppo' & task == 'hopper' & seed == 1 & attempt != 'PPO_2')"
    notes = frame.attrs["rlstats_notes"]
    assert f"2 runs {files}{seed1}; {seed2}" in notes
    assert any(n.startswith("1 run started again from its first step") and proposed in n for n in notes)
    for kept in (frame.query(proposed), frame[frame.attempt == "PPO_2"]):
        said = notes_for(kept)
        assert not any("started again" in n or "seed=1:" in n for n in said), said
        assert said[-1].startswith("these data lack ")
    assert f"1 run {files}{seed2}" in notes_for(frame.query(proposed))  # seed 2's two files are kept
    both = notes_for(frame[frame.seed == 1])  # both attempts kept: both notes, of seed 1 alone
    assert f"1 run {files}{seed1}" in both and any(n.startswith("1 run started again") for n in both)


def _monitor(folder, n):
    """A Stable-Baselines3 monitor.csv whose episode i returns i, each 100 steps long."""
    folder.mkdir(parents=True)
    lines = ["#" + json.dumps({"t_start": 1.0, "env_id": "hopper"}), "r,l,t"]
    (folder / "0.monitor.csv").write_text("\n".join(lines + [f"{i:.1f},100,{i + 1.0}" for i in range(n)]) + "\n")


def test_a_name_read_from_two_unicode_forms_is_said_while_its_rows_are_there(tmp_path):
    nfc, nfd = unicodedata.normalize("NFC", "Käfer"), unicodedata.normalize("NFD", "Käfer")
    _monitor(tmp_path / nfc / "hopper" / "seed_0", 5)
    _monitor(tmp_path / nfd / "hopper" / "seed_1", 5)
    _monitor(tmp_path / "dqn" / "hopper" / "seed_0", 5)
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    said = ("agent 'Käfer' is written in two Unicode forms in the paths, composed (1 file) and decomposed (1 file, as "
            "files copied from a Mac are), read as one agent in the composed form")
    assert said in frame.attrs["rlstats_notes"]
    assert said in notes_for(frame[frame.seed == 1])  # Käfer's seed 1 (the decomposed path) kept
    assert said in notes_for(frame[frame.agent == nfc])
    assert not any("Unicode" in n for n in notes_for(frame[frame.agent == "dqn"]))


@pytest.mark.parametrize("make, done", [(rlstats.summarize_runs, "summarised"), (rlstats.align_steps, "aligned")])
def test_a_run_whose_rows_were_all_dropped_is_named_after_a_subset(make, done):
    """A and B, 3 runs each on t1 and t2, 10 steps; by construction B's run 1 on t2 has all 10 scores missing and A's
    run 2 on t2 one (step 30): 11 of 120 rows dropped, 10 of them of a run no frame holds."""
    rows = [(a, t, s, 10 * k, float(k + s)) for a in "AB" for t in ("t1", "t2") for s in range(3) for k in range(10)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    df.loc[(df.agent == "B") & (df.task == "t2") & (df.seed == 1), "score"] = np.nan
    df.loc[(df.agent == "A") & (df.task == "t2") & (df.seed == 2) & (df.step == 30), "score"] = np.nan
    frame = make(df, FORMULA, step="step", na_action="drop")
    whole = (f"1 run had every row dropped (na_action=\"drop\", a missing or not finite value), so it is not among "
             f"the runs {done}: run '1' of agent 'B' on task 't2' (10 rows)")
    notes = frame.attrs["rlstats_notes"]
    assert notes[0] == "11 of 120 rows dropped (na_action=\"drop\"): 11 with missing values in 'score'"
    assert whole in notes
    t2 = notes_for(frame[frame.task == "t2"])
    assert whole in t2 and (f"1 row of 1 run dropped (na_action=\"drop\", a missing or not finite value) before the "
                            f"runs were {done}: run '2' of agent 'A' on task 't2' (1 row)") in t2
    assert whole in notes_for(frame[frame.agent == "B"])
    for other in (frame[frame.task == "t1"], frame[frame.agent == "A"]):
        assert not any("every row dropped" in n for n in notes_for(other))


def test_the_runs_of_an_agent_whose_rows_were_all_dropped_are_said_of_their_task():
    """A, B, D with 3 runs on t1 and t2; by construction D's 60 scores are all missing, so D has no run in the frame:
    its runs are said where their task's runs are analysed."""
    rows = [(a, t, s, 10 * k, float(k + s)) for a in "ABD" for t in ("t1", "t2") for s in range(3) for k in range(10)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    df.loc[df.agent == "D", "score"] = np.nan
    frame = rlstats.summarize_runs(df, FORMULA, step="step", na_action="drop")
    head = ("3 runs had every row dropped (na_action=\"drop\", a missing or not finite value), so they are not among "
            "the runs summarised: ")
    t2 = notes_for(frame[frame.task == "t2"])
    assert f"{head}run '0' of agent 'D' on task 't2' (10 rows); run '1' of agent 'D' on task 't2' (10 rows); run '2' of " \
           "agent 'D' on task 't2' (10 rows)" in t2
    assert not any("'t1'" in n for n in t2)


def test_copied_runs_are_said_while_two_of_a_group_are_there(tmp_path):
    """ppo on hopper, seeds 0-3 written with the same times; by construction seeds 0 and 1 log the same values, and
    seeds 2 and 3 (one more than 0 and 1): two groups of copies."""
    from test_logs import write_tb

    for seed in range(4):
        write_tb(tmp_path / "ppo" / "hopper" / f"seed_{seed}" / "tb" / "PPO_1",
                 {"eval/return": [(s, s / 100 + seed // 2) for s in range(0, 1001, 100)]})
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    head = ("runs log the same values at the same steps and times as another run, as copies of a run do (a run folder "
            "copied?), each counted as a run of its own: ")
    tail = "; leave the copies out (subset=, or move them out of the folder read)"
    first, second = ("agent=ppo task=hopper seed=0 and agent=ppo task=hopper seed=1",
                     "agent=ppo task=hopper seed=2 and agent=ppo task=hopper seed=3")
    assert f"4 {head}{first}; {second}{tail}" in frame.attrs["rlstats_notes"]
    assert f"2 {head}{second}{tail}" in notes_for(frame[frame.seed != 1])
    assert not any("copies of a run" in n for n in notes_for(frame[frame.seed.isin([0, 2])]))
