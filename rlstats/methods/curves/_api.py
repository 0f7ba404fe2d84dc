"""curves(): per-step aggregates of learning curves with whole-run bootstrap bands and curve comparisons."""

from __future__ import annotations

import dataclasses
import itertools
import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import pandas as pd

from ... import calibration, runs
from ...connectivity import label_literal
from ...bounds import (KINDS, MEDIAN_MIDDLE_TIED_SHARE, MEDIAN_TIED_SHARE, MEDIAN_TIED_SHARE_ALONE, check_bounds, clip,
                       clipped_note, known_or_unbounded, median_tied_at_middle, saturated_withheld, tie_counts)
from ...design import NA_ACTIONS, STEP_NAMES, agents_said, data_and_formula, design_of, public_function, subset_rows
from ...cost import MAX_BYTES, admit, shows
from ...interop import as_pandas
from ...format import (a_or_an, by_value, cannot_reject, count, format_step, join_and, listed, names_shown, plural,
                       signif, verb)
from ...errors import DesignError, OptionError, agent_named
from .._replication import untrimmed_iqm_label, untrimmed_iqm_note, verdict
from ...normalization import gap_sides_by_step, raw_gap_note, warn_raw_scales
from ...vocabulary import gap_capped_words, gap_is_mean_words, median_is_mean_words, metric_label
from ...options import (UNITS_SLIP, check_choice, check_confidence_level, check_cost_options, check_fraction,
                       check_n_jobs, check_resamples, is_finite_number)
from ...progress import progress_bar
from ...resampling import agent_seed_sequence, cell_seed_sequence, pair_seed_sequence, seed_sequence
from ...statistics import (ENUMERATED_CELLS, gap_is_mean, listable, median_is_mean, monte_carlo_pvalue,
                           relabellings, skew_widened)
from . import _kernels as kernels
from ._backend import STUDENTIZED_BANDS, cost
from ._result import CurvesResult, no_difference_words, step_ranges, step_stretches
from ..._typing import (AlignMethod, CurveBands, CurveStatistic, EvalEnv, FormulaLike, Label, NaAction, Normalizer,
                        Seed, Subset, Table)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: Bytes a kept resampled value takes at the call's peak (the value, its standard error and the bands' temporaries):
#: 31-55 measured at 3e5 resamples, 2 and 3 agents, 6 and 12 steps (session 18; 8, one float, was assumed before)
PEAK_BYTES_PER_VALUE = 64
#: The most resampled values curves() keeps: n_resamples x grid steps for every agent and comparison (4 GiB at peak,
#: the package's bound, :data:`rlstats.cost.MAX_BYTES`)
MAX_RESAMPLED_VALUES = MAX_BYTES // PEAK_BYTES_PER_VALUE
#: Bytes a run's draw count in one resample takes at the call's peak: each agent's (resamples, runs) counts are kept
#: (int32) until its degrees of freedom are read from them in float64 (12.3 measured at 20,000 resamples of 1,000
#: runs, audit s22); counted with the kept values against the same bound
PEAK_BYTES_PER_DRAWN_RUN = 16
#: The bands' procedure in the package table (rlstats/calibration.csv, tests/reference/calibrate.py), measured at
#: 95% bands and alpha = 0.05.
CALIBRATION = "curves.band"
CALIBRATION_LEVEL = 0.95
#: ``bands=``: the bootstrap-t bands (default since issue 40), and the bands before it (t-expanded percentile
#: pointwise, sup-t with a t quantile simultaneous), kept bit for bit but where the sup-t quantile passes the
#: Bonferroni z (audit s32 simband32), and the bootstrap-t bands before the mean's
#: were widened on the side of the runs' skew (audit s25 band25), kept bit for bit
BAND_METHODS = ("studentized", "expanded", "studentized_unwidened")
#: What ``bands="studentized_unwidened"`` of the mean says of its coverage: the table's rows measure the default, and
#: these are the rows of the unwidened bands that missed (``curves.band`` before audit s25 band25).
UNWIDENED_NOTE = ("bands=\"studentized_unwidened\" gives the mean's studentised bands without the widening on the "
                  "side of the runs' skew (the default before audit s25); measured by simulation, at one task of 5 "
                  "skewed runs they covered 0.918 pointwise (0.888 in the worst of 4 draws of the task's offset and "
                  "scale) and 0.936 simultaneously (0.900) of 800 simulated curves at 95%, below their level; the "
                  "calibration table's rows measure the default bands")
#: What ``bands="studentized_unwidened"`` of another built-in statistic says: its bands are the default's (audit s25
#: review25d: the option was taken without a word)
UNWIDENED_OTHERS = ("bands=\"studentized_unwidened\" changes the mean's bands only (their widening for the runs' "
                    "skew since audit s25): the {}'s bands are the default's, as bands=\"studentized\" gives them")
#: What ``bands="studentized_unwidened"`` of the median says on 1 or 2 tasks, where the default gives it the mean's
#: bands (audit s26 curves26, :func:`_band_options`)
UNWIDENED_MEDIAN = ("bands=\"studentized_unwidened\" gives on {} the median's own studentised bands, bit for bit "
                    "those the default gave before audit s26; the default now gives the median of 1 or 2 task means, "
                    "which is their mean, the mean's bands")
#: (tasks below, fewest runs from, to below, {band: worst coverage}): the designs whose calibration notes read the
#: rows that missed before audit s25 (the rows of one task and 5 runs, bracketed by 5 tasks and 10 runs), and the
#: worst design draw's coverage the figure's title quotes there for ``bands="studentized_unwidened"``
UNWIDENED_MISSED = (5, 5, 10, {"simultaneous": 0.900, "pointwise": 0.888})
#: fewest runs per agent and task with studentised bands (at 2, half of a task's resamples repeat one run)
MIN_STUDENTIZED_RUNS = 3


def _no_step(data):
    """The OptionError of a call without step= (audit s38 fixc38: Python's TypeError of a missing keyword-only
    argument), naming the option, what it is, the data's columns that look like one, and where one score per run goes
    (the command line's ways in its own words: --summarize, --step, --method)."""
    found = [c for c in data.columns if isinstance(c, str) and c.lower() in STEP_NAMES]
    named = join_and(repr(c) for c in found)
    what = "the column of training steps at which each run's score was logged (one row per run and step, e.g. "
    said = f"curves() needs step=, {what}step='step')"
    said_file = f"method 'curves' needs -o step=, {what}-o step=step)"
    summarise = ("rlstats.summarize_runs(data, formula, step=...) makes one score of each run's curve (its last "
                 "step, how='auc', ...)")
    summarise_file = ("--summarize final (or last_k_mean, auc, max, time_to_threshold) with --step makes one score "
                      "of each run's curve")
    if found:
        said += f"; the data have {named}: step={found[0]!r}. For one score per run instead, {summarise}"
        said_file += f"; the file has {named}: -o step={found[0]}. For one score per run instead, {summarise_file}"
    else:
        columns = listed(map(repr, data.columns), limit=8)
        said += (f"; the data have no such column ({columns}): if they hold one score per run, compare those with "
                 f"rlstats.task_table (per task), rlstats.compare or another method; {summarise}")
        said_file += (f"; the file has no such column ({columns}): if it holds one score per run, compare those "
                      f"with another --method (task_table per task); {summarise_file}")
    return OptionError(said, command_line=said_file)


@dataclass(frozen=True)
class CurvesOptions:
    statistic: object = "iqm"
    statistic_name: str = "iqm"
    align: AlignMethod = "last"
    bands: CurveBands = "studentized"
    #: ``compare=`` as given until :meth:`for_agents` checks it against the design's agents: (agent, agent) pairs
    pairs: Any = ()
    n_resamples: int = 2_000
    confidence_level: float = 0.95
    alpha: float = 0.05
    gamma: float = 1.0
    na_action: NaAction = "raise"
    progress: bool = True
    n_jobs: int = 1
    bounds: tuple | None = None

    @classmethod
    def checked(cls, **options: Any) -> CurvesOptions:
        """Validate every option once (``compare`` needs the agents: :meth:`for_agents`); raises OptionError."""
        step = options["step"]
        if not isinstance(step, str):
            raise OptionError(f"step= names the step column, e.g. step='step'; got {step!r}")
        fn, name = _statistic(options["statistic"])
        return cls(
            statistic=fn, statistic_name=name, align=check_choice("align", options["align"], runs.ALIGN_METHODS),
            na_action=check_choice("na_action", options["na_action"], NA_ACTIONS), pairs=options["compare"],
            bands=check_choice("bands", options.get("bands", "studentized"), BAND_METHODS),
            n_resamples=check_resamples(options["n_resamples"], minimum=20),
            confidence_level=check_confidence_level(options["confidence_level"]),
            alpha=check_fraction("alpha", options["alpha"]), gamma=_check_gamma(options["gamma"]),
            progress=check_cost_options(options["progress"], options.get("max_seconds"))[0],
            n_jobs=check_n_jobs(options["n_jobs"]),
            bounds=check_bounds(options.get("bounds")))

    def for_agents(self, agents, **said):
        """The options with the pairs to compare checked against ``agents``; ``said``, what an unknown agent's error
        says of them (:func:`rlstats.design.agents_said`)."""
        return dataclasses.replace(self, pairs=_pairs(self.pairs, agents, said))

    def record(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "statistic"}
        out["pairs"] = [list(p) for p in self.pairs]
        return out


def _statistic(statistic):
    if callable(statistic):
        name = getattr(statistic, "__name__", "")
        if not name or name == "<lambda>":
            raise OptionError("a statistic function needs a name for the tables: give it a __name__ "
                              "(def my_statistic(x): ...)")
        return statistic, name
    return check_choice("statistic", statistic, kernels.STATISTICS), statistic


def _pairs(compare, agents, said):
    if compare is None or compare is False:
        return ()
    if isinstance(compare, str):
        if compare != "all":
            others = [(compare, a) for a in agents if a != compare]  # R's control=: one pair per other agent
            shown = ", ".join(map(repr, others[:3])) + (", ..." if len(others) > 3 else "")
            control = f"; to compare every agent with {compare!r}, pass compare=[{shown}]" if compare in agents else ""
            raise OptionError(f"compare= must be 'all', None or a list of (agent, agent) pairs, got {compare!r}"
                              f"{control}")
        return tuple(itertools.combinations(agents, 2))
    if not isinstance(compare, Iterable):
        raise OptionError(f"compare= must be 'all', None or a list of (agent, agent) pairs, got {compare!r}")
    pairs = []
    for pair in compare:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise OptionError(f"compare= takes pairs of agents such as [('DQN', 'Rainbow')], got {pair!r}")
        # the design's labels (errors.label_named): (0, 2) names the agents printed 0 and 2
        labels = tuple(agent_named(agents, "compare", agent, **said, listed=True) for agent in pair)
        if labels[0] == labels[1]:
            raise OptionError(f"compare= pair {tuple(pair)} compares an agent with itself")
        pairs.append(labels)
    return tuple(pairs)


def _check_gamma(gamma):
    if not is_finite_number(gamma):
        raise OptionError(f"gamma must be a finite number, got {gamma!r}")
    return float(gamma)


def _agent_runs(design, matrix, starts, agent, run_means):
    """The aligned runs of one agent and each run's task code: the tasks in their names' sorted order, and a task's
    runs in the order of their content: the mean of their logged scores (``run_means``, read off the rows, so not
    of the grid, which other agents' steps move), then their values at the grid's first step, the next, ...; NaN
    last. Which draw falls on which run depends on the runs alone, not on their seeds' names (audit s33
    curvestream33: the seeds' sorted order moved the bands when the seeds were renamed alike everywhere); runs
    that tie on all of it are the same curve on the grid, so their order among themselves cannot move a result."""
    mine = design.agent[starts] == agent
    values = matrix[mine]
    task = design.task_places[design.task[starts][mine]]
    order = np.lexsort((*values.T[::-1], run_means[mine], task))
    return values[order], task[order]


def _cell_streams(ss, design):
    """Per task code (the tasks in their names' sorted order), the cell's stream below ``ss`` (an agent's or a pair's),
    keyed by the task's label (resampling.cell_seed_sequence): a cell's draws follow neither the other tasks' names
    nor their number (audit s33 curvestream33)."""
    return [cell_seed_sequence(ss, design.tasks[t]) for t in design.task_order]


def _prepared(values, task_of, n_tasks, options):
    """The sorted arrangement the built-in statistics read; None for a user's function, which gets the runs."""
    return None if callable(options.statistic) else kernels.Prepared(values, task_of, n_tasks, options.gamma)


def _estimate(values, task_of, n_tasks, options):
    """(steps,) statistic of the runs as observed: every run picked once."""
    every_run = np.arange(task_of.size)[None, :]
    return _statistic_of(_prepared(values, task_of, n_tasks, options), values, task_of, n_tasks, every_run,
                         options)[0]


def _statistic_of(prepared, values, task_of, n_tasks, indices, options):
    """(B, steps) statistic of the runs picked by ``indices``, in memory-bounded slices of resamples."""
    out = np.empty((indices.shape[0], values.shape[1]))
    size = kernels.chunk_size(values.shape[0], values.shape[1])
    for start in range(0, indices.shape[0], size):
        part = indices[start:start + size]
        if prepared is None:
            out[start:start + size] = kernels.custom_statistic(values, task_of, n_tasks, part, options.statistic)
        else:
            weights = kernels.weights_from_indices(part, values.shape[0])
            out[start:start + size] = kernels.weighted_statistic(prepared, weights, options.statistic)
    return out


def _bootstrap(values, task_of, n_tasks, options, cells):
    """(B, steps) statistic over whole-run resamples, (B, runs) how often each run was drawn, and for the
    studentised bands of a built-in statistic (B + 1, steps) its standard error on the runs (row 0) and on each
    resample (else None).

    Task t's runs are drawn from its cell's stream ``cells[t]`` alone (:func:`_cell_streams`), RNG_BLOCK resamples
    at a time (:class:`kernels.CellUniforms`: a stream's rows whatever the blocks).
    """
    out = np.empty((options.n_resamples, values.shape[1]))
    counts = np.empty((options.n_resamples, values.shape[0]), dtype=np.int32)
    prepared = _prepared(values, task_of, n_tasks, options)
    studentized = prepared is not None and options.bands in STUDENTIZED_BANDS
    errors = np.empty((options.n_resamples + 1, values.shape[1])) if studentized else None
    if studentized:
        ones = np.ones((1, values.shape[0]))
        limits = kernels.iqm_limits(prepared, ones) if options.statistic == "iqm" else None
        errors[0] = kernels.weighted_std_error(prepared, ones, options.statistic, limits)[0]
    uniforms = kernels.CellUniforms(cells, np.bincount(task_of, minlength=n_tasks))
    for start in range(0, options.n_resamples, kernels.RNG_BLOCK):
        stop = min(start + kernels.RNG_BLOCK, options.n_resamples)
        indices = kernels.bootstrap_indices(uniforms.rows(stop - start), task_of, n_tasks)
        counts[start:stop] = kernels.weights_from_indices(indices, values.shape[0])
        out[start:stop] = _statistic_of(prepared, values, task_of, n_tasks, indices, options)
        if studentized:
            errors[start + 1:stop + 1] = kernels.weighted_std_error(prepared, counts[start:stop].astype(float),
                                                                    options.statistic, limits)
    return out, counts, errors


