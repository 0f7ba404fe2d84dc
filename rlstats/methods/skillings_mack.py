"""The blocked rank test: Skillings–Mack (1981) and Mack–Skillings (1980).

``skillings_mack(df, "score ~ agent | task")`` ranks the runs within each
task and asks whether the agents' rank sums differ more than chance allows.

* Every agent x task cell holds at most one run: the Skillings–Mack (1981)
  statistic for incomplete blocks (missing cells allowed).  On complete
  designs without ties it equals Friedman's statistic.
* Any cell holds several runs (seeds): the Mack–Skillings (1980) statistic on
  the raw runs, which ranks all runs of a task jointly, so nothing is averaged
  away.  ``variant="skillings_mack"`` with ``within_cell="mean"|"median"``
  aggregates the seeds first instead, and says so.

The numbers come from :mod:`rlstats.methods._blocked_ranks`; this module turns
options into one frozen options object, calls the kernels, and wraps the
numbers in :class:`SkillingsMackResult`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from .. import format as fmt
from .. import plotting
from ..design import design_of
from ..errors import DesignError, OptionError
from ..options import check_bool, check_choice, check_fraction, check_int
from ..progress import progress_bar
from ..resampling import seed_sequence
from ..results import Result, resultclass
from . import _blocked_ranks as kernels

VARIANTS = ("auto", "skillings_mack", "mack_skillings")
WITHIN_CELL = (None, "mean", "median")
PVALUE_METHODS = ("asymptotic", "monte_carlo", "exact")

_TITLES = {
    "skillings_mack": "Skillings-Mack test for incomplete blocks",
    "mack_skillings": "Mack-Skillings test for blocks with replicated runs",
}
_STATISTIC_NAMES = {"skillings_mack": "Skillings-Mack chi-squared", "mack_skillings": "Mack-Skillings chi-squared"}
_REFERENCES = {
    "skillings_mack": "Skillings and Mack (1981)",
    "mack_skillings": "Mack and Skillings (1980)",
}
_ADJUSTMENT_NAMES = {
    "tukey": "Tukey single-step (studentized range, df = Inf; the critical difference)",
    "holm": "Holm step-down on mean-rank differences over shared tasks",
    "bonferroni": "Bonferroni on mean-rank differences over shared tasks",
}


@dataclass(frozen=True)
class SkillingsMackOptions:
    variant: str = "auto"
    within_cell: str | None = None
    pvalue: str = "asymptotic"
    n_resamples: int = 10_000
    tie_correction: bool = False
    higher_is_better: bool = True
    alpha: float = 0.05
    adjustment: str = "auto"
    na_action: str = "raise"
    progress: bool = False

    @classmethod
    def checked(cls, **options):
        """Validate every option once; raises OptionError naming the bad one."""
        within = options["within_cell"]
        if within not in WITHIN_CELL:
            raise OptionError(f"within_cell={within!r} is not one of the allowed values: None, 'mean', 'median'")
        return cls(
            variant=check_choice("variant", options["variant"], VARIANTS),
            within_cell=within,
            pvalue=check_choice("pvalue", options["pvalue"], PVALUE_METHODS),
            n_resamples=check_int("n_resamples", options["n_resamples"], minimum=1),
            tie_correction=check_bool("tie_correction", options["tie_correction"]),
            higher_is_better=check_bool("higher_is_better", options["higher_is_better"]),
            alpha=check_fraction("alpha", options["alpha"]),
            adjustment=check_choice("adjustment", options["adjustment"], kernels.ADJUSTMENTS),
            na_action=options["na_action"],
            progress=check_bool("progress", options["progress"]),
        )


@resultclass
class SkillingsMackResult(Result):
    """Result of :func:`skillings_mack`.

    Attributes
    ----------
    statistic : float
        The Skillings–Mack or Mack–Skillings chi-squared statistic.
    df : int
        Degrees of freedom: the rank of the null covariance (k - 1 when the
        design is connected).
    pvalue : float
        The p-value of ``pvalue_method``.
    pvalue_method : str
        ``"asymptotic"`` (chi-squared), ``"monte_carlo"`` or ``"exact"``.
    pvalue_asymptotic : float
        The chi-squared p-value, always computed.
    pvalue_mc_se : float or None
        Monte Carlo standard error of ``pvalue`` (Monte Carlo only).
    n_resamples : int or None
        Permutations drawn (Monte Carlo only).
    null_distribution : ndarray or None
        Permutation statistics (Monte Carlo) or None.
    variant : str
        ``"skillings_mack"`` (1981, one value per cell) or ``"mack_skillings"``
        (1980, all runs ranked within task).
    within_cell : str or None
        How seeds were aggregated before the 1981 statistic, if they were.
    connected : bool
        Every pair of agents is linked through shared tasks (df = k - 1).
    agents, tasks : tuple of str
    counts : ndarray, shape (n_tasks, n_agents)
        Runs per cell used by the test.
    mean_ranks : ndarray, shape (n_agents,)
        Mean within-task rank on the 1..k scale, 1 = best.
    comparisons : DataFrame
        One row per pair: agent_1, agent_2, n_shared_tasks, estimate (mean
        over the tasks both ran of agent_1's minus agent_2's mean rank),
        statistic (z against the exact permutation variance), p_value,
        p_adjusted, significant.
    posthoc_adjustment : str
        ``"tukey"``, ``"holm"`` or ``"bonferroni"``.
    critical_difference : float or None
        Smallest significant difference of mean ranks (tukey, balanced only).
    alpha : float
    """

    statistic: float
    df: int
    pvalue: float
    pvalue_method: str
    pvalue_asymptotic: float
    pvalue_mc_se: float | None
    n_resamples: int | None
    null_distribution: np.ndarray | None
    variant: str
    within_cell: str | None
    tie_correction: bool
    has_ties: bool
    connected: bool
    agents: tuple
    tasks: tuple
    counts: np.ndarray
    mean_ranks: np.ndarray
    comparisons: pd.DataFrame
    posthoc_adjustment: str
    critical_difference: float | None
    alpha: float

    _plot_kinds: ClassVar[dict] = {
        "critical_difference": plotting.plot_critical_difference,
        "mean_ranks": plotting.plot_mean_ranks,
        "null_distribution": plotting.plot_null_distribution,
    }

    def significance_matrix(self):
        """Symmetric (k, k) boolean matrix: True where a pair differs after adjustment."""
        index = {a: i for i, a in enumerate(self.agents)}
        matrix = np.zeros((self.n_agents, self.n_agents), dtype=bool)
        for a, b, sig in zip(self.comparisons["agent_1"], self.comparisons["agent_2"],
                             self.comparisons["significant"]):
            matrix[index[a], index[b]] = matrix[index[b], index[a]] = bool(sig)
        return matrix

    def pvalue_matrix(self):
        """Square DataFrame of adjusted pairwise p-values (diagonal 1), as scikit-posthocs shows them."""
        matrix = pd.DataFrame(1.0, index=list(self.agents), columns=list(self.agents))
        for a, b, p in zip(self.comparisons["agent_1"], self.comparisons["agent_2"], self.comparisons["p_adjusted"]):
            matrix.loc[a, b] = matrix.loc[b, a] = p
        return matrix

    # ---- printing -------------------------------------------------------------------
    def _statistic_line(self):
        return (f"{_STATISTIC_NAMES[self.variant]} = {fmt.signif(self.statistic)}, df = {self.df}, "
                f"{fmt.pvalue_phrase(self.pvalue_asymptotic)}")

    def _extra_lines(self):
        lines = []
        if self.pvalue_method == "monte_carlo":
            lines.append(f"permutation {fmt.pvalue_phrase(self.pvalue)} ({self.n_resamples} permutations within "
                         f"tasks, Monte Carlo SE {fmt.signif(self.pvalue_mc_se, 2)})")
        elif self.pvalue_method == "exact":
            lines.append(f"exact permutation {fmt.pvalue_phrase(self.pvalue)}")
        names = list(self.agents)
        values = [fmt.signif(r, 4) for r in self.mean_ranks]
        widths = [max(len(n), len(v)) for n, v in zip(names, values)]
        lines.append("mean ranks (1 = best):")
        lines.append(" ".join(n.rjust(w) for n, w in zip(names, widths)))
        lines.append(" ".join(v.rjust(w) for v, w in zip(values, widths)))
        n_sig = int(self.comparisons["significant"].sum())
        cd = "" if self.critical_difference is None else \
            f", critical difference {fmt.signif(self.critical_difference, 4)} in mean rank"
        lines.append(f"post hoc ({self.posthoc_adjustment}{cd}, alpha = {self.alpha}): "
                     f"{n_sig} of {len(self.comparisons)} pairs differ")
        return lines

    def _summary_tables(self):
        ranks = pd.DataFrame({"agent": list(self.agents), "mean_rank": self.mean_ranks,
                              "n_tasks_present": (self.counts > 0).sum(axis=0),
                              "n_runs": self.counts.sum(axis=0)})
        ranks = ranks.sort_values("mean_rank", kind="stable").reset_index(drop=True)
        return {"Mean ranks (1 = best)": ranks,
                f"Pairwise comparisons ({_ADJUSTMENT_NAMES[self.posthoc_adjustment]})": self.tidy()}

    # ---- tidy output ------------------------------------------------------------------
    def tidy(self):
        """One row per pair of agents: estimate = difference of mean ranks (agent_1 - agent_2, negative: agent_1 better)."""
        out = self.comparisons.copy()
        out["adjustment"] = self.posthoc_adjustment
        return out

    def glance(self):
        """The omnibus test in one row."""
        return pd.DataFrame([{
            "statistic": self.statistic, "df": self.df, "p_value": self.pvalue, "pvalue_method": self.pvalue_method,
            "method": self.method, "variant": self.variant, "connected": self.connected,
            "n_agents": self.n_agents, "n_tasks": self.n_tasks, "n_obs": self.nobs,
            "n_resamples": self.n_resamples, "pvalue_mc_se": self.pvalue_mc_se,
        }])

    def report(self):
        """A methods-section paragraph describing the test and its outcome."""
        runs = self.counts[self.counts > 0]
        if self.variant == "mack_skillings":
            how = ("ranking all runs of a task jointly (mid-ranks for ties) and summing each agent's mean "
                   "within-task rank over tasks, so that every seed counts and none is averaged away")
        elif self.within_cell is not None:
            how = (f"on the {self.within_cell} of each agent's runs per task, ranked within task "
                   "(mid-ranks for ties), missing cells allowed")
        else:
            how = "ranking the agents within each task (mid-ranks for ties), missing cells allowed"
        per_cell = f"{runs.min()} run{'s' if runs.max() > 1 else ''} per agent and task" if runs.min() == runs.max() \
            else f"{runs.min()} to {runs.max()} runs per agent and task"
        missing = int((self.counts == 0).sum())
        design = f"{self.n_agents} agents on {self.n_tasks} tasks ({per_cell}"
        design += f", {missing} empty cell{'s' if missing != 1 else ''})" if missing else ")"
        pv = fmt.format_pvalue(self.pvalue)
        p_text = f"p {pv}" if pv.startswith("<") else f"p = {pv}"
        how_p = {"asymptotic": "from the chi-squared distribution",
                 "monte_carlo": f"from {self.n_resamples} permutations of the ranks within tasks",
                 "exact": "from the exact permutation distribution"}[self.pvalue_method]
        verdict = "rejected" if self.pvalue <= self.alpha else "did not reject"
        text = (f"We compared {design} with the {_REFERENCES[self.variant]} rank test, {how}. "
                f"The test {verdict} the hypothesis that all agents perform alike at alpha = {self.alpha} "
                f"(chi-squared = {fmt.signif(self.statistic)}, df = {self.df}, {p_text}, p-value {how_p}"
                f"{', with tie correction' if self.tie_correction else ''}).")
        order = np.argsort(self.mean_ranks, kind="stable")
        ranking = ", ".join(f"{self.agents[j]} ({fmt.signif(self.mean_ranks[j], 3)})" for j in order)
        text += f" Mean ranks (1 = best): {ranking}."
        sig = self.comparisons[self.comparisons["significant"]]
        if self.critical_difference is not None:
            post = (f" Post hoc, pairs whose mean ranks differ by at least the critical difference "
                    f"{fmt.signif(self.critical_difference, 3)} (Tukey single-step, alpha = {self.alpha}) differ")
        else:
            post = (f" Post hoc, each pair's difference of mean ranks over the tasks both agents ran was tested "
                    f"against its exact permutation variance with {self.posthoc_adjustment.capitalize()} "
                    f"adjustment at alpha = {self.alpha}")
        pairs = "; ".join(f"{a} vs {b}" for a, b in zip(sig["agent_1"], sig["agent_2"]))
        text += post + (f": {pairs}." if len(sig) else ": no pair differs.")
        if not self.connected:
            text += " The design is not connected (some agents never share a task), so df < k - 1."
        if self.notes:
            text += " " + " ".join(n[0].upper() + n[1:] + ("" if n.endswith(".") else ".") for n in self.notes)
        return text


def _cells_of(design, summary):
    """The design's runs replaced by one value per non-empty cell (mean or median)."""
    matrix = design.cell_matrix(summary)
    task, agent = np.nonzero(~np.isnan(matrix))
    return matrix[task, agent], agent, task


