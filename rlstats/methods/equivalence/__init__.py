"""Equivalence and non-inferiority tests (TOST) per task, across tasks, on an aggregate, or against a published
table."""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas or scipy
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("EquivalenceOptions", "equivalence"),
                                             "._result": ("EquivalenceResult",)})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import EquivalenceOptions, equivalence
    from ._result import EquivalenceResult

__all__ = ["equivalence", "EquivalenceResult", "EquivalenceOptions"]
