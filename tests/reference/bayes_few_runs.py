"""What the hierarchical model (rlstats.bayes(..., model="hierarchical")) says at few runs a cell, against the same
model on all the runs: the evidence for its note on pairs with fewer than FEW_PAIRED_RUNS paired runs on a task
(audit s21, bayes21).

Atari 100k, human-normalised (atari100k_reference), rope 0.05, rng=0: a pair of agents on all 26 games, fitted on
disjoint sets of n runs (seeds k..k+n-1) and on all 100.  Needs RLSTATS_DATA_MIRROR.  Run from the repository root
(about 4 CPU-minutes; --quick: the sets of 3 runs of CURL vs DrQ(eps) only):

    RLSTATS_DATA_MIRROR=/work/shared/data/raw PYTHONPATH=. python tests/reference/bayes_few_runs.py

Measured (session 21).  CURL vs DrQ(eps), all 100 runs: P(better / rope / worse) 0.0001 / 0.079 / 0.921, delta0
-0.136 (95% interval -0.281 to -0.027); the signed-rank model 0.0001 / 0.009 / 0.991.

    runs  sets  P(rope)                      sets whose delta0 interval misses -0.136
    3     10    0.56-1.00 (>= 0.92 in 8)     9
    5     6     0.23-1.00 (>= 0.83 in 3)     4
    10    6     0.016-0.235 (P(worse) 0.77-0.98)  0

On the same sets of 3 runs the signed-rank model gave P(worse) 0.81-1.00.  With n paired runs on a task and sigma_i
flat a priori, the task's difference has a likelihood as heavy-tailed as a t with n - 2 degrees of freedom (a Cauchy
at 3 runs), so the model draws the tasks' differences towards delta0: at 3 runs (seeds 0-2) Breakout's observed
difference -1.76 had posterior mean -0.018 (interval -0.134 to 0.044).
"""

import sys

import numpy as np

import rlstats
from rlstats.datasets import load


def fit(frame, model="hierarchical"):
    res = rlstats.bayes(frame, "score ~ agent | task/seed", rope=0.05, normalize="atari100k_reference", model=model,
                        rng=0, progress=False)
    return res.comparisons.iloc[0]


def main(quick=False):
    df = load("atari100k")
    pair = df[df["agent"].isin(["CURL", "DrQ(eps)"])]
    if not quick:
        whole = fit(pair)
        print("all 100 runs:", np.round(whole[["p_better", "p_rope", "p_worse", "estimate", "conf_low",
                                                "conf_high"]].to_numpy(dtype=float), 4))
    for runs, sets in ((3, 10),) if quick else ((3, 10), (5, 6), (10, 6)):
        for k in range(0, runs * sets, runs):
            part = pair[(pair["seed"] >= k) & (pair["seed"] < k + runs)]
            h, s = fit(part), fit(part, "signed_rank")
            print(f"{runs} runs, seeds {k}-{k + runs - 1}: hierarchical P = {h.p_better:.3f} / {h.p_rope:.3f} / "
                  f"{h.p_worse:.3f}, delta0 {h.estimate:.4f} ({h.conf_low:.4f} to {h.conf_high:.4f}); "
                  f"signed-rank P(worse) {s.p_worse:.3f}", flush=True)


if __name__ == "__main__":
    main("--quick" in sys.argv)
