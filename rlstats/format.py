"""Number and table formatting: the one place where digits are decided.

Results and tidy frames keep full precision; only output goes through here.
Numbers follow R's ``format(x, digits=)`` and ``format.pval`` so that printed
results look exactly like R's ``print.htest``.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Sequence
from typing import SupportsFloat

import numpy as np
import pandas as pd

from . import vocabulary
from .grammar import a_or_an, count, integer, ordinal, plural, singular, verb  # noqa: F401  (their home; said here too)
from .vocabulary import label

#: Significant digits of every printed number of a result, in its print, summary(), to_latex(), Markdown and HTML
#: alike (the defaults below): one home, so that no format shows a number the others round otherwise (audit s29
#: real29b, s30 mends30: rlstats.bayes printed -0.4557 above the LaTeX table's -0.45567)
DIGITS = 5

#: R's .Machine$double.eps: p-values below it print as "< 2.2e-16".
MACHINE_EPS = float(np.finfo(float).eps)


def _significant_digits_needed(x, digits):
    """How many significant digits (at most ``digits``) represent ``x`` exactly after rounding."""
    text = f"{abs(x):.{digits - 1}e}"
    mantissa = text.split("e")[0].replace(".", "").rstrip("0")
    return max(1, len(mantissa))


def signif(x: SupportsFloat | None, digits: int = DIGITS) -> str:
    """Format a number as R's ``format(x, digits=digits)`` does.

    The value is rounded to ``digits`` significant digits, trailing zeros are
    dropped, and fixed notation is used unless scientific notation is shorter
    (R's rule with ``scipen = 0``).

    Examples
    --------
    >>> signif(5.333333), signif(12.0), signif(0.0694835, 4), signif(1.738e-10, 4)
    ('5.3333', '12', '0.06948', '1.738e-10')
    """
    if x is None:
        return "NA"
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    if x == 0:
        return "0"
    nsig = _significant_digits_needed(x, digits)
    mantissa, exponent_text = f"{x:.{nsig - 1}e}".split("e")
    exponent = int(exponent_text)
    sci = f"{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    decimals = max(0, nsig - 1 - exponent)
    fixed = f"{x:.{decimals}f}"
    return fixed if len(fixed) <= len(sci) else sci


def as_fixed(text: str, value: SupportsFloat) -> str:
    """A number :func:`signif` printed in scientific notation, ``text``, of ``value`` written out in fixed notation,
    to the same significant digits, where every digit that writes is ``value``'s own: where its significant digits
    reach the units, or it is ``value`` rounded to an integer (the zeros :func:`signif` dropped: 1000000.04 at 8
    digits, "1e+06"; -500000 exactly); else, and any other text, as it is. For a column whose other numbers print
    fixed, so that it reads in one notation (audit s32: a task table's "-5e+05 ± 0" beside "382128 ± 126952"). Audit
    s35 fix35: a spread of 36,055,513 to 2 significant digits read "36000000" beside "125831", as exact as it; it
    reads "3.6e+07" again, as R's format prints it.

    >>> as_fixed("-5e+05", -500000), as_fixed("1.25e-05", 1.25e-05), as_fixed("382128", 382128.4)
    ('-500000', '0.0000125', '382128')
    >>> as_fixed("3.6e+07", 36055513), as_fixed("1e+06", 1000000.04), as_fixed("NaN", float("nan"))
    ('3.6e+07', '1000000', 'NaN')
    """
    mantissa, e, exponent = text.partition("e")
    if not e:
        return text
    places = sum(c.isdigit() for c in mantissa) - 1 - int(exponent)
    if places < 0 and float(text) != round(float(value)):  # integer digits rounded away: zeros would read as exact
        return text
    return f"{float(text):.{max(0, places)}f}"


def signif_apart(x: SupportsFloat, digits: int = DIGITS, marks: Iterable[float] = ()) -> str:
    """:func:`signif`, with more digits (up to 15) where ``x`` would read as one of ``marks``, a threshold it is
    judged against (alpha, a margin, a decision share), while it differs from it: 0.049996 against alpha = 0.05 reads
    "0.049996", not "0.05", which would put it on the threshold and leave its side to the reader (audit s22).

    >>> signif_apart(0.0499961, 4, [0.05]), signif_apart(0.05, 4, [0.05]), signif_apart(0.04, 4, [0.05])
    ('0.049996', '0.05', '0.04')
    """
    text = signif(x, digits)
    marks = [float(m) for m in marks]
    while digits < 15 and any(m != float(x) and signif(m, digits) == text for m in marks):
        digits += 1
        text = signif(x, digits)
    return text


def digits_apart(values: Iterable[SupportsFloat], least: int = 3) -> int:
    """The fewest significant digits, ``least`` or more, at which :func:`signif` prints the distinct finite
    ``values`` apart (17 at most, where every double reads apart): a hyperparameter's values as a label shows them,
    ``lr=1.87e-05`` rather than ``lr=1.873817422860383e-05`` (new-user trial s38). Not monotone in the digits (1.2349
    and 1.2351 read apart at 3 digits, alike at 4), so each count is tried from ``least`` up.

    >>> digits_apart([1.873817422860383e-05, 2.0092330025650458e-05]), digits_apart([0.12341, 0.12349])
    (3, 4)
    >>> digits_apart([0.1, 0.1, 0.2], least=1), digits_apart([])
    (1, 3)
    """
    distinct = np.unique(np.asarray(list(values), dtype=float))
    distinct = distinct[np.isfinite(distinct)].tolist()
    for digits in range(least, 17):
        # signif's rounding: the value to ``digits`` significant digits, as %e writes it (its text drops the zeros)
        if len({f"{x:.{digits - 1}e}" for x in distinct}) == len(distinct):
            return digits
    return 17


def natural_key(text: str) -> list[str | int]:
    """Sort key reading the digits in ``text`` as numbers: 'seed_2' before 'seed_10', '2' before '10'."""
    # isdecimal, not isdigit: '²' is a digit that int() cannot read
    return [int(part) if part.isdecimal() else part for part in re.split(r"(\d+)", text)]


def format_pvalue(p: float | None, digits: int = 4, alpha: Iterable[float] = ()) -> str:
    """Format a p-value as R's ``format.pval(p, digits=digits)``: ``"< 2.2e-16"`` below machine epsilon; with
    ``alpha=`` the levels it is judged at, never rounded onto one it differs from (:func:`signif_apart`)."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "NA"
    if p < MACHINE_EPS:
        return f"< {signif(MACHINE_EPS, 2)}"
    return signif_apart(p, digits, alpha)


def pvalue_phrase(p: float | None, digits: int = 4, alpha: Iterable[float] = ()) -> str:
    """``"p-value = 0.06948"`` or ``"p-value < 2.2e-16"``, as in R's print.htest (``alpha=``: see
    :func:`format_pvalue`)."""
    text = format_pvalue(p, digits, alpha)
    name = label("p_value")
    return f"{name} {text}" if text.startswith("<") else f"{name} = {text}"


def floor_clause(p: float | None, n_resamples: int | None, what: str = "permutations") -> str:
    """``", the smallest 10000 permutations can give (none reached the observed statistic)"``: said after a Monte
    Carlo p-value (1 + hits) / (B + 1) at its floor, hits = 0 (audit s35 claims35: "p-value = 9.999e-05" read as a
    measured value); empty otherwise."""
    if p is None or not n_resamples or not np.isfinite(p) or not math.isclose(p * (n_resamples + 1), 1.0,
                                                                                rel_tol=1e-9):
        return ""
    return f", the smallest {n_resamples} {what} can give (none reached the observed statistic)"


def format_cell(value: object, digits: int = DIGITS) -> str:
    """Format one table cell: numbers with ``digits`` significant digits, everything else as text."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if value is None or value is pd.NA or (isinstance(value, (float, np.floating)) and math.isnan(value)):
        # not given (a pair never compared, a withheld interval or mark), blank as its p-values are; pandas' NA of a
        # nullable column too, not "<NA>" (audit s27: the task table's withheld possibly_best and significant)
        return ""
    if isinstance(value, (float, np.floating)):
        return signif(value, digits)
    return str(value)


def _data_columns(frame):
    """The columns of a table that are the data's labels (agents), by ``attrs["rlstats_label_columns"]``: True, those
    after the first; a number n, those after the first n (0: every column; False or None, unlike 0: none). They are
    headed as they are in every
    format, so an agent named like a tidy column (simulate's agent_1) is not relabelled "1st agent" (audit s8,
    s27)."""
    leading = frame.attrs.get("rlstats_label_columns")
    if leading is None or leading is False:
        return set()
    return set(frame.columns[int(leading):])


#: The most significant digits a level is printed to below 10 ** MAX_DIGITS (a double holds 15 to 17)
MAX_DIGITS = 15
#: The digits that tell any two doubles apart (a double's round trip): levels from 10 ** MAX_DIGITS, whose integer
#: digits 15 would round away, print up to these; the digits past the 16th are the double's own (at 1e16 its step is
#: 2), and doubles that differ past these are one number
DOUBLE_DIGITS = 17

#: A table's columns that hold an interval, read apart in each row: an estimate and its bounds, pointwise and
#: simultaneous (the tidy names)
INTERVAL_COLUMNS = ("estimate", "conf_low", "conf_high", "conf_low_simultaneous", "conf_high_simultaneous")


#: values of a level this near, relative to the larger, are one number below 10 ** MAX_DIGITS: arithmetic's few ulps
#: (an IQM interval of constant runs, 0.3923076923076924 [...924, ...925]), which 15 digits cannot show alike (they
#: round to ...692 and ...693) and no score measures (audit s36 rv36c); from 10 ** MAX_DIGITS every digit a double
#: holds is printed (:data:`DOUBLE_DIGITS`), each ulp read back, so there none are one
SAME_RELATIVE = 1e-13


def _merged(block, digits, same=0.0):
    """How many of the distinct values of ``block``'s rows (each an interval: an estimate and its bounds, a mean and
    mean + SD) read as the next of its row at ``digits``: neighbours in a row's order, only those near enough to
    round alike (within 10 ** (their exponent - digits + 2)) printed to see, and not within ``same`` of the larger
    (relative: one number)."""
    rows = np.sort(block, axis=1)  # NaN last, and never a neighbour that differs (NaN > x is False)
    low, high = rows[:, :-1], rows[:, 1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        larger = np.maximum(np.abs(low), np.abs(high))
        size = np.floor(np.log10(larger))
        near = (high - low > same * larger) & (high - low < 10.0 ** (size - digits + 2))
    return sum(signif(a, digits) == signif(b, digits) for a, b in zip(low[near], high[near]))


def level_digits(values: object, digits: int = DIGITS) -> int:
    """Significant digits for levels on the score's scale (estimates, bounds, means) given together, ``values`` a
    2-D array (rows x columns, NaN for a value not given; a row an interval: an estimate and its bounds): ``digits``,
    but where ``digits`` round away integer digits (from 10 ** DIGITS: 1000015.133 at 5 reads "1e+06"; audit s35
    digits35) or read two values of a row that differ as one (an interval collapsed: 50000.015 [50000.01, 50000.022]
    at 5 reads "50000 50000 50000", 123.45678 +- 1e-5 "123.46"; at any magnitude, audit s36 digits36), the integer
    digits of the largest and enough that their smallest spread (down a column, or across a row: an interval's width)
    shows to 3 significant digits, and more where a row's values still read alike; at most :data:`MAX_DIGITS`, or
    :data:`DOUBLE_DIGITS` from 10 ** MAX_DIGITS (1e16 + 16 [1e16 + 14, 1e16 + 18] reads 10000000000000016
    [10000000000000014, 10000000000000018], every digit the doubles hold, not "1e+16" thrice); only where that changes
    a value as printed. Values a row's doubles differ in past those digits (0.1 + 0.2 beside 0.3) read alike, as
    before.

    >>> level_digits([[15.133, 9.749, 21.904]]), level_digits([[1000015.133, 1000009.749, 1000021.904]])
    (5, 8)
    >>> level_digits([[50000.015133, 50000.009749, 50000.021904]]), level_digits([[0.1 + 0.2, 0.3, 0.4]])
    (9, 5)
    """
    block = np.atleast_2d(np.asarray(values, dtype=float))
    block = np.where(np.isfinite(block), block, np.nan)
    finite = block[np.isfinite(block)]
    if not finite.size:
        return digits
    largest = np.abs(finite).max()
    most, same = (MAX_DIGITS, SAME_RELATIVE) if largest < 10.0 ** MAX_DIGITS else (DOUBLE_DIGITS, 0.0)
    apart = _merged(block, most, same)  # what even the most digits read alike: one number, as doubles go
    if largest < 10.0 ** DIGITS and _merged(block, digits, same) <= apart:
        return digits
    top = math.floor(math.log10(largest))
    frame = pd.DataFrame(block)
    spreads = np.concatenate([(frame.max() - frame.min()).to_numpy(),
                              (frame.max(axis=1) - frame.min(axis=1)).to_numpy()])
    spreads = spreads[np.isfinite(spreads) & (spreads > same * largest)]
    need = top + 1 if not spreads.size else max(top + 1, top - math.floor(math.log10(spreads.min())) + 3)
    wide = min(most, max(digits, need))
    while wide < most and _merged(block, wide, same) > apart:  # an estimate nearer a bound than the width's 3 digits
        wide += 1
    # values that ``digits`` print exactly (a count of 100000, a step 2000000) keep their print: nothing to lose
    return wide if any(float(signif(v, digits)) != float(signif(v, wide)) for v in finite) else digits


def digits_beside(value: SupportsFloat, spread: SupportsFloat, digits: int = DIGITS) -> int:
    """Significant digits of ``value`` printed beside its ``spread`` (a mean ± its runs' SD): ``digits`` where
    ``value`` is at least its spread, else ``digits`` less one for each power of ten (rounded up) in the unit-free
    ratio spread / |value|, at least 1. The count depends on that ratio alone, so it is the same in any unit of the
    score (review s37: scores x1, x2, x5, x10 read "0.061 ± 0.12", "0.122 ± 0.24", "0.306 ± 0.6", "0.61 ± 1.2"), and
    ``value`` is never written to a decimal place finer than a number of its spread's size at ``digits`` (new-user
    trial s37: a task table's mean of -8.02e-07 beside an SD of 0.0019 read "-0.000000802 ± 0.0019"), except that
    it keeps one significant digit where it lies more than ``10 ** (digits - 1)`` times below its spread
    ("-0.0000008 ± 0.0019"). The mirror of :func:`level_digits`, which widens a mean far above its spread.
    ``digits`` where either is 0 or not finite.

    >>> digits_beside(-8.02e-07, 0.0019, 3), digits_beside(0.0587, 0.32, 3), digits_beside(0.0668, 0.056, 3)
    (1, 2, 3)
    >>> digits_beside(0.0612, 0.12, 3), digits_beside(0.612, 1.2, 3), digits_beside(0.012345678, 1.0, 3)
    (2, 2, 1)
    >>> digits_beside(1000047, 9.4, 8), digits_beside(0.001, 0.0, 3)
    (8, 3)
    """
    value, spread = abs(float(value)), abs(float(spread))
    if not (math.isfinite(value) and math.isfinite(spread)) or value == 0 or spread == 0 or spread <= value:
        return digits
    # rounded up: the decimal places of ``value`` stop no finer than a number of the spread's size at ``digits``
    # (floor(log10 v) + ceil(log10 r) >= floor(log10 spread)); less 1e-9 that a ratio of exactly 10 ** k computed
    # through the doubles of a rescaled score (0.9999999999 x 100) counts k, not k + 1
    below = math.ceil(math.log10(spread / value) - 1e-9)
    return max(1, digits - max(0, below))


def table_digits(frame: pd.DataFrame) -> int:
    """The significant digits of the levels of ``frame``, a result's table, as it prints them (its interval's columns
    where it has them, not its statistics): what :func:`signif_levels` reads of its ``among=`` table, for prose that
    prints many rows of one table to read once (a tuning summary's lines read their table's digits at each number).
    """
    widths = _level_digits(frame, DIGITS)
    levels = [w for j, w in widths.items() if frame.columns[j] in INTERVAL_COLUMNS] or list(widths.values())
    return max(levels, default=DIGITS)


def signif_levels(values: object, digits: int = DIGITS, among: pd.DataFrame | int | None = None) -> list[str]:
    """:func:`signif` of each of ``values``, levels given together (an estimate and its bounds; a 2-D array for a
    table's rows, each an interval), at :func:`level_digits`, in fixed notation where those digits are wider than
    ``digits``. ``among``: the table of the same result these levels are printed in (its tidy frame), or its
    :func:`table_digits`, whose digits they take where that table's are wider than :data:`DIGITS` (prose beside a
    table: a number reads the same in a result's report as in its table, audit s36 digits36: 1000015.58 in the
    report beside 1000015.582); else they are never wider than :data:`DIGITS`, the table's, where ``digits`` is less.

    >>> signif_levels([15.133, 9.749, 21.904], 3), signif_levels([1000015.133, 1000009.749, 1000021.904], 3)
    (['15.1', '9.75', '21.9'], ['1000015.1', '1000009.7', '1000021.9'])
    """
    array = np.asarray(values, dtype=float)
    flat = array.ravel()
    wide = level_digits(flat[None, :] if array.ndim < 2 else array, digits)
    if among is not None:  # the table's levels (its interval's columns where it has them), not its statistics
        table = table_digits(among) if isinstance(among, pd.DataFrame) else among
        wide = table if table > DIGITS else min(wide, max(digits, DIGITS))
    return [as_fixed(signif(v, wide), v) if wide > digits else signif(v, wide) for v in flat]


def _items(frame, series=None):
    """``frame.items()``, or the column Series given (``series``: the frame's, in its columns' order, read once by a
    caller that reads them again)."""
    return frame.items() if series is None else zip(frame.columns, series)


def _rows(frame, series):
    """``frame.itertuples(index=False, name=None)`` of its columns' ``series``: the rows zipped (a row of no cells each
    where the frame has rows and no columns, as itertuples gives)."""
    return zip(*series) if series else [()] * len(frame)


def _level_digits(frame, digits, series=None):
    """{column position: significant digits} for the float columns (p-values aside) that :func:`level_digits` widens
    alone (their largest |value| reaches 10 ** DIGITS) and the interval's columns (:data:`INTERVAL_COLUMNS`) where
    it widens them: the interval's columns (the levels on the score's scale) printed together at their
    :func:`level_digits`, the other widened columns together at theirs (a statistic's digits are not the levels': a t
    of 6.3e8 beside means of 50000.00017 widened them to 16 digits, audit s36 rv36c); the other columns keep
    ``digits``."""
    # each float column once, rows x 1 (a summary reads its table's digits at each printed row: frame.dtypes and
    # frame.iloc per column cost it more than the printing)
    # na_value: a nullable column's NA is NaN (pandas before 2.1 raised on it without one)
    values = {j: series.to_numpy(dtype=float, na_value=np.nan)[:, None]
              for j, (column, series) in enumerate(_items(frame, series))
              if not _PVALUE_COLUMN.match(str(column)) and pd.api.types.is_float_dtype(series.dtype)}
    floats = list(values)

    def block(group):
        return np.hstack([values[j] for j in group])

    large = [j for j in floats if level_digits(values[j], digits) > digits]
    interval = [j for j in floats if frame.columns[j] in INTERVAL_COLUMNS]
    if len(interval) > 1 and level_digits(block(interval), digits) > digits:
        large = sorted(set(large) | set(interval))
    widths = {}
    for group in ([j for j in large if j in interval], [j for j in large if j not in interval]):
        if group:
            widths.update(dict.fromkeys(group, level_digits(block(group), digits)))
    return dict(sorted(widths.items()))


def _formatted(frame, digits, labels=False):
    """The frame as a list of header strings and rows of cell strings, p-values by :func:`paper_pvalue`.

    Every format (text, Markdown, LaTeX, HTML) renders these strings, so all show the same digits. Text, Markdown
    and HTML head a column by its code, or by its label where the vocabulary heads it so in every format
    (:func:`rlstats.vocabulary.header`: the pair's "1st agent" for agent_1, a code that reads as an agent
    simulate() names; audit s26 review26c, s27); with ``labels`` (a result's print, which says its columns in words)
    and in LaTeX (:func:`table_latex`) every column the vocabulary has is headed by its label.
    """
    data_columns = _data_columns(frame)
    columns = [str(c) for c in frame.columns]
    header = [str(c) if c in data_columns else
              vocabulary.label(c) if labels and c in vocabulary.VOCABULARY else vocabulary.header(c)
              for c in frame.columns]
    # each column's Series once (the rows are theirs zipped: itertuples' values, without its per-column iloc, which
    # cost more than the digits; session 40)
    series = [column for _, column in frame.items()]
    wider = _level_digits(frame, digits, series)
    rows = [[format_cell(v, wider.get(j, digits)) for j, v in enumerate(row)] for row in _rows(frame, series)]
    for j in wider:  # one notation down a column: 2000000 beside 1000015.1, not 2e+06 (where exact: as_fixed)
        for row, value in zip(rows, series[j]):
            row[j] = as_fixed(row[j], value)
    # the levels its result judges p-values at (Summary's alpha=): none is printed as one it differs from
    alpha = frame.attrs.get("rlstats_alpha", ())
    for j, column in enumerate(columns):
        if _PVALUE_COLUMN.match(column):
            for row, value in zip(rows, series[j]):
                row[j] = paper_pvalue(value, alpha=alpha)
    return header, rows


def _numeric_columns(frame):
    """Whether each column is numeric (not boolean): its cells right-aligned."""
    return [pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype) for dtype in frame.dtypes]


def table_text(frame: pd.DataFrame, digits: int = DIGITS, labels: bool = False) -> str:
    """A plain-text table with right-aligned numeric columns; ``labels``: headed by the vocabulary's labels, as a
    result's print says its columns (else by the codes of ``tidy()``, but for :func:`rlstats.vocabulary.header`'s)."""
    header, rows = _formatted(frame, digits, labels)
    widths = [max(len(h), *(len(r[j]) for r in rows)) if rows else len(h) for j, h in enumerate(header)]
    numeric = _numeric_columns(frame)

    def line(cells):
        return "  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)).rstrip()

    return "\n".join([line(header)] + [line(r) for r in rows])


#: What Markdown would read as markup inside a line: a backslash, code, emphasis and strike marks, links, tags, a table's
#: cell border, math (GitHub's, Jupyter's and pandoc's $: audit s36 paper36, DrQ($\epsilon$) set as DrQ(ε)), an
#: entity ("&amp;"), and an underscore that can open or close emphasis (one between two letters or digits cannot:
#: agent_1 stays as written)
_MARKDOWN_INLINE = re.compile(r"[\\`*\[\]<>~|$]|&(?=#?\w+;)|(?<![^\W_])_|_(?![^\W_])")
#: What opens a block at the start of a line (a heading, a list, a quote): escaped there
_MARKDOWN_BLOCK = re.compile(r"^(\s*)([#+\->=]|\d+(?=[.)]))")


def markdown_escape(text: object, start: bool = False) -> str:
    r"""``text`` as Markdown that renders as written: names such as ``*a*``, ``[e](f)`` or ``<d>`` print as they are,
    not as emphasis, a link or an HTML tag (audit s19); ``start``: the text opens a line (a note in a list), where
    ``#``, ``-``, ``+``, ``>`` or ``1.`` would open a block.

    >>> print(markdown_escape("*a* _b_ agent_1 R&D [e](f)"))
    \*a\* \_b\_ agent_1 R&D \[e\](f)
    """
    escaped = _MARKDOWN_INLINE.sub(lambda m: "\\" + m.group(), str(text))
    if not start:
        return escaped
    found = _MARKDOWN_BLOCK.match(escaped)
    if found is None:
        return escaped
    if found.group(2).isdigit():  # "1." opens a list; "1\." does not
        end = found.end()
        return escaped[:end] + "\\" + escaped[end:]
    return escaped[:found.start(2)] + "\\" + escaped[found.start(2):]


def markdown_code(text: str) -> str:
    """``text`` as a fenced code block, its fence longer than any run of backquotes in it (a name may hold ```)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def table_markdown(frame: pd.DataFrame, digits: int = DIGITS, markdown_cells: bool = False) -> str:
    """A GitHub-flavoured Markdown table whose names and values render as written (:func:`markdown_escape`);
    ``markdown_cells``: the cells after the first column are Markdown already (the task table's bold numbers)."""
    header, rows = _formatted(frame, digits)
    align = ["---:" if numeric else ":---" for numeric in _numeric_columns(frame)]
    lines = ["| " + " | ".join(markdown_escape(c) for c in header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(c if markdown_cells and j else markdown_escape(c) for j, c in enumerate(r)) + " |"
              for r in rows]
    return "\n".join(lines)


# <, > and | are letters of other glyphs in pdflatex's default font encoding (OT1: an em dash for |)
_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
                  "<": r"$<$", ">": r"$>$", "|": r"\textbar{}", "\u00b1": r"$\pm$", "\u2020": r"$^\dagger$",
                  "\u2021": r"$^\ddagger$",
                  "\u00d7": r"$\times$", "\u00b2": r"$^2$", "\u2212": "$-$", "\u2264": r"$\leq$", "\u2265": r"$\geq$",
                  "<=": r"$\leq$", ">=": r"$\geq$"}
# pdflatex sets " and ' as closing quotes wherever they stand: quotes opening a quotation (at the start, after a space,
# a bracket or "=", before a non-space: 'Pong', interval="percentile", "'x'") are written as LaTeX's opening ones, ``
# and `; every other " closes (''), and every other ' is already right (a closing quote or an apostrophe: agents',
# SPR's). A run of quotes is read whole, so that a quote next to a quote opens or closes with it ("IQM"'s: '' then ');
# a single and a double one side by side are kept apart by {} (``{}` is not `{}``).
# Two hyphens set as one en dash ("--seed" as "–seed", audit s25): touching a word they are hyphens, each apart
# (-{}-); between spaces they are a dash, as prose writes one ("significant -- selection bias suspected")
_LATEX_TOKEN = re.compile(r"""<=|>=|(?P<open>(?<![^\s(\[{=])['"]+(?=\S))|(?P<close>['"]+)|(?P<hyphens>--+)|.""",
                          re.S)
_LATEX_QUOTES = {("open", "'"): "`", ("open", '"'): "``", ("close", "'"): "'", ("close", '"'): "''"}
_SPACED = re.compile(r"(?:^|(?<=\s))--+(?=\s|$)")

# Greek letters (agent names such as DrQ(ε)): pdflatex has no text glyph for them, LaTeX's math has one for each,
# the capitals that look Latin being those letters
_GREEK_NAMES = ("alpha beta gamma delta varepsilon zeta eta theta iota kappa lambda mu nu xi o pi rho varsigma sigma "
                "tau upsilon varphi chi psi omega").split()
_GREEK_CAPITALS = "A B Gamma Delta E Z H Theta I K Lambda M N Xi O Pi P - Sigma T Upsilon Phi X Psi Omega".split()
_LATEX_SPECIAL.update({chr(0x3B1 + i): f"$\\{n}$" if len(n) > 1 else n for i, n in enumerate(_GREEK_NAMES)})
_LATEX_SPECIAL.update({chr(0x391 + i): (f"$\\{n}$" if len(n) > 1 else n) for i, n in enumerate(_GREEK_CAPITALS)
                       if n != "-"})  # U+03A2 is unassigned
#: a run of characters none of the tokens above reads otherwise (no special character, quote, hyphen, < or >) is one
#: token, which stands for itself: the pattern took each such character as a token of its own, the most of a LaTeX
#: table's time (session 40; the same text, every token above starting where a run stops)
_LATEX_PLAIN = "[^" + re.escape("".join(sorted({key[0] for key in _LATEX_SPECIAL} | set("'\"-")))) + "]+"
_LATEX_TOKEN = re.compile(_LATEX_TOKEN.pattern[:-1] + _LATEX_PLAIN + "|.", re.S)


def _latex_token(token: re.Match[str]) -> str:
    """One token of :data:`_LATEX_TOKEN` as LaTeX."""
    kind = token.lastgroup
    if kind in ("open", "close"):
        quotes = token.group()
        return "".join(("{}" if i and quotes[i - 1] != q else "") + _LATEX_QUOTES[kind, q]
                       for i, q in enumerate(quotes))
    if kind == "hyphens":
        return token.group() if _SPACED.match(token.string, token.start()) else "{}".join(token.group())
    return _LATEX_SPECIAL.get(token.group(), token.group())


#: A hyphen that is a number's sign (not after a letter, digit, point or underscore: "-0.37", "(-1.2", "[-3") or its
#: exponent's ("1e-05"): set as a minus, never as a hyphen, in LaTeX (audit s24 small24); "task-1", "3-10 runs",
#: "2024-01-05" and "c - 1" keep theirs
_SIGN = re.compile(r"(?<![\w.\-\u2212])-(?=\.?\d|inf\b|Inf\b)|(?<=\d[eE])-(?=\d)")


def minus_signs(text: str) -> str:
    """``text`` with the hyphens that are numbers' signs written as the minus sign U+2212 (:data:`_SIGN`).

    >>> minus_signs("-0.37 to 1e-05 (3-10 runs, task-1, c - 1, [-inf, -2])")
    '\u22120.37 to 1e\u221205 (3-10 runs, task-1, c - 1, [\u2212inf, \u22122])'
    """
    return _SIGN.sub("\u2212", text)


def latex_escape(text: object) -> str:
    r"""Escape LaTeX special characters in ``text`` (and write the symbols pdflatex has no glyph for as math); a
    number's sign is a minus in math, ``$-$``, not a hyphen (:func:`minus_signs`), and two math symbols side by side
    are kept apart by ``{}`` (``$\pm${}$-$``: ``$$`` would open display math). pdflatex sets a straight quote as
    a closing one wherever it stands: a quote opening a quotation is LaTeX's opening quote, a double one closing it
    two apostrophes; an apostrophe stays. Two hyphens touching a word (a command line's ``--seed``) are kept apart,
    ``-{}-``, as pdflatex would set them as an en dash; between spaces they stay a dash.

    >>> print(latex_escape("95% of agent_1 < 2 ± 1, p >= 0.05"))
    95\% of agent\_1 $<$ 2 $\pm$ 1, p $\geq$ 0.05
    >>> print(latex_escape("DrQ(ε) and Ω"))
    DrQ($\varepsilon$) and $\Omega$
    >>> print(latex_escape("-0.37 (3-10 runs), p < 1e-16, ±-1"))
    $-$0.37 (3-10 runs), p $<$ 1e$-$16, $\pm${}$-$1
    >>> print(latex_escape("-0.37 in [-1, 2E-05], p-value of Pong-v5"))
    $-$0.37 in [$-$1, 2E$-$05], p-value of Pong-v5
    >>> print(latex_escape("interval=\"percentile\" on 'Pong' (agents' runs, SPR's)"))
    interval=``percentile'' on `Pong' (agents' runs, SPR's)
    >>> print(latex_escape("the \"IQM\"'s 'x' -- rerun with --seed 3"))
    the ``IQM''{}'s `x' -- rerun with -{}-seed 3
    """
    escaped = "".join(_latex_token(token) for token in _LATEX_TOKEN.finditer(minus_signs(str(text))))
    return escaped.replace("$$", "${}$")  # two math symbols side by side kept apart


# Columns holding p-values: in every format they read "< 1e-16", never "0", with 3 significant digits.
_PVALUE_COLUMN = re.compile(r"^p_(value|adjusted|beyond|exclusion)(_\w+)?$|^pvalue")

#: Widths in TeX points that a LaTeX table is laid out for: one column of a two-column paper (the
#: ``\columnwidth`` of ``\documentclass[twocolumn]{article}``; ICML's is 234.8, IEEEtran's 252) and the
#: ``\textwidth`` that ``table*`` spans.
COLUMN_WIDTH = 229.5
TEXT_WIDTH = 469.0
_TABCOLSEP = 6.0  # LaTeX's default \tabcolsep, on each side of every column
#: Body rows per float: about what a page of a two-column paper holds under a caption (550 pt of text, 12 pt
#: a row); a longer table is split into floats of this many rows.
ROWS_PER_FLOAT = 30
#: The height a float may take (``\\textheight`` of ``\\documentclass[twocolumn]{article}`` at 10 pt), the height of a
#: line of caption or row (12 pt) and of a note (footnote size: 9.5 pt, its letters 0.8 as wide), and what a float
#: spends on its skips and rules besides: notes that would make a float taller than the page are set in floats of their
#: own after it, numbered as the same table (audit s36 paper36: the curves of SB3's logs, 11 notes under one column's
#: table, were "Float too large for page by 194pt", their last lines off the page)
PAGE_HEIGHT = 550.0
_LINE, _NOTE_LINE, _NOTE_SCALE, _FLOAT_SKIPS = 12.0, 9.5, 0.8, 40.0
# Character widths of Computer Modern at 10 pt (cmr10, measured with pdflatex, rounded to groups); anything
# else counts 5 pt, a space after a full stop, colon, ! or ? 1.1 pt more (TeX's end-of-sentence space), and
# bold text 13% more. Only used to guess a table's width before LaTeX lays it out.
_CMR10 = {2.78: "il!',.:;[]`|", 3.06: "fj", 3.33: "- ", 3.6: "_I", 3.9: "t()rs", 4.45: "cez?", 5.55: "bdhnpuSJ",
          6.5: "ZLFEP", 7.4: "BwCTRAHNUVXYDKOQ&+<=>@G\u00b1", 8.35: "m#%", 9.7: "MW", 4.2: "\u2020\u2021"}
_CHAR_WIDTH = {ch: width for width, chars in _CMR10.items() for ch in chars}
_SENTENCE_SPACE = re.compile(r"[.:!?] ")


def text_width(text: object, bold: bool = False) -> float:
    """Roughly how wide ``text`` (before LaTeX escaping) sets in 10 pt Computer Modern, in points.

    >>> round(text_width("agent_1"), 1), round(text_width("0.5"), 1)
    (32.5, 12.8)
    """
    text = str(text)
    width = (sum(_CHAR_WIDTH.get(ch, 5.0) for ch in text) + 1.1 * len(_SENTENCE_SPACE.findall(text))
             + (_CHAR_WIDTH["+"] - _CHAR_WIDTH["-"]) * len(_SIGN.findall(text)))  # a sign is set as a minus, as wide as +
    return width * (1.13 if bold else 1.0)


def tabular_width(columns: Iterable[Iterable[tuple[object, bool]]]) -> float:
    """Roughly how wide a tabular of these columns (each a list of ``(text, bold)`` cells) sets, in points."""
    return sum(max((text_width(t, b) for t, b in cells), default=0.0) + 2 * _TABCOLSEP for cells in columns)


# The guess of text_width is within 1% of the width pdflatex sets (tests/test_paper_output.py): a table is
# laid out as if that much wider.
_GUESS_ERROR = 1.01


def _fits(width):
    """0 when a table this wide fits a column, 1 when it fits the page (table*), 2 when nothing holds it."""
    width *= _GUESS_ERROR
    return 0 if width <= COLUMN_WIDTH else 1 if width <= TEXT_WIDTH else 2


def latex_float(spec: str, header: str, rows: Sequence[str], width: float, caption: str | None = None,
                label: str | None = None, environment: str | None = None, resize: bool | None = None,
                how_to_fit: str = "", notes: Sequence[str] = ()) -> str:
    """A booktabs tabular (``spec``, escaped ``header`` and body ``rows``) in a ``table`` that fits its column, or a
    ``table*``, saying which and why.

    The one home of the layout of every LaTeX table: ``environment=None`` takes ``table`` when the tabular
    (about ``width`` points wide) fits one column of a two-column paper (:data:`COLUMN_WIDTH`), else
    ``table*``, which spans both columns (in a one-column document it is a plain table). ``resize=True``
    shrinks the tabular to the float's width when it is wider (``\\resizebox``, graphicx, never enlarging);
    None does so only when nothing else holds it (wider than :data:`TEXT_WIDTH`). More than
    :data:`ROWS_PER_FLOAT` rows are split into floats of that many, numbered as one table. A first comment
    line names the packages the table needs, its estimated width and, when it is wider than a column, how to
    make it fit one (``how_to_fit`` adds the table's own ways). ``notes`` (plain text: what was dropped, changed
    or withheld, as the print gives them) are set under the tabular of the last float, one "Note:" paragraph each in
    footnote size, so a table pasted into a paper says what its rows are; those that would make it taller than the
    page (:data:`PAGE_HEIGHT`) go on in floats of notes after it, numbered as the same table.
    """
    if environment is None:
        environment = "table" if _fits(width) == 0 else "table*"
    room = COLUMN_WIDTH if environment == "table" else TEXT_WIDTH
    resize = _fits(width) == 2 if resize is None else resize
    packages = r"\usepackage{booktabs}" + (r" and \usepackage{graphicx}" if resize else "")
    comment = f"% rlstats: needs {packages}; about {width:.0f} pt wide"
    laid_out = width * _GUESS_ERROR  # what the choice and the shrink factors (rounded down) go by
    if _fits(width) == 0:
        comment += f", fits one column of a two-column paper ({COLUMN_WIDTH:g} pt)"
    else:
        comment += ((f", more than one column of a two-column paper ({COLUMN_WIDTH:g} pt)" if width > COLUMN_WIDTH
                     else f", so close to one column of a two-column paper ({COLUMN_WIDTH:g} pt) that the estimate's "
                          "1% error may not fit it")
                    + (", so table* spans both columns" if environment == "table*" else "")
                    + f"; to fit one column: environment='table', resize=True (shrinks it to "
                      f"{int(100 * COLUMN_WIDTH / laid_out)}%, graphicx)" + (f", or {how_to_fit}" if how_to_fit else ""))
    if resize and laid_out > room:
        comment += f"; shrunk to the {'column' if environment == 'table' else 'page'} ({int(100 * room / laid_out)}%)"
    parts: list[Sequence[str] | None] = [rows[i:i + ROWS_PER_FLOAT] for i in range(0, len(rows), ROWS_PER_FLOAT)]
    parts = parts or [[]]
    if len(parts) > 1:
        comment += (f"; {len(rows)} rows, more than a page holds, so split into {len(parts)} floats of at most "
                    f"{ROWS_PER_FLOAT} numbered as one table")
    # each note as set, a full stop at its end unless it has one (an ellipsis is kept: audit s36 paper36)
    said = [f"Note: {latex_escape(note)}" + ("" if note.endswith(".") else ".") + r"\par" for note in notes]
    groups = _note_groups(said, room, caption if len(parts) == 1 else None, len(parts[-1] or ()))
    if len(groups) > 1:
        comment += (f"; its notes are taller than a page beside it, so {len(groups) - 1} more "
                    f"{plural('float', len(groups) - 1)} after it {verb(len(groups) - 1, 'holds')} them, numbered "
                    "as the same table")
    parts += [None] * (len(groups) - 1)  # floats of notes alone
    lines = [comment]
    for i, part in enumerate(parts):
        lines += [rf"\begin{{{environment}}}[{'ht' if environment == 'table' else 't'}]", r"\centering"]
        if i:  # the continuation keeps the table's number
            lines += [r"\addtocounter{table}{-1}", rf"\caption{{(continued, part {i + 1} of {len(parts)})}}"]
        elif caption:
            lines.append(rf"\caption{{{caption}}}")
        if label and not i:
            lines.append(rf"\label{{{label}}}")
        if part is not None:
            if resize:  # \width is the tabular's natural width: shrink only, never enlarge
                lines.append(r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%")
            lines += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", header + r" \\", r"\midrule"]
            lines += [row + r" \\" for row in part]
            lines += [r"\bottomrule", r"\end{tabular}"] + (["}"] if resize else [])
        group = groups[i - (len(parts) - len(groups))] if i >= len(parts) - len(groups) else []
        if group:
            lines += ([r"\par\smallskip"] if part is not None else []) + [r"{\raggedright\footnotesize"]
            lines += group + ["}"]
        lines.append(rf"\end{{{environment}}}")
    return "\n".join(lines)


def _note_groups(notes: Sequence[str], room: float, caption: str | None, rows: int) -> list[list[str]]:
    """``notes`` (as set) in groups, each no taller than a float holds (:data:`PAGE_HEIGHT`): the first under a
    tabular of ``rows`` rows headed by ``caption`` (None: a one-line continuation's), each further one a float of
    its own under a one-line caption; ``[[]]`` for no notes."""
    def height(text: str, scale: float = 1.0) -> int:  # lines a paragraph takes across the float
        return max(1, math.ceil(scale * text_width(text) / room))

    groups: list[list[str]] = [[]]
    used = _FLOAT_SKIPS + _LINE * (height(caption) if caption else 1) + _LINE * (rows + 1)
    for note in notes:
        tall = _NOTE_LINE * height(note, _NOTE_SCALE)
        if used + tall > PAGE_HEIGHT and (groups[-1] or len(groups) == 1):  # under a tall tabular: all after it
            groups.append([])
            used = _FLOAT_SKIPS + _LINE
        groups[-1].append(note)
        used += tall
    return groups


def paper_pvalue(p: object, digits: int = 3, alpha: Iterable[float] = ()) -> str:
    """A p-value for a table: ``"< 1e-16"`` below 1e-16 (0 included), else ``digits`` significant digits, more where
    it would read as one of the levels ``alpha`` it differs from (:func:`signif_apart`)."""
    if not isinstance(p, (int, float, np.integer, np.floating)) or isinstance(p, bool):
        return format_cell(p)  # a column that also holds words ("NA", a method name)
    if math.isnan(p):
        return ""
    return "< 1e-16" if p < 1e-16 else signif_apart(p, digits, alpha)


def _width(header, rows):
    return tabular_width([[(h, False)] + [(r[j], False) for r in rows] for j, h in enumerate(header)])


def _constant_columns(frame, digits):
    """Names of the columns that print one value in every row (of a table of two rows or more).

    As printed at ``digits``, not bit for bit: values that differ in their last bits (sums taken in another order,
    which the rows' order sets) would otherwise move a column between the table and the caption.
    """
    if len(frame) < 2:
        return []
    rows = _formatted(frame, digits)[1]
    return [c for j, c in enumerate(frame.columns) if len({row[j] for row in rows}) == 1]


def table_latex(frame: pd.DataFrame, digits: int = DIGITS, caption: str | None = None, label: str | None = None,
                mc_se: bool = False, environment: str | None = None, resize: bool | None = None,
                notes: Sequence[str] = ()) -> str:
    """A booktabs LaTeX table (``\\toprule``, ``\\midrule``, ``\\bottomrule``) for a paper.

    Headers are the vocabulary's printed labels (``p_adjusted`` -> "adj. p-value"), the codes of a column such as
    ``metric`` their labels (``optimality_gap`` -> "optimality gap", :func:`rlstats.vocabulary.value_label`);
    p-values below 1e-16 read "< 1e-16"; Monte Carlo standard-error columns are left out unless ``mc_se``; a column
    holding one value in every row is stated once in the caption instead. A table wider than a column
    whose transpose fits one is transposed (one row per column, and the caption's "In every row" reads "In every
    column"), but for one pair's row (columns ``agent_1`` and ``agent_2``), which stays a row as several pairs' do;
    otherwise :func:`latex_float` picks
    ``table`` or ``table*`` (``environment``, ``resize``), with ``notes`` under it.
    """
    data_columns = _data_columns(frame)
    if not mc_se:
        frame = frame[[c for c in frame.columns if not str(c).endswith("mc_se")]]
    coded = [c for c in frame.columns if c in vocabulary.VALUE_LABELS and c not in data_columns]
    if coded:  # the words a paper reads, as prose and plots say: a metric's, a model's, a method's label, not its code
        frame = frame.assign(**{c: frame[c].map(lambda v, c=c: vocabulary.value_label(c, v)) for c in coded})
    names = {c: vocabulary.label(c) if c in vocabulary.VOCABULARY and c not in data_columns else str(c)
             for c in frame.columns}
    constant = _constant_columns(frame, digits)
    if constant and len(constant) < len(frame.columns):
        # columns missing in every row (withheld intervals, say) are named together, not each read "NaN"
        missing = [c for c in constant if pd.isna(frame[c].iloc[0])]
        first = dict(zip(frame.columns, _formatted(frame, digits)[1][0]))  # at the table's digits for the column
        fixed = [f"{names[c]}: {first[c] or 'NA'}" for c in constant if c not in missing]
        fixed += [f"{join_and(names[c] for c in missing)}: not given" + (" (see the notes)" if notes else "")
                  ] if missing else []
        frame = frame.drop(columns=constant)
    else:
        fixed = []
    header, rows = _formatted(frame, digits)
    header = [names[c] for c in frame.columns]
    numeric = _numeric_columns(frame)
    width, transposed = _width(header, rows), False
    # one pair's row stays a row, as several pairs' do: transposed, its header would read "1st agent & DrQ(eps)", one
    # agent of the pair heading the pair's numbers, the other a row beneath them (audit s38 fixc38)
    one_pair = len(rows) == 1 and {"agent_1", "agent_2"} <= set(frame.columns)
    if environment is None and 0 < len(rows) < len(header) and not one_pair:
        # A short, wide table (a few rows of many columns) reads as well one row per column, named by the
        # first column's values: transposed when that fits where the table does not.
        flipped = [header[0]] + [r[0] for r in rows], [[h] + [r[j] for r in rows] for j, h in enumerate(header)][1:]
        if _fits(_width(*flipped)) < _fits(width):
            (header, rows), width, transposed = flipped, _width(*flipped), True
            numeric = [False] + [True] * (len(header) - 1)
    if fixed:  # what the data's rows share: the printed table's columns when it is transposed
        caption = ((f"{caption} " if caption else "") + ("In every column, " if transposed else "In every row, ")
                   + "; ".join(fixed) + ".")
    spec = "".join("r" if num else "l" for num in numeric)
    return latex_float(spec, " & ".join(latex_escape(h) for h in header),
                       [" & ".join(latex_escape(c) for c in r) for r in rows], width,
                       caption=latex_escape(caption) if caption else None, label=label, environment=environment,
                       resize=resize, notes=notes)


def table_html(frame: pd.DataFrame, digits: int = DIGITS) -> str:
    """A simple HTML table for notebooks."""
    header, rows = _formatted(frame, digits)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def format_step(value: SupportsFloat) -> str:
    """Steps as people write them, to 4 digits: 2000000 -> '2M', 517241 -> '517.2k', 12.5 -> '12.5'."""
    value = float(value)
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.4g}{suffix}"
    return f"{value:.4g}"


def short_seed(seed: object) -> str:
    """A seed as printed: as given up to 20 digits (any seed a person types), else its first 8 digits and "...".

    With ``rng=None`` NumPy draws a 128-bit seed (39 digits); the result keeps all of it in ``seed`` and
    ``to_dict()``, and the printed prefix is enough to tell runs apart. A list (several results) prints each.

    >>> short_seed(42), short_seed(83347948792856298933354720534609293813), short_seed("SeedSequence")
    ('42', '83347948...', 'SeedSequence')
    """
    if isinstance(seed, (list, tuple)):
        return ", ".join(dict.fromkeys(short_seed(s) for s in seed))
    text = str(seed)
    return f"{text[:8]}..." if text.isdigit() and len(text) > 20 else text


def listed(items: Iterable[object], limit: int | None = None) -> str:
    """Items as a comma list, for parentheses and messages; past ``limit`` items, the rest counted.

    >>> listed(["A", "B", "C"]), listed(["A", "B", "C"], limit=2), listed(range(1203), limit=1)
    ('A, B, C', 'A, B and 1 more', '0 and 1,202 more')
    """
    text = [str(item) for item in items]
    if limit is not None and len(text) > limit:
        return ", ".join(text[:limit]) + f" and {len(text) - limit:,} more"
    return ", ".join(text)


def names_shown(items: Iterable[object], among: Iterable[object] | None = None) -> list[str]:
    """Each name as a list of names shows it: every one quoted where one of ``among`` (default ``items``) holds a
    comma, as "'R&D, Inc', 'SPR'" would read as three names bare (audit s19), or is empty or begins or ends with
    whitespace, which a bare name hides ("pong " beside "Pong", audit s31 trialfix31); for :func:`listed`,
    :func:`join_and` and lists whose names carry a value.

    >>> names_shown(["a", "b"]), names_shown(["SPR"], among=["R&D, Inc", "SPR"]), names_shown(["Pong", "pong "])
    (['a', 'b'], ["'SPR'"], ["'Pong'", "'pong '"])
    """
    text = [str(item) for item in items]
    quoted = any("," in str(t) or str(t) != str(t).strip() or not str(t) for t in (text if among is None else among))
    return [repr(t) for t in text] if quoted else text


def difference_label(first: object, second: object) -> str:
    """The label of a difference of two agents, "first - second": the one home of contrast labels. A name holding the
    separator " - " is parenthesised, as emmeans does, so the label reads one way (new-user trial s37: an agent
    "CURL - v2" printed "CURL - v2 - DER").

    >>> difference_label("SPR", "DER"), difference_label("CURL - v2", "DER")
    ('SPR - DER', '(CURL - v2) - DER')
    """
    return " - ".join(f"({name})" if " - " in str(name) else str(name) for name in (first, second))


def name_list(items: Iterable[object], after: Iterable[object] | None = None,
              among: Iterable[object] | None = None) -> str:
    """Names as a comma list (:func:`names_shown`); ``after``: a value said after each name ("a 3, b 5"); ``among``:
    the names whose commas decide (default ``items``), so that every list of one message is written alike.

    >>> name_list(["a", "b"]), name_list(["R&D, Inc", "SPR"], after=[3, 5])
    ('a, b', "'R&D, Inc' 3, 'SPR' 5")
    """
    shown = names_shown(items, among)
    return ", ".join(shown if after is None else [f"{name} {value}" for name, value in zip(shown, after)])


def over_tasks(tasks: Sequence[object], several: str | None = None, word: str = "task") -> str:
    """``several`` (default "averaged over tasks") where there are several tasks, "on the one task, X" where there is
    one: a quantity averaged over tasks is, on one task, that task's alone (audit s19: probability of improvement and
    performance profiles said "averaged over tasks" of one). ``word``: the blocks as the data call them, the
    formula's block column (``Formula.block_word``; audit s32 block32: "averaged over envs", "on the one env, g0").

    >>> over_tasks(["Pong", "Breakout"]), over_tasks(["Pong"]), over_tasks(["(all runs)"])
    ('averaged over tasks', 'on the one task, Pong', 'over all runs, no task named')
    """
    if len(tasks) != 1:
        return f"averaged over {plural(word)}" if several is None else several
    # without a task column the one "task" is a placeholder, not a name (audit s19: "on the one task, (all runs)")
    return "over all runs, no task named" if tasks[0] == vocabulary.ALL_RUNS else \
        f"on the one {word}, {name_list(tasks)}"


#: A plain lowercase word opening a text: one that a sentence capitalises (not ``expected_max()``, ``pvalue=``).
_PLAIN_WORD = re.compile(r"[a-z]+(?![\w(=\[])")


def sentence_start(text: str, names: Iterable[str] = ()) -> str:
    """``text`` with a capital first letter when it opens with a plain word; code stays as it is written, and so does
    a data column's name (one of ``names``) opening it as a label, ``r: ...`` (audit s36 paper36: SB3's return column
    'r' read "R: the value at each run's last logged step").

    >>> sentence_start("the unit is the run"), sentence_start("expected_max(): ..."), sentence_start("'score' ...")
    ('The unit is the run', 'expected_max(): ...', "'score' ...")
    >>> sentence_start("r: the value at each run's last step", names=("r", "agent"))
    "r: the value at each run's last step"
    """
    if any(text.startswith(f"{name}:") for name in names):
        return text
    return text[0].upper() + text[1:] if _PLAIN_WORD.match(text) else text


def join_and(names: Iterable[object], limit: int | None = None, conjunction: str = "and") -> str:
    """Names as prose: "A", "A and B", "A, B and C" (``conjunction`` "or": "A, B or C"); past ``limit`` names, the
    rest counted (:func:`listed`).

    >>> join_and(["A", "B", "C"]), join_and(["A", "B", "C"], limit=2)
    ('A, B and C', 'A, B and 1 more')
    """
    text = [str(name) for name in names]
    if limit is not None and len(text) > limit:
        return listed(text, limit)
    return f" {conjunction} ".join(filter(None, (", ".join(text[:-1]), text[-1] if text else "")))


def by_value(values: Iterable[int], names: Iterable[object]) -> str:
    """Each value with the names that have it, values ascending: what a number differing by agent is for each.

    >>> by_value([3, 10, 10], ["A", "B", "C"])
    '3 for A, 10 for B and C'
    """
    pairs = list(zip(values, names))
    return ", ".join(f"{v} for {join_and(n for w, n in pairs if w == v)}" for v in sorted(set(v for v, _ in pairs)))


def cannot_reject(test: str, smallest: float, level: float, where: str | None = None,
                  level_name: str = "alpha") -> str:
    """The note of a test whose smallest attainable p-value is above its level: no data can make it reject.

    ``where`` says what limits it, with its preposition ("at 3 runs per agent", "with 9 permutations").

    >>> cannot_reject("permutation test", 0.1, 0.05, "at 3 runs per agent")
    'the permutation test cannot reject at 3 runs per agent: its smallest attainable p-value is 0.1, above alpha = 0.05'
    """
    at = f" {where}" if where else ""
    return (f"the {test} cannot reject{at}: its smallest attainable p-value is {signif(smallest, 3)}, above "
            f"{level_name} = {signif(level)}")


def returned_nan(statistic: str, where: Iterable[str], consequence: str | None = None) -> str:
    """The note naming a user statistic that returned NaN, and where: a NaN result is never left unexplained.

    >>> returned_nan("metric 'spiky'", ["12 of 1,000 resamples of A"], "A's interval is NaN")
    "the metric 'spiky' returned NaN for 12 of 1,000 resamples of A: A's interval is NaN"
    """
    return f"the {statistic} returned NaN for {'; '.join(where)}" + (f": {consequence}" if consequence else "")


def wrap_prose(text: str, width: int = 100) -> str:
    """``text`` with every prose line longer than ``width`` wrapped, for a terminal; other lines as they are.

    A line is prose when, after its indentation, no two spaces follow each other (the columns of a text
    table are aligned with runs of spaces, and wrapping them would break the table). Continuation lines
    take the line's indentation plus two spaces; words are never split, so a single word longer than
    ``width`` stays whole.

    >>> print(wrap_prose("Note: " + "word " * 8 + "end", width=24))
    Note: word word word
      word word word word
      word end
    >>> wrap_prose("  task_01  agent_1  " + "x" * 30, width=24) == "  task_01  agent_1  " + "x" * 30
    True
    """
    import textwrap

    out = []
    for line in text.split("\n"):
        body = line.lstrip(" \t")
        indent = line[:len(line) - len(body)]
        if len(line) <= width or "  " in body.rstrip():
            out.append(line)
            continue
        out.append(textwrap.fill(body, width=width, initial_indent=indent, subsequent_indent=indent + "  ",
                                 break_long_words=False, break_on_hyphens=False))
    return "\n".join(out)
