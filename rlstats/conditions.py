"""Row conditions: what ``subset=`` text means, whether typed in Python, on the command line or read from a file.

The grammar is small and is interpreted here, never handed to ``eval``, ``DataFrame.eval`` or
``DataFrame.query``::

    condition  := condition ("|" | "or") condition
                | condition ("&" | "and") condition
                | ("~" | "not") condition
                | "(" condition ")"
                | comparison
    comparison := operand op operand [op operand ...]        # chained as in Python: 1 < seed <= 5
                | operand ("in" | "not in") "[" literal, ... "]"
    op         := "==" | "!=" | "<" | "<=" | ">" | ">="
    operand    := column name | `back-quoted column name` | literal
    literal    := number | 'string' | "string" | True | False

``&``, ``|`` and ``~`` bind as ``and``, ``or`` and ``not`` do (as in ``DataFrame.query``), so
``task == 'Pong' | seed < 3`` means what it says. Missing values follow R's ``subset()``, not pandas: a
comparison with a missing value is unknown, ``and``, ``or`` and ``not`` combine unknowns by R's three-valued
logic, and a row where the whole condition is unknown is not kept (:meth:`Condition.evaluate`); pandas would keep
``NaN != 0.1``. ``in`` is R's ``%in%``, never unknown: a missing value is not in the list, so ``x not in [0.1]``
keeps it, as R's ``!(x %in% 0.1)`` and pandas' ``~isin`` do. A column of numbers tested for (in)equality or
membership with text, or a column of text with a number, is an error saying how to write the value: numbers never
equal text, so ``agent != '10'`` would keep agent 10 (R's ``subset()`` compares their text). True and False compare
only with a column of True/False values (``flag == True``, or ``flag`` alone): beside numbers Python and R read True
as 1, so ``seed > True`` would keep the seeds above 1, an error here naming the column and its dtype; and a number
compares only with a column of numbers, so ``flag == 1`` on a column of True/False values is an error saying to
write ``flag == True`` (or ``flag`` alone). ``<``, ``<=``,
``>`` and ``>=`` on an ordered categorical (a polars Enum among them) compare its levels' order, as pandas and R do:
``level >= 'medium'`` keeps medium and hard of easy < medium < hard (the subset's note says which levels each such
comparison kept), and a value that is none of its levels is an error naming them (True/False is a level only of
True/False levels, though Python's True == 1); an unordered categorical compares
its values, as a column of them does (pandas refuses, R gives NA: it has no order but its values'). Numbers are
plain literals (no arithmetic), so no input can ask for a large computation; the text itself is bounded by
:data:`MAX_LENGTH`.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import operator
import re
from typing import TYPE_CHECKING

import numpy as np

from .errors import OptionError, close_names, index_level_hint

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Condition", "parse_condition", "ast_depth", "MAX_LENGTH"]

#: The longest condition accepted, in characters (a condition over a few columns is tens of characters).
MAX_LENGTH = 2000
#: How deeply conditions may nest (parentheses, not, and/or): the interpreter recurses that deep.
MAX_DEPTH = 50

_COMPARISONS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
                ast.Gt: operator.gt, ast.GtE: operator.ge}
_GRAMMAR = ("comparisons of columns with numbers and strings (==, !=, <, <=, >, >=), 'in [...]' lists, "
            "&, |, ~ (or and, or, not) and parentheses")
_SYMBOL_OF = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_PLACEHOLDER = "_rlstats_column_{}_"
_PLACEHOLDERS = tuple(_PLACEHOLDER.format(i) for i in range(MAX_LENGTH // 2))
_SYMBOLS = {"&": " and ", "|": " or ", "~": " not "}


#: R's spellings a condition does not take, outside quoted strings: (pattern, how this grammar writes it)
_R_HABITS = ((re.compile(r"%in%"), "R's x %in% c('a', 'b') is written x in ['a', 'b'] here"),
             (re.compile(r"(?<![\w.])c\s*\("), "R's c('a', 'b') is written ['a', 'b'] here"),
             (re.compile(r"&&|\|\|"), "R's && and || are written & and | here"),
             (re.compile(r"!(?!=)"), "R's ! is written ~ (or not) here"))


def _r_habits(text):
    """The R spellings in ``text`` (outside its quoted strings and back-quoted names, closed or left open), each with
    this grammar's, as one clause; "" if none. %in% names c() itself, so c() is named alone only where %in% is not."""
    # a string left open runs to the end of the text (review24b: 'Pong! unclosed was told R's ! is written ~)
    bare = re.sub(r"'(?:[^'\\]|\\.)*(?:'|$)|\"(?:[^\"\\]|\\.)*(?:\"|$)|`[^`]*(?:`|$)", "''", text)
    found = [said for pattern, said in _R_HABITS if pattern.search(bare)]
    if _R_HABITS[0][1] in found and _R_HABITS[1][1] in found:
        found.remove(_R_HABITS[1][1])
    return "".join(f"; {said}" for said in found)


