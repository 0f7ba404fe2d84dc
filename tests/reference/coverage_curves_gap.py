"""Audit s28 (gapkinds28): coverage of ``rlstats.curves``' optimality-gap bands where an agent's scores all sit at or
below gamma but its true score distribution crosses gamma: the ``curves.band`` rows of statistic ``optimality_gap``
in ``rlstats/calibration.csv``.

    PYTHONPATH=. nice python tests/reference/coverage_curves_gap.py [--quick] [--dist skewed,capped] [--json OUT]
        [--append-table rlstats/calibration.csv]      # about 12 CPU minutes
    PYTHONPATH=. nice python tests/reference/coverage_curves_gap.py --sides 5:1:skewed:25   # one point, :func:`sides`

Where every score of an agent logged at the grid steps is at or below gamma, its gap is gamma minus its mean of task
means at every step, and ``curves()`` gives it the mean's bands reflected (``rlstats.methods.curves._api
._band_options``, audit s27 curvegap27). The table's mean rows measure those bands of a gap whose truth is gamma minus
the mean, a distribution entirely below gamma. Here the truth crosses gamma: the true gap, the mean over tasks of
E max(gamma - X, 0), exceeds gamma minus the true mean, and the data sets whose runs happen to stay below gamma are
the ones whose mean is low. How often do the bands given then hold the true gap?

The curves are those of ``coverage_curves_bands.py`` (its ``simulate`` and ``location``: a Gaussian AR(1) over 10
logged steps turned into the distribution's deviations, the location rising to 0 at the last step; the tasks' offsets
and scales of ``designs.design_draw``), two alike agents, at 3, 5 and 10 runs x 1, 2 and 5 tasks, on right-skewed
(``skewed``) and capped (``capped``: a third of the runs at each task's ceiling at the last step) runs, the families
whose upper quantiles a target sits among. Gamma is the ``1 - 1 / (2 n)`` quantile of the last step's scores pooled
over the tasks (n = runs x tasks, each agent's runs at that step), so that all of an agent's scores sit below it in
about half the data sets while a share ``1 / (2 n)`` of the true distribution lies above it. The truth at each step is
the gap of the population (stratified quantiles, ``designs.population``). Only the agents whose every score is at or
below gamma are counted (``configuration`` ``BELOW``); the others keep the gap's own bands, whose coverage the script
prints beside (not written: the table's gap rows are of the case this rule decides).

Each row pools the four design draws of ``designs.py`` (``coverage_min`` the lowest), ``DATA_SETS`` data sets a draw,
300 resamples (200 and 30 a draw with --quick); the simultaneous band counts where it holds the true curve at every
step given, the pointwise band the share of the steps given that hold it (as ``coverage_curves_bands.py``). Measured
(numpy 2, rlstats at audit s28): see ``docs/calibration.md`` ("Audit s28").
"""

from __future__ import annotations

import json
import pathlib
import runpy
import sys
from types import SimpleNamespace

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
BANDS = runpy.run_path(str(HERE / "coverage_curves_bands.py"))
designs = SimpleNamespace(**runpy.run_path(str(HERE / "designs.py")))

from rlstats import calibration, curves  # noqa: E402

RUNS = (3, 5, 10)
TASKS = (1, 2, 5)
DISTRIBUTIONS = ("skewed", "capped")
#: data sets per design draw (2 agents each; about half of the agents' scores sit below gamma)
DATA_SETS = 80
#: the ``configuration`` of the rows: the agents counted (``calibration.GAP_BELOW_GAMMA``, which curves()' notes read)
BELOW = calibration.GAP_BELOW_GAMMA
PROCEDURE, LEVEL = "curves.band", 0.95


def gamma_of(runs, tasks, distribution, offset, scale):
    """The ``1 - 1 / (2 runs tasks)`` quantile of the last step's scores pooled over the tasks (equal weights); where
    that is the highest task's ceiling (``capped``: a third of its runs there), the score just below it, so that the
    runs at that ceiling lie above gamma (a ceiling at gamma itself is the case the mean's rows measure)."""
    last = BANDS["location"]()[-1]
    pooled = designs.population(distribution, last, offset[:, None], scale[:, None],
                                points=BANDS["TRUTH_POINTS"]).ravel()
    gamma = float(np.quantile(pooled, 1 - 1 / (2 * runs * tasks)))
    return float(pooled[pooled < gamma].max()) if gamma >= pooled.max() else gamma


