"""From learning curves to what the other back ends read: a common step grid, and one row per run.

A learning-curve frame has one row per (agent, task, run, step). Two public functions turn it into
something every back end can test without counting steps as runs:

- :func:`align_steps` puts runs logged at different steps on one grid per task, by the last value at
  or before each grid step or by linear interpolation, never outside a run's own range;
- :func:`summarize_runs` reduces each run to one number (final value, mean of the last ``k``
  values, area under the curve, maximum, or the first logged step reaching a threshold, restricted to
  the last step every run of the task logs).

Both return a new DataFrame whose ``attrs["rlstats_notes"]`` says what was done, bound to the runs and tasks
each note names (:mod:`rlstats.provenance`); ``design.build`` puts those true of the rows it receives into every
result's notes, so print and ``report()`` state the rule, after a pandas subset too.
The array functions here (:func:`run_bounds`, :func:`snap_steps`, :func:`task_ranges`,
:func:`default_grid`, :func:`align`, ...) are shared with the learning-curves back end.
"""

from __future__ import annotations

import collections
import dataclasses
import numbers
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .design import CENSORED, arm_label, block_label, data_and_formula, design_of, public_function, summary_of
from .interop import TABLE, as_pandas
from .format import count, format_step, join_and, plural, singular, verb
from .errors import DesignError, OptionError, as_given, check_key_count, label_named, label_value, labels_keyed, shown
from .options import check_bool, check_choice, check_int
from .provenance import (SMALLER_BETTER, SUMMARY_WORDING, Note, key_values, rebind, set_notes,
                         values_record)
from ._typing import AlignMethod, EvalEnv, FormulaLike, NaAction, RunSummary, Table

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from .design import Design

ALIGN_METHODS = ("last", "linear")
SUMMARIES = ("final", "last_k_mean", "auc", "max", "time_to_threshold")
#: Summaries of a run's logged values: steps= restricts them to the logged steps within its range (it aligns
#: the runs for the others).
LOGGED_SUMMARIES = ("last_k_mean", "max", "time_to_threshold")
#: the options that one ``how`` alone reads, and that how: with another they are an error
SUMMARY_READERS = {"k": "last_k_mean", "threshold": "time_to_threshold", "normalize_auc": "auc"}
#: The most steps a grid may have: every run gets a value at each (and curves keeps each resample's), so
#: one run logged at step 10**9 among runs logged every step must not ask for 10**9 of them.
MAX_GRID_STEPS = 100_000
#: Logged float steps closer than this share of the largest step are one step (float jitter, not two steps).
STEP_TOLERANCE = 1e-9


def run_bounds(design: Design) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Start and stop row of each run in a curves Design (rows sorted by task, agent, run, step)."""
    new_run = np.r_[True, (design.task[1:] != design.task[:-1]) | (design.agent[1:] != design.agent[:-1])
                    | (design.run[1:] != design.run[:-1])]
    starts = np.flatnonzero(new_run)
    return starts, np.r_[starts[1:], design.y.size]


def shares_steps(steps: NDArray[Any], starts: NDArray[np.intp], stops: NDArray[np.intp]) -> bool:
    """True when every run is logged at exactly the same steps."""
    lengths = stops - starts
    if (lengths != lengths[0]).any():
        return False
    first = steps[starts[0]:stops[0]]
    return bool((steps.reshape(-1, lengths[0]) == first).all())


def snap_steps(steps: ArrayLike, starts: NDArray[np.intp]) -> NDArray[np.float64]:
    """The logged steps as floats, float jitter removed: steps closer than STEP_TOLERANCE of the largest are one.

    A run logged at 29999.999999999996 where its siblings log 30000 then shares their grid instead of
    losing its last evaluation; the value most rows hold stands for its group. Integer steps have no
    jitter. Steps stay as logged where merging would give one run two rows at one step.
    """
    values = np.asarray(steps, dtype=float)
    if np.issubdtype(np.asarray(steps).dtype, np.integer) or values.size < 2:
        return values
    unique, index, counts = np.unique(values, return_inverse=True, return_counts=True)
    close = np.diff(unique) <= STEP_TOLERANCE * np.abs(unique).max()
    if not close.any():
        return values
    group = np.r_[0, np.cumsum(~close)]
    order = np.lexsort((-counts, group))  # by group, the value held by most rows first
    leaders = order[np.r_[True, group[order][1:] != group[order][:-1]]]
    snapped = unique[leaders][group[index.ravel()]]
    new_run = np.zeros(values.size, dtype=bool)
    new_run[starts] = True
    if ((snapped[1:] == snapped[:-1]) & ~new_run[1:]).any():
        return values
    return snapped


def as_steps(values: ArrayLike, like: ArrayLike) -> NDArray[Any]:
    """``values`` in the dtype of the step column ``like`` where they hold it exactly (5000, not 5000.0)."""
    values = np.asarray(values, dtype=float)
    dtype = np.asarray(like).dtype
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        if np.isfinite(values).all() and (values >= info.min).all() and (values <= info.max).all():
            converted = values.astype(dtype)
            if (converted == values).all():
                return converted
    elif np.issubdtype(dtype, np.floating):
        return values.astype(dtype)
    return values


def run_label(design: Design, start: int) -> str:
    """'run 3 of agent 'A' on task 't'': the run starting at row ``start`` of a curves Design (which has seeds)."""
    # the formula's columns by their names (audit s32 block32: "of agent 'A' on task 't'" of 'ret ~ algo | env/seed')
    agent = arm_label(design.formula, design.agents[design.agent[start]])
    return (f"run {design.seeds[start]!r} of {agent} on "  # type: ignore[index]
            f"{block_label(design.formula, design.tasks[design.task[start]])}")


def task_ranges(design: Design, steps: NDArray[Any], starts: NDArray[np.intp],
                stops: NDArray[np.intp]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per task, the steps every agent with runs there reaches: arrays (low, high) over tasks.

    An agent reaches a step when one of its runs is logged there or beyond, so one short run does not cut
    everyone's range (it is missing past its end, and said); the range runs from the latest of the agents'
    first logged steps to the earliest of their last. Agents whose ranges do not meet are an error.
    """
    k, n = design.n_agents, design.n_tasks
    cell = design.task[starts] * k + design.agent[starts]
    first: NDArray[np.float64]
    last: NDArray[np.float64]
    first, last = np.full(n * k, np.inf), np.full(n * k, -np.inf)
    np.minimum.at(first, cell, steps[starts])
    np.maximum.at(last, cell, steps[stops - 1])
    first, last = first.reshape(n, k), last.reshape(n, k)
    present = np.isfinite(first)  # agents without runs on a task do not limit it
    low = np.where(present, first, -np.inf).max(axis=1)
    high = np.where(present, last, np.inf).min(axis=1)
    for t in np.flatnonzero(low > high):
        spans = [f"{design.agents[j]} {format_step(first[t, j])} to {format_step(last[t, j])}"
                 for j in np.flatnonzero(present[t])]
        raise DesignError(f"on {block_label(design.formula, design.tasks[t])} no step is reached by every "
                          f"{design.arm_word} ({'; '.join(spans)}), so "
                          "their curves have no step in common; pass steps= with the grid to use")
    return low, high


def default_grid(steps: NDArray[Any], starts: NDArray[np.intp], stops: NDArray[np.intp], low: float | None = None,
                 high: float | None = None) -> tuple[NDArray[Any], bool]:
    """(grid, shared): the steps every run logs within [low, high], else an even grid at their median interval.

    ``shared`` is True when the runs all log the same steps there. The interval is rounded to two
    significant digits in the steps' own unit (:func:`_step_grain`: 5,003 -> 5,000 for steps counted one by one,
    4 x 1,633 -> 4 x 1,600 for frames of 4 steps each), so that steps in other units (frames, steps x 7.3) give the
    same grid in those units (audit s33 meta33: rounded in the column's units, frames for steps moved the grid
    against the logged steps and the area under the curve by 1.6%); steps on no decimal place (raw floats) take
    the median interval unrounded. The even grid runs over [low, high] (by default from the earliest first step
    to the latest last step) and each run is missing outside its own range.
    """
    low = float(steps[starts].min()) if low is None else float(low)
    high = float(steps[stops - 1].max()) if high is None else float(high)
    inside = (steps >= low) & (steps <= high)
    kept = [steps[a:b][inside[a:b]] for a, b in zip(starts, stops)]
    if kept[0].size and all(s.size == kept[0].size and (s == kept[0]).all() for s in kept[1:]):
        return kept[0].copy(), True
    gaps = np.concatenate([np.diff(steps[a:b]) for a, b in zip(starts, stops)])
    if gaps.size == 0:
        raise DesignError("every run has a single logged step, so there is no curve to align; "
                          "compare the runs directly instead")
    median, grain = float(np.median(gaps)), _step_grain(np.concatenate([steps[a:b] for a, b in zip(starts, stops)]))
    interval = median if grain is None else grain * _two_digits(median / grain)
    first = np.ceil(low / interval - 1e-9) * interval + 0.0  # + 0.0 turns -0.0 into 0.0
    size = np.floor((high - first) / interval + 1e-9) + 1  # counted before np.arange allocates it
    if not size <= MAX_GRID_STEPS:
        raise DesignError(f"the default grid of steps= (from {format_step(first)} to {format_step(high)} at the runs' "
                          f"median logging interval, {format_step(interval)}) would have {size:,.0f} steps, more than "
                          f"the {MAX_GRID_STEPS:,} a grid may have; pass steps= with a coarser grid, "
                          f"e.g. {_coarser_grid(first, high, interval)}")
    grid = np.arange(first, high + interval * 1e-9, interval)
    return (grid if grid.size else np.array([low])), False


def _longest(design, steps, starts, stops):
    """(n_tasks, n_agents) last step of each agent's longest run on each task (-inf where it has none)."""
    longest = np.full(design.n_tasks * design.n_agents, -np.inf)
    np.maximum.at(longest, design.task[starts] * design.n_agents + design.agent[starts], steps[stops - 1])
    return longest.reshape(design.n_tasks, design.n_agents)


