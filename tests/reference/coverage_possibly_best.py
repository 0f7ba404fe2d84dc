"""Coverage of task_table's possibly-best set: the ``task_table.possibly_best`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only task_table.possibly_best [--jobs 2] [--quick]

(or this script with the same options). For each test, number of agents (2, 3, 5, 8), runs per agent (2, 3, 5, 10,
20), score distribution (normal; skewed: a shifted Exp(1), skewness 2; capped: normal scores cut at the best agents'
mean, so half of their runs tie at the cap) and configuration of the true means (all equal, the least favourable;
one best with the others spread from 0.5 to 1 SD lower; two tied best with the others spread from 0.5 to 1 SD
lower), it simulates one data set whose tasks are the independent replicates, runs ``rlstats.task_table`` on it with
its defaults (Holm, alpha = 0.05, n_resamples = 10,000) and counts the tasks whose set holds every truly best agent,
one row per grid point (with the binomial standard error and the mean size of the set); the result quotes a row
where its coverage is below 0.95 by more than 3 standard errors at the nominal level.
"""

from __future__ import annotations

import itertools
import math
import pathlib
import runpy

import numpy as np
import pandas as pd

import rlstats

TESTS = ("welch", "mannwhitney", "brunnermunzel", "fisher_pitman")
AGENTS = (2, 3, 5, 8)
RUNS = (2, 3, 5, 10, 20)
DISTRIBUTIONS = ("normal", "skewed", "capped")
CONFIGURATIONS = ("all_equal", "one_best", "two_best")


def true_means(agents, configuration):
    """The agents' true means: the best at 0, the others spread from 0.5 to 1 SD below (none when all equal)."""
    tied = {"all_equal": agents, "one_best": 1, "two_best": 2}[configuration]
    return np.r_[np.zeros(tied), -np.linspace(0.5, 1.0, agents - tied)]


def simulate(means, runs, n_sim, distribution, rng):
    """Long frame of ``n_sim`` tasks (the replicates) x agents x runs: unit-variance noise around each mean."""
    shape = (n_sim, means.size, runs)
    noise = rng.exponential(1.0, shape) - 1.0 if distribution == "skewed" else rng.normal(0.0, 1.0, shape)
    scores = means[None, :, None] + noise
    if distribution == "capped":
        scores = np.minimum(scores, means.max())
    task, agent, seed = np.meshgrid(np.arange(n_sim), np.arange(means.size), np.arange(runs), indexing="ij")
    return pd.DataFrame({"task": [f"t{t:04d}" for t in task.ravel()], "agent": [f"a{a}" for a in agent.ravel()],
                         "seed": seed.ravel(), "score": scores.ravel()})


def measure(test, agents, runs, distribution, configuration, n_sim, n_resamples=10_000, seed=0):
    """One grid point: the share of tasks whose possibly-best set holds every truly best agent."""
    key = [seed, TESTS.index(test), agents, runs, DISTRIBUTIONS.index(distribution),
           CONFIGURATIONS.index(configuration)]
    data_seed, test_seed = np.random.SeedSequence(key).spawn(2)
    means = true_means(agents, configuration)
    data = simulate(means, runs, n_sim, distribution, np.random.default_rng(data_seed))
    res = rlstats.task_table(data, "score ~ agent | task/seed", test=test, n_resamples=n_resamples, rng=test_seed)
    truly_best = np.array([res.agents.index(f"a{a}") for a in np.flatnonzero(means == means.max())])
    held = res.possibly_best[:, truly_best].all(axis=1)
    coverage = float(held.mean())
    return {"test": test, "agents": agents, "runs": runs, "distribution": distribution,
            "configuration": configuration, "n_sim": n_sim, "n_resamples": n_resamples, "coverage": coverage,
            "se": math.sqrt(coverage * (1 - coverage) / n_sim),
            "set_size": float(res.possibly_best.sum(axis=1).mean())}


def grid(quick=False, tests=TESTS, agents=AGENTS, runs=RUNS):
    """Every test, agents, runs, distribution and configuration; --quick: 2 and 5 agents at 3 and 10 runs."""
    if quick:
        agents, runs = (2, 5), (3, 10)
    return [(test, k, r, dist, config) for test, k, r, dist, config
            in itertools.product(tests, agents, runs, DISTRIBUTIONS, CONFIGURATIONS)
            if not (config == "two_best" and k == 2)]


PROCEDURE, LEVEL = "task_table.possibly_best", 0.95
#: simulated tasks per grid point: the table's, and --quick's
SIMULATIONS = (800, 200)


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return [measure(*point, n_sim, n_resamples=2_000 if quick else 10_000)]


if __name__ == "__main__":
    runpy.run_path(str(pathlib.Path(__file__).with_name("calibrate.py")))["run_alone"](PROCEDURE)
