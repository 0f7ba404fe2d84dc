"""Post-reporting selection check: were the reported tasks cherry-picked? (Komiyama and Maehara, 2018).

An author reports a new agent's improvement over a baseline on the tasks
where it looks best.  ``selection_check`` turns each task's runs into one
per-task effect ``v`` (seeds enter only there), then asks two questions:

* the **reporter's** test, as the author would publish it: is the mean
  effect over the reported tasks above 0 (naive p-value), above a required
  minimum improvement ``mu_gap`` (gap p-value), or above what the best
  ``N_P`` of ``n_candidates`` null tasks would give (conservative p-value)?
* the **inspector's** test, the answer this function is for: do the
  reported tasks have a larger mean effect than held-out tasks?  A small
  ``res.pvalue`` (at most ``beta``) is evidence, at that level, that the reported tasks are not representative.

The null of the inspector matches the held-out design (spec section 7.3):
for held-out tasks from the same suite the permutation test over task labels
is exact for "the reported tasks are a uniformly random subset"; for fresh
tasks the paper's z and pooled t tests apply directly (and so does the
permutation test).

:func:`simulate` reproduces the paper's synthetic experiments (its Fig. 2
and Theorem 1) and doubles as a test oracle; :func:`detection_probability`
and :func:`required_heldout` plan how many held-out tasks an inspector needs;
those live in ``_planning.py``.  The numerics live in
:mod:`rlstats.methods.selection._kernels`.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import asdict, dataclass
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from ... import calibration
from ...bounds import check_bounds, clip, clip_columns, clipped_note
from ...cost import admit, shows, timed_bar
from ...design import check_agent_named, design_of, public_function
from ...interop import as_pandas
from ...normalization import warn_raw_scales
from ...format import cannot_reject, count, integer, join_and, plural, returned_nan, verb
from .._replication import verdict
from ...errors import DesignError, OptionError, RlstatsError, close_names, label_named, label_value
from ...options import (check_bool, check_choice, check_cost_options, check_fraction, check_resamples,
                       is_finite_number)
from ...resampling import check_rng, seed_sequence
from ...statistics import monte_carlo_pvalue, near_tie_note, near_tied_blocks, near_ties
from ...vocabulary import value_label
from . import _kernels as kernels
from ._backend import cost
from ._planning import CONSERVATIVE_RESAMPLES, check_tasks
from ._result import CONF_LEVEL, KNOWN_SD_NORMAL, SelectionCheckResult
from ..._typing import Data, EvalEnv, FormulaLike, Label, NaAction, Normalizer, Seed, Table

__all__ = ["selection_check", "SelectionOptions"]

EFFECT_MEASURES = tuple(kernels.EFFECTS)
INSPECTORS = kernels.INSPECTORS
REPORTERS = tuple(kernels.REPORTERS)

METHOD_TITLE = "Post-reporting selection check (Komiyama and Maehara, 2018)"
#: The tests' measured size in the package table (rlstats/calibration.csv, written by tests/reference/calibrate.py):
#: the default effect at alpha = beta = 0.05, on designs of 2 to 8 reported tasks with 2 to 20 runs.
SIZE_PROCEDURE = "selection.size"


# =========================================================================== options

@dataclass(frozen=True)
class SelectionOptions:
    effect: object = "mean_diff"
    inspector: str = "fisher_pitman"
    reporter: str = "skew_t"
    mu_gap: float = 0.0
    n_candidates: int | None = None
    sigma: object = None
    alpha: float = 0.05
    beta: float = 0.05
    higher_is_better: bool = True
    n_resamples: int = 9_999
    na_action: NaAction = "raise"
    bounds: tuple | None = None
    progress: bool = True

    @classmethod
    def checked(cls, **options: Any) -> SelectionOptions:
        """Validate every option once; raises OptionError naming the bad one."""
        effect = options["effect"]
        if not callable(effect):
            effect = check_choice("effect", effect, EFFECT_MEASURES)
        mu_gap = options["mu_gap"]
        if not is_finite_number(mu_gap):
            raise OptionError(f"mu_gap must be a finite number >= 0, got {mu_gap!r}")
        if mu_gap < 0:
            raise OptionError(f"mu_gap must be >= 0 (the minimum improvement a claim must exceed, in the units "
                              f"of the per-task effect), got {mu_gap}; use 0 for the naive test")
        n_candidates = options["n_candidates"]
        if n_candidates is not None:
            n_candidates = check_tasks("n_candidates", n_candidates)
        sigma = _checked_sigma(options["sigma"])
        inspector = check_choice("inspector", options["inspector"], INSPECTORS, renamed=kernels.RENAMED_INSPECTORS)
        reporter = check_choice("reporter", options["reporter"], REPORTERS)
        for name, value in (("inspector", inspector), ("reporter", reporter)):
            if value == "z" and sigma is None:
                raise OptionError(f"{name}=\"z\" assumes a known sd of the per-task effects: pass sigma=<number> "
                                  "(in the units of the effect) or sigma=\"pooled\" (the sd over reported and "
                                  f"held-out tasks, as in the paper), or use {name}=\"t\"")
        if n_candidates is not None and sigma is None:
            raise OptionError("the conservative p-value (n_candidates=) is defined only for a known sd of the "
                              "per-task effects (paper section 6.1): pass sigma=<number> or sigma=\"pooled\", or "
                              "drop n_candidates")
        return cls(effect=effect, inspector=inspector, reporter=reporter, mu_gap=float(mu_gap),
                   n_candidates=n_candidates, sigma=sigma, alpha=check_fraction("alpha", options["alpha"]),
                   beta=check_fraction("beta", options["beta"]),
                   higher_is_better=check_bool("higher_is_better", options["higher_is_better"]),
                   n_resamples=check_resamples(options["n_resamples"], minimum=1),
                   na_action=options["na_action"], bounds=check_bounds(options.get("bounds")),
                   progress=check_cost_options(options.get("progress", True), options.get("max_seconds"))[0])

    @property
    def effect_name(self):
        return self.effect if isinstance(self.effect, str) else getattr(self.effect, "__name__", "callable")


def _checked_sigma(sigma):
    if sigma is None or (isinstance(sigma, str) and sigma == "pooled"):
        return sigma
    if not is_finite_number(sigma) or sigma <= 0:
        raise OptionError(f"sigma must be None (unknown sd), \"pooled\" or a positive number (the known sd of "
                          f"the per-task effects), got {sigma!r}")
    return float(sigma)


# =========================================================================== result


# =========================================================================== resolving the sets of tasks

def _suggest(name, labels):
    close = close_names(name, [str(x) for x in labels])
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


#: what each required option of selection_check() names, as its error says it
_REQUIRED = {"treatment": "the new agent (treatment=)", "baseline": "the agent it is compared with (baseline=)",
             "reported": "the tasks shown in the paper (reported=: a list of task names, or the name of a boolean "
                         "column marking them)"}


def _check_required(design, **given):
    """Every required option left out, named in one OptionError (audit s38 fixc38: treatment=, then baseline=, then
    reported= were refused one call at a time)."""
    missing = [name for name, value in given.items() if value is None]
    if not missing:
        return
    agents = (f"; the agents are {', '.join(map(repr, design.agents))}" if {"treatment", "baseline"} & set(missing)
              else "")
    raise OptionError(f"{join_and(name + '=' for name in missing)} {verb(len(missing), 'is')} required: name "
                      f"{join_and(_REQUIRED[name] for name in missing)}{agents}")


def _check_met(design, treatment, baseline):
    """The two arms must share a task: the check compares them task by task, and no other agent enters it (so a
    design whose other agents fall into groups apart is fine; rlstats.connectivity)."""
    graph = design.graph
    t, b = design.agents.index(treatment), design.agents.index(baseline)
    if graph.shared[t, b] > 0:
        return
    partners = [a for a, met in zip(design.agents, graph.met()[t]) if met and a != treatment]
    raise DesignError(f"treatment {treatment!r} and baseline {baseline!r} never ran on a common task, so no task "
                      "has an effect to check; name a baseline that shares tasks with the treatment"
                      + (f": {', '.join(map(repr, partners))}" if partners else ""))


def _levels_without_runs(data, design):
    """The task column's levels that the Design left out for want of runs (a Categorical's unused levels, tasks
    whose every score was dropped as missing), to tell them apart from misspelt names."""
    column = design.formula.blocks
    if not isinstance(data, pd.DataFrame) or column not in data.columns:
        return frozenset()
    values = data[column]
    levels = values.cat.categories if isinstance(values.dtype, pd.CategoricalDtype) else pd.unique(values)
    return frozenset(map(str, levels)) - set(design.tasks) - set(design.dropped_tasks)


def _task_list(role, names, design, empty=frozenset()):
    """Validate a list of task names given as ``reported=`` or ``heldout=``; returns them as strings. ``empty``: the
    task levels without runs (:func:`_levels_without_runs`)."""
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise OptionError(f"{role}= must be a list of task names, got {names!r}")
    # as the data write them (errors.label_named: 3 and "3" name the task printed 3); a name of none stays as given
    labels = (*design.tasks, *design.dropped_tasks, *empty)
    names = [label_named(labels, role, n, what="task") or str(label_value(role, n, what="task")) for n in names]
    if not names:
        raise OptionError(f"{role}= is empty; name at least one task")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise OptionError(f"{role}= names {plural('task', len(repeated))} more than once: "
                          f"{', '.join(map(repr, repeated))}")
    unknown = [n for n in names if n not in design.tasks and n not in design.dropped_tasks]
    without = [n for n in unknown if n in empty]
    if without:
        raise DesignError(f"{role}= names {', '.join(map(repr, without))}, which "
                          f"{verb(len(without), 'has')} no runs in the data (a level of column "
                          f"'{design.formula.blocks}' without rows: filtered out, or every score missing), so no "
                          "effect can be computed there; name tasks with runs of both agents")
    if unknown:
        hints = "; ".join(f"{n!r}{_suggest(n, design.tasks)}" for n in unknown)
        raise OptionError(f"{role}= names {count(len(unknown), 'unknown task')} in column '{design.formula.blocks}': "
                          f"{hints}")
    kept_out = [n for n in names if n in design.dropped_tasks]
    if kept_out:
        raise DesignError(f"{role}= names {plural('task', len(kept_out))} where fewer than two agents have runs: "
                          f"{', '.join(map(repr, kept_out))}; no effect can be computed there")
    return names


def _reported_from_column(column, design):
    """Tasks marked True in a per-task boolean column (constant within each task)."""
    values = pd.Series(design.extra[column])
    allowed = {True, False, 0, 1}
    bad = [v for v in values.unique() if not (isinstance(v, (bool, np.bool_, numbers.Integral)) and v in allowed)]
    if bad:
        raise DesignError(f"reported column '{column}' must hold True/False (or 1/0) per task, found {bad[:3]!r}")
    flags = values.astype(bool).groupby(design.task).agg(["min", "max"])
    mixed = flags.index[flags["min"] != flags["max"]]
    if len(mixed):
        raise DesignError(f"reported column '{column}' changes within {plural('task', len(mixed))} "
                          f"{', '.join(repr(design.tasks[t]) for t in mixed[:5])}; it must mark whole tasks")
    return [design.tasks[t] for t in flags.index[flags["max"]]]


def _resolve_reported(reported, design, empty=frozenset()):
    """The reported tasks' names (``reported``, given: :func:`_check_required`)."""
    if isinstance(reported, str):
        if reported in design.extra:
            names = _reported_from_column(reported, design)
            if not names:
                raise DesignError(f"reported column '{reported}' marks no task as reported")
            return names
        hint = (f"; to report the single task {reported!r} write reported=[{reported!r}]"
                if reported in design.tasks else "")
        raise OptionError(f"reported={reported!r} is not a column of the data{hint}; pass a list of task names "
                          "or the name of a boolean column")
    return _task_list("reported", reported, design, empty)


