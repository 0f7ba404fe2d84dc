"""Audit s36 former36: the median's t interval without the skew widening (``interval="studentized_unwidened"``) on
one task, beside the widened one (``"studentized_no_welch"``'s, the table's rows "t interval"), on the data sets of
``coverage_one_task.py`` (its seeds, design draws and lifted one-task rule; its first 30 data sets a draw, 480 nominal
95% intervals a point, Monte Carlo SE 0.010 at 0.95). Not table rows: the count of ``_small_runs.
UNWIDENED_ONE_TASK_MIN_RUNS`` rests on it (measured: 0.892, 0.919, 0.925, 0.913 and 0.933 at 20, 30, 50, 100 and
200 skewed runs; the widened 0.929, 0.944, 0.963, 0.921 and the table's 1,920-interval rows).

    PYTHONPATH=. python tests/reference/coverage_one_task_unwidened.py 20,30,50,100,200 skewed,capped,normal,heavy_tailed
"""
import json
import pathlib
import runpy
import sys
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ONE = runpy.run_path(str(HERE / "coverage_one_task.py"))
SMALL = ONE["SMALL"]
DATA_SETS = 30

import rlstats  # noqa: E402


def measure(runs, distribution):
    """{interval: per-draw lists of held (bool)} of the median on one task of ``runs`` runs."""
    held = {"studentized_no_welch": [[] for _ in range(4)], "studentized_unwidened": [[] for _ in range(4)]}
    with ONE["lifted"](), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for draw in range(4):
            for d, (data, truth) in enumerate(SMALL["draw_design"](distribution, 1, runs, draw, DATA_SETS, ONE["SEED"])):
                res = rlstats.bootstrap(data, "score ~ agent", metrics=ONE["METRICS"], n_resamples=ONE["N_RESAMPLES"],
                                        rng=d, progress=False)
                j = list(res.metrics).index("median")
                true = np.array([truth[a]["median"] for a in res.agents])
                for interval, by_draw in held.items():
                    bounds = SMALL["bounds_of"](res, interval)
                    got = (bounds[:, j, 0] <= true) & (true <= bounds[:, j, 1])
                    if res.saturated is not None:  # the rule of runs at a cap: not counted (coverage_one_task.py)
                        got = got[~res.saturated[:, j]]
                    by_draw[draw].extend(got.tolist())
    return held


def main(argv):
    for runs in (int(r) for r in argv[0].split(",")):
        for distribution in argv[1].split(","):
            for interval, by_draw in measure(runs, distribution).items():
                held = np.concatenate([np.asarray(d, float) for d in by_draw])
                print(json.dumps({"runs": runs, "distribution": distribution, "interval": interval,
                                  "n": int(held.size), "coverage": round(float(held.mean()), 4),
                                  "worst_draw": round(min(float(np.mean(d)) for d in by_draw), 4)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
