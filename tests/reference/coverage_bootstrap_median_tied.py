"""Coverage of bootstrap()'s default (studentised) interval of the median of task means on runs tied at a cap, and
what the median's tied-share rule (audit s11, ``rlstats.bounds.MEDIAN_TIED_SHARE``) changes elsewhere.

    PYTHONPATH=. python tests/reference/coverage_bootstrap_median_tied.py --out after.npz [--datasets 10]
    PYTHONPATH=. python tests/reference/coverage_bootstrap_median_tied.py --compare before.npz after.npz
    PYTHONPATH=. python tests/reference/coverage_bootstrap_median_tied.py --alike --out alike.npz [--datasets 50]

``--alike`` (:func:`measure_alike`): two alike agents placed so that 36%, 55% or 70% of their runs sit at the grid's
saturated cap (one step of the saturated curves, where curves()' median bands missed), the median's intervals alone,
at 5 and 26 tasks x 3, 5 and 10 runs; it prints the coverage of those given. Audit s11 ran each mode on the package
before and after the median's tied-share rule: ``--datasets 8`` (128 intervals a point) for the grid's design,
``--alike --datasets 50`` (400) for the alike agents (docs/calibration.md).

The data sets are those of ``coverage_small_runs.draw_design`` (four agents, B and D ``SHIFT`` noise units above A
and C, ``designs.DESIGN_DRAWS`` design draws): the ``saturated`` family with its cap moved so that a share ``s`` of
the baseline agents' runs sit at it (``s`` = 0.36, 0.55, 0.70; 0.85 is the grid's own), at 5 and 26 tasks x 3, 5 and
10 runs, and the grid's ``normal``, ``skewed``, ``heavy_tailed`` and ``capped`` families at 5 tasks x 3 and 5 runs
(``capped`` also at 5 tasks x 10 runs and 26 tasks x 3, 5 and 10).
Every interval of the four metrics is saved, so that a run of the package before a change and one after can be
compared: the coverage of the median's intervals given, how many are given, and whether every other interval is
the same bit for bit (``--compare``). An interval withheld is not counted as given.
"""

from __future__ import annotations

import argparse
import pathlib
import runpy
import warnings

import numpy as np
from scipy import stats

import rlstats

HERE = pathlib.Path(__file__).resolve().parent
small = runpy.run_path(str(HERE / "coverage_small_runs.py"))
METRICS = small["METRICS"]
SHARES = (0.36, 0.55, 0.70, 0.85)
SATURATED = [("saturated", share, tasks, runs) for tasks in (5, 26) for share in SHARES for runs in (3, 5, 10)]
OTHERS = ([(family, None, 5, runs) for family in ("normal", "skewed", "heavy_tailed", "capped") for runs in (3, 5)]
          + [("capped", None, 5, 10)] + [("capped", None, 26, runs) for runs in (3, 5, 10)])
N_RESAMPLES = 300
SEED = 311


def measure(family, share, tasks, runs, n_datasets, seed=SEED):
    """(intervals (data sets, agents, metrics, 2), truths (data sets, agents, metrics)) over the design draws."""
    caps = small["designs"]["_CAPS"]
    saved = caps["saturated"]
    if share is not None:
        caps["saturated"] = float(stats.norm.ppf(1 - share))
    try:
        intervals, truths = [], []
        for draw in range(small["designs"]["DESIGN_DRAWS"]):
            for d, (data, truth) in enumerate(small["draw_design"](family, tasks, runs, draw, n_datasets, seed)):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = rlstats.bootstrap(data, "score ~ agent | task", metrics=METRICS, n_resamples=N_RESAMPLES,
                                            rng=np.random.default_rng([seed, draw, d]), progress=False)
                intervals.append(res.intervals)
                truths.append([[truth[a][m] for m in METRICS] for a in res.agents])
    finally:
        caps["saturated"] = saved
    return np.array(intervals), np.array(truths)