def _permutation_null(first, second, n_tasks, options, cells, sign=1.0):
    """(B, steps) difference of the statistic after relabelling whole runs within tasks, times ``sign``.

    Task t's relabellings are drawn from the pair's cell stream ``cells[t]`` alone (:func:`_cell_streams`), its pooled
    runs the first agent's and then the second's, each in :func:`_agent_runs`' order.

    The caller passes the pair's agents in their names' sorted order and ``sign=-1.0`` where the pair named them the
    other way, so that the same draws relabel the same runs whichever agent is named first: (a, b) and (b, a) get nulls
    of opposite sign, hence the same p-values bit for bit and mirrored bands.
    """
    (va, ta), (vb, tb) = first, second
    pooled = np.concatenate([va, vb])
    task_of = np.concatenate([ta, tb])
    order = np.argsort(task_of, kind="stable")
    pooled, task_of = pooled[order], task_of[order]
    starts = np.searchsorted(task_of, np.arange(n_tasks))
    n_first = np.bincount(ta, minlength=n_tasks)
    sizes = np.bincount(task_of, minlength=n_tasks)
    slot_task = np.repeat(np.arange(n_tasks), sizes)
    slot_position = np.arange(task_of.size) - starts[slot_task]
    first_slots = slot_position < n_first[slot_task]
    out = np.empty((options.n_resamples, pooled.shape[1]))
    prepared = _prepared(pooled, task_of, n_tasks, options)
    # each relabelled group read as its agent's runs are: the statistic the observed difference is of
    logged = [np.zeros((n_tasks, pooled.shape[1])) for _ in range(2)]  # each agent's runs logged per task and step
    for out_logged, (values, tasks) in zip(logged, ((va, ta), (vb, tb))):
        np.add.at(out_logged, tasks, ~np.isnan(values))
    groups = [(slots, prepared if prepared is None else kernels.as_group(prepared, counts, at))
              for slots, counts, at in ((first_slots, n_first, logged[0]), (~first_slots, sizes - n_first, logged[1]))]
    if enumerated(n_first, sizes - n_first, options.n_resamples):
        # every relabelling once (the observed one among them): the p-values are exact (audit s20: at 3 runs v 3,
        # 2,000 draws of the 20 labellings gave p = 0.0898, below the exact floor of 0.1)
        shuffled = kernels.all_relabellings(starts, sizes, n_first)
        first, second = (_statistic_of(group, pooled, task_of[slots], n_tasks, shuffled[:, slots], options)
                         for slots, group in groups)
        out = first - second
        return out if sign == 1.0 else sign * out
    uniforms = kernels.CellUniforms(cells, sizes)
    for start in range(0, options.n_resamples, kernels.RNG_BLOCK):
        stop = min(start + kernels.RNG_BLOCK, options.n_resamples)
        shuffled = kernels.shuffle_within_tasks(uniforms.rows(stop - start), task_of)
        first, second = (_statistic_of(group, pooled, task_of[slots], n_tasks, shuffled[:, slots], options)
                         for slots, group in groups)
        out[start:stop] = first - second
    return out if sign == 1.0 else sign * out


def enumerated(n_first, n_second, n_resamples):
    """Whether a pair's max-T null lists every relabelling of its runs within tasks once (its p-values then exact):
    there are at most ``n_resamples`` of them (no more random draws than relabellings) and their table of run indices
    has at most :data:`rlstats.statistics.ENUMERATED_CELLS` cells (relabellings x the pair's runs, audit s22: 2 runs
    against 1,000 would have listed 501,501 relabellings in 4 GB); else ``n_resamples`` are drawn at random."""
    labellings = relabellings(n_first, n_second)
    return labellings <= n_resamples and listable(labellings, int(np.sum(n_first) + np.sum(n_second)))


def smallest_attainable(n_first, n_second):
    """The smallest p-value relabelling whole runs within tasks can give: the observed labelling and, with equal runs
    in every task, its mirror (which gives the same largest |difference|) among all :func:`relabellings`."""
    return (2 if np.array_equal(n_first, n_second) else 1) / relabellings(n_first, n_second)


def _short_steps(design, matrix, starts, grid):
    """(agents, steps) where an agent's bands are withheld, the note that says so (None when nowhere), (agents,
    steps) the share of its resamples that repeat one run in every task (:func:`repeat_share`) at each step, NaN
    where a task has no run of the agent logged (its curve is missing there: :func:`_unlogged_note`), and (agents,
    steps, tasks) the runs of each agent and task logged at each step.

    The replication rule (the ``step_bands`` need) is read at each grid step on the runs logged there: runs that
    end early can leave a task with one run of an agent at the last steps, whose resampling adds no spread.
    """
    logged = ~np.isnan(matrix)
    short = np.zeros((design.n_agents, grid.size), dtype=bool)
    repeats = np.zeros((design.n_agents, grid.size))
    at_step = np.zeros((design.n_agents, grid.size, design.n_tasks), dtype=int)
    for s in range(grid.size):
        counts = np.zeros((design.n_tasks, design.n_agents), dtype=int)
        np.add.at(counts, (design.task[starts], design.agent[starts]), logged[:, s])
        at_step[:, s] = counts.T
        repeats[:, s] = np.where((counts > 0).all(axis=0), repeat_share(counts), np.nan)
        mask = verdict("curves", counts, outputs=("step_bands",)).mask("step_bands", counts.shape)
        short[:, s] = mask.any(axis=0)
    if not short.any():
        return short, None, repeats, at_step
    where = "; ".join(f"{agent} at {count(int(short[a].sum()), 'step')} ({_step_span(grid, short[a])}), where "
                      + _tasks_having(grid, (at_step[a] == 1).T, design.tasks, short[a], "one run")
                      for a, agent in enumerate(design.agents) if short[a].any())
    way = _add_runs_way(design, starts, ((at_step == 1) & short[:, :, None]).any(axis=1))
    return short, (f"bands of the curves (and their standard errors) are withheld for {where}: they need at least "
                   f"2 runs per agent and task logged at the step; {way}"), repeats, at_step


def _add_runs_way(design, starts, cells):
    """The way on of bands or comparisons withheld where ``cells`` (agents, tasks) have one run logged at a step:
    runs that reach those steps where the cell has more runs that end earlier, and runs added to it where it has one
    run in all (audit s31 bfix31: a cell of a single run was told to add runs "that reach those steps")."""
    total = np.zeros((design.n_agents, design.n_tasks), dtype=int)
    np.add.at(total, (design.agent[starts], design.task[starts]), 1)
    single = cells & (total == 1)
    said = [f"{agent} has one run of {'each of ' if single[a].sum() > 1 else ''}"
            f"{join_and([design.tasks[t] for t in np.flatnonzero(single[a])], limit=5)} in all"
            for a, agent in enumerate(design.agents) if single[a].any()]
    if not said:
        return "add runs that reach those steps"
    way = f"{'; '.join(said)}: add runs to {'it' if single.sum() == 1 else 'them'}"
    return way + ("; elsewhere add runs that reach those steps" if (cells & ~single).any() else "")


def _two_run_steps(design, at_step, grid, shown):
    """(agents, steps) where a task has 2 runs of the agent logged, among the steps ``shown`` (its bands not withheld
    already, every task with a run logged), and the note that says so (None where there is none): the studentised
    bands' rule for an agent with 2 runs of a task (``MIN_STUDENTIZED_RUNS``) read on the runs logged at each step,
    as the replication rule is (audit s15: from 2 runs of a task whose other runs ended early, bands were given)."""
    two = ((at_step > 0) & (at_step < MIN_STUDENTIZED_RUNS)).any(axis=2) & shown
    if not two.any():
        return two, None
    where = []
    for a, agent in enumerate(design.agents):
        if two[a].any():
            few = (at_step[a] > 0) & (at_step[a] < MIN_STUDENTIZED_RUNS) & two[a][:, None]
            where.append(f"{agent} at {count(int(two[a].sum()), 'step')} ({_step_span(grid, two[a])}), where "
                         + _tasks_having(grid, few.T, design.tasks, two[a], "2 runs"))
    return two, (f"bands of the curves are withheld for {'; '.join(where)}: with 2 runs of a task, half of a task's "
                 "resamples repeat one run, and no band simulated at 2 runs per task held its level; add runs that "
                 "reach those steps")


def _saturated_steps(design, matrix, starts, statistic):
    """(agents, steps) where the studentised bands of a built-in ``statistic`` are withheld for saturated runs
    (audit s10; the rule of ``rlstats.bootstrap``'s intervals, ``rlstats.bounds.saturated_withheld``): at the step,
    three quarters or more of the agent's runs logged there tie at their task's largest or smallest score (a cap) and
    too few are off it; for the median, also bootstrap()'s rule for its interval on the runs logged at the step
    (``rlstats.bounds.median_tied_at_middle``, audit s13): ``MEDIAN_TIED_SHARE`` or more of them tie there and half
    or more of those of the middle tasks do, or 0.6 or more of them all."""
    task, agent = design.task[starts], design.agent[starts]
    shape = (design.n_tasks, design.n_agents * matrix.shape[1])
    at_bound, tied, counts, means = np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for s in range(matrix.shape[1]):
        logged = ~np.isnan(matrix[:, s])
        runs_there = (task[logged], agent[logged], matrix[logged, s], design.n_tasks, design.n_agents)
        # both counts from one pass: at_bound for every statistic's rule, tied for the median's
        at_bound[:, s::matrix.shape[1]], tied[:, s::matrix.shape[1]] = tie_counts(*runs_there)
        cell = task[logged] * design.n_agents + agent[logged]
        cells = np.bincount(cell, minlength=design.n_tasks * design.n_agents)
        counts[:, s::matrix.shape[1]] = cells.reshape(design.n_tasks, design.n_agents)
        if statistic == "median":
            with np.errstate(invalid="ignore", divide="ignore"):  # a cell without a run logged: NaN, not read
                sums = np.bincount(cell, matrix[logged, s], minlength=cells.size)
                means[:, s::matrix.shape[1]] = (sums / cells).reshape(design.n_tasks, design.n_agents)
    withheld = saturated_withheld(at_bound, counts, (statistic,))[:, 0]
    if statistic == "median":
        withheld |= median_tied_at_middle(tied, counts, means)
    return withheld.reshape(design.n_agents, matrix.shape[1])


def _saturated_note(saturated, agents, grid, statistic):
    """The note of the steps whose studentised bands are withheld for saturated runs (None where none is)."""
    if not saturated.any():
        return None
    where = "; ".join(f"{agent} at {count(int(saturated[a].sum()), 'step')} ({_step_span(grid, saturated[a])})"
                      for a, agent in enumerate(agents) if saturated[a].any())
    if statistic == "median":
        return (f"bands of the curves are withheld for {where}: there {MEDIAN_TIED_SHARE:g} or more of the agent's "
                "runs tie at a task's largest or smallest score (a cap reached), and "
                f"{MEDIAN_MIDDLE_TIED_SHARE:g} or more of those of the tasks the median sits on (or "
                f"{MEDIAN_TIED_SHARE_ALONE:g} or more of all its runs), whose few runs off the tie move the median of "
                "task means in jumps its resamples do not see (bootstrap()'s rule for its median interval): on "
                "simulated curves with a cap reached by 17% to 85% of the runs, the median's pointwise bands covered "
                "0.87-0.90 at 5 tasks x 3-10 runs given wherever fewer than three quarters of the runs sat at the "
                "cap, and 0.96-0.98 at 5 and 10 tasks with such steps withheld; report the share of runs at the cap "
                "at those steps, or the curves of the mean or IQM")
    return (f"bands of the curves are withheld for {where}: there three quarters or more of the agent's runs sit at a "
            "task's largest or smallest score (a cap often reached) and too few are off it to read their spread "
            "(bootstrap()'s rule for its intervals): on simulated curves whose last steps have 85% of the runs at a "
            "cap, the simultaneous bands covered 0.81-0.88 at 5 tasks x 3-10 runs and the median's pointwise bands "
            "0.76-0.92 at 5-26 tasks; report the share of runs at the cap at those steps, or add runs and tasks")


def _unlogged_note(design, matrix, starts, grid, logged, stops, custom):
    """The note on the grid steps where a task has no run of an agent logged, where a built-in statistic's curve and
    bands are missing (a statistic function gets the task NaN-padded); None when there are none. A DesignError when
    no run at all is logged at any grid step (``steps=`` past every run, or before every run's start)."""
    counts = np.zeros((design.n_tasks, design.n_agents, grid.size), dtype=int)
    np.add.at(counts, (design.task[starts], design.agent[starts]), ~np.isnan(matrix))
    empty = (counts == 0).any(axis=0)  # (agents, steps)
    if not empty.any():
        return None
    span = f"{format_step(logged[starts].min())} to {format_step(logged[stops - 1].max())}"
    nothing = (counts == 0).all(axis=(0, 1))
    if nothing.all():
        raise DesignError(f"no run is logged at any of the {count(grid.size, 'grid step')} (from "
                          f"{format_step(grid[0])} to {format_step(grid[-1])}), so there is no curve to show; the "
                          f"runs are logged from step {span}: pass steps= within that range")
    parts = []
    if nothing.any():
        parts.append(f"no run is logged at {count(int(nothing.sum()), 'step')} ({_step_span(grid, nothing)}; the "
                     f"runs are logged from step {span})")
    for a, agent in enumerate(design.agents):
        mine = empty[a] & ~nothing
        if mine.any():
            on, every, _ = _on_tasks(grid, (counts[:, a] == 0) & mine, design.tasks, mine)
            parts.append(f"{agent} has no run logged {on} at {count(int(mine.sum()), 'step')} "
                         f"({_step_span(grid, mine)})" if every else
                         f"{agent} has no run logged at {count(int(mine.sum()), 'step')} ({_step_span(grid, mine)}): "
                         f"{on}")
    what = ("the statistic function gets a task without runs (NaN-padded)" if custom
            else "curves and bands are missing")
    return (f"{what} where a task has no run of the agent logged: {'; '.join(parts)}; pass steps= within the range "
            "the runs reach, or add runs that reach those steps")


#: Groups of tasks a note names with their steps (tasks at the same steps said together); the rest are counted
TASK_GROUPS_SHOWN = 4
#: Task names a note lists in one group; the rest are counted
TASKS_SHOWN = 5


