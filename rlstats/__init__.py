"""rlstats: R-style formula statistics for reinforcement-learning evaluation.

>>> import rlstats
>>> df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=1.0, rng=0)
>>> res = rlstats.compare(df, "score ~ agent | task")
"""

from ._version import __version__

from . import datasets
from .citations import cite
from .compare import compare
from .design import Design, build
from .errors import (DataUnavailableError, DesignError, FormulaError, LogReadError, OptionError, RlstatsError,
                     RlstatsWarning)
from .formula import Formula, parse
from .methods.curves import CurvesResult, curves
from .methods.task_table import TaskTableResult, task_table
from .runs import align_steps, summarize_runs
from .methods.adastop import AdaStop, AdaStopResult, PermutationResult, adastop, permutation
from .logs import read_logs, read_wandb
from .methods.bootstrap import (BootstrapResult, InferentialIntervalsResult, PerformanceProfileResult,
                                ProbabilityOfImprovementResult, bootstrap, performance_profile,
                                probability_of_improvement)
from .methods import selection
from .methods.percentiles import PercentilesResult, percentiles
from .methods.skillings_mack import SkillingsMackResult, skillings_mack
from .methods.selection import SelectionCheckResult, selection_check
from .normalize import normalize
from .power import PowerResult, power, sample_size

__all__ = [
    "compare", "skillings_mack", "SkillingsMackResult", "normalize", "datasets",
    "bootstrap", "probability_of_improvement", "performance_profile", "BootstrapResult",
    "ProbabilityOfImprovementResult", "PerformanceProfileResult", "InferentialIntervalsResult",
    "selection_check", "SelectionCheckResult", "selection", "percentiles", "PercentilesResult",
    "adastop", "permutation", "AdaStop", "AdaStopResult", "PermutationResult", "power", "sample_size", "PowerResult",
    "cite", "curves", "CurvesResult", "task_table", "TaskTableResult", "summarize_runs", "align_steps",
    "read_logs", "read_wandb",
    "build", "Design", "parse", "Formula",
    "RlstatsError", "FormulaError", "DesignError", "OptionError", "DataUnavailableError", "LogReadError",
    "RlstatsWarning",
]
