"""``read_logs``: a folder of training logs -> one long frame, with a record of every file.

Three steps, each asking the format's record (:mod:`._formats`) what differs between formats:
:func:`find_runs` (discover the files and the run each belongs to), :func:`read_runs` (read each file,
group its pieces by run) and :func:`assemble_runs` (the frame, made run by run, with its notes).
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import math
import numbers
import os
import posixpath
import re
import reprlib
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Sequence

import numpy as np
import pandas as pd

from ..connectivity import ATTEMPT, subset_dropping_attempts
from ..provenance import Note, set_notes
from ..format import count, join_and, listed, natural_key, verb
from ..errors import LogReadError, OptionError, close_names, warn
from ..options import check_bool, check_choice, check_int, check_n_jobs, keywords_checked
from ..tag_words import chosen_return
from ..progress import progress_bar
from ._formats import FORMATS, LABELS, STANDARD_FIELDS, LogFormat, file_format, file_patterns, load
from ._layout import Pattern, compile_pattern, discover, stated_notes, with_stated
from ._remote import MAX_FILE_BYTES, MAX_FILES, RemoteOptions, RemoteRoot, is_url, read_in_order
from ._pieces import FileProblem, whole_steps
from ._smooth import check_smooth, smooth_frame

if TYPE_CHECKING:
    from .._typing import LogFormatName, LogKeep, LogOnError, SmoothOver

KEEP = ("last", "first")
ON_ERROR = ("raise", "skip")
#: Most scalars ``tags=`` may name (each becomes a column).
MAX_TAGS = 1_000
#: Key of ``DataFrame.attrs`` holding the :class:`ReadLog` of the files read.
READ_LOG_ATTR = "read_log"
#: The frame's own columns (what each holds): a pattern field or a tag's column of that name would overwrite it.
OWN_COLUMNS = {"step": "the logged step", "wall_time": "the time each row was logged",
               "time_elapsed": "the seconds since the run started", "source": "the file each row came from",
               ATTEMPT: "the folder where a rerun began"}
#: Fields that tell replicate runs apart: runs equal in every other field (agent, task, ...) are siblings.
REPLICATE_FIELDS = ("seed", "run", ATTEMPT)
#: A run ends early when its last logged step is under this fraction of the median last step of its siblings:
#: well past the spread of run lengths a budget gives (SB3 stops at the first whole rollout past it; a
#: monitor.csv's last step misses each environment's unfinished episode, under 7% of a budget on the test logs).
EARLY_END_FRACTION = 0.9
#: Runs named one by one in a note (the read log lists them all).
MAX_NAMED_RUNS = 10


@dataclasses.dataclass(frozen=True)
class ReadProblem:
    """One file (or run) that could not be used: its path relative to the folder, the kind, the detail."""

    source: str
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.source}: {self.kind}: {self.detail}"


@dataclasses.dataclass(frozen=True)
class EarlyEnd:
    """A run whose last logged step is under :data:`EARLY_END_FRACTION` of its siblings' median (a run
    killed, or still running): ``run`` holds its fields as in the frame; ``siblings`` counts the runs it
    was compared with (the same fields but seed, run and attempt), ``siblings_median`` their median last step."""

    run: dict[str, Any]
    last_step: float
    siblings: int
    siblings_median: float

    def __str__(self) -> str:
        # one sibling has a last step, not a median (audit s38 claims38: "its 1 siblings: median 500")
        median = "median " if self.siblings > 1 else ""
        return (f"{run_label(self.run)} ends at step {step_text(self.last_step)} "
                f"(its {count(self.siblings, 'sibling')}: {median}{step_text(self.siblings_median)})")


@dataclasses.dataclass(frozen=True)
class Segment:
    """One file of a run read from several, in the order they were written.

    ``joins`` says how it follows the files before it that log the same tags: ``"first"``; ``"continues"``
    (it starts after their last step); ``"restarts"`` (it starts inside their steps, as a restart from a
    checkpoint: it supersedes them from its first step on, and their ``dropped`` values at ``dropped_steps``
    (first, last) are left out); ``"reruns"`` (it starts again at their first step: a separate run, told apart by
    the ``attempt`` column); ``"alongside"`` (it logs other tags only). ``first_step`` and ``last_step`` are
    its steps with values of the requested tags, as logged.
    """

    run: dict[str, Any]
    source: str
    first_step: float
    last_step: float
    joins: str
    dropped: int = 0
    dropped_steps: tuple[float, float] | None = None

    def __str__(self) -> str:
        return self.describe(self.source)

    def describe(self, name: str) -> str:
        """``PPO_2 (steps 15,000 to 20,000, restarts: 4 values before it at steps 15,000 to 30,000 dropped)``."""
        how = {"continues": ", continues", "restarts": ", restarts",
               "reruns": ", a rerun from the start"}.get(self.joins, "")
        if self.dropped and self.dropped_steps is not None:  # set together
            how += f": {count(self.dropped, 'value')} before it at {steps_text(*self.dropped_steps)} dropped"
        return f"{name} ({steps_text(self.first_step, self.last_step)}{how})"


@dataclasses.dataclass(frozen=True)
class ReadLog:
    """What ``read_logs`` did with each file: kept in ``frame.attrs["read_log"]``.

    Attributes
    ----------
    root : str
        The folder read (given one log file, its folder: see ``single``).
    format : str
        The reader used.
    files : tuple of str
        Every log file found, relative to ``root``.
    problems : tuple of ReadProblem
        Files (or runs) that were unreadable, truncated, corrupt, empty or missing a requested tag.
    ignored : tuple of str
        Files that did not match the pattern and were not read.
    skipped : bool
        True when the problems were skipped (``on_error="skip"``).
    ended_early : tuple of EarlyEnd
        Runs whose last logged step is well before their siblings' (killed, or still running).
    segments : tuple of Segment
        The files of every run read from several files (TensorBoard's ``PPO_1``, ``PPO_2``, ...), with
        their steps and how each follows the ones before: continues, restarts (superseding) or reruns.
    single : bool
        True when the path read was one log file (``files`` holds its name alone).
    unfollowed : tuple of str
        Folders under the folder read that are symbolic links, relative to it: not followed, their files not read.
    """

    root: str
    format: str
    files: tuple[str, ...]
    problems: tuple[ReadProblem, ...] = ()
    ignored: tuple[str, ...] = ()
    skipped: bool = False
    ended_early: tuple[EarlyEnd, ...] = ()
    segments: tuple[Segment, ...] = ()
    single: bool = False
    unfollowed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_frame(self) -> pd.DataFrame:
        """One row per problem: source, kind, detail."""
        return pd.DataFrame([dataclasses.asdict(p) for p in self.problems], columns=["source", "kind", "detail"])

    def __str__(self) -> str:
        if self.single:  # one file read: no folder, nothing left out by the pattern (that is an error)
            lines = [f"read_logs: the {one_file(LABELS.get(self.format, self.format))} "
                     f"{posixpath.join(self.root, self.files[0])}, {len(self.problems)} with problems"]
        else:
            # a problem of a run (one that lost a file, or lacks a tag among others of its file) is no file's
            runs = sum(p.source not in self.files for p in self.problems)
            left_out = f", {count(runs, 'run')} left out" if runs else ""
            label = LABELS.get(self.format, self.format)  # "1 marl-eval JSON file" (audit s32)
            lines = [f"read_logs: {count(len(self.files), one_file(label), label)} under {self.root}, "
                     f"{len(self.problems) - runs} with problems{left_out}, {len(self.ignored)} not matching the "
                     "pattern"]
        lines += [f"  {p}" for p in self.problems]
        lines += [f"  ends early: {e}" for e in self.ended_early]
        lines += [f"  {run_label(s.run)}: {s}" for s in self.segments]
        lines += [f"  a symbolic link to a folder, not followed: {u}" for u in self.unfollowed]
        return "\n".join(lines)


def choose_return_tag(available: Collection[str]) -> tuple[str, str]:
    """The tag that looks like an evaluation return, with the reason; OptionError when ambiguous.

    Tags are split into words (``eval/mean_reward`` -> eval, mean, reward; ``AverageTestEpRet`` ->
    average, test, ep, ret). Return-like tags name a return or reward (return, ret, reward, rew,
    score) and no spread (std, min, max, ...); among them, those naming an evaluation (eval,
    evaluation, test) win. Exactly one must remain.
    """
    if isinstance(available, (str, bytes)) or not isinstance(available, Collection) \
            or not all(isinstance(t, str) for t in available):  # a single name would be read as its letters
        raise OptionError(f"available must be a collection of tag names, e.g. ['eval/mean_reward', "
                          f"'rollout/ep_rew_mean'], got {reprlib.repr(available)}")
    chosen, candidates, why = chosen_return(available)
    listed = _listed(available)
    if chosen is not None:
        return chosen, f"chosen as {why} among the logged tags"
    if candidates:
        raise OptionError(f"several tags look like the evaluation return ({_listed(candidates)}); "
                          f"name the one to read with tags=, e.g. tags={candidates[0]!r}. Logged tags: {listed}")
    raise OptionError(f"no logged tag looks like a return or reward; name the scalars to read with tags=. "
                      f"Logged tags: {listed}")


def tag_mapping(tags, option):
    """``tags=`` (a name, a list of names, or a dict name -> column) as a dict name -> column, of at most
    MAX_TAGS names (a generator is read no further)."""
    if isinstance(tags, str):
        return {tags: tags}
    try:
        pairs = tags.items() if isinstance(tags, dict) else ((t, t) for t in tags)
        mapping = {str(k): str(v) for k, v in itertools.islice(pairs, MAX_TAGS + 1)}
    except TypeError:
        raise OptionError(f"{option}= must be a name, a list of them or a dict name -> column, e.g. "
                          f"{option}={{'eval/return': 'score'}}; got {type(tags).__name__}") from None
    if not mapping:
        raise OptionError(f"{option}= is empty; name at least one scalar to read")
    if len(mapping) > MAX_TAGS:
        raise OptionError(f"{option}= names more than the {MAX_TAGS:,} scalars a frame may have as columns; name "
                          "the ones to compare")
    return mapping


def _resolve_tags(tags, available, record):
    """(tag -> column name, sentence): ``tags=``, or the format's default."""
    if tags is None:
        if record.default_tags:
            return load(record.default_tags)(available)
        tag, why = choose_return_tag(available)
        return {tag: tag}, f"tag {tag!r} ({why}; pass tags= to choose)"
    mapping = tag_mapping(tags, "tags")
    unknown = [t for t in mapping if t not in available]
    if unknown:
        raise OptionError(f"no run logs {_listed(unknown)}; pass tags= naming logged tags: {_listed(available)}")
    names = list(mapping.values())
    twice = sorted(name for name, times in collections.Counter(names).items() if times > 1)
    if twice:
        raise OptionError(f"tags= gives two tags the same column name {_listed(twice)}; give each its own")
    listed = ", ".join(repr(t) if t == c else f"{t!r} as {c!r}" for t, c in mapping.items())
    return mapping, ("tag " if len(mapping) == 1 else "tags ") + listed


def _listed(items, limit=20):
    """``'a', 'b', ... and 3 more``: the first ``limit`` of ``items`` for a message."""
    return listed(map(repr, items), limit)


def _field_values(field_rows, names):
    """Each field's column, one value per run: numbers a pattern callable returned stay numbers of their
    type; seeds written in digits become integers (only when that loses nothing: '007' stays text);
    anything else is text (None where a run has no value)."""
    columns = {}
    for name in names:
        raw = [fields.get(name) for fields in field_rows]
        if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in raw):
            columns[name] = np.asarray(raw)
        # isdecimal, not isdigit: '²' is a digit int() cannot read; a 64-bit unsigned seed beyond int64 stays text
        elif name == "seed" and all(isinstance(v, str) and v.isdecimal() and str(int(v)) == v and int(v) < 2**63
                                    for v in raw):
            columns[name] = np.asarray([int(v) for v in raw], dtype=np.int64)
        else:
            columns[name] = np.asarray([None if v is None else str(v) for v in raw], dtype=object)
    return columns