def _on_tasks(grid, per_task, tasks, covering):
    """Where ``per_task`` ((tasks, steps) bool, rows in ``tasks``' order) holds, in words, each task with its own
    steps (session 28: the tasks pooled over the steps read as every task at every step): "on t1 and t2" where every
    task named holds at every step of ``covering`` (the steps the note counts); else tasks at the same steps said
    together, in the order of their first step, "on t1 at steps 500k to 800k and on t2 and t3 at step 800k", past
    ``TASK_GROUPS_SHOWN`` groups the rest counted ("and on 7 more tasks at other steps"). Returns (the words,
    whether every task named holds at every step of ``covering``, the tasks named or counted)."""
    rows = np.flatnonzero(per_task.any(axis=1))
    masks, group_of = np.unique(per_task[rows], axis=0, return_inverse=True)
    group_of = group_of.ravel()
    order = np.argsort([np.argmax(m) for m in masks], kind="stable")
    named = [names_shown([tasks[t] for t in rows[group_of == g]], tasks)
             for g in order]
    if len(masks) == 1 and np.array_equal(masks[0], covering):
        return f"on {join_and(named[0], limit=TASKS_SHOWN)}", True, rows.size
    parts = [f"on {join_and(n, limit=TASKS_SHOWN)} at {plural('step', masks[g].sum())} "
             f"{_step_span(grid, masks[g])}" for n, g in zip(named, order)]
    rest = sum(len(n) for n in named[TASK_GROUPS_SHOWN:])
    parts = parts[:TASK_GROUPS_SHOWN] + ([f"on {count(rest, 'more task')} at other steps"] if rest else [])
    return join_and(parts), False, rows.size


def _tasks_having(grid, per_task, tasks, covering, runs, agent=None):
    """"t1 and t2 have one run (of A) logged" where every task named holds at every step of ``covering``, else "it (A)
    has one run logged on t1 at steps 500k to 800k and on t2 at steps 700k to 800k" (:func:`_on_tasks`); ``runs``:
    "one run", "2 runs"; ``agent``: the agent named, None where the note has named it already."""
    on, every, n = _on_tasks(grid, per_task, tasks, covering)
    if every:
        return f"{on[3:]} {verb(n, 'has')} {runs}{'' if agent is None else ' of ' + agent} logged"
    return f"{'it' if agent is None else agent} has {runs} logged {on}"


#: Stretches of steps a note lists; the steps of the others are counted
STRETCHES_SHOWN = 6


def _step_span(grid, mask):
    """The grid steps where ``mask`` holds, in words: "5k to 20k" where they are one stretch of the grid, else each
    stretch as the comparisons' lines name them ("190-191, 193, 198"; audit s13: a span "190 to 198" read as every
    step between)."""
    steps = grid[mask]
    first, last = format_step(steps[0]), format_step(steps[-1])
    pairs = step_stretches(grid, mask)
    if len(pairs) == 1:
        return first if first == last else f"{first} to {last}"
    if len(pairs) <= STRETCHES_SHOWN:
        return step_ranges(pairs)
    # the rest counted in steps (session 28: "and 132 more" counted stretches beside "153 steps", read as steps)
    shown = step_ranges(pairs[:STRETCHES_SHOWN])
    rest = int(np.count_nonzero(mask & (grid > pairs[STRETCHES_SHOWN - 1][1])))
    return f"{shown} and {count(rest, 'more step')}"


def _expansion(counts, agents=(), tasks=(), words=("task", "agent")):
    """Per agent, sqrt(n / (n - 1)) for its fewest runs in a task: the bootstrap's variance is (n - 1)/n.

    Below the declared replication of the bands (an agent with no task of 2 runs) the design is refused; an agent
    with a task of one run gets no finite expansion (inf): its bands are withheld at every step (``step_bands``)."""
    verdict("curves", counts, agents=agents, tasks=tasks, words=words)  # words: the data's columns (words33b)
    fewest = np.where(counts > 0, counts, np.iinfo(np.int64).max).min(axis=0)
    with np.errstate(divide="ignore"):
        return np.sqrt(fewest / (fewest - 1.0)), fewest


