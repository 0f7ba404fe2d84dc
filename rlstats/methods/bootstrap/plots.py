"""Drawings of bootstrap results: interval estimates, profiles, probability of improvement, inferential intervals.

Plots draw, never compute: each function reads a result's fields, takes
``ax=`` (a new figure only when it is None), lets user keywords win over the
defaults, changes no global style and returns the Axes (the Figure when it
made several panels).
"""

from __future__ import annotations

import numpy as np

from ... import format as fmt
from ...errors import OptionError
from ...plotting import PALETTE, SMALL_FONT, axes_or_new, mark_colors, palette, panels, rows_height
from ...vocabulary import metric_label
from .._replication import untrimmed_iqm_label

SCALINGS = ("linear", "nonlinear")



def _tidy_spines(ax):
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def plot_interval_estimates(result, *, ax=None, metrics=None, colors=None, width=None, **kwargs):
    """One panel per metric: each agent's interval as a bar, its point estimate as a tick (black, or white on a
    dark bar: :func:`rlstats.plotting.mark_colors`).

    Parameters
    ----------
    result : BootstrapResult
    ax : Axes or sequence of Axes, optional
        One Axes per metric shown; a new figure when None.
    metrics : sequence of str, optional
        Metrics to show (default all).
    colors : sequence, optional
        One colour per agent (default: Okabe-Ito).
    width : float, optional
        Width in inches of a new figure (default 3.3, one column of a paper); the panels wrap into as
        many columns as fit.
    **kwargs
        Passed to ``Axes.barh`` for the interval bars (e.g. ``height``, ``alpha``).

    Returns
    -------
    Axes, or the Figure when several panels were made.
    """
    metrics = list(result.metrics if metrics is None else metrics)
    missing = [m for m in metrics if m not in result.metrics]
    if missing:
        raise OptionError(f"{fmt.plural('metric', len(missing))} {missing} not in the result; metrics: "
                          f"{list(result.metrics)}")
    from matplotlib.ticker import MaxNLocator

    k = len(result.agents)
    # 1.5 in per panel: two metrics side by side in one column of a paper, four on a page's width.
    fig, axes = panels(ax, len(metrics), (1.5, 0.7 + 0.17 * k), width=width, sharey=True, what="metric",
                       hint=", or metrics= to draw fewer")
    style = {"height": 0.6, "alpha": 0.75}
    style.update(kwargs)
    positions = np.arange(k)[::-1]  # first agent on top
    for p, (panel, metric) in enumerate(zip(axes, metrics)):
        j = result.metrics.index(metric)
        low, high = result.intervals[:, j, 0], result.intervals[:, j, 1]
        bars = panel.barh(positions, high - low, left=low, color=palette(k, colors), **style)
        # black, or white on a dark bar (PALETTE's black hid the tick, audit s35 plots35)
        panel.vlines(result.estimates[:, j], positions - 0.3, positions + 0.3,
                     colors=mark_colors(panel, bars, result.estimates[:, j]), linewidth=1.5)
        panel.set_yticks(positions)
        # A new grid shares y and hides the inner labels itself; on the caller's Axes name agents once.
        panel.set_yticklabels(list(result.agents) if ax is None or p == 0 else [""] * k, fontsize=SMALL_FONT + 1)
        # the IQM that trims nothing (fewer than 4 runs pooled over tasks) says it is the mean (audit s33 msg33)
        title = metric_label(metric, title=True)
        panel.set_title(untrimmed_iqm_label(result.counts, result.agents, title) if metric == "iqm" else title,
                        fontsize=SMALL_FONT + 1)
        panel.use_sticky_edges = False  # bars pin the x limits to their ends otherwise
        panel.margins(x=0.1)  # no interval touches the axis
        panel.tick_params(axis="x", labelsize=SMALL_FONT)
        panel.xaxis.set_major_locator(MaxNLocator(3))
        _tidy_spines(panel)
    score = str(result.formula.response) if result.formula is not None else "score"
    if result.design is not None and result.design.normalized:  # the estimates' unit, as the print's note says
        score += " (normalised)"
    label = f"{score}: {fmt.signif(100 * result.confidence_level)}% {result.interval} intervals"
    shown = result.intervals[:, [result.metrics.index(m) for m in metrics]]
    if not np.isfinite(shown).any():  # only the estimates' ticks are drawn: never read them as narrow intervals
        label += "\nwithheld (see the notes); ticks: estimates"
    elif not np.isfinite(shown).all():
        label += "\n(no bar where withheld: see the notes)"
    if "\n" in label and ax is None:  # the label's second line takes its own room, not the panels'
        fig.set_size_inches(fig.get_size_inches() + [0.0, 0.15])
    fig.supxlabel(label, fontsize=SMALL_FONT + 1)
    return fig if len(axes) > 1 else axes[0]


