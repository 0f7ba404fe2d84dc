"""The package's exceptions and warnings.

Every input problem raises a subclass of :class:`RlstatsError`, which is a
``ValueError`` so that generic ``except ValueError`` handlers keep working.
"""

import contextlib
import functools
import re
import shlex
import types
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any


class RlstatsError(ValueError):
    """Base class of every error rlstats raises for bad input.

    ``command_line``, where given, is the message as the ``rlstats`` command shows it: the same finding, with advice
    that is an action on the file or a flag rather than pandas code (``df.rename(...)``), which a user of the command
    cannot run.  Python shows ``str(error)``.
    """

    command_line: str | None

    def __init__(self, *args: object, command_line: str | None = None) -> None:
        super().__init__(*args)
        self.command_line = command_line


class FormulaError(RlstatsError):
    """The formula text cannot be parsed or names something that is not there."""


class DesignError(RlstatsError):
    """The data do not fit the design the formula describes."""


class OptionError(RlstatsError):
    """A keyword option has a value outside its allowed set or range."""


class DataUnavailableError(RlstatsError):
    """A published dataset cannot be fetched or fails its checksum."""


class LogReadError(RlstatsError):
    """Training logs cannot be read: unreadable, truncated, empty or missing what was asked for."""


#: The public function a user called (its name), whose options a refusal's way on names: a back end reached through
#: :func:`rlstats.power` must not tell its user to pass ``subset=``, which power() does not take (audit s28). Set by
#: :func:`called_as` (every public function's wrapper, :func:`rlstats.design.public_function`, and power()); unset,
#: or a function not in :data:`ENTRIES`, the way on is :func:`rlstats.compare`'s.
ENTRY: ContextVar[str | None] = ContextVar("rlstats_entry", default=None)

#: entry -> (the Python function, the command that calls it): the names a way on gives for where to go
ENTRIES = {"compare": ("rlstats.compare", "rlstats compare"), "power": ("rlstats.power", "rlstats power"),
           "sample_size": ("rlstats.sample_size", "rlstats power --target-power"),
           "summarize_runs": ("rlstats.summarize_runs", "rlstats compare --summarize"),
           "align_steps": ("rlstats.align_steps", "rlstats compare"),
           # rlstats.build: the command line builds its Designs through compare, never build itself
           "build": ("rlstats.build", "rlstats compare")}


def entry() -> str:
    """The key of :data:`ENTRIES` whose ways on a message gives: the function called, else compare's."""
    called = ENTRY.get()
    return called if called in ENTRIES else "compare"


#: entry -> the option that sets the runs per cell of the data it draws itself, where "add runs" is a number of
#: seeds to simulate: power() simulates seeds=, sample_size() searches from min_seeds= (the command line's hint
#: rewriter spells them --seeds and -o min_seeds=)
_PLANNED_RUNS = {"power": "seeds=", "sample_size": "min_seeds="}


def planned_runs() -> str | None:
    """The option of the function the user called (:data:`ENTRY`) that sets the runs per cell it simulates, or None
    where the runs are the user's data: a back end's "add runs" is then "simulate more seeds" (audit s28)."""
    return _PLANNED_RUNS.get(entry())


@contextlib.contextmanager
def called_as(entry: str) -> Iterator[None]:
    """Within it, refusals name the ways on of ``entry`` (a public function's name); the outermost call decides, so
    that power()'s ways hold through the back ends it runs (and sample_size()'s through the power() rows it asks)."""
    token = ENTRY.set(entry) if ENTRY.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            ENTRY.reset(token)


class RlstatsWarning(UserWarning):
    """Warnings about the data or the method that do not stop the analysis.

    ``command_line``, where given, is the warning as the ``rlstats`` command shows it, as for :class:`RlstatsError`
    (audit s34: power's raw-scales warning named rlstats.normalize() there, which a user of the command cannot
    run). Python shows ``str(warning)``.
    """

    command_line: str | None

    def __init__(self, *args: object, command_line: str | None = None) -> None:
        super().__init__(*args)
        self.command_line = command_line