def _choose_variant(options, design):
    replicated = design.max_runs_per_cell > 1
    if options.variant == "auto":
        if options.within_cell is not None and replicated:
            return "skillings_mack"
        return "mack_skillings" if replicated else "skillings_mack"
    if options.variant == "skillings_mack" and replicated and options.within_cell is None:
        raise DesignError(
            f"found up to {design.max_runs_per_cell} runs per (agent, task) cell; the Skillings-Mack (1981) "
            "statistic needs one value per cell: pass within_cell=\"mean\" or \"median\" to aggregate the seeds "
            "first, or use variant=\"mack_skillings\", which ranks every run")
    return options.variant


def skillings_mack(data, formula=None, *, variant="auto", within_cell=None, pvalue="asymptotic",
                   n_resamples=10_000, tie_correction=False, higher_is_better=True, alpha=0.05,
                   adjustment="auto", na_action="raise", rng=None, progress=False, eval_env=None):
    """Blocked rank test of whether agents differ across tasks (Skillings–Mack / Mack–Skillings).

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent | task"`` (or ``task/seed`` to name the seed column).
    variant : {"auto", "skillings_mack", "mack_skillings"}
        ``"auto"``: Skillings–Mack (1981) when every cell has at most one run,
        Mack–Skillings (1980) on the raw runs when any cell has more.
    within_cell : {None, "mean", "median"}
        With ``variant="skillings_mack"`` on replicated data, aggregate each
        cell's runs first (stated in the result).
    pvalue : {"asymptotic", "monte_carlo", "exact"}
        Chi-squared with df = rank of the covariance (default); permutation
        of the observed mid-ranks within tasks (``n_resamples``, ``rng``);
        or the exact permutation distribution where enumeration is feasible.
    n_resamples : int
        Permutations for ``pvalue="monte_carlo"``.
    tie_correction : bool
        Divide each task's null variance by the tie factor; reproduces R's
        ``friedman.test`` on complete unreplicated designs.  Off by default,
        as in every reference implementation of these tests.
    higher_is_better : bool
        Direction of the mean ranks and post-hoc signs (rank 1 = best).
    alpha : float
        Level of the post-hoc decisions and of the report's verdict.
    adjustment : {"auto", "tukey", "holm", "bonferroni"}
        Post-hoc multiplicity adjustment; ``"auto"``: Tukey (the critical
        difference) on balanced complete designs, Holm otherwise.
    na_action : {"raise", "drop"}
        Missing values: an error, or drop the rows and say so.
    rng : None, int or numpy.random.Generator
        Seed of the permutations (recorded in the result).
    progress : bool
        Show a progress bar during the permutations.
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up; by default the
        caller's frame.

    Returns
    -------
    SkillingsMackResult

    Raises
    ------
    FormulaError, DesignError, OptionError

    References
    ----------
    Skillings, J. H. and Mack, G. A. (1981), Technometrics 23(2), 171-177.
    Mack, G. A. and Skillings, J. H. (1980), JASA 75(372), 947-951.
    Casesa, R. (2024), Statistical Methods for Reinforcement Learning Policy
    Comparison, PhD thesis, eqs. 2.13-2.23 (eq. 2.17 with the sign corrected).

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=10, seeds=1, effect=2.0, rng=0)
    >>> res = rlstats.skillings_mack(df, "score ~ agent | task")
    >>> res.variant, res.df
    ('skillings_mack', 2)
    """
    options = SkillingsMackOptions.checked(
        variant=variant, within_cell=within_cell, pvalue=pvalue, n_resamples=n_resamples,
        tie_correction=tie_correction, higher_is_better=higher_is_better, alpha=alpha, adjustment=adjustment,
        na_action=na_action, progress=progress)
    design = design_of(data, formula, na_action=na_action, eval_env=1 if eval_env is None else eval_env)
    if not design.has_blocks:
        raise DesignError(f"the blocked rank test needs blocks: write '{design.formula.text} | task'")
    return _run(design, options, rng)


