"""Figures of the selection check (:func:`rlstats.selection_check`).

Plots draw, never compute: they read the result's fields, take ``ax=`` (a new
figure only when it is None), let user keywords win and return the Axes.
"""

from __future__ import annotations

import numpy as np

from ...errors import OptionError
from ...format import ordinal
from ...plotting import axes_or_new, fit_title, fit_xlabel, mark_observed, names_apart
from ...vocabulary import value_label

#: Colours of the two sets of tasks (colour-blind safe blue and orange).
SET_COLOURS = {"reported": "#D55E00", "heldout": "#0072B2"}


def _units(result):
    """", normalised scores" (or the response's units) where the effects are differences of scores: a figure
    pasted alone says its scale, as the mixed model's does; std_diff and poi have none."""
    return f", {result.units}" if result.units and result.effect_measure == "mean_diff" else ""


def plot_effects(result, *, ax=None, **kwargs):
    """Per-task effects, reported vs held-out, with each set's mean and 95 % interval (the title names each: the
    reported set's the reporter's, the skew-corrected t by default, one-sided as its test, so its band runs to the
    right edge; the held-out set's two-sided Student's t).

    Tasks are sorted by effect (largest at the top), one per row; each set's
    mean is a vertical line and its interval a shaded band of the set's
    colour.  ``kwargs`` go to the markers (``ax.scatter``).
    """
    effects = result.effects[result.effects["set"].isin(list(SET_COLOURS))]
    effects = effects.sort_values("effect", kind="stable")
    made_here = ax is None
    ax = axes_or_new(ax, (6.4, 1.2 + 0.22 * len(effects)))
    rows = np.arange(len(effects))
    for name, colour in SET_COLOURS.items():
        mask = (effects["set"] == name).to_numpy()
        style = {"color": colour, "s": 28, "zorder": 3}
        style.update(kwargs)
        ax.scatter(effects["effect"].to_numpy()[mask], rows[mask], label=value_label("set", name), **style)
    summary = result.group_summary
    ends = np.r_[effects["effect"].to_numpy(dtype=float), summary["conf_low"], summary["conf_high"]]
    finite = ends[np.isfinite(ends)]
    right = finite.max() + 0.05 * (np.ptp(finite) or 1.0)  # where a one-sided band's infinite end is drawn
    for row in summary.itertuples(index=False):
        colour = SET_COLOURS[row.set]
        ax.axvline(row.estimate, color=colour, linewidth=1.5, zorder=2)
        if np.isfinite(row.conf_low):
            high = row.conf_high if np.isfinite(row.conf_high) else right
            ax.axvspan(row.conf_low, high, color=colour, alpha=0.12, linewidth=0, zorder=1)
    ax.axvline(0.0, color="0.5", linewidth=0.8, linestyle=":", zorder=1)
    ax.set_yticks(rows)
    ax.set_yticklabels(effects["task"].tolist(), fontsize=8)
    ax.set_ylim(-0.7, len(effects) - 0.3)
    ax.set_xlim(right=max(ax.get_xlim()[1], right))
    direction = "" if result.higher_is_better else ", sign flipped: positive = better"
    ax.set_xlabel(f"per-task effect ({value_label('effect_measure', result.effect_measure)}: {result.treatment} vs "
                  f"{result.baseline}{direction})"
                  + _units(result))
    kinds = {name: kind + ("" if np.isfinite(high) or not np.isfinite(low) else ", one-sided")
             for name, kind, low, high in zip(summary["set"], summary["interval"], summary["conf_low"],
                                               summary["conf_high"])}
    bands = "95% intervals (" + "; ".join(f"{value_label('set', name)}: {kind}" for name, kind in kinds.items()) + ")"
    title = f"Per-task effects; lines: set means, bands: {bands}"
    ax.set_title(title, fontsize=9)
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    if made_here:  # the bands' names make the title long (a skew-corrected one-sided t), the agents' the x label:
        fit_title(ax, xlabel=True)  # broken, not cut at the edges
        return ax
    # the caller's Axes keep their size (audit s35 plots35: 26 task names stacked over each other, the title and x
    # label cut at both edges of a one-column figure): the label and title broken to its width, and where the rows
    # are closer than their names every k-th named from the top, which the title says; every task's point is drawn
    names = effects["task"].astype(str).tolist()
    share = _centred_share(ax)
    every, said = names_apart(ax.yaxis, names), 1
    for _ in range(3):  # the title's line of the names shown leaves the rows less room: measured again with it
        if every == said:
            break
        ax.set_title(f"{title}\n(every {ordinal(every)} {result._block_word} named; res.effects lists all "
                     f"{len(names)})", fontsize=9)
        fit_xlabel(ax, share, title=True)
        every, said = names_apart(ax.yaxis, names, least=every), every
    return ax


def _centred_share(ax):
    """The x label and title broken to the share of the figure's width that, centred on ``ax`` as laid out with
    every task named (its widest y labels), stays inside the figure (at most fit_xlabel's 0.8: long names set the
    Axes off centre, and the label ran 0.05 in past the right edge of a 3.4 in figure); returns it."""
    from ...plotting import draw_quietly

    fit_xlabel(ax, title=True)
    figure = ax.figure
    box = ax.get_window_extent(draw_quietly(figure))
    centre = (box.x0 + box.x1) / 2 / figure.bbox.width
    share = min(0.8, 0.95 * 2 * min(centre, 1 - centre))
    if share < 0.8:
        fit_xlabel(ax, share, title=True)
    return share


def plot_null_distribution(result, *, ax=None, bins=40, **kwargs):
    """The inspector's null distribution with the observed value marked and the upper tail shaded.

    Permutation inspector: histogram of ``mean(reported) - mean(held-out)``
    over the enumerated or random subsets.  z and t inspectors: the standard
    normal or Student t density of the statistic.  ``kwargs`` go to the
    histogram (``ax.hist``) or the density line (``ax.plot``).
    """
    from scipy import stats

    ax = axes_or_new(ax, (6.4, 3.2))
    observed = result.statistic
    if result.inspector == "fisher_pitman":
        if result.null_distribution is None:
            raise OptionError("this result kept no permutation null distribution")
        style = {"color": "0.6", "density": True}
        style.update(kwargs)
        heights = ax.hist(result.null_distribution, bins=bins, **style)[0]
        how = ("every choice" if result.pvalue_method == "exact" else
               f"{result.n_resamples:,} random choices")
        ax.set_xlabel(f"mean(reported) - mean(held-out){_units(result)}\nover {how} of the reported tasks")
    else:
        reference = stats.norm if result.df is None else stats.t(result.df)
        span = max(4.0, abs(observed) * 1.15)
        x = np.linspace(-span, span, 400)
        style = {"color": "0.3"}
        style.update(kwargs)
        heights = reference.pdf(x)
        ax.plot(x, heights, **style)
        tail = x >= observed
        ax.fill_between(x[tail], reference.pdf(x[tail]), color="0.7")
        name = "N(0, 1)" if result.df is None else f"t with {result.df:.4g} df"
        ax.set_xlabel(f"inspector statistic under the null ({name})")
    ax.set_ylabel("density")
    top = np.nanmax(heights) if np.size(heights) else 1.0
    mark_observed(ax, observed, f"observed = {observed:.4g}\np = {result.pvalue:.3g}", top,
                  color=SET_COLOURS["reported"])
    fit_xlabel(ax)  # the units and the choices make it wider than a column's figure: broken at words, not cut
    return ax
