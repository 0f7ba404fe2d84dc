"""Coverage of the bands of ``rlstats.curves``: the ``curves.band`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only curves.band [--jobs 2] [--quick]

(or this script with the same options). For each statistic (mean, IQM, median), runs per task (2, 3, 5, 10, 20),
number of tasks (1, 2, 5, 26; 2 since audit s27) and score distribution of ``tests/reference/designs.py`` (normal, skewed, heavy_tailed,
capped), it simulates learning curves of alike agents with a known truth and runs ``rlstats.curves`` on them (95%
bands, ``compare="all"``, alpha = 0.05; 300 resamples, 200 with --quick; 60 data sets per grid point, 15 per design
draw, to keep the whole grid near 25 CPU-minutes, measured again on ``EXTENDED`` = 400 fresh data sets where a
default's row misses, to tell chance from a shortfall (the row is the fresh ones': audit s27, maxt27), and to 4
times 60 at the points of ``REMEASURED``, those of 3-10 runs where a default's row sat below 0.95 within 2 SE at
60: audit s25, ``calibrate.py --replace``). A run's deviations follow a stationary
Gaussian AR(1) over 10 logged steps (lag-one correlation 0.8), turned into the distribution's deviations by its
quantile transform (a Gaussian copula, so every step has the distribution's marginal exactly); the agent's location
rises over training from ``-LIFT`` to 0 in the task's noise units, so that at the last step a third of the runs
sit at the ceiling of ``capped``. Tasks differ in offset and scale (``designs.design_draw``); every row pools
``designs.DESIGN_DRAWS`` draws and records the lowest (``coverage_min``).

Each grid point gives rows for both band methods (column ``interval``): ``studentized`` (the default) and
``expanded`` (``bands="expanded"``, the bands before issue 40, computed from the same resamples): how often the
simultaneous band holds the whole true curve, how often the pointwise band holds the truth (averaged over steps);
and, method-free, how often the band of a difference of two alike agents holds 0 everywhere (``difference``) and
how often the max-T test does not reject (``max_t``). Steps where a band is withheld (too few distinct runs there)
are left out of the count; a band withheld everywhere is not counted, and a row whose band is withheld in every data
set of a design draw is not written (at 2 runs, and the studentised bands at 3 runs of one task). The truth of each statistic comes from stratified quantiles of each task's score distribution at
each step (``designs.population``).

On 2 tasks the median of the two task means is their mean, and ``curves()`` gives the median the mean's bands there
(``rlstats.methods.curves._api._band_options``, audit s26): the median's rows at 2 tasks measure those, what
``statistic="median"`` gives, on the median's own data sets, and say so in ``configuration`` (``MEAN_BANDS``; audit
s27 curves27). The median's own bands there (``bands="studentized_unwidened"``) are measured by
``curves_median_two_tasks.py``, not here.
"""

from __future__ import annotations

import math
import pathlib
import runpy
from types import SimpleNamespace

import numpy as np
import pandas as pd

# the grid's one home of distributions and design draws, run from its path as the other coverage modules do
designs = SimpleNamespace(**runpy.run_path(str(pathlib.Path(__file__).resolve().parent / "designs.py")))

from rlstats import curves  # noqa: E402  (the function: joblib's workers can unpickle jobs)

STATISTICS = ("mean", "iqm", "median")
RUNS = (2,) + designs.RUNS
TASKS = (1, 2, 5, 26)  # 2 since audit s27 (curves27)
DISTRIBUTIONS = designs.DISTRIBUTIONS
METHODS = ("studentized", "expanded")
STEPS, RHO, LIFT = 10, 0.8, 2.0
#: points of the stratified quantiles behind each truth (a truth's error is far below a band's width)
TRUTH_POINTS = 20_000


def location():
    """(steps,) the agent's location in noise units: a learning curve rising from -LIFT to 0 at the last step."""
    progress = 1.0 - np.exp(-3.0 * np.linspace(0.0, 1.0, STEPS))
    return LIFT * (progress / progress[-1] - 1.0)


