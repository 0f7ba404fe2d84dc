"""The tuning back end's declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
When each agent was run with several hyperparameter configurations and the claim is about the tuned algorithm: the
expected best score after tuning with k configurations (agents compared at equal budget), the set of configurations
that could be best with a tuned-score interval that accounts for the selection, the complete algorithm (configurations
drawn from the sweep) and hyperparameter sensitivity. Seeds stay nested in their configuration or tuning run, which is
the unit. With one configuration per agent, use the bootstrap or the blocked rank test.
"""

from typing import Any

from .._declaration import Backend, Need
from ...cost import Shape, Work

_HERE = "rlstats.methods.tuning"


def cost(shape: Shape, options: Any) -> Work:
    """The resampled views draw every seed of every configuration again in each resample (2e-8 s a value,
    measured at 300 and 2,000 configurations x 5 and 10 seeds)."""
    return Work(options.n_resamples * shape.rows, "resampled values", 2e-8,
                f"{options.n_resamples:,} resamples x {shape.rows:,} seeds")


BACKENDS = (
    Backend(
        name="tuning",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:tuning",
        result=f"{_HERE}._result:TuningResult",
        options=f"{_HERE}._api:TuningOptions",
        citations=("dodge2019", "jordan2020", "patterson2024", "adkins2024"),
        # the contract data have no hyperparameter column: each agent is one configuration there
        contract=("score ~ agent | task/seed", {"n_resamples": 200}),
        # seeds stay nested in their configuration or tuning run ('| task/tuning_run/seed'): never averaged first
        reads_nesting=True,
        # its cell is an agent's sweep on a task, and its intervals resample seeds within a configuration: the runs
        # each need reads are the selected configuration's seeds, the fewest seeds of a configuration of the sweep,
        # and the sweep's runs
        replication=(
            Need("tuned_interval", "tuned-score intervals", runs=2, per="cell", counted="seeds in the selected "
                 "configuration", cell="sweep",
                 way_on="add seeds to the selected configuration"),
            Need("expected_max", "expected-max bands", runs=2, per="cell", counted="seeds in each configuration",
                 cell="sweep",
                 way_on="the bands resample seeds within each configuration; add seeds"),
            Need("complete", "complete-algorithm intervals", runs=2, per="cell", counted="runs in the sweep",
                 cell="sweep",
                 way_on="add seeds or configurations"),
        ),
        no_demo="it needs hyperparameter columns (config=), which the demo's simulated data do not have; see "
                "vignettes/tuning_procedures.py",
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
    ("in_best_set", None, "in best set", "whether the configuration's probability of being best reaches the threshold"),
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
