"""Audit s34 (ttt34): the time-to-threshold summary's direction, continued from s33 ttt33.

Found (the s33 trial, left open there):

1. ``probability_of_improvement`` and ``performance_profile`` took no ``higher_is_better=``: on times (smaller
   better) the probability of improvement was P(X slower than Y) and the profile the fraction of runs slower than
   tau, which the summary's note admitted ("an improvement there is a slower run").
2. ``bootstrap`` printed the optimality gap of times: the mean shortfall below gamma (Agarwal et al. 2021) of a time
   censored at the budget, in steps, against gamma = 1.
3. The task table's marks (bold, possibly best) did not say which cells hold censored runs, whose mean is only a
   lower bound of the mean time.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError
from test_audit_s33_ttt33 import FORMULA, _curves

READ = "higher_is_better=False, read from the data"


@pytest.fixture(scope="module")
def times():
    """fast 400, mid 500, slow censored at the horizon 1k (3 tasks x 3 seeds)."""
    return rlstats.summarize_runs(_curves(), FORMULA, step="step", how="time_to_threshold", threshold=10)


def _tied_times():
    """2 agents x 2 tasks of 5 and 4 runs, times with ties within and between agents."""
    rows = [("A", "t1", s, v) for s, v in enumerate([100, 200, 200, 300, 500])]
    rows += [("B", "t1", s, v) for s, v in enumerate([200, 200, 400, 500, 500])]
    rows += [("A", "t2", s, v) for s, v in enumerate([50, 50, 70, 90])]
    rows += [("B", "t2", s, v) for s, v in enumerate([60, 70, 70, 80])]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _hand_improvement(df, x, y):
    """The mean over tasks of P(X < Y) + P(X = Y) / 2, enumerated over every pair of runs."""
    values = []
    for _, task in df.groupby("task"):
        a = task[task.agent == x].score.to_numpy()[:, None]
        b = task[task.agent == y].score.to_numpy()[None, :]
        values.append(((a < b) + 0.5 * (a == b)).mean())
    return float(np.mean(values))


# ------------------------------------------------------------------------- 1. the probability of improvement


def test_improvement_of_times_is_a_faster_run(times):
    res = rlstats.compare(times, FORMULA, method="probability_of_improvement")
    assert dict(zip(res.pairs, res.estimates.round(12))) == {("fast", "mid"): 1.0, ("fast", "slow"): 1.0,
                                                             ("mid", "slow"): 1.0}
    text = str(res)
    assert READ in text
    assert "P(1st agent < 2nd agent)" in text
    assert "an improvement there is a slower run" not in text


def test_improvement_smaller_better_by_hand_with_ties():
    """P(A < B) + P(A = B) / 2: t1 has 25 pairs (A < B 14, ties 6: 17/25), t2 16 pairs (A < B 9, ties 2: 10/16);
    the mean, 0.6525, is also the larger-is-better value on the negated times."""
    df = _tied_times()
    hand = _hand_improvement(df, "A", "B")
    assert hand == pytest.approx((17 / 25 + 10 / 16) / 2, abs=1e-15) == pytest.approx(0.6525)
    res = rlstats.probability_of_improvement(df, FORMULA, higher_is_better=False)
    assert res.estimates[0] == pytest.approx(hand, abs=1e-12)
    negated = rlstats.probability_of_improvement(df.assign(score=-df.score), FORMULA)
    assert negated.estimates[0] == pytest.approx(hand, abs=1e-12)
    np.testing.assert_allclose(res.intervals, negated.intervals, atol=1e-12)
    assert READ not in str(res)  # told, not read
    larger = rlstats.probability_of_improvement(df, FORMULA)
    assert larger.estimates[0] == pytest.approx(1 - hand, abs=1e-12)


def test_improvement_higher_is_better_true_is_obeyed(times):
    res = rlstats.probability_of_improvement(times, FORMULA, higher_is_better=True)
    assert res.estimates.round(12).tolist() == [0.0, 0.0, 0.0]  # larger as better, as asked
    assert READ not in str(res)


# --------------------------------------------------------------------------------- 1. the performance profile


def test_profile_of_times_counts_runs_faster_than_tau(times):
    """time < tau, the mirror of score > tau: at tau = 1000 (the horizon) the censored runs do not count."""
    tau = [400, 450, 500, 501, 1000, 1001]
    res = rlstats.performance_profile(times, FORMULA, tau=tau)
    est = dict(zip(res.agents, res.estimates.tolist()))
    assert est == {"fast": [0, 1, 1, 1, 1, 1], "mid": [0, 0, 0, 1, 1, 1], "slow": [0, 0, 0, 0, 0, 1]}
    negated = rlstats.performance_profile(times.assign(score=-times.score).drop(columns="censored"), FORMULA,
                                          tau=[-t for t in tau], higher_is_better=True)
    np.testing.assert_array_equal(res.estimates, negated.estimates)
    np.testing.assert_allclose(res.intervals, negated.intervals, atol=1e-12)
    text = str(res)
    assert READ in text and "fraction of runs below tau" in text and "smaller is better" in text


def test_profile_of_times_is_the_negated_profile_for_every_band(times):
    """Each band of the smaller-is-better profile is the larger-is-better band of the negated times at -tau, bit for
    bit (the percentile band from the same draws)."""
    negated = times.assign(score=-times.score).drop(columns="censored")
    tau = np.array([450.0, 700.0, 1000.0])
    for options in ({"kind": "tasks"}, {"kind": "tasks", "interval": "percentile", "n_resamples": 200, "rng": 1},
                    {"kind": "runs", "task_bootstrap": True}):
        res = rlstats.performance_profile(times, FORMULA, tau=tau, **options)
        mirror = rlstats.performance_profile(negated, FORMULA, tau=-tau, higher_is_better=True, **options)
        np.testing.assert_array_equal(res.estimates, mirror.estimates)
        np.testing.assert_array_equal(res.intervals, mirror.intervals)
        assert res.tau.tolist() == tau.tolist()


def test_profile_of_times_default_grid_rises(times):
    res = rlstats.compare(times, FORMULA, method="performance_profile")
    assert res.tau[0] == 400 and res.tau[-1] == 1000 and (np.diff(res.tau) > 0).all()
    assert (np.diff(res.estimates, axis=1) >= 0).all()  # a time's profile rises with tau
    assert READ in str(res)
    assert "-1000" not in str(res) and "-400" not in str(res)


def test_profile_higher_is_better_true_is_obeyed(times):
    res = rlstats.performance_profile(times, FORMULA, tau=[450], higher_is_better=True)
    assert res.estimates[:, 0].tolist() == [0, 1, 1]  # runs above 450 count, as asked: mid (500) and slow (1000)
    assert READ not in str(res)


# ---------------------------------------------------------------------------------- 2. the optimality gap


def test_bootstrap_leaves_the_gap_out_for_times_and_says_why(times):
    res = rlstats.compare(times, FORMULA, method="bootstrap", rng=0, n_resamples=200)
    assert "optimality_gap" not in set(res.tidy().metric)
    assert sorted(set(res.tidy().metric)) == ["iqm", "mean", "median"]
    text = str(res)
    assert READ in text
    assert "optimality gap is left out" in text


def test_bootstrap_refuses_the_gap_asked_for_times(times):
    with pytest.raises(OptionError, match="optimality gap.*smaller"):
        rlstats.bootstrap(times, FORMULA, metrics=["mean", "optimality_gap"], n_resamples=200)
    # told larger is better, the gap is the shortfall below gamma, as before
    res = rlstats.bootstrap(times, FORMULA, higher_is_better=True, rng=0, n_resamples=200)
    assert "optimality_gap" in set(res.tidy().metric)


# ------------------------------------------------------------------------------ 3. censored cells marked


def test_task_table_marks_the_censored_cells(times):
    res = rlstats.task_table(times, FORMULA)
    text = str(res)
    lines = [line for line in text.splitlines() if line[:2] in ("t1", "t2", "t3")]
    assert len(lines) == 3 and all(line.endswith("\u2265 1000 \u00b1 0 \u2020") for line in lines)  # slow's cells
    assert all(line.count("\u2265") == 1 for line in lines)
    assert ("\u2265: 3 cells holding runs that never reached the threshold by their task's horizon (9 of 9 runs "
            "there), each counted at the horizon, so the mean is a lower bound of the runs' times") in text
    latex = res.to_latex()
    assert latex.count("$\\geq$ 1000 $\\pm$ 0$^\\dagger$") == 3
    assert "$\\geq$: 3 cells holding runs that never reached the threshold" in latex  # the caption's key
    summary = res.summary()
    assert "\u2265 1000 \u00b1 0" in str(summary) and "\u2265: 3 cells holding runs" in str(summary)
    assert summary.to_latex().count("$\\geq$ 1000") == 3


def test_task_table_marks_on_the_sb3_logs(sb3_evaluations):
    """CartPole-v1 at 300: DQN's 3 runs censored at 20k; its cell alone is marked."""
    cart = sb3_evaluations[sb3_evaluations.task == "CartPole-v1"]
    runs = rlstats.summarize_runs(cart, FORMULA, step="step", how="time_to_threshold", threshold=300)
    table = rlstats.task_table(runs, FORMULA)
    assert dict(zip(table.agents, table.censored[0].tolist())) == {"A2C": 0, "DQN": 3, "PPO": 0}
    cells = [line for line in str(table).splitlines() if line.startswith("CartPole")]
    assert len(cells) == 1 and cells[0].count("\u2265 20000") == 1
    assert table.to_latex().count("$\\geq$ 20000") == 1