def step_text(step):
    """A step for a note, exactly: 8,192 or 12.5."""
    return f"{int(step):,}" if float(step).is_integer() else f"{float(step):g}"


def steps_text(first, last):
    """``steps 200 to 300``, or ``step 300`` when the two are one step (audit s23: "at steps 3,000 to 3,000")."""
    if first == last:
        return f"step {step_text(first)}"
    return f"steps {step_text(first)} to {step_text(last)}"


def run_label(run):
    """``agent=PPO task=CartPole-v1 seed=1``: a run's fields for a note."""
    return " ".join(f"{name}={value}" for name, value in run.items())


def check_columns(fields, mapping, *, option="tags", where="pattern="):
    """OptionError when a run field has the name of one of the frame's own columns, or a scalar's column has
    the name of a field or of an own column: either would overwrite the other without a word."""
    for name in fields:
        if name in OWN_COLUMNS:
            raise OptionError(f"{where} gives a field {name!r}, the name of the frame's own column {name!r} "
                              f"({OWN_COLUMNS[name]}), which it would replace; name the field otherwise, "
                              f"e.g. {{run_{name}}}")
    for tag, column in mapping.items():
        if column in fields or column in OWN_COLUMNS:
            what = (f"the run field {column!r} (from {where})" if column in fields else
                    f"the frame's own column {column!r} ({OWN_COLUMNS[column]})")
            raise OptionError(f"the scalar {tag!r} would be read into a column named {column!r}, {what}, and one "
                              f"would overwrite the other; name its column with {option}=, e.g. "
                              f"{option}={{{tag!r}: 'score'}}")


def _first_time(piece):
    """When a file began, by its first logged wall time (None when it has none)."""
    if piece.wall_time is None or not np.isfinite(piece.wall_time).any():
        return None
    return float(np.nanmin(piece.wall_time))


def _without(piece, gone):
    """The piece without the records ``gone`` marks."""
    keep = ~gone
    pick = (lambda a: None if a is None else a[keep])
    return dataclasses.replace(piece, step=piece.step[keep], tag=piece.tag[keep], value=piece.value[keep],
                               wall_time=pick(piece.wall_time), time_elapsed=pick(piece.time_elapsed))


def _split_attempts(pieces, mapping, sources):
    """One run's files in the order written (first wall time, else path with numbers read as numbers),
    split where a file starts again at its predecessors' first step (a rerun: a new attempt); a file
    starting inside their steps (a restart from a checkpoint) supersedes the attempt's earlier files from
    its first step on, whether or not it logs those steps again (the abandoned training logged them, in
    every file). Files that log none of the same tags are alongside (a train/ and an eval/ folder). A
    file's first step counts all its tags (the restart point); predecessors are the earlier files of
    the attempt that log one of its requested tags.

    Returns (attempts, segments): lists of (file index, piece), and per file with values of the
    requested tags (file index, attempt, first, last, joins, dropped, dropped steps).
    """
    order = sorted(pieces, key=lambda entry: natural_key(sources[entry[0]]))
    times = [_first_time(piece) for _, piece in order]
    if all(t is not None for t in times):
        order = [order[i] for i in sorted(range(len(order)), key=times.__getitem__)]  # stable: ties by path
    attempts, segments = [], []
    for index, piece in order:
        wanted = np.isin(piece.tag, [k for k, t in enumerate(piece.tags) if t in mapping])
        if not wanted.any():
            continue  # none of the requested tags: no row comes from it
        tags = {piece.tags[k] for k in np.unique(piece.tag[wanted]).tolist()}
        start, stop = piece.step.min(), piece.step.max()
        placed = attempts[-1] if attempts else []
        related = [entry for entry in placed if entry[2] & tags]
        dropped, low, high = 0, None, None
        if not related:
            joins = "alongside" if placed else "first"
        elif start <= min(entry[3] for entry in related):
            joins = "reruns"
        elif start > max(entry[4] for entry in related):
            joins = "continues"
        else:
            joins = "restarts"
            for entry in placed:  # what the abandoned training logged from here on, in any of its files
                earlier = entry[1]
                requested = np.isin(earlier.tag, [k for k, t in enumerate(earlier.tags) if t in mapping])
                gone = requested & (earlier.step >= start)
                if gone.any():
                    steps = earlier.step[gone]
                    dropped += int(gone.sum())
                    low = steps.min() if low is None else min(low, steps.min())
                    high = steps.max() if high is None else max(high, steps.max())
                    entry[1] = _without(earlier, gone)
        if joins in ("first", "reruns"):
            attempts.append([])
        attempts[-1].append([index, piece, tags, start, stop])
        segments.append((index, len(attempts) - 1, piece.step[wanted].min(), piece.step[wanted].max(), joins,
                         dropped, None if low is None else (low, high)))
    return [[(entry[0], entry[1]) for entry in attempt] for attempt in attempts], segments


def _attempt_labels(first_sources):
    """Names of a run's attempts from the file each began with: its folder (``PPO_2``), relative to the
    folder the attempts share, or the file when two began in one folder."""
    folders = [posixpath.dirname(source) for source in first_sources]
    if len(folders) == 1:
        return [posixpath.basename(folders[0]) or "."]
    common = posixpath.commonpath(folders)
    labels = [posixpath.relpath(folder, common or ".") for folder in folders]
    if len(set(labels)) < len(labels) or "." in labels:
        labels = [posixpath.relpath(source, common or ".") for source in first_sources]
    return labels


def _median_of_others(values):
    """For each value, the median of all the others (vectorised over the sorted values)."""
    n = values.size
    order = np.argsort(values, kind="stable")
    rank = np.empty(n, dtype=np.intp)
    rank[order] = np.arange(n)
    ordered = values[order]
    low, high = (n - 2) // 2, (n - 1) // 2  # middle positions among the n - 1 others
    pick = (lambda j: ordered[j + (j >= rank)])  # others' position j skips the value itself
    return (pick(low) + pick(high)) / 2


def _early_ends(runs, last_steps):
    """EarlyEnds among ``runs`` (field dicts as in the frame) with their last steps: siblings share every
    field but seed, run and attempt; at least one sibling is needed."""
    groups = {}
    for i, run in enumerate(runs):
        key = tuple((k, str(v)) for k, v in run.items() if k not in REPLICATE_FIELDS)
        groups.setdefault(key, []).append(i)
    found = []
    for members in groups.values():
        if len(members) < 2:
            continue
        last = np.asarray([last_steps[i] for i in members], dtype=float)
        median = _median_of_others(last)
        for i, step, other in zip(members, last, median):
            if step < EARLY_END_FRACTION * other:
                found.append(EarlyEnd(runs[i], last_steps[i], len(members) - 1, float(other)))
    return tuple(found)


def _listed_runs(items):
    shown = "; ".join(str(item) for item in items[:MAX_NAMED_RUNS])
    return shown if len(items) <= MAX_NAMED_RUNS else f"{shown}; and {len(items) - MAX_NAMED_RUNS} more"


