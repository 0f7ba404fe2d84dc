"""Audit s31 (meta31): the input's representation. The same rows, given as other pandas dtypes, indexes, column
layouts, or as a polars DataFrame or pyarrow Table, give the same results: every number and text identical to the bit
(tidy, glance, to_dict, the print), but for the lines saying what was done to them (a frame converted from polars or
pyarrow, a categorical's levels with no runs left out), and the caller's frame is never modified (its values, dtypes,
categories, index, flags and attrs compared with a deep copy taken before).

What earlier sweeps covered (tests/test_metamorphic.py: float32 and integer scores, object and ``string[pyarrow]``
labels, polars frames and pyarrow Tables; s30: a shuffled non-default index, ``convert_dtypes(dtype_backend=
"pyarrow")``, categoricals in reverse sort order), here:

* labels: object, pandas 3's default ``str``, ``string[python]``, ``string[pyarrow]``, ``pd.ArrowDtype(pa.string())``
  and ``large_string``; categoricals, ordered or not, with unused levels (sorting before and after the used ones, or
  left by a subset of the rows), in sort order (identical) or in a shuffled order (the same statistics matched by
  name: results list the agents in the levels' order);
* scores: nullable ``Float64``/``Float32``/``Int64``, ``int32``, pyarrow doubles and integers, and, with
  ``na_action="drop"``, missing values as ``pd.NA`` (nullable and pyarrow), NaN, polars and pyarrow nulls; labels
  missing as ``pd.NA``, NaN, None or a categorical's NaN;
* index: duplicated labels, a MultiIndex, shuffled strings; extra columns of other dtypes and the columns in
  reverse order;
* polars ``Categorical``, ``Enum`` and ``Float32`` columns, pyarrow dictionary-encoded and ``large_string`` columns;
* the other tables a function reads: ``AdaStop.update``'s batches, ``normalize``'s reference (also through
  ``normalize=``) and ``selection_check``'s ``heldout=`` frame.

Probed without a test kept here (nothing found): ``subset=`` conditions and masks (numpy, list, pandas, nullable,
pyarrow, polars, sparse) over these label and score dtypes; extra columns named as rlstats' own words (index, level_0,
run, n, step, batch, config, ...) and an index named as a column; tuning's configuration columns as Float64, float32,
text, categoricals, Int64 and pyarrow; seeds and steps as text, categoricals, nullable, pyarrow and polars unsigned
integers (steps as text or categoricals: the step error); bayes' hierarchical model, Kenward-Roger df, controls,
sample_size and the task table's IQM under shuffled categoricals, pyarrow strings, Float64, duplicated indexes, polars
Enums and pyarrow dictionaries; from_rliable with float32, integer, list, object, matrix and DataFrame arrays.

Over every compare() back end and the public functions s30's cases cover (the rank test's Monte Carlo p-value,
power() from a pilot, normalize, summarize_runs, align_steps): nothing differed. The mixed model's Satterthwaite df
under a shuffled category order moved by 1.85e-12 relative (7.99999999994625 for the closed form's 8: an iterative REML
fit whose design columns come in another order), above the 1e-12 asked of this sweep and within s30's 1e-9: left.
What is read through those df moves with them and is compared at 1e-9 too (slow37: on this machine's numpy 2.4.6 and
scipy 1.17.1 the df moved 2.2e-12, 7.9999999999960 against 7.9999999999784, and agent_1 - agent_3's Tukey upper
bound 1.18e-12, 2.16669243164069 against 2.16669243164325; the estimate 3e-15, its standard error 5e-16).
The default run holds the cheap rank test under every representation; the sweep over every case is marked slow.

Found (reproducers below): a sparse score or step column (``pd.arrays.SparseArray``) was a FormulaError quoting
pandas' AttributeError, or that AttributeError itself for a step (sparse labels and seeds were read); a normalisation
reference (or data) holding its tasks in the index was an error listing the other columns without saying where 'task'
was; ``subset="level >= 'medium'"`` on an ordered categorical easy < medium < hard compared the text and kept medium
alone, where pandas and R keep medium and hard (an error naming ``level in ['medium', 'hard']`` here; bfix31 then
compared the levels' order, as pandas and R do), and a polars Enum, which polars compares by its levels' order, became
an unordered categorical (now an ordered one, compared so too); a numpy masked array given to from_rliable or as an AdaStop batch ``{agent: scores}`` had the values stored
under its mask read as scores (now missing: NaN).

Not representations rlstats reads, each a clear error naming what to do (asserted in tests/test_bad_inputs.py and
the earlier audits): a polars LazyFrame, Series of any library, dicts, record arrays, MultiIndex columns, object or
string scores, decimals, complex numbers, durations, the formula's columns held in the index.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import levelled, simulated_curves, tasks_kept

pa = pytest.importorskip("pyarrow")


def _runs():
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, effect=1.0, rng=0)
    df.attrs = {}
    return df.assign(agent=df["agent"].astype(str).astype(object), task=df["task"].astype(str).astype(object))


def _snapshot(df):
    """Everything of a pandas frame a call could change in place."""
    categories = {c: (list(df[c].cat.categories), df[c].cat.ordered) for c in df.columns
                  if isinstance(df[c].dtype, pd.CategoricalDtype)}
    return (df.copy(deep=True), df.dtypes.astype(str).tolist(), categories, copy.deepcopy(df.attrs),
            df.flags.allows_duplicate_labels)


def _unchanged(before, df):
    after = _snapshot(df)
    return before[0].equals(after[0]) and before[0].index.equals(after[0].index) and before[1:] == after[1:]


# ------------------------------------------------------------------------------------------------ defects found

def test_sparse_score_and_step_columns_read_as_their_dense_values():
    # the score: "FormulaError: evaluating the response 'score' failed with AttributeError: 'SparseDtype' object has no
    # attribute 'numpy_dtype'"; the step: that AttributeError itself (sparse agent and seed columns were read)
    df = _runs()
    dense = rlstats.task_table(df, "score ~ agent | task/seed")
    sparse = df.assign(score=pd.arrays.SparseArray(df["score"]))
    before = _snapshot(sparse)
    got = rlstats.task_table(sparse, "score ~ agent | task/seed")
    assert str(got) == str(dense) and got.tidy().equals(dense.tidy())
    assert _unchanged(before, sparse)
    curves = simulated_curves(tasks=2, steps=4)
    a, b = (rlstats.curves(frame, "score ~ agent | task/seed", step="step", n_resamples=50, normalize=False,
                           rng=1).tidy()
            for frame in (curves, curves.assign(step=pd.arrays.SparseArray(curves["step"]),
                                                score=pd.arrays.SparseArray(curves["score"], fill_value=0.0))))
    assert a.equals(b)
    assert a["step"].tolist()[:4] == [0.0, 333333.0, 666667.0, 1000000.0]


def test_sparse_score_with_missing_values_is_the_missing_value_error_or_dropped():
    # (read before the fix: a column with missing values took another path than the one that failed)
    df = _runs()
    score = df["score"].to_numpy().copy()
    score[[4, 7]] = np.nan
    sparse = df.assign(score=pd.arrays.SparseArray(score))
    with pytest.raises(rlstats.DesignError, match=r"column 'score' has 2 missing values"):
        rlstats.task_table(sparse, "score ~ agent | task/seed")
    a, b = (str(rlstats.task_table(frame, "score ~ agent | task/seed", na_action="drop"))
            for frame in (df.assign(score=score), sparse))
    assert a == b and '2 of 36 rows dropped (na_action="drop"): 2 with missing values in \'score\'' in a


@pytest.mark.parametrize("where", ["reference", "data"])
def test_tasks_held_in_the_index_are_named_there(where):
    # "the reference has no column 'task'; its columns are 'random', 'human'": the tasks were the reference's index
    df = _runs()
    reference = pd.DataFrame({"task": ["task_01", "task_02", "task_03", "task_04"], "random": [-10.0, 0.0, 5.0, 0.0],
                              "human": [20.0, 5.0, 15.0, 2.0]}).set_index("task")
    if where == "reference":
        way = r"'task' is a level of the reference's index, not a column.*reference = reference.reset_index\(\)"
        with pytest.raises(rlstats.DesignError, match=way):
            rlstats.normalize(df, reference)
        with pytest.raises(rlstats.DesignError, match=way):  # through normalize=
            rlstats.bootstrap(df, "score ~ agent | task", normalize=reference, n_resamples=20, rng=1)
        assert rlstats.normalize(df, reference.reset_index())["score"].iloc[0] == pytest.approx(
            (df["score"].iloc[0] + 10.0) / 30.0, rel=1e-15)
    else:
        with pytest.raises(rlstats.DesignError, match=r"'task' is a level of the data's index, not a column.*"
                                                      r"df = df.reset_index\(\)"):
            rlstats.normalize(df.set_index("task"), "minmax")


# ------------------------------------------------------------------------------------------------ the sweep

import re  # noqa: E402

import test_audit_s30_meta30 as S  # noqa: E402
import test_metamorphic as M  # noqa: E402

pl = None
try:
    import polars as pl
except ImportError:  # the polars representations are skipped
    pass

LABELS = ("agent", "task")
ROWS = [3, 17, 40]  # the rows given missing values


def _objects(df):
    """s30's data with the labels as object strings: the base every representation is compared with."""
    return df.assign(**{c: df[c].astype(str).astype(object) for c in LABELS})


