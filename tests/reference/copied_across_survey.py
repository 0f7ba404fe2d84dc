"""Which published datasets raise the notes on copied runs (audit s26, across26), within cells and across tasks.

Every dataset of runs that ``rlstats.datasets`` loads (the reference tables of random and human scores hold no runs)
is built as a user would (``score ~ agent | task`` or its equivalent; learning curves by their last evaluation, and
by every evaluation step read as a task of its own, where a run's scores at successive steps are the likeliest to
repeat across "tasks" by chance); for each, the within-cell counts of ``statistics.copied_runs`` ("before": all
that was looked for until s26) and the pairs of cells of different tasks it now finds, with the most improbable
chance bound, the pairs of tasks judged jointly over their agents (s26, copies26b: ``agent=``), and the seconds
``copied_runs`` took; and (s28, copies28) the pairs of agents on one task whose runs share scores improbably
(``same_block``), also over the files beside the mirror: ``mujoco_batches.csv`` and the Stable-Baselines3 logs
(CartPole-v1's return capped at 500, Acrobot-v1's integer returns; by their last evaluation and by each evaluation
step read as a task).  Reads the mirror (``RLSTATS_DATA_MIRROR``) and its parent folder.

Measured in s28: pairs of agents on one task noted in two datasets only, both holding the same runs under two
names: hpo_landscapes read as ``landscape | config`` (65 configurations, its two byte-identical landscape files as
two "agents") and hpo_optimisation (the untuned baseline 'hpo=base, rpo=base' listed under both objectives, the
same 10 runs on 5 of 7 settings); none in atari100k (raw or normalised), mujoco_adastop, mujoco_batches.csv,
halfcheetah_sac_td3, dopamine_atari, spinningup_halfcheetah or the SB3 logs; the other columns as before.

    RLSTATS_DATA_MIRROR=/work/shared/data/raw PYTHONPATH=. python tests/reference/copied_across_survey.py
"""

import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

import rlstats
from rlstats.statistics import copied_runs


def _frames():
    load = rlstats.datasets.load
    atari = load("atari100k")
    yield "atari100k", atari, "score ~ agent | task"
    ref = load("atari100k_reference")
    yield "atari100k normalised before the call", rlstats.normalize(atari, ref), "score ~ agent | task"
    yield "mujoco_adastop", load("mujoco_adastop"), "score ~ agent | task"
    yield "halfcheetah_sac_td3 (one task)", load("halfcheetah_sac_td3"), "score ~ agent"
    dopamine = load("dopamine_atari")
    yield "dopamine_atari, last iteration", dopamine[dopamine["step"] == dopamine["step"].max()], "score ~ agent | task"
    yield ("dopamine_atari, each iteration a task", dopamine.assign(task=dopamine["task"] + " @ "
                                                                     + dopamine["step"].astype(str)),
           "score ~ agent | task")
    spinning = load("spinningup_halfcheetah")
    last = spinning[spinning["step"] == spinning["step"].max()]
    yield "spinningup_halfcheetah, last step (one task)", last, "score ~ agent"
    yield ("spinningup_halfcheetah, each step a task", spinning.assign(task=spinning["step"].astype(str)),
           "score ~ agent | task")
    land = load("hpo_landscapes")
    yield "hpo_landscapes, config | landscape", land, "score ~ config | landscape"
    yield ("hpo_landscapes, landscape | config", land.assign(config=land["config"].astype(str)),
           "score ~ landscape | config")
    opt = load("hpo_optimisation")
    yield ("hpo_optimisation, procedure | algorithm x task",
           opt.assign(setting=opt["algorithm"] + " " + opt["suite"] + " " + opt["task"]), "score ~ procedure | setting")
    shared = Path(os.environ.get("RLSTATS_DATA_MIRROR", "raw")).parent
    if (shared / "mujoco_batches.csv").is_file():
        yield "mujoco_batches.csv", pd.read_csv(shared / "mujoco_batches.csv"), "score ~ agent | task"
    logs = shared / "logs" / "sb3_classic"
    if logs.is_dir():
        for fmt, tags in (("tensorboard", {"eval/mean_reward": "score"}), ("sb3_eval", None)):
            runs = rlstats.read_logs(logs, "{agent}/{task}/seed_{seed}", format=fmt, progress=False,
                                     **({"tags": tags} if tags else {})).rename(columns={"eval/mean_reward": "score"})
            last = runs[runs["step"] == runs.groupby("task")["step"].transform("max")]
            yield f"sb3_classic {fmt}, last evaluation", last, "score ~ agent | task"
            yield (f"sb3_classic {fmt}, each evaluation a task",
                   runs.assign(task=runs["task"] + " @ " + runs["step"].astype(str)), "score ~ agent | task")


def survey():
    rows = []
    for name, frame, formula in _frames():
        try:
            design = rlstats.build(frame, formula, na_action="drop")
        except rlstats.RlstatsError as exc:  # rows repeated whole: build refuses them; dropped as its message says
            if "repeat another row in every column" not in str(exc):
                raise
            name, frame = f"{name} (rows repeated whole dropped)", frame.drop_duplicates()
            design = rlstats.build(frame, formula, na_action="drop")
        n_agents = design.n_agents
        column = design.formula.response_columns[0]
        values = frame[column].to_numpy(dtype=float)[design.row_position]
        start = time.process_time()
        copies, chance, across = copied_runs(values, design.task * n_agents + design.agent,
                                             design.n_tasks * n_agents,
                                             np.arange(design.n_tasks * n_agents) // n_agents, across_blocks=True,
                                             agent=np.arange(design.n_tasks * n_agents) % n_agents)
        seconds = time.process_time() - start
        pairs = [f"{design.agents[a % n_agents]}@{design.tasks[a // n_agents]} ~ "
                 f"{design.agents[b % n_agents]}@{design.tasks[b // n_agents]}: {m} shared"
                 for a, b, m in zip(across.first, across.second, across.shared)]
        tasks, same = across.tasks, across.same_block
        agents = [] if same is None else [
            f"{design.agents[a % n_agents]} ~ {design.agents[b % n_agents]}@{design.tasks[a // n_agents]}: {m} shared, "
            f"chance {p:.1g}" for a, b, m, p in zip(same.first, same.second, same.shared, same.chance)]
        joint = [] if tasks is None else [
            f"{design.tasks[a]} ~ {design.tasks[b]}: {k} of {n} agents, {m} shared, chance {p:.1g}"
            for a, b, k, n, m, p in zip(tasks.first, tasks.second, tasks.cells, tasks.agents, tasks.shared,
                                        tasks.chance)]
        rows.append({"data": name, "runs": len(values), "cells": design.n_tasks * n_agents,
                     "within cells": int((copies > 0).sum()), "runs within": int(copies.sum()),
                     "pairs across tasks": len(pairs), "smallest chance across": float(across.chance.min())
                     if len(pairs) else np.nan, "cpu s": round(seconds, 2), "pairs": "; ".join(pairs[:6]),
                     "pairs of tasks (joint)": "; ".join(joint[:6]), "pairs of agents (same task)": len(agents),
                     "agents": "; ".join(agents[:6])})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    with pd.option_context("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 120):
        print(survey())
