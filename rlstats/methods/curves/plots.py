"""Drawings of learning-curve results: the sample-efficiency figure and a curve comparison.

Plots draw, never compute: they read the result's fields, take ``ax=`` (a new figure only when
it is None), let user keywords win and return the Axes.
"""

from __future__ import annotations

import numpy as np

from ...errors import OptionError
from ...format import format_step
from ...plotting import axes_or_new, palette

BANDS = ("simultaneous", "pointwise", "none")


def _new_axes(ax):
    """The caller's Axes, or a new paper-sized figure laid out so that labels are never cut."""
    if ax is not None:
        return ax
    ax = axes_or_new(None, (4.5, 3.0))
    ax.figure.set_layout_engine("constrained")
    return ax


def _step_axis(ax, result):
    from matplotlib.ticker import FuncFormatter

    ax.set_xlabel(result.step_column)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: format_step(value)))
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def plot_curves(result, *, ax=None, band="simultaneous", agents=None, colors=None, **kwargs):
    """Each agent's per-step aggregate with a shaded band (the sample-efficiency figure).

    Parameters
    ----------
    result : CurvesResult
    ax : Axes, optional
    band : {"simultaneous", "pointwise", "none"}
        Which band to shade.
    agents : sequence of str, optional
        Agents to draw (default all).
    colors : sequence, optional
    **kwargs
        Passed to ``Axes.plot`` for the curves.
    """
    if band not in BANDS:
        raise OptionError(f"band={band!r} is not one of {', '.join(map(repr, BANDS))}")
    names = list(result.agents if agents is None else agents)
    unknown = [a for a in names if a not in result.agents]
    if unknown:
        raise OptionError(f"agent(s) {unknown} not in the result; agents: {', '.join(result.agents)}")
    ax = _new_axes(ax)
    for name, color in zip(names, palette(len(names), colors)):
        j = result.agents.index(name)
        style = {"color": color, "linewidth": 1.5, "label": name}
        style.update(kwargs)
        ax.plot(result.steps, result.estimates[j], **style)
        if band != "none":
            bounds = result.simultaneous[j] if band == "simultaneous" else result.pointwise[j]
            ax.fill_between(result.steps, bounds[:, 0], bounds[:, 1], color=style["color"], alpha=0.2, linewidth=0)
    level = f"{100 * result.confidence_level:g}%"
    ax.set_ylabel(result.label)
    if band != "none":
        ax.set_title(f"{result.label} per step, {level} {band} bands", fontsize=9)
    _step_axis(ax, result)
    ax.legend(frameon=False, fontsize=8)
    return ax


def plot_difference(result, *, ax=None, pair=None, color="#0072B2", **kwargs):
    """The difference of two agents' curves with its max-T band; steps that differ are marked.

    The band comes from the relabellings of the max-T test, at level 1 - alpha: it leaves 0 exactly
    at the marked steps.

    Parameters
    ----------
    pair : (str, str), optional
        The comparison to draw (default: the first one made).
    """
    if not result.pairs:
        raise OptionError("no curve comparison was made; rerun with compare='all' or compare=[(a, b)]")
    a, b = result.pairs[0] if pair is None else pair
    table = result.difference(a, b)
    ax = _new_axes(ax)
    style = {"color": color, "linewidth": 1.5}
    style.update(kwargs)
    ax.axhline(0.0, color="0.5", linewidth=0.8)
    ax.fill_between(table["step"], table["conf_low"], table["conf_high"], color=style["color"], alpha=0.2,
                    linewidth=0, label=f"{100 * (1 - result.alpha):g}% simultaneous band (max-T)")
    ax.plot(table["step"], table["estimate"], **style)
    differs = table["significant"].to_numpy()
    if differs.any():
        low = np.nanmin(table["conf_low"].to_numpy())
        ax.plot(table["step"][differs], np.full(differs.sum(), low), "|", color="black", markersize=6,
                label=f"differs (max-T, alpha = {result.alpha:g})")
    ax.set_ylabel(f"{result.label}: {a} - {b}")
    _step_axis(ax, result)
    ax.legend(frameon=False, fontsize=8)
    return ax
