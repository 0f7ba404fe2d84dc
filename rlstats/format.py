"""Number and table formatting: the one place where digits are decided.

Results and tidy frames keep full precision; only output goes through here.
Numbers follow R's ``format(x, digits=)`` and ``format.pval`` so that printed
results look exactly like R's ``print.htest``.
"""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pandas as pd

from . import vocabulary
from .vocabulary import label

#: R's .Machine$double.eps: p-values below it print as "< 2.2e-16".
MACHINE_EPS = float(np.finfo(float).eps)


def _significant_digits_needed(x, digits):
    """How many significant digits (at most ``digits``) represent ``x`` exactly after rounding."""
    text = f"{abs(x):.{digits - 1}e}"
    mantissa = text.split("e")[0].replace(".", "").rstrip("0")
    return max(1, len(mantissa))


def signif(x, digits=5):
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
    mantissa, exponent = f"{x:.{nsig - 1}e}".split("e")
    exponent = int(exponent)
    sci = f"{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    decimals = max(0, nsig - 1 - exponent)
    fixed = f"{x:.{decimals}f}"
    return fixed if len(fixed) <= len(sci) else sci


def format_pvalue(p, digits=4):
    """Format a p-value as R's ``format.pval(p, digits=digits)``: ``"< 2.2e-16"`` below machine epsilon."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "NA"
    if p < MACHINE_EPS:
        return f"< {signif(MACHINE_EPS, 2)}"
    return signif(p, digits)


def pvalue_phrase(p, digits=4):
    """``"p-value = 0.06948"`` or ``"p-value < 2.2e-16"``, as in R's print.htest."""
    text = format_pvalue(p, digits)
    name = label("p_value")
    return f"{name} {text}" if text.startswith("<") else f"{name} = {text}"


def format_cell(value, digits=5):
    """Format one table cell: numbers with ``digits`` significant digits, everything else as text."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return signif(value, digits)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _formatted(frame, digits):
    """The frame as a list of header strings and rows of cell strings."""
    header = [str(c) for c in frame.columns]
    rows = [[format_cell(v, digits) for v in row] for row in frame.itertuples(index=False)]
    return header, rows


def _is_numeric(frame, j):
    return pd.api.types.is_numeric_dtype(frame.dtypes.iloc[j]) and not pd.api.types.is_bool_dtype(
        frame.dtypes.iloc[j]
    )


def table_text(frame, digits=5):
    """A plain-text table with right-aligned numeric columns."""
    header, rows = _formatted(frame, digits)
    widths = [max(len(h), *(len(r[j]) for r in rows)) if rows else len(h) for j, h in enumerate(header)]
    numeric = [_is_numeric(frame, j) for j in range(len(header))]

    def line(cells):
        return "  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)).rstrip()

    return "\n".join([line(header)] + [line(r) for r in rows])


def table_markdown(frame, digits=5):
    """A GitHub-flavoured Markdown table."""
    header, rows = _formatted(frame, digits)
    align = ["---:" if _is_numeric(frame, j) else ":---" for j in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(lines)


_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
                  "<": r"$<$", ">": r"$>$"}


def latex_escape(text):
    """Escape LaTeX special characters in ``text``."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


# Columns holding p-values: in a paper table they read "< 1e-16", never "0".
_PVALUE_COLUMN = re.compile(r"^p_(value|adjusted)(_\w+)?$|^pvalue")
# Tables wider than this many columns are scaled to the column width (needs graphicx).
WIDE_TABLE = 6


def paper_pvalue(p, digits=3):
    """A p-value for a paper: ``"< 1e-16"`` below 1e-16 (0 included), else ``digits`` significant digits."""
    if not isinstance(p, (int, float, np.integer, np.floating)) or isinstance(p, bool):
        return format_cell(p)  # a column that also holds words ("NA", a method name)
    if math.isnan(p):
        return ""
    return "< 1e-16" if p < 1e-16 else signif(p, digits)


def table_latex(frame, digits=5, caption=None, label=None, mc_se=False):
    """A booktabs LaTeX table (``\\toprule``, ``\\midrule``, ``\\bottomrule``) for a paper.

    Headers are the vocabulary's printed labels (``p_adjusted`` -> "adj. p-value"); p-values below
    1e-16 read "< 1e-16"; Monte Carlo standard-error columns are left out unless ``mc_se``; tables
    of more than :data:`WIDE_TABLE` columns are scaled to the column width (``\\resizebox``).
    """
    if not mc_se:
        frame = frame[[c for c in frame.columns if not str(c).endswith("mc_se")]]
    header, rows = _formatted(frame, digits)
    for j, column in enumerate(frame.columns):
        if _PVALUE_COLUMN.match(str(column)):
            for row, value in zip(rows, frame.iloc[:, j]):
                row[j] = paper_pvalue(value)
    header = [vocabulary.label(h) if h in vocabulary.VOCABULARY else h for h in header]
    spec = "".join("r" if _is_numeric(frame, j) else "l" for j in range(len(header)))
    body = [r"\begin{table}[ht]", r"\centering"]
    if caption:
        body.append(rf"\caption{{{latex_escape(caption)}}}")
    if label:
        body.append(rf"\label{{{label}}}")
    wide = len(header) > WIDE_TABLE
    if wide:
        body.append(r"\resizebox{\columnwidth}{!}{%")
    body += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(latex_escape(h) for h in header) + r" \\", r"\midrule"]
    body += [" & ".join(latex_escape(c) for c in r) + r" \\" for r in rows]
    body += [r"\bottomrule", r"\end{tabular}"] + (["}"] if wide else []) + [r"\end{table}"]
    return "\n".join(body)


def table_html(frame, digits=5):
    """A simple HTML table for notebooks."""
    header, rows = _formatted(frame, digits)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def format_step(value):
    """Steps as people write them, to 4 digits: 2000000 -> '2M', 517241 -> '517.2k', 12.5 -> '12.5'."""
    value = float(value)
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.4g}{suffix}"
    return f"{value:.4g}"


def count(n, word, plural=None):
    """``count(1, "task")`` -> "1 task", ``count(3, "task")`` -> "3 tasks": prose without "task(s)"."""
    n = int(n)
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def cannot_reject(test, smallest, level, where=None, level_name="alpha"):
    """The note of a test whose smallest attainable p-value is above its level: no data can make it reject.

    ``where`` says what limits it, with its preposition ("at 3 runs per agent", "with 9 permutations").

    >>> cannot_reject("permutation test", 0.1, 0.05, "at 3 runs per agent")
    'the permutation test cannot reject at 3 runs per agent: its smallest attainable p-value is 0.1, above alpha = 0.05'
    """
    at = f" {where}" if where else ""
    return (f"the {test} cannot reject{at}: its smallest attainable p-value is {signif(smallest, 3)}, above "
            f"{level_name} = {signif(level)}")


def returned_nan(statistic, where, consequence=None):
    """The note naming a user statistic that returned NaN, and where: a NaN result is never left unexplained.

    >>> returned_nan("metric 'spiky'", ["12 of 1,000 resamples of A"], "A's interval is NaN")
    "the metric 'spiky' returned NaN for 12 of 1,000 resamples of A: A's interval is NaN"
    """
    return f"the {statistic} returned NaN for {'; '.join(where)}" + (f": {consequence}" if consequence else "")
