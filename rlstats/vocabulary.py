"""One vocabulary for every quantity a result reports.

Each entry maps a quantity to its attribute name (scipy style), its column in
``tidy()``/``glance()`` (broom's stems in snake_case), its printed label and a
one-line description.  Tidy column names are public API: once released they
never change.  A test checks every tidy and glance column of every back end
against this table, and another every column of every summary table (the
label heads it in a LaTeX table, where codes are not printed).

The columns several back ends (or the package's own results, such as power
studies) share are here; a column only one back-end folder reports (in tidy,
glance or its summary's tables) is declared
in that folder's ``_backend.py`` (``VOCABULARY``) and read through the
registry (:data:`rlstats.methods.VOCABULARY`), so :data:`VOCABULARY` holds both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from . import methods

#: The one task of a formula without blocks ('score ~ agent'): the package's own label, which plots draw and
#: format.over_tasks words as no task (here, below design and format, which both read it)
ALL_RUNS = "(all runs)"


@dataclass(frozen=True)
class Term:
    column: str
    attribute: str | None
    label: str
    description: str
    #: headed by its label in every format (text, Markdown, HTML), not only LaTeX: a code a reader could take for a
    #: name in the data (simulate() names agents agent_1, agent_2, ...) or one naming an agent of a pair by place
    every_format: bool = False


_TERMS = [
    # quantity, attribute, printed label, description
    ("term", None, "term", "what the row is about (a test, a metric or a comparison)"),
    ("agent", None, "agent", "the arm (agent) a row describes"),
    # the pair's agents by place, in every format (audit s27: "agent 1" over a column of agents named agent_1); short,
    # as a transposed LaTeX table's first column holds them ("second agent" put the Bayesian test's pairs of Atari
    # 100k, 215 pt wide, into table*); which way a row's difference reads is each back end's to say (a caption, a key
    # under the table, or the estimand heading it)
    ("agent_1", None, "1st agent", "first agent of a pairwise comparison", True),
    ("agent_2", None, "2nd agent", "second agent of a pairwise comparison", True),
    ("task", None, "task", "the block (task) a row describes"),
    ("metric", None, "metric", "name of an aggregate metric"),
    ("estimate", "estimate", "estimate", "point estimate of the row's quantity"),
    ("std_error", "std_error", "std. error", "standard error of the estimate"),
    ("statistic", "statistic", "statistic", "value of the test statistic"),
    ("df", "df", "df", "degrees of freedom of the reference distribution"),
    ("p_value", "pvalue", "p-value", "p-value (unadjusted)"),
    ("p_adjusted", None, "adj. p-value",
     "p-value adjusted for multiple comparisons (at least the raw p-value, but for the rank test's posthoc='conover' "
     "with adjustment='tukey', PMCMRplus' single step, which reads the studentized range on infinite df where the raw "
     "p reads Conover's t on its finite df, and can fall below it)"),
    ("adjustment", None, "adjustment", "multiple-comparison adjustment used for p_adjusted"),
    ("significant", None, "significant", "whether the comparison is significant at alpha"),
    ("conf_low", None, "lower", "lower bound of the confidence interval"),
    ("conf_high", None, "upper", "upper bound of the confidence interval"),
    ("conf_level", None, "confidence level", "confidence level of the interval"),
    ("step", "steps", "step", "training step of a learning curve (the grid the curves are on)"),
    ("std_dev", None, "sd", "standard deviation of the runs in a cell"),
    ("n_runs", None, "runs", "number of runs of the agent"),
    ("method", "method", "method", "name of the statistical method"),
    ("alternative", "alternative", "alternative", "alternative hypothesis"),
    ("pvalue_method", "pvalue_method", "p-value method", "how the p-value was obtained"),
    ("pvalue_mc_se", "pvalue_mc_se", "Monte Carlo SE", "Monte Carlo standard error of the p-value"),
    ("n_resamples", "n_resamples", "resamples", "number of Monte Carlo resamples or permutations"),
    ("n_agents", "n_agents", "agents", "number of agents compared"),
    ("n_tasks", "n_tasks", "tasks", "number of tasks (blocks) used by the test"),
    ("n_obs", "nobs", "observations", "number of runs used by the test"),
    ("reason", None, "reason", "why a comparison stayed undecided"),
    ("n_shared_tasks", None, "shared tasks",
     "number of tasks in which both agents of a pair have runs (0: they never met; rlstats.connectivity)"),
    ("n_comparisons", "n_comparisons", "comparisons", "number of comparisons tested"),
    ("alpha", "alpha", "alpha", "family-wise error level"),
    ("beta", "beta", "beta", "a second level: early acceptance of a sequential test (0: off), or the selection inspector's level"),
    ("level_spent", "level_spent", "level spent",
     "error level of the test's schedule: alpha spent over its interims, rounded down to the permutation grid (at "
     "most alpha; the smallest over tasks); under permutations=\"holm\" with several comparisons, the level of one "
     "tested at alpha (Holm's c = 1): each spends alpha / c, c not yet rejected"),
    ("interval_method", "interval", "interval", "how the bootstrap interval was formed (percentile, basic, bca)"),
    ("null_value", None, "null value", "value of the estimated quantity under the null hypothesis"),
    ("weight", None, "weight", "probability weight of a row in an equilibrium or mixture"),
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
    ("sample_size", "sample_size", "sample size",
     "fewest seeds from which every number of seeds evaluated has estimated power reaching the target"),
    ("sample_size_low", "sample_size_low", "sample size (low)",
     "fewest seeds from which every number of seeds evaluated reaches the target at its interval's upper bound"),
    ("sample_size_high", "sample_size_high", "sample size (high)",
     "fewest seeds from which every number of seeds evaluated reaches the target at its interval's lower bound"),
    ("n_rejections", None, "rejections", "number of simulated tests that rejected"),
    ("setting", None, "setting", "a setting of the simulated data"),
    ("value", None, "value", "the setting's value"),
]

VOCABULARY: dict[str, Term] = {row[0]: Term(*row) for row in (*_TERMS, *methods.VOCABULARY)}


#: tidy()/glance() column -> broom's name, for ``names="broom"``; columns not listed keep their name.
#: With ``df_denominator`` present (an F test), broom's htest tidier says ``num.df`` and ``den.df``.
BROOM_NAMES = {"p_value": "p.value", "df": "parameter", "conf_low": "conf.low", "conf_high": "conf.high",
               "conf_level": "conf.level", "std_error": "std.error", "p_adjusted": "adj.p.value",
               "null_value": "null.value", "n_obs": "nobs", "df_denominator": "den.df"}
#: the spellings tidy(names=...) and glance(names=...) offer
COLUMN_NAMES = ("rlstats", "broom")


def broom_names(columns: Iterable[str]) -> list[str]:
    """broom's names of tidy columns (the one rule: :data:`BROOM_NAMES`)."""
    columns = list(columns)
    names = {**BROOM_NAMES, "df": "num.df"} if "df_denominator" in columns else BROOM_NAMES
    return [names.get(c, c) for c in columns]


