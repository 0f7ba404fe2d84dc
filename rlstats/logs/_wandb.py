"""``read_wandb``: runs of a W&B project through the public ``wandb.Api``, into the same long frame.

Only the documented public interface is used: ``Api().runs(path, filters=...)`` and, for each run,
``run.id``, ``run.name``, ``run.group``, ``run.config`` and ``run.scan_history(keys=[...])`` (every
logged row, unsampled, as dicts with ``_step`` and ``_timestamp``). The wandb package is imported only
here, and only when no ``api`` is passed; reaching W&B needs network access. Without either, export
the runs' charts as CSV from the web UI and read them with ``read_logs(..., format="wandb_csv")``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from ..provenance import Note, set_notes
from ..errors import LogReadError, OptionError
from ..format import count, verb
from ..options import check_bool, check_choice, keywords_checked
from ..progress import progress_bar
from ._formats import LABELS
from ._layout import compile_pattern
from ._pieces import Piece
from ._read import (KEEP, ON_ERROR, READ_LOG_ATTR, ReadLog, ReadProblem, _assemble, _fail_or_warn, _frame_runs,
                    _nonfinite_note, _ordered_fields, _sorted_runs, _warn_misspelt_fields, check_columns, run_label,
                    tag_mapping)

if TYPE_CHECKING:
    import pandas as pd

RUN_ATTRIBUTES = ("name", "id", "group")


def _api(api):
    if api is not None:
        return api
    try:
        import wandb
    except ImportError as exc:
        raise LogReadError("read_wandb needs the wandb package (pip install wandb) and network access to W&B; "
                           "offline, export the charts as CSV from the web UI and read them with "
                           "rlstats.read_logs(folder, format='wandb_csv')") from exc
    try:
        return wandb.Api()
    except Exception as exc:  # no API key, no network: wandb raises its own errors
        raise LogReadError(f"cannot reach the W&B public API ({type(exc).__name__}: {exc}); log in with "
                           "`wandb login` or set WANDB_API_KEY, or read a CSV export with read_logs") from exc


def _lookup(run, where):
    """A run attribute (name, id, group) or a config value (``config`` key, dots for nesting)."""
    if where in RUN_ATTRIBUTES:
        return getattr(run, where, None)
    value = dict(getattr(run, "config", {}) or {})
    for part in where.removeprefix("config.").split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    if isinstance(value, dict) and set(value) == {"value"}:  # raw config entries come as {"value": x}
        value = value["value"]
    return value


@keywords_checked  # a keyword it does not take: an OptionError naming it, not Python's TypeError
def read_wandb(path: str, *, keys: str | Sequence[str] | dict[str, str], filters: dict[str, Any] | None = None,
               fields: dict[str, str] | None = None, pattern: str | Callable[..., Any] | None = None,
               step: str = "_step", keep: str = "last", on_error: str = "raise", progress: bool = True,
               api: Any = None) -> pd.DataFrame:
    """Read the runs of a W&B project into the long frame of :func:`rlstats.read_logs`.

    Parameters
    ----------
    path : str
        ``"entity/project"``.
    keys : str, list of str or dict
        The logged metrics to read; a dict maps each to its column name.
    filters : dict, optional
        MongoDB-style run filters passed to ``wandb.Api().runs``, e.g. ``{"state": "finished"}``.
    fields : dict, optional
        Column -> where its value comes from: ``"name"``, ``"id"``, ``"group"`` or a config key
        (``"config.env_id"`` or ``"env_id"``; dots for nested keys), e.g.
        ``{"agent": "group", "task": "env_id", "seed": "seed"}``.
    pattern : str or callable, optional
        Matched against each run's name, as in :func:`read_logs` (``"{agent}_{task}_{seed}"``);
        runs it does not match are left out and counted.
        Without ``fields`` and ``pattern``, a column ``run`` holds each run's name. A column both
        give must agree on every run (else an OptionError names both values). Two W&B runs given the
        same fields (a crashed run and its rerun) are an OptionError naming both, as they would be read
        as one run: tell them apart (``fields={..., "run_id": "id"}``) or read one
        (``filters={"state": "finished"}``).
    step : str
        The history key of the step (default ``_step``, W&B's own counter).
    keep, on_error, progress
        As in :func:`read_logs`.
    api : object, optional
        A ``wandb.Api()`` (or anything with its ``runs`` method); by default one is made, which
        needs the wandb package, an API key and network access.

    Returns
    -------
    pandas.DataFrame
        As :func:`read_logs`: the fields, ``step``, one column per key, ``wall_time`` (from
        ``_timestamp``) and ``source`` (``wandb:entity/project/<run id>``).

    See Also
    --------
    rlstats.read_logs : The same long frame from log files on disk.

    Examples
    --------
    W&B needs network access; any object with ``wandb.Api``'s ``runs`` method stands in for it here:

    >>> from types import SimpleNamespace
    >>> import rlstats
    >>> def run(name, seed):
    ...     history = [{"_step": s, "_timestamp": 1e9 + s, "return": seed + s} for s in (0, 1)]
    ...     return SimpleNamespace(id=name, name=name, group="PPO", config={"env_id": "CartPole-v1", "seed": seed},
    ...                            scan_history=lambda keys=None, **_: iter(history))
    >>> api = SimpleNamespace(runs=lambda path, filters=None, **_: [run("a", 0), run("b", 1)])
    >>> df = rlstats.read_wandb("me/project", keys={"return": "score"}, api=api, progress=False,
    ...                         fields={"agent": "group", "task": "env_id", "seed": "seed"})
    >>> df[["agent", "task", "seed", "step", "score"]]
      agent         task  seed  step  score
    0   PPO  CartPole-v1     0     0    0.0
    1   PPO  CartPole-v1     0     1    1.0
    2   PPO  CartPole-v1     1     0    1.0
    3   PPO  CartPole-v1     1     1    2.0
    """
    keep = check_choice("keep", keep, KEEP)
    on_error = check_choice("on_error", on_error, ON_ERROR)
    progress = check_bool("progress", progress)
    mapping = tag_mapping(keys, "keys")
    if fields is not None and not isinstance(fields, dict):
        raise OptionError(f"fields= maps columns to run attributes or config keys, e.g. "
                          f"{{'task': 'env_id', 'seed': 'seed'}}; got {fields!r}")
    compiled = compile_pattern(pattern)
    client = _api(api)
    try:
        runs = list(client.runs(path, filters=filters or {}))
    except Exception as exc:
        raise LogReadError(f"cannot list the runs of W&B project {path!r} ({type(exc).__name__}: {exc})") from exc
    if not runs:
        raise LogReadError(f"the W&B project {path!r} has no runs{' matching the filters' if filters else ''}")

    problems, ignored, sources = [], [], []
    grouped: dict[Any, Any] = {}
    field_names = list(compiled.fields) + [f for f in (fields or {}) if f not in compiled.fields]
    check_columns(field_names, mapping, option="keys", where="pattern= or fields=")
    _warn_misspelt_fields(field_names)
    first_of: dict[Any, tuple[str, str]] = {}  # run fields -> the W&B run (name, source) that gave them first
    with progress_bar(len(runs), progress, "reading W&B runs") as advance:
        for run in runs:
            source = f"wandb:{path}/{getattr(run, 'id', '?')}"
            name = str(getattr(run, "name", None) or getattr(run, "id", "?"))
            advance(1)
            found = {}
            if compiled.text is not None:
                matched = compiled.match(name)
                if matched is None:
                    ignored.append(f"{source} ({name})")
                    continue
                found.update(matched)
            for column, where in (fields or {}).items():
                value = _lookup(run, where)
                if column in found and str(found[column]) != str(value):  # else one would replace the other unsaid
                    raise OptionError(f"pattern= gives {column}={str(found[column])!r} for run {name!r} ({source}), "
                                      f"but fields= takes {column}={str(value)!r} from its {where!r}; give "
                                      f"{column!r} one source: drop {{{column}}} from the pattern or {column!r} from "
                                      f"fields=, or name one of them otherwise")
                found[column] = value
            if not found:
                found = {"run": name}
                if "run" not in field_names:
                    field_names.append("run")
            try:
                pieces, missing = [], []
                for key in mapping:
                    rows = [r for r in run.scan_history(keys=[step, key]) if r.get(key) is not None]
                    if not rows:
                        missing.append(key)
                        continue
                    pieces.append(Piece((key,), np.asarray([r[step] for r in rows]), np.zeros(len(rows), np.intp),
                                        np.asarray([float(r[key]) for r in rows]),
                                        wall_time=np.asarray([float(r.get("_timestamp", np.nan)) for r in rows])))
            except Exception as exc:  # the network, or a run W&B cannot serve
                problems.append(ReadProblem(source, "unreadable", f"{type(exc).__name__}: {exc}"))
                continue
            if missing:
                problems.append(ReadProblem(source, "missing tag", f"run {name!r} logs no "
                                            f"{', '.join(map(repr, missing))}"))
                continue
            key_of_run = tuple(sorted((k, str(v)) for k, v in found.items()))
            if key_of_run in first_of:  # merged, a rerun's values would replace the first's (audit s17)
                other, where = first_of[key_of_run]
                raise OptionError(f"W&B runs {other!r} ({where}) and {name!r} ({source}) have the same "
                                  f"{run_label({k: repr(v) for k, v in found.items()}).replace(' ', ', ')}, so "
                                  "they would be read as one run, the values of one replacing or joining the "
                                  "other's; tell them apart with fields= (e.g. fields={..., 'run_id': 'id'}), or "
                                  "read one of them with filters= (e.g. {'state': 'finished'})")
            first_of[key_of_run] = (name, source)
            sources.append(source)
            grouped.setdefault(key_of_run, (found, []))[1].extend((len(sources) - 1, p) for p in pieces)

    log = ReadLog(f"wandb:{path}", "wandb", tuple(f"wandb:{path}/{getattr(r, 'id', '?')}" for r in runs),
                  tuple(problems), tuple(ignored), skipped=on_error == "skip")
    if problems:
        _fail_or_warn(problems, f"wandb:{path}", LABELS["wandb"], on_error, total=len(runs), fatal=not grouped)
    if not grouped:
        raise LogReadError(f"none of the {len(runs)} runs of W&B project {path!r} matches the pattern {pattern!r}")
    grouped = _sorted_runs(grouped, field_names)  # by their fields, numbers as numbers, as read_logs' frame
    keys = tuple(_ordered_fields(field_names))
    items = tuple((tuple(run[f] for f in keys), None) for run in _frame_runs(grouped, field_names))
    nonfinite: dict[str, tuple[int, int]] = {}
    frame, duplicates, _ = _assemble(grouped, field_names, mapping, sources, keep, nonfinite)
    listed = ", ".join(repr(k) if k == c else f"{k!r} as {c!r}" for k, c in mapping.items())
    said = f"of W&B project {path!r} through the public API (full history), {listed}"
    # The runs read, bound to their fields (re-counted for the runs a result receives); the rest is this frame's.
    notes = [Note(f"read {count(len(grouped), 'run')} {said}", scope="rows", keys=keys, items=items,
                  word="rlstats.provenance:counted", data=(f"read {{n}} {said}", "run"))]
    if duplicates:
        notes.append(Note(f"{count(duplicates, 'value')} logged again at a step already logged in the same run; the "
                          f"one written {keep} was kept", scope="frame"))
    if nonfinite:  # kept as rows, as read_logs keeps them (audit s15)
        notes.append(Note(_nonfinite_note(nonfinite), scope="frame"))
    if ignored:
        notes.append(Note(f"{count(len(ignored), 'run')} did not match the pattern {pattern!r} and "
                          f"{verb(len(ignored), 'was')} not read", scope="frame"))
    if problems:
        notes.append(Note(f"{count(len(problems), 'run')} could not be used and "
                          f"{verb(len(problems), 'was')} skipped (see attrs['read_log'])", scope="frame"))
    set_notes(frame, notes, columns=(*keys, "step"))
    frame.attrs[READ_LOG_ATTR] = log
    return frame
