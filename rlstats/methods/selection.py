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
  ``res.pvalue`` says the reported tasks are not representative.

The null of the inspector matches the held-out design (spec section 7.3):
for held-out tasks from the same suite the permutation test over task labels
is exact for "the reported tasks are a uniformly random subset"; for fresh
tasks the paper's z and pooled t tests apply directly (and so does the
permutation test).

:func:`simulate` reproduces the paper's synthetic experiments (its Fig. 2
and Theorem 1) and doubles as a test oracle; :func:`detection_probability`
and :func:`required_heldout` plan how many held-out tasks an inspector needs.
The numerics live in :mod:`rlstats.methods._selection_kernels`.
"""

from __future__ import annotations

import difflib
import numbers
import textwrap
from dataclasses import asdict, dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
from scipy import stats

from .. import format as fmt
from .. import plots_selection
from ..design import Design, build, design_of
from ..errors import DesignError, OptionError
from ..options import check_bool, check_choice, check_fraction, check_int
from ..resampling import seed_sequence
from ..results import Result, resultclass
from . import _selection_kernels as kernels

__all__ = ["selection_check", "SelectionCheckResult", "simulate", "SelectionSimulation",
           "detection_probability", "required_heldout", "conservative_pvalue", "top_mean_null"]

EFFECT_MEASURES = tuple(kernels.EFFECTS)
INSPECTORS = ("permutation", "t", "welch", "z")
REPORTERS = tuple(kernels.REPORTERS)
CONSERVATIVE_RESAMPLES = kernels.CONSERVATIVE_RESAMPLES

METHOD_TITLE = "Post-reporting selection check (Komiyama and Maehara, 2018)"
_INSPECTOR_NAMES = {"permutation": "permutation test over task labels", "t": "pooled two-sample t test",
                    "welch": "Welch two-sample t test", "z": "two-sample z test with known sd"}
_INTERVAL_NAMES = {"welch": "Welch t", "t": "pooled t", "z": "normal, known sd"}
_REPORTER_NAMES = {"t": "one-sample t test", "z": "one-sample z test with known sd",
                   "wilcoxon": "Wilcoxon signed-rank test"}
_STATISTIC_SYMBOL = {"t": "t", "welch": "t", "z": "z", "wilcoxon": "V"}
VERDICTS = {
    "survives": "significant on reported tasks, and they are representative of the held-out tasks -- "
                "the claim survives verification",
    "selection_bias": "significant on reported tasks, but reported tasks are not representative -- "
                      "selection bias suspected",
    "no_claim": "not significant on reported tasks -- nothing is claimed; the inspector's result is "
                "informational",
}


# =========================================================================== options

@dataclass(frozen=True)
class SelectionOptions:
    effect: object = "mean_diff"
    inspector: str = "permutation"
    reporter: str = "t"
    mu_gap: float = 0.0
    n_candidates: int | None = None
    sigma: object = None
    alpha: float = 0.05
    beta: float = 0.05
    higher_is_better: bool = True
    n_resamples: int = 9_999
    na_action: str = "raise"

    @classmethod
    def checked(cls, **options):
        """Validate every option once; raises OptionError naming the bad one."""
        effect = options["effect"]
        if not callable(effect):
            effect = check_choice("effect", effect, EFFECT_MEASURES)
        mu_gap = options["mu_gap"]
        if isinstance(mu_gap, bool) or not isinstance(mu_gap, numbers.Real) or not np.isfinite(mu_gap):
            raise OptionError(f"mu_gap must be a finite number >= 0, got {mu_gap!r}")
        if mu_gap < 0:
            raise OptionError(f"mu_gap must be >= 0 (the minimum improvement a claim must exceed, in the units "
                              f"of the per-task effect), got {mu_gap}; use 0 for the naive test")
        n_candidates = options["n_candidates"]
        if n_candidates is not None:
            n_candidates = check_int("n_candidates", n_candidates, minimum=1)
        sigma = _checked_sigma(options["sigma"])
        inspector = check_choice("inspector", options["inspector"], INSPECTORS)
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
                   n_resamples=check_int("n_resamples", options["n_resamples"], minimum=1),
                   na_action=options["na_action"])

    @property
    def effect_name(self):
        return self.effect if isinstance(self.effect, str) else getattr(self.effect, "__name__", "callable")


def _checked_sigma(sigma):
    if sigma is None or (isinstance(sigma, str) and sigma == "pooled"):
        return sigma
    if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real) or not np.isfinite(sigma) or sigma <= 0:
        raise OptionError(f"sigma must be None (unknown sd), \"pooled\" or a positive number (the known sd of "
                          f"the per-task effects), got {sigma!r}")
    return float(sigma)


# =========================================================================== result

@resultclass
class SelectionCheckResult(Result):
    """Result of :func:`selection_check`.

    Attributes
    ----------
    pvalue : float
        The inspector's one-sided p-value: small when the reported tasks have
        a larger mean effect than the held-out tasks (not representative).
    statistic : float
        The inspector's statistic: z or t for the parametric inspectors, the
        difference of means for the permutation test.
    df : float or None
        Degrees of freedom of the inspector's t reference distribution.
    inspector : str
        ``"permutation"``, ``"t"`` (pooled), ``"welch"`` or ``"z"``.
    pvalue_method : str
        ``"exact"`` (every subset enumerated), ``"monte_carlo"``, ``"t"`` or ``"normal"``.
    pvalue_mc_se : float or None
        Monte Carlo standard error of ``pvalue``.
    n_resamples : int or None
        Random subsets drawn, or subsets enumerated when exact.
    null_distribution : ndarray or None
        Permutation null of ``mean(reported) - mean(held-out)``.
    estimate, std_error : float
        ``mean(reported) - mean(held-out)`` of the per-task effects and its
        standard error under ``interval_method``.
    conf_int : tuple of float
        95 % interval of the difference; see :meth:`confidence_interval`.
    interval_method : str or None
        ``"welch"``, ``"t"`` (pooled) or ``"z"``; None when undefined.
    difference_df : float or None
        Degrees of freedom of that interval (None: normal).
    reporter : str
        ``"t"``, ``"z"`` or ``"wilcoxon"``.
    reporter_statistic, reporter_df : float
        The reporter's naive test of ``mean(reported) > 0``.
    pvalue_reporter : float
        Its naive p-value (paper Def. 1, or section 6.1 for t).
    pvalue_gap, gap_statistic : float or None
        The test of ``mean(reported) > mu_gap`` (section 5.1), when ``mu_gap > 0``.
    pvalue_conservative, pvalue_conservative_mc_se : float or None
        Survival function of the mean of the top N_P of ``n_candidates`` null
        tasks at the standardised reported mean (section 4, eq. 4.3
        corrected), with its Monte Carlo standard error.
    n_candidates, mu_gap, sigma : the inputs (sigma: the sd used, None for unknown)
    sigma_source : str or None
        ``"given"`` or ``"pooled"`` (sd over reported and held-out tasks).
    detection_probability : float or None
        Chance that the z inspector with ``n_heldout`` fresh tasks flags this
        report if the true mean effect were 0 (spec section 2.5).
    detection_sigma : float or None
        The sd that converts effects to the units of that formula.
    treatment, baseline : str
    effect_measure : str
        ``"mean_diff"``, ``"std_diff"``, ``"poi"`` or the callable's name.
    higher_is_better : bool
    effects : DataFrame
        One row per task: task, set (``"reported"``, ``"heldout"`` or
        ``"dropped"``), effect, n_treatment, n_baseline.
    group_summary : DataFrame
        Mean effect of each set with its t interval.
    reported_tasks, heldout_tasks : tuple of str
    heldout_design : str
        ``"complement"`` (every other task), ``"listed"`` or ``"fresh"``.
    mean_reported, mean_heldout : float
    alpha, beta : float
        Levels of the reporter's and of the inspector's tests.
    verdict : str
        ``"survives"``, ``"selection_bias"`` or ``"no_claim"`` (spec section 3).
    """

    statistic: float
    df: float | None
    pvalue: float
    inspector: str
    pvalue_method: str
    pvalue_mc_se: float | None
    n_resamples: int | None
    null_distribution: np.ndarray | None
    estimate: float
    std_error: float | None
    conf_int: tuple
    interval_method: str | None
    difference_df: float | None
    reporter: str
    reporter_statistic: float
    reporter_df: float | None
    pvalue_reporter: float
    gap_statistic: float | None
    pvalue_gap: float | None
    pvalue_conservative: float | None
    pvalue_conservative_mc_se: float | None
    n_resamples_conservative: int | None
    n_candidates: int | None
    mu_gap: float
    sigma: float | None
    sigma_source: str | None
    detection_probability: float | None
    detection_sigma: float | None
    treatment: str
    baseline: str
    effect_measure: str
    higher_is_better: bool
    effects: pd.DataFrame
    group_summary: pd.DataFrame
    reported_tasks: tuple
    heldout_tasks: tuple
    heldout_design: str
    mean_reported: float
    mean_heldout: float
    alpha: float
    beta: float
    verdict: str

    _plot_kinds: ClassVar[dict] = {
        "effects": plots_selection.plot_effects,
        "null_distribution": plots_selection.plot_null_distribution,
    }

    @property
    def n_reported(self):
        return len(self.reported_tasks)

    @property
    def n_heldout(self):
        return len(self.heldout_tasks)

    @property
    def verdict_text(self):
        """The verdict as a sentence."""
        return VERDICTS[self.verdict]

    @property
    def claim_pvalue(self):
        """The reporter's p-value that decides the claim: the gap test when ``mu_gap > 0``, else the naive one."""
        return self.pvalue_gap if self.pvalue_gap is not None else self.pvalue_reporter

    def confidence_interval(self, confidence_level=0.95):
        """Two-sided interval of ``mean(reported) - mean(held-out)`` under ``interval_method``."""
        level = check_fraction("confidence_level", confidence_level)
        if self.std_error is None:
            return (np.nan, np.nan)
        upper = 1 - (1 - level) / 2
        quantile = stats.norm.ppf(upper) if self.difference_df is None else stats.t.ppf(upper, self.difference_df)
        return (self.estimate - quantile * self.std_error, self.estimate + quantile * self.std_error)

    def required_heldout(self, power=0.95, mu0=0.0):
        """Fewest fresh held-out tasks for the z inspector to flag this report with probability ``power``.

        Uses :func:`required_heldout` with this report's standardised mean
        (``mean_reported / detection_sigma``), N_P and beta; ``mu0`` is the
        hypothesised true mean effect in the units of the effect.  None when
        no number of tasks reaches ``power`` (the report is too weak to flag).
        """
        if self.detection_sigma is None:
            raise OptionError("no sd of the per-task effects is available to plan with (fewer than 2 tasks "
                              "or zero spread); rerun with sigma=<number>")
        return required_heldout(self.mean_reported / self.detection_sigma, self.n_reported, beta=self.beta,
                                power=power, mu0=mu0 / self.detection_sigma)

    # ---- printing ----------------------------------------------------------------------
    def _statistic_line(self):
        if self.inspector == "permutation":
            return (f"inspector ({_INSPECTOR_NAMES['permutation']}): mean(reported) - mean(held-out) = "
                    f"{fmt.signif(self.estimate)}, {fmt.pvalue_phrase(self.pvalue)}")
        df = "" if self.df is None else f", df = {fmt.signif(self.df)}"
        return (f"inspector ({_INSPECTOR_NAMES[self.inspector]}): {_STATISTIC_SYMBOL[self.inspector]} = "
                f"{fmt.signif(self.statistic)}{df}, {fmt.pvalue_phrase(self.pvalue)}")

    def _extra_lines(self):
        lines = ["alternative hypothesis: reported tasks have a larger mean effect than held-out tasks"]
        if self.inspector == "permutation":
            how = (f"exact, all {self.n_resamples} subsets" if self.pvalue_method == "exact" else
                   f"{self.n_resamples} random subsets, Monte Carlo SE {fmt.signif(self.pvalue_mc_se, 2)}")
            if self.heldout_design == "fresh":
                lines.append(f"null: the reported and the fresh tasks' effects are exchangeable ({how})")
            else:
                lines.append(f"null: the {self.n_reported} reported tasks are a uniformly random subset of the "
                             f"{self.n_reported + self.n_heldout} tasks ({how})")
        lines.append(f"mean effect ({self.effect_measure}, {self.treatment} vs {self.baseline}): reported "
                     f"{fmt.signif(self.mean_reported)}, held-out {fmt.signif(self.mean_heldout)}, difference "
                     f"{fmt.signif(self.estimate)}")
        if self.interval_method is not None:
            low, high = self.conf_int
            lines.append(f"95 percent confidence interval of the difference ({_INTERVAL_NAMES[self.interval_method]}): "
                         f"{fmt.signif(low)} {fmt.signif(high)}")
        lines.append(self._reporter_line())
        if self.pvalue_gap is not None:
            lines.append(f"reporter with minimum improvement mu_gap = {fmt.signif(self.mu_gap)}: "
                         f"{_STATISTIC_SYMBOL[self.reporter]} = {fmt.signif(self.gap_statistic)}, "
                         f"{fmt.pvalue_phrase(self.pvalue_gap)}")
        if self.pvalue_conservative is not None:
            lines.append(f"conservative (best {self.n_reported} of {self.n_candidates} candidate tasks, sd "
                         f"{fmt.signif(self.sigma)}): {fmt.pvalue_phrase(self.pvalue_conservative)} "
                         f"(Monte Carlo SE {fmt.signif(self.pvalue_conservative_mc_se, 2)})")
        if self.detection_probability is not None:
            lines.append(f"detection probability with {self.n_heldout} fresh tasks if the true mean effect were 0: "
                         f"{fmt.signif(self.detection_probability, 3)} (z inspector, sd of the effects "
                         f"{fmt.signif(self.detection_sigma, 4)}{'' if self.sigma_source == 'given' else ', pooled'})")
        verdict = f"verdict (alpha = {self.alpha}, beta = {self.beta}): {self.verdict_text}"
        lines += textwrap.wrap(verdict, width=100, subsequent_indent="  ")
        return lines

    def _reporter_line(self):
        symbol = _STATISTIC_SYMBOL[self.reporter]
        df = "" if self.reporter_df is None else f", df = {fmt.signif(self.reporter_df)}"
        return (f"reporter ({_REPORTER_NAMES[self.reporter]}): mean effect = {fmt.signif(self.mean_reported)}, "
                f"{symbol} = {fmt.signif(self.reporter_statistic)}{df}, {fmt.pvalue_phrase(self.pvalue_reporter)}")

    def _summary_tables(self):
        order = {"reported": 0, "heldout": 1, "dropped": 2}
        effects = self.effects.assign(_set=self.effects["set"].map(order))
        effects = effects.sort_values(["_set", "effect"], ascending=[True, False], kind="stable")
        return {"Per-task effects": effects.drop(columns="_set").reset_index(drop=True),
                "Mean effect by set": self.group_summary,
                "Tests": self.tidy()}

    # ---- tidy output ---------------------------------------------------------------------
    def tidy(self):
        """One row per test: the inspector, the reporter's naive test, and the gap and conservative tests when run."""
        low, high = self.conf_int
        rows = [{"term": "inspector", "estimate": self.estimate, "std_error": self.std_error,
                 "statistic": self.statistic, "df": self.df, "p_value": self.pvalue, "conf_low": low,
                 "conf_high": high, "null_value": 0.0, "method": _INSPECTOR_NAMES[self.inspector],
                 "pvalue_method": self.pvalue_method, "pvalue_mc_se": self.pvalue_mc_se,
                 "n_resamples": self.n_resamples, "significant": bool(self.pvalue <= self.beta)}]
        reporter_row = {"estimate": self.mean_reported, "df": self.reporter_df,
                        "method": _REPORTER_NAMES[self.reporter], **self._reporter_interval()}
        rows.append({"term": "reporter", **reporter_row, "statistic": self.reporter_statistic,
                     "p_value": self.pvalue_reporter, "null_value": 0.0,
                     "significant": bool(self.pvalue_reporter <= self.alpha)})
        if self.pvalue_gap is not None:
            rows.append({"term": "reporter_gap", **reporter_row, "statistic": self.gap_statistic,
                         "p_value": self.pvalue_gap, "null_value": self.mu_gap,
                         "significant": bool(self.pvalue_gap <= self.alpha)})
        if self.pvalue_conservative is not None:
            rows.append({"term": "reporter_conservative", "estimate": self.mean_reported,
                         "statistic": self.mean_reported / self.sigma, "p_value": self.pvalue_conservative,
                         "method": f"conservative (best {self.n_reported} of {self.n_candidates})",
                         "pvalue_method": "monte_carlo", "pvalue_mc_se": self.pvalue_conservative_mc_se,
                         "n_resamples": self.n_resamples_conservative,
                         "significant": bool(self.pvalue_conservative <= self.alpha)})
        columns = ["term", "estimate", "std_error", "statistic", "df", "p_value", "conf_low", "conf_high",
                   "null_value", "method", "pvalue_method", "pvalue_mc_se", "n_resamples", "significant"]
        out = pd.DataFrame(rows).reindex(columns=columns)
        out["conf_level"] = 0.95
        out["alternative"] = "greater"
        for column in ("estimate", "std_error", "statistic", "df", "p_value", "conf_low", "conf_high",
                       "null_value", "pvalue_mc_se"):
            out[column] = pd.to_numeric(out[column]).astype(float)
        return out

    def _reporter_interval(self):
        """Standard error, 95 % interval and p-value method of the reported mean under the reporter's test."""
        if self.reporter == "z":
            se = self.sigma / np.sqrt(self.n_reported)
            half = stats.norm.ppf(0.975) * se
            return {"std_error": se, "conf_low": self.mean_reported - half, "conf_high": self.mean_reported + half,
                    "pvalue_method": "normal"}
        reported = self.group_summary.iloc[0]
        if self.reporter == "t":
            return {"std_error": reported["std_error"], "conf_low": reported["conf_low"],
                    "conf_high": reported["conf_high"], "pvalue_method": "t"}
        return {"std_error": reported["std_error"], "pvalue_method": "exact or normal (scipy's choice)"}

    def glance(self):
        """The check in one row: the inspector's test, the reporter's p-values, the verdict."""
        return pd.DataFrame([{
            "method": self.method, "verdict": self.verdict, "inspector": self.inspector, "reporter": self.reporter,
            "estimate": self.estimate, "statistic": self.statistic, "df": self.df, "p_value": self.pvalue,
            "pvalue_method": self.pvalue_method, "n_resamples": self.n_resamples, "pvalue_mc_se": self.pvalue_mc_se,
            "p_value_reporter": self.pvalue_reporter, "p_value_gap": self.pvalue_gap,
            "p_value_conservative": self.pvalue_conservative, "mean_reported": self.mean_reported,
            "mean_heldout": self.mean_heldout, "n_reported": self.n_reported, "n_heldout": self.n_heldout,
            "n_candidates": self.n_candidates, "mu_gap": self.mu_gap, "alpha": self.alpha, "beta": self.beta,
            "detection_probability": self.detection_probability, "heldout_design": self.heldout_design,
            "effect_measure": self.effect_measure, "n_obs": self.nobs,
        }])

    def report(self):
        """A methods-section paragraph describing the check and its outcome."""
        effect = {"mean_diff": "the difference of the agents' mean scores",
                  "std_diff": "the difference of the agents' mean scores over the pooled within-task sd",
                  "poi": "the probability of improvement minus 0.5 (Mann-Whitney U over all run pairs)"}
        measure = effect.get(self.effect_measure, f"the user-supplied effect '{self.effect_measure}'")
        design = {"complement": "all other tasks of the suite", "listed": "the listed held-out tasks",
                  "fresh": "fresh tasks run separately"}[self.heldout_design]
        flipped = "" if self.higher_is_better else " with the sign flipped so that positive means better"
        text = (f"We checked whether the {self.n_reported} tasks on which {self.treatment} was reported against "
                f"{self.baseline} are representative (Komiyama and Maehara, 2018). Each task's effect is "
                f"{measure}, computed from its runs{flipped}; "
                f"the mean effect is {fmt.signif(self.mean_reported, 4)} on the reported tasks and "
                f"{fmt.signif(self.mean_heldout, 4)} on {self.n_heldout} held-out tasks ({design}).")
        p_inspector = _p_text(self.pvalue)
        if self.inspector == "permutation":
            how = ("enumerating every subset" if self.pvalue_method == "exact"
                   else f"from {self.n_resamples} random subsets")
            text += (f" A one-sided permutation test of the hypothesis that the reported tasks are a uniformly random "
                     f"subset of all {self.n_reported + self.n_heldout} tasks, on the difference of means, gave "
                     f"{p_inspector} ({how}).")
        else:
            df = "" if self.df is None else f", df = {fmt.signif(self.df, 4)}"
            text += (f" A one-sided {_INSPECTOR_NAMES[self.inspector]} of equal means gave "
                     f"{_STATISTIC_SYMBOL[self.inspector]} = {fmt.signif(self.statistic, 4)}{df}, {p_inspector}.")
        text += (f" The reporter's {_REPORTER_NAMES[self.reporter]} of a positive mean effect on the reported tasks "
                 f"gives {_p_text(self.pvalue_reporter)}")
        if self.pvalue_gap is not None:
            text += f", and {_p_text(self.pvalue_gap)} against a minimum improvement of {fmt.signif(self.mu_gap, 4)}"
        if self.pvalue_conservative is not None:
            text += (f"; the conservative p-value, which assumes the best {self.n_reported} of {self.n_candidates} "
                     f"candidate tasks were reported, is {fmt.signif(self.pvalue_conservative, 3)}")
        text += f". Verdict at alpha = {self.alpha} (reporter) and beta = {self.beta} (inspector): {self.verdict_text}."
        if self.notes:
            text += " " + " ".join(n[0].upper() + n[1:] + ("" if n.endswith(".") else ".") for n in self.notes)
        return text


