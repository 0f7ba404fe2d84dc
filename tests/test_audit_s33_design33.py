"""Audit s33 (design33): design32's refusal of ``| seed`` blocks read every block-like column as a task.

1. A column that is a property of each run or of its agent (a host, a worker process, a commit; a part of the agent's
   name) was refused as a task, with advice to block on it: the published tuning results (hpo_optimisation, PPO on
   ant) compared by procedure in seed blocks were refused for 'hpo', the procedure's own first half, and the SB3
   logs' Acrobot runs for the worker process that trained them (the TensorBoard event files' process id).
2. A checkpoint or generation column (a training step not named like one) got design32's pooling advice, "block on
   'checkpoint'", instead of the learning curves' ways on; a float one passed unsaid, each checkpoint a run.

The rule (design._tasks_within_run_blocks): a column that takes several values within one agent's runs of one block
is a task (the block would count that agent's runs at different levels as replicates: the mark of seeds numbered
0..n-1 on every task); a column that differs only between the agents of a block is refused if named as the tasks
(design.TASK_NAMES: the block would rank one task's runs against another's), else read as a property of the runs,
said in a note and left out (none for a column of the agents, each agent at one level); a numeric column rising row
by row within each run (the agent's rows of a block; under '| task', the rows of a run column) on values several runs
share, the runs holding 3 rows or more (median), is a training step, refused with the curves' ways on. Why not the
scores: whether they depend on a column is a test with its own errors at 3 seeds; where the runs sit is not.

Frames tried (before -> after):
  SB3 final scores, Acrobot + CartPole, '| seed'              refused 'task'            -> the same message
  SB3 Acrobot + the worker process of each run (real)         refused 'worker'          -> p = 0.5 as without, a note
  hpo_optimisation PPO/return on ant, '| seed' by procedure   refused 'hpo'             -> p = 1.205e-23 as without it
  hpo_optimisation PPO/return, 3 envs, task as 'environment'  named 'suite' (and 'hpo') -> 'environment' (also 'suite')
  AdaStop MuJoCo batches, '| batch'                           refused 'task'            -> the same
  fin32a's 'task', one run per agent in each seed block       refused 'task'            -> the same (by its name)
  a host varying within an agent's runs of a batch            refused 'host'            -> the same (data cannot tell)
  one task's curves, 'checkpoint'/'generation', '| seed'      "block on 'checkpoint'"   -> the curves' ways on
  the same, a float 'ckpt_m'                                  passed: 24 rows as runs   -> the curves' ways on
  SB3 TensorBoard CartPole, step as 'checkpoint', '| seed'    "block on 'checkpoint'"   -> the curves' ways on
  two tasks' curves with 'checkpoint', '| task'               passed: 48 rows as runs   -> the curves' ways on
  the same, '| task/seed'                                     "drop '/seed'"            -> the curves' ways on
  one task's curves with 'checkpoint', 'score ~ agent'        "| checkpoint" / passed   -> the curves' ways on
Left as they were: 'score ~ agent' (no blocks) still refuses a worker column with the tasks' advice
(design._pooled_tasks); blocks on a seed column named otherwise ('evaluation_seed', the raw ADA file) are the caller's
tasks and are not checked.
"""

from __future__ import annotations

import pandas as pd
import pytest

import rlstats
from conftest import load_dataset
from rlstats.errors import DesignError
from test_audit_s32_design32 import SB3_FINAL

#: the SB3 logs' Acrobot final scores (SB3_FINAL) with the training process of each run, read from its TensorBoard
#: event file's name (events.out.tfevents.<time>.vm.<pid>.<n>): two worker processes shared the six runs
ACROBOT = SB3_FINAL[SB3_FINAL["task"] == "Acrobot-v1"].drop(columns="task").assign(
    worker=[30368, 30369, 30368, 30368, 30369, 30369])


def _with_workers(sb3):
    """The logs' final scores with the worker process of each run (the real provenance column)."""
    logs = sb3.assign(worker=sb3["source"].str.extract(r"\.vm\.(\d+)\.", expand=False).astype("int64"))
    return logs.sort_values("step").groupby(["task", "agent", "seed"], as_index=False, observed=True).last()


def _ppo_tuning(mirror_root):
    """PPO's tuning procedures for return alone (hpo_optimisation; 2 published rows repeated dropped)."""
    h = load_dataset("hpo_optimisation")
    return h[(h["algorithm"] == "ppo") & (h["objective"] == "return")].drop_duplicates()


def test_a_column_of_the_agents_parts_is_not_a_task(mirror_root):
    ant = _ppo_tuning(mirror_root).query("task == 'ant'")
    reference = rlstats.compare(ant.drop(columns="hpo"), "score ~ procedure | seed")
    res = rlstats.compare(ant, "score ~ procedure | seed")
    assert len(ant) == 208 and res.pvalue == reference.pvalue == pytest.approx(1.2052020593855885e-23, rel=1e-9)
    assert "'hpo'" not in str(res)


