"""Which agents met on which tasks: the comparison graph of a design.

Two agents *met* when both have runs on at least one common task.  The agent graph has an edge for each pair
that met; its connected components are the groups of agents that a comparison across tasks can link at all.
Across two groups there is no task on which to compare, so nothing may rank or contrast their agents: every back
end that compares agents across tasks reads :func:`comparison_graph` (through ``Design.graph``) and either refuses
a design of several groups (:meth:`ComparisonGraph.refusal`, which lists the groups and the ``subset=`` selecting
each) or compares within groups; within a group, a pair that never met is named (:meth:`ComparisonGraph.pairs_phrase`)
wherever a result would otherwise join or contrast it.

The graph is read from the cell counts alone (arrays in, a frozen record out); it imports nothing of the package
but its errors and formatting, so that ``design.py`` and the back ends' kernels can both use it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import ENTRIES, ENTRY, DesignError, entry as called_entry, shell_word
from .format import count, join_and, listed, names_shown, plural

__all__ = ["ComparisonGraph", "Keeping", "comparison_graph", "components", "kept_by", "keeping", "label_literal",
           "leaving_out", "rows_way", "subset_selecting"]

#: How many groups, and how many names per group, a refusal spells out before "...".
_SHOWN_GROUPS = 6
_SHOWN_NAMES = 12


def components(present: np.ndarray) -> np.ndarray:
    """The group code of each agent: agents are linked when they share a task (a row of ``present``).

    Parameters
    ----------
    present : ndarray of bool, shape (n_tasks, n_agents)
        Whether each agent has runs on each task.

    Returns
    -------
    ndarray of intp, shape (n_agents,)
        Groups numbered 0, 1, ... in the order of their first agent.
    """
    present = np.asarray(present, dtype=bool)
    return np.frombuffer(_components(present.tobytes(), present.shape), dtype=np.intp).copy()


@functools.lru_cache(maxsize=64)
def _components(present_bytes: bytes, shape: tuple[int, int]) -> bytes:
    # Once per pattern of present cells: a power study asks for the same design's pattern with every data set.
    present = np.frombuffer(present_bytes, dtype=bool).reshape(shape).astype(np.int64)
    linked = present.T @ present > 0
    label = np.full(linked.shape[0], -1, dtype=np.intp)
    groups = 0
    for start in range(linked.shape[0]):
        if label[start] >= 0:
            continue
        frontier = np.zeros(linked.shape[0], dtype=bool)
        frontier[start] = True
        while frontier.any():  # spread from an agent not reached yet to every agent it is linked to
            label[frontier] = groups
            frontier = linked[frontier].any(axis=0) & (label < 0)
        groups += 1
    return label.tobytes()


def label_literal(label: str, numeric: bool = False) -> str:
    """A label as a literal of a condition: quoted text, or the number itself where the column holds numbers
    (a label of an integer-coded column is its printed number, which no quoted string equals)."""
    return label if numeric else repr(label)


def subset_selecting(column: str, names: tuple[str, ...], others: tuple[str, ...] = (),
                     numeric: bool = False) -> str:
    """A ``subset=`` condition keeping the rows of the agents ``names`` (or dropping ``others``, if shorter).

    Written in the grammar of :mod:`rlstats.conditions` (string literals: agent labels as the design holds
    them; numbers where the column holds numbers, ``numeric``), so that it can be pasted into any public
    function's ``subset=`` (and ``DataFrame.query``).
    """
    name = column if column.isidentifier() else f"`{column}`"
    keep = f"{name} in [{', '.join(label_literal(n, numeric) for n in names)}]"
    drop = f"{name} not in [{', '.join(label_literal(n, numeric) for n in others)}]"
    return drop if others and len(drop) < len(keep) else keep


@dataclass(frozen=True)
class Keeping:
    """How the function or command a user called (:data:`rlstats.errors.ENTRY`) keeps some agents or tasks: the one
    way on of every refusal that offers to leave some out, so that it is an option of what was called."""

    python: str        #: the option and its value: subset="agent in ['A', 'B']", agents=['A', 'B']
    command_line: str  #: the same as the command takes it: -o "subset=agent in ['A', 'B']", --agents A,B
    option: str        #: the option, named without its value: subset=, agents=
    flag: str          #: the same on the command line: -o subset=, --agents
    function: str      #: rlstats.compare, rlstats.power
    command: str       #: rlstats compare, rlstats power


def _csv_row(names: tuple[str, ...]) -> str:
    """Names as the command line's --agents and --tasks read them: a CSV row (a name with a comma in double quotes)."""
    import csv
    import io

    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(names)
    return out.getvalue()


