"""An issue-17 call (percentile, rliable_compat, one pair's probability of improvement, a profile) of this tree
and of another checkout, alternating in one process.

On a noisy machine two runs of the same code differ by up to 30%, so a change of a few percent
shows only when old and new are called in turn, under the same conditions.  The other checkout is
imported under another package name (rlstats' imports inside the package are relative)::

    git worktree add /tmp/before HEAD~1
    RLSTATS_DATA_MIRROR=/work/shared/data/raw python benchmarks/bench_against_checkout.py /tmp/before --rounds 20
    ... bench_against_checkout.py /tmp/before --call compat --n-jobs 2   # rliable_compat=True on two threads
    ... bench_against_checkout.py /tmp/before --call improvement         # also: --call profile

Prints each tree's best and median time and the median of the per-round ratios (before / now), and
checks that the two give the same intervals to 1e-12 (relative).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_speed_limit import FIVE, FORMULA, METRICS, atari, load  # noqa: E402

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

import rlstats  # noqa: E402


def import_checkout(root, name="rlstats_before"):
    """The ``rlstats`` package of another checkout, as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(root, "rlstats", "__init__.py"),
                                                  submodule_search_locations=[os.path.join(root, "rlstats")])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkout", help="root of the other checkout (holding rlstats/)")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--call", choices=sorted(CALLS), default="percentile")
    parser.add_argument("--n-jobs", type=int, default=1, help="threads of both calls")
    args = parser.parse_args()
    before = import_checkout(args.checkout)
    df = atari(FIVE)
    workload = CALLS[args.call]
    calls = {"before": lambda: workload(before, df, args.n_jobs), "now": lambda: workload(rlstats, df, args.n_jobs)}
    tables = {label: call().tidy() for label, call in calls.items()}  # also the untimed first calls
    columns = ["estimate", "conf_low", "conf_high"]
    np.testing.assert_allclose(tables["now"][columns].to_numpy(float), tables["before"][columns].to_numpy(float),
                               rtol=1e-12)
    print(f"load average before: {load()}")
    print(f"before: {before.__file__}\nnow:    {rlstats.__file__}")
    print(f"call: {args.call}, n_jobs={args.n_jobs}")
    times = {label: [] for label in calls}
    for _ in range(args.rounds):
        for label, call in calls.items():
            start = time.perf_counter()
            call()
            times[label].append(time.perf_counter() - start)
    for label, seconds in times.items():
        print(f"{label:7s} best {min(seconds):.4f} s, median {np.median(seconds):.4f} s over {args.rounds} rounds")
    ratio = np.median(np.array(times["before"]) / np.array(times["now"]))
    print(f"median of the per-round ratios before / now: {ratio:.3f}; the same intervals to 1e-12")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
