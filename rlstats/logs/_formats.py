"""The log formats ``read_logs`` reads: one :class:`LogFormat` record each, in :data:`FORMATS`.

A record says how a format's files are recognised (their names; with ``format=`` named, what else it reads), how
a file is read (its reader, ``"module:function"`` imported on first use, so that the command line lists the
formats without pandas), and what the reader yields (the default tags, the note, the run fields the log states
itself, whether ``step=`` applies, how a run's several files join). ``read_logs`` and ``discover`` read the
records and never test a format's name. Adding a format is its module, its record here and its tests.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

#: The fields that name a run; a log stating all three itself needs no ``run`` column.
STANDARD_FIELDS = ("agent", "task", "seed")


@dataclass(frozen=True)
class LogFormat:
    """One log format (the fields say what each part means)."""

    #: ``format=`` of read_logs
    name: str
    #: what its files are called in messages and notes ("TensorBoard event files")
    label: str
    #: "module:function" reading one file: ``(path)`` when the log states its step (``own_step``), else
    #: ``(path, step)``; returns a list of Pieces (several when a file holds several runs), raises FileProblem
    reader: str
    #: recognised by default by these exact file names, name endings and name beginnings
    file_names: tuple = ()
    name_endings: tuple = ()
    name_beginnings: tuple = ()
    #: with format= naming it, files of these other formats are read by it too, and any file ending so
    also_reads: tuple = ()
    any_name_ending: str | None = None
    #: how the log states its step, for the error on step= (None: step= names a column of its tables)
    own_step: str | None = None
    #: "module:function" (available tags) -> (tag -> column, sentence); None: the one return-like tag
    default_tags: str | None = None
    #: a note every frame read from it carries; or "module:function" (tag -> column of the tags read) -> that note
    #: (None: no note), when what it says depends on the columns read
    note: str | None = None
    #: run fields the log may state itself (used where the pattern gives none), in column order, and where the log
    #: states each (for notes and messages). A pattern field that names one otherwise is an error naming both, but for
    #: the fields in ``renamable``: a name the path may give in its own words (a monitor header's env_id
    #: 'Hopper-v4' under a folder 'hopper'), kept with a note. Formats stating none: TensorBoard event files (a run
    #: is its folder), evaluations.npz, progress.csv, progress.txt, CSV and JSON lines (a text column such as a run
    #: name is not read), W&B CSV exports (their run names are what the pattern is matched against).
    states: tuple = ()
    stated_as: tuple = ()
    renamable: tuple = ()
    #: "module:function" (path) -> whether a file holds several runs named inside, matched by name after reading
    runs_inside: str | None = None
    #: "module:function" (the pieces of one run's files, written side by side) -> the pieces read together; None:
    #: a run's files were written in turn, so a restart or a rerun is told by their steps
    combine: str | None = None
    #: what one logged value is, for smooth= over "episodes"
    values: str = "logged values"
    #: whether its files are binary (never a table of text): such a file given where a table is read is told to go
    #: through read-logs, not to be re-encoded
    binary: bool = False

    def recognises(self, file_name):
        """Whether ``file_name`` announces this format by default."""
        return (file_name in self.file_names or file_name.endswith(self.name_endings)
                or file_name.startswith(self.name_beginnings))

    def reads(self, file_name):
        """Whether this format, named in format=, reads the file ``file_name``."""
        announced = file_format(file_name)
        if announced is None:
            return self.any_name_ending is not None and file_name.endswith(self.any_name_ending)
        return announced == self.name or announced in self.also_reads

    def read(self, path, step=None):
        """The file's Pieces (FileProblem when it cannot be used)."""
        return load(self.reader)(path) if self.own_step else load(self.reader)(path, step)

    def where_stated(self, field):
        """Where the log states ``field``: ``"the header's env_id"``."""
        return dict(zip(self.states, self.stated_as)).get(field, f"its {field}")

    def note_of(self, mapping):
        """The note of a frame holding the tags ``mapping`` names (tag -> column), or None."""
        if self.note is None or not self.note.startswith("._"):
            return self.note
        return load(self.note)(mapping)

    @property
    def names_runs(self):
        """Whether the log states agent, task and seed itself (then no ``run`` column is needed)."""
        return set(STANDARD_FIELDS) <= set(self.states)

    @property
    def in_turn(self):
        """Whether a run's several files were written one after another (a restart, a rerun), not side by side."""
        return self.combine is None


