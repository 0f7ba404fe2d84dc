"""``rlstats power METHOD``: how many seeds do I need, from the shell.

Simulated benchmark data, or a pilot file of real runs resampled with a
shift added to one agent::

    rlstats power skillings_mack --effect 0.5 --seeds 3,5,10,20 --n-sim 1000 --jobs 2
    rlstats power skillings_mack,bootstrap --effect 0.5 --tasks 10 --plot power.png
    rlstats power adastop --pilot runs.csv --formula "score ~ agent" --seeds 10,20,30 -o K=5
    rlstats power skillings_mack --effect 0.5 --target-power 0.8      # sample-size search

Errors print one line and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from ..grammar import verb
from ._shared import ANY_VALUE, FORMATS, flag_table, help_description, help_examples, keyword_flag


def add_power_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register ``power`` on the ``rlstats`` command's subparsers."""
    power = subparsers.add_parser(
        "power", help="power (or sample size) of a method by simulation: how many seeds do I need?",
        description=help_description(__doc__), epilog=help_examples(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    from ..methods import POWER_METHODS  # the back ends that declare a power rule

    power.add_argument("method", help=f"{', '.join(POWER_METHODS[:-1])} or {POWER_METHODS[-1]}; several "
                                      "separated by commas run on the same simulated data")
    keyword_flag(power, "--pilot", keyword="design", default=None, metavar="FILE",
                 help="CSV/TSV/Parquet file of real runs to resample, - for standard input (default: "
                      "simulated data)")
    power.add_argument("--sep", default=None, help="column separator of a text pilot file (default: comma; tab "
                                                   "for .tsv)")
    keyword_flag(power, "--formula", default=None, help="the pilot's formula, e.g. 'score ~ agent | task'")
    keyword_flag(power, "--allow-python", keyword="eval_env", sets=ANY_VALUE, action="store_true",
                 help="evaluate the formula's response as Python (only for formulas you trust)")
    keyword_flag(power, "--seeds", default=None, metavar="S1,S2,...",
                 help="runs per agent and task to try (default 3,5,10,20; AdaStop: multiples of K)")
    keyword_flag(power, "--effect", type=float, default=0.0,
                 help="shift in within-cell standard deviations (default 0: the type-I error, or the "
                      "pilot's own differences); simulated agents are shifted evenly from 0 for the first to "
                      "EFFECT for the last, a pilot's --shifted-agent by EFFECT")
    keyword_flag(power, "--n-sim", type=int, default=1000,
                 help="simulated data sets per number of seeds (default 1000)")
    keyword_flag(power, "--jobs", keyword="n_jobs", type=int, default=1,
                 help="parallel workers (default 1; -1: all cores)")
    keyword_flag(power, "--backend", default=None,
                 help="joblib backend with --jobs, e.g. loky or threading (default: joblib's, loky; dask needs a "
                      "running Client, so use it from Python)")
    keyword_flag(power, "--alpha", type=float, default=0.05, help="level of the tests (default 0.05)")
    keyword_flag(power, "--tasks", default=None,
                 help="simulated: number of tasks (default 10); pilot: task names to keep, comma-separated "
                      "(a name with a comma in double quotes, as in a CSV row)")
    keyword_flag(power, "--agents", default=None,
                 help="simulated: number of agents (default 2); pilot: agent names to keep, comma-separated "
                      "(a name with a comma in double quotes, as in a CSV row: '\"R&D, Inc\",SPR')")
    # defaults None: a flag that does not apply (a simulation setting with --pilot, say) is an error, not ignored
    keyword_flag(power, "--distribution", default=None,
                 help="simulated score family: mixed (default), normal, lognormal, t, beta or mixture")
    keyword_flag(power, "--heterogeneity", type=float, default=None,
                 help="simulated spread of the tasks (default 1; 0: alike)")
    keyword_flag(power, "--resample", choices=("agents", "pooled"), default=None,
                 help="pilot: each agent from its own runs (default), or all agents from the task's pooled "
                      "runs")
    keyword_flag(power, "--shifted-agent", default=None, help="pilot: agent that gets the shift (default: the last)")
    keyword_flag(power, "--normalize", default=None, metavar="REFERENCE",
                 help="pilot: normalise its scores per task first, as rlstats.normalize does: a dataset name (e.g. "
                      "atari100k_reference), minmax, or a file of each task's random and human scores (default: "
                      "its raw scores)")
    keyword_flag(power, "--target-power", type=float, default=None,
                 help="search the fewest seeds from which the power reaches this instead (one method)")
    keyword_flag(power, "--max-seeds", type=int, default=None,
                 help="with --target-power: largest number of seeds the search tries (default 100)")
    keyword_flag(power, "--seed", keyword="rng", type=int, default=None,
                 help="seed of the random stream (rng=; default: drawn, and printed on stderr to repeat the run)")
    power.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    power.add_argument("--plot", default=None, metavar="PATH", help="also save power against seeds to PATH")
    power.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE",
                       help="option of the methods (each takes those it has), e.g. -o n_resamples=2000 or -o K=5 "
                            "(repeatable)")
    from ._shared import add_cost_flags

    add_cost_flags(power)
    power.set_defaults(run=run_power, command_parser=power, hints=_power_hints, spellings=_power_spellings,
                       others=_power_others, judge=_power_judge, flags=flag_table(power))
    return power


def _usage_error(message):
    from ._shared import UsageError

    return UsageError(message)


def _int_list(text, flag):
    parts = [part.strip() for part in text.split(",")]
    if not any(parts):
        raise _usage_error(f"{flag} is empty; give numbers separated by commas, e.g. 3,5,10")
    if not all(parts):  # 3,,5 or 3,5, is a typo (a number left out?), not a list of two
        place = parts.index("") + 1
        raise _usage_error(f"{flag} {text}: item {place} is empty; give numbers separated by single commas, "
                           "e.g. 3,5,10")
    try:
        return [int(part) for part in parts]
    except ValueError:
        raise _usage_error(f"{flag} takes whole numbers separated by commas, e.g. 3,5,10; got {text!r}") from None


def _count_or_names(text, flag, pilot=False):
    """'10' -> 10 (simulated); 'a,b' -> ['a', 'b'] (names); with a pilot always names ('2': the task named 2)."""
    if text is None:
        return None
    if text.strip().isdecimal() and not pilot:  # not isdigit: int() cannot read "²"
        return int(text)
    import csv

    # a row of a CSV file: a name with a comma in double quotes ('"R&D, Inc",SPR') is one name (audit s19)
    names = [part.strip() for part in next(csv.reader([text], skipinitialspace=True), [""])]
    if not any(names):
        raise _usage_error(f"{flag} is empty")
    if not all(names):  # a,,b or a,b, is a typo (a name left out?), as in --seeds
        raise _usage_error(f"{flag} {text}: item {names.index('') + 1} is empty; give a count or names separated by "
                           "single commas, e.g. 10 or Pong,Breakout")
    return names


def _methods(text):
    """The METHOD argument as a list of back-end names: an empty argument or item, a name that is not one or one given
    twice, is an error that speaks of the argument (audit s21: '' ended in an IndexError, 'a,,b' dropped its empty
    item silently, and power()'s own refusal said method='foo', or method=[...] of a name given twice)."""
    from ..methods import POWER_METHODS

    known = ", ".join(POWER_METHODS)
    parts = [part.strip() for part in text.split(",")]
    if not any(parts):
        raise _usage_error(f"METHOD is empty; name one of {known}, or several separated by commas")
    if not all(parts):
        raise _usage_error(f"METHOD {text!r}: item {parts.index('') + 1} is empty; give names separated by single "
                           f"commas, e.g. skillings_mack,bootstrap")
    unknown = next((part for part in parts if part not in POWER_METHODS), None)
    if unknown is not None:
        raise _usage_error(f"METHOD {unknown!r} is not one of the methods power can simulate: {known}")
    twice = next((part for i, part in enumerate(parts) if part in parts[:i]), None)
    if twice is not None:  # power()'s own refusal reads method=[...] (audit s21, review21b)
        raise _usage_error(f"METHOD {text!r} names {twice!r} twice; give each method once")
    return parts


def _reserved(args):
    """power()'s arguments that the command sets itself, which -o cannot set too: the METHOD argument, and the
    keywords its flags set (read off the parser)."""
    return {"method": "the METHOD argument", **args.flags}


def _power_hints(args):
    """(flags, -o names) for the library's hints in power's errors and notes: its flags, and power()'s and the
    methods' keywords but subset= (a back end's, curves', which power() refuses: a pilot is filtered first), with the
    options power() reads for a method itself (bootstrap's metric=; audit s34: --metric was said nothing of)."""
    from ..methods import POWER_METHODS
    from ..planning import options_taken, power, sample_size
    from ._shared import keyword_names

    read = {name for method in POWER_METHODS for name in options_taken(method)}
    return _reserved(args), (keyword_names(power, sample_size) | read) - {"subset"}


def _named_methods(args):
    """The methods the METHOD argument names that power can simulate, once each, in its order (its own errors say
    what is wrong with the others when the command runs)."""
    from ..methods import POWER_METHODS

    return [name for name in dict.fromkeys(part.strip() for part in args.method.split(",")) if name in POWER_METHODS]


def _power_judge(args):
    """The library's refusal of a value suggested for ``-o name=`` by a method the command simulates that takes
    ``name=`` (:func:`rlstats.cli._shared.value_refused`): each such method is given it (audit s34) as power() gives
    it, its rule's check first (audit s35 small35: bootstrap's metric=, which power() reads itself, went unchecked
    and ``--metric nonsense`` was told ``-o metric=nonsense``)."""
    import functools

    from ..planning import options_called, options_taken
    from ._shared import value_refused

    methods = _named_methods(args)

    def judge(name, typed):
        return next(filter(None, (value_refused(m, name, typed, functools.partial(options_called, m))
                                  for m in methods if name in options_taken(m))), None)

    return judge


def _power_others(args):
    """What an unknown flag spelled as a keyword -o sets on some power command says where this one would refuse it
    (:func:`rlstats.cli._shared.refuse_unrecognized`; audit s34: ``power bootstrap --adjust holm`` suggested ``-o
    adjust=holm``, which bootstrap refuses): an option of the other methods power simulates names those that take
    the value typed (:func:`rlstats.cli._shared.takers_said`), one of none says so; sample_size()'s own (min_seeds=) goes
    with --target-power, power()'s own without it."""
    from ..methods import POWER_METHODS
    from ..options import option_names
    from ..planning import PILOT_FIRST_OPTIONS, options_taken, power, sample_size
    from ._shared import takers_said

    methods = _named_methods(args)
    searched = args.target_power is not None
    own = option_names(sample_size if searched else power)
    if not methods:  # no method power simulates: what is wrong with METHOD, not an option it would then refuse
        try:
            _methods(args.method)
        except Exception as exc:  # the UsageError the command would raise
            return {name: f"; {exc}" for name in _power_hints(args)[1] - {*own, *_reserved(args)}}
        return {}
    taken = {*own, *_reserved(args), *(name for m in methods for name in options_taken(m))}
    said = {}
    named = ",".join(methods)
    for name in sorted(_power_hints(args)[1] - taken):
        if name in option_names(power if searched else sample_size):
            said[name] = (" (did you mean {spelled} without --target-power?)" if searched else
                          " (did you mean --target-power POWER {spelled}?)")
            continue
        if name in PILOT_FIRST_OPTIONS:  # normalize=: the library's way on, when the command runs
            continue
        takers = [m for m in POWER_METHODS if m not in methods and name in options_taken(m)]
        if takers:
            said[name] = takers_said("rlstats power", named, name, takers, [*own, *options_taken(methods[0])])
        else:
            said[name] = (f"; rlstats power {named} takes no {name}=, nor does any method rlstats power simulates "
                          f"({', '.join(POWER_METHODS)})")
    return said


def _power_spellings(args):
    """(where, option names, what its n_resamples= counts) in the order power() looks up another package's name of
    an option (R's conf.level, sig.level): each method's, then power()'s own (the command's METHOD names those it
    knows)."""
    from ..methods import POWER_METHODS, backend
    from ..options import count_described, option_names
    from ..planning import power

    methods = [name for name in dict.fromkeys(part.strip() for part in args.method.split(",")) if name in POWER_METHODS]
    reserved = set(_reserved(args))  # set by the command's flags (--alpha, --seed): power()'s, not the method's
    return [*((f"{name} in rlstats power", [option for option in option_names(backend(name)) if option not in reserved],
               count_described(backend(name))) for name in methods), ("rlstats power", option_names(power), None)]


def _arguments(args):
    from ._shared import cost_options, held_labels, name_columns, parse_options, read_table, with_missing_text

    methods = _methods(args.method)
    options = {**parse_options(args.option, _reserved(args)), **cost_options(args)}
    kwargs = dict(effect=args.effect, n_sim=args.n_sim, n_jobs=args.jobs, backend=args.backend, alpha=args.alpha,
                  tasks=_count_or_names(args.tasks, "--tasks", pilot=args.pilot is not None),
                  agents=_count_or_names(args.agents, "--agents", pilot=args.pilot is not None),
                  rng=args.seed, **options)
    if args.pilot is not None:
        if args.formula is None:
            raise _usage_error("--pilot needs --formula, e.g. --formula 'score ~ agent | task'")
        from ..formula import RESTRICTED

        given = [flag for flag, value in (("--distribution", args.distribution),
                                          ("--heterogeneity", args.heterogeneity)) if value is not None]
        if given:
            one = len(given) == 1
            raise _usage_error(f"{' and '.join(given)} {verb(len(given), 'describes')} simulated data; with --pilot "
                               f"the runs are resampled as they are: drop {'it' if one else 'them'}")
        pilot = read_table(args.pilot, sep=args.sep, names=name_columns(args.formula))
        args.labels = held_labels(pilot, name_columns(args.formula))  # the errors' and warnings' names as written
        if args.normalize is not None:
            pilot = _normalized(pilot, args)
        kwargs.update(design=with_missing_text(pilot, args.pilot, args.sep, args.formula), formula=args.formula,
                      resample=args.resample or "agents", shifted_agent=args.shifted_agent)
        if not args.allow_python:  # a formula typed on the command line runs no code
            kwargs["eval_env"] = RESTRICTED
    else:
        if args.formula is not None:
            raise _usage_error("--formula goes with --pilot FILE; simulated data use 'score ~ agent | task'")
        if args.sep is not None:
            raise _usage_error("--sep goes with --pilot FILE (the separator of its columns); simulated data need none")
        if args.normalize is not None:
            raise _usage_error("--normalize goes with --pilot FILE (its scores are normalised per task before its "
                               "runs are resampled); simulated tasks are drawn on scales of their own, alike with "
                               "--heterogeneity 0")
        given = [flag for flag, value in (("--resample", args.resample), ("--shifted-agent", args.shifted_agent))
                 if value is not None]
        if given:
            raise _usage_error(f"{' and '.join(given)} {verb(len(given), 'goes')} with --pilot FILE; "
                               "simulated data shift the agents by --effect (spread from 0 for the first agent to "
                               "it for the last)")
        kwargs.update(distribution=args.distribution or "mixed",
                      heterogeneity=1.0 if args.heterogeneity is None else args.heterogeneity)
    return methods, kwargs


def _normalized(pilot, args):
    """The pilot with its scores normalised per task by ``--normalize`` (:func:`rlstats.normalize`, whose note its
    results print): the command line's way to the normalised pilot Python's callers pass as design= (audit s34). A
    value with a table's suffix or a folder in it is a file of each task's reference scores."""
    from ..formula import parse
    from ..normalization import normalize
    from ._shared import UsageError, _reference_file, in_command_words, read_table, said

    parsed = parse(args.formula)
    columns = [column for column in dict.fromkeys(parsed.response_columns) if column in pilot.columns]
    if len(columns) != 1 or parsed.blocks is None:
        raise UsageError(f"--normalize needs a --formula whose response reads one column of the pilot and that names "
                         f"the task column after '|' (e.g. 'score ~ agent | task'), got {args.formula!r}")
    reference = args.normalize
    if _reference_file(reference):
        try:
            reference = read_table(reference, per="task",
                                   sep_way="save it separated by commas, or by tabs as a .tsv file")
        except UsageError as exc:
            raise UsageError(f"--normalize {args.normalize}: {exc}") from None
    from ..errors import RlstatsError

    try:
        return normalize(pilot, reference, by=parsed.blocks, score=columns[0])
    except RlstatsError as exc:  # said of --normalize: its value is the reference, its file's columns the bounds
        message = said(exc).replace(f"reference={args.normalize!r} ", f"--normalize {args.normalize} ", 1)
        if not message.startswith(f"--normalize {args.normalize}"):  # the reference's own refusal: said of the flag
            message = f"--normalize {args.normalize}: {message}"
        bounds = message.find("; name its bounds' columns with low= and high=")
        if bounds >= 0:
            message = (message[:bounds] + f"; give the file the columns {parsed.blocks}, random and human (each "
                       "task's scores mapped to 0 and 1)")
        raise UsageError(in_command_words(message, args.flags, ())) from None


def run_power(args: argparse.Namespace, out: TextIO) -> int:
    from ..planning import power, sample_size
    from ._shared import as_shown, check_figure_path, notes_beside_csv, render, report_drawn_seed, save_plot

    # Every mistake that can be seen before the simulations is reported before them, and nothing is
    # printed until the figure (if any) is written: an error never follows a printed result.
    if args.plot:
        check_figure_path(args.plot, inputs=() if args.pilot is None else (args.pilot,))
    if args.target_power is not None and args.seeds is not None:
        raise _usage_error("--target-power searches the number of seeds itself: drop --seeds "
                           "(use --max-seeds to bound the search)")
    if args.target_power is None and args.max_seeds is not None:
        raise _usage_error("--max-seeds bounds the search of --target-power; without it, give the numbers of seeds "
                           "to try with --seeds")
    seeds = None if args.seeds is None else _int_list(args.seeds, "--seeds")
    methods, kwargs = _arguments(args)
    if args.target_power is not None:
        if len(methods) != 1:
            raise _usage_error("--target-power searches one method at a time; name a single method")
        bound = {} if args.max_seeds is None else {"max_seeds": args.max_seeds}  # else sample_size()'s own default
        result = sample_size(methods[0], args.target_power, **bound, **kwargs)
    else:
        result = power(methods if len(methods) > 1 else methods[0], seeds=seeds, **kwargs)
    labels = getattr(args, "labels", ())  # a pilot's agent and task names with a '=', written as they are
    shown = as_shown(result, args.format, _power_hints(args), labels)  # its notes spelled once, for both
    text = render(shown, args.format)
    if args.plot:
        save_plot(result, args.plot)
        sys.stderr.write(f"figure written to {args.plot}\n")
    out.write(text)
    notes_beside_csv(shown, args.format)
    report_drawn_seed(args.seed, result)
    return 0
