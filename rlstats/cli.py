"""The ``rlstats`` command (also ``python -m rlstats``).

``rlstats compare FILE FORMULA`` runs a back end on a CSV, TSV or Parquet file
and prints the result; ``rlstats demo`` simulates a benchmark, runs every
available back end on it and writes the figures to a folder.  Bad input
prints one message and exits with status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

from .errors import RlstatsError

FORMATS = ("text", "summary", "markdown", "latex", "json")

def demo_runs(data):
    """What the demo runs: method -> options of compare(data, "score ~ agent | task", method=...).

    Aggregate metrics need every agent on every task, so those back ends drop
    the demo's missing cells (and say so).  The cherry-picking check reports
    the four tasks where the best agent beats the first one most -- exactly
    the selection it is meant to catch.
    """
    means = data.groupby(["task", "agent"], observed=True)["score"].mean().unstack()
    gap = (means["agent_5"] - means["agent_1"]).dropna().sort_values(ascending=False)
    return {
        "skillings_mack": {},
        "adastop": {"n": 5},
        "permutation": {"n_resamples": 2000},
        "bootstrap": {"n_resamples": 2000, "na_action": "drop"},
        "probability_of_improvement": {"n_resamples": 500, "na_action": "drop"},
        "performance_profile": {"n_resamples": 500, "na_action": "drop"},
        "percentiles": {"interval": "bootstrap", "n_resamples": 2000, "na_action": "drop"},
        "selection": {"treatment": "agent_5", "baseline": "agent_1", "reported": list(gap.index[:4]),
                      "na_action": "drop"},
    }


class UsageError(Exception):
    """A command-line problem: reported as one message with exit status 2."""


def read_table(path):
    """Read a CSV, TSV or Parquet file into a DataFrame, with clear errors."""
    import pandas as pd

    from .tables import read_csv

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


def run_compare(args, out):
    from .compare import compare

    data = read_table(args.file)
    options = dict(parse_option(o) for o in args.option)
    if args.seed is not None:
        options["rng"] = args.seed
    result = compare(data, args.formula, method=args.method, **options)
    out.write(render(result, args.format))
    if args.plot:
        save_plot(result, args.plot)
        out.write(f"figure written to {args.plot}\n")
    return 0


def run_demo(args, out):
    from . import datasets
    from .compare import METHODS, compare

    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    data = datasets.simulate(agents=5, tasks=12, seeds=10, effect=[0.0, 0.2, 0.4, 0.9, 1.2], missing=0.05,
                             rng=args.seed)
    data.to_csv(folder / "demo_data.csv", index=False)
    out.write(f"Simulated benchmark: 5 agents x 12 tasks x 10 seeds with a few missing cells "
              f"(rlstats.datasets.simulate, rng={args.seed}); written to {folder / 'demo_data.csv'}\n")
    formula = "score ~ agent | task"
    for method, options in demo_runs(data).items():
        if method not in METHODS:
            continue
        result = compare(data, formula, method=method, rng=args.seed, **options)
        out.write(f"\n===== {method}: compare(data, {formula!r}, method={method!r}) =====\n")
        out.write(str(result))
        out.write("\n" + result.report() + "\n")
        figure_path = folder / f"{method}.png"
        save_plot(result, figure_path)
        out.write(f"figure: {figure_path}\n")
    out.write(f"\nAll figures are in {folder.resolve()}; in Python, result.summary() gives the full tables.\n")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="rlstats", description="R-style formula statistics for RL evaluation.")
    commands = parser.add_subparsers(dest="command", required=True)

    cmp = commands.add_parser("compare", help="compare agents in a file of runs (one row per run)")
    cmp.add_argument("file", help="CSV, TSV or Parquet file in long format")
    cmp.add_argument("formula", help="e.g. 'score ~ agent | task'")
    cmp.add_argument("--method", default=None, help="back end (default: by the formula)")
    cmp.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    cmp.add_argument("--plot", default=None, metavar="PATH", help="also save the standard figure to PATH")
    cmp.add_argument("--seed", type=int, default=None, help="seed of the random stream (rng=)")
    cmp.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE",
                     help="further option of the back end, e.g. -o pvalue=monte_carlo (repeatable)")
    cmp.set_defaults(run=run_compare)

    demo = commands.add_parser("demo", help="simulate a benchmark and run every available back end on it")
    demo.add_argument("--out", default="rlstats-demo", help="folder for the data and figures (default: rlstats-demo)")
    demo.add_argument("--seed", type=int, default=0, help="seed of the simulation and of the methods (default: 0)")
    demo.set_defaults(run=run_demo)

    from .cli_adastop import add_adastop_commands

    add_adastop_commands(commands)

    from .cli_power import add_power_commands

    add_power_commands(commands)

    from .cli_logs import add_read_logs_command

    add_read_logs_command(commands)
    return parser


def main(argv=None, out=None):
    """Entry point of the ``rlstats`` command; returns the exit status."""
    out = sys.stdout if out is None else out
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args, out)
    except (RlstatsError, UsageError) as exc:
        sys.stderr.write(f"rlstats: error: {exc}\n")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
