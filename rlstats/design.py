"""Validation of a long DataFrame against a formula, and the array form every back end reads.

:func:`build` runs once per analysis.  It evaluates the response, checks every
column the formula names, handles missing values by ``na_action``, keeps out
tasks that cannot inform a comparison, and returns a frozen :class:`Design`
whose arrays are sorted by task, then agent, then the caller's row order.
Everything it changes is recorded in ``Design.notes``, which results print.
Nothing downstream re-validates or re-reads the DataFrame.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal, ParamSpec, Sequence, TypeVar, overload

import numpy as np
import pandas as pd

from . import formula as formula_module
from .bounds import Bounds, check_bounds, check_within, score_bounds, with_bounds
from .conditions import Condition, parse_condition
from .connectivity import (ATTEMPT, ComparisonGraph, comparison_graph, kept_by, keeping, label_literal,
                           leaving_out, subset_dropping_attempts)
from . import statistics
from .format import count, join_and, name_list, names_shown, natural_key, plural, singular, verb
from .errors import (DesignError, OptionError, RlstatsError, agent_named, called_as, entry as called_entry,
                     rows_named, shell_word, shown)
from .formula import capture_environment
from .interop import TABLE, as_pandas, column_names, frame_library
from .normalization import AVERAGED_ATTR, load_reference, normalised_in, normalize_response
from .resampling import label_ranks
from .options import check_bool, check_choice, keywords_checked
from .provenance import (NOTES_ATTR, OF_ROWS, SMALLER_BETTER, SUBSET, SUMMARY_WORDING, Note, ValuesAt, add_note,
                         carried, checked_share, provenance_of, rebind, set_notes)  # NOTES_ATTR: read from here too
from .vocabulary import ALL_RUNS, MINMAX_CEILING  # the one task of a formula without blocks (its home: format reads it too)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ._typing import Data, EvalEnv, FormulaLike, NaAction, Normalizer, Subset, Table

P = ParamSpec("P")
R = TypeVar("R")

#: What to do with missing values: stop, or drop the rows and say so ("omit" is R's name for "drop").
NA_ACTIONS = ("raise", "drop", "omit")


#: The Design's agent, task and run codes: 4 bytes, half of intp, for a lean build (issue 33). Row counts and
#: agent x task cells are checked against its range in build.
CODE = np.int32
CODE_LIMIT = int(np.iinfo(CODE).max)
#: Column names that hold a training step (or another position in time) in RL logs, compared in
#: lower case. Such a column varying within a run's cell means the rows are one run's curve, not runs.
STEP_NAMES = frozenset({
    "step", "steps", "frame", "frames", "env_frames", "timestep", "timesteps", "time_step", "time_steps",
    "total_timesteps", "time/total_timesteps", "global_step", "env_step", "env_steps", "num_steps",
    "iteration", "iterations", "iter", "epoch", "epochs", "update", "updates", "episode", "episodes",
    "trainer/global_step", "_step",
})


@dataclass(frozen=True, eq=False)
class Design:
    """The validated arrays of one analysis.

    Attributes
    ----------
    formula : Formula
        The parsed formula.
    y : ndarray of float64, shape (N,)
        Response values, sorted by task, then agent, then original row order.
    agent, task : ndarray of int32, shape (N,)
        Integer codes into ``agents`` and ``tasks``.
    run : ndarray of int32, shape (N,)
        Index of the run within its (agent, task) cell, 0..c_ij - 1 (by seed
        when the formula names the replicate column, else by row order).
    agents, tasks : tuple of str
        Labels in the user's level order (categoricals keep theirs; other
        columns are sorted, as R's ``factor()`` does).
    counts : ndarray of int, shape (n_tasks, n_agents)
        Number of runs in each cell.
    row_position : ndarray of intp, shape (N,)
        Position of each run in the caller's DataFrame.
    seeds : ndarray or None
        Replicate labels (as strings) when the formula names them (``task/seed``).
    extra : dict
        Further columns a back end asked for (e.g. ``batch``), sorted like ``y``.
    notes : tuple of str
        What was dropped, aggregated or changed, one sentence each.
    dropped_tasks : tuple of str
        Tasks kept out because fewer than two agents have runs there.
    left_out_agents : tuple of (str, str)
        Agents of the data left out of the design, each with the reason: a level of the agent column (a
        categorical's category) with no rows analysed, or an agent whose runs are all on tasks kept out; an option
        naming one is told why it is not an agent (:func:`check_agent_named`).
    n_dropped_rows : int
        Rows removed by ``na_action="drop"``.
    bounds : Bounds or None
        Known limits of the response (``bounds=``, or a normaliser's hard range), which every row respects and
        no interval a back end reports leaves (:mod:`rlstats.bounds`).
    numeric_agents : bool
        Whether the agent column holds numbers (integer codes), so that a ``subset=`` naming agents writes them as
        numbers, not as their printed labels in quotes (audit s8: "agent in ['1', '2']" kept no rows).
    normalized : bool
        Whether the response is on a normalised scale: ``build`` normalised it per task (``normalize=`` given, and
        not False), or the frame carries :func:`rlstats.normalize`'s note on the response column (read by its
        record, :data:`rlstats.provenance.NORMALISED`, never its sentence). Results state the response's units from it
        (:attr:`units`).
    inherited_notes : tuple of Note
        The data frame's notes (:mod:`rlstats.provenance`) as true of the rows ``build`` analysed, re-stated where it
        dropped some; their sentences open ``notes`` (after the seeds' averaging note). A back end's own drop of rows
        (:meth:`select_tasks`, :meth:`select_agents`, so :meth:`require_complete`) re-states them for the rows it keeps,
        from :attr:`note_rows` and :attr:`note_keys`.
    note_rows : ndarray or None
        Each row of the frame ``build`` was given, a code into :attr:`note_keys` (read at ``row_position``); None
        where no note of the data is bound to rows by columns the frame has (then nothing is re-stated).
    note_keys : DataFrame or None
        The distinct values of the inherited notes' key columns, one row per code of :attr:`note_rows`: what
        :func:`rlstats.provenance.rebind` needs to re-state the notes for the rows a Design keeps, 4 bytes a row.
    averaged_within : str or None
        The column (the run) within each of whose values the seeds were averaged (``| task/run/seed``,
        :func:`_average_nested`), so that a row is one run's mean of its seeds; None otherwise.
    """

    formula: formula_module.Formula
    y: np.ndarray
    agent: np.ndarray
    task: np.ndarray
    run: np.ndarray
    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    counts: np.ndarray
    row_position: np.ndarray
    seeds: np.ndarray | None = None
    extra: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    dropped_tasks: tuple[str, ...] = ()
    left_out_agents: tuple[tuple[str, str], ...] = ()
    n_dropped_rows: int = 0
    bounds: Bounds | None = None
    normalized: bool = False
    numeric_agents: bool = False
    inherited_notes: tuple[Note, ...] = ()
    note_rows: np.ndarray | None = None
    note_keys: pd.DataFrame | None = None
    averaged_within: str | None = None

    @property
    def _response_column(self) -> str:
        """The column a normaliser's note names for this response: the column itself where the response is one."""
        return self.formula.response_columns[0] if self.formula.is_simple_response else self.formula.response

    @property
    def units(self) -> str:
        """The response's units as every result states them: "normalised scores" or "the units of '<response>'"."""
        return "normalised scores" if self.normalized else f"the units of '{self.response_name}'"

    @property
    def response_name(self) -> str:
        """The response as sentences name it: a column's name, not the formula's quoting of it (audit s28: '`score`'
        after seeds were averaged), or the expression."""
        return self.formula.response_columns[0] if self.formula.is_simple_response else self.formula.response

    @property
    def ceiling(self) -> tuple[float, str] | None:
        """The highest score the analysed response can take and why, or None where it is not known: the high end of
        :attr:`bounds` (``bounds=``, a normaliser's hard range), or 1 where every row was min-max normalised (each
        task's largest score is 1 by construction; read of the normaliser's record, and of the rows, none above 1).
        Where it is at or below gamma, no true score can cross gamma (audit s29 minmax29: the optimality gap's notes)."""
        known = []
        if self.bounds is not None and np.isfinite(self.bounds.high):
            known.append((self.bounds.high, self.bounds.source))
        if self.y.size and float(np.max(self.y)) <= 1.0 and normalised_in(
                self.inherited_notes, self._response_column, present=self.analysed_note_keys, minmax=True):
            known.append((1.0, MINMAX_CEILING))
        return min(known, key=lambda pair: pair[0]) if known else None

    def ceiling_at_or_below(self, gamma: float) -> str | None:
        """Why no score of the response can exceed ``gamma`` (:attr:`ceiling`), or None where one can."""
        known = self.ceiling
        return known[1] if known is not None and known[0] <= gamma else None

    @property
    def block_word(self) -> str:
        """The blocks as sentences about the data call them (:attr:`rlstats.formula.Formula.block_word`)."""
        return self.formula.block_word

    @property
    def arm_word(self) -> str:
        """The arms as sentences about the data call them (:attr:`rlstats.formula.Formula.arm_word`)."""
        return self.formula.arm_word

    @property
    def words(self) -> tuple[str, str]:
        """(:attr:`block_word`, :attr:`arm_word`): the nouns the sentences' builders take as ``words=``."""
        return self.block_word, self.arm_word

    @property
    def n_agents(self) -> int:
        return len(self.agents)

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)

    @property
    def nobs(self) -> int:
        return int(self.y.size)

    @property
    def has_blocks(self) -> bool:
        return self.formula.blocks is not None

    @property
    def data_name(self) -> str:
        return self.formula.data_name

    @property
    def max_runs_per_cell(self) -> int:
        return int(self.counts.max())

    @property
    def is_complete(self) -> bool:
        """Every agent has at least one run on every task."""
        return bool((self.counts > 0).all())

    @property
    def is_balanced(self) -> bool:
        """Complete, with the same number of runs in every cell."""
        return bool((self.counts == self.counts.flat[0]).all())

    @property
    def agent_places(self) -> np.ndarray:
        """Each agent's place among the agents' names sorted (as numbers where they are): the codes that random
        streams and draws are keyed by, so that a Categorical's category order does not change them
        (:func:`rlstats.resampling.label_ranks`; for other columns, the design's own order)."""
        return label_ranks(self.agents, self.numeric_agents)

    @property
    def task_places(self) -> np.ndarray:
        """Each task's place among the tasks' names sorted, as :attr:`agent_places` is for the agents."""
        return label_ranks(self.tasks)

    @property
    def agent_order(self) -> np.ndarray:
        """The agents' codes in their names' sorted order (the inverse of :attr:`agent_places`): ``agent_order[i]`` is
        the code of the agent at place i."""
        return np.argsort(self.agent_places, kind="stable")

    @property
    def task_order(self) -> np.ndarray:
        """The tasks' codes in their names' sorted order (the inverse of :attr:`task_places`): the order in which the
        back ends lay out tasks and key their draws, so that a Categorical's category order changes no result.
        ``task_order[i]`` is the code of the task at place i; whatever reads a per-task array in that order beside
        one in the design's order maps it through here (review s30: each task's tie tolerance, in the design's order,
        was applied to the task at the same place among the names sorted)."""
        return np.argsort(self.task_places, kind="stable")

    @property
    def graph(self) -> ComparisonGraph:
        """Which agents met on which tasks, and the groups that never share a task (:mod:`rlstats.connectivity`)."""
        return comparison_graph(self.counts, self.agents, self.tasks, numeric_agents=self.numeric_agents,
                                words=self.words)

    @classmethod
    def from_counts(cls, formula: formula_module.Formula, agents: Sequence[str], tasks: Sequence[str],
                    counts: ArrayLike) -> Design:
        """A Design with ``counts[t, a]`` runs in each cell, stored task by task, responses all 0.

        Simulation studies fill in the responses (``dataclasses.replace(design, y=...)``).
        """
        counts = np.asarray(counts, dtype=np.int64)
        cell_task, cell_agent = np.nonzero(counts)
        reps = counts[cell_task, cell_agent]
        task = np.repeat(cell_task, reps).astype(CODE)
        agent = np.repeat(cell_agent, reps).astype(CODE)
        run = (np.arange(task.size) - np.repeat(np.cumsum(reps) - reps, reps)).astype(CODE)
        return cls(formula=formula, y=np.zeros(task.size), agent=agent, task=task, run=run, agents=tuple(agents),
                   tasks=tuple(tasks), counts=counts, row_position=np.arange(task.size))

    def select_agents(self, names: Sequence[str]) -> Design:
        """A copy restricted to the named agents (in the given order), for pairwise sub-designs."""
        codes = [self.agents.index(name) for name in names]
        remap = np.full(self.n_agents, -1, dtype=CODE)
        remap[codes] = np.arange(len(codes))
        agent = remap[self.agent]
        # Keep the sort order by task, then (new) agent, then run.
        rows = np.flatnonzero(agent >= 0)
        rows = rows[np.lexsort((agent[rows], self.task[rows]))]
        return dataclasses.replace(
            self, y=self.y[rows], agent=agent[rows], task=self.task[rows], run=self.run[rows],
            agents=tuple(names), counts=self.counts[:, codes], row_position=self.row_position[rows],
            seeds=None if self.seeds is None else self.seeds[rows],
            extra={k: v[rows] for k, v in self.extra.items()})._restated_notes(rows.size < self.nobs)

    def runs_by_score(self) -> Design:
        """A copy whose runs within each cell are in score order where the formula names no seed column (with one,
        they stay by seed): without seeds a cell's runs are in the rows' order, so a back end summing over a cell
        would give another last bit for shuffled rows (audit s16). ``row_position`` follows the rows."""
        if self.formula.replicate is not None:
            return self
        from .resampling import canonical_order

        rows = canonical_order(self.y, self.task, self.agent)  # keeps the task, agent blocks (and ``run``) in place
        return dataclasses.replace(self, y=self.y[rows], row_position=self.row_position[rows],
                                   extra={k: v[rows] for k, v in self.extra.items()})

    def select_tasks(self, names: Sequence[str]) -> Design:
        """A copy restricted to the named tasks (in the given order); the others are not recorded as dropped."""
        codes = np.asarray([self.tasks.index(name) for name in names], dtype=np.intp)
        remap = np.full(self.n_tasks, -1, dtype=CODE)
        remap[codes] = np.arange(codes.size)
        task = remap[self.task]
        # Keep the sort order by (new) task, then agent, then run.
        rows = np.flatnonzero(task >= 0)
        rows = rows[np.lexsort((self.agent[rows], task[rows]))]
        return dataclasses.replace(
            self, y=self.y[rows], agent=self.agent[rows], task=task[rows], run=self.run[rows],
            tasks=tuple(names), counts=self.counts[codes], row_position=self.row_position[rows],
            seeds=None if self.seeds is None else self.seeds[rows],
            extra={k: v[rows] for k, v in self.extra.items()})._restated_notes(rows.size < self.nobs)

    @property
    def analysed_note_keys(self) -> pd.DataFrame | None:
        """The distinct values of the inherited notes' key columns among the rows this Design analyses (those of
        :attr:`note_keys` that :attr:`note_rows` gives at :attr:`row_position`), None where no note is bound to rows by
        columns of the data: what the notes are re-stated for and :attr:`normalized` is read of."""
        if self.note_rows is None or self.note_keys is None:
            return None
        return self.note_keys.iloc[np.unique(self.note_rows[self.row_position])]

    def _restated_notes(self, fewer: bool) -> Design:
        """This Design with its inherited notes re-stated for its rows (``fewer``: a selection left some out), each
        sentence among ``notes`` replaced by its re-statement or, where it spoke only of rows left out, removed
        (audit s23: a back end's own drop kept the min-max bounds of a task it left out), and :attr:`normalized` read
        again of them: rows left out can leave only normalised ones (audit s24: a stack's raw task left out of the task
        table's aggregate row left it 'pooling raw scores')."""
        present = self.analysed_note_keys if fewer else None
        if present is None:
            return self
        said = {}
        for note in self.inherited_notes:
            again = _after_own_drop(note, present)
            said[note.text] = again[0] if again else None
        inherited = tuple(note for note in said.values() if note is not None)
        notes = []
        for text in self.notes:
            if text not in said:
                notes.append(text)  # build's own, or a back end's
            elif said[text] is not None:
                notes.append(said[text].text)  # type: ignore[union-attr]
        normalized = self.normalized or normalised_in(inherited, self._response_column, present=present)
        return dataclasses.replace(self, inherited_notes=inherited, notes=tuple(dict.fromkeys(notes)),
                                   normalized=normalized)

    def require_complete(self, na_action: str, why: str) -> Design:
        """Every agent must have runs on every task: an error, or (na_action="drop") leave out incomplete tasks.

        ``why`` completes the error message ("<why>: add those runs, ...") for
        the back end that needs it.  Dropped tasks are stated in the notes.
        """
        empty = self.counts == 0
        if not empty.any():
            return self
        # agents that never share a task: no choice of tasks makes the design complete, so name the groups
        self.graph.require_connected(self.formula.groups, why)
        cells = [f"{arm_label(self.formula, self.agents[j])} on {block_label(self.formula, self.tasks[t])}"
                 for t, j in zip(*np.nonzero(empty))]
        incomplete = empty.any(axis=1)
        # the formula's columns as nouns (audit s32 block32: "agent x task cell(s)" of 'ret ~ algo | env')
        task, agent = self.block_word, self.arm_word
        tasks, agents = plural(task), plural(agent)
        n = len(cells)  # counted by the one rule, not "cell(s)" (audit s33 words33: "1 games(s)")
        lacking = f"{count(n, f'{agent} x {task} cell')} {verb(n, 'has')} no runs"
        if na_action == "raise":
            shown = "; ".join(cells[:3]) + ("; ..." if len(cells) > 3 else "")
            if incomplete.all():  # dropping incomplete tasks would leave none (audit s28): offer agents out instead
                widest = int(np.argmax((self.counts > 0).sum(axis=1)))
                ran = self.counts[widest] > 0
                ran_all = tuple(a for a, r in zip(self.agents, ran) if r)
                way = keeping(self.formula.groups, ran_all, tuple(a for a, r in zip(self.agents, ran) if not r),
                              self.numeric_agents)  # an option of what was called: power() takes no subset=
                found = (f"{lacking} ({shown}); {why}, and no {task} has "
                         f"runs of every {agent}, so leaving out the incomplete {tasks} would leave none: add those "
                         f"runs, or leave out {agents} by passing ")
                # with na_action="drop", as the agents kept may still miss tasks (audit s28: a second refusal)
                kept_said = (f" (it keeps the {count(len(ran_all), agent)} that ran {self.tasks[widest]!r}, on the "
                             f"{tasks} where all of them ran)")
                raise DesignError(found + f'{way.python} and na_action="drop" to {way.function}{kept_said}',
                                  command_line=found + f"{way.command_line} -o na_action=drop to {way.command}"
                                  + kept_said)
            raise DesignError(
                f"{lacking} ({shown}); {why}: add those runs, or leave out "
                f"the {tasks} or {agents} that are missing, or pass na_action=\"drop\" to leave out the "
                f"{count(int(incomplete.sum()), task)} where some {agent} has no runs")
        if incomplete.all():
            # the option's doing, said (review s30: the refusal named neither it nor what needed every agent)
            raise DesignError(f"no {task} has runs of every {agent}, so na_action=\"{na_action}\" leaves none ({why}); "
                              f"select {agents} that share {tasks}")
        gone = tuple(t for t, bad in zip(self.tasks, incomplete) if bad)
        note = (f"{count(len(gone), task)} left out because some {agent} has no runs there (na_action=\"{na_action}\"; "
                f"{int(self.counts[incomplete].sum())} runs dropped): {name_list(gone, among=self.tasks)}")
        kept = self.select_tasks([t for t, bad in zip(self.tasks, incomplete) if not bad])
        # kept's notes: the data's re-stated for the tasks kept (select_tasks)
        return dataclasses.replace(kept, notes=kept.notes + (note,), dropped_tasks=self.dropped_tasks + gone)

    def cell_matrix(self, summary: Literal["mean", "median"] = "mean") -> np.ndarray:
        """The (n_tasks, n_agents) matrix of per-cell means or medians; NaN for empty cells."""
        cell = self.task * self.n_agents + self.agent
        out = np.full(self.n_tasks * self.n_agents, np.nan)
        if summary == "mean":
            sums = np.bincount(cell, weights=self.y, minlength=out.size)
            counts = self.counts.ravel()
            np.divide(sums, counts, out=out, where=counts > 0)
        else:
            # Arrays are sorted by cell, so each cell is one contiguous slice.
            starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
            out[cell[starts]] = [np.median(part) for part in np.split(self.y, starts[1:])]
        return out.reshape(self.n_tasks, self.n_agents)


def _first_rows(data, mask, limit=5):
    return rows_named(data.index, np.flatnonzero(mask), limit)


def _levels(column, values, what):
    """Integer codes, labels in level order, and the missing mask of a factor column.

    Levels with rows that a reader could not tell apart in print are an error (:func:`_check_labels`).
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy().astype(CODE)
        levels = list(values.cat.categories)
        # only the categories with rows print; unused ones are left out with a note (_drop_unused)
        used = np.bincount(codes[codes >= 0], minlength=len(levels)) > 0
    else:
        try:
            codes, uniques = pd.factorize(values, sort=True)
        except TypeError:
            # Mixed types cannot be sorted: keep the order of first appearance.
            codes, uniques = pd.factorize(values, sort=False)
        codes, levels, used = codes.astype(CODE), list(uniques), None
    missing = codes < 0
    _check_labels(column, what, levels, used, bool(missing.any()))
    return codes, [str(level) for level in levels], missing


def _holds_numbers(values):
    """Whether a factor column's levels are numbers (not booleans): a condition names them unquoted."""
    dtype = values.dtype.categories.dtype if isinstance(values.dtype, pd.CategoricalDtype) else values.dtype
    return bool(pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype))