def _p_text(p):
    text = fmt.format_pvalue(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


# =========================================================================== resolving the sets of tasks

def _suggest(name, labels):
    close = difflib.get_close_matches(str(name), [str(x) for x in labels], n=3)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


def _check_agent(role, name, design):
    if name is None:
        what = "new agent" if role == "treatment" else "agent it is compared with"
        raise OptionError(f"{role}= is required: name the {what}, one of {', '.join(map(repr, design.agents))}")
    if str(name) not in design.agents:
        raise OptionError(f"{role}={name!r} is not an agent in column '{design.formula.groups}'"
                          f"{_suggest(name, design.agents)}; agents: {', '.join(map(repr, design.agents))}")
    return str(name)


def _task_list(role, names, design):
    """Validate a list of task names given as ``reported=`` or ``heldout=``; returns them as strings."""
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise OptionError(f"{role}= must be a list of task names, got {names!r}")
    names = [str(n) for n in names]
    if not names:
        raise OptionError(f"{role}= is empty; name at least one task")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise OptionError(f"{role}= names task(s) more than once: {', '.join(map(repr, repeated))}")
    unknown = [n for n in names if n not in design.tasks and n not in design.dropped_tasks]
    if unknown:
        hints = "; ".join(f"{n!r}{_suggest(n, design.tasks)}" for n in unknown)
        raise OptionError(f"{role}= names {len(unknown)} unknown task(s) in column '{design.formula.blocks}': "
                          f"{hints}")
    kept_out = [n for n in names if n in design.dropped_tasks]
    if kept_out:
        raise DesignError(f"{role}= names task(s) where fewer than two agents have runs: "
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
        raise DesignError(f"reported column '{column}' changes within task(s) "
                          f"{', '.join(repr(design.tasks[t]) for t in mixed[:5])}; it must mark whole tasks")
    return [design.tasks[t] for t in flags.index[flags["max"]]]


def _resolve_reported(reported, design):
    if reported is None:
        raise OptionError("reported= is required: the list of tasks shown in the paper, or the name of a boolean "
                          "column marking them")
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
    return _task_list("reported", reported, design)


# =========================================================================== per-task effects

def _effects_of(design, treatment, baseline, options):
    """Per-task effects of a design (NaN where an arm has no run) with both arms' run counts."""
    if treatment not in design.agents or baseline not in design.agents:
        missing = [a for a in (treatment, baseline) if a not in design.agents]
        raise DesignError(f"the held-out data have no runs of {', '.join(map(repr, missing))}")
    pair = design.select_agents([treatment, baseline])
    is_treatment = pair.agent == 0
    measure = _one_number(options.effect) if callable(options.effect) else options.effect
    effects, counts = kernels.task_effects(pair.y, pair.task, is_treatment, pair.n_tasks, measure)
    sign = 1.0 if options.higher_is_better else -1.0
    effects = sign * np.asarray(effects, dtype=float)
    frame = pd.DataFrame({"task": list(pair.tasks), "effect": effects, "n_treatment": counts[:, 0],
                          "n_baseline": counts[:, 1]})
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


def _check_effects(frame, where, options):
    """Explicitly named tasks must give a finite effect; say why not."""
    no_runs = frame[(frame["n_treatment"] == 0) | (frame["n_baseline"] == 0)]
    if len(no_runs):
        raise DesignError(f"{where} task(s) {', '.join(map(repr, no_runs['task']))} lack runs of the treatment or "
                          "the baseline, so their effect cannot be computed")
    if options.effect == "std_diff":
        few = frame[(frame["n_treatment"] < 2) | (frame["n_baseline"] < 2)]
        if len(few):
            raise DesignError(f"effect=\"std_diff\" needs at least 2 runs of each agent per task; {where} task(s) "
                              f"{', '.join(map(repr, few['task']))} have fewer; use effect=\"mean_diff\" or \"poi\"")
    bad = frame[~np.isfinite(frame["effect"])]
    if len(bad):
        why = (" (zero spread of the runs)" if options.effect == "std_diff" else "")
        raise DesignError(f"the effect is not finite on {where} task(s) {', '.join(map(repr, bad['task']))}{why}; "
                          "choose another effect=")


# =========================================================================== the public function

def selection_check(data, formula=None, *, treatment=None, baseline=None, reported=None, heldout=None,
                    effect="mean_diff", inspector="permutation", reporter="t", mu_gap=0.0, n_candidates=None,
                    sigma=None, alpha=0.05, beta=0.05, higher_is_better=True, n_resamples=9_999,
                    normalize=None, na_action="raise", rng=None, eval_env=None):
    """Check whether the reported tasks of a claimed improvement are representative.

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent | task"`` (or ``task/seed``): runs are replicates
        within (agent, task) and enter only through the per-task effects.
    treatment, baseline : str
        The new agent and the agent it is compared with.
    reported : list of str or str
        The tasks shown in the paper (D_P), or the name of a boolean column
        marking them (constant within each task).
    heldout : None, list of str or DataFrame
        D_I: None for every other task in ``data`` with runs of both agents
        (the complement), a list of tasks, or a DataFrame of fresh runs on
        new tasks (same columns, read with the same formula).
    effect : {"mean_diff", "std_diff", "poi"} or callable
        Per-task effect of the treatment: difference of mean scores
        (normalise scores across tasks first); that difference over the
        pooled within-task sd (needs 2 runs per agent); the probability of
        improvement minus 0.5; or ``f(treatment_runs, baseline_runs) -> float``.
    inspector : {"permutation", "t", "welch", "z"}
        Test of ``mean(reported) > mean(held-out)``: permutation over task
        labels (exact for "reported is a random subset"; enumerated when at
        most ``n_resamples`` subsets exist), pooled t (paper section 6.1),
        Welch t, or z with known ``sigma`` (section 5.2).
    reporter : {"t", "z", "wilcoxon"}
        The reporter's one-sided test of a positive mean effect.
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
        Levels of the reporter's and of the inspector's tests.
    higher_is_better : bool
        False flips the sign of every effect, so positive means better.
    n_resamples : int
        Random subsets of the permutation inspector.
    normalize : DataFrame, str or dict, optional
        Normalise the response per task before the effects are computed, as
        :func:`rlstats.normalize` does (e.g. ``"atari100k_reference"`` for
        human-normalised Atari scores); a fresh held-out frame is normalised
        the same way.  Stated in the result.
    na_action : {"raise", "drop"}
        Missing values: an error, or drop the rows and say so.
    rng : None, int or numpy.random.Generator
        Seed of the permutations and of the conservative null (recorded).
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
        na_action=na_action)
    env = 1 if eval_env is None else eval_env
    extra = (reported,) if isinstance(reported, str) and not isinstance(data, Design) and reported in data.columns \
        else ()
    design = design_of(data, formula, na_action=na_action, eval_env=env, extra_columns=extra, normalize=normalize)
    if not design.has_blocks:
        raise DesignError(f"the selection check compares tasks: write '{design.formula.text} | task'")
    treatment = _check_agent("treatment", treatment, design)
    baseline = _check_agent("baseline", baseline, design)
    if treatment == baseline:
        raise OptionError(f"treatment and baseline are both {treatment!r}; name two different agents")
    reported_names = _resolve_reported(reported, design)
    fresh = None
    if isinstance(heldout, pd.DataFrame):
        fresh = build(heldout, design.formula, na_action=na_action, eval_env=env, normalize=normalize)
    return _run(design, fresh, treatment, baseline, reported_names, heldout, options, rng)


def _split_tasks(design, fresh, treatment, baseline, reported_names, heldout, options):
    """The per-task effects table with its sets, and the notes it produced."""
    frame = _effects_of(design, treatment, baseline, options)
    notes = []
    frame["set"] = np.where(frame["task"].isin(reported_names), "reported", "")
    _check_effects(frame[frame["set"] == "reported"], "reported", options)
    if fresh is not None:
        overlap = sorted(set(fresh.tasks) & set(reported_names))
        if overlap:
            raise DesignError(f"task(s) {', '.join(map(repr, overlap))} are both reported and in the held-out data; "
                              "fresh held-out tasks must be tasks the report did not show")
        held = _effects_of(fresh, treatment, baseline, options)
        notes += [f"held-out data: {n}" for n in fresh.notes]
        unusable = ~np.isfinite(held["effect"])
        if unusable.any():
            notes.append(f"{int(unusable.sum())} held-out task(s) without a finite effect left out: "
                         f"{', '.join(held.loc[unusable, 'task'])}")
        held["set"] = np.where(unusable, "dropped", "heldout")
        if unusable.all():
            raise DesignError("no held-out tasks: selection cannot be checked; no task of the held-out data has runs "
                              f"of both {treatment!r} and {baseline!r} with a finite effect")
        frame = frame[frame["set"] == "reported"]
        return pd.concat([frame, held], ignore_index=True), notes, "fresh"
    if heldout is None:
        rest = frame["set"] != "reported"
        unusable = rest & ~np.isfinite(frame["effect"])
        frame.loc[rest, "set"] = np.where(unusable[rest], "dropped", "heldout")
        if unusable.any():
            notes.append(f"{int(unusable.sum())} task(s) without runs of both agents (or a finite effect) left out "
                         f"of the held-out set: {', '.join(frame.loc[unusable, 'task'])}")
        if not (frame["set"] == "heldout").any():
            raise DesignError("no held-out tasks: selection cannot be checked; every task with runs of both agents "
                              "is reported. Pass heldout= a DataFrame of runs on fresh tasks")
        return frame, notes, "complement"
    listed = _task_list("heldout", heldout, design)
    overlap = [t for t in listed if t in reported_names]
    if overlap:
        raise OptionError(f"task(s) {', '.join(map(repr, overlap))} are both reported and held out; a task is "
                          "either shown in the report (reported=) or used to check it (heldout=)")
    frame.loc[frame["task"].isin(listed), "set"] = "heldout"
    _check_effects(frame[frame["set"] == "heldout"], "held-out", options)
    unused = frame["set"] == ""
    if unused.any():
        notes.append(f"{int(unused.sum())} task(s) neither reported nor held out were not used: "
                     f"{', '.join(frame.loc[unused, 'task'])}")
    return frame[~unused].reset_index(drop=True), notes, "listed"


def _requirements(n_p, n_i, options):
    if options.reporter == "t" and n_p < 2:
        raise DesignError(f"reporter=\"t\" needs at least 2 reported tasks, got {n_p}; with one task pass "
                          "sigma=<number> and reporter=\"z\"")
    if options.inspector == "t" and n_p + n_i < 3:
        raise DesignError(f"inspector=\"t\" needs at least 3 tasks in all, got {n_p} reported and {n_i} held out")
    if options.inspector == "welch" and min(n_p, n_i) < 2:
        raise DesignError(f"inspector=\"welch\" needs at least 2 reported and 2 held-out tasks, got {n_p} and "
                          f"{n_i}; use inspector=\"permutation\" or \"t\"")
    if options.n_candidates is not None and options.n_candidates < n_p:
        raise OptionError(f"n_candidates={options.n_candidates} is smaller than the {n_p} reported tasks; it counts "
                          "every task the reporter could have chosen from (N_A >= N_P)")


def _group_summary(v_p, v_i):
    rows = []
    for name, v in (("reported", v_p), ("heldout", v_i)):
        n = v.size
        mean = float(v.mean())
        sd = float(v.std(ddof=1)) if n > 1 else np.nan
        se = sd / np.sqrt(n) if n > 1 else np.nan
        half = stats.t.ppf(0.975, n - 1) * se if n > 1 else np.nan
        rows.append({"set": name, "n_tasks": n, "estimate": mean, "std_error": se,
                     "conf_low": mean - half, "conf_high": mean + half})
    return pd.DataFrame(rows)


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
    if options.inspector == "permutation":
        found = kernels.permutation_inspector(v_p, v_i, options.n_resamples, ss)
        return {"statistic": found.statistic, "df": None, "pvalue": found.pvalue,
                "pvalue_method": "exact" if found.exact else "monte_carlo", "pvalue_mc_se": found.mc_se,
                "n_resamples": found.n_resamples, "null_distribution": found.null_distribution}
    statistic, df, p, diff = kernels.parametric_inspector(v_p[None], v_i[None], options.inspector, sigma)
    if not np.isfinite(diff.std_error[0]) or diff.std_error[0] == 0:
        raise DesignError(f"the per-task effects have no spread, so the {_INSPECTOR_NAMES[options.inspector]} is "
                          "undefined; use inspector=\"permutation\"")
    return {"statistic": float(statistic[0]), "df": None if np.isnan(df[0]) else float(df[0]), "pvalue": float(p[0]),
            "pvalue_method": "normal" if options.inspector == "z" else "t", "pvalue_mc_se": None,
            "n_resamples": None, "null_distribution": None}


def _difference(v_p, v_i, options, sigma):
    """mean(reported) - mean(held-out) with its 95 % interval, under the inspector's reference distribution.

    The permutation inspector has none of its own: Welch's interval when both
    sets have 2 tasks, else the pooled one, else none.
    """
    n_p, n_i = v_p.size, v_i.size
    kind = options.inspector
    if kind == "permutation":
        kind = "welch" if min(n_p, n_i) >= 2 else ("t" if n_p + n_i >= 3 else None)
    estimate = float(v_p.mean() - v_i.mean())
    fields = {"estimate": estimate, "std_error": None, "conf_int": (np.nan, np.nan), "interval_method": None,
              "difference_df": None}
    if kind is None:
        return fields
    diff = kernels.difference(v_p[None], v_i[None], kind, sigma)
    se, df = float(diff.std_error[0]), float(diff.df[0])
    if not (np.isfinite(se) and se > 0):
        return fields
    df = None if np.isnan(df) else df
    q = stats.norm.ppf(0.975) if df is None else stats.t.ppf(0.975, df)
    return {**fields, "std_error": se, "conf_int": (estimate - q * se, estimate + q * se), "interval_method": kind,
            "difference_df": df}


def _reporter_tests(v_p, options, sigma, ss):
    """The reporter's naive, gap and conservative p-values, as result fields."""
    statistic, df, p = (float(x[0]) for x in kernels.reporter_test(v_p[None], options.reporter, 0.0, sigma))
    fields = {"reporter_statistic": statistic, "reporter_df": None if np.isnan(df) else df, "pvalue_reporter": p,
              "gap_statistic": None, "pvalue_gap": None, "pvalue_conservative": None,
              "pvalue_conservative_mc_se": None, "n_resamples_conservative": None}
    if options.mu_gap > 0:
        gap = kernels.reporter_test(v_p[None], options.reporter, options.mu_gap, sigma)
        fields.update(gap_statistic=float(gap[0][0]), pvalue_gap=float(gap[2][0]))
    if options.n_candidates is not None:
        null_top = kernels.top_mean_null(v_p.size, options.n_candidates, CONSERVATIVE_RESAMPLES, ss)
        p_con, se = kernels.conservative_pvalue(null_top, v_p.mean() / sigma)
        fields.update(pvalue_conservative=float(p_con), pvalue_conservative_mc_se=float(se),
                      n_resamples_conservative=CONSERVATIVE_RESAMPLES)
    return fields


def _verdict(reporter, pvalue, options):
    """Spec section 3: a claim (gap test when mu_gap > 0, else naive) that the inspector does or does not flag."""
    claim_p = reporter["pvalue_gap"] if reporter["pvalue_gap"] is not None else reporter["pvalue_reporter"]
    if not claim_p <= options.alpha:  # NaN (undefined test) counts as no claim
        return "no_claim"
    return "selection_bias" if pvalue <= options.beta else "survives"


def _run(design, fresh, treatment, baseline, reported_names, heldout, options, rng):
    frame, notes, heldout_design = _split_tasks(design, fresh, treatment, baseline, reported_names, heldout, options)
    v_p = frame.loc[frame["set"] == "reported", "effect"].to_numpy(dtype=float)
    v_i = frame.loc[frame["set"] == "heldout", "effect"].to_numpy(dtype=float)
    n_p, n_i = v_p.size, v_i.size
    _requirements(n_p, n_i, options)
    pooled_sd = float(np.concatenate([v_p, v_i]).std(ddof=1))
    sigma, sigma_source = _sigma_of(options, pooled_sd)

    # Two independent streams: the inspector's permutations and the conservative null.
    random_needed = options.n_candidates is not None or (
        options.inspector == "permutation" and not kernels.is_exact(n_p + n_i, n_p, options.n_resamples))
    ss, seed = seed_sequence(rng) if random_needed else (np.random.SeedSequence(0), None)
    permutation_ss, conservative_ss = ss.spawn(2)
    inspector = _inspect(v_p, v_i, options, sigma, permutation_ss)
    reporter = _reporter_tests(v_p, options, sigma, conservative_ss)
    if not np.isfinite(reporter["pvalue_reporter"]):
        notes.append(f"the reporter's {_REPORTER_NAMES[options.reporter]} is undefined (the reported effects have no "
                     "spread or are all zero), so no claim is counted")
    if heldout_design == "complement" and options.inspector != "permutation":
        notes.append(f"the held-out tasks are the rest of the same suite, not an independent sample; the "
                     f"{_INSPECTOR_NAMES[options.inspector]} is approximate there, the permutation inspector is exact "
                     "for 'the reported tasks are a random subset'")

    detection_sigma = sigma if sigma is not None else (pooled_sd if pooled_sd > 0 else None)
    detection = None if detection_sigma is None else float(
        kernels.detection_probability(v_p.mean() / detection_sigma, n_p, n_i, options.beta))
    data_name = (f"{design.formula.response} by {design.formula.groups} ({treatment} vs {baseline}) | "
                 f"{design.formula.blocks}; {n_p} reported, {n_i} held-out tasks"
                 + (" (fresh runs)" if heldout_design == "fresh" else ""))
    used = frame["set"].isin(["reported", "heldout"])
    return SelectionCheckResult(
        method=METHOD_TITLE, formula=design.formula, data_name=data_name,
        nobs=int(frame.loc[used, ["n_treatment", "n_baseline"]].to_numpy().sum()),
        notes=tuple(design.notes) + tuple(notes),
        options={**asdict(options), "effect": options.effect_name, "n_resamples_conservative": CONSERVATIVE_RESAMPLES},
        seed=seed, inspector=options.inspector, **inspector, **_difference(v_p, v_i, options, sigma),
        reporter=options.reporter, **reporter, n_candidates=options.n_candidates, mu_gap=options.mu_gap,
        sigma=sigma, sigma_source=sigma_source, detection_probability=detection, detection_sigma=detection_sigma,
        treatment=treatment, baseline=baseline, effect_measure=options.effect_name,
        higher_is_better=options.higher_is_better,
        effects=frame[["task", "set", "effect", "n_treatment", "n_baseline"]].reset_index(drop=True),
        group_summary=_group_summary(v_p, v_i), reported_tasks=tuple(frame.loc[frame["set"] == "reported", "task"]),
        heldout_tasks=tuple(frame.loc[frame["set"] == "heldout", "task"]), heldout_design=heldout_design,
        mean_reported=float(v_p.mean()), mean_heldout=float(v_i.mean()), alpha=options.alpha, beta=options.beta,
        verdict=_verdict(reporter, inspector["pvalue"], options))


# =========================================================================== planning and the paper's simulations

def detection_probability(mean_reported, n_reported, n_heldout, *, beta=0.05, mu0=0.0):
    """Probability that the z inspector flags a report, given its mean and the number of fresh tasks.

    ``Phi(sqrt(N_I) (mean_reported - mu0 - z_beta sqrt(1/N_P + 1/N_I)))``, with
    every mean in units of the sd of the per-task effects: the fresh tasks'
    mean is ``N(mu0, 1/N_I)`` and the inspector flags when the reported mean
    exceeds it by ``z_beta sqrt(1/N_P + 1/N_I)``.

    Parameters
    ----------
    mean_reported : float
        The reported mean effect over the sd of the effects.
    n_reported, n_heldout : int or array_like of int
        N_P and N_I (vectorised).
    beta : float
        The inspector's level.
    mu0 : float
        Hypothesised true mean effect (0: no real improvement).

    Returns
    -------
    float or ndarray

    References
    ----------
    Komiyama and Maehara (2018), section 5.2 and Theorem 5; the exact form
    replaces the theorem's sufficient condition (whose proof has a sign slip
    and a missing ``1/sqrt(N_P)``).

    Examples
    --------
    >>> import rlstats
    >>> p5, p20 = rlstats.selection.detection_probability(1.2497, 5, [5, 20])
    >>> round(float(p5), 3), round(float(p20), 3)
    (0.68, 0.972)
    """
    beta = check_fraction("beta", beta)
    result = kernels.detection_probability(mean_reported, n_reported, n_heldout, beta, mu0)
    return float(result) if np.ndim(result) == 0 else result


def required_heldout(mean_reported, n_reported, *, beta=0.05, power=0.95, mu0=0.0, max_heldout=1_000_000):
    """Fewest fresh tasks with which the z inspector flags the report with probability ``power``.

    Same units as :func:`detection_probability`.  Returns None when no N_I up
    to ``max_heldout`` suffices: a reported mean below ``z_beta / sqrt(N_P)``
    cannot be flagged however many tasks are drawn.

    Examples
    --------
    >>> import rlstats
    >>> rlstats.selection.required_heldout(1.2497, 5, power=0.95)
    17
    """
    beta = check_fraction("beta", beta)
    power = check_fraction("power", power)
    return kernels.required_heldout(mean_reported, n_reported, beta, power, mu0,
                                    check_int("max_heldout", max_heldout, minimum=1))


def conservative_pvalue(mean_reported, n_reported, n_candidates, *, n_resamples=CONSERVATIVE_RESAMPLES, rng=None):
    """Conservative p-value: how often the best ``n_reported`` of ``n_candidates`` null tasks do as well.

    ``P[mean of the top N_P of N_A i.i.d. N(0, 1) >= mean_reported]``, with
    ``mean_reported`` in units of the sd of the per-task effects, estimated
    from ``n_resamples`` draws as ``(1 + hits) / (n_resamples + 1)``.

    Returns
    -------
    pvalue, mc_se : float or ndarray
        Vectorised over ``mean_reported``.

    References
    ----------
    Komiyama and Maehara (2018), section 4, eq. 4.3 (corrected: the survival
    function of the top-N_P mean, as the text says, not ``P[mu >= mu_top]``).

    Examples
    --------
    >>> import rlstats
    >>> p, se = rlstats.selection.conservative_pvalue(1.2, 10, 30, rng=0)
    >>> abs(p - 0.278) < 4 * se
    True
    """
    n_reported = check_int("n_reported", n_reported, minimum=1)
    n_candidates = check_int("n_candidates", n_candidates, minimum=n_reported)
    ss, _ = seed_sequence(rng)
    null = kernels.top_mean_null(n_reported, n_candidates, check_int("n_resamples", n_resamples, minimum=1), ss)
    p, se = kernels.conservative_pvalue(null, np.asarray(mean_reported, dtype=float))
    return (float(p), float(se)) if np.ndim(p) == 0 else (p, se)


def top_mean_null(n_reported, n_candidates, *, n_resamples=CONSERVATIVE_RESAMPLES, rng=None):
    """Sorted draws of the mean of the best ``n_reported`` of ``n_candidates`` i.i.d. N(0, 1) (read-only array).

    The null distribution of :func:`conservative_pvalue`; its 1 - alpha
    quantile is the conservative critical value (1.455 for (10, 30) at 0.05).

    Examples
    --------
    >>> import rlstats
    >>> round(float(rlstats.selection.top_mean_null(10, 30, rng=0).mean()), 2)
    1.06
    """
    n_reported = check_int("n_reported", n_reported, minimum=1)
    n_candidates = check_int("n_candidates", n_candidates, minimum=n_reported)
    ss, _ = seed_sequence(rng)
    return kernels.top_mean_null(n_reported, n_candidates, check_int("n_resamples", n_resamples, minimum=1), ss)


@dataclass(frozen=True)
class SelectionSimulation:
    """Rates of a simulated setting (:func:`simulate`); every rate has its Monte Carlo standard error.

    Attributes
    ----------
    claim_rate : float
        P(naive reporter p-value <= alpha).
    claim_rate_gap : float
        P(gap p-value <= alpha) (equal to ``claim_rate`` when ``mu_gap = 0``).
    claim_rate_conservative : float or None
        P(conservative p-value <= alpha); known variance only.
    detection_rate : float
        P(inspector p-value <= beta).
    detection_rate_given_claim : float
        P(inspector flags | gap claim): the paper's "> 0.9" of Fig. 2(b).
    undetected_claim_rate : float
        P(gap claim and no detection): false claims that survive.
    mean_reported : float
        Average reported mean effect (units of the effects' sd).
    n_trials, n_claims : int
    setting : dict
        The inputs; ``seed`` how the stream was seeded.
    """

    claim_rate: float
    claim_rate_gap: float
    claim_rate_conservative: float | None
    detection_rate: float
    detection_rate_given_claim: float
    undetected_claim_rate: float
    mean_reported: float
    n_trials: int
    n_claims: int
    setting: dict
    seed: object

    def standard_error(self, name):
        """Monte Carlo standard error of one of the rates."""
        rate = getattr(self, name)
        if rate is None:
            return None
        n = self.n_claims if name == "detection_rate_given_claim" else self.n_trials
        return float(np.sqrt(rate * (1 - rate) / n)) if n else np.nan

    def to_frame(self):
        """The rates as a DataFrame: quantity, estimate, std_error."""
        names = ["claim_rate", "claim_rate_gap", "claim_rate_conservative", "detection_rate",
                 "detection_rate_given_claim", "undetected_claim_rate"]
        return pd.DataFrame({"quantity": names, "estimate": [getattr(self, n) for n in names],
                             "std_error": [self.standard_error(n) for n in names]})

    def __str__(self):
        text = fmt.table_text(self.to_frame(), 4)
        setting = ", ".join(f"{k} = {v}" for k, v in self.setting.items())
        return f"Selection-check simulation ({self.n_trials} trials): {setting}\n{text}\n"

    __repr__ = __str__


_SIMULATION_HELDOUT = ("fresh", "complement", "resample")


def simulate(n_candidates, n_reported, n_heldout=None, *, mu=0.0, mu_gap=0.0, reporter="top", variance="known",
             heldout="fresh", inspector=None, alpha=0.05, beta=0.05, n_trials=10_000, n_resamples=999, rng=None):
    """Simulate the paper's synthetic experiments: how often a reporter claims and an inspector detects.

    Each trial draws ``n_candidates`` per-task effects i.i.d. N(mu, 1); the
    reporter shows the best ``n_reported`` (``reporter="top"``, the paper's
    Scenario 2, cherry-picking) or the first ones (``"random"``, Scenario 1,
    honest) and tests them (z with known variance, t with the centred
    variance otherwise, against 0 and against ``mu_gap``); the inspector
    compares them with held-out effects.  Vectorised over trials.

    Parameters
    ----------
    n_candidates, n_reported : int
        N_A and N_P.
    n_heldout : int, optional
        N_I; default N_P for fresh or resampled held-out tasks (the paper's
        choice), N_A - N_P (all the others) for the complement.
    mu : float
        True mean effect, in units of the sd of the effects.
    mu_gap : float
        Minimum improvement of the gap test (>= 0).
    reporter : {"top", "random"}
    variance : {"known", "unknown"}
        z tests with sd 1 (and the conservative p-value), or t tests.
    heldout : {"fresh", "complement", "resample"}
        New draws (footnote 4), the candidates not reported, or N_I drawn
        uniformly from all candidates, reported ones included (section 7.2).
    inspector : {"z", "t", "welch", "permutation"}, optional
        Default z with known variance, pooled t otherwise.
    alpha, beta : float
    n_trials : int
    n_resamples : int
        Random subsets per trial of the permutation inspector (exact
        enumeration when there are no more subsets than this).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    SelectionSimulation

    References
    ----------
    Komiyama and Maehara (2018), Theorem 1, Fig. 2 and section 7.2; the
    re-simulated targets are in the spec's section 5.2 (the paper's figure
    values are not printed, so they were re-simulated, not quoted).

    Examples
    --------
    >>> import rlstats
    >>> sim = rlstats.selection.simulate(15, 5, n_trials=20_000, rng=0)   # Fig. 2(a), N_P = 5
    >>> abs(sim.claim_rate - 0.813) < 0.01
    True
    """
    n_candidates = check_int("n_candidates", n_candidates, minimum=1)
    n_reported = check_int("n_reported", n_reported, minimum=1)
    if n_reported > n_candidates:
        raise OptionError(f"n_reported={n_reported} exceeds n_candidates={n_candidates}")
    heldout = check_choice("heldout", heldout, _SIMULATION_HELDOUT)
    variance = check_choice("variance", variance, ("known", "unknown"))
    if heldout == "complement":
        rest = n_candidates - n_reported
        if n_heldout is not None and n_heldout != rest:
            raise OptionError(f"with heldout=\"complement\" the held-out tasks are the {rest} candidates not "
                              f"reported; drop n_heldout (got {n_heldout})")
        n_heldout = rest
    n_heldout = n_reported if n_heldout is None else n_heldout
    n_heldout = check_int("n_heldout", n_heldout, minimum=1)
    if heldout == "resample" and n_heldout > n_candidates:
        raise OptionError(f"n_heldout={n_heldout} exceeds the {n_candidates} candidates it is drawn from")
    inspector = ("z" if variance == "known" else "t") if inspector is None else inspector
    inspector = check_choice("inspector", inspector, ("z", "t", "welch", "permutation"))
    if inspector == "welch" and min(n_reported, n_heldout) < 2:
        raise OptionError("inspector=\"welch\" needs at least 2 reported and 2 held-out tasks")
    if inspector == "t" and n_reported + n_heldout < 3:
        raise OptionError("inspector=\"t\" needs at least 3 tasks in all")
    if variance == "unknown" and n_reported < 2:
        raise OptionError("variance=\"unknown\" (t tests) needs n_reported >= 2")
    for name, value in (("mu", mu), ("mu_gap", mu_gap)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
            raise OptionError(f"{name} must be a finite number, got {value!r}")
    if mu_gap < 0:
        raise OptionError(f"mu_gap must be >= 0, got {mu_gap}")
    setting = kernels.SimulationSetting(
        n_candidates=n_candidates, n_reported=n_reported, n_heldout=n_heldout, mu=float(mu), mu_gap=float(mu_gap),
        reporter=check_choice("reporter", reporter, ("top", "random")), variance=variance, heldout=heldout,
        inspector=inspector, alpha=check_fraction("alpha", alpha), beta=check_fraction("beta", beta),
        n_resamples=check_int("n_resamples", n_resamples, minimum=1))
    n_trials = check_int("n_trials", n_trials, minimum=1)
    ss, seed = seed_sequence(rng)
    counts = kernels.simulate_counts(setting, n_trials, ss)
    counts = {name: float(value) for name, value in counts.items()}
    n_claims = int(counts["claim_gap"])
    return SelectionSimulation(
        claim_rate=counts["claim_naive"] / n_trials, claim_rate_gap=counts["claim_gap"] / n_trials,
        claim_rate_conservative=None if variance == "unknown" else counts["claim_conservative"] / n_trials,
        detection_rate=counts["detect"] / n_trials,
        detection_rate_given_claim=counts["claim_and_detect"] / n_claims if n_claims else np.nan,
        undetected_claim_rate=(counts["claim_gap"] - counts["claim_and_detect"]) / n_trials,
        mean_reported=counts["sum_mean_reported"] / n_trials, n_trials=n_trials, n_claims=n_claims,
        setting=asdict(setting), seed=seed)
