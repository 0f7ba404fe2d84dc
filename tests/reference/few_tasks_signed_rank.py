"""How often the Bayesian signed-rank test (rlstats.bayes, default prior) gives a decisive probability with identical
agents, by number of tasks: the evidence for bayes' FEW_TASKS note (issue 41 items 1-2).

Task-level differences iid N(0, 1) (a symmetric null), rope 0 and 0.1, 300 data sets per row, 2000 Dirichlet draws;
"decisive" is P(better) or P(worse) >= 0.95. Run from the repository root (about 2.5 CPU-minutes):

    PYTHONPATH=. python tests/reference/few_tasks_signed_rank.py

Measured (rlstats 0.2.0.dev0): rope 0: 1 task 1.000, 2 tasks 0.473, 3 0.273, 4 0.237, 5 0.237, 6 0.167, 8 0.133;
rope 0.1: 1 task 0.000 (one task's Walsh averages d and d/2 share the region of d), 2 tasks 0.347, 3 0.203,
4 0.153, 5 0.173, 6 0.160, 8 0.123.
"""

import warnings

import numpy as np
import pandas as pd

import rlstats


def decisive_share(n_tasks, rope, sims=300):
    hits = 0
    for k in range(sims):
        d = np.random.default_rng([n_tasks, k]).standard_normal(n_tasks)
        df = pd.DataFrame({"agent": ["A"] * n_tasks + ["B"] * n_tasks,
                           "task": [f"t{i}" for i in range(n_tasks)] * 2, "score": np.r_[d, np.zeros(n_tasks)]})
        p = rlstats.bayes(df, "score ~ agent | task", rope=rope, n_samples=2000, rng=k, normalize=False).comparisons
        hits += bool(max(p["p_better"].iloc[0], p["p_worse"].iloc[0]) >= 0.95)
    return hits / sims


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for rope in (0.0, 0.1):
        for n in (1, 2, 3, 4, 5, 6, 8):
            print(f"rope {rope} tasks {n}: decisive in {decisive_share(n, rope):.3f}", flush=True)
