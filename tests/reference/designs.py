"""The calibration grid's score distributions and design draws: one home for every ``coverage_*`` module.

Issue 40's grid: runs per cell 3, 5, 10, 20 (and 2, where a procedure must show that it withholds), 2-8 agents,
1-26 tasks, and four score distributions, each a fixed transform of a standard draw so that its truth can be
computed exactly from stratified quantiles:

``normal``
    standard normal deviations.
``skewed``
    a standardised lognormal (sigma 0.8: skewness 3.69), mean 0 and variance 1.
``heavy_tailed``
    Student's t with 3 degrees of freedom, divided by sqrt(3) (variance 1; the fourth moment is infinite).
``capped``
    standard normal deviations cut at a ceiling that a third of a baseline agent's runs hit: ``min(z, CAP)`` with
    ``CAP`` the normal 2/3 quantile (an agent placed above the baseline hits it more often). The ceiling is the
    task's: ``offset + scale * CAP`` in score units, whatever the agent.

``saturated`` (``EXTRA_DISTRIBUTIONS``: measured only by the procedures that ask for it, so that adding it changed
no other procedure's grid or draws)
    standard normal deviations cut at a ceiling that 85% of a baseline agent's runs hit (``SATURATED_CAP``, the
    normal 0.15 quantile): a cap often reached, as success rates or solved tasks are. An agent half a noise unit
    below the baseline hits it in 70% of its runs, half a unit above in 94%.

A task's score is ``offset + scale * (location + deviation)`` (the agent's ``location`` in the task's noise units),
cut at the ceiling for ``capped`` and ``saturated``. A *design draw* is one set of per-task offsets and scales:
offsets uniform on [0, 2] and scales lognormal (sigma 0.5), from ``design_draw(seed, tasks)``. A row of ``calibration.csv`` pools
``DESIGN_DRAWS`` draws (``design_draws``), records the pooled ``coverage`` and the lowest coverage of a single draw
(``coverage_min``), so that no row flatters one lucky set of offsets and scales (issue 40 item 5).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

DISTRIBUTIONS = ("normal", "skewed", "heavy_tailed", "capped")
#: families outside DISTRIBUTIONS (the grids that loop over DISTRIBUTIONS keep theirs); their seed index follows them
EXTRA_DISTRIBUTIONS = ("saturated",)
RUNS = (3, 5, 10, 20)
#: design draws pooled in one table row (``coverage_min`` is the lowest of them)
DESIGN_DRAWS = 4
SIGMA = 0.8  # the skewed lognormal's log-scale sd
T_DF = 3
CAP = 0.4307272992954576  # scipy.stats.norm.ppf(2 / 3): a third of a baseline agent's runs sit at the ceiling
SATURATED_CAP = -1.0364333894937898  # scipy.stats.norm.ppf(0.15): 85% of a baseline agent's runs sit at the ceiling
_CAPS = {"capped": CAP, "saturated": SATURATED_CAP}
_QUANTILE_POINTS = 200_000


def deviations(rng, distribution, size):
    """Standardised deviations of ``distribution`` (before the cap of ``capped`` or ``saturated``, which ``scores``
    applies)."""
    if distribution in ("normal", *_CAPS):
        return rng.standard_normal(size)
    if distribution == "skewed":
        return _lognormal(rng.standard_normal(size))
    if distribution == "heavy_tailed":
        return rng.standard_t(T_DF, size) / math.sqrt(T_DF)
    raise ValueError(f"unknown distribution {distribution!r}; one of {DISTRIBUTIONS + EXTRA_DISTRIBUTIONS}")


_QUANTILES = {}  # (distribution, points): read-only quantiles, made once a process (a dict, as joblib ships it)


def quantiles(distribution, points=_QUANTILE_POINTS):
    """(points,) stratified quantiles of the standardised deviations (midpoints of equal-probability strata), made
    once a process per distribution and number of points (read-only: the t's 200,000 ppf took 0.1 s of CPU a call,
    and the truths of every design draw asked for them again)."""
    key = distribution, int(points)
    if key not in _QUANTILES:
        q = _quantiles(distribution, points)
        q.flags.writeable = False
        _QUANTILES[key] = q
    return _QUANTILES[key]


def _quantiles(distribution, points):
    from scipy import stats

    u = (np.arange(points) + 0.5) / points
    if distribution in ("normal", *_CAPS):
        return stats.norm.ppf(u)
    if distribution == "skewed":
        return _lognormal(stats.norm.ppf(u))
    if distribution == "heavy_tailed":
        return stats.t.ppf(u, T_DF) / math.sqrt(T_DF)
    raise ValueError(f"unknown distribution {distribution!r}; one of {DISTRIBUTIONS + EXTRA_DISTRIBUTIONS}")


def _lognormal(z):
    return (np.exp(SIGMA * z) - math.exp(SIGMA ** 2 / 2)) / math.sqrt((math.exp(SIGMA ** 2) - 1)
                                                                       * math.exp(SIGMA ** 2))


def scores(distribution, deviation, location=0.0, offset=0.0, scale=1.0):
    """Scores in task units from standardised ``deviation``: offset + scale * (location + deviation), capped."""
    value = np.asarray(location) + np.asarray(deviation)
    if distribution in _CAPS:
        value = np.minimum(value, _CAPS[distribution])
    return np.asarray(offset) + np.asarray(scale) * value


def design_draw(seed, tasks):
    """(offset, scale), each (tasks,): one draw of the tasks' offsets (uniform on [0, 2]) and scales (lognormal)."""
    return task_draws(np.random.default_rng([20401, int(seed), int(tasks)]), tasks)


