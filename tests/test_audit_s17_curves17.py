"""Audit s17 (curves17): a grid step a run did not log, inside its logged range, gets a value from the run's other
evaluations (the previous one by align "last", interpolation by "linear"); the notes count those values and name the
first runs and steps, only where it happened. A grid step before a run's first evaluation stays missing, counted."""

import numpy as np
import pandas as pd
import pytest

import rlstats

FORMULA = "score ~ agent | task/seed"
KEYS = ["agent", "task", "seed"]


def _notes(frame):
    return list(frame.attrs["rlstats_notes"])


def _said(frame):
    """The notes on values taken at a grid step a run did not log."""
    return [n for n in _notes(frame) if "filled from the run's" in n or "interpolated between the run's" in n]


def _ffilled(df, grid):
    """Independent: each run's values on ``grid`` by pandas (reindex + ffill within the run's logged range), and the
    mask of values that were not logged at their step but filled (groupby + ffill)."""
    out = []
    for key, run in df.groupby(KEYS, observed=True, sort=True):
        series = run.set_index("step")["score"].astype(float)
        on = series.reindex(sorted(set(series.index) | set(grid))).ffill().reindex(grid)
        inside = (np.asarray(grid) >= series.index.min()) & (np.asarray(grid) <= series.index.max())
        logged = np.isin(grid, series.index)
        out.append(pd.DataFrame({**dict(zip(KEYS, key)), "step": grid, "score": np.where(inside, on, np.nan),
                                 "filled": inside & ~logged}))
    return pd.concat(out, ignore_index=True)


@pytest.fixture
def sb3_cartpole(sb3):
    return sb3[sb3["task"] == "CartPole-v1"]


def test_sb3_missing_evaluation_is_counted_and_named(sb3_cartpole):
    cp = sb3_cartpole
    gone = cp[(cp["agent"] == "PPO") & (cp["seed"].astype(str) == "2") & (cp["step"] == 15000)].index
    assert len(gone) == 1
    data = cp.drop(gone)
    aligned = rlstats.align_steps(data, FORMULA, step="step")
    grid = sorted(aligned["step"].unique())
    assert grid == [5000, 10000, 15000, 20000]
    expected = _ffilled(data[data["step"] <= 20000], grid)
    got = aligned.sort_values(KEYS + ["step"]).reset_index(drop=True)
    np.testing.assert_allclose(got["score"], expected["score"])  # the value filled is 10k's
    assert expected["filled"].sum() == 1
    ppo2 = got[(got["agent"] == "PPO") & (got["seed"].astype(str) == "2")].set_index("step")["score"]
    assert ppo2[15000] == ppo2[10000] == pytest.approx(423.0)
    said = _said(aligned)
    assert said == ["1 value of 1 run filled from the run's previous evaluation (a grid step it did not log): "
                    "run '2' of agent 'PPO' on task 'CartPole-v1' at step 15k"]
    res = rlstats.curves(data, FORMULA, step="step", n_resamples=50, rng=0)
    assert said[0] in res.notes and said[0] in str(res)
    runs = rlstats.summarize_runs(data, FORMULA, step="step", how="auc")
    assert said[0] in _notes(runs)
    full = rlstats.align_steps(cp, FORMULA, step="step")  # nothing filled, nothing said
    assert not _said(full)


def _simulated():
    df = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=6, rng=0)
    drop = ((df["agent"] == "agent_1") & (df["task"] == "task_01") & (df["seed"] == 1) & (df["step"] == 400000)) | (
        (df["agent"] == "agent_2") & (df["task"] == "task_02") & (df["seed"] == 0)
        & df["step"].isin([200000, 600000]))
    return df, df[~drop]


