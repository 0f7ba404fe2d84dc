"""From learning curves to what the other back ends read: a common step grid, and one row per run.

A learning-curve frame has one row per (agent, task, run, step). Two public functions turn it into
something every back end can test without counting steps as runs:

- :func:`align_steps` puts runs logged at different steps on one grid, by the last value at or
  before each grid step or by linear interpolation, never outside a run's own range;
- :func:`summarize_runs` reduces each run to one number (final value, mean of the last ``k``
  values, area under the curve, maximum, or the first step reaching a threshold).

Both return a new DataFrame whose ``attrs["rlstats_notes"]`` says what was done; ``design.build``
copies those sentences into every result's notes, so print and ``report()`` state the rule.
The array functions here (:func:`run_bounds`, :func:`default_grid`, :func:`align`) are shared
with the learning-curves back end.
"""

from __future__ import annotations

import numbers
import re

import numpy as np
import pandas as pd

from .design import NOTES_ATTR, build, capture_environment
from .format import count, format_step
from .errors import DesignError, OptionError
from .options import check_bool, check_choice, check_int

ALIGN_METHODS = ("last", "linear")
SUMMARIES = ("final", "last_k_mean", "auc", "max", "time_to_threshold")
#: The most steps a grid may have: every run gets a value at each (and curves keeps each resample's), so
#: one run logged at step 10**9 among runs logged every step must not ask for 10**9 of them.
MAX_GRID_STEPS = 100_000


def run_bounds(design):
    """Start and stop row of each run in a curves Design (rows sorted by task, agent, run, step)."""
    new_run = np.r_[True, (design.task[1:] != design.task[:-1]) | (design.agent[1:] != design.agent[:-1])
                    | (design.run[1:] != design.run[:-1])]
    starts = np.flatnonzero(new_run)
    return starts, np.r_[starts[1:], design.y.size]


def shares_steps(steps, starts, stops):
    """True when every run is logged at exactly the same steps."""
    lengths = stops - starts
    if (lengths != lengths[0]).any():
        return False
    first = steps[starts[0]:stops[0]]
    return bool((steps.reshape(-1, lengths[0]) == first).all())


def default_grid(steps, starts, stops):
    """The steps every run shares, else an even grid at the runs' median logging interval.

    The interval is rounded to two significant digits (5,003 -> 5,000) and the grid runs from the
    earliest first step to the latest last step; each run is missing outside its own range.
    """
    if shares_steps(steps, starts, stops):
        return steps[starts[0]:stops[0]].astype(float)
    gaps = np.concatenate([np.diff(steps[a:b]) for a, b in zip(starts, stops) if b - a > 1] or [np.array([])])
    if gaps.size == 0:
        raise DesignError("every run has a single logged step, so there is no curve to align; "
                          "compare the runs directly instead")
    interval = _two_digits(float(np.median(gaps)))
    low, high = float(steps[starts].min()), float(steps[stops - 1].max())
    first = np.ceil(low / interval - 1e-9) * interval + 0.0  # + 0.0 turns -0.0 into 0.0
    size = np.floor((high - first) / interval + 1e-9) + 1  # counted before np.arange allocates it
    if not size <= MAX_GRID_STEPS:
        raise DesignError(f"the default grid of steps= (from {format_step(first)} to {format_step(high)} at the runs' "
                          f"median logging interval, {format_step(interval)}) would have {size:,.0f} steps, more than "
                          f"the {MAX_GRID_STEPS:,} a grid may have; pass steps= with a coarser grid, "
                          f"e.g. {_coarser_grid(first, high, interval)}")
    return np.arange(first, high + interval * 1e-9, interval)


def _coarser_grid(first, last, interval):
    """``steps=...`` text of a grid of about a thousand steps from ``first`` to ``last``."""
    coarse = _two_digits(max((last - first) / 1000, interval))
    if all(float(b).is_integer() for b in (first, last, coarse)):
        return f"steps=range({int(first):_d}, {int(last) + 1:_d}, {int(coarse):_d})"
    return f"steps=np.linspace({first:g}, {last:g}, 1001)"