@keywords_checked  # a keyword it does not take: an OptionError naming it, not Python's TypeError
def read_logs(path: str | os.PathLike[str], pattern: str | Callable[..., Any] | None = None, *,
              format: LogFormatName | None = None, tags: str | Sequence[str] | dict[str, str] | None = None,
              step: str | None = None, keep: LogKeep = "last", on_error: LogOnError = "raise", progress: bool = True,
              n_jobs: int = 1, smooth: int | None = None, smooth_over: SmoothOver = "episodes",
              storage_options: dict[str, Any] | None = None, max_files: int = MAX_FILES,
              max_file_bytes: int = MAX_FILE_BYTES) -> pd.DataFrame:
    """Read a folder of training logs into one long frame: one row per run and logged step.

    Parameters
    ----------
    path : str, Path or URL
        A folder of runs (searched recursively), or one log file; or the URL of either, read through
        fsspec (``pip install fsspec``, or ``pip install ".[remote]"`` in a source checkout): ``s3://bucket/runs``,
        ``gs://...``, ``https://...``
        (one file), ``file://...``, ``memory://...``, chained as ``simplecache::s3://...``. The protocol's
        filesystem is yours to install (``pip install s3fs`` for ``s3://``, ``gcsfs`` for ``gs://``); the
        error says which. A URL is listed and its files recognised, matched and read as a local folder's
        (over HTTP, where a folder's page is a file too, end a folder's URL with ``/``). A folder under a
        symbolic link is not followed (a W&B folder's ``latest-run`` would read a run twice): the notes and
        the read log name it. A folder that cannot be listed (no permission) is an error.
    pattern : str or callable, optional
        Where agent, task and seed come from: ``"{agent}/{task}/seed_{seed}"`` is matched against
        the start of each file's path relative to ``path``. A field is one or more characters
        other than ``/``, up to the first occurrence of the text that follows it in the pattern
        (``{task}-seed{seed}`` reads ``Hopper-v4-seed1`` as task ``Hopper-v4``); ``*`` is the same
        without a name and may be empty. Fields need text between them (``{agent}{task}`` is an
        error), so matching takes time linear in the path; at most 32 fields, 4,096 characters.
        Any field names may be used but the frame's own columns (``step``, ``wall_time``,
        ``time_elapsed``, ``source``, ``attempt``); each becomes a column. For a W&B export, the pattern is
        matched against each run's name. A callable receives the relative path (or run name) and
        returns a dict of fields, or None to leave the file out. Files the pattern does not match
        are not read (they are counted in the notes and listed in the read log). Without a pattern, a column ``run``
        holds the file's folder (or the run's name). Fields the pattern lacks are taken from the
        log where it states them (a monitor.csv header's ``env_id`` gives ``task``; a marl-eval
        file's keys give ``agent``, ``task``, ``seed`` and ``environment``), stated in the notes. A
        field the pattern gives otherwise than the log states it is an OptionError naming both
        (drop the field from the pattern, or name it otherwise); only a monitor.csv's ``env_id``
        may differ from the path's ``task`` (a folder ``hopper`` for ``Hopper-v4``): the path's is
        kept and a note names both.
    format : str, optional
        One of ``"tensorboard"`` (``events.out.tfevents.*``), ``"sb3_monitor"`` (``*monitor.csv``),
        ``"sb3_progress"`` (``progress.csv``), ``"spinup"`` (``progress.txt``), ``"csv"``,
        ``"jsonl"`` (``*.jsonl``, ``progress.json``), ``"wandb_csv"`` (a chart's CSV export),
        ``"sb3_eval"`` (SB3 EvalCallback's ``evaluations.npz``; any ``*.npz`` when named here) or
        ``"marl_eval"`` (marl-eval's ``metrics.json``; any ``*.json`` when named here).
        By default, the one format found by the files' names, never by reading them (marl-eval's
        own sample ``mock_data_test.json`` needs ``format="marl_eval"``, which the error names);
        finding several is an error that counts them (an SB3
        run folder often holds monitor.csv, event files and evaluations.npz: choose one).

        ``evaluations.npz`` gives one row per evaluation: ``eval/mean_reward`` (the mean return over
        its episodes, as EvalCallback logs it to TensorBoard), ``eval/episodes`` (their number), and
        on request ``eval/mean_ep_length`` and ``eval/success_rate``. It is read without unpickling
        (an array of Python objects is refused) and its arrays are bounded at 256 MiB. The shape
        (evaluations, episodes, 1) that SB3 before 1.1 wrote is read as (evaluations, episodes).
        A marl-eval file (``{environment: {task: {algorithm: {run: {"step_1": {"step_count": n,
        metric: [values]}, ..., "absolute_metrics": {...}}}}}}``) holds its runs' fields: columns
        ``agent`` (the algorithm), ``task``, ``seed`` (the run key, without a leading ``seed_``)
        and ``environment``, with no ``run`` column when there is no pattern. Each metric is the mean
        of the values logged at an evaluation (all metrics by default); ``absolute_metrics/<metric>``
        (the absolute metrics, at each run's last step) are read when named in ``tags=``. At most
        512 MiB and 64 levels of nesting.
    tags : str, list of str or dict, optional
        The scalars to read (tags of event files, columns of tables); a dict maps each to its
        column name, e.g. ``{"eval/mean_reward": "score"}``. By default the one scalar that looks
        like an evaluation return (see :func:`choose_return_tag`; for monitor.csv, ``r``), stated
        in the notes; when several or none do, an error lists the logged tags. A column named like
        a field or one of the frame's own columns is an error. A JSON log's ``true`` and ``false`` are
        read as 1 and 0 in a column of them alone (a success flag; stated in the notes), and are an
        error among numbers or as a step.
    step : str, optional
        The step column of a table (default: the first of ``time/total_timesteps``,
        ``TotalEnvInteracts``, ``global_step``, ``step``, ``Step``, ``_step``, ...). Event files
        carry their own step; a monitor.csv's step is the cumulative episode length.
    keep : {"last", "first"}
        Which value to keep when one file logs a tag at the same step more than once: ``"last"``
        keeps the one written last. Their number is stated in the notes. (A restart's file
        supersedes the files before it from its first step on, whatever ``keep``; see Notes.)
    on_error : {"raise", "skip"}
        A file that is unreadable, truncated mid-record, corrupt or empty, and a run missing a
        requested tag, is recorded in the read log; ``"raise"`` then raises a LogReadError listing
        them, ``"skip"`` leaves them out with a warning that counts them. A run of monitor.csv files
        (read side by side, its steps counting the episodes of all of them) that loses one is left out
        whole, as a problem of its own; a run whose monitor.csv files lie in several folders (a pattern
        without the field telling them apart) is an OptionError. A monitor.csv holding its header alone (a
        VecEnv's environment that finished no episode) adds no episode to its run, named in the notes; a run
        of such files alone is empty. A CSV log's last line without a line end is read when it has every field
        (a file written by hand may lack it), and named in the notes: it may have been cut off mid-value.
    progress : bool
        Show a progress bar over the files where someone sees it: on stderr when it is a terminal, as a
        widget in a notebook with ipywidgets; elsewhere (a pipe, a log, a notebook without ipywidgets)
        nothing is shown.
    n_jobs : int
        Files read in parallel by joblib (-1: all cores); from a URL, by as many threads, with at most
        256 MiB of files being read at once. The frame is the same whatever ``n_jobs``.
    smooth : int, optional
        Replace each scalar by a trailing rolling mean over a window of this many episodes or steps
        (``smooth_over``), within each run: a monitor.csv's jagged episode returns become the curve
        SB3's ``plot_results`` draws (``smooth=100``). Rows at the start of a run average the fewer
        values logged so far; no row is dropped. Stated in the notes. A window of at least the
        longest run is an error.
    smooth_over : {"episodes", "steps"}
        ``"episodes"``: the window counts the run's logged values (episodes in a monitor.csv,
        evaluations in an evaluations.npz); ``"steps"``: it holds the values logged at steps in
        ``(step - smooth, step]``.
    storage_options : dict, optional
        For a URL: the options of its filesystem (credentials, ``endpoint_url``, ...), as fsspec and
        pandas take them. An error with a local path.
    max_files : int
        The most files the listing of ``path`` (a local folder or a URL) may hold (every file counts,
        log or not), 100,000 by default; a larger listing is an error before any file is read. Pass
        more to read more. The listing goes folder by folder and stops at the folder that passes the
        bound, but (for a URL) one folder's
        listing comes whole (fsspec has no filesystem-independent paged listing): a flat folder of
        millions of objects is listed before it is refused, so name a narrower folder there.
    max_file_bytes : int
        For a URL: the most bytes one file may have, 1 GiB by default (a file is held in memory while
        it is read); a larger file is a problem of that file (see ``on_error``), found before its
        bytes are read, or when the listing gives no size (an HTTP folder's page) after reading at
        most ``max_file_bytes + 1`` of them. Local files are read as they are.

    Returns
    -------
    pandas.DataFrame
        The pattern's fields (``agent``, ``task``, ``seed`` first, or ``run``), ``step``, one column
        per scalar, ``wall_time`` (seconds since the epoch) or ``time_elapsed`` (seconds since the
        run started) where the log records time, and ``source`` (the file each row came from,
        relative to ``path``), sorted by run (its fields in column order, numbers in them read as
        numbers, whatever order a file lists its runs in) and step; ``attempt`` when a run was started again
        from its first step (see Notes). Scalars logged at different steps (SB3's rollout and evaluation tags) are
        joined on the step: a row is a step where any of them was logged, NaN where one was not (the notes count
        them). ``attrs["rlstats_notes"]`` says what was read and how;
        results built from the frame repeat it. ``attrs["read_log"]`` is a :class:`ReadLog`,
        which lists the files with problems, the runs that end early and every run's files.

    Raises
    ------
    LogReadError
        No logs found, several formats found, a folder that cannot be listed, or (by default) files that could
        not be read.
    OptionError
        An unknown option value, a pattern with fields side by side or beyond its bounds, ``n_jobs``
        above four per core (:data:`rlstats.options.JOBS_PER_CORE`), or ``tags=`` that is ambiguous,
        names no logged scalar or more than 1,000; ``smooth=`` that is not a positive whole number,
        is above 10**12 or spans every run; a pattern field or a tag's column that would overwrite
        another column, or that names a run otherwise than its log states it.

    See Also
    --------
    rlstats.read_wandb : Runs of a W&B project through its API.
    rlstats.curves : Aggregate learning curves with bands.
    rlstats.summarize_runs : One number per run for any back end.

    Notes
    -----
    Every run is accounted for in the notes and the read log:

    - *Runs that end early.* A run whose last logged step is under 90% of the median last step
      of its siblings (the other runs with the same fields but ``seed``, ``run`` and ``attempt``:
      the same agent and task) is named with its last step: a run killed, or still running, whose
      final value would be compared with others' at a later step.
    - *Runs read from several files* (Stable-Baselines3 writes ``tb/PPO_1``, then ``tb/PPO_2``
      when a run is started again in its folder) are named with each file's steps. The files of
      a run are taken in the order written (their first wall time; else their paths, numbers read
      as numbers) and each is compared with the earlier files logging the same tags: a file
      starting after their last step *continues* the run; one starting inside their steps
      *restarts* it from a checkpoint and supersedes the run's earlier files from its first step
      on (its first step of any tag), so their values at or after it are dropped even where the
      restart never logged those steps again (the count and the steps are stated); one starting
      again at or before their first step is a *rerun*: each attempt becomes a run of its own, told apart by the column ``attempt`` (the
      folder it began in, e.g. ``PPO_2``; every run has one then). A rerun is neither merged (its values
      would mix two trainings) nor dropped (which attempt is meant is the caller's choice: the note gives
      the ``subset=`` that drops the run's other attempts, e.g. ``"~(agent == 'ppo' & task == 'hopper' &
      seed == 1 & attempt != 'PPO_2')"``); back ends refuse two runs with one seed, so it cannot pass
      as another seed unnoticed. Files logging none of the same tags run alongside (a ``train/``
      and an ``eval/`` folder); a VecEnv's monitor.csv files run side by side, never in turn.
    - *Copies of a run.* Runs whose rows are the same in every value, step and logged time (a run
      folder copied beside itself, ``seed_1 (copy)``) are named in a note: each would count as a run.
      Logs without times (evaluations.npz) are not compared, as two runs may log the same values. A run
      named inside its files (marl-eval's JSON, a W&B export) that two files give at the same steps (a
      merged file beside its parts) is a problem of that run naming both files (see ``on_error``).
    - *Names written in several Unicode forms.* A run field the paths write in two forms that print
      alike (an ``ä`` as one character, or as ``a`` and an accent, as macOS writes file names copied
      from a Mac) is read as one name in the composed form (NFC), with a note naming the forms and
      counting their files; a name written in one form only is kept as written.
    - *Values logged as NaN or infinite* (a diverged run: ``nan`` in a table's cell or a monitor.csv's
      return, ``NaN`` in a JSON record, a NaN scalar in an event file, an evaluation episode's return in an
      evaluations.npz or a metric's value in marl-eval's JSON, whose mean is then NaN or infinite) are kept as
      rows, and the notes count them, so that an analysis refuses them (or drops them where asked) rather than
      read the run as not logged there; an empty cell, or a key a JSON record lacks (or holds as ``null``), is a
      value not logged.

    Examples
    --------
    Two runs written by tensorboardX (``pip install tensorboardX``), read back:

    >>> import tempfile
    >>> import rlstats
    >>> from tensorboardX import SummaryWriter
    >>> folder = tempfile.mkdtemp()
    >>> for seed in (1, 2):
    ...     with SummaryWriter(f"{folder}/ppo/hopper/seed_{seed}") as writer:
    ...         for step in range(3):
    ...             writer.add_scalar("eval/mean_reward", 10 * seed + step, step * 1000)
    ...             writer.add_scalar("train/loss", 1 / (step + 1), step * 1000)
    >>> frame = rlstats.read_logs(folder, "{agent}/{task}/seed_{seed}", progress=False)
    >>> frame[["agent", "task", "seed", "step", "eval/mean_reward"]].values.tolist()[:4]
    ... # doctest: +NORMALIZE_WHITESPACE
    [['ppo', 'hopper', 1, 0, 10.0], ['ppo', 'hopper', 1, 1000, 11.0], ['ppo', 'hopper', 1, 2000, 12.0],
     ['ppo', 'hopper', 2, 0, 20.0]]
    >>> print(frame.attrs["rlstats_notes"][0])  # doctest: +NORMALIZE_WHITESPACE
    read 2 runs from 2 TensorBoard event files, tag 'eval/mean_reward' (chosen as the one evaluation
    return among the logged tags; pass tags= to choose)
    """
    options = ReadOptions.checked(format, step, keep, on_error, progress, n_jobs, smooth, smooth_over,
                                  remote=(path, storage_options, max_files, max_file_bytes))
    compiled = compile_pattern(pattern)
    check_columns(compiled.fields, {})  # before any file is read
    found = find_runs(path, compiled, options)
    runs, field_names = read_runs(found, options)
    _warn_misspelt_fields(field_names, found.record.states)
    label, total = found.record.label, len(found.to_read)
    if not runs:
        if found.problems:
            _fail_or_warn(found.problems, _where(found, path), label, options.on_error, total=total, fatal=True)
        if found.single:  # the pattern reads the path below the folder read: here the file's name alone
            raise LogReadError(f"the {one_file(label)} {path} does not match the pattern {pattern!r}, which is "
                               f"matched with the path below the folder read: here the file's name "
                               f"{found.files[0]!r}; give the folder of runs, or no pattern")
        files = f"none of the {len(found.files)} {label}" if len(found.files) != 1 else f"the {one_file(label)}"
        raise LogReadError(f"{files} under {path} {'matches' if len(found.files) != 1 else 'does not match'} the "
                           f"pattern {pattern!r}; e.g. {found.files[0]!r}")
    available = sorted({t for _, pieces in runs.values() for _, p in pieces for t in p.tags})
    mapping, tag_sentence = _resolve_tags(tags, available, found.record)
    check_columns(field_names, mapping)  # fields a callable or a log gave, and the tags' columns
    complete = _complete_runs(runs, mapping, found)
    if found.problems:
        _fail_or_warn(found.problems, _where(found, path), label, options.on_error, total=total, fatal=not complete,
                      files=set(found.to_read))
    return assemble_runs(complete, field_names, mapping, tag_sentence, found, options)


