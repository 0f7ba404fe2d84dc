"""Drawing of a task table: drawing only, ``ax=`` in, Axes out."""

from __future__ import annotations

import numpy as np

from ...plotting import axes_or_new


def plot_table(result, *, ax=None, cmap="Greys", **kwargs):
    """Each task's estimates relative to its best (1 = best) as a heat map; best outlined, the possibly best marked."""
    from matplotlib.patches import Rectangle

    ax = axes_or_new(ax, (1.2 + 0.7 * len(result.agents), 0.8 + 0.25 * len(result.tasks)))
    best = result.estimates[np.arange(len(result.tasks)), result.best][:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        relative = result.estimates / best
    style = {"cmap": cmap, "aspect": "auto"}
    style.update(kwargs)
    ax.imshow(relative, **style)
    ax.set_xticks(range(len(result.agents)), result.agents, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(result.tasks)), result.tasks, fontsize=8)
    for t, a in np.argwhere(result.tied_best):
        ax.add_patch(Rectangle((a - 0.5, t - 0.5), 1, 1, fill=False, edgecolor="#D55E00", linewidth=1.5))
    for t, a in np.argwhere(result.possibly_best & ~result.tied_best):
        ax.text(a, t, "\u2020", ha="center", va="center", fontsize=9, color="#D55E00")
    marked = result._marks_shown()  # marks withheld for want of runs are not drawn, nor named in the title
    # two lines: the figure is as narrow as a column for a few agents
    ax.set_title(f"{result.label} relative to each task's best\n(outlined"
                 + ("; \u2020 possibly best)" if marked else "; possibly-best marks withheld: too few runs)"), fontsize=9)
    return ax
