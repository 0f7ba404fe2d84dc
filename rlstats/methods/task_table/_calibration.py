"""The measured coverage of the possibly-best set: the ``task_table.possibly_best`` rows of the package table.

The rows (``rlstats/calibration.csv``) are written by ``tests/reference/calibrate.py --only
task_table.possibly_best`` (its module ``coverage_possibly_best.py``): for each test, number of agents, runs per
agent, score distribution and configuration of true means, the share of simulated tasks whose set held every truly
best agent (Holm at alpha = 0.05, the defaults), pooled over draws of the tasks' offsets and scales with the lowest
draw beside it (``coverage_min``); a quote names that draw where it is lower.
"""

from __future__ import annotations

import math

from ... import calibration
from ...calibration import worst_draw_clause  # noqa: F401  (the quotes' worst-draw clause, for _api)

PROCEDURE = "task_table.possibly_best"
#: the effect sizes' intervals against the point best (``coverage_effect_sizes.py``), at a 95% level
EFFECT_SIZE_PROCEDURE, EFFECT_SIZE_LEVEL = "task_table.effect_size", 0.95
#: the level and adjustment the table was measured at
ALPHA, ADJUSTMENT = 0.05, "holm"


def rows():
    """The table's rows of the possibly-best set as dicts of strings (none when the table is absent)."""
    return calibration.rows(PROCEDURE)


def shortfall(test, agents, runs, alpha, adjustment):
    """The row with the lowest coverage at this design when it misses 1 - alpha by more than 3 Monte Carlo SE.

    The standard error is the binomial one at the nominal level, sqrt(alpha (1 - alpha) / n_sim). None when every
    row at the design holds its level, when the design is not on the table's grid, or when ``alpha`` and
    ``adjustment`` are not the ones the table was measured at.
    """
    if adjustment != ADJUSTMENT or not math.isclose(alpha, ALPHA):
        return None
    return calibration.shortfall(rows(), 1 - alpha, test=test, agents=agents, runs=runs)


def effect_size_shortfall(metric, agents, runs, level, interval="fcr"):
    """The lowest-coverage row of ``metric``'s interval ("a12" or "hedges_g") at the table's design nearest this one
    when it misses ``level`` by more than 3 Monte Carlo SE; None at another level than the table's.

    The nearest design has the measured agents nearest ``agents`` on a log scale (the more on a tie: more pairs to
    select the best from, lower coverage) and the largest measured runs per agent up to ``runs`` (the smallest when
    ``runs`` is below them all); the row names it, so a quote never passes one design off as another. ``interval``
    is the kind of interval (the table's ``interval`` column): ``effect_intervals=`` of ``task_table``; ``metric``
    also "difference", Welch's interval of the difference of means (its "fcr" rows, audit s33).
    """
    # the metric's own rows: the difference's (audit s33) were measured at 3 agents too, which A12 and g were not
    rows = [row for row in calibration.rows(EFFECT_SIZE_PROCEDURE) if row["interval"] == interval
            and row["metric"] == metric]
    if not math.isclose(level, EFFECT_SIZE_LEVEL) or not rows:
        return None
    measured_runs = {int(row["runs"]) for row in rows}
    nearest = min({int(row["agents"]) for row in rows}, key=lambda a: (abs(math.log(a / agents)), -a))
    below = max((r for r in measured_runs if r <= runs), default=min(measured_runs))
    return calibration.shortfall(rows, level, metric=metric, agents=nearest, runs=below)


def runs_that_hold(metric, agents, runs, level, interval="fcr"):
    """The fewest runs per agent above ``runs`` at which every row of ``metric``'s ``interval`` at ``agents`` (a
    measured count) holds ``level``: what a note quoting a short row at ``runs`` can advise adding (audit s33
    calib33); None where no such count was measured."""
    rows = [row for row in calibration.rows(EFFECT_SIZE_PROCEDURE) if row["metric"] == metric
            and row["interval"] == interval and row["agents"] == str(agents)]
    more = sorted({int(row["runs"]) for row in rows if int(row["runs"]) > runs})
    return next((n for n in more if not any(calibration.misses(row, level) for row in rows if row["runs"] == str(n))),
                None)
