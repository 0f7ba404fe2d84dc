"""Figures of AdaStop results: decision matrix, score distributions, statistic against boundaries.

Plots draw, never compute: they read the result's tables (``decisions``,
``runs_used``, ``scores``, ``history``).  Each takes ``ax=`` and ``task=``;
with several tasks, no ``task=`` and no ``ax=`` they draw one panel per task
on a new figure and return the Figure (``ax=`` a list of one Axes per task
draws the panels there); on a single given Axes they draw one task (the
first unless ``task=`` names another) and return the Axes.
"""

from __future__ import annotations

import numpy as np

from ...errors import OptionError
from ...plotting import axes_or_new

#: cell colours of the decision matrix, by decision of the row agent against the column agent
DECISION_COLOURS = {
    "larger": (0.55, 0.78, 0.55),
    "smaller": (0.90, 0.55, 0.50),
    "equal": (0.82, 0.82, 0.82),
    "continue": (1.0, 1.0, 1.0),
    "": (1.0, 1.0, 1.0),
    "self": (0.35, 0.35, 0.35),
}
_SYMBOL = {"larger": ">", "smaller": "<", "equal": "=", "continue": "?", "": ""}
_FLIP = {"larger": "smaller", "smaller": "larger", "equal": "equal", "continue": "continue", "": ""}


def _rows_of(result, frame, task):
    return frame if not result.blocked else frame[frame["task"] == task]


def _per_task(result, task, ax, draw, panel_size, **kwargs):
    """Draw one task on ``ax``, or every task on its own panel of a new Figure."""
    tasks = list(result.tasks)
    if task is not None and task not in tasks:
        raise OptionError(f"task={task!r} is not one of: {', '.join(tasks)}")
    if task is not None or len(tasks) == 1:
        chosen = task if task is not None else tasks[0]
        return draw(result, chosen, axes_or_new(ax, panel_size), **kwargs)
    if isinstance(ax, (list, tuple, np.ndarray)):
        # One Axes per task, as the multi-panel figure would make them.
        axes = list(np.ravel(ax))
        if len(axes) != len(tasks):
            raise OptionError(f"ax= holds {len(axes)} Axes but the result has {len(tasks)} tasks; pass one "
                              "Axes per task, or task= to draw one task")
        for panel, name in zip(axes, tasks):
            draw(result, name, panel, **kwargs)
            panel.set_title(name)
        return axes[0].figure
    if ax is not None:
        # One Axes holds one task: draw the first and say how to choose another.
        draw(result, tasks[0], ax, **kwargs)
        ax.set_title(f"{tasks[0]} (task 1 of {len(tasks)}; pass task= for another)", fontsize=9)
        return ax
    import matplotlib.pyplot as plt

    columns = min(3, len(tasks))
    rows = -(-len(tasks) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(panel_size[0] * columns, panel_size[1] * rows),
                             squeeze=False)
    for panel, name in zip(axes.ravel(), tasks):
        draw(result, name, panel, **kwargs)
        panel.set_title(name)
    for panel in axes.ravel()[len(tasks):]:
        panel.set_axis_off()
    fig.tight_layout()
    return fig


def _agents_by_mean(result, task):
    """Agents of the task, best mean first, with their runs used (from ``runs_used``)."""
    used = _rows_of(result, result.runs_used, task)
    used = used.sort_values("mean", ascending=False, kind="stable", na_position="last")
    return list(used["agent"]), dict(zip(used["agent"], used["n_runs"]))


# ---------------------------------------------------------------------------
# Decision matrix (the paper's Fig. 5)
# ---------------------------------------------------------------------------

def plot_decision_matrix(result, *, ax=None, task=None, **kwargs):
    """Decision table as in Mathieu et al. (2023), Fig. 5: row agent versus column agent.

    Agents are sorted by mean score (best first).  A cell reads "the row agent
    is > (larger), < (smaller), = (equal) or ? (undecided) than the column
    agent"; the row labels give the runs each agent used.  Keywords go to
    ``Axes.imshow``.
    """
    return _per_task(result, task, ax, _draw_decision_matrix, (4.8, 4.0), **kwargs)


