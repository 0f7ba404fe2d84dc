"""The grammar ``response ~ groups [| blocks]`` and evaluation of the response.

A formula names the response (any Python expression over data columns), the
column of arms being compared and, optionally, the blocking column::

    score ~ agent                 # one task: arms compared over seeds
    score ~ agent | task          # rows sharing (agent, task) are replicates
    score ~ agent | task/seed     # the same, naming the replicate column
    score ~ agent | task/run/seed # seeds nested in runs (tuning runs, say): each run's seeds are averaged
                                  # and the run is the replicate; '| task/seed' treats every seed as independent
    score ~ agent | task:seed     # each task-seed pair is a block
    log(score) ~ agent | task     # a transformed response
    score ~ agent + (1 | task)    # lme4's spelling of '| task' (rlstats.mixed), also '+ (1 | task:agent)'

The text is split by a small scanner that tracks brackets, quotes and
back-quotes, so only top-level ``~`` and ``|`` count: ``I(a | b) ~ agent``
keeps its bitwise or. Every problem raises :class:`FormulaError` showing the
formula with a caret under the offending part and saying what to write.
"""

from __future__ import annotations

import ast
import builtins
import decimal
import functools
import keyword
import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import patsy

from .conditions import ast_depth
from .errors import DesignError, FormulaError, OptionError, close_names, index_level_hint, rows_named, shown
from .format import count, singular
from .interop import column_names
from .options import check_choice, keywords_checked

__all__ = ["Formula", "Response", "parse", "check_columns", "evaluate_response"]

_CLOSING = {"(": ")", "[": "]", "{": "}"}
_EXPRESSION_CHARS = set("()[]{}.,'\"")  # any of these makes a right-hand part an expression
_PLACEHOLDER = "_rlstats_column_{}"
_ROLES = {"response": "response", "groups": "the grouping term", "blocks": "the blocking term",
          "replicate": "the replicate term", "crossed": "the blocking term", "outer": "the outer replicate term"}


def _identity(x):
    """R's ``I()``: protect an expression, return it unchanged."""
    return x


# R-style names available in the response; data columns shadow them, they shadow the caller's names.
_R_NAMES: dict[str, Any] = {"log": np.log, "log1p": np.log1p, "log2": np.log2, "log10": np.log10,
            "exp": np.exp, "expm1": np.expm1, "sqrt": np.sqrt, "abs": np.abs,
            "I": _identity, "np": np, "numpy": np}


#: The longest formula accepted, in characters: a response of a few functions is tens of characters.
MAX_LENGTH = 5000
#: How deeply a response may nest: Python's compiler recurses once a level.
MAX_DEPTH = 100

#: What a restricted response (typed on the command line) may call: R's names, no module, no builtin.
RESTRICTED_FUNCTIONS: dict[str, Callable[..., Any]] = {name: f for name, f in _R_NAMES.items() if name not in ("np", "numpy")}
_RESTRICTED_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.Call, ast.Constant,
                     ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd)


class RestrictedEnvironment(patsy.EvalEnvironment):
    """Where a response from an untrusted source (the command line) is evaluated.

    Only column names, numbers, arithmetic and the R-style functions (``log``, ``log1p``, ``sqrt``,
    ``I``, ...) are allowed: no attribute, subscript, string, lambda, comprehension or other name,
    and no builtins, so ``__import__('os')`` and ``().__class__`` cannot run.
    """

    def __init__(self):
        super().__init__([{}], 0)


#: Pass as ``eval_env=`` to evaluate a response in the restricted way.
RESTRICTED: patsy.EvalEnvironment = RestrictedEnvironment()


@dataclass(frozen=True)
class Formula:
    """A parsed ``response ~ groups [| blocks]`` formula.

    Attributes
    ----------
    text : str
        The formula exactly as given.
    response : str
        Source text of the response expression, e.g. ``"log(score)"``.
    groups : str
        Column of the arms being compared (back-quotes removed).
    blocks : str or None
        Column of the blocks, or None for ``score ~ agent``.
    replicate : str or None
        Replicate column named by ``task/seed``, else None.
    crossed : tuple of str
        Extra columns of a crossed block ``task:seed``, else ``()``.
    outer : str or None
        The outer replicate column of ``task/run/seed`` (seeds nested in runs), else None; ``replicate`` is
        then the seed column.
    random : tuple of str
        The random intercepts of lme4's spelling ``score ~ agent + (1 | task) + (1 | task:agent)``, as
        written: ``("task",)`` or ``("task", "task:agent")``; ``()`` for ``| task``, which means the same.
    """

    text: str
    response: str
    groups: str
    blocks: str | None
    replicate: str | None
    crossed: tuple[str, ...] = ()
    random: tuple[str, ...] = ()
    outer: str | None = None

    @property
    def response_columns(self) -> tuple[str, ...]:
        """Names the response reads as values (not functions or modules), in order.

        A name that is not a data column is looked up where the formula was
        written (a user constant, say), so check these against the data with
        :func:`check_columns`.
        """
        return _structure(self.text).response_names

    @property
    def is_simple_response(self) -> bool:
        """True when the response is a bare column name."""
        return _structure(self.text).simple

    @property
    def data_name(self) -> str:
        """R's data name: ``"log(score) and agent and task"``."""
        response = self.response_columns[0] if self.is_simple_response else self.response
        names = [response, self.groups]
        if self.blocks is not None:
            names.append(self._block_text(str))
        return " and ".join(names)

    def _block_text(self, spell):
        """The blocks term as written after ``|``, each name spelled by ``spell``: ``task/run/seed``, ``task:seed``
        (the one home of its order, for :attr:`data_name` and :attr:`normal_form`)."""
        replicate = "".join(f"/{spell(c)}" for c in (self.outer, self.replicate) if c)
        return spell(self.blocks) + replicate + "".join(f":{spell(c)}" for c in self.crossed)

    @property
    def block_word(self) -> str:
        """The blocks as sentences about the data call them: the block column as a noun ("game" of
        ``score ~ agent | game``: "3 runs per game", "the games both ran", plural by :func:`rlstats.format.plural`),
        as the arms are called by theirs (:attr:`groups`, :func:`rlstats.design.arm_label`); "task" where the formula
        names none (``score ~ agent``). With ``| task`` the words are the package's own, which tests pin (audit s32
        block32: "runs per task" of ``| env``). A column named as a plural is said as one of them: "game" of
        ``| games``, "1 game", "every game", by :func:`rlstats.format.singular` (audit s33 words33: "1 games")."""
        return "task" if self.blocks is None else singular(self.blocks)

    @property
    def arm_word(self) -> str:
        """The arms as sentences about the data call them: the arm column as a noun ("algo" of ``ret ~ algo | env``),
        beside :attr:`block_word`; "algo" of ``ret ~ algos | games`` ("every algo", not "every algos")."""
        return singular(self.groups)

    @property
    def run_word(self) -> str:
        """The runs' labels as sentences about the data call them: the replicate column as a noun ("rep" of
        ``| env/rep``: "paired by rep", "every rep counts"), "seed" where the formula names none (audit s33
        words33b: "share no seed" of runs labelled by a column 'rep')."""
        return "seed" if self.replicate is None else singular(self.replicate)

    @property
    def normal_form(self) -> str:
        """The formula as a setting names it, its terms spaced one way whatever its text's spacing (the response's
        expression as written): ``"log(score) ~ agent | task"``; lme4's random intercept ``+ (1 | task)`` reads as
        ``| task``, which means the same, and intercepts beyond it are kept in lme4's spelling. A formula that reads
        back as this one (audit s26 review26b: names that need back-quotes lost them, ``my score ~ agent | task
        name``, and ``+ (1 | task:agent)`` was dropped)."""
        response = _written(self.response_columns[0]) if self.is_simple_response else self.response
        head = f"{response} ~ {_written(self.groups)}"
        if self.random and set(self.random) != {self.blocks}:
            return head + "".join(f" + (1 | {':'.join(map(_written, term.split(':')))})" for term in self.random)
        if self.blocks is None:
            return head
        return f"{head} | {self._block_text(_written)}"

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column the formula needs: response names, groups, blocks, replicate, crossed."""
        names = (*self.response_columns, self.groups, self.blocks, self.outer, self.replicate, *self.crossed)
        return tuple(dict.fromkeys(n for n in names if n is not None))


@dataclass(frozen=True, eq=False)
class Response:
    """The evaluated response, one value per row of the data.

    Attributes
    ----------
    values : numpy.ndarray
        float64 values; NaN/inf are left in place where flagged below.
    missing_in_input : numpy.ndarray
        bool; the value is not finite because a column it uses was missing (NA) in the data.
    produced_nonfinite : numpy.ndarray
        bool; the value is not finite although its input was present (``log(0)``, an inf in the data).
    """

    values: np.ndarray
    missing_in_input: np.ndarray
    produced_nonfinite: np.ndarray


@dataclass(frozen=True)
class _Parts:
    """What parsing learns beyond the Formula: evaluable code and where each name sits."""

    formula: Formula
    code: str                                # the response with back-quoted names replaced
    response_span: tuple[int, int]
    simple: bool
    response_names: tuple[str, ...]
    lookups: tuple[tuple[str, str], ...]     # (name in code, column name) for each response name
    spans: tuple[tuple[str, str, int, int], ...]  # (role, column, start, end) in the text, in order


@dataclass(frozen=True)
class _Token:
    kind: str  # "name", "word" (a keyword or not an identifier) or "op"
    value: str
    start: int
    end: int


# ---------------------------------------------------------------- errors

def _caret(text, start, end, message):
    """The message, then the formula, then a caret line under text[start:end]."""
    shown = text.replace("\t", " ").replace("\n", " ").replace("\r", " ")
    carets = "^" * max(1, end - start)
    return f"{message}\n    {shown}\n    {' ' * start}{carets}"


def _fail(text, start, end, message, command_line=None):
    """Raise FormulaError pointing at text[start:end]; ``command_line``: the message with the command's advice."""
    raise FormulaError(_caret(text, start, end, message),
                       command_line=None if command_line is None else _caret(text, start, end, command_line))