# =========================================================================== per-task effects

def _effects_of(design, treatment, baseline, options):
    """Per-task effects of a design (NaN where an arm has no run) with both arms' run counts."""
    if treatment not in design.agents or baseline not in design.agents:
        missing = [a for a in (treatment, baseline) if a not in design.agents]
        raise DesignError(f"the held-out data have no runs of {', '.join(map(repr, missing))}")
    # each cell's runs in one order whatever the rows' (audit s16: a shuffle moved the estimate by an ulp)
    pair = design.runs_by_score().select_agents([treatment, baseline])
    y, task, is_treatment = pair.y, pair.task, pair.agent == 0
    measure = _one_number(options.effect) if callable(options.effect) else options.effect
    effects, counts = kernels.task_effects(y, task, is_treatment, pair.n_tasks, measure)
    sign = 1.0 if options.higher_is_better else -1.0
    effects = sign * np.asarray(effects, dtype=float)
    frame = pd.DataFrame({"task": list(pair.tasks), "effect": effects, "n_treatment": counts[:, 0],
                          "n_baseline": counts[:, 1]})
    if measure in ("mean_diff", "std_diff"):  # each effect's rounding (:func:`_effects_tied`)
        frame["tolerance"] = kernels.effect_tolerances(y, task, is_treatment, counts, measure)
    if measure == "mean_diff":  # the runs' cumulants of each effect, for the skew-corrected reporter
        k2, k3 = kernels.effect_cumulants(y, task, is_treatment, counts)
        frame["k2"], frame["k3"] = k2, sign * k3
    return frame


def _one_number(measure):
    """Wrap a user's effect function so that anything but one number per task is a clear error."""
    def effect(treatment_runs, baseline_runs):
        value = measure(treatment_runs, baseline_runs)
        try:
            return float(value)
        except (TypeError, ValueError):
            raise OptionError(f"effect= function must return one number per task (treatment runs, baseline runs) "
                              f"-> float, got {value!r}") from None
    return effect


def _nan_effect_notes(frame, unusable, options):
    """The note naming a user effect function that returned NaN on tasks where both agents have runs."""
    if not callable(options.effect):
        return []
    nan = unusable & np.isnan(frame["effect"]) & (frame["n_treatment"] > 0) & (frame["n_baseline"] > 0)
    if not nan.any():
        return []
    tasks = f"{count(nan.sum(), 'task')} ({', '.join(map(str, frame.loc[nan, 'task']))})"
    return [returned_nan(f"effect function {options.effect_name!r}", [tasks], "those tasks are left out")]


