"""``read_logs``: a folder of training logs -> one long frame, with a record of every file."""

from __future__ import annotations

import collections
import dataclasses
import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..design import NOTES_ATTR
from ..format import count
from ..errors import LogReadError, OptionError, warn
from ..options import check_bool, check_choice, check_n_jobs
from ..progress import progress_bar
from ._layout import FORMAT_LABELS, FORMATS, compile_pattern, discover
from ._pieces import FileProblem
from ._tabular import combine_monitors, looks_like_wandb_export, read_table_log
from ._tensorboard import read_events

KEEP = ("last", "first")
ON_ERROR = ("raise", "skip")
#: Most scalars ``tags=`` may name (each becomes a column).
MAX_TAGS = 1_000
#: Key of ``DataFrame.attrs`` holding the :class:`ReadLog` of the files read.
READ_LOG_ATTR = "read_log"
#: Fields a log may state itself (a monitor header's env_id is the task), used when the pattern has none.
META_FIELDS = ("agent", "task", "seed")
STANDARD_FIELDS = ("agent", "task", "seed")
_RETURN_WORDS = {"return", "returns", "ret", "reward", "rewards", "rew", "score"}
_EVAL_WORDS = {"eval", "evaluation", "test", "evaluate"}
_SPREAD_WORDS = {"std", "min", "max", "var", "stddev", "sem", "median", "count"}


@dataclasses.dataclass(frozen=True)
class ReadProblem:
    """One file (or run) that could not be used: its path relative to the folder, the kind, the detail."""

    source: str
    kind: str
    detail: str

    def __str__(self):
        return f"{self.source}: {self.kind}: {self.detail}"


@dataclasses.dataclass(frozen=True)
class ReadLog:
    """What ``read_logs`` did with each file: kept in ``frame.attrs["read_log"]``.

    Attributes
    ----------
    root : str
        The folder read.
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
    """

    root: str
    format: str
    files: tuple
    problems: tuple = ()
    ignored: tuple = ()
    skipped: bool = False

    @property
    def ok(self):
        return not self.problems

    def to_frame(self):
        """One row per problem: source, kind, detail."""
        return pd.DataFrame([dataclasses.asdict(p) for p in self.problems], columns=["source", "kind", "detail"])

    def __str__(self):
        lines = [f"read_logs: {len(self.files)} {FORMAT_LABELS.get(self.format, self.format)} under {self.root}, "
                 f"{len(self.problems)} with problems, {len(self.ignored)} not matching the pattern"]
        lines += [f"  {p}" for p in self.problems]
        return "\n".join(lines)


def _read_file(kind, path, step):
    try:
        if kind == "tensorboard":
            return read_events(path)
        return read_table_log(path, kind, step)
    except FileProblem as problem:
        return problem


def _words(tag):
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tag)
    return set(re.split(r"[^A-Za-z0-9]+", spaced.lower())) - {""}


def choose_return_tag(available):
    """The tag that looks like an evaluation return, with the reason; OptionError when ambiguous.

    Tags are split into words (``eval/mean_reward`` -> eval, mean, reward; ``AverageTestEpRet`` ->
    average, test, ep, ret). Return-like tags name a return or reward (return, ret, reward, rew,
    score) and no spread (std, min, max, ...); among them, those naming an evaluation (eval,
    evaluation, test) win. Exactly one must remain.
    """
    returns = [t for t in available if _words(t) & _RETURN_WORDS and not _words(t) & _SPREAD_WORDS]
    evaluations = [t for t in returns if _words(t) & _EVAL_WORDS]
    listed = _listed(available)
    for candidates, why in ((evaluations, "the one evaluation return"), (returns, "the one return")):
        if len(candidates) == 1:
            return candidates[0], f"chosen as {why} among the logged tags"
        if len(candidates) > 1:
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