#: the built-in metrics' printed labels (a ``metric`` column holds their codes): the one home of the words the
#: bootstrap's and the curves' prose, plots and LaTeX tables and the task table's aggregate say (capitalised in a plot's
#: title); a LaTeX table printed ``optimality\\_gap`` and ``iqm`` (audit s24)
METRIC_LABELS = {"iqm": "IQM", "mean": "mean", "median": "median", "optimality_gap": "optimality gap"}

#: the codes other columns hold (and options name) -> their printed labels: what a LaTeX table's cells and captions
#: print, while tidy(), to_dict() and CSV keep the codes (audit s25: a caption read "model: signed_rank", a
#: power table's "method: skillings_mack", a selection check's "(mean_diff, ...)", its tests' "reporter_gap" and
#: "monte_carlo", a power study's "pilot_runs"); a column's code
#: not listed prints as it is. ``method``: the back ends power() simulates, by their power rule's label.
VALUE_LABELS: dict[str, dict[str, str]] = {
    "metric": METRIC_LABELS,
    "model": {"signed_rank": "signed-rank", "hierarchical": "hierarchical"},
    "effect_measure": {"mean_diff": "mean difference", "std_diff": "standardised mean difference",
                       "poi": "probability of improvement"},
    "set": {"heldout": "held-out"},
    # the selection check's inspector and reporter tests: its print, notes, report, tidy()'s method and plots say them
    "inspector": {"fisher_pitman": "permutation test over task labels", "t": "pooled two-sample t test",
                  "welch": "Welch two-sample t test", "z": "two-sample z test with known sd"},
    "reporter": {"skew_t": "skewness-corrected one-sample t test", "t": "one-sample t test",
                 "z": "one-sample z test with known sd", "wilcoxon": "Wilcoxon signed-rank test"},
    "verdict": {"selection_bias": "selection bias", "no_claim": "no claim"},
    # the selection check's tests (a transposed table heads its columns with them) and how a p-value was obtained
    "term": {"reporter_gap": "reporter (minimum gap)", "reporter_conservative": "reporter (conservative)"},
    "pvalue_method": {"monte_carlo": "Monte Carlo"},
    # a power study's data-generating settings from a pilot
    "setting": {"shifted_agent": "shifted agent", "pilot_runs": "pilot runs", "within_cell_sd": "within-cell sd"},
    "method": {name: declared.power.label for name, declared in methods.DECLARATIONS.items()
               if declared.power is not None},
}


