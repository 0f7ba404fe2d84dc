"""Whether the hierarchical model's Gibbs sampler (rlstats.bayes(..., model="hierarchical"), default chains=8,
warmup=300, draws=1000) reaches R-hat <= 1.01 and bulk ESS >= 400 over one pair's parameters (delta0, sigma0, nu,
every delta_i) on the designs RL has: the evidence for bayes' runs again with longer chains (audit s13, bayesconv).

Designs: 2, 3, 5, 8 and 26 tasks x 3, 5 and 10 runs; Atari 100k (DER vs DrQ and SPR vs CURL, the first games in name
order where both have the runs, seeds below the run count; needs RLSTATS_DATA_MIRROR) and simulated scores of two
agents (task offsets and scales drawn per task; "normal": a per-task difference 0.3 + 0.5 N(0, 1) in within-task sd
with normal runs; "const": the same difference 0.3 on every task, so sigma0 is near 0; "skewed": lognormal runs;
"capped": normal runs clipped at the task's offset + 0.8 sd).  One seed (rng=0) a design, 90 designs.  HalfCheetah
(halfcheetah_sac_td3) is one task, which the hierarchical model refuses (it needs 2).  Run from the repository root
(about 2 CPU-minutes before the fix, 4 after):

    RLSTATS_DATA_MIRROR=/work/shared/data/raw PYTHONPATH=. python tests/reference/bayes_convergence.py

Measured (rlstats 0.2.0.dev0, session 13).  Before (one run of the defaults): 11 of 90 designs missed, every one from
the slow mixing of sigma0 (the tasks' spread) or nu (the t's degrees of freedom), or of the delta_i that move with
them, never delta0:

    design                          R-hat   ESS    slowest
    skewed, 5 tasks x 5             1.019   794    sigma0
    Atari DER-DrQ, 8 x 3            1.023   366    sigma0
    Atari SPR-CURL, 8 x 10          1.023   249    sigma0   (the user audit's 8-game design)
    Atari DER-DrQ, 26 x 3           1.055   131    sigma0
    Atari SPR-CURL, 26 x 3          1.056   114    sigma0
    Atari DER-DrQ, 26 x 5           1.066    93    sigma0
    Atari SPR-CURL, 26 x 5          1.026   401    sigma0
    skewed, 26 x 5                  1.021   402    sigma0
    capped, 26 x 5                  1.010   929    nu
    Atari DER-DrQ, 26 x 10          1.118    45    delta[CrazyClimber] (nu: R-hat 1.04, ESS 153)
    Atari SPR-CURL, 26 x 10         1.054   155    sigma0

DER vs DrQ on CrazyClimber differs by 14,946 (se 2,030) where the other games differ by tens to hundreds: its delta_i
is bimodal (at its data with a small t weight, or shrunk towards delta0 with a per-task sd spanning both), and which
mode holds depends on nu; a Metropolis move of delta_i with sigma_i and lambda_i integrated out (proposals from its t
prior and from its data) did not change the R-hat (1.146), so the slow direction is nu's and sigma0's, not delta_i's.
Longer chains of the old sampler: 2, 4, 8 times the warm-up and draws gave R-hat 1.154, 1.079, 1.014 there.

After (runs again, up to 32 times; this script, 0 of 90 designs missed): every design reached R-hat <= 1.01 and
ESS >= 400 (largest R-hat 1.009, smallest ESS 573 among those that converged on the first run, which are unchanged bit
for bit; the 11 above R-hat 1.002-1.008 and ESS 1,018-4,461 in 2.4-12 s CPU, and DER vs DrQ at 26 x 10 1.0055 and
956 at 32 times in 37-45 s, with rng=1 1.0064 and 1,060 in 29 s).  The runs again agree with the old sampler run 8
times longer (SPR vs CURL 8 x 10: delta0 mean -80.2 and 95% interval (-232.1, 15.2) against -80.2 and
(-231.7, 16.8); DER vs DrQ 8 x 3: 0.80 and (-64.4, 81.8) against 1.14 and (-63.9, 78.7)).
"""

import time
import warnings

import numpy as np
import pandas as pd

import rlstats


def atari_pair(atari, pair, n_tasks, runs):
    d = atari[atari["agent"].isin(pair) & (atari["seed"] < runs)]
    enough = d.groupby(["task", "agent"]).size().unstack()
    enough = set(enough[(enough >= runs).all(axis=1)].index)
    return d[d["task"].isin([t for t in sorted(atari["task"].unique()) if t in enough][:n_tasks])]


def simulated(n_tasks, runs, kind, seed):
    r = np.random.default_rng(seed)
    rows = []
    for t in range(n_tasks):
        offset, scale = r.uniform(0, 100), r.uniform(1, 50)
        effect = 0.3 + 0.5 * r.standard_normal() if kind != "const" else 0.3
        for agent, e in (("A", effect), ("B", 0.0)):
            if kind == "skewed":
                z = np.exp(0.8 * r.standard_normal(runs)) - 1.4
            else:
                z = r.standard_normal(runs)
            y = offset + scale * (e + z)
            if kind == "capped":
                y = np.minimum(offset + scale * (e + r.standard_normal(runs)), offset + scale * 0.8)
            rows += [(agent, f"t{t}", s, v) for s, v in enumerate(y)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def measure(name, df, n_tasks, runs):
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(df, "score ~ agent | task/seed", model="hierarchical", rope=0.0, rng=0, progress=False)
    d = res.diagnostics
    worst, fewest = d.loc[d["r_hat"].idxmax()], d.loc[d["ess_bulk"].idxmin()]
    return dict(design=name, tasks=n_tasks, runs=runs, r_hat=worst["r_hat"], slowest=worst["parameter"],
                ess=fewest["ess_bulk"], fewest=fewest["parameter"], cpu=time.process_time() - start)


def main():
    atari = rlstats.datasets.load("atari100k")
    rows = []
    for n_tasks in (2, 3, 5, 8, 26):
        for runs in (3, 5, 10):
            for pair in (("DER", "DrQ"), ("SPR", "CURL")):
                rows.append(measure("atari " + "-".join(pair), atari_pair(atari, pair, n_tasks, runs), n_tasks, runs))
            for kind in ("normal", "const", "skewed", "capped"):
                rows.append(measure(kind, simulated(n_tasks, runs, kind, n_tasks * 100 + runs), n_tasks, runs))
            print(pd.DataFrame(rows[-6:]).round(4).to_string(index=False, header=False), flush=True)
    table = pd.DataFrame(rows)
    missed = table[(table["r_hat"] > 1.01) | (table["ess"] < 400)]
    print(f"{len(missed)} of {len(table)} designs missed R-hat <= 1.01 or ESS >= 400")
    print(missed.round(4).to_string(index=False))


if __name__ == "__main__":
    main()
