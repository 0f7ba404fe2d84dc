"""The learning-curves back end: per-step aggregates, whole-run bootstrap bands, curve comparisons."""

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("CurvesOptions", "curves"), "._result": ("CurvesResult",)})

__all__ = ["curves", "CurvesResult"]
