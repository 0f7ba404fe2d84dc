"""Drawings of the equivalence tests' result: each deciding interval against the +-margin band.

Plots draw, never compute: the function reads the result's fields, takes ``ax=`` (a new figure only when it is None),
lets user keywords win over the defaults, changes no global style and returns the Axes.
"""

from __future__ import annotations

import numpy as np

from ...plotting import SMALL_FONT, panels, rows_height


def plot_intervals(result, *, ax=None, scopes=("task", "across tasks", "aggregate"), **kwargs):
    """Every test's (1 - 2 alpha) interval of agent_1 - agent_2, the margin band shaded; filled marks where the
    alternative was shown. ``scopes=`` keeps some of "task", "across tasks", "aggregate"."""
    rows = result.comparisons[result.comparisons["scope"].isin(scopes)]
    rows = rows[np.isfinite(rows["conf_low"].to_numpy(dtype=float))]
    n = len(rows)
    _, (ax,) = panels(ax, 1, (5.0, rows_height(max(n, 1), 0.22, 1.1)), width=5.0, what="figure")
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
    error = np.vstack([estimate - rows["conf_low"].to_numpy(dtype=float),
                       rows["conf_high"].to_numpy(dtype=float) - estimate])
    ax.errorbar(estimate, y, xerr=error, **style)
    shown = rows["shown"].fillna(False).to_numpy(dtype=bool)
    ax.plot(estimate[shown], y[shown], "o", color=style["color"], markersize=4)
    ax.plot(estimate[~shown], y[~shown], "o", color=style["color"], markersize=4, fillstyle="none")
    # one pair is named once, in the title: on each of 27 rows it took half a 5 in figure's width (audit s24)
    pairs = sorted(set(zip(rows["agent_1"], rows["agent_2"])), key=str)
    one = len(pairs) == 1
    labels = [("" if one else f"{a} - {b}: ") + (str(t) if s == "task" else s)
              for a, b, t, s in zip(rows["agent_1"], rows["agent_2"], rows["task"], rows["scope"])]
    ax.set_yticks(y)
    if n:  # 0.7 of a row beyond the first and last: matplotlib's 5% margins left ~6 empty rows of 120 (audit s23 user23)
        ax.set_ylim(-0.7, n - 0.3)
    ax.set_yticklabels(labels, fontsize=SMALL_FONT)
    left, right = ax.get_xlim()
    left, right = min(left, -1.05 * m), max(right, 1.05 * m)  # the margin in view, whatever the intervals
    region = (edges[0], right) if one_sided and result.higher_is_better else (left, edges[-1])
    ax.axvspan(*(region if one_sided else (-m, m)), color="0.88", zorder=0, linewidth=0)
    ax.set_xlim(left, right)
    what = "equivalent" if result.alternative == "equivalence" else "non-inferior"
    band = "band \u00b1margin"
    if one_sided:
        # no-break spaces: a line broken inside "delta > -margin" reads as two claims (audit s22, equiv22)
        band = "shaded: delta\u00a0>\u00a0-margin" if result.higher_is_better else "shaded: delta\u00a0<\u00a0margin"
    # wrap=True breaks a line wider than the figure leaves it around the axes' centre (long y labels push the axes
    # right): the label stays inside the figure it is saved at (audit s8)
    ax.set_xlabel(f"difference ({result.margin_scale})\n{result.confidence_level:.0%} intervals, {band} "
                  f"(filled: shown {what})", fontsize=SMALL_FONT + 1, wrap=True)
    ax.set_title(result.method + (f"\n{pairs[0][0]} - {pairs[0][1]}" if one else ""), fontsize=SMALL_FONT + 1,
                 wrap=True)
    return ax
