"""``rlstats adastop update|status|plot``: run AdaStop from the shell while experiments run.

The workflow of the reference tool (one CSV per batch, a state kept between
calls), with the state in a JSON file the user names::

    rlstats adastop update state.json batch1.csv --n 5 --K 6 --seed 0   # creates the state
    rlstats adastop update state.json batch2.csv                         # only the agents asked for
    rlstats adastop update state.json batch1.csv --key-file adastop.key  # after: head -c 32 /dev/urandom > adastop.key; chmod 600 adastop.key
    rlstats adastop status state.json
    rlstats adastop plot state.json decisions.png

A batch file is either long (columns ``agent`` and ``score``) or wide (one
column per agent, one row per run, as the reference tool writes them; an
index column, unnamed or named ``index``, ``seed`` or ``run``, is not an
agent, and a ``task`` or ``batch`` column must hold one value); ``-``
reads it (or, for ``status`` and ``plot``, the state) from standard input.
An update waits for another update of the same state to finish, at most
``--lock-timeout`` seconds.  A batch whose scores equal an earlier batch's
is refused as the same file fed twice, and so is one in which some agent's
runs equal its runs of an earlier batch (a column copied from another file);
``--allow-repeat`` accepts them.

The state records one digest per batch that chains the batch before, the
agents, every option and the seed: a state whose options or scores were
edited, or whose batches were dropped, repeated or reordered, is refused,
naming the batch.  ``--key-file PATH`` on the first update makes the digests
HMAC-SHA256 with the bytes of that file as the key, so that recomputing them
without it is refused too; every later call (update, status, plot) then
needs the same ``--key-file``.  The key file must not be readable by other
users (``chmod 600``), and holds at least 16 bytes
(``head -c 32 /dev/urandom > adastop.key``).
Options apply when the state is created; giving a different value later is
an error rather than being ignored.  A state whose n and K can never reject
at alpha (too few runs per batch and batches) is not created: the error
names the smallest n and the smallest K that can, and ``--allow-powerless``
creates it anyway (on a later call, it is an error unless the state is
such a one).  Errors print one line and exit with status 2.

``--permutations`` is recorded in the state: ``holm`` (default) tests each
pair on its own runs' permutations with Holm's step-down, which keeps the
family-wise error at alpha under any partial null; ``joint`` relabels all
running agents' runs (exact when every agent is identical, not beside agents
of another spread); ``pairwise`` is the paper's scheme.  A state keeps the
scheme it was created with (one written before the default became ``holm``
resumes as ``joint``).  A state written before the option existed ran pairwise and
is resumed as pairwise.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import re
import sys
import warnings
from typing import Any, Iterator, TextIO
from pathlib import Path

from ..methods.adastop import DEFAULT_K, LOCK_TIMEOUT, MAX_N

#: options that apply when the state is created (AdaStop keywords; dashes on the command line)
_OPTIONS = ("n", "K", "n_resamples", "alpha", "beta", "reference", "permutations")


def _add_key_file(parser, when):
    parser.add_argument("--key-file", default=None, metavar="PATH",
                        help="file whose bytes key the state's digests (HMAC-SHA256) " + when)


def add_adastop_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register ``adastop update|status|plot`` on the ``rlstats`` command's subparsers."""
    from ._shared import flag_table, help_description, help_examples, keyword_flag

    shown: dict[str, Any] = {"epilog": help_examples(__doc__), "formatter_class": argparse.RawDescriptionHelpFormatter}
    adastop = subparsers.add_parser("adastop", help="run AdaStop batch by batch while experiments run",
                                    description=help_description(__doc__), **shown)
    commands = adastop.add_subparsers(dest="adastop_command", required=True)

    update = commands.add_parser("update", help="feed the next batch (creates the state on the first call)",
                                 # this module's paragraphs on batch files, repeats, digests, keys and options
                                 # (all but the first two and the example lines; audit s26)
                                 description=help_description(__doc__, slice(3, None)), **shown)
    update.add_argument("state", help="JSON state file (created when missing)")
    update.add_argument("batch", help="CSV/TSV/Parquet file: columns agent and score, or one column per agent "
                                      "(- reads standard input)")
    update.add_argument("--sep", default=None, help="column separator of a text batch file (default: comma; tab "
                                                    "for .tsv)")
    update.add_argument("--lock-timeout", type=float, default=LOCK_TIMEOUT, metavar="SECONDS",
                        help="how long to wait for another update of the same state to finish "
                             f"(default: {LOCK_TIMEOUT:g})")
    keyword_flag(update, "--n", type=int, default=None,
                 help="runs per agent per batch (default: the runs per agent in the first batch)")
    keyword_flag(update, "--K", type=int, default=None, help=f"maximum number of batches (default: {DEFAULT_K})")
    keyword_flag(update, "--n-resamples", type=int, default=None, help="permutation paths (default: 10000)")
    keyword_flag(update, "--alpha", type=float, default=None, help="family-wise error (default: 0.05)")
    keyword_flag(update, "--beta", type=float, default=None, help="early-accept level, 0 = off (default: 0)")
    keyword_flag(update, "--reference", default=None, help="compare this agent with every other (default: all pairs)")
    keyword_flag(update, "--permutations", choices=("joint", "pairwise", "holm"), default=None,
                 help="how a permutation path acts on the data: each pair's own paths with Holm's step-down "
                      "(default; exact under any partial null), joint relabelling of all running agents (its "
                      "error can exceed alpha beside agents of another spread), or pairwise slot choices as the "
                      "paper (its error can exceed alpha with 3 or more agents)")
    keyword_flag(update, "--seed", keyword="rng", type=int, default=None,
                 help="seed of the random permutation paths (default: drawn, printed when the state is "
                      "created and recorded in it)")
    keyword_flag(update, "--allow-repeat", keyword="allow_repeat", action="store_true",
                 help="accept a batch whose scores, or some agent's runs, equal an earlier batch's (refused "
                      "by default: it is almost always the same file fed twice, or a column copied)")
    update.add_argument("--allow-powerless", action="store_true",
                        help="create a state whose n and K can never reject at --alpha (refused by default: every "
                             "batch fed to it would be run for no decision; for a dry run of the workflow)")
    _add_key_file(update, "(set when the state is created; needed by every later call)")
    # the keywords of AdaStop (and of its update) the flags set, for its messages' hints (key= is left: those
    # messages name both --key-file and the Python keyword)
    flags = flag_table(update)
    update.set_defaults(run=run_update, command_parser=update, flags=flags)

    status = commands.add_parser("status", help="print the decisions so far and what to run next", **shown)
    status.add_argument("state", help="JSON state file (- reads standard input)")
    _add_key_file(status, "(needed when the state was created with one)")
    status.set_defaults(run=run_status, command_parser=status, flags=flags)  # its notes' hints as update takes them

    plot = commands.add_parser("plot", help="draw the decisions (or another figure) into an image file", **shown)
    plot.add_argument("state", help="JSON state file (- reads standard input)")
    plot.add_argument("out", help="image file, the format following its suffix (.png, .pdf, .svg), or - for a PNG on standard output")
    plot.add_argument("--kind", choices=("decisions", "scores", "boundaries"), default="decisions",
                      help="which figure (default: decisions)")
    _add_key_file(plot, "(needed when the state was created with one)")
    plot.set_defaults(run=run_plot, command_parser=plot, flags=flags)  # its warnings' hints as update takes them
    # a missing command is named by its choices, as the usage line shows them, not by the attribute it is stored in
    commands.metavar = "{" + ",".join(commands.choices) + "}"
    return adastop


