"""The tuning back end's declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
When each agent was run with several hyperparameter configurations and the claim is about the tuned algorithm: the
expected best score after tuning with k configurations (agents compared at equal budget), the set of configurations
that could be best with a tuned-score interval that accounts for the selection, the complete algorithm (configurations
drawn from the sweep) and hyperparameter sensitivity. Seeds stay nested in their configuration or tuning run, which is
the unit. With one configuration per agent, use the bootstrap or the blocked rank test.
"""

from collections.abc import Sequence
from typing import Any

from .._declaration import Backend, Need
from ...cost import Shape, Work

_HERE = "rlstats.methods.tuning"

#: seconds per unit of each part of a call (2 cores, one thread; ``benchmarks/cost_calibration.py``, issue 43 item
#: 2), measured view by view at 100-10,000 configurations x 3-30 seeds and 500-20,000 resamples
_PER = {
    "read": 1e-6,  # a seed's row: the Design, the sweeps and the tables
    "best_set": 2e-9,  # a resample x seed of the pruned arg-max search (0.2-4e-9 as the configurations separate)
    "complete": 6.5e-9,  # a resample x seed of the two-stage bootstrap
    "sensitivity": 5e-7,  # a seed's row, percentile-normalised
    "band_draw": 7e-9,  # a resample x seed of the percentile band's seed resamples
    "band_sum": 5.5e-10,  # a resample x configuration x budget x sampling of the percentile band's order sums
    "moments": 5e-8,  # a configuration x budget x sampling of the skew-t band's moments
}
#: bytes the best set's search takes per resample at its peak: a configuration of the block drawn at once (at most
#: _kernels.BLOCK = 64) and each sweep's kept maxima; measured (peak RSS, 3e5 resamples, audit s18 perf18): 9
#: configurations x 4 seeds 224 bytes (1 sweep), 250 (2 and 3 sweeps); 100 configurations 1,154; 2,000 (1e5) 1,683
_BEST_SET_BYTES, _SWEEP_BYTES = 32, 32
#: bytes the expected-max curves' percentile band takes per resample: a budget of every sweep's kept curves, and a
#: budget of the largest sweep's temporaries; measured (peak RSS, views=["expected_max"], 1e5 and 3e4 resamples): one
#: sweep of 9, 100 and 1,000 configurations (200 budgets) 384, 3,354-4,012 and 7,504 bytes; 6 sweeps of 100, 13,811
_BAND_BYTES, _BAND_PEAK_BYTES = 24, 32
#: the fewest configurations of a sweep for the complete algorithm's default interval (tuning.complete_interval rows)
COMPLETE_CONFIGURATIONS = 30
COMPLETE_WAY_ON = ("add configurations drawn from the hyperparameter distribution (with fewer, the spread of a few "
                   "configurations' means misses skewed landscapes; the estimate stands)")
#: the nanosecond is the unit the message counts in: each part's count weighted by its seconds
_NS = 1e-9


def _budgets(configurations: int, budgets: Sequence[int] | None) -> int:
    """How many budgets a sweep's curve has (``_kernels.budget_grid``: all up to 200, then about 200)."""
    return len(budgets) if budgets is not None else min(configurations, 200)


