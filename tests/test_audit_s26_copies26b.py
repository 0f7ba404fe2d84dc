"""Audit s26 (copies26b): the copied-runs check's count in other units, and two task files read twice.

Found: (1) within a cell (session 25) a repeat counted only where its decimal step was at most ``ROUND_DIGITS``
coarser than its cell's, which a change of units moves (300.39 / 3 = 100.13 amid scores of 8 digits): a 2-decimal
cell's 10 copied runs counted 10, 6 at x 1/3 and 9 at x 3.7.  (2) hpo_landscapes' learning-rate_angle-weight.csv
and learning-rate_distance-weight.csv are byte-identical (the published data's defect), yet no note said so: each
configuration's pair of cells holds 10 runs, improbable alone only at a resolution the data do not bear out; and the
loader said nothing of it.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import COPIED_RUNS

IDENTICAL = ("learning-rate_angle-weight", "learning-rate_distance-weight")


def _within_frame():
    rng = np.random.default_rng(26)
    x = rng.permutation(400)[:40] * 11.0 + rng.integers(1, 99, 40) / 100
    a = x[:20].copy()
    a[10:] = a[:10]  # A's runs 10 to 19 repeat its runs 0 to 9
    return pd.DataFrame({"agent": np.repeat(["A", "B"], 20), "seed": np.tile(np.arange(20), 2),
                         "score": np.r_[a, x[20:]]})


def _count(frame):
    notes = [n for n in rlstats.build(frame, "score ~ agent").notes if COPIED_RUNS in n]
    return notes[0].split(" runs")[0] if notes else None


def _chance(frame):
    notes = [n for n in rlstats.build(frame, "score ~ agent").notes if COPIED_RUNS in n]
    return notes[0].split(" in each")[0].split("is ")[-1] if notes else None


def test_within_count_unchanged_by_the_maps_stated():
    """The count reads who holds equal scores and whether a score is 0 (``_countable``): unchanged by ``a * y``,
    ``a != 0`` (was 10, 6, 9 at x 1, 1/3, 3.7); by ``y + b`` where no repeated score is 0 or -b; the chance bound
    (E: resolution, spread, ties) unchanged by a power of ten and by a shift by a multiple of the 0.01 step."""
    frame = _within_frame()
    for a in (1.0, 1 / 3, 3.7, -1.0, -2.5, 1e-9, 1e9):
        assert _count(frame.assign(score=frame["score"] * a)) == "10", a
    for b in (-1234.56, 0.005, 1e4 + 0.001, 7.0):
        assert _count(frame.assign(score=frame["score"] + b)) == "10", b
    base = _chance(frame)
    assert base == "at most 6e-39"
    assert [_chance(frame.assign(score=frame["score"] * 10.0 ** k)) for k in (-3, 2, 6)] == [base] * 3
    assert [_chance(frame.assign(score=frame["score"] + b)) for b in (-1234.56, 100.0, 5000.03)] == [base] * 3


def test_the_exception_of_zero():
    """0 is a floor runs reach, never counted; a shift making it a score like the others counts it (the one case
    where ``y + b`` changes the count), and one making a repeated score 0 leaves it out."""
    frame = _within_frame()
    y = frame["score"].to_numpy().copy()
    y[[0, 10]] = 0.0  # a repeated pair of A's runs at 0 (one of the ten copies)
    zeroed = frame.assign(score=y)
    assert _count(zeroed) == "9"
    assert _count(zeroed.assign(score=zeroed["score"] + 0.5)) == "10"
    assert _count(frame.assign(score=frame["score"] - frame["score"].iloc[0])) == "9"


def test_one_rule_within_and_across():
    """A score held by 3 runs (a pile) counts nowhere; 3 blocks read 3 times each count within (a block read k
    times) and across alike."""
    from rlstats.statistics import _countable
    value = np.array([0.0, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5])
    cell = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    held = np.array([2, 2, 3, 1, 3, 3, 3, 4])
    assert _countable(value, cell, held).tolist() == [False, True, False, True, True, True, True, False]


@pytest.mark.xfail(strict=True, reason="the loader says nothing of the two byte-identical files")
def test_loader_says_the_files_are_identical(mirror):
    land = rlstats.datasets.load("hpo_landscapes")
    notes = land.attrs.get("rlstats_notes", ())
    assert any(IDENTICAL[0] in n and IDENTICAL[1] in n and "0bc5fe5d" in n for n in notes)
