"""Audit s20 (band20b): curves' permutation p-values at few relabellings, the per-step gap rule's speed, the step
spread's tie tolerance, and simultaneous bands far beyond the scores."""

import itertools

import numpy as np
import pytest

import rlstats

SB3_PATTERN = "{agent}/{task}/seed_{seed}"


def _sb3_acrobot(shared_data):
    """The real SB3 EvalCallback logs: PPO and A2C on Acrobot-v1, 3 seeds each, 6 evaluations."""
    df = rlstats.read_logs(shared_data / "logs" / "sb3_classic", SB3_PATTERN, format="sb3_eval", progress=False)
    return df[(df["task"] == "Acrobot-v1") & df["agent"].isin(["PPO", "A2C"])]


def _exact_max_t(scores, first):
    """Max-T p-values over steps by enumerating every relabelling of the 6 runs (the IQM of 3 runs is their mean)."""
    n = scores.shape[0]
    diffs = np.array([scores[list(c)].mean(axis=0) - scores[[r for r in range(n) if r not in c]].mean(axis=0)
                      for c in itertools.combinations(range(n), first)])
    observed = scores[:first].mean(axis=0) - scores[first:].mean(axis=0)
    se = diffs.std(axis=0, ddof=1)
    t_max = (np.abs(diffs) / se).max(axis=1)
    return np.array([(t_max >= abs(o) / s * (1 - 1e-12)).mean() for o, s in zip(observed, se)])


@pytest.mark.xfail(strict=True, reason="drawn relabellings give Monte Carlo p below the exact floor")
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_three_runs_each_p_values_are_exact_enumeration(shared_data, seed):
    # 3 runs v 3 on one task: C(6, 3) = 20 labellings. 2,000 drawn relabellings gave p_adjusted 0.0898 beside the note
    # "smallest attainable p-value is 0.1"; now the 20 are enumerated and the p-values are exact.
    df = _sb3_acrobot(shared_data)
    res = rlstats.curves(df, "`eval/mean_reward` ~ agent | task/seed", step="step", compare=[("PPO", "A2C")],
                         rng=seed, progress=False)
    wide = df.pivot_table(index=["agent", "seed"], columns="step", values="eval/mean_reward")
    scores = np.vstack([wide.loc["PPO"].to_numpy(), wide.loc["A2C"].to_numpy()])
    expected = _exact_max_t(scores, 3)
    np.testing.assert_allclose(res.difference_pvalues[0], expected, rtol=1e-12)
    assert np.nanmin(res.difference_pvalues) >= 0.1
    assert any("are exact: all 20 relabellings" in n for n in res.notes)
