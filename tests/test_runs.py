"""Learning-curve frames: no step counted as a run, run summaries and step alignment.

Every summary is checked against the same quantity computed independently with pandas/scipy
on the raw frame.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import integrate

import rlstats
from rlstats.datasets import simulate_curves
from rlstats.errors import DesignError, OptionError

FORMULA = "score ~ agent | task/seed"


@pytest.fixture
def curves():
    return simulate_curves(agents=2, tasks=3, seeds=4, steps=6, effect=0.5, rng=3)


# ----------------------------------------------------------------------------- no silent replicates


@pytest.mark.parametrize("formula", ["score ~ agent | task", "score ~ agent | task/seed"])
def test_steps_are_never_counted_as_runs(curves, formula):
    with pytest.raises(DesignError) as error:
        rlstats.compare(curves, formula)
    text = str(error.value)
    for phrase in ("column 'step' takes 6 values", "learning curves", "summarize_runs", "rlstats.curves",
                   "Pick a step"):
        assert phrase in text, phrase


@pytest.mark.parametrize("column", ["frames", "global_step", "Iteration", "epoch", "env_steps"])
def test_step_like_names_are_recognised(curves, column):
    with pytest.raises(DesignError, match=f"column '{column}' takes 6 values"):
        rlstats.skillings_mack(curves.rename(columns={"step": column}), "score ~ agent | task")


def test_a_step_column_named_by_step_is_checked_whatever_its_name(curves):
    data = curves.rename(columns={"step": "t"})
    # read by its values too since audit s33 design33 (distinct within each run, shared by the 24 runs: any order)
    with pytest.raises(DesignError, match="column 't' takes 6 values .* each once, on values shared by 24 runs"):
        rlstats.build(data.sample(frac=1, random_state=0), "score ~ agent | task")
    with pytest.raises(DesignError, match="column 't' takes 6 values"):
        rlstats.build(data, "score ~ agent | task", step="t")


def test_one_row_per_run_with_a_constant_step_is_fine(curves):
    last = curves[curves["step"] == curves["step"].max()]
    res = rlstats.compare(last, FORMULA)
    assert res.nobs == 24


def _monitor_like(rows_per_run=40, runs=3):
    """Curves as a monitor.csv logs them: each run's steps are its own (episodes end where they do)."""
    rng = np.random.default_rng(5)
    out = []
    for agent in ("A2C", "PPO"):
        for task in ("CartPole-v1", "Acrobot-v1"):
            for seed in range(runs):
                steps = np.cumsum(rng.integers(20, 500, rows_per_run))
                out += [(agent, task, seed, int(step), float(rng.normal(100, 20))) for step in steps]
    return pd.DataFrame(out, columns=["agent", "task", "seed", "step", "r"])


def _offered(message, start):
    """The pandas line of the message that starts with ``start`` (up to its closing parenthesis's partner)."""
    i = message.index(start)
    depth, j = 0, i
    while True:
        depth += {"(": 1, ")": -1}.get(message[j], 0)
        if message[j] == ")" and depth == 0 and not (message[j + 1] == "." and message[j + 2] != " "):
            return message[i:j + 1]
        j += 1


def test_one_row_per_run_at_steps_of_its_own_is_runs_not_curves():
    # each run's last monitor.csv row: the step differs by run, 'seed' has one row per (agent, task, seed)
    last = _monitor_like().sort_values("step").groupby(["agent", "task", "seed"]).tail(1)
    assert last["step"].nunique() == 12
    for formula in ("r ~ agent | task", "r ~ agent | task/seed"):
        assert rlstats.task_table(last, formula).nobs == 12
    # seeds reused (a sweep's configurations, say) beside a run id unique per run: the seed's "runs" hold several
    # steps, which is what curves look like, so the formula must name the run (review s7), as the error says
    reused = last.assign(run_id=np.arange(12), seed=0)
    with pytest.raises(DesignError, match=r"If each row is one run, named by 'run_id' \(one row each\), say so in "
                                          r"the formula: 'r ~ agent \| task/run_id'"):
        rlstats.build(reused, "r ~ agent | task")
    assert rlstats.build(reused, "r ~ agent | task/run_id").nobs == 12


def test_curves_at_steps_of_their_own_are_refused_with_ways_on_that_give_one_row_per_run():
    df = _monitor_like()
    for formula in ("r ~ agent | task", "r ~ agent | task/seed"):
        with pytest.raises(DesignError) as info:
            rlstats.compare(df, formula)
        message = str(info.value)
        assert message.startswith("column 'step' takes 40 values within run seed=0 of agent 'A2C' on task "
                                  "'Acrobot-v1' (40 rows), so the rows look like learning curves"), message
        assert "df['step'] == df['step'].max()" not in message  # keeps 1 of the 12 runs here
        kept = eval(_offered(message, "df.sort_values("), {"df": df})
        assert len(kept) == 12 and not kept.duplicated(["agent", "task", "seed"]).any()
        assert kept.set_index(["agent", "task", "seed"])["step"].to_dict() == df.groupby(
            ["agent", "task", "seed"])["step"].max().to_dict()
        summarised = eval(_offered(message, "rlstats.summarize_runs("), {"df": df, "rlstats": rlstats})
        assert len(summarised) == 12
        np.testing.assert_array_equal(summarised.sort_values(["agent", "task", "seed"])["r"],
                                      kept.sort_values(["agent", "task", "seed"])["r"])
    assert eval(_offered(message, "rlstats.curves("), {"df": df, "rlstats": rlstats}).n_tasks == 2  # as offered


