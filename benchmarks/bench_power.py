"""Benchmark: power by simulation, time per simulated data set and speed-up with two workers.

Run from the repository root::

    python benchmarks/bench_power.py
    python benchmarks/bench_power.py --n-sim 400 --seeds 10

Workload: ``rlstats.power`` on simulated benchmarks of 2 agents x 10 tasks
(mixed score families, heterogeneity 1), effect 0.5, at one number of seeds
(default 10 runs per agent and task), for each method with the options
power() uses by default (bootstrap: IQM, 1,000 resamples; AdaStop: K = 5,
B = 10,000 paths; permutation: B = 10,000).  For each method:

* seconds per simulated data set with ``n_jobs=1`` (best of ``--repeat``);
* the same with ``n_jobs=2`` (joblib's loky processes; includes starting
  the workers once per call) and the speed-up;
* for the blocked rank test also the per-data-set path that the vectorised
  path replaces, and the Monte Carlo p-value (``pvalue="monte_carlo"``,
  B = 1,000 permutations), which runs once per data set.

The numbers are identical whatever ``n_jobs`` (checked here too).
"""

from __future__ import annotations

import argparse
import importlib
import time
import warnings

from measure import best_of  # benchmarks/measure.py
from rlstats.planning import power

power_module = importlib.import_module("rlstats.planning._api")  # the planning internals

METHODS = ("skillings_mack", "bootstrap", "adastop", "permutation")


def run(method, n_sim, seeds, n_jobs, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return power(method, effect=0.5, seeds=[seeds], tasks=10, n_sim=n_sim, rng=0, n_jobs=n_jobs,
                     progress=False, **options)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-sim", type=int, default=200, help="simulated data sets per method (default 200)")
    parser.add_argument("--seeds", type=int, default=10, help="runs per agent and task (default 10)")
    parser.add_argument("--repeat", type=int, default=2, help="best of this many runs (default 2)")
    args = parser.parse_args(argv)

    print(f"power(method, effect=0.5, seeds=[{args.seeds}], tasks=10, n_sim={args.n_sim}); 2 agents\n")
    print(f"{'method':<28} {'ms / data set (1 job)':>22} {'ms / data set (2 jobs)':>23} {'speed-up':>9}")
    for method in METHODS:
        n_sim = args.n_sim * (20 if method == "skillings_mack" else 1)
        one, first = best_of(lambda: run(method, n_sim, args.seeds, 1), args.repeat, time.perf_counter)
        two, second = best_of(lambda: run(method, n_sim, args.seeds, 2), args.repeat, time.perf_counter)
        assert first.table.equals(second.table), "results differ between n_jobs=1 and n_jobs=2"
        print(f"{method:<28} {1e3 * one / n_sim:>22.3f} {1e3 * two / n_sim:>23.3f} {one / two:>9.2f}")
    original = power_module._batch_pvalues
    power_module._batch_pvalues = lambda method: None
    try:
        one, _ = best_of(lambda: run("skillings_mack", args.n_sim, args.seeds, 1), args.repeat, time.perf_counter)
    finally:
        power_module._batch_pvalues = original
    print(f"{'skillings_mack (per data set)':<28} {1e3 * one / args.n_sim:>22.3f}")
    monte_carlo = {"pvalue": "monte_carlo", "n_resamples": 1_000}
    one, _ = best_of(lambda: run("skillings_mack", args.n_sim, args.seeds, 1, **monte_carlo), args.repeat,
                     time.perf_counter)
    print(f"{'skillings_mack (monte_carlo)':<28} {1e3 * one / args.n_sim:>22.3f}")


if __name__ == "__main__":
    main()
