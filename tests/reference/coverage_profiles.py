"""Pointwise coverage of the performance profile's bands: the ``bootstrap.profile`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only bootstrap.profile [--jobs 1] [--quick]

(or this script with the same options). ``rlstats.performance_profile`` with ``kind="runs"`` (the fraction of runs
above tau, averaged over tasks) claims that at each threshold tau its 95% band holds the true profile. Two bands are
measured on the same data sets, one row each (``interval``): the default ``"wilson"`` band (stratified Wilson score
interval with continuity correction) and the ``"percentile"`` band (stratified bootstrap, rliable's and the earlier
default), the latter with ``N_RESAMPLES[1]`` resamples (the function's default is 2,000; fewer keep the grid within
its CPU budget and move a percentile band's coverage by Monte Carlo noise only).

The claim is read at fixed points of the truth: the thresholds where the true profile is nearest 0.05, 0.1, 0.25,
0.5, 0.75, 0.9 and 0.95, each plus 0.001 (``PROFILE_VALUES``; ``configuration``, e.g. ``profile 0.251``), so a row's
``coverage`` is the share of simulated bands holding the truth at that one threshold. Scores follow
``tests/reference/designs.py``: four distributions (normal, skewed, heavy-tailed, capped), each task's scores
``offset + scale * deviation`` with ``DESIGN_DRAWS`` draws of the tasks' offsets and scales pooled per row
(``coverage_min`` is the worst draw), 1, 5 or 26 tasks, 2 to 20 runs per task. The true profile is the mean over
tasks of each task's share of its population (stratified quantiles) above tau, exact to 1 / (tasks x ``POINTS``).
With capped scores a third of the runs tie at each task's ceiling and the profile jumps there: a value it jumps over
is read at the threshold whose truth is nearest to it (with one task, 0.05 to 0.25 all read the truth 1/3 just below
the ceiling).

Each data set holds ``AGENTS`` agents at location 0, each band one simulation (``n_sim`` counts bands). The bands
depend on the data only through each task's count of runs above tau, so the distribution matters through the
tasks' shares above tau, which the design draws spread. ``grid`` lists (distribution, tasks, runs), ``--quick`` two
of them. ``widths`` gives each band's median width per profile value, for the width comparison of issue 40 item 3.

Measured (``calibrate.py --only bootstrap.profile --jobs 1``: 60 grid points in 18 minutes on a shared machine): the
Wilson band held 95% in all 420 rows (lowest 0.955 pooled, 0.944 in a design draw, 4,000 bands per row); the
percentile band missed by more than 3 SE in 344 of 420 (lowest 0.085 at 2 runs on one task; median row 0.78 at 3
runs, 0.89 at 5, 0.92 at 10). Median width at 10 runs, one design draw, 100 bands (``widths``): the Wilson band is
1.21-1.28 times the percentile band on 26 tasks, 1.35-1.42 on 5 and 1.51 on one (0.98 for capped scores, where the
profile values read 1/3), and 0.97-1.26 times the oracle (the normal interval with the true variance), which the
percentile band undershoots (0.81-0.97 of it). Above 1.3 the extra width is the continuity correction of half a
step 1 / (T n) and the variance at a common share: without them, in a binomial simulation of the same grid (two
design draws), the uncorrected Wilson interval's lowest row per run count was 0.84-0.92 on one task, and the
stratified score interval's (each task's own share under the constraint) 0.85 and 0.90 on 26 tasks at 3 and 5
runs.
"""

from __future__ import annotations

import dataclasses
import pathlib
import runpy

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
PROCEDURE, LEVEL = "bootstrap.profile", 0.95
#: data sets per grid point and design draw (each of AGENTS bands) for the Wilson band: the table's, and --quick's;
#: the percentile band is measured on the first PERCENTILE_SHARE of them (its resamples are the grid's cost)
SIMULATIONS = (50, 5)
PERCENTILE_SHARE = 0.25
AGENTS = 20
#: resamples of the percentile band: the function's default, and the table's
N_RESAMPLES = (2000, 500)
TASKS = (1, 5, 26)
RUNS = (2,) + DESIGNS["RUNS"]
DISTRIBUTIONS = DESIGNS["DISTRIBUTIONS"]
INTERVALS = ("wilson", "percentile")
#: True profile values at which the bands are read: 0.05 to 0.95, each 0.001 up, so that none is a fraction
#: k / (tasks x runs) the estimate can take (there floating-point rounding, not the band, would decide)
PROFILE_VALUES = (0.051, 0.101, 0.251, 0.501, 0.751, 0.901, 0.951)
POINTS = 20_000  # stratified quantiles per task for the truth


