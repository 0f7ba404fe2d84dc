"""Coverage of task_table's effect-size intervals: the ``task_table.effect_size`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only task_table.effect_size [--jobs 2] [--quick]

(or this script with the same options). On the data sets of ``coverage_possibly_best.py`` (each simulated task a
replicate; agents 2, 3, 5 and 8, runs per agent 2, 3, 5, 10, 20; normal, skewed and capped scores; all agents equal,
or one best with the others 0.5 to 1 SD lower) it counts how often the 95% interval of each effect size of the point
best against another agent holds the true effect of that pair: the Vargha-Delaney A12 (Brunner-Munzel interval; truth
P(X > Y) + P(X = Y) / 2) and Hedges' g (noncentral-t interval; truth the difference of means over the root mean of the
two variances). The truths come from 1,000,000 draws of each agent's scores. An interval that could not be formed
(NaN) counts as not holding: at 2 runs per agent the A12 interval is undefined wherever both runs of one agent beat
both of the other's (or all four tie), which was 25% to 41% of the pairs of 2 agents (task_table says so in a note),
so its 2-run rows measure that too. A row's ``n_sim`` counts intervals (pairs), not tasks: with 5 agents the 4 pairs
of a task share the best's runs, so its binomial ``se`` understates the Monte Carlo error. The intervals do not depend
on ``test=``; the Welch test is run as the fastest.
"""

from __future__ import annotations

import itertools
import math
import pathlib
import runpy

import numpy as np

import rlstats

HERE = pathlib.Path(__file__).resolve().parent
POSSIBLY_BEST = runpy.run_path(str(HERE / "coverage_possibly_best.py"))
AGENTS, RUNS = (2, 3, 5, 8), (2, 3, 5, 10, 20)
DISTRIBUTIONS, CONFIGURATIONS = ("normal", "skewed", "capped"), ("all_equal", "one_best")
EFFECTS = ("a12", "hedges_g")
PROCEDURE, LEVEL = "task_table.effect_size", 0.95
#: simulated tasks per grid point: the table's, and --quick's
SIMULATIONS = (400, 150)


_TRUTHS = {}  # a dict rather than functools.lru_cache, which joblib cannot ship to workers by value


def truth(best, other, distribution, cap):
    """(A12, Hedges' delta) of one agent's scores around mean ``best`` against another's around ``other``.

    The scores are drawn as ``coverage_possibly_best.simulate`` draws them: unit-variance noise around the mean (a
    shifted Exp(1) when skewed), cut at ``cap`` (the design's highest true mean) when capped.
    """
    key = (best, other, distribution, cap)
    if key in _TRUTHS:
        return _TRUTHS[key]
    rng = np.random.default_rng(20261126)
    noise = (lambda: rng.exponential(1.0, 1_000_000) - 1.0) if distribution == "skewed" else \
        (lambda: rng.normal(0.0, 1.0, 1_000_000))
    x, y = best + noise(), other + noise()
    if distribution == "capped":
        x, y = np.minimum(x, cap), np.minimum(y, cap)
    a12 = float(np.mean(x > y) + 0.5 * np.mean(x == y))
    _TRUTHS[key] = a12, float((x.mean() - y.mean()) / math.sqrt((x.var() + y.var()) / 2))
    return _TRUTHS[key]


def measure(agents, runs, distribution, configuration, n_sim, seed=0):
    """One grid point: rows for the A12 and the Hedges' g intervals."""
    key = [seed, agents, runs, DISTRIBUTIONS.index(distribution), CONFIGURATIONS.index(configuration)]
    data_seed, test_seed = np.random.SeedSequence(key).spawn(2)
    means = POSSIBLY_BEST["true_means"](agents, configuration)
    data = POSSIBLY_BEST["simulate"](means, runs, n_sim, distribution, np.random.default_rng(data_seed))
    res = rlstats.task_table(data, "score ~ agent | task/seed", test="welch", rng=test_seed)
    true_mean = {res.agents.index(f"a{a}"): m for a, m in enumerate(means)}
    held, pairs = np.zeros(len(EFFECTS)), 0
    for t, best in enumerate(res.best):
        for j in range(agents):
            if j == best:
                continue
            values = truth(float(true_mean[best]), float(true_mean[j]), distribution, float(means.max()))
            for e, (interval, value) in enumerate(zip((res.a12[t, j], res.hedges_g[t, j]), values)):
                held[e] += bool(interval[1] <= value <= interval[2])
            pairs += 1
    return [{"metric": effect, "agents": agents, "runs": runs, "distribution": distribution,
             "configuration": configuration, "n_sim": pairs, "coverage": held[e] / pairs,
             "se": math.sqrt(held[e] / pairs * (1 - held[e] / pairs) / pairs)} for e, effect in enumerate(EFFECTS)]


def grid(quick=False):
    """Every agents, runs, distribution and configuration; --quick: 2 agents at 3 and 10 runs."""
    agents, runs = ((2,), (3, 10)) if quick else (AGENTS, RUNS)
    return list(itertools.product(agents, runs, DISTRIBUTIONS, CONFIGURATIONS))


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim)


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