def _resolve_tags(tags, available, kind):
    """(tag -> column name, sentence)."""
    if tags is None:
        if kind == "sb3_monitor":
            return {"r": "r"}, "column 'r' (the episode return, SB3's default)"
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
    shown = ", ".join(repr(item) for item in items[:limit])
    return shown if len(items) <= limit else f"{shown} and {len(items) - limit:,} more"


def _seed_values(values):
    """Seeds as given; integers when every seed is written in digits."""
    if all(isinstance(v, str) and v.isdigit() for v in values):
        return np.asarray([int(v) for v in values], dtype=np.int64)
    return np.asarray(values, dtype=object)


def read_logs(path, pattern=None, *, format=None, tags=None, step=None, keep="last", on_error="raise",
              progress=True, n_jobs=1):
    """Read a folder of training logs into one long frame: one row per run and logged step.

    Parameters
    ----------
    path : str or Path
        A folder of runs (searched recursively), or one log file.
    pattern : str or callable, optional
        Where agent, task and seed come from: ``"{agent}/{task}/seed_{seed}"`` is matched against
        the start of each file's path relative to ``path``. A field is one or more characters
        other than ``/``, up to the first occurrence of the text that follows it in the pattern
        (``{task}-seed{seed}`` reads ``Hopper-v4-seed1`` as task ``Hopper-v4``); ``*`` is the same
        without a name and may be empty. Fields need text between them (``{agent}{task}`` is an
        error), so matching takes time linear in the path; at most 32 fields, 4,096 characters.
        Any field names may be used; each becomes a column. For a W&B export, the pattern is
        matched against each run's name. A callable receives the relative path (or run name) and
        returns a dict of fields, or None to leave the file out. Files the pattern does not match
        are not read (they are counted in the notes and listed in the read log). Without a pattern, a column ``run``
        holds the file's folder (or the run's name). Fields the pattern lacks are taken from the
        log where it states them (a monitor.csv header's ``env_id`` gives ``task``).
    format : str, optional
        One of ``"tensorboard"`` (``events.out.tfevents.*``), ``"sb3_monitor"`` (``*monitor.csv``),
        ``"sb3_progress"`` (``progress.csv``), ``"spinup"`` (``progress.txt``), ``"csv"``,
        ``"jsonl"`` (``*.jsonl``, ``progress.json``) or ``"wandb_csv"`` (a chart's CSV export).
        By default, the one format found; finding several is an error that counts them.
    tags : str, list of str or dict, optional
        The scalars to read (tags of event files, columns of tables); a dict maps each to its
        column name, e.g. ``{"eval/mean_reward": "score"}``. By default the one scalar that looks
        like an evaluation return (see :func:`choose_return_tag`; for monitor.csv, ``r``), stated
        in the notes; when several or none do, an error lists the logged tags.
    step : str, optional
        The step column of a table (default: the first of ``time/total_timesteps``,
        ``TotalEnvInteracts``, ``global_step``, ``step``, ``Step``, ``_step``, ...). Event files
        carry their own step; a monitor.csv's step is the cumulative episode length.
    keep : {"last", "first"}
        Which value to keep when a run logs the same tag at the same step more than once (a run
        restarted from a checkpoint logs the steps after the checkpoint again): ``"last"`` keeps
        the one written last (files in name order, which for event files is creation order, then
        the order within the file). Their number is stated in the notes.
    on_error : {"raise", "skip"}
        A file that is unreadable, truncated mid-record, corrupt or empty, and a run missing a
        requested tag, is recorded in the read log; ``"raise"`` then raises a LogReadError listing
        them, ``"skip"`` leaves them out with a warning that counts them.
    progress : bool
        Show a progress bar over the files on stderr.
    n_jobs : int
        Files read in parallel by joblib (-1: all cores); the frame is the same whatever ``n_jobs``.

    Returns
    -------
    pandas.DataFrame
        The pattern's fields (``agent``, ``task``, ``seed`` first, or ``run``), ``step``, one column
        per scalar, ``wall_time`` (seconds since the epoch) or ``time_elapsed`` (seconds since the
        run started) where the log records time, and ``source`` (the file each row came from,
        relative to ``path``), sorted by run and step. ``attrs["rlstats_notes"]`` says what was read
        and how; results built from the frame repeat it. ``attrs["read_log"]`` is a
        :class:`ReadLog`.

    Raises
    ------
    LogReadError
        No logs found, several formats found, or (by default) files that could not be read.
    OptionError
        An unknown option value, a pattern with fields side by side or beyond its bounds, ``n_jobs``
        above four per core (:data:`rlstats.options.JOBS_PER_CORE`), or ``tags=`` that is ambiguous,
        names no logged scalar or more than 1,000.

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
    if format is not None:
        check_choice("format", format, FORMATS)
    keep = check_choice("keep", keep, KEEP)
    on_error = check_choice("on_error", on_error, ON_ERROR)
    progress = check_bool("progress", progress)
    n_jobs = check_n_jobs(n_jobs)
    if step is not None and not isinstance(step, str):
        raise OptionError(f"step= names the step column of a table, e.g. step='global_step'; got {step!r}")
    compiled = compile_pattern(pattern)
    root, found = discover(path, format)
    if not found:
        looked = FORMAT_LABELS[format] if format else "event files, monitor.csv, progress.csv/.txt, CSV or JSON lines"
        raise LogReadError(f"no training logs under {path} (looked for {looked})")
    if len(found) > 1:
        counts = ", ".join(f"{len(files)} {FORMAT_LABELS[kind]}" for kind, files in found.items())
        raise LogReadError(f"found several kinds of logs under {path}: {counts}; choose one with format=, "
                           f"e.g. format={next(iter(found))!r}")
    (kind, files), = found.items()
    if step is not None and kind in ("tensorboard", "sb3_monitor"):
        raise OptionError(f"step= names the step column of a table; {FORMAT_LABELS[kind]} carry their own step "
                          "(event files: each event's step; monitor.csv: the cumulative episode length)")
    multi_run = kind in ("csv", "wandb_csv")  # a W&B export holds several runs, matched by name after reading

    # Which run each file belongs to (before reading, so unmatched files are never opened).
    file_fields, ignored = {}, []
    for relative in files:
        if compiled.text is None or (multi_run and (compiled.match(relative) is not None
                                                   or looks_like_wandb_export(root / relative))):
            file_fields[relative] = None
            continue
        fields = compiled.match(relative)
        if fields is None:
            ignored.append(relative)
        else:
            file_fields[relative] = fields
    to_read = list(file_fields)

    with progress_bar(len(to_read), progress, "reading logs") as advance:
        if n_jobs == 1 or len(to_read) < 2:
            outcomes = []
            for relative in to_read:
                outcomes.append(_read_file(kind, root / relative, step))
                advance(1)
        else:
            from joblib import Parallel, delayed

            outcomes = []
            workers = min(cores if n_jobs == -1 else n_jobs, len(to_read))  # joblib starts every worker at once
            for outcome in Parallel(n_jobs=workers, return_as="generator", batch_size=16)(
                    delayed(_read_file)(kind, root / relative, step) for relative in to_read):
                outcomes.append(outcome)
                advance(1)

    problems, runs = [], {}  # runs: key -> list of (file index, piece)
    field_names = list(compiled.fields)
    for index, (relative, outcome) in enumerate(zip(to_read, outcomes)):
        if isinstance(outcome, FileProblem):
            problems.append(ReadProblem(relative, outcome.kind, outcome.detail))
            continue
        for piece in outcome:
            identity = piece.name if piece.name is not None else (Path(relative).parent.as_posix() if
                                                                   compiled.text is None else relative)
            if compiled.text is None:
                fields = {"run": identity}
            elif multi_run:
                fields = compiled.match(identity if piece.name is not None else relative)
                if fields is None:
                    ignored.append(identity if piece.name is None else f"{relative}: run {identity!r}")
                    continue
            else:
                fields = dict(file_fields[relative])
            for name in META_FIELDS:
                if name not in fields and name in piece.meta:
                    fields[name] = piece.meta[name]
            for name in fields:
                if name not in field_names:
                    field_names.append(name)
            key = tuple(sorted((k, str(v)) for k, v in fields.items()))
            runs.setdefault(key, (fields, []))[1].append((index, piece))

    if kind == "sb3_monitor":
        for fields, pieces in runs.values():
            if len(pieces) > 1:
                pieces[:] = [(i, p) for (i, _), p in zip(pieces, combine_monitors([p for _, p in pieces]))]
    available = sorted({t for _, pieces in runs.values() for _, p in pieces for t in p.tags})
    if not runs:
        if problems:
            _fail_or_warn(problems, root, kind, on_error, total=len(to_read), fatal=True)
        raise LogReadError(f"none of the {len(files)} {FORMAT_LABELS[kind]} under {path} matches the pattern "
                           f"{pattern!r}; e.g. {files[0]!r}")
    mapping, tag_sentence = _resolve_tags(tags, available, kind)

    # Runs missing a requested tag.
    complete = {}
    for key, (fields, pieces) in runs.items():
        logged = {t for _, p in pieces for t in p.tags}
        missing = [t for t in mapping if t not in logged]
        if missing:
            sources = ", ".join(to_read[i] for i, _ in pieces)
            problems.append(ReadProblem(sources, "missing tag", f"no {_listed(missing)}; it logs "
                                        f"{_listed(sorted(logged)) or 'no column of numbers'}"))
        else:
            complete[key] = (fields, pieces)
    log = ReadLog(str(root), kind, tuple(files), tuple(problems), tuple(ignored), skipped=on_error == "skip")
    if problems:
        _fail_or_warn(problems, root, kind, on_error, total=len(to_read), fatal=not complete)
    frame, duplicates, without_step = _assemble(complete, field_names, mapping, to_read, keep)

    notes = [f"read {len(complete)} runs from {len(to_read) - len([p for p in problems if p.kind != 'missing tag'])} "
             f"{FORMAT_LABELS[kind]}, {tag_sentence}"]
    if kind == "sb3_monitor":
        notes.append("the step of a monitor.csv row is the cumulative episode length (SB3's timesteps), counted "
                     "over all monitor files of a run in time order")
    if duplicates:
        notes.append(f"{count(duplicates, 'value')} logged again at a step already logged in the "
                     f"same run (a restart from a checkpoint); the one written {keep} was kept")
    if without_step:
        notes.append(f"{count(without_step, 'table row')} without a step left out")
    if ignored:
        notes.append(f"{count(len(ignored), 'log file')} did not match the pattern {pattern!r} and "
                     "were not read")
    if problems:
        notes.append(f"{count(len(problems), 'file or run', 'files or runs')} could not be used and "
                     "were skipped (see attrs['read_log'])")
    frame.attrs[NOTES_ATTR] = tuple(notes)
    frame.attrs[READ_LOG_ATTR] = log
    return frame


def _fail_or_warn(problems, root, kind, on_error, *, total, fatal):
    shown = "\n".join(f"  {p}" for p in problems[:10])
    more = f"\n  ... and {len(problems) - 10} more" if len(problems) > 10 else ""
    if on_error == "raise" or fatal:
        advice = ("pass on_error='skip' to read the others" if not fatal else "no run could be read")
        raise LogReadError(f"{len(problems)} of {total} {FORMAT_LABELS[kind]} under {root} could not be used "
                           f"({advice}):\n{shown}{more}")
    warn(f"skipped {len(problems)} of {total} {FORMAT_LABELS[kind]} that could not be used "
         f"(frame.attrs['read_log'] lists them):\n{shown}{more}")


def _assemble(runs, field_names, mapping, sources, keep):
    """The long frame from the runs' pieces: duplicates resolved by ``keep``, tags as columns."""
    tag_order = list(mapping)
    run_ids, files, positions, steps, tags, values, walls, elapsed = [], [], [], [], [], [], [], []
    has_wall = has_elapsed = False
    without_step = 0
    for run_id, (fields, pieces) in enumerate(runs.values()):
        for file_index, piece in pieces:
            without_step += piece.meta.get("rows_without_step", 0)
            lookup = np.array([tag_order.index(t) if t in mapping else -1 for t in piece.tags], dtype=np.intp)
            codes = lookup[piece.tag] if piece.tags else piece.tag
            chosen = codes >= 0
            n = int(chosen.sum())
            run_ids.append(np.full(n, run_id, dtype=np.int64))
            files.append(np.full(n, file_index, dtype=np.int64))
            positions.append(np.flatnonzero(chosen))
            steps.append(np.asarray(piece.step)[chosen])
            tags.append(codes[chosen])
            values.append(piece.value[chosen])
            has_wall |= piece.wall_time is not None
            has_elapsed |= piece.time_elapsed is not None
            walls.append(piece.wall_time[chosen] if piece.wall_time is not None else np.full(n, np.nan))
            elapsed.append(piece.time_elapsed[chosen] if piece.time_elapsed is not None else np.full(n, np.nan))
    run_id, file_id, position = (np.concatenate(a) for a in (run_ids, files, positions))
    step = np.concatenate(steps)
    tag, value, wall, spent = (np.concatenate(a) for a in (tags, values, walls, elapsed))
    # Sort by run, tag, step, then the order written; keep the first or last of each (run, tag, step).
    order = np.lexsort((position, file_id, step, tag, run_id))
    columns = (run_id, file_id, step, tag, value, wall, spent)
    run_id, file_id, step, tag, value, wall, spent = (a[order] for a in columns)
    same = (run_id[1:] == run_id[:-1]) & (tag[1:] == tag[:-1]) & (step[1:] == step[:-1])
    keep_mask = np.r_[~same, True] if keep == "last" else np.r_[True, ~same]
    duplicates = int(same.sum())
    run_id, file_id, step, tag, value, wall, spent = (a[keep_mask] for a in
                                                      (run_id, file_id, step, tag, value, wall, spent))
    # One row per (run, step).
    row_order = np.lexsort((file_id, step, run_id))
    rs, ss = run_id[row_order], step[row_order]
    new_row = np.r_[True, (rs[1:] != rs[:-1]) | (ss[1:] != ss[:-1])]
    row_of_sorted = np.cumsum(new_row) - 1
    row = np.empty_like(row_of_sorted)
    row[row_order] = row_of_sorted
    n_rows = int(new_row.sum())
    table = np.full((n_rows, len(tag_order)), np.nan)
    table[row, tag] = value
    last = np.r_[new_row[1:], True]  # the record of each row written last (largest file index)
    row_run = rs[new_row]
    row_step = ss[new_row]
    row_file = file_id[row_order][last]
    row_wall = np.full(n_rows, np.nan)
    np.fmax.at(row_wall, row, wall)
    row_spent = np.full(n_rows, np.nan)
    np.fmax.at(row_spent, row, spent)

    columns = {}
    field_rows = [fields for fields, _ in runs.values()]
    ordered = [f for f in STANDARD_FIELDS if f in field_names] + [f for f in field_names if f not in STANDARD_FIELDS]
    for name in ordered:
        per_run = [str(f[name]) if name in f and f[name] is not None else None for f in field_rows]
        if name == "seed" and all(v is not None for v in per_run):
            column = _seed_values(per_run)
        else:
            column = np.asarray(per_run, dtype=object)
        columns[name] = column[row_run]
    if np.issubdtype(row_step.dtype, np.floating) and np.all(row_step == np.round(row_step)):
        row_step = row_step.astype(np.int64)
    columns["step"] = row_step
    for j, t in enumerate(tag_order):
        columns[mapping[t]] = table[:, j]
    if has_wall:
        columns["wall_time"] = row_wall
    if has_elapsed and not np.isnan(row_spent).all():
        columns["time_elapsed"] = row_spent
    columns["source"] = np.asarray(sources, dtype=object)[row_file]
    return pd.DataFrame(columns), duplicates, without_step