def _two_digits(interval):
    """A positive interval rounded to two significant digits (5,003 -> 5,000)."""
    return round(interval, 1 - int(np.floor(np.log10(interval)))) or interval


def align(y, steps, starts, stops, grid, method):
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


def grid_sentence(grid, method, aligned):
    span = f"{grid.size} steps from {format_step(grid[0])} to {format_step(grid[-1])}"
    if not aligned:
        return f"every run is logged at the same {span}"
    rule = ("the last value at or before each step" if method == "last" else "linear interpolation")
    return (f"runs aligned to a grid of {span} by {rule}; grid steps outside a run's logged range are "
            "missing, never extrapolated")


def check_grid(steps):
    """``steps=`` as a float array: finite, increasing, at most MAX_GRID_STEPS (counted before converting)."""
    size = len(steps) if hasattr(steps, "__len__") else 0  # range(10**12) is small until converted
    if size <= MAX_GRID_STEPS:
        try:
            grid = np.asarray(steps, dtype=float).ravel()
        except (TypeError, ValueError):
            grid = np.zeros(0)
        size = grid.size
    if size > MAX_GRID_STEPS:
        raise OptionError(f"steps= has {size:,} steps, more than the {MAX_GRID_STEPS:,} a grid may have; pass a "
                          "coarser grid, e.g. steps=range(0, 1_000_001, 10_000)")
    if grid.size == 0 or not np.isfinite(grid).all() or (np.diff(grid) <= 0).any():
        raise OptionError("steps= must be finite numbers in increasing order, e.g. steps=range(0, 1_000_001, 50_000)")
    return grid


def curves_design(data, formula, step, na_action, eval_env):
    """The curves Design; ``eval_env`` is an EvalEnvironment (the public function captured it)."""
    if not isinstance(step, str):
        raise OptionError(f"step= names the step column, e.g. step='step'; got {step!r}")
    return build(data, formula, na_action=na_action, eval_env=eval_env, step=step, curves=True)


def _value_name(formula):
    """Output column: the response when it is a plain column name, else 'value'."""
    return formula.response if re.fullmatch(r"[A-Za-z_]\w*", formula.response) else "value"


def _run_frame(design, starts, values, name, notes):
    """One row per run (agent, task, seed) with ``values``; notes ride in attrs."""
    f = design.formula
    frame = pd.DataFrame({
        f.groups: np.asarray(design.agents, dtype=object)[design.agent[starts]],
        f.blocks: np.asarray(design.tasks, dtype=object)[design.task[starts]],
        f.replicate: design.seeds[starts],
        name: values,
    })
    frame.attrs[NOTES_ATTR] = tuple(design.notes) + tuple(notes)
    return frame


def align_steps(data, formula, *, step, steps=None, method="last", na_action="raise", eval_env=0):
    """Put every run's learning curve on one grid of steps.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per (agent, task, run, step); never modified.
    formula : str
        ``"score ~ agent | task/seed"``: the response, the agents, the tasks and the run column.
    step : str
        The column holding the training step (numbers).
    steps : array-like, optional
        The grid. By default the steps every run shares, or, when runs are logged at different
        steps, an even grid at the runs' median logging interval (rounded to two digits) from the
        earliest to the latest logged step. A grid of more than 100,000 steps (``MAX_GRID_STEPS``),
        given or made, is an error that proposes a coarser one, before any of it is allocated.
    method : {"last", "linear"}
        ``"last"``: the value at the last logged step at or before each grid step; ``"linear"``:
        linear interpolation between the logged steps around it. Grid steps before a run's first
        or after its last logged step are missing (NaN), never extrapolated.

    Returns
    -------
    pandas.DataFrame
        Columns agent, task, run, step and the response (named as its column, or ``value`` for an
        expression), one row per run and grid step; ``attrs["rlstats_notes"]`` states the grid
        and the rule.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"agent": ["a"] * 3 + ["b"] * 3, "task": "t", "seed": 0,
    ...                    "step": [0, 4, 10, 0, 5, 10], "score": [0.0, 4.0, 10.0, 0.0, 1.0, 2.0]})
    >>> aligned = align_steps(df, "score ~ agent | task/seed", step="step", steps=[0, 5, 10])
    >>> aligned["score"].tolist()
    [0.0, 4.0, 10.0, 0.0, 1.0, 2.0]
    """
    method = check_choice("method", method, ALIGN_METHODS)
    design = curves_design(data, formula, step, na_action, capture_environment(eval_env))
    starts, stops = run_bounds(design)
    logged = design.extra[step].astype(float)
    grid = default_grid(logged, starts, stops) if steps is None else check_grid(steps)
    aligned = not (steps is None and shares_steps(logged, starts, stops))
    values = align(design.y, logged, starts, stops, grid, method)
    frame = _run_frame(design, np.repeat(starts, grid.size), values.ravel(), _value_name(design.formula),
                       [grid_sentence(grid, method, aligned)])
    frame.insert(3, step, np.tile(grid, starts.size))
    return frame


