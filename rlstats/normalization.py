"""Per-task score normalisation: ``(score - low) / (high - low)``.

The usual case is Atari's human-normalised score, with a random policy's
score as ``low`` and a human player's as ``high`` (the defaults, matching
the columns of ``rlstats.datasets.load("atari100k_reference")``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import DesignError, OptionError, warn
from .format import signif
from .provenance import NOTES_ATTR, add_note

__all__ = ["normalize"]


def _show(values, limit=10):
    """Comma-separated ``repr`` of the first ``limit`` values, with a count of the rest."""
    values = [*values]
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _reference_frame(reference):
    """The reference as a DataFrame: given, or loaded by dataset name."""
    if isinstance(reference, pd.DataFrame):
        return reference
    if isinstance(reference, str):
        from . import datasets

        return datasets.load(reference)
    raise OptionError(
        "reference must be a DataFrame with a task column and low/high columns, or a dataset "
        f"name such as 'atari100k_reference'; got {type(reference).__name__}"
    )


def _require_columns(frame, columns, what):
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DesignError(
            f"{what} has no column {_show(missing)}; its columns are {_show(frame.columns)}"
        )
    repeated = [c for c in dict.fromkeys(columns) if (frame.columns == c).sum() > 1]
    if repeated:
        raise DesignError(f"{what} has {(frame.columns == repeated[0]).sum()} columns named {repeated[0]!r}; "
                          "give columns unique names")


def _check_names(low, high, by, score):
    for option, value in (("low", low), ("high", high), ("by", by), ("score", score)):
        if not isinstance(value, str):
            raise OptionError(f"{option} must be a column name (a string), got {value!r}")
    if low == high:
        raise OptionError(f"low and high name the same column {low!r}; give two columns")


def _bounds(ref, tasks, by, low, high):
    """(low, high) float arrays for ``tasks``, checked for gaps, NaN and empty ranges."""
    keys = ref[by].astype(object)
    dupes = keys[keys.duplicated() & keys.isin(tasks)].unique()
    if len(dupes):
        raise DesignError(f"the reference lists task {_show(dupes)} more than once in {by!r}")
    absent = [t for t in tasks if t not in set(keys)]
    if absent:
        raise DesignError(
            f"{len(absent)} task(s) of the data are missing from the reference's {by!r} "
            f"column: {_show(absent)}; add their {low!r} and {high!r} scores to the reference "
            "or drop them from the data"
        )
    table = ref.assign(**{by: keys}).set_index(by).loc[tasks, [low, high]]
    try:
        lo = table[low].to_numpy(dtype=float)
        hi = table[high].to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise DesignError(
            f"the reference's {low!r} and {high!r} columns must hold numbers"
        ) from None
    nan = [t for t, a, b in zip(tasks, lo, hi) if np.isnan(a) or np.isnan(b)]
    if nan:
        raise DesignError(
            f"the reference has a missing (NaN) {low!r} or {high!r} score for task {_show(nan)}"
        )
    empty = [t for t, a, b in zip(tasks, lo, hi) if not b > a]
    if empty:
        raise DesignError(
            f"the reference's range is zero or negative ({high!r} <= {low!r}) for task "
            f"{_show(empty)}; normalising would divide by zero or flip the scale"
        )
    return lo, hi


def normalize(df, reference, *, low="random", high="human", by="task", score="score"):
    """Normalise scores per task: ``(score - low) / (high - low)``.

    Parameters
    ----------
    df : pandas.DataFrame
        Long data with a task column (``by``) and a score column (``score``).
    reference : pandas.DataFrame or str
        One row per task with the task column ``by`` and the columns ``low``
        and ``high``, or the name of a dataset that has them, such as
        ``"atari100k_reference"`` (read with :func:`rlstats.datasets.load`).
    low, high : str
        Reference columns mapped to 0 and 1; the defaults give the
        human-normalised score.
    by : str
        Name of the task column, in both ``df`` and ``reference``.
    score : str
        Name of the score column of ``df``.

    Returns
    -------
    pandas.DataFrame
        A new frame, equal to ``df`` except that the ``score`` column holds
        the normalised (float) scores.  ``df`` itself is not modified.
        Missing scores stay missing.  A sentence saying how the scores were
        normalised rides in the frame's ``attrs``, so results computed from it
        print it (and do not warn that the tasks are on their own scales).

    Raises
    ------
    DesignError
        When a column is missing, the data have a task that the reference
        lacks (all such tasks are listed), a task is missing from the data's
        task column, the reference lists a task twice, or, for a task of the
        data, the reference has NaN or ``high <= low``.  Reference rows for
        tasks that are not in the data are not used and not checked.
    OptionError
        When ``reference`` is neither a DataFrame nor a dataset name, or a
        column option is not a string.

    Examples
    --------
    >>> import pandas as pd
    >>> from rlstats.normalization import normalize
    >>> scores = pd.DataFrame({"agent": ["A", "A", "B"], "task": ["Pong", "Boxing", "Pong"],
    ...                        "score": [0.0, 6.1, 14.75]})
    >>> reference = pd.DataFrame({"task": ["Boxing", "Pong"], "random": [0.1, -20.7],
    ...                           "human": [12.1, 14.6]})
    >>> normalize(scores, reference)
      agent    task     score
    0     A    Pong  0.586402
    1     A  Boxing  0.500000
    2     B    Pong  1.004249
    """
    _check_names(low, high, by, score)
    if not isinstance(df, pd.DataFrame):
        raise DesignError(f"df must be a pandas DataFrame with a {by!r} and a {score!r} column, got "
                          f"{type(df).__name__}")
    return _normalized(df, _reference_frame(reference), reference if isinstance(reference, str) else None,
                       low=low, high=high, by=by, score=score)


def _normalized(df, ref, name, *, low="random", high="human", by="task", score="score"):
    """:func:`normalize` with the reference frame already loaded; ``name`` is its dataset's (None: a frame)."""
    _check_names(low, high, by, score)
    _require_columns(df, [by, score], "the data")
    _require_columns(ref, [by, low, high], "the reference")
    keys = df[by].astype(object)
    if keys.isna().any():
        rows = df.index[keys.isna()]
        raise DesignError(
            f"the data's {by!r} column is missing for {len(rows)} row(s), first {_show(rows, 5)}; "
            "every row needs a task to be normalised"
        )
    if not pd.api.types.is_numeric_dtype(df[score]) or pd.api.types.is_bool_dtype(df[score]):
        raise DesignError(f"the data's {score!r} column must be numeric, got {df[score].dtype}")
    tasks = [*dict.fromkeys(keys)]
    lo, hi = _bounds(ref, tasks, by, low, high)
    position = pd.Index(tasks).get_indexer(keys)
    values = df[score].to_numpy(dtype=float, na_value=np.nan)
    out = df.copy()
    out[score] = (values - lo[position]) / (hi[position] - lo[position])
    source = name or "the reference frame"
    return add_note(out, f"'{score}' normalised per task as ({score} - {low}) / ({high} - {low}) with {low} and "
                         f"{high} from {source}", source=df)