@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """read_logs' options, checked once (``smoothing``: (window, unit), or None)."""

    format: str | None
    step: str | None
    keep: str
    on_error: str
    progress: bool
    n_jobs: int
    smoothing: tuple | None
    #: how a URL is opened and bounded (None for a local path)
    remote: RemoteOptions | None = None
    #: the most files a listing may hold, a local folder's or a URL's
    max_files: int = MAX_FILES

    @classmethod
    def checked(cls, format, step, keep, on_error, progress, n_jobs, smooth, smooth_over, remote=(None, None,
                                                                                                  MAX_FILES,
                                                                                                  MAX_FILE_BYTES)):
        if format is not None:
            check_choice("format", format, tuple(FORMATS))
        keep = check_choice("keep", keep, KEEP)
        on_error = check_choice("on_error", on_error, ON_ERROR)
        progress = check_bool("progress", progress)
        n_jobs = check_n_jobs(n_jobs)
        smoothing = check_smooth(smooth, smooth_over)
        if step is not None and not isinstance(step, str):
            raise OptionError(f"step= names the step column of a table, e.g. step='global_step'; got {step!r}")
        path, storage_options, max_files, max_file_bytes = remote
        max_files = check_int("max_files", max_files, minimum=1)
        return cls(format, step, keep, on_error, progress, n_jobs, smoothing,
                   _remote_options(path, storage_options, max_files, max_file_bytes), max_files)


def _remote_options(path, storage_options, max_files, max_file_bytes):
    """The RemoteOptions of a URL (None for a local path, where ``storage_options=`` is an error)."""
    max_file_bytes = check_int("max_file_bytes", max_file_bytes, minimum=1)
    if storage_options is not None and not isinstance(storage_options, dict):
        raise OptionError(f"storage_options= must be a dict of the filesystem's options, e.g. "
                          f"{{'endpoint_url': 'http://127.0.0.1:9000'}}; got {type(storage_options).__name__}")
    if not is_url(path):
        if storage_options:
            raise OptionError(f"storage_options= is for a URL's filesystem, and {str(path)!r:.80} is a local path; "
                              "drop storage_options=, or give the URL, e.g. 's3://bucket/runs'")
        return None
    return RemoteOptions(dict(storage_options or {}), max_files, max_file_bytes)


@dataclasses.dataclass
class Found:
    """What a read found: the format, the folder, every log file, the pattern, the files to read with the fields
    each path gives (None without a pattern, or for a file holding several runs, matched by their names once
    read), what the pattern left out, the problems met, the run fields taken from the logs and the files naming a
    run otherwise than their path (these grow as the files are read)."""

    record: LogFormat
    root: Path | RemoteRoot
    files: list
    pattern: Pattern
    to_read: list
    fields: list
    ignored: list
    problems: list = dataclasses.field(default_factory=list)
    #: run fields taken from the logs, and the files naming a run otherwise than their path (Renamed)
    filled: set = dataclasses.field(default_factory=set)
    renamed: list = dataclasses.field(default_factory=list)
    #: True when the path read was one log file (``root`` is then its folder, ``files`` its name)
    single: bool = False
    #: folders under symbolic links, not followed (relative to ``root``)
    unfollowed: list = dataclasses.field(default_factory=list)
    #: notes on the run names the paths write in several Unicode forms, read as one (:func:`_merge_unicode_forms`)
    merged: list = dataclasses.field(default_factory=list)


def find_runs(path, compiled, options):
    """Discover the logs under ``path`` (of one format) and which run each file belongs to, before reading any
    (files the pattern does not match are never opened). LogReadError when there are none or several formats;
    OptionError for ``step=`` with a format that states its step."""
    root, by_format, single, unfollowed, others = discover(path, options.format, options.remote, options.max_files)
    if not by_format:
        looked = FORMATS[options.format].label if options.format else file_patterns()
        # files under other names may be logs a format reads when named (audit s21: a marl-eval JSON)
        files = (f"its one file, {others[0]!r}, has none of those names" if len(others) == 1 else
                 f"its {count(len(others), 'file')} (first: {', '.join(map(repr, others[:2]))}) have none of those "
                 "names")
        logs = "it is a log" if len(others) == 1 else "they are logs"
        named = (f"; {files}: if {logs}, pass format= (one of {', '.join(FORMATS)})"
                 if others and options.format is None else "")
        raise LogReadError(f"no training logs under {path} (looked for {looked}){named}"
                           + (f"; {_unfollowed_text(unfollowed)}" if unfollowed else ""))
    if len(by_format) > 1:
        # the most files first: the example is the kind the folder holds most of, not a stray file found first
        kinds = sorted(by_format, key=lambda kind: (-len(by_format[kind]), list(FORMATS).index(kind)))
        counts = ", ".join(f"{len(by_format[kind])} "
                           f"{FORMATS[kind].label if len(by_format[kind]) > 1 else one_file(FORMATS[kind].label)}"
                           for kind in kinds)
        raise LogReadError(f"found several kinds of logs under {path}: {counts}; choose one with format=, "
                           f"e.g. format={kinds[0]!r}")
    (kind, files), = by_format.items()
    record = FORMATS[kind]
    if options.step is not None and record.own_step:
        stated = "; ".join(other.own_step for other in FORMATS.values() if other.own_step)
        raise OptionError(f"step= names the step column of a table; {record.label} carry their own step ({stated})")
    found = Found(record, root, files, compiled, [], [], [], single=single, unfollowed=unfollowed)
    for relative in files:
        fields = compiled.match(relative)  # None without a pattern
        if compiled.text is not None and record.runs_inside and (
                fields is not None or load(record.runs_inside)(root / relative)):
            fields = None  # a file that may hold several runs: matched by their names once read
        elif compiled.text is not None and fields is None:
            found.ignored.append(relative)
            continue
        found.to_read.append(relative)
        found.fields.append(fields)
    found.merged = _merge_unicode_forms(found.fields)
    return found


def _unicode_form(value):
    """How a name's accents are written: "composed" (NFC), "decomposed" (NFD, as macOS writes file names)."""
    if value == unicodedata.normalize("NFC", value):
        return "composed"
    return "decomposed" if value == unicodedata.normalize("NFD", value) else "partly composed"


def _merge_unicode_forms(fields_per_file):
    """Run names (the pattern's fields of each file, changed in place) that differ only in their Unicode form, such
    as an 'ä' written as one character or as 'a' and an accent (files copied from a Mac), read as one name in the
    composed form (NFC); the notes saying so, one per name. Audit s23: they were two agents that print alike.

    One name means one agent: they cannot be told apart on the screen, so two agents would print twice the same
    name with different numbers, and which is which could not be said. A name written in one form only is kept as
    written (nothing would be merged)."""
    forms: dict = {}
    for fields in fields_per_file:
        for name, value in (fields or {}).items():
            if isinstance(value, str):
                spellings = forms.setdefault((name, unicodedata.normalize("NFC", value)), collections.Counter())
                spellings[value] += 1
    merged = {key: spellings for key, spellings in forms.items() if len(spellings) > 1}
    if not merged:
        return []
    for fields in fields_per_file:
        for name, value in (fields or {}).items():
            if isinstance(value, str) and (name, unicodedata.normalize("NFC", value)) in merged:
                fields[name] = unicodedata.normalize("NFC", value)
    notes = []
    for (name, value), spellings in merged.items():
        said = []
        for spelling, files in sorted(spellings.items(), key=lambda item: _unicode_form(item[0]) != "composed"):
            form = _unicode_form(spelling)
            mac = ", as files copied from a Mac are" if form == "decomposed" else ""
            said.append(f"{form} ({count(files, 'file')}{mac})")
        many = {2: "two", 3: "three"}.get(len(spellings), str(len(spellings)))
        notes.append((name, value, f"{name} {value!r} is written in {many} Unicode forms in the paths, "
                                   f"{join_and(said)}, read as one {name} in the composed form"))
    return notes


