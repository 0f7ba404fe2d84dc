"""``rlstats read-logs DIR``: a folder of training logs to one CSV or Parquet file.

::

    rlstats read-logs runs/ --pattern "{agent}/{task}/seed_{seed}" -o runs.csv
    rlstats read-logs runs/ --pattern "{agent}/{task}/seed_{seed}" --tags eval/mean_reward=score -o runs.parquet
    rlstats read-logs logs/ppo --format sb3_monitor --pattern "{agent}/{task}_{seed}" --on-error skip -o ppo.csv

The file it writes is what every other subcommand reads. Errors print one line and exit with status 2.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import RlstatsError

#: read_logs' advice names Python keywords; the command names its options.
OPTION_WORDS = (("on_error='skip'", "--on-error skip"), ("with tags=, e.g. tags=", "with --tags, e.g. --tags "),
                ("with tags=", "with --tags"), ("pass tags=", "pass --tags"), ("with format=, e.g. format=",
                                                                                 "with --format, e.g. --format "),
                ("pass format=", "pass --format"), ("pass step=", "pass --step "), ("step=", "--step "))


def add_read_logs_command(subparsers):
    """Register ``read-logs`` on the ``rlstats`` command's subparsers."""
    from ..logs._layout import FORMATS

    command = subparsers.add_parser(
        "read-logs", help="read a folder of training logs (TensorBoard, SB3, CSV, W&B exports) into one file",
        description=__doc__.split("\n\n")[0])
    command.add_argument("folder", help="folder of runs (searched recursively), or one log file")
    command.add_argument("--pattern", default=None,
                         help="where agent, task and seed come from, e.g. '{agent}/{task}/seed_{seed}'")
    command.add_argument("--format", choices=FORMATS, default=None, help="log format (default: the one found)")
    command.add_argument("--tags", default=None, metavar="TAG[=COLUMN],...",
                         help="scalars to read, comma-separated, each optionally renamed "
                              "(default: the one that looks like an evaluation return)")
    command.add_argument("--step", default=None, help="step column of table logs (default: found by name)")
    command.add_argument("--keep", choices=("last", "first"), default="last",
                         help="value kept when a run logs a step twice (default: last)")
    command.add_argument("--on-error", choices=("raise", "skip"), default="raise",
                         help="unreadable, truncated or incomplete runs: stop (default) or skip them")
    command.add_argument("--jobs", type=int, default=1, help="files read in parallel (-1: all cores)")
    command.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    command.add_argument("-o", "--output", required=True, metavar="FILE",
                         help="where to write the frame: .csv, .tsv or .parquet")
    command.set_defaults(run=run_read_logs)
    return command


def _tags(text):
    if text is None:
        return None
    mapping = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        tag, _, column = item.partition("=")
        mapping[tag.strip()] = column.strip() or tag.strip()
    return mapping


def run_read_logs(args, out):
    from ._shared import UsageError
    from ..design import NOTES_ATTR
    from ..logs import read_logs

    output = Path(args.output)
    suffix = output.suffix.lower()
    if suffix not in (".csv", ".tsv", ".parquet", ".pq"):
        raise UsageError(f"--output {output} must end in .csv, .tsv or .parquet")
    try:
        frame = read_logs(args.folder, args.pattern, format=args.format, tags=_tags(args.tags), step=args.step,
                          keep=args.keep, on_error=args.on_error, progress=not args.no_progress, n_jobs=args.jobs)
    except RlstatsError as exc:  # the same advice, in the command's words
        message = str(exc)
        for python, shell in OPTION_WORDS:
            message = message.replace(python, shell)
        raise type(exc)(message) from exc
    notes = tuple(frame.attrs.get(NOTES_ATTR, ()))
    written = frame.copy(deep=False)
    written.attrs = {NOTES_ATTR: list(notes)}  # Parquet keeps these (pandas stores attrs); the read log stays here
    if suffix in (".parquet", ".pq"):
        try:
            written.to_parquet(output, index=False)
        except ImportError as exc:
            raise UsageError(f"writing {output} needs pyarrow: pip install 'rlstats[parquet]' ({exc})") from exc
    else:
        written.to_csv(output, index=False, sep="\t" if suffix == ".tsv" else ",")
    fields = list(frame.columns[:frame.columns.get_loc("step")])
    n_runs = frame.groupby(fields, sort=False).ngroups
    out.write(f"{len(frame):,} rows of {n_runs} runs written to {output}\n")
    for note in notes:
        out.write(f"  {note}\n")
    return 0
