"""The curves' bands of the mean on the designs where the bootstrap's bootstrap-t interval of the mean undercovered
(audit s20): heavy-tailed and skewed runs, 5 tasks x 10 and 20 runs, 26 x 20, at more curves than the table's rows.

    PYTHONPATH=. python tests/reference/coverage_curves_mean_tails.py [dist:tasks:runs:curves,...] [--seed S]

Each point runs ``coverage_curves_bands.measure`` (its simulation, truth and counting; 2 agents, 300 resamples) on
``curves`` data sets (four design draws) from seed ``--seed`` (20; the table's rows used 0) and prints its rows with
whether each misses by the table's rule (``rlstats.calibration.misses``). Not written to the table: the table's
``curves.band`` rows are the grid's (``calibrate.py --only curves.band``). Audit s20 (welch20) measured the default
points below: about 0.1 s a curve at 5 tasks, 50-95 s a point at one job.
"""

from __future__ import annotations

import pathlib
import runpy
import sys
import time
import warnings

HERE = pathlib.Path(__file__).resolve().parent
POINTS = "heavy_tailed:5:20:960,skewed:5:20:960,heavy_tailed:5:10:960,heavy_tailed:26:20:480"


def main(argv):
    from rlstats.calibration import misses

    bands = runpy.run_path(str(HERE / "coverage_curves_bands.py"))
    points = next((a for a in argv if ":" in a), POINTS)
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 20
    warnings.simplefilter("ignore")  # raw scales of the design draws: on purpose
    for point in points.split(","):
        dist, tasks, runs, n = point.split(":")
        start = time.time()
        for row in bands["measure"]("mean", int(runs), int(tasks), dist, 2, int(n), n_resamples=300, seed=seed):
            print(dist, tasks, runs, row["band"], row["interval"] or "-", row["n_sim"],
                  f"{row['coverage']:.4f} (worst draw {row['coverage_min']:.3f})",
                  "MISSES" if misses({k: str(v) for k, v in row.items()}, 0.95) else "",
                  f"{time.time() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
