"""The learning-curves back end: per-step aggregates, whole-run bootstrap bands, curve comparisons."""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("CurvesOptions", "curves"), "._result": ("CurvesResult",)})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import CurvesOptions, curves
    from ._result import CurvesResult

__all__ = ["curves", "CurvesResult"]
