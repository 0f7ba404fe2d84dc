"""Known bounds of the score: the ``bounds=`` option and the range a normaliser implies, in one place.

A score that cannot leave [low, high] (a success rate in [0, 1], a Control Suite return in [0, 1000], a landscape
capped at 1000) bounds every estimand on its scale: a mean, median, IQM, expected maximum or tuned score lies in
[low, high], an optimality gap in [max(gamma - high, 0), max(gamma - low, 0)], a difference of two such quantities in
[-(high - low), high - low]. An interval or band end outside those limits is clipped to them. Clipping keeps
coverage: the estimand lies within the limits, so an interval that held it before clipping still holds it after
(clipping removes only values the estimand cannot take), and the clipped interval is never wider. Where an end was
clipped the result's notes say so.

The bounds are checked once, at the front door (:func:`rlstats.design.build`, which stores them in
``Design.bounds``): a row outside them is an error naming it. They apply to the response as analysed, after
``normalize=`` and the formula's expression; a normaliser whose range is a hard bound implies them on the
normalised scale (``"dm_control"``: [0, 1]) when the response is the normalised column itself.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .errors import DesignError, OptionError, rows_described, shown
from .format import count, signif, verb
from .statistics import block_ranges, near_ties, wilson_interval

if TYPE_CHECKING:
    import pandas as pd

    from .formula import Formula

#: the built-in statistics of the back ends and where their values lie: within the scores' range, or the
#: optimality gap's (a user's function: unknown, never clipped)
KINDS = {"mean": "score", "median": "score", "iqm": "score", "optimality_gap": "optimality_gap"}


@dataclass(frozen=True)
class Bounds:
    """Known limits of the analysed response: ``low`` (-inf: none) and ``high`` (inf: none), and where they come
    from (``source``, as the notes quote it)."""

    low: float
    high: float
    source: str

    @property
    def width(self) -> float:
        return self.high - self.low

    @property
    def text(self) -> str:
        """'[0, 1000]', '(-inf, 1000]'."""
        left = "(-inf" if np.isinf(self.low) else f"[{signif(self.low, 6)}"
        right = "inf)" if np.isinf(self.high) else f"{signif(self.high, 6)}]"
        return f"{left}, {right}"

    def limits(self, kind: str = "score", gamma: float | None = None) -> tuple[float, float]:
        """Where a quantity of ``kind`` lies: ``"score"`` (a mean, median, quantile, ... of the scores),
        ``"difference"`` (of two such) or ``"optimality_gap"`` (mean of max(gamma - score, 0))."""
        if kind == "score":
            return self.low, self.high
        if kind == "difference":
            return -self.width, self.width
        if kind == "optimality_gap":
            threshold = 1.0 if gamma is None else gamma
            return max(threshold - self.high, 0.0), max(threshold - self.low, 0.0)
        raise ValueError(kind)

    def record(self) -> list[float | None]:
        """``[low, high]`` for a result's JSON record (None for a missing side)."""
        return [None if np.isinf(self.low) else self.low, None if np.isinf(self.high) else self.high]


#: the limits every response has: the optimality gap's range is still [0, inf) (audit s7: a studentized interval of
#: the gap printed (-0.27, 6.3) without bounds=), the other kinds' unlimited
UNBOUNDED = Bounds(-np.inf, np.inf, "a mean of max(gamma - score, 0), never negative whatever the scores")


def known_or_unbounded(known: Bounds | None) -> Bounds:
    """``known`` bounds, or :data:`UNBOUNDED` without them: what a back end clips its intervals to."""
    return UNBOUNDED if known is None else known


