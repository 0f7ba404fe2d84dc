"""Finding runs in a folder: which files are logs of which format, and which run each belongs to.

A *pattern* such as ``"{agent}/{task}/seed_{seed}"`` is matched against the start of each log
file's path relative to the folder, up to a ``/`` or the end: ``ppo/hopper/seed_3/events.out...``
gives ``agent="ppo"``, ``task="hopper"``, ``seed="3"``. A field matches one or more characters
other than ``/``; ``*`` matches any characters other than ``/`` (none too); everything else is
literal. Every file under the same match belongs to one run (a run restarted from a checkpoint
often writes a second event file beside the first).

Matching reads the name once, left to right, without backtracking, so its time is linear in the
name whatever the pattern: a field (or ``*``) runs up to the *first* occurrence of the literal
text that follows it (all of that text, however many characters: in ``{agent}-{task}-seed{seed}``
the task of ``ppo-Hopper-v4-seed1`` is ``Hopper-v4``), or, at the end of the pattern, up to the
next ``/`` or the end of the name. Two fields (or a field and a ``*``) with no literal text
between them could split a name in many ways, so they are an error that asks for a separator.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

from ..errors import LogReadError, OptionError
from ..grammar import count, plural, verb
from ._formats import FORMATS, file_format
from ._remote import MAX_FILES, is_url, refuse_unlistable, too_many_files

#: A ``{field}`` or a ``*`` (runs of ``*`` count as one).
WILDCARD = re.compile(r"\{([A-Za-z_]\w*)\}|\*+")
#: Bounds of a text pattern: its length (the longest path Linux accepts) and its fields and ``*``.
MAX_PATTERN_LENGTH = 4096
MAX_FIELDS = 32


@dataclasses.dataclass(frozen=True)
class Pattern:
    """A compiled directory pattern: ``match(relative_path)`` -> dict of fields, or None.

    ``head`` is the literal text the name starts with; ``pieces`` holds, for each field in order,
    its name (None for ``*``) and the literal text after it (empty only for the last).
    """

    text: object
    fields: tuple
    head: str = ""
    pieces: tuple = ()

    def match(self, relative):
        if self.text is None:
            return None
        if callable(self.text):
            try:
                found = self.text(relative)
            except Exception as error:  # the user's code: name the option and the file, keep the cause chained
                raise OptionError(f"the pattern= callable raised {type(error).__name__} ({error}) on {relative!r}; "
                                  "make it return a dict of fields, or None to skip the file") from error
            if found is None:
                return None
            if not isinstance(found, dict):
                raise OptionError(f"pattern= callable must return a dict of fields (or None to skip the file); "
                                  f"for {relative!r} it returned {found!r}")
            return {str(k): v for k, v in found.items()}
        return _match(self.head, self.pieces, relative)


def _match(head, pieces, name):
    """The fields of ``name``, read once from left to right (rules in the module docstring), or None.

    Each search starts where the previous one ended, so the time is linear in ``len(name)``.

    >>> pattern = compile_pattern("{agent}-{task}-seed{seed}")
    >>> pattern.match("ppo-Hopper-v4-seed1/events.out.tfevents.1")
    {'agent': 'ppo', 'task': 'Hopper-v4', 'seed': '1'}
    >>> compile_pattern("{agent}/*/seed_{seed}").match("ppo/hopper/seed_3")
    {'agent': 'ppo', 'seed': '3'}
    >>> print(compile_pattern("{agent}/seed_{seed}").match("ppo/hopper/seed_3"))
    None
    """
    if not name.startswith(head):
        return None
    position, found = len(head), {}
    for field, literal in pieces:
        at_least = 0 if field is None else 1  # a field holds one character or more, * may be empty
        end = name.find(literal or "/", position + at_least)
        if end < 0:
            if literal:
                return None
            end = len(name)
        value = name[position:end]
        if len(value) < at_least or "/" in value:
            return None
        if field is not None:
            found[field] = value
        position = end + len(literal)
    if position < len(name) and name[position] != "/":
        return None
    return found


def compile_pattern(pattern):
    """``"{agent}/{task}/seed_{seed}"``, a callable, or None -> :class:`Pattern`.

    Raises OptionError for a pattern that is not text, longer than :data:`MAX_PATTERN_LENGTH`
    characters, with more than :data:`MAX_FIELDS` fields and ``*``, with no field, with a field
    named twice, a stray brace, or two fields (or a field and ``*``) with nothing between them.
    """
    if pattern is None or callable(pattern):
        return Pattern(pattern, ())
    if not isinstance(pattern, str) or not pattern.strip("/"):
        raise OptionError(f"pattern= must be text such as '{{agent}}/{{task}}/seed_{{seed}}' or a callable; "
                          f"got {pattern!r}")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise OptionError(f"pattern= has {len(pattern):,} characters, more than the {MAX_PATTERN_LENGTH:,} a path "
                          "may have; write the part of the path that names the run, e.g. "
                          "'{agent}/{task}/seed_{seed}'")
    text = pattern.strip("/")
    wildcards = list(WILDCARD.finditer(text))
    if len(wildcards) > MAX_FIELDS:
        raise OptionError(f"pattern {_short(pattern)} has {len(wildcards)} fields and '*', more than the "
                          f"{MAX_FIELDS} allowed; name only the parts of the path that tell runs apart")
    names = [m.group(1) for m in wildcards if m.group(1)]
    if not names:
        raise OptionError(f"pattern {_short(pattern)} has no {{field}}; write e.g. '{{agent}}/{{task}}/seed_{{seed}}'")
    twice = next((name for i, name in enumerate(names) if name in names[:i]), None)
    if twice is not None:
        raise OptionError(f"pattern {_short(pattern)} names the field {{{twice}}} twice")
    literals = [text[a.end():b.start()] for a, b in zip(wildcards, wildcards[1:])] + [text[wildcards[-1].end():]]
    for literal in [text[:wildcards[0].start()]] + literals:
        if "{" in literal or "}" in literal:
            raise OptionError(f"pattern part {_short(literal)} has a brace that is not a {{field}}; fields are names "
                              "such as {agent}")
    for before, after, literal in zip(wildcards, wildcards[1:], literals):
        if not literal:
            raise OptionError(f"pattern {_short(pattern)} puts {after.group(0)} right after {before.group(0)}, so "
                              "a name could be split between them in many ways; put a separator between them, "
                              f"e.g. '{before.group(0)}_{after.group(0)}'")
    pieces = tuple((m.group(1), literal) for m, literal in zip(wildcards, literals))
    return Pattern(pattern, tuple(names), text[:wildcards[0].start()], pieces)


def _short(text, limit=80):
    """``repr(text)``, cut to ``limit`` characters for a message."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text):,} characters)"


