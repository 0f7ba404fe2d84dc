"""The measured level of every default claim of rlstats: the source of the package table ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py [--jobs 2] [--quick] [--only PROCEDURE,...] [--out PATH]
        [--backend loky|dask] [--scheduler ADDRESS] [--no-progress] [--points N] [--replace PATTERN]

Each procedure is measured by a module beside this script (``MODULES``), which gives its grid of designs
(``grid(quick)``), the simulations per grid point (``SIMULATIONS``: full, quick), the nominal level (``LEVEL``) and
the table rows of one grid point (``table_rows(point, n_sim, quick)``). This script runs the grid points of the
procedures asked for in parallel, replaces those procedures' rows in the table and keeps the others, so ``--only``
re-measures one procedure without re-running the rest; rows of a procedure that another script appended
(``APPENDED``: the ``curves.band`` rows at 8 agents of ``coverage_curves_fresh.py --append-table``) are kept, after the
procedure's re-measured rows, byte for byte. The columns and the convention (``coverage`` is the share
of simulations in which the claim held; for a test, the share that did not reject under the null) are described
in ``rlstats/calibration.py``. ``--quick`` runs a reduced grid with fewer simulations and, unless ``--out`` is
given, writes ``calibration-quick.csv`` in the working directory rather than the package table; so does
``--points N`` (the first N grid points of each procedure: a trial of the runner, e.g. on a new cluster).
``--replace PATTERN`` measures only the grid points matching it (``"*:2:*"``: fields joined by ``:``, ``*`` any,
``|`` or) and writes their rows in place, keeping every other row (:func:`replace_points`; the module's
``point_of(row)`` gives a row's grid point; with ``--simulations N``, N data sets a point, written to
``calibration-quick.csv``, a copy of the package table, unless ``--out`` is given: a reduced reproduction).

Where the grid points run: ``--backend loky`` (the default) on ``--jobs`` worker processes of this machine;
``--backend dask`` on Dask distributed (``rlstats.engines``, the engine ``power(backend="dask")`` uses), on the scheduler at ``--scheduler ADDRESS``
(``tcp://host:8786``; its workers need rlstats and this checkout's ``tests/reference`` at the same path) or,
without it, on a local cluster of ``--jobs`` worker processes. A grid point draws from its own seeds, whatever
worker runs it, and rows are written in grid order, so the table is the same byte for byte whatever the backend
and the number of workers (``tests/test_calibration.py`` checks it). A progress bar over grid points goes to
stderr; ``--no-progress`` turns it off (logs, batch jobs).
"""

from __future__ import annotations

import argparse
import contextlib
import pathlib
import runpy
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parents[1] / "rlstats" / "calibration.csv"
MODULES = {"task_table.possibly_best": "coverage_possibly_best", "curves.band": "coverage_curves_bands",
           "skillings_mack.size": "size_rank_test", "task_table.effect_size": "coverage_effect_sizes",
           "bootstrap.interval": "coverage_small_runs", "percentiles.interval": "coverage_percentiles",
           "adastop.fwe": "size_adastop",
           "adastop.fwe_means": "size_adastop_means",  # audit s21: equal means, different shapes
           "adastop.fwe_spread": "size_adastop_spread",  # audit s23: identical pairs beside agents of other spread
           "bootstrap.profile": "coverage_profiles",
           "bootstrap.profile_tasks": "coverage_profiles_tasks",  # audit s10: kind="tasks", its own rows
           "selection.size": "size_selection",
           "tuning.best_interval": "coverage_tuning", "tuning.expected_max_band": "coverage_tuning_expected_max",
           "tuning.complete_interval": "coverage_tuning_complete",
           "mixed.contrast": "coverage_mixed", "mixed.means": "coverage_mixed_means",
           # audit s34 mixbal34: the omnibus F's level on unbalanced designs (its contrasts' rows appended below)
           "mixed.f_size": "coverage_mixed_unbalanced",
           "equivalence.size": "size_equivalence",  # issue 41 item 2
           # audit s36 calib36: the runs wrongly ruling out the unlike spreads of equivalence()'s note (Bonett's interval)
           "equivalence.spread_ruled_out": "spread_ruled_out",
           # issue 41 item 4: the next-ranked effect-size intervals and Conover's post hoc
           "task_table.next_ranked": "coverage_next_ranked", "skillings_mack.conover_fwer": "conover_fwer",
           # the default post hoc's family-wise error (Tukey on balanced designs, Holm with exact pair p-values else)
           "skillings_mack.pairs_fwer": "pairs_fwer",
           "power.bootstrap": "power_bootstrap",  # audit s11: what power("bootstrap") plans against bootstrap()
           "bayes.decision": "bayes_decisions",  # audit s21: bayes()'s decisions at 0.95 (false equivalence, difference)
           "bootstrap.interval_tasks": "coverage_tasks_resampled",  # audit s28: task_bootstrap=True, tasks drawn
           # audit s29 profile29: performance_profile(task_bootstrap=True)'s bands against a population of tasks
           "bootstrap.profile_population": "coverage_profile_tasks_resampled"}