def test_without_a_run_column_the_ways_on_say_one_is_needed():
    last = _monitor_like().sort_values("step").groupby(["agent", "task", "seed"]).tail(1).drop(columns="seed")
    with pytest.raises(DesignError) as info:
        rlstats.compare(last, "r ~ agent | task")
    message = str(info.value)
    assert "within agent 'A2C' on task 'Acrobot-v1' (3 rows)" in message
    assert ("The data name no run (no column such as 'seed' or 'run'), so a run's rows cannot be found: add a "
            "column naming each run") in message
    assert rlstats.task_table(eval(_offered(message, "df.drop("), {"df": last}), "r ~ agent | task").nobs == 12


def test_several_rows_of_a_run_at_one_step_name_the_run_column_in_the_ways_on():
    # 2 evaluation episodes at each run's last step: not curves of a run, yet not one row per run either
    last = _monitor_like().sort_values("step").groupby(["agent", "task", "seed"]).tail(1)
    twice = pd.concat([last, last.assign(r=last["r"] + 1)])
    with pytest.raises(DesignError) as info:
        rlstats.compare(twice, "r ~ agent | task")
    message = str(info.value)
    assert "within agent 'A2C' on task 'Acrobot-v1' (6 rows)" in message and "The data name no run" not in message
    assert len(eval(_offered(message, "df.sort_values("), {"df": twice})) == 12


@pytest.mark.parametrize("column", ["batch", "index"])
def test_batches_and_row_numbers_are_not_run_ids(column):
    # a column numbering rows has one row per value: it must not pass curves off as runs
    df = _monitor_like().reset_index(drop=True).drop(columns="seed")
    df[column] = np.arange(len(df))
    with pytest.raises(DesignError, match="column 'step' takes 120 values within agent 'A2C'"):  # 3 runs
        rlstats.build(df, "r ~ agent | task")


@pytest.mark.slow  # reading the 75 monitor.csv files takes a second or so
def test_the_real_monitor_logs_last_rows_are_runs(shared_data):
    logs = rlstats.read_logs(shared_data / "logs" / "sb3_classic", "{agent}/{task}/seed_{seed}",
                             format="sb3_monitor", progress=False)
    with pytest.raises(DesignError) as info:
        rlstats.task_table(logs, "r ~ agent | task")
    kept = eval(_offered(str(info.value), "df.sort_values("), {"df": logs})
    assert len(kept) == 15 and kept["step"].nunique() == 15  # 15 runs, each ending at a step of its own
    res = rlstats.task_table(kept, "r ~ agent | task")
    assert res.nobs == 15


def test_the_simulated_false_positive_rate_is_gone():
    # Issue 13: 2 alike agents, 6 tasks, 5 seeds, 10 steps rejected 63% of the time when steps were runs.
    df = simulate_curves(agents=2, tasks=6, seeds=5, steps=10, effect=0.0, rng=0)
    with pytest.raises(DesignError):
        rlstats.bootstrap(df, "score ~ agent | task")


# ----------------------------------------------------------------------------- summaries


def _independent(curves, how, k=3):
    grouped = curves.sort_values("step").groupby(["agent", "task", "seed"], observed=True)
    if how == "final":
        return grouped["score"].last()
    if how == "last_k_mean":
        return grouped["score"].apply(lambda s: s.iloc[-k:].mean())
    if how == "max":
        return grouped["score"].max()
    return grouped.apply(lambda g: integrate.trapezoid(g["score"], g["step"]))


@pytest.mark.parametrize("how", ["final", "last_k_mean", "max", "auc"])
def test_summaries_match_an_independent_computation(curves, how):
    shuffled = curves.sample(frac=1.0, random_state=0)  # row order does not matter
    runs = rlstats.summarize_runs(shuffled, FORMULA, step="step", how=how, **({"k": 3} if how == "last_k_mean" else {}))
    expected = _independent(curves, how)
    got = runs.set_index(["agent", "task", "seed"])["score"]
    assert len(runs) == 24
    for key, value in expected.items():
        assert got.loc[key] == pytest.approx(value, rel=1e-12)


def test_normalised_auc_is_the_average_height(curves):
    plain = rlstats.summarize_runs(curves, FORMULA, step="step", how="auc")
    height = rlstats.summarize_runs(curves, FORMULA, step="step", how="auc", normalize_auc=True)
    np.testing.assert_allclose(height["score"], plain["score"] / 1_000_000)
    assert "divided by the step range" in height.attrs["rlstats_notes"][-1]