def _left_out_notes(frame, unusable, options, treatment, baseline, where):
    """One note per reason the tasks ``unusable`` of ``frame`` are left out of the held-out set ``where``."""
    no_runs = unusable & ((frame["n_treatment"] == 0) | (frame["n_baseline"] == 0))
    few = unusable & ~no_runs & (frame["n_treatment"] + frame["n_baseline"] < 3)  # no pooled sd of 1 + 1 runs
    std_diff = options.effect == "std_diff"
    reasons = [(no_runs, f"without runs of both {treatment!r} and {baseline!r}")]
    if std_diff:
        reasons += [(few, f"with one run of {treatment!r} and one of {baseline!r} (effect='std_diff' needs a "
                          "third for their spread)"),
                    (unusable & ~no_runs & ~few, "with zero spread of both agents' runs (effect='std_diff' divides "
                                                 "by it)")]
    else:
        reasons.append((unusable & ~no_runs, "without a finite effect"))
    return [f"{count(mask.sum(), 'task')} {why} left out of {where}: {', '.join(frame.loc[mask, 'task'])}"
            for mask, why in reasons if mask.any()]


def _check_effects(frame, where, options):
    """Explicitly named tasks must give a finite effect; say why not."""
    no_runs = frame[(frame["n_treatment"] == 0) | (frame["n_baseline"] == 0)]
    if len(no_runs):
        raise DesignError(f"{where} {plural('task', len(no_runs))} {', '.join(map(repr, no_runs['task']))} "
                          f"{verb(len(no_runs), 'lacks')} runs of the treatment or "
                          "the baseline, so their effect cannot be computed")
    if options.effect == "std_diff":
        # the declared replication of the effect, read against the treatment's and the baseline's runs
        verdict("selection", frame[["n_treatment", "n_baseline"]].to_numpy(), options=options,
                agents=("treatment", "baseline"), tasks=[f"{where} task {t!r}" for t in frame["task"]])
    bad = frame[~np.isfinite(frame["effect"])]
    if len(bad):
        why = (" (zero spread of the runs)" if options.effect == "std_diff" else
               f" (the effect function {options.effect_name!r} returned NaN or an infinity)" if callable(options.effect)
               else "")
        raise DesignError(f"the effect is not finite on {where} {plural('task', len(bad))} "
                          f"{', '.join(map(repr, bad['task']))}{why}; "
                          "choose another effect=")


# =========================================================================== the public function

@public_function
def selection_check(data: Data, formula: FormulaLike | None = None, *, treatment: Label | None = None,
                    baseline: Label | None = None, reported: str | Sequence[Label] | None = None,
                    heldout: Sequence[Label] | Table | None = None, effect: str | Callable[..., Any] = "mean_diff",
                    inspector: str = "fisher_pitman", reporter: str = "skew_t", mu_gap: float = 0.0,
                    n_candidates: int | None = None, sigma: str | float | None = None, alpha: float = 0.05,
                    beta: float = 0.05, higher_is_better: bool = True, n_resamples: int = 9_999,
                    normalize: Normalizer = None, bounds: tuple[float | None, float | None] | None = None,
                    na_action: NaAction = "raise", rng: Seed = None, progress: bool = True,
                    max_seconds: float | None = None,
                    eval_env: EvalEnv = None) -> SelectionCheckResult:
    """Check whether the reported tasks of a claimed improvement are representative.

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent | task"`` (or ``task/seed``): runs are replicates
        within (agent, task) and enter only through the per-task effects.
    treatment, baseline : str, int or float
        The new agent and the agent it is compared with, named as the data
        write them (an agent coded 9: 9 or "9").
    reported : list or str
        The tasks shown in the paper (D_P), named as the data write them, or
        the name of a boolean column marking them (constant within each task).
    heldout : None, list or DataFrame
        D_I: None for every other task in ``data`` with runs of both agents
        (the complement), a list of tasks, or a DataFrame of fresh runs on
        new tasks (same columns, read with the same formula).
    effect : {"mean_diff", "std_diff", "poi"} or callable
        Per-task effect of the treatment: difference of mean scores
        (normalise scores across tasks first: a warning and a note say when
        the two agents' tasks' ranges are ten times apart: the widest task's
        more than ten times the others' median, or the wider half's median
        more than ten times the narrower half's); that difference over the
        pooled within-task sd (needs 2 runs per agent); the probability of
        improvement minus 0.5; or ``f(treatment_runs, baseline_runs) -> float``.
    inspector : {"fisher_pitman", "t", "welch", "z"}
        Test of ``mean(reported) > mean(held-out)``: permutation over task
        labels (exact for "reported is a random subset"; enumerated when at
        most ``n_resamples`` subsets exist), pooled t (paper section 6.1),
        Welch t, or z with known ``sigma`` (section 5.2).
    reporter : {"skew_t", "t", "z", "wilcoxon"}
        The reporter's one-sided test of a positive mean effect. ``"skew_t"``
        (the default): the one-sample t corrected for effects skewed towards
        losses (rare large losses make the t reject a true null too often at
        few tasks: up to 0.063 at 0.05 with 8 reported tasks): the larger of
        the t p-value and that of Hall's (1992) skewness-corrected t, with the
        effects' skewness estimated from the runs (``effect="mean_diff"``
        with 3 runs of each agent per task; else from the effects
        themselves, which at 2 reported tasks give none: the plain t, and a
        note quotes its measured size) and used only where negative. ``"t"``: the one-sample t
        of the paper (section 6.1; the default before issue 40, kept bit for
        bit); ``"z"`` needs ``sigma``; ``"wilcoxon"``: the signed-rank test.
    mu_gap : float
        Minimum improvement (units of the effect, >= 0) for the gap test of
        section 5.1; with ``mu_gap > 0`` the claim is judged by that test.
    n_candidates : int, optional
        N_A, the number of tasks the reporter could have chosen from;
        enables the conservative p-value (needs ``sigma``).
    sigma : None, "pooled" or float
        Known sd of the per-task effects, or ``"pooled"`` for the sd over
        reported and held-out tasks (the paper's convention); needed by the
        z tests and the conservative p-value.
    alpha, beta : float
        Levels of the reporter's and of the inspector's tests.  At 0.05, where
        simulation measured a larger size of the test chosen at this design
        (``selection.size`` rows of :mod:`rlstats.calibration`), a note quotes it.
    higher_is_better : bool
        False flips the sign of every effect, so positive means better.
    n_resamples : int
        Random subsets of the permutation inspector.
    normalize : DataFrame, str or dict, optional
        Normalise the response per task before the effects are computed, as
        :func:`rlstats.normalize` does (e.g. ``"atari100k_reference"`` for
        human-normalised Atari scores); a fresh held-out frame is normalised
        the same way.  Stated in the result.
    bounds : (low, high), optional
        Known limits of the score (None for a side without one; ``normalize="dm_control"`` implies [0, 1]): a run
        outside them (in either frame) is an error naming it; with ``effect="mean_diff"`` each per-task effect lies
        within plus or minus ``high - low``, so the intervals of the mean effects are clipped to that and the
        interval of reported less held-out to twice it, which keeps coverage (the notes say where).
    na_action : {"raise", "drop", "omit"}
        Missing values: an error, or drop the rows and say so.
        ``"omit"`` (R's ``na.omit``) is the same as ``"drop"``.
    rng : None, int or numpy.random.Generator
        Seed of the permutations and of the conservative null (recorded).
    progress : bool
        A progress bar over the estimated seconds (tqdm: on a terminal, or a notebook's widget) when the work is
        estimated to take more than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up.

    Returns
    -------
    SelectionCheckResult

    Raises
    ------
    FormulaError, DesignError, OptionError
        Among others: no held-out task, a task both reported and held out,
        unknown task names (with suggestions), ``mu_gap < 0``.

    See Also
    --------
    rlstats.selection.required_heldout : How many held-out tasks an inspector needs.
    rlstats.selection.detection_probability : How likely the check is to detect a selection.

    References
    ----------
    Komiyama, J. and Maehara, T. (2018), A simple way to deal with
    cherry-picking, arXiv:1810.04996: Def. 1 (naive p-value), eq. 4.3
    (conservative p-value, corrected to the survival function of the top-N_P
    mean), section 5.1 (gap p-value), section 5.2 (inspector's Z), section 6.1
    (t versions with the centred variance).

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=2, tasks=12, seeds=5, distribution="normal",
    ...                                heterogeneity=0.0, rng=0)
    >>> res = rlstats.selection_check(df, "score ~ agent | task", treatment="agent_2", baseline="agent_1",
    ...                               reported=["task_01", "task_02", "task_03"], rng=0)
    >>> res.n_reported, res.n_heldout, res.pvalue_method
    (3, 9, 'exact')
    """
    options = SelectionOptions.checked(
        effect=effect, inspector=inspector, reporter=reporter, mu_gap=mu_gap, n_candidates=n_candidates,
        sigma=sigma, alpha=alpha, beta=beta, higher_is_better=higher_is_better, n_resamples=n_resamples,
        na_action=na_action, bounds=bounds, progress=progress, max_seconds=max_seconds)
    # reported= may name a column of the data (kept in the Design when the data have it)
    design = design_of(data, formula, na_action=na_action, eval_env=eval_env, normalize=normalize,
                       optional_columns=(reported,) if isinstance(reported, str) else (), bounds=options.bounds)
    if not design.has_blocks:
        raise DesignError(f"the selection check compares tasks: write '{design.formula.text} | task'")
    # the agents given are checked first, worded as any option naming an agent (audit s19), then every missing option
    treatment = None if treatment is None else check_agent_named(design, "treatment", treatment)
    baseline = None if baseline is None else check_agent_named(design, "baseline", baseline)
    _check_required(design, treatment=treatment, baseline=baseline, reported=reported)
    if treatment == baseline:
        raise OptionError(f"treatment and baseline are both {treatment!r}; name two different agents")
    _check_met(design, treatment, baseline)
    empty = _levels_without_runs(data, design)
    reported_names = _resolve_reported(reported, design, empty)
    fresh = None
    heldout = as_pandas(heldout)  # a polars or pyarrow table: converted once, stated
    if isinstance(heldout, pd.DataFrame):
        try:
            fresh = design_of(heldout, design.formula, na_action=na_action, eval_env=eval_env, normalize=normalize,
                              bounds=options.bounds)
        except RlstatsError as error:  # said of the held-out frame: data may well have what it lacks (audit s23)
            said = "heldout= (the fresh held-out runs): "
            raise type(error)(said + str(error),
                              command_line=error.command_line and said + error.command_line) from None
    work = admit(cost, design, options, max_seconds, "selection_check()")  # issue 43 item 2
    with timed_bar(work, shows(work, options.progress), "selection_check"):
        return _run(design, fresh, treatment, baseline, reported_names, heldout, options, rng, empty, normalize)


