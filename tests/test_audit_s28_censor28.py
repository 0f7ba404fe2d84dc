"""Audit s28 (censor28): how ``summarize_runs(how="time_to_threshold")`` treats runs that never reach the threshold.

Found (audit real28, on the Stable-Baselines3 logs): every run that never reached the threshold got one censor step,
the latest last logged step of any run of any task plus the median logging interval: 35k for the Acrobot-v1 runs
whose training ended at 20k (CartPole-v1's runs end at 30k), 25k when Acrobot-v1 is summarised alone. Ranks within a
task did not depend on it, but every other statistic did: the Acrobot-v1 mean of PPO's three runs (none reached -100)
read 35,000 steps, or 25,000, set by another task's budget and an arbitrary interval. With runs of unequal length
within a task, the censor step also ranked a short run (ended at 20k, unknown after) behind a run that reached the
threshold at 30k.

Fixed: each task has a horizon, the last step every run of it logs (each run is observed that far), and each run's
value is its time to the threshold restricted to it, min(time, horizon): known for every run, so any statistic of the
column is one of the restricted times, and a mean is the restricted mean time up to the horizon (the area under the
Kaplan-Meier curve of the share not yet there, each run censored at its own last logged step). The plain mean time is
not given (runs that never reach it leave it unknown). The note gives each task's horizon, counts the runs that count
it and names those that reached the threshold only after it. Checked against a hand Kaplan-Meier written here (and
statsmodels' SurvfuncRight where installed), against the closed-form restricted mean of simulated runs of unequal
length, and on the real SB3 logs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.provenance import notes_for

FORMULA = "score ~ agent | task/seed"
THRESHOLDS = {"CartPole-v1": 475, "Acrobot-v1": -100}


def _km_area(times, events, horizon):
    """Independent: the area under the Kaplan-Meier curve of P(time > t) from 0 to ``horizon``, by hand (the product
    limit over the distinct event times, censored runs at risk at their own censoring time)."""
    times, events = np.asarray(times, dtype=float), np.asarray(events, dtype=bool)
    area, survival, previous = 0.0, 1.0, 0.0
    for u in np.unique(times[events]):
        if u > horizon:
            break
        area += survival * (u - previous)
        at_risk = np.sum(times >= u)
        survival *= 1.0 - np.sum((times == u) & events) / at_risk
        previous = u
    return area + survival * (horizon - previous)


def _crossings(data, thresholds):
    """Independent (pandas): per run, (first logged step at or above its task's threshold or NaN, last logged step)."""
    rows = []
    for (agent, task, seed), g in data.groupby(["agent", "task", "seed"]):
        g = g.sort_values("step")
        hit = g.loc[g["score"] >= thresholds[task], "step"]
        rows.append((agent, task, seed, float(hit.iloc[0]) if len(hit) else np.nan, float(g["step"].iloc[-1])))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "first", "last"])


def _summary(data, thresholds):
    return rlstats.summarize_runs(data, FORMULA, step="step", how="time_to_threshold", threshold=thresholds)


# ----------------------------------------------------------------------------- the reproducer, on the real logs

def test_acrobot_values_do_not_depend_on_cartpoles_budget(sb3_evaluations):
    """Acrobot-v1's runs end at 20k. Its censored runs read 35k beside CartPole-v1 (30k runs) and 25k alone; now 20k,
    its horizon, both ways, and the per-agent means (PPO: none of 3 reached -100; A2C: run 1 at 20k) are the
    restricted means of a hand Kaplan-Meier with each run censored at its own last logged step."""
    both = _summary(sb3_evaluations, THRESHOLDS)
    alone = _summary(sb3_evaluations[sb3_evaluations.task == "Acrobot-v1"], THRESHOLDS)
    acrobot = both[both.task == "Acrobot-v1"].reset_index(drop=True)
    pd.testing.assert_frame_equal(acrobot, alone.reset_index(drop=True), check_like=True)
    assert acrobot["score"].tolist() == [20_000] * 6
    hand = _crossings(sb3_evaluations, THRESHOLDS)
    for (agent, task), runs in both.groupby(["agent", "task"]):
        mine = hand[(hand.agent == agent) & (hand.task == task)]
        horizon = hand.loc[hand.task == task, "last"].min()  # every run of the task logs up to it
        reached = mine["first"].notna().to_numpy()
        area = _km_area(np.where(reached, mine["first"], mine["last"]), reached, horizon)
        assert runs["score"].mean() == pytest.approx(area, rel=1e-12), (agent, task)
    # CartPole-v1: DQN's runs stop at 20k, so the horizon is 20k; A2C reached 475 at 10k and 15k (runs 1 and 2)
    cartpole = both[both.task == "CartPole-v1"].set_index(["agent", "seed"])["score"]
    assert cartpole[("A2C", 1)] == 10_000 and cartpole[("A2C", 2)] == 15_000
    assert (cartpole.drop([("A2C", 1), ("A2C", 2)]) == 20_000).all()
    note = both.attrs["rlstats_notes"][-1]
    assert "12 of 15 runs never reached it by their task's horizon, the last step every run of the task logs " \
           "(step 20k), and count that step" in note
    assert "a mean of them is the restricted mean time up to the horizon" in note and "35k" not in note
    assert "3 runs end more than one logging interval before the last run of their task, so their task is read up to " \
           "where they end (run '0' of agent 'DQN' on task 'CartPole-v1' at 20k" in note
    assert "leave the short runs out for a later horizon" in note and "their values come from" not in note
    # without DQN, CartPole-v1's runs all log to 30k: its horizon, said per task
    pair = _summary(sb3_evaluations[sb3_evaluations.agent != "DQN"], THRESHOLDS)
    assert "(steps 20k on Acrobot-v1, 30k on CartPole-v1)" in pair.attrs["rlstats_notes"][-1]
    assert pair.loc[pair.task == "CartPole-v1", "score"].max() == 30_000


