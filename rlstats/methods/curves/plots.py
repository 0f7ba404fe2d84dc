"""Drawings of learning-curve results: the sample-efficiency figure and a curve comparison.

Plots draw, never compute: they read the result's fields, take ``ax=`` (a new figure only when
it is None), let user keywords win and return the Axes.
"""

from __future__ import annotations

import numpy as np

from ...errors import OptionError, agent_named
from ...format import count, difference_label, format_step
from ...plotting import ASKED_SIZE, axes_or_new, break_to_width, figure_inches, palette
from ...plotting import legend_above as _legend_above
from ...vocabulary import metric_label

BANDS = ("simultaneous", "pointwise", "none")
#: Most logged steps that each get a tick (more would crowd a column-wide figure's labels).
MAX_STEP_TICKS = 6


def _new_axes(ax):
    """The caller's Axes, or a new paper-sized figure laid out so that labels are never cut."""
    if ax is not None:
        return ax
    ax = axes_or_new(None, (4.5, 3.0))
    ax.figure.set_layout_engine("constrained")
    return ax


def _step_label(value, _position):
    """A step tick's label (:func:`format_step`): a module-level function, so that a curves figure pickles (fixb37: a
    lambda here made pickle.dumps fail, "Can't pickle local object '_step_axis.<locals>.<lambda>'")."""
    return format_step(value)


def _step_axis(ax, result, steps):
    """Compact step labels (5k, 1.2M); a tick at each logged step when there are few, else round ticks never
    closer than the logging interval, so that the axis does not suggest steps that were not logged."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator

    ax.set_xlabel(result.step_column)
    steps = np.unique(np.asarray(steps, dtype=float))
    if steps.size <= MAX_STEP_TICKS:
        ax.xaxis.set_major_locator(FixedLocator(steps))
    else:
        # Fewer bins than steps: the ticks' spacing is at least the range over MAX_STEP_TICKS - 1 bins.
        ax.xaxis.set_major_locator(MaxNLocator(nbins=MAX_STEP_TICKS - 1, steps=[1, 2, 5, 10]))
    ax.xaxis.set_major_formatter(FuncFormatter(_step_label))
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def plot_curves(result, *, ax=None, band="simultaneous", agents=None, colors=None, **kwargs):
    """Each agent's per-step aggregate with a shaded band (the sample-efficiency figure).

    The legend sits above the Axes, titled with the band drawn (with the coverage the notes quote where the calibration
    table measured it short of its level, ``measured_coverage``; and the agents whose band is withheld, at every
    step or at how many of the steps their curve is drawn at); the step axis has a
    tick at each logged step when there are at most six (``MAX_STEP_TICKS``), else round ticks no closer than
    the logging interval, labelled 5k, 1.2M.

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
    # the result's labels, read by the one rule (errors.agent_named): agents=[0, 2] names the agents printed 0 and 2
    names = list(result.agents) if agents is None else [agent_named(result.agents, "agents", a, listed=True)
                                                         for a in agents]
    ax = _new_axes(ax)
    withheld = []  # agents whose band is withheld at every step (too few runs, ties at a cap): the title says so
    partly = []  # and at some of the steps where their curve is drawn (runs ending early): "A at 4 steps"
    colours = {}
    for name, color in zip(names, palette(len(names), colors)):
        j = result.agents.index(name)
        style = {"color": color, "linewidth": 1.5, "label": name}
        style.update(kwargs)
        ax.plot(result.steps, result.estimates[j], **style)
        colours[name] = style["color"]
        if band != "none":
            bounds = result.simultaneous[j] if band == "simultaneous" else result.pointwise[j]
            ax.fill_between(result.steps, bounds[:, 0], bounds[:, 1], color=style["color"], alpha=0.2, linewidth=0)
            if not np.isfinite(bounds).any():
                withheld.append(name)
            else:
                lacking = int((np.isfinite(result.estimates[j]) & ~np.isfinite(bounds).all(axis=1)).sum())
                if lacking:
                    partly.append(f"{name} at {count(lacking, 'step')}")
    level = f"{100 * result.confidence_level:g}%"
    ax.set_ylabel(result.label + (" (normalised score)" if result.normalized else ""))  # the notes' unit
    _step_axis(ax, result, result.steps)
    # the tasks the curves are of, where a reader could take them for all the data's (audit s34 marks34: SB3's
    # curves after na_action="drop" were of CartPole-v1 alone and the figure named no task)
    tasks = result._tasks_said()
    # the statistic's name alone: what the y label adds ("(the mean: 3 runs, none trimmed)") said there once (fig37:
    # said twice, it made a title of four lines that with the legend took half a 3.3 x 2.4 in figure)
    name = metric_label(result.statistic)
    title = (f"{name} per step{tasks}" if band == "none" else f"{name} per step{tasks}, {level} {band} bands")
    measured = dict(result.measured_coverage).get(band)
    if title is not None and measured is not None:  # the level the notes quote as missed, said beside it
        title = f"{title}\n(coverage measured at designs like this: {measured:.3f}, see the notes)"
    if withheld or partly:  # on a line of its own: the legend is as wide as the Axes at a column's width
        named = ", ".join(withheld + partly)
        if len(withheld) + len(partly) > 2:  # counted, not named (audit s22: six of Dopamine's agents took 8.7 in)
            named = f"{count(len(withheld) + len(partly), 'agent')} at some or all steps"
        title = (f"{name} per step{tasks}, {level} {band}\nbands withheld, see the notes"
                 if len(withheld) == len(names) else f"{title}\n(withheld for {named}: see the notes)")
    marked, drawn_as = _mark_compared(ax, result, colours)
    if marked:
        title = f"{title}\n{marked}"
    legend = _legend_above(ax, title, drawn_as)
    if legend is not None:  # its line of withheld bands names agents: as long as their names (audit s22: 8.7 in)
        break_to_width(legend.get_title(), ax.figure, 0.8)
    return ax