def _raw_scales(design, treatment, baseline, normalize, tasks, fresh=None, fresh_tasks=()):
    """The raw-scales caution of :func:`rlstats.normalization.warn_raw_scales` (a warning, and the notes it returns)
    when the two agents' runs on ``tasks``, those the check averages over, have ranges ten times apart: the default
    effect, a difference of means, is averaged over tasks, so the large tasks decide both tests (audit s11: Atari's
    UpNDown outweighed Pong 10^4-fold).  Read on those tasks only (audit s21: the tasks where either agent ran counted
    before, 5 where the check used 2 of alike scales). With ``fresh`` held-out data, its ``fresh_tasks`` are read
    with them, as one set: the inspector pools and permutes the effects of both (audit s21: each set was read
    alone, so held-out scores 20 times the reported ones went unsaid)."""
    pair = _pair_on(design, treatment, baseline, tasks)
    other = None if fresh is None else _pair_on(fresh, treatment, baseline, fresh_tasks)
    if pair is None:
        return []  # fresh held-out data without them: _effects_of says so
    if other is not None:  # the two sets' runs as one design's tasks (the note counts and names them all)
        codes = [pair.agents.index(name) for name in other.agents]  # same two agents, perhaps in another order
        pair = dataclasses.replace(
            pair, y=np.concatenate([pair.y, other.y]), agent=np.concatenate([pair.agent, np.take(codes, other.agent)]),
            task=np.concatenate([pair.task, other.task + pair.n_tasks]), run=np.concatenate([pair.run, other.run]),
            tasks=(*pair.tasks, *other.tasks), counts=np.vstack([pair.counts, other.counts[:, np.argsort(codes)]]),
            row_position=np.concatenate([pair.row_position, other.row_position]), seeds=None, extra={},
            normalized=pair.normalized and other.normalized)
    return list(warn_raw_scales(pair, normalize, read=f"over both {plural(pair.arm_word)}' runs").notes[len(pair.notes):])


def _pair_on(design, treatment, baseline, tasks):
    """The two agents' runs on ``tasks`` (None when one of them has no runs in ``design``)."""
    if treatment not in design.agents or baseline not in design.agents:
        return None
    pair = design.select_agents([treatment, baseline])
    used = [task for task in pair.tasks if task in set(tasks)]
    return pair.select_tasks(used) if len(used) < pair.n_tasks else pair


def _split_tasks(design, fresh, treatment, baseline, reported_names, heldout, options, empty=frozenset()):
    """The per-task effects table with its sets, and the notes it produced."""
    frame = _effects_of(design, treatment, baseline, options)
    notes = []
    frame["set"] = np.where(frame["task"].isin(reported_names), "reported", "")
    _check_effects(frame[frame["set"] == "reported"], "reported", options)
    if fresh is not None:
        overlap = sorted(set(fresh.tasks) & set(reported_names))
        if overlap:
            raise DesignError(f"{plural('task', len(overlap))} {', '.join(map(repr, overlap))} "
                              f"{verb(len(overlap), 'is')} both "
                              "reported and in the held-out data; "
                              "fresh held-out tasks must be tasks the report did not show")
        held = _effects_of(fresh, treatment, baseline, options)
        notes += [f"held-out data: {n}" for n in fresh.notes]
        unusable = ~np.isfinite(held["effect"])
        notes += _nan_effect_notes(held, unusable, options)
        notes += _left_out_notes(held, unusable, options, treatment, baseline, "the held-out data")
        held["set"] = np.where(unusable, "dropped", "heldout")
        if unusable.all():
            raise DesignError("no held-out tasks: selection cannot be checked; no task of the held-out data has runs "
                              f"of both {treatment!r} and {baseline!r} with a finite effect")
        unused = frame["set"] != "reported"  # data's other tasks: the fresh frame holds the held-out set
        if unused.any():
            notes.append(f"{count(unused.sum(), 'task')} of data neither reported nor in the held-out data were not "
                         f"used: {', '.join(frame.loc[unused, 'task'])}")
        frame = frame[~unused]
        return pd.concat([frame, held], ignore_index=True), notes, "fresh"
    if heldout is None:
        rest = frame["set"] != "reported"
        unusable = rest & ~np.isfinite(frame["effect"])
        notes += _nan_effect_notes(frame, unusable, options)
        frame.loc[rest, "set"] = np.where(unusable[rest], "dropped", "heldout")
        notes += _left_out_notes(frame, unusable, options, treatment, baseline, "the held-out set")
        if not (frame["set"] == "heldout").any():
            raise DesignError("no held-out tasks: selection cannot be checked; every task with runs of both agents "
                              "is reported. Pass heldout= a DataFrame of runs on fresh tasks")
        return frame, notes, "complement"
    listed = _task_list("heldout", heldout, design, empty)
    overlap = [t for t in listed if t in reported_names]
    if overlap:
        raise OptionError(f"{plural('task', len(overlap))} {', '.join(map(repr, overlap))} "
                          f"{verb(len(overlap), 'is')} both "
                          "reported and held out; a task is "
                          "either shown in the report (reported=) or used to check it (heldout=)")
    frame.loc[frame["task"].isin(listed), "set"] = "heldout"
    _check_effects(frame[frame["set"] == "heldout"], "held-out", options)
    unused = frame["set"] == ""
    if unused.any():
        notes.append(f"{count(unused.sum(), 'task')} neither reported nor held out were not used: "
                     f"{', '.join(frame.loc[unused, 'task'])}")
    return frame[~unused].reset_index(drop=True), notes, "listed"


