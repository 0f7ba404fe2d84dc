"""The Bayesian comparisons' result: fields, tables and prose (reads fields, computes nothing)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt
from ..._typing import ColumnNames
from ...results import Result, resultclass
from ...vocabulary import label
from . import plots

_MODELS = {"signed_rank": "Bayesian signed-rank test", "hierarchical": "hierarchical model"}
ACROSS = plots.ACROSS  # what each model's estimate across tasks is called (the figures' labels too)
#: the words of the note on chains run again longer (written by _api, read by the printed header)
RUN_AGAIN = "were run again with warm-up and draws extended to"
#: the share at which a probability is read as a decision ("practically equivalent" where P(rope) reaches it,
#: "better" or "worse" where P(better) or P(worse) does; _api's notes quote its measured errors), which no printed
#: share may round onto from either side (audit s22: 3799 of 4000 draws read "P(worse) = 0.95" in the report)
DECISION_THRESHOLD = 0.95
WITHHELD, WITHHELD_CELL = plots.WITHHELD, plots.WITHHELD_CELL  # a pair that never met: the figures' words too
WITHHELD_REASON = plots.WITHHELD_REASON
#: the hierarchical model's priors (kernels.Priors, as _api sets them), in the print and the report (audit s19)
PRIORS = ("priors on the run differences x divided by the mean over tasks of their sd (Corani et al. 2017, as baycomp "
          "sets them): delta0 ~ U(-max|x|, max|x|), sigma0 ~ U(0, 1000 sd of the task means), sigma_i ~ U(0, 1000), "
          "nu - 1 ~ Gamma(alpha, beta), alpha ~ U(1, 2), beta ~ U(0.01, 0.1)")


@resultclass
class BayesResult(Result):
    """Result of :func:`bayes`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    model : str
        ``"signed_rank"`` or ``"hierarchical"``.
    rope : float
        Half-width of the region of practical equivalence.
    rope_scale : str
        What its units are: ``"normalised scores"`` or ``"the units of '<response>'"``.
    higher_is_better : bool
        Differences are agent_1 minus agent_2 when True, agent_2 minus agent_1 when False: positive means agent_1
        is better either way.
    confidence_level : float
    agents, tasks : tuple of str
    counts : ndarray, shape (n_tasks, n_agents)
        Runs per cell.
    comparisons : DataFrame
        One row per pair (``tidy()``): agent_1, agent_2, p_better, p_rope, p_worse, with the signed-rank model
        pseudo_median (the posterior median of the pseudo-median difference: the median of the Dirichlet-weighted
        Walsh averages of the task differences, whose masses the three probabilities are about), estimate (posterior
        mean of the difference across tasks: the signed-rank model's Dirichlet-weighted mean of the task differences,
        which can have the other sign than pseudo_median, the hierarchical model's delta0, the centre (location) of the
        tasks' Student-t, which is not their mean and which its probabilities are about), conf_low
        and conf_high (the estimate's equal-tailed credible interval), n_tasks; with the
        hierarchical model also p_better_next, p_rope_next, p_worse_next (a next task's difference: baycomp's
        ``HierarchicalTest`` probabilities), r_hat (the largest over the pair's parameters) and ess_bulk (the smallest).
    task_effects : DataFrame
        Per pair and shared task: the observed mean difference, and with the hierarchical model delta_i's posterior
        mean, credible interval and p_better, p_rope, p_worse (NaN with the signed-rank model, whose tasks are data).
    orderings : DataFrame or None
        Each ordering of the agents seen in the posterior draws, best first (``ordering``), with its posterior
        probability (``probability``, the share of draws), most probable first; on complete designs of at most 8
        agents.  Signed-rank model: the agents ranked by their Dirichlet-weighted mean over tasks (by default), the
        mean that ``estimate`` differences, not the pseudo-median the probabilities are about.
        Hierarchical model, with ``orderings=True``: ranked by delta0_a, their location across tasks against one
        reference agent in a joint fit of all agents (the reference's is 0).  The ROPE plays no part.  The orderings
        are weak: agents tied in a draw (values equal within 1e-12 of the draw's scale, see :func:`bayes`) are
        joined by ``=`` (``"A = B > C"``: A and B tie, both above C), in the agents' order, and are not ordered
        there; a note counts such draws.  With ``higher_is_better=False`` the separator is ``<`` (best first).
    posterior_draws : ndarray, shape (n_pairs, kept)
        The first posterior draws of each pair's difference across tasks (the estimate's; for the figures).
    simplex_draws : ndarray, shape (n_pairs, kept, 3)
        The first draws of the posterior masses (worse, rope, better) (for the simplex): of the Walsh averages with
        the signed-rank model, of a next task's difference with the hierarchical model.
    diagnostics : DataFrame or None
        Hierarchical model: per pair and parameter (delta0, sigma0, nu, each delta_i), the posterior mean, R-hat
        and bulk effective sample size.
    n_samples, prior : int, float or None
        Signed-rank model: Dirichlet draws and the pseudo-observation's weight.
    chains, draws : int or None
        Hierarchical model: chains and draws kept per chain, as asked (pairs whose chains were run again longer to
        converge have more, which a note gives).
    runs_used : int
        The data's runs that enter at least one pair's comparison (``nobs`` counts all of them): with the
        hierarchical model those paired by seed with a run of the other agent in a pair it fitted (not those of a
        withheld pair alone), with the signed-rank model the runs of the cells some pair compares.
    pair_draws : tuple of int or None
        Hierarchical model: each pair's posterior draws (in the order of ``comparisons``), chains x draws or more
        where its chains were run again longer; a share of none of them prints as "< 1/n" with that n.
    withheld_because : tuple of str or None
        Hierarchical model: for each pair (in the order of ``comparisons``) why its row is withheld, in a few words
        ("one shared task", "1 paired run on task_03"; the notes say more), "" for a pair compared.
    """

    model: str
    rope: float
    rope_scale: str
    higher_is_better: bool
    confidence_level: float
    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    counts: np.ndarray
    comparisons: pd.DataFrame
    task_effects: pd.DataFrame
    orderings: pd.DataFrame | None
    posterior_draws: np.ndarray
    simplex_draws: np.ndarray
    diagnostics: pd.DataFrame | None
    n_samples: int | None
    prior: float | None
    chains: int | None
    draws: int | None
    runs_used: int
    pair_draws: tuple[int, ...] | None
    withheld_because: tuple[str, ...] | None = None

    _plot_kinds: ClassVar[dict] = {
        "simplex": plots.plot_simplex,
        "posterior": plots.plot_posterior,
    }

    def plot(self, ax: Any = None, kind: str | None = None, *, figsize: tuple[float, float] | None = None,
             **kwargs: Any) -> Any:
        """The simplex of the three probabilities (baycomp's figure; the signed-rank model's default) or the posterior
        of the difference across tasks (mean, or the hierarchical model's centre delta0) with the ROPE shaded (``kind="posterior"``, the hierarchical model's
        default; its simplex shows a next task's masses). Returns what :meth:`rlstats.results.Result.plot` returns,
        the Axes (``ax.figure.savefig(...)`` saves it) or, for several panels, the Figure."""
        if kind is None:
            # without a ROPE the simplex's third corner is empty (every draw on its base): the posterior of the
            # difference, as baycomp's plot() draws a histogram where the ROPE holds no mass (audit s34 marks34)
            kind = "simplex" if self.model == "signed_rank" and self.rope > 0 else "posterior"
        return super().plot(ax=ax, kind=kind, figsize=figsize, **kwargs)

    # ---- printing -------------------------------------------------------------------
    def _statistic_line(self):
        if self.rope == 0:
            return f"no ROPE (rope = 0): only the sign of the differences ({self.rope_scale}) counts"
        return f"ROPE = [-{fmt.signif(self.rope)}, {fmt.signif(self.rope)}] in {self.rope_scale}"

    def _direction(self):
        """What the difference is, so that its sign cannot be misread whichever direction is better."""
        # the agents as the tables head them (audit s27: "agent 1" over agents named agent_1)
        first, second = label("agent_1"), label("agent_2")
        if self.higher_is_better:
            return f"{first} - {second} (higher is better: positive favours the {first})"
        return f"{second} - {first} (lower is better: positive favours the {first})"

    def _n_draws(self):
        return self.n_samples if self.model == "signed_rank" else self.chains * self.draws

    def _pair_draws(self, agent_1, agent_2):
        """The draws behind a pair's shares: its own where its chains were run again longer, else the model's."""
        if self.pair_draws is None:
            return self._n_draws()
        rows = self.comparisons
        where = np.flatnonzero((rows["agent_1"] == agent_1).to_numpy() & (rows["agent_2"] == agent_2).to_numpy())
        return self.pair_draws[int(where[0])] if where.size else self._n_draws()

    def _share(self, p, digits=fmt.DIGITS, n=None):
        """A Monte Carlo share of ``n`` draws (by default the model's: Dirichlet draws, or chains x draws), with 0 and
        1 shown as the bounds the draws allow rather than as certainties."""
        n = self._n_draws() if n is None else n
        if np.isnan(p):
            return ""  # withheld (a pair sharing one task), blank as a missing interval is
        if not np.isfinite(p) or not n:
            return fmt.signif(p, digits)
        if p == 0:
            return f"< 1/{n}"
        if p == 1:
            return f"> 1 - 1/{n}"
        text = fmt.signif_apart(p, digits, [DECISION_THRESHOLD])  # 0.94975 is not "0.95" (audit s22)
        # 0.99996 rounds to "1", a certainty the draws do not show (audit s16): the bound its digits allow instead
        return f"> 0.{'9' * digits}" if text == "1" else text

    def _regions(self) -> str:
        """What the probabilities are of: "practically better / equivalent / worse" with a ROPE; without one (rope =
        0) "better / worse", the two that sum to 1, as baycomp gives (p_left, p_right) at rope = 0 (audit s34 marks34:
        "practically ... equivalent" and a P(rope) column "< 1/50000" with no region of equivalence)."""
        return "better / worse" if self.rope == 0 else "practically better / equivalent / worse"

    def _meaning(self, mean_label=None):
        """One line saying what each printed number is (``mean_label``: what the mean's column is headed, the print's
        "mean diff" by default)."""
        if self.model == "signed_rank":
            # audit s38 fixc38: "P(better) 0.656" beside "mean diff -0.184" read as a contradiction; the probabilities'
            # own quantity stands beside them, and the mean is said to be another
            return ("P(.): share of posterior draws in which that region holds the largest Dirichlet-weighted mass of "
                    "the Walsh averages; pseudo-median: posterior median of the median of those Walsh averages (the "
                    f"Hodges-Lehmann centre of the {self._block_word} differences), the quantity P(.) is about; "
                    f"{mean_label or ACROSS[self.model][0]} and its interval: posterior of the mean difference across "
                    f"{fmt.plural(self._block_word)}, another quantity, which can have the other sign")
        task = self._block_word  # the data's blocks by their column (audit s32 block32)
        where = "above or below 0" if self.rope == 0 else "above, within or below the ROPE"
        return (f"P(.): posterior probability that delta0, the centre (location) of the {fmt.plural(task)}' "
                f"differences, lies {where}; P(. next): that a next {task}'s difference has its largest mass there")

    def _what(self):
        if self.model == "signed_rank":
            return f"{fmt.count(self.n_samples, 'Dirichlet draw')}, prior weight {fmt.signif(self.prior)} at 0"
        return f"{fmt.count(self.chains, 'chain')} of {fmt.count(self.draws, 'draw')} after warm-up{self._more()}"

    def _more(self):
        """What the chains' count of draws leaves out: pairs run again longer, which a note gives (read from their
        draws, never from the notes' words: audit s23, a frame's note holding RUN_AGAIN's words said it of none)."""
        run_again = self.pair_draws is not None and any(n > self._n_draws() for n in self.pair_draws)
        return ", more where a note says" if run_again else ""

    def _shown_pairs(self):
        pairs = self.comparisons
        draws = [self._pair_draws(a, b) for a, b in zip(pairs["agent_1"], pairs["agent_2"])]
        share = [[self._share(p, n=n) for p, n in zip(pairs[c], draws)] for c in ("p_better", "p_rope", "p_worse")]
        share[0] = _said_withheld(share[0], pairs)
        shown = pd.DataFrame({"pair": pairs["agent_1"] + " vs " + pairs["agent_2"],
                              "P(better)": share[0], "P(rope)": share[1], "P(worse)": share[2],
                              **({label("pseudo_median"): pairs["pseudo_median"]} if "pseudo_median" in pairs else {}),
                              ACROSS[self.model][0]: pairs["estimate"],
                              "lower": pairs["conf_low"], "upper": pairs["conf_high"], "tasks": pairs["n_tasks"]})
        if "r_hat" in pairs:
            shown["P(better next)"] = [self._share(p, n=n) for p, n in zip(pairs["p_better_next"], draws)]
            shown["P(rope next)"] = [self._share(p, n=n) for p, n in zip(pairs["p_rope_next"], draws)]
            shown["R-hat"], shown["ESS"] = pairs["r_hat"], pairs["ess_bulk"]
        return shown.drop(columns=["P(rope)", "P(rope next)"], errors="ignore") if self.rope == 0 else shown

    def _extra_lines(self):
        median = "pseudo_median" in self.comparisons
        lines = [f"model: {_MODELS[self.model]} ({self._what()})",
                 f"posterior probabilities that the first agent is {self._regions()} than the second"
                 f"{' (no ROPE: the two sum to 1)' if self.rope == 0 else ''}"
                 f"{', and the pseudo-median difference they are about' if median else ''}; "
                 f"{ACROSS[self.model][2]} with {self.confidence_level:.0%} credible interval:",
                 f"  {self._meaning()}",
                 f"  {label('pseudo_median') + ' and ' if median else ''}{ACROSS[self.model][0]} = "
                 f"{self._direction()}"]
        if self.model == "hierarchical":
            lines.insert(1, f"  {PRIORS}")
        # the digits of summary() and to_latex() (fmt.DIGITS; audit s30 mends30: -0.4557 above the LaTeX's -0.45567)
        lines += ["  " + line for line in fmt.table_text(self._shown_pairs()).splitlines()]
        if self.orderings is not None:
            top = self.orderings.head(5)
            tasks = fmt.plural(self._block_word)
            # what they rank by, which for the signed-rank model is not what P(.) is about (audit s38 fixc38: "SPR >
            # DrQ(eps) 0.653" under "P(better) 0.6559" for DrQ(eps)); the hierarchical model's joint fit ranks by
            # delta0, its centre, not a mean
            how = (f"their Dirichlet-weighted mean over {tasks}, as {ACROSS[self.model][0]}, not the pseudo-median "
                   "P(.) is about" if self.model == "signed_rank" else
                   f"their centre (delta0) across {tasks} against one reference, in a joint fit")
            lines += ["", f"most probable orderings of the {fmt.plural(self._arm_word)} (by {how}):"]
            lines += [f"  {self._share(p):>7}  {o}" for o, p in zip(top["ordering"], top["probability"])]
        return lines

    def _summary_tables(self):
        effects = self.task_effects
        if self.model == "signed_rank":
            # the signed-rank model's tasks are data: its posterior columns are all NaN, so they are not shown
            effects = effects.loc[:, ~effects.isna().all(axis=0)]
        tables = {"Pairs": self._shares_shown(self.tidy()), "Per task": self._shares_shown(effects)}
        if self.orderings is not None:
            tables["Orderings"] = self.orderings.assign(probability=[self._share(p)
                                                                      for p in self.orderings["probability"]])
        if self.diagnostics is not None:
            tables["Convergence"] = self.diagnostics
        return tables

    def _latex_captions(self):
        """Each caption also says what its numbers are (the print's lines above the pairs), since a paper's table
        travels without them (audit s15: the sign and the credible level were missing)."""
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        pairs = (f"{self._meaning(label('estimate'))}; pseudo-median and estimate = {self._direction()}; lower and "
                 f"upper: the estimate's {level} credible interval." if self.model == "signed_rank" else
                 f"{self._meaning()}; estimate: the {ACROSS[self.model][1]}, {self._direction()}; lower and upper: its "
                 f"{level} credible interval.")
        return {"Pairs": pairs,
                "Per task": f"Differences of the {fmt.plural(self._block_word)}' means (observed) = {self._direction()}"
                            + ("." if self.model == "signed_rank" else
                               f"; estimate, lower and upper: the posterior mean of the {self._block_word}'s "
                               "difference "
                               "and its "
                               f"{level} credible interval; P(.): posterior probabilities of that difference "
                               + ("above or below 0." if self.rope == 0 else "above, within or below the ROPE."))}

    def _shares_shown(self, table):
        """``table`` with its shares of draws as the print gives them: "< 1/n" for none, never a certainty of 0 or 1
        (a paper takes the summary's tables through to_latex())."""
        table = table.copy()
        draws = [self._pair_draws(a, b) for a, b in zip(table["agent_1"], table["agent_2"])]
        for column in ("p_better", "p_rope", "p_worse", "p_better_next", "p_rope_next", "p_worse_next"):
            if column in table:
                table[column] = [self._share(p, n=n) for p, n in zip(table[column], draws)]
        if self.rope == 0:  # no region of equivalence: no column of it (tidy() keeps its zeros, the data's shape)
            table = table.drop(columns=["p_rope", "p_rope_next"], errors="ignore")
        if "n_tasks" in table:  # the pairs' table (a pair that never met has no per-task rows)
            table["p_better"] = _said_withheld(table["p_better"], table)
        return table

    # ---- tidy output ------------------------------------------------------------------
    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per pair: p_better, p_rope, p_worse and the posterior of the difference across tasks (estimate: the
        signed-rank model's mean difference, the hierarchical model's centre delta0)."""
        out = self.comparisons.copy()
        out["rope"] = self.rope
        out["model"] = self.model
        return out

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """The model, the ROPE and the design in one row (with the worst R-hat and ESS for the hierarchical model)."""
        row = {"method": self.method, "model": self.model, "rope": self.rope, "n_agents": self.n_agents,
               "n_tasks": self.n_tasks, "n_obs": self.nobs,
               "r_hat": float(self.comparisons["r_hat"].max()) if "r_hat" in self.comparisons else np.nan,
               "ess_bulk": float(self.comparisons["ess_bulk"].min()) if "ess_bulk" in self.comparisons else np.nan}
        return pd.DataFrame([row])

    def withheld_reason(self, i: int) -> str:
        """Why row ``i`` of ``comparisons`` is withheld, in a few words (:attr:`withheld_because`; with the
        signed-rank model a pair that never met or shares one task)."""
        if self.withheld_because is not None and self.withheld_because[i]:
            return self.withheld_because[i]
        return WITHHELD_REASON if self.comparisons["n_tasks"].iloc[i] == 0 else "one shared task"

    def _interval_phrase(self, row):
        """The credible interval as the prose gives it, or that it is withheld (a pair on one task: see the notes)."""
        if np.isnan(row.conf_low):
            return "credible interval withheld: one shared task"
        return (f"{self.confidence_level:.0%} credible interval {fmt.signif(row.conf_low, 3)} to "
                f"{fmt.signif(row.conf_high, 3)}")

    def _prose(self):
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s33 words33b)
        tasks = fmt.plural(task)
        if self.model == "signed_rank":
            how = (f"the Bayesian signed-rank test (Benavoli et al., 2014, 2017) on the {task}-level mean differences, "
                   f"with a Dirichlet process prior of weight {fmt.signif(self.prior, 3)} at 0 and "
                   f"{fmt.count(self.n_samples, 'posterior draw')}; a probability is the share of draws in which that "
                   "region held the largest posterior mass")
        else:
            how = (f"the Bayesian hierarchical model of Corani et al. (2017) (per-{task} mean differences Student-t "
                   f"across {tasks}, runs as normal replicates; {PRIORS}), fitted by Gibbs sampling with "
                   f"{fmt.count(self.chains, 'chain')} of {fmt.count(self.draws, 'draw')}{self._more()}; the "
                   f"probabilities are those of delta0, the centre (location) of the {tasks}' differences, which is "
                   "not their mean")
        region = ("no region of practical equivalence (rope = 0)" if self.rope == 0 else
                  f"a region of practical equivalence of \u00b1{fmt.signif(self.rope, 3)} in {self.rope_scale}")
        runs = f"{self.nobs} runs" if self.runs_used == self.nobs else (
            f"{self.runs_used} of the data's {self.nobs} runs: those "
            + (f"paired by {self._run_word} with a run of the other {agent} in a pair compared"
               if self.model == "hierarchical" else f"of the {tasks} each pair shares"))
        text = (f"We compared {fmt.count(self.n_agents, agent)} on {fmt.count(self.n_tasks, task)} ({runs}) "
                f"with {how}, with {region}; differences are {self._direction()}. ")
        parts = []
        for i, row in enumerate(self.comparisons.itertuples()):
            if row.n_tasks == 0:  # withheld: see the notes
                parts.append(f"{row.agent_1} vs {row.agent_2}: {WITHHELD}")
                continue
            if np.isnan(row.p_better):  # a pair sharing one task, or (hierarchical) a task it cannot fit: see the notes
                parts.append(f"{row.agent_1} vs {row.agent_2}: probabilities and credible interval withheld "
                             f"({self.withheld_reason(i)})"
                             + (f", {ACROSS[self.model][1]} {fmt.signif(row.estimate, 3)}"
                                if np.isfinite(row.estimate) else ""))
                continue
            n = self._pair_draws(row.agent_1, row.agent_2)
            better, rope, worse = (self._share(p, 3, n) for p in (row.p_better, row.p_rope, row.p_worse))
            equivalent = "" if self.rope == 0 else f"P(equivalent) {_eq(rope)}, "
            median = (f"pseudo-median difference {fmt.signif(row.pseudo_median, 3)} (posterior median), "
                      if self.model == "signed_rank" else "")
            parts.append(f"{row.agent_1} vs {row.agent_2}: P(better) {_eq(better)}, {equivalent}"
                         f"P(worse) {_eq(worse)}, {median}{ACROSS[self.model][1]} "
                         f"{fmt.signif(row.estimate, 3)} ({self._interval_phrase(row)})")
        text += "; ".join(parts) + "."
        if "r_hat" in self.comparisons:
            text += (f" The largest R-hat was {fmt.signif(self.comparisons['r_hat'].max(), 4)} and the smallest bulk "
                     f"effective sample size {fmt.signif(self.comparisons['ess_bulk'].min(), 3)}.")
        if self.orderings is not None:
            top = self.orderings.iloc[0]
            text += f" The most probable ordering was {top['ordering']} ({self._share(top['probability'], 3)})."
        return text


def _said_withheld(shares, pairs):
    """The shown P(better) of each pair, "withheld" where its row is (:func:`plots.withheld`; the notes say why), so
    that a blank row of a table travelling without its notes cannot read as a number left out."""
    return [WITHHELD_CELL if plots.withheld(row) else share for share, row in zip(shares, pairs.itertuples())]


def _eq(share: str) -> str:
    """'= 0.3' or '< 1/2000': a share as it reads after its name."""
    return share if share[0] in "<>" else "= " + share
