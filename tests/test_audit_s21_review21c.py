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
    """``statistics.ENUMERATED_CELLS`` (read by ``statistics.listable``) caps the cached table of splits (splits x runs, a byte each); C(n + m, n) at most
    ``EXACT_SPLITS`` (20,000) was enumerated whatever its cells: 1 run against m has m + 1 splits of m + 1 runs (a 25 MB table at m = 4,999,
    400 MB at 19,999). Drawn at random now, as above EXACT_SPLITS."""
    from rlstats.methods.task_table import _kernels

    assert _kernels.split_count(1, 4_999, 10_000) == (10_000, False)  # 5,000 x 5,000 cells > 2**23
    assert _kernels.split_count(1, 2_000, 10_000) == (2_001, True)  # 4,004,001 cells: enumerated, as before
    assert _kernels.split_count(9, 9, 10_000) == (10_000, False) and _kernels.split_count(5, 5, 10) == (252, True)


def _tuning_notes(view, n, runs, **options):
    """The calibration notes of tuning() for one sweep of ``n`` configurations x ``runs`` seeds, its intervals shown."""
    import numpy as np
    import pandas as pd

    from rlstats.methods.tuning import _api

    from types import SimpleNamespace

    # one sweep (task 0, agent 0) whose interval is shown (s34 tune34: the notes read the sweeps shown)
    shown = pd.DataFrame({"agent": ["a"], "task": ["t"], "conf_low": [0.0]})
    return _api._calibration_notes(SimpleNamespace(agents=("a",), tasks=("t",)), {(0, 0): {"sizes": np.full(n, runs)}},
                                   {view}, 0.95, {"tuned": shown, "expected_max": shown, "complete": shown}, **options)


def test_tuning_notes_say_how_the_quoted_row_misses():
    """miss21 words every quoted row's miss (calibration.miss_clause); tuning's notes printed only "measured at 0.943
    for a 95% claim" at 100 configurations x 5 seeds (two-stage complete interval), whose pooled coverage holds 95%
    (3 SE of 1,000: 0.929) and whose worst of 4 draws, 0.900, is why it is quoted. The notes now say both."""
    (note,) = _tuning_notes("complete", 100, 5, complete_interval="two_stage")
    assert "measured at 0.943, 0.900 in the worst of its 4 draws of the task's offsets and scales" in note
    assert "its worst draw below 0.95 by more than 3 Monte Carlo standard errors of a draw" in note
    (note,) = _tuning_notes("best_set", 30, 5, tuned_lower="winner")  # 0.920 of 400 (3 SE: 0.917), worst 0.880
    assert "measured at 0.920, 0.880 in the worst of its 4 draws of the configurations' offsets" in note and "its worst draw below 0.95" in note
    (note,) = _tuning_notes("complete", 10, 10, complete_interval="two_stage")  # pooled 0.692: the pooled miss
    assert "measured at 0.692" in note and ", below 0.95 by more than 3 Monte Carlo standard errors" in note
