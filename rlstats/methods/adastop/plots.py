"""Figures of AdaStop results: decision matrix, score distributions, statistic against boundaries.

Plots draw, never compute: they read the result's tables (``decisions``,
``runs_used``, ``scores``, ``history``).  Each takes ``ax=`` and ``task=``;
with several tasks, no ``task=`` and no ``ax=`` they draw one panel per task
on a new figure and return the Figure (``ax=`` a list of one Axes per task
draws the panels there); on a single given Axes they draw one task (the
first unless ``task=`` names another) and return the Axes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._typing import Label
from ...errors import agent_named
from ...plotting import SMALL_FONT, axes_or_new, figure_legend, fit_title, palette, panels
from ._backend import DECISION_SYMBOLS, NO_DIFFERENCE, NO_DIFFERENCE_MARK

#: cell colours of the decision matrix, by decision of the row agent against the column agent
DECISION_COLOURS = {
    "larger": (0.55, 0.78, 0.55),
    "smaller": (0.90, 0.55, 0.50),
    "equal": (0.82, 0.82, 0.82),
    "continue": (1.0, 1.0, 1.0),
    "withheld": (0.95, 0.92, 0.80),
    "": (1.0, 1.0, 1.0),
    "self": (0.35, 0.35, 0.35),
}
_SYMBOL = {**DECISION_SYMBOLS, "": ""}  # an empty cell (the diagonal) unmarked
_FLIP = {"larger": "smaller", "smaller": "larger", "equal": "equal", "continue": "continue", "withheld": "withheld",
         "": ""}
#: what a withheld cell means, added to a panel's title where it has one
_WITHHELD_KEY = "\u2013: withheld, too few runs (see the notes)"


def _rows_of(result, frame, task):
    return frame if not result.blocked else frame[frame["task"] == task]


def _per_task(result, task, ax, draw, panel_size, grid_size, finish, **kwargs):
    """Draw one task on ``ax``, or every task on its own panel of a grid; ``finish(fig, axes)`` labels the grid.

    ``panel_size`` is a new figure's size for one task, ``grid_size`` one panel's in a grid, where
    ``draw`` is called with ``compact=True``: smaller markers, labels said once for the figure.
    """
    tasks = list(result.tasks)
    if task is not None:  # the result's label, read by the one rule (errors.agent_named): task=0 names task 0
        task = agent_named(tasks, "task", task, what="task")
    if task is not None or len(tasks) == 1:
        chosen = task if task is not None else tasks[0]
        return draw(result, chosen, axes_or_new(ax, panel_size), **kwargs)
    if ax is not None and not isinstance(ax, (list, tuple, np.ndarray)):
        # One Axes holds one task: draw the first and say how to choose another.
        draw(result, tasks[0], ax, **kwargs)
        ax.set_title(f"{tasks[0]} (task 1 of {len(tasks)}; pass task= for another)", fontsize=9)
        return ax
    fig, axes = panels(ax, len(tasks), grid_size, what="task",
                       hint=", or task= to draw one task")
    for panel, name in zip(axes, tasks):
        draw(result, name, panel, compact=ax is None, **kwargs)  # the caller's Axes get full labels
        # over the y axis' multiplier where it has one ("1e-6" at the panel's top left ran into "task_01" as
        # "1e-6task_01", scores of 1e-6: audit s29 fig29)
        panel.set_title(name, fontsize=SMALL_FONT + 1, pad=2 + (SMALL_FONT + 2) * bool(_multiplier(panel.yaxis)))
    if ax is None:
        finish(fig, axes)
        fit_title(axes)  # a long task name over a square panel at the figure's edge (audit s24: CrazyClimber)
    return fig


def _multiplier(axis):
    """The offset or multiplier text ``axis`` shows beside its numbers ("1e-6"), "" where none."""
    from matplotlib.ticker import ScalarFormatter

    formatter = axis.get_major_formatter()
    if not isinstance(formatter, ScalarFormatter):
        return ""
    formatter.set_locs(axis.get_majorticklocs())
    return formatter.get_offset()


def _agents_by_mean(result, task):
    """Agents of the task, best mean first, with their runs used (from ``runs_used``)."""
    used = _rows_of(result, result.runs_used, task)
    used = used.sort_values("mean", ascending=False, kind="stable", na_position="last")
    return list(used["agent"]), dict(zip(used["agent"], used["n_runs"]))


# ---------------------------------------------------------------------------
# Decision matrix (the paper's Fig. 5)
# ---------------------------------------------------------------------------

def plot_decision_matrix(result: Any, *, ax: Any = None, task: Label | None = None, **kwargs: Any) -> Any:
    """Decision table as in Mathieu et al. (2023), Fig. 5: row agent versus column agent.

    Agents are sorted by mean score (best first).  A cell reads "the row agent
    is > (larger), < (smaller) or ? (undecided) than the column agent", or ns:
    no difference found (decision ``equal``, the paper's "="); the row labels give the runs each agent used.  Keywords go to
    ``Axes.imshow``.
    """
    key = _DECISION_KEY + (f"\n{_WITHHELD_KEY}" if (result.decisions["decision"] == "withheld").any() else "")
    # a grid's panel wide enough for its agents' slanted names, a 7 pt line apart across (audit s28 fig28: 8 agents
    # on 1.65 in ran together; 0.17 in an agent from 6 agents on)
    grid = (max(1.65, 0.8 + 0.17 * len(result.agents)), max(1.7, 0.85 + 0.17 * len(result.agents)))
    return _per_task(result, task, ax, _draw_decision_matrix, (4.8, 4.0), grid,
                     lambda fig, axes: fig.suptitle(key, fontsize=SMALL_FONT + 1), **kwargs)


_DECISION_KEY = (f"row agent is >, < or ? (undecided) than column\nagent; {NO_DIFFERENCE_MARK}: {NO_DIFFERENCE}; "
                 "(n): runs used")


def _draw_decision_matrix(result, task, ax, compact=False, **kwargs):
    agents, runs = _agents_by_mean(result, task)
    index = {a: i for i, a in enumerate(agents)}
    size = len(agents)
    cells = [["" for _ in agents] for _ in agents]
    for a, b, d in _rows_of(result, result.decisions, task)[["agent_1", "agent_2", "decision"]].itertuples(
            index=False):
        if a in index and b in index:
            cells[index[a]][index[b]] = d
            cells[index[b]][index[a]] = _FLIP[d]
    colours = np.array([[DECISION_COLOURS["self"] if i == j else DECISION_COLOURS[cells[i][j]]
                         for j in range(size)] for i in range(size)])
    options = {"interpolation": "nearest", "aspect": "equal"}
    options.update(kwargs)
    ax.imshow(colours, **options)
    for i in range(size):
        for j in range(size):
            if i != j and cells[i][j]:
                ax.text(j, i, _SYMBOL[cells[i][j]], ha="center", va="center", fontsize=9 if compact else 13)
    ax.set_xticks(range(size), agents, rotation=45 if compact else 30, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(size), [f"{a} ({runs[a]})" for a in agents])
    ax.set_xticks(np.arange(size + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(size + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=2)
    ax.tick_params(which="minor", length=0)
    title = _DECISION_KEY if not result.blocked else f"{task}: {_DECISION_KEY}"
    if any("withheld" in row for row in cells):
        title += f"\n{_WITHHELD_KEY}"
    ax.set_title(title, fontsize=9)
    return ax


# ---------------------------------------------------------------------------
# Score distributions
# ---------------------------------------------------------------------------

def plot_scores(result: Any, *, ax: Any = None, task: Label | None = None, **kwargs: Any) -> Any:
    """Box plots of the runs each agent used, best mean first, means marked by a diamond.

    Keywords go to ``Axes.boxplot``.
    """
    return _per_task(result, task, ax, _draw_scores, (5.0, 3.4), (1.6, 1.45), _finish_scores, **kwargs)


def _finish_scores(fig, axes):
    fig.supylabel("score of the runs used", fontsize=SMALL_FONT + 1)
    fig.suptitle("(n): runs used; diamond: mean", fontsize=SMALL_FONT + 1)


def _draw_scores(result, task, ax, compact=False, **kwargs):
    agents, runs = _agents_by_mean(result, task)
    scores = _rows_of(result, result.scores, task)
    values = [scores.loc[scores["agent"] == a, "score"].to_numpy() for a in agents]
    shown = [i for i, v in enumerate(values) if v.size]
    options = {"showmeans": True, "meanprops": {"marker": "D", "markerfacecolor": "black",
                                                "markeredgecolor": "black", "markersize": 3 if compact else 4},
               "medianprops": {"color": "0.3"}, "flierprops": {"markersize": 3 if compact else 6}}
    options.update(kwargs)
    if shown:
        ax.boxplot([values[i] for i in shown], positions=[i + 1 for i in shown], **options)
    if compact:
        # One line per label, slanted: a grid's narrow panel has no room for two lines side by side.
        ax.set_xticks(range(1, len(agents) + 1), [f"{a} ({runs[a]})" for a in agents], rotation=45, ha="right",
                      rotation_mode="anchor")
    else:
        ax.set_xticks(range(1, len(agents) + 1), [f"{a}\n({runs[a]})" for a in agents])
        ax.set_ylabel("score (n: runs used; diamond: mean)")
    return ax


# ---------------------------------------------------------------------------
# Statistic against the boundaries
# ---------------------------------------------------------------------------

def plot_boundaries(result: Any, *, ax: Any = None, task: Label | None = None, **kwargs: Any) -> Any:
    """Each comparison's |mean difference| per interim (solid) and the boundary it faced (dashed).

    A filled star marks a rejection, an open circle a comparison stopped with no difference found (decision
    ``equal``).
    Keywords go to the solid lines (``Axes.plot``).  The legend stands beside
    the Axes: on your own ``ax=``, lay its figure out (``layout="constrained"``)
    or save it with ``bbox_inches="tight"`` so that it is not cut off.
    """
    return _per_task(result, task, ax, _draw_boundaries, (5.6, 3.6), (1.6, 1.4), _finish_boundaries, **kwargs)


def _marker_sizes(compact):
    """Marker sizes of the statistic, boundary, rejection and no-difference marks (smaller on a grid's panels)."""
    return (2, 6, 7, 5) if compact else (3, 10, 12, 9)


def _boundary_key(compact=False):
    """Legend entries explaining the markers, beside the comparisons' colours."""
    from matplotlib.lines import Line2D

    dot, dash, star, ring = _marker_sizes(compact)
    return [Line2D([], [], color="0.3", marker="o", markersize=dot, label="statistic"),
            Line2D([], [], color="0.3", linestyle="--", marker="_", markersize=dash, label="boundary"),
            Line2D([], [], color="0.3", marker="*", markersize=star * 0.75, linestyle="none",
                   label="rejected: differ"),
            Line2D([], [], color="0.3", marker="o", markersize=ring * 0.75, markerfacecolor="none", linestyle="none",
                   label=NO_DIFFERENCE)]


def _finish_boundaries(fig, axes):
    fig.supxlabel("interim", fontsize=SMALL_FONT + 1)
    fig.supylabel("|mean difference|", fontsize=SMALL_FONT + 1)
    legend = figure_legend(fig, axes, extra=_boundary_key(compact=True), handlelength=1.2)
    # the key's own room above the rows, which keep their height: at 8 agents its 28 pairs and marks in 2 columns took
    # 3.3 in of a 4.2 in grid and left each panel 0.09 in, whose numbers ran together (audit s29 fig29)
    fig.set_figheight(fig.get_figheight() + legend.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi)


def _draw_boundaries(result, task, ax, compact=False, **kwargs):
    history = _rows_of(result, result.history, task)
    # Colours follow the pair over the whole result, so a comparison keeps its colour on every task's panel.
    every_pair = list(dict.fromkeys(zip(result.history["agent_1"], result.history["agent_2"])))
    colour_of = dict(zip(every_pair, palette(len(every_pair))))
    pairs = list(dict.fromkeys(zip(history["agent_1"], history["agent_2"])))
    dot, dash, star, ring = _marker_sizes(compact)
    for a, b in pairs:
        rows = history[(history["agent_1"] == a) & (history["agent_2"] == b)]
        options = {"color": colour_of[(a, b)], "marker": "o", "markersize": dot, "label": f"{a} vs {b}"}
        options.update(kwargs)
        ax.plot(rows["interim"], rows["statistic"], **options)
        finite = np.isfinite(rows["boundary"].to_numpy())
        ax.plot(rows["interim"][finite], rows["boundary"][finite], color=options["color"], linestyle="--",
                linewidth=1, marker="_", markersize=dash)
        last = rows.iloc[-1]
        if last["decision"] in ("larger", "smaller"):
            ax.plot([last["interim"]], [last["statistic"]], marker="*", markersize=star, color=options["color"],
                    linestyle="none")
        elif last["decision"] == "equal":
            ax.plot([last["interim"]], [last["statistic"]], marker="o", markersize=ring, markerfacecolor="none",
                    color=options["color"], linestyle="none")
    if len(history):
        ax.set_xticks(range(1, int(history["interim"].max()) + 1))
    ax.margins(y=0.12)  # room for the stars and rings at the top and bottom
    if compact:
        return ax  # the grid says the axes and the legend once
    ax.set_xlabel("interim")
    ax.set_ylabel("|mean difference|")
    if len(history):
        handles, _ = ax.get_legend_handles_labels()
        # beside the Axes: with its key the legend has four entries more than comparisons, and inside the Axes it
        # covered the lines it names (audit s16, four agents at 3.5 x 2.6 in)
        ax.legend(handles=handles + _boundary_key(), frameon=False, fontsize=SMALL_FONT, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return ax