def read_runs(found, options):
    """Read each run: every file of ``found`` (files it cannot use become its problems), the pieces grouped by
    run, the files of one run combined where the format says so.

    Returns ({run key: (fields, [(file index, piece), ...])}, the field names in the order first met).
    """
    runs, field_names, broken = {}, list(found.pattern.fields), []
    for index, outcome in enumerate(_read_files(found, options)):
        if isinstance(outcome, FileProblem):
            relative = found.to_read[index]
            announced = file_format(posixpath.basename(relative))
            hint = ("" if announced in (None, found.record.name) else  # format= named another (audit s17)
                    f"; its name is that of a {one_file(FORMATS[announced].label)}, which format={announced!r} reads")
            found.problems.append(ReadProblem(relative, outcome.kind, outcome.detail + hint))
            broken.append(index)
            continue
        for piece in outcome:
            fields = _run_fields(found, index, piece)
            if fields is None:
                continue
            field_names.extend(name for name in fields if name not in field_names)
            key = tuple(sorted((k, str(v)) for k, v in fields.items()))
            runs.setdefault(key, (fields, []))[1].append((index, piece))
    if found.record.combine:
        _check_one_folder(runs, found)
        _drop_runs_missing_a_file(runs, broken, found)
        combine = load(found.record.combine)
        for fields, pieces in runs.values():
            if len(pieces) > 1:
                pieces[:] = [(i, p) for (i, _), p in zip(pieces, combine([p for _, p in pieces]))]
    return runs, field_names


def _check_one_folder(runs, found):
    """OptionError for a run of files read side by side (a VecEnv's monitor.csv files, which SB3 writes to one
    folder) whose files lie in several folders: a pattern lacking the field that tells runs apart, whose steps would
    count the episodes of all of them (audit s17: ``{agent}/{task}`` summed 3 seeds, PPO's last step 97,211)."""
    for fields, pieces in runs.values():
        folders = sorted({posixpath.dirname(found.to_read[index]) for index, _ in pieces}, key=natural_key)
        alike = len({unicodedata.normalize("NFC", folder) for folder in folders}) < len(folders)
        if len(folders) > 1 and alike:  # review23d: the names' Unicode forms merged (misc23), not a missing field
            raise OptionError(
                f"the run {run_label(fields)} has {found.record.label.removeprefix('Stable-Baselines3 ')} in "
                f"{len(folders)} folders whose paths differ only in how their accents are written (composed and "
                "decomposed Unicode forms, read as one name): the same run copied twice? keep one of them "
                f"({listed(folders, 10)}, written alike on the screen)")
        if len(folders) > 1:
            raise OptionError(
                f"pattern= puts the {found.record.label.removeprefix('Stable-Baselines3 ').removesuffix(' files')} "
                f"files of {len(folders)} folders in the run {run_label(fields)} ({listed(folders, 10)}), but a "
                "run's files are read side by side, as a VecEnv writes them to one folder, so its steps would count "
                "the episodes of all of them; give the pattern the field that tells these folders apart, e.g. "
                "{seed}")


def _drop_runs_missing_a_file(runs, broken, found):
    """Each run of a format whose files are read together (a VecEnv's monitor.csv files, side by side) that lost
    one of them becomes a problem of its own: its steps count the episodes of all its files, so without one they
    would all be too small (audit s12: a file cut mid-line left a run's last step at 24,165 instead of 32,278)."""
    for index in broken:
        relative = found.to_read[index]
        if found.pattern.text is None:
            own = {"run": Path(relative).parent.as_posix()}
        elif found.fields[index] is not None:
            own = {name: str(value) for name, value in found.fields[index].items()}
        else:
            continue
        for key in [key for key, (fields, _) in runs.items()
                    if all(str(fields.get(name)) == value for name, value in own.items())]:
            fields, pieces = runs.pop(key)
            found.problems.append(ReadProblem(
                run_label(fields), "incomplete run",
                f"its file {relative} could not be used, and a row's step counts the episodes of all the run's "
                f"files, read side by side ({count(len(pieces) + 1, 'file')}), so without it every step would be "
                "too small; the run is left out"))


def _read_file(record, path, step):
    """A file's pieces, or the FileProblem that kept it from being read."""
    try:
        return record.read(path, step)
    except FileProblem as problem:
        return problem


def _read_files(found, options):
    """Each file's pieces (or problem), in the order of ``found.to_read``, on ``options.n_jobs`` processes (threads
    for a URL's files, with the bytes being read bounded: :func:`._remote.read_in_order`)."""
    paths = [found.root / relative for relative in found.to_read]
    outcomes = []
    with progress_bar(len(paths), options.progress, "reading logs") as advance:
        if options.remote is not None:
            workers = (os.cpu_count() or 1) if options.n_jobs == -1 else options.n_jobs
            read = read_in_order(paths, lambda path: _read_file(found.record, path, options.step), workers,
                                 lambda path: path.size)
        elif options.n_jobs == 1 or len(paths) < 2:
            read = (_read_file(found.record, path, options.step) for path in paths)
        else:
            from joblib import Parallel, delayed

            cores = os.cpu_count() or 1
            workers = min(cores if options.n_jobs == -1 else options.n_jobs, len(paths))  # joblib starts them all
            read = Parallel(n_jobs=workers, return_as="generator", batch_size=16)(
                delayed(_read_file)(found.record, path, options.step) for path in paths)
        for outcome in read:
            outcomes.append(outcome)
            advance(1)
    return outcomes


def _run_fields(found, index, piece):
    """The fields of the run ``piece`` (of file ``index``) belongs to, or None when the pattern leaves it out
    (recorded in ``found.ignored``): the pattern's, else a ``run`` column naming its folder (or its name in the
    file), and the fields the log states itself where these have none."""
    relative, pattern = found.to_read[index], found.pattern
    identity = piece.name if piece.name is not None else (Path(relative).parent.as_posix() if
                                                           pattern.text is None else relative)
    if pattern.text is None:  # a log naming agent, task and seed itself (marl-eval) needs no run column
        fields = {} if found.record.names_runs else {"run": identity}
    elif found.fields[index] is None:  # a file that may hold several runs: matched by each run's name
        fields = pattern.match(identity if piece.name is not None else relative)
        if fields is None:
            found.ignored.append(identity if piece.name is None else f"{relative}: run {identity!r}")
            return None
    else:
        fields = dict(found.fields[index])
    fields, filled, renamed = with_stated(fields, piece.meta, found.record, relative, piece.name)
    found.filled.update(filled)
    found.renamed.extend(renamed)
    return fields


def _complete_runs(runs, mapping, found):
    """The runs logging every requested tag; each other run becomes a problem of ``found``."""
    complete = {}
    for key, (fields, pieces) in runs.items():
        overlap = _given_twice(pieces, mapping)
        if overlap is not None:  # a run named inside two files that log the same steps (audit s23)
            sources = ", ".join(found.to_read[i] + f": run {p.name!r}" for i, p in pieces)
            files = len({i for i, _ in pieces})
            found.problems.append(ReadProblem(sources, "run in several files", (
                f"{files} files give the run, {'both' if files == 2 else 'more than one'} at steps "
                f"{step_text(overlap[0])} to {step_text(overlap[1])}, so one file's values there would be dropped for "
                "another's (a merged file beside its parts?); keep the file you mean and move the other out of the "
                "folder read")))
            continue
        logged = {t for _, p in pieces for t in p.tags}
        missing = [t for t in mapping if t not in logged]
        if missing:  # a run inside a file of several (a W&B export, marl-eval's JSON) is named (audit s15)
            sources = ", ".join(found.to_read[i] + ("" if p.name is None else f": run {p.name!r}") for i, p in pieces)
            if not logged and all(p.meta.get("episodes") == 0 for _, p in pieces):  # monitor.csv headers alone
                one = len(pieces) == 1
                found.problems.append(ReadProblem(sources, "empty", (
                    "its header alone, no episode" if one else f"no episode in its {len(pieces)} files, each its "
                                                               "header alone") + " (a run that ended before its first "
                                                                                 "episode did)"))
                continue
            found.problems.append(ReadProblem(sources, "missing tag", f"no values of {_listed(missing)}; it logs "
                                              f"{_listed(sorted(logged)) or 'no column of numbers'}"))
        else:
            complete[key] = (fields, pieces)
    return complete


def _given_twice(pieces, mapping):
    """(first, last) of the steps at which two files holding a run by its name (marl-eval's JSON, a W&B export) both
    log one of the requested tags, or None: there, keeping one file's values would drop the other's. (Two W&B chart
    exports give the same runs at the same steps, each its own scalar: no overlap.)"""
    by_tag = {}  # tag -> {file index: [steps]}
    for index, piece in pieces:
        if piece.name is None:
            continue
        for code, tag in enumerate(piece.tags):
            if tag in mapping:
                by_tag.setdefault(tag, {}).setdefault(index, []).append(piece.step[piece.tag == code])
    common = []
    for files in by_tag.values():
        if len(files) > 1:
            values, times = np.unique(np.concatenate([np.unique(np.concatenate(steps)) for steps in files.values()]),
                                      return_counts=True)
            common.append(values[times > 1])
    common = np.concatenate(common) if common else np.zeros(0)
    return None if not common.size else (_number(common.min()), _number(common.max()))