def repeated_index_rows(index: Any, positions: Sequence[int], limit: int = 5) -> str | None:
    """Rows an error names by position where the frame's index repeats labels (None where labels name them): an
    index of repeated labels, such as one left by pd.concat, names several rows by one label (audit s8: 'first
    rows: 7, 7')."""
    if index.is_unique:
        return None
    shown_ = ", ".join(str(int(p)) for p in list(positions)[:limit]) + (", ..." if len(positions) > limit else "")
    return f"positions {shown_} (the index repeats labels: df.iloc reads them)"


#: What :func:`rows_named` writes of integer labels, "index labels 4, 9" (", ..." when it names no more), for the
#: messages that say them again in other terms (a file's lines, a wide batch's cells).
INDEX_LABELS = re.compile(r"index labels? (\d+(?:, \d+)*)(, \.\.\.)?")


def rows_named(index: Any, positions: Sequence[int], limit: int = 5) -> str:
    """The first rows an error names, said as what they are: "index labels 4, 9" (df.loc reads them; a bare "4" reads
    as the 4th row), or positions where the index repeats labels.  The command line words integer labels of the
    frame it read as data rows and lines of the file (``cli._shared.rows_in_file``)."""
    positions = list(positions)
    by_position = repeated_index_rows(index, positions, limit)
    if by_position:
        return by_position
    from .grammar import plural

    labels = ", ".join(repr(label) for label in index[positions[:limit]].tolist())
    return f"{plural('index label', len(positions))} {labels}" + (", ..." * (len(positions) > limit))


def rows_described(index: Any, positions: Iterable[int], fields: Sequence[tuple[str, Any]], limit: int = 3) -> str:
    """The first rows an error names with what they hold: "index label 7 (agent 'ppo', task 'Pong', score inf), ...
    and 2 more" (``fields``: (word, column or array) pairs, read by position; the bounds' and the normalisers' range
    errors)."""
    import numpy as np

    def plain(value):  # numpy scalars as Python's: 'inf', not 'np.float64(inf)'
        return repr(value.item() if isinstance(value, np.generic) else value)

    positions = list(positions)
    at = lambda values, i: values.iloc[i] if hasattr(values, "iloc") else values[i]  # noqa: E731  (by position)
    parts = [f"index label {plain(index[i])} ({', '.join(f'{word} {plain(at(values, i))}' for word, values in fields)})"
             for i in positions[:limit]]
    return ", ".join(parts) + (f" and {len(positions) - limit} more" if len(positions) > limit else "")


def index_level_hint(name: object, table: str = "data", variable: str = "df") -> str:
    """The way on from a name that is no column but a level of the ``table``'s index (a ``groupby`` result's keys),
    for the formula's and ``subset=``'s errors (audit s22) and a normalisation's data and reference (audit s31)."""
    return (f"{name!r} is a level of the {table}'s index, not a column (a groupby result keeps its keys there); move "
            f"the index into the columns first: {variable} = {variable}.reset_index()")


