"""Audit s13: curves()' median bands under bootstrap()'s finer rule for runs tied at a cap.

    PYTHONPATH=. python tests/reference/coverage_curves_median_tied.py OUT.jsonl [--points 5x3,5x5,...]
        [--dist capped,saturated] [--datasets 10] [--seed 1313]
    PYTHONPATH=. python tests/reference/coverage_curves_median_tied.py --summary OUT.jsonl

Until audit s13 curves() withheld the median's bands at a step where 0.3 or more of the agent's runs logged there
tie at a task's largest or smallest score (``rlstats.bounds.median_tied``), while bootstrap() withholds its median
interval only where also half or more of the runs of the middle task(s) tie, or 0.6 or more of all
(``rlstats.bounds.median_tied_at_middle``, audit s12). Here the grid's capped (a third of the runs at the cap at the
last step) and saturated (the cap reached by 17% to 85% of the runs over training) learning curves of
``coverage_curves_bands.py`` (its ``simulate`` and ``truth``, ``DESIGN_DRAWS`` draws of the tasks' offsets and scales)
get ``--datasets`` data sets per design draw of ``AGENTS`` alike agents, each agent's band from its own runs (300
resamples, ``compare=None``), with curves() under the finer rule; at each agent-step the script also records whether
the coarse rule (the share alone) would have withheld it. Printed per design: the pointwise band's coverage at the
steps the finer rule gives and the coarse rule withheld ("new steps"), the simultaneous band's (held at every given
step) among the bands with a new step, and both bands' over every band (with the Monte-Carlo standard error at 0.95
and how many were counted), and the lowest over design draws of the first two.

Audit s13 ran ``OUT.jsonl --datasets 25`` (every design, 800 bands each, about 2 CPU-minutes). At the new steps the
pointwise bands covered 0.969, 0.981 and 0.980 (saturated, 5 tasks x 3, 5, 10 runs; 700-801 steps, worst draw
0.953-0.965), 0.978, 0.980, 0.978 (10 tasks; 679-948), and 0.989-0.994 on the capped curves (1319-1846 steps); the
simultaneous bands of the agents with such a step held 0.974-0.990 (saturated) and 0.986-1.0 (capped) of 512-720;
every band of those designs 0.964-0.983 (pointwise) and 0.956-1.0 (simultaneous). None is below its 3-SE line, so
curves() reads the finer rule since audit s13.
"""

from __future__ import annotations

import json
import math
import pathlib
import runpy
import sys
import time
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
BANDS = runpy.run_path(str(HERE / "coverage_curves_bands.py"))
designs = BANDS["designs"]

from rlstats import bounds, curves  # noqa: E402
from rlstats.methods.curves import _api  # noqa: E402

AGENTS, DATA_SETS, N_RESAMPLES, SEED = 8, 10, 300, 1313
DISTRIBUTIONS = ("capped", "saturated")
POINTS = tuple((t, r) for t in (5, 10) for r in (3, 5, 10))


class _Both:
    """Wraps curves()' step rule: the package's steps withheld (the finer rule) and, recorded beside, the steps the
    coarse rule (the tied share alone) would withhold."""

    def __init__(self):
        self.coarse = None

    def __call__(self, design, matrix, starts, statistic):
        got = _ORIGINAL(design, matrix, starts, statistic)
        saved = _api.median_tied_at_middle
        _api.median_tied_at_middle = lambda tied, counts, means: bounds.median_tied(tied, counts)
        try:
            self.coarse = _ORIGINAL(design, matrix, starts, statistic)
        finally:
            _api.median_tied_at_middle = saved
        return got


_ORIGINAL = _api._saturated_steps