def _usage_error(message):
    from ._shared import UsageError

    return UsageError(message)


def _agents_in(frame):
    """Agent names of a batch file, in order of appearance (long) or of the columns (wide)."""
    from ..methods.adastop import INDEX_COLUMNS

    if "agent" in frame.columns and "score" in frame.columns:
        return list(dict.fromkeys(frame["agent"].astype(str)))
    return [str(c) for c in frame.columns if str(c) not in INDEX_COLUMNS]


def _runs_per_agent(frame, agents):
    from ..format import name_list

    if "agent" in frame.columns and "score" in frame.columns:
        counts = frame["agent"].astype(str).value_counts()
        sizes = [int(counts[a]) for a in agents]
    else:
        sizes = [len(frame)]
    if len(set(sizes)) != 1:  # --n cannot help: every batch needs n runs of each agent
        raise _usage_error("the first batch has different numbers of runs per agent "
                           f"({name_list(agents, after=sizes)}); every batch needs the same number of runs of every "
                           "agent (n): give each agent n runs")
    return sizes[0]


def _given_options(args):
    return {name: getattr(args, name) for name in _OPTIONS if getattr(args, name) is not None}


def _key(args):
    """The bytes of ``--key-file`` (checked: not readable by others, not empty), or None; never on the command line."""
    from ..methods.adastop import read_key

    return None if args.key_file is None else read_key(args.key_file, option="--key-file")