def shown(value: object) -> str:
    """A value as an error message may quote it: a frame, array or table by its type and shape, never its cells.

    Anything else is its repr, cut at 200 characters, so no message ever dumps a data set.
    """
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and len(shape) > 0:
        return f"a {type(value).__name__} of shape {shape}"
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def close_names(value: object, names: Iterable[Any], *, n: int | None = 3, cutoff: float = 0.6,
                tied: bool = False) -> list[Any]:
    """The names of ``names`` that ``value`` most likely misspells, most likely first: the one home of the ranking
    behind every "did you mean ...?".

    Those equal to it but for case and white space at the ends come first, and alone; else those whose
    ``difflib.SequenceMatcher`` ratio with it (both case-folded, ends stripped) is at least ``cutoff``, the more
    similar first and, of equally similar, the earlier in ``names``. At most ``n`` (None: all); with ``tied`` only
    those as similar as the most similar. A value or name that is not text is compared by its text (``str``); the
    names are returned as given, for the caller to quote (``repr`` quotes a name holding a comma whole).

    >>> close_names("ppo", ["PPO2", "PPO", "DQN"]), close_names("agent_4", ["agent_1", "agent_2"], n=1)
    (['PPO'], ['agent_1'])
    """
    import difflib

    names = list(dict.fromkeys(names))
    key = str(value).strip().casefold()
    folded = [str(name).strip().casefold() for name in names]
    same = [name for name, text in zip(names, folded) if text == key]
    if same:
        return same[:n]
    matcher, scored = difflib.SequenceMatcher(), []
    matcher.set_seq2(key)  # difflib caches what it learns of seq2: the value, compared with every name
    for i, text in enumerate(folded):
        matcher.set_seq1(text)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff and matcher.ratio() >= cutoff:
            scored.append((-matcher.ratio(), i))
    scored.sort()
    if tied:
        scored = [(ratio, i) for ratio, i in scored if ratio == scored[0][0]]
    return [names[i] for _, i in scored[:n]]


#: Names of statistics that read alike but are none the other's misspelling ('median' and 'mean': a ratio of 0.8)
_STATISTIC_NAMES = frozenset({"mean", "median", "iqm", "min", "max", "mode", "sum", "std", "var", "optimality_gap"})


def did_you_mean(value: object, allowed: Iterable[object]) -> str:
    """' (did you mean 'x'?)' naming the allowed strings that ``value`` most likely misspells: the one that is the
    same but for case, else the closest by :func:`close_names` (ratio at least 0.75), all of them where
    several are as close (``'procgen_reference'``: the easy and the hard table alike); '' if none is close, if
    ``value`` is not text (a number misspells no option's value), or if ``value`` names another statistic
    (``'median'`` is no misspelling of ``'mean'``: audit s22). Its home is here, beside :func:`close_names`, so
    that the method registry reads it too (audit s36 fixeq36: ``method='equivalance'`` had no close name)."""
    if not isinstance(value, str):
        return ""
    names = [a for a in allowed if isinstance(a, str)]
    key = value.strip().casefold()
    if key in _STATISTIC_NAMES and key not in {a.strip().casefold() for a in names}:
        return ""
    close = close_names(value, names, n=None, cutoff=0.75, tied=True)
    if not close:
        return ""
    return f" (did you mean {', '.join(map(repr, close[:-1]))}{' or ' if len(close) > 1 else ''}{close[-1]!r}?)"


#: a number as ``str()`` prints an int or a float: "9", "-3", "9.0", "1e-05" (a label read as a number, audit s30)
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _number(text: str, printed: bool = False) -> int | float | None:
    """The number ``text`` writes, else None; with ``printed`` only where ``text`` is how ``str()`` prints it (a label
    of a numeric column: "9", "9.0"; not "09", an identifier that is text)."""
    if len(text) > 40 or not _NUMBER.fullmatch(text):  # int() refuses thousands of digits
        return None
    value: int | float = int(text) if text.lstrip("+-").isdigit() else float(text)
    return value if not printed or str(value) == text else None


def label_value(option: str, name: object, *, what: str = "agent") -> str | int | float:
    """``name``, what an option naming one agent (task) was given, as a value a label can be read from: text or a
    number (numpy's scalars as Python's: int64(9) is 9); a list, None or a dict is an OptionError naming the option.
    What the options classes check before the data are read; :func:`label_named` reads it against the labels."""
    if type(name).__module__ == "numpy" and hasattr(name, "item"):
        name = name.item()  # numpy's scalars: int64(9) is 9, float64(9.0) 9.0, bool_(True) True
    if not isinstance(name, (str, int, float)):
        from .grammar import a_or_an

        raise OptionError(f"{option}= names {a_or_an(what)} as it appears in the data, by its text or number (e.g. "
                          f"'DQN' or 3); got {type(name).__name__} {shown(name)}")
    return name


