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

Printed in session 28: units said, before the s28 rules -> after them (in brackets: of those, with the known factor
among those named). As given, nothing is said of any unit, before or after (Atari 100k: 9 + 2,700 + 180 per
reference; Dopamine: 1,194 + 2,520 + 378).

    units (scaled: n)                  /1000       /100        /10       x10          x100        x1000
    A100k own ref., 26 games (9)       9 (9)->9    3 (3)->9    0->0      0->9 (9)     9 (9)->9    9 (9)->9 (9)
    A100k own ref., 5 games (450)      450 (409)   165 (126)   0->79     11 (2)       393 (380)   450 (392)
                                       ->450 (446) ->437 (435) (79)      ->117 (117)  ->417 (417) ->450 (448)
    A100k own ref., 10 games (27)      27->27      9 (8)->27   0->7 (7)  0->13 (13)   26->27      27->27
    A100k full ref., 26 games (9)      9->9        3 (3)->9    0->0      0->9 (9)     0->9 (9)    9->9
    A100k full ref., 5 games (450)     450 (393)   168 (144)   0->77     0->101 (101) 88 (69)     440 (392)
                                       ->450 (446) ->442 (441) (76)                   ->233 (231) ->448 (447)
    A100k full ref., 10 games (27)     27->27      8 (7)->27   0->3 (3)  0->7 (7)     2 (2)->14   27->27
    Dopamine, 55 games (246)           246 (166)   7 (2)       0->8 (8)  0->246 (246) 210 (135)   246 (166)
                                       ->246 (246) ->246 (246)                        ->246 (246) ->246 (246)
    Dopamine, 5 games (630)            571 (341)   49 (25)     2 (0)     11 (0)       448 (177)   609 (340)
                                       ->627 (618) ->434 (426) ->44 (42) ->232 (232)  ->548 (546) ->625 (621)
    Dopamine, 10 games (378)           360 (211)   19 (8)      0->20     1 (0)        303 (150)   371 (215)
                                       ->378 (375) ->307 (305) (20)      ->222 (222)  ->367 (364) ->377 (376)

The /10 column stays low: an agent's scores /10 read like a weaker agent's in every statistic here.
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
