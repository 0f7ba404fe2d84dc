"""Audit s11 (curvesat): curves()' pointwise band of the median on saturated learning curves.

After audit s10's saturation rule (bands withheld at steps where three quarters or more of an agent's runs sit at a
task's largest or smallest score), the median's pointwise band still covered 0.87-0.90 of the steps given at 5 tasks
x 3-10 runs of the grid's saturated curves (a cap reached by 17% to 85% of the runs over training; 240 bands a
design, ``tests/reference/coverage_curves_bands.py``) and 0.93-0.94 at 26 tasks. The misses all sit below the band
(the truth under its lower end) and grow with the share of runs tied at the cap: a task whose runs mostly tie there
has a mean whose resamples barely move down, and the median of task means moves in jumps between near-tied tasks.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlstats
from conftest import SHARED_DATA, rising_curves
from rlstats.bounds import ties_at_bounds

from test_audit_s10_saturated import CAPPED_CAP, SATURATED_CAP


def test_median_bands_withheld_where_runs_tie_at_a_cap():
    """On 5 tasks x 5 runs of saturated curves, agent A's runs tied at the cap at steps 2-3 were 11 and 13 of 25
    (0.44, 0.52) and B's 9, 14 and 18 of 25 at steps 2-4 (0.36-0.72): below three quarters, so the median's bands
    were given there (A at step 2: -1.765 to -1.144), where such bands covered 0.87-0.90. From 0.3 tied they are
    withheld, with a note; steps 0-1 (2-5 and 2-3 of 25 tied) keep their bands (widened below since audit s12 by the
    runs' skew), and the mean's and the IQM's bands (which held) are not touched. Since audit s13 curves() reads
    bootstrap()'s finer rule (half or more of the middle task's runs tied too): the task the median sits on has 3 of
    its 5 runs tied at each of those steps, so they stay withheld."""
    data = rising_curves(SATURATED_CAP, 2, runs=5, steps=6)
    res = rlstats.curves(data, "score ~ agent | task/seed", step="step", statistic="median", n_resamples=200, rng=1,
                         progress=False)
    assert np.isnan(res.pointwise[:, 2:]).all() and np.isnan(res.simultaneous[:, 2:]).all()
    # lower ends since audit s12 widened by the runs' (left) skew below a cap: -2.855, -2.697, -2.549, -2.947 before;
    # since audit s32 curves32 each agent draws from its label's stream: the former keys' [[[-2.996, -1.756], [-2.762,
    # -1.427]], [[-2.630, -1.501], [-3.235, -1.517]]] (which they gave, checked under them by test_audit_s32_curves32 until audit s35) moved to
    # [[[-3.074, -1.730], [-2.659, -1.454]], [[-2.616, -1.494], [-3.515, -1.509]]], and audit s33 curvestream33 (a
    # stream a task, its runs in their content's order) to
    np.testing.assert_allclose(res.pointwise[:, :2], [[[-2.9169080570748473, -1.780554673106529],
                                                       [-2.7422470712667018, -1.3751393771366855]],
                                                      [[-2.7166299215009038, -1.3619649865807015],
                                                       [-3.225888323152669, -1.5902467348195923]]], rtol=1e-6,
                               atol=1e-12)
    note = next(n for n in res.notes if "tie at a task's largest or smallest score" in n)
    assert "A at 4 steps (2 to 5); B at 4 steps (2 to 5)" in note and "0.3 or more" in note
    assert "0.5 or more of those of the tasks the median sits on (or 0.6 or more of all its runs)" in note
    for statistic in ("mean", "iqm"):
        res = rlstats.curves(data, "score ~ agent | task/seed", step="step", statistic=statistic, n_resamples=200,
                             rng=1, progress=False)
        assert np.isfinite(res.pointwise[:, :4]).all() and not any("0.3 or more" in n for n in res.notes)


def test_median_bands_of_capped_and_continuous_curves():
    """Capped curves (a third of the runs at the cap at the last step): B's last step, where 12 of its 25 runs tie at
    the cap (0.48), lost its median bands by audit s11's share alone (A's 7 of 25 kept them). Since audit s13
    curves() reads bootstrap()'s finer rule, and the task B's median sits on (t0, mean -0.229) has 2 of its 5 runs
    tied (below half): the step keeps its bands, those of the rule switched off bit for bit (-0.752 to 0.188; since
    audit s32's label-keyed streams -0.897 to 0.201), with
    no note; the steps the finer rule gives back covered 0.989-0.994 on such curves
    (tests/reference/coverage_curves_median_tied.py). Continuous scores have no ties and keep every band bit for bit
    (recorded before the rule)."""
    from rlstats import bounds

    data = rising_curves(CAPPED_CAP, 2, runs=5, steps=6)
    res = rlstats.curves(data, "score ~ agent | task/seed", step="step", statistic="median", n_resamples=200, rng=1,
                         progress=False)
    assert np.isfinite(res.pointwise).all() and not any("0.3 or more" in n for n in res.notes)
    saved = bounds.MEDIAN_TIED_SHARE
    bounds.MEDIAN_TIED_SHARE = np.inf  # the rule off
    try:
        off = rlstats.curves(data, "score ~ agent | task/seed", step="step", statistic="median", n_resamples=200,
                             rng=1, progress=False)
    finally:
        bounds.MEDIAN_TIED_SHARE = saved
    np.testing.assert_array_equal(res.pointwise, off.pointwise)
    np.testing.assert_array_equal(res.simultaneous, off.simultaneous)
    # audit s32 curves32: from the label-keyed streams; the former keys gave the former [-0.751837478,
    # 0.188068240] and [-1.117333580181, 0.350546498866] (checked under them by test_audit_s32_curves32 until audit s35)
    # audit s33 curvestream33 (a stream a task, its runs in their content's order): from [-0.89682725882316,
    # 0.20069722770916226]
    np.testing.assert_allclose(res.pointwise[1, 5], [-0.7853642495583582, 0.2235545318853676], rtol=1e-6)
    # widened below by the runs' skew since audit s12 (-1.071953182221 before); from [[-1.0764639538411716,
    # 0.31798226640097227]] since audit s33 curvestream33
    np.testing.assert_allclose(res.pointwise[1, 4:5], [[-1.1548893950645707, 0.4252210296392799]], rtol=1e-6,
                               atol=1e-12)
    res = rlstats.curves(rising_curves(None, 2, runs=5, steps=6), "score ~ agent | task/seed", step="step",
                         statistic="median", n_resamples=200, rng=1, progress=False)
    assert np.isfinite(res.pointwise).all() and not any("0.3 or more" in n for n in res.notes)


def test_ties_at_bounds_tied_only_against_enumeration():
    """``tied_only=True`` counts a run at its task's largest (smallest) score only where two or more of the task's
    runs sit there, at the bound more of the cell's tied runs sit at: checked against a loop over cells."""
    rng = np.random.default_rng(3)
    n_tasks, n_agents = 4, 3
    task = rng.integers(0, n_tasks, 60)
    agent = rng.integers(0, n_agents, 60)
    y = rng.integers(0, 4, 60).astype(float)  # small integers: ties at both bounds
    y[task == 3] = np.arange((task == 3).sum())  # a task without ties: nothing counts
    got = ties_at_bounds(task, agent, y, n_tasks, n_agents, tied_only=True)[0]
    for t in range(n_tasks):
        top, bottom = y[task == t].max(), y[task == t].min()
        tied_top, tied_bottom = (y[task == t] == top).sum() >= 2, (y[task == t] == bottom).sum() >= 2
        for a in range(n_agents):
            mine = y[(task == t) & (agent == a)]
            n_top, n_bottom = (mine == top).sum() * tied_top, (mine == bottom).sum() * tied_bottom
            expected = max(n_top, n_bottom)
            assert got[t, a] == expected, (t, a)
    assert (got[3] == 0).all()
    np.testing.assert_array_equal(ties_at_bounds(task, agent, y, n_tasks, n_agents)[0],
                                  ties_at_bounds(task, agent, y, n_tasks, n_agents, tied_only=False)[0])


def test_real_sb3_curves_median_bands_where_runs_sit_at_acrobots_floor():
    """What a user sees on real curves (Stable-Baselines3 PPO and A2C, CartPole-v1 and Acrobot-v1, 3 seeds, the
    evaluations every 5,000 steps): PPO's Acrobot runs sit at -500 (no episode solved) at 5k-20k steps, 2-3 of its 6
    runs at each step, and A2C has 2 at -500 at 5k and two CartPole runs at 500 at 20k. The median's bands were given
    at all 8 agent-steps; audit s11 (the share alone) kept A2C's 10k and 15k only, with a note. Since audit s13
    (bootstrap()'s finer rule: with two tasks both are the median's, so half or more of all the runs tied) A2C's 5k
    (2 of 6 runs at -500) is given again; its 20k (3 of 6) and PPO's steps (3-4 of 6) stayed withheld; the mean's keep
    all 8. Since audit s26 (curves26) the median of these 2 tasks, which is their mean, takes the mean's bands and its
    rules for withholding them: all 8 given, the mean's (its own rule, for the jumps of a middle task's mean, is read
    from 3 tasks)."""
    logs = SHARED_DATA / "logs" / "sb3_classic"
    if not logs.is_dir():
        pytest.skip(f"the real SB3 logs are not at {logs} (../shared/data/logs/sb3_classic beside the repository)")
    runs = rlstats.read_logs(logs, "{agent}/{task}/seed_{seed}", format="sb3_eval", tags={"eval/mean_reward": "score"},
                             progress=False)
    options = dict(step="step", subset="agent != 'DQN'", na_action="drop", n_resamples=200, rng=0, progress=False)
    median = rlstats.curves(runs, "score ~ agent | task/seed", statistic="median", **options)
    assert list(median.agents) == ["A2C", "PPO"] and np.isfinite(median.pointwise).all()
    assert not any("there 0.3 or more" in n for n in median.notes)
    res = rlstats.curves(runs, "score ~ agent | task/seed", statistic="mean", **options)
    assert np.isfinite(res.pointwise).all()
    np.testing.assert_array_equal(median.pointwise, res.pointwise)
    # the median's own bands and rule, as main gave them before audit s26: bands="studentized_unwidened"
    own = rlstats.curves(runs, "score ~ agent | task/seed", statistic="median", bands="studentized_unwidened",
                         **options)
    given = np.isfinite(own.pointwise).all(axis=-1)
    assert given.tolist() == [[True, True, True, False], [False] * 4]
    assert any("A2C at 1 step (20k); PPO at 4 steps (5k to 20k): there 0.3 or more" in n for n in own.notes)