@public_function
def curves(data: Table, formula: FormulaLike | None = None, *, step: str | None = None,
           statistic: CurveStatistic | Callable[..., Any] = "iqm",
           steps: ArrayLike | None = None, align: AlignMethod = "last",
           compare: str | Sequence[tuple[Label, Label]] | None = None, bands: CurveBands = "studentized",
           n_resamples: int = 2_000,
           confidence_level: float = 0.95, alpha: float = 0.05, normalize: Normalizer = None, gamma: float = 1.0,
           bounds: tuple[float | None, float | None] | None = None, subset: Subset = None, na_action: NaAction = "raise",
           rng: Seed = None, progress: bool = True, max_seconds: float | None = None, n_jobs: int = 1,
           eval_env: EvalEnv = None) -> CurvesResult:
    """Aggregate learning curves step by step, with bands that keep each run's trajectory together.

    At every step the chosen statistic aggregates each agent's runs over tasks (after
    ``normalize=``). Intervals come from the stratified bootstrap that resamples **whole runs**
    within each task, so the same resampled runs make every step of a resampled curve.

    The default bands (``bands="studentized"``) are studentised: each resample's deviation from
    the estimate at a step is divided by the resample's own standard error (the stratified
    standard error of the statistic: of the task means for the mean, of the winsorised scores for
    the IQM, of the shortfalls for the optimality gap; the median is scaled by its tasks' mean
    standard error), and the band is the estimate minus the quantiles of those ratios times the
    standard error (the bootstrap-t): pointwise at each step, and simultaneously from the
    quantiles of the largest and the smallest ratio over steps, each at half the error (a sup-t
    band). The ratio carries the skewness of the scores and the uncertainty of a standard error
    from few runs, which a normal or t quantile does not. Each band is then the hull of that band
    and the ``bands="expanded"`` one (below), which holds where the statistic moves in jumps (the
    median of task means, runs tied at a ceiling), and the simultaneous band is widened to hold the
    pointwise one at every step (a band that holds the whole curve holds each step; audit s12: where
    one or two steps are given, as on saturated curves, the symmetric sup-t hull had been the
    narrower, and the median's simultaneous band at 26 tasks of 10 runs covered 0.930 of 1,920
    bands). The median's bands are also widened on the side of the runs' skew at each step, by the
    Cornish-Fisher term ``bootstrap()`` adds to its median's interval (skewness / 6 (2 z^2 + 1)
    standard errors, the runs' skewness pooled over tasks): the middle task's mean is skewed like
    its runs, and at 10 tasks of 10 skewed runs the pointwise band had covered 0.927 (0.876 in the
    worst design draw), missing above. The mean's bands are widened alike (audit s25), with the
    runs' skewness pooled over tasks and steps, one shape for the whole curve (the skewness of 5
    runs at one step is at most 1.5 and too noisy to widen by), and its pointwise band also holds
    Hall's skew-corrected t band at that skewness (Hall 1992; the t quantile at the step's
    effective degrees of freedom): at one task of 5 skewed runs the bands had covered 0.918
    pointwise (0.888 in the worst design draw) and 0.936 simultaneously (0.900) of 800; the
    widening alone left the pointwise band at 0.927-0.931 of three independent sets of 800, short
    over the 2,400, and with Hall's band it covered 0.956-0.959. Hall's cubic is flat at
    u = -3 / k (k the mean's skewness), and where the t quantile passed 1 / k - k / 6 the band's
    end on the side of the skew jumped (1.70 times the t band's width at a G1 of 0.78 of 5 runs,
    2.38 at 0.80) and then shrank as the skewness grew (2.09 at 1.5); since audit s26 that end
    follows the cubic while its slope there is at least 0.36 and goes on along its tangent in k
    beyond, so the width rises with the skewness, continuously (at most 2.2 times the t band at
    5 runs). At one task of 5 skewed runs the pointwise band covers 0.950 and 0.951 of two sets of
    800 (0.957 and 0.959 before), at a median 1.11 times the unwidened width (1.16 before), and
    0.955 at 10 runs (0.960); at the other points measured (5 tasks of 3 and 5 skewed runs, one
    task of 5 normal, heavy-tailed and capped runs) coverage moved by at most 0.002 and the median
    width by at most 0.4% (``tests/reference/curves_mean_skew.py``).
    ``bands="studentized_unwidened"`` gives the mean's bands before audit s25, bit for bit (the other
    statistics' bands are the default's, which a note says). For the IQM and the median, a resample's
    standard error is floored at a quarter of the resamples' standard deviation at the step, for
    the mean at 0.15 of it (``SE_FLOOR`` of ``rlstats.methods.curves._kernels``): a resample whose
    winsorised runs tie (the IQM where tasks' scores do not overlap), or that holds only 2 distinct
    runs whose trajectories cross (the mean of one task's 5 runs: a tenth of the resamples), has a
    standard error near 0 that sees none of its deviation, and its ratio would otherwise withhold
    the band or make it far too wide (the IQM: hundreds of data ranges; the mean's simultaneous
    band of 5 skewed runs of one task: 7.9 times the oracle's width unfloored, 2.7 times floored).
    Where more than the tail's share of resamples repeat a single run in every task (with one
    task, below 4 runs), and everywhere at 2 runs per task (and at the steps where a task has 2 runs
    of the agent logged, its other runs having ended), the band is withheld with a note (add
    runs, or tasks). So is it at the steps where an agent's runs mostly sit at a cap, by
    ``bootstrap()``'s rule for its intervals (three quarters or more of the runs logged there at
    their task's largest or smallest score, too few off it): there the simultaneous bands covered
    0.81-0.88 at 5 tasks of 3-10 runs, and those of the steps given 0.94-1.0 once withheld. The
    median's bands are withheld too by ``bootstrap()``'s rule for its median interval, on the runs
    logged at the step (``rlstats.bounds.median_tied_at_middle``): where 0.3 or more of the agent's
    runs there tie at their task's largest or smallest score (two or more of the task's runs there;
    ``MEDIAN_TIED_SHARE``) and half or more of those of the tasks the median sits on do
    (``MEDIAN_MIDDLE_TIED_SHARE``), or 0.6 or more of them all (``MEDIAN_TIED_SHARE_ALONE``): the
    median of task means then moves in jumps that the resamples of mostly tied runs do not see. On
    simulated curves whose cap is reached by 17% to 85% of the runs, its pointwise band had covered
    0.87-0.90 of the steps the three-quarters rule kept at 5 tasks of 3-10 runs. Audit s11 withheld
    it wherever the share alone was reached (0.94-0.97 then); audit s13 measured the steps the finer
    rule gives back (``tests/reference/coverage_curves_median_tied.py``, 800 bands a design): at 5
    and 10 tasks of 3-10 runs their pointwise bands covered 0.969-0.981 on those curves and
    0.989-0.994 on the ``capped`` ones (a third of the runs at the cap at the last step), the
    simultaneous bands holding such steps 0.974-0.990 and 0.986-1.0, and every band 0.96-0.98
    (pointwise) and 0.96-1.0 (simultaneous); on the ``capped`` curves 1-8% of the median's steps are
    withheld (23-26% by the share alone). Continuous scores have no ties and keep every band. A
    statistic function has no standard error of its own and keeps the expanded bands.

    ``bands="expanded"`` gives the bands of earlier versions bit for bit: the percentile band, and
    the sup-t band (estimate plus or minus the level-quantile of the largest bootstrap-studentised
    deviation over steps; since audit s32, where that quantile passes the Bonferroni z of the steps,
    its t quantile is read at the Bonferroni tail and scaled by the quantile's excess over that z:
    read as a normal tail, a quantile of 4.8 over 199 steps, from resamples' tails heavier than the
    normal, gave 22-43 standard errors at 4 degrees of freedom, where the Bonferroni t band gives
    12.3, and IQN's band on 3 Atari games ran from -0.17 to 2.73 where its runs lie in 0.28-3.46), with each agent's bootstrap deviations widened by sqrt(n/(n - 1)) (n: its
    fewest runs in a task) and t quantiles at each step's effective degrees of freedom (a
    Welch-Satterthwaite sum over tasks of n - 1, each task weighted by its share of the variance,
    read from how often each run was drawn). At the steps some runs do not reach (ended early,
    started late), n counts the runs logged there, with a note (since session 28, so bit for bit only
    where every run is logged: the design's runs before, which at 5 of 10 runs logged gave a
    t-expanded band 0.77 times as wide).

    Measured by simulation (``tests/reference/coverage_curves_bands.py``: 1, 2, 5 and 26 tasks, 3 to
    20 runs per task, normal, skewed, heavy-tailed and capped scores, 60 curves of 2 agents per
    point over 4 draws of the tasks' offsets and scales, measured again on 400 fresh curves where a
    default's row missed at 60, to tell chance from a shortfall (since audit s27 the row is the fresh
    ones' alone, not those that triggered it), and to 240 at the 54 points of 3 to 10 runs where
    one sat below 0.95, within 2 SE (audit s25) or without missing (audit s27); measured again in
    session 20), the studentised bands
    cover 0.92-1.00 (simultaneous and pointwise) from 3 runs per task (4 with one task), none below
    0.95 by 3 SE, pooled or in a design draw, at every point: the mean's bands at one task of 5
    skewed runs, which missed before their skew widening (above), cover 0.951 and 0.965 of 800 on
    fresh curves (worst draws 0.948 and 0.95; 0.950 and 0.946 on the curves that held those that
    triggered the continuation, 0.957 and 0.950 before audit s26 capped Hall's band), and at 10
    such runs 0.956 and 0.977 (0.926 and 0.958 before audit s25). Every row of the mean at 2 agents
    measures the default's bands (at 26 tasks of 10 and 20 runs and of normal and heavy-tailed runs
    since audit s27, 15 of them up by 0.002-0.017). On 2 tasks (audit s27) the studentised bands
    cover 0.933-1.00 simultaneously and 0.945-0.988 pointwise, the median's rows measuring the mean's
    bands it is given there; the max-T test and the difference bands hold at every point (the max-T
    test of the mean at 2 tasks of 3 capped runs rejects alike agents in 0.045 of 400 fresh data
    sets; it read 0.0925 on the 400 that held the 60 that triggered its continuation). (The IQM's simultaneous band at 5 runs of
    one task, withheld in about 9 of 10 data sets before its standard error was floored, is given in
    all and covers 0.97-1.00.) The expanded bands cover as little
    as 0.63-0.78 (simultaneous, the mean of skewed scores at 3 to 10 runs of 1 or 5 tasks) and 57
    of their 376 rows miss (42 of 280 before audit s27's 2-task rows, 32 before audit s25 measured
    40 points again on more curves). At 10
    runs per task the studentised bands are 1.03-1.06 times as wide as the expanded ones with normal
    scores of 5 or 26 tasks for the mean and the IQM (1.1-1.24 for the median; 1.04-1.08 times the
    oracle band of the mean with the true standard error), and up to 1.8 times with skewed scores
    of one task (the mean), where the expanded band covers 0.68; at 5 runs of one task the mean's
    simultaneous band is 2.3-2.4 times the expanded one (which covers 0.63-0.98), and 0.34-0.50
    times its width before its standard error was floored. Where a design misses the level
    by more than 3 SE, pooled or in a design draw, the result's notes quote the lowest measured
    coverage (the ``curves.band`` rows of ``rlstats/calibration.csv``, ``interval`` naming the band
    method), read at the fewest runs of a task logged at a step with a band. At the steps some runs
    do not reach (``tests/reference/coverage_curves_early.py``, audit s28: 1, 2 and 5 tasks, 3 to 10
    runs, one, two or half of them ending early or one starting late, 400 curves a point) the
    studentised bands cover 0.945-1.00 of the mean and 0.948-1.00 of the IQM, at up to 4 times the
    expanded band's width there.

    Curves of two agents are compared with a max-T permutation test over steps (whole runs
    relabelled within tasks; Westfall and Young's single-step adjustment), so the chance of
    calling any step different when the agents are alike is at most ``alpha`` over all steps
    together, however correlated the steps are. The band of a difference is drawn from the same
    relabellings: the difference plus or minus the max-T threshold times the null's standard
    error at each step, at level 1 - ``alpha``, so it excludes 0 exactly at the steps the test
    calls different. The relabellings draw on the pair's runs in their names' sorted order, so
    ``("A", "B")`` and ``("B", "A")`` give the same p-values and mirrored differences and bands; each pair's
    relabellings are keyed by its two agents' names, and a task's by the task's name below them, so a pair's result is
    that of its own rows: it does not depend on the other pairs compared, on the other agents in the data or their
    names, on the other tasks' names, nor on the order of the agents or tasks in the data (a Categorical's) or the
    runs' seeds' names (a task's runs are laid out in the order of their curves).
    Alike agents' runs are exchangeable within tasks, so the test's size is exact
    whatever the scores: for the mean of 26 tasks of 5 normal runs, where 60 simulated curves
    held 0 in 0.917 of them, 400 of the same experiment held it in 0.953; the table's rows of the
    difference band (the max-T test's alike) hold 0.88-1.00 of 60 curves a point.
    With few runs on few tasks the relabellings are few (C(6, 3) = 20 for 3 runs of each agent on one
    task, two of them as extreme as the runs observed), so no p-value can fall to ``alpha``: a note
    then says that the pair's verdict ("no step differs", or "no step compared differs" where some steps were not
    compared) says nothing of its curves. Where a pair has at most
    ``n_resamples`` relabellings, all of them are enumerated and its p-values are exact (a note says so),
    unless their table (relabellings x the pair's runs) would pass ``rlstats.statistics.ENUMERATED_CELLS``
    (``2**23``) cells, as task_table's splits (a note says so); otherwise ``n_resamples`` are drawn,
    p = (1 + hits) / (B + 1), never below the exact test's smallest attainable p-value (drawn
    relabellings can miss the extreme ones by chance).

    At the steps where runs that ended early leave a task with one run of either agent logged (where
    that agent's bands are withheld), the pair's comparison is withheld too, with a note naming the
    pairs, steps and tasks: no p-value, band, mark or claim there (``difference_withheld``). One run
    gives no spread of its own, and relabelling the task's runs there mixes those that ended with
    those logged, so the null no longer matches the observed split: of two alike agents on 3 tasks of
    5 runs, 4 of one agent's runs of every task ending halfway, some step was declared different in
    0.144 of 1,000 data sets (the mean; 0.134 the IQM), 0.118 at those steps
    (``tests/reference/curves_one_run_comparisons.py``). The max-T adjustment still runs over every
    step, so the other steps keep their p-values, whose error there was 0.033 (0.039).

    A band that reaches 10 times the range of all the scores analysed from its estimate (few runs of few tasks, the
    t quantiles then taken at about 2 degrees of freedom) is withheld at those steps, with a note: it puts no useful
    bound on the curve, and the steps kept still hold together at the level.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per (agent, task, run, step); never modified.
    formula : str
        ``"score ~ agent | task/seed"``; the run column (``seed``) is required.
    step : str
        The step column (numbers).
    statistic : {"iqm", "mean", "median", "optimality_gap"} or callable
        ``iqm``: 25% trimmed mean of all runs of all tasks pooled (floor(N/4) cut from each
        end, as rliable); ``mean`` and ``median``: of the per-task mean scores (on 1 or 2 tasks
        the median is their mean and, under the default bands, takes the mean's bands, with a note);
        ``optimality_gap``: mean shortfall below ``gamma``. A function receives an array of
        shape (..., runs, tasks), NaN-padded where a task has fewer runs, the tasks in their
        names' sorted order, and returns the statistic over the last two axes.
    steps : array-like, optional
        Grid to align the runs on. By default the steps every agent reaches on every task (an
        agent reaches a step when one of its runs is logged there or beyond): tasks trained for
        different budgets are aggregated where all of them have data, so that each step combines
        every task at the same point of training, and the print names the tasks logged beyond
        (``subset=`` one task shows its whole range). Within that range, the steps every run
        logs, else an even grid at the runs' median logging interval; float jitter in the logged
        steps is ignored (see :func:`rlstats.align_steps`). ``steps`` keeps the step column's
        dtype. At most 100,000 steps, and at most 67,108,864 resampled values kept over agents,
        comparisons, resamples and steps, within 4 GiB with the count of each run's draws in each
        resample (16 bytes each at the peak). A grid where no run is logged at any step is an error; at
        steps where a task has no run of an agent logged, its curve and bands are missing, which a
        note says.
    align : {"last", "linear"}
        How runs logged at other steps are put on the grid: the last value at or before each grid
        step, or linear interpolation; a note counts and names the values taken at a grid step a run
        did not log.
    bands : {"studentized", "expanded", "studentized_unwidened"}
        The agents' bands: studentised (bootstrap-t) sup-t bands, each the hull with the expanded band,
        the mean's and the median's widened on the side of the runs' skew (default); the t-expanded
        percentile and sup-t bands of rlstats before issue 40, which cover 0.6-0.8 of the time with
        skewed or capped scores (see above); or the default before audit s25, whose mean's bands
        are not widened for the skew (0.918 pointwise at one task of 5 skewed runs), and whose
        median keeps its own bands on 1 or 2 tasks (0.913 simultaneous at one task of 5 skewed runs).
    compare : None, "all" or list of pairs
        Pairs of agents to compare curve against curve: none by default (each comparison costs
        ``n_resamples`` relabellings), every pair with ``"all"``, or ``[("DQN", "Rainbow"), ...]``.
    n_resamples : int
        Bootstrap resamples, and relabellings of each comparison.
    confidence_level, alpha : float
        Level of each agent's bands; family-wise error of each curve comparison over all steps
        (its band is at level 1 - ``alpha``).
    normalize : DataFrame, str, dict or False, optional
        Per-task normalisation of the response first, as :func:`rlstats.normalize`. Raw scores of
        tasks whose ranges (largest minus smallest score) differ more than tenfold are aggregated with a warning, as in
        :func:`rlstats.bootstrap`; ``False`` says they are on one scale already (no warning).
    gamma : float
        Threshold of ``statistic="optimality_gap"``: the target score, 1 being the reference score of normalised
        scores. On scores not normalised, at the steps where gamma lies on one side of every task's scores (the rule
        of :func:`rlstats.bootstrap`'s note, read at each step), the notes say what the gap reduces to there and how
        to set gamma or normalise. Where every run of an agent is at or above gamma at a step, its gap is 0 in every
        resample there and its band is withheld, which a note says. Where every score of an agent at every grid step is
        at or below gamma, its gap is gamma minus its mean of task means at every step and, under the default bands,
        takes the mean's bands reflected (gamma minus their ends; pointwise and simultaneous, with their skew widening
        and rules), as :func:`rlstats.bootstrap` gives its gap the mean's interval; a note says so (audit s27: its own
        studentised bands lacked the mean's widening on the side of the runs' skew).
    bounds : (low, high), optional
        Known limits of the score (None for a side without one; ``normalize="dm_control"`` implies [0, 1]): a
        logged value outside them is an error naming its row, and band ends of a built-in statistic outside its
        range under the bounds (IQM, mean, median: [low, high]; optimality gap: [max(gamma - high, 0),
        max(gamma - low, 0)]; a difference of two: within plus or minus that range's width) are clipped to it,
        which keeps coverage since the true curve lies within it; the notes say where. A statistic function's
        bands are not clipped.
    subset : array of bool or str, optional
        Rows to use, as in :func:`rlstats.compare`: a mask, or a condition in the restricted
        grammar of :mod:`rlstats.conditions` (``"task == 'CartPole-v1'"``); stated in the result.
    na_action : {"raise", "drop", "omit"}
        Missing values, and agents without runs on some task: an error naming them (default),
        or drop those rows and leave out the tasks where some agent has no runs, stated in the
        result. One agent alone is enough (its curve with its band).
    rng : None, int or numpy.random.Generator
        Seed (recorded). Each agent's resamples come from a child stream keyed by its name, as
        ``bootstrap()``'s, and each comparison's relabellings from one keyed by its two agents' names,
        so results do not depend on ``n_jobs`` nor on the other agents' names, and an agent's resamples
        (a pair's relabellings) are those of its own rows; each task's, from a stream below keyed by the task's
        name, its runs in the order of their curves, so neither the other tasks nor the seeds' names move a
        task's draws. The shared grid is not: without ``steps=``
        it is read from every agent's runs, so another agent logged on other steps or over a shorter
        range changes it, and with it an agent's bands (the simultaneous one spans the grid; a pointwise
        one moves where the grid falls between its logged steps; a note states the grid), as does a
        task left out because another agent has no runs there (na_action="drop").
    progress : bool
        A progress bar (tqdm: on a terminal, or a notebook's widget) when the work is estimated to take more
        than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    n_jobs : int
        Agents and comparisons computed in parallel worker processes (joblib; -1: every core).
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up; by default the caller's frame.

    Returns
    -------
    CurvesResult

    See Also
    --------
    rlstats.summarize_runs : One number per run (final score, area under the curve) for any back end.
    rlstats.align_steps : Runs logged at different steps on one grid.
    rlstats.read_logs : Training logs into the long frame this reads.

    References
    ----------
    Agarwal et al. (2021), Deep reinforcement learning at the edge of the statistical
    precipice, NeurIPS (IQM, stratified bootstrap, sample-efficiency curves).
    Montiel Olea, J. L. and Plagborg-Moller, M. (2019), Simultaneous confidence bands: theory,
    implementation, and an application to SVARs, J. Applied Econometrics 34(1), 1-17 (sup-t bands).
    Westfall, P. H. and Young, S. S. (1993), Resampling-Based Multiple Testing, Wiley (max-T).
    Hall, P. (1988), Theoretical comparison of bootstrap confidence intervals, The Annals of
    Statistics 16(3), 927-953 (the bootstrap-t); Tukey, J. W. and McLaughlin, D. H. (1963), Less
    vulnerable confidence and significance procedures for location based on a single sample,
    Sankhya A 25, 331-352 (the trimmed mean's winsorised standard error).
    Hesterberg, T. C. (2015), What teachers should know about the bootstrap, The American
    Statistician 69(4), 371-386 (the sqrt(n/(n - 1)) widening).
    Satterthwaite, F. E. (1946), An approximate distribution of estimates of variance components,
    Biometrics Bulletin 2(6), 110-114 (the effective degrees of freedom).
    Efron, B. (1982), The Jackknife, the Bootstrap and Other Resampling Plans, SIAM, section 6.6;
    Davison, A. C. and Hinkley, D. V. (1997), Bootstrap Methods and their Application, Cambridge,
    section 2.7.4 (empirical influence values from the bootstrap's resampling counts).

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate_curves(agents=2, tasks=4, seeds=5, steps=6, effect=0.5, rng=0)
    >>> res = rlstats.curves(df, "score ~ agent | task/seed", step="step", compare="all", n_resamples=200, rng=0)
    >>> res.estimates.shape, res.tidy().columns[:3].tolist()
    ((2, 6), ['agent', 'step', 'estimate'])
    """
    data, formula = data_and_formula(data, formula)  # R's order too
    data = as_pandas(data)  # a polars or pyarrow table: converted once, stated
    if not isinstance(data, pd.DataFrame):
        raise DesignError("curves() needs the DataFrame of learning curves (one row per run and step)")
    if step is None:
        raise _no_step(data)
    options = CurvesOptions.checked(
        step=step, statistic=statistic, align=align, compare=compare, bands=bands, n_resamples=n_resamples,
        confidence_level=confidence_level, alpha=alpha, gamma=gamma, na_action=na_action, progress=progress,
        max_seconds=max_seconds, n_jobs=n_jobs, bounds=bounds)
    design = design_of(data, formula, subset=subset, na_action=options.na_action, eval_env=eval_env, step=step,
                       curves=True, normalize=normalize, min_agents=1, bounds=options.bounds)
    why = "curves aggregate every agent over the same tasks"
    design.graph.require_connected(design.formula.groups, why)  # groups apart: name them, not one agent to drop
    empty = np.argwhere(design.counts == 0)
    leave_out = (f" (subset=\"{design.formula.groups} != "
                 f"{label_literal(design.agents[empty[0, 1]], design.numeric_agents)}\" leaves that agent out)"
                 if empty.size else "")
    design = design.require_complete(options.na_action, why + leave_out)
    options = options.for_agents(design.agents, **agents_said(design))  # compare= checked before the cost counts its pairs
    work = admit(cost, design, options, max_seconds, "curves()")  # issue 43 item 2
    # the IQM and the median read where the tasks lie: tasks on ranges apart are cautioned too (audit s18)
    design = warn_raw_scales(design, normalize, location=(options.statistic,) if isinstance(options.statistic, str)
                             else (), read=f"over all {plural(design.arm_word)}, runs and steps")  # every logged step's score
    # na_action="drop": the frame whose rows the Design's row positions count, to find the dropped rows' steps
    source = None if not design.n_dropped_rows else data if subset is None else subset_rows(data, subset)
    return _run_curves(design, step, steps, options, rng, shows(work, options.progress),
                       source, runs.logged_unit(data))


