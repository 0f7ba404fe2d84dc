"""The ``rlstats`` command (also ``python -m rlstats``).

``rlstats compare FILE FORMULA`` runs a back end on a CSV, TSV or Parquet file
and prints the result; ``rlstats demo`` simulates a benchmark, runs every
back end its data suit on it and writes the figures to a folder.  Bad input
prints one message and exits with status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import keyword
import os
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from ..errors import RlstatsError, RlstatsWarning
from ._shared import (ANY_VALUE, FORMATS, CommandParser, UsageError, add_cost_flags, as_shown, check_figure_path,
                      cost_options,
                      flag_table, held_labels, in_command_words, keyword_flag, keyword_names, make_output_folder,
                      name_columns, notes_beside_csv, parse_options, positional_call, read_table, reference_file,
                      refuse_unrecognized, render, report_drawn_seed, rows_in_file, said, save_plot, takers_said,
                      typed_words, value_refused, with_missing_text)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["main", "build_parser", "UsageError", "read_table", "parse_options", "render", "save_plot"]

def demo_runs(data: pd.DataFrame,
              learning_curves: pd.DataFrame) -> dict[str, tuple[pd.DataFrame, str, dict[str, Any]]]:
    """What the demo runs, from the back ends' declarations: method -> (frame, formula, options) of
    ``compare(frame, formula, method=method, **options)``; back ends that read learning curves get those."""
    from ..methods import DECLARATIONS, load

    runs = {}
    for name, declared in DECLARATIONS.items():
        if declared.demo is None:
            continue
        frame = learning_curves if declared.reads_curves else data
        formula, options = declared.demo
        runs[name] = (frame, formula, load(options)(frame) if isinstance(options, str) else dict(options))
    return runs


#: compare()'s arguments given as arguments, which -o cannot set (its flags' keywords are read off the parser)
_ARGUMENTS = {"data": "the FILE argument", "formula": "the FORMULA argument"}


def _reserved(args: argparse.Namespace) -> dict[str, str]:
    """compare()'s keywords -o cannot set: where each comes from instead (an argument, or the flag that sets it)."""
    return {**_ARGUMENTS, **args.flags}


