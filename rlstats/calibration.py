"""Measured coverage tables that ship with the package, and the row a result quotes where its level is missed.

Each table is a CSV beside the back end it measures, written by a script under ``tests/reference/``: one row per
grid point, with at least the columns ``coverage`` (share of simulations whose interval, band or set held the
truth) and ``n_sim`` (simulations behind it), plus the design columns the back end looks rows up by.
"""

from __future__ import annotations

import csv
import functools
import math


@functools.lru_cache(maxsize=None)
def read(path):
    """The rows of the table at ``path`` as dicts of strings (none when the file is absent)."""
    if not path.exists():
        return ()
    with path.open(newline="", encoding="utf-8") as handle:
        return tuple(csv.DictReader(handle))


def shortfall(rows, level, **design):
    """The row with the lowest coverage among ``rows`` matching ``design`` that miss ``level`` by over 3 SE.

    A row matches when each named column reads as the given value (compared as text, so ``runs=5`` matches
    ``"5"``). The standard error is the binomial one at the nominal level, sqrt(level (1 - level) / n_sim).
    None when every matching row holds its level or none matches.
    """
    short = [row for row in rows if all(row[key] == str(value) for key, value in design.items())
             and float(row["coverage"]) < level - 3 * math.sqrt(level * (1 - level) / int(row["n_sim"]))]
    return min(short, key=lambda row: float(row["coverage"])) if short else None
