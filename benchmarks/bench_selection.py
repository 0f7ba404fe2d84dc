"""Benchmark: the selection check (cherry-picking) on Atari 100k, and the paper's simulations.

Run from the repository root::

    python benchmarks/bench_selection.py
    python benchmarks/bench_selection.py --data path/to/atari100k.csv

Reads ``../shared/data/atari100k.csv`` beside the repository and keeps SPR and
DrQ(eps) (2 agents x 26 games x 100 runs = 5,200 runs); the 8 games where SPR
leads most are reported, the other 18 held out.

Measured (best of ``--repeat`` runs):

* ``selection_check`` from the DataFrame with the permutation inspector,
  B = 9,999 random subsets (C(26, 8) = 1.56e6 is too many to enumerate);
* the same with exact enumeration (8 of 16 games: C(16, 8) = 12,870 subsets,
  n_resamples = 20,000);
* the same with the conservative p-value (1e5 draws of the top-8-of-26 mean);
* ``rlstats.selection.simulate``: Fig. 2(a) (top 10 of 30, z tests) with
  1e5 trials, and the permutation inspector (5 of 15, complement,
  B = 199) with 1e4 trials.

Targets: one check well under 1 s; 1e5 simulated trials in about a second.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


import rlstats
from rlstats.methods import selection
from measure import best_time  # benchmarks/measure.py
from rlstats.tables import read_csv

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "atari100k.csv"
FORMULA = "score ~ agent | task"




def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"Atari CSV (default {DEFAULT_DATA})")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each case")
    args = parser.parse_args(argv)
    if not args.data.is_file():
        sys.exit(f"Atari data not found at {args.data}; pass --data PATH (e.g. a CSV written with "
                 "rlstats.datasets.load('atari100k').to_csv(PATH, index=False)).")
    atari = read_csv(args.data)
    pair = atari[atari["agent"].isin(["SPR", "DrQ(eps)"])].reset_index(drop=True)
    means = pair.groupby(["task", "agent"])["score"].mean().unstack()
    ranked = list((means["SPR"] - means["DrQ(eps)"]).sort_values(ascending=False).index)
    best = ranked[:8]
    print(f"rlstats {rlstats.__version__}: SPR vs DrQ(eps), {len(pair):,} runs on {len(ranked)} games")

    def check(rng=0, **options):
        return selection.selection_check(pair, FORMULA, treatment="SPR", baseline="DrQ(eps)", rng=rng, **options)

    seeds = iter(range(1, 1_000))  # a new seed per call, so the cached conservative null is not reused

    cases = {
        "permutation, B = 9,999 (8 of 26)": lambda: check(reported=best),
        "exact enumeration (8 of 16: 12,870 subsets)": lambda: check(reported=best, heldout=ranked[8:16],
                                                                     n_resamples=20_000),
        "pooled t inspector": lambda: check(reported=best, inspector="t"),
        "permutation + conservative p (1e5 draws)": lambda: check(reported=best, sigma="pooled", n_candidates=26,
                                                                  rng=next(seeds)),
    }
    print("\nselection_check from the DataFrame (parse + build + effects + tests)")
    for name, function in cases.items():
        print(f"  {name:45s} {best_time(function, args.repeat) * 1e3:8.1f} ms")

    print("\nrlstats.selection.simulate")
    sims = {
        "Fig. 2(a), top 10 of 30, z, 1e5 trials": lambda: selection.simulate(30, 10, n_trials=100_000, rng=0),
        "unknown variance (t), 1e5 trials": lambda: selection.simulate(30, 10, variance="unknown",
                                                                       n_trials=100_000, rng=0),
        "permutation inspector, B = 199, 1e4 trials": lambda: selection.simulate(
            15, 5, reporter="random", heldout="complement", inspector="permutation", n_resamples=199,
            n_trials=10_000, rng=0),
    }
    for name, function in sims.items():
        print(f"  {name:45s} {best_time(function, max(1, args.repeat // 2)):8.2f} s")


if __name__ == "__main__":
    main()