def assemble_runs(runs, field_names, mapping, tag_sentence, found, options):
    """Assemble the frame of the complete runs, with its notes and read log in its attrs: each run's files in the
    order written where the format writes them in turn (restarts, reruns), runs ending early found, then the
    rows made run by run and smoothed on request."""
    # the files of the runs read, not of a run left out (audit s17: a monitor.csv run that lost a file left its 3
    # others counted, "1 run from 6 files" for the 4 its rows came from)
    files_read = len({index for _, pieces in runs.values() for index, _ in pieces})
    runs, segments, reruns = _runs_of_segments(runs, field_names, mapping, found.to_read,
                                               split=found.record.in_turn)
    runs = _sorted_runs(runs, field_names)
    frame_runs, last_steps = _last_steps(runs, field_names, mapping)  # before _assemble lets the pieces go
    # runs named inside files that several files give at different steps, joined (audit s23: without a word)
    joined = [(run, f"{run_label(run)} ({', '.join(sorted({found.to_read[i] for i, _ in pieces}, key=natural_key))})")
              for run, (_, pieces) in zip(frame_runs, runs.values())
              if len({i for i, p in pieces if p.name is not None}) > 1]
    ended_early = _early_ends(frame_runs, last_steps)
    # files, not runs: a file of several runs (a W&B export) is one (audit s17: "2 log files" of one); before _assemble
    flags = [column for tag, column in mapping.items()
             if any(tag in piece.meta.get("flags", ()) for _, pieces in runs.values() for _, piece in pieces)]
    going_back = sorted({found.to_read[index] for _, pieces in runs.values() for index, piece in pieces
                         if _goes_back(piece)}, key=natural_key)
    # a monitor.csv resumed in place: its time restarts under the old header (audit s20: left without a word)
    # a table cut off inside its last value, with every field still there (audit s23)
    unended = sorted({f"{found.to_read[index]} (line {piece.meta['unended'][0]}: {piece.meta['unended'][1]!r})"
                      for _, pieces in runs.values() for index, piece in pieces if piece.meta.get("unended")},
                     key=natural_key)
    # a VecEnv's environment that finished no episode: its monitor.csv holds the header alone (audit s23)
    no_episode = sorted({found.to_read[index] for _, pieces in runs.values() for index, piece in pieces
                         if piece.meta.get("episodes") == 0}, key=natural_key)
    time_back = sorted({f"{found.to_read[index]} (line {piece.meta['time_goes_back_at']})" for _, pieces in runs.values()
                        for index, piece in pieces if piece.meta.get("time_goes_back_at")}, key=natural_key)
    nonfinite: dict[str, tuple[int, int]] = {}
    frame, duplicates, without_step = _assemble(runs, field_names, mapping, found.to_read, options.keep, nonfinite)
    unlogged = _unlogged(frame, mapping, nonfinite)  # before smoothing, which reads the rows as logged
    keys = tuple(_ordered_fields(field_names))
    run_keys = tuple((tuple(run[f] for f in keys), None) for run in frame_runs)
    # Notes bound to the runs they name (re-worded for the runs a result receives), or to this frame as a whole.
    label = found.record.label if files_read != 1 else one_file(found.record.label)  # "1 ... file"
    notes = [Note(f"read {count(len(runs), 'run')} from {files_read} {label}, {tag_sentence}",
                  scope="rows", keys=keys, items=run_keys, word="rlstats.provenance:counted",
                  data=(f"read {{n}} from {found.record.label}, {tag_sentence}", "run"))]
    format_note = found.record.note_of(mapping)
    notes += [Note(format_note)] if format_note else []
    # where the run names came from holds of any rows; the files that name a run otherwise, of this frame only
    notes += [Note(s) for s in stated_notes(found.record, found.filled, (), found.pattern.text)]
    notes += [Note(s, scope="frame") for s in stated_notes(found.record, (), found.renamed, found.pattern.text)]
    if options.smoothing:
        frame, sentence = smooth_frame(frame, list(mapping.values()), *options.smoothing, found.record.values)
        notes.append(Note(sentence))
    notes += _segment_notes(segments, reruns, keys, found.pattern.text)
    if ended_early:
        notes.append(Note(_early_note(ended_early, field_names), scope="rows", keys=keys,
                          items=tuple((key, last) for (key, _), last in zip(run_keys, last_steps)),
                          word="rlstats.logs._read:_reword_early", data=tuple(field_names)))
    copies = _copied_runs(frame, keys)
    if copies:  # bound to the runs: a group is said while two or more of its runs are there (session 28 runsnotes28)
        items = tuple((tuple(v.item() if isinstance(v, np.generic) else v for v in (run[k] for k in keys)),
                       (g, run_label(run))) for g, group in enumerate(copies) for run in group)
        notes.append(Note(_copies_text(copies), scope="rows", keys=keys, items=items,
                          word="rlstats.logs._read:_reword_copies"))
    if duplicates:
        notes.append(Note(f"{count(duplicates, 'value')} logged again at a step already logged for the same run and "
                          f"tag in one file; the one written {options.keep} was kept", scope="frame"))
    if flags:  # JSON's true and false (audit s17: read as 1.0 without a word)
        notes.append(Note(f"{_listed(flags)} logged as true/false, read as 1/0", scope="frame"))
    if without_step:
        notes.append(Note(f"{count(without_step, 'table row')} without a step left out", scope="frame"))
    if nonfinite:
        notes.append(Note(_nonfinite_note(nonfinite), scope="frame"))
    if unlogged:
        notes.append(Note(_unlogged_note(unlogged, list(mapping.values())), scope="frame"))
    if going_back:  # the files named (audit s20: "4 log files", none named)
        notes.append(Note(f"{count(len(going_back), 'log file')} with steps that go back (a restart appended to "
                          "the same file?); their values were put in step order, the attempts' values interleaved: "
                          "split the file at the restart to keep one attempt: " + listed(going_back, MAX_NAMED_RUNS),
                          scope="frame"))
    if joined:  # bound to its runs: said of those a subset keeps (session 28 runsnotes28: any subset lost it)
        items = tuple((tuple(run[f] for f in keys), label) for run, label in joined)
        notes.append(Note(_joined_text([label for _, label in items]), scope="rows", keys=keys, items=items,
                          word="rlstats.logs._read:_reword_joined"))
    if unended:
        one = len(unended) == 1
        notes.append(Note(f"{count(len(unended), one_file(found.record.label), found.record.label)} "
                          f"{verb(len(unended), 'ends')} without a line end (cut off while {'its' if one else 'their'} "
                          f"last line was written?), that line read as written: " + listed(unended, MAX_NAMED_RUNS),
                          scope="frame"))
    if no_episode:
        one = len(no_episode) == 1
        notes.append(Note(f"{count(len(no_episode), one_file(found.record.label), found.record.label)} "
                          f"{verb(len(no_episode), 'holds')} no episode ({'its' if one else 'their'} header alone: "
                          f"{'an environment' if one else 'environments'} that finished none), read as none: "
                          + listed(no_episode, MAX_NAMED_RUNS), scope="frame"))
    if time_back:
        notes.append(Note(f"{count(len(time_back), 'log file')} whose logged time goes back at a line (a run resumed "
                          "appending to the same file, its time counted from a start the file does not record): the "
                          "wall time of the rows from that line on is not when they were logged"
                          + (", and the run's files were put in time order by it" if found.record.combine else "")
                          + "; split the file there, the rows from that line on a file of their own whose header "
                          "states the resumed run's start: "
                          + listed(time_back, MAX_NAMED_RUNS), scope="frame"))
    # each bound to the name it is of: said while its rows are there (session 28 runsnotes28: any subset lost it)
    notes += [Note(text, scope="rows", keys=(name,), items=(((value,), None),)) for name, value, text in found.merged]
    if found.ignored:
        notes.append(Note(f"{count(len(found.ignored), 'log file')} did not match the pattern "
                          f"{found.pattern.text!r} and were not read", scope="frame"))
    if found.unfollowed:
        notes.append(Note(_unfollowed_text(found.unfollowed, ", their files not read (give a link's target as a "
                                                             "folder of its own to read it)"), scope="frame"))
    if found.problems:
        skipped = len(found.problems)
        notes.append(Note(f"{count(skipped, 'file or run', 'files or runs')} could not be used and "
                          f"{verb(skipped, 'was')} skipped (see attrs['read_log'])", scope="frame"))
    set_notes(frame, notes, columns=(*keys, "step"))
    frame.attrs[READ_LOG_ATTR] = ReadLog(str(found.root), found.record.name, tuple(found.files),
                                         tuple(found.problems), tuple(found.ignored),
                                         skipped=options.on_error == "skip", ended_early=ended_early,
                                         segments=segments, single=found.single,
                                         unfollowed=tuple(found.unfollowed))
    return frame


def _copied_runs(frame, keys):
    """Groups of runs (each its fields, as in the frame) whose rows are the same in every column but the run's
    fields and the file, times included: a run folder copied beside itself (``seed_1 (copy)``), which would count
    as one more seed (audit s20). Only logs that record when each row was logged are compared: without times, two
    runs may well log the same values (every evaluation of Acrobot at -500, its time limit, in two seeds' logs)."""
    timed = [c for c in ("wall_time", "time_elapsed") if c in frame.columns and frame[c].notna().any()]
    if len(frame) < 2 or not keys or not timed:
        return []
    key_hash = pd.util.hash_pandas_object(frame[list(keys)], index=False).to_numpy()
    starts = np.flatnonzero(np.r_[True, key_hash[1:] != key_hash[:-1]])  # the frame holds each run's rows together
    if starts.size < 2:
        return []
    values = [c for c in frame.columns if c not in keys and c not in ("source", ATTEMPT)]
    rows = pd.util.hash_pandas_object(frame[values], index=False).to_numpy()
    groups = {}  # the bytes of a run's row hashes -> where each such run starts
    for start, stop in zip(starts, np.r_[starts[1:], len(frame)]):
        groups.setdefault(rows[start:stop].tobytes(), []).append(int(start))
    return [[{k: frame[k].iat[start] for k in keys} for start in members]
            for members in groups.values() if len(members) > 1]


def _copies_text(copies):
    """The note naming runs that repeat another run's rows, times included."""
    return _reword_copies(None, [(None, (g, run_label(run))) for g, group in enumerate(copies) for run in group], 0)


def _reword_copies(note, items, n_rows):
    """The note on copied runs, of the groups with two or more runs among ``items`` ((group, its label) each)."""
    groups: dict = {}
    for _, (g, label) in items:
        groups.setdefault(g, []).append(label)
    kept = [labels for labels in groups.values() if len(labels) > 1]
    if not kept:
        return None
    return (f"{sum(map(len, kept))} runs log the same values at the same steps and times as "
            "another run, as copies of a run do (a run folder copied?), each counted as a run of its own: "
            + _listed_runs([join_and(kept_group) for kept_group in kept])
            + "; leave the copies out (subset=, or move them out of the folder read)")


def _warn_misspelt_fields(field_names, stated=()):
    """Warn of a run field the pattern names like agent, task or seed, which the frame then lacks: ``{sed}`` gave a
    column 'sed' and no 'seed', without a word until a formula's ``| task/seed`` (audit s17). ``stated``: the fields
    the log itself names, which are its own."""
    lacking = [name for name in STANDARD_FIELDS if name not in field_names]
    for name in field_names:
        if name in stated or name == "run":
            continue
        close = close_names(name, lacking, n=1, cutoff=0.75)
        if close:
            warn(f"pattern field {{{name}}} is not agent, task or seed: did you mean {{{close[0]}}}? The frame has a "
                 f"column {name!r} and none {close[0]!r}, which formulas name (score ~ agent | task/seed); write "
                 f"{{{close[0]}}} in the pattern, or rename the column")


def _unfollowed_text(unfollowed, why=""):
    """'2 folders under symbolic links were not followed{why}: A2C, PPO/seed_0' (audit s17: left out without a
    word)."""
    one = len(unfollowed) == 1
    return (f"{count(len(unfollowed), 'folder')} under {'a symbolic link was' if one else 'symbolic links were'} not "
            f"followed{why}: " + listed(unfollowed, 20))


def _sorted_runs(runs, field_names):
    """The runs sorted by their fields in the frame's column order (numbers in them read as numbers), as read_logs
    documents: a file holding several runs (marl-eval's JSON, a W&B export) lists them in its own order (audit
    s13: seed 43289 before 42). A run without a field's value comes after those with one, as pandas sorts missing
    values. Stable: runs alike in every field keep the order read."""
    names = _ordered_fields(field_names)

    def key(item):
        fields = item[1][0]
        return [(1, []) if _missing(fields.get(f)) else (0, natural_key(str(fields[f]))) for f in names]

    return dict(sorted(runs.items(), key=key))


