"""Size of curves()' max-T permutation comparison under the null, with the pair named either way round.

    PYTHONPATH=. python tests/reference/size_curves_comparison.py [--sims 1000]

Null data sets: two alike agents, each run a random walk over 10 steps (normal or skewed increments) on its task's
offset, 1 or 2 tasks of 3 or 5 runs. Each data set is compared with the permutation null of
``rlstats.methods.curves._api._permutation_null`` (the IQM and the mean, 199 relabellings) and the single-step
max-T p-values of ``_kernels.max_t_pvalues``, once as (A, B) and once as (B, A); a data set is rejected when its
smallest adjusted p-value is at most alpha = 0.05. The two orders must give the same p-values bit for bit, and
the rejection rate must be within 3 Monte Carlo standard errors of alpha or below (the max-T test is exact up to
the discreteness of B relabellings: (1 + b) / (1 + B) <= alpha needs b <= 9 of 199).
"""

from __future__ import annotations

import argparse

import numpy as np

from rlstats.methods.curves import _api, _kernels

ALPHA, STEPS, N_RESAMPLES = 0.05, 10, 199


def null_runs(rng, tasks, runs, skewed):
    """(values, task_of) of each of two alike agents: runs sorted by task, random walks on the task's offset."""
    out = []
    offsets = rng.normal(size=tasks) * 10
    for _ in range(2):
        task_of = np.repeat(np.arange(tasks), runs)
        steps = rng.exponential(size=(task_of.size, STEPS)) - 1 if skewed else rng.normal(size=(task_of.size, STEPS))
        out.append((offsets[task_of][:, None] + np.cumsum(steps, axis=1), task_of))
    return out


def size(statistic, tasks, runs, skewed, sims, seed):
    options = _api.CurvesOptions(statistic=statistic, statistic_name=statistic, n_resamples=N_RESAMPLES)
    rng = np.random.default_rng(seed)
    rejected = 0
    for k in range(sims):
        a, b = null_runs(rng, tasks, runs, skewed)
        observed = [_api._estimate(v, t, tasks, options) for v, t in (a, b)]

        def child():  # the comparison's stream, afresh for each order (spawning from one advances it)
            return np.random.SeedSequence(seed, spawn_key=(k,))

        # as curves() runs them: (A, B) in the design's order, (B, A) on the same runs with the sign turned
        null_ab = _api._permutation_null(a, b, tasks, options, child())
        null_ba = _api._permutation_null(a, b, tasks, options, child(), sign=-1.0)
        p_ab, _ = _kernels.max_t_pvalues(observed[0] - observed[1], null_ab)
        p_ba, _ = _kernels.max_t_pvalues(observed[1] - observed[0], null_ba)
        assert np.array_equal(p_ab, p_ba, equal_nan=True)
        rejected += bool(np.nanmin(p_ab) <= ALPHA)
    return rejected / sims


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sims", type=int, default=1000)
    args = parser.parse_args()
    se = np.sqrt(ALPHA * (1 - ALPHA) / args.sims)
    print(f"{'statistic':10} {'tasks':>5} {'runs':>4} {'scores':7} {'size':>6}  (alpha {ALPHA}, 3 SE = {3 * se:.4f})")
    for statistic, tasks, runs, skewed in [("iqm", 1, 5, False), ("iqm", 2, 5, True), ("mean", 2, 3, True),
                                           ("mean", 1, 5, True)]:
        rate = size(statistic, tasks, runs, skewed, args.sims, seed=tasks * 100 + runs)
        flag = "" if rate <= ALPHA + 3 * se else "  ABOVE alpha + 3 SE"
        print(f"{statistic:10} {tasks:5d} {runs:4d} {'skewed' if skewed else 'normal':7} {rate:6.3f}{flag}")


if __name__ == "__main__":
    main()
