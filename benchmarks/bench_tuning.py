"""Speed of rlstats.tuning's best set: 10,000 configurations x 10 seeds, 10,000 resamples, one core.

    taskset -c 0 python benchmarks/bench_tuning.py [--data landscape|synthetic|alike] [--ours-only]

Times the best-set view (the bootstrap of the whole selection) through the public function, on the real
LunarLander landscape (``hpo_landscapes``, gamma x distance weight: 10,000 configurations x 10 seeds, needs
RLSTATS_DATA_MIRROR or the network) or on a synthetic sweep of the same size (``synthetic``: configuration means
N(0, 1); ``alike``: every configuration's mean 0, the worst case, where pruning saves least), and rlevaluation's
``bootstrap_hyper_selection`` (numba, one resample at a time) on the same data when it is installed (its first call
compiles; the compile is timed apart).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import rlstats  # noqa: E402

N_RESAMPLES = 10_000


def sweep(kind):
    if kind == "landscape":
        land = rlstats.datasets.load("hpo_landscapes")
        return land[land["landscape"] == "gamma_distance-weight"].assign(agent="ppo")
    rng = np.random.default_rng(0)
    mu = rng.normal(0, 1, 10_000) if kind == "synthetic" else np.zeros(10_000)
    return pd.DataFrame({"agent": "ppo", "task": "t", "config": np.repeat(np.arange(10_000), 10),
                         "seed": np.tile(np.arange(10), 10_000),
                         "score": (mu[:, None] + rng.normal(0, 1, (10_000, 10))).ravel()})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=("landscape", "synthetic", "alike"), default="synthetic")
    parser.add_argument("--ours-only", action="store_true", help="time rlstats only, not rlevaluation")
    args = parser.parse_args()
    df = sweep(args.data)
    print(f"{args.data}: {df['config'].nunique():,} configurations x {df.groupby('config').size().max()} seeds, "
          f"{N_RESAMPLES:,} resamples")
    start, cpu = time.perf_counter(), time.process_time()
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="config", views=["best_set"],
                         n_resamples=N_RESAMPLES, rng=0)
    ours, cpu = time.perf_counter() - start, time.process_time() - cpu
    best = res.best_set()
    # CPU time beside the wall time: on a shared machine the wall time also counts other people's work
    print(f"rlstats.tuning(views=['best_set']): {ours:.2f} s ({cpu:.2f} s CPU); best set "
          f"{int(best['in_best_set'].sum())} configurations, top probability {best['probability_best'].max():.3f}")
    if args.ours_only:
        return
    try:
        from numba.typed import List
        from rlevaluation.hypers.simulation import bootstrap_hyper_selection
        from rlevaluation.statistics import Statistic
    except ImportError:
        print("rlevaluation is not installed: pip install rlevaluation to time it beside")
        return
    values = List([g["score"].to_numpy(dtype=np.float64) for _, g in df.groupby("config", sort=True)])
    start = time.perf_counter()
    bootstrap_hyper_selection(np.random.default_rng(0), List(values[:3]), Statistic.mean.value, "high", 0.05, 10)
    compile_time = time.perf_counter() - start
    start = time.perf_counter()
    try:
        theirs = bootstrap_hyper_selection(np.random.default_rng(0), values, Statistic.mean.value, "high", 0.05,
                                           N_RESAMPLES)
    except ZeroDivisionError as error:  # rlevaluation 1.1.2 on --data alike: no configuration reaches the threshold
        print(f"rlevaluation.bootstrap_hyper_selection: failed after {time.perf_counter() - start:.2f} s "
              f"(ZeroDivisionError: {error})")
        return
    print(f"rlevaluation.bootstrap_hyper_selection: {time.perf_counter() - start:.2f} s (plus {compile_time:.1f} s "
          f"numba compile); best set {len(theirs.uncertainty_set_idxs)} configurations")


if __name__ == "__main__":
    main()
