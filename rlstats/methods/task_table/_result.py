"""TaskTableResult: the per-task table with the best and the possibly best marked, as text, LaTeX, Markdown, HTML."""

from __future__ import annotations

import html
from typing import Any, Callable, ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt, vocabulary
from ...errors import OptionError
from ..._typing import ColumnNames
from ...results import Result, Summary, check_layout, resultclass
from ...statistics import best_of
from . import plots
from ._kernels import FCR_INTERVALS, RANK_TESTS

DAGGER = "\u2020"
#: the second mark of a possibly-best cell whose interval of the difference of means against the best lies wholly on
#: the best's side (new-user trial s38: Krull/SPR, [0.083, 1.49], carried the dagger alone in LaTeX and Markdown)
DDAGGER = "\u2021"
#: Significant digits of the cells in every format (print, LaTeX, Markdown, HTML), so that all show the same.
DIGITS = 3
#: what the aggregate row aggregates, as the bootstrap's metrics define it: not always the cells above it (a task's
#: median or IQM of runs), so the caption says it (audit s19)
_AGGREGATED = {"mean": "mean of the {task} means{of}", "median": "median of the {task} means{of}",
               "iqm": "IQM of all runs of {tasks} pooled (each {task} weighed alike)"}


def _check_digits(digits: object) -> None:
    """digits= of every format: a whole number from 1 to 15 (audit s38 loud38: to_markdown and display took numpy's
    TypeError for digits='3')."""
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or not 1 <= digits <= 15:
        raise OptionError(f"digits must be a whole number of significant digits from 1 to 15, got {digits!r}")


def _markdown_mark(text):
    """A possibly-best cell in Markdown: its text escaped, then the dagger."""
    return f"{fmt.markdown_escape(text)} {DAGGER}"


def _markdown_apart(text):
    """A possibly-best cell in Markdown whose interval against the best lies wholly on its side: both marks."""
    return f"{fmt.markdown_escape(text)} {DAGGER}{DDAGGER}"


def _tasks_first(frame):
    """The display frame with its tasks as the first column, headed "task", beside an agent that may be named so; its
    other columns are agents, headed by their names in every format (format's ``rlstats_label_columns``: an agent
    named agent_1 is not the pair's "1st agent", audit s8, s27)."""
    frame = frame.reset_index(allow_duplicates=True)
    frame.attrs["rlstats_label_columns"] = True
    return frame


#: the key under summary()'s comparisons (audit s19: halfcheetah PPO's exclusion p-value 1.84e-05, then called
#: p_adjusted, below its p_value 0.000127 on the MuJoCo batches read as an adjustment that lowered a p-value; new-user
#: trial s38: the name itself read as R's p.adjust() of the p_value beside it, so it is named for what it is)
def p_values_key(test_name, adjustment, p_value="p_value", p_exclusion="p_exclusion"):
    """The key of the two p-value columns, named as the table heads them (tidy names, or LaTeX's labels), of the test
    and adjustment used (audit s19: it said Welch and Holm whatever test= and adjustment= were)."""
    adjusted = ("p-value (unadjusted: adjustment='none')" if adjustment == "none" else
                f"{adjustment.capitalize()}-adjusted p-value")
    return (f"{p_value}: the one-sided p-value of the {test_name} of the best against the agent, unadjusted; "
            f"{p_exclusion}: the p-value for dropping the agent from the possibly-best set, the smallest {adjusted} "
            f"of any agent against it (over every ordered pair of the task), possibly best where above alpha; not an "
            f"adjusted {p_value}, so it can be below {p_value} where another agent beats it more clearly than the best")

def adjust_name(adjustment, task="task"):
    """The adjustment as the method's name says it, ``task`` the blocks as a note about the rows calls them."""
    return {"holm": f"Holm-adjusted within {task}", "bonferroni": f"Bonferroni-adjusted within {task}",
            "none": "unadjusted"}[adjustment]


def apart_reasons(test, test_name, adjustment, alpha, level, effect_intervals, k, words):
    """Why a cell can be marked possibly best though its interval of the difference of means against the best lies
    wholly on the best's side, as clauses: the marks take ``test`` over the k (k - 1) ordered pairs of a task with
    ``adjustment`` (Holm's first test at alpha / (k (k - 1))), the interval Welch's t at the effect sizes' level, each
    side at (1 - level) / k with ``"fcr"``. The one home of the note's reasons and the table's caption line (new-user
    trial s38). ``k``: the task's agents, None where the tasks flagged differ in it (then said with k); ``words``: the
    data's (task, agent) columns."""
    task, agent = words
    fcr = effect_intervals in FCR_INTERVALS
    pairs = "k (k - 1)" if k is None else f"k (k - 1) = {k * (k - 1)}"
    if k is None:
        side = f"(1 - {fmt.signif(level)}) / k" if fcr else fmt.signif((1 - level) / 2, 2)
        against = "k - 1"
    else:
        side = fmt.signif((1 - level) / (k if fcr else 2), 2)
        against = f"{k - 1}"
    # what the interval's level keeps: with "fcr" a false coverage-statement rate over the k - 1 against the best
    # (Benjamini and Yekutieli 2005), not joint coverage; with "per_pair" each at the level alone
    kept = (f"the interval's level only bounds the expected share of the {against} against the best that miss at "
            f"{fmt.signif(100 * (1 - level))}% (a false coverage-statement rate, not joint coverage; each side at "
            f"{side})" if fcr else f"the interval is unadjusted (each side at {side})")
    why = []
    if test != "welch":
        why.append(f"the marks rest on the {test_name}, the interval on Welch's t")
    if adjustment != "none":
        first = ("alpha / (k (k - 1))" if k is None else
                 f"alpha / {k * (k - 1)} = {fmt.signif(alpha / (k * (k - 1)), 2)} with {fmt.count(k, agent)}")
        why.append(f"the marks adjust for the {pairs} ordered pairs of {fmt.a_or_an(task)} "
                   f"({adjust_name(adjustment, task)}: its smallest p-value is tested at {first}), {kept}")
    elif k is None or not np.isclose((1 - level) / (k if fcr else 2), alpha):
        why.append(f"the marks test at alpha = {fmt.signif(alpha)}, the interval's sides at {side}")
    return why


class _Renamed:
    """A result field's former name: reading it is an AttributeError naming the new one (the README's rule for renamed
    names: an error naming the new name, never a silent alias; ``hasattr`` is False)."""

    def __init__(self, old: str, new: str, why: str) -> None:
        self.old, self.new, self.why = old, new, why
        self.__doc__ = f"Renamed ``{new}`` ({why})."

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:  # the class's own attribute (documentation tools read it): the descriptor
            return self
        raise AttributeError(f"{type(instance).__name__}.{self.old} is now {self.new}: {self.why} (tidy()'s column "
                             f"too)")


