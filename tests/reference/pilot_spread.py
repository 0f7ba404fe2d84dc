"""How far power() from a small pilot lands from the true power, over pilots drawn from one model (audit s22).

A pilot of ``k`` runs per agent and task is drawn from rlstats.datasets.simulate (2 agents alike, 5 tasks); power()
resamples it with ``agent_2`` shifted by 1 pooled within-cell SD, and the blocked rank test's rate at 3, 5 and 10
seeds is compared with the true power: power() on the model itself with that shift (1,000 data sets). Prints one row
per family, pilot size and resampling: the true power and the 10th, 50th and 90th percentiles of the pilot figures.

    python tests/reference/pilot_spread.py            # the rows quoted by rlstats.planning (20 pilots, n_sim 200)
    python tests/reference/pilot_spread.py --quick    # 6 pilots, n_sim 100: a smoke run

Run with rlstats 0.2.0.dev0, numpy 2, on 2 cores (about 4 CPU minutes for the full rows).
"""

import sys
import warnings

import numpy as np

import rlstats
from rlstats.datasets import simulate

SEEDS = [3, 5, 10]
EFFECT = 1.0
TASKS = 5


def rows(pilots, n_sim, families=("normal", "lognormal"), sizes=(3, 5, 10)):
    out = []
    for family in families:
        truth = rlstats.power("skillings_mack", effect=EFFECT, seeds=SEEDS, tasks=TASKS, agents=2, distribution=family,
                              n_sim=1_000, rng=0, progress=False).table["power"].to_numpy()
        for size in sizes:
            for resample in ("agents", "pooled"):
                figures = []
                for k in range(pilots):
                    pilot = simulate(agents=2, tasks=TASKS, seeds=size, effect=0.0, distribution=family, rng=100 + k)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = rlstats.power("skillings_mack", design=pilot, formula="score ~ agent | task",
                                            effect=EFFECT, seeds=SEEDS, resample=resample, n_sim=n_sim, rng=k,
                                            progress=False)
                    figures.append(res.table["power"].to_numpy())
                q = np.quantile(np.array(figures), [0.1, 0.5, 0.9], axis=0)
                for i, seeds in enumerate(SEEDS):
                    out.append((family, size, resample, seeds, truth[i], *q[:, i]))
    return out


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    print("family,pilot_runs,resample,seeds,true_power,q10,median,q90")
    for row in rows(6 if quick else 20, 100 if quick else 200):
        print(",".join(str(v) if isinstance(v, (str, int)) else f"{v:.3f}" for v in row), flush=True)
