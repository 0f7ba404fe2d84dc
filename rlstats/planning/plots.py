"""Drawings of a power study: power curves and runs used (draw, never compute)."""

from __future__ import annotations

from typing import Any

from .. import format as fmt
from ..plotting import axes_or_new


def plot_power(result: Any, *, ax: Any = None, **kwargs: Any) -> Any:
    """Power (rejection rate) against the number of seeds, one line per method with its Monte Carlo band.

    A dashed line marks alpha when no effect was simulated, or the target
    power of a sample-size search (with the sample size found).
    """
    ax = axes_or_new(ax, (6.0, 4.0))
    for method in result.methods:
        rows = result.table[result.table["method"] == method]
        style = {"marker": "o", "label": result.method_labels[method], **kwargs}
        (line,) = ax.plot(rows["seeds"], rows["power"], **style)
        ax.fill_between(rows["seeds"], rows["conf_low"], rows["conf_high"], color=line.get_color(), alpha=0.2,
                        linewidth=0)
    if result.target_power is not None:
        ax.axhline(result.target_power, color="grey", linestyle="--", linewidth=1,
                   label=f"target power {fmt.signif(result.target_power)}")
        if result.sample_size is not None:
            ax.axvline(result.sample_size, color="grey", linestyle=":", linewidth=1,
                       label=f"sample size {result.sample_size}")
    elif result._is_null:
        ax.axhline(result.alpha, color="grey", linestyle="--", linewidth=1, label=f"alpha = {result.alpha}")
    if len(result.seeds) <= 15:
        ax.set_xticks(list(result.seeds))
    ax.set_xlabel("seeds (runs per agent and task)")
    ax.set_ylabel("type-I error" if result._is_null else "power")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"effect {result.effect_text}, {result._simulations} simulations per point")
    ax.legend(fontsize="small")
    return ax


def plot_runs(result: Any, *, ax: Any = None, **kwargs: Any) -> Any:
    """Mean runs used per agent and task against the budget in seeds (AdaStop stops early; others use all)."""
    ax = axes_or_new(ax, (6.0, 4.0))
    for method in result.methods:
        rows = result.table[result.table["method"] == method]
        style = {"marker": "o", "label": result.method_labels[method], **kwargs}
        ax.plot(rows["seeds"], rows["mean_runs"], **style)
    top = max(result.seeds)
    ax.plot([0, top], [0, top], color="grey", linestyle="--", linewidth=1, label="all runs used")
    ax.set_xlabel("seeds (budget of runs per agent and task)")
    ax.set_ylabel("mean runs used per agent")
    ax.legend(fontsize="small")
    return ax