def plot_performance_profile(result, *, ax=None, scaling="linear", colors=None, **kwargs):
    """Each agent's profile as a line with its pointwise band.

    Parameters
    ----------
    result : PerformanceProfileResult
    ax : Axes, optional
    scaling : {"linear", "nonlinear"}
        ``"nonlinear"`` places tau at 1 - (mean profile over agents), which
        spreads out the thresholds where the profiles change (rliable's
        non-linear scaling); tick labels still show tau.
    colors : sequence, optional
    **kwargs
        Passed to ``Axes.plot`` for every line (a ``linewidth`` applies to all agents).

    Returns
    -------
    Axes
    """
    if scaling not in SCALINGS:
        raise OptionError(f"scaling={scaling!r} is not one of the allowed values: {', '.join(map(repr, SCALINGS))}")
    ax = axes_or_new(ax, (5.0, 3.6))
    tau = np.asarray(result.tau)
    x = tau if scaling == "linear" else 1 - result.estimates.mean(axis=0)
    for i, (name, color) in enumerate(zip(result.agents, palette(len(result.agents), colors))):
        style = {"color": color, "linewidth": 2.0, "label": name}
        if tau.size == 1:  # one threshold (every score ties): a line through one point draws nothing
            style["marker"] = "o"
        style.update(kwargs)
        ax.plot(x, result.estimates[i], **style)
        if tau.size == 1:
            ax.vlines(x, result.intervals[i, :, 0], result.intervals[i, :, 1], color=style["color"], alpha=0.4)
        ax.fill_between(x, result.intervals[i, :, 0], result.intervals[i, :, 1], color=style["color"], alpha=0.2,
                        linewidth=0)
    if scaling == "nonlinear":
        # ticks evenly spread on the drawn axis, labelled with the tau found there
        targets = np.linspace(x.min(), x.max(), 6)
        ticks = np.unique([int(np.argmin(np.abs(x - target))) for target in targets])
        ax.set_xticks(x[ticks])
        ax.set_xticklabels([fmt.signif(t, 3) for t in tau[ticks]])
    score = "normalised score" if result.normalized else "score"  # the unit the thresholds are in
    ax.set_xlabel(f"{score} threshold tau" + (" (non-linear scale)" if scaling == "nonlinear" else ""))
    higher = result.options.get("higher_is_better", True)  # a time's profile counts runs below tau (audit s34)
    sign = ">" if higher else "<"
    ax.set_ylabel(f"fraction of runs with {score} {sign} tau" if result.kind == "runs"
                  else f"fraction of tasks with mean {score} {sign} tau")
    ax.set_ylim(-0.02, 1.02)
    # Profiles fall from the top left: their upper right corner is the empty one (a time's rise: the upper left).
    ax.legend(frameon=False, loc="upper right" if higher else "upper left", fontsize=SMALL_FONT + 1)
    _tidy_spines(ax)
    return ax