def _deviations(z, distribution):
    """The distribution's standardised deviations from standard normal ``z`` by its quantile transform."""
    if distribution == "skewed":
        return designs._lognormal(z)
    if distribution == "heavy_tailed":
        from scipy import stats

        return stats.t.ppf(stats.norm.cdf(z), designs.T_DF) / math.sqrt(designs.T_DF)
    return z  # normal, and capped (cut by designs.scores)


def truth(statistic, distribution, offset, scale):
    """(steps,) the statistic of the score distributions at each step, from stratified quantiles."""
    out = np.empty(STEPS)
    for s, loc in enumerate(location()):
        scores = designs.population(distribution, loc, offset, scale, points=TRUTH_POINTS)  # (tasks, points)
        if statistic == "iqm":
            pooled = np.sort(scores.ravel())
            cut = pooled.size // 4
            out[s] = pooled[cut:pooled.size - cut].mean()
        else:
            means = scores.mean(axis=1)
            out[s] = means.mean() if statistic == "mean" else np.median(means)
    return out


def simulate(agents, runs, distribution, offset, scale, rng):
    """Long frame of alike agents x tasks x runs x steps: Gaussian AR(1) over steps, then the distribution."""
    shape = (agents, offset.size, runs)
    z = np.empty(shape + (STEPS,))
    z[..., 0] = rng.normal(size=shape)
    for s in range(1, STEPS):
        z[..., s] = RHO * z[..., s - 1] + math.sqrt(1 - RHO ** 2) * rng.normal(size=shape)
    scores = designs.scores(distribution, _deviations(z, distribution), location(),
                            offset[None, :, None, None], scale[None, :, None, None])
    a, t, r, s = np.meshgrid(np.arange(agents), np.arange(offset.size), np.arange(runs), np.arange(STEPS),
                             indexing="ij")
    return pd.DataFrame({"agent": [f"a{i}" for i in a.ravel()], "task": [f"t{i:02d}" for i in t.ravel()],
                         "seed": r.ravel(), "step": s.ravel(), "score": scores.ravel()})


def expanded_bands(data, statistic, n_resamples, rng):
    """(pointwise, simultaneous) of ``bands="expanded"`` on the default call's resamples (the same ``rng``): the
    bands users get with that option. Not read off the default result's resamples, which are NaN at the steps its
    studentised rule withholds (audit s20: there they gave a band of one point, and the median's row at 5 tasks of 2
    capped runs covered 0.495 where the option's bands cover 0.908)."""
    res = curves(data, "score ~ agent | task/seed", step="step", statistic=statistic, bands="expanded",
                 n_resamples=n_resamples, normalize=False, rng=rng, progress=False)
    return res.pointwise, res.simultaneous


def oracle_width(distribution, runs, offset, scale, level=0.95):
    """(pointwise, simultaneous) mean width over steps of the bands of the mean with the true standard errors:
    the normal interval, and the sup-z band at the latent AR(1)'s correlation (the oracle of issue 40 item 3)."""
    from scipy import stats

    variance = np.array([designs.population(distribution, loc, points=TRUTH_POINTS).var() for loc in location()])
    se = np.sqrt(np.sum(scale ** 2) * variance / runs) / scale.size
    return 2 * stats.norm.isf((1 - level) / 2) * se.mean(), 2 * _sup_z(level) * se.mean()


_SUP_Z = {}  # level: the sup-z critical value, made once a process (a dict, as joblib ships it)


def _sup_z(level):
    """The ``level`` quantile of max |z| over the steps of the latent AR(1) (200,000 draws, one fixed stream: the
    same for every design, 0.1 s of CPU a call)."""
    if level not in _SUP_Z:
        lags = np.abs(np.subtract.outer(np.arange(STEPS), np.arange(STEPS)))
        z = np.random.default_rng(1).multivariate_normal(np.zeros(STEPS), RHO ** lags, size=200_000)
        _SUP_Z[level] = np.quantile(np.abs(z).max(axis=1), level)
    return _SUP_Z[level]


