"""Coverage of the bootstrap back end's intervals at few runs per task: the ``bootstrap.interval`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only bootstrap.interval [--jobs 2] [--quick]

(or this script with the same options; ``--default-only`` re-measures the default (studentized) rows and the
former defaults' (``studentized_no_welch``, the default before audit s20's Welch floor, the mean's and optimality
gap's rows alone, and ``studentized_unwidened``, the mean's and median's alone: the others are the default's), in
place (``--continue heavy_tailed,5,20``: that grid point's alone, continued to ``CONTINUED_SIMULATIONS`` data sets
a draw (1,920 intervals a row) whatever its rows read; the points the table holds so are ``CONTINUED_POINTS``, which
every run continues); ``--widths`` prints the median width table of issue 40 item 3 instead, and
``--widths --improvement`` that of the probability of improvement at 10 runs; ``--runs 5,10`` and ``--datasets N``
narrow the width table). The
grid is issue 40's (``tests/reference/designs.py``): the four score distributions, 1, 2 (audit s24), 5 or 26 tasks,
2, 3, 5, 10 or 20 runs per task. Each row pools ``designs.DESIGN_DRAWS`` draws of the tasks' offsets and scales
(``designs.pooled_row``): per draw, data sets of four agents, B and D placed ``SHIFT`` noise units above A and C,
nominal 95% intervals of every kind, and whether they hold the exact truth of each metric (from the stratified
quantiles of ``designs.population``). A row's ``n_sim`` counts intervals: four agents per data set for the metrics,
two pairs per data set for the probability of improvement; the default (studentized) rows are measured on
``DEFAULT_SIMULATIONS`` data sets per draw, the first ``SIMULATIONS`` of them those of the other kinds, and a grid
point where one of them misses, or holds only by its Monte Carlo error (below the level by more than
``CONTINUE_SE`` SE), is continued to ``CONTINUED_SIMULATIONS`` (:func:`continued`). A default interval withheld by
the rule of runs at a cap (``BootstrapResult.saturated``: its own note and way on, no claim) is not counted:
``n_sim`` counts the intervals given, and each row carries ``withheld`` (not a table column; ``--default-only``
prints it), as ``coverage_one_task.py``'s rows do (audit s20). Any other interval that was withheld or could not be
formed (NaN) counts as not holding; where the default (``studentized``) withholds by design (fewer than 3 runs per
task, or a single task) it has no row here: its one-task rows, 3-200 runs, are ``coverage_one_task.py``'s (audit s19). The probability of improvement's default (``score``, resample-free) is measured on
``SCORE_SIMULATIONS`` data sets per draw, the first of them those of the other intervals. Results quote, per (interval, metric) and runs, the lowest and highest coverage over
the settings (``rlstats.methods.bootstrap._small_runs.coverage_note``).
"""

from __future__ import annotations

import math
import pathlib
import runpy
import sys
import warnings

import numpy as np
import pandas as pd

import rlstats
from rlstats.methods.bootstrap import _api
from rlstats.methods.bootstrap import _small_runs as small_runs

HERE = pathlib.Path(__file__).resolve().parent
designs = runpy.run_path(str(HERE / "designs.py"))
PROCEDURE, LEVEL = "bootstrap.interval", 0.95
#: data sets per design draw and grid point: the table's, and --quick's
SIMULATIONS = (10, 4)
#: data sets per design draw for the default (studentized) rows, the first ones those of the other intervals: the
#: rows that carry the claim "at its level" get three times the data (480 intervals a row), the same CPU as the
#: other kinds' rows together
DEFAULT_SIMULATIONS = (30, 4)
#: data sets per design draw to which a grid point is continued where one of its default rows misses (the same
#: stream: the first DEFAULT_SIMULATIONS are the same data sets), by the rule the curves' and the equivalence test's
#: rows follow (docs/calibration.md): it favours a row that missed by chance, which is what it is for
CONTINUED_SIMULATIONS = 120
#: a default row this many SE below its level (pooled or in a draw) is continued: it misses (3 SE), or holds only by
#: its Monte Carlo error (audit s20: the mean's 0.925 and the optimality gap's 0.929 of 480 at 5 tasks x 20
#: heavy-tailed runs held by 0.005 and read 0.930 and 0.928 of 1,920, below 0.935; on the cell streams of audit s33
#: 0.931 and 0.933 of 480 and 0.928 and 0.930 of 1,920: ``CONTINUED_POINTS``)
CONTINUE_SE = 2
#: grid points continued to ``CONTINUED_SIMULATIONS`` by name, whatever their rows read (``--continue`` names more for
#: one run): 5 tasks x 20 heavy-tailed runs, whose former default's (``studentized_no_welch``) misses on 1,920
#: intervals are the Welch floor's evidence (audit s20). On the bootstrap's cell streams of audit s33 its rows of 480
#: read 0.93125 and 0.933333, above the 2-SE line (0.930), so the rule alone would keep them at 480 and they would read
#: as holding; continued (audit s35 former35b) they miss as before
CONTINUED_POINTS = (("heavy_tailed", 5, 20),)
N_RESAMPLES = 500
AGENTS = "ABCD"
METRICS = ("iqm", "mean", "median", "optimality_gap")
INTERVALS = ("studentized", "percentile", "basic", "bca", "expanded", "studentized_no_welch", "studentized_unwidened")
#: the former defaults' rows: only these metrics' differ from the default's, and they come from its call
FORMER_METRICS = {"studentized_unwidened": ("mean", "median"),
                  "studentized_no_welch": small_runs.WELCH_FLOOR_METRICS}
