"""Drawings of the Bayesian comparisons: baycomp's simplex of the three posterior masses, and the posterior of the
mean difference with the ROPE shaded.

Plots draw, never compute: every function reads a result's fields, takes ``ax=`` (a new figure only when it is
None), lets user keywords win over the defaults, changes no global style and returns the Axes (the Figure when there
are several pairs, one panel each).
"""

from __future__ import annotations

import numpy as np

from ...errors import OptionError
from ...plotting import LEAST_PANEL, PAGE_WIDTH, SMALL_FONT, axes_off, least_panel, panels

#: what each model's difference across tasks (tidy()'s estimate) is: (printed column, short name, full name); the
#: hierarchical model's delta0 is the location of a heavy-tailed t, which weighs far-off tasks less than a mean does
ACROSS = {"signed_rank": ("mean diff", "mean difference", "mean difference across tasks (Dirichlet-weighted)"),
          "hierarchical": ("centre (delta0)", "centre of the differences (delta0)",
                           "centre of the differences across tasks (delta0, the location of their Student-t)")}

#: what the print, the prose and the figures say of a pair that never ran on a common task (withheld, with a note),
#: and a table's cell of it
WITHHELD_REASON = "the agents never ran on a common task"
WITHHELD = f"withheld ({WITHHELD_REASON})"
WITHHELD_CELL = "withheld"

#: the simplex's corners in the plane: worse (left), equivalent (top), better (right), as baycomp draws it
_CORNERS = np.array([[0.0, 0.0], [0.5, np.sqrt(3) / 2], [1.0, 0.0]])

#: the simplex panel's limits: its triangle (base 1) with room for the labels at its bottom corners
_XLIM, _YLIM = (-0.25, 1.25), (-0.2, float(_CORNERS[1, 1]))

#: points between the simplex's top corner and its label, and between the label and the panel's title
_CORNER_GAP = 2.0
#: most panels a new figure holds: 12 at a page's width are 4 rows (under 9 inches); more pairs (36 for 9 agents)
#: made a figure taller than any page
MAX_PANELS = 12
#: more panels than this go to a page-wide grid (a column holds one panel a row)
COLUMN_PANELS = 3


def _pair_axes(result, ax, size, what, width):
    pairs = result.comparisons
    if ax is None and len(pairs) > MAX_PANELS:
        raise OptionError(f"plot(kind={what!r}) draws one panel per pair of agents, and this result has {len(pairs)} "
                          f"pairs (at most {MAX_PANELS} fit a page): compare with one agent (bayes(..., control=)), "
                          "fewer agents (subset=), or pass ax= one Axes per pair")
    if width is None and len(pairs) > COLUMN_PANELS:
        width = PAGE_WIDTH
    fig, axes = panels(ax, len(pairs), size, width=width, what=what, hint=" (one per pair of agents)")
    return fig, axes, pairs