#: rows that another script beside this one appends to a procedure's rows (not in the procedure's grid): procedure ->
#: that script, whose ``appended(row)`` says whether a table row (a dict of strings) is one of its own; ``merged``
#: keeps them when the procedure is re-measured (audit s13: ``--only curves.band`` dropped the 64 fresh rows)
APPENDED = {"curves.band": ("coverage_curves_fresh",  # audit s12: 8 agents
                            "coverage_curves_gap",  # audit s28: the gap's bands of agents below gamma
                            "coverage_curves_early",  # audit s28 early28: runs that end early or start late
                            "coverage_far_apart",  # audit s34 iqmfar34: 3 tasks far apart
                            # audit s35 apart35: 3 tasks that overlap, their runs apart by chance
                            "coverage_apart_by_chance"),
            "bootstrap.interval": ("coverage_one_task",  # audit s19: the default on one task, 3-200 runs
                                   "coverage_bootstrap_gap",  # audit s28: the gap's default of agents below gamma
                                   "coverage_far_apart",  # audit s34: the default on 3 tasks far apart
                                   # audit s35 farapart35: on 3 tasks that overlap, their runs apart by chance
                                   "coverage_apart_by_chance"),
            # audit s20: the aggregate of the mean; audit s23: Welch's t with equal runs but unlike spreads; audit s32:
            # the across-tasks and aggregate tests of pairs that did not share every task (incomplete designs)
            "equivalence.size": ("size_equivalence_mean", "size_equivalence_spread", "size_equivalence_incomplete"),
            # audit s22: the default band and tuned interval on real sweeps at 3-10 seeds (distribution real_dierkes2024)
            "tuning.expected_max_band": "coverage_tuning_real", "tuning.best_interval": "coverage_tuning_real",
            # audit s33 calib33: mixed()'s Sidak and Scheffe families (interval "sidak", "scheffe"), and the false
            # coverage-statement rate of task_table's intervals of the difference of means (metric "difference")
            # audit s34 mixbal34: the families on unbalanced designs (configuration "unbalanced ...")
            # audit s36 calib36: agents whose runs differ in spread (configuration "run sd by agent ...")
            "mixed.contrast": ("coverage_mixed_adjust", "coverage_mixed_unbalanced", "coverage_mixed_spreads"),
            "task_table.effect_size": "coverage_fcr_difference",
            "task_table.next_ranked": "coverage_fcr_difference"}
COLUMNS = ["procedure", "test", "statistic", "band", "interval", "metric", "agents", "tasks", "runs", "distribution",
           "configuration", "level", "n_sim", "n_resamples", "coverage", "se", "set_size", "design_draws", "coverage_min"]


def load(procedure):
    """The namespace of the module that measures ``procedure`` (run from its path, so joblib ships it by value)."""
    return runpy.run_path(str(HERE / f"{MODULES[procedure]}.py"))


def measure(procedure, point, n_sim, quick):
    """The table rows of one grid point, with their procedure and level (numbers to 6 significant digits).

    The module is loaded here, in the worker, rather than shipped to it: its namespace holds modules (the lazy
    ``rlstats`` package among them) that cannot be pickled.
    """
    module = load(procedure)
    return [{"procedure": procedure, "level": module["LEVEL"],
             **{key: f"{value:.6g}" if isinstance(value, float) else value for key, value in row.items()}}
            for row in module["table_rows"](point, n_sim, quick)]