def task_draws(rng, size):
    """(offset, scale), each of shape ``size``: tasks' offsets and scales as :func:`design_draw` draws them, from
    ``rng`` (a fresh design a data set, vectorised: ``size`` (data sets, tasks); audit s35 farapart35)."""
    return rng.uniform(0.0, 2.0, size), np.exp(rng.normal(0.0, 0.5, size))


def design_means():
    """(mean offset, mean scale) over design draws: the population of tasks ``design_draw`` samples from (uniform on
    [0, 2]: 1; lognormal with log-scale sd 0.5: exp(0.5^2 / 2))."""
    return 1.0, math.exp(0.5 ** 2 / 2)


def population(distribution, location=0.0, offset=0.0, scale=1.0, points=_QUANTILE_POINTS):
    """(..., points) the score distribution of each task as stratified quantiles, for exact truths.

    ``location``, ``offset`` and ``scale`` broadcast (e.g. ``offset[:, None]`` for one row per task).
    """
    q = quantiles(distribution, points)
    return scores(distribution, q, np.asarray(location)[..., None], np.asarray(offset)[..., None],
                  np.asarray(scale)[..., None])


def binomial_se(level, n):
    """The Monte Carlo standard error of a coverage at ``level`` from ``n`` independent simulations."""
    return math.sqrt(level * (1 - level) / n)


def pooled_row(held_by_draw, level):
    """Table columns from ``held_by_draw`` (a list, one boolean array per design draw, True where the claim held).

    ``coverage`` and ``se`` pool the draws; ``coverage_min`` is the lowest single draw; ``n_sim`` counts them all.
    """
    pooled = np.concatenate([np.asarray(h, dtype=bool).ravel() for h in held_by_draw])
    coverage = float(pooled.mean())
    return {"n_sim": int(pooled.size), "coverage": coverage,
            "se": math.sqrt(max(coverage * (1 - coverage), level * (1 - level)) / pooled.size),
            "design_draws": len(held_by_draw),
            "coverage_min": float(min(np.mean(h) for h in held_by_draw))}


def band_row(band, given, level):
    """:func:`pooled_row` of a curves band from ``given``, one array per design draw of each band's share of the
    steps it covered (``"pointwise"``: its rate is the mean share, its binomial count the bands covering half their
    steps or more) or of whether it held (``"simultaneous"``, 1 or 0): the one rule of the curves' coverage scripts."""
    if band != "pointwise":
        return pooled_row([g > 0.5 for g in given], level)
    row = pooled_row([g >= 0.5 for g in given], level)
    row["coverage"] = float(np.concatenate(given).mean())
    row["coverage_min"] = float(min(g.mean() for g in given))
    row["se"] = math.sqrt(max(row["coverage"] * (1 - row["coverage"]), level * (1 - level)) / row["n_sim"])
    return row


def grid(*axes, quick=False, quick_points=()):
    """A calibration module's grid points (its ``grid(quick)``, which ``calibrate.py`` runs in order):
    ``quick_points`` with ``quick`` where they are given, else every combination of ``axes`` as a flat tuple, the
    last axis varying fastest (an axis of tuples, such as (agents, tasks) pairs, gives their items in place)."""
    if quick and quick_points:
        return list(quick_points)
    return [tuple(item for value in point for item in (value if isinstance(value, tuple) else (value,)))
            for point in itertools.product(*axes)]
