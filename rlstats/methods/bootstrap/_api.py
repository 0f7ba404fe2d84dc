"""Stratified bootstrap: aggregate metrics, probability of improvement, performance profiles.

``bootstrap(df, "score ~ agent | task")`` gives each agent's interquartile
mean, mean, median and optimality gap with stratified bootstrap confidence
intervals: the runs of every task are resampled with replacement on their own
(strata = tasks), as rliable does (Agarwal et al. 2021), and optionally the
tasks as well.  ``probability_of_improvement`` and ``performance_profile``
use the same resamples.  ``BootstrapResult.inferential_intervals`` rescales
two agents' intervals so that they overlap exactly when the blocked rank
test does not reject (thesis Sections 2.4 and 2.7).

The numbers come from :mod:`rlstats.methods.bootstrap._kernels`, vectorised
over resamples in memory-bounded batches.  ``rliable_compat=True`` reproduces
rliable 1.2.0's numbers bit for bit from a seed, for users migrating.
"""

from __future__ import annotations

import dataclasses
import itertools
import numbers
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ... import calibration
from ... import format as fmt
from ...bounds import (KINDS, bound_ties, check_bounds, clip, clipped_note, known_or_unbounded, median_tied_at_middle,
                       saturated_withheld)
from ...cost import admit, shows
from ...design import NA_ACTIONS, agents_said, design_of, public_function
from ...engines import Engine, engine as _engine
from ...errors import DesignError, OptionError, agent_named, did_you_mean, shown, warn
from ...normalization import raw_gap_note, warn_raw_scales
from ...options import (check_bool, check_choice, check_confidence_level, check_cost_options, check_fraction,
                       check_n_jobs, check_pairs, check_resamples, is_finite_number)
from ...progress import progress_bar
from ...resampling import agent_seed_sequence, seed_sequence
from ...statistics import block_ranges, block_tolerances, gap_is_mean, near_tie_note, tie_tolerance
from ...vocabulary import metric_label
from .._replication import untrimmed_iqm_note
from . import _kernels as kernels
from . import _small_runs as small_runs
from ._backend import DEFAULT_PROFILE_POINTS, cost, improvement_cost, profile_cost
from ._result import (BootstrapResult, InferentialIntervalsResult, PerformanceProfileResult,
                      ProbabilityOfImprovementResult, clipped_intervals)
from ..._typing import (BootstrapInterval, DaskBackend, Data, EvalEnv, FormulaLike, ImprovementInterval, Label,
                        NaAction, Normalizer, ProfileInterval, Seed)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ...results import Result

DEFAULT_METRICS = ("iqm", "mean", "median", "optimality_gap")
INTERVALS = ("studentized", "percentile", "basic", "bca", "expanded", "studentized_no_welch", "studentized_unwidened",
             "expanded_tasks")
#: The default interval; where it does not apply (``rliable_compat``, a metric function) the percentile interval is
#: given instead, and with ``task_bootstrap`` and built-in metrics ``"expanded_tasks"`` (:func:`_effective_interval`).
DEFAULT_INTERVAL: BootstrapInterval = "studentized"
COMPAT_INTERVALS = ("percentile", "basic")
IMPROVEMENT_INTERVALS = ("score", "percentile", "expanded")
PROFILE_KINDS = ("runs", "tasks")
#: "wilson": the continuity-corrected stratified Wilson band, the default of kind="runs" without task resampling;
#: "skew_t": the count of tasks whose skew-corrected t bounds lie above tau, the default of kind="tasks" without
#: task resampling (audit s12); "t": the same with Student t bounds (the default from audit s10 to s12);
#: "percentile": the stratified bootstrap percentile band (rliable's, the default of kind="runs" before issue 40
#: and of kind="tasks" before audit s10; with task_bootstrap=True the default of kind="tasks" until audit s30);
#: "wilson_tasks": the Wilson band with the tasks as the sample, the default with task_bootstrap=True (kind="runs"
#: from audit s29; kind="tasks" from s30, on the counts of tasks whose skew-corrected t bounds lie above tau)
PROFILE_INTERVALS = ("wilson", "skew_t", "t", "percentile", "wilson_tasks")
#: each band's kind when tasks are not resampled (the percentile band serves both; with tasks resampled it and
#: "wilson_tasks" apply, to either kind)
_PROFILE_BANDS = {"runs": "wilson", "tasks": "skew_t"}
#: the closed-form bands and the kind each bands without task resampling ("wilson_tasks", which needs it, bands
#: either kind; its entry marks it closed-form, and nothing reads its kind)
_BAND_KINDS = {"wilson": "runs", "skew_t": "tasks", "t": "tasks", "wilson_tasks": "runs"}
#: The default band of kind="runs" with tasks resampled (audit s29 profile29, replacing the percentile band, which
#: missed the population's profile: the bootstrap.profile_population rows 0.23 at 2 tasks, 0.51 at 5, 0.72 at 10,
#: 0.88 at 26, at the worst): the Wilson score interval with
#: continuity correction on the mean of the tasks' fractions with the n tasks as the sample
#: (:func:`kernels.profile_wilson_bounds` at n units of one). Each task's fraction lies in [0, 1], so its variance is
#: at most p (1 - p) and tasks with every run on one side of tau (binomial tasks) are the worst case: enumerated,
#: its exact worst (at a bound, pffix29) 0.947 at 2 tasks, 0.948 at 3, 0.9484 at 5, 0.949 at 26, below 0.95 by at
#: most 0.003; simulated (``bootstrap.profile_population`` rows) 0.974-1.00 from 2 to 26 tasks.
TASKS_BAND = "wilson_tasks"
#: tasks with 3 runs from which the "skew_t" band reads the runs' skewness, at the fewest: with one task
#: its own runs carry the skew their mean is corrected for (a task without its rare large run looks unskewed), and
#: no bound holds whatever their shape (audit s12: skewed runs on one task 0.88-0.92 at 3-20 runs, 2 tasks
#: 0.91-0.95 and 3 tasks 0.93-0.97, against 0.94-1.00 from 5)
SKEW_T_MIN_TASKS = 5
#: resamples of the percentile band unless given (rliable's)
PROFILE_RESAMPLES = 2_000
#: the calibration rows of the profile's bands against the profile of a population of tasks (audit s29 profile29,
#: ``tests/reference/coverage_profile_tasks_resampled.py``), quoted by the percentile band's note with tasks resampled
PROFILE_POPULATION = "bootstrap.profile_population"
#: Default thresholds run from where every profile is still >= 1 - PROFILE_EDGE to where every one is
#: <= PROFILE_EDGE, widened by PROFILE_MARGIN of that span each side: the raw score range let one
#: heavy-tailed task squeeze every curve against the left edge (Atari 100k: 17% of the axis showed a
#: profile between 0.05 and 0.95; Dopamine's 200M-frame Atari: 4%).
PROFILE_EDGE = 0.05
PROFILE_MARGIN = 0.05


# ----------------------------------------------------------------------------- options


#: The most metrics one call takes (4 are built in; the rest are functions), each a column of every resample.
MAX_METRICS = 1_000


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
    if (not isinstance(metrics, Iterable) or hasattr(metrics, "columns")
            or len(getattr(metrics, "shape", (0,))) != 1):
        # a frame or a 2-D array is iterable (its column names, its rows): said as what it is, not read as names;
        # a 1-D array, Series or Index of names (df["metric"].unique()) is read as a list
        raise OptionError(f"metrics must be a metric name, a function, or a list or dict of them, e.g. "
                          f"metrics=['iqm', 'mean'], got {shown(metrics)}")
    # at most MAX_METRICS + 1 taken, so that a huge (or endless) iterable is refused without being listed
    listed = list(itertools.islice(metrics.items() if isinstance(metrics, Mapping) else metrics, MAX_METRICS + 1))
    if len(listed) > MAX_METRICS:
        raise OptionError(f"metrics has more than {MAX_METRICS:,} entries, the most rlstats takes (each keeps "
                          "n_resamples values per agent); pass the metrics you report, each once")
    items = listed if isinstance(metrics, Mapping) else [(_metric_name(m) if callable(m) else m, m) for m in listed]
    if not items:
        raise OptionError(f"metrics is empty; name at least one of {', '.join(map(repr, DEFAULT_METRICS))} "
                          "or pass a function")
    for name, spec in items:
        if not (callable(spec) or isinstance(spec, str)):  # a frame is unhashable: 'in' raised a bare TypeError
            raise OptionError(f"metrics= takes metric names ({', '.join(map(repr, kernels.BUILTIN_METRICS))}) or "
                              f"functions, as a list or a dict {{name: metric}}; got {shown(spec)}"
                              + (f" for metric {name!r}" if isinstance(metrics, Mapping) else ""))
        if not isinstance(name, str):
            raise OptionError(f"metric names must be strings, got {name!r}")
        if isinstance(spec, str) and spec not in kernels.BUILTIN_METRICS:
            # 'IQM' as rliable's papers write it: the built-in name said (new-user trial s37)
            raise OptionError(f"metric {spec!r} is not one of the built-in metrics "
                              f"{', '.join(map(repr, kernels.BUILTIN_METRICS))} and is not a function"
                              f"{did_you_mean(spec, kernels.BUILTIN_METRICS)}")
    names = [name for name, _ in items]
    duplicated = sorted(name for name, times in Counter(names).items() if times > 1)  # one pass, not names.count
    if duplicated:
        raise OptionError(f"metric {fmt.plural('name', len(duplicated))} {duplicated} "
                          f"{fmt.verb(len(duplicated), 'appears')} more than once; give each metric its own name")
    return tuple(names), tuple(spec for _, spec in items)


def _check_real(name, value):
    if not is_finite_number(value):
        raise OptionError(f"{name} must be a finite number, got {shown(value)}")
    return float(value)


#: The most thresholds of a performance profile's tau= grid (the default has a few hundred): each resample keeps
#: a fraction per agent and threshold.
MAX_THRESHOLDS = 10_000


def _too_many_thresholds(size, low=0.0, high=1.0):
    return OptionError(f"tau= has {size:,} thresholds, more than the {MAX_THRESHOLDS:,} a profile may have; "
                       f"pass a coarser grid, e.g. tau=np.linspace({low:g}, {high:g}, 201)")


def _check_tau(tau):
    if not isinstance(tau, np.ndarray) and hasattr(tau, "__len__") and len(tau) > MAX_THRESHOLDS:
        # counted before converting (audit s37 bounds37: tau=range(10**8) was listed whole, a MemoryError)
        try:  # a range's ends without listing it; a list's, already in memory
            ends = sorted((tau[0], tau[-1])) if isinstance(tau, range) else (min(tau), max(tau))
        except (TypeError, ValueError):
            ends = [0.0, 1.0]
        raise _too_many_thresholds(len(tau), *ends)
    try:
        tau = np.asarray(tau, dtype=np.float64)
    except (TypeError, ValueError):
        raise OptionError(f"tau must be a sequence of numbers, got {shown(tau)}") from None
    if tau.ndim != 1 or tau.size == 0 or not np.isfinite(tau).all():
        raise OptionError(f"tau must be a non-empty 1-D array of finite thresholds, got shape {tau.shape}")
    if tau.size > MAX_THRESHOLDS:  # every resample keeps a profile over the grid
        raise _too_many_thresholds(tau.size, tau.min(), tau.max())
    return tau


@dataclass(frozen=True)
class BootstrapOptions:
    metric_names: tuple = DEFAULT_METRICS
    metrics: tuple = DEFAULT_METRICS
    n_resamples: int = 10_000
    confidence_level: float = 0.95
    interval: BootstrapInterval = DEFAULT_INTERVAL
    task_bootstrap: bool = False
    gamma: float = 1.0
    rliable_compat: bool = False
    na_action: NaAction = "raise"
    progress: bool = True
    n_jobs: int = 1
    bounds: tuple | None = None
    #: None (threads of this machine) or "dask" (rlstats.engines), on ``client`` (None: the default Client)
    backend: str | None = None
    client: Any = dataclasses.field(default=None, repr=False, compare=False)

    @classmethod
    def checked(cls, **options: Any) -> BootstrapOptions:
        """Validate every option once; raises OptionError naming the bad one."""
        names, specs = _check_metrics(options["metrics"])
        where = _engine(options["n_jobs"], options.get("backend"), options.get("client"), joblib=False)
        checked = cls(
            metric_names=names, metrics=specs,
            n_resamples=check_resamples(options["n_resamples"], minimum=2),
            confidence_level=check_confidence_level(options["confidence_level"]),
            interval=check_choice("interval", options["interval"], INTERVALS),
            task_bootstrap=check_bool("task_bootstrap", options["task_bootstrap"]),
            gamma=_check_real("gamma", options["gamma"]),
            rliable_compat=check_bool("rliable_compat", options["rliable_compat"]),
            na_action=check_choice("na_action", options["na_action"], NA_ACTIONS),
            progress=check_cost_options(options["progress"], options.get("max_seconds"))[0],
            n_jobs=where.n_jobs, bounds=check_bounds(options.get("bounds")), backend=where.backend,
            client=where.client)
        if checked.rliable_compat and checked.backend is not None:
            raise OptionError(f"rliable_compat=True draws every resample from rliable's one sequential legacy "
                              f"stream, in this process; it cannot run on backend={checked.backend!r}: use "
                              f"rliable_compat=False (streams per block of resamples) or backend=None")
        if checked.rliable_compat and checked.interval not in COMPAT_INTERVALS + (DEFAULT_INTERVAL,):
            why = ("rliable's BCa goes through arch's unstratified jackknife, which rlstats does not copy; use "
                   "rliable_compat=False for BCa intervals" if checked.interval == "bca" else
                   f"rliable has no {checked.interval} interval; use rliable_compat=False for it, or "
                   "interval='percentile' for rliable's")  # audit s20: the BCa reason was given for every kind
            raise OptionError(f"rliable_compat=True reproduces interval='percentile' and 'basic' only, got "
                              f"{checked.interval!r}: {why}")
        if checked.interval == "expanded" and checked.task_bootstrap:
            raise OptionError(
                "interval='expanded' corrects for few runs within tasks, but task_bootstrap=True also resamples "
                "tasks, whose spread it does not model; use interval='percentile' with task_bootstrap=True")
        if checked.interval == small_runs.TASKS_INTERVAL and not checked.task_bootstrap:
            raise OptionError("interval='expanded_tasks' expands for few tasks resampled and needs "
                              "task_bootstrap=True; without it use the default interval (runs within these tasks)")
        if checked.interval == small_runs.TASKS_INTERVAL and any(callable(m) for m in checked.metrics):
            raise OptionError("interval='expanded_tasks' was measured for the built-in metrics only; use "
                              "interval='percentile' with a metric function")
        return checked

    @property
    def engine(self) -> Engine:
        """Where the resamples are computed (:mod:`rlstats.engines`)."""
        return Engine(n_jobs=self.n_jobs, backend=self.backend, client=self.client)

    def record(self) -> dict[str, Any]:
        """The options as stored in the result (metric functions by name; not the Dask client, a live connection)."""
        out = dataclasses.asdict(dataclasses.replace(self, client=None))
        del out["client"]
        out["metrics"] = list(self.metric_names)
        del out["metric_names"]
        return out


