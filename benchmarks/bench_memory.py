"""Benchmark: peak memory of building a Design from a DataFrame, against the frame's own memory.

Run from the repository root::

    python benchmarks/bench_memory.py              # 10^6 runs per agent, two agents (issue 33 item 7)
    python benchmarks/bench_memory.py --runs 100000
    python benchmarks/bench_memory.py --where      # also the lines that hold the most memory at the peak

The frame is the one of ``bench_speed_limit.py --memory``: two agents (strings, as read from a CSV), 1,000
tasks (integer codes) and ``--runs / 1000`` seeds per task, gamma scores. Its own memory is
``DataFrame.memory_usage(deep=True)`` (the strings counted too). Peaks are tracemalloc's (numpy's buffers are
traced), each in its own run, for ``rlstats.build`` with ``score ~ agent | task`` and with
``score ~ agent | task/seed``, and for a whole ``rlstats.bootstrap`` from the frame. The goal (issue 33): the
build peaks within 2x the frame. The categorical form of the same frame (``--categorical``) is what
``rlstats.datasets.simulate`` returns.
"""

from __future__ import annotations

import argparse
import gc
import linecache
import tracemalloc

import numpy as np
import pandas as pd

import rlstats
from measure import peak_memory  # benchmarks/measure.py

TASKS = 1000
FORMULAS = ("score ~ agent | task", "score ~ agent | task/seed")


def frame(runs_per_agent, categorical=False, agents=2):
    gen = np.random.default_rng(0)
    runs = runs_per_agent // TASKS
    a, t, r = np.meshgrid(np.arange(agents), np.arange(TASKS), np.arange(runs), indexing="ij")
    df = pd.DataFrame({"agent": np.char.add("agent_", a.ravel().astype(str)).astype(object), "task": t.ravel(),
                       "seed": r.ravel(), "score": gen.gamma(2.0, 0.5, size=a.size)})
    return df.astype({"agent": "category"}) if categorical else df


def where(call, top=8):
    """The source lines holding the most traced memory at the moment of the peak (the largest snapshot)."""
    tracemalloc.start(25)
    peak, best = 0, None

    # Snapshot at the peak: tracemalloc keeps only the peak size, so sample snapshots from a profile hook.
    import sys

    def hook(frame_, event, arg):
        nonlocal peak, best
        if event in ("return", "c_return"):
            current = tracemalloc.get_traced_memory()[0]
            if current > peak * 1.02:
                peak, best = current, tracemalloc.take_snapshot()

    sys.setprofile(hook)
    try:
        call()
    finally:
        sys.setprofile(None)
        tracemalloc.stop()
    stats = best.statistics("traceback")
    print(f"    at {peak / 2**20:.1f} MB (sampled on every function return):")
    for stat in stats[:top]:
        frames = [f for f in stat.traceback if "rlstats" in f.filename] or list(stat.traceback)
        f = frames[-1]
        line = linecache.getline(f.filename, f.lineno).strip()
        print(f"    {stat.size / 2**20:7.1f} MB  {f.filename.split('rlstats/', 1)[-1]}:{f.lineno}  {line[:70]}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1_000_000, help="runs per agent (a multiple of 1000)")
    parser.add_argument("--categorical", action="store_true", help="the agent column as a categorical")
    parser.add_argument("--where", action="store_true", help="where the memory is at the build's peak")
    args = parser.parse_args(argv)

    df = frame(args.runs, args.categorical)
    own = df.memory_usage(deep=True).sum()
    print(f"rlstats {rlstats.__version__}: {len(df):,} rows (2 agents x {TASKS} tasks x {args.runs // TASKS} runs), "
          f"agent column {'categorical' if args.categorical else 'strings'}; frame {own / 2**20:.1f} MB "
          f"(deep; {df.memory_usage(deep=False).sum() / 2**20:.1f} MB without the strings' objects)")
    rlstats.build(df.iloc[::1000], FORMULAS[0])  # warm up: imports and patsy's caches
    for formula in FORMULAS:
        gc.collect()
        peak = peak_memory(lambda f=formula: rlstats.build(df, f))
        print(f"  build  {formula:<28} peak {peak / 2**20:7.1f} MB = {peak / own:4.2f} x the frame")
        if args.where:
            where(lambda f=formula: rlstats.build(df, f))
    design = rlstats.build(df, FORMULAS[0])
    held = sum(a.nbytes for a in (design.y, design.agent, design.task, design.row_position))
    print(f"  (the Design it returns holds {held / 2**20:.1f} MB of arrays)")
    del design
    gc.collect()
    peak = peak_memory(lambda: rlstats.bootstrap(df, FORMULAS[0], n_resamples=200, rng=0, normalize=False))
    print(f"  bootstrap from the frame, 200 resamples        peak {peak / 2**20:7.1f} MB = {peak / own:4.2f} x")


if __name__ == "__main__":
    main()
