"""Stratified bootstrap: aggregate metrics, probability of improvement, performance profiles.

``bootstrap(df, "score ~ agent | task")`` gives each agent's interquartile
mean, mean, median and optimality gap with stratified bootstrap confidence
intervals: the runs of every task are resampled with replacement on their own
(strata = tasks), as rliable does (Agarwal et al. 2021), and optionally the
tasks as well.  ``probability_of_improvement`` and ``performance_profile``
use the same resamples.  ``BootstrapResult.inferential_intervals`` rescales
two agents' intervals so that they overlap exactly when the blocked rank
test does not reject (thesis Sections 2.4 and 2.7).

The numbers come from :mod:`rlstats.methods._bootstrap_kernels`, vectorised
over resamples in memory-bounded batches.  ``rliable_compat=True`` reproduces
rliable 1.2.0's numbers bit for bit from a seed, for users migrating.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd
import patsy

from .. import format as fmt
from .. import plots_bootstrap as plots
from ..design import Design, design_of
from ..errors import DesignError, OptionError, warn
from ..options import check_bool, check_choice, check_fraction, check_int, check_pairs
from ..progress import progress_bar
from ..resampling import seed_sequence
from ..results import Result, _versions, resultclass, to_jsonable
from . import _bootstrap_kernels as kernels

DEFAULT_METRICS = ("iqm", "mean", "median", "optimality_gap")
INTERVALS = ("percentile", "basic", "bca")
COMPAT_INTERVALS = ("percentile", "basic")
PROFILE_KINDS = ("runs", "tasks")
NA_ACTIONS = ("raise", "drop")
DEFAULT_PROFILE_POINTS = 81

_METRIC_LABELS = {"iqm": "IQM", "mean": "mean", "median": "median", "optimality_gap": "optimality gap"}
_REFERENCE = "Agarwal et al. (2021)"


# ----------------------------------------------------------------------------- options


def _metric_name(metric):
    name = getattr(metric, "__name__", None)
    if not name or name == "<lambda>":
        raise OptionError("a metric function needs a name for the tables: pass metrics={'my_metric': func, ...} "
                          "or give the function a __name__")
    return name


def _check_metrics(metrics):
    """(names, specs): each spec is a built-in metric name or a callable."""
    if isinstance(metrics, str) or callable(metrics):
        metrics = (metrics,)
    items = list(metrics.items()) if isinstance(metrics, Mapping) else [
        (m if isinstance(m, str) else _metric_name(m), m) for m in metrics]
    if not items:
        raise OptionError(f"metrics is empty; name at least one of {', '.join(map(repr, DEFAULT_METRICS))} "
                          "or pass a function")
    for name, spec in items:
        if not isinstance(name, str):
            raise OptionError(f"metric names must be strings, got {name!r}")
        if not (callable(spec) or spec in kernels.BUILTIN_METRICS):
            raise OptionError(f"metric {spec!r} is not one of the built-in metrics "
                              f"{', '.join(map(repr, kernels.BUILTIN_METRICS))} and is not a function")
    names = [name for name, _ in items]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise OptionError(f"metric name(s) {duplicated} appear more than once; give each metric its own name")
    return tuple(names), tuple(spec for _, spec in items)


def _check_real(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise OptionError(f"{name} must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class BootstrapOptions:
    metric_names: tuple = DEFAULT_METRICS
    metrics: tuple = DEFAULT_METRICS
    n_resamples: int = 10_000
    confidence_level: float = 0.95
    interval: str = "percentile"
    task_bootstrap: bool = False
    gamma: float = 1.0
    rliable_compat: bool = False
    na_action: str = "raise"
    progress: bool = False

    @classmethod
    def checked(cls, **options):
        """Validate every option once; raises OptionError naming the bad one."""
        names, specs = _check_metrics(options["metrics"])
        checked = cls(
            metric_names=names, metrics=specs,
            n_resamples=check_int("n_resamples", options["n_resamples"], minimum=2),
            confidence_level=check_fraction("confidence_level", options["confidence_level"]),
            interval=check_choice("interval", options["interval"], INTERVALS),
            task_bootstrap=check_bool("task_bootstrap", options["task_bootstrap"]),
            gamma=_check_real("gamma", options["gamma"]),
            rliable_compat=check_bool("rliable_compat", options["rliable_compat"]),
            na_action=check_choice("na_action", options["na_action"], NA_ACTIONS),
            progress=check_bool("progress", options["progress"]))
        if checked.rliable_compat and checked.interval not in COMPAT_INTERVALS:
            raise OptionError(
                f"rliable_compat=True reproduces interval='percentile' and 'basic' only, got {checked.interval!r}: "
                "rliable's BCa goes through arch's unstratified jackknife, which rlstats does not copy; "
                "use rliable_compat=False for BCa intervals")
        return checked

    def record(self):
        """The options as stored in the result (metric functions by name)."""
        out = dataclasses.asdict(self)
        out["metrics"] = list(self.metric_names)
        del out["metric_names"]
        return out


# ----------------------------------------------------------------------------- design preparation


def _prepared_design(data, formula, normalize, na_action, eval_env):
    design = design_of(data, formula, na_action=na_action, eval_env=eval_env, normalize=normalize)
    return design.require_complete(na_action, "aggregate metrics compare agents on the same tasks")


def _layouts(design):
    layouts = []
    for j in range(design.n_agents):
        mine = design.agent == j
        layouts.append(kernels.agent_layout(design.y[mine], design.task[mine], design.run[mine], design.n_tasks))
    return layouts


def _require_run_matrices(design, layouts, why):
    """User metrics and rliable's layout need the same number of runs in every task of an agent."""
    for name, layout in zip(design.agents, layouts):
        if layout.run_matrix is None:
            sizes = layout.task_sizes
            raise DesignError(
                f"{why} needs each agent's runs as a (runs x tasks) matrix, but agent {name!r} has "
                f"{sizes.min()} to {sizes.max()} runs per task; use the built-in metrics with "
                "rliable_compat=False (they allow unequal runs), or drop runs to balance the agent")


