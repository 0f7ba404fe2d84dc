"""The false coverage-statement rate of task_table's intervals of the difference of means (audit s33, calib33): the
``metric`` "difference" rows of ``task_table.effect_size`` (against each task's best) and ``task_table.next_ranked``
(against the agent ranked just above), appended to ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/coverage_fcr_difference.py [--quick] [--points N] [--json PATH]
        [--append-table rlstats/calibration.csv]

Since audit s32 Welch's interval of the difference of means beside the A12 and Hedges' g intervals (``welch``,
``welch_next``; the table's ``diff_low`` and ``diff_high``) is at the per-pair level 1 - 2 (1 - 0.95) / k of a task of
k agents (``_kernels.fcr_level``): the printed k - 1 pairs are chosen by the data, and Benjamini and Yekutieli's
(2005) adjustment keeps the expected share of them that miss, the false coverage-statement rate (FCR), at most 0.05
-- not the chance that all hold. This script measures that share, the quantity FCR bounds, on the grid of
``coverage_effect_sizes.py`` and ``coverage_next_ranked.py`` (their frame, design draws, truths and
``intervals_held``): 2, 3 and 8 agents, 2, 3, 5, 10 and 20 runs per agent, the four score families (capped: ties at
the cap), and the agents' locations all equal (``all_equal``), one best with the others 0.5 to 1 noise units lower
(``one_best``) or spaced 0.5 apart (``spaced``). Both rows of a point read the same data sets and the same call of
:func:`rlstats.task_table` with its defaults (``effect_intervals="fcr"``; Welch's test, on which the intervals do not
depend).

A row's truth is the difference of the two agents' expected scores in the task's units (its scale times that of
their deviations, capped; ``coverage_effect_sizes.mean_difference``); an interval not formed counts as missing. Its
``coverage`` is 1 - FCR: the mean over the simulated tasks of the share of each task's k - 1 printed intervals that
hold (every task prints k - 1, so it is also the share of the whole table's, for a table of any number of tasks:
these rows speak for 1 to 26 tasks alike); ``se`` the Monte Carlo standard error of that mean over tasks
(``coverage_effect_sizes.fcr_se``; with 2 agents the binomial one), ``n_sim`` the intervals (k - 1 a task, as the
procedures' other rows count), ``coverage_min`` the worst of ``DESIGN_DRAWS`` design draws of ``SIMULATIONS``
tasks each (``CONTINUED`` times as many where a row is below 0.95). It prints beside each row the share of tasks
where some interval misses (1 - joint coverage), which FCR does not bound.
"""

from __future__ import annotations

import pathlib
import runpy
import sys
from types import SimpleNamespace

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
designs = SimpleNamespace(**runpy.run_path(str(HERE / "designs.py")))
effects = SimpleNamespace(**runpy.run_path(str(HERE / "coverage_effect_sizes.py")))
ranked = SimpleNamespace(**runpy.run_path(str(HERE / "coverage_next_ranked.py")))

PROCEDURES = (effects.PROCEDURE, ranked.PROCEDURE)
LEVEL, METRIC = 0.95, "difference"
#: runs: 2 too, as the effect sizes' grid (the fewest at which Welch's interval is printed)
AGENTS, RUNS, DISTRIBUTIONS = (2, 3, 8), (2,) + designs.RUNS, designs.DISTRIBUTIONS
CONFIGURATIONS = ("all_equal", "one_best", "spaced")
#: simulated tasks per design draw: the table's, and --quick's
SIMULATIONS = (100, 25)
#: a point with a row below the level (pooled), or a draw below it by ``CONTINUE_SE`` SE of a draw, is measured again
#: on ``CONTINUED`` times the tasks (as ``coverage_mixed.py``'s points are; not with --quick)
CONTINUED, CONTINUE_SE = 4, 2.0


def appended(row):
    """Whether a ``task_table.effect_size`` or ``task_table.next_ranked`` row (a dict of strings) is one this script
    writes."""
    return row["metric"] == METRIC


def true_locations(agents, configuration):
    """The agents' locations in noise units (``one_best`` the effect sizes' grid's, ``spaced`` the next-ranked's)."""
    if configuration == "spaced":
        return ranked.true_locations(agents, configuration)
    return effects.true_locations(agents, configuration)