def _check_labels(column, what, levels, used, has_missing):
    """Distinct levels that print the same (1 and '1'), or alike but for spaces at their ends ('A' and 'A '): an error.

    Every table, plot and note shows a level by ``str()``, where a trailing space cannot be seen, so
    two such levels would be two agents (tasks, runs) that no reader can tell apart. Merging them
    would be a guess about the data; the message names both and the one line that merges them.
    """
    shown = [level for i, level in enumerate(levels) if used is None or used[i]]
    seen = {}  # a label without the white space at its ends -> the first level printed so
    for level in shown:
        label = str(level)
        if label.strip() not in seen:
            seen[label.strip()] = level
            continue
        first = seen[label.strip()]
        name = f"df[{column!r}]"
        keep_missing = f".where({name}.notna())" if has_missing else ""
        if str(first) == label:
            kinds = f"{first!r} ({type(first).__name__}) and {level!r} ({type(level).__name__})"
            raise DesignError(
                f"column {column!r} ({what}) has distinct values that print the same, {kinds}, so no table "
                f"could tell them apart; if they are one {what}, convert the column to text: "
                f"{name} = {name}.astype(str){keep_missing}; otherwise rename one of them")
        # .str.strip() would turn values that are not strings into NaN
        text = f"{name}.str.strip()" if all(isinstance(v, str) for v in shown) else \
            f"{name}.astype(str).str.strip(){keep_missing}"
        found = (f"column {column!r} ({what}) has values that differ only in white space at their ends, {first!r} "
                 f"and {level!r}, which print the same in every table; if they are one {what}, strip ")
        raise DesignError(found + f"it: {name} = {text}; otherwise rename one of them",
                          command_line=found + f"the spaces around it in the file's column {column!r}; otherwise "
                                               "rename one of them")
    for level in shown:  # after the pairs above, whose message names both and the strip that merges them
        _check_printable(column, what, level, str(level))


#: characters that break a printed table's rows or columns (line breaks, tabs, other control characters), by name
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CHARACTER_NAMES = {"\n": "line break", "\r": "carriage return", "\t": "tab", "\u2028": "line separator",
                    "\u2029": "paragraph separator"}


def _check_printable(column, what, level, label):
    """A level that prints as nothing, or with a line break (tab, control character) that splits every table's rows:
    an error quoting it (audit s18: an agent "a\\nb" broke the printed mean ranks over two lines, "" headed a blank
    column)."""
    where = f"column {column!r} ({what}) has the value {level!r}"
    if not label.strip():
        raise DesignError(f"{where}, which prints as nothing in every table and sentence; give it a name: "
                          f"df[{column!r}] = df[{column!r}].replace({level!r}, 'unnamed'), or, if it means missing, "
                          f"drop its rows",
                          command_line=f"{where}, which prints as nothing in every table and sentence; give it a name "
                                       f"in the file's column {column!r}, or drop its rows")
    bad = _UNPRINTABLE.search(label)
    if bad:
        kind = _CHARACTER_NAMES.get(bad.group(), f"control character {bad.group()!r}")
        found = f"{where}, with a {kind} in it, which splits or misaligns every printed table; rename it"
        one_line = " ".join(_UNPRINTABLE.sub(" ", label).split())
        raise DesignError(f"{found}, e.g. df[{column!r}] = df[{column!r}].replace({level!r}, {one_line!r})",
                          command_line=f"{found} in the file's column {column!r}")


def booleans_read(where: str, plural: bool = False) -> str:
    """The one sentence saying that scores held as True/False were read as 1/0 (R's lm reads logicals so too); said,
    as every change to the data is (audit s18), by ``build`` and by AdaStop's batches (audit s19)."""
    return f"{where} {'hold' if plural else 'holds'} True/False values, read as 1 (True) and 0 (False)"


def public_function(function: Callable[P, R]) -> Callable[P, R]:
    """``function``, a public function, as users call it: the one home of what every one does with its arguments.

    * a keyword it does not take is :func:`options.unknown_option_error` (an OptionError naming it, the close names,
      R's spellings and the function's options), not Python's TypeError (:func:`options.keywords_checked`, which the
      public functions that take no formula have alone);
    * R's ``f(formula, data = df)``, a formula first with ``data=`` named, is the call ``f(df, formula)`` (the same
      parameters in R's order, as :func:`data_and_formula` takes them positionally; not an alias), where the
      function takes (data, formula, ...);
    * where it takes ``eval_env=`` (or passes it on in ``**options``: ``compare``), the caller's names are captured
      here: this frame stands between the caller and the count of frames of :func:`design_of` (or ``compare``,
      ``build``);
    * where it takes ``higher_is_better=`` and was not given it, the data say whether the response is a time to a
      threshold, better smaller (:func:`direction_read`: False read with a note, or a refusal where it
      cannot be known; audit s33 ttt33).
    The signature, ``help()`` and the type seen by checkers are the function's own (``functools.wraps``, ParamSpec).
    """
    parameters = inspect.signature(function).parameters
    checked = keywords_checked(function)
    formula_second = list(parameters)[:2] == ["data", "formula"]
    # R's order moves data= in front only where the call then still fits (bootstrap(f, "x", data=df) keeps Python's
    # "multiple values for argument 'data'", not "3 positional arguments were given": audit s23 review23c)
    positional = sum(p.kind is p.POSITIONAL_OR_KEYWORD for p in parameters.values())
    # compare() takes eval_env= in **options and passes it on to its back end
    captures = "eval_env" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    directed = "higher_is_better" in parameters  # read from the data where not given (audit s33 ttt33)

    @functools.wraps(function)
    def called(*args: P.args, **kwargs: P.kwargs) -> R:
        if (formula_second and 1 <= len(args) < positional and "data" in kwargs and "formula" not in kwargs
                and isinstance(args[0], (str, formula_module.Formula))):
            args = (kwargs.pop("data"), *args)  # type: ignore[assignment]  # R's f(formula, data = df)
        if captures:
            kwargs["eval_env"] = capture_environment(0 if kwargs.get("eval_env") is None else kwargs["eval_env"])
        with called_as(function.__name__):  # the ways on of its refusals are its own options (errors.ENTRY)
            if directed and "higher_is_better" not in kwargs:
                args, kwargs = _direction_of_data(args, kwargs)
            return checked(*args, **kwargs)

    return called


def _direction_of_data(args, kwargs):
    """(args, kwargs) of a call to a function taking ``higher_is_better=`` that was not given it: False where the
    response is a time to a threshold, with the data carrying the note that says so, or an OptionError where the
    direction cannot be known (:func:`direction_read`)."""
    where = ["args" if len(args) > 0 else "data", "args" if len(args) > 1 else "formula"]
    data = args[0] if where[0] == "args" else kwargs.get("data")
    formula = args[1] if where[1] == "args" else kwargs.get("formula")
    first = not (isinstance(data, (str, formula_module.Formula)) and formula is not None
                 and not isinstance(formula, (str, formula_module.Formula)))  # R's order: the data second
    data, formula = data_and_formula(data, formula)
    given = data
    data, direction = direction_read(data, formula)
    if direction is None and data is given:
        return args, kwargs
    if direction is not None:
        kwargs = {**kwargs, "higher_is_better": direction}
    position = 0 if first else 1
    if where[position] == "args":
        args = (*args[:position], data, *args[position + 1:])
    else:
        kwargs[("data", "formula")[position]] = data
    return args, kwargs


#: The column ``summarize_runs(how="time_to_threshold")`` puts beside the times: it stays where the notes are lost.
CENSORED = "censored"


def direction_read(data: Any, formula: Any) -> tuple[Any, bool | None]:
    """(``data``, converted to pandas where a pyarrow table may carry the notes, the ``higher_is_better`` a function
    taking it reads where the caller did not give it: None, its default, or False for a time to a threshold), for
    :func:`public_function`, the one caller (its :func:`_direction_of_data`).

    The response is a time where a note of :data:`~rlstats.provenance.SMALLER_BETTER` kind (the summary's note of
    ``how="time_to_threshold"``) names its column and the column holds, at every row, the time that note records for
    the row's run (:func:`_times_held`): False is read, and ``data`` comes back with a note saying so, which the result
    prints (a shallow copy: the caller's frame is not changed). Where the column holds other values (negated, replaced,
    rows of another summary stacked with them) or another summary's note names it too, the note's claim is not true
    of these rows: an OptionError naming both values (audit s33 review). Where the notes are lost (pandas' merge, a
    polars round trip, a CSV file; audit s33 ttt33), or name a column the data no longer hold (a rename), but the
    response sits beside a ``censored`` column or holds the recorded times, the direction cannot be known: an
    OptionError naming both values, never a guess; a response expression reading a time (whose order the expression
    may keep or reverse) is refused alike. Never silent either way (audit s33 ttt33: the slowest agent was marked
    best)."""
    if formula is None:
        return data, None
    try:
        parsed = formula if isinstance(formula, formula_module.Formula) else formula_module.parse(formula)
        read = parsed.response_columns
        simple = parsed.is_simple_response
    except (RlstatsError, TypeError, ValueError):
        return data, None  # the function says what is wrong with the formula
    if frame_library(data) == "pyarrow":
        data = as_pandas(data)  # pandas' attrs ride in its schema: converted once here, as the function would
    if isinstance(data, Design):
        notes: Sequence[Note] = data.inherited_notes
        columns = list(read)  # the Design holds its response and the notes' keys, no other column
    else:
        provenance = provenance_of(data) if isinstance(data, pd.DataFrame) else None
        notes = () if provenance is None else provenance.notes
        columns = column_names(data) or []
    summaries = [s for s in map(_summary_of, notes) if s is not None]  # (spec, is a time)
    times = [spec for spec, is_time in summaries if is_time]
    # a note naming a column the data no longer hold (renamed, dropped) says nothing of them: lost (audit s33 review)
    known = [spec["column"] for spec in times if spec["column"] in columns]  # the columns the notes say are times
    timed = [c for c in known if c in read]
    how = "summarize_runs' time_to_threshold summary"  # no how=, which the command line words as --summarize
    if timed and simple:
        column = timed[0]
        others = [spec["how"] for spec, is_time in summaries if not is_time and spec["column"] == column]
        _times_held(data, column, [spec for spec in times if spec["column"] == column], others)
        text = (f"higher_is_better=False, read from the data: {column} is a time to a threshold ({how}), where "
                "smaller is better; pass higher_is_better=True to read larger values as better")
        if isinstance(data, Design):
            return dataclasses.replace(data, notes=(*data.notes, text)), False
        return add_note(data.copy(deep=False), text), False
    if timed:
        raise OptionError(f"the response {parsed.response} reads {timed[0]}, a time to a threshold ({how}), where "
                          "smaller is better, and an expression may keep that order or reverse it: pass "
                          "higher_is_better=False where smaller values of the response are better, "
                          "higher_is_better=True where larger are")
    # the notes, there, say which columns are times: another column beside them is read as it is
    if not (simple and not known and read and read[0] in columns and read[0] != CENSORED):
        return data, None
    response = read[0]
    ways = (f"pass higher_is_better=False if a smaller {response} is better (a time), higher_is_better=True if a "
            "larger one is")
    if times:  # the notes name a time column the data do not hold
        named = join_and([repr(c) for c in dict.fromkeys(spec["column"] for spec in times)])
        if CENSORED in columns or ((found := _unheld_rows(data, response, times)) and not found[0].any()):
            beside = (f"a {CENSORED!r} column" if CENSORED in columns
                      else "the times that summary recorded for their runs")
            raise OptionError(f"these data carry the notes of {how}, which say {named} is a time to a threshold, "
                              f"where smaller is better, but hold no column {named} (renamed or dropped), and "
                              f"{response!r} sits beside {beside}: whether a smaller or a larger {response} is "
                              f"better is not known: {ways}")
    if CENSORED in columns:
        raise OptionError(f"these data hold a {CENSORED!r} column, as {how} puts beside a time to a threshold, "
                          "where smaller is better, but not that summary's notes (a merge, a CSV file or a polars "
                          f"table loses them), so whether a smaller or a larger {response} is better is not known: "
                          f"{ways}")
    return data, None


def _summary_of(note):
    """(the spec of a :func:`rlstats.summarize_runs` note, with its ``column`` and ``how``; whether the note is of
    SMALLER_BETTER kind, a time to a threshold) where ``note`` is one (also said of one of several stacked frames'
    rows, :func:`rlstats.provenance._of_frame`, or bound again to the frame as a whole), else None."""
    data = note.data
    if note.word == OF_ROWS and isinstance(data, (list, tuple)) and len(data) > 2:
        data = data[2] if data[1] in (SUMMARY_WORDING, None) else None
    elif note.word not in (SUMMARY_WORDING, None):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("how"), str):
        return None
    column = data.get("column", data.get("name"))
    if not isinstance(column, str):
        return None
    return {**data, "column": column}, note.kind == SMALLER_BETTER


