"""What :func:`rlstats.power` decides on for the bootstrap: two agents' intervals of one metric do not overlap.

The intervals are those :func:`rlstats.bootstrap` gives with its defaults (studentised; ``expanded_tasks`` with
``task_bootstrap=True``) unless ``interval=`` names another, so that the power is that of the analysis a user runs: bootstrap() prints each agent's interval and no
interval of a difference, so its reader decides by whether two agents' intervals overlap. ``interval="percentile"``
is the rule the thesis studies (Casesa 2024, Section 3.1). Non-overlap of two intervals is a conservative test; with
more agents the rule reads every pair, and with no difference it can reject more often than alpha (audit s11).
"""

import numpy as np

from ... import format as fmt
from ...errors import OptionError, warn

#: bootstrap resamples per simulated data set unless n_resamples is given
POWER_RESAMPLES = 1_000
#: the fewest runs per cell at which percentile intervals that were not asked for (bootstrap()'s studentised default
#: gives way to them for a metric function or task_bootstrap=True) separate at most alpha of
#: data sets with no difference (audit s8 calib: 200 null data sets of simulate()'s families on 1, 5 and 26 tasks,
#: 500 resamples: 0.005-0.040 at 4 runs, 0.035-0.12 at 3, 0.075-0.365 at 2)
SEPARATION_MIN_SEEDS = 4
#: what power() says where percentile intervals that were not asked for are withheld
_TOO_FEW_RUNS = ("percentile intervals of 2 or 3 runs per task are too narrow: with no difference the rule rejected "
                 "0.20-0.37 (2 runs) and 0.07-0.12 (3 runs) of simulated data sets on 1 and 5 tasks, above "
                 "alpha = 0.05, so its rate there is no power; plan with {min} or more seeds, or give "
                 "interval='percentile' for the thesis's rule as it is")


def check(options):
    """metric= (power()'s own option) names one metric; rliable_compat=True, which draws from numpy's global seed, is
    refused (power() gives each simulated data set its own stream)."""
    compat = options.get("rliable_compat", False)
    if isinstance(compat, (bool, np.bool_)) and compat:  # another value: bootstrap()'s own check names it
        raise OptionError("power() cannot plan rliable_compat=True: rliable's resamples come from numpy's global "
                          "seed, and power() draws each simulated data set's from its own stream; that option's "
                          "intervals are percentile ones: give interval='percentile' to plan them")
    if "metric" in options:
        metric = options["metric"]
        if not (isinstance(metric, str) or callable(metric)):
            raise OptionError(f"metric must be one metric name (e.g. 'iqm') or a function, got {metric!r}")


def call_options(options, seeds, alpha):
    """One metric's intervals at level 1 - alpha (bootstrap()'s 0.95 at alpha = 0.05), bootstrap()'s default
    interval unless interval= is given, 1,000 resamples unless n_resamples is given."""
    call = {k: v for k, v in options.items() if k != "metric"}
    call["metrics"] = [options.get("metric", "iqm")]
    call.setdefault("n_resamples", POWER_RESAMPLES)
    call.setdefault("confidence_level", 1 - alpha)
    return call


def interval(options):
    """The interval bootstrap() gives with these options: its default unless interval= names another, and the
    percentile one where a studentised one does not apply (a metric function; rliable_compat=True is refused by
    :func:`check`), and "expanded_tasks" with task_bootstrap=True (:func:`_small_runs.given_interval`)."""
    from ._api import DEFAULT_INTERVAL
    from ._small_runs import given_interval

    asked = options.get("interval", DEFAULT_INTERVAL)
    metric = options.get("metric", "iqm")
    return given_interval(asked, False, options.get("task_bootstrap", False), [metric])