def measure(tasks, runs, distribution, data_sets=DATA_SETS, seed=SEED):
    """Per design draw, a list of per-agent records: (coarse (steps,), pointwise held (steps,) NaN where withheld,
    simultaneous given (steps,), simultaneous held (steps,))."""
    both = _Both()
    _api._saturated_steps = both
    out = []
    try:
        for draw in range(designs.DESIGN_DRAWS):
            offset, scale = designs.design_draw(draw, tasks)
            true = BANDS["truth"]("median", distribution, offset, scale)
            data_seed, curves_seed = np.random.SeedSequence(
                [seed, runs, tasks, DISTRIBUTIONS.index(distribution), draw]).spawn(2)
            rng = np.random.default_rng(data_seed)
            records = []
            for child in curves_seed.spawn(data_sets):
                data = BANDS["simulate"](AGENTS, runs, distribution, offset, scale, rng)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = curves(data, "score ~ agent | task/seed", step="step", statistic="median", compare=None,
                                 n_resamples=N_RESAMPLES, normalize=False, rng=child, progress=False)
                point_given = np.isfinite(res.pointwise).all(axis=-1)
                point_held = (res.pointwise[..., 0] <= true) & (true <= res.pointwise[..., 1])
                sim_given = np.isfinite(res.simultaneous).all(axis=-1)
                sim_held = (res.simultaneous[..., 0] <= true) & (true <= res.simultaneous[..., 1])
                for a in range(AGENTS):
                    records.append([both.coarse[a].tolist(), point_given[a].tolist(), point_held[a].tolist(),
                                    sim_given[a].tolist(), sim_held[a].tolist()])
            out.append(records)
    finally:
        _api._saturated_steps = _ORIGINAL
    return out


def summary(point):
    """The printed row of one design's records (a dict): counts and coverages."""
    records = [np.array(r, dtype=bool) for draw in point["records"] for r in draw]
    coarse, pg, ph, sg, sh = (np.array([r[i] for r in records]) for i in range(5))
    new = pg & coarse  # given by the finer rule, withheld by the coarse one
    bands_new = new.any(axis=1)
    sim_band_held = np.where(sg.any(axis=1), (sh | ~sg).all(axis=1), np.nan)
    out = {"tasks": point["tasks"], "runs": point["runs"], "distribution": point["distribution"],
           "bands": len(records), "new_steps": int(new.sum()), "new_point": _rate(ph[new]),
           "bands_new": int(bands_new.sum()), "new_sim": _rate(sim_band_held[bands_new]),
           "new_sim_at_new_steps": _rate((sh | ~new)[bands_new].all(axis=1)),
           "all_point": _rate(ph[pg]), "all_sim": _rate(sim_band_held[np.isfinite(sim_band_held)]),
           "coarse_point": _rate(ph[pg & ~coarse])}
    worst = []  # the lowest over design draws of the two rates at the new steps
    for draw in point["records"]:
        c, g, h, g2, h2 = (np.array([r[i] for r in draw], dtype=bool) for i in range(5))
        mine = g & c
        either = mine.any(axis=1)
        worst.append((h[mine].mean() if mine.any() else math.nan,
                      ((h2 | ~g2).all(axis=1) & g2.any(axis=1))[either].mean() if either.any() else math.nan))
    out["worst_draw"] = tuple(float(np.nanmin(w)) for w in zip(*worst))
    return out


def _rate(held):
    held = np.asarray(held, dtype=float)
    n = held.size
    return (float(held.mean()) if n else math.nan, n, math.sqrt(0.95 * 0.05 / n) if n else math.nan)


def show(row):
    def part(name):
        rate, n, se = row[name]
        flag = " *" if n and rate < 0.95 - 3 * se else ""
        return f"{name} {rate:.3f}/{n}{flag}"

    return (f"{row['distribution']:9s} {row['tasks']:2d}x{row['runs']:2d} bands {row['bands']} new steps "
            f"{row['new_steps']} bands with new {row['bands_new']}: " + "  ".join(
                part(n) for n in ("new_point", "new_sim", "new_sim_at_new_steps", "all_point", "all_sim",
                                  "coarse_point"))) + " worst draw {:.3f} {:.3f}".format(*row["worst_draw"])


def main(argv):
    if argv[0] == "--summary":
        for path in argv[1:]:
            for line in pathlib.Path(path).read_text().splitlines():
                print(show(summary(json.loads(line))))
        return
    out = pathlib.Path(argv[0])
    points = POINTS
    if "--points" in argv:
        points = tuple(tuple(int(v) for v in p.split("x")) for p in argv[argv.index("--points") + 1].split(","))
    distributions = tuple(argv[argv.index("--dist") + 1].split(",")) if "--dist" in argv else DISTRIBUTIONS
    data_sets = int(argv[argv.index("--datasets") + 1]) if "--datasets" in argv else DATA_SETS
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else SEED
    for tasks, runs in points:
        for distribution in distributions:
            start = time.process_time()
            point = {"tasks": tasks, "runs": runs, "distribution": distribution, "seed": seed,
                     "records": measure(tasks, runs, distribution, data_sets, seed)}
            point["cpu"] = time.process_time() - start
            with out.open("a") as handle:
                handle.write(json.dumps(point) + "\n")
            print(show(summary(point)), f"({point['cpu']:.0f} s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
