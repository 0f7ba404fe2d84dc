"""Audit s21 (review21c): review of the session's merges (raw21, meta21, review21b, miss21, kr21)."""

import io

import pytest

from rlstats.tables import LongRecord, read_csv


def test_read_csv_trailing_empty_fields_lose_nothing(tmp_path):
    """``tables.read_csv`` says an empty field ending each line is no field; "1,2,," (two empty ones, as
    spreadsheets write them) made pandas warn, and the re-scan found no longer record: a LongRecord naming none.
    Read now, with the empty fields left out (nothing lost)."""
    frame = read_csv(io.StringIO("a,b\n1,2,,\n3,4\n"))
    assert list(frame.columns) == ["a", "b"]
    assert frame["a"].tolist() == [1, 3] and frame["b"].tolist() == [2, 4]
    path = tmp_path / "runs.csv"  # a path is read again as a file object is
    path.write_text("a;b\n1.5;2;;\n3;4;\n")
    assert read_csv(path, sep=";").to_dict("list") == {"a": [1.5, 3.0], "b": [2, 4]}
    # a non-empty field beyond the header still names its line
    with pytest.raises(LongRecord, match="line 3 has 4 fields where the header names 2"):
        read_csv(io.StringIO("a,b\n1,2,,\n3,4,,5\n"))


def test_task_table_enumerated_cells_cap_holds_below_exact_splits():
    """``_kernels.ENUMERATED_CELLS`` caps the cached table of splits (splits x runs, a byte each); C(n + m, n) at most
    ``EXACT_SPLITS`` (20,000) was enumerated whatever its cells: 1 run against m has m + 1 splits of m + 1 runs (a 25 MB table at m = 4,999,
    400 MB at 19,999). Drawn at random now, as above EXACT_SPLITS."""
    from rlstats.methods.task_table import _kernels

    assert _kernels.split_count(1, 4_999, 10_000) == (10_000, False)  # 5,000 x 5,000 cells > 2**23
    assert _kernels.split_count(1, 2_000, 10_000) == (2_001, True)  # 4,004,001 cells: enumerated, as before
    assert _kernels.split_count(9, 9, 10_000) == (10_000, False) and _kernels.split_count(5, 5, 10) == (252, True)
