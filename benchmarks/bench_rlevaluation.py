"""Issue 43: the stratified bootstrap of the mean beside rlevaluation's numba loop, in ns per resampled run.

    python benchmarks/bench_rlevaluation.py --peer-python /tmp/rlev-venv/bin/python [--resamples 10000] [--repeat 5]
    python benchmarks/bench_rlevaluation.py --linearity        # rlstats alone: 10^5 -> 10^6 runs, few resamples

Workload: Atari 100k, 9 agents x 26 games (``atari100k.csv`` beside the repository, ``--data`` for another copy;
100, 15 or 5 runs a game, 16,250 runs), human-normalised. For every agent, a percentile interval of its mean over
runs by the stratified bootstrap (runs resampled within each game, each game keeping its number of runs).

* rlstats: ``rlstats.bootstrap(df, "score ~ agent | task", metrics=["mean"], interval="percentile")``, the 9
  agents in one call (its default ``interval="studentized"`` is timed too: it resamples the same runs and adds a
  variance per resample).
* rlevaluation 1.1.2 (``pip install rlevaluation numba``, in its own environment, run as ``--peer-python``):
  ``rlevaluation.statistics.stratified_percentile_bootstrap_ci`` per agent, with ``class_probs`` each game's share
  of the agent's runs (so each game draws its own number of runs), after a warm-up call that compiles (or loads
  numba's cache).

Both read the same arrays; CPU seconds by ``time.process_time`` (the machine may be shared), one thread, best of
``--repeat``; ns per resampled run = CPU / (resamples x 16,250).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data")


def atari(folder):
    """The 9 agents' human-normalised runs: (agents, games, list of per-(agent, game) arrays), a long frame."""
    import pandas as pd

    runs = pd.read_csv(os.path.join(folder, "atari100k.csv"))
    ref = pd.read_csv(os.path.join(folder, "atari100k_reference.csv")).set_index("task")
    random_, human = ref.loc[runs["task"], "random"].to_numpy(), ref.loc[runs["task"], "human"].to_numpy()
    runs["score"] = (runs["score"].to_numpy() - random_) / (human - random_)
    return runs[["agent", "task", "seed", "score"]]


def peer(path, resamples, repeat):
    """In rlevaluation's environment: time its stratified bootstrap per agent on the arrays in ``path``."""
    import numpy as np
    from rlevaluation.statistics import Statistic, stratified_percentile_bootstrap_ci

    blob = np.load(path, allow_pickle=True)
    cells = blob["cells"]  # object array: agents x games, each the runs' scores
    rng = np.random.default_rng(0)
    for row in cells:  # warm-up: compiles (or loads numba's cache) for each games' layout
        a = [np.asarray(c, dtype=np.float64) for c in row]
        stratified_percentile_bootstrap_ci(rng, a, np.array([len(c) for c in a]) / sum(map(len, a)),
                                           Statistic.mean, iterations=10)
    best, out = float("inf"), []
    for _ in range(repeat):
        start = time.process_time()
        out = []
        for row in cells:
            a = [np.asarray(c, dtype=np.float64) for c in row]
            probs = np.array([len(c) for c in a]) / sum(map(len, a))
            res = stratified_percentile_bootstrap_ci(rng, a, probs, Statistic.mean, iterations=resamples)
            out.append([float(res.ci[0]), float(res.ci[1])])
        best = min(best, time.process_time() - start)
    print(json.dumps({"cpu": best, "ci": out}))


def ours(df, resamples, repeat, interval):
    import rlstats
    from measure import best_of  # benchmarks/measure.py

    call = lambda: rlstats.bootstrap(df, "score ~ agent | task", metrics=["mean"], n_resamples=resamples,  # noqa: E731
                                     interval=interval, normalize=False, rng=0, progress=False)
    call()
    return best_of(call, repeat)


def compare(args):
    import numpy as np

    df = atari(args.data)
    agents, games = sorted(df["agent"].unique()), sorted(df["task"].unique())
    groups = df.groupby(["agent", "task"])["score"]
    cells = np.empty((len(agents), len(games)), dtype=object)
    for i, a in enumerate(agents):
        for j, g in enumerate(games):
            cells[i, j] = groups.get_group((a, g)).to_numpy()
    n = len(df)
    print(f"Atari 100k, {len(agents)} agents x {len(games)} games, {n:,} runs, {args.resamples:,} resamples, "
          f"best of {args.repeat} (CPU)")
    for interval in ("percentile", "studentized"):
        cpu, result = ours(df, args.resamples, args.repeat, interval)
        print(f"rlstats.bootstrap, mean, {interval:11s}: {cpu:6.3f} s CPU, "
              f"{cpu / (args.resamples * n) * 1e9:5.2f} ns per resampled run", flush=True)
    if args.peer_python:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "cells.npz")
            np.savez(path, cells=cells)
            out = subprocess.run([args.peer_python, __file__, "--peer", path, "--resamples", str(args.resamples),
                                  "--repeat", str(args.repeat)], capture_output=True, text=True, check=True)
        peer_result = json.loads(out.stdout.strip().splitlines()[-1])
        cpu = peer_result["cpu"]
        print(f"rlevaluation stratified_percentile_bootstrap_ci, per agent: {cpu:6.3f} s CPU, "
              f"{cpu / (args.resamples * n) * 1e9:5.2f} ns per resampled run")
        table = result.table if hasattr(result, "table") else None
        if table is not None:
            print(table)
        print("rlevaluation's intervals:", [[round(x, 4) for x in ci] for ci in peer_result["ci"]])


def linearity(args):
    """rlstats alone: the bootstrap of the mean at 10^5 and 10^6 runs, few resamples: 2 agents x 10 tasks x 5,000
    runs, then 10x the runs per cell (2 x 10 x 50,000) or 10x the tasks (2 x 100 x 5,000)."""
    import math

    import rlstats

    rows = {}
    for agents, tasks, runs in ((2, 10, 5_000), (2, 10, 50_000), (2, 100, 5_000)):
        df = rlstats.datasets.simulate(agents, tasks, runs, rng=0)
        total = agents * tasks * runs
        for interval in ("percentile", "studentized"):
            cpu, _ = ours(df, args.resamples, args.repeat, interval)
            rows[tasks, runs, interval] = cpu
            print(f"{agents} x {tasks} x {runs:,} = {total:>9,} runs, {args.resamples} resamples, mean, {interval:11s}: "
                  f"{cpu:6.3f} s CPU, {cpu / (args.resamples * total) * 1e9:5.2f} ns per resampled run", flush=True)
    for interval in ("percentile", "studentized"):
        for label, big in (("runs per cell", (10, 50_000)), ("tasks", (100, 5_000))):
            ratio = rows[(*big, interval)] / rows[10, 5_000, interval]
            print(f"exponent in {label} ({interval}): {math.log(ratio) / math.log(10):.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DATA)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--peer-python", help="a Python with rlevaluation and numba installed")
    parser.add_argument("--linearity", action="store_true")
    parser.add_argument("--peer", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peer:
        return peer(args.peer, args.resamples, args.repeat)
    if args.linearity:
        if args.resamples == 10_000:
            args.resamples = 100
        return linearity(args)
    return compare(args)


if __name__ == "__main__":
    main()
