"""The per-task table's declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
For the per-task table of a paper: each task's best agent in bold and a dagger on the agents that may also be the
best (together a confidence set for the best agent of each task, with its coverage measured in the calibration
table), effect sizes against the best, and, with ``aggregate="bootstrap"``, an aggregate row over tasks.
``to_latex()`` writes the table for a paper. It answers "which agents could be best on this task", not whether
agents differ overall: the blocked rank test answers that.
"""

from typing import Any

from .._declaration import Backend, Need
from ...cost import BYTES_PER_STATISTIC, Shape, Work
from ...grammar import count

_HERE = "rlstats.methods.task_table"
#: the way on when runs are too few to compare agents within a task
_ACROSS = ("add runs, or compare the agents across tasks with a rank test: "
           "rlstats.compare(df, \"score ~ agent | task\")")


#: seconds and bytes of each task's (agent, agent) entry: the pairwise p-values, their adjustment and the effect
#: sizes fill task x agent x agent arrays (audit s37 bounds37, measured with 2 runs a cell: 1,000 and 2,000 agents on
#: one task, 500 on four: 3.7-4.5e-6 s and 240-244 bytes an entry; uncounted before, so 10,000 agents of 2 runs, a
#: 20,000-row frame estimated at 0.6 s, ran 95 s and ended in MemoryError)
PAIR_ENTRY_SECONDS = 4e-6
PAIR_ENTRY_BYTES = 250


def cost(shape: Shape, options: Any) -> Work:
    """The aggregate row's bootstrap draws every run again in each resample (2.2e-8 s a value, measured); the
    per-task tests are a pass over the rows that takes as long as 1,400 such values (3e-5 s a row), and each task's
    agent x agent entries (:data:`PAIR_ENTRY_SECONDS`, :data:`PAIR_ENTRY_BYTES`). The aggregate row keeps each
    agent's resampled statistic, as bootstrap() does (:data:`rlstats.cost.BYTES_PER_STATISTIC`; audit s31: not
    counted, 10 agents with n_resamples=10**7 were admitted and needed some 5 GiB)."""
    per_value = 2.2e-8
    resamples = options.n_resamples if options.aggregate is not None else 0
    entries = shape.tasks * shape.agents ** 2
    kept = f"{resamples:,} resamples x {shape.agents} agents, the aggregate row" if resamples else ""
    kept += (" + " if kept else "") + f"{count(shape.tasks, 'task')} x {shape.agents:,} x {shape.agents:,} agents' pairs"
    resampled, paired = BYTES_PER_STATISTIC * resamples * shape.agents, PAIR_ENTRY_BYTES * entries
    return Work(shape.rows * (resamples + 1400) + entries * PAIR_ENTRY_SECONDS / per_value, "resampled values",
                per_value, f"({resamples:,} resamples + 1,400) x {shape.rows:,} runs + {entries:,} pairs' entries",
                memory=resampled + paired, kept=kept, held="resamples and pairs' entries" if resamples else
                "pairs' entries",
                way="a smaller n_resamples (10,000 to 100,000 give Monte Carlo errors well below the differences that "
                    "matter), or leave the aggregate row out (aggregate=None)" if resampled > paired else
                    "fewer agents (subset=, or a frame of the agents to compare): each task's table compares every "
                    "pair of agents")


BACKENDS = (
    Backend(
        name="task_table",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:task_table",
        result=f"{_HERE}._result:TaskTableResult",
        options=f"{_HERE}._api:TaskTableOptions",
        citations=("mogstad2024", "holm1979", "neubert2007", "brunner2000", "vargha2000", "steiger1997"),
        contract=("score ~ agent | task", {}),
        demo=("score ~ agent | task", {}),
        replication=(
            # a one-sided test of an ordered pair needs a spread on both sides: an agent with one run in a task can be
            # neither excluded nor shown to be possibly best there (its mark would count untested pairs)
            Need("possibly_best", "possibly-best marks", runs=2, per="cell", way_on=_ACROSS),
            Need("std_dev", "standard deviations (\u00b1 sd)", runs=2, per="cell", way_on="add runs"),
            # Welch's t, Hedges' g and the intervals of A12 and of the difference read both agents' spreads
            Need("comparisons", "comparisons with the best (tests, effect-size intervals)", runs=2, per="pair",
                 way_on=_ACROSS),
            # rlstats.bootstrap's own need: an agent with one run in every task has nothing to resample
            Need("aggregate", "aggregate-row intervals", runs=2, per="agent", when=(("aggregate", "bootstrap"),),
                 way_on="add runs, or resample tasks as well: rlstats.bootstrap(df, \"score ~ agent | task\", "
                        "task_bootstrap=True)"),
        ),
        no_power="its possibly-best sets and effect sizes are confidence statements per task, whose coverage "
                 "calibration.csv measures; there is no one decision for power() to count",
    ),
)

