"""The per-task table of a paper: best agent per task, a confidence set for the best, effect sizes."""

from ._api import task_table
from ._result import TaskTableResult

__all__ = ["task_table", "TaskTableResult"]
