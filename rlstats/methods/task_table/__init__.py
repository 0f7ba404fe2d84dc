"""The per-task table of a paper: best agent per task, a confidence set for the best, effect sizes."""

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("task_table",), "._result": ("TaskTableResult",)})

__all__ = ["task_table", "TaskTableResult"]