def held_by_draw(agents, runs, distribution, configuration, n_sim, seed=0):
    """{procedure: one boolean array per design draw, an interval's holding, task by task}."""
    locations = true_locations(agents, configuration)
    held = {procedure: [] for procedure in PROCEDURES}
    for draw in range(designs.DESIGN_DRAWS):
        key = [33, seed, agents, runs, DISTRIBUTIONS.index(distribution), CONFIGURATIONS.index(configuration), draw]
        data = effects.simulate(locations, runs, n_sim, distribution, draw, np.random.default_rng(key))
        scale = designs.design_draw(draw, n_sim)[1]  # the tasks' scales, t0000, t0001, ... (sorted as named)
        res = effects.task_table(data, "fcr")
        assert list(res.tasks) == sorted(res.tasks), "the scales are read in the tasks' sorted order"
        held[PROCEDURES[0]].append(effects.intervals_held(data, locations, distribution, "fcr", scale=scale,
                                                          res=res)[METRIC][0])
        held[PROCEDURES[1]].append(ranked.intervals_held(data, locations, distribution, scale=scale,
                                                         res=res)[METRIC])
    return held


def rows_of(point, held):
    """The two table rows of a point from :func:`held_by_draw`."""
    agents, runs, distribution, configuration = point
    rows = []
    for procedure, by_draw in held.items():
        row = {"procedure": procedure, "interval": "fcr", "metric": METRIC, "agents": agents, "runs": runs,
               "distribution": distribution, "configuration": configuration, "level": LEVEL,
               **designs.pooled_row(by_draw, LEVEL)}
        row["se"] = effects.fcr_se(by_draw, agents - 1)
        # not a column: the share of tasks where some interval misses, which the FCR does not bound
        row["_some_miss"] = float(np.mean(np.concatenate([~np.asarray(h).reshape(-1, agents - 1).all(axis=1)
                                                          for h in by_draw])))
        rows.append(row)
    return rows


def grid(quick=False):
    """(agents, runs, distribution, configuration); --quick: 3 and 8 agents at 3 runs, skewed and capped."""
    if quick:
        return designs.grid((3, 8), (3,), ("skewed", "capped"), ("all_equal",))
    return designs.grid(AGENTS, RUNS, DISTRIBUTIONS, CONFIGURATIONS)


def main(argv):
    import json

    from rlstats import calibration

    quick = "--quick" in argv
    points = grid(quick)
    if "--points" in argv:
        points = points[:int(argv[argv.index("--points") + 1])]
    path = pathlib.Path(argv[argv.index("--json") + 1]) if "--json" in argv else None
    rows = json.loads(path.read_text()) if path and path.exists() else []  # a re-run resumes after the points done
    done = {tuple(row[c] for c in ("agents", "runs", "distribution", "configuration")) for row in rows}
    for point in points:
        if point in done:
            continue
        measured = rows_of(point, held_by_draw(*point, SIMULATIONS[quick]))
        if not quick and any(row["coverage"] < LEVEL or calibration.misses({k: str(v) for k, v in row.items()},
                                                                           LEVEL, CONTINUE_SE) for row in measured):
            measured = rows_of(point, held_by_draw(*point, CONTINUED * SIMULATIONS[quick]))
        for row in measured:
            rows.append(row)
            print(row["procedure"], *point, row["n_sim"], f"{row['coverage']:.4f} se {row['se']:.4f}",
                  f"(worst draw {row['coverage_min']:.3f}) some miss {row['_some_miss']:.3f}",
                  "MISSES" if calibration.misses({k: str(v) for k, v in row.items()}, LEVEL) else "", flush=True)
        if path:
            path.write_text(json.dumps(rows))
    order = {point: k for k, point in enumerate(grid(quick))}  # rows in grid order, whatever order they were run in
    rows.sort(key=lambda row: (order.get(tuple(row[c] for c in ("agents", "runs", "distribution", "configuration")),
                                         len(order)), PROCEDURES.index(row["procedure"])))
    if "--append-table" in argv:
        table = argv[argv.index("--append-table") + 1]
        for procedure in PROCEDURES:
            runpy.run_path(str(HERE / "calibrate.py"))["append_rows"](
                [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows
                 if row["procedure"] == procedure], table, procedure, appended)
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
