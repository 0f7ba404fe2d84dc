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


def _parquet_magic(path):
    """Whether the file starts and ends with Parquet's 4-byte marker."""
    with open(path, "rb") as handle:
        head = handle.read(4)
        if handle.seek(0, 2) < 8:
            return False
        handle.seek(-4, 2)
        return head == b"PAR1" and handle.read(4) == b"PAR1"


def read_table(path, sep=None):
    """Read a CSV, TSV or Parquet file into a DataFrame, with errors that say what to do.

    ``sep`` overrides the separator (default: tab for .tsv/.tab, else comma). Floats are read
    exactly (:func:`rlstats.tables.read_csv`).
    """
    import pandas as pd

    from ..tables import read_csv

    path = Path(path)
    if not path.is_file():
        raise UsageError(f"file not found: {path}")
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        if not _parquet_magic(path):
            # Checked here, not left to pyarrow: pyarrow 12 can abort the interpreter at exit after that error.
            raise UsageError(f"{path} is not a readable Parquet file (it does not start and end with the "
                             "Parquet marker PAR1); write it with DataFrame.to_parquet, or save a CSV and give that")
        try:
            return pd.read_parquet(path)
        except ImportError as exc:
            raise UsageError(f"reading {path} needs pyarrow: pip install 'rlstats[parquet]' ({exc})") from None
        except Exception as exc:  # pyarrow's own error types
            raise UsageError(f"{path} is not a readable Parquet file ({type(exc).__name__}: "
                             f"{str(exc).splitlines()[0][:200]}); write it with DataFrame.to_parquet, or save a CSV "
                             "and give that") from None
    separator = sep if sep is not None else ("\t" if suffix in (".tsv", ".tab") else ",")
    try:
        frame = read_csv(path, sep=separator)
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text (byte {exc.object[exc.start:exc.start + 1]!r} at position "
                         f"{exc.start}); save it as UTF-8, e.g. iconv -f latin1 -t utf-8 {path.name} > utf8.csv") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise UsageError(f"cannot read {path} as a table separated by {separator!r}: {exc}") from None
    if frame.shape[1] == 1 and sep is None:
        header = str(frame.columns[0])
        other = next((c for c in (";", "\t", "|", ",") if c != separator and c in header), None)
        if other is not None:
            raise UsageError(f"{path} has one column {header!r} when read with {separator!r} as separator; it "
                             f"looks separated by {other!r}: pass --sep {other!r}")
    return frame


def check_figure_path(path):
    """An error before any work when a figure cannot be written to ``path``."""
    from matplotlib.figure import Figure

    path = Path(path)
    formats = Figure().canvas.get_supported_filetypes()
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in formats:
        raise UsageError(f"cannot save a figure as {path.name!r}: use one of the suffixes "
                         f"{', '.join('.' + f for f in sorted(formats))}")
    if not path.parent.resolve().is_dir():
        raise UsageError(f"folder {path.parent} does not exist; create it first, or give another --plot path")


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
