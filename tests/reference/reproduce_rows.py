"""Whether the calibration table's rows are still what the code measures: grid points re-run at the table's n_sim.

    PYTHONPATH=. python tests/reference/reproduce_rows.py PROCEDURE INDEX[,INDEX...] [--write]

Each grid point of a procedure (``calibrate.py``'s ``MODULES``) draws from its own seeds, so re-running it with the
code of today gives its table rows digit for digit unless something it calls changed since they were measured:
a default, a random stream, or the numerical environment. Each row printed names its design, the coverage measured
now and the one stored, and ``same``. A difference is not yet a stale default: a commit that only re-keys random
streams (e.g. 23b72eb, the curves' pair permutations) moves a row by Monte Carlo noise, and only rows whose
default's behaviour changed need measuring again (session 19's staleness check, which used this script).
``--write`` replaces those grid points' rows of ``rlstats/calibration.csv`` by the rows measured now, in place, and
leaves every other row as it is (audit s21: the points a changed continuation rule of ``coverage_mixed.py`` and
``coverage_mixed_means.py`` re-measures, without the hour of re-running the points it leaves alone, whose seeds and
data sets are unchanged).
"""

from __future__ import annotations

import pathlib
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent


def reproduced(procedure, indices):
    """One dict per table row of the grid points ``indices`` of ``procedure``: its design columns, ``now`` and
    ``stored`` (n_sim, coverage, coverage_min as the table writes them; ``stored`` None where the table has no such
    row) and ``same``."""
    from rlstats import calibration

    calibrate = runpy.run_path(str(HERE / "calibrate.py"))
    module = calibrate["load"](procedure)
    grid, n_sim = module["grid"](False), module["SIMULATIONS"][0]
    stored = calibration.rows(procedure)
    out = []
    for index in indices:
        for row in calibrate["measure"](procedure, grid[index], n_sim, False):
            design = {c: str(row.get(c, "")) for c in calibration.DESIGN_COLUMNS}
            match = [s for s in stored if all(s[c] == v for c, v in design.items())]
            now = {c: str(row.get(c, "")) for c in ("n_sim", "coverage", "coverage_min")}
            before = {c: match[0][c] for c in now} if len(match) == 1 else None
            out.append({"design": design, "now": now, "stored": before, "same": now == before, "row": row})
    return out


def write(procedure, found):
    """Replace the table rows of ``found`` (:func:`reproduced`'s dicts) by the rows measured now, in place."""
    import pandas as pd

    from rlstats import calibration

    calibrate = runpy.run_path(str(HERE / "calibrate.py"))
    table = pd.read_csv(calibrate["OUT"], dtype=str, keep_default_na=False)
    for item in found:
        if item["stored"] is None:
            raise ValueError(f"no row of {procedure} at {item['design']} to replace")
        where = (table["procedure"] == procedure).to_numpy(copy=True)
        for column, value in item["design"].items():
            where &= (table[column] == value).to_numpy()
        for column in calibrate["COLUMNS"]:
            table.loc[where, column] = str(item["row"].get(column, ""))
    table.to_csv(calibrate["OUT"], index=False)
    assert set(calibration.DESIGN_COLUMNS) <= set(table.columns)


if __name__ == "__main__":
    rows = reproduced(sys.argv[1], [int(i) for i in sys.argv[2].split(",")])
    for found in rows:
        print({key: value for key, value in found.items() if key != "row"})
    if "--write" in sys.argv[3:]:
        write(sys.argv[1], rows)
