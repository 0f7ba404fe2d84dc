"""Audit s32 speed32: performance changes that leave every output as it was (the caches they add can neither go
stale nor be changed by a caller)."""

import pandas as pd

import rlstats
from rlstats import calibration


def _fresh(procedures):
    """calibration_table's frame as it was built before the cache: typed from the procedures' rows alone."""
    return calibration._frame([row for row in calibration.read() if row["procedure"] in procedures])


def test_calibration_table_is_the_frame_typed_from_its_own_rows():
    for procedure in ("bootstrap.interval", ["curves.band", "equivalence.size"]):
        wanted = [procedure] if isinstance(procedure, str) else procedure
        pd.testing.assert_frame_equal(rlstats.calibration_table(procedure), _fresh(wanted), check_exact=True)
    pd.testing.assert_frame_equal(rlstats.calibration_table("curves.band", runs=[3, 5], default=True),
                                  _fresh(["curves.band"]).query("runs in [3, 5] and default").reset_index(drop=True),
                                  check_exact=True)


def test_calibration_table_a_caller_changes_leaves_the_next_call_alone():
    first = rlstats.calibration_table("bootstrap.interval")
    expected = first.copy(deep=True)
    first.loc[0, "coverage"] = -1.0
    first["runs"] = pd.array([99] * len(first), dtype="Int64")
    del first["misses"]
    pd.testing.assert_frame_equal(rlstats.calibration_table("bootstrap.interval"), expected, check_exact=True)
    kept = calibration._TYPED[0][1]
    assert kept["coverage"].min() >= 0 and "misses" not in kept and "default" not in kept


def test_calibration_table_judges_its_rows_by_the_defaults_of_the_moment(monkeypatch):
    before = rlstats.calibration_table("bootstrap.interval")
    monkeypatch.setitem(calibration.DEFAULTS, "bootstrap.interval", ({"interval": "no such interval"},))
    assert not rlstats.calibration_table("bootstrap.interval")["default"].any() and before["default"].any()
    monkeypatch.undo()
    pd.testing.assert_frame_equal(rlstats.calibration_table("bootstrap.interval"), before, check_exact=True)


def test_calibration_table_follows_the_rows_read_returns(monkeypatch):
    real = calibration.read()
    row = next(r for r in real if r["procedure"] == "bootstrap.interval")
    changed = (dict(row, coverage="0.123456"), dict(row, procedure="curves.band"))
    monkeypatch.setattr(calibration, "read", lambda: changed)
    table = rlstats.calibration_table("bootstrap.interval")
    assert table["coverage"].tolist() == [0.123456] and len(table) == 1
    # rows whose columns differ (a made-up table) are typed as they are, the first kept row's columns
    odd = ({k: v for k, v in row.items() if k != "metric"}, dict(row, procedure="curves.band", coverage="0.5"))
    monkeypatch.setattr(calibration, "read", lambda: odd)
    pd.testing.assert_frame_equal(rlstats.calibration_table("curves.band"), _fresh(["curves.band"]), check_exact=True)
    assert rlstats.calibration_table("curves.band")["coverage"].tolist() == [0.5]
    monkeypatch.undo()
    assert len(rlstats.calibration_table("bootstrap.interval")) == sum(r["procedure"] == "bootstrap.interval"
                                                                       for r in real) > 1


def test_block_value_order_is_lexsort_on_either_side_of_the_grid_threshold(monkeypatch):
    """block_value_order() hands fewer than _GRID_LEAST scores to lexsort (faster there): the grid it lays out above
    stays lexsort's permutation, checked here at the threshold and, with the threshold at 0, on small cases."""
    import numpy as np

    from rlstats import statistics

    rng = np.random.default_rng(32)
    least = statistics._GRID_LEAST

    def cases(sizes):
        for trial, n in enumerate(sizes):
            block = rng.integers(0, int(rng.integers(1, 30)), n)
            yield block, [rng.normal(size=n), rng.integers(0, 3, n).astype(float),
                          rng.choice([np.nan, -0.0, 0.0, 1.0, np.inf, -np.inf], n), rng.integers(-2, 2, n)][trial % 4]

    for block, values in cases([least - 1, least, least + 1, 3 * least, least, least + 7, 2 * least, least]):
        np.testing.assert_array_equal(statistics.block_value_order(values, block), np.lexsort((values, block)))
    monkeypatch.setattr(statistics, "_GRID_LEAST", 0)
    for block, values in cases(rng.integers(1, 200, 40)):
        np.testing.assert_array_equal(statistics.block_value_order(values, block), np.lexsort((values, block)))
    zero = np.zeros(0)
    np.testing.assert_array_equal(statistics.block_value_order(zero, zero.astype(int)), np.lexsort((zero, zero)))


def test_near_ties_nan_as_zero_is_nan_to_num_without_infinities():
    import numpy as np

    from rlstats.statistics import _nan_as_zero

    x = np.array([np.nan, 0.0, -0.0, 1e308, 5e-324, 3.5])
    np.testing.assert_array_equal(_nan_as_zero(x), np.nan_to_num(x))
    assert np.signbit(_nan_as_zero(x)).tolist() == np.signbit(np.nan_to_num(x)).tolist()


def test_check_unrepeated_still_names_a_repeated_column_whatever_the_others():
    import pytest

    from rlstats.errors import DesignError
    from rlstats.formula import check_unrepeated

    frame = pd.DataFrame([[1.0, 2.0, "a", 3.0]], columns=["score", "score", "agent", "task"])
    with pytest.raises(DesignError, match="column 'score' appears 2 times in the data"):
        check_unrepeated(frame, "score")
    check_unrepeated(frame, "agent")  # repeats elsewhere in the frame: this column is unrepeated
    check_unrepeated(pd.DataFrame([[1, 2]], columns=[1, "1"]), "1")  # labels that print alike are two columns
    check_unrepeated(pd.DataFrame([[1.0, 2.0]], columns=["score", "agent"]), "score")