UNWIDENED_METRICS = FORMER_METRICS["studentized_unwidened"]
IMPROVEMENT_INTERVALS = ("percentile", "expanded")
#: data sets per design draw for the score interval of the probability of improvement (the default), which needs no
#: resamples: more of them, so its rows are as sharp as the claim "at its level" needs (400 intervals a row)
SCORE_SIMULATIONS = (50, 10)
RUNS = (2,) + tuple(designs["RUNS"])
#: 2 tasks: audit s24 (cal24), so that a design of 2 to 4 tasks reads measured 2-task rows beside the 5-task ones rather
#: than the 1-task rows (``rlstats.calibration.bracketing_counts``); written in place by
#: ``calibrate.py --only bootstrap.interval --replace "*:2:*"`` (seeds as every point's, ``runs * 100 + tasks``)
TASKS = (1, 2, 5, 26)
GAMMA = 1.0
SHIFT = 0.3  # agents B and D sit this far above A and C, in noise units (probability of improvement below 1/2)
#: fewest runs per task at which the default interval is given (rlstats' STUDENTIZED_MIN_RUNS)
DEFAULT_MIN_RUNS = 3


def truths(distribution, offset, scale, location):
    """Exact metrics of one agent's population (tasks weigh equally: every task has the same runs)."""
    population = designs["population"](distribution, location, offset, scale)  # (tasks, points)
    pooled = np.sort(population.ravel())
    cut = pooled.size // 4
    task_means = population.mean(axis=1)
    return {"iqm": pooled[cut:pooled.size - cut].mean(), "mean": task_means.mean(), "median": np.median(task_means),
            "optimality_gap": np.maximum(GAMMA - pooled, 0).mean()}


def improvement_truth(distribution):
    """P(X > Y) + P(X = Y) / 2 of a run at location 0 against one at SHIFT (the same in every task)."""
    x = designs["population"](distribution, 0.0)
    y = np.sort(designs["population"](distribution, SHIFT))
    below = np.searchsorted(y, x, side="left")
    through = np.searchsorted(y, x, side="right")
    return float(np.mean(below + (through - below) / 2) / y.size)


def frame(scores):
    """Long frame of {agent: (runs, tasks) scores}."""
    parts = []
    for agent, values in scores.items():
        runs, tasks = values.shape
        parts.append(pd.DataFrame({"agent": agent, "task": np.tile([f"t{t:02d}" for t in range(tasks)], runs),
                                   "score": values.ravel()}))
    return pd.concat(parts, ignore_index=True)


def draw_design(distribution, tasks, runs, draw, n_datasets, seed):
    """Yield (data, truths per agent) for ``n_datasets`` data sets of one design draw."""
    offset, scale = designs["design_draw"](draw, tasks)
    by_location = [truths(distribution, offset, scale, SHIFT * k) for k in (0, 1)]
    truth = {a: by_location[i % 2] for i, a in enumerate(AGENTS)}
    rng = np.random.default_rng([seed, draw, tasks, runs])
    for _ in range(n_datasets):
        scores = {a: designs["scores"](distribution, designs["deviations"](rng, distribution, (runs, tasks)),
                                       SHIFT * (i % 2), offset, scale) for i, a in enumerate(AGENTS)}
        yield frame(scores), truth