def _wildcards(root):
    """For a missing path with a shell wildcard in it, the way on: the folder above them, and pattern= (audit s20:
    "no such folder: logs/*/seed_1" said no more)."""
    parts = root.parts
    first = next((i for i, part in enumerate(parts) if any(c in part for c in "*?[")), None)
    if first is None:
        return ""
    holder = Path(*parts[:first]) if first else "the current folder"
    return (f"wildcards are not expanded: give the folder holding the runs, {holder}, and choose them with a pattern, "
            "e.g. pattern='{agent}/{task}/seed_{seed}'")


def discover(root, format, remote=None, max_files=MAX_FILES):
    """Log files under ``root`` (a folder or one file, a local path or a URL) by format: (the folder,
    {format: [relative posix paths]}, whether ``root`` was one file, the folders under symbolic links not followed,
    the files listed that no format read, relative to the folder).

    ``format`` narrows the search to one format (and reads the files its record says it reads); files are
    listed in sorted order, which for TensorBoard event files (named by their creation time) is the order
    they were written. A URL is listed through fsspec (:mod:`._remote`, with ``remote``: its
    :class:`~._remote.RemoteOptions`) in the same order, and its files are told apart by the same names. Neither
    walk follows a symbolic link to a folder (a W&B folder's ``latest-run`` would read a run twice); such links are
    returned, relative to the folder, so that the read names them. A local listing is bounded by ``max_files`` as a
    URL's is by its options'.
    """
    unfollowed, local = [], not is_url(root)
    if not local:
        from ._remote import RemoteOptions, list_url

        root, single, listed, unfollowed = list_url(root, remote or RemoteOptions({}))
    else:
        if not isinstance(root, (str, os.PathLike)):
            raise OptionError(f"path= must be a folder or file name (text or a Path) or a URL, got "
                              f"{type(root).__name__} {root!r:.60}")
        if not os.fspath(root):  # Path("") is the current folder: an unset variable would read it (audit s20)
            raise OptionError("the path read is empty text (an unset variable?); give the folder of runs, '.' for the "
                              "current folder")
        root = Path(root)
        single = root.name if root.is_file() else None
        if single is None and not root.is_dir():
            from ..tables import not_regular

            special = not_regular(root, "give the folder of runs (or one log file)")
            if special is not None:
                raise LogReadError(special)
            raise LogReadError(f"no such folder: {root}; " + (_wildcards(root) or "give the folder of runs (or one log "
                                                                                   "file)"))
        root, listed = (root.parent, []) if single is not None else (root, _walk(root, unfollowed, max_files))
    if single is not None:
        kind = format or file_format(single)
        if kind is None:
            # the formats that read a file of this ending under any name (marl-eval's JSON): named first (audit s29)
            fits = [name for name, record in FORMATS.items() if record.reads(single)]
            raise LogReadError(f"{root / single} is not a log file rlstats knows; pass format= "
                               f"(one of {', '.join(FORMATS)})"
                               + "".join(f"; format={name!r} reads any {FORMATS[name].any_name_ending} file"
                                         for name in fits))
        return root, {kind: [single]}, True, [], []
    found, others = {}, []
    for relative in listed:
        name = relative.rsplit("/", 1)[-1]
        kind = file_format(name) if format is None else format if FORMATS[format].reads(name) else None
        if kind is not None:
            special = _special(root, relative) if local else None
            if special is not None:  # a pipe named progress.csv would block the read: never opened
                raise LogReadError(special)
            found.setdefault(kind, []).append(relative)
        else:
            others.append(relative)
    return root, found, False, sorted(unfollowed), others


