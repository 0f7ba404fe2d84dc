"""Issue 32 item 2: '| task/run/seed' says seeds are nested in runs; the front door averages them per run."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import design_of
from rlstats.errors import FormulaError
from rlstats.formula import parse


def _frame(seed=0, unequal=False):
    rng = np.random.default_rng(seed)
    rows = [(a, t, f"r{r}", s, rng.normal() + (a == "b")) for a in "abc" for t in ("t1", "t2", "t3")
            for r in range(4) for s in range(3 if not unequal or r else 2)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "seed", "score"])


def _means(df):
    return df.groupby(["agent", "task", "run"], sort=False).score.mean().reset_index()


def test_parse_records_outer_and_seed():
    f = parse("score ~ agent | task/tuning_run/seed")
    assert (f.blocks, f.outer, f.replicate) == ("task", "tuning_run", "seed")
    assert f.columns == ("score", "agent", "task", "tuning_run", "seed")
    assert parse("score ~ agent | task/seed").outer is None


def test_cell_means_equal_pandas_groupby():
    df = _frame(unequal=True)
    design = design_of(df, "score ~ agent | task/run/seed")
    reference = _means(df).groupby(["agent", "task"], sort=False).score.apply(sorted)
    got = pd.DataFrame({"agent": np.asarray(design.agents)[design.agent],
                        "task": np.asarray(design.tasks)[design.task], "y": design.y})
    got = got.groupby(["agent", "task"], sort=False).y.apply(sorted)
    for key in reference.index:
        np.testing.assert_allclose(got[key], reference[key], rtol=0, atol=1e-12)
    assert design.nobs == 3 * 3 * 4
    note = design.notes[0]
    assert "averaged within each run: the run is the unit, 4 runs of 2-3 seeds per agent and task" in note
    assert "unequal" in note


@pytest.mark.parametrize("call", [
    lambda d, f: rlstats.compare(d, f).p_value,
    lambda d, f: rlstats.bootstrap(d, f, rng=1).tidy()["estimate"].to_numpy(),
    lambda d, f: rlstats.task_table(d, f).tidy().select_dtypes("number").to_numpy(),
    lambda d, f: rlstats.percentiles(d, f, rng=1).tidy()["estimate"].to_numpy(),
])
def test_backends_equal_the_pre_averaged_frame(call):
    df = _frame()
    before = df.copy()
    nested = call(df, "score ~ agent | task/run/seed")
    np.testing.assert_array_equal(nested, call(_means(df), "score ~ agent | task/run"))
    pd.testing.assert_frame_equal(df, before)


def test_result_states_the_unit():
    res = rlstats.compare(_frame(), "score ~ agent | task/run/seed")
    assert "seeds ('seed') averaged within each run: the run is the unit, 4 runs of 3 seeds" in str(res)


def test_seeds_repeating_in_runs_under_task_seed_are_the_users_statement():
    df = _frame()
    df["seed"] = df["run"] + "-" + df["seed"].astype(str)
    assert design_of(df, "score ~ agent | task/seed").nobs == len(df)


def test_curves_refused():
    df = _frame().assign(step=1)
    with pytest.raises(rlstats.errors.OptionError, match="step= cannot be combined"):
        design_of(df, "score ~ agent | task/run/seed", step="step")


def test_three_levels_refused():
    with pytest.raises(FormulaError, match="nests 3 levels"):
        parse("score ~ agent | task/a/b/c")


def test_why_treating_nested_seeds_as_independent_is_wrong():
    """Two equal agents, a tuning-run random effect (sd 1) and seed noise (sd 0.3): 5 runs x 10 seeds each.

    Welch's test on 50 'independent' seeds rejects far more often than 5%; on the 5 run means it holds its level.
    """
    from scipy import stats
    rng = np.random.default_rng(2026)
    n_sets, runs, seeds = 400, 5, 10
    y = (rng.normal(size=(n_sets, 2, runs, 1)) + 0.3 * rng.normal(size=(n_sets, 2, runs, seeds)))
    pooled = stats.ttest_ind(y[:, 0].reshape(n_sets, -1), y[:, 1].reshape(n_sets, -1), axis=1,
                             equal_var=False).pvalue
    means = y.mean(axis=3)
    per_run = stats.ttest_ind(means[:, 0], means[:, 1], axis=1, equal_var=False).pvalue
    size_pooled, size_run = (pooled < 0.05).mean(), (per_run < 0.05).mean()
    assert size_pooled > 0.3      # about 0.5 here: seeds of a run are not independent evidence
    assert size_run < 0.05 + 3 * np.sqrt(0.05 * 0.95 / n_sets)