def test_compare_ranks_name_the_censored_cells(times):
    res = rlstats.compare(times, FORMULA, rng=0)
    line = [n for n in res.notes if "never reached the threshold by their task's horizon and hold" in n]
    assert len(line) == 1 and line[0].startswith("9 runs in 3 cells") and "'slow' on 't1', 't2' and 't3'" in line[0]
    # a summary where every run reaches it: no line, no mark
    reached = rlstats.summarize_runs(_curves(slow_reaches=True), FORMULA, step="step", how="time_to_threshold",
                                     threshold=10)
    assert not any("hold the horizon" in n for n in rlstats.compare(reached, FORMULA, rng=0).notes)
    table = rlstats.task_table(reached, FORMULA)
    assert table.censored.sum() == 0 and "\u2265" not in str(table)


def test_marks_follow_the_rows_analysed(times):
    """A subset without slow's t1 and t2 runs: one cell marked; a frame that lost the notes: None, no mark."""
    part = times[~((times.agent == "slow") & (times.task != "t3"))]
    table = rlstats.task_table(part, FORMULA)
    assert table.censored.tolist() == [[0, 0, 0], [0, 0, 0], [0, 0, 3]]
    assert str(table).count("\u2265 1000") == 1
    lost = pd.DataFrame(times.to_dict("list"))
    assert rlstats.task_table(lost, FORMULA, higher_is_better=False).censored is None
