"""From training logs to one long frame: TensorBoard event files, Stable-Baselines3's monitor.csv,
progress.csv and EvalCallback's evaluations.npz, CSV / JSON-lines loggers, Spinning Up's progress.txt,
marl-eval's JSON, and W&B (CSV exports, or the public API through :func:`read_wandb`).

The frame has one row per run and logged step (``agent``, ``task``, ``seed``, ``step``, one column
per scalar, ``source``), ready for :func:`rlstats.curves`, :func:`rlstats.summarize_runs` and every
back end. Reading event files needs the tensorboard package: ``pip install tensorboard``,
or ``pip install ".[logs]"`` in a source checkout.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._lazy import lazy_names

# loaded on first use: the command line reads the format names from _formats without pandas
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_names(__name__, {"._read": ("EarlyEnd", "ReadLog", "ReadProblem", "Segment",
                                                        "choose_return_tag", "read_logs", "one_file"),
                                             "._wandb": ("read_wandb",),
                                             # the formats' table; the one a file name announces; a binary
                                             # log's (the command line's refusal of one given as a table)
                                             "._formats": ("FORMATS", "file_format", "binary_log"),
                                             # what a URL is and the bounds of reading one (the command line's too)
                                             "._remote": ("MAX_FILE_BYTES", "MAX_FILES", "is_url"),
                                             # JSON read with numbers of bounded length (AdaStop's states too)
                                             "._tabular": ("loads_json",)})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._formats import FORMATS, binary_log, file_format
    from ._read import EarlyEnd, ReadLog, ReadProblem, Segment, choose_return_tag, one_file, read_logs
    from ._remote import MAX_FILE_BYTES, MAX_FILES, is_url
    from ._tabular import loads_json
    from ._wandb import read_wandb

__all__ = ["read_logs", "read_wandb", "ReadLog", "ReadProblem", "EarlyEnd", "Segment", "choose_return_tag"]
