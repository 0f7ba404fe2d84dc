"""Helpers every command of the ``rlstats`` program shares: reading a table, options, output, figures.

They live apart from :mod:`rlstats.cli` (which builds the parser from every
command module) so that the command modules can use them without importing
the package that imports them.
"""

from __future__ import annotations

import argparse
import ast
import math
import os
import re
import shlex
import sys
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeGuard

from ..errors import INDEX_LABELS, close_names, install_hint, shell_word, shown
from ..grammar import ordinal, plural, verb

if TYPE_CHECKING:
    import pandas as pd

    from ..results import Result


class UsageError(Exception):
    """A command-line problem: reported as one message with exit status 2."""


def _parquet_magic(path):
    """Whether the file starts and ends with Parquet's 4-byte marker."""
    with open(path, "rb") as handle:
        head = handle.read(4)
        if handle.seek(0, 2) < 8:
            return False
        handle.seek(-4, 2)
        return head == b"PAR1" and handle.read(4) == b"PAR1"


#: Folders whose "files" are the kernel's or devices: never an output of ours.
_SYSTEM_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))
#: Where a path of "-" reads or writes: the standard streams.
STREAM = "-"


def check_sep(sep):
    """The separator of a text file: one character (``\\t`` spelled out means a tab), or None for the default.

    pandas treats a longer separator as a regular expression (slow, and a pattern from the command
    line would be matched against every line), so only single characters are taken.
    """
    if sep is None:
        return None
    if sep in ("\\t", "tab", "TAB"):
        return "\t"
    if len(sep) != 1 or sep in ('"', "\n", "\r"):
        raise UsageError(f"--sep {sep!r} is not one character; give the single character between columns, "
                         "e.g. --sep ';' or --sep '\\t' for a tab")
    return sep


def _stdin_table(separator, names=(), labels=()):
    """The table piped in on standard input: Parquet when it starts with its marker, else delimited text (its
    ``names`` columns kept as written where numbers would merge them, :func:`_names_as_written`)."""
    import io

    from ..tables import read_csv

    raw = sys.stdin.buffer.read()
    if not raw:
        raise UsageError("standard input is empty; pipe a CSV into '-' (e.g. cat runs.csv | rlstats ... -) "
                         "or give a file name")
    if raw[:4] == b"PAR1" and raw[-4:] == b"PAR1":
        return _parquet(io.BytesIO(raw), "standard input")
    text = _decoded(raw, "standard input")
    frame = _delimited(lambda: read_csv(io.StringIO(text), sep=separator), "standard input", separator)
    _check_unique_header(lambda: read_csv(io.StringIO(text), sep=separator, header=None, nrows=1, dtype=str,
                                          keep_default_na=False), "standard input")
    return _names_as_written(frame, names, lambda columns: read_csv(io.StringIO(text), sep=separator,
                                                                     usecols=columns, dtype=str), labels)


def _parquet(source, where, per="run"):
    import pandas as pd

    try:
        frame = pd.read_parquet(source)
    except ImportError as exc:
        # pandas' own text runs over several lines: its first, so that the error stays one line
        raise UsageError(f"reading {where} needs pyarrow: {install_hint('parquet')} "
                         f"({(str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]})") from None
    except Exception as exc:  # pyarrow's own error types
        raise UsageError(f"{where} is not a readable Parquet file ({type(exc).__name__}: "
                         f"{str(exc).splitlines()[0][:200]}); write it with DataFrame.to_parquet, or save a CSV "
                         "and give that") from None
    if len(frame) == 0:  # said in the file's terms, as for a text file of a header alone
        raise UsageError(f"{where} has no rows; give a file with one row per {per}")
    return frame.reset_index(drop=True)  # a stored index goes: errors name rows 0, 1, ... (rows_in_file)


def _not_utf8(where, exc, offset=0):
    """The error for text that is not UTF-8, naming the first bad byte and where it is in the file."""
    return UsageError(f"{where} is not UTF-8 text (byte {exc.object[exc.start:exc.start + 1]!r} at position "
                      f"{offset + exc.start}); save it as UTF-8, e.g. iconv -f latin1 -t utf-8 FILE > utf8.csv")


def _refuse_binary_log(path):
    """A training log read-logs reads (an SB3 evaluations.npz, a TensorBoard event file: told by its name, a binary
    format's) given where a table of runs is read: the error says how to turn such logs into a table (audit s32: an
    evaluations.npz was called text that is not UTF-8, with iconv's advice)."""
    from ..logs import binary_log, one_file

    record = binary_log(path.name)
    if record is not None:
        raise UsageError(f"{path} is a training log ({one_file(record.label)}), not a table of runs; turn the logs into one first: rlstats read-logs FOLDER --format "
                         f"{record.name} --pattern '{{agent}}/{{task}}/seed_{{seed}}' -o runs.csv (FOLDER holds the "
                         "runs' folders, whose paths the pattern names), then give runs.csv")


def _decoded(raw, where):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8(where, exc) from None


def _first_bad_byte(path):
    """The decoding error at the file's first byte that is not UTF-8, and the file offset its positions count from.

    pandas reports a position within the chunk it was decoding; this reads the file again to place it.
    """
    import codecs

    decoder, offset = codecs.getincrementaldecoder("utf-8")(), 0
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            pending = len(decoder.getstate()[0])  # bytes of a character split across chunks come first
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                return exc, offset - pending
            offset += len(chunk)
    return None, 0


#: the way on from a table read with the wrong separator, where the command's --sep sets it
_SEP_WAY = "pass --sep with its separator"


def _delimited(read, where, separator, path=None, per="run", sep_way=_SEP_WAY):
    """``read()`` (:func:`rlstats.tables.read_csv`) with its errors in the file's terms."""
    import pandas as pd

    from ..tables import LongRecord

    try:
        return read()
    except LongRecord as exc:  # pandas would drop its extra fields or move every column (audit s21, review21b)
        raise UsageError(f"{where}: {exc}; give every record as many fields as the header names") from None
    except UnicodeDecodeError as exc:
        found, offset = _first_bad_byte(path) if path is not None else (None, 0)
        raise _not_utf8(where, found or exc, offset) from None
    except pd.errors.EmptyDataError:  # no header line: no separator would help
        raise UsageError(f"{where} is empty; give a file with a header line and one row per {per}") from None
    except (pd.errors.ParserError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"cannot read {where} as a table separated by {separator!r}: {first}; "
                         f"check the file, or {sep_way}") from None
    except OSError as exc:  # a device or /proc file that refuses reads, a disk error
        raise UsageError(f"cannot read {where}: {exc.strerror or exc}; give a table file (CSV, TSV or "
                         "Parquet)") from None


def read_table(path: str | os.PathLike[str], sep: str | None = None, *, per: str = "run",
               sep_way: str = _SEP_WAY, names: Iterable[str] = (), labels: Iterable[str] = ()) -> pd.DataFrame:
    """Read a CSV, TSV or Parquet file (``-``: standard input) into a DataFrame, with errors that say what to do.

    ``sep`` overrides the separator (default: tab for .tsv/.tab, else comma). Floats are read
    exactly (:func:`rlstats.tables.read_csv`). ``per`` is what a row is, ``sep_way`` how the command sets the
    file's separator (a reference file has no --sep). ``names``: the columns of a text file that name things (a
    formula's agent, task and run columns, :func:`name_columns`), kept as the file writes them where reading them as
    numbers would make distinct names one (:func:`_names_as_written`); ``labels``: columns of names read as the file
    writes them whatever they hold (a long AdaStop batch's agents, which its state keeps as text).
    """
    from ..tables import not_regular, read_csv

    sep = check_sep(sep)
    if str(path) == STREAM:
        return _check_one_column(_stdin_table(sep or ",", tuple(names), tuple(labels)), "standard input",
                                 sep or ",", ",")
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{path} is a folder; give the table file inside it (CSV, TSV or Parquet)")
    if not path.is_file():
        raise UsageError(not_regular(path) or f"file not found: {path}")
    if not os.access(path, os.R_OK):
        raise UsageError(f"cannot read {path}: permission denied")
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        if not _parquet_magic(path):
            # Checked here, not left to pyarrow: pyarrow 12 can abort the interpreter at exit after that error.
            raise UsageError(f"{path} is not a readable Parquet file (it does not start and end with the "
                             "Parquet marker PAR1); write it with DataFrame.to_parquet, or save a CSV and give that")
        return _parquet(path, str(path), per)
    try:
        marked = _parquet_magic(path)
    except OSError:  # a file that refuses reads (/proc/self/mem): said by the reading below
        marked = False
    if marked:  # a Parquet file named otherwise (runs.dat): read as standard input's would be
        return _parquet(path, str(path), per)
    _refuse_binary_log(path)
    default = "\t" if suffix in (".tsv", ".tab") else ","
    separator = default if sep is None else sep
    frame = _delimited(lambda: read_csv(path, sep=separator), str(path), separator, path, per, sep_way)
    _check_unique_header(lambda: read_csv(path, sep=separator, header=None, nrows=1, dtype=str,
                                          keep_default_na=False), str(path))
    frame = _names_as_written(frame, tuple(names), lambda columns: read_csv(path, sep=separator, usecols=columns,
                                                                             dtype=str), tuple(labels))
    return _check_one_column(frame, str(path), separator, default, per, sep_way)


def held_labels(frame: pd.DataFrame, columns: Iterable[object]) -> set[str]:
    """The names in ``frame``'s ``columns`` (agents, tasks, runs) that hold a ``=``, which :func:`in_command_words`
    writes as they are (``labels=``): an agent 'SAC alpha=0.2' of a sweep is a name, not a hint."""
    return {str(value) for column in columns if column in frame.columns for value in frame[column].unique()
            if "=" in str(value)}


