"""Everything ``statistics.copied_runs`` returns, and the notes on copied runs ``build`` prints, on every dataset of
runs the loader offers (the frames of ``copied_across_survey.py``) and on synthetic frames holding copies of every
kind (within a cell, across tasks, a task read twice; scores at 0 to 8 decimals, coarse and fine, caps): printed
exactly (floats as ``float.hex``), so that a refactor of the detection is checked bit for bit by diffing the output
before and after (audit s27, copies27).

    RLSTATS_DATA_MIRROR=/work/shared/data/raw PYTHONPATH=. python tests/reference/copied_runs_dump.py > before.txt
    ... change the code ...
    RLSTATS_DATA_MIRROR=/work/shared/data/raw PYTHONPATH=. python tests/reference/copied_runs_dump.py > after.txt
    diff before.txt after.txt

``--synthetic`` prints the synthetic frames only (no mirror needed).
"""

import pathlib
import runpy
import sys

import numpy as np
import pandas as pd

import rlstats
from rlstats.design import COPIED_ACROSS, COPIED_RUNS
from rlstats.statistics import copied_runs


def _exact(values):
    return " ".join(float(x).hex() for x in np.asarray(values, dtype=float).ravel())


def _dump(name, values, cell, n_cells, block, agent):
    copies, chance, across = copied_runs(values, cell, n_cells, block, across_blocks=True, agent=agent)
    print(f"== {name}: {len(values)} runs, {n_cells} cells")
    print("copies", np.flatnonzero(copies).tolist(), copies[copies > 0].tolist())
    print("chance", _exact(chance[np.isfinite(chance)]))
    alone = np.ones(across.first.size, dtype=bool)  # before s27 the pairs said jointly were left out by the note
    if across.tasks is not None:
        joint = set(zip(across.tasks.first.tolist(), across.tasks.second.tolist()))
        alone = np.array([not (agent[a] == agent[b] and (min(block[a], block[b]), max(block[a], block[b])) in joint)
                          for a, b in zip(across.first, across.second)], dtype=bool)
    for field in ("first", "second", "shared", "runs_first", "runs_second"):
        print("across", field, getattr(across, field)[alone].tolist())
    print("across chance", _exact(across.chance[alone]))
    if across.tasks is not None:
        for field in ("first", "second", "cells", "agents", "shared", "alone"):
            print("tasks", field, getattr(across.tasks, field).tolist())
        print("tasks chance", _exact(across.tasks.chance))
    if across.same_block is not None and across.same_block.first.size:  # s28: two agents' runs on one task
        for field in ("first", "second", "shared", "runs_first", "runs_second"):
            print("same block", field, getattr(across.same_block, field).tolist())
        print("same block chance", _exact(across.same_block.chance))


def _synthetic():
    """Frames of tasks x agents x runs at a few decimals, with copies of each kind written in (seeded)."""
    for seed in range(160):
        rng = np.random.default_rng(seed)
        n_tasks, n_agents, n_runs = int(rng.integers(2, 9)), int(rng.integers(2, 6)), int(rng.choice([3, 5, 10, 30]))
        decimals = int(rng.choice([0, 1, 2, 3, 6, 8]))
        kind = ["normal", "skewed", "capped", "lattice"][seed % 4]
        shape = (n_tasks, n_agents, n_runs)
        if kind == "normal":
            y = rng.normal(100, 30, shape)
        elif kind == "skewed":
            y = rng.lognormal(3, 1, shape)
        elif kind == "capped":
            y = np.minimum(rng.normal(80, 30, shape), 100.0)
        else:
            y = rng.integers(0, 50, shape + (int(rng.choice([5, 75])),)).mean(axis=-1)
        y = np.round(y, decimals)
        what = seed % 6
        k = max(2, n_runs // 2)
        if what == 1:  # within a cell: k runs repeated
            y[0, 0, :k] = y[0, 0, -k:]
        elif what == 2:  # across tasks: a cell copied (partly) to another task
            y[1, 0, :k] = y[0, 0, :k]
        elif what == 3:  # a task read twice
            y[1] = y[0]
        elif what == 4:  # a task read twice, partly, and a cell copied whole across tasks
            y[1, :, :2] = y[0, :, :2]
            y[-1, -1] = y[0, 0]
        elif what == 5 and n_runs >= 9:  # within a cell: a block of 3 runs read three times
            y[0, 0, 3:6] = y[0, 0, 6:9] = y[0, 0, :3]
        cell = np.repeat(np.arange(n_tasks * n_agents), n_runs)
        block = np.arange(n_tasks * n_agents) // n_agents
        order = rng.permutation(cell.size)
        _dump(f"synthetic {seed} {kind} {decimals} decimals, {shape}, copy kind {what}", y.ravel()[order],
              cell[order], n_tasks * n_agents, block, np.arange(n_tasks * n_agents) % n_agents)
        frame = pd.DataFrame({"task": [f"t{i}" for i in block[cell]], "agent": [f"a{i}" for i in cell % n_agents],
                              "score": y.ravel()})
        _notes(rlstats.build(frame, "score ~ agent | task"))


def _notes(design):
    for note in design.notes:
        if COPIED_ACROSS in note or COPIED_RUNS in note or "read twice" in note:
            print("note:", note)


def _published():
    # the sibling script read by its path, as the other reference scripts read theirs (runpy): no module to import
    frames = runpy.run_path(str(pathlib.Path(__file__).with_name("copied_across_survey.py")))["_frames"]
    for name, frame, formula in frames():
        try:
            design = rlstats.build(frame, formula, na_action="drop")
        except rlstats.RlstatsError as exc:
            if "repeat another row in every column" not in str(exc):
                raise
            name, frame = f"{name} (rows repeated whole dropped)", frame.drop_duplicates()
            design = rlstats.build(frame, formula, na_action="drop")
        n_agents = design.n_agents
        values = frame[design.formula.response_columns[0]].to_numpy(dtype=float)[design.row_position]
        n_cells = design.n_tasks * n_agents
        _dump(name, values, design.task * n_agents + design.agent, n_cells, np.arange(n_cells) // n_agents,
              np.arange(n_cells) % n_agents)
        _notes(design)


if __name__ == "__main__":
    _synthetic()
    if "--synthetic" not in sys.argv:
        _published()
