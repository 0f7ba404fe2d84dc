"""Audit s21 (meta21): the metamorphic relations of tests/test_metamorphic.py on real, messy data.

The published Atari 100k scores (ties: integer and capped game scores; agents with 5, 12 or 7 runs in a cell; an agent
that skips two games), HalfCheetah SAC/TD3 (unequal runs) and Stable-Baselines3 training logs (learning curves,
tasks with different budgets, an agent without one task), under row shuffles, the score in other units and moved
(a y + b), per-task positive affine maps (for the rank-based back ends), polars frames and string columns. The
comparison is test_metamorphic's own (its Relation, _run and _compare), not a second copy.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rlstats
from conftest import SHARED_DATA

from rlstats.methods.bootstrap._small_runs import welch_df


# ------------------------------------------------------------------------------------------------ defects found

def test_bootstrap_welch_df_does_not_depend_on_a_shift():
    # x = (0, 1, 2), y = (0, 2, 4): shares of the variance of each task mean 1/9 and 4/9 (times factor^2),
    # df = (5/9)^2 / ((1/9)^2 / 2 + (4/9)^2 / 2) = 50/17, whatever the units or the origin. Before: 2.9287 at
    # 1e-3 y + 1e4, inf (no task varies) at 1e-3 y + 1e6, 2.0 at y + 1e8: it summed raw squares,
    # sum y^2 - (sum y)^2 / c, which cancellation empties far from 0. (1e-3 y + 1e8 is left out: its scores are
    # themselves rounded to 1.5e-8, 1e-5 of their spread.)
    task = np.array([0, 0, 0, 1, 1, 1])
    got = {(factor, shift): welch_df(np.array([0.0, 1.0, 2.0, 0.0, 2.0, 4.0]) * factor + shift, task, 2)
           for factor in (1e-150, 1e-3, 1.0, 7.0, 1e12) for shift in (0.0, -1e4, 123.456, 1e6, 1e8)
           if shift == 0.0 or (factor >= 1e-3 and abs(shift) <= factor * 1e9)}
    assert len(got) == 20
    assert got == pytest.approx(dict.fromkeys(got, 50 / 17), rel=1e-11)
    # a task whose runs all tie adds no variance (exactly), at any origin; none varies: infinite
    assert welch_df(np.array([1.0, 1.0, 1.0, 2.0, 3.0, 2.0]) + 1e8, task, 2) == 2.0
    assert welch_df(np.array([1.0, 1.0, 1.0, 2.0, 2.0, 2.0]) * 0.1 + 123.456, task, 2) == np.inf


def _sb3_evaluations():
    """The SB3 EvalCallback logs (PPO, A2C on CartPole-v1 and Acrobot-v1; DQN on CartPole-v1 only; 3 seeds each)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = rlstats.read_logs(SHARED_DATA / "logs" / "sb3_classic", "{agent}/{task}/seed_{seed}", format="sb3_eval",
                               progress=False)
    df = df.rename(columns={"eval/mean_reward": "score"})[["agent", "task", "seed", "step", "score"]]
    df.attrs = {}
    return df


@pytest.mark.xfail(strict=True, reason="curves' max-T p-values compare the observed |t| with the relabellings' within "
                                       "1e-12 of t: a shift's rounding of the difference drops the observed "
                                       "labelling itself, so an exact p-value reads 0 and a step is declared")
def test_curves_exact_max_t_pvalues_do_not_depend_on_a_shift():
    # CartPole-v1, DQN vs PPO, 3 runs each: the exact null is the C(6, 3) = 20 relabellings, the observed one and its
    # mirror among them, so no p-value is below 2/20. At 1e-3 y the last step's p is 0.1; at 1e-3 y - 1e4 it was 0.0
    # and the printed result said "PPO above DQN at step 20k" instead of "DQN and PPO: no step differs".
    df = _sb3_evaluations()
    df = df[df["agent"].isin(["DQN", "PPO"]) & (df["task"] == "CartPole-v1")]
    results = []
    for shift in (0.0, -1e4):
        frame = df.assign(score=df["score"] * 1e-3 + shift)
        results.append(rlstats.curves(frame, "score ~ agent | task/seed", step="step", n_resamples=200,
                                      compare="all", rng=1))
    for res in results:
        assert res.relabellings == (20,)
        assert res.difference_pvalues.tolist() == [[1.0, 0.1, 0.1, 0.1]]
        assert "DQN and PPO: no step differs" in str(res)
