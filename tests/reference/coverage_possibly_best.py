"""Coverage of task_table's possibly-best set: the ``task_table.possibly_best`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only task_table.possibly_best [--jobs 2] [--quick]

(or this script with the same options). For each test, number of agents, runs per agent (2, 3, 5, 10, 20), score
distribution (the four of ``designs.py``: normal, skewed, heavy_tailed, capped, whose ceiling a third of the best
agents' runs hit; since audit s10 saturated too, 85% at the ceiling, for the default test at 3, 5 and 10 runs) and
configuration of the true means (all equal, the least favourable; one best with the others
spread from 0.5 to 1 SD lower; two tied best with the others spread from 0.5 to 1 SD lower), it simulates data sets
whose tasks are the independent replicates, runs ``rlstats.task_table`` on them with its defaults (Holm, alpha =
0.05) and counts the tasks whose set holds every truly best agent, one row per grid point (pooled over
``DESIGN_DRAWS`` design draws, ``coverage_min`` the lowest, with the mean size of the set). The tasks of a design
draw cycle through the offsets and scales of Atari-100k's 26 games (``designs.design_draw(draw, 26)``); the tests
compare agents within a task, which its offset and scale do not change, so the draws differ only in their data.

The default test (Welch) is measured at 2, 3 and 8 agents in every configuration; the other tests in the least
favourable one (all agents equal: every agent is truly best; the other configurations covered at least 0.97 in
every earlier measurement) at 2 and 8 agents. Permutation p-values use 2,000 resamples in place of the default
10,000: (1 + b) / (1 + B) is a valid p-value at any B, so the set's coverage moves only by the Monte Carlo error of a
p-value near its threshold. The result quotes a row where its coverage is below 0.95 by more than 3 standard errors
at the nominal level, pooled or in its worst design draw.
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np
import pandas as pd

import rlstats

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
TESTS = ("welch", "mannwhitney", "brunnermunzel", "fisher_pitman")
DEFAULT_TEST = "welch"
AGENTS = {"welch": (2, 3, 8), "other": (2, 8)}
RUNS = (2,) + DESIGNS["RUNS"]
DISTRIBUTIONS = DESIGNS["DISTRIBUTIONS"]
#: the seeds' index of a distribution: the saturated family (85% of the runs at the cap) follows the four, so their
#: draws are unchanged; measured for the default test at 3, 5 and 10 runs (audit s10), its rows after the others
SEEDED = DISTRIBUTIONS + DESIGNS["EXTRA_DISTRIBUTIONS"]
SATURATED_RUNS = (3, 5, 10)
CONFIGURATIONS = ("all_equal", "one_best", "two_best")
#: the tasks a design draw gives offsets and scales to (the simulated tasks cycle through them)
DRAW_TASKS = 26
#: permutation resamples per test (see above); the default is 10,000
N_RESAMPLES = 2_000


def true_means(agents, configuration):
    """The agents' true means: the best at 0, the others spread from 0.5 to 1 SD below (none when all equal)."""
    tied = {"all_equal": agents, "one_best": 1, "two_best": 2}[configuration]
    return np.r_[np.zeros(tied), -np.linspace(0.5, 1.0, agents - tied)]


def simulate(means, runs, n_sim, distribution, rng, draw=0):
    """Long frame of ``n_sim`` tasks (the replicates) x agents x runs: each agent's mean plus deviations of
    ``distribution`` (capped at the task's ceiling), on the offsets and scales of design draw ``draw``."""
    offset, scale = DESIGNS["design_draw"](draw, DRAW_TASKS)
    cycle = np.arange(n_sim) % DRAW_TASKS
    deviation = DESIGNS["deviations"](rng, distribution, (n_sim, means.size, runs))
    scores = DESIGNS["scores"](distribution, deviation, means[None, :, None], offset[cycle, None, None],
                               scale[cycle, None, None])
    task, agent, seed = np.meshgrid(np.arange(n_sim), np.arange(means.size), np.arange(runs), indexing="ij")
    return pd.DataFrame({"task": [f"t{t:04d}" for t in task.ravel()], "agent": [f"a{a}" for a in agent.ravel()],
                         "seed": seed.ravel(), "score": scores.ravel()})


def measure(test, agents, runs, distribution, configuration, n_sim, n_resamples=N_RESAMPLES, seed=0):
    """One grid point: the share of tasks (``n_sim`` over all draws) whose possibly-best set holds every truly best
    agent."""
    draws = DESIGNS["DESIGN_DRAWS"]
    means = true_means(agents, configuration)
    held, sizes = [], []
    for draw in range(draws):
        key = [seed, TESTS.index(test), agents, runs, SEEDED.index(distribution),
               CONFIGURATIONS.index(configuration), draw]
        data_seed, test_seed = np.random.SeedSequence(key).spawn(2)
        data = simulate(means, runs, -(-n_sim // draws), distribution, np.random.default_rng(data_seed), draw)
        res = rlstats.task_table(data, "score ~ agent | task/seed", test=test, n_resamples=n_resamples,
                                 rng=test_seed)
        truly_best = np.array([res.agents.index(f"a{a}") for a in np.flatnonzero(means == means.max())])
        held.append(res.possibly_best[:, truly_best].all(axis=1))
        sizes.append(res.possibly_best.sum(axis=1))
    return {"test": test, "agents": agents, "runs": runs, "distribution": distribution,
            "configuration": configuration, "n_resamples": n_resamples,
            **DESIGNS["pooled_row"](held, 1 - 0.05), "set_size": float(np.concatenate(sizes).mean())}


def grid(quick=False, tests=TESTS, runs=RUNS):
    """(test, agents, runs, distribution, configuration): the default test in every configuration at 2, 3 and 8
    agents, the others all equal at 2 and 8; --quick: Welch at 2 and 8 agents and 3 and 10 runs, all equal."""
    if quick:
        return DESIGNS["grid"]((DEFAULT_TEST,), (2, 8), (3, 10), DISTRIBUTIONS, ("all_equal",))
    points = []
    for test in tests:
        default = test == DEFAULT_TEST
        configurations = CONFIGURATIONS if default else CONFIGURATIONS[:1]
        points += [(test, k, r, dist, config) for test, k, r, dist, config in DESIGNS["grid"](
            (test,), AGENTS["welch" if default else "other"], runs, DISTRIBUTIONS, configurations)
            if not (config == "two_best" and k == 2)]
    if DEFAULT_TEST in tests:  # audit s10: saturated scores, the default test, after the grid's own points
        points += [(test, k, r, dist, config) for test, k, r, dist, config in DESIGNS["grid"](
            (DEFAULT_TEST,), AGENTS["welch"], SATURATED_RUNS, ("saturated",), CONFIGURATIONS)
            if not (config == "two_best" and k == 2)]
    return points


PROCEDURE, LEVEL = "task_table.possibly_best", 0.95
#: simulated tasks per grid point over all design draws: the table's, and --quick's
SIMULATIONS = (320, 120)


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return [measure(*point, n_sim)]


if __name__ == "__main__":
    runpy.run_path(str(pathlib.Path(__file__).with_name("calibrate.py")))["run_alone"](PROCEDURE)
