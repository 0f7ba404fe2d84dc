"""AdaStop (adaptive sequential permutation tests) and the one-interim permutation test of ``score ~ agent``."""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..._lazy import lazy_names
from ._defaults import DEFAULT_K, LOCK_TIMEOUT, MAX_N

# loaded on first use: `rlstats adastop --help` shows DEFAULT_K without pandas
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("AdaStopOptions", "adastop", "least_resamples", "no_level_clause",
                                                      "permutation", "separating_sizes"),
                                             "._incremental": ("AdaStop", "INDEX_COLUMNS", "check_batch_columns",
                                                                "first_step_shares", "rejecting_sizes",
                                                                "state_lock"),
                                             "._integrity": ("read_key",),
                                             "._result": ("AdaStopResult", "PermutationResult",
                                                          "without_empty_reasons")})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import AdaStopOptions, adastop, least_resamples, no_level_clause, permutation, separating_sizes
    from ._incremental import (AdaStop, INDEX_COLUMNS, check_batch_columns, first_step_shares, rejecting_sizes,
                               state_lock)
    from ._integrity import read_key
    from ._result import AdaStopResult, PermutationResult, without_empty_reasons

__all__ = ["adastop", "permutation", "AdaStop", "AdaStopResult", "PermutationResult", "AdaStopOptions"]