def _keyword_fail(text, role, name, start, end, message):
    """:func:`_fail` for a Python keyword written bare where a column name belongs, the error recording (role, name,
    start, end) for :func:`parse_against`, which says first that no column has that name."""
    try:
        _fail(text, start, end, message)
    except FormulaError as error:
        error.keyword_name = (role, name, start, end)
        raise


def _bare(name):
    """Whether a formula writes the name as it is: a Python name that is no keyword (else back-quoted: a space, a
    hyphen, ``class``)."""
    return name.isidentifier() and not keyword.iskeyword(name)


def _written(name):
    """A column name as a formula spells it: back-quoted where it is not :func:`_bare`."""
    return name if _bare(name) else f"`{name}`"


def _quoted(name):
    """A column name as the user should write it in a formula, named in a message: quoted where it is
    :func:`_bare`, else back-quoted."""
    return f"'{name}'" if _bare(name) else f"`{name}`"


def _return_like(name, labels):
    """Where the unknown ``name`` itself reads as a score, return or reward ('score', 'return'): the one column whose
    name reads so (rlstats.logs' rule for logged tags: ``eval/mean_reward``, ``episode_return``; none naming a
    spread), or None where there is none or more than one (a typo of another name keeps its closest spelling)."""
    from .tag_words import RETURN_WORDS, chosen_return, words

    return chosen_return(labels)[0] if words(name) & RETURN_WORDS else None


def _unknown(text, role, name, start, end, columns, restricted=False, index=()):
    """Raise the error for a name that is not a data column, with a did-you-mean; ``restricted``: the response is
    read in the command line's grammar, where no name from Python code can be defined."""
    labels = [str(c) for c in columns]
    close = close_names(name, labels, n=1)
    what = "name" if role == "response" else "column"
    # each column as a formula writes it (`eval/mean_reward`)
    shown = ", ".join(_quoted(c) for c in labels[:10]) + (", ..." if len(labels) > 10 else "")
    as_text = [c for c in columns if not isinstance(c, str) and str(c) == name]  # pd.DataFrame(array)'s 0, 1, ...
    if name in index:  # a groupby result keeps its keys there (audit s22)
        hint = index_level_hint(name)
    elif as_text:
        kind = type(as_text[0]).__name__
        hint = (f"the column labelled {as_text[0]!r} is {'an' if kind[0] in 'aeiou' else 'a'} {kind}, and a formula "
                "names columns by text: make the labels text first, e.g. df.columns = df.columns.astype(str)")
    elif role == "response" and (returns := _return_like(name, labels)) and returns not in close:
        # the column that holds returns, before the nearest spelling (audit s35 claims35: read-logs' sb3_eval CSV
        # has 'eval/mean_reward', and 'score' was pointed at 'source', its log files' paths)
        hint = (f"did you mean {_quoted(returns)} (the column that looks like a return)? (the data columns are: "
                f"{shown})")
    elif close:  # the closest spelling may not be the column meant (audit s18: 'score' -> 'source', a column of paths)
        hint = f"did you mean {_quoted(close[0])}? (the data columns are: {shown})"
    else:
        outside = role == "response" and not restricted
        where = "data columns or names defined where the formula is written" if outside else "data columns"
        hint = f"names here must be {where}; the data columns are: {shown}"
    _fail(text, start, end, f"unknown {what} '{name}' in {_ROLES[role]}; {hint}")


# ---------------------------------------------------------------- scanning

