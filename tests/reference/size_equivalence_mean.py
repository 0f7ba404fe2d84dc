"""Size at the margin of the equivalence test's aggregate of the mean (``aggregate="mean"``): ``equivalence.size``
rows with ``interval`` ``bootstrap_t`` and ``metric`` ``mean``, appended to ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/size_equivalence_mean.py [--datasets N] [--seed S] [--append-table]

``size_equivalence.py``'s grid measures the aggregate of the IQM alone. Audit s20 (welch20) measured the mean's on
the designs where the bootstrap's own bootstrap-t interval of the mean had undercovered (heavy-tailed runs, and
skewed ones), 5 tasks x 10 and 20 runs and 26 x 20, at both margins: the test as :func:`rlstats.equivalence` forms
it (``size_equivalence.held_by_draw``, its data sets, its ``N_RESAMPLES``), ``--datasets`` per design draw (480 by
default: 1,920 tests a row), on seed ``--seed`` (20: the data sets of the table's rows). It prints the rows; with
``--append-table`` it also writes them into the package table, replacing the ones it wrote before (``appended``,
which ``calibrate.py`` keeps when it re-measures ``equivalence.size``). About 13 s (5 tasks) to 25 s (26 tasks) a
point and configuration at one job.
"""

from __future__ import annotations

import pathlib
import runpy
import sys
import warnings

HERE = pathlib.Path(__file__).resolve().parent
SIZE = runpy.run_path(str(HERE / "size_equivalence.py"))
POINTS = [("bootstrap_t", "mean", tasks, runs, distribution)
          for distribution in ("heavy_tailed", "skewed") for tasks, runs in ((5, 10), (5, 20), (26, 20))]
DATA_SETS, SEED = 480, 20


def appended(row):
    """Whether an ``equivalence.size`` row of the table (a dict of strings) is one this script wrote."""
    return row["interval"] == "bootstrap_t" and row["metric"] == "mean"


def measure(data_sets=DATA_SETS, seed=SEED):
    """The rows of every point and configuration (three per point: TOST at +margin and -margin, non-inferiority)."""
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # raw scales of the design draws: on purpose
        for point in POINTS:
            for configuration in SIZE["CONFIGURATIONS"]:
                held = SIZE["held_by_draw"](*point, configuration, data_sets, seed=seed)
                rows += [{"procedure": SIZE["PROCEDURE"], "level": SIZE["LEVEL"], **row}
                         for row in SIZE["rows_of"]((*point, configuration), held)]
    return rows


def append_table(rows, table):
    """Write ``rows`` into ``table`` in place of the rows this script wrote before, after the procedure's others."""
    import pandas as pd

    columns = runpy.run_path(str(HERE / "calibrate.py"))["COLUMNS"]
    old = pd.read_csv(table, dtype=str, keep_default_na=False)
    mine = [r["procedure"] == SIZE["PROCEDURE"] and appended(r) for r in old.to_dict("records")]
    fresh = pd.DataFrame([{k: f"{v:.6g}" if isinstance(v, float) else str(v) for k, v in row.items()}
                          for row in rows]).reindex(columns=columns).astype(object).fillna("")
    pd.concat([old[[not m for m in mine]], fresh], ignore_index=True).sort_values(
        "procedure", kind="stable").to_csv(table, index=False)


def main(argv):
    from rlstats.calibration import misses

    data_sets = int(argv[argv.index("--datasets") + 1]) if "--datasets" in argv else DATA_SETS
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else SEED
    rows = measure(data_sets, seed)
    for row in rows:
        print(row["test"], row["tasks"], row["runs"], row["distribution"], row["configuration"], row["n_sim"],
              f"{row['coverage']:.4f} (worst draw {row['coverage_min']:.3f})",
              "MISSES" if misses({k: str(v) for k, v in row.items()}, SIZE["LEVEL"]) else "", flush=True)
    if "--append-table" in argv:
        append_table(rows, runpy.run_path(str(HERE / "calibrate.py"))["OUT"])


if __name__ == "__main__":
    main(sys.argv[1:])