def name_columns(formula: str) -> tuple[str, ...]:
    """The columns ``formula`` reads as names (agent, task, run, a crossed block's parts), for :func:`read_table`;
    none when it does not parse (the library then says what is wrong with it)."""
    from ..errors import RlstatsError
    from ..formula import parse

    try:
        parsed = parse(formula)
    except RlstatsError:
        return ()
    return tuple(c for c in parsed.columns if c not in parsed.response_columns)


def _names_as_written(frame: pd.DataFrame, names: tuple[str, ...],
                      read_text: Callable[[list[str]], pd.DataFrame], labels: tuple[str, ...] = ()) -> pd.DataFrame:
    """``frame`` with each of its ``names`` columns that pandas' reader took for numbers, where the file writes one
    number in several ways ('1' and '01', '7' and '7.0'), read again as the file's text, with a note: read as
    numbers, two agents (tasks, runs) of the file would be one (audit s22: agents '1', '01' and '10' were compared as
    two). A column whose text is one per number stays numbers (sorted as numbers, named unquoted in conditions).
    ``labels``: columns read as written whenever pandas took them for numbers, without a note (names kept as text
    downstream, where '01' alone in one batch would otherwise become '1')."""
    from ..provenance import add_note

    numeric = [c for c in dict.fromkeys(names + labels) if c in frame.columns and frame[c].dtype.kind in "biuf"]
    if not numeric:
        return frame
    text = read_text(numeric)
    for column in numeric:
        written = text[column]
        if column in labels:
            frame = frame.assign(**{column: written})
            continue
        if written.nunique() == frame[column].nunique():
            frame = _whole_names(frame, column, written)
            continue
        by_number = written.groupby(frame[column].to_numpy()).unique()
        merged = next(list(values) for values in by_number if len(values) > 1)
        frame = frame.assign(**{column: written})
        frame = add_note(frame, f"column {column!r} of the file writes one number in several ways "
                                f"({', '.join(map(repr, merged))}), so its values are read as written, as text, each its own "
                                "name")
    return frame


def _whole_names(frame, column, written):
    """``frame`` with its name ``column`` as whole numbers (pandas' Int64) where the file writes whole numbers and
    pandas' reader made them floats for an empty field: agents 1, 2 and 10 were printed as 1.0, 2.0 and 10.0."""
    values = frame[column]
    if values.dtype.kind != "f" or not values.isna().any():
        return frame
    given = written.dropna()
    if not given.str.fullmatch(r"\s*[+-]?\d+\s*").all() or not (values.dropna().abs() <= 2.0**53).all():
        return frame  # a decimal point or exponent in the file, or past the whole numbers a float holds exactly
    return frame.assign(**{column: values.astype("Int64")})


def said(exc: BaseException) -> str:
    """A library error as the command shows it: its ``command_line`` wording where it has one (advice that is an
    action on the file or a flag, not pandas code), else its message."""
    return getattr(exc, "command_line", None) or str(exc)



def rows_in_file(message: str, path: str | None, sep: str | None = None) -> str:
    """A library message's "index labels 4, 9" in the file's terms: "data rows 5, 10 (lines 6, 11 of FILE)" (the
    frame :func:`read_table` gives numbers its rows 0, 1, ... in the file's order; a Parquet file or standard input
    has data rows but no lines), and a column's missing values as the text the file holds there
    (:func:`_missing_text`)."""
    if path is None:
        return message
    message = _missing_text(message, path, sep)

    def in_file(match):
        labels = [int(label) for label in match.group(1).split(", ")]
        more = match.group(2) or ""
        rows = f"data {plural('row', len(labels))} {', '.join(str(label + 1) for label in labels)}{more}"
        lines = _record_lines(path, sep, max(labels))
        if lines is None or max(labels) >= len(lines):
            return rows
        return (f"{rows} ({plural('line', len(labels))} {', '.join(str(lines[label]) for label in labels)}{more} "
                f"of {path})")

    return INDEX_LABELS.sub(in_file, message)  # labels of the frame read_table gave, 0, 1, ...


#: The library's message for a column with missing values (design.build), which names the column.
_MISSING = re.compile(r"column '([^']+)' has [0-9,]+ missing values?\b")


def _missing_text(message: str, path: str, sep: str | None) -> str:
    """``message`` with, where it says a column of a text file has missing values, the text the file holds there:
    pandas' reader takes 'NA', 'None', 'null', 'NaN', 'n/a', ... and empty fields for missing values, so an agent
    named 'None' reads as missing unless the message says so (audit s18). The file is read again, that column alone,
    only for this message."""
    found = _MISSING.search(message)
    why = None if found is None else _held_as_missing(path, sep, found.group(1), empty=True)
    if why is None:
        return message
    advice = message.find("; remove or fill them")  # said before the advice that would drop those rows
    return message + "; " + why if advice < 0 else message[:advice] + "; " + why + message[advice:]


def _held_as_missing(path: str, sep: str | None, column: str, empty: bool,
                     read: pd.Series | None = None) -> str | None:
    """What a text file's ``column`` holds where pandas' reader gave missing values ("column 'agent' of the file
    holds the text 'None' in 12 rows, which pandas.read_csv reads as missing values: if 'None' is a name, ..."),
    empty fields counted too when ``empty``; None when there is nothing to say (no such text, standard input,
    Parquet, or not a column of the file). ``read``: the column as :func:`read_table` read it, which says where
    values are missing, so the file is read once more, not twice (review s19)."""
    import pandas as pd

    from ..format import count
    from ..tables import read_csv

    file = Path(path)
    if str(file) == STREAM or file.suffix.lower() in (".parquet", ".pq"):
        return None
    separator = sep if sep is not None else ("\t" if file.suffix.lower() in (".tsv", ".tab") else ",")
    try:
        text = read_csv(file, sep=separator, usecols=[column], dtype=str, keep_default_na=False)[column]
        missing = (read_csv(file, sep=separator, usecols=[column], dtype=str)[column] if read is None
                   else read).isna().to_numpy()
    except (ValueError, OSError, UnicodeDecodeError):  # not a column of the file (log(score)), or unreadable now
        return None
    held = text[missing].value_counts(sort=False).to_dict()  # in the order the file holds them
    if not empty:
        held.pop("", None)
    if not held:
        return None
    said = [f"{'empty fields' if value == '' else f'the text {value!r}'} in {count(n, 'row')}"
            for value, n in held.items()]
    # a score column: no names to keep (each distinct text parsed once: a name column holds few)
    numbers = pd.to_numeric(pd.Series(text[~missing].unique()), errors="coerce").notna().all()
    names = [] if numbers else [repr(value) for value in held if value != ""]
    why = (f"column '{column}' of the file holds {' and '.join(said)}, which pandas.read_csv reads as "
           f"{'missing values' if sum(held.values()) > 1 else 'a missing value'}")
    if names:
        why += (f": if {' or '.join(names)} {'is a name' if len(names) == 1 else 'are names'}, not a missing value, "
                "rename it in the file (e.g. with a suffix)")
    return why


def with_missing_text(frame: pd.DataFrame, path: str, sep: str | None, formula: str) -> pd.DataFrame:
    """``frame`` (as :func:`read_table` read it) with a note, for each name column of ``formula`` where the file
    holds text that pandas' reader takes for a missing value ('None', 'nan', 'NA', ...), saying that text: with
    ``na_action="drop"`` those rows are left out, and the result's count of rows "with missing values" alone would
    never name the agent the user wrote (audit s19). Only a column of text with missing values is read again, once (a
    column read as numbers holds no names: review s19)."""
    from ..errors import RlstatsError
    from ..formula import parse
    from ..provenance import add_note

    try:
        columns = parse(formula).columns
    except RlstatsError:  # the library says what is wrong with the formula
        return frame
    for column in dict.fromkeys(columns):
        if column in frame.columns and frame[column].dtype.kind not in "biufc" and frame[column].isna().any():
            why = _held_as_missing(path, sep, column, empty=False, read=frame[column])
            if why is not None and ": if " in why:  # a name column: the text may have been a name
                frame = add_note(frame, why)
    return frame


def _record_lines(path: str, sep: str | None, last: int) -> list[int] | None:
    """The line each data row of a text file starts on (1-based), up to row ``last`` (0-based): a quoted field may
    span lines and read_csv skips blank ones. None for standard input, Parquet, or a file that cannot be read
    again."""
    import csv

    file = Path(path)
    if str(file) == STREAM or file.suffix.lower() in (".parquet", ".pq"):
        return None
    separator = sep if sep is not None else ("\t" if file.suffix.lower() in (".tsv", ".tab") else ",")
    starts: list[int] = []
    try:
        with open(file, encoding="utf-8-sig", newline="") as handle:
            reader, end = csv.reader(handle, delimiter=separator), 0
            for record in reader:
                start, end = end + 1, reader.line_num
                if record:
                    starts.append(start)
                if len(starts) > last + 1:  # the header and rows 0..last
                    break
    except (OSError, UnicodeDecodeError, csv.Error, TypeError):
        return None
    return starts[1:]


def _check_unique_header(read_header, where):
    """A header naming a column twice is an error: pandas would rename the second ('score.1') and the formula
    would read the first without a word (the Python API refuses such a frame too)."""
    names = [str(name) for name in read_header().iloc[0].tolist()]
    repeated = next((name for name in names if name and names.count(name) > 1), None)  # blank: "Unnamed: i"
    if repeated is not None:
        raise UsageError(f"{where}: column {repeated!r} appears {names.count(repeated)} times in the header; give "
                         "columns unique names")


