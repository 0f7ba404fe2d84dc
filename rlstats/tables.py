"""Reading delimited text into DataFrames with every float exactly as written.

pandas 2's default C parser (and its ``float_precision="high"``) can land one ulp away
from the written decimal: 99.99999999999997 comes back as 99.99999999999996. For rank
tests that creates or breaks near-ties, so every CSV the package reads goes through
:func:`read_csv`. pandas 3 parses exactly by default and deprecates ``float_precision``,
so the option is passed only where it is needed.
"""

import io
import os
import stat
import warnings
from typing import Any

import pandas as pd

_PANDAS_MAJOR = int(pd.__version__.split(".")[0])
#: What makes ``pandas.read_csv`` parse floats exactly on the installed pandas.
EXACT_FLOATS: dict[str, Any] = {} if _PANDAS_MAJOR >= 3 else {"float_precision": "round_trip"}


class LongRecord(ValueError):
    """A record with more fields than the header (its message names the line)."""


def not_regular(path: Any, give: str = "give a table file") -> str | None:
    """The message for an input path that exists but is neither a folder nor a regular file (a device such as
    /dev/null, a pipe, a socket), else None: the one home of that check for every file read (audit s21: such a path
    was "file not found", and a pipe would block a read). Only ``os.stat`` looks at it: nothing is opened."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # missing, unreadable folder, a NUL in the name: the caller's own message
        return None
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return None
    return f"{path} is not a regular file (a device, pipe or socket); {give}"


def read_csv(source: Any, **options: Any) -> pd.DataFrame:
    """``pandas.read_csv(source, **options)`` with floats parsed exactly (round-trip), and every record as wide as
    the header: pandas takes the first field of a first record longer than the header for a row name and moves every
    column one place (audit s21, review21b), so the columns are read with ``index_col=False`` and a record with more
    (non-empty) fields is a :class:`LongRecord` naming its line; an empty field ending each line, a trailing
    separator, is no field.

    >>> float(read_csv(io.StringIO("x\\n99.99999999999997\\n"))["x"].iloc[0])
    99.99999999999997
    >>> read_csv(io.StringIO("a,b\\n1,2,3\\n"))
    Traceback (most recent call last):
    ...
    rlstats.tables.LongRecord: line 2 has 3 fields where the header names 2
    """
    with warnings.catch_warnings():
        # pandas warns where index_col=False drops a record's extra fields: that warning alone is an error here
        warnings.filterwarnings("error", message="Length of header", category=pd.errors.ParserWarning)
        try:
            return pd.read_csv(source, **EXACT_FLOATS, **{"index_col": False, **options})
        except pd.errors.ParserWarning:
            pass
    skip = options.get("skiprows")
    longer = _longer_record(source, options.get("sep", ","), skip if isinstance(skip, int) else 0)
    if longer is not None:
        raise LongRecord(longer)
    # only empty fields beyond the header's (audit s21, review21c: "1,2,," was refused, naming no line): none is lost
    if hasattr(source, "seek"):
        source.seek(0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Length of header", category=pd.errors.ParserWarning)
        return pd.read_csv(source, **EXACT_FLOATS, **{"index_col": False, **options})


def _longer_record(source: Any, separator: str, skip: int) -> str | None:
    """Which record of ``source`` (a path or a file object read again; after ``skip`` lines) has more non-empty
    fields than its header, said by its line; None where records are wider only by empty fields."""
    import csv

    text: Any
    if hasattr(source, "seek"):
        source.seek(0)
        raw = source.read()
        text = io.StringIO(raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw)
    else:
        text = open(source, encoding="utf-8-sig", newline="")
    with text:
        records = csv.reader(text, delimiter=separator)
        for _ in range(skip):
            next(records, None)
        width = len(next(records, []))
        wider = False
        for record in records:
            if any(record[width:]):
                return f"line {records.line_num} has {len(record)} fields where the header names {width}"
            wider = wider or len(record) > width
    # no wider record seen at all: this reading and pandas' differ, so the warning stands as an error
    return None if wider else f"a record has more fields than the header's {width}"
