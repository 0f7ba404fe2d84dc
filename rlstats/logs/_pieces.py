"""What every format reader returns: scalar records in long form, and what went wrong."""

from __future__ import annotations

import collections
import csv
import dataclasses

import numpy as np


class FileProblem(Exception):
    """A file that cannot be read; ``kind`` is one of PROBLEM_KINDS."""

    def __init__(self, kind, detail):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail

    def __reduce__(self):
        # rebuilt from both fields when a file read on joblib's processes returns it (audit s23: its pickle called
        # __init__ with the message alone, and the read stopped with joblib's BrokenProcessPool)
        return type(self), (self.kind, self.detail)


PROBLEM_KINDS = ("unreadable", "truncated", "corrupt", "empty", "missing tag", "run in several files")


def whole_steps(steps):
    """Steps read as floats, as int64 where every one is a whole number int64 holds exactly (below 2**53); others
    stay floats, so that a step beyond int64 (a corrupt 1e23) is never cast to a different number."""
    if np.all(steps == np.round(steps)) and np.all(np.abs(steps) < 2.0**53):
        return steps.astype(np.int64)
    return steps


@dataclasses.dataclass
class Piece:
    """Scalars of one run from one file, one record per (step, tag) value, in the order written.

    ``meta`` holds fields the log states itself (``task`` from a monitor header's ``env_id``);
    ``name`` is the run's name inside a file that holds several runs (a W&B export).
    """

    tags: tuple
    step: np.ndarray
    tag: np.ndarray
    value: np.ndarray
    wall_time: np.ndarray | None = None
    time_elapsed: np.ndarray | None = None
    meta: dict = dataclasses.field(default_factory=dict)
    name: str | None = None


def from_columns(step, columns, *, wall_time=None, time_elapsed=None, meta=None, name=None, written_nan=None):
    """A Piece from a wide table: ``columns`` maps tag -> float array aligned with ``step``; NaN cells
    are values not logged at that row and make no record, and a column of NaN alone is no tag, but for
    the cells ``written_nan`` marks (tag -> bool array): a NaN the log wrote (``nan`` in a CSV cell, ``NaN``
    in a JSON record), a value logged as NaN, kept as a record (audit s15: dropped, it left no trace)."""
    written_nan = {tag: mask for tag, mask in (written_nan or {}).items() if tag in columns and np.any(mask)}
    columns = {tag: values for tag, values in columns.items()
               if tag in written_nan or not np.isnan(np.asarray(values, dtype=float)).all()}
    tags = tuple(columns)
    step = np.asarray(step)
    if not tags:
        return Piece((), step[:0], np.zeros(0, np.intp), np.zeros(0), meta=meta or {}, name=name)
    matrix = np.column_stack([np.asarray(columns[t], dtype=float) for t in tags])
    logged = ~np.isnan(matrix)
    for j, tag in enumerate(tags):
        if tag in written_nan:
            logged[:, j] |= np.asarray(written_nan[tag], dtype=bool)
    if logged.all():  # every cell logged: the records are the matrix read row by row, no search needed
        k = len(tags)
        repeat = (lambda a: None if a is None else np.repeat(np.asarray(a, dtype=float), k))
        codes = np.arange(k, dtype=np.min_scalar_type(k))  # a byte a record for up to 255 tags
        return Piece(tags, np.repeat(step, k), np.tile(codes, len(step)), matrix.ravel(),
                     repeat(wall_time), repeat(time_elapsed), meta or {}, name)
    rows, cols = np.nonzero(logged)  # row-major: the order written
    pick = (lambda a: None if a is None else np.asarray(a, dtype=float)[rows])
    return Piece(tags, step[rows], cols.astype(np.intp), matrix[rows, cols], pick(wall_time), pick(time_elapsed),
                 meta or {}, name)


def repeated_names(header, separator):
    """Column names a table's header line gives more than once, in order (pandas would rename the
    second ``score`` to ``score.1`` and read it as another scalar)."""
    names = [name.strip() for name in next(csv.reader([header], delimiter=separator), [])]
    return [name for name, times in collections.Counter(names).items() if times > 1 and name]  # '' is no name