def test_simulated_filled_values_counted_by_each_method():
    df, data = _simulated()
    before = data.copy()
    aligned = rlstats.align_steps(data, FORMULA, step="step")
    pd.testing.assert_frame_equal(data, before)
    grid = sorted(df["step"].unique())
    expected = _ffilled(data, grid)
    got = aligned.sort_values(KEYS + ["step"]).reset_index(drop=True)
    np.testing.assert_allclose(got["score"], expected["score"])
    assert expected["filled"].sum() == 3
    said = _said(aligned)
    assert said == ["3 values of 2 runs filled from the run's previous evaluation (a grid step it did not log): "
                    "run '1' of agent 'agent_1' on task 'task_01' at step 400k; run '0' of agent 'agent_2' on task "
                    "'task_02' at step 200k; run '0' of agent 'agent_2' on task 'task_02' at step 600k"]
    linear = rlstats.align_steps(data, FORMULA, step="step", method="linear")
    said = _said(linear)
    assert said and said[0].startswith("3 values of 2 runs interpolated between the run's evaluations around a grid "
                                       "step it did not log: run '1' of agent 'agent_1' on task 'task_01' at step 400k")
    # independent: pandas' index interpolation on the run missing 400k
    run = data[(data["agent"] == "agent_1") & (data["task"] == "task_01") & (data["seed"] == 1)]
    want = run.set_index("step")["score"].reindex(grid).interpolate(method="index")[400000]
    lin = linear[(linear["agent"] == "agent_1") & (linear["task"] == "task_01") & (linear["seed"] == 1)]
    assert lin.set_index("step")["score"][400000] == pytest.approx(want, rel=1e-12)
    res = rlstats.curves(data, FORMULA, step="step", align="linear", n_resamples=100, rng=0)
    assert any(n.startswith("3 values of 2 runs interpolated") for n in res.notes)
    final = rlstats.summarize_runs(data, FORMULA, step="step", how="final", steps=grid)
    assert not _said(final)  # every run's last grid step is logged
    final = rlstats.summarize_runs(data, FORMULA, step="step", how="final", steps=grid[:4])  # 0 to 600k
    # only the values read count: the final value at 600k of agent_2's run 0 on task_02 (its 200k is not read)
    assert _said(final) == [
        "1 value of 1 run filled from the run's previous evaluation (a grid step it did not log): run '0' of agent "
        "'agent_2' on task 'task_02' at step 600k"]
    want = expected[(expected["agent"] == "agent_2") & (expected["task"] == "task_02") & (expected["seed"] == 0)]
    got = final[(final["agent"] == "agent_2") & (final["task"] == "task_02") & (final["seed"] == 0)]["score"]
    assert got.item() == want.set_index("step")["score"][600000] == want.set_index("step")["score"][400000]


def test_first_step_missing_is_counted_not_filled():
    df = rlstats.datasets.simulate_curves(agents=2, tasks=1, seeds=3, steps=5, rng=0)
    data = df[~((df["agent"] == "agent_1") & (df["seed"] == 2) & (df["step"] == 0))]
    aligned = rlstats.align_steps(data, FORMULA, step="step")
    row = aligned[(aligned["agent"] == "agent_1") & (aligned["seed"] == 2) & (aligned["step"] == 0)]
    assert row["score"].isna().all() and len(row) == 1  # never a value from another step
    assert not _said(aligned)
    assert ("1 value of 1 run missing, before the run's first or after its last evaluation (never extrapolated): "
            "run '2' of agent 'agent_1' on task 'task_01' at step 0") in _notes(aligned)
    with pytest.raises(rlstats.DesignError, match="1 run does not cover the steps 0 to 1M"):
        rlstats.summarize_runs(data, FORMULA, step="step", how="auc")


def test_rows_dropped_by_na_action_are_not_counted_as_filled():
    """A cell left out because it would read a dropped row is not also counted as filled; summarize_runs('final')
    counts only the value it reads (by hand: A's run 0 logs 0..90 by 10 with 50 and 60 dropped; on the grid 45, 55,
    65 its 55 and 65 are not read, so its final value is 45's, filled from 40)."""
    steps = np.arange(0, 100, 10)
    rows = [("A", s, st, 1000.0 * s + st) for s in (0, 1) for st in steps]
    rows += [("B", s, st, 100.0 + 1000.0 * s + st) for s in (0, 1) for st in steps]
    data = pd.DataFrame(rows, columns=["agent", "seed", "step", "score"]).assign(task="t")
    data.loc[(data["agent"] == "A") & (data["seed"] == 0) & data["step"].isin([50, 60]), "score"] = np.nan
    aligned = rlstats.align_steps(data, FORMULA, step="step", na_action="drop", steps=[45, 55, 65])
    assert len(aligned) == 10 and _notes(aligned)[-1].startswith(
        "10 values of 4 runs filled from the run's previous evaluation (a grid step it did not log): run '0' of agent "
        "'A' on task 't' at step 45; ")
    final = rlstats.summarize_runs(data, FORMULA, step="step", how="final", steps=[45, 55, 65], na_action="drop")
    assert _said(final)[0].startswith("4 values of 4 runs filled")
    got = final.set_index(["agent", "seed"])["score"]
    assert got[("A", 0)] == 40.0 and got[("A", 1)] == 1060.0 and got[("B", 0)] == 160.0


def test_float_grid_rounding_is_not_filling():
    """np.arange(0, 1, 0.1) holds 0.30000000000000004 where the runs log 0.3: the value read is that step's own, so
    nothing is said to be filled, by either method; a grid step between evaluations is."""
    df = pd.DataFrame([(a, s, i / 10, float(i + s + (a == "B"))) for a in "AB" for s in range(2) for i in range(10)],
                      columns=["agent", "seed", "step", "score"]).assign(task="t")
    for method in ("last", "linear"):
        aligned = rlstats.align_steps(df, FORMULA, step="step", steps=np.arange(0, 0.95, 0.1), method=method)
        assert np.allclose(aligned["score"], df.sort_values(KEYS + ["step"])["score"])
        assert not _said(aligned)
        between = rlstats.align_steps(df, FORMULA, step="step", steps=[0.0, 0.25, 0.5], method=method)
        assert _said(between)[0].startswith("4 values of 4 runs")
