"""Power of AdaStop's permutations= schemes (audit s29): the share of false equalities each rejects.

    PYTHONPATH=. python tests/reference/power_adastop_schemes.py OUT.jsonl [N_SIM]

Unit-variance normal agents (one design with two agents 3 times as spread) at n = 5, K = 1; n = 3, K = 4; n = 5,
K = 4; n = 10, K = 1; n = 5, K = 6, 2,000 paths per test, N_SIM (200) simulated tests per design and scheme, every
scheme on the same data sets. One JSON line per design (checkpointed: an interrupted run keeps what it measured).
The numbers quoted in :func:`rlstats.adastop`'s Notes (joint against holm) came from this script.
"""

import json
import sys
import warnings

import numpy as np
import pandas as pd

import rlstats

DESIGNS = [("4 agents means 0,0,1,2", [0, 0, 1, 2], [1, 1, 1, 1]),
           ("3 agents means 0,1,2", [0, 1, 2], [1, 1, 1]),
           ("8 agents means 0,0.5,..,3.5", list(np.arange(8) * 0.5), [1] * 8),
           ("4 agents means 0,0,2,2 sd 1,1,3,3", [0, 0, 2, 2], [1, 1, 3, 3])]
SIZES = ((5, 1), (3, 4), (5, 4), (10, 1), (5, 6))
SCHEMES = ("joint", "holm", "pairwise")


def power(n, K, mu, sd, scheme, n_sim):
    """Mean share of the false equalities (pairs of unequal means) rejected."""
    mu, sd = np.asarray(mu, float), np.asarray(sd, float)
    agents = len(mu)
    gen = np.random.default_rng([n, K, agents, int(sd.sum())])  # the data follow the design, not the scheme
    shares = []
    for s in range(n_sim):
        y = (mu[:, None] + sd[:, None] * gen.standard_normal((agents, n * K))).ravel()
        frame = pd.DataFrame({"agent": np.repeat([f"a{i}" for i in range(agents)], n * K), "score": y})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = rlstats.adastop(frame, "score ~ agent", n=n, K=K, permutations=scheme, rng=s, n_resamples=2000,
                                progress=False).decisions
        false = np.array([mu[int(a[1:])] != mu[int(b[1:])] for a, b in zip(d["agent_1"], d["agent_2"])])
        shares.append(d["decision"].isin(["larger", "smaller"]).to_numpy()[false].mean())
    return float(np.mean(shares))


if __name__ == "__main__":
    out, n_sim = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200
    for n, K in SIZES:
        for name, mu, sd in DESIGNS:
            line = {"n": n, "K": K, "design": name, "n_sim": n_sim,
                    **{scheme: power(n, K, mu, sd, scheme, n_sim) for scheme in SCHEMES}}
            print(json.dumps(line), flush=True)
            with open(out, "a") as f:
                f.write(json.dumps(line) + "\n")
