"""An issue-17 call (percentile, rliable_compat, one pair's probability of improvement, a profile) of this tree
and of another checkout, called in turn.

On a noisy machine two runs of the same code differ by up to 30%, so a change of a few percent
shows only when old and new are called in turn, under the same conditions.  Each tree runs in its own
worker process with its own ``PYTHONPATH`` (``measure.tree_env``: the package finds its back ends by name,
so two trees imported into one process run one tree's back ends, audit s35); the workers stay up and are
called in turn, each timing its own call::

    git worktree add /tmp/before HEAD~1
    RLSTATS_DATA_MIRROR=/work/shared/data/raw python benchmarks/bench_against_checkout.py /tmp/before --rounds 20
    ... bench_against_checkout.py /tmp/before --call compat --n-jobs 2   # rliable_compat=True on two threads
    ... bench_against_checkout.py /tmp/before --call improvement         # also: --call profile

Prints each tree's best and median time and the median of the per-round ratios (before / now), and
checks that the two give the same intervals to 1e-12 (relative) and that each worker loaded rlstats
modules from its own tree alone.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_speed_limit import FIVE, FORMULA, METRICS, atari, load  # noqa: E402
from measure import modules_outside, tree_env  # noqa: E402

#: The table's workloads (bench_speed_limit.py): package -> the call's result, on ``df``.
CALLS = {
    "percentile": lambda m, df, jobs: m.methods.bootstrap.bootstrap(df, FORMULA, metrics=METRICS, n_resamples=2000,
                                                                    rng=0, n_jobs=jobs),
    "compat": lambda m, df, jobs: m.methods.bootstrap.bootstrap(df, FORMULA, metrics=METRICS, n_resamples=2000,
                                                                rng=0, rliable_compat=True, n_jobs=jobs),
    "improvement": lambda m, df, jobs: m.methods.bootstrap.probability_of_improvement(
        df, FORMULA, pairs=[("SPR", "DrQ(eps)")], n_resamples=2000, rng=0, n_jobs=jobs),
    "profile": lambda m, df, jobs: m.methods.bootstrap.performance_profile(
        df, FORMULA, tau=np.linspace(0.0, 8.0, 81), n_resamples=2000, rng=0, n_jobs=jobs),
}

COLUMNS = ["estimate", "conf_low", "conf_high"]


def worker(root, call, jobs):
    """One tree's side: answer each line on stdin by one timed call, as a line of JSON (seconds, the intervals, the
    rlstats modules loaded from outside ``root``)."""
    import rlstats

    df = atari(FIVE)
    for _ in sys.stdin:
        start = time.perf_counter()
        result = CALLS[call](rlstats, df, jobs)
        seconds = time.perf_counter() - start
        print(json.dumps({"seconds": seconds, "file": rlstats.__file__, "outside": modules_outside(root),
                          "table": result.tidy()[COLUMNS].to_numpy(float).tolist()}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkout", help="root of the other checkout (holding rlstats/)")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--call", choices=sorted(CALLS), default="percentile")
    parser.add_argument("--n-jobs", type=int, default=1, help="threads of both calls")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # this tree's root, in a worker process
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.call, args.n_jobs)
    trees = {"before": args.checkout, "now": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    workers = {label: subprocess.Popen([sys.executable, os.path.abspath(__file__), root, "--worker", root,
                                        "--call", args.call, "--n-jobs", str(args.n_jobs)],
                                       env=tree_env(root), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
               for label, root in trees.items()}

    def call(label):
        workers[label].stdin.write("go\n")
        workers[label].stdin.flush()
        return json.loads(workers[label].stdout.readline())

    try:
        first = {label: call(label) for label in workers}  # also the untimed first calls
        for label, answer in first.items():
            if answer["outside"]:
                raise SystemExit(f"{label}: rlstats modules from outside {trees[label]}: {answer['outside']}")
        np.testing.assert_allclose(np.array(first["now"]["table"]), np.array(first["before"]["table"]), rtol=1e-12)
        print(f"load average before: {load()}")
        print(f"before: {first['before']['file']}\nnow:    {first['now']['file']}")
        print(f"call: {args.call}, n_jobs={args.n_jobs}")
        times = {label: [] for label in workers}
        for _ in range(args.rounds):
            for label in workers:
                times[label].append(call(label)["seconds"])
    finally:
        for process in workers.values():
            process.stdin.close()
            process.wait()
    for label, seconds in times.items():
        print(f"{label:7s} best {min(seconds):.4f} s, median {np.median(seconds):.4f} s over {args.rounds} rounds")
    ratio = np.median(np.array(times["before"]) / np.array(times["now"]))
    print(f"median of the per-round ratios before / now: {ratio:.3f}; the same intervals to 1e-12")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
