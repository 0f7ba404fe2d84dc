"""The Bayesian comparisons' declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
When the question is "is A practically better, practically the same, or practically worse than B?" rather than "is the
null rejected?": give the smallest difference that matters as ``rope=`` (on normalised scores when tasks differ in
scale). The signed-rank model needs only task-level means and no distributional assumption; the hierarchical model
uses the runs as replicates, shrinks the per-task differences towards their mean and gives each task's posterior.
"""

from typing import Any

from .._declaration import Backend, Need
from ...cost import Shape, Work

_HERE = "rlstats.methods.bayes"


def citations(result, keys):
    """The papers of the model the result used (and Vehtari et al.'s R-hat with the chains)."""
    if getattr(result, "model", None) == "hierarchical":
        return [key for key in keys if key != "benavoli2014"]
    return [key for key in keys if key not in ("corani2017", "vehtari2021")]


#: a hierarchical sweep's own work, vectorised over the chains, in chain x pair x task units of 1e-6 s: 4.5e-4 s a
#: sweep whatever the design (session 18: 2 agents x 3, 10 and 30 tasks, 3 x 10, 4 x 20, 2 chains, 4-5e-4 s)
SWEEP_UNITS = 450


#: bytes the signed-rank model keeps per posterior draw and pair at the call's peak: the pair's three region masses
#: and its mean, held twice while the blocks are joined, and the quantiles' copy (audit s31: 105 measured, 15 pairs at
#: 10**6 and 2 x 10**6 draws, 1.70 and 3.27 GB peak RSS; not counted before, 10 agents x 3 tasks with n_samples=10**7
#: were admitted at an estimated minute and needed tens of GB)
BYTES_PER_PAIR_DRAW = 112
#: bytes per posterior draw and task (the prior's pseudo-observation counted as one) that the pseudo-medians add at their
#: peak: every draw's Dirichlet weights, held twice while the blocks are joined, then one pair's renormalised weights,
#: their cumulative sums and the rows read at a sum (audit s38 fixc38; counted from the arrays, not measured)
BYTES_PER_TASK_DRAW = 40


def cost(shape: Shape, options: Any, pairs: int | None = None) -> Work:
    """Each posterior draw of each compared pair sums over the tasks: the signed-rank test's Dirichlet draws
    (4e-8 s a task, measured) or the hierarchical sampler's sweeps, each 1e-6 s a chain, pair and task plus its own
    4.5e-4 s (:data:`SWEEP_UNITS`; measured / estimated 0.73-0.9 on 2 x 3, 2 x 30 and Atari 100k's 15 pairs x 26
    games, 2.2 on the calibration's 4 x 20; the 2e-6 s a chain, pair and task without the sweep's own cost, session
    17's, was 9-29x under on 1 pair x 3 tasks).  The hierarchical
    estimate is the first run's: chains that miss R-hat or ESS are run again longer, within a bound
    (``_api._extension_bound``) that keeps the estimated work with the runs again under ``max_seconds=``.
    ``pairs``: the pairs the hierarchical model fits, where bayes() knows them (it withholds pairs that share fewer
    than 2 tasks or have a task it cannot fit, and fits none of them: audit s28, hier28); by default every pair (the
    signed-rank kernel computes every pair's masses, withheld or not)."""
    if pairs is None:
        pairs = shape.agents - 1 if options.control is not None else shape.agents * (shape.agents - 1) // 2
    if options.model == "hierarchical":
        sweeps = options.warmup + options.draws
        return Work(sweeps * (options.chains * pairs * shape.tasks + SWEEP_UNITS), "posterior draws", 1e-6,
                    f"{sweeps:,} iterations x ({options.chains} chains x {pairs} pairs x {shape.tasks} tasks + "
                    f"{SWEEP_UNITS} for the sweep's own work)")
    return Work(options.n_samples * pairs * shape.tasks, "posterior draws", 4e-8,
                f"{options.n_samples:,} draws x {pairs} pairs x {shape.tasks} tasks",
                memory=options.n_samples * (BYTES_PER_PAIR_DRAW * pairs + BYTES_PER_TASK_DRAW * (shape.tasks + 1)),
                held="posterior draws", kept=f"{options.n_samples:,} draws x {pairs} pairs",
                way="a smaller n_samples (10,000 to 100,000 give Monte Carlo errors well below the differences that "
                    "matter), or compare fewer pairs (control=)")


BACKENDS = (
    Backend(
        name="bayes",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:bayes",
        result=f"{_HERE}._result:BayesResult",
        options=f"{_HERE}._api:BayesOptions",
        citations=("benavoli2014", "benavoli2017", "corani2017", "vehtari2021"),
        cite=f"{_HERE}._backend:citations",
        contract=("score ~ agent | task/seed", {"rope": 0.2, "n_samples": 2000}),
        demo=("score ~ agent | task/seed", {"rope": 0.2}),
        replication=(Need("posterior", "the hierarchical model's per-task variances", runs=2, per="cell",
                          below="refuse", way_on="add runs, or use model='signed_rank', which works on task-level means",
                          when=(("model", "hierarchical"),)),),
        no_power=("a decision rule on posterior probabilities has no size to plan for; simulate the design with "
                  "rlstats.datasets.simulate and look at P(better) and P(rope) directly"),
    ),
)

#: the Bayesian comparisons' own tidy, glance and summary-table columns: (column, attribute, printed label, description), read by
#: rlstats.vocabulary through the registry
VOCABULARY = (
    ("p_better", None, "P(better)", "posterior probability that agent_1 is practically better (beyond the ROPE)"),
    ("p_rope", None, "P(rope)", "posterior probability that the pair is practically equivalent (within the ROPE)"),
    ("p_worse", None, "P(worse)", "posterior probability that agent_1 is practically worse (beyond the ROPE)"),
    ("p_better_next", None, "P(better, next task)",
     "hierarchical model: share of draws in which a next task's difference is most likely beyond the ROPE for agent_1"),
    ("p_rope_next", None, "P(rope, next task)",
     "hierarchical model: share of draws in which a next task's difference is most likely within the ROPE"),
    ("p_worse_next", None, "P(worse, next task)",
     "hierarchical model: share of draws in which a next task's difference is most likely beyond the ROPE against "
     "agent_1"),
    ("pseudo_median", None, "pseudo-median",
     "signed-rank model: posterior median of the pseudo-median difference, the median of the Dirichlet-weighted Walsh "
     "averages of the task differences whose masses p_better, p_rope and p_worse are about (estimate is their mean, "
     "which can have the other sign)"),
    ("rope", "rope", "ROPE", "half-width of the region of practical equivalence, in the units the result states"),
    ("model", "model", "model", "the Bayesian model: signed_rank or hierarchical"),
    ("r_hat", None, "R-hat", "rank-normalised split R-hat of the chains (the largest over the parameters)"),
    ("ess_bulk", None, "ESS", "bulk effective sample size of the chains (the smallest over the parameters)"),
    # the summary's tables (what a LaTeX table heads with the label)
    ("observed", None, "observed",
     "observed difference of the task's means: agent_1 - agent_2, or agent_2 - agent_1 where lower scores are better"),
    ("ordering", None, "ordering", "an ordering of the agents, best first (agents tied in a posterior draw share a place: A = B > C; the ROPE "
     "plays no part)"),
    ("probability", None, "probability", "posterior probability of the ordering"),
    ("parameter", None, "parameter", "a parameter of the hierarchical model whose chains are checked"),
)