def _fail(text, message):
    shown = text if len(text) <= 120 else text[:100] + f"... ({len(text):,} characters)"
    message += _r_habits(text)  # audit s24: R's %in% c(...), &&, || and ! were "invalid syntax" alone
    said = f"subset={shown!r}: {message}; a condition may use {_GRAMMAR}, e.g. \"task != 'Pong' & seed < 5\"; for "

    def way(on):  # the way on differs: Python can pass a mask, the command cannot (audit s21: it told its user to)
        return f"{said}anything else {on} (a condition is never evaluated as code)"

    return OptionError(way("compute a boolean mask in pandas and pass it as subset="),
                       command_line=way("filter the file before the command, or use Python, where a boolean mask "
                                        "works too"))


def _rewrite(text):
    """Back-quoted names to placeholders and &, |, ~ to their keywords, outside quoted strings."""
    pieces, names, i = [], [], 0
    while i < len(text):
        char = text[i]
        if char in "'\"":
            end = i + 1
            while end < len(text) and text[end] != char:
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                raise _fail(text, f"the string starting at character {i + 1} is not closed")
            pieces.append(text[i:end + 1])
            i = end + 1
        elif char == "`":
            end = text.find("`", i + 1)
            if end < 0:
                raise _fail(text, f"the back-quoted name starting at character {i + 1} is not closed")
            names.append(text[i + 1:end])
            pieces.append(_PLACEHOLDER.format(len(names) - 1))
            i = end + 1
        else:
            pieces.append(_SYMBOLS.get(char, char))
            i += 1
    return "".join(pieces), names


