"""Audit s38 (sm38): the rank test's chi-squared p-value measured on the designs RL papers have (3-8 agents x 3-50
tasks x 1, 2, 3, 5, 10 and 20 runs per cell, untied and tied scores; ``tests/reference/chi_squared_size_grid.py``),
so that its printed reason no longer says "not measured" of every design of more than 3 runs per cell."""

from __future__ import annotations

import pathlib
import runpy
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.skillings_mack import _kernels

SCRIPT = pathlib.Path(__file__).parent / "reference" / "chi_squared_size_grid.py"


def _grid():
    return runpy.run_path(str(SCRIPT))


def _balanced(agents, tasks, runs, scores=None, seed=0):
    """Every agent ``runs`` times on every task (rows task-major, then agent, then run, as the script lays them)."""
    t, a, s = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    y = np.random.default_rng(seed).normal(size=t.size) if scores is None else np.ravel(scores)
    return pd.DataFrame({"task": [f"t{i:02d}" for i in t.ravel()], "agent": [f"a{i}" for i in a.ravel()],
                         "seed": s.ravel(), "score": y})


def _rule(agents, tasks, runs, frame=None):
    frame = _balanced(agents, tasks, runs) if frame is None else frame
    res = rlstats.skillings_mack(frame, "score ~ agent | task" + ("/seed" if runs > 1 else ""), progress=False)
    assert res.pvalue_method == "asymptotic"
    return res.pvalue_rule


def test_atari_designs_are_among_those_measured():
    """The new user's designs (4 agents x 6 tasks x 10 runs; Atari 100k's 26 tasks at 5 and 10 seeds) are on the
    grid; 7 runs lies within it, 9 agents outside; the quoted maximum is the table's."""
    for agents, tasks, runs in ((4, 6, 10), (5, 26, 5), (3, 26, 10)):
        said = _rule(agents, tasks, runs)
        assert f"this design, {agents} agents x {tasks} tasks x {runs} runs per cell, is one of those measured" in said
        assert "not measured" not in said
        assert f"at most {_kernels._SIZE_MEASURED}" in said and "3-8 agents x 3-50 tasks x 1-20 runs" in said
    assert "4 agents x 6 tasks x 7 runs per cell, lies within that range but was not itself measured" \
        in _rule(4, 6, 7)
    assert "9 agents x 6 tasks x 2 runs per cell, lies outside that range: its size there was not measured" \
        in _rule(9, 6, 2)


def test_size_grid_is_the_scripts_and_its_maximum_the_tables():
    """``_SIZE_GRID`` names the script's designs, the table holds every one of them where the rule takes chi-squared,
    and ``_SIZE_MEASURED`` is its largest size (over the families): 0.0522, none more than 3 SE above 0.05."""
    grid = _grid()
    assert _kernels._SIZE_GRID == {"agents": grid["AGENTS"], "tasks": grid["TASKS"], "runs": grid["RUNS"]}
    table = grid["read_table"]()
    assert sorted(table) == sorted(grid["designs"]())
    largest = max(size for row in table.values() for size, _ in row.values())
    assert _kernels._SIZE_MEASURED == largest == 0.0522
    assert all(size - 0.05 <= 3 * np.sqrt(0.05 * 0.95 / b) for row in table.values() for size, b in row.values())


def test_vectorised_statistic_is_the_packages():
    """The script's statistics (mid-ranks of a shared permutation, R's tie factor at one run per cell) are
    rlstats.skillings_mack's on the same scores, for each family: checked on one data set each of two designs."""
    grid = _grid()
    for agents, tasks, runs in ((4, 6, 10), (6, 5, 1)):
        setup = grid["setup_of"](agents, tasks, runs)
        rng = np.random.default_rng([38, agents, tasks, runs])
        ranks = rng.permuted(np.broadcast_to(np.arange(1, agents * runs + 1, dtype=np.int16),
                                             (1, tasks, agents * runs)), axis=-1)
        for family, pattern in grid["FAMILIES"].items():
            mid, tie_sum = (ranks.astype(float), None) if pattern is None else grid["tied"](ranks, pattern, rng)
            expected = grid["statistics"](setup, runs, mid, tie_sum)[0]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the ties' notes
                res = rlstats.skillings_mack(_balanced(agents, tasks, runs, mid[0]),
                                             "score ~ agent | task" + ("/seed" if runs > 1 else ""), progress=False)
            assert res.statistic == pytest.approx(expected, rel=1e-9), family


@pytest.mark.slow
@pytest.mark.parametrize("point", [(3, 8, 2), (4, 6, 10), (8, 10, 10), (5, 26, 5), (6, 3, 1)])
def test_grid_points_measured_again(point):
    """A few of the table's designs measured again from their seeds: the same sizes, to the permutation."""
    grid = _grid()
    measured = grid["measure"](point)
    recorded = grid["read_table"]()[point]
    for family, (hits, permutations) in measured.items():
        assert (float(f"{hits / permutations:.4f}"), permutations) == recorded[family]
        assert hits / permutations <= _kernels._SIZE_MEASURED