def _scan(text):
    """Find top-level '~' and '|' and every back-quoted name; check brackets and quotes."""
    tildes, bars, backticks, stack = [], [], {}, []
    i = 0
    while i < len(text):
        char = text[i]
        quoted = _q_call_end(text, i)
        if quoted:  # patsy's Q("my score") names a column, like a back-quoted name
            backticks[i] = quoted
            i = quoted
            continue
        if char == "`":
            close = text.find("`", i + 1)
            if close < 0:
                _fail(text, i, len(text), "unclosed back-quote; close the name with a second one, e.g. `my score`")
            backticks[i] = close + 1
            i = close + 1
            continue
        if char in "'\"":
            i = _skip_string(text, i)
            continue
        if char in _CLOSING:
            stack.append(i)
        elif char in ")]}":
            if not stack or _CLOSING[text[stack[-1]]] != char:
                _fail(text, i, i + 1, f"'{char}' has no matching opening bracket; remove it or add the opening one")
            stack.pop()
        elif not stack and char in "~|":
            (tildes if char == "~" else bars).append(i)
        i += 1
    if stack:
        opening = text[stack[-1]]
        _fail(text, stack[-1], stack[-1] + 1, f"'{opening}' is never closed; add '{_CLOSING[opening]}'")
    return tildes, bars, backticks


def _q_call_end(text, start):
    """End of a ``Q("name")`` call starting at ``start`` (patsy's quoting of column names), else 0."""
    if not text.startswith("Q(", start) or (start and (text[start - 1].isalnum() or text[start - 1] in "_.")):
        return 0
    i = start + 2
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text) or text[i] not in "'\"":
        return 0
    i = _skip_string(text, i)
    while i < len(text) and text[i].isspace():
        i += 1
    return i + 1 if i < len(text) and text[i] == ")" else 0


def _quoted_name(text, start, end):
    """The column named by `name` or Q("name") at text[start:end]."""
    if text[start] == "`":
        return text[start + 1:end - 1]
    return ast.literal_eval(text[start + 2:end - 1].strip())


def _skip_string(text, start):
    """Return the index after the string literal opening at text[start]."""
    i = start + 1
    while i < len(text) and text[i] != text[start]:
        i += 2 if text[i] == "\\" else 1
    if i >= len(text):
        _fail(text, start, len(text), f"unclosed quote {text[start]}; close the string or remove the quote")
    return i + 1


def _tokens(text, start, end, backticks):
    """Split a right-hand part into names, other words and single-character operators."""
    found, i = [], start
    while i < end:
        char = text[i]
        if char.isspace():
            i += 1
        elif i in backticks:
            close = backticks[i]
            name = _quoted_name(text, i, close)
            if not name:
                _fail(text, i, close, "empty back-quoted name; put the column name inside, e.g. `my agent`")
            found.append(_Token("name", name, i, close))
            i = close
        elif char == "_" or char.isalnum():
            j = i
            while j < end and (text[j] == "_" or text[j].isalnum()):
                j += 1
            word = text[i:j]
            kind = "name" if _bare(word) else "word"
            found.append(_Token(kind, word, i, j))
            i = j
        else:
            found.append(_Token("op", char, i, i + 1))
            i += 1
    return found


# ---------------------------------------------------------------- the three parts

def _split(text, tildes, bars):
    """Check the '~' and '|' structure; return the index of '~' and of '|' (or None)."""
    if not tildes:
        first = len(text) - len(text.lstrip())
        _fail(text, first, len(text.rstrip()),
              "formula must contain exactly one '~' (response ~ groups | blocks), e.g. 'score ~ agent | task'")
    if len(tildes) > 1:
        _fail(text, tildes[1], tildes[1] + 1,
              "formula must contain exactly one '~' (response ~ groups | blocks); "
              "for Python's bitwise not inside the response, wrap it: I(~x)")
    tilde = tildes[0]
    if bars and bars[0] < tilde:
        _fail(text, bars[0], bars[0] + 1,
              "'|' belongs on the right of '~' ('response ~ groups | blocks'); "
              "for Python's bitwise or inside the response, wrap it: I(a | b)")
    if len(bars) > 1 and bars[1] == bars[0] + 1:
        _fail(text, bars[0], bars[1] + 1, "'||' is not supported; use a single '|' to separate groups from blocks")
    if len(bars) > 1:
        _fail(text, bars[1], bars[1] + 1,
              "only one '|' is allowed: 'response ~ groups | blocks'; to name the replicate column write '| task/seed'")
    return tilde, (bars[0] if bars else None)


def _response(text, end, backticks):
    """Parse the response text[:end]; return code, span, simplicity and the names it reads."""
    code, where, lookups = [], [], {}
    i = 0
    while i < end:
        if i in backticks:  # replace `my score` or Q("my score") by an identifier that eval accepts
            name = _quoted_name(text, i, backticks[i])
            if not name:
                _fail(text, i, backticks[i], "empty back-quoted name; put the column name inside, e.g. `my score`")
            placeholder = next((p for p, n in lookups.items() if n == name), _PLACEHOLDER.format(len(lookups)))
            lookups[placeholder] = name
            code.append(placeholder)
            where.extend([i] * len(placeholder))
            i = backticks[i]
        else:
            code.append(text[i])
            where.append(i)
            i += 1
    where.append(end)
    code = "".join(code)
    lead = len(code) - len(code.lstrip())
    code, where = code.strip(), where[lead:]
    if not code:
        _fail(text, end, end + 1, "missing response on the left of '~' (e.g. 'score ~ agent | task')")
    tree = _parse_expression(text, code, where)
    names = _value_names(tree, code, where)
    span = (where[0], where[len(code)])
    simple = isinstance(tree.body, ast.Name)
    columns = tuple(dict.fromkeys(lookups.get(key, key) for key, _, _ in names))
    pairs = tuple(dict.fromkeys((key, lookups.get(key, key)) for key, _, _ in names))
    spans = tuple(("response", lookups.get(key, key), start, stop) for key, start, stop in names)
    return code, span, simple, columns, pairs, spans