def _draw_decision_matrix(result, task, ax, **kwargs):
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
                ax.text(j, i, _SYMBOL[cells[i][j]], ha="center", va="center", fontsize=13)
    ax.set_xticks(range(size), agents, rotation=30, ha="right")
    ax.set_yticks(range(size), [f"{a} ({runs[a]} runs)" for a in agents])
    ax.set_xticks(np.arange(size + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(size + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=2)
    ax.tick_params(which="minor", length=0)
    title = "row is >, <, = or ? (undecided) than column"
    ax.set_title(title if not result.blocked else f"{task}: {title}", fontsize=9)
    return ax


# ---------------------------------------------------------------------------
# Score distributions
# ---------------------------------------------------------------------------

def plot_scores(result, *, ax=None, task=None, **kwargs):
    """Box plots of the runs each agent used, best mean first, means marked by a diamond.

    Keywords go to ``Axes.boxplot``.
    """
    return _per_task(result, task, ax, _draw_scores, (5.0, 3.4), **kwargs)


def _draw_scores(result, task, ax, **kwargs):
    agents, runs = _agents_by_mean(result, task)
    scores = _rows_of(result, result.scores, task)
    values = [scores.loc[scores["agent"] == a, "score"].to_numpy() for a in agents]
    shown = [i for i, v in enumerate(values) if v.size]
    options = {"showmeans": True, "meanprops": {"marker": "D", "markerfacecolor": "black",
                                                "markeredgecolor": "black", "markersize": 4},
               "medianprops": {"color": "0.3"}}
    options.update(kwargs)
    if shown:
        ax.boxplot([values[i] for i in shown], positions=[i + 1 for i in shown], **options)
    ax.set_xticks(range(1, len(agents) + 1), [f"{a}\n({runs[a]} runs)" for a in agents])
    ax.set_ylabel("score (runs used)")
    return ax


# ---------------------------------------------------------------------------
# Statistic against the boundaries
# ---------------------------------------------------------------------------

def plot_boundaries(result, *, ax=None, task=None, **kwargs):
    """Each comparison's |mean difference| per interim (solid) and the boundary it faced (dashed).

    A filled star marks a rejection, an open circle an "equal" decision.
    Keywords go to the solid lines (``Axes.plot``).
    """
    return _per_task(result, task, ax, _draw_boundaries, (5.6, 3.6), **kwargs)


def _draw_boundaries(result, task, ax, **kwargs):
    history = _rows_of(result, result.history, task)
    import matplotlib.pyplot as plt

    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    pairs = list(dict.fromkeys(zip(history["agent_1"], history["agent_2"])))
    for number, (a, b) in enumerate(pairs):
        rows = history[(history["agent_1"] == a) & (history["agent_2"] == b)]
        colour = cycle[number % len(cycle)]
        options = {"color": colour, "marker": "o", "markersize": 3, "label": f"{a} vs {b}"}
        options.update(kwargs)
        ax.plot(rows["interim"], rows["statistic"], **options)
        finite = np.isfinite(rows["boundary"].to_numpy())
        ax.plot(rows["interim"][finite], rows["boundary"][finite], color=options["color"], linestyle="--",
                linewidth=1, marker="_", markersize=10)
        last = rows.iloc[-1]
        if last["decision"] in ("larger", "smaller"):
            ax.plot([last["interim"]], [last["statistic"]], marker="*", markersize=12, color=options["color"],
                    linestyle="none")
        elif last["decision"] == "equal":
            ax.plot([last["interim"]], [last["statistic"]], marker="o", markersize=9, markerfacecolor="none",
                    color=options["color"], linestyle="none")
    ax.set_xlabel("interim")
    ax.set_ylabel("|mean difference|")
    if len(history):
        from matplotlib.lines import Line2D

        ax.set_xticks(range(1, int(history["interim"].max()) + 1))
        # The markers explained once, beside the comparisons' colours.
        key = [Line2D([], [], color="0.3", marker="o", markersize=3, label="statistic"),
               Line2D([], [], color="0.3", linestyle="--", marker="_", markersize=10, label="boundary"),
               Line2D([], [], color="0.3", marker="*", markersize=9, linestyle="none", label="rejected: differ"),
               Line2D([], [], color="0.3", marker="o", markersize=7, markerfacecolor="none", linestyle="none",
                      label="decided: equal")]
        handles, _ = ax.get_legend_handles_labels()
        ax.legend(handles=handles + key, frameon=False, fontsize=7)
    return ax
