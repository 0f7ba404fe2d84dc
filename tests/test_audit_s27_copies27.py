"""Audit s27 (copies27): the copied-runs detection of sessions 25-26.

Part A (no change of behaviour): one vectorised pass over the candidate cells and pairs, one bound
``_log_poisson_tail``, one grouped median ``medians_by``; checked bit for bit by ``tests/reference/copied_runs_dump.py``
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


def test_a_whole_cell_copied_with_one_near_pair_inside():
    """(s26 review26a's strict xfail.)  The near pair mirrored in the copy makes E = near(1) / 2 = 2 / 2 = 1.0,
    measured on the data; RESOLUTION_MARGIN now multiplies only the part of E read from the decimal step (100 x 100
    pairs x 1e-6 / (2 sqrt(pi) 50.6) = 5.6e-5), so 100 shared scores at E = 1.0 count: chance 1 / 100!."""
    import math

    from rlstats.statistics import copied_runs

    frame = _near_pair_copy()
    notes = [note for note in _copy_notes(frame) if COPIED_ACROSS in note]
    assert len(notes) == 1 and notes[0].startswith(
        "100 of A's 100 runs on t1 repeat exactly the scores of 100 of its 100 runs on t2 (100 scores shared), whose "
        "chance at the scores' resolution is at most 1e-158")
    _, _, across = copied_runs(frame["score"].to_numpy(), np.repeat(np.arange(4), 100), 4, [0, 0, 1, 1],
                               across_blocks=True)
    assert across.first.tolist() == [0] and across.second.tolist() == [2] and across.shared.tolist() == [100]
    assert across.chance[0] == pytest.approx(math.exp(-math.lgamma(101)), rel=1e-9)


def _false_alarms_module():
    from pathlib import Path

    from conftest import script_module
    return script_module(Path(__file__).parent / "reference" / "copied_runs_false_alarms.py", "copied_runs_false_alarms")


def _false_alarms():
    return _false_alarms_module().false_alarms


def test_no_false_alarm_on_honest_data_reduced():
    """Reduced tests/reference/copied_runs_false_alarms.py (its full grid: the same notes on honest data before and
    after the margin's change, numbers in its docstring): 10 runs, 4 agents, 5 tasks, normal, skewed, heavy and
    capped scores at steps of 1, 0.1 and 0.01 of the spread, where chance ties are many."""
    table = _false_alarms()(3, runs=(10,), agents=(4,), tasks=(5,), kinds=("normal", "skewed", "heavy", "capped"),
                            steps=(1.0, 0.1, 0.01))
    assert len(table) == 12 and int(table["data sets"].sum()) == 36
    assert int(table["any"].sum()) == 0


def test_means_over_episodes_rounded_to_decimals_are_no_copy():
    """(Left by copies27, fixed in s28, copies28.)  Success rates over 75 episodes (k / 75, times 10) printed to 5
    decimals lie on their grid 0.6667 only to the rounding, 5e-6, above grid_step's 4 x 2**-22 x 5.3: the grid was
    missed, the resolution read as 1e-5, and 2 chance repeats of an honest cell noted (chance 4e-9).  _grid_steps
    now reads such a cell again at its decimal step and finds the grid."""
    rng = np.random.default_rng(43)
    y = _false_alarms_module().honest(rng, "episodes", 1e-6, 1, 2, 10)
    assert y.ravel()[10:].round(5).tolist() == [0.04301, -5.29033, -3.29033, -1.29033, 0.04301, 2.04301, -0.62366,
                                                0.70967, -1.95699, -0.62366]
    from rlstats.statistics import copied_runs
    assert copied_runs(y.ravel(), np.repeat([0, 1], 10), 2)[0].tolist() == [0, 0]
    from rlstats.statistics import _grid_steps
    x = np.sort(y.ravel()[10:])
    assert _grid_steps(x, np.array([0]), np.array([9]), np.array([1e-5]))[0] == pytest.approx(2 / 3, abs=1e-5)
