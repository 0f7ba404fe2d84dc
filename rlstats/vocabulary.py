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
    ("withheld", None, "withheld",
     "whether the comparison's decision was withheld because the omnibus test did not reject (p-values kept)"),
    ("conf_low", None, "lower", "lower bound of the confidence interval"),
    ("conf_high", None, "upper", "upper bound of the confidence interval"),
    ("conf_level", None, "confidence level", "confidence level of the interval"),
    ("conf_low_simultaneous", None, "lower (simultaneous)",
     "lower bound of a band covering a whole curve at the confidence level"),
    ("conf_high_simultaneous", None, "upper (simultaneous)",
     "upper bound of a band covering a whole curve at the confidence level"),
    ("step", "steps", "step", "training step of a learning curve (the grid the curves are on)"),
    ("n_steps", None, "steps", "number of steps of the curves"),
    ("std_dev", None, "sd", "standard deviation of the runs in a cell"),
    ("best", None, "best", "whether the agent is the best of the task by the table's statistic (all tied ones)"),
    ("possibly_best", None, "possibly best",
     "whether the agent is in the task's confidence set for the best agent (no other agent significantly better)"),
    ("welch_t", None, "Welch t", "Welch's t of the best against the agent (positive when the best is better)"),
    ("welch_df", None, "Welch df", "Welch-Satterthwaite degrees of freedom of welch_t"),
    ("diff_low", None, "diff. lower", "lower bound of Welch's interval of the mean difference, best minus agent"),
    ("diff_high", None, "diff. upper", "upper bound of Welch's interval of the mean difference, best minus agent"),
    ("a12", None, "A12", "Vargha-Delaney A12: probability that a run of the best beats a run of the agent (ties half)"),
    ("a12_low", None, "A12 lower", "lower bound of the A12 interval (Brunner-Munzel)"),
    ("a12_high", None, "A12 upper", "upper bound of the A12 interval (Brunner-Munzel)"),
    ("cliffs_delta", None, "Cliff's delta", "Cliff's delta = 2 A12 - 1"),
    ("hedges_g", None, "Hedges' g", "bias-corrected standardised mean difference of the best minus the agent"),
    ("hedges_g_low", None, "g lower", "lower bound of Hedges' g interval (noncentral t)"),
    ("hedges_g_high", None, "g upper", "upper bound of Hedges' g interval (noncentral t)"),
    ("n_steps_different", None, "steps different",
     "number of steps at which two curves differ, the error controlled over all steps"),
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
    ("decision", None, "decision",
     "sequential decision: agent_1 is larger / smaller / equal than agent_2, or continue (undecided)"),
    ("interim", None, "interim", "interim (batch) at which a sequential decision was taken, or the last one tested"),
    ("n_1", None, "runs 1", "runs of agent_1 used by the comparison"),
    ("n_2", None, "runs 2", "runs of agent_2 used by the comparison"),
    ("reason", None, "reason", "why a comparison stayed undecided"),
    ("n_comparisons", "n_comparisons", "comparisons", "number of comparisons tested"),
    ("n_rejected", None, "rejected", "number of comparisons rejected (larger or smaller)"),
    ("n_equal", None, "equal", "number of comparisons decided equal"),
    ("n_undecided", None, "undecided", "number of comparisons left undecided"),
    ("batch_size", "batch_size", "batch size", "runs per agent per interim of a sequential test"),
    ("max_interims", "max_interims", "max. interims", "maximum number of interims (K) of a sequential test"),
    ("alpha", "alpha", "alpha", "family-wise error level"),
    ("beta", "beta", "beta", "a second level: early acceptance of a sequential test (0: off), or the selection inspector's level"),
    ("level_spent", "level_spent", "level spent", "error level the test can actually spend (at most alpha)"),
    ("n_runs_used", None, "runs used", "number of runs a sequential test used"),
    ("tau", "tau", "tau", "score threshold of a performance profile"),
    ("conf_low_mc_se", None, "lower MC SE", "Monte Carlo standard error of the lower confidence bound"),
    ("conf_high_mc_se", None, "upper MC SE", "Monte Carlo standard error of the upper confidence bound"),
    ("interval_method", "interval", "interval", "how the bootstrap interval was formed (percentile, basic, bca)"),
    ("task_bootstrap", "task_bootstrap", "tasks resampled", "whether tasks were resampled as well as runs"),
    ("epsilon", "epsilon", "epsilon", "correction factor turning a descriptive into an inferential interval"),
    ("descriptive_low", None, "descriptive lower", "lower bound of the descriptive interval an inferential one rescales"),
    ("descriptive_high", None, "descriptive upper", "upper bound of the descriptive interval an inferential one rescales"),
    # selection check (cherry-picking, Komiyama and Maehara 2018)
    ("verdict", "verdict", "verdict", "outcome of a selection check: survives, selection_bias or no_claim"),
    ("inspector", "inspector", "inspector", "test comparing reported with held-out tasks (fisher_pitman, t, welch, z)"),
    ("reporter", "reporter", "reporter", "the reporter's test of a positive mean effect on the reported tasks"),
    ("p_value_reporter", "pvalue_reporter", "reporter p-value",
     "the reporter's naive p-value: mean effect over the reported tasks > 0"),
    ("p_value_gap", "pvalue_gap", "gap p-value", "the reporter's p-value against a minimum improvement mu_gap"),
    ("p_value_conservative", "pvalue_conservative", "conservative p-value",
     "p-value assuming the best of n_candidates null tasks were reported"),
    ("mean_reported", "mean_reported", "mean (reported)", "mean per-task effect over the reported tasks"),
    ("mean_heldout", "mean_heldout", "mean (held-out)", "mean per-task effect over the held-out tasks"),
    ("n_reported", "n_reported", "reported tasks", "number of reported tasks"),
    ("n_heldout", "n_heldout", "held-out tasks", "number of held-out tasks"),
    ("n_candidates", "n_candidates", "candidate tasks", "number of tasks the reporter could have chosen from (N_A)"),
    ("mu_gap", "mu_gap", "mu_gap", "minimum improvement required by the reporter's gap test"),
    ("detection_probability", "detection_probability", "P(detect)",
     "probability that the inspector flags the report if the true mean effect were 0"),
    ("heldout_design", "heldout_design", "held-out design", "origin of the held-out tasks: complement, listed or fresh"),
    ("effect_measure", "effect_measure", "effect", "per-task effect of a selection check (mean_diff, std_diff, poi)"),
    ("null_value", None, "null value", "value of the estimated quantity under the null hypothesis"),
    ("rank", "rank", "rank", "competition rank of the estimate (1 = best; tied agents share the best rank)"),
    ("rank_best", "rank_best", "best rank", "best rank consistent with the simultaneous confidence intervals"),
    ("rank_worst", "rank_worst", "worst rank", "worst rank consistent with the simultaneous confidence intervals"),
    ("reference", None, "reference", "the reference agent whose score distribution normalises a payoff"),
    ("weight", None, "weight", "probability weight of a row in an equilibrium or mixture"),
    ("percentile", None, "percentile",
     "performance percentile on one task against the game's reference mixture of agents"),
    ("n_strategies", "n_strategies", "joint strategies", "number of joint pure strategies of a game"),
    # power and sample size by simulation
    ("seeds", "seeds", "seeds", "runs per agent and task of the simulated data (AdaStop: its budget n * K)"),
    ("power", None, "power", "rejection rate over simulated data sets (the type-I error when nothing differs)"),
    ("mean_runs", None, "mean runs", "mean number of runs a test used per agent and task"),
    ("mean_runs_se", None, "mean runs SE", "Monte Carlo standard error of mean_runs"),
    ("n_sim", "n_sim", "simulations", "number of simulated data sets"),
    ("n_tests", None, "tests", "number of tests behind a rejection rate (simulations, times tasks for per-task tests)"),
    ("effect", "effect", "effect", "simulated shift between agents, in within-cell standard deviations"),
    ("data_source", "data_source", "data", "where simulated data come from: simulate or a resampled pilot"),
    ("target_power", "target_power", "target power", "power a sample-size search aims for"),
    ("sample_size", "sample_size", "sample size", "smallest number of seeds whose estimated power reaches the target"),
    ("sample_size_low", "sample_size_low", "sample size (low)",
     "smallest number of seeds whose Monte Carlo interval reaches the target at its upper bound"),
    ("sample_size_high", "sample_size_high", "sample size (high)",
     "smallest number of seeds whose Monte Carlo interval reaches the target at its lower bound"),
]

VOCABULARY = {column: Term(column, attribute, label, description)
              for column, attribute, label, description in _TERMS}


def label(column):
    """The printed label of a tidy column."""
    return VOCABULARY[column].label


def unknown_columns(columns):
    """The columns that are not in the vocabulary (a test asserts this is empty)."""
    return [c for c in columns if c not in VOCABULARY]
