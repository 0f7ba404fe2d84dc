"""The selection check's result: fields, tables and prose (reads fields, computes nothing)."""

from __future__ import annotations

import textwrap
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt
from ... import vocabulary
from ...vocabulary import value_label
from . import plots as plots_selection
from ...errors import OptionError
from ...options import check_confidence_level
from ..._typing import ColumnNames
from ...results import ConfidenceInterval, Result, resultclass
from ._planning import required_heldout

#: the name of the normal interval with the sd known (sigma=): the z inspector's and the z reporter's
KNOWN_SD_NORMAL = "normal, known sd"
_INTERVAL_NAMES = {"welch": "Welch t", "t": "pooled t", "z": KNOWN_SD_NORMAL,
                   "permutation": "permutation test inverted over shifts"}
_STATISTIC_SYMBOL = {"skew_t": "t", "t": "t", "welch": "t", "z": "z", "wilcoxon": "V"}
VERDICTS = {
    "survives": "significant on reported tasks, and the inspector found no sign that they show larger effects than "
                "the held-out tasks (a test that did not reject, not a proof that they are representative) -- the "
                "claim survives verification",
    "selection_bias": "significant on reported tasks, but the inspector found larger effects on them than on the "
                      "held-out tasks (a test at level beta: tasks chosen without regard to their effects are "
                      "flagged so at no more than about that rate) -- selection bias suspected",
    "untestable": "significant on reported tasks, but the inspector could not reject at this design (its smallest "
                  "attainable p-value is above beta) -- whether they are representative is untestable here, so the "
                  "claim is not verified; hold out more tasks (or draw more permutations, n_resamples=)",
    "no_claim": "not significant on reported tasks -- nothing is claimed; the inspector's result is "
                "informational",
}

#: level of ``conf_int`` and of the reporter's interval in ``tidy()`` (``confidence_interval()`` gives others)
CONF_LEVEL = 0.95