def _rows_and_values(data, column, keys):
    """(the frame of ``keys`` columns, the values of ``column``) of ``data``'s rows, or None where a key is missing (a
    Design holds its inherited notes' keys, :attr:`Design.note_keys`, and its response)."""
    if isinstance(data, Design):
        if data.note_rows is None or data.note_keys is None or any(k not in data.note_keys.columns for k in keys):
            return None
        rows = data.note_keys.iloc[data.note_rows[data.row_position]][list(keys)].reset_index(drop=True)
        return rows, data.y
    if not isinstance(data, pd.DataFrame) or any(k not in data.columns for k in keys):
        return None
    return data[list(keys)], data[column]


def _unheld_rows(data, column, specs):
    """(the rows of ``data`` whose ``column`` holds no time a time summary's record (its ``spec["values"]``,
    :func:`rlstats.provenance.values_record`) vouches for, the rows checked, the first record read and its
    :class:`~rlstats.provenance.ValuesAt`) or None where no record can be read at these rows. Checked as
    normalize()'s record (beyond VALUES_CAP runs, a share of the rows), a row by whichever summary's record holds it."""
    out = None
    for spec in specs:
        record = spec.get("values")
        keys = record.get("keys") if isinstance(record, dict) else None
        found = _rows_and_values(data, column, keys) if isinstance(keys, (list, tuple)) else None
        if found is not None:
            at = ValuesAt(*found)
            wrong, checked = at.unheld(record)
            out = (wrong, checked, record, at) if out is None else (out[0] & wrong, out[1] | checked, *out[2:])
    return out


def _times_held(data, column, specs, others):
    """An OptionError where the time summaries' notes (``specs``) naming ``column`` are not true of ``data``'s rows:
    another summary's note names the column too (``others``, their ``how``: a stack of a time summary and a final
    one), or a row's value is not the time recorded for its run (the column negated, replaced or its values
    moved between runs; audit s33 review: each read False, the slowest agent bold)."""
    ways = (f"pass higher_is_better=False if a smaller {column} is better (a time), higher_is_better=True if a larger "
            "one is")
    said = f"the notes of summarize_runs' time_to_threshold summary say {column!r} is a time to a threshold"
    if others:
        hows = join_and([repr(h) for h in dict.fromkeys(others)])
        raise OptionError(f"{said}, but the notes of summarize_runs' {hows} "
                          f"summary name {column!r} too (frames of both stacked), so whether a smaller or a larger "
                          f"{column} is better is not known for every row: {ways}")
    found = _unheld_rows(data, column, specs)
    if found is not None and not found[0].any():
        return
    if found is None:
        keys = next((spec["values"]["keys"] for spec in specs if isinstance(spec.get("values"), dict)
                     and isinstance(spec["values"].get("keys"), (list, tuple))), [])
        missing = [k for k in keys if isinstance(data, pd.DataFrame) and k not in data.columns]
        why = (f"the runs' {'column' if len(missing) == 1 else 'columns'} {join_and([repr(k) for k in missing])} "
               f"{verb(len(missing), 'is')} not in these data" if missing
               else "the notes do not record the runs' times")
        raise OptionError(f"{said}, but which rows hold those times cannot be checked ({why}), so whether a smaller "
                          f"or a larger {column} is better is not known: {ways}")
    wrong, checked, record, at = found
    relabelled = at.relabelled(record, wrong)
    if relabelled is not None:  # audit s33 hash33: the key column, not the times, no longer matches
        key, label = relabelled
        raise OptionError(f"{said}, but the key column {key!r} holds labels that summary did not record (first: "
                          f"{key}={label!r}): the runs were relabelled or recoded, or rows of another frame added, so "
                          f"which time is whose run, and whether a smaller or a larger {column} is better, is not "
                          f"known: {ways}")
    n, first = int(wrong.sum()), at.values[int(np.flatnonzero(wrong)[0])]
    raise OptionError(f"{said}, but {count(n, 'row')} of {int(checked.sum()):,}{checked_share(record)} "
                      f"{verb(n, 'holds')} another value than the time recorded for "
                      f"{'its' if n == 1 else 'their'} run (first: {at.first(wrong)}, {column}={first:g}): the "
                      f"column was changed, or rows of another frame added, so whether a smaller or a larger {column} "
                      f"is better is not known: {ways}")


def _missing_error(data, column, mask):
    raise DesignError(
        f"column '{column}' has {count(mask.sum(), 'missing value')} (first rows: {_first_rows(data, mask)}); "
        "remove or fill them, or pass na_action=\"drop\" to drop those rows (the result will say how many)")


def _drop_unused(codes, labels, what):
    """Remove levels with no rows (after missing-value handling); returns new codes, labels and a note."""
    used = np.bincount(codes, minlength=len(labels)) > 0
    if used.all():
        return codes, labels, None
    unused = [lab for lab, u in zip(labels, used) if not u]
    remap = np.cumsum(used) - 1
    note = f"{count(len(unused), what + ' level')} with no runs left out: {name_list(unused, among=labels)}"
    return remap[codes].astype(CODE), [lab for lab, u in zip(labels, used) if u], note


@public_function
def build(data: pd.DataFrame, formula: FormulaLike, *, na_action: NaAction = "raise", eval_env: EvalEnv = 0,
          extra_columns: Sequence[str] = (), pool_tasks: bool = False, normalize: Normalizer = None,
          step: str | None = None, curves: bool = False, min_agents: Literal[1, 2] = 2,
          optional_columns: Sequence[str] = (), bounds: tuple[float | None, float | None] | None = None,
          run_key: Sequence[str] = (), curve_summaries: bool = True, note_copies: bool = True) -> Design:
    """Validate ``data`` against ``formula`` and return the :class:`Design`.

    Parameters
    ----------
    data : pandas.DataFrame, polars.DataFrame or pyarrow.Table
        Long format, one row per run.  It is never modified; a polars or pyarrow table is converted to pandas
        once, and the Design's notes say so.
    formula : str or Formula
        ``"response ~ groups | blocks"``; see :mod:`rlstats.formula`.
    na_action : {"raise", "drop", "omit"}
        Missing values in any column the formula uses, and non-finite values
        the response expression produces: an error (default), or drop those
        rows and state how many in the result (``"omit"``, R's ``na.omit``, is the same).
    eval_env : int or patsy.EvalEnvironment
        Where names in the response expression that are not columns are
        looked up: an int counts frames above the caller of ``build``.
    extra_columns : sequence of str
        Further columns a back end needs (e.g. a ``batch`` column); they must
        exist and have no missing values, and are returned in ``Design.extra``.
    optional_columns : sequence of str
        Columns kept like ``extra_columns`` when the data have them (e.g. the ``seed``
        column whose order forms AdaStop's interims), so no back end reads the frame itself.
    run_key : sequence of str
        Columns of ``extra_columns`` that tell apart runs of one seed within an agent x task cell (tuning's
        configuration columns): the check that rows are runs, not learning curves, reads a run within them.
    curve_summaries : bool
        Whether the refusal of rows that look like learning curves offers :func:`rlstats.summarize_runs` and
        :func:`rlstats.curves` as ways on (False: each run's last row alone, for a caller that reads one score per
        run and has no such alternative, such as ``rlstats adastop update``'s batches).
    note_copies : bool
        Whether the notes say where runs of a cell repeat other runs' scores exactly, as copied runs do
        (:func:`copied_runs_note`); False for a back end that says it of its own units (AdaStop names the interims a
        copy came in, and leaves out runs it never fed).
    pool_tasks : bool
        Allow ``score ~ agent`` on data whose ``task`` column has several
        tasks, pooling them into one comparison, and blocks named as runs
        (``| seed``) within which the tasks vary, pooling them within each
        block (stated in the result; :func:`_check_tasks_blocked`).
    normalize : DataFrame, str or dict, optional
        Normalise the response column per task first, as :func:`rlstats.normalize`
        does (a reference frame, a dataset name such as ``"atari100k_reference"``,
        or a dict of its keywords); stated in the notes. ``False`` says the scores are already on
        one scale: nothing is done, and no function warns that tasks are on their own scales.
    step : str, optional
        The column holding the training step. Any column with a step-like name
        (:data:`STEP_NAMES`) is checked too: if it varies within one run's cell,
        the rows are points of learning curves and counting them as runs would
        be wrong, so it is an error saying how to go on.
    curves : bool
        The rows are learning curves (``step`` names the step column and the
        formula names the run column, ``task/seed``): each run is an (agent,
        task, seed) combination holding one row per step, ``Design.run`` and
        ``Design.counts`` count runs, and ``Design.extra[step]`` holds the steps.
        Used by :func:`rlstats.curves` and :func:`rlstats.summarize_runs`.
    min_agents : {2, 1}
        2 for a comparison: tasks where fewer than two agents have runs are kept out (stated).
        1 for functions that describe each agent on its own (``curves``, ``bootstrap``): one
        agent is enough and no task is kept out here (they check that every agent has runs on
        every task themselves, :meth:`Design.require_complete`).
    bounds : (low, high), optional
        Known limits of the response as analysed (after ``normalize=`` and the formula's expression; None for a
        side without one): a row outside them is an error naming it, and back ends clip their intervals to them
        (:mod:`rlstats.bounds`). A normaliser whose range is a hard bound (``"dm_control"``) implies them.

    Returns
    -------
    Design

    Raises
    ------
    FormulaError
        The formula cannot be parsed or names unknown columns.
    DesignError
        The data do not fit: empty frame, missing values under
        ``na_action="raise"``, fewer than two agents, duplicated replicate
        ids within a cell, several tasks without a blocking term or within
        blocks named as runs (``| seed``), rows that
        are points of learning curves (a step column varying within a cell).

    See Also
    --------
    rlstats.parse : The formula this reads.
    rlstats.compare : Accepts the Design this returns.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=2, rng=0)
    >>> design = rlstats.build(df, "score ~ agent | task")
    >>> design.agents, design.n_tasks, design.nobs
    (('agent_1', 'agent_2', 'agent_3'), 4, 24)
    >>> res = rlstats.skillings_mack(design)  # a ready Design skips parsing and validation
    """
    normalize = load_reference(normalize)  # a dataset named here is read now, never during validation
    na_action = check_choice("na_action", na_action, NA_ACTIONS)
    data = as_pandas(data)  # polars and pyarrow tables become pandas here, once, with a note
    if not isinstance(data, pd.DataFrame):
        raise DesignError(f"data must be {TABLE} in long format (one row per run), got {type(data).__name__}")
    if step is not None and step not in data.columns:
        raise DesignError(f"step column '{step}' not found in data; available: {list(data.columns)}")

    pool_tasks = check_bool("pool_tasks", pool_tasks)
    curve_summaries = check_bool("curve_summaries", curve_summaries)
    note_copies = check_bool("note_copies", note_copies)
    if isinstance(min_agents, bool) or min_agents not in (1, 2):
        raise OptionError(f"min_agents must be 1 (each agent described on its own) or 2 (a comparison), "
                          f"got {shown(min_agents)}")
    curves = check_bool("curves", curves)
    if isinstance(extra_columns, str):
        extra_columns = (extra_columns,)
    if not isinstance(extra_columns, (list, tuple)):
        raise OptionError(f"extra_columns must be a list of column names, got {shown(extra_columns)}")
    if len(data) == 0:
        raise DesignError("data has no rows; pass a DataFrame with one row per run")
    if len(data) > CODE_LIMIT:
        raise DesignError(f"data has {len(data):,} rows, more than one analysis takes ({CODE_LIMIT:,}); "
                          "summarise the runs first (e.g. one row per run) or analyse subsets")
    if not isinstance(formula, formula_module.Formula):
        formula = formula_module.parse_against(formula, data)
    if step is not None and step in formula.columns:  # the steps would be read off scores, agents or runs
        role = ("response" if step in formula.response_columns else "groups" if step == formula.groups
                else "blocks" if step == formula.blocks else "run")
        raise DesignError(f"step={step!r} is the {role} column of the formula '{formula.text}'; step= names the "
                          "column that counts training steps, one the formula does not use (e.g. step='step')")
    known = score_bounds(check_bounds(bounds), normalize, formula)  # one home: rlstats.bounds
    if curves:
        if step is None or formula.replicate is None:
            head = f"{formula.response} ~ {formula.groups} |"
            blocks = formula.blocks
            run, task = ("run" if blocks == "seed" else "seed"), ("env" if blocks == "task" else "task")
            example = (f"'{head} task/seed'" if blocks is None else  # one block column: tasks or runs?
                       f"'{head} {blocks}/{run}' if {blocks} names the tasks, or "
                       f"'{head} {task}/{blocks}' if it names the runs")
            # name only what is missing (audit s31 trialfix31: "the step column and the run column" where only
            # the run column was missing)
            parts = (("the step column (step=)", step is None),
                     ("the run column in the formula", formula.replicate is None))
            needed = " and ".join(what for what, missing in parts if missing)
            example = (f"e.g. {example}" if formula.replicate is None else
                       f"e.g. step='step' with '{formula.text}'")
            raise DesignError(f"learning curves need {needed}, {example}, so that each run's steps stay together")
        extra_columns = tuple(extra_columns) + ((step,) if step not in extra_columns else ())
    extra_columns = tuple(extra_columns) + tuple(c for c in optional_columns
                                                  if c in data.columns and c not in extra_columns)
    inherited, given = carried(data), data  # the frame's notes true of these rows, and those rows
    if normalize is not None and normalize is not False:  # False: the scores are on one scale already
        data, said = normalize_response(data, formula, normalize, other_columns=extra_columns,
                                        step=step if curves else None)
        # records bound to the tasks they name, re-stated with the frame's for the rows analysed (audit s25 polish25:
        # the min-max bounds of tasks left out were said): of the same rows as ``given``, whose keys bind them
        inherited += tuple(said)
    notes = [note.text for note in inherited]  # build's own sentences are appended after them
    eval_env = capture_environment(eval_env)
    formula_module.check_columns(formula, data.columns, eval_env, data.index.names)
    for column in dict.fromkeys((*formula.columns, *extra_columns)):
        formula_module.check_unrepeated(data, column)
    missing_extra = [c for c in extra_columns if c not in data.columns]
    if missing_extra:
        raise DesignError(f"{plural('column', len(missing_extra))} {missing_extra} not found in data; available: "
                          f"{list(data.columns)}")

    on_nonfinite = "raise" if na_action == "raise" else "return"
    response = formula_module.evaluate_response(formula, data, eval_env, on_nonfinite=on_nonfinite)
    y, missing_input, produced = response.values, response.missing_in_input, response.produced_nonfinite
    check_within(known, y, data, formula)
    notes.extend(booleans_read(f"column '{c}'")
                 for c in formula.response_columns if c in data.columns and pd.api.types.is_bool_dtype(data[c].dtype))
    del response  # y is replaced by its sorted copy below: nothing else may hold the unsorted one
    if missing_input.any() and na_action == "raise":
        _missing_error(data, formula.response, missing_input)

    factors = {"agent": formula.groups}
    if formula.blocks is not None:
        factors["task"] = formula.blocks
    codes, labels, drop = {}, {}, produced | missing_input
    missing_in = [(formula.response, missing_input)]  # each column's missing rows, for the drop note
    for role, column in factors.items():
        codes[role], labels[role], missing = _levels(column, data[column], role)
        if missing.any() and na_action == "raise":
            _missing_error(data, column, missing)
        drop |= missing
        missing_in.append((column, missing))
    if formula.crossed:
        codes["task"], labels["task"], drop = _crossed_blocks(data, formula, codes["task"], labels["task"],
                                                              drop, na_action)
        missing_in += [(column, data[column].isna().to_numpy()) for column in formula.crossed]
    seeds = None
    if formula.replicate is not None:
        seed_values = data[formula.replicate]
        seed_missing = seed_values.isna().to_numpy()
        if seed_missing.any() and na_action == "raise":
            _missing_error(data, formula.replicate, seed_missing)
        drop |= seed_missing
        missing_in.append((formula.replicate, seed_missing))
        # Integer codes in the seeds' own order (numbers sort as numbers) make the sort cheap.
        seed_codes, seed_labels, _ = _levels(formula.replicate, seed_values, "replicate")
        seeds = (seed_codes, np.asarray(seed_labels, dtype=object))
    for column in extra_columns:
        extra_missing = data[column].isna().to_numpy()
        if extra_missing.any() and na_action == "raise":
            _missing_error(data, column, extra_missing)
        drop |= extra_missing
        missing_in.append((column, extra_missing))

    if formula.blocks is None:
        codes["task"], labels["task"] = np.zeros(len(data), dtype=CODE), [ALL_RUNS]
    _check_nesting(formula)
    runs_named = isinstance(formula.blocks, str) and formula.blocks.lower() in RUN_NAMES  # read by the tasks' check
    # a step named otherwise within the runs a run column names: the curves' ways on, before the tasks' advice
    step_like = None if curves or runs_named else _steps_within_named_runs(data, formula, run_key, extra_columns)
    if step_like is None:
        step_like = _check_tasks_blocked(data, formula, pool_tasks, notes, extra_columns, not curves)
    if not curves and formula.replicate is None:
        # With '/seed' a repeated row repeats its seed in its cell, caught below; for curves a repeated
        # (run, step) row gets its own error below too.
        _check_duplicate_rows(data, formula, y)

    keep = ~drop
    n_dropped = int(drop.sum())
    if n_dropped:
        reasons = [f"{int(produced.sum())} where '{formula.response}' is not finite"] if produced.any() else []
        notes.append(f"{n_dropped} of {len(data)} rows dropped (na_action=\"drop\"): "
                     f"{'; '.join(reasons + missing_reasons([(c, m & ~produced) for c, m in missing_in]))}")
        if not keep.any():
            raise DesignError("no rows are left after dropping missing values")

    # Nothing dropped (the usual case): no copies selecting every row, and row i is the caller's row i.
    position = np.flatnonzero(keep) if n_dropped else None
    agent, task = codes.pop("agent"), codes.pop("task")
    if n_dropped:
        agent, task, y = agent[keep], task[keep], y[keep]
    _check_magnitude(y, formula)
    agent, agent_labels, note = _drop_unused(agent, labels["agent"], formula.arm_word)
    notes += [note] if note else []
    task, task_labels, note = _drop_unused(task, labels["task"], formula.block_word)
    notes += [note] if note else []
    if len(agent_labels) * len(task_labels) > CODE_LIMIT:
        raise DesignError(f"{len(agent_labels):,} agents x {len(task_labels):,} tasks is more agent x task cells "
                          f"than one analysis takes ({CODE_LIMIT:,}); check that '{formula.groups}' and "
                          f"'{formula.blocks}' are the agent and task columns")
    seed_codes = None if seeds is None else seeds[0][keep] if n_dropped else seeds[0]

    # Sort by task, then agent, then (seed or) original order (and step for curves); lexsort is stable.
    keys = [agent, task] if seeds is None else [seed_codes, agent, task]
    if curves:
        steps = formula_module.column_values(data, step)  # a nullable Int64 as int64: pandas 2.0 gave objects
        keys = [_step_values(steps if position is None else steps[position], step)] + keys
    order = np.lexsort(keys)
    del keys
    rows = order if position is None else position[order]
    # One sorted copy at a time, each replacing its unsorted array (the build's peak memory, issue 33).
    y = y[order]
    agent = agent[order]
    task = task[order]
    seed_labels = None
    if seeds is not None:
        seed_codes = seed_codes[order]  # type: ignore[index]  # not None when seeds is not
        seeds = seeds[1]  # type: ignore[assignment]  # the labels alone: the unsorted codes go
        seed_labels = seeds[seed_codes]
        seed_codes = seed_codes if curves else None  # only curves read them on
    design = _assemble(formula, y, agent, task, agent_labels, task_labels, rows, seed_labels,
                       {c: data[c].to_numpy()[rows] for c in extra_columns}, n_dropped,
                       runs_of=seed_codes if curves else None)
    del y, agent, task, order, rows, seed_codes, seed_labels
    if curves:
        _check_one_row_per_step(design, step, data)
    else:
        _check_no_curves(design, data, step, tuple(run_key), curve_summaries, step_like)
        if seeds is not None:
            _check_unique_replicates(design)
    notes += near_duplicate_labels_note(design)  # before tasks are kept out: 'pong ' beside 'Pong' (audit s31)
    if min_agents > 1:  # an agent described on its own needs no other agent on its tasks
        design = _drop_uninformative_tasks(design, notes)
    if not curves and seeds is None and not run_key:
        notes += _repeated_id_note(design, data)  # on the tasks kept: a note about the rows analysed (audit s19)
    if note_copies and not curves and not given.attrs.get(AVERAGED_ATTR):  # a mean over seeds has no decimal step of its own
        # runs copied within a cell (audit s25) or across tasks (s26)
        notes += copied_runs_note(design, given, incomplete_refused=na_action == "raise")
    if design.n_agents < min_agents:
        raise DesignError(f"at least two agents are needed in column '{formula.groups}', found "
                          f"{design.n_agents} ({name_list(design.agents)}) with usable runs")
    n_inherited, (inherited, note_rows, note_keys) = len(inherited), _restated(inherited, given, design.row_position)
    notes[:n_inherited] = [note.text for note in inherited]
    analysed, kept = set(agent_labels), set(design.agents)  # once: a set per label was quadratic (audit s37)
    left_out = tuple((a, "it has no rows in the data analysed") for a in labels["agent"]
                     if a not in analysed) + tuple(
        (a, "its runs are all on tasks kept out, where no other agent has runs") for a in agent_labels
        if a not in kept)
    # normalize=False says the scores are on one scale already, not that they were normalised; a sentence the
    # frame carries and build says again (summarize_runs' frame keeps the caller's unused levels) is said once
    design = dataclasses.replace(design, notes=tuple(dict.fromkeys(notes)), bounds=known, left_out_agents=left_out,
                                 numeric_agents=_holds_numbers(data[formula.groups]), inherited_notes=inherited,
                                 note_rows=note_rows, note_keys=note_keys)
    return dataclasses.replace(design, normalized=(normalize is not None and normalize is not False)
                               or normalised_in(inherited, design._response_column, given, design.analysed_note_keys))


