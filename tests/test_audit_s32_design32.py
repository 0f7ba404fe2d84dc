"""Audit s32 (design32): blocking on a column that names runs while the frame's tasks vary within its blocks.

A new user's trial: the SB3 final scores (2 tasks, Acrobot and CartPole; a seed column) compared with R's habit of
blocking on matched seeds, ``rlstats.compare(fin, "score ~ agent | seed")``, printed a Mack-Skillings test with
p = 0.8956 over 27,000 "within-task arrangements" and no note: each seed block ranked Acrobot's scores (-500 to -90)
with CartPole's (9 to 500), runs of different tasks counted as replicates. The blocked ``| task/seed`` gives
p = 0.0083 (33,600 arrangements), and ``"score ~ agent"`` on the same frame was already refused naming 'task'.
"""

from __future__ import annotations

import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError

#: the SB3 classic logs' final evaluation returns (TensorBoard 'eval/mean_reward' at each run's last step), as read
#: by the ``sb3`` fixture: copied here, to 1 decimal, so that the tests run without the logs
SB3_FINAL = pd.DataFrame({
    "task": ["Acrobot-v1"] * 6 + ["CartPole-v1"] * 9,
    "agent": ["A2C"] * 3 + ["PPO"] * 3 + ["A2C"] * 3 + ["DQN"] * 3 + ["PPO"] * 3,
    "seed": [0, 1, 2] * 5,
    "score": [-500.0, -89.8, -177.4, -500.0, -500.0, -500.0, 406.4, 495.2, 244.8, 8.8, 8.6, 9.2,
              326.6, 321.0, 363.6],
})


def _final(logs):
    """Each run's last logged row, the step and provenance columns dropped (what the trial passed)."""
    last = logs.sort_values("step").groupby(["task", "agent", "seed"], as_index=False, observed=True).last()
    return last[["task", "agent", "seed", "score"]]


def test_the_blocked_comparison_is_the_reference():
    """The right formula's numbers (unchanged by the fix): 20 x 1,680 = 33,600 arrangements (6!/(3!3!) on Acrobot,
    9!/(3!3!3!) on CartPole), of which 280 are at least as extreme: p = 1/120."""
    res = rlstats.compare(SB3_FINAL, "score ~ agent | task/seed")
    assert res.pvalue == pytest.approx(280 / 33_600, abs=1e-12)
    assert "33,600 within-task arrangements" in str(res)


@pytest.mark.xfail(strict=True, reason="audit s32 design32: '| seed' ranks both tasks' runs in one block, unsaid")
def test_seed_blocks_mixing_tasks_are_refused():
    with pytest.raises(DesignError) as info:
        rlstats.compare(SB3_FINAL, "score ~ agent | seed")
    message = str(info.value)
    for phrase in ("blocks on 'seed'", "column 'task'", "'Acrobot-v1' and 'CartPole-v1'",
                   "'score ~ agent | task/seed'", "'score ~ agent | task:seed'", "pool_tasks=True"):
        assert phrase in message, message


@pytest.mark.xfail(strict=True, reason="audit s32 design32: '| seed' ranks both tasks' runs in one block, unsaid")
def test_the_sb3_logs_final_scores_blocked_on_seeds_are_refused(sb3):
    fin = _final(sb3)
    pd.testing.assert_frame_equal(fin.reset_index(drop=True).astype({"seed": "int64"}),
                                  SB3_FINAL.sort_values(["task", "agent", "seed"]).reset_index(drop=True),
                                  check_exact=False, atol=0.05, check_dtype=False)
    assert rlstats.compare(fin, "score ~ agent | task/seed").pvalue == pytest.approx(280 / 33_600, abs=1e-12)
    with pytest.raises(DesignError, match=r"blocks on 'seed'.*column 'task'.*'score ~ agent \| task/seed'"):
        rlstats.compare(fin, "score ~ agent | seed")