def _missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def _runs_of_segments(complete, field_names, mapping, sources, *, split):
    """Each run's files as attempts (:func:`_split_attempts`) -> (runs for _assemble, Segments, reruns).

    A run started again from its first step becomes one run per attempt, told apart by an ``attempt`` field
    (then every run has one: the folder it began in); ``reruns`` lists the runs split so, with their labels.
    """
    per_run = []
    for key, (fields, pieces) in complete.items():
        attempts, segments = (_split_attempts(pieces, mapping, sources) if split and len(pieces) > 1
                              and all(p.name is None for _, p in pieces) else ([pieces], []))
        per_run.append((key, fields, attempts or [pieces], segments))
    labelled = any(len(attempts) > 1 for _, _, attempts, _ in per_run)
    if labelled:
        field_names.append(ATTEMPT)
    runs, reruns, placed = {}, [], []
    for key, fields, attempts, segments in per_run:
        labels = _attempt_labels([sources[attempt[0][0]] for attempt in attempts]) if labelled else [None]
        keys = []
        for attempt, label in zip(attempts, labels):
            keys.append(key if label is None else key + ((ATTEMPT, label),))
            runs[keys[-1]] = (fields if label is None else {**fields, ATTEMPT: label}, attempt)
        if len(attempts) > 1:
            reruns.append((keys[0], labels))
        if len(segments) > 1:
            placed.append((keys, segments))
    position = {key: i for i, key in enumerate(runs)}
    frame_runs = _frame_runs(runs, field_names)
    found = tuple(Segment(frame_runs[position[keys[attempt]]], sources[index], _number(first), _number(last), joins,
                          dropped, None if steps is None else tuple(map(_number, steps)))
                  for keys, segments in placed for index, attempt, first, last, joins, dropped, steps in segments)
    return runs, found, [(frame_runs[position[key]], labels) for key, labels in reruns]


