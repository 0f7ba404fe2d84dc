"""Benchmark: power('skillings_mack') under skillings_mack()'s default p-value (pvalue="auto"), by the case it picks.

Run from the repository root::

    python benchmarks/bench_power_rank_default.py
    python benchmarks/bench_power_rank_default.py --n-sim 200 --repeat 1

Workload: ``rlstats.power("skillings_mack", ...)`` with its defaults (effect 0.5, mixed score families,
heterogeneity 1, ``rng=0``, one job) on designs where ``pvalue="auto"`` picks each of its p-values:

* the exact null convolved for two agents (power()'s default design, 2 agents x 10 tasks, seeds 3, 5, 10, 20);
* the exact null enumerated (3 agents x 5 tasks x 1 seed: 6**5 = 7,776 arrangements);
* the Monte Carlo p-value (3 agents x 6 tasks x 1 seed: 6**6 arrangements, fewer than 40 tasks; 10,000
  permutations a data set);
* the chi-squared p-value (3 agents x 10 tasks x 3 seeds), the vectorised path's reference.

Prints CPU seconds of the whole study (best of ``--repeat``) and per data set, and the study's power, which the
vectorised path must leave unchanged to the bit.
"""

from __future__ import annotations

import argparse
import warnings

from measure import best_of  # benchmarks/measure.py
from rlstats.planning import power

CASES = (
    ("exact, two agents (default design)", dict(agents=2, tasks=10, seeds=[3, 5, 10, 20]), 1),
    ("exact, enumerated (3 x 5 x 1)", dict(agents=3, tasks=5, seeds=[1]), 1),
    ("Monte Carlo (3 x 6 x 1)", dict(agents=3, tasks=6, seeds=[1]), 0.2),
    ("chi-squared (3 x 10 x 3)", dict(agents=3, tasks=10, seeds=[3]), 1),
)


def run(n_sim, design):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # simulate()'s tasks have their own scales on purpose
        return power("skillings_mack", effect=0.5, n_sim=n_sim, rng=0, progress=False, **design)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-sim", type=int, default=1000, help="data sets per number of seeds (default 1,000; the "
                        "Monte Carlo case runs a fifth of them)")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs (default 1)")
    args = parser.parse_args(argv)
    print(f"{'case':<38} {'n_sim':>6} {'data sets':>9} {'CPU s':>8} {'ms / data set':>14}  power")
    for name, design, share in CASES:
        n_sim = max(1, int(args.n_sim * share))
        seconds, result = best_of(lambda: run(n_sim, design), args.repeat)
        data_sets = n_sim * len(design["seeds"])
        powers = " ".join(f"{p:.3f}" for p in result.table["power"])
        print(f"{name:<38} {n_sim:>6} {data_sets:>9} {seconds:>8.2f} {1e3 * seconds / data_sets:>14.3f}  {powers}")


if __name__ == "__main__":
    main()
