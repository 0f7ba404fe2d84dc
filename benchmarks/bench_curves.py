"""Benchmark of the learning-curves back end on the Dopamine Atari baselines.

Run from the repository root: ``python benchmarks/bench_curves.py`` (with
``RLSTATS_DATA_MIRROR=../shared/data/raw`` offline; a simulated stand-in of the same shape is used
when the data cannot be loaded).

Workload (issue 13): 60 games x 6 agents x 5 runs x 199 iterations, IQM at every iteration with
2,000 whole-run stratified bootstrap resamples, pointwise and simultaneous bands; then the same
with one max-T curve comparison. Goal: under 15 s on 2 cores with bounded memory. Peak memory is
tracemalloc's (numpy's buffers are traced).

If rliable is importable, its sample-efficiency recipe (``get_interval_estimates`` with an IQM
per frame, a Python loop over frames inside every replicate) is timed on the same data at fewer
resamples, since its time grows linearly with them, and the time for 2,000 is projected.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import rlstats
from measure import best_time, peak_memory  # benchmarks/measure.py

FORMULA = "score ~ agent | task/seed"


def dopamine():
    try:
        return rlstats.datasets.load("dopamine_atari"), "Dopamine Atari baselines"
    except rlstats.DataUnavailableError as error:
        print(f"(data unavailable: {error}; using simulated curves of the same shape)")
        return rlstats.datasets.simulate_curves(agents=6, tasks=60, seeds=5, steps=199, rng=0), "simulated stand-in"


def rliable_time(data, reps):
    try:
        from rliable import library as rly
        from rliable import metrics
    except Exception as error:  # not installed, or its arch dependency breaks on this pandas
        return f"{type(error).__name__}: {error}"
    scores = {}
    for agent, part in data.groupby("agent", sort=True):
        cube = part.pivot_table(index=["seed"], columns=["task", "step"], values="score")
        n_tasks, n_steps = part["task"].nunique(), part["step"].nunique()
        scores[agent] = cube.to_numpy().reshape(len(cube), n_tasks, n_steps)

    def iqm_per_frame(x):
        return np.array([metrics.aggregate_iqm(x[..., f]) for f in range(x.shape[-1])])

    start = time.perf_counter()
    rly.get_interval_estimates(scores, iqm_per_frame, reps=reps)
    return time.perf_counter() - start


def gap_rule(n_steps):
    """The optimality gap's raw-scores rule read at each of ``n_steps`` grid steps (curves' notes): 2 agents x 3 tasks x
    5 runs rising through gamma = 1, 5% of the logs missing. A Python loop over steps took ~12 s at 100k (audit s20)."""
    import pandas as pd

    from rlstats.design import design_of
    from rlstats.methods.curves._api import _raw_gap_notes

    runs = pd.DataFrame({"agent": np.repeat(["A", "B"], 15), "task": np.tile(np.repeat(["t0", "t1", "t2"], 5), 2),
                         "seed": np.tile(np.arange(5), 6), "score": 0.0})
    design = design_of(runs, FORMULA, normalize=False)
    rng = np.random.default_rng(0)
    matrix = rng.normal(1, 0.8, size=(30, n_steps)) + np.linspace(-3, 3, n_steps)
    matrix[rng.random(matrix.shape) < 0.05] = np.nan
    return lambda: _raw_gap_notes(design, 1.0, matrix, np.arange(30), np.arange(n_steps) * 1000)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=2_000)
    parser.add_argument("--rliable-reps", type=int, default=20)
    args = parser.parse_args(argv)
    data, source = dopamine()
    print(f"rlstats {rlstats.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} cores; {source}: {data['agent'].nunique()} agents x {data['task'].nunique()} tasks "
          f"x {data['seed'].nunique()} runs x {data['step'].nunique()} steps, {args.resamples} resamples")

    def bands(n_jobs, compare=None):
        return lambda: rlstats.curves(data, FORMULA, step="step", n_resamples=args.resamples, rng=0,
                                      n_jobs=n_jobs, compare=compare)

    for label, run in [("IQM bands, n_jobs=1", bands(1)), ("IQM bands, n_jobs=2", bands(2)),
                       ("IQM bands + 1 comparison, n_jobs=2", bands(2, [("Rainbow", "IQN")]))]:
        seconds = best_time(run, 2)
        verdict = "met" if seconds < 15 or "comparison" in label else "MISSED"
        print(f"{label:40s} {seconds:7.2f} s   (goal < 15 s for bands: {verdict})")
    print(f"{'peak memory, IQM bands, n_jobs=1':40s} {peak_memory(bands(1)) / 2**20:7.0f} MB")

    seconds = best_time(gap_rule(100_000), 2)
    print(f"{'raw optimality-gap rule, 100k steps':40s} {seconds:7.2f} s   (its notes read the rule at every step)")

    seconds = rliable_time(data, args.rliable_reps)
    if isinstance(seconds, str):
        print(f"rliable does not import here ({seconds[:120]}): its per-frame recipe was not timed")
    else:
        print(f"{'rliable per-frame IQM, ' + str(args.rliable_reps) + ' reps':40s} {seconds:7.2f} s   "
              f"(projected for {args.resamples}: {seconds * args.resamples / args.rliable_reps:.0f} s)")


if __name__ == "__main__":
    main()