def bounds_of(res, interval):
    """(K, M, 2) the ``interval`` bounds of bootstrap result ``res``'s own resamples, as ``rlstats.bootstrap`` forms
    them (the same package function on the same arguments; tests/test_small_runs.py checks they are equal), so one
    call gives the percentile, basic and expanded intervals of a data set (and the default's call the former
    default's, ``studentized_unwidened``)."""
    if interval == res.interval:
        return res.intervals
    if interval in FORMER_METRICS:  # the default's call without the skew widening, or without the Welch t floor
        bounds, _, _ = small_runs.bootstrap_bounds(
            res.bootstrap_distribution, res.estimates, res.confidence_level, interval, None, None, False,
            res.counts.min(axis=0), res.degrees_of_freedom, (res.resampled_standard_errors, res.standard_errors),
            res.metrics, res.n_tasks, res.skewness if interval in small_runs.WIDENED_INTERVALS else None)
        return bounds
    df = _api._welch_df(res.design) if interval == "expanded" else None
    bounds, _, _ = small_runs.bootstrap_bounds(res.bootstrap_distribution, res.estimates, res.confidence_level, interval,
                                            None, None, False, res.counts.min(axis=0), df)
    return bounds


def improvement_bounds(res, interval):
    """(P, 2) the ``interval`` bounds of probability-of-improvement result ``res`` (from its resamples, or for the
    score interval its estimates and runs), as the function forms them (its agents and counts stand for the design)."""
    if interval == "percentile":
        return res.intervals
    if interval == "score":
        return small_runs.score_bounds(res.estimates, *_api._pair_counts(res, res.pairs), res.confidence_level)
    fewest, df = _api._pair_runs(res, res.pairs)
    return small_runs.expanded_bounds(res.bootstrap_distribution, res.estimates, res.confidence_level, fewest, df)[0]


def measure(distribution, tasks, runs, n_datasets, seed=0, n_resamples=N_RESAMPLES, intervals=INTERVALS,
            improvement_intervals=IMPROVEMENT_INTERVALS, draws=None, default_datasets=None):
    """One grid point: a row per (interval, metric), pooling ``draws`` design draws of ``n_datasets`` data sets
    (``default_datasets``, at least as many, for the default studentized interval: the first ``n_datasets`` are
    those of the other kinds)."""
    draws = designs["DESIGN_DRAWS"] if draws is None else draws
    default_datasets = n_datasets if default_datasets is None else max(n_datasets, default_datasets)
    target = improvement_truth(distribution)
    held, offered = {}, {}
    for draw in range(draws):
        for d, (data, truth) in enumerate(draw_design(distribution, tasks, runs, draw, default_datasets, seed)):
            calls = {}
            for interval in intervals:
                studentized = interval in small_runs.STUDENTIZED_INTERVALS
                if studentized and (runs < DEFAULT_MIN_RUNS or tasks < 2):
                    continue  # withheld by design: no row
                if not studentized and d >= n_datasets:
                    continue  # the default's extra data sets
                # percentile, basic and expanded intervals come from the resamples of the first call, the former
                # default's from the default's
                own = ("studentized" if studentized else interval if interval == "bca" or not calls
                       else next(iter(calls)))
                if own not in calls:
                    calls[own] = rlstats.bootstrap(data, "score ~ agent | task", metrics=METRICS,
                                                   n_resamples=n_resamples, interval=own, rng=d)
                res = calls[own]
                bounds = bounds_of(res, interval)
                for j, metric in enumerate(METRICS):
                    if interval in FORMER_METRICS and metric not in FORMER_METRICS[interval]:
                        continue  # the default's rows, bit for bit
                    truth_j = np.array([truth[a][metric] for a in res.agents])
                    low, high = bounds[:, j, 0], bounds[:, j, 1]
                    got = (low <= truth_j) & (truth_j <= high)
                    offered[(interval, metric)] = offered.get((interval, metric), 0) + got.size
                    if interval in small_runs.WIDENED_INTERVALS and res.saturated is not None:
                        # withheld by the rule of runs at a cap (a note and a way on, no claim): not counted
                        got = got[~res.saturated[:, j]]
                    held.setdefault((interval, metric), [[] for _ in range(draws)])[draw].extend(got)
            if improvement_intervals and d < n_datasets:
                res = rlstats.probability_of_improvement(data, "score ~ agent | task", pairs=[("A", "B"), ("C", "D")],
                                                         n_resamples=n_resamples, interval="percentile", rng=d)
                for interval in improvement_intervals:
                    bounds = improvement_bounds(res, interval)
                    held.setdefault((interval, "probability_of_improvement"), [[] for _ in range(draws)])[draw].extend(
                        (bounds[:, 0] <= target) & (target <= bounds[:, 1]))
    rows = [{"interval": interval, "metric": metric, "tasks": tasks, "runs": runs, "distribution": distribution,
             "n_resamples": n_resamples, **designs["pooled_row"](by_draw, LEVEL)}
            for (interval, metric), by_draw in sorted(held.items())]
    for row in rows:  # not a table column (calibrate.merged keeps COLUMNS): the scripts print it
        row["withheld"] = offered.get((row["interval"], row["metric"]), row["n_sim"]) - row["n_sim"]
    return rows