def keeping(column: str, names: tuple[str, ...], others: tuple[str, ...] = (), numeric: bool = False,
            what: str = "agent", tasks: tuple[str, ...] | None = None) -> Keeping:
    """:class:`Keeping` of the rows of ``names`` of ``column`` (``what``: "agent" or "task"; ``others``: the rest,
    which a condition may drop instead): ``subset=`` for :func:`rlstats.compare` (:func:`subset_selecting`), ``agents=``
    or ``tasks=`` for :func:`rlstats.power` and :func:`rlstats.sample_size`, which take no ``subset=``. ``tasks``: the
    tasks those agents ran, where fewer than the data's: power's pilot keeps every task with ``agents=``, an empty one
    among them, which a back end then refuses (audit s28: a second refusal), while a ``subset=`` drops it with its
    rows."""
    entry = called_entry()
    if entry not in ("power", "sample_size"):  # the way of the function called (audit s35: one home, rows_way)
        function, takes = called_function()
        condition = subset_selecting(column, names, others, numeric)
        return Keeping(rows_way(function, takes, condition, named=False), "-o " + shell_word(f"subset={condition}"),
                       "subset=" if takes else "data=", "-o subset=", function, ENTRIES[entry][1])
    function, command = ENTRIES[entry]
    option = f"{what}s"
    python, command_line = f"{option}={list(names)!r}", f"--{option} {shell_word(_csv_row(names))}"
    if tasks is not None:
        python += f", tasks={list(tasks)!r}"
        command_line += f" --tasks {shell_word(_csv_row(tasks))}"
    return Keeping(python, command_line, f"{option}=" + (" and tasks=" if tasks is not None else ""),
                   f"--{option}" + (" and --tasks" if tasks is not None else ""), function, command)


#: The public functions that take the rows as data and no ``subset=``: their ways on select the rows first with a
#: boolean mask (:func:`called_function`, :func:`rows_way`).
WITHOUT_SUBSET = ("summarize_runs", "align_steps", "build")


#: the words of the rows a condition selects as a boolean mask, where what was called takes no ``subset=`` (build's
#: ``data=df[mask]``, power's pilot ``design=pilot[mask]``): Python code, which the command line says as its own way,
#: ``-o "subset=..."`` or the file filtered first (:func:`rlstats.cli._shared.in_command_words` reads it back;
#: new-user trial s33b)
MASK_WORDS = "a boolean mask of the rows where {condition} holds"


def _masked(condition: str, frame: str = "data=df") -> str:
    """``data=df[mask]`` (``frame``) of the rows ``condition`` selects, said in words: never text for an evaluator."""
    return f"{frame}[mask] ({MASK_WORDS.format(condition=condition)})"


def rows_way(function: str, takes_subset: bool, condition: str | None = None, named: bool = True) -> str:
    """The one wording of a way on that leaves rows out (audit s35: refusals sent a back end's own function's user to
    ``rlstats.compare(..., method=...)`` with ``subset=`` while notes said ``data=df[mask]``): ``subset=`` (with
    ``condition``, a condition in the grammar of :mod:`rlstats.conditions`, where given) where ``function``, the one
    the user called, takes it; else the rows selected first with a boolean mask and passed to ``function`` (said
    unless not ``named``: :class:`Keeping` names its function apart)."""
    if takes_subset:
        return "subset=" if condition is None else f"subset={condition!r}"
    if condition is None:
        return f"a boolean mask of the rows (data=df[mask] to {function})"
    return _masked(condition) + (f" to {function}" if named else "")


