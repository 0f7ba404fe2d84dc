"""Coverage of the bootstrap's intervals on 2 tasks, a design the calibration table's grid (1, 5, 26 tasks) brackets
(audit s23, nearest23): whether the 1-task rows speak for designs of 2 to 4 tasks beside the 5-task rows
(``rlstats.calibration.bracketing_counts``).

    PYTHONPATH=. python tests/reference/coverage_two_tasks.py [--quick]

Two measurements, by ``coverage_small_runs.py``'s own functions (its design draws, truths and pooling):

- the probability of improvement's default ``score`` interval at 2 runs per task on 1, 2 and 5 tasks, 100 data sets
  per design draw (800 intervals a row; seed 7). Measured: 1 task 0.905-1.000 (skewed 0.911, heavy-tailed 0.905:
  they miss, as the table's 1-task rows do), 2 tasks 0.964-0.980 (all hold), 5 tasks 0.944-0.969.
- the percentile and expanded intervals at 2 tasks x 5 runs, skewed and capped scores, 20 data sets per draw (320
  intervals a row; seed 7). Measured: expanded median 0.903 (skewed, worst draw 0.875) and 0.903 (capped), below
  95% by more than 3 SE (review23a's 640: 0.884); percentile IQM 0.891 and 0.856, median 0.828 and 0.847.

So one task is not always the neighbour that interpolates: 2 tasks were as short as 5 or between 1 and 5 for the
metrics' intervals, but the score interval held at 2 tasks where the 1-task rows miss (a conservative note, not a
true shortfall, for 2-4 tasks at 2 runs). ``--quick``: 10 data sets per draw, normal and skewed scores only.

Audit s24 (cal24) put the grid's 2-task points in the table (``coverage_small_runs.TASKS``, the grid's seeds, not
this script's 7): the score interval at 2 runs 0.9575-0.985 of 400, the expanded median at 5 runs 0.869 (skewed) and
0.931 (capped) of 160; designs of 2 to 4 tasks read those rows now.
"""

from __future__ import annotations

import pathlib
import runpy
import sys
import warnings

HERE = pathlib.Path(__file__).resolve().parent


def main(quick=False):
    small = runpy.run_path(str(HERE / "coverage_small_runs.py"))
    warnings.simplefilter("ignore")
    families = ("normal", "skewed") if quick else ("normal", "skewed", "heavy_tailed", "capped")
    for tasks in (1, 2, 5):
        for dist in families:
            row = small["score_rows"](dist, tasks, 2, 10 if quick else 100, seed=7)[0]
            print("score probability_of_improvement", tasks, 2, dist, row["n_sim"], row["coverage"],
                  row.get("coverage_min"), flush=True)
    for dist in ("skewed",) if quick else ("skewed", "capped"):
        for row in small["measure"](dist, 2, 5, 5 if quick else 20, seed=7, n_resamples=500,
                                    intervals=("percentile", "expanded"), improvement_intervals=()):
            print(row["interval"], row["metric"], 2, 5, dist, row["n_sim"], row["coverage"], row.get("coverage_min"),
                  flush=True)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
