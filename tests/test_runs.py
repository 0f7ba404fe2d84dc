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
    rlstats.build(data, "score ~ agent | task")  # an unknown name alone is not a step
    with pytest.raises(DesignError, match="column 't' takes 6 values"):
        rlstats.build(data, "score ~ agent | task", step="t")


def test_one_row_per_run_with_a_constant_step_is_fine(curves):
    last = curves[curves["step"] == curves["step"].max()]
    res = rlstats.compare(last, FORMULA)
    assert res.nobs == 24


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
    runs = rlstats.summarize_runs(shuffled, FORMULA, step="step", how=how, k=3)
    expected = _independent(curves, how)
    got = runs.set_index(["agent", "task", "seed"])["score"]
    assert len(runs) == 24
    for key, value in expected.items():
        assert got.loc[(str(key[0]), str(key[1]), str(key[2]))] == pytest.approx(value, rel=1e-12)


def test_normalised_auc_is_the_average_height(curves):
    plain = rlstats.summarize_runs(curves, FORMULA, step="step", how="auc")
    height = rlstats.summarize_runs(curves, FORMULA, step="step", how="auc", normalize_auc=True)
    np.testing.assert_allclose(height["score"], plain["score"] / 1_000_000)
    assert "divided by the step range" in height.attrs["rlstats_notes"][-1]


def test_the_rule_travels_into_print_and_report(curves):
    runs = rlstats.summarize_runs(curves, FORMULA, step="step", how="auc")
    res = rlstats.compare(runs, FORMULA)
    assert "area under the curve over steps 0 to 1M" in str(res)
    assert "Score: the area under the curve over steps 0 to 1M" in res.report()
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
        row = got.loc[(str(key[0]), str(key[1]), str(key[2]))]
        assert row["score"] == (step if reached[key] else 1_000_000 + 200_000)  # one logging interval after
    note = runs.attrs["rlstats_notes"][-1]
    assert f"{(~reached).sum()} of 24 runs never reached it" in note and "censored" in note


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
    assert "last value at or before" in got.attrs["rlstats_notes"][-1]


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
    assert "grid of 6 steps from 0 to 1M" in got.attrs["rlstats_notes"][-1]


def test_a_default_grid_of_more_than_the_bound_is_refused_before_it_is_made(curves):
    far = curves.assign(step=curves["step"] // 200_000)  # steps 0 to 5, one apart
    far.loc[far.index[-1], "step"] = 10**9
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