#: the marks of compared steps under the curves, in points: each row's pitch (a 3.5 pt line and a gap), and the room
#: under the lowest row and above the highest
MARK_ROW, MARK_GAP = 6.0, 4.0


def _mark_compared(ax, result, colours):
    """The steps where each comparison of two agents drawn found a difference, marked under the curves, one row per
    pair (audit s35 plots35: "IQN above Rainbow at steps 0-132, 134" was printed, never drawn): a thick line of the
    agent above, a thin one of the agent below through it, over each stretch of steps (to halfway to the next logged
    step, so one step is a mark too), labelled in the legend as the print says it ("IQN above Rainbow"). The y axis
    is extended below the curves for the rows, its ticks and spine kept to the curves' range. Returns (the legend
    title's line saying what the marks are, or "" where none is drawn; the legend's handle of each mark's label)."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator
    from matplotlib.transforms import ScaledTranslation

    steps = np.asarray(result.steps, dtype=float)
    rows = []
    for i, (a, b) in enumerate(result.pairs):
        if a not in colours or b not in colours:
            continue
        found = [(leader, other, flags) for leader, other, flags in zip((a, b), (b, a), result._ahead(i))
                 if flags.any()]
        if found:
            rows.append(found)
    if not rows:
        return "", {}
    # each step's stretch: halfway to its neighbours (the end steps as far out as inside)
    gaps = np.diff(steps) / 2 if steps.size > 1 else np.array([0.5])
    left = steps - np.r_[gaps[:1], gaps]
    right = steps + np.r_[gaps, gaps[-1:]]
    xlim, (low, high) = ax.get_xlim(), ax.get_ylim()
    ticks = [t for t in ax.yaxis.get_majorticklocs() if low <= t <= high]
    # the rows sit at fixed points above the bottom spine; the room made for them is a share of the Axes' height,
    # taken as 60% of the figure's (the size asked where plot(figsize=) lays it out again): the legend above and the
    # labels take the rest, so the share is if anything larger than the rows need
    height = 0.6 * (ASKED_SIZE.get() or figure_inches(ax.figure))[1] * ax.get_position().height / 0.77 * 72
    zone = min(0.4, (2 * MARK_GAP + MARK_ROW * len(rows)) / max(height, 1.0))
    ax.set_ylim(low - zone / (1.0 - zone) * (high - low), high)
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.spines["left"].set_bounds(low, high)
    drawn_as = {}
    for k, found in enumerate(rows):
        # the first pair nearest the curves, in points above the bottom spine
        where = ax.get_xaxis_transform() + ScaledTranslation(
            0.0, (MARK_GAP + MARK_ROW * (len(rows) - k - 1) + MARK_ROW / 2) / 72, ax.figure.dpi_scale_trans)
        for leader, other, flags in found:
            runs = np.flatnonzero(np.diff(np.r_[0, flags.astype(int), 0]))  # starts and ends of the stretches
            starts, ends = runs[::2], runs[1::2] - 1
            label = result._above(leader, other)  # as the print says it
            ax.hlines(np.zeros(starts.size), left[starts], right[ends], colors=colours[leader], linewidth=3.5,
                      transform=where, label=label, clip_on=False)
            ax.hlines(np.zeros(starts.size), left[starts], right[ends], colors=colours[other], linewidth=1.0,
                      transform=where, clip_on=False)
            drawn_as[label] = (Line2D([], [], color=colours[leader], linewidth=3.5),
                               Line2D([], [], color=colours[other], linewidth=1.0))
    ax.set_xlim(xlim)
    return f"marks below: steps a comparison differs (max-T, alpha = {result.alpha:g})", drawn_as


def plot_difference(result, *, ax=None, pair=None, color="#0072B2", **kwargs):
    """The difference of two agents' curves with its max-T band; steps that differ are marked.

    The band comes from the relabellings of the max-T test, at level 1 - alpha: it leaves 0 exactly
    at the marked steps. Where the comparison is withheld (one run of a task logged) it has no band and no mark,
    and the legend's title names those steps, as it does those where a curve is missing (not compared).

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
    differs = table["significant"].to_numpy(dtype=bool, na_value=False)  # withheld steps: no mark
    if differs.any():
        low = np.nanmin(table["conf_low"].to_numpy())
        ax.plot(table["step"][differs], np.full(differs.sum(), low), "|", color="black", markersize=6,
                label=f"differs (max-T, alpha = {result.alpha:g})")
    ax.set_ylabel(f"{result.label}: {difference_label(a, b)}" + (" (normalised)" if result.normalized else ""))
    _step_axis(ax, result, table["step"])
    withheld = result._withheld_words(result._pair_index(a, b)[0])
    # "comparison withheld at ...", "not compared at ..." (a curve missing there)
    title = None if withheld is None else f"comparison {withheld}" if withheld.startswith("withheld") else withheld
    tasks = result._tasks_said()[2:]  # of one task, or of the tasks left (audit s34 marks34)
    title = "\n".join(part for part in (tasks, title) if part) or None
    legend = _legend_above(ax, title)
    if legend is not None and title is not None:
        break_to_width(legend.get_title(), ax.figure, 0.8)
    return ax