def _eval_env(eval_env):
    return patsy.EvalEnvironment.capture(2) if eval_env is None else eval_env


# ----------------------------------------------------------------------------- shared result helpers


def _export(result, skip):
    """Result.to_dict without the fields in ``skip`` (large arrays, the design)."""
    out = {"result": type(result).__name__}
    for f in dataclasses.fields(result):
        if f.name not in skip:
            out[f.name] = to_jsonable(getattr(result, f.name))
    out["versions"] = _versions()
    return out


def _runs_phrase(counts):
    runs = counts[counts > 0]
    if runs.min() == runs.max():
        return f"{runs.min()} run{'s' if runs.max() > 1 else ''} per agent and task"
    return f"{runs.min()} to {runs.max()} runs per agent and task"


def _sentence(note):
    return note[0].upper() + note[1:] + ("" if note.endswith(".") else ".")


def _bootstrap_phrase(n_resamples, task_bootstrap, n_tasks):
    how = ("the runs of every task resampled with replacement independently, tasks being the strata"
           if n_tasks > 1 else "the runs resampled with replacement")
    if task_bootstrap:
        how += ", and the tasks themselves resampled with replacement"
    return f"{n_resamples} stratified bootstrap resamples ({_REFERENCE}; {how})"


def _max_se(se):
    finite = se[np.isfinite(se)]
    return float(finite.max()) if finite.size else float("nan")


# ----------------------------------------------------------------------------- results


@resultclass
class BootstrapResult(Result):
    """Result of :func:`bootstrap`.

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
        method, see :func:`rlstats.methods._bootstrap_kernels.order_statistic_se`).
    bootstrap_distribution : ndarray, shape (n_agents, n_metrics, n_resamples)
        The metrics on every resample (not exported by ``to_dict``).
    bias_correction, acceleration : ndarray or None, shape (n_agents, n_metrics)
        BCa's z0 and a (``interval="bca"`` only).
    n_resamples : int
    confidence_level : float
    interval : str
        ``"percentile"``, ``"basic"`` or ``"bca"``.
    task_bootstrap : bool
        Whether tasks were resampled as well as runs.
    gamma : float
        Threshold of the optimality gap.
    rliable_compat : bool
        Whether rliable's legacy draws and operations were used.
    counts : ndarray, shape (n_tasks, n_agents)
        Runs per cell used.
    design : Design
        The data analysed (used by :meth:`inferential_intervals`; not exported).
    """

    agents: tuple
    tasks: tuple
    metrics: tuple
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
    design: Design | None = field(default=None, repr=False)

    _plot_kinds: ClassVar[dict] = {"interval_estimates": plots.plot_interval_estimates}

    def _statistic_line(self):
        strata = f"{self.n_tasks} task strata" if self.n_tasks > 1 else "1 stratum"
        extra = ", tasks resampled" if self.task_bootstrap else ""
        return (f"resamples = {self.n_resamples}, confidence level = {self.confidence_level}, "
                f"interval = {self.interval}, {strata}{extra}")

    def _extra_lines(self):
        lines = fmt.table_text(self.tidy()).split("\n")
        lines.append(f"largest Monte Carlo SE of a bound: {fmt.signif(_max_se(self.interval_mc_se), 2)}")
        return lines

    def _summary_tables(self):
        table = self.tidy()
        table["conf_low_mc_se"] = self.interval_mc_se[:, :, 0].T.ravel()
        table["conf_high_mc_se"] = self.interval_mc_se[:, :, 1].T.ravel()
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        return {f"{level} {self.interval} intervals ({self.n_resamples} resamples)": table}

    def tidy(self):
        """One row per metric and agent: agent, metric, estimate, conf_low, conf_high."""
        k, m = self.estimates.shape
        return pd.DataFrame({
            "agent": list(self.agents) * m,
            "metric": np.repeat(np.asarray(self.metrics, dtype=object), k),
            "estimate": self.estimates.T.ravel(),
            "conf_low": self.intervals[:, :, 0].T.ravel(),
            "conf_high": self.intervals[:, :, 1].T.ravel(),
        })

    def glance(self):
        """The procedure in one row."""
        return pd.DataFrame([{
            "method": self.method, "interval_method": self.interval, "conf_level": self.confidence_level,
            "n_resamples": self.n_resamples, "task_bootstrap": self.task_bootstrap, "n_agents": self.n_agents,
            "n_tasks": self.n_tasks, "n_obs": self.nobs,
        }])

    def report(self):
        """A methods-section paragraph: what was resampled, how intervals were formed, the estimates."""
        names = ", ".join(_METRIC_LABELS.get(m, m) for m in self.metrics)
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        text = (f"We report {names} for {self.n_agents} agents on {self.n_tasks} task"
                f"{'s' if self.n_tasks != 1 else ''} ({_runs_phrase(self.counts)}) with {level} {self.interval} "
                f"confidence intervals from {_bootstrap_phrase(self.n_resamples, self.task_bootstrap, self.n_tasks)}.")
        if "iqm" in self.metrics:
            text += (" The IQM is the mean of the middle 50% of all runs pooled over tasks (floor(N/4) runs cut "
                     "from each end).")
        if "optimality_gap" in self.metrics:
            text += f" The optimality gap is the mean shortfall of the runs below {fmt.signif(self.gamma)}."
        for j, metric in enumerate(self.metrics):
            parts = [f"{a} {fmt.signif(self.estimates[i, j], 3)} ({fmt.signif(self.intervals[i, j, 0], 3)} to "
                     f"{fmt.signif(self.intervals[i, j, 1], 3)})" for i, a in enumerate(self.agents)]
            label = _METRIC_LABELS.get(metric, metric)
            text += f" {label[:1].upper() + label[1:]}: {'; '.join(parts)}."
        text += (f" The largest Monte Carlo standard error of a bound is "
                 f"{fmt.signif(_max_se(self.interval_mc_se), 2)}.")
        if self.rliable_compat:
            text += f" Resamples were drawn exactly as rliable 1.2.0 draws them (seed {self.seed})."
        if self.notes:
            text += " " + " ".join(_sentence(n) for n in self.notes)
        return text

    def to_dict(self):
        """Every field as JSON data, except the bootstrap distribution and the design."""
        return _export(self, {"bootstrap_distribution", "design"})

    def confidence_interval(self, confidence_level=None):
        """Intervals at another confidence level from the stored bootstrap distribution (tidy layout)."""
        level = self.confidence_level if confidence_level is None else \
            check_fraction("confidence_level", confidence_level)
        bounds, _ = _metric_bounds(self.bootstrap_distribution, self.estimates, level, self.interval,
                                   self.bias_correction, self.acceleration, self.rliable_compat)
        out = self.tidy()
        out["conf_low"] = bounds[:, :, 0].T.ravel()
        out["conf_high"] = bounds[:, :, 1].T.ravel()
        return out

    def inferential_intervals(self, a, b, test=None, *, alpha=None):
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
        a, b : str
            Two agents of the result.
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
        from .skillings_mack import skillings_mack

        for name in (a, b):
            if name not in self.agents:
                raise OptionError(f"agent {name!r} is not in the result; agents: {', '.join(map(repr, self.agents))}")
        if a == b:
            raise OptionError("inferential intervals compare two different agents; got the same agent twice")
        # round away the binary residue of 1 - 0.95
        alpha = round(1 - self.confidence_level, 12) if alpha is None else check_fraction("alpha", alpha)
        if test is None:
            if self.design is None or not self.design.has_blocks:
                raise DesignError("the blocked rank test needs tasks as blocks ('score ~ agent | task'); pass test= "
                                  "a result with a pvalue for these two agents")
            test = skillings_mack(self.design.select_agents([a, b]))
        _check_test(test, a, b)
        return _inferential(self, a, b, test, alpha)


