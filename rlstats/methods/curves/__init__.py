"""The learning-curves back end: per-step aggregates, whole-run bootstrap bands, curve comparisons."""

from ._api import curves
from ._result import CurvesResult

__all__ = ["curves", "CurvesResult"]
