"""Frames people have: polars and pyarrow tables, and rliable's ``{agent: runs x tasks}`` dicts, as pandas.

:func:`as_pandas` is called once at the front door (:func:`rlstats.design.subset_rows`, which
:func:`~rlstats.design.design_of` and :func:`rlstats.compare` go through) and by the few public functions that
read a frame before it; a converted frame carries a note saying so, which every result prints. Neither polars
nor pyarrow is imported unless the caller's object comes from it, so neither is a dependency.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import Any

import numpy as np
import pandas as pd

from .errors import DesignError, OptionError
from .format import join_and
from .grammar import count
from .options import check_choice, keywords_checked
from .provenance import Note, add_note, concat_frames

__all__ = ["as_pandas", "concat", "from_rliable"]


#: the tables every public function takes, as its errors name them
TABLE = "a table (a pandas or polars DataFrame or a pyarrow Table)"

def frame_library(data: Any) -> str | None:
    """'polars', 'pyarrow' or None: where ``data``'s class comes from (without importing either)."""
    root = type(data).__module__.partition(".")[0]
    return root if root in ("polars", "pyarrow") else None


def column_names(data: Any) -> list | None:
    """The column names of a table (a pandas or polars DataFrame, a pyarrow Table or RecordBatch), else None; a
    pyarrow table's ``columns`` are its column arrays, so its names are read from its schema (review s37: a name
    looked up among the arrays raised "unhashable type: 'pyarrow.lib.ChunkedArray'")."""
    library = frame_library(data)
    if library == "pyarrow":
        schema = getattr(data, "schema", None)  # RecordBatch of pyarrow 12 has no column_names (s32)
        return list(schema.names) if schema is not None and hasattr(schema, "names") else None
    columns = getattr(data, "columns", None)
    if columns is None or callable(columns) or isinstance(columns, (str, bytes)):
        return None
    try:
        return list(columns)
    except TypeError:
        return None


def as_pandas(data: Any) -> Any:
    """``data`` as a pandas DataFrame when it is a polars DataFrame or a pyarrow Table/RecordBatch, else unchanged
    (a pandas frame flagged ``allows_duplicate_labels=False`` comes back without the flag, the caller's untouched).

    The conversion is stated in the frame's notes (``attrs``), so results print it. Column order, names and
    values are kept: polars ``Enum`` columns become ordered pandas categoricals with the same level order (polars
    compares an Enum by it), ``Categorical`` ones pandas categoricals with sorted levels, nested ones (Struct, Array,
    List) and 128-bit integers Python objects, integer columns with nulls pandas' nullable integers (``Int64``,
    ...), as pandas keeps them, other polars columns NumPy arrays (missing values as NaN or None); pyarrow uses its
    own ``to_pandas``, integer columns with nulls again as nullable integers rather than floats.

    Raises
    ------
    DesignError
        For a polars LazyFrame (collect it first) or another polars/pyarrow object that is not a table, or a pandas
        frame whose columns are a MultiIndex (flatten them first).
    """
    library = frame_library(data)
    if library is None:
        if isinstance(data, pd.DataFrame) and isinstance(data.columns, pd.MultiIndex):
            # groupby().agg([...]) leaves them; no formula can name a tuple, and pandas' own errors say nothing of it
            raise DesignError(f"data's columns are a MultiIndex ({', '.join(map(repr, data.columns[:4]))}"
                              f"{', ...' if len(data.columns) > 4 else ''}); flatten them first, e.g. df.columns = "
                              "['_'.join(map(str, c)).strip('_') for c in df.columns], so that columns such as "
                              "('score', 'mean') become 'score_mean' and ('agent', '') becomes 'agent'")
        if isinstance(data, pd.DataFrame) and not data.flags.allows_duplicate_labels:
            # the caller's flag is theirs: rlstats' working frames take a row more than once (a run per step)
            return data.set_flags(allows_duplicate_labels=True)
        return data
    kind = type(data).__name__
    if library == "polars" and kind == "DataFrame":
        frame = _from_polars(data)
    elif library == "pyarrow" and kind in ("Table", "RecordBatch"):
        frame = _from_arrow(data)
    elif kind == "LazyFrame":
        raise DesignError("data is a polars LazyFrame; call .collect() on it first and pass the DataFrame")
    else:
        raise DesignError(f"data must be {TABLE} in long format (one row per run), got {library}.{kind}")
    said = f"{CONVERTED_FROM}{library} {kind} to a pandas DataFrame"
    return add_note(frame, Note(f"{said} ({len(frame)} rows)", scope="rows", word="rlstats.provenance:counted",
                                data=(said + " ({n})", "row")))