def _check_test(test, a, b):
    if not hasattr(test, "pvalue"):
        raise OptionError(f"test must be a test result with a pvalue attribute, got {type(test).__name__}")
    agents = getattr(test, "agents", None)
    if agents is not None and set(agents) != {a, b}:
        raise OptionError(f"the test compares {', '.join(map(repr, agents))}; inferential intervals need a test of "
                          f"exactly {a!r} and {b!r}")


def _metric_bounds(distribution, estimates, level, interval, z0, acceleration, compat):
    """(bounds, mc_se) of shape (K, M, 2) from (K, M, B) distributions."""
    if not compat:
        return kernels.interval_bounds(distribution, estimates, level, interval, z0, acceleration)
    bounds = np.empty(estimates.shape + (2,))
    for index in np.ndindex(estimates.shape):
        bounds[index] = kernels.rliable_bounds(distribution[index], estimates[index], level, interval)
    _, se = kernels.interval_bounds(distribution, estimates, level, interval)
    return bounds, se


@resultclass
class ProbabilityOfImprovementResult(Result):
    """Result of :func:`probability_of_improvement`.

    Attributes
    ----------
    pairs : tuple of (str, str)
        (X, Y) for each row: the estimate is P(X > Y) + P(X = Y) / 2, averaged over tasks.
    estimates : ndarray, shape (n_pairs,)
    intervals, interval_mc_se : ndarray, shape (n_pairs, 2)
    bootstrap_distribution : ndarray, shape (n_pairs, n_resamples)
    agents, tasks : tuple of str
    n_resamples : int
    confidence_level : float
    counts : ndarray, shape (n_tasks, n_agents)
    """

    pairs: tuple
    estimates: np.ndarray
    intervals: np.ndarray
    interval_mc_se: np.ndarray
    bootstrap_distribution: np.ndarray
    agents: tuple
    tasks: tuple
    n_resamples: int
    confidence_level: float
    counts: np.ndarray

    _plot_kinds: ClassVar[dict] = {"probability_of_improvement": plots.plot_probability_of_improvement}

    def _statistic_line(self):
        return (f"resamples = {self.n_resamples}, confidence level = {self.confidence_level}, "
                f"pairs = {len(self.pairs)}, tasks = {len(self.tasks)}")

    def _extra_lines(self):
        return fmt.table_text(self.tidy()).split("\n")

    def _summary_tables(self):
        table = self.tidy()
        table["conf_low_mc_se"] = self.interval_mc_se[:, 0]
        table["conf_high_mc_se"] = self.interval_mc_se[:, 1]
        return {"P(agent_1 > agent_2), averaged over tasks": table}

    def tidy(self):
        """One row per pair: agent_1, agent_2, estimate = P(agent_1 > agent_2), conf_low, conf_high."""
        return pd.DataFrame({
            "agent_1": [x for x, _ in self.pairs], "agent_2": [y for _, y in self.pairs],
            "estimate": self.estimates, "conf_low": self.intervals[:, 0], "conf_high": self.intervals[:, 1],
        })

    def glance(self):
        return pd.DataFrame([{
            "method": self.method, "conf_level": self.confidence_level, "n_resamples": self.n_resamples,
            "n_agents": len(self.agents), "n_tasks": len(self.tasks), "n_obs": self.nobs,
        }])

    def report(self):
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        text = (f"For each pair of agents (X, Y) we estimated the probability of improvement, the chance that a run "
                f"of X scores higher than a run of Y on the same task (ties counting one half), averaged over "
                f"{len(self.tasks)} tasks ({_runs_phrase(self.counts)}), with {level} percentile intervals from "
                f"{_bootstrap_phrase(self.n_resamples, False, len(self.tasks))}, each agent's runs resampled "
                "independently.")
        parts = [f"P({x} > {y}) = {fmt.signif(e, 3)} ({fmt.signif(lo, 3)} to {fmt.signif(hi, 3)})"
                 for (x, y), e, (lo, hi) in zip(self.pairs, self.estimates, self.intervals)]
        text += " " + "; ".join(parts) + "."
        if self.notes:
            text += " " + " ".join(_sentence(n) for n in self.notes)
        return text

    def to_dict(self):
        return _export(self, {"bootstrap_distribution"})


