"""Audit s35 (claims35): claims a new user's trial on real data found not quite true or not said.

1. equivalence: the across-tasks headline is the mean of the tasks' differences, which cancel (Atari 100k DER vs DrQ:
   -0.0188 beside Krull -0.82 and CrazyClimber +0.50, 12 of 26 tasks shown beyond the margin); the line now says
   "mean difference over tasks" and the tasks beyond the margin are counted right after it, and the figure, which
   draws the across-tasks and aggregate rows, says how many tasks lie beyond the margin.
2. power with a pilot: the shifted agent (by default the last) is named with the direction of its shift and the gap
   between it and the others in the pilot and in the data simulated (SAC leads TD3 by ~0.93 SD; with TD3 raised by
   0.5, by ~0.43).
3. tuning: the tuned score's interval takes its width from the sweep's pooled SD where that is larger than the
   selected configuration's own (LunarLander: 1.9 over 10 seeds, the interval +-103): the result says so.
4. task_table on times to a threshold: a cell none of whose runs reached the threshold, marked possibly best beside an
   interval of its difference wholly on the best's side, is said plainly (none of its runs reached it; its runs
   cannot tell it apart from the best at the marks' level).
5. permutation p-values at their floor (no permutation reached the observed statistic) are said so, in print and
   report.
6. a formula's unknown response suggests the column that looks like a return ('eval/mean_reward', back-quoted as
   the formula needs it), not the nearest spelling ('source').
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import SHARED_DATA


# ----------------------------------------------------------------------------- 1. equivalence: mean over tasks

def _cancelling(seed=0):
    """Two agents on 6 tasks, 8 seeds: the tasks' differences +0.5, -0.5, +0.4, -0.4, 0, 0 (SD 0.05), mean 0."""
    rng = np.random.default_rng(seed)
    shifts = [0.5, -0.5, 0.4, -0.4, 0.0, 0.0]
    rows = []
    for t, shift in enumerate(shifts):
        for agent, add in (("A", shift), ("B", 0.0)):
            z = rng.standard_normal(8)
            rows += [(agent, f"t{t}", s, 1.0 + add + 0.05 * (z[s] - z.mean())) for s in range(8)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_equivalence_headline_says_mean_over_tasks_and_counts_tasks_beyond():
    res = rlstats.equivalence(_cancelling(), "score ~ agent | task/seed", margin=0.1, aggregate=None)
    lines = str(res).splitlines()
    across = next(i for i, line in enumerate(lines) if line.lstrip().startswith("across these 6 tasks"))
    assert "equivalent within ±0.1 (mean difference over tasks " in lines[across]
    assert res.comparisons.query("scope == 'across tasks'")["shown"].iloc[0]
    # right after the headline: how many tasks' own differences are shown beyond the margin, and their range
    after = lines[across + 1]
    assert after.lstrip().startswith("but 4 of the 6 tasks are shown beyond the margin"), after
    assert "t1 -0.5" in after and "t0 0.5" in after
    # the figure says it too
    ax = res.plot()
    assert "per task: 6 tests not drawn, 4 of them shown beyond the margin" in " ".join(ax.get_xlabel().split())
    import matplotlib.pyplot as plt
    plt.close(ax.figure)


def test_equivalence_headline_has_no_beyond_line_where_no_task_is():
    data = _cancelling()
    data.loc[data.agent == "A", "score"] = data.loc[data.agent == "B", "score"].to_numpy() + 0.001
    res = rlstats.equivalence(data, "score ~ agent | task/seed", margin=0.1, aggregate=None)
    text = str(res)
    assert "mean difference over tasks" in text and "beyond the margin" not in text


# ----------------------------------------------------------------------------- 2. power: the shift's direction

def _pilot():
    """SAC 1 SD above TD3 on one task, 20 runs each (SD 1 within each)."""
    z = np.random.default_rng(1).standard_normal(20)
    z = (z - z.mean()) / z.std(ddof=1)
    return pd.DataFrame({"agent": ["SAC"] * 20 + ["TD3"] * 20, "task": "H", "seed": list(range(20)) * 2,
                         "score": np.r_[11.0 + z, 10.0 + z]})


def test_power_pilot_names_the_shifted_agent_its_direction_and_the_gaps():
    res = rlstats.power("skillings_mack", design=_pilot(), formula="score ~ agent | task", effect=0.5, seeds=[3], n_sim=20, rng=0,
                        progress=False)
    note = next(n for n in res.notes if n.startswith("pilot: TD3 raised by 0.5"))
    assert ("SAC leads TD3 by 1 within-cell standard deviation in the pilot and by 0.5 in the data simulated "
            "(the shift narrows the lead)") in note, note
    assert "resample='pooled'" in note
    assert "effect = 0.5 (TD3 raised; see the notes)" in str(res)


def test_power_pilot_shift_that_widens_says_so():
    res = rlstats.power("skillings_mack", design=_pilot(), formula="score ~ agent | task", effect=-0.5, seeds=[3], n_sim=20, rng=0,
                        progress=False)
    note = next(n for n in res.notes if n.startswith("pilot: TD3 lowered by 0.5"))
    assert "SAC leads TD3 by 1 within-cell standard deviation in the pilot and by 1.5 in the data simulated" in note


# ----------------------------------------------------------------------------- 3. tuning: the interval's width

def _sweep():
    """20 configurations x 5 seeds: configuration 0 best (mean 100, SD 0.1), the others near 50 with SD 10."""
    rng = np.random.default_rng(2)
    rows = []
    for c in range(20):
        z = rng.standard_normal(5)
        z = (z - z.mean()) / z.std(ddof=1)
        mean, sd = (100.0, 0.1) if c == 0 else (50.0 + c, 10.0)
        rows += [("PPO", "T", c, s, mean + sd * z[s]) for s in range(5)]
    return pd.DataFrame(rows, columns=["agent", "task", "config", "seed", "score"])


def test_tuning_says_where_the_tuned_intervals_width_comes_from():
    res = rlstats.tuning(_sweep(), "score ~ agent | task/seed", config="config", views=["best_set"],
                         n_resamples=200, rng=0)
    row = res.tables["tuned"].iloc[0]
    half = row["conf_high"] - row["mean_selected"]
    pooled = np.sqrt((19 * 100 + 0.01) / 20)  # every configuration's SD, weighted by its 4 degrees of freedom
    from scipy import stats
    assert half == pytest.approx(stats.t.ppf(0.975, 4) * pooled / np.sqrt(5))
    note = next(n for n in res.notes if n.startswith("the tuned score's interval takes"))
    assert ("PPO on T: the sweep's pooled standard deviation 9.75 (over 20 configurations), not the selected "
            "configuration's own 0.1 (over its 5 seeds)") in note, note
    assert "tuned_lower='winner'" in note


# ----------------------------------------------------------------------------- 4. task_table: never reached

def _curves():
    """3 agents x 3 seeds, evaluated at 5k..20k: A reaches 300 at 10k, P at 5k, 10k, 10k, D never."""
    first = {"A": [10_000] * 3, "P": [5_000, 10_000, 10_000], "D": [None] * 3}
    rows = []
    for agent, reach in first.items():
        for seed, at in enumerate(reach):
            for step in (5_000, 10_000, 15_000, 20_000):
                rows.append((agent, "C", seed, step, 400.0 if at is not None and step >= at else 100.0))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_task_table_says_a_cell_that_never_reached_the_threshold_plainly():
    runs = rlstats.summarize_runs(_curves(), "score ~ agent | task/seed", step="step", how="time_to_threshold",
                                  threshold=300)
    res = rlstats.task_table(runs, "score ~ agent | task/seed")
    d = list(res.agents).index("D")
    assert bool(res.possibly_best[0, d])
    text = str(res).replace("\n", " ")
    assert "lies above 0 in" not in text
    _never_reached_agrees(res, d, text, "C/D")


def _never_reached_agrees(res, cell, text, name):
    """D's runs all sit at the horizon, a cap: review s38 fixe38 printed its Welch interval with the floored run
    variance its p-value reads, which holds 0 at the interval's level as the mark says (the unfloored one lay wholly
    on the best's side, and a note explained the disagreement); the table says the runs never reached the threshold
    (the mark) and that the tests bound the capped cells' variance."""
    low, high = res.welch[0, cell, 2:]
    assert low < 0 < high
    assert "wholly on the best's side" not in text
    assert "1 cell holding runs that never reached the threshold by their task's horizon (3 of 3 runs there)" in text
    assert f"{name}) all tie at a cap" in text and "and so do Welch's t, df and interval printed against it" in text


# ----------------------------------------------------------------------------- 5. permutation p at its floor

def test_permutation_pvalue_at_its_floor_is_said():
    rng = np.random.default_rng(3)
    data = pd.DataFrame([(a, f"t{t}", s, (5.0 if a == "A" else 0.0) + rng.standard_normal())
                         for a in "AB" for t in range(4) for s in range(5)], columns=["agent", "task", "seed", "score"])
    res = rlstats.skillings_mack(data, "score ~ agent | task", pvalue="monte_carlo", n_resamples=999, rng=0,
                                 progress=False)
    assert res.pvalue == pytest.approx(1 / 1000)
    text = str(res)
    assert "p-value = 0.001, the smallest 999 permutations can give (none reached the observed statistic)" in text
    report = res.report(format="text")
    assert "p = 0.001, the smallest 999 permutations can give (none reached the observed statistic)" in report


def test_permutation_pvalue_above_its_floor_says_nothing_more():
    rng = np.random.default_rng(4)
    data = pd.DataFrame([(a, f"t{t}", s, rng.standard_normal())
                         for a in "AB" for t in range(4) for s in range(5)], columns=["agent", "task", "seed", "score"])
    res = rlstats.skillings_mack(data, "score ~ agent | task", pvalue="monte_carlo", n_resamples=999, rng=0,
                                 progress=False)
    assert res.pvalue > 0.01 and "the smallest" not in str(res)


# ----------------------------------------------------------------------------- 6. the response's column

def test_unknown_response_suggests_the_column_that_looks_like_a_return():
    data = pd.DataFrame({"agent": ["A", "B"] * 3, "task": "T", "step": 1000, "eval/mean_reward": np.arange(6.0),
                         "eval/episodes": 5.0, "source": "x.npz"})
    with pytest.raises(rlstats.errors.FormulaError) as caught:
        rlstats.compare(data, "score ~ agent | task")
    message = str(caught.value)
    assert "did you mean `eval/mean_reward` (the column that looks like a return)?" in message, message
    # written that way, the formula reads it
    res = rlstats.skillings_mack(data, "`eval/mean_reward` ~ agent | task", progress=False)
    assert res.n_agents == 2


# ----------------------------------------------------------------------------- real data (skips without ../shared)

@pytest.mark.slow
def test_real_atari_der_drq_headline(mirror):
    data = rlstats.datasets.load("atari100k")
    res = rlstats.equivalence(data[data.agent.isin(["DER", "DrQ"])], "score ~ agent | task/seed", margin=0.05,
                              normalize="atari100k_reference", rng=0)
    lines = str(res).splitlines()
    across = next(i for i, line in enumerate(lines) if "across these 26 tasks" in line)
    assert "mean difference over tasks -0.018819" in lines[across]
    assert lines[across + 1].lstrip().startswith("but 12 of the 26 tasks are shown beyond the margin")


def test_real_halfcheetah_pilot_gap():
    path = SHARED_DATA / "halfcheetah_sac_td3.csv"
    if not path.is_file():
        pytest.skip(f"the HalfCheetah pilot is not at {path}")
    res = rlstats.power("skillings_mack", design=pd.read_csv(path), formula="score ~ agent | task", effect=0.5, seeds=[3],
                        n_sim=2, rng=0, progress=False)
    note = next(n for n in res.notes if n.startswith("pilot: TD3 raised by 0.5"))
    assert "SAC leads TD3 by 0.93 within-cell standard deviations in the pilot and by 0.43 in the data" in note


def test_real_sb3_cartpole_never_reached_note(sb3_evaluations):
    cartpole = sb3_evaluations[sb3_evaluations.task == "CartPole-v1"]
    runs = rlstats.summarize_runs(cartpole, "score ~ agent | task/seed", step="step", how="time_to_threshold",
                                  threshold=300)
    assert runs.groupby("agent")["censored"].sum().to_dict() == {"A2C": 0, "DQN": 3, "PPO": 0}
    res = rlstats.task_table(runs, "score ~ agent | task/seed")
    dqn = list(res.agents).index("DQN")
    assert bool(res.possibly_best[0, dqn])
    _never_reached_agrees(res, dqn, str(res).replace("\n", " "), "CartPole-v1/DQN")


@pytest.mark.slow
def test_real_lunarlander_tuned_width_and_der_spr_floor(mirror):
    sweep = rlstats.datasets.load("hpo_landscapes")
    sweep = sweep[sweep.landscape == "learning-rate_angle-weight"].assign(agent="PPO")
    res = rlstats.tuning(sweep, "score ~ agent | task/seed", config="config", views=["best_set"], rng=0)
    note = next(n for n in res.notes if n.startswith("the tuned score's interval takes"))
    assert ("PPO on LunarLander: the sweep's pooled standard deviation 143 (over 10,000 configurations), not the "
            "selected configuration's own 1.9 (over its 10 seeds)") in note
    assert any(n.startswith("1 end of the tuned scores and their intervals lies above 1000, the largest score of task "
                            "'LunarLander'") for n in res.notes)
    atari = rlstats.datasets.load("atari100k")
    sm = rlstats.compare(atari[atari.agent.isin(["DER", "SPR"])], "score ~ agent | task", rng=0)
    assert "p-value = 9.999e-05, the smallest 10000 permutations can give (none reached" in str(sm)
