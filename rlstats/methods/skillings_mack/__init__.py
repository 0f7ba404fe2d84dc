"""The blocked rank tests: Skillings-Mack and Mack-Skillings, with post-hoc comparisons."""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("SkillingsMackOptions", "skillings_mack"),
                                             "._result": ("SkillingsMackResult",)})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import SkillingsMackOptions, skillings_mack
    from ._result import SkillingsMackResult

__all__ = ["skillings_mack", "SkillingsMackResult", "SkillingsMackOptions"]
