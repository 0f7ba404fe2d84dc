"""The one rule for outputs that rest on replication: which are withheld on a design, and the sentence that says why.

Each back end declares, in its ``_backend.py``, the outputs that need replication (:class:`~._declaration.Need`: a
possibly-best mark, an effect-size interval, a band, a per-task test, ...) and the least runs per agent and task,
or tasks, each needs.  :func:`verdict` reads those needs against a Design's cell counts: where a need is not met,
the output is withheld (the back end leaves its fields None or NaN and draws no mark) and the result says so in one
sentence with the way on; a need declared ``below="refuse"`` makes the design a DesignError with the same sentence.
Results quote no calibration row for a withheld value (:meth:`Verdict.shown`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

import re

from ..errors import DesignError, planned_runs
from ..format import count, join_and, listed, plural, singular, verb
from ._declaration import Need

#: cells or agents a sentence names before "and N more"
_NAMED = 4


@dataclass(frozen=True)
class Verdict:
    """Where each declared output of one back end is withheld on one design.

    ``withheld`` maps an output to a mask: (tasks, agents) for ``per="cell"`` and ``"pair"``, (agents,) for
    ``"agent"``, a 0-d array for ``"design"``; True where the output is withheld.  ``sentences`` maps each output
    withheld somewhere to the sentence that says why, in declaration order.
    """

    method: str
    needs: tuple[Need, ...]
    withheld: Mapping[str, np.ndarray] = field(default_factory=dict)
    sentences: Mapping[str, str] = field(default_factory=dict)

    @property
    def lines(self) -> list[str]:
        """The sentences, in declaration order, each once (a result's notes)."""
        return list(dict.fromkeys(self.sentences.values()))

    def mask(self, output: str, shape: Sequence[int]) -> np.ndarray:
        """Where ``output`` is withheld, broadcast to ``shape`` (all False when no need of it applies)."""
        found = self.withheld.get(output)
        return np.zeros(shape, dtype=bool) if found is None else np.broadcast_to(found, shape)

    def shown(self, output: str) -> bool:
        """Whether ``output`` is printed anywhere (so a calibration row may be quoted for it)."""
        found = self.withheld.get(output)
        return found is None or not bool(np.all(found))

    def everywhere(self, output: str) -> bool:
        """Whether ``output`` is withheld wherever it applies."""
        found = self.withheld.get(output)
        return found is not None and bool(np.all(found))


def declared(method: str) -> tuple[Need, ...]:
    """The replication needs ``method`` declares (an empty tuple when it declares none)."""
    from . import DECLARATIONS  # the registry imports every folder's declaration, which imports this module's peers

    return tuple(DECLARATIONS[method].replication or ())


def applies(need: Need, options: Any) -> bool:
    """Whether ``need`` applies under ``options`` (a mapping or an options object): each ``when`` pair holds."""
    def value(option):
        return options.get(option) if isinstance(options, Mapping) else getattr(options, option, None)
    return all(value(option) == wanted for option, wanted in need.when)


def verdict(method: str, counts: np.ndarray, *, options: Any = None,
            reference: np.ndarray | None = None, agents: Sequence[str] = (), tasks: Sequence[str] = (),
            outputs: Sequence[str] | None = None, words: tuple[str, str] = ("task", "agent"),
            formula: Any = None) -> Verdict:
    """Which of ``method``'s declared outputs are withheld on a design with these cell counts.

    Parameters
    ----------
    method : str
        The back end's name in the registry; its declaration's ``replication`` is read.
    counts : ndarray of int, shape (n_tasks, n_agents)
        Runs per task and agent (0: the agent did not run the task).
    options : mapping or options object, optional
        The options, against which each need's ``when`` is read.
    reference : ndarray of int, shape (n_tasks,), optional
        For ``per="pair"``: the agent each task's cells are compared with (the task's best).
    agents, tasks : sequence of str
        Names for the sentences.
    outputs : sequence of str, optional
        Only these outputs (default: every declared one).
    words : (str, str)
        The blocks and the arms as the sentences call them: the formula's columns (``Design.block_word``,
        ``Design.arm_word``; audit s32 block32: "runs per agent and task" of ``ret ~ algo | env``), in the
        sentences' own words and the unit a need counts in (:attr:`Need.counted`); a need's ``what`` and way on
        are the back end's, their "agent" and "task" said by these words too.
    formula : rlstats.formula.Formula, optional
        The call's formula: a way on that suggests a call (``rlstats.compare(df, "score ~ agent | task")``) writes it
        with the formula's own columns (audit s33 words33b: the advice printed ``score ~ agent | task`` whatever the
        data's columns were).

    Raises
    ------
    DesignError
        When a need declared ``below="refuse"`` is not met; the message is the sentence a result would print.
    """
    counts = np.asarray(counts)
    needs = tuple(n for n in declared(method) if applies(n, options) and (outputs is None or n.output in outputs))
    withheld, sentences = {}, {}
    for need in needs:
        mask = _mask(need, counts, reference)
        withheld[need.output] = mask
        if mask.any():
            text = _sentence(need, counts, mask, agents, tasks, reference, words, formula)
            if need.below == "refuse":
                raise DesignError(text)
            sentences[need.output] = text
    _merge_everywhere(needs, withheld, sentences, counts, words, formula)
    return Verdict(method=method, needs=needs, withheld=withheld, sentences=sentences)


def _merge_everywhere(needs, withheld, sentences, counts, words, formula=None):
    """Outputs withheld wherever they apply, for the same runs and the same way on, share one sentence."""
    groups = {}
    for need in needs:
        if need.output in sentences and need.per in ("cell", "pair") and withheld[need.output].sum() == \
                (counts > 0).sum() - (counts.shape[0] if need.per == "pair" else 0):
            groups.setdefault((need.runs, need.way_on), []).append(need)
    for (runs, way_on), group in groups.items():
        if len(group) > 1:
            present = counts[counts > 0]
            what = join_and(_said(n.what, words) for n in group)
            text = (f"{what} are withheld: they need at least {runs} {_counted(group[0], words)}, and every "
                    f"{group[0].cell} has {_have(present, group[0].counted.split()[0])}; "
                    f"{_way_on(group[0], words, formula)}")
            sentences.update({n.output: text for n in group})


def _mask(need, counts, reference):
    present = counts > 0
    short = present & (counts < need.runs)
    if need.per == "cell":
        return short
    if need.per == "pair":
        if reference is None:
            raise ValueError(f"the need of {need.output!r} is per pair: pass reference=")
        rows = np.arange(counts.shape[0])
        mask = present & (short | short[rows, reference][:, None])
        mask[rows, reference] = False  # the reference has no pair with itself
        return mask
    met = present & ~short
    if need.per == "agent":
        return met.sum(axis=0) < need.tasks if need.tasks > 1 else ~met.any(axis=0)
    return np.asarray(met.any(axis=1).sum() < need.tasks or not met.any())


#: a declaration's formula in a way on, which a verdict writes with the call's formula (:func:`_way_on`)
PACKAGE_FORMULA = '"score ~ agent | task"'
#: "agent", "tasks", "task-level" in a declaration's words, not "across-tasks" (a scope's name) nor "task_bootstrap"
_ROW_WORDS = re.compile(r"(?<![-\w])(agent|task)(s?)(?!\w)")


def _said(text, words):
    """``text`` with its "agent", "agents", "task" and "tasks" said by the formula's columns (``words``: block, arm)."""
    task, agent = words
    return _ROW_WORDS.sub(lambda m: (agent if m.group(1) == "agent" else task) if not m.group(2) else
                          plural(agent if m.group(1) == "agent" else task), text)


def _counted(need, words):
    """The unit ``need`` counts in, its "agent" and "task" said by the formula's columns (``words``)."""
    return _said(need.counted, words)


def _sentence(need, counts, mask, agents, tasks, reference, words=("task", "agent"), formula=None):
    """'<what> are withheld <where>: they need ...; <way on>.' (``words``: the blocks and the arms as said)"""
    task, agent = words
    what = _said(need.what, words)  # "per-task comparisons of algos" (audit s33 words33b)
    runs = f"at least {need.runs} {_counted(need, words)}"
    noun = need.counted.split()[0]
    present = counts > 0
    # what holds the count: the cell itself, or a part of it ("in every sweep the fewest-seeded configuration has")
    every = f"in every {need.cell} the {need.holder} has" if need.holder else f"every {need.cell} has"
    if need.per == "design":
        met = int((present & (counts >= need.runs)).any(axis=1).sum())
        fewer = (f"{every} {_have(counts[present], noun)}" if need.tasks == 1 else
                 f"{count(met, task)} {verb(met, 'has')} them")
        needs = runs if need.tasks == 1 else f"{runs} in at least {count(need.tasks, task)}"
        return f"{what} {_verb(need)}: they need {needs}, and {fewer}; {_way_on(need, words, formula)}"
    if need.per == "agent":
        names = [agents[i] if i < len(agents) else str(i) for i in np.flatnonzero(mask)]
        where = f"for every {agent}" if mask.all() else f"for {listed(names, _NAMED)}"
        in_tasks = f"some {task}" if need.tasks == 1 else f"at least {count(need.tasks, task)}"
        return (f"{what} {_verb(need)} {where}: they need at least {need.runs} {noun} in {in_tasks} "
                f"of each {agent}, and {'each has' if mask.sum() > 1 else 'it has'} "
                f"{_have(counts[:, mask][present[:, mask]], noun)} in every {task}; {_way_on(need, words, formula)}")
    both = f" (of both {plural(agent)} of the pair)" if need.per == "pair" else ""
    if mask.sum() == (present.sum() - (counts.shape[0] if need.per == "pair" else 0)):
        where, which = ((f"in every {need.cell}", every) if need.per == "cell" else
                        (f"in every {task}", "each pair's shorter side has"))
    else:
        cells = [f"{tasks[t] if t < len(tasks) else t}/{agents[a] if a < len(agents) else a}"
                 for t, a in zip(*np.nonzero(mask))]
        where = f"in {count(len(cells), need.cell)} ({listed(cells, _NAMED)})"
        one = len(cells) == 1
        which = ((f"{'its' if one else 'their'} shorter side has") if need.per != "cell" else
                 f"in {'it' if one else 'those'} the {need.holder} has" if need.holder else
                 "it has" if one else "those have")
    rows, columns = np.nonzero(mask)
    short = counts[rows, columns] if need.per == "cell" else np.minimum(counts[rows, columns],
                                                                         counts[rows, reference[rows]])
    return (f"{what} {_verb(need)} {where}: they need {runs}{both}, and {which} {_have(short, noun)}; "
            f"{_way_on(need, words, formula)}")


def _way_on(need, words=("task", "agent"), formula=None):
    """The need's way on, as the function the user called takes it: where power() simulated the runs, "add runs"
    is a number of seeds to simulate (audit s28: a plan was told to add runs to data it draws itself); its agents
    and tasks said by ``words`` and a call it suggests written with ``formula``'s columns (audit s33 words33b)."""
    parts = [_said(part, words) for part in need.way_on.split(PACKAGE_FORMULA)]
    way_on = (f'"{_suggested(formula)}"' if formula is not None else PACKAGE_FORMULA).join(parts)
    option = planned_runs()
    if option is None or not need.counted.startswith("runs"):
        return way_on
    return re.sub(r"\badd runs\b(?! that)", f"simulate at least {need.runs} seeds per cell ({option})", way_on)


def _suggested(formula):
    """The formula a way on suggests for the call's data: its own (``ret ~ algo | env/rep``), its blocks "task" where
    it names none (the suggestions compare across tasks)."""
    return formula.normal_form if formula.blocks is not None else f"{formula.normal_form} | task"


def _verb(need):
    return "are withheld" if need.below == "withhold" else "cannot be computed"


def _have(values, noun="runs"):
    """'one run', '3 runs', '1 to 3 runs' (``noun`` plural)."""
    values = np.asarray(values)
    low, high = int(values.min()), int(values.max())
    single = singular(noun)  # "one configuration", "one run": format's one rule of a noun's number
    if low != high:
        return f"{low} to {high} {noun}"
    return f"one {single}" if low == 1 else f"{low} {noun}"


def _untrimmed(counts, names):
    """(name, runs pooled) of the agents whose IQM trims nothing: pooled over their tasks, each weighed as if it had
    the agent's most runs (``AgentLayout.run_weight``), fewer than 4 runs, of which a quarter is less than one run, so
    the IQM is their mean (rliable's and scipy's ``trim_mean(0.25)`` alike: 3 runs on one task trim none, 3 on each
    of 2 tasks, 6 pooled, one at each end). ``counts`` (tasks, agents)."""
    counts = np.asarray(counts)
    pooled = counts.max(axis=0) * (counts > 0).sum(axis=0)
    return [(str(name), int(n)) for name, n in zip(names, pooled) if 0 < n < 4]


def untrimmed_iqm_label(counts, names, label="IQM"):
    """``label``, the IQM's, as a figure's axis, a legend, a header or a table names it, saying where it trims nothing
    (:func:`_untrimmed`): "IQM (the mean: 3 runs, none trimmed)" where no agent's IQM trims, "IQM (the mean for A: 3
    runs, none trimmed)" where some agents' do not (audit s33 msg33: "IQM" over the mean of 3 runs in a paper's
    figure); ``label`` itself where every agent's trims."""
    few = _untrimmed(counts, names)
    if not few:
        return label
    runs = _have([n for _, n in few])
    if len(few) == int((np.asarray(counts).sum(axis=0) > 0).sum()):
        return f"{label} (the mean: {runs}, none trimmed)"
    return f"{label} (the mean for {join_and([name for name, _ in few], limit=3)}: {runs}, none trimmed)"


def untrimmed_cells_label(counts, label="IQM"):
    """``label``, the IQM of each cell's runs (the task table's), saying where it trims nothing: a cell of fewer than
    4 runs, a quarter of which is less than one run, is their mean. "IQM (the mean: 3 runs, none trimmed)" where every
    cell has so few, "IQM (the mean in cells of fewer than 4 runs)" where some have; ``label`` where none has.
    Unlike :func:`_untrimmed`, nothing is pooled over tasks: each cell's IQM is of its own runs."""
    counts = np.asarray(counts)
    present = counts > 0
    few = present & (counts < 4)
    if not few.any():
        return label
    if few.sum() == present.sum():
        return f"{label} (the mean: {_have(counts[present])}, none trimmed)"
    return f"{label} (the mean in cells of fewer than 4 runs)"


def untrimmed_iqm_note(counts, names, label="IQM", task="task"):
    """The note of the agents whose IQM trims nothing (:func:`_untrimmed`), ``task`` the block column as a noun.
    ``counts`` (tasks, agents)."""
    few = [name for name, _ in _untrimmed(counts, names)]
    if not few:
        return []
    return [f"the {label} of {join_and(few, limit=5)} trims nothing: a quarter of fewer than 4 runs pooled over "
            f"{plural(task)} is less than one run, so it is their mean; an IQM needs 4 or more runs"]
