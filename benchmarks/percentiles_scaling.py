"""Scaling of ``percentiles`` with PBP (the default interval) in agents, tasks and runs (issue 43 item 1).

One process per size, CPU seconds (``time.process_time``, all threads of the
process) and peak resident memory (``ru_maxrss``); run from the repository root::

    python benchmarks/percentiles_scaling.py                         # BLAS threads as configured
    OPENBLAS_NUM_THREADS=1 python benchmarks/percentiles_scaling.py  # one BLAS thread
    python benchmarks/percentiles_scaling.py --only 10x100x10 --limit 120

Each size runs in a child process with a CPU limit (``--limit`` seconds, RLIMIT_CPU):
a size that exceeds it is reported as "> limit".  The exponent between two sizes is
log(cpu ratio) / log(size ratio).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

SIZES = [(5, 20, 10), (10, 20, 10), (20, 20, 10), (5, 100, 10), (10, 100, 10), (20, 100, 10),
         (5, 1000, 10), (10, 1000, 10), (10, 20, 5), (10, 20, 100), (10, 100, 5), (10, 100, 100)]


def child(agents: int, tasks: int, runs: int) -> None:
    import resource
    import time

    import rlstats

    df = rlstats.datasets.simulate(agents=agents, tasks=tasks, seeds=runs, effect=0.5, rng=1)
    start = time.process_time()
    res = rlstats.percentiles(df, "score ~ agent | task", interval="pbp")
    cpu = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    low = [] if res.conf_low is None else [float(v) for v in res.conf_low]
    high = [] if res.conf_high is None else [float(v) for v in res.conf_high]
    print(json.dumps({"cpu": cpu, "peak_mb": peak, "low": low, "high": high,
                      "est": [float(v) for v in res.estimate]}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=120.0, help="CPU seconds per size")
    parser.add_argument("--only", nargs="*", default=None, help="sizes as AxTxR")
    parser.add_argument("--child", default=None)
    args = parser.parse_args()
    if args.child:
        child(*map(int, args.child.split("x")))
        return
    sizes = SIZES if not args.only else [tuple(map(int, s.split("x"))) for s in args.only]
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    print(f"{'agents':>6} {'tasks':>5} {'runs':>4} {'cpu s':>8} {'peak MB':>8}")
    results = {}
    for a, t, r in sizes:
        limit = int(args.limit)
        cmd = [sys.executable, "-c",
               f"import resource; resource.setrlimit(resource.RLIMIT_CPU, ({limit}, {limit + 1}));"
               f"import sys; sys.argv = ['x', '--child', '{a}x{t}x{r}'];"
               "import runpy; runpy.run_path('benchmarks/percentiles_scaling.py', run_name='__main__')"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{a:>6} {t:>5} {r:>4} {'> ' + str(limit):>8} {'':>8}", flush=True)
            continue
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        results[(a, t, r)] = out["cpu"]
        print(f"{a:>6} {t:>5} {r:>4} {out['cpu']:8.2f} {out['peak_mb']:8.0f}", flush=True)
    pairs = [((5, 20, 10), (10, 20, 10), 0), ((10, 20, 10), (20, 20, 10), 0), ((5, 100, 10), (10, 100, 10), 0),
             ((10, 100, 10), (20, 100, 10), 0), ((5, 20, 10), (5, 100, 10), 1), ((5, 100, 10), (5, 1000, 10), 1),
             ((10, 20, 10), (10, 100, 10), 1), ((10, 100, 10), (10, 1000, 10), 1), ((10, 20, 5), (10, 20, 10), 2),
             ((10, 20, 10), (10, 20, 100), 2), ((10, 100, 5), (10, 100, 10), 2), ((10, 100, 10), (10, 100, 100), 2)]
    for small, large, axis in pairs:
        if small in results and large in results:
            ratio = large[axis] / small[axis]
            exponent = math.log(results[large] / results[small]) / math.log(ratio)
            name = ("agents", "tasks", "runs")[axis]
            print(f"exponent in {name}: {small} -> {large}: {exponent:.2f}")


if __name__ == "__main__":
    main()
