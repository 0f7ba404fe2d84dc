"""Axes and panel helpers shared by every back end's ``plots.py``.

Plots draw, never compute: every plot function reads a result's fields, takes
``ax=`` (a new figure only when it is None), lets user keywords win over the
defaults and changes no global style.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np


def axes_or_new(ax: Any, figsize: tuple[float, float]) -> Any:
    """The caller's Axes, or a new figure's when ``ax`` is None (never ``plt.gca()``)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize)
    return ax


#: Width of one column of a two-column paper, in inches: a new multi-panel figure is this wide by default.
COLUMN_WIDTH = 3.3

#: Smallest font, in points, that the figures use (ticks, legends, notes); anything larger reads in print.
SMALL_FONT = 7


def panels(ax: Any, n: int, panel_size: tuple[float, float], *, width: float | None = None, columns: int | None = None,
           sharex: bool = False, sharey: bool = False, what: str = "panel", hint: str = "") -> tuple[Any, list[Any]]:
    """(figure, list of n Axes) for a multi-panel plot: the caller's Axes, or a new grid when ``ax`` is None.

    A new figure is ``width`` inches wide (default :data:`COLUMN_WIDTH`) and wraps the panels into as
    many columns of ``panel_size[0]`` inches (a panel with its tick labels) as fit, or into ``columns``
    when given, so that every panel stays readable whatever the number of tasks or metrics: a row of
    n panels shrunk to a column's width is not.  Each row is ``panel_size[1]`` inches high.  Shared axes label only the outer panels;
    slots left over in the last row are removed, not left blank.

    ``ax`` may be one Axes (n = 1) or any sequence or array of n Axes; ``what`` names what one panel
    shows and ``hint`` how to draw fewer, for the error when the count differs.
    """
    if ax is not None:
        axes = list(np.ravel(np.asarray(ax, dtype=object)))
        if len(axes) != n:
            from .errors import OptionError

            raise OptionError(f"this plot has {n} panel(s), one per {what}, but ax= holds {len(axes)} Axes; "
                              f"pass one Axes per {what}{hint}")
        return axes[0].figure, axes
    import matplotlib.pyplot as plt

    width = COLUMN_WIDTH if width is None else float(width)
    columns = int(max(1, min(n, width // panel_size[0] if columns is None else columns)))
    rows = -(-n // columns)
    fig, grid = plt.subplots(rows, columns, figsize=(width, panel_size[1] * rows), squeeze=False,
                             sharex=sharex, sharey=sharey, layout="constrained")
    axes = list(grid.ravel())
    for spare in axes[n:]:
        spare.remove()
    if sharex and n % columns:
        # The panel above a removed slot is now the bottom of its column: it needs its x tick labels.
        for panel in axes[n - columns:(rows - 1) * columns]:
            panel.xaxis.set_tick_params(labelbottom=True)
    for panel in axes[:n]:
        panel.tick_params(labelsize=SMALL_FONT)
    return fig, axes[:n]


def figure_legend(fig: Any, axes: Iterable[Any], *, extra: Iterable[Any] = (), title: str | None = None,
                  **kwargs: Any) -> Any:
    """One legend above all panels: every labelled artist of the panels once, then ``extra`` handles.

    Needs a constrained layout (what :func:`panels` makes) to keep its room; ``kwargs`` win.
    """
    seen: dict[str, Any] = {}
    for panel in axes:
        for handle, label in zip(*panel.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    handles = list(seen.values()) + list(extra)
    if not handles:
        return None
    options: dict[str, Any] = {"loc": "outside upper center", "fontsize": SMALL_FONT, "frameon": False, "handlelength": 1.5,
               "columnspacing": 1.0, "title": title, "title_fontsize": SMALL_FONT + 1}
    options.update(kwargs)
    if "ncols" not in options:
        # As many columns as the longest label allows across the figure (a character is ~0.6 em wide).
        longest = max(len(h.get_label()) for h in handles)
        column = (options["handlelength"] + 0.8 + options["columnspacing"] + 0.6 * longest) * options["fontsize"]
        options["ncols"] = int(max(1, min(len(handles), 4, fig.get_figwidth() * 72 // column)))
    return fig.legend(handles=handles, **options)


#: Okabe & Ito's colour-blind-safe palette, then four further distinct colours, so that up to 12
#: agents get 12 different colours.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
           "#882255", "#999933", "#44AA99", "#888888")


def palette(n: int, colors: Iterable[str] | None = None) -> list[str]:
    """``n`` colours: the caller's, or :data:`PALETTE`, repeating only beyond its length."""
    colors = PALETTE if colors is None else tuple(colors)
    return [colors[i % len(colors)] for i in range(n)]
