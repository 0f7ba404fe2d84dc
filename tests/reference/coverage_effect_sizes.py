"""Coverage of task_table's effect-size intervals: the ``task_table.effect_size`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only task_table.effect_size [--jobs 1] [--quick]
    PYTHONPATH=. python tests/reference/coverage_effect_sizes.py --widths     # item 3's width table

(or this script with the same options). Each simulated task is a replicate of the grid's design (``designs.py``):
agents 2 and 8, runs per agent 2, 3, 5, 10, 20, the four score distributions, and the agents' locations all equal
(the least favourable for the choice of the best) or one best with the others 0.5 to 1 SD lower; each task's offset
and scale come from a design draw, and a row pools ``DESIGN_DRAWS`` draws (``coverage_min`` the worst). For each kind
of interval (``interval``: ``effect_intervals=`` of ``task_table``, "fcr" the default, "fcr_normal" the default of
earlier releases, whose Hedges' g interval is not widened by the runs' kurtosis, and "per_pair" the unadjusted
intervals of earlier releases; "fcr_normal" has Hedges' g rows only, its A12 interval being "fcr"'s) it counts how often the 95% interval of each effect size of the point best against another agent
holds the true effect of that pair: the Vargha-Delaney A12 (truth P(X > Y) + P(X = Y) / 2) and Hedges' g (truth the
standardised difference delta: the difference of means over the root mean of the two variances), both computed
exactly from ``designs.population``'s stratified quantiles. The pair is chosen on the data (the point best), so the
share of printed intervals that hold is what ``fcr`` controls (Benjamini and Yekutieli's false coverage-statement
rate). An interval that could not be formed (NaN) counts as not holding: the per-pair A12 interval is undefined at a
complete separation. A row's ``n_sim`` counts intervals (pairs), not tasks: with 8 agents the 7 pairs of a task share
the best's runs, so its binomial ``se`` understates the Monte Carlo error. The intervals do not depend on ``test=``;
the Welch test is run as the fastest.

The ``metric`` "difference" rows (Welch's interval of the difference of means against the best, audit s33) are
appended by ``coverage_fcr_difference.py``, which reads this module's frame, truths and :func:`intervals_held`.

``--widths`` prints, per design, the median width of each default interval over that of the per-pair one, over that of
"fcr_normal" (the widening's cost) and over an
oracle's, 2 z(1 - alpha' / 2) times the Monte Carlo standard deviation of the estimate of the pair at alpha', the
per-pair error the interval is at (the normal interval with the true variance; for 8 agents that variance includes
the choice of the best).
"""

from __future__ import annotations

import itertools
import math
import pathlib
import runpy
import sys
from types import SimpleNamespace

import numpy as np
import pandas as pd

import rlstats

HERE = pathlib.Path(__file__).resolve().parent
# the grid's one home of distributions and design draws, run from its path as the other coverage modules do
designs = SimpleNamespace(**runpy.run_path(str(HERE / "designs.py")))

AGENTS, RUNS = (2, 8), (2,) + designs.RUNS
DISTRIBUTIONS, CONFIGURATIONS = designs.DISTRIBUTIONS, ("all_equal", "one_best")
EFFECTS, INTERVALS = ("a12", "hedges_g"), ("fcr", "fcr_normal", "per_pair")
#: the (effect, interval) rows of a grid point: "fcr_normal" differs from "fcr" in Hedges' g only
ROWS = tuple((e, i) for i in INTERVALS for e in EFFECTS if (e, i) != ("a12", "fcr_normal"))
PROCEDURE, LEVEL = "task_table.effect_size", 0.95
#: simulated tasks per design draw and grid point: the table's, and --quick's
SIMULATIONS = (100, 40)

_TRUTHS = {}  # a dict rather than functools.lru_cache, which joblib cannot ship to workers by value