def _threshold_of(threshold, design):
    """Threshold per task: a number for every task, or a mapping task -> number covering them all."""
    if isinstance(threshold, numbers.Real) and not isinstance(threshold, bool):
        values, said = np.full(design.n_tasks, float(threshold)), f"{float(threshold):g}"
    elif isinstance(threshold, (dict, pd.Series)):
        missing = [t for t in design.tasks if t not in threshold]
        if missing:
            raise OptionError(f"threshold= has no value for task(s) {missing[:5]}; give one per task or a single number")
        try:
            values, said = np.array([float(threshold[t]) for t in design.tasks]), "a threshold per task"
        except (TypeError, ValueError):
            raise OptionError("threshold= must give a number for every task") from None
    else:
        raise OptionError("time_to_threshold needs threshold=: a number, or a dict {task: number}")
    if not np.isfinite(values).all():
        task = design.tasks[int(np.flatnonzero(~np.isfinite(values))[0])]
        raise OptionError(f"threshold= must be a finite number; it is {values[~np.isfinite(values)][0]} for task "
                          f"{task!r}, which no score can reach or every score reaches")
    return values, said


def summarize_runs(data, formula, *, step, how="final", k=10, threshold=None, normalize_auc=False,
                   steps=None, method="last", na_action="raise", eval_env=0):
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
        steps (divided by the step range with ``normalize_auc=True``: the curve's average height).
        ``max``: the largest value. ``time_to_threshold``: the first logged step whose value is at
        least ``threshold`` (a number, or a dict per task); runs that never reach it are
        censored: they get the step after the end of training (the last grid step plus one
        logging interval), rank after every run that reached it, and are counted in the notes.
    k : int
        Values averaged by ``last_k_mean``.
    steps, method
        Align the runs first, as :func:`align_steps` does (needed when runs are logged at
        different steps and ``how`` is ``auc`` or ``time_to_threshold``).

    Returns
    -------
    pandas.DataFrame
        Columns agent, task, run and the summary (named as the response column); for
        ``time_to_threshold`` also a boolean ``censored`` column. ``attrs["rlstats_notes"]``
        carries the rule, which every result built from this frame prints and reports.

    Raises
    ------
    DesignError
        Runs cover different step ranges where the summary needs a common one (``auc``), runs
        with a single step for ``auc``, or fewer than ``k`` logged values for ``last_k_mean``.

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
    normalize_auc = check_bool("normalize_auc", normalize_auc)
    design = curves_design(data, formula, step, na_action, capture_environment(eval_env))
    name = _value_name(design.formula)
    starts, stops = run_bounds(design)
    logged = design.extra[step].astype(float)
    notes = []
    if steps is not None or (how in ("auc", "time_to_threshold") and not shares_steps(logged, starts, stops)):
        grid = default_grid(logged, starts, stops) if steps is None else check_grid(steps)
        matrix = align(design.y, logged, starts, stops, grid, method)
        notes.append(grid_sentence(grid, method, True))
        incomplete = np.isnan(matrix).any(axis=1)
        if how == "auc" and incomplete.any():
            i = int(np.flatnonzero(incomplete)[0])
            raise DesignError(
                f"{int(incomplete.sum())} run(s) do not cover the steps {format_step(grid[0])} to "
                f"{format_step(grid[-1])} (e.g. run {design.seeds[starts[i]]!r} of agent "
                f"{design.agents[design.agent[starts[i]]]!r} on task {design.tasks[design.task[starts[i]]]!r}), "
                "so their areas are not comparable; pass steps= covering a range every run reached")
        runs = [row[~np.isnan(row)] for row in matrix]
        run_steps = [grid[~np.isnan(row)] for row in matrix]
        empty = [i for i, r in enumerate(runs) if r.size == 0]
        if empty:
            i = starts[empty[0]]
            raise DesignError(f"{len(empty)} run(s) have no value at any of the steps= given (e.g. run "
                              f"{design.seeds[i]!r} of agent {design.agents[design.agent[i]]!r}, logged from step "
                              f"{format_step(logged[i])}); pass steps= within the logged range")
    else:
        runs = [design.y[a:b] for a, b in zip(starts, stops)]
        run_steps = [logged[a:b] for a, b in zip(starts, stops)]
    first = np.array([s[0] for s in run_steps])
    last = np.array([s[-1] for s in run_steps])
    span = f"steps {format_step(first.min())} to {format_step(last.max())}"
    extra_columns = {}
    if how == "final":
        values = np.array([r[-1] for r in runs])
        ends = (f"every run ends at step {format_step(last[0])}" if (last == last[0]).all() else
                f"runs end between steps {format_step(last.min())} and {format_step(last.max())}")
        notes.append(f"{name}: the value at each run's last logged step ({ends})")
    elif how == "last_k_mean":
        k = check_int("k", k, minimum=1)
        short = np.array([r.size < k for r in runs])
        if short.any():
            raise DesignError(f"{int(short.sum())} run(s) have fewer than k={k} logged values; lower k")
        values = np.array([r[-k:].mean() for r in runs])
        notes.append(f"{name}: the mean of each run's last {k} logged values ({span})")
    elif how == "max":
        values = np.array([r.max() for r in runs])
        notes.append(f"{name}: the largest value of each run ({span})")
    elif how == "auc":
        if (first != first[0]).any() or (last != last[0]).any():
            raise DesignError(f"runs cover different step ranges ({format_step(first.min())}-"
                              f"{format_step(first.max())} to {format_step(last.min())}-{format_step(last.max())}), "
                              "so their areas are not comparable; pass steps= with a range every run covers")
        if any(r.size < 2 for r in runs):
            raise DesignError("a run has a single logged step, so it has no area under its curve")
        values = np.array([np.trapezoid(r, s) if hasattr(np, "trapezoid") else np.trapz(r, s)
                           for r, s in zip(runs, run_steps)])
        if normalize_auc:
            values = values / (last[0] - first[0])
            notes.append(f"{name}: the area under the curve over {span}, divided by the step range "
                         "(the curve's average height, trapezoidal rule)")
        else:
            notes.append(f"{name}: the area under the curve over {span} (trapezoidal rule)")
    else:
        per_task, said = _threshold_of(threshold, design)
        targets = per_task[design.task[starts]]
        reached = [np.flatnonzero(r >= t) for r, t in zip(runs, targets)]
        censored = np.array([hit.size == 0 for hit in reached])
        interval = float(np.median(np.concatenate([np.diff(s) for s in run_steps if s.size > 1]) if
                                   any(s.size > 1 for s in run_steps) else [1.0]))
        after_end = float(last.max()) + interval
        values = np.array([s[hit[0]] if hit.size else after_end for s, hit in zip(run_steps, reached)])
        extra_columns["censored"] = censored
        notes.append(f"{name}: the first logged step at which each run reached {said} ({span}); "
                     f"{int(censored.sum())} of {count(censored.size, 'run')} never reached it and are censored at step "
                     f"{format_step(after_end)}, after the end of training (ranked after every run that reached "
                     "it); smaller is better here, so 'best' in rankings, which favour larger values, reads reversed")
    frame = _run_frame(design, starts, values, name, notes)
    for column, content in extra_columns.items():
        frame[column] = content
    return frame
