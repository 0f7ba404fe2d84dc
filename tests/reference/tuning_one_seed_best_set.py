"""How wrong tuning()'s best-set probabilities are where some configurations have one seed (audit s15).

    PYTHONPATH=. python tests/reference/tuning_one_seed_best_set.py [--n-sim 150]

The bootstrap of the best set resamples seeds within each configuration, so a configuration of one seed is the same
value in every resample: its score is taken as certain. This draws sweeps of 5 configurations with normal seeds (sd
1), the truly best one 0.8 ahead of four alike (or all five alike), with 5 seeds each or one configuration of one
seed, and runs the package's own best-set kernel (``kernels.best_set``, 300 resamples, threshold 0.05) on each:

* ``in_set``: the share of sweeps whose best set holds the truly best configuration;
* ``point``: the share whose probability for the configuration of interest (the one-seed one, else configuration 0)
  is within 0.02 of 0 or 1;
* ``truth``: that configuration's chance of winning a rerun of the same sweep, and ``assigned``: its mean probability.

Measured with --n-sim 150 (session 15): in_set 0.967 with 5 seeds everywhere, 0.867 when a worse configuration had
one seed, 0.727 when the best had; point 0.07-0.24 with 5 seeds against 0.57-0.72 with one. tuning() now withholds the
probabilities, the set and the tuned score where a configuration has one seed.
"""

import argparse

import numpy as np

from rlstats.methods.tuning import _kernels as kernels

SETTINGS = (("5 seeds each, all alike", [0, 0, 0, 0, 0], [5, 5, 5, 5, 5]),
            ("configuration 0 one seed, all alike", [0, 0, 0, 0, 0], [1, 5, 5, 5, 5]),
            ("5 seeds each, best 0.8 ahead", [0.8, 0, 0, 0, 0], [5, 5, 5, 5, 5]),
            ("a worse configuration one seed", [0.8, 0, 0, 0, 0], [5, 1, 5, 5, 5]),
            ("the best configuration one seed", [0.8, 0, 0, 0, 0], [1, 5, 5, 5, 5]))


def measure(means, seeds, n_sim, rng):
    means, seeds = np.asarray(means, dtype=float), np.asarray(seeds)
    focus = int(np.argmin(seeds))
    reruns = rng.normal(size=(200_000, means.size)) / np.sqrt(seeds) + means
    truth = float(np.mean(reruns.argmax(axis=1) == focus))
    starts = np.r_[0, np.cumsum(seeds)[:-1]]
    in_set = point = assigned = 0.0
    for i in range(n_sim):
        values = np.concatenate([m + rng.normal(size=n) for m, n in zip(means, seeds)])
        probability, _, _, reached = kernels.best_set(values, starts, seeds, np.random.SeedSequence([15, i]), 300,
                                                      with_ties=True)
        in_set += reached[int(np.argmax(means))] >= 0.05
        point += min(probability[focus], 1 - probability[focus]) <= 0.02
        assigned += probability[focus]
    return in_set / n_sim, point / n_sim, truth, assigned / n_sim


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-sim", type=int, default=150)
    n_sim = parser.parse_args().n_sim
    rng = np.random.default_rng(2026)
    print(f"{'setting':40} in_set  point  truth  assigned")
    for name, means, seeds in SETTINGS:
        in_set, point, truth, assigned = measure(means, seeds, n_sim, rng)
        print(f"{name:40} {in_set:6.3f} {point:6.3f} {truth:6.3f} {assigned:9.3f}", flush=True)