def _logged_beyond(design, steps, starts, stops, grids, shared, spans=False):
    """'task (a to b)' for each task logged beyond its grid ([] when none is); ``spans``: one per task, None where it
    is not. A grid of the steps every run logs (``shared``, one flag per grid) leaves out every logged step past its
    ends, said however near; an even grid at the runs' median interval, up to an interval past them (its steps need not
    fall on the logged ones: a run logged between two grid steps gives only its last value before each). Audit s29:
    the one-interval slack on a shared grid hid A2C's and PPO's evaluations at 25k on CartPole, beside DQN's runs
    stopping at 20k, under "every run is logged at the same 4 steps from 5k to 20k"."""
    run_task = design.task[starts]
    out = []
    for t, (grid, same) in enumerate(zip(grids, shared)):
        low, high = steps[starts[run_task == t]].min(), steps[stops[run_task == t] - 1].max()
        interval = float(np.median(np.diff(grid))) if grid.size > 1 and not same else 0.0
        if low < grid[0] - interval or high > grid[-1] + interval:
            out.append(f"{design.tasks[t]} ({format_step(low)} to {format_step(high)})")
        elif spans:
            out.append(None)
    return out


def _earliest(design, steps, starts):
    """(n_tasks, n_agents) first step of each agent's earliest run on each task (inf where it has none)."""
    earliest = np.full(design.n_tasks * design.n_agents, np.inf)
    np.minimum.at(earliest, design.task[starts] * design.n_agents + design.agent[starts], steps[starts])
    return earliest.reshape(design.n_tasks, design.n_agents)


def _stopping(design, longest, ends, cut=None):
    """'A on t, B on t' : the agents whose longest run on a task stops at that task's end in ``ends`` (with
    :func:`_earliest`, starts at its start), among the tasks ``cut`` (default all)."""
    pairs = np.argwhere((longest == np.asarray(ends, dtype=float)[:, None])
                        & (True if cut is None else np.asarray(cut)[:, None]))
    return ", ".join(f"{design.agents[j]} on {design.tasks[t]}" for t, j in pairs[:4]) + (
        ", ..." if len(pairs) > 4 else "")


def _limits(design, steps, starts, stops, low, high, where):
    """Why one range for every task starts at ``low`` and ends at ``high``: 'the runs of A on t start {where[0]};
    those of B on u stop {where[1]}', each side said where it cuts steps some task's runs log beyond it, the end alone
    before (session 28: a range cut at its start named every agent as stopping at its end). Each task's own range is
    said by :func:`_cut_text`."""
    run_task = design.task[starts]
    logged_low = min(steps[starts[run_task == t]].min() for t in range(design.n_tasks))
    logged_high = max(steps[stops[run_task == t] - 1].max() for t in range(design.n_tasks))
    late, early = low > logged_low, high < logged_high
    parts = []
    if late.any():
        parts.append(f"{_stopping(design, _earliest(design, steps, starts), low, late)} start {where[0]}")
    if early.any() or not parts:
        parts.append(f"{_stopping(design, _longest(design, steps, starts, stops), high, early if early.any() else None)}"
                     f" stop {where[1]}")
    return "the runs of " + "; those of ".join(parts)


def task_grids(design: Design, steps: NDArray[Any], starts: NDArray[np.intp],
               stops: NDArray[np.intp]) -> tuple[list[NDArray[Any]], bool, list[Any] | None]:
    """The default grid of each task, within the steps every agent reaches there: (grids, shared, cut or None).

    ``cut``, where some task is logged beyond its grid: per task, what :func:`_cut_text` says of it (the agents whose
    runs start where its grid starts or stop where it ends, and its steps logged beyond), made a note bound to the
    tasks by :func:`_cut_note`.
    """
    low, high = task_ranges(design, steps, starts, stops)
    run_task = design.task[starts]
    made = [default_grid(steps, starts[run_task == t], stops[run_task == t], low[t], high[t])
            for t in range(design.n_tasks)]
    grids = [g for g, _ in made]
    beyond = _logged_beyond(design, steps, starts, stops, grids, [same for _, same in made], spans=True)
    if not any(beyond):
        return grids, all(s for _, s in made), None
    logged_low = np.array([steps[starts[run_task == t]].min() for t in range(design.n_tasks)])
    logged_high = np.array([steps[stops[run_task == t] - 1].max() for t in range(design.n_tasks)])
    first, last = _earliest(design, steps, starts), _longest(design, steps, starts, stops)
    cut = [[task, bool(low[t] > logged_low[t]), bool(high[t] < logged_high[t]),
            [design.agents[j] for j in np.flatnonzero(first[t] == low[t])],
            [design.agents[j] for j in np.flatnonzero(last[t] == high[t])], beyond[t]]
           for t, task in enumerate(design.tasks)]
    return grids, all(s for _, s in made), cut


def _pairs(pairs):
    """'A on t, B on t' of (agent, task) pairs, the first 4 named."""
    return ", ".join(f"{a} on {t}" for a, t in pairs[:4]) + (", ..." if len(pairs) > 4 else "")


def _cut_text(cut):
    """The note on the steps logged beyond each task's grid, of the tasks in ``cut`` (:func:`task_grids`); None when
    none of them is logged beyond its grid. Its words are :func:`_limits`' of those tasks."""
    beyond = [span for *_, span in cut if span]
    if not beyond:
        return None
    late = [(a, task) for task, is_late, _, starting, _, _ in cut if is_late for a in starting]
    parts = [f"{_pairs(late)} start where their task's grid starts"] if late else []
    early = any(is_early for _, _, is_early, _, _, _ in cut)
    if early or not parts:
        parts.append(f"{_pairs([(a, task) for task, _, is_early, _, ending, _ in cut if is_early or not early for a in ending])}"
                     " stop where their task's grid ends")
    return (f"each task's grid stays within the steps every agent reaches there (the runs of {'; those of '.join(parts)}"
            f"); steps logged beyond are left out: {', '.join(beyond)}; pass steps= for other steps")


def _cut_note(design, frame, cut):
    """:func:`_cut_text` as a note bound to the tasks of ``frame``, said again of those present (session 28
    runsnotes28: a note of the frame as a whole, it was not shown after any subset of the runs, its tasks kept)."""
    task = design.formula.blocks
    label = {str(v): v for v in frame[task].drop_duplicates().tolist()}  # the frame's values, by their labels
    items = tuple(((label[part[0]],), part) for part in cut if part[0] in label)
    return Note(_cut_text(cut), scope="rows", keys=(task,), items=items, word="rlstats.runs:_reword_cut")


def _reword_cut(note, items, n_rows):
    return _cut_text([list(part) for _, part in items])


def common_grid(design: Design, steps: NDArray[Any], starts: NDArray[np.intp],
                stops: NDArray[np.intp]) -> tuple[NDArray[Any], bool, str | None]:
    """One grid for every task: the steps every agent reaches on every task. Returns (grid, shared, note or None)."""
    low, high = task_ranges(design, steps, starts, stops)
    start, end = low.max(), high.min()
    if start > end:
        spans = "; ".join(f"{t} {format_step(a)} to {format_step(b)}" for t, a, b in zip(design.tasks, low, high))
        raise DesignError(f"no step is reached on every task ({spans}), so curves aggregated over tasks have no "
                          "step in common; pass subset= with the tasks to aggregate, or steps= with the grid to use")
    grid, shared = default_grid(steps, starts, stops, start, end)
    beyond = _logged_beyond(design, steps, starts, stops, [grid] * design.n_tasks, [shared] * design.n_tasks)
    if not beyond:
        return grid, shared, None
    # an even grid's steps sit at its spacing, so it may start after (and end before) the steps the runs reach: said
    # beside them (session 28 runsnotes28: "DQN's runs start at 14" above curves from 20 on the SB3 monitor logs)
    spacing = f"the grid of steps {format_step(float(np.median(np.diff(grid))))} apart" if grid.size > 1 else "the grid"
    said = _limits(design, steps, starts, stops, np.full(design.n_tasks, start), np.full(design.n_tasks, end),
                   (f"at {format_step(start)}" + (f", so {spacing} starts at {format_step(grid[0])}"
                                                  if grid[0] != start else ""),
                    f"at {format_step(end)}" + (f", so {'it' if grid[0] != start else spacing} ends at "
                                                f"{format_step(grid[-1])}" if grid[-1] != end else "")))
    cover = f"curves cover steps {format_step(grid[0])} to {format_step(grid[-1])}, within the steps every agent reaches"
    if design.n_tasks == 1:  # review s28: one task was told to pass subset= to see one task; the agents limit it
        return grid, shared, (f"{cover} ({said}); logged beyond them: {', '.join(beyond)}; pass steps= for other "
                              "steps (an agent's curve is missing at the steps where none of its runs is logged)")
    return grid, shared, (
        f"{cover} on every task ({said}), so that each step aggregates every task at "
        f"the same point of training; logged beyond them: {', '.join(beyond)}; pass subset= to see one task over "
        "its whole range, or steps= for other steps")


def _coarser_grid(first, last, interval):
    """``steps=...`` text of a grid of about a thousand steps from ``first`` to ``last``."""
    coarse = _two_digits(max((last - first) / 1000, interval))
    if all(float(b).is_integer() for b in (first, last, coarse)):
        return f"steps=range({int(first):_d}, {int(last) + 1:_d}, {int(coarse):_d})"
    return f"steps=np.linspace({first:g}, {last:g}, 1001)"


#: The finest decimal place :func:`_step_grain` reads steps on: their digits there stay below this bound, where a float
#: of them is exact to 2**-44 of it and within a thousandth of a digit of an integer (float steps times 10**d).
_GRAIN_DIGITS = 1e10


def _step_grain(steps):
    """The steps' own unit up to a power of ten, or None: the greatest common divisor of their digits at the first
    decimal place that holds them all, powers of ten removed (1 for steps counted one by one or in thousands, 4 for frames of 4 steps, 73
    for steps times 7.3, 5 for 0.05, 0.10, ...); None for steps on no decimal place whose digits stay below
    :data:`_GRAIN_DIGITS` (raw floats). Scaling the steps by ``c`` scales it by ``c`` up to a power of ten whenever
    both have such a place, so an interval rounded to two significant digits in units of it scales alike.

    >>> [_step_grain(np.array(v)) for v in ([0.0, 1630.0, 3270.0], [0.0, 6520.0, 13080.0], [0.05, 0.1], [0.1, 0.7 ** 40])]
    [1, 4, 5, None]
    """
    x = np.abs(steps[np.isfinite(steps)])
    x = x[x > 0]
    if not x.size:
        return None
    top, d = float(x.max()), 0
    while top * 10.0 ** d < _GRAIN_DIGITS or d == 0:
        digits = x * 10.0 ** d
        whole = np.round(digits)
        if (digits == whole).all() if d == 0 else (np.abs(digits - whole) <= top * 10.0 ** d * 2.0 ** -44).all():
            if whole.max() >= 2.0 ** 53:
                return None
            grain = int(np.gcd.reduce(whole.astype(np.int64)))
            while grain % 10 == 0:  # a power of ten rounds alike: steps in thousands keep their grid exactly
                grain //= 10
            return grain
        d += 1
    return None


