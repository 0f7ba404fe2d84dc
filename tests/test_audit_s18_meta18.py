"""Audit s18 (meta18): every public back end given the caller's data in other frame libraries and dtypes (pandas
nullable and pyarrow-backed columns, categoricals with unused levels, polars and pyarrow tables, odd indexes and
columns, copy-on-write) gives the numbers and notes of the plain float64/object frame, leaves the frame alone, and
refuses what it cannot use with an rlstats error naming the column and the way on."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import curves_frame, quietly
from rlstats.interop import as_pandas


# timedelta64 is an integer kind to numpy: curves and align_steps fell over in runs.as_steps with numpy's "Invalid
# integer data type 'm'.", and summarize_runs(how="auc") integrated over the steps' microseconds without a word
# (AUC 6.2e5 for 0.62 with the same steps in seconds).
@pytest.mark.parametrize("call", ["curves", "align_steps", "summarize_runs"])
def test_timedelta_steps_are_an_error_naming_the_column(call):
    frame = curves_frame(tasks=2, runs=3, steps=4, seed=0)
    frame["step"] = pd.to_timedelta(frame["step"], "s")
    options = {"n_resamples": 20, "rng": 1} if call == "curves" else {"how": "auc"} if call == "summarize_runs" else {}
    with pytest.raises(rlstats.DesignError, match=r"step column 'step' holds durations .*total_seconds"):
        quietly(getattr(rlstats, call), frame, "score ~ agent | task/seed", step="step", **options)


def _reference(frame):
    tasks = sorted(frame["task"].unique())
    return pd.DataFrame({"task": tasks, "random": np.arange(len(tasks), dtype=float),
                         "human": 100.0 + 10 * np.arange(len(tasks))})


# rlstats.normalize's reference is typed Table | str (a polars or pyarrow table among them) and every other table
# argument takes those, but a polars reference was refused: "reference must be a DataFrame ..., got DataFrame".
@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_a_polars_or_pyarrow_reference_normalises_as_the_pandas_one(library):
    pytest.importorskip(library)
    convert = (lambda f: __import__("polars").from_pandas(f)) if library == "polars" else \
        (lambda f: __import__("pyarrow").Table.from_pandas(f, preserve_index=False))
    frame = quietly(rlstats.datasets.simulate, agents=2, tasks=3, seeds=3, rng=0)
    reference = _reference(frame)
    expected = rlstats.normalize(frame, reference)
    pd.testing.assert_frame_equal(rlstats.normalize(frame, convert(reference)), expected, check_exact=True)
    assert rlstats.normalize(frame, convert(reference)).attrs["rlstats_notes"] == expected.attrs["rlstats_notes"]
    base = rlstats.compare(frame, "score ~ agent | task", method="task_table", normalize=reference)
    for option in (convert(reference), {"reference": convert(reference)}):
        result = rlstats.compare(frame, "score ~ agent | task", method="task_table", normalize=option)
        pd.testing.assert_frame_equal(result.tidy(), base.tidy(), check_exact=True)
        assert str(result) == str(base)


def test_a_lazy_reference_is_an_error_saying_collect():
    pl = pytest.importorskip("polars")
    frame = quietly(rlstats.datasets.simulate, agents=2, tasks=3, seeds=3, rng=0)
    lazy = pl.from_pandas(_reference(frame)).lazy()
    with pytest.raises(rlstats.OptionError, match=r"^reference=: the reference is a polars LazyFrame; call .collect"):
        rlstats.normalize(frame, lazy)
    with pytest.raises(rlstats.OptionError, match=r"^normalize=: the reference is a polars LazyFrame"):
        rlstats.compare(frame, "score ~ agent | task", method="task_table", normalize=lazy)


# summarize_runs' frame carries "1 agent level with no runs left out: ZZ" in its notes and keeps the unused level (the
# caller's dtype), so the result built from it said the same sentence twice, once from the frame and once from build.
def test_a_note_the_frame_carries_and_the_design_repeats_is_printed_once():
    frame = curves_frame(tasks=2, runs=3, steps=4, seed=0)
    for column in ("agent", "task"):
        frame[column] = pd.Categorical(frame[column], categories=[*sorted(frame[column].unique()), "ZZ"])
    summary = rlstats.summarize_runs(frame, "score ~ agent | task/seed", step="step", how="auc")
    result = rlstats.compare(summary, "score ~ agent | task/seed", method="task_table")
    printed = str(result).splitlines()
    for what in ("agent", "task"):
        assert printed.count(f"Note: 1 {what} level with no runs left out: ZZ") == 1
    plain = rlstats.compare(summary.astype({"agent": str, "task": str}), "score ~ agent | task/seed",
                            method="task_table")
    pd.testing.assert_frame_equal(result.tidy().astype({"agent": str, "task": str}),
                                  plain.tidy().astype({"agent": str, "task": str}), check_exact=True)


def _aggregated_runs():
    """Runs as ``groupby(...).agg({'score': ['mean']}).reset_index()`` gives them: columns a MultiIndex whose
    labels are ('agent', ''), ..., ('score', 'mean')."""
    frame = quietly(rlstats.datasets.simulate, agents=2, tasks=3, seeds=3, rng=0)
    return frame.groupby(["agent", "task", "seed"], observed=True).agg({"score": ["mean"]}).reset_index()


# groupby().agg([...]) leaves MultiIndex columns; every public function answered "unknown name 'score' in response
# ... the data columns are: "('agent', '')", ..." (or, with subset=, an unknown column of the condition) without the
# way on.
@pytest.mark.parametrize("call", ["compare", "compare_subset", "normalize", "summarize_runs"])
def test_multiindex_columns_are_an_error_saying_how_to_flatten_them(call):
    frame = _aggregated_runs()
    before = frame.copy()
    calls = {
        "compare": lambda: rlstats.compare(frame, "score ~ agent | task"),
        "compare_subset": lambda: rlstats.compare(frame, "score ~ agent | task", subset="task != 'task_01'"),
        "normalize": lambda: rlstats.normalize(frame, "minmax"),
        "summarize_runs": lambda: rlstats.summarize_runs(frame, "score ~ agent | task/seed", step="seed"),
    }
    with pytest.raises(rlstats.DesignError, match=r"columns are a MultiIndex \(\('agent', ''\), .*\); flatten them "
                                                  r"first, e\.g\. df\.columns = "):
        calls[call]()
    pd.testing.assert_frame_equal(frame, before)


def _integer_agents_with_a_missing_one():
    """3 agents coded 1, 2, 3 (nullable Int64) on 3 tasks x 3 seeds, one row's agent missing."""
    frame = quietly(rlstats.datasets.simulate, agents=3, tasks=3, seeds=3, rng=0)
    frame["agent"] = pd.array(frame["agent"].cat.codes + 1, dtype="Int64")
    frame.loc[4, "agent"] = pd.NA
    frame.attrs = {}
    return frame