# ----------------------------------------------------------------------------- simulated runs of unequal length

def _geometric_runs(n_runs, p, budgets, interval, rng):
    """Runs logged every ``interval`` steps up to their own budget; each first reaches score 1 at evaluation K ~
    Geometric(p) (K >= 1) and stays there. Returns the curves and each run's K."""
    k = rng.geometric(p, size=n_runs)
    rows = []
    for seed in range(n_runs):
        steps = np.arange(interval, budgets[seed % len(budgets)] + 1, interval)
        rows.append(pd.DataFrame({"agent": "ab"[seed % 2], "task": "t", "seed": seed, "step": steps,
                                  "score": (steps >= k[seed] * interval).astype(float)}))
    return pd.concat(rows, ignore_index=True), k


def test_restricted_mean_of_runs_of_unequal_length_matches_the_truth():
    """Runs of budgets 50, 80 and 100 steps, evaluated every 10, time to threshold 10*K with K ~ Geometric(0.2): the
    horizon is 50 and the true restricted mean E[min(10K, 50)] = sum_{j=0}^{4} 10 * 0.8**j = 33.616 (closed form).
    The column's mean over 240 runs lies within 4 standard errors of it, and equals the Kaplan-Meier area by hand (each
    run censored at its own last step); the old censor step (the latest end plus an interval, 110) gave the
    column an expectation of 48.54 (closed form over the three budgets), an estimate of no stated quantity."""
    rng = np.random.default_rng(28)
    p, interval, budgets = 0.2, 10, (50, 80, 100)
    truth = sum(interval * (1 - p) ** j for j in range(5))
    assert truth == pytest.approx(33.616, abs=1e-12)
    data, k = _geometric_runs(240, p, budgets, interval, rng)
    runs = _summary(data, {"t": 1.0})
    values = runs.sort_values("seed")["score"].to_numpy(dtype=float)
    np.testing.assert_array_equal(values, np.minimum(interval * k, 50))  # min(time, horizon), run by run
    own_end = np.array([budgets[s % 3] for s in range(240)], dtype=float)
    reached = interval * k <= own_end
    assert values.mean() == pytest.approx(_km_area(np.where(reached, interval * k, own_end), reached, 50), rel=1e-12)
    assert abs(values.mean() - truth) < 4 * values.std(ddof=1) / np.sqrt(values.size)
    np.testing.assert_array_equal(runs.sort_values("seed")["censored"].to_numpy(), interval * k > 50)
    note = runs.attrs["rlstats_notes"][-1]
    late = int(((interval * k > 50) & reached).sum())  # reached it after 50, in a run logged beyond it
    assert late > 0 and f"; {late} runs of them reached it only after the horizon (run " in note


@pytest.mark.slow  # importing statsmodels costs seconds
def test_statsmodels_kaplan_meier_agrees():
    """The same restricted means from statsmodels' Kaplan-Meier (SurvfuncRight), a second independent value."""
    survfunc = pytest.importorskip("statsmodels.duration.survfunc")
    data, k = _geometric_runs(60, 0.3, (30, 60), 10, np.random.default_rng(5))
    runs = _summary(data, {"t": 1.0})
    own_end = np.array([(30, 60)[s % 2] for s in range(60)], dtype=float)
    reached = 10 * k <= own_end
    fit = survfunc.SurvfuncRight(np.where(reached, 10 * k, own_end), reached.astype(int))
    times, prob = np.r_[0.0, fit.surv_times], np.r_[1.0, fit.surv_prob]
    inside = times < 30
    area = np.sum(prob[inside] * np.diff(np.r_[times[inside], 30.0]))
    assert runs["score"].mean() == pytest.approx(area, rel=1e-12)
    # the hand Kaplan-Meier the default tests use, against statsmodels' where runs are censored before the horizon
    # (at 30, horizon 60: what the restricted times avoid, and what a hand product limit gets wrong first)
    times, prob = np.r_[0.0, fit.surv_times], np.r_[1.0, fit.surv_prob]
    inside = times < 60
    assert _km_area(np.where(reached, 10 * k, own_end), reached, 60) == pytest.approx(
        np.sum(prob[inside] * np.diff(np.r_[times[inside], 60.0])), rel=1e-12)
    assert (~reached & (own_end == 30)).any()  # some runs censored at 30, before the horizon


def test_a_short_run_no_longer_ranks_behind_a_run_reaching_it_later():
    """Agent b's run stops at 20 without reaching 1; agent a's reaches it at 30. Before, b's run got 40 (30 + one
    interval), ranked behind a's 30 though b was never seen past 20; now both are restricted to the horizon 20 and
    tie, and the note names a's run as reaching it only after the horizon."""
    data = pd.DataFrame({"agent": ["a"] * 3 + ["b"] * 2, "task": "t", "seed": 0, "step": [10, 20, 30, 10, 20],
                         "score": [0.0, 0.0, 1.0, 0.0, 0.0]})
    runs = _summary(data, {"t": 1.0})
    assert runs["score"].tolist() == [20, 20] and runs["censored"].tolist() == [True, True]
    note = runs.attrs["rlstats_notes"][-1]
    assert "2 of 2 runs never reached it by their task's horizon, the last step every run of the task logs (step " \
           "20), and count that step; 1 run of them reached it only after the horizon (run '0' of agent 'a' on task " \
           "'t'), which the runs that stop there cannot show" in note
    # a pandas subset keeps only b's run: the note is said again of it (no run there reached it later)
    again = next(n for n in notes_for(runs[runs.agent == "b"]) if "time" in n)
    assert "1 of 1 run never reached it by their task's horizon" in again and "only after the horizon" not in again
