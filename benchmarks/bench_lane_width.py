"""The measurement behind rlstats.resampling.lane_bits: 16- against 32-bit lanes, and the cost of a rejection.

    OPENBLAS_NUM_THREADS=1 taskset -c 0 python benchmarks/bench_lane_width.py [--rounds 3] [--repeat 20]

For each drawing path of rlstats.resampling.UniformIndices and a set of bounds h, the time a lane (ns) of the same
draws forced to 16 bits and to 32 bits (``bits=``): at 16 bits a share (2**16 % h) / 2**16 of the lanes is rejected
and replaced one by one, at 32 bits almost none. The paths: whole rows with one bound and uint32 offsets (the
bootstrap's counts on balanced tasks: 4 rows of 32,768 runs), the same with a bound per column (unbalanced tasks),
chosen units of 5 lanes (the complete view's seeds: 20,000 units a row, 63% of them read, configuration-major) and
the complete view's configuration counts (G = h indices of bound G a row, counted by ``configuration_counts``: the
16-bit path's uint32 indices need a conversion that the 32-bit path's int64 ones do not). Each figure is the best of
``--repeat`` calls, then the best over ``--rounds`` rounds (the paths and widths alternate within a round).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from rlstats.resampling import UniformIndices  # noqa: E402

BOUNDS = (1000, 1200, 1500, 1800, 2000, 2300, 2900, 3000, 4096, 5500)


def whole_rows(h, bits, per_column=False, n=32768, k=4):
    draws = UniformIndices(np.random.SeedSequence(0), np.full(n, h) if per_column else h, n, bits=bits)
    offsets = (np.arange(n)[None, :] + n * np.arange(k)[:, None]).astype(np.uint32)
    return lambda: draws.rows(k, offsets), k * n


def seed_units(h, bits, G=20_000, width=5, k=10):
    draws = UniformIndices(np.random.SeedSequence(0), np.full(G * width, h), G * width, width=width, bits=bits)
    asked = np.flatnonzero(np.random.default_rng(0).random(k * G) < 0.632)
    asked = asked[np.lexsort((asked // G, asked % G))]  # configuration after configuration, as complete_bootstrap
    return lambda: draws.units(k, asked), k * G * width


def configuration_counts(h, bits):
    from rlstats.methods.tuning import _kernels

    draws = UniformIndices(np.random.SeedSequence(0), h, h, bits=bits)
    k = _kernels.CELLS // (5 * h)  # a chunk's rows at 5 slots a configuration
    return lambda: _kernels.configuration_counts(draws, k), k * h


PATHS = {"rows, one bound": whole_rows, "rows, a bound per column": lambda h, b: whole_rows(h, b, True),
         "units of 5 (seeds)": seed_units, "configuration counts": configuration_counts}


def best(function, repeat):
    function()
    out = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        out = min(out, time.perf_counter() - start)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    times = {}
    for _ in range(args.rounds):
        for name, path in PATHS.items():
            for h in BOUNDS:
                for bits in (16, 32):
                    function, lanes = path(h, bits)
                    t = best(function, args.repeat) / lanes * 1e9
                    times[name, h, bits] = min(times.get((name, h, bits), np.inf), t)
    print("ns a lane, 16-bit / 32-bit (16-bit rejected share)")
    print("| path | " + " | ".join(f"{h:,} ({100 * (2**16 % h) / 2**16:.2f}%)" for h in BOUNDS) + " |")
    print("|---" * (len(BOUNDS) + 1) + "|")
    for name in PATHS:
        print(f"| {name} | " + " | ".join(f"{times[name, h, 16]:.2f} / {times[name, h, 32]:.2f}" for h in BOUNDS)
              + " |")


if __name__ == "__main__":
    main()
