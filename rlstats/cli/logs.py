"""``rlstats read-logs DIR``: a folder of training logs to one CSV or Parquet file.

::

    rlstats read-logs runs/ --pattern "{agent}/{task}/seed_{seed}" -o runs.csv
    rlstats read-logs runs/ --pattern "{agent}/{task}/seed_{seed}" --tags eval/mean_reward=score -o runs.parquet
    rlstats read-logs logs/ppo --format sb3_monitor --pattern "{agent}/{task}_{seed}" --on-error skip -o ppo.csv
    rlstats read-logs runs/ --format sb3_monitor --pattern "{agent}/{task}/seed_{seed}" --smooth 100 -o episodes.csv
    rlstats read-logs runs/ --pattern "{agent}/{task}/seed_{seed}" --tags eval/mean_reward=score -o - |
        rlstats compare - "score ~ agent | task/seed" --method curves -o step=step
    rlstats read-logs runs/ --pattern "{agent}/{task}/seed_{seed}" --tags eval/mean_reward=score -o - |
        rlstats compare - "score ~ agent | task/seed" --summarize final
    rlstats read-logs s3://bucket/runs --pattern "{agent}/{task}/seed_{seed}" --jobs 8 -o runs.csv

A URL (s3://, gs://, https://, file://, ...) is read through fsspec (pip install fsspec, and the
protocol's filesystem, e.g. s3fs); its credentials come from the environment, as the filesystem reads them.

The file it writes is what every other subcommand reads (``-o -``: CSV on standard output, and the
summary on standard error). Errors print one line and exit with status 2; the output path is checked
before any log is read, and is never one of the files read, whatever path names it (a hard link, a symlink).
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from typing import TextIO

from ..errors import RlstatsError, install_hint, shell_word
from ..logs import MAX_FILE_BYTES, MAX_FILES, is_url
from ._shared import (STREAM, UsageError, flag_table, help_description, help_examples, in_command_words, keyword_flag,
                      said)

#: read_logs' advice that names the frame's attributes, which the file written does not keep: its list of what was
#: read is on stderr (audit s20). Its keywords are named as the command's flags by in_command_words (flag_table).
PROSE_WORDS = (("(see attrs['read_log'])", "(listed in the warning above)"),
               (" (frame.attrs['read_log'] lists them):", ":"), (" (attrs['read_log'].segments)", ""))
#: Suffixes of the file written: CSV, TSV or Parquet.
OUTPUT_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")


def add_read_logs_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register ``read-logs`` on the ``rlstats`` command's subparsers."""
    from ..logs import FORMATS

    command = subparsers.add_parser(
        "read-logs", help="read a folder of training logs (TensorBoard, SB3, CSV, W&B exports) into one file",
        description=help_description(__doc__), epilog=help_examples(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    command.add_argument("folder", help="folder of runs (searched recursively), or one log file; or the URL of "
                                        "either (s3://, gs://, file://, ...), read through fsspec")
    # more paths are a shell wildcard expanded: caught to say so (argparse's "unrecognized arguments" does not)
    command.add_argument("more_paths", nargs="*", default=[], help=argparse.SUPPRESS)
    keyword_flag(command, "--pattern", default=None,
                 help="where agent, task and seed come from, e.g. '{agent}/{task}/seed_{seed}' (default: "
                      "none: a column 'run' holds each file's folder or run name; marl-eval's keys give "
                      "agent, task and seed)")
    keyword_flag(command, "--format", choices=FORMATS, default=None, help="log format (default: the one found)")
    keyword_flag(command, "--tags", default=None, metavar="TAG[=COLUMN],...",
                 help="scalars to read, comma-separated, each optionally renamed "
                      "(default: the one that looks like an evaluation return)")
    keyword_flag(command, "--step", default=None, help="step column of table logs (default: found by name)")
    keyword_flag(command, "--keep", choices=("last", "first"), default="last",
                 help="value kept when a run logs a step twice (default: last)")
    keyword_flag(command, "--on-error", choices=("raise", "skip"), default="raise",
                 help="unreadable, truncated or incomplete runs: stop (default) or skip them")
    keyword_flag(command, "--smooth", default=None, metavar="N",
                 help="replace each scalar by its run's trailing rolling mean over the last N episodes "
                      "(or steps, with --smooth-over steps), as SB3's plot_results draws monitor.csv returns, "
                      "e.g. --smooth 100; stated in the notes (default: raw values)")
    keyword_flag(command, "--smooth-over", choices=("episodes", "steps"), default=None,
                 help="what --smooth counts: logged values (episodes of a monitor.csv; the default) or steps")
    keyword_flag(command, "--jobs", keyword="n_jobs", type=int, default=1,
                 help="files read in parallel (default 1; -1: all cores)")
    keyword_flag(command, "--max-files", type=int, default=MAX_FILES, metavar="N",
                 help=f"the listing of the folder or URL may hold at most N files (default: {MAX_FILES:,})")
    keyword_flag(command, "--max-file-bytes", type=int, default=MAX_FILE_BYTES, metavar="N",
                 help=f"a file read from a URL may have at most N bytes (default: {MAX_FILE_BYTES:,})")
    keyword_flag(command, "--no-progress", dest="progress", action="store_false",
                 help="no progress bar on stderr")
    command.add_argument("-o", "--output", required=True, metavar="FILE",
                         help="where to write the frame: .csv, .tsv or .parquet, or - for CSV on standard output")
    command.set_defaults(run=run_read_logs, command_parser=command, flags=flag_table(command))
    return command


def _tags(text):
    """``--tags a=x,b`` -> {"a": "x", "b": "b"}; a clear error for an item without a tag."""
    if text is None:
        return None
    mapping = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        tag, _, column = item.partition("=")
        if not tag.strip():
            raise UsageError(f"--tags item {item[:60]!r} names no tag; write TAG or TAG=COLUMN, "
                             "e.g. --tags eval/mean_reward=score")
        mapping[tag.strip()] = column.strip() or tag.strip()
    return mapping


def _smooth(text, over):
    """``--smooth N`` as a whole number (read_logs checks its range), and its unit; one line for anything else."""
    if text is None:
        if over is not None:
            raise UsageError(f"--smooth-over {over} sets what --smooth counts, and --smooth is not given; pass the "
                             f"window too, e.g. --smooth {10_000 if over == 'steps' else 100} --smooth-over {over}")
        return None, "episodes"
    try:
        return int(text), over or "episodes"
    except ValueError:
        raise UsageError(f"--smooth takes a whole number of episodes (or of steps, with --smooth-over steps), e.g. "
                         f"--smooth 100; got {text[:60]!r}") from None


def _in_command_words(message, flags, labels=()):
    """read_logs' message as one line naming the command's options (its list of files joined by ';'); the runs'
    names (``labels``) as written."""
    first, *listed = message.splitlines()
    message = " ".join([first, "; ".join(line.strip() for line in listed)]).strip()
    if message.startswith("pattern "):
        message = "--" + message
    return _reworded(message, flags, labels)


def _reworded(message, flags, labels=()):
    """read_logs' message naming the command's options (``flags``, its parser's: --tags for tags=, ...), its lines
    kept; the runs' names (``labels``: a task 'keep=café' is not --keep café) as written."""
    for python, shell in PROSE_WORDS:
        message = message.replace(python, shell)
    # --tags takes TAG=COLUMN, not the dict tags= takes (audit s20: "e.g. --tags {'eval/mean_reward': 'score'}")
    message = re.sub(r"(?<![\w.-])tags=\{'([^'=,]*)': '([^'=,]*)'\}", r"tags='\1=\2'", message)
    # subset= is no option of this command but of the command the file is read by next (audit s28: it was Python)
    message = re.sub(r'(?<![\w.-])subset="([^"]*)"', lambda match: "rlstats compare's -o "
                     + shell_word(f"subset={match.group(1)}"), message)
    message = re.sub(r"(?<![\w.-])subset=(?=[\s),;]|$)", "rlstats compare's -o subset=", message)
    return "\n".join(in_command_words(line, flags, (), labels=labels) for line in message.split("\n"))


def _run_names(frame):
    """The names of the frame's runs (the pattern's fields, its columns before the step) that hold a '=', which its
    notes and warnings write as they are."""
    from ._shared import held_labels

    return held_labels(frame, frame.columns[:frame.columns.get_loc("step")]) if "step" in frame.columns else set()


def _check_not_read_next_time(output, folder):
    """A new file in the folder read, of a kind read_logs reads, would be taken for a log on the next read."""
    from pathlib import Path

    from ..logs import file_format

    if output == STREAM or not Path(folder).is_dir():
        return
    inside = Path(output).resolve().is_relative_to(Path(folder).resolve())
    if inside and file_format(Path(output).name) is not None:
        raise UsageError(f"-o {output} is inside the folder read ({folder}), where the next read-logs would take it "
                         "for a training log; write it outside that folder")


def _check_not_an_input(output, folder):
    """-o naming, by another path, a file under the folder read: a hard link to it (the same inode), a symlink to
    it, or the target of a symlink in the folder. check_output_path compares paths, so these would pass it, and
    writing would replace a log in place. The folder is walked as read_logs walks it (symlinked folders are not
    entered); the inode of each entry comes with the listing, so only a match costs a stat."""
    import os
    from pathlib import Path

    if output == STREAM or not Path(folder).is_dir():  # one file read: check_output_path compares inodes
        return
    try:
        written = os.stat(output)
    except OSError:
        written = None  # nothing there yet: only a symlink in the folder can point at it
    target = os.path.realpath(output)
    pending = [os.fspath(folder)]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue  # a folder read_logs cannot list either
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
                continue
            link = entry.is_symlink()
            try:
                same = written is not None and (link or entry.inode() == written.st_ino) and os.path.samestat(
                    written, entry.stat())
            except OSError:  # a dangling symlink
                same = False
            if same or (link and os.path.realpath(entry.path) == target):
                how = ("a symlink to it" if os.path.islink(output) else f"{entry.name} is a symlink to it" if link
                       else "a hard link to it")
                raise UsageError(f"-o {output} is, by another path, the file {entry.path} under the folder read "
                                 f"({how}); writing it would replace that file: give another path")


def _refuse_several_paths(paths):
    """UsageError for several paths read (a shell wildcard expanded), naming the folder that holds them."""
    import os

    try:
        common = os.path.commonpath(paths) or "."
    except ValueError:  # absolute and relative paths mixed
        common = None
    holder = f"the folder holding them ({common})" if common else "the folder holding them"
    raise UsageError(f"read-logs reads one folder or log file, not {len(paths)} paths ({paths[0]}, {paths[1]}"
                     f"{', ...' if len(paths) > 2 else ''}; did the shell expand a wildcard?): give {holder}, which "
                     "is searched recursively, and choose the runs with --pattern, e.g. --pattern "
                     "'{agent}/{task}/seed_{seed}'")


def _local_folder(folder):
    """The local path the folder read names (a file:// URL's path too), or None for another URL."""
    if not is_url(folder):
        return folder
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(folder)
    return unquote(parts.path) if parts.scheme == "file" and parts.netloc in ("", "localhost") else None


def run_read_logs(args: argparse.Namespace, out: TextIO) -> int:
    from ._shared import check_output_path, write_output
    from ..design import NOTES_ATTR
    from ..provenance import PROVENANCE_ATTR
    from ..format import count
    from ..logs import read_logs

    if args.more_paths:
        _refuse_several_paths([args.folder, *args.more_paths])
    if not args.folder:  # "$LOGDIR" unset: not the current folder (audit s20)
        raise UsageError("the folder read is empty text (an unset shell variable?); give the folder of runs, . for "
                         "the current folder")
    folder = _local_folder(args.folder)
    output = check_output_path(args.output, option="-o", inputs=[] if folder is None else [folder])
    suffix = ".csv" if output == STREAM else output.suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        raise UsageError(f"-o {output} must end in .csv, .tsv or .parquet, or be - for CSV on standard output")
    if folder is not None:  # a remote file is not overwritten by a local one
        _check_not_read_next_time(output, folder)
        _check_not_an_input(output, folder)
    tags = _tags(args.tags)
    smooth, smooth_over = _smooth(args.smooth, args.smooth_over)
    frame = None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            frame = read_logs(args.folder, args.pattern, format=args.format, tags=tags, step=args.step,
                              keep=args.keep, on_error=args.on_error, progress=args.progress, n_jobs=args.jobs,
                              smooth=smooth, smooth_over=smooth_over, max_files=args.max_files,
                              max_file_bytes=args.max_file_bytes)
    except RlstatsError as exc:  # the same advice, in the command's words
        raise type(exc)(_in_command_words(said(exc), args.flags)) from exc  # its command_line wording, as elsewhere
    finally:  # read_logs' warnings in the command's words too, their lists kept on their lines
        labels = () if frame is None else _run_names(frame)
        for caught_warning in caught:
            warnings.warn_explicit(_reworded(str(caught_warning.message), args.flags, labels),
                                   caught_warning.category, caught_warning.filename, caught_warning.lineno)
    notes = tuple(frame.attrs.get(NOTES_ATTR, ()))
    written = frame.copy(deep=False)
    # Parquet keeps these (pandas stores attrs as JSON), the notes bound to their runs too; the read log stays here
    written.attrs = {NOTES_ATTR: list(notes), **({PROVENANCE_ATTR: frame.attrs[PROVENANCE_ATTR]}
                                                 if PROVENANCE_ATTR in frame.attrs else {})}
    if suffix in (".parquet", ".pq"):
        try:
            written.to_parquet(output, index=False)
        except ImportError as exc:
            raise UsageError(f"writing {output} needs pyarrow: {install_hint('parquet')} ({exc})") from exc
        except OSError as exc:
            raise UsageError(f"-o {output}: cannot write it ({exc.strerror or exc}); give another path") from None
    else:
        write_output(output, written.to_csv(index=False, sep="\t" if suffix == ".tsv" else ","), out, option="-o")
    fields = list(frame.columns[:frame.columns.get_loc("step")])
    n_runs = frame.groupby(fields, sort=False).ngroups
    summary = sys.stderr if output == STREAM else out  # standard output holds the CSV alone
    summary.write(f"{count(len(frame), 'row')} of {count(n_runs, 'run')} written to "
                  f"{'standard output' if output == STREAM else output}\n")
    for note in notes:  # the file keeps read_logs' words; the terminal gets the command's (--tags, not tags=)
        summary.write(f"  {_in_command_words(note, args.flags, labels)}\n")
    return 0