def _keyword_expression(code):
    """Whether words apart (no operator) are Python joined by its keywords ('score if ok else 0', 'a and b'), not a
    column name with spaces (audit s38 loud38: a conditional got the advice to back-quote it)."""
    if not any(keyword.iskeyword(word) for word in code.split()):
        return False
    try:
        ast.parse(code, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


#: what a response's truth value of a whole column was asked by (``x if c else y``, and, or, not)
_ONE_TRUTH_VALUE = (ast.IfExp, ast.BoolOp, ast.Not)


def _evaluation_hint(parts, data, err):
    """(the way on, the command line's) an evaluation error lacks: a column read in place of a function the
    response calls (audit s38 loud38: abs(abs) with a column 'abs' said only "'numpy.ndarray' object is not
    callable"); a conditional or and/or/not asked one truth value of a column."""
    try:
        tree = ast.parse(parts.code.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "", ""
    columns = {key: column for key, column in parts.lookups if column in data.columns}
    if isinstance(err, TypeError) and "not callable" in str(err):
        called = [node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call)
                  and isinstance(node.func, ast.Name) and node.func.id in columns]
        if called:
            name = columns[called[0]]
            said = (f"; the column {name!r} is read in place of the function {called[0]}(), which the response calls: "
                    "a name is a column first; ")
            return (said + f"rename the column, e.g. df = df.rename(columns={{{name!r}: {name + '_value'!r}}})",
                    said + f"rename the column {name!r} in the file")
    if isinstance(err, ValueError) and "truth value" in str(err) and any(
            isinstance(node, _ONE_TRUTH_VALUE) for node in ast.walk(tree)):
        said = ("; 'if ... else', 'and', 'or' and 'not' read one truth value for the whole response, not one a row: "
                "write np.where(condition, a, b) for a choice a row, and &, |, ~ between comparisons")
        return said, said
    return "", ""


def _parse_expression(text, code, where):
    """ast-parse the response code; a SyntaxError becomes a FormulaError with a caret."""
    span, problem, tree = (where[0], where[len(code)]), None, None
    if keyword.iskeyword(code):
        _keyword_fail(text, "response", code, *span, f"'{code}' is a Python keyword; back-quote the column: `{code}`")
    if re.fullmatch(r"\w+(\s+\w+)+", code) and not _keyword_expression(code):
        _fail(text, *span, f"column names that contain spaces must be back-quoted, e.g. `{text[slice(*span)]}`")
    try:
        tree = ast.parse(code, mode="eval")
    except (SyntaxError, ValueError) as err:  # ValueError: a null byte
        problem = err
    except (RecursionError, MemoryError):  # nesting deeper than Python's parser goes
        tree = None
    if problem is None:
        if tree is None or ast_depth(tree) > MAX_DEPTH:
            _fail(text, *span, f"the response nests more than {MAX_DEPTH} levels deep (terms, calls, parentheses); "
                               "compute it as a column of the data first")
        return tree
    start, stop = _syntax_error_span(problem, code)
    _fail(text, where[start], max(where[stop], where[start] + 1),
          f"the response is not a valid Python expression ({getattr(problem, 'msg', problem)}); "
          "back-quote column names that are not Python identifiers or are keywords, e.g. `my score`")


def _syntax_error_span(problem, code):
    """(start, stop) in code of what a SyntaxError points at; the last character if it has no position."""
    lineno = getattr(problem, "lineno", None) or 1
    offset = getattr(problem, "offset", None) or len(code)  # 1-based; 0 means "at the end"
    start = sum(len(line) + 1 for line in code.split("\n")[:lineno - 1]) + offset - 1
    start = min(max(start, 0), len(code) - 1)
    end_offset = getattr(problem, "end_offset", None) or 0
    same_line = getattr(problem, "end_lineno", None) == lineno
    width = end_offset - offset if same_line and end_offset > offset else 1
    return start, min(start + width, len(code))


def _value_names(tree, code, where):
    """Names the expression reads as values, in source order, with their spans in the text.

    Function names (``log`` in ``log(x)``), module names (``np`` in ``np.log``) and
    names bound inside the expression (lambda arguments, loop targets) are not columns.
    """
    skipped, bound = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            skipped.add(id(node.func))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            skipped.add(id(node.value))
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in skipped and n.id not in bound]
    nodes.sort(key=lambda n: (n.lineno, n.col_offset))
    lines = code.split("\n")

    def position(lineno, byte_column):  # ast columns count UTF-8 bytes
        chars = len(lines[lineno - 1].encode()[:byte_column].decode("utf-8", "ignore"))
        return where[sum(len(line) + 1 for line in lines[:lineno - 1]) + chars]

    return [(n.id, position(n.lineno, n.col_offset), position(n.end_lineno, n.end_col_offset)) for n in nodes]


def _check_word(text, token, role):
    """Reject a keyword or non-identifier where a column name belongs (``role``: the term's, for
    :func:`parse_against`)."""
    if token.kind == "word":
        what = "a Python keyword" if keyword.iskeyword(token.value) else "not a Python identifier"
        message = (f"'{token.value}' is {what}; back-quote column names like this: `{token.value}` "
                   f"(or write Q(\"{token.value}\"))")
        if keyword.iskeyword(token.value):
            _keyword_fail(text, role, token.value, token.start, token.end, message)
        _fail(text, token.start, token.end, message)


def _reject_expression(text, tokens, role, instead, column):
    if any(t.kind == "op" and t.value in _EXPRESSION_CHARS for t in tokens):
        what = f"the {role} must be a column name, not an expression; "
        _fail(text, tokens[0].start, tokens[-1].end, what + instead,
              command_line=what + f"add it to the file as a column (e.g. {column!r}) and name that")


def _reject_spaces(text, first, second):
    name = text[first.start:second.end]
    _fail(text, first.start, second.end,
          f"column names that contain spaces must be back-quoted, e.g. `{name}`, or quoted as in patsy: Q(\"{name}\")")


def _groups(text, tokens, tilde):
    """Validate the grouping term: exactly one column name."""
    if not tokens:
        _fail(text, tilde, tilde + 1, "missing grouping factor after '~' (e.g. 'score ~ agent | task')")
    _reject_expression(text, tokens, "grouping term",
                       "compute it as a column first, e.g. df['arm'] = ..., then write 'score ~ arm | task'", "arm")
    if any(t.kind == "op" for t in tokens):
        what = "the grouping term must be one factor column (the arms being compared); "
        _fail(text, tokens[0].start, tokens[-1].end,
              what + "combine columns first, e.g. df['arm'] = df.agent + '/' + df.variant",
              command_line=what + "combine them into one column of the file first (e.g. 'arm', agent and variant "
                                  "joined by '/'), then write 'score ~ arm | task'")
    for token in tokens:
        _check_word(text, token, "groups")
    if len(tokens) > 1:
        _reject_spaces(text, tokens[0], tokens[1])
    return tokens[0]


def _bad_block_operator(op, names):
    if op == "%" and len(names) == 3 and names[1].value == "in":  # R's 'seed %in% task': seed nested in task
        inner, outer = names[0].value, names[2].value
        return (f"'%in%' is R's nesting, which rlstats writes with '/': '{inner} %in% {outer}' is "
                f"'| {outer}/{inner}' ({inner} names the replicates within {outer})")
    a, b = (names[0].value, names[1].value) if len(names) > 1 else ("task", "seed")
    return (f"'{op}' is not allowed in the blocking term (R's friedman.test rejects it too). "
            f"Use '| {a}' (seeds are replicates within {a}, the usual RL design), "
            f"'| {a}/{b}' to name the replicate column explicitly, or '| {a}:{b}' to block on each "
            f"{a}-{b} pair (only if {b} ids are matched across agents)")


