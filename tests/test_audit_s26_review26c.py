"""Audit s26 (review26c): review of session 26's merges (trim26's test helpers, copies26b, hall26b, median26, small26)
on main."""

import importlib.util
import pathlib

import pandas as pd
import pytest


def _bad_inputs():
    """tests/test_bad_inputs.py as a module (its ``unchanged`` helper)."""
    path = pathlib.Path(__file__).parent / "test_bad_inputs.py"
    spec = importlib.util.spec_from_file_location("_bad_inputs_review26c", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("where", ["column", "index"])
def test_unchanged_catches_reordered_categories(where):
    """trim26's fast path of unchanged() passed a frame whose categorical column's (or index's) categories were
    reordered in place: CategoricalDtype equality and DataFrame.equals ignore the order of unordered categories,
    pd.testing.assert_frame_equal does not. The fast path now compares the categories too."""
    helper = _bad_inputs()
    if where == "column":
        frame = pd.DataFrame({"agent": pd.Categorical(["x", "y", "x"], categories=["x", "y"]), "score": [1.0, 2, 3]})
    else:
        frame = pd.DataFrame({"score": [1.0, 2]}, index=pd.CategoricalIndex(["x", "y"], categories=["x", "y"]))
    before = frame.copy(deep=True)
    with pytest.raises(AssertionError):
        pd.testing.assert_frame_equal(
            frame.set_axis(frame.index.reorder_categories(["y", "x"]), axis=0) if where == "index" else
            frame.assign(agent=frame["agent"].cat.reorder_categories(["y", "x"])), before)
    with pytest.raises(AssertionError):
        with helper.unchanged(frame):  # the caller's frame modified in place, as a function might
            if where == "column":
                frame["agent"] = frame["agent"].cat.reorder_categories(["y", "x"])
            else:
                frame.index = frame.index.reorder_categories(["y", "x"])


def test_unchanged_fast_path_still_fast_and_still_passes_copies():
    """An untouched frame with categoricals passes the fast path itself (no fallback), and a reordered one fails it."""
    helper = _bad_inputs()
    frame = pd.DataFrame({"agent": pd.Categorical(["x", "y", "x"], categories=["x", "y"]), "score": [1.0, 2, 3]},
                         index=pd.CategoricalIndex(["a", "b", "c"]))
    assert helper._identical(frame, frame.copy(deep=True))
    assert not helper._identical(frame.assign(agent=frame["agent"].cat.reorder_categories(["y", "x"])), frame)
    assert not helper._identical(frame.assign(agent=frame["agent"].cat.set_categories(["x", "y", "z"])), frame)