def score_rows(distribution, tasks, runs, n_datasets, seed=0, draws=None):
    """The ``score`` rows of the probability of improvement at one grid point: the function's default interval,
    from its own (resample-free) bounds, on ``n_datasets`` data sets per design draw (the first ones those of
    :func:`measure`)."""
    draws = designs["DESIGN_DRAWS"] if draws is None else draws
    target = improvement_truth(distribution)
    held = [[] for _ in range(draws)]
    for draw in range(draws):
        for data, _ in draw_design(distribution, tasks, runs, draw, n_datasets, seed):
            res = rlstats.probability_of_improvement(data, "score ~ agent | task", pairs=[("A", "B"), ("C", "D")],
                                                     n_resamples=2, interval="score", rng=0)
            held[draw].extend((res.intervals[:, 0] <= target) & (target <= res.intervals[:, 1]))
    return [{"interval": "score", "metric": "probability_of_improvement", "tasks": tasks, "runs": runs,
             "distribution": distribution, "n_resamples": 0, **designs["pooled_row"](held, LEVEL)}]


def grid(quick=False):
    """(distribution, tasks, runs): every setting at every runs count; --quick: normal scores, 5 tasks, 3 runs."""
    if quick:
        return [("normal", 5, 3)]
    return [(dist, tasks, runs) for runs, dist, tasks in designs["grid"](RUNS, designs["DISTRIBUTIONS"], TASKS)]


def near_miss(row, level=LEVEL, se=CONTINUE_SE):
    """Whether ``row`` (a dict) is below ``level`` by more than ``se`` binomial SE at the level, pooled or in its
    worst design draw (``rlstats.calibration.misses`` at 3 SE)."""
    n_sim, draws = int(row["n_sim"]), int(row["design_draws"])
    return (float(row["coverage"]) < level - se * math.sqrt(level * (1 - level) / n_sim)
            or float(row["coverage_min"]) < level - se * math.sqrt(level * (1 - level) * draws / n_sim))


def continued(rows, point, quick=False, named=CONTINUED_POINTS):
    """``rows`` of one grid point with its default (studentized) rows measured again on ``CONTINUED_SIMULATIONS``
    data sets per draw where one of them is below its level by more than ``CONTINUE_SE`` SE (:func:`near_miss`:
    it misses, or holds by its Monte Carlo error alone), or where the point is one of ``named`` (``CONTINUED_POINTS``
    and ``--continue``'s); unchanged otherwise."""
    dist, tasks, runs = point
    # the former default's (studentized_no_welch) rows too: the default's contain its intervals (audit s20), so a point
    # is continued where either is below by 2 SE, as it was before the Welch floor
    if quick or (tuple(point) not in {tuple(p) for p in named}
                 and not any(row["interval"] in small_runs.WIDENED_INTERVALS and near_miss(row) for row in rows)):
        return rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = {(row["interval"], row["metric"]): row for row in measure(
            dist, tasks, runs, CONTINUED_SIMULATIONS, seed=runs * 100 + tasks, intervals=small_runs.WIDENED_INTERVALS,
            improvement_intervals=(), default_datasets=CONTINUED_SIMULATIONS)}
    return [again.get((row["interval"], row["metric"]), row) for row in rows]