def true_locations(agents, configuration):
    """The agents' locations in noise units: the best at 0, the others spread from 0.5 to 1 below (0 when equal)."""
    if configuration == "all_equal":
        return np.zeros(agents)
    return np.r_[0.0, -np.linspace(0.5, 1.0, agents - 1)]


def truth(best, other, distribution):
    """(A12, delta) of runs at location ``best`` against runs at ``other``, exact from stratified quantiles."""
    key = (best, other, distribution)
    if key not in _TRUTHS:
        x, y = designs.population(distribution, best), np.sort(designs.population(distribution, other))
        below = np.searchsorted(y, x, side="left").mean() / y.size
        at_most = np.searchsorted(y, x, side="right").mean() / y.size
        delta = (x.mean() - y.mean()) / math.sqrt((x.var() + y.var()) / 2)
        _TRUTHS[key] = float((below + at_most) / 2), float(delta)
    return _TRUTHS[key]


def simulate(locations, runs, n_sim, distribution, draw, rng):
    """Long frame of ``n_sim`` tasks (one design draw's offsets and scales) of ``runs`` runs per agent."""
    offset, scale = designs.design_draw(draw, n_sim)
    deviation = designs.deviations(rng, distribution, (n_sim, locations.size, runs))
    scores = designs.scores(distribution, deviation, locations[None, :, None], offset[:, None, None],
                            scale[:, None, None])
    task, agent, seed = np.meshgrid(np.arange(n_sim), np.arange(locations.size), np.arange(runs), indexing="ij")
    return pd.DataFrame({"task": [f"t{t:04d}" for t in task.ravel()], "agent": [f"a{a}" for a in agent.ravel()],
                         "seed": seed.ravel(), "score": scores.ravel()})


def mean_difference(best, other, distribution):
    """The difference of the expected scores (in noise units, before a task's scale) of runs at location ``best``
    and at ``other``: their locations' difference, less what the cap of ``capped`` takes off, exact from stratified
    quantiles."""
    key = ("difference", best, other, distribution)
    if key not in _TRUTHS:
        _TRUTHS[key] = float(designs.population(distribution, best).mean()
                             - designs.population(distribution, other).mean())
    return _TRUTHS[key]


def task_table(data, intervals, level=LEVEL):
    """The task table of a simulated frame, as every row of the effect sizes reads it (Welch's test, the fastest:
    the intervals do not depend on ``test=``)."""
    return rlstats.task_table(data, "score ~ agent | task/seed", test="welch", confidence_level=level,
                              effect_intervals=intervals, rng=0)


def intervals_held(data, locations, distribution, intervals, level=LEVEL, scale=None, res=None):
    """{effect: (held, width, estimate)} per printed interval of the point best against another agent (task by
    task, in the tasks' order); with ``scale`` (each task's, in the tasks' sorted order) also Welch's interval of the
    difference of means, "difference" (its width in task units). ``res``: the frame's :func:`task_table`, where
    already computed."""
    res = task_table(data, intervals, level) if res is None else res
    location = {res.agents.index(f"a{a}"): m for a, m in enumerate(locations)}
    others = np.ones(res.a12.shape[:2], dtype=bool)
    others[np.arange(others.shape[0]), res.best] = False
    tasks_of, agents_of = np.nonzero(others)
    truths = np.array([truth(float(location[res.best[t]]), float(location[j]), distribution)
                       for t, j in zip(tasks_of, agents_of)]).reshape(-1, 2)
    out = {}
    for e, values in enumerate((res.a12, res.hedges_g)):
        cells = values[tasks_of, agents_of]
        out[EFFECTS[e]] = ((cells[:, 1] <= truths[:, e]) & (truths[:, e] <= cells[:, 2]), cells[:, 2] - cells[:, 1],
                           cells[:, 0])
    if scale is not None:
        true = np.asarray(scale)[tasks_of] * np.array([mean_difference(float(location[res.best[t]]),
                                                                       float(location[j]), distribution)
                                                       for t, j in zip(tasks_of, agents_of)])
        low, high = res.welch[tasks_of, agents_of, 2], res.welch[tasks_of, agents_of, 3]
        out["difference"] = ((low <= true) & (true <= high), high - low, None)  # NaN bounds count as missing
    return out


