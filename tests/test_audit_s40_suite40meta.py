"""Session 40 (suite40meta): the rendering made faster reads what it read before.

* ``format.latex_escape`` takes a run of plain characters as one token (it took each character as a token of its own);
  every other token starts where a run stops, so the text is the same: checked here against the character-wise
  tokenisation on random texts of the characters that matter (specials, quotes, hyphens, < and >, Greek, spaces).
* ``format._formatted`` and ``results.to_jsonable`` read a frame's rows from its columns' Series zipped, not
  ``itertuples`` (whose per-column ``iloc`` and namedtuple cost more than the rows): the same values, also with
  duplicated column names, no columns, no rows, categoricals, ``string[pyarrow]``, nullable and NA cells.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pandas as pd
import pytest

from rlstats import format as fmt
from rlstats.results import to_jsonable


def _escaped_char_by_char(text):
    """latex_escape as before session 40: every character not read by another token a token of its own."""
    pattern = re.compile(fmt._LATEX_TOKEN.pattern.replace("|" + fmt._LATEX_PLAIN, ""), re.S)
    assert pattern.pattern.endswith("(?P<hyphens>--+)|.")
    return "".join(fmt._latex_token(t) for t in pattern.finditer(fmt.minus_signs(str(text)))).replace("$$", "${}$")


def test_latex_escape_reads_runs_of_plain_characters_as_each_character():
    alphabet = (list("abXZ019 .,;:()[]{}=\n\t'\"-<>+*/") + list(fmt._LATEX_SPECIAL)
                + ["--", "<=", ">=", "1e-05", " -- ", "'Pong'", "DrQ(ε)"])
    rng = random.Random(40)
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(3000)]
    assert [fmt.latex_escape(t) for t in texts] == [_escaped_char_by_char(t) for t in texts]
    # a run stops at every character another token reads: "-" before a digit is a sign, "'" after a space opens
    assert fmt.latex_escape("x -1 'a' b--c 2 <= 3 α") == r"x $-$1 `a' b-{}-c 2 $\leq$ 3 $\alpha$"


def _frames():
    base = pd.DataFrame({"agent": pd.Categorical(["b", "a", "b"]), "task": pd.array(["t1", "t2", None],
                                                                                    dtype="string[pyarrow]"),
                         "estimate": [1.5, np.nan, 1e6 + 0.015], "n": [3, 4, 5],
                         "shown": pd.array([True, None, False], dtype="boolean"),
                         "p_value": [0.04999, 1e-20, np.nan], "x": pd.array([1.0, None, 2.5], dtype="Float64")})
    duplicated = base.set_axis(["agent", "task", "estimate", "estimate", "shown", "p_value", "x"], axis=1)
    return [base, duplicated, base.iloc[:0], base[[]], base.astype({"agent": str})]


@pytest.mark.parametrize("i", range(5))
def test_table_rows_are_itertuples_rows(i):
    frame = _frames()[i]
    # a frame of rows and no columns: a row of no cells each (pandas 2.0's itertuples gives no rows there, later ones
    # a row each; the rows the tables print are the frame's, so the library keeps them whatever the pandas)
    rows = ([list(row) for row in frame.itertuples(index=False)] if frame.shape[1] else [[]] * len(frame))
    assert to_jsonable(frame)["data"] == [[to_jsonable(v) for v in row] for row in rows]
    header, cells = fmt._formatted(frame, 5)
    wider = fmt._level_digits(frame, 5)
    assert len(cells) == len(rows) and len(header) == frame.shape[1]
    for got, row in zip(cells, rows):
        for j, (text, value) in enumerate(zip(got, row)):
            if fmt._PVALUE_COLUMN.match(str(frame.columns[j])):
                assert text == fmt.paper_pvalue(value)
            elif j in wider:
                assert text == fmt.as_fixed(fmt.format_cell(value, wider[j]), value)
            else:
                assert text == fmt.format_cell(value, 5)
