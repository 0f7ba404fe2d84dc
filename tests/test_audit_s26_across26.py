"""Audit s26 (across26): runs of one task whose scores repeat runs of ANOTHER task exactly.

Found: ``statistics.copied_runs`` (session 25) looked within agent x task cells only.  In the AdaStop paper's MuJoCo
batches (``rlstats.datasets.load("mujoco_adastop")``), 20 of PPO's 30 HalfCheetah runs (batches 1 to 4) hold PPO's
Hopper scores exactly (a column copied between the task files), and no note said so.
"""

import pandas as pd
import pytest

import rlstats


def _copied_across(notes):
    return [note for note in notes if "share" in note and "exactly" in note]


@pytest.mark.xfail(strict=True, reason="copied_runs looks within cells only: PPO's halfcheetah runs that repeat its "
                                       "hopper scores raise no note")
def test_mujoco_halfcheetah_repeats_hopper(published):
    mujoco = pd.read_csv(published / "mujoco_batches.csv")
    notes = _copied_across(rlstats.build(mujoco, "score ~ agent | task").notes)
    assert len(notes) == 1 and "halfcheetah" in notes[0] and "hopper" in notes[0] and "PPO" in notes[0]
