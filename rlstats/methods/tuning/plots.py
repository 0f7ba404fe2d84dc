"""Drawing of a tuning result: drawing only, ``ax=`` in, Axes out."""

from __future__ import annotations

import numpy as np

from ... import format as fmt
from ...errors import OptionError, agent_named
from ...plotting import ASKED_SIZE, axes_or_new, fit_title, least_panel, legend_above, legend_above_height, palette, rows_held

#: the task of expected_max()'s rows averaged over the tasks (a label in its data, not a task of the design)
MEAN_OVER_TASKS = "(mean over tasks)"
#: bars of the best-set plot at most (the first in the table's order: task, agent, probability)
SHOWN_BARS = 30
#: inches the best-set plot's own figure is high at most (a page's text height, less its caption): fewer bars shown
MAX_HEIGHT = 9.0


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
    own = ax is None
    # the plot 2.6 in high under its legend (above it: audit s33 tunefig33), 3.2 in in all for a legend of a row or two;
    # the legend as wide as the Axes, 0.775 of the figure before it is laid out (matplotlib's subplot default)
    agents = [str(agent) for agent in dict.fromkeys(em["agent"])]
    ax = axes_or_new(ax, (4.5, max(3.2, 2.6 + legend_above_height(agents, 0.775 * 4.5))))
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
    # above the Axes, titled with what the axes' title said: inside, a legend of several agents hid the points
    # (audit s33 tunefig33: 8 procedures of hpo_optimisation over the points at 3.4 x 2.55 in)
    legend_above(ax, f"{task}, {sampling}")
    if own:  # under plot(figsize=), a size whose legend leaves the scores a sliver is refused (0.43 in at 3.4 x 2.55)
        _least_scores(ax, "panel of expected best scores")
    return ax


def _least_scores(ax, what):
    """Declare the least size of a panel of scores under a legend (:func:`rlstats.plotting.least_panel`): three tick
    labels a label apart along each axis."""
    import matplotlib
    from matplotlib.font_manager import FontProperties

    ticks = FontProperties(size=matplotlib.rcParams["ytick.labelsize"]).get_size_in_points()
    least_panel(ax, 6 * ticks / 72, 6 * ticks / 72, what, "three tick labels a label apart along each axis")


