"""Audit s26 (curves26): the coverage of the median's own bands against the mean's where the median of task means is
their mean (1 and 2 tasks), which decided that ``curves()`` gives the median the mean's bands there
(``rlstats.methods.curves._api._band_options``).

    PYTHONPATH=. nice -n 10 python tests/reference/curves_median_two_tasks.py [--quick]   # about 2 CPU minutes

``coverage_curves_bands.measure`` (its curves: 10 steps of a Gaussian AR(1) turned into each distribution, the four
design draws of the tasks' offsets and scales, 300 resamples, 2 agents, seed 26) on 2 tasks (240 data sets, 480 agent
bands a row) and 1 task (400, 800), for the default bands of the mean and, with the substitution lifted
(:func:`own_bands`), the median's own. The calibration table has no 2-task rows of curves and no 1-task rows of the
median (its grid left them out as the mean's). Measured (numpy 2, rlstats at audit s26), coverage pointwise /
simultaneous, the median's own then the mean's, with the median's width over the mean's (pointwise / simultaneous):
2 tasks (480 a row): skewed x 3 runs 0.942 / 0.969 and 0.957 / 0.975 (0.96 / 0.93); x 5: 0.942 / 0.983 and
0.952 / 0.981 (1.04 / 1.00); x 10: 0.943 / 0.960 and 0.954 / 0.967 (0.97 / 0.96); normal x 5: 0.965 / 0.981 and
0.975 / 0.992 (1.01 / 1.04); capped x 5: 0.972 / 0.983 and 0.982 / 0.981 (0.98 / 0.92).
1 task (800 a row): skewed x 5: 0.927 / 0.913 (worst draw 0.918 / 0.880) and 0.953 / 0.959 (0.82 / 0.74); x 10:
0.939 / 0.965 and 0.964 / 0.980 (0.91 / 0.86); normal x 5: 0.960 / 0.986 and 0.966 / 0.986 (0.93 / 0.77); capped x 5:
0.965 / 0.974 and 0.979 / 0.988 (0.85 / 0.74); heavy-tailed x 5: 0.969 / 0.989 and 0.976 / 0.981 (0.93 / 0.78).
"""

import json
import pathlib
import runpy
import sys
import warnings
from unittest import mock

HERE = pathlib.Path(__file__).resolve().parent
#: (tasks, runs, distribution, data sets)
DESIGNS = ((2, 3, "skewed", 240), (2, 5, "skewed", 240), (2, 10, "skewed", 240), (2, 5, "normal", 240),
           (2, 5, "capped", 240), (1, 5, "skewed", 400), (1, 10, "skewed", 400), (1, 5, "normal", 400),
           (1, 5, "capped", 400), (1, 5, "heavy_tailed", 400))
SEED, N_RESAMPLES = 26, 300


def own_bands():
    """The median's own bands on 1 and 2 tasks too, while measuring (a context manager)."""
    from rlstats import statistics
    return mock.patch.object(statistics, "MEDIAN_IS_MEAN_TASKS", 0)  # the rule's one home (statistics.median_is_mean)


def main(quick=False):
    warnings.simplefilter("ignore")  # the raw-scale warning: the design draws' scales differ on purpose
    bands = runpy.run_path(str(HERE / "coverage_curves_bands.py"))
    for tasks, runs, distribution, n_sim in DESIGNS[:1] if quick else DESIGNS:
        n_sim = 40 if quick else n_sim
        for statistic in ("median", "mean"):
            with own_bands():
                rows = bands["measure"](statistic, runs, tasks, distribution, 2, n_sim, n_resamples=N_RESAMPLES,
                                        seed=SEED)
            for row in rows:
                if row["interval"] == "studentized":
                    print(json.dumps({k: row[k] for k in ("statistic", "band", "tasks", "runs", "distribution",
                                                          "n_sim", "coverage", "se", "coverage_min", "width")}))


if __name__ == "__main__":
    main("--quick" in sys.argv)
