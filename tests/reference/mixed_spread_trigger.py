"""How often mixed()'s note of agents whose runs differ in spread fires (audit s37, spread37): on agents of one run
spread (it should not) and on the spreads where the ``mixed.contrast`` rows "run sd by agent ..." measure (it should).

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 nice python tests/reference/mixed_spread_trigger.py [--quick] [--keep-middle] [--json PATH]

The note (``rlstats.methods.mixed._api._run_spread_notes``) fires where the agents' run SDs within cells lie
``RUN_SD_RATIO`` (2) or more times apart, largest over smallest (``_sd_ratio``), and Levene's test of equal spreads
(Brown and Forsythe's, about the cells' medians, tasks as blocks: ``spread_levene``) gives p below ``RUN_SD_LEVEL``
(0.05). Before audit s37 the second condition was Hartley's F-max of the SDs under normal runs, which skewed runs of one
spread passed in 8.7-46% of data sets (audit s36 rv36c); a variance-ratio test of normal theory is not robust to
skewed or heavy-tailed runs, Levene's about medians is.

Data sets: ``designs.py``'s four score families (normal, skewed, heavy_tailed, capped) in ``coverage_mixed_spreads``'s
simulate (every agent at location 0; each agent's deviations times its run SD before the cap), the tasks' offsets and
scales of ``designs.DESIGN_DRAWS`` draws, the data sets of a draw at once (``spread_levene`` takes them as rows; no
loop per data set). ``EQUAL``: every agent's run SD 1, 2, 3, 4, 6 and 8 agents x 1, 5 and 26 tasks x 3, 5 and 10
runs, ``SIMULATIONS[0]`` data sets a design. ``APART``: the rows' spreads (run SD 1 and 4; 1, 1, 4, 4; 1, 1, 1, 4)
at 1, 5 and 10 tasks x 3, 5 and 10 runs, ``SIMULATIONS[1]`` a design. Each design reports the share of data sets in
which the note fires (``fired``), in which the test alone gives p < 0.05 (``test``) and in which the ratio alone is 2
or more (``ratio``).

Measured (seed 37, 2,000 data sets a design of equal spreads, 1,000 of unlike; ``mixed_spread_trigger.json``; about
2 minutes at one job on a shared machine). Agents of one spread on the grid: the note fires in 0-3.9% of normal
data sets, 0.35-5.5% of skewed, 0.35-5.3% of heavy-tailed and 0-4.6% of capped ones; the test alone 0.85-6.0%; the
ratio of 2 alone up to 100% (8 agents x 1 task x 3 skewed runs); ``UNBALANCED`` up to 5.9% (skewed, 4 agents x 1 task
x 2 to 4 runs: ``_api.RUN_SD_EQUAL_FIRES``). ``--keep-middle`` (every deviation kept): 38-40% at 4 agents x 5 tasks
x 2 runs. One agent's runs 4 times as spread as three others' (1/1/1/4, the design where the rows
miss): 92% of normal data sets at 5 tasks x 3 runs, 99.9% at 5 x 5, 99.7% at 10 x 3; skewed 76%, 97%, 96%;
heavy-tailed 86%, 99%, 99%; capped 41%, 79%, 71%; with one task 7-17% at 3 runs, 52-94% at 10. Session 36's trigger (the ratio of 2
and Hartley's F-max under normal runs at 0.05) on the same data sets, 400 a design: skewed runs of one spread 2.2-52%
at 3 runs (46% at 4 agents x 5 tasks x 5 runs), heavy-tailed up to 33%; 1/1/1/4 at 5 x 3 87% normal, 85% skewed.
``tests/test_audit_s37_spread37.py`` re-measures a reduced grid in the default run and the whole grid as a slow test.
"""

from __future__ import annotations

import json
import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
SPREADS = runpy.run_path(str(HERE / "coverage_mixed_spreads.py"))
DISTRIBUTIONS = ("normal", "skewed", "heavy_tailed", "capped")
AGENTS, TASKS, RUNS = (2, 3, 4, 6, 8), (1, 5, 26), (3, 5, 10)
APART_SDS = ((1.0, 4.0), (1.0, 1.0, 4.0, 4.0), (1.0, 1.0, 1.0, 4.0))
APART_TASKS = (1, 5, 10)
#: (agents, tasks, fewest runs, most runs): designs of unlike cells, each cell's runs drawn once, uniformly from
#: fewest to most (``counts``; 1 run: a cell that gives no deviation), agents of one spread; the first is balanced at
#: 2 runs, below the grid
UNBALANCED = ((4, 5, 2, 2), (4, 5, 1, 5), (8, 5, 2, 4), (4, 26, 1, 3), (2, 5, 2, 6), (4, 1, 2, 6), (3, 10, 3, 10))
#: data sets a design: equal spreads, unlike spreads (split over the DESIGN_DRAWS draws)
SIMULATIONS = (2000, 1000)
QUICK_SIMULATIONS = (400, 200)
SEED = 37


def counts(agents, tasks, fewest, most=None):
    """(tasks, agents) runs a cell: ``fewest`` in every cell, or (``most`` given) drawn from ``fewest`` to ``most``."""
    if most is None or most == fewest:
        return np.full((tasks, agents), fewest)
    return np.random.default_rng([SEED, agents, tasks, fewest, most]).integers(fewest, most + 1, (tasks, agents))


