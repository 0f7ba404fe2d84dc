"""Performance percentiles' result: fields, tables and prose (reads fields, computes nothing)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt
from . import plots
from ._kernels import separated_pairs
from ...errors import OptionError
from ...options import check_confidence_level
from ..._typing import ColumnNames
from ...results import Result, resultclass

_INTERVAL_NAMES = {
    "pbp": "PBP (DKW bands and Anderson bounds propagated through the game)",
    "pbp_t": "PBP-t (Student-t payoff intervals propagated through the game)",
    "bootstrap": "percentile bootstrap (cells resampled, game re-solved per resample)",
    None: "none",
}
_SHORT_NAMES = {"pbp": "PBP", "pbp_t": "PBP-t", "bootstrap": "bootstrap", None: "no"}
_REFERENCE = "Jordan et al. 2020"


@resultclass
class PercentilesResult(Result):
    """Result of :func:`percentiles`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    agents, tasks : tuple of str
    counts : ndarray, shape (n_tasks, n_agents)
        Runs per cell.
    estimate : ndarray, shape (n_agents,)
        Aggregate performance percentile y_i (paper eq. 2); leaders sit near
        0.5, not 1.
    conf_low, conf_high : ndarray or None
        Simultaneous (1 - delta) interval of each aggregate (None without an interval).
    rank : ndarray of int
        Competition rank of ``estimate`` (1 = best): tied agents (estimates
        equal within 1e-10) share the best rank of the tie, as R's
        ``rank(-x, ties.method = "min")``; print and report name the ties.
    rank_best, rank_worst : ndarray of int or None
        Range of competition ranks consistent with the intervals (agents
        surely better, agents possibly better).
    interval : str or None
        ``"pbp"``, ``"pbp_t"``, ``"bootstrap"`` or None.
    delta, delta_cell : float
        Total error probability and the per-cell level delta / (n_agents n_tasks).
    payoff : ndarray, shape (n_agents, n_tasks, n_agents)
        A[i, j, k]: mean percentile of agent i's runs on task j against reference k.
    payoff_low, payoff_high : ndarray or None
        PBP or PBP-t bounds on every payoff.
    stationary : ndarray, shape (n_agents, n_tasks, n_agents)
        Stationary distribution d over joint strategies (agent, (task, reference)).
    payoffs : DataFrame
        The payoff tensor in tidy form: agent, task, reference, estimate
        (and conf_low, conf_high for PBP and PBP-t).
    task_weights : DataFrame
        task, weight: the adversary's weight q*_j on each task.
    reference_weights : DataFrame
        task, reference, weight: q*_{j,k}; the heat map of ``plot(kind="weights")``.
    agent_weights : DataFrame
        agent, weight: the agent player's marginal p* (a diagnostic; scores use q*).
    per_task : DataFrame
        task, agent, n_runs, estimate (mean score), conf_low, conf_high (Anderson's
        interval on the mean at delta_cell), rank, rank_best, rank_worst, percentile
        (the agent's performance percentile on the task against the game's reference
        mixture w_{j,k} = q*_{j,k} / q*_j).
    ecdf : DataFrame
        task, agent, score, cdf, cdf_low, cdf_high: empirical CDFs with DKW bands at
        delta_cell, for the CDF plots: at each cell's distinct scores, and at the task's
        lower bound (``support_low``), where the CDF is 0 and its band [0, eps] when no
        run of the cell scored it.
    support_low, support_high : ndarray, shape (n_tasks,)
        Score bounds [a_j, b_j] used by PBP and the per-task intervals.
    bounds_source : str
        ``"observed"``, ``"given"`` or ``"mixed"``.
    bootstrap_distribution : ndarray or None, shape (n_resamples, n_agents)
    n_resamples : int or None
    n_strategies : int
        Joint pure strategies n_agents^2 n_tasks.
    pbp_iterations : ndarray or None
        Policy-iteration steps of each bound (upper bounds first).
    ties : str
    self_payoff : float
    higher_is_better : bool
    """

    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    counts: np.ndarray
    estimate: np.ndarray
    conf_low: np.ndarray | None
    conf_high: np.ndarray | None
    rank: np.ndarray
    rank_best: np.ndarray | None
    rank_worst: np.ndarray | None
    interval: str | None
    delta: float
    delta_cell: float
    payoff: np.ndarray
    payoff_low: np.ndarray | None
    payoff_high: np.ndarray | None
    stationary: np.ndarray
    payoffs: pd.DataFrame
    task_weights: pd.DataFrame
    reference_weights: pd.DataFrame
    agent_weights: pd.DataFrame
    per_task: pd.DataFrame
    ecdf: pd.DataFrame
    support_low: np.ndarray
    support_high: np.ndarray
    bounds_source: str
    bootstrap_distribution: np.ndarray | None
    n_resamples: int | None
    n_strategies: int
    pbp_iterations: np.ndarray | None
    ties: str
    self_payoff: float
    higher_is_better: bool

    _plot_kinds: ClassVar[dict] = {
        "aggregate": plots.plot_aggregate,
        "cdf": plots.plot_task_cdfs,
        "weights": plots.plot_weights,
    }

    @property
    def conf_level(self) -> float:
        return 1.0 - self.delta

    def confidence_interval(self, confidence_level: float | None = None) -> pd.DataFrame:
        """The simultaneous intervals as a DataFrame (agent, conf_low, conf_high).

        The level is fixed when the result is computed (``delta=``); asking for
        another one raises OptionError.
        """
        if self.interval is None:
            raise OptionError("no interval was computed; rerun with interval=\"pbp\", \"pbp_t\" or \"bootstrap\"")
        if confidence_level is not None:
            confidence_level = check_confidence_level(confidence_level)
        if confidence_level is not None and not np.isclose(confidence_level, self.conf_level):
            raise OptionError(f"the intervals were computed at confidence level {self.conf_level}; rerun "
                              f"percentiles(..., delta={1 - confidence_level:g}) for level {confidence_level}")
        return pd.DataFrame({"agent": list(self.agents), "conf_low": self.conf_low, "conf_high": self.conf_high})

    def _order(self):
        return np.lexsort((np.arange(self.n_agents), self.rank))

    def _tied_with(self, i):
        """The other agents sharing agent i's rank (estimates equal within the tie tolerance)."""
        return [self.agents[k] for k in self._order() if k != i and self.rank[k] == self.rank[i]]

    def _tie_sentence(self):
        groups = {}
        for i in self._order():
            groups.setdefault(int(self.rank[i]), []).append(str(self.agents[i]))
        ties = [(r, names) for r, names in groups.items() if len(names) > 1]
        if not ties:
            return ""
        listed = "; ".join(f"{fmt.join_and(fmt.names_shown(names, among=self.agents))} tie at rank {r}"
                           for r, names in ties)
        return (f" {listed} (tied agents share the best rank of the tie, as R's rank(ties.method = \"min\") "
                "ranks them).")

    # ---- printing -------------------------------------------------------------------
    def _statistic_line(self):
        top = int(self._order()[0])
        tied = self._tied_with(top)
        name = (f"top agents = {fmt.name_list([self.agents[top]] + tied, among=self.agents)} (tied)" if tied
                else f"top agent = {self.agents[top]}")
        return (f"{name}, aggregate = {fmt.signif(self.estimate[top])}, "
                f"agents = {fmt.integer(self.n_agents)}, tasks = {fmt.integer(self.n_tasks)}, joint strategies = "
                f"{fmt.integer(self.n_strategies)}")

    def _extra_lines(self):
        if self.interval is None:
            lines = ["aggregate performance percentiles (no interval):"]
        else:
            lines = [f"{fmt.signif(100 * self.conf_level)}% simultaneous intervals "
                     f"({_SHORT_NAMES[self.interval]}, delta' = {fmt.signif(self.delta_cell, 3)} per cell):"]
        order = self._order()
        table = self.tidy().iloc[order]
        names = [str(a) for a in table["agent"]]
        width = max(len(n) for n in names)
        for i, name, row in zip(order, names, table.itertuples(index=False)):
            # the digits of the header's aggregate and of the tables (audit s29 real29b: 0.3633 below 0.36332)
            text = f"  {name.ljust(width)}  {fmt.signif(row.estimate)}"
            tied = self._tied_with(i)
            tie = f"tied with {fmt.name_list(tied, among=self.agents)}" if tied else ""
            if self.interval is not None:
                shown = (f"({fmt.signif(row.conf_low)}, {fmt.signif(row.conf_high)})" if np.isfinite(row.conf_low)
                         else "(interval withheld, see the notes)")
                text += (f" {shown}  rank {row.rank} "
                         f"({tie + '; ' if tie else ''}best {row.rank_best}, worst {row.rank_worst})")
            else:
                text += f"  rank {row.rank}" + (f" ({tie})" if tie else "")
            lines.append(text)
        return lines

    def _summary_tables(self):
        ranking = self.tidy().iloc[self._order()].reset_index(drop=True)
        tasks = self.task_weights.sort_values("weight", ascending=False, kind="stable").reset_index(drop=True)
        shown = ("no interval" if self.interval is None else
                 f"{fmt.signif(100 * self.conf_level)}% simultaneous intervals: {_INTERVAL_NAMES[self.interval]}")
        return {f"Aggregate performance percentiles ({shown})": ranking,
                "Adversary's task weights q*_j": tasks,
                "Agent player's distribution p* (diagnostic)": self.agent_weights,
                f"Per-task means (Anderson interval at delta' = {fmt.signif(self.delta_cell, 3)})": self.per_task}

    # ---- tidy output ------------------------------------------------------------------
    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per agent: aggregate estimate, simultaneous interval, rank and rank range."""
        missing = np.full(self.n_agents, np.nan)
        return pd.DataFrame({
            "agent": list(self.agents),
            "estimate": self.estimate,
            "conf_low": missing if self.conf_low is None else self.conf_low,
            "conf_high": missing if self.conf_high is None else self.conf_high,
            "rank": self.rank,
            "rank_best": pd.array(self.rank_best if self.rank_best is not None else [None] * self.n_agents,
                                  dtype="Int64"),
            "rank_worst": pd.array(self.rank_worst if self.rank_worst is not None else [None] * self.n_agents,
                                   dtype="Int64"),
        })

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """The analysis in one row."""
        return pd.DataFrame([{
            "method": self.method, "interval_method": self.interval,
            "conf_level": self.conf_level if self.interval is not None else np.nan,
            "n_agents": self.n_agents, "n_tasks": self.n_tasks, "n_obs": self.nobs,
            "n_strategies": self.n_strategies, "n_resamples": self.n_resamples,
        }])

    def _prose(self):
        """A methods-section paragraph describing the aggregation and its outcome."""
        runs = self.counts
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s33 words33b)
        per_cell = (f"{fmt.count(runs.min(), 'run')} per {agent} and {task}" if runs.min() == runs.max()
                    else f"{runs.min()} to {runs.max()} runs per {agent} and {task}")
        text = (f"We aggregated the scores of {fmt.count(self.n_agents, agent)} on {fmt.count(self.n_tasks, task)} "
                f"({per_cell}) with performance percentiles ({_REFERENCE}). Each {agent}'s runs on "
                f"{fmt.a_or_an(task)} were scored by their mean "
                f"percentile in each other {agent}'s score distribution (ties counted as "
                f"{'wins' if self.ties == 'le' else 'half wins'}, {fmt.a_or_an(agent)} against itself "
                f"{fmt.signif(self.self_payoff)}), and the {task} and reference weights came from the stationary "
                f"distribution of a PageRank-damped alpha-Rank chain over the {self.n_strategies} joint strategies of "
                f"the game in which an adversary picks the {task} and the reference {agent}.")
        order = self._order()
        ranking = fmt.name_list([self.agents[i] for i in order], after=[fmt.signif(self.estimate[i], 3) for i in order],
                                among=self.agents)
        text += f" Aggregate scores (0 to 1; the best {agent} typically scores near 0.5): {ranking}."
        text += self._tie_sentence()
        if self.interval is not None:
            how = {"pbp": "performance bound propagation (PBP), valid for bounded scores",
                   "pbp_t": "PBP-t, with Student-t payoff intervals (a heuristic)",
                   "bootstrap": f"a percentile bootstrap with {self.n_resamples} stratified resamples that "
                                "re-solved the game each time (a heuristic that can undercover)"}[self.interval]
            text += (f" Simultaneous {fmt.signif(100 * self.conf_level)}% intervals came from {how}, at level "
                     f"delta' = {fmt.signif(self.delta_cell, 3)} per {agent}-{task} cell.")
            text += " " + self._separation_sentence()
        top = self.task_weights.sort_values("weight", ascending=False, kind="stable").head(3)
        weights = fmt.name_list(top["task"], after=[f"({fmt.signif(w, 2)})" for w in top["weight"]],
                                among=self.tasks)
        if len(self.task_weights) > 1:  # with one task the adversary has no choice to report
            text += f" The adversary weighted most the {fmt.plural(task)} {weights}."
        return text

    def _separation_sentence(self):
        """The pairs resolved, counted among the pairs whose intervals are both shown, as PBP's note counts them; the
        pairs with a withheld interval are said to be not judged (audit s22: "1 of 3 pairs is resolved" beside an
        interval withheld and a note counting the 1 pair shown)."""
        found, n_shown = separated_pairs(self.conf_low, self.conf_high)
        beats = [(self.agents[i], self.agents[k]) for i, k in found]
        n_pairs = self.n_agents * (self.n_agents - 1) // 2
        withheld = [a for a, low in zip(self.agents, self.conf_low) if not np.isfinite(low)]
        listed = "; ".join(f"{a} > {b}" for a, b in beats[:8]) + ("; ..." if len(beats) > 8 else "")
        if not withheld:
            if not beats:
                return f"No {self._arm_word}'s interval lies above another's, so no pair is resolved."
            return (f"{len(beats)} of {fmt.count(n_pairs, 'pair')} {fmt.verb(len(beats), 'is')} resolved "
                    f"(lower bound above the other's upper bound): {listed}.")
        names = fmt.name_list(withheld, among=self.agents)
        rest = (f"the {fmt.count(n_pairs - n_shown, 'pair')} with {names}, whose "
                f"{fmt.plural('interval', len(withheld))} {fmt.verb(len(withheld), 'is')} withheld, "
                f"{fmt.verb(n_pairs - n_shown, 'is')} not judged")
        if not n_shown:
            return f"No pair has both intervals shown, so no pair is resolved: {rest}."
        return (f"{len(beats)} of the {fmt.count(n_shown, 'pair')} whose intervals are both shown "
                f"{fmt.verb(len(beats), 'is')} resolved (lower bound above the other's upper bound)"
                + (f": {listed}" if beats else "") + f"; {rest}.")