def _labels_as(dtype):
    return lambda df: df.assign(**{c: df[c].astype(dtype) for c in LABELS})


def _categorical(order="sorted", unused=True, ordered=False):
    def change(df):
        out = {}
        for c in LABELS:
            names = sorted(set(df[c]))
            if unused:  # levels with no rows sorting before, among and after the used ones
                names = sorted(names + [f"aaa_{c}", names[0][:-1] + "9x", "zzz"])
            if order == "shuffled":
                names = [names[i] for i in np.random.RandomState(3).permutation(len(names))]
            out[c] = pd.Categorical(df[c], categories=names, ordered=ordered)
        return df.assign(**out)
    return change


def _score_as(dtype):
    return lambda df: df.assign(score=df["score"].astype(dtype))


def _extra_columns(df):
    out = df.assign(note="x", other=np.arange(len(df)) * 1.5, agent_id=np.arange(len(df)) % 2, flag=True,
                    when=pd.Timestamp("2024-01-01"))
    return out[list(out.columns)[::-1]]


def _polars(kind):
    def change(df):
        if pl is None:
            pytest.skip("polars is not installed")
        frame = pl.from_pandas(df.assign(**{c: df[c].astype(str).where(df[c].notna(), None) for c in LABELS}))
        if kind == "categorical":
            return frame.with_columns(*[pl.col(c).cast(pl.Categorical) for c in LABELS])
        if kind == "enum":
            return frame.with_columns(*[pl.col(c).cast(pl.Enum(sorted(set(frame[c].to_list())))) for c in LABELS])
        return frame.with_columns(pl.col("score").cast(pl.Float32)) if kind == "float32" else frame
    return change


