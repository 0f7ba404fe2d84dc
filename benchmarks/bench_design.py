"""Benchmark: building a Design (``rlstats.build``) from 1e4, 1e5 and 1e6 rows.

Run from the repository root::

    python benchmarks/bench_design.py            # 1e4, 1e5, 1e6 rows
    python benchmarks/bench_design.py --repeat 3

The data are long, benchmark-like runs from ``rlstats.datasets.simulate``
(10 agents, tasks x seeds chosen to reach the row count), with the agent and
task columns converted to plain strings, as they come out of a CSV file.
Two formulas are timed: ``score ~ agent | task`` and ``score ~ agent |
task/seed``, which also checks that no seed repeats within a cell.  Times are
the best of ``--repeat`` runs; peak memory is measured in a separate run with
tracemalloc (which slows the code down, so it is not timed).

Target (issue 2 §3): a million rows well under one second.
"""

from __future__ import annotations

import argparse

import rlstats
from measure import best_time, peak_memory  # benchmarks/measure.py

# rows -> (tasks, seeds) with 10 agents
SIZES = {10_000: (20, 50), 100_000: (50, 200), 1_000_000: (100, 1_000)}
FORMULAS = ("score ~ agent | task", "score ~ agent | task/seed")


def long_data(n_rows):
    tasks, seeds = SIZES[n_rows]
    df = rlstats.datasets.simulate(agents=10, tasks=tasks, seeds=seeds, effect=0.5, rng=0)
    # String columns, as read from a CSV (simulate returns ordered categoricals).
    return df.astype({"agent": str, "task": str})






def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per case (best is shown)")
    args = parser.parse_args(argv)

    print(f"rlstats {rlstats.__version__}: rlstats.build(df, formula), best of {args.repeat}")
    print(f"{'rows':>9}  {'formula':<26} {'time':>9}  {'rows/s':>8}  {'peak memory':>11}  {'input frame':>11}")
    for n_rows in SIZES:
        df = long_data(n_rows)
        frame_mb = df.memory_usage(deep=True).sum() / 1e6
        for formula in FORMULAS:
            build = lambda: rlstats.build(df, formula)  # noqa: E731
            build()  # warm up (imports, patsy caches)
            seconds = best_time(build, args.repeat)
            peak_mb = peak_memory(build) / 1e6
            print(f"{n_rows:>9,}  {formula:<26} {seconds * 1e3:>7.1f} ms  {n_rows / seconds / 1e6:>5.1f} M  "
                  f"{peak_mb:>8.1f} MB  {frame_mb:>8.1f} MB")


if __name__ == "__main__":
    main()
