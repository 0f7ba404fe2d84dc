"""Coverage of task_table's effect-size intervals against the next-ranked agent: the ``task_table.next_ranked`` rows
of ``rlstats/calibration.csv`` (issue 41 item 3).

    PYTHONPATH=. python tests/reference/calibrate.py --only task_table.next_ranked [--jobs 1] [--quick]

(or this script with the same options). Each simulated task is a replicate of the grid's design (``designs.py``):
agents 2, 3 and 8, runs per agent 3, 5, 10, 20, the four score distributions, and the agents' locations all equal
(``all_equal``) or spaced 0.5 noise units apart (``spaced``: 0, -0.5, -1, ...); each task's offset and scale come
from a design draw, and a row pools ``DESIGN_DRAWS`` draws (``coverage_min`` the worst). ``rlstats.task_table``
(its default ``effect_intervals="fcr"``) orders the agents of each task by their mean run and gives each agent's A12
and Hedges' g interval against the agent ranked just above it (``a12_next``, ``hedges_g_next``); a row's
``coverage`` is the share of those printed intervals that hold the true effect of their pair (A12: P(X > Y) +
P(X = Y) / 2 of the next-ranked agent's runs X against the agent's Y; g: the standardised difference of their true
means), exact from ``designs.population``'s stratified quantiles (``coverage_effect_sizes.truth``). The pairs are
chosen by the data, so 1 - coverage is the false coverage-statement rate that the per-pair level 1 - 2 (1 - 0.95) / k
keeps at most 0.05 (Benjamini and Yekutieli 2005). An interval that could not be formed counts as not holding.
``n_sim`` counts intervals (k - 1 per task), which share runs within a task, so ``se`` understates the Monte Carlo
error a little. The ``metric`` "difference" rows (Welch's interval of the difference of means against the next-ranked
agent, audit s33) are appended by ``coverage_fcr_difference.py``, which reads :func:`intervals_held`.
"""

from __future__ import annotations

import pathlib
import runpy
from types import SimpleNamespace

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
designs = SimpleNamespace(**runpy.run_path(str(HERE / "designs.py")))
# the exact truths and the simulated frame are those of the intervals against the best (one home each)
effects = SimpleNamespace(**runpy.run_path(str(HERE / "coverage_effect_sizes.py")))

AGENTS, RUNS, DISTRIBUTIONS = (2, 3, 8), designs.RUNS, designs.DISTRIBUTIONS
CONFIGURATIONS, EFFECTS = ("all_equal", "spaced"), ("a12", "hedges_g")
PROCEDURE, LEVEL = "task_table.next_ranked", 0.95
#: simulated tasks per design draw and grid point: the table's, and --quick's
SIMULATIONS = (100, 30)
SPACING = 0.5


def true_locations(agents, configuration):
    """The agents' locations in noise units: all 0, or 0, -0.5, -1, ... (every next-ranked pair 0.5 apart)."""
    return np.zeros(agents) if configuration == "all_equal" else -SPACING * np.arange(agents)


def intervals_held(data, locations, distribution, level=LEVEL, scale=None, res=None):
    """{effect: held} per printed interval of an agent against the agent ranked just above it (task by task); with
    ``scale`` (each task's, in the tasks' sorted order) also Welch's interval of the difference of means. ``res``: the
    frame's default task table (``coverage_effect_sizes.task_table(data, "fcr")``), where already computed."""
    res = effects.task_table(data, "fcr", level) if res is None else res
    location = {res.agents.index(f"a{a}"): m for a, m in enumerate(locations)}
    tasks_of, agents_of = np.nonzero(res.next_ranked >= 0)
    above = res.next_ranked[tasks_of, agents_of]
    # the next-ranked agent's runs against the agent's: positive favours the next-ranked, as a12_next is oriented
    truths = np.array([effects.truth(float(location[j]), float(location[a]), distribution)
                       for j, a in zip(above, agents_of)]).reshape(-1, 2)
    out = {}
    for e, values in enumerate((res.a12_next, res.hedges_g_next)):
        cells = values[tasks_of, agents_of]
        out[EFFECTS[e]] = (cells[:, 1] <= truths[:, e]) & (truths[:, e] <= cells[:, 2])
    if scale is not None:
        true = np.asarray(scale)[tasks_of] * np.array([effects.mean_difference(float(location[j]), float(location[a]),
                                                                               distribution)
                                                       for j, a in zip(above, agents_of)])
        low, high = res.welch_next[tasks_of, agents_of, 2], res.welch_next[tasks_of, agents_of, 3]
        out["difference"] = (low <= true) & (true <= high)  # NaN bounds count as missing
    return out


def measure(agents, runs, distribution, configuration, n_sim, seed=0):
    """One grid point: a row per effect, pooling ``designs.DESIGN_DRAWS`` design draws."""
    locations = true_locations(agents, configuration)
    held = {e: [] for e in EFFECTS}
    for draw in range(designs.DESIGN_DRAWS):
        key = [41, seed, agents, runs, DISTRIBUTIONS.index(distribution), CONFIGURATIONS.index(configuration), draw]
        data = effects.simulate(locations, runs, n_sim, distribution, draw, np.random.default_rng(key))
        for effect, hits in intervals_held(data, locations, distribution).items():
            held[effect].append(hits)
    return [{"interval": "fcr", "metric": effect, "agents": agents, "runs": runs, "distribution": distribution,
             "configuration": configuration, **designs.pooled_row(held[effect], LEVEL)} for effect in EFFECTS]


def grid(quick=False):
    """Every agents, runs, distribution and configuration; --quick: 3 and 8 agents at 3 and 10 runs."""
    agents, runs = ((3, 8), (3, 10)) if quick else (AGENTS, RUNS)
    return designs.grid(agents, runs, DISTRIBUTIONS, CONFIGURATIONS)


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim)


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
