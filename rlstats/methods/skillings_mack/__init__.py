"""The blocked rank tests: Skillings-Mack and Mack-Skillings, with post-hoc comparisons."""

from ._api import SkillingsMackOptions, skillings_mack
from ._result import SkillingsMackResult

__all__ = ["skillings_mack", "SkillingsMackResult", "SkillingsMackOptions"]
