"""Audit s33 (pins33): the aggregate p-value of test_audit_s32_equivtab32's near-alpha note, and what it estimates.

    PYTHONPATH=. RLSTATS_DATA_MIRROR=... python tests/reference/equivalence_near_alpha.py [../shared/data/atari100k.csv]

The test reads DER vs DrQ on the first 8 Atari 100k tasks (5 runs each, normalised by atari100k_reference), margin
0.19, the IQM's bootstrap-t test, 400 resamples at rng=0, and pinned its p-value 22/401 with no source. A bootstrap
p-value at B resamples is (hits + 1) / (B + 1), a Monte Carlo estimate of the test's p-value at B = infinity; this
prints (1) seed 0's p-value at 400 resamples and its hits, (2) the p-value at 200,000 resamples on two seeds (Monte
Carlo SE about 0.0005), the value the 400-resample p-values scatter about, (3) the 400-resample p-values of seeds
0-39, their mean and spread against the stated Monte Carlo SE. Printed (session 33, on the bootstrap's former
streams):

    seed 0, B = 400: p = 0.054863 = 22/401 (21 hits), stated Monte Carlo SE 0.011386
    B = 200000, seed 1: p = 0.051250 (SE 0.000493)
    B = 200000, seed 2: p = 0.051350 (SE 0.000494)
    40 seeds at B = 400: mean 0.054239, sd 0.009777 (stated SE at the 200000-resample p: 0.011030); 38 within 2 SE
    of alpha

Printed (session 34, on audit s33's cell streams, each cell (agent, task) keyed by its task's name; the test pins
seed 0's 19/401 since):

    seed 0, B = 400: p = 0.047382 = 19/401 (18 hits), stated Monte Carlo SE 0.010623
    B = 200000, seed 1: p = 0.052040 (SE 0.000497)
    B = 200000, seed 2: p = 0.051545 (SE 0.000494)
    40 seeds at B = 400: mean 0.052182, sd 0.011187 (stated SE at the 200000-resample p: 0.011080); 38 within 2 SE
    of alpha

The four 200,000-resample p-values estimate one number, the test's p-value at B = infinity (the exact bootstrap
distribution's, whatever the stream): 0.0516, SE about 0.00025. (The 400-resample mean sits above it by about
(1 - p) / 401 = 0.0024, the +1 of (hits + 1) / (B + 1).)
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pandas as pd

import rlstats

MARGIN, LARGE = 0.19, 200_000


def subset(atari):
    sub = atari[atari["agent"].isin(["DER", "DrQ"]) & (atari["seed"] < 5)]
    return sub[sub["task"].isin(sorted(sub["task"].unique())[:8])]


def aggregate(sub, n_resamples, seed):
    res = rlstats.equivalence(sub, "score ~ agent | task/seed", margin=MARGIN, n_resamples=n_resamples, rng=seed,
                              normalize="atari100k_reference", progress=False)
    return res.comparisons.query("scope == 'aggregate'").iloc[0]


def main(path):
    sub = subset(pd.read_csv(path))
    row = aggregate(sub, 400, 0)
    hits = round(row["p_value"] * 401) - 1
    print(f"seed 0, B = 400: p = {row['p_value']:.6f} = {hits + 1}/401 ({hits} hits), stated Monte Carlo SE "
          f"{row['p_mc_se']:.6f}")
    large = []
    for seed in (1, 2):
        p = aggregate(sub, LARGE, seed)["p_value"]
        large.append(p)
        print(f"B = {LARGE}, seed {seed}: p = {p:.6f} (SE {np.sqrt(p * (1 - p) / LARGE):.6f})")
    ps = np.array([aggregate(sub, 400, seed)["p_value"] for seed in range(40)])
    se = np.sqrt(np.mean(large) * (1 - np.mean(large)) / 400)
    near = int(np.sum(np.abs(ps - 0.05) <= 2 * np.sqrt(ps * (1 - ps) / 400)))
    print(f"40 seeds at B = 400: mean {ps.mean():.6f}, sd {ps.std(ddof=1):.6f} (stated SE at the {LARGE}-resample p: "
          f"{se:.6f}); {near} within 2 SE of alpha")


if __name__ == "__main__":
    here = pathlib.Path(__file__).resolve().parents[2]
    main(sys.argv[1] if len(sys.argv) > 1 else here.parent / "shared" / "data" / "atari100k.csv")
