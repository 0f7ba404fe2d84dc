"""Helpers every command of the ``rlstats`` program shares: reading a table, options, output, figures.

They live apart from :mod:`rlstats.cli` (which builds the parser from every
command module) so that the command modules can use them without importing
the package that imports them.
"""

from __future__ import annotations

import ast
from pathlib import Path


class UsageError(Exception):
    """A command-line problem: reported as one message with exit status 2."""


def read_table(path):
    """Read a CSV, TSV or Parquet file into a DataFrame, with clear errors."""
    import pandas as pd

    from ..tables import read_csv

    path = Path(path)
    if not path.is_file():
        raise UsageError(f"file not found: {path}")
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            try:
                return pd.read_parquet(path)
            except ImportError as exc:
                raise UsageError(f"reading {path} needs pyarrow: pip install 'rlstats[parquet]' ({exc})") from exc
        separator = "\t" if suffix in (".tsv", ".tab") else ","
        return read_csv(path, sep=separator)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc


def parse_option(text):
    """``"n_resamples=2000"`` -> ("n_resamples", 2000); values are Python literals or plain strings."""
    if "=" not in text:
        raise UsageError(f"option {text!r} must look like NAME=VALUE, e.g. pvalue=monte_carlo")
    name, value = text.split("=", 1)
    try:
        value = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        pass
    return name.strip().replace("-", "_"), value


def render(result, output_format):
    """The text the command prints for ``result`` in ``output_format``."""
    if output_format == "text":
        return str(result)
    if output_format == "summary":
        return str(result.summary())
    if output_format == "markdown":
        return result.to_markdown()
    if output_format == "latex":
        return result.to_latex()
    return result.to_json(indent=2) + "\n"


def save_plot(result, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = result.plot()
    figure = ax.figure if hasattr(ax, "figure") else ax
    figure.savefig(path, bbox_inches="tight", dpi=150)
    plt.close(figure)