def test_a_worker_column_is_said_and_left_out():
    """Exact Friedman test on 3 seed blocks of 2 agents: A2C ahead in 2 blocks, tied in 1; p = 4/8 = 0.5."""
    res = rlstats.compare(ACROBOT, "score ~ agent | seed")
    assert res.pvalue == rlstats.compare(ACROBOT.drop(columns="worker"), "score ~ agent | seed").pvalue == 0.5
    text = " ".join(str(res).split())
    assert ("column 'worker' (2 levels) differs between the agents' runs of one 'seed' block (seed 2: 30368 and "
            "30369) but never within one agent's runs there: read as a property of each run (a host, a worker or "
            "a version, say), not a task, and left out; if it names tasks, block on it: 'score ~ agent | "
            "worker:seed'") in text


def test_the_logs_worker_processes_are_left_out(sb3):
    final = _with_workers(sb3)
    acrobot = final[final["task"] == "Acrobot-v1"]
    assert acrobot["worker"].tolist() == ACROBOT["worker"].tolist()
    res = rlstats.compare(acrobot, "score ~ agent | seed")
    assert res.pvalue == 0.5 and "column 'worker' (2 levels)" in str(res)


def test_the_finest_task_column_is_named(mirror_root):
    """The raw file's column names: 'environment' (ant, humanoid, lunar) within 'suite' (brax, gym); blocking on the
    environment keeps the suite constant in each block, not the other way round."""
    tuning = _ppo_tuning(mirror_root).rename(columns={"task": "environment"})
    with pytest.raises(DesignError) as info:
        rlstats.compare(tuning, "score ~ procedure | seed")
    message = str(info.value)
    assert ("but column 'environment' (3 levels) takes several values within its blocks (also 'suite'): seed 11 "
            "holds runs of 'ant', 'humanoid' and 'lunar'") in message
    assert "'score ~ procedure | environment/seed'" in message and "'hpo'" not in message


def test_the_tasks_stay_refused_in_real_batches():
    """The AdaStop MuJoCo batches blocked on 'batch': each agent's runs of batch 1 span the 5 tasks."""
    from conftest import SHARED_DATA

    path = SHARED_DATA / "mujoco_batches.csv"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    with pytest.raises(DesignError, match=r"column 'task' \(5 levels\).*batch 1 holds runs of 'ant', 'halfcheetah'"):
        rlstats.compare(pd.read_csv(path), "score ~ agent | batch")


def _curves(tasks=1, name="checkpoint"):
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=tasks, seeds=3, steps=4, rng=0)
    curves = curves.rename(columns={"step": name})
    return curves.drop(columns="task") if tasks == 1 else curves


@pytest.mark.parametrize("name, scale", [("checkpoint", 1), ("generation", 1), ("ckpt_m", 1e-6)])
def test_a_checkpoint_column_gets_the_curves_ways_on(name, scale):
    curves = _curves(name=name)
    curves[name] = curves[name] * scale
    with pytest.raises(DesignError) as info:
        rlstats.compare(curves, "score ~ agent | seed")
    message = str(info.value)
    assert message.startswith(f"column '{name}' takes 4 values within agent 'agent_1' on seed '0' (4 rows), each "
                              "once, on values shared by 6 runs, so the rows look like learning curves")
    assert f"rlstats.summarize_runs(df, 'score ~ agent | task/seed', step='{name}')" in message
    assert f"rlstats.curves(df, 'score ~ agent | task/seed', step='{name}')" in message
    assert "groupby(['agent', 'seed']).tail(1)" in message and "pool_tasks" not in message
    assert f"If '{name}' numbers tasks or settings, not steps, block on it: 'score ~ agent | {name}/seed'" in message


def test_curves_of_several_tasks_get_the_curves_ways_on():
    with pytest.raises(DesignError) as info:
        rlstats.compare(_curves(tasks=2), "score ~ agent | seed")
    message = str(info.value)
    assert message.startswith("column 'checkpoint' takes 4 values within agent 'agent_1' on seed '0' (8 rows)")
    assert "rlstats.curves(df, 'score ~ agent | task/seed', step='checkpoint')" in message


def test_the_logs_checkpoints_get_the_curves_ways_on(sb3):
    cartpole = sb3[sb3["task"] == "CartPole-v1"].rename(columns={"step": "checkpoint"}).drop(columns="task")
    with pytest.raises(DesignError, match=r"^column 'checkpoint' takes 6 values within agent 'A2C' on seed '0' "
                                          r"\(6 rows\), each once"):
        rlstats.compare(cartpole, "score ~ agent | seed")


@pytest.mark.parametrize("what, data", [
    ("a column unique to each run (a wall time)", ACROBOT.assign(wall_time=[1.5, 2.5, 3.5, 4.5, 5.5, 6.5])),
    ("one row per run, steps of their own", ACROBOT.assign(ckpt=[20_000, 19_000, 20_000, 20_000, 18_000, 20_000])),
])
def test_columns_that_are_not_steps_pass(what, data):
    assert rlstats.compare(data.drop(columns="worker"), "score ~ agent | seed").pvalue == 0.5