def _check_one_column(frame, where, separator, default, per="run", sep_way=_SEP_WAY):
    """A table read as one column whose header holds another separator was read with the wrong one (the ``default``
    of its kind, or a --sep given: audit s28, a comma file read with --sep '\\t' said "unknown name 'score'"); a
    header alone is said in the file's terms (the library's message speaks of a DataFrame)."""
    if len(frame) == 0:
        raise UsageError(f"{where} has a header but no rows; give a file with one row per {per}")
    if frame.shape[1] == 1:
        header = str(frame.columns[0])
        other = next((c for c in (";", "\t", "|", ",") if c != separator and c in header), None)
        if other is not None:
            way = (sep_way if sep_way != _SEP_WAY else f"leave out --sep (the default, {other!r})"
                   if other == default else f"pass --sep {other!r}")
            raise UsageError(f"{where} has one column {header!r} when read with {separator!r} as separator; it "
                             f"looks separated by {other!r}: {way}")
    return frame


def _check_not_system(path, resolved, option):
    system = next((folder for folder in _SYSTEM_FOLDERS if resolved.is_relative_to(folder)), None)
    if system is not None:
        raise UsageError(f"{option} {path}: cannot write under {system} (the system's, not a place for results); "
                         "give a path in a folder of your own")


def check_output_path(path, *, option, inputs=()):
    """Where a command may write: ``path`` as a Path, or ``"-"`` for standard output.

    Refused, with one message naming ``option``: a folder, a path whose folder is missing or not
    writable, a file that cannot be written, anything under /proc, /sys or /dev, and any of
    ``inputs`` (files the command reads; for an input folder, any file that already exists in
    it), so that no command overwrites what it reads.
    """
    if str(path) == STREAM:
        return STREAM
    path = Path(path)
    resolved = path.resolve()
    _check_not_system(path, resolved, option)
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder; give a file name inside it")
    for source in inputs:
        if str(source) == STREAM:
            continue
        source = Path(source).resolve()
        same = resolved == source or (resolved.exists() and source.exists() and os.path.samefile(resolved, source))
        inside = source.is_dir() and resolved.is_file() and resolved.is_relative_to(source)
        if same or inside:
            raise UsageError(f"{option} {path} is {'one of the files read' if inside else 'the input'} "
                             f"({source}); writing it would overwrite the data: give another path")
    folder = resolved.parent
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: folder {path.parent} does not exist; create it first, or give "
                         "another path")
    if not os.access(folder, os.W_OK | os.X_OK) or (resolved.exists() and not os.access(resolved, os.W_OK)):
        raise UsageError(f"{option} {path}: permission denied; give a path you can write")
    return path


def make_output_folder(path, *, option):
    """Create the folder a command writes its files to (it may exist); a clear error where it cannot be."""
    path = Path(path)
    _check_not_system(path, path.resolve(), option)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path} is a file, not a folder; give a folder name (it is created if missing)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot create the folder ({exc.strerror or exc}); give another") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: permission denied; give a folder you can write")
    return path


def write_output(path, text, out, *, option):
    """Write ``text`` to ``path`` (checked by :func:`check_output_path`), or to ``out`` for ``"-"``."""
    if path == STREAM:
        out.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write it ({exc.strerror or exc}); give another path") from None


def check_figure_path(path, *, option="--plot", inputs=(), stream_ok=False):
    """An error before any work when a figure cannot be written to ``path``.

    ``-`` (a PNG on standard output) only where the command prints nothing else there (``stream_ok``).
    """
    from matplotlib.figure import Figure

    if str(path) == STREAM:
        if stream_ok:
            return STREAM
        raise UsageError(f"{option} - would mix the figure with the text on standard output; give a file name "
                         "such as figure.png")
    path = check_output_path(path, option=option, inputs=inputs)
    formats = Figure().canvas.get_supported_filetypes()
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in formats:
        raise UsageError(f"cannot save a figure as {path.name!r}: use one of the suffixes "
                         f"{', '.join('.' + f for f in sorted(formats))}")
    return path


def report_drawn_seed(given: int | None, result: Any) -> None:
    """Say on stderr which seed NumPy drew when --seed was not given (most printed results do not show it), so
    that the run can be repeated; stdout stays the result alone."""
    seed = getattr(result, "seed", None)
    if given is None and isinstance(seed, int) and not isinstance(seed, bool):
        if _intervals_all_withheld(result):  # audit s32: no number shown came from the draw
            sys.stderr.write(f"random seed drawn: {seed}; every interval was withheld, so no number shown depends "
                             "on it\n")
            return
        sys.stderr.write(f"random seed drawn: {seed}; pass --seed {seed} to repeat these numbers\n")


def _intervals_all_withheld(result: Any) -> bool:
    """Whether the result's random numbers are its intervals alone (its tidy frame has interval bounds and no
    p-value) and every one was withheld (NaN): then the seed drawn repeats nothing that is shown."""
    try:
        tidy = result.tidy()
    except Exception:  # a result without a tidy frame: say the seed, as before
        return False
    bounds = [c for c in ("conf_low", "conf_high") if c in tidy.columns]
    if not bounds or any("p_value" in str(c) or "pvalue" in str(c) for c in tidy.columns) or not len(tidy):
        return False
    return bool(tidy[bounds].isna().all().all())


#: the columns of the frame of no rows :func:`value_refused` hands a back end, and the formula it reads them by
_NO_ROWS_COLUMNS = {"score": "float64", "agent": "object", "task": "object", "seed": "object", "step": "float64"}
_NO_ROWS_FORMULA = "score ~ agent | task/seed"


