"""Coverage of bootstrap(task_bootstrap=True) on few tasks, for a population of tasks (audit s28 design28).

Each data set: n tasks whose true means are drawn N(0, 1), 5 runs per task of N(task mean, 0.3) for each of two
agents; the estimand is the mean over the population of tasks, 0. A nominal 95% interval of agent A's mean, median
and IQM from ``rlstats.bootstrap(..., task_bootstrap=True)`` (percentile, 1,000 resamples) covers it or not; also
printed: how often the n true task means straddle 0, against the closed form 1 - 2^(1 - n).

    python tests/reference/task_bootstrap_few_tasks.py           # 200 data sets at 2, 3, 5 and 10 tasks
    python tests/reference/task_bootstrap_few_tasks.py --quick   # 40 data sets at 2 tasks: a smoke run

Measured with rlstats 0.2.0.dev0 (200 data sets a design), quoted in ``bootstrap._small_runs.tasks_resampled``:
  2 tasks: mean 0.645, IQM 0.675, median 0.645 (true means straddle 0: 0.56; closed form 0.5)
  3 tasks: mean 0.76, IQM 0.765, median 0.805 (0.755; 0.75)
  5 tasks: mean 0.875, IQM 0.895, median 0.935 (0.94; 0.9375)
  10 tasks: mean 0.885, IQM 0.94, median 0.96 (0.995; 0.998)
"""

import sys
import warnings

import numpy as np
import pandas as pd

import rlstats

RUNS, NOISE = 5, 0.3


def coverage(n_tasks, n_sim):
    rng = np.random.default_rng(100 + n_tasks)
    hits = {"mean": 0, "iqm": 0, "median": 0}
    straddle = 0
    for s in range(n_sim):
        means = rng.normal(0, 1, n_tasks)
        other = rng.normal(0, 1, n_tasks)
        frames = []
        for agent, m in (("A", means), ("B", other)):
            y = m[:, None] + rng.normal(0, NOISE, (n_tasks, RUNS))
            frames.append(pd.DataFrame({"agent": agent, "task": np.repeat([f"t{t}" for t in range(n_tasks)], RUNS),
                                        "seed": np.tile(np.arange(RUNS), n_tasks), "score": y.ravel()}))
        df = pd.concat(frames, ignore_index=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rlstats.bootstrap(df, "score ~ agent | task", task_bootstrap=True, n_resamples=1000, rng=s,
                                    progress=False, metrics=["mean", "iqm", "median"], normalize=False)
        tidy = res.tidy().query("agent == 'A'").set_index("metric")
        for metric in hits:
            hits[metric] += bool(tidy.loc[metric, "conf_low"] <= 0 <= tidy.loc[metric, "conf_high"])
        straddle += bool(means.min() <= 0 <= means.max())
    return {m: h / n_sim for m, h in hits.items()}, straddle / n_sim


if __name__ == "__main__":
    designs = [(2, 40)] if "--quick" in sys.argv else [(2, 200), (3, 200), (5, 200), (10, 200)]
    for n_tasks, n_sim in designs:
        covered, straddle = coverage(n_tasks, n_sim)
        print(n_tasks, "tasks:", covered, "true means straddle 0:", straddle, "closed form:", 1 - 2.0 ** (1 - n_tasks))