def _requirements(n_p, n_i, options):
    if options.reporter in ("t", "skew_t") and n_p < 2:
        raise DesignError(f"reporter=\"{options.reporter}\" needs at least 2 reported tasks, got {n_p}; with one "
                          "task pass sigma=<number> and reporter=\"z\"")
    if options.inspector == "t" and n_p + n_i < 3:
        raise DesignError(f"inspector=\"t\" needs at least 3 tasks in all, got {n_p} reported and {n_i} held out")
    if options.inspector == "welch" and min(n_p, n_i) < 2:
        raise DesignError(f"inspector=\"welch\" needs at least 2 reported and 2 held-out tasks, got {n_p} and "
                          f"{n_i}; use inspector=\"fisher_pitman\" or \"t\"")
    if options.n_candidates is not None and options.n_candidates < n_p:
        raise OptionError(f"n_candidates={options.n_candidates} is smaller than the {n_p} reported tasks; it counts "
                          "every task the reporter could have chosen from (N_A >= N_P)")


def _group_summary(v_p, v_i):
    """Mean effect of each set with Student's t interval: the reported set's one-sided ``(low, inf)``, as the
    reporter's test of a positive mean is; the held-out set's two-sided, as no test of its mean is one-sided."""
    from scipy import stats
    rows = []
    for name, v in (("reported", v_p), ("heldout", v_i)):
        n = v.size
        mean = float(v.mean())
        sd = float(v.std(ddof=1)) if n > 1 else np.nan
        se = sd / np.sqrt(n) if n > 1 else np.nan
        one_sided = name == "reported"
        half = stats.t.ppf(CONF_LEVEL if one_sided else 1 - (1 - CONF_LEVEL) / 2, n - 1) * se if n > 1 else np.nan
        half = np.nan if kernels.essentially_constant(mean, se) else half  # no interval of width 0
        high = (np.inf if np.isfinite(half) else np.nan) if one_sided else mean + half
        rows.append({"set": name, "n_tasks": n, "estimate": mean, "std_error": se,
                     "conf_low": mean - half, "conf_high": high, "interval": "t"})
    return pd.DataFrame(rows)


def _one_interval(group_summary, reporter_interval):
    """The by-set table with the reported mean's standard error and interval the reporter's, where it gives one (the
    skew-corrected t by default: the inversion of its test, whose lower end the t's overshoots on effects skewed
    towards losses), so that one mean has one interval in the printed result; ``interval`` names each row's."""
    if "conf_low" not in reporter_interval:  # the signed-rank reporter has no interval: the t's stays
        return group_summary
    out = group_summary.copy()
    row = out.index[out["set"] == "reported"][0]
    for column in ("std_error", "conf_low", "conf_high"):
        out.loc[row, column] = float(reporter_interval[column])
    out.loc[row, "interval"] = reporter_interval["pvalue_method"]
    return out


def _reporter_interval(reporter, v_p, sigma, group_summary, level=CONF_LEVEL, skewness=None,
                       skewness_source="effects"):
    """Standard error, one-sided ``level`` interval ``(low, inf)`` and p-value method of the reported mean under the
    reporter's test, whose side it takes: its lower end is above 0 exactly when the test rejects at 1 - level."""
    from scipy import stats
    if reporter == "skew_t":
        return _skew_t_interval(v_p, skewness, group_summary.iloc[0], level, skewness_source)
    if reporter == "z":
        se = sigma / np.sqrt(v_p.size)
        mean = float(v_p.mean())
        # named as the z inspector's interval is: the sd is known, not estimated (audit s13)
        return {"std_error": se, "conf_low": mean - stats.norm.ppf(level) * se, "conf_high": np.inf,
                "pvalue_method": KNOWN_SD_NORMAL}
    reported = group_summary.iloc[0]
    if reporter == "t":
        return {"std_error": reported["std_error"], "conf_low": reported["conf_low"],
                "conf_high": reported["conf_high"], "pvalue_method": "t"}
    return {"std_error": reported["std_error"], "pvalue_method": "exact or normal (scipy's choice)"}


def _skew_t_interval(v_p, skewness, reported, level, source):
    """The skew-corrected t interval, one-sided as its test: ``(low, inf)``, low the bound of the test at 1 - level
    (Hall's bound where the effects are skewed towards losses, else the t's), so above 0 exactly when it rejects."""
    from scipy import stats
    fields = {"std_error": reported["std_error"], "conf_low": reported["conf_low"],
              "conf_high": reported["conf_high"], "pvalue_method": f"t, skewness-corrected (from the {source})"}
    if not np.isfinite(reported["conf_low"]):
        return fields
    n, mean, sd = v_p.size, float(v_p.mean()), float(v_p.std(ddof=1))
    q = stats.t.ppf(level, n - 1)
    gamma = float(kernels.effect_skewness(v_p) if skewness is None else skewness)
    # the test of "greater" with min(gamma, 0) inverted: Hall's cubic, not statistics.cornish_fisher_shift (its
    # first-order term; see statistics.hall_transform); the larger of its and the t's, as the p-value is
    low = mean - sd * max(float(kernels.hall_inverse(q, min(gamma, 0.0), n)), q / np.sqrt(n))
    if source == "effects" and n < 3:  # any two values' sample skewness is 0 (audit s38 fixd38: "not negative")
        fields["pvalue_method"] = "t (two effects cannot estimate a skewness: no correction)"
    elif not gamma < 0:  # the plain t's bound: named so, as the printed skewness line says (audit s24 curves24)
        fields["pvalue_method"] = f"t (skewness from the {source} not negative: no correction)"
    return {**fields, "conf_low": low, "conf_high": np.inf}


def _sigma_of(options, pooled_sd):
    """The sd of the per-task effects used by the z tests, and where it came from (None: unknown)."""
    if options.sigma is None:
        return None, None
    sigma, source = (pooled_sd, "pooled") if options.sigma == "pooled" else (options.sigma, "given")
    if not sigma > 0:
        raise DesignError("the per-task effects have no spread, so sigma=\"pooled\" is 0; pass sigma=<number>")
    return sigma, source