#: the tidy and glance columns only this folder's results report: (column, attribute, printed label,
#: description) rows, which rlstats.vocabulary reads through the registry
VOCABULARY = (
    ("best", None, "best", "whether the agent is the best of the task by the table's statistic (all tied ones)"),
    ("possibly_best", None, "possibly best",
     "whether the agent is in the task's confidence set for the best agent (no other agent significantly better)"),
    # new-user trial s38: named p_adjusted, it read as R's p.adjust() of the p_value beside it, which it can be below
    ("p_exclusion", "p_exclusion", "exclusion p-value",
     "the p-value for dropping the agent from the possibly-best set: the smallest multiplicity-adjusted p-value of "
     "any other agent against it (possibly best where above alpha); not an adjusted p_value, which it can be below"),
    ("welch_t", None, "Welch t", "Welch's t of the best against the agent (positive when the best is better)"),
    ("welch_df", None, "Welch df", "Welch-Satterthwaite degrees of freedom of welch_t"),
    ("diff_low", None, "diff. lower",
     "lower bound of Welch's interval of the mean difference, best minus agent, at the effect sizes' level"),
    ("diff_high", None, "diff. upper",
     "upper bound of Welch's interval of the mean difference, best minus agent, at the effect sizes' level"),
    ("a12", None, "A12", "Vargha-Delaney A12: probability that a run of the best beats a run of the agent (ties half)"),
    ("a12_low", None, "A12 lower",
     "lower bound of the A12 interval (score type; Brunner-Munzel with effect_intervals='per_pair')"),
    ("a12_high", None, "A12 upper",
     "upper bound of the A12 interval (score type; Brunner-Munzel with effect_intervals='per_pair')"),
    ("cliffs_delta", None, "Cliff's delta", "Cliff's delta = 2 A12 - 1"),
    ("hedges_g", None, "Hedges' g", "bias-corrected standardised mean difference of the best minus the agent"),
    ("hedges_g_low", None, "g lower", "lower bound of Hedges' g interval (noncentral t)"),
    ("hedges_g_high", None, "g upper", "upper bound of Hedges' g interval (noncentral t)"),
    # issue 41 item 3: the same effect sizes against the agent ranked just above (autorank #36)
    ("next_agent", None, "next-ranked", "the agent ranked just above the agent in its task (none for the best)"),
    ("a12_next", None, "A12 vs next",
     "Vargha-Delaney A12: probability that a run of the next-ranked agent beats a run of the agent (ties half)"),
    ("a12_next_low", None, "A12 vs next lower", "lower bound of the A12 interval against the next-ranked agent"),
    ("a12_next_high", None, "A12 vs next upper", "upper bound of the A12 interval against the next-ranked agent"),
    ("hedges_g_next", None, "g vs next",
     "bias-corrected standardised mean difference of the next-ranked agent minus the agent"),
    ("hedges_g_next_low", None, "g vs next lower", "lower bound of Hedges' g interval against the next-ranked agent"),
    ("hedges_g_next_high", None, "g vs next upper", "upper bound of Hedges' g interval against the next-ranked agent"),
    ("diff_next_low", None, "diff. vs next lower",
     "lower bound of Welch's interval of the mean difference, next-ranked agent minus the agent"),
    ("diff_next_high", None, "diff. vs next upper",
     "upper bound of Welch's interval of the mean difference, next-ranked agent minus the agent"),
)