def test_a_column_named_as_the_tasks_is_refused_between_agents_too():
    """Each agent's runs of a block at one level, but the column named as the tasks (design.TASK_NAMES): seed 2's
    block would rank A2C's run on one level against PPO's on the other (audit s32 fin32a's 'task' too)."""
    with pytest.raises(DesignError, match=r"column 'env' \(2 levels\) takes several values within its blocks: seed 2 "
                                          r"holds runs of '30368' and '30369'.*'score ~ agent \| env/seed'"):
        rlstats.compare(ACROBOT.rename(columns={"worker": "env"}), "score ~ agent | seed")


def test_a_host_varying_within_an_agents_runs_of_a_block_stays_refused():
    """Where an agent has several runs in one block on several hosts the data cannot tell the host from a task: the
    refusal stands, with pooling on purpose offered; pool_tasks=True says what it pooled."""
    batches = pd.DataFrame({"agent": ["a"] * 4 + ["b"] * 4, "batch": [1, 1, 2, 2] * 2, "host": ["x", "y"] * 4,
                            "score": [1.0, 2.0, 3.0, 4.0, 2.5, 3.5, 4.5, 5.5]})
    with pytest.raises(DesignError, match=r"column 'host' \(2 levels\).*batch 1 holds runs of 'x' and 'y'.*if 'host' "
                                          r"does not set the scores' scale \(it numbers batches or hosts, say\), pool "
                                          r"it within the blocks on purpose"):
        rlstats.compare(batches, "score ~ agent | batch")
    res = rlstats.compare(rlstats.build(batches, "score ~ agent | batch", pool_tasks=True), "score ~ agent | batch")
    assert "runs of 2 levels of 'host' pooled within each 'batch' block (pool_tasks=True)" in str(res)
    # b's two runs above a's in both batches: of the 6 x 6 = 36 within-batch arrangements, 2 are as extreme (b's runs
    # on top in both batches, or a's): p = 2/36
    assert res.pvalue == pytest.approx(2 / 36, abs=1e-12)


def test_curves_named_step_over_several_tasks_name_the_task_column():
    """A column named as a step ('step') in seed blocks pooling two tasks named 'env': the curves' ways on, said as of
    a step (not "rising ... shared by"), each run named by its env and seed."""
    curves = _curves(tasks=2, name="step").rename(columns={"task": "env"})
    with pytest.raises(DesignError) as info:
        rlstats.compare(curves, "score ~ agent | seed")
    message = str(info.value)
    assert message.startswith("column 'step' takes 4 values within agent 'agent_1' on seed '0' (8 rows), so the rows")
    assert "name them after 'env', the tasks." in message
    assert "rlstats.summarize_runs(df, 'score ~ agent | env/seed', step='step')" in message
    assert "groupby(['agent', 'env', 'seed']).tail(1)" in message
    assert "If 'step' is not a training step, rename or drop it" in message


def test_nested_replicates_with_a_checkpoint_are_refused_before_the_means():
    """'| seed/run/rep' averages each run's rows: a checkpoint varying within an agent's runs of a seed block is
    refused there (design32's refusal), never averaged over."""
    curves = _curves().assign(run=lambda d: d["seed"], rep=0)
    with pytest.raises(DesignError, match=r"column 'checkpoint' \(4 levels\) takes several values within its blocks"):
        rlstats.compare(curves, "score ~ agent | seed/run/rep")


@pytest.mark.parametrize("formula", ["score ~ agent | task/seed", "score ~ agent | task"])
def test_a_checkpoint_within_the_runs_of_task_blocks_gets_the_curves_ways_on(formula):
    """'| task' counted the 48 curve rows as runs unsaid (p = 0.9390); '| task/seed' said the seed repeats and to
    drop '/seed', which gave that. The seed names the runs: each holds 4 rows rising on steps shared by 12 runs."""
    with pytest.raises(DesignError) as info:
        rlstats.compare(_curves(tasks=2), formula)
    message = str(info.value)
    assert message.startswith("column 'checkpoint' takes 4 values within run seed=0 of agent 'agent_1' on task "
                              "'task_01' (4 rows), each once, on values shared by 12 runs")
    assert "rlstats.curves(df, 'score ~ agent | task/seed', step='checkpoint')" in message
    assert "If 'checkpoint' numbers tasks or settings, not steps, block on it: 'score ~ agent | task:checkpoint'" \
           in message
    # that way on is taken as written: each task's checkpoint a block of the agents' 3 runs
    assert rlstats.compare(_curves(tasks=2), "score ~ agent | task:checkpoint").nobs == 48


@pytest.mark.parametrize("scale", [1, 1e-6])
def test_a_checkpoint_without_blocks_gets_the_curves_ways_on(scale):
    curves = _curves()
    curves["checkpoint"] = curves["checkpoint"] * scale
    with pytest.raises(DesignError) as info:
        rlstats.compare(curves, "score ~ agent")
    message = str(info.value)
    assert message.startswith("column 'checkpoint' takes 4 values within run seed=0 of agent 'agent_1' (4 rows), "
                              "each once, on values shared by 6 runs")
    assert "rlstats.summarize_runs(df, 'score ~ agent | task/seed', step='checkpoint')" in message
    assert "If 'checkpoint' numbers tasks or settings, not steps, block on it: 'score ~ agent | checkpoint'" in message
