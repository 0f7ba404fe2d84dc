"""Axes and panel helpers shared by every back end's ``plots.py``.

Plots draw, never compute: every plot function reads a result's fields, takes
``ax=`` (a new figure only when it is None), lets user keywords win over the
defaults and changes no global style.
"""

from __future__ import annotations

import numpy as np


def axes_or_new(ax, figsize):
    """The caller's Axes, or a new figure's when ``ax`` is None (never ``plt.gca()``)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize)
    return ax


def panels(ax, n, figsize, what="panels"):
    """(figure, list of n Axes) for a multi-panel plot: a new row of panels when ``ax`` is None, else the caller's."""
    if ax is None:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, n, figsize=figsize, squeeze=False, layout="constrained")
        return fig, list(axes[0])
    axes = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
    if len(axes) != n:
        from .errors import OptionError

        raise OptionError(f"this plot has {n} panel(s) but ax= holds {len(axes)} Axes; pass {n} Axes "
                          f"(or select fewer {what})")
    return axes[0].figure, axes


#: Okabe & Ito's colour-blind-safe palette, then four further distinct colours, so that up to 12
#: agents get 12 different colours.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
           "#882255", "#999933", "#44AA99", "#888888")


def palette(n, colors=None):
    """``n`` colours: the caller's, or :data:`PALETTE`, repeating only beyond its length."""
    colors = PALETTE if colors is None else tuple(colors)
    return [colors[i % len(colors)] for i in range(n)]
