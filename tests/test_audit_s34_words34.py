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

@pytest.mark.xfail(strict=True, reason="audit s34 words34: flag == 1 read as flag == True")
@pytest.mark.parametrize("subset", ["flag == 1", "flag != 0", "1 == flag", "flag > 0", "flag in [1]"])
def test_number_against_a_boolean_column_is_refused(subset):
    with pytest.raises(OptionError, match="column 'flag' holds True/False values"):
        parse_condition(subset).mask(_flagged())
