"""Audit s27 (curvecmp27): the error of curves()' "above" claims between alike agents whose runs end early, at the
steps where a task has one run of an agent logged (withheld since audit s27, as the bands there) and at the others.

    PYTHONPATH=. nice -n 10 python tests/reference/curves_one_run_comparisons.py [--quick]   # about 2 CPU minutes

Two alike agents (each run a Gaussian AR(1) curve of 10 steps, phi 0.8, plus a run effect of sd 1, on tasks of offsets
0, 1, 2, ...), 5 runs of each per task; agent B's runs other than its first end after step 4 on ``cut`` of the tasks
(all of them, or one), so that from step 5 on those tasks have one run of B logged. ``compare=[("A", "B")]`` at
alpha = 0.05, 200 relabellings, seed 27. A data set counts as a false claim where some step is declared different
(the max-T test's family-wise error), split by where: at steps with 2 or more runs of both agents in every task
(kept), and at the steps with one run (withheld since audit s27: NaN p-values, counted 0 here from then on).
The max-T adjustment is over every step, the withheld ones included, so the kept steps' p-values are those of
before the change bit for bit. Measured (numpy 2, rlstats at audit s27, 1,000 data sets a row; Monte Carlo SE
about 0.007 at 0.05), any claim / at kept steps / at one-run steps, before the change:
mean, 3 tasks all cut: 0.144 / 0.033 / 0.118; mean, one of 3 cut: 0.098 / 0.029 / 0.078;
IQM, all cut: 0.134 / 0.039 / 0.108; IQM, one cut: 0.107 / 0.034 / 0.082.
After it, the same data sets and seeds: any claim is the kept steps' (0.033, 0.029, 0.039, 0.034), none at the
one-run steps. Relabelling a task's runs at a one-run step mixes the runs that ended with those logged: the observed
split is 1 run against 5, the relabellings' mostly near 3 against 3, whose differences vary less (1/3 + 1/3 of a
run's variance against 1 + 1/5), so the max-T null, studentised by their spread, made those steps' |t| too large.
"""

import sys

import numpy as np
import pandas as pd

#: (statistic, tasks, tasks cut, data sets)
DESIGNS = (("mean", 3, 3, 1000), ("mean", 3, 1, 1000), ("iqm", 3, 3, 1000), ("iqm", 3, 1, 1000))
SEED, N_RESAMPLES, RUNS, STEPS, STOP, ALPHA = 27, 200, 5, 10, 5, 0.05


def frame(rng, n_tasks, cut):
    """One data set: both agents alike; B's runs but its first end after step STOP - 1 on the first ``cut`` tasks."""
    rows = []
    for agent in ("A", "B"):
        for t in range(n_tasks):
            for s in range(RUNS):
                last = STOP if (agent == "B" and t < cut and s > 0) else STEPS
                noise = rng.normal(size=STEPS)
                curve = np.empty(STEPS)
                curve[0] = noise[0]
                for k in range(1, STEPS):
                    curve[k] = 0.8 * curve[k - 1] + 0.6 * noise[k]
                curve += t + rng.normal()
                rows += [(agent, f"t{t}", s, k, curve[k]) for k in range(last)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def measure(statistic, n_tasks, cut, n_sets, seed=SEED):
    """(any claim, claim at a kept step, claim at a one-run step): shares of ``n_sets`` data sets."""
    import rlstats
    rng = np.random.default_rng([seed, n_tasks, cut, len(statistic)])
    one_run = np.arange(STEPS) >= STOP if cut else np.zeros(STEPS, dtype=bool)
    hits = np.zeros(3)
    for i in range(n_sets):
        res = rlstats.curves(frame(rng, n_tasks, cut), "score ~ agent | task/seed", step="step",
                             statistic=statistic, compare=[("A", "B")], n_resamples=N_RESAMPLES, rng=seed * 100_000 + i)
        claim = res.difference_pvalues[0] <= ALPHA
        hits += [claim.any(), claim[~one_run].any(), claim[one_run].any()]
    return hits / n_sets


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    for statistic, n_tasks, cut, n_sets in DESIGNS:
        shares = measure(statistic, n_tasks, cut, 100 if quick else n_sets)
        print(f"{statistic}, {n_tasks} tasks, {cut} cut: any claim {shares[0]:.3f}, at kept steps {shares[1]:.3f}, "
              f"at one-run steps {shares[2]:.3f}", flush=True)
