"""Audit s25 (review25c): review of dup25's copied-runs note and polish25's notes.

Found: ``statistics.copied_runs`` read a cell's chance of a tie from one spread (the smaller of its standard deviation
and IQR / 1.349), which holds for one hump of scores; a cell whose failed runs pile up near one return (an RL agent
that collapses in some seeds: 10 of 20 runs near 5 with sd 0.2, the rest near 3000, at 2 decimals) ties there often
by chance, and the note cried copy on 24 of 300 such data sets (the chance it quoted, 6e-8, was read at sd ~1500).
Fixed: the chance is also read from the cell's near misses (``statistics._near_ties``: pairs 1 to k steps apart, over
``NEAR_STEPS``): 0 of 300.
Left (strict xfail): a file read twice (every run repeated) is missed where the ties expected at the resolution read
exceed COPY_CHANCE (2 decimals x 10 runs a cell, 1,000 runs a cell at full precision); lifting that gate needs a
resolution read right within a known factor (Atari 100k's scores normalised before the call, means of float32 game
scores whose grid grid_step does not find, then tie 10 of 100 runs by chance)."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import COPIED_RUNS
from rlstats.statistics import copied_runs


def _bimodal(rng, n=20):
    """One agent's cell: half its runs collapsed near a return of 5 (sd 0.2), half near 3000; the other agent's runs
    all near 3000; scores at 2 decimals."""
    a = np.round(np.r_[rng.normal(5, .2, n // 2), rng.normal(3000, 500, n - n // 2)], 2)
    b = np.round(rng.normal(3000, 500, n), 2)
    return np.r_[a, b]


def test_ties_in_a_cluster_of_failed_runs_are_not_copies():
    rng = np.random.default_rng(25)
    hits = 0
    for _ in range(300):
        copies, _ = copied_runs(_bimodal(rng), np.repeat([0, 1], 20), 2, np.zeros(2, int))
        hits += bool(copies.any())
    assert hits == 0  # was 24 of 300 (COPY_CHANCE promises at most 1e-3 per data set)


def test_the_note_is_silent_on_chance_ties_of_failed_runs():
    a = np.array([4.97, 4.98, 5.0, 5.05, 5.05, 5.1, 5.11, 5.22, 5.22, 5.26])
    rng = np.random.default_rng(0)
    y = np.r_[a, np.round(rng.normal(3000, 500, 30), 2)]
    frame = pd.DataFrame({"score": y, "agent": ["A"] * 20 + ["B"] * 20})
    res = rlstats.compare(frame, "score ~ agent", n_resamples=200, rng=0, progress=False)
    assert [n for n in res.notes if COPIED_RUNS in n] == []


def _read_twice(y):
    """A results file read twice and concatenated: every run of every cell repeated once."""
    return np.r_[y, y]


@pytest.mark.xfail(strict=True, reason="copied_runs counts repeats only where E <= COPY_CHANCE: a file read twice "
                   "at 2 decimals, or of 1,000 runs a cell, is missed")
def test_a_file_read_twice_is_noted():
    rng = np.random.default_rng(7)
    y = np.round(rng.normal(3000, 500, (3, 2, 10)), 2)  # 3 tasks x 2 agents x 10 runs, 2 decimals
    frame = pd.DataFrame({"score": y.ravel(), "task": np.repeat(["a", "b", "c"], 20),
                          "agent": np.tile(np.repeat(["A", "B"], 10), 3)})
    twice = pd.concat([frame, frame], ignore_index=True)
    notes = [n for n in rlstats.compare(twice, "score ~ agent | task").notes if COPIED_RUNS in n]
    assert len(notes) == 1 and notes[0].startswith("60 runs repeat another run's score exactly within 6 ")
    big = rng.normal(3000, 500, 2000)  # 2 cells of 1,000 runs at full precision
    copies, _ = copied_runs(_read_twice(big), np.tile(np.repeat([0, 1], 1000), 2), 2, np.zeros(2, int))
    assert copies.tolist() == [1000, 1000]
