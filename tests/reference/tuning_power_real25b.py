"""Independent reference values for tests/test_audit_s25_real25b.py (audit s25, real25b), written without rlstats.

1. The best-set bootstrap of ``rlstats.tuning`` by a hand loop: 8 configurations of the published PPO LunarLander
   landscape ``learning-rate_velocity-weight`` (Dierkes et al. 2024; rows 540, 965, 974, 3494, 4369, 8123, 8491,
   9415 of the file, 10 seeds each), 20,000 resamples of the seeds within each configuration: each configuration's
   share of resamples in which its mean is the largest, and the optimism (largest resampled mean less the data mean of
   the configuration reaching it), its mean and 0.975 quantile.
2. The power of the blocked rank test from a pilot of Atari 100k (DER and DrQ, first 10 runs on Pong, Breakout,
   Boxing, Freeway, Kangaroo), each agent resampled from its own runs, no shift: 300 data sets per number of seeds,
   each tested by a two-sided permutation test of agent DER's summed within-task midranks (2,000 permutations within
   tasks; with equal cells the Mack-Skillings statistic is a monotone function of it).

Run from the repository root (about 35 s):
    RLSTATS_DATA_MIRROR=/path/to/raw python tests/reference/tuning_power_real25b.py /path/to/shared/data
Printed (numpy 2, 2026-12-05): P(best) {540: 0.084, 965: 0.1241, 974: 0.1318, 3494: 0.157, 4369: 0.1747,
8123: 0.1086, 8491: 0.1411, 9415: 0.0787}; optimism mean 1.63289, q975 2.79766; power 3 seeds 0.3833, 5 seeds 0.65,
10 seeds 0.9733; then (audit s27 tests27, the seeds sample_size evaluates, a stream of their own) 2 seeds 0.1767,
4 seeds 0.4867, 6 seeds 0.7967, 7 seeds 0.8967, 8 seeds 0.9333.
"""
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import rankdata

HPO = "ADA-research/combined_hpo_and_reward_shaping/0012b924873a42c3b9a9d0c9766f0b0f92d767aa"
LANDSCAPE = f"{HPO}/experimental_results/landscape_analysis/learning-rate_velocity-weight.csv"
ROWS = [540, 965, 974, 3494, 4369, 8123, 8491, 9415]
GAMES = ["Pong", "Breakout", "Boxing", "Freeway", "Kangaroo"]


def best_set_by_hand(raw, n_resamples=20_000, seed=7):
    rng = np.random.default_rng(seed)
    vals = [np.array([float(v) for v in raw.final_mean_return[r].strip("[]").split(",")]) for r in ROWS]
    means = np.array([v.mean() for v in vals])
    wins, optimism = np.zeros(len(ROWS)), []
    for _ in range(n_resamples):
        bm = np.array([rng.choice(v, size=v.size, replace=True).mean() for v in vals])
        w = np.flatnonzero(bm == bm.max())
        wins[w] += 1 / len(w)
        optimism.append(bm.max() - means[w].max())
    optimism = np.array(optimism)
    return dict(zip(ROWS, np.round(wins / n_resamples, 4))), optimism.mean(), np.quantile(optimism, 0.975)


def power_by_hand(atari, sims=300, permutations=2_000, seed=123, seeds=(3, 5, 10)):
    rng = np.random.default_rng(seed)
    p = atari[atari.agent.isin(["DrQ", "DER"]) & atari.task.isin(GAMES) & (atari.seed < 10)]
    pool = {(t, a): g.score.to_numpy() for (t, a), g in p.groupby(["task", "agent"])}
    out = {}
    for n in seeds:
        rejected = 0
        for _ in range(sims):
            observed, permuted = 0.0, np.zeros(permutations)
            for t in GAMES:
                x = np.concatenate([rng.choice(pool[(t, "DER")], n), rng.choice(pool[(t, "DrQ")], n)])
                r = rankdata(x)
                observed += r[:n].sum()
                idx = np.argsort(rng.random((permutations, 2 * n)), axis=1)[:, :n]
                permuted += r[idx].sum(axis=1)
            centre = len(GAMES) * n * (2 * n + 1) / 2
            pvalue = (np.sum(np.abs(permuted - centre) >= abs(observed - centre) - 1e-9) + 1) / (permutations + 1)
            rejected += pvalue <= 0.05
        out[n] = rejected / sims
    return out


if __name__ == "__main__":
    raw = pd.read_csv(Path(os.environ["RLSTATS_DATA_MIRROR"]) / LANDSCAPE)
    print(best_set_by_hand(raw))
    atari = pd.read_csv(Path(sys.argv[1]) / "atari100k.csv")
    print(power_by_hand(atari))
    # the other numbers of seeds sample_size evaluates on this pilot (audit s27 tests27), a stream of their own
    print(power_by_hand(atari, seeds=(2, 4, 6, 7, 8)))
