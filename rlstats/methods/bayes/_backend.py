"""The Bayesian comparisons' declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
When the question is "is A practically better, practically the same, or practically worse than B?" rather than "is the
null rejected?": give the smallest difference that matters as ``rope=`` (on normalised scores when tasks differ in
scale). The signed-rank model needs only task-level means and no distributional assumption; the hierarchical model
uses the runs as replicates, shrinks the per-task differences towards their mean and gives each task's posterior.
"""

from .._declaration import Backend, Need

_HERE = "rlstats.methods.bayes"


def citations(result, keys):
    """The papers of the model the result used (and Vehtari et al.'s R-hat with the chains)."""
    if getattr(result, "model", None) == "hierarchical":
        return [key for key in keys if key != "benavoli2014"]
    return [key for key in keys if key not in ("corani2017", "vehtari2021")]


BACKENDS = (
    Backend(
        name="bayes",
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

#: the Bayesian comparisons' own tidy and glance columns: (column, attribute, printed label, description), read by
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
    ("rope", "rope", "ROPE", "half-width of the region of practical equivalence, in the units the result states"),
    ("model", "model", "model", "the Bayesian model: signed_rank or hierarchical"),
    ("r_hat", None, "R-hat", "rank-normalised split R-hat of the chains (the largest over the parameters)"),
    ("ess_bulk", None, "ESS", "bulk effective sample size of the chains (the smallest over the parameters)"),
)