#: summary()'s section of the paper table itself (its name heads the print and ends the LaTeX caption's title; it
#: read "table", so a caption said "...within task): table.", audit s36 paper36)
PER_TASK = "per-task table"


@resultclass
class TaskTableResult(Result):
    """Result of :func:`rlstats.task_table`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    agents, tasks : tuple of str
    statistic, test, test_name, adjustment : str
    alpha, confidence_level : float
    estimates, std_dev : ndarray, shape (n_tasks, n_agents)
        The statistic of each cell's runs and their standard deviation (NaN for empty cells).
    counts : ndarray, shape (n_tasks, n_agents)
    best : ndarray of int, shape (n_tasks,)
        The best agent of each task (of several that tie, the first in the agents' names sorted, whatever a
        Categorical's category order), against which effect sizes are given.
    tied_best : ndarray of bool, shape (n_tasks, n_agents)
        The agents whose statistic equals the best one (all in bold, but where the table makes possibly-best marks
        a best whose marks are withheld for want of runs, which the caption names).
    possibly_best : ndarray of bool, shape (n_tasks, n_agents)
        The confidence set for the best agent of each task: no other agent is significantly better (the tied best
        are always in it). False for empty cells.
    p_values : ndarray, shape (n_tasks, n_agents)
        One-sided p-value of "the best is better than the agent" (NaN for the best, empty and untested cells).
    p_exclusion : ndarray, shape (n_tasks, n_agents)
        The p-value for dropping the agent from the possibly-best set: the smallest family-adjusted p-value of "j is
        better than the agent" over the other agents j; possibly best when above alpha (NaN: nothing could be
        tested). Not an adjustment of ``p_values`` (another agent may beat it more clearly than the best, so it can be
        below it); called ``p_adjusted`` before session 38, which reads it as such.
    p_pairwise : ndarray, shape (n_tasks, n_agents, n_agents)
        Unadjusted one-sided p-value of "the row agent is better than the column agent" in each task.
    a12, hedges_g : ndarray, shape (n_tasks, n_agents, 3)
        Estimate, lower and upper bound of each effect size of the best against the agent.
    welch : ndarray, shape (n_tasks, n_agents, 4)
        Welch's t of the best against the agent, its df and the interval of the difference of means (oriented so
        that positive favours the best), at the level of the A12 and g intervals (``effect_intervals="fcr"``: a
        task's k - 1 intervals at 1 - 2 (1 - confidence_level) / k each; audit s32).
    next_ranked : ndarray of int, shape (n_tasks, n_agents)
        The agent ranked just above each agent in its task by the statistic (-1 for the best and empty cells).
    a12_next, hedges_g_next : ndarray, shape (n_tasks, n_agents, 3)
        The same effect sizes and intervals as ``a12`` and ``hedges_g``, of the next-ranked agent against the agent
        (positive favours the next-ranked); with ``effect_intervals="fcr"`` a task's k - 1 intervals are at the
        same joint level as those against the best.
    welch_next : ndarray, shape (n_tasks, n_agents, 4)
        Welch's t, df and interval of the difference of means, next-ranked minus the agent.
    aggregate : dict or None
        ``metric``, ``estimates``, ``intervals`` (NaN where the bootstrap withheld them), ``n_resamples`` and
        ``n_tasks`` (the tasks it pools) of the aggregate row (None when not asked for, or withheld).
    withheld : dict of str to ndarray of bool
        Where each output that rests on replication is withheld, by the needs the back end declares
        (:mod:`rlstats.methods._replication`): ``"possibly_best"`` and ``"std_dev"`` per cell, ``"comparisons"`` (the
        test and the effect-size intervals against the best) per cell against its task's best, ``"aggregate"`` per
        agent. A withheld cell has no mark (``possibly_best`` False, ``p_exclusion`` NaN, and ``possibly_best`` and
        ``significant`` missing in ``tidy()``), no ± sd, and NaN tests and intervals.
    withheld_reasons : dict of str to str
        For each output withheld somewhere, the sentence that says why and the way on (also among the notes).
    effect_notes : tuple of str
        The notes that speak only of the effect sizes and their intervals (also among ``notes``): ``to_latex()``
        and ``to_markdown()``, the table alone for a paper, leave them out; print, the notebook's view,
        ``summary()`` and ``report()`` keep them.
    averaged_within : str or None
        The column within each of whose values the seeds were averaged (``| task/run/seed``), so that each run is
        the mean of its seeds (:attr:`rlstats.design.Design.averaged_within`), which the caption says; None otherwise.
    censored : ndarray of int, shape (n_tasks, n_agents), or None
        Where the response is a time to a threshold (:func:`rlstats.summarize_runs`), the runs of each cell that
        never reached it, counted at their task's horizon: a cell holding any is marked ≥, its statistic a
        lower bound of the runs' times (:func:`rlstats.runs.censored_cells`; audit s34 ttt34). None otherwise.
    early_ends : dict or None
        Where the response is a summary of each run's last steps (:func:`rlstats.summarize_runs`) and some runs end
        before their task's others, so that their values come from earlier in training, which the caption says:
        ``runs`` (n_tasks, n_agents) how many such runs a cell holds, ``first`` and ``last`` their earliest and latest
        end, ``top`` (n_tasks,) the latest end of each task's runs (:func:`rlstats.runs.early_ends`; new-user trial
        s38). None otherwise.
    """

    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    statistic: str
    test: str
    test_name: str
    adjustment: str
    alpha: float
    confidence_level: float
    estimates: np.ndarray
    std_dev: np.ndarray
    counts: np.ndarray
    best: np.ndarray
    tied_best: np.ndarray
    possibly_best: np.ndarray
    p_values: np.ndarray
    p_exclusion: np.ndarray
    p_pairwise: np.ndarray
    a12: np.ndarray
    hedges_g: np.ndarray
    welch: np.ndarray
    next_ranked: np.ndarray
    a12_next: np.ndarray
    hedges_g_next: np.ndarray
    welch_next: np.ndarray
    aggregate: dict[str, Any] | None
    withheld: dict[str, np.ndarray]
    withheld_reasons: dict[str, str]
    effect_notes: tuple[str, ...] = ()
    averaged_within: str | None = None
    censored: np.ndarray | None = None
    early_ends: dict[str, np.ndarray] | None = None

    _plot_kinds: ClassVar[dict] = {"table": plots.plot_table}
    # new-user trial s38: "p_adjusted" read as R's p.adjust() of the p_value beside it, which it is not
    p_adjusted: ClassVar[Any] = _Renamed(
        "p_adjusted", "p_exclusion", "the p-value for dropping the agent from the possibly-best set, the smallest "
        "adjusted p-value of any agent against it, not an adjusted p_value")

    def _resamples_used(self) -> bool:
        """``n_resamples=`` decided something (audit s30 w2fix30: Welch's t with no aggregate row recorded it): where
        something was drawn (split p-values, the aggregate row's bootstrap: the seed), or where a permutation test's
        tested pair has more splits than are always enumerated (``split_count``: n_resamples then decides whether
        they are enumerated or drawn)."""
        if self.seed is not None:
            return True
        if self.test == "welch":
            return False
        from ._kernels import EXACT_SPLITS, relabellings

        tasks, first, second = np.nonzero(np.isfinite(self.p_pairwise))
        return any(relabellings(int(self.counts[t, i]), int(self.counts[t, j])) > EXACT_SPLITS
                   for t, i, j in zip(tasks, first, second))

    @property
    def label(self) -> str:
        return vocabulary.metric_label(self.statistic)

    @property
    def _bold_label(self) -> str:
        """The statistic as the line saying what is bold names it: the IQM's saying where it trims nothing (a cell of
        fewer than 4 runs: their mean; audit s33 msg33)."""
        if self.statistic == "iqm":
            from .._replication import untrimmed_cells_label

            return untrimmed_cells_label(self.counts, self.label)
        return self.label

    def _unmarked(self):
        """(n_tasks, n_agents): cells whose possibly-best mark is withheld for want of runs."""
        mask = self.withheld.get("possibly_best")
        return np.zeros(self.counts.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)

    def _table_notes(self):
        """The notes under the table alone: those of the effect sizes, which it does not print, left out."""
        return tuple(note for note in self.notes if note not in self.effect_notes)

    def _higher(self):
        return bool(self.options.get("higher_is_better", True))

    def _marks_shown(self):
        return bool((~self._unmarked() & (self.counts > 0)).any())

    def _bold(self) -> np.ndarray:
        """(n_tasks, n_agents): the cells set in bold (and outlined in the figure): the tied best, but where the table
        makes marks not a best whose marks are withheld for want of runs, which the legend would put in the
        confidence set untested (audit s17).  ``tied_best`` keeps every best."""
        if not self._marks_shown():
            return self.tied_best  # no set is claimed; the caption gives the runs behind each mean
        return self.tied_best & ~self._unmarked()

    def _bold_withheld(self):
        """'task_01/agent_3, ...': the bests not bold, or ''."""
        cells = np.argwhere(self.tied_best & ~self._bold())
        return ", ".join(f"{self.tasks[t]}/{self.agents[a]}" for t, a in cells)

    def _bounded(self) -> np.ndarray:
        """(n_tasks, n_agents): the cells holding runs censored at their task's horizon (marked ≥)."""
        if self.censored is None:
            return np.zeros(self.counts.shape, dtype=bool)
        return np.asarray(self.censored) > 0

    def _apart(self) -> np.ndarray:
        """(n_tasks, n_agents): the cells marked possibly best (a dagger, not bold) whose interval of the difference
        of means against the best lies wholly on the best's side, which carry a second mark (new-user trial s38:
        Krull/SPR's [0.083, 1.49] carried the dagger alone in LaTeX and Markdown, the note saying why left out)."""
        return self.possibly_best & ~self._bold() & (self.welch[..., 2] > 0)

    def apart_sentence(self) -> str:
        """What the second mark means and why a cell can carry both, in one sentence ("" where no cell does): the
        marks and the interval are at different levels of different families (:func:`apart_reasons`)."""
        apart = self._apart()
        if not apart.any():
            return ""
        ks = {int(k) for k in (self.counts > 0).sum(axis=1)[apart.any(axis=1)]}
        why = apart_reasons(self.test, self.test_name, self.adjustment, self.alpha, self.confidence_level,
                            self.options.get("effect_intervals", "per_pair"), ks.pop() if len(ks) == 1 else None,
                            (self._block_word, self._arm_word))
        return (f"{DDAGGER}: marked possibly best though the interval of its difference of means against the best "
                f"(diff_low, diff_high in tidy()) lies wholly on the best's side: {'; '.join(why)}; the mark is the "
                "set's answer at alpha, the interval the size of the difference.")

    def _censored_key(self) -> str:
        """What ≥ means, one sentence without its full stop ("" where no cell holds a censored run)."""
        bounded = self._bounded()
        if not bounded.any():
            return ""
        censored = np.asarray(self.censored)
        return (f"≥: {fmt.count(int(bounded.sum()), 'cell')} holding runs that never reached the threshold by "
                f"their {self._block_word}'s horizon ({int(censored.sum())} of {int(self.counts[bounded].sum())} runs "
                f"there), each counted at the horizon, so the {self.label} is a lower bound of the runs' times")

    def early_sentence(self) -> str:
        """The runs that end before their task's others, so that the cells compare values from different points of
        training, in one sentence ("" where none; new-user trial s38: the notes said DQN's values at 20k sat beside
        A2C's and PPO's at 30k, the LaTeX and Markdown captions did not)."""
        if self.early_ends is None:
            return ""
        runs = np.asarray(self.early_ends["runs"])
        if not runs.any():
            return ""
        first, last, top = (np.asarray(self.early_ends[key], dtype=float) for key in ("first", "last", "top"))
        task = self._block_word
        parts = []
        for t, a in np.argwhere(runs > 0):
            n, m = int(runs[t, a]), int(self.counts[t, a])
            who = (f"{self.agents[a]}'s {fmt.plural('run', n)}" if n == m else
                   f"{n} of {self.agents[a]}'s {m} runs")
            ends = (fmt.format_step(last[t, a]) if first[t, a] == last[t, a] else
                    f"{fmt.format_step(first[t, a])} to {fmt.format_step(last[t, a])}")
            parts.append(f"{who} on {self.tasks[t]} {fmt.verb(n, 'ends')} at {ends}, the {task}'s last run at "
                         f"{fmt.format_step(top[t])}")
        cells, one = len(parts), int(runs.sum()) == 1
        shown = "; ".join(parts[:3]) + (f"; and {fmt.count(cells - 3, 'cell')} more" if cells > 3 else "")
        # the summary's note in its words: their values come from earlier in training (runs._ends)
        return (f"Runs of unequal length: {shown}, so {'its value comes' if one else 'their values come'} from "
                "earlier in training.")

    def _runs_phrase(self):
        runs = self.counts[self.counts > 0]
        return f"{runs.min()}" if runs.min() == runs.max() else f"{runs.min()} to {runs.max()}"

    def _cell_texts(self, digits, bold, mark, plain=str, apart=None):
        """(n_tasks, n_agents) strings 'm ± sd' (through ``plain``) with the best bolded and the other possibly best
        marked, through ``apart`` (default ``mark``) where the interval against the best lies wholly on its side
        (:meth:`_apart`), '≥ m ± sd' where the cell holds censored runs (a lower bound: audit s34 ttt34)."""
        out = []
        bold_cells = self._bold()
        apart_cells = self._apart()
        bounded = self._bounded()
        n_tasks, n_agents = len(self.tasks), len(self.agents)
        means, spreads = [[""] * n_agents for _ in range(n_tasks)], [[""] * n_agents for _ in range(n_tasks)]
        for t in range(n_tasks):
            present = ~np.isnan(self.estimates[t])
            # means on the score's scale read apart at any shift of it, to the runs' spread (audit s35 digits35:
            # 1000047 ± 9.4 read "1000000 ± 9.4"): as many digits as fmt.level_digits gives the cell's mean and
            # mean + SD (audit s36 digits36: 50000.047 ± 0.0094 read "50000 ± 0.0094"), the same as digits where
            # those read apart below 1e5; a cell's own, not its row's (review s37: 0.012345678 ± 1 beside 100000 ±
            # 0.001 read "0.012345678 ± 1"); a cell with no spread (one run, or SD 0) reads apart from its row's means
            row = fmt.level_digits(np.column_stack([self.estimates[t], self.estimates[t] + self.std_dev[t]]), digits)
            for a in np.flatnonzero(present):
                mean, sd = self.estimates[t, a], self.std_dev[t, a]
                # a mean below its SD: to the decimals its SD resolves (fmt.digits_beside; new-user trial s37:
                # "-0.000000802 ± 0.0019", now "-0.0000008"); above it, widened where it reads as mean + SD
                own = digits if np.isfinite(sd) and sd >= abs(mean) > 0 else \
                    fmt.level_digits([[mean, mean + sd]], digits) if np.isfinite(sd) and sd > 0 else row
                # the best's mean reads apart from every other agent's (bold 12.121 beside 12.074 both read "12.1":
                # audit s22): a bold cell against the others, the others against the bold ones
                rivals = self.estimates[t, present & (bold_cells[t] != bold_cells[t, a])]
                means[t][a] = fmt.signif_apart(mean, fmt.digits_beside(mean, sd, own), rivals)
                means[t][a] = fmt.as_fixed(means[t][a], mean) if own > digits else means[t][a]
                if np.isfinite(self.std_dev[t, a]):
                    spreads[t][a] = fmt.signif(self.std_dev[t, a], 2)
        # an agent's column in one notation: fixed where any of its numbers is, and a number written out where that
        # writes no rounded digit as exact (fmt.as_fixed; audit s35 fix35: "3.6e+07", not "36000000" beside "125831")
        for texts, values in ((means, self.estimates), (spreads, self.std_dev)):
            for a in range(n_agents):
                column = [texts[t][a] for t in range(n_tasks) if texts[t][a]]
                if any("e" not in text for text in column):
                    for t in range(n_tasks):
                        texts[t][a] = fmt.as_fixed(texts[t][a], values[t, a])
        for t in range(n_tasks):
            row = []
            present = ~np.isnan(self.estimates[t])
            for a in range(n_agents):
                if not present[a]:
                    row.append("")
                    continue
                text = means[t][a] + (f" \u00b1 {spreads[t][a]}" if spreads[t][a] else "")
                text = plain(("\u2265 " if bounded[t, a] else "") + text)
                if bold_cells[t, a]:
                    text = bold(text)
                elif self.possibly_best[t, a]:
                    text = (apart if apart is not None and apart_cells[t, a] else mark)(text)
                row.append(text)
            out.append(row)
        return out

    def _aggregate_best(self):
        """Which agents have the best aggregate: the largest, or the smallest with higher_is_better=False, every tied
        one (audit s7b: the largest was bold whatever the direction, and of tied agents the first in label order)."""
        sign = 1.0 if self.options.get("higher_is_better", True) else -1.0
        return best_of(sign * np.asarray(self.aggregate["estimates"], dtype=float))

    def _aggregate_texts(self, digits, bold, plain=str):
        agg = self.aggregate
        # an interval the bootstrap withheld is left out, not printed as "[NaN, NaN]" (the caption and notes say why)
        # apart at any shift of the scores (audit s35 digits35): the estimates at digits, the bounds at 3, or wider
        levels = np.column_stack([np.asarray(agg["estimates"], dtype=float), np.asarray(agg["intervals"], dtype=float)])
        estimates = np.reshape(fmt.signif_levels(levels, digits), levels.shape)[:, 0]
        bounds = np.reshape(fmt.signif_levels(levels, 3), levels.shape)[:, 1:]
        texts = [plain(e + (f" [{lo}, {hi}]" if np.isfinite(interval).all() else ""))
                 for e, (lo, hi), interval in zip(estimates, bounds, levels[:, 1:])]
        return [bold(text) if best else text for text, best in zip(texts, self._aggregate_best())]

    def display(self, digits: int = DIGITS, bold: Callable[[str], str] = lambda s: f"*{s}*",
                mark: Callable[[str], str] = lambda s: f"{s} {DAGGER}",
                apart: Callable[[str], str] = lambda s: f"{s} {DAGGER}{DDAGGER}") -> pd.DataFrame:
        """The table as a DataFrame of strings: tasks as rows, agents as columns (and the aggregate row). ``mark``
        draws a possibly-best cell, ``apart`` one whose interval against the best lies wholly on its side."""
        _check_digits(digits)
        frame = pd.DataFrame(self._cell_texts(digits, bold, mark, apart=apart), index=list(self.tasks),
                             columns=list(self.agents))
        if self.aggregate is not None:
            frame.loc[f"aggregate {vocabulary.metric_label(self.aggregate['metric'])}"] = \
                self._aggregate_texts(digits, bold)
        frame.index.name = "task"
        return frame

    def mark_sentence(self, best: str = "bold") -> str:
        """What the dagger means, in one sentence: of the agents the tests compared, naming those left out of them
        for want of runs (audit s34 marks34: IRIS, one run a game and the best IQM of four, was left out, yet the set
        was said to be for "the agent with the best mean of the task"). ``best``: how the best cell is drawn, "bold" in
        the tables, "outlined" in the heat map, which shows this sentence too (audit s35 small35)."""
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s32 block32)
        agents = fmt.plural(agent)
        among, left_out = self._among(), self._left_out()
        left_out = f"; left out of the tests: {left_out}" if left_out else ""
        if self.adjustment == "none":
            return (f"{DAGGER}: no other {agent}{among} is significantly better (every ordered pair of {agents} tested "
                    f"one-sided with the {self.test_name} at alpha = {fmt.signif(self.alpha)}, unadjusted: not a "
                    f"confidence set){left_out}.")
        # no parenthesis around it all (audit s25 polish25: the key nested three deep and ended ".)")
        return (f"{DAGGER}: possibly best: the {best} and marked {agents} form a {fmt.signif(100 * (1 - self.alpha))}% "
                f"confidence set for {self._set_target(f'the best {agent} of the {task}', among=among)}{left_out}; "
                f"every ordered pair of {agents} was tested one-sided with the {self.test_name}, "
                f"{self.adjustment.capitalize()} over the k(k-1) pairs.")

    def _untested(self) -> np.ndarray:
        """(n_tasks, n_agents): cells with runs left out of the tests, their marks withheld for want of runs."""
        return self._unmarked() & (self.counts > 0)

    def _among(self) -> str:
        """" among the agents with at least 2 runs on it" where the tests left some agent out of a task's set for want
        of runs (the declared need of the marks, :mod:`rlstats.methods._replication`), else ""."""
        if not self._untested().any():
            return ""
        from .._replication import declared

        least = next(need.runs for need in declared("task_table") if need.output == "possibly_best")
        return f" among the {fmt.plural(self._arm_word)} with at least {least} runs on it"

    def _left_out(self) -> str:
        """The agents left out of the tests, each with where: "C (in t1, t2)", "IRIS (in 5 tasks)"; "" for none."""
        cells = self._untested()
        parts = []
        for a in np.flatnonzero(cells.any(axis=0)):
            tasks = [self.tasks[t] for t in np.flatnonzero(cells[:, a])]
            where = (fmt.name_list(tasks, among=self.tasks) if len(tasks) <= 2
                     else fmt.count(len(tasks), self._block_word))
            parts.append(f"{fmt.names_shown([self.agents[a]], self.agents)[0]} (in {where})")
        return fmt.listed(parts, limit=4)

    def _set_target(self, plain: str, shown: str = "shown", after: str = "", among: str = "") -> str:
        """Whose best the possibly-best set covers, as the caption and the report say it: ``plain`` where the tests
        compare the statistic in bold (``after`` closes it). The tests of means decide whose mean is best, which need
        not be the best median or IQM in bold (audit s23); the rank tests whose runs beat the other's, which need not
        be the best of any statistic (audit s24); ``after`` then goes inside the parenthesis (audit s25). ``among``
        (:meth:`_among`) follows the task: the best of the agents the tests compared (audit s34 marks34)."""
        task, agent = self._block_word, self._arm_word
        if self.test in ("welch", "fisher_pitman") and self.statistic != "mean":
            return (f"the {agent} with the best mean of the {task}{among} (the {self.test_name} compares means, not "
                    f"the {self.label}s {shown}{'; ' + after if after else ''})")
        if self.test in RANK_TESTS:
            return (f"the best {agent} of the {task}{among} by its runs' ranks, one whose runs no other {agent}'s beat "
                    f"more often than not (the {self.test_name} compares the runs' ranks, not the {self.label}s "
                    f"{shown}{'; ' + after if after else ''})")
        return plain + among + (f" ({after})" if after else "")

    def withheld_sentence(self) -> str:
        """Why marks are missing, in one sentence with the way on ("" when nothing is withheld)."""
        reason = self.withheld_reasons.get("possibly_best", "")
        return reason[:1].upper() + reason[1:] + "." if reason else ""

    def _blank(self) -> str:
        """"; blank: ..." where an agent never ran a task, whose cell is left empty (audit s19), else ""."""
        empty = int((self.counts == 0).sum())
        return f"; blank: no runs of the {self._arm_word} on the {self._block_word} ({fmt.count(empty, 'cell')})" \
            if empty else ""

    @staticmethod
    def _phrase(values):
        return f"{values.min()}" if values.min() == values.max() else f"{values.min()} to {values.max()}"

    def caption(self) -> str:
        name = self.label[0].upper() + self.label[1:]
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s32 block32)
        present = self.counts > 0
        bare = present & np.asarray(self.withheld.get("std_dev", np.zeros(self.counts.shape, dtype=bool)))
        # a run is a seed, or with '| task/run/seed' one run's mean of its seeds (audit s19)
        unit = self.averaged_within  # the Design's record, never a note's words (audit s23 kind23)
        one, several = ((f"run ('{unit}', the mean of its seeds)", f"runs ('{unit}', each the mean of its seeds)")
                        if unit is not None else (f"run ({self._run_word})", f"runs ({fmt.plural(self._run_word)})"))
        if bare.all() or not present.any() or bare[present].all():  # no cell has a standard deviation
            runs = self._runs_phrase()
            text = f"{name} of {runs} {one if runs == '1' else several} per {agent} and {task}{self._blank()}. "
        else:
            # the runs behind the cells without a deviation (one each: a deviation needs 2), not "too few" alone, so
            # that "over 5 runs" is not read of them too (audit s28)
            alone = (f" ({fmt.count(int(bare.sum()), 'cell')} of {self._phrase(self.counts[bare])} "
                     f"{'run' if self.counts[bare].max() == 1 else 'runs'}: the {self.label} alone)"
                     if bare.any() else "")
            text = (f"{name} \u00b1 standard deviation over {self._phrase(self.counts[present & ~bare])} {several} "
                    f"per {agent} and {task}{alone}{self._blank()}. ")
        # lower-is-better says so: a bold lowest mean read as a typesetting slip in a paper (audit s15)
        if self.early_sentence():
            text += self.early_sentence() + " "
        text += (f"Bold: the best {self._bold_label} of each {task}" if self._higher() else
                 f"Bold: the lowest {self._bold_label} of each {task} (lower is better)")
        withheld = self._bold_withheld()
        if withheld:
            text += f", but for a best from too few runs to test ({withheld})"
        text += f"; {self.mark_sentence()}" if self._marks_shown() else "."
        if self.apart_sentence():
            text += f" {self.apart_sentence()}"
        if self._censored_key():
            text += f" {self._censored_key()}."
        if self.withheld_sentence():
            text += " " + self.withheld_sentence()
        return text + self._aggregate_sentence()

    def _aggregate_sentence(self) -> str:
        """" Aggregate: <what the row is>, with <level> stratified bootstrap intervals (...)." where the table has an
        aggregate row, else "": the caption's and the report's (audit s28: the report never named the row)."""
        if self.aggregate is None:
            return ""
        metric = self._aggregated()
        shown = np.isfinite(np.asarray(self.aggregate["intervals"], dtype=float)).all(axis=1)
        if not shown.any():
            return f" Aggregate: {metric} (its intervals withheld: see the notes)."
        return (f" Aggregate: {metric}, with {fmt.signif(100 * self.confidence_level)}% stratified bootstrap intervals "
                f"({self.aggregate['n_resamples']} resamples"
                + ("; withheld where none is shown)." if not shown.all() else ")."))

    def to_latex(self, label: str | None = None, digits: int = DIGITS,
                 environment: str | None = None, resize: bool | None = None) -> str:
        """A booktabs table: best in \\textbf, a dagger on the other possibly best agents, the rule in the caption.

        A ``table`` when it fits one column of a two-column paper (about 230 pt: three or four agents of
        "mean ± sd"; five need about 235 pt even at one digit), else a ``table*`` spanning both columns;
        ``environment=`` "table" or "table*" chooses, and ``resize=True`` shrinks the table to its float's width
        (``\\resizebox``, graphicx), which None does only for a table wider than the page. The first line, a
        LaTeX comment, names the packages it needs (booktabs; graphicx when resized), its width and how to make it
        fit a column. The notes (what was dropped or changed, as printed) are set under the table, but for those of
        the effect sizes (``effect_notes``), which it does not print: ``summary().to_latex()`` has both.
        """
        if label is not None and not isinstance(label, str):
            raise OptionError(f"label must be text for \\label{{...}}, e.g. label='tab:results', got {label!r}")
        _check_digits(digits)
        check_layout(environment, resize)
        return self._latex(self.caption(), label, digits, environment, resize, self._table_notes())

    def _latex(self, caption, label=None, digits=DIGITS, environment=None, resize=None, notes=(), head="Task"):
        """The table's float under ``caption`` (plain text), its first column headed ``head``, in the rules of
        :meth:`to_latex`."""
        escape = fmt.latex_escape
        cells = self._cell_texts(digits, lambda s: rf"\textbf{{{s}}}", lambda s: s + r"$^\dagger$", plain=escape,
                                 apart=lambda s: s + r"$^{\dagger\ddagger}$")
        rows = [escape(task) + " & " + " & ".join(row) for task, row in zip(self.tasks, cells)]
        # the width LaTeX will set it at, from the unescaped texts: a column per agent, headed by its name
        plain = self._cell_texts(digits, str, lambda s: s + DAGGER, apart=lambda s: s + DAGGER + DDAGGER)
        shown = self._bold()
        columns = [[(a, False)] + [(row[j], bool(shown[t, j])) for t, row in enumerate(plain)]
                   for j, a in enumerate(self.agents)]
        first = [(head, False)] + [(t, False) for t in self.tasks]
        if self.aggregate is not None:
            texts = self._aggregate_texts(digits, lambda s: rf"\textbf{{{s}}}", plain=escape)
            metric = vocabulary.metric_label(self.aggregate["metric"])
            rows.append("\\midrule\n" + escape(f"Aggregate {metric}") + " & " + " & ".join(texts))
            for j, (text, best) in enumerate(zip(self._aggregate_texts(digits, str), self._aggregate_best())):
                columns[j].append((text, bool(best)))
            first.append((f"Aggregate {metric}", False))
        named = any(fmt.text_width(a) > max(fmt.text_width(t, b) for t, b in column[1:]) for a, column in
                    zip(self.agents, columns))  # a name wider than its numbers widens the table
        header = escape(head) + " & " + " & ".join(escape(a) for a in self.agents)
        return fmt.latex_float("l" + "r" * len(self.agents), header,
                               rows, fmt.tabular_width([first] + columns), caption=escape(caption),
                               label=label, environment=environment, resize=resize,
                               how_to_fit="shorter agent names (they head the columns)" if named else "",
                               notes=notes) + "\n"

    def to_markdown(self, digits: int = DIGITS) -> str:
        _check_digits(digits)
        frame = self.display(digits, bold=lambda s: f"**{fmt.markdown_escape(s)}**", mark=_markdown_mark,
                             apart=_markdown_apart)
        # what was dropped or changed, as printed; names as written (audit s19)
        notes = "".join(f"- {fmt.markdown_escape(n, start=True)}\n" for n in self._table_notes())
        table = fmt.table_markdown(frame.pipe(_tasks_first), digits, markdown_cells=True)
        return f"{table}\n\n{fmt.markdown_escape(self.caption(), start=True)}\n" + (f"\n{notes}" if notes else "")

    def _repr_html_(self):
        frame = self.display(DIGITS, bold=lambda s: f"<b>{html.escape(s)}</b>",
                             mark=lambda s: f"{html.escape(s)} {DAGGER}",
                             apart=lambda s: f"{html.escape(s)} {DAGGER}{DDAGGER}")
        body = "".join("<tr><th>" + html.escape(str(task)) + "</th>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>"
                       for task, row in zip(frame.index, frame.to_numpy()))
        head = "<tr><th>task</th>" + "".join(f"<th>{html.escape(a)}</th>" for a in frame.columns) + "</tr>"
        notes = "".join(f"<li>{html.escape(n)}</li>" for n in self.notes)  # what was dropped or changed, as printed
        notes = f"<ul>{notes}</ul>" if notes else ""
        return f"<table>{head}{body}</table><p>{html.escape(self.caption())}</p>{notes}"

    def _statistic_line(self):
        """The header's count of the cells as the table shows them: bold, marked and withheld (audit s34 marks34: "7
        cells possibly best besides the best" where four tasks had no bold best, their best untested)."""
        bold = self._bold()
        marked = int((self.possibly_best & ~bold).sum())
        line = f"tasks = {len(self.tasks)}, runs per cell = {self._runs_phrase()}, alpha = {fmt.signif(self.alpha)}, "
        if not self._marks_shown():
            return line + "possibly-best marks withheld (too few runs)"
        unmarked = int(self._untested().sum())
        withheld = f"{fmt.count(unmarked, 'cell')} withheld: too few runs" if unmarked else ""
        cells = f"{self._arm_word}-{self._block_word} cell"
        unbolded = int((self.tied_best.any(axis=1) & ~bold.any(axis=1)).sum())
        if not unbolded:
            return (line + f"{fmt.count(marked, cells)} possibly best besides the best"
                    + (f" ({withheld})" if withheld else ""))
        return (line + f"{fmt.count(int(bold.sum()), cells)} bold, {marked} marked possibly best ({withheld}; no "
                f"bold best in {fmt.count(unbolded, self._block_word)}, whose best is withheld)")

    def _aggregated(self) -> str:
        """What the aggregate row is, of the tasks it reads: with na_action="drop" those every agent ran, which need
        not be all the table's (audit s25 polish25: 'all tasks' beside a note leaving one out of it)."""
        aggregate = self.aggregate or {}  # read only where the table has an aggregate row
        n = aggregate.get("n_tasks", len(self.tasks))
        some = n < len(self.tasks)
        task, agent = self._block_word, self._arm_word
        return _AGGREGATED[aggregate["metric"]].format(
            of=f" of the {fmt.count(n, task)} every {agent} ran" if some else "",
            tasks=f"the {fmt.count(n, task)} every {agent} ran" if some else f"all {fmt.plural(task)}",
            task=task)

    def _spread_key(self) -> str:
        """What "±" is in the printed table and the summary's, as the LaTeX and Markdown captions say it (audit s31
        trialfix31); "" where no cell has a standard deviation."""
        present = self.counts > 0
        bare = present & np.asarray(self.withheld.get("std_dev", np.zeros(self.counts.shape, dtype=bool)))
        if not present.any() or bare[present].all():
            return ""
        alone = "; a cell of one run has none" if bare.any() else ""
        return (f"\u00b1: the standard deviation of the runs of the {self._arm_word} on the {self._block_word} (over "
                f"{self._phrase(self.counts[present & ~bare])} runs{alone})")

    def _extra_lines(self):
        best = f"best {self._bold_label}" if self._higher() else f"best {self._bold_label} (lowest: lower is better)"
        withheld = self._bold_withheld()
        if withheld:
            best += f", but for a best from too few runs to test ({withheld})"
        # the key, one line a mark: no parentheses nested in parentheses (audit s25 polish25)
        key = ([f"*bold*: {best}"] + ([self._spread_key()] if self._spread_key() else [])
               + ([self.mark_sentence().rstrip(".")] if self._marks_shown() else [])
               + ([self.apart_sentence().rstrip(".")] if self.apart_sentence() else []))
        if self._censored_key():
            key.append(self._censored_key())
        if self.aggregate is not None:
            key.append(f"aggregate: {self._aggregated()}")
        if self._blank():
            key.append(self._blank()[2:])
        return fmt.table_text(self.display().pipe(_tasks_first)).split("\n") + key

    def summary(self) -> Summary:
        """The full tables; in LaTeX the table keeps to_latex()'s rules (\\textbf, daggers, the legend in the
        caption), in Markdown its **bold**, not the printed table's *bold* (audit s8)."""
        def table(caption, **layout):
            return self._latex(f"{caption} {self.caption()}", head="task", **layout).rstrip("\n")
        def markdown():
            return fmt.table_markdown(self.display(DIGITS, bold=lambda s: f"**{fmt.markdown_escape(s)}**",
                                                   mark=_markdown_mark, apart=_markdown_apart).pipe(_tasks_first),
                                      DIGITS,
                                      markdown_cells=True)
        return Summary(self.method, self._header(), self._summary_tables(), self.notes,
                       statistic_line=self._statistic_line(), latex={PER_TASK: table}, markdown={PER_TASK: markdown},
                       keys={"comparisons with the best": p_values_key(self.test_name, self.adjustment),
                             **({PER_TASK: "; ".join(k for k in (self._spread_key(), self._censored_key()) if k)}
                                if self._spread_key() or self._censored_key() else {})},
                       captions={"comparisons with the best": "Key: " + p_values_key(
                           self.test_name, self.adjustment, *map(vocabulary.label, ("p_value", "p_exclusion"))) + "."},
                       alpha=self._levels())

    def _summary_tables(self):
        return {PER_TASK: self.display().pipe(_tasks_first), "comparisons with the best": self.tidy()}

    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per task and agent: estimate, spread, the set, the test against the best and effect sizes.

        ``possibly_best`` is the confidence set and ``significant`` its complement among the agents with runs (both
        missing, ``<NA>``, where the mark is withheld for want of runs, see ``withheld``, and where the agent has no
        runs on the task);
        ``p_value`` is the one-sided p-value of the best against the agent, ``p_exclusion`` the p-value for dropping
        the agent from the possibly-best set (the smallest adjusted p-value of another agent against it, possibly best
        where above alpha; not an adjusted ``p_value``, it can be below it); ``welch_t``, ``welch_df``, ``diff_low`` and ``diff_high`` are R's
        ``t.test(best, agent, conf.level = L)`` (oriented so that positive favours the best), L the level of the
        task's effect-size intervals (``effect_intervals="fcr"``: 1 - 2 (1 - confidence_level) / k in a task of k
        agents; ``"per_pair"``: confidence_level).  ``next_agent`` is the agent ranked
        just above in the task (None for the best), and ``a12_next``, ``hedges_g_next`` (with ``_low``, ``_high``)
        and ``diff_next_low``, ``diff_next_high`` the same effect sizes against it (positive favours it).
        """
        n, k = self.estimates.shape
        present = self.counts > 0
        unmarked = self._unmarked() | ~present  # no claim of an agent on a task it never ran (audit s14)
        return pd.DataFrame({
            "task": np.repeat(np.asarray(self.tasks, dtype=object), k),
            "agent": np.tile(np.asarray(self.agents, dtype=object), n),
            "estimate": self.estimates.ravel(), "std_dev": self.std_dev.ravel(), "n_runs": self.counts.ravel(),
            "best": self.tied_best.ravel(),
            "possibly_best": _missing_where(self.possibly_best, unmarked),
            "p_value": self.p_values.ravel(), "p_exclusion": self.p_exclusion.ravel(),
            "significant": _missing_where(present & ~self.possibly_best, unmarked),
            "welch_t": self.welch[..., 0].ravel(), "welch_df": self.welch[..., 1].ravel(),
            "diff_low": self.welch[..., 2].ravel(), "diff_high": self.welch[..., 3].ravel(),
            "a12": self.a12[..., 0].ravel(), "a12_low": self.a12[..., 1].ravel(), "a12_high": self.a12[..., 2].ravel(),
            "cliffs_delta": (2 * self.a12[..., 0] - 1).ravel(),
            "hedges_g": self.hedges_g[..., 0].ravel(), "hedges_g_low": self.hedges_g[..., 1].ravel(),
            "hedges_g_high": self.hedges_g[..., 2].ravel(),
            "next_agent": pd.Series(np.asarray(self.agents, dtype=object)[self.next_ranked].ravel(),
                                    dtype=object).where(self.next_ranked.ravel() >= 0, None),
            "a12_next": self.a12_next[..., 0].ravel(), "a12_next_low": self.a12_next[..., 1].ravel(),
            "a12_next_high": self.a12_next[..., 2].ravel(),
            "hedges_g_next": self.hedges_g_next[..., 0].ravel(),
            "hedges_g_next_low": self.hedges_g_next[..., 1].ravel(),
            "hedges_g_next_high": self.hedges_g_next[..., 2].ravel(),
            "diff_next_low": self.welch_next[..., 2].ravel(), "diff_next_high": self.welch_next[..., 3].ravel(),
        })

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        return pd.DataFrame([{"method": self.method, "n_agents": self.n_agents, "n_tasks": self.n_tasks,
                              "n_obs": self.nobs, "alpha": self.alpha, "adjustment": self.adjustment,
                              "conf_level": self.confidence_level}])

    def _prose(self):
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s32 block32)
        tasks, agents = fmt.plural(task), fmt.plural(agent)
        # every tied best agent wins its task, as the table bolds them all (crediting the first in label order made
        # the count depend on the names; audit s11)
        wins = self._bold().sum(axis=0)
        ran = (self.counts > 0).sum(axis=0)
        # agents on different task sets: each count of wins with the tasks the agent ran, its only denominator
        won = (lambda w, n: f"{w}") if (ran == len(self.tasks)).all() else (lambda w, n: f"{w} of the {n} it ran")
        ranked = [(a, w, n) for a, w, n in sorted(zip(self.agents, wins, ran), key=lambda p: -p[1]) if w]
        parts = [f"{a} ({won(w, n)})" for a, (_, w, n) in zip(fmt.names_shown([p[0] for p in ranked], self.agents),
                                                             ranked)]
        shared = int((self._bold().sum(axis=1) > 1).sum())
        if shared:
            parts[-1] += (f"; tied best {agents} are each credited ({fmt.count(shared, task)} "
                          f"{fmt.verb(shared, 'has')} more than one)")
        uncredited = [self.tasks[t] for t in np.flatnonzero(self.tied_best.any(axis=1) & ~self._bold().any(axis=1))]
        if uncredited:
            # none credited anywhere (every best untested): the sentence alone, not appended to a win (audit s34
            # marks34: parts[-1] of no parts raised IndexError from report())
            said = (f"no best is credited in {fmt.name_list(uncredited, among=self.tasks)}, whose best "
                    f"{'rests' if len(uncredited) == 1 else 'rest'} on too few runs to test")
            if parts:
                parts[-1] += f"; {said}"
            else:
                parts.append(said)
        marked = int((self.possibly_best & ~self._bold()).sum())
        runs = self._runs_phrase()
        which = f"each of {len(self.tasks)} {tasks}" if len(self.tasks) > 1 else f"the {task}"
        best = (f"For {which} we marked the {agent} with the {'best' if self._higher() else 'lowest'} {self.label} "
                f"of its runs{'' if self._higher() else ' (lower is better)'} "
                f"({runs} {'run' if runs == '1' else 'runs'} per {agent} and {task})")
        others = (self.counts > 0) & ~(np.arange(len(self.agents))[None, :] == self.best[:, None])
        if not self._marks_shown():
            # nothing was tested: say only what the table shows; the notes say why and the way on
            return (f"{best}. Best per {task}: {', '.join(parts)}. No possibly-best set, test or effect-size interval "
                    f"is given" + (": only the Vargha-Delaney A12 against the best (the share of pairs of runs the "
                                   "best wins, ties half) and Cliff's delta = 2 A12 - 1" if others.any() else "")
                    + "." + self._aggregate_sentence())
        among = (f" among the {agents} with the runs a test needs" if (self._unmarked() & (self.counts > 0)).any()
                 else "")
        if self.adjustment == "none":
            rule = (f"marked {fmt.a_or_an(agent)} when no other {agent}{among} was significantly better at alpha = "
                    f"{fmt.signif(self.alpha)} without adjustment (the marked {agents} are not a confidence set)")
        else:
            target = self._set_target(f"the {task}'s best {agent}", shown="reported", after="Mogstad et al. 2024",
                                      among=self._among())
            rule = (f"marked as possibly best the {agents} no other {agent} was significantly better than{among}, "
                    f"{self.adjustment.capitalize()}'s procedure controlling the family-wise error over the k(k-1) "
                    f"ordered pairs at alpha = {fmt.signif(self.alpha)}, so that the marked {agents} form a "
                    f"{fmt.signif(100 * (1 - self.alpha))}% confidence set for {target}")
        intervals = self.options.get("effect_intervals", "per_pair")
        text = (f"{best}, tested every ordered pair of {agents} one-sided with the {self.test_name} on that {task}'s "
                f"runs, and {rule}. Best per {task}: {', '.join(parts)}. In "
                f"{fmt.count(marked, f'further {agent}-{task} cell')} the {agent} was possibly best. Effect sizes "
                "against the "
                f"best are the Vargha-Delaney A12 (probability that a run of the best scores "
                f"{'higher' if self._higher() else 'lower'}) with "
                f"{_A12_INTERVALS[intervals]} intervals, Cliff's delta = 2 A12 - 1, Hedges' g with noncentral-t "
                f"intervals and Welch's t with the interval of the difference of means "
                f"({fmt.signif(100 * self.confidence_level)}%{_jointly(intervals, task, agent)}). The same effect "
                "sizes are "
                f"given against the {agent} ranked just above each {agent} in its {task} (next_agent in tidy()), with "
                f"intervals at the same level.")
        return text + self._aggregate_sentence()


_A12_INTERVALS = {"fcr": "score-type (Newcombe)", "fcr_normal": "score-type (Newcombe)", "per_pair": "Brunner-Munzel"}
def _jointly(intervals, task="task", agent="agent"):
    """How the effect-size intervals are adjusted for the choice of the best, the data's blocks and arms by their
    columns (audit s33 words33b)."""
    if intervals not in ("fcr", "fcr_normal"):
        return ""
    return (f"; the intervals of {fmt.a_or_an(task)} with k {fmt.plural(agent)} each at 1 - 2 (1 - level) / k, so "
            f"that at most that share of them miss whichever {agent} is best")


def _missing_where(values, withheld):
    """A nullable boolean column of ``values`` (raveled), missing (<NA>) where ``withheld``."""
    column = pd.array(np.asarray(values, dtype=bool).ravel(), dtype="boolean")
    column[np.asarray(withheld, dtype=bool).ravel()] = pd.NA
    return column
