"""Performance percentiles over tasks with confidence intervals (Jordan et al., 2020)."""

from ._api import PercentilesOptions, percentiles
from ._result import PercentilesResult

__all__ = ["percentiles", "PercentilesResult", "PercentilesOptions"]