def check_bounds(bounds: object) -> tuple[float | None, float | None] | None:
    """The ``bounds=`` option checked: None, or ``(low, high)`` with None (or an infinity) for a missing side."""
    if bounds is None:
        return None
    pair: tuple | None = None
    if not isinstance(bounds, (str, bytes, Mapping)):
        try:
            pair = tuple(bounds)  # type: ignore[arg-type]  # anything iterable; TypeError otherwise
        except TypeError:
            pair = None
    if pair is None or len(pair) != 2:
        raise OptionError(f"bounds must be a (low, high) pair of numbers (None for a side without a bound), e.g. "
                          f"bounds=(0, 1000), got {bounds!r}")
    out: list[float | None] = []
    for side, value, infinite in (("low", pair[0], -np.inf), ("high", pair[1], np.inf)):
        if value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool) and value == infinite):
            out.append(None)
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise OptionError(f"bounds {side} must be a finite number or None, got {shown(value)}")
        out.append(float(value))
    low, high = out
    if low is None and high is None:
        raise OptionError("bounds=(None, None) bounds nothing; give at least one finite end, or pass bounds=None")
    if low is not None and high is not None and not low < high:
        raise OptionError(f"bounds = ({low}, {high}): low must be smaller than high")
    return low, high


def _implied(normalize, formula):
    """The bounds a normaliser implies on the normalised scale, when it has hard bounds and the response is the
    normalised column itself (None otherwise)."""
    from .normalization import RANGES

    reference = normalize.get("reference") if isinstance(normalize, Mapping) else normalize
    if not isinstance(reference, str) or RANGES.get(reference) != "bound" or not formula.is_simple_response:
        return None
    return Bounds(0.0, 1.0, f"normalize={reference!r}: its range [0, 1000] is a bound, [0, 1] once normalised")


def score_bounds(bounds: tuple[float | None, float | None] | None, normalize: object,
                 formula: Formula) -> Bounds | None:
    """The Design's bounds: those given (``bounds=``, checked by :func:`check_bounds`) and those ``normalize=``
    implies, intersected (both hold)."""
    implied = _implied(normalize, formula)
    if bounds is None:
        return implied
    low = -np.inf if bounds[0] is None else bounds[0]
    high = np.inf if bounds[1] is None else bounds[1]
    shown = ", ".join("None" if v is None else signif(v, 6) for v in bounds)
    given = Bounds(low, high, f"bounds=({shown})")
    if implied is None:
        return given
    low, high = max(low, implied.low), min(high, implied.high)
    if not low < high:
        raise OptionError(f"{given.source} leaves nothing of the normalised range [0, 1] ({implied.source}); give "
                          "bounds on the normalised scale, or drop bounds=")
    return Bounds(low, high, f"{given.source} and {implied.source}")


def check_within(bounds: Bounds | None, y: np.ndarray, data: pd.DataFrame, formula: Formula) -> None:
    """Rows whose response lies outside ``bounds``: an error naming them (index label, agent, task, value)."""
    if bounds is None:
        return
    with np.errstate(invalid="ignore"):
        outside = (y < bounds.low) | (y > bounds.high)
    if not outside.any():
        return
    rows = np.flatnonzero(outside)
    fields = [(role, data[column]) for role, column in (("agent", formula.groups), ("task", formula.blocks))
              if column is not None] + [("value", y)]
    raise DesignError(f"{count(rows.size, 'row')} of '{formula.response}' {verb(rows.size, 'lies')} outside the bounds "
                      f"{bounds.text} "
                      f"({bounds.source}): {rows_described(data.index, rows, fields)}; fix those rows, or give bounds "
                      "that hold every score")


def clip(values: np.ndarray, limits: tuple[float, float]) -> tuple[np.ndarray, int]:
    """``values`` clipped to ``limits`` and the number of finite values it moved (NaN stays NaN)."""
    values = np.asarray(values, dtype=float)
    low, high = limits
    with np.errstate(invalid="ignore"):
        moved = int(((values < low) | (values > high)).sum())
    return (np.clip(values, low, high) if moved else values), moved