def _special(root, relative):
    from ..tables import not_regular

    return not_regular(Path(root) / relative, "move it out of the folder of runs, whose log files are all read")


def _walk(root, unfollowed, max_files=MAX_FILES):
    """Every file under the folder ``root``, relative to it, a folder's files (sorted) before its folders (sorted),
    depth first, as ``os.walk`` with sorted names gives them but with a stack, not recursion (audit s17: a log 1,100
    folders deep was a bare RecursionError under Python 3.11); the subfolders that are symbolic links (not followed)
    are added to ``unfollowed``, relative to ``root``, and a folder that cannot be listed is an error, as is a
    listing past ``max_files`` files (every file counts, log or not), stopped there (audit s17: max_files= did
    nothing for a local folder)."""
    stack, listed = [""], 0
    while stack:
        relative = stack.pop()
        try:
            with os.scandir(os.path.join(root, relative) if relative else root) as listing:
                entries = list(listing)
        except OSError as error:
            refuse_unlistable(error, root)
        files, folders = [], []
        for entry in entries:
            path = f"{relative}/{entry.name}" if relative else entry.name
            try:
                folder = entry.is_dir()  # a link to a folder too, as os.walk's
            except OSError:
                folder = False
            (unfollowed if folder and entry.is_symlink() else folders if folder else files).append(path)
        listed += len(files)
        if listed > max_files:
            raise too_many_files(root, max_files, sorted(files))
        yield from sorted(files)
        stack.extend(sorted(folders, reverse=True))


