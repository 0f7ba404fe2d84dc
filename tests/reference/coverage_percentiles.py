"""Simultaneous coverage of the performance percentiles' intervals: the ``percentiles.interval`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only percentiles.interval [--jobs 1] [--quick]
    PYTHONPATH=. python tests/reference/coverage_percentiles.py --widths     # item 3's width table
    PYTHONPATH=. python tests/reference/coverage_percentiles.py --ranks      # audit s21: rank ranges, separations

(or this script with the same options). A design is k agents x T tasks on the grid of ``designs.py``: in every task
the agents sit at locations 0, -1/(k-1), ..., -1 (in noise units) and the scores follow one of the four
distributions, with each task's offset and scale from a design draw; a row pools ``designs.DESIGN_DRAWS`` draws
(``coverage_min`` the worst). The true payoffs P(X_k <= X_i) (ties, at the capped scores' ceiling, count as wins:
``ties="le"``) come exactly from ``designs.population``'s stratified quantiles, and the true aggregate performance
percentiles from the test file's naive game solver. For each interval kind and runs per cell it counts how often
all k nominal 95% simultaneous intervals (delta = 0.05, the default observed bounds) hold their true value. Results
quote a row where it falls short of the level (``rlstats.methods.percentiles._api``).

The default, PBP, holds its level on the whole grid (it is conservative by construction: a union bound over DKW
bands), which is why it stays the default; its intervals are wide (``--widths``: a median width of 0.6 to 1.0 of the
[0, 1] scale at 3 to 20 runs), the price of a guarantee that needs no more than bounded scores. PBP-t and the
percentile bootstrap, heuristics kept on request, fall short at few runs and are quoted there.

What is measured where follows the CPU cost of one call on a shared machine (2 cores, a load of 20 when this was
run): at 2 x 1 every interval costs 0.01-0.03 s, so 30 data sets per design draw (120 per row); PBP, the default, is
also measured at 8 x 1 (0.025 s, 30 per draw) and at 2 agents x 26 tasks (0.25-0.45 s, 4 per draw: 16 per row,
enough to show PBP's coverage of 1, not to resolve 3 SE). PBP-t and the bootstrap are measured at 2 x 1, where they
miss most, and quoted from there elsewhere. Audit s21 added the default at the designs between those, the ones RL
evaluations report: 2 agents x 5 tasks, 3 x 3 and 4 x 5 (0.012-0.019 s a call), 100 data sets per draw (400 per row:
a binomial SE of 0.011 at 95%, so a row misses below 0.917).

Every row there held every true value in all 400 data sets: PBP keeps its level, but says almost nothing. Every
agent's rank range (``rank_best`` to ``rank_worst``) and every printed separation ("a > b": a's lower bound above
b's upper bound) follows from the intervals, so both hold whenever every interval holds; ``--ranks`` measures that
rather than taking it on trust (100 data sets per design, 3 to 10 runs): the ranks held in every data set, the
median interval width was 0.90 to 0.995 of the [0, 1] scale, and no pair was separated in any of the 3,600 data
sets, so every rank range spans all ranks and no "best" is claimed at these designs.
``grid`` lists (interval, agents, tasks, runs, distribution); ``--quick`` two of them.
"""

from __future__ import annotations

import itertools
import pathlib
import runpy
import sys
from types import SimpleNamespace
import warnings

import numpy as np
import pandas as pd

import rlstats

HERE = pathlib.Path(__file__).resolve().parent
# the grid's one home of distributions and design draws, run from its path as the other coverage modules do
designs = SimpleNamespace(**runpy.run_path(str(HERE / "designs.py")))

PROCEDURE, LEVEL = "percentiles.interval", 0.95
#: data sets per design draw and grid point: the table's, and --quick's (a plan's cap below lowers the first)
SIMULATIONS = (100, 10)
N_RESAMPLES = 1000
INTERVALS = ("pbp", "pbp_t", "bootstrap")
#: (intervals, agents, tasks, data sets per design draw at most)
PLANS = [(INTERVALS, 2, 1, 30), (("pbp",), 8, 1, 30), (("pbp",), 2, 26, 4),
         (("pbp",), 2, 5, 100), (("pbp",), 3, 3, 100), (("pbp",), 4, 5, 100)]  # the last three: audit s21
CAPS = {(interval, agents, tasks): cap for intervals, agents, tasks, cap in PLANS for interval in intervals}
FORMULA = "score ~ agent | task"
# The game solver, from the test file (run from its path: tests/ need not be importable).
TESTS = runpy.run_path(str(HERE.parent / "test_percentiles.py"))
_TRUTHS = {}


def locations(agents):
    """The agents' locations in every task, in noise units: 0 down to -1."""
    return -np.linspace(0.0, 1.0, agents)


def true_payoffs(agents, tasks, distribution):
    """A[i, j, k] = P(X_k <= X_i) on task j, exact from stratified quantiles (0.5 on the diagonal)."""
    key = (agents, distribution)
    if key not in _TRUTHS:
        population = designs.population(distribution, locations(agents))  # (agents, points)
        ordered = np.sort(population, axis=1)
        a = np.full((agents, agents), 0.5)
        for i, k in itertools.permutations(range(agents), 2):
            a[i, k] = np.searchsorted(ordered[k], population[i], side="right").mean() / ordered.shape[1]
        _TRUTHS[key] = a
    return np.repeat(_TRUTHS[key][:, None, :], tasks, axis=1)


def true_aggregate(agents, tasks, distribution):
    """The true aggregate performance percentiles: the test file's naive game solver on the true payoffs."""
    return TESTS["naive_solution"](true_payoffs(agents, tasks, distribution))[1]


