"""Issue 43 item 3: the percentiles (PBP) calibration grid at 8 agents x 26 tasks on a Dask LocalCluster.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/dask_percentiles_grid.py [--workers 2] [--simulations 1]
        [--runs 3,5,10,20] [--distributions normal,skewed,heavy_tailed,capped] [--scheduler ADDRESS]

Each grid point (runs per cell x distribution) is one task on the cluster, measured by the calibration module
``tests/reference/coverage_percentiles.py`` (``measure``: ``--simulations`` data sets per design draw, the grid's
``DESIGN_DRAWS`` draws pooled) through the calibration runner's engine (``tests/reference/calibrate.py``'s
``workers``, i.e. ``rlstats.engines``). Prints the rows, the wall time and the CPU seconds the workers spent
(``Client.run(time.process_time)`` before and after), the figure quoted in ``benchmarks/README.md`` and
``docs/calibration.md``.
"""

from __future__ import annotations

import argparse
import pathlib
import runpy
import time

HERE = pathlib.Path(__file__).resolve().parent
REFERENCE = HERE.parent / "tests" / "reference"
AGENTS, TASKS = 8, 26


def measure_point(job):
    """One grid point's row, computed in the worker (the module is loaded there: it holds unpicklable modules)."""
    runs, distribution, n_sim = job
    module = runpy.run_path(str(REFERENCE / "coverage_percentiles.py"))
    seed = [AGENTS, TASKS, runs, module["designs"].DISTRIBUTIONS.index(distribution)]
    return module["measure"]("pbp", AGENTS, TASKS, runs, distribution, n_sim, seed=seed)


def main(argv=None):
    import pandas as pd

    from rlstats.engines import map_ordered

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--simulations", type=int, default=1, help="data sets per design draw and grid point")
    parser.add_argument("--runs", default="3,5,10,20")
    parser.add_argument("--distributions", default="normal,skewed,heavy_tailed,capped")
    parser.add_argument("--scheduler", metavar="ADDRESS")
    args = parser.parse_args(argv)
    calibrate = runpy.run_path(str(REFERENCE / "calibrate.py"))
    jobs = [(int(r), d, args.simulations) for r in args.runs.split(",") for d in args.distributions.split(",")]
    with calibrate["workers"]("dask", args.workers, args.scheduler) as where:
        where.client.wait_for_workers(args.workers, timeout=120)
        before = where.client.run(time.process_time)
        start = time.time()
        rows = []
        for job, row in zip(jobs, map_ordered(measure_point, jobs, where)):
            rows.append(row)
            print(f"# {time.time() - start:.0f} s: runs {job[0]}, {job[1]}: coverage {row['coverage']}", flush=True)
        wall = time.time() - start
        after = where.client.run(time.process_time)
    cpu = sum(after[w] - before[w] for w in after)
    table = pd.DataFrame(rows)[["agents", "tasks", "runs", "distribution", "n_sim", "coverage", "se",
                                "coverage_min"]]
    print(table.to_string(index=False))
    print(f"# {len(jobs)} grid points at {AGENTS} x {TASKS}, {args.simulations} data set(s) per design draw, on "
          f"{len(after)} Dask workers: {wall:.0f} s wall, {cpu:.0f} s worker CPU ({cpu / max(1, table['n_sim'].sum()):.1f} "
          f"s per data set)")


if __name__ == "__main__":
    main()