#: The ``configuration`` of the default's median rows on 1 and 2 tasks (audit s26 median26): there the package gives the
#: median the mean's interval (``_small_runs.interval_kinds``), so those rows measure the median's own t interval, with
#: the substitution lifted (:func:`median_t_interval`), the one of 3 or more tasks whose notes read the 2-task rows as a
#: neighbour; they are not the default's rows (``rlstats.calibration.DEFAULTS`` counts ``configuration`` "" only).
MEDIAN_T = "t interval"


def median_t_interval():
    """The median's own t interval on 1 and 2 tasks too, while measuring (a context manager)."""
    from unittest import mock
    from rlstats import statistics
    return mock.patch.object(statistics, "MEDIAN_IS_MEAN_TASKS", 0)  # the rule's one home (statistics.median_is_mean)


def configuration(row):
    """``MEDIAN_T`` for a default median row on 1 or 2 tasks (:data:`MEDIAN_T`), else ``""``."""
    median_t = (row["interval"] == "studentized" and row["metric"] == "median"
                and rlstats.statistics.median_is_mean(int(row["tasks"])))
    return MEDIAN_T if median_t else ""


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    dist, tasks, runs = point
    with warnings.catch_warnings(), median_t_interval():
        warnings.simplefilter("ignore")  # the raw-scale warning: the design draws' scales differ on purpose
        rows = measure(dist, tasks, runs, n_sim, seed=runs * 100 + tasks,
                       default_datasets=DEFAULT_SIMULATIONS[quick])
        rows = continued(rows, point, quick)
        rows = sorted(rows + score_rows(dist, tasks, runs, SCORE_SIMULATIONS[quick], seed=runs * 100 + tasks),
                      key=lambda row: (row["interval"], row["metric"]))
    return [{**row, "configuration": configuration(row)} for row in rows]


# ----------------------------------------------------------------------------- widths (issue 40 item 3)