@dataclass(frozen=True)
class ProbabilityOfImprovementOptions:
    #: as given until :meth:`for_agents` checks them against the design's agents (None: every pair)
    pairs: Any = None
    n_resamples: int = 2_000
    confidence_level: float = 0.95
    interval: ImprovementInterval = "score"
    na_action: NaAction = "raise"
    progress: bool = True
    n_jobs: int = 1
    higher_is_better: bool = True

    @classmethod
    def checked(cls, **options: Any) -> ProbabilityOfImprovementOptions:
        """Validate every option once (``pairs`` needs the agents: :meth:`for_agents`); raises OptionError."""
        return cls(
            pairs=options["pairs"],
            n_resamples=check_resamples(options["n_resamples"], minimum=2),
            confidence_level=check_confidence_level(options["confidence_level"]),
            interval=check_choice("interval", options["interval"], IMPROVEMENT_INTERVALS),
            na_action=check_choice("na_action", options["na_action"], NA_ACTIONS),
            progress=check_cost_options(options["progress"], options.get("max_seconds"))[0],
            n_jobs=check_n_jobs(options["n_jobs"]),
            higher_is_better=check_bool("higher_is_better", options.get("higher_is_better", True)))

    def for_agents(self, agents, **said):
        """The options with ``pairs`` checked against ``agents``: a tuple of (X, Y) names; ``said``, what an unknown
        agent's error says of them (:func:`rlstats.design.agents_said`)."""
        return dataclasses.replace(self, pairs=check_pairs("pairs", self.pairs, agents, **said))

    def record(self) -> dict[str, Any]:
        """The options as stored in the result."""
        return {"n_resamples": self.n_resamples, "confidence_level": self.confidence_level,
                "interval": self.interval, "na_action": self.na_action, "pairs": [list(p) for p in self.pairs],
                "higher_is_better": self.higher_is_better}


@dataclass(frozen=True)
class PerformanceProfileOptions:
    #: the thresholds, or None for the default range (chosen from the data)
    tau: np.ndarray | None = None
    kind: str = "runs"
    #: "wilson", "skew_t", "t", "percentile" or "wilson_tasks" (None given: "wilson" for kind="runs" and "skew_t" for
    #: kind="tasks" without task resampling; with it "wilson_tasks" for either kind)
    interval: str = "wilson"
    n_resamples: int = 2_000
    confidence_level: float = 0.95
    task_bootstrap: bool = False
    na_action: NaAction = "raise"
    progress: bool = True
    n_jobs: int = 1
    higher_is_better: bool = True

    @classmethod
    def checked(cls, **options: Any) -> PerformanceProfileOptions:
        """Validate every option once; raises OptionError naming the bad one."""
        kind = check_choice("kind", options["kind"], PROFILE_KINDS)
        task_bootstrap = check_bool("task_bootstrap", options["task_bootstrap"])
        interval = options.get("interval")
        own = TASKS_BAND if task_bootstrap else _PROFILE_BANDS[kind]
        interval = own if interval is None else check_choice("interval", interval, PROFILE_INTERVALS)
        if interval == TASKS_BAND and not task_bootstrap:
            # audit s29 profile29: the tasks as the sample, so it speaks of a population of tasks (audit s30 tboot30:
            # of either kind)
            raise OptionError(f"interval={TASKS_BAND!r} bands the profile of a population of tasks "
                              f"(task_bootstrap=True), got kind={kind!r}, task_bootstrap={task_bootstrap}: "
                              f"use interval={own!r}")
        if interval not in ("percentile", TASKS_BAND) and (task_bootstrap or _BAND_KINDS[interval] != kind):
            # the Wilson band treats each task's runs above tau as binomial counts, the t bands bound each task's
            # mean: each bands its own kind of profile over the tasks given, not tasks drawn again
            wanted = _BAND_KINDS[interval]
            what = {"runs": "the fraction of runs above tau",
                    "tasks": "the fraction of tasks whose mean is above tau"}[wanted]
            raise OptionError(f"interval={interval!r} bands {what} in the tasks given "
                              f"(kind={wanted!r}, task_bootstrap=False), got kind={kind!r}, "
                              f"task_bootstrap={task_bootstrap}: use interval={own!r}")
        return cls(
            kind=kind, interval=interval,
            n_resamples=check_resamples(options["n_resamples"], minimum=2),
            confidence_level=check_confidence_level(options["confidence_level"]),
            task_bootstrap=task_bootstrap,
            na_action=check_choice("na_action", options["na_action"], NA_ACTIONS),
            progress=check_cost_options(options["progress"], options.get("max_seconds"))[0],
            n_jobs=check_n_jobs(options["n_jobs"]),
            tau=None if options["tau"] is None else _check_tau(options["tau"]),
            higher_is_better=check_bool("higher_is_better", options.get("higher_is_better", True)))

    def record(self) -> dict[str, Any]:
        """The options as stored in the result."""
        return {"kind": self.kind, "interval": self.interval, "n_resamples": self.n_resamples,
                "confidence_level": self.confidence_level, "task_bootstrap": self.task_bootstrap,
                "na_action": self.na_action, "higher_is_better": self.higher_is_better}


# ----------------------------------------------------------------------------- design preparation


def _prepared_design(design, na_action):
    agents, tasks = fmt.plural(design.arm_word), fmt.plural(design.block_word)  # the data's columns (words33b)
    return design.require_complete(na_action, f"aggregate metrics compare {agents} on the same {tasks}")


def _directed(design, higher_is_better):
    """``design`` with larger values better: itself, or where smaller is better (``higher_is_better=False``, a time
    to a threshold) its response negated, so that P(-X > -Y) is P(X < Y) and a profile's -y > -tau is y < tau (the
    comparisons of values the probability of improvement and the profiles read; their results show the values and
    thresholds as the data hold them; audit s34 ttt34)."""
    if higher_is_better:
        return design
    bounds = design.bounds
    if bounds is not None:
        bounds = dataclasses.replace(bounds, low=-bounds.high, high=-bounds.low)
    return dataclasses.replace(design, y=-design.y, bounds=bounds)


def _layouts(design):
    return [_agent_layout(design, j) for j in range(design.n_agents)]


def _require_run_matrices(design, layouts, why):
    """User metrics and rliable's layout need the same number of runs in every task of an agent."""
    for name, layout in zip(design.agents, layouts):
        if layout.run_matrix is None:
            sizes = layout.task_sizes
            raise DesignError(
                f"{why} needs each agent's runs as a (runs x tasks) matrix, but agent {name!r} has "
                f"{sizes.min()} to {sizes.max()} runs per task; use the built-in metrics with "
                "rliable_compat=False (they allow unequal runs), or drop runs to balance the agent")


# ----------------------------------------------------------------------------- shared result helpers


# ----------------------------------------------------------------------------- results


def inferential_intervals(result: BootstrapResult, a: Label, b: Label, test: Result | None = None, *,
                          alpha: float | None = None) -> InferentialIntervalsResult:
    """What :meth:`BootstrapResult.inferential_intervals` returns (see there).

    The blocked rank test, when ``test`` is None, is reached through the
    registry (:func:`rlstats.methods.backend`), never imported.
    """
    from .. import backend

    a, b = (agent_named(result.agents, option, name) for option, name in (("a", a), ("b", b)))  # labels: 0 names '0'
    if a == b:
        raise OptionError("inferential intervals compare two different agents; got the same agent twice")
    # round away the binary residue of 1 - 0.95
    alpha = round(1 - result.confidence_level, 12) if alpha is None else check_fraction("alpha", alpha)
    if test is None:
        if result.design is None or not result.design.has_blocks:
            raise DesignError("the blocked rank test needs tasks as blocks ('score ~ agent | task'); pass test= "
                              "a result with a pvalue for these two agents")
        test = backend("skillings_mack")(result.design.select_agents([a, b]))
    _check_test(test, a, b)
    return _inferential(result, a, b, test, alpha)


def _check_test(test, a, b):
    if not hasattr(test, "pvalue"):
        raise OptionError(f"test must be a test result with a pvalue attribute, got {type(test).__name__}")
    agents = getattr(test, "agents", None)
    if agents is not None and set(agents) != {a, b}:
        raise OptionError(f"the test compares {', '.join(map(repr, agents))}; inferential intervals need a test of "
                          f"exactly {a!r} and {b!r}")


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
    known = known_or_unbounded(getattr(result.design, "bounds", None))
    for j, (metric, kind) in enumerate(zip(result.metrics, result._kinds)):
        # widening can pass a bound; clipping keeps which pairs overlap (both estimates lie within the bounds)
        if KINDS.get(kind) is not None:
            inferential[:, j], moved = clip(inferential[:, j], known.limits(KINDS[kind], result.gamma))
            note = clipped_note(moved, f"the inferential intervals of the {metric_label(metric)}", known, KINDS[kind],
                                result.gamma)
            notes += [note] if note else []
    significant = pvalue <= alpha
    overlap = kernels.overlaps(inferential)
    agrees = overlap != significant
    for metric in np.asarray(result.metrics, dtype=object)[~agrees]:
        message = (f"the inferential intervals of {a} and {b} for the {metric_label(metric)} cannot match the test's "
                   "decision (equal estimates, or descriptive intervals that do not contain their estimates)")
        warn(message)
        notes.append(message)
    return InferentialIntervalsResult(
        method="Inferential confidence intervals", formula=result.formula, data_name=result.data_name,
        nobs=int(result.counts[:, rows].sum()), notes=tuple(notes),
        options={"alpha": alpha, "rule": "thesis Appendix B.2 code"}, seed=result.seed,
        agents=(a, b), metrics=result.metrics, estimates=estimates, descriptive=descriptive, inferential=inferential,
        epsilon=eps, branch=tuple(branches), pvalue=pvalue, alpha=alpha, significant=bool(significant),
        overlap=overlap, agrees=agrees, test_method=str(getattr(test, "method", type(test).__name__)),
        test_statistic=None if getattr(test, "statistic", None) is None else float(test.statistic),
        confidence_level=result.confidence_level)


# ----------------------------------------------------------------------------- bootstrap()


