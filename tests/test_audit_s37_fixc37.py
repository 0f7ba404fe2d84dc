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


_BASE = np.array([-1.0, 1.0, -1.0, 1.0]) * np.sqrt(3) / 2  # four runs of mean 0 and SD 1 exactly


def _table(cells, scale=1.0):
    """A task table of one task per ``cells`` row, each a tuple of (agent, mean, SD) cells, scores times ``scale``."""
    rows = []
    for t, row in enumerate(cells):
        for agent, mean, sd in row:
            rows += [{"agent": agent, "task": f"t{t}", "seed": i, "score": scale * (mean + sd * v)}
                     for i, v in enumerate(_BASE)]
    return rlstats.task_table(pd.DataFrame(rows), "score ~ agent | task/seed")


def _cell(text, task, agent_index=0):
    """The mean as printed in the ``agent_index``-th cell of ``task``'s row of a printed, LaTeX or Markdown table."""
    text = text.replace("$-$", "-").replace(r"\textbf{", "").replace("**", "")
    line = next(line for line in text.splitlines() if line.lstrip("| ").startswith(task + " ")
                or line.lstrip("| ").startswith(task + "&") or line.lstrip("| ").startswith(task + " &"))
    return [part.split()[-1] for part in line.replace("$\\pm$", "±").split("±")[:-1]][agent_index].strip("*|&")


@pytest.mark.parametrize("other", [(0.5, 1.0), (100000.0, 0.001), (3000021.0, 1.0)])
def test_task_table_cell_digits_follow_its_own_mean_and_sd(other):
    """0.012345678 ± 1 read "0.012345678 ± 1" beside B at 100000 ± 0.001 (the row's digits, widened for B's mean far
    above its SD) and "0.012" beside B at 0.5 ± 1; 9.6 ± 1e6 read "9.6" beside B at 3000021 ± 1. Each cell's mean is
    printed to its own SD: "0.01" and "10", in print, summary, LaTeX and Markdown alike."""
    res = _table([[("A", 0.012345678, 1.0), ("B", *other)], [("A", 9.6, 1e6), ("B", *other)]])
    for text in (str(res), str(res.summary()), res.to_latex(), res.to_markdown()):
        assert _cell(text, "t0") == "0.01", text
        assert _cell(text, "t1") == "10", text
    assert _cell(str(_table([[("A", 9.6, 1e4), ("B", 0.5, 1.0)]])), "t0") == "10"


def _significant(text):
    mantissa = text.lstrip("-").partition("e")[0].replace(".", "").lstrip("0")
    return len(mantissa)


@pytest.mark.parametrize("factor", [2, 5, 10, 1e-3, 7.3])
def test_task_table_mean_digits_are_the_same_in_any_unit(factor):
    """Metamorphic: a mean below its SD printed to one digit fewer per power of ten in SD / |mean| (rounded up),
    whatever the unit: scores x1, x2, x5, x10 read "0.061 ± 0.12", "0.122 ± 0.24", "0.306 ± 0.6", "0.61 ± 1.2"
    (2, 3, 3, 2 digits); now 2 digits each."""
    cells = [[("A", 0.0612, 0.12), ("B", 0.5, 0.3)],     # ratio 1.96: 2 digits
             [("A", 0.00123456, 1.0), ("B", 0.5, 0.3)],  # ratio 810: 1 digit
             [("A", 0.0345, 0.9), ("B", 0.5, 0.3)],      # ratio 26: 1 digit
             [("A", 0.0876, 0.05), ("B", 0.5, 0.3)]]     # mean above its SD: 3 digits
    expected = [2, 1, 1, 3]
    base, scaled = str(_table(cells)), str(_table(cells, factor))
    assert [_significant(_cell(base, f"t{t}")) for t in range(4)] == expected, base
    assert [_significant(_cell(scaled, f"t{t}")) for t in range(4)] == expected, scaled


def test_digits_beside_depends_on_the_ratio_alone():
    from rlstats.format import digits_beside

    for value, spread in ((0.0612, 0.12), (0.0123, 1.0), (0.0587, 0.32), (-8.02e-07, 0.0019), (0.3, 3.0)):
        counts = {digits_beside(value * k, spread * k, 3) for k in (1, 2, 5, 10, 1e-3, 7.3, 3e4)}
        assert len(counts) == 1, (value, spread, counts)
    assert digits_beside(0.3, 3.0, 3) == 2 and digits_beside(0.3, 3.0001, 3) == 1  # 10x exactly: one fewer


def test_power_given_a_frame_for_target_power_says_its_shape_once():
    """power(target_power=df) said "a DataFrame of shape (18, 4)" three times in one sentence; sample_size(seeds=df)
    printed the whole frame."""
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    with pytest.raises(rlstats.OptionError) as caught:
        rlstats.power("skillings_mack", design=df, formula="score ~ agent | task/seed", target_power=df)
    assert str(caught.value) == ("target_power=a DataFrame of shape (18, 4): power() estimates the power at the seeds "
                                 "given; for the fewest seeds that reach a power of p, call sample_size(..., "
                                 "target_power=p)")
    with pytest.raises(rlstats.OptionError) as caught:  # one number: said where it is meant, as before
        rlstats.power("skillings_mack", design=df, formula="score ~ agent | task/seed", target_power=0.9)
    assert "reach a power of 0.9, call sample_size(..., target_power=0.9)" in str(caught.value)
    with pytest.raises(rlstats.OptionError) as caught:
        rlstats.sample_size("skillings_mack", design=df, formula="score ~ agent | task/seed", seeds=df)
    assert str(caught.value).startswith("seeds=a DataFrame of shape (18, 4) is power()'s list of seed counts")
    assert len(str(caught.value).splitlines()) == 1


@pytest.mark.parametrize("given", [np.array(["iqm", "mean"]), pd.Series(["iqm", "mean"]), pd.Index(["iqm", "mean"])],
                         ids=["ndarray", "Series", "Index"])
def test_metrics_as_a_one_dimensional_array_of_names_is_read_as_a_list(given):
    # review rv37c: the frame check refused anything with a shape, so df["metric"].unique() (an ndarray) was refused
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    listed = rlstats.bootstrap(df, "score ~ agent | task/seed", metrics=["iqm", "mean"], n_resamples=200, rng=0)
    res = rlstats.bootstrap(df, "score ~ agent | task/seed", metrics=given, n_resamples=200, rng=0)
    pd.testing.assert_frame_equal(res.tidy(), listed.tidy())
    with pytest.raises(rlstats.OptionError, match="got a ndarray of shape"):
        rlstats.bootstrap(df, "score ~ agent | task/seed", metrics=np.array([["iqm", "mean"]]), n_resamples=200, rng=0)
