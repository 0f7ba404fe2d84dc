"""AdaStop's results: fields, tables and prose (reads fields, computes nothing)."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt
from . import plots as plots_adastop
from ._backend import DECISION_SYMBOLS, DECISION_WORDS, NO_DIFFERENCE, NO_DIFFERENCE_MARK
from ...errors import OptionError, agent_named
from ..._typing import ColumnNames, Label
from ...results import Result, resultclass
from ...vocabulary import label


#: what "larger" and "smaller" claim: the permutation test rejects identical score distributions, the sign of the
#: estimate (the mean difference) gives the side (the level is not held at equal means of different shapes)
_LARGER = "larger or smaller: their score distributions differ, the first agent's mean above or below"
#: what "no difference found" claims, and the value it is in the tables (audit s35: "equal", printed 99 times in the
#: demo, read as the agents' equality)
_NOT_REJECTED = (f"{NO_DIFFERENCE}: not shown to differ at this level, which does not show them equal (the value "
                 "'equal' in the decisions table, the AdaStop paper's name)")
#: what the level is for, in the methods paragraph (audit s21: the ``adastop.fwe_means`` rows of the calibration table)
def _level_for(agents):
    """What the level is for, the arms by the formula's column (``agents``, plural; audit s33 words33b)."""
    return (f" The level is exact when the {agents}' score distributions are identical, not when only their means "
            f"are equal: {agents} of equal mean but different shape can be declared different more often than alpha.")


def without_empty_reasons(decisions: pd.DataFrame) -> pd.DataFrame:
    """A copy of a decisions table as it is shown: its ``reason`` blank where a comparison has none (a decided one
    has no reason to continue), the column left out when none has one (a caption read "reason: NA", audit s12), and
    the decision ``equal`` said as :data:`NO_DIFFERENCE` (audit s35)."""
    shown = decisions.assign(reason=decisions["reason"].fillna(""),
                             decision=decisions["decision"].replace(DECISION_WORDS))
    return shown if (shown["reason"] != "").any() else shown.drop(columns="reason")