def _arrow(kind):
    def change(df):
        table = pa.Table.from_pandas(df.assign(**{c: df[c].where(df[c].notna(), None) for c in LABELS}),
                                     preserve_index=False)
        for c in LABELS:
            column = table.column(c)
            column = column.dictionary_encode() if kind == "dictionary" else column.cast(pa.large_string())
            table = table.set_column(table.column_names.index(c), c, column)
        return table
    return change


def _float32(df):
    return df.assign(score=df["score"].astype(np.float32).astype(np.float64))


def _integers(df):
    return df.assign(score=np.round(df["score"] * 10).astype(np.int64))


def _with_missing(scores):
    def base(df):
        values = scores(df)["score"].to_numpy(dtype=float).copy()
        values[ROWS] = np.nan
        return df.assign(score=values)
    return base


def _missing_agents(df):
    agents = df["agent"].copy()
    agents.iloc[ROWS] = None
    return df.assign(agent=agents)


def _as_na(df):
    return df.assign(score=pd.array([pd.NA if np.isnan(v) else v for v in df["score"]], dtype="Float64"))


T = M.Transform
#: name -> the same rows in another representation: every number and text identical
EXACT = {t.name: t for t in [
    T("object", lambda df: df),
    T("str", _labels_as(str)),
    T("string_python", _labels_as(pd.StringDtype("python"))),
    T("string_pyarrow", _labels_as("string[pyarrow]")),
    T("arrow_string", _labels_as(pd.ArrowDtype(pa.string()))),
    T("arrow_large_string", _labels_as(pd.ArrowDtype(pa.large_string()))),
    T("categorical_unused", _categorical()),
    T("ordered_unused", _categorical(ordered=True)),
    T("Float64", _score_as("Float64")),
    T("Float32", _score_as("Float32"), base=_float32),
    T("arrow_double", _score_as(pd.ArrowDtype(pa.float64()))),
    T("Int64", _score_as("Int64"), base=_integers),
    T("int32", _score_as(np.int32), base=_integers),
    T("arrow_int64", _score_as(pd.ArrowDtype(pa.int64())), base=_integers),
    T("sparse", lambda df: df.assign(score=pd.arrays.SparseArray(df["score"]))),
    T("duplicated_index", lambda df: df.set_axis(pd.Index(np.arange(len(df)) // 3), axis=0)),
    T("multi_index", lambda df: df.set_axis(pd.MultiIndex.from_arrays(
        [np.arange(len(df)) % 4, np.arange(len(df))[::-1].astype(str)]), axis=0)),
    T("string_index", lambda df: df.set_axis(pd.Index([f"r{i}" for i in np.random.RandomState(1).permutation(len(df))]),
                                             axis=0)),
    T("extra_columns_reversed", _extra_columns),
    T("polars_categorical", _polars("categorical")),
    T("polars_enum", _polars("enum")),
    T("polars_float32", _polars("float32"), base=_float32),
    T("arrow_dictionary", _arrow("dictionary")),
    T("arrow_large_string_table", _arrow("large")),
]}
#: name -> the same rows with missing values in another representation, read with na_action="drop"
MISSING = {t.name: t for t in [
    T("Float64_NaN", _score_as("Float64"), base=_with_missing(lambda df: df)),
    T("Float64_NA", _as_na, base=_with_missing(lambda df: df)),
    T("arrow_double_null", _score_as(pd.ArrowDtype(pa.float64())), base=_with_missing(lambda df: df)),
    T("Int64_NA", _score_as("Int64"), base=_with_missing(_integers)),
    T("polars_null_score", _polars(""), base=_with_missing(lambda df: df)),
    T("arrow_null_score", _arrow("large"), base=_with_missing(lambda df: df)),
    T("string_NA_agent", _labels_as("string"), base=_missing_agents),
    T("str_NaN_agent", _labels_as(str), base=_missing_agents),
    T("categorical_NaN_agent", _labels_as("category"), base=_missing_agents),
    T("arrow_null_agent", _labels_as(pd.ArrowDtype(pa.string())), base=_missing_agents),
    T("polars_null_agent", _polars(""), base=_missing_agents),
]}
#: name -> the labels as categoricals in a shuffled level order: the same statistics, rows matched by name
SHUFFLED = {t.name: t for t in [
    T("categorical_shuffled", _categorical(order="shuffled")),
    T("ordered_shuffled", _categorical(order="shuffled", ordered=True)),
]}

#: what a result says of a representation: lines that may differ
_SAID = re.compile(r"data converted from a (polars|pyarrow) \w+ to a pandas DataFrame \(\d+ rows\)"
                   r"|\d+ (agent|task) levels? with no runs left out: ")


def _said(value):
    """``value`` (a print or the notes) without what it says of the representation (and blank lines)."""
    if isinstance(value, str):
        return "\n".join(line for line in value.splitlines() if line.strip() and not _SAID.search(line))
    if isinstance(value, list):
        return [v for v in value if not (isinstance(v, str) and _SAID.search(v))]
    return value


def _call(case, df, na_action=None):
    if na_action is None:
        return S.CASES[case][1](df, M.IDENTITY)
    formula, options = DECLARATIONS_CONTRACT(case)
    return rlstats.compare(df, formula, method=case, rng=1, na_action=na_action, **options)


def DECLARATIONS_CONTRACT(case):  # noqa: N802
    """s30's options of a back end (fewer resamples, and its options in the score's units)."""
    formula, options = S.DECLARATIONS[case].contract
    options = {key: S._FEWER.get(key, value) for key, value in options.items()} | S._OPTIONS.get(case, {})
    for extra in (M.UNIT_OPTIONS, M.DIFFERENCE_OPTIONS):
        if case in extra:
            options[extra[case][0]] = extra[case][1]
    return formula, options


_BASES = {}


def _result(case, df, na_action):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = _call(case, df, na_action)
    return S._parts(result)


def _base(case, transform, na_action=None):
    key = case, transform.base_kind, na_action
    if key not in _BASES:
        df = transform.base(_objects(S.CASES[case][0]()))
        _BASES[key] = df, _result(case, df, na_action)
    return _BASES[key]


def representation_differences(case, transform, na_action=None):
    """What differs, to the bit, between the case's result on its base data and on the same rows represented
    otherwise (or 'MUTATED' when the call changed the caller's frame)."""
    df, base = _base(case, transform, na_action)
    changed = transform.change(df)
    before = _snapshot(changed) if isinstance(changed, pd.DataFrame) else None
    other = _result(case, changed, na_action)
    problems = [] if before is None or _unchanged(before, changed) else ["MUTATED"]
    for part, value in base.items():
        if part == "frame":  # normalize's frame keeps the caller's other columns
            got = other[part][list(value.columns)]
            problems += S._bit_differences(value.reset_index(drop=True), got.reset_index(drop=True), part)
        elif part in ("tidy", "glance"):
            problems += S._bit_differences(value, other[part], part)
        elif part == "dict":
            for key in value:
                a, b = (_said(x) if key == "notes" else x for x in (value[key], other[part][key]))
                if repr(a) != repr(b):
                    problems.append(f"dict.{key}")
        elif _said(value) != _said(other[part]):
            problems.append(part)
    return problems


#: case -> columns under a shuffled category order compared at s30's 1e-9 rather than 1e-12 (the module's docstring):
#: mixed's df and what is read through them (the intervals' critical values, the p-values)
ROUNDING = {"mixed": ("df", "den_df", "conf_low", "conf_high", "p_value", "p_adjusted")}


def shuffled_differences(case, transform):
    """The tidy, glance and frame columns differing beyond a relative 1e-12 under categoricals in another order,
    rows matched by name."""
    df, base = _base(case, M.IDENTITY)
    changed = transform.change(df)
    before = _snapshot(changed)
    other = _result(case, changed, None)
    problems = [] if _unchanged(before, changed) else ["MUTATED"]
    for part in ("tidy", "glance", "frame"):
        if part not in base:
            continue
        a, b = S._by_name(base[part], {}, case), S._by_name(other[part], {}, case)
        if list(a.columns) != list(b.columns) or len(a) != len(b):
            problems.append(f"{part}: shape")
            continue
        for column in a.columns:
            x, y = a[column].to_numpy(), b[column].to_numpy()
            rtol = 1e-9 if column in ROUNDING.get(case, ()) else 1e-12
            same = (x.tolist() == y.tolist() if x.dtype.kind != "f"
                    else np.allclose(y, x, rtol=rtol, atol=1e-300, equal_nan=True))
            if not same:
                problems.append(f"{part}[{column}]")
    return problems


#: the cases computed in the default run (the rank test: the cheapest; task_table: the widest tables); the others slow
DEFAULT = ("skillings_mack",)
#: back ends that refuse the unbalanced design left by dropping rows (AdaStop's interims, one shared permutation)
BALANCED = ("adastop", "permutation")


def _params(cases, names, backends_only=False):
    return [pytest.param(case, name, id=f"{case}-{name}",
                         marks=[] if case in DEFAULT else [pytest.mark.slow])
            for case in cases for name in names
            if not backends_only or (case in S.DECLARATIONS and case not in BALANCED)]


@pytest.mark.parametrize("case, name", _params(S.CASES, EXACT))
def test_representations_change_nothing(case, name):
    assert representation_differences(case, EXACT[name]) == []


@pytest.mark.parametrize("case, name", _params(S.CASES, MISSING, backends_only=True))
def test_missing_values_in_any_representation_are_dropped_alike(case, name):
    if name == "str_NaN_agent" and not pd.Series([None], dtype=object).astype(str).isna().all():
        # pandas before 3 writes a missing label as the text 'nan' under astype(str): an agent named 'nan' is then
        # the data given (the oldest-versions CI, pandas 2.0), not a missing value in another representation
        pytest.skip("this pandas' astype(str) writes missing labels as 'nan'")
    assert representation_differences(case, MISSING[name], na_action="drop") == []


@pytest.mark.parametrize("case, name", _params(S.CASES, SHUFFLED))
def test_categoricals_in_another_order_keep_the_statistics(case, name):
    assert shuffled_differences(case, SHUFFLED[name]) == []


# ------------------------------------------------------------------------------------------------ the other tables

def _tables(df, labels, score=True):
    """``df`` (labels as object strings) in the representations a table a function reads may take."""
    out = {"categorical_unused": df.assign(**{c: pd.Categorical(df[c], categories=sorted(set(df[c]) | {"zz", "aa"},
                                                                                         reverse=True))
                                              for c in labels}),
           "string": df.assign(**{c: df[c].astype("string") for c in labels}),
           "arrow_string": df.assign(**{c: df[c].astype(pd.ArrowDtype(pa.string())) for c in labels}),
           "duplicated_index": df.set_axis(np.zeros(len(df), dtype=int)),
           "multi_index": df.set_axis(pd.MultiIndex.from_arrays([np.arange(len(df)) % 2, np.arange(len(df))])),
           "extra_columns_reversed": df.assign(junk="x", agent_id=1)[["junk", "agent_id"] + list(df.columns)[::-1]],
           "arrow_dictionary": pa.Table.from_pandas(df.assign(**{c: df[c].astype("category") for c in labels}),
                                                    preserve_index=False)}
    if score:
        out["Float64"] = df.assign(score=df["score"].astype("Float64"))
    if pl is not None:
        out["polars_categorical"] = pl.from_pandas(df).with_columns(*[pl.col(c).cast(pl.Categorical) for c in labels])
    return out


def _text(result):
    if isinstance(result, pd.DataFrame):
        return result.reset_index(drop=True).astype(str).to_dict("list")
    data = result.to_dict()
    for key in ("seed", "versions", "notes"):
        data.pop(key, None)
    return _said(str(result)), result.tidy().astype(str).to_dict("list"), repr(data)


def _same_from_every_table(call, base, tables, by_name=False):
    expected = _text(call(base))
    for name, table in tables.items():
        before = _snapshot(table) if isinstance(table, pd.DataFrame) else None
        got = _text(call(table))
        assert before is None or _unchanged(before, table), name
        if name == "categorical_unused" and by_name:  # results may list the levels in the categorical's order
            assert sorted(zip(*got[1].values())) == sorted(zip(*expected[1].values())), name
        else:
            assert got == expected, name


def test_a_normalisation_reference_in_any_representation_normalises_alike():
    df = _runs()
    reference = pd.DataFrame({"task": ["task_01", "task_02", "task_03", "task_04"], "random": [-10.0, 0.0, 5.0, 0.0],
                              "human": [20.0, 5.0, 15.0, 2.0]})
    tables = _tables(reference, ["task"], score=False) | {
        "Int64": reference.assign(random=reference["random"].astype("Int64"), human=reference["human"].astype("Int64")),
        "float32": reference.assign(random=reference["random"].astype(np.float32),
                                    human=reference["human"].astype(np.float32))}
    _same_from_every_table(lambda ref: rlstats.normalize(df, ref), reference, tables)
    first = rlstats.normalize(df, reference)["score"].iloc[0]
    assert first == pytest.approx((df["score"].iloc[0] + 10) / 30, rel=1e-15)  # task_01: random -10, human 20


@pytest.mark.slow
def test_adastop_batches_and_heldout_frames_in_any_representation_give_the_same_result():
    runs = rlstats.datasets.simulate(agents=3, tasks=1, seeds=10, effect=1.0, rng=4)
    runs = _objects(runs).drop(columns="task")
    interim = runs["seed"].to_numpy() // 5

    def adastop(batches):
        test = rlstats.AdaStop(["agent_1", "agent_2", "agent_3"], n=5, K=2, n_resamples=200, rng=1)
        for k in range(2):
            if not test.done:
                keep = interim == k
                test.update(batches.filter(pa.array(keep)) if isinstance(batches, pa.Table) else
                            batches.filter(pl.Series(keep)) if pl is not None and isinstance(batches, pl.DataFrame)
                            else batches[keep])
        return test.result()
    _same_from_every_table(adastop, runs, _tables(runs, ["agent"]))

    df = _objects(rlstats.datasets.simulate(agents=2, tasks=8, seeds=3, effect=0.5, rng=2))
    reported = df["task"].isin(["task_01", "task_02", "task_03", "task_04"]).to_numpy()
    _same_from_every_table(lambda heldout: rlstats.selection_check(
        df[reported], "score ~ agent | task", treatment="agent_2", baseline="agent_1", reported=["task_01", "task_02"],
        heldout=heldout, rng=1, n_resamples=200, progress=False), df[~reported], _tables(df[~reported],
                                                                                        ["agent", "task"]),
        by_name=True)


# ------------------------------------------------------------------------------------------------ subset= on levels

def _levelled(ordered, levels=("easy", "medium", "hard")):
    return levelled(_runs(), ordered, levels)


_kept = tasks_kept


def test_an_order_comparison_on_an_ordered_categorical_compares_its_levels_order():
    # level >= 'medium' kept task_02 alone ('hard' < 'medium' as text), where pandas and R's subset() on an ordered
    # factor keep task_02 to task_04 (the levels' order); meta31 made it an error, bfix31 compares the levels as
    # pandas and R do (the subset's note says which levels each comparison kept)
    df = _levelled(ordered=True)
    assert sorted(df.loc[df["level"] >= "medium", "task"].unique()) == ["task_02", "task_03", "task_04"]  # pandas
    assert _kept(df, "level >= 'medium'") == ("task_02", "task_03", "task_04")
    assert _kept(df, "'easy' < level") == ("task_02", "task_03", "task_04")
    with pytest.raises(rlstats.OptionError, match=r"'Medium' is not a level of the ordered categorical 'level' "
                                                  r"\('easy' < 'medium' < 'hard'\)"):
        _kept(df, "level >= 'Medium'")


def test_order_comparisons_on_categoricals_read_the_text_where_that_is_unambiguous():
    # unordered levels in any order: text, as an object column reads; ordered ones in their text's order: the same
    for df in (_levelled(ordered=False), _levelled(ordered=True, levels=("easy", "hard", "medium"))):
        assert _kept(df, "level >= 'hard'") == ("task_02", "task_03", "task_04")
        assert _kept(df, "level == 'hard'") == ("task_03", "task_04")
    assert _kept(_levelled(ordered=True), "level in ['medium', 'hard']") == ("task_02", "task_03", "task_04")


def test_a_polars_enum_keeps_its_order_so_that_an_order_comparison_on_it_compares_its_levels():
    # polars compares an Enum by its levels' order (level >= 'medium': medium and hard), as pandas an ordered
    # categorical; converted to an unordered categorical, subset= read its text and kept task_02 alone
    if pl is None:
        pytest.skip("polars is not installed")
    df = _levelled(ordered=True)
    frame = pl.from_pandas(df.assign(level=df["level"].astype(str))).with_columns(
        pl.col("level").cast(pl.Enum(["easy", "medium", "hard"])))
    assert frame.filter(pl.col("level") >= "medium")["task"].unique().sort().to_list() == ["task_02", "task_03",
                                                                                          "task_04"]
    converted = rlstats.interop.as_pandas(frame)["level"]
    assert converted.cat.ordered and converted.cat.categories.tolist() == ["easy", "medium", "hard"]
    assert _kept(frame, "level >= 'medium'") == ("task_02", "task_03", "task_04")  # as polars filters (bfix31)
    assert _kept(frame, "level in ['medium', 'hard']") == ("task_02", "task_03", "task_04")


def test_from_rliable_reads_a_masked_arrays_masked_entries_as_missing():
    # np.asarray drops a mask: the masked entries' stored values (here 1e6) became scores, silently
    values = np.arange(12, dtype=float).reshape(3, 4)
    masked = np.ma.masked_array(np.where(np.eye(3, 4, dtype=bool), 1e6, values), mask=np.eye(3, 4, dtype=bool))
    frame = rlstats.from_rliable({"A": masked, "B": values + 1.0}, tasks=["t0", "t1", "t2", "t3"])
    a = frame[frame["agent"] == "A"]
    assert a["score"].isna().sum() == 3 and a["score"].max() == 11.0
    assert a.loc[a["score"].isna(), ["seed", "task"]].astype(str).values.tolist() == [["0", "t0"], ["1", "t1"],
                                                                                      ["2", "t2"]]
    with pytest.raises(rlstats.DesignError, match=r"column 'score' has 3 missing values"):
        rlstats.task_table(frame, "score ~ agent | task/seed")


def test_adastop_batch_of_masked_arrays_is_the_missing_score_error():
    # {agent: masked array}: the value stored under the mask (1e6) was read as agent A's third score, silently
    scores = np.random.default_rng(0).normal(size=(2, 5))
    masked = np.ma.masked_array(np.where(np.arange(5) == 2, 1e6, scores[0]), mask=np.arange(5) == 2)
    test = rlstats.AdaStop(["A", "B"], n=5, K=2, n_resamples=100, rng=1)
    with pytest.raises(rlstats.DesignError, match=r"agent 'A' has 1 missing or infinite score in this batch"):
        test.update({"A": masked, "B": scores[1]})
    test.update({"A": masked.filled(0.0), "B": scores[1]})  # the runs, corrected, are taken
    assert test.result().to_dict()["scores"]["data"][2] == ["A", 1, 0.0]