@resultclass
class PerformanceProfileResult(Result):
    """Result of :func:`performance_profile`.

    Attributes
    ----------
    agents, tasks : tuple of str
    tau : ndarray, shape (n_tau,)
        Thresholds.
    kind : str
        ``"runs"``: fraction of runs above tau, averaged over tasks (score
        distribution); ``"tasks"``: fraction of tasks whose mean is above tau.
    estimates : ndarray, shape (n_agents, n_tau)
    intervals, interval_mc_se : ndarray, shape (n_agents, n_tau, 2)
        Pointwise percentile bands and the Monte Carlo SE of each bound.
    n_resamples : int
    confidence_level : float
    task_bootstrap : bool
    counts : ndarray, shape (n_tasks, n_agents)
    """

    agents: tuple
    tasks: tuple
    tau: np.ndarray
    kind: str
    estimates: np.ndarray
    intervals: np.ndarray
    interval_mc_se: np.ndarray
    n_resamples: int
    confidence_level: float
    task_bootstrap: bool
    counts: np.ndarray

    _plot_kinds: ClassVar[dict] = {"performance_profile": plots.plot_performance_profile}

    def _statistic_line(self):
        return (f"resamples = {self.n_resamples}, confidence level = {self.confidence_level}, "
                f"thresholds = {self.tau.size} from {fmt.signif(self.tau.min())} to {fmt.signif(self.tau.max())}")

    def _extra_lines(self):
        what = "fraction of runs above tau (mean over tasks)" if self.kind == "runs" else \
            "fraction of tasks whose mean score is above tau"
        return [f"profile: {what}"]

    def _summary_tables(self):
        table = self.tidy()
        table["conf_low_mc_se"] = self.interval_mc_se[:, :, 0].ravel()
        table["conf_high_mc_se"] = self.interval_mc_se[:, :, 1].ravel()
        return {"Performance profiles": table}

    def tidy(self):
        """One row per agent and threshold: agent, tau, estimate, conf_low, conf_high."""
        k, n = self.estimates.shape
        return pd.DataFrame({
            "agent": np.repeat(np.asarray(self.agents, dtype=object), n), "tau": np.tile(self.tau, k),
            "estimate": self.estimates.ravel(), "conf_low": self.intervals[:, :, 0].ravel(),
            "conf_high": self.intervals[:, :, 1].ravel(),
        })

    def glance(self):
        return pd.DataFrame([{
            "method": self.method, "conf_level": self.confidence_level, "n_resamples": self.n_resamples,
            "task_bootstrap": self.task_bootstrap, "n_agents": len(self.agents), "n_tasks": len(self.tasks),
            "n_obs": self.nobs,
        }])

    def report(self):
        what = ("the fraction of runs scoring above tau, averaged over tasks (score distribution)"
                if self.kind == "runs" else "the fraction of tasks whose mean score is above tau")
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        text = (f"Performance profiles show, for {self.tau.size} thresholds tau from {fmt.signif(self.tau.min(), 3)} "
                f"to {fmt.signif(self.tau.max(), 3)}, {what}, for {len(self.agents)} agents on {len(self.tasks)} "
                f"tasks ({_runs_phrase(self.counts)}); pointwise {level} percentile bands come from "
                f"{_bootstrap_phrase(self.n_resamples, self.task_bootstrap, len(self.tasks))}.")
        if self.notes:
            text += " " + " ".join(_sentence(n) for n in self.notes)
        return text


