"""Table-shaped logs: Stable-Baselines3's monitor.csv and progress.csv, CSV and JSON-lines loggers
(CleanRL-style), Spinning Up's tab-separated progress.txt, and CSV exports of W&B charts.

Formats, as their writers define them:

- ``monitor.csv`` (``stable_baselines3.common.monitor.ResultsWriter``): a first line ``#`` plus
  a JSON object (``t_start``, ``env_id``), then a CSV with columns ``r`` (episode return),
  ``l`` (episode length) and ``t`` (seconds since ``t_start``) and any ``info_keywords``. The
  step is the cumulative episode length, as ``stable_baselines3.common.results_plotter.ts2xy``
  counts timesteps; ``wall_time`` is ``t_start + t``.
- ``progress.csv`` (``stable_baselines3.common.logger.CSVOutputFormat``): one row per dump,
  columns such as ``time/total_timesteps`` (the step), ``rollout/ep_rew_mean``,
  ``eval/mean_reward``; a key first logged later gets empty cells in the rows before it.
- ``progress.txt`` (Spinning Up's ``EpochLogger``): tab-separated, step ``TotalEnvInteracts``.
- W&B chart export (the web UI's "Export CSV"): a ``Step`` column and one column
  ``"<run name> - <metric>"`` per run, with ``__MIN``/``__MAX`` companions that are skipped.
"""

from __future__ import annotations

import io
import json
import re
import sys

import numpy as np
import pandas as pd

from ..tables import LongRecord, read_csv
from ._pieces import FileProblem, from_columns, repeated_names, whole_steps

#: Step columns tried in order when ``step=`` is not given (exact names, then lower-cased names).
STEP_COLUMNS = ("time/total_timesteps", "TotalEnvInteracts", "global_step", "step", "Step", "_step",
                "timestep", "timesteps", "total_timesteps", "env_step", "env_steps", "frames", "frame",
                "trainer/global_step", "iteration", "epoch", "Epoch")
WALL_TIME_COLUMNS = ("wall_time", "_timestamp", "timestamp")
ELAPSED_COLUMNS = ("time/time_elapsed", "Time", "_runtime", "time_elapsed")
_LINE_END = re.compile(r"\r\n|\r|\n")
#: Text pandas reads as a missing value besides an empty cell (its default NA words), looked for before a table is
#: parsed again to tell a written NaN from a value not logged.
_MISSING_WORDS = re.compile(r"(?i)nan|n/a|null|none|#na|<na>|(?<![A-Za-z])na(?![A-Za-z])|1\.#")
WANDB_COLUMN = re.compile(r"^(?P<run>.+) - (?P<metric>.+?)(?P<bound>__MIN|__MAX)?$")
#: Most characters of a CSV header read to tell a W&B export (about 7,000 runs' three columns each).
MAX_HEADER_CHARS = 1 << 20
#: Deepest nesting of ``[`` and ``{`` a JSON log record may have (the json module recurses once per level).
MAX_JSON_DEPTH = 64
#: json_depth's classes of bytes (every other byte is 0) and the bytes it follows with numpy at once.
_QUOTE, _BACKSLASH, _OPEN, _CLOSE = 1, 2, 3, 4
_JSON_CLASSES = bytes(_QUOTE if b == ord('"') else _BACKSLASH if b == ord("\\") else _OPEN if b in b"[{"
                      else _CLOSE if b in b"]}" else 0 for b in range(256))
JSON_BLOCK_BYTES = 1 << 18
#: A JSON-lines file becomes a table of rows x distinct keys; beyond this many cells, that table must hold
#: at least one value in every JSON_SPARSITY cells (a file of one new key per line would ask for rows**2).
MAX_SPARSE_CELLS = 10_000_000
JSON_SPARSITY = 100
#: Steps a monitor.csv's episode lengths may add up to: whole numbers held exactly as floats (2**53), far beyond
#: any run's, well inside int64.
MAX_STEPS = 2.0**53


