"""Audit s25 (dup25): runs copied within a cell (the AdaStop paper's Hopper batches 3 and 4 repeat batches 1 and 2
for DDPG, PPO and SAC) are counted as new runs by every back end, whose result spoke only of "ties ... mid-ranks"."""

import pandas as pd
import pytest

import rlstats


@pytest.fixture
def mujoco(published):
    return pd.read_csv(published / "mujoco_batches.csv")


@pytest.mark.xfail(strict=True, reason="audit s25 dup25: copied runs in a cell are analysed without a note")
def test_copied_hopper_runs_are_noted(mujoco):
    res = rlstats.compare(mujoco, "score ~ agent | task")
    assert any("repeat another run's score exactly" in note for note in res.notes)
