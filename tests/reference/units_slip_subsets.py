"""How often the units check of ``rlstats.normalize`` with a named reference speaks on the published Atari scores, as
given (a false alarm) and scaled by 0.001 to 1000 (a slip caught), on every agent's games, on 5 and on 10 of them.

Lead, s27 (review27a) wrote the first version (5-game subsets at three Dopamine iterations); s28 (units28) widened it
to every agent, every Dopamine iteration (as given) and the factors 0.001, 0.01, 0.1, 10, 100 and 1000, and counts
whether the warning says the right way (too large / too small) and names the known factor among the powers of ten it
gives. The same subsets are drawn whatever the package's version (numpy seed 0), so that two versions are compared
on the same frames: run it with ``PYTHONPATH`` at each.

Units (each agent's runs of one pairing): Atari 100k's nine agents with ``atari100k_reference`` and with
``atari_reference``; the Dopamine baselines' six agents at each of their 199 iterations (as given; scaled: every 5th
and the last) on the 55 games ``atari_reference`` covers. Subsets: 5 games (Atari 100k 300 draws per agent as given,
50 scaled; Dopamine 20 and 5 per agent at every 10th iteration and the last) and 10 games (20 and 3).
About 12 CPU minutes. Prints one line per pairing, kind of unit and factor: units, said, said the right way, and
with the factor named.

    PYTHONPATH=. RLSTATS_DATA_MIRROR=/work/shared/data/raw python tests/reference/units_slip_subsets.py
"""
import re
import sys
import warnings

import numpy as np

import rlstats

FACTORS = (1.0, 0.001, 0.01, 0.1, 10.0, 100.0, 1000.0)
SAID = re.compile(r"looks (?:about|at least) ([\d,]+(?:(?:, | or )[\d,]+)*) times too (large|small)")


def judged(frame, name):
    """(said, the way it said, the factors it named) of rlstats.normalize's units warning on ``frame``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rlstats.normalize(frame, name)
    for w in caught:
        found = SAID.search(str(w.message))
        if found:
            return True, found.group(2), {int(f.replace(",", "")) for f in re.split(r", | or ", found.group(1))}
    return False, None, set()


def units():
    """(pairing, name, kind, [frames], draws as given, draws scaled, size) for every kind of unit."""
    load = rlstats.datasets.load
    atari, full = load("atari100k"), load("atari_reference")
    dopamine = load("dopamine_atari")
    dopamine = dopamine[dopamine["task"].isin(set(full["task"]))]
    agents = [f for _, f in atari.groupby("agent")]
    steps = {s: [f for _, f in dopamine[dopamine["step"] == s].groupby("agent")] for s in sorted(dopamine["step"].unique())}
    last = max(steps)
    for name in ("atari100k_reference", "atari_reference"):
        yield f"atari100k / {name}", name, "all 26 games", agents, agents, None
        for size, given, scaled in ((5, 300, 50), (10, 20, 3)):
            yield f"atari100k / {name}", name, f"{size} games", agents, (given, scaled), size
    every = [f for s, fs in steps.items() for f in fs]
    fifth = [f for s, fs in steps.items() if s % 5 == 0 or s == last for f in fs]
    tenth = [f for s, fs in steps.items() if s % 10 == 0 or s == last for f in fs]
    yield "dopamine (55 games) / atari_reference", "atari_reference", "all 55 games", every, fifth, None
    for size, given, scaled in ((5, 20, 5), (10, 3, 3)):
        yield "dopamine (55 games) / atari_reference", "atari_reference", f"{size} games", tenth, (given, scaled), size


def main():
    gen = np.random.default_rng(0)
    print(f"{'pairing':40s} {'units':14s} {'factor':>7s} {'n':>6s} {'said':>6s} {'right way':>9s} {'factor named':>12s}")
    for pairing, name, kind, frames, scaled, size in units():
        for factor in FACTORS:
            if size is None:
                chosen = frames if factor == 1 else scaled
            else:
                draws = scaled[0] if factor == 1 else scaled[1]
                chosen = []
                for frame in frames:
                    games = np.array(sorted(frame["task"].unique()))
                    for _ in range(draws):
                        chosen.append(frame[frame["task"].isin(gen.choice(games, size, replace=False))])
            n = said = right = named = 0
            for frame in chosen:
                hit, way, factors = judged(frame.assign(score=frame["score"] * factor), name)
                n += 1
                said += hit
                if hit and factor != 1 and way == ("large" if factor > 1 else "small"):
                    right += 1
                    named += round(max(factor, 1 / factor)) in factors
            print(f"{pairing:40s} {kind:14s} {factor:7g} {n:6d} {said:6d} {right:9d} {named:12d}", flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