@public_function
def bootstrap(data: Data, formula: FormulaLike | None = None, *,
              metrics: Sequence[Any] | dict[str, Any] = DEFAULT_METRICS, n_resamples: int = 10_000,
              confidence_level: float = 0.95, interval: BootstrapInterval = "studentized",
              task_bootstrap: bool = False,
              normalize: Normalizer = None, gamma: float = 1.0, rliable_compat: bool = False,
              bounds: tuple[float | None, float | None] | None = None, na_action: NaAction = "raise", rng: Seed = None,
              progress: bool = True, max_seconds: float | None = None, n_jobs: int = 1,
              backend: DaskBackend | None = None, client: Any = None, higher_is_better: bool = True,
              eval_env: EvalEnv = None) -> BootstrapResult:
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
        over all runs x tasks; an agent whose runs per task differ weighs each
        task alike in these two, a run of a task with c runs counting c_max / c
        times), or functions of a (runs x tasks) score matrix (the tasks in
        their names' sorted order) returning a float; a function with attribute ``vectorized = True``
        receives a (resamples, runs, tasks) array and returns one value per
        resample.  A dict maps names to metrics; at most 1,000 (``MAX_METRICS``),
        each name once.  With unequal runs per task,
        IQM and optimality gap weigh each task alike (they pooled all runs, so
        that tasks with more runs weighed more, before audit s8), with a note.
    n_resamples : int
        Bootstrap resamples (memory stays bounded: they are drawn in batches).
    confidence_level : float
        Level of the intervals, between 0 and 1 (0.95: 95% intervals).
    interval : {"studentized", "percentile", "basic", "bca", "expanded", "studentized_no_welch", \
            "studentized_unwidened", "expanded_tasks"}
        Studentized (the default since issue 40): the bootstrap-t interval,
        each resample's (metric - estimate) divided by its own stratified
        delta-method standard error (within tasks; winsorised at the
        resample's quartiles for the IQM; at least a quarter of the
        resamples' standard deviation, so that a resample repeating one run
        of a dominant task does not set the quantile), whose quantiles scale
        the data's standard error times sqrt(c / (c - 1)), c the agent's
        fewest runs in a task; the median of task means, whose resampled standard
        errors jump between middle tasks and do not studentise, takes a t
        interval: the t quantile at its middle task's degrees of freedom
        (Welch-Satterthwaite for two middle tasks) times sqrt(c / (c - 1))
        times the root mean square of the resamples' deviations from the
        estimate (c the agent's fewest runs in a task); on 1 or 2 tasks,
        where the median of task means is their mean, it takes the mean's
        interval and the mean's rules for withholding it, with a note (audit
        s26: its t interval covered 0.885-0.937 on 1 and 0.908-0.935 on 2
        tasks of 3-20 skewed runs, the mean's 0.934-0.964 and 0.949-0.962;
        the former defaults below keep the t interval).  The mean's and
        the median's intervals are widened on the side of their skew by
        skewness / 6 (2 z^2 + 1) of their standard errors (the
        Cornish-Fisher term of a studentised mean, Hall 1992; the skewness
        of the mean, or of the middle task's mean, from the runs'
        k-statistic skewness averaged over tasks): at 5 tasks of 10
        lognormal runs the median's symmetric interval missed only above
        (0.936, 0.873 in the worst design draw; widened 0.964 and 0.935,
        1.13 times as wide), as did the mean's at 5 runs (0.933 on 1,920
        intervals).  The mean's and the optimality gap's take on each side
        the wider of that bootstrap-t bound and the Welch t bound, the
        estimate -+ t_df sqrt(c / (c - 1)) times their standard error, df
        the Welch-Satterthwaite degrees of freedom of the agent's mean over
        tasks (audit s20): the bootstrap-t alone covered 0.928 (mean) and
        0.930 (optimality gap) of 1,920 intervals at 5 tasks x 20
        heavy-tailed runs, and the Welch t alone 0.912 (mean) at 5 tasks x
        5 skewed runs; the wider of the two covered 0.958 and 0.946 there,
        and none of its 64 grid rows misses, at 1.00-1.08 times the
        bootstrap-t's median width (3-20 runs).
        An agent's optimality gap where its every score is at or below
        gamma is gamma minus its mean of task means (on any tasks and
        runs), and takes that mean's interval reflected, its widening and
        its one-task count (20 runs) with it, with a note (audit s27).
        ``"studentized_no_welch"`` is the default before that (the
        bootstrap-t bounds alone) and ``"studentized_unwidened"`` the
        default before the skew widening (issue 40), each bit for bit.
        Percentile and BCa intervals
        covered 0.71-0.96 at 3-5 runs per task on 5 and 26 tasks in
        simulation (0.56 and more on one task); the studentised
        one holds 95% within Monte Carlo error on most of the grid (the
        ``bootstrap.interval`` rows of ``calibration.csv``; the result quotes
        the rows it misses).  It is withheld (NaN bounds, a note with the
        way on) for an agent with fewer than 3 runs in a task; on a
        single task below 20 runs for the IQM, the mean and the median (the
        task's mean there, with the mean's interval) and 50 for the optimality gap (20,
        the mean's, where every score is at or below gamma), the
        counts from which its one-task rows hold (audit s19 and s20, the
        ``tasks`` 1 rows, ``_small_runs.ONE_TASK_MIN_RUNS``: the mean's and
        the optimality gap's 0.949-0.981 from there with the Welch bound;
        the bootstrap-t alone missed on heavy-tailed runs, the mean's at
        20-100 runs (0.919-0.934) and the gap's at 20-30 (0.932), and
        ``"studentized_no_welch"`` withholds the mean's at any count and
        gives the gap's from 50 runs, its median's t interval from 20,
        ``"studentized_unwidened"``'s unwidened median never); and for an agent whose runs mostly sit at a cap
        (three quarters or more at a task's largest or smallest score,
        with fewer than 8 off it for the IQM, 6 for the mean and the
        optimality gap, and for the median whatever the count: on such
        runs it covered 0.47-0.91 at 5-10 tasks, and every other kind
        less); the median's also where 0.3 or more of the agent's runs
        tie at a task's largest or smallest score (two or more of the
        task's runs there; ``rlstats.bounds.MEDIAN_TIED_SHARE``) and half
        or more of the runs of the tasks the median sits on tie there
        too (``MEDIAN_MIDDLE_TIED_SHARE``, audit s12), or 0.6 or more of
        all its runs tie (``MEDIAN_TIED_SHARE_ALONE``): the median then
        moves by those tasks' few runs off the tie, and it covered
        0.87-0.95 at 5 tasks x 3-10 runs with 36-70% of the runs at a cap
        (0.96-1.0 of those given under the rule; on the grid's capped
        scores, a third at the cap, it withholds 23-38% of the median's
        intervals, which held; curves() withholds its median bands by the
        share alone).  It
        gives way to ``"expanded_tasks"`` with ``task_bootstrap=True`` and
        built-in metrics (see ``task_bootstrap``), to the percentile interval,
        with a note, with a metric function (no within-task
        standard error), and silently with ``rliable_compat=True`` (rliable's
        interval).  Or: percentile (rliable's), basic (reflected percentile), BCa
        with z0 counting ties half and the acceleration from the jackknife
        within tasks (Davison & Hinkley 1997, several samples; with
        ``task_bootstrap`` from leaving out whole tasks; for user metrics from
        leaving out one run index of every task), or expanded percentile for
        few runs per task: the percentile interval read at the level whose
        normal quantile is sqrt(c / (c - 1)) t_df, c the agent's fewest runs
        in a task and df the Welch-Satterthwaite degrees of freedom of its
        mean over tasks (Hesterberg 2015).  With few runs the percentile,
        basic and BCa intervals cover less than stated; the result then
        quotes the coverage simulation measured for each metric (the
        ``bootstrap.interval`` rows of the package's ``calibration.csv``).  One run in every task
        of an agent is an error (intervals of zero width) unless
        ``task_bootstrap=True``.
    task_bootstrap : bool
        Also resample tasks with replacement (intervals for a population of tasks). From one task they are
        withheld (every resample is that task); from n tasks a percentile or BCa interval lies within the range of
        its statistic over the tasks drawn, which holds a population's middle in only 1 - 2^(1 - n) of samples
        (0.5 at 2 tasks, 0.94 at 5) unless the runs' noise, resampled too, is large next to the tasks' spread,
        and a note says so where that is below the level (audit s28; audit s29 tbfix29b: with runs' sd twice
        the task means' the rows on 3 tasks held 0.93-0.96 of the median). Simulated
        against the value over the population of tasks (the ``bootstrap.interval_tasks`` rows of the package's
        ``calibration.csv``: 2-26 tasks, 3-10 runs), the percentile interval misses 95% at every number of tasks,
        26 included (the mean: 0.52-0.87 at 2 tasks, 0.84-0.96 at 10, 0.89-0.98 at 26); at a 95% level the note
        quotes the lowest coverage measured for each metric at the design's numbers of tasks and runs where it
        misses (audit s28 taskboot28). So the default with it is ``interval="expanded_tasks"`` (audit s29
        taskboot29; built-in metrics only): each metric read at the level whose normal quantile is
        sqrt(n/(n-1)) t_{n-1}, n the tasks, the mean's as a bootstrap-t over tasks (each resample studentised by
        the sd of its task means over sqrt(n)), the median's, IQM's and optimality gap's as percentiles. It is
        given where every ``bootstrap.interval_tasks`` row held: the mean and the optimality gap from 10 tasks
        (0.93-0.99 at 10 and 26), the median and the IQM from 5 (0.93-1.00 at 5-26; the ceiling above does not
        bound it: its runs resampled and expanded level reach beyond the task means' range, audit s29 tbfix29b);
        on fewer it is withheld with a note naming the metric and the rows that missed (no interval measured
        held there: the mean's Student t on task means covered 0.85-0.94 and its percentile interval 0.52-0.96
        at 2-10 tasks on skewed task means). ``interval="percentile"`` gives the percentile interval as before.
    normalize : DataFrame, str or dict, optional
        Normalise the response column per task first with
        :func:`rlstats.normalize`: a reference frame, a dataset name such as
        ``"atari100k_reference"``, or a dict of its keyword arguments.  Raw scores of
        tasks whose ranges (largest minus smallest score) differ more than tenfold are aggregated with a warning;
        ``False`` says they are on one scale already (no warning).
    gamma : float
        Threshold of the optimality gap: the target score, 1 being the reference score of normalised scores
        (``normalize=``). On scores not normalised where fewer than a tenth of each agent's scores on every task
        lie on one side of gamma (raw returns above 1: a gap of 0, or of a few outlying runs), the notes say what the
        gap reduces to and how to set gamma or normalise (docs/rliable.md states the rule; of a gamma other than 1,
        a target chosen, only every score on one side is said).
    bounds : (low, high), optional
        Known limits of the score (None for a side without one; ``normalize="dm_control"`` implies [0, 1]): a run
        outside them is an error naming it, and interval ends of the built-in metrics outside their range under
        the bounds (IQM, mean, median: [low, high]; optimality gap: [max(gamma - high, 0), max(gamma - low, 0)])
        are clipped to it, which keeps coverage since the true value lies within it; the notes say where.
        Percentile and BCa ends never leave it; basic and expanded ends can. A metric function is not clipped.
    rliable_compat : bool
        Reproduce rliable 1.2.0 bit for bit: ``rng`` must be the int given to
        ``np.random.seed``; our own legacy ``RandomState(rng)`` then draws for
        each agent in turn (agents in the design's order: use a Categorical
        to match a dict order), replicate by replicate, ``choice(R, (R, T))``
        with run r of a task being the r-th run of that (agent, task) in the
        data (or by seed with ``task/seed``), and task t the t-th of the
        design's tasks (sorted by name, or a Categorical's order): they must
        be the columns of rliable's matrices in the same order ("t10" sorts
        before "t2").  Percentile and basic intervals.
    na_action : {"raise", "drop", "omit"}
        Missing values and agent x task cells without runs: an error, or drop
        the rows / leave out the tasks where some agent has no runs, and say so.
        ``"omit"`` (R's ``na.omit``) is the same as ``"drop"``.
    rng : None, int or numpy.random.Generator
        Seed (recorded in the result).  Each agent's runs on each task (a cell) are
        drawn from a stream keyed by the agent's label and the task's
        (``rlstats.resampling.cell_seed_sequence``), so its intervals do not depend
        on the other agents, and a task's draws not on the other tasks (their
        names, order or number); renaming an agent therefore changes its
        resamples, renaming a task its cells' (not the estimates).  Each cell was
        drawn in one row of all the agent's tasks before audit s33 (bootstream33),
        so the same ``rng`` now gives other resamples, with the same distribution.
        The row order, the frame type and the score's units do not change them.
        Runs are drawn 16 bits a value (:class:`rlstats.resampling.CellIndices`,
        exactly uniform); before issue 17 they came from ``Generator.integers``,
        so the same ``rng`` now gives other resamples than earlier versions did,
        with the same distribution (tested).  Since issue 43 an agent whose
        16-bit draws would be rejected more than 2.5% of the time on average
        (``rlstats.resampling.lane_bits``; e.g. every task with 3,000 runs)
        draws 32 bits a value (other resamples than before for some agents with
        more than 1,680 runs in a task, the same distribution); since audit s33 the
        rule is applied to each cell's runs alone.  Task resampling still draws
        with ``Generator.integers``, from the agent's stream.  The same ``rng`` gives the same
        resamples on every little-endian machine; the statistics' sums go
        through numpy's OpenBLAS where it has one, whose kernels differ
        between processors, so their last bits (about 1e-15 relative) may
        differ between machines.
    progress : bool
        A progress bar (tqdm: on a terminal, or a notebook's widget) when the work is estimated to take more
        than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    n_jobs : int
        Threads computing the resamples (-1: one per core).  Every block of
        100 resamples has its own generator, so the result is identical
        whatever ``n_jobs``.  With ``rliable_compat`` the draws stay in one
        thread, in rliable's order, and only the metrics are computed on
        threads.  User metric functions are called from several threads at once.
    backend : None or "dask"
        ``"dask"``: the blocks of resamples are computed on a ``dask.distributed`` cluster
        (``pip install 'dask[distributed]'``, or ``pip install ".[distributed]"`` in a source checkout), for very
        large run collections; the result is the same bits
        as on one machine (each block's stream is keyed by the block, never by the worker).  Each agent's
        runs are sent to the cluster once.  Not with ``rliable_compat=True`` (one sequential stream).
    client : distributed.Client or None
        With ``backend="dask"``, the Client to run on (None: the default Client, the one made last in
        this process; an error if there is none).
    higher_is_better : bool
        Whether larger scores are better; only the optimality gap reads it.  The gap (Agarwal et al. 2021) is the
        mean shortfall of a score below a target gamma where larger is better; where smaller is better (False: a
        time to a threshold, whose runs never reaching it hold only a lower bound of their time, the budget) no
        shortfall below a target says how far from it an agent is, so the default metrics leave the gap out and
        say why in a note, and ``metrics=`` naming it is an OptionError (a metric function states another
        target's reading).  Not given, it is read from the data as every function taking it reads it: False, with a
        note, for :func:`rlstats.summarize_runs`' ``how="time_to_threshold"`` summary.
    eval_env : patsy.EvalEnvironment, optional
        Where names in the response expression are looked up; by default the caller's frame.

    Returns
    -------
    BootstrapResult

    Raises
    ------
    FormulaError, DesignError, OptionError

    See Also
    --------
    rlstats.probability_of_improvement : P(X > Y) from the same resampling scheme.
    rlstats.performance_profile : Score distributions with bands.
    rlstats.task_table : Per-task table with an aggregate row from this bootstrap.
    rlstats.normalize : Scores on a common scale before aggregating.

    References
    ----------
    Agarwal, R., Schwarzer, M., Castro, P. S., Courville, A. and Bellemare, M. G.
    (2021), Deep reinforcement learning at the edge of the statistical
    precipice, NeurIPS 34 (stratified bootstrap, IQM, optimality gap).
    Efron, B. (1987), Better bootstrap confidence intervals, JASA 82(397), 171-185.
    Davison, A. C. and Hinkley, D. V. (1997), Bootstrap Methods and their
    Application, Cambridge University Press, Sections 3.2 and 5.3.
    Hesterberg, T. C. (2015), What teachers should know about the bootstrap,
    The American Statistician 69(4), 371-386 (the expanded percentile interval).
    Efron, B. and Tibshirani, R. J. (1993), An Introduction to the Bootstrap,
    Chapman & Hall, Section 12.5 (the bootstrap-t interval).
    Tukey, J. W. and McLaughlin, D. H. (1963), Less vulnerable confidence and
    significance procedures for location based on a single sample, Sankhya A
    25(3), 331-352 (the trimmed mean's winsorised standard error).

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
        progress=progress, max_seconds=max_seconds, n_jobs=n_jobs, bounds=bounds, backend=backend, client=client)
    options, directed = _gap_directed(options, check_bool("higher_is_better", higher_is_better))
    # One agent is enough: its intervals describe it on its own.
    design = _prepared_design(design_of(data, formula, na_action=options.na_action, eval_env=eval_env,
                                        normalize=normalize, min_agents=1, bounds=options.bounds), options.na_action)
    design = dataclasses.replace(design, notes=(*design.notes, *directed)) if directed else design
    # the IQM and the median read where the tasks lie: tasks on ranges apart are cautioned too (audit s18)
    design = warn_raw_scales(design, normalize, location=[m for m in options.metrics if isinstance(m, str)])
    work = admit(cost, design, options, max_seconds, "bootstrap()")  # issue 43 item 2
    return _run_bootstrap(design, options, rng, shows(work, options.progress))


#: The built-in metric that reads a direction: the mean shortfall below gamma, larger being better.
GAP = "optimality_gap"


def _gap_directed(options, higher_is_better):
    """(options, notes): where smaller is better (``higher_is_better=False``), the default metrics without the
    optimality gap and the note saying why, or an OptionError where ``metrics=`` names it; else as given, no note
    (audit s34 ttt34: the gap of times censored at their budget, in steps against gamma = 1, was printed)."""
    if higher_is_better or GAP not in options.metrics:
        return options, ()
    why = ("(Agarwal et al. 2021) is the mean shortfall of a score below a target gamma, where larger is better, but "
           "here smaller is better (higher_is_better=False, as of a time to a threshold, where a run that never reached "
           "it holds only a lower bound of its time, the budget), and no shortfall below a target says how far an "
           "agent is from it")
    if options.metric_names != DEFAULT_METRICS or options.metrics != DEFAULT_METRICS:
        raise OptionError(f"metrics= names {GAP!r}: the optimality gap {why}; leave it out of metrics=, pass a metric function for the "
                          f"reading you mean (e.g. the mean excess of the times over a target time), or pass "
                          f"higher_is_better=True if larger values are better")
    kept = tuple(m for m in DEFAULT_METRICS if m != GAP)
    note = (f"the optimality gap is left out of the default metrics ({', '.join(kept)} given): it {why}; the mean, "
            f"median and IQM of the values read the same either way")
    return dataclasses.replace(options, metric_names=kept, metrics=kept), (note,)


def _welch_df(design):
    """(K,) Welch-Satterthwaite degrees of freedom of each agent's mean over tasks (the expanded interval)."""
    mine = [design.agent == j for j in range(design.n_agents)]
    return np.array([small_runs.welch_df(design.y[m], design.task[m], design.n_tasks) for m in mine])


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


def _agent_layout(design, j):
    # the tasks in their names' sorted order (design.task_order), not the design's, each with its label: each cell's
    # stream is keyed by the agent's label and its task's (audit s33 bootstream33), so that its draws follow neither
    # the other tasks' names, their number, nor the order of the tasks (a Categorical's category order)
    mine = np.flatnonzero(design.agent == j)
    task = design.task_places[design.task[mine]]
    return kernels.agent_layout(design.y[mine], task, design.run[mine], design.n_tasks,
                                [design.tasks[t] for t in design.task_order])


def _effective_interval(options):
    """(options, notes): the default studentised interval becomes the percentile one where it does not apply.

    It studentises the built-in metrics with their within-task standard errors
    (:func:`_small_runs.studentized_gives_way`).
    """
    why = small_runs.studentized_gives_way(options.interval, options.rliable_compat, options.task_bootstrap,
                                           options.metrics)
    if why is None:
        return options, []
    given = small_runs.given_interval(options.interval, options.rliable_compat, options.task_bootstrap,
                                      options.metrics)
    if given == small_runs.TASKS_INTERVAL:  # the result names it, and its method says what it is (audit s29)
        return dataclasses.replace(options, interval=given), []
    percentile = dataclasses.replace(options, interval="percentile")
    if not why:
        return percentile, []
    return percentile, [f"interval=\"studentized\" needs the within-task standard errors of the built-in metrics, "
                        f"which {why} does not have: percentile intervals are given"]


def _weighted_tasks_note(design, metrics):
    """The note of the agents whose runs per task differ, where the IQM and the optimality gap weigh each task alike
    (``AgentLayout.run_weight``; audit s8: pooled runs weighed the tasks by their runs, and two agents alike on
    every task got IQMs 9.2 and 0.23 from 3 and 10 runs on two tasks)."""
    named = [metric_label(m) for m in ("iqm", "optimality_gap") if m in metrics]
    counts, task = design.counts, design.block_word
    unequal = [j for j in range(design.n_agents) if counts[:, j].min() != counts[:, j].max()]
    if not named or not unequal:
        return []
    # each agent's own range (audit s31 trialfix31: one range over all, "DER, SPR: ... (1 to 5)" where DER's was 4
    # to 5), the agents of one range named together
    ranges = {}
    for j in unequal:
        ranges.setdefault((int(counts[:, j].min()), int(counts[:, j].max())), []).append(design.agents[j])
    named_ranges = [(fmt.listed(fmt.names_shown(names, design.agents), 5), low, high)
                    for (low, high), names in ranges.items()]
    if len(named_ranges) == 1:
        (agents, low, high), = named_ranges
        who = f"{agents}: runs per {task} differ ({low} to {high})"
    else:
        who = "; ".join(f"{agents} ({low} to {high})" for agents, low, high in named_ranges) + f": runs per {task} differ"
    return [f"{who}, so the {' and the '.join(named)} {fmt.verb(len(named), 'weighs')} each {task} alike, a run of "
            f"{fmt.a_or_an(task)} with c runs counting c_max / c times (as if every {task} had the "
            f"{design.arm_word}'s most runs, c_max); pooling the runs would weigh the {fmt.plural(task)} by their runs"]


def _run_notes(design, options):
    """(options, notes, cells, computed) before any resampling: the interval given (:func:`_effective_interval`),
    the notes of the design (one-run tasks, unequal runs per task, ...), and the interval each agent's metric takes."""
    options, notes = _effective_interval(options)
    # Before any resampling: one run in every task is an error, single-run tasks are notes.
    notes += [] if options.task_bootstrap else small_runs.check_single_runs(
        "bootstrap", design.counts, design.agents, options, design.tasks, design.words)
    notes += _weighted_tasks_note(design, options.metrics)
    if "optimality_gap" in options.metrics:
        notes += [n for n in [raw_gap_note(design, options.gamma)] if n]
    if "iqm" in options.metrics:
        notes += untrimmed_iqm_note(design.counts, design.agents, task=design.block_word)
    # the interval each agent's metric takes, once a call (audit s27 median27: twice): on 1 or 2 tasks the median of
    # task means is their mean and is computed as it, interval and all (audit s26 median26), and an agent's optimality
    # gap with every score at or below gamma takes the mean's interval reflected (audit s27); a metric function: None
    kinds = tuple(spec if isinstance(spec, str) else None for spec in options.metrics)
    cells = small_runs.interval_kinds(kinds, design.n_tasks, options.interval,
                                      gap_is_mean(design.y, design.agent, design.n_agents, options.gamma))
    return options, notes, cells, small_runs.computed_metrics(kinds, cells)


def _run_bootstrap(design, options, rng, shown):
    """The bootstrap of the checked options; ``shown``: whether to draw a bar (``options.progress`` stays what the
    caller asked, as the result records it)."""
    options, notes, cells, computed = _run_notes(design, options)
    if not options.rliable_compat and not any(callable(m) for m in options.metrics):
        return _run_builtin_bootstrap(design, options, rng, notes, shown, computed, cells)
    layouts = _layouts(design)
    if options.rliable_compat:
        _require_run_matrices(design, layouts, "rliable_compat=True")
    elif any(callable(m) for m in options.metrics):
        _require_run_matrices(design, layouts, "a user metric function")
    total = design.n_agents * options.n_resamples
    with progress_bar(total, shown, "bootstrap") as advance:
        if options.rliable_compat:
            seed = _compat_seed(rng)
            matrices = [layout.run_matrix for layout in layouts]
            stats = kernels.rliable_bootstrap(matrices, options.metrics, options.gamma, options.n_resamples, seed,
                                              task_bootstrap=options.task_bootstrap, advance=advance,
                                              n_jobs=options.n_jobs)
            estimates = np.stack([kernels.rliable_values(m[None], options.metrics, options.gamma)[0]
                                  for m in matrices])
        else:
            root, seed = seed_sequence(rng)
            stats = [kernels.bootstrap_agent(layout, options.metrics, options.gamma, options.n_resamples,
                                             agent_seed_sequence(root, name),
                                             task_bootstrap=options.task_bootstrap, advance=advance,
                                             n_jobs=options.engine)
                     for name, layout in zip(design.agents, layouts)]
            estimates = np.stack([kernels.point_estimates(layout, options.metrics, options.gamma)
                                  for layout in layouts])
    distribution = np.stack([s.T for s in stats])
    acceleration = _accelerations(layouts, options) if options.interval == "bca" else None
    return _bootstrap_result(design, options, seed, distribution, estimates, acceleration, notes, cells)


def agents_alone(result: BootstrapResult, agents: Sequence[str], reuse: dict | None = None) -> BootstrapResult:
    """The result a bootstrap of ``result``'s rows of ``agents`` alone gives (names, in the result's order), read from
    ``result``'s resamples without drawing again: each agent's come from its own stream keyed by its label (the
    built-in metrics' run-level bootstrap), so its draws, estimates and standard errors are those of such a run, and
    the intervals, notes and caps are derived again from those agents' rows (equivalence(): each pair's aggregate and
    notes from its group's bootstrap, audit s31 rfix31c).

    ``reuse``: a dict kept between calls on one ``result`` (empty at first), holding what each agent's interval reads
    of its own runs alone (:func:`_agent_pieces`: its degrees of freedom, skewness, bounds before the caps, whether its
    tasks lie apart), computed once for every agent of ``result`` and read by each call (audit s39 eq39: equivalence()
    derived them again for each of 780 pairs); the same numbers bit for bit."""
    if (result.rliable_compat or result.task_bootstrap or any(kind is None for kind in result.metric_kinds)
            or result.design is None or result.bootstrap_distribution is None):
        raise ValueError("agents_alone() reads the built-in metrics' run-level bootstrap only")  # internal use
    codes = [result.agents.index(name) for name in agents]
    design = dataclasses.replace(result.design.select_agents(list(agents)), notes=result.design.notes)
    checked = None if reuse is None else reuse.get("options")
    if checked is None:
        checked = BootstrapOptions.checked(**result.options)
        if reuse is not None:
            reuse["options"] = checked
    options, notes, cells, _ = _run_notes(design, checked)
    errors = (None if result.resampled_standard_errors is None or result.standard_errors is None else
              (result.resampled_standard_errors[codes], result.standard_errors[codes]))
    pieces = None
    if reuse is not None:
        if "pieces" not in reuse:  # every agent's, from the whole result's design (each reads its own runs alone)
            whole, _, whole_cells, _ = _run_notes(result.design, checked)
            reuse["pieces"] = whole, _agent_pieces(
                result.design, whole, result.bootstrap_distribution, result.estimates, result.acceleration,
                whole_cells, None if errors is None else (result.resampled_standard_errors, result.standard_errors))
        whole, every = reuse["pieces"]
        if whole == options:  # the same options read (metrics and interval): else this subset's own
            pieces = tuple(None if piece is None else piece[codes] for piece in every)
    return _bootstrap_result(design, options, result.seed, result.bootstrap_distribution[codes],
                             result.estimates[codes], None if result.acceleration is None else
                             result.acceleration[codes], notes, cells, errors, pieces=pieces)


def _run_builtin_bootstrap(design, options, rng, notes, shown, computed, cells):
    """Built-in metrics: one agent's layout at a time, so memory holds one agent's runs, not all (``computed``: the
    metric each is computed as, :func:`_small_runs.computed_metrics` of ``cells``, each agent's
    :func:`_small_runs.interval_kinds`)."""
    root, seed = seed_sequence(rng)
    distribution = np.empty((design.n_agents, len(options.metrics), options.n_resamples))
    estimates = np.empty((design.n_agents, len(options.metrics)))
    acceleration = np.zeros_like(estimates) if options.interval == "bca" else None
    studentized = options.interval in small_runs.STUDENTIZED_INTERVALS
    # the studentised interval's standard errors: of each resample (the same draws again) and of the data
    resampled = np.empty_like(distribution) if studentized else None
    observed = np.empty_like(estimates) if studentized else None
    # expanded_tasks: the mean's bootstrap-t over tasks, its standard errors over tasks (each resample's, the data's)
    over_tasks = options.interval == small_runs.TASKS_INTERVAL and (cells == "mean").any()
    spread = np.full((design.n_agents, options.n_resamples), np.nan) if over_tasks else None
    spread_data = np.full(design.n_agents, np.nan) if over_tasks else None
    # the bar counts both passes of the studentised interval: the draws, then their standard errors
    passes = 2 if studentized else 1
    with progress_bar(passes * design.n_agents * options.n_resamples, shown, "bootstrap") as advance:
        for j, name in enumerate(design.agents):
            layout = _agent_layout(design, j)
            distribution[j] = kernels.bootstrap_agent(
                layout, computed, options.gamma, options.n_resamples, agent_seed_sequence(root, name),
                task_bootstrap=options.task_bootstrap, advance=advance, n_jobs=options.engine).T
            estimates[j] = kernels.point_estimates(layout, computed, options.gamma)
            if acceleration is not None:
                acceleration[j] = _accelerations([layout], options)[0]
            if over_tasks and design.n_tasks > 1:
                spread[j] = kernels.task_mean_spread(layout, options.n_resamples,
                                                     agent_seed_sequence(root, name), options.engine)
                spread_data[j] = kernels.observed(layout).task_means[0].std(ddof=1) / np.sqrt(design.n_tasks)
            if studentized:
                resampled[j] = small_runs.resampled_se(layout, computed, options.gamma, options.n_resamples,
                                                       agent_seed_sequence(root, name), options.engine,
                                                       advance).T
                observed[j] = small_runs.data_se(layout, computed, options.gamma)
                median = [m for m, name in enumerate(computed) if name == "median"]
                if median and layout.task_sizes.min() > 1:  # its t interval's SE (with one run: withheld anyway)
                    observed[j, median] = small_runs.median_se(distribution[j, median], estimates[j, median],
                                                               layout.task_sizes.min())
                    resampled[j, median] = np.nan  # not studentised: no standard error per resample
            del layout
    return _bootstrap_result(design, options, seed, distribution, estimates, acceleration, notes, cells,
                             (resampled, observed) if studentized else None,
                             (spread, spread_data) if over_tasks else (None, None))


def _agent_pieces(design, options, distribution, estimates, acceleration, cells, errors=None, over_tasks=(None, None)):
    """(df, skewness, welch, bounds, se, floored, apart), each with the agents first (None where the interval reads
    none): what each agent's interval reads of its own runs and resamples alone, before any rule that reads the other
    agents' runs (the caps' bounds): its degrees of freedom, skewness and Welch df, its bounds with their Monte Carlo
    SE and Welch floor (:func:`_small_runs.bootstrap_bounds`), and whether its tasks' runs lie apart
    (:func:`_tasks_apart`). :func:`agents_alone` computes them once for every agent of a result and reads each
    subset's rows."""
    z0 = kernels.bias_correction(distribution, estimates) if options.interval == "bca" else None
    kinds = tuple(spec if isinstance(spec, str) else None for spec in options.metrics)  # built-in by what it computes
    computed = small_runs.computed_metrics(kinds, cells)
    df = _welch_df(design) if options.interval == "expanded" else None
    skewness = welch = None
    if errors is not None:
        df = np.array([small_runs.middle_df(design, j) for j in range(design.n_agents)])
        if options.interval in small_runs.WIDENED_INTERVALS:
            skewness = np.array([small_runs.widening_skewness(design, j, computed, cells[j])
                                 for j in range(design.n_agents)])
        if options.interval == DEFAULT_INTERVAL:  # the mean's and optimality gap's Welch t floor (audit s20)
            with np.errstate(divide="ignore", invalid="ignore"):  # a task of 0 or 1 runs: withheld anyway (NaN df)
                welch = _welch_df(design)
    tasks_expanded = options.interval == small_runs.TASKS_INTERVAL
    bounds, se, floored = small_runs.bootstrap_bounds(
        distribution, estimates, options.confidence_level, options.interval, z0, acceleration, options.rliable_compat,
        design.counts.min(axis=0), df, over_tasks if tasks_expanded else errors, computed, design.n_tasks, skewness,
        welch, cells)
    return df, skewness, welch, bounds, se, floored, _tasks_apart(design)


def _bootstrap_result(design, options, seed, distribution, estimates, acceleration, run_notes, cells, errors=None,
                      over_tasks=(None, None), pieces=None):
    """The result; ``cells``: (K, M) the built-in metric whose interval each agent's each of ``options.metrics`` takes
    (:func:`_small_runs.interval_kinds`: on 1 or 2 tasks the median's is the mean's, the same number; an optimality
    gap with every score at or below gamma the mean's, reflected; None for a metric function). ``pieces``: the
    agents' :func:`_agent_pieces`, where the caller has them (:func:`agents_alone`); None: computed here."""
    z0 = None
    notes = list(design.notes) + run_notes
    kinds = tuple(spec if isinstance(spec, str) else None for spec in options.metrics)  # built-in by what it computes
    computed = small_runs.computed_metrics(kinds, cells)
    undefined = np.isnan(distribution).any(axis=-1) | np.isnan(estimates)
    notes += _nan_notes(design.agents, options, distribution, estimates)
    if options.interval == "bca":
        z0 = kernels.bias_correction(distribution, estimates)
        notes += _bca_notes(design.agents, options.metric_names, np.where(undefined, 0.0, z0))
    if pieces is None:
        pieces = _agent_pieces(design, options, distribution, estimates, acceleration, cells, errors, over_tasks)
    df, skewness, welch, bounds, se, floored, apart = pieces
    tasks_expanded = options.interval == small_runs.TASKS_INTERVAL
    saturated, withheld = None, []
    if tasks_expanded:  # audit s29 taskboot29: withheld below the tasks from which it held, with the reason
        withheld = small_runs.tasks_withheld_notes(cells, options.metric_names, kinds, design.n_tasks,
                                                   int(design.counts.min()), design.counts, design.agents)
        notes += withheld
    if errors is not None:
        # audit s10: runs mostly at a cap leave too few off it to studentise; withheld where an interval was given
        saturated = saturated_withheld(bound_ties(design)[0], design.counts, computed)
        # audit s11: the median's also where a share of the runs tie at a bound (curves()' rule for its bands)
        tied = np.zeros_like(saturated)
        if "median" in computed:
            tied[:, np.array(computed) == "median"] = median_tied_at_middle(
                bound_ties(design, tied_only=True)[0], design.counts, design.cell_matrix())[:, None]
        # runs at a cap are withheld as such whether the IQM's data standard error is rounding or 0 (of runs
        # winsorised to one value but not one in every task: which of the two, the score's units decided, audit s38
        # meta38); runs one value in every task keep the note that they have no spread
        low, high = block_ranges(design.y, design.agent * design.n_tasks + design.task, design.n_agents * design.n_tasks)
        spread = (high > low).reshape(design.n_agents, design.n_tasks).any(axis=1)
        given = np.isfinite(bounds).all(axis=-1) | ((errors[1] == 0) & spread[:, None]
                                                    & (np.asarray(computed) == "iqm")[None, :])
        tied &= given & ~saturated
        saturated &= given
        saturated |= tied
        if saturated.any():
            bounds, se = bounds.copy(), se.copy()
            bounds[saturated], se[saturated] = np.nan, np.nan
        withheld = small_runs.studentized_notes(bounds, design.counts.min(axis=0), design.n_tasks, design.agents,
                                                options.metric_names, errors[1], saturated, tied, options.interval,
                                                computed, cells, design.block_word)
        notes += withheld
    capped = design.ceiling_at_or_below(options.gamma)  # no true score can cross gamma (audit s29 minmax29)
    notes += [n for n in [small_runs.median_is_mean_note(kinds, cells, options.metric_names, design.n_tasks,
                                                         options.interval),
                          small_runs.gap_is_mean_note(design.agents, options.metric_names, kinds, cells,
                                                      options.gamma, design.n_tasks, capped)] if n]
    unclipped = bounds
    bounds, clipped = clipped_intervals(bounds, design.bounds, options.metric_names, kinds, options.gamma)
    notes += clipped
    # a bound the Welch t floor set, a closed form (audit s24 small24): not one withheld or moved to the range's end
    floored = floored & np.isfinite(bounds) & (bounds == unclipped)
    coverage = []
    if not options.task_bootstrap:
        coverage = _coverage_notes(options.interval, options.metric_names, design.counts.min(axis=0), design.agents,
                                   design.n_tasks, np.isfinite(bounds).all(axis=-1), cells, kinds, capped,
                                   design.block_word, apart)
        notes += coverage
    else:  # audit s28: what resampling few tasks can say of a population of tasks
        # (audit s28 taskboot28: with the coverage simulated for this design, not only the closed-form ceiling)
        # the measured coverage of the intervals given (expanded_tasks: withheld ones have their own note)
        shown = (np.isfinite(bounds).all(axis=-1).any(axis=0) if tasks_expanded
                 else np.ones(len(options.metric_names), dtype=bool))
        gone, said = small_runs.tasks_resampled(design.n_tasks, options.confidence_level, options.interval,
                                                metrics=[m for m, s in zip(options.metric_names, shown) if s],
                                                kinds=[k for k, s in zip(kinds, shown) if s],
                                                runs=int(design.counts.min()), counts=design.counts,
                                                agents=design.agents)
        if gone:
            bounds, se = np.full_like(bounds, np.nan), np.full_like(se, np.nan)
            withheld = [*withheld, *said]
        notes += said
    # a bound withheld has no Monte Carlo SE (new-user trial s37: every interval of True/False scores withheld, and
    # the print said "largest Monte Carlo SE of a bound: 0", the SE of a median bound the cap rule had withheld)
    se = np.where(np.isfinite(bounds), se, np.nan)
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
        counts=design.counts, degrees_of_freedom=df, skewness=skewness, welch_degrees_of_freedom=welch, design=design,
        metric_kinds=kinds,
        standard_errors=None if errors is None else errors[1],
        resampled_standard_errors=None if errors is None else errors[0], saturated=saturated,
        welch_floored=floored if floored.any() else None, interval_cells=cells,
        task_standard_errors=over_tasks if tasks_expanded and over_tasks[0] is not None else None,
        withheld_notes=tuple(withheld), weighting_notes=tuple(_weighted_tasks_note(design, options.metrics)),
        coverage_notes=tuple(coverage))


def _tasks_apart(design):
    """(K,) whether each agent's tasks' runs lie apart (:func:`rlstats.calibration.tasks_apart`, on the scores as the
    IQM pools them): the design whose IQM intervals the rows of ``calibration.FAR_APART`` measured."""
    k, t = design.n_agents, design.n_tasks
    low, high = block_ranges(design.y, design.agent.astype(np.intp) * t + design.task, k * t)
    return calibration.tasks_apart(low.reshape(k, t), high.reshape(k, t))


def aggregate_far_apart_notes(result, design, metric):
    """:func:`far_apart_notes` of ``result``'s first interval kind for ``metric`` on ``design`` (every agent's fewest
    runs, its given intervals, whether its tasks' runs lie apart): task_table()'s aggregate row reads bootstrap()'s
    rule through the registry (operation ``bootstrap.far_apart_notes``; audit s34 iqmfar34b)."""
    return far_apart_notes(result.interval, [metric], [result._interval_kinds[0]], design.counts.min(axis=0),
                           design.agents, np.isfinite(result.intervals).all(axis=-1), _tasks_apart(design),
                           design.block_word)


#: The metrics whose own intervals (not the IQM, read whatever the metric) have rows of data whose runs lie apart:
#: the mean (audit s35 farapart35), the median and the optimality gap (audit s35 apart35: on 3 tasks that overlap with
#: runs apart by chance, 3 and 5 runs, the median's covered 0.56-0.85, the gap's 0.73-0.93)
APART_READ = ("mean", "median", "optimality_gap")


def far_apart_notes(interval, metrics, kinds, fewest_per_agent, agents, given, apart, task="task"):
    """Per metric, (whether its note replaces the grid's, the note or None) for the agents whose tasks' runs lie apart
    (``apart`` (K,), :func:`_tasks_apart`) and whose interval of the metric is the IQM's, or the mean's of the mean,
    and given (``given`` (K, M)): :func:`_small_runs.far_apart_note` at their fewest runs, naming them where they are
    not every agent; it replaces the grid rows' note where every agent's tasks lie apart (audit s34 iqmfar34b).
    bootstrap()'s and task_table()'s aggregate row alike. The mean's since audit s35 farapart35: on 3 tasks that
    overlap with runs apart by chance its interval covered 0.53-0.91 (the IQM's 0.37-0.84)."""
    apart = np.zeros(len(agents), bool) if apart is None else np.asarray(apart, bool)
    out = []
    for j, (m, kind) in enumerate(zip(metrics, kinds)):
        # not the gap's interval taking the mean's (below gamma); the median's and the gap's since audit s35 apart35
        read = kind == "iqm" or (m == kind and kind in APART_READ)
        mine = apart & np.asarray(given)[:, j] if read else np.zeros(len(agents), bool)
        if not mine.any():
            out.append((False, None))
            continue
        named = [a for a, w in zip(agents, mine) if w]
        theirs = "" if mine.all() else f" (of {fmt.join_and(fmt.names_shown(named, agents), limit=4)})"
        note = small_runs.coverage_note(interval, metric_label(m), kind, int(np.asarray(fewest_per_agent)[mine].min()),
                                        theirs, task=task, far_apart=True)
        out.append((note is not None and mine.all(), note))
    return out


def _coverage_notes(interval, metrics, fewest_per_agent, agents, n_tasks, given, cells, kinds=None, capped=None,
                    task="task", apart=None):
    # the note concerns the agents with the fewest runs; named when others have more (Atari 100k: IRIS's 5, SPR's 100)
    fewest = int(fewest_per_agent.min())
    # and intervals given (``given``: agents x metrics): one withheld for each of those agents has its own note (review
    # s20: the optimality gap's, withheld where every score is above gamma, was said to fall short in simulations)
    # ``cells``: (K, M) the metric whose interval each agent's takes (small_runs.interval_kinds), whose rows it reads
    # (calibration.quoted_kinds: those of the agents of the fewest runs)
    shown = given[fewest_per_agent == fewest].any(axis=0)
    pairs = [(m, kind) for m, kind, show in zip(metrics, calibration.quoted_kinds(cells, fewest_per_agent), shown)
             if show]
    if interval in small_runs.STUDENTIZED_INTERVALS and n_tasks == 1:
        # withheld below its one-task count, whose note quotes the coverage (audit s19): the others' runs are read
        withheld = small_runs.studentized_withheld(fewest_per_agent, 1, [kind for _, kind in pairs], interval).any(0)
        pairs = [pair for pair, out in zip(pairs, withheld) if not out]
    few = [a for a, c in zip(agents, fewest_per_agent) if c == fewest]
    whose = "" if len(few) == len(agents) else f" (of {fmt.join_and(fmt.names_shown(few, agents), limit=4)})"
    # agents whose tasks' runs lie apart read the far-apart rows for the IQM (audit s34 iqmfar34b: the grid's rows,
    # of tasks that overlap, said 0.93 to 0.97 at 5 runs where 3 tasks far apart covered 0.85 to 0.87), in place of
    # the grid's where every agent's tasks lie apart, beside them where some agents' do
    far = far_apart_notes(interval, [m for m, _ in pairs], [k for _, k in pairs], fewest_per_agent, agents,
                          given[:, [list(metrics).index(m) for m, _ in pairs]], apart, task)
    notes = [small_runs.coverage_note(interval, metric_label(m), kind, fewest, whose, n_tasks == 1, n_tasks, task=task)
             for (m, kind), (instead, _) in zip(pairs, far) if not instead] + [note for _, note in far if note]
    below = [] if capped else _gap_below_gamma_notes(interval, metrics, fewest_per_agent, agents, n_tasks, given,
                                                     cells, kinds, task)
    return [note for note in notes + below if note]


def _gap_below_gamma_notes(interval, metrics, fewest_per_agent, agents, n_tasks, given, cells, kinds, task="task"):
    """The notes quoting the optimality gap's rows of agents whose every score is at or below gamma while their true
    scores cross it (``calibration.GAP_BELOW_GAMMA``), for the agents whose gap takes the mean's interval reflected:
    the mean's rows, which :func:`_coverage_notes` quotes where every agent of the fewest runs takes it, measure a truth
    below gamma, and where the truth crosses gamma the interval covered less (audit s28 gapboot28, curves()' rule for
    its bands, gapkinds28). Read at the fewest runs among those agents, named where they are not all the agents.
    :func:`_coverage_notes` leaves them out where the known bounds put every possible score at or below gamma
    (``capped``, ``Design.ceiling_at_or_below``; audit s29 minmax29): no true score crosses gamma there, so the gap is
    gamma minus the mean of the truth too and its interval covers exactly when the mean's does, whose note is given."""
    if kinds is None or cells is None:
        return []
    cells = np.asarray(cells)
    notes = []
    for j, (name, kind) in enumerate(zip(metrics, kinds)):
        mine = (cells[:, j] == "mean") & given[:, j] if kind == "optimality_gap" else np.zeros(len(agents), bool)
        if not mine.any():
            continue
        least = int(np.min(fewest_per_agent[mine]))
        few = [a for a, n, w in zip(agents, fewest_per_agent, mine) if w and n == least]
        whose = "" if len(few) == len(agents) else f" (of {fmt.join_and(fmt.names_shown(few, agents), limit=4)})"
        notes.append(small_runs.coverage_note(interval, metric_label(name), kind, least, whose, n_tasks == 1, n_tasks,
                                              below_gamma=True, task=task))
    return notes


def _nan_notes(agents, options, distribution, estimates):
    """One note per user metric that returned NaN: how many resamples of which agents, which estimates."""
    notes = []
    for j, (name, metric) in enumerate(zip(options.metric_names, options.metrics)):
        if not callable(metric):
            continue
        where = []
        for i, agent in enumerate(agents):
            bad = int(np.isnan(distribution[i, j]).sum())
            parts = ([f"{bad:,} of {options.n_resamples:,} resamples"] if bad else []) + \
                (["the point estimate"] if np.isnan(estimates[i, j]) else [])
            if parts:
                where.append(f"{' and '.join(parts)} of {agent}")
        if where:
            notes.append(fmt.returned_nan(f"metric {name!r}", where,
                                          "those intervals are NaN"))
    return notes


def _bca_notes(agents, metrics, z0):
    bad = ~np.isfinite(z0)
    if not bad.any():
        return []
    message = (f"BCa is undefined where every resample lies on one side of the estimate "
               f"({small_runs.cells_named(agents, metrics, bad)}): "
               "those bounds are NaN; use interval=\"percentile\" there")
    warn(message)
    return [message]


# ----------------------------------------------------------------------------- probability_of_improvement()


@public_function
def probability_of_improvement(data: Data, formula: FormulaLike | None = None, *,
                               pairs: Sequence[tuple[Label, Label]] | None = None, n_resamples: int | None = None,
                               confidence_level: float = 0.95, interval: ImprovementInterval = "score",
                               normalize: Normalizer = None, na_action: NaAction = "raise", rng: Seed = None,
                               progress: bool = True, max_seconds: float | None = None, n_jobs: int = 1,
                               higher_is_better: bool = True,
                               eval_env: EvalEnv = None) -> ProbabilityOfImprovementResult:
    """Probability that a run of X beats a run of Y on the same task, averaged over tasks, with intervals.

    For each task, P(X > Y) + P(X = Y) / 2 over all pairs of runs (the
    Mann-Whitney U statistic divided by c_x c_y; X and Y may have different
    numbers of runs), then the mean over tasks.  Intervals: by default the
    score interval of that mean from the Hanley-McNeil variance, which holds
    its level from 3 runs per task; or percentile (rliable's) and expanded, from
    resampling each agent's runs within every task independently.

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent | task"`` (``task/seed`` names the seed column).
    pairs : list of (agent, agent), optional
        (X, Y) pairs, each agent named as the data write it; default every pair (i < j in the agents' order).
    n_resamples : int, optional
        Resamples of the percentile and expanded intervals, 2,000 by default, as rliable; the Monte Carlo SE of
        each bound is reported.  The score interval is a closed form and draws none: given with it, a note says
        it was not used.
    confidence_level : float
        Level of the intervals, between 0 and 1.
    interval : {"score", "percentile", "expanded"}
        ``"score"`` (default): the thetas whose distance from the estimate is
        within z standard errors, the standard error at theta being
        sqrt(sum over tasks of V_t(theta)) / T with V_t Hanley and McNeil's
        variance of a Mann-Whitney proportion from c_x and c_y runs; its bounds
        stay in [0, 1] and need no resamples (their Monte Carlo SE is 0).  In
        simulation (the calibration table's ``bootstrap.interval`` rows) nominal 95% intervals
        covered 0.92-0.98 from 3 to 20 runs per task on 1, 2, 5 and 26 tasks (0.88 in the worst
        design draw, at 2 tasks x 3 skewed runs), where percentile ones covered 0.78-1.00; at 10
        runs they are 0.98-1.06 times as wide as the percentile ones.
        ``"percentile"``: rliable's (the default before issue 40), or expanded for few runs per task: read at the
        level whose normal quantile is sqrt(c / (c - 1)) t_df, c the fewest
        runs of the pair in a task and df = sum over tasks of (c_x - 1) + (c_y - 1)
        (Hesterberg 2015).  Results quote the simulated coverage when the runs
        are too few for the interval asked for.
    normalize : DataFrame, str or dict, optional
        As in :func:`bootstrap` (the estimate does not change; scores are only compared within tasks).
    na_action : {"raise", "drop", "omit"}
        As in :func:`bootstrap`.
    rng : None, int or numpy.random.Generator
        Seed; each agent's resamples are those :func:`bootstrap` draws for it with the same seed (each cell's keyed
        by the agent's and the task's labels: renaming an agent or a task changes its cells' draws, not the others').
    progress : bool
        A progress bar (tqdm: on a terminal, or a notebook's widget) when the work is estimated to take more
        than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    n_jobs : int
        Threads computing the resamples (-1: one per core).  Every block of
        100 resamples has its own generator, so the result is identical
        whatever ``n_jobs``.
    higher_is_better : bool
        False where smaller values are better (a time to a threshold): the estimate is then P(X < Y) + P(X = Y) / 2,
        the probability that a run of X is faster.  Not given, it is read from the data as every function taking it
        reads it: False, with a note, for :func:`rlstats.summarize_runs`' ``how="time_to_threshold"`` summary.
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up; by default the caller's frame.

    Returns
    -------
    ProbabilityOfImprovementResult

    See Also
    --------
    rlstats.bootstrap : Aggregate metrics with stratified bootstrap intervals.
    rlstats.performance_profile : Score distributions with bands.

    References
    ----------
    Agarwal et al. (2021), NeurIPS 34, Section 4 (average probability of improvement).
    Mann, H. B. and Whitney, D. R. (1947), Ann. Math. Statist. 18(1), 50-60.
    Hanley, J. A. and McNeil, B. J. (1982), Radiology 143(1), 29-36 (the variance of the Mann-Whitney proportion).
    Newcombe, R. G. (2006), Stat. Med. 25(4), 559-573 (score intervals for it).

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=5, effect=1.0, rng=0)
    >>> res = rlstats.probability_of_improvement(df, "score ~ agent | task", rng=0)
    >>> res.tidy().columns.tolist()
    ['agent_1', 'agent_2', 'estimate', 'conf_low', 'conf_high']
    """
    options = ProbabilityOfImprovementOptions.checked(
        pairs=pairs, n_resamples=ProbabilityOfImprovementOptions.n_resamples if n_resamples is None else n_resamples,
        confidence_level=confidence_level, interval=interval, na_action=na_action, progress=progress,
        max_seconds=max_seconds, n_jobs=n_jobs, higher_is_better=higher_is_better)
    design = _prepared_design(design_of(data, formula, na_action=options.na_action, eval_env=eval_env,
                                        normalize=normalize), options.na_action)
    if options.pairs is None:  # every pair, counted before it is listed (audit s37 bounds37: 10,000 agents' 50
        # million pairs were listed in 36 s before the refusal)
        admit(improvement_cost, design, options, max_seconds, "probability_of_improvement()")
    options = options.for_agents(design.agents, **agents_said(design))
    design = _directed(design, options.higher_is_better)  # P(X < Y) is P(-X > -Y)
    work = admit(improvement_cost, design, options, max_seconds, "probability_of_improvement()")  # issue 43 item 2
    shown = shows(work, options.progress)
    n_resamples_given = n_resamples
    pairs, n_resamples, confidence_level, interval = (options.pairs, options.n_resamples, options.confidence_level,
                                                      options.interval)
    involved = sorted({design.agents.index(a) for pair in pairs for a in pair})
    # a pair's task where one agent has one run still varies with the other's runs (resampled, or in the score
    # interval's Hanley-McNeil variance): it rests on that run, not "adds no spread" (audit s38 claims38)
    notes = list(design.notes) + small_runs.check_single_runs(
        "probability_of_improvement", design.counts[:, involved], [design.agents[i] for i in involved],
        {"interval": interval}, design.tasks, design.words, effect="so its comparisons there rest on that one run")
    layouts = dict(zip(design.agents, _layouts(design)))
    # each task's, from all its agents' scores, in the layouts' order of the tasks (review s30: in the design's, a
    # Categorical's [z, a] gave a the tolerance of z: 0.4375 where [a, z] gave 0.5)
    by_layout = design.task_order  # a layout's task t is the design's task by_layout[t]
    tolerance = block_tolerances(design.y, design.task, design.n_tasks)[by_layout]
    pair_layouts = [kernels.pair_layout(layouts[x], layouts[y], tolerance) for x, y in pairs]
    near_tasks = [design.tasks[t] for t in sorted({by_layout[t] for p in pair_layouts for t in p.near_tasks})]
    notes += [n for n in (near_tie_note(sum(p.near_ties for p in pair_layouts), tasks=near_tasks),) if n]
    estimates = np.array([kernels.improvement_point(p, layouts[x], layouts[y])
                          for p, (x, y) in zip(pair_layouts, pairs)])
    root, seed = seed_sequence(rng)
    involved = sorted({a for pair in pairs for a in pair}, key=design.agents.index)
    distribution = None
    if interval == "score" and n_resamples_given is not None:  # audit s18: the demo's n_resamples=500, unsaid
        notes.append(f"n_resamples={n_resamples_given} was not used: the score interval is a closed form and draws "
                     "no resamples (interval='percentile' resamples)")
    if interval != "score":  # the score interval is a closed form: it reads no resample, so none is drawn
        seeds = {a: agent_seed_sequence(root, a) for a in involved}
        with progress_bar(n_resamples, shown, "probability of improvement") as advance:
            distribution = kernels.improvement_distribution(pairs, pair_layouts, layouts, seeds, n_resamples,
                                                            n_jobs=options.n_jobs, advance=advance)
    fewest, df = _pair_runs(design, pairs)
    if interval == "expanded":
        bounds, se = small_runs.expanded_bounds(distribution, estimates, confidence_level, fewest, df)
    elif interval == "score":
        runs_x, runs_y = _pair_counts(design, pairs)
        bounds = small_runs.score_bounds(estimates, runs_x, runs_y, confidence_level)
        se = np.zeros_like(bounds)  # a closed form: no Monte Carlo error
    else:
        bounds, se = kernels.interval_bounds(distribution, estimates, confidence_level, "percentile")
    # the pairs with the fewest runs named where others have more, as bootstrap()'s note names its agents (audit s37
    # claims37: "3 runs per task are few" of 3 pairs, 2 of them with an agent of 3 runs and one of 10 and 10)
    said = dict(zip(design.agents, fmt.names_shown(design.agents)))  # quoted where a name holds a comma
    few = [f"{said[x]} vs {said[y]}" for (x, y), n in zip(pairs, fewest) if n == fewest.min()]
    whose = "" if len(few) == len(pairs) else f" (of {fmt.join_and(few, limit=4)})"
    note = small_runs.coverage_note(interval, "probability of improvement", "probability_of_improvement",
                                    int(fewest.min()), whose, single_task=design.n_tasks == 1, tasks=design.n_tasks,
                                    task=design.block_word)
    return ProbabilityOfImprovementResult(
        method=("Probability of improvement with score intervals (Hanley-McNeil variance)" if interval == "score" else
                "Probability of improvement with stratified bootstrap intervals"), formula=design.formula,
        data_name=design.data_name, nobs=design.nobs, notes=tuple(notes + ([note] if note else [])),
        options=options.record(),
        seed=None if distribution is None else seed, pairs=options.pairs, estimates=estimates, intervals=bounds,
        interval_mc_se=se,
        bootstrap_distribution=distribution, agents=design.agents, tasks=design.tasks,
        n_resamples=None if distribution is None else n_resamples, confidence_level=confidence_level,
        counts=design.counts)


def _pair_counts(design, pairs):
    """(P, T) runs per task of each pair's X and of its Y (the score interval)."""
    index = [(design.agents.index(x), design.agents.index(y)) for x, y in pairs]
    counts = np.asarray(design.counts, dtype=float)
    return counts[:, [i for i, _ in index]].T, counts[:, [j for _, j in index]].T


def _pair_runs(design, pairs):
    """Per pair, the fewest runs of either agent in a task and the pooled degrees of freedom (expanded interval)."""
    index = [(design.agents.index(x), design.agents.index(y)) for x, y in pairs]
    fewest = np.array([design.counts[:, [i, j]].min() for i, j in index])
    df = np.array([(design.counts[:, [i, j]] - 1).sum() for i, j in index], dtype=float)
    return fewest, df


# ----------------------------------------------------------------------------- performance_profile()


def _default_tau(design, layouts, kind, higher_is_better=True):
    """The default thresholds (where the profiles change) and the note that states them; with
    ``higher_is_better=False`` the design is :func:`_directed`'s (values negated): the thresholds are returned
    negated as the design reads them, in decreasing order so that they rise as the data hold them, and the note
    states them as the data hold them (audit s34 ttt34)."""
    low, high = kernels.profile_range(layouts, kind, design.y, PROFILE_EDGE, PROFILE_MARGIN)
    sign = 1 if higher_is_better else -1
    values = sign * design.y  # as the data hold them
    if low == high:  # every score ties: a grid of 81 copies of one value is one threshold (audit s8)
        where = "above" if higher_is_better else "below"
        return np.array([low]), (f"every score is {fmt.signif(sign * low, 3)}, so every profile steps from "
                                 f"{'1 to 0' if higher_is_better else '0 to 1'} there: the default is the one "
                                 f"threshold tau = {fmt.signif(sign * low, 3)} (no run scores {where} it); pass tau= "
                                 "for other thresholds")
    first, last = sorted((sign * low, sign * high))
    below, above = int((values < first).sum()), int((values > last).sum())
    # apart at any shift of the scores (audit s35 digits35: "tau span 1e+06 to 1e+06")
    first_text, last_text, lowest, highest = fmt.signif_levels([first, last, values.min(), values.max()], 3)
    outside = [f"{count} of {values.size} runs score {side} {bound}"
               for count, side, bound in ((below, "below", first_text), (above, "above", last_text)) if count]
    change = (f"every profile >= {1 - PROFILE_EDGE:g} to every profile <= {PROFILE_EDGE:g}" if higher_is_better else
              f"every profile <= {PROFILE_EDGE:g} to every profile >= {1 - PROFILE_EDGE:g}")
    note = (f"thresholds tau span {first_text} to {last_text}, where the profiles change (from "
            f"{change}, plus {100 * PROFILE_MARGIN:g}% each side); the scores span {lowest} to "
            f"{highest}" + (f" ({'; '.join(outside)})" if outside else "")
            + "; pass tau= for other thresholds")
    grid = np.linspace(low, high, DEFAULT_PROFILE_POINTS)
    if kind == "runs":
        grid = _at_scores(grid, design.y)
    return (grid if higher_is_better else grid[::-1]), note


def _at_scores(grid, y):
    """``grid`` with each threshold within :func:`rlstats.statistics.tie_tolerance` of a score (of the scores' range
    and largest ``|score|``) set to that score: a run profile counts the runs above tau exactly, and a grid point on a
    score but for the grid's rounding (7.0 of the grid 6, 6.25, ... on integer scores) counted the runs at it as above
    in other units (audit s37 meta37: x 7.3, a profile of 0.944 at tau 7 read 1.0)."""
    scores = np.unique(y[np.isfinite(y)])
    if scores.size < 2:
        return grid
    tolerance = float(tie_tolerance(scores[-1] - scores[0], np.abs(scores[[0, -1]]).max()))
    at = np.clip(np.searchsorted(scores, grid), 1, scores.size - 1)
    nearest = np.where(np.abs(scores[at - 1] - grid) <= np.abs(scores[at] - grid), scores[at - 1], scores[at])
    return np.where(np.abs(nearest - grid) <= tolerance, nearest, grid)


#: The bands' measured pointwise coverage in the package table (rlstats/calibration.csv, written by
#: tests/reference/calibrate.py): kind="runs", 95%, runs resampled within tasks; 1, 5 and 26 tasks, 2 to 20 runs;
#: an ``interval`` column per band ("wilson", "percentile").
PROFILE_CALIBRATION = "bootstrap.profile"


#: The t band's measured pointwise coverage (kind="tasks", 95%; rlstats/calibration.csv, written by
#: tests/reference/coverage_profiles_tasks.py): 1, 5 and 26 tasks, 3 to 20 runs, thresholds at and just below the
#: tasks' true means, where the profile steps (``configuration``, e.g. ``tau below mean 1 of 26``).
TASKS_PROFILE_CALIBRATION = "bootstrap.profile_tasks"


#: what the kind="tasks" percentile band (runs resampled within tasks; the default before audit s10) covered in
#: simulation (audit s9: two alike agents, task means evenly from -1 to 1, normal or capped runs, 25 random
#: thresholds, 200 data sets per design; tests/test_audit_s9_levels.py)
_TASKS_PROFILE_NOTE = (
    "the band of the fraction of tasks above tau is the percentile bootstrap of the runs within tasks, and a task "
    "whose true mean lies near tau is above it in about half the resamples whatever the truth: in simulation its "
    "95% band held the true profile in 0.71-0.77 of thresholds at 26 tasks of 3 runs, 0.84-0.86 at 5 runs and "
    "0.92-0.93 at 10 (0.00-0.49 at the worst threshold), and 0.92-0.99 at 5 tasks; read it as the resampling "
    "spread, not a 95% band (the default interval='skew_t' held its level at every threshold measured from 5 tasks)")


#: why the skew-corrected t band falls short where its rows do (the tail of ``_tasks_shortfall_note``)
_SKEW_T_SHORTFALL = ("each task's t bound is corrected for the runs' skewness read from the agent's tasks, which "
                     "few runs per task read only in part; more runs mend that")


def _profile_coverage_notes(design, interval, kind, confidence_level, task_bootstrap):
    """The measured pointwise coverage where the table shows the ``interval`` band short of 95% at this design
    (``kind="runs"``: the ``bootstrap.profile`` rows; ``kind="tasks"``: the t band's ``bootstrap.profile_tasks``
    rows, or for its percentile band the note of audit s9's measurement).

    The design is read as the table's largest run count at most the fewest runs per task (its smallest when there
    are fewer; none beyond its largest: nothing was measured there) and the numbers of tasks simulated that bracket
    its own (:func:`rlstats.calibration.bracketing_counts`); the lowest row over them, score distributions and
    thresholds is quoted, with the middle of the profile beside it.
    """
    if kind == "tasks" and interval == "percentile" and not task_bootstrap:
        return [_TASKS_PROFILE_NOTE]
    procedure = PROFILE_CALIBRATION if kind == "runs" else TASKS_PROFILE_CALIBRATION
    rows = [row for row in calibration.rows(procedure) if row.get("interval", "percentile") == interval]
    if task_bootstrap or not np.isclose(confidence_level, 0.95) or not rows:
        return []
    if interval == "skew_t" and design.n_tasks < SKEW_T_MIN_TASKS:
        return []  # withheld: _skew_withheld_note says why
    fewest = int(design.counts.min())
    measured = sorted({int(row["runs"]) for row in rows})
    if fewest > measured[-1]:
        return []
    runs = max((c for c in measured if c <= fewest), default=measured[0])
    at_runs, bracket = calibration.bracketing_rows([r for r in rows if r["runs"] == str(runs)], design.n_tasks)
    row = calibration.shortfall(at_runs, 0.95)  # the worse of the task counts bracketing this design's (nearest23)
    if row is None:
        return []
    if kind == "tasks":
        return [_tasks_shortfall_note(row, fewest, interval, bracket)]
    middle = [float(r["coverage"]) for r in rows if (r["runs"], r["tasks"], r["distribution"], r["configuration"])
              == (row["runs"], row["tasks"], row["distribution"], "profile 0.501")]
    beside = f"; {middle[0]:.2f} where it is 0.5" if middle else ""
    where = float(row["configuration"].split()[-1])
    draws = _worst_draw(row)
    way_on = ("the default interval='wilson' held its level there" if interval == "percentile"
              else "more runs per task are needed for the stated level")
    return [f"pointwise 95% {interval} profile bands from {fmt.count(fewest, 'run')} per task: in "
            f"simulations with {runs} runs per task on {calibration.bracket_words(bracket, row['tasks'])}, a band "
            "held the true profile at a "
            f"threshold where it is {where:.2f} in {float(row['coverage']):.2f} of {row['n_sim']} simulated bands "
            f"({row['distribution']} scores{draws}){beside}; {way_on}"]


def _worst_draw(row):
    """", 0.86 in its worst draw of the tasks' offsets and scales" where a profile row's worst design draw is below
    its pooled coverage; empty otherwise (both profile notes)."""
    low = calibration.worst_coverage(row)
    return f", {low:.2f} in its worst draw of the tasks' offsets and scales" if low < float(row["coverage"]) else ""


def _tasks_shortfall_note(row, fewest, interval, bracket):
    """The note quoting a ``bootstrap.profile_tasks`` row short of 95% (configuration ``tau at|below mean k of T``),
    the worse of those at the task counts ``bracket`` (:func:`rlstats.calibration.bracketing_counts`)."""
    _, side, _, k, _, tasks = row["configuration"].split()
    k, tasks = int(k), int(tasks)
    which = ("the task's true mean" if tasks == 1 else "the lowest true task mean" if k == 1 else
             "the highest true task mean" if k == tasks else f"true task mean {k} of {tasks} from the lowest")
    where = f"{'just below' if side == 'below' else 'at'} {which}"
    draws = _worst_draw(row)
    why = (_SKEW_T_SHORTFALL if interval == "skew_t" else
           "each task's mean is bounded by a Student t interval, which skewed runs or runs at a ceiling push below "
           "its level, and more runs do not mend that (the default interval='skew_t' corrects it for their skew)")
    return (f"pointwise 95% {interval} profile bands from {fmt.count(fewest, 'run')} per task: in simulations with "
            f"{row['runs']} runs per task on {calibration.bracket_words(bracket, tasks)}, a band held the true "
            "fraction of tasks "
            f"above tau in {float(row['coverage']):.2f} of {row['n_sim']} simulated bands at its worst threshold, "
            f"tau {where} ({row['distribution'].replace('_', '-')} scores{draws}): {why}")


def _band_skewness(design, interval):
    """Per agent (g, tasks): for the ``"skew_t"`` band the runs' skewness pooled over the agent's tasks
    (``_small_runs.pooled_run_skewness``) and its tasks with 3 or more runs, which it is read from where they spread
    (a task whose runs all tie, as at a ceiling, has unbounded bounds and needs none); for the ``"t"`` band (None,
    0)."""
    if interval != "skew_t":
        return [(None, 0)] * design.n_agents
    out = []
    for j in range(design.n_agents):
        mine = design.agent == j
        g, _, sizes, _, _ = small_runs.pooled_run_skewness(design.y[mine], design.task[mine], design.n_tasks)
        out.append((g, int((sizes >= 3).sum())))
    return out


def _skew_t_withheld(skewness):
    """Per agent: whether its ``"skew_t"`` band (and so the default ``"wilson_tasks"`` band of kind="tasks", which
    bounds each task's mean with it) is withheld: fewer than ``SKEW_T_MIN_TASKS`` tasks with 3 or more runs, as
    :func:`_band_skewness` counts them (the one rule)."""
    return np.array([g is not None and usable < SKEW_T_MIN_TASKS for g, usable in skewness])


def _skew_withheld_note(design, skewness, withheld, way_on="interval='t' gives Student t bands, which hold their "
                                                             "level for normal runs"):
    """The note naming the agents whose ``"skew_t"`` band is withheld: fewer than ``SKEW_T_MIN_TASKS`` tasks with 3 or
    more runs. Tasks whose runs all tie count, though no skewness is read from them: their bounds are unbounded, the
    Bonferroni level 0.05 / T counts them, and with 1-5 of 5 or 6 tasks tied the band held as without ties (audit
    s13, ``coverage_profiles_tasks.measure_tied``)."""
    if not withheld.any():
        return []
    named = [f"{name!r} ({usable})" for name, (_, usable), out in zip(design.agents, skewness, withheld) if out]
    return [f"the skew-corrected t band bounds each task's mean with the runs' skewness read from the agent's tasks "
            f"with 3 or more runs that do not all tie, and needs {SKEW_T_MIN_TASKS} tasks with 3 or more runs (tasks "
            f"whose runs all tie count); with fewer the band is "
            f"withheld (NaN) for {fmt.listed(named, 5)}: from one task's few runs no bound of its mean holds "
            f"whatever their shape (a task without its rare large run looks unskewed; Bahadur and Savage 1956), and "
            f"in simulation skewed runs on one task held 0.81-0.86 with t bounds and 0.88-0.92 skew-corrected at "
            f"3-20 runs (0.91-0.93 on 2 or 3 tasks of 3 runs); "
            f"{way_on}"]


#: below this many runs in a task the "skew_t" band says how far the skewness it reads reaches (audit s12)
SKEW_T_FULL_RUNS = 10


def _skew_few_runs_note(layouts, flats, withheld):
    """The note on a skew-corrected t band from fewer than ``SKEW_T_FULL_RUNS`` runs in some task its skewness is read
    from: n runs show a sample skewness (k-statistic) of at most sqrt(n) whatever the runs' shape (n - 1 tied below
    one), so the correction stops there. Only the bands given count, and only their tasks with 3 or more runs that do
    not all tie (``flats``), as ``_small_runs.pooled_run_skewness`` reads them (audit s13: a withheld agent's 3 runs,
    or a task of 3 runs at a ceiling, had set the note's count)."""
    read = [layout.task_sizes[(layout.task_sizes >= 3) & ~flat]
            for layout, flat, out in zip(layouts, flats, withheld) if not out]
    read = np.concatenate(read) if read else np.zeros(0)
    if not read.size or read.min() >= SKEW_T_FULL_RUNS:
        return []
    fewest = int(read.min())
    return [f"the skew-corrected t band reads the runs' skewness from tasks with as few as {fewest} runs, which "
            f"show a skewness of at most {np.sqrt(fewest):.3g} whatever their shape: in simulation it held 95% for "
            f"lognormal (skewness 3.7) and capped runs from 3 runs, but for runs shaped as a gamma with shape 1/2 "
            f"(skewness 2.8) only 0.93-0.98 at 3 runs and 0.935-0.99 at 5, short at 5 tasks (0.97 and more from 10)"]


def _population_tasks_bounds(design, layouts, tau, confidence_level):
    """((n_agents, n_tau, 2) bounds, notes): the ``"wilson_tasks"`` band of a ``kind="tasks"`` profile (audit s30
    tboot30), the fraction of a population of tasks whose mean is above tau.

    Each task's mean gets the ``"skew_t"`` bounds at the level 1 - a / 2 (a = 1 - confidence_level): the tasks whose
    lower bound is above tau, K_low of the n, and those whose upper bound is, K_high, straddle the count K of tasks
    drawn whose true mean is above tau with probability at least 1 - a / 2 whatever their means
    (:func:`kernels.profile_task_bounds`). K is binomial(n, p), p the population's profile at tau, and the Wilson
    interval with continuity correction at the level 1 - a / 2 holds p from K; as its ends rise with K, the band from
    the Wilson lower end at K_low to its upper end at K_high holds p with probability at least 1 - a (Bonferroni) where
    both steps hold. The fraction of noisy means alone (the percentile band of tasks and runs resampled, or Wilson's
    interval on it) estimates the profile of the means of the runs drawn, not of the tasks' means: with runs' sd twice
    the tasks' spread it held as little as 0.10 at 26 tasks of 3 runs (``bootstrap.profile_population`` rows).
    Withheld, as the ``"skew_t"`` band, where an agent has fewer than ``SKEW_T_MIN_TASKS`` tasks with 3 or more runs.
    """
    level = 1.0 - (1.0 - confidence_level) / 2.0
    skewness = _band_skewness(design, "skew_t")
    ones = np.ones(design.n_tasks)
    bounds, flats = [], []
    for layout, (g, _) in zip(layouts, skewness):
        low, high, flat = kernels.profile_task_bounds(layout, level, g)
        given = kernels.profile_t_bounds(low, high, tau)  # the fractions of the tasks given, each end
        bounds.append(np.stack([kernels.profile_wilson_bounds(given[:, 0], ones, level)[:, 0],
                                kernels.profile_wilson_bounds(given[:, 1], ones, level)[:, 1]], axis=-1))
        flats.append(flat)
    bounds = np.stack(bounds)
    withheld = _skew_t_withheld(skewness)
    bounds[withheld] = np.nan
    notes = _flat_tasks_note(design, flats, "skew_t")
    # interval='t' is refused with tasks resampled (audit s30 tboot30: the note offered it)
    # ... and interval='t' refuses an agent with one run in every task (audit s30 w2fix30): said, with what works
    need = small_runs.untasked_need(design.counts, design.agents, "performance_profile",
                                    (("interval", "t"), ("task_bootstrap", False)), ", and need")
    notes += _skew_withheld_note(design, skewness, withheld,
                                 "task_bootstrap=False, interval='t' gives the bands of these tasks (Student t bands, "
                                 f"which hold their level for normal runs{need}; task_bootstrap=False alone gives the "
                                 "skew-corrected t band, withheld as this one); add tasks to speak of tasks in general")
    notes += _skew_few_runs_note(layouts, flats, withheld)
    return bounds, notes


def _flat_tasks_note(design, flats, interval, side="above"):
    """The note naming, per agent, the tasks whose runs give no spread (they count in the upper end only)."""
    by_place = [design.tasks[j] for j in design.task_order]  # the layouts' order of the tasks
    named = [f"{name!r} on {fmt.listed([by_place[t] for t in np.flatnonzero(flat)], 5)}"
             for name, flat in zip(design.agents, flats) if flat.any()]
    if not named:
        return []
    band = "skew-corrected t" if interval == "skew_t" else "t"
    return [f"the {band} band bounds each task's mean from the spread of its runs; these have one run or runs that all "
            f"tie, so no spread: {fmt.join_and(named)}; such a task counts as {side} every tau in the band's upper "
            f"end and never in its lower end (the estimate counts it by its mean)"]


@public_function
def performance_profile(data: Data, formula: FormulaLike | None = None, *, tau: ArrayLike | None = None,
                        kind: str = "runs", interval: ProfileInterval | None = None, n_resamples: int | None = None,
                        confidence_level: float = 0.95, task_bootstrap: bool = False, normalize: Normalizer = None,
                        na_action: NaAction = "raise", rng: Seed = None, progress: bool = True,
                        max_seconds: float | None = None, n_jobs: int = 1, higher_is_better: bool = True,
                        eval_env: EvalEnv = None) -> PerformanceProfileResult:
    """Performance profiles (score distributions) with pointwise bands.

    Each agent's profile describes its own runs, so one agent is enough; as for :func:`bootstrap`, every agent
    needs runs on every task (``na_action="drop"`` leaves out the tasks where one has none, and says so).

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent | task"`` (``task/seed`` names the seed column).
    tau : array, optional
        Thresholds.  By default 81 evenly spaced points over the range where
        the profiles change: from the largest threshold at which every
        agent's profile is still at least 0.95 to the smallest at which
        every profile is at most 0.05, widened by 5% of that span on each
        side (within the scores' range).  A note of the result states the
        range and how many runs score outside it.  At most 10,000 thresholds.
    kind : {"runs", "tasks"}
        ``"runs"``: fraction of runs scoring strictly above tau, averaged over
        tasks (rliable's score distribution; with equal runs, the fraction of
        all runs); ``"tasks"``: fraction of tasks whose mean score is above tau.
    interval : {"wilson", "skew_t", "t", "percentile", "wilson_tasks"}, optional
        ``"wilson"`` (the default for ``kind="runs"`` without
        ``task_bootstrap``): the stratified Wilson score band with continuity
        correction, read at the effective runs T^2 / sum_t(1 / n_t) (T tasks,
        n_t runs in task t); it needs no resampling and held 95% in simulation
        from 2 runs per task on 1 to 26 tasks, for normal, skewed,
        heavy-tailed and capped scores.  ``"skew_t"`` (the default for
        ``kind="tasks"`` without ``task_bootstrap``): each task's mean gets
        bounds from its runs, one-sided at (1 - confidence_level) / T each
        way; the band's lower end is the fraction of tasks whose lower bound
        is above tau, its upper end the fraction whose upper bound is.  It
        misses at a tau only if some task's bound misses on the side of tau
        where its mean lies, so at most with probability 1 -
        confidence_level whatever the tasks' means, wherever the bounds hold.
        Each bound is the Student t bound moved out on the side of the runs'
        skewness by Hall's (1992) transformation of the t statistic (as the
        selection check's skew-corrected t), the skewness read from all the
        agent's tasks (the k-statistic skewness of each task with 3 or more
        runs, averaged): a task whose few runs miss their rare large value
        shows no skew of its own.  In simulation (5 and 26 tasks, 3 to 20
        runs; ``bootstrap.profile_tasks`` rows of :mod:`rlstats.calibration`)
        it held 95% at every threshold for normal, skewed (lognormal),
        heavy-tailed and capped runs (lowest 0.953), where the Student t
        bounds fell to 0.85 for skewed runs just below the lowest task mean and
        to 0.90 for runs at a ceiling at the highest.  On shapes outside that
        grid it held from 3 runs on a normal mixture, and from 10 on a gamma
        with shape 1/2 (skewness 2.8) and its reflection (0.97 and above), and at 26 tasks from 3 runs (0.98), but
        not at 5 tasks of 3 or 5 runs (0.93-0.96; 0.83-0.95 at 3-5 runs before audit s26, whose capped inversion of
        Hall's cubic, :func:`rlstats.statistics.hall_inverse`, keeps the bounds widening with the skewness):
        n runs show a skewness of at most sqrt(n), and below 10 runs a note
        says so.  With fewer than 5 tasks of 3 or more runs an agent's band is
        withheld (NaN) with a note (tasks whose runs all tie count: their
        bounds are unbounded and the level 0.05 / T counts them; with 1-3 of
        5 or 6 tasks tied, at a ceiling or constant, the band held 0.946 and
        above at 3 runs and 0.954 at 5, as without ties: 0.947 and 0.967;
        audit s13): the skewness would come from the runs
        whose mean it corrects, and from one task's few runs no bound of its
        mean holds whatever their shape (Bahadur and Savage 1956; skewed runs
        on one task held 0.88-0.92 skew-corrected at 3-20 runs).  Its width
        is the t band's times 1.04-1.07 for normal and heavy-tailed runs at
        26 tasks of 3 and 10 runs, 1.04-1.09 at 3 runs and 1.57 at 10 for
        skewed and capped runs, and on Atari 100k at 3 runs 0.42 for DER
        (0.19 with t bounds) and SPR (0.42).  ``"t"`` (the default from
        audit s10 to s12): the same band with Student t bounds, exact for normal runs, and
        given from 1 task; a note quotes its table row where it falls short.
        Either is wide with few runs: at 3 runs on 26 tasks it spans nearly 0
        to 1 where the task means lie, which is what 3 runs can tell.  A task
        with one run, or whose runs all tie, has no spread to bound its mean:
        it counts in the upper end only, and a note names it.
        ``"percentile"``: the stratified bootstrap percentile band (rliable's,
        and the default of earlier releases for either kind), bit for bit as
        before from the same seed; it covers far less than its level at few
        runs per task (for ``kind="tasks"``, 0.71-0.77 of thresholds at 26
        tasks of 3 runs, 0.00-0.49 at the worst), and a note quotes what
        simulation measured.  With ``task_bootstrap=True`` it resamples tasks
        too (the default for ``kind="tasks"`` there until audit s30).
        ``"wilson_tasks"`` (the default with ``task_bootstrap=True``, for
        ``kind="runs"`` from audit s29 and ``kind="tasks"`` from s30): for
        ``kind="runs"``, the Wilson score interval with
        continuity correction on the profile, the mean of the tasks'
        fractions, with the n tasks as the sample (a closed form, no
        resamples).  Each task's fraction lies between 0 and 1, so its
        variance is at most p(1 - p), that of a task whose runs all fall on
        one side of tau: on such tasks (the binomial, enumerated) it holds
        0.947 at 2 tasks at the worst true profile (0.948 at 3, 0.9484 at
        5, 0.949 at 26: enumerated at the band's bounds, where the
        coverage is least; under 3,000 random laws of a task's fraction
        at 2-10 tasks x 3-10 runs, enumerated, 0.948 at worst), and against
        the profile of a
        population of tasks (``bootstrap.profile_population`` rows: 2-26
        tasks, 3-10 runs, normal and skewed task means, little and much run
        noise, thresholds at the population profile's 10%-90% points) it
        held 0.974-1.00, where the percentile band with tasks resampled held
        as little as 0.23 at 2 tasks, 0.33 at 3, 0.51 at 5, 0.72 at 10 and
        0.88 at 26 (its note quotes the rows of the design), and read at
        the expanded level sqrt(n/(n-1)) t_{n-1} 0.48, 0.72 and 0.90 at 5,
        10 and 26 (a screen of 1,000 data sets, not in the table).
        Wide with few tasks (mean width 0.67 at 5 tasks, 0.51 at 10, 0.32
        at 26 over those thresholds): what few tasks say of tasks in
        general.  For ``kind="tasks"`` the population's profile is the
        fraction of its tasks whose mean is above tau, and the fraction of
        tasks whose mean of a few runs is above tau estimates another one
        (that of the runs' means, spread by the runs' noise): each task's
        mean gets the ``"skew_t"`` bounds at the level 1 - (1 -
        confidence_level) / 2, and the band runs from the Wilson lower
        bound (the tasks as the sample, at that level too) of the count of
        tasks whose lower bound is above tau to the Wilson upper bound of
        the count whose upper bound is: it holds wherever both steps do
        (Bonferroni), and is withheld, as ``"skew_t"``, with fewer than 5
        tasks of 3 or more runs.  Against a population of tasks
        (``bootstrap.profile_population`` rows of ``metric`` ``"tasks"``:
        5-26 tasks, 3-10 runs, normal and skewed task means, runs' sd 0.3
        and 2 times theirs, thresholds at the task means' 10%-90% points)
        it held 0.995-1.00, where the percentile band with tasks resampled
        held as little as 0.23 at 2 tasks, 0.32 at 3, 0.49 at 5, 0.71 at 10
        and 0.10 at 26 (3 runs, skewed task means, runs' sd twice theirs,
        where the population's profile is 0.9).  It is wide: at 3 runs it
        spans 0.97-1.00 on average over those thresholds (one-sided
        Bonferroni t bounds from 3 runs tell little of which side of tau a
        task's mean lies), at 10 runs 0.54-0.82 with the runs' sd 0.3 times
        the tasks' spread and 0.98-0.99 at twice it (the percentile band:
        0.28-0.66, from 96 data sets a design).
    n_resamples : int, optional
        Resamples of the percentile band, 2,000 by default, as rliable.
        The Wilson and t bands are closed forms and draw none: given with
        them, a note says it was not used.
    confidence_level : float
        Pointwise: at each tau the band holds the true profile with this
        probability.  Where simulation measured less for the band at 95% at
        this design's runs per task, a note quotes the measured coverage
        (``bootstrap.profile`` rows of :mod:`rlstats.calibration` for
        ``kind="runs"``, ``bootstrap.profile_tasks`` for ``kind="tasks"``).
    task_bootstrap : bool
        Speak of the population the tasks were drawn from: with the ``"wilson_tasks"`` band by default for either
        kind (the tasks as the sample; ``interval="percentile"`` resamples tasks and runs as before, and a note
        quotes its measured coverage, ``bootstrap.profile_population`` rows); withheld from one task.  From 5
        tasks or fewer a percentile band's note gives the ceiling 1 - 2^(1 - n) of its level, as in
        :func:`bootstrap`: the share of samples of n tasks on both sides of the population's middle.  That is
        its ceiling at the profile's middle only: where the population's profile is p, all n tasks' means fall on
        one side of tau in p^n + (1 - p)^n of samples, so with little run noise a ``kind="tasks"`` percentile
        band (0 or 1 then) holds little more than 1 - p^n - (1 - p)^n there, below 95% at the 10% and 90%
        points up to 28 tasks (0.18 at 2 tasks), which only the measured rows' note tells.  Measured at 2 tasks
        with runs' sd 0.3 times the tasks': 0.23-0.28 at the 10% point, at the 90% point 0.25-0.29 for normal
        and 0.42-0.52 for skewed task means (skewed: 0.95-0.98 from 10 tasks there).
    normalize : DataFrame, str or dict, optional
        As in :func:`bootstrap`.
    na_action : {"raise", "drop", "omit"}
        As in :func:`bootstrap`.
    rng : None, int or numpy.random.Generator
        Seed; each agent's resamples are those :func:`bootstrap` draws for it with the same seed (each cell's keyed
        by the agent's and the task's labels: renaming an agent or a task changes its cells' draws, not the others').
    progress : bool
        A progress bar (tqdm: on a terminal, or a notebook's widget) when the work is estimated to take more
        than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    n_jobs : int
        Threads computing the resamples (-1: one per core).  Every block of
        100 resamples has its own generator, so the result is identical
        whatever ``n_jobs``.
    higher_is_better : bool
        False where smaller values are better (a time to a threshold): the profile is then the fraction of runs
        (``kind="tasks"``: of tasks whose mean is) strictly below tau, the mirror of "above tau", which rises with
        tau; each band is the larger-is-better band of the negated values.  Strictly below: a time censored at its
        task's horizon h (:func:`rlstats.summarize_runs`) holds h, so at tau = h it does not count as reached,
        where "at or below tau" would count every censored run.  Not given, it is read from the data as every
        function taking it reads it: False, with a note, for ``how="time_to_threshold"``'s summary.
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up; by default the caller's frame.

    Returns
    -------
    PerformanceProfileResult

    See Also
    --------
    rlstats.bootstrap : Aggregate metrics with stratified bootstrap intervals.
    rlstats.probability_of_improvement : P(X > Y) averaged over tasks.

    References
    ----------
    Agarwal et al. (2021), NeurIPS 34, Section 4 (performance profiles).
    Dolan, E. D. and More, J. J. (2002), Math. Program. 91, 201-213.
    Newcombe, R. G. (1998), Stat. Med. 17, 857-872 (method 4: Wilson's interval with continuity correction).
    Yan, X. and Su, X. G. (2010), Stat. Biopharm. Res. 2, 329-335 (the stratified Wilson interval).
    Hall, P. (1992), On the removal of skewness by transformation, J. R. Stat. Soc. B 54(1), 221-228 (the
    ``"skew_t"`` bounds).
    Bahadur, R. R. and Savage, L. J. (1956), Ann. Math. Statist. 27(4), 1115-1122 (no bound of a mean holds for
    every shape).

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=5, rng=0)
    >>> res = rlstats.performance_profile(df, "score ~ agent | task")
    >>> res.tau.size, res.tidy().columns.tolist()
    (81, ['agent', 'tau', 'estimate', 'conf_low', 'conf_high'])
    """
    options = PerformanceProfileOptions.checked(
        tau=tau, kind=kind, interval=interval, n_resamples=PROFILE_RESAMPLES if n_resamples is None else n_resamples,
        confidence_level=confidence_level, task_bootstrap=task_bootstrap, na_action=na_action, progress=progress,
        max_seconds=max_seconds, n_jobs=n_jobs, higher_is_better=higher_is_better)
    given_resamples = n_resamples
    kind, n_resamples, confidence_level, task_bootstrap = (options.kind, options.n_resamples,
                                                           options.confidence_level, options.task_bootstrap)
    # one agent is enough (a profile describes each agent's runs), the tasks read as bootstrap() reads them (audit
    # s13: a task without a second agent had been kept out of the others' profiles, as from a comparison)
    design = _prepared_design(design_of(data, formula, na_action=options.na_action, eval_env=eval_env,
                                        normalize=normalize, min_agents=1), options.na_action)
    work = admit(profile_cost, design, options, max_seconds, "performance_profile()")  # issue 43 item 2
    shown = shows(work, options.progress)
    # one threshold tau for every task: raw scales let the large tasks decide
    design = warn_raw_scales(design, normalize)
    higher = options.higher_is_better
    design = _directed(design, higher)  # y < tau is -y > -tau: the larger-is-better profile of -y (audit s34)
    notes = list(design.notes)
    if not task_bootstrap:
        # a single-run task adds no spread to a resampled band; the Wilson band reads the runs' counts and it widens
        # the band (audit s38 claims38: C's band at tau 0.5 0.533 -> 0.721 wide, said to gain no spread); the t
        # bands count it in their upper end at every tau instead, which their own note says (_flat_tasks_note)
        effect = ("which the Wilson band counts as one run, lowering its effective number of runs (T^2 / sum(1 / n_t))"
                  if options.interval == "wilson" else small_runs.NO_SPREAD)
        single = small_runs.check_single_runs("performance_profile", design.counts, design.agents, options,
                                              design.tasks, design.words, effect=effect)
        notes += single if _BAND_KINDS.get(options.interval) != "tasks" else []
    notes += _profile_coverage_notes(design, options.interval, kind, confidence_level, task_bootstrap)
    layouts = _layouts(design)
    tau = options.tau if options.tau is None or higher else -options.tau
    if tau is None:
        tau, note = _default_tau(design, layouts, kind, higher)
        notes.append(note)
    root, seed = seed_sequence(rng)
    estimates = np.stack([kernels.profile_estimate(layout, tau, kind) for layout in layouts])
    if options.interval in _BAND_KINDS:
        # closed forms: nothing drawn, so no seed to report and no Monte Carlo error
        if given_resamples is not None:
            notes.append(f"n_resamples={given_resamples} was not used: the {options.interval} band is a closed form and "
                         "draws no resamples (interval='percentile' resamples)")
        if options.interval == "wilson":
            bounds = np.stack([kernels.profile_wilson_bounds(estimates[i], layout.task_sizes, confidence_level)
                               for i, layout in enumerate(layouts)])
        elif options.interval == TASKS_BAND and kind == "tasks":  # audit s30 tboot30: bounds, then tasks
            bounds, said = _population_tasks_bounds(design, layouts, tau, confidence_level)
            gone, given = small_runs.tasks_resampled(design.n_tasks, confidence_level, options.interval, "bands",
                                                     counts=design.counts, agents=design.agents)
            bounds = np.full_like(bounds, np.nan) if gone else bounds
            notes += given + ([] if gone else said)
        elif options.interval == TASKS_BAND:  # each task one unit of the sample: n tasks of one
            bounds = np.stack([kernels.profile_wilson_bounds(estimates[i], np.ones(design.n_tasks),
                                                             confidence_level) for i in range(design.n_agents)])
            gone, said = small_runs.tasks_resampled(design.n_tasks, confidence_level, options.interval, "bands",
                                                     counts=design.counts, agents=design.agents)
            bounds = np.full_like(bounds, np.nan) if gone else bounds
            notes += said
        else:
            skewness = _band_skewness(design, options.interval)
            tasks = [kernels.profile_task_bounds(layout, confidence_level, g) for layout, (g, _) in
                     zip(layouts, skewness)]
            bounds = np.stack([kernels.profile_t_bounds(low, high, tau) for low, high, _ in tasks])
            withheld = _skew_t_withheld(skewness)
            bounds[withheld] = np.nan
            notes += _flat_tasks_note(design, [flat for _, _, flat in tasks], options.interval,
                                      "above" if higher else "below")
            notes += _skew_withheld_note(design, skewness, withheld)
            notes += _skew_few_runs_note(layouts, [flat for _, _, flat in tasks], withheld) \
                if options.interval == "skew_t" else []
        return _profile_result(design, options, notes, None, tau, estimates, bounds, np.zeros_like(bounds), None)
    bounds, se = np.empty(estimates.shape + (2,)), np.empty(estimates.shape + (2,))
    with progress_bar(design.n_agents * n_resamples, shown, "performance profiles") as advance:
        for i, (name, layout) in enumerate(zip(design.agents, layouts)):
            stats = kernels.profile_agent(layout, tau, kind, n_resamples, agent_seed_sequence(root, name),
                                          task_bootstrap=task_bootstrap, advance=advance, n_jobs=options.n_jobs)
            bounds[i], se[i] = kernels.interval_bounds(stats.T, estimates[i], confidence_level, "percentile")
    if task_bootstrap:  # audit s28: what resampling few tasks can say of a population of tasks
        gone, said = small_runs.tasks_resampled(design.n_tasks, confidence_level, "percentile", "bands",
                                                 counts=design.counts, agents=design.agents)
        if gone:
            bounds, se = np.full_like(bounds, np.nan), np.full_like(se, np.nan)
        notes += said
        notes += [] if gone else _task_resampled_bands_note(design, kind, confidence_level)
    return _profile_result(design, options, notes, seed, tau, estimates, bounds, se, n_resamples)


def _task_resampled_bands_note(design, kind, confidence_level):
    """The lowest coverage simulated of nominal 95% percentile bands of ``kind`` with tasks resampled, from the
    :data:`PROFILE_POPULATION` rows bracketing the design's tasks at its fewest runs
    (:func:`small_runs.tasks_rows`; audit s29 pffix29: it quoted a 400-data-set screen at 5/10/26 tasks; audit s30
    tboot30: kind="tasks" too, whose rows it had none of).  What it says of the default band of kind="tasks" follows
    that band's own rule (:func:`_skew_t_withheld`; review s31: it judged by the tasks alone)."""
    if not np.isclose(confidence_level, 0.95):
        return []
    n_tasks, runs = design.n_tasks, int(design.counts.min())
    rows = small_runs.tasks_rows("percentile", kind, n_tasks, runs, PROFILE_POPULATION)
    missed = [row for row in rows if calibration.misses(row, 0.95)]
    if not missed:
        return []
    worst = min(missed, key=calibration.worst_coverage)
    noise, point = (part.split()[-1] for part in worst["configuration"].split(", "))  # "run sd 0.3, profile 0.10"
    # kind="tasks": its default bounds each task's mean first, withheld where an agent has fewer than
    # SKEW_T_MIN_TASKS tasks with 3 or more runs (audit s30 tboot30; review s31: 10 tasks of 2 runs are such)
    skewness = _band_skewness(design, "skew_t")
    withheld = _skew_t_withheld(skewness) if kind == "tasks" else np.zeros(design.n_agents, dtype=bool)
    named = [f"{name!r} ({usable})" for name, (_, usable), out in zip(design.agents, skewness, withheld) if out]
    default = ("held 95% there" if not withheld.any() else
               f"withholds its bands where an agent has fewer than {SKEW_T_MIN_TASKS} tasks with 3 or more runs, as "
               f"{fmt.join_and(named, 5)} here, and held 95% from there")
    return [f"in simulations of {calibration.counts_words(int(row['tasks']) for row in rows)} with "
            f"{worst['runs']} runs per task (normal and skewed task means), nominal 95% bands with tasks resampled "
            f"held the profile of the whole population of tasks at its 10%-90% points in as few as "
            f"{float(worst['coverage']):.2f} of data sets ({worst['distribution']} task means, runs' sd {noise} times "
            f"theirs, where the population's profile is {point}): read them as approximate for tasks in general; the "
            f"default interval={TASKS_BAND!r} {default} (the {PROFILE_POPULATION} rows)"]


def _profile_result(design, options, notes, seed, tau, estimates, bounds, se, n_resamples):
    method = {"wilson": "Performance profiles with stratified Wilson bands",
              "skew_t": "Performance profiles with per-task skew-corrected t bands",
              "t": "Performance profiles with per-task t bands",
              "percentile": "Performance profiles with stratified bootstrap bands",
              TASKS_BAND: "Performance profiles with Wilson bands over tasks"}[options.interval]
    if options.interval == TASKS_BAND and options.kind == "tasks":
        method += " of skew-corrected t bounds"  # audit s30 tboot30: each task's mean bounded first
    if options.task_bootstrap and options.interval != TASKS_BAND:  # as bootstrap()'s title: these bands are far
        method += " (runs and tasks resampled)"  # wider than those of runs alone (wilson_tasks: the tasks the sample)
    elif options.task_bootstrap:
        method += " (the tasks as the sample)"
    return PerformanceProfileResult(
        method=method, formula=design.formula, data_name=design.data_name, nobs=design.nobs, notes=tuple(notes),
        options=options.record(), seed=seed, agents=design.agents, tasks=design.tasks,
        tau=np.asarray(tau) if options.higher_is_better else 0.0 - np.asarray(tau),  # as the data hold them
        kind=options.kind, interval=options.interval, estimates=estimates, intervals=bounds, interval_mc_se=se,
        n_resamples=n_resamples, confidence_level=options.confidence_level, task_bootstrap=options.task_bootstrap,
        counts=design.counts, normalized=design.normalized)