#: how the note of :func:`as_pandas` opens, before the library's name ("polars DataFrame ..."), read by :func:`converted_from`
CONVERTED_FROM = "data converted from a "


def converted_from(frame: Any) -> str | None:
    """The library a frame was converted from by :func:`as_pandas` ("polars", "pyarrow"), read from its notes; None
    for a frame given as pandas. A refusal's way out is then written in that library's terms (audit s31: a polars
    Decimal score was told ``df['score'].astype(float)``, pandas code its user cannot run)."""
    from .provenance import NOTES_ATTR

    for note in getattr(frame, "attrs", {}).get(NOTES_ATTR, ()):
        text = getattr(note, "text", str(note))
        if text.startswith(CONVERTED_FROM):
            return text[len(CONVERTED_FROM):].split(" ", 1)[0]
    return None


def concat(frames: Iterable[Any], **kwargs: Any) -> pd.DataFrame:
    """``pandas.concat`` of the rows of ``frames``, keeping each frame's notes for its own rows.

    pandas keeps ``attrs`` on a concat only when every frame's are equal, so a concat of frames read or made
    apart (two log folders, two normalisations) loses what they say about how they were made. Here each frame's
    notes are re-derived for the rows it brings (parts of one annotated frame are taken together, so that rows of
    it left out are counted once), the same note said by several frames is kept once, and one line counts the
    rows of the frames the parts came from that are not here (:func:`rlstats.provenance.concat_frames`). A note
    of one frame that the stack would take as true of other frames' rows too (the smoothing of one frame, or the
    runs read from one of two folders named by the same tasks and seeds) is said of its frame's rows by a column
    telling them apart, "(rows with agent 'PPO')", such as the agent column added to each frame before stacking;
    without one it is not shown, and the line says so.

    Parameters
    ----------
    frames : iterable of tables
        The frames to stack (``axis=0``): pandas or polars DataFrames or pyarrow Tables, the last two converted
        as every rlstats function converts them (:func:`as_pandas`, with a note counting their rows).
    **kwargs
        Passed to ``pandas.concat`` (``ignore_index=``, ``keys=``, ...). ``join=`` is needed where the tables'
        columns differ: ``"outer"`` keeps every column, its values missing (NaN) in the rows of tables without it,
        which a note says of those rows; ``"inner"`` keeps the columns every table has, and a note names those
        dropped. Without it such tables are refused, as R's ``rbind()`` refuses them: pandas' default fills the gaps
        unsaid, and an analysis then refuses (or drops) the missing values without saying where they came from.

    Returns
    -------
    pandas.DataFrame
        The stacked frame, with the notes in its ``attrs``; the frames given are not changed.

    Raises
    ------
    OptionError
        When ``frames`` is not a list of tables (empty, one table, a dict), an item is not a table, ``axis`` is
        not 0 (notes describe rows), or the tables' columns differ and ``join=`` is not given.

    See Also
    --------
    pandas.concat : the same stacking, which drops notes that differ between the frames.

    Examples
    --------
    >>> import rlstats
    >>> a = rlstats.normalize(rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=0), "minmax")
    >>> b = rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=1)
    >>> b["agent"] = "new " + b["agent"].astype(str)
    >>> both = rlstats.concat([a, b], ignore_index=True)
    >>> len(both), both.attrs["rlstats_notes"][0].startswith("'score' normalised per task")
    (16, True)
    """
    if kwargs.get("axis", 0) not in (0, "index", "rows"):
        raise OptionError(f"rlstats.concat stacks rows (axis=0), got axis={kwargs['axis']!r}: notes describe rows; "
                          "use pandas.concat for columns")
    if frames is None or isinstance(frames, (str, bytes, Mapping)) or hasattr(frames, "columns") \
            or not isinstance(frames, Iterable):
        # iterated, a table gives its column names and a dict its keys: "item 0 is a str" would name neither mistake
        what = "None" if frames is None else f"one {type(frames).__name__}" if hasattr(frames, "columns") \
            else f"{'an' if type(frames).__name__[0] in 'aeiou' else 'a'} {type(frames).__name__}"
        raise OptionError(f"rlstats.concat takes a list of tables, got {what}: pass [frame] for one table, or "
                          "list(tables.values()) for a dict of them")
    converted = []
    for position, frame in enumerate(frames):
        try:
            frame = as_pandas(frame)  # a new frame for a polars or pyarrow one: the caller's is left as it is
        except DesignError as exc:  # a polars LazyFrame, or another polars/pyarrow object
            raise OptionError(f"rlstats.concat: item {position}: {exc}") from None
        if not isinstance(frame, pd.DataFrame):
            raise OptionError(f"rlstats.concat stacks tables; item {position} is a {type(frame).__name__}: give "
                              f"{TABLE}")
        converted.append(frame)
    if not converted:  # pandas' own "No objects to concatenate" names neither the function nor the fix
        raise OptionError("rlstats.concat was given no tables: pass a list of one or more frames")
    join = kwargs.get("join")
    if join is not None:
        check_choice("join", join, ("outer", "inner"))
    # audit s38: pandas fills the columns a table lacks with NaN unsaid, and an analysis then refused the missing
    # scores without saying why: refused, as R's rbind() and data.table's rbindlist(fill=FALSE) do, unless join= says
    union = list(dict.fromkeys(c for frame in converted for c in frame.columns))
    lacking = [[c for c in union if c not in set(frame.columns)] for frame in converted]
    if any(lacking) and join is None:
        short = [(i, columns) for i, columns in enumerate(lacking) if columns]
        which = ", ".join(f"table {i + 1} of {len(converted)} {'no' if k else 'has no'} "
                          f"{join_and([repr(c) for c in columns], limit=5)}" for k, (i, columns) in enumerate(short))
        raise OptionError(f"rlstats.concat: the tables' columns differ ({which}), so pandas.concat would leave those "
                          "values missing (NaN), which an analysis then refuses or drops: rename the columns to match, "
                          "or pass join='outer' to keep every column (a note says where values are missing) or "
                          "join='inner' to keep only the columns every table has (a note names those dropped)")
    out = concat_frames(converted, missing=lacking if join == "outer" else None, **kwargs)
    if join == "inner" and any(lacking):
        dropped = []
        for k, column in enumerate(c for c in union if any(c in m for m in lacking)):
            having = [i + 1 for i, frame in enumerate(converted) if column in frame.columns]
            tables = f"table {having[0]}" if len(having) == 1 else f"tables {join_and(having)}"
            dropped.append(f"{column!r} (from {tables}{'' if k else f' of {len(converted)}'})")
        add_note(out, Note("rlstats.concat(join='inner') kept the columns every table has, dropping "
                           + join_and(dropped)))
    return out


