# What type checkers see of the package face. rlstats/__init__.py loads its public names on first use (PEP 562)
# and takes the back ends' from the registry at run time, so a checker reading it would see every name as Any.
# This stub names them where they live; tests/test_typing_coverage.py keeps it equal to rlstats.__all__ (a new
# public name, or a new back end in rlstats.methods.FOLDERS, is a line here too).

from typing import Any, Literal, overload

from . import datasets as datasets
from .calibration import calibration_table as calibration_table
from ._typing import Data, FormulaLike, Subset
from ._version import __version__ as __version__
from .citations import cite as cite
from .design import Design as Design, build as build
from .errors import (DataUnavailableError as DataUnavailableError, DesignError as DesignError,
                     FormulaError as FormulaError, LogReadError as LogReadError, OptionError as OptionError,
                     RlstatsError as RlstatsError, RlstatsWarning as RlstatsWarning)
from .formula import Formula as Formula, parse as parse
from .interop import concat as concat, from_rliable as from_rliable
from .logs import read_logs as read_logs, read_wandb as read_wandb
from .methods import selection as selection
from .methods.adastop import (AdaStop as AdaStop, AdaStopResult as AdaStopResult, PermutationResult as PermutationResult,
                              adastop as adastop, permutation as permutation)
from .methods.bootstrap import (BootstrapResult as BootstrapResult,
                                InferentialIntervalsResult as InferentialIntervalsResult,
                                PerformanceProfileResult as PerformanceProfileResult,
                                ProbabilityOfImprovementResult as ProbabilityOfImprovementResult,
                                bootstrap as bootstrap, performance_profile as performance_profile,
                                probability_of_improvement as probability_of_improvement)
from .methods.bayes import BayesResult as BayesResult, bayes as bayes
from .methods.curves import CurvesResult as CurvesResult, curves as curves
from .methods.equivalence import EquivalenceResult as EquivalenceResult, equivalence as equivalence
from .methods.mixed import MixedResult as MixedResult, mixed as mixed
from .methods.percentiles import PercentilesResult as PercentilesResult, percentiles as percentiles
from .methods.selection import SelectionCheckResult as SelectionCheckResult, selection_check as selection_check
from .methods.skillings_mack import SkillingsMackResult as SkillingsMackResult, skillings_mack as skillings_mack
from .methods.task_table import TaskTableResult as TaskTableResult, task_table as task_table
from .methods.tuning import TuningResult as TuningResult, tuning as tuning
from .normalization import normalize as normalize
from .planning import PowerResult as PowerResult, power as power, sample_size as sample_size
from .runs import align_steps as align_steps, summarize_runs as summarize_runs

# compare() returns the result class of the method it runs (rlstats.methods.DECLARATIONS; a test keeps these
# overloads equal to it). Without method= the back end depends on the formula's text, which a type checker cannot
# read: the rank test's result with '| task', the permutation test's without, so the union of the two (both carry
# pvalue and statistic; narrow with isinstance, or pass method=, to reach mean_ranks). A method name outside the
# registry is a type error, as it is a run-time OptionError. rlstats/comparison.py holds the implementation, typed
# -> Result: it reads the registry and names no back end (tests/test_layout.py).
@overload
def compare(data: Data, formula: FormulaLike, method: None = None, *, subset: Subset = None,
            **options: Any) -> SkillingsMackResult | PermutationResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["skillings_mack"], *, subset: Subset = None,
            **options: Any) -> SkillingsMackResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["adastop"], *, subset: Subset = None,
            **options: Any) -> AdaStopResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["permutation"], *, subset: Subset = None,
            **options: Any) -> PermutationResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["bootstrap"], *, subset: Subset = None,
            **options: Any) -> BootstrapResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["probability_of_improvement"], *,
            subset: Subset = None, **options: Any) -> ProbabilityOfImprovementResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["performance_profile"], *, subset: Subset = None,
            **options: Any) -> PerformanceProfileResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["percentiles"], *, subset: Subset = None,
            **options: Any) -> PercentilesResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["selection"], *, subset: Subset = None,
            **options: Any) -> SelectionCheckResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["task_table"], *, subset: Subset = None,
            **options: Any) -> TaskTableResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["curves"], *, subset: Subset = None,
            **options: Any) -> CurvesResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["tuning"], *, subset: Subset = None,
            **options: Any) -> TuningResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["mixed"], *, subset: Subset = None,
            **options: Any) -> MixedResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["equivalence"], *, subset: Subset = None,
            **options: Any) -> EquivalenceResult: ...
@overload
def compare(data: Data, formula: FormulaLike, method: Literal["bayes"], *, subset: Subset = None,
            **options: Any) -> BayesResult: ...

__all__: list[str]
