"""polars and pyarrow tables and rliable's score dicts give the same results as the pandas frame (rlstats.interop)."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import NOTES_ATTR

pl = pytest.importorskip("polars", reason="polars is not installed (optional; the test extra has it)")
pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (optional; the test extra has it)")

FORMULA = "score ~ agent | task/seed"
CONVERSIONS = {"polars": pl.from_pandas, "pyarrow": pa.Table.from_pandas}


@pytest.fixture(scope="module")
def runs():
    return rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)


def _without_conversion_note(notes):
    return tuple(n for n in notes if "converted from a" not in n)


@pytest.mark.parametrize("library", CONVERSIONS)
def test_polars_and_pyarrow_give_the_pandas_results(runs, library):
    other = CONVERSIONS[library](runs)
    kind = "DataFrame" if library == "polars" else "Table"
    calls = {
        "compare": lambda d: rlstats.compare(d, "score ~ agent | task"),
        "bootstrap": lambda d: rlstats.bootstrap(d, FORMULA, n_resamples=200, rng=3, normalize=False),
        "task_table": lambda d: rlstats.task_table(d, FORMULA, n_resamples=200, rng=3),
    }
    for name, call in calls.items():
        expected, got = call(runs), call(other)
        pd.testing.assert_frame_equal(got.tidy(), expected.tidy(), check_exact=True, obj=name)
        assert got.glance().equals(expected.glance()), name
        assert got.notes[0] == f"data converted from a {library} {kind} to a pandas DataFrame (72 rows)", name
        assert _without_conversion_note(got.notes) == expected.notes, name


def test_the_other_functions_taking_a_frame_take_polars_too(runs):
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=3, steps=4, rng=0)
    summary = rlstats.summarize_runs(pl.from_pandas(curves), FORMULA, step="step", how="auc")
    expected = rlstats.summarize_runs(curves, FORMULA, step="step", how="auc")
    # polars' Categorical has no declared order, so the ordered categoricals come back unordered (same values)
    pd.testing.assert_frame_equal(summary, expected, check_categorical=False, check_dtype=False)
    assert summary["agent"].tolist() == expected["agent"].tolist()
    assert summary.attrs[NOTES_ATTR][0].startswith("data converted from a polars DataFrame")
    scaled = rlstats.normalize(pa.Table.from_pandas(runs), "minmax")
    pd.testing.assert_frame_equal(scaled, rlstats.normalize(runs, "minmax"))
    assert scaled.attrs[NOTES_ATTR][0] == "data converted from a pyarrow Table to a pandas DataFrame (72 rows)"


def test_polars_columns_become_the_pandas_columns():
    frame = pl.DataFrame({"agent": pl.Series(["b", "a", None], dtype=pl.Enum(["b", "a"])),
                          "task": pl.Series(["x", "y", "x"], dtype=pl.Categorical),
                          "seed": [0, None, 2], "score": [1.5, 2.5, None]})
    out = rlstats.interop.as_pandas(frame)
    assert out["agent"].cat.categories.tolist() == ["b", "a"]  # the Enum's order, not sorted
    assert out["agent"].isna().tolist() == [False, False, True]
    assert out["task"].tolist() == ["x", "y", "x"] and out["task"].cat.categories.tolist() == ["x", "y"]
    # a missing int: pandas' nullable Int64 (s18: it was float64, which printed integer labels as '1.0')
    assert str(out["seed"].dtype) == "Int64"
    np.testing.assert_array_equal(out["seed"].to_numpy(dtype=float, na_value=np.nan), [0.0, np.nan, 2.0])
    np.testing.assert_array_equal(out["score"].to_numpy(), [1.5, 2.5, np.nan])
    assert rlstats.interop.as_pandas(out) is out  # pandas passes through, with no note


def _long_by_hand(scores, tasks):
    rows = [(agent, tasks[j], i, float(values[i, j])) for agent, values in scores.items()
            for i in range(values.shape[0]) for j in range(values.shape[1])]
    frame = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    # the agents in the dict's order and the tasks in the list's, as a pandas user would declare them
    return frame.astype({"agent": pd.CategoricalDtype([*scores]), "task": pd.CategoricalDtype(tasks)})


def test_from_rliable_gives_the_long_frame_and_the_same_bootstrap():
    rng = np.random.default_rng(7)
    tasks = ["Pong", "Breakout", "Seaquest", "Alien"]
    scores = {"DQN": rng.normal(1.0, 0.5, (5, 4)), "C51": rng.normal(1.3, 0.5, (5, 4)),
              "Rainbow": rng.normal(1.6, 0.5, (3, 4))}  # agents may have different numbers of runs
    frame = rlstats.from_rliable(scores, tasks=tasks)
    by_hand = _long_by_hand(scores, tasks)
    assert frame.columns.tolist() == ["agent", "task", "seed", "score"] and len(frame) == 13 * 4
    assert frame["agent"].cat.categories.tolist() == ["DQN", "C51", "Rainbow"]  # the dict's order
    assert frame["task"].cat.categories.tolist() == tasks
    merged = frame.astype({"agent": str, "task": str}).merge(by_hand, on=["agent", "task", "seed"])
    np.testing.assert_array_equal(merged["score_x"], merged["score_y"])
    assert len(merged) == len(frame)
    expected = rlstats.bootstrap(by_hand, FORMULA, n_resamples=500, rng=11, normalize=False)
    got = rlstats.bootstrap(frame, FORMULA, n_resamples=500, rng=11, normalize=False)
    tidy, want = (res.tidy().astype({"agent": str}).sort_values(["agent", "metric"]).reset_index(drop=True)
                  for res in (got, expected))
    pd.testing.assert_frame_equal(tidy, want, check_exact=True)
    # the aggregate of each agent over tasks, by hand: the mean over every run and task
    means = got.tidy().query("metric == 'mean'").set_index("agent")["estimate"]
    for agent, values in scores.items():
        assert means[agent] == pytest.approx(values.mean(), rel=1e-12)


def test_from_rliable_curves_and_unnamed_tasks():
    values = np.arange(2 * 3 * 4, dtype=float).reshape(2, 3, 4)
    frame = rlstats.from_rliable({"A": values}, steps=[10, 20, 30, 40])
    assert frame.columns.tolist() == ["agent", "task", "seed", "step", "score"]
    row = frame.query("seed == 1 and task == 2 and step == 30")
    assert row["score"].tolist() == [values[1, 2, 2]]
    assert frame.attrs[NOTES_ATTR] == ("tasks named by their position in the rliable arrays, 0 to 2 (tasks= names "
                                       "them)",)


def test_adastop_takes_a_polars_batch():
    batch = pd.DataFrame({"agent": np.repeat(["a", "b"], 5), "score": np.random.default_rng(0).normal(size=10)})
    decisions = [rlstats.AdaStop(["a", "b"], n=5, K=2, n_resamples=200, rng=0).update(b)
                 for b in (batch, pl.from_pandas(batch))]
    pd.testing.assert_frame_equal(decisions[1], decisions[0])
