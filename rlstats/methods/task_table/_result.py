"""TaskTableResult: the per-task table with the best marked, as text, LaTeX, Markdown and HTML."""

from __future__ import annotations

import html
from typing import ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt
from ...results import Result, resultclass
from . import plots

DAGGER = "\u2020"
_LABELS = {"mean": "mean", "median": "median", "iqm": "IQM"}


@resultclass
class TaskTableResult(Result):
    """Result of :func:`rlstats.task_table`.

    Attributes
    ----------
    agents, tasks : tuple of str
    statistic, test, test_name, adjustment : str
    alpha, confidence_level : float
    estimates, std_dev : ndarray, shape (n_tasks, n_agents)
        The statistic of each cell's runs and their standard deviation (NaN for empty cells).
    counts : ndarray, shape (n_tasks, n_agents)
    best : ndarray of int, shape (n_tasks,)
        The best agent of each task.
    p_values, p_adjusted : ndarray, shape (n_tasks, n_agents)
        Test of each agent against the task's best (NaN for the best and untested cells).
    a12, hedges_g : ndarray, shape (n_tasks, n_agents, 3)
        Estimate, lower and upper bound of each effect size of the best against the agent.
    aggregate : dict or None
        ``metric``, ``estimates`` and ``intervals`` of the aggregate row.
    """

    agents: tuple
    tasks: tuple
    statistic: str
    test: str
    test_name: str
    adjustment: str
    alpha: float
    confidence_level: float
    estimates: np.ndarray
    std_dev: np.ndarray
    counts: np.ndarray
    best: np.ndarray
    p_values: np.ndarray
    p_adjusted: np.ndarray
    a12: np.ndarray
    hedges_g: np.ndarray
    aggregate: dict | None

    _plot_kinds: ClassVar[dict] = {"table": plots.plot_table}

    @property
    def label(self):
        return _LABELS[self.statistic]

    @property
    def not_worse(self):
        """(n_tasks, n_agents) bool: tested against the best and not significantly worse."""
        with np.errstate(invalid="ignore"):
            return np.isfinite(self.p_adjusted) & (self.p_adjusted > self.alpha)

    def _runs_phrase(self):
        runs = self.counts[self.counts > 0]
        return f"{runs.min()}" if runs.min() == runs.max() else f"{runs.min()} to {runs.max()}"

    def _cell_texts(self, digits, bold, mark):
        """(n_tasks, n_agents) strings 'm ± sd' with the best bolded and the indistinguishable marked."""
        out = []
        for t in range(len(self.tasks)):
            row = []
            for a in range(len(self.agents)):
                if np.isnan(self.estimates[t, a]):
                    row.append("")
                    continue
                text = fmt.signif(self.estimates[t, a], digits)
                if np.isfinite(self.std_dev[t, a]):
                    text += f" \u00b1 {fmt.signif(self.std_dev[t, a], 2)}"
                if a == self.best[t]:
                    text = bold(text)
                elif self.not_worse[t, a]:
                    text = mark(text)
                row.append(text)
            out.append(row)
        return out

    def _aggregate_texts(self, digits, bold):
        agg = self.aggregate
        best = int(np.nanargmax(agg["estimates"]))
        texts = [f"{fmt.signif(e, digits)} [{fmt.signif(lo, 3)}, {fmt.signif(hi, 3)}]"
                 for e, (lo, hi) in zip(agg["estimates"], agg["intervals"])]
        texts[best] = bold(texts[best])
        return texts

    def display(self, digits=4, bold=lambda s: f"*{s}*", mark=lambda s: f"{s} {DAGGER}"):
        """The table as a DataFrame of strings: tasks as rows, agents as columns (and the aggregate row)."""
        frame = pd.DataFrame(self._cell_texts(digits, bold, mark), index=list(self.tasks), columns=list(self.agents))
        if self.aggregate is not None:
            frame.loc[f"aggregate {_LABELS.get(self.aggregate['metric'], self.aggregate['metric'])}"] = \
                self._aggregate_texts(digits, bold)
        frame.index.name = "task"
        return frame

    def caption(self):
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        text = (f"{self.label[0].upper() + self.label[1:]} \u00b1 standard deviation over {self._runs_phrase()} runs (seeds) per "
                f"agent and task. Bold: the best agent of each task; {DAGGER}: not significantly worse than the "
                f"best ({self.test_name} on the task's runs, {self.adjustment.capitalize() if self.adjustment != 'none' else 'no'} "
                f"adjustment within each task, alpha = {fmt.signif(self.alpha)}).")
        if self.aggregate is not None:
            text += (f" Aggregate: {_LABELS.get(self.aggregate['metric'], self.aggregate['metric'])} over tasks with {level} stratified bootstrap intervals "
                     f"({self.aggregate['n_resamples']} resamples).")
        return text

    def to_latex(self, label=None, digits=3, resize=None):
        """A booktabs table: best in \\textbf, a dagger on agents not significantly worse, the test in the caption.

        ``resize`` wraps the tabular in ``\\resizebox{\\columnwidth}{!}{...}`` (needs graphicx);
        by default when there are more than four agents, so that a wide table fits a column.
        """
        escape = fmt.latex_escape
        cells = self._cell_texts(digits, lambda s: rf"\textbf{{{escape(s)}}}",
                                 lambda s: escape(s) + r"$^\dagger$")
        cells = [[c.replace("\u00b1", r"$\pm$") for c in row] for row in cells]
        lines = [r"\begin{table}[ht]", r"\centering", rf"\caption{{{_latex_caption(self.caption())}}}"]
        if label:
            lines.append(rf"\label{{{label}}}")
        resize = len(self.agents) > 4 if resize is None else resize
        if resize:
            lines.append(r"\resizebox{\columnwidth}{!}{%")
        lines += [r"\begin{tabular}{l" + "r" * len(self.agents) + "}", r"\toprule",
                  "Task & " + " & ".join(escape(a) for a in self.agents) + r" \\", r"\midrule"]
        lines += [escape(task) + " & " + " & ".join(row) + r" \\" for task, row in zip(self.tasks, cells)]
        if self.aggregate is not None:
            texts = self._aggregate_texts(digits, lambda s: rf"\textbf{{{escape(s)}}}")
            texts = [t if t.startswith(r"\textbf") else escape(t) for t in texts]
            lines += [r"\midrule", escape(f"Aggregate {_LABELS.get(self.aggregate['metric'], self.aggregate['metric'])}") + " & " + " & ".join(texts) + r" \\"]
        lines += [r"\bottomrule", r"\end{tabular}"]
        if resize:
            lines.append("}")
        lines.append(r"\end{table}")
        return "\n".join(lines) + "\n"

    def to_markdown(self, digits=4):
        frame = self.display(digits, bold=lambda s: f"**{s}**")
        return fmt.table_markdown(frame.reset_index(), digits) + f"\n\n{self.caption()}\n"

    def _repr_html_(self):
        frame = self.display(4, bold=lambda s: f"<b>{html.escape(s)}</b>", mark=lambda s: f"{html.escape(s)} {DAGGER}")
        body = "".join("<tr><th>" + html.escape(str(task)) + "</th>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>"
                       for task, row in zip(frame.index, frame.to_numpy()))
        head = "<tr><th>task</th>" + "".join(f"<th>{html.escape(a)}</th>" for a in frame.columns) + "</tr>"
        return f"<table>{head}{body}</table><p>{html.escape(self.caption())}</p>"

    def _statistic_line(self):
        n_best = len(self.tasks)
        n_tied = int(self.not_worse.sum())
        return (f"tasks = {n_best}, runs per cell = {self._runs_phrase()}, alpha = {fmt.signif(self.alpha)}, "
                f"{fmt.count(n_tied, 'agent-task cell')} not significantly worse than the best")

    def _extra_lines(self):
        return fmt.table_text(self.display().reset_index()).split("\n") + [f"({DAGGER}: not significantly worse "
                                                                          "than the best)"]

    def _summary_tables(self):
        return {"table": self.display().reset_index(), "comparisons with the best": self.tidy()}

    def tidy(self):
        """One row per task and agent: estimate, spread, test against the best and effect sizes."""
        n, k = self.estimates.shape
        best = np.zeros((n, k), dtype=bool)
        best[np.arange(n), self.best] = True
        return pd.DataFrame({
            "task": np.repeat(np.asarray(self.tasks, dtype=object), k),
            "agent": np.tile(np.asarray(self.agents, dtype=object), n),
            "estimate": self.estimates.ravel(), "std_dev": self.std_dev.ravel(), "n_runs": self.counts.ravel(),
            "best": best.ravel(), "p_value": self.p_values.ravel(), "p_adjusted": self.p_adjusted.ravel(),
            "significant": (np.isfinite(self.p_adjusted) & (self.p_adjusted <= self.alpha)).ravel(),
            "a12": self.a12[..., 0].ravel(), "a12_low": self.a12[..., 1].ravel(), "a12_high": self.a12[..., 2].ravel(),
            "cliffs_delta": (2 * self.a12[..., 0] - 1).ravel(),
            "hedges_g": self.hedges_g[..., 0].ravel(), "hedges_g_low": self.hedges_g[..., 1].ravel(),
            "hedges_g_high": self.hedges_g[..., 2].ravel(),
        })

    def glance(self):
        return pd.DataFrame([{"method": self.method, "n_agents": self.n_agents, "n_tasks": self.n_tasks,
                              "n_obs": self.nobs, "alpha": self.alpha, "adjustment": self.adjustment,
                              "conf_level": self.confidence_level}])

    def _prose(self):
        wins = np.bincount(self.best, minlength=len(self.agents))
        parts = [f"{a} ({w})" for a, w in sorted(zip(self.agents, wins), key=lambda p: -p[1]) if w]
        text = (f"For each of {len(self.tasks)} tasks we marked the agent with the best {self.label} of its runs "
                f"({self._runs_phrase()} runs per agent and task) and tested every other agent against it with the "
                f"{self.test_name} on that task's runs, adjusting within each task "
                f"({self.adjustment.capitalize() if self.adjustment != 'none' else 'no adjustment'}) at alpha = "
                f"{fmt.signif(self.alpha)}. Best per task: {', '.join(parts)}. In {int(self.not_worse.sum())} "
                f"agent-task cells the agent was not significantly worse than the best. Effect sizes against the "
                f"best are the Vargha-Delaney A12 (probability that a run of the best scores higher) with "
                f"Brunner-Munzel intervals, Cliff's delta = 2 A12 - 1, and Hedges' g with normal intervals "
                f"({fmt.signif(100 * self.confidence_level)}%).")
        return text


def _latex_caption(text):
    return fmt.latex_escape(text).replace(fmt.latex_escape(DAGGER), r"$^\dagger$").replace(
        DAGGER, r"$^\dagger$").replace("\u00b1", r"$\pm$")
