"""Performance percentiles over tasks with confidence intervals (Jordan et al., 2020)."""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("PercentilesOptions", "percentiles"),
                                             "._result": ("PercentilesResult",)})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import PercentilesOptions, percentiles
    from ._result import PercentilesResult

__all__ = ["percentiles", "PercentilesResult", "PercentilesOptions"]