def _blocks(text, tokens, bar):
    """Validate the blocking term: ``task``, ``task/seed`` or ``task:seed[:...]``."""
    if not tokens:
        _fail(text, bar, bar + 1, "missing blocking factor after '|' (e.g. '| task')")
    _reject_expression(text, tokens, "blocking term",
                       "compute it as a column first, e.g. df['block'] = ..., then write '| block'", "block")
    names = [t for t in tokens if t.kind != "op"]
    for token in tokens:
        if token.kind == "op" and token.value not in "/:":
            _fail(text, token.start, token.end, _bad_block_operator(token.value, names))
        _check_word(text, token, "blocks")
    for index, token in enumerate(tokens):  # names and operators must alternate
        if index % 2 == 0 and token.kind == "op":
            _fail(text, token.start, token.end, f"missing column name before '{token.value}' (e.g. '| task/seed')")
        if index % 2 == 1 and token.kind != "op":
            _reject_spaces(text, tokens[index - 1], token)
    if tokens[-1].kind == "op":
        _fail(text, tokens[-1].start, tokens[-1].end,
              f"missing column name after '{tokens[-1].value}' (e.g. '| task{tokens[-1].value}seed')")
    ops = tokens[1::2]
    mixed = next((op for op in ops if op.value != ops[0].value), None)
    if mixed:
        _fail(text, mixed.start, mixed.end,
              "'/' and ':' cannot be mixed; write '| task/seed' (seed names the replicates) "
              "or '| task:seed' (each task-seed pair is a block)")
    if ops and ops[0].value == "/" and len(ops) > 2:
        written = "/".join(t.value for t in names)
        _fail(text, ops[2].start, ops[2].end,
              f"'| {written}' nests {len(ops)} levels; at most two are allowed ('| task/run/seed': seeds nested in "
              f"runs); combine the extra levels into one column first, then write '| {names[0].value}/run/seed'")
    return names, (ops[0].value if ops else None)


@functools.lru_cache(maxsize=256)
def _structure(text):
    """Parse a formula string into its Formula and the details evaluation needs."""
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"the formula is {len(text):,} characters long, more than the {MAX_LENGTH:,} a formula "
                           f"may have ({text[:60]!r}...); compute a long response as a column of the data first")
    if not text.strip():
        _fail(text, 0, max(len(text), 1), "formula is empty; write e.g. 'score ~ agent | task'")
    tildes, bars, backticks = _scan(text)
    tilde, bar = _split(text, tildes, bars)
    code, span, simple, columns, lookups, spans = _response(text, tilde, backticks)
    end = len(text) if bar is None else bar
    right = _tokens(text, tilde + 1, end, backticks)
    random, random_roles = (), []
    if bar is None and any(t.kind == "op" and t.value == "|" for t in right):  # lme4: agent + (1 | task)
        right, random, random_roles = _lme4_terms(text, right)
    group = _groups(text, right, tilde)
    roles = [("groups", group)] + random_roles
    blocks = replicate = outer = None
    crossed = ()
    if random:
        blocks = random_roles[0][1].value
    if bar is not None:
        names, op = _blocks(text, _tokens(text, bar + 1, len(text), backticks), bar)
        blocks = names[0].value
        replicate = names[-1].value if op == "/" else None
        outer = names[1].value if op == "/" and len(names) == 3 else None
        crossed = tuple(t.value for t in names[1:]) if op == ":" else ()
        extra = ["outer", "replicate"][-(len(names) - 1):] if op == "/" else ["crossed"] * (len(names) - 1)
        roles += [("blocks", names[0])] + list(zip(extra, names[1:]))
    seen = set()
    for role, token in roles:
        if token.value in seen:
            _fail(text, token.start, token.end,
                  f"column '{token.value}' is used twice; groups, blocks and replicates must be different columns")
        seen.add(token.value)
    spans += tuple((role, t.value, t.start, t.end) for role, t in roles)
    response = text[span[0]:span[1]]
    formula = Formula(text, response, group.value, blocks, replicate, crossed, random, outer)
    return _Parts(formula, code, span, simple, columns, lookups, spans)


def _lme4_terms(text, tokens):
    """Split lme4's ``agent + (1 | task) [+ (1 | task:agent)]`` into the fixed term's tokens and the random terms.

    Returns (fixed tokens, random terms as written, [("blocks", task token)]); anything else is an error saying
    what is accepted.
    """
    parts, current, depth = [], [], 0
    for token in tokens:
        if token.kind == "op" and token.value == "+" and depth == 0:
            parts.append(current)
            current = []
            continue
        depth += (token.kind == "op" and token.value == "(") - (token.kind == "op" and token.value == ")")
        current.append(token)
    parts.append(current)
    accepted = ("lme4's spelling is accepted with random intercepts only: 'score ~ agent + (1 | task)' or "
                "'score ~ agent + (1 | task) + (1 | task:agent)', the same model as 'score ~ agent | task'")
    fixed, intercepts = [], []
    for part in parts:
        if not part:
            _fail(text, tokens[0].start, tokens[-1].end, f"a term is missing around '+'; {accepted}")
        if not (part[0].kind == "op" and part[0].value == "("):
            fixed.extend(part)
            continue
        values = [t.value for t in part]
        shape_ok = (len(part) in (5, 7) and values[1] == "1" and values[2] == "|" and values[-1] == ")"
                    and part[3].kind == "name" and (len(part) == 5 or (values[4] == ":" and part[5].kind == "name")))
        if not shape_ok:
            _fail(text, part[0].start, part[-1].end, f"this random term is not supported; {accepted}")
        intercepts.append((part[3], part[5] if len(part) == 7 else None, part))
    if not fixed:
        _fail(text, tokens[0].start, tokens[-1].end, f"the fixed term (the agent column) is missing; {accepted}")
    if len(fixed) != 1 or fixed[0].kind != "name":
        _fail(text, fixed[0].start, fixed[-1].end, f"the fixed part must be one column, the agent; {accepted}")
    agent = fixed[0].value
    plain = [i for i in intercepts if i[1] is None]
    nested = [i for i in intercepts if i[1] is not None]
    if len(plain) != 1 or len(nested) > 1:
        where = (plain[1] if len(plain) > 1 else nested[1] if len(nested) > 1 else intercepts[0])[2] if intercepts \
            else fixed
        _fail(text, where[0].start, where[-1].end, f"give one (1 | task) term and at most one (1 | task:agent); "
                                                   f"{accepted}")
    task = plain[0][0]
    if task.value == agent:
        _fail(text, task.start, task.end, f"the random intercepts belong to the task, not the agent; {accepted}")
    random = (task.value,)
    if nested:
        first, second, part = nested[0]
        if {first.value, second.value} != {task.value, agent}:
            _fail(text, part[0].start, part[-1].end,
                  f"the nested term must join the task and the agent: (1 | {task.value}:{agent}); {accepted}")
        random += (f"{task.value}:{agent}",)
    return fixed, random, [("blocks", task)]


