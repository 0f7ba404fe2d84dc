"""Drawings of the blocked rank test's result: critical-difference diagram, mean ranks, null distribution.

Plots draw, never compute: every function reads a result's fields, takes
``ax=`` (a new figure only when it is None), lets user keywords win over the
defaults, changes no global style and returns the Axes.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...errors import OptionError, labels_keyed
from ...format import count, join_and, plural
from ...plotting import axes_off, axes_or_new, figure_inches, mark_observed, palette, unbroken_parentheses


def nonsignificant_groups(order: Sequence[int], significant: NDArray[np.bool_],
                          met: NDArray[np.bool_] | None = None) -> list[tuple[int, int]]:
    """Maximal runs of agents (in rank order) in which every two met and none differ significantly.

    Parameters
    ----------
    order : sequence of int
        Agent indices sorted by mean rank.
    significant : ndarray of bool, shape (k, k)
        Symmetric matrix of pairwise decisions.
    met : ndarray of bool, shape (k, k), optional
        Symmetric matrix: True where the pair was compared on a shared task.  A pair that never met is no
        evidence of being alike, so no run holds it (None: every pair met).

    Returns
    -------
    list of (first, last) positions into ``order``, each joining two or more agents.
    """
    apart = significant if met is None else significant | ~met
    groups: list[tuple[int, int]] = []
    k = len(order)
    for start in range(k):
        stop = start
        while stop + 1 < k and not any(apart[order[i], order[stop + 1]] for i in range(start, stop + 1)):
            stop += 1
        if stop > start and not any(g[0] <= start and stop <= g[1] for g in groups):
            groups.append((start, stop))
    return groups


def agent_groups(agents: Sequence[str], hue: Any, data: Any = None,
                 agent_column: str | None = None) -> tuple[list[str], str | None]:
    """Each agent's group for ``hue=``, and the legend's title: checks, never computes a statistic.

    ``hue`` is a mapping agent -> group (a dict, or a pandas Series indexed by agent), which must name every agent of
    the result with a group (no missing value) and no other agent; or the name of a column of ``data`` holding one
    group per agent (constant over the agent's rows; rows of agents the result does not hold, such as those a
    ``subset=`` left out, are ignored).  ``agent_column`` is the column of ``data`` naming the agents (the result's
    formula's groups term); None looks for the one column holding every agent.

    Raises
    ------
    OptionError
        Agents missing from the mapping, given a missing group or unknown to the result, a column not in ``data``
        (or no ``data``), a column whose value changes within an agent or is missing.
    """
    agents = [str(a) for a in agents]
    title: Any = None
    if isinstance(hue, str):
        if data is None or not hasattr(data, "columns"):
            raise OptionError(f"hue={hue!r} names a column: pass the data too, e.g. res.plot(hue={hue!r}, data=df); "
                              "or give hue as a mapping agent -> group, e.g. hue={'DQN': 'value-based', ...}")
        if hue not in data.columns:
            raise OptionError(f"hue={hue!r} is not a column of data; the columns are: "
                              + ", ".join(map(repr, data.columns[:20])))
        agent_column = _agent_column(data, agents, agent_column)
        frame = data[[agent_column, hue]]
        frame = frame[frame[agent_column].astype(str).isin(agents)]
        if frame[hue].isna().any():
            raise OptionError(f"hue={hue!r}: the column is missing for agent "
                              f"{frame.loc[frame[hue].isna(), agent_column].astype(str).iloc[0]!r}; fill it in, one "
                              "group per agent")
        values = frame.groupby(frame[agent_column].astype(str))[hue].unique()
        mixed = [f"{a!r} ({', '.join(map(str, v[:3]))})" for a, v in values.items() if len(v) > 1]
        if mixed:
            raise OptionError(f"hue={hue!r} must be constant within each agent, as it colours the agent's line; it "
                              f"changes within {', '.join(mixed[:3])}: use a column with one group per agent, or a "
                              "mapping agent -> group")
        mapping, title = {a: v[0] for a, v in values.items()}, hue
    elif hasattr(hue, "items"):
        # a key names an agent as the data write it (errors.label_named: 3 and "3" name the agent printed 3)
        mapping = {str(a): g for a, g in labels_keyed(agents, "hue", hue, what="agent").items()}
        title = getattr(hue, "name", None)
        blank = [a for a, g in mapping.items() if _missing(g)]
        if blank:  # as the column form refuses: a missing group would be drawn as a group called "nan"
            raise OptionError(f"hue= gives a missing group for {plural('agent', len(blank))} "
                              f"{', '.join(map(repr, blank[:5]))}; give "
                              "every agent of the result a group")
    else:
        raise OptionError(f"hue= must be a mapping agent -> group (dict or pandas Series) or the name of a column of "
                          f"data=, got {type(hue).__name__}")
    missing = [a for a in agents if a not in mapping]
    if missing:
        raise OptionError(f"hue= gives no group for {count(len(missing), 'agent')}: "
                          f"{', '.join(map(repr, missing[:5]))}; "
                          "give every agent of the result a group")
    return [str(mapping[a]) for a in agents], None if title is None else str(title)


def _missing(value):
    try:
        return bool(value is None or value != value)  # None, NaN, pd.NA and NaT
    except (TypeError, ValueError):  # pd.NA's comparison raises
        return True


def _agent_column(data, agents, column=None):
    """The column of ``data`` whose values are the result's agents: the formula's groups column when known."""
    if column is not None:
        if column not in data.columns:
            raise OptionError(f"data= has no column {column!r}, the agents' column of the result's formula: pass the "
                              "data the result was computed from")
        absent = sorted(set(agents) - set(data[column].astype(str)))
        if absent:
            raise OptionError(f"data='s column {column!r} lacks {plural('agent', len(absent))} "
                              f"{', '.join(map(repr, absent[:5]))} of the "
                              "result: pass the data the result was computed from")
        return column
    for column in data.columns:
        if set(agents) <= set(data[column].astype(str)):
            return column
    raise OptionError("data= holds no column with every agent of the result: pass the data the result was computed "
                      "from")


def _group_colors(hue_colors):
    """``hue_colors=`` checked: a mapping group -> a colour matplotlib knows."""
    from matplotlib.colors import is_color_like

    if not hasattr(hue_colors, "items"):
        raise OptionError(f"hue_colors= must be a mapping group -> colour, e.g. {{'value-based': 'tab:blue', ...}}, "
                          f"got {type(hue_colors).__name__}")
    given = {str(g): c for g, c in hue_colors.items()}
    bad = [f"{g!r}: {c!r}" for g, c in given.items() if not is_color_like(c)]
    if bad:
        raise OptionError(f"hue_colors= gives what is not a colour for {', '.join(bad[:3])}; use a matplotlib colour "
                          "such as 'tab:blue', '#1f77b4' or (0.1, 0.5, 0.7)")
    return given


def _inches(ax, texts, fontsize):
    """Widths in inches of ``texts`` drawn at ``fontsize`` points in ``ax``'s figure."""
    from matplotlib.font_manager import FontProperties

    canvas = ax.figure.canvas
    if hasattr(canvas, "get_renderer"):  # the Agg canvases (the default, notebooks, Qt, Tk)
        renderer = canvas.get_renderer()
    else:  # a vector canvas (pdf, svg): Agg's metrics of the same font
        from matplotlib.backends.backend_agg import RendererAgg

        renderer = RendererAgg(1, 1, ax.figure.dpi)
    font = FontProperties(size=fontsize)
    return [renderer.get_text_width_height_descent(t, font, ismath=False)[0] / ax.figure.dpi for t in texts]


def _axes_width(ax):
    return ax.get_position().width * figure_inches(ax.figure)[0]


def _label_margins(ax, left, right, span, sizes=(9, 8)):
    """(left margin, right margin, font size, inches per rank): data units to add beyond each end of the rank axis so
    that the left and right labels fit inside the axes, at the first of ``sizes`` (points) that leaves the ranks half
    the width, else the last."""
    width = _axes_width(ax)
    for fontsize in sizes:
        need = [max(_inches(ax, side, fontsize), default=0.0) + 0.1 for side in (left, right)]
        if width - sum(need) >= 0.5 * width:
            break
    # per inch of axes the data run over span + both margins: margin = need * (span + margins) / width
    room = max(width - sum(need), 0.25 * width)  # never squeeze the ranks below a quarter
    return need[0] * span / room, need[1] * span / room, fontsize, room / span


#: inches a bar joining agents not different reaches past each end's mean rank where nothing is near: two agents
#: 0.13 ranks apart made a bar of 0.02 in at a column's width, a speck (fig37)
BAR_END = 0.06


#: a label's height in points per point of its size: one line; two (name over rank) at line spacing 1.0, with a gap
#: of 0.1 of its size to the next row's (measured on Agg: 1.04 and 2.0)
LABEL_HEIGHT = {1: 1.1, 2: 2.1}


def _label_sizes(ax, rows, lines):
    """The label sizes (points) to try where ``rows`` labels of ``lines`` lines are stacked down a side: 9 and 8 pt
    where the rows' pitch holds them, else the largest half point that does (fixb37: two-line labels at 8-9 pt over
    16 agents at 3.5 x 2.6 in overlapped by up to 7.7 px of 27.6); the pitch from the Axes' height before any layout,
    less 8% (a constrained layout left it 0.93 to 1.15 times that)."""
    pitch = 0.92 * ax.get_position().height * figure_inches(ax.figure)[1] * 72 / (rows + 2.8)  # the y limits' span
    most = pitch / LABEL_HEIGHT[lines]
    return tuple(size for size in (9, 8) if size <= most) or (max(5.0, np.floor(2 * most) / 2),)


def _bar_end(rank, ranks, per_rank, side):
    """Ranks a bar reaches past its end at ``rank`` on ``side`` (-1 lower, 1 higher): :data:`BAR_END` inches, at least
    0.03 ranks, but never more than 0.45 of the way to the next agent's mean rank that way, which the bar does not
    join (fixb37: a floor of 0.03 ranks took a bar past an agent 0.02 ranks from its end, as if it joined it)."""
    beyond = ranks[side * (ranks - rank) > 1e-12]
    room = 0.45 * np.min(np.abs(beyond - rank)) if beyond.size else np.inf
    return min(max(0.03, BAR_END / per_rank), room)


def _wrapped(ax, text, fontsize):
    """``text`` with each line wrapped at words to the figure's width, so that a title at a column's width is whole."""
    width = figure_inches(ax.figure)[0] - 0.1
    lines = []
    for line in text.split("\n"):
        words, current = [word.replace("\xa0", " ") for word in unbroken_parentheses(line).split(" ")], ""
        for word in words:
            trial = f"{current} {word}" if current else word
            if current and _inches(ax, [trial], fontsize)[0] > width:
                lines.append(current)
                current = word
            else:
                current = trial
        lines.append(current)
    return "\n".join(lines)


def _legend_columns(ax, groups, title):
    """As many legend columns as the axes' width holds (entries of 8 pt: handle, gap, text, column spacing)."""
    if not groups:
        return 1
    entry = max(_inches(ax, groups, 8)) + (2.0 + 0.8 + 2.0) * 8 / 72
    return max(1, min(len(groups), int(_axes_width(ax) // entry)))


def plot_critical_difference(result: Any, *, ax: Any = None, hue: Any = None, data: Any = None,
                             hue_colors: Any = None, **kwargs: Any) -> Any:
    """Critical-difference diagram: mean ranks on an axis, bars join agents not significantly different.

    Rank 1 (best) is drawn on the right, as in Demsar (2006).  When the
    design is balanced the critical difference is drawn as a bar above the
    axis; otherwise the joining bars come from the Holm-adjusted pairwise
    tests, which the title says.  With a ``control`` (many-to-one comparisons)
    the control is marked and one bar joins it with the agents next to it in
    rank order that are not different from it (no other pair was tested); after Quade's test the positions are
    the Quade-weighted mean ranks.  A bar never joins two agents that did not
    run on a common task (``result.met_matrix()``); when such pairs exist, a
    line under the diagram names them, and another names the pairs found
    alike that no bar can join (a bar joins a run of agents in rank order
    every two of which met and are not different, and some agents between
    them differ, from one of them or from each other, or never met).  The
    joining bars carry the artist id
    (``gid``) ``"cd_bar"``.

    ``hue=`` colours each agent's line and label by its group, with a legend under the diagram (the bars stay
    black): a mapping agent -> group (dict or pandas Series indexed by agent), or the name of a column of ``data=``
    constant within each agent (see :func:`agent_groups`).  ``hue_colors`` maps each group to a colour (default: the
    package palette in the order the groups first appear from the best agent down).
    """
    names = list(result.agents)
    ranks = np.asarray(result.mean_ranks, dtype=float)
    significant = result.significance_matrix()
    met = result.met_matrix()
    k = len(names)
    order = list(np.argsort(ranks, kind="stable"))
    control = getattr(result, "control", None)
    style = {"color": "black", "linewidth": 1.0}
    style.update(kwargs)
    formula = getattr(result, "formula", None)
    groups, legend_title = (agent_groups(names, hue, data, getattr(formula, "groups", None)) if hue is not None
                            else (None, None))
    colors: dict[str, Any] = {}
    if groups is not None:
        present = list(dict.fromkeys(groups[j] for j in order))  # best agent's group first
        given = {} if hue_colors is None else _group_colors(hue_colors)
        lacking = [g for g in present if g not in given]
        if hue_colors is not None and lacking:
            raise OptionError(f"hue_colors= gives no colour for {plural('group', len(lacking))} "
                              f"{', '.join(map(repr, lacking))}")
        colors = {g: given.get(g, c) for g, c in zip(present, palette(len(present)))}
    new = ax is None
    ax = axes_or_new(ax, (6.4, 1.6 + 0.3 * ((k + 1) // 2)))
    if new:  # the title sits outside the (invisible) axes: give it room
        ax.figure.set_layout_engine("constrained")
    ncol = _legend_columns(ax, list(colors), legend_title)
    if new and groups is not None:  # room under the diagram for the legend's rows
        width, height = ax.figure.get_size_inches()
        ax.figure.set_size_inches(width, height + 0.2 + 0.2 * -(-len(colors) // ncol) + (0.2 if legend_title else 0))

    # a mean rank can lie outside 1..k where runs per cell differ within a task (a note of the result says why): the
    # axis reaches it, so no agent's line starts beyond the axis' end (audit s29: SAC at 0.98 right of 1)
    lo, hi = min(1, int(np.floor(ranks.min()))), max(k, int(np.ceil(ranks.max())))
    half = (k + 1) // 2
    # the control's "control" in its label: under it, it ran over the next row's where the rows are close (fixb37)
    labels = [f"{names[j]} ({ranks[j]:.2f}{', control' if names[j] == control else ''})" for j in order]
    # the labels sit inside the axes, beyond the rank axis' ends: widen the limits by their measured widths so that
    # no label is cut at the axes' (here the figure's) width
    left, right, label_size, per_rank = _label_margins(ax, labels[half:], labels[:half], hi - lo + 0.5,
                                                       _label_sizes(ax, half, 1))
    two = _label_sizes(ax, half, 2)
    if per_rank * (hi - lo + 0.5) < 0.5 * _axes_width(ax) and two[0] >= 7:
        # the names took half the width: each its rank under it (fig37: 9 agents at 3.5 in left the ranks 0.76 in, the
        # bars of agents not different specks), where the rows hold two lines at 7 pt or more
        labels = [f"{names[j]}\n({ranks[j]:.2f}{', control' if names[j] == control else ''})" for j in order]
        left, right, label_size, per_rank = _label_margins(
            ax, [line for label in labels[half:] for line in label.split("\n")],
            [line for label in labels[:half] for line in label.split("\n")], hi - lo + 0.5, two)
    ax.set_xlim(hi + 0.25 + left, lo - 0.25 - right)  # rank 1 on the right
    ax.set_ylim(-(half + 0.8), 2.0)
    ax.hlines(0, lo, hi, **style)
    # numbers that would touch: every other, or every fifth (fixb37: 16 agents' one-line labels at 3.5 in left every
    # other number touching, "151311")
    number = 1.6 * max(_inches(ax, [str(hi)], 8))
    every = next((step for step in (1, 2, 5) if per_rank * step >= number), 10)
    for tick in range(lo, hi + 1):
        ax.vlines(tick, 0, 0.15 if (tick - lo) % every == 0 else 0.08, **style)
        if (tick - lo) % every == 0:
            ax.text(tick, 0.3, str(tick), ha="center", va="bottom", fontsize=8)

    # Best half labelled on the right, the rest on the left, a row each (of one line, or two: name over rank).
    for position, j in enumerate(order):
        right = position < half
        level = -(position + 1) if right else -(k - position)
        edge = lo - 0.2 if right else hi + 0.2
        marked = names[j] == control
        line = {**style, "color": "tab:red", "linewidth": 2.0} if marked else style
        if groups is not None:  # the group's colour; the control keeps its thicker line, bold label and marks
            line = {**line, "color": colors[groups[j]]}
        ax.plot([ranks[j], ranks[j], edge], [0, level, level], **line)
        ax.text(edge + (-0.05 if right else 0.05), level, labels[position],
                ha="left" if right else "right", va="center", fontsize=label_size, linespacing=1.0,
                fontweight="bold" if marked else "normal",
                color=line["color"])
        if marked and groups is not None:  # its line wears its group's colour: a red dot keeps the red bar's agent
            # marked
            ax.plot([ranks[j]], [0], marker="o", markersize=4, color="tab:red", zorder=4, gid="cd_control")

    if control is not None:
        # only the control's pairs were tested: one bar from the control over the agents not different from it
        # from the control outwards in rank order while the next agent met it and does not differ, so that no
        # agent under the bar differs from the control or never met it
        c = names.index(control)
        at = order.index(c)
        first, last = at, at
        while first > 0 and met[c, order[first - 1]] and not significant[c, order[first - 1]]:
            first -= 1
        while last + 1 < k and met[c, order[last + 1]] and not significant[c, order[last + 1]]:
            last += 1
        alike = order[first:last + 1]
        if len(alike) > 1:
            ax.hlines(-0.35, ranks[alike].min() - 0.03, ranks[alike].max() + 0.03, color="tab:red", linewidth=3,
                      gid="cd_bar")
    unjoined = []
    if control is None:
        bars = nonsignificant_groups(order, significant, met)
        # a bar covers every agent whose mean rank lies in its span, so one ending at a mean rank that an agent outside
        # its run shares would join that agent too (audit s18: B under C-D's bar, B-D never met): it is not drawn, and
        # its pairs are named under the diagram as alike pairs under no common bar
        bars = [(first, last) for first, last in bars
                if not any(ranks[order[first]] <= ranks[j] <= ranks[order[last]]
                           for j in order[:first] + order[last + 1:])]
        for bar, (first, last) in enumerate(bars):
            y = -0.35 - 0.25 * bar
            low, high = ranks[order[first]], ranks[order[last]]
            ax.hlines(y, low - _bar_end(low, ranks, per_rank, -1), high + _bar_end(high, ranks, per_rank, 1),
                      color=style["color"], linewidth=3, gid="cd_bar")
        # a bar joins a run of agents in rank order every two of which met and are alike, so a pair found alike with
        # agents between them that differ (from one of the pair or from each other) or never met is under no bar:
        # read as a diagram is read, it would seem to differ (audit s13)
        joined = {(order[i], order[j]) for first, last in bars for i in range(first, last + 1)
                  for j in range(first, last + 1)}
        unjoined = [f"{names[order[i]]}-{names[order[j]]}" for i in range(k) for j in range(i + 1, k)
                    if met[order[i], order[j]] and not significant[order[i], order[j]]
                    and (order[i], order[j]) not in joined]
    never = result.never_met()
    said = []
    if never:
        said.append("never on a common task, so not compared and under no common bar: "
                    + join_and((f"{a}-{b}" for a, b in never), limit=6))
    if unjoined and not result.posthoc_withheld:
        said.append("not different, yet under no common bar (a bar joins a run of agents in rank order every two of "
                    f"which met and are not different): {join_and(unjoined, limit=6)}")
    if said:
        footer = "\n".join(textwrap.fill(line, 56, break_on_hyphens=False) for line in said)
        ax.text(0.5, 0.0, footer,  # wrapped: a paper column holds about 56 characters at 7 points
                transform=ax.transAxes, ha="center", va="top", fontsize=7, color="0.3")

    cd = getattr(result, "critical_difference", None)
    what = "Quade-weighted mean ranks" if getattr(result, "variant", None) == "quade" else "Mean ranks"
    if not (np.asarray(result.counts) > 0).all():  # agents on different task sets: as the print says
        what += " among each task's agents"
    # two lines, so that the diagram keeps its width at a paper column's size
    met_all = "" if not never else " that met"
    # two agents: the omnibus test decides their pair, nothing is adjusted (audit s18: the title said tukey-adjusted)
    decided = "omnibus test" if result._pair_is_omnibus() else result.posthoc_adjustment
    if result.posthoc_withheld:
        title = f"{what} (1 = best)\nno pair declared different (omnibus not rejected)"
    elif control is not None:
        mark = " (red dot)" if groups is not None else ""
        title = (f"{what} (1 = best)\nred bar: agents{met_all} not different from the control {control}{mark} "
                 f"({decided})")
    elif cd is not None and np.isfinite(cd):
        ax.hlines(1.3, lo, lo + cd, **style)
        ax.text(lo + cd / 2, 1.4, f"CD = {cd:.3g}", ha="center", va="bottom", fontsize=8)
        title = f"Mean ranks (1 = best)\nbars join agents{met_all} within the critical difference"
    else:
        adjusted = decided if result._pair_is_omnibus() or never else f"{decided}-adjusted"
        title = f"{what} (1 = best)\nbars join agents{met_all and ' that met,'} not different ({adjusted})"
    ax.set_title(_wrapped(ax, title, 9), fontsize=9)
    axes_off(ax)
    if groups is not None:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color=c, linewidth=2.0, label=g) for g, c in colors.items()]
        below = -0.12 if never else 0.0  # under the line naming the pairs that never met
        ax.legend(handles=handles, title=legend_title, loc="upper center", bbox_to_anchor=(0.5, below), ncol=ncol,
                  frameon=False, fontsize=8, title_fontsize=8)
    return ax


def plot_mean_ranks(result: Any, *, ax: Any = None, **kwargs: Any) -> Any:
    """Horizontal bars of each agent's mean rank (1 = best), best at the top."""
    names = np.asarray(result.agents)
    ranks = np.asarray(result.mean_ranks, dtype=float)
    order = np.argsort(-ranks, kind="stable")
    ax = axes_or_new(ax, (6.4, 0.8 + 0.35 * len(names)))
    options = {"color": "0.4"}
    options.update(kwargs)
    ax.barh(names[order], ranks[order], **options)
    # agents on different task sets: each mean rank is taken among the agents it met, as the print and the diagram say
    among = "within task" if (np.asarray(result.counts) > 0).all() else "among each task's agents"
    ax.set_xlabel(f"mean rank {among} (1 = best)")
    return ax


def plot_null_distribution(result: Any, *, ax: Any = None, bins: int = 50, **kwargs: Any) -> Any:
    """Histogram of the permutation null distribution with the observed statistic marked."""
    if result.null_distribution is None:
        raise OptionError("no null distribution was computed; rerun with pvalue=\"monte_carlo\"")
    ax = axes_or_new(ax, (6.4, 3.2))
    options = {"color": "0.6", "density": True}
    options.update(kwargs)
    heights = ax.hist(result.null_distribution, bins=bins, **options)[0]
    ax.set_xlabel("statistic under the permutation null")
    ax.set_ylabel("density" if options.get("density") else "count")
    mark_observed(ax, result.statistic, f"observed = {result.statistic:.4g}",
                  float(np.max(heights)) if np.size(heights) else 1.0)
    return ax