class _TypedInt(int):
    """An int the command line read from text, with that text as typed (``typed``): :func:`typed_number`."""

    typed: str


class _TypedFloat(float):
    """A float the command line read from text, with that text as typed (``typed``): :func:`typed_number`."""

    typed: str


def typed_number(value: int | float, text: str) -> int | float:
    """``value``, the number the command line read from ``text`` (``-o control=1e3``: 1000.0), remembering ``text``:
    a number to every option that takes one, the text as typed to one naming an agent or a task, which
    :func:`label_named` reads first (review s31: agents "1e3" and "1000", -o control=1e3 named "1000"), and what the
    errors echo (:func:`as_given`). Equal to, hashed and computed with as ``value``; its repr is ``value``'s."""
    number: _TypedInt | _TypedFloat = _TypedInt(value) if isinstance(value, int) else _TypedFloat(value)
    number.typed = text
    return number


def other_value_said(name: str, value: object, allowed: Iterable[object],
                     table: Mapping[str, tuple[str | None, str, str]]) -> str:
    """'; <what it is> is name='<rlstats value>' here<more>' where ``value`` is another package's value of option
    ``name`` (``table``: its case-folded spelling -> (the rlstats value, what it is, what goes with it)) and that
    value is ``allowed``; else ''. The one way R's and PMCMRplus' values are answered: ``options.VALUE_HABITS``
    (posthoc='nemenyi'), the back ends' ``other_names`` (method='friedman'); audit s31 rfix31e. A value whose rlstats
    value is None is one no value here does (R's na.pass): '; <what it is> has no counterpart here<more>', ``more``
    saying what to use (audit s32 rhabit32)."""
    if not isinstance(value, str):
        return ""
    found = table.get(value.strip().casefold())
    if found is None:
        return ""
    own, what, more = found
    if own is None:
        return f"; {what} has no counterpart here{more}"
    return f"; {what} is {name}={own!r} here{more}" if own in allowed else ""


def as_given(value: object) -> str:
    """``value`` as a message echoes what the user gave: the command line's text as typed (:func:`typed_number`:
    ``1e3``), else its repr (``'DQN'``, ``9.0``)."""
    typed = getattr(value, "typed", None)
    return typed if isinstance(typed, str) else repr(value)


def label_named(labels: Sequence[str], option: str, name: object, *, what: str = "agent",
                listed: bool = False) -> str | None:
    """The one of ``labels`` (the data's agents or tasks, as printed) that ``name``, an option's value, names: the
    one rule of every option naming an agent or a task (audit s30: control=9 was refused where the agents are the
    integer codes 0..9 of an RL log, while treatment=7 was taken).

    A label is named as it prints. Text names the label that is that text, else the one label printing the number
    the text writes as ``str()`` prints it ("9" names 9.0 of a float column; "09" names no 9); the command line's
    number is its text as typed (:func:`typed_number`: -o control=1e3 names the agent "1e3", else the number). A
    number names the labels printing it or the same number (9, numpy's int64(9) and 9.0 name the agent printed 9 of
    an int column, 9.0 of a float one); one naming two labels, by its text and as the same number (9.0 where the
    agents are the int 9 and the text "9.0", review s31), is an OptionError naming both, never one taken silently
    (``listed``: a name among those an option lists or keys). A bool names only a label printed True or False (a
    boolean column): True is not the agent 1. Any other value (a list, None, a dict) is an OptionError naming the
    option. Returns None where ``name`` names none of ``labels`` (:func:`agent_named` says so)."""
    name = label_value(option, name, what=what)
    if isinstance(name, bool):
        return str(name) if str(name) in labels else None
    text = name if isinstance(name, str) else getattr(name, "typed", None)
    if text is not None and text in labels:
        return text  # text as given, or as the command line typed it: an exact match wins
    value = _number(name, printed=True) if isinstance(name, str) else name
    if value is None:
        return None
    printed = None if isinstance(name, str) else str(name)  # a number: the label printing it ("inf" too)
    same = [label for label in labels if label == printed or (value == value and _number(label, printed=True) == value)]
    if len(same) > 1:
        by_text = (text or printed) in same  # the command line's 9e0 is "9e0": it names '9' and '9.0' as a number
        how = "one by its text, one as the same number" if by_text else "each as the same number"
        said = f"{as_given(name)} in {option}=" if listed else f"{option}={as_given(name)}"
        from .grammar import plural

        raise OptionError(f"{said} names both the {plural(what)} {', '.join(map(repr, same[:-1]))} and {same[-1]!r} "
                          f"({how}); give the one meant as text: {' or '.join(map(repr, same))}")
    return same[0] if same else None


