"""Progress bars for long work, switchable off, never printing when off.

A bar is drawn only where someone watches it: tqdm's widget in a Jupyter kernel that has ipywidgets, tqdm's
text bar on stderr when stderr is a terminal. Anywhere else (a pipe, a log file, CI, a notebook without
ipywidgets, where ``tqdm.auto`` would warn and print its text bar into the cell) there is no bar and no word.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any


def bar_class() -> Any:
    """The tqdm class to draw with here, or None where no bar should be drawn (see the module docstring)."""
    if "ipykernel.zmqshell" in sys.modules:  # a Jupyter kernel, as tqdm.autonotebook tells it
        if any(name == "QT_API" or name.startswith("SPYDER") for name in os.environ):
            return None  # the Qt console and Spyder: no widgets, and not a terminal
        from tqdm import notebook

        return notebook.tqdm if notebook.IProgress is not None else None  # None: no ipywidgets
    stream = sys.stderr
    if stream is not None and getattr(stream, "isatty", lambda: False)():
        from tqdm.std import tqdm

        return tqdm
    return None


@contextlib.contextmanager
def progress_bar(total: int, enabled: bool, description: str) -> Iterator[Callable[[int], object]]:
    """Yield a callable ``advance(n)``; shows a tqdm bar when ``enabled`` and someone can see it."""
    bar = bar_class() if enabled else None
    if bar is None:
        yield lambda n: None
        return
    # miniters=1: tqdm's dynamic step count, read off a burst of early updates, could skip drawing the last ones
    # (a bar left short of its total under load); mininterval still bounds how often it draws
    with bar(total=total, desc=description, leave=False, miniters=1) as shown:
        yield shown.update
