"""Write the data sets of tests/test_mixed.py's R reference (tests/reference/mixed_r.R) as CSV files.

    python tests/reference/mixed_data.py OUTDIR          (the designs of mixed_r.json)
    python tests/reference/mixed_data.py OUTDIR --real   (those of mixed_real_r.json: published scores with
                                                          unequal run counts, Atari 100k's nine agents and MuJoCo's)
    python tests/reference/mixed_data.py OUTDIR --small  (those of mixed_small_r.json: two agents on three games at
                                                          3 runs, a singular fit and a control)

Simulated designs (rlstats.datasets.simulate, fixed rng): balanced and unbalanced, with and without seeds,
5 to 26 tasks, one with no task variance (a singular fit); and, when the Atari 100k scores load offline
(RLSTATS_DATA_MIRROR=/work/shared/data/raw), their human-normalised scores: the six agents with 100 runs on
26 games (15,600 rows) and SPR, CURL and DrQ(eps) on the first 5 games with seeds 0-9.
The same files are rebuilt by the tests from this module's DESIGNS, so only the numbers R gives are committed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import rlstats

#: name -> (formula, keywords of simulate, rows to drop (fraction, rng) or None)
DESIGNS = {
    "balanced_5x4": ("score ~ agent | task", dict(agents=4, tasks=5, seeds=1, effect=1.0, distribution="normal",
                                                  heterogeneity=0.3, rng=11), None),
    "unbalanced_12x4": ("score ~ agent | task", dict(agents=4, tasks=12, seeds=1, effect=0.8, distribution="normal",
                                                     heterogeneity=0.3, missing=0.2, rng=12), None),
    "balanced_seeds_8x3x5": ("score ~ agent | task/seed", dict(agents=3, tasks=8, seeds=5, effect=0.6,
                                                               distribution="normal", heterogeneity=0.3, rng=13),
                             None),
    "unbalanced_seeds_26x5": ("score ~ agent | task/seed", dict(agents=5, tasks=26, seeds=4, effect=0.5,
                                                                heterogeneity=0.2, missing=0.1, rng=14), (0.2, 15)),
    "seeds_5x3x10": ("score ~ agent | task/seed", dict(agents=3, tasks=5, seeds=10, effect=0.7,
                                                       distribution="t", heterogeneity=0.3, rng=16), None),
    "singular_6x3x3": ("score ~ agent | task/seed", dict(agents=3, tasks=6, seeds=3, effect=0.5,
                                                         distribution="normal", heterogeneity=0.0, rng=17), None),
}

#: the Atari 100k designs: name -> (formula, agents, number of games (first ones, in order) or None, seeds or None)
ATARI = {
    "atari_5x3x10": ("score ~ agent | task/seed", ("CURL", "DrQ(eps)", "SPR"), 5, 10),
    "atari_full": ("score ~ agent | task/seed", ("CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"), None, None),
    # all nine agents as published: IRIS and SimPLe have 5 runs, PlayVirtual 15, the others 10 here (unbalanced)
    "atari_9x10_unbalanced": ("score ~ agent | task/seed", ("CURL", "DER", "DrQ", "DrQ(eps)", "IRIS", "OTRainbow",
                                                            "PlayVirtual", "SPR", "SimPLe"), 10, 10),
}

#: two agents on three games at 3 runs (audit s21): the task:agent variance estimated at 0 (a singular fit), where
#: Kenward-Roger's df of the agent F test is 2 and Satterthwaite's 14; and a control whose fit is not singular.
#: name -> (formula, agents, games by name, seeds); their R numbers are in mixed_small_r.json (``--small``)
SMALL = {
    "atari_singular_2x3x3": ("score ~ agent | task/seed", ("CURL", "PlayVirtual"),
                             ("BankHeist", "Kangaroo", "PrivateEye"), 3),
    "atari_control_2x3x3": ("score ~ agent | task/seed", ("CURL", "DrQ(eps)"), ("Alien", "Amidar", "Assault"), 3),
}
ATARI |= SMALL

#: MuJoCo's raw scores as the AdaStop experiment collected them (mujoco_adastop: 5 to 30 runs per cell); name -> formula
MUJOCO = {"mujoco_adastop_raw": "score ~ agent | task/seed"}
#: the published designs with unequal run counts, whose R numbers are in mixed_real_r.json (session 19)
REAL = ("atari_9x10_unbalanced", *MUJOCO)


def simulated(name):
    """The data frame of a simulated design."""
    _, keywords, drop = DESIGNS[name]
    df = rlstats.datasets.simulate(**keywords)
    if drop is not None:
        fraction, seed = drop
        keep = np.random.default_rng(seed).random(len(df)) >= fraction
        df = df[keep].reset_index(drop=True)
    return df


def atari(name):
    """Human-normalised Atari 100k scores of a design in ATARI (needs the data offline or online)."""
    _, agents, games, seeds = ATARI[name]
    raw = rlstats.datasets.load("atari100k")
    df = rlstats.normalize(raw, "atari100k_reference")
    df = df[df["agent"].isin(agents)]
    if isinstance(games, tuple):  # by name
        df = df[df["task"].isin(games)]
    elif games is not None:  # the first ones
        df = df[df["task"].isin(sorted(df["task"].unique())[:games])]
    if seeds is not None:
        df = df[df["seed"] < seeds]
    df = df.reset_index(drop=True)
    df["agent"] = df["agent"].astype(str)
    df["task"] = df["task"].astype(str)
    return df


def mujoco(name):
    """The MuJoCo AdaStop scores as published (needs the data offline or online)."""
    df = rlstats.datasets.load("mujoco_adastop")[["agent", "task", "seed", "score"]]
    return df.astype({"agent": str, "task": str})


def main(outdir, real=False, small=False):
    """Write the designs of tests/reference/mixed_r.json, with ``real`` those of mixed_real_r.json, with ``small``
    those of mixed_small_r.json."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    if real or small:
        for name in REAL if real else SMALL:
            (mujoco if name in MUJOCO else atari)(name).to_csv(outdir / f"{name}.csv", index=False,
                                                                float_format="%.17g")
        return
    for name in DESIGNS:
        simulated(name).to_csv(outdir / f"{name}.csv", index=False, float_format="%.17g")
    for name in (name for name in ATARI if name not in REAL and name not in SMALL):
        try:
            atari(name).to_csv(outdir / f"{name}.csv", index=False, float_format="%.17g")
        except Exception as err:  # the data are not available: the R script skips the design
            print(f"{name}: not written ({err})", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "mixed_data", real="--real" in sys.argv[2:],
         small="--small" in sys.argv[2:])