def merged(table, rows, procedures):
    """``table`` with the rows of ``procedures`` replaced by ``rows``, in the table's column order; the rows of those
    procedures that another script appended (``APPENDED``) are kept as they were, after the procedure's new rows."""
    import pandas as pd

    replaced = table["procedure"].isin(procedures) if len(table) else pd.Series(False, index=table.index)
    appended = replaced & _appended(table, procedures)
    fresh = pd.DataFrame(rows).reindex(columns=COLUMNS)
    claimed = _appended(fresh.astype(str), procedures) if len(fresh) else []
    if any(claimed):
        raise ValueError(f"{int(sum(claimed))} measured rows match the rows another script appends (APPENDED); "
                         "its appended(row) must tell them apart, or the table would hold both")
    parts = [table[~replaced], fresh, table[appended]]
    out = pd.concat([part.astype(object) for part in parts], ignore_index=True).reindex(columns=COLUMNS)
    return out.sort_values("procedure", kind="stable")


def append_rows(rows, table, procedure, appended):
    """Replace the rows of ``procedure`` in ``table`` (the path of ``calibration.csv``) that a script of ``APPENDED``
    wrote (its ``appended(row)``) with ``rows``, after the procedure's last other row (the table is in procedure
    order; where it has none, before the first procedure named after it), the numbers to 6 significant digits as
    :func:`measure` writes them; other rows are kept byte for byte. The
    one writer of the scripts whose ``--append-table`` rewrites their rows in place (``coverage_bootstrap_gap.py``,
    ``coverage_curves_gap.py``, ``coverage_curves_early.py``)."""
    import csv

    with open(table, newline="") as handle:
        reader = csv.DictReader(handle)
        columns, kept = reader.fieldnames, [r for r in reader if not (r["procedure"] == procedure and appended(r))]
    text = [{c: (f"{v:.6g}" if isinstance(v, float) else str(v)) for c, v in row.items()} for row in rows]
    # a procedure with no rows yet (audit s34: mixed.f_size) goes before the first procedure named after it
    at = max((i + 1 for i, r in enumerate(kept) if r["procedure"] == procedure),
             default=next((i for i, r in enumerate(kept) if r["procedure"] > procedure), len(kept)))
    with open(table, "w", newline="") as handle:
        writer = csv.DictWriter(handle, columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(kept[:at] + [{c: r.get(c, "") for c in columns} for r in text] + kept[at:])


def write_rows(rows, argv, procedure, appended):
    """The end of a script that appends its own rows of ``procedure`` (:func:`append_rows`): ``--json PATH`` in
    ``argv`` writes ``rows`` there as JSON, ``--append-table TABLE`` replaces the script's rows of the table with them."""
    import json

    if "--json" in argv:
        pathlib.Path(argv[argv.index("--json") + 1]).write_text(json.dumps(rows))
    if "--append-table" in argv:
        append_rows(rows, argv[argv.index("--append-table") + 1], procedure, appended)


def appended_scripts(procedure):
    """The scripts of ``APPENDED`` that append rows to ``procedure`` (one, or a tuple of them), as a tuple."""
    scripts = APPENDED.get(procedure, ())
    return (scripts,) if isinstance(scripts, str) else tuple(scripts)


def _appended(table, procedures):
    """(rows,) bool: whether each row of ``table`` (strings) is one that a script of ``APPENDED`` wrote for one of
    ``procedures``."""
    import numpy as np

    out = np.zeros(len(table), dtype=bool)
    for procedure in procedures:
        if procedure in APPENDED and len(table):
            # only the procedure's rows are asked (all 14,000 rows as dicts, for each script, took a third of a second)
            at = np.flatnonzero((table["procedure"] == procedure).to_numpy(dtype=bool, na_value=False))
            rows = table.iloc[at].to_dict("records")
            for script in appended_scripts(procedure):
                own = runpy.run_path(str(HERE / f"{script}.py"))["appended"]
                out[at] |= np.array([bool(own(row)) for row in rows], dtype=bool)
    return out


def shortfalls(table):
    """The rows below their level by more than 3 binomial SE at the level, pooled or in a design draw."""
    from rlstats.calibration import misses

    if not len(table):
        return table
    return table[[misses({k: str(v) for k, v in row.items()}, float(row["level"]))
                  for row in table.to_dict("records")]]


def summary(table):
    """Lines: per procedure, its rows, how many miss the level by more than 3 SE, and the lowest coverage."""
    lines = []
    short = shortfalls(table)
    for procedure, rows in table.groupby("procedure", sort=True):
        lowest = rows.loc[rows["coverage"].astype(float).idxmin()]
        design = ", ".join(f"{c} {lowest[c]}" for c in COLUMNS[1:11] if str(lowest[c]) not in ("", "nan"))
        lines.append(f"{procedure}: {len(rows)} rows, {int((short['procedure'] == procedure).sum())} below their "
                     f"level by more than 3 SE; lowest coverage {float(lowest['coverage']):.3f} at {design}")
    return lines


def measure_job(job):
    """``measure(*job)``: one grid point, the unit of work sent to a worker."""
    return measure(*job)


@contextlib.contextmanager
def workers(backend, jobs, scheduler=None):
    """The engine (``rlstats.engines``, the one shared with ``power``, ``bootstrap`` and ``tuning``) to run the grid
    points on: ``jobs`` of loky's processes, or a Dask client (on ``scheduler``, or on a local cluster of ``jobs``
    worker processes that is shut down on the way out)."""
    from rlstats.engines import engine

    if backend == "loky":
        yield engine(jobs, "loky")
        return
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler:
            client = stack.enter_context(Client(scheduler))
        else:
            cluster = stack.enter_context(LocalCluster(n_workers=jobs, threads_per_worker=1,
                                                      dashboard_address=None))
            client = stack.enter_context(Client(cluster))
        client.wait_for_workers(1, timeout=60)
        yield engine(backend="dask", client=client)  # every grid point a task; the scheduler places them


def main(argv=None):
    import pandas as pd
    from tqdm.auto import tqdm

    from rlstats.engines import map_ordered

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1,
                        help="worker processes (loky, or the local Dask cluster's workers)")
    parser.add_argument("--quick", action="store_true", help="reduced grid, fewer simulations")
    parser.add_argument("--only", default=",".join(MODULES), help="comma-separated procedures")
    parser.add_argument("--simulations", type=int, help="simulations per grid point (default: the module's)")
    parser.add_argument("--points", type=int, help="only the first N grid points of each procedure (a trial run)")
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--backend", choices=("loky", "dask"), default="loky",
                        help="loky: processes of this machine; dask: Dask distributed (needs dask[distributed])")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="with --backend dask, the scheduler to use (default: a local cluster of --jobs workers)")
    parser.add_argument("--replace", metavar="PATTERN",
                        help="measure only the grid points matching PATTERN (fields joined by ':', '*' any, '|' or) "
                             "and replace their rows in place, one point after another (replace_points)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                        help="a progress bar over grid points on stderr")
    args = parser.parse_args(argv)
    procedures = args.only.split(",")
    unknown = [p for p in procedures if p not in MODULES]
    if unknown:
        parser.error(f"unknown procedure {', '.join(unknown)}; known: {', '.join(MODULES)}")
    if args.scheduler and args.backend != "dask":
        parser.error("--scheduler needs --backend dask")
    if args.jobs < 1 or (args.points is not None and args.points < 1):
        parser.error("--jobs and --points must be at least 1")
    if args.backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            parser.error("--backend dask needs dask.distributed: pip install 'dask[distributed]'")
    if args.replace:
        chosen = {procedure: matching(load(procedure)["grid"](False), args.replace) for procedure in procedures}
        if not any(chosen.values()):  # review24b: a pattern of another length, or a typo, did nothing, silently
            parser.error(f"--replace {args.replace!r} matches no grid point of " + ", ".join(
                f"{procedure} (its points have {len(load(procedure)['grid'](False)[0])} fields, e.g. "
                f"{':'.join(map(str, load(procedure)['grid'](False)[0]))})" for procedure in procedures))
        out = args.out
        if args.simulations and out is None:  # curves27: a reduced re-measurement never overwrites the package table
            out = pathlib.Path("calibration-quick.csv")
            if not out.exists():
                out.write_bytes(OUT.read_bytes())
        for procedure, points in chosen.items():
            replace_points(procedure, points, out, n_sim=args.simulations)
        return
    partial = args.quick or args.points is not None
    out = args.out or (pathlib.Path("calibration-quick.csv") if partial else OUT)
    jobs = []
    for procedure in procedures:
        module = load(procedure)
        n_sim = args.simulations or module["SIMULATIONS"][args.quick]
        jobs += [(procedure, point, n_sim, args.quick) for point in module["grid"](args.quick)[:args.points]]
    start = time.time()
    with workers(args.backend, args.jobs, args.scheduler) as where:
        results = map_ordered(measure_job, jobs, where, local="joblib")
        rows = [row for result in tqdm(results, total=len(jobs), desc="grid points", disable=not args.progress)
                for row in result]
    table = pd.read_csv(out, dtype=str, keep_default_na=False) if out.exists() else pd.DataFrame(columns=COLUMNS)
    table = merged(table, rows, procedures)
    table.to_csv(out, index=False)
    fresh = table[table["procedure"].isin(procedures)]
    print(f"# {len(jobs)} grid points in {time.time() - start:.0f} s on {args.backend}; wrote {out}")
    print("\n".join(summary(fresh)))


def matching(points, pattern):
    """The grid ``points`` (tuples) matching ``pattern``, a point's fields joined by ``:`` with ``*`` for any (the
    fields compared as text): ``"*:2:*"`` the bootstrap's points of 2 tasks, ``"signed_rank:*:3|5|10:*"`` (``|``:
    any of) the signed-rank model's at 3, 5 and 10 runs."""
    fields = pattern.split(":")
    return [point for point in points if len(point) == len(fields)
            and all(f == "*" or str(v) in f.split("|") for v, f in zip(point, fields))]


def replace_points(procedure, points, path=None, n_sim=None):
    """Measure ``points`` of ``procedure``'s grid (as ``--only procedure`` does: the module's simulations and seeds)
    and write their rows into the table at ``path`` (the package table) in place of the rows it has at those points,
    else before the rows of the next grid point; every other row is kept where it is, byte for byte (``--replace
    PATTERN``, :func:`matching`; audit s24: the bootstrap's 2-task points, the bayes.decision default's points
    re-measured on more data sets). The module's ``point_of(row)`` gives a table row's grid point; rows another
    script appends (``APPENDED``) are never a point's. The table is written after each point, so an interrupted run
    keeps those measured. ``n_sim`` (``--simulations``) measures that many data sets a point in place of the module's
    (a reduced run: ``main`` then writes ``calibration-quick.csv``, a copy of the package table, unless ``--out``
    names a table; audit s27, where ``--simulations`` was ignored with ``--replace``)."""
    import numpy as np
    import pandas as pd

    path = OUT if path is None else path
    module = load(procedure)
    order = {point: k for k, point in enumerate(module["grid"](False))}
    for point in points:
        if point not in order:
            raise ValueError(f"{point} is not a grid point of {procedure}")
        start = time.process_time()
        rows = measure(procedure, point, n_sim or module["SIMULATIONS"][0], False)
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
        others = _appended(table, [procedure])
        keys = [order.get(module["point_of"](r)) if r["procedure"] == procedure and not other else None
                for r, other in zip(table.to_dict("records"), others)]
        here = np.array([k == order[point] for k in keys], dtype=bool)
        at = (int(np.flatnonzero(here)[0]) if here.any()
              else next((i for i, k in enumerate(keys) if k is not None and k > order[point]),
                        max(i for i, r in enumerate(table["procedure"]) if r == procedure) + 1))
        fresh = pd.DataFrame(rows).reindex(columns=COLUMNS).astype(object).fillna("").astype(str)
        kept = table[~here].reset_index(drop=True)
        at -= int(here[:at].sum())
        pd.concat([kept.iloc[:at], fresh, kept.iloc[at:]], ignore_index=True).to_csv(path, index=False)
        print(*point, "replaced" if here.any() else "added", f"{time.process_time() - start:.0f} s CPU", flush=True)


def run_alone(procedure):
    """What a per-procedure module does when run as a script: this script with ``--only procedure``."""
    main(["--only", procedure] + sys.argv[1:])


if __name__ == "__main__":
    main()