def true_gap(distribution, gamma, offset, scale):
    """(steps,) the population's optimality gap: the mean over tasks of E max(gamma - X, 0) at each step."""
    out = []
    for loc in BANDS["location"]():
        scores = designs.population(distribution, loc, offset[:, None], scale[:, None], points=BANDS["TRUTH_POINTS"])
        out.append(np.maximum(gamma - scores, 0.0).mean(axis=1).mean())
    return np.array(out)


def measure(runs, tasks, distribution, data_sets=DATA_SETS, n_resamples=300, seed=0, bands="studentized"):
    """{(band, below): [per draw: (bands,) held]}: the simultaneous (held at every step given) and pointwise (share of
    steps given that hold) coverage of each agent's gap bands, split by whether its every score is at or below
    gamma; with the gamma of each draw and the share of agents below it."""
    held = {(band, below): [] for band in ("simultaneous", "pointwise") for below in (True, False)}
    gammas, shares = [], []
    key = [28, seed, runs, tasks, DISTRIBUTIONS.index(distribution) if distribution in DISTRIBUTIONS else 9]
    for draw in range(designs.DESIGN_DRAWS):
        offset, scale = designs.design_draw(draw, tasks)
        gamma = gamma_of(runs, tasks, distribution, offset, scale)
        true = true_gap(distribution, gamma, offset, scale)
        data_seed, curves_seed = np.random.SeedSequence(key + [draw]).spawn(2)
        rng = np.random.default_rng(data_seed)
        got = {k: [] for k in held}
        below_all = []
        for child in curves_seed.spawn(data_sets):
            data = BANDS["simulate"](2, runs, distribution, offset, scale, rng)
            res = curves(data, "score ~ agent | task/seed", step="step", statistic="optimality_gap", gamma=gamma,
                         n_resamples=n_resamples, normalize=False, rng=child, progress=False, bands=bands)
            by_agent = data.groupby("agent", sort=False)["score"].max().reindex(list(res.agents)).to_numpy()
            below = by_agent <= gamma
            below_all.append(below)
            every, _ = BANDS["_held"](res.simultaneous, true)
            _, share = BANDS["_held"](res.pointwise, true)
            for flag in (True, False):
                got["simultaneous", flag].append(every[below == flag])
                got["pointwise", flag].append(share[below == flag])
        for k, values in got.items():
            held[k].append(np.concatenate(values).astype(float))
        gammas.append(gamma)
        shares.append(float(np.mean(below_all)))
    return held, gammas, shares


def rows_of(held, runs, tasks, distribution, n_resamples, below=True):
    """The table rows (simultaneous, pointwise) of the agents ``below`` gamma (or not), pooled over draws."""
    rows = []
    for band in ("simultaneous", "pointwise"):
        given = [h[np.isfinite(h)] for h in held[band, below]]
        if not all(g.size for g in given):
            continue
        row = designs.band_row(band, given, LEVEL)
        rows.append({"procedure": PROCEDURE, "statistic": "optimality_gap", "band": band, "interval": "studentized",
                     "agents": 2, "tasks": tasks, "runs": runs, "distribution": distribution,
                     "configuration": BELOW if below else "", "level": LEVEL, "n_resamples": n_resamples, **row})
    return rows



def sides(runs, tasks, distribution, data_sets, n_resamples=200, seed=99):
    """{bands: (pointwise coverage, share of steps with the truth below the band, above it)} over the agents whose
    every score is at or below gamma, for the default bands, ``bands="expanded"``, the gap's own studentised bands
    (``bands="studentized_unwidened"``, the default's before audit s27 there) and, as ``"mean"``, the mean's default
    bands of the true mean under the same condition: which side the misses fall on, and whether the other bands do
    better (a check outside the table: ``python coverage_curves_gap.py --sides 5:1:skewed:25``)."""
    counts = {}
    for draw in range(designs.DESIGN_DRAWS):
        offset, scale = designs.design_draw(draw, tasks)
        gamma = gamma_of(runs, tasks, distribution, offset, scale)
        truths = {"gap": true_gap(distribution, gamma, offset, scale),
                  "mean": BANDS["truth"]("mean", distribution, offset, scale)}
        rng = np.random.default_rng([seed, draw, runs, tasks])
        for i in range(data_sets):
            data = BANDS["simulate"](2, runs, distribution, offset, scale, rng)
            below = (data.groupby("agent")["score"].max() <= gamma).to_numpy()
            for bands in ("studentized", "expanded", "studentized_unwidened", "mean") if below.any() else ():
                res = curves(data, "score ~ agent | task/seed", step="step", gamma=gamma, n_resamples=n_resamples,
                             statistic="mean" if bands == "mean" else "optimality_gap", normalize=False, rng=i,
                             progress=False, bands="studentized" if bands == "mean" else bands)
                true = truths["mean" if bands == "mean" else "gap"]
                band = res.pointwise[below]
                given = np.isfinite(band).all(axis=-1)
                tally = counts.setdefault(bands, np.zeros(3))
                tally += [given.sum(), ((band[..., 0] > true) & given).sum(), ((band[..., 1] < true) & given).sum()]
    return {k: (1 - (low + high) / n, low / n, high / n) for k, (n, low, high) in counts.items()}