@resultclass
class InferentialIntervalsResult(Result):
    """Result of :meth:`BootstrapResult.inferential_intervals`.

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
    agrees : ndarray of bool, shape (n_metrics,)
        Whether the inferential intervals are disjoint exactly when the test is significant.
    test_method : str
    test_statistic : float or None
    confidence_level : float
    """

    agents: tuple
    metrics: tuple
    estimates: np.ndarray
    descriptive: np.ndarray
    inferential: np.ndarray
    epsilon: np.ndarray
    branch: tuple
    pvalue: float
    alpha: float
    significant: bool
    agrees: np.ndarray
    test_method: str
    test_statistic: float | None
    confidence_level: float

    _plot_kinds: ClassVar[dict] = {"inferential_intervals": plots.plot_inferential_intervals}

    @property
    def overlap(self):
        """(n_metrics,) whether the two inferential intervals overlap."""
        return _overlaps(self.inferential)

    def _statistic_line(self):
        eps = ", ".join(f"{m}: {fmt.signif(e, 4)}" for m, e in zip(self.metrics, self.epsilon))
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

    def tidy(self):
        """One row per metric and agent: the inferential bounds, epsilon, the test's p-value and decision."""
        m = len(self.metrics)
        return pd.DataFrame({
            "agent": list(self.agents) * m, "metric": np.repeat(np.asarray(self.metrics, dtype=object), 2),
            "estimate": self.estimates.T.ravel(), "conf_low": self.inferential[:, :, 0].T.ravel(),
            "conf_high": self.inferential[:, :, 1].T.ravel(), "epsilon": np.repeat(self.epsilon, 2),
            "p_value": self.pvalue, "significant": self.significant,
        })

    def glance(self):
        return pd.DataFrame([{"method": self.method, "p_value": self.pvalue, "significant": self.significant,
                              "conf_level": self.confidence_level, "n_obs": self.nobs}])

    def report(self):
        a, b = self.agents
        text = (f"To compare {a} and {b} by eye we rescaled their {fmt.signif(100 * self.confidence_level)}% "
                f"bootstrap intervals into inferential confidence intervals (Casesa 2024, eq. 2.28, with the rule of "
                f"its Appendix B.2), using the p-value of the {self.test_method} "
                f"({fmt.pvalue_phrase(self.pvalue)}, alpha = {self.alpha}): the intervals overlap exactly when the "
                f"test does not reject.")
        parts = [f"{m}: epsilon = {fmt.signif(e, 3)} ({rule})"
                 for m, e, rule in zip(self.metrics, self.epsilon, self.branch)]
        text += " " + "; ".join(parts) + "."
        if self.notes:
            text += " " + " ".join(_sentence(n) for n in self.notes)
        return text


def _overlaps(intervals):
    """(M,) whether two agents' intervals (2, M, 2) share a point."""
    return (intervals[0, :, 0] <= intervals[1, :, 1]) & (intervals[1, :, 0] <= intervals[0, :, 1])


def _inferential(result, a, b, test, alpha):
    rows = [result.agents.index(a), result.agents.index(b)]
    estimates = result.estimates[rows]
    descriptive = result.intervals[rows]
    pvalue = float(test.pvalue)
    eps, branches, notes = np.ones(len(result.metrics)), [], list(result.notes)
    for j, metric in enumerate(result.metrics):
        low, high = (0, 1) if estimates[0, j] <= estimates[1, j] else (1, 0)
        eps[j], branch = kernels.inferential_epsilon(estimates[low, j], estimates[high, j], descriptive[low, j, 1],
                                                     descriptive[high, j, 0], pvalue, alpha)
        branches.append(branch)
    scale = np.where(np.isnan(eps), 1.0, eps)
    centre = estimates[:, :, None]
    inferential = centre + scale[None, :, None] * (descriptive - centre)
    significant = pvalue <= alpha
    agrees = _overlaps(inferential) != significant
    for metric in np.asarray(result.metrics, dtype=object)[~agrees]:
        message = (f"the inferential intervals of {a} and {b} for {metric!r} cannot match the test's decision "
                   "(equal estimates, or descriptive intervals that do not contain their estimates)")
        warn(message)
        notes.append(message)
    return InferentialIntervalsResult(
        method="Inferential confidence intervals", formula=result.formula, data_name=result.data_name,
        nobs=int(result.counts[:, rows].sum()), notes=tuple(notes),
        options={"alpha": alpha, "rule": "thesis Appendix B.2 code"}, seed=result.seed,
        agents=(a, b), metrics=result.metrics, estimates=estimates, descriptive=descriptive, inferential=inferential,
        epsilon=eps, branch=tuple(branches), pvalue=pvalue, alpha=alpha, significant=bool(significant),
        agrees=agrees, test_method=str(getattr(test, "method", type(test).__name__)),
        test_statistic=None if getattr(test, "statistic", None) is None else float(test.statistic),
        confidence_level=result.confidence_level)


# ----------------------------------------------------------------------------- bootstrap()


