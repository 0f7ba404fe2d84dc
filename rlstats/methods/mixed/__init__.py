"""The linear mixed model: fixed agents, random task (and task x agent) intercepts, Satterthwaite or
Kenward-Roger df, estimated marginal means and adjusted pairwise comparisons."""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas or scipy
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("MixedOptions", "mixed"), "._result": ("MixedResult",)})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import MixedOptions, mixed
    from ._result import MixedResult

__all__ = ["mixed", "MixedResult", "MixedOptions"]
