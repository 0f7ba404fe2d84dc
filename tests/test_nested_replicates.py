"""Issue 32 item 2: '| task/run/seed' says seeds are nested in runs; the front door averages them per run."""

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import design_of
from rlstats.errors import FormulaError
from rlstats.formula import parse
from rlstats.methods import DECLARATIONS, backend


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

    Welch's t-test (scipy's, not a back end of rlstats) on 50 'independent' seeds rejects far more often than 5%
    (about 0.56 here); on the 5 run means it holds its level (0.04). The blocked rank test, compare()'s default,
    is checked the same way below (test_the_rank_test_on_run_means_keeps_its_level_and_on_seeds_does_not).
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


# ------------------------------------------------------------------ who reads the nesting (issue 32, one parse)
def test_a_back_end_that_reads_the_nesting_gets_every_seed():
    df = _frame(unequal=True)
    design = design_of(df, "score ~ agent | task/run/seed", reads_nesting=True, extra_columns=["run"])
    assert design.nobs == len(df) and not any("averaged" in note for note in design.notes)
    assert (design.formula.outer, design.formula.replicate) == (None, None)
    order = design.row_position
    np.testing.assert_array_equal(design.y, df["score"].to_numpy()[order])
    np.testing.assert_array_equal(design.extra["run"], df["run"].to_numpy()[order])
    np.testing.assert_array_equal(design.extra["seed"], df["seed"].to_numpy()[order])


def test_tuning_reads_the_nesting_itself_through_every_door():
    df = _frame()
    options = {"views": ["best_set", "complete"], "n_resamples": 300, "rng": 4}
    direct = rlstats.tuning(df, "score ~ agent | task/run/seed", **options)
    through_compare = rlstats.compare(df, "score ~ agent | task/run/seed", method="tuning", **options)
    given = rlstats.tuning(df, "score ~ agent | task/seed", config="run", **options)
    for res in (through_compare, given):
        pd.testing.assert_frame_equal(res.tidy(), direct.tidy())
    # every seed is a run of its configuration (the tuning run), none averaged away
    assert set(direct.best_set()["n_runs"]) == {3}
    assert not any("averaged" in note for note in direct.notes)
    assert "seeds are nested in 'run', which is the unit (as config='run')" in str(direct)


@pytest.mark.parametrize("name", [n for n, d in DECLARATIONS.items() if not d.reads_curves])
def test_every_back_end_averages_nested_seeds_unless_it_declares_it_reads_them(name):
    data = rlstats.datasets.simulate(agents=3, tasks=6, seeds=8, effect=1.0, rng=0).assign(run=lambda d: d.seed // 2)
    declared = DECLARATIONS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rlstats.errors.RlstatsWarning)  # raw scales: beside the point here
        # the nested run names tuning's configurations (its contract's config= would name them twice)
        options = {k: v for k, v in declared.contract[1].items() if not (declared.reads_nesting and k == "config")}
        res = backend(name)(data, "score ~ agent | task/run/seed", **options)
    averaged = any("seeds ('seed') averaged within each run: the run is the unit, 4 runs of 2 seeds" in note
                   for note in res.notes)
    assert averaged is not declared.reads_nesting
    if declared.reads_nesting:
        assert res.nobs == len(data)  # one row per seed


def test_the_reads_nesting_declaration_is_checked():
    from rlstats.citations import ENTRIES

    tuning = DECLARATIONS["tuning"]
    assert tuning.reads_nesting is True and tuning.problems(ENTRIES) == []
    assert "reads_nesting must be True or False" in dataclasses.replace(tuning, reads_nesting="yes").problems(ENTRIES)
    both = dataclasses.replace(tuning, reads_curves=True).problems(ENTRIES)
    assert any("reads_nesting and reads_curves exclude each other" in p for p in both)


# ------------------------------------------------------------------ the rank test under a tuning-run effect
def _rank_test_sizes(n_sets, seed=2027):
    """Size at 5% of the blocked rank test (compare's default) on simulated nulls with a tuning-run effect.

    3 equal agents x 4 tasks x 5 runs x 10 seeds: score = run effect N(0, 1) + seed noise N(0, 0.3^2). Run on
    '| task/run/seed' (each run's seeds averaged: 5 replicates per cell) and on '| task/unit' with every seed its
    own unit (50 'independent' replicates per cell). The p-values come from the test's vectorised path
    (``skillings_mack.batch_pvalues``), checked equal to ``compare()``'s on the first data set: the chi-squared
    p-value, which compare chooses by itself on this design.
    """
    from rlstats.methods import operation

    A, T, R, S = 3, 4, 5, 10
    frame = pd.MultiIndex.from_product([[f"a{a}" for a in range(A)], [f"t{t}" for t in range(T)], range(R),
                                        range(S)], names=["agent", "task", "run", "seed"]).to_frame(index=False)
    frame["unit"] = frame["run"] * S + frame["seed"]
    rng = np.random.default_rng(seed)
    y = rng.normal(size=(n_sets, A, T, R, 1)) + 0.3 * rng.normal(size=(n_sets, A, T, R, S))
    first = frame.assign(score=y[0].ravel())
    batch = operation("skillings_mack.batch_pvalues")
    sizes = {}
    for name, formula, responses in (("runs", "score ~ agent | task/run/seed", y.mean(axis=-1)),
                                     ("seeds", "score ~ agent | task/unit", y)):
        design = design_of(first, formula)
        p = batch(design, responses.reshape(n_sets, -1)[:, design.row_position])
        reference = rlstats.compare(first, formula)
        assert reference.method.startswith("Mack-Skillings") and p[0] == pytest.approx(reference.pvalue, abs=1e-12)
        sizes[name] = float((p <= 0.05).mean())
    return sizes


def _mc_se(p, n):
    return math.sqrt(p * (1 - p) / n)


def test_the_rank_test_on_run_means_keeps_its_level_and_on_seeds_does_not():
    n = 2000
    sizes = _rank_test_sizes(n)
    assert sizes["runs"] <= 0.05 + 3 * _mc_se(0.05, n)       # 0.051 here
    assert sizes["runs"] >= 0.05 - 4 * _mc_se(0.05, n)       # not bought by a test that never rejects
    assert sizes["seeds"] - 3 * _mc_se(sizes["seeds"], n) > 0.5   # 0.735: seeds of a run are not independent


@pytest.mark.slow
def test_the_rank_test_on_run_means_keeps_its_level_over_many_data_sets():
    n = 20_000
    sizes = _rank_test_sizes(n, seed=2028)
    assert abs(sizes["runs"] - 0.05) <= 3 * _mc_se(0.05, n)  # 0.0491 (seeds as runs: 0.732)
    assert sizes["seeds"] - 3 * _mc_se(sizes["seeds"], n) > 0.7
