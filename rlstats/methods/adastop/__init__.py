"""AdaStop (adaptive sequential permutation tests) and the one-interim permutation test of ``score ~ agent``."""

from ._api import DEFAULT_K, AdaStopOptions, adastop, permutation
from ._incremental import AdaStop
from ._result import AdaStopResult, PermutationResult

__all__ = ["adastop", "permutation", "AdaStop", "AdaStopResult", "PermutationResult", "AdaStopOptions"]
