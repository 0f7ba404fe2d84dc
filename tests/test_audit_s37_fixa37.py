"""Review s37 (rv37a) of the session's merges, fixed by fixa37: tie tolerances read from a range pooled over tasks
(equivalence's aggregate test, curves' differences and bands, the mixed model's estimates and QQ ranks), where a task
at 1e9 made real differences of 1e-4 on the other tasks ties; and Levene's test of the agents' run spreads on ties
but for rounding. (The df of that test on cells of one run: tests/test_audit_s37_spread37.py.)"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special, stats

import rlstats


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ------------------------------------------------------------------ the rounding of an aggregate over tasks


@pytest.mark.parametrize("statistic, cap", [("mean", 1.0), ("iqm", 2.0), ("median", np.inf), ("custom", np.inf)])
def test_aggregate_tolerance_is_the_largest_weighted_rounding_a_linear_program_finds(statistic, cap):
    from rlstats.statistics import aggregate_tolerance

    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 5, 8):
        tolerance = rng.exponential(size=n) * 10.0 ** rng.integers(-6, 6, n)
        share = min(cap / n, 1.0)
        # maximise sum w t over 0 <= w <= share, sum w = 1: an independent solver of the same bound
        best = optimize.linprog(-tolerance, A_eq=np.ones((1, n)), b_eq=[1.0], bounds=[(0.0, share)] * n)
        assert float(aggregate_tolerance(tolerance, statistic)) == pytest.approx(-best.fun, rel=1e-9)
    # a task without the agents' scores (NaN) is no task of the aggregate: [4, 2] of the mean of 2 tasks
    assert float(aggregate_tolerance([4.0, np.nan, 2.0], "mean")) == 3.0
    rows = aggregate_tolerance(np.array([[4.0, 1.0, 1.0, 2.0], [1.0, np.nan, 1.0, 1.0]]), "mean")
    assert rows.tolist() == [2.0, 1.0]


def _pairs_on_three_tasks(big):
    """A and B 2e-4 apart on t0 and t2 (scale 1e-4), both at ``big`` on every run of t1."""
    rows = []
    for s in range(5):
        for task in ("t0", "t2"):
            rows += [("A", task, s, s * 1e-4), ("B", task, s, (s + 2) * 1e-4)]
        rows += [("A", "t1", s, big), ("B", "t1", s, big)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_equivalence_aggregate_beside_a_task_at_1e9_is_the_tasks_at_1():
    """Review s37 rv37a: the aggregate test's tie tolerance read of the pair's range over every task (1e9) tied
    delta* - delta and delta +- margin: p 1.0 / 1.0 / 1.0 where the same data with that task at 1.0 give 0.761 /
    0.005 / 0.761."""
    call = dict(margin=1e-4, aggregate="mean", n_resamples=200, rng=1)
    tidy = [_quiet(rlstats.equivalence, _pairs_on_three_tasks(big), "score ~ agent | task", **call).tidy()
            for big in (1.0, 1e9)]
    got = [t[t.scope == "aggregate"][["p_lower", "p_upper", "p_value"]].to_numpy()[0] for t in tidy]
    np.testing.assert_allclose(got[0], [0.761194, 0.004975, 0.761194], atol=1e-6)
    np.testing.assert_allclose(got[1], got[0], rtol=0, atol=1e-12)


def _curves_on_two_tasks(big):
    rng = np.random.default_rng(3)
    rows = []
    for agent, shift in (("A", 0.0), ("B", 3e-4)):
        for s in range(5):
            for step in range(4):
                rows.append((agent, "t0", s, step, shift + 1e-4 * rng.normal()))
                rows.append((agent, "t1", s, step, big))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_curves_difference_beside_a_task_at_1e9_is_not_zeroed():
    """Review s37 rv37a: the step tolerance of the pair's scores pooled over tasks (1e-12 of 1e9) zeroed the
    differences -1.17e-4 .. -2.0e-4 of the mean curves and their p-values."""
    call = dict(step="step", compare="all", statistic="mean", n_resamples=500, rng=1)
    got = {big: _quiet(rlstats.curves, _curves_on_two_tasks(big), "score ~ agent | task/seed", **call)
           for big in (1.0, 1e9)}
    base, wide = (np.asarray(got[b].differences, dtype=float) for b in (1.0, 1e9))
    np.testing.assert_allclose(base, [[-1.1729e-4, -2.0045e-4, -1.7199e-4, -1.4678e-4]], rtol=1e-3)
    # the mean over tasks rounds the 1e9 task's means (an ulp of 5e8 is 6e-8): nothing beyond that
    np.testing.assert_allclose(wide, base, rtol=0, atol=1e-7)
    np.testing.assert_allclose(np.asarray(got[1e9].difference_pvalues, dtype=float),
                               np.asarray(got[1.0].difference_pvalues, dtype=float), rtol=0, atol=1e-12)


def test_curves_step_tolerance_of_tasks_is_each_tasks_own_combined():
    from rlstats.methods.curves import _kernels
    from rlstats.statistics import tie_tolerance

    values = np.array([[1e9, 0.0], [1e9, 1.0], [0.0, 2.0], [1e-4, 3.0], [1e9, 5.0]])
    task = np.array([0, 0, 1, 1, 0])
    got = _kernels.step_tolerance(values, task, 2, "mean")
    want0 = (tie_tolerance(0.0, 1e9) + tie_tolerance(1e-4, 1e-4)) / 2  # t0 ties at 1e9; t1 spreads 1e-4
    want1 = (tie_tolerance(5.0, 5.0) + tie_tolerance(1.0, 3.0)) / 2
    np.testing.assert_allclose(got, [want0, want1], rtol=1e-12)
    assert got[0] < 1e-5  # pooled over the tasks: 1e-3, above the task's spread of 1e-4
    # every task's runs tie within their own tolerance: no spread (infinite), whatever the other task's level
    flat = np.array([[1e9], [1e9], [0.3], [0.1 + 0.2]])
    assert np.isinf(_kernels.step_tolerance(flat, np.array([0, 0, 1, 1]), 2, "iqm")).all()
    # one block (no task codes): the pooled rule as before
    np.testing.assert_allclose(_kernels.step_tolerance(values), [tie_tolerance(1e9, 1e9), tie_tolerance(5.0, 5.0)],
                               rtol=1e-12)


# ------------------------------------------------------------------ the mixed model


def test_mixed_estimate_beside_a_task_at_1e9_is_not_zeroed():
    """The fixed effects' tie tolerance was 2e-12 of every score's range (1e9 here): A - B's -1.33e-4 (t1 differs by 0) read 0."""
    pairs = [_quiet(rlstats.mixed, _pairs_on_three_tasks(big), "score ~ agent + (1 | task)").comparisons
             for big in (1.0, 1e9)]
    assert pairs[0]["estimate"].iloc[0] == pytest.approx(-4e-4 / 3, rel=1e-9)
    # a fit the REML optimiser leaves off (its note says so: the task SD 1.6e8 beside runs of 1e-4) but not zeroed
    assert pairs[1]["estimate"].iloc[0] == pytest.approx(-4e-4 / 3, rel=0.02)