def equal_grid(quick=False):
    """(distribution, run sds, counts) of agents of one spread: the balanced grid, then ``UNBALANCED``."""
    if quick:
        return [(d, (1.0,) * a, counts(a, t, r)) for d in DISTRIBUTIONS for a, t, r in ((4, 5, 3), (8, 26, 3), (2, 1, 5))]
    return ([(d, (1.0,) * a, counts(a, t, r)) for d in DISTRIBUTIONS for a in AGENTS for t in TASKS for r in RUNS]
            + [(d, (1.0,) * a, counts(a, t, lo, hi)) for d in DISTRIBUTIONS for a, t, lo, hi in UNBALANCED])


def apart_grid(quick=False):
    """(distribution, run sds, counts) of the rows' unlike spreads."""
    if quick:
        return [(d, APART_SDS[2], counts(4, 5, 3)) for d in ("normal", "skewed")]
    return [(d, s, counts(len(s), t, r)) for d in DISTRIBUTIONS for s in APART_SDS for t in APART_TASKS for r in RUNS]


def codes(cells):
    """(task, agent) of each run in (task, agent, run) order, ``cells`` (tasks, agents) runs a cell."""
    tasks, agents = cells.shape
    task, agent = np.meshgrid(np.arange(tasks), np.arange(agents), indexing="ij")
    return np.repeat(task.ravel(), cells.ravel()), np.repeat(agent.ravel(), cells.ravel())


def simulate(distribution, sds, cells, n, rng, draw):
    """(n, runs) scores in (task, agent, run) order, as ``coverage_mixed_spreads.simulate`` draws one data set (its
    deviations times each agent's run SD, then ``designs.scores`` with the task's offset and scale), n at once."""
    task, agent = codes(cells)
    offset, scale = DESIGNS["design_draw"](draw, cells.shape[0])
    deviation = DESIGNS["deviations"](rng, distribution, (n, task.size)) * np.asarray(sds, dtype=float)[agent]
    return DESIGNS["scores"](distribution, deviation, 0.0, offset[task], scale[task])


def sd_ratios(y, cells):
    """(ratio, used) of each row: ``_api._sd_ratio`` (each agent's runs' squared deviations from their cells' means
    over its cells' runs less one; agents whose runs do not vary, or with no cell of two runs, left out; NaN below
    two)."""
    flat = cells.ravel()
    held = flat > 0
    start = (np.cumsum(flat) - flat)[held]
    where = np.repeat(np.arange(flat.size), flat)
    means = np.zeros(y.shape[:-1] + (flat.size,))
    means[..., held] = np.add.reduceat(y, start, axis=-1) / flat[held]
    squares = np.zeros_like(means)
    squares[..., held] = np.add.reduceat((y - means[..., where]) ** 2, start, axis=-1)
    squares = squares.reshape(y.shape[:-1] + cells.shape).sum(axis=-2)
    df = np.fmax(cells - 1, 0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(squares / df)
        used = (df > 0) & (sd > 0)
        ratio = np.where(used, sd, -np.inf).max(axis=-1) / np.where(used, sd, np.inf).min(axis=-1)
    return np.where(used.sum(axis=-1) >= 2, ratio, np.nan), used


def rates(distribution, sds, cells, n, seed=SEED, drop_middle=True):
    """{"fired", "test", "ratio", "n"}: the shares of n data sets (n / DESIGN_DRAWS a draw of the tasks)."""
    from rlstats.methods.mixed._api import RUN_SD_LEVEL, RUN_SD_RATIO, spread_levene

    tasks, agents = cells.shape
    task, agent = codes(cells)
    key = [seed, DISTRIBUTIONS.index(distribution), agents, tasks, *np.unique(cells).tolist(),
           int(np.sum(np.asarray(sds) > 1))]
    rng = np.random.default_rng(np.random.SeedSequence(key))
    draws = DESIGNS["DESIGN_DRAWS"]
    fired, test, ratio_alone = [], [], []
    for draw in range(draws):
        y = simulate(distribution, sds, cells, n // draws, rng, draw)
        ratio, used = sd_ratios(y, cells)
        p = spread_levene(y, task, agent, tasks, agents, use=used, drop_middle=drop_middle)[3]
        test.append(p < RUN_SD_LEVEL)
        ratio_alone.append(ratio >= RUN_SD_RATIO)
        fired.append(test[-1] & ratio_alone[-1])
    return {"fired": float(np.mean(fired)), "test": float(np.mean(test)), "ratio": float(np.mean(ratio_alone)),
            "n": n // draws * draws}


def measure(quick=False, out=None, drop_middle=True):
    """[{"distribution", "sds", "tasks", "runs", "fired", "test", "ratio", "n"}] over both grids (``runs`` "3" or,
    unbalanced, "1-5": the fewest and most in a cell)."""
    equal_n, apart_n = QUICK_SIMULATIONS if quick else SIMULATIONS
    rows = []
    for grid, n in ((equal_grid(quick), equal_n), (apart_grid(quick), apart_n)):
        for distribution, sds, cells in grid:
            runs = f"{cells.min()}" if cells.min() == cells.max() else f"{cells.min()}-{cells.max()}"
            row = {"distribution": distribution, "sds": "/".join(f"{s:g}" for s in sds), "tasks": cells.shape[0],
                   "runs": runs, **rates(distribution, sds, cells, n, drop_middle=drop_middle)}
            rows.append(row)
            if out is not None:
                print(json.dumps(row), file=out, flush=True)
    return rows


def main(argv):
    rows = measure("--quick" in argv, sys.stdout, drop_middle="--keep-middle" not in argv)
    if "--json" in argv:
        pathlib.Path(argv[argv.index("--json") + 1]).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
