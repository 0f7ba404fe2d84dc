"""Pointwise coverage of the expected-max bands of ``rlstats.tuning``: the ``tuning.expected_max_band`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only tuning.expected_max_band [--jobs 1] [--quick]

A sweep is N configurations with true means mu_c (the landscapes of ``coverage_tuning.py``), n seeds each. The
estimand at budget k is the expected best of k configurations' n-seed mean scores (drawn without replacement), the
configurations given: theta(k) = E[sum_i w_ki (mu + e)_(i)] over the seed noise e (e_c the mean of n noise draws).
It is computed once per design from 200,000 draws of the noise (Monte Carlo error below 0.2% of a run's sd). Each
row is one budget (``statistic`` = ``k=...``): the share of data sets whose 95% band holds theta(k) there.
"""

from __future__ import annotations

import math
import pathlib
import runpy

import numpy as np

import rlstats
from rlstats.methods.tuning import _kernels as kernels

HERE = pathlib.Path(__file__).resolve().parent
PROCEDURE, LEVEL = "tuning.expected_max_band", 0.95
SIMULATIONS = (400, 40)
N_RESAMPLES = 1000
BASE = runpy.run_path(str(HERE / "coverage_tuning.py"))


def grid(quick=False):
    if quick:
        return [(10, 3, "spread")]
    return [(N, n, landscape) for N in (10, 30) for n in (3, 5, 10) for landscape in ("near_ties", "spread", "skewed")]


def budgets(N):
    return [1, 2, N // 2, N]


def truth(mu, n, landscape, ks):
    rng = np.random.default_rng([mu.size, n, 99])
    total = np.zeros(len(ks))
    for _ in range(20):
        noise = BASE["noise"](landscape, (10_000, mu.size, n), rng).mean(axis=2)
        total += kernels.expected_max(mu + noise, ks, False).mean(axis=0)
    return total / 20


def table_rows(point, n_sim, quick):
    N, n, landscape = point
    mu = BASE["true_means"](N, landscape)
    ks = budgets(N)
    theta = truth(mu, n, landscape, ks)
    rng = np.random.default_rng([N, n, 11])
    held = np.zeros(len(ks))
    for _ in range(n_sim):
        res = rlstats.tuning(BASE["simulate"](mu, n, landscape, rng), "score ~ agent | task/seed", config="lr",
                             views=["expected_max"], budgets=ks, n_resamples=N_RESAMPLES, rng=rng)
        em = res.expected_max().query("sampling == 'without replacement'").set_index("budget")
        held += (em.loc[ks, "conf_low"].to_numpy() <= theta) & (theta <= em.loc[ks, "conf_high"].to_numpy())
    rows = []
    for k, h in zip(ks, held):
        coverage = h / n_sim
        rows.append({"statistic": f"k={k}", "band": "centred_percentile", "agents": 1, "tasks": 1, "runs": n,
                     "distribution": landscape, "configuration": f"{N} configurations", "n_sim": n_sim,
                     "n_resamples": N_RESAMPLES, "coverage": coverage,
                     "se": math.sqrt(coverage * (1 - coverage) / n_sim)})
    return rows


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
