"""Drawings of the mixed model's result: the pairwise differences, and the residual diagnostics.

Plots draw, never compute: every function reads a result's fields, takes ``ax=`` (a new figure only when it is
None), lets user keywords win over the defaults, changes no global style and returns the Axes (the Figure for
the diagnostics' panels).
"""

from __future__ import annotations

import numpy as np

from ...format import difference_label
from ...plotting import SMALL_FONT, fit_xlabel, panels, rows_height


def plot_contrasts(result, *, ax=None, **kwargs):
    """Each pair's difference of estimated marginal means with its simultaneous interval; 0 marked.

    A pair that never ran on a common task (``n_shared_tasks`` = 0: its contrast rests on the model) is drawn in
    grey and labelled "(indirect)".
    """
    pairs = result.comparisons
    n = len(pairs)
    _, (ax,) = panels(ax, 1, (5.0, rows_height(n, 0.32, 1.1)), width=5.0, what="figure")
    y = np.arange(n)[::-1]
    style = {"color": "black", "fmt": "o", "markersize": 4, "capsize": 2, "linewidth": 1.0}
    style.update(kwargs)
    estimate = pairs["estimate"].to_numpy()
    error = np.vstack([estimate - pairs["conf_low"].to_numpy(), pairs["conf_high"].to_numpy() - estimate])
    indirect = pairs["n_shared_tasks"].to_numpy() == 0
    ax.errorbar(estimate[~indirect], y[~indirect], xerr=error[:, ~indirect], **style)
    if indirect.any():
        ax.errorbar(estimate[indirect], y[indirect], xerr=error[:, indirect], **{**style, "color": "0.55"})
    significant = pairs["significant"].to_numpy()
    if significant.any():
        ax.plot(estimate[significant], y[significant], "o", color=style["color"], markersize=7, fillstyle="none")
    ax.axvline(0.0, color="0.6", linewidth=0.8, linestyle="--")
    ax.set_yticks(y)
    ax.set_yticklabels([difference_label(a, b) + (" (indirect)" if far else "")
                        for a, b, far in zip(pairs["agent_1"], pairs["agent_2"], indirect)], fontsize=SMALL_FONT + 1)
    how = result._intervals_drawn()
    units = f", {result.units}" if result.units else ""  # a figure pasted alone says its scale, as the notes do
    ax.set_xlabel(f"difference of estimated marginal means{units}\n({result.confidence_level:.0%} {how} intervals; "
                  "circled: adjusted p below the level"
                  + ("; grey: never on a common task)" if indirect.any() else ")"), fontsize=SMALL_FONT + 1)
    ddf = {"satterthwaite": "Satterthwaite", "kenward-roger": "Kenward-Roger"}.get(result.ddf, result.ddf)
    ax.set_title(f"linear mixed model (REML), {ddf} df", fontsize=SMALL_FONT + 1)
    # a user's Axes too (audit s21: 10 pt beside 8 pt labels); at most 6 ticks, or long y labels leave the x axis
    # of a 3.5 in figure too narrow for the ticks matplotlib picks at 7 pt, which ran into each other
    ax.tick_params(axis="x", labelsize=SMALL_FONT)
    ax.locator_params(axis="x", nbins=5)
    fit_xlabel(ax, title=True)  # broken at words, not cut, on a caller's column-wide figure too (audit s24)
    return ax


def plot_diagnostics(result, *, ax=None, width=None, **kwargs):
    """Residuals against fitted values, normal QQ of the residuals and of the task effects, and of the task x agent
    effects when the model has them (four panels; the contrasts' standard errors rest on those).

    A new figure is a column wide (two panels a row); ``width=7`` (inches) puts them in one row.
    """
    qq = [(result.residual_normal_scores, result.residuals, "residuals"),
          (result.task_normal_scores, result.task_effects, "task effects")]
    if result.cell_effects is not None:
        qq.append((result.cell_normal_scores, result.cell_effects, "task x agent"))
    fig, axes = panels(ax, 1 + len(qq), (1.65, 1.6), width=width, what="diagnostic panel",
                       hint=" (three without a task x agent term, else four)")
    style = {"color": "0.2", "s": 6, "alpha": 0.6, "linewidths": 0}
    style.update(kwargs)
    first = axes[0]
    first.scatter(result.fitted_values, result.residuals, **style)
    first.axhline(0.0, color="0.6", linewidth=0.8, linestyle="--")
    first.set_xlabel("fitted value", fontsize=SMALL_FONT + 1)
    first.set_ylabel("residual", fontsize=SMALL_FONT + 1)
    first.set_title("residuals vs fitted", fontsize=SMALL_FONT + 1)
    for panel, (x, values, what) in zip(axes[1:], qq):
        panel.scatter(x, values, **style)
        if len(values) >= 4:  # R's qqline: through the quartiles of the points and of the normal (+-0.6745)
            q = np.quantile(values, [0.25, 0.75])
            panel.axline((0.0, q.mean()), slope=(q[1] - q[0]) / (2 * 0.6745), color="0.6", linewidth=0.8,
                         linestyle="--")
        panel.set_xlabel("normal quantile", fontsize=SMALL_FONT + 1)
        panel.set_ylabel(what, fontsize=SMALL_FONT + 1)
        panel.set_title(f"QQ: {what}", fontsize=SMALL_FONT + 1)
    for panel in axes:
        panel.tick_params(labelsize=SMALL_FONT)
    return fig