def _run_curves(design, step, steps, options, rng, shown, source=None, unit="evaluation"):
    """The bands and tests of the checked options; ``shown``: whether to draw a bar; ``source``: the frame of the
    Design's rows when na_action dropped some (grid steps that would read a dropped row are then not read); ``unit``:
    what a logged row is (:func:`rlstats.runs.logged_unit`)."""
    starts, stops = runs.run_bounds(design)
    logged = runs.snap_steps(design.extra[step], starts)
    if (stops - starts == 1).all():
        raise DesignError(f"every run has a single logged step in column '{step}', so there are no curves; "
                          "compare the runs with rlstats.compare instead")
    if steps is None:
        grid, shared, range_note = runs.common_grid(design, logged, starts, stops)
    else:
        grid, shared, range_note = runs.check_grid(steps), False, None
    kept = (design.n_agents + len(options.pairs)) * options.n_resamples * grid.size
    values = (f"{design.n_agents} agents and {len(options.pairs)} comparisons x n_resamples={options.n_resamples:,} x "
              f"{grid.size:,} grid steps")
    if kept > MAX_RESAMPLED_VALUES:
        raise OptionError(f"curves would keep {kept:,} resampled values ({values}, about "
                          f"{kept * PEAK_BYTES_PER_VALUE / 2**30:.1f} GiB at its peak), more than "
                          f"the {MAX_RESAMPLED_VALUES:,} allowed; pass steps= with fewer steps, a smaller "
                          "n_resamples, or fewer pairs to compare=")
    drawn = options.n_resamples * starts.size  # how often each run was drawn in each resample (audit s22)
    peak = kept * PEAK_BYTES_PER_VALUE + drawn * PEAK_BYTES_PER_DRAWN_RUN
    if peak > MAX_BYTES:
        raise OptionError(f"curves would keep about {peak / 2**30:.1f} GiB at its peak, more than the "
                          f"{MAX_BYTES // 2**30} GiB rlstats allocates: how often each of the {starts.size:,} runs was "
                          f"drawn in each of n_resamples={options.n_resamples:,} resamples ({drawn:,} counts), beside "
                          f"{kept:,} resampled values ({values}); pass a smaller n_resamples (10,000 to 100,000 give "
                          "Monte Carlo errors well below the differences that matter)")
    matrix = runs.align(design.y, logged, starts, stops, grid, options.align)
    notes = list(design.notes) + [runs.grid_sentence(grid, options.align, not shared, beyond=bool(range_note))]
    cells = None if source is None else runs.dropped_cells(source, design, step, starts, stops, logged,
                                                          [grid] * starts.size, options.align)
    if cells is not None and np.any(cells):  # R's na.omit: a dropped row is not used, nor filled in from others
        matrix[np.array(cells)] = np.nan
        notes.append(runs.dropped_note(design, starts, cells, [grid] * starts.size, options.align, options.na_action))
    # the statistic computed (the median of 1 or 2 tasks: the mean) and each agent's bands' (its gap at or below
    # gamma at every step: the mean's, reflected)
    caller, (options, band) = options, _band_options(options, design.n_tasks, gap_is_mean(
        matrix, design.agent[starts], design.n_agents, options.gamma))
    as_mean = np.array([b.statistic_name != options.statistic_name for b in band])  # reflected: gamma minus the mean
    capped = design.ceiling_at_or_below(options.gamma)  # no true score can cross gamma (audit s29 minmax29)
    filled = runs.filled_cells(logged, starts, stops, [grid] * starts.size, options.align) & ~np.isnan(matrix)
    notes += [n for n in [runs.filled_note(design, starts, filled, [grid] * starts.size, options.align, unit)] if n]
    notes += [range_note] if range_note else []
    missing = np.flatnonzero(np.isnan(matrix).any(axis=1))
    if missing.size:
        named = "; ".join(f"{runs.run_label(design, starts[i])}, logged from {format_step(logged[starts[i]])} to "
                          f"{format_step(logged[stops[i] - 1])}" for i in missing[:3])
        notes.append(f"{count(missing.size, 'run')} {verb(missing.size, 'misses')} some grid steps ({named}"
                     f"{'; ...' if missing.size > 3 else ''}); at each step {a_or_an(design.arm_word)}'s aggregate "
                     f"uses the runs logged there, and is missing where {a_or_an(design.block_word)} has none")
    unequal = [a for j, a in enumerate(design.agents) if design.counts[:, j].min() != design.counts[:, j].max()]
    if options.statistic in ("iqm", "optimality_gap") and (unequal or missing.size) and design.n_tasks > 1:
        # as rlstats.bootstrap's on the rows of the step: pooled runs would weigh each task by its runs (audit s8);
        # of one task there is nothing to weigh (audit s31 trialfix31)
        whose = f"{listed(names_shown(unequal, design.agents), 5)} {verb(len(unequal), 'has')}"
        task, agent = design.block_word, design.arm_word  # the data's columns by their names (audit s32 block32)
        notes.append(f"{whose + f' unequal runs per {task}' if unequal else 'some runs miss grid steps'}: the "
                     f"{_label(options.statistic_name)} weighs each {task} alike at each step, its runs logged there "
                     f"scaled to the {agent}'s most runs logged in {a_or_an(task)} at that step, as rlstats.bootstrap "
                     f"weighs the same rows (pooling them would weigh the {plural(task)} by their runs)")
    if options.statistic == "iqm":
        notes += untrimmed_iqm_note(design.counts, design.agents, task=design.block_word)
    if options.statistic == "optimality_gap":
        notes += _raw_gap_notes(design, options.gamma, matrix, starts, grid)
    expansion, fewest = _expansion(design.counts, design.agents, design.tasks, design.words)
    # an agent with a task of one run has its bands withheld at every step (step_bands, whose note says so): the notes
    # on how bands are made and the calibration rows they read speak of the agents with bands (audit s31 trialfix31)
    # (at least MIN_STUDENTIZED_RUNS: audit s31 rfix31c, with B's 2 runs the largest, A's one-run task was counted 2
    # and the 2-run note named A, whose bands its one-run note withholds)
    banded = fewest >= 2
    if banded.any() and not banded.all():
        fewest = np.where(banded, fewest, max(fewest[banded].max(), MIN_STUDENTIZED_RUNS))
    unlogged = _unlogged_note(design, matrix, starts, grid, logged, stops, callable(options.statistic))
    short, withheld_note, repeats, at_step = _short_steps(design, matrix, starts, grid)
    one_run = short  # the replication rule's steps, which withhold the comparisons too (audit s27 curvecmp27)
    notes += [n for n in (unlogged, withheld_note) if n]
    if options.bands in STUDENTIZED_BANDS and not callable(options.statistic):
        # the design's rule of 2 runs of a task, at the steps where other runs have ended (agents below it have no
        # studentised band at all: _studentized says so)
        two, two_note = _two_run_steps(design, at_step, grid, ~short & ~np.isnan(repeats)
                                       & (fewest >= MIN_STUDENTIZED_RUNS)[:, None])
        short = short | two
        notes += [two_note] if two_note else []
    if options.bands in STUDENTIZED_BANDS and not callable(options.statistic):  # audit s10: runs mostly at a cap
        # not where a task has no run of the agent logged (repeats NaN): its curve is missing there, and 0 of 0 runs
        # passed the rule's shares (audit s15: steps past every run were said to sit at a cap)
        saturated = _saturated_steps(design, matrix, starts, options.statistic) & ~short & ~np.isnan(repeats)
        short = short | saturated
        notes += [n for n in [_saturated_note(saturated, design.agents, grid, options.statistic)] if n]
    # notes on how the bands are made: said only where some band is shown (not when every one is withheld)
    # each agent is widened at its own fewest runs: one n said for all would be false of the others (audit s19)
    with_bands = [agent for agent, has in zip(design.agents, banded) if has]
    task = design.block_word  # the data's blocks by their column (audit s32 block32)
    n_is = (f"n = {fewest[banded][0]} runs per {task}" if (fewest[banded] == fewest[banded][0]).all() else
            f"n the {design.arm_word}'s fewest runs in {a_or_an(task)} "
            f"({by_value(fewest[banded].tolist(), with_bands)})") if banded.any() else f"n = {fewest[0]} runs per {task}"
    fewer = (at_step.min(axis=2) < fewest[:, None]) & (at_step.min(axis=2) >= 2)  # runs ended early (session 28)
    at_fewer = "; ".join(f"{agent} down to {int(at_step.min(axis=2)[a][fewer[a]].min())} at "
                         f"{plural('step', fewer[a].sum())} {_step_span(grid, fewer[a])}"
                         for a, agent in enumerate(names_shown(design.agents)) if fewer[a].any())
    n_is += f", and at the steps some runs do not reach the fewest runs of {a_or_an(task)} logged there ({at_fewer})" if \
        at_fewer else ""
    about_bands = [f"bootstrap deviations widened by sqrt(n/(n - 1)) with {n_is}, because resampling n runs sees "
                   "only (n - 1)/n of their variance (Hesterberg, 2015)"]
    notes.append(about_bands[0])
    notes += [] if options is caller else [_median_is_mean_note(design.n_tasks)]

    ss, seed_record = seed_sequence(rng)
    boot_ss, perm_ss = ss.spawn(2)
    k, n_tasks = design.n_agents, design.n_tasks
    # each run's mean logged score, its rows in step order (runs.run_bounds), whatever the grid
    run_means = np.add.reduceat(design.y.astype(float), starts) / (stops - starts)
    per_agent = [_agent_runs(design, matrix, starts, a, run_means) for a in range(k)]
    estimates = np.array([_estimate(v, t, n_tasks, options) for v, t in per_agent])
    # the optimality gap of an agent whose every score is at or below gamma: gamma minus its mean, whose bands it
    # takes reflected (audit s27 curvegap27): its resamples and bands are made as the mean's, then reflected
    gap_estimates = estimates.copy()
    for a in np.flatnonzero(as_mean):
        estimates[a] = _estimate(*per_agent[a], n_tasks, band[a])
    pair_codes = [(design.agents.index(a), design.agents.index(b)) for a, b in options.pairs]
    # streams keyed by the agents' labels, as bootstrap()'s (audit s32 curves32: by their places among the names,
    # an agent's bands and a pair's tests moved with the other agents in the data or their names); a pair's by both
    # labels, its runs in their names' sorted order: the same draws whatever the other agents or their order
    rank, names = design.agent_places, design.agents
    first = [(i, j) if rank[i] < rank[j] else (j, i) for i, j in pair_codes]
    # and each cell's (an agent's or a pair's task) below them by the task's label (audit s33 curvestream33)
    jobs = ([(_bootstrap, (v, t, n_tasks, band[a], _cell_streams(agent_seed_sequence(boot_ss, names[a]), design)))
             for a, (v, t) in enumerate(per_agent)]
            + [(_permutation_null, (per_agent[a], per_agent[b], n_tasks, options,
                                    _cell_streams(pair_seed_sequence(perm_ss, names[a], names[b]), design),
                                    1.0 if (a, b) == ij else -1.0))
               for ij, (a, b) in zip(pair_codes, first)])
    with progress_bar(len(jobs), shown, "curves") as advance:
        done = _run_jobs(jobs, options.n_jobs, advance)
    raw = np.stack([r for r, _, _ in done[:k]])
    # each step widened at the agent's fewest runs of a task logged there (session 28: runs that ended early were
    # counted); where every run is logged, its fewest runs in a task, bit for bit
    logged_fewest = at_step.min(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        widening = np.where(logged_fewest >= 2, np.sqrt(logged_fewest / (logged_fewest - 1.0)), expansion[:, None])
    with np.errstate(invalid="ignore"):  # inf widening (a task of one run) only at steps withheld just below
        replicates = estimates[:, None, :] + widening[:, None, :] * (raw - estimates[:, None, :])
    # a step's spread is judged on its scores (the package's tie rule), whatever their units or shift
    # (each task's at its own scale, combined as the statistic weighs the tasks: review s37 rv37a)
    tolerance = np.stack([kernels.step_tolerance(v, t, n_tasks, b.statistic_name)
                          for (v, t), b in zip(per_agent, band)])
    df = np.stack([kernels.effective_df(r, w, t, n_tasks, ~np.isnan(v), tol)
                   for r, (_, w, _), (v, t), tol in zip(replicates, done, per_agent, tolerance)])
    # a step withheld for an agent enters none of its bands (nor the maximum of the simultaneous one)
    replicates = np.where(short[:, None, :], np.nan, replicates)
    df = np.where(short, np.nan, df)
    pointwise = np.stack([kernels.percentile_bounds(r, e, options.confidence_level, d)
                          for r, e, d in zip(replicates, estimates, df)])
    bands = [kernels.sup_t_band(r, e, options.confidence_level, d, tol)
             for r, e, d, tol in zip(replicates, estimates, df, tolerance)]
    about_bands.append(f"{'both bands use' if done[0][2] is None else 'the expanded bands use'} t quantiles at "
                       "each step's effective degrees of freedom (Welch-Satterthwaite over "
                       f"{plural(design.block_word)}; "
                       f"here {_df_range(df)}) in place of normal ones, as the standard error from few runs per "
                       f"{design.block_word} is itself uncertain")
    notes.append(about_bands[-1])
    measured = {}  # band -> the coverage its calibration note quotes, short of its level (the figure's title says it)
    if done[0][2] is None:  # bands="expanded", or a statistic function (no standard error of its own)
        if options.bands in STUDENTIZED_BANDS:
            about_bands.append(f"the bands of the statistic function {options.statistic_name} are the t-expanded "
                               "percentile and sup-t bands (bands=\"expanded\"): studentised bands need the "
                               "standard error of a resample, which only the built-in statistics give")
            notes.append(about_bands[-1])
        reads = _runs_read(fewest, logged_fewest, ~short & np.isfinite(pointwise).all(axis=-1))
        notes += _calibration_notes(options, reads, n_tasks, "expanded", about_bands, measured,
                                    fewer=reads < fewest.min())
    else:
        # the median's middle tasks' means (audit s12) and the mean (audit s25 band25) are skewed like the runs, each
        # agent's by the statistic of its bands (a gap taking the mean's: the mean's skew widening and Hall's band)
        skewed = {"median": kernels.median_skewness, "mean": kernels.mean_skewness}
        if options.bands == "studentized_unwidened":
            del skewed["mean"]  # the mean's bands before audit s25, bit for bit
        skewness = [skewed[b.statistic_name](v, t, n_tasks) if b.statistic_name in skewed else None
                    for b, (v, t) in zip(band, per_agent)]
        skewness = None if all(s is None for s in skewness) else skewness
        pointwise, bands = _studentized(raw, [e for _, _, e in done[:k]], estimates, short, (pointwise, bands), tolerance,
                                      fewest, repeats, options, (notes, about_bands), design.agents, skewness,
                                      _reached_gamma(design, matrix, starts, options), grid, df,
                                      [b.statistic_name for b in band])
        for j in np.flatnonzero(as_mean):  # the mean's bands and resamples reflected: gamma minus them
            pointwise[j] = options.gamma - pointwise[j][:, ::-1]
            bands[j] = (options.gamma - bands[j][0][:, ::-1],) + tuple(bands[j][1:])
            replicates[j] = options.gamma - replicates[j]
        estimates = gap_estimates
        if as_mean.any():
            about_bands.append(_gap_is_mean_note(design.agents, as_mean, options.gamma, capped))
            notes.append(about_bands[-1])
        if options.bands == "studentized_unwidened" and options.statistic_name == "mean":  # the table: the default's
            about_bands.append(UNWIDENED_NOTE)
            notes.append(UNWIDENED_NOTE)
            if n_tasks < UNWIDENED_MISSED[0] and UNWIDENED_MISSED[1] <= fewest.min() < UNWIDENED_MISSED[2]:
                measured.update(UNWIDENED_MISSED[3])  # the designs whose table rows then read the missing ones
        else:
            if options.bands == "studentized_unwidened":  # review25d: the option named, not silently the default
                own = options.statistic == "median" and median_is_mean(n_tasks)  # audit s26 curves26
                about_bands.append(UNWIDENED_MEDIAN.format("one task" if n_tasks == 1 else "2 tasks") if own
                                   else UNWIDENED_OTHERS.format(metric_label(options.statistic_name)))
                notes.append(about_bands[-1])
            # the rows of the bands of the agents with the fewest runs read (logged at a step with a band), where they
            # all take one statistic's (the mean's reflected: the same coverage), else the statistic's own
            # (calibration.quoted_kinds, bootstrap()'s): chosen at the count the rows are read at (review28)
            given = np.isfinite(pointwise).all(axis=-1)
            by_agent = [_runs_read(fewest[a:a + 1], logged_fewest[a:a + 1], given[a:a + 1]) for a in range(k)]
            quoted = calibration.quoted_kinds([[b.statistic_name] for b in band], by_agent)[0]
            reads = min(by_agent)  # _runs_read over every agent
            notes += _calibration_notes(next(b for b in band if b.statistic_name == quoted), reads, n_tasks,
                                        "studentized", about_bands, measured, fewer=reads < fewest.min())
            # the agents of the IQM whose tasks' runs lie apart read the far-apart rows (audit s34 iqmfar34b), and
            # the by-chance rows; of the mean and the median too (audit s35 apart35: where a row misses)
            # (not the gap's agents taking the mean's bands reflected: their rows are not these)
            apart = np.array([b.statistic_name in APART_STATISTICS and b.statistic_name == options.statistic_name
                              and _tasks_apart(*per_agent[a], given[a])
                              for a, b in enumerate(band)], dtype=bool)
            if apart.any():
                named = [design.agents[a] for a in np.flatnonzero(apart)]
                whose = "" if apart.all() else f" of {listed(names_shown(named, design.agents), 4)}"
                far = {}
                notes += _calibration_notes(band[int(np.flatnonzero(apart)[0])], min(np.array(by_agent)[apart]),
                                            n_tasks, "studentized", about_bands, far, far_apart=whose)
                measured.update({b: min(value, measured.get(b, value)) for b, value in far.items()})
            # the gap's own bands have no rows of either design (audit s36 former36): said, not left to the grid's
            unmeasured = [a for a, b in enumerate(band) if b.statistic_name not in APART_STATISTICS
                          and b.statistic_name == options.statistic_name and _tasks_apart(*per_agent[a], given[a])]
            if unmeasured:
                whose = ("" if len(unmeasured) == k else
                         f" of {listed(names_shown([design.agents[a] for a in unmeasured], design.agents), 4)}")
                label = _label(options.statistic_name)
                notes.append(f"{calibration.apart_words(label, 'task', whose, why=False)}: the bands of the {label} "
                             "have not been measured on such data (the rows of 3 tasks far apart and of runs apart by "
                             f"chance are of the bands of {join_and([f'the {_label(s)}' for s in APART_STATISTICS])})")
            if as_mean.any() and not capped:  # and the gap's rows of those agents where the truth crosses gamma
                # (audit s28; none where the known bounds put every score at or below gamma, audit s29 minmax29)
                reads = _runs_read(fewest[as_mean], logged_fewest[as_mean], given[as_mean])
                gap = {}  # the figure's title quotes the lower of the two readings (review28a; audit s24's rule)
                notes += _calibration_notes(options, reads, n_tasks, "studentized", about_bands, gap, below_gamma=True,
                                            fewer=reads < fewest[as_mean].min())
                measured.update({band: min(value, measured.get(band, value)) for band, value in gap.items()})
    comparisons = []
    for (i, j), null in zip(pair_codes, done[k:]):
        n_i, n_j = (np.bincount(per_agent[a][1], minlength=n_tasks) for a in (i, j))
        exact = enumerated(n_i, n_j, options.n_resamples)  # the null is every relabelling once
        smallest = smallest_attainable(n_i, n_j)
        pooled = kernels.step_tolerance(np.concatenate([per_agent[i][0], per_agent[j][0]]),
                                        np.concatenate([per_agent[i][1], per_agent[j][1]]), n_tasks,
                                        options.statistic_name)
        # within the rounding of a difference of two statistics of the pair's scores (twice the tie tolerance), 0:
        # curves that tie at a step differ there by their sums' last bits, which the units set (audit s37 meta37:
        # 3.6e-15 in the data's units, 1.2e-10 + 1e6); each task's scores at their own scale (review s37 rv37a: of
        # the scores pooled over tasks, a task at 1e9 made differences of 1.2e-4 to 2e-4 on the others 0)
        difference = estimates[i] - estimates[j]
        difference = np.where(np.abs(difference) <= 2.0 * pooled, 0.0, difference)
        pvalues, _ = kernels.max_t_pvalues(difference, null, exact, smallest, pooled)
        band, _ = kernels.max_t_band(difference, null, options.alpha, exact, smallest, pooled)
        # withheld where either agent's bands are for one run of a task logged (audit s27): after the max-T over
        # every step, so the steps kept have the p-values and bands they had
        cut = one_run[i] | one_run[j]
        pvalues, band = np.where(cut, np.nan, pvalues), np.where(cut[:, None], np.nan, band)
        comparisons.append((difference, band, pvalues, null.shape[0] if exact else None, cut))
    notes += _one_run_comparisons_note(design, pair_codes, [c[4] for c in comparisons], at_step, grid, starts)
    notes += _unrejectable_notes(design, pair_codes, [c[2] for c in comparisons], options,
                                 [no_difference_words(c[0], c[4]) for c in comparisons])
    pointwise = np.where(short[:, :, None], np.nan, pointwise)
    bands = [(np.where(m[:, None], np.nan, b), np.where(m, np.nan, se), np.where(m, np.nan, c))
             for (b, se, c), m in zip(bands, short)]
    pointwise, simultaneous, difference_bands = _clipped(
        design.bounds, options, notes, pointwise, np.stack([b[0] for b in bands]),
        np.array([c[1] for c in comparisons]).reshape(len(comparisons), grid.size, 2))
    pointwise, simultaneous, far = _beyond_scores(pointwise, simultaneous, estimates, matrix, df, grid, design.agents,
                                                  notes)
    if np.isnan(pointwise).all() and np.isnan(simultaneous).all():  # every band withheld: its notes say why
        notes = [n for n in notes if n not in about_bands]
        measured = {}

    return CurvesResult(
        method=(f"Learning curves: per-step {_label(caller.statistic_name) if caller.statistic_name != 'iqm' else untrimmed_iqm_label(design.counts, design.agents)}"
                " with whole-run bootstrap bands"),
        formula=design.formula, data_name=f"{design.data_name} over {step}", nobs=int(starts.size),
        notes=tuple(notes), options=caller.record(), seed=seed_record,
        agents=design.agents, tasks=design.tasks, step_column=step, steps=runs.as_steps(grid, design.extra[step]),
        statistic=caller.statistic_name, estimates=estimates, pointwise=pointwise,
        simultaneous=simultaneous, std_error=np.stack([b[1] for b in bands]),
        critical_value=np.where(far, np.nan, np.stack([b[2] for b in bands])), df=df, bootstrap_distribution=replicates,
        n_resamples=options.n_resamples, confidence_level=options.confidence_level, alpha=options.alpha,
        counts=design.counts, pairs=options.pairs,
        differences=np.array([c[0] for c in comparisons]).reshape(len(comparisons), grid.size),
        difference_bands=difference_bands,
        difference_pvalues=np.array([c[2] for c in comparisons]).reshape(len(comparisons), grid.size),
        normalized=design.normalized, relabellings=tuple(c[3] for c in comparisons),
        difference_withheld=np.array([c[4] for c in comparisons], dtype=bool).reshape(len(comparisons), grid.size),
        fewest_logged=at_step.min(axis=2),
        measured_coverage=tuple(measured.items()), dropped_tasks=tuple(design.dropped_tasks))


def _band_options(options, n_tasks, below_gamma):
    """(computed, band): the options every agent's statistic is computed by, and (agents,) those each agent's bands are
    made by: the one per-agent rule of both cases where a statistic is the mean of task means or gamma minus it
    (``below_gamma``: (agents,) ``statistics.gap_is_mean`` on the steps analysed), as bootstrap()'s
    ``_small_runs.interval_kinds``. Under the default bands alone (``bands="expanded"`` was already the mean's, the same
    resamples; ``bands="studentized_unwidened"`` is the default before audit s25 bit for bit) and for the built-in
    statistics.

    The median, every agent's: on 1 or 2 tasks (``statistics.median_is_mean``) the median of task means is at every
    step the mean of task means, the same number bit for bit (with any runs per task, and runs missing at some steps:
    both weigh each task alike, over the runs logged there), so it is computed as the mean and takes the mean's bands:
    their method (standard error, floor, skew widening and Hall's band), their rules for withholding them and their rows
    of the calibration table (audit s26 curves26, as ``bootstrap()``'s median interval since audit s26 median26). Its
    own bands, made for the middle task of 3 or more, covered less there on skewed runs
    (``tests/reference/curves_median_two_tasks.py``, 95% bands): at 1 task of 5 runs 0.913 simultaneous (0.880 in the
    worst design draw) and 0.927 pointwise of 800, where the mean's, 1.21 and 1.35 times as wide, covered 0.959 and
    0.953; of 10 runs 0.939 pointwise (the mean's 0.964); at 2 tasks of 3, 5 and 10 runs 0.942-0.943 pointwise of 480
    (the mean's 0.952-0.957, its own 0.96-1.04 times the mean's width). On normal, heavy-tailed and capped runs both
    held (0.960-0.989), the mean's 1.07-1.35 times as wide on one task and 0.96-1.09 on two: the price of one band.

    The optimality gap, each agent's own: where no score of the agent logged at a grid step (on the rows analysed) is
    above gamma, at every step its gap is gamma minus its mean of task means, still computed as the gap, and its bands
    are the mean's reflected, pointwise and simultaneous (audit s27 curvegap27: its own studentised bands lacked the
    mean's widening on the side of the runs' skew and Hall's band, at 2 tasks x 5 skewed runs up to 0.07 short on that
    side). Decided per agent over all steps, not step by step: the simultaneous band is one band over the steps (the
    largest ratio over them), which is the mean's reflected only where the gap is gamma minus the mean at every step;
    an agent with a score above gamma at some step keeps the gap's own bands at every step, as bootstrap() decides per
    agent."""
    mean = dataclasses.replace(options, statistic="mean", statistic_name="mean")
    below = np.asarray(below_gamma, dtype=bool)
    if options.bands != "studentized" or callable(options.statistic):
        return options, [options] * below.size
    if options.statistic == "median" and median_is_mean(n_tasks):
        return mean, [mean] * below.size
    if options.statistic == "optimality_gap":
        return options, [mean if b else options for b in below]
    return options, [options] * below.size


def _median_is_mean_note(n_tasks):
    """The line saying the median's bands are the mean's (:func:`_band_options`; its words,
    ``vocabulary.median_is_mean_words``, bootstrap()'s)."""
    return (f"{median_is_mean_words(n_tasks, at=' at every step')}: it takes the bands of the mean of task means "
            "(pointwise and simultaneous), by their method and their rules for withholding them (the bands made for the "
            "median of 3 or more task means covered less on skewed runs in simulations of 1 and 2 tasks)")


def _one_run_comparisons_note(design, pair_codes, withheld, at_step, grid, starts):
    """The line naming the comparisons withheld at the steps where a task has one run of either agent logged (the
    replication rule of the bands, :func:`_short_steps`, read at each step; audit s27 curvecmp27): where and why,
    pairs withheld at the same steps for the same runs said together; [] where none is."""
    found, every = {}, True  # every: no pair named is compared at any step (audit s31 rfix31c: "the other steps")
    cells = np.zeros((design.n_agents, design.n_tasks), dtype=bool)  # the cells of one run logged, for the way on
    for (i, j), cut in zip(pair_codes, withheld):
        if not cut.any():
            continue
        every &= bool(cut.all())
        whose = []
        for a in (i, j):
            ones = (at_step[a] == 1).T & cut  # (tasks, steps): each task at its own steps (session 28)
            cells[a] |= ones.any(axis=1)
            if ones.any():
                whose.append(_tasks_having(grid, ones, design.tasks, cut, "one run", design.agents[a]))
        # each agent's tasks listed with their steps hold an "and" of their own: the agents apart by a comma
        both = " and " if all(" at step" not in w for w in whose) else ", and "
        where = f"{count(int(cut.sum()), 'step')} ({_step_span(grid, cut)}), where {both.join(whose)}"
        found.setdefault(where, []).append(f"{design.agents[i]} vs {design.agents[j]}")
    if not found:
        return []
    return ["curve comparisons are withheld for " + "; ".join(f"{join_and(pairs)} at {where}"
                                                              for where, pairs in found.items())
            + ": as the bands, a comparison needs at least 2 runs per agent and task logged at the step (one run "
            "gives no spread of its own); " + ("no step of these pairs is compared" if every else
                                               "the other steps' p-values are still adjusted over every step, these "
                                               "included") + f"; {_add_runs_way(design, starts, cells)}"]


def _unrejectable_notes(design, pair_codes, pvalues, options, verdicts):
    """Notes naming the comparisons that no data could make reject (audit s13): relabelling whole runs within tasks
    has :func:`relabellings` labellings, and no p-value falls below :func:`smallest_attainable` (nor, drawn, below
    1 / (B + 1)). Said only of a pair with no step declared different and some step compared, quoting its verdict,
    ``verdicts`` (:func:`no_difference_words`; audit s27 curvegap27: it quoted "no step differs" where the verdict
    printed "no step compared differs"); and the pairs whose labellings were all
    enumerated (:func:`enumerated`), whose p-values are then exact, and those with no more labellings than
    ``n_resamples`` drawn at random all the same, their table too large to list (audit s22)."""
    found, listed_all, drawn = {}, {}, {}
    for (i, j), p, words in zip(pair_codes, pvalues, verdicts):
        n_i, n_j = design.counts[:, i], design.counts[:, j]
        labellings = relabellings(n_i, n_j)
        exact_null = enumerated(n_i, n_j, options.n_resamples)
        pair = f"{design.agents[i]} vs {design.agents[j]}"
        if exact_null:
            listed_all.setdefault(labellings, []).append(pair)
        elif labellings <= options.n_resamples:
            drawn.setdefault((labellings, int(n_i.sum() + n_j.sum())), []).append(pair)
        if np.nanmin(p, initial=np.inf) <= options.alpha or words == "compared at no step":  # nothing to say
            continue
        exact = smallest_attainable(n_i, n_j)
        floor = exact if exact_null else monte_carlo_pvalue(0, options.n_resamples)
        smallest = max(exact, floor)
        if smallest > options.alpha:
            low, high = int(min(n_i.min(), n_j.min())), int(max(n_i.max(), n_j.max()))
            runs_text = f"{low} runs" if low == high else f"{low} to {high} runs"
            few = exact < floor  # the relabellings drawn, not the runs, limit it
            where = (f"with {options.n_resamples} relabellings" if few
                     else f"at {runs_text} of each agent on {count(design.n_tasks, 'task')}")
            advice = "raise n_resamples" if few else "add runs or tasks"
            found.setdefault((where, smallest, advice, words), []).append(pair)
    exact_notes = [f"the max-T permutation p-values of {join_and(pairs)} are exact: all {labellings:,} relabellings "
                   f"of whole runs within tasks were enumerated (no more than n_resamples = {options.n_resamples})"
                   for labellings, pairs in listed_all.items()]
    drawn_notes = [f"the max-T permutation p-values of {join_and(pairs)} are Monte Carlo: n_resamples = "
                   f"{options.n_resamples:,} relabellings were drawn at random from the {labellings:,} there are, as "
                   f"listing them all would take a table of {labellings:,} x {runs:,} runs, more than the "
                   f"{ENUMERATED_CELLS:,} cells rlstats enumerates; p = (1 + hits) / (n_resamples + 1), never below "
                   "the exact test's smallest p-value"
                   for (labellings, runs), pairs in drawn.items()]
    return exact_notes + drawn_notes + [
        cannot_reject(f"max-T permutation test of {join_and(pairs)}", smallest, options.alpha, where)
        + f", so '{words}' says nothing of the curves; {advice}"
        for (where, smallest, advice, words), pairs in found.items()]


def repeat_share(counts):
    """(agents,) the share of an agent's resamples that repeat one run in every task: the product over its tasks of
    n^(1 - n) (n runs: n of the n^n draws are one run n times). ``counts`` is (tasks, agents), 0 where absent."""
    n = np.where(counts > 0, counts, 1).astype(float)
    return np.prod(n ** (1.0 - n), axis=0)


def _studentized(raw, errors, estimates, short, expanded, tolerance, fewest, repeats, options, notes, agents,
                 skewness=None, reached=None, grid=None, df=None, names=None):
    """Each agent's pointwise and simultaneous bands (with standard errors and critical values): the hull of the
    bootstrap-t band and the expanded one, withheld (NaN) where the bootstrap-t band is (2 runs of a task; steps
    where more than the tail of resamples repeat one run in every task, ``repeats``; resamples without spread at a
    step), which a note says. ``skewness`` (agents, steps): the median's or the mean's, whose bands are widened on the
    side of the runs' skew (:func:`rlstats.statistics.skew_widened`); None for the other statistics and for the
    mean's ``bands="studentized_unwidened"``; the mean's pointwise band also holds Hall's skew-corrected t band at
    that skewness and ``df`` (agents, steps), the steps' effective degrees of freedom (:func:`kernels.hall_band`). ``notes``: (the result's
    notes, those on how bands are made, which print only where some band is shown). ``reached`` (agents, steps): the
    optimality gap's steps where every run of the agent is at or above gamma (its gap 0 in every resample), whose
    withheld bands the note says so of, on ``grid`` (audit s20: "add runs" cannot give them a spread). ``names``:
    each agent's built-in statistic where they differ (the optimality gap's agents whose bands are the mean's,
    :func:`_band_options`; ``skewness`` a list, None for an agent not widened); None: ``options``' for all."""
    notes, about_bands = notes
    names = [options.statistic_name] * len(raw) if names is None else names
    pointwise, bands, withheld, at_gamma = [], [], [], []
    said = names_shown(agents)  # the names as the notes' lists write them (quoted where one holds a comma)
    two = [agent for agent, n in zip(said, fewest) if n < MIN_STUDENTIZED_RUNS]
    if two:
        notes.append(f"bands of the curves are withheld for {join_and(two)}: with 2 runs of a task, half of a task's "
                     "resamples repeat one run, and no band simulated at 2 runs per task held its level over score "
                     "distributions; add runs (at least 3 per agent and task)")
    tail = (1.0 - options.confidence_level) / 2.0
    # the steps where the agent's curve exists (no task without a logged run) and its bands were not withheld
    shown = ~short & ~np.isnan(repeats)
    repeated = (repeats > tail) & shown & (fewest >= MIN_STUDENTIZED_RUNS)[:, None]
    if repeated.any():
        named = [agent if repeated[a].sum() == shown[a].sum()
                 else f"{agent} at {count(int(repeated[a].sum()), 'step')}"
                 for a, agent in enumerate(said) if repeated[a].any()]
        notes.append(f"bands of the curves are withheld for {join_and(named)}: more than {tail:.3g} of the resamples "
                     "repeat one run in every task (with one task, below 4 runs: 3 of the 27 resamples of 3 runs), so "
                     "single runs set the tail of the studentised deviations, and the bands simulated with 3 runs of "
                     "one task covered 0.79-0.93 at 95%; add runs (at least 4 with one task) or tasks, or pass "
                     "bands=\"expanded\" for the t-expanded bands, whose notes quote their measured coverage")
    for j, (r, e) in enumerate(zip(raw, errors)):
        if fewest[j] < MIN_STUDENTIZED_RUNS or repeated[j].sum() == shown[j].sum():
            nothing = np.full(estimates[j].shape, np.nan)
            pointwise.append(np.stack([nothing, nothing], axis=-1))
            bands.append((np.stack([nothing, nothing], axis=-1), nothing, nothing))
            continue
        out = short[j] | repeated[j] | ~np.isfinite(repeats[j])
        r = np.where(out[None, :], np.nan, r)
        point, simultaneous = kernels.studentized_bands(r, e[1:], estimates[j], e[0], options.confidence_level,
                                                        tolerance[j], kernels.SE_FLOOR[names[j]])
        point[repeated[j]] = simultaneous[repeated[j]] = np.nan
        given = np.isfinite(estimates[j]) & ~out & np.isfinite(expanded[0][j]).all(axis=1)
        lost = given & ~(np.isfinite(point).all(axis=1) & np.isfinite(simultaneous).all(axis=1))
        zero = lost & (reached[j] if reached is not None else False)
        if zero.any():
            at_gamma.append(f"{said[j]} at {count(int(zero.sum()), 'step')} ({_step_span(grid, zero)})")
        if (lost & ~zero).any():
            withheld.append(f"{said[j]} at {count(int((lost & ~zero).sum()), 'step')}")
        point = kernels.hull(point, expanded[0][j])
        simultaneous = kernels.hull(simultaneous, expanded[1][j][0])
        if skewness is not None and skewness[j] is not None:  # the median (audit s12) and the mean: skewed like the runs
            error = np.nan_to_num(e[0])  # a step without a standard error is not widened
            point = skew_widened(point, error, skewness[j], options.confidence_level)
            simultaneous = skew_widened(simultaneous, error, skewness[j], options.confidence_level)
            if names[j] == "mean":  # audit s25 band25: the first-order term alone fell short
                point = kernels.hull(point, kernels.hall_band(estimates[j], error, skewness[j], df[j],
                                                              options.confidence_level))
        # a band holding the whole curve at the level holds each step at it: never narrower than the pointwise band
        # (audit s12: with one or two steps given, the symmetric sup-t hull was narrower than the percentile one)
        simultaneous = kernels.hull(simultaneous, point)
        se = np.where(out, np.nan, e[0])
        with np.errstate(invalid="ignore", divide="ignore"):
            critical = np.fmax(simultaneous[:, 1] - estimates[j], estimates[j] - simultaneous[:, 0]) / se
        pointwise.append(point)
        bands.append((simultaneous, se, critical))
    about_bands.append(
        "each band is the hull of a studentised (bootstrap-t) band and the t-expanded percentile (pointwise) "
        "or sup-t (simultaneous) band: in the first, each resample's deviation from the estimate is divided "
        f"by its own standard error{_floor_words(options.statistic_name)} and the band is the estimate minus "
        "the quantiles of those ratios times the standard error (simultaneous: from the largest and "
        "smallest ratio over steps, at half the error each), which carries the skewness of the scores "
        "and the uncertainty of a standard error from few runs; the second holds where the statistic "
        "moves in steps between tasks or ties (median, ceilings); the simultaneous band also holds the "
        "pointwise one at every step"
        + ("; both are widened on the side of the runs' skew by the Cornish-Fisher term of a studentised "
           "mean (skewness / 6 (2 z^2 + 1) standard errors), as bootstrap()'s mean and median intervals are"
           + (", the runs' skewness pooled over tasks and steps, and the pointwise band also holds Hall's "
              "skew-corrected t band at that skewness (Hall, 1992), its end on the side of the skew continued "
              "along its tangent where Hall's cubic flattens" if options.statistic_name == "mean" else "")
           if skewness is not None and options.statistic_name in ("mean", "median") else "")
        + ". bands=\"expanded\" gives the second alone, the bands of earlier versions")
    notes.append(about_bands[-1])
    if at_gamma:
        notes.append(f"bands of the curves are withheld for {join_and(at_gamma)}: there every run of the agent is at "
                     f"or above gamma = {signif(options.gamma)}, so its optimality gap is 0 in every resample and has "
                     "no spread to make a band of; a band there needs runs that fall short of gamma")
    if withheld:
        notes.append(f"bands of the curves are withheld for {join_and(withheld)}: there, more than "
                     f"{(1 - options.confidence_level) / 2:.3g} of the resamples do not vary at all (at the "
                     "step, for its pointwise band; at some step, for the simultaneous band, which reads each "
                     "resample's largest ratio over the steps), so the studentised band has no finite end; add runs per task, or tasks, or pass bands=\"expanded\" "
                     "for the t-expanded bands alone, whose notes quote their measured coverage at these runs")
    return np.stack(pointwise), bands


def _raw_gap_notes(design, gamma, matrix, starts, grid):
    """The optimality gap's raw-scores notes (:func:`rlstats.normalization.raw_gap_note`) on the runs at the grid
    steps, the rule read at each step (audit s20: pooled over steps, a few scores below gamma may be a whole early
    step's, so only every score on one side was said, and steps where gamma lies outside every task's scores went
    unsaid): one note of every step where every score is on one side at all of them, else one note for each set of
    steps that the rule reads alike."""
    task, agent = design.task[starts], design.agent[starts]
    whole = raw_gap_note(design, gamma, matrix, np.repeat(task, grid.size), np.repeat(agent, grid.size),
                         " at every step", share=0)  # every score on one side, pooled: true of every step
    if whole or design.normalized:
        return [whole] if whole else []
    above, below, decided = gap_sides_by_step(design, gamma, matrix, task, agent)
    steps = np.flatnonzero(decided)
    # the steps the rule reads alike, in the order of their first step (one note each)
    _, first, group_of = np.unique(np.concatenate([above, below], axis=1)[steps], axis=0, return_index=True,
                                   return_inverse=True)
    notes = []
    for g in np.argsort(first, kind="stable"):
        mask = np.zeros(grid.size, dtype=bool)
        mask[steps[group_of.ravel() == g]] = True
        at = f" at {plural('step', mask.sum())} {_step_span(grid, mask)}"
        # pooled over the group's steps, fewer than a tenth at each is fewer than a tenth of them all
        note = raw_gap_note(design, gamma, matrix[:, mask], np.repeat(task, mask.sum()),
                            np.repeat(agent, mask.sum()), at)
        notes += [note] if note else []
    return notes


def _reached_gamma(design, matrix, starts, options):
    """(agents, steps) for the optimality gap: every run of the agent logged at the step is at or above gamma (and
    one is), so its gap there is 0 in every resample; None for the other statistics."""
    if options.statistic != "optimality_gap":
        return None
    agent = design.agent[starts]
    logged = ~np.isnan(matrix)
    short = np.zeros((design.n_agents, matrix.shape[1]), dtype=int)
    np.add.at(short, agent, logged & ~(matrix >= options.gamma))
    there = np.zeros_like(short)
    np.add.at(there, agent, logged)
    return (short == 0) & (there > 0)


def _gap_is_mean_note(agents, which, gamma, capped=None):
    """The line saying which agents' optimality gap bands are their mean's reflected (:func:`_band_options`; its
    words, ``vocabulary.gap_is_mean_words``, bootstrap()'s); ``capped``: why no score can exceed gamma
    (``Design.ceiling_at_or_below``, ``vocabulary.gap_capped_words``)."""
    whose = join_and(names_shown([a for a, w in zip(agents, which) if w], among=agents), limit=4)
    subject = "every agent" if np.all(which) else whose
    keeps = "" if np.all(which) else "; the other agents, with a score above gamma, keep the gap's own bands"
    its = 'its' if not np.all(which) and which.sum() == 1 else 'each'
    return (f"{gap_is_mean_words(subject, signif(gamma), f'{its} optimality gap', ' logged at the grid steps', ' at every step')}"
            ": it takes that mean's bands reflected (gamma minus their ends), pointwise "
            "and simultaneous, by their method (the standard error floored, widened on the side of the runs' skew, "
            f"the pointwise band holding Hall's band) and their rules for withholding them{keeps}"
            f"{gap_capped_words(capped, 'bands')}")


def _floor_words(statistic):
    """How the studentised bands floor a resample's standard error, for the note (nothing where they do not)."""
    floor = kernels.SE_FLOOR[statistic]
    return "" if not floor else (f" (at least {floor:g} times the resamples' standard deviation at the step, so "
                                 "that a resample of few distinct runs, whose standard error nears 0 where they tie "
                                 "or cross, cannot set the band alone)")


def _clipped(known, options, notes, pointwise, simultaneous, differences):
    """The bands with their ends within the statistic's range under the score's known bounds (a difference band:
    within plus or minus that range's width); unchanged for a statistic function, and without bounds but for the
    optimality gap's (never below 0)."""
    kind = None if callable(options.statistic) else KINDS.get(options.statistic_name)
    if kind is None:
        return pointwise, simultaneous, differences
    known = known_or_unbounded(known)
    low, high = known.limits(kind, options.gamma)
    label = _label(options.statistic_name)
    out = []
    for bands, scale, limits, what in (
            (pointwise, kind, (low, high), f"the pointwise bands of the {label}"),
            (simultaneous, kind, (low, high), f"the simultaneous bands of the {label}"),
            (differences, "difference", (low - high, high - low), f"the difference bands of the {label}")):
        bands, moved = clip(bands, limits)
        out.append(bands)
        note = clipped_note(moved, what, known, scale, limits=limits)
        notes += [note] if note else []
    return tuple(out)


def _beyond_scores(pointwise, simultaneous, estimates, matrix, df, grid, agents, notes):
    """The bands withheld (NaN) at the steps where one reaches ``UNITS_SLIP`` (10) times the range of all the scores
    analysed from its estimate, with a note (appended to ``notes``), and (agents, steps) where the simultaneous one
    is. Such a band puts no useful bound on the curve and hides every curve in the figure (audit s20: at 3 runs of 3 Atari games, ~2 effective degrees of
    freedom, the sup-t band's t quantiles over 199 steps gave Rainbow +-7.36M on scores within 32k). Withheld, not
    clipped: the scores' observed range is no bound on the true curve (bounds.py clips only at known bounds), and
    the steps kept still hold together at the level. Scores that all tie (range 0) are left to the other notes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # no score logged
        low, high = np.nanmin(matrix), np.nanmax(matrix)
    span = high - low
    with np.errstate(invalid="ignore"):
        halves = [np.abs(band - estimates[..., None]).max(axis=2) for band in (pointwise, simultaneous)]
    point_far, far = ((h >= UNITS_SLIP * span) & (span > 0) for h in halves)  # NaN (withheld already): False
    if not (point_far | far).any():
        return pointwise, simultaneous, far
    withheld = []
    for kind, mask in (("pointwise and simultaneous", point_far & far), ("simultaneous", far & ~point_far),
                       ("pointwise", point_far & ~far)):
        where = [f"{agent} at {count(int(mask[a].sum()), 'step')} ({_step_span(grid, mask[a])})"
                 for a, agent in enumerate(names_shown(agents)) if mask[a].any()]
        if where:
            withheld.append(f"{kind} bands of the curves are withheld for {join_and(where)}")
    largest = max(float(h[m].max()) for h, m in zip(halves, (point_far, far)) if m.any())
    dfs = df[(point_far | far) & np.isfinite(df)]
    at_df = ("" if not dfs.size else f"; their t quantiles are taken at {signif(dfs.min(), 2)}"
             f"{'' if signif(dfs.min(), 2) == signif(dfs.max(), 2) else ' to ' + signif(dfs.max(), 2)} effective "
             "degrees of freedom there, which few runs per task and few tasks make")
    notes.append(f"{'; '.join(withheld)}: there they reach more than {UNITS_SLIP:g} times the range of all the scores "
                 f"analysed from the estimate (up to {signif(largest)}, where the scores span {signif(span)}, from "
                 f"{signif(low)} to {signif(high)}), so wide that they put no useful bound on the curves{at_df}; add runs per task, "
                 "or tasks")
    return (np.where(point_far[..., None], np.nan, pointwise), np.where(far[..., None], np.nan, simultaneous), far)


def _df_range(df):
    finite = df[np.isfinite(df)]
    if finite.size == 0:
        return "none could be estimated"
    # a df a few ulps below a whole number is that number (audit s22: one task's n - 1 = 11 came out
    # 10.999999999999998 at some steps, and the note said "df from 10 to 11", "df = 11" in other units)
    low, high = (math.floor(value * (1 + 1e-9)) for value in (finite.min(), finite.max()))
    return f"df = {low}" if low == high else f"df from {low} to {high}"


def _runs_read(fewest, logged_fewest, given):
    """The runs per task whose calibration rows the notes read: the agents' fewest runs in a task (``fewest``), or the
    fewest of a task logged at a step where a band is ``given`` (agents, steps), where some runs end early or start late
    (``logged_fewest`` (agents, steps); audit s28 early28: the notes read the design's runs, at 10 runs of which 5 end
    early the rows of 10 runs for bands resting on 5 there)."""
    there = logged_fewest[given & (logged_fewest > 0)]
    return int(min(fewest.min(), there.min())) if there.size else int(fewest.min())


def _tasks_apart(values, task_of, given):
    """Whether an agent's tasks' runs lie apart (:func:`rlstats.calibration.tasks_apart`) at more than half of the
    steps where its band is ``given`` (steps,): ``values`` (runs, steps) its aligned runs, NaN where a run logs
    none, ``task_of`` (runs,) their task codes, sorted (:func:`_agent_runs`)."""
    if not given.any() or values.shape[0] == 0:
        return False
    starts = np.flatnonzero(np.r_[True, task_of[1:] != task_of[:-1]])
    with np.errstate(invalid="ignore"):  # a task of no run logged at a step: NaN, no runs there
        low, high = (np.fmin.reduceat(values, starts, axis=0).T, np.fmax.reduceat(values, starts, axis=0).T)
    return bool(calibration.tasks_apart(low, high)[given].mean() > 0.5)


def _calibration_notes(options, runs_per_task, n_tasks, method, about_bands, measured=None, below_gamma=False,
                       fewer=False, far_apart=None):
    """The measured coverage of each band where the table shows it short of its level at this design; those of
    the agents' bands (not of the differences) are added to ``about_bands`` too, and their quoted coverage to
    ``measured`` (band -> coverage), which the figure's title quotes (audit s24: it said "95%" beside 0.667).

    The design is read as the table's largest run count at most ``runs_per_task`` (coverage grows with runs)
    and the numbers of tasks simulated there for the band that bracket ``n_tasks``
    (:func:`rlstats.calibration.bracketing_counts`);
    the lowest row over them and the score distributions is quoted. ``below_gamma``: the optimality gap's rows of
    agents whose every score sits at or below gamma while their true scores cross it (:data:`rlstats.calibration.GAP_BELOW_GAMMA`, the
    mean's bands reflected), quoted beside the mean's rows (which measure a truth below gamma); the gap's own bands
    read its other rows. The rows of 3 tasks far apart (:data:`rlstats.calibration.FAR_APART`, audit s34 iqmfar34) and
    of 3 tasks that overlap whose runs lay apart by chance (:data:`rlstats.calibration.APART_BY_CHANCE`, audit s35
    apart35) are read only by ``far_apart``, the agents whose tasks' runs lie apart (:func:`_tasks_apart`; audit s34
    iqmfar34b): their note names them (``far_apart``: the words " of A and B", or "" for every agent), says the runs
    lie apart (:func:`rlstats.calibration.apart_words`) and quotes both designs (:func:`_apart_note`).
    ``fewer``: ``runs_per_task`` is the fewest runs of a task logged at a step with a band, below
    the design's (:func:`_runs_read`), which the note says.
    """
    apart = far_apart is not None
    rows = list(calibration.kept(  # read once per simulation's calls (a twentieth of a small call)
        calibration.rows(CALIBRATION), (CALIBRATION, options.statistic_name, method, below_gamma, apart),
        lambda table: [row for row in table if row["statistic"] == options.statistic_name
                       and row.get("interval", "") in (method, "")
                       and (row.get("configuration", "") == calibration.GAP_BELOW_GAMMA) == below_gamma
                       and not row.get("configuration", "").startswith(calibration.RUNS_CUT)
                       and (row.get("configuration", "") in APART_DESIGNS) == apart]))  # audit s34, s35
    if not rows:
        if callable(options.statistic):
            return []
        about_bands.append(f"the bands of the {_label(options.statistic_name)} have not been measured by simulation")
        return [about_bands[-1]]
    runs_grid = sorted({int(row["runs"]) for row in rows if int(row["runs"]) <= runs_per_task})
    if far_apart is not None and runs_per_task > max(int(row["runs"]) for row in rows):
        # beyond the runs measured on such data (audit s36 former36: nothing was said, and the grid's rows of tasks
        # that overlap were read alone; bootstrap()'s far_apart_note says so alike)
        label = _label(options.statistic_name)
        designs = join_and([f"{join_and(sorted({row['runs'] for row in rows if row['configuration'] == c}, key=int))}"
                            f" on {words}" for c, words in ((calibration.FAR_APART, "3 tasks far apart"),
                                                            (calibration.APART_BY_CHANCE,
                                                             calibration.APART_BY_CHANCE_WORDS))
                            if any(row["configuration"] == c for row in rows)])
        about_bands.append(f"{calibration.apart_words(label, 'task', far_apart, why=False)}: {runs_per_task} runs per "
                           f"task is beyond those measured on such data for the bands of the {label}, {designs}, so "
                           "their coverage there is not measured")
        return [about_bands[-1]]
    if not runs_grid:
        return []
    kinds = [("simultaneous", options.confidence_level), ("pointwise", options.confidence_level)]
    rows = [row for row in rows if row["band"] not in ("simultaneous", "pointwise") or row.get("interval") == method]
    if options.pairs:
        kinds.append(("difference", 1 - options.alpha))
    notes = []
    for band, level in kinds:
        if not math.isclose(level, CALIBRATION_LEVEL):
            continue
        if far_apart is not None:  # audit s35 apart35: both designs whose data tasks_apart reads as apart
            note = _apart_note(options, rows, band, level, runs_per_task, far_apart)
            if band == "difference" and notes:  # no rows of either design (audit s36 former36): said beside them
                notes.append(f"{calibration.apart_words(_label(options.statistic_name), 'task', far_apart, why=False)}"
                             ": the difference bands have not been measured on such data (the rows of both designs "
                             "are of each agent's bands)")
            if note is not None:
                notes.append(note[0])
                if band != "difference":
                    about_bands.append(notes[-1])
                    if measured is not None:
                        measured[band] = note[1]
            continue
        # the counts bracketing this design among the rows of the band at the runs read (review23d: at 3 runs the
        # studentized bands have no 1-task rows, and a 2-task design was told it read "1 and 5 tasks")
        at_runs, bracket = calibration.bracketing_rows(
            [row for row in rows if row["band"] == band and int(row["runs"]) == runs_grid[-1]], n_tasks)
        row = calibration.shortfall(at_runs, level)
        if row is not None:
            what = {"difference": "rate at which the difference band holds 0 under no difference"}.get(
                band, f"coverage of the {band} band")
            at = "simulated designs either side of this one" if len(bracket) > 1 else "nearest simulated design"
            where = (" of an agent whose every score is at or below gamma, where its true scores can exceed gamma"
                     if below_gamma else "")
            # review28a: the runs read are the data's fewest logged only where the table has that count
            logged = ("" if not fewer else ", as the fewest runs of a task logged at a step with a band"
                      if int(row["runs"]) == runs_per_task else
                      f", the most simulated at or below the {runs_per_task} runs of a task logged at some step with a "
                      "band")
            notes.append(f"measured {what} of the {_label(options.statistic_name)}{where} at the {at} "
                         f"({row['runs']} runs per task{logged}, "
                         f"{calibration.bracket_words(bracket, row['tasks'])}): "
                         f"{calibration.worst_coverage(row):.3f} ({row['distribution']} scores, {row['n_sim']} "
                         f"simulated curves{_draws(row)}), {calibration.miss_clause(row, level)}")
            if band != "difference":
                about_bands.append(notes[-1])
                if measured is not None:
                    measured[band] = calibration.worst_coverage(row)
    return notes


#: The configurations of the rows read for agents whose tasks' runs lie apart (:func:`_tasks_apart`) and by no other:
#: 3 tasks far apart (audit s34 iqmfar34) and 3 that overlap whose runs lay apart by chance (audit s35 apart35)
APART_DESIGNS = (calibration.FAR_APART, calibration.APART_BY_CHANCE)
#: The statistics whose bands have rows of both designs (``coverage_far_apart.py``, ``coverage_apart_by_chance.py``)
APART_STATISTICS = ("iqm", "mean", "median")


def _apart_note(options, rows, band, level, runs_per_task, whose):
    """(note, lowest coverage quoted) of ``band`` for agents whose tasks' runs lie apart, or None where no row of
    either design (:data:`APART_DESIGNS`) at the most runs simulated at or below ``runs_per_task`` misses ``level``:
    the lowest row of each design (a design whose rows hold is quoted too, said so) and, for the IQM, the mean's
    bands there (audit s35 apart35: the data that read as apart come from either design, and the mean's bands,
    0.94-0.997 far apart, covered 0.73-0.99 by chance, so the note no longer offers them alone as the way on). The
    IQM's cause said where the far-apart rows are quoted (:func:`rlstats.calibration.apart_words`)."""
    label = _label(options.statistic_name)
    what = {"difference": "rate at which the difference band holds 0 under no difference"}.get(
        band, f"coverage of the {band} band")
    parts, lowest, missed = [], [], False
    for configuration, design in ((calibration.FAR_APART, "tasks far apart"),
                                  (calibration.APART_BY_CHANCE, calibration.APART_BY_CHANCE_WORDS)):
        mine = [r for r in rows if r["configuration"] == configuration and r["band"] == band]
        runs = max((int(r["runs"]) for r in mine if int(r["runs"]) <= runs_per_task), default=None)
        if runs is None:
            continue
        at_runs = [r for r in mine if int(r["runs"]) == runs]
        row = calibration.shortfall(at_runs, level) or min(at_runs, key=calibration.worst_coverage)
        short = calibration.misses(row, level)
        missed |= short
        lowest.append(calibration.worst_coverage(row))
        clause = (calibration.miss_clause(row, level) if short
                  else f"within 3 Monte Carlo standard errors of {level:g}")
        part = (f"at the simulated design of {design} ({row['runs']} runs per task): "
                f"{calibration.worst_coverage(row):.3f} ({row['distribution']} scores, {row['n_sim']} simulated "
                f"curves), {clause}")
        if options.statistic_name == "iqm":  # the IQM's alone, as bootstrap()'s note
            mean = [r for r in calibration.rows(CALIBRATION) if r["configuration"] == configuration
                    and r["statistic"] == "mean" and r["band"] == band and r["runs"] == row["runs"]
                    and r.get("interval", "") == row.get("interval", "")]
            if mean:
                part += (f"; the mean's (statistic=\"mean\") {min(calibration.worst_coverage(r) for r in mean):.3f}"
                         " there")
        parts.append(part)
    if not missed:
        return None
    why = options.statistic_name == "iqm" and any(r["configuration"] == calibration.FAR_APART for r in rows)
    return (f"{calibration.apart_words(label, 'task', whose, why=why)}: measured {what} of the {label} "
            f"{'; and '.join(parts)}", min(lowest))


def _draws(row):
    """', the lowest of D design draws' where the row pools draws of the tasks' offsets and scales."""
    draws = row.get("design_draws") or ""
    return f", the lowest of {draws} draws of the tasks' offsets and scales" if draws not in ("", "nan") else ""


def _run_jobs(jobs, n_jobs, advance):
    """Results of ``function(*arguments)`` for each job, in order; in worker processes when n_jobs != 1."""
    if n_jobs == 1:
        results = []
        for function, arguments in jobs:
            results.append(function(*arguments))
            advance(1)
        return results
    from joblib import Parallel, delayed

    results = []
    workers = n_jobs if n_jobs == -1 else min(n_jobs, len(jobs))  # joblib starts every worker at once
    for result in Parallel(n_jobs=workers, return_as="generator")(delayed(f)(*a) for f, a in jobs):
        results.append(result)
        advance(1)
    return results


def _label(name):
    return {"iqm": "IQM", "optimality_gap": "optimality gap"}.get(name, name)