@dataclasses.dataclass(frozen=True)
class Condition:
    """A parsed row condition: ``mask(frame)`` gives one bool per row; ``str()`` gives the text."""

    text: str
    source: str = dataclasses.field(repr=False, compare=False)  # the text as parsed: names replaced
    tree: ast.Expression = dataclasses.field(repr=False, compare=False)
    names: tuple[str, ...] = dataclasses.field(repr=False, compare=False)  # back-quoted names, by placeholder number

    def __str__(self) -> str:
        return self.text

    @property
    def columns(self) -> tuple[str, ...]:
        """The column names the condition reads, in order of appearance."""
        found = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and self._column(node.id) not in found:
                found.append(self._column(node.id))
        return tuple(found)

    def _column(self, identifier):
        return self.names[_PLACEHOLDERS.index(identifier)] if identifier in _PLACEHOLDERS[:len(self.names)] \
            else identifier

    def mask(self, data: pd.DataFrame) -> np.ndarray:
        """One True/False per row of ``data`` (a DataFrame), as a numpy array: True where the condition holds.

        Where a missing value leaves the condition unknown (:meth:`evaluate`), the row is False, as R's
        ``subset()`` drops the rows where its condition is ``NA``.
        """
        return self.evaluate(data)[0]

    def evaluate(self, data: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Two True/False arrays, one value per row of ``data``: where the condition holds, and where it is unknown.

        R's three-valued logic: a comparison with a missing value (NaN, None, NA, NaT) is unknown,
        whatever the operator, but for ``in`` (R's ``%in%``: a missing value is not in the list); ``and`` is false if
        either side is false and unknown if neither is but one side is unknown; ``or`` is true if either
        side is true and unknown if neither is but one side is unknown; ``not`` of unknown is unknown.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> df = pd.DataFrame({"lr": [0.1, np.nan, 0.01], "seed": [0, 1, 2]})
        >>> parse_condition("lr != 0.1").evaluate(df)
        (array([False, False,  True]), array([False,  True, False]))
        >>> parse_condition("lr != 0.1 | seed == 1").evaluate(df)
        (array([False,  True,  True]), array([False, False, False]))
        """
        missing = [c for c in self.columns if c not in data.columns]
        if missing:
            found = f"subset={self.text!r} names column {missing[0]!r}, which the data do not have; "
            raise OptionError(found + (index_level_hint(missing[0]) if missing[0] in data.index.names else
                                       f"columns: {', '.join(map(str, data.columns))}"))
        holds, unknown = self._truth(self.tree.body, data)
        if holds.ndim == 0:
            raise _fail(self.text, "it does not read any column")
        return holds, np.broadcast_to(unknown, holds.shape).copy()

    def absent_values(self, data: pd.DataFrame, negated: bool = False) -> str:
        """What a condition that keeps no rows asked for and the data do not hold: each string it tests a column for
        equality or membership with that is no value of the column, with the column's closest values ("'DrQ ' is no
        value of column 'agent' (did you mean 'DrQ'?)"); empty when every such string is present. ``negated``: the
        strings of its ``!=`` and ``not in`` tests instead, which leave out no row when absent (a typo there keeps the
        rows it meant to leave out: audit s22)."""
        import pandas as pd

        said = []
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                left, right = sides[i], sides[i + 1]
                pairs: list[tuple[ast.expr, ast.expr]]
                if isinstance(op, ast.NotIn if negated else ast.In) and isinstance(right, (ast.List, ast.Tuple,
                                                                                         ast.Set)):
                    pairs = [(left, e) for e in right.elts]
                elif isinstance(op, ast.NotEq if negated else ast.Eq):
                    pairs = [(left, right), (right, left)]
                else:
                    continue
                for name, literal in pairs:
                    if not (isinstance(name, ast.Name) and isinstance(literal, ast.Constant)
                            and isinstance(literal.value, str)):
                        continue
                    column = self._column(name.id)
                    values = sorted(v for v in pd.unique(data[column].dropna()) if isinstance(v, str))
                    if not values or literal.value in values:
                        continue
                    close = close_names(literal.value, values) if len(values) <= _MAX_SUGGESTED_FROM else []
                    hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
                    said.append(f"{literal.value!r} is no value of column {column!r}{hint}")
        return "; ".join(dict.fromkeys(said))

    def _value(self, node, data):
        """A truth (holds, unknown) for conditions; (values, missing) for a column; (value, False) for a literal."""
        if isinstance(node, ast.BoolOp):
            combine = _and if isinstance(node.op, ast.And) else _or
            out = self._truth(node.values[0], data)
            for value in node.values[1:]:
                out = combine(out, self._truth(value, data))
            return out
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            holds, unknown = self._truth(node.operand, data)
            return ~holds & ~unknown, unknown
        if isinstance(node, ast.Compare):
            return self._compare(node, data)
        if isinstance(node, ast.Name):
            return self._series(node.id, data)
        return _literal(node), np.False_  # a literal is never missing

    def _series(self, identifier, data):
        column = data[self._column(identifier)]
        return column.to_numpy(), column.isna().to_numpy()

    def _truth(self, node, data):
        value, unknown = self._value(node, data)
        array = np.asarray(value)
        if array.dtype == object and np.ndim(unknown) and unknown.any():
            known = array[~unknown]
            if all(isinstance(x, (bool, np.bool_)) for x in known):  # a boolean column with missing values
                array = np.zeros(array.shape, dtype=bool)
                array[~unknown] = known.astype(bool)
        if array.dtype != bool:
            said = ast.get_source_segment(self.source, node) or "a part"
            raise _fail(self.text, f"{said!r} is not a condition (a True/False value); compare it, e.g. "
                                   f"{said} == 1")
        return array & ~unknown, unknown

    def _compare(self, node, data):
        out, (left, left_missing) = None, self._value(node.left, data)
        left_node = node.left
        for op, right_node in zip(node.ops, node.comparators):
            self._check_kinds(op, left_node, right_node, data)
            before, left_node = left_node, right_node
            if isinstance(op, (ast.In, ast.NotIn)):
                # R's %in% is never NA: a missing value is not in the list (pandas' isin agrees), so 'not in' holds
                found = _where_known(_isin, left, [_literal(e) for e in right_node.elts], left_missing)
                step = (~found if isinstance(op, ast.NotIn) else found), np.zeros(np.shape(found), dtype=bool)
                right, right_missing = None, np.False_
            else:
                right, right_missing = self._value(right_node, data)
                unknown = left_missing | right_missing
                step = _where_known(functools.partial(_apply, _COMPARISONS[type(op)], text=self.text),
                                    *self._by_level(op, before, right_node, left, right, data), unknown), unknown
            out = step if out is None else _and(out, step)
            left, left_missing = right, right_missing
        return out

    def _check_kinds(self, op, left, right, data):
        """A column of numbers tested for (in)equality or membership with text, or a column of text with a number: an
        error naming both and the way to write the value; a column of dates or durations with any literal, the error of
        ``<`` there. Numbers never equal text, so ``agent != '10'`` on agents
        held as numbers kept every row, agent 10's too, and ``agent == '10'`` none (audit s22); R's ``subset()``
        would compare their text. True/False compares only with a column of True/False values
        (:meth:`_check_booleans`)."""
        self._check_booleans(op, left, right, data)
        if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            return  # an ordered categorical's levels: _by_level
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.List, ast.Tuple, ast.Set)):
            pairs = [(left, element) for element in right.elts]
        elif isinstance(op, (ast.Eq, ast.NotEq)):
            pairs = [(left, right), (right, left)]
        else:
            return
        for name, literal in pairs:
            if not isinstance(name, ast.Name) or not _is_literal(literal):
                continue
            value, column = _literal(literal), self._column(name.id)
            if _holds_dates(data[column]):  # numpy says unequal per row: day != '2024-01-02' kept every row (s22)
                what = "date/time objects" if data[column].dtype == object else f"{data[column].dtype} values"
                raise _fail(self.text, f"cannot compare a column of {what} with the value {value!r}")
            kind = _column_kind(data[column])
            if kind in ("numbers", "True/False values") and isinstance(value, str):
                literal = _is_number_text(value) or value.strip() in ("True", "False")
                way = f"write {value.strip()} without quotes" if literal else "compare it with a number"
                found = f"column {column!r} holds {kind}, and {value!r} is text, which no {kind[:-1]} equals"
            elif kind == "text" and not isinstance(value, str):
                what = "True/False" if isinstance(value, bool) else "a number"
                found = f"column {column!r} holds text, and {value!r} is {what}, which no text equals"
                way = f"write {str(value)!r} in quotes"
            else:
                continue
            said = f"subset={self.text!r}: {found}; {way}"
            raise OptionError(said, command_line=said)


    def _check_booleans(self, op, left, right, data):
        """A True/False literal compared with a column that holds no True/False values (any operator, either side,
        an ``in`` list's element): an error naming the column, its dtype and the literal, with the way to write what
        was meant. Python reads True as 1, so ``seed > True`` kept the seeds above 1 and ``seed in [True, 2]`` seeds
        1 and 2, as R's ``subset()`` does; a careful reader takes True/False beside numbers for a mistake (audit s33
        words33). A boolean column (``flag == True``, nullable or held as objects) compares as before; an ordered
        categorical's order comparisons are :meth:`_by_level`'s, which says True/False is none of its levels."""
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.List, ast.Tuple, ast.Set)):
            pairs = [(left, element) for element in right.elts]
        else:
            pairs = [(left, right), (right, left)]
        for name, literal in pairs:
            if not (isinstance(name, ast.Name) and _is_literal(literal)):
                continue
            if not _is_bool(_literal(literal)):
                self._check_number_beside_booleans(name, _literal(literal), data)
                continue
            column = self._column(name.id)
            values = data[column]
            if _holds_booleans(values) or (isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE))
                                           and self._ordered_dtype(name, data) is not None):
                continue
            value, kind = _literal(literal), _column_kind(values)
            held = f"{kind} ({values.dtype})" if kind else f"{values.dtype} values"
            if kind == "numbers":
                why = (f"which Python (and R's subset()) would read as the number {int(value)}; write {int(value)} "
                       "where the number is meant")
            elif kind == "text":
                why = f"which no text equals; write {str(value)!r} in quotes where the text is meant"
            else:
                why = "which no value of it equals"
            said = (f"subset={self.text!r}: column {column!r} holds {held}, not True/False values, and {value!r} is "
                    f"True/False, {why}; True/False compares only with a column of True/False values")
            raise OptionError(said, command_line=said)

    def _check_number_beside_booleans(self, name, value, data):
        """A number compared with a column of True/False values: an error naming the column and the way to write what
        was meant. Python reads True as 1, so ``flag == 1`` kept the rows where flag is True and ``flag > 0`` too, and
        ``flag == 2`` none, silently (audit s34 words34, the reverse of s33's ``seed > True``)."""
        if isinstance(value, str):
            return
        column = self._column(name.id)
        values = data[column]
        if _column_kind(values) != "True/False values" and not (
                values.dtype == object and values.notna().any() and _holds_booleans(values)):
            return
        read = (f"which Python (and R's subset()) would read as {value == 1}" if value in (0, 1) else
                "which no True/False value equals")
        why = (f"{read}; compare the column with True or False: {name.id + ' == True'!r} (or {name.id!r} alone) keeps "
               f"the rows where it is True, {name.id + ' == False'!r} (or {'~' + name.id!r}) those where it is False")
        said = (f"subset={self.text!r}: column {column!r} holds True/False values ({values.dtype}), not numbers, and "
                f"{value!r} is a number, {why}")
        raise OptionError(said, command_line=said)

    def _ordered_dtype(self, node, data):
        """The column ``node`` names and its dtype where that is an ordered categorical (compared by its levels' order,
        as pandas and R's ``subset()`` compare an ordered factor: audit s31 bfix31), else None."""
        import pandas as pd

        if not isinstance(node, ast.Name):
            return None
        column = self._column(node.id)
        dtype = data[column].dtype
        return (column, dtype) if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered else None

    def _by_level(self, op, left_node, right_node, left, right, data):
        """``left`` and ``right`` of an order comparison (<, <=, >, >=) as positions among the levels where a side
        is an ordered categorical: the column's codes, and the literal's level (an error naming the levels where it is
        none of them, as pandas refuses it and R gives NA); two such columns of the same levels compare their codes,
        any other side is an error. Other comparisons, and other columns, as they are."""
        if not isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            return left, right
        found = [self._ordered_dtype(node, data) for node in (left_node, right_node)]
        if found == [None, None]:
            return left, right
        column, dtype = next(f for f in found if f is not None)
        levels = list(dtype.categories)
        shown_levels = " < ".join(map(repr, levels[:8])) + (" < ..." if len(levels) > 8 else "")
        out = []
        for node, value, ordered in ((left_node, left, found[0]), (right_node, right, found[1])):
            if ordered is not None:
                if ordered[1] != dtype:
                    raise _fail(self.text, f"columns {column!r} and {ordered[0]!r} are ordered categoricals of other "
                                           "levels, whose orders do not compare")
                out.append(data[ordered[0]].cat.codes.to_numpy())
            elif _is_literal(node) and _level_at(levels, _literal(node)) is not None:
                out.append(_level_at(levels, _literal(node)))
            elif _is_literal(node):
                value = _literal(node)
                # True == 1 in Python: True against the levels 1 < 2 < 3 read as the level 1 (audit s32)
                kind = ("; True/False is no number here, though Python reads True as 1"
                        if _is_bool(value) != any(_is_bool(level) for level in levels) else "")
                said = (f"subset={self.text!r}: {value!r} is not a level of the ordered categorical "
                        f"{column!r} ({shown_levels}), whose order comparisons compare levels by their order (as "
                        f"pandas and R do){kind}; compare it with one of its levels")
                raise OptionError(said, command_line=said)
            else:
                raise _fail(self.text, f"column {column!r} is an ordered categorical, compared by its levels' order "
                                       "with one of its levels, not with another column")
        return tuple(out)

    def level_orders(self, data: pd.DataFrame) -> str:
        """What each order comparison of an ordered categorical with one of its levels kept, for the subset's note
        ("level >= 'medium' keeps levels 'medium' and 'hard' (the ordered categorical 'level' compared by its levels'
        order, 'easy' < 'medium' < 'hard')"); empty where the condition has none."""
        from .format import join_and

        said: dict[object, list[str]] = {}  # column -> each comparison's levels kept
        orders = {}
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                if not isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                    continue
                for name, literal, flipped in ((sides[i], sides[i + 1], False), (sides[i + 1], sides[i], True)):
                    found = self._ordered_dtype(name, data)
                    if found is None or not _is_literal(literal):
                        continue
                    column, dtype = found
                    levels, value = list(dtype.categories), _literal(literal)
                    at, compare = _level_at(levels, value), _COMPARISONS[type(op)]
                    kept = [lv for j, lv in enumerate(levels) if (compare(at, j) if flipped else compare(j, at))]
                    written = ast.get_source_segment(self.source, name) or str(column)
                    written = f"`{column}`" if written in _PLACEHOLDERS else written
                    symbol = _SYMBOL_OF[type(op)]
                    pair = f"{value!r} {symbol} {written}" if flipped else f"{written} {symbol} {value!r}"
                    orders[column] = " < ".join(map(repr, levels[:8])) + (" < ..." if len(levels) > 8 else "")
                    said.setdefault(column, []).append(
                        f"{pair} keeps " + (f"levels {join_and(map(repr, kept))}" if kept else "no level"))
        return "; ".join(f"{', '.join(dict.fromkeys(kept))} (the ordered categorical {column!r} compared by its "
                         f"levels' order, {orders[column]})" for column, kept in said.items())


def _holds_dates(column):
    """Whether a column holds dates, times or durations (of any of pandas' types), which no literal equals."""
    import pandas as pd

    values = column.cat.categories if isinstance(column.dtype, pd.CategoricalDtype) else column
    dtype = values.dtype
    if dtype == object:  # datetime.date objects (df['ts'].dt.date), every value present one: as a dates column (s22)
        return pd.api.types.infer_dtype(values, skipna=True) in _DATE_KINDS
    return (pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype)
            or isinstance(dtype, pd.PeriodDtype))


def _holds_booleans(column):
    """Whether a column (or a Categorical's categories) holds True/False values: a bool or nullable boolean dtype, or
    objects every one of which present is True or False (none present: nothing a literal could misread)."""
    import pandas as pd

    values = pd.Series(column.cat.categories) if isinstance(column.dtype, pd.CategoricalDtype) else column
    return (pd.api.types.is_bool_dtype(values.dtype)
            or values.dtype == object and pd.api.types.infer_dtype(values, skipna=True) in ("boolean", "empty"))


#: pandas' infer_dtype of an object column whose every value present is a date, a time or a duration
_DATE_KINDS = ("date", "datetime", "datetime64", "time", "timedelta", "timedelta64", "period")


def _column_kind(column):
    """'numbers', 'True/False values', 'text' (every value present a string) or None (mixed, empty) of a column or a
    Categorical's categories."""
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):
        column = pd.Series(column.cat.categories)
    if pd.api.types.is_bool_dtype(column.dtype):
        return "True/False values"
    if pd.api.types.is_numeric_dtype(column.dtype):
        return "numbers"
    return "text" if pd.api.types.infer_dtype(column, skipna=True) == "string" else None


#: The most distinct values of a column a missing value is matched against (each costs a string comparison).
_MAX_SUGGESTED_FROM = 10_000


def _is_number_text(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _and(a, b):
    """R's ``&`` on (holds, unknown) pairs: false where either side is false, else unknown where either is."""
    false = (~a[0] & ~a[1]) | (~b[0] & ~b[1])
    holds = a[0] & b[0]
    return holds, ~holds & ~false


def _or(a, b):
    """R's ``|`` on (holds, unknown) pairs: true where either side is true, else unknown where either is."""
    holds = a[0] | b[0]
    return holds, ~holds & (a[1] | b[1])


def _where_known(compare, left, right, unknown):
    """``compare(left, right)`` on the rows where neither side is missing (False elsewhere): a missing value
    never reaches the comparison, so None or NaN among strings cannot make it fail."""
    if np.ndim(unknown) == 0:
        return compare(left, right)
    out = np.zeros(unknown.shape, dtype=bool)
    known = ~unknown
    if known.any():
        out[known] = compare(*(side[known] if isinstance(side, np.ndarray) and side.ndim else side
                               for side in (left, right)))  # a column's rows; a literal or 'in' list as it is
    return out


def _isin(left, values):
    import pandas as pd

    found = pd.Series(np.asarray(left, dtype=object) if np.ndim(left) else [left]).isin(values).to_numpy()
    return found if np.ndim(left) else found[0]  # a literal in a list reads no column: one value


def _apply(compare, left, right, *, text):
    if compare in (operator.eq, operator.ne) and _numbers_and_text(left, right):
        # numbers never equal text; numpy before 2 gave up element-wise here, later ones answer False per row
        same = np.zeros(np.broadcast(left, right).shape, dtype=bool)
        return same if compare is operator.eq else ~same
    with np.errstate(invalid="ignore"):
        try:
            result = compare(left, right)
        except TypeError:
            raise _fail(text, f"cannot compare {_kind(left)} with {_kind(right)}") from None
    if result is NotImplemented or np.ndim(result) == 0 and np.ndim(left) + np.ndim(right) > 0:
        raise _fail(text, f"cannot compare {_kind(left)} with {_kind(right)}")  # numpy gives up element-wise
    return np.asarray(result, dtype=bool)


def _numbers_and_text(left, right):
    """A column of numbers beside a text literal, either way round."""
    def numbers(side):
        return isinstance(side, np.ndarray) and side.dtype.kind in "iufb"
    return (numbers(left) and isinstance(right, str)) or (numbers(right) and isinstance(left, str))


def _kind(value):
    if np.ndim(value) == 0:
        return f"the value {value!r}"
    return f"a column of {np.asarray(value).dtype} values"


def _literal(node):
    """A number, string or True/False written in the condition (a leading minus allowed on numbers)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _literal(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    value = node.value
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        # Beyond 64 bits an integer compares as the float it rounds to (inf past float's range).
        return float(value) if abs(value) < 2**1023 else float("inf") * (1 if value > 0 else -1)
    return value


def ast_depth(tree: ast.AST) -> int:
    """How deeply an ast tree nests, counted without recursion (Python's compiler recurses that deep)."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _check(text, tree):
    """Every node is one the grammar allows, nested at most :data:`MAX_DEPTH` deep."""
    if ast_depth(tree) > MAX_DEPTH:
        raise _fail(text, f"it nests more than {MAX_DEPTH} levels deep")
    for node in ast.walk(tree):
        bad = None
        if isinstance(node, (ast.Expression, ast.Load, ast.Name, ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd,
                             ast.In, ast.NotIn, ast.BoolOp)) or type(node) in _COMPARISONS:
            continue
        if isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.Not, ast.USub, ast.UAdd)):
                bad = "an operator other than not and a minus sign"
            elif not isinstance(node.op, ast.Not) and not _is_number(node.operand):
                bad = "a sign before something other than a number"
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (bool, int, float, str)):
                bad = f"the constant {node.value!r}"
        elif isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators):
                if isinstance(op, (ast.In, ast.NotIn)) and not (
                        isinstance(right, (ast.List, ast.Tuple)) and all(_is_literal(e) for e in right.elts)):
                    bad = "'in' followed by anything but a list of numbers or strings"
        elif isinstance(node, (ast.List, ast.Tuple)):
            if not all(_is_literal(e) for e in node.elts):
                bad = "a list holding anything but numbers and strings"
        elif isinstance(node, ast.BinOp):
            bad = "arithmetic"
        elif isinstance(node, ast.Call):
            bad = "calls"
        elif isinstance(node, ast.Attribute):
            bad = f"attributes ('.{node.attr}')"
        else:
            bad = f"{type(node).__name__.lower()} expressions"
        if bad:
            raise _fail(text, f"it uses {bad}, which a condition cannot")
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)) and not _inside_in(tree, node):
            raise _fail(text, "a list may only follow 'in' or 'not in'")


