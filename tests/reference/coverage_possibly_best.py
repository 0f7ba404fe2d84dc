"""Coverage of task_table's possibly-best set: the source of ``rlstats/methods/task_table/calibration.csv``.

    PYTHONPATH=. python tests/reference/coverage_possibly_best.py [--simulations 400] [--n-jobs 1] [--out PATH]

For each test, number of agents (2, 3, 5, 8), runs per agent (2, 3, 5, 10, 20), score distribution (normal;
skewed: a shifted Exp(1), skewness 2; capped: normal scores cut at the best agents' mean, so half of their runs
tie at the cap) and configuration of the true means (all equal, the least favourable; one best with the others
spread from 0.5 to 1 SD lower; two tied best with the others spread from 0.5 to 1 SD lower), it simulates one data
set whose tasks are the independent replicates, runs ``rlstats.task_table`` on it with its defaults (Holm,
alpha = 0.05, n_resamples = 10,000) and counts the tasks whose set holds every truly best agent. It prints the
lowest coverage per test, agents and runs, and writes one row per grid point (with the binomial standard error
and the mean size of the set) to ``--out``; the result quotes a row where its coverage is below 0.95 by more than
3 standard errors at the nominal level.
"""

from __future__ import annotations

import argparse
import itertools
import math
import pathlib
import time

import numpy as np
import pandas as pd

import rlstats

TESTS = ("welch", "mannwhitney", "brunnermunzel", "permutation")
AGENTS = (2, 3, 5, 8)
RUNS = (2, 3, 5, 10, 20)
DISTRIBUTIONS = ("normal", "skewed", "capped")
CONFIGURATIONS = ("all_equal", "one_best", "two_best")
OUT = pathlib.Path(__file__).resolve().parents[2] / "rlstats" / "methods" / "task_table" / "calibration.csv"
COLUMNS = ["test", "agents", "runs", "distribution", "configuration", "n_sim", "n_resamples", "coverage", "se",
           "set_size"]


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


def grid(tests=TESTS, agents=AGENTS, runs=RUNS):
    return [(test, k, r, dist, config) for test, k, r, dist, config
            in itertools.product(tests, agents, runs, DISTRIBUTIONS, CONFIGURATIONS)
            if not (config == "two_best" and k == 2)]


def main():
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, default=400, help="simulated tasks per grid point")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--tests", default=",".join(TESTS))
    parser.add_argument("--n-resamples", type=int, default=10_000)
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    args = parser.parse_args()
    points = grid(tests=tuple(args.tests.split(",")))
    start = time.time()
    jobs = (delayed(measure)(*point, args.simulations, args.n_resamples) for point in points)
    rows = list(tqdm(Parallel(n_jobs=args.n_jobs, return_as="generator")(jobs), total=len(points),
                     desc="grid points"))
    table = pd.DataFrame(rows, columns=COLUMNS).sort_values(["test", "agents", "runs", "distribution",
                                                             "configuration"])
    table.to_csv(args.out, index=False, float_format="%.6g")
    lowest = table.loc[table.groupby(["test", "agents", "runs"])["coverage"].idxmin()]
    threshold = 0.95 - 3 * math.sqrt(0.05 * 0.95 / args.simulations)
    print(f"# lowest coverage over distributions and configurations ({args.simulations} simulated tasks per point, "
          f"flagged below {threshold:.3f}); {time.time() - start:.0f} s")
    for _, row in lowest.iterrows():
        flag = " <" if row["coverage"] < threshold else ""
        print(f"{row['test']:14s} agents {row['agents']}  runs {row['runs']:2d}  {row['coverage']:.3f} "
              f"({row['distribution']}, {row['configuration']}){flag}")
    print(f"# wrote {args.out}")


if __name__ == "__main__":
    main()