#: The most keys a mapping keyed by agent or task (``threshold=``, ``bounds=``, ``hue=``) may hold beyond the data's
#: labels: a benchmark's table names more tasks than one analysis holds, but each key is named against the labels
#: (:func:`label_named`, some microseconds), and 10**6 keys took 5.9 s to refuse (audit s38 loud38).
MAX_EXTRA_KEYS = 10_000


def check_key_count(labels: Sequence[str], option: str, mapping: Any, *, what: str = "task") -> None:
    """An OptionError where ``mapping`` has more keys than ``labels`` and :data:`MAX_EXTRA_KEYS` others together,
    before any key is read: its size only, so a huge mapping is refused at once."""
    n_keys = len(mapping)
    if n_keys > len(labels) + MAX_EXTRA_KEYS:
        from .grammar import count, plural

        raise OptionError(f"{option}= has {count(n_keys, 'key')}, more than the data's {count(len(labels), what)} and "
                          f"the {MAX_EXTRA_KEYS:,} others a table of a whole benchmark may name; keep the keys naming "
                          f"the data's {plural(what)}")


def labels_keyed(labels: Sequence[str], option: str, mapping: Any, *, what: str = "task",
                 where: str = "") -> dict[Any, Any]:
    """``mapping`` (a dict or Series keyed by agent or task: ``threshold=``, ``bounds=``, ``hue=``) keyed by the
    labels its keys name (:func:`label_named`); two keys naming one label ({3: 1.0, "3": 2.0}) are an OptionError,
    not one silently kept, and so is a key naming none of ``labels``, in :func:`agent_named`'s wording (did you
    mean, the labels; ``where``: the column they are read from), the others naming none counted after it (review
    s30: threshold={'x': .2, 'y': .3, 'yy': 5} ignored 'yy')."""
    check_key_count(labels, option, mapping, what=what)
    out: dict[Any, Any] = {}
    given: dict[Any, Any] = {}
    unknown: list[Any] = []
    for key, value in mapping.items():
        label = label_named(labels, option, key, what=what, listed=True)
        if label is None:
            unknown.append(key)
            continue
        if label in out:
            raise OptionError(f"{option}= names the {what} {label!r} twice, as {as_given(given[label])} and "
                              f"{as_given(key)}; give it once")
        out[label], given[label] = value, key
    if unknown:
        try:
            agent_named(labels, option, unknown[0], where, listed=True, what=what)
        except OptionError as error:
            from .grammar import count, verb

            more = (f"; {option}= also names {count(len(unknown) - 1, 'more key')} that {verb(len(unknown) - 1, 'is')} "
                    f"no {what}: "
                    f"{', '.join(as_given(label_value(option, k, what=what)) for k in unknown[1:6])}"
                    f"{' ...' if len(unknown) > 6 else ''}" if len(unknown) > 1 else "")
            raise OptionError(f"{error}{more}") from None
    return out