def test_mixed_qq_ranks_tie_residuals_within_their_own_tasks_rounding():
    """Two tasks at scale 1e6 and one at 1e-5: the small task's residuals, 9e-7 to 3e-6 apart, tied in the QQ ranks
    under the tolerance of every score's range (8e-6); now only within their own task's (4e-17)."""
    rng = np.random.default_rng(5)
    rows = [(a, f"t{t}", s, scale * rng.standard_normal())
            for t, scale in enumerate((1e6, 2e6, 1e-5)) for a in "ABC" for s in range(4)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = _quiet(rlstats.mixed, df, "score ~ agent + (1 | task)")
    residuals = np.asarray(res.residuals)
    assert np.diff(np.sort(residuals[(df.task == "t2").to_numpy()])).min() < 1e-6
    expected = special.ndtri((stats.rankdata(residuals) - 0.5) / residuals.size)
    np.testing.assert_allclose(res.residual_normal_scores, expected, rtol=1e-12)
    # predicted task effects: distinct, each within its own task's rounding only
    effects = np.asarray(res.task_effects)
    n = effects.size
    np.testing.assert_allclose(res.task_normal_scores,
                               special.ndtri((stats.rankdata(effects) - 3 / 8) / (n + 1 - 3 / 4)), rtol=1e-12)


# ------------------------------------------------------------------ Levene's test of the run spreads on near-ties


def _one_task_of_rounding():
    """4 tasks x 4 agents x 3 runs; every run of task 3 is 0.3, exactly (``exact``) or three written 0.1 + 0.2."""
    rng = np.random.default_rng(0)
    task = np.repeat(np.arange(4), 12)
    agent = np.tile(np.repeat(np.arange(4), 3), 4)
    exact = rng.normal(size=task.size) * np.array([1.0, 1.0, 1.0, 3.0])[agent]
    exact[task == 3] = 0.3
    rounded = exact.copy()
    last = np.flatnonzero(task == 3)
    rounded[[last[0], last[1], last[10]]] = 0.1 + 0.2  # agent 0's first two runs, agent 3's second
    assert (rounded != exact).sum() == 3
    return task, agent, exact, rounded


def test_spread_levene_ties_runs_within_the_tasks_tolerance():
    """Review s37 rv37a: deviations of 5.6e-17 from 0.1 + 0.2 != 0.3 made task 3 (rounding alone) a block of
    deviations of mean 1: p 0.037, df2 25, against 0.013, df2 18 with the ties exact (the task then drops out)."""
    from rlstats.methods.mixed import _api

    task, agent, exact, rounded = _one_task_of_rounding()
    want = _api.spread_levene(exact[None], task, agent, 4, 4)
    got = _api.spread_levene(rounded[None], task, agent, 4, 4)
    np.testing.assert_array_equal(np.ravel(got), np.ravel(want))
    assert np.ravel(want)[1:3].tolist() == [3.0, 18.0] and np.ravel(want)[3] == pytest.approx(0.0131052, abs=1e-7)
    # the task dropped: the three tasks alone give the same test
    keep = task < 3
    np.testing.assert_allclose(np.ravel(_api.spread_levene(exact[keep], task[keep], agent[keep], 3, 4)),
                               np.ravel(want), rtol=1e-12)
    # several data sets at once: the rounding of one row does not move another's
    rows = np.stack([rounded, exact, rounded * 7.3 + 1e3])
    np.testing.assert_allclose(np.array(_api.spread_levene(rows, task, agent, 4, 4)).T,
                               np.tile(np.ravel(want), (3, 1)), rtol=1e-9)


def test_an_agents_runs_that_differ_by_rounding_have_no_spread():
    """run_spread_test leaves out the agents whose runs do not vary (sd 0): runs of 0.3 and 0.1 + 0.2 do not."""
    from rlstats.design import design_of
    from rlstats.methods.mixed import _api

    task, agent, exact, rounded = _one_task_of_rounding()
    # agent 3's runs all 0.3 but for rounding in every task
    for y in (exact, rounded):
        y[agent == 3] = 0.3
    rounded[(agent == 3) & (np.arange(task.size) % 3 == 1)] = 0.1 + 0.2
    frames = [pd.DataFrame({"agent": [f"a{a}" for a in agent], "task": [f"t{t}" for t in task],
                            "seed": np.arange(task.size) % 3, "score": y}) for y in (exact, rounded)]
    designs = [design_of(f, "score ~ agent | task/seed") for f in frames]
    sds = [_api._run_sds(d)[0] for d in designs]
    assert sds[0][3] == 0.0 and sds[1][3] == 0.0
    np.testing.assert_array_equal(sds[1], sds[0])
    assert _api.run_sd_ratio(designs[1]) == _api.run_sd_ratio(designs[0])
    assert _api.run_spread_test(designs[1]) == _api.run_spread_test(designs[0])


# ------------------------------------------------------------------ Skillings-Mack's never-met pairs with control=


def test_skillings_mack_control_names_every_never_met_pair_in_one_sentence():
    """Review s37 rv37a: with control C, C never meeting A (in the family) and B never meeting D (outside it), the
    note named A-C alone."""
    ran = {"t0": "CB", "t1": "CD", "t2": "AB", "t3": "AD", "t4": "CB", "t5": "CD", "t6": "AB", "t7": "AD"}
    rng = np.random.default_rng(0)
    rows = [(a, t, s, rng.normal()) for t, agents in ran.items() for a in agents for s in range(3)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = _quiet(rlstats.skillings_mack, df, "score ~ agent | task", control="C")
    notes = [n for n in res.notes if "never ran on a common task" in n]
    assert len(notes) == 1 and notes[0].startswith(
        "2 pairs of agents never ran on a common task (A-C and B-D): A-C is not compared post hoc and no "
        "critical-difference bar joins it, the post hoc against the control C leaves B-D out, and a mean rank is "
        "taken within each task among the agents that ran there")
    # without control= both pairs are in the family: one sentence, as before
    res = _quiet(rlstats.skillings_mack, df, "score ~ agent | task")
    notes = [n for n in res.notes if "never ran on a common task" in n]
    assert len(notes) == 1 and notes[0].startswith("2 pairs of agents never ran on a common task (A-C and B-D): they "
                                                   "are not compared post hoc")


# ------------------------------------------------------------------ tuning's kurtosis note


def test_tuning_kurtosis_note_names_the_sweep_by_the_tie_rule_not_the_printed_digits():
    """Review s37 rv37a: sweeps were tied by equal '.3g' text, so values an ulp either side of 2.245 (one value but
    for rounding) named the second sweep (2.25), and 2.241 beside 2.244 (apart) named the first."""
    from rlstats.methods.tuning._api import _kurtosis_note

    below, above = np.nextafter(np.nextafter(2.245, 0.0), 0.0), np.nextafter(2.245, 3.0)
    assert (f"{below:.3g}", f"{above:.3g}") == ("2.24", "2.25")
    tied = _kurtosis_note([("ppo", "ant", below), ("sac", "hopper", above), ("td3", "ant", 0.0)], 3)
    assert "up to 2.24 (ppo on ant)" in tied
    tied = _kurtosis_note([("sac", "hopper", above), ("ppo", "ant", below), ("td3", "ant", 0.0)], 3)
    assert "up to 2.25 (sac on hopper)" in tied  # the first of the tied ones, as listed
    apart = _kurtosis_note([("ppo", "ant", 2.241), ("sac", "hopper", 2.244), ("td3", "ant", 0.0)], 3)
    assert "up to 2.24 (sac on hopper)" in apart  # the largest