def _two_digits(interval):
    """A positive interval rounded to two significant digits (5,003 -> 5,000)."""
    return round(interval, 1 - int(np.floor(np.log10(interval)))) or interval


def align(y: NDArray[Any], steps: NDArray[Any], starts: NDArray[np.intp], stops: NDArray[np.intp], grid: NDArray[Any],
          method: AlignMethod) -> NDArray[np.float64]:
    """Values of each run on ``grid``: array (n_runs, n_grid), NaN outside a run's logged range."""
    out = np.full((starts.size, grid.size), np.nan)
    for i, (a, b) in enumerate(zip(starts, stops)):  # one loop per run, not per resample
        xs, ys = steps[a:b], y[a:b]
        inside = (grid >= xs[0]) & (grid <= xs[-1])
        if method == "linear":
            out[i, inside] = np.interp(grid[inside], xs, ys)
        else:
            out[i, inside] = ys[np.searchsorted(xs, grid[inside], side="right") - 1]
    return out


def _span(grid):
    if grid.size == 1:
        return f"1 step, {format_step(grid[0])}"
    return f"{count(grid.size, 'step')} from {format_step(grid[0])} to {format_step(grid[-1])}"  # 1,998 steps


def _rule(method):
    return "the last value at or before each step" if method == "last" else "linear interpolation"


def grid_sentence(grid: NDArray[Any], method: AlignMethod, aligned: bool, beyond: bool = False) -> str:
    """How the runs sit on ``grid``; ``beyond``: some runs log steps past it (the range was cut to the steps every
    agent reaches), so that 'the same steps' holds within the range only (audit s17)."""
    if not aligned:
        return f"every run is logged at the same {_span(grid)}" + (
            " within the curves' range (some runs log steps beyond it: see the note on the range)" if beyond else "")
    return (f"runs aligned to a grid of {_span(grid)} by {_rule(method)}; grid steps outside a run's logged range "
            "are missing, never extrapolated")


def grids_sentence(tasks: Sequence[str], grids: Sequence[NDArray[Any]], method: AlignMethod, aligned: bool,
                   beyond: bool = False) -> str:
    """:func:`grid_sentence` for one grid per task: one sentence, each task's grid named where they differ."""
    return _grids_text(tasks, [_span(g) for g in grids], method, aligned, beyond)


def _grids_text(tasks, spans, method, aligned, beyond=False):
    if all(span == spans[0] for span in spans):
        if not aligned:
            return f"every run is logged at the same {spans[0]}" + (
                " within each task's grid (some runs log steps beyond it: see the note on the grids)" if beyond else "")
        return (f"runs aligned to a grid of {spans[0]} by {_rule(method)}; grid steps outside a run's logged range "
                "are missing, never extrapolated")
    each = "; ".join(f"{task}: {span}" for task, span in zip(tasks, spans))
    if not aligned:
        return f"every run of a task is logged at the same steps, each task over the steps every agent reaches ({each})"
    return (f"runs aligned by {_rule(method)} to a grid per task, over the steps every agent reaches there ({each}); "
            "grid steps outside a run's logged range are missing, never extrapolated")


def _grids_note(design, frame, grids, aligned, method, beyond=False):
    """:func:`grids_sentence` as a note bound to the tasks of ``frame`` (each task's grid), re-worded for those
    present; one grid for every task is true of every run. ``beyond``: some runs log steps past their task's grid."""
    text = grids_sentence(design.tasks, grids, method, aligned, beyond)
    if all(g.size == grids[0].size and (g == grids[0]).all() for g in grids):
        return Note(text)
    task = design.formula.blocks
    label = {str(v): v for v in frame[task].drop_duplicates().tolist()}  # the frame's values, by their labels
    items = tuple(((label[t],), (t, _span(g))) for t, g in zip(design.tasks, grids) if t in label)
    return Note(text, scope="rows", keys=(task,), items=items, word="rlstats.runs:_reword_grids",
                data=(method, aligned, beyond))


def _reword_grids(note, items, n_rows):
    method, aligned, beyond = note.data
    return _grids_text([t for _, (t, _) in items], [span for _, (_, span) in items], method, aligned, beyond)


#: a grid of steps as each front door writes one: Python's range(), and the command line's list (-o reads Python
#: literals, and range(0, 1_000_001, 50_000) would be read as text: audit s31 bfix31)
_GRID_EXAMPLE = ("steps=range(0, 1_000_001, 50_000)", 'steps="[0, 250000, 500000, 750000, 1000000]"')


def _grid_error(before: str, after: str = "", coarser: bool = False) -> OptionError:
    """The refusal ``before`` + a grid of steps + ``after``, the grid written as each front door takes one
    (:data:`_GRID_EXAMPLE`; ``coarser``: Python's every 10,000 steps)."""
    python = "steps=range(0, 1_000_001, 10_000)" if coarser else _GRID_EXAMPLE[0]
    return OptionError(before + python + after, command_line=before + _GRID_EXAMPLE[1]
                       + " (a list: the command line reads no range())" + after)


def check_grid(steps: Any) -> NDArray[np.float64]:
    """``steps=`` as a float array: finite, increasing, at most MAX_GRID_STEPS (counted before converting)."""
    size = len(steps) if hasattr(steps, "__len__") else 0  # range(10**12) is small until converted
    if size <= MAX_GRID_STEPS:
        try:
            grid = np.asarray(steps)
        except (TypeError, ValueError):  # ragged
            grid = np.zeros(0)
        booleans = grid.dtype.kind == "b" or _holds_booleans(steps, grid)
        if booleans or grid.dtype.kind in "SU":  # float() would read True as step 1 and the text "100" as step 100
            raise _grid_error("steps= must be numbers, a grid such as ", f"; got {shown(steps)}"
                              + ("; True and False are not steps" if booleans else ""))
        try:
            grid = grid.astype(float)
        except (TypeError, ValueError):
            grid = np.zeros(0)
        if grid.ndim > 1:  # flattening [[10, 20], [30, 40]] would guess at a grid the caller did not write
            raise _grid_error("steps= must be one grid of steps, a 1-D sequence such as ",
                              f"; got an array of shape {grid.shape}")
        grid = grid.ravel()  # a single number is a grid of one step
        size = grid.size
    if size > MAX_GRID_STEPS:
        raise _grid_error(f"steps= has {size:,} steps, more than the {MAX_GRID_STEPS:,} a grid may have; pass a "
                          "coarser grid, e.g. ", coarser=True)
    if grid.size == 0 or not np.isfinite(grid).all() or (np.diff(grid) <= 0).any():
        raise _grid_error("steps= must be finite numbers in increasing order, e.g. ")
    return grid


def _holds_booleans(steps, grid):
    """Whether a grid given as Python objects (a list, a tuple, an object array) holds a boolean among its numbers:
    numpy makes [True, 100] the integers [1, 100] (audit s19)."""
    if isinstance(steps, range) or getattr(steps, "dtype", np.dtype(object)).kind != "O" or grid.dtype.kind == "b":
        return False
    return any(isinstance(v, (bool, np.bool_)) for v in np.asarray(steps, dtype=object).ravel())


def curves_options(data: object, step: object, na_action: NaAction) -> dict[str, Any]:
    """What a function of learning curves asks of the front door (:func:`rlstats.design.design_of`)."""
    if not isinstance(step, str):
        raise OptionError(f"step= names the step column, e.g. step='step'; got {step!r}")
    if not isinstance(data, pd.DataFrame):  # a ready Design has no step column to align on
        raise DesignError(f"data must be {TABLE} of learning curves (one row per run and step), "
                          f"got {type(data).__name__}")
    return dict(na_action=na_action, step=step, curves=True)


def _value_name(formula):
    """Output column: the response when it is a column's name, plain or back-quoted (`eval/mean_reward`, so that the
    same formula reads the summaries), else 'value'."""
    quoted = re.fullmatch(r"`([^`]+)`", formula.response)
    if quoted:
        return quoted.group(1)
    return formula.response if re.fullmatch(r"[A-Za-z_]\w*", formula.response) else "value"


def _run_frame(data, design, starts, values, name):
    """One row per run (agent, task, seed) with ``values``; the identity columns keep the caller's dtypes
    (integer seeds stay integers, so the frame merges back on them)."""
    f = design.formula
    rows = design.row_position[starts]
    frame = pd.DataFrame({column: data[column].iloc[rows].reset_index(drop=True)
                          for column in (f.groups, f.blocks, f.replicate)})
    frame[name] = values
    frame.attrs = {}  # the notes are set by _annotate
    return frame