def _in_file(exc, args):
    """A refused batch's message as the command shows it: opening with the batch file it refuses (audit s26: "this
    batch repeats batch 1" named no file), the rows it names as the file's (data row 3, line 4)."""
    from ._shared import STREAM, rows_in_file, said

    message = rows_in_file(said(exc), args.batch, args.sep)
    where = "standard input" if args.batch == STREAM else str(args.batch)
    return message if message.startswith(where) else f"{where}: {message}"


#: the suffixes of a batch table: a STATE named so is a table given first, unless it is a state already
_TABLE_SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".parquet", ".pq")


def _check_order(args):
    """The state first, the batch second: a table named as the state is the two given the other way round (audit
    s26: a first call said "file not found: state.json", a later one could not read the batch as JSON). A STATE file
    of such a name that is missing (created here) or holds JSON is a state (review26a: state.txt, which updates
    before s26 wrote, was refused)."""
    from ..errors import shell_word

    state, batch = Path(args.state), Path(args.batch)
    if state.suffix.lower() not in _TABLE_SUFFIXES:
        return
    if batch.suffix.lower() == ".json":
        raise _usage_error(f"STATE {state} is a table and BATCH {batch} a JSON file: the state comes first: rlstats "
                           f"adastop update {shell_word(str(batch))} {shell_word(str(state))}")
    if not state.is_file() or _holds_json(state):
        return
    raise _usage_error(f"STATE {state} is a table ({state.suffix}): the state is the JSON file rlstats adastop update "
                       f"writes, and it comes first: rlstats adastop update state.json {shell_word(str(state))}")


def _holds_json(path):
    """Whether the file at ``path`` opens as a JSON object does (its first character other than a space is '{')."""
    try:
        with open(path, "rb") as file:
            return file.read(4096).lstrip()[:1] == b"{"
    except OSError:
        return False


def _names(frame):
    """The batch's agent names that hold a '=' (a long batch's column agent, a wide one's columns), which its messages
    write as they are (an agent 'SAC alpha=0.2' is not --alpha 0.2)."""
    from ._shared import held_labels

    return held_labels(frame, ("agent",)) | {str(column) for column in frame.columns if "=" in str(column)}


#: the library's advice on a test that can never reject, which names AdaStop's keywords n and K
_LARGER_N_OR_K = re.compile(r"\b([Uu])se a larger n or K\b")


def _new_state_words(text, flags):
    """The advice of a note or warning to set an option that applies only when a state is created (its options and
    --seed, as ``flags``, update's :func:`flag_table`, spells them), said as a new state file with that flag (audit
    s26: "Pass --n-resamples 290", which the next update refuses; "use a larger n or K", AdaStop's keywords)."""
    creation = "|".join(sorted((re.escape(flags[name]) for name in (*_OPTIONS, "rng")), key=len, reverse=True))
    text = re.sub(rf"\b([Pp])ass ((?:{creation}) )",
                  lambda match: f"{'S' if match.group(1) == 'P' else 's'}tart a new state file with {match.group(2)}",
                  text)
    return _LARGER_N_OR_K.sub(lambda match: f"{'s' if match.group(1) == 'u' else 'S'}tart a new state file with a "
                                            f"larger {flags['n']} or {flags['K']}", text)


@contextlib.contextmanager
def _command_warnings(flags: dict[str, str], when_failed: bool = True) -> Iterator[set[str]]:
    """AdaStop's warnings raised in the block said in the command's words (its hints as ``flags`` spells them, the
    advice to set a creation option as a new state file), the names of agents the block adds to the set it yields
    written as they are; a block that fails says them too unless ``when_failed`` is False (a creation refused says
    its error alone)."""
    from ._shared import in_command_words

    labels: set[str] = set()
    caught: list[warnings.WarningMessage] | None = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield labels
    except BaseException:
        if not when_failed:
            caught = []
        raise
    finally:
        for warning in caught or ():
            warnings.warn_explicit(_new_state_words(in_command_words(str(warning.message), flags, (), labels=labels),
                                                    flags), warning.category, warning.filename, warning.lineno)


