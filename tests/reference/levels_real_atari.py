"""Levels of the task table's marks and of the selection check's reporter on real Atari 100k scores (audit s23).

The truth is each agent's 100 published runs per game (CURL, DER, DrQ, DrQ(eps), OTRainbow, SPR); each draw takes
``--runs`` of them per agent and game without replacement.

* ``possibly_best``: how often task_table's marked set misses the agent with the best ``--statistic`` of the 100
  runs, per game (the set claims at most alpha = 0.05 in each game).  Measured (seed 1): Welch, mean, 3 runs, 400
  draws: at most 0.005 in any game (0.0013 over all 26); Welch, median, 30 runs, 100 draws: 0.24 on Freeway, where
  SPR has the best median (29.1) and CURL the best mean (28.4) -- the set is one for the best mean, which the key
  now says.
* ``reporter``: the size of selection_check's reporter at 3 runs per cell on a real null: SPR's human-normalised
  runs shifted per game onto DrQ's 100-run mean (every true effect 0), 8 of the 26 games reported at random.
  Measured (seed 7, 1,500 draws, Monte Carlo SE 0.0056): skew_t 0.021, t 0.027 at alpha = 0.05.

Run: ``python tests/reference/levels_real_atari.py possibly_best --draws 400`` (about 2 CPU minutes with 3 runs),
``... possibly_best --statistic median --runs 30 --draws 100``, ``... reporter --reporter skew_t --draws 1500``.
The published data come through ``rlstats.datasets.load`` (set RLSTATS_DATA_MIRROR for an offline mirror).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

import rlstats

AGENTS = ["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]
FORMULA = "score ~ agent | task/seed"


def _draw(pools, runs, rng, names=None):
    rows = [(names.get(agent, agent) if names else agent, task, seed, value)
            for task, by_agent in pools.items() for agent, scores in by_agent.items()
            for seed, value in enumerate(rng.choice(scores, runs, replace=False))]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def possibly_best(atari, draws, runs, statistic, test, seed):
    atari = atari[atari.agent.isin(AGENTS)]
    pools = {t: {a: g.score.to_numpy() for a, g in d.groupby("agent")} for t, d in atari.groupby("task")}
    truth = {t: max(p, key=lambda a: getattr(np, statistic)(p[a])) for t, p in pools.items()}
    rng, missed = np.random.default_rng(seed), dict.fromkeys(pools, 0)
    for draw in range(draws):
        table = rlstats.task_table(_draw(pools, runs, rng), FORMULA, statistic=statistic, test=test, rng=draw,
                                   effect_intervals="fcr_normal", progress=False)
        agents = list(table.agents)
        for i, task in enumerate(table.tasks):
            missed[task] += not table.possibly_best[i, agents.index(truth[task])]
    rates = pd.Series(missed) / draws
    print(f"{test}, {statistic}, {runs} runs, {draws} draws: miss rate {rates.mean():.4f} over all games; "
          f"worst games:\n{rates.sort_values(ascending=False).head(5).to_string()}")


def reporter(atari, draws, runs, which, seed):
    reference = rlstats.datasets.load("atari100k_reference").set_index("task")
    atari = atari.join(reference, on="task")
    atari = atari.assign(score=(atari.score - atari.random) / (atari.human - atari.random))
    pools = {}
    for task, d in atari.groupby("task"):
        treated, base = d[d.agent == "SPR"].score.to_numpy(), d[d.agent == "DrQ"].score.to_numpy()
        pools[task] = {"T": treated - treated.mean() + base.mean(), "B": base}
    rng, rejected, tasks = np.random.default_rng(seed), 0, sorted(pools)
    for draw in range(draws):
        data = _draw(pools, runs, rng)
        shown = list(rng.choice(tasks, 8, replace=False))
        res = rlstats.selection_check(data, FORMULA, treatment="T", baseline="B", reported=shown, reporter=which,
                                      n_resamples=99, rng=draw, normalize=False, progress=False)
        rejected += res.pvalue_reporter <= 0.05
    print(f"reporter={which}, {runs} runs, {draws} draws: size {rejected / draws:.4f} "
          f"(Monte Carlo SE {np.sqrt(0.05 * 0.95 / draws):.4f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["possibly_best", "reporter"])
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--statistic", default="mean")
    parser.add_argument("--test", default="welch")
    parser.add_argument("--reporter", default="skew_t")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    atari = rlstats.datasets.load("atari100k")
    if args.what == "possibly_best":
        possibly_best(atari, args.draws, args.runs, args.statistic, args.test, 1 if args.seed is None else args.seed)
    else:
        reporter(atari, args.draws, args.runs, args.reporter, 7 if args.seed is None else args.seed)


if __name__ == "__main__":
    main()
