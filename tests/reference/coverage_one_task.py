"""Audit s19: the bootstrap's default (studentised) interval on a single task, from 3 to 200 runs.

    PYTHONPATH=. python tests/reference/coverage_one_task.py OUT.jsonl [--datasets N] [--runs 20,30,...]
    PYTHONPATH=. python tests/reference/coverage_one_task.py --append-table rlstats/calibration.csv OUT.jsonl

(``--append-table`` replaces the rows of the points OUT.jsonl holds by design key, in place, and keeps the others:
:func:`append_table`.)

``rlstats.bootstrap`` withheld its default interval on one task whatever the runs, from issue 40's measurement at
3-20 runs, which the table did not hold (``coverage_small_runs.py`` skips the default at one task: withheld by
design). Here that interval is formed with the one-task rule lifted (:func:`lifted`: the package's own function,
only ``studentized_withheld`` reading the runs alone) on ``coverage_small_runs.py``'s data sets (its
``draw_design``: four agents, B and D ``SHIFT`` noise units above A and C, the grid's four distributions and four
design draws of the task's offset and scale, ``tests/reference/designs.py``) on seeds of their own (``SEED``), with
``DATA_SETS`` data sets per draw (480 intervals a row, the default rows' count; the table's rows were measured with
``--datasets 120``, 1,920 intervals a row, Monte Carlo SE 0.005: the first 30 data sets of each draw are the same). A default interval withheld by the
rule of runs at a cap (``saturated``: on one task of the capped runs, where a third to a half sit at the cap, the
median's nearly always) is not counted (``n_sim`` counts those given; :func:`main` prints how many): that rule has its
own note and way on, and is not the one measured here. Rows: the default interval of each
metric at every run count, and the percentile interval (from the same call's resamples) at more than 20 runs, the
counts the grid lacks; ``appended`` tells them apart for ``calibrate.py --only bootstrap.interval``, which keeps them.
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import runpy
import sys
import time
import warnings
from unittest import mock

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
SMALL = runpy.run_path(str(HERE / "coverage_small_runs.py"))
designs = SMALL["designs"]

import rlstats  # noqa: E402
from rlstats.methods.bootstrap import _small_runs as small_runs  # noqa: E402
from rlstats import calibration  # noqa: E402

RUNS = (3, 5, 10, 20, 30, 50, 100, 200)
#: the counts beyond the grid's, where the percentile interval's rows are written too
BEYOND_GRID = 20
DATA_SETS, N_RESAMPLES, SEED = 30, SMALL["N_RESAMPLES"], 1901
METRICS, LEVEL = SMALL["METRICS"], SMALL["LEVEL"]
#: {(distribution, runs, metric): default intervals withheld by the rule of runs at a cap}, printed by :func:`main`
TIED: dict = {}


@contextlib.contextmanager
def lifted():
    """The package's one-task rule off (``ONE_TASK_MIN_RUNS`` and the former defaults' ``FORMER_ONE_TASK_MIN_RUNS`` and
    ``UNWIDENED_ONE_TASK_MIN_RUNS`` at 0: runs per task alone withhold), while measuring."""
    counts = (small_runs.ONE_TASK_MIN_RUNS, small_runs.FORMER_ONE_TASK_MIN_RUNS, small_runs.UNWIDENED_ONE_TASK_MIN_RUNS)
    with contextlib.ExitStack() as stack:
        for table in counts:
            stack.enter_context(mock.patch.dict(table, dict.fromkeys(table, 0)))
        stack.enter_context(SMALL["median_t_interval"]())  # audit s26: the median's own t interval, not the mean's
        yield


def measure(distribution, runs, data_sets=DATA_SETS, draws=None):
    """{(interval, metric): per-draw lists of held (bool)} for one run count on one task."""
    draws = designs["DESIGN_DRAWS"] if draws is None else draws
    held = {}
    with lifted(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the raw-scale warning
        for draw in range(draws):
            for d, (data, truth) in enumerate(SMALL["draw_design"](distribution, 1, runs, draw, data_sets, SEED)):
                res = rlstats.bootstrap(data, "score ~ agent", metrics=METRICS, n_resamples=N_RESAMPLES, rng=d,
                                        progress=False)
                # the former default before the Welch floor (audit s20), its mean's and optimality gap's rows
                kinds = ("studentized", "studentized_no_welch") + (("percentile",) if runs > BEYOND_GRID else ())
                for interval in kinds:
                    bounds = SMALL["bounds_of"](res, interval)
                    for j, metric in enumerate(METRICS):
                        if interval == "studentized_no_welch" and metric not in small_runs.WELCH_FLOOR_METRICS:
                            continue  # the default's, bit for bit
                        true = np.array([truth[a][metric] for a in res.agents])
                        got = (bounds[:, j, 0] <= true) & (true <= bounds[:, j, 1])  # NaN (withheld): not held
                        if interval in small_runs.WIDENED_INTERVALS and res.saturated is not None:
                            # withheld by the rule of runs at a cap (its own note and way on, whatever the tasks):
                            # not counted, and counted apart (``TIED``)
                            got = got[~res.saturated[:, j]]
                            if interval == "studentized":
                                TIED[(distribution, runs, metric)] = TIED.get((distribution, runs, metric), 0) + int(
                                    res.saturated[:, j].sum())
                        held.setdefault((interval, metric), [[] for _ in range(draws)])[draw].extend(got.tolist())
    return held


def rows(distribution, runs, held):
    """The table's rows (dicts in its columns) of one run count."""
    return [{"procedure": SMALL["PROCEDURE"], "interval": interval, "metric": metric, "tasks": 1, "runs": runs,
             "distribution": distribution, "level": LEVEL, "n_resamples": N_RESAMPLES,
             **designs["pooled_row"](by_draw, LEVEL)} for (interval, metric), by_draw in sorted(held.items())
            if all(len(d) for d in by_draw)]  # a design draw with no interval given: no row (main prints why)