def bootstrap(data, formula=None, *, metrics=DEFAULT_METRICS, n_resamples=10_000, confidence_level=0.95,
              interval="percentile", task_bootstrap=False, normalize=None, gamma=1.0, rliable_compat=False,
              na_action="raise", rng=None, progress=False, eval_env=None):
    """Aggregate metrics with stratified bootstrap confidence intervals (rliable's method, vectorised).

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent | task"`` (``task/seed`` names the seed column).
    metrics : sequence or dict
        Built-in names ``"iqm"`` (25% trimmed mean of all runs x tasks, floor
        trimming), ``"mean"`` (mean of per-task means), ``"median"`` (median of
        per-task means), ``"optimality_gap"`` (mean of max(gamma - score, 0)
        over all runs x tasks), or functions of a (runs x tasks) score matrix
        returning a float; a function with attribute ``vectorized = True``
        receives a (resamples, runs, tasks) array and returns one value per
        resample.  A dict maps names to metrics.  With unequal runs per task,
        IQM and optimality gap pool all runs (tasks with more runs weigh more).
    n_resamples : int
        Bootstrap resamples (memory stays bounded: they are drawn in batches).
    confidence_level : float
    interval : {"percentile", "basic", "bca"}
        Percentile (rliable's default), basic (reflected percentile), or BCa
        with z0 counting ties half and the acceleration from the jackknife
        within tasks (Davison & Hinkley 1997, several samples); with
        ``task_bootstrap`` from leaving out whole tasks; for user metrics from
        leaving out one run index of every task.
    task_bootstrap : bool
        Also resample tasks with replacement (intervals for a population of tasks).
    normalize : DataFrame, str or dict, optional
        Normalise the response column per task first with
        :func:`rlstats.normalize`: a reference frame, a dataset name such as
        ``"atari100k_reference"``, or a dict of its keyword arguments.
    gamma : float
        Threshold of the optimality gap.
    rliable_compat : bool
        Reproduce rliable 1.2.0 bit for bit: ``rng`` must be the int given to
        ``np.random.seed``; our own legacy ``RandomState(rng)`` then draws for
        each agent in turn (agents in the design's order: use a Categorical
        to match a dict order), replicate by replicate, ``choice(R, (R, T))``
        with run r of a task being the r-th run of that (agent, task) in the
        data (or by seed with ``task/seed``).  Percentile and basic intervals.
    na_action : {"raise", "drop"}
        Missing values and agent x task cells without runs: an error, or drop
        the rows / leave out the tasks where some agent has no runs, and say so.
    rng : None, int or numpy.random.Generator
        Seed (recorded in the result).  Each agent draws from a stream keyed
        by its label, so its intervals do not depend on the other agents.
    progress : bool
        Show a progress bar.
    eval_env : patsy.EvalEnvironment, optional
        Where names in the response expression are looked up; by default the caller's frame.

    Returns
    -------
    BootstrapResult

    Raises
    ------
    FormulaError, DesignError, OptionError

    References
    ----------
    Agarwal, R., Schwarzer, M., Castro, P. S., Courville, A. and Bellemare, M. G.
    (2021), Deep reinforcement learning at the edge of the statistical
    precipice, NeurIPS 34 (stratified bootstrap, IQM, optimality gap).
    Efron, B. (1987), Better bootstrap confidence intervals, JASA 82(397), 171-185.
    Davison, A. C. and Hinkley, D. V. (1997), Bootstrap Methods and their
    Application, Cambridge University Press, Sections 3.2 and 5.3.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=5, effect=1.0, rng=0)
    >>> res = rlstats.bootstrap(df, "score ~ agent | task", metrics=["iqm", "mean"], n_resamples=500, rng=0)
    >>> res.tidy().columns.tolist()
    ['agent', 'metric', 'estimate', 'conf_low', 'conf_high']
    >>> bool((res.intervals[:, :, 0] <= res.intervals[:, :, 1]).all())
    True
    """
    options = BootstrapOptions.checked(
        metrics=metrics, n_resamples=n_resamples, confidence_level=confidence_level, interval=interval,
        task_bootstrap=task_bootstrap, gamma=gamma, rliable_compat=rliable_compat, na_action=na_action,
        progress=progress)
    design = _prepared_design(data, formula, normalize, options.na_action, _eval_env(eval_env))
    return _run_bootstrap(design, options, rng)


def _compat_seed(rng):
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, numbers.Integral) or not 0 <= rng < 2**32:
        raise OptionError(f"rliable_compat=True needs rng= the int seed you gave np.random.seed (0 <= seed < 2**32), "
                          f"got {rng!r}")
    return int(rng)


def _accelerations(layouts, options):
    """(K, M) BCa accelerations, one jackknife per agent."""
    out = np.zeros((len(layouts), len(options.metrics)))
    builtin = [j for j, m in enumerate(options.metrics) if not callable(m)]
    for i, layout in enumerate(layouts):
        if options.task_bootstrap:
            out[i] = kernels.task_jackknife_acceleration(layout, options.metrics, options.gamma)
            continue
        if builtin:
            out[i, builtin] = kernels.stratified_acceleration(layout, [options.metrics[j] for j in builtin],
                                                              options.gamma)
        for j, metric in enumerate(options.metrics):
            if callable(metric):
                out[i, j] = kernels.run_jackknife_acceleration(layout.run_matrix, metric)
    return out


