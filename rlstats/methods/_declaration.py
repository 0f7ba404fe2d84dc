"""What a back end declares about itself, once, in its folder's ``_backend.py``.

A folder's ``_backend.py`` holds ``BACKENDS``, a tuple of :class:`Backend`, and optionally ``PUBLIC`` (more
names the package face exports from the folder: name -> ``"module:attribute"``), ``CITATIONS`` (papers of the
folder's other results: class name -> keys of ``rlstats.citations.ENTRIES``) and ``VOCABULARY`` (the tidy,
glance and summary-table columns only its results report: ``(column, attribute, printed label, description)`` rows,
with an optional fifth value, True where every format heads the column by its label (``Term.every_format``), which
:mod:`rlstats.vocabulary` adds to the shared ones).  The registry
(:mod:`rlstats.methods`) collects them; ``compare``, ``power``, ``cite``, the command line and the contract tests
read them.  Functions and classes are named by ``"module:attribute"`` paths and imported on first use, so reading
the declarations imports no pandas or scipy (``rlstats --help`` lists the methods).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


def load(path: str) -> Any:
    """The object a ``"module:attribute"`` path names, importing its module."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class PowerRule:
    """How :func:`rlstats.power` simulates a back end: what it decides on and how it calls it.

    Hooks are ``"module:function"`` paths:

    * ``decide(result, alpha, template, seeds) -> (rejected, runs)``: arrays of one value per unit (the data set,
      or each task when ``per_task``) from the public function's Result;
    * ``sentence(power_result) -> str``: the rule, in the methods paragraph of a PowerResult;
    * ``call(options, seeds, alpha) -> dict``: the public function's keywords for data with ``seeds`` runs per
      cell (default: the options and ``alpha``);
    * ``outcomes(design, *, rng, **call)`` and ``decide_outcomes(outcomes, alpha, template, seeds)``: the same
      decision from numbers only, without tables or Result (optional, both or neither);
    * ``batch_pvalues(design, responses, **call)``: p-values of a batch of data sets at once, or None where no
      vectorised path applies (optional; a test that rejects when ``p <= alpha``);
    * ``batch_cost(design, n_sim, untied, **call) -> Work or None``: the estimated work of ``batch_pvalues`` on
      ``n_sim`` data sets of this design (``untied``: none has ties), None where it takes no vectorised path
      (required with ``batch_pvalues``: power()'s estimate prices the path it takes);
    * ``check(options)``: options power() reads itself (``extra_options``), checked once;
    * ``seed_unit(options) -> (unit, why)``: numbers of seeds must be multiples of ``unit`` (``why`` says so);
    * ``check_seeds(options, asked)``: the numbers of seeds a :func:`rlstats.power` study asks about, checked
      together before any is simulated, so that an error's advice fits them all (optional);
    * ``withhold(options, seeds, template) -> str or None``: why the rule's decision at ``seeds`` runs per cell is
      no test at its level (its power is then withheld: NaN, with the reason in a note), or None (optional);
    * ``level_spent(design, **call) -> float``: the level its test can spend on data of this design, 0 where it
      cannot reject (optional; otherwise the Result's ``level_spent``, or NaN).
    * ``plan(options, seeds) -> str``: the design the study assumed at the numbers of seeds ``seeds`` beyond the
      options given (AdaStop's n and K), printed in a note (optional).

    ``resampled_messages``: the starts of warnings the public function raises of a pilot's data sets because
    power() draws their runs with replacement (AdaStop's batches that repeat an earlier one): true of those data
    sets by construction and of none the user collected, so power() leaves them out of a pilot study's warnings.
    """

    #: stream key below each simulation's SeedSequence (not 0, 1, 2: its data set's draws until audit s35); fixed once
    #: given, so a seeded study gives the same numbers whatever other methods it simulates
    key: int
    #: what tables, figures and prose call the method ("blocked rank test")
    label: str
    decide: str
    sentence: str
    call: str | None = None
    outcomes: str | None = None
    decide_outcomes: str | None = None
    batch_pvalues: str | None = None
    batch_cost: str | None = None
    check: str | None = None
    seed_unit: str | None = None
    check_seeds: str | None = None
    withhold: str | None = None
    level_spent: str | None = None
    plan: str | None = None
    resampled_messages: tuple[str, ...] = ()
    #: one test per task: the rate is per (simulation, task); ``called`` names it in that note ("AdaStop")
    per_task: bool = False
    called: str | None = None
    #: options power() adds to the public function's, and ((option, what to give instead), ...) it replaces
    extra_options: tuple[str, ...] = ()
    replaced_options: tuple[tuple[str, str], ...] = ()
    #: a note every study of the method carries
    note: str | None = None
    #: it may stop before using every run: the prose reports the mean runs used
    reports_runs: bool = False
    #: how far its rate at 5 seeds strayed from the true power over 20 pilots drawn from one model (2 alike agents x
    #: 5 tasks of normal scores, agent_2 shifted by 1 within-cell SD, 200 data sets a pilot; tests/reference/
    #: pilot_spread.py), which power()'s small-pilot note quotes: (true power, ((pilot runs per cell, (10th, 50th,
    #: 90th percentile) with resample="agents", (10th, 50th, 90th) with "pooled"), ...)); None: not measured
    pilot_spread: tuple | None = None