def cost(shape: Shape, options: Any, configurations: Sequence[int] | None = None) -> Work:
    """Each asked view's work, counted from the seeds (``shape.rows``), the resamples and each sweep's number of
    configurations (``configurations``, one count a sweep, known once the sweeps are read; without them, one
    configuration a cell, as when nothing was tuned).

    The best set and the complete view resample every seed of every configuration (the best set's search prunes
    configurations that cannot win, so its constant is the middle of what it measured); the expected-max curves'
    default skew-t band reads no resample but forms moments over configurations x budgets, each of both samplings;
    the percentile band resamples seeds and sums each resample's ordered means over configurations x budgets.
    """
    # without views (a registry's generic options): the default views, tuning's VIEWS
    views = tuple(getattr(options, "views", None) or ("expected_max", "best_set", "complete", "sensitivity"))
    band = getattr(options, "band", "skew_t")
    budgets = getattr(options, "budgets", None)
    B, rows = int(options.n_resamples), int(shape.rows)
    sizes = [int(g) for g in configurations] if configurations is not None else [1] * max(int(shape.cells), 1)
    fewest = min(sizes)
    # configurations x budgets over the sweeps (both samplings), plus the common grid of the mean over tasks where a
    # sweep's own grid differs from it
    grid = 2 * sum(g * (_budgets(g, budgets) + (_budgets(fewest, budgets) if budgets is None and g != fewest
                                                 and shape.tasks > 1 else 0)) for g in sizes)
    seconds = {"read": rows * _PER["read"]}
    what = [f"{rows:,} seeds read"]
    # the complete view resamples only for its two-stage interval; its default reads the configurations' means
    two_stage = getattr(options, "complete_interval", "skew_t") == "two_stage"
    resampled = [view for view in ("best_set", "complete") if view in views and (view != "complete" or two_stage)]
    for view in resampled:
        seconds[view] = B * rows * _PER[view]
    if "expected_max" in views and band == "percentile":
        seconds["band"] = B * (rows * _PER["band_draw"] + grid * _PER["band_sum"])
        resampled.append("percentile band")
        what.append(f"{B:,} resamples x {grid // 2:,} configuration-budgets x 2 samplings (percentile band)")
    elif "expected_max" in views:
        seconds["moments"] = grid * _PER["moments"]
        what.append(f"{grid // 2:,} configuration-budgets x 2 samplings (skew-t band)")
    if resampled:
        what.insert(1, f"{B:,} resamples x {rows:,} seeds ({', '.join(v.replace('_', ' ') for v in resampled)})")
    if "sensitivity" in views:
        seconds["sensitivity"] = rows * _PER["sensitivity"]
    # the best set holds a block of at most BLOCK configurations' means a resample, a sweep at a time, and keeps each
    # sweep's largest mean and winner a resample; the percentile band keeps every sweep's resampled curves (budgets x
    # 2 samplings) and one sweep's temporaries; the views run one after another, so the larger is the peak
    from ...format import count
    from ._kernels import BLOCK

    widest = min(max(sizes), BLOCK)
    best_set = B * (_BEST_SET_BYTES * widest + _SWEEP_BYTES * len(sizes)) if "best_set" in views else 0
    steps = [_budgets(g, budgets) for g in sizes]
    curves = B * (_BAND_BYTES * sum(steps) + _BAND_PEAK_BYTES * max(steps)) \
        if "expected_max" in views and band == "percentile" else 0
    kept = (f"{B:,} resamples x {widest:,} configurations' means at once and {len(sizes):,} sweeps' winners (the best "
            "set)") if best_set >= curves else (f"{B:,} resamples x {sum(steps):,} budgets' curves over "
                                                f"{count(len(sizes), 'sweep')} (the percentile band)")
    return Work(sum(seconds.values()) / _NS, "ns of counted work", _NS, " + ".join(what),
                memory=max(best_set, curves), kept=kept)


