"""Speed of rlstats.tuning's best set: 10,000 configurations x 10 seeds, 10,000 resamples, one core.

    python benchmarks/bench_tuning.py [--data landscape|synthetic]

Times the best-set view (the bootstrap of the whole selection) through the public function, on the real
LunarLander landscape (``hpo_landscapes``, gamma x distance weight: 10,000 configurations x 10 seeds, needs
RLSTATS_DATA_MIRROR or the network) or on a synthetic sweep of the same size, and rlevaluation's
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
    mu = rng.normal(0, 1, 10_000)
    return pd.DataFrame({"agent": "ppo", "task": "t", "config": np.repeat(np.arange(10_000), 10),
                         "seed": np.tile(np.arange(10), 10_000),
                         "score": (mu[:, None] + rng.normal(0, 1, (10_000, 10))).ravel()})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=("landscape", "synthetic"), default="synthetic")
    args = parser.parse_args()
    df = sweep(args.data)
    print(f"{args.data}: {df['config'].nunique():,} configurations x {df.groupby('config').size().max()} seeds, "
          f"{N_RESAMPLES:,} resamples")
    start = time.perf_counter()
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="config", views=["best_set"],
                         n_resamples=N_RESAMPLES, rng=0)
    ours = time.perf_counter() - start
    best = res.best_set()
    print(f"rlstats.tuning(views=['best_set']): {ours:.2f} s; best set {int(best['in_best_set'].sum())} "
          f"configurations, top probability {best['probability_best'].max():.3f}")
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
    theirs = bootstrap_hyper_selection(np.random.default_rng(0), values, Statistic.mean.value, "high", 0.05,
                                       N_RESAMPLES)
    print(f"rlevaluation.bootstrap_hyper_selection: {time.perf_counter() - start:.2f} s (plus {compile_time:.1f} s "
          f"numba compile); best set {len(theirs.uncertainty_set_idxs)} configurations")


if __name__ == "__main__":
    main()
