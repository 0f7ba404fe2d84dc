"""The linear mixed model's result: fields, tables and prose (reads fields, computes nothing)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt
from ...errors import OptionError
from ...options import check_confidence_level
from ..._typing import ColumnNames
from ...statistics import near_ties
from ...results import Result, resultclass
from ...vocabulary import label
from . import plots

_DDF_NAMES = {"satterthwaite": "Satterthwaite", "kenward-roger": "Kenward-Roger"}
#: adjust= -> (its name, emmeans' name of it, the family of the pairs' conf_low/conf_high): the one table of how a
#: result says each adjustment. emmeans gives Bonferroni's simultaneous intervals beside the p-values of R's p.adjust
#: methods (Holm's, Hochberg's, Hommel's, BH, BY), and so does mixed() (audit s32 rhabit32: tests/reference/
#: mixed_adjust_r.R); "none": intervals not adjusted
ADJUSTMENTS_SAID = {
    "tukey": ("Tukey", "tukey", "Tukey"), "holm": ("Holm", "holm", "Bonferroni"),
    "bonferroni": ("Bonferroni", "bonferroni", "Bonferroni"), "sidak": ("Sidak", "sidak", "Sidak"),
    "scheffe": ("Scheffe", "scheffe", "Scheffe"), "hochberg": ("Hochberg", "hochberg", "Bonferroni"),
    "hommel": ("Hommel", "hommel", "Bonferroni"), "bh": ("Benjamini-Hochberg", "BH", "Bonferroni"),
    "by": ("Benjamini-Yekutieli", "BY", "Bonferroni"), "none": ("no", "none", None),
}
#: the adjustments whose p-values bound the false discovery rate, not the family-wise error
FALSE_DISCOVERY = ("bh", "by")


def adjustment_heading(adjust: str) -> str:
    """'Tukey (studentized range)', 'Benjamini-Hochberg (false discovery rate)': the pairs' table heading's name."""
    name = ADJUSTMENTS_SAID[adjust][0]
    return (f"{name} (studentized range)" if adjust == "tukey" else f"{name} (false discovery rate)"
            if adjust in FALSE_DISCOVERY else name)


def intervals_said(adjust: str) -> str:
    """What the pairs' conf_low/conf_high are: 'simultaneous intervals (Bonferroni)', 'intervals, not adjusted'."""
    family = ADJUSTMENTS_SAID[adjust][2]
    return f"simultaneous intervals ({family})" if family else "intervals, not adjusted"