BACKENDS = (
    Backend(
        name="tuning",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:tuning",
        result=f"{_HERE}._result:TuningResult",
        options=f"{_HERE}._api:TuningOptions",
        citations=("dodge2019", "jordan2020", "patterson2024", "adkins2024"),
        # its configurations are named by config= (each agent one configuration is refused: nothing to tune, new-user
        # trial s38): the contract tests give the simulated runs a learning rate 'lr' of two values a sweep
        # (tests/conftest.py, contract_frame)
        contract=("score ~ agent | task/seed", {"n_resamples": 200, "config": "lr"}),
        # seeds stay nested in their configuration or tuning run ('| task/tuning_run/seed'): never averaged first
        reads_nesting=True,
        # its cell is an agent's sweep on a task, and its intervals resample seeds within a configuration: the runs
        # each need reads are the selected configuration's seeds, the fewest seeds of a configuration of the sweep,
        # and the sweep's runs
        replication=(
            Need("tuned_interval", "tuned-score intervals", runs=2, per="cell", counted="seeds in the selected "
                 "configuration", cell="sweep", holder="selected configuration",
                 way_on="add seeds to the selected configuration"),
            # a configuration with one seed is the same value in every seed resample, its score taken as certain:
            # with every configuration so, the winner would be best with probability 1 and its optimism 0 however
            # close the configurations are; with some, the best set missed the truly best configuration in 0.13-0.27
            # of simulated sweeps, 0.03 with 5 seeds each (audit s15; tests/reference/tuning_one_seed_best_set.py)
            Need("best_set", "best-set probabilities and the optimism correction", runs=2, per="cell",
                 counted="seeds in each configuration", cell="sweep", holder="fewest-seeded configuration",
                 way_on="the bootstrap resamples seeds within each configuration, so a configuration of one seed "
                        "enters every resample as certain; add seeds to it, or leave it out of the data"),
            Need("expected_max", "expected-max bands", runs=2, per="cell", counted="seeds in each configuration",
                 cell="sweep", holder="fewest-seeded configuration",
                 way_on="the bands resample seeds within each configuration; add seeds"),
            Need("complete", "complete-algorithm intervals", runs=2, per="cell", counted="runs in the sweep",
                 cell="sweep", when=(("complete_interval", "two_stage"),),
                 way_on="add seeds or configurations"),
            # the default interval's spread is the configurations': below COMPLETE_CONFIGURATIONS (in effect, with
            # weights=) no interval held its level on every landscape of the calibration grid (tuning.complete_interval)
            Need("complete", "complete-algorithm intervals", runs=COMPLETE_CONFIGURATIONS,
                 per="cell", counted="configurations (in effect with weights=: 1 / the sum of squared weight shares)",
                 cell="sweep",
                 when=(("complete_interval", "skew_t"),),
                 way_on=COMPLETE_WAY_ON),
        ),
        # the wheel holds no vignettes: help() ships with it, the vignette with the source distribution (cli24)
        no_demo="it needs hyperparameter columns (config=), which the demo's simulated data do not have; see "
                "help(rlstats.tuning) and the vignette vignettes/tuning_procedures.py of the source distribution",
        no_power="its views are estimates with intervals, not one decision for power() to count; the tuned-score "
                 "interval's coverage is measured in calibration.csv (tuning.best_interval)",
    ),
)

#: the tidy and glance columns only this folder's results report (and its views' columns): (column, attribute,
#: printed label, description) rows, which rlstats.vocabulary reads through the registry
VOCABULARY = (
    ("config", None, "configuration", "the hyperparameter configuration a row describes (the selected one)"),
    ("n_configs", None, "configurations", "number of hyperparameter configurations in a sweep"),
    ("probability_best", None, "P(best)",
     "probability that the configuration is the best under the bootstrap of the whole selection (ties share)"),
    ("probability_best_or_tied", None, "P(best or tied)",
     "share of the resamples in which the configuration is best or tied for best (ties do not share it, so it can "
     "exceed probability_best): the best set's rule reads it; missing where it is withheld"),
    ("in_best_set", None, "in best set",
     "whether the configuration is best, or tied for best, in at least the threshold's share of the resamples "
     "(probability_best_or_tied; probability_best shares ties, so it can be lower; missing where it is withheld)"),
    ("selected", None, "selected", "whether the configuration has the best mean (the one tuning selects)"),
    ("mean_selected", None, "selected mean", "the selected configuration's own mean score (optimistic)"),
    ("optimism", None, "optimism", "bootstrap estimate of how much select-then-report overstates the tuned score"),
    ("n_best_set", None, "best set size", "number of configurations in the best set"),
    ("heldout_estimate", None, "held-out mean", "the selected configuration's mean over runs kept out of tuning"),
    ("heldout_low", None, "held-out lower", "lower bound of the held-out mean's Student-t interval"),
    ("heldout_high", None, "held-out upper", "upper bound of the held-out mean's Student-t interval"),
    ("heldout_runs", None, "held-out runs", "number of held-out runs of the selected configuration"),
    ("budget", None, "budget", "number of configurations tried when tuning (k of the expected maximum)"),
    ("sampling", None, "sampling", "whether configurations are drawn without or with replacement"),
    ("sensitivity", None, "sensitivity", "per-task tuned minus cross-task tuned score (percentile-normalised)"),
    ("per_task_tuned", None, "per-task tuned", "mean over tasks of each task's best configuration"),
    ("cross_task_tuned", None, "cross-task tuned", "the best single configuration's mean over tasks"),
    ("effective_dimension", None, "effective dimension",
     "fewest hyperparameters tuned per task that reach the fraction of the per-task tuned score"),
    ("tuned_per_task", None, "tuned per task", "the hyperparameters tuned per task (the others fixed across tasks)"),
    ("n_tuned", None, "hyperparameters tuned", "number of hyperparameters tuned per task"),
)