def load(path):
    """The object a ``"module:attribute"`` path names (a module relative to this package)."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module, __package__), attribute)


_TABLES = "._tabular:"
#: name -> LogFormat. The order counts: a file name two records recognise (``0.monitor.csv``, also a ``*.csv``) is
#: the first's; messages list the formats in this order.
FORMATS = {record.name: record for record in (
    LogFormat("tensorboard", "TensorBoard event files", "._tensorboard:read_events",
              name_beginnings=("events.out.tfevents.",), own_step="event files: each event's step", binary=True),
    LogFormat("sb3_monitor", "Stable-Baselines3 monitor.csv files", _TABLES + "read_monitor",
              name_endings=("monitor.csv",), own_step="monitor.csv: the cumulative episode length",
              default_tags=_TABLES + "monitor_tags", states=("task",), stated_as=("the header's env_id",),
              renamable=("task",), combine=_TABLES + "combine_monitors",
              note="the step of a monitor.csv row is the cumulative episode length (SB3's timesteps), counted over "
                   "all monitor files of a run in time order", values="episodes"),
    LogFormat("sb3_progress", "Stable-Baselines3 logger progress.csv files", _TABLES + "read_progress",
              file_names=("progress.csv",)),
    LogFormat("spinup", "Spinning Up progress.txt files", _TABLES + "read_spinup", file_names=("progress.txt",)),
    LogFormat("csv", "CSV files", _TABLES + "read_csv_log", name_endings=(".csv",),
              also_reads=("sb3_progress", "sb3_monitor"), runs_inside=_TABLES + "looks_like_wandb_export"),
    LogFormat("jsonl", "JSON-lines files", _TABLES + "read_json_lines", file_names=("progress.json",),
              name_endings=(".jsonl",)),
    LogFormat("wandb_csv", "W&B CSV exports", _TABLES + "read_csv_log", also_reads=("csv",),
              runs_inside=_TABLES + "looks_like_wandb_export"),  # told from other CSV files by its header
    LogFormat("sb3_eval", "Stable-Baselines3 EvalCallback evaluations.npz files", "._npz:read",
              file_names=("evaluations.npz",), any_name_ending=".npz", own_step="evaluations.npz: timesteps",
              default_tags="._npz:default_tags", values="evaluations", note="._npz:note", binary=True),
    LogFormat("marl_eval", "marl-eval JSON files", "._marl_eval:read", file_names=("metrics.json",),
              any_name_ending=".json", own_step="marl-eval: step_count", default_tags="._marl_eval:default_tags",
              states=(*STANDARD_FIELDS, "environment"),
              stated_as=("the algorithm key", "the task key", "the run key, less a leading 'seed_'",
                         "the environment key"),
              note="a marl-eval row's metrics are the means of the values logged at that evaluation (marl-eval's "
                   "mean_<metric>); 'absolute_metrics/<metric>' is the run's absolute metric, placed at its last step"),
)}
#: What each format's files (or read_wandb's runs, read through W&B's API rather than from files) are called.
LABELS = {**{name: record.label for name, record in FORMATS.items()}, "wandb": "W&B runs"}


def recognise(file_name):
    """The format ``file_name`` announces (the first record recognising it), or None.

    >>> recognise("0.monitor.csv").name, recognise("seed1.csv").name, recognise("notes.txt")
    ('sb3_monitor', 'csv', None)
    """
    return next((record for record in FORMATS.values() if record.recognises(file_name)), None)


def file_format(file_name):
    """The name of the format ``file_name`` announces, or None."""
    record = recognise(file_name)
    return None if record is None else record.name


def binary_log(file_name):
    """The format of binary log files whose name ``file_name`` has (by default, or by its ending alone, as a ``.npz``
    named otherwise), or None.

    >>> binary_log("evaluations.npz").name, binary_log("seed_0.npz").name, binary_log("runs.csv")
    ('sb3_eval', 'sb3_eval', None)
    """
    return next((record for record in FORMATS.values() if record.binary and (
        record.recognises(file_name) or (record.any_name_ending and file_name.endswith(record.any_name_ending)))),
        None)


def file_patterns():
    """The names recognised by default, for a message: ``events.out.tfevents.*, *monitor.csv, ...``."""
    return ", ".join(pattern for record in FORMATS.values() for pattern in
                     ([f"{b}*" for b in record.name_beginnings] + [f"*{e}" for e in record.name_endings]
                      + list(record.file_names)))
