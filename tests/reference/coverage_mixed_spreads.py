"""The mixed model's pairwise intervals where the agents' runs differ in spread (audit s36, calib36): ``mixed.contrast``
rows of ``rlstats/calibration.csv`` whose ``configuration`` starts "run sd by agent ".

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 nice python tests/reference/coverage_mixed_spreads.py [--quick]
        [--json PATH] [--append-table rlstats/calibration.csv]

``rlstats.mixed(df, "score ~ agent | task/seed")`` fits one residual variance for every agent's runs; the grid of
``coverage_mixed.py`` draws every agent's runs with one spread (capped scores apart, where an agent placed higher
reaches the cap more often). RL agents' runs often differ in spread (an unstable agent beside a stable one). Here the
agents are alike in mean (every location 0, the standardised deviations of mean 0: every true difference 0) and half
of them have runs ``RATIO`` (4) times as spread as the others': 2 agents, run sd 1 and 4 in each task's noise units;
4 agents, 1, 1, 4 and 4 (``configuration`` "run sd by agent 1/1/4/4: all_equal"), or one unstable agent among
three, 1, 1, 1 and 4 ("run sd by agent 1/1/1/4: all_equal"). 2 and 4 agents x 5 and 10 tasks x
3, 5 and 10 runs a cell, normal and skewed scores (``designs.py``), the tasks' offsets and scales of
``designs.DESIGN_DRAWS`` draws, ``SIMULATIONS`` data sets a draw (a point with a row below 0.95, or a draw 2 SE below,
continued to 4 times as many, the same data sets then more: ``coverage_mixed.py``'s rule). Each data set is fitted once as :func:`rlstats.mixed`
fits it (``coverage_mixed.pairs``, Satterthwaite's df, the default) and its family decided by ``coverage_mixed.held``
(Tukey's, the default, and Bonferroni's beside Holm's p-values): ``coverage`` the share of data sets in which no pair
is declared different, so 1 - coverage is the family-wise error (the "size" of the default's pairwise test).

``--append-table`` writes the rows into the package table in place of the ones it wrote before (:func:`appended`,
which ``calibrate.py`` keeps when it re-measures ``mixed.contrast``).

Measured (seed 36; 400 data sets a point, 4 draws of 100, the 13 continued points 1,600; some 25 minutes at one job
on a shared machine): with 2 agents, or 4 in two pairs of spreads, the Tukey family held 0.948-0.988 (worst draw
0.92); with one agent's runs 4 times as spread as three others' it held 0.904-0.950 on skewed scores (0.904 at 5 tasks
x 3 runs, 0.922 at 5 x 5, 0.915 at 10 x 3: below 0.95 by more than 3 SE) and 0.940-0.975 on normal ones (5 x 5: 0.94,
its worst draw 0.9125 below by 3 SE of a draw); Bonferroni's 0.915-0.980. 7 of the 72 rows miss, all of that design,
none at 10 runs. ``docs/calibration.md`` ("The mixed model where the agents' runs differ in spread").
"""

from __future__ import annotations

import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
MIXED = runpy.run_path(str(HERE / "coverage_mixed.py"))
CALIBRATE = runpy.run_path(str(HERE / "calibrate.py"))
PROCEDURE, LEVEL = MIXED["PROCEDURE"], MIXED["LEVEL"]
#: data sets per design draw: the table's, and --quick's
SIMULATIONS = (100, 10)
RATIO = 4.0
#: agents -> the patterns of run sds measured (the share of agents whose runs are RATIO times as spread)
PATTERNS = {2: ("half",), 4: ("half", "one")}
AGENTS, TASKS, RUNS = (2, 4), (5, 10), (3, 5, 10)
DISTRIBUTIONS = ("normal", "skewed")
DDF = ("satterthwaite",)
ADJUST = MIXED["ADJUST"]


def run_sds(agents, pattern="half"):
    """Each agent's run sd in noise units: ``"half"``, the first half 1 and the others ``RATIO``; ``"one"``, the last
    agent ``RATIO`` and the others 1."""
    wide = agents // 2 if pattern == "half" else agents - 1
    return np.where(np.arange(agents) < wide, 1.0, RATIO)


