"""Drawings of the equivalence tests' result: each deciding interval against the +-margin band.

Plots draw, never compute: the function reads the result's fields, takes ``ax=`` (a new figure only when it is None),
lets user keywords win over the defaults, changes no global style and returns the Axes.
"""

from __future__ import annotations

import numpy as np

from ...format import difference_label
from ...plotting import SMALL_FONT, panels, rows_height
from ...vocabulary import metric_label


#: the scopes drawn by default: each pair's across-tasks and aggregate rows (a paper's figure), its per-task rows where
#: it has neither; every task's by scopes=
SUMMARY_SCOPES = ("across tasks", "aggregate")
#: the most margins the x-axis spans by default: the band +-margin stays at least a twentieth of its width
CLIP = 40.0


def plot_intervals(result, *, ax=None, scopes=None, clip=CLIP, **kwargs):
    """Every test's (1 - 2 alpha) interval of agent_1 - agent_2, the margin band shaded; filled marks where the
    alternative was shown.

    ``scopes=`` keeps some of "task", "across tasks", "aggregate": by default each pair's across-tasks and aggregate
    rows, or its per-task rows where it has neither (as a pair that shares one task), a pair with no interval named
    under the axis; ``scopes=("task", "across tasks",
    "aggregate")`` adds every task's row. ``clip=`` is the most margins the x-axis spans (40 by default: the band is
    at least a twentieth of its width; None: every interval whole): an interval reaching past the axis is cut at its
    edge and marked there by an arrow, its estimate written beside it where that lies past the edge too (audit s31
    equivplot31: Atari 100k's 4 agents drew 156 rows in 23.8 in, the band 0.1 wide beside Boxing's -7)."""
    from ...errors import OptionError
    from ...options import check_choice, is_finite_number

    table = result.comparisons
    finite = np.isfinite(table["conf_low"].to_numpy(dtype=float))
    pair = [f"{a}\0{b}" for a, b in zip(table["agent_1"], table["agent_2"])]
    if scopes is None:
        # each pair's across-tasks and aggregate rows, or its per-task rows where it has neither (audit s31 rfix31c:
        # a pair that shared one task vanished where another pair had a summary row)
        summary = table["scope"].isin(SUMMARY_SCOPES).to_numpy() & finite
        summarised = {p for p, s in zip(pair, summary) if s}
        keep = np.where([p in summarised for p in pair], summary, (table["scope"] == "task").to_numpy())
    else:
        scopes = (scopes,) if isinstance(scopes, str) else scopes
        if not hasattr(scopes, "__iter__") or not len(scopes := tuple(scopes)):
            raise OptionError(f"scopes= must name one or more of 'task', 'across tasks', 'aggregate', got {scopes!r}")
        scopes = tuple(check_choice("scopes", scope, ("task", "across tasks", "aggregate")) for scope in scopes)
        keep = table["scope"].isin(scopes).to_numpy()
    if clip is not None and (not is_finite_number(clip) or isinstance(clip, bool) or not float(clip) > 2.5):
        raise OptionError(f"clip= is the most margins the x-axis spans, a number above 2.5 (the band is 2 margins), "
                          f"or None for every interval whole; got {clip!r}")
    rows = table[keep & finite]
    n = len(rows)
    _, (ax,) = panels(ax, 1, (5.0, rows_height(max(n, 1), 0.22, 1.1)), width=5.0, what="figure",
                      fewer=f"draw fewer of its {n:,} rows: pass scopes= with fewer scopes (by default each pair's "
                            "across-tasks and aggregate rows) or compare fewer pairs (control=, or a subset of the "
                            "agents)")
    y = np.arange(n)[::-1]
    m = result.margin
    # the region the alternative claims: -m to m, or one side of one bound for non-inferiority (audit s19: a band
    # of both sides showed intervals crossing +m as shown non-inferior)
    one_sided = result.alternative != "equivalence"
    edges = ((-m,) if result.higher_is_better else (m,)) if one_sided else (-m, m)
    for edge in edges:
        ax.axvline(edge, color="0.5", linewidth=0.8, linestyle="--")
    ax.axvline(0.0, color="0.7", linewidth=0.6)
    style = {"color": "black", "fmt": "none", "capsize": 2, "linewidth": 1.0}
    style.update(kwargs)
    estimate = rows["estimate"].to_numpy(dtype=float)
    low, high = rows["conf_low"].to_numpy(dtype=float), rows["conf_high"].to_numpy(dtype=float)
    error = np.vstack([estimate - low, high - estimate])
    ax.errorbar(estimate, y, xerr=error, **style)
    shown = rows["shown"].fillna(False).to_numpy(dtype=bool)
    ax.plot(estimate[shown], y[shown], "o", color=style["color"], markersize=4)
    ax.plot(estimate[~shown], y[~shown], "o", color=style["color"], markersize=4, fillstyle="none")
    # titled by the result's pairs, not the rows drawn (audit s31 rfix31c: 3 pairs titled "A - B")
    every = list(dict.fromkeys(zip(table["agent_1"], table["agent_2"])))
    drawn = set(zip(rows["agent_1"], rows["agent_2"]))
    pairs = sorted(drawn, key=str)
    one = len(every) == 1
    # the aggregate by its metric (audit s38 fixc38: "aggregate" did not say it was the IQM)
    aggregate = f"aggregate ({metric_label(result.aggregate)})" if result.aggregate else "aggregate"
    named = {"aggregate": aggregate}
    labels = [("" if one else f"{difference_label(a, b)}: ") + (str(t) if s == "task" else named.get(s, s))
              for a, b, t, s in zip(rows["agent_1"], rows["agent_2"], rows["task"], rows["scope"])]
    ax.set_yticks(y)
    if n:  # 0.7 of a row beyond the first and last: matplotlib's 5% margins left ~6 empty rows of 120 (audit s23 user23)
        ax.set_ylim(-0.7, n - 0.3)
    ax.set_yticklabels(labels, fontsize=SMALL_FONT)
    left, right = _limits(estimate, low, high, m, clip)
    cut = _mark_cut(ax, estimate, low, high, y, left, right, style["color"]) if n else 0
    region = (edges[0], right) if one_sided and result.higher_is_better else (left, edges[-1])
    ax.axvspan(*(region if one_sided else (-m, m)), color="0.88", zorder=0, linewidth=0)
    ax.set_xlim(left, right)
    if len(pairs) > 1 and len(set(rows["scope"])) > 1:  # each pair's rows apart from the next pair's
        pair = [f"{a}\0{b}" for a, b in zip(rows["agent_1"], rows["agent_2"])]
        ends = [k for k in range(n - 1) if pair[k] != pair[k + 1]]
        for k in ends:
            ax.axhline(y[k] - 0.5, color="0.8", linewidth=0.5)
    what = "equivalent" if result.alternative == "equivalence" else "non-inferior"
    band = "band \u00b1margin"
    if one_sided:
        # no-break spaces: a line broken inside "delta > -margin" reads as two claims (audit s22, equiv22)
        band = "shaded: delta\u00a0>\u00a0-margin" if result.higher_is_better else "shaded: delta\u00a0<\u00a0margin"
    # wrap=True breaks a line wider than the figure leaves it around the axes' centre (long y labels push the axes
    # right): the label stays inside the figure it is saved at (audit s8)
    beyond = (f"\n{cut} of {n} cut at the axis' edge (arrows; estimates past it written)" if cut else "")
    beyond += _tasks_not_drawn(table, rows, result.alternative)
    missing = [difference_label(a, b) for a, b in every if (a, b) not in drawn]
    if missing:  # said, not left out silently
        beyond += (f"\nnot drawn (no interval in {'these scopes' if scopes is not None else 'any test'}): "
                   f"{', '.join(missing)}")
    ax.set_xlabel(f"difference ({result.margin_scale})\n{result.confidence_level:.0%} intervals, {band} "
                  f"(filled: shown {what}){beyond}", fontsize=SMALL_FONT + 1, wrap=True)
    ax.set_title(result.method + (f"\n{difference_label(*every[0])}" if one else ""), fontsize=SMALL_FONT + 1,
                 wrap=True)
    return ax