def agent_named(agents: Sequence[str], option: str, name: object, where: str = "",
                left_out: dict[str, str] | None = None, *, listed: bool = False, what: str = "agent") -> str:
    """The label of ``agents`` that ``name`` names (:func:`label_named`, the one rule: 9, np.int64(9) and "9" name
    the agent printed 9); else the one wording of an unknown agent, whatever the option, an OptionError:
    "control='PP0' is not an agent in column 'agent' (did you mean 'PPO'?); the agents are: 'DQN', 'PPO'", or with
    ``listed`` (a name among those an option lists, ``pairs=``) "'PP0' in pairs= is not an agent ...".
    ``where``: the column the agents are read from; ``left_out``: agent -> why the data's agent was left out
    (:func:`rlstats.design.check_agent_named` passes a Design's); ``what``: "task" for a task's name, said alike."""
    label = label_named(agents, option, name, what=what, listed=listed)
    if label is not None:
        return label
    name = label_value(option, name, what=what)
    gone = label_named(list(left_out), option, name, what=what, listed=listed) if left_out else None  # the one rule
    why = left_out[gone] if left_out and gone is not None else None
    close = close_names(getattr(name, "typed", name), agents)  # quoted: "R&D, Inc" is one name
    hint = (f" ({why}, left out)" if why else f" (did you mean {', '.join(map(repr, close))}?)" if close else "")
    kind = " (a boolean)" if isinstance(name, bool) else ""  # True is not the agent 1 (label_named)
    said = f"{as_given(name)}{kind} in {option}=" if listed else f"{option}={as_given(name)}{kind}"
    from .grammar import a_or_an, plural

    raise OptionError(f"{said} is not {a_or_an(what)}{where}{hint}; the {plural(what)} are: "
                      f"{', '.join(map(repr, agents))}")