@dataclasses.dataclass(frozen=True)
class Renamed:
    """A run field the path gives in other words than its log states it (kept: the path's), in the file ``source``."""

    field: str
    path_value: str
    stated: str
    source: str


def with_stated(fields, meta, record, source, run=None):
    """``fields`` (the path's) completed by the run fields the log states (``meta``) where the path gives none.

    Returns (fields, the names filled from the log, [Renamed]). A field the path gives otherwise than the log
    states it would silently replace the log's own name (two algorithms of one marl-eval file read as one agent,
    their values then dropped as logged twice): an OptionError naming the file, the field and both values, but for
    a field the format lets a path name in its own words (``record.renamable``), which is kept and returned.

    >>> from rlstats.logs._formats import FORMATS
    >>> with_stated({"agent": "ppo"}, {"task": "Hopper-v4"}, FORMATS["sb3_monitor"], "ppo/0.monitor.csv")
    ({'agent': 'ppo', 'task': 'Hopper-v4'}, ['task'], [])
    >>> with_stated({"task": "hopper"}, {"task": "Hopper-v4"}, FORMATS["sb3_monitor"], "a/0.monitor.csv")[2]
    [Renamed(field='task', path_value='hopper', stated='Hopper-v4', source='a/0.monitor.csv')]
    """
    fields, filled, renamed = dict(fields), [], []
    for name in record.states:
        if name not in meta:
            continue
        if name not in fields:
            fields[name] = meta[name]
            filled.append(name)
        elif str(fields[name]) != str(meta[name]):
            if name in record.renamable:
                renamed.append(Renamed(name, str(fields[name]), str(meta[name]), source))
                continue
            where = f"{source}{'' if run is None else f' (run {run})'}"
            raise OptionError(
                f"pattern= gives {name}={str(fields[name])!r} for {where}, but the file states {name}="
                f"{str(meta[name])!r} ({record.where_stated(name)}); the pattern's value would replace the file's, "
                f"so runs the file tells apart could merge. Drop {{{name}}} from the pattern (the file names it), "
                f"or name that part of the path otherwise, e.g. {{path_{name}}}, to keep both")
    return fields, filled, renamed


def stated_notes(record, filled, renamed, pattern_text, limit=10):
    """Notes on the run fields taken from the logs (``filled``: their names) and on the ones the path names in
    other words than its log (``renamed``: Renamed, the path's kept)."""
    notes = []
    if filled:
        names = [name for name in record.states if name in filled]
        pattern = "the pattern= callable" if callable(pattern_text) else f"the pattern {pattern_text!r}"
        lacking = "there is no pattern" if pattern_text is None else (
            f"{pattern} gives no " + _either([f"{{{name}}}" for name in names]))
        notes.append(f"{plural('column', len(names))} "
                     + ", ".join(f"{name!r} ({record.where_stated(name)})" for name in names)
                     + f" from the logs, as {lacking}")
    if renamed:
        pairs = {}
        for item in renamed:
            pairs.setdefault((item.field, item.path_value, item.stated), []).append(item.source)
        shown = [f"{field} {path!r} in the path, {stated!r} in {record.where_stated(field)} ("
                 + (files[0] if len(files) == 1 else f"{count(len(files), 'file')}, e.g. {files[0]}") + ")"
                 for (field, path, stated), files in list(pairs.items())[:limit]]
        more = f"; and {len(pairs) - limit} more" if len(pairs) > limit else ""
        notes.append(f"{count(len(renamed), 'file')} read {verb(len(renamed), 'names')} a run "
                     f"otherwise than its path, whose name is kept: " + "; ".join(shown) + more)
    return notes


def _either(items):
    """``a``, ``a or b``, ``a, b or c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
