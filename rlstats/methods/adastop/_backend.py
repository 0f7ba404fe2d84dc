"""AdaStop's and the permutation test's declarations (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
``adastop`` while runs are still being made and seeds are expensive: after each batch of ``n`` runs per agent it
decides which comparisons are settled and which agents need more runs, keeping the family-wise error below
``alpha`` over at most ``K`` batches (:class:`rlstats.AdaStop` keeps the state between batches, and
``rlstats adastop update`` drives it from the command line). ``permutation`` is the same test with one interim,
for runs already made, and ``compare()``'s default without blocks (``score ~ agent`` on one task); it needs the same
number of runs of every agent in a task (the published HalfCheetah runs, 192 of SAC and 193 of TD3, are refused with
that message). Both compare mean scores task by task; to rank agents across many tasks on different scales, use the
blocked rank test.
"""

from typing import Any

from .._declaration import Backend, Need, PowerRule
from ...cost import Shape, Work

_HERE = "rlstats.methods.adastop"

#: how the note on batches that repeat an earlier one begins (``_api._repeat_notes``; power() leaves it out of a
#: pilot's resampled data sets, whose runs are drawn with replacement)
REPEATED_RUNS = "runs that repeat an earlier interim's exactly"
#: How the words say the decision ``equal`` (audit s35): the test did not reject, which shows no equality.  ``equal``,
#: the AdaStop paper's and its reference implementation's name, stays the value of ``decisions["decision"]`` (and of
#: ``history``'s, ``n_equal`` in ``glance()``), which code ported from it filters on: renamed, such a filter would
#: match nothing and say nothing.  Print, summary, LaTeX, report, plots and the command's progress say these words.
NO_DIFFERENCE = "no difference found"
#: the decision matrix's mark of it (``decision_matrix()`` and its plot): "=" read as equality (audit s35)
NO_DIFFERENCE_MARK = "ns"
#: the decision values as prose says them (``equal`` as :data:`NO_DIFFERENCE`; the others as they are)
DECISION_WORDS = {"equal": NO_DIFFERENCE}
#: the decision values as the decision matrix marks them (``decision_matrix()``, its print and its plot alike)
DECISION_SYMBOLS = {"larger": ">", "smaller": "<", "equal": NO_DIFFERENCE_MARK, "continue": "?", "withheld": "\u2013"}
_FORMULA = "score ~ agent | task"
_ACROSS = "compare the agents across tasks with a rank test: rlstats.compare(df, \"score ~ agent | task\")"
#: both compare agents' runs within a task: with one run each every relabelling is the same split, p = 1.  A design
#: where no cell has two runs is refused; elsewhere a task's comparisons of an agent with one run there are withheld
#: (decision "withheld", no p-value) and the other agents of the task are tested without it
_WITHIN_TASK = (Need("decisions", "per-task comparisons of agents", runs=2, per="design", below="refuse",
                     way_on="a permutation test with one run per agent has p = 1 whatever the scores; "
                            f"add runs, or {_ACROSS}"),
                Need("decision", "per-task comparisons (decisions and p-values)", runs=2, per="cell",
                     way_on=f"a permutation test with one run per agent has p = 1 whatever the scores; add runs "
                            f"on those tasks, or {_ACROSS}"),)


def cost(shape: Shape, options: Any) -> Work:
    """AdaStop's and the permutation test's (one interim) formula, the one both calls are admitted with: at most
    every run is permuted once a resample at some interim: 2e-8 s a value where paths are pairwise slot
    choices (holm, the default since s29, and pairwise; round s11 of benchmarks/README.md, where 3.7e-8 had been
    2-5x over: AdaStop's calls 0.52-0.64, power('adastop') 0.20-0.31), 4e-8 where three agents or more are
    relabelled jointly (permutations="joint"; 4.3-5.7e-8 measured at 3-8 agents x 5-26 tasks x 10 runs, which 2e-8 left 2.2-4x under: audit s16). A bound, not a forecast:
    a call that stops at an early interim permutes less (power('adastop') at an effect of one within-cell SD took
    0.3-0.4 of it, with no effect 0.57)."""
    joint = options.permutations == "joint" and shape.agents >= 3  # as _api's schedule decides
    return Work(options.n_resamples * shape.rows, "permuted values", 4e-8 if joint else 2e-8,
                f"{options.n_resamples:,} permutations x {shape.rows:,} runs" + (" (joint)" if joint else ""))