def test_the_rule_travels_into_print_and_report(curves):
    runs = rlstats.summarize_runs(curves, FORMULA, step="step", how="auc")
    res = rlstats.compare(runs, FORMULA)
    assert "area under the curve over steps 0 to 1M" in str(res)
    assert "score: the area under the curve over steps 0 to 1M" in res.report()  # the column as written (audit s36)
    assert curves.attrs.get("rlstats_notes") is None  # the caller's frame is untouched


def test_time_to_threshold_censors_and_says_so(curves):
    threshold = float(curves["score"].quantile(0.7))
    runs = rlstats.summarize_runs(curves, FORMULA, step="step", how="time_to_threshold", threshold=threshold)
    grouped = curves.groupby(["agent", "task", "seed"], observed=True)
    first = grouped.apply(lambda g: g.loc[g["score"] >= threshold, "step"].min())
    reached = first.notna()
    assert runs["censored"].sum() == (~reached).sum() > 0
    got = runs.set_index(["agent", "task", "seed"])
    for key, step in first.items():
        row = got.loc[key]
        assert row["score"] == (step if reached[key] else 1_000_000)  # every run logs to 1M: the horizon (s28)
    note = runs.attrs["rlstats_notes"][-1]
    assert f"{(~reached).sum()} of 24 runs never reached it by their task's horizon" in note


def test_time_to_threshold_per_task(curves):
    per_task = {t: 1e9 for t in curves["task"].unique()}  # never reached
    runs = rlstats.summarize_runs(curves, FORMULA, step="step", how="time_to_threshold", threshold=per_task)
    assert runs["censored"].all()
    with pytest.raises(OptionError, match="no value for task"):
        rlstats.summarize_runs(curves, FORMULA, step="step", how="time_to_threshold", threshold={"task_01": 1})


def test_auc_needs_a_common_range(curves):
    short = curves[~((curves["seed"] == 0) & (curves["step"] > 600_000))]
    with pytest.raises(DesignError, match="do not cover the steps"):
        rlstats.summarize_runs(short, FORMULA, step="step", how="auc")
    runs = rlstats.summarize_runs(short, FORMULA, step="step", how="auc", steps=[0, 200_000, 400_000, 600_000])
    assert len(runs) == 24


def test_final_states_different_end_steps(curves):
    short = curves[~((curves["seed"] == 0) & (curves["step"] > 600_000))]
    runs = rlstats.summarize_runs(short, FORMULA, step="step", how="final")
    assert "runs end between steps 600k and 1M" in runs.attrs["rlstats_notes"][-1]


def test_last_k_needs_k_values(curves):
    with pytest.raises(DesignError, match="fewer than k=7"):
        rlstats.summarize_runs(curves, FORMULA, step="step", how="last_k_mean", k=7)


# ----------------------------------------------------------------------------- alignment


def _two_runs():
    return pd.DataFrame({"agent": ["a"] * 3 + ["b"] * 4, "task": "t", "seed": 0,
                         "step": [0, 40, 100, 10, 50, 70, 90], "score": [0.0, 4.0, 10.0, 1.0, 5.0, 7.0, 9.0]})


def test_last_value_rule_and_no_extrapolation():
    got = rlstats.align_steps(_two_runs(), FORMULA, step="step", steps=[0, 50, 100])
    a = got[got["agent"] == "a"]["score"].tolist()
    b = got[got["agent"] == "b"]["score"].tolist()
    assert a == [0.0, 4.0, 10.0]
    assert np.isnan(b[0]) and b[1] == 5.0 and np.isnan(b[2])  # before its first and after its last step: missing
    grid, filled, missing = got.attrs["rlstats_notes"][-3:]
    assert "last value at or before" in grid
    assert filled == ("1 value of 1 run filled from the run's previous evaluation (a grid step it did not log): "
                      "run '0' of agent 'a' on task 't' at step 50")  # a's 4.0, logged at 40
    assert missing == ("2 values of 1 run missing, before the run's first or after its last evaluation (never "
                       "extrapolated): run '0' of agent 'b' on task 't' at step 0; run '0' of agent 'b' on task 't' at "
                       "step 100")  # audit s17: counted and named


def test_linear_rule():
    got = rlstats.align_steps(_two_runs(), FORMULA, step="step", steps=[20, 50, 80], method="linear")
    assert got[got["agent"] == "a"]["score"].tolist() == pytest.approx([2.0, 5.0, 8.0])
    assert got[got["agent"] == "b"]["score"].tolist() == pytest.approx([2.0, 5.0, 8.0])