def _run_bootstrap(design, options, rng):
    layouts = _layouts(design)
    if options.rliable_compat:
        _require_run_matrices(design, layouts, "rliable_compat=True")
    elif any(callable(m) for m in options.metrics):
        _require_run_matrices(design, layouts, "a user metric function")
    total = design.n_agents * options.n_resamples
    with progress_bar(total, options.progress, "bootstrap") as advance:
        if options.rliable_compat:
            seed = _compat_seed(rng)
            matrices = [layout.run_matrix for layout in layouts]
            stats = kernels.rliable_bootstrap(matrices, options.metrics, options.gamma, options.n_resamples, seed,
                                              task_bootstrap=options.task_bootstrap, advance=advance)
            estimates = np.stack([kernels.rliable_values(m[None], options.metrics, options.gamma)[0]
                                  for m in matrices])
        else:
            root, seed = seed_sequence(rng)
            stats = [kernels.bootstrap_agent(layout, options.metrics, options.gamma, options.n_resamples,
                                             kernels.agent_seed_sequence(root, name),
                                             task_bootstrap=options.task_bootstrap, advance=advance)
                     for name, layout in zip(design.agents, layouts)]
            estimates = np.stack([kernels.point_estimates(layout, options.metrics, options.gamma)
                                  for layout in layouts])
    distribution = np.stack([s.T for s in stats])
    z0 = acceleration = None
    notes = list(design.notes)
    if options.interval == "bca":
        z0 = kernels.bias_correction(distribution, estimates)
        acceleration = _accelerations(layouts, options)
        notes += _bca_notes(design.agents, options.metric_names, z0)
    bounds, se = _metric_bounds(distribution, estimates, options.confidence_level, options.interval, z0, acceleration,
                                options.rliable_compat)
    title = "Stratified bootstrap confidence intervals"
    if options.task_bootstrap:
        title += " (runs and tasks resampled)"
    if options.rliable_compat:
        title += ", rliable-compatible draws"
    return BootstrapResult(
        method=title, formula=design.formula, data_name=design.data_name, nobs=design.nobs, notes=tuple(notes),
        options=options.record(), seed=seed, agents=design.agents, tasks=design.tasks,
        metrics=options.metric_names, estimates=estimates, intervals=bounds, interval_mc_se=se,
        bootstrap_distribution=distribution, bias_correction=z0, acceleration=acceleration,
        n_resamples=options.n_resamples, confidence_level=options.confidence_level, interval=options.interval,
        task_bootstrap=options.task_bootstrap, gamma=options.gamma, rliable_compat=options.rliable_compat,
        counts=design.counts, design=design)


def _bca_notes(agents, metrics, z0):
    bad = [f"{agents[i]}/{metrics[j]}" for i, j in zip(*np.nonzero(~np.isfinite(z0)))]
    if not bad:
        return []
    message = (f"BCa is undefined where every resample lies on one side of the estimate ({', '.join(bad)}): "
               "those bounds are NaN; use interval=\"percentile\" there")
    warn(message)
    return [message]


# ----------------------------------------------------------------------------- probability_of_improvement()


def probability_of_improvement(data, formula=None, *, pairs=None, n_resamples=2_000, confidence_level=0.95,
                               normalize=None, na_action="raise", rng=None, progress=False, eval_env=None):
    """Probability that a run of X beats a run of Y on the same task, averaged over tasks, with intervals.

    For each task, P(X > Y) + P(X = Y) / 2 over all pairs of runs (the
    Mann-Whitney U statistic divided by c_x c_y; X and Y may have different
    numbers of runs), then the mean over tasks.  Intervals: percentile, from
    resampling each agent's runs within every task independently.

    Parameters
    ----------
    data : pandas.DataFrame or Design
    formula : str or Formula
    pairs : list of (str, str), optional
        (X, Y) pairs; default every pair (i < j in the agents' order).
    n_resamples : int
        2,000 by default, as rliable; the Monte Carlo SE of each bound is reported.
    confidence_level : float
    normalize : DataFrame, str or dict, optional
        As in :func:`bootstrap` (the estimate does not change; scores are only compared within tasks).
    na_action : {"raise", "drop"}
    rng : None, int or numpy.random.Generator
        Seed; each agent's resamples are those :func:`bootstrap` draws for it with the same seed.
    progress : bool
    eval_env : patsy.EvalEnvironment, optional

    Returns
    -------
    ProbabilityOfImprovementResult

    References
    ----------
    Agarwal et al. (2021), NeurIPS 34, Section 4 (average probability of improvement).
    Mann, H. B. and Whitney, D. R. (1947), Ann. Math. Statist. 18(1), 50-60.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=5, effect=1.0, rng=0)
    >>> res = rlstats.probability_of_improvement(df, "score ~ agent | task", n_resamples=500, rng=0)
    >>> res.tidy().columns.tolist()
    ['agent_1', 'agent_2', 'estimate', 'conf_low', 'conf_high']
    """
    n_resamples = check_int("n_resamples", n_resamples, minimum=2)
    confidence_level = check_fraction("confidence_level", confidence_level)
    na_action = check_choice("na_action", na_action, NA_ACTIONS)
    progress = check_bool("progress", progress)
    design = _prepared_design(data, formula, normalize, na_action, _eval_env(eval_env))
    pairs = check_pairs("pairs", pairs, design.agents)
    layouts = dict(zip(design.agents, _layouts(design)))
    pair_layouts = [kernels.pair_layout(layouts[x], layouts[y]) for x, y in pairs]
    estimates = np.array([kernels.improvement_point(p, layouts[x], layouts[y])
                          for p, (x, y) in zip(pair_layouts, pairs)])
    root, seed = seed_sequence(rng)
    involved = sorted({a for pair in pairs for a in pair}, key=design.agents.index)
    blocks = {a: kernels.agent_blocks(kernels.agent_seed_sequence(root, a), n_resamples) for a in involved}
    per_batch = min(kernels.batch_blocks(layouts[a].n_runs) for a in involved)
    distribution = np.empty((len(pairs), n_resamples))
    n_blocks = len(blocks[involved[0]])
    with progress_bar(n_resamples, progress, "probability of improvement") as advance:
        for first in range(0, n_blocks, per_batch):
            draws = {a: kernels.draw_blocks(blocks[a][first:first + per_batch], layouts[a]) for a in involved}
            start, stop = blocks[involved[0]][first][0], blocks[involved[0]][min(first + per_batch, n_blocks) - 1][1]
            for i, (x, y) in enumerate(pairs):
                distribution[i, start:stop] = kernels.improvement_batch(pair_layouts[i], layouts[x], layouts[y],
                                                                        draws[x], draws[y])
            advance(stop - start)
    bounds, se = kernels.interval_bounds(distribution, estimates, confidence_level, "percentile")
    return ProbabilityOfImprovementResult(
        method="Probability of improvement with stratified bootstrap intervals", formula=design.formula,
        data_name=design.data_name, nobs=design.nobs, notes=design.notes,
        options={"n_resamples": n_resamples, "confidence_level": confidence_level, "na_action": na_action,
                 "pairs": [list(p) for p in pairs]},
        seed=seed, pairs=pairs, estimates=estimates, intervals=bounds, interval_mc_se=se,
        bootstrap_distribution=distribution, agents=design.agents, tasks=design.tasks, n_resamples=n_resamples,
        confidence_level=confidence_level, counts=design.counts)


