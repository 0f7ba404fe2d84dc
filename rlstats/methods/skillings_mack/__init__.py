"""The blocked rank tests: Skillings-Mack and Mack-Skillings, with post-hoc comparisons."""

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("SkillingsMackOptions", "skillings_mack"),
                                             "._result": ("SkillingsMackResult",)})

__all__ = ["skillings_mack", "SkillingsMackResult", "SkillingsMackOptions"]
