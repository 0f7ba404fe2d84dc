"""How often AdaStop declares two agents with equal MEANS but different shapes different (audit s20).

AdaStop's level is exact when the agents' score distributions are identical (a permutation test); "larger" is
read by most users as a claim about means.  Two agents, equal mean 0 and standard deviation 1: ``a0`` normal,
``a1`` either lognormal (sigma = 1, standardised: skewness 6.2) or "bimodal" (a tenth of the runs succeed near
+3, the rest fail near -0.33, as RL runs that sometimes collapse).  ``rlstats.adastop`` defaults (alpha = 0.05,
joint relabelling, n_resamples = 10,000), n = 3 and 5 runs per batch, K = 2, 4, 6; 1,000 tests per design.

    PYTHONPATH=. nice -n 10 python tests/reference/adastop_equal_means.py 1000

Measured (rlstats 0.2.0.dev0, numpy 2.4, seeds as below; share of tests with a rejection, standard error about
0.008):

    lognormal n=3: K=2 0.071, K=4 0.076, K=6 0.074;  n=5: K=2 0.073, K=4 0.072, K=6 0.061
    bimodal   n=3: K=2 0.062, K=4 0.075, K=6 0.088;  n=5: K=2 0.082, K=4 0.087, K=6 0.085
"""
import dataclasses
import json
import sys
import time
import warnings

import numpy as np
import pandas as pd

from rlstats.design import design_of
from rlstats.methods.adastop._api import adastop_outcomes


def template(m):
    frame = pd.DataFrame({"agent": np.repeat(["a0", "a1"], m), "seed": np.tile(np.arange(m), 2), "score": 0.0})
    return design_of(frame, "score ~ agent")


def draw(kind, rng, size):
    if kind == "lognormal":
        x = rng.lognormal(0, 1, size)
        return (x - np.exp(0.5)) / np.sqrt((np.exp(1) - 1) * np.exp(1))
    if kind == "bimodal":
        success = rng.random(size) < 0.1
        return np.where(success, rng.normal(0.9, 0.1, size), rng.normal(-0.1, 0.1, size)) / 0.3
    raise ValueError(kind)


def main(m):
    start = time.time()
    for kind in ("lognormal", "bimodal"):
        for n in (3, 5):
            for K in (2, 4, 6):
                tpl = template(n * K)
                first = np.asarray(tpl.agent) == 0
                ss = np.random.SeedSequence([21, n, K, len(kind)])
                rng = np.random.default_rng(ss.spawn(1)[0])
                rejected = 0
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for child in ss.spawn(m + 1)[1:]:
                        y = np.empty(tpl.y.size)
                        y[first] = rng.normal(0, 1, first.sum())
                        y[~first] = draw(kind, rng, (~first).sum())
                        out = adastop_outcomes(dataclasses.replace(tpl, y=y), rng=child, n=n, K=K)
                        rejected += int(bool(np.asarray(out[0])[0]))
                share = rejected / m
                print(json.dumps({"kind": kind, "n": n, "K": K, "tests": m, "rejected": share,
                                  "se": round((share * (1 - share) / m) ** 0.5, 4),
                                  "seconds": round(time.time() - start)}), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
