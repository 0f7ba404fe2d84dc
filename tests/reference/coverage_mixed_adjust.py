"""Simultaneous coverage of the mixed model's Sidak and Scheffe intervals of the pairwise contrasts (audit s33,
calib33): ``mixed.contrast`` rows of ``interval`` "sidak" and "scheffe", appended to ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/coverage_mixed_adjust.py [--quick] [--points N] [--json PATH]
        [--append-table rlstats/calibration.csv]

Since audit s32 (rhabit32) ``rlstats.mixed(adjust=)`` takes emmeans' "sidak" (each pair's interval at 0.95^(1/m), m
the pairs) and "scheffe" (half-widths sqrt(r F_0.95(r, df)) standard errors, r = k - 1 the rank of the pairs'
contrasts); the table measured only Tukey's and Bonferroni's families. This script measures the two as
``coverage_mixed.py`` measures those: the same designs, seeds, data sets, REML fits and df (Satterthwaite's and
Kenward-Roger's, ``test``), the truth the difference of the agents' expected scores averaged over the draw's tasks,
and a family holds when every pair's |estimate - truth| / SE is within its half-width multiplier
(``coverage_mixed.held``, checked against the intervals :func:`rlstats.mixed` prints in
``tests/test_audit_s33_calib33.py``). A point whose row is below 0.95, or a draw 2 SE below, is continued to 4 times
its data sets, by these rows alone (``coverage_mixed.table_rows`` with ``adjusts=OTHER_ADJUST``).

Grid: ``coverage_mixed``'s designs of 3 and 8 agents (3 and 10 tasks; 3 tasks; 8 agents on 26 tasks at 3 runs, the
largest design, whose 400 fits of 26 x 8 cells a point the CPU budget of audit s33 allowed at 3 runs only) at 3, 5
and 10 runs per cell, the four score families and both configurations. With 2 agents both families are the one t
interval (m = 1, r = 1: sqrt(F_0.95(1, df)) = t_0.975(df)), Tukey's, whose rows stand for them.
"""

from __future__ import annotations

import pathlib
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
MIXED = runpy.run_path(str(HERE / "coverage_mixed.py"))
PROCEDURE, LEVEL = MIXED["PROCEDURE"], MIXED["LEVEL"]
ADJUST = MIXED["OTHER_ADJUST"]
#: (agents, tasks, runs): the designs of coverage_mixed's grid with 3 or more agents, at 3, 5 and 10 runs (8 x 26 at 3)
DESIGNS_AT = tuple((a, t, r) for a, t in MIXED["DESIGNS_AT"] if a >= 3 for r in (3, 5, 10)
                   if (a, t) != (8, 26) or r == 3)


def appended(row):
    """Whether a ``mixed.contrast`` row of the table (a dict of strings) is one this script writes (not the
    unbalanced designs' of ``coverage_mixed_unbalanced.py``, audit s34)."""
    from rlstats.calibration import UNBALANCED

    return row["interval"] in ADJUST and not str(row["configuration"]).startswith(UNBALANCED)


def grid(quick=False):
    """(agents, tasks, runs, distribution, configuration) points; --quick: 3 agents on 3 tasks at 3 runs."""
    if quick:
        return [(3, 3, 3, d, "spread 0 to 1") for d in ("normal", "capped")]
    return [(*design, d, c) for design in DESIGNS_AT for d in MIXED["DISTRIBUTIONS"] for c in MIXED["CONFIGURATIONS"]]


def table_rows(point, quick=False):
    """The rows of one grid point: ``coverage_mixed.table_rows`` of the Sidak and Scheffe families."""
    n_sim = MIXED["SIMULATIONS"][quick]
    return [{"procedure": PROCEDURE, "level": LEVEL, **row}
            for row in MIXED["table_rows"](point, n_sim, quick, adjusts=ADJUST)]


def main(argv):
    import json

    from rlstats import calibration

    points = grid("--quick" in argv)
    if "--points" in argv:
        points = points[:int(argv[argv.index("--points") + 1])]
    path = pathlib.Path(argv[argv.index("--json") + 1]) if "--json" in argv else None
    rows = json.loads(path.read_text()) if path and path.exists() else []  # a re-run resumes after the points done
    done = {tuple(row[c] for c in ("agents", "tasks", "runs", "distribution", "configuration")) for row in rows}
    for point in points:
        if point in done:
            continue
        for row in table_rows(point, "--quick" in argv):
            rows.append(row)
            print(*point, row["test"], row["interval"], row["n_sim"], f"{row['coverage']:.4f}",
                  f"(worst draw {row['coverage_min']:.3f})",
                  "MISSES" if calibration.misses({k: str(v) for k, v in row.items()}, LEVEL) else "", flush=True)
        if path:
            path.write_text(json.dumps(rows))
    if "--append-table" in argv:
        runpy.run_path(str(HERE / "calibrate.py"))["append_rows"](rows, argv[argv.index("--append-table") + 1],
                                                                  PROCEDURE, appended)
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
