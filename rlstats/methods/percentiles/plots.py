"""Drawings of a performance-percentile result (Jordan et al. 2020).

* :func:`plot_aggregate`: each agent's aggregate score with its simultaneous
  interval, best at the top (paper Figure 5);
* :func:`plot_task_cdfs`: each task's empirical CDFs with DKW bands (paper
  Figure 3), or quantile functions (Figure 4);
* :func:`plot_weights`: heat map of the adversary's weights q*_{j,k} over
  tasks x reference agents.

Plots draw, never compute: they read the result's fields, take ``ax=`` (a new
figure only when it is None), let user keywords win and return the Axes, or
the Figure for several panels.
"""

from __future__ import annotations

import numpy as np

from ...errors import agent_named
from ...plotting import COLUMN_WIDTH, SMALL_FONT, axes_or_new, figure_legend, fit_xlabel, palette, panels


def plot_aggregate(result, *, ax=None, **kwargs):
    """Aggregate performance percentiles with their simultaneous intervals, best agent at the top.

    Keywords go to ``Axes.errorbar`` (e.g. ``color=``, ``capsize=``).
    """
    order = np.lexsort((np.arange(result.n_agents), -result.estimate))[::-1]  # best drawn last = top
    names = [result.agents[i] for i in order]
    estimate = result.estimate[order]
    ax = axes_or_new(ax, (6.4, 0.8 + 0.4 * len(names)))
    style = {"fmt": "o", "color": "C0", "capsize": 3, "markersize": 5, "linewidth": 1.5}
    style.update(kwargs)
    position = np.arange(len(names))
    if result.conf_low is None:
        ax.errorbar(estimate, position, **style)
        title = "Aggregate performance percentile (no interval)"
    else:
        error = np.vstack([estimate - result.conf_low[order], result.conf_high[order] - estimate])
        ax.errorbar(estimate, position, xerr=np.maximum(error, 0.0), **style)
        short = {"pbp": "PBP", "pbp_t": "PBP-t", "bootstrap": "bootstrap"}[result.interval]
        title = f"Aggregate performance percentile, {100 * (1 - result.delta):g}% simultaneous {short} intervals"
        # a withheld interval (NaN) draws a bare point, which reads as an interval of no width (audit s17)
        withheld = int(np.isnan(result.conf_low).sum())
        if withheld == result.n_agents:
            title = f"Aggregate performance percentile ({short} intervals withheld, see the notes)"
        elif withheld:
            title += f"\n(withheld for {withheld} of {result.n_agents} agents, drawn as bare points; see the notes)"
    ax.set_yticks(position, names)
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("aggregate performance percentile")
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fit_xlabel(ax, title=True)  # broken at words, not cut, on a caller's column-wide figure too (audit s24)
    return ax


def _panel(ax, frame, agents, low, high, quantile, band, kwargs):
    for agent, colour in zip(agents, palette(len(agents))):
        rows = frame[frame["agent"] == agent]
        score = rows["score"].to_numpy()
        # The ECDF is 0 left of the smallest score: start the steps at (low, 0).
        x = np.r_[low, score, high]
        cdf = np.r_[0.0, rows["cdf"].to_numpy(), 1.0]
        lo = np.r_[0.0, rows["cdf_low"].to_numpy(), 1.0]
        hi = np.r_[0.0, rows["cdf_high"].to_numpy(), 1.0]
        style = {"color": colour, "linewidth": 1.2, "label": agent}
        style.update(kwargs)
        if quantile:
            # The quantile function is the CDF with its axes swapped (probability on x, score on y).
            ax.step(cdf, x, where="pre", **style)
            if band:
                ax.fill_betweenx(x, lo, hi, step="post", color=style["color"], alpha=0.15, linewidth=0)
        else:
            ax.step(x, cdf, where="post", **style)
            if band:
                ax.fill_between(x, lo, hi, step="post", color=style["color"], alpha=0.15, linewidth=0)