def load_reference(option):
    """The ``normalize=`` option with a dataset name read into its frame: the one place a back end loads one.

    Returns ``option`` unchanged unless it names a dataset (``"atari100k_reference"``, alone or as a
    dict's ``reference``): then a dict ``{"reference": frame, "name": name, ...}``. Validation
    (:func:`normalize_response`) never loads anything.
    """
    from collections.abc import Mapping

    keywords = dict(option) if isinstance(option, Mapping) else {"reference": option}
    if not isinstance(keywords.get("reference"), str) or isinstance(option, bool):
        return option
    return {**keywords, "reference": _reference_frame(keywords["reference"]), "name": keywords["reference"]}


def normalize_response(data, parsed, reference):
    """The ``normalize=`` option of the back ends: ``(normalised data, note for the result)``.

    ``parsed`` is the :class:`~rlstats.formula.Formula` that :func:`rlstats.design.build`
    has already parsed (it is not parsed again here).

    ``reference`` is a reference frame, or a dict of :func:`normalize`'s keywords
    (``{"reference": ..., "low": ..., "high": ...}``) as :func:`load_reference` returns it: a dataset
    is loaded before validation, never here.
    The response must read one data column and the formula must name the task
    column after ``|``; that column is normalised per task.
    """
    from collections.abc import Mapping

    if reference is True:
        raise OptionError("normalize=True does not say how to normalise; pass a reference frame or a dataset name "
                          "(e.g. normalize='atari100k_reference'), or normalize=False if the scores are already on "
                          "one scale")
    columns = [c for c in parsed.response_columns if c in data.columns]
    if len(columns) != 1 or parsed.blocks is None:
        raise OptionError(f"normalize= needs a formula whose response reads one data column and that names the "
                          f"task column after '|' (e.g. 'score ~ agent | task'), got '{parsed.text}'")
    keywords = dict(reference) if isinstance(reference, Mapping) else {"reference": reference}
    if "reference" not in keywords:
        raise OptionError("normalize= as a dict must hold 'reference' (and optionally 'low', 'high')")
    frame, name = keywords.pop("reference"), keywords.pop("name", None)
    if not isinstance(frame, pd.DataFrame):
        _reference_frame(frame)  # the error for a reference of the wrong type
        raise OptionError("normalize= names a dataset that was not loaded; pass the option through "
                          "rlstats.normalization.load_reference first")
    out = _normalized(data, frame, name, score=columns[0], by=parsed.blocks, **keywords)
    return out, out.attrs[NOTES_ATTR][-1]


def warn_raw_scales(design, normalize):
    """Aggregating raw scores of tasks whose scales differ tenfold lets the large tasks decide: say so.

    Silent when the scores were normalised (``normalize=`` or a frame from :func:`normalize`) or the
    caller says they are on one scale already (``normalize=False``).
    """
    if normalize is not None or design.n_tasks < 2 or any("normalised" in note for note in design.notes):
        return
    scale = np.array([np.abs(design.y[design.task == t]).max(initial=0.0) for t in range(design.n_tasks)])
    if scale.min() > 0 and scale.max() <= 10 * scale.min():
        return
    warn(f"scores of {design.n_tasks} tasks are aggregated on their own scales (largest scores from "
         f"{signif(scale.min(), 3)} to {signif(scale.max(), 3)}), so the tasks with large scores decide the "
         "result; normalise them first with normalize= (e.g. normalize='atari100k_reference' or a reference frame), "
         "or pass normalize=False if they are on one scale already")
