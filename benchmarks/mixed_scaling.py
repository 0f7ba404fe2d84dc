"""Issue 43: CPU seconds and peak memory of rlstats.mixed, and its exponent in tasks, runs or agents.

    python benchmarks/mixed_scaling.py [--tasks 30 100 300 1000] [--agents 10] [--seeds 10] [--ddf satterthwaite]
    python benchmarks/mixed_scaling.py --tasks 1000 --seeds 10 100          # runs per cell (rows) grow
    python benchmarks/mixed_scaling.py --tasks 1000 --agents 3 10 30        # agents grow

One of ``--tasks``, ``--agents``, ``--seeds`` may take several values: that one varies, the others stay fixed.

Data: ``rlstats.datasets.simulate(agents, tasks, seeds, rng=0)`` (agents x tasks x seeds runs, so the model has the
task and task x agent intercepts). Each size runs in a fresh process: CPU seconds (``time.process_time``: the
machine may be shared, wall time would count other people's work) of the first ``rlstats.mixed`` call (imports of
scipy's modules included) and of the faster of two later, warm, calls; the process's peak resident memory
(``resource.ru_maxrss``, pandas and the frame included) beside the call's own peak allocation (``tracemalloc``, a
fourth call, so that its bookkeeping does not inflate the CPU figures). The exponent is log(cost ratio) / log(size
ratio) between consecutive sizes, of the warm and of the cold call, and of the marginal warm cost (the cost minus
that of the smallest size, mostly fixed costs). With ``--repeat R``, R fresh processes per size; the fastest
figures are kept.
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


def one(agents, tasks, seeds, ddf):
    """Fit one model in this process; print its CPU seconds and peak memory as JSON."""
    import resource
    import time
    import tracemalloc

    import rlstats

    df = rlstats.datasets.simulate(agents, tasks, seeds, rng=0)
    cpu = time.process_time()
    rlstats.mixed(df, "score ~ agent | task", ddf=ddf)
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    warm = []
    for _ in range(2):  # the faster of two warm calls: a shared machine's interruptions only add time
        start = time.process_time()
        rlstats.mixed(df, "score ~ agent | task", ddf=ddf)
        warm.append(time.process_time() - start)
    tracemalloc.start()
    rlstats.mixed(df, "score ~ agent | task", ddf=ddf)
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(json.dumps({"cpu": cpu, "warm": min(warm), "peak_mb": peak, "call_mb": traced}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, nargs="+", default=[30, 100, 300, 1000])
    parser.add_argument("--agents", type=int, nargs="+", default=[10])
    parser.add_argument("--seeds", type=int, nargs="+", default=[10])
    parser.add_argument("--ddf", default="satterthwaite", choices=["satterthwaite", "kenward-roger"])
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per size (the fastest is kept)")
    parser.add_argument("--one", type=int, nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return one(*args.one, args.ddf)
    sizes = {"agents": args.agents, "tasks": args.tasks, "seeds": args.seeds}
    varying = [name for name, values in sizes.items() if len(values) > 1] or ["tasks"]
    if len(varying) > 1:
        parser.error(f"only one of --agents, --tasks, --seeds may take several values, not {' and '.join(varying)}")
    name = varying[0]
    first = previous = None
    for value in sizes[name]:
        shape = {key: (value if key == name else values[0]) for key, values in sizes.items()}
        runs = []
        for _ in range(args.repeat):
            out = subprocess.run([sys.executable, __file__, "--one", str(shape["agents"]), str(shape["tasks"]),
                                  str(shape["seeds"]), "--ddf", args.ddf],
                                 check=True, capture_output=True, text=True).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
        now = {key: min(run[key] for run in runs) for key in runs[0]}
        slope = ""
        if previous is not None:
            ratio = math.log(value / previous[0])
            slope = (f", exponent in {name} {math.log(now['warm'] / previous[1]['warm']) / ratio:.2f} warm, "
                     f"{math.log(now['cpu'] / previous[1]['cpu']) / ratio:.2f} cold")
            if previous[0] != first[0] and now["warm"] > previous[1]["warm"] > first[1]["warm"]:
                # the marginal cost: above the smallest size's, which is mostly fixed cost
                marginal = (now["warm"] - first[1]["warm"]) / (previous[1]["warm"] - first[1]["warm"])
                slope += f", marginal (warm minus the smallest size's) {math.log(marginal) / ratio:.2f}"
        print(f"{shape['agents']} x {shape['tasks']:>5,} x {shape['seeds']} ({args.ddf}): {now['cpu']:7.2f} s CPU "
              f"(warm {now['warm']:6.2f}), peak {now['peak_mb']:6.0f} MB (call {now['call_mb']:6.1f} MB){slope}",
              flush=True)
        previous = (value, now)
        first = first or previous

if __name__ == "__main__":
    main()
