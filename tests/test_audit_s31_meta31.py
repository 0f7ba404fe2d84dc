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

Over every compare() back end and the public functions s30's cases cover (the rank test's Monte Carlo p-value,
power() from a pilot, normalize, summarize_runs, align_steps): nothing differed. The mixed model's Satterthwaite df
under a shuffled category order moved by 1.85e-12 relative (7.99999999994625 for the closed form's 8: an iterative REML
fit whose design columns come in another order), above the 1e-12 asked of this sweep and within s30's 1e-9: left.
The default run holds the cheap rank test under every representation; the sweep over every case is marked slow.

Found (reproducers below): a sparse score or step column (``pd.arrays.SparseArray``) was a FormulaError quoting
pandas' AttributeError, or that AttributeError itself for a step (sparse labels and seeds were read); and a
normalisation reference (or data) holding its tasks in the index was an error listing the other columns without
saying where 'task' was.

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
from conftest import simulated_curves

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
    a, b = (rlstats.curves(frame, "score ~ agent | task/seed", step="step", n_resamples=50, rng=1).tidy()
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
    with pytest.raises(rlstats.DesignError, match=r"column 'score' has 2 missing value\(s\)"):
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
