"""Benchmark: the blocked rank test on the Atari 100k data (6 agents x 26 games x 100 runs).

Run from the repository root::

    python benchmarks/bench_skillings_mack.py
    python benchmarks/bench_skillings_mack.py --data path/to/atari100k.csv

Reads ``../shared/data/atari100k.csv`` beside the repository (the tidy copy of
``rlstats.datasets.load("atari100k")``) and keeps CURL, DER, DrQ, DrQ(eps),
OTRainbow and SPR: 15,600 runs, Mack–Skillings on the raw runs.

Measured:

* the asymptotic (chi-squared) p-value, from the DataFrame (parse, build,
  test) and from a ready Design (the test alone); best of ``--repeat`` runs;
* the Monte Carlo p-value with B = 10,000 permutations; best of 3 runs;
* the same with ``n_jobs=2`` (threads; identical p-value, checked);
* peak memory (tracemalloc) of the Monte Carlo test for B = 1,000, 10,000 and
  50,000: the permutations are processed in chunks of fixed size, so the peak
  should stay flat as B grows (only the stored null distribution, 8 bytes per
  permutation, grows with B);
* peak memory of the whole test (``pvalue="monte_carlo"``, B = 200, from a
  ready Design) on simulated designs of 1e5, 6e5 and 1e6 runs (6 agents x
  100 runs per cell, 167 to 1,667 tasks; ``--sizes`` to change): the
  permutations of one generator's block are drawn in row chunks, so the peak
  grows only with the design's own arrays (issue 17: < 150 MB at 1e6 runs).

Targets (issue 2 §8): asymptotic < 50 ms, Monte Carlo B = 10,000 < 2 s,
memory bounded by chunking; issue 17: < 150 MB at 1e6 runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


import rlstats
from measure import best_time, peak_memory  # benchmarks/measure.py
from rlstats.tables import read_csv

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "atari100k.csv"
AGENTS = ["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]
FORMULA = "score ~ agent | task"


def verdict(seconds, target):
    return f"(target < {target * 1e3:.0f} ms: {'met' if seconds < target else 'MISSED'})"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"Atari CSV (default {DEFAULT_DATA})")
    parser.add_argument("--repeat", type=int, default=20, help="timed runs of the asymptotic test")
    parser.add_argument("--sizes", type=float, nargs="*", default=[1e5, 6e5, 1e6],
                        help="runs of the simulated designs whose peak memory is measured")
    args = parser.parse_args(argv)
    if not args.data.is_file():
        sys.exit(f"Atari data not found at {args.data}. This benchmark reads the shared tidy CSV beside the "
                 "repository (../shared/data/atari100k.csv); pass --data PATH to use another copy, e.g. one "
                 "written with rlstats.datasets.load('atari100k').to_csv(PATH, index=False).")

    atari = read_csv(args.data)
    six = atari[atari["agent"].isin(AGENTS)].reset_index(drop=True)
    design = rlstats.build(six, FORMULA)
    print(f"rlstats {rlstats.__version__}: Atari 100k, {design.n_agents} agents x {design.n_tasks} games x "
          f"{design.max_runs_per_cell} runs = {design.nobs:,} runs")
    res = rlstats.skillings_mack(design)
    print(f"{res.method}: statistic = {res.statistic:.3f}, df = {res.df}\n")

    print("asymptotic p-value (chi-squared)")
    from_frame = best_time(lambda: rlstats.skillings_mack(six, FORMULA), args.repeat)
    from_design = best_time(lambda: rlstats.skillings_mack(design), args.repeat)
    print(f"  from the DataFrame (parse + build + test): {from_frame * 1e3:7.1f} ms {verdict(from_frame, 0.05)}")
    print(f"  from a ready Design (test only):           {from_design * 1e3:7.1f} ms")

    print("\nMonte Carlo p-value, B = 10,000 permutations within games")
    monte_carlo = lambda b: rlstats.skillings_mack(design, pvalue="monte_carlo", n_resamples=b, rng=0)  # noqa: E731
    seconds = best_time(lambda: monte_carlo(10_000), 3)
    print(f"  time: {seconds:.2f} s {verdict(seconds, 2.0)}; p-value = {monte_carlo(10_000).pvalue:.3g}")
    two = lambda: rlstats.skillings_mack(design, pvalue="monte_carlo", n_resamples=10_000, rng=0, n_jobs=2)  # noqa: E731
    seconds_two = best_time(two, 3)
    assert (two().null_distribution == monte_carlo(10_000).null_distribution).all(), "n_jobs changed the result"
    print(f"  n_jobs=2 (threads): {seconds_two:.2f} s, speed-up {seconds / seconds_two:.2f}")

    print("\npeak memory of the Monte Carlo test (tracemalloc)")
    print(f"  {'B':>7}  {'peak':>9}  {'of which the null distribution':>30}")
    for b in (1_000, 10_000, 50_000):
        peak = peak_memory(lambda: monte_carlo(b))
        print(f"  {b:>7,}  {peak / 1e6:>6.1f} MB  {8 * b / 1e6:>27.2f} MB")

    print("\npeak memory on large simulated designs (6 agents x 100 runs per cell, B = 200, from a Design)")
    print(f"  {'runs':>10}  {'tasks':>6}  {'peak':>9}  {'time':>7}")
    for runs in args.sizes:
        tasks = max(1, round(runs / 600))
        large = rlstats.build(rlstats.datasets.simulate(agents=6, tasks=tasks, seeds=100, rng=0), FORMULA)
        test = lambda: rlstats.skillings_mack(large, pvalue="monte_carlo", n_resamples=200, rng=0)  # noqa: E731
        seconds = best_time(test, 1)
        peak = peak_memory(test)
        print(f"  {large.nobs:>10,}  {tasks:>6}  {peak / 1e6:>6.1f} MB  {seconds:>5.1f} s"
              + ("  (target < 150 MB: " + ("met" if peak < 150e6 else "MISSED") + ")" if runs >= 1e6 else ""))


if __name__ == "__main__":
    main()