@dataclass(frozen=True)
class Need:
    """An output that rests on replication, and the least replication it needs (issue 39, item 3).

    :func:`rlstats.methods._replication.verdict` reads a back end's needs against the Design's cell counts: below
    the need the output is withheld (``below="withhold"``: None or NaN fields, no marks, a sentence saying why and
    the way on) or the back end refuses the design (``below="refuse"``: DesignError with the same sentence).
    """

    #: the result field or tidy column it fills ("possibly_best", "intervals")
    output: str
    #: how a sentence names it, plural ("possibly-best marks", "effect-size intervals against the best")
    what: str
    #: least runs in each agent x task cell it rests on
    runs: int = 2
    #: where the need is read: "cell" (each agent x task cell on its own), "pair" (a cell and the reference cell of
    #: its task, such as the task's best), "agent" (an agent's output over tasks: withheld when none of its cells
    #: has ``runs``), "design" (one output over all cells: withheld when no cell has ``runs``)
    per: str = "cell"
    #: least tasks (with the cells above) the output needs
    tasks: int = 1
    #: one clause: how to get the output anyway ("add runs, or pass task_bootstrap=True")
    way_on: str = "add runs"
    #: what ``runs`` counts, after the number ("runs per agent and task"; tuning: "seeds in each configuration"),
    #: and what a sentence calls the unit it counts them in ("cell"; tuning: "sweep")
    counted: str = "runs per agent and task"
    cell: str = "cell"
    #: what in a cell the count is of, when not the whole cell (tuning: "fewest-seeded configuration"): a sentence
    #: then says "in every sweep the fewest-seeded configuration has one seed", not that the sweep has one
    holder: str = ""
    #: "withhold" the output where the need is not met, or "refuse" the design (DesignError)
    below: str = "withhold"
    #: ((option, value), ...): the need applies only when every named option of the result has that value
    when: tuple[tuple[str, Any], ...] = ()


#: the values of :attr:`Need.per` and :attr:`Need.below`
NEED_UNITS = ("cell", "pair", "agent", "design")
NEED_ACTIONS = ("withhold", "refuse")