def warn(message: str, command_line: str | None = None) -> None:
    """Issue a RlstatsWarning attributed to the first caller outside rlstats (``command_line``: its wording on the
    command line, :class:`RlstatsWarning`).

    A fixed ``stacklevel`` is wrong as soon as the same back end is reached
    through ``compare()`` or ``power()``; walking the stack is always right.
    """
    import sys
    import warnings

    frame: types.FrameType | None
    level, frame = 2, sys._getframe(1)  # stacklevel 2 is the frame that called warn()
    while frame is not None and _inside_package(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    if command_line is None:
        warnings.warn(message, RlstatsWarning, stacklevel=level)
    else:
        warnings.warn(RlstatsWarning(message, command_line=command_line), stacklevel=level)


@functools.lru_cache(maxsize=512)
def _inside_package(filename):
    """Whether a code file belongs to rlstats; resolving paths costs ~0.1 ms, paid per warning in power() loops."""
    from pathlib import Path

    return str(Path(filename).resolve()).startswith(str(Path(__file__).resolve().parent))


def shell_word(text: str) -> str:
    """``text`` as one word of a shell command: bare if it can be, else in double quotes where nothing in it is
    special there (readable around single quotes), else shlex's quoting. An interactive bash expands '!' in
    double quotes only before a word, so '!=' (a subset hint) keeps the double quotes, as compare's help writes it.
    The one quoting of a command a message shows (the command line's, and ``command_line`` messages')."""
    quoted = shlex.quote(text)
    if quoted == text or re.search(r'["$`\\]|!(?![=\s])', text):
        return quoted
    return f'"{text}"'


def _pip_record() -> tuple[Any, Any]:
    """(rlstats' installed distribution or None, pip's record of where it came from: direct_url.json read, or None
    where there is none or it does not parse): the one read of them that the install hints' questions share."""
    import importlib.metadata
    import json

    try:
        distribution = importlib.metadata.distribution("rlstats")
    except importlib.metadata.PackageNotFoundError:
        return None, None
    try:
        record = json.loads(distribution.read_text("direct_url.json") or "null")
    except (ValueError, AttributeError):
        record = None
    return distribution, record


def _source_checkout() -> str | None:
    """The folder of the source checkout this rlstats was installed from (pip's record of a local directory install,
    editable or not), or the one it runs from without installing (its parent holds setup.cfg); None otherwise."""
    from pathlib import Path
    from urllib.parse import unquote, urlparse

    _, record = _pip_record()
    url = record.get("url", "") if isinstance(record, dict) and "dir_info" in record else ""
    if isinstance(url, str) and url.startswith("file://"):
        return unquote(urlparse(url).path)
    here = Path(__file__).resolve().parents[1]
    return str(here) if (here / "setup.cfg").is_file() and (here / "rlstats").is_dir() else None


def _editable_install() -> bool:
    """Whether this rlstats is an editable install of a checkout (its hint then keeps it editable: pip install without
    -e would replace it with a copy, audit s32 fin32a): pip's record says so (direct_url.json's dir_info.editable),
    or, without a record, the install holds a PEP 660 ``__editable__`` file or is setuptools' develop (an .egg-link
    to the checkout's .egg-info). A record that says otherwise (a local folder installed as a copy) is believed."""
    from pathlib import Path

    distribution, record = _pip_record()
    if distribution is None:
        return False
    if isinstance(record, dict):
        info = record.get("dir_info")
        return isinstance(info, dict) and info.get("editable") is True
    if any(Path(str(file)).name.startswith("__editable__") for file in distribution.files or ()):
        return True
    where = getattr(distribution, "_path", None)  # setuptools' develop: the metadata is the checkout's .egg-info
    return where is not None and Path(str(where)).suffix == ".egg-info" and (Path(str(where)).parent
                                                                             / "setup.cfg").is_file()


def _from_an_index() -> bool:
    """Whether this rlstats was installed from a package index (installed, with no record of a local source)."""
    distribution, record = _pip_record()
    return distribution is not None and record is None


def _extra_packages(extra: str) -> list[str]:
    """The requirements of ``extra`` as the installed rlstats records them (setup.cfg's extras_require), without
    their versions and markers; empty where rlstats is not installed."""
    import importlib.metadata

    try:
        requires = importlib.metadata.requires("rlstats") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    out = []
    for requirement in requires:
        name, _, marker = requirement.partition(";")
        if re.search(rf"""extra\s*==\s*["']{re.escape(extra)}["']""", marker):
            out.append(re.split(r"[<>=!~ ]", name.strip(), maxsplit=1)[0])
    return out


def install_hint(extra: str, packages: Sequence[str] | None = None) -> str:
    """How to install an optional part of rlstats (``extra``, setup.cfg's extras_require; ``packages``: what it
    installs, by name; by default those the installed rlstats records for it), the one home of every such hint: the
    command as this rlstats was installed. From a source checkout (pip's direct_url.json, or running from one): the
    extra of that folder, with -e for an editable install (:func:`_editable_install`); from a package index:
    ``rlstats[extra]``; else (a wheel file) the packages themselves. The packages alone are named too, since they
    always work (audit s32: the hints said pip install 'rlstats[logs]' while the name rlstats is not yet claimed on
    PyPI, so that command installs nothing of ours).

    >>> install_hint("logs", ["tensorboard"]).endswith("alone: pip install tensorboard)")
    True
    """
    packages = _extra_packages(extra) if packages is None else packages
    alone = " ".join(shell_word(p) for p in packages)
    also = f" (or the {'package' if len(packages) == 1 else 'packages'} alone: pip install {alone})" if packages else ""
    checkout = _source_checkout()
    if checkout is not None:
        editable = "-e " if _editable_install() else ""
        return f"pip install {editable}{shell_word(f'{checkout}[{extra}]')}{also}"
    if _from_an_index():
        return f"pip install {shell_word(f'rlstats[{extra}]')}{also}"
    if not packages:  # not installed: run from a copy of the sources
        return f"pip install {shell_word(f'.[{extra}]')} in a source checkout of rlstats"
    return f"pip install {alone} (from a source checkout of rlstats: pip install {shell_word(f'.[{extra}]')})"