def plot_simplex(result, *, ax=None, width=None, **kwargs):
    """Each pair's posterior draws of (worse, equivalent, better) as points of a triangle (baycomp's figure), with
    the probabilities that each region holds the largest mass at its corner (a next task's, with the hierarchical
    model).  A new figure is a column wide for up to 3 pairs, a page wide (three in a row) for up to 12; more pairs are
    an error naming ``control=`` (``width=`` sets the width)."""
    own = ax is None
    fig, axes, pairs = _pair_axes(result, ax, (2.2, 2.1), "simplex", width)  # three fit a page
    style = {"s": 2, "alpha": 0.3, "color": "C0", "linewidths": 0}
    style.update(kwargs)
    next_task = result.model == "hierarchical"
    for i, (panel, draws, row) in enumerate(zip(axes, result.simplex_draws, pairs.itertuples())):
        if withheld(row):
            # its title level with the others'
            _withheld_panel(panel, row, result.withheld_reason(i), pad=2 * _CORNER_GAP + 2.4 * SMALL_FONT)
            continue
        xy = draws @ _CORNERS
        worse, rope, better = ((row.p_worse_next, row.p_rope_next, row.p_better_next) if next_task else
                               (row.p_worse, row.p_rope, row.p_better))
        panel.plot(*np.vstack([_CORNERS, _CORNERS[:1]]).T, color="0.3", linewidth=0.8)
        # the borders of the regions where one mass is the largest meet at the centre
        centre = _CORNERS.mean(axis=0)
        for a, b in ((0, 1), (1, 2), (0, 2)):
            panel.plot(*np.array([centre, (_CORNERS[a] + _CORNERS[b]) / 2]).T, color="0.7", linewidth=0.6,
                       linestyle="--")
        panel.scatter(xy[:, 0], xy[:, 1], **style)
        # the print's shares: a region no draw reached reads "< 1/n", not a certain 0.000 (audit s13)
        n = result._pair_draws(row.agent_1, row.agent_2)
        labels = tuple(f"{name}\n{result._share(p, 3, n)}" for name, p in ((row.agent_2, worse), ("rope", rope),
                                                                              (row.agent_1, better)))
        if result.rope == 0:  # asked for by kind="simplex": its top corner is no region (audit s34 marks34)
            labels = (labels[0], "no ROPE (rope = 0)", labels[2])
        bottom = [panel.text(x, y - 0.04, label, ha=align, va="top", fontsize=SMALL_FONT)
                  for (x, y), label, align in zip(_CORNERS, labels, ("right", "center", "left")) if y == 0]
        if own:  # a figsize= lays out only the plot's own figure (the caller's is the caller's to size)
            _least_simplex(panel, bottom)
        # The top corner's label sits above the Axes, a fixed number of points off the corner, and the title is
        # padded by its height: set in data units it reached into the title at one column's size (audit s13).
        panel.annotate(labels[1], _CORNERS[1], xytext=(0, _CORNER_GAP), textcoords="offset points", ha="center",
                       va="bottom", fontsize=SMALL_FONT, annotation_clip=False)
        panel.set_xlim(*_XLIM)
        panel.set_ylim(*_YLIM)
        panel.set_aspect("equal")
        axes_off(panel)
        panel.set_title(f"{row.agent_1} vs {row.agent_2}" + (" (next task)" if next_task else ""),
                        fontsize=SMALL_FONT + 1, pad=2 * _CORNER_GAP + 2.4 * SMALL_FONT)
    return axes[0] if len(axes) == 1 else fig


def _least_simplex(panel, corner_labels):
    """Declare the least size a simplex reads at (:func:`rlstats.plotting.least_panel`), from its labels and fonts:
    its triangle's base at least as wide as the wider of its bottom corners' labels, which hang outside its corners
    (narrower, the two read as one line, "DrQ DER / 0.343 0.657", over a dot of a cloud: audit s33 msg33), and at
    least :data:`rlstats.plotting.LEAST_PANEL`; the Axes' box spans the x limits' 1.5 bases and the y limits' 1.07."""
    figure = panel.figure
    renderer = figure.canvas.get_renderer()
    widest = max(text.get_window_extent(renderer).width for text in corner_labels) / figure.dpi
    base = max(LEAST_PANEL, widest)
    least_panel(panel, base * (_XLIM[1] - _XLIM[0]), base * (_YLIM[1] - _YLIM[0]), "simplex",
                f"its triangle's base {base:.2f} in: as wide as its wider bottom-corner label, and {LEAST_PANEL:g} in at "
                "least")


