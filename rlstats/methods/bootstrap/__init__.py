"""Stratified bootstrap of aggregate metrics, probability of improvement and performance profiles."""

from ._api import BootstrapOptions, bootstrap, inferential_intervals, performance_profile, probability_of_improvement
from ._result import (BootstrapResult, InferentialIntervalsResult, PerformanceProfileResult,
                      ProbabilityOfImprovementResult)

__all__ = ["bootstrap", "probability_of_improvement", "performance_profile", "inferential_intervals",
           "BootstrapResult", "ProbabilityOfImprovementResult", "PerformanceProfileResult",
           "InferentialIntervalsResult", "BootstrapOptions"]