def value_refused(method: str, name: str, typed: str | None,
                  called: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> str | None:
    """The library's refusal of ``name=`` with the value ``typed`` (as the command line reads it, :func:`parse_option`)
    by ``method``'s public function, in its words; None where it takes the value, takes no ``name=``, or where
    nothing is typed. The check is the function's own: called on a frame of no rows (with its contract's options
    beside, for those it needs: equivalence's margin=), it checks every option before it refuses the empty data
    (audit s34: ``-o alternative=greater`` was suggested to equivalence, which refuses that value). A refusal that
    does not name ``name`` (another option's, or the data's) says nothing of this value: None. ``called``: the
    keywords a caller gives the function for ``{name: value}``, checking them first (power's
    :func:`rlstats.planning.options_called`: bootstrap's metric= is its metrics=; audit s35 small35), where
    ``name`` need not be the function's own."""
    import inspect

    import pandas as pd

    from ..errors import OptionError, RlstatsError
    from ..methods import DECLARATIONS, backend

    declared = DECLARATIONS.get(method)
    if typed is None or declared is None or (called is None and
                                             name not in inspect.signature(backend(method)).parameters):
        return None
    value = parse_option(f"{name}={typed}")[1]
    if name in ("normalize", "published") and isinstance(value, str) and (
            _reference_file(value) or (name == "normalize" and value.endswith("_reference"))):
        return None  # a file, or a published table: read (a download) only when the command runs
    empty = pd.DataFrame({column: pd.Series([], dtype=kind) for column, kind in _NO_ROWS_COLUMNS.items()})

    def names_it(exc):  # the refusal is of this option
        return re.search(rf"(?<![\w.]){re.escape(name)}\b", str(exc)) is not None

    try:
        given = {name: value} if called is None else called({name: value})
        options = {**{k: v for k, v in declared.contract[1].items() if k not in given}, **given, "progress": False}
        backend(method)(empty, _NO_ROWS_FORMULA, **options)
    except OptionError as exc:  # its command-line wording where it has one (a file, not a DataFrame)
        return said(exc) if names_it(exc) else None
    except (RlstatsError, TypeError, ValueError):  # the empty data refused, the options taken
        return None
    return None


def refuse_unrecognized(parser: argparse.ArgumentParser, extra: Sequence[str], options: Iterable[str] = (),
                        spellings: Sequence[tuple[str, Sequence[str], str | None]] = (),
                        others: Mapping[str, str | Callable[[str | None, Callable[[str], str]], str]] = {},
                        judge: Callable[[str, str | None], str | None] | None = None) -> NoReturn:
    """Exit as ``parser`` (the command that ran: its ``command_parser`` default) refuses the arguments none of its
    options takes, naming the option a mistyped one most likely means, and its --help (audit s28: the top-level parser
    refused them, with its own usage and "rlstats: error", and "--sed 0" named no --seed). A flag spelled as the
    Python keyword a flag of another name sets (``--design``, ``--rng``: new-user trial s33b) or as an option ``-o``
    sets (``options``, the command's -o names) is named as the command takes it, with its value
    (:func:`in_command_words`); one spelled as another package's name of an option (``--conf.level``, ``--p.adjust``:
    :data:`rlstats.options.HABITS`) is said by :func:`rlstats.options.unknown_option_error`, in the command's words,
    for the first of ``spellings`` ((where, its option names, what its n_resamples= counts where not bootstrap
    resamples: :func:`rlstats.options.count_described`), the method's then the function's, in the order the Python
    call tries them: R's conf.level is alpha= to the rank test, confidence_level= to the bootstrap) that has it, else
    for the command's keywords; else the flag of the closest spelling (errors.close_names). ``others``: the command's keywords
    that this command line would refuse as they are spelled here (another method's option; a summary option without
    its --summarize: :func:`rlstats.cli._compare_others`), with what is said of them in place (``{spelled}``: the
    option in the command's words), also where another package's name of one is typed (review s33b: the suggestion
    was refused in its turn); a callable there is given the value typed (or None) and the function that says a library
    sentence in the command's words, and returns that text. ``judge``
    (name, value typed) -> the library's refusal of that value by what the command runs (:func:`value_refused`), or
    None: a suggestion of ``-o name=value`` is made only where it is taken, else the refusal is said in its place
    (audit s34)."""
    from ..options import own_spelling, unknown_option_error

    # the usage line lists every option of the command (argparse has no public list of a parser's arguments)
    usage = sorted(set(re.findall(r"(?<![\w-])(--[A-Za-z][\w-]*)", parser.format_usage())))
    flags = flag_table(parser)  # and the keywords of another scope's flags (--summarize-option k=) it leaves
    for scope in dict.fromkeys(marked for _, _, marked in _MARKS.get(parser, ()) if marked is not None):
        flags = {**flag_table(parser, scope), **flags}
    # the command's positional arguments (argparse has no public list of them): typed as flags, they are said as
    # positional, not suggested as -o NAME= (review s34: compare's --formula was told "-o formula=", refused in turn)
    positional = positional_names(parser)
    settable = set(options) - set(flags) - set(others) - set(positional)
    near, said = [], []

    # the positional arguments as typed, flags and bare words (a CommandParser keeps them): argparse took
    # --formula's value for FILE (review s35 rv35a)
    words_typed = getattr(parser, "_typed", ())
    read, options_typed = typed_words(parser, words_typed)
    as_typed = {name: value for name, (value, _) in read.items() if value is not None}

    def positional_said(name, value):  # FORMULA is the second positional argument: rlstats compare FILE '...'
        values = {**as_typed, name: value if value is not None else as_typed.get(name)}
        return f"; {positional_place(positional, name)}: {positional_call(parser, positional, values, options_typed)}"

    def hint_of(name, value):  # name=value as Python's call takes it (name= without a value)
        typed = None if value is None else value if re.fullmatch(r"[\w+-]+(?:\.[\w+-]+)*", value) else repr(value)
        return f"{name}=" if typed is None else f"{name}={typed}"

    def in_words(name, value):  # an option of others as this command sets it (a flag, or -o)
        return in_command_words(hint_of(name, value), flags, set(options) - set(flags))

    def library_words(text):  # a library sentence others quotes, its options as this command sets them
        return in_command_words(text, flags, set(options) - set(flags))

    def other_said(name, value):  # what others says of name=value, in the command's words
        text = others[name]
        return (text(value, library_words) if callable(text) else text).replace("{spelled}", in_words(name, value))

    def refused(name, value):  # the library's refusal of -o name=value, in the command's words; None: taken
        refusal = None if judge is None or name in flags else judge(name, value)
        return None if refusal is None else in_command_words(refusal, flags, set(options) - set(flags))

    for i, word in enumerate(extra):
        if not word.startswith("--") or word == "--":
            continue
        given, equals, typed_value = word[2:].partition("=")
        value: str | None = typed_value
        if not equals:  # the word after the flag is its value, unless it is another flag
            following = extra[i + 1] if i + 1 < len(extra) else None
            value = following if following is not None and not re.match(r"--?[A-Za-z]", following) else None
        name = given.replace("-", "_")
        if name in positional and positional.index(name) < 4:
            said.append(positional_said(name, value))
            continue
        if name in others:
            said.append(other_said(name, value))
            continue
        if name in flags or name in settable:  # Python's keyword: the flag that sets it, or -o
            refusal = refused(name, value)
            if refusal is not None:  # the value is refused: that is said, not a command that fails
                said.append(f"; {refusal}")
                continue
            hint = hint_of(name, value)
            spelled = in_command_words(hint, flags, settable)
            if spelled != hint:
                aside = "" if spelled.startswith("-o ") else f" it sets Python's {name}="
                said.append(f" (did you mean {spelled}?{aside})")
                continue
        keywords = sorted({*flags, *settable})
        other = next((key for key in dict.fromkeys((given, name)) if own_spelling(key, keywords)), None)
        elsewhere = next(filter(None, (own_spelling(key, others) for key in dict.fromkeys((given, name)))), None)
        if other is None and elsewhere is not None:  # R's name of an option this command line refuses
            own, whose = elsewhere
            said.append(f"; {given}= is {whose}, for {own}={other_said(own, value)}")
            continue
        if other is not None:  # R's conf.level, p.adjust, na.action (options.HABITS): named as spelled here
            own, whose = next(filter(None, (own_spelling(other, names) for _, names, _ in spellings)), None) or \
                own_spelling(other, keywords)  # type: ignore[misc]
            if value is None:
                said.append(f" (did you mean {in_command_words(own + '=', flags, settable)}? {other}= is {whose})")
            else:
                where, names, counts = next((spelling for spelling in spellings if own_spelling(other, spelling[1])),
                                            (parser.prog, keywords, None))
                typed = parse_option(f"{other}={value}")[1]
                error = str(unknown_option_error(where, other, typed, list(names), counts))
                refusal = refused(own, value) if error.endswith(f"; pass {own}={shown(typed)}") else None
                if refusal is not None:  # R's p.adjust=foo: its value refused by the option it names, said so
                    error = f"{error[:error.rindex('; pass ')]}; {refusal}"
                said.append("; " + in_command_words(error, flags, settable))
            continue
        near += close_names(word.split("=", 1)[0], usage, n=1, cutoff=0.75)
    guess = f" (did you mean {' or '.join(dict.fromkeys(near))}?)" if near else ""
    parser.error(f"unrecognized arguments: {' '.join(extra)}{guess}{''.join(dict.fromkeys(said))}; "
                 f"see {parser.prog} --help")


def help_examples(doc: str | None) -> str:
    """The command lines of a command module's docstring (its ``::`` blocks) as a --help epilog, one a line (a line
    ending in ``|`` goes on, indented, on the next); a parser showing it needs RawDescriptionHelpFormatter, which
    keeps the lines (audit s18: --help showed no example, the docstring's cut with all but its first paragraph)."""
    lines = [line.strip() for line in (doc or "").splitlines()]
    kept = [("  " if i == 0 or not lines[i - 1].endswith("|") else "      ") + line
            for i, line in enumerate(lines) if line.startswith("rlstats ") or (i and lines[i - 1].endswith("|"))]
    return "examples:\n" + "\n".join(kept)


def help_description(doc: str | None, paragraphs: slice = slice(1)) -> str:
    """A command module's docstring ``paragraphs`` (default: its first) as its --help description: plain text, without
    the reStructuredText literal marks (````rlstats read-logs DIR````) that a terminal would show as they are."""
    return "\n\n".join(paragraph.strip().replace("``", "") for paragraph in (doc or "").split("\n\n")[paragraphs])


def add_cost_flags(parser: argparse.ArgumentParser) -> None:
    """``--max-seconds`` and ``--no-progress``: the back ends' ``max_seconds=`` and ``progress=`` (issue 43 item 2).

    A flag rather than ``-o``, since ``-o`` values are Python literals and infinity is not one."""
    keyword_flag(parser, "--max-seconds", type=float, default=None, metavar="SECONDS",
                 help="most estimated seconds to run without refusing (max_seconds=; default one hour; inf: no bound)")
    keyword_flag(parser, "--no-progress", dest="progress", action="store_false",
                 help="no progress bar on stderr (progress=False)")


def cost_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword options :func:`add_cost_flags` set: only those given, so a back end's defaults stay its own."""
    if args.max_seconds is not None and not args.max_seconds > 0:  # NaN too; the library's message says float('inf')
        raise UsageError(f"--max-seconds takes a positive number of seconds, or inf for no bound; got "
                         f"{args.max_seconds:g}")
    options: dict[str, Any] = {} if args.max_seconds is None else {"max_seconds": args.max_seconds}
    if not args.progress:
        options["progress"] = False
    return options


#: a file's suffix -> the --format that writes it (an -o value that names a file: its way on)
_SUFFIX_FORMATS = {".csv": "csv", ".json": "json", ".tex": "latex", ".md": "markdown", ".txt": "text"}


def parse_options(texts: Iterable[str], reserved: Mapping[str, str], flag: str = "-o") -> dict[str, Any]:
    """``-o NAME=VALUE`` items as a dict; a name the command sets itself (``reserved``: name -> where it
    comes from instead) or a name given twice is a UsageError. An ``-o`` without '=' that names a file is told how
    the result is saved: read-logs' -o is its output file, a habit carried here (new-user trial s33)."""
    options = {}
    for text in texts:
        if flag == "-o" and "=" not in text and os.path.splitext(text)[1].lower() in (*_SUFFIX_FORMATS, ".png",
                                                                                        ".pdf", ".svg"):
            suffix = os.path.splitext(text)[1].lower()
            way = (f"--plot {text} saves the figure" if suffix not in _SUFFIX_FORMATS else
                   f"to save the result, write it to the standard output and redirect it: --format "
                   f"{_SUFFIX_FORMATS[suffix]} > {text}")
            raise UsageError(f"-o {text}: here -o gives the method an option as NAME=VALUE (read-logs' -o names its "
                             f"output file); {way}")
        name, value = parse_option(text)
        if name in reserved:
            raise UsageError(f"-o {name}=... cannot be set as an option; give it with {reserved[name]}")
        if name in options:
            raise UsageError(f"-o {name} is given twice; give it once")
        options[name] = value
    return options


#: what :func:`keyword_flag` marked on each parser: (flag, keywords, scope) per flag, in the order added. argparse
#: has no public accessor of a parser's arguments (its list of actions is a private attribute), so the marks are kept
#: here, from the Action that ``add_argument`` returns; a parser dropped takes its marks with it
_MARKS: weakref.WeakKeyDictionary[argparse.ArgumentParser, list[tuple[str, str | tuple[str, ...], str | None]]] = (
    weakref.WeakKeyDictionary())
#: a flag taking no value sets its keyword to any value a hint names (--allow-python: an evaluation environment)
ANY_VALUE = object()
#: keyword_flag's default ``sets``: the action's constant
_CONSTANT = object()
#: the flags :func:`keyword_flag` added that take no value, each with the value it gives its keyword (--no-progress:
#: progress=False, --allow-repeat: allow_repeat=True): a hint of that value names the flag alone, one of another
#: value says "without" it. Filled as :func:`rlstats.cli.build_parser` builds the parsers, which main() does before
#: any message is said
_BARE_FLAGS: dict[str, object] = {}


def positional_place(positional: Sequence[str], name: str) -> str:
    """"FORMULA is the second positional argument": where ``name`` goes among ``positional``."""
    return f"{name.upper()} is the {ordinal(positional.index(name) + 1)} positional argument"


def positional_call(parser: argparse.ArgumentParser, positional: Sequence[str], typed: Mapping[str, str | None],
                    options: Sequence[str] | None = ()) -> str:
    """The command with the other words typed (``options``, :func:`typed_words`' second part: every option and its
    values, as typed) and its positional arguments in place, those typed (``typed``: name -> the value typed, None
    for none) as typed, the others by name: ``rlstats compare --method bootstrap FILE 'score ~ agent | task'`` (a
    formula not typed is said by an example); after ``--`` where a value reads as a flag (a file named ``-d3.csv``)
    or an option typed takes any number of words (audit s36 small36: the options typed were dropped, the command
    suggested ran the default method). ``options`` None (a word typed that names no option of the command): the
    command's plain usage, no command rebuilt (review s36 rv36a)."""
    if options is None:
        return _usage_line(parser)
    words = []
    for dest in positional:
        value = typed.get(dest)
        value = value if value is not None else "score ~ agent | task" if dest == "formula" and dest in typed else None
        words.append(dest.upper() if value is None else shlex.quote(value))
    apart = (any(value is not None and value.startswith("-") for value in typed.values())
             or any((_option_read(parser, word) or ("", 0))[1] == math.inf for word in options))
    return " ".join([parser.prog, *map(shlex.quote, options), *(["--"] if apart else []), *words])


def _option_read(parser: argparse.ArgumentParser, word: str) -> tuple[str, float] | None:
    """(the option ``word`` names as argparse reads it, spelled in full with the value given after "=" or attached to
    a short flag; how many of the next words it takes: inf for as many as follow up to a flag), or None for a word
    that names no option of ``parser``: argparse's own reading, an abbreviation of one long option (``--meth`` for
    ``--method``, where ``allow_abbrev``) included (review s36 rv36a: read by exact spelling, ``--meth bootstrap``
    was rebuilt as ``--meth FILE``, and an unknown option's value as FILE)."""
    # the option strings CommandParser kept as they were added (argparse lists them nowhere public)
    actions: dict[str, argparse.Action] = getattr(parser, "options_added", {})
    flag, equals, value = word.partition("=")
    if flag not in actions and word.startswith("--") and parser.allow_abbrev:
        matches = [option for option in actions if option.startswith("--") and option.startswith(flag)]
        flag = matches[0] if len(matches) == 1 else flag
    attached = ""
    if flag not in actions and not word.startswith("--") and word[:2] in actions and len(word) > 2:
        flag, equals, attached = word[:2], "", word[2:]  # -ofoo: -o with the value foo
    action = actions.get(flag)
    if action is None:
        return None
    nargs = action.nargs
    many = (0 if equals or attached else 1 if nargs in (None, "?") else math.inf if nargs in ("*", "+", "...")
            else float(nargs) if isinstance(nargs, int) else math.inf)
    return flag + (f"={value}" if equals else attached), many


def typed_words(parser: argparse.ArgumentParser,
                typed: Sequence[str]) -> tuple[dict[str, tuple[str | None, bool]], list[str] | None]:
    """(``parser``'s positional arguments as the words ``typed`` give them: name -> (its value or None, typed as a
    flag); the other words typed in their order, each option with the values it takes as argparse reads them
    (:func:`_option_read`: an abbreviation written in full), which :func:`positional_call` keeps, or None where a
    word names no option of ``parser``: no command is rebuilt around it). A positional argument typed as a flag
    (``--formula 'score ~ agent'``, ``--file=d3.csv``) takes its value from there; the bare words, those no option
    takes, fill the others in their order (review s35 rv35a: argparse reads ``--formula 'score ~ agent' d3.csv`` as
    the formula d3.csv, and the way on dropped both words typed)."""
    positional = positional_names(parser)
    unknown = False
    flagged: dict[str, str | None] = {}
    bare: list[str] = []
    options: list[str] = []
    i = 0
    while i < len(typed):
        word = typed[i]
        i += 1
        if word == "--":
            bare += typed[i:]
            break
        if not word.startswith("-") or word == "-" or re.fullmatch(r"-\d[\d.e+-]*", word):
            bare.append(word)
            continue
        given, equals, value = word.lstrip("-").partition("=")
        name = given.replace("-", "_")
        if word.startswith("--") and name in positional:
            following = typed[i] if i < len(typed) else None
            if equals:
                flagged[name] = value
            elif following is not None and not following.startswith("-"):
                flagged[name], i = following, i + 1
            else:
                flagged[name] = None
            continue
        read = _option_read(parser, word)
        if read is None:
            unknown = True
            continue
        options.append(read[0])
        many = read[1]
        while many > 0 and i < len(typed) and not (typed[i].startswith("-") and typed[i] != "-"
                                                   and not re.fullmatch(r"-\d[\d.e+-]*", typed[i])):
            options.append(typed[i])
            i, many = i + 1, many - 1
    out: dict[str, tuple[str | None, bool]] = {name: (value, True) for name, value in flagged.items()}
    rest = iter(bare)
    for k, name in enumerate(positional):
        if name not in out:  # as many bare words as places: each in its own place (d3.csv 'score ~ agent' --file x)
            out[name] = (bare[k] if len(bare) >= len(positional) else next(rest, None), False)
    return {name: out[name] for name in positional}, None if unknown else options


def missing_positional_said(parser: argparse.ArgumentParser, typed: Sequence[str], message: str) -> str | None:
    """argparse's "the following arguments are required: formula" in the words typed (audit s35 small35): where a
    positional argument was typed as a flag (``rlstats compare --formula '...'``), argparse took its value for the
    positional argument before it (FILE) and named the wrong one missing. The words typed are read by
    :func:`typed_words`, and those still missing are said, with the command they complete (review s35 rv35a:
    ``--file=d3.csv --formula='score ~ agent'`` was told the formula was missing); None where no positional argument
    was typed as a flag (argparse's message is then right)."""
    positional = positional_names(parser)
    given, options = typed_words(parser, typed)
    flagged = [name for name, (_, flag) in given.items() if flag]
    if not flagged:
        return None
    missing = [name for name, (value, _) in given.items() if value is None]
    required = message.partition(": ")[2].split(", ")
    flags = [name for name in required if name not in positional]  # a required flag (read-logs' -o) still missing
    asides = "; ".join(f"--{name.replace('_', '-')} is no flag of {parser.prog}: {positional_place(positional, name)}"
                       for name in flagged)
    call = positional_call(parser, positional, {name: value for name, (value, _) in given.items()
                                                if value is not None or name in flagged}, options)
    if not missing and not flags:
        return f"{asides}: {call}; see {parser.prog} --help"
    said = " and ".join(name.upper() for name in [*missing, *flags])
    return (f"{said} {verb(len(missing) + len(flags), 'is')} missing: {call} ({asides}); "
            f"see {parser.prog} --help")


class CommandParser(argparse.ArgumentParser):
    """argparse's parser, the command line's and each command's, whose refusal of missing arguments reads the words
    typed (:func:`missing_positional_said`; argparse keeps them nowhere, so :meth:`parse_known_args` does)."""

    _typed: Sequence[str] = ()

    def add_argument(self, *args, **kwargs):
        """argparse's, keeping each option string's Action (:attr:`options_added`): argparse lists a parser's option
        strings nowhere public, and :func:`_option_read` reads them as argparse matches them (review s36)."""
        action = super().add_argument(*args, **kwargs)
        added = self.__dict__.setdefault("options_added", {})  # -h is added by argparse's __init__, before ours
        added.update(dict.fromkeys(action.option_strings, action))
        return action

    def parse_known_args(self, args=None, namespace=None):
        self._typed = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        if message.startswith("the following arguments are required: "):
            message = missing_positional_said(self, self._typed, message) or message
        invalid = re.match(r"argument command: invalid choice: '(.*)' \(choose from (.*)\)$", message)
        if invalid:
            message += command_not_found(invalid.group(1), re.findall(r"'([^']*)'", invalid.group(2)))
        super().error(message)


def command_not_found(typed: str, commands: Sequence[str]) -> str:
    """What follows argparse's refusal of ``rlstats TYPED``: where ``typed`` names a method (or another package's
    name of one, ``tost``), the compare command that runs it, with the options its public function has no value for
    without them that its contract passes (equivalence's margin=); else the command it likely misspells (audit s36
    fixeq36: ``rlstats equivalence FILE FORMULA`` had argparse's bare "invalid choice")."""
    import inspect

    from ..errors import did_you_mean
    from ..methods import DECLARATIONS, METHODS, OTHER_NAMES, backend

    other = OTHER_NAMES.get(typed.strip().casefold())
    method = typed if typed in METHODS else other[0] if other and other[0] in METHODS else None
    if method is None:
        return did_you_mean(typed, commands)
    function = backend(method)
    parameters, doc = inspect.signature(function).parameters, inspect.getdoc(function) or ""

    def needed_by(name):  # no default, or None where its docstring's type line offers no None (margin : float)
        default = parameters[name].default
        typed = re.search(rf"^{re.escape(name)}(?:, \w+)* : (.*)$", doc, flags=re.M)
        return default is inspect.Parameter.empty or (default is None and not (typed and "None" in typed.group(1)))
    needed = [name for name in DECLARATIONS[method].contract[1] if name in parameters and needed_by(name)]
    call = " ".join(["rlstats compare FILE FORMULA --method", method, *(f"-o {name}=..." for name in needed)])
    said = f"{other[1]} is --method {method} here" if other is not None and method != typed else \
        f"{method} is a method"
    return f"; {said}, run by the compare command: {call}"


def _usage_line(parser: argparse.ArgumentParser) -> str:
    """``parser``'s usage line on one line, without "usage:": what :func:`positional_names`
    reads (argparse has no public list of a parser's arguments)."""
    return " ".join(parser.format_usage().partition(":")[2].split())


def positional_names(parser: argparse.ArgumentParser) -> list[str]:
    """The names of ``parser``'s positional arguments in their order, read off its usage line (argparse has no public
    list of a parser's arguments): the words left once the program's name and every bracketed or grouped option are
    taken away, and a required flag with its metavars (``rlstats compare [-h] [--method METHOD] ... file formula`` ->
    ["file", "formula"]; ``rlstats read-logs [-h] ... -o FILE folder`` -> ["folder"])."""
    usage = _usage_line(parser).replace(parser.prog, " ", 1)
    shorter = None
    while shorter != usage:  # innermost brackets and groups first: [-o NAME=VALUE [NAME=VALUE ...]]
        shorter, usage = usage, re.sub(r"\[[^\[\]]*\]|\([^()]*\)", " ", usage)
    usage = re.sub(r"(?<!\S)--?[\w-]+(?:\s+[A-Z][A-Z0-9_=.-]*)*", " ", usage)  # a required flag and its metavars
    return [word for word in usage.split() if word != "..."]


def keyword_flag(parser: argparse.ArgumentParser, *names: str, keyword: str | tuple[str, ...] | None = None,
                 scope: str | None = None, sets: object = _CONSTANT, **kwargs: Any) -> argparse.Action:
    """``parser.add_argument(*names, **kwargs)`` for a flag that sets a keyword of the Python function the command
    calls: ``keyword`` (default: the flag's dest, --n-sim sets ``n_sim=``; --seed sets ``rng=``), or a tuple of the
    keywords a flag of NAME=VALUE items sets (--summarize-option k=10). :func:`flag_table` reads these marks, so that
    the command's messages name the flag the parser takes, from the parser itself. A flag taking no value declares
    the value it gives its keyword, ``sets`` (default: the action's constant, True for store_true, False for
    store_false: --no-progress sets ``progress=False``; :data:`ANY_VALUE` where it is no literal)."""
    action = parser.add_argument(*names, **kwargs)
    flag = max(action.option_strings, key=len)
    if action.nargs == 0:  # a hint progress=False reads --no-progress, progress=True "without --no-progress"
        _BARE_FLAGS[flag] = action.const if sets is _CONSTANT else sets
    _MARKS.setdefault(parser, []).append((flag, action.dest if keyword is None else keyword, scope))
    return action


def flag_table(parser: argparse.ArgumentParser, scope: str | None = None) -> dict[str, str]:
    """Python keyword -> the flag that sets it on ``parser``'s command line (its :func:`keyword_flag` marks of
    ``scope``): ``{"rng": "--seed", "n_sim": "--n-sim", "k": "--summarize-option k="}``, the spelling
    :func:`in_command_words` and :func:`in_command_notes` write and :func:`parse_options` refuses with -o."""
    table = {}
    for flag, keyword, marked in _MARKS.get(parser, ()):
        if marked != scope:
            continue
        if isinstance(keyword, tuple):  # a flag of NAME=VALUE items
            table.update({name: f"{flag} {name}=" for name in keyword})
        else:
            table[keyword] = flag
    return table


def in_command_notes(result: Result, hints: tuple[Any, ...] | None, labels: Iterable[str] = ()) -> Result:
    """``result`` with its notes' hints in the command line's spelling (:func:`in_command_words` with ``hints``,
    (flags, -o names[, calls])), for what the command prints; its numbers and every other field the same. A keyword the
    command does not expose stays as the Python function spells it. The data's names are written as they are: the
    result's agents and tasks, and ``labels`` (:func:`held_labels` of the file read: a power pilot's, whose result
    names none)."""
    import dataclasses

    if hints is None or not getattr(result, "notes", None):
        return result
    flags, options, *calls = hints
    options = set(options)
    # the agents and tasks the notes name are the data's, written as they are ('SAC alpha=0.2' is a name, not a hint)
    labels = [str(name) for name in (*getattr(result, "agents", ()), *getattr(result, "tasks", ()), *labels)]
    notes = tuple(in_command_words(note, flags, options, calls[0] if calls else None, labels=labels)
                  for note in result.notes)
    return result if notes == result.notes else dataclasses.replace(result, notes=notes)


#: ``name=value`` in a message: a quoted string, or a bare number, word or placeholder (``<number>``, ``...``); not
#: an item the command line's spelling gives already (``-o k=v``, ``-o "k=v w"``, ``--summarize-option k=v``: a note
#: said twice),
#: nor part of a path (``runs/step=100/seed_1``), nor a value prose states of a quantity (``held at alpha=0.05``,
#: ``at level alpha=0.05``): the library names a keyword as a hint (pass, use, give, e.g., or ...) or as the option
#: that did something (``subset=... kept 9 rows``, ``dropped (na_action="drop")``), both said as the command takes
#: it, and a quantity's value after "at" or "level"
_PYTHON_OPTION = re.compile(r"""(?<![\w./\\-])(?<!-o )(?<!-o ")(?<!-o ')(?<!-option )(?<!\bat )(?<!\blevel )"""
                            r"""([A-Za-z_][A-Za-z0-9_]*)="""
                            # a quoted value as Python's repr writes it, its quotes and backslashes escaped
                            r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\.\.\.|\d{1,3}(?:,\d{3})+(?![\d.])|[\w+<>-]+(?:\.[\w+<>-]+)*"""
                            # a tuple of plain values (bounds=(-500, None)): one -o word (audit s32)
                            r"""|\((?:\s*(?:[\w.+-]+|'[^']*'|"[^"]*")\s*,)+\s*(?:[\w.+-]+|'[^']*'|"[^"]*")?\s*\)"""
                            # a list of plain values (config=['lr', 'gamma']), none elided ('...'): one -o word
                            # (audit s32 fin32a)
                            r"""|\[\s*(?:(?:(?!\.\.\.)[\w.+-]+|'[^']*'|"[^"]*")\s*,\s*)*"""
                            r"""(?:(?!\.\.\.)[\w.+-]+|'[^']*'|"[^"]*")\s*\])"""
                            r"""(?!\.?[\w+<>\[({/\\-])""")  # not a larger Python structure (a call): left as it is
#: a keyword named without a value (``pass n= a divisor``, ``K= (interims)``): followed by a space, a bracket or the end
_PYTHON_NAME = re.compile(r"(?<![\w./\\-])(?<!-o )(?<!-o \")(?<!-o ')(?<!-option )"
                          r"([A-Za-z_][A-Za-z0-9_]*)=(?=[\s),;]|$)")
#: ``rng=np.random.default_rng(N)``: a Generator the command line gives as the int it seeds the run by
#: (:func:`rlstats.resampling.seed_sequence`'s record; ``--seed N`` would seed another run)
_SEEDED_GENERATOR = re.compile(r"(?<![\w./\\-])rng=(?:np|numpy)\.random\.default_rng\((\d+)\)")
#: what ends the text before a call the message quotes while its parts are spelled: not the end of the message
_BEFORE_CALL = "\ue003"


#: a call the message quotes as Python code: a dotted name (rlstats.curves, df.drop) and its parenthesised arguments
_PYTHON_CALL = re.compile(r"(\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\([^()]*\))")
#: a keyword as the subject of a message's check ("n_jobs must be ..."), at its start or after "; "
_SUBJECT = re.compile(r"(?:(?<=^)|(?<=; ))([A-Za-z_][A-Za-z0-9_]*)(?= must )")
#: a keyword a bound's advice names bare ("pass a smaller n_resamples", audit s21)
_SMALLER = re.compile(r"(?<=\ba smaller )([A-Za-z_][A-Za-z0-9_]*)\b(?!=)")


def in_command_words(message: str, flags: Mapping[str, str], options: Iterable[str],
                     calls: Mapping[str, str] | None = None, labels: Iterable[str] = ()) -> str:
    """A library message's hints ``name=value`` / ``name="value"`` in the command line's spelling: ``--flag value``
    for a name the command sets with a flag (``flags``: name -> where it comes from, as :func:`parse_options`'s
    ``reserved``; a flag given as ``--flag name=`` takes the item ``name=value``), ``-o name=value`` for one of the
    ``options`` -o sets; a name given without a value (``pass n= a
    divisor``) becomes ``--flag`` or ``-o name=``. A call of the package the command makes (``calls``: function ->
    the words that select it, ``rlstats.equivalence(..., across='paired_t')`` -> ``--method equivalence -o
    across=paired_t``) is said so where each of its arguments after ``...`` is such a hint; any other call stays
    Python. Other text is left as it is, and so is a message that gives the command line's spelling itself
    (max_seconds='s), and the data's names the message quotes (``labels``: an agent 'SAC alpha=0.2' of a sweep)."""
    if "on the command line" in message:
        return message
    held = sorted({label for label in labels if "=" in label}, key=len, reverse=True)
    if held:  # each name out of the text while the hints are spelled, then put back as it was
        for i, label in enumerate(held):
            message = message.replace(label, f"\ue000{i}\ue001")
        message = in_command_words(message, flags, options, calls)
        return re.sub("\ue000(\\d+)\ue001", lambda match: held[int(match.group(1))], message)
    settable = set(options)

    def spelled(match):
        name, value = match.group(1), match.group(2)
        quoted = value[0] in "\"'" and value[-1] == value[0]
        if quoted:  # Python's string literal as the text it holds: a label's quote or backslash unescaped
            value = re.sub(r"\\([\\'\"])", r"\1", value[1:-1])
        elif re.fullmatch(r"\d{1,3}(?:[,_]\d{3})+", value):  # 940,000 or 940_000 as one number, as typed
            value = value.replace(",", "").replace("_", "")
        flag = flags.get(name, "")
        if value.startswith("[") and not (name in settable and name not in flags):
            return match.group(0)  # a list is an -o word; a flag's own spelling of several values is not this one
        if flag.endswith("="):  # a flag of NAME=VALUE items (--summarize-option k=): the item as one word
            return f"{flag.split()[0]} {shell_word(f'{name}={value}')}"
        if flag in _BARE_FLAGS:  # progress=False is --no-progress; progress=True is the command without it
            return flag if _bare_value(flag, value, quoted) else f"without {flag}"
        if flag.startswith("--"):
            return f"{flag} {shell_word(value)}"
        if name in settable and name not in flags:
            return "-o " + shell_word(f"{name}={value}")
        return match.group(0)

    def named(match):  # "pass n= a divisor": the flag, or -o with the name
        name, flag = match.group(1), flags.get(match.group(1), "")
        if flag.startswith("--"):
            return flag
        return f"-o {name}=" if name in settable and name not in flags else match.group(0)

    def subject(match):  # "target_power must be ..." opening a message or a clause: the flag that sets it
        flag = flags.get(match.group(1), "")
        return flag if flag.startswith("--") else match.group(0)

    def smaller(match):  # "pass a smaller n_resamples": the flag, or -o with the name
        name, flag = match.group(1), flags.get(match.group(1), "")
        if flag.startswith("--"):
            return flag
        return f"-o {name}=" if name in settable and name not in flags else match.group(0)

    def spelled_outside_calls(text, before_call=False):
        if before_call:  # "pass rng=" before np.random.default_rng() names no keyword alone: the call is its value
            return spelled_outside_calls(text + _BEFORE_CALL)[:-len(_BEFORE_CALL)]
        return _SMALLER.sub(smaller, _SUBJECT.sub(subject, _PYTHON_NAME.sub(named, _PYTHON_OPTION.sub(spelled, text))))

    def call(text):  # rlstats.equivalence(..., across='paired_t'): --method equivalence -o across=paired_t
        found = _PACKAGE_CALL.fullmatch(text) or _PACKAGE_CALL_ON.fullmatch(text)
        if found is None or calls is None or found.group(1) not in calls:
            return text
        if found.re is _PACKAGE_CALL_ON:  # rlstats.compare(df, "score ~ agent | task"): the command with a file
            bare = f"rlstats.{found.group(1)}(...{found.group(3) and ', ' + found.group(3) or ''})"
            said = call(bare)
            if said == bare and (found.group(3) or calls[found.group(1)]):  # a keyword the command does not take
                return text
            said = "" if said == bare else said  # rlstats.compare(df, formula): the command's default method
            command = f"rlstats compare FILE {shell_word(found.group(2)[1:-1])}"
            return f"{command} {said}" if said else command
        arguments = found.group(2) or ""
        items = list(_PYTHON_OPTION.finditer(arguments))
        if ", ".join(item.group(0) for item in items) != arguments:  # a list, a call, a positional value: Python
            return text
        said = [spelled(item) for item in items]
        if any(word == item.group(0) for word, item in zip(said, items)):  # an argument the command does not take
            return text
        return " ".join(filter(None, (calls[found.group(1)], *said))) or text  # rlstats.compare(...): as it is

    # a boolean mask of the rows (design=pilot[mask], data=df[mask]: Python code) is -o subset= where the command
    # takes it, else the file filtered first (new-user trial s33b: power's note advised design=pilot[mask])
    message = _masked().sub(lambda match: _mask_said(match, "subset" in settable and "subset" not in flags), message)
    message = _OPTION_LIST.sub(lambda match: _option_list(match, flags), message)
    if flags.get("rng", "").startswith("--"):  # rng=np.random.default_rng(1): --seed and the int it seeds by
        message = _SEEDED_GENERATOR.sub(lambda match: f"{flags['rng']} {_generator_seed(int(match.group(1)))}",
                                        message)
    # a Python call the message quotes (rlstats.curves(df, ..., step='step')) stays Python: -o inside it is neither,
    # but for a call of the package's the command makes itself, with nothing but keywords after "..."
    parts = _PYTHON_CALL.split(message)
    message = "".join(call(part) if i % 2 else spelled_outside_calls(part, before_call=i + 1 < len(parts))
                      for i, part in enumerate(parts))
    # "pass progress=True" is the command without --no-progress: "leave out --no-progress"
    return _PASS_WITHOUT.sub(lambda match: f"{'L' if match.group(1)[0].isupper() else 'l'}eave out {match.group(2)}",
                             message)


def _masked() -> re.Pattern[str]:
    """The rows a condition selects as a boolean mask, where the function called takes no subset= (the library's
    :data:`rlstats.connectivity.MASK_WORDS`): ``data=df[mask] (...) to rlstats.build``, ``design=pilot[mask] (...)``;
    read when a message is said (the module imports no numpy for --help)."""
    from ..connectivity import MASK_WORDS

    words = re.escape(MASK_WORDS).replace(re.escape("{condition}"), "(?P<condition>.+?)")
    return re.compile(r"(data=df|design=pilot)\[mask\] \(" + words + r"\)(?: to rlstats\.[a-z_]+)?")


def _mask_said(match: re.Match[str], subset: bool) -> str:
    """A boolean mask of the rows (:func:`_masked`) as the command keeps them: ``-o "subset=..."`` where it takes
    ``subset`` (``subset``), else the file (a pilot file) filtered first."""
    condition = match.group("condition")
    if subset:
        return "-o " + shell_word(f"subset={condition}")
    file = "pilot file" if match.group(1) == "design=pilot" else "file"
    return f"filter the {file} first, keeping the rows where {condition} holds"


#: an instruction to pass a value that a flag taking no value gives when it is absent, as spelled above
_PASS_WITHOUT = re.compile(r"\b([Pp]ass|[Gg]ive|[Uu]se|[Ss]et) without (--[A-Za-z][\w-]*)")


def _bare_value(flag: str, value: str, quoted: bool) -> bool:
    """Whether a hint's ``value`` (as the message writes it) is the one ``flag``, which takes no value, gives its
    keyword (:data:`_BARE_FLAGS`): ``progress=False`` is --no-progress, ``progress=True`` is not."""
    given = _BARE_FLAGS[flag]
    if given is ANY_VALUE:
        return True
    if quoted:
        return value == given
    try:
        read = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return type(read) is type(given) and read == given


def _generator_seed(seed: int) -> int:
    """The int ``rng=np.random.default_rng(seed)`` seeds a run by, which ``--seed`` takes to repeat it."""
    import numpy as np

    from ..resampling import seed_sequence

    return int(seed_sequence(np.random.default_rng(seed))[1])


#: a call of the package with the data left out: rlstats.NAME(..., keyword=value, ...)
_PACKAGE_CALL = re.compile(r"rlstats\.([a-z_]+)\(\.\.\.(?:, (.+))?\)")
#: the same with the data and a formula (``rlstats.compare(df, "score ~ agent | task")``, a way on's example):
#: ``rlstats compare FILE 'score ~ agent | task'`` and the words of its keywords
_PACKAGE_CALL_ON = re.compile(r"""rlstats\.([a-z_]+)\((?:df|data), ("[^"]*"|'[^']*')(?:, (.+))?\)""")


#: a back end's list of keywords closing a message ("...; its options are: statistic, test, rng, progress")
_OPTION_LIST = re.compile(r"(its options are: )([A-Za-z_][A-Za-z0-9_]*(?:, [A-Za-z_][A-Za-z0-9_]*)*)$")


def _option_list(match, flags):
    """The list as the command line takes it: the keywords -o sets, then the flags that set the others (rng is
    --seed there; -o rng= is refused)."""
    names = match.group(2).split(", ")
    flagged = [flags[name] for name in names if flags.get(name, "").startswith("--")]
    if not flagged:
        return match.group(0)
    kept = ", ".join(name for name in names if not flags.get(name, "").startswith("--"))
    return (f"{match.group(1)}{kept} (with -o NAME=VALUE), and the {plural('flag', len(flagged))} "
            f"{', '.join(flagged)}")


def keyword_names(*functions: Callable[..., Any]) -> set[str]:
    """The keyword parameters of ``functions`` and of every back end of compare(): the names -o can set."""
    import inspect

    from ..methods import METHODS, backend

    names = set()
    for function in (*functions, *(backend(name) for name in METHODS)):
        names |= {p.name for p in inspect.signature(function).parameters.values()
                  if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    return names


def parse_option(text):
    """``"n_resamples=2000"`` -> ("n_resamples", 2000); values are Python literals or plain strings. Each number
    keeps its text as typed (:func:`rlstats.errors.typed_number`), so that an option naming an agent or task reads
    the label as typed (-o control=1e3 names the agent "1e3", not "1000"; review s31) and its errors echo it."""
    if "=" not in text:
        raise UsageError(f"option {text!r} must look like NAME=VALUE, e.g. pvalue=monte_carlo")
    name, value = text.split("=", 1)
    try:
        ast.literal_eval(value)  # what is a literal: checked by Python's own reader, as before
        value = _typed_literal(ast.parse(value.strip(), mode="eval").body, value.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):  # plain text, or nothing literal
        pass
    return name.strip().replace("-", "_"), value


def _typed_literal(node: ast.expr, text: str, lines: list[bytes] | None = None) -> Any:
    """The literal ``node`` of ``text`` (one ast.literal_eval reads) with its numbers as typed (:func:`typed_number`)
    in its tuples, lists, sets and dicts, keys and values alike; anything else as ast.literal_eval reads it.
    ``lines``: the text's lines in UTF-8, which the nodes' offsets count, split once (audit s37 bounds37:
    ``ast.get_source_segment`` split the whole text again for every number, -o tau=[...] of 20,000 numbers ran
    minutes)."""
    from ..errors import typed_number

    if lines is None:
        lines = text.encode("utf-8").splitlines(keepends=True)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_typed_literal(item, text, lines) for item in node.elts]
        return {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):  # {**x} (a key None) is no literal: ast.literal_eval refused it
        return {_typed_literal(k, text, lines) if k is not None else None: _typed_literal(v, text, lines)
                for k, v in zip(node.keys, node.values)}
    value = ast.literal_eval(node)
    if type(value) in (int, float):  # 1e3, 0x10, -3e-4: not True, not 1j
        if node.lineno == node.end_lineno and node.end_col_offset is not None:  # a number is on one line
            typed: str | None = lines[node.lineno - 1][node.col_offset:node.end_col_offset].decode("utf-8")
        else:
            typed = ast.get_source_segment(text, node)
        return value if typed is None else typed_number(value, typed)
    return value


#: the suffixes of a table file :func:`read_table` reads
_TABLE_SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".parquet", ".pq")


def _reference_file(value: object) -> TypeGuard[str]:
    """Whether a ``normalize=`` reference given on the command line names a file: a table's suffix or a folder in
    it (a rule or a dataset name has neither)."""
    return isinstance(value, str) and (Path(value).suffix.lower() in _TABLE_SUFFIXES or os.sep in value)


#: how a table file read for an option (-o normalize=, -o published=) sets its separator: --sep is the data file's
_TABLE_SEP_WAY = "save it separated by commas, or by tabs as a .tsv file"


def reference_file(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with ``-o normalize=FILE`` (or the dict form's ``'reference': FILE``) read into the reference
    table, named by its path in the result's note: on the command line a table of each task's reference scores is
    a file (audit s21: the raw-scales warning advised one, and -o normalize= read no file). A value is a file when it
    has a table's suffix or a folder in it; a rule or a dataset name has neither. ``-o published=FILE``
    (equivalence's table of published means, sds and run counts) is read alike, by the same bounded reader that
    evaluates nothing (audit s36 fixeq36: it was refused, "must be a table ... got str")."""
    published = options.get("published")
    if _reference_file(published):  # equivalence's published table, a file on the command line too (audit s36)
        try:
            options = {**options, "published": read_table(published, per="task", sep_way=_TABLE_SEP_WAY)}
        except UsageError as exc:
            raise UsageError(f"-o published={published}: {exc}") from None
    option = options.get("normalize")
    keywords = dict(option) if isinstance(option, dict) else {"reference": option}
    path = keywords.get("reference")
    if not _reference_file(path):
        return options
    if "name" in keywords:  # not a key of the option: refused by the library's validation, not overwritten
        return options
    try:
        # --sep is the data file's separator: the reference file's is a comma, or a tab in a .tsv file
        table = read_table(path, per="task", sep_way=_TABLE_SEP_WAY)
    except UsageError as exc:
        raise UsageError(f"-o normalize={path}: {exc}") from None
    from ..normalization import named_reference

    return {**options, "normalize": named_reference(keywords, table, path)}


#: the layout advice of a LaTeX table's comment line (:func:`rlstats.format.latex_float`) in to_latex()'s keywords
_LATEX_FIT = re.compile(r"environment='table', resize=True \(shrinks it to (\d+)%, graphicx\)")


def latex_in_command_words(text: str) -> str:
    """``to_latex()``'s tables with the advice of their comment lines to fit one column said as the edit to the LaTeX
    that does it: the command has no flag for to_latex()'s ``environment=`` and ``resize=`` (audit s28). The command
    leaves the environment to the width, so a table given that advice is a ``table*``; one wider than the page is
    in a ``\\resizebox`` to the line width already."""
    def edit(line):
        boxed = "shrunk to the page" in line

        def way(match):
            if boxed:
                return rf"change table* to table (its \resizebox then shrinks it to {match.group(1)}%)"
            return (r"change table* to table and put the tabular in \resizebox{\linewidth}{!}{...} (shrinks it to "
                    rf"{match.group(1)}%, \usepackage{{graphicx}})")

        return _LATEX_FIT.sub(way, line)

    return "\n".join(edit(line) if line.startswith("% rlstats:") else line for line in text.split("\n"))


#: What ``--format`` turns a result into; csv is the tidy frame, one row per comparison or term.
_RENDERERS: dict[str, Callable[[Any], str]] = {
    "text": str,
    "summary": lambda result: str(result.summary()),
    "markdown": lambda result: result.to_markdown(),
    "latex": lambda result: latex_in_command_words(result.to_latex()),
    "json": lambda result: result.to_json(indent=2) + "\n",
    "csv": lambda result: result.tidy().to_csv(index=False),
}
FORMATS = tuple(_RENDERERS)


def as_shown(result: Result, output_format: str, hints: tuple[Any, ...] | None = None,
             labels: Iterable[str] = ()) -> Result:
    """``result`` as the command shows it in ``output_format``: with ``hints`` (flags, -o names) its notes name the
    command's options as it takes them (:func:`in_command_notes`, the data's ``labels`` as written), except in JSON,
    which is the result's record as Python writes it. A command spells them once, for :func:`render` and
    :func:`notes_beside_csv` alike."""
    return result if output_format == "json" else in_command_notes(result, hints, labels)


def render(result: Result, output_format: str) -> str:
    """The text the command prints for ``result`` (as :func:`as_shown` gave it) in ``output_format``, one of
    :data:`FORMATS`."""
    return _RENDERERS[output_format](result)


def notes_beside_csv(result: Result, output_format: str) -> None:
    """With ``--format csv``, the notes of ``result`` (as :func:`as_shown` gave it) on stderr: the tidy frame on stdout
    has no room for what was dropped or withheld (every other format prints them)."""
    if output_format == "csv" and getattr(result, "notes", None):
        sys.stderr.write("".join(f"Note: {note}\n" for note in result.notes))


def save_plot(result: Result, path: str | os.PathLike[str], kind: str | None = None) -> None:
    """Draw ``result``'s figure (``kind``: its default) into ``path``, checked first by :func:`check_figure_path`;
    ``-`` writes a PNG to standard output."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = result.plot() if kind is None else result.plot(kind=kind)
    figure = ax.figure if hasattr(ax, "figure") else ax
    try:
        if str(path) == STREAM:
            figure.savefig(sys.stdout.buffer, format="png", bbox_inches="tight", dpi=150)
        else:
            figure.savefig(path, bbox_inches="tight", dpi=150)
    except OSError as exc:  # the folder vanished or filled up after the check
        raise UsageError(f"cannot write the figure {path}: {exc.strerror or exc}; give another path") from None
    finally:
        plt.close(figure)


def takers_said(flag: str, method: str, name: str, takers: Sequence[str], own: Sequence[str],
                spelled: str = "{spelled}") -> Callable[[str | None, Callable[[str], str]], str]:
    """What an unknown flag spelled as ``name`` says where ``method`` (run by ``flag``: ``--method``, or rlstats power's
    METHOD) takes no ``name=`` and ``takers`` do: those taking the value typed are named, with the option as typed
    (``spelled``); where none takes it, the first's refusal of it (:func:`value_refused`; audit s34: equivalence was
    offered ``-o alternative=greater``, which it refuses). Another spelling of ``name`` that ``method`` takes itself
    (its complement: mixed's confidence_level= for alpha=), among ``own`` (the options the command then takes), is said
    first (:func:`rlstats.options.own_spelling`)."""
    from ..options import own_spelling, unknown_option_error

    def said(typed: str | None, words: Callable[[str], str]) -> str:
        text = f"; {flag} {method} takes no {name}="
        if typed is not None and own_spelling(name, own) is not None:
            error = str(unknown_option_error(f"{flag} {method}", name, parse_option(f"{name}={typed}")[1], list(own)))
            aside = f"({name}= is "  # the name typed, as the aside says what it is: not an option to set here
            text = "; " + words(error.replace(aside, "\ue004")).replace("\ue004", aside)
        taking = [other for other in takers if value_refused(other, name, typed) is None]
        if not taking:
            refusal = value_refused(takers[0], name, typed)
            return f"{text}; {flag} {takers[0]} does, but not this value: {words(str(refusal))}"
        return f"{text}; {flag} {', '.join(taking)} {verb(len(taking), 'does')} ({spelled})"

    return said