def plot_probability_of_improvement(result, *, ax=None, color=None, **kwargs):
    """One row per pair (X vs Y): the interval of P(X > Y) + P(X = Y) / 2 as a bar and its estimate as a tick.

    Parameters
    ----------
    result : ProbabilityOfImprovementResult
    ax : Axes, optional
    color : colour, optional
    **kwargs
        Passed to ``Axes.barh`` (e.g. ``height``, ``alpha``).

    Returns
    -------
    Axes
    """
    n = len(result.pairs)
    ax = axes_or_new(ax, (5.0, rows_height(n, 0.4, 0.8)))
    style = {"height": 0.6, "alpha": 0.75, "color": PALETTE[0] if color is None else color}
    style.update(kwargs)
    positions = np.arange(n)[::-1]
    low, high = result.intervals[:, 0], result.intervals[:, 1]
    bars = ax.barh(positions, high - low, left=low, **style)
    ax.vlines(result.estimates, positions - 0.3, positions + 0.3, colors=mark_colors(ax, bars, result.estimates),
              linewidth=1.5)
    ax.axvline(0.5, color="0.5", linestyle="--", linewidth=1)
    ax.set_yticks(positions)
    firsts = {x for x, _ in result.pairs}
    if n > 1 and len(firsts) == 1:  # one X against several: X named once, up the side, each row its Y (fig37: "SPR vs"
        # on each of 5 rows took half a 3.5 in figure's width)
        ax.set_yticklabels([str(y) for _, y in result.pairs])
        ax.set_ylabel(f"Y (X = {next(iter(firsts))})")
    else:
        ax.set_yticklabels([f"{x} vs {y}" for x, y in result.pairs])
    # ties count one half (audit s16); the blocks by the formula's column (audit s32 block32)
    sign = ">" if result.options.get("higher_is_better", True) else "<"  # a faster run, for times (audit s34)
    ax.set_xlabel(f"P(X {sign} Y) + P(X = Y) / 2, {fmt.over_tasks(result.tasks, word=result._block_word)}")
    ax.use_sticky_edges = False  # bars pin the x limits to their ends otherwise (audit s23: the lowest on the spine)
    ax.margins(x=0.1)
    _tidy_spines(ax)
    return ax


def plot_inferential_intervals(result, *, ax=None, metric=None, colors=None, **kwargs):
    """Descriptive and inferential intervals of two agents side by side (thesis Figure 13).

    Parameters
    ----------
    result : InferentialIntervalsResult
    ax : Axes, optional
    metric : str, optional
        Which metric (default the first).
    colors : sequence of two colours, optional
        Descriptive and inferential.
    **kwargs
        Passed to ``Axes.errorbar`` for both kinds of interval.

    Returns
    -------
    Axes
    """
    metric = result.metrics[0] if metric is None else metric
    if metric not in result.metrics:
        raise OptionError(f"metric {metric!r} not in the result; metrics: {list(result.metrics)}")
    j = result.metrics.index(metric)
    ax = axes_or_new(ax, (4.2, 3.6))
    descriptive_color, inferential_color = ("0.55", PALETTE[0]) if colors is None else tuple(colors)
    kinds = (("descriptive", result.descriptive, -0.12, descriptive_color),
             (f"inferential (epsilon = {fmt.signif(result.epsilon[j], 3)})", result.inferential, 0.12,
              inferential_color))
    for label, intervals, shift, color in kinds:
        est = result.estimates[:, j]
        err = np.abs(np.stack([est - intervals[:, j, 0], intervals[:, j, 1] - est]))
        style = {"fmt": "o", "capsize": 4, "color": color, "label": label}
        style.update(kwargs)
        ax.errorbar(np.arange(2) + shift, est, yerr=err, **style)
    ax.set_xticks([0, 1])
    ax.set_xticklabels(list(result.agents))
    ax.set_xlim(-0.6, 1.6)
    ax.set_ylabel(metric_label(metric, title=True))
    ax.set_title(f"test {fmt.pvalue_phrase(result.pvalue)}, alpha = {result.alpha}", fontsize=9)
    ax.legend(frameon=False, fontsize=8)
    _tidy_spines(ax)
    return ax
