"""CurvesResult: fields, tables and prose of a learning-curves analysis; reads fields, computes nothing."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt
from ...errors import OptionError, agent_named
from ..._typing import ColumnNames, Label
from ...results import Result, resultclass, sentences
from ...vocabulary import metric_label
from .._replication import untrimmed_iqm_label
from . import plots
from ._backend import STUDENTIZED_BANDS

#: the statistics with studentised bands (a statistic function keeps the expanded ones)
_STUDENTIZED = ("iqm", "mean", "median", "optimality_gap")


def step_stretches(steps, flags):
    """Contiguous runs of True in ``flags`` as (first step, last step) pairs."""
    out, start = [], None
    for i, flag in enumerate(flags):
        if flag and start is None:
            start = i
        if start is not None and (not flag or i == flags.size - 1):
            stop = i if flag else i - 1
            out.append((steps[start], steps[stop]))
            start = None
    return out


def step_ranges(pairs, limit=None):
    """(first, last) stretches of steps as text, "140, 160-180"; past ``limit`` stretches, the rest counted."""
    return fmt.listed((fmt.format_step(a) if a == b else f"{fmt.format_step(a)}-{fmt.format_step(b)}"
                       for a, b in pairs), limit)


def no_difference_words(differences, withheld=None):
    """What the verdict of a pair says where no step is declared different: "no step differs", or where some steps
    were not compared (withheld, ``difference_withheld``, or without a difference where a curve is missing) "no step
    compared differs", and "compared at no step" where none was (audit s27: a claim of steps never compared); the
    words the cannot-reject note quotes (curvegap27). Scores without spread (a p-value NaN, the difference 0) are
    compared: no step differs."""
    uncompared = np.isnan(differences) | (False if withheld is None else withheld)
    return ("no step differs" if not uncompared.any() else "compared at no step" if uncompared.all() else
            "no step compared differs")


def _at_steps(pairs):
    """"at step 7k" of one step, "at steps 5k-7k, 9k" of more (audit s15: "at steps 7k")."""
    one = len(pairs) == 1 and pairs[0][0] == pairs[0][1]
    return f"at step{'' if one else 's'} {step_ranges(pairs)}"


@resultclass
class CurvesResult(Result):
    """Result of :func:`rlstats.curves`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    agents, tasks : tuple of str
    step_column : str
    steps : ndarray, shape (n_steps,)
        The grid the curves are on.
    statistic : str
        The per-step aggregate (``"iqm"``, ``"mean"``, ... or a function's name).
    estimates : ndarray, shape (n_agents, n_steps)
    pointwise : ndarray, shape (n_agents, n_steps, 2)
        Interval at each step. With ``bands="studentized"`` (the default) and a built-in statistic, the hull of the
        studentised (bootstrap-t) interval and the t-expanded percentile one; with ``bands="expanded"`` or a
        statistic function, the t-expanded percentile interval alone (the bootstrap's percentiles, their distances
        from the estimate widened by the t quantile at ``df`` over the normal one).
    simultaneous : ndarray, shape (n_agents, n_steps, 2)
        Band covering the whole curve at ``confidence_level``: the sup-t band, hulled with the bootstrap-t one
        where ``pointwise`` is.
    std_error : ndarray, shape (n_agents, n_steps)
        Standard error at each step. With ``bands="studentized"`` and a built-in statistic, the stratified
        first-order (delta-method) standard error on the runs, sqrt(sum over tasks of a_t^2 var_t / n_t) (the
        standard error that studentises the bootstrap-t band; a_t the task's weight, var_t the variance of its
        runs' pseudo-values: the score for the mean); with ``bands="expanded"`` or a statistic function, the
        standard deviation of ``bootstrap_distribution``.
    critical_value : ndarray, shape (n_agents, n_steps)
        Multiplier of the standard error in the simultaneous band at each step.
    df : ndarray, shape (n_agents, n_steps)
        Effective degrees of freedom of the statistic at each step (Welch-Satterthwaite over tasks,
        from the bootstrap's empirical influence of each run), which widen both bands as t quantiles.
    bootstrap_distribution : ndarray, shape (n_agents, n_resamples, n_steps)
        The statistic on every resample, its deviation from the estimate widened by
        sqrt(n/(n - 1)) (not exported by ``to_dict``).
    n_resamples : int
    confidence_level, alpha : float
    counts : ndarray, shape (n_tasks, n_agents)
        Runs per agent and task.
    pairs : tuple of (str, str)
        The curve comparisons made.
    differences : ndarray, shape (n_pairs, n_steps)
        First agent minus second, per step.
    difference_bands : ndarray, shape (n_pairs, n_steps, 2)
        Band of each difference from the max-T relabellings at level 1 - ``alpha``: it excludes 0
        at the steps where ``difference_pvalues <= alpha``.
    difference_pvalues : ndarray, shape (n_pairs, n_steps)
        Max-T permutation p-values, adjusted over all steps.
    relabellings : tuple of int or None
        Per pair, how many relabellings its max-T null enumerated (all of them, so its p-values are exact) where
        there are at most ``n_resamples``; None where ``n_resamples`` were drawn.
    difference_withheld : ndarray of bool, shape (n_pairs, n_steps)
        Where a comparison is withheld (its p-value and band NaN, ``significant`` missing): at the steps where a task
        has one run of either agent logged, the steps its bands are withheld at for that reason (runs that ended
        early). The max-T adjustment runs over every step, so the other steps' p-values do not depend on it.
    measured_coverage : tuple of (str, float)
        The bands (``"simultaneous"``, ``"pointwise"``) whose coverage the calibration table shows short of
        ``confidence_level`` at this design, each with the coverage the notes quote; empty where none is (or every
        band is withheld). The figure's title quotes it beside the nominal level.
    fewest_logged : ndarray of int, shape (n_agents, n_steps)
        The fewest runs of a task of the agent logged at each step (0 where a task has none, its curve missing there);
        below ``counts`` at the steps some runs do not reach (ended early, started late), which the prose says.
    dropped_tasks : tuple of str
        The tasks ``na_action="drop"`` left out because some agent has no runs there
        (:attr:`rlstats.design.Design.dropped_tasks`): the figure names the tasks its curves are of where any were.
    normalized : bool
        Whether the scores were normalised (``normalize=``, or a frame from :func:`rlstats.normalize`): the
        figure's axis says so, as the notes do.
    """

    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    step_column: str
    steps: np.ndarray
    statistic: str
    estimates: np.ndarray
    pointwise: np.ndarray
    simultaneous: np.ndarray
    std_error: np.ndarray
    critical_value: np.ndarray
    df: np.ndarray
    bootstrap_distribution: np.ndarray
    n_resamples: int
    confidence_level: float
    alpha: float
    counts: np.ndarray
    pairs: tuple[tuple[str, str], ...]
    differences: np.ndarray
    difference_bands: np.ndarray
    difference_pvalues: np.ndarray
    normalized: bool = False
    relabellings: tuple[int | None, ...] = ()
    measured_coverage: tuple[tuple[str, float], ...] = ()
    difference_withheld: np.ndarray | None = None
    fewest_logged: np.ndarray | None = None
    dropped_tasks: tuple[str, ...] = ()

    _plot_kinds: ClassVar[dict] = {"curves": plots.plot_curves, "difference": plots.plot_difference}

    def _relabelled(self):
        """How the max-T nulls were made: n_resamples drawn relabellings, or every relabelling enumerated."""
        enumerated = {n for n in self.relabellings if n is not None}
        if not enumerated:
            return fmt.count(self.n_resamples, "relabelling")
        counts = " or ".join(fmt.integer(n) for n in sorted(enumerated))
        if None not in self.relabellings:
            return f"all {counts} relabellings enumerated, so the p-values are exact"
        return (f"{fmt.count(self.n_resamples, 'relabelling')}, or all of them ({counts}) enumerated for the pairs "
                "that have at most that many, whose p-values are then exact")

    @property
    def label(self) -> str:
        """The statistic as the axis, legend, header and tables name it: the IQM's saying where it trims nothing."""
        if self.statistic == "iqm":
            return untrimmed_iqm_label(self.counts, self.agents, metric_label(self.statistic))
        return metric_label(self.statistic)

    def _pair_index(self, a, b):
        # the result's labels (errors.agent_named): difference(0, 2) names the agents printed 0 and 2; a value naming
        # none is the one error of an unknown agent (review s31: advised a rerun with it, which failed)
        a, b = (agent_named(self.agents, option, x) for option, x in (("a", a), ("b", b)))
        for i, pair in enumerate(self.pairs):
            if pair == (a, b):
                return i, 1.0
            if pair == (b, a):
                return i, -1.0
        raise OptionError(f"no comparison of {a!r} and {b!r} was made; compared pairs: "
                          f"{', '.join(f'{p[0]}-{p[1]}' for p in self.pairs) or 'none'} (rerun with compare=[({a!r}, {b!r})])")

    def _pvalues_where(self) -> str:
        if not self.pairs:
            return super()._pvalues_where()
        return ("its curve comparisons have a max-T adjusted p-value per pair and step, res.difference_pvalues "
                "(pairs x steps, in the order of res.pairs) and the p_adjusted column of res.difference(a, b)")

    def difference(self, a: Label, b: Label) -> pd.DataFrame:
        """Per-step difference a - b with its max-T band, adjusted p-value and decision.

        Columns: step, estimate, conf_low, conf_high (the band at level 1 - alpha from the same
        relabellings as the test, so it excludes 0 where the step is significant), p_adjusted
        (max-T over all steps), significant (p_adjusted <= alpha; missing, a nullable boolean column, wherever
        p_adjusted is: at the steps where the comparison is withheld, ``difference_withheld``, and where a task has no
        run of either agent logged, whose curve is missing there).
        """
        i, sign = self._pair_index(a, b)
        band = self.difference_bands[i] * sign
        significant = self.difference_pvalues[i] <= self.alpha
        # audit s27 curvegap27: a step without a p-value (a curve missing there) said False, a decision never made
        withheld = self._withheld(i) | np.isnan(self.difference_pvalues[i])
        return pd.DataFrame({
            "step": self.steps, "estimate": self.differences[i] * sign,
            "conf_low": np.minimum(band[:, 0], band[:, 1]), "conf_high": np.maximum(band[:, 0], band[:, 1]),
            "p_adjusted": self.difference_pvalues[i],
            "significant": pd.arrays.BooleanArray(significant, withheld) if withheld.any() else significant,
        })

    def _withheld(self, i):
        """(steps,) where comparison ``i`` is withheld (none in a result saved before audit s27)."""
        if self.difference_withheld is None or not np.size(self.difference_withheld):
            return np.zeros(self.steps.size, dtype=bool)
        return np.asarray(self.difference_withheld[i], dtype=bool)

    def _withheld_words(self, i):
        """"withheld at steps 500k-700k (one run of a task logged, see the notes)", "not compared at steps 600k-800k
        (a curve missing there, see the notes)" (session 28: the verdict's steps read as all the steps compared), or
        None where every step is compared; nothing of the steps without a difference where none has one (the verdict
        says "compared at no step")."""
        withheld = self._withheld(i)
        missing = np.isnan(self.differences[i]) & ~withheld
        parts = [] if not withheld.any() else [
            f"withheld {_at_steps(step_stretches(self.steps, withheld))} (one run of a task logged, see the notes)"]
        if missing.any() and not (missing | withheld).all():
            # a built-in statistic is NaN only where a task has no run of the agent logged; a function's may be its own
            why = "a curve missing there, see the notes" if self.statistic in _STUDENTIZED else "the difference is NaN"
            parts.append(f"not compared {_at_steps(step_stretches(self.steps, missing))} ({why})")
        return "; ".join(parts) or None

    def _ahead(self, i):
        """(steps,) flags of comparison ``i`` (a, b): where the max-T test finds a above b, and b above a: what the
        print's verdict says and the figure marks under the curves (audit s35 plots35)."""
        differs = self.difference_pvalues[i] <= self.alpha
        return differs & (self.differences[i] > 0), differs & (self.differences[i] < 0)

    def _above(self, a, b):
        """"a above b", as the print's verdict and the figure's legend say it; the optimality gap is lower for the
        better agent, so "above" would read as ahead: "a's gap above b's (more shortfall below gamma)" (audit s22,
        curves22)."""
        if self.statistic == "optimality_gap":
            return f"{a}'s gap above {b}'s (more shortfall below gamma)"
        return f"{a} above {b}"

    def _verdicts(self):
        """(pair, sentence) for every comparison: over which steps which agent is ahead."""
        out = []
        for i, (a, b) in enumerate(self.pairs):
            ahead, behind = (step_stretches(self.steps, flags) for flags in self._ahead(i))
            parts = []
            if ahead:
                parts.append(f"{self._above(a, b)} {_at_steps(ahead)}")
            if behind:
                parts.append(f"{self._above(b, a)} {_at_steps(behind)}")
            withheld = self._withheld_words(i)
            if not parts:
                # audit s27: "no step differs" of steps never compared would be a claim of them
                parts.append(f"{a} and {b}: " + no_difference_words(self.differences[i], self._withheld(i)))
            out.append(((a, b), "; ".join(parts + ([withheld] if withheld else []))))
        return out

    def _tasks_said(self):
        """", on the one task, Pong" where the curves are of one task (by the data or by na_action="drop"), ", over
        the 3 tasks every agent ran (Acrobot-v1 dropped)" where tasks were dropped, "" otherwise (averaged over the
        data's tasks, as the notes say): the figures' titles, and the print's and summary's line and table of the last
        step (audit s35 small35: those did not name the one task)."""
        task = self._block_word
        if not self.dropped_tasks:
            return f", {fmt.over_tasks(self.tasks, word=task)}" if len(self.tasks) == 1 else ""
        dropped = f" ({fmt.listed(fmt.names_shown(self.dropped_tasks), limit=3)} dropped)"
        if len(self.tasks) == 1:
            return f", {fmt.over_tasks(self.tasks, word=task)}{dropped}"
        kept = (fmt.listed(fmt.names_shown(self.tasks)) if len(self.tasks) <= 3 else
                f"the {fmt.count(len(self.tasks), task)} every {self._arm_word} ran")
        return f", over {kept}{dropped}"

    def _statistic_line(self):
        return (f"steps = {fmt.integer(self.steps.size)} ({fmt.format_step(self.steps[0])} to "
                f"{fmt.format_step(self.steps[-1])}), "
                f"resamples = {fmt.integer(self.n_resamples)}, confidence level = {self.confidence_level}")

    def _extra_lines(self):
        last = self.steps.size - 1
        lines = [f"{self.label} at the last step ({fmt.format_step(self.steps[last])}){self._tasks_said()}, with the "
                 "simultaneous band:"]
        levels = np.column_stack([self.estimates[:, last], *self.simultaneous[:, last].T])
        # at the digits of the summary's table of the last step, where it widens them (audit s36 digits36)
        said = np.reshape(fmt.signif_levels(levels, among=self._last_step()), levels.shape)
        for j, agent in enumerate(self.agents):
            if np.isnan(self.estimates[j, last]):  # audit s15: "NaN (NaN to NaN)"
                # a built-in statistic is missing only where a task has no run of the agent logged (the notes say
                # where); a statistic function's NaN may be its own
                lines.append(f"  {agent}: " + (f"missing, a task has no run of {agent} logged at this step (see the "
                                               "notes)" if self.statistic in _STUDENTIZED else "NaN (no band)"))
                continue
            lo, hi = self.simultaneous[j, last]
            # apart at any shift of the scores, read with the other agents' (audit s35 digits35: "1e+06 (1e+06 to
            # 1e+06)")
            estimate, lo_text, hi_text = said[j]
            band = (f"{lo_text} to {hi_text}" if np.isfinite(lo) or np.isinf(self.estimates[j, last])
                    else "band withheld, see the notes")  # several reasons (runs, ties at a cap): the notes say which
            lines.append(f"  {agent}: {estimate} ({band})")
        if self.pairs:
            lines.append(f"curve comparisons (max-T permutation over all steps, alpha = {self.alpha}):")
            lines += [f"  {sentence}" for _, sentence in self._verdicts()]
        return lines

    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per (agent, step): estimate, std_error, pointwise and simultaneous bounds."""
        k, s = self.estimates.shape
        return pd.DataFrame({
            "agent": np.repeat(np.asarray(self.agents, dtype=object), s),
            "step": np.tile(self.steps, k),
            "estimate": self.estimates.ravel(),
            "std_error": self.std_error.ravel(),
            "conf_low": self.pointwise[:, :, 0].ravel(),
            "conf_high": self.pointwise[:, :, 1].ravel(),
            "conf_low_simultaneous": self.simultaneous[:, :, 0].ravel(),
            "conf_high_simultaneous": self.simultaneous[:, :, 1].ravel(),
        })

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        return pd.DataFrame([{
            "method": self.method, "metric": self.statistic, "conf_level": self.confidence_level,
            "n_resamples": self.n_resamples, "n_agents": self.n_agents, "n_tasks": self.n_tasks,
            "n_steps": self.steps.size, "n_obs": self.nobs, "n_comparisons": len(self.pairs), "alpha": self.alpha,
        }])

    def _last_step(self):
        """The tidy rows of the last step, one per agent."""
        return self.tidy().groupby("agent", sort=False).tail(1).reset_index(drop=True)

    def _summary_tables(self):
        tables = {f"{self.label} at the last step{self._tasks_said()}": self._last_step()}
        if self.pairs:
            rows = []
            for i, ((a, b), sentence) in enumerate(self._verdicts()):
                p = self.difference_pvalues[i]
                rows.append({"agent_1": a, "agent_2": b, "n_steps_different": int(np.sum(p <= self.alpha)),
                             "p_adjusted": float(np.nanmin(p)) if np.isfinite(p).any() else np.nan,
                             "reason": sentence})
            tables["curve comparisons (smallest adjusted p over steps)"] = pd.DataFrame(rows)
        return tables

    def _fewer_logged(self):
        """", fewer at the steps some runs do not reach: B down to 2 runs of a task at steps 151M-199M", or "" where
        every run is logged at every step (session 28: the runs per agent and task were said of every step)."""
        if self.fewest_logged is None:
            return ""
        said = {}
        for a, agent in enumerate(fmt.names_shown(self.agents)):
            fewer = self.fewest_logged[a] < self.counts[:, a].min()
            if fewer.any():
                least = int(self.fewest_logged[a][fewer].min())
                task = fmt.a_or_an(self._block_word)  # the data's blocks by their column (audit s33 words33b)
                words = f"no run of {task}" if least == 0 else f"down to {fmt.count(least, 'run')} of {task}"
                said.setdefault((words, _at_steps(step_stretches(self.steps, fewer))), []).append(agent)
        parts = [f"{fmt.join_and(agents, limit=3)} {words} {steps}" for (words, steps), agents in said.items()]
        return ", fewer at the steps some runs do not reach: " + fmt.join_and(parts, limit=3) if parts else ""

    def _prose(self):
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        runs = self.counts[self.counts > 0]
        per_cell = f"{runs.min()}" if runs.min() == runs.max() else f"{runs.min()} to {runs.max()}"
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s33 words33b)
        tasks = fmt.plural(task)
        text = (f"We computed the {self.label} of {fmt.count(self.n_agents, agent)} over "
                f"{fmt.count(self.n_tasks, task)} "
                f"({per_cell} runs per {agent} and {task}{self._fewer_logged()}) at each of "
                f"{fmt.integer(self.steps.size)} "
                f"steps from "
                f"{fmt.format_step(self.steps[0])} to "
                f"{fmt.format_step(self.steps[-1])}. ")
        if np.isnan(self.pointwise).all() and np.isnan(self.simultaneous).all():
            # nothing drawn, nothing to describe: the notes say why they were withheld
            text += f"The {level} pointwise and simultaneous bands were withheld for every {agent} (see below)."
        elif self.options.get("bands") in STUDENTIZED_BANDS and self.statistic in _STUDENTIZED:
            text += (f"{level} pointwise and simultaneous bands come from "
                     f"{fmt.count(self.n_resamples, 'stratified bootstrap resample')} that draw whole runs within each "
                     f"{task} (Agarwal et al., 2021), each band the hull of two: a studentised (bootstrap-t) band, "
                     "each "
                     "resample's deviation divided by its own standard error (Hall, 1988), simultaneous from the "
                     "largest and smallest such ratio over steps (sup-t; Montiel Olea and Plagborg-Moller, 2019); and "
                     "the percentile and sup-t bands with bootstrap deviations widened by sqrt(n/(n - 1)) (Hesterberg, "
                     "2015) and t quantiles at each step's effective degrees of freedom (Welch-Satterthwaite over "
                     f"{tasks}; Satterthwaite, 1946).")
        else:
            text += (f"{level} pointwise and simultaneous bands come from "
                     f"{fmt.count(self.n_resamples, 'stratified bootstrap resample')} that draw whole runs within each "
                     f"{task}, so "
                     "that every resampled curve is made of whole runs (Agarwal et al., 2021); the simultaneous band "
                     "is the estimate plus or minus the quantile of the largest studentised deviation over steps "
                     "(sup-t; its t quantile read at most at the Bonferroni tail), meant to cover the whole curve at the stated level. Bootstrap deviations were widened "
                     f"by sqrt(n/(n - 1)), n being the {agent}'s fewest runs of {fmt.a_or_an(task)} logged at the "
                     "step, since "
                     "resampling n runs reproduces (n - 1)/n of their variance (Hesterberg, 2015), and both bands use t quantiles at "
                     "each step's effective "
                     f"degrees of freedom (Welch-Satterthwaite over {tasks}; Satterthwaite, 1946) in place of normal "
                     "ones.")
        if self.pairs:
            text += (f" Curves were compared pair by pair with a max-T permutation test over steps, relabelling "
                     f"whole runs within {tasks} ({self._relabelled()}; Westfall and Young, 1993), which "
                     f"keeps the probability of declaring any step different at most {self.alpha} when two "
                     f"{fmt.plural(agent)} "
                     "do not differ; the band of each difference comes from the same relabellings and excludes 0 "
                     "exactly where a step is declared different. " + sentences(s for _, s in self._verdicts()))
        return text

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        del out["bootstrap_distribution"]
        return out