@dataclass(frozen=True)
class Backend:
    """One back end: a name of ``compare(method=...)`` and everything the package needs to know about it.

    A part it lacks is None with the reason beside it (``no_power``, ``no_demo``); every back end has its
    options class.  ``tests/test_contract.py`` fails on a declaration with a part missing and no reason.
    """

    #: ``method=`` of compare() (and of power() when it has a power rule)
    name: str
    #: "module:function" of the public function, (data, formula, *, eval_env=None, **options) -> Result
    function: str
    #: "module:Class" of the Result it returns
    result: str
    #: keys of ``rlstats.citations.ENTRIES``: the papers of the method, in the order cite() gives them
    citations: tuple[str, ...]
    #: (formula, options) of the contract and figure tests on simulated data (tests/test_contract.py)
    contract: tuple[str, dict[str, Any]]
    #: "module:Class" of its options object: a frozen dataclass whose ``checked(**keywords)`` validates the
    #: public function's keywords once and raises OptionError naming the bad one (``SkillingsMackOptions``)
    options: str | None = None
    #: what power() decides on, or None and why
    power: PowerRule | None = None
    no_power: str | None = None
    #: (formula, options) of ``rlstats demo``, options a dict or "module:function(data) -> dict"; or None and why
    demo: tuple[str, dict[str, Any] | str] | None = None
    no_demo: str | None = None
    #: "module:function(result, keys) -> keys": the citations of one result, when they depend on it
    cite: str | None = None
    #: it reads learning curves (one row per run and step) rather than one row per run
    reads_curves: bool = False
    #: it reads the replicate levels itself (``| task/seed``, and ``| task/run/seed`` with seeds nested in runs): its
    #: public function calls ``design_of(..., reads_nesting=True)``, which keeps one row per seed and averages nothing
    reads_nesting: bool = False
    #: the default of compare() for formulas "with blocks" or "without blocks"
    default_for: str | None = None
    #: functions others reach by name (``rlstats.methods.operation``): name -> "module:function"
    operations: tuple[tuple[str, str], ...] = ()
    #: the outputs that rest on replication (:class:`Need`), or None and why none does (``no_replication``)
    replication: tuple[Need, ...] | None = None
    no_replication: str | None = None
    #: "module:function(shape, options) -> rlstats.cost.Work": the work a call does, counted from the Design's
    #: shape and the checked options before computing (:mod:`rlstats.cost`), written beside this declaration
    cost: str | None = None
    #: other packages' names of this method (R's, PMCMRplus', lme4's), each (name, what it is, what goes with it):
    #: compare(method=) refuses them naming this method (:data:`rlstats.methods.OTHER_NAMES`; audit s31 rfix31e)
    other_names: tuple[tuple[str, str, str], ...] = ()

    @property
    def function_name(self) -> str:
        return self.function.partition(":")[2]

    @property
    def result_name(self) -> str:
        return self.result.partition(":")[2]

    def problems(self, citation_keys: Iterable[str]) -> list[str]:
        """What this declaration lacks, as sentences (empty when it is complete); imports what it names."""
        found = []
        for part, path in (("function", self.function), ("result", self.result), ("options", self.options)):
            if path is not None and not _loads(path):
                found.append(f"{part} {path!r} does not import")
        if self.options is None:
            found.append("options: every back end checks its keywords in an options class (give its path)")
        elif _loads(self.options) and not _checks_itself(load(self.options)):
            found.append(f"options {self.options!r} must be a frozen dataclass with a checked() classmethod")
        for part, value, reason in (("power", self.power, self.no_power), ("demo", self.demo, self.no_demo)):
            if (value is None) == (reason is None):
                found.append(f"{part}: give it or the reason it is missing (no_{part}), not both or neither")
        if not self.citations or set(self.citations) - set(citation_keys):
            found.append(f"citations {self.citations!r}: each must be a key of rlstats.citations.ENTRIES")
        if len(self.contract) != 2 or not isinstance(self.contract[1], dict):
            found.append("contract must be (formula, options)")
        hooks = [self.cite, self.cost, *(path for _, path in self.operations)]
        if self.power is not None:
            rule = self.power
            hooks += [rule.decide, rule.sentence, rule.call, rule.outcomes, rule.decide_outcomes, rule.batch_pvalues,
                      rule.batch_cost, rule.check, rule.seed_unit]
            if (rule.outcomes is None) != (rule.decide_outcomes is None):
                found.append("power: outcomes and decide_outcomes go together")
            if (rule.batch_pvalues is None) != (rule.batch_cost is None):
                found.append("power: batch_pvalues and batch_cost go together (power()'s estimate prices its path)")
            if rule.per_task and not rule.called:
                found.append("power: a per-task rule needs called= (how a sentence names it)")
        if self.demo is not None and isinstance(self.demo[1], str):
            hooks.append(self.demo[1])
        found += [f"{path!r} does not import" for path in hooks if path is not None and not _loads(path)]
        for flag in ("reads_curves", "reads_nesting"):
            if not isinstance(getattr(self, flag), bool):
                found.append(f"{flag} must be True or False")
        if self.reads_nesting is True and self.reads_curves is True:
            found.append("reads_nesting and reads_curves exclude each other: step= refuses nested replicates "
                         "('| task/run/seed')")
        found += _need_problems(self.replication, self.no_replication)
        if self.default_for not in (None, "with blocks", "without blocks"):
            found.append("default_for must be None, 'with blocks' or 'without blocks'")
        return found


def _need_problems(needs, reason):
    """What a declaration's replication needs lack, as sentences."""
    if (needs is None) == (reason is None) or needs == ():
        return ["replication: give the outputs that need replication (Need) or the reason none does "
                "(no_replication), not both or neither"]
    found = []
    for need in needs or ():
        if not isinstance(need, Need):
            found.append(f"replication: {need!r} is not a Need")
            continue
        if need.per not in NEED_UNITS or need.below not in NEED_ACTIONS:
            found.append(f"replication {need.output!r}: per= must be one of {NEED_UNITS} and below= one of "
                         f"{NEED_ACTIONS}")
        if not (isinstance(need.runs, int) and need.runs >= 1 and isinstance(need.tasks, int) and need.tasks >= 1):
            found.append(f"replication {need.output!r}: runs and tasks must be whole numbers of at least 1")
        if not need.what or not need.way_on:
            found.append(f"replication {need.output!r}: say what it is (what=) and the way on (way_on=)")
    return found


def _checks_itself(options):
    """An options class as the back ends write them: a frozen dataclass with ``checked``."""
    parameters = getattr(options, "__dataclass_params__", None)
    return isinstance(options, type) and parameters is not None and parameters.frozen \
        and callable(getattr(options, "checked", None))


def _loads(path):
    try:
        load(path)
    except (ImportError, AttributeError):
        return False
    return True
