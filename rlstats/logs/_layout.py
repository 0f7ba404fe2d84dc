"""Finding runs in a folder: which files are logs of which format, and which run each belongs to.

A *pattern* such as ``"{agent}/{task}/seed_{seed}"`` is matched against the start of each log
file's path relative to the folder, up to a ``/`` or the end: ``ppo/hopper/seed_3/events.out...``
gives ``agent="ppo"``, ``task="hopper"``, ``seed="3"``. A field matches one or more characters
other than ``/``; ``*`` matches any characters other than ``/``; everything else is literal.
Every file under the same match belongs to one run (a run restarted from a checkpoint often
writes a second event file beside the first).
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

from ..errors import LogReadError, OptionError

FIELD = re.compile(r"\{([A-Za-z_]\w*)\}")

#: Format name -> what the reader reads (for messages and notes).
FORMAT_LABELS = {
    "tensorboard": "TensorBoard event files",
    "sb3_monitor": "Stable-Baselines3 monitor.csv files",
    "sb3_progress": "Stable-Baselines3 logger progress.csv files",
    "spinup": "Spinning Up progress.txt files",
    "csv": "CSV files",
    "jsonl": "JSON-lines files",
    "wandb_csv": "W&B CSV exports",
}
FORMATS = tuple(FORMAT_LABELS)
FORMAT_LABELS["wandb"] = "W&B runs"  # read_wandb, through the public API


def file_format(name):
    """The format a file name announces, or None (``wandb_csv`` is told from ``csv`` by its header)."""
    if name.startswith("events.out.tfevents."):
        return "tensorboard"
    if name.endswith("monitor.csv"):
        return "sb3_monitor"
    if name == "progress.csv":
        return "sb3_progress"
    if name == "progress.txt":
        return "spinup"
    if name.endswith(".jsonl") or name == "progress.json":
        return "jsonl"
    if name.endswith(".csv"):
        return "csv"
    return None


@dataclasses.dataclass(frozen=True)
class Pattern:
    """A compiled directory pattern: ``match(relative_path)`` -> dict of fields, or None."""

    text: object
    fields: tuple
    regex: object = None

    def match(self, relative):
        if self.text is None:
            return None
        if callable(self.text):
            found = self.text(relative)
            if found is None:
                return None
            if not isinstance(found, dict):
                raise OptionError(f"pattern= callable must return a dict of fields (or None to skip the file); "
                                  f"for {relative!r} it returned {found!r}")
            return {str(k): v for k, v in found.items()}
        m = self.regex.match(relative)
        return None if m is None else m.groupdict()


def compile_pattern(pattern):
    """``"{agent}/{task}/seed_{seed}"``, a callable, or None -> :class:`Pattern`."""
    if pattern is None or callable(pattern):
        return Pattern(pattern, ())
    if not isinstance(pattern, str) or not pattern.strip("/"):
        raise OptionError(f"pattern= must be text such as '{{agent}}/{{task}}/seed_{{seed}}' or a callable; "
                          f"got {pattern!r}")
    parts, names, position = [], [], 0
    text = pattern.strip("/")
    for m in FIELD.finditer(text):
        parts.append(_literal(text[position:m.start()]))
        name = m.group(1)
        if name in names:
            raise OptionError(f"pattern {pattern!r} names the field {{{name}}} twice")
        names.append(name)
        parts.append(f"(?P<{name}>[^/]+?)")
        position = m.end()
    parts.append(_literal(text[position:]))
    if not names:
        raise OptionError(f"pattern {pattern!r} has no {{field}}; write e.g. '{{agent}}/{{task}}/seed_{{seed}}'")
    return Pattern(pattern, tuple(names), re.compile("^" + "".join(parts) + "(?:/|$)"))


def _literal(text):
    if "{" in text or "}" in text:
        raise OptionError(f"pattern part {text!r} has a brace that is not a {{field}}; fields are names "
                          "such as {agent}")
    return "[^/]*".join(re.escape(piece) for piece in text.split("*"))


def discover(root, format):
    """Log files under ``root`` (a folder or one file) by format: {format: [relative posix paths]}.

    ``format`` narrows the search to one format; files are listed in sorted order, which for
    TensorBoard event files (named by their creation time) is the order they were written.
    """
    root = Path(root)
    if root.is_file():
        kind = format or file_format(root.name)
        if kind is None:
            raise LogReadError(f"{root} is not a log file rlstats knows; pass format= "
                               f"(one of {', '.join(FORMATS)})")
        return root.parent, {kind: [root.name]}
    if not root.is_dir():
        raise LogReadError(f"no such folder: {root}; read_logs reads a folder of runs (or one log file)")
    found = {}
    for folder, subfolders, names in os.walk(root):
        subfolders.sort()
        relative = Path(folder).relative_to(root).as_posix()
        for name in sorted(names):
            kind = file_format(name)
            if kind is None:
                continue
            if format is not None and not (kind == format or (format == "wandb_csv" and kind == "csv")
                                           or (format == "csv" and kind in ("sb3_progress", "sb3_monitor"))):
                continue
            path = name if relative == "." else f"{relative}/{name}"
            found.setdefault(format or kind, []).append(path)
    return root, found
