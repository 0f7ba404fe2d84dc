"""The per-task table of a paper: best agent per task, a confidence set for the best, effect sizes."""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("task_table",), "._result": ("TaskTableResult",)})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import task_table
    from ._result import TaskTableResult

__all__ = ["task_table", "TaskTableResult"]