def plot_best_set(result, *, ax=None, **kwargs):
    """The share of resamples in which each configuration with a chance is best or tied for best, per agent and task
    (the best set's rule: its members reach the threshold line), and, where ties share it, the probability of being
    best with ties shared as a tick on its bar."""
    table = _table(result, "best_set", "best_set")
    chances = table[table["probability_best"] > 0]
    best = chances.head(SHOWN_BARS)  # a taller figure fits no page; the title says what was left out
    own = ax is None
    withheld = bool(table["probability_best"].isna().any())  # a configuration of one seed in a sweep of several
    colors = np.where(best["in_best_set"].fillna(False).astype(bool), "#0072B2", "#BBBBBB")  # withheld: grey
    # a sweep of one configuration: 1 by construction, not measured, drawn unfilled and hatched (audit s34 tune34)
    sizes = result._sweep_sizes()
    single = np.array([sizes[a, t] == 1 for a, t in zip(best["agent"], best["task"])], dtype=bool)
    reached, ties_shared = (best[c].to_numpy(float) for c in ("probability_best_or_tied", "probability_best"))
    sharing = np.abs(reached - ties_shared) > 1e-12  # ties shared there: its shared probability is less than its bar
    # configurations never best or tied in any resample, which best_set() leaves out, with runners_up=True too (audit
    # s34 tune34: unsaid)
    never = sum(sizes.values()) - len(table) - sum(
        sizes[key] - len(rows) for key, rows in table.groupby(["agent", "task"], sort=False)
        if rows["probability_best"].isna().all())

    def title(n, shared):  # the lines above the first n rows: what they share, what the marks mean, what is left out
        return ([shared] if shared else []) + (
            ["|: probability of being best, ties shared"] if sharing[:n].any() else []) + (
            ["hatched: a sweep's only configuration, 1 by construction"] if single[:n].any() else []) + (
            ["probabilities withheld where one of several\nconfigurations has one seed (see the notes)"]
            if withheld else []) + (
            [f"{n} of {len(chances)} shown (best_set(runners_up=True) lists all)"] if len(chances) > n else []) + (
            [f"{fmt.count(never, 'configuration')} never best (left out)"] if never else [])

    def height(n):  # the own figure's height for the first n rows
        labels, shared = _bar_labels(result, best.head(n))
        lines = sum(label.count("\n") + 1 for label in labels)
        # a title line of 8 pt takes about 0.14 in: the rows keep their room under a title of several (audit s34)
        breaks = "\n".join(title(n, shared)).count("\n")
        return 0.8 + 0.1 * n + 0.12 * lines + 0.14 * breaks

    if own:  # no taller than a page: fewer rows, the title saying how many of how many (fig37: 30 rows of three
        # lines made a figure 5 x 14.9 in); under plot(figsize=), as many as the height asked holds (fixb37: 17 of 42
        # bars at the top of a 5 x 20 in figure asked for, the rest of it empty)
        asked = ASKED_SIZE.get()
        while len(best) > 1 and height(len(best)) > (MAX_HEIGHT if asked is None else asked[1]):
            best = best.head(len(best) - 1)
    colors, single, reached, ties_shared, sharing = (
        values[:len(best)] for values in (colors, single, reached, ties_shared, sharing))
    ax = axes_or_new(ax, (5.0, height(len(best))))
    ax.axvline(result.threshold, color="#D55E00", linewidth=1, linestyle="--")
    # the bars are what membership reads (audit s34 tune34: drawn at the shared probability, members sat at
    # 0.043-0.049, left of their own 0.05 line); long y labels leave a narrow Axes
    ax.set_xlabel("best or tied for best\n(share of bootstrap resamples)")
    drawn = []

    def draw(n):  # the first n rows, what the rows shown share said once in the title (the task of the first rows)
        for artist in drawn:
            artist.remove()
        labels, shared = _bar_labels(result, best.head(n))
        lines = title(n, shared)
        ax.set_title("\n".join(lines), fontsize=9 if len(lines) == 1 and not withheld else 8)
        bars = ax.barh(range(n), reached[:n], **{"color": colors[:n], **kwargs})
        for bar, one in zip(bars, single[:n]):
            if one:
                bar.set(fill=False, hatch="///", edgecolor="#0072B2")
        drawn[:] = [bars]
        rows = np.flatnonzero(sharing[:n])
        if rows.size:  # the shared probability, said in the title (a legend inside covered bars at 3.4 x 2.55 in)
            drawn.extend(ax.plot(ties_shared[rows], rows, linestyle="none", marker="|", markersize=9, color="black"))
        ax.set_yticks(range(n), labels, fontsize=7)
        span = 0.05 * (n - 0.2)  # matplotlib's margins of n bars 0.8 high, the first row at the top
        ax.set_ylim(n - 0.6 + span, -0.4 - span)

    if own:  # sized for its rows (plot(figsize=) too small for them is refused, with a size that holds them)
        draw(len(best))
    else:  # the caller's Axes keep their size: the rows they hold (audit s33 tunefig33)
        rows_held(ax, len(best), draw)
    return ax


def _bar_labels(result, rows):
    """(the label of each of the best-set plot's ``rows``, what they all share for its title)."""
    # one line per hyperparameter: a sweep's "name=value, ..." on one line is wider than the figure, which then has
    # no room left for the bars; values with the digits that tell them apart (floats in full overlapped at one
    # column's width, audit s11); what the bars' sweeps share heads the figure, what differs labels each bar
    settings = short_settings([str(c) for c in rows["config"]], result.config_columns, result.config_digits)
    sweeps, shared = _sweep_labels(rows)
    # without config= each agent is its one configuration, named by the agent, which the sweep's name says already
    # (audit s24: "agent_1 / task_02\nagent_1"; s25: the title's agent again on the bar of one sweep)
    return ["\n".join(([sweep] if sweep else []) + ([] if not result.config_columns else lines))
            for sweep, lines in zip(sweeps, settings)], shared


def _sweep_labels(rows):
    """Each row's sweep as its bar says it, by what differs between the rows (agent, task), and what they all share,
    said once in the title ("task_01", "agent_1 / task_01"; "" where both differ): the best-set and complete plots
    (audit s25: "agent_1 / task_01", "agent_2 / task_01" said the one task on every bar)."""
    if not len(rows):
        return [], ""
    varies = [column for column in ("agent", "task") if rows[column].nunique() > 1]
    labels = [" / ".join(str(getattr(row, column)) for column in varies) for row in rows.itertuples()]
    return labels, " / ".join(str(rows[column].iloc[0]) for column in ("agent", "task") if column not in varies)


