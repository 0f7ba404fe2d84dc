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


@pytest.mark.xfail(strict=True, reason="ROUND_DIGITS reads a repeat's decimal step, which 1/3 and 3.7 change")
def test_within_count_unchanged_by_positive_scaling():
    frame = _within_frame()
    assert [_count(frame.assign(score=frame["score"] * a)) for a in (1.0, 1 / 3, 3.7)] == ["10", "10", "10"]


@pytest.mark.xfail(strict=True, reason="the loader says nothing of the two byte-identical files")
def test_loader_says_the_files_are_identical(mirror):
    land = rlstats.datasets.load("hpo_landscapes")
    notes = land.attrs.get("rlstats_notes", ())
    assert any(IDENTICAL[0] in n and IDENTICAL[1] in n and "0bc5fe5d" in n for n in notes)