def called_function() -> tuple[str, bool]:
    """``(rlstats.<name>, takes subset=)``: the public function the user called (:data:`rlstats.errors.ENTRY`;
    compare's where none is set, or a name that is neither an entry nor a back end's own function, as through the
    command line) and whether it takes ``subset=``: compare and curves do; build, summarize_runs, align_steps
    (:data:`WITHOUT_SUBSET`) and the other back ends' own functions (adastop, bootstrap, mixed, ...) do not. power's
    and sample_size's ways are their own (:func:`keeping`, :func:`kept_by`)."""
    import inspect

    from .methods import METHODS, load

    called = ENTRY.get()
    if called in ENTRIES:
        return ENTRIES[called][0], called not in WITHOUT_SUBSET
    method = method_called()
    if method is None:
        return ENTRIES["compare"][0], True
    return f"rlstats.{called}", "subset" in inspect.signature(load(METHODS[method])).parameters


def leaving_out() -> str:
    """How the function a user called leaves rows out, said without a condition (:func:`rows_way`)."""
    if called_entry() in ("power", "sample_size"):
        return "subset="
    return rows_way(*called_function())


def tasks_way(formula: Any, tasks: Sequence[Any], keep: bool = False) -> str:
    """The way on that keeps (``keep``) or leaves out ``tasks`` of the blocks of ``formula`` (a Formula, or None) in
    the function called's words (:func:`rows_way`): with its condition where one column names the blocks (not a
    crossed ``task:seed``) and every label reads as text only
    (review s35b: "with subset=", no condition); else the way without a condition, saying what it would name. A label
    that could be a number, a boolean, a date or a missing value (a Design's labels are text, whatever the column
    held: ``task in ['2']`` is refused on a column of numbers) or holds a quote or backslash (a shell word the command
    line could not quote back; review s35c) gets no condition."""
    def text_only(label):
        if not isinstance(label, str) or not any(c.isalpha() for c in label) or any(c in label for c in "'\"\\"):
            return False
        if label.strip().lower() in ("true", "false", "nan", "none", "inf", "-inf", "na", "nat"):
            return False
        try:
            float(label)
        except ValueError:
            return True
        return False

    if called_entry() in ("power", "sample_size"):
        return leaving_out()
    function, takes_subset = called_function()
    column = None if formula is None or formula.crossed else formula.blocks
    if column is None or not tasks or not all(text_only(t) for t in tasks):
        return ("subset= (a condition naming them)" if takes_subset else rows_way(function, False))
    name = column if column.isidentifier() else f"`{column}`"
    labels = ", ".join(map(repr, tasks))
    return rows_way(function, takes_subset, condition=f"{name} {'in' if keep else 'not in'} [{labels}]")


def method_called() -> str | None:
    """The method name of the back end whose own function the user called (none through compare, power or the
    command line), read from the registry when asked: it loads the back ends' declarations. A way on naming another
    method reads it: ``method='task_table'`` is compare's spelling, which a back end's own function does not take."""
    from .methods import method_named

    return method_named(ENTRY.get())


def kept_by(condition: str) -> tuple[str, str]:
    """(Python, command line): how the function or command a user called keeps the rows ``condition`` (in the
    grammar of :mod:`rlstats.conditions`) selects (:func:`rows_way`): ``subset="..."`` where it takes one (compare,
    curves), the rows selected first with a boolean mask where it does not (build, summarize_runs, a back end's own
    function but curves'; power's pilot: never text handed to an evaluator outside that grammar), and
    ``-o "subset=..."`` on the command line (compare's, which its --summarize reads before the summary). Audit s28:
    summarize_runs was told to pass subset=, which it does not take; review s28: so was build."""
    said = "-o " + shell_word(f"subset={condition}")
    if called_entry() in ("power", "sample_size"):
        return _masked(condition, "design=pilot"), "a pilot file filtered first"
    return rows_way(*called_function(), condition), said