def plot_posterior(result, *, ax=None, width=None, **kwargs):
    """Each pair's posterior of the difference across tasks, the mean (signed-rank) or delta0, the centre of the tasks'
    Student-t (hierarchical) (a histogram of the result's kept draws: with the
    hierarchical model every k-th draw of all chains), the ROPE shaded and the credible interval marked; the x label
    names the difference's direction and units.  With the signed-rank model the title's probabilities are the shares
    of draws where each region holds the largest Walsh-average mass ("Walsh shares"), not areas of this histogram."""
    fig, axes, pairs = _pair_axes(result, ax, (2.3, 1.9), "posterior", width)  # two a row: the titles are long
    style = {"bins": 40, "color": "C0", "alpha": 0.8, "density": True}
    style.update(kwargs)
    for i, (panel, draws, row) in enumerate(zip(axes, result.posterior_draws, pairs.itertuples())):
        if withheld(row):
            _withheld_panel(panel, row, result.withheld_reason(i))
            continue
        panel.hist(draws, **style)
        if result.rope > 0:
            panel.axvspan(-result.rope, result.rope, color="C1", alpha=0.3, zorder=3, linewidth=0, label="ROPE")
        panel.axvline(0.0, color="0.5", linewidth=0.6)
        for bound in (row.conf_low, row.conf_high):
            if np.isfinite(bound):  # withheld (NaN) where a note says why
                panel.axvline(bound, color="black", linewidth=0.8, linestyle="--")
        # the signed-rank model's probabilities are shares of draws where a region holds the largest Walsh-average
        # mass, not areas of this histogram of the mean: their title says so
        shares = "Walsh shares: " if result.model == "signed_rank" else "P: "
        # the print's shares: two decimals read 0.99996 as a certain 1.00 (audit s16)
        n = result._pair_draws(row.agent_1, row.agent_2)
        better, rope, worse = (result._share(p, 2, n) for p in (row.p_better, row.p_rope, row.p_worse))
        # the shares on two lines: on one ("worse > 1 - 1/50000") a title ran into its neighbour's at figsize=(7, 4)
        # (audit s33 msg33: three panels a row, each 2.3 in, under a title of 3.2 in); without a ROPE no P(rope) (audit
        # s34 marks34)
        rope = f"rope {rope}, " if result.rope > 0 else ""
        panel.set_title(f"{row.agent_1} vs {row.agent_2}\n{shares}better {better},\n{rope}worse {worse}",
                        fontsize=SMALL_FONT)
        direction = (f"{row.agent_1} \u2212 {row.agent_2}" if result.higher_is_better else
                     f"{row.agent_2} \u2212 {row.agent_1}, lower is better")
        # two lines: agent names and the units would run past a paper column on one
        panel.set_xlabel(f"{ACROSS[result.model][1]}, {direction}\n({result.rope_scale}"
                         + ("; ROPE shaded)" if result.rope > 0 else ")"), fontsize=SMALL_FONT)
        panel.tick_params(labelsize=SMALL_FONT)
    return axes[0] if len(axes) == 1 else fig


def withheld(row) -> bool:
    """Whether a row of ``comparisons`` is withheld whole: a pair that never met, or (hierarchical model) one on a
    single shared task, whose estimate is NaN too (the signed-rank model gives that task's difference)."""
    return row.n_tasks == 0 or not np.isfinite(row.estimate)


def _withheld_panel(panel, row, why, pad=None):
    """The panel of a pair withheld (``why``: :meth:`BayesResult.withheld_reason`): its name and that it is withheld
    (no draws exist), so that the panels stay one per row of tidy() and none reads as a posterior at 0."""
    axes_off(panel)
    panel.set_title(f"{row.agent_1} vs {row.agent_2}", fontsize=SMALL_FONT + 1, pad=pad)
    said = WITHHELD if row.n_tasks == 0 else f"{WITHHELD_CELL} ({why}: see the notes)"
    # a line apiece for the word, the reason and the pointer, so that a long reason stays within the panel
    panel.text(0.5, 0.5, said.replace(" (", "\n(", 1).replace(": see", ":\nsee"), transform=panel.transAxes,
               ha="center", va="center", fontsize=SMALL_FONT, color="0.3", wrap=True)