@public_function
def align_steps(data: Table, formula: FormulaLike, *, step: str, steps: ArrayLike | None = None,
                method: AlignMethod = "last",
                na_action: NaAction = "raise", eval_env: EvalEnv = 0) -> pd.DataFrame:
    """Put every run's learning curve on a grid of steps.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per (agent, task, run, step); never modified.
    formula : str
        ``"score ~ agent | task/seed"``: the response, the agents, the tasks and the run column.
    step : str
        The column holding the training step (numbers).
    steps : array-like, optional
        One grid for every task. By default each task has its own, over the steps every agent with
        runs there reaches (from the latest of the agents' first logged steps to the earliest of
        their last; an agent reaches a step when one of its runs does), so tasks trained for
        different budgets keep their own range: the steps every run of the task logs there, or,
        when runs are logged at different steps, an even grid at their median logging interval
        (rounded to two significant digits in the steps' own unit: 1,633 -> 1,600 for steps, 4 x 1,633 ->
        4 x 1,600 for frames of 4 steps; unrounded for steps on no decimal place). Logged float steps closer than a billionth of the largest step are
        one step (jitter). A grid of more than 100,000 steps (``MAX_GRID_STEPS``), given or made,
        is an error that proposes a coarser one, before any of it is allocated.
    method : {"last", "linear"}
        ``"last"``: the value at the last logged step at or before each grid step; ``"linear"``:
        linear interpolation between the logged steps around it. Grid steps before a run's first
        or after its last logged step are missing (NaN), never extrapolated.
    na_action : {"raise", "drop", "omit"}
        Rows with missing values: an error, or dropped and counted in the notes. As R's ``na.omit``,
        a dropped row is not used: the grid steps whose value would come from it (by ``"last"``, a
        dropped step between the run's last logged step before and the grid step; by ``"linear"``,
        one between the logged steps around it) are left out of the output, counted and named in
        the notes, not filled in from the neighbouring steps.
    eval_env : int or patsy.EvalEnvironment
        Where names in the response expression that are not columns are looked up: an int counts frames above
        the caller (0, the default: the caller's own names).

    Returns
    -------
    pandas.DataFrame
        Columns agent, task, run (with the caller's dtypes), step (the step column's dtype where the
        grid holds it exactly) and the response (named as its column, or ``value`` for an
        expression), one row per run and grid step; ``attrs["rlstats_notes"]`` states the grids
        and the rule, and counts and names the values filled from (or interpolated between) a run's
        evaluations at a grid step it did not log, and those missing outside its logged range.

    See Also
    --------
    rlstats.summarize_runs : One number per run.
    rlstats.curves : Aggregate curves with bands.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"agent": ["a"] * 3 + ["b"] * 3, "task": "t", "seed": 0,
    ...                    "step": [0, 4, 10, 0, 5, 10], "score": [0.0, 4.0, 10.0, 0.0, 1.0, 2.0]})
    >>> aligned = align_steps(df, "score ~ agent | task/seed", step="step", steps=[0, 5, 10])
    >>> aligned["score"].tolist(), aligned["step"].tolist()[:3]
    ([0.0, 4.0, 10.0, 0.0, 1.0, 2.0], [0, 5, 10])
    """
    method = check_choice("method", method, ALIGN_METHODS)
    data, formula = data_and_formula(data, formula)  # R's order too
    data = as_pandas(data)  # a polars or pyarrow table, converted once (stated); read again below
    design = design_of(data, formula, eval_env=eval_env, **curves_options(data, step, na_action))
    starts, stops = run_bounds(design)
    logged = snap_steps(design.extra[step], starts)
    if steps is None:
        grids, shared, cut = task_grids(design, logged, starts, stops)
        aligned, cut_notes = not shared, [_cut_note(design, _run_frame(data, design, starts, 0, "_"), cut)] if cut else []
    else:
        grids, aligned, cut_notes = [check_grid(steps)] * design.n_tasks, True, []
    beyond = bool(cut_notes)  # steps logged past a task's grid (the note on them), before any other note joins
    run_task = design.task[starts]
    # Runs are sorted by task, so aligning task by task keeps their order; each task keeps its own grid.
    values = [align(design.y, logged, starts[run_task == t], stops[run_task == t], grid, method).ravel()
              for t, grid in enumerate(grids)]
    sizes = np.array([grids[t].size for t in run_task])
    frame = _run_frame(data, design, np.repeat(starts, sizes), np.concatenate(values), _value_name(design.formula))
    frame.insert(3, step, as_steps(np.concatenate([grids[t] for t in run_task]), design.extra[step]))
    run_grids = [grids[t] for t in run_task]
    cells = dropped_cells(data, design, step, starts, stops, logged, run_grids, method)
    kept = [np.ones(g.size, dtype=bool) for g in run_grids] if cells is None else [~c for c in cells]
    if cells is not None:  # na_action="drop": R's na.omit, a dropped row is not used, nor filled in from others
        left_out = np.concatenate(cells)
        if left_out.any():  # bound to their runs: said of the runs a subset keeps (session 28), as the others below
            said = dropped_note(design, starts, cells, run_grids, method, na_action, "left out of the aligned rows")
            cut_notes.append(_cells_note(said, data, design, starts, cells, run_grids,
                                         _dropped_words(method, na_action, "left out of the aligned rows")))
            frame = frame.loc[~left_out].reset_index(drop=True)
    filled = [f & k for f, k in zip(filled_cells(logged, starts, stops, run_grids, method), kept)]
    outside = np.split(np.isnan(np.concatenate(values)), np.cumsum(sizes)[:-1])
    unit = logged_unit(data)
    missing = [m & k for m, k in zip(outside, kept)]
    for masks, words in ((filled, _filled_words(method, unit)),
                         (missing, ("value", f"missing, before the run's first or after its last {unit} (never "
                                             "extrapolated)"))):
        said = _cells_text(design, starts, masks, run_grids, words[1])
        cut_notes += [_cells_note(said, data, design, starts, masks, run_grids, words)] if said else []
    return _annotate(frame, data, design, _whole_runs_dropped(data, design, starts, na_action, "aligned")
                     + [_grids_note(design, frame, grids, aligned, method, beyond)] + cut_notes,
                     _run_keys(design) + (step,), _drop_bound(data, design, step, starts, na_action, "aligned"))


def _dropped_steps(data, design, step, starts):
    """Per run, the sorted steps of its rows dropped by na_action (None when no row was dropped).

    A dropped row counts for the run its agent, task and run columns name, when they and its step are given.
    """
    dropped = _dropped_rows(data, design, step, starts)
    return None if dropped is None else dropped[0]