def _inspect(v_p, v_i, options, sigma, ss):
    """The inspector's test of mean(reported) > mean(held-out), as result fields."""
    if options.inspector == "fisher_pitman":
        # the subsets are drawn by position: each set's effects in value order first (as resampling.canonical_order
        # lays out a cell's runs), so neither the task column's level order nor the tasks' names draw other subsets
        found = kernels.permutation_inspector(np.sort(v_p), np.sort(v_i), options.n_resamples, ss)
        return {"statistic": found.statistic, "df": None, "pvalue": found.pvalue,
                "pvalue_method": "exact" if found.exact else "monte_carlo", "pvalue_mc_se": found.mc_se,
                "n_resamples": found.n_resamples, "null_distribution": found.null_distribution,
                "permutation_shifts": found.shifts}
    statistic, df, p, diff = kernels.parametric_inspector(v_p[None], v_i[None], options.inspector, sigma)
    if not np.isfinite(diff.std_error[0]) or diff.std_error[0] == 0 or _round_off(v_p, v_i, diff.std_error[0]):
        raise DesignError(f"the per-task effects have no spread, so the {value_label('inspector', options.inspector)} "
                          "is undefined; use inspector=\"fisher_pitman\"")
    return {"statistic": float(statistic[0]), "df": None if np.isnan(df[0]) else float(df[0]), "pvalue": float(p[0]),
            "pvalue_method": "normal" if options.inspector == "z" else "t", "pvalue_mc_se": None,
            "n_resamples": None, "null_distribution": None, "permutation_shifts": None}


def _effects_tied(frame, v_p, v_i):
    """The reported and held-out effects, made one value where they all are one but for rounding: each lies within
    its own rounding (``frame``'s "tolerance", :func:`kernels.effect_tolerances`, of the pair's own scores on its
    task) of one value. R's t.test rule (10 eps times the effects' own mean) does not see the scores' magnitude
    (audit s36 meta36: a difference of 1 on every task, x 7.3 + 1e6, gave effects 7.3 +- 1e-10, read as a spread: t =
    0, p = 0.5, where the data's units refuse the t inspectors; standardised, the reporter claimed t = 6.3e11; review
    s36 rv36a: a tolerance the largest task's times 1 + max |d| read standardised effects 1e8 x (1, 1.0001, ...) as
    one value). Otherwise as given."""
    tolerance = np.concatenate([frame.loc[frame["set"] == name, "tolerance"].to_numpy(dtype=float)
                                for name in ("reported", "heldout")])
    every = np.concatenate([v_p, v_i])
    finite = np.isfinite(every)
    if not finite.any():
        return v_p, v_i
    every, tolerance = every[finite], np.nan_to_num(tolerance[finite])
    if np.max(every - tolerance) <= np.min(every + tolerance):
        return np.where(np.isfinite(v_p), every[0], v_p), np.where(np.isfinite(v_i), every[0], v_i)
    return v_p, v_i


def _round_off(v_p, v_i, std_error):
    """Whether the standard error of mean(reported) - mean(held-out) is round-off of the means (R's t.test rule:
    below 10 eps times the larger |mean|): effects that tie within each set, whose spread is no spread."""
    return bool(kernels.essentially_constant(max(abs(v_p.mean()), abs(v_i.mean())), std_error))


def _smallest_pvalue(inspector, least=0.0):
    """The permutation inspector's smallest attainable p-value (None for the parametric inspectors); ``least``, the
    exact test's (:func:`kernels.least_pvalue`), floors a Monte Carlo one's 1 / (B + 1)."""
    null = inspector["null_distribution"]
    if null is None:
        return None
    if inspector["pvalue_method"] == "exact":
        top = null.max()
        # subsets whose statistic ties the largest, to a tolerance relative to the statistics' own scale (a floor in
        # absolute units would tie every subset of scores in small units)
        return np.count_nonzero(null >= top - 1e-9 * np.abs(null).max()) / null.size
    return monte_carlo_pvalue(0, inspector["n_resamples"], least)


def _unreachable_note(inspector, beta, n_p, n_i, least=0.0):
    """The note of a permutation inspector whose smallest attainable p-value is above beta (none otherwise)."""
    smallest = _smallest_pvalue(inspector, least)
    if smallest is None or smallest <= beta:
        return []
    exact = inspector["pvalue_method"] == "exact" or least >= monte_carlo_pvalue(0, inspector["n_resamples"])
    where = f"with {n_p} reported and {count(n_i, 'held-out task')}" if exact else \
        f"with {inspector['n_resamples']} permutations"
    return [cannot_reject("permutation inspector", smallest, beta, where, level_name="beta")]


def _clipped(known, group_summary, reporter_interval, difference, notes):
    """The intervals with their ends where a mean of per-task differences of means can be (plus or minus the
    bounds' width) and a difference of two such means (twice that)."""
    width = known.width
    high = group_summary["conf_high"]  # a one-sided interval's infinite end stays so (R prints Inf): not clipped
    group_summary = clip_columns(group_summary.assign(conf_high=high.where(np.isfinite(high))), known,
                                 ("conf_low", "conf_high"), "the mean effects' intervals", "difference", notes)
    group_summary = group_summary.assign(conf_high=group_summary["conf_high"].where(np.isfinite(high), high))
    ends = [reporter_interval.get("conf_low", np.nan), reporter_interval.get("conf_high", np.nan)]
    ends, moved = _clip_finite(ends, (-width, width))
    if "conf_low" in reporter_interval:
        reporter_interval = {**reporter_interval, "conf_low": float(ends[0]), "conf_high": float(ends[1])}
    note = clipped_note(moved, "the reporter's interval", known, "difference")
    gap, moved = _clip_finite(difference["conf_int"], (-2 * width, 2 * width))
    note2 = clipped_note(moved, "the interval of reported less held-out", known, "difference",
                         limits=(-2 * width, 2 * width))
    notes += [n for n in (note, note2) if n]
    return group_summary, reporter_interval, {**difference, "conf_int": (float(gap[0]), float(gap[1]))}


def _clip_finite(ends, limits):
    """``clip`` of the finite ``ends``; an infinite end (a one-sided interval's) stays as it is."""
    ends = np.array(ends, dtype=float)
    finite = np.isfinite(ends)
    clipped, moved = clip(np.where(finite, ends, np.nan), limits)
    return np.where(finite, clipped, ends), moved


def _difference(v_p, v_i, options, sigma, shifts=None, exact=True):
    """mean(reported) - mean(held-out) with its one-sided 95 % interval ``(low, inf)``, under the inspector's
    reference distribution: one-sided as the inspector's test is, so that its lower end is above 0 exactly when the
    test rejects at 0.05 (R's ``t.test(alternative = "greater")``).

    The permutation inspector's interval inverts its own test (:func:`kernels.permutation_lower_bound`: the shifts
    of the reported effects it does not reject), so that it agrees with its p-value; its standard error is Welch's
    when both sets have 2 tasks, else the pooled one, else none.
    """
    from scipy import stats
    n_p, n_i = v_p.size, v_i.size
    kind = options.inspector
    estimate = float(v_p.mean() - v_i.mean())
    fields = {"estimate": estimate, "std_error": None, "conf_int": (np.nan, np.nan), "interval_method": None,
              "difference_df": None}
    if kind == "fisher_pitman":
        every = np.concatenate([v_p, v_i])
        if kernels.essentially_constant(every.mean(), every.std(ddof=1) / np.sqrt(every.size)):
            return fields  # effects that tie but for round-off: an interval's end would be round-off (audit s15)
        fields.update(conf_int=(kernels.permutation_lower_bound(shifts, exact, CONF_LEVEL), np.inf),
                      interval_method="permutation")
        kind = "welch" if min(n_p, n_i) >= 2 else ("t" if n_p + n_i >= 3 else None)
        if kind is None:
            return fields
        diff = kernels.difference(v_p[None], v_i[None], kind, sigma)
        se = float(diff.std_error[0])
        return {**fields, "std_error": se} if np.isfinite(se) and se > 0 and not _round_off(v_p, v_i, se) else fields
    if kind is None:
        return fields
    diff = kernels.difference(v_p[None], v_i[None], kind, sigma)
    se, df = float(diff.std_error[0]), float(diff.df[0])
    if not (np.isfinite(se) and se > 0) or (kind != "z" and _round_off(v_p, v_i, se)):
        return fields
    df = None if np.isnan(df) else df
    q = stats.norm.ppf(CONF_LEVEL) if df is None else stats.t.ppf(CONF_LEVEL, df)
    return {**fields, "std_error": se, "conf_int": (estimate - q * se, np.inf), "interval_method": kind,
            "difference_df": df}