@keywords_checked  # a keyword it does not take: an OptionError naming it, not Python's TypeError
def parse(text: str | Formula) -> Formula:
    """Parse ``'response ~ groups [| blocks]'``.

    Parameters
    ----------
    text : str or Formula
        The formula, e.g. ``"log(score) ~ agent | task"`` (a Formula is returned as it is). Blocks may be
        ``task``, ``task/seed`` (names the replicate column), ``task/run/seed`` (seeds nested in runs:
        the front door averages each run's seeds and the run is the replicate; ``task/seed`` on such data
        treats every seed as an independent run) or ``task:seed`` (each task-seed pair is a block). Column names that are not Python
        identifiers are back-quoted: ```my score` ~ agent``.

    Returns
    -------
    Formula

    Raises
    ------
    FormulaError
        If the text does not follow the grammar; the message shows the
        formula, a caret under the offending part and what to write instead.

    See Also
    --------
    rlstats.build : Validates a frame against a formula.
    rlstats.compare : Takes the formula's text.

    Examples
    --------
    >>> f = parse("log(score) ~ agent | task/seed")
    >>> f.groups, f.blocks, f.replicate, f.data_name
    ('agent', 'task', 'seed', 'log(score) and agent and task/seed')
    """
    if isinstance(text, Formula):
        return text
    if not isinstance(text, str):
        raise FormulaError(f"formula must be a string such as 'score ~ agent | task', "
                           f"got {type(text).__name__}: {shown(text)}")
    return _structure(text).formula


# ---------------------------------------------------------------- checks against the data

def _known_outside_data(name, namespace):
    return name in _R_NAMES or hasattr(builtins, name) or (namespace is not None and name in namespace)


def _check_names(parts, columns, namespace, roles, restricted=False, index=()):
    """Raise for the first name (in text order) of the given roles that cannot be resolved."""
    present = set(columns)
    quoted = {column for key, column in parts.lookups if key != column}
    for role, name, start, end in sorted(parts.spans, key=lambda s: s[2]):
        if role not in roles or name in present:
            continue
        if role == "response" and name not in quoted and _known_outside_data(name, namespace):
            continue
        if role == "response":
            _spaced_words(parts, present)
        _unknown(parts.formula.text, role, name, start, end, columns, restricted, index)


def _spaced_words(parts, present):
    """The advice to back-quote a spaced name where the response is words apart joined by Python's keywords that
    name no column one by one but, joined by spaces, name one of the data ('time in seconds', 'win or lose': read as
    Python since audit s38 loud38, they had said "unknown name 'time'"; review s38 fixe38)."""
    start, end = parts.response_span
    text = parts.formula.text[start:end]
    if not re.fullmatch(r"\w+(\s+\w+)+", text):
        return
    for column in dict.fromkeys((text, " ".join(text.split()))):
        if column in present:
            _fail(parts.formula.text, start, end,
                  f"column names that contain spaces must be back-quoted, e.g. `{column}`")


def parse_against(formula: str | Formula, data: object) -> Formula:
    """:func:`parse` of a formula given with its data (a frame, or anything with columns; else it is parsed alone): a
    Python keyword written bare that names no column of the data is the unknown name it is, with its did-you-mean,
    before the advice to back-quote it, which holds only for a column of that name (new-user trial s37: 'return ~
    agent | task' on a frame with no 'return' column said to back-quote it, and then that it was unknown)."""
    try:
        return parse(formula)
    except FormulaError as error:
        found = getattr(error, "keyword_name", None)
        columns = column_names(data)  # a pyarrow Table's .columns are its arrays, not their names
        if found is None or columns is None or found[1] in set(columns):
            raise
        role, name, start, end = found
        index = getattr(getattr(data, "index", None), "names", None) or ()
        text = formula.text if isinstance(formula, Formula) else str(formula)
        try:
            # restricted: no name defined in Python code can be a keyword, so only a column can be meant
            _unknown(text, role, name, start, end, list(columns), True,
                     tuple(level for level in index if level is not None))
        except FormulaError as unknown:
            raise unknown from None
        raise


def check_columns(formula: Formula, columns: Iterable[Hashable],
                  eval_env: int | patsy.EvalEnvironment | None = None, index: Iterable[Hashable] = ()) -> None:
    """Check that every name in the formula is a data column (or, in the response, a known name).

    Parameters
    ----------
    formula : Formula
    columns : iterable
        The data's column labels.
    eval_env : patsy.EvalEnvironment, int or None
        Where the formula was written. Response names found there (user
        constants) are accepted; with None only columns, R-style names
        (``log``, ``np``, ...) and Python builtins are.
    index : iterable
        The names of the data's index levels: a name found there, not among the columns, is said to be one.

    Raises
    ------
    FormulaError
        For the first unknown name, with a caret under it and "did you mean"
        when a column has a close spelling.
    """
    env = None if eval_env is None else capture_environment(eval_env, reference=1)
    _check_names(_structure(formula.text), list(columns), None if env is None else env.namespace, set(_ROLES),
                 isinstance(env, RestrictedEnvironment), tuple(name for name in index if name is not None))


# ---------------------------------------------------------------- evaluation

def capture_environment(eval_env: object, reference: int = 1) -> patsy.EvalEnvironment:
    """``eval_env`` as an EvalEnvironment: given, or that many frames above the caller of the function calling this.

    The one place the caller's environment is captured (a move to another formula library changes this
    function only). ``reference`` counts further frames up (1: the caller of the function that calls this
    one). A bad value is an OptionError, not patsy's TypeError.
    """
    if isinstance(eval_env, patsy.EvalEnvironment):
        return eval_env
    if isinstance(eval_env, bool) or not isinstance(eval_env, int) or eval_env < 0:
        raise OptionError(f"eval_env must be a patsy.EvalEnvironment or a number of frames above the caller (0, 1, "
                          f"...), got {eval_env!r}")
    try:
        return patsy.EvalEnvironment.capture(eval_env, reference=reference + 1)
    except ValueError:  # patsy: the call stack is not that deep
        raise OptionError(f"eval_env={eval_env} counts more frames than the call stack holds; pass 0 for the "
                          "caller's own names") from None


class _DataColumns(Mapping):
    """The response's columns, converted to numpy only when the expression reads them."""

    def __init__(self, data, lookups):
        self._data = data
        self._columns = {key: column for key, column in lookups if column in data.columns}
        self._cache = {}

    def __getitem__(self, key):
        if key not in self._cache:
            # Read-only, so that a response function cannot write into the caller's DataFrame
            # (pandas 2 without copy-on-write hands out views of its blocks).
            values = column_values(self._data, self._columns[key]).view()
            values.flags.writeable = False
            self._cache[key] = values
        return self._cache[key]

    def __iter__(self):
        return iter(self._columns)

    def __len__(self):
        return len(self._columns)


def check_unrepeated(data, name):
    """A DesignError where ``data`` has several columns called ``name`` (pandas would hand a frame for it)."""
    if data.columns.is_unique:  # no name repeated: known once a frame (comparing every column took 0.1 ms a call)
        return
    if (repeats := int((data.columns == name).sum())) > 1:
        raise DesignError(f"column '{name}' appears {repeats} times in the data; give columns unique names")