def measure_alike(share, tasks, runs, n_datasets, seed=SEED, agents=2):
    """As :func:`measure` for the median alone, on ``agents`` alike agents placed so that a share ``share`` of their
    runs sit at the grid's saturated cap (one step of the saturated curves of coverage_curves_bands.py, where the
    curves' median bands missed): (intervals (data sets, agents, 1, 2), truths (data sets, agents, 1))."""
    d = small["designs"]
    location = d["SATURATED_CAP"] - float(stats.norm.ppf(1 - share))
    intervals, truths = [], []
    for draw in range(d["DESIGN_DRAWS"]):
        offset, scale = d["design_draw"](draw, tasks)
        truth = np.median(d["population"]("saturated", location, offset, scale).mean(axis=1))
        rng = np.random.default_rng([seed, draw, tasks, runs, int(share * 100)])
        for i in range(n_datasets):
            scores = {a: d["scores"]("saturated", rng.standard_normal((runs, tasks)), location, offset, scale)
                      for a in "AB"[:agents]}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = rlstats.bootstrap(small["frame"](scores), "score ~ agent | task", metrics=["median"],
                                        n_resamples=N_RESAMPLES, rng=np.random.default_rng([seed, draw, i]),
                                        progress=False)
            intervals.append(res.intervals)
            truths.append(np.full((agents, 1), truth))
    return np.array(intervals), np.array(truths)


def run_alike(out, n_datasets):
    saved = {}
    for share in SHARES[:3]:
        for tasks in (5, 26):
            for runs in (3, 5, 10):
                intervals, truths = measure_alike(share, tasks, runs, n_datasets)
                saved[f"alike_{share}_{tasks}_{runs}_i"], saved[f"alike_{share}_{tasks}_{runs}_t"] = intervals, truths
                np.savez(out, **saved)
                held, given = coverage(intervals, truths, 0)
                print(f"alike share {share} {tasks} tasks x {runs} runs: {held / max(given, 1):.3f} of {given} given "
                      f"({intervals.shape[0] * intervals.shape[1]} intervals)", flush=True)


def key(family, share, tasks, runs):
    return f"{family}_{share}_{tasks}_{runs}"


def run(out, n_datasets):
    saved = {}
    for point in SATURATED[:12] + OTHERS + SATURATED[12:]:  # the cheap points first; saved as they come
        intervals, truths = measure(*point, n_datasets)
        saved[key(*point) + "_i"], saved[key(*point) + "_t"] = intervals, truths
        np.savez(out, **saved)
        print(key(*point), flush=True)


def coverage(intervals, truths, metric="median"):
    """(held, given) of one metric's intervals (``metric``: its name, or its column)."""
    j = METRICS.index(metric) if isinstance(metric, str) else metric
    bounds, t = intervals[:, :, j], truths[:, :, j]
    given = np.isfinite(bounds).all(axis=-1)
    held = given & (bounds[..., 0] <= t) & (t <= bounds[..., 1])
    return int(held.sum()), int(given.sum())


def compare(before_path, after_path):
    before, after = np.load(before_path), np.load(after_path)
    median = METRICS.index("median")
    for point in SATURATED + OTHERS:
        if key(*point) + "_i" not in before or key(*point) + "_i" not in after:
            continue
        b, a, t = before[key(*point) + "_i"], after[key(*point) + "_i"], after[key(*point) + "_t"]
        others = [j for j in range(len(METRICS)) if j != median]
        same_others = np.array_equal(b[:, :, others], a[:, :, others], equal_nan=True)
        kept = np.isfinite(a[:, :, median]).all(axis=-1)
        same_kept = np.array_equal(b[:, :, median][kept], a[:, :, median][kept])
        hb, gb = coverage(b, t)
        ha, ga = coverage(a, t)
        total = a.shape[0] * a.shape[1]
        print(f"{key(*point):28s} median before {hb / max(gb, 1):.3f} of {gb:4d}/{total}  after "
              f"{(ha / ga if ga else float('nan')):.3f} of {ga:4d}/{total}   others same: {same_others}, "
              f"median kept same: {same_kept}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--compare", nargs=2)
    parser.add_argument("--alike", action="store_true", help="the alike agents' median intervals alone")
    options = parser.parse_args()
    if options.alike:
        run_alike(options.out, options.datasets)
    elif options.compare:
        compare(*options.compare)
    else:
        run(options.out, options.datasets)