def _reporter_tests(v_p, options, sigma, ss, skewness=None):
    """The reporter's naive, gap and conservative p-values, as result fields."""
    skew = None if skewness is None else np.array([skewness])
    statistic, df, p = (float(x[0]) for x in kernels.reporter_test(v_p[None], options.reporter, 0.0, sigma, skew))
    fields = {"reporter_statistic": statistic, "reporter_df": None if np.isnan(df) else df, "pvalue_reporter": p,
              "gap_statistic": None, "pvalue_gap": None, "pvalue_conservative": None,
              "pvalue_conservative_mc_se": None, "n_resamples_conservative": None}
    if options.mu_gap > 0:
        gap = kernels.reporter_test(v_p[None], options.reporter, options.mu_gap, sigma, skew)
        fields.update(gap_statistic=float(gap[0][0]), pvalue_gap=float(gap[2][0]))
    if options.n_candidates is not None:
        null_top = kernels.top_mean_null(v_p.size, options.n_candidates, CONSERVATIVE_RESAMPLES, ss)
        p_con, se = kernels.conservative_pvalue(null_top, v_p.mean() / sigma)
        fields.update(pvalue_conservative=float(p_con), pvalue_conservative_mc_se=float(se),
                      n_resamples_conservative=CONSERVATIVE_RESAMPLES)
    return fields


def _size_notes(frame, n_p, n_i, options):
    """The measured size of the inspector's and the reporter's tests where the table shows it above their level
    (pooled or in its worst design draw, by :func:`rlstats.calibration.misses`).

    The table (the ``selection.size`` rows of ``rlstats/calibration.csv``, written by ``tests/reference/calibrate.py``)
    holds the default effect at alpha = beta = 0.05 on a grid of (reported, held-out) tasks; a design off that grid,
    another effect or level, or more runs than the table's largest count get no note. The runs are read as the table's
    largest count at most the fewest runs of an arm in a task used (its smallest when there are fewer; the note then
    names both counts), and the highest size over score distributions is quoted.
    """
    rows = calibration.rows(SIZE_PROCEDURE)
    if options.effect != "mean_diff" or not rows:
        return []
    used = frame.loc[frame["set"].isin(["reported", "heldout"]), ["n_treatment", "n_baseline"]]
    fewest = int(used.to_numpy().min())
    measured = sorted({int(row["runs"]) for row in rows})
    if fewest > measured[-1]:
        return []
    runs = max((c for c in measured if c <= fewest), default=measured[0])
    # the count read is the table's, not always the data's: say both where they differ (audit s28: 1 run per cell
    # was quoted as "2 runs of each agent per task")
    which = "fewest measured" if runs > fewest else "nearest measured below"
    read = "" if runs == fewest else f" (the {which}; these data have {count(fewest, 'run')} of an agent in some task)"
    notes = []
    tests = (("inspector", options.inspector, options.beta, "beta"),
             ("reporter", options.reporter, options.alpha, "alpha"))
    for statistic, test, level, name in tests:
        if not np.isclose(level, 0.05):
            continue
        row = calibration.shortfall(rows, 0.95, statistic=statistic, test=test, tasks=n_p + n_i, runs=runs,
                                    configuration=f"{n_p} reported")
        if row is not None:
            notes.append(f"measured size of the {statistic}'s {value_label(statistic, test)} with {n_p} reported and "
                         f"{n_i} held-out tasks and {count(runs, 'run')} of each agent per task{read}: "
                         f"{1 - float(row['coverage']):.3f}"
                         f"{calibration.worst_draw_clause(row, size=True)} ({row['distribution']} scores, "
                         f"{row['n_sim']} null data sets), "
                         f"{calibration.miss_clause(row, 0.95, size=True, target=f'{name} = 0.05')}")
    return notes


def _two_effects_note(n_p, source, options):
    """The note of the skew-corrected reporter at 2 reported tasks whose skewness would come from the effects: the
    sample skewness of two values is 0 whatever they are, so it is the plain t, which assumes the effects are not
    skewed (audit s38 fixd38: "skewness 0, estimated from the reported effects" was printed); the size the
    ``selection.size`` rows measured at 2 reported tasks and 2 runs (where the skewness comes from the effects too)
    is quoted. None elsewhere: with the runs' skewness (3 runs of each agent), or 3 or more effects."""
    if options.reporter != "skew_t" or source != "effects" or n_p != 2:
        return None
    note = (f"the reporter's {value_label('reporter', options.reporter)} is the plain t with 2 reported tasks: two "
            "effects cannot estimate a skewness (the runs' can, with effect=\"mean_diff\" and 3 runs of each agent "
            "on a reported task), and the t assumes the effects are not skewed")
    rows = [row for row in calibration.rows(SIZE_PROCEDURE)
            if (row["statistic"], row["test"], row["configuration"], row["runs"]) ==
            ("reporter", options.reporter, "2 reported", "2")]
    if not rows:
        return note
    sizes = [1 - float(row["coverage"]) for row in rows]
    simulated = sorted({int(row["n_sim"]) for row in rows})
    each = (f"{integer(simulated[0])} null data sets each" if len(simulated) == 1 else
            f"{integer(simulated[0])} to {integer(simulated[-1])} null data sets")
    shapes = list(dict.fromkeys(row["distribution"] for row in rows))  # the table's order
    skewed = "; skewed: a mirrored lognormal, rare large losses" if "skewed" in shapes else ""
    shapes = join_and(shape.replace("_", "-") for shape in shapes)
    tasks = join_and(sorted({row["tasks"] for row in rows}, key=int), conjunction="or")
    return (f"{note}; simulated with 2 reported of {tasks} tasks and 2 runs of each agent per task (where it is the "
            f"plain t too), its size at 0.05 was {min(sizes):.3f} to {max(sizes):.3f} over {shapes} scores "
            f"({each}{skewed})")


def _reported_skewness(frame, v_p):
    """The skewness of the reported effects for the skew-corrected reporter (:func:`kernels.effect_skewness`) and
    where it came from: the runs where the effect is ``mean_diff`` and a reported task has 3 runs of each agent,
    else the effects themselves."""
    reported = frame[frame["set"] == "reported"]
    if "k2" in frame and np.isfinite(reported["k3"]).any():
        return float(kernels.effect_skewness(v_p, reported["k2"].to_numpy(dtype=float),
                                             reported["k3"].to_numpy(dtype=float))), "runs"
    return float(kernels.effect_skewness(v_p)), "effects"