def _from_polars(data: Any) -> pd.DataFrame:
    import polars as pl

    columns = {}
    for series in data.get_columns():
        if isinstance(series.dtype, pl.Enum):  # the declared level order, which polars compares by: an ordered one
            columns[series.name] = pd.Categorical(series.cast(pl.String).to_numpy(),
                                                  categories=series.dtype.categories.to_list(), ordered=True)
        elif isinstance(series.dtype, pl.Categorical):  # its order is not a declared one: pandas' sorted levels
            columns[series.name] = pd.Categorical(series.cast(pl.String).to_numpy())
        elif series.dtype.is_nested() or str(series.dtype) in ("Int128", "UInt128"):
            # Struct, Array, List: numpy would give 2-D or record arrays pandas refuses; 128-bit integers it has not
            columns[series.name] = pd.Series(series.to_list(), dtype=object).to_numpy()
        elif series.dtype.is_integer() and series.null_count():  # numpy's floats would print agent 1 as '1.0'
            columns[series.name] = pd.array(series.to_list(), dtype=str(series.dtype))  # Int64, UInt8, ...
        else:
            columns[series.name] = series.to_numpy()
    return pd.DataFrame(columns)


def _from_arrow(data: Any) -> pd.DataFrame:
    """pyarrow's ``to_pandas``, but integer columns with nulls as pandas' nullable integers (Int64, ...), as pandas
    itself keeps them, rather than floats (which print agent 1 as '1.0')."""
    frame = data.to_pandas()
    for name, column in zip(data.schema.names, data.columns):
        if column.null_count and str(column.type).startswith(("int", "uint")) and (frame.columns == name).sum() == 1 \
                and frame[name].dtype.kind == "f":  # (a repeated name, or the index's column: left to the checks)
            frame[name] = pd.array(column.to_pylist(), dtype=str(column.type).capitalize().replace("Uint", "UInt"))
    return frame