# ----------------------------------------------------------------------------- performance_profile()


def _check_tau(tau, design):
    if tau is None:
        return np.linspace(design.y.min(), design.y.max(), DEFAULT_PROFILE_POINTS)
    try:
        tau = np.asarray(tau, dtype=np.float64)
    except (TypeError, ValueError):
        raise OptionError(f"tau must be a sequence of numbers, got {tau!r}") from None
    if tau.ndim != 1 or tau.size == 0 or not np.isfinite(tau).all():
        raise OptionError(f"tau must be a non-empty 1-D array of finite thresholds, got shape {tau.shape}")
    return tau


def performance_profile(data, formula=None, *, tau=None, kind="runs", n_resamples=2_000, confidence_level=0.95,
                        task_bootstrap=False, normalize=None, na_action="raise", rng=None, progress=False,
                        eval_env=None):
    """Performance profiles (score distributions) with pointwise stratified bootstrap bands.

    Parameters
    ----------
    data : pandas.DataFrame or Design
    formula : str or Formula
    tau : array, optional
        Thresholds; default 81 evenly spaced points from the lowest to the
        highest score in the data.
    kind : {"runs", "tasks"}
        ``"runs"``: fraction of runs scoring strictly above tau, averaged over
        tasks (rliable's score distribution; with equal runs, the fraction of
        all runs); ``"tasks"``: fraction of tasks whose mean score is above tau.
    n_resamples : int
        2,000 by default, as rliable.
    confidence_level : float
    task_bootstrap : bool
        Also resample tasks.
    normalize : DataFrame, str or dict, optional
        As in :func:`bootstrap`.
    na_action : {"raise", "drop"}
    rng : None, int or numpy.random.Generator
        Seed; each agent's resamples are those :func:`bootstrap` draws for it with the same seed.
    progress : bool
    eval_env : patsy.EvalEnvironment, optional

    Returns
    -------
    PerformanceProfileResult

    References
    ----------
    Agarwal et al. (2021), NeurIPS 34, Section 4 (performance profiles).
    Dolan, E. D. and More, J. J. (2002), Math. Program. 91, 201-213.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=5, rng=0)
    >>> res = rlstats.performance_profile(df, "score ~ agent | task", n_resamples=200, rng=0)
    >>> res.tau.size, res.tidy().columns.tolist()
    (81, ['agent', 'tau', 'estimate', 'conf_low', 'conf_high'])
    """
    kind = check_choice("kind", kind, PROFILE_KINDS)
    n_resamples = check_int("n_resamples", n_resamples, minimum=2)
    confidence_level = check_fraction("confidence_level", confidence_level)
    task_bootstrap = check_bool("task_bootstrap", task_bootstrap)
    na_action = check_choice("na_action", na_action, NA_ACTIONS)
    progress = check_bool("progress", progress)
    design = _prepared_design(data, formula, normalize, na_action, _eval_env(eval_env))
    tau = _check_tau(tau, design)
    root, seed = seed_sequence(rng)
    layouts = _layouts(design)
    estimates = np.stack([kernels.profile_values(layout, kernels.observed(layout), tau, kind)[0]
                          for layout in layouts])
    bounds, se = np.empty(estimates.shape + (2,)), np.empty(estimates.shape + (2,))
    with progress_bar(design.n_agents * n_resamples, progress, "performance profiles") as advance:
        for i, (name, layout) in enumerate(zip(design.agents, layouts)):
            stats = kernels.profile_agent(layout, tau, kind, n_resamples, kernels.agent_seed_sequence(root, name),
                                          task_bootstrap=task_bootstrap, advance=advance)
            bounds[i], se[i] = kernels.interval_bounds(stats.T, estimates[i], confidence_level, "percentile")
    return PerformanceProfileResult(
        method="Performance profiles with stratified bootstrap bands", formula=design.formula,
        data_name=design.data_name, nobs=design.nobs, notes=design.notes,
        options={"kind": kind, "n_resamples": n_resamples, "confidence_level": confidence_level,
                 "task_bootstrap": task_bootstrap, "na_action": na_action},
        seed=seed, agents=design.agents, tasks=design.tasks, tau=tau, kind=kind, estimates=estimates,
        intervals=bounds, interval_mc_se=se, n_resamples=n_resamples, confidence_level=confidence_level,
        task_bootstrap=task_bootstrap, counts=design.counts)