def bootstrap_below(runs, tasks, distribution, data_sets, n_resamples=500, seed=7):
    """(coverage, agents, truth below the interval, above it): ``rlstats.bootstrap``'s default interval of the
    optimality gap (the mean's reflected there, ``_small_runs.interval_kinds``) on the last step's scores of the same
    designs and gamma, over the agents whose every score is at or below gamma (a check outside the table:
    ``python coverage_curves_gap.py --bootstrap 5:2:skewed:60``)."""
    from rlstats import bootstrap

    n = low = high = 0
    for draw in range(designs.DESIGN_DRAWS):
        offset, scale = designs.design_draw(draw, tasks)
        gamma = gamma_of(runs, tasks, distribution, offset, scale)
        true = true_gap(distribution, gamma, offset, scale)[-1]
        rng = np.random.default_rng([seed, draw, runs, tasks])
        for i in range(data_sets):
            data = BANDS["simulate"](2, runs, distribution, offset, scale, rng)
            data = data[data["step"] == data["step"].max()]
            res = bootstrap(data, "score ~ agent | task", metrics=("optimality_gap",), gamma=gamma,
                            n_resamples=n_resamples, normalize=False, rng=i, progress=False)
            below = res.gap_as_mean if res.gap_as_mean is not None else np.zeros(len(res.agents), bool)
            bounds = res.intervals[below, 0]
            given = np.isfinite(bounds).all(axis=-1)
            n, low, high = n + given.sum(), low + (given & (bounds[:, 0] > true)).sum(), high + (
                given & (bounds[:, 1] < true)).sum()
    return 1 - (low + high) / n, int(n), low / n, high / n

def appended(row):
    """Whether a ``curves.band`` row of the table (a dict of strings) is one this script writes (``calibrate.py``'s
    ``APPENDED`` keeps them when the procedure is re-measured)."""
    return row["statistic"] == "optimality_gap"


def main(argv):
    if "--bootstrap" in argv:
        runs, tasks, distribution, data_sets = argv[argv.index("--bootstrap") + 1].split(":")
        print(*(round(float(x), 3) for x in bootstrap_below(int(runs), int(tasks), distribution, int(data_sets))))
        return []
    if "--sides" in argv:
        runs, tasks, distribution, data_sets = argv[argv.index("--sides") + 1].split(":")
        for bands, numbers in sides(int(runs), int(tasks), distribution, int(data_sets)).items():
            print(bands, *(round(x, 3) for x in numbers))
        return []
    quick = "--quick" in argv
    only = argv[argv.index("--dist") + 1].split(",") if "--dist" in argv else DISTRIBUTIONS
    # one task of 3 runs: no studentised band (3 of its 27 resamples repeat one run), nothing to measure
    points = [(r, t, d) for d in only for t in TASKS for r in RUNS if (r, t) != (3, 1)]
    n_resamples, data_sets = (200, 30) if quick else (300, DATA_SETS)
    out = []
    for runs, tasks, distribution in points:
        held, gammas, shares = measure(runs, tasks, distribution, data_sets, n_resamples)
        rows = rows_of(held, runs, tasks, distribution, n_resamples)
        above = rows_of(held, runs, tasks, distribution, n_resamples, below=False)
        print(json.dumps({"point": [runs, tasks, distribution], "share_below": round(float(np.mean(shares)), 3),
                          "below": {r["band"]: [round(r["coverage"], 3), round(r["coverage_min"], 3), r["n_sim"]]
                                    for r in rows},
                          "above": {r["band"]: [round(r["coverage"], 3), round(r["coverage_min"], 3), r["n_sim"]]
                                    for r in above}}), flush=True)
        out += rows
    runpy.run_path(str(HERE / "calibrate.py"))["write_rows"](out, argv, PROCEDURE, appended)
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
