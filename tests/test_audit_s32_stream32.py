"""Audit s32, stream32: with rng= fixed, is a per-agent (per-pair) random quantity that a method defines from that
agent's (pair's) rows alone the same whatever other agents are in the data, left out by a pandas subset, or renamed
to sort before it?  curves32 made curves() so (resampling.agent_seed_sequence, as bootstrap()); this file checks the
other random back ends and pins the ones that were not.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats

FORMULA = "score ~ agent | task/seed"


# ------------------------------------------------------------------ tuning: a sweep's resamples

@pytest.fixture(scope="module")
def sweeps():
    """Three agents' sweeps (3 learning rates x 4 seeds) on two tasks; b_sac is the agent looked at."""
    rng = np.random.default_rng(0)
    rows = [(a, t, lr, s, (lr == 0.01) + rng.normal()) for a in ("a_ppo", "b_sac", "c_td3") for t in ("ant", "hopper")
            for lr in (0.001, 0.01, 0.1) for s in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])


def _tuning(df, **options):
    return rlstats.tuning(df, FORMULA, config="lr", views=["best_set", "expected_max", "complete"],
                          band="percentile", n_resamples=200, rng=7, progress=False, **options)


def _sweep_rows(result, agent="b_sac", task=None):
    """The rows of ``agent``'s sweeps (one task's, or each task's) in the best-set, tuned, expected-max and complete
    tables, their agent column left out (a renamed agent's rows are compared under its other name)."""
    out = []
    for name in ("best_set", "tuned", "expected_max", "complete"):
        table = result.tables[name]
        rows = table[(table.agent == agent) & (table.task.isin(["ant", "hopper"] if task is None else [task]))]
        out.append(rows.drop(columns="agent").reset_index(drop=True))
    return out


def _same_rows(one, other):
    for x, y in zip(one, other):
        pd.testing.assert_frame_equal(x, y, check_exact=True)


@pytest.mark.xfail(strict=True, reason="tuning keys a sweep's streams by its task's and agent's places among the names")
def test_a_sweeps_resamples_do_not_depend_on_the_other_agents(sweeps):
    """b_sac's best-set probabilities, tuned score's optimism and interval, expected-max and complete bands: with
    a_ppo (b_sac 2nd of 3), without it (a pandas subset: 1st of 2), with a_ppo renamed 'zeta' (b_sac 1st of 3), and
    with c_td3 renamed 'aaa' to sort first (b_sac 3rd of 3)."""
    every = _sweep_rows(_tuning(sweeps))
    for other in (sweeps[sweeps.agent != "a_ppo"], sweeps.assign(agent=sweeps.agent.replace({"a_ppo": "zeta"})),
                  sweeps.assign(agent=sweeps.agent.replace({"c_td3": "aaa"}))):
        _same_rows(every, _sweep_rows(_tuning(other)))


@pytest.mark.xfail(strict=True, reason="tuning keys a sweep's streams by its task's and agent's places among the names")
def test_a_sweeps_resamples_do_not_depend_on_the_other_tasks(sweeps):
    """b_sac's sweep on hopper: with ant (hopper 2nd of 2), without it (1st of 1), ant renamed to sort after it."""
    every = _sweep_rows(_tuning(sweeps), task="hopper")
    for other in (sweeps[sweeps.task != "ant"], sweeps.assign(task=sweeps.task.replace({"ant": "walker"}))):
        _same_rows(every, _sweep_rows(_tuning(other), task="hopper"))
