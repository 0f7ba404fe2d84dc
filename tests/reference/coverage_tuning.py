"""Coverage of the tuned-score interval of ``rlstats.tuning`` (its best_set view): the ``tuning.best_interval`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only tuning.best_interval [--jobs 1] [--quick]

(or this script with the same options). A sweep is N configurations of one agent on one task, each run with n seeds;
configuration c's runs are its true mean mu_c plus noise of standard deviation 1. The procedure selects the
configuration with the best mean and reports the tuned score with its 95% interval (from the winner's mean less the
97.5% bootstrap quantile of the optimism of select-then-report less Student's t times the winner's standard error, to
the winner's mean plus t times the larger of the winner's and the sweep's pooled standard deviation over sqrt(n)). The claim measured: the interval holds the true mean of the configuration that was selected (what the
tuned algorithm delivers when deployed). Landscapes (``distribution``):

* ``identical``: every mu_c = 0: the selection is pure noise and the optimism is largest;
* ``near_ties``: mu_c drawn once from N(0, 0.25^2) (differences well within one run's noise);
* ``spread``: mu_c drawn once from N(0, 1);
* ``skewed``: ``spread`` with centred log-normal noise (sd 1, skewness 6.2), as returns with rare failures.

The grid is N in (3, 10, 30) x n in (3, 5, 10) x the four landscapes; ``--quick`` two points.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

import rlstats

PROCEDURE, LEVEL = "tuning.best_interval", 0.95
#: data sets per grid point: the table's, and --quick's
SIMULATIONS = (500, 40)
N_RESAMPLES = 1000
LANDSCAPES = ("identical", "near_ties", "spread", "skewed")


def grid(quick=False):
    if quick:
        return [(10, 3, "near_ties"), (3, 5, "spread")]
    return [(N, n, landscape) for N in (3, 10, 30) for n in (3, 5, 10) for landscape in LANDSCAPES]


def true_means(N, landscape):
    rng = np.random.default_rng([N, LANDSCAPES.index(landscape)])
    scale = {"identical": 0.0, "near_ties": 0.25, "spread": 1.0, "skewed": 1.0}[landscape]
    return scale * rng.normal(size=N)


def noise(landscape, size, rng):
    if landscape != "skewed":
        return rng.normal(size=size)
    s = 1.0  # log-normal(0, s^2), centred and scaled to sd 1
    draws = rng.lognormal(0.0, s, size)
    return (draws - math.exp(s * s / 2)) / math.sqrt((math.exp(s * s) - 1) * math.exp(s * s))


def simulate(mu, n, landscape, rng):
    scores = mu[:, None] + noise(landscape, (mu.size, n), rng)
    return pd.DataFrame({"agent": "a", "task": "t", "lr": np.repeat(np.arange(mu.size), n),
                         "seed": np.tile(np.arange(n), mu.size), "score": scores.ravel()})


def table_rows(point, n_sim, quick):
    N, n, landscape = point
    mu = true_means(N, landscape)
    rng = np.random.default_rng([N, n, LANDSCAPES.index(landscape), 7])
    held = 0
    for _ in range(n_sim):
        res = rlstats.tuning(simulate(mu, n, landscape, rng), "score ~ agent | task/seed", config="lr",
                             views=["best_set"], n_resamples=N_RESAMPLES, rng=rng)
        row = res.tuned().iloc[0]
        truth = mu[int(row["config"].split("=")[1])]
        held += row["conf_low"] <= truth <= row["conf_high"]
    coverage = held / n_sim
    return [{"interval": "select_then_report_t", "agents": 1, "tasks": 1, "runs": n, "distribution": landscape,
             "configuration": f"{N} configurations", "n_sim": n_sim, "n_resamples": N_RESAMPLES,
             "coverage": coverage, "se": math.sqrt(coverage * (1 - coverage) / n_sim)}]


if __name__ == "__main__":
    import runpy
    import pathlib

    runpy.run_path(str(pathlib.Path(__file__).with_name("calibrate.py")))["run_alone"](PROCEDURE)
