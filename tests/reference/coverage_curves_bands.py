"""Coverage of the bands of ``rlstats.curves``: the ``curves.band`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only curves.band [--jobs 2] [--quick]

(or this script with the same options). For each statistic (mean, IQM, median), runs per task (2, 3, 5, 10, 20),
number of tasks (1, 5, 26) and score distribution (normal; skewed: a standardised lognormal with sigma 0.8, skewness
about 3; capped: normal scores cut at 80% of the task's range, so that late in training half of the runs sit at the
cap), it simulates learning curves of alike agents with a known truth and runs ``rlstats.curves`` on them with its
defaults (95% bands, ``compare="all"``, alpha = 0.05; 500 resamples, 300 with --quick). A run's deviations follow a
stationary Gaussian AR(1) over 10 logged steps (lag-one correlation 0.8) before the skewing or the cap; tasks differ
in offset and scale (lognormal spread), as normalised scores of real suites do. It counts how often the simultaneous
band holds the whole true curve, how often the pointwise band holds the truth (averaged over steps), how often the
band of a difference of two alike agents excludes 0 somewhere and how often the max-T test rejects. It gives one row
per grid point and band (with the binomial standard error); a result quotes a row where its coverage is below 0.95
by more than 3 standard errors at the nominal level. The truth of each statistic is computed from 100,000 stratified
quantiles of each task's score distribution at each step.
"""

from __future__ import annotations

import itertools
import math
import pathlib
import runpy

import numpy as np
import pandas as pd

from rlstats import curves  # the function, not the lazy package, so that joblib's workers can unpickle jobs

STATISTICS = ("mean", "iqm", "median")
RUNS = (2, 3, 5, 10, 20)
TASKS = (1, 5, 26)
DISTRIBUTIONS = ("normal", "skewed", "capped")
STEPS, RHO, NOISE, SIGMA, CAP = 10, 0.8, 0.5, 0.8, 0.8


def progress_curve():
    return 1.0 - np.exp(-3.0 * np.linspace(0.0, 1.0, STEPS))


def tasks_of(tasks, rng):
    """Each task's offset and scale: offsets uniform on [0, 2], scales lognormal (sigma 0.5)."""
    return rng.uniform(0.0, 2.0, tasks), np.exp(rng.normal(0.0, 0.5, tasks))


def shaped(z, distribution, offset, scale, progress):
    """Scores from standard normal deviations ``z`` (..., steps) of tasks with this offset and scale."""
    if distribution == "skewed":
        z = (np.exp(SIGMA * z) - np.exp(SIGMA ** 2 / 2)) / math.sqrt((np.exp(SIGMA ** 2) - 1) * np.exp(SIGMA ** 2))
    score = offset + scale * (progress + NOISE * z)
    return np.minimum(score, offset + scale * CAP) if distribution == "capped" else score


def truth(statistic, distribution, offset, scale):
    """(steps,) the statistic of the score distributions, from 100,000 stratified normal quantiles per task."""
    from scipy import stats

    z = stats.norm.ppf((np.arange(100_000) + 0.5) / 100_000)[None, :, None]
    scores = shaped(z, distribution, offset[:, None, None], scale[:, None, None], progress_curve())  # (T, M, S)
    if statistic == "iqm":
        pooled = np.sort(scores.reshape(-1, STEPS), axis=0)
        cut = pooled.shape[0] // 4
        return pooled[cut:pooled.shape[0] - cut].mean(axis=0)
    means = scores.mean(axis=1)
    return means.mean(axis=0) if statistic == "mean" else np.median(means, axis=0)