@keywords_checked  # a keyword it does not take: an OptionError naming it, not Python's TypeError
def from_rliable(scores: Mapping[Any, Any], tasks: Sequence[Any] | None = None, *,
                 steps: Sequence[Any] | None = None) -> pd.DataFrame:
    """rliable's score dict as rlstats' long frame: one row per agent, task and run.

    rliable holds scores as ``{agent: array of shape (runs, tasks)}`` (final scores) or
    ``(runs, tasks, points)`` (learning curves); this gives the frame every rlstats function reads,
    so ``rly.get_interval_estimates(scores, ...)`` becomes
    ``rlstats.bootstrap(rlstats.from_rliable(scores, tasks=games), "score ~ agent | task/seed", normalize=False)``
    (``normalize=False``: rliable's scores are normalised already, so they are on one scale; without it, tasks whose
    ranges lie ten times apart are cautioned as aggregated on their own scales).

    Parameters
    ----------
    scores : dict
        ``{agent name: array}``, every array with the same number of tasks (its second axis); agents
        may have different numbers of runs.
    tasks : sequence of str, optional
        The task names in the order of the arrays' second axis (rliable keeps them in a separate list).
        None names them by their position, 0, 1, ... (stated in the frame's notes).
    steps : sequence of numbers, optional
        For 3-D arrays (learning curves), the step of each point along the third axis; None numbers
        the points 0, 1, ...

    Returns
    -------
    pandas.DataFrame
        Columns ``agent``, ``task``, ``seed``, ``score`` (and ``step`` between ``seed`` and ``score`` for
        curves): ``agent`` and ``task`` are categoricals in the dict's and ``tasks``' order, ``seed`` is
        the run's row in its agent's array (0, 1, ...), ``score`` float. Missing scores (NaN, or a masked array's
        masked entries) are missing.

    Raises
    ------
    OptionError
        For a ``scores`` that is not a non-empty dict, or ``tasks``/``steps`` of the wrong length or repeating a name.
    DesignError
        For an array that is not 2-D (or 3-D), not numeric, or whose number of tasks (or points) differs from
        the first agent's.

    See Also
    --------
    rlstats.bootstrap : rliable's intervals, from the frame this returns.
    rlstats.performance_profile : rliable's performance profiles.

    Examples
    --------
    >>> import numpy as np
    >>> import rlstats
    >>> scores = {"DQN": np.array([[1.0, 2.0], [3.0, 4.0]]), "C51": np.array([[5.0, 6.0]])}
    >>> rlstats.from_rliable(scores, tasks=["Pong", "Breakout"])
      agent      task  seed  score
    0   DQN      Pong     0    1.0
    1   DQN  Breakout     0    2.0
    2   DQN      Pong     1    3.0
    3   DQN  Breakout     1    4.0
    4   C51      Pong     0    5.0
    5   C51  Breakout     0    6.0
    """
    if not isinstance(scores, Mapping) or not scores:
        raise OptionError(f"scores must be a non-empty dict {{agent: array of runs x tasks}}, as rliable uses, "
                          f"got {type(scores).__name__}{' (empty)' if isinstance(scores, Mapping) else ''}")
    arrays = {agent: _scores_array(agent, values) for agent, values in scores.items()}
    first_agent, first = next(iter(arrays.items()))
    for agent, values in arrays.items():
        if values.shape[1:] != first.shape[1:]:
            same = "tasks and points" if first.ndim == 3 else "tasks"
            raise DesignError(f"scores[{agent!r}] has shape {values.shape}, but scores[{first_agent!r}] has "
                              f"{first.shape}: every agent needs the same {same} (runs may differ)")
    n_tasks = first.shape[1]
    task_names = _names("tasks", tasks, n_tasks, "the arrays' second axis (tasks)")
    curves = first.ndim == 3
    if steps is not None and not curves:
        raise OptionError("steps= is for learning curves, arrays of shape (runs, tasks, points); these are 2-D")
    step_values = _names("steps", steps, first.shape[2], "the arrays' third axis (points)") if curves else None

    agents = [str(a) for a in arrays]
    if len(set(agents)) != len(agents):
        raise OptionError(f"scores has agent names that print the same: {agents}; give distinct names")
    parts: dict[str, list] = {"agent": [], "task": [], "seed": []} | ({"step": []} if curves else {}) | {"score": []}
    for code, values in enumerate(arrays.values()):
        # rows run-major, then task (then step): the order of the arrays' C layout
        index = np.indices(values.shape).reshape(values.ndim, -1)
        parts["agent"].append(np.full(values.size, code))
        parts["seed"].append(index[0])
        parts["task"].append(index[1])
        if curves:
            parts["step"].append(index[2])
        parts["score"].append(values.ravel())
    joined = {key: np.concatenate(value) for key, value in parts.items()}
    frame = pd.DataFrame({
        "agent": pd.Categorical.from_codes(joined["agent"], categories=pd.Index(agents)),
        "task": pd.Categorical.from_codes(joined["task"], categories=pd.Index(task_names)) if tasks is not None
        else joined["task"],
        "seed": joined["seed"].astype(np.int64),
        **({"step": np.asarray(step_values)[joined["step"]]} if curves else {}),
        "score": joined["score"],
    })
    if tasks is None:  # bound to the tasks: a result names the positions of those it analyses
        add_note(frame, Note(f"tasks named by their position in the rliable arrays, 0 to {n_tasks - 1} (tasks= names "
                             "them)", scope="rows", keys=("task",), items=tuple(((t,), t) for t in range(n_tasks)),
                             word="rlstats.interop:_reword_positions"))
    return frame