def truth(distribution, tasks, draw, values=PROFILE_VALUES, points=POINTS):
    """(tau, true profile at tau): per value, the threshold whose true profile is nearest it (design draw ``draw``).

    The true profile at tau is the mean over tasks of the share of the task's population strictly above tau; it
    only steps at population values, so the candidates are those values, where it is strictly between 0 and 1.
    """
    offset, scale = DESIGNS["design_draw"](draw, tasks)
    population = DESIGNS["population"](distribution, 0.0, offset, scale, points=points)  # (tasks, points)
    pooled = np.sort(population.ravel())  # every task has `points` values: the equal-weight mixture
    candidates = np.unique(pooled)
    above = 1.0 - np.searchsorted(pooled, candidates, side="right") / pooled.size
    inside = (above > 0) & (above < 1)  # a truth of 0 or 1 would be held by any band containing the estimate
    candidates, above = candidates[inside], above[inside]
    index = [int(np.argmin(np.abs(above - v))) for v in values]
    return candidates[index], above[index]


def template(tasks, runs, agents=AGENTS):
    """The balanced design (every agent ``runs`` times on every task) that each simulated data set refills."""
    from rlstats.design import design_of

    task, agent, seed = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    frame = pd.DataFrame({"task": [f"t{t:02d}" for t in task.ravel()], "agent": [f"a{a}" for a in agent.ravel()],
                          "seed": seed.ravel(), "score": 0.0})
    return design_of(frame, "score ~ agent | task/seed")


def held(distribution, tasks, runs, draw, n_sim, seed=0, n_resamples=N_RESAMPLES[1], share=PERCENTILE_SHARE):
    """{interval: (bands, values) bool, whether each band held the truth}, and {interval: (bands, values) widths}.

    The percentile band is measured on the first ``share`` of the ``n_sim`` data sets (none when 0).
    """
    import rlstats

    design = template(tasks, runs)
    offset, scale = DESIGNS["design_draw"](draw, tasks)
    tau, true = truth(distribution, tasks, draw)
    key = [seed, tasks, runs, DISTRIBUTIONS.index(distribution), draw]
    data_seed, band_seed = np.random.SeedSequence(key).spawn(2)
    rng = np.random.default_rng(data_seed)
    hits = {interval: [] for interval in INTERVALS}
    widths = {interval: [] for interval in INTERVALS}
    n_percentile = int(round(share * n_sim))
    for i, child in enumerate(band_seed.spawn(n_sim)):
        deviation = DESIGNS["deviations"](rng, distribution, design.y.size)
        y = DESIGNS["scores"](distribution, deviation, 0.0, offset[design.task], scale[design.task])
        data = dataclasses.replace(design, y=y)
        for interval in INTERVALS[:1] if i >= n_percentile else INTERVALS:
            res = rlstats.performance_profile(data, tau=tau, interval=interval, n_resamples=n_resamples, rng=child)
            low, high = res.intervals[..., 0], res.intervals[..., 1]
            hits[interval].append((low <= true) & (true <= high))
            widths[interval].append(high - low)
    return ({k: np.concatenate(v) for k, v in hits.items() if v},
            {k: np.concatenate(v) for k, v in widths.items() if v})


def measure(distribution, tasks, runs, n_sim, seed=0, n_resamples=N_RESAMPLES[1], draws=None):
    """Rows of one design: per band and profile value, the pooled coverage over the design draws."""
    pooled_row = DESIGNS["pooled_row"]
    draws = range(DESIGNS["DESIGN_DRAWS"]) if draws is None else draws
    by_draw = [held(distribution, tasks, runs, draw, n_sim, seed, n_resamples)[0] for draw in draws]
    rows = []
    for interval in INTERVALS:
        for j, value in enumerate(PROFILE_VALUES):
            row = pooled_row([h[interval][:, j] for h in by_draw], LEVEL)
            rows.append({"band": "pointwise", "interval": interval, "metric": "runs", "tasks": tasks, "runs": runs,
                         "distribution": distribution, "configuration": f"profile {value:g}",
                         "n_resamples": n_resamples if interval == "percentile" else "", **row})
    return rows


def widths(distribution, tasks, runs, n_sim, seed=0, n_resamples=N_RESAMPLES[1], draw=0):
    """{interval: (values,) median band width} on one design draw, both bands on the same data sets."""
    _, width = held(distribution, tasks, runs, draw, n_sim, seed, n_resamples, share=1.0)
    return {interval: np.median(w, axis=0) for interval, w in width.items()}


def grid(quick=False):
    """(distribution, tasks, runs): every combination; --quick: normal scores on 5 tasks at 3 runs, capped on 26 at
    10."""
    return DESIGNS["grid"](DISTRIBUTIONS, TASKS, RUNS, quick=quick, quick_points=[("normal", 5, 3), ("capped", 26, 10)])


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim)


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
