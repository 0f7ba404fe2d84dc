"""Coverage of the bootstrap back end's intervals at few runs per task: the ``bootstrap.interval`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only bootstrap.interval [--jobs 2] [--quick]

(or this script with the same options). For each setting (normal or exponential scores; 5 or 26 tasks whose means
spread from 0 to 4; c runs per task) it simulates data sets of four agents, forms nominal 95% intervals with each
interval kind, and counts how often they hold the true value of the metric (computed on 400,000 runs per task). A
row's ``n_sim`` counts intervals: four agents per data set for the metrics, two pairs per data set for the
probability of improvement, all drawn independently. An interval that could not be formed (NaN) counts as not
holding. Results quote, per (interval, metric) and c, the lowest and highest coverage over the four settings
(``rlstats.methods.bootstrap._small_runs.coverage_note``). ``grid`` lists the settings, ``--quick`` one of them.
"""

from __future__ import annotations

import math
import pathlib
import runpy
import warnings

import numpy as np
import pandas as pd

import rlstats

HERE = pathlib.Path(__file__).resolve().parent
PROCEDURE, LEVEL = "bootstrap.interval", 0.95
#: data sets per grid point: the table's, and --quick's
SIMULATIONS = (150, 30)
N_RESAMPLES = 1000
AGENTS = "ABCD"
METRICS = ("iqm", "mean", "median", "optimality_gap")
INTERVALS = ("percentile", "basic", "bca", "expanded")
RUNS = (2, 3, 5, 10, 20)
SETTINGS = [(dist, tasks) for dist in ("normal", "exponential") for tasks in (5, 26)]
GAMMA = 1.0
SHIFT = 0.3  # agents B and D sit this far above A and C (probability of improvement below 1/2)


def draw(rng, dist, means, size):
    """(size, tasks) scores with the given task means: unit-variance normal, or a shifted Exp(1)."""
    if dist == "normal":
        return rng.normal(means, 1.0, size=(size, means.size))
    return means + rng.exponential(1.0, size=(size, means.size)) - 1.0


def truths(dist, means):
    big = draw(np.random.default_rng(123), dist, means, 400_000)
    pooled = np.sort(big.ravel())
    cut = pooled.size // 4
    task_means = big.mean(axis=0)
    truth = {"iqm": pooled[cut:pooled.size - cut].mean(), "mean": task_means.mean(),
             "median": np.median(task_means), "optimality_gap": np.maximum(GAMMA - big, 0).mean()}
    # P(X > Y) for X at the task means and Y shifted up by SHIFT, from the same scores paired at random.
    other = draw(np.random.default_rng(321), dist, means + SHIFT, 400_000)
    truth["probability_of_improvement"] = np.mean(big > other)
    return truth


def frame(data):
    parts = []
    for agent, scores in data.items():
        runs, tasks = scores.shape
        parts.append(pd.DataFrame({"agent": agent, "task": np.tile([f"t{t:02d}" for t in range(tasks)], runs),
                                   "score": scores.ravel()}))
    return pd.concat(parts, ignore_index=True)


def measure(dist, tasks, runs, n_datasets, seed=0, n_resamples=N_RESAMPLES, intervals=INTERVALS):
    """One setting: a row per (interval, metric) for nominal 95% intervals over ``n_datasets`` simulated data sets."""
    means = np.linspace(0.0, 4.0, tasks)
    truth = truths(dist, means)
    rng = np.random.default_rng(seed)
    hits = {}
    for d in range(n_datasets):
        data = frame({a: draw(rng, dist, means + SHIFT * (i % 2), runs) for i, a in enumerate(AGENTS)})
        for interval in intervals:
            res = rlstats.bootstrap(data, "score ~ agent | task", metrics=METRICS, n_resamples=n_resamples,
                                    interval=interval, rng=d)
            for j, metric in enumerate(METRICS):
                # agents B and D are shifted: their truth is the metric of the shifted scores
                for i in range(len(AGENTS)):
                    target = _shifted_truth(dist, means, metric, truth) if i % 2 else truth[metric]
                    low, high = res.intervals[i, j]
                    hits.setdefault((interval, metric), []).append(low <= target <= high)
        for interval in ("percentile", "expanded"):
            res = rlstats.probability_of_improvement(data, "score ~ agent | task", pairs=[("A", "B"), ("C", "D")],
                                                     n_resamples=n_resamples, interval=interval, rng=d)
            target = truth["probability_of_improvement"]
            hits.setdefault((interval, "probability_of_improvement"), []).extend(
                (res.intervals[:, 0] <= target) & (target <= res.intervals[:, 1]))
    return [{"interval": interval, "metric": metric, "tasks": tasks, "runs": runs, "distribution": dist,
             "n_sim": len(held), "n_resamples": n_resamples, "coverage": float(np.mean(held)),
             "se": math.sqrt(np.mean(held) * (1 - np.mean(held)) / len(held))}
            for (interval, metric), held in sorted(hits.items())]


_SHIFTED = {}


def _shifted_truth(dist, means, metric, truth):
    key = (dist, means.size)
    if key not in _SHIFTED:
        _SHIFTED[key] = truths(dist, means + SHIFT)
    return _SHIFTED[key][metric]


def grid(quick=False):
    """(distribution, tasks, runs): every setting at every runs count; --quick: normal scores, 5 tasks, 3 runs."""
    if quick:
        return [("normal", 5, 3)]
    return [(dist, tasks, runs) for runs in RUNS for dist, tasks in SETTINGS]


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    dist, tasks, runs = point
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the raw-scale warning: these simulated tasks share one scale on purpose
        return measure(dist, tasks, runs, n_sim, seed=runs * 100 + tasks)


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