def _restated(inherited, data, analysed):
    """The notes ``inherited`` from ``data`` as true of its rows at positions ``analysed``: a note
    bound to runs or tasks said again of those analysed where build dropped rows (na_action="drop", a task kept out;
    its own note says what it dropped, so no line counts them), as of rows a pandas subset left out (audit s23: a
    summary's note named the one short run, which na_action dropped; min-max gave the bounds of a task kept out)."""
    keys = list(dict.fromkeys(k for note in inherited if note.scope == "rows" for k in note.keys if k in data.columns))
    if not keys:
        return tuple(inherited), None, None
    # what a back end's own drop needs to re-state them (Design._restated_notes): each row's code into the distinct
    # values of the key columns, 4 bytes a row
    codes = data[keys].groupby(keys, sort=False, dropna=False, observed=True).ngroup().to_numpy(dtype=np.int32)
    firsts = np.unique(codes, return_index=True)[1]
    values = data[keys].iloc[firsts].reset_index(drop=True)
    if len(analysed) == len(data):
        return tuple(inherited), codes, values
    present = values.iloc[np.flatnonzero(np.bincount(codes[analysed], minlength=len(values)))]
    return tuple(again for note in inherited for again in _after_own_drop(note, present)), codes, values


def _after_own_drop(note, present):
    """``note`` re-stated for the rows ``present`` after rlstats itself left rows out: a count of what was read
    (``read 15 runs from 15 files``) stays as read, since the drop's own note says what was left out (re-counted it
    read "read 9 runs" beside "6 runs dropped"; audit s23, lead); the others by :func:`rebind`, whose ``as_read``
    is that rule."""
    return rebind([note], present, as_read=True)


@overload
def subset_rows(data: Design, subset: None) -> Design: ...
@overload
def subset_rows(data: Table, subset: Subset | Condition) -> pd.DataFrame: ...
def subset_rows(data: Data, subset: Subset | Condition) -> pd.DataFrame | Design:
    """The rows of ``data`` that ``subset`` keeps (R's ``subset=``), with a note saying how many.

    ``subset`` is a boolean mask with one value per row, or a condition on the columns in the
    restricted grammar of :mod:`rlstats.conditions` (``"task != 'Pong' and seed < 5"``; text or a
    parsed :class:`~rlstats.conditions.Condition`), which is interpreted and never evaluated as
    code, whether it comes from Python, the command line or a file; for anything else, compute the
    mask in pandas. As in R, a row where a missing value leaves the condition neither true nor false
    (``lr != 0.1`` where ``lr`` is NaN) is left out, and the note counts those rows. The caller's
    frame is not changed; the note rides in ``attrs`` so that results state it, and a Categorical's levels that
    the subset empties are left out with its rows (levels the caller's frame never used stay). A polars DataFrame or a
    pyarrow Table is converted to pandas first, once, and the result says so
    (:func:`rlstats.interop.as_pandas`), so every public function taking a frame takes these.
    """
    if isinstance(data, Design):
        if subset is not None:
            raise OptionError("subset= needs the DataFrame; select the rows before building the Design")
        return data
    data = as_pandas(data)  # polars and pyarrow tables become pandas here, once, with a note
    if subset is None:
        return data
    mask: ArrayLike
    unknown, condition = "", None
    if isinstance(subset, (str, Condition)):
        condition = parse_condition(subset)
        mask, unknown_rows = condition.evaluate(data)
        said, unknown = repr(condition.text), _unknown_rows(data, condition, unknown_rows)
    else:
        mask, said = _mask_by_label(subset, data), "a boolean mask"
    if np.ma.isMaskedArray(mask) and np.ma.getmaskarray(mask).any():  # np.asarray reads the values under the mask
        _missing_in_mask(np.ma.getmaskarray(mask), "a masked array", "masked entry", "np.ma.filled(mask, False)")
    mask = np.asarray(mask)
    if mask.dtype == object and mask.shape == (len(data),):
        missing = pd.isna(mask)
        if all(isinstance(v, (bool, np.bool_)) for v in mask[~missing]):  # a nullable mask (pandas < 2.1: objects)
            if missing.any():
                _missing_in_mask(missing, "a boolean mask", "missing value", "mask.fillna(False)")
            mask = mask.astype(bool)
    if mask.dtype != bool or mask.shape != (len(data),):
        raise OptionError(f"subset= must give one True/False per row ({len(data)}), got an array of dtype "
                          f"{mask.dtype} and shape {mask.shape}")
    if not mask.any():
        absent = "" if condition is None else condition.absent_values(data)  # a typo's closest values (audit s18)
        raise DesignError(f"subset={said} keeps no rows" + "".join(f"; {part}" for part in (absent, unknown) if part))
    kept = _emptied_levels_dropped(data, data.loc[mask])
    kept.attrs = dict(data.attrs)
    n_kept = int(mask.sum())
    said = f"subset={said} kept {n_kept} of {len(data)} rows"
    # a typo leaves out nothing in '!=' and 'not in', and drops its rows unsaid from 'in' and '==' beside values
    # that are there (audit s28: "agent in ['DER', 'SPR', 'Rainbow']" compared 2 agents)
    absent = "" if condition is None else "; ".join(
        part for part in (condition.absent_values(data), condition.absent_values(data, negated=True),
                          condition.level_orders(data)) if part)
    if absent:
        said += f"; {absent}"
    if unknown:
        said += f"; of the {len(data) - n_kept} left out, {unknown}"
    # true of these rows as they are: a frame note; its kind tells the min-max normaliser the bounds are the subset's
    return add_note(kept, Note(said, scope="frame", kind=SUBSET), source=data)


def _missing_in_mask(missing, what, entry, fill):
    """The refusal of a ``subset=`` mask with missing entries (a nullable mask's, a masked array's: audit s31, whose
    mask np.asarray dropped, keeping the values stored under it): such a row is neither in nor out."""
    raise OptionError(f"subset= is {what} with {count(int(missing.sum()), entry)} (first at position "
                      f"{int(np.argmax(missing))}), which keeps a row neither in nor out; fill them, e.g. {fill}, which "
                      "leaves those rows out as R's subset() does")


def _emptied_levels_dropped(data, kept):
    """``kept`` without the Categorical levels that the subset emptied (those with rows in ``data`` and none kept):
    its note says what it kept, and design.build's note of levels with no runs is then of the caller's own frame
    (audit s27: 'subset="agent != 'x'" kept 16 of 30 rows' and then '1 agent level with no runs left out: x', which
    the same rows as strings did not say). A level the caller's frame never used stays, and is said there."""
    emptied = {}
    for i in range(data.shape[1]):  # by position: a column's name may be any label, or repeated (review27a)
        if isinstance(data.dtypes.iloc[i], pd.CategoricalDtype):
            before, after = (set(pd.unique(frame.iloc[:, i].dropna())) for frame in (data, kept))
            gone = before - after
            if gone:
                emptied[i] = [level for level in data.iloc[:, i].cat.categories if level in gone]
    if not emptied:
        return kept
    kept = kept.copy()
    for i, levels in emptied.items():
        kept.isetitem(i, kept.iloc[:, i].cat.remove_categories(levels))
    return kept


def _mask_by_label(mask, data):
    """A boolean Series of ``subset=`` read by its index labels, as pandas' ``data[mask]`` reads it (audit s22: taken
    by position, a mask of the rows in another order kept the wrong rows); labels that are not the data's, one each,
    are an error, as in pandas. Anything else (arrays, lists, a Series on the data's own index) is read by position."""
    if not isinstance(mask, pd.Series) or len(mask) != len(data) or mask.index.equals(data.index):
        return mask
    found = mask.index.isin(data.index)
    if data.index.is_unique and mask.index.is_unique and found.all():
        return mask.reindex(data.index)
    label = mask.index[~found][0] if not found.all() else None
    label = label.item() if isinstance(label, np.generic) else label  # 1, not np.int64(1)
    why = (f"its index label {shown(label)} is no row of the data" if not found.all() else
           "index labels repeat, so its rows cannot be matched to the data's")
    raise OptionError(f"subset= is a boolean Series in another order than the data's rows, and {why}; build it from "
                      "these data (e.g. data['agent'] != 'x'), or pass mask.to_numpy() to select rows by position")


def _unknown_rows(data, condition, unknown):
    """What the note says of the rows where a missing value left ``condition`` unknown (empty when none)."""
    if not unknown.any():
        return ""
    by_column = [(c, int((data[c].isna().to_numpy() & unknown).sum())) for c in condition.columns]
    by_column = [(c, n) for c, n in by_column if n]
    n = int(unknown.sum())
    which = (f"{by_column[0][0]} missing" if len(by_column) == 1 else
             "missing values (" + ", ".join(f"{c} in {k}" for c, k in by_column) + ")")
    return (f"{count(n, 'row')} {verb(n, 'has')} {which}, where the condition is neither true nor "
            "false (R's subset() leaves out rows where it is NA too)")


def data_and_formula(data: Any, formula: Any) -> tuple[Any, Any]:
    """``(data, formula)`` whichever order they came in: R's ``f(formula, data)`` habit works as ``f(data, formula)``.

    A formula (text or parsed) and a DataFrame or Design cannot be mistaken for one another, so the swap is
    safe; every public function reaches it through :func:`design_of` (``compare`` calls it before parsing).
    """
    formula_like = (str, formula_module.Formula)
    if isinstance(data, formula_like) and formula is not None and not isinstance(formula, formula_like):
        return formula, data  # a frame (pandas, polars, pyarrow) or a Design second: R's order
    return data, formula


def design_of(data: Any, formula: Any = None, *, subset: Subset | Condition = None,
              eval_env: EvalEnv = None, reads_nesting: bool = False, **options: Any) -> Design:
    """The front door every public function takes: ``(data, formula, subset, options)`` into a Design.

    ``data`` that already is a Design is returned as it is (nothing parsed or built; options that need
    the DataFrame, ``subset=`` and ``normalize=``, are an error, and so are ``extra_columns`` it was
    built without). Otherwise ``subset=`` selects rows (:func:`subset_rows`), the formula is parsed
    once (a parsed :class:`~rlstats.formula.Formula` is taken as it is) and :func:`build` validates.
    Call it from the public function itself: ``eval_env`` (None: 0) counts frames above that
    function's caller, whose names the response may use; an EvalEnvironment is used as given.
    The formula may come first, as in R (:func:`data_and_formula`). ``| task/run/seed`` (seeds nested in
    runs) is averaged to one row per run (:func:`_average_nested`), unless the caller is a back end that reads the
    replicate levels itself (its declaration's ``reads_nesting``): ``reads_nesting=True`` builds one row per seed as
    ``| task``, the run and seed columns kept as extra columns for the caller to check.
    """
    data, formula = data_and_formula(data, formula)
    if isinstance(data, Design):
        if subset is not None:
            raise OptionError("subset= needs the DataFrame; select the rows before building the Design")
        if options.get("normalize") is not None and options.get("normalize") is not False:
            raise OptionError("normalize= needs the DataFrame; normalise before building the Design")
        if formula is not None:
            given = formula_module.parse(formula)
            if _roles(given) != _roles(data.formula):
                raise OptionError(f"the formula '{given.text}' differs from the one the Design was built with "
                                  f"('{data.formula.text}'); pass formula=None with a ready Design, or build it anew")
        extra = tuple(options.get("extra_columns", ()))
        missing = [c for c in extra if c not in data.extra]
        if missing:
            raise DesignError(f"the Design was built without {plural('column', len(missing))} {missing}; build it with "
                              f"extra_columns={extra}")
        return with_bounds(data, options.get("bounds"))
    if formula is None:
        raise OptionError("formula is required, e.g. 'score ~ agent | task'")
    # reference=2: the frame above the public function that called this one
    env = capture_environment(0 if eval_env is None else eval_env, reference=2)
    data = subset_rows(data, subset)
    parsed = formula_module.parse_against(formula, data)
    if reads_nesting:
        levels = tuple(c for c in (parsed.outer, parsed.replicate) if c is not None)
        options["extra_columns"] = tuple(dict.fromkeys((*options.get("extra_columns", ()), *levels)))
        return build(data, dataclasses.replace(parsed, outer=None, replicate=None), eval_env=env, **options)
    if parsed.outer is None:
        return build(data, parsed, eval_env=env, **options)
    data, parsed, note = _average_nested(data, parsed, env, options)
    design = build(data, parsed, eval_env=env, **options)
    return dataclasses.replace(design, notes=(note, *design.notes), averaged_within=parsed.replicate)