def configuration(agents, pattern="half"):
    from rlstats.calibration import RUN_SPREADS

    return f"{RUN_SPREADS}{'/'.join(f'{s:g}' for s in run_sds(agents, pattern))}: all_equal"


def simulate(distribution, sds, offset, scale, runs, rng):
    """One data set's scores in ``coverage_mixed.template``'s order (task, agent, run), every agent at location 0."""
    deviation = DESIGNS["deviations"](rng, distribution, (offset.size, sds.size, runs)) * sds[None, :, None]
    return DESIGNS["scores"](distribution, deviation, 0.0, offset[:, None, None], scale[:, None, None]).ravel()


def measure(agents, pattern, tasks, runs, distribution, n_sim, seed=36):
    """{(ddf, adjust): one boolean array per design draw, True where the family held (no pair declared)}."""
    design = MIXED["template"](agents, tasks, runs)
    sds = run_sds(agents, pattern)
    truth = np.zeros(agents * (agents - 1) // 2)
    held_by = {(ddf, adjust): [] for ddf in DDF for adjust in ADJUST}
    for draw in range(DESIGNS["DESIGN_DRAWS"]):
        offset, scale = DESIGNS["design_draw"](draw, tasks)
        rng = np.random.default_rng(np.random.SeedSequence([seed, draw, agents, tasks, runs,
                                                            DISTRIBUTIONS.index(distribution),
                                                            PATTERNS[agents].index(pattern)]))
        hits = {key: np.zeros(n_sim, dtype=bool) for key in held_by}
        for i in range(n_sim):
            y = simulate(distribution, sds, offset, scale, runs, rng)
            for ddf, (estimates, variances, df) in MIXED["pairs"](design, y, DDF).items():
                for adjust, ok in MIXED["held"](estimates, variances, df, truth, agents).items():
                    if (ddf, adjust) in hits:
                        hits[ddf, adjust][i] = ok
        for key, h in hits.items():
            held_by[key].append(h)
    return held_by


def grid(quick=False):
    """(agents, pattern, tasks, runs, distribution); --quick: 4 agents, one wide, on 5 tasks x 3 runs, skewed."""
    if quick:
        return [(4, "one", 5, 3, "skewed")]
    return DESIGNS["grid"]([(a, p) for a in AGENTS for p in PATTERNS[a]], TASKS, RUNS, DISTRIBUTIONS)


def rows_of(point, held_by):
    agents, pattern, tasks, runs, distribution = point
    return [{"procedure": PROCEDURE, "test": ddf, "interval": adjust, "agents": agents, "tasks": tasks, "runs": runs,
             "distribution": distribution, "configuration": configuration(agents, pattern), "level": LEVEL,
             **DESIGNS["pooled_row"](h, LEVEL)} for (ddf, adjust), h in held_by.items()]


def continued(rows):
    """Whether a point is continued (``coverage_mixed.py``'s rule): a row below the level, or a draw below it by
    ``coverage_mixed.CONTINUE_SE`` SE of a draw."""
    from rlstats.calibration import misses

    return any(row["coverage"] < LEVEL or misses({k: str(v) for k, v in row.items()}, LEVEL, MIXED["CONTINUE_SE"])
               for row in rows)


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point, continued to ``coverage_mixed.CONTINUED`` times its data sets (the same data sets,
    then more) where :func:`continued` (not with --quick)."""
    rows = rows_of(point, measure(*point, n_sim))
    if not quick and continued(rows):
        rows = rows_of(point, measure(*point, MIXED["CONTINUED"] * n_sim))
    return rows


def appended(row):
    """Whether a ``mixed.contrast`` row of the table (a dict of strings) is one this script writes."""
    from rlstats.calibration import RUN_SPREADS

    return str(row["configuration"]).startswith(RUN_SPREADS)


def main(argv):
    quick = "--quick" in argv
    rows = []
    for point in grid(quick):
        rows += table_rows(point, SIMULATIONS[quick], quick)
        for row in rows[-len(ADJUST):]:
            print(f"{point} {row['interval']}: {row['coverage']:.4f} (worst draw {row['coverage_min']:.3f}) "
                  f"of {row['n_sim']}", flush=True)
    CALIBRATE["write_rows"](rows, argv, PROCEDURE, appended)


if __name__ == "__main__":
    main(sys.argv[1:])
