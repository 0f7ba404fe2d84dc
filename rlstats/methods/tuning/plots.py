"""Drawing of a tuning result: drawing only, ``ax=`` in, Axes out."""

from __future__ import annotations

import numpy as np

from ...errors import OptionError, agent_named
from ...plotting import axes_or_new, fit_title, palette

#: the task of expected_max()'s rows averaged over the tasks (a label in its data, not a task of the design)
MEAN_OVER_TASKS = "(mean over tasks)"
#: bars of the best-set plot at most (the first in the table's order: task, agent, probability)
SHOWN_BARS = 30


def _table(result, name, view):
    table = result.tables.get(name)
    if table is None:
        raise OptionError(f"{result.not_computed(view)}; nothing to draw")
    return table


def plot_expected_max(result, *, ax=None, task=None, sampling="without replacement", **kwargs):
    """Expected best score against the tuning budget k, one line and band per agent (a point and its interval where
    the curve has one budget); the mean over tasks when there are several tasks, else ``task``."""
    em = _table(result, "expected_max", "expected_max")
    em = em[em["sampling"] == sampling]
    if task is None:
        task = MEAN_OVER_TASKS if (em["task"] == MEAN_OVER_TASKS).any() else em["task"].iloc[0]
    else:  # the one rule (errors.agent_named): task=0 names the task printed 0; one not there is an error, no blank plot
        task = agent_named(list(dict.fromkeys(em["task"])), "task", task, what="task")
    em = em[em["task"] == task]
    ax = axes_or_new(ax, (4.5, 3.2))
    for (agent, curve), color in zip(em.groupby("agent", sort=False), palette(em["agent"].nunique())):
        if len(curve) == 1:  # one budget (one configuration, or the one every sweep has): a line would be invisible
            low, high = curve["estimate"] - curve["conf_low"], curve["conf_high"] - curve["estimate"]
            ax.errorbar(curve["budget"], curve["estimate"], yerr=[low.fillna(0), high.fillna(0)], color=color,
                        fmt="none", elinewidth=1, capsize=3)
            ax.plot(curve["budget"], curve["estimate"], color=color, label=agent, **{"marker": "o", **kwargs})
            continue
        ax.fill_between(curve["budget"], curve["conf_low"], curve["conf_high"], color=color, alpha=0.2, linewidth=0)
        ax.plot(curve["budget"], curve["estimate"], color=color, label=agent, **kwargs)
    ax.set_xscale("log")
    budgets = np.unique(em["budget"])
    if budgets.size and budgets.max() < 10:  # within a decade a log axis labels 2..9 as 2x10^0, ...: the budgets
        from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

        ax.xaxis.set_major_locator(FixedLocator(budgets))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel("tuning budget k (configurations)")
    ax.set_ylabel("expected best score")
    ax.set_title(f"{task}, {sampling}", fontsize=9)
    ax.legend(fontsize=8, frameon=False)
    return ax


