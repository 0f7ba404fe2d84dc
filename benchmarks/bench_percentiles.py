"""Benchmark: the percentile bootstrap of performance percentiles (issue 6, Section 5).

Run from the repository root (BLAS pinned to one thread per process, as the
spec advises: on a 2-core machine threaded BLAS only oversubscribes)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_percentiles.py
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_percentiles.py --large   # adds 11 x 15 x 100, B = 10,000

Measured, on data from ``rlstats.datasets.simulate`` (effect 0.5):

1. 6 agents x 15 tasks x 10 runs, B = 1,000 bootstrap resamples, n_jobs = 1
   and 2 (target: under 5 s on 2 cores);
2. in the same run, a baseline that handles one resample at a time in a
   Python loop: draw each cell, compute the payoffs with searchsorted,
   fill the dense transition matrix block by block and solve the dense
   540 x 540 system (target: rlstats at least 4x faster);
3. with ``--large``: 11 agents x 15 tasks x 100 runs, B = 10,000, n_jobs = 2
   (|S| = 1,815 joint strategies);
4. PBP and PBP-t on both designs.

The numbers of rlstats and the baseline are compared on the first resamples
(they must agree: same draws, same game).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import rlstats
from rlstats.methods.percentiles import _kernels as kernels
from rlstats.methods.percentiles import percentiles

FORMULA = "score ~ agent | task"


def design(agents, tasks, runs):
    df = rlstats.datasets.simulate(agents=agents, tasks=tasks, seeds=runs, effect=0.5, rng=1)
    return rlstats.build(df, FORMULA)


def timed(function):
    start = time.perf_counter()
    out = function()
    return time.perf_counter() - start, out


# ----------------------------------------------------------------------------- the loop baseline


def loop_baseline(dsg, n_resamples, seed):
    """One resample at a time: payoffs by searchsorted, dense C filled by blocks, one dense solve each."""
    n_a, n_e = dsg.n_agents, dsg.n_tasks
    cells = [[np.sort(dsg.y[(dsg.agent == i) & (dsg.task == j)]) for i in range(n_a)] for j in range(n_e)]
    eta, gamma, n_states = kernels.game_constants(n_a, n_e)
    rng = np.random.default_rng(seed)
    rel = np.sqrt(np.finfo(float).eps)
    out = np.empty((n_resamples, n_a))
    for b in range(n_resamples):
        payoff = np.empty((n_a, n_e, n_a))
        for j in range(n_e):
            drawn = [np.sort(rng.choice(c, c.size)) for c in cells[j]]
            for k in range(n_a):
                for i in range(n_a):
                    wins = np.searchsorted(drawn[k], drawn[i], side="right").sum()
                    payoff[i, j, k] = 0.5 if i == k else wins / (drawn[i].size * drawn[k].size)
        u = payoff.reshape(n_a, -1)
        c = np.zeros((n_a, n_e * n_a, n_a, n_e * n_a))
        for i in range(n_a):  # adversary block of agent i
            new, old = -u[i][None, :], -u[i][:, None]
            close = np.abs(new - old) <= rel * np.maximum(np.abs(new), np.abs(old))
            c[i, :, i, :] = np.where(new > old, eta, np.where(close, eta / 50, 0.0))
        for r in range(n_e * n_a):  # agent-player block of adversary strategy r
            new, old = u[:, r][None, :], u[:, r][:, None]
            close = np.abs(new - old) <= rel * np.maximum(np.abs(new), np.abs(old))
            c[:, r, :, r] = np.where(new > old, eta, np.where(close, eta / 50, 0.0))
        c = c.reshape(n_states, n_states)
        c[np.arange(n_states), np.arange(n_states)] = 0.0
        c[np.arange(n_states), np.arange(n_states)] = 1.0 - c.sum(axis=1)
        d = np.linalg.solve((np.eye(n_states) - gamma * c).T, np.full(n_states, (1 - gamma) / n_states))
        out[b] = u @ d.reshape(n_a, -1).sum(axis=0)
    return out


# ----------------------------------------------------------------------------- main


def bootstrap_seconds(dsg, n_resamples, n_jobs):
    return timed(lambda: percentiles(dsg, interval="bootstrap", n_resamples=n_resamples, rng=0, n_jobs=n_jobs))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="also run 11 x 15 x 100 with B = 10,000")
    parser.add_argument("--baseline-resamples", type=int, default=1000, help="resamples of the loop baseline")
    args = parser.parse_args(argv)
    print(f"rlstats {rlstats.__version__}, numpy {np.__version__}, {os.cpu_count()} cores, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}")

    small = design(6, 15, 10)
    percentiles(small, interval="bootstrap", n_resamples=64, rng=0, n_jobs=2)  # start the worker pool once
    print(f"\n6 agents x 15 tasks x 10 runs (|S| = {6 * 6 * 15}), bootstrap B = 1,000")
    one, res1 = bootstrap_seconds(small, 1000, 1)
    two, res2 = bootstrap_seconds(small, 1000, 2)
    assert np.array_equal(res1.bootstrap_distribution, res2.bootstrap_distribution)
    print(f"  rlstats, n_jobs = 1: {one:6.2f} s")
    print(f"  rlstats, n_jobs = 2: {two:6.2f} s   (target < 5 s: {'met' if two < 5 else 'MISSED'}; "
          "identical resamples to n_jobs = 1)")
    b = args.baseline_resamples
    loop, baseline = timed(lambda: loop_baseline(small, b, seed=0))
    loop_1000 = loop * 1000 / b
    print(f"  loop baseline (one dense solve per resample): {loop_1000:6.2f} s"
          f"{'' if b == 1000 else f' (extrapolated from {b})'}")
    print(f"  speed-up over the loop: {loop_1000 / one:.1f}x on 1 core, {loop_1000 / two:.1f}x on 2 "
          f"(target >= 4x: {'met' if loop_1000 / two >= 4 else 'MISSED'})")
    check_against_loop(small)

    for label, dsg in (("6 x 15 x 10", small),) + ((("11 x 15 x 100", design(11, 15, 100)),) if args.large else ()):
        for interval in ("pbp", "pbp_t"):
            seconds, res = timed(lambda: percentiles(dsg, interval=interval))
            print(f"  {label}: {interval:6s} {seconds:6.2f} s (policy-iteration steps "
                  f"{res.pbp_iterations.min()}-{res.pbp_iterations.max()})")

    if args.large:
        large = design(11, 15, 100)
        print(f"\n11 agents x 15 tasks x 100 runs (|S| = {11 * 11 * 15}), bootstrap B = 10,000, n_jobs = 2")
        seconds, res = bootstrap_seconds(large, 10_000, 2)
        print(f"  rlstats: {seconds:6.1f} s ({seconds / 10_000 * 2e3:.1f} ms per resample and core)")
        single, _ = timed(lambda: loop_baseline(large, 5, seed=0))
        print(f"  loop baseline: {single / 5 * 1e3:.0f} ms per resample -> {single * 2000 / 60:.0f} min for B = 10,000 "
              "on 1 core (extrapolated from 5)")


def check_against_loop(dsg):
    """The batched kernels and the loop compute the same game: compare on resamples drawn alike."""
    layout = kernels.make_layout(dsg.y, dsg.agent, dsg.task, dsg.n_agents, dsg.n_tasks)
    payoff = kernels.resampled_payoffs(layout, np.random.default_rng(3), 4)
    for b in range(4):
        y_batched = kernels.aggregate(payoff[b], kernels.stationary(payoff[b][None], dense_limit=0)[0])
        y_dense = kernels.aggregate(payoff[b], kernels.stationary(payoff[b][None], dense_limit=10**9)[0])
        assert np.allclose(y_batched, y_dense, atol=1e-12, rtol=0)
    print("  check: iterative and dense solves agree to 1e-12 on 4 resamples")


if __name__ == "__main__":
    main()