def column_values(data, name):
    """A column as a numpy array: numbers as they are, nullable numbers with NA as NaN, the rest as objects."""
    check_unrepeated(data, name)
    column = data[name]
    if isinstance(column.dtype, np.dtype):
        return column.to_numpy()
    if not _is_numeric(column.dtype):  # strings, categoricals (even of numbers): kept non-numeric
        return column.to_numpy(dtype=object)
    if column.hasnans:
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    if isinstance(column.dtype, pd.SparseDtype):  # its values dense, in the type they hold (no numpy_dtype)
        return column.to_numpy(dtype=column.dtype.subtype)
    return column.to_numpy(dtype=column.dtype.numpy_dtype)


def _unquoted_column(formula, parts, columns, quote=""):
    """The way on when the response holds, unquoted, a column name that Python reads as code ("score.v2": the
    attribute v2 of a name score): the formula with that name back-quoted (audit s18), between ``quote``."""
    start, end = parts.response_span
    response = formula.text[start:end]
    found = {c: _unquoted_places(response, c) for c in columns if isinstance(c, str) and not c.isidentifier()}
    found = {c: places for c, places in found.items() if places}
    if not found:
        return ""
    name = max(found, key=len)
    for at in reversed(found[name]):  # from the end, so that the places before stay where they were
        response = f"{response[:at]}`{name}`{response[at + len(name):]}"
    fixed = formula.text[:start] + response + formula.text[end:]
    return f"; the data has a column {name!r}: back-quote it: {quote}{fixed}{quote}"


def _unquoted_places(text, name):
    """Where ``name`` stands whole in ``text`` outside back-quotes: not inside a quoted name ("`ret.mean.std`" holds
    no "ret.mean") nor part of a longer word ("score.v2" holds no "e.v"), as str.replace took them (audit s19)."""
    quoted = [m.span() for m in re.finditer(r"`[^`]*`", text)]
    word = re.compile(r"[\w.]")
    before = r"(?<![\w.])" if word.match(name[0]) else ""
    after = r"(?![\w.])" if word.match(name[-1]) else ""
    return [m.start() for m in re.finditer(before + re.escape(name) + after, text)
            if not any(a <= m.start() < b for a, b in quoted)]


def _is_numeric(dtype):
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype)


def _holds_decimals(column):
    """Whether a column holds decimal numbers: pyarrow's decimal type, or Python Decimals (a polars Decimal)."""
    if str(column.dtype).startswith("decimal"):
        return True
    first = column.dropna().iloc[:1]
    return column.dtype == object and len(first) == 1 and isinstance(first.iloc[0], decimal.Decimal)


def _dtype_notes(parts, data):
    """' (column 'agent' has dtype str)' for each non-numeric column the response reads."""
    notes = [f"column '{name}' has dtype {data[name].dtype}" for name in parts.response_names
             if name in data.columns and not _is_numeric(data[name].dtype)]
    return f" ({'; '.join(notes)}; the response must be numeric)" if notes else ""


def _not_numbers(data, name, limit=3):
    """What to say of a text column read as the response, (in Python, on the command line): which values
    pd.to_numeric would refuse (a word, a decimal comma), so the caller sees what to correct, and what to do;
    Python's conversion when all read as numbers, another column when none does."""
    column = data[name]
    convert = (f"; the response must be numeric. Convert it first, e.g. df['{name}'] = pd.to_numeric(df['{name}'])",
               f"; the response must be numeric: write column '{name}' as numbers in the file")
    present = column.notna().to_numpy(dtype=bool)
    try:
        bad = np.flatnonzero(present & pd.to_numeric(column, errors="coerce").isna().to_numpy(dtype=bool))
    except (TypeError, ValueError):  # values pd.to_numeric cannot even look at (a category, a list)
        return convert
    if len(bad) == 0:
        return convert
    shown = (f"{rows_named(data.index, bad, limit)}, holding "
             + ", ".join(repr(column.iloc[i]) for i in bad[:limit]) + (", ..." * (len(bad) > limit)))
    if len(bad) == present.sum():
        none = (f", and none of its values is a number (first rows: {shown}); the response must be numeric: name a "
                "column of numbers left of '~', or make this column's values numbers")
        return none, none
    some = (f"{len(bad)} values that are not numbers" if len(bad) > 1 else "1 value that is not a number")
    rows = 'those rows' if len(bad) > 1 else 'that row'
    found = f", with {some} (first rows: {shown}); the response must be numeric: correct or remove {rows}"
    return (found + f" (in Python, pd.to_numeric(df['{name}'], errors='coerce') makes "
                    f"{'them missing values' if len(bad) > 1 else 'it a missing value'})",
            found + " in the file (an empty cell is a missing value, which na_action=\"drop\" leaves out)")


def _as_float(raw, parts, data):
    """Check the evaluated response is numeric with one value per row; return float64."""
    text, (start, end), response = parts.formula.text, parts.response_span, parts.formula.response
    if isinstance(raw, (pd.Series, pd.Index, pd.api.extensions.ExtensionArray)):
        dtype, shape = raw.dtype, (len(raw),)
    else:
        raw = np.asarray(raw)
        dtype, shape = raw.dtype, raw.shape
    if shape != (len(data),):
        got = "a single value" if shape == () else f"shape {shape}"
        _fail(text, start, end, f"response '{response}' gave {got}, not one value per row ({len(data)} rows); "
                                "write an expression of the columns, e.g. log(score)")
    if not _is_numeric(dtype):
        if parts.simple and parts.response_names[0] in data.columns:
            name = parts.response_names[0]
            if _holds_decimals(data[name]):  # pd.to_numeric keeps pyarrow decimals as they are
                from .interop import converted_from

                what = f"column '{name}' holds decimals (dtype {data[name].dtype}); rlstats computes in floats: "
                cast = {"polars": f"df = df.with_columns(pl.col({name!r}).cast(pl.Float64))",  # the caller's library
                        # a Table's or a RecordBatch's, on every pyarrow allowed (s32: pyarrow 12's RecordBatch
                        # has neither column_names nor set_column)
                        "pyarrow": f"table = table.from_arrays([c.cast(pa.float64()) if n == {name!r} else c for n, "
                                   "c in zip(table.schema.names, table.columns)], names=table.schema.names)"
                        }.get(converted_from(data), f"df[{name!r}] = df[{name!r}].astype(float)")
                _fail(text, start, end, what + f"convert it first, e.g. {cast}",
                      command_line=what + "write the column as floats (double) in the file")
            if pd.api.types.is_complex_dtype(data[name].dtype):  # pd.to_numeric keeps them complex
                what = (f"column '{name}' holds complex numbers (dtype {data[name].dtype}); the response must be "
                        "real: ")
                _fail(text, start, end, what + f"keep the real part, df['{name}'] = np.real(df['{name}']), or the "
                                        f"magnitude, df['{name}'] = np.abs(df['{name}'])",
                      command_line=what + "write the column's real parts (or magnitudes) in the file")
            python, command_line = _not_numbers(data, name)
            what = f"column '{name}' has dtype {data[name].dtype}"
            _fail(text, start, end, what + python, command_line=what + command_line)
        way = ("; take its real part or magnitude, np.real(...) or np.abs(...)" if pd.api.types.is_complex_dtype(dtype)
               else "; make the expression numeric")
        _fail(text, start, end, f"response '{response}' gave dtype {dtype}, not numbers"
                                f"{_dtype_notes(parts, data)}{way}")
    if isinstance(raw, np.ndarray):
        return np.array(raw, dtype=np.float64)
    return np.array(raw.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)