def _number(value):
    """A numpy scalar as a Python number (for attrs and messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _ordered_fields(field_names):
    return [f for f in STANDARD_FIELDS if f in field_names] + [f for f in field_names if f not in STANDARD_FIELDS]


def _frame_runs(runs, field_names):
    """Each run's fields as the frame holds them: {field: value}, in the frame's column order."""
    names = _ordered_fields(field_names)
    columns = _field_values([fields for fields, _ in runs.values()], names)
    return [{name: _number(columns[name][i]) for name in names} for i in range(len(runs))]


def _last_steps(runs, field_names, mapping):
    """(each run's fields as in the frame, its last step with a value of a requested tag)."""
    last = []
    for _, pieces in runs.values():
        ends = [piece.step[np.isin(piece.tag, [k for k, t in enumerate(piece.tags) if t in mapping])]
                for _, piece in pieces]
        last.append(_number(max(e.max() for e in ends if e.size)))
    return _frame_runs(runs, field_names), last


def _seed_pattern(reruns, fields, pattern):
    """The pattern naming the reruns' folders as seeds where it names none and they look like seeds, one prefix and
    a number (``seed_0``, ``seed_1``): "{agent}/{task}" read a run's seeds as reruns of one run (audit s28), whose way
    on is "{agent}/{task}/seed_{seed}"; else None."""
    # only a pattern ending at a placeholder names the reruns' folders next (review28b: '{agent}/{task}/*' was told
    # '{agent}/{task}/*/seed_{seed}', which matches no file)
    if pattern is None or "seed" in fields or not pattern.rstrip("/").endswith("}"):
        return None
    found = [re.fullmatch(r"([^/\d]*?)(\d+)", label) for _, labels in reruns for label in labels]
    prefixes = {match.group(1) for match in found if match}
    if not all(found) or len(prefixes) != 1:
        return None
    return f"{pattern.rstrip('/')}/{prefixes.pop()}{{seed}}"


def _segment_notes(segments, reruns, fields, pattern=None):
    """Notes naming runs read from several files (each file's steps and how it joins) and reruns, bound to the
    runs in ``fields``, ``attempt`` too: a file, or an attempt, is said while its rows are there (session 28
    runsnotes28: after the subset= the rerun note proposes, keeping one attempt, both notes still named the other);
    ``pattern``: the pattern read, whose seeds a rerun's folders may be (:func:`_seed_pattern`)."""
    keys = tuple(fields)
    key = (lambda run: tuple(run.get(f) for f in keys))  # noqa: E731
    notes = []
    if segments:
        by_run = {}
        for segment in segments:
            by_run.setdefault(run_label({k: v for k, v in segment.run.items() if k != ATTEMPT}), []).append(segment)
        items = []
        for label, parts in by_run.items():
            names = _attempt_labels([part.source for part in parts])
            items += [(key(part.run), (label, part.describe(name), part.joins == "restarts"))
                      for part, name in zip(parts, names)]
        notes.append(Note(_segments_text(_files_of_runs(items)), scope="rows", keys=keys,
                          items=tuple(items), word="rlstats.logs._read:_reword_segments"))
    if reruns:  # an item per attempt, each with what the note says of its run
        items = tuple((key({**run, ATTEMPT: label}), (f"{run_label({k: v for k, v in run.items() if k != ATTEMPT})} "
                                                      f"({', '.join(map(repr, labels))})",
                                                      subset_dropping_attempts({k: v for k, v in run.items()
                                                                                if k != ATTEMPT}, ATTEMPT, labels[-1])))
                      for run, labels in reruns for label in labels)
        seeds = _seed_pattern(reruns, fields, pattern)
        notes.append(Note(_reruns_text(_rerun_runs(items), seeds), scope="rows", keys=keys, items=items,
                          word="rlstats.logs._read:_reword_reruns", data=seeds))
    return notes


def _segments_text(parts):
    """The note on runs read from several files, from (run label, file described, restarts) per file."""
    by_run = {}
    for label, described, _ in parts:
        by_run.setdefault(label, []).append(described)
    rule = ("; a file that restarts inside the steps of the ones before it (from a checkpoint) supersedes "
            "their values from its first step on" if any(restarts for _, _, restarts in parts) else "")
    return (f"{count(len(by_run), 'run')} read from several files, in the order written "
            f"(attrs['read_log'].segments){rule}: "
            + _listed_runs([f"{label}: " + ", ".join(described) for label, described in by_run.items()]))


def _reruns_text(reruns, seeds=None):
    """The note on runs started again from their first step, from (run and its attempts, the subset= that keeps
    its last attempt and every other run) per run; ``seeds``: the pattern naming their folders as seeds, where they
    look like seeds (:func:`_seed_pattern`)."""
    seeded = (f"; if those folders are seeds, not attempts of one run, name them in the pattern: "
              f"pattern={seeds!r}; else" if seeds else ", so")
    return (f"{count(len(reruns), 'run')} started again from {'its' if len(reruns) == 1 else 'their'} "
            f"first step (a rerun, not a restart): each attempt is read as a run of its "
            f"own, told apart by the column {ATTEMPT!r} (the folder it began in; rlstats refuses two runs "
            f"with one seed){seeded} keep the one you mean, e.g. subset=\"{reruns[0][1]}\" keeps the last attempt "
            f"of the first: " + _listed_runs([shown for shown, _ in reruns]))


def _joined_text(labels):
    """The note on runs several files give at different steps or of different scalars, read as one run each."""
    return (f"{count(len(labels), 'run')} given by several files, at different steps or of different scalars, read as "
            f"{'one run' if len(labels) == 1 else 'one run each'}: " + _listed_runs(labels))


def _reword_joined(note, items, n_rows):
    return _joined_text([label for _, label in items])


def _files_of_runs(items):
    """The payloads of ``items`` (a file of a run each) of the runs with two or more files among them."""
    files = collections.Counter(label for _, (label, _, _) in items)
    return [payload for _, payload in items if files[payload[0]] > 1]


def _rerun_runs(items):
    """(run and its attempts, subset=) once per run with two or more attempts among ``items`` (an attempt each)."""
    attempts = collections.Counter(payload[0] for _, payload in items)
    return list(dict.fromkeys(tuple(payload) for _, payload in items if attempts[payload[0]] > 1))


def _reword_segments(note, items, n_rows):
    parts = _files_of_runs(items)
    return _segments_text(parts) if parts else None


def _reword_reruns(note, items, n_rows):
    runs = _rerun_runs(items)
    return _reruns_text(runs, note.data) if runs else None


def _reword_early(note, items, n_rows):
    """The early-end note among the runs present: each compared with its siblings present."""
    ended = _early_ends([dict(zip(note.keys, key)) for key, _ in items], [last for _, last in items])
    return _early_note(ended, list(note.data)) if ended else None


def _early_note(ended_early, field_names):
    same = [f for f in _ordered_fields(field_names) if f not in REPLICATE_FIELDS]
    siblings = f"the other runs with the same {' and '.join(same)}" if same else "the other runs"
    return (f"{count(len(ended_early), 'run')} {verb(len(ended_early), 'ends')} well before "
            f"{siblings} (last logged step under {EARLY_END_FRACTION:.0%} of their median: killed, or still "
            f"running?), so a value at the last step would compare different steps: " + _listed_runs(ended_early))


def _unlogged(frame, mapping, nonfinite):
    """{column: rows} of the scalars missing at some of the frame's steps: a row is a step where any scalar read was
    logged, so a scalar logged at other steps than another (SB3's rollout and evaluation tags) is NaN there; the
    values logged as NaN (``nonfinite``, {column: (NaN, infinite)}) are not counted."""
    if len(mapping) < 2:
        return {}
    missing = {column: int(frame[column].isna().sum()) - nonfinite.get(column, (0, 0))[0]
               for column in mapping.values()}
    return {column: n for column, n in missing.items() if n}


def _unlogged_note(unlogged, columns):
    """The note of the scalars read at different steps (audit s25: SB3's 'rollout/ep_rew_mean' and 'eval/mean_reward'
    were joined on the step, 1,524 rows NaN in the latter, without a word)."""
    parts = ", ".join(f"{column!r} in {count(n, 'row')}" for column, n in unlogged.items())
    return (f"the scalars read ({_listed(columns)}) are not all logged at the same steps: a row is a step where any of them was logged, "
            f"NaN in a column at steps where its scalar was not ({parts}); an analysis of one of them refuses those "
            "rows until they are dropped (na_action=\"drop\"), or read that scalar alone with tags=")


def _nonfinite_note(nonfinite):
    """The note on the values logged as NaN or infinite, kept as rows, from {column: (NaN, infinite)}:
    "1 value of 'score' is NaN; 3 values of 'loss': 1 is NaN and 2 are infinite, as logged ..."."""
    parts = []
    for column, (nan, inf) in nonfinite.items():
        if nan and inf:
            parts.append(f"{count(nan + inf, 'value')} of {column!r}: {nan} {verb(nan, 'is')} NaN and {inf} "
                         f"{verb(inf, 'is')} infinite")
        else:
            parts.append(f"{count(nan + inf, 'value')} of {column!r} {verb(nan + inf, 'is')} "
                         f"{'NaN' if nan else 'infinite'}")
    one = sum(map(sum, nonfinite.values())) == 1
    return (f"{'; '.join(parts)}, as logged (a run that diverged?), kept as {'a row' if one else 'rows'}: analyses "
            f"refuse {'it until it is' if one else 'them until they are'} dropped (na_action=\"drop\", after which "
            "a run's last value is its last finite one) or mended")


@dataclasses.dataclass(frozen=True)
class SingleFile:
    """The one log file read, as the path given: where a message about the files read points."""

    path: Any


def _where(found, path):
    """Where the files read are, for a message: the folder read, or the one file given."""
    return SingleFile(path) if found.single else found.root


def one_file(label):
    """A format's label for one file: 'CSV files' -> 'CSV file'."""
    return label.removesuffix("s")


def _fail_or_warn(problems, root, label, on_error, *, total, fatal, files=()):
    """Raise (or warn, skipping them) for the ``problems``: those of a file of ``files`` are counted as files, the
    others as runs (a run that lost one of its files, a run lacking a requested tag that is not a file of its own)."""
    shown = "\n".join(f"  {p}" for p in problems[:10])
    more = f"\n  ... and {len(problems) - 10} more" if len(problems) > 10 else ""
    # a run left out for a file it lost is no file of its own that failed (review s12: "2 of 8 files" for 1), nor
    # is a run lacking a tag among others of its file (audit s15: "1 of 1 CSV files" over the 2 runs read from it)
    incomplete = sum(p.kind == "incomplete run" for p in problems)
    lacking = sum(p.kind == "missing tag" and p.source not in files for p in problems) if files else 0
    # a run of several monitor.csv files none of which holds an episode, a run two files give (audit s23)
    bare = sum(p.kind == "empty" and p.source not in files for p in problems) if files else 0
    twice = sum(p.kind == "run in several files" for p in problems)
    failed = len(problems) - incomplete - lacking - bare - twice
    runs = ([f"{count(incomplete, 'run')} that lost one"] if incomplete else []) + (
        [f"{count(lacking, 'run')} that {verb(lacking, 'lacks')} a requested tag"] if lacking else []) + (
        [f"{count(bare, 'run')} without an episode"] if bare else []) + (
        [f"{count(twice, 'run')} given by several files"] if twice else [])
    single = isinstance(root, SingleFile)
    alone = single or total == 1  # "the CSV file", not "1 of 1 CSV files"
    files_read = f"the {one_file(label)}" + (f" {root.path}" if single else "") if alone else f"{total} {label}"
    if failed or not runs:
        what, also = (files_read if alone else f"{failed} of {files_read}"), "".join(f", and {r}" for r in runs)
    else:
        what, also = f"{' and '.join(runs)}, in {'' if alone else 'the '}{files_read}", ""
    where = "" if single else f" under {root}"
    if on_error == "raise" or fatal:
        advice = ("pass on_error='skip' to read the others" if not fatal else "no run could be read")
        raise LogReadError(f"{what}{where} could not be used{also} ({advice}):\n{shown}{more}")
    warn(f"skipped {what}{' that could not be used' if failed or not runs else ''}{also} "
         f"(frame.attrs['read_log'] lists them):\n{shown}{more}")


def _assemble(runs, field_names, mapping, sources, keep, nonfinite_out=None):
    """The long frame from the runs' pieces, one run at a time, no sort of every record at once: duplicates
    resolved by ``keep``, tags as columns; with the values dropped as logged twice and the table rows without a step.
    ``nonfinite_out``, a dict, receives {column: (NaN values, infinite values)} of the columns that hold any. Each
    run's records are let go once its rows are made (the pieces' arrays become None), so that the records and the
    frame never all live at once."""
    tag_order = list(mapping)
    parts, duplicates, without_step, nonfinite = [], 0, 0, np.zeros((len(tag_order), 2), dtype=np.int64)
    for fields, pieces in runs.values():
        without_step += sum(piece.meta.get("rows_without_step", 0) for _, piece in pieces)
        *part, (dropped, counted) = _run_rows(pieces, tag_order, keep)
        parts.append(part)
        duplicates += dropped
        nonfinite += counted
        for _, piece in pieces:
            piece.step = piece.tag = piece.value = piece.wall_time = piece.time_elapsed = None
    sizes = [part[0].size for part in parts]

    def joined(i):
        """Item ``i`` of every run's rows as one column (NaN where a run has none), each run's copy released."""
        column = np.concatenate([np.full(n, np.nan) if part[i] is None else part[i] for part, n in zip(parts, sizes)])
        for part in parts:
            part[i] = None
        return column

    row_run = np.repeat(np.arange(len(parts)), sizes)
    columns = {name: _repeat(values, row_run) for name, values in
               _field_values([fields for fields, _ in runs.values()], _ordered_fields(field_names)).items()}
    row_step = joined(0)
    if np.issubdtype(row_step.dtype, np.floating):
        row_step = whole_steps(row_step)
    columns["step"] = row_step
    for j, t in enumerate(tag_order):
        columns[mapping[t]] = joined(4 + j)
    if any(part[1] is not None for part in parts):
        columns["wall_time"] = joined(1)
    if any(part[2] is not None for part in parts):
        row_spent = joined(2)
        if not np.isnan(row_spent).all():
            columns["time_elapsed"] = row_spent
    columns["source"] = _repeat(np.asarray(sources, dtype=object), joined(3))
    # No copy (it would double the frame at its peak), but blocks merged when pandas would call the frame
    # fragmented (over 100 blocks: a warning on every column a caller adds).
    if nonfinite_out is not None:
        nonfinite_out.update({mapping[t]: tuple(map(int, c)) for t, c in zip(tag_order, nonfinite) if c.any()})
    return pd.DataFrame(columns, copy=len(columns) > 100), duplicates, without_step


def _repeat(values, rows):
    """``values[rows]``; text as the frame holds it (pandas' string type) without a Python object per row."""
    if values.dtype != object:
        return values[rows]
    return pd.Series(values).array.take(rows)


def _run_rows(pieces, tag_order, keep):
    """One run's rows: steps, wall time and time elapsed (None when no file has them), the file of each row,
    one column per tag, and the number of values dropped as logged twice. A record's place is its file,
    then its position in the file; of a (step, tag) logged more than once the first or the last is kept; a
    row's wall time is its latest, its file the last one written. The last item: as :func:`_rows`'."""
    files, positions, steps, tags, values, walls, spent = [], [], [], [], [], [], []
    has_wall = any(piece.wall_time is not None for _, piece in pieces)
    has_spent = any(piece.time_elapsed is not None for _, piece in pieces)
    for file_index, piece in sorted(pieces, key=lambda entry: entry[0]):
        lookup = np.array([tag_order.index(t) if t in tag_order else -1 for t in piece.tags], dtype=np.intp)
        codes = lookup[piece.tag] if piece.tags else piece.tag
        chosen = np.flatnonzero(codes >= 0)
        files.append(np.full(chosen.size, file_index, dtype=np.intp))
        positions.append(chosen)
        steps.append(np.asarray(piece.step)[chosen])
        tags.append(codes[chosen])
        values.append(piece.value[chosen])
        for wanted, kept, times in ((has_wall, walls, piece.wall_time), (has_spent, spent, piece.time_elapsed)):
            if wanted:
                kept.append(np.full(chosen.size, np.nan) if times is None else times[chosen])
    one = (lambda arrays: arrays[0] if len(arrays) == 1 else np.concatenate(arrays))
    # The rows are made while these lists still hold the records: freed first, the allocator's reuse of memory
    # raised the resident peak of 50 TensorBoard runs by 2 MB (benchmarks/bench_logs.py).
    return _rows(pieces, *map(one, (files, positions, steps, tags, values)), one(walls) if has_wall else None,
                 one(spent) if has_spent else None, n_tags=len(tag_order), keep=keep)


def _rows(pieces, file_id, position, step, tag, value, wall, elapsed, *, n_tags, keep):
    """:func:`_run_rows` from one run's records of the requested tags, files in order: (file, position in it,
    step, tag code, value, wall time, time elapsed). Its last item: (values dropped as logged twice, (tags, 2) counts
    of the values kept that are NaN and infinite)."""
    dropped, row = 0, np.zeros(0, dtype=np.intp)
    if step.size:
        new_row = np.concatenate([[True], step[1:] != step[:-1]])
        row = np.cumsum(new_row) - 1
        if not _in_order(pieces, step, tag, row, n_tags):
            order, dropped = _kept_order(step, tag, file_id, position, keep)
            file_id, step, tag, value = (a[order] for a in (file_id, step, tag, value))
            wall, elapsed = (None if a is None else a[order] for a in (wall, elapsed))
            new_row = np.concatenate([[True], step[1:] != step[:-1]])
            row = np.cumsum(new_row) - 1
        if not new_row.all():  # rows of several records: the row's latest time and last file
            starts = np.flatnonzero(new_row)
            latest = (lambda a: None if a is None else np.fmax.reduceat(a, starts))
            step, wall, elapsed, file_id = (step[starts], latest(wall), latest(elapsed),
                                            np.maximum.reduceat(file_id, starts))
    columns, nonfinite = [], np.zeros((n_tags, 2), dtype=np.int64)
    for j in range(n_tags):
        column = np.full(step.size, np.nan)
        mine = tag == j
        column[row[mine]] = value[mine]
        columns.append(column)
        nonfinite[j] = np.isnan(value[mine]).sum(), np.isinf(value[mine]).sum()
    return step, wall, elapsed, file_id, *columns, (dropped, nonfinite)


def _in_order(pieces, step, tag, row, n_tags):
    """Whether a run's records (``row``: the row of each) are in step order and once per (step, tag), as a single
    file or files one after another log them: then no sort is needed."""
    if len({index for index, _ in pieces}) != len(pieces) or not np.all(step[1:] >= step[:-1]):
        return False
    filled = np.zeros((int(row[-1]) + 1, n_tags), dtype=bool)
    filled[row, tag] = True
    return int(filled.sum()) == step.size


def _goes_back(piece):
    """Whether a file's steps go back for some tag (a restart appended to the file): sorting by step then weaves
    the attempts' values together."""
    if piece.step is None or piece.step.size < 2:
        return False
    order = np.argsort(piece.tag, kind="stable")  # each tag's records in the order written
    step, tag = piece.step[order], piece.tag[order]
    return bool(np.any((step[1:] < step[:-1]) & (tag[1:] == tag[:-1])))


def _kept_order(step, tag, file_id, position, keep):
    """The order of a run's records by step and tag, keeping one record per (step, tag): the first or the last
    written (by file, then position in it); and the number of records dropped."""
    order = np.lexsort((position, file_id, tag, step))
    same = (step[order][1:] == step[order][:-1]) & (tag[order][1:] == tag[order][:-1])
    return order[np.r_[~same, True] if keep == "last" else np.r_[True, ~same]], int(same.sum())
