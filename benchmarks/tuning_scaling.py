"""Issue 43: CPU seconds and peak memory of each of rlstats.tuning's default views, and their exponent in configurations.

    python benchmarks/tuning_scaling.py [--configs 1000 10000] [--seeds 10] [--views expected_max best_set ...]

One agent's synthetic sweep: configurations on a grid of two hyperparameters (``lr`` x ``gamma``), configuration
means N(0, 1), seed noise N(0, 1), ``--seeds`` seeds each. ``expected_max``, ``best_set`` and ``complete`` run on one
task; ``sensitivity`` needs two tasks, so it runs on two tasks of the same configurations with half the seeds each
(the same number of rows). ``default`` is one call with the default views (``views=None``) on the one-task sweep:
expected_max, best_set and complete sharing their seed resamples (sensitivity needs two tasks: a note). Each (view,
size) runs in a fresh process (``rlstats.tuning(..., views=[view])`` on the
default options, ``rng=0``): CPU seconds of the call by ``time.process_time`` (the machine may be shared: wall time
would count other people's work) and the process's peak resident memory (``resource.ru_maxrss``, pandas and the
frame included). The exponent is log(cost ratio) / log(size ratio) between the first and last sizes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

VIEWS = ("expected_max", "best_set", "complete", "sensitivity")
CHOICES = VIEWS + ("default",)


def sweep(n_configs, seeds, tasks):
    import numpy as np
    import pandas as pd

    side = math.isqrt(n_configs - 1) + 1
    rng = np.random.default_rng(0)
    mu = rng.normal(0, 1, (tasks, n_configs))
    config = np.arange(n_configs)
    rows = [pd.DataFrame({"agent": "ppo", "task": f"t{t}", "lr": np.repeat(config // side, seeds),
                          "gamma": np.repeat(config % side, seeds), "seed": np.tile(np.arange(seeds), n_configs),
                          "score": (mu[t][:, None] + rng.normal(0, 1, (n_configs, seeds))).ravel()})
            for t in range(tasks)]
    return pd.concat(rows, ignore_index=True)


def one(view, n_configs, seeds):
    """Run one view in this process; print its CPU seconds and peak memory as JSON."""
    import resource
    import time

    import rlstats

    two = view == "sensitivity"
    df = sweep(n_configs, max(seeds // 2, 2) if two else seeds, 2 if two else 1)
    cpu = time.process_time()
    rlstats.tuning(df, "score ~ agent | task/seed", config=["lr", "gamma"], views=None if view == "default" else [view],
                   rng=0)
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    print(json.dumps({"view": view, "configs": n_configs, "cpu": cpu, "peak_mb": peak}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--views", nargs="+", choices=CHOICES, default=list(CHOICES))
    parser.add_argument("--one", nargs=2, metavar=("VIEW", "CONFIGS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return one(args.one[0], int(args.one[1]), args.seeds)
    results = {}
    for view in args.views:
        for n in args.configs:
            out = subprocess.run([sys.executable, __file__, "--one", view, str(n), "--seeds", str(args.seeds)],
                                 check=True, capture_output=True, text=True).stdout
            results[view, n] = json.loads(out.strip().splitlines()[-1])
            print(f"{view:13s} {n:>7,} configurations x {args.seeds} seeds: {results[view, n]['cpu']:7.2f} s CPU, "
                  f"peak {results[view, n]['peak_mb']:6.0f} MB", flush=True)
    lo, hi = min(args.configs), max(args.configs)
    if lo < hi:
        for view in args.views:
            ratio = results[view, hi]["cpu"] / max(results[view, lo]["cpu"], 1e-9)
            print(f"{view:13s} exponent in configurations ({lo:,} -> {hi:,}): {math.log(ratio) / math.log(hi / lo):.2f}")
    print(f"the views one at a time at {hi:,}, summed: "
          f"{sum(results[v, hi]['cpu'] for v in args.views if v != 'default'):.2f} s CPU")


if __name__ == "__main__":
    main()