def clipped_note(moved: int, what: str, bounds: Bounds, kind: str = "score", gamma: float | None = None,
                 limits: tuple[float, float] | None = None) -> str | None:
    """The note for ``moved`` ends of ``what`` clipped to the limits of ``kind`` under ``bounds``, or to ``limits``
    when given (a difference of optimality gaps, say); None when none moved."""
    if not moved:
        return None
    low, high = bounds.limits(kind, gamma) if limits is None else limits
    where = Bounds(low, high, "").text
    scale = {"score": "the score's bounds", "difference": "the largest difference the bounds allow",
             "optimality_gap": "the optimality gap's range" + ("" if bounds is UNBOUNDED else " under the bounds")}[kind]
    return (f"{count(moved, 'end')} of {what} clipped to {where}, {scale} ({bounds.source}): the true value lies "
            "within them, so clipping keeps the coverage")


def with_bounds(design: Any, bounds: object) -> Any:
    """A ready Design with ``bounds=`` given as well: checked against its responses, and the tighter of those and
    the ones it carries kept (both hold). (Typed Any: rlstats.design imports this module.)"""
    if bounds is None:
        return design
    import dataclasses

    import pandas as pd

    known = score_bounds(check_bounds(bounds), None, design.formula)
    if known is None:  # not reached: given bounds always make bounds
        return design
    if design.bounds is not None:
        low, high = max(known.low, design.bounds.low), min(known.high, design.bounds.high)
        if not low < high:
            raise OptionError(f"{known.source} leaves nothing of the Design's bounds {design.bounds.text} "
                              f"({design.bounds.source})")
        known = Bounds(low, high, f"{known.source} and {design.bounds.source}")
    f = design.formula
    rows = pd.DataFrame({f.groups: np.asarray(design.agents, dtype=object)[design.agent]}, index=design.row_position)
    if f.blocks is not None:
        rows[f.blocks] = np.asarray(design.tasks, dtype=object)[design.task]
    check_within(known, design.y, rows, f)
    return dataclasses.replace(design, bounds=known)


def clip_columns(frame: pd.DataFrame | None, bounds: Bounds | None, columns: Sequence[str], what: str,
                 kind: str = "score", notes: list[str] | None = None) -> pd.DataFrame | None:
    """``frame`` (a DataFrame, copied when changed) with ``columns`` clipped to the limits of ``kind`` under
    ``bounds``; the note, if any end moved, appended to ``notes``. Returns the frame."""
    if bounds is None or frame is None:
        return frame
    limits = bounds.limits(kind)
    present = [c for c in columns if c in frame.columns]
    moved = 0
    out = frame
    for column in present:
        values, n = clip(frame[column].to_numpy(dtype=float), limits)
        if n:
            out = out.copy() if out is frame else out
            out[column] = values
            moved += n
    note = clipped_note(moved, what, bounds, kind)
    if note and notes is not None:
        notes.append(note)
    return out


