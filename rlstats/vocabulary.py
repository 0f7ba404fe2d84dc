"""One vocabulary for every quantity a result reports.

Each entry maps a quantity to its attribute name (scipy style), its column in
``tidy()``/``glance()`` (broom's stems in snake_case), its printed label and a
one-line description.  Tidy column names are public API: once released they
never change.  A test checks every tidy and glance column of every back end
against this table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    column: str
    attribute: str | None
    label: str
    description: str


_TERMS = [
    # quantity, attribute, printed label, description
    ("term", None, "term", "what the row is about (a test, a metric or a comparison)"),
    ("agent", None, "agent", "the arm (agent) a row describes"),
    ("agent_1", None, "agent 1", "first agent of a pairwise comparison"),
    ("agent_2", None, "agent 2", "second agent of a pairwise comparison"),
    ("task", None, "task", "the block (task) a row describes"),
    ("metric", None, "metric", "name of an aggregate metric"),
    ("estimate", "estimate", "estimate", "point estimate of the row's quantity"),
    ("std_error", "std_error", "std. error", "standard error of the estimate"),
    ("statistic", "statistic", "statistic", "value of the test statistic"),
    ("df", "df", "df", "degrees of freedom of the reference distribution"),
    ("p_value", "pvalue", "p-value", "p-value (unadjusted)"),
    ("p_adjusted", None, "adj. p-value", "p-value adjusted for multiple comparisons"),
    ("adjustment", None, "adjustment", "multiple-comparison adjustment used for p_adjusted"),
    ("significant", None, "significant", "whether the comparison is significant at alpha"),
    ("conf_low", None, "lower", "lower bound of the confidence interval"),
    ("conf_high", None, "upper", "upper bound of the confidence interval"),
    ("conf_level", None, "confidence level", "confidence level of the interval"),
    ("mean_rank", "mean_ranks", "mean rank", "mean within-task rank on the 1..k scale (1 = best)"),
    ("rank_sum", None, "rank sum", "sum over tasks of the within-task mean rank of the agent's runs"),
    ("n_tasks_present", None, "tasks", "number of tasks in which the agent has runs"),
    ("n_shared_tasks", None, "shared tasks", "number of tasks in which both agents of a pair have runs"),
    ("n_runs", None, "runs", "number of runs of the agent"),
    ("critical_difference", "critical_difference", "critical difference",
     "smallest difference of mean ranks declared significant (balanced designs)"),
    ("method", "method", "method", "name of the statistical method"),
    ("variant", "variant", "variant", "which statistic of a family was computed"),
    ("alternative", "alternative", "alternative", "alternative hypothesis"),
    ("pvalue_method", "pvalue_method", "p-value method", "how the p-value was obtained"),
    ("pvalue_mc_se", "pvalue_mc_se", "Monte Carlo SE", "Monte Carlo standard error of the p-value"),
    ("n_resamples", "n_resamples", "resamples", "number of Monte Carlo resamples or permutations"),
    ("connected", "connected", "connected", "whether every pair of agents is linked through shared tasks"),
    ("n_agents", "n_agents", "agents", "number of agents compared"),
    ("n_tasks", "n_tasks", "tasks", "number of tasks (blocks) used by the test"),
    ("n_obs", "nobs", "observations", "number of runs used by the test"),
]

VOCABULARY = {column: Term(column, attribute, label, description)
              for column, attribute, label, description in _TERMS}


def label(column):
    """The printed label of a tidy column."""
    return VOCABULARY[column].label


def unknown_columns(columns):
    """The columns that are not in the vocabulary (a test asserts this is empty)."""
    return [c for c in columns if c not in VOCABULARY]