def _width(band):
    """(agents,) the mean width over the steps where the band is given (NaN where it is withheld)."""
    with np.errstate(invalid="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore", RuntimeWarning)
        return np.nanmean(np.where(np.isfinite(band).all(axis=-1), band[..., 1] - band[..., 0], np.nan), axis=1)


def _held(band, true):
    """(agents,) simultaneous: every given step holds the truth; (agents,) pointwise: the share of given steps
    that hold it; NaN where the band is withheld at every step."""
    given = np.isfinite(band).all(axis=-1)
    inside = (band[..., 0] <= true) & (true <= band[..., 1])
    with np.errstate(invalid="ignore"):
        every = np.where(given.any(axis=1), (inside | ~given).all(axis=1), np.nan)
        share = np.where(given.any(axis=1), (inside & given).sum(axis=1) / given.sum(axis=1), np.nan)
    return every, share


def measure(statistic, runs, tasks, distribution, agents, n_sim, n_resamples=400, seed=0, draws=None):
    """One grid point: rows for the simultaneous and pointwise bands of each method, the difference band and
    max-T, pooled over ``designs.DESIGN_DRAWS`` design draws (``n_sim`` data sets in all)."""
    draws = designs.DESIGN_DRAWS if draws is None else draws
    key = [seed, STATISTICS.index(statistic), runs, tasks, DISTRIBUTIONS.index(distribution), agents]
    held = {(m, b): [] for m in METHODS for b in ("simultaneous", "pointwise")}
    held.update({(None, "difference"): [], (None, "max_t"): []})
    widths = {k: [] for k in held}
    oracle = {"pointwise": [], "simultaneous": []}
    for draw in range(draws):
        offset, scale = designs.design_draw(draw, tasks)
        true = truth(statistic, distribution, offset, scale)
        if statistic == "mean":
            for band, w in zip(("pointwise", "simultaneous"), oracle_width(distribution, runs, offset, scale)):
                oracle[band].append(w)
        data_seed, curves_seed = np.random.SeedSequence(key + [draw]).spawn(2)
        rng = np.random.default_rng(data_seed)
        got = {k: [] for k in held}
        for child in curves_seed.spawn(n_sim // draws):
            data = simulate(agents, runs, distribution, offset, scale, rng)
            res = curves(data, "score ~ agent | task/seed", step="step", statistic=statistic, compare="all",
                         n_resamples=n_resamples, normalize=False, rng=child)
            for method, (pointwise, simultaneous) in (("studentized", (res.pointwise, res.simultaneous)),
                                                      ("expanded", expanded_bands(data, statistic, n_resamples,
                                                                                  child))):
                got[method, "simultaneous"].append(_held(simultaneous, true)[0])
                got[method, "pointwise"].append(_held(pointwise, true)[1])
                widths[method, "simultaneous"].append(_width(simultaneous))
                widths[method, "pointwise"].append(_width(pointwise))
            got[None, "difference"].append(~((res.difference_bands[..., 0] > 0)
                                              | (res.difference_bands[..., 1] < 0)).any(axis=1))
            got[None, "max_t"].append(~(res.difference_pvalues <= res.alpha).any(axis=1))
        for k, values in got.items():
            held[k].append(np.concatenate(values).astype(float))
    rows = []
    for (method, band), by_draw in held.items():
        withheld = float(np.mean(np.isnan(np.concatenate(by_draw))))
        given = [h[np.isfinite(h)] for h in by_draw]
        if not all(g.size for g in given):
            continue  # withheld in a whole draw: nothing to measure (the result says why)
        if band == "pointwise":  # a share of steps per band: the rate, with the bands as the binomial count
            row = designs.pooled_row([g >= 0.5 for g in given], 0.95)
            row["coverage"] = float(np.concatenate(given).mean())
            row["coverage_min"] = float(min(g.mean() for g in given))
            row["se"] = math.sqrt(max(row["coverage"] * (1 - row["coverage"]), 0.95 * 0.05) / row["n_sim"])
        else:
            row = designs.pooled_row([g > 0.5 for g in given], 0.95)
        width = float(np.nanmedian(np.concatenate(widths[method, band]))) if widths[method, band] else math.nan
        # width (median over data sets of the mean width over steps) and the oracle's: read by widths(), not
        # written to the table
        rows.append({"statistic": statistic, "band": band, "interval": method or "", "runs": runs, "tasks": tasks,
                     "distribution": distribution, "agents": agents, "n_resamples": n_resamples,
                     **row, "width": width, "withheld": withheld,
                     "oracle_width": float(np.mean(oracle[band])) if oracle.get(band) else math.nan})
    return rows


def grid(quick=False, statistics=STATISTICS, runs=RUNS, tasks=TASKS, distributions=DISTRIBUTIONS):
    """Every (statistic, runs, tasks, distribution) with 2 agents; the median of one task's mean is the mean (left
    out; on 2 tasks the median's rows measure the mean's bands it is given there, :data:`MEAN_BANDS`), and 2 runs
    only with 5 tasks (where the bands are withheld). The bands are each agent's, so more agents
    add nothing but pairs to the difference rows, whose multiplicity is over steps, within a pair.

    --quick: the mean and the IQM at 3 and 10 runs of 5 tasks.
    """
    if quick:
        statistics, runs, tasks = ("mean", "iqm"), (3, 10), (5,)
    return [(stat, r, t, dist, k) for stat, r, t, dist, k in designs.grid(statistics, runs, tasks, distributions, (2,))
            if not (stat == "median" and t == 1) and not (r == 2 and t != 5)]


def widths(points, n_sim=40, n_resamples=400):
    """Table of the studentised bands' median width over the expanded bands' and the oracle's (the mean)."""
    out = []
    for point in points:
        rows = {(r["interval"], r["band"]): r for r in measure(*point, n_sim, n_resamples=n_resamples)}
        for band in ("pointwise", "simultaneous"):
            new, old = rows.get(("studentized", band)), rows.get(("expanded", band))
            out.append({"point": "-".join(map(str, point)), "band": band,
                        "coverage": new["coverage"] if new else math.nan,
                        "coverage_expanded": old["coverage"] if old else math.nan,
                        "vs_expanded": new["width"] / old["width"] if new and old else math.nan,
                        "vs_oracle": new["width"] / new["oracle_width"] if new else math.nan,
                        "expanded_vs_oracle": old["width"] / old["oracle_width"] if old else math.nan})
    return pd.DataFrame(out)


PROCEDURE, LEVEL = "curves.band", 0.95
#: simulated data sets per grid point (over all design draws): the table's, and --quick's
SIMULATIONS = (60, 40)
#: data sets of a grid point where a default's row misses with SIMULATIONS: 15 per design draw give a row of an
#: exact test (max-T relabels alike agents' runs within tasks) a 2% chance to miss in its worst draw, so that of 188
#: such rows some would miss by chance; 100 per draw tell chance from a shortfall. Since audit s27 (maxt27) they are
#: fresh data sets (``measure``'s ``seed`` ``CONTINUATION_SEED``), and the row is theirs alone: the data sets that
#: triggered the continuation do not decide it (before, the same data sets continued kept the first 60 among the 400,
#: a selection toward a miss)
EXTENDED = 400
#: the seed of a continuation's data sets (the first stage's is 0): chosen before it was run, never tuned
CONTINUATION_SEED = 1
#: audit s25 (cal25): the grid points at 3, 5 and 10 runs with a default row (studentised band, difference band,
#: max-T) below 0.95 but within 2 SE of it on SIMULATIONS data sets, measured on ``MORE_DATA_SETS`` times as many
#: (the same data sets, continued: the first SIMULATIONS among them, so the ones that selected the point stay in);
#: ``calibrate.py --replace`` re-measures them alone. Audit s27 (curves27) added the 2-task points at 3-10 runs whose
#: default row sat below 0.95 without missing on SIMULATIONS data sets (the last 14: 0.883-0.946 of 60 or 120)
REMEASURED = {(statistic, int(runs), int(tasks), distribution, 2) for statistic, runs, tasks, distribution in (
    point.split(":") for point in """
    mean:3:5:skewed mean:3:26:capped mean:3:26:skewed mean:5:1:skewed mean:5:5:skewed mean:5:26:capped iqm:5:26:normal
    iqm:5:26:skewed iqm:3:5:skewed iqm:3:26:capped median:3:5:capped median:3:26:capped mean:3:26:heavy_tailed
    iqm:3:26:normal median:3:26:normal mean:5:1:capped mean:5:5:capped iqm:5:1:skewed iqm:5:1:capped iqm:5:5:capped
    median:5:26:skewed mean:5:1:normal mean:5:1:heavy_tailed iqm:5:5:normal iqm:5:5:heavy_tailed median:5:5:normal
    mean:10:1:skewed mean:10:5:skewed mean:10:26:skewed iqm:10:1:skewed iqm:10:5:capped iqm:10:26:capped
    median:10:5:skewed median:10:5:capped mean:10:1:normal mean:10:26:heavy_tailed iqm:10:5:normal iqm:10:26:normal
    median:10:5:normal median:10:26:heavy_tailed
    mean:5:2:normal mean:5:2:skewed mean:5:2:heavy_tailed mean:10:2:heavy_tailed iqm:3:2:skewed iqm:3:2:heavy_tailed
    iqm:5:2:normal iqm:10:2:normal iqm:10:2:skewed iqm:10:2:heavy_tailed iqm:10:2:capped median:5:2:normal
    median:5:2:capped median:10:2:heavy_tailed
    """.split())}
MORE_DATA_SETS = 4


#: The ``configuration`` of the median's rows on 2 tasks (audit s27 curves27): there ``curves()`` gives the median
#: the mean's bands (the median of 2 task means is their mean), so its rows measure those; they are the median's
#: default rows (``rlstats.calibration.DEFAULTS`` reads no ``configuration`` for ``curves.band``)
MEAN_BANDS = "the mean's bands"


def configuration(point):
    """``MEAN_BANDS`` at a grid point of the median on 2 tasks (where ``curves()`` gives it the mean's bands), else
    ``""``."""
    from rlstats.statistics import median_is_mean

    statistic, _, tasks = point[:3]
    return MEAN_BANDS if statistic == "median" and median_is_mean(tasks) else ""


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``); on ``MORE_DATA_SETS``
    times ``n_sim`` data sets at the points of ``REMEASURED``; where a default's row (studentised band, difference
    band, max-T) misses its level there, the rows of ``EXTENDED`` fresh data sets (``CONTINUATION_SEED``) alone."""
    from rlstats import calibration

    if not quick and tuple(point) in REMEASURED:
        n_sim *= MORE_DATA_SETS
    rows = measure(*point, n_sim, n_resamples=200 if quick else 300)
    if not quick and n_sim < EXTENDED and any(
            calibration.is_default({"procedure": PROCEDURE, **{k: str(v) for k, v in row.items()}})
            and calibration.misses({k: str(v) for k, v in row.items()}, LEVEL) for row in rows):
        rows = measure(*point, EXTENDED, n_resamples=300, seed=CONTINUATION_SEED)
    return [{**row, "configuration": configuration(point)} for row in rows]


def point_of(row):
    """The grid point (statistic, runs, tasks, distribution, agents) of a table row (``calibrate.replace_points``)."""
    return row["statistic"], int(row["runs"]), int(row["tasks"]), row["distribution"], int(row["agents"])



def checkpoint_rows(paths, points):
    """The rows of ``--jsonl`` checkpoint files in the order of ``points`` (a script's grid; the last line of a point
    where it was run twice): the one reading of the checkpoints coverage_curves_early.py and coverage_far_apart.py
    write."""
    import json

    found = {}
    for path in paths:
        for line in pathlib.Path(path).read_text().splitlines():
            entry = json.loads(line)
            found[tuple(entry["point"])] = entry["table_rows"]
    order = {point: i for i, point in enumerate(points)}
    return [row for point in sorted(found, key=order.__getitem__) for row in found[point]]

if __name__ == "__main__":
    runpy.run_path(str(pathlib.Path(__file__).with_name("calibrate.py")))["run_alone"](PROCEDURE)