def test_default_grid_at_the_median_interval(curves):
    jittered = curves.copy()
    rng = np.random.default_rng(0)
    jittered["step"] = jittered["step"] + np.where(jittered["step"] > 0, rng.integers(1, 900, len(curves)), 0)
    got = rlstats.align_steps(jittered, FORMULA, step="step")
    assert sorted(got["step"].unique()) == [0, 200_000, 400_000, 600_000, 800_000, 1_000_000]
    grid, filled = got.attrs["rlstats_notes"][-2:]
    assert "grid of 6 steps from 0 to 1M" in grid
    # audit s17: each run logs 200k a little late, so its value there is step 0's: 5 of the 6 grid steps of 24 runs
    assert filled.startswith("120 values of 24 runs filled from the run's previous evaluation (a grid step it did "
                             "not log): run '0' of agent 'agent_1' on task 'task_01' at step 200k; ")


def test_a_default_grid_of_more_than_the_bound_is_refused_before_it_is_made(curves):
    far = curves.assign(step=curves["step"] // 200_000)  # steps 0 to 5, one apart
    # The last step of one run of every agent on every task is 10**9: every agent reaches it.
    far.loc[far.groupby(["agent", "task"], observed=True)["step"].idxmax(), "step"] = 10**9
    for call in (lambda: rlstats.align_steps(far, FORMULA, step="step"),
                 lambda: rlstats.summarize_runs(far, FORMULA, step="step", how="auc")):
        with pytest.raises(DesignError, match=r"the default grid of steps= \(from 0 to 1G at the runs' median logging "
                                              r"interval, 1\) would have 1,000,000,001 steps, more than the 100,000"):
            call()
    assert rlstats.runs.MAX_GRID_STEPS == 100_000
    fine = far.assign(step=np.where(far["step"] == 10**9, 99_999, far["step"]))  # 100,000 steps: allowed
    assert rlstats.align_steps(fine, FORMULA, step="step")["step"].nunique() == 100_000
    with pytest.raises(OptionError, match="steps= has 100,001 steps, more than the 100,000"):
        rlstats.align_steps(curves, FORMULA, step="step", steps=np.arange(100_001))
    with pytest.raises(OptionError, match="finite numbers in increasing order"):
        rlstats.align_steps(curves, FORMULA, step="step", steps=(s for s in range(3)))
    grid = rlstats.align_steps(far, FORMULA, step="step", steps=range(0, 1_000_000_001, 1_000_000))
    assert grid["step"].nunique() == 1001


def test_shared_steps_need_no_alignment(curves):
    got = rlstats.align_steps(curves, FORMULA, step="step")
    assert "every run is logged at the same 6 steps" in got.attrs["rlstats_notes"][-1]
    np.testing.assert_array_equal(np.sort(got["score"]), np.sort(curves["score"]))


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("change, phrase", [
    (lambda d: d.assign(step=d["step"].astype(str)), "steps must be numbers"),
    (lambda d: d.assign(step=pd.to_datetime(d["step"], unit="s")), "dates/times"),
    (lambda d: pd.concat([d, d.iloc[:1]]), "duplicate (run, step) row"),
    (lambda d: d.assign(score=d["score"].where(d.index != 5)), "missing value"),
])
def test_bad_curves_are_clear_errors(curves, change, phrase):
    with pytest.raises(DesignError) as error:
        rlstats.summarize_runs(change(curves), FORMULA, step="step")
    assert phrase in str(error.value)


def test_curves_need_the_run_column(curves):
    with pytest.raises(DesignError, match="run column in the formula"):
        rlstats.summarize_runs(curves, "score ~ agent | task", step="step")


def test_missing_scores_can_be_dropped_and_are_counted(curves):
    holed = curves.assign(score=curves["score"].where(curves.index != 5))
    runs = rlstats.summarize_runs(holed, FORMULA, step="step", how="max", na_action="drop")
    assert "1 of 144 rows dropped" in runs.attrs["rlstats_notes"][0]


# ----------------------------------------------------------------------------- budgets, dtypes and jitter (issue 29)


def _budgets(jitter=0.0, killed=False, dqn=True):
    """The shape of the SB3 logs: two agents on a 30k task and a 20k task, a third agent on the 30k task
    only at 20k, 3 seeds, evaluations every 5k (integer steps); scores are known functions of them."""
    rows = []
    for agent, offset in (("A2C", 0.0), ("PPO", 1.0), ("DQN", 2.0)):
        for task, budget in (("CartPole-v1", 30_000), ("Acrobot-v1", 20_000)):
            if agent == "DQN" and (task == "Acrobot-v1" or not dqn):
                continue
            end = 20_000 if agent == "DQN" else budget
            for seed in range(3):
                stop = 5_000 if (killed and agent == "PPO" and task == "CartPole-v1" and seed == 0) else end
                for step in range(5_000, stop + 1, 5_000):
                    rows.append((agent, task, seed, step, offset + seed + step / 1_000))
    frame = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    if jitter:
        frame["step"] = frame["step"].astype(float)
    return frame


def test_tasks_keep_their_own_range_and_steps_their_dtype():
    got = rlstats.align_steps(_budgets(dqn=False), FORMULA, step="step")
    assert got["step"].dtype == np.int64 and got["seed"].dtype == np.int64
    steps = got.groupby("task")["step"].agg(["min", "max", "nunique"])
    assert steps.loc["CartPole-v1"].tolist() == [5_000, 30_000, 6] and steps.loc["Acrobot-v1"].tolist() == [5_000,
                                                                                                           20_000, 4]
    assert not got["score"].isna().any()
    np.testing.assert_array_equal(got["score"], got["seed"] + (got["agent"] == "PPO") + got["step"] / 1_000)
    assert ("every run of a task is logged at the same steps, each task over the steps every agent reaches "
            "(Acrobot-v1: 4 steps from 5k to 20k; CartPole-v1: 6 steps from 5k to 30k)") in got.attrs["rlstats_notes"][-1]


def test_an_agent_with_a_shorter_budget_sets_its_task_range_and_one_short_run_does_not():
    got = rlstats.align_steps(_budgets(killed=True), FORMULA, step="step")
    cart = got[got["task"] == "CartPole-v1"]
    assert cart["step"].max() == 20_000  # DQN stops at 20k there
    killed = cart[(cart["agent"] == "PPO") & (cart["seed"] == 0)]
    assert killed["score"].notna().tolist() == [True, False, False, False]  # missing past its end, never made up
    grid, cut, missing = got.attrs["rlstats_notes"][-3:]
    assert grid.startswith("runs aligned to a grid of 4 steps from 5k to 20k by the last value at or before each step")
    assert missing == ("3 values of 1 run missing, before the run's first or after its last evaluation (never "
                       "extrapolated): run '0' of agent 'PPO' on task 'CartPole-v1' at step 10k; run '0' of agent "
                       "'PPO' on task 'CartPole-v1' at step 15k; run '0' of agent 'PPO' on task 'CartPole-v1' at step "
                       "20k")  # audit s17: counted and named
    # session 28 curvenotes28: Acrobot-v1's grid cuts nothing, so its runs are not named as ending it
    assert cut == ("each task's grid stays within the steps every agent reaches there (the runs of DQN on CartPole-v1 "
                   "stop where their task's grid ends); steps logged beyond are left out: CartPole-v1 (5k to 30k); pass "
                   "steps= for other steps")


def test_float_jitter_does_not_rebuild_the_grid():
    clean = _budgets(jitter=True, dqn=False)
    jittered = clean.copy()
    last = jittered.index[(jittered["agent"] == "PPO") & (jittered["seed"] == 1) & (jittered["step"] == 30_000)]
    jittered.loc[last, "step"] = np.nextafter(30_000.0, 0.0)  # 30000 - 3.6e-12
    jittered.loc[jittered.index[2], "step"] += 1e-12
    a = rlstats.align_steps(clean, FORMULA, step="step")
    b = rlstats.align_steps(jittered, FORMULA, step="step")
    pd.testing.assert_frame_equal(a, b)
    assert b["step"].dtype == np.float64 and b["score"].notna().all()
    assert "is logged at the same steps" in b.attrs["rlstats_notes"][-1]
    res = rlstats.curves(jittered, FORMULA, step="step", n_resamples=50, rng=0)
    assert res.steps.tolist() == [5_000.0, 10_000.0, 15_000.0, 20_000.0] and np.isfinite(res.estimates).all()


def test_summaries_keep_the_callers_dtypes_and_merge_back():
    data = _budgets(dqn=False)
    runs = rlstats.summarize_runs(data, FORMULA, step="step")
    assert runs.dtypes.to_dict() == {"agent": data["agent"].dtype, "task": data["task"].dtype, "seed": np.int64,
                                     "score": np.float64}
    merged = data.merge(runs, on=["agent", "task", "seed"], suffixes=("", "_final"))
    assert len(merged) == len(data)
    last = data.groupby(["agent", "task", "seed"])["score"].transform("last")
    np.testing.assert_array_equal(merged["score_final"], last)
    categorical = data.astype({"agent": "category"})
    assert rlstats.summarize_runs(categorical, FORMULA, step="step")["agent"].dtype == "category"


def test_summaries_name_runs_that_end_before_their_task():
    data = _budgets(killed=True, dqn=False)
    for how, phrase in [("final", "score: the value at each run's last logged step (runs end between steps 5k and "
                                  "30k; 1 run ends more than one logging interval before the last run of its task"),
                        ("last_k_mean", "score: the mean of each run's last 1 logged values, a window ending at the "
                                        "run's last logged step (runs end between steps 5k and 30k; 1 run ends"),
                        ("max", "score: the largest value of each run (steps 5k to 30k; runs end between")]:
        runs = rlstats.summarize_runs(data, FORMULA, step="step", how=how, **({"k": 1} if how == "last_k_mean" else {}))
        note = runs.attrs["rlstats_notes"][-1]
        assert phrase in note, note
        assert "run '0' of agent 'PPO' on task 'CartPole-v1' at 5k, its task's runs reaching 30k" in note
        assert "pass steps= ending at a step every run reaches" in note
    # Tasks with different budgets are not early runs: each task's end is stated.
    note = rlstats.summarize_runs(_budgets(dqn=False), FORMULA, step="step").attrs["rlstats_notes"][-1]
    assert note.endswith("(runs end between steps 20k and 30k (at 20k on Acrobot-v1, 30k on CartPole-v1))")
    # A common grid summarises every run at one step.
    common = rlstats.summarize_runs(data, FORMULA, step="step", steps=[5_000])
    assert "every run ends at step 5k" in common.attrs["rlstats_notes"][-1]
    np.testing.assert_array_equal(common["score"], common["seed"] + (common["agent"] == "PPO") + 5.0)


def _first_crossings(data, threshold):
    """Independent: the first logged step at or above ``threshold`` of each run, NaN if none (pandas)."""
    return data.groupby(["agent", "task", "seed"])[["score", "step"]].apply(  # the oldest pandas lacks include_groups
        lambda g: g.loc[g["score"] >= threshold, "step"].min())


def test_time_to_threshold_reads_each_runs_own_logged_steps():
    rng = np.random.default_rng(4)
    for design in range(12):  # runs logged at their own irregular steps, as monitor.csv logs episodes
        rows = []
        for agent in ("a", "b"):
            for seed in range(3):
                steps = np.cumsum(rng.integers(100, 3_000, size=rng.integers(5, 15)))
                rows += [(agent, "t", seed, int(s), float(v)) for s, v in zip(steps, rng.normal(size=steps.size)
                                                                             .cumsum())]
        data = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
        threshold = float(data.groupby(["agent", "seed"])["score"].max().median())
        got = rlstats.summarize_runs(data, FORMULA, step="step", how="time_to_threshold", threshold=threshold)
        notes = got.attrs["rlstats_notes"]  # the same call's (it was made twice, once for its notes)
        expected = _first_crossings(data, threshold)
        # restricted to the horizon, the last step every run logs (audit s28 censor28): min(first crossing, horizon)
        horizon = data.groupby(["agent", "task", "seed"])["step"].max().min()
        by_then = expected <= horizon
        got = got.set_index(["agent", "task", "seed"])
        assert got["score"].dtype == np.int64
        assert (got["censored"] == ~by_then).all()
        np.testing.assert_array_equal(got["score"], expected.where(by_then, horizon).astype(np.int64))
        assert "the first of each run's own logged steps at which the run reached" in notes[-1]
    # A run that reaches the threshold at its last logged step reached it; b's run, not there by the horizon 30,
    # counts it too (restricted time, audit s28 censor28: it was 41, one interval after the latest end).
    last = pd.DataFrame({"agent": ["a"] * 3 + ["b"] * 2, "task": "t", "seed": 0, "step": [10, 20, 30, 7, 31],
                         "score": [0.0, 0.0, 1.0, 0.0, 0.0]})
    got = rlstats.summarize_runs(last, FORMULA, step="step", how="time_to_threshold", threshold=1.0)
    assert got["score"].tolist() == [30, 30] and got["censored"].tolist() == [False, True]


def test_auc_over_each_tasks_own_budget():
    data = _budgets(dqn=False)
    runs = rlstats.summarize_runs(data, FORMULA, step="step", how="auc")
    expected = data.groupby(["agent", "task", "seed"])[["score", "step"]].apply(
        lambda g: integrate.trapezoid(g["score"], g["step"]))
    np.testing.assert_allclose(runs.set_index(["agent", "task", "seed"])["score"], expected.loc[
        list(runs.set_index(["agent", "task", "seed"]).index)], rtol=1e-12)
    assert ("area under the curve over steps 5k to 20k on Acrobot-v1, 5k to 30k on CartPole-v1"
            in runs.attrs["rlstats_notes"][-1])
    height = rlstats.summarize_runs(data, FORMULA, step="step", how="auc", normalize_auc=True)
    width = np.where(runs["task"] == "CartPole-v1", 25_000, 15_000)
    np.testing.assert_allclose(height["score"], runs["score"] / width, rtol=1e-12)


@pytest.mark.parametrize("options, phrase", [
    ({"how": "final", "threshold": 1.0}, "threshold= is read only by how='time_to_threshold', but how='final'"),
    ({"how": "max", "threshold": float("nan")}, "threshold= is read only by how='time_to_threshold'"),
    ({"how": "final", "normalize_auc": True}, "normalize_auc= is read only by how='auc', but how='final'"),
    ({"how": "auc", "k": 3}, "k= is read only by how='last_k_mean', but how='auc'"),
    ({"how": "auc", "normalize_auc": "no"}, "normalize_auc must be True or False, got 'no'"),
    ({"how": "time_to_threshold", "threshold": float("nan")}, "threshold= must be a finite number; it is nan"),
])
def test_summary_options_are_checked(curves, options, phrase):
    with pytest.raises(OptionError) as error:
        rlstats.summarize_runs(curves, FORMULA, step="step", **options)
    assert phrase in str(error.value)


# ----------------------------------------------------------------------------- the real SB3 logs


def test_real_sb3_logs_align_per_task_and_summarise_with_their_dtypes(sb3):
    aligned = rlstats.align_steps(sb3, FORMULA, step="step")
    assert aligned["step"].dtype == np.int64 and aligned["seed"].dtype == np.int64
    ends = aligned.groupby("task")["step"].max()
    assert ends.to_dict() == {"Acrobot-v1": 20_000, "CartPole-v1": 20_000}  # DQN stops at 20k on CartPole
    assert aligned["score"].notna().all()
    final = rlstats.summarize_runs(sb3, FORMULA, step="step")
    expected = sb3.groupby(["agent", "task", "seed"])["score"].last()
    assert final.set_index(["agent", "task", "seed"])["score"].to_dict() == expected.to_dict()
    assert len(sb3.merge(final, on=["agent", "task", "seed"])) == len(sb3)
    note = final.attrs["rlstats_notes"][-1]
    assert "runs end between steps 20k and 30k" in note and "DQN" in note  # DQN's 20k among 30k runs is named


# ----------------------------------------------------------------------------- [audit s7c: runs] steps= and drops


def _sawtooth():
    """Agents A, B x 2 seeds on task 't', logged at steps 0, 10, ..., 90: score = step % 40 + 10 seed (+100 for B),
    except 1000 at step 90 (outside the range [15, 55] used below)."""
    rows = [(agent, "t", seed, s, 1000.0 if s == 90 else s % 40 + 10.0 * seed + 100.0 * (agent == "B"))
            for agent in "AB" for seed in range(2) for s in range(0, 100, 10)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_logged_value_summaries_with_steps_read_the_logged_steps_in_its_range():
    data = _sawtooth()
    # By hand: within steps= 15 to 55 each run logged 20, 30, 40, 50 -> 20, 30, 0, 10 (+ 10 seed, + 100 for B);
    # on the grid the runs would read 10 (step 10's value at 15) and 10 (step 50's at 55).
    offset = np.array([0.0, 10.0, 100.0, 110.0])
    top = rlstats.summarize_runs(data, FORMULA, step="step", how="max", steps=[15, 55])
    np.testing.assert_array_equal(top["score"], 30.0 + offset)
    assert top.attrs["rlstats_notes"][-1] == ("score: the largest value of each run (steps 20 to 50 logged within "
                                              "steps= 15 to 55; every run's last logged step in that range is 50)")
    assert "how='max' reads each run's logged values within the range of steps= (steps 15 to 55)" in \
        top.attrs["rlstats_notes"][-2]
    window = rlstats.summarize_runs(data, FORMULA, step="step", how="last_k_mean", k=3, steps=[15, 55])
    np.testing.assert_allclose(window["score"], (30.0 + 0.0 + 10.0) / 3 + offset)
    assert "the mean of each run's last 3 logged values within steps= 15 to 55" in window.attrs["rlstats_notes"][-1]
    # Threshold 45: A's runs never reach it in range (their 1000 at step 90 is outside), B's reach it at step 20;
    # the censored ones get the horizon, the last step every run logs in the range, 50 (audit s28 censor28: 50 + 10).
    hit = rlstats.summarize_runs(data, FORMULA, step="step", how="time_to_threshold", threshold=45, steps=[15, 55])
    assert hit["score"].tolist() == [50, 50, 20, 20] and hit["censored"].tolist() == [True, True, False, False]
    assert "2 of 4 runs never reached it by their task's horizon, the last step every run of the task logs in that " \
        "range (step 50), and count that step" in hit.attrs["rlstats_notes"][-1]
    # Independent: pandas over the rows logged in [15, 55].
    inside = data[data["step"].between(15, 55)].groupby(["agent", "seed"])["score"]
    np.testing.assert_array_equal(top["score"], inside.max().to_numpy())
    np.testing.assert_allclose(window["score"], inside.apply(lambda v: v.tail(3).mean()).to_numpy())
    with pytest.raises(DesignError, match=r"4 runs have fewer than k=5 logged values within the range of steps="):
        rlstats.summarize_runs(data, FORMULA, step="step", how="last_k_mean", k=5, steps=[15, 55])
    with pytest.raises(DesignError, match=r"4 runs have no logged step within steps= \(91 to 95;"):
        rlstats.summarize_runs(data, FORMULA, step="step", how="max", steps=[91, 95])


def _gappy_curves():
    """score = step + 1000 seed (+100 for B) at steps 0, ..., 90; A seed 0 misses steps 50 and 60, A seed 1 step 70."""
    rows = [(agent, "t", seed, s, s + 1000.0 * seed + 100.0 * (agent == "B"))
            for agent in "AB" for seed in range(2) for s in range(0, 100, 10)]
    data = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    data.loc[[5, 6, 17], "score"] = np.nan
    return data


def test_align_steps_leaves_out_the_grid_steps_of_dropped_rows():
    data = _gappy_curves()
    out = rlstats.align_steps(data, FORMULA, step="step", na_action="drop")
    # R's na.omit: the 3 dropped rows are not in the output (40 - 3 rows), the others are as logged.
    assert len(out) == 37
    kept = data.dropna().reset_index(drop=True)
    pd.testing.assert_frame_equal(out[["agent", "task", "seed", "step", "score"]], kept, check_dtype=False)
    notes = out.attrs["rlstats_notes"]
    assert notes[-1] == ("3 grid steps of 2 runs left out of the aligned rows because their value would come from a row "
                         "dropped by na_action='drop' (a dropped row is not used, nor filled in by the value of the "
                         "step before): run '0' of agent 'A' on task 't' at step 50; run '0' of agent 'A' on task 't' "
                         "at step 60; run '1' of agent 'A' on task 't' at step 70")
    # By hand on the grid 45, 55, 65: by "last", A seed 0 would read its dropped 50 at 55 and 60 at 65 (2 cells);
    # by "linear", also 45 (between 40 and the dropped 50), and A seed 1's 65 (between 60 and the dropped 70): 4.
    last = rlstats.align_steps(data, FORMULA, step="step", na_action="drop", steps=[45, 55, 65])
    assert len(last) == 12 - 2
    assert not ((last["agent"] == "A") & (last["seed"] == 0) & last["step"].isin([55, 65])).any()
    np.testing.assert_array_equal(last.loc[(last["agent"] == "A") & (last["seed"] == 1), "score"], [1040, 1050, 1060])
    linear = rlstats.align_steps(data, FORMULA, step="step", na_action="drop", steps=[45, 55, 65], method="linear")
    assert len(linear) == 12 - 4 and "4 grid steps of 2 runs left out" in linear.attrs["rlstats_notes"][-2]
    # audit s17: none of 45, 55, 65 is logged, so each of the 8 values kept is interpolated, and the note says so
    assert linear.attrs["rlstats_notes"][-1].startswith("8 values of 3 runs interpolated between the run's "
                                                        "evaluations around a grid step it did not log: ")
    np.testing.assert_array_equal(linear.loc[(linear["agent"] == "A") & (linear["seed"] == 1), "score"], [1045, 1055])
    # Without dropped rows nothing is left out.
    assert len(rlstats.align_steps(data.dropna(subset=["score"]).query("agent == 'B'").pipe(
        lambda b: pd.concat([b, b.assign(agent="C")])), FORMULA, step="step")) == 40


def test_summaries_on_a_grid_do_not_read_dropped_rows():
    """summarize_runs on a grid (how='final' with steps=, how='auc') reads no value that would come from a row
    dropped by na_action='drop', says so, and refuses an area that would need one."""
    data = _gappy_curves()
    # grid 45, 55, 65 by "last": A seed 0 would read its dropped 50 at 55 and 60 at 65; A seed 1 reads 40, 50, 60
    final = rlstats.summarize_runs(data, FORMULA, step="step", how="final", steps=[45, 55, 65], na_action="drop")
    by_run = final.set_index(["agent", "seed"])["score"]
    assert by_run[("A", 0)] == 40.0  # its last readable grid step is 45, holding step 40's score
    assert by_run[("A", 1)] == 1060.0 and by_run[("B", 0)] == 160.0 and by_run[("B", 1)] == 1160.0
    note = [n for n in final.attrs["rlstats_notes"] if "not read because" in n]
    assert note == ["2 grid steps of 1 run not read because their value would come from a row dropped by "
                    "na_action='drop' (a dropped row is not used, nor filled in by the value of the step before): "
                    "run '0' of agent 'A' on task 't' at step 55; run '0' of agent 'A' on task 't' at step 65"]
    with pytest.raises(DesignError, match=r"2 grid steps of task 't' would read a row dropped by na_action="):
        rlstats.summarize_runs(data, FORMULA, step="step", how="auc", steps=[45, 55, 65], na_action="drop")
    # without dropped rows the same grid reads every cell
    clean = rlstats.summarize_runs(data.fillna(0.0), FORMULA, step="step", how="final", steps=[45, 55, 65])
    assert not any("not read because" in n for n in clean.attrs["rlstats_notes"])


def test_a_column_unique_to_each_row_does_not_hide_curves():
    """Curves (a seed logged at 3 steps) beside a column unique to each row named like a run id (trial): the run
    logged at several steps is the evidence, whichever column comes first (review s7: the unique column let them
    through as 9 runs a cell)."""
    rows = [(a, t, s, step, i, float(step + s)) for i, (a, t, s, step) in enumerate(
        (a, t, s, step) for a in "AB" for t in ("t1", "t2") for s in range(3) for step in (0, 10, 20))]
    for columns in (["agent", "task", "seed", "step", "trial", "score"], ["agent", "task", "trial", "step", "seed",
                                                                          "score"]):
        df = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "trial", "score"])[columns]
        with pytest.raises(DesignError, match=r"column 'step' takes 3 values within run seed=0 of agent 'A' on task "
                                              r"'t1' \(3 rows\)"):
            rlstats.task_table(df, "score ~ agent | task")
