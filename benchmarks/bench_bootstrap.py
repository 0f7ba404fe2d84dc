"""Benchmark of the stratified bootstrap back end against rliable's published timings.

Run: ``python benchmarks/bench_bootstrap.py`` (``RLSTATS_DATA_MIRROR=/work/shared/data/raw``
for the Atari workload offline; a simulated stand-in of the same shape is used otherwise).

Workloads (issue 5, Section 6; spec anchors_ecosystem.md Section 1.8):

* rliable's own: 5 agents x 26 tasks x 10 runs (gamma scores), four metrics, 2,000
  resamples, percentile; rliable 1.2.0 took 1.8 s CPU (1.77-1.98 s), 3.1 s with BCa,
  3.6 s with task resampling, 61.6 s at 50,000 resamples, 9.7 s for an 81-point profile.
* Atari 100k: the six 100-run agents x 26 games (human-normalised), four metrics, 2,000
  resamples; probability of improvement for one pair (rliable: 46.4 s); an 81-point profile.
* memory: tracemalloc peak at 2,000 and 50,000 resamples (batches keep it bounded).

Each time is the best of several repeats, wall clock and process CPU time (numpy's BLAS may
use several threads, so CPU can exceed wall).  If rliable is importable it is timed on the
same data and the measured ratio printed as well.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

import rlstats
from rlstats.methods.bootstrap import bootstrap, performance_profile, probability_of_improvement
from measure import peak_memory  # benchmarks/measure.py

FORMULA = "score ~ agent | task"
SIX = ["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]
METRICS = ("median", "iqm", "mean", "optimality_gap")
#: rliable 1.2.0 timings from spec Section 1.8 (seconds).
RLIABLE = {"metrics": 1.8, "bca": 3.1, "task_bootstrap": 3.6, "metrics_50k": 61.6, "profile": 9.7,
           "improvement_pair": 46.4}


def best_of(function, repeats=7):
    """(best wall seconds, best CPU seconds) over ``repeats`` calls."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)




def rliable_workload(rng=0):
    """5 agents x 26 tasks x 10 runs of gamma-distributed scores, as in spec Section 1.8."""
    gen = np.random.default_rng(rng)
    rows = [(f"algo_{a}", f"task_{t:02d}", s, gen.gamma(2.0 + 0.1 * a, 0.5))
            for a in range(5) for t in range(26) for s in range(10)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def atari_workload():
    """Human-normalised Atari 100k runs of the six 100-run agents (simulated stand-in if unavailable)."""
    try:
        runs = rlstats.datasets.load("atari100k")
        reference = rlstats.datasets.load("atari100k_reference")
    except rlstats.DataUnavailableError as error:
        print(f"(Atari data unavailable: {error}; using simulated data of the same shape)")
        df = rlstats.datasets.simulate(agents=SIX, tasks=26, seeds=100, rng=0)
        return df, False
    return rlstats.normalize(runs[runs["agent"].isin(SIX)], reference), True


def try_rliable():
    try:
        from rliable import library
    except Exception as error:  # rliable's import chain is broken with pandas 3 (spec 1.1)
        return None, f"{type(error).__name__}: {str(error)[:80]}"
    return library, None


def report(rows):
    table = pd.DataFrame(rows, columns=["workload", "wall_s", "cpu_s", "rliable_s", "speedup_wall", "speedup_cpu"])
    with pd.option_context("display.width", 140, "display.max_columns", 10):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))


