"""Stratified bootstrap of aggregate metrics, probability of improvement and performance profiles."""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas
__getattr__, __dir__ = lazy_names(__name__, {
    "._api": ("BootstrapOptions", "bootstrap", "inferential_intervals", "performance_profile",
              "probability_of_improvement"),
    "._result": ("BootstrapResult", "InferentialIntervalsResult", "PerformanceProfileResult",
                 "ProbabilityOfImprovementResult")})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import (BootstrapOptions, bootstrap, inferential_intervals, performance_profile,
                       probability_of_improvement)
    from ._result import (BootstrapResult, InferentialIntervalsResult, PerformanceProfileResult,
                          ProbabilityOfImprovementResult)

__all__ = ["bootstrap", "probability_of_improvement", "performance_profile", "inferential_intervals",
           "BootstrapResult", "ProbabilityOfImprovementResult", "PerformanceProfileResult",
           "InferentialIntervalsResult", "BootstrapOptions"]