def _tasks_not_drawn(table, rows, alternative):
    """The caption's line counting the per-task tests not drawn and those of them shown beyond the margin: the
    across-tasks row is the mean of the tasks' differences, which can cancel (audit s35 claims35: Atari 100k DER vs
    DrQ drew two rows shown equivalent while 12 of its 26 tasks were shown beyond the margin); empty where every
    per-task test is drawn. With several pairs the count is of the pairs' tests on their tasks. (No "scopes= draws
    them": a line longer than the figure's width wraps, and 4 pairs' 12 rows no longer held at 3.5 x 3 in.)

    Audit s38 fixc38: "per task, not drawn: 2 of 6 shown beyond the margin" read as 2 of 6 rows not drawn, with none
    of the 6 drawn; the line now counts the tests not drawn first, then those of them shown beyond the margin."""
    from ...format import count

    tasks = table[(table["scope"] == "task") & table["shown"].notna()]
    hidden = tasks.loc[~tasks.index.isin(rows.index)]
    if hidden.empty:
        return ""
    beyond = int(hidden["conclusion"].str.startswith("shown ").sum())
    what = "beyond the margin" if alternative == "equivalence" else "inferior by more than the margin"
    # one short line: the caption shares the figure's height with the rows
    shown = f", {beyond} of them shown {what}" if beyond else f", none of them shown {what}"
    pairs = len(set(zip(hidden["agent_1"], hidden["agent_2"])))
    of = f" of {len(tasks)}" if len(hidden) < len(tasks) else ""
    if pairs == 1:
        return f"\nper task: {count(len(hidden), 'test')}{of} not drawn{shown}"
    # a test per pair and task, not per task (review s35 rv35a: "6 of 9" of 3 tasks read as 9 tasks)
    n_tasks = hidden["task"].nunique()
    by = "x" if pairs * n_tasks == len(hidden) else "on"  # pairs that share only some tasks: "3 pairs on 4 tasks"
    return (f"\nper task: {count(len(hidden), 'test')}{of} ({pairs} pairs {by} {count(n_tasks, 'task')}) not drawn"
            f"{shown}")


