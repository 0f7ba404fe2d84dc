"""False coverage-statement rate of the task table's intervals against the next-ranked agent (issue 41 item 3).

Each simulated task has k agents with normal runs (sd 1) whose true means are spaced ``spacing`` apart; the agents
are ordered by their mean run, and each agent's A12 and Hedges' g intervals against the agent ranked just above it
are computed as ``rlstats.task_table`` does (``effect_intervals="fcr"``: each at 1 - 2 (1 - 0.95) / k). The share of
a task's k - 1 intervals that miss the true value (A12 = Phi(delta / sqrt 2), delta the standardised difference of
the pair's true means), averaged over 600 tasks, is the false coverage-statement rate, which the bound of
Benjamini and Yekutieli (2005) keeps at most 0.05. Normal runs only: the skewed, heavy-tailed and capped scores of
the calibration grid were not run for these intervals.

    PYTHONPATH=. python tests/reference/coverage_next_ranked.py      (about a minute)

Measured (numpy 2, seed 5), rate (Monte Carlo SE):
    k=3 runs=3 spacing=0.5: A12 0.003 (0.001), Hedges' g 0.023 (0.004)
    k=4 runs=5 spacing=0.5: A12 0.011 (0.002), Hedges' g 0.016 (0.003)
    k=8 runs=5 spacing=0.3: A12 0.003 (0.001), Hedges' g 0.006 (0.001)
    k=4 runs=10 spacing=0.0: A12 0.000 (0.000), Hedges' g 0.001 (0.001)
    k=4 runs=3 spacing=1.0: A12 0.007 (0.002), Hedges' g 0.026 (0.004)
"""

import math

import numpy as np
from scipy import stats

from rlstats.methods.task_table import _kernels as kernels

DESIGNS = ((3, 3, 0.5), (4, 5, 0.5), (8, 5, 0.3), (4, 10, 0.0), (4, 3, 1.0))  # (agents, runs, spacing)


def main(n_tasks=600, level=0.95, seed=5):
    rng = np.random.default_rng(seed)
    for k, runs, spacing in DESIGNS:
        mu = np.arange(k) * spacing
        missed_a12, missed_g = [], []
        for _ in range(n_tasks):
            x = rng.standard_normal((k, runs)) + mu[:, None]
            order = np.argsort(-x.mean(axis=1), kind="stable")
            pairs = [(x[order[i - 1]], x[order[i]]) for i in range(1, k)]
            a12, g, _ = kernels.effect_sizes(pairs, level, pairs, intervals="fcr",
                                             effect_levels=kernels.fcr_level(level, np.full(k - 1, k)))
            delta = np.array([mu[order[i - 1]] - mu[order[i]] for i in range(1, k)])
            true_a12 = stats.norm.cdf(delta / math.sqrt(2))
            missed_a12.append(np.mean((true_a12 < a12[:, 1]) | (true_a12 > a12[:, 2])))
            missed_g.append(np.mean((delta < g[:, 1]) | (delta > g[:, 2])))
        se = [np.std(m) / math.sqrt(n_tasks) for m in (missed_a12, missed_g)]
        print(f"k={k} runs={runs} spacing={spacing}: A12 {np.mean(missed_a12):.3f} ({se[0]:.3f}), "
              f"Hedges' g {np.mean(missed_g):.3f} ({se[1]:.3f})")


if __name__ == "__main__":
    main()