def main():
    rows = []
    small = rliable_workload()
    for label, key, kwargs in [
        ("5 x 26 x 10, 4 metrics, 2000 reps", "metrics", {}),
        ("  ... interval='bca'", "bca", {"interval": "bca"}),
        ("  ... task_bootstrap=True", "task_bootstrap", {"task_bootstrap": True}),
        ("  ... rliable_compat=True", "metrics", {"rliable_compat": True}),
    ]:
        wall, cpu = best_of(lambda: bootstrap(small, FORMULA, metrics=METRICS, n_resamples=2000, rng=0, **kwargs))
        rows.append((label, wall, cpu, RLIABLE[key], RLIABLE[key] / wall, RLIABLE[key] / cpu))
    wall, cpu = best_of(lambda: bootstrap(small, FORMULA, metrics=METRICS, n_resamples=50_000, rng=0), repeats=2)
    rows.append(("5 x 26 x 10, 4 metrics, 50000 reps", wall, cpu, RLIABLE["metrics_50k"],
                 RLIABLE["metrics_50k"] / wall, RLIABLE["metrics_50k"] / cpu))
    tau = np.linspace(0.0, 8.0, 81)
    wall, cpu = best_of(lambda: performance_profile(small, FORMULA, tau=tau, n_resamples=2000, rng=0))
    rows.append(("5 x 26 x 10, 81-point profile, 2000 reps", wall, cpu, RLIABLE["profile"],
                 RLIABLE["profile"] / wall, RLIABLE["profile"] / cpu))

    atari, real = atari_workload()
    name = "Atari 100k" if real else "simulated 6 x 26 x 100"
    wall, cpu = best_of(lambda: bootstrap(atari, FORMULA, metrics=METRICS, n_resamples=2000, rng=0), repeats=3)
    rows.append((f"{name}: 6 agents, 4 metrics, 2000 reps", wall, cpu, np.nan, np.nan, np.nan))
    pair = [("SPR", "DrQ(eps)")]
    wall, cpu = best_of(lambda: probability_of_improvement(atari, FORMULA, pairs=pair, n_resamples=2000, rng=0))
    rows.append((f"{name}: P(SPR > DrQ(eps)), 2000 reps", wall, cpu, RLIABLE["improvement_pair"],
                 RLIABLE["improvement_pair"] / wall, RLIABLE["improvement_pair"] / cpu))
    tau = np.linspace(0.0, 2.0, 81)
    wall, cpu = best_of(lambda: performance_profile(atari, FORMULA, tau=tau, n_resamples=2000, rng=0), repeats=3)
    rows.append((f"{name}: 81-point profile, 2000 reps", wall, cpu, np.nan, np.nan, np.nan))

    print("Timings (seconds; rliable figures from spec anchors_ecosystem.md 1.8, 5 x 26 x 10 workload):")
    report(rows)
    print("Targets: >= 20x faster than rliable; probability of improvement for one pair < 0.5 s.")

    print("\nMemory (tracemalloc peak, MB), Atari workload, four metrics:")
    for reps in (2000, 50_000):
        peak = peak_memory(lambda reps=reps: bootstrap(atari, FORMULA, metrics=METRICS, n_resamples=reps,
                                                       rng=0)) / 2**20
        stored = 6 * len(METRICS) * reps * 8 / 2**20
        print(f"  n_resamples = {reps:>6}: peak {peak:7.1f} MB (of which the stored bootstrap distribution "
              f"{stored:.1f} MB)")
    peak = peak_memory(lambda: probability_of_improvement(atari, FORMULA, pairs=pair, n_resamples=50_000,
                                                          rng=0)) / 2**20
    print(f"  probability of improvement, one pair, 50000 reps: peak {peak:.1f} MB")

    library, why = try_rliable()
    if library is None:
        print(f"\nrliable is not importable here ({why}); ratios use its published timings.")
    else:  # pragma: no cover - only where rliable installs
        from rliable import metrics as rly_metrics

        scores = {a: g.pivot(index="seed", columns="task", values="score").to_numpy()
                  for a, g in small.groupby("agent")}

        def aggregate(x):
            return np.array([rly_metrics.aggregate_median(x), rly_metrics.aggregate_iqm(x),
                             rly_metrics.aggregate_mean(x), rly_metrics.aggregate_optimality_gap(x)])

        wall, cpu = best_of(lambda: library.get_interval_estimates(scores, aggregate, reps=2000), repeats=2)
        ours, _ = best_of(lambda: bootstrap(small, FORMULA, metrics=METRICS, n_resamples=2000, rng=0))
        print(f"\nrliable measured here: {wall:.3f} s wall; rlstats {ours:.4f} s; ratio {wall / ours:.1f}x")


if __name__ == "__main__":
    main()
