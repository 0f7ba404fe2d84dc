"""Pointwise coverage of the ``kind="tasks"`` profile's band: the ``bootstrap.profile_tasks`` rows of the table.

    PYTHONPATH=. python tests/reference/calibrate.py --only bootstrap.profile_tasks [--jobs 1] [--quick]

(or this script with the same options). ``rlstats.performance_profile(kind="tasks")`` gives the fraction of tasks
whose mean score is above tau and claims that at each threshold its 95% band holds the true fraction. Its default
band (``interval="t"``, audit s10) bounds each task's mean by a Student t interval, one-sided at 0.05 / T each way
(T tasks), and counts the tasks whose lower bound lies above tau (the band's lower end) and whose upper bound does
(its upper end). Its own rows (a procedure of their own, ``metric`` ``"tasks"``) leave the ``bootstrap.profile``
rows of ``kind="runs"`` as they were measured (their grid costs 18 minutes).

The true profile is a step function: the fraction of tasks whose true mean is above tau, which steps down at each
task's mean. Each row reads it at one step, ``tau at mean k of T`` (tau equal to the k-th lowest true task mean: that
task is not above it) or ``tau below mean k of T`` (tau just below it, the next float down: that task is above it),
where a task whose runs straddle tau is above it in about half the data sets whatever the truth, so where a band is
hardest to hold; k runs over the lowest, highest and quartile steps (``STEPS``). Scores follow
``tests/reference/designs.py`` as for ``coverage_profiles.py`` (four distributions, ``DESIGN_DRAWS`` draws of the
tasks' offsets and scales pooled per row, ``coverage_min`` the worst draw), each task's true mean ``offset + scale
* mean`` with the standardised deviations' mean (0, or for ``capped`` the mean of min(z, CAP), CAP / 3 - phi(CAP)).
Each data set holds ``AGENTS`` agents at location 0, each band one simulation (``n_sim`` counts bands).

Measured before the choice (a numpy re-implementation of the candidates on the same designs, 300-400 data sets per
design and draw, 4 draws; audit s10): per-task t bounds one-sided at b each way, at the worst threshold:

=============  =========  ==========  ==========  ============  ==============
design         b = 0.025  b = 0.01    b = 0.005   b = 0.05 / T  percentile (s9)
=============  =========  ==========  ==========  ============  ==============
normal 26x3    0.85       0.94        0.97        0.99          0.00-0.49
normal 26x10   0.92       0.96        0.98        0.995
skewed 1x3     0.88       0.94        0.97        0.81
skewed 26x10   0.67       0.78        0.83        0.88
capped 26x3    0.49       0.56        0.59        0.92 (ties)
=============  =========  ==========  ==========  ============  ==============

(0.05 / T with tied tasks unbounded; the other columns keep a tied task's zero-width interval, which at a ceiling
missed in 0.35-0.51 of data sets at 26 tasks of 3 runs.) b = 0.05 / T is the only per-task level that holds in every
configuration of the means (all tasks tied at tau need it), and the narrower candidates that held in this grid for
normal runs (b = 0.005 at 26 tasks) are barely narrower at 3 runs (Student t quantiles 9.9 and 15.8 on 2 degrees of
freedom). Skewed and capped runs push the t bound of one task's mean off its level at any b: the lowest task's
upper bound (skewed) or the highest task's lower bound (capped) misses in those rows, and more runs do not mend it
(skewed, one task: 0.81, 0.82, 0.86, 0.85 at 3, 5, 10, 20 runs); the result quotes the table's row there.

Audit s12 replaced that default (a default that misses is replaced, not only quoted) by ``interval="skew_t"``: each
task's t bound moved out on the side of the runs' skewness by Hall's (1992) transformation, the skewness pooled over
the agent's tasks; withheld below 5 tasks of 3 or more runs. Both bands are measured on the same data sets
(``INTERVALS``; the ``t`` rows re-measured are the table's bit for bit), the skew-corrected band from 5 tasks
(``measured``), so that 1-task grid points give ``t`` rows only. Its 384 rows hold 95% in every row (lowest 0.953,
skewed runs at 5 tasks of 3 just below the lowest mean, worst draw 0.938, since audit s26 hall26b inverts Hall's cubic
capped, re-measured by ``calibrate.py --only bootstrap.profile_tasks --replace '*:5|26:*'``; 0.946 and 0.930 before).
Measured before the choice, in a numpy model
of the same designs (1,000 bands per design and draw), the worst threshold per design:

=============  =========  ==============  =========  =========  ===================
design         t          Cornish-Fisher  CF x 2     Hall       Hall, leave-one-out
=============  =========  ==============  =========  =========  ===================
skewed 1x3-20  0.81-0.87  0.84-0.90       0.86-0.92  0.88-0.92  (none)
skewed 2x3-20                                        0.91-0.95  0.92-0.96
skewed 5x3     0.89       0.90            0.90       0.94       0.935
skewed 26x10   0.89       0.96            0.98       1.00       1.00
capped 26x3    0.92       0.93            0.93       0.95       0.95
capped 26x5    0.91       0.93            0.94       0.98       0.98
=============  =========  ==============  =========  =========  ===================

(Cornish-Fisher: the bootstrap's skew widening, skewness / 6 (2 z^2 + 1) standard errors on the side of the skew.)
``measure_shape`` reads the bands on shapes outside the grid (``SHAPES``), for docs/calibration.md.

Audit s13: the 5-task rule counts tasks with 3 or more runs whose runs all tie (an agent always at a task's ceiling, a
constant score), from which no skewness is read, so that the skewness of a band given at 5 tasks may come from 1-4 of
them. ``measure_tied`` reads the skew-corrected band on the grid's designs at 5 and 6 tasks whose last 1-5 tasks tie
(``TIED_PLACES``: at their ceiling, above the task means, or at 0, below them), 4,000 bands per design (50 data sets
of 20 agents per design draw, seed 0; rows as the table's, not written to it), beside the same designs without ties
(``tied`` 0). At the worst threshold, pooled over the draws (lowest single draw in brackets):

=============  ===================  ===================  ===================
runs           1-3 tasks tied       4-5 tasks tied       no task tied
=============  ===================  ===================  ===================
normal 3, 5    0.986-0.997 (0.979)  0.992-0.998 (0.989)  0.983-0.991 (0.974)
skewed 3       0.946-0.989 (0.896)  0.950-0.991 (0.944)  0.950-0.964 (0.920)
skewed 5       0.954-0.995 (0.931)  0.956-0.995 (0.949)  0.967-0.975 (0.946)
capped 3       0.951-0.997 (0.924)  0.960-0.998 (0.945)  0.947-0.962 (0.925)
capped 5       0.969-0.998 (0.948)  0.977-0.999 (0.971)  0.971-0.978 (0.957)
=============  ===================  ===================  ===================

No band was withheld, and no pooled row missed. The lowest draws are as low without the ties, re-measured at 2,000
bands per draw (seed 5): skewed 6 tasks x 3 runs just below the lowest mean 0.926 without a tie and 0.929 with one;
skewed 5 x 3 0.934 and 0.932 with 3 tied; capped 5 x 3 at the highest mean 0.954 and 0.935 with one tied at 0 (and
capped 6 x 3 without ties 0.925 at 1,000 bands). A tied task's bounds are unbounded, so it cannot miss, and the
Bonferroni level 0.05 / T of each spread task counts it, so that fewer tasks share the band's 0.05: the skewness read
from fewer tasks costs no coverage measured, and the rule stands, counting them.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import runpy

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
PROFILES = runpy.run_path(str(HERE / "coverage_profiles.py"))
PROCEDURE, LEVEL = "bootstrap.profile_tasks", 0.95
#: the bands measured on the same data sets, one row each (``interval``): the default since audit s12 and the former
#: one (audit s10 to s12), whose rows re-measured are its table rows bit for bit
INTERVALS = ("skew_t", "t")
#: data sets per grid point and design draw (each of AGENTS bands): the table's, and --quick's
SIMULATIONS = (50, 5)
AGENTS = PROFILES["AGENTS"]
TASKS = (1, 5, 26)
RUNS = DESIGNS["RUNS"]
DISTRIBUTIONS = DESIGNS["DISTRIBUTIONS"]
#: where the true profile's steps are read: the k-th lowest task mean with k = 1 + round(q (T - 1)) for these q
STEPS = (0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0)
SIDES = ("below", "at")


def deviation_mean(distribution):
    """The mean of the standardised deviations after the cap: 0, or E min(z, CAP) = CAP / 3 - phi(CAP)."""
    if distribution != "capped":
        return 0.0
    cap = DESIGNS["CAP"]
    return cap / 3 - math.exp(-cap ** 2 / 2) / math.sqrt(2 * math.pi)  # P(z > CAP) = 1 / 3


def steps(tasks):
    """The ranks k (1 = lowest) of the task means read."""
    return sorted({1 + int(round(q * (tasks - 1))) for q in STEPS})


def truth(distribution, tasks, draw):
    """(tau, true profile, configurations): per step read, each side, in ``steps`` then ``SIDES`` order."""
    offset, scale = DESIGNS["design_draw"](draw, tasks)
    means = np.sort(offset + scale * deviation_mean(distribution))
    tau, configurations = [], []
    for k in steps(tasks):
        for side in SIDES:
            at = means[k - 1]
            tau.append(np.nextafter(at, -np.inf) if side == "below" else at)
            configurations.append(f"tau {side} mean {k} of {tasks}")
    tau = np.array(tau)
    return tau, (means[None, :] > tau[:, None]).mean(axis=1), configurations


def held(distribution, tasks, runs, draw, n_sim, seed=0, intervals=INTERVALS):
    """Per interval, (hits, widths): (bands, thresholds) bool, whether each band held the truth (False where it is
    withheld, NaN), and (bands, thresholds) widths."""
    import rlstats

    design = PROFILES["template"](tasks, runs, AGENTS)
    offset, scale = DESIGNS["design_draw"](draw, tasks)
    tau, true, _ = truth(distribution, tasks, draw)
    rng = np.random.default_rng([seed, tasks, runs, DISTRIBUTIONS.index(distribution), draw, 10])
    hits, widths = {i: [] for i in intervals}, {i: [] for i in intervals}
    for _ in range(n_sim):
        deviation = DESIGNS["deviations"](rng, distribution, design.y.size)
        y = DESIGNS["scores"](distribution, deviation, 0.0, offset[design.task], scale[design.task])
        for interval in intervals:
            res = rlstats.performance_profile(dataclasses.replace(design, y=y), tau=tau, kind="tasks",
                                              interval=interval)
            low, high = res.intervals[..., 0], res.intervals[..., 1]
            hits[interval].append((low <= true) & (true <= high))
            widths[interval].append(high - low)
    return {i: (np.concatenate(hits[i]), np.concatenate(widths[i])) for i in intervals}


def measured(tasks):
    """The bands that give rows at ``tasks``: the skew-corrected t band is withheld below ``SKEW_T_MIN_TASKS``."""
    from rlstats.methods.bootstrap._api import SKEW_T_MIN_TASKS

    return tuple(i for i in INTERVALS if i != "skew_t" or tasks >= SKEW_T_MIN_TASKS)


def measure(distribution, tasks, runs, n_sim, seed=0, draws=None, intervals=None):
    """Rows of one design: per band (``intervals``, by default those ``measured`` at ``tasks``), step and side, the
    pooled coverage over the design draws."""
    draws = range(DESIGNS["DESIGN_DRAWS"]) if draws is None else draws
    intervals = measured(tasks) if intervals is None else intervals
    by_draw = [held(distribution, tasks, runs, draw, n_sim, seed, intervals) for draw in draws]
    configurations = truth(distribution, tasks, 0)[2]
    return [{"band": "pointwise", "interval": interval, "metric": "tasks", "tasks": tasks, "runs": runs,
             "distribution": distribution, "configuration": configuration,
             **DESIGNS["pooled_row"]([h[interval][0][:, j] for h in by_draw], LEVEL)}
            for interval in intervals for j, configuration in enumerate(configurations)]


#: skewed shapes the grid does not have, standardised (mean 0, variance 1), to check that the skew-corrected band is not
#: tuned to the grid's lognormal and ceiling (audit s12; measured by ``measure_shape``, not table rows): a gamma with
#: shape 1/2 (skewness 2.83), the same reflected (left-skewed without a ceiling, as rare catastrophic runs), and a
#: mixture of N(0, 1) with N(4, 1) in a tenth of the runs (skewness 1.45, bimodal)
SHAPES = {
    "gamma": lambda rng, size: (rng.gamma(0.5, 1.0, size) - 0.5) / math.sqrt(0.5),
    "reflected_gamma": lambda rng, size: -(rng.gamma(0.5, 1.0, size) - 0.5) / math.sqrt(0.5),
    "mixture": lambda rng, size: (rng.standard_normal(size) + 4.0 * (rng.random(size) < 0.1) - 0.4) / math.sqrt(2.44),
}


def measure_shape(shape, tasks, runs, n_sim, seed=0, draws=None, intervals=INTERVALS):
    """(interval -> (worst pooled coverage, its worst design draw, configuration)) of the bands on one of
    ``SHAPES`` (task means ``offset``, as the deviations have mean 0), as ``measure`` reads the grid."""
    import rlstats

    draws = range(DESIGNS["DESIGN_DRAWS"]) if draws is None else draws
    design = PROFILES["template"](tasks, runs, AGENTS)
    by_draw = {i: [] for i in intervals}
    for draw in draws:
        offset, scale = DESIGNS["design_draw"](draw, tasks)
        means = np.sort(offset)
        tau = np.array([np.nextafter(m, -np.inf) if side == "below" else m
                        for m in means[np.array(steps(tasks)) - 1] for side in SIDES])
        true = (means[None, :] > tau[:, None]).mean(axis=1)
        rng = np.random.default_rng([seed, tasks, runs, list(SHAPES).index(shape), draw, 11])
        hits = {i: [] for i in intervals}
        for _ in range(n_sim):
            y = offset[design.task] + scale[design.task] * SHAPES[shape](rng, design.y.size)
            for interval in intervals:
                bands = rlstats.performance_profile(dataclasses.replace(design, y=y), tau=tau, kind="tasks",
                                                    interval=interval).intervals
                hits[interval].append((bands[..., 0] <= true) & (true <= bands[..., 1]))
        for interval in intervals:
            by_draw[interval].append(np.concatenate(hits[interval]).mean(axis=0))
    configurations = truth("normal", tasks, 0)[2]
    out = {}
    for interval, coverage in by_draw.items():
        pooled, worst = np.mean(coverage, axis=0), np.min(coverage, axis=0)
        j = int(np.argmin(pooled))
        out[interval] = (float(pooled[j]), float(worst.min()), configurations[j])
    return out


#: where the tasks whose runs all tie (``measure_tied``) put their one score: at their ceiling (``offset + scale *
#: CAP``, above the task means of skewed runs: the lowest mean is then a spread task, where skewed runs miss) or at 0
#: (below every task mean: the highest is a spread task, where capped runs miss)
TIED_PLACES = ("ceiling", "zero")


def held_tied(distribution, tasks, tied, runs, draw, n_sim, place="ceiling", seed=0, interval="skew_t"):
    """((bands, thresholds) bool, withheld): whether each band given held the truth, and the bands withheld, on data
    sets whose last ``tied`` tasks have every run at one score (``TIED_PLACES``; an agent at a task's ceiling, or a
    constant score) and whose other tasks follow ``distribution`` as in ``held``; the thresholds are read at the steps
    of all the tasks' means (``steps``, ``SIDES``), the tied tasks' true mean their score (audit s13)."""
    import rlstats

    design = PROFILES["template"](tasks, runs, AGENTS)
    offset, scale = DESIGNS["design_draw"](draw, tasks)
    is_tied = np.arange(tasks) >= tasks - tied
    score = offset + scale * DESIGNS["CAP"] if place == "ceiling" else np.zeros(tasks)
    means = np.where(is_tied, score, offset + scale * deviation_mean(distribution))
    order = np.sort(means)
    tau = np.array([np.nextafter(order[k - 1], -np.inf) if side == "below" else order[k - 1]
                    for k in steps(tasks) for side in SIDES])
    true = (means[None, :] > tau[:, None]).mean(axis=1)
    rng = np.random.default_rng([seed, tasks, tied, runs, DISTRIBUTIONS.index(distribution), draw,
                                 TIED_PLACES.index(place), 13])
    hits, withheld = [], 0
    for _ in range(n_sim):
        deviation = DESIGNS["deviations"](rng, distribution, design.y.size)
        y = DESIGNS["scores"](distribution, deviation, 0.0, offset[design.task], scale[design.task])
        y = np.where(is_tied[design.task], score[design.task], y)
        bands = rlstats.performance_profile(dataclasses.replace(design, y=y), tau=tau, kind="tasks",
                                            interval=interval, progress=False).intervals
        given = np.isfinite(bands).all(axis=(1, 2))
        withheld += int((~given).sum())
        hits.append(((bands[..., 0] <= true) & (true <= bands[..., 1]))[given])
    return np.concatenate(hits), withheld


def measure_tied(distribution, tasks, tied, runs, n_sim, place="ceiling", seed=0, draws=None, interval="skew_t"):
    """The rows (``measure``'s columns, not table rows) of one design with ``tied`` tasks whose runs all tie
    (``held_tied``): per threshold, the pooled coverage over the design draws and the worst draw."""
    draws = range(DESIGNS["DESIGN_DRAWS"]) if draws is None else draws
    by_draw = [held_tied(distribution, tasks, tied, runs, draw, n_sim, place, seed, interval)[0] for draw in draws]
    return [{"interval": interval, "tasks": tasks, "tied": tied, "runs": runs, "distribution": distribution,
             "place": place, "threshold": j, **DESIGNS["pooled_row"]([h[:, j] for h in by_draw], LEVEL)}
            for j in range(by_draw[0].shape[1])]


def point_of(row):
    """The grid point (distribution, tasks, runs) of a table row (``calibrate.replace_points``; audit s26 hall26b)."""
    return row["distribution"], int(row["tasks"]), int(row["runs"])


def grid(quick=False):
    """(distribution, tasks, runs): every combination of 3-20 runs; --quick: ``coverage_profiles.py``'s."""
    return DESIGNS["grid"](DISTRIBUTIONS, TASKS, RUNS, quick=quick, quick_points=PROFILES["grid"](quick=True))


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim)


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