def _powerless(args, seq, read_n):
    """The refusal of a state whose test can never reject (audit s27: it was created with a warning, and every batch
    fed to it is run for no decision): the smallest n and K that can, as this command takes them (``read_n``: n read
    from the first batch), and --allow-powerless; None for a test that can reject."""
    from .. import format as fmt
    from ..methods.adastop import (first_step_shares, least_resamples, no_level_clause, rejecting_sizes,
                                   separating_sizes)

    sizes = rejecting_sizes(seq)
    if sizes is None:
        return None
    flags, (least_n, least_k) = args.flags, sizes
    alpha, shares = seq.to_state()["options"]["alpha"], first_step_shares(seq)
    ways = []
    if least_n is not None:
        first = f", a first batch of {fmt.count(least_n, 'run')} per agent" if read_n else ""
        ways.append(f"n = {fmt.count(least_n, 'run')} per batch at K = {seq.K} ({flags['n']} {least_n}{first})")
    if least_k is not None:
        ways.append(f"K = {least_k} at n = {seq.n} ({flags['K']} {least_k})")
    if ways:
        way = (f"the smallest that can {fmt.verb(len(ways), 'is')} {' or '.join(ways)} (the paper advises "
               "n * K >= 30)")
    else:  # the level is at most alpha (Holm: alpha / J) times the paths (rejecting_sizes)
        least = math.ceil(shares / alpha)
        at = f"alpha = {alpha}" if shares == 1 else f"alpha / {shares} = {alpha / shares:.3g} (Holm)"
        way = f"no {flags['n']} or {flags['K']} can: at {at} a test needs at least {least} permutation paths"
        paths = least_resamples(seq.n, seq.K, alpha, shares, seq._joint)
        if paths is not None:  # review s31: the fewest that spend (20) rejected separated runs in 17 of 20 seeds
            way += (f", and from {paths} on rejects well separated runs for 95% of seeds or more "
                    f"({flags['n_resamples']} {paths})")
        else:  # nor more paths at this n and K (review s31: 3 runs a batch and K = 1 spend nothing with any number)
            more, least_n, least_k = separating_sizes(seq.n, seq.K, alpha, shares, seq._joint)
            can = [f"{flags['n']} {least_n}" if least_n is not None else None,
                   f"{flags['K']} {least_k}" if least_k is not None else None]
            way += (f", and at {fmt.count(seq.n, 'run')} per batch and K = {seq.K} no number of paths can: pass "
                    + (f"{flags['n_resamples']} {more} with {' or '.join(filter(None, can))}" if more else
                       f"a larger {flags['n']} or {flags['K']} with more paths"))
    return _usage_error(f"{no_level_clause(seq.n, seq.K, alpha, shares)}: a test with this state could never reject, "
                        f"whatever the runs it is fed; {way}; --allow-powerless creates it anyway")


def _create(args, frame, key):
    from ..errors import RlstatsError
    from ..methods.adastop import AdaStop, check_batch_columns
    from ._shared import in_command_words, said

    try:
        check_batch_columns(frame)  # before n is read from the counts of pooled tasks or of a curve's rows
    except RlstatsError as exc:
        raise type(exc)(_in_file(exc, args)) from exc
    agents = _agents_in(frame)
    options = _given_options(args)
    if "n" not in options:  # read from the batch, so its bound is no flag's (audit s23)
        options["n"] = _runs_per_agent(frame, agents)
        if options["n"] > MAX_N:
            raise _usage_error(f"the first batch has {options['n']:,} runs per agent, which would make n (the runs "
                               "per agent per batch, read from the first batch when --n is not given) more than "
                               f"{MAX_N:,}, the most rlstats takes; feed the runs in batches of n runs per agent (RL "
                               "studies use 5 to 20)")
    options.setdefault("K", DEFAULT_K)
    with _command_warnings(args.flags, when_failed=False) as labels:  # its advice said as this command takes it
        labels |= _names(frame)
        try:
            seq = AdaStop(agents, rng=args.seed, key=key, **options)
        except RlstatsError as exc:  # the options came from this call's flags: its hints name them (--K, not K=)
            raise type(exc)(in_command_words(said(exc), args.flags, (), labels=labels)) from exc
        refusal = None if args.allow_powerless else _powerless(args, seq, read_n=args.n is None)
        if refusal is not None:  # before any file is made; the warning it would say is left: the error says it all
            raise refusal
    if args.allow_powerless:  # refused as on a later call (review28b: batch 1 took it, batch 2 refused it)
        _powerless_flag_fits(seq, "the test this call would create")
    return seq


