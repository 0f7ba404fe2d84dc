"""The linear mixed model's declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
When normalised scores allow a linear model and you want agent effects with standard errors and degrees of freedom as
lme4 with lmerTest or pbkrtest give them (Satterthwaite or Kenward-Roger), estimated marginal means and adjusted
pairwise contrasts as emmeans prints them. It assumes roughly normal, equal-variance residuals (``plot(kind=
"diagnostics")`` shows them); with skewed or capped scores, or tasks on different scales, prefer the blocked rank test.
"""

from typing import Any

from .._declaration import Backend
from ...cost import Shape, Work

_HERE = "rlstats.methods.mixed"


def citations(result, keys):
    """The paper of the df method the result used, not the other's."""
    other = "kenward1997" if getattr(result, "ddf", None) == "satterthwaite" else "satterthwaite1946"
    return [key for key in keys if key != other]


#: seconds of one run's share of the fit, the df and the tables (warm, 10 agents x 1,000 and 10,000 tasks x 10 runs)
_PER_ROW = 2e-6
#: seconds of one product of a pair's variance and df, agents^2 a pair (numpy's einsum of the contrast rows with
#: cov(beta) and its derivatives, Satterthwaite's or Kenward-Roger's alike): 7.7e-9, 6.3e-9 and 5.9e-9 measured with
#: adjust='holm' at 100, 200 and 250 agents x 2 tasks x 2 seeds (0.38, 4.98 and 11.5 s CPU; audit s31)
_PAIR_FORM_SECONDS = 7e-9
#: bytes a pair's contrast row takes per agent at the call's peak: 19.5 measured at 300 agents (263 MB above the
#: interpreter's for 44,850 pairs x 300 agents), 16 or more at 600 (still growing when stopped; audit s31)
_BYTES_PER_PAIR_AGENT = 24
#: one pair's Tukey p-value (a studentized-range integral: 0.15 ms with df above 25,000, 0.95 ms below) in rows
_ROWS_PER_TUKEY_PAIR = 300


def cost(shape: Shape, options: Any) -> Work:
    """Linear in the runs (the fit reduces them to cell means once; each evaluation of the criterion is linear in
    the cells, issue 43) plus, with Tukey's adjustment, one integral per pair of agents: agents^2 / 2 of them, which
    dominate from about 50 agents (100 agents x 100 tasks x 10 runs: 1.2 s with Satterthwaite's df, 6 s with
    Kenward-Roger's, measured 2026-12-02), plus every pair's variance and df, quadratic forms of its contrast row (a
    coefficient per agent) in agents x agents matrices whatever the adjustment: agents^4 / 2 products
    (:data:`_PAIR_FORM_SECONDS`), and the contrast rows held (:data:`_BYTES_PER_PAIR_AGENT`). Audit s31: without
    them, adjust='holm' at 250 agents x 2 tasks x 2 seeds was estimated at 2 ms and took 11.5 s CPU, 600 agents
    held 1.9 GB still growing after 80 s, and 3,000 agents (a file of 12,000 runs) were admitted."""
    agents = shape.agents
    all_pairs = agents * (agents - 1) // 2
    pairs = all_pairs if getattr(options, "adjust", "tukey") == "tukey" else 0
    forms = all_pairs * agents ** 2
    what = (f"{shape.rows:,} runs" + (f" + {pairs:,} Tukey pairs x {_ROWS_PER_TUKEY_PAIR}" if pairs else "")
            + (f" + {all_pairs:,} pairs' variances and df x {agents:,}^2 agents" if all_pairs > 1 else ""))
    return Work(shape.rows + _ROWS_PER_TUKEY_PAIR * pairs + forms * _PAIR_FORM_SECONDS / _PER_ROW, "row equivalents",
                _PER_ROW, what, memory=_BYTES_PER_PAIR_AGENT * all_pairs * agents, held="pairwise contrasts",
                kept=f"{all_pairs:,} pairs x {agents:,} agents",
                way="fewer agents (subset=, or a frame of the agents to compare): every pair's contrast holds a "
                    "coefficient of every agent")


BACKENDS = (
    Backend(
        name="mixed",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:mixed",
        result=f"{_HERE}._result:MixedResult",
        options=f"{_HERE}._api:MixedOptions",
        citations=("bates2015", "kuznetsova2017", "satterthwaite1946", "kenward1997"),
        cite=f"{_HERE}._backend:citations",
        other_names=(("lmer", "lme4's lmer()", " (by REML, with lmerTest's Satterthwaite df)"),),
        contract=("score ~ agent | task/seed", {}),
        demo=("score ~ agent | task/seed", {}),
        no_replication="its contrasts rest on the model's residual across tasks: with one run per cell it fits agent + "
                       "(1 | task), whose residual is the agent x task interaction, and it has no output per cell",
        no_power=("a power study would refit the model by REML and recompute the df for every simulated data "
                  "set; no vectorised path exists yet, and the rank test's power rule answers the planning "
                  "question for the same designs"),
    ),
)

#: the mixed model's own tidy and glance columns: (column, attribute, printed label, description), read by
#: rlstats.vocabulary through the registry
VOCABULARY = (
    ("den_df", "den_df", "den. df", "denominator degrees of freedom of an F test (Satterthwaite or Kenward-Roger)"),
    ("ddf_method", "ddf", "df method", "how the degrees of freedom were computed: satterthwaite or kenward-roger"),
    ("sigma", "sigma", "sigma", "residual standard deviation of a mixed model"),
    ("sd_task", None, "sd(task)", "standard deviation of the random task intercepts"),
    ("sd_task_agent", None, "sd(task:agent)", "standard deviation of the random task x agent intercepts"),
    ("reml_criterion", "reml_criterion", "REML criterion", "minus twice the restricted log-likelihood at the fit"),
    ("singular", "singular", "singular", "whether a variance component was estimated at (or next to) zero"),
    ("converged", "converged", "converged", "whether the optimiser reached a stationary point of the criterion"),
)
