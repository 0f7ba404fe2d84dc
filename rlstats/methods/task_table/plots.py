"""Drawing of a task table: drawing only, ``ax=`` in, Axes out."""

from __future__ import annotations

import warnings

import numpy as np

from ...plotting import axes_or_new, fit_xlabel


def scaled(result):
    """(n_tasks, n_agents) each task's estimates placed between its worst (0) and its best (1) agent, oriented by
    ``higher_is_better``: unchanged by shifts and positive scaling of a task's scores, where a ratio to the best is
    not (negative scores, such as Atari Pong's, read below 0 and stretch every task's scale); NaN for empty cells, 1
    where a task's agents all tie."""
    sign = 1.0 if result.options.get("higher_is_better", True) else -1.0
    oriented = sign * np.asarray(result.estimates, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an empty task's all-NaN row
        low, high = np.nanmin(oriented, axis=1, keepdims=True), np.nanmax(oriented, axis=1, keepdims=True)
        out = (oriented - low) / (high - low)
    return np.where(np.isfinite(oriented) & (high == low), 1.0, out)


def plot_table(result, *, ax=None, cmap="Greys", **kwargs):
    """Each task's estimates from its worst (0) to its best (1) agent as a heat map; best outlined, the possibly best
    marked."""
    from matplotlib.patches import Rectangle

    own = ax is None  # its own figure grows by the legend's lines below
    ax = axes_or_new(ax, (1.2 + 0.7 * len(result.agents), 0.8 + 0.25 * len(result.tasks)))
    relative = scaled(result)
    style = {"cmap": cmap, "aspect": "auto", "vmin": 0.0, "vmax": 1.0}
    style.update(kwargs)
    ax.imshow(relative, **style)
    ax.set_xticks(range(len(result.agents)), result.agents, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(result.tasks)), result.tasks, fontsize=8)
    empty = np.argwhere(np.isnan(relative))  # no runs of the agent on the task: NaN, which imshow leaves blank,
    for t, a in empty:  # the worst agent's white: hatched instead, and said in the title
        ax.add_patch(Rectangle((a - 0.5, t - 0.5), 1, 1, facecolor="#BBBBBB", edgecolor="#555555", hatch="///",
                               linewidth=0))
    for t, a in np.argwhere(result._bold()):
        ax.add_patch(Rectangle((a - 0.5, t - 0.5), 1, 1, fill=False, edgecolor="#D55E00", linewidth=1.5))
    for t, a in np.argwhere(result.possibly_best & ~result.tied_best):
        ax.text(a, t, "\u2020", ha="center", va="center", fontsize=9, color="#D55E00")
    marked = result._marks_shown()  # marks withheld for want of runs are not drawn, nor named in the title
    # two lines: the figure is as narrow as a column for a few agents
    worst, best = ("white", "black") if style["cmap"] == "Greys" else ("0", "1")  # no colour bar: say which is which
    ax.set_title(f"{result._bold_label} per task: worst {worst}, best {best}\n(outlined: the best"
                 + ("" if marked else "; possibly-best marks withheld: too few runs")
                 + ("; hatched: no runs)" if len(empty) else ")"), fontsize=9)
    if marked:  # what the dagger means, as the table's legend says it (audit s35 small35: "possibly best" alone)
        ax.set_xlabel(result.mark_sentence(best="outlined"), fontsize=7, loc="left")
        fit_xlabel(ax, 0.95)
        if own:  # each 7-pt line of it 0.125 in, so that the cells keep their height
            width, height = ax.figure.get_size_inches()
            ax.figure.set_size_inches(width, height + 0.125 * (ax.xaxis.label.get_text().count("\n") + 1) + 0.05)
    return ax