def _input_missing(parts, data):
    """Rows where any data column the response reads is missing."""
    missing = np.zeros(len(data), dtype=bool)
    for name in parts.response_names:
        if name in data.columns:
            missing |= data[name].isna().to_numpy(dtype=bool)
    return missing


def _nonfinite_message(parts, values, bad, data):
    n_bad = int(bad.sum())
    kinds = {"NaN": np.isnan, "inf": np.isposinf, "-inf": np.isneginf}
    detail = ", ".join(f"{int(test(values[bad]).sum())} {kind}" for kind, test in kinds.items()
                       if test(values[bad]).any())
    rows = rows_named(data.index, np.flatnonzero(bad))
    found = f"{count(n_bad, 'non-finite value')} ({detail}; first rows: {rows})"
    if parts.simple:
        return (f"column '{parts.response_names[0]}' contains {found}; remove those rows, or pass "
                "na_action=\"drop\" to drop them (the result will say how many)")
    return (f"response '{parts.formula.response}' produced {found}; "
            "RL scores can be <= 0: consider log1p(), an offset, or normalising first")


class _FloatConstants(ast.NodeTransformer):
    """Numbers as floats: Python folds integer constants at compile time, and ``9**9**9**9`` never ends."""

    def visit_Constant(self, node):
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            value = float(node.value) if abs(node.value) < 2**1023 else float("inf")
            return ast.copy_location(ast.Constant(value), node)
        return node


def _check_restricted(formula, parts, columns=()):
    """A restricted response holds only names, numbers, arithmetic and calls of the R-style functions.

    Returns the code to evaluate, with every number a float (None where the text does not parse:
    the ordinary path reports that).
    """
    try:
        tree = ast.parse(parts.code.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    allowed = ", ".join(sorted(RESTRICTED_FUNCTIONS))
    for node in ast.walk(tree):
        bad = None
        if not isinstance(node, _RESTRICTED_NODES):
            bad = ("conditional expressions (a if c else b)" if isinstance(node, ast.IfExp)
                   else f"{type(node).__name__.lower()} expressions")
        elif isinstance(node, ast.Constant) and (isinstance(node.value, bool) or
                                                 not isinstance(node.value, (int, float))):
            bad = "constants other than numbers"
        elif isinstance(node, ast.Name) and node.id.startswith("__"):
            bad = f"the name {node.id}"
        elif isinstance(node, ast.Call) and (node.keywords or not isinstance(node.func, ast.Name)
                                             or node.func.id not in RESTRICTED_FUNCTIONS):
            bad = "calls of anything but " + allowed
        if bad:
            # a column named like code ("score.v2") is back-quoted, in single quotes, where a shell runs `...`
            way = _unquoted_column(formula, parts, columns, "'") or "; pass --allow-python to evaluate it as Python"
            raise FormulaError(_caret(formula.text, *parts.response_span,
                                      f"the command line evaluates column names, numbers, arithmetic (+ - * / // % "
                                      f"**) and {allowed} only, not {bad}{way}"))
    return compile(ast.fix_missing_locations(_FloatConstants().visit(tree)), "<response>", "eval")


def evaluate_response(formula: Formula, data: pd.DataFrame, eval_env: int | patsy.EvalEnvironment | None = 0, *,
                      on_nonfinite: str = "raise") -> Response:
    """Evaluate the response expression on the data, one float per row.

    Names resolve, in order, to data columns, R-style names (``log, log1p,
    log2, log10, exp, expm1, sqrt, abs, I, np, numpy``), then names where the
    formula was written (``eval_env``), as in R's formula environment.

    Parameters
    ----------
    formula : Formula
    data : pandas.DataFrame
        Not modified.
    eval_env : patsy.EvalEnvironment or int
        The caller's environment, or how many frames above the caller of this
        function to capture it (as in patsy).
    on_nonfinite : {"raise", "return"}
        What to do when the expression turns present input into NaN or inf
        ("return" leaves them in place and flags them in the result). Values
        missing because the input was missing are never an error here: the
        caller's missing-data policy decides.

    Returns
    -------
    Response
        ``values`` (float64, read-only), ``missing_in_input`` and
        ``produced_nonfinite`` (bool masks).

    Raises
    ------
    FormulaError
        Unknown names, an expression that fails or is not numeric or not one
        value per row, and (with "raise") non-finite values it produced.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"score": [1.0, 10.0, 100.0], "agent": ["a", "b", "c"]})
    >>> evaluate_response(parse("log10(score) ~ agent"), df).values
    array([0., 1., 2.])
    """
    check_choice("on_nonfinite", on_nonfinite, ("raise", "return"))
    if not isinstance(data, pd.DataFrame):
        raise DesignError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    parts: _Parts = _structure(formula.text)
    caller = capture_environment(eval_env, reference=1)
    restricted = isinstance(caller, RestrictedEnvironment)
    if restricted:
        code = _check_restricted(formula, parts, data.columns)
        env = patsy.EvalEnvironment([RESTRICTED_FUNCTIONS], 0)
    else:
        env = patsy.EvalEnvironment([_R_NAMES], caller.flags).with_outer_namespace(caller.namespace)
    _check_names(parts, list(data.columns), env.namespace, {"response"}, restricted)
    # non-finite values are checked below; numpy's warnings about them would only repeat it
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        try:
            if restricted:  # no builtins at all, on top of the node check
                names = dict(RESTRICTED_FUNCTIONS)
                names.update({key: _DataColumns(data, parts.lookups)[key] for key, _ in parts.lookups})
                code = code or compile(parts.code, "<response>", "eval")
                raw = eval(code, {"__builtins__": {}}, names)  # noqa: S307
            else:
                raw = env.eval(parts.code, source_name="<response>",
                               inner_namespace=_DataColumns(data, parts.lookups))
        except DesignError:
            raise
        except Exception as err:
            message = (f"evaluating the response '{formula.response}' failed with {type(err).__name__}: "
                       f"{err}{_dtype_notes(parts, data)}{_unquoted_column(formula, parts, data.columns)}")
            hint, command_line = _evaluation_hint(parts, data, err)
            raise FormulaError(_caret(formula.text, *parts.response_span, message + hint),
                               command_line=_caret(formula.text, *parts.response_span, message + command_line)
                               if command_line else None) from err
    values = _as_float(raw, parts, data)
    nonfinite = ~np.isfinite(values)
    missing = nonfinite & _input_missing(parts, data)
    produced = nonfinite & ~missing
    if on_nonfinite == "raise" and produced.any():
        _fail(formula.text, *parts.response_span, _nonfinite_message(parts, values, produced, data))
    for array in (values, missing, produced):
        array.flags.writeable = False
    return Response(values, missing, produced)