def compare_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword options of ``compare`` from -o, --seed and --allow-python; a clear error for misuse."""
    from ..conditions import parse_condition
    from ..formula import RESTRICTED

    options = {**parse_options(args.option, _reserved(args)), **cost_options(args)}
    options = reference_file(options)
    if args.seed is not None:
        options["rng"] = args.seed
    if "subset" in options:  # parsed now, so that a bad condition is reported before the file is read
        options["subset"] = parse_condition(str(options["subset"]))
    if not args.allow_python:  # a response typed on the command line runs no code
        options["eval_env"] = RESTRICTED
    return options


def _compare_hints(args: argparse.Namespace) -> tuple[dict[str, str], set[str], dict[str, str]]:
    """(flags, -o names, calls) for :func:`in_command_words`: compare's own arguments, every back end's keywords, and
    the calls this command makes (rlstats.compare, and each back end's function by --method)."""
    from ..comparison import compare
    from ..methods import METHODS

    calls = {"compare": "", **{name: f"{args.flags['method']} {name}" for name in METHODS}}
    # summarize_runs()'s how= is --summarize here (its messages name how=)
    return {**_reserved(args), "how": args.summary_flags["how"]}, keyword_names(compare), calls


def _compare_spellings(args: argparse.Namespace) -> list[tuple[str, list[str], str | None]]:
    """(where, option names, what its n_resamples= counts) in the order compare() looks up another package's name of
    an option (R's conf.level): the method's (--method, else the formula's default), then compare()'s own; none where
    the method or formula is not one (their own errors say so when the command runs)."""
    from ..comparison import compare
    from ..methods import METHODS, backend
    from ..options import count_described, option_names

    method = _compare_method(args)
    if method is None:
        return []
    mine = ([(f"method={method!r}", option_names(backend(method)), count_described(backend(method)))]
            if method in METHODS else [])
    return [*mine, ("rlstats compare", option_names(compare), None)]


def _compare_method(args: argparse.Namespace) -> str | None:
    """The method compare runs: --method, else the formula's default (compare()'s DEFAULTS); None where the formula
    is not one (its own error says so when the command runs)."""
    from ..errors import RlstatsError
    from ..formula import parse
    from ..methods import DEFAULTS

    try:
        return args.method or DEFAULTS[parse(args.formula).blocks is not None]
    except RlstatsError:
        return None


def _compare_judge(args: argparse.Namespace) -> Callable[[str, str | None], str | None]:
    """The library's refusal of a value suggested for ``-o`` by the method that runs (:func:`value_refused`)."""
    method = _compare_method(args)
    return lambda name, typed: None if method is None else value_refused(method, name, typed)


def _compare_others(args: argparse.Namespace) -> dict[str, str | Callable[[str | None, Callable[[str], str]], str]]:
    """What an unknown flag spelled as one of compare's keywords says where this command line would refuse the
    option it names (:func:`refuse_unrecognized`; review s33b): an option only other methods take than the one that
    runs (--method, else the formula's default) names those methods that take the value typed (:func:`takers_said`);
    a summary option without the --summarize that reads it (:data:`rlstats.runs.SUMMARY_READERS`) is suggested with
    it. ``{spelled}``: the option as typed here."""
    from ..comparison import compare
    from ..methods import METHODS, backend
    from ..options import option_names
    from ..runs import SUMMARY_READERS

    said: dict[str, str | Callable[[str | None, Callable[[str], str]], str]] = {}
    method = _compare_method(args)
    if method is not None and method in METHODS:
        taken = {*option_names(backend(method)), *option_names(compare), *_reserved(args)}
        for name in sorted(keyword_names(compare) - taken):
            takers = [other for other in METHODS if name in option_names(backend(other))]
            if takers:
                said[name] = takers_said(args.flags["method"], method, name, takers, option_names(backend(method)))
    how = args.summary_flags["how"]
    for name in _SUMMARY_OPTIONS:
        reader = SUMMARY_READERS.get(name)
        if args.summarize is None or (reader is not None and args.summarize != reader):
            said[name] = f" (did you mean {how} {reader or 'HOW'} {{spelled}}?)"
    return said


#: what --summarize-option may set: summarize_runs()'s options other than the data, formula, step and how
_SUMMARY_OPTIONS = ("k", "threshold", "normalize_auc", "steps", "method")


def _summary_flags(args: argparse.Namespace) -> dict[str, str]:
    """Where summarize_runs()'s keywords come from on this command line, for its messages and notes."""
    return {**args.summary_flags, "eval_env": args.flags["eval_env"]}


def _notes_in_command_words(frame: pd.DataFrame, flags: dict[str, str], names: Iterable[object]) -> None:
    """The summary's notes, which every result built from ``frame`` prints, in this command's spelling: advice to
    ``pass steps=`` reads ``--summarize-option steps=`` (audit s23), as its errors do; the runs they name (the values
    of ``frame``'s columns ``names``) as written. ``frame`` is the command's own."""
    import dataclasses

    from ..provenance import provenance_of, set_notes

    provenance = provenance_of(frame)
    if provenance is not None:
        labels = held_labels(frame, names)
        set_notes(frame, [dataclasses.replace(note, text=in_command_words(note.text, flags, ("na_action",),
                                                                          labels=labels))
                          for note in provenance.notes], columns=provenance.columns)


def summarized(data: pd.DataFrame, args: argparse.Namespace, options: dict[str, Any]) -> tuple[pd.DataFrame, str]:
    """--summarize HOW: each run's rows (a learning curve) reduced to one by :func:`rlstats.summarize_runs`, whose
    notes every result built from the frame prints; and the formula that reads the summary column (named as the
    response where it is a column, 'value' where it is an expression). ``-o subset=`` (taken out of ``options``)
    selects rows of the file before the summary, so that it may name the step column."""
    from ..formula import parse
    from ..runs import summarize_runs

    given = parse_options(args.summarize_option, {}, flag="--summarize-option")
    unknown = sorted(set(given) - set(_SUMMARY_OPTIONS))
    if unknown:
        raise UsageError(f"--summarize-option {unknown[0]}=... is not an option of the summary; it takes "
                         f"{', '.join(_SUMMARY_OPTIONS)} (options of the method go with -o)")
    if args.method is not None:
        from ..methods import DECLARATIONS

        declared = DECLARATIONS.get(args.method)
        if declared is not None and declared.reads_curves:
            raise UsageError(f"--summarize reduces each run to one row, and --method {args.method} compares the runs "
                             "step by step: give one of them")
    formula = parse(args.formula)
    if "subset" in options:  # -o subset= selects rows of the file (steps among them), before the summary
        from ..design import subset_rows

        data = subset_rows(data, options.pop("subset"))
    step = args.step or "step"
    if step not in data.columns:  # named as the command sets it (audit s28: "step column 'stepz' not found in data")
        from ..format import name_list

        columns = f"its columns are: {name_list([str(c) for c in data.columns])}"
        where = "standard input" if args.file == "-" else args.file
        raise UsageError(f"--step {step} is not a column of {where}; {columns}" if args.step else
                         f"--summarize reads each row's training step from the column step, which {where} does not "
                         f"have; name the step column with --step ({columns})")
    keep = {"eval_env": options["eval_env"]} if "eval_env" in options else {}
    try:
        runs = summarize_runs(data, args.formula, step=step, how=args.summarize,
                              na_action=options.get("na_action", "raise"), **keep, **given)
    except RlstatsError as exc:  # its hints (k=10, threshold=) in this command's spelling
        message = rows_in_file(said(exc), args.file, args.sep)
        raise UsageError(in_command_words(message, _summary_flags(args), ("na_action",), labels=args.labels)) from exc
    names = {formula.groups, formula.blocks, formula.replicate, *formula.crossed, "censored"}
    _notes_in_command_words(runs, _summary_flags(args), names)
    column, = [c for c in runs.columns if c not in names]
    if column == formula.response:
        return runs, args.formula
    # the response was an expression, already applied to the curves: the summary column in its place
    text = args.formula.strip()
    rest = text[len(formula.response):] if text.startswith(formula.response) else "~" + text.split("~", 1)[1]
    name = column if column.isidentifier() and not keyword.iskeyword(column) else f"`{column}`"
    return runs, f"{name} {rest.strip()}"


def _check_file_before_formula(args: argparse.Namespace) -> None:
    """R's order, the formula first (which the Python functions take too), is an error naming the command's order:
    it read as a file named after the formula, "file not found: score ~ agent | task" (audit s23); said as the
    command with the options typed (audit s36 small36: they were dropped; :func:`_shared.positional_call`)."""
    file, formula = args.file, args.formula
    if "~" in file and "~" not in formula and file != "-" and not os.path.exists(file):
        parser = args.command_parser
        options = typed_words(parser, getattr(parser, "_typed", ()))[1]
        raise UsageError(f"{file!r} is a formula, and the file comes first on the command line: "
                         f"{positional_call(parser, ['file', 'formula'], {'file': formula, 'formula': file}, options)}")


def run_compare(args: argparse.Namespace, out: TextIO) -> int:
    from ..comparison import compare

    _check_file_before_formula(args)
    options = compare_options(args)
    if args.plot:
        check_figure_path(args.plot, inputs=[args.file])
    data = with_missing_text(read_table(args.file, sep=args.sep, names=name_columns(args.formula)), args.file,
                             args.sep, args.formula)
    args.labels = held_labels(data, name_columns(args.formula))  # the errors' and warnings' names as written
    formula = args.formula
    if args.summarize is not None:
        data, formula = summarized(data, args, options)
    elif args.summarize_option or args.step is not None:
        raise UsageError("--step and --summarize-option go with --summarize HOW (e.g. --summarize final)")
    result = compare(data, formula, method=args.method, **options)
    shown = as_shown(result, args.format, args.hints(args), args.labels)  # its notes spelled once, for both
    text = render(shown, args.format)
    if args.plot:  # before the text, so that a figure that fails leaves nothing half-said on stdout
        save_plot(result, args.plot)
    out.write(text)
    notes_beside_csv(shown, args.format)
    if args.plot:
        sys.stderr.write(f"figure written to {args.plot}\n")  # stdout stays parseable (--format json)
    report_drawn_seed(args.seed, result)
    return 0


def run_demo(args: argparse.Namespace, out: TextIO) -> int:
    import inspect

    from .. import datasets
    from ..comparison import compare
    from ..format import wrap_prose
    from ..methods import backend
    from ..resampling import check_rng

    check_rng(args.seed)  # a bad --seed is an error before the folder is made
    folder = make_output_folder(args.out, option="--out")
    data = datasets.simulate(agents=5, tasks=12, seeds=10, effect=[0.0, 0.2, 0.4, 0.9, 1.2], missing=0.05,
                             rng=args.seed)
    data.to_csv(folder / "demo_data.csv", index=False)
    out.write(wrap_prose(f"Simulated benchmark: 5 agents x 12 tasks x 10 seeds with a few missing cells "
                         f"(rlstats.datasets.simulate, rng={args.seed}); written to {folder / 'demo_data.csv'}") + "\n")
    learning_curves = datasets.simulate_curves(agents=3, tasks=6, seeds=5, steps=30, effect=0.3, rng=args.seed)
    learning_curves.to_csv(folder / "demo_curves.csv", index=False)
    out.write(wrap_prose(f"Simulated learning-curve runs: 3 agents x 6 tasks x 5 seeds x 30 steps "
                         f"(rlstats.datasets.simulate_curves, rng={args.seed}); written to "
                         f"{folder / 'demo_curves.csv'}") + "\n")
    for method, (frame, formula, options) in demo_runs(data, learning_curves).items():
        # The simulated tasks are on scales up to a hundredfold apart (as real benchmarks are): a back end that
        # aggregates over tasks would warn about raw scales, so the demo normalises where the back end can.
        if "normalize" in inspect.signature(backend(method)).parameters:
            options = {"normalize": "minmax", **options}
        result = compare(frame, formula, method=method, rng=args.seed, **options)
        source = "learning_curves" if frame is learning_curves else "data"
        # the header is the call made, every option with it, so that pasted into Python it prints the same
        call = ", ".join(f"{name}={value!r}" for name, value in {**options, "rng": args.seed}.items())
        out.write("\n" + wrap_prose(f"===== {method}: compare({source}, {formula!r}, method={method!r}, {call}) "
                                    "=====") + "\n")
        # prose wrapped for the terminal; in Python the report's paragraphs are unwrapped (for pasting into a paper)
        out.write(wrap_prose(str(result)))
        out.write("\n" + wrap_prose(result.report(format="text")) + "\n")
        figure_path = folder / f"{method}.png"
        save_plot(result, figure_path)
        out.write(f"figure: {figure_path}\n")
    from ..methods import DECLARATIONS

    for name, declared in DECLARATIONS.items():  # audit s18: left out without a word
        if declared.demo is None:
            out.write("\n" + wrap_prose(f"not run here: {name} ({declared.no_demo})") + "\n")
    out.write(f"\nAll figures are in {folder.resolve()}; in Python, result.summary() gives the full tables.\n")
    return 0


def _methods_epilog():
    from ..methods import DEFAULTS, METHODS

    # each example says which methods take it (normalize= is no option of the rank test); --help loads no back end
    return (f"methods: {', '.join(sorted(METHODS))} (default: {DEFAULTS[True]} with '| task', {DEFAULTS[False]} "
            f"without). Options of the method go with -o, e.g. -o pvalue=monte_carlo -o n_resamples=5000 "
            f"({DEFAULTS[True]}), -o normalize=atari100k_reference (with a --method that aggregates over tasks; "
            "a file of each task's random and human scores too, -o normalize=reference.csv; a method without it "
            "lists the options it has), -o \"subset=task != 'Pong' & seed < 5\" (any method). "
            "The response may use "
            "column names, numbers, arithmetic and log, log1p, sqrt, exp, I(); subset= comparisons of columns with "
            "numbers and strings, in [...] lists, &, |, ~ and parentheses; --allow-python evaluates the response as "
            "Python instead (subset= is never code).")


#: what `rlstats --help` and `rlstats compare --help` show to start from (tests/test_audit_s18_user18.py runs the
#: compare lines on a file of runs)
_COMPARE_EXAMPLES = ('rlstats compare runs.csv "score ~ agent | task"',
                     'rlstats compare runs.csv "score ~ agent | task" --format latex --plot cd.png',
                     'rlstats compare runs.csv "score ~ agent | task" -o pvalue=monte_carlo --seed 0 --format csv',
                     'rlstats compare steps.csv "score ~ agent | task/seed" --summarize final')


def _examples(*lines):
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def build_parser() -> argparse.ArgumentParser:
    from .._version import __version__

    raw = argparse.RawDescriptionHelpFormatter  # keeps the example lines
    # its commands' parsers are of its class: missing arguments said as typed (audit s35 small35)
    parser: argparse.ArgumentParser = CommandParser(
        prog="rlstats", description="R-style formula statistics for RL evaluation.", formatter_class=raw,
        epilog=_examples("rlstats demo", _COMPARE_EXAMPLES[1], "rlstats COMMAND --help   # its options and examples"))
    parser.add_argument("--version", action="version", version=f"rlstats {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    cmp = commands.add_parser("compare", help="compare agents in a file of runs (one row per run)",
                              epilog=textwrap.fill(_methods_epilog(), 78) + "\n\n" + _examples(*_COMPARE_EXAMPLES),
                              formatter_class=raw)
    cmp.add_argument("file", help="CSV, TSV or Parquet file in long format (-: standard input)")
    cmp.add_argument("formula", help="e.g. 'score ~ agent | task'")
    keyword_flag(cmp, "--method", default=None, help="back end (default: by the formula)")
    cmp.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    cmp.add_argument("--plot", default=None, metavar="PATH", help="also save the standard figure to PATH")
    keyword_flag(cmp, "--seed", keyword="rng", type=int, default=None,
                 help="seed of the random stream (rng=; default: drawn, and printed on stderr to repeat the run)")
    cmp.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE",
                     help="further option of the back end, e.g. -o pvalue=monte_carlo (repeatable)")
    cmp.add_argument("--sep", default=None, help="column separator of a text file (default: comma; tab for .tsv)")
    keyword_flag(cmp, "--allow-python", keyword="eval_env", sets=ANY_VALUE, action="store_true",
                 help="evaluate the response as Python (it can then run any code: only for formulas you trust; "
                      "-o subset= keeps its grammar)")
    keyword_flag(cmp, "--summarize", keyword="how", scope="summary", default=None, metavar="HOW",
                 choices=("final", "last_k_mean", "auc", "max", "time_to_threshold"),
                 help="a file of several rows per run, one per training step: reduce each run to one row "
                      "first, as rlstats.summarize_runs does: final, last_k_mean, auc, max or "
                      "time_to_threshold (stated in the notes)")
    keyword_flag(cmp, "--step", scope="summary", default=None, metavar="COLUMN",
                 help="with --summarize: the step column (default: step)")
    keyword_flag(cmp, "--summarize-option", keyword=_SUMMARY_OPTIONS, scope="summary", action="append", default=[],
                 metavar="NAME=VALUE",
                 help="with --summarize: an option of the summary, e.g. k=10 (last_k_mean), threshold=195 "
                      "(time_to_threshold), normalize_auc=True (repeatable)")
    add_cost_flags(cmp)
    cmp.set_defaults(run=run_compare, command_parser=cmp, hints=_compare_hints, spellings=_compare_spellings,
                     others=_compare_others, judge=_compare_judge,
                     flags=flag_table(cmp),
                     summary_flags=flag_table(cmp, scope="summary"))

    demo = commands.add_parser(
        "demo", help="simulate a benchmark and run the back ends on it (naming any its data do not suit)",
        description="Simulate a benchmark (5 agents, 12 tasks, 10 seeds, a few missing cells), run on it every "
                    "back end its data suit (and name the others), then compare 3 simulated agents step by step over training on 6 tasks; print "
                    "the results and write the data and figures to --out.")
    demo.add_argument("--out", default="rlstats-demo", help="folder for the data and figures (default: rlstats-demo)")
    keyword_flag(demo, "--seed", keyword="rng", type=int, default=0,
                 help="seed of the simulation and of the methods (default: 0)")
    # the demo prints the Python calls it makes, and its results' notes as Python spells them; its errors name --seed
    demo.set_defaults(run=run_demo, command_parser=demo, hints=lambda args: (flag_table(demo), set()))

    from .adastop import add_adastop_commands

    add_adastop_commands(commands)

    from .power import add_power_commands

    add_power_commands(commands)

    from .logs import add_read_logs_command

    add_read_logs_command(commands)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Entry point of the ``rlstats`` command; returns the exit status."""
    out = sys.stdout if out is None else out
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    hints = getattr(args, "hints", None)
    if extra:  # refused by the command that ran, which names itself and its options (and the names -o sets)
        spellings = getattr(args, "spellings", None)  # where another package's name is looked up first
        others = getattr(args, "others", None)  # the options named that this command line would then refuse
        judge = getattr(args, "judge", None)  # the library's refusal of a value suggested (audit s34)
        refuse_unrecognized(getattr(args, "command_parser", parser), extra, hints(args)[1] if hints else (),
                            spellings(args) if spellings else (), others(args) if others else {},
                            judge(args) if judge else None)

    def words(message):  # the library's hints (name=value) and rows (index labels) in the command line's terms
        message = rows_in_file(message, getattr(args, "file", None) or getattr(args, "pilot", None),
                               getattr(args, "sep", None))
        return message if hints is None else in_command_words(message, *hints(args),
                                                              labels=getattr(args, "labels", ()))

    def show_warning(message, category, filename, lineno, file=None, line=None):
        # another library's deprecation (pyparsing 3.3's of a name matplotlib 3.7 calls) is for that library's callers,
        # not a warning of this command's: not said as rlstats'
        if issubclass(category, DeprecationWarning) and not issubclass(category, RlstatsWarning):
            return
        sys.stderr.write(f"rlstats: warning: {words(said(message))}\n")  # one line, as errors are

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show_warning
            return args.run(args, out)
    except (RlstatsError, UsageError) as exc:
        message = words(said(exc)) if isinstance(exc, RlstatsError) else str(exc)
        sys.stderr.write(f"rlstats: error: {message}\n")
        return 2
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as other commands do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:  # Ctrl-C: one line, not the traceback of wherever it ran; 128 + SIGINT, as shells say
        sys.stderr.write("rlstats: interrupted\n")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
