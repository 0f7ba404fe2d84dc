"""Audit s32 (design32): blocking on a column that names runs while the frame's tasks vary within its blocks.

A new user's trial: the SB3 final scores (2 tasks, Acrobot and CartPole; a seed column) compared with R's habit of
blocking on matched seeds, ``rlstats.compare(fin, "score ~ agent | seed")``, printed a Mack-Skillings test with
p = 0.8956 over 27,000 "within-task arrangements" and no note: each seed block ranked Acrobot's scores (-500 to -90)
with CartPole's (9 to 500), runs of different tasks counted as replicates. The blocked ``| task/seed`` gives
p = 0.0083 (33,600 arrangements), and ``"score ~ agent"`` on the same frame was already refused naming 'task'.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

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


def _arrangements(labels):
    """Every distinct order of the multiset ``labels``, as tuples."""
    if not labels:
        return [()]
    out = []
    for first in sorted(set(labels)):
        rest = list(labels)
        rest.remove(first)
        out += [(first,) + tail for tail in _arrangements(rest)]
    return out


def enumerated_null(frame, block, variant):
    """``(statistic, hits, arrangements)`` by hand (session 33: the p-values below were pinned without a derivation):
    every within-block arrangement of the agents' labels enumerated, each scored by the quadratic form of the blocked
    rank statistic from its published definition (midranks r within each block of q runs, c_j runs of agent j there,
    block weight w = 1/q (Mack & Skillings 1980) or sqrt(12 / (k_i + 1)) (Skillings & Mack 1981, k_i agents present);
    d_j = sum of w (r - (q + 1)/2) over agent j's runs; T = d' V^+ d with V = sum over blocks of w^2 (q + 1) / 12
    (diag(q c) - c c'), the covariance of d under arrangement without ties); hits: arrangements with T at least the
    observed one (1e-9 relative slack for float sums)."""
    agents = sorted(frame["agent"].unique())
    k = len(agents)
    sums, obs, cov = [], np.zeros(k), np.zeros((k, k))
    for _, g in frame.groupby(block):
        ranks, q = stats.rankdata(g["score"]), len(g)
        labels = [agents.index(a) for a in g["agent"]]
        c = np.bincount(labels, minlength=k)
        w = 1 / q if variant == "mack_skillings" else np.sqrt(12 / (np.count_nonzero(c) + 1))
        centre = c * (q + 1) / 2
        sums.append(np.array([w * (np.bincount(p, weights=ranks, minlength=k) - centre)
                              for p in _arrangements(labels)]))
        obs += w * (np.bincount(labels, weights=ranks, minlength=k) - centre)
        cov += w ** 2 * (q + 1) / 12 * (np.diag(q * c) - np.outer(c, c))
    total = sums[0]
    for more in sums[1:]:
        total = (total[:, None, :] + more[None, :, :]).reshape(-1, k)
    inverse = np.linalg.pinv(cov)
    scores = np.einsum("ij,jk,ik->i", total, inverse, total)
    observed = float(obs @ inverse @ obs)
    return observed, int(np.count_nonzero(scores >= observed - 1e-9 * max(1.0, observed))), len(scores)


def test_the_pinned_p_values_by_enumeration():
    """The three exact p-values of this file from :func:`enumerated_null` (no rlstats code), against compare():
    280 of 33,600 ('| task/seed', Mack-Skillings: 20 x 1,680), 84 of 1,728 ('| task:seed', Skillings-Mack:
    2^3 x 3!^3) and 24,182 of 27,000 ('| seed' pooled, Mack-Skillings: 30^3), the statistics with them (6.961, 5.595,
    0.3)."""
    for block, variant, design, formula, counts in (
            ("task", "mack_skillings", SB3_FINAL, "score ~ agent | task/seed", (280, 33_600)),
            (["task", "seed"], "skillings_mack", SB3_FINAL, "score ~ agent | task:seed", (84, 1_728)),
            ("seed", "mack_skillings", rlstats.build(SB3_FINAL, "score ~ agent | seed", pool_tasks=True),
             "score ~ agent | seed", (24_182, 27_000))):
        observed, hits, total = enumerated_null(SB3_FINAL, block, variant)
        assert (hits, total) == counts
        res = rlstats.compare(design, formula)
        assert res.pvalue == pytest.approx(hits / total, abs=1e-12)
        assert res.statistic == pytest.approx(observed, rel=1e-9)


def _final(logs):
    """Each run's last logged row, the step and provenance columns dropped (what the trial passed)."""
    last = logs.sort_values("step").groupby(["task", "agent", "seed"], as_index=False, observed=True).last()
    return last[["task", "agent", "seed", "score"]]


def test_the_blocked_comparison_is_the_reference():
    """The right formula's numbers (unchanged by the fix): 20 x 1,680 = 33,600 arrangements (6!/(3!3!) on Acrobot,
    9!/(3!3!3!) on CartPole), of which 280 are at least as extreme: p = 1/120 (enumerated by hand:
    test_the_pinned_p_values_by_enumeration)."""
    res = rlstats.compare(SB3_FINAL, "score ~ agent | task/seed")
    assert res.pvalue == pytest.approx(280 / 33_600, abs=1e-12)
    assert "33,600 within-task arrangements" in str(res)


def test_seed_blocks_mixing_tasks_are_refused():
    with pytest.raises(DesignError) as info:
        rlstats.compare(SB3_FINAL, "score ~ agent | seed")
    message = str(info.value)
    assert message == (
        "the formula 'score ~ agent | seed' blocks on 'seed', which names runs, but column 'task' (2 levels) takes "
        "several values within its blocks: seed 0 holds runs of 'Acrobot-v1' and 'CartPole-v1', so each block would "
        "pool runs of different tasks, at their own scales, as replicates of one another; block on 'task': "
        "'score ~ agent | task/seed' (each task a block, its seeds the runs) or 'score ~ agent | task:seed' (each "
        "task's seed a block, its agents' runs matched), or, if 'task' does not set the scores' scale (it numbers "
        "batches or hosts, say), pool it within the blocks on purpose: rlstats.build(df, 'score ~ agent | seed', "
        "pool_tasks=True) and pass that Design")
    # the step column of the logs' last rows, kept, was refused first with "'score ~ agent | seed/seed'" advice
    # (the seed read as the task, "the data name no run"): the blocks are read against the tasks before the steps
    with pytest.raises(DesignError, match="blocks on 'seed', which names runs"):
        rlstats.compare(SB3_FINAL.assign(step=[20_000] * 6 + [30_000] * 3 + [20_000] * 3 + [30_000] * 3),
                        "score ~ agent | seed")


def test_both_ways_on_give_the_blocked_numbers():
    """'| task:seed': 6 blocks (task, seed) of one run per agent, 2^3 x 3!^3 = 1,728 arrangements, p = 0.04861
    (84 of them, enumerated by hand: test_the_pinned_p_values_by_enumeration); the same as '| seed' on seeds numbered
    apart on each task, which pools nothing and passes."""
    crossed = rlstats.compare(SB3_FINAL, "score ~ agent | task:seed")
    apart = rlstats.compare(SB3_FINAL.assign(seed=SB3_FINAL["seed"] + (SB3_FINAL["task"] == "CartPole-v1") * 10),
                            "score ~ agent | seed")
    assert crossed.pvalue == pytest.approx(84 / 1_728, abs=1e-12) and apart.pvalue == crossed.pvalue
    assert "1,728 within-seed arrangements" in str(apart)


def test_pooling_within_seed_blocks_on_purpose_is_stated():
    """pool_tasks=True, the option that already pooled 'score ~ agent' on purpose, keeps the old numbers (30 ways to
    arrange each seed's 5 runs: 2 A2C, 2 PPO, 1 DQN; 30^3 = 27,000; 24,182 of them at least as extreme, p = 0.8956),
    with a note of what was pooled."""
    design = rlstats.build(SB3_FINAL, "score ~ agent | seed", pool_tasks=True)
    res = rlstats.compare(design, "score ~ agent | seed")
    assert res.pvalue == pytest.approx(24_182 / 27_000, abs=1e-12)  # test_the_pinned_p_values_by_enumeration
    assert "27,000 within-seed arrangements" in str(res)
    assert "Note: runs of 2 levels of 'task' pooled within each 'seed' block (pool_tasks=True)" in str(res)


CARTPOLE = SB3_FINAL[SB3_FINAL["task"] == "CartPole-v1"]


@pytest.mark.parametrize("what, data, formula", [
    ("one task: the task column constant", CARTPOLE, "score ~ agent | seed"),
    ("one task, no task column", CARTPOLE.drop(columns="task"), "score ~ agent | seed"),
    ("a column of the agents (each level one agent)", CARTPOLE.assign(family=CARTPOLE["agent"].map(
        {"A2C": "a2c", "PPO": "ppo", "DQN": "dqn"})), "score ~ agent | seed"),
    ("a step column", CARTPOLE.assign(step=[30_000] * 3 + [20_000] * 3 + [30_000] * 3), "score ~ agent | seed"),
    ("the tasks in the blocks, crossed", SB3_FINAL, "score ~ agent | seed:task"),
    # block_like_columns read every column's levels: a column of lists was Python's TypeError (also for no blocks)
    ("a column of lists, seed blocks", CARTPOLE.assign(params=[[1, 2]] * 9), "score ~ agent | seed"),
    ("a column of lists, no blocks", CARTPOLE.drop(columns="task").assign(params=[[1, 2]] * 9), "score ~ agent"),
    ("blocks not named as runs: a configuration within tasks", SB3_FINAL.assign(
        config=["x", "y", "x"] * 5), "score ~ agent | task"),
])
def test_blocks_that_pool_no_tasks_pass(what, data, formula):
    rlstats.build(data, formula)


def test_the_nested_replicates_are_checked_before_the_seeds_are_averaged():
    """'| seed/run/rep' averaged each (agent, seed, run)'s rows, across both tasks, before build read the blocks."""
    nested = pd.concat([SB3_FINAL.assign(rep=0), SB3_FINAL.assign(rep=1, score=SB3_FINAL["score"] + 1.0)])
    nested["run"] = nested["seed"]
    with pytest.raises(DesignError, match=r"seed 0 holds runs of 'Acrobot-v1' and 'CartPole-v1'.*"
                                          r"'score ~ agent \| task/run/rep'"):
        rlstats.compare(nested, "score ~ agent | seed/run/rep")
    assert rlstats.compare(nested, "score ~ agent | task/run/rep").pvalue == pytest.approx(280 / 33_600, abs=1e-12)


def test_the_sb3_logs_final_scores_blocked_on_seeds_are_refused(sb3):
    fin = _final(sb3)
    pd.testing.assert_frame_equal(fin.reset_index(drop=True).astype({"seed": "int64"}),
                                  SB3_FINAL.sort_values(["task", "agent", "seed"]).reset_index(drop=True),
                                  check_exact=False, atol=0.05, check_dtype=False)
    assert rlstats.compare(fin, "score ~ agent | task/seed").pvalue == pytest.approx(280 / 33_600, abs=1e-12)
    with pytest.raises(DesignError, match=r"blocks on 'seed'.*column 'task'.*'score ~ agent \| task/seed'"):
        rlstats.compare(fin, "score ~ agent | seed")
    with pytest.raises(DesignError, match=r"blocks on 'seed'.*column 'task'"):
        rlstats.compare(_final(sb3).merge(sb3[["task", "agent", "seed", "step"]].drop_duplicates(
            ["task", "agent", "seed"], keep="last")), "score ~ agent | seed")  # with each run's last step kept


def test_seed_blocks_of_one_tasks_curves_name_the_seed_as_the_run():
    """One task's learning curves blocked on the seed: the refusal said "agent 'agent_1' on task '0'", "the data name
    no run (no column such as 'seed')" and 'score ~ agent | seed/seed'; the seed is the run, put after the task."""
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=1, seeds=3, steps=4, rng=0).drop(columns="task")
    with pytest.raises(DesignError) as info:
        rlstats.compare(curves, "score ~ agent | seed")
    message = str(info.value)
    assert message.startswith("column 'step' takes 4 values within agent 'agent_1' on seed '0' (4 rows)")
    assert "add it, e.g. df.assign(task='name')" in message and "seed/seed" not in message
    assert "rlstats.summarize_runs(df, 'score ~ agent | task/seed', step='step')" in message
    assert "groupby(['agent', 'seed']).tail(1)" in message and "data name no run" not in message
    final = rlstats.summarize_runs(curves.assign(task="name"), "score ~ agent | task/seed", step="step")
    assert len(final) == 6 and rlstats.compare(final.drop(columns="task"), "score ~ agent | seed").nobs == 6