def simulate(agents, runs, distribution, offset, scale, rng):
    """Long frame of alike agents x tasks x runs x steps; AR(1) deviations over steps before the shaping."""
    shape = (agents, offset.size, runs)
    z = np.empty(shape + (STEPS,))
    z[..., 0] = rng.normal(size=shape)
    for s in range(1, STEPS):
        z[..., s] = RHO * z[..., s - 1] + math.sqrt(1 - RHO ** 2) * rng.normal(size=shape)
    scores = shaped(z, distribution, offset[None, :, None, None], scale[None, :, None, None], progress_curve())
    a, t, r, s = np.meshgrid(np.arange(agents), np.arange(offset.size), np.arange(runs), np.arange(STEPS),
                             indexing="ij")
    return pd.DataFrame({"agent": [f"a{i}" for i in a.ravel()], "task": [f"t{i:02d}" for i in t.ravel()],
                         "seed": r.ravel(), "step": s.ravel(), "score": scores.ravel()})


def measure(statistic, runs, tasks, distribution, agents, n_sim, n_resamples=1_000, seed=0):
    """One grid point: rows for the simultaneous, pointwise and difference bands."""
    key = [seed, STATISTICS.index(statistic), runs, tasks, DISTRIBUTIONS.index(distribution), agents]
    task_seed, data_seed, curves_seed = np.random.SeedSequence(key).spawn(3)
    offset, scale = tasks_of(tasks, np.random.default_rng(task_seed))
    true = truth(statistic, distribution, offset, scale)
    rng = np.random.default_rng(data_seed)
    simultaneous = pointwise = excludes = rejects = 0.0
    for child in curves_seed.spawn(n_sim):
        data = simulate(agents, runs, distribution, offset, scale, rng)
        res = curves(data, "score ~ agent | task/seed", step="step", statistic=statistic, compare="all",
                             n_resamples=n_resamples, rng=child)
        simultaneous += ((res.simultaneous[..., 0] <= true) & (true <= res.simultaneous[..., 1])).all(axis=1).sum()
        pointwise += ((res.pointwise[..., 0] <= true) & (true <= res.pointwise[..., 1])).mean(axis=1).sum()
        excludes += ((res.difference_bands[..., 0] > 0) | (res.difference_bands[..., 1] < 0)).any(axis=1).sum()
        rejects += (res.difference_pvalues <= res.alpha).any(axis=1).sum()
    bands, pairs = agents * n_sim, agents * (agents - 1) // 2 * n_sim
    measured = {"simultaneous": (simultaneous / bands, bands), "pointwise": (pointwise / bands, bands),
                "difference": (1 - excludes / pairs, pairs), "max_t": (1 - rejects / pairs, pairs)}
    return [{"statistic": statistic, "band": band, "runs": runs, "tasks": tasks, "distribution": distribution,
             "agents": agents, "n_sim": n, "n_resamples": n_resamples, "coverage": coverage,
             "se": math.sqrt(coverage * (1 - coverage) / n)} for band, (coverage, n) in measured.items()]


def grid(quick=False, statistics=STATISTICS, runs=RUNS, tasks=TASKS, distributions=DISTRIBUTIONS):
    """Every (statistic, runs, tasks, distribution) with 2 agents; 5 agents at 5 runs of 5 tasks; 8 agents at 3, 5
    and 10 runs of 5 tasks (28 pairs of alike agents: where multiplicity across pairs would show).

    --quick: the mean and the IQM at 3 and 10 runs of 5 tasks.
    """
    if quick:
        statistics, runs, tasks = ("mean", "iqm"), (3, 10), (5,)
    points = [(stat, r, t, dist, 2) for stat, r, t, dist in itertools.product(statistics, runs, tasks, distributions)
              if not (stat == "median" and t == 1)]  # the median of one task's mean is the mean
    points += [(stat, 5, 5, dist, 5) for stat, dist in itertools.product(statistics, distributions)
               if 5 in runs and 5 in tasks]
    return points + [(stat, r, 5, dist, 8) for stat, r, dist in itertools.product(statistics, (3, 5, 10), distributions)
                     if r in runs and 5 in tasks and not quick]


PROCEDURE, LEVEL = "curves.band", 0.95
#: simulated data sets per grid point: the table's, and --quick's
SIMULATIONS = (150, 60)


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim, n_resamples=300 if quick else 500)


if __name__ == "__main__":
    runpy.run_path(str(pathlib.Path(__file__).with_name("calibrate.py")))["run_alone"](PROCEDURE)
