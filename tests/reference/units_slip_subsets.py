"""Lead, s27 (review27a): how often the units check speaks on 5-game subsets of the published scores, per agent.

Atari 100k with both Atari references (300 draws of 5 of its 26 games x 9 agents each) and the Dopamine baselines
at their first, middle and last iteration (150 draws of 5 of the 55 games the Atari reference covers x 6 agents).
Printed in session 27 (numpy seed 0): 0 of 2,700 and 0 of 2,700 on Atari 100k; Dopamine 1 of 900 (Rainbow at
iteration 0 on Enduro, MontezumaRevenge, MsPacman, Alien, Venture), 0 of 900, 0 of 900. About 2 CPU minutes.

    PYTHONPATH=. RLSTATS_DATA_MIRROR=../shared/data/raw python tests/reference/units_slip_subsets.py
"""
import warnings

import numpy as np

import rlstats

gen = np.random.default_rng(0)
def fires(frame, name):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        rlstats.normalize(frame, name)
    return any("times too" in str(x.message) for x in w)
atari = rlstats.datasets.load("atari100k")
games = sorted(atari.task.unique())
for name in ("atari100k_reference", "atari_reference"):
    n = f = 0
    for _ in range(300):
        sub = gen.choice(games, 5, replace=False)
        for agent, fr in atari[atari.task.isin(sub)].groupby("agent"):
            n += 1; f += fires(fr, name)
    print("atari100k 5-game per agent", name, f, "of", n)
dop = rlstats.datasets.load("dopamine_atari")
ref = rlstats.datasets.load("atari_reference")
dop = dop[dop.task.isin(set(ref.task))]
dgames = sorted(dop.task.unique())
steps = sorted(dop.step.unique())
for step in (steps[0], steps[len(steps)//2], steps[-1]):
    d = dop[dop.step == step]
    n = f = 0; hits = []
    for _ in range(150):
        sub = gen.choice(dgames, 5, replace=False)
        for agent, fr in d[d.task.isin(sub)].groupby("agent"):
            n += 1
            if fires(fr, "atari_reference"):
                f += 1; hits.append((agent, tuple(sub)))
    print("dopamine step", step, "5-game per agent", f, "of", n, hits[:3])