def _one_row_per_seed(data, formula, keys, seed, skip):
    """'| task/run/seed' averages each run's rows as its seeds: a seed with several rows (a learning curve's steps, or
    a row repeated) would be averaged over them unseen and counted as several seeds (audit s33: 2 seeds x 3 steps read
    "3 runs of 6 seeds"). An error naming the seed's rows and, where a column takes distinct values within them, the step."""
    cells = [*keys, seed]
    sizes = data.groupby(cells, sort=False, observed=True, dropna=False).size()
    if sizes.max() <= 1:
        return
    first = {c: v.item() if isinstance(v, np.generic) else v for c, v in zip(cells, sizes.idxmax())}  # 1, not int64
    where = (f"{seed}={first[seed]!r} of {formula.outer}={first[formula.outer]!r} of "
             f"{formula.groups} {first[formula.groups]!r} on {formula.blocks} {first[formula.blocks]!r} "
             f"({int(sizes.max())} rows)")
    named = [c for c in data.columns if isinstance(c, str) and c.lower() in STEP_NAMES and c not in cells]
    step = next((c for c in named if data.groupby(cells, sort=False, observed=True)[c].nunique().max() > 1), None)
    if step is None:
        found = _step_like(data, cells, {*cells, *skip, *re.findall(r"[A-Za-z_]\w*", formula.response)})
        step = None if found is None else found[0]
    averaged = f"the seeds of each {formula.outer} are averaged as one row each"
    if step is None:
        raise DesignError(f"{where}: {averaged}, so a seed's rows would be averaged too and counted as seeds; keep "
                          f"one row per seed, e.g. df.drop_duplicates({cells!r}) where the rows are repeated")
    raise DesignError(f"column {step!r} takes several values within {where}, so the rows look like learning curves: "
                      f"{averaged}, and the steps would be averaged with them. Pick a step of each seed's run first, "
                      f"e.g. its last: df.sort_values({step!r}).groupby({cells!r}).tail(1), or summarise each "
                      f"otherwise (its area, its best score), grouped by the same columns")


def missing_reasons(missing_in: list[tuple[str, np.ndarray]]) -> list[str]:
    """The one wording of rows left out for missing values (na_action="drop"), naming each column: "12 with missing
    values in 'agent'"; ``missing_in`` pairs each column with its missing rows, in the formula's order, and a row
    missing in several columns is counted once, at its first (audit s19: the count alone never named the column)."""
    counted, reasons = None, []
    for column, missing in missing_in:
        new = missing if counted is None else missing & ~counted
        if new.any():
            n = int(new.sum())
            reasons.append(f"{n} with {'a missing value' if n == 1 else 'missing values'} in '{column}'")
        counted = missing if counted is None else counted | missing
    return reasons


def _average_nested(data, formula, env, options):
    """``| task/run/seed``: each agent x task x run's seeds averaged, so that the run is the replicate.

    Seeds of one run share its randomness (a tuning run's configuration, say); resampling or ranking them as
    independent runs overstates the evidence. Returns the averaged frame, the formula ``| task/run`` on it and
    the note. A back end that reads the nesting itself declares ``reads_nesting`` and never gets here.
    """
    outer, seed = formula.outer, formula.replicate
    for option in ("step", "extra_columns"):
        if options.get(option):
            raise OptionError(f"{option}= cannot be combined with the nested replicates '| {formula.blocks}/{outer}/"
                              f"{seed}' (the seeds are averaged before the design is built); average the seeds of "
                              f"each '{outer}' first and write '| {formula.blocks}/{outer}'")
    formula_module.check_columns(formula, data.columns, env, data.index.names)
    pooled: list[str] = []  # the tasks within '| seed/run/rep' blocks, which the means below would pool unseen
    _check_tasks_blocked(data, formula, options.get("pool_tasks") is True, pooled, (), read_steps=False)
    keys = [formula.groups, formula.blocks, outer]
    inherited = carried(data)  # the notes true of the rows given, re-stated below for the runs averaged
    na_raise = options.get("na_action", "raise") == "raise"
    missing_in = [(column, data[column].isna().to_numpy(dtype=bool)) for column in (*keys, seed)]
    dropped = np.zeros(len(data), dtype=bool)
    for column, missing in missing_in:
        if missing.any() and na_raise:
            _missing_error(data, column, missing)
        dropped |= missing  # na_action="drop": left out here, with a note, as build() would (audit s17)
    reasons = missing_reasons(missing_in)
    kept = np.flatnonzero(~dropped)
    response = formula_module.evaluate_response(formula, data.iloc[kept], env)
    y, unscored = response.values, response.missing_in_input
    if unscored.any() and na_raise:  # named at the caller's rows, not at the run means' that build() would name
        _missing_error(data.iloc[kept], formula.response, unscored)
    if unscored.any():  # a run's mean needs every seed: the run goes whole, counted in the caller's rows (review s17)
        by_run = pd.Series(unscored).groupby([data[k].to_numpy()[kept] for k in keys], dropna=False, sort=False)
        whole, n_runs = by_run.transform("any").to_numpy(dtype=bool), int(by_run.any().sum())
        others = int(whole.sum() - unscored.sum())
        reasons.append(missing_reasons([(formula.response, unscored)])[0] + (
            f" and {others} more of {'its run' if n_runs == 1 else 'their runs'} (a run's mean needs every seed)"
            if others else ""))
        dropped[kept[whole]], y = True, y[~whole]
    drop_note = None
    if dropped.any():
        if dropped.all():
            raise DesignError("no rows are left after dropping missing values")
        gone = [f"{singular(column)} '{v}'" for column in (formula.groups, formula.blocks)
                for v in pd.unique(data[column][dropped].dropna()) if v not in set(data[column][~dropped])]
        drop_note = (f"{int(dropped.sum())} of {len(data)} rows dropped (na_action=\"drop\") before the seeds were "
                     f"averaged: {'; '.join(reasons)}" + (f" (every row of {join_and(gone, limit=6)})" if gone else ""))
        data = data[~dropped]
        inherited = [again for note in inherited for again in _after_own_drop(note, data)]  # of the rows kept
    if options.get("normalize") is None or options.get("normalize") is False:  # each seed, not only their mean
        check_within(score_bounds(check_bounds(options.get("bounds")), None, formula), y, data, formula)
    else:  # the normaliser's range too, at the caller's rows (a dataset read once, here, for build() as well)
        options["normalize"] = load_reference(options["normalize"])
        normalize_response(data, formula, options["normalize"], units=False)  # said once, of the run means, by build
    _one_row_per_seed(data, formula, keys, seed, pooled)
    name = formula.response_columns[0] if formula.is_simple_response else formula.response
    frame = pd.DataFrame({k: data[k].to_numpy() for k in keys})
    frame[name] = y
    grouped = frame.groupby(keys, sort=False, observed=True)[name]
    means = grouped.mean().reset_index()  # no score is missing here: raised, or its run dropped above
    seeds = grouped.size()
    runs = seeds.groupby(level=[0, 1], sort=False).size()
    # "1 run of 1 seed", "1-4 runs of 1 seed": a range is plural, one number takes count()'s grammar (audit s19);
    # a column's name as a noun by format.plural's rule: "batch" -> "batches" (AdaStop's MuJoCo runs read "1-6 batchs")
    span = lambda s, word: (count(s.min(), word) if s.min() == s.max()  # noqa: E731
                            else f"{s.min()}-{s.max()} {plural(word)}")
    run = singular(outer)  # the columns as nouns: "each run", "per algo and game" of '| games/runs/seeds' (words33)
    note = (f"seeds ('{seed}') averaged within each {run}: the {run} is the unit, {span(runs, run)} of "
            f"{span(seeds, 'seed')} per {formula.arm_word} and {formula.block_word}")
    if seeds.min() != seeds.max():
        note += f" (unequal: each {run}'s mean counts as one, whatever its number of seeds)"
    quoted = lambda c: f"`{c}`"  # noqa: E731
    text = f"{quoted(name)} ~ {quoted(formula.groups)} | {quoted(formula.blocks)}/{quoted(outer)}"
    # the notes ride on as records re-stated for the rows kept and then the runs averaged (provenance.rebind; the
    # drop note says what was dropped here, so no line counts those rows), not as sentences: build re-states them for
    # the runs it analyses (a task kept out) and min-max reads a subset's by its kind (audit s23 review23b)
    inherited = rebind(inherited, means)
    if inherited:
        set_notes(means, inherited, columns=keys)
    means.attrs[AVERAGED_ATTR] = outer  # normalize='minmax' takes its bounds from these means, and says so
    note = "; ".join([*pooled, note])
    return means, formula_module.parse(text), note if drop_note is None else f"{drop_note}; {note}"


def _roles(formula):
    return (formula.response.replace(" ", ""), formula.groups, formula.blocks, formula.replicate, formula.crossed,
            formula.outer)


def _crossed_blocks(data, formula, task_codes, task_labels, drop, na_action):
    """Block codes for 'task:seed': every combination present becomes one block."""
    parts = [pd.Series(task_labels, dtype=object).to_numpy()[np.maximum(task_codes, 0)]]
    for column in formula.crossed:
        values = data[column]
        missing = values.isna().to_numpy()
        if missing.any() and na_action == "raise":
            _missing_error(data, column, missing)
        drop = drop | missing
        _levels(column, values, "block")  # its values join the block's label: they too must print apart
        parts.append(values.astype(str).to_numpy())
    combined = pd.Series(parts[0], dtype=object).str.cat([pd.Series(p, dtype=object) for p in parts[1:]], sep=":")
    codes, uniques = pd.factorize(combined, sort=True)
    return codes.astype(CODE), [str(u) for u in uniques], drop | (task_codes < 0)


#: Columns that identify runs or batches within a comparison, never blocks.
RUN_NAMES = frozenset({"seed", "seeds", "run", "runs", "run_id", "replicate", "rep", "trial", "trials",
                       "repetition", "batch", "batches", "index"})
#: Columns named as the tasks, compared in lower case: varying within run blocks they are refused even where each
#: agent's runs of a block share one level (the block would rank one task's runs against another's); a column named
#: otherwise is refused there only where the data show a task (audit s33 design33, :func:`_tasks_within_run_blocks`).
TASK_NAMES = frozenset({"task", "tasks", "env", "envs", "env_id", "env_name", "environment", "environments", "game",
                        "games", "domain", "domains", "benchmark", "level", "levels", "scenario", "map"})
# An integer column with at most this many levels may be a block code (games numbered 0..25).
BLOCK_LEVELS = 200


def block_like_columns(data: pd.DataFrame, groups: str, skip: set) -> list[tuple[str, int]]:
    """(column, levels) of the columns that look like blocks: non-numeric or few-levelled integers, each level holding
    several agents (``groups``); the columns in ``skip``, run or step columns and true/false columns are not read. The
    one home of that reading: :func:`build` refuses to pool them unasked, :meth:`rlstats.AdaStop.update` reads the
    first as a batch's task column.

    A true/false column (bool, pandas' boolean, or objects all True/False) is an outcome or a flag of the runs
    (``solved = score > 0.5``), never their tasks (audit s32 fin32a: it refused ``score ~ agent | seed`` and
    ``score ~ agent`` alike)."""
    found = []
    agents = data[groups]
    for column in data.columns:
        if not isinstance(column, str) or column in skip or column.lower() in RUN_NAMES | STEP_NAMES:
            continue
        values = data[column]
        if pd.api.types.is_bool_dtype(values.dtype) or (
                values.dtype == object and pd.api.types.infer_dtype(values, skipna=True) == "boolean"):
            continue
        numeric = pd.api.types.is_numeric_dtype(values.dtype)
        if numeric and not pd.api.types.is_integer_dtype(values.dtype):
            continue
        try:
            levels = values.nunique()
        except TypeError:  # lists or dicts in the cells (a run's parameters): no task is named so
            continue
        if levels < 2 or (numeric and levels > BLOCK_LEVELS) or levels * 2 > len(data):
            continue
        agents_per_level = agents.groupby(values, observed=True).nunique()
        if (agents_per_level >= 2).all():
            found.append((column, int(levels)))
    return found


def _check_tasks_blocked(data, formula, pool_tasks, notes, extra_columns, read_steps=True):
    """The one check of the formula's blocks against the frame's tasks: a column that looks like blocks
    (:func:`block_like_columns`: a 'task', 'game' or 'env' column as much as any) must not be pooled unasked.

    ``score ~ agent`` pools every level of such a column into one comparison (:func:`_pooled_tasks`); blocks named
    as runs (``| seed``, :data:`RUN_NAMES`) pool the levels that share a block (:func:`_tasks_within_run_blocks`, audit
    s32 design32: R's habit of blocking on matched seeds ranked Acrobot's and CartPole's runs in one block). Blocks
    named otherwise are the caller's tasks, and another column varying within them (a configuration, a family of
    agents) is not read as tasks. ``pool_tasks=True`` pools on purpose, with a note.

    Returns (column, runs, tasks) of a column read as the runs' training steps within run blocks, for
    :func:`_check_no_curves`, or None; always None unless ``read_steps`` (build's curves name their step column, and
    the nested replicates' means are refused for any column varying within an agent's runs of a block).
    """
    if formula.blocks is None:
        _pooled_tasks(data, formula, pool_tasks, notes, extra_columns)
    elif isinstance(formula.blocks, str) and formula.blocks.lower() in RUN_NAMES:
        return _tasks_within_run_blocks(data, formula, pool_tasks, notes, extra_columns, read_steps)
    return None


def _pooled_tasks(data, formula, pool_tasks, notes, extra_columns):
    """'score ~ agent' on data with several blocks: an error unless pooling was asked for.

    Any column that looks like blocks counts: non-numeric, or integers with few levels, every level holding runs of
    two or more agents.
    """
    skip = {formula.groups, *extra_columns, *re.findall(r"[A-Za-z_]\w*", formula.response)}
    found = block_like_columns(data, formula.groups, skip)
    if not found:
        return
    column, levels = next(((c, n) for c, n in found if c == "task"), found[0])
    if not pool_tasks:
        others = [c for c, _ in found if c != column]
        also = f" (also block-like: {', '.join(repr(c) for c in others)})" if others else ""
        found_text = (f"data contain {levels} {'tasks' if column == 'task' else 'levels'} (column '{column}'), each "
                      f"with runs of two or more {plural(formula.arm_word)}, but the formula '{formula.text}' has no "
                      "blocking term, so "
                      f"they would be pooled at their own scales{also}; use '{formula.response} ~ {formula.groups} | "
                      f"{column}', ")
        not_block = f"if '{column}' is not a block (it numbers runs or batches, say), "
        # the command line has no pool_tasks=: its ways are a condition on the file's rows and the file itself
        # (audit s24: it was told to call rlstats.build); power keeps one task by its tasks=, with the blocking term
        # (audit s28: it was told to filter the file)
        first = data[column].dropna().iloc[0]
        numeric = isinstance(first, (int, float, np.integer, np.floating))
        way = keeping(column, (str(first),), numeric=numeric, what="task")
        blocked = f"{formula.response} ~ {formula.groups} | {column}"
        python, command_line = ((f"formula={blocked!r} and {way.python}", f"--formula {shell_word(blocked)} "
                                 f"{way.command_line}") if way.option == "tasks=" else (way.python, way.command_line))
        raise DesignError(
            found_text + f"filter the data to one {singular(column)} (pass {python} to {way.function}), or, "
            f"{not_block}pool on "
            f"purpose: rlstats.build(df, '{formula.text}', pool_tasks=True) and pass that Design",
            command_line=found_text + f"keep the rows of one {singular(column)} ({command_line} with "
            f"{way.command}), or, "
            f"{not_block}remove the column '{column}' from the file to pool its runs on purpose")
    notes.append(f"runs of {levels} levels of '{column}' pooled into one comparison (pool_tasks=True)")