def _inside_in(tree, target):
    return any(isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) and right is target
                                                     for op, right in zip(node.ops, node.comparators))
               for node in ast.walk(tree))


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


def _level_at(levels, value):
    """The position of the literal ``value`` among an ordered categorical's ``levels``, None where it is none of them;
    True/False is a level only of True/False levels, and a number never one of them (Python's True == 1 read
    ``lv > True`` on the levels 1 < 2 < 3 as ``lv > 1``: audit s32)."""
    return next((i for i, level in enumerate(levels) if value == level and _is_bool(value) == _is_bool(level)), None)


def _is_number(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value,
                                                                                                     bool)


def _is_literal(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _is_number(node.operand)
    return isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float, str))


def parse_condition(text: str | Condition) -> Condition:
    """Parse a ``subset=`` condition of the restricted grammar (module docstring) into a :class:`Condition`.

    Raises
    ------
    OptionError
        Text that is too long, does not parse, or uses anything outside the grammar; the
        message quotes the condition, says what is not allowed and what is.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"task": ["Pong", "Breakout", "Pong"], "seed": [0, 1, 7]})
    >>> parse_condition("task == 'Pong' & seed < 5").mask(df)
    array([ True, False, False])
    >>> parse_condition("task in ['Breakout'] | not seed != 7").mask(df)
    array([False,  True,  True])
    """
    if isinstance(text, Condition):
        return text
    if not isinstance(text, str):
        raise OptionError(f"subset= must be a condition in text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise OptionError(f"subset= is {len(text):,} characters long, more than the {MAX_LENGTH:,} a condition may "
                          "have; select the rows in a file first")
    if not text.strip():
        raise _fail(text, "it is empty")
    source, names = _rewrite(text)
    source = source.strip()
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise _fail(text, f"it does not parse ({getattr(exc, 'msg', None) or type(exc).__name__})") from None
    _check(text, tree)
    return Condition(text, source, tree, tuple(names))