def _limits(estimate, low, high, margin, clip):
    """(left, right) of the x-axis: every interval and the band +-1.05 margin in view, or, where that spans more than
    ``clip`` margins, a window ``clip`` margins wide around the estimates' median that holds the band."""
    pad = 1.05 * margin
    left = min(np.min(low, initial=-pad), -pad)
    right = max(np.max(high, initial=pad), pad)
    width = right - left
    if clip is None or width <= clip * margin:
        return left - 0.03 * width, right + 0.03 * width  # room for the caps at the ends
    width = clip * margin
    middle = float(np.median(estimate)) if len(estimate) else 0.0
    start = min(max(middle - width / 2, left), right - width)  # inside the intervals' range
    start = min(max(start, pad - width), -pad)  # the band in view
    return start, start + width


def _mark_cut(ax, estimate, low, high, y, left, right, color):
    """Arrows at the axis' edges for the intervals that reach past them, and the estimates that lie past them written
    beside the arrow; returns how many rows were cut."""
    from ...format import signif

    past_left, past_right = low < left, high > right
    offset = 0.012 * (right - left)
    for side, past, x, marker, align in ((-1, past_left, left, "<", "left"), (1, past_right, right, ">", "right")):
        if not past.any():
            continue
        ax.plot(np.full(past.sum(), x - side * offset), y[past], marker, color=color, markersize=4, clip_on=False)
        outside = past & ((estimate < left) if side < 0 else (estimate > right))
        for value, row in zip(estimate[outside], y[outside]):
            ax.text(x - side * 4 * offset, row, signif(value, 3), ha=align, va="center", fontsize=SMALL_FONT - 1,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.3}, zorder=4)
    return int((past_left | past_right).sum())
