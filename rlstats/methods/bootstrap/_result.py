"""Bootstrap results: fields, tables and prose (reads fields, computes nothing)."""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt
from ...bounds import KINDS, clip, clipped_note, known_or_unbounded
from . import _small_runs as small_runs
from . import plots
from ...design import Design
from ...options import check_confidence_level
from ..._typing import ColumnNames, Label
from ...results import Result, package_versions, resultclass, to_jsonable
from ...statistics import WELCH_FLOOR_CLOSED_SE
from ...vocabulary import label as column_label, median_is_mean_words, metric_label

_REFERENCE = "Agarwal et al. (2021)"


def _export(result, skip):
    """Result.to_dict without the fields in ``skip`` (large arrays, the design)."""
    out = {"result": type(result).__name__}
    for f in dataclasses.fields(result):
        if f.name not in skip:
            out[f.name] = to_jsonable(getattr(result, f.name))
    out["versions"] = package_versions()
    return out


def clipped_intervals(intervals, known, names, kinds, gamma):
    """((K, M, 2) intervals with each built-in metric's ends within its range, notes): under the score's known
    bounds, or without them the optimality gap's at 0 and above, which holds whatever the scores (audit s7: the
    studentized interval printed (-0.27, 6.3) on SimPLe's Atari 100k runs)."""
    known = known_or_unbounded(known)
    intervals, notes = intervals.copy(), []
    for j, (name, kind) in enumerate(zip(names, kinds)):
        if KINDS.get(kind) is not None:
            intervals[:, j], moved = clip(intervals[:, j], known.limits(KINDS[kind], gamma))
            note = clipped_note(moved, f"the {metric_label(name)} intervals", known, KINDS[kind], gamma)
            notes += [note] if note else []
    return intervals, notes


def _runs_phrase(counts, words=("task", "agent")):
    """"6 runs per algo and env": ``words`` the blocks and the arms by the formula's columns (audit s33 words33b)."""
    runs, (task, agent) = counts[counts > 0], words
    if runs.min() == runs.max():
        return f"{fmt.count(runs.min(), 'run')} per {agent} and {task}"
    return f"{runs.min()} to {runs.max()} runs per {agent} and {task}"


def _fewest_phrase(counts, agents):
    """c, each agent's fewest runs in a task, as the intervals used it: one number when all agents share it, else
    the agents grouped by theirs (Atari 100k: 5 for IRIS, 100 for SPR; one c for all would be false of the others)."""
    fewest = np.where(counts > 0, counts, np.iinfo(np.int64).max).min(axis=0)
    if fewest.min() == fewest.max():
        return f"c = {fewest[0]} the fewest runs in a task"
    return f"c the agent's fewest runs in a task ({fmt.by_value(fewest.tolist(), agents)})"


def _possessives(kinds):
    """"the mean's and the median's": the metrics' labels as owners, each with its article."""
    return fmt.join_and(f"the {metric_label(kind)}'s" for kind in kinds)


def _bootstrap_phrase(n_resamples, task_bootstrap, n_tasks, task="task"):
    tasks = fmt.plural(task)  # the blocks by the formula's column (audit s33 words33b)
    how = (f"the runs of every {task} resampled with replacement independently, {tasks} being the strata"
           if n_tasks > 1 else "the runs resampled with replacement")
    if task_bootstrap:
        how += f", and the {tasks} themselves resampled with replacement"
    return f"{fmt.count(n_resamples, 'stratified bootstrap resample')} ({_REFERENCE}; {how})"


def _max_se(se):
    finite = se[np.isfinite(se)]
    return float(finite.max()) if finite.size else float("nan")