def plot_best_set(result, *, ax=None, **kwargs):
    """Probability of being best of the configurations with a chance, per agent and task (the best set above the
    threshold line)."""
    table = _table(result, "best_set", "best_set")
    chances = table[table["probability_best"] > 0]
    best = chances.head(SHOWN_BARS)  # a taller figure fits no page; the title says what was left out
    # one line per hyperparameter: a sweep's "name=value, ..." on one line is wider than the figure, which then has
    # no room left for the bars; values with the digits that tell them apart (floats in full overlapped at one
    # column's width, audit s11); what the bars' sweeps share heads the figure, what differs labels each bar
    settings = _short_settings([str(c) for c in best["config"]], result.config_columns)
    sweeps, shared = _sweep_labels(best)
    # without config= each agent is its one configuration, named by the agent, which the sweep's name says already
    # (audit s24: "agent_1 / task_02\nagent_1"; s25: the title's agent again on the bar of one sweep)
    labels = ["\n".join(([sweep] if sweep else []) + ([] if not result.config_columns else lines))
              for sweep, lines in zip(sweeps, settings)]
    title = [shared] if shared else []
    lines = sum(label.count("\n") + 1 for label in labels)
    ax = axes_or_new(ax, (5.0, 0.8 + 0.1 * len(best) + 0.12 * lines))
    withheld = bool(table["probability_best"].isna().any())  # a configuration of one seed in a sweep
    if withheld:
        title.append("probabilities withheld where a configuration has one seed (see the notes)")
    if len(chances) > len(best):
        title.append(f"{len(best)} of {len(chances)} shown (best_set() lists all)")
    if title:
        ax.set_title("\n".join(title), fontsize=9 if len(title) == 1 and not withheld else 8)
    colors = np.where(best["in_best_set"].fillna(False).astype(bool), "#0072B2", "#BBBBBB")  # withheld: grey
    style = {"color": colors}
    style.update(kwargs)
    ax.barh(range(len(best)), best["probability_best"], **style)
    ax.set_yticks(range(len(best)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(result.threshold, color="#D55E00", linewidth=1, linestyle="--")
    ax.set_xlabel("probability of being best\n(bootstrap)")  # long y labels leave a narrow Axes
    return ax


def _sweep_labels(rows):
    """Each row's sweep as its bar says it, by what differs between the rows (agent, task), and what they all share,
    said once in the title ("task_01", "agent_1 / task_01"; "" where both differ): the best-set and complete plots
    (audit s25: "agent_1 / task_01", "agent_2 / task_01" said the one task on every bar)."""
    if not len(rows):
        return [], ""
    varies = [column for column in ("agent", "task") if rows[column].nunique() > 1]
    labels = [" / ".join(str(getattr(row, column)) for column in varies) for row in rows.itertuples()]
    return labels, " / ".join(str(rows[column].iloc[0]) for column in ("agent", "task") if column not in varies)


def _short_settings(configs, columns):
    """Each configuration label ("lr=0.0012345678, gamma=0.99", of the hyperparameter ``columns`` in order) as its
    lines of settings, numbers with the fewest significant digits (4 or more) that keep the labels apart."""
    import re

    from ...format import signif

    # cut where the next column's "name=" follows, not at every ", ": a value may hold one ("[64, 64]", audit s19)
    whole = re.compile(", ".join(f"({re.escape(str(c))})(=)(.*?)" for c in columns) + "$", re.DOTALL)
    split = []
    for config in configs:
        found = whole.match(config) if columns else None
        split.append([found.group(i, i + 1, i + 2) for i in range(1, 3 * len(columns), 3)] if found
                     else [("", "", config)])  # a label of no configuration (an agent's name): one line as it is
    for digits in (4, 6, 8, 12, None):
        def short(value):
            try:
                return value if digits is None else signif(float(value), digits)
            except ValueError:
                return value  # a setting that is no number
        shown = [[f"{name}{eq}{short(value) if eq else value}" for name, eq, value in parts] for parts in split]
        if len({tuple(lines) for lines in shown}) == len(set(configs)):
            return shown
    return shown


def plot_complete(result, *, ax=None, **kwargs):
    """The complete algorithm's expected score and its interval (``complete_interval=``) per agent and task; where an
    interval is withheld (too few configurations, or runs) the title says so, not a bare point alone."""
    from ._backend import COMPLETE_CONFIGURATIONS

    complete = _table(result, "complete", "complete")
    own = ax is None
    ax = axes_or_new(ax, (4.5, 0.8 + 0.3 * len(complete)))
    y = np.arange(len(complete))
    ax.errorbar(complete["estimate"], y, xerr=[complete["estimate"] - complete["conf_low"],
                                               complete["conf_high"] - complete["estimate"]],
                fmt="o", color="#0072B2", **kwargs)
    labels, shared = _sweep_labels(complete)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("complete algorithm:\nexpected score")
    withheld = ~(np.isfinite(complete["conf_low"]) & np.isfinite(complete["conf_high"])).to_numpy()
    title = [shared] if shared else []
    if withheld.any():  # a bare point reads as a precise one (audit s11)
        why = ("too few runs" if result.options.get("complete_interval") == "two_stage" else
               f"fewer than {COMPLETE_CONFIGURATIONS} configurations")
        # one line, broken where the figure needs it and as evenly as it can be (audit s25: written as two, at 3.3 in
        # the second was broken again, "notes)" alone on a fourth line)
        title.append(f"intervals withheld{'' if withheld.all() else ' where none is drawn'} ({why}; see the notes)")
    if title:
        ax.set_title("\n".join(title), fontsize=8 if withheld.any() else 9)
        if own:
            fit_title(ax)
    return ax


def plot_sensitivity(result, *, ax=None, **kwargs):
    """Per-task tuned against cross-task tuned score per agent (sensitivity is the vertical gap to the diagonal)."""
    sens = _table(result, "sensitivity", "sensitivity")
    ax = axes_or_new(ax, (3.8, 3.5))
    for row, color in zip(sens.itertuples(), palette(len(sens))):
        ax.scatter(row.cross_task_tuned, row.per_task_tuned, color=color, label=row.agent, **kwargs)
    low = min(sens["cross_task_tuned"].min(), sens["per_task_tuned"].min())
    high = max(sens["cross_task_tuned"].max(), sens["per_task_tuned"].max())
    ax.plot([low, high], [low, high], color="#888888", linewidth=0.8)
    ax.set_xlabel("cross-task tuned (normalised)")
    ax.set_ylabel("per-task tuned (normalised)")
    ax.legend(fontsize=8, frameon=False)
    return ax