def plot_task_cdfs(result, *, tasks=None, agents=None, ax=None, quantile=False, band=True, ncols=None, width=None,
                   **kwargs):
    """Empirical CDFs of every agent on each task, with DKW bands at delta' (paper Figure 3).

    Parameters
    ----------
    tasks : sequence of str, optional
        Tasks to draw (all by default, one panel each).
    agents : sequence of str, optional
        Agents to draw (all by default).
    ax : Axes or sequence of Axes, optional
        One Axes per task; a new figure when None.
    quantile : bool
        Draw quantile functions (probability on x, score on y; paper Figure 4).
    band : bool
        Shade the DKW band of each CDF.
    ncols : int, optional
        Panels per row of a new figure (default: as many as fit ``width``).
    width : float, optional
        Width in inches of a new figure (default 3.3, one column of a paper).
    **kwargs
        Passed to ``Axes.step``.

    Returns
    -------
    Axes when one task is drawn, else the Figure.
    """
    from matplotlib.ticker import MaxNLocator

    # the result's labels, read by the one rule (errors.agent_named): tasks=[0] names the task printed 0
    tasks = list(result.tasks) if tasks is None else [agent_named(result.tasks, "tasks", t, listed=True, what="task")
                                                      for t in tasks]
    agents = list(result.agents) if agents is None else [agent_named(result.agents, "agents", a, listed=True)
                                                         for a in agents]
    several = len(tasks) > 1
    # The probability axis (0 to 1 on every task) is shared; the score axis has each task's own scale.
    fig, axes = panels(ax, len(tasks), (1.5, 1.35) if several else (COLUMN_WIDTH, 2.4), width=width,
                       columns=ncols, sharex=quantile, sharey=not quantile, what="task",
                       hint=", or tasks= to choose fewer")
    # the response as the formula names it (a column such as final_mean_return, or log(score)), as bootstrap's plots
    score_label = str(result.formula.response) if result.formula is not None else "score"
    probability_label = "cumulative probability"
    for panel, task in zip(axes, tasks):
        j = result.tasks.index(task)
        frame = result.ecdf[result.ecdf["task"] == task]
        _panel(panel, frame, agents, result.support_low[j], result.support_high[j], quantile, band, kwargs)
        panel.set_title(task, fontsize=SMALL_FONT + 1, pad=2)
        (panel.yaxis if quantile else panel.xaxis).set_major_locator(MaxNLocator(3))
        if ax is not None or not several:
            panel.set_xlabel(probability_label if quantile else score_label, fontsize=SMALL_FONT + 1)
            panel.set_ylabel(score_label if quantile else probability_label, fontsize=SMALL_FONT + 1)
    if not several:
        axes[0].legend(fontsize=SMALL_FONT, frameon=False)
        return axes[0]
    if ax is None:
        # One set of axis labels and one legend for the grid: every panel draws the same agents.
        fig.supxlabel(probability_label if quantile else score_label, fontsize=SMALL_FONT + 1)
        fig.supylabel(score_label if quantile else probability_label, fontsize=SMALL_FONT + 1)
        level = 100 * (1 - result.delta_cell)
        what = "Quantile functions" if quantile else "Empirical CDFs"
        figure_legend(fig, axes, title=f"{what}, DKW bands at {level:.4g}% per cell")
    else:
        axes[0].legend(fontsize=SMALL_FONT, frameon=False)
    return fig


def plot_weights(result, *, ax=None, annotate=None, colorbar=True, **kwargs):
    """Heat map of the adversary's weights q*_{j,k}: tasks (rows) x reference agents (columns).

    ``annotate`` writes the weights in the cells (default: when the map is
    small).  Keywords go to ``Axes.imshow`` (e.g. ``cmap=``).
    """
    frame = result.reference_weights
    matrix = frame["weight"].to_numpy().reshape(result.n_tasks, result.n_agents)
    ax = axes_or_new(ax, (1.6 + 0.7 * result.n_agents, 1.35 + 0.3 * result.n_tasks))  # the title: two lines
    style = {"cmap": "viridis", "aspect": "auto", "vmin": 0.0}
    style.update(kwargs)
    image = ax.imshow(matrix, **style)
    ax.set_xticks(np.arange(result.n_agents), list(result.agents), rotation=45, ha="right", fontsize=8)
    ax.set_yticks(np.arange(result.n_tasks), list(result.tasks), fontsize=8)
    ax.set_xlabel("reference agent k")
    ax.set_ylabel("task j")
    ax.set_title("Adversary's weights\nq*(task, reference)", fontsize=9)
    if annotate is None:
        annotate = matrix.size <= 200
    if annotate:
        top = matrix.max() if matrix.size else 1.0
        for (j, k), value in np.ndenumerate(matrix):
            ax.text(k, j, f"{value:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if value < 0.5 * top else "black")
    if colorbar:
        ax.figure.colorbar(image, ax=ax, fraction=0.05, pad=0.02)
    return ax