def value_label(column: str, value: object) -> object:
    """The printed label of a code ``value`` of ``column`` (:data:`VALUE_LABELS`); any other value as it is."""
    return VALUE_LABELS.get(column, {}).get(value, value) if isinstance(value, str) else value


def metric_label(metric: str, title: bool = False) -> str:
    """The printed label of a metric (its code where it has none), with a capital first letter for a ``title``."""
    said = str(value_label("metric", metric))
    return said[:1].upper() + said[1:] if title else said


def median_of_task_means(name: str = "median") -> str:
    """A median of task means as a note names it: "the median of task means", or a renamed one by its name and what it
    computes, "the middle (the median of task means)" (``metrics={"middle": "median"}``); never "the median" alone,
    which reads as the median of the runs (review26c, audit s27 median27)."""
    return "the median of task means" if name == "median" else f"the {metric_label(name)} (the median of task means)"


def median_is_mean_words(n_tasks: int, subject: str = "the median of task means", plural: bool = False,
                         at: str = "") -> str:
    """The words saying that on ``n_tasks`` (1 or 2: :func:`rlstats.statistics.median_is_mean`) ``subject``, a median of
    task means (:func:`median_of_task_means`, several joined: ``plural``), is the mean of task means: the one home of
    the phrase of bootstrap()'s and curves()' notes and the bootstrap's report (audit s27 median27: each wrote its
    own). Each number is named by what it averages: on one task that task's mean over its runs, on two the average
    of the two task means. ``at``: words after the verb (curves()' " at every step")."""
    which = "that task's mean over its runs" if n_tasks == 1 else "the average of the two task means"
    return (f"on {'one task' if n_tasks == 1 else '2 tasks'} {subject} {'are' if plural else 'is'}{at} {which}, as is "
            "the mean of task means")



def gap_is_mean_words(whom: str, gamma: str, subject: str, logged: str = "", at: str = "") -> str:
    """The words saying that every score of ``whom`` (``logged``: where, curves()' " logged at the grid steps") is at
    or below gamma (``gamma``, as the note prints it), so that ``subject``, an optimality gap, is gamma minus its mean
    of task means (``at``: curves()' " at every step"): the one home of the sentence of bootstrap()'s and curves()'
    notes that a gap takes the mean's interval or bands reflected (``rlstats.statistics.gap_is_mean``; each had
    written its own, audit s28 gapkinds28)."""
    return (f"every score of {whom}{logged} is at or below gamma = {gamma}, so {subject} is gamma minus its mean of "
            f"task means{at}")


#: Why no score of a min-max normalised response exceeds 1 (``Design.ceiling``): the data's own largest score, not a
#: bound on new runs, so the gap's words for it say what the data hold, not what no run can do (review29a).
MINMAX_CEILING = "min-max normalised: each task's largest score is 1"


def gap_capped_words(capped: str | None, what: str) -> str:
    """The clause closing the gap-is-mean line where the known bounds put every possible score at or below gamma
    (``capped``: why, ``Design.ceiling_at_or_below``; '' where None), ``what`` "interval" or "bands": no true score
    crosses gamma either, so the measured coverage of the gap's is the mean's (audit s29 minmax29), in place of the
    rows of agents below gamma whose true scores cross it. On a min-max scale 1 is each task's largest score in the
    data (:data:`MINMAX_CEILING`): a new run may pass it, so the words say so rather than "can" and "exactly"."""
    if not capped:
        return ""
    verb = "covers" if what == "interval" else "cover"
    if capped == MINMAX_CEILING:
        return (f"; no score exceeds gamma here ({capped}), so the gap is gamma minus the mean on this scale too and "
                f"its {what} {verb} it where the mean's {verb} the mean: the mean's measured coverage is the gap's (1 "
                "is the data's largest score, not a bound: a new run above it, whose chance is about 1 in the runs "
                "+ 1, would move the true gap a little)")
    return (f"; no score can exceed gamma here ({capped}), so the true gap is gamma minus the true mean too and its "
            f"{what} {verb} it exactly where the mean's {verb} the mean: the mean's measured coverage is the gap's")


def label(column: str) -> str:
    """The printed label of a tidy column."""
    return VOCABULARY[column].label


def header(column: object) -> str:
    """How a text, Markdown or HTML table heads ``column``: its code (the tidy name), or its label where the
    vocabulary heads it so in every format (:attr:`Term.every_format`: the pair's ``agent_1``, ``agent_2``)."""
    term = VOCABULARY.get(column) if isinstance(column, str) else None
    return term.label if term is not None and term.every_format else str(column)


def unknown_columns(columns: Iterable[str]) -> list[str]:
    """The columns that are not in the vocabulary (a test asserts this is empty)."""
    return [c for c in columns if c not in VOCABULARY]