def short_settings(configs, columns, digits):
    """Each configuration label ("lr=0.0012345678, gamma=0.99", of the hyperparameter ``columns`` in order) as its
    lines of settings, each number of a column of ``digits`` (column -> significant digits: the result's
    ``config_digits``, the fewest, 3 or more, that keep that column's values apart over every configuration of the
    data) at those digits; other settings as written."""
    import math
    import re

    from ...format import signif

    # cut where the next column's "name=" follows, not at every ", ": a value may hold one ("[64, 64]", audit s19)
    whole = re.compile(", ".join(f"({re.escape(str(c))})(=)(.*?)" for c in columns) + "$", re.DOTALL)

    def short(name, value):
        if name not in digits:
            return value
        try:
            number = float(value)
        except ValueError:
            return value  # a setting that is no number
        return signif(number, digits[name]) if math.isfinite(number) else value

    shown = []
    for config in configs:
        found = whole.match(config) if columns else None
        parts = ([found.group(i, i + 2) for i in range(1, 3 * len(columns), 3)] if found
                 else [(None, config)])  # a label of no configuration (an agent's name): one line as it is
        shown.append([config if name is None else f"{name}={short(name, value)}" for name, value in parts])
    return shown


def short_label(config, columns, digits):
    """A configuration's label as the print says it: :func:`short_settings` on one line."""
    return ", ".join(short_settings([config], columns, digits)[0])


def plot_complete(result, *, ax=None, **kwargs):
    """The complete algorithm's expected score and its interval (``complete_interval=``) per agent and task; where an
    interval is withheld (too few configurations, or runs) the title says so, not a bare point alone."""
    from ._backend import COMPLETE_CONFIGURATIONS

    complete = _table(result, "complete", "complete")
    own = ax is None
    ax = axes_or_new(ax, (4.5, 0.8 + 0.3 * len(complete)))
    ax.set_xlabel("complete algorithm:\nexpected score")
    withheld = ~(np.isfinite(complete["conf_low"]) & np.isfinite(complete["conf_high"])).to_numpy()
    drawn = []

    def draw(n):  # the first n rows (by agent, then task), the title saying what the rows share and what is left out
        for artist in drawn:
            artist.remove()
        rows, y = complete.head(n), np.arange(n)
        drawn[:] = [ax.errorbar(rows["estimate"], y, xerr=[rows["estimate"] - rows["conf_low"],
                                                           rows["conf_high"] - rows["estimate"]],
                                fmt="o", color="#0072B2", **kwargs)]
        labels, shared = _sweep_labels(rows)
        ax.set_yticks(y, labels, fontsize=8)
        margin = 0.05 * (n - 1) if n > 1 else 0.5
        if n:
            ax.set_ylim(n - 1 + margin, -margin)  # the first row at the top
        title = [shared] if shared else []
        if withheld[:n].any():  # a bare point reads as a precise one (audit s11)
            why = ("too few runs" if result.options.get("complete_interval") == "two_stage" else
                   f"fewer than {COMPLETE_CONFIGURATIONS} configurations")
            # one line, broken where the figure needs it and as evenly as it can be (audit s25: written as two, at
            # 3.3 in the second was broken again, "notes)" alone on a fourth line)
            title.append(f"intervals withheld{'' if withheld[:n].all() else ' where none is drawn'} ({why}; see "
                         "the notes)")
        if n < len(complete):
            title.append(f"{n} of {len(complete)} shown (complete() lists all)")
        ax.set_title("\n".join(title), fontsize=8 if withheld[:n].any() or len(title) > 1 else 9)

    if own:
        draw(len(complete))
        if ax.get_title():
            fit_title(ax)
    else:  # the caller's Axes keep their size: the rows they hold (audit s33 tunefig33: 24 rows at 3.4 x 2.55 in)
        rows_held(ax, len(complete), draw)
    return ax


def plot_sensitivity(result, *, ax=None, **kwargs):
    """Per-task tuned against cross-task tuned score per agent (sensitivity is the vertical gap to the diagonal)."""
    sens = _table(result, "sensitivity", "sensitivity")
    own = ax is None
    ax = axes_or_new(ax, (3.8, max(3.5, 2.9 + legend_above_height([str(a) for a in sens["agent"]], 0.775 * 3.8))))
    for row, color in zip(sens.itertuples(), palette(len(sens))):
        ax.scatter(row.cross_task_tuned, row.per_task_tuned, color=color, label=row.agent, **kwargs)
    low = min(sens["cross_task_tuned"].min(), sens["per_task_tuned"].min())
    high = max(sens["cross_task_tuned"].max(), sens["per_task_tuned"].max())
    ax.plot([low, high], [low, high], color="#888888", linewidth=0.8)
    ax.set_xlabel("cross-task tuned (normalised)")
    ax.set_ylabel("per-task tuned (normalised)")
    legend_above(ax)  # inside, 10 procedures' names covered the points and the diagonal at 3.4 in (audit s33 tunefig33)
    if own:
        _least_scores(ax, "panel of tuned scores")
    return ax