def withhold(options, seeds, template):
    """Why the separation rule decides no test at its level with ``seeds`` runs per cell, or None: studentised
    intervals where bootstrap() withholds them (below 3 runs per task, or on one task below the metric's
    ``ONE_TASK_MIN_RUNS``: there are no intervals, and
    every data set would count as no rejection); percentile intervals that were not asked for (bootstrap()'s default
    giving way) below :data:`SEPARATION_MIN_SEEDS`; task_bootstrap=True's expanded_tasks intervals below the metric's
    ``TASKS_MIN_TASKS`` tasks, where bootstrap() withholds them. interval='percentile' given is the thesis's rule as
    it is."""
    from ._small_runs import (STUDENTIZED_INTERVALS, STUDENTIZED_MIN_RUNS, TASKS_INTERVAL, TASKS_MIN_TASKS,
                              one_task_min_runs, tasks_measured_clause)

    given = interval(options)
    metric = options.get("metric", "iqm")
    if given == TASKS_INTERVAL and isinstance(metric, str) and template.n_tasks < TASKS_MIN_TASKS.get(metric, 0):
        # audit s29 tbfix29: every interval withheld, so power 0 blamed on ties at a cap; the percentile
        # interval's coverage quoted from its rows, as bootstrap() quotes it
        need = TASKS_MIN_TASKS[metric]
        measured = tasks_measured_clause("percentile", [metric], [metric], template.n_tasks, seeds)
        return (f"bootstrap() withholds expanded_tasks intervals of the {metric} (task_bootstrap=True's default) on "
                f"fewer than {need} tasks, so there are no intervals to separate; add tasks ({need} or more), or "
                "give interval='percentile', whose level over a population of tasks is lower"
                + (f" ({measured})" if measured else ""))
    if given in STUDENTIZED_INTERVALS and (seeds < STUDENTIZED_MIN_RUNS or template.n_tasks < 2):
        one_task = one_task_min_runs(given).get(metric) if isinstance(metric, str) else None
        if seeds < STUDENTIZED_MIN_RUNS:
            where, more = f"below {STUDENTIZED_MIN_RUNS} runs per task", "seeds"
        elif one_task is None or seeds < one_task:  # audit s19: given on one task from its measured runs
            where = f"on a single task below {one_task} runs" if one_task else "on a single task"
            more = "seeds or tasks" if one_task else "tasks"
        else:
            where = None
        if where:
            return (f"bootstrap() withholds {given} intervals {where}, so there are no intervals to separate; add "
                    f"{more}, or give interval='percentile' for the thesis's rule")
    if given == "percentile" and options.get("interval") != "percentile" and seeds < SEPARATION_MIN_SEEDS:
        return _TOO_FEW_RUNS.format(min=SEPARATION_MIN_SEEDS)
    return None


def decide(result, alpha, template, seeds):
    """Some pair of the agents' intervals is disjoint: the highest lower bound exceeds the lowest upper bound, over
    the agents bootstrap() gives an interval of. An agent without one (NaN bounds: runs tied in every task, as a
    capped score's, or an undefined BCa) has no pair apart, as its reader sees no interval, and a warning says so
    (audit s22: a pilot whose PPO sat at the cap of every task gave power 0 with no word, and with three agents its
    NaN made np.max NaN, so DQN and A2C, far apart, never counted)."""
    low, high = result.intervals[:, 0, 0], result.intervals[:, 0, 1]
    given = ~(np.isnan(low) | np.isnan(high))
    if not given.all():
        metric = result.metrics[0]
        missing = [agent for agent, g in zip(result.agents, given) if not g]
        warn(f"bootstrap() withheld the {metric} interval of {fmt.name_list(missing)} in a simulated data set "
             "(the runs drawn there leave none: tied in every task, say, as at a score's cap); there no pair of it "
             "counts as apart, as a reader of bootstrap()'s print sees no interval of it to compare, so the rate "
             "is at most that of a rule that had its interval")
    separated = given.sum() > 1 and bool(np.max(low[given]) > np.min(high[given]))
    return np.array([separated]), np.array([float(seeds)])


def sentence(result):
    options = result.method_options.get("bootstrap", {})
    metric = options.get("metric", "iqm")
    metric = getattr(metric, "__name__", metric)
    level = options.get("confidence_level", 1 - result.alpha)
    resamples = options.get("n_resamples", POWER_RESAMPLES)
    shown = interval(options)
    asked = options.get("interval")
    whose = ("the thesis's rule, Section 3.1, " if asked == "percentile" else
             "" if asked is not None else
             "bootstrap()'s default, " if shown != "percentile" else
             "bootstrap()'s studentised default gives way to them here, ")
    agents = len(result.simulation["agents"])
    if agents == 2:
        which, level_clause = "two agents", ("non-overlap of two intervals that hold their level is a conservative "
                                             "test, so its rejection rate under no difference is expected below alpha")
    else:  # every pair is a chance to separate (audit s11: 0.09 of null data sets at 8 agents x 26 tasks x 10 runs)
        which = f"any of the {agents * (agents - 1) // 2} pairs of the {agents} agents"
        level_clause = ("each pair's non-overlap is conservative, but with no difference the chance that some pair "
                        "separates can exceed alpha, as it does for a reader comparing every pair")
    return (f"Bootstrap interval separation rejected when the {fmt.signif(100 * level)}% "
            f"stratified-bootstrap {shown} intervals ({whose}{resamples} resamples) of the {metric} of {which} did "
            f"not overlap; {level_clause}.")
