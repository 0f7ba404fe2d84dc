"""rlstats: R-style formula statistics for reinforcement-learning evaluation.

>>> import rlstats
>>> df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=1.0, rng=0)
>>> res = rlstats.compare(df, "score ~ agent | task")
"""

import importlib
import sys

from . import methods as _methods
from ._lazy import lazy_names
from ._version import __version__
from .errors import (DataUnavailableError, DesignError, FormulaError, LogReadError, OptionError, RlstatsError,
                     RlstatsWarning)

# The public names load on first use, so that `import rlstats` and the `rlstats` command (`--version`,
# `--help`) do not pay for pandas, scipy and every back end before they need them. rlstats.datasets and
# the other submodules load on first use too. The back ends' names come from their declarations.
_SOURCES = {
    ".citations": ("cite",),
    ".comparison": ("compare",),
    ".design": ("Design", "build"),
    ".formula": ("Formula", "parse"),
    ".runs": ("align_steps", "summarize_runs"),
    ".logs": ("read_logs", "read_wandb"),
    ".normalization": ("normalize",),
    ".interop": ("concat", "from_rliable"),
    ".calibration": ("calibration_table",),
    ".planning": ("PowerResult", "power", "sample_size"),
}
for _name, _path in _methods.PUBLIC.items():
    _module = _path.partition(":")[0]
    _SOURCES[_module] = (*_SOURCES.get(_module, ()), _name)
    # A back end's public subpackage (rlstats.selection) imports under its public name too; its __init__ is lazy.
    if _module == _methods.__name__:
        sys.modules.setdefault(f"{__name__}.{_name}", importlib.import_module(f"{_module}.{_path.partition(':')[2]}"))
del _name, _path, _module
__getattr__, __dir__ = lazy_names(__name__, _SOURCES, submodules=True)


__all__ = [
    "compare", "normalize", "datasets", *_methods.PUBLIC, "power", "sample_size", "PowerResult", "cite",
    "summarize_runs", "align_steps", "concat", "read_logs", "read_wandb", "from_rliable", "calibration_table",
    "build", "Design", "parse", "Formula",
    "RlstatsError", "FormulaError", "DesignError", "OptionError", "DataUnavailableError", "LogReadError",
    "RlstatsWarning",
]