def _reword_positions(note: Note, items: tuple, n_rows: int) -> str:
    shown = ", ".join(str(position) for _, position in items[:10]) + (", ..." if len(items) > 10 else "")
    return f"tasks named by their position in the rliable arrays, {shown} here (tasks= names them)"


def unmasked(values: Any, dtype: Any = None) -> np.ndarray:
    """``np.asarray(values, dtype)``, but a numpy masked array's masked entries as NaN (missing): ``np.asarray`` keeps
    the values stored under the mask, which would be read as scores (audit s31), also of masked arrays nested in lists
    or tuples (review s31: a list of masked rows read 1e6 stored under a mask). For arrays of scores given as such
    (rliable's dicts, AdaStop's ``{agent: scores}`` batches)."""
    def filled(value):  # ``value`` itself where nothing in it is masked
        if np.ma.isMaskedArray(value):
            return np.ma.filled(np.ma.asarray(value, dtype=float), np.nan) if np.ma.getmaskarray(value).any() else value
        if isinstance(value, (list, tuple)):
            items = [filled(item) for item in value]
            return items if any(a is not b for a, b in zip(items, value)) else value
        return value

    plain = filled(values)
    return np.asarray(plain, dtype=dtype if plain is values else float)


def _scores_array(agent: Any, values: Any) -> np.ndarray:
    try:
        array = unmasked(values, dtype=float)
    except (TypeError, ValueError):
        raise DesignError(f"scores[{agent!r}] must be a numeric array of shape (runs, tasks), got "
                          f"{type(values).__name__}") from None
    if array.ndim not in (2, 3) or 0 in array.shape:
        raise DesignError(f"scores[{agent!r}] has shape {array.shape}; rliable's layout is (runs, tasks) for final "
                          "scores or (runs, tasks, points) for learning curves, with no empty axis "
                          "(one task: reshape to (runs, 1))")
    return array


def _names(option: str, names: Sequence[Any] | None, length: int, axis: str) -> list:
    if names is None:
        return list(range(length))
    if isinstance(names, str):
        raise OptionError(f"{option}= must be a list with one entry per position of {axis}, got the string {names!r}")
    if not isinstance(names, Iterable):
        raise OptionError(f"{option}= must be a list with one entry per position of {axis}, got "
                          f"{type(names).__name__} {names!r:.60}")
    # counted before it is listed, and never listed past one more than the axis (audit s38 loud38: tasks=range(10**9)
    # was listed, 8 GB, before its length was read)
    if isinstance(names, Sized):
        said = count(len(names), "entry") if len(names) != length else None
    else:
        names = list(itertools.islice(names, length + 1))
        said = None if len(names) == length else (f"more than {count(length, 'entry')}" if len(names) > length
                                                  else count(len(names), "entry"))
    if said is not None:
        raise OptionError(f"{option}= has {said} but {axis} has {length}")
    names = list(names)
    if len(set(names)) != len(names):
        repeated = sorted({str(n) for n in names if names.count(n) > 1})
        raise OptionError(f"{option}= repeats {', '.join(repeated)}; each position needs its own name")
    return names