def _text(path, translate=True):
    """The file's text; line ends translated to ``\\n`` as text mode reads them, unless ``translate`` is False
    (the caller reads any line end: translating SB3's ``\\r\\n`` costs as much as pandas' whole parse)."""
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise FileProblem("unreadable", exc.strerror or str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise FileProblem("unreadable", f"not UTF-8 text (byte {exc.object[exc.start:exc.start + 1]!r} at "
                                        f"position {exc.start}); save it as UTF-8, e.g. with iconv -f latin1 "
                                        "-t utf-8") from exc
    if translate and "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text or text.isspace():
        raise FileProblem("empty", "the file has no content")
    return text


def _check_complete(text, separator, strict):
    """A last line cut off mid-record is an error: with ``strict`` (a logger that ends every record
    with a newline) any last line without one, else one with fewer fields than the header."""
    if text.endswith(("\n", "\r")):
        return
    lines = text.splitlines()
    if strict and len(lines) > 1:
        raise FileProblem("truncated", f"the last line has no line end, so the logger was cut off while "
                                       f"writing it: {lines[-1][:60]!r}")
    if len(lines) > 1 and lines[-1].count(separator) < lines[0].count(separator):
        raise FileProblem("truncated", f"the last line ends after {lines[-1].count(separator) + 1} of "
                                       f"{lines[0].count(separator) + 1} fields: {lines[-1][:60]!r}")


#: pandas' words for a record with more fields than the header, after the first record
_PANDAS_LONG = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_LINE_NUMBER = re.compile(r"\bline (\d+)")
#: the cause and the way on of a header written again inside a table (audit s23)
_HEADER_AGAIN = ("(a header written again: a logger resumed, appending to its file?); split the file there, the rows "
                 "from that line on a file of their own (read as the run's next file), or delete the line")


def _table(text, separator, skip=0, first_line=1, rows_needed=True):
    """The table in ``text`` (whose first line is line ``first_line`` of the file, for messages); a header without
    rows is an empty file, unless not ``rows_needed``."""
    header = _LINE_END.split(text, maxsplit=skip + 1)[skip]
    twice = repeated_names(header, separator)
    if twice:  # pandas would read the second copy as 'name.1', a scalar nobody logged
        raise FileProblem("unreadable", f"the header names the column {', '.join(map(repr, twice))} twice; "
                                        "rename one (or leave one out) so each scalar has one column")
    shift = (lambda message: _LINE_NUMBER.sub(lambda m: f"line {int(m.group(1)) + first_line - 1}", message))
    try:
        frame = read_csv(io.BytesIO(text.encode("utf-8")), sep=separator, skiprows=skip,  # bytes parse faster
                         skipinitialspace=separator == "\t")
    except LongRecord as exc:  # pandas would move every column one place (audit s21, review21b)
        raise FileProblem("unreadable", f"{shift(str(exc))}; give every record as many fields as the header") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        message = str(exc).strip().splitlines()[-1]
        long = _PANDAS_LONG.search(message)
        if long is None:
            raise FileProblem("unreadable", message) from exc
        names, line, fields = (int(g) for g in long.groups())
        record = _LINE_END.split(text, maxsplit=line)[line - 1] if line >= 1 else ""
        again = (f"; it starts as the header does {_HEADER_AGAIN}"
                 if record.split(separator)[0].strip() == header.split(separator)[0].strip() else
                 "; give every record as many fields as the header")
        raise FileProblem("unreadable", f"line {line + first_line - 1} has {fields} fields where the header names "
                                        f"{names}{again}") from None
    names = [str(c).strip() for c in frame.columns]
    if names != list(frame.columns):
        frame.columns = names
    if frame.empty and rows_needed:
        raise FileProblem("empty", f"a header ({', '.join(map(str, frame.columns[:6]))}) but no rows")
    return frame


def _written_nan(text, separator, frame, skip=0):
    """{column: bool array} of the cells that hold written text pandas reads as a missing value (``nan``, ``NaN``,
    ``None``, ...: a value logged as NaN, as SB3's logger writes one), for the columns with such a cell; an empty
    cell is a value not logged (a key the logger did not write at that row). The table is parsed again as text only
    when a word pandas reads as missing occurs in it."""
    if not _MISSING_WORDS.search(text):
        return {}
    missing = [c for c in frame.columns if frame[c].isna().any()]
    if not missing:
        return {}
    raw = read_csv(io.BytesIO(text.encode("utf-8")), sep=separator, skiprows=skip, dtype=str, keep_default_na=False,
                   skipinitialspace=separator == "\t")
    raw.columns = [str(c).strip() for c in raw.columns]
    out = {}
    for column in missing:
        mask = frame[column].isna().to_numpy() & (raw[column].str.strip() != "").to_numpy()
        if mask.any():
            out[column] = mask
    return out


def _numeric(frame, column, flags=False, line_of=None):
    """A column's numbers (FileProblem for a cell that is not one). JSON's true and false are numbers to pandas:
    a column of them alone is read as 1 and 0 where ``flags`` (a success flag; the caller notes it), and otherwise
    (among numbers, or as a step or time) is an error, as ``True`` in a CSV cell is (audit s17)."""
    cells = frame[column]
    if cells.dtype.kind in "fiu":  # parsed as numbers already (empty cells are NaN): nothing to check
        return cells.to_numpy(dtype=float)
    booleans = _booleans(cells)
    if booleans.any():
        numbers = cells.notna() & ~booleans
        if not flags or numbers.any():
            row = int(np.flatnonzero(booleans.to_numpy())[0])
            raise FileProblem("corrupt", f"column {column!r} holds {str(bool(cells.iloc[row])).lower()} in data row "
                                         f"{row + 1}"
                                         + (" among numbers" if numbers.any() else "") + ", not a number")
    values = pd.to_numeric(cells, errors="coerce")
    bad = values.isna() & cells.notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        if str(cells.iloc[row]).strip() == column:  # its own name: the header again (audit s23)
            raise FileProblem("corrupt", f"data row {row + 1}{_line(line_of, row)} repeats the header {_HEADER_AGAIN}")
        raise FileProblem("corrupt", f"column {column!r} holds {cells.iloc[row]!r} in data row {row + 1}"
                                     f"{_line(line_of, row)}, not a number; mend or remove the line")
    return values.to_numpy(dtype=float)


def _booleans(cells):
    """Which cells hold a boolean (JSON's true or false)."""
    if cells.dtype.kind == "b":
        return pd.Series(True, index=cells.index)
    if cells.dtype != object:
        return pd.Series(False, index=cells.index)
    return cells.map(lambda value: isinstance(value, (bool, np.bool_))).astype(bool)


def _first(columns, candidates):
    for name in candidates:
        if name in columns:
            return name
    lower = {c.lower(): c for c in columns}
    for name in candidates:
        if name.lower() in lower:
            return lower[name.lower()]
    return None


def _steps(frame, column, line_of=None):
    """A table's steps: whole numbers as written (int64, exact past 2**53, where floats merged two steps and dropped a
    value as logged twice), else floats, NaN where a row has none; an infinite step is a corrupt line (audit s23: kept
    as a row at step inf)."""
    if frame[column].dtype.kind == "i":
        return frame[column].to_numpy(dtype=np.int64)
    steps = _numeric(frame, column, line_of=line_of)
    bad = np.flatnonzero(np.isinf(steps))
    if bad.size:
        row = int(bad[0])
        raise FileProblem("corrupt", f"column {column!r} holds {steps[row]:g} in data row {row + 1}"
                                     f"{_line(line_of, row)}, not a step; mend or remove the line")
    return steps


def _line(line_of, row):
    """`` (line 7 of the file)`` for data row ``row`` (from 0), where ``line_of`` can tell it, else nothing."""
    line = None if line_of is None else line_of(row)
    return "" if line is None else f" (line {line} of the file)"


def line_finder(text, header_lines):
    """``row -> line`` (from 1) of a table's data rows, in ``text`` after ``header_lines`` lines, blank lines
    skipped as pandas and the JSON-lines reader skip them; None for a row it cannot place (a quoted field may
    span lines). Found only when asked, for an error."""
    def line_of(row):
        if '"' in text and header_lines:  # CSV quoting: a record may hold line ends
            return None
        seen = -1
        for number, line in enumerate(_LINE_END.split(text)[header_lines:], start=header_lines + 1):
            seen += bool(line.strip())
            if seen == row:
                return number
        return None
    return line_of


def _unended(text):
    """The last line of ``text`` when it has no line end: (its number, its first characters); else None."""
    if text.endswith(("\n", "\r")):
        return None
    return len(_LINE_END.findall(text)) + 1, _LINE_END.split(text)[-1][:60]


def _pieces_from_frame(frame, step, *, meta=None, name=None, written=None, line_of=None):
    columns = list(frame.columns)
    step_column = step if step is not None else _first(columns, STEP_COLUMNS)
    if step_column is None or step_column not in columns:
        wanted = f"step={step!r} names no column" if step is not None else "no step column found"
        shown = (name if len(name) <= 40 else name[:37] + "..." for name in map(str, columns[:12]))  # a header of data
        raise FileProblem("unreadable", f"{wanted}; columns: {', '.join(shown)}"
                                        f"{' ...' if len(columns) > 12 else ''}; pass step='<column>'")
    steps = _steps(frame, step_column, line_of)
    keep = ~np.isnan(steps)
    wall = _first(columns, WALL_TIME_COLUMNS)
    elapsed = _first(columns, ELAPSED_COLUMNS)
    special = {step_column, wall, elapsed}
    values, written_nan, flags = {}, {}, []
    for column in columns:
        if column in special:
            continue
        if written and column in written:
            written_nan[column] = written[column][keep]
        numbers = pd.to_numeric(frame[column], errors="coerce")
        if not numbers.notna().any() and frame[column].notna().any():
            continue  # text columns (a run name, a date) are not scalars
        values[column] = _numeric(frame, column, flags=True, line_of=line_of)[keep]  # a word among numbers: an error
        if _booleans(frame[column]).any():
            flags.append(column)
    step_values = whole_steps(steps[keep])
    piece = from_columns(step_values, values,
                         wall_time=None if wall is None else _numeric(frame, wall)[keep],
                         time_elapsed=None if elapsed is None else _numeric(frame, elapsed)[keep],
                         meta=meta, name=name, written_nan=written_nan)
    piece.meta = dict(piece.meta, rows_without_step=int((~keep).sum()), flags=tuple(flags))
    return piece


def _delimited(path, separator, strict):
    """A table log's frame, checked complete (``strict``: a logger that ends every record with a newline), its
    cells holding a written NaN (:func:`_written_nan`), its data rows' lines (:func:`line_finder`) and its last line
    when that has no line end (:func:`_unended`)."""
    text = _text(path)
    _check_complete(text, separator, strict=strict)
    frame = _table(text, separator)
    return frame, _written_nan(text, separator, frame), line_finder(text, 1), _unended(text)


def read_progress(path, step=None):
    """SB3's logger ``progress.csv`` as a list of one Piece."""
    frame, written, line_of, _ = _delimited(path, ",", strict=True)
    return [_pieces_from_frame(frame, step, written=written, line_of=line_of)]


def read_spinup(path, step=None):
    """Spinning Up's tab-separated ``progress.txt`` as a list of one Piece."""
    frame, written, line_of, _ = _delimited(path, "\t", strict=True)
    return [_pieces_from_frame(frame, step, written=written, line_of=line_of)]


def read_csv_log(path, step=None):
    """A CSV logger's file as a list of one Piece, or a W&B chart export as one Piece per run. A last line without a
    line end (read when it has every field) is in each piece's ``meta["unended"]``: (its line, its text)."""
    frame, written, line_of, unended = _delimited(path, ",", strict=False)
    if _is_wandb_export(frame.columns):
        pieces = _wandb_export(frame, step, written)
    else:
        pieces = [_pieces_from_frame(frame, step, written=written, line_of=line_of)]
    if unended is not None:  # cut off mid-value, it still has every field (audit s23: read without a word)
        for piece in pieces:
            piece.meta = dict(piece.meta, unended=unended)
    return pieces


def read_json_lines(path, step=None):
    """A JSON-lines log as a list of one Piece."""
    text = _text(path)
    frame, written = _json_lines(text)
    return [_pieces_from_frame(frame, step, written=written, line_of=line_finder(text, 0))]


def monitor_tags(available):
    """A monitor.csv's default scalar: the episode return."""
    return {"r": "r"}, "column 'r' (the episode return, SB3's default)"


def loads_json(text):
    """``json.loads(text)``, where an integer longer than Python reads (more than ``sys.get_int_max_str_digits()``
    digits: a ValueError of int() that json.loads lets through, not a JSONDecodeError) is a JSONDecodeError at that
    number like any other text that is not JSON (audit s31: a log line, a monitor.csv header, a marl-eval file or an
    AdaStop state holding a number of 5,000 digits ended in that raw ValueError).

    >>> try:
    ...     loads_json('{"step": ' + "9" * 5000 + "}")
    ... except json.JSONDecodeError as exc:
    ...     print(exc.msg[:47], exc.colno)
    a number of 5,000 digits, more than the 4,300 P 10
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:
        limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()  # Python 3.10 before 3.10.7 has no limit
        found = re.search(r"\d{%d,}" % (limit + 1), text) if limit else None
        if found is None:  # not the digits' limit (json.loads raises only that and JSONDecodeError)
            raise
        raise json.JSONDecodeError(f"a number of {len(found.group()):,} digits, more than the {limit:,} Python reads "
                                   "as a whole number; a logger writes numbers of a few digits", text,
                                   found.start()) from None


def json_depth(text):
    """The deepest nesting of ``[`` and ``{`` in JSON ``text``, outside strings; counted, never recursing.

    A quote preceded by an odd run of backslashes is escaped (inside a string, where JSON allows a
    backslash). Only quotes, backslashes and brackets matter: the bytes are mapped to their class by one
    ``bytes.translate`` and the few that matter are followed with numpy, JSON_BLOCK_BYTES at a time: a
    pass over the text, in twice its memory and a block's arrays whatever the nesting (json.loads takes
    3 times as long on a marl-eval file, and about 10 times the text's memory).

    >>> json_depth('{"a": [1, [2]], "b": "[[[["}'), json_depth("3")
    (3, 0)
    """
    classes = np.frombuffer(text.encode("utf-8").translate(_JSON_CLASSES), dtype=np.uint8)
    state = (-2, -1, 0, 0)  # before the text: no byte that matters, none that is not a backslash, outside, level 0
    deepest = 0
    for start in range(0, classes.size, JSON_BLOCK_BYTES):
        block = classes[start:start + JSON_BLOCK_BYTES]
        where = np.flatnonzero(block)
        if where.size:
            state, block_deepest = _depth_of_block(where + start, block[where], *state)
            deepest = max(deepest, block_deepest)
    return deepest


def _depth_of_block(where, kind, last, plain_last, inside, depth):
    """(state after the block, deepest level in it) for the quotes, backslashes and brackets at ``where``
    (``kind``: their class), given the state after the blocks before: the position of the last of them, the
    last byte at or before it that is not a backslash, whether inside a string (0 or 1), the depth."""
    contiguous = np.r_[last, where[:-1]] == where - 1  # no other byte between it and the one before
    backslash = kind == _BACKSLASH
    # The last byte at or before each that is not a backslash: itself, the byte before a run's first
    # backslash, or (inside a run) the one its run started after.
    anchor = np.where(~backslash, where, np.where(contiguous, -1, where - 1))
    plain = np.maximum.accumulate(np.r_[plain_last, anchor])
    escaped = contiguous & ((where - 1 - plain[:-1]) % 2 == 1)  # after an odd run of backslashes
    inside_after = (inside + np.cumsum((kind == _QUOTE) & ~escaped)) % 2
    steps = np.where(inside_after == 0, (kind == _OPEN).astype(np.int64) - (kind == _CLOSE), 0)
    depths = depth + np.cumsum(steps)
    return (int(where[-1]), int(plain[-1]), int(inside_after[-1]), int(depths[-1])), int(depths.max())


def _check_depth(text, where):
    """FileProblem before json reads ``text`` when it nests deeper than MAX_JSON_DEPTH."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise FileProblem("corrupt", f"{where} nests JSON {depth:,} levels deep, more than the {MAX_JSON_DEPTH} "
                                     "a log record may have; a logger writes flat records of numbers, so this "
                                     "line was not written by one")


def _json_lines(text):
    rows, keys, values, nan_cells = [], set(), 0, []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        _check_depth(line, f"line {number}")
        try:
            row = loads_json(line)
        except json.JSONDecodeError as exc:
            kind = "truncated" if number == len(lines) and not text.endswith("\n") else "corrupt"
            raise FileProblem(kind, f"line {number} is not JSON ({exc.msg}): {line[:60]!r}") from exc
        if not isinstance(row, dict):
            raise FileProblem("corrupt", f"line {number} is not a JSON object: {line[:60]!r}")
        nan_cells += [(len(rows), key) for key, value in row.items() if isinstance(value, float) and value != value]
        rows.append(row)
        keys.update(row)
        values += len(row)
    if not rows:
        raise FileProblem("empty", "no JSON records")
    cells = len(rows) * len(keys)
    if cells > MAX_SPARSE_CELLS and cells > JSON_SPARSITY * values:
        raise FileProblem("unreadable", f"its {len(rows):,} records use {len(keys):,} different keys, a table of "
                                        f"{cells:,} cells for {values:,} values (more than {MAX_SPARSE_CELLS:,} "
                                        f"cells, under one value in {JSON_SPARSITY}); a logger writes the same few "
                                        "keys on every line, so split the file by key or leave it out")
    frame = pd.DataFrame.from_records(rows)
    written = {}  # a key written as NaN logged a value (an absent key, or null, logged none)
    for row, key in nan_cells:
        written.setdefault(key, np.zeros(len(rows), dtype=bool))[row] = True
    return frame, written


def read_monitor(path):
    """A Stable-Baselines3 ``monitor.csv`` as a list of one Piece (format in the module docstring)."""
    first, rest = (_LINE_END.split(_text(path, translate=False), maxsplit=1) + [""])[:2]
    if not first.startswith("#"):
        raise FileProblem("unreadable", "the first line is not SB3's '#{json}' header; "
                                        f"it reads {first[:60]!r}")
    _check_depth(first[1:], "the '#{json}' header line")
    try:
        header = loads_json(first[1:])
    except json.JSONDecodeError as exc:
        raise FileProblem("corrupt", f"the '#{{json}}' header line is not JSON ({exc.msg})") from exc
    if not isinstance(header, dict):
        raise FileProblem("corrupt", f"the '#{{json}}' header line is not a JSON object: {first[:60]!r}")
    if not rest or rest.isspace():
        raise FileProblem("empty", "the header line but no column names")
    _check_complete(rest, ",", strict=True)
    # a VecEnv's environment that finished no episode leaves its header alone: no episode, no step (audit s23)
    frame = _table(rest, ",", first_line=2, rows_needed=False)
    names = list(frame.columns)  # `in` on a plain list: pandas' Index costs more than the rest of a check
    missing = [c for c in ("r", "l", "t") if c not in names]
    if missing:
        raise FileProblem("unreadable", f"no column {', '.join(map(repr, missing))} (SB3 writes r, l, t)")
    if all(dtype.kind in "fiu" for dtype in frame.dtypes):  # numbers only: one conversion, nothing to check
        number = dict(zip(names, frame.to_numpy(dtype=float).T)).__getitem__
    else:
        number = (lambda column: _numeric(frame, column, line_of=lambda row: row + 3))
    lengths = number("l")
    _check_lengths(lengths)
    elapsed = number("t")
    bad = np.flatnonzero(~np.isfinite(elapsed))
    if bad.size:  # the time orders a VecEnv's files' episodes (audit s23: a NaN was sorted after every other episode)
        row = int(bad[0])
        shown = "no value" if np.isnan(elapsed[row]) else f"{elapsed[row]:g}"
        raise FileProblem("corrupt", f"column 't' (the episode's end, in seconds since t_start) holds {shown} in data "
                                     f"row {row + 1} (line {row + 3} of the file), not a number of seconds, which "
                                     "orders the episodes of a run's files; mend or remove the line")
    values = {"r": number("r"), "l": lengths}
    for column in names:
        if column not in ("r", "l", "t"):
            numbers = pd.to_numeric(frame[column], errors="coerce")
            if numbers.notna().sum() == frame[column].notna().sum():
                values[column] = numbers.to_numpy(dtype=float)
    t_start = header.get("t_start")
    if t_start is not None and (isinstance(t_start, bool) or not isinstance(t_start, (int, float))):
        raise FileProblem("corrupt", f"the '#{{json}}' header's t_start is {str(t_start)[:60]!r}, not a number of "
                                     "seconds since the epoch")
    meta = {"episodes": frame.shape[0]}
    back = np.flatnonzero(elapsed[1:] < elapsed[:-1])
    if back.size:  # Monitor(override_existing=False) appends a resumed run's episodes, timed from its own start
        meta["time_goes_back_at"] = int(back[0]) + 4  # the line of the data row after it (header and names first)
    if header.get("env_id") not in (None, "", "None"):  # SB3 writes str(None) when the env has no spec
        meta["task"] = str(header["env_id"])
    meta["monitor"] = (values, t_start, elapsed)  # for combine_monitors
    return [monitor_piece(np.cumsum(lengths).astype(np.int64), values, t_start, elapsed, meta)]


def _check_lengths(lengths):
    """FileProblem at the first episode length ``l`` that is no whole number of steps from 0, or that brings the
    steps (their cumulative sum) to MAX_STEPS: a corrupt 1e19 wrapped the int64 step to -2**63, reordering the run's
    rows and dropping one as logged twice, and 2.5 was cut to a whole step, without a word (audit s23)."""
    where = (lambda row: f"column 'l' (the episode length) holds {_shown(lengths[row])} in data row {row + 1} (line "
                         f"{row + 3} of the file), ")
    bad = np.flatnonzero(~(lengths >= 0))
    if bad.size:  # the step is the cumulative length: it would run backwards
        raise FileProblem("corrupt", where(int(bad[0])) + "not a length of 0 or more")
    bad = np.flatnonzero(lengths != np.floor(lengths))
    if bad.size:
        raise FileProblem("corrupt", where(int(bad[0])) + "not a whole number of steps")
    beyond = np.flatnonzero(np.cumsum(lengths) >= MAX_STEPS)  # float sums: exact below MAX_STEPS, never wrapping
    if beyond.size:
        row = int(beyond[0])
        raise FileProblem("corrupt", where(row) + ("more steps than any run takes (2**53 or more)"
                                                   if lengths[row] >= MAX_STEPS else
                                                   "which brings the run's steps to 2**53 or more, more than any run "
                                                   "takes") + "; mend or remove the line")


def _shown(value):
    return "no value" if np.isnan(value) else f"{value:g}"


def monitor_piece(steps, values, t_start, elapsed, meta):
    """Records with the wall time ``t_start + t`` (made here, not kept), or the time elapsed without a t_start."""
    wall = None if t_start is None else float(t_start) + elapsed
    # every row is an episode: a return that reads as NaN was logged so (audit s15: the episode vanished)
    return from_columns(steps, values, wall_time=wall, time_elapsed=None if wall is not None else elapsed, meta=meta,
                        written_nan={"r": np.isnan(values["r"])})


def combine_monitors(pieces):
    """Several monitor.csv files of one run (one per environment of a VecEnv): their episodes in time
    order, the step counting every environment's episodes, as SB3's ``load_results`` + ``ts2xy`` do.
    Returns one Piece per file again, so each row still names its file."""
    times, lengths, owner = [], [], []
    for i, piece in enumerate(pieces):
        values, t_start, elapsed = piece.meta["monitor"]
        times.append(elapsed if t_start is None else float(t_start) + elapsed)
        lengths.append(values["l"])
        owner.append(np.full(values["l"].size, i))
    times, lengths, owner = (np.concatenate(a) for a in (times, lengths, owner))
    order = np.argsort(times, kind="stable")
    steps = np.empty(lengths.size, dtype=np.int64)
    steps[order] = np.cumsum(lengths[order]).astype(np.int64)
    combined = []
    for i, piece in enumerate(pieces):
        values, t_start, elapsed = piece.meta["monitor"]
        combined.append(monitor_piece(steps[owner == i], values, t_start, elapsed, piece.meta))
    return combined


def looks_like_wandb_export(path):
    """Whether a CSV file's header is that of a W&B chart export (read before matching run names).

    At most MAX_HEADER_CHARS of the header are read (a file without line end is not read whole): a longer header is
    judged by its columns within them. A file of a URL over its ``max_file_bytes`` counts as one, so that reading it
    gives its problem rather than leaving it out unread."""
    try:
        with path.open(encoding="utf-8") as handle:  # a Path, or a file of a URL (._remote)
            header = handle.readline(MAX_HEADER_CHARS)
    except FileProblem:
        return True
    except (OSError, UnicodeDecodeError):
        return False
    columns = header.rstrip("\r\n").split(",")
    if len(header) == MAX_HEADER_CHARS and not header.endswith("\n"):
        columns = columns[:-1]  # cut off within a column
    return _is_wandb_export([c.strip().strip('"') for c in columns])


def _is_wandb_export(columns):
    others = [c for c in columns if c != "Step"]
    # A name with a line break is not W&B's, and would make the pattern try every ' - ' against every end.
    return "Step" in columns and bool(others) and all("\n" not in c and WANDB_COLUMN.match(c) for c in others)


def _wandb_export(frame, step, written=None):
    """One Piece per run of a W&B chart export (``written``: its cells holding a written NaN)."""
    steps = _numeric(frame, step or "Step")
    by_run = {}
    for column in frame.columns:
        m = WANDB_COLUMN.match(column)
        if column == "Step" or m is None or m.group("bound"):
            continue
        by_run.setdefault(m.group("run"), {})[m.group("metric")] = (_numeric(frame, column),
                                                                    (written or {}).get(column))
    pieces = []
    for run, columns in by_run.items():
        keep = ~np.isnan(steps)
        step_values = whole_steps(steps[keep])
        pieces.append(from_columns(step_values, {k: v[keep] for k, (v, _) in columns.items()}, name=run,
                                   written_nan={k: w[keep] for k, (_, w) in columns.items() if w is not None}))
    return pieces