# An integer column with a null came from polars (and from a pyarrow table without pandas' metadata) as floats: agents
# coded 1, 2, 3 printed as '1.0', '2.0', '3.0', where the same column in pandas (Int64) prints '1', '2', '3'.
@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_integer_agents_with_a_null_keep_their_labels_from_polars_and_pyarrow(library):
    pa = pytest.importorskip("pyarrow")
    frame = _integer_agents_with_a_missing_one()
    if library == "polars":
        table = pytest.importorskip("polars").from_pandas(frame)
    else:  # as a pyarrow table is made outside pandas: no pandas metadata to restore Int64 from
        agent = pa.array([None if pd.isna(v) else int(v) for v in frame["agent"]], type=pa.int64())
        table = pa.table({"agent": agent, **{c: pa.array(frame[c].astype(object).to_numpy() if c == "task"
                                                         else frame[c].to_numpy()) for c in frame.columns[1:]}})
        assert pa.types.is_integer(table.schema.field("agent").type) and table.column("agent").null_count == 1
    base = rlstats.compare(frame, "score ~ agent | task", method="task_table", na_action="drop")
    result = rlstats.compare(table, "score ~ agent | task", method="task_table", na_action="drop")
    assert result.agents == base.agents == ("1", "2", "3")
    pd.testing.assert_frame_equal(result.tidy(), base.tidy(), check_exact=True)


# A second column named like the formula's agent or task column met pandas' frame-for-a-column: AttributeError
# "'DataFrame' object has no attribute 'dtype'" (the response's column had its own error already).
@pytest.mark.parametrize("column", ["agent", "task", "seed"])
def test_a_repeated_label_column_is_an_error_naming_it(column):
    frame = quietly(rlstats.datasets.simulate, agents=2, tasks=3, seeds=3, rng=0)
    frame.insert(0, column, "x", allow_duplicates=True)
    with pytest.raises(rlstats.DesignError, match=f"column '{column}' appears 2 times in the data; give columns"):
        rlstats.compare(frame, "score ~ agent | task/seed", method="task_table")


# A nullable Int64 step with a missing value and na_action="drop" (a polars integer step with a null arrives so too)
# stopped in runs._dropped_steps on "boolean value of NA is ambiguous"; with the step as floats (NaN) it ran.
@pytest.mark.parametrize("call", ["curves", "align_steps"])
def test_a_nullable_step_with_a_missing_value_drops_as_nan_does(call):
    frame = curves_frame(tasks=2, runs=3, steps=4, seed=0)
    floats = frame.astype({"step": float})
    floats.loc[5, "step"] = np.nan
    nullable = frame.astype({"step": "Int64"})
    nullable.loc[5, "step"] = pd.NA
    options = {"n_resamples": 50, "rng": 1} if call == "curves" else {}
    run = getattr(rlstats, call)
    expected = run(floats, "score ~ agent | task/seed", step="step", na_action="drop", **options)
    result = run(nullable, "score ~ agent | task/seed", step="step", na_action="drop", **options)
    if call == "curves":
        assert str(result) == str(expected)
        result, expected = result.tidy(), expected.tidy()
    pd.testing.assert_frame_equal(result.astype({"step": float}), expected, check_exact=True)