def _dropped_rows(data, design, step, starts):
    """(per run, the sorted steps of its rows dropped by na_action; per run, how many of its rows were dropped, those
    without a step too), or None when no row was dropped. A dropped row counts for the run its agent, task and run
    columns name, when they are given."""
    if design.n_dropped_rows == 0 or design.row_position is None:
        return None
    f = design.formula
    columns = [f.groups, f.blocks, f.replicate]
    kept = np.zeros(len(data), dtype=bool)
    kept[design.row_position] = True
    gone = data.iloc[np.flatnonzero(~kept)]
    run_of = {key: i for i, key in enumerate(zip(*(data[c].iloc[design.row_position[starts]] for c in columns)))}
    out = [[] for _ in starts]
    rows = np.zeros(len(starts), dtype=int)
    # floats, a missing step NaN: a nullable Int64 step's pd.NA has no truth value in np.isfinite's test
    at_steps = pd.to_numeric(gone[step], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    for *key, at in zip(*(gone[c] for c in columns), at_steps):
        i = run_of.get(tuple(key))
        if i is not None:
            rows[i] += 1
            if np.isfinite(at):
                out[i].append(float(at))
    return [np.sort(np.array(steps_, dtype=float)) for steps_ in out], rows


def _across(xs, dropped, grid, method):
    """Grid cells whose aligned value would come from, or across, one of the ``dropped`` steps of a run logged
    at ``xs``: by "last", a dropped step in (last logged step at or before the cell, cell]; by "linear", one
    strictly between the logged steps around the cell."""
    if dropped.size == 0:
        return np.zeros(grid.size, dtype=bool)
    at = np.searchsorted(xs, grid, side="right") - 1
    before = np.where(at >= 0, xs[np.maximum(at, 0)], -np.inf)
    low = np.searchsorted(dropped, before, side="right")
    if method == "last":
        return np.searchsorted(dropped, grid, side="right") > low
    nxt = np.searchsorted(xs, grid, side="left")
    after = np.where(nxt < xs.size, xs[np.minimum(nxt, xs.size - 1)], np.inf)
    return np.searchsorted(dropped, after, side="left") > low


def dropped_cells(data, design, step, starts, stops, logged, grids, method):
    """Per run, which cells of its grid (``grids[i]``) would read a row dropped by ``na_action`` (by "last": the value
    of the step before; by "linear": interpolation across it), or None when no row was dropped.  R's na.omit: a
    dropped row is not used, so those cells are not read (align_steps, summarize_runs, curves)."""
    dropped = _dropped_steps(data, design, step, starts)
    if dropped is None:
        return None
    return [_across(logged[a:b], dropped[i], grids[i], method) for i, (a, b) in enumerate(zip(starts, stops))]


def dropped_note(design, starts, cells, grids, method, na_action, what="not read"):
    """The one note on grid cells that are not read because they would read a row dropped by ``na_action``
    (:func:`dropped_cells`' ``cells`` per run on ``grids[i]``), naming the first three (align_steps, summarize_runs,
    curves); None when there are none."""
    runs = _cell_runs(design, starts, cells, grids)
    return _cells_words([run for _, run in runs], *_dropped_words(method, na_action, what)) if runs else None


def _dropped_words(method, na_action, what):
    """(unit, what) of :func:`dropped_note`'s words (:func:`_cells_words`)."""
    how = "the value of the step before" if method == "last" else "interpolation across it"
    return "grid step", (f"{what} because {{its}} value would come from a row dropped by na_action={na_action!r} (a "
                         f"dropped row is not used, nor filled in by {how})")


def _cell_runs(design, starts, masks, grids):
    """[(run index, (its label, its first 3 cells' steps, its cells))] of the runs with a cell in ``masks[i]`` (on
    ``grids[i]``), counted with numpy (a fine grid has millions): what :func:`_cells_words` says of them."""
    out = []
    for i in np.flatnonzero([np.any(m) for m in masks]):
        steps = np.asarray(grids[i])[np.asarray(masks[i], dtype=bool)]
        out.append((int(i), (run_label(design, starts[i]), [_number(g) for g in steps[:3]],
                             int(np.count_nonzero(masks[i])))))
    return out


def _cells_words(runs, unit, what):
    """'3 values of 2 runs {what}: run 1 of agent 'A' on task 't' at step 400k; ...' of ``runs``, (label, first steps,
    cells) each (:func:`_cell_runs`), the first three cells named; "{its}" in ``what`` reads "its" or "their"."""
    n = sum(cells for _, _, cells in runs)
    where = [(label, g) for label, steps, _ in runs for g in steps][:3]
    shown = "; ".join(f"{label} at step {format_step(g)}" for label, g in where)
    return (f"{count(n, unit)} of {count(len(runs), 'run')} {what.replace('{its}', 'its' if n == 1 else 'their')}: "
            f"{shown}{'; ...' if n > 3 else ''}")


def _run_names(data, design, starts):
    """Each run's values in the columns naming it (:func:`_run_keys`), as the frames made here hold them."""
    return key_values(data.iloc[design.row_position[starts]], _run_keys(design))


def _cells_note(text, data, design, starts, masks, grids, words):
    """``text``, a note on grid cells of some runs (:func:`dropped_note`, :func:`filled_note`), bound to those runs
    and said again of those present (:func:`_reword_cells`; ``words``: (unit, what) of :func:`_cells_words`): after a
    subset of the runs its counts and names are those of the runs analysed (session 28 curvenotes28: a frame note, it
    was not shown after any subset, its runs kept or not)."""
    keys = _run_keys(design)
    names = _run_names(data, design, starts)
    items = tuple((names[i], run) for i, run in _cell_runs(design, starts, masks, grids))
    return Note(text, scope="rows", keys=keys, items=items, word="rlstats.runs:_reword_cells", data=list(words))


def _reword_cells(note, items, n_rows):
    unit, what = note.data
    return _cells_words([tuple(payload) for _, payload in items], unit, what)


def filled_cells(steps: NDArray[Any], starts: NDArray[np.intp], stops: NDArray[np.intp],
                 grids: Sequence[NDArray[Any]], method: AlignMethod) -> list[NDArray[np.bool_]]:
    """Per run, the cells of its grid (``grids[i]``) whose value :func:`align` takes from other steps than the cell's:
    inside the run's logged range at a step it did not log (by "last": its previous evaluation's value; by "linear":
    interpolated). Steps within STEP_TOLERANCE of the largest are one step, as in :func:`snap_steps`."""
    tolerance = STEP_TOLERANCE * float(np.abs(steps).max()) if steps.size else 0.0
    out = []
    for grid, a, b in zip(grids, starts, stops):
        xs, at = steps[a:b], np.asarray(grid, dtype=float)
        inside = (at >= xs[0]) & (at <= xs[-1])
        before = np.maximum(np.searchsorted(xs, at, side="right") - 1, 0)
        if method == "last":  # the value read is the one at xs[before]
            out.append(inside & (at - xs[before] > tolerance))
        else:  # interpolation reads a logged step's own value only at (or within jitter of) that step
            after = np.minimum(before + 1, xs.size - 1)
            out.append(inside & (np.minimum(at - xs[before], np.abs(xs[after] - at)) > tolerance))
    return out


def _cells_text(design, starts, masks, grids, what):
    """'3 values of 2 runs {what}: run 1 of agent 'A' on task 't' at step 400k; ...' for the cells ``masks[i]`` of
    each run's grid ``grids[i]``, counted with numpy (a fine grid has millions), the first three named; None when
    there are none."""
    runs = _cell_runs(design, starts, masks, grids)
    return _cells_words([run for _, run in runs], "value", what) if runs else None


def logged_unit(data: Any) -> str:
    """What one logged row of a run is, for the notes: "episode" of a frame :func:`rlstats.read_logs` read from
    monitor.csv files (its format's ``values``), "evaluation" otherwise (evaluations.npz's rows, and the unit the
    notes assume of other learning curves). Audit s23: curves said "previous evaluation" of monitor episodes."""
    log = getattr(data, "attrs", {}).get("read_log")
    if log is None:
        return "evaluation"
    from .logs import FORMATS

    record = FORMATS.get(str(getattr(log, "format", "")))
    if record is None or record.values == "logged values":
        return "evaluation"
    return singular(record.values)  # "episodes" -> "episode": format's one rule of a noun's number


def filled_note(design: Design, starts: NDArray[np.intp], filled: Sequence[NDArray[np.bool_]],
                grids: Sequence[NDArray[Any]], method: AlignMethod, unit: str = "evaluation") -> str | None:
    """The one note on the values aligned at a grid step a run did not log (:func:`filled_cells`' ``filled`` per run
    on ``grids[i]``, the cells read), counted with the first three named (audit s17: a skipped evaluation was filled
    from the step before without a word; align_steps, summarize_runs, curves); None when there are none. ``unit``:
    what a logged row is (:func:`logged_unit`)."""
    return _cells_text(design, starts, filled, grids, _filled_words(method, unit)[1])


def _filled_words(method, unit):
    """(unit, what) of :func:`filled_note`'s words (:func:`_cells_words`)."""
    return "value", (f"filled from the run's previous {unit} (a grid step it did not log)" if method == "last"
                     else f"interpolated between the run's {unit}s around a grid step it did not log")


def _threshold_of(threshold, design):
    """(threshold per task, how it was given, the note on keys naming no task of the data or None): a number for
    every task, or a mapping task -> number covering them all. A mapping may name more tasks than the data hold (one
    table of thresholds for a benchmark, the data a subset of its tasks): those keys are said in a note, not used; a
    key naming no task while a task of the data has none is the error of an unknown task (did you mean ...)."""
    unused = None
    if isinstance(threshold, numbers.Real) and not isinstance(threshold, bool):
        values, said = np.full(design.n_tasks, float(threshold)), f"{float(threshold):g}"
    elif isinstance(threshold, (dict, pd.Series)):
        # a key names a task as the data write it (errors.label_named: 3 and "3" name the task printed 3)
        where = f" in column '{design.formula.blocks}'"
        check_key_count(design.tasks, "threshold", threshold)  # its size before its keys are named
        named = {k: label_named(design.tasks, "threshold", k, what="task", listed=True) for k in threshold.keys()}
        covered = {label for label in named.values() if label is not None}
        others = [k for k, label in named.items() if label is None]
        if others and covered == set(design.tasks):  # review30c's threshold={'x', 'y', 'yy'}: said, not silent
            threshold = {k: v for k, v in threshold.items() if named[k] is not None}
            unused = (f"threshold= gives {count(len(others), 'key')} naming no task of the data, not used: "
                      f"{', '.join(as_given(label_value('threshold', k, what='task')) for k in others[:5])}"
                      f"{' ...' if len(others) > 5 else ''} (the tasks are: {', '.join(map(repr, design.tasks[:10]))}"
                      f"{' ...' if design.n_tasks > 10 else ''})")
        threshold = labels_keyed(design.tasks, "threshold", threshold, where=where)  # an unknown key: its error
        missing = [t for t in design.tasks if t not in threshold]
        if missing:
            raise OptionError(f"threshold= has no value for {plural('task', len(missing))} {missing[:5]}; give one per "
                              "task or "
                              "a single number")
        try:
            values, said = np.array([float(threshold[t]) for t in design.tasks]), "a threshold per task"
        except (TypeError, ValueError):
            raise OptionError("threshold= must give a number for every task") from None
    else:
        raise OptionError("time_to_threshold needs threshold= (a number, or a dict {task: number})")
    if not np.isfinite(values).all():
        task = design.tasks[int(np.flatnonzero(~np.isfinite(values))[0])]
        raise OptionError(f"threshold= must be a finite number; it is {values[~np.isfinite(values)][0]} for task "
                          f"{task!r}, which no score can reach or every score reaches")
    return values, said, unused


def _check_summary_options(how, k, threshold, normalize_auc):
    """Options that only one ``how`` reads: given with another, they would be ignored, so they are an error."""
    normalize_auc = check_bool("normalize_auc", normalize_auc)
    given_options = {"k": k is not None, "threshold": threshold is not None, "normalize_auc": normalize_auc}
    for option, reader in SUMMARY_READERS.items():
        if given_options[option] and how != reader:
            raise OptionError(f"{option}= is read only by how={reader!r}, but how={how!r}; drop {option}= or pass "
                              f"how={reader!r}")
    return (10 if k is None else check_int("k", k, minimum=1)), normalize_auc


def _facts(design, starts, run_steps, censored, late=None):
    """Per run, what the summary's note says of it: (task code, label, first step, last step, logging intervals
    (values, counts), censored, reached only after its task's horizon); kept in the note so that it can be said
    again of some of the runs."""
    facts = []
    for i, steps in enumerate(run_steps):
        gaps, times = np.unique(np.diff(steps), return_counts=True)
        facts.append((int(design.task[starts[i]]), run_label(design, starts[i]), _number(steps[0]),
                      _number(steps[-1]), tuple(map(_number, gaps)), tuple(map(int, times)),
                      bool(censored is not None and censored[i]), bool(late is not None and late[i])))
    return facts


def _number(value):
    return value.item() if isinstance(value, np.generic) else value


def _median_of_counts(values, counts):
    """The median of values each repeated ``counts`` times (np.median's, without the repeats); 0 for none."""
    values, counts = np.asarray(values, dtype=float), np.asarray(counts, dtype=np.int64)
    if counts.sum() == 0:
        return 0.0
    order = np.argsort(values, kind="stable")
    values, total = values[order], np.cumsum(counts[order])
    n = int(total[-1])
    low, high = (values[np.searchsorted(total, p, side="right")] for p in ((n - 1) // 2, n // 2))
    return float((low + high) / 2)


def _early_runs(facts):
    """(the runs that end early, as (index into ``facts``, their task's latest end); whether one of them missed no more
    than one evaluation its siblings have; each task's latest end, by task code): the rule of :func:`_ends`."""
    last = np.array([f[3] for f in facts], dtype=float)
    run_task = np.array([f[0] for f in facts])
    early, tops, missed = [], {}, False
    for t in np.unique(run_task):
        mine = np.flatnonzero(run_task == t)
        interval = _median_of_counts([g for i in mine for g in facts[i][4]], [c for i in mine for c in facts[i][5]])
        top = last[mine].max()
        tops[t] = top
        # runs logged on one lattice (same first step, one interval: evaluations every 5k) that stop a step short
        # missed an evaluation their siblings have (audit s29: DQN's last at 20k beside A2C's and PPO's at 25k went
        # unsaid); other runs (episode ends) may stop up to an interval apart by chance
        lattice = all(len(facts[i][4]) == 1 and facts[i][4] == facts[mine[0]][4] and facts[i][2] == facts[mine[0]][2]
                      for i in mine)
        short = [i for i in mine if last[i] < top - (0 if lattice else interval)]
        missed |= lattice and any(last[i] >= top - interval for i in short)
        early += [(i, top) for i in short]
    return early, missed, tops


def _ends(tasks, facts, within=False, horizon=False):
    """The sentence saying where the runs end, and whether some end well before the others of their task.

    A run ends early when its last step is more than one logging interval (its task's median) before
    the latest end in its task, or, where the task's runs are logged on one lattice of steps (the same first
    step and one interval, as evaluations every 5k), any logged step before it: its summary is then taken
    earlier in training than its siblings'.
    ``within``: the runs were cut to the range of steps=, so their ends are their last logged steps there.
    ``horizon``: the summary is restricted to the task's horizon (time_to_threshold), which an early end sets.
    """
    last = np.array([f[3] for f in facts], dtype=float)
    if (last == last[0]).all():
        if within:
            return f"every run's last logged step in that range is {format_step(last[0])}"
        return f"every run ends at step {format_step(last[0])}"
    early, missed, tops = _early_runs(facts)
    ends = [f"{format_step(top)} on {tasks[t]}" for t, top in tops.items()]
    text = (f"{'in that range, ' if within else ''}runs end between steps {format_step(last.min())} and "
            f"{format_step(last.max())}")
    if not early:
        return text + f" (at {', '.join(ends)})"
    # the runs that stop furthest short first (a killed run before the siblings that missed one evaluation: audit
    # s32 hid it behind "..."), in their order otherwise
    early.sort(key=lambda item: -(item[1] - last[item[0]]) / max(abs(float(item[1])), 1e-300))
    shown = "; ".join(f"{facts[i][1]} at {format_step(last[i])}, its task's runs reaching "
                      f"{format_step(top)}" for i, top in early[:3]) + ("; ..." if len(early) > 3 else "")
    one = len(early) == 1
    head = (f"{text}; {count(len(early), 'run')} {verb(len(early), 'ends')} "
            f"{'one logging interval or more' if missed else 'more than one logging interval'} before the "
            f"last run of {'its' if one else 'their'} task, so ")
    if horizon:  # every run of the task is read up to the short run's end only
        several = len({facts[i][0] for i, _ in early}) > 1
        return (f"{head}{'their tasks are' if several else 'its task is' if one else 'their task is'} read up to "
                f"where {'it ends' if one else 'they end'}"
                f" ({shown}); leave the short runs out for a later horizon")
    return (f"{head}{'its value comes' if one else 'their values come'} from earlier in training ({shown}); to "
            "summarise every run at one step, pass steps= ending at a step every run reaches, or leave the short runs "
            "out")


def _summary_text(spec, facts):
    """The note of ``summarize_runs(how=...)`` about the runs ``facts`` describes (:func:`_facts`)."""
    how, name, tasks = spec["how"], spec["name"], spec["tasks"]
    first = min(f[2] for f in facts)
    last = max(f[3] for f in facts)
    within = spec.get("within")
    span = f"steps {format_step(first)} to {format_step(last)}"
    if within is not None:
        span = f"{span} logged within steps= {format_step(within[0])} to {format_step(within[1])}"
    if how == "auc":
        return _auc_text(name, tasks, facts, spec["normalize_auc"])
    ends = _ends(tasks, facts, within is not None, how == "time_to_threshold")
    if how == "final":
        if spec.get("grid"):
            return f"{name}: the value on the grid of steps= at each run's last step there ({ends})"
        return f"{name}: the value at each run's last logged step ({ends})"
    if how == "last_k_mean":
        where = "" if within is None else (f" within steps= {format_step(within[0])} to "
                                           f"{format_step(within[1])}")
        return (f"{name}: the mean of each run's last {spec['k']} logged values{where}, a window ending at the run's "
                f"last logged step{' there' if where else ''} ({ends})")
    if how == "max":
        return f"{name}: the largest value of each run ({span}; {ends})"
    censored = sum(f[6] for f in facts)
    reached = "every run reached it" if not censored else _censored_text(spec, facts, censored, within is not None)
    return (f"{name}: the first of {spec['where']} at which the run reached {spec['said']} ({span}; {ends}); "
            # the note rides with the data, before the analysis: it cannot know the direction a function is told
            # (audit s28: "reads reversed" beside ranks read with higher_is_better=False, which were not); a function
            # taking higher_is_better= reads it from this note's kind, and says so (direction_read; audit s33 ttt33)
            f"{reached}; smaller is better here: a function taking higher_is_better= reads it as False unless it is "
            "given, and says so in a note")


def _censored_text(spec, facts, censored, within):
    """What ``time_to_threshold`` does with the runs that had not reached the threshold by their task's horizon."""
    horizons = {spec["tasks"][f[0]]: spec["horizons"][f[0]] for f in facts}
    if len(set(horizons.values())) == 1:
        at = f"step {format_step(next(iter(horizons.values())))}"
    else:
        at = "steps " + ", ".join(f"{format_step(h)} on {t}" for t, h in horizons.items())
    late = [f[1] for f in facts if f[7]]
    later = "" if not late else (
        f"; {count(len(late), 'run')} of them reached it only after the horizon ({'; '.join(late[:3])}"
        f"{'; ...' if len(late) > 3 else ''}), which the runs that stop there cannot show")
    return (f"{censored} of {count(len(facts), 'run')} never reached it by their task's horizon, the last step every "
            f"run of the task logs{' in that range' if within else ''} ({at}), and count that step{later}: each value "
            "is the run's time to the threshold restricted to its task's horizon, known for every run, so a mean of "
            "them is the restricted mean time up to the horizon, a lower bound of the plain mean time (unknown while a "
            "run has not reached it); runs not reaching it rank after every run reaching it sooner, tied with those reaching it "
            "at the horizon")


def _reword_summary(note, items, n_rows):
    return _summary_text(note.data, [fact for _, fact in items])


def _annotate(frame, data, design, notes, columns, bound=None):
    """``frame``'s notes: those of ``data`` as build re-stated them for the runs it analysed (``design.inherited_notes``),
    carried onto ``frame``'s runs (:func:`rlstats.provenance.rebind`), what the front door said of ``data`` (a note of
    the frame as a whole, or the Note ``bound`` maps its sentence to), then ``notes``. The runs ``build`` left out are
    rlstats' own drop, which its note says: a count of what was read stays as read, as everywhere
    (``rebind(as_read=True)``)."""
    inherited = design.inherited_notes  # what build put first in design.notes, true of the runs it analysed
    said = collections.Counter(note.text for note in inherited)
    own = []
    for sentence in design.notes:
        if said[sentence] > 0:
            said[sentence] -= 1
        else:
            own.append((bound or {}).get(sentence) or Note(sentence, scope="frame"))
    return set_notes(frame, rebind(inherited, frame, as_read=True) + own + list(notes), columns=columns)


@public_function
def summarize_runs(data: Table, formula: FormulaLike, *, step: str, how: RunSummary = "final", k: int | None = None,
                   threshold: float | dict[Any, float] | pd.Series | None = None, normalize_auc: bool = False,
                   steps: ArrayLike | None = None, method: AlignMethod = "last", na_action: NaAction = "raise",
                   eval_env: EvalEnv = 0) -> pd.DataFrame:
    """One row per run: each learning curve reduced to the number a back end compares.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per (agent, task, run, step); never modified.
    formula : str
        ``"score ~ agent | task/seed"``.
    step : str
        The step column.
    how : {"final", "last_k_mean", "auc", "max", "time_to_threshold"}
        ``final``: the value at the run's last logged step. ``last_k_mean``: the mean of its last
        ``k`` logged values. ``auc``: the area under the curve by the trapezoidal rule over the
        steps (divided by the task's step range with ``normalize_auc=True``: the curve's average
        height); the runs of a task must cover the same range (tasks may differ). ``max``: the
        largest value. ``time_to_threshold``: the first step, among the run's own logged steps,
        whose value is at least ``threshold`` (a number, or a dict per task), restricted to the
        task's horizon, the last step every run of the task logs: a run that has not reached it by
        then gets the horizon (``censored`` True), so every value is known, ranks keep the runs that
        reached it sooner ahead, and a mean of the column is the restricted mean time up to the
        horizon (the area under the share of runs not yet there); the plain mean time is not given,
        as runs that never reach the threshold leave it unknown. The notes give each task's horizon,
        count the runs that get it and name those that reached it only later.
        Where runs end at different steps, the notes say where, and name the runs that end more
        than one logging interval before the others of their task, or a logged step before them
        where the task's runs are logged at the same evenly spaced steps (their summaries come from
        earlier in training). Options read by one ``how`` only (``k``, ``threshold``,
        ``normalize_auc``) are an error with another.
    k : int
        Values averaged by ``last_k_mean`` (default 10).
    threshold : float, dict or Series
        The score ``time_to_threshold`` waits for; finite. Per task: keyed by the tasks as the data write them.
    normalize_auc : bool
        Divide ``auc`` by the step range.
    steps, method
        For ``final`` and ``auc``: align the runs on this grid first, as :func:`align_steps` does
        (``final`` is then each run's value at its last step of the grid); ``auc`` of runs logged at
        different steps aligns them on each task's default grid. For ``max``, ``last_k_mean`` and
        ``time_to_threshold``, which read a run's logged values: only the steps logged within the
        range of ``steps`` (its first to its last step) are summarised, and ``method`` is not used;
        a run with no logged step there is an error.
    na_action : {"raise", "drop", "omit"}
        Rows with missing values, as in :func:`align_steps`.
    eval_env : int or patsy.EvalEnvironment
        Where names in the response expression that are not columns are looked up: an int counts frames above
        the caller (0, the default: the caller's own names).

    Returns
    -------
    pandas.DataFrame
        Columns agent, task, run (with the caller's dtypes, so the frame merges back on them) and the
        summary (named as the response column; for ``time_to_threshold``, in the step column's
        dtype where the steps hold it exactly, and a boolean ``censored`` column: the run had not
        reached the threshold by its task's horizon; one minus its mean is the share that had).
        ``attrs["rlstats_notes"]`` carries the rule, which every result built from this frame
        prints and reports. A time to a threshold is better smaller: a function taking
        ``higher_is_better=`` reads it as False from that note unless the option is given, and says
        so; where an operation loses the notes (a merge, a CSV file, a polars round trip) but keeps
        the ``censored`` column, it refuses without the option.

    Raises
    ------
    DesignError
        Runs of a task cover different step ranges where the summary needs a common one (``auc``),
        runs with a single step for ``auc``, or fewer than ``k`` logged values for ``last_k_mean``.

    See Also
    --------
    rlstats.curves : Compare the whole curves step by step instead.
    rlstats.align_steps : Put runs on a common grid of steps.

    Examples
    --------
    >>> import rlstats
    >>> curves = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=4, steps=5, rng=0)
    >>> runs = summarize_runs(curves, "score ~ agent | task/seed", step="step", how="auc")
    >>> len(runs), runs.attrs["rlstats_notes"][-1]
    (24, 'score: the area under the curve over steps 0 to 1M (trapezoidal rule)')
    """
    how = check_choice("how", how, SUMMARIES)
    method = check_choice("method", method, ALIGN_METHODS)
    k, normalize_auc = _check_summary_options(how, k, threshold, normalize_auc)
    data, formula = data_and_formula(data, formula)  # R's order too
    data = as_pandas(data)  # a polars or pyarrow table, converted once (stated); read again below
    design = design_of(data, formula, eval_env=eval_env, **curves_options(data, step, na_action))
    name = _value_name(design.formula)
    starts, stops = run_bounds(design)
    logged = snap_steps(design.extra[step], starts)
    run_task = design.task[starts]
    # (grids, aligned, beyond), (sentence, cells, grids, words) of some runs' cells, made notes once the frame is
    grid_notes: list[Any] = []
    # Rows of each run that the summary reads: all logged rows, or (steps= with a summary of logged values)
    # those logged within the range of steps=.
    rows: list[Any] = [np.arange(a, b) for a, b in zip(starts, stops)]
    within = None
    if steps is not None and how in LOGGED_SUMMARIES:
        grid = check_grid(steps)
        within = (float(grid[0]), float(grid[-1]))
        rows = [r[(logged[r] >= within[0]) & (logged[r] <= within[1])] for r in rows]
        empty = [i for i, r in enumerate(rows) if r.size == 0]
        if empty:
            i = starts[empty[0]]
            raise DesignError(f"{count(len(empty), 'run')} {verb(len(empty), 'has')} no logged step "
                              f"within steps= ({format_step(within[0])} to "
                              f"{format_step(within[1])}; e.g. {run_label(design, i)}, logged from step "
                              f"{format_step(logged[i])} to {format_step(logged[stops[empty[0]] - 1])}); pass steps= "
                              "spanning a range every run logs")
        grid_notes.append(Note(f"how={how!r} reads each run's logged values within the range of steps= (steps "
                               f"{format_step(within[0])} to {format_step(within[1])}), not values aligned to its "
                               "grid"))  # true of every run: kept whatever runs are analysed (session 28)
    if within is None and (steps is not None or (how == "auc" and not shares_steps(logged, starts, stops))):
        if steps is None:
            grids, shared, cut = task_grids(design, logged, starts, stops)
            grid_notes += [(grids, not shared, bool(cut))] + ([("cut", cut)] if cut else [])
        else:
            grids = [check_grid(steps)] * design.n_tasks
            grid_notes.append((grids, True, False))
        runs: list[Any] = [None] * starts.size
        run_steps: list[Any] = [None] * starts.size
        # na_action="drop": the cells that would read a dropped row are not read
        run_grids = [grids[t] for t in run_task]
        cells = dropped_cells(data, design, step, starts, stops, logged, run_grids, method)
        filled = filled_cells(logged, starts, stops, run_grids, method)
        for t, grid in enumerate(grids):
            mine = np.flatnonzero(run_task == t)
            matrix = align(design.y, logged, starts[mine], stops[mine], grid, method)
            for row, i in enumerate(mine if cells is not None else ()):
                matrix[row, cells[i]] = np.nan
            incomplete = np.isnan(matrix).any(axis=1)
            unread = [] if cells is None else [i for i in mine if cells[i].any()]  # this task's own cells
            if how == "auc" and unread:
                i = unread[0]
                raise DesignError(
                    f"{count(sum(cells[j].sum() for j in unread), 'grid step')} of task {design.tasks[t]!r} would read "
                    f"a row dropped by na_action={na_action!r} (e.g. {run_label(design, starts[i])} at step "
                    f"{format_step(grid[cells[i]][0])}), so the areas would not be comparable; fill or remove those "
                    "rows yourself, or pass steps= that avoid them")
            if how == "auc" and incomplete.any():
                one = incomplete.sum() == 1
                raise DesignError(
                    f"{count(incomplete.sum(), 'run')} {verb(incomplete.sum(), 'does')} not cover the steps "
                    f"{format_step(grid[0])} to {format_step(grid[-1])} of task {design.tasks[t]!r} (e.g. "
                    f"{run_label(design, starts[mine[np.argmax(incomplete)]])}), so "
                    f"{'its area is' if one else 'their areas are'} not comparable; pass steps= covering a range "
                    "every run reached")
            for i, row in zip(mine, matrix):
                runs[i], run_steps[i] = row[~np.isnan(row)], grid[~np.isnan(row)]
                read = ~np.isnan(row)
                if how == "final":  # the one value read: the run's last on the grid
                    read[:np.flatnonzero(read)[-1] if read.any() else 0] = False
                filled[i] &= read
        # bound to their runs, once the frame is made: said of the runs a subset keeps (session 28)
        said = None if cells is None else dropped_note(design, starts, cells, run_grids, method, na_action)
        if said:
            grid_notes.append((said, cells, run_grids, _dropped_words(method, na_action, "not read")))
        said = filled_note(design, starts, filled, run_grids, method, logged_unit(data))
        if said:
            grid_notes.append((said, filled, run_grids, _filled_words(method, logged_unit(data))))
        empty = [i for i, r in enumerate(runs) if r.size == 0]
        if empty:
            i = starts[empty[0]]
            raise DesignError(f"{count(len(empty), 'run')} {verb(len(empty), 'has')} no value at any of "
                              "the steps= given (e.g. "
                              f"{run_label(design, i)}, logged from step {format_step(logged[i])}); pass steps= "
                              "within the logged range")
    else:
        runs = [design.y[r] for r in rows]
        run_steps = [logged[r] for r in rows]
    first = np.array([s[0] for s in run_steps])
    last = np.array([s[-1] for s in run_steps])
    extra_columns = {}
    # the notes name the summary column, and the expression a 'value' column holds the summary of
    label = name if name != "value" or design.formula.response == "value" else f"value ({design.formula.response})"
    # 'column': the frame's column of the summary, which design.direction_read checks against the other notes
    spec: dict[str, Any] = {"how": how, "name": label, "tasks": design.tasks, "column": name}
    censored = late = None
    if how == "final":
        values = np.array([r[-1] for r in runs])
    elif how == "last_k_mean":
        short = np.array([r.size < k for r in runs])
        if short.any():
            there = "" if within is None else " within the range of steps="
            raise DesignError(f"{count(short.sum(), 'run')} {verb(short.sum(), 'has')} fewer than k={k} "
                              f"logged values{there}; "
                              "lower k")
        values = np.array([r[-k:].mean() for r in runs])
        spec["k"] = k
    elif how == "max":
        values = np.array([r.max() for r in runs])
    elif how == "auc":
        values = _auc(design, run_task, runs, run_steps, first, last, normalize_auc)
        spec["normalize_auc"] = normalize_auc
    else:
        per_task, said, unused_thresholds = _threshold_of(threshold, design)
        targets = per_task[run_task]
        reached = [np.flatnonzero(r >= t) for r, t in zip(runs, targets)]
        # Each task's horizon: the last step every run of it logs, so that every run's time restricted to it,
        # min(time, horizon), is known (audit s28 censor28: one censor step after the latest run of any task made
        # the means of a 20k task's censored runs read 35k, a number set by another task's budget).
        horizon = np.full(design.n_tasks, np.inf)
        np.minimum.at(horizon, run_task, last)
        cut = horizon[run_task]
        hit_at = np.array([s[hit[0]] if hit.size else np.inf for s, hit in zip(run_steps, reached)])
        censored = ~(hit_at <= cut)  # not reached by the horizon: counts the horizon
        late = censored & np.isfinite(hit_at)  # reached it only after its task's horizon
        raw = design.extra[step]  # the crossing is reported as logged, jitter and all
        values = np.array([raw[r[hit[0]]] if not c else h for r, hit, c, h in zip(rows, reached, censored, cut)],
                          dtype=float)
        values = as_steps(values, raw)
        extra_columns[CENSORED] = censored
        spec.update(where="each run's own logged steps", said=said, horizons=[_number(h) for h in horizon])
    if within is not None:
        spec["within"] = within
    elif steps is not None:
        spec["grid"] = True
    frame = _run_frame(data, design, starts, values, name)
    for column, content in extra_columns.items():
        frame[column] = content
    keys = _run_keys(design)
    if how == "time_to_threshold":
        # which values the note says are times, so that a column no longer holding them is not read as one
        # (design.direction_read; audit s33 review): normalize()'s record, bounded alike (notes34)
        spec["values"] = values_record(frame[list(keys)], frame[name], name, "summarize_runs")
    facts = _facts(design, starts, run_steps, censored, late)
    notes = _whole_runs_dropped(data, design, starts, na_action, "summarised") + [
             entry if not isinstance(entry, tuple) else _cut_note(design, frame, entry[1]) if entry[0] == "cut"
             else _cells_note(entry[0], data, design, starts, *entry[1:])
             if isinstance(entry[0], str) else _grids_note(design, frame, entry[0], entry[1], method, entry[2])
             for entry in grid_notes]
    if how == "time_to_threshold" and unused_thresholds:
        notes.append(Note(unused_thresholds))
    notes.append(Note(_summary_text(spec, facts), scope="rows", keys=keys,
                      items=tuple(zip(key_values(frame, keys), facts)), word=SUMMARY_WORDING,
                      data=spec, kind=SMALLER_BETTER if how == "time_to_threshold" else None))
    return _annotate(frame, data, design, notes, keys, _drop_bound(data, design, step, starts, na_action, "summarised"))


def _drop_bound(data, design, step, starts, na_action, done):
    """{the front door's note on rows dropped by na_action: that note bound to the runs whose rows were dropped}, said
    again of the runs present (:func:`_reword_dropped`): after a subset its count is of the runs analysed (session 28
    curvenotes28: a frame note, it was not shown after any subset, though the runs it dropped rows of were kept).
    Empty where no row of a run kept was dropped. ``done``: what was done to the runs then ("summarised")."""
    dropped = _dropped_rows(data, design, step, starts)
    if dropped is None or not dropped[1].any():
        return {}
    text = next((t for t in design.notes if t.startswith(f"{design.n_dropped_rows} of ") and "rows dropped (" in t),
                None)
    if text is None:
        return {}
    keys = _run_keys(design)
    names = _run_names(data, design, starts)
    items = tuple((names[i], (run_label(design, starts[i]), int(n))) for i, n in enumerate(dropped[1]) if n)
    return {text: Note(text, scope="rows", keys=keys, items=items, word="rlstats.runs:_reword_dropped",
                       data=[na_action, done])}


def _whole_runs_dropped(data, design, starts, na_action, done):
    """[the notes naming the runs every row of which na_action dropped], bound to their agent and task (the runs are in
    no frame made here, so that a subset keeping their agent's runs on their task says them), or to their task alone
    for an agent with no run left: before, a subset of the runs left them unnamed (session 28 runsnotes28). Rows
    missing their agent, task or run name no run."""
    if design.n_dropped_rows == 0 or design.row_position is None:
        return []
    f = design.formula
    columns = [f.groups, f.blocks, f.replicate]
    kept = np.zeros(len(data), dtype=bool)
    kept[design.row_position] = True
    gone = data.iloc[np.flatnonzero(~kept)][columns]
    gone = gone[gone.notna().all(axis=1).to_numpy()]
    present = set(_run_names(data, design, starts))
    rows = collections.Counter(key for key in key_values(gone, columns) if key not in present)
    if not rows:
        return []
    # an agent with no run left (every row dropped) is in no subset's rows: its runs are said of their task's
    agents = {agent for agent, _, _ in present}
    notes = []
    for keys, with_agent in (((f.groups, f.blocks), True), ((f.blocks,), False)):
        items = tuple((((agent, task) if with_agent else (task,)),
                       (f"run {str(run)!r} of agent {str(agent)!r} on task {str(task)!r}", n))
                      for (agent, task, run), n in rows.items() if (agent in agents) == with_agent)
        if items:
            note = Note("", scope="rows", keys=keys, items=items, word="rlstats.runs:_reword_whole",
                        data=[na_action, done])
            notes.append(dataclasses.replace(note, text=_reword_whole(note, items, 0)))
    return notes


def _reword_whole(note, items, n_rows):
    """The note on runs every row of which na_action dropped, of the runs ``items`` names (:func:`_whole_runs_dropped`)."""
    runs = [tuple(payload) for _, payload in items]
    na_action, done = note.data
    shown = "; ".join(f"{label} ({count(rows, 'row')})" for label, rows in runs[:3]) + ("; ..." if len(runs) > 3 else "")
    return (f"{count(len(runs), 'run')} had every row dropped (na_action=\"{na_action}\", a missing or not finite "
            f"value), so {'it is' if len(runs) == 1 else 'they are'} not among the runs {done}: {shown}")


def _reword_dropped(note, items, n_rows):
    """The note on rows dropped by na_action of the runs ``items`` names (:func:`_drop_bound`)."""
    runs = [tuple(payload) for _, payload in items]
    n = sum(rows for _, rows in runs)
    shown = "; ".join(f"{label} ({count(rows, 'row')})" for label, rows in runs[:3]) + ("; ..." if len(runs) > 3 else "")
    na_action, done = note.data
    return (f"{count(n, 'row')} of {count(len(runs), 'run')} dropped (na_action=\"{na_action}\", a missing or not "
            f"finite value) before the runs were {done}: {shown}")


def censored_cells(design: Design) -> NDArray[np.int64] | None:
    """(n_tasks, n_agents): how many of each cell's runs never reached the threshold of the
    ``how="time_to_threshold"`` summary the response is (censored at their task's horizon, which they hold: the cell's
    mean, median or IQM is then a lower bound of the runs' times), read from that summary's note, which records each
    run (bound to the rows ``design`` analyses: :attr:`Design.note_rows`); None where the response is no such
    summary's or the notes are lost (audit s34 ttt34: the task table's marks did not say which cells are bounds)."""
    if design.note_rows is None or design.note_keys is None or not design.formula.is_simple_response:
        return None
    found = None
    for note in design.inherited_notes:
        summary = summary_of(note)
        keys = list(note.keys)
        if (summary is None or not summary[1] or summary[0]["column"] != design.formula.response or not keys
                or any(k not in design.note_keys.columns for k in keys)):
            continue
        censored = {key: bool(fact[6]) for key, fact in note.items if isinstance(fact, tuple) and len(fact) > 6}
        rows = design.note_keys.iloc[design.note_rows[design.row_position]][keys]
        flags = np.array([censored.get(key, False) for key in key_values(rows, keys)], dtype=bool)
        found = flags if found is None else found | flags
    if found is None:
        return None
    counts = np.zeros((design.n_tasks, design.n_agents), dtype=np.int64)
    np.add.at(counts, (design.task, design.agent), found.astype(np.int64))
    return counts


def early_ends(design: Design) -> dict[str, np.ndarray] | None:
    """Where the response is a :func:`rlstats.summarize_runs` summary of each run's last steps (``"final"``,
    ``"last_k_mean"``, ``"max"``), the runs that end early, as that summary's note says them (:func:`_ends`: more than
    one logging interval, or one evaluation of a shared lattice, before their task's last run), so that their values
    come from earlier in training: ``{"runs": (n_tasks, n_agents) count of such runs, "first", "last": the earliest
    and latest end among them (NaN where none), "top": (n_tasks,) the latest end of the task's runs}``, of the runs
    ``design`` analyses; None where there are none or the notes are lost (new-user trial s38: the table's caption
    compared DQN's value at 20k with A2C's and PPO's at 30k unsaid, the notes alone saying so)."""
    if design.note_rows is None or design.note_keys is None or not design.formula.is_simple_response:
        return None
    rows = design.note_keys.iloc[design.note_rows[design.row_position]]
    for note in design.inherited_notes:
        summary = summary_of(note)
        keys = list(note.keys)
        if (summary is None or summary[0]["column"] != design.formula.response
                or summary[0]["how"] not in ("final", "last_k_mean", "max") or not keys
                or any(k not in rows.columns for k in keys)):
            continue
        facts = {key: fact for key, fact in note.items if isinstance(fact, tuple) and len(fact) > 5}
        present = list(dict.fromkeys(k for k in key_values(rows[keys], keys) if k in facts))
        if not present:
            continue
        early, _, tops = _early_runs([facts[k] for k in present])
        if not early:
            return None
        ended = {present[i]: facts[present[i]][3] for i, _ in early}
        top_of = {facts[k][0]: tops[facts[k][0]] for k in present}
        n, k = design.n_tasks, design.n_agents
        out = {"runs": np.zeros((n, k), dtype=np.int64), "first": np.full((n, k), np.nan),
               "last": np.full((n, k), np.nan), "top": np.full(n, np.nan)}
        seen = set()
        for key, t, a in zip(key_values(rows[keys], keys), design.task, design.agent):
            if key in facts:
                out["top"][t] = top_of[facts[key][0]]
            if key not in ended or key in seen:
                continue
            seen.add(key)
            out["runs"][t, a] += 1
            out["first"][t, a] = np.fmin(out["first"][t, a], ended[key])
            out["last"][t, a] = np.fmax(out["last"][t, a], ended[key])
        return out if out["runs"].any() else None
    return None


def censored_note(design: Design) -> list[str]:
    """The line naming the cells whose runs never reached the threshold of the time summary the response is
    (:func:`censored_cells`), for results that rank the runs or cells without marking them (the rank test; audit s34
    ttt34); [] where none is censored or the notes are lost."""
    cells = censored_cells(design)
    if cells is None or not cells.any():
        return []
    task, agent = design.formula.block_word, design.formula.arm_word
    named = [f"{design.agents[a]!r} on {join_and([repr(design.tasks[t]) for t in np.flatnonzero(cells[:, a])], 4)}"
             for a in range(design.n_agents) if cells[:, a].any()]
    return [f"{count(int(cells.sum()), 'run')} in {count(int((cells > 0).sum()), 'cell')} never reached the threshold "
            f"by their {task}'s horizon and hold the horizon, a lower bound of their times ({join_and(named, 6)}): "
            f"each ranks after every run reaching it sooner and ties with any reaching it at the horizon, and a "
            f"statistic of such a cell (its mean or median) is a lower bound too; the {agent}'s rank there is the "
            f"best its runs could have"]


def _run_keys(design):
    """The columns naming a run in the frames made here: agent, task, run."""
    f = design.formula
    return tuple(dict.fromkeys(c for c in (f.groups, f.blocks, f.replicate) if c is not None))


def _auc(design, run_task, runs, run_steps, first, last, normalize_auc):
    """Areas under the runs' curves; the runs of each task must cover one range (tasks may differ)."""
    for t, task in enumerate(design.tasks):
        mine = run_task == t
        low, high = first[mine], last[mine]
        if (low != low[0]).any() or (high != high[0]).any():
            raise DesignError(f"runs of task {task!r} cover different step ranges ({format_step(low.min())}-"
                              f"{format_step(low.max())} to {format_step(high.min())}-{format_step(high.max())}), "
                              "so their areas are not comparable; pass steps= with a range every run covers")
    if any(r.size < 2 for r in runs):
        raise DesignError("a run has a single logged step, so it has no area under its curve")
    trapezoid = getattr(np, "trapezoid", None) or np.trapz
    values = np.array([trapezoid(r, s) for r, s in zip(runs, run_steps)])
    return values / (last - first) if normalize_auc else values


def _auc_text(name, tasks, facts, normalize_auc):
    """The note of ``how="auc"``: each task's step range (one range when they agree)."""
    ranges = {}
    for task, _, low, high, *_ in facts:  # the runs of a task share their range (checked by _auc)
        ranges.setdefault(task, f"{format_step(low)} to {format_step(high)}")
    over = (f"steps {next(iter(ranges.values()))}" if len(set(ranges.values())) == 1 else
            "steps " + ", ".join(f"{r} on {tasks[t]}" for t, r in sorted(ranges.items())))
    if normalize_auc:
        return (f"{name}: the area under the curve over {over}, divided by the step range "
                "(the curve's average height, trapezoidal rule)")
    return f"{name}: the area under the curve over {over} (trapezoidal rule)"