def fcr_se(held_by_draw, per_task):
    """The Monte Carlo standard error of the share of printed intervals that miss, as the mean over tasks of each
    task's share (``per_task`` intervals each, task by task in ``held_by_draw``'s arrays): the standard deviation of
    the tasks' shares over the root of their number (the intervals of a task share the best's runs, so the binomial
    SE of the intervals understates it; with one interval a task it is the binomial SE)."""
    shares = np.concatenate([np.asarray(h, dtype=float).reshape(-1, per_task).mean(axis=1) for h in held_by_draw])
    return float(shares.std(ddof=1) / math.sqrt(shares.size))


def measure(agents, runs, distribution, configuration, n_sim, seed=0, intervals=INTERVALS):
    """One grid point: a row per effect and kind of interval (of ``intervals``), pooling ``designs.DESIGN_DRAWS``
    design draws."""
    locations = true_locations(agents, configuration)
    held = {(e, i): [] for e, i in ROWS if i in intervals}
    for draw in range(designs.DESIGN_DRAWS):
        key = [seed, agents, runs, DISTRIBUTIONS.index(distribution), CONFIGURATIONS.index(configuration), draw]
        data = simulate(locations, runs, n_sim, distribution, draw, np.random.default_rng(key))
        for interval in intervals:
            for effect, (hits, _, _) in intervals_held(data, locations, distribution, interval).items():
                if (effect, interval) in held:
                    held[effect, interval].append(hits)
    return [{"interval": interval, "metric": effect, "agents": agents, "runs": runs, "distribution": distribution,
             "configuration": configuration, **designs.pooled_row(held[effect, interval], LEVEL)}
            for effect, interval in held]


def grid(quick=False):
    """Every agents, runs, distribution and configuration; --quick: 2 and 8 agents at 3 and 10 runs."""
    agents, runs = ((2, 8), (3, 10)) if quick else (AGENTS, RUNS)
    return designs.grid(agents, runs, DISTRIBUTIONS, CONFIGURATIONS)


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim)


def widths(agents=(2, 8), runs=designs.RUNS, n_sim=100, configuration="one_best"):
    """Item 3's table: median width of the default ("fcr") over the per-pair interval's and over the oracle's."""
    from scipy import stats

    rows = []
    for k, r, distribution in itertools.product(agents, runs, DISTRIBUTIONS):
        locations = true_locations(k, configuration)
        data = simulate(locations, r, n_sim * designs.DESIGN_DRAWS, distribution, 0,
                        np.random.default_rng([7, k, r, DISTRIBUTIONS.index(distribution)]))
        new, normal, old = (intervals_held(data, locations, distribution, i) for i in INTERVALS)
        z = stats.norm.ppf(1 - (1 - rlstats.methods.task_table._kernels.fcr_level(LEVEL, k)) / 2)
        for effect in EFFECTS:
            estimate = new[effect][2]
            oracle = 2 * z * np.nanstd(estimate, ddof=1)
            rows.append({"metric": effect, "agents": k, "runs": r, "distribution": distribution,
                         "coverage_new": np.mean(new[effect][0]), "coverage_old": np.mean(old[effect][0]),
                         "width_new": np.nanmedian(new[effect][1]),
                         "vs_old": np.nanmedian(new[effect][1]) / np.nanmedian(old[effect][1]),
                         "vs_fcr_normal": np.nanmedian(new[effect][1]) / np.nanmedian(normal[effect][1]),
                         "vs_oracle": np.nanmedian(new[effect][1]) / oracle})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    if "--widths" in sys.argv:
        import rlstats.methods.task_table._kernels  # noqa: F401  (fcr_level)
        print(widths().round(3).to_string(index=False))
    else:
        runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