def _powerless_flag_fits(seq, what):
    """A usage error where --allow-powerless is given for a test that can reject: it says nothing true of it."""
    from .. import format as fmt
    from ..methods.adastop import rejecting_sizes

    if rejecting_sizes(seq) is None:
        raise _usage_error(f"{what} can reject (n = {fmt.count(seq.n, 'run')} per batch, K = {seq.K}); "
                           "--allow-powerless is only for a test that never could: leave it out")


def _check_unchanged(seq, args, path):
    """Options on a later call must match the state: ignoring them silently misleads."""
    state = seq.to_state()
    for name, value in _given_options(args).items():
        if state["options"][name] != value:
            flag = args.flags[name]
            raise _usage_error(f"{path} already holds a test with {name} = {state['options'][name]!r}; {flag} "
                               f"{value!r} only applies when the state is created (delete {path} to start a new test)")
    if args.seed is not None and state["seed"]["record"] != args.seed:
        raise _usage_error(f"{path} already holds a test seeded with {state['seed']['record']!r}; "
                           f"{args.flags['rng']} only applies when the state is created")
    if args.allow_powerless:  # it agrees with a state that never rejects; of one that can, it says nothing true
        _powerless_flag_fits(seq, f"the test {path} holds")


def _load(path, key, flags):
    """The AdaStop state at ``path`` (- reads standard input), its warnings said in the command's words (``flags``,
    update's: audit s27, a state that can never reject said "use a larger n or K" at every later call)."""
    with _command_warnings(flags) as labels:
        seq = _read_state(path, key)
        labels.update(agent for agent in seq.agents if "=" in agent)
    return seq


def _read_state(path, key):
    from ..methods.adastop import AdaStop
    from ._shared import STREAM

    if str(path) == STREAM:
        try:
            text = sys.stdin.buffer.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _usage_error(f"standard input is not UTF-8 text (byte {exc.object[exc.start:exc.start + 1]!r} at "
                               f"position {exc.start}); pipe the JSON state that rlstats adastop update wrote"
                               ) from None
        return AdaStop._from_json(text, "from standard input", key=key)
    path = Path(path)
    if path.is_dir():
        raise _usage_error(f"{path} is a folder; give the JSON state file written by rlstats adastop update")
    if not path.is_file():
        from ..tables import not_regular

        special = not_regular(path, "give the JSON state file written by rlstats adastop update")
        if special is not None:
            raise _usage_error(special)
        raise _usage_error(f"no AdaStop state at {path}; create it with: rlstats adastop update {path} BATCH.csv")
    return AdaStop.load(path, key=key)


def _progress_text(seq, result):
    from .. import format as fmt
    from ..methods.adastop import without_empty_reasons

    table = without_empty_reasons(seq.decisions)
    # the result's counts and family-wise level (with what the interims so far spent), as its print says them
    lines = [f"after batch {seq.interim} of at most {seq.K} (n = {fmt.count(seq.n, 'run')} per agent per batch):",
             # in words, as the result's print heads its columns (audit s27: boundary_mc_se beside "first agent")
             result._statistic_line(), fmt.table_text(table, labels=True)]
    if seq.done:
        lines.append("the test is finished: every comparison is decided")
    else:
        left = fmt.count(seq.K - seq.interim, "batch")
        lines.append(f"next batch: {fmt.count(seq.n, 'new run')} of each of: {fmt.name_list(seq.agents_to_run)} "
                     f"(at most {left} left)")
    return "\n".join(lines) + "\n"


