"""Audit s34 (words34): the words a user reads.

3. ``subset="flag == 1"`` on a column of True/False values was read as Python reads it (True == 1): the reverse of
   session 33's ``seed > True``. A number compared with a column of True/False values is now an error naming the
   column and the way to write what was meant (``flag == True``, or ``flag`` alone).
"""

import numpy as np
import pytest

import rlstats
from rlstats.conditions import parse_condition
from rlstats.datasets import simulate
from rlstats.errors import OptionError


def _flagged():
    df = simulate(agents=["A0", "A1"], tasks=["g0", "g1"], seeds=4, effect=[0.0, 1.0], rng=0)
    df["flag"] = df["seed"] % 2 == 0
    return df


# ---- 3. subset=: a number compares only with a column of numbers, not of True/False values ----

@pytest.mark.parametrize("subset, read", [("flag == 1", "would read as True"), ("flag != 0", "would read as False"),
                                          ("1 == flag", "would read as True"), ("flag > 0", "would read as False"),
                                          ("flag in [1]", "would read as True"), ("flag == 1.0", "would read as True"),
                                          ("flag == 2", "equals")])
def test_number_against_a_boolean_column_is_refused(subset, read):
    # before: 'flag == 1' kept the 8 rows where flag is True, 'flag == 2' none, as Python's True == 1 reads them
    with pytest.raises(OptionError) as info:
        parse_condition(subset).mask(_flagged())
    value = subset.split()[0] if subset.startswith("1 ") else subset.split()[-1].strip("[]")
    read = f"which Python (and R's subset()) {read}" if read != "equals" else "which no True/False value equals"
    assert str(info.value) == (
        f"subset={subset!r}: column 'flag' holds True/False values (bool), not numbers, and {value} is a number, "
        f"{read}; compare the column with True or False: 'flag == True' (or 'flag' alone) keeps the rows where it "
        "is True, 'flag == False' (or '~flag') those where it is False")


@pytest.mark.parametrize("dtype", ["boolean", object])
def test_number_against_a_nullable_or_object_boolean_column_is_refused(dtype):
    df = _flagged()
    df["flag"] = df["flag"].astype(dtype)
    df.loc[3, "flag"] = None
    with pytest.raises(OptionError, match=f"column 'flag' holds True/False values \\({df['flag'].dtype}\\)"):
        parse_condition("flag == 1").mask(df)


@pytest.mark.parametrize("subset, kept", [("flag == True", 8), ("flag", 8), ("~flag", 8), ("seed == 1", 4),
                                          ("seed in [0, 1]", 8)])
def test_booleans_and_numbers_still_compare_as_they_are(subset, kept):
    df = _flagged()
    assert parse_condition(subset).mask(df).sum() == kept
    # an object column with no value present holds nothing a number could misread: 'x == 1' keeps no row, as before
    assert parse_condition("x == 1").mask(df.assign(x=np.full(len(df), None, dtype=object))).sum() == 0


def test_the_command_line_refuses_a_number_beside_true_false(tmp_path, capsys):
    from rlstats.cli import main
    path = tmp_path / "runs.csv"
    _flagged().to_csv(path, index=False)
    assert main(["compare", str(path), "score ~ agent | task", "-o", "subset=flag == 1"]) != 0
    assert capsys.readouterr().err.startswith(
        "rlstats: error: -o \"subset=flag == 1\": column 'flag' holds True/False values (bool), not numbers, and 1 "
        "is a number")