def bound_ties(design: Any, agents: Sequence[int] | None = None,
               tied_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(at_bound, distance), each (tasks, agents): how many of a cell's runs tie at the task's largest or smallest
    score (the one more of its runs sit at), and the mean distance of the task's runs off that bound (0 where none is
    off it). A cap often reached (a success rate at 1, a return at its limit) shows as most runs at one bound; one
    home for the back ends that read it (equivalence's variance floor, bootstrap's and curves' saturation rules).

    ``agents`` (codes): read the bounds and distances from these agents' runs alone, columns in their order (a pair's
    tests then depend on the pair's runs only); None: every agent's. ``tied_only``: a bound that a single run of the
    task reaches counts no run (with one run per cell, the best agent of every task would otherwise sit "at the
    bound" in all its runs).
    """
    codes = np.arange(design.n_agents) if agents is None else np.asarray(agents, dtype=np.intp)
    column = np.full(design.n_agents, -1)
    column[codes] = np.arange(codes.size)
    keep = column[design.agent] >= 0
    return ties_at_bounds(design.task[keep], column[design.agent[keep]], design.y[keep], design.n_tasks, codes.size,
                          tied_only)


#: the most runs :func:`pairs_bound_ties` lays end to end at once (its arrays' length)
PAIRS_ROWS = 1_000_000


def pairs_bound_ties(design: Any, pairs: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(at_bound, distance), each (pairs, tasks, 2): :func:`bound_ties` of each pair of agents (codes), bit for bit
    what a call a pair gives: the pairs' runs laid end to end, each in the data's order, and each pair's task a block
    of its own, read in one pass (:data:`PAIRS_ROWS` runs at a time; audit s39 eq39: a call a pair took a tenth of
    equivalence() on 40 agents' 780 pairs)."""
    codes = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    rows_of = [np.flatnonzero(design.agent == j) for j in range(design.n_agents)]
    at_bound, distance = [], []
    start = 0
    while start < len(codes):
        rows, block, column, total = [], [], [], 0
        end = start
        while end < len(codes) and (end == start or total < PAIRS_ROWS):
            i, j = codes[end]
            mine = np.sort(np.concatenate((rows_of[i], rows_of[j])))  # the data's order, as bound_ties keeps it
            rows.append(mine)
            block.append((end - start) * design.n_tasks + design.task[mine].astype(np.intp))
            column.append((design.agent[mine] == j).astype(np.intp))
            total += mine.size
            end += 1
        mine = np.concatenate(rows)
        counts, far = ties_at_bounds(np.concatenate(block), np.concatenate(column), design.y[mine],
                                     (end - start) * design.n_tasks, 2)
        at_bound.append(counts.reshape(end - start, design.n_tasks, 2))
        distance.append(far.reshape(end - start, design.n_tasks, 2))
        start = end
    if not at_bound:
        return np.zeros((0, design.n_tasks, 2)), np.zeros((0, design.n_tasks, 2))
    return np.concatenate(at_bound), np.concatenate(distance)


def ties_at_bounds(task: np.ndarray, agent: np.ndarray, y: np.ndarray, n_tasks: int,
                   n_agents: int, tied_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bound_ties` of the runs given as arrays (task and agent codes, finite scores): curves() reads it step
    by step, on the runs logged at each step. ``tied_only``: a run at a bound counts only where two or more of the
    task's runs (any agent's) sit there (a tie, not the one run that is a continuous score's largest; curves() reads
    the counts alone)."""
    top, bottom, at_top, at_bottom = _at_bounds(task, y, n_tasks)
    if tied_only:
        at_top, at_bottom = _tied(task, at_top, n_tasks), _tied(task, at_bottom, n_tasks)
    at_bound, sits_top = _cell_counts(task * n_agents + agent, at_top, at_bottom, n_tasks, n_agents)
    # distances from the bound (not the scores' own values) keep the floor exact under shifts
    below = np.bincount(task, np.where(at_top, 0.0, top[task] - y), minlength=n_tasks)
    above = np.bincount(task, np.where(at_bottom, 0.0, y - bottom[task]), minlength=n_tasks)
    with np.errstate(invalid="ignore", divide="ignore"):
        d_top = below / np.bincount(task, ~at_top, minlength=n_tasks)
        d_bottom = above / np.bincount(task, ~at_bottom, minlength=n_tasks)
    distance = np.nan_to_num(np.where(sits_top, d_top[:, None], d_bottom[:, None]))  # no run off it: 0
    return at_bound, distance


def tie_counts(task: np.ndarray, agent: np.ndarray, y: np.ndarray, n_tasks: int,
               n_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """(at_bound, tied), each (tasks, agents): the counts of :func:`ties_at_bounds` without and with ``tied_only``
    from one pass over the runs (curves() reads both at every step, the second for the median's rule)."""
    _, _, at_top, at_bottom = _at_bounds(task, y, n_tasks)
    cell = task * n_agents + agent
    return (_cell_counts(cell, at_top, at_bottom, n_tasks, n_agents)[0],
            _cell_counts(cell, _tied(task, at_top, n_tasks), _tied(task, at_bottom, n_tasks), n_tasks, n_agents)[0])


def _at_bounds(task, y, n_tasks):
    """Each task's largest and smallest score (tasks,), and whether each run sits at its task's (runs,): a run within
    the task's tie tolerance of it (:func:`rlstats.statistics.near_ties`, the snapped scores' bounds), so that 0.3 and
    0.1 + 0.2 sit at it or not alike whatever the units and origin (audit s22: exact equality counted two of four
    such runs, and all four after + 1e6)."""
    snapped = near_ties(y, task)[0]
    bottom, top = block_ranges(snapped, task, n_tasks)
    return top, bottom, snapped == top[task], snapped == bottom[task]


def _tied(task, at, n_tasks):
    """``at`` where two or more of the task's runs are at the bound (a tie), else False."""
    return at & (np.bincount(task, at, minlength=n_tasks) >= 2)[task]


def _cell_counts(cell, at_top, at_bottom, n_tasks, n_agents):
    """(at_bound, sits_top), each (tasks, agents): a cell's runs at the bound more of them sit at, and which."""
    n_top = np.bincount(cell, at_top, minlength=n_tasks * n_agents).reshape(n_tasks, n_agents)
    n_bottom = np.bincount(cell, at_bottom, minlength=n_tasks * n_agents).reshape(n_tasks, n_agents)
    sits_top = n_top >= n_bottom
    return np.where(sits_top, n_top, n_bottom), sits_top


def mostly_at_bound(at_bound, n):
    """Where a cell's runs mostly sit at the largest or smallest score of a task (a cap often reached): 2 runs or more
    there and half or more of the cell's ``n`` (``at_bound`` from :func:`bound_ties`). equivalence() withholds its
    per-task tests and bounds its across-tasks variance there (audit s10); bayes() says how its credible intervals
    read on such runs (audit s11)."""
    at_bound, n = np.asarray(at_bound), np.asarray(n)
    return (at_bound >= 2) & (2 * at_bound >= n)


def variance_floor(at_bound, n, distance):
    """A lower bound for the variance of a run of a saturated cell, broadcast: a score at its bound or ``distance``
    off it (the mean distance of the task's runs off that bound), off it with probability p, has variance p (1 - p)
    distance^2; p is taken at the Wilson 95% upper bound of the share of the cell's ``n`` runs off the bound (n -
    ``at_bound`` of them), and at most 1/2, where p (1 - p) is largest. Runs that mostly sit at the cap are few
    runs off it, whose share the cell's own spread reads as nearly 0 in the data sets that declare too easily.
    equivalence()'s Welch tests of saturated cells (audit s10) and task_table()'s Welch tests against a cell whose runs
    all tie at a cap (``task_table._kernels.cap_floors``, audit s38 cap38) read it.

    >>> round(float(variance_floor(5, 5, 0.3)), 6)  # none of 5 runs off: p = z^2 / (5 + z^2) = 0.351, z = 1.645
    0.020505
    """
    at_bound, n, distance = (np.asarray(v, dtype=np.float64) for v in (at_bound, n, distance))
    # the one-sided 95% upper bound is the upper end of the two-sided 90% interval
    upper = np.minimum(wilson_interval(n - at_bound, n, 0.90)[1], 0.5)
    return upper * (1 - upper) * distance ** 2


#: audit s10: the share of an agent's runs at a task's largest or smallest score from which they are saturated (a cap
#: often reached), and per metric the fewest runs off that bound below which its studentised interval is withheld
#: (the median's whatever the count): measured on the grid's saturated scores (85% of a baseline's runs at the cap),
#: the IQM's intervals missed with 4-8 runs off it on average (0.64-0.91 at 5-10 tasks x 3-10 runs) and held with 12
#: (0.95-0.96 at 26 tasks x 3 runs), the mean's and optimality gap's missed with 2-5 (0.78-0.91) and held with 7-8
#: (0.93-0.96), and the median's missed everywhere measured (0.47-0.88 at 5-26 tasks x 3-10 runs). Those given by
#: these counts covered 0.915-1 (the IQM's at 8 rather than 12: 0.915-0.98, given in 160 rather than 78 of 240 at
#: 26 tasks x 3 runs); none was withheld on the grid's capped scores (a third at the cap)
SATURATED_SHARE = 0.75
#: audit s11: the fewest runs off the bound of a saturated agent for mixed()'s pairwise contrasts (with fewer, its
#: pairs are withheld). On the grid's saturated scores (agents 0 to 1 noise units apart) the model's Tukey families
#: missed at every design of 3-10 runs (0.63-0.90); given from 6 runs off they covered 0.84 (3 agents x 10 tasks x 10 runs, 49 of 100
#: data sets given), from 8 0.85 (20 given), from 12 0.93-1 (3 x 26 x 20: 0.93, 100 given); the count of the kind
#: "contrast" in :func:`saturated_withheld`
SATURATED_FEWEST_OFF_CONTRAST = 12
SATURATED_FEWEST_OFF = {"iqm": 8, "mean": 6, "optimality_gap": 6, "median": np.inf,
                        "contrast": SATURATED_FEWEST_OFF_CONTRAST}
#: audit s11: the share of an agent's runs tied at their task's largest or smallest score (two or more of the task's
#: runs there: :func:`ties_at_bounds` with ``tied_only=True``) from which the median's studentised interval
#: (bootstrap()) and bands (curves(), at a step) are withheld (:func:`median_tied`). On the grid's saturated curves
#: (tests/reference/coverage_curves_bands.py, the cap reached by 17% to 85% of the runs over training) the median's
#: pointwise band covered 0.87-0.90 at 5 tasks x 3-10 runs (0.93-0.94 at 26 tasks) of the steps the three-quarters
#: rule kept, and every share threshold from 0.35 up still missed at 5 tasks x 5 runs (0.93 at 0.35, 0.92 at
#: 0.4-0.6), as did a percentile, basic or bias-corrected band (0.56-0.73 at 3 runs); below 0.3 it covered 0.94-0.97
#: at 5 tasks x 3-10 runs and 26 tasks x 3-5 runs (240 bands each). bootstrap()'s interval of alike agents with
#: 36-70% of their runs at the cap covered 0.87-0.95 at 5 tasks x 3-10 runs (0.96-0.99 at 26 tasks; 400 intervals a
#: point, tests/reference/coverage_bootstrap_median_tied.py); those given under the rule 0.92-0.98 (at 36%, 63-173
#: of 400 given; none at 55-70%). The rule costs intervals that held: at 5-26 tasks x 3-10 runs of the grid's capped
#: scores (a third at the cap) it withholds 77-92% of them (0.97-1.0); bootstrap() (audit s12) and curves() (audit s13)
#: add a condition on the median's task (:data:`MEDIAN_MIDDLE_TIED_SHARE`)
MEDIAN_TIED_SHARE = 0.3
#: audit s12: bootstrap()'s median interval is withheld by :data:`MEDIAN_TIED_SHARE` only where this share or more of
#: the runs of the tasks its estimate sits on tie as well (:func:`median_tied_at_middle`): the median then moves by
#: those tasks' few runs off the tie. With the rule off, two alike agents with 36-70% of their runs at the cap covered
#: 0.87-0.95 at 5 tasks x 3-10 runs (1000 intervals a point, tests/reference/coverage_bootstrap_median_tied.py
#: --rules); the intervals this rule gives (with :data:`MEDIAN_TIED_SHARE_ALONE`) covered 0.96-0.98 at 36% (662-754
#: given), 0.97-0.98 at 55% (206-309) and 0.97-1.0 at 70% (3-75), and 0.98-1.0 at 26 tasks. Withheld instead where
#: the middle task means nearly tie (within one standard error of a neighbour), those given covered 0.82-0.95: a near
#: tie of the tasks is not what misses (tasks whose true means tie exactly covered 0.99-1.0 under this rule,
#: measure_identical). On the grid's capped scores (a third at the cap) it withholds 23-38% of the median's
#: intervals at 5 and 26 tasks x 3-10 runs, the share alone 74-93% (those given held: 0.97-1.0 either way). curves()
#: reads the rule at each step since audit s13 (tests/reference/coverage_curves_median_tied.py, 800 bands a design):
#: on saturated and capped curves at 5 and 10 tasks x 3-10 runs the pointwise bands of the steps it gives and the
#: share alone withheld covered 0.969-0.994, the simultaneous bands holding them 0.974-1.0
MEDIAN_MIDDLE_TIED_SHARE = 0.5
#: audit s12: the share of an agent's runs tied (as for :data:`MEDIAN_TIED_SHARE`) from which bootstrap() withholds
#: the median's interval whatever its task: under the middle rule alone, alike agents with 70% at the cap covered 0.92
#: at 5 tasks x 10 runs (327 of 355 given of 8000); from 0.6 it gives 3 of 1000 there, and costs 0-4% of the capped
#: grid's intervals the middle rule gives
MEDIAN_TIED_SHARE_ALONE = 0.6


def saturated_withheld(at_bound, counts, metric_kinds):
    """(K, M) where the studentised interval of a built-in metric is withheld for saturated runs (bootstrap()'s
    intervals, curves()' bands at a step): ``at_bound`` and ``counts`` (tasks, K) the runs at the task's largest or
    smallest score (:func:`bound_ties`) and all runs, ``metric_kinds`` the metrics' built-in names (None for a user
    metric, never withheld here)."""
    at_bound, counts = np.asarray(at_bound).sum(axis=0), np.asarray(counts).sum(axis=0)
    saturated = at_bound >= SATURATED_SHARE * counts
    off = counts - at_bound
    fewest = np.array([SATURATED_FEWEST_OFF.get(kind, 0) for kind in metric_kinds], dtype=float)
    return saturated[:, None] & (off[:, None] < fewest[None, :])


def median_tied(tied, counts):
    """(K,) agents with ``MEDIAN_TIED_SHARE`` or more of their runs tied at a task's largest or smallest score
    (``tied`` (tasks, K): :func:`ties_at_bounds` with ``tied_only=True``; ``counts`` (tasks, K) all runs): the first
    condition of :func:`median_tied_at_middle`, which withholds the median's studentised interval and bands (audit
    s11 withheld them on this share alone)."""
    return np.asarray(tied).sum(axis=0) >= MEDIAN_TIED_SHARE * np.asarray(counts).sum(axis=0)


def median_tied_at_middle(tied, counts, means):
    """(K,) agents whose median of task means has its studentised interval (bootstrap()) or band (curves(), on the
    runs logged at a step) withheld: those of
    :func:`median_tied` where also ``MEDIAN_MIDDLE_TIED_SHARE`` or more of the runs of the middle tasks tie at
    their task's bound, or ``MEDIAN_TIED_SHARE_ALONE`` or more of all the agent's runs tie. The middle tasks are
    those whose mean equals the middle one (an odd number of tasks) or either of the two middle ones (even): equal
    means count together, whatever the tasks' order. ``tied`` and
    ``counts`` as for :func:`median_tied`, ``means`` (tasks, K) the task means (``Design.cell_matrix``)."""
    tied, counts, means = np.asarray(tied), np.asarray(counts), np.asarray(means, dtype=float)
    out = median_tied(tied, counts)
    alone = tied.sum(axis=0) >= MEDIAN_TIED_SHARE_ALONE * counts.sum(axis=0)
    for j in np.flatnonzero(out & ~alone):
        ordered = np.sort(means[counts[:, j] > 0, j])  # the agent's tasks (a task without its runs: NaN)
        t = ordered.size
        middle = (counts[:, j] > 0) & np.isin(means[:, j], ordered[[(t - 1) // 2, t // 2]])
        out[j] = tied[middle, j].sum() >= MEDIAN_MIDDLE_TIED_SHARE * counts[middle, j].sum()
    return out
