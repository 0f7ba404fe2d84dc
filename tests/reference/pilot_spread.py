"""How far power() from a small pilot lands from the true power, over pilots drawn from one model (audit s22).

A pilot of ``k`` runs per agent and task is drawn from rlstats.datasets.simulate (2 agents alike, 5 tasks); power()
resamples it with ``agent_2`` shifted by 1 pooled within-cell SD, and a test's rate at 3, 5 and 10 seeds is compared
with the true power: power() on the model itself with that shift (1,000 data sets). Prints one row per family, pilot
size, resampling and number of seeds: the true power and the 10th, 50th and 90th percentiles of the pilot figures.
The test is the blocked rank test (audit s22) or, with ``--method permutation``, the permutation test (audit s30,
spread30; its rate per task and simulation, on the same pilots).

    python tests/reference/pilot_spread.py            # the rank test's rows quoted by rlstats.planning
    python tests/reference/pilot_spread.py --method permutation --families normal --seeds 5   # the permutation
                                                      # test's rows quoted (--sizes 3,5 for some pilot sizes)
    python tests/reference/pilot_spread.py --quick    # 6 pilots, n_sim 100: a smoke run

Each number of seeds draws from its own random streams: ``--seeds 5`` gives the same figures as the 5-seed rows of the
whole grid. The full rows: 20 pilots, n_sim 200. Run with rlstats 0.2.0.dev0, numpy 2: about 4 CPU minutes for the
rank test's rows; the permutation test's about 1 CPU minute a family at 3 and 5 seeds, and about 5 CPU seconds a
pilot at 10 seeds (10 CPU minutes a family).
"""

import functools
import sys
import warnings

import numpy as np

import rlstats
from rlstats.datasets import simulate

SEEDS = [3, 5, 10]
EFFECT = 1.0
TASKS = 5


@functools.lru_cache
def _truth(method, family, n_sim, seeds):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the permutation test can spend no level at 3 seeds
        res = rlstats.power(method, effect=EFFECT, seeds=list(seeds), tasks=TASKS, agents=2, distribution=family,
                            n_sim=n_sim, rng=0, progress=False)
    return res.table["power"].to_numpy()


def truth(method, family, n_sim=1_000, seeds=SEEDS):
    """The true power at ``seeds``: power() on the model itself (the permutation test's per task and simulation)."""
    return _truth(method, family, n_sim, tuple(seeds)).copy()


def rows(pilots, n_sim, families=("normal", "lognormal"), sizes=(3, 5, 10), method="skillings_mack", seeds=SEEDS):
    """``seeds``: each number of seeds has its own random streams, so a subset gives the same figures there."""
    out = []
    for family in families:
        true_power = truth(method, family, seeds=seeds)
        for size in sizes:
            for resample in ("agents", "pooled"):
                figures = []
                for k in range(pilots):
                    pilot = simulate(agents=2, tasks=TASKS, seeds=size, effect=0.0, distribution=family, rng=100 + k)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = rlstats.power(method, design=pilot, formula="score ~ agent | task",
                                            effect=EFFECT, seeds=seeds, resample=resample, n_sim=n_sim, rng=k,
                                            progress=False)
                    figures.append(res.table["power"].to_numpy())
                q = np.quantile(np.array(figures), [0.1, 0.5, 0.9], axis=0)
                for i, runs in enumerate(seeds):
                    out.append((family, size, resample, runs, true_power[i], *q[:, i]))
    return out


def _option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    method = _option("--method", "skillings_mack")
    families = tuple(_option("--families", "normal,lognormal").split(","))
    sizes = tuple(int(k) for k in _option("--sizes", "3,5,10").split(","))
    seeds = [int(k) for k in _option("--seeds", "3,5,10").split(",")]
    print("method,family,pilot_runs,resample,seeds,true_power,q10,median,q90")
    for family in families:
        for size in sizes:  # printed as measured
            for row in rows(6 if quick else 20, 100 if quick else 200, (family,), (size,), method, seeds):
                print(method + "," + ",".join(str(v) if isinstance(v, (str, int)) else f"{v:.3f}" for v in row),
                      flush=True)
