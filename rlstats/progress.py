"""Progress bars for long work, switchable off, never printing when off."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def progress_bar(total, enabled, description):
    """Yield a callable ``advance(n)``; shows a tqdm bar on stderr when ``enabled``."""
    if not enabled:
        yield lambda n: None
        return
    from tqdm.auto import tqdm

    with tqdm(total=total, desc=description, leave=False) as bar:
        yield bar.update
