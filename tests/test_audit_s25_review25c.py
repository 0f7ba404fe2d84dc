"""Audit s25 (review25c): review of dup25's copied-runs note and polish25's notes.

Found: ``statistics.copied_runs`` read a cell's chance of a tie from one spread (the smaller of its standard deviation
and IQR / 1.349), which holds for one hump of scores; a cell whose failed runs pile up near one return (an RL agent
that collapses in some seeds: 10 of 20 runs near 5 with sd 0.2, the rest near 3000, at 2 decimals) ties there often
by chance, and the note cried copy on 24 of 300 such data sets (the chance it quoted, 6e-8, was read at sd ~1500).
Fixed: the chance is also read from the cell's near misses (``statistics._near_ties``: pairs 1 to k steps apart, over
``NEAR_STEPS``): 0 of 300.
Found: a file read twice (every run repeated) was missed wherever the ties expected at the resolution read exceeded
COPY_CHANCE (2 decimals x 10 runs a cell: E 1.0e-3 to 2.1e-3; 1,000 runs a cell at full precision: E 1.1), though
10 or 1,000 repeats at such E are far beyond chance.  Fixed: such a cell counts where its repeats stay improbable at
RESOLUTION_MARGIN (100) times E; grid_step fits its grid from every difference's steps (float32 means of game scores
at 0.01, normalised before the call, read as a grid: Atari 100k's Assault E 0.69, not 3.6e-3, so its 10 chance
repeats in 100 runs raise no note).
"""

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


def test_a_file_read_twice_is_noted():
    rng = np.random.default_rng(7)
    y = np.round(rng.normal(3000, 500, (3, 2, 10)), 2)  # 3 tasks x 2 agents x 10 runs, 2 decimals
    frame = pd.DataFrame({"score": y.ravel(), "task": np.repeat(["a", "b", "c"], 20),
                          "agent": np.tile(np.repeat(["A", "B"], 10), 3)})
    twice = pd.concat([frame, frame], ignore_index=True)
    notes = [n for n in rlstats.compare(twice, "score ~ agent | task").notes if COPIED_RUNS in n]
    # was no note: E 1.0e-3 to 2.1e-3 a cell, above COPY_CHANCE; then 5 of the 6 cells (b's B: one pair of its runs
    # 0.65 apart, read as 4 near misses 100 steps wide, makes E 0.02 and 10 repeats at 100 E a chance of 2.8e-4);
    # since s27 (copies27) RESOLUTION_MARGIN multiplies only the decimal step's part of E, not the near misses
    # measured: all 6
    assert len(notes) == 1 and notes[0].startswith(
        "60 runs repeat another run's score exactly within 6 agent x task cells (a: A 10 of 20, B 10 of 20; b: A 10 "
        "of 20, B 10 of 20; c: A 10 of 20, B 10 of 20): at the resolution of the scores")
    big = rng.normal(3000, 500, 2000)  # 2 cells of 1,000 runs at full precision
    copies, chance = copied_runs(_read_twice(big), np.tile(np.repeat([0, 1], 1000), 2), 2, np.zeros(2, int))
    # was [0, 0]; then [982, 987] (18 and 13 repeats read as rounder than their cell's, 8 significant digits ending
    # in 00, left out); every run is read twice, and since s26 (copies26b) a repeat counts by who holds it, not by
    # its decimal step, which a change of units moves: all 1,000 of each cell
    assert copies.tolist() == [1000, 1000] and chance.tolist() == [0.0, 0.0]
    frame = pd.DataFrame({"score": big, "agent": np.repeat(["A", "B"], 1000)})
    # the note is the design's, made before any resampling: 100 permutations, not the default's (1.7 s of CPU here)
    note = [n for n in rlstats.compare(pd.concat([frame, frame]), "score ~ agent", n_resamples=100, rng=0,
                                       progress=False).notes if COPIED_RUNS in n][0]
    assert note.startswith("2,000 runs repeat another run's score exactly within 2 agents (A 1,000 of 2,000, B 1,000 "
                           "of 2,000): at the resolution of the scores (their decimal step, or how often runs of other "
                           "cells tie) the chance of so many exact repeats is below 1e-300 in each")


def test_grid_step_of_float32_scores_over_many_steps():
    """Scores at 0.01 stored as float32 over 12,000 steps, and normalised (Assault's random 222.4, human 742.0): the
    grid fitted from the smallest difference alone drifted by a step (0.0 before)."""
    from rlstats.statistics import _grid_steps

    def grid_step(values):
        x = np.sort(np.asarray(values, dtype=float))
        return float(_grid_steps(x, np.zeros(1, dtype=np.intp), np.full(1, x.size - 1))[0])
    rng = np.random.default_rng(0)
    x = np.round(rng.uniform(280, 400, 100), 2).astype(np.float32).astype(float)
    assert grid_step(x) == pytest.approx(0.01, rel=1e-6)
    assert grid_step((x - 222.4) / 519.6) == pytest.approx(0.01 / 519.6, rel=1e-6)


def test_a_large_clustered_cell_does_not_overflow_the_chance_bound():
    """Lead, s25 (the docs build's tuning_procedures vignette raised OverflowError: math range error): 900 runs
    rounded to 4 decimals in a cluster near 5 beside 100 spread to 3,000 expect thousands of chance ties, and E^m / m!
    of their hundreds of repeats overflowed exp. The bound is taken in logs and capped at 1; no copy is claimed."""
    rng = np.random.default_rng(0)
    x = np.r_[np.round(5 + rng.normal(0, 0.002, 900), 4), 3000 * rng.random(100)]
    copies, _ = copied_runs(x, np.zeros(x.size, int), 1, np.zeros(1, int))
    assert copies.tolist() == [0]