def _tasks_within_run_blocks(data, formula, pool_tasks, notes, extra_columns, read_steps=True):
    """'score ~ agent | seed' where a column that looks like blocks (the tasks) takes several values within one
    agent's runs of one seed's block: the block would hold that agent's runs of several tasks as replicates of one
    another, each at its own scale. An error naming the block, the column and its values there, with the formulas that
    block on the tasks, unless pooling was asked for (``pool_tasks=True``). A column constant within every block (one
    task; seeds numbered apart on each task) pools nothing and passes.

    Audit s33 design33 tells the tasks from the runs' properties by where the column varies. Within one agent's runs
    of one block: a task (each seed run on every task, the SB3 logs' Acrobot and CartPole), refused. Only between the
    agents of a block, each agent's runs there at one level: refused if named as the tasks (:data:`TASK_NAMES`), else a
    property of each run (the worker process, host or commit that trained it), said in a note and left out; none for a
    column of the agents (each agent at one level, a part of its name: hpo_optimisation's 'hpo'). The data cannot
    tell a host from a task where an agent has several runs in a block on several hosts; that stays refused, with
    pooling on purpose offered. Of several task columns the one
    that holds the others constant within its levels is named ('environment' within 'suite').

    Returns (column, runs, tasks) of a column read as a training step (:func:`_step_like`, if ``read_steps``), with
    the task column varying within the blocks or None, else None: its rows are one run's curve, refused with the
    curves' ways on by :func:`_check_no_curves` once the design is built, before any task is named."""
    keys = [formula.blocks, *formula.crossed]
    names = {*keys, formula.groups, formula.replicate, formula.outer, *extra_columns}
    skip = names | set(re.findall(r"[A-Za-z_]\w*", formula.response))
    found = block_like_columns(data, formula.groups, skip)
    named = [c for c, _ in found if not pd.api.types.is_numeric_dtype(data[c].dtype)]  # tasks or hosts, by name
    step = _step_like(data, [*keys, formula.groups, *named], skip) if read_steps else None
    blocks = [data[k] for k in keys]
    if step is not None:  # the ways on name the runs after the task column that varies within the blocks, if any
        varying = [c for c in named if (data.groupby(blocks, observed=True)[c].nunique() > 1).any()]
        return (*step, _finest(data, varying) if varying else None)
    mixed, between = [], []  # (column, levels, a block where it varies, its values there)
    for column, levels in found:
        within = data.groupby(blocks, observed=True, sort=True)[column].nunique()
        if (within <= 1).all():
            continue
        per_run = data.groupby([*blocks, data[formula.groups]], observed=True, sort=True)[column].nunique()
        if (per_run > 1).any():
            block, kind = per_run.index[(per_run > 1).to_numpy()][0][:-1], mixed
        elif column.lower() in TASK_NAMES:  # named as the tasks: the block would rank one task's runs against another's
            block, kind = within.index[(within > 1).to_numpy()][0], mixed
        elif data.groupby(data[formula.groups], observed=True)[column].nunique().max() <= 1:
            continue  # a column of the agents (a part of their names): never a task within a block
        else:
            block, kind = within.index[(within > 1).to_numpy()][0], between
        block = block if len(keys) > 1 else block[0] if isinstance(block, tuple) else block
        rows = np.ones(len(data), dtype=bool)
        for key, value in zip(keys, block if isinstance(block, tuple) else (block,)):
            rows &= (data[key] == value).to_numpy()
        values = sorted({v for v in data[column][rows].dropna()}, key=lambda v: natural_key(str(v)))
        kind.append((column, levels, block, values))
    term = ":".join(keys)
    label = lambda block: ":".join(map(str, block)) if isinstance(block, tuple) else str(block)  # noqa: E731
    head = f"{formula.response} ~ {formula.groups} | "
    for column, levels, block, values in between:
        shown_values = join_and([repr(v) if isinstance(v, str) else str(v) for v in values], limit=5)
        notes.append(f"column '{column}' ({levels} levels) differs between the agents' runs of one '{term}' block "
                     f"({term} {label(block)}: {shown_values}) but never within one agent's runs there: read as a "
                     "property of each run (a host, a worker or a version, say), not a task, and left out; if it "
                     f"names tasks, block on it: '{head}{column}:{term}'")
    if not mixed:
        return None
    chosen = _finest(data, [m[0] for m in mixed])
    column, levels, block, values = next(m for m in mixed if m[0] == chosen)
    if pool_tasks:
        notes.append(f"runs of {levels} levels of '{column}' pooled within each '{term}' block (pool_tasks=True)")
        return None
    others = [m[0] for m in mixed if m[0] != column]
    also = f" (also {join_and([repr(c) for c in others])})" if others else ""
    if formula.crossed:  # the tasks put first: every other level is kept as written (at most two nest)
        ways = f"'{head}{column}:{term}'"
    elif formula.replicate is not None:
        ways = f"'{head}{column}/{formula.outer or formula.blocks}/{formula.replicate}'"
    else:
        noun, run = singular(column), formula.block_word  # the columns as nouns (audit s33 words33)
        ways = (f"'{head}{column}/{formula.blocks}' (each {noun} a block, its {plural(run)} the runs) "
                f"or '{head}{column}:{formula.blocks}' (each {noun}'s {run} a block, its {plural(formula.arm_word)}' "
                "runs matched)")
    what = "tasks" if column == "task" else f"levels of '{column}'"
    found_text = (f"the formula '{formula.text}' blocks on '{term}', which names runs, but column '{column}' "
                  f"({levels} levels) takes several values within its blocks{also}: {term} {label(block)} holds runs "
                  f"of {join_and([repr(str(v)) for v in values], limit=5)}, so each block would pool runs of "
                  f"different {what}, at their own scales, as replicates of one another; block on '{column}': {ways}, ")
    not_block = f"if '{column}' does not set the scores' scale (it numbers batches or hosts, say), "
    raise DesignError(
        found_text + f"or, {not_block}pool it within the blocks on purpose: rlstats.build(df, '{formula.text}', "
        "pool_tasks=True) and pass that Design",
        command_line=found_text + f"or, {not_block}remove the column '{column}' from the file to pool its runs on "
        "purpose")


def _steps_within_named_runs(data, formula, run_key, extra_columns):
    """(column, runs, None) of a numeric column distinct within each run the data name (the formula's replicate, or
    else a run column, :data:`RUN_IDS`, within the tasks' blocks) on values several runs share (:func:`_step_like`),
    or None: '| task' or '| task/seed' on curves whose step is named otherwise counted each checkpoint as a run, or
    said that the seed repeats, and 'score ~ agent' advised blocking on it (audit s33 design33). Without a run column
    nothing says which rows are one run. Read before the tasks' check (:func:`_check_tasks_blocked`), which names a
    step's levels as tasks."""
    names = {formula.groups, formula.blocks, formula.outer, *formula.crossed, *run_key, *extra_columns}
    runs = ([formula.replicate] if formula.replicate is not None else
            [c for c in data.columns if isinstance(c, str) and c.lower() in RUN_IDS and c not in names])
    if not runs:
        return None
    cells = [k for k in (formula.blocks, *formula.crossed, formula.groups, formula.outer, *runs, *run_key) if k]
    skip = {*names, *runs, *re.findall(r"[A-Za-z_]\w*", formula.response)}
    step = _step_like(data, list(dict.fromkeys(cells)), skip)
    return None if step is None else (*step, None)


def _finest(data, columns):
    """Of task columns varying within run blocks, the one to block on: 'task' by name, else the one that holds the
    most others constant within its levels ('environment' within 'suite'), the first of equals."""
    holds = {c: sum(bool((data.groupby(data[c], observed=True)[o].nunique() <= 1).all()) for o in columns if o != c)
             for c in columns}
    return min(columns, key=lambda c: (c != "task", -holds[c]))


#: the fewest rows a run must typically hold (the median over runs) for a column distinct within its runs to be read
#: as its steps
STEP_ROWS = 3


def _step_like(data, cells, skip):
    """(column, runs sharing its commonest value) of the first numeric column whose values are distinct within every
    cell of ``cells`` (the blocks, the agent and the named tasks: a run's rows) and shared by several cells, the runs
    holding :data:`STEP_ROWS` rows or more (the median): a training step named otherwise ('checkpoint',
    'generation'; audit s33 design33), or None; its commonest value shared by half the cells at least. Read whatever the rows' order (audit s33 review: a step read as rising
    row by row was missed once the rows were sorted by score). A column unique to each row (a wall time) shares no
    value; one row per run (its last step) is no cell of several rows; a value repeated within a run (a run's
    configuration) is no step, nor a column whose name says it numbers runs (:func:`_names_runs`). Frames with no
    numeric column beside the formula's are not grouped."""
    numeric = [c for c in data.columns if isinstance(c, str) and c not in skip and not _names_runs(c)
               and not _names_settings(c) and pd.api.types.is_numeric_dtype(data[c].dtype)
               and not pd.api.types.is_bool_dtype(data[c].dtype) and not pd.api.types.is_complex_dtype(data[c].dtype)]
    if not numeric:
        return None
    cell = data.groupby(list(cells), observed=True, sort=False, dropna=False).ngroup().to_numpy()
    sizes = np.bincount(cell)
    if np.median(sizes) < STEP_ROWS:
        return None
    for column in numeric:
        if data[column].isna().any():
            continue
        frame = pd.DataFrame({"cell": cell, "value": data[column].to_numpy(dtype=float)})
        distinct = frame.groupby("cell", sort=True)["value"].nunique().to_numpy()
        if not (distinct == sizes).all():  # ngroup numbers every cell
            continue
        shared = int(frame.groupby("value", sort=False)["cell"].nunique().max())
        # a step's grid is logged by most runs; a measurement shared by a few (a run published twice: hpo's
        # 'score_std', audit s33 full run) is not one
        if shared >= 2 and 2 * shared >= sizes.size:
            return column, shared
    return None


def _names_runs(column):
    """Whether ``column``'s name, or a word of it, names runs (:data:`RUN_NAMES`: 'seed', 'tuning_run', 'trial_id'):
    such a column numbers the runs of a cell, distinct within it and shared by other cells like a step, which its
    values alone cannot tell apart (hpo_optimisation's 'tuning_run', five tunings of each procedure on each seed)."""
    return column.lower() in RUN_NAMES or any(word in RUN_NAMES for word in re.split(r"[^a-z0-9]+", column.lower()))


#: words of a column's name that say it holds a configuration, not a step (:func:`_names_settings`)
SETTING_WORDS = frozenset({"config", "configs", "configuration", "cfg", "param", "params", "hparam", "hparams",
                           "hyperparameter", "hyperparameters", "setting", "settings", "variant", "lr"})


def _names_settings(column):
    """Whether a word of ``column``'s name says it holds a configuration (:data:`SETTING_WORDS`): a sweep's 'config'
    numbered 0-3 under each seed is distinct within a seed's rows and shared by the seeds like a step, which its
    values alone cannot tell apart (audit s33: tuning sweeps analysed '| task' were refused as learning curves)."""
    return any(word in SETTING_WORDS for word in re.split(r"[^a-z0-9]+", column.lower()))


#: the largest |score| a Design takes: squares of larger ones overflow to inf in the back ends' sums
MAX_MAGNITUDE = 1e150


