"""Simultaneous coverage of the performance percentiles' intervals: the ``percentiles.interval`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only percentiles.interval [--jobs 2] [--quick]

(or this script with the same options). The design is the one the PBP coverage test uses
(``tests/test_percentiles.py``): 3 agents x 2 tasks of Beta-distributed scores, whose true aggregate performance
percentiles come from numerical integration. For each interval kind and c runs per cell it counts how often all of
the 3 nominal 95% simultaneous intervals (delta = 0.05, bounds (0, 1)) hold their true value. Results quote a row
where it falls short of the level (``rlstats.methods.percentiles._api``). ``grid`` lists (interval, runs);
``--quick`` two of them.
"""

from __future__ import annotations

import math
import pathlib
import runpy
import warnings

import numpy as np

import rlstats

HERE = pathlib.Path(__file__).resolve().parent
PROCEDURE, LEVEL = "percentiles.interval", 0.95
#: data sets per grid point: the table's, and --quick's
SIMULATIONS = (1000, 20)
N_RESAMPLES = 2000
INTERVALS = ("pbp", "pbp_t", "bootstrap")
RUNS = (3, 5, 10, 20)
# The design and its true aggregate, from the test file (run from its path: tests/ need not be importable).
DESIGN = runpy.run_path(str(HERE.parent / "test_percentiles.py"))


def measure(interval, runs, n_sim, seed=0, n_resamples=N_RESAMPLES):
    """The share of ``n_sim`` simulated data sets in which every nominal 95% interval held its true value."""
    rng = np.random.default_rng(seed)
    truth = DESIGN["true_aggregate"](DESIGN["beta_design"](runs, rng)[1])
    held = 0
    for r in range(n_sim):
        data, _ = DESIGN["beta_design"](runs, rng)
        res = rlstats.percentiles(data, DESIGN["FORMULA"], interval=interval, delta=0.05, bounds=(0.0, 1.0),
                                  n_resamples=n_resamples, rng=r)
        held += bool(np.all((res.conf_low <= truth) & (truth <= res.conf_high)))
    coverage = held / n_sim
    return {"interval": interval, "agents": 3, "tasks": 2, "runs": runs, "distribution": "beta", "n_sim": n_sim,
            "n_resamples": n_resamples if interval == "bootstrap" else "", "coverage": coverage,
            "se": math.sqrt(coverage * (1 - coverage) / n_sim)}


def grid(quick=False):
    """(interval, runs): every interval kind at every runs count; --quick: pbp and the bootstrap at 5 runs."""
    if quick:
        return [("pbp", 5), ("bootstrap", 5)]
    return [(interval, runs) for interval in INTERVALS for runs in RUNS]


def table_rows(point, n_sim, quick=False):
    """The row of one grid point for the package table (``tests/reference/calibrate.py``)."""
    interval, runs = point
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the raw-scale and few-runs warnings: the design is small on purpose
        return [measure(interval, runs, n_sim, seed=runs)]


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