@resultclass
class AdaStopResult(Result):
    """Result of :func:`adastop`, :meth:`AdaStop.result` and (subclassed) :func:`permutation`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    decisions : DataFrame
        One row per comparison (and task when blocked): ``agent_1, agent_2,
        decision`` (``larger``, ``smaller``, ``equal``, ``continue``, read as
        "agent_1 is larger than agent_2"; ``equal``, the AdaStop paper's name,
        is a comparison not rejected, which print, summary and report say as
        "no difference found": it does not show the agents equal), ``interim`` (of the decision; the
        last interim tested for ``continue``), ``estimate`` (difference of the
        means of the runs used), ``n_1, n_2`` (runs used), ``boundary`` (the
        rejection boundary of ``|estimate|`` the comparison faced at that
        interim), ``boundary_mc_se`` (its Monte Carlo standard error: 0 where
        the interim's paths are enumerated exactly) and ``reason`` (why a
        comparison stayed undecided).  A decision whose statistic lies within
        2 Monte Carlo SE of its boundary is named in a note: another rng
        could take it the other way.
    runs_used : DataFrame
        Per agent (and task): runs used by the test and runs given.
    history : DataFrame
        Per comparison and interim tested: the signed mean difference, the
        statistic ``|mean difference|`` and the rejection (and early-accept)
        boundary it faced, on the same scale, each with its Monte Carlo
        standard error (``boundary_mc_se``, ``accept_boundary_mc_se``).
    steps : DataFrame
        The step-down trace: per interim and step, the size of the set
        tested (``n_comparisons``, the undecided comparisons), what alpha is
        divided by there (``alpha_divisor``: Holm's ``c``, the comparisons not
        yet rejected, under ``permutations="holm"``, those accepted early
        (``beta > 0``, decision ``equal``) included; 1 for the joint and pairwise schemes, which test the set at
        alpha), its boundaries, the largest and smallest statistic and what
        was decided.
    spending : DataFrame
        Per interim: permutation paths (exact or random), paths allowed over
        the boundary, level spent at that interim and cumulated, at alpha:
        under ``permutations="holm"`` what a comparison spends when it is
        the only one not yet rejected (c = 1); with c, each spends alpha / c
        on the same paths (the printed header gives it; ``holm_levels``
        holds it).
    scores : DataFrame
        The runs the test used: agent, interim, score (and task).
    holm_levels : DataFrame
        Under ``permutations="holm"``, per task tested (no rows for the
        other schemes): ``n_comparisons`` (Holm's J), ``alpha_divisor``
        (its c now, the comparisons not yet rejected), ``level_each`` (the
        level each comparison's own test spends at alpha / J over every
        interim, Holm's first step), ``level_all`` (the J comparisons'
        ``level_each`` summed: Bonferroni's sum, the family-wise bound of
        that step), ``interim`` (the last one run) and
        ``level_spent_each`` (spent at alpha / c by then; NaN with every
        comparison rejected). Each level is the exact sum of its grids'
        levels, rounded once.
    agents, tasks : tuple of str
    blocked : bool
        One test per task (``| task``).
    batch_size : int or None
        Runs per agent per interim (None when it differs between tasks).
    max_interims : int
        K.
    n_resamples : int
    alpha, beta : float
    level_spent : float
        The family-wise level the test can actually spend, sum of the
        per-interim levels (at most ``alpha``; the smallest over tasks).
        Under ``permutations="holm"`` with several comparisons: the level of
        a comparison tested at alpha (c = 1); the header gives each
        comparison's alpha / c.
    """

    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    blocked: bool
    batch_size: int | None
    max_interims: int
    n_resamples: int
    alpha: float
    beta: float
    level_spent: float
    decisions: pd.DataFrame
    runs_used: pd.DataFrame
    history: pd.DataFrame
    steps: pd.DataFrame
    spending: pd.DataFrame
    scores: pd.DataFrame
    holm_levels: pd.DataFrame

    _plot_kinds: ClassVar[dict] = {
        "decisions": plots_adastop.plot_decision_matrix,
        "scores": plots_adastop.plot_scores,
        "boundaries": plots_adastop.plot_boundaries,
    }

    # ---- counts ------------------------------------------------------------------
    def _count(self, *names):
        return int(self.decisions["decision"].isin(names).sum())

    @property
    def n_comparisons(self) -> int:
        return len(self.decisions)

    @property
    def done(self) -> bool:
        """Every comparison is decided."""
        return self._count("continue") == 0

    def decision_matrix(self, task: Label | None = None) -> pd.DataFrame:
        """Square DataFrame of decisions: cell (row, column) reads "row is ... than column".

        Symbols: ``>`` larger, ``<`` smaller, ``ns`` no difference found (decision ``equal``), ``?`` undecided,
        ``\u2013`` withheld (an agent has too few runs on the task), empty where
        the pair was not compared.
        """
        frame = self._task_rows(self.decisions, task)
        matrix = pd.DataFrame("", index=list(self.agents), columns=list(self.agents), dtype=object)
        flip = {">": "<", "<": ">", NO_DIFFERENCE_MARK: NO_DIFFERENCE_MARK, "?": "?", "\u2013": "\u2013"}
        for a, b, d in zip(frame["agent_1"], frame["agent_2"], frame["decision"]):
            matrix.loc[a, b] = DECISION_SYMBOLS[d]
            matrix.loc[b, a] = flip[DECISION_SYMBOLS[d]]
        return matrix

    def _task_rows(self, frame, task):
        if not self.blocked:
            return frame
        if task is None:
            if len(self.tasks) > 1:
                raise OptionError(f"the result holds {len(self.tasks)} tasks; pass task= one of: "
                                  f"{', '.join(self.tasks)}")
            task = self.tasks[0]
        task = agent_named(self.tasks, "task", task, what="task")  # the one rule: task=0 names the task printed 0
        return frame[frame["task"] == task]

    # ---- printing -----------------------------------------------------------------
    def _level_phrase(self):
        """The level spent as printed: one number, or the range over tasks where their permutation grids spent
        different levels (audit s8: one task's level was printed for every task; ``level_spent`` is the smallest)."""
        spent = self.spending.groupby("task", sort=False)["level"].last() if "task" in self.spending else None
        if spent is None or spent.nunique() < 2:
            return fmt.signif(self.level_spent, 4)
        return f"{fmt.signif(spent.min(), 4)} to {fmt.signif(spent.max(), 4)} by task"

    def _holm_tasks(self):
        """Per task (None for one test): its row of ``holm_levels`` (Holm's J, c and the levels each comparison
        spends), under ``permutations="holm"`` where some task has J > 1; empty otherwise (with one comparison, or
        another scheme, the schedule's level is what a comparison spends)."""
        rows = self.holm_levels
        if rows.empty or not (rows["n_comparisons"] > 1).any():
            return {}
        tasks = rows["task"] if "task" in rows else [None] * len(rows)
        return dict(zip(tasks, rows.itertuples(index=False)))

    def _holm_phrase(self, shares):
        """The header's level under Holm's step-down: alpha / c for each comparison's own test, c not yet rejected;
        at the first step (c = J) each spends the first number, the J of them the second at most (Bonferroni's
        sum, the family-wise bound); by task where the tasks' J or grids differ."""
        said = {}
        for task, row in shares.items():
            said.setdefault((int(row.n_comparisons), fmt.signif(row.level_each, 4), fmt.signif(row.level_all, 4)),
                            []).append(task)
        # a grid that spends nothing says so with the level it cannot reach (audit s32: "0 each at c = 3" read as
        # alpha / c = 0)
        text = "; ".join((f"{each} each at c = {j}, {total} in all" if each != "0" else
                          f"alpha / {j} = {fmt.signif(self.alpha / j, 3)} at c = {j}, of which no level can be spent "
                          f"at these runs (0 each), so no comparison can reject")
                         + (f" on {fmt.join_and(tasks, 5)}" if len(said) > 1 else "")
                         for (j, each, total), tasks in said.items())
        return f"level per comparison = alpha / c, c not yet rejected (Holm's step-down): {text}"

    def _withheld_phrase(self):
        n = self._count("withheld")
        return f", withheld = {n}" if n else ""

    def _spent_phrase(self):
        """While some comparison is undecided: the level spent by the last interim tested (of each task), which
        the schedule's level (``level_spent``, Q_K) is not until interim K (audit s13: "level spent = 0.04994"
        was printed after interim 1 of 4, when 0.007937 was spent)."""
        if self.done:
            return ""
        spending, decisions = self.spending, self.decisions.dropna(subset=["interim"])
        if decisions.empty:
            return ""
        by_task = "task" in spending and "task" in decisions
        groups = decisions.groupby("task", sort=False)["interim"].max() if by_task else \
            pd.Series({None: decisions["interim"].max()})
        spent = {}
        for task, k in groups.items():
            rows = spending[(spending["interim"] == k) & ((spending["task"] == task) if by_task else True)]
            # interim 0: no batch fed yet (or every comparison of the task withheld), so nothing spent (audit s16:
            # printing an AdaStop before its first batch raised IndexError)
            spent[task] = (int(k), float(rows["level"].iloc[-1]) if len(rows) else 0.0)
        shares = self._holm_tasks()
        if shares:  # each undecided comparison's own test at alpha / c, c as it stands now (tasks still going)
            going = decisions["decision"] == "continue"
            going = set(decisions.loc[going, "task"]) if by_task else {None}
            spent = {task: (k, shares[task].level_spent_each if k else 0.0)
                     for task, (k, _) in spent.items() if task in shares and task in going}
            if not spent:
                return ""
            cs = sorted({int(shares[task].alpha_divisor) for task in spent})
            at = f"c = {cs[0]}" if len(cs) == 1 else f"c = {cs[0]} to {cs[-1]} by task"
        levels = sorted(level for _, level in spent.values())
        interims = {k for k, _ in spent.values()}
        if interims == {0}:
            return ", nothing spent yet (no interim run)"
        each = " per undecided comparison" if shares else ""
        at = f" at {at}" if shares else ""
        if len(set(levels)) == 1 and len(interims) == 1:
            return f", of which {fmt.signif(levels[0], 4)}{each} spent by interim {interims.pop()}{at}"
        return (f", of which {fmt.signif(levels[0], 4)} to {fmt.signif(levels[-1], 4)}{each} spent so far by "
                f"task{at}")

    def _statistic_line(self):
        return (f"rejected = {self._count('larger', 'smaller')}, {NO_DIFFERENCE} = {self._count('equal')}, "
                f"undecided = {self._count('continue')}{self._withheld_phrase()} (of "
                f"{fmt.count(self.n_comparisons, 'comparison')}), {self._level_words()} (alpha = {self.alpha})"
                f"{self._spent_phrase()}")

    def _spendable_words(self):
        """The methods paragraph's level: the schedule's, or Holm's alpha / c of each comparison's own test."""
        shares = self._holm_tasks()
        if not shares:
            return f"the level actually spendable is {self._level_phrase()}"
        return ("each comparison's own test spends alpha / c in its place, c the comparisons not yet rejected (Holm's "
                "step-down; " + self._holm_phrase(shares).split(": ", 1)[1] + ")")

    def _level_words(self, name="schedule's level"):
        """What the test spends, as the header says it: the schedule's level (``name = ...``), or under Holm's
        step-down the level of each comparison's own test (audit s30: the header printed the schedule's alpha grid,
        which no holm comparison spends while c > 1)."""
        shares = self._holm_tasks()
        return self._holm_phrase(shares) if shares else f"{name} = {self._level_phrase()}"

    def _design_line(self):
        n = (f"n = {fmt.count(self.batch_size, 'run')}" if self.batch_size is not None else
             f"n runs (per {self._block_word})")
        line = (f"{n} per {self._arm_word} per interim, at most K = {fmt.count(self.max_interims, 'interim')}; "
                "permutation paths: "
                f"{_per_task(self, self._paths_how)}")
        line += _scheme_phrase(self, f"every {self._arm_word} still running")
        if self.beta > 0:
            line += f"; early accept with beta = {self.beta}"
        return line

    def _paths_how(self, spending):
        """How the permutation paths of these rows of ``spending`` were drawn, interim by interim."""
        paths = spending.drop_duplicates("interim")
        exact = [int(k) for k, e in zip(paths["interim"], paths["exact"]) if e]
        if len(exact) == len(paths):
            return "every path enumerated exactly"
        if exact:
            return (f"enumerated exactly at {fmt.plural('interim', len(exact))} {_ranges(exact)}, "
                    f"then {fmt.count(self.n_resamples, 'random path')}")
        return f"{fmt.count(self.n_resamples, 'random path')} (identity included)"

    def _extra_lines(self):
        lines = [self._design_line(),
                 f"decisions (the first agent against the second; {_LARGER}; {_NOT_REJECTED}):"]
        # the boundaries stay in tidy() and the summary; the printed flag of a close one is the Monte Carlo note
        shown = without_empty_reasons(self.tidy().drop(columns=["boundary", "boundary_mc_se"]))
        lines += ["  " + line for line in fmt.table_text(shown, labels=True).splitlines()]
        lines.append("runs used per agent:")
        used = self.runs_used.pivot(index="task", columns="agent", values="n_runs") if self.blocked \
            else self.runs_used.set_index("agent")[["n_runs"]].T
        used = used.reindex(columns=[a for a in self.agents if a in used.columns])
        used = used.reset_index(drop=not self.blocked, allow_duplicates=True)  # an agent named 'task'
        used.columns = [str(c) for c in used.columns]
        used.attrs["rlstats_label_columns"] = int(self.blocked)  # agents, headed by their names (an agent_1 too)
        lines += ["  " + line for line in fmt.table_text(used).splitlines()]
        # the notes say it is one test per task (audit s25 polish25: a line and a note said it twice; s27: the
        # permutation test's too, _api._per_task_notes)
        return lines

    def _summary_tables(self):
        decisions = without_empty_reasons(self.tidy())  # as printed
        steps = self.steps
        if not self._steps_acted():  # the pair acted on, left out where none was (a caption read "agent 1: NA")
            steps = steps.drop(columns=["agent_1", "agent_2"])
        history = self.history if "decision" not in self.history else self.history.assign(
            decision=self.history["decision"].replace(DECISION_WORDS))
        return {"Decisions": decisions,
                "Runs used per agent": self.runs_used,
                "Statistic |mean difference| and boundaries per interim": history,
                "Step-down": steps,
                "Level spent per interim": self.spending}

    def _summary_keys(self):
        # which way the estimate reads, under the table in text, Markdown and HTML as the captions say it in LaTeX
        # (review27b: only LaTeX said it, where the mixed model's, rank tests' and equivalence's keys say it in all)
        return {"Decisions": f"estimate: mean of the {label('agent_1')} minus mean of the {label('agent_2')} over the "
                             "runs used at the decision's interim"}

    def _steps_acted(self):
        """Whether a step of the step-down rejected or accepted a pair (a test can reach no decision at any step)."""
        return bool((self.steps["action"] != "none").any())

    def _latex_captions(self):
        """What each summary table's numbers are, for a table pasted alone into a paper (audit s16: the captions said
        neither which way "larger" reads, nor what the estimate and boundary are, and the level table of a test
        that had run 1 of 4 interims listed all 4 under "Level spent per interim")."""
        # only the words that occur: a finished test has no "continue", a permutation test never has
        others = "".join(f"; {word}: {meaning}" for word, meaning in (("continue", "undecided"),
                                                                      ("withheld", "too few runs"))
                         if self._count(word))
        estimate = "estimate: mean of the first agent minus mean of the second"
        decisions = (f"decision: the first agent against the second ({_LARGER}; {_NOT_REJECTED}{others}); {estimate} over the runs used ({label('n_1')}, {label('n_2')}) at the "
                     "decision's interim; boundary: the rejection boundary of |estimate| at that interim.")
        if "p_adjusted" in self.tidy():
            decisions += f" {label('p_adjusted')}: the step-down adjusted p-value."
        early = self.beta > 0
        pair, unacted = f" ({label('agent_1')}, {label('agent_2')})", ""
        interims = sorted(set(self.steps["interim"]))
        if not interims:  # before the first batch there is no step at all, so no pair acted on (audit s26)
            pair = ""
        elif not self._steps_acted():
            said = (f"interim {interims[0]}" if len(interims) == 1 else
                    f"interims {interims[0]}-{interims[-1]}" if interims[-1] - interims[0] == len(interims) - 1 else
                    f"interims {fmt.listed(interims)}")
            pair, unacted = "", f" No step rejected{' or accepted' if early else ''} a pair at {said}."
        captions = {
            "Decisions": decisions,
            "Runs used per agent": f"{label('n_runs')}: runs the test used; {label('n_available')}: runs given; "
                                   f"{label('mean')}: of the runs used.",
            "Statistic |mean difference| and boundaries per interim":
                f"{estimate} over the runs of interims 1 to this one; statistic: |estimate|, rejected above the "
                f"boundary{f'; accept boundary: stopped below it as {NO_DIFFERENCE}' if early else ''}; decision: as it "
                "stood after this interim.",
            "Step-down": f"{label('n_comparisons')}: the undecided comparisons tested at that step; "
                         f"{label('alpha_divisor')}: each is tested at alpha / it (Holm's c, the comparisons not "
                         f"yet rejected; 1: the set tested jointly at alpha); "
                         f"{label('max_statistic')} and {label('min_statistic')}: the largest and smallest |mean "
                         f"difference| among them; {label('action')}: reject "
                         f"the pair with the largest when it exceeds the boundary{pair}"
                         f"{', accept the pair with the smallest below the accept boundary' if early else ''}, else "
                         f"none.{unacted}",
        }
        # the columns as the LaTeX table heads them (audit s25: the caption named paths\_beyond, n\_paths)
        beyond, paths, interim = label("paths_beyond"), label("n_paths"), label("level_interim")
        level = (f"{beyond}: permutation paths allowed above the boundary, of the {paths}; {interim}: the level of "
                 f"that interim, {beyond} / {paths}; {label('level')}: cumulated up to it.")
        if self._holm_tasks():  # audit s30: no holm comparison spends alpha's grid while others are not rejected
            level += (" At alpha, as a comparison spends it when it is the only one not yet rejected (Holm's c = 1); "
                      "with c each spends alpha / c on the same paths.")
        tested = self.decisions.loc[self.decisions["decision"] != "withheld", "interim"]
        last = int(tested.max()) if len(tested) else 0
        if "task" in self.decisions and self.decisions["task"].nunique() > 1:  # one test per task, each its own stop
            level += self._unrun_interims()
        elif last < self.max_interims and (last > 0 or not self.done):  # (a done test at 0 withheld everything)
            left = self.max_interims - last  # the interims after the last run
            later = self._interims_after(last)
            levels = "its level is" if left == 1 else "their levels are"
            level += (f" {later.capitalize()} {fmt.verb(left, 'is')} not run yet: {levels} the schedule's."
                      if not self.done
                      else f" The test stopped at interim {last}: {later} {fmt.verb(left, 'was')} not run, "
                           f"{levels} the schedule's.")
        captions["Level spent per interim"] = level
        return captions

    def _unrun_interims(self):
        """The level caption's sentence for tests per task: which interims of which tasks were not run (audit s16:
        it named the latest stop alone, "the test stopped at interim 3", with tasks stopped at 1 and 2)."""
        tested = self.decisions[self.decisions["decision"] != "withheld"]
        last = tested.groupby("task", sort=False)["interim"].max()
        going = set(self.decisions.loc[self.decisions["decision"] == "continue", "task"])  # still to test
        groups = {}  # (last interim tested, still going) -> tasks
        for task in dict.fromkeys(self.decisions["task"]):
            stop = int(last.get(task, 0))
            if stop < self.max_interims and (stop > 0 or not self.done):  # (done at 0: every comparison withheld)
                groups.setdefault((stop, task in going), []).append(str(task))
        if not groups:
            return ""
        parts = [f"{self._interims_after(stop)} of {fmt.listed(tasks, 8)}" + (" (not yet)" if yet else "")
                 for (stop, yet), tasks in sorted(groups.items())]
        return f" Not run (their levels are the schedule's): {'; '.join(parts)}."

    def _interims_after(self, stop):
        """The interims after ``stop``, as the level caption names them: "interims 3-6", or "interim 6"."""
        last = self.max_interims
        return f"interims {stop + 1}-{last}" if stop + 1 < last else f"interim {last}"

    # ---- tidy output ----------------------------------------------------------------
    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per comparison (and task): decision, interim, estimate, runs used, reason."""
        return self.decisions.copy()

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """The whole test in one row."""
        return pd.DataFrame([{
            "method": self.method, "n_agents": len(self.agents), "n_tasks": len(self.tasks),
            "n_comparisons": self.n_comparisons, "n_rejected": self._count("larger", "smaller"),
            "n_equal": self._count("equal"), "n_undecided": self._count("continue"),
            "n_withheld": self._count("withheld"),
            "batch_size": self.batch_size, "max_interims": self.max_interims, "n_resamples": self.n_resamples,
            "alpha": self.alpha, "beta": self.beta, "level_spent": self.level_spent,
            "n_runs_used": int(self.runs_used["n_runs"].sum()), "n_obs": self.nobs,
        }])

    def _prose(self):
        """A methods-section paragraph: the design of the test and its decisions."""
        agents = fmt.plural(self._arm_word)  # the data's arms by their column (audit s33 words33b)
        text = (f"We compared {_agents_compared(self, agents)} with AdaStop "
                f"(Mathieu et al., 2023), a group-sequential permutation test with step-down multiple "
                f"testing of {_family(self)}: {self._design_line()}. The family-wise error was set to "
                f"alpha = {self.alpha} with linear spending (alpha * k / K, rounded down to the permutation "
                f"grid), so {self._spendable_words()}; the statistic "
                f"is the absolute difference of the {agents}' means, its permutation paths are shared by all "
                f"comparisons and extend from one interim to the next, and paths that crossed an earlier "
                f"boundary are discounted (conditioning on non-rejection).") + _level_for(agents)
        if self.seed is not None and not self.spending["exact"].all():
            text += f" Random permutation paths used seed {fmt.short_seed(self.seed)}."
        if self.level_spent == 0 and not self._count("larger", "smaller"):
            text += " With these n and K no level can be spent, so the test could not reject anything."
        # one test per task: a paragraph each, the notes after them (audit s25 polish25: the demo's 12 tasks and 108
        # comparisons were one paragraph); one test: one paragraph
        apart = "\n\n" if self.blocked and len(self.tasks) > 1 else " "
        for task in self.tasks:
            rows = self.decisions if not self.blocked else self.decisions[self.decisions["task"] == task]
            where = f"On {task}, " if self.blocked else ""
            if not len(rows):  # every pair asked for has an agent without runs there (reference=, comparisons=)
                text += apart + where + _NO_PAIR
                continue
            text += apart + where + _sentence_of_decisions(rows)
            used = self.runs_used if not self.blocked else self.runs_used[self.runs_used["task"] == task]
            text += f" Runs used: {fmt.name_list(used['agent'], after=used['n_runs'])}."
        return text  # one test per task: said by the notes, which follow


def _agents_compared(result, agents):
    """"3 agents (A, B, C)", or "2 of the 3 agents (A, B; C in no comparison)" where some agent is in no row of the
    decisions: comparisons= left it out, or reference= names an agent it shares no task with (audit s37 claims37:
    reference="A" with C on no task of A's read "We compared 3 agents (A, B, C)")."""
    named = set(result.decisions["agent_1"]) | set(result.decisions["agent_2"])
    inside = [a for a in result.agents if a in named]
    if len(inside) == len(result.agents):
        return f"{len(result.agents)} {agents} ({fmt.name_list(result.agents)})"
    outside = [a for a in result.agents if a not in named]
    return (f"{len(inside)} of the {len(result.agents)} {agents} ({fmt.name_list(inside)}; "
            f"{fmt.name_list(outside)} in no comparison)")


def _scheme_phrase(result, who="every agent still running"):
    """How the paths act on the data; nothing with two agents, where both schemes are the same test."""
    if len(set(result.decisions["agent_1"]) | set(result.decisions["agent_2"])) < 3:
        return ""
    if result.options.get("permutations") == "pairwise":
        return (", each choosing n of the 2n slots of every pair (the paper's pairwise scheme; its "
                "family-wise error can exceed alpha with three agents or more)")
    if result.options.get("permutations") == "holm":
        return (", each choosing n of the 2n slots of every pair; each comparison tested on its own pair's paths "
                "at alpha / c with c comparisons not yet rejected (Holm's step-down)")
    return f", each relabelling the pooled runs of {who}"


def _family(result):
    """The comparisons of each task's test: one number, or their range where the tasks' agents differ (audit s14:
    a pair with an agent absent from a task is no comparison there)."""
    decisions = result.decisions
    sizes = decisions.groupby("task", sort=False).size() if "task" in decisions else [len(decisions)]
    low, high = int(min(sizes)), int(max(sizes))
    if low == high:
        return fmt.count(low, "pairwise comparison")
    return f"{low} to {high} pairwise comparisons by task"


def _per_task(result, how):
    """``how(spending)`` of the whole test where every task's reads the same, else each reading with its tasks
    ("10 paths on task_02 and task_03; 200 random paths on task_01"): one task's reading said of all would be false
    of the others where their runs or agents differ (audit s19)."""
    spending = result.spending
    if not result.blocked or "task" not in spending or spending["task"].nunique() < 2:
        return how(spending)
    said = {task: how(rows) for task, rows in spending.groupby("task", sort=False)}
    if len(set(said.values())) == 1:
        return next(iter(said.values()))
    return "; ".join(f"{text} on {fmt.join_and((t for t, h in said.items() if h == text), limit=10)}"
                     for text in dict.fromkeys(said.values()))


def _ranges(values):
    """[1, 2, 3, 5] -> '1-3, 5'."""
    parts, start = [], None
    for i, v in enumerate(values):
        if start is None:
            start = v
        if i + 1 == len(values) or values[i + 1] != v + 1:
            parts.append(str(start) if start == v else f"{start}-{v}")
            start = None
    return ", ".join(parts)


#: A task of a blocked test on which no pair asked for ran (audit s37 claims37: with reference="A" on tasks A never
#: ran, AdaStop's report read "On t2, decisions: . Runs used: B 0, C 0." and the permutation test's "On t2, every
#: comparison was withheld (too few runs)." of B and C's 5 runs each)
_NO_PAIR = "no comparison: each pair compared has an agent without runs there."


def _sentence_of_decisions(rows):
    """The decisions of one test: each rejection, then the comparisons not shown to differ grouped by the interim
    and runs they stopped at (said once: audit s25 polish25, the same words a hundred times), then the others."""
    parts, equal, later = [], {}, []
    for a, b, d, k, e, n1, n2, reason in zip(rows["agent_1"], rows["agent_2"], rows["decision"], rows["interim"],
                                             rows["estimate"], rows["n_1"], rows["n_2"], rows["reason"]):
        if d == "equal":
            equal.setdefault((k, n1, n2), []).append(f"{a} vs {b} ({fmt.signif(e, 4)})")
        elif d == "continue":  # a reason only when the test stopped with it undecided (runs exhausted)
            later.append(f"{a} vs {b} undecided ({reason})" if isinstance(reason, str) and reason
                         else f"{a} vs {b} undecided so far")
        elif d == "withheld":
            later.append(f"{a} vs {b} {reason}")
        else:
            word = {"larger": "larger than", "smaller": "smaller than"}[d]
            parts.append(f"{a} {word} {b} (interim {k}, {n1} and {n2} runs, mean difference {fmt.signif(e, 4)})")
    # "equal" is the test's name for not rejecting: the report does not claim the agents are the same
    parts += [f"not shown to differ at interim {k} with {n1} and {n2} runs (mean difference in parentheses): "
              f"{', '.join(pairs)}"
              for (k, n1, n2), pairs in equal.items()]
    return "decisions: " + "; ".join(parts + later) + "."


@resultclass
class PermutationResult(AdaStopResult):
    """Result of :func:`permutation`: :class:`AdaStopResult` with step-down adjusted p-values.

    Its other fields are :class:`AdaStopResult`'s, read as there: ``decisions``, ``runs_used``, ``history``,
    ``steps``, ``spending``, ``scores``, ``agents``, ``tasks``, ``blocked``, ``batch_size``, ``max_interims``,
    ``n_resamples``, ``alpha``, ``beta``, ``level_spent`` and ``holm_levels``.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    p_adjusted : ndarray
        Step-down adjusted p-value of each row of ``decisions``: Holm's (each
        comparison's own permutation p-value times c, with their running
        maximum) under the default ``permutations="holm"``, Westfall-Young's
        max-``|T|`` under ``"joint"``; ``p_adjusted <= alpha`` exactly when the
        comparison is rejected.
    statistic : ndarray
        The mean difference of each comparison (``decisions["estimate"]``).
    pvalue : ndarray
        The same as ``p_adjusted``: the test's p-value of each comparison.
    """

    p_adjusted: np.ndarray | None = None

    @property
    def statistic(self) -> np.ndarray:
        """The mean difference (agent_1 - agent_2) of each comparison, in the order of ``decisions``."""
        return self.decisions["estimate"].to_numpy(dtype=float)

    @property
    def pvalue(self) -> np.ndarray | None:
        """The test's p-value of each comparison: the step-down adjusted ``p_adjusted`` (scipy's name)."""
        return self.p_adjusted

    def _statistic_line(self):
        smallest = float(np.nanmin(self.p_adjusted)) if np.isfinite(self.p_adjusted).any() else math.nan
        return (f"rejected = {self._count('larger', 'smaller')} of {fmt.count(self.n_comparisons, 'comparison')}"
                f"{self._withheld_phrase()}, smallest adjusted {fmt.pvalue_phrase(smallest)}, "
                f"{self._level_words('level spent')} (alpha = {self.alpha})")

    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per comparison: decision, estimate, runs, and the step-down adjusted p-value."""
        out = self.decisions.copy()
        out["p_adjusted"] = self.p_adjusted
        return out

    def _design_line(self):
        def how(spending):
            parts = []
            for n, m, exact in spending[["batch_size", "n_paths", "exact"]].drop_duplicates().itertuples(index=False):
                drawn = (f"all {fmt.integer(m)} permutations enumerated (one of each complementary pair)" if exact
                         else f"{fmt.count(m, 'random permutation')} (identity included)")
                parts.append(f"n = {fmt.count(n, 'run')} per {self._arm_word}, {drawn}")
            return "; ".join(parts)

        return _per_task(self, how) + _scheme_phrase(self, who=f"every {self._arm_word}")

    def _prose(self):
        """A methods-section paragraph: the test, its level and its decisions."""
        agents = fmt.plural(self._arm_word)  # the data's arms by their column (audit s33 words33b)
        text = (f"We compared {_agents_compared(self, agents)} with a permutation test of "
                f"the differences of their mean scores, {_family(self)}, with step-down multiple testing "
                f"({'Holm, 1979' if self._holm_tasks() else 'Romano and Wolf, 2003'}; AdaStop's machinery with one "
                f"interim, Mathieu et al., 2023): "
                f"{self._design_line()}, one permutation shared by all comparisons. The family-wise error was "
                f"set to alpha = {self.alpha}; on the permutation grid {self._spendable_words()}. "
                + ("Adjusted p-values are Holm's: each comparison's own permutation p-value times c, with their "
                   "running maximum (Holm, 1979)." if self._holm_tasks() else
                   "Adjusted p-values follow the same step-down (Westfall and Young, 1993).")) + _level_for(agents)
        if self.seed is not None and not self.spending["exact"].all():
            text += f" Random permutations used seed {fmt.short_seed(self.seed)}."
        for task in self.tasks:
            rows = self.tidy() if not self.blocked else self.tidy()[self.tidy()["task"] == task]
            found = [f"{a} {'>' if d == 'larger' else '<'} {b} (mean difference {fmt.signif(e, 4)}, adjusted "
                     f"p {fmt.format_pvalue(p)})" for a, b, d, e, p in
                     zip(rows["agent_1"], rows["agent_2"], rows["decision"], rows["estimate"], rows["p_adjusted"])
                     if d in ("larger", "smaller")]
            where = f"On {task}, " if self.blocked else ""
            tested = int((rows["decision"] != "withheld").sum())
            if not len(rows):
                text += f" {where}{_NO_PAIR}"
                continue
            if not tested:
                text += f" {where}every comparison was withheld (too few runs)."
                continue
            held = f" ({len(rows) - tested} withheld: too few runs)" if tested < len(rows) else ""
            verb = "differs" if len(found) == 1 or tested == 1 else "differ"  # "1 of 10 differs", "0 of 1 differs"
            text += (f" {where}{len(found)} of {fmt.count(tested, 'comparison')} {verb}{held}" +
                     (": " + "; ".join(found) + "." if found else "."))
        return text  # one test per task: said by the notes, which follow (as AdaStop's)