def overflows(y: np.ndarray) -> bool:
    """Scores a back end cannot sum and square without inf (any of ``y``, of any shape): the one rule of
    :func:`build`'s check, which :func:`rlstats.power` applies to the data sets it draws (audit s22)."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.abs(y).sum() * 4.0  # headroom for the sums of squares and differences back ends form
        return not (np.isfinite(total) and np.abs(y).max(initial=0.0) < MAX_MAGNITUDE)


def _check_magnitude(y, formula):
    """Values so large that sums of them overflow would turn into inf and NaN downstream: an error."""
    if not overflows(y):
        return
    raise DesignError(
        f"'{formula.response}' reaches {np.abs(y).max():.3g}: sums and squares of values this large overflow "
        f"to inf; rescale the response, e.g. I({formula.response} / 1e100), or normalise it")


def _check_nesting(formula):
    """'| seed/task' blocks on the seed and nests tasks in it: almost surely '| task/seed' swapped."""
    blocks, replicate = formula.blocks, formula.replicate
    if replicate is None or not isinstance(blocks, str) or blocks.lower() not in RUN_NAMES:
        return
    if replicate.lower() in RUN_NAMES:
        return
    raise DesignError(
        f"the formula '{formula.text}' blocks on '{blocks}', which names runs, and nests '{replicate}' in it; "
        f"the task comes first and the run column after the slash: '{formula.response} ~ {formula.groups} | "
        f"{replicate}/{blocks}'")


def _check_duplicate_rows(data, formula, y):
    """Rows equal in every column, in a frame that names its runs, are one run counted twice."""
    named = [c for c in data.columns if isinstance(c, str) and (c.lower() in RUN_NAMES or c == formula.replicate)]
    if not named:
        return  # without a run id, equal rows can be distinct runs with tied scores
    named.sort(key=lambda c: c != formula.replicate and c.lower() not in RUN_IDS)  # name a run's column, not 'batch'
    # Only rows whose response value repeats can be whole-row repeats: compare those alone (cheap on real scores).
    # Found by sorting one copy (a hash table of every value held about 5 copies of y at 10^6 runs; issue 33).
    ordered = np.sort(y)
    nan = np.isnan(ordered)
    same = ordered[1:] == ordered[:-1]
    same |= nan[1:] & nan[:-1]  # missing values repeat each other, as pandas' duplicated() has it
    if not same.any():
        return
    candidates = np.flatnonzero(np.isin(y, ordered[1:][same]) | (np.isnan(y) if same[nan[1:]].any() else False))
    del ordered, nan, same
    try:
        repeated = data.iloc[candidates].duplicated(keep="first").to_numpy()
    except TypeError:  # unhashable cells: nothing to compare
        return
    duplicated = np.zeros(len(data), dtype=bool)
    duplicated[candidates[repeated]] = True
    if duplicated.any():
        repeat = "repeats" if duplicated.sum() == 1 else "repeat"
        raise DesignError(
            f"{count(duplicated.sum(), 'row')} {repeat} another row in every column, including the run column "
            f"'{named[0]}' (first repeats: {_first_rows(data, duplicated)}), so the same run would count "
            "twice; drop them with df.drop_duplicates(), or give each run its own id",
            command_line=f"{count(duplicated.sum(), 'row')} {repeat} another row in every column, including the run "
                         f"column '{named[0]}' (first repeats: {_first_rows(data, duplicated)}), so the same run "
                         "would count twice; remove the repeated lines from the file, or give each run its own id")


def _assemble(formula, y, agent, task, agent_labels, task_labels, position, seeds, extra, n_dropped, runs_of=None):
    """The Design of sorted arrays; ``runs_of`` (seed codes) makes a run of all rows sharing a seed in a cell."""
    k, n = len(agent_labels), len(task_labels)
    # Rows are sorted by cell, so a cell starts where task or agent changes (no N-long cell index: memory).
    new_cell = np.empty(y.size, dtype=bool)
    new_cell[0] = True
    np.not_equal(task[1:], task[:-1], out=new_cell[1:])
    new_cell[1:] |= agent[1:] != agent[:-1]
    starts = np.flatnonzero(new_cell)
    sizes = np.diff(np.r_[starts, y.size])
    if runs_of is None:
        counts = np.zeros(n * k, dtype=np.intp)
        counts[task[starts] * k + agent[starts]] = sizes
        # 0, 1, ... within each cell as one running sum that steps back at each cell's start (one N-long array)
        run = np.ones(y.size, dtype=CODE)
        run[0] = 0
        run[starts[1:]] = 1 - sizes[:-1]
        np.cumsum(run, out=run)
    else:
        new_run = new_cell
        new_run[1:] |= runs_of[1:] != runs_of[:-1]
        run = np.cumsum(new_run, dtype=CODE)
        run -= 1
        counts = np.bincount(task[new_run] * k + agent[new_run], minlength=n * k).reshape(n, k)
        run -= np.repeat(run[starts], sizes)
    return Design(formula=formula, y=np.ascontiguousarray(y, dtype=np.float64), agent=agent, task=task,
                  run=run, agents=tuple(agent_labels), tasks=tuple(task_labels), counts=counts.reshape(n, k),
                  row_position=position, seeds=seeds, extra=extra, n_dropped_rows=n_dropped)


def check_agent_named(design: Design, option: str, name: object, *, listed: bool = False) -> str:
    """``name``, an agent an option names (``control=``, ``treatment=``, ...; ``listed``: one of the names an option
    lists, ``pairs=``), as the design's label; an OptionError naming the option and the agents where it is none of
    them, saying why where the data held it (a categorical's level with no rows, an agent left out with its tasks) or
    which agents it is close to (:func:`rlstats.errors.agent_named`, the one wording)."""
    return agent_named(design.agents, option, name, listed=listed, **agents_said(design))


def agents_said(design: Design) -> dict[str, Any]:
    """What an unknown agent's error says of ``design``'s agents (:func:`rlstats.errors.agent_named`'s ``where`` and
    ``left_out``): the column, and why an agent of the data is not among them (a categorical's level with no rows).
    The one home of that context, for :func:`check_agent_named` and the checks of agents listed in pairs
    (:func:`rlstats.options.check_pairs`; audit s28: pairs= and reference= named the level without saying why)."""
    return {"where": f" in column '{design.formula.groups}'", "left_out": dict(design.left_out_agents)}


def _step_values(values, column):
    """A step column as numbers: an error for strings, datetimes, durations and missing steps."""
    if values.dtype.kind not in "iuf":  # numpy counts timedelta64 as an integer: its unit would be the step's
        kind = {"M": "dates/times", "m": "durations"}.get(values.dtype.kind, f"{values.dtype} values")
        way = {"M": f"(df['{column}'] - df['{column}'].min()).dt.total_seconds()",
               "m": f"df['{column}'].dt.total_seconds()"}.get(values.dtype.kind, f"pd.to_numeric(df['{column}'])")
        found = f"step column '{column}' holds {kind} ({values[:3].tolist()}...); steps must be numbers "
        raise DesignError(found + f"(e.g. environment steps), convert it with {way} first",
                          command_line=found + "(e.g. environment steps): write the column as numbers in the file")
    if np.issubdtype(values.dtype, np.floating) and not np.isfinite(values).all():
        bad = count((~np.isfinite(values)).sum(), 'missing or infinite value')
        raise DesignError(f"step column '{column}' has {bad}; every logged row needs its step")
    return values


def _key_label(data, design, i, run_key):
    """" with lr=0.001" of row ``i``: the configuration columns that name its run with the seed ('' without)."""
    values = [(c, data[c].to_numpy()[design.row_position[i]]) for c in run_key]
    return "".join(f"{' with' if j == 0 else ','} {c}={v.item() if isinstance(v, np.generic) else v!r}"
                   for j, (c, v) in enumerate(values))


def arm_label(formula, label):
    """"agent 'a'": an arm as the notes and errors name it, by the formula's column ("landscape 'x'" of
    ``score ~ landscape | task``, not "agent": audit s31 rfix31e; "algo 'a'" of ``| algos``,
    :attr:`rlstats.formula.Formula.arm_word`)."""
    return f"{formula.arm_word} {label!r}"


def block_label(formula, label):
    """"task 't'": a block as the notes and errors name it, by the formula's column ("env 'g3'" of
    ``ret ~ algo | env``; :attr:`rlstats.formula.Formula.block_word`)."""
    return f"{formula.block_word} {label!r}"


def _cell_label(design, i):
    """"agent 'a' on task 't'" of row ``i`` (:func:`arm_label`); the arm alone when the formula names no task (not
    "(all runs)")."""
    agent = arm_label(design.formula, design.agents[design.agent[i]])
    return f"{agent} on {block_label(design.formula, design.tasks[design.task[i]])}" if design.has_blocks else agent


def _repeats(*keys):
    """Rows (of arrays sorted by these keys) equal to the row before in every key; length N - 1."""
    same = np.ones(keys[0].size - 1, dtype=bool)
    for key in keys:
        same &= key[1:] == key[:-1]
    return same


def _check_one_row_per_step(design, column, data):
    """Learning curves: one row per (run, step). Rows of read_logs' attempts of one run (a rerun from its first
    step) are named as such: dropping the duplicates would make one curve of two trainings (audit s15)."""
    step = design.extra[column]
    same = _repeats(design.agent, design.task, design.run, step)
    if same.any():
        i = int(np.flatnonzero(same)[0])
        end = i + int(np.argmin(np.append(same[i:], False)))  # the repeats of row i follow it
        at = step[i].item() if isinstance(step[i], np.generic) else step[i]
        where = (f"run {design.seeds[i]!r} of {_cell_label(design, i)} has {end - i + 1} rows at step {at!r} "
                 f"({count(same.sum(), 'duplicate (run, step) row')} in all)")
        attempts = []
        if ATTEMPT in data.columns and ATTEMPT not in (design.formula.groups, design.formula.blocks,
                                                        design.formula.replicate):
            # the values as the column holds them: a condition writes a number as a number (review s28: a numeric
            # column's attempt was quoted as text, which the condition refused)
            attempts = sorted({a.item() if isinstance(a, np.generic) else a
                               for a in data[ATTEMPT].to_numpy()[design.row_position[i:end + 1]]},
                              key=lambda a: natural_key(str(a)))
        if len(attempts) > 1:
            formula = design.formula
            run = {c: data[c].to_numpy()[design.row_position[i]] for c in (formula.groups, formula.blocks,
                                                                              formula.replicate) if c is not None}
            python, command_line = kept_by(subset_dropping_attempts(run, ATTEMPT, attempts[-1]))
            found = (f"{where}: they come from the attempts {join_and(map(repr, attempts))} of column '{ATTEMPT}', "
                     f"read_logs' runs started again from their first step; keep the one you mean, e.g. ")
            kept = " (dropping duplicate steps would make one curve of two trainings)"
            raise DesignError(found + python + kept, command_line=found + command_line + kept)
        same_run = (design.agent == design.agent[i]) & (design.task == design.task[i]) & (design.run == design.run[i])
        apart = _text_column_apart(data, design, design.row_position[i:end + 1], design.row_position[same_run],
                                   column)
        if apart is not None:  # e.g. marl-eval's 'environment': two runs, not one logged twice (audit s20)
            told = (f"{where}: they differ in column '{apart[0]}' ({join_and(map(repr, apart[1]))}), so they are "
                    "rows of different runs, not one run's logged twice; name the runs apart in the formula (e.g. a "
                    f"task column joining '{apart[0]}' and the task) or leave some out with {leaving_out()}")
            raise DesignError(told)
        raise DesignError(
            f"{where}; keep one row per run and step, "
            f"e.g. the last logged: df.drop_duplicates(['{design.formula.groups}', '{design.formula.blocks}', "
            f"'{design.formula.replicate}', '{column}'], keep='last')",
            command_line=f"{where}; keep one row per run and step in the file, e.g. the last logged")


#: Columns of read_logs' frames whose values differ between the rows of one run whatever the runs.
_ROW_COLUMNS = ("source", "wall_time", "time_elapsed")


def _text_column_apart(data, design, positions, run_positions, step_column):
    """(name, values) of the first text column, beside the formula's and the step, whose values differ between the
    rows at ``positions`` (repeats of one run and step), or None. A column taking more values over the run's rows
    (``run_positions``) than it has rows at the step tells rows apart, not runs (a time written as text: review s20)."""
    formula = design.formula
    named = {formula.groups, formula.blocks, formula.replicate, step_column, *_ROW_COLUMNS}
    for name in data.columns:
        if name in named or not isinstance(name, str) or data[name].dtype.kind in "biufcmM":
            continue
        values = data[name].to_numpy()
        distinct = sorted({str(v) for v in values[positions]}, key=natural_key)
        if 1 < len(distinct) and len({str(v) for v in values[run_positions]}) <= len(positions):
            return name, distinct[:5]
    return None


#: Columns that name the run a row belongs to (RUN_NAMES but batches and row numbers, which hold several runs or
#: one row each whatever the runs): one row per run of such a column is the evidence that rows are runs, not curves.
RUN_IDS = RUN_NAMES - {"batch", "batches", "index"}


def _check_no_curves(design, data, step, run_key=(), summaries=True, found=None):
    """Rows of one run at several steps must not count as runs: an error naming the ways on.

    A step column varying within an agent x task cell is not enough: one row per run (each run's last
    logged row, say) varies there too, as runs end at steps of their own. The formula's run column, or
    else a column named like one (:data:`RUN_IDS`), settles it: one row per run is runs, several rows of
    one run at several steps are curves. Without a run column, a varying step is taken as curves. ``run_key``
    (tuning's configuration columns) splits the cell: runs of one seed in several configurations are runs, each at
    a step of its own (audit s17). ``summaries``: whether the refusal offers summarize_runs and curves. ``found``:
    (column, runs, task) of a column named otherwise distinct within the runs of run blocks, on values they share
    (:func:`_step_like`),
    read first and said as found by its values; ``task``, the column of tasks varying within those blocks or None.
    """
    f = design.formula
    used = {f.groups, f.blocks, f.replicate, f.outer, f.response, *f.crossed, *run_key}
    candidates = ([] if found is None else [found[0]]) + [
        c for c in data.columns if isinstance(c, str) and c not in used and (c == step or c.lower() in STEP_NAMES)
        and (found is None or c != found[0])]
    if not candidates:
        return
    cell = design.task.astype(np.int64) * design.n_agents + design.agent
    for column in run_key:  # factorised at each column, so the codes stay below the rows' count
        codes = pd.factorize(data[column].to_numpy()[design.row_position], use_na_sentinel=False)[0]
        cell = pd.factorize(cell * (int(codes.max()) + 1) + codes)[0].astype(np.int64)
    if design.seeds is not None:  # the formula names the run: its rows are the cell of one run
        run_columns = [f.replicate]
        run_codes = [pd.factorize(design.seeds)[0]]
    else:
        run_columns = [c for c in data.columns if isinstance(c, str) and c not in used and c.lower() in RUN_IDS
                       and c not in candidates]
        run_codes = [pd.factorize(data[c].to_numpy()[design.row_position])[0] for c in run_columns]
    for column in candidates:
        values = pd.Series(data[column].to_numpy()[design.row_position])
        per_cell = values.groupby(cell).nunique()
        if per_cell.max() <= 1:
            continue
        evidence = None  # (steps, rows, first row, run column) of the run logged at the most steps
        runs_alone = None  # a run column holding one step per run (the formula's runs) or one row per run
        for name, codes in zip(run_columns, run_codes):
            if (codes < 0).any():
                continue  # a run id missing somewhere: it cannot say which rows are one run
            run = cell * (int(codes.max()) + 1) + codes
            per_run = values.groupby(run).nunique()
            if per_run.max() > 1:
                if evidence is None or per_run.max() > evidence[0]:
                    i = int(np.flatnonzero(run == per_run.idxmax())[0])
                    evidence = (int(per_run.max()), int((run == run[i]).sum()), i, name)
            elif name == f.replicate or np.bincount(pd.factorize(run)[0]).max() == 1:
                runs_alone = runs_alone or name
        # a run logged at several steps is curves whatever another column says: a column unique to each row (a
        # trial number) must not outweigh it (review s7); the formula naming that column settles it
        if evidence is not None or runs_alone is None:
            _refuse_curves(design, data, column, per_cell, cell, evidence, run_columns, runs_alone, run_key,
                           summaries, found[1:] if found is not None and column == found[0] else None)


def _refuse_curves(design, data, column, per_cell, cell, evidence, run_columns, unique=None, run_key=(),
                   summaries=True, shared=None):
    """The error of :func:`_check_no_curves`: where the rows look like curves, and ways on that fit the data
    (``unique``: a run column holding one row per run, which the formula can name if it is the run; ``run_key``:
    the configuration columns that are part of a run's name, which summarize_runs and curves do not read;
    ``summaries`` False: the caller has no use for them, AdaStop's batches; ``shared``: (runs sharing its commonest
    value, the tasks' column or None) of a column found by its values, not its name, :func:`_step_like`)."""
    shared, tasks = shared if shared is not None else (None, None)
    shared = None if column.lower() in STEP_NAMES else shared  # named as a step: said as one
    f = design.formula
    if evidence is not None:
        steps, rows, i, run = evidence
        seed = data[run].to_numpy()[design.row_position[i]]  # the id as the data hold it (1, not '1')
        seed = seed.item() if isinstance(seed, np.generic) else seed
        where = f"run {run}={seed!r} of {_cell_label(design, i)}{_key_label(data, design, i, run_key)} ({rows} rows)"
    else:
        worst = int(per_cell.idxmax())
        i = int(np.flatnonzero(cell == worst)[0])
        # a run column whose runs hold one step each but several rows: it still names the runs for the ways on
        steps, run = int(per_cell.max()), next((c for c in run_columns if not data[c].isna().any()), None)
        where = f"{_cell_label(design, i)}{_key_label(data, design, i, run_key)} ({int((cell == worst).sum())} rows)"
    rising = "" if shared is None else f", each once, on values shared by {shared} runs"
    said = (f"column {column!r} takes {steps} values within {where}{rising}, so the rows look like learning curves "
            "and each would be counted as a run. ")
    runs_blocked = isinstance(f.blocks, str) and f.blocks.lower() in RUN_IDS and not f.crossed
    task = tasks or "task"  # the runs' names start with it where the blocks name the runs
    if run is None and runs_blocked:
        # '| seed' on one task (a task column varying there is refused first, _check_tasks_blocked): the blocks are
        # the runs, and the ways on name the seed after the task (audit s32 design32: '| seed/seed', "no run")
        run = f.blocks
        after = "the task" if tasks is None else f"{tasks!r}, the tasks"
        unnamed = unnamed_file = (f"The formula's blocks, {run!r}, name the runs; the ways on name them after {after}"
                                  + ("" if task in data.columns else
                                     ", a column the data lack: add it, e.g. df.assign(task='name')") + ". ")
        unnamed_file = unnamed_file.replace("df.assign(task='name')", "a column 'task' in the file")
    elif run is None:
        # no column says which rows are one run: the ways on need one
        unnamed = ("The data name no run (no column such as 'seed' or 'run'), so a run's rows cannot be found: "
                   "add a column naming each run, then pick each run's last step, summarise or compare the "
                   "curves as below with it in place of 'seed'. If each row is one run already (at a step of its "
                   "own), drop the column")
        unnamed, unnamed_file = unnamed + f": df.drop(columns={column!r}). ", unnamed + " from the file. "
        run = "seed"
    else:
        unnamed = unnamed_file = ""
    keys = list(dict.fromkeys([k for k in (f.groups, tasks, f.blocks, *f.crossed, *run_key) if k is not None]
                              + [run]))  # the tasks pooled in the blocks (found with a step column) name runs too
    run_formula = f"{f.response} ~ {f.groups} | {task if runs_blocked else f.blocks or 'task'}/{run}"
    named = ("" if unique is None else f". If each row is one run, named by {unique!r} (one row each), say so in "
                                       f"the formula: '{f.response} ~ {f.groups} | {f.blocks or 'task'}/{unique}'")
    # summarize_runs and curves name a run by agent, task and seed alone: with configuration columns they would pool
    # the configurations' runs of one seed, so only the grouping that names them is offered (as to a caller that
    # reads one score per run and nothing else: rlstats adastop update offered method='curves', audit s18)
    rows_only = bool(run_key) or not summaries
    ways = (f"Pick a step of each run, e.g. its last: df.sort_values({column!r}).groupby({keys!r}).tail(1), or "
            f"summarise each run otherwise, grouped by the same columns" if rows_only else
            f"Pick a step of each run, e.g. its last: rlstats.summarize_runs(df, {run_formula!r}, step={column!r}) "
            f"(whose notes say where runs end at different steps) or df.sort_values({column!r}).groupby({keys!r})"
            f".tail(1); summarise each run otherwise (how='auc', 'max', ...); or compare the curves: "
            f"rlstats.curves(df, {run_formula!r}, step={column!r})")
    ways_file = (f"Keep one row of each run (each {', '.join(map(repr, keys))}) in the file, e.g. its last step"
                 if rows_only else
                 f"Keep one row of each run in the file (e.g. its last step; rlstats compare does it with "
                 f"--summarize final, or last_k_mean, auc, max, time_to_threshold"
                 f"{'' if column == 'step' else f', and --step {column}'}), or compare "
                 f"the curves with the formula {run_formula!r} and method='curves', step={column!r}")
    if shared is None:
        other, other_file = "rename or drop it", "rename or remove that column"
    else:  # found by its values: it may number tasks or settings (a column dropped or renamed would pool them unsaid)
        blocked = (f"{column}/{f.blocks}" if runs_blocked else
                   ":".join([k for k in (f.blocks, *f.crossed) if k is not None] + [column]))
        other = other_file = f"block on it: '{f.response} ~ {f.groups} | {blocked}'"
    not_step = "numbers tasks or settings, not steps" if shared is not None else "is not a training step"
    raise DesignError(
        said + unnamed + ways + f". If {column!r} {not_step}, {other}" + named,
        command_line=said + unnamed_file + ways_file + f". If {column!r} {not_step}, {other_file}" + named)


def repeated_run(design: Design, ids: ArrayLike) -> tuple[int, str, int, int] | None:
    """Where a run id repeats within an agent x task cell, so that one run would count twice, or None.

    The one home of that refusal: :func:`build` asks it of the formula's replicate column (``task/seed``), and
    :meth:`rlstats.AdaStop.update` of a batch's ``seed`` or ``run`` column, each wording its own message.

    Parameters
    ----------
    design : Design
        The rows.
    ids : array_like
        One run id per row of ``design`` (in its order).

    Returns
    -------
    (row, label, rows, repeats) or None
        A row of the first repeated run (in the design's order), the cell's label ("agent 'a' on task 't'"),
        how many rows that run has, and how many rows repeat a run in all.
    """
    ids = np.asarray(ids)
    # integer ids factorised as they are (as objects they cost 4x: the check runs on every '| task' build with seeds)
    codes = pd.factorize(ids if ids.dtype.kind in "iub" else np.asarray(ids, dtype=object))[0]
    order = np.lexsort((codes, design.agent, design.task))  # stable: a design sorted so keeps its order
    same = _repeats(design.task[order], design.agent[order], codes[order])
    if not same.any():
        return None
    i = int(order[np.flatnonzero(same)[0]])
    rows = int(((design.task == design.task[i]) & (design.agent == design.agent[i]) & (codes == codes[i])).sum())
    return i, _cell_label(design, i), rows, int(same.sum())


def _check_unique_replicates(design):
    found = repeated_run(design, design.seeds)
    if found is not None:
        i, where, _, repeats = found
        raise DesignError(
            f"replicate column '{design.formula.replicate}' repeats id {design.seeds[i]!r} within {where} "
            f"({count(repeats, 'duplicate')} in all); each run needs its own id within a cell, "
            f"or drop '/{design.formula.replicate}' from the formula to treat rows as replicates")


def _repeated_id_note(design, data):
    """[a note] where a column naming runs (:data:`RUN_IDS`) that the formula does not name repeats an id within a
    cell, [] otherwise: each row still counts as a run (the formula names none), but "3 runs" would say otherwise
    than the frame, whose column names fewer (two evaluation episodes of one seed, say; audit s19). Several such
    columns name a run together."""
    f = design.formula
    used = {f.groups, f.blocks, f.outer, f.response, *f.crossed}
    columns = [c for c in data.columns if isinstance(c, str) and c.lower() in RUN_IDS and c not in used]
    if not columns or design.y.size < 2:
        return []
    values = [data[c].to_numpy()[design.row_position] for c in columns]
    if any(pd.isna(v).any() for v in values):
        return []  # a run id missing somewhere: it cannot say which rows are one run
    ids = (pd.MultiIndex.from_arrays(values).factorize()[0] if len(values) > 1 else values[0])
    found = repeated_run(design, ids)
    if found is None:
        return []
    i, where, rows, repeats = found
    said = " and ".join(f"{c} {v.item() if isinstance(v, np.generic) else v!r}" for c, v in
                        ((c, data[c].to_numpy()[design.row_position[i]]) for c in columns))
    by = [k for k in (f.groups, f.blocks, *f.crossed) if k is not None] + columns
    # said without pandas code, which the command line's notes could not follow
    return [f"{' and '.join(map(repr, columns))} {verb(len(columns), 'repeats')} an id within a cell "
            f"({said} of {where}: {rows} rows; {count(repeats, 'repeated row')} in all), and each row is counted as a "
            "run, "
            f"as the formula names no run column; if those rows are one run's (evaluation episodes, say), average "
            f"them first to one row per {', '.join(map(repr, by[:-1]))} and {by[-1]!r}"]


#: How the note on copied runs begins (:func:`copied_runs_note`), for the tests and the back ends that quote it.
COPIED_RUNS = "repeat another run's score exactly"

#: How the sentence on runs of two tasks sharing scores says it (:func:`copied_runs_note`), for the tests.
COPIED_ACROSS = "repeat exactly the scores of"


def _shared_said(shared: int, runs_first: int, runs_second: int) -> str:
    """The scores two cells share; where more runs than scores hold them, that the excess repeat within their cell
    (audit s29: "20 of 30 runs repeat the scores of 30 of 30 runs (20 scores shared)" read as a contradiction)."""
    said = f"{count(shared, 'distinct score' if max(runs_first, runs_second) > shared else 'score')} shared"
    if max(runs_first, runs_second) > shared:
        said += ", some repeated within a cell"
    return said

#: The most cells (pairs of cells of different tasks) the note on copied runs names; the rest are counted.
COPIED_CELLS_SHOWN = 6


def _rows_selected(design: Design, rows: ArrayLike) -> Design:
    """A copy of ``design`` holding only ``rows`` (positions into its arrays, increasing): the runs a back end analysed
    of those it was given (AdaStop's batches fed, :func:`copied_runs_note`'s ``rows=``), every agent and task kept,
    the cells' counts and runs recounted. ``rows`` unchecked (a back end's own positions, sorted)."""
    rows = np.asarray(rows, dtype=np.intp)
    k = design.n_agents
    cell = design.task[rows].astype(np.intp) * k + design.agent[rows]
    counts = np.bincount(cell, minlength=design.n_tasks * k)
    run = (np.arange(rows.size) - (np.cumsum(counts) - counts)[cell]).astype(CODE)  # rows sorted by cell
    return dataclasses.replace(
        design, y=design.y[rows], agent=design.agent[rows], task=design.task[rows], run=run,
        counts=counts.reshape(design.n_tasks, k), row_position=design.row_position[rows],
        seeds=None if design.seeds is None else design.seeds[rows],
        extra={key: v[rows] for key, v in design.extra.items()})._restated_notes(rows.size < design.nobs)


def copied_runs_note(design: Design, given: pd.DataFrame | None = None, said_within: Sequence[int] = (),
                     incomplete_refused: bool = True, rows: ArrayLike | None = None) -> list[str]:
    """[a note] where runs of a cell repeat other runs' scores exactly and such repeats are improbable by chance at the
    scores' resolution (:func:`rlstats.statistics.copied_runs`: a file read twice, a batch saved again), and one
    sentence per pair of agent x task cells of different tasks whose runs share scores so improbably (a column copied
    from one task's file to another's, :data:`COPIED_ACROSS`), and one sentence per pair of tasks whose agents' runs
    repeat each other so improbably taken together, though no agent's pair of cells is alone (a task's file read
    twice under two names: each agent's cells there hold only a few runs); [] where there is none.

    The one home of that check for every back end (the front door's :func:`build` adds it to the notes; AdaStop says
    it of the runs it fed, and ``said_within``, cells as ``task * n_agents + agent`` codes, leaves out of the sentence
    on runs copied within cells those whose repeated batches its batch check names by interim, audit s35).  The
    scores judged are the response column as
    ``given`` (before ``normalize=`` and the formula's expression, which leave equal scores equal and would hide their
    decimal step) at the rows analysed, else the Design's response; the runs are analysed as given (a note, not an
    error: distinct runs can score alike).  A way on leaving out a whole agent x task cell adds
    ``na_action="drop"`` where ``incomplete_refused``: the call's ``na_action`` is ``"raise"`` and the method may
    compare every agent on every task (:func:`_cell_left_out`; AdaStop's kernels read the cells there are).
    ``rows`` (positions into the Design's arrays, increasing): of those runs alone, the runs a back end analysed of
    those it was given (AdaStop's batches fed; :func:`_rows_selected`).
    """
    design = design if rows is None else _rows_selected(design, rows)
    f = design.formula
    column = f.response_columns[0] if len(f.response_columns) == 1 else None  # log(score): equal where score is
    values = design.y
    if (given is not None and column in given.columns and pd.api.types.is_numeric_dtype(given[column].dtype)
            and not pd.api.types.is_bool_dtype(given[column].dtype)):
        raw = pd.to_numeric(given[column]).to_numpy(dtype=float, na_value=np.nan)[design.row_position]
        values = raw if np.isfinite(raw).all() else values
    n_agents = design.n_agents
    copies, chance, across = statistics.copied_runs(
        values, design.task * n_agents + design.agent, design.n_tasks * n_agents,
        np.arange(design.n_tasks * n_agents) // n_agents, across_blocks=True,
        agent=np.arange(design.n_tasks * n_agents) % n_agents)
    tasks = across.tasks  # an agent's pair of cells of two tasks noted jointly: in tasks, not in across
    said = np.asarray(said_within, dtype=np.intp)
    copies[said], chance[said] = 0, np.nan  # said by the caller (AdaStop's repeated batches, by interim)
    return (_copied_within_note(design, copies, chance)
            + _copied_across_notes(design, across, given, incomplete_refused) + _copied_tasks_notes(design, tasks, given)
            + _copied_agents_notes(design, across.same_block, given, incomplete_refused))


def _cell_left_out(design, cell, condition, refused):
    """The way on (:func:`kept_by`'s, in the function called's words) keeping the rows ``condition`` keeps, which
    leave out the agent x task cell ``cell`` (``task * n_agents + agent``) whole: where other agents ran its task
    and such a design may be ``refused`` (:func:`copied_runs_note`), with ``na_action="drop"``, without which a
    method comparing every agent on every task refuses the call (audit s36 small36: the hint followed verbatim was
    refused by bootstrap and percentiles; build() compares nothing)."""
    way = kept_by(condition)[0]
    t = cell // design.n_agents
    if (not refused or not design.has_blocks or design.counts[t].sum() <= design.counts.reshape(-1)[cell]
            or called_entry() == "build"):
        return way
    task, agent = design.block_word, design.arm_word
    return (f'{way} and na_action="drop", which leaves out {names_shown([design.tasks[t]], among=design.tasks)[0]} '
            f"where the method compares every {agent} on every {task}")


def _chance_said(chance):
    """The chance bound as the notes on copied runs say it."""
    return f"at most {chance:.1g}" if chance >= 1e-300 else "below 1e-300"  # e**-700 underflows to 0


def _copied_within_note(design, copies, chance):
    """The note on runs copied within cells (:func:`copied_runs_note`)."""
    n_agents = design.n_agents
    cells = np.flatnonzero(copies)
    if not cells.size:
        return []
    counts = design.counts.reshape(-1)
    parts = []
    for t in dict.fromkeys(cells // n_agents):  # by task, in the Design's order
        here = [k for k in cells if k // n_agents == t]
        runs = ", ".join(f"{name} {copies[k]:,} of {counts[k]:,}" for name, k in
                         zip(names_shown([design.agents[k % n_agents] for k in here], among=design.agents), here))
        parts.append(f"{design.tasks[t]}: {runs}" if design.has_blocks else runs)
    task, agent = design.formula.block_word, design.formula.groups
    shown = "; ".join(parts[:COPIED_CELLS_SHOWN]) + (f"; and {count(len(parts) - COPIED_CELLS_SHOWN, 'more ' + task)}"
                                                     if len(parts) > COPIED_CELLS_SHOWN else "")
    total = int(copies.sum())
    return [f"{count(total, 'run')} {COPIED_RUNS if total > 1 else COPIED_RUNS.replace('repeat', 'repeats')} "
            f"within {count(cells.size, f'{agent} x {task} cell' if design.has_blocks else agent)} ({shown}): at the "
            f"resolution of the scores (their decimal step, or how often runs of other cells tie) the chance of so "
            f"many exact repeats is {_chance_said(float(np.nanmax(chance)))} in each, so they look copied (a file or "
            "batch read twice), not new runs; "
            "each is analysed as a run, and equal scores tie; drop the repeated rows of those cells (one row per run), "
            "or keep them if they are distinct runs that scored alike"]


def _copied_across_notes(design, across, given, refused):
    """One sentence per pair of cells of different tasks whose runs share scores where chance would not
    (:func:`copied_runs_note`), the first :data:`COPIED_CELLS_SHOWN` in the Design's order, the rest counted."""
    f, n_agents = design.formula, design.n_agents
    names = dict(zip(design.agents, names_shown(design.agents)))
    tasks = dict(zip(design.tasks, names_shown(design.tasks)))

    def literal(column, label):  # a label as a subset= condition writes it: a number where the column holds numbers
        numeric = given is not None and column in given.columns and _holds_numbers(given[column])
        return f"{column if column.isidentifier() else f'`{column}`'} == {label_literal(label, numeric)}"

    notes = []
    counts = design.counts.reshape(-1)
    order = np.lexsort((across.second, across.first))
    for i in order[:COPIED_CELLS_SHOWN]:
        a, b = int(across.first[i]), int(across.second[i])
        (agent_a, task_a), (agent_b, task_b) = [(design.agents[k % n_agents], design.tasks[k // n_agents])
                                                for k in (a, b)]
        other = "its" if agent_a == agent_b else f"{names[agent_b]}'s"
        drop = f"~({literal(f.groups, agent_a)} & {literal(f.blocks, task_a)})"
        notes.append(
            f"{across.runs_first[i]:,} of {names[agent_a]}'s {counts[a]:,} runs on {tasks[task_a]} {COPIED_ACROSS} "
            f"{across.runs_second[i]:,} of {other} {counts[b]:,} runs on {tasks[task_b]} "
            f"({_shared_said(int(across.shared[i]), int(across.runs_first[i]), int(across.runs_second[i]))}), "
            f"whose chance at the scores' resolution is "
            f"{_chance_said(float(across.chance[i]))}: one task's runs look copied into the other's file, not runs of "
            f"their own; find the task they were run on and replace the other's copies with its own runs, or leave "
            f"out {names[agent_a]}'s {counts[a]:,} runs on {tasks[task_a]} if those are the copies "
            f"({_cell_left_out(design, a, drop, refused)})")  # the whole cell: which runs are copies, no score says
    if order.size > COPIED_CELLS_SHOWN:
        rest = order[COPIED_CELLS_SHOWN:]
        notes.append(f"in {count(rest.size, 'more pair')} of agent x task cells of different tasks, the runs of one "
                     f"{COPIED_ACROSS} the other's as improbably ({count(int(across.shared[rest].sum()), 'score')} "
                     f"shared in all): check the task files they were read from likewise")
    return notes


def _copied_agents_notes(design, same, given, refused):
    """One sentence per pair of agents whose runs on one task share scores where chance would not (a baseline's file
    saved again as the new method's; :class:`rlstats.statistics.CopiedAcross`' ``same_block``,
    :func:`copied_runs_note`), the first :data:`COPIED_CELLS_SHOWN` in the Design's order, the rest counted."""
    if same is None or not same.first.size:
        return []
    f, n_agents = design.formula, design.n_agents
    names = dict(zip(design.agents, names_shown(design.agents)))
    tasks = dict(zip(design.tasks, names_shown(design.tasks)))
    counts = design.counts.reshape(-1)

    def literal(column, label):  # a label as a subset= condition writes it: a number where the column holds numbers
        numeric = given is not None and column in given.columns and _holds_numbers(given[column])
        return f"{column if column.isidentifier() else f'`{column}`'} == {label_literal(label, numeric)}"

    notes = []
    order = np.lexsort((same.second, same.first))
    for i in order[:COPIED_CELLS_SHOWN]:
        a, b = int(same.first[i]), int(same.second[i])
        agent_a, agent_b, task = design.agents[a % n_agents], design.agents[b % n_agents], design.tasks[a // n_agents]
        on = f" on {tasks[task]}" if design.has_blocks else ""
        drop = (f"~({literal(f.groups, agent_b)} & {literal(f.blocks, task)})" if design.has_blocks else
                f"~({literal(f.groups, agent_b)})")
        notes.append(
            f"{same.runs_first[i]:,} of {names[agent_a]}'s {counts[a]:,} runs{on} {COPIED_ACROSS} "
            f"{same.runs_second[i]:,} of {names[agent_b]}'s {counts[b]:,} runs{on} "
            f"({_shared_said(int(same.shared[i]), int(same.runs_first[i]), int(same.runs_second[i]))}), whose "
            f"chance at the scores' resolution and as often as "
            f"other runs tie in the data is {_chance_said(float(same.chance[i]))}: one agent's runs look saved "
            f"again as the other's (one file under two agent names), not runs of their own; find which agent ran them "
            f"and replace the other's copies with its own runs, or leave out {names[agent_b]}'s {counts[b]:,} "
            f"runs{on} if those are the copies ({_cell_left_out(design, b, drop, refused)})")
    if order.size > COPIED_CELLS_SHOWN:
        rest = order[COPIED_CELLS_SHOWN:]
        notes.append(f"in {count(rest.size, 'more pair')} of agents on one task, the runs of one {COPIED_ACROSS} "
                     f"the other's as improbably ({count(int(same.shared[rest].sum()), 'score')} shared in all): check "
                     f"the files they were read from likewise")
    return notes


def _copied_tasks_notes(design, tasks, given):
    """One sentence per pair of tasks whose agents' cells repeat each other where chance would not, judged jointly
    over the agents (:class:`rlstats.statistics.CopiedTasks`; :func:`copied_runs_note`)."""
    if tasks is None or not tasks.first.size:
        return []
    f = design.formula
    shown = dict(zip(design.tasks, names_shown(design.tasks)))
    numeric = given is not None and f.blocks in given.columns and _holds_numbers(given[f.blocks])
    column = f.blocks if f.blocks.isidentifier() else f"`{f.blocks}`"
    notes = []
    for i in np.lexsort((tasks.second, tasks.first)):
        a, b = design.tasks[int(tasks.first[i])], design.tasks[int(tasks.second[i])]
        drop = f"{column} != {label_literal(b, numeric)}"
        alone = ("though no agent's alone is improbable" if not tasks.alone[i] else
                 f"that of {tasks.alone[i]:,} of those agents improbable alone too")
        notes.append(
            f"on {shown[a]} and {shown[b]}, the runs of {tasks.cells[i]:,} of the {tasks.agents[i]:,} agents on one "
            f"{COPIED_ACROSS} the same agent's runs on the other ({count(int(tasks.shared[i]), 'score')} shared in "
            f"all), whose joint chance at the scores' resolution is {_chance_said(float(tasks.chance[i]))}, {alone}: "
            f"the two tasks look like one file read twice under two names, not runs of their own; check the files "
            f"they were read from, and keep one of them ({kept_by(drop)[0]} if {shown[b]} is the copy)")
    return notes


def near_duplicate_labels_note(design: Design) -> list[str]:
    """One sentence per group of agents, and of tasks, whose labels differ only in case or surrounding whitespace
    ('pong ' beside 'Pong': two tasks to the analysis, most likely one to the user, audit s31 trialfix31), quoted so
    that the whitespace shows; the labels are kept as given (a change to the data would be silent)."""
    notes = []
    for what, labels in (("agents", design.agents), ("tasks", design.tasks if design.has_blocks else ())):
        groups: dict[str, list[str]] = {}
        for label in labels:
            groups.setdefault(str(label).strip().casefold(), []).append(str(label))
        for group in (g for g in groups.values() if len(g) > 1):
            notes.append(f"{what} {join_and(repr(g) for g in sorted(group))} differ only in case or surrounding "
                         f"whitespace, so they are analysed as different {what}; if they are one, make their labels "
                         "equal before the analysis (e.g. strip the spaces and use one case)")
    return notes


def _drop_uninformative_tasks(design, notes):
    """Keep out tasks where fewer than two agents have runs; they carry no comparison."""
    if not design.has_blocks:
        return design
    agents_present = (design.counts > 0).sum(axis=1)
    bad = agents_present < 2
    if not bad.any():
        return design
    dropped = tuple(t for t, b in zip(design.tasks, bad) if b)
    # "of the analysis", not "of the test": the estimating back ends (mixed, percentiles, summarize_runs) read this
    # design too; and the runs it leaves, so that the count of runs analysed adds up (audit s24)
    notes.append(f"{count(len(dropped), design.formula.block_word)} ({count(int(design.counts[bad].sum()), 'run')}) "
                 f"kept out of the analysis because fewer than two {plural(design.formula.groups)} have runs there: "
                 f"{name_list(dropped, among=design.tasks)}")
    reduced = dataclasses.replace(design.select_tasks([t for t, b in zip(design.tasks, bad) if not b]),
                                  dropped_tasks=dropped)
    if reduced.y.size == 0:
        raise DesignError(f"no {design.formula.block_word} has runs of at least two {plural(design.formula.groups)}, "
                          "so no comparison is possible")
    # Agents whose runs were all in dropped tasks have nothing left.
    present = reduced.counts.sum(axis=0) > 0
    if not present.all():
        names = [a for a, p in zip(design.agents, present) if p]
        gone = [a for a, p in zip(design.agents, present) if not p]
        notes.append(f"{count(len(gone), design.formula.groups)} with no runs in the remaining "
                     f"{plural(design.formula.block_word)} left out: "
                     f"{name_list(gone, among=design.agents)}")
        reduced = reduced.select_agents(names)
    return reduced


#: :func:`_summary_of` by a public name, for the other modules reading a summary's note
#: (:func:`rlstats.runs.censored_cells`, which reads its record of the censored runs; audit s34 ttt34)
summary_of = _summary_of
