"""The equivalence tests' result: fields, tables and prose (reads fields, computes nothing)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt
from ... import vocabulary
from ...errors import OptionError
from ..._typing import ColumnNames
from ...results import Result, Summary, resultclass, to_jsonable
from . import plots

#: tidy()'s columns, in order
_COLUMNS = ("scope", "agent_1", "agent_2", "task", "n_tasks", "estimate", "std_error", "df", "statistic", "p_value",
            "p_lower", "p_upper", "conf_low", "conf_high", "conf_level", "margin", "alternative", "shown", "conclusion",
            "method")


@resultclass
class EquivalenceResult(Result):
    """Result of :func:`equivalence`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    margin : float
        The equivalence margin (the band is -margin to +margin).
    margin_scale : str
        The margin's units (``Design.units``, as every result says them): ``"normalised scores"`` or ``"the units of
        '<response>'"``.
    alternative : str
        ``"equivalence"`` (TOST) or ``"noninferior"`` (one-sided).
    alpha : float
        Level of each one-sided test.
    confidence_level : float
        1 - 2 alpha: the level of the interval that decides.
    higher_is_better : bool
        Which side is "worse" for non-inferiority.
    agents, tasks : tuple of str
    counts : ndarray, shape (n_tasks, n_agents)
        Runs per cell.
    pairs : tuple of (str, str)
        The pairs compared, (agent_1, agent_2); agent_2 is ``"published"`` with a published table.
    comparisons : DataFrame
        One row per pair and scope ("task": each task both ran, Welch's t; "across tasks": the mean over the tasks
        both ran of the task-level differences of means, with the Welch-Satterthwaite interval of the tasks at hand or
        the paired t over tasks; "aggregate": the bootstrap-t of the IQM difference, or of the mean's with each end at
        least the Welch t bound's, method "bootstrap-t with Welch t floor", on the tasks both ran): n_tasks (the tasks
        the test read: 1 per task, the pair's shared tasks across tasks and in aggregate), estimate (agent_1 - agent_2),
        std_error, df, statistic (the t of the deciding side), p_value (the larger one-sided p-value for
        equivalence, the one of "worse" for non-inferiority), p_lower (H0 delta <= -margin), p_upper (H0 delta >=
        margin), conf_low and conf_high (the 1 - 2 alpha interval), margin, shown (the alternative was shown; None
        where the test was withheld), conclusion (in words), method; and, not in tidy(), p_beyond: the p-value of
        the one-sided test that the difference lies past the bound its interval lies wholly past (H0 delta >=
        -margin below, H0 delta <= margin above; NaN past neither), the test behind a verdict "shown ... beyond the
        margin" and printed beside it.
    aggregate : str or None
        The aggregate tested (``"iqm"`` or ``"mean"``), None when left out (and with a published table).
    across : str
        The across-tasks test: ``"welch"`` (tasks at hand) or ``"paired_t"`` (tasks as a sample).
    published : bool
        Whether agent_2 is a published table of per-task summaries.
    n_resamples : int or None
        Bootstrap resamples of the aggregate; None where none were drawn (no aggregate, or it was withheld).
    aggregate_tasks : dict or None
        {(agent_1, agent_2): tasks} of the pairs whose aggregate was given on fewer tasks than ``tasks``: each pair's
        aggregate reads the tasks both its agents ran, as its per-task and across-tasks tests do (``n_tasks`` in
        tidy()); None where every aggregate given read every task.
    """

    margin: float
    margin_scale: str
    alternative: str
    alpha: float
    confidence_level: float
    higher_is_better: bool
    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    counts: np.ndarray
    pairs: tuple[tuple[str, str], ...]
    comparisons: pd.DataFrame
    aggregate: str | None
    across: str
    published: bool
    n_resamples: int | None
    aggregate_tasks: dict[tuple[str, str], tuple[str, ...]] | None = None

    _plot_kinds: ClassVar[dict] = {"intervals": plots.plot_intervals}

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON data, as every result's; ``aggregate_tasks`` as a list of {"agent_1", "agent_2",
        "tasks"} records in the pairs' order (a JSON object's keys are text: the pairs read "('A', 'C')", audit s32
        rfix32), or None."""
        out = super().to_dict()
        if self.aggregate_tasks is not None:
            out["aggregate_tasks"] = [{"agent_1": to_jsonable(a), "agent_2": to_jsonable(b), "tasks": to_jsonable(t)}
                                      for (a, b), t in self.aggregate_tasks.items()]
        return out

    def confidence_interval(self, confidence_level: float | None = None) -> pd.DataFrame:
        """The (1 - 2 alpha) intervals that decide, one row per tidy() row."""
        if confidence_level is not None and not np.isclose(confidence_level, self.confidence_level):
            raise OptionError(f"the deciding intervals are at 1 - 2 alpha = {self.confidence_level}; rerun "
                              f"rlstats.equivalence(..., alpha={fmt.signif((1 - confidence_level) / 2)})")
        return self.tidy()[["scope", "agent_1", "agent_2", "task", "conf_low", "conf_high"]]

    # ---- printing -------------------------------------------------------------------
    def _band(self):
        m = fmt.signif(self.margin)
        if self.alternative == "equivalence":
            return f"-{m} < delta < {m}"
        return f"delta > -{m}" if self.higher_is_better else f"delta < {m}"

    def _rule(self, level):
        """The decision rule in words: both ends inside the band (equivalence), or the end on the side of "worse"."""
        m = fmt.signif(self.margin)
        if self.alternative == "equivalence":
            return f"a difference is called equivalent when its {level} interval lies within \u00b1{m}"
        if self.higher_is_better:
            return (f"an agent is called non-inferior when the {level} interval of its difference has its lower end "
                    f"above -{m} (higher scores are better)")
        return (f"an agent is called non-inferior when the {level} interval of its difference has its upper end "
                f"below +{m} (lower scores are better)")

    def _statistic_line(self):
        return (f"margin = {fmt.signif(self.margin)} ({self.margin_scale}), alpha = {fmt.signif(self.alpha)}, "
                f"pairs = {len(self.pairs)}")

    def _scope(self, scope, a, b):
        rows = self.comparisons  # (the columns compared as arrays: the printed lines read a pair's rows many times)
        return rows[(rows["scope"].to_numpy() == scope) & (rows["agent_1"].to_numpy() == a)
                    & (rows["agent_2"].to_numpy() == b)]

    def _pair_lines(self, a, b):
        lines = [f"{fmt.difference_label(a, b)}:"]
        tasks = self._scope("task", a, b)
        tested = tasks[tasks["shown"].notna()]
        task = self._block_word  # the data's blocks by their column (audit s32 block32); "per task" heads the scope
        # audit s36 fixeq36: a pair sharing no task printed "across these 0 tasks: withheld", and one sharing one
        # "across these 1 task: withheld" and "1 of 1 task tested shown equivalent", its test only in summary()
        if not len(tasks):
            return lines + [f"  withheld: {a} and {b} share no {task} (none where both ran)"]
        if len(tasks) == 1:
            row = tasks.iloc[0]
            where = "of the data" if len(self.tasks) == 1 else "both ran"
            head = (f"on {fmt.names_shown([row['task']])[0]}, the one {task} {where} (no test across "
                    f"{fmt.plural(task)} from one)")
            return lines + [f"  {head}: withheld (see the notes)" if row["shown"] is None else
                            f"  {head}: {self._row_words(row, 'difference')}"]
        for scope in ("across tasks", "aggregate"):
            row = self._scope(scope, a, b)
            if not len(row):
                continue
            row = row.iloc[0]
            if row["shown"] is None or (isinstance(row["shown"], float) and np.isnan(row["shown"])):
                lines.append(f"  {self._scope_words(scope, row)}: withheld (see the notes)")
                continue
            # the across-tasks estimate is the mean of the tasks' differences, said as such (audit s35 claims35:
            # "difference -0.0188" over Atari 100k, where Krull's -0.82 and CrazyClimber's +0.50 cancel)
            what = "mean difference over tasks" if scope == "across tasks" else "difference"
            lines.append(f"  {self._scope_words(scope, row)}: {self._row_words(row, what)}")
            if scope == "across tasks":
                lines += self._tasks_beyond_line(a, b, bool(row["shown"]))
        if len(tasks) and not len(tested):
            lines.append(f"  per task: withheld on all {fmt.count(len(tasks), task)} (see the notes)")
        elif len(tasks):
            what = "equivalent" if self.alternative == "equivalence" else "non-inferior"
            lines.append(f"  per task: {int(tested['shown'].astype(bool).sum())} of "
                         f"{fmt.count(len(tested), task)} tested shown {what}{self._beyond_count(tested)}"
                         + (f" ({len(tasks) - len(tested)} withheld)" if len(tested) < len(tasks) else "")
                         + f"; separate tests each at alpha = {fmt.signif(self.alpha)}, not adjusted for "
                         f"multiplicity (on every {task}: holds at alpha; on some {task}: needs an adjustment)")
        return lines

    def _row_words(self, row, what):
        """A test's verdict with its estimate (``what``), interval, p-value and method, as a pair's line prints it."""
        level = f"{fmt.signif(100 * self.confidence_level, 3)}%"
        return (f"{row['conclusion']} ({what} {fmt.signif(row['estimate'])}, {level} CI "
                f"{self._bound(row['conf_low'])} to {self._bound(row['conf_high'])}, "
                f"{self._verdict_pvalue(row)}; {row['method']}{self._resampled(row)})")

    def _tasks_beyond_line(self, a, b, shown):
        """The line under the across-tasks verdict counting the tasks whose own test is shown beyond the margin, with
        the range of the tasks' differences: the mean over tasks averages them (audit s35 claims35: "equivalent
        within +-0.05" over Atari 100k DER vs DrQ, 12 of its 26 tasks shown beyond the margin); none where none is."""
        tasks = self._scope("task", a, b)
        tested = tasks[tasks["shown"].notna()]
        beyond = int(tested["conclusion"].str.startswith("shown ").sum())
        if not beyond:
            return []
        task = self._block_word
        what = "beyond the margin" if self.alternative == "equivalence" else "inferior by more than the margin"
        low, high = tested["estimate"].idxmin(), tested["estimate"].idxmax()
        return [f"    {'but' if shown else 'and'} {beyond} of the {fmt.count(len(tested), task)} "
                f"{fmt.verb(beyond, 'is')} shown {what} on {'its' if beyond == 1 else 'their'} own (the "
                f"{fmt.plural(task)}' differences range from {tested.at[low, 'task']} "
                f"{fmt.signif(tested.at[low, 'estimate'], 2)} to {tested.at[high, 'task']} "
                f"{fmt.signif(tested.at[high, 'estimate'], 2)}): the mean over {fmt.plural(task)} averages them"]

    def _resampled(self, row):
        """", 2000 resamples, seed 12899353..., Monte Carlo SE of the p-value 0.0035" of the aggregate's line: its
        bootstrap's count and seed (drawn where rng=None: ``rng=seed`` repeats it) and the Monte Carlo SE of the
        p-value printed (audit s32: three runs without rng= gave 0.0245, 0.0255 and 0.0240, and the print said none
        of this, where bootstrap() prints its largest Monte Carlo SE); empty on other rows."""
        if row["scope"] != "aggregate" or self.n_resamples is None:
            return ""
        beyond = row["conclusion"].startswith("shown ") and np.isfinite(row["p_beyond"])
        se = row.get("p_beyond_mc_se" if beyond else "p_mc_se", np.nan)
        error = ("" if not np.isfinite(se) else ", the p-value Welch's t's (no Monte Carlo error)" if se == 0 else
                 f", Monte Carlo SE of the p-value {fmt.signif(se, 2)}")
        return f", {self.n_resamples} resamples, seed {fmt.short_seed(self.seed)}{error}"

    def _verdict_pvalue(self, row):
        """The p-value of the test behind the verdict printed: a verdict beyond the margin (it opens with "shown")
        rests on the one-sided test past the bound, not on the TOST p, which is near 1 there (audit s19: "shown below
        -0.05" beside p-value = 0.9903); tidy()'s p_value keeps the TOST p."""
        if not row["conclusion"].startswith("shown ") or not np.isfinite(row["p_beyond"]):
            return fmt.pvalue_phrase(row["p_value"], alpha=[self.alpha])
        m = fmt.signif(self.margin)
        past = f"delta < -{m}" if row["conf_high"] < -self.margin else f"delta > {m}"
        text = fmt.format_pvalue(row["p_beyond"], alpha=[self.alpha])
        return f"one-sided p-value ({past}) {text if text.startswith('<') else '= ' + text}"

    def _bound(self, value, digits=fmt.DIGITS):
        """An interval's end, never rounded onto the margin it is judged against (-0.74801 is not -0.748 against a
        margin of 0.748: audit s22)."""
        return fmt.signif_apart(value, digits, [-self.margin, self.margin])

    def _beyond_count(self, rows):
        """", k shown beyond the margin": the tests whose interval lies wholly past a bound (_api's verdicts that
        open with "shown")."""
        k = int(rows["conclusion"].str.startswith("shown ").sum())
        what = "beyond the margin" if self.alternative == "equivalence" else "inferior by more than the margin"
        return f", {k} shown {what}" if k else ""

    def _extra_lines(self):
        # the agents as the table heads them (audit s27)
        delta = "agent - published" if self.published else self._delta()
        lines = [f"alternative hypothesis: {self._band()} (delta = {delta}), decided by the "
                 f"{fmt.signif(100 * self.confidence_level, 3)}% interval"]
        for a, b in self.pairs:
            lines += self._pair_lines(a, b)
        return lines

    def _summary_tables(self):
        shown = self.tidy()[["scope", "agent_1", "agent_2", "task", "estimate", "conf_low", "conf_high", "p_value",
                             "conclusion"]]
        # the print's caveat on the per-task rows rides with the table into a paper (its caption)
        per_task = (f"; per task, separate tests each at alpha = {fmt.signif(self.alpha)}, not adjusted for "
                    "multiplicity" if (shown["scope"] == "task").any() else "")
        # the caption says what the lower and upper columns are and what the verdict needs, which alpha alone did not
        # (a 90% interval at alpha = 0.05; one side for non-inferiority, and which side; audit s15)
        band = "\u00b1" if self.alternative == "equivalence" else ""
        rule = self._rule(f"{fmt.signif(100 * self.confidence_level, 3)}%")
        if shown["conclusion"].str.startswith("shown ").any():  # the verdicts past a bound, their level and p-value
            rule += (f"; wholly beyond the margin, the difference is shown beyond it (a one-sided test at alpha = "
                     f"{fmt.signif(self.alpha)})")
            beyond = self.comparisons["p_beyond"].where(self.comparisons["conclusion"].str.startswith("shown "))
            shown.insert(shown.columns.get_loc("p_value") + 1, "p_beyond", beyond.to_numpy())
        # audit s32: across='welch' is of the tasks at hand; the table pasted alone says so
        fixed = (f"; across tasks, Welch-Satterthwaite: an inference about these "
                 f"{fmt.count(self.n_tasks, self._block_word)} "
                 "(its standard error from the runs within each)"
                 if self.across == "welch" and (shown["scope"] == "across tasks").any() else "")
        return {f"Tests against the margin {band}{fmt.signif(self.margin)} ({self.margin_scale}); {rule}{per_task}"
                f"{fixed}": shown}

    def summary(self) -> Summary:
        """The table of every test; where a verdict is past the margin, a key says what its p-value column is, in
        the names each format heads the columns by (tidy names; LaTeX's labels in its caption: audit s20)."""
        tables = self._summary_tables()
        (name, table), = tables.items()
        # which way the estimate reads (audit s27: the table did not say it), in every format
        direction = f"estimate: delta = {self._delta()}"
        keys, captions = {name: direction}, {name: fmt.sentence_start(direction) + "."}
        if "p_beyond" in table.columns:
            keys[name] += "; " + self._beyond_key("p_beyond", "p_value")
            captions[name] += " Key: " + self._beyond_key(*map(vocabulary.label, ("p_beyond", "p_value"))) + "."
        return Summary(self.method, self._header(), tables, self.notes, statistic_line=self._statistic_line(),
                       keys=keys, captions=captions, alpha=self._levels())

    def _delta(self):
        """The difference tested, by the labels heading the pair's columns in every format; the control named, the
        2nd agent of every pair (audit s35 small35)."""
        control = self.options.get("control")
        named = "" if control is None else f", the control {fmt.names_shown([control])[0]}"
        return f"{vocabulary.label('agent_1')} - {vocabulary.label('agent_2')}{named}"

    @staticmethod
    def _beyond_key(p_beyond, p_value):
        return f"{p_beyond} is that test's p-value ({p_value}, the test of the alternative, is near 1 there)"

    # ---- tidy output ------------------------------------------------------------------
    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per pair and scope: each task, across tasks, the aggregate."""
        out = self.comparisons.copy()
        out["conf_level"] = self.confidence_level
        out["alternative"] = self.alternative
        return out[list(_COLUMNS)]

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """The margin, the level and how many tests showed the alternative, in one row."""
        shown = self.comparisons["shown"]
        return pd.DataFrame([{
            "method": self.method, "margin": self.margin, "alternative": self.alternative, "alpha": self.alpha,
            "conf_level": self.confidence_level, "n_comparisons": int(shown.notna().sum()),
            "n_shown": int(shown.fillna(False).astype(bool).sum()), "n_agents": self.n_agents,
            "n_tasks": self.n_tasks, "n_obs": self.nobs}])

    def _scope_words(self, scope, row):
        """A scope as the print and the prose name it: across='welch' is an inference about the tasks at hand (its
        standard error from the runs within them), said "across these 8 tasks" (audit s32: "across tasks" read as
        tasks in general), or "across the 3 tasks both ran"; the paired t over tasks (tasks as a sample) and the
        aggregate keep their names, with " over the 3 tasks both ran" where the pair shared fewer."""
        if scope == "across tasks" and self.across == "welch":
            n = int(row.get("n_tasks", len(self.tasks)))
            task = self._block_word  # the data's blocks by their column (audit s32 block32)
            return (f"across the {fmt.count(n, task)} both ran" if 0 < n < len(self.tasks) else
                    f"across these {fmt.count(n, task)}")
        return f"{scope}{self._over(row)}"

    def _over(self, row):
        """" over the 3 tasks both ran" of an across-tasks or aggregate row that read fewer tasks than the data's
        (audit s31: a pair's aggregate reads the tasks both its agents ran); else nothing."""
        n = row.get("n_tasks", len(self.tasks))
        return f" over the {fmt.count(int(n), self._block_word)} both ran" if 0 < n < len(self.tasks) else ""

    def _prose(self):
        level = f"{fmt.signif(100 * self.confidence_level, 3)}%"
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s32 block32)
        tasks, agents = fmt.plural(task), fmt.plural(agent)
        what = ("two one-sided tests (TOST; Schuirmann, 1987)" if self.alternative == "equivalence" else
                "a one-sided test of non-inferiority")
        # audit s37 claims37: "We tested 6 pairs" of a design where 4 of them never ran on a common task, each
        # printed "withheld: A and C share no task"; a pair with no task both ran is no test, and is not counted
        ran = {a: np.asarray(self.counts)[:, i] > 0 for i, a in enumerate(self.agents)}
        met = [(a, b) for a, b in self.pairs if self.published or (ran[a] & ran[b]).any()]
        against = (f"each {agent} against a published table of per-{task} means, standard deviations and run counts"
                   if self.published else f"{fmt.count(len(met), 'pair')} of {agents}" if len(met) == len(self.pairs)
                   else f"{len(met)} of the {len(self.pairs)} pairs of {agents} (the pairs that ran a common {task})")
        text = (f"We tested {against} on {fmt.count(self.n_tasks, task)} ({self.nobs} runs) "
                f"with {what} at alpha = {fmt.signif(self.alpha)} against a margin of {fmt.signif(self.margin)} "
                f"({self.margin_scale}; a margin should be fixed before the analysis): {self._rule(level)}. "
                + (f"Per {task} we used Welch's t (one {task}: no test across {tasks})" if self.n_tasks == 1 else
                   f"Per {task} we used Welch's t; across "
                   f"{tasks}, the mean over {tasks} of the {task}-level differences of means, "
                   + (f"with the one-sample t over {tasks}" if self.across == "paired_t" else
                      f"with its standard error from the runs within {tasks} on Welch-Satterthwaite df, an inference "
                      f"about these {fmt.count(self.n_tasks, task)}, not about {tasks} beyond them")))
        aggregate = self.comparisons[self.comparisons["scope"] == "aggregate"]
        if self.aggregate is not None and np.isfinite(aggregate["conf_low"].to_numpy(dtype=float)).any():
            text += (f"; in aggregate the {'IQM' if self.aggregate == 'iqm' else 'mean'} "
                     "difference with a "
                     f"studentised stratified bootstrap interval ({self.n_resamples} resamples; Agarwal et al., "
                     "2021)" + (", each end at least as far out as the Welch t bound's, as the bootstrap's own "
                                "interval of the mean" if self.aggregate == "mean" else ""))
        pooled = self.comparisons[self.comparisons["scope"] != "task"]
        if "n_tasks" in pooled and (pooled["n_tasks"] < len(self.tasks)).any():  # audit s31: the pairs' own tasks
            text += f"; each pair's tests read the {tasks} both its {agents} ran"
        text += "."
        for a, b in self.pairs:
            parts = []
            for scope in ("across tasks", "aggregate"):
                row = self._scope(scope, a, b)
                if len(row) and row.iloc[0]["shown"] is not None and np.isfinite(row.iloc[0]["conf_low"]):
                    r = row.iloc[0]
                    what = "mean difference over tasks" if scope == "across tasks" else "difference"
                    parts.append(f"{self._scope_words(scope, r)}, {r['conclusion']} ({what} "
                                 f"{fmt.signif(r['estimate'], 3)}, {level} CI "
                                 f"{self._bound(r['conf_low'], 3)} to {self._bound(r['conf_high'], 3)})")
            tasks = self._scope("task", a, b)
            tested = tasks[tasks["shown"].notna()]
            if len(tasks) == 1 and len(tested):  # its one task's test, not "1 of 1 task" (audit s36 fixeq36)
                r = tested.iloc[0]
                where = "of the data" if len(self.tasks) == 1 else "both ran"
                parts.append(f"on {fmt.names_shown([r['task']])[0]}, the one {task} {where}, {r['conclusion']} "
                             f"(difference {fmt.signif(r['estimate'], 3)}, {level} CI {self._bound(r['conf_low'], 3)} "
                             f"to {self._bound(r['conf_high'], 3)})")
            elif len(tested):
                # what the count counts, said before it (audit s27: after "across tasks, not shown equivalent (...)",
                # "on 1 of 4 tasks individually" read as not shown on the one task that was shown equivalent)
                what = "equivalent" if self.alternative == "equivalence" else "non-inferior"
                withheld = f", {len(tasks) - len(tested)} more withheld" if len(tested) < len(tasks) else ""
                parts.append(f"shown {what} on {int(tested['shown'].astype(bool).sum())} of "
                             f"{fmt.count(len(tested), task)} tested individually{withheld}"
                             f"{self._beyond_count(tested)} (each at alpha = {fmt.signif(self.alpha)}, not adjusted "
                             f"for multiplicity: a claim about some {task} would need an adjustment)")
            if parts:
                text += f" {a} against {b}: " + "; ".join(parts) + "."
        # the caveat is for intervals across a bound; one wholly past a bound is a one-sided test at alpha of the
        # difference beyond it (audit s19: "may be too wide" was printed beside intervals far outside the band)
        verdicts = self.comparisons["conclusion"]
        if verdicts.str.startswith("not shown").any():
            text += (" Not shown equivalent does not mean different: the interval may be too wide for the margin."
                     if self.alternative == "equivalence" else
                     " Not shown non-inferior does not mean inferior: the interval may be too wide for the margin.")
        if verdicts.str.startswith("shown ").any():
            side = ("on each side " if self.alternative == "equivalence" else "")
            text += (f" An interval wholly beyond the margin shows the difference beyond it: {side}a one-sided test at "
                     f"alpha = {fmt.signif(self.alpha)} (the {level} interval past the bound).")
        return text