def appended(row):
    """Whether a ``bootstrap.interval`` row of the table (a dict of strings) is one this script wrote: the default's
    on one task (which the grid skips) and the former default's before the Welch floor, the percentile's on one task
    beyond the grid's run counts; not the gap's of agents below gamma (``coverage_bootstrap_gap.py``, audit s28)."""
    return str(row["tasks"]) == "1" and (row["interval"] in small_runs.WIDENED_INTERVALS
                                         or int(row["runs"]) > BEYOND_GRID) and (
        row.get("configuration", "") != calibration.GAP_BELOW_GAMMA)


def configuration(row):
    """``"withheld"`` for a default row where the package withholds the interval (measured with the rule lifted:
    ``rlstats.calibration.DEFAULTS`` does not count it as the default's, which gives nothing there), the median's
    ``coverage_small_runs.MEDIAN_T`` (its own t interval, which one task gives the mean's in place of since audit s26),
    else ``""``."""
    if SMALL["configuration"](row):
        return SMALL["configuration"](row)
    withheld = row["interval"] in small_runs.WIDENED_INTERVALS and small_runs.studentized_withheld(
        [int(row["runs"])], 1, [row["metric"]], row["interval"]).all()
    return "withheld" if withheld else ""


def _text(value):
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def append_table(records, table):
    """Write the rows of ``records`` (JSON lines of :func:`main`) into ``table`` by design key (interval, metric,
    tasks, runs, distribution): a row this script wrote before (:func:`appended`) with a fresh row's key is replaced
    in place, one of a point measured (distribution, runs) that the fresh rows lack is dropped, rows of points not
    measured are kept as they are (so ``--runs`` and one distribution's records re-measure those points alone; audit
    s35 former35b), and a fresh row with no row of its key goes after the procedure's other rows."""
    import pandas as pd

    calibrate = runpy.run_path(str(HERE / "calibrate.py"))
    old = pd.read_csv(table, dtype=str, keep_default_na=False)
    new = [{k: _text(v) for k, v in {**row, "configuration": configuration(row)}.items()} for path in records
           for line in pathlib.Path(path).read_text().splitlines() for row in json.loads(line)["rows"]]
    keys = ("interval", "metric", "tasks", "runs", "distribution")
    fresh = pd.DataFrame(new).reindex(columns=calibrate["COLUMNS"]).astype(object).fillna("")
    by_key = {tuple(row[k] for k in keys): i for i, row in fresh.iterrows()}
    measured = {(row["distribution"], row["runs"]) for row in new}
    mine = [i for i, r in old.iterrows() if r["procedure"] == SMALL["PROCEDURE"] and appended(r.to_dict())]
    replaced, dropped = set(), []
    for i in mine:
        key = tuple(old.loc[i, k] for k in keys)
        if key in by_key:
            old.loc[i] = fresh.loc[by_key[key], old.columns]
            replaced.add(key)
        elif (old.loc[i, "distribution"], old.loc[i, "runs"]) in measured:
            dropped.append(i)
    added = fresh[[tuple(row[k] for k in keys) not in replaced for _, row in fresh.iterrows()]]
    out = old.drop(index=dropped)
    if len(added):
        out = pd.concat([out, added], ignore_index=True).sort_values("procedure", kind="stable")
    out.to_csv(table, index=False)
    print(f"{len(replaced)} rows replaced, {len(dropped)} dropped, {len(added)} added", flush=True)


def main(argv):
    if argv[0] == "--append-table":
        append_table(argv[2:], argv[1])
        return
    out = pathlib.Path(argv[0])
    data_sets = int(argv[argv.index("--datasets") + 1]) if "--datasets" in argv else DATA_SETS
    runs_asked = [int(r) for r in argv[argv.index("--runs") + 1].split(",")] if "--runs" in argv else RUNS
    with out.open("a") as handle:
        for runs in runs_asked:
            for distribution in designs["DISTRIBUTIONS"]:
                start = time.time()
                point = rows(distribution, runs, measure(distribution, runs, data_sets))
                handle.write(json.dumps({"distribution": distribution, "runs": runs, "rows": point}) + "\n")
                handle.flush()
                tied = {m: TIED.get((distribution, runs, m), 0) for m in METRICS}
                print(distribution, runs, f"{time.time() - start:.0f} s", "withheld at a cap:", tied, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