def _verdict(reporter, inspector, options, least=0.0):
    """Spec section 3: a claim (gap test when mu_gap > 0, else naive) that the inspector does or does not flag; a
    claim the inspector could not have flagged at this design (its smallest attainable p-value above beta) is
    untestable here, not a survival (audit s8)."""
    claim_p = reporter["pvalue_gap"] if reporter["pvalue_gap"] is not None else reporter["pvalue_reporter"]
    if not claim_p <= options.alpha:  # NaN (undefined test) counts as no claim
        return "no_claim"
    if inspector["pvalue"] <= options.beta:
        return "selection_bias"
    smallest = _smallest_pvalue(inspector, least)
    return "untestable" if smallest is not None and smallest > options.beta else "survives"


def _run(design, fresh, treatment, baseline, reported_names, heldout, options, rng, empty=frozenset(), normalize=None):
    frame, notes, heldout_design = _split_tasks(design, fresh, treatment, baseline, reported_names, heldout, options,
                                                empty)
    if isinstance(options.effect, str) and options.effect == "mean_diff":
        # the caution of raw scales, on the tasks whose effects are averaged (each design's own)
        reported = frame.loc[frame["set"] == "reported", "task"]
        held = frame.loc[frame["set"] == "heldout", "task"]
        if fresh is None:
            design = dataclasses.replace(design, notes=(*design.notes, *_raw_scales(
                design, treatment, baseline, normalize, pd.concat([reported, held]))))
        else:  # the two sets' tasks as one: their effects are compared on one scale
            design = dataclasses.replace(design, notes=(*design.notes, *_raw_scales(
                design, treatment, baseline, normalize, reported, fresh, held)))
    if isinstance(options.effect, str) and options.effect == "poi":  # its ranks tie noise-level differences
        pair = design.select_agents([treatment, baseline])
        snapped, n_near = near_ties(pair.y, pair.task)
        near_tasks = [pair.tasks[t] for t in near_tied_blocks(pair.y, snapped, pair.task)]
        notes += [note for note in (near_tie_note(n_near, tasks=near_tasks),) if note]
    v_p = frame.loc[frame["set"] == "reported", "effect"].to_numpy(dtype=float)
    v_i = frame.loc[frame["set"] == "heldout", "effect"].to_numpy(dtype=float)
    if isinstance(options.effect, str) and options.effect in ("mean_diff", "std_diff"):
        v_p, v_i = _effects_tied(frame, v_p, v_i)
    skewness, skewness_source = _reported_skewness(frame, v_p)
    n_p, n_i = v_p.size, v_i.size
    _requirements(n_p, n_i, options)
    every = np.concatenate([v_p, v_i])
    pooled_sd = float(every.std(ddof=1))
    if kernels.essentially_constant(every.mean(), pooled_sd / np.sqrt(every.size)):
        pooled_sd = 0.0  # effects that tie but for round-off have no spread (the reporter's t's rule, R's t.test)
    sigma, sigma_source = _sigma_of(options, pooled_sd)

    # Two independent streams: the inspector's permutations and the conservative null.
    random_needed = options.n_candidates is not None or (
        options.inspector == "fisher_pitman" and not kernels.is_exact(n_p + n_i, n_p, options.n_resamples))
    if random_needed:
        ss, seed = seed_sequence(rng)
    else:  # nothing drawn, no seed recorded (``check_rng(rng) and None`` recorded rng=0 as the seed, audit s21)
        check_rng(rng)
        ss, seed = np.random.SeedSequence(0), None
    permutation_ss, conservative_ss = ss.spawn(2)
    inspector = _inspect(v_p, v_i, options, sigma, permutation_ss)
    least = kernels.least_pvalue(np.concatenate([v_p, v_i]), n_p)  # the exact inspector's (audit s21)
    notes += _unreachable_note(inspector, options.beta, n_p, n_i, least)
    notes += _size_notes(frame, n_p, n_i, options)
    notes += [note for note in (_two_effects_note(n_p, skewness_source, options),) if note]
    reporter = _reporter_tests(v_p, options, sigma, conservative_ss, skewness)
    if not np.isfinite(reporter["pvalue_reporter"]):
        notes.append(f"the reporter's {value_label('reporter', options.reporter)} is undefined (the reported effects "
                     "have no spread or are all zero), so no claim is counted")
    if heldout_design == "complement" and options.inspector != "fisher_pitman":
        notes.append(f"the held-out tasks are the rest of the same suite, not an independent sample; the "
                     f"{value_label('inspector', options.inspector)} is approximate there, the permutation inspector "
                     "is exact for 'the reported tasks are a random subset'")

    detection_sigma = sigma if sigma is not None else (pooled_sd if pooled_sd > 0 else None)
    detection = None if detection_sigma is None else float(
        kernels.detection_probability(v_p.mean() / detection_sigma, n_p, n_i, options.beta))
    data_name = (f"{design.formula.response} by {design.formula.groups} ({treatment} vs {baseline}) | "
                 f"{design.formula.blocks}; {n_p} reported, {count(n_i, 'held-out task')}"
                 + (" (fresh runs)" if heldout_design == "fresh" else ""))
    used = frame["set"].isin(["reported", "heldout"])
    # the data's notes said of the tasks compared here (audit s25 polish25: the min-max bounds of a task left out of
    # the held-out set were said); fresh held-out tasks are another design's, whose notes are said apart
    ours = frame["set"].eq("reported") | (frame["set"].eq("heldout") & (heldout_design != "fresh"))
    compared = set(frame.loc[ours, "task"])
    if len(compared) < design.n_tasks:
        design = design.select_tasks([task for task in design.tasks if task in compared])
    group_summary = _group_summary(v_p, v_i)
    difference = _difference(v_p, v_i, options, sigma, inspector["permutation_shifts"],
                             inspector["pvalue_method"] == "exact")
    reporter_interval = _reporter_interval(options.reporter, v_p, sigma, group_summary, skewness=skewness,
                                           skewness_source=skewness_source)
    group_summary = _one_interval(group_summary, reporter_interval)
    if design.bounds is not None and options.effect == "mean_diff":  # the other effects are not on the score's scale
        group_summary, reporter_interval, difference = _clipped(design.bounds, group_summary, reporter_interval,
                                                                difference, notes)
    return SelectionCheckResult(
        method=METHOD_TITLE, formula=design.formula, data_name=data_name,
        nobs=int(frame.loc[used, ["n_treatment", "n_baseline"]].to_numpy().sum()),
        notes=tuple(design.notes) + tuple(notes),
        options={**asdict(options), "effect": options.effect_name, "n_resamples_conservative": CONSERVATIVE_RESAMPLES},
        seed=seed, inspector=options.inspector, **inspector, **difference,
        reporter_skewness=skewness if options.reporter == "skew_t" else None,
        reporter_skewness_source=skewness_source if options.reporter == "skew_t" else None,
        reporter=options.reporter, **reporter, n_candidates=options.n_candidates, mu_gap=options.mu_gap,
        sigma=sigma, sigma_source=sigma_source, detection_probability=detection, detection_sigma=detection_sigma,
        treatment=treatment, baseline=baseline, effect_measure=options.effect_name,
        higher_is_better=options.higher_is_better, units=design.units,
        effects=frame[["task", "set", "effect", "n_treatment", "n_baseline"]].reset_index(drop=True),
        group_summary=group_summary, reported_tasks=tuple(frame.loc[frame["set"] == "reported", "task"]),
        heldout_tasks=tuple(frame.loc[frame["set"] == "heldout", "task"]), heldout_design=heldout_design,
        mean_reported=float(v_p.mean()), mean_heldout=float(v_i.mean()), alpha=options.alpha, beta=options.beta,
        verdict=_verdict(reporter, inspector, options, least),
        reporter_interval=reporter_interval, conf_level=CONF_LEVEL)