@resultclass
class SelectionCheckResult(Result):
    """Result of :func:`selection_check`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

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
        ``"fisher_pitman"`` (permutation over task labels), ``"t"`` (pooled), ``"welch"`` or ``"z"``.
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
        standard error under ``interval_method`` (the permutation inspector's: Welch's, or the pooled t's when a
        set has one task).
    conf_int : tuple of float
        One-sided interval ``(low, inf)`` of the difference at ``conf_level``, on the side of the inspector's test
        (as R's ``t.test(alternative = "greater")`` gives); see :meth:`confidence_interval`.
    conf_level : float
        The level of ``conf_int``, 0.95.
    interval_method : str or None
        ``"welch"``, ``"t"`` (pooled), ``"z"`` or ``"permutation"`` (the permutation inspector's test inverted: the
        least shift of the reported effects whose p-value is above ``1 - conf_level``); None when undefined.
    permutation_shifts : ndarray or None
        The permutation inspector's subsets' thresholds, sorted: the shift of the reported effects at which each
        subset's sum reaches the reported one (-inf for the reported set); the p-value of effects shifted by delta
        counts those at most delta, which :meth:`confidence_interval` inverts.
    difference_df : float or None
        Degrees of freedom of that interval (None: normal).
    reporter : str
        ``"skew_t"``, ``"t"``, ``"z"`` or ``"wilcoxon"``.
    reporter_skewness : float or None
        The skewness of the reported effects that ``reporter="skew_t"``
        corrects for where negative (None for the other reporters).
    reporter_skewness_source : str or None
        Where that skewness was estimated: ``"runs"`` (the runs' within-task
        cumulants) or ``"effects"`` (the reported effects' plug-in skewness);
        None for the other reporters.
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
    n_resamples_conservative : int or None
        Monte Carlo draws of the null behind ``pvalue_conservative``; None where that test was not run.
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
        Mean effect of each set with its standard error and interval, and
        ``interval`` naming it: the reported set's one-sided ``(low, inf)``, the reporter's (the
        ``reporter_interval``: by default the skew-corrected t, ``"t,
        skewness-corrected (from the runs)"``; ``"normal, known sd"`` for
        ``reporter="z"``; Student's t for the signed-rank reporter, which
        gives none), the held-out set's two-sided Student's t (``"t"``).
    reported_tasks, heldout_tasks : tuple of str
    heldout_design : str
        ``"complement"`` (every other task), ``"listed"`` or ``"fresh"``.
    mean_reported, mean_heldout : float
    alpha, beta : float
        Levels of the reporter's and of the inspector's tests.
    verdict : str
        ``"survives"``, ``"selection_bias"``, ``"untestable"`` (a claim the permutation inspector could not have
        flagged at this design: its smallest attainable p-value is above beta) or ``"no_claim"`` (spec section 3).
    units : str
        The scores' units as the notes give them, "normalised scores" or "the units of '<response>'": those of a
        ``"mean_diff"`` effect, which the figures state (audit s19).
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
    conf_int: tuple[float, float]
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
    reported_tasks: tuple[str, ...]
    heldout_tasks: tuple[str, ...]
    heldout_design: str
    mean_reported: float
    mean_heldout: float
    alpha: float
    beta: float
    verdict: str
    reporter_interval: dict[str, Any] | None = None
    conf_level: float = CONF_LEVEL
    reporter_skewness: float | None = None
    reporter_skewness_source: str | None = None
    permutation_shifts: np.ndarray | None = None
    units: str = ""

    _plot_kinds: ClassVar[dict] = {
        "effects": plots_selection.plot_effects,
        "null_distribution": plots_selection.plot_null_distribution,
    }

    @property
    def n_reported(self) -> int:
        return len(self.reported_tasks)

    @property
    def n_heldout(self) -> int:
        return len(self.heldout_tasks)

    @property
    def verdict_text(self) -> str:
        """The verdict as a sentence."""
        return VERDICTS[self.verdict]

    @property
    def claim_pvalue(self) -> float:
        """The reporter's p-value that decides the claim: the gap test when ``mu_gap > 0``, else the naive one."""
        return self.pvalue_gap if self.pvalue_gap is not None else self.pvalue_reporter

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """One-sided interval ``(low, inf)`` of ``mean(reported) - mean(held-out)`` under ``interval_method``.

        One-sided as the inspector's test of a larger mean on the reported tasks is (R's ``t.test(alternative =
        "greater")`` gives the same): ``low`` is above 0 exactly when that test rejects at ``1 - confidence_level``
        (the permutation inspector's is its test inverted, ``interval_method="permutation"``).
        Returns a :class:`~rlstats.results.ConfidenceInterval` ``(low, inf)``;
        ``confidence_level=None`` is ``conf_level`` (the level of ``conf_int``).
        """
        from scipy import stats
        level = self.conf_level if confidence_level is None else check_confidence_level(confidence_level)
        if self.interval_method == "permutation" and self.permutation_shifts is not None:
            from ._kernels import permutation_lower_bound
            return ConfidenceInterval(permutation_lower_bound(self.permutation_shifts, self.pvalue_method == "exact",
                                                              level), np.inf)
        if self.std_error is None:
            return ConfidenceInterval(np.nan, np.nan)
        quantile = stats.norm.ppf(level) if self.difference_df is None else stats.t.ppf(level, self.difference_df)
        return ConfidenceInterval(self.estimate - quantile * self.std_error, np.inf)

    def required_heldout(self, power: float = 0.95, mu0: float = 0.0) -> int | None:
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
        if self.inspector == "fisher_pitman":
            return (f"inspector ({value_label('inspector', 'fisher_pitman')}): mean(reported) - mean(held-out) "
                    f"= {fmt.signif(self.estimate)}, {fmt.pvalue_phrase(self.pvalue)}")
        df = "" if self.df is None else f", df = {fmt.signif(self.df)}"
        return (f"inspector ({value_label('inspector', self.inspector)}): "
                f"{_STATISTIC_SYMBOL[self.inspector]} = {fmt.signif(self.statistic)}{df}, "
                f"{fmt.pvalue_phrase(self.pvalue)}")

    def _extra_lines(self):
        lines = ["alternative hypothesis: reported tasks have a larger mean effect than held-out tasks"]
        if self.inspector == "fisher_pitman":
            how = (f"exact, all {self.n_resamples} subsets" if self.pvalue_method == "exact" else
                   f"{self.n_resamples} random subsets, Monte Carlo SE {fmt.signif(self.pvalue_mc_se, 2)}")
            if self.heldout_design == "fresh":
                lines.append(f"null: the reported and the fresh tasks' effects are exchangeable ({how})")
            else:
                lines.append(f"null: the {fmt.count(self.n_reported, 'reported task')} "
                             f"{fmt.verb(self.n_reported, 'is')} a uniformly random subset of the "
                             f"{self.n_reported + self.n_heldout} tasks ({how})")
        lines.append(f"mean effect ({self.effect_measure}, {self.treatment} vs {self.baseline}): reported "
                     f"{fmt.signif(self.mean_reported)}, held-out {fmt.signif(self.mean_heldout)}, difference "
                     f"{fmt.signif(self.estimate)}")
        if self.interval_method is not None:
            low, high = self.conf_int
            lines.append(f"{fmt.signif(100 * self.conf_level)}% one-sided confidence interval of the difference "
                         f"({_INTERVAL_NAMES[self.interval_method]}): {fmt.signif(low)} {fmt.signif(high)}")
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
            lines.append(f"detection probability with {fmt.count(self.n_heldout, 'fresh task')} if the true mean "
                         "effect were 0: "
                         f"{fmt.signif(self.detection_probability, 3)} (z inspector, sd of the effects "
                         f"{fmt.signif(self.detection_sigma, 4)}{'' if self.sigma_source == 'given' else ', pooled'})")
        verdict = f"verdict (alpha = {self.alpha}, beta = {self.beta}): {self.verdict_text}"
        lines += textwrap.wrap(verdict, width=100, subsequent_indent="  ")
        return lines

    def _skewness_phrase(self):
        """The skew-corrected reporter's skewness by its source, and whether Hall's correction was applied."""
        if self.reporter_skewness_source == "effects" and self.n_reported == 2:
            # any two values' sample skewness is 0: nothing estimated (audit s38 fixd38), as a note says
            return "two reported effects cannot estimate a skewness: no correction, the plain t's p-value"
        source = {"runs": "the runs' within-task cumulants of the reported tasks",
                  "effects": "the reported effects"}.get(self.reporter_skewness_source or "", "the data")
        if self.reporter_skewness_source == "runs":
            # the cumulants need 3 runs of each agent on a task (kernels.effect_cumulants): said of all the reported
            # tasks where some had fewer (audit s37 claims37: a reported task of 1 run of the treatment)
            reported = self.effects[self.effects["set"] == "reported"]
            enough = int((reported[["n_treatment", "n_baseline"]].min(axis=1) >= 3).sum())
            if enough < len(reported):
                source = (f"the runs' within-task cumulants of {enough} of the {len(reported)} reported tasks (those "
                          "with 3 runs or more of each agent)")
        said = f"skewness {fmt.signif(self.reporter_skewness, 3)}, estimated from {source}"
        if not self.reporter_skewness < 0:  # _reporter_skew_t corrects only skew towards losses
            return f"{said}, is not negative: no correction, the plain t's p-value"
        return f"{said}: Hall's correction applied"

    def _reporter_line(self):
        symbol = _STATISTIC_SYMBOL[self.reporter]
        df = "" if self.reporter_df is None else f", df = {fmt.signif(self.reporter_df)}"
        skew = "" if self.reporter_skewness is None else f" ({self._skewness_phrase()})"
        return (f"reporter ({value_label('reporter', self.reporter)}): mean effect = "
                f"{fmt.signif(self.mean_reported)}, {symbol} = {fmt.signif(self.reporter_statistic)}{df}, "
                f"{fmt.pvalue_phrase(self.pvalue_reporter)}{skew}")

    def _summary_tables(self):
        order = {"reported": 0, "heldout": 1, "dropped": 2}
        effects = self.effects.assign(_set=self.effects["set"].map(order))
        effects = effects.sort_values(["_set", "effect"], ascending=[True, False], kind="stable")
        # the effect's measure and its sign (treatment vs baseline) in each table's name: a table pasted alone into a
        # paper says which agent is subtracted (audit s11)
        return {f"Per-task effects {self._what()}": effects.drop(columns="_set").reset_index(drop=True),
                f"Mean effect by set {self._what()}": self.group_summary,
                "Tests": self.tidy()}

    def _what(self, said=lambda column, value: value):
        """"(mean_diff, B vs A)": the effect and its sign; ``said``: how a code is said (its label in LaTeX)."""
        return f"({said('effect_measure', self.effect_measure)}, {self.treatment} vs {self.baseline})"

    def _latex_headings(self):
        return {f"{table} {self._what()}": f"{table} {self._what(vocabulary.value_label)}"
                for table in ("Per-task effects", "Mean effect by set")}

    def _sides_key(self, latex=False):
        """Which of the by-set table's intervals are one-sided, read off its rows (audit s24: the table mixed a
        one-sided (low, Inf) with a two-sided interval, said only in the docstring and the plot's title); ``latex``:
        the sets and the column as a LaTeX table prints them, by their labels (audit s25: the caption said
        "(conf_low, Inf)")."""
        level = f"{fmt.signif(100 * self.conf_level)}%"
        said = []
        low_said = vocabulary.label("conf_low") if latex else "conf_low"
        for name, low, high in zip(self.group_summary["set"], self.group_summary["conf_low"],
                                   self.group_summary["conf_high"]):
            name = vocabulary.value_label("set", name) if latex else name
            if np.isfinite(low) and high == np.inf:
                said.append(f"{name}: a one-sided {level} interval ({low_said}, Inf), as the reporter's test of a "
                            "positive mean is")
            elif np.isfinite(low) and np.isfinite(high):
                said.append(f"{name}: a two-sided {level} interval")
            else:
                said.append(f"{name}: no interval")
        return "; ".join(said)

    def _summary_keys(self):
        return {f"Mean effect by set {self._what()}": self._sides_key()}

    def _latex_captions(self):
        return {f"Mean effect by set {self._what()}": fmt.sentence_start(self._sides_key(latex=True)) + "."}

    # ---- tidy output ---------------------------------------------------------------------
    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per test: the inspector, the reporter's naive test, and the gap and conservative tests when run."""
        low, high = self.conf_int
        rows = [{"term": "inspector", "estimate": self.estimate, "std_error": self.std_error,
                 "statistic": self.statistic, "df": self.df, "p_value": self.pvalue, "conf_low": low,
                 "conf_high": high, "null_value": 0.0, "method": value_label('inspector', self.inspector),
                 "pvalue_method": self.pvalue_method, "pvalue_mc_se": self.pvalue_mc_se,
                 "n_resamples": self.n_resamples, "significant": bool(self.pvalue <= self.beta)}]
        reporter_row = {"estimate": self.mean_reported, "df": self.reporter_df,
                        "method": value_label('reporter', self.reporter), **self._reporter_interval()}
        rows.append({"term": "reporter", **reporter_row, "statistic": self.reporter_statistic,
                     "p_value": self.pvalue_reporter, "null_value": 0.0,
                     "significant": bool(self.pvalue_reporter <= self.alpha)})
        if self.pvalue_gap is not None:
            rows.append({"term": "reporter_gap", **reporter_row, "statistic": self.gap_statistic,
                         "p_value": self.pvalue_gap, "null_value": self.mu_gap,
                         "significant": bool(self.pvalue_gap <= self.alpha)})
        if self.pvalue_conservative is not None:
            assert self.sigma is not None  # the conservative test is run with a known sigma
            rows.append({"term": "reporter_conservative", "estimate": self.mean_reported,
                         "statistic": self.mean_reported / self.sigma, "p_value": self.pvalue_conservative,
                         "method": f"conservative (best {self.n_reported} of {self.n_candidates})",
                         "pvalue_method": "monte_carlo", "pvalue_mc_se": self.pvalue_conservative_mc_se,
                         "n_resamples": self.n_resamples_conservative,
                         "significant": bool(self.pvalue_conservative <= self.alpha)})
        columns = ["term", "estimate", "std_error", "statistic", "df", "p_value", "conf_low", "conf_high",
                   "null_value", "method", "pvalue_method", "pvalue_mc_se", "n_resamples", "significant"]
        out = pd.DataFrame(rows).reindex(columns=columns)
        out["conf_level"] = self.conf_level
        out["alternative"] = "greater"
        for column in ("estimate", "std_error", "statistic", "df", "p_value", "conf_low", "conf_high",
                       "null_value", "pvalue_mc_se"):
            out[column] = pd.to_numeric(out[column]).astype(float)
        return out

    def _reporter_interval(self):
        """Standard error, interval and p-value method of the reported mean under the reporter's test (fields)."""
        return dict(self.reporter_interval)

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
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

    def _prose(self):
        """A methods-section paragraph describing the check and its outcome."""
        effect = {"mean_diff": "the difference of the agents' mean scores",
                  "std_diff": "the difference of the agents' mean scores over the pooled within-task sd",
                  "poi": "the probability of improvement minus 0.5 (Mann-Whitney U over all run pairs)"}
        measure = effect.get(self.effect_measure, f"the user-supplied effect '{self.effect_measure}'")
        # the complement is the other tasks with an effect, not the whole suite's: a task without the two agents'
        # runs (or a finite effect) is left out, and said so here (audit s19)
        left_out = self.effects.loc[self.effects["set"] == "dropped", "task"].tolist()
        complement = "every other task on which both agents have runs" + (
            f" and the effect is finite; {len(left_out)} left out: {fmt.join_and(left_out, limit=6)}"
            if left_out else "")
        design = {"complement": complement, "listed": "the listed held-out tasks",
                  "fresh": "fresh tasks run separately"}[self.heldout_design]
        flipped = "" if self.higher_is_better else " with the sign flipped so that positive means better"
        text = (f"We checked whether the {fmt.count(self.n_reported, 'task')} on which {self.treatment} was reported "
                f"against {self.baseline} {fmt.verb(self.n_reported, 'is')} representative (Komiyama and "
                f"Maehara, 2018). Each task's effect is "
                f"{measure}, computed from its runs{flipped}; "
                f"the mean effect is {fmt.signif(self.mean_reported, 4)} on the reported tasks and "
                f"{fmt.signif(self.mean_heldout, 4)} on {fmt.count(self.n_heldout, 'held-out task')} ({design}).")
        p_inspector = _p_text(self.pvalue)
        if self.inspector == "fisher_pitman":
            how = ("enumerating every subset: no random draws were made" if self.pvalue_method == "exact"
                   else f"from {self.n_resamples} random subsets")
            text += (f" A one-sided permutation test of the hypothesis that the reported tasks are a uniformly random "
                     f"subset of all {self.n_reported + self.n_heldout} tasks, on the difference of means, gave "
                     f"{p_inspector} ({how}).")
        else:
            df = "" if self.df is None else f", df = {fmt.signif(self.df, 4)}"
            text += (f" A one-sided {value_label('inspector', self.inspector)} of equal means gave "
                     f"{_STATISTIC_SYMBOL[self.inspector]} = {fmt.signif(self.statistic, 4)}{df}, {p_inspector}.")
        text += (f" The reporter's {value_label('reporter', self.reporter)} of a positive mean effect on the "
                 f"reported tasks gives {_p_text(self.pvalue_reporter)}")
        if self.pvalue_gap is not None:
            text += f", and {_p_text(self.pvalue_gap)} against a minimum improvement of {fmt.signif(self.mu_gap, 4)}"
        if self.pvalue_conservative is not None:
            text += (f"; the conservative p-value, which assumes the best {self.n_reported} of {self.n_candidates} "
                     f"candidate tasks were reported, is {fmt.signif(self.pvalue_conservative, 3)}")
        text += f". Verdict at alpha = {self.alpha} (reporter) and beta = {self.beta} (inspector): {self.verdict_text}."
        return text


def _p_text(p):
    text = fmt.format_pvalue(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"
