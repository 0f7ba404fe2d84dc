"""Audit s27 (copies27): the copied-runs detection of sessions 25-26.

Part A (no change of behaviour): one vectorised pass over the candidate cells and pairs, one bound
``_log_poisson_tail``, one grouped median ``_medians_by``; checked bit for bit by ``tests/reference/copied_runs_dump.py``
(every output and note on the loader's datasets and 160 synthetic frames); timings in benchmarks/README.md.

Part B: session 26's strict xfails about copies (test_audit_s26_review26a.py).
"""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import COPIED_ACROSS, COPIED_RUNS


def _copy_notes(frame):
    return [note for note in rlstats.build(frame, "score ~ agent | task").notes
            if COPIED_ACROSS in note or COPIED_RUNS in note]


def _near_pair_copy():
    """A's 100 runs on t1 (6 decimals, sd 50) copied whole over its runs on t2, two of the t1 runs one step apart."""
    rng = np.random.default_rng(8)
    y = np.round(rng.normal(200, 50, (4, 100)), 6)  # A@t1, B@t1, A@t2, B@t2
    y[0, 1] = y[0, 0] + 1e-4
    y[2] = y[0]
    return pd.DataFrame({"task": np.repeat(["t1", "t2"], 200), "agent": np.tile(np.repeat(["A", "B"], 100), 2),
                         "score": y.ravel()})


@pytest.mark.xfail(strict=True, reason="the near pair mirrored in the copy makes E = near(1) / 2 = 1.0, measured on "
                                       "the data, and RESOLUTION_MARGIN multiplies it too: (100 E)**100 / 100! > share")
def test_a_whole_cell_copied_with_one_near_pair_inside():
    assert [note for note in _copy_notes(_near_pair_copy()) if COPIED_ACROSS in note]
