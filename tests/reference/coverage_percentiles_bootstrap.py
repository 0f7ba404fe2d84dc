"""Simultaneous coverage of the performance percentiles' bootstrap interval: the source of
``rlstats.methods.percentiles._api.BOOTSTRAP_COVERAGE``.

    PYTHONPATH=.:tests python tests/reference/coverage_percentiles_bootstrap.py [--replications 200]

The design is the one the PBP coverage test uses (``tests/test_percentiles.py``): 3 agents x 2 tasks of
Beta-distributed scores, whose true aggregate performance percentiles come from numerical integration.
For c runs per cell it counts how often all of the 3 nominal 95% simultaneous intervals (delta = 0.05)
hold their true value.
"""

import argparse
import time
import warnings

import numpy as np

import rlstats
from test_percentiles import FORMULA, beta_design, true_aggregate


def simultaneous_coverage(runs, replications, seed=0, interval="bootstrap"):
    rng = np.random.default_rng(seed)
    truth = true_aggregate(beta_design(runs, rng)[1])
    held = 0
    for r in range(replications):
        data, _ = beta_design(runs, rng)
        res = rlstats.percentiles(data, FORMULA, interval=interval, delta=0.05, bounds=(0.0, 1.0),
                                  n_resamples=2000, rng=r)
        held += bool(np.all((res.conf_low <= truth) & (truth <= res.conf_high)))
    return held / replications


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=200)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    for runs in (3, 5, 10, 20):
        start = time.time()
        coverage = simultaneous_coverage(runs, args.replications)
        print(f"{runs} runs per cell: simultaneous coverage {coverage:.3f} ({time.time() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