# A polars Int128 column the formula does not read (a hashed run id, say) stopped the conversion with polars' own
# "cannot convert i128 to NumPy"; it now comes as Python ints, and the analysis is that of the frame without it.
def test_a_polars_int128_column_does_not_stop_the_conversion():
    pl = pytest.importorskip("polars")
    if not hasattr(pl, "Int128"):
        pytest.skip("this polars has no Int128")
    frame = quietly(rlstats.datasets.simulate, agents=2, tasks=3, seeds=3, rng=0)
    frame.attrs = {}
    table = pl.from_pandas(frame).with_columns(pl.Series("run_hash", [2**100 + i for i in range(len(frame))],
                                                         dtype=pl.Int128))
    converted = as_pandas(table)  # as every public function takes a frame
    assert converted["run_hash"].tolist()[:2] == [2**100, 2**100 + 1]
    result = rlstats.compare(table, "score ~ agent | task", method="task_table")
    pd.testing.assert_frame_equal(result.tidy(), rlstats.compare(frame, "score ~ agent | task",
                                                                 method="task_table").tidy(), check_exact=True)


# A frame made from an array (pd.DataFrame(values)) has the integers 0, 1, ... as column labels; naming one in the
# formula as `3` answered "unknown name '3' in response; did you mean `3`?", the very text written.
def test_integer_column_labels_are_an_error_saying_to_make_them_text():
    frame = quietly(rlstats.datasets.simulate, agents=2, tasks=3, seeds=3, rng=0)
    frame.columns = range(frame.shape[1])  # agent, task, seed, score
    before = frame.copy()
    with pytest.raises(rlstats.FormulaError, match=r"the column labelled 3 is an int, and a formula names columns by "
                                                   r"text: .*df\.columns = df\.columns\.astype\(str\)"):
        rlstats.compare(frame, "`3` ~ `0` | `1`", method="task_table")
    pd.testing.assert_frame_equal(frame, before)
    named = frame.set_axis(frame.columns.astype(str), axis=1)  # the way on works
    assert rlstats.compare(named, "`3` ~ `0` | `1`", method="task_table").nobs == len(frame)


def _twenty_seeds(folder):
    """CURL and DrQ on Alien, seeds 0-19 of the published Atari 100k runs (4 interims of n = 5)."""
    atari = pd.read_csv(folder / "atari100k.csv")
    keep = atari["agent"].isin(["CURL", "DrQ"]) & (atari["task"] == "Alien") & (atari["seed"] < 20)
    return atari[keep].reset_index(drop=True)


# AdaStop forms its interims from the seed column's order: seeds 0-19 written as text ('0', '1', '10', ...) made the
# first interim seeds 0, 1, 10, 11, 12, and the decision on CURL vs DrQ was 'larger' where the integer seeds give
# 'equal'. Text seeds are taken in the order they read in, digits as numbers ('seed_2' before 'seed_10').
@pytest.mark.parametrize("how", ["str", "prefixed", "categorical", "polars"])
def test_adastop_takes_text_seeds_in_the_order_they_read(how, published):
    runs = _twenty_seeds(published)
    expected = rlstats.adastop(runs, "score ~ agent | task/seed", n=5, rng=1, n_resamples=200)
    text = runs.assign(seed=runs["seed"].astype(str) if how != "prefixed" else "seed_" + runs["seed"].astype(str))
    if how == "categorical":
        text = text.astype({"seed": "category"})
    if how == "polars":
        text = pytest.importorskip("polars").from_pandas(text)
    result = rlstats.adastop(text, "score ~ agent | task/seed", n=5, rng=1, n_resamples=200)
    pd.testing.assert_frame_equal(result.tidy(), expected.tidy(), check_exact=True)
    assert result.decisions.equals(expected.decisions)


# The same with batch=: batches are taken in sorted order, and text batches '0' to '11' sorted as text put '10' and
# '11' before '2'.
@pytest.mark.parametrize("how", ["str", "prefixed", "categorical"])
def test_adastop_takes_text_batches_in_the_order_they_read(how, published):
    atari = pd.read_csv(published / "atari100k.csv")
    runs = atari[atari["agent"].isin(["CURL", "DrQ"]) & (atari["task"] == "Alien") & (atari["seed"] < 24)]
    runs = runs.assign(batch=runs["seed"] // 2).reset_index(drop=True)  # 12 batches of n = 2
    options = {"n": 2, "K": 12, "batch": "batch", "rng": 1, "n_resamples": 200}
    expected = rlstats.adastop(runs, "score ~ agent | task", **options)
    text = runs.assign(batch=runs["batch"].astype(str) if how != "prefixed" else "b" + runs["batch"].astype(str))
    if how == "categorical":
        text = text.astype({"batch": "category"})
    result = rlstats.adastop(text, "score ~ agent | task", **options)
    pd.testing.assert_frame_equal(result.tidy(), expected.tidy(), check_exact=True)