@resultclass
class BootstrapResult(Result):
    """Result of :func:`bootstrap`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    agents, tasks : tuple of str
    metrics : tuple of str
        Metric names as passed (``"iqm"``, ``"optimality_gap"``, a function's name).
    estimates : ndarray, shape (n_agents, n_metrics)
        Point estimates on the data.
    intervals : ndarray, shape (n_agents, n_metrics, 2)
        Lower and upper confidence bounds.
    interval_mc_se : ndarray, shape (n_agents, n_metrics, 2)
        Monte Carlo standard error of each bound (binomial order-statistic
        method: the spread of the order statistic that is the bound, over resamplings).
    bootstrap_distribution : ndarray, shape (n_agents, n_metrics, n_resamples)
        The metrics on every resample (not exported by ``to_dict``).
    bias_correction, acceleration : ndarray or None, shape (n_agents, n_metrics)
        BCa's z0 and a (``interval="bca"`` only).
    n_resamples : int
    confidence_level : float
    interval : str
        ``"studentized"``, ``"percentile"``, ``"basic"``, ``"bca"``, ``"expanded"``, ``"studentized_no_welch"`` or
        ``"studentized_unwidened"``.
    task_bootstrap : bool
        Whether tasks were resampled as well as runs.
    gamma : float
        Threshold of the optimality gap.
    rliable_compat : bool
        Whether rliable's legacy draws and operations were used.
    counts : ndarray, shape (n_tasks, n_agents)
        Runs per cell used.
    degrees_of_freedom : ndarray, shape (n_agents,), or None
        Welch-Satterthwaite degrees of freedom of each agent's mean over tasks
        (``interval="expanded"``), or of its middle task means, the median's t interval
        (``interval="studentized"``); None otherwise.
    standard_errors : ndarray, shape (n_agents, n_metrics), or None
        The studentised interval's standard error of each estimate (``interval="studentized"`` only); for the
        median, that of its t interval: sqrt(c / (c - 1)) times the resamples' root-mean-square deviation from the
        estimate, c the agent's fewest runs in a task.
    skewness : ndarray, shape (n_agents, n_metrics), or None
        The skewness of each agent's mean and median that widens their intervals on the side of the skew (the runs'
        skewness pooled over tasks; 0 for the other metrics, which are not widened, but for the optimality gap of an
        agent whose gap takes the mean's interval, :attr:`gap_as_mean`: the mean's negated) (``interval="studentized"``); None otherwise.
    welch_degrees_of_freedom : ndarray, shape (n_agents,), or None
        The Welch-Satterthwaite degrees of freedom of each agent's mean over tasks, of the Welch t bound that the
        mean's and the optimality gap's intervals take where it is wider than the bootstrap-t's
        (``interval="studentized"``, audit s20); None otherwise.
    resampled_standard_errors : ndarray, shape (n_agents, n_metrics, n_resamples), or None
        The same standard error on every resample, paired with ``bootstrap_distribution``
        (``interval="studentized"`` only; NaN for the median, which is not studentised; not exported by
        ``to_dict``).
    design : Design
        The data analysed (used by :meth:`inferential_intervals`; not exported).
    metric_kinds : tuple of (str or None)
        The built-in metric each of ``metrics`` computes (``metrics={"middle": "median"}``: "median"), None for a
        function: what the intervals' arithmetic and range go by, whatever the metric is called.
    saturated : ndarray of bool, shape (n_agents, n_metrics), or None
        The studentised intervals withheld because the agent's runs mostly sit at a task's largest or smallest score
        (a cap) with too few off it (audit s10; ``interval="studentized"``), and the median's where 0.3 or more of
        them tie at such a score (audit s11, ``rlstats.bounds.MEDIAN_TIED_SHARE``) and half or more of those of the
        tasks the median sits on or 0.6 or more of all (audit s12, ``rlstats.bounds.median_tied_at_middle``), which
        would otherwise be given;
        not exported by ``to_dict``.
    welch_floored : ndarray of bool, shape (n_agents, n_metrics, 2), or None
        The bounds (lower, upper) the Welch t floor of the default studentised interval set (the mean's and the
        optimality gap's, a closed form of the data), which the print and the notes name; None where it set none.
        Not exported by ``to_dict``.
    withheld_notes : tuple of str
        The notes among ``notes`` that say which studentised intervals are withheld, why, and ``bootstrap()``'s way
        on; a back end quoting these intervals (the task table's aggregate row, equivalence's aggregate) selects them
        by this field, never by their words (audit s24: a task named 'withheld_task' brought in another note). Not
        exported by ``to_dict`` (``notes`` holds them).
    weighting_notes : tuple of str
        The note among ``notes`` naming the agents whose runs per task differ, where the IQM and the optimality gap
        weigh each task alike; not exported by ``to_dict``, as ``withheld_notes``.
    coverage_notes : tuple of str
        The notes among ``notes`` quoting the calibration table's coverage of nominal 95% intervals at few runs
        (``_small_runs.coverage_note``); a back end reading the intervals at another level (equivalence's aggregate:
        1 - 2 alpha) leaves them out by this field and quotes the rows of its own decision (audit s32). Not exported
        by ``to_dict``, as ``withheld_notes``.
    interval_cells : ndarray of object, shape (n_agents, n_metrics), or None
        The built-in metric whose interval each agent's each metric takes, by its method, rules and calibration rows
        (``_small_runs.interval_kinds``: on 1 or 2 tasks the median's is the mean's; an optimality gap with every score
        at or below gamma the mean's, reflected), None for a function. Not exported by ``to_dict``.
    task_standard_errors : tuple of ndarray, or None
        ``interval="expanded_tasks"``: the standard errors over tasks of the mean of task means, (n_agents,
        n_resamples) of the resamples and (n_agents,) of the data, from which the mean's bootstrap-t over tasks is
        read (audit s29); None otherwise. Not exported by ``to_dict``.
    """

    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    metrics: tuple[str, ...]
    estimates: np.ndarray
    intervals: np.ndarray
    interval_mc_se: np.ndarray
    bootstrap_distribution: np.ndarray
    bias_correction: np.ndarray | None
    acceleration: np.ndarray | None
    n_resamples: int
    confidence_level: float
    interval: str
    task_bootstrap: bool
    gamma: float
    rliable_compat: bool
    counts: np.ndarray
    degrees_of_freedom: np.ndarray | None = None
    standard_errors: np.ndarray | None = None
    skewness: np.ndarray | None = None
    welch_degrees_of_freedom: np.ndarray | None = None
    resampled_standard_errors: np.ndarray | None = field(default=None, repr=False)
    design: Design | None = field(default=None, repr=False)
    metric_kinds: tuple[str | None, ...] = ()
    saturated: np.ndarray | None = field(default=None, repr=False)
    welch_floored: np.ndarray | None = field(default=None, repr=False)
    withheld_notes: tuple[str, ...] = field(default=(), repr=False)
    weighting_notes: tuple[str, ...] = field(default=(), repr=False)
    coverage_notes: tuple[str, ...] = field(default=(), repr=False)
    interval_cells: np.ndarray | None = field(default=None, repr=False)
    task_standard_errors: tuple | None = field(default=None, repr=False)

    _plot_kinds: ClassVar[dict] = {"interval_estimates": plots.plot_interval_estimates}

    @property
    def _kinds(self):
        """The built-in metric of each of ``metrics`` (a result made without ``metric_kinds``: the names)."""
        return self.metric_kinds or self.metrics

    @property
    def _cells(self):
        """(n_agents, n_metrics) :attr:`interval_cells`, or for a result made without them the metrics' own rule
        (``_small_runs.interval_kinds``, no agent's gap below gamma)."""
        if self.interval_cells is not None:
            return self.interval_cells
        return small_runs.interval_kinds(self._kinds, self.n_tasks, self.interval, np.zeros(len(self.agents), bool))

    @property
    def _interval_kinds(self):
        """The built-in metric each of ``metrics`` is computed as, whose interval it takes but for an optimality gap
        below gamma (on 1 or 2 tasks the median's is the mean's, ``_small_runs.computed_metrics``)."""
        return small_runs.computed_metrics(self._kinds, self._cells)

    @property
    def gap_as_mean(self) -> np.ndarray | None:
        """(n_agents,) bool: the agents whose optimality gap took the interval of their mean of task means, reflected
        (every score at or below gamma, where the gap is gamma minus that mean; ``interval="studentized"``, audit
        s27), which a note says; None where none did."""
        which = small_runs.gap_takes_mean(self._kinds, self._cells)
        return which if which.any() else None

    def _statistic_line(self):
        strata = f"{self.n_tasks} task strata" if self.n_tasks > 1 else "1 stratum"
        extra = ", tasks resampled" if self.task_bootstrap else ""
        # audit s30 tboot30: interval="studentized", given or the default, gives way to it there: say so, so that a
        # call that asked for it can tell what it got; as the rule, true too where it was asked by name (review s31:
        # the options record the interval given, so the calls are alike here)
        given_way = (" (the default with tasks resampled: the studentized interval's standard errors are of runs "
                     "within tasks)" if self.interval == small_runs.TASKS_INTERVAL else "")
        return (f"resamples = {fmt.integer(self.n_resamples)}, confidence level = {self.confidence_level}, "
                f"interval = {self.interval}{given_way}, {strata}{extra}")

    def _extra_lines(self):
        lines = fmt.table_text(self.tidy()).split("\n")
        if np.isfinite(_max_se(self.interval_mc_se)):  # every interval withheld: no bound to speak of
            lines.append(f"largest Monte Carlo SE of a bound: {fmt.signif(_max_se(self.interval_mc_se), 2)}")
        return lines

    def _summary_tables(self):
        table = self.tidy()
        table["conf_low_mc_se"] = self.interval_mc_se[:, :, 0].T.ravel()
        table["conf_high_mc_se"] = self.interval_mc_se[:, :, 1].T.ravel()
        return {self._table_name(): table}

    def _table_name(self):
        return (f"{fmt.signif(100 * self.confidence_level)}% {self.interval} intervals "
                f"({fmt.count(self.n_resamples, 'resample')})")

    def _floored_key(self):
        """Which bounds the Welch t floor set, and what their Monte Carlo SE is ("" where it set none)."""
        if self.welch_floored is None or not self.welch_floored.any():
            return ""
        ends = {(True, True): "both bounds", (True, False): "the lower bound", (False, True): "the upper bound"}
        names = fmt.names_shown(self.agents)
        said = [f"{names[i]}'s {metric_label(self.metrics[j])} "
                f"({ends[tuple(bool(b) for b in self.welch_floored[i, j])]})"
                for j in range(len(self.metrics)) for i in range(len(self.agents)) if self.welch_floored[i, j].any()]
        closed = self.welch_floored & (self.interval_mc_se == 0)
        how = ("a closed form of the data: Monte Carlo SE 0" if closed[self.welch_floored].all() else
               "a closed form of the data: Monte Carlo SE 0 where the bootstrap-t bound lies more than "
               f"{fmt.signif(WELCH_FLOOR_CLOSED_SE)} of its Monte Carlo SEs inside it, else the bootstrap-t bound's SE "
               "times the chance that other resamples move it beyond the floor")
        return f"the Welch t floor set {fmt.join_and(said, limit=6)}, {how}"

    def _summary_keys(self):
        key = self._floored_key()
        return {self._table_name(): key} if key else {}

    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per metric and agent: agent, metric, estimate, conf_low, conf_high."""
        k, m = self.estimates.shape
        return pd.DataFrame({
            "agent": list(self.agents) * m,
            "metric": np.repeat(np.asarray(self.metrics, dtype=object), k),
            "estimate": self.estimates.T.ravel(),
            "conf_low": self.intervals[:, :, 0].T.ravel(),
            "conf_high": self.intervals[:, :, 1].T.ravel(),
        })

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """The procedure in one row."""
        return pd.DataFrame([{
            "method": self.method, "interval_method": self.interval, "conf_level": self.confidence_level,
            "n_resamples": self.n_resamples, "task_bootstrap": self.task_bootstrap, "n_agents": self.n_agents,
            "n_tasks": self.n_tasks, "n_obs": self.nobs,
        }])

    def _prose(self):
        """A methods-section paragraph: what was resampled, how intervals were formed, the estimates."""
        names = fmt.join_and(metric_label(m) for m in self.metrics)
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s33 words33b)
        design = (f"We report {names} for {fmt.count(self.n_agents, agent)} on {fmt.count(self.n_tasks, task)} "
                  f"({_runs_phrase(self.counts, (task, agent))})")
        intervals = (f"{level} {self.interval} confidence intervals from "
                     f"{_bootstrap_phrase(self.n_resamples, self.task_bootstrap, self.n_tasks, task)}")
        given = not np.isnan(self.intervals).all()  # none given: no claim of intervals nor of how they were made
        text = f"{design} with {intervals}." if given else \
            f"{design}; their {intervals} are all withheld, for the reasons given below."  # (audit s26 real26)
        fewest = _fewest_phrase(self.counts, self.agents)
        if given and self.interval == "expanded":
            text += (f" Each percentile interval was expanded for few runs per {task} (Hesterberg 2015): read at the "
                     f"level whose normal quantile is sqrt(c/(c - 1)) times the t quantile, with {fewest} and the "
                     f"Welch-Satterthwaite degrees of freedom of the {agent}'s mean over {fmt.plural(task)}.")
        if given and self.interval == small_runs.TASKS_INTERVAL:  # audit s29 taskboot29: which interval, per metric
            text += (f" With tasks resampled, each interval was read at the level whose normal quantile is "
                     f"sqrt(n/(n - 1)) times the t quantile with n = {self.n_tasks} tasks (Hesterberg's expansion, "
                     "the tasks as the sample)")
            kinds = set(self._interval_kinds)
            studentized = [m for m in ("mean",) if m in kinds]
            quantiles = [metric_label(m) for m in ("median", "iqm", "optimality_gap") if m in kinds]
            parts = []
            if studentized:
                parts.append("the mean's as a bootstrap-t over tasks (each resample's mean studentised by the "
                             "standard deviation of its task means over sqrt(n))")
            if quantiles:
                parts.append(f"the {fmt.join_and(quantiles)}'s as percentiles of the resampled statistic")
            text += (": " + "; ".join(parts) if parts else "") + "."
        if given and self.interval in small_runs.STUDENTIZED_INTERVALS:
            text += " " + self._studentized_prose(fewest)
        # an agent with unequal runs per task weighs each task alike (audit s8; the notes name the agents)
        weighted = bool((self.counts.min(axis=0) != self.counts.max(axis=0)).any())
        if "iqm" in self._kinds:
            text += (f" The IQM is the mean of the middle 50% of all runs pooled over {fmt.plural(task)} (floor(N/4) "
                     "runs cut from each end" + (f"; {fmt.a_or_an(agent)} whose runs per {task} differ counts each run "
                                                 f"of {fmt.a_or_an(task)} with c runs c_max / c times, so that each "
                                                 f"{task} weighs alike)." if weighted else ")."))
        if "optimality_gap" in self._kinds:
            text += f" The optimality gap is the mean shortfall of the runs below {fmt.signif(self.gamma)}" + (
                f" (each {task} weighing alike where {fmt.a_or_an(agent)}'s runs per {task} differ)." if weighted
                else ".")
        table = self.tidy()  # the levels read as its table reads them where it widens them (audit s36 digits36)
        for j, metric in enumerate(self.metrics):
            levels = np.column_stack([self.estimates[:, j], self.intervals[:, j, 0], self.intervals[:, j, 1]])
            said = np.reshape(fmt.signif_levels(levels, 3, among=table), levels.shape)  # apart at any shift (s35)
            parts = [f"{a} {said[i][0]} " + ("(interval withheld)" if np.isnan(self.intervals[i, j]).any() else
                                             f"({said[i][1]} to {said[i][2]})")
                     for i, a in enumerate(self.agents)]
            label = metric_label(metric)
            text += f" {label[:1].upper() + label[1:]}: {'; '.join(parts)}."
        if np.isfinite(_max_se(self.interval_mc_se)):  # every interval withheld: no bound to speak of
            text += (f" The largest Monte Carlo standard error of a bound is "
                     f"{fmt.signif(_max_se(self.interval_mc_se), 2)}.")
        if self.rliable_compat:
            text += (f" Resamples were drawn exactly as rliable 1.2.0 draws them "
                     f"(seed {fmt.short_seed(self.seed)}).")
        return text

    def _studentized_prose(self, fewest):
        """How the studentised intervals were made, said of the metrics computed alone (audit s26 real26: an IQM-only
        report described the median's t interval and the mean's and median's skew widening)."""
        kinds = set(self._interval_kinds)  # on 1 or 2 tasks the median takes the mean's interval (audit s26)
        task, tasks = self._block_word, fmt.plural(self._block_word)  # the data's blocks (audit s33 words33b)
        of = [m for m in ("iqm", "mean", "optimality_gap") if m in kinds]  # bootstrap-t; the median: a t interval
        scaled = f"the half-widths are scaled by sqrt(c/(c - 1)), {fewest}"
        parts = []
        if of:
            which = ("each interval" if "median" not in kinds else
                     f"the {'interval' if len(of) == 1 else 'intervals'} of the "
                     f"{fmt.join_and(metric_label(m) for m in of)}")
            verb = "is" if len(of) == 1 or "median" not in kinds else "are"
            parts.append(f"{which} {verb} studentised (bootstrap-t; Efron and Tibshirani 1993, Section 12.5): the "
                         "resamples' (estimate - observed) / standard error, with the stratified delta-method standard "
                         f"error within {tasks}" + (" (winsorised for the IQM)" if "iqm" in kinds else "") +
                         " and at least a quarter of the resamples' standard deviation, gives the quantiles, and "
                         + scaled)
        if "median" in kinds:
            parts.append("the median of task means takes a t interval, "
                         f"with its middle {task}'s degrees of freedom, of standard error sqrt(c/(c - 1)) times the "
                         "resamples' root-mean-square deviation from the estimate" + ("" if of else f", {fewest}"))
        if "median" in self._kinds and "median" not in kinds:
            parts.append(median_is_mean_words(self.n_tasks) + ", and takes the interval of the mean of task means")
        # each metric named by what it computes, where its interval is of the kind said (the median's: the mean's)
        pairs = list(zip(self._kinds, self._interval_kinds))

        def named(group):
            return [m for m in ("iqm", "mean", "median", "optimality_gap")
                    if any(k == m and i in group for k, i in pairs)]

        widened = named(("mean", "median"))
        if widened and self.interval in small_runs.WIDENED_INTERVALS:
            one = len(widened) == 1
            parts.append(f"{_possessives(widened)} {'interval is' if one else 'intervals are'} widened on the side of "
                         f"{'its' if one else 'their'} skew by the Cornish-Fisher term of a studentised mean (Hall "
                         f"1992), with the runs' skewness pooled over {tasks}")
        floored = named(small_runs.WELCH_FLOOR_METRICS)
        if floored and self.interval == "studentized":
            takes = "interval takes" if len(floored) == 1 else "intervals take"
            parts.append(f"{_possessives(floored)} {takes} on each side the wider of that bound and the Welch t "
                         "bound, the estimate -+ the t quantile times sqrt(c/(c - 1)) times the standard error, at the "
                         f"Welch-Satterthwaite degrees of freedom of the {self._arm_word}'s mean over {tasks} (the "
                         "bootstrap-t alone fell short on heavy-tailed runs)")
        text = "; ".join(parts) + "."
        return text[:1].upper() + text[1:]

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON data, except the bootstrap distribution and the design."""
        return _export(self, {"bootstrap_distribution", "resampled_standard_errors", "design", "saturated",
                              "welch_floored", "withheld_notes", "weighting_notes", "coverage_notes", "interval_cells",
                              "task_standard_errors"})

    def confidence_interval(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Intervals at another confidence level from the stored bootstrap distribution (tidy layout)."""
        level = self.confidence_level if confidence_level is None else \
            check_confidence_level(confidence_level)
        errors = None if self.standard_errors is None else (self.resampled_standard_errors, self.standard_errors)
        if self.interval == small_runs.TASKS_INTERVAL:
            errors = self.task_standard_errors or (None, None)
        bounds, _, _ = small_runs.bootstrap_bounds(self.bootstrap_distribution, self.estimates, level, self.interval,
                                                self.bias_correction, self.acceleration, self.rliable_compat,
                                                self.counts.min(axis=0), self.degrees_of_freedom, errors,
                                                self._interval_kinds, self.n_tasks, self.skewness,
                                                self.welch_degrees_of_freedom, self._cells)
        if self.saturated is not None:  # withheld at every level (audit s10)
            bounds = np.where(self.saturated[..., None], np.nan, bounds)
        if self.task_bootstrap and self.n_tasks == 1:  # tasks resampled from one task: no level (audit s28)
            bounds = np.full_like(bounds, np.nan)
        bounds, _ = clipped_intervals(bounds, getattr(self.design, "bounds", None), self.metrics, self._kinds,
                                      self.gamma)
        out = self.tidy()
        out["conf_low"] = bounds[:, :, 0].T.ravel()
        out["conf_high"] = bounds[:, :, 1].T.ravel()
        return out

    def inferential_intervals(self, a: Label, b: Label, test: Result | None = None, *,
                              alpha: float | None = None) -> InferentialIntervalsResult:
        """Inferential confidence intervals of two agents: they overlap exactly when the test does not reject.

        Each agent's interval [t - g_low, t + g_up] becomes
        [t - eps g_low, t + eps g_up] (thesis eq. 2.24), with the factor eps
        of eq. 2.28 computed from the two intervals and the p-value P of the
        blocked rank test:

            eps = (t2 - t1)(1 + P - alpha) / (t2 - t1 + t1_up - t2_low),

        which leaves a gap (t2 - t1)(alpha - P) between the scaled intervals.
        When eps applies is the documented choice of spec Section 7.3: we
        follow the thesis's code (Appendix B.2), not the text's rule 2, because
        only the code guarantees that non-overlap matches the test's decision:

        * test significant (P <= alpha): eps = 0.999 min(eps_2.28, 1), so the
          intervals are disjoint and never widened;
        * not significant, descriptive intervals disjoint: eps = 1.001 eps_2.28
          (> 1), widening them until they overlap (the text would keep them
          disjoint, contradicting the test);
        * not significant and overlapping: eps = 1 (descriptive intervals).

        Parameters
        ----------
        a, b : str, int or float
            Two agents of the result, named as the data write them.
        test : result with ``pvalue``, optional
            A test of exactly these two agents.  By default the blocked rank
            test (:func:`rlstats.skillings_mack`, asymptotic chi-squared
            p-value, as in the thesis) on the same data restricted to a and b.
        alpha : float, optional
            Level of the test's decision; default 1 - confidence_level.

        Returns
        -------
        InferentialIntervalsResult

        References
        ----------
        Casesa, R. (2024), Statistical Methods for Reinforcement Learning
        Policy Comparison, PhD thesis, Sections 2.4 and 2.7, eqs. 2.24-2.28,
        Appendix B.2.  Marasini, D., Quatto, P. and Ripamonti, E. (2017),
        Quality & Quantity 51, 1513-1529, Section 3.3.
        """
        from .. import operation

        return operation("inferential_intervals")(self, a, b, test, alpha=alpha)


# What a probability of improvement estimates, in print and summary: the direction, and ties (whole games of runs
# tie exactly on Atari's Freeway or Pong) counting one half, so never "P(agent_1 > agent_2)" alone (audit s16); the
# agents said as the table heads them in every format (audit s27: "P(agent_1 > agent_2)" over agents named agent_1)
def _poi_estimand(tasks, word="task", higher_is_better=True):
    """"P(1st agent > 2nd agent) + P(1st agent = 2nd agent) / 2 within a task, averaged over tasks", or on one task
    that task's alone (audit s19), the agents' columns said by their labels (:func:`rlstats.vocabulary.label`), as
    every format heads them; ``word``: the blocks as the data call them (``Formula.block_word``); "<" and "(smaller
    is better)" where ``higher_is_better`` is False (audit s34 ttt34)."""
    a, b = column_label("agent_1"), column_label("agent_2")
    several = f"within {fmt.a_or_an(word)}, averaged over {fmt.plural(word)}"
    if higher_is_better:
        return f"P({a} > {b}) + P({a} = {b}) / 2 {fmt.over_tasks(tasks, several, word)}"
    return f"P({a} < {b}) + P({a} = {b}) / 2 {fmt.over_tasks(tasks, several, word)} (smaller is better)"


@resultclass
class ProbabilityOfImprovementResult(Result):
    """Result of :func:`probability_of_improvement`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    pairs : tuple of (str, str)
        (X, Y) for each row: the estimate is P(X > Y) + P(X = Y) / 2, averaged over tasks (P(X < Y) + P(X = Y) / 2
        where ``options["higher_is_better"]`` is False: a time, smaller better; audit s34 ttt34).
    estimates : ndarray, shape (n_pairs,)
    intervals, interval_mc_se : ndarray, shape (n_pairs, 2)
    bootstrap_distribution : ndarray, shape (n_pairs, n_resamples), or None
        The resampled estimates; None with the score interval (``interval="score"``, the default), a closed form
        that reads no resample, so none is drawn.
    agents, tasks : tuple of str
    n_resamples : int or None
        None with the score interval.
    confidence_level : float
    counts : ndarray, shape (n_tasks, n_agents)
    """

    pairs: tuple[tuple[str, str], ...]
    estimates: np.ndarray
    intervals: np.ndarray
    interval_mc_se: np.ndarray
    bootstrap_distribution: np.ndarray | None
    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    n_resamples: int | None
    confidence_level: float
    counts: np.ndarray

    _plot_kinds: ClassVar[dict] = {"probability_of_improvement": plots.plot_probability_of_improvement}

    def _statistic_line(self):
        intervals = ("intervals = score (Hanley-McNeil)" if self.n_resamples is None else
                     f"resamples = {fmt.integer(self.n_resamples)}")
        return (f"{intervals}, confidence level = {self.confidence_level}, "
                f"pairs = {len(self.pairs)}, tasks = {len(self.tasks)}")

    @property
    def _higher(self):
        return self.options.get("higher_is_better", True)  # audit s34 ttt34: times, smaller better

    def _extra_lines(self):
        return [f"estimate: {_poi_estimand(self.tasks, self._block_word, self._higher)}",
                *fmt.table_text(self.tidy()).split("\n")]

    def _summary_tables(self):
        table = self.tidy()
        if self.n_resamples is not None:  # the score interval is a closed form: no Monte Carlo error to show
            table["conf_low_mc_se"] = self.interval_mc_se[:, 0]
            table["conf_high_mc_se"] = self.interval_mc_se[:, 1]
        return {_poi_estimand(self.tasks, self._block_word, self._higher): table}

    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per pair: agent_1, agent_2, estimate (the probability of improvement,
        :func:`_poi_estimand`), conf_low, conf_high."""
        return pd.DataFrame({
            "agent_1": [x for x, _ in self.pairs], "agent_2": [y for _, y in self.pairs],
            "estimate": self.estimates, "conf_low": self.intervals[:, 0], "conf_high": self.intervals[:, 1],
        })

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        return pd.DataFrame([{
            "method": self.method, "conf_level": self.confidence_level, "n_resamples": self.n_resamples,
            "n_agents": len(self.agents), "n_tasks": len(self.tasks), "n_obs": self.nobs,
        }])

    def _prose(self):
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        task = self._block_word  # the data's columns by their names (audit s32 block32)
        text = (f"For each pair of {fmt.plural(self._arm_word)} (X, Y) we estimated the probability of improvement, "
                f"the chance that a run of X scores {'higher' if self._higher else 'lower (smaller is better)'} "
                f"than a run of Y on the same {task} (ties counting one "
                "half), " + fmt.over_tasks(self.tasks, f"averaged over {fmt.count(len(self.tasks), task)}", task)
                + f" ({_runs_phrase(self.counts, (task, self._arm_word))}), ")
        if self.n_resamples is None:
            text += (f"with {level} score intervals: the probabilities p whose distance from the estimate is at most "
                     f"the normal quantile times the standard error the {fmt.plural(task)}' Hanley and McNeil (1982) "
                     f"variances give at p (Newcombe 2006, stratified by {task}).")
        else:
            text += (f"with {level} percentile intervals from "
                     f"{_bootstrap_phrase(self.n_resamples, False, len(self.tasks), task)}, each {self._arm_word}'s "
                     "runs resampled independently.")
        if self.options.get("interval") == "expanded":
            text += (f" Each interval was expanded for few runs per {task} (Hesterberg 2015): read at the level "
                     "whose normal quantile is sqrt(c/(c - 1)) times the t quantile, with c the fewest runs of the "
                     f"pair in {fmt.a_or_an(task)} and the degrees of freedom summed over the pair's "
                     f"{fmt.plural(task)}.")
        parts = [f"P({x} {'>' if self._higher else '<'} {y}) = {fmt.signif(e, 3)} ({fmt.signif(lo, 3)} to "
                 f"{fmt.signif(hi, 3)})"
                 for (x, y), e, (lo, hi) in zip(self.pairs, self.estimates, self.intervals)]
        text += " " + "; ".join(parts) + "."
        return text

    def to_dict(self) -> dict[str, Any]:
        return _export(self, {"bootstrap_distribution"})


@resultclass
class PerformanceProfileResult(Result):
    """Result of :func:`performance_profile`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    agents, tasks : tuple of str
    tau : ndarray, shape (n_tau,)
        Thresholds.
    kind : str
        ``"runs"``: fraction of runs above tau, averaged over tasks (score
        distribution); ``"tasks"``: fraction of tasks whose mean is above tau.
    interval : str
        ``"wilson"`` (stratified Wilson score bands with continuity correction), ``"skew_t"`` (the fractions of
        tasks whose skew-corrected t bounds, Bonferroni over the tasks, lie above tau; NaN where the agent has fewer
        than 5 tasks to read the runs' skewness from), ``"t"`` (the same with Student t bounds),
        ``"percentile"`` (stratified bootstrap percentile bands) or ``"wilson_tasks"`` (with ``task_bootstrap``: Wilson
        score bands with continuity correction with the tasks as the sample; for ``kind="tasks"`` from the counts of
        tasks whose skew-corrected t bounds lie above tau, each step at half the error).
    estimates : ndarray, shape (n_agents, n_tau)
    intervals, interval_mc_se : ndarray, shape (n_agents, n_tau, 2)
        Pointwise bands and the Monte Carlo SE of each bound (0 for the Wilson and t bands, which draw nothing).
    n_resamples : int or None
        Bootstrap resamples of the percentile band; None for the Wilson and t bands (``"skew_t"``, ``"t"``).
    confidence_level : float
    task_bootstrap : bool
    counts : ndarray, shape (n_tasks, n_agents)
    normalized : bool
        Whether the scores were normalised (``normalize=``): the figure's axes say so.
    """

    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    tau: np.ndarray
    kind: str
    interval: str
    estimates: np.ndarray
    intervals: np.ndarray
    interval_mc_se: np.ndarray
    n_resamples: int | None
    confidence_level: float
    task_bootstrap: bool
    counts: np.ndarray
    normalized: bool = False

    _plot_kinds: ClassVar[dict] = {"performance_profile": plots.plot_performance_profile}

    def _statistic_line(self):
        bands = (f"resamples = {fmt.integer(self.n_resamples)}" if self.n_resamples is not None
                 else "bands = per-task t bounds (Bonferroni over tasks)" if self.interval == "t"
                 else "bands = per-task skew-corrected t bounds (Bonferroni over tasks)" if self.interval == "skew_t"
                 else "bands = Wilson over tasks (continuity-corrected) of per-task skew-corrected t bounds (each at "
                 "half the error; the tasks as the sample)" if self.interval == "wilson_tasks" and self.kind == "tasks"
                 else "bands = Wilson over tasks (continuity-corrected; the tasks as the sample)"
                 if self.interval == "wilson_tasks" else "bands = stratified Wilson (continuity-corrected)")
        return (f"{bands}, confidence level = {self.confidence_level}, "
                f"thresholds = {self.tau.size} " + ("from {} to {}".format(*fmt.signif_levels([self.tau.min(),
                                                                                                self.tau.max()]))
                                                    if self.tau.size > 1 else f"(tau = {fmt.signif(self.tau[0])})"))

    @property
    def _side(self):
        """"above" tau, or "below" where smaller is better (a time; audit s34 ttt34)."""
        return "above" if self.options.get("higher_is_better", True) else "below"

    def _extra_lines(self):
        tasks = fmt.plural(self._block_word)
        rises = "" if self._side == "above" else "smaller is better: the profile rises with tau"
        what = (f"fraction of runs {self._side} tau ({fmt.over_tasks(self.tasks, f'mean over {tasks}', self._block_word)}"
                f"{'; ' + rises if rises else ''})" if self.kind == "runs" else
                f"fraction of {tasks} whose mean score is {self._side} tau" + (f" ({rises})" if rises else ""))
        return [f"profile: {what}"]

    def _summary_tables(self):
        table = self.tidy()
        if self.n_resamples is not None:  # Wilson, skew-t and t bands are closed forms: no Monte Carlo error
            table["conf_low_mc_se"] = self.interval_mc_se[:, :, 0].ravel()
            table["conf_high_mc_se"] = self.interval_mc_se[:, :, 1].ravel()
        tasks = fmt.plural(self._block_word)
        heading = (f"Fraction of runs {self._side} each threshold "
                   f"({fmt.over_tasks(self.tasks, f'mean over {tasks}', self._block_word)})" if self.kind == "runs" else
                   f"Fraction of {tasks} whose mean score is {self._side} each threshold")
        return {heading: table}

    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per agent and threshold: agent, tau, estimate, conf_low, conf_high."""
        k, n = self.estimates.shape
        return pd.DataFrame({
            "agent": np.repeat(np.asarray(self.agents, dtype=object), n), "tau": np.tile(self.tau, k),
            "estimate": self.estimates.ravel(), "conf_low": self.intervals[:, :, 0].ravel(),
            "conf_high": self.intervals[:, :, 1].ravel(),
        })

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        return pd.DataFrame([{
            "method": self.method, "conf_level": self.confidence_level, "n_resamples": self.n_resamples,
            "task_bootstrap": self.task_bootstrap, "n_agents": len(self.agents), "n_tasks": len(self.tasks),
            "n_obs": self.nobs,
        }])

    def _prose(self):
        smaller = "" if self._side == "above" else "smaller is better"
        what = (f"the fraction of runs scoring {self._side} tau, {fmt.over_tasks(self.tasks, word=self._block_word)} "
                f"(score distribution{', ' + smaller if smaller else ''})" if self.kind == "runs" else
                f"the fraction of {fmt.plural(self._block_word)} whose mean score is {self._side} tau"
                + (f" ({smaller})" if smaller else ""))
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        where = (f"{self.tau.size} thresholds tau from " + " to ".join(fmt.signif_levels([self.tau.min(),
                                                                                            self.tau.max()], 3))
                 if self.tau.size > 1 else f"the one threshold tau = {fmt.signif(self.tau[0], 3)}")
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s33 words33b)
        tasks = fmt.plural(task)
        text = (f"Performance profiles show, for {where}, {what}, for {fmt.count(len(self.agents), agent)} on "
                f"{fmt.count(len(self.tasks), task)} ({_runs_phrase(self.counts, (task, agent))}); ")
        if self.interval == "wilson":
            return text + (f"pointwise {level} bands are stratified Wilson score intervals with continuity correction "
                           f"(Yan and Su 2010; Newcombe 1998), at the effective number of runs T\u00b2 / sum(1 / n_t) "
                           f"(T {fmt.plural(task)}, n_t runs in {task} t), whose variance {fmt.plural(task)} that "
                           "differ can only lower.")
        if self.interval == "wilson_tasks" and self.kind == "tasks":  # audit s30 tboot30
            half = fmt.signif(100 * (1 - self.confidence_level) / 2)
            return text + (f"each {task}'s mean is bounded as the skew-corrected t band bounds it (Hall 1992), "
                           f"one-sided at {half}% divided by the number of {tasks}, and the pointwise {level} band "
                           f"runs from the lower end of the Wilson score interval with continuity correction "
                           f"(Newcombe 1998; at {fmt.signif(100 - float(half))}%, the {len(self.tasks)} {tasks} as the "
                           f"sample) of the fraction of {tasks} whose lower bound lies above tau to the upper end of "
                           f"that of the fraction whose upper bound does, so it speaks of the population the {tasks} "
                           f"were drawn from, its fraction of {tasks} whose mean is above tau (Bonferroni over the two "
                           f"steps).")
        if self.interval == "wilson_tasks":  # audit s29 profile29
            return text + (f"pointwise {level} bands are Wilson score intervals with continuity correction "
                           f"(Newcombe 1998) on the mean of the {tasks}' fractions with the {len(self.tasks)} {tasks} "
                           "as "
                           f"the sample, so they speak of the population the {tasks} were drawn from; each {task}'s "
                           f"fraction lies between 0 and 1, so its variance is at most that of {fmt.a_or_an(task)} "
                           "whose runs "
                           f"all fall on one side of tau, the case the interval is sized for.")
        if self.interval == "skew_t":
            return text + (f"the pointwise {level} band's lower end is the fraction of {tasks} whose lower bound of "
                           f"the mean lies above tau, its upper end the fraction whose upper bound does, each bound "
                           f"the Student t bound moved out on the side of the runs' skewness (pooled over the "
                           f"{agent}'s {tasks}) by Hall's (1992) transformation, one-sided at "
                           f"{fmt.signif(100 * (1 - self.confidence_level))}% divided by the number of {tasks} "
                           f"(Bonferroni), so the band misses with at most the stated probability at each tau "
                           f"wherever the bounds hold.")
        if self.interval == "t":
            return text + (f"the pointwise {level} band's lower end is the fraction of {tasks} whose Student t lower "
                           f"bound of the mean lies above tau, its upper end the fraction whose upper bound does, "
                           f"each bound one-sided at {fmt.signif(100 * (1 - self.confidence_level))}% divided by the "
                           f"number of {tasks} (Bonferroni), so the band misses with at most the stated probability "
                           f"at each tau wherever the bounds hold.")
        return text + (f"pointwise {level} percentile bands come from "
                       f"{_bootstrap_phrase(self.n_resamples, self.task_bootstrap, len(self.tasks), task)}.")


@resultclass
class InferentialIntervalsResult(Result):
    """Result of :meth:`BootstrapResult.inferential_intervals`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    agents : tuple of two str
    metrics : tuple of str
    estimates : ndarray, shape (2, n_metrics)
    descriptive, inferential : ndarray, shape (2, n_metrics, 2)
        The bootstrap intervals and the rescaled ones.
    epsilon : ndarray, shape (n_metrics,)
        Correction factor per metric.
    branch : tuple of str
        Per metric: ``"shrunk"``, ``"widened"``, ``"unchanged"`` or ``"undefined"``.
    pvalue : float
        The test's p-value.
    alpha : float
    significant : bool
        ``pvalue <= alpha``.
    overlap : ndarray of bool, shape (n_metrics,)
        Whether the two inferential intervals overlap.
    agrees : ndarray of bool, shape (n_metrics,)
        Whether the inferential intervals are disjoint exactly when the test is significant.
    test_method : str
    test_statistic : float or None
        The test's statistic (also ``statistic``, scipy's name).
    confidence_level : float
    """

    agents: tuple[str, ...]
    metrics: tuple[str, ...]
    estimates: np.ndarray
    descriptive: np.ndarray
    inferential: np.ndarray
    epsilon: np.ndarray
    branch: tuple[str, ...]
    pvalue: float
    alpha: float
    significant: bool
    overlap: np.ndarray
    agrees: np.ndarray
    test_method: str
    test_statistic: float | None
    confidence_level: float

    _plot_kinds: ClassVar[dict] = {"inferential_intervals": plots.plot_inferential_intervals}

    @property
    def statistic(self) -> float | None:
        """The test's statistic (``test_statistic``): with ``pvalue``, the test these intervals agree with."""
        return self.test_statistic

    def _statistic_line(self):
        eps = ", ".join(f"{metric_label(m)}: {fmt.signif(e, 4)}" for m, e in zip(self.metrics, self.epsilon))
        return f"epsilon ({eps}), alpha = {self.alpha}, test {fmt.pvalue_phrase(self.pvalue)}"

    def _extra_lines(self):
        decision = "rejects" if self.significant else "does not reject"
        return [f"the test ({self.test_method}) {decision}; inferential intervals "
                f"{'do not overlap' if self.significant else 'overlap'}"] + fmt.table_text(self.tidy()).split("\n")

    def _summary_tables(self):
        table = self.tidy()
        table.insert(5, "descriptive_low", self.descriptive[:, :, 0].T.ravel())
        table.insert(6, "descriptive_high", self.descriptive[:, :, 1].T.ravel())
        return {"Inferential intervals": table}

    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per metric and agent: the inferential bounds, epsilon, the test's p-value and decision."""
        m = len(self.metrics)
        return pd.DataFrame({
            "agent": list(self.agents) * m, "metric": np.repeat(np.asarray(self.metrics, dtype=object), 2),
            "estimate": self.estimates.T.ravel(), "conf_low": self.inferential[:, :, 0].T.ravel(),
            "conf_high": self.inferential[:, :, 1].T.ravel(), "epsilon": np.repeat(self.epsilon, 2),
            "p_value": self.pvalue, "significant": self.significant,
        })

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        return pd.DataFrame([{"method": self.method, "p_value": self.pvalue, "significant": self.significant,
                              "conf_level": self.confidence_level, "n_obs": self.nobs}])

    def _prose(self):
        a, b = self.agents
        text = (f"To compare {a} and {b} by eye we rescaled their {fmt.signif(100 * self.confidence_level)}% "
                f"bootstrap intervals into inferential confidence intervals (Casesa 2024, eq. 2.28, with the rule of "
                f"its Appendix B.2), using the p-value of the {self.test_method} "
                f"({fmt.pvalue_phrase(self.pvalue)}, alpha = {self.alpha}): the intervals overlap exactly when the "
                f"test does not reject.")
        parts = [f"{m}: epsilon = {fmt.signif(e, 3)} ({rule})"
                 for m, e, rule in zip(self.metrics, self.epsilon, self.branch)]
        text += " " + "; ".join(parts) + "."
        return text