def _run(design, options, rng):
    variant = _choose_variant(options, design)
    notes = list(design.notes)
    y, agent, task = design.y, design.agent, design.task
    within = None
    if variant == "skillings_mack" and design.max_runs_per_cell > 1:
        within = options.within_cell
        y, agent, task = _cells_of(design, within)
        notes.append(f"{design.nobs} runs aggregated to {y.size} cell {within}s (within_cell=\"{within}\") "
                     "before ranking")
    setup = kernels.build_setup(y, agent, task, design.n_agents, design.n_tasks, variant=variant,
                                tie_correction=options.tie_correction)
    statistic = kernels.observed_statistic(setup)
    p_asymptotic = kernels.asymptotic_pvalue(setup, statistic)
    p, mc_se, n_resamples, null, seed = p_asymptotic, None, None, None, None
    if options.pvalue == "monte_carlo":
        ss, seed = seed_sequence(rng)
        with progress_bar(options.n_resamples, options.progress, "permutations") as advance:
            mc = kernels.monte_carlo_test(setup, options.n_resamples, ss, progress=advance)
        p, mc_se, n_resamples, null = mc.pvalue, mc.standard_error, mc.n_resamples, mc.null_distribution
    elif options.pvalue == "exact":
        p = kernels.exact_pvalue(kernels.exact_null(setup), statistic)
    if setup.has_ties and not options.tie_correction and options.pvalue == "asymptotic":
        notes.append("ties were given mid-ranks without tie correction, which makes the chi-squared p-value "
                     "conservative; pvalue=\"monte_carlo\" keeps the ties in its null distribution")
    posthoc = kernels.pairwise(setup, higher_is_better=options.higher_is_better, adjustment=options.adjustment,
                               alpha=options.alpha)
    untestable = int((posthoc.n_shared == 0).sum())
    if untestable:
        notes.append(f"{untestable} pair(s) of agents never ran on a common task and are not compared post hoc")
    return SkillingsMackResult(
        method=_TITLES[variant] + (f" on cell {within}s" if within else ""),
        formula=design.formula, data_name=design.data_name, nobs=design.nobs, notes=tuple(notes),
        options={**asdict(options), "variant_used": variant}, seed=seed,
        statistic=statistic, df=setup.df, pvalue=p, pvalue_method=options.pvalue,
        pvalue_asymptotic=p_asymptotic, pvalue_mc_se=mc_se, n_resamples=n_resamples, null_distribution=null,
        variant=variant, within_cell=within, tie_correction=options.tie_correction, has_ties=setup.has_ties,
        connected=setup.connected, agents=design.agents, tasks=design.tasks, counts=setup.counts,
        mean_ranks=posthoc.mean_rank, comparisons=_comparisons_frame(design.agents, posthoc),
        posthoc_adjustment=posthoc.adjustment, critical_difference=posthoc.cd_mean_rank, alpha=options.alpha)


def _comparisons_frame(agents, posthoc):
    names = np.asarray(agents, dtype=object)
    return pd.DataFrame({
        "agent_1": names[posthoc.agent_u], "agent_2": names[posthoc.agent_v],
        "n_shared_tasks": posthoc.n_shared, "estimate": posthoc.mean_rank_diff, "statistic": posthoc.z, "p_value": posthoc.pvalue,
        "p_adjusted": posthoc.pvalue_adjusted, "significant": posthoc.reject,
    })