def simulate(agents, tasks, runs, distribution, draw, rng):
    """Long frame of ``runs`` runs per cell, the tasks' offsets and scales from design draw ``draw``."""
    offset, scale = designs.design_draw(draw, tasks)
    deviation = designs.deviations(rng, distribution, (tasks, agents, runs))
    scores = designs.scores(distribution, deviation, locations(agents)[None, :, None], offset[:, None, None],
                            scale[:, None, None])
    task, agent, _ = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    return pd.DataFrame({"agent": [f"a{a}" for a in agent.ravel()], "task": [f"t{t:02d}" for t in task.ravel()],
                         "score": scores.ravel()})


def _results(interval, agents, tasks, runs, distribution, n_sim, seed, n_resamples):
    """(held, widths, ranked, separations): per design draw, whether all k intervals held their truth and whether
    every rank range held the agent's true rank and every separation the result prints ("a > b") was true; the k
    widths and the number of separations of each data set."""
    truth = true_aggregate(agents, tasks, distribution)
    true_rank = np.argsort(np.argsort(-truth)) + 1  # the truths differ (the agents sit apart in every task)
    held, widths, ranked, claims = [], [], [], []
    for draw in range(designs.DESIGN_DRAWS):
        rng = np.random.default_rng([*np.atleast_1d(seed), draw])
        hits, rank_hits = [], []
        for r in range(n_sim):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the raw-scale and few-runs warnings: the designs are small on purpose
                res = rlstats.percentiles(simulate(agents, tasks, runs, distribution, draw, rng), FORMULA,
                                          interval=interval, delta=0.05, n_resamples=n_resamples, rng=r)
            hits.append(bool(np.all((res.conf_low <= truth) & (truth <= res.conf_high))))
            widths.append(res.conf_high - res.conf_low)
            separated = res.conf_low[:, None] > res.conf_high[None, :]  # [i, k]: "i > k" printed
            rank_hits.append(bool(np.all((res.rank_best <= true_rank) & (true_rank <= res.rank_worst))
                                  and np.all(truth[:, None] > truth[None, :], where=separated)))
            claims.append(int(separated.sum()))
        held.append(np.array(hits))
        ranked.append(np.array(rank_hits))
    return held, np.concatenate(widths), ranked, np.array(claims)


def measure(interval, agents, tasks, runs, distribution, n_sim, seed=0, n_resamples=N_RESAMPLES):
    """The row of one grid point: the share of data sets in which every nominal 95% interval held its truth."""
    held, *_ = _results(interval, agents, tasks, runs, distribution, n_sim, seed, n_resamples)
    return {"interval": interval, "agents": agents, "tasks": tasks, "runs": runs, "distribution": distribution,
            "n_resamples": n_resamples if interval == "bootstrap" else "", **designs.pooled_row(held, LEVEL)}


def grid(quick=False):
    """(interval, agents, tasks, runs, distribution) of every plan; --quick: PBP and PBP-t at 2 x 1, 3 runs."""
    if quick:
        return [("pbp", 2, 1, 3, "skewed"), ("pbp_t", 2, 1, 3, "skewed")]
    return [point for intervals, agents, tasks, _ in PLANS
            for point in designs.grid(intervals, (agents,), (tasks,), designs.RUNS, designs.DISTRIBUTIONS)]


def table_rows(point, n_sim, quick=False):
    """The row of one grid point for the package table (``tests/reference/calibrate.py``): at most the plan's data
    sets per design draw."""
    interval, agents, tasks, runs, distribution = point
    seed = [agents, tasks, runs, designs.DISTRIBUTIONS.index(distribution)]
    return [measure(interval, agents, tasks, runs, distribution, min(n_sim, CAPS[interval, agents, tasks]),
                    seed=seed)]


def widths(n_sim=10):
    """Item 3's table: median width of each interval kind per design and runs (PBP the default)."""
    rows = []
    for (intervals, agents, tasks, _), runs, distribution in itertools.product(PLANS[:1], designs.RUNS,
                                                                               ("normal", "skewed")):
        for interval in intervals:
            held, width, *_ = _results(interval, agents, tasks, runs, distribution, n_sim, [9, runs], N_RESAMPLES)
            rows.append({"interval": interval, "agents": agents, "tasks": tasks, "runs": runs,
                         "distribution": distribution, "coverage": np.mean(np.concatenate(held)),
                         "median_width": float(np.median(width))})
    return pd.DataFrame(rows)


def ranks(n_sim=25):
    """Audit s21: on the designs it added (PBP, 3 to 10 runs), the share of data sets in which every interval held
    its truth and the share in which every rank range and printed separation held (never lower: they follow from
    the intervals), the median interval width and the share of data sets in which any pair was separated."""
    rows = []
    for (intervals, agents, tasks, _), runs, distribution in itertools.product(PLANS[3:], designs.RUNS[:3],
                                                                               designs.DISTRIBUTIONS):
        held, width, ranked, separations = _results("pbp", agents, tasks, runs, distribution, n_sim,
                                                    [21, agents, tasks, runs], N_RESAMPLES)
        rows.append({"agents": agents, "tasks": tasks, "runs": runs, "distribution": distribution,
                     "n_sim": n_sim * designs.DESIGN_DRAWS, "intervals": np.mean(np.concatenate(held)),
                     "ranks": np.mean(np.concatenate(ranked)), "median_width": float(np.median(width)),
                     "separated": np.mean(separations > 0)})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    if "--widths" in sys.argv:
        print(widths().round(3).to_string(index=False))
    elif "--ranks" in sys.argv:
        print(ranks().round(3).to_string(index=False))
    else:
        runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