@resultclass
class MixedResult(Result):
    """Result of :func:`mixed`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    statistic, num_df, den_df, pvalue : float, int, float, float
        The omnibus F test that all agents' means are equal, as lmerTest's ``anova()`` gives it (type III,
        Satterthwaite's or Kenward-Roger's denominator df; Kenward-Roger's F is scaled as pbkrtest's), Satterthwaite's
        df formed in an orthonormal basis of the agents' contrasts, so that no renaming moves them (lmerTest's own
        with ``f_basis="lmertest"``; audit s33). Where some
        agents' runs mostly sit at a score cap (their pairs withheld, see ``comparisons``), the F of the model fitted
        to the other agents alone, or NaN (withheld) where fewer than two are left (audit s12).
    omnibus_agents : tuple of str
        The agents the F test compares: every agent, those not at a cap, or none (withheld).
    df : tuple
        ``(num_df, den_df)``, the F's degrees of freedom (R's ``parameter``).
    ddf : str
        ``"satterthwaite"`` or ``"kenward-roger"``: the df of every t and F.
    adjust : str
        Adjustment of the pairwise comparisons: ``"tukey"``, ``"holm"``, ``"bonferroni"``, ``"sidak"``,
        ``"scheffe"``, ``"hochberg"``, ``"hommel"``, ``"bh"``, ``"by"`` or ``"none"``.
    confidence_level : float
    agents, tasks : tuple of str
    counts : ndarray, shape (n_tasks, n_agents)
        Runs per cell.
    random_terms : tuple of str
        ``("task",)`` or ``("task", "task:agent")``: the random intercepts fitted.
    variance_sd : ndarray
        Standard deviations of the random intercepts (in ``random_terms`` order), then the residual's.
    sigma : float
        Residual standard deviation.
    theta : ndarray
        The random intercepts' standard deviations relative to ``sigma`` (lme4's theta, in ``random_terms``
        order).
    reml_criterion : float
        lme4's ``REMLcrit``: minus twice the restricted log-likelihood at the fit.
    converged, singular : bool
        Whether the optimiser reached a stationary point; whether a variance component is at (or within
        1e-4 relative of) zero (lme4's ``isSingular``).
    optimizer_message : str
    coefficients : DataFrame
        The fixed effects as lmerTest's summary shows them (treatment coding: the intercept is the first
        agent's mean, each other row that agent minus the first): term, estimate, std_error, df, statistic,
        p_value; statistic and p_value NaN in the rows of a pair whose test is withheld on runs at a score cap
        (see ``comparisons``).
    vcov : ndarray
        Covariance of the fixed effects used for the t tests (Kenward-Roger's adjusted one with that ddf).
    emmeans : DataFrame
        Each agent's estimated marginal mean: agent, estimate, std_error, df, statistic, p_value, conf_low,
        conf_high (emmeans). The intervals hold each agent's mean over the tasks analysed (conservatively: their
        standard errors count the tasks' spread, as the model's random tasks have it; measured coverage 0.975-1,
        ``mixed.means`` rows "tasks at hand" of ``rlstats/calibration.csv``). Read as intervals of the agent's mean
        over tasks drawn afresh, they fall short at 3 tasks where agents' differences vary from task to task
        (0.92 pooled over the measured designs, 0.917 at the worst); the notes quote the measured coverage there.
        The mean of an agent that did not run every task is the model's on the tasks without its runs (its effect
        the same on every task); a note names such agents.
    comparisons : DataFrame
        Every pair i < j in the agents' order, estimate = mean of agent_1 minus mean of agent_2: n_shared_tasks
        (tasks where both ran; 0 marks an indirect contrast, resting on the model rather than on a common task), std_error,
        df, statistic (t), p_value (unadjusted), p_adjusted, adjustment, conf_low and conf_high (simultaneous:
        Tukey's, Sidak's or Scheffe's with those, else Bonferroni's, as emmeans gives them), significant
        (p_adjusted at most 1 - confidence_level; False for the pairs of an agent with one run in all, whose numbers
        stay the model's: audit s33). The pairs of an
        agent whose runs mostly sit at a score cap have NaN for statistic, p-values and interval, and the others'
        std_error, df, tests and intervals come from the model fitted without such agents (audit s11; see
        :func:`rlstats.mixed`).
    task_effects : ndarray
        Predicted random task intercepts (conditional modes, lme4's ``ranef``), in ``tasks`` order.
    cell_effects : ndarray or None
        Predicted task x agent intercepts of the non-empty cells (task by task, agents in order).
    fitted_values, residuals : ndarray
        Per run, in the order of the data's rows (those used, as R's ``fitted()`` and ``residuals()``): fixed
        part plus predicted intercepts, and the run minus it.
    residual_normal_scores, task_normal_scores, cell_normal_scores : ndarray
        Normal quantiles at the plotting positions of each residual, task effect and task x agent effect (None
        without that term) (R's ``qqnorm``, tied values sharing the average of their ranks).
    units : str
        The scores' units as the notes give them, "normalised scores" or "the units of '<response>'": the contrast
        figure's axis says them.
    """

    statistic: float
    num_df: int
    den_df: float
    pvalue: float
    ddf: str
    adjust: str
    confidence_level: float
    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    counts: np.ndarray
    random_terms: tuple[str, ...]
    variance_sd: np.ndarray
    sigma: float
    theta: np.ndarray
    reml_criterion: float
    converged: bool
    singular: bool
    optimizer_message: str
    coefficients: pd.DataFrame
    vcov: np.ndarray
    emmeans: pd.DataFrame
    comparisons: pd.DataFrame
    task_effects: np.ndarray
    cell_effects: np.ndarray | None
    fitted_values: np.ndarray
    residuals: np.ndarray
    residual_normal_scores: np.ndarray
    task_normal_scores: np.ndarray
    cell_normal_scores: np.ndarray | None
    omnibus_agents: tuple[str, ...]
    units: str = ""

    _plot_kinds: ClassVar[dict] = {
        "contrasts": plots.plot_contrasts,
        "diagnostics": plots.plot_diagnostics,
    }
    _r_accessors: ClassVar[dict[str, str]] = {
        "confint": "confidence_interval() gives the pairs' simultaneous intervals, and the emmeans table's conf_low "
                   "and conf_high the agents' means' intervals",
        "anova": "the F test of the agents is statistic, num_df, den_df and pvalue (lmerTest's anova(); also glance())",
        "VarCorr": "variance_sd holds the random intercepts' standard deviations (random_terms order) then the "
                   "residual's; sigma and theta as lme4's; print(m) shows the table",
        "fixef": "coefficients is the fixed effects' table (treatment coding, as lmerTest's summary), vcov their "
                 "covariance",
        "ranef": "task_effects holds the task intercepts' conditional modes (lme4's ranef(m)$task, in tasks order), "
                 "cell_effects the task x agent ones",
        "coef": "coefficients is the fixed effects' table; task_effects the task intercepts' conditional modes",
        "fitted": "fitted_values, per run in the data's row order",
        "resid": "residuals, per run in the data's row order",
        "isSingular": "singular",
        "REMLcrit": "reml_criterion",
        "pairs": "comparisons (or tidy()) holds every pair of agents' difference, emmeans' pairs()",
    }

    @property
    def df(self) -> tuple[int, float]:
        """The F test's ``(num_df, den_df)``."""
        return (self.num_df, self.den_df)

    def confidence_interval(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Simultaneous intervals of the pairwise differences (``tidy()``'s rows) at the level computed."""
        if confidence_level is not None:  # a level rlstats.mixed would refuse is named as it would name it
            confidence_level = check_confidence_level(confidence_level)
        if confidence_level is not None and not np.isclose(confidence_level, self.confidence_level):
            raise OptionError(f"the intervals were computed at confidence_level={self.confidence_level}; rerun "
                              f"rlstats.mixed(..., confidence_level={confidence_level})")
        return self.comparisons[["agent_1", "agent_2", "conf_low", "conf_high"]].copy()

    # ---- printing -------------------------------------------------------------------
    def _alpha(self):
        """The level the F test and the pairs are judged at, 1 - confidence_level (0.05, not 0.050000000000000044)."""
        return round(1 - self.confidence_level, 12)

    def _statistic_line(self):
        if not self.omnibus_agents:  # audit s12: withheld with the saturated agents' pairs
            return f"F test withheld: {fmt.plural(self._arm_word)}' runs at a score cap (see the notes)"
        line = (f"F = {fmt.signif(self.statistic)}, num df = {self.num_df}, denom df = {fmt.signif(self.den_df)}, "
                f"{fmt.pvalue_phrase(self.pvalue, alpha=[self._alpha()])}")
        if len(self.omnibus_agents) < self.n_agents:
            names = fmt.listed(fmt.names_shown(self.omnibus_agents, self.agents), 8)
            line += f" ({fmt.plural(self._arm_word)} {names} only: see the notes)"
        return line

    def _variance_table(self):
        groups = [*self.random_terms[::-1], "Residual"]
        sds = [*self.variance_sd[:-1][::-1], self.variance_sd[-1]]
        return pd.DataFrame({"group": groups, "variance": np.square(sds), "std_dev": sds})

    def _extra_lines(self):
        lines = [f"REML criterion at convergence: {fmt.signif(self.reml_criterion, 6)}", "", "Random effects:"]
        table = self._variance_table().rename(columns={"group": "Groups", "variance": "Variance",
                                                       "std_dev": "Std.Dev."})
        lines += ["  " + line for line in fmt.table_text(table, 4).splitlines()]
        levels = {self.random_terms[0]: self.n_tasks}
        if len(self.random_terms) > 1:
            levels[self.random_terms[1]] = int((self.counts > 0).sum())
        groups = "; ".join(f"{term}, {levels[term]}" for term in self.random_terms[::-1])
        lines += [f"Number of obs: {self.nobs}, groups: {groups}", "",
                  f"Fixed effects ({_DDF_NAMES[self.ddf]}'s df):"]
        coef = self.coefficients.rename(columns={"estimate": "Estimate", "std_error": "Std. Error",
                                                 "statistic": "t value", "p_value": "Pr(>|t|)"})
        lines += ["  " + line for line in fmt.table_text(coef, 5).splitlines()]
        lines += ["", f"Pairwise differences of estimated marginal means ({_DDF_NAMES[self.ddf]}'s df):"]
        pairs = self.comparisons
        indirect = self._indirect()
        shown = pd.DataFrame({"contrast": [fmt.difference_label(a, b) + (" (indirect)" if far else "")
                                           for a, b, far in zip(pairs["agent_1"], pairs["agent_2"], indirect)],
                              "estimate": pairs["estimate"], "SE": pairs["std_error"], "df": pairs["df"],
                              "t.ratio": pairs["statistic"], "p.value": pairs["p_adjusted"]})
        lines += ["  " + line for line in fmt.table_text(shown, 5).splitlines()]
        lines.append(self._adjustment_sentence())
        if indirect.any():
            lines.append(f"(indirect): the pair never ran on a common {self._block_word}; its contrast rests on the "
                         "model (see the notes)")
        return lines

    def _single_run_sentence(self, single):
        """The pairs of an agent with one run that the adjusted p-values alone would call different, not counted
        (audit s33 mixed33; ``_api._single_run_notes``)."""
        pairs = self.comparisons
        first, second = (np.isin(pairs[column], np.asarray(self.agents, dtype=object)[single])
                         for column in ("agent_1", "agent_2"))
        below = (first | second) & (pairs["p_adjusted"].to_numpy(dtype=float) <= 1 - self.confidence_level)
        if not below.any():
            return ""
        return (" Not counted, one run behind " + fmt.join_and(fmt.names_shown(
            [a for a, s in zip(self.agents, single) if s], self.agents)) + " (see the notes): "
                + "; ".join(f"{a} vs {b} (adjusted p {fmt.format_pvalue(p)})"
                            for a, b, p in zip(pairs["agent_1"][below], pairs["agent_2"][below],
                                               pairs["p_adjusted"][below])) + ".")

    def _indirect(self):
        """Per pair: it never ran on a common task (n_shared_tasks = 0), so its contrast is the model's."""
        return self.comparisons["n_shared_tasks"].to_numpy() == 0

    def _adjustment_sentence(self):
        # with saturated agents the pairs given come from the refit of the others, adjusted over their family alone
        family = len(self.omnibus_agents) if 0 < len(self.omnibus_agents) < self.n_agents else self.n_agents
        if self.adjust == "tukey":
            return f"P value adjustment: tukey method for comparing a family of {family} estimates"
        if self.adjust == "scheffe":  # the rank of the pairs' contrasts
            return f"P value adjustment: scheffe method with rank {family - 1}"
        if self.adjust == "none":
            return "P values are not adjusted for multiple comparisons"
        return f"P value adjustment: {ADJUSTMENTS_SAID[self.adjust][1]} method for {family * (family - 1) // 2} tests"

    def _intervals_drawn(self):
        """The pairs' intervals as the figure says them: 'Tukey', 'Bonferroni (Holm p-values)', 'unadjusted'."""
        name, _, family = ADJUSTMENTS_SAID[self.adjust]
        return "unadjusted" if family is None else family if family == name else f"{family} ({name} p-values)"

    def _summary_tables(self):
        # the printed block above them already holds the variance components and the fixed effects
        level = fmt.signif(100 * self.confidence_level, 3)
        # the data's columns by their names (audit s32 block32)
        over = f"each {self._arm_word}'s mean over these {fmt.count(self.n_tasks, self._block_word)}"
        return {f"Estimated marginal means ({level}% intervals of {over})":
                self.emmeans, self._pairs_name(): self.tidy()}

    def _pairs_name(self):
        level = fmt.signif(100 * self.confidence_level, 3)
        return f"Pairwise differences ({adjustment_heading(self.adjust)} adjustment; {level}% {intervals_said(self.adjust)})"

    def _summary_keys(self):
        # which way a difference reads, under the table in every format (audit s27: no table said it)
        return {self._pairs_name(): f"estimate: the {label('agent_1')}'s estimated marginal mean minus the "
                                    f"{label('agent_2')}'s"}

    # ---- tidy output ------------------------------------------------------------------
    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per pair of agents: the difference of their estimated marginal means (agent_1 - agent_2)."""
        return self.comparisons.copy()

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """The fit and the omnibus F test in one row."""
        sds = dict(zip(("sd_task", "sd_task_agent"), self.variance_sd[:-1]))
        return pd.DataFrame([{
            "statistic": self.statistic, "df": self.num_df, "den_df": self.den_df, "p_value": self.pvalue,
            "ddf_method": self.ddf, "method": self.method, "sigma": self.sigma,
            "sd_task": sds.get("sd_task"), "sd_task_agent": sds.get("sd_task_agent", np.nan),
            "reml_criterion": self.reml_criterion, "singular": self.singular, "converged": self.converged,
            "n_agents": self.n_agents, "n_tasks": self.n_tasks, "n_obs": self.nobs,
        }])

    def _prose(self):
        runs = self.counts[self.counts > 0]
        each = (fmt.count(runs.min(), "run") if runs.min() == runs.max()
                else f"{runs.min()} to {runs.max()} runs")
        # audit s21: where agents skipped tasks, "per agent and task" read as every agent on every task
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s33 words33b)
        per_cell = (f"{each} per {agent} and {task}" if runs.size == self.counts.size else
                    f"{each} in each of the {runs.size} {agent}-{task} cells run (of {self.counts.size})")
        random = f"random {task} intercepts" + (f" and random {task} x {agent} intercepts"
                                                if len(self.random_terms) > 1 else "")
        text = (f"We fitted a linear mixed model by REML to {fmt.count(self.n_agents, agent)} on "
                f"{fmt.count(self.n_tasks, task)} ({per_cell}, {self.nobs} runs), with fixed {agent} effects "
                f"and {random} (Bates et al., 2015). "
                f"The estimated standard deviations were "
                + ", ".join(f"{fmt.signif(sd, 3)} ({term})" for term, sd in zip(self.random_terms,
                                                                                self.variance_sd))
                + f" and {fmt.signif(self.sigma, 3)} (residual). ")
        df_how = ("Satterthwaite's method (Kuznetsova et al., 2017)" if self.ddf == "satterthwaite" else
                  "Kenward and Roger's method, with their adjusted covariance of the fixed effects")
        verdict = "differ" if self.pvalue <= 1 - self.confidence_level else "were not shown to differ"
        pv = fmt.format_pvalue(self.pvalue, alpha=[self._alpha()])
        text += f"Degrees of freedom came from {df_how}. "
        if not self.omnibus_agents:  # audit s12: withheld on runs at a cap
            text += f"No F test of the {fmt.plural(agent)} is given (runs at a score cap; see the notes)."
        else:
            alone = fmt.join_and(fmt.names_shown(self.omnibus_agents, self.agents), 8)
            which = (f"The {fmt.plural(agent)}" if len(self.omnibus_agents) == self.n_agents else
                     f"The {fmt.plural(agent)} not at a score cap ({alone}, fitted alone)")
            text += (f"{which} {verdict} (F = {fmt.signif(self.statistic, 4)} on {self.num_df} and "
                     f"{fmt.signif(self.den_df, 4)} df, p {pv if pv.startswith('<') else '= ' + pv}).")
        # means equal but for rounding (identical agents) keep the agents' order, whatever the numpy version's last digit
        means = near_ties(self.emmeans["estimate"].to_numpy(), np.zeros(self.n_agents, dtype=np.intp))[0]
        order = np.argsort(-means, kind="stable")
        single = self.counts.sum(axis=0) == 1  # audit s33 mixed33: a mean of one run is marked
        # at the digits of their summary table where it widens them (audit s36 digits36: "1e+06" at + 1e6)
        said = fmt.signif_levels(self.emmeans[["estimate"]].to_numpy(dtype=float), 3, among=self.emmeans)
        text += " Estimated marginal means: " + fmt.name_list(
            [self.agents[j] for j in order], after=[("(one run) " if single[j] else "") + said[j] for j in order],
            among=self.agents) + "."
        sig = self.comparisons[self.comparisons["significant"]]
        adjust = ("no adjustment" if self.adjust == "none" else f"{ADJUSTMENTS_SAID[self.adjust][0]}'s adjustment"
                  + (" (false discovery rate)" if self.adjust in FALSE_DISCOVERY else ""))
        indirect = self._indirect()[self.comparisons["significant"].to_numpy()]
        if len(sig):
            text += (f" Pairs differing with {adjust} at level {fmt.signif(1 - self.confidence_level, 3)}: "
                     + "; ".join(f"{a} vs {b}" + (f" (indirect: never on a common {task})" if far else "")
                                 for a, b, far in zip(sig["agent_1"], sig["agent_2"], indirect)) + ".")
        else:
            text += f" No pair differs with {adjust} at level {fmt.signif(1 - self.confidence_level, 3)}."
        text += self._single_run_sentence(single)
        withheld = self.comparisons[self.comparisons["p_adjusted"].isna()]
        if len(withheld):  # audit s11: the pairs of agents whose runs sit at a cap (see the notes)
            text += (" Tests withheld (runs at a score cap, see the notes): "
                     + "; ".join(f"{a} vs {b}" for a, b in zip(withheld["agent_1"], withheld["agent_2"])) + ".")
        return text