def oracle_se(distribution, offset, scale, location, runs, metric):
    """The true standard error of ``metric`` where it is a smooth mean (mean, optimality gap, IQM), else None."""
    population = designs["population"](distribution, location, offset, scale)
    tasks = population.shape[0]
    if metric == "mean":
        return float(np.sqrt(population.var(axis=1).sum() / runs) / tasks)
    if metric == "optimality_gap":
        return float(np.sqrt(np.minimum(population, GAMMA).var(axis=1).sum() * runs) / (runs * tasks))
    if metric == "iqm":  # the trimmed mean's influence: winsorised at the pooled quartiles, over the share kept
        pooled = np.sort(population.ravel())
        low, high = pooled[pooled.size // 4], pooled[-(pooled.size // 4) - 1]
        winsorised = np.clip(population, low, high)
        return float(np.sqrt(winsorised.var(axis=1).sum() * runs) / (runs * tasks * 0.5))
    return None


def median_oracle_se(distribution, offset, scale, location, runs, n_datasets=20_000, seed=11):
    """The true standard error of the median of task means (no closed form): the standard deviation of the estimates
    over ``n_datasets`` simulated data sets of the design."""
    rng = np.random.default_rng([seed, runs, offset.size])
    estimates = []
    for size in [2_000] * (n_datasets // 2_000):
        deviation = designs["deviations"](rng, distribution, (size, runs, offset.size))
        scores = designs["scores"](distribution, deviation, location, offset, scale)
        estimates.append(np.median(scores.mean(axis=1), axis=1))
    return float(np.std(np.concatenate(estimates), ddof=1))


def previous_default(res):
    """(K, M, 2) the studentised interval as issue 40's first version formed it from ``res``'s resamples: no floor
    on a resample's standard error, half-widths not scaled by sqrt(c / (c - 1)); the median's t interval is
    unchanged."""
    bounds, _ = small_runs.studentized_bounds(res.bootstrap_distribution, res.estimates,
                                              res.resampled_standard_errors, res.standard_errors, res.confidence_level)
    median = [j for j, m in enumerate(res.metrics) if m == "median"]
    bounds[:, median] = res.intervals[:, median]
    return bounds


def widths(points, n_datasets=25, seed=5, n_resamples=N_RESAMPLES):
    """Median width of the default interval against today's percentile one, the previous default
    (:func:`previous_default`), the former default without the skew widening (``studentized_unwidened``)
    and the oracle (estimate +- z * true SE; for the median the SE of its estimates over
    simulated data sets)."""
    from scipy import stats

    z = stats.norm.ppf(1 - (1 - LEVEL) / 2)
    rows = []
    for distribution, tasks, runs in points:
        ratio_old, ratio_oracle = {m: [] for m in METRICS}, {m: [] for m in METRICS}
        ratio_previous, ratio_symmetric = {m: [] for m in METRICS}, {m: [] for m in METRICS}
        for draw in range(designs["DESIGN_DRAWS"]):
            offset, scale = designs["design_draw"](draw, tasks)
            oracle = {m: oracle_se(distribution, offset, scale, 0.0, runs, m) for m in METRICS}
            oracle["median"] = median_oracle_se(distribution, offset, scale, 0.0, runs)
            for d, (data, _) in enumerate(draw_design(distribution, tasks, runs, draw, n_datasets, seed)):
                data = data[data["agent"].isin(["A", "C"])]  # the agents at location 0, whose oracle this is
                new, old = (rlstats.bootstrap(data, "score ~ agent | task", metrics=METRICS, n_resamples=n_resamples,
                                              interval=kind, rng=d) for kind in ("studentized", "percentile"))
                previous, symmetric = previous_default(new), bounds_of(new, "studentized_unwidened")
                for j, metric in enumerate(METRICS):
                    width = new.intervals[:, j, 1] - new.intervals[:, j, 0]
                    ratio_old[metric].extend(width / (old.intervals[:, j, 1] - old.intervals[:, j, 0]))
                    ratio_previous[metric].extend(width / (previous[:, j, 1] - previous[:, j, 0]))
                    ratio_symmetric[metric].extend(width / (symmetric[:, j, 1] - symmetric[:, j, 0]))
                    if oracle[metric]:
                        ratio_oracle[metric].extend(width / (2 * z * oracle[metric]))
        for metric in METRICS:
            rows.append({"distribution": distribution, "tasks": tasks, "runs": runs, "metric": metric,
                         "vs_percentile": float(np.nanmedian(ratio_old[metric])),
                         "vs_previous": float(np.nanmedian(ratio_previous[metric])),
                         "vs_symmetric": float(np.nanmedian(ratio_symmetric[metric])),
                         "vs_oracle": float(np.nanmedian(ratio_oracle[metric])) if ratio_oracle[metric] else np.nan})
    return pd.DataFrame(rows)


def improvement_widths(points, n_datasets=25, seed=5, n_resamples=N_RESAMPLES):
    """Median width of the probability of improvement's score interval (the default) against the percentile one and
    an oracle, estimate +- z * the standard deviation of the estimates over the simulated data sets."""
    from scipy import stats

    z = stats.norm.ppf(1 - (1 - LEVEL) / 2)
    rows = []
    for distribution, tasks, runs in points:
        score, percentile, estimates = [], [], []
        for draw in range(designs["DESIGN_DRAWS"]):
            for d, (data, _) in enumerate(draw_design(distribution, tasks, runs, draw, n_datasets, seed)):
                res = rlstats.probability_of_improvement(data, "score ~ agent | task", pairs=[("A", "B"), ("C", "D")],
                                                         n_resamples=n_resamples, interval="percentile", rng=d)
                new = improvement_bounds(res, "score")
                score.extend(new[:, 1] - new[:, 0])
                percentile.extend(res.intervals[:, 1] - res.intervals[:, 0])
                estimates.extend(res.estimates)
        score, percentile = np.array(score), np.array(percentile)
        rows.append({"distribution": distribution, "tasks": tasks, "runs": runs,
                     "vs_percentile": float(np.median(score / percentile)),
                     "vs_oracle": float(np.median(score) / (2 * z * np.std(estimates, ddof=1)))})
    return pd.DataFrame(rows)


def replace_default_rows(path=None, quick=False, points=None, named=CONTINUED_POINTS):
    """Re-measure only the default (studentized) rows, in place in the package table (``--default-only``; with
    ``--points dist:tasks:runs,...`` those grid points alone; ``--continue dist,tasks,runs`` that point alone,
    continued whatever its rows read: ``named``, :func:`continued`).

    The same data sets and seeds as the full run (:func:`measure` with the default interval alone, continued where a
    row misses, :func:`continued`), so the rows are those ``calibrate.py --only bootstrap.interval`` writes, at a
    quarter of its cost; the other rows are kept. Prints each point's intervals withheld by the rule of runs at a cap
    (not counted in ``n_sim``).
    """
    calibrate = runpy.run_path(str(HERE / "calibrate.py"))
    path = calibrate["OUT"] if path is None else path
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    keys = ("interval", "metric", "tasks", "runs", "distribution")
    mine = table["procedure"] == PROCEDURE
    studentized = table["interval"].isin(small_runs.STUDENTIZED_INTERVALS)
    where = {tuple(table.loc[i, list(keys)]): i for i in table.index[mine & studentized]}
    points = [p for p in grid(quick) if p[2] >= DEFAULT_MIN_RUNS and p[1] > 1 and (points is None or p in points)]
    added = False
    for dist, tasks, runs in points:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows = measure(dist, tasks, runs, DEFAULT_SIMULATIONS[quick], seed=runs * 100 + tasks,
                           intervals=small_runs.STUDENTIZED_INTERVALS, improvement_intervals=(),
                           default_datasets=DEFAULT_SIMULATIONS[quick])
        rows = continued(rows, (dist, tasks, runs), quick, named)
        withheld = {}
        for row in rows:
            withheld[row["interval"], row["metric"]] = row.pop("withheld")
            index = where.get(tuple(str(row[k]) for k in keys))
            if index is None:  # a row the table lacks (the former default's, once): added
                index, added = len(table), True
                table.loc[index] = ""
                table.loc[index, "procedure"], table.loc[index, "level"] = PROCEDURE, str(LEVEL)
            for key, value in row.items():
                table.loc[index, key] = f"{value:.6g}" if isinstance(value, float) else str(value)
        print(dist, tasks, runs, {f"{k[0]}/{k[1]}": v for k, v in withheld.items() if v} or "", flush=True)
    # rows replaced in place, every other row where it was; added rows go to their procedure's
    (table.sort_values("procedure", kind="stable") if added else table).to_csv(path, index=False)


def point_of(row):
    """The grid point (distribution, tasks, runs) of a table row (``calibrate.replace_points``)."""
    return row["distribution"], int(row["tasks"]), int(row["runs"])


def named_point(text):
    """The grid point ``(distribution, tasks, runs)`` that ``--continue`` names (``"heavy_tailed,5,20"``), or an
    error naming the option, the value and the grid's values."""
    fields = [f.strip() for f in text.split(",")]
    points = grid()
    point = (fields[0], int(fields[1]), int(fields[2])) if (
        len(fields) == 3 and fields[1].isdigit() and fields[2].isdigit()) else None
    if point not in points or point[2] < DEFAULT_MIN_RUNS or point[1] < 2:
        raise SystemExit(f"--continue {text!r}: not a grid point with default rows; name one as distribution,tasks,runs "
                         f"of distributions {', '.join(designs['DISTRIBUTIONS'])}, tasks "
                         f"{', '.join(str(t) for t in TASKS if t > 1)}, runs "
                         f"{', '.join(str(r) for r in RUNS if r >= DEFAULT_MIN_RUNS)}")
    return point


if __name__ == "__main__":
    if "--continue" in sys.argv:  # re-measure the default rows of the named point, continued whatever they read
        point = named_point(sys.argv[sys.argv.index("--continue") + 1] if sys.argv.index("--continue") + 1 < len(
            sys.argv) else "")
        replace_default_rows(points=[point], named=CONTINUED_POINTS + (point,))
    elif "--default-only" in sys.argv:
        asked = sys.argv[sys.argv.index("--points") + 1].split(",") if "--points" in sys.argv else None
        replace_default_rows(points=None if asked is None else [
            (d, int(t), int(r)) for d, t, r in (point.split(":") for point in asked)])
    elif "--widths" in sys.argv:
        runs_asked = [int(r) for r in sys.argv[sys.argv.index("--runs") + 1].split(",")] if "--runs" in sys.argv \
            else designs["RUNS"]
        points = [(dist, tasks, runs) for dist in designs["DISTRIBUTIONS"] for tasks in (5, 26) for runs in runs_asked]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = (improvement_widths([p for p in points if p[2] == 10]) if "--improvement" in sys.argv
                     else widths(points, **({"n_datasets": int(sys.argv[sys.argv.index("--datasets") + 1])}
                                             if "--datasets" in sys.argv else {})))
        print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    else:
        runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
