"""Review of session 37's merges (fixc37): the keyword response on every frame library, the task table's digits
per cell, bootstrap's metrics= given a frame, power's message of a frame, the percentile cost figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats


def _in_library(df: pd.DataFrame, library: str):
    if library == "pandas":
        return df
    if library == "polars":
        pl = pytest.importorskip("polars")
        return pl.from_pandas(df)
    pa = pytest.importorskip("pyarrow")
    return pa.Table.from_pandas(df, preserve_index=False)


@pytest.mark.parametrize("library", ["pandas", "polars", "pyarrow"])
@pytest.mark.parametrize("function", ["compare", "bootstrap"])
def test_keyword_response_is_unknown_first_on_every_frame_library(library, function):
    """compare(pa.Table, 'return ~ agent | task/seed') raised "TypeError: unhashable type:
    'pyarrow.lib.ChunkedArray'": a pyarrow Table's .columns are its arrays. The names are read from its schema."""
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0).rename(columns={"score": "returns"})
    call = getattr(rlstats, function)
    kwargs = {"n_resamples": 200, "rng": 0} if function == "bootstrap" else {}
    with pytest.raises(rlstats.FormulaError) as caught:
        call(_in_library(df, library), "return ~ agent | task/seed", **kwargs)
    assert str(caught.value).startswith("unknown name 'return' in response; did you mean 'returns'?"), \
        str(caught.value)
    with pytest.raises(rlstats.FormulaError, match="unknown column 'class' in the grouping term"):
        call(_in_library(df, library), "returns ~ class | task/seed", **kwargs)
    df["return"] = df["returns"]  # a column of that name: the advice to back-quote it, and the quoted one runs
    with pytest.raises(rlstats.FormulaError, match=r"'return' is a Python keyword; back-quote the column"):
        call(_in_library(df, library), "return ~ agent | task/seed", **kwargs)
    assert call(_in_library(df, library), "`return` ~ agent | task/seed", **kwargs) is not None


def test_column_names_of_each_frame_library():
    from rlstats.interop import column_names

    df = pd.DataFrame({"agent": ["A"], "return": [1.0]})
    assert column_names(df) == ["agent", "return"]
    pa = pytest.importorskip("pyarrow")
    assert column_names(pa.Table.from_pandas(df, preserve_index=False)) == ["agent", "return"]
    assert column_names(pa.RecordBatch.from_pandas(df, preserve_index=False)) == ["agent", "return"]
    assert column_names([1, 2]) is None and column_names("score ~ agent") is None