def _command_result(seq, flags):
    """The result of the batches fed so far, its notes in the command line's spelling: update's flags (they are
    about the batches fed and the state's options), a creation flag's advice as a new state file; one home, so that
    status prints the notes the finishing update printed (audit s26)."""
    import dataclasses

    from ._shared import in_command_notes

    result = in_command_notes(seq.result(), (flags, ()))
    notes = tuple(_new_state_words(note, flags) for note in result.notes)
    return result if notes == result.notes else dataclasses.replace(result, notes=notes)


def run_update(args: argparse.Namespace, out: TextIO) -> int:
    from .. import format as fmt
    from ._shared import STREAM, check_output_path, in_command_words, read_table
    from ..errors import RlstatsError
    from ..methods.adastop import state_lock

    if args.state == STREAM:
        raise _usage_error("the state of adastop update is read and written back, so it cannot be - (standard "
                           "input); give a file name such as state.json")
    if not 0 <= args.lock_timeout < math.inf:
        raise _usage_error(f"--lock-timeout {args.lock_timeout:g} is not a number of seconds, 0 or more (default "
                           f"{LOCK_TIMEOUT:g})")
    # the key file is an input too: the state must never be written over it
    path = check_output_path(args.state, option="STATE",
                             inputs=(args.batch,) + (() if args.key_file is None else (args.key_file,)))
    _check_order(args)  # after the check that the state is not the batch itself
    key = _key(args)
    frame = read_table(args.batch, sep=args.sep, labels=("agent",))  # a long batch's agents as written (audit s22)
    # a new state's options are checked before any file (the state or its lock) is made
    fresh = None if path.exists() else _create(args, frame, key)
    try:
        lock = state_lock(path, timeout=args.lock_timeout)
        target = lock.__enter__()
    except OSError as exc:
        raise _usage_error(f"cannot lock the state {path}: {exc}") from exc
    # The whole read-decide-write holds the lock: two updates at once run one after the other.
    try:
        if target.exists():
            seq = _load(path, key, args.flags)
            _check_unchanged(seq, args, path)
            if seq.done:  # the library's advice (a new AdaStop) is a new state file here (audit s23)
                raise _usage_error(f"the test is finished after {fmt.count(seq.interim, 'batch')}: every comparison "
                                   f"is decided; start a new state file (or delete {path}) to test again")
            created = False
        else:
            seq = fresh if fresh is not None else _create(args, frame, key)
            created = True
        try:
            seq.update(frame, allow_repeat=args.allow_repeat)
        except RlstatsError as exc:  # its hint allow_repeat=True is --allow-repeat here
            raise type(exc)(in_command_words(_in_file(exc, args), args.flags, (), labels=_names(frame))) from exc
        try:
            seq.save(path)
        except OSError as exc:
            raise _usage_error(f"cannot write the state {path}: {exc}") from exc
    finally:
        lock.__exit__(None, None, None)
    if created:
        state = seq.to_state()
        options = ", ".join(f"{k} = {v}" for k, v in state["options"].items() if v is not None)
        keyed = "" if key is None else f"; digests keyed by --key-file (key id {state['integrity']['key_id']})"
        out.write(f"created {path}: agents {fmt.name_list(seq.agents)}; {options}; seed {state['seed']['record']}"
                  f"{keyed}\n")
    result = _command_result(seq, args.flags)
    out.write(_progress_text(seq, result))
    if seq.done:
        out.write(str(result))
    return 0


def run_status(args: argparse.Namespace, out: TextIO) -> int:
    from .. import format as fmt

    seq = _load(args.state, _key(args), args.flags)
    result = _command_result(seq, args.flags)
    out.write(_progress_text(seq, result))
    used = result.runs_used
    out.write(f"runs used: {fmt.name_list(used['agent'], after=used['n_runs'])}\n")
    # the notes the result prints (and the finishing update printed), as its print writes them
    out.write("".join(f"Note: {note}\n" for note in result.notes))
    return 0


def run_plot(args: argparse.Namespace, out: TextIO) -> int:
    from ._shared import STREAM, check_figure_path, save_plot

    out_path = check_figure_path(args.out, option="OUT", inputs=(args.state,) + (
        () if args.key_file is None else (args.key_file,)), stream_ok=True)
    seq = _load(args.state, _key(args), args.flags)
    save_plot(seq.result(), out_path, kind=args.kind)
    sys.stderr.write("figure written to " + ("standard output (PNG)" if out_path == STREAM else str(args.out)) + "\n")
    return 0