BACKENDS = (
    Backend(
        name="adastop",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:adastop",
        result=f"{_HERE}._result:AdaStopResult",
        options=f"{_HERE}._api:AdaStopOptions",
        citations=("mathieu2023",),
        replication=_WITHIN_TASK,
        contract=(_FORMULA, {"n": 2, "n_resamples": 200, "alpha": 0.2}),
        demo=(_FORMULA, {"n": 5}),
        power=PowerRule(
            key=13, label="AdaStop", decide=f"{_HERE}._power:decide", sentence=f"{_HERE}._power:adastop_sentence",
            call=f"{_HERE}._power:adastop_call", outcomes=f"{_HERE}._api:adastop_outcomes",
            decide_outcomes=f"{_HERE}._power:decide_outcomes", check=f"{_HERE}._power:check",
            seed_unit=f"{_HERE}._power:seed_unit", check_seeds=f"{_HERE}._power:check_seeds",
            plan=f"{_HERE}._power:plan", per_task=True, called="AdaStop", reports_runs=True,
            resampled_messages=(REPEATED_RUNS,)),
    ),
    Backend(
        name="permutation",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:permutation",
        result=f"{_HERE}._result:PermutationResult",
        options=f"{_HERE}._api:AdaStopOptions",
        citations=("mathieu2023",),
        replication=_WITHIN_TASK,
        default_for="without blocks",
        contract=(_FORMULA, {"n_resamples": 200}),
        demo=(_FORMULA, {"n_resamples": 2000}),
        power=PowerRule(
            key=14, label="permutation test", decide=f"{_HERE}._power:decide",
            sentence=f"{_HERE}._power:permutation_sentence", outcomes=f"{_HERE}._api:permutation_outcomes",
            decide_outcomes=f"{_HERE}._power:decide_outcomes", per_task=True, called="the permutation test",
            level_spent=f"{_HERE}._api:permutation_level_spent",
            # audit s30 (spread30), the rank test's pilots: the rate per task and simulation, 1,000 tests a pilot;
            # the medians added in audit s31 (the same run, reproduced digit for digit); the true power 0.275 -> 0.278
            # when audit s35 drew the model's data sets a block at a time; the pilots' rows measured again on today's
            # pilot draws (each cell's runs from a stream of its own since audit s34 powerstream34) in audit s36
            # calib36, the same script and seeds (3 runs: 0.292, 0.434, 0.681 and 0.26, 0.32, 0.366 before)
            pilot_spread=(0.278, ((3, (0.287, 0.438, 0.701), (0.268, 0.307, 0.363)),
                                  (5, (0.208, 0.344, 0.523), (0.262, 0.299, 0.343)),
                                  (10, (0.244, 0.297, 0.385), (0.26, 0.284, 0.306))))),
    ),
)

#: the incremental AdaStop, public beside the back ends
PUBLIC = {"AdaStop": f"{_HERE}._incremental:AdaStop"}

#: the tidy, glance and summary-table columns only this folder's results report: (column, attribute, printed label,
#: description[, headed by the label in every format]) rows, which rlstats.vocabulary reads through the registry
VOCABULARY = (
    ("decision", None, "decision",
     "sequential decision: agent_1 is larger / smaller than agent_2, equal (not rejected: no difference found, "
     "which does not show them equal; the AdaStop paper's name), continue (undecided), or withheld (an agent has "
     "too few runs on the task)"),
    ("interim", None, "interim", "interim (batch) at which a sequential decision was taken, or the last one tested"),
    # headed so in every format, beside the pair's "1st agent" and "2nd agent" (audit s27: "runs 1" shown nowhere)
    ("n_1", None, "runs of 1st", "runs of agent_1 used by the comparison", True),
    ("n_2", None, "runs of 2nd", "runs of agent_2 used by the comparison", True),
    ("n_rejected", None, "rejected", "number of comparisons rejected (larger or smaller)"),
    ("n_equal", None, NO_DIFFERENCE, "number of comparisons not rejected, decision 'equal': no difference found"),
    ("n_undecided", None, "undecided", "number of comparisons left undecided"),
    ("n_withheld", None, "withheld", "number of comparisons withheld: an agent has too few runs on the task"),
    ("batch_size", "batch_size", "batch size", "runs per agent per interim of a sequential test"),
    ("max_interims", "max_interims", "max. interims", "maximum number of interims (K) of a sequential test"),
    ("n_runs_used", None, "runs used", "number of runs a sequential test used"),
    ("boundary", None, "boundary",
     "rejection boundary of |estimate| the comparison faced at its interim (AdaStop, the permutation test)"),
    ("boundary_mc_se", None, "boundary MC SE",
     "Monte Carlo standard error of the boundary (0 where its permutation paths are enumerated exactly)"),
    # the summary's tables (what a LaTeX table heads with the label)
    ("n_available", None, "available", "runs of the agent given to a sequential test (used or not)"),
    ("mean", None, "mean", "mean score of the runs a sequential test used"),
    ("accept_boundary", None, "accept boundary",
     "early-acceptance boundary of |estimate|: a comparison below it stops, no difference found (beta > 0)"),
    ("accept_boundary_mc_se", None, "accept boundary MC SE", "Monte Carlo standard error of the accept boundary"),
    ("max_statistic", None, "max. statistic", "largest |mean difference| among the comparisons of a step-down step"),
    ("min_statistic", None, "min. statistic", "smallest |mean difference| among the comparisons of a step-down step"),
    ("action", None, "action", "what a step-down step did: reject, accept or none"),
    ("alpha_divisor", None, "alpha divisor",
     "a step-down step tests each comparison at alpha / this: Holm's c, the comparisons not yet rejected "
     "(permutations=\"holm\"); 1 where the step tests its set jointly at alpha"),
    ("n_paths", None, "paths", "permutation paths at an interim (all of them, or the Monte Carlo sample)"),
    ("exact", None, "exact", "whether the interim's permutation paths are enumerated exactly"),
    ("paths_beyond", None, "paths beyond", "permutation paths allowed above the boundary at an interim"),
    ("level_interim", None, "interim level", "level spent at an interim: paths beyond / paths"),
    ("level", None, "level", "level spent up to an interim (cumulated)"),
    ("accept_level", None, "accept level", "early-acceptance level spent up to an interim (cumulated; beta > 0)"),
)