#: The column read_logs tells apart the attempts of a run started again from its first step in the same folder
#: with; design.py names them when their rows repeat a (run, step).
ATTEMPT = "attempt"


def subset_dropping_attempts(fields: dict[str, Any], column: str, keep: Any) -> str:
    """A ``subset=`` condition dropping one run's attempts but ``keep``: the rows equal to ``fields`` (the run's
    columns and values, numbers as numbers) whose ``column`` is not ``keep``, e.g. ``~(agent == 'ppo' & seed == 0 &
    attempt != 'PPO_2')``, in the grammar of :mod:`rlstats.conditions`. Every other run keeps its rows (audit s15:
    ``attempt == 'PPO_2'`` kept one run of three)."""
    def name(c):
        return c if c.isidentifier() else f"`{c}`"

    def literal(v):
        v = v.item() if isinstance(v, np.generic) else v
        return repr(str(v)) if not isinstance(v, (int, float)) or isinstance(v, bool) else repr(v)

    parts = [f"{name(c)} == {literal(v)}" for c, v in fields.items()] + [f"{name(column)} != {literal(keep)}"]
    return f"~({' & '.join(parts)})"


@dataclass(frozen=True)
class ComparisonGraph:
    """Which agents met on which tasks.

    Attributes
    ----------
    agents, tasks : tuple of str
    shared : ndarray of int, shape (n_agents, n_agents)
        Tasks on which both agents have runs (the diagonal: the agent's own tasks).
    group : ndarray of intp, shape (n_agents,)
        The connected component of each agent, numbered in the order of their first agent.
    task_group : ndarray of intp, shape (n_tasks,)
        The component of the agents of each task (-1 for a task without runs).
    """

    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    shared: np.ndarray
    group: np.ndarray
    task_group: np.ndarray
    numeric_agents: bool = False
    #: the blocks and the arms as the sentences call them: the formula's columns (``Design.block_word``,
    #: ``Design.arm_word``; audit s32 block32: "pairs of agents never ran on a common task" of ``ret ~ algo | env``)
    words: tuple[str, str] = ("task", "agent")

    @property
    def n_groups(self) -> int:
        """Number of connected components."""
        return int(self.group.max()) + 1 if self.group.size else 0

    @property
    def connected(self) -> bool:
        """Every pair of agents is linked through a chain of shared tasks."""
        return self.n_groups <= 1

    @property
    def groups(self) -> tuple[tuple[str, ...], ...]:
        """The agents of each component, in the agents' order."""
        return tuple(tuple(a for a, g in zip(self.agents, self.group) if g == i) for i in range(self.n_groups))

    @property
    def group_tasks(self) -> tuple[tuple[str, ...], ...]:
        """The tasks of each component."""
        return tuple(tuple(t for t, g in zip(self.tasks, self.task_group) if g == i) for i in range(self.n_groups))

    def met(self) -> np.ndarray:
        """(k, k) bool: True where the two agents share at least one task (and on the diagonal)."""
        return self.shared > 0

    def never_met(self) -> list[tuple[str, str]]:
        """Pairs (in the agents' order) that share no task, within and across groups."""
        u, v = np.nonzero(np.triu(self.shared == 0, 1))
        return [(self.agents[i], self.agents[j]) for i, j in zip(u, v)]

    def pairs_phrase(self, pairs: list[tuple[str, str]] | None = None, limit: int = 8) -> str:
        """'A-D, A-E and B-E' (the never-met pairs unless given), at most ``limit`` named."""
        pairs = self.never_met() if pairs is None else pairs
        said = dict(zip(self.agents, names_shown(self.agents)))  # quoted where a name holds a comma
        return join_and((f"{said.get(a, a)}-{said.get(b, b)}" for a, b in pairs), limit)

    def never_met_phrase(self, pairs: list[tuple[str, str]] | None = None) -> str:
        """'2 pairs of agents never ran on a common task (A-C and B-C)': how every result names the pairs it cannot
        compare on a task (the never-met pairs unless given), before saying what it does with them."""
        pairs = self.never_met() if pairs is None else pairs
        task, agent = self.words
        return (f"{count(len(pairs), 'pair')} of {plural(agent)} never ran on a common {task} "
                f"({self.pairs_phrase(pairs)})")

    def keepings(self, column: str) -> tuple[Keeping, ...]:
        """One :class:`Keeping` per group, selecting that group's agents."""
        groups = self.groups
        ran = tuple(t for t, g in zip(self.tasks, self.task_group) if g >= 0)  # the tasks with runs
        return tuple(keeping(column, g, tuple(a for other in groups if other is not g for a in other),
                             self.numeric_agents, tasks=tasks if len(tasks) < len(ran) else None)
                     for g, tasks in zip(groups, self.group_tasks))

    def refusal(self, column: str, what: str) -> DesignError:
        """The error of a back end that cannot compare agents of different groups.

        Parameters
        ----------
        column : str
            The agent column (the formula's groups), used in the ways to keep one group (:func:`keeping`).
        what : str
            What the back end would do across groups ("the rank test ranks every agent against every other").
        """
        def said(command_line):  # one line, as every rlstats error (the command line prints it after 'rlstats: error:')
            parts = []
            for i, (agents, tasks, kept) in enumerate(zip(self.groups, self.group_tasks, self.keepings(column))):
                if i == _SHOWN_GROUPS:
                    parts.append(f"... and {self.n_groups - _SHOWN_GROUPS} more groups")
                    break
                parts.append(f"group {i + 1}: {listed(agents, _SHOWN_NAMES)} (on {count(len(tasks), self.words[0])}: "
                             f"{listed(tasks, 5)}), {kept.command_line if command_line else kept.python}")
            way = (f"with its {kept.flag} ({kept.command})" if command_line else
                   f"by passing its {kept.option} to {kept.function}"
                   + (" (DataFrame.query reads the same text)" if kept.option == "subset=" else ""))
            agents = plural(self.words[1])
            return (f"the {agents} fall into {self.n_groups} groups that never ran on a common {self.words[0]}, so "
                    f"{agents} of "
                    f"different groups cannot be compared ({what}): " + "; ".join(parts)
                    + f"; analyse one group at a time {way}, or add runs that link the groups")

        return DesignError(said(False), command_line=said(True))

    def require_connected(self, column: str, what: str) -> None:
        """Raise :meth:`refusal` unless the agents form one group."""
        if not self.connected:
            raise self.refusal(column, what)


def comparison_graph(counts: np.ndarray, agents: tuple[str, ...], tasks: tuple[str, ...], *,
                     numeric_agents: bool = False, words: tuple[str, str] = ("task", "agent")) -> ComparisonGraph:
    """The comparison graph of a design's (n_tasks, n_agents) run counts.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 2], [0, 0, 0, 0]])
    >>> g = comparison_graph(counts, ("A", "B", "C", "D"), ("t1", "t2", "t3", "t4"))
    >>> g.groups, g.group_tasks, g.connected
    ((('A', 'B', 'C'), ('D',)), (('t1', 't2'), ('t3',)), False)
    >>> g.pairs_phrase([p for p in g.never_met() if "D" not in p])
    'A-C'
    """
    present = np.asarray(counts) > 0
    as_int = present.astype(np.int64)
    group = components(present)
    first = np.argmax(present, axis=1)  # any agent of the task gives its group
    task_group = np.where(present.any(axis=1), group[first] if group.size else -1, -1).astype(np.intp)
    return ComparisonGraph(agents=tuple(agents), tasks=tuple(tasks), shared=as_int.T @ as_int, group=group,
                           task_group=task_group, numeric_agents=numeric_agents, words=words)
