"""Names of the types that the public signatures share, for type checkers and readers.

Importing this module imports nothing else: the aliases name their classes in strings that only a type
checker resolves (the imports below run under ``TYPE_CHECKING`` only), so the package face stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, SupportsIndex, Union

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from numpy.typing import ArrayLike

    from .formula import Formula


class ForeignTable(Protocol):
    """A polars DataFrame or a pyarrow Table or RecordBatch, named by the one method rlstats calls on it.

    A protocol rather than ``pl.DataFrame | pa.Table``: pyarrow ships no types, and polars or pyarrow may not be
    installed, and either would make every signature naming a table partly Unknown to a user's type checker.
    """

    def to_pandas(self, *args: Any, **kwargs: Any) -> Any: ...


class EvalEnvironmentLike(Protocol):
    """A patsy ``EvalEnvironment`` (patsy ships no types), named by its mapping of the caller's names."""

    @property
    def namespace(self) -> Any: ...


#: a long table, one row per run (or per run and step): a pandas DataFrame (polars DataFrames and pyarrow
#: Tables are converted once at the front door, and the result says so)
Table = Union["pd.DataFrame", ForeignTable]
#: what the back ends read: a long table, or a Design already built from one (rlstats.build; the Design is not
#: named here, since design.py and the modules it imports use these names: Any stands for it)
Data = Union[Table, Any]
#: a formula's text, ``"score ~ agent | task"``, or a parsed Formula
FormulaLike = Union[str, "Formula"]
#: every random procedure's ``rng=``: None (fresh entropy), an int seed or a NumPy Generator
Seed = Union[None, int, "np.random.Generator"]
#: an agent or a task named in an option (``control=``, ``reference=``, ``task=``, a pair's agents) as the data print
#: it: its text, or a number (9, numpy's int64(9) and "9" name the agent printed 9, and 9 names 9.0 of a float
#: column; errors.label_named, the one rule). numpy's integers are SupportsIndex (a name every module resolves,
#: where "np.integer[Any]" needs numpy and Any in the namespace of each signature using it)
Label = Union[str, int, float, SupportsIndex]
#: where a formula's names are looked up: frames up the stack (an int) or a patsy EvalEnvironment
EvalEnv = Union[None, int, EvalEnvironmentLike]
#: ``normalize=``: a reference table, the name of a published one, {task: (low, high)}, or False for none
Normalizer = Union["pd.DataFrame", str, dict[str, Any], bool, None]
#: ``subset=``: a condition in rlstats' restricted grammar, or a boolean mask
Subset = Union[str, "ArrayLike", None]
#: every result's ``tidy(names=)`` and ``glance(names=)``: rlstats' column names or broom's (rlstats.vocabulary)
ColumnNames = Literal["rlstats", "broom"]

# The fixed vocabularies of string options, one Literal each, so that a type checker catches a typo such as
# ``ddf="kenward_roger"`` before the run does. Each mirrors the tuple its option is checked against at run time
# (named beside it); tests/test_typing_user.py fails when the two differ. A vocabulary holding a back end's name
# (the rank test's variant=, the percentiles' interval=) has its Literal beside its tuple in that back end's
# _api.py, since only a back end's folder may name it (tests/test_layout.py).

#: ``na_action=`` of every front door (design.NA_ACTIONS)
NaAction = Literal["raise", "drop", "omit"]
#: ``backend=`` of bootstrap and tuning besides None, threads of this machine (engines.CLUSTER_BACKENDS)
DaskBackend = Literal["dask"]
#: every result's ``report(format=)`` (results.REPORT_FORMATS)
ReportFormat = Literal["text", "latex"]
#: the rank test's ``pvalue=`` (skillings_mack PVALUE_METHODS)
RankPvalue = Literal["auto", "asymptotic", "monte_carlo", "exact"]
#: the rank test's ``posthoc=`` (skillings_mack POSTHOC)
RankPosthoc = Literal["ranks", "wilcoxon", "exact", "conover"]
#: the rank test's ``adjustment=`` (skillings_mack ADJUSTMENTS)
RankAdjustment = Literal["auto", "tukey", "holm", "bonferroni", "hochberg", "hommel", "bh", "by", "none"]
#: the rank test's ``within_cell=`` (skillings_mack WITHIN_CELL, None included)
WithinCell = Literal["mean", "median"]
#: the mixed model's ``ddf=`` (mixed DDF)
Ddf = Literal["satterthwaite", "kenward-roger"]
#: the mixed model's ``f_basis=`` (mixed F_BASIS): the contrasts its Satterthwaite F's df are formed in
FBasis = Literal["orthonormal", "lmertest"]
#: the mixed model's ``adjust=`` (mixed ADJUST)
MixedAdjust = Literal["tukey", "holm", "bonferroni", "sidak", "scheffe", "hochberg", "hommel", "bh", "by", "none"]
#: rlstats.bayes's model= (rlstats.methods.bayes._api.MODELS)
BayesModel = Literal["signed_rank", "hierarchical"]
#: the bootstrap's ``interval=`` (bootstrap INTERVALS)
BootstrapInterval = Literal["studentized", "percentile", "basic", "bca", "expanded", "studentized_no_welch",
                            "studentized_unwidened", "expanded_tasks"]
#: ``probability_of_improvement(interval=)`` (bootstrap IMPROVEMENT_INTERVALS)
ImprovementInterval = Literal["score", "percentile", "expanded"]
#: the bands of rlstats.performance_profile
ProfileInterval = Literal["wilson", "skew_t", "t", "percentile", "wilson_tasks"]
#: the percentiles' ``ties=`` (percentiles TIES)
PercentileTies = Literal["le", "mid"]
#: the task table's ``statistic=`` (task_table SUMMARIES)
TaskStatistic = Literal["mean", "median", "iqm"]
#: the task table's ``test=`` (task_table TESTS)
TaskTest = Literal["welch", "mannwhitney", "brunnermunzel", "fisher_pitman"]
#: the task table's ``adjustment=`` (task_table ADJUSTMENTS)
TaskAdjustment = Literal["holm", "bonferroni", "none"]
#: the task table's ``effect_intervals=`` (task_table EFFECT_INTERVALS)
EffectIntervals = Literal["fcr", "fcr_normal", "per_pair"]
#: the curves' named ``statistic=`` (curves STATISTICS; a callable is accepted too)
CurveStatistic = Literal["iqm", "mean", "median", "optimality_gap"]
#: ``align=`` of curves and ``method=`` of align_steps and summarize_runs (runs.ALIGN_METHODS)
AlignMethod = Literal["last", "linear"]
#: ``bands=`` of curves (curves BAND_METHODS)
CurveBands = Literal["studentized", "expanded", "studentized_unwidened"]
#: ``summarize_runs(how=)`` (runs.SUMMARIES)
RunSummary = Literal["final", "last_k_mean", "auc", "max", "time_to_threshold"]
#: AdaStop's and the permutation test's ``permutations=`` (adastop PERMUTATIONS)
Permutations = Literal["joint", "pairwise", "holm"]
#: ``read_logs(format=)`` (the keys of logs._formats.FORMATS)
LogFormatName = Literal["tensorboard", "sb3_monitor", "sb3_progress", "spinup", "csv", "jsonl", "wandb_csv", "sb3_eval",
                        "marl_eval"]
#: ``read_logs(keep=)`` (logs KEEP)
LogKeep = Literal["last", "first"]
#: ``read_logs(on_error=)`` (logs ON_ERROR)
LogOnError = Literal["raise", "skip"]
#: ``read_logs(smooth_over=)`` (logs._smooth.UNITS)
SmoothOver = Literal["episodes", "steps"]
