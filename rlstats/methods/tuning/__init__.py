"""Tuning-aware evaluation: expected max over budgets, the best set, the complete algorithm, sensitivity."""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("tuning",), "._result": ("TuningResult",)})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import tuning
    from ._result import TuningResult

__all__ = ["tuning", "TuningResult"]
