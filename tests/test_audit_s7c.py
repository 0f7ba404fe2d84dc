"""Audit s7c: printed results of curves, normalisers, log readers, power, tuning views, profiles and the CLI checked
against the rows they analysed. Each test is a minimal reproducer of one defect found, marked xfail(strict=True)
until it is fixed: what a result says that is not true of its rows, an invariance that breaks, a silent change, or
a crash with a non-rlstats error.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats


def _curves_frame(runs=5, tasks=("t1", "t2"), last=90, seed=3):
    """Two agents, every run logged at steps 0, 10, ..., ``last``; B 5 points above A."""
    rng = np.random.default_rng(seed)
    rows = [(agent, task, r, s, float(s) + rng.normal() * 5 + shift)
            for agent, shift in (("A", 0.0), ("B", 5.0)) for task in tasks for r in range(runs)
            for s in range(0, last + 1, 10)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "step", "score"])


@pytest.mark.xfail(strict=True, reason=(
    "curves with steps= past every run's end: the note says the bands at those steps are withheld because 'more "
    "than 0.025 of the resamples repeat one run in every task (with one task, below 4 runs ...)', but there are 5 "
    "runs on each of 2 tasks (share 5^-4 per task) and no run at all is logged there; cause: repeat_share "
    "(rlstats/methods/curves/_api.py:557-561) counts an absent cell as 1 run (share 1), and _studentized "
    "(_api.py:574) does not leave out steps where nothing is logged"))
def test_curves_withholding_reason_is_true_at_steps_past_every_run():
    df = _curves_frame()
    res = rlstats.curves(df, "score ~ agent | task/run", step="step", steps=[0, 50, 100, 150], n_resamples=200,
                         rng=1, progress=False)
    assert not any("repeat one run in every task" in note for note in res.notes)


@pytest.mark.xfail(strict=True, reason=(
    "normalize() with an infinite reference bound (human = inf for task 'x'): every score of the task is silently "
    "normalised to 0.0, where a NaN bound is a DesignError and a zero range is refused; cause: _bounds "
    "(rlstats/normalization.py:213-222) checks NaN and empty ranges but not infinite bounds"))
def test_normalize_refuses_an_infinite_reference_bound():
    df = pd.DataFrame({"agent": ["A", "A", "B", "B"], "task": ["x", "y", "x", "y"], "score": [1.0, 2.0, 3.0, 4.0]})
    ref = pd.DataFrame({"task": ["x", "y"], "random": [0.0, 0.0], "human": [np.inf, 10.0]})
    with pytest.raises(rlstats.errors.DesignError):
        rlstats.normalize(df, ref)


@pytest.mark.xfail(strict=True, reason=(
    "align_steps(steps=[[1, 2], [3, 4]]): a 2-D steps= is silently flattened into the grid 1, 2, 3, 4 (its note "
    "says 'a grid of 4 steps from 1 to 4'), where performance_profile's tau= of that shape is an OptionError; "
    "cause: .ravel() in the steps= check (rlstats/runs.py:322)"))
def test_align_steps_refuses_a_two_dimensional_grid():
    df = _curves_frame(runs=3, tasks=("t1",))
    with pytest.raises(rlstats.errors.OptionError):
        rlstats.align_steps(df, "score ~ agent | task/run", step="step", steps=[[10, 20], [30, 40]])
