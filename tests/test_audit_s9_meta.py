"""Audit of session 9 (helper ``meta``): metamorphic invariance of every public back end beyond what
tests/test_metamorphic.py covers.

Audited, on small simulated designs (3 agents x 4 to 6 tasks x 4 or 5 runs, simulated curves, a small sweep): a
non-default, non-unique or MultiIndex row index (with and without a shuffle that keeps the index); agent and task as
Categoricals with unused categories (first or last) and with another category order; ``string[pyarrow]`` labels with
a nullable ``Float64`` score and pd.NA where float64 had NaN (``na_action="drop"``); nullable ``Int64`` scores;
integer codes as agent names; renamings that keep or change the names' sort order; and that the caller's frame
(values, dtypes, categories, index, attrs) is unchanged after every call and every printed form.  What held is kept
here as tests too (the index, dtype and mutation cases).

The defects found: with the same ``rng``, the random back ends (the rank test's Monte Carlo p-value, bootstrap,
percentiles' bootstrap, tuning, curves, both Bayesian models, power from a pilot) drew from streams laid out in the
design's order of agents or tasks, which a Categorical's category order sets, so the same rows with the same labels
gave other numbers when only the category order differed; and power() from a pilot drew runs by their positions in
the caller's row order. All are fixed (resampling.label_ranks: the names sorted). AdaStop and the permutation test
still follow the design's order; their docstring now says so. Bootstrap keys each agent's stream by its label (a
documented choice, test_metamorphic's CHANGES), so renaming an agent there draws other resamples.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import lr_sweep, simulated_curves


def _runs(tasks=4):
    df = rlstats.datasets.simulate(agents=3, tasks=tasks, seeds=5, effect=1.0, rng=0)
    df.attrs = {}
    return df


def _reordered(df, column):
    """The same rows and labels, ``column`` a Categorical whose categories are in reverse sort order."""
    out = df.copy()
    labels = out[column].astype(str)
    out[column] = pd.Categorical(labels, categories=sorted(set(labels))[::-1])
    return out


def _by_label(tidy, keys):
    """tidy's rows in the labels' sort order, the label columns as strings (so category order does not matter)."""
    out = tidy.copy()
    for key in keys:
        out[key] = out[key].astype(str)
    return out.sort_values(keys, kind="stable").reset_index(drop=True)


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


# ------------------------------------------------------------------------------------------------ what held

def _index_variants(df):
    nonunique = df.copy()
    nonunique.index = np.repeat(np.arange(len(df) // 2 + 1), 2)[:len(df)][::-1] + 100
    multi = df.copy()
    multi.index = pd.MultiIndex.from_arrays([np.arange(len(df)) % 3, np.arange(len(df))[::-1]], names=["a", "b"])
    kept = df.sample(frac=1.0, random_state=np.random.RandomState(7))  # shuffled, its index kept
    return {"nonunique": nonunique, "multi": multi, "shuffled_kept_index": kept}


def _dtype_variants(df):
    arrow = df.copy()
    for column in ("agent", "task"):
        arrow[column] = arrow[column].astype(str).astype("string[pyarrow]")
    arrow["score"] = arrow["score"].astype("Float64")
    unused = df.copy()
    for column in ("agent", "task"):
        labels = unused[column].astype(str)
        unused[column] = pd.Categorical(labels, categories=["aaa_unused", *sorted(set(labels))])
    return {"arrow_Float64": arrow, "unused_categories": unused}


_METHODS = ["skillings_mack", "mixed", "task_table", "percentiles", "bootstrap"]
_VARIANTS = ["nonunique", "multi", "shuffled_kept_index", "arrow_Float64", "unused_categories"]
_BASES: dict = {}


def _base(method):
    """The method's result on _runs() as they are, its options and its tidy frame by label: computed once a process."""
    if method not in _BASES:
        options = {"n_resamples": 200} if method in ("bootstrap", "percentiles") else {}
        base = _quiet(rlstats.compare, _runs(), "score ~ agent | task", method=method, rng=1, **options)
        keys = [k for k in ("agent", "agent_1", "agent_2", "task", "metric") if k in base.tidy().columns]
        _BASES[method] = base, options, keys, _by_label(base.tidy(), keys)
    return _BASES[method]


def _in_default_run(method, variant):
    """Session 40 (the product cost 2 s of the default suite's CPU, every printed form of 25 results): method i takes
    the (2i)-th and (2i + 1)-th variants, cyclically, so that each variant meets two methods and each method an index
    change, a dtype change or both; the rest with -m slow."""
    return (_VARIANTS.index(variant) - 2 * _METHODS.index(method)) % len(_VARIANTS) < 2


@pytest.mark.parametrize("method, variant", [
    pytest.param(m, v, id=f"{m}-{v}", marks=[] if _in_default_run(m, v) else [pytest.mark.slow])
    for m in _METHODS for v in _VARIANTS])
def test_index_and_dtypes_change_no_number_and_the_frame_is_left_alone(method, variant):
    """The row index (non-unique, MultiIndex, shuffled and kept) and the label and score dtypes change no number of
    tidy() or glance(); the caller's frame is unchanged after the call and every printed form."""
    pytest.importorskip("pyarrow")
    df = _runs()
    base, options, keys, expected = _base(method)
    variants = {**_index_variants(df), **_dtype_variants(df)}
    assert list(variants) == _VARIANTS
    for name, frame in [(variant, variants[variant])]:
        frame.attrs = {"mine": [1]}
        before = frame.copy(deep=True)
        res = _quiet(rlstats.compare, frame, "score ~ agent | task", method=method, rng=1, **options)
        for form in (str(res), str(res.summary()), res.report(), res.to_latex(), res.to_markdown()):
            assert isinstance(form, str) and "agent" in form  # every printed form, before the frame is checked
        pd.testing.assert_frame_equal(_by_label(res.tidy(), keys), expected, check_dtype=False, obj=name)
        pd.testing.assert_frame_equal(res.glance(), base.glance(), check_dtype=False, obj=name)
        pd.testing.assert_frame_equal(frame, before, check_exact=True, obj=name)
        assert frame.attrs == {"mine": [1]} and frame.index.equals(before.index)
        for column in ("agent", "task"):
            if isinstance(before[column].dtype, pd.CategoricalDtype):
                assert list(frame[column].cat.categories) == list(before[column].cat.categories)


def test_nullable_missing_scores_are_dropped_as_nan_is():
    """pd.NA in a nullable Float64 score (string[pyarrow] labels) is dropped by na_action="drop" as NaN in float64
    is, with the same numbers and the same note."""
    pytest.importorskip("pyarrow")
    df = _runs()
    df.loc[[3, 10], "score"] = np.nan
    nullable = df.astype({"score": "Float64", "agent": "string[pyarrow]", "task": "string[pyarrow]"})
    assert nullable["score"].isna().sum() == 2 and nullable["score"].iloc[3] is pd.NA
    for method in ("skillings_mack", "mixed", "bootstrap"):
        a = _quiet(rlstats.compare, df, "score ~ agent | task", method=method, rng=1, na_action="drop")
        b = _quiet(rlstats.compare, nullable, "score ~ agent | task", method=method, rng=1, na_action="drop")
        assert str(a) == str(b)
        assert '2 of 60 rows dropped (na_action="drop"): 2 with missing values in \'score\'' in a.notes


def test_integer_agent_codes_keep_every_rank_test_number():
    """Agents coded 0, 1, 2 (int64) in the order of agent_1..agent_3 give the rank test's numbers unchanged."""
    df = _runs()
    coded = df.assign(agent=df["agent"].astype(str).map({"agent_1": 0, "agent_2": 1, "agent_3": 2}).astype("int64"))
    a = rlstats.skillings_mack(df, "score ~ agent | task")
    b = rlstats.skillings_mack(coded, "score ~ agent | task")
    assert b.statistic == a.statistic and b.pvalue == a.pvalue
    np.testing.assert_array_equal(b.tidy()["p_adjusted"], a.tidy()["p_adjusted"])
    assert b.tidy()["agent_1"].tolist() == ["0", "0", "1"]  # labels are strings in tables


# ------------------------------------------------------------------------------------------------ defects

@pytest.mark.parametrize("column", ["agent", "task"])
def test_rank_test_monte_carlo_pvalue_does_not_depend_on_category_order(column):
    """The Monte Carlo p-value of the rank test changed when only the category order of the agent or the task
    column was reversed (same rows, same labels, rng=1, 200 resamples on 3 agents x 6 tasks x 4 runs): 0.01493
    became 0.00995 (agents) or 0.02488 (tasks). The permutations now take the tasks, and the agents within a task,
    in their names' sorted order, so the same ranks land on the same agents, also in an incomplete design (4 agents
    x 8 tasks, a fifth of the cells missing: 0.1194 became 0.0896 with the agents reversed, 0.0945 with the tasks)."""
    for df in (rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0),
               rlstats.datasets.simulate(agents=4, tasks=8, seeds=1, effect=0.5, missing=0.2, rng=2)):
        a = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="monte_carlo", n_resamples=200, rng=1)
        b = rlstats.skillings_mack(_reordered(df, column), "score ~ agent | task", pvalue="monte_carlo",
                                   n_resamples=200, rng=1)
        assert b.statistic == pytest.approx(a.statistic, rel=1e-12)
        assert b.pvalue == a.pvalue
        assert np.sort(b.tidy()["p_value"]).tolist() == pytest.approx(np.sort(a.tidy()["p_value"]).tolist())


def test_bootstrap_intervals_do_not_depend_on_task_category_order():
    """Each agent's bootstrap interval changed when only the task column's category order was reversed (same rows,
    labels, rng=1): agent_1's IQM interval [1.865, 5.726] became [1.532, 5.923] on 3 agents x 6 tasks x 4 runs.
    Agents' streams are keyed by their labels so that their order does not matter; the tasks' order did."""
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)
    a = rlstats.bootstrap(df, "score ~ agent | task", n_resamples=200, rng=1)
    b = rlstats.bootstrap(_reordered(df, "task"), "score ~ agent | task", n_resamples=200, rng=1)
    keys = ["agent", "metric"]
    pd.testing.assert_frame_equal(_by_label(b.tidy(), keys), _by_label(a.tidy(), keys), rtol=1e-12)


@pytest.mark.parametrize("column", ["agent", "task"])
def test_tuned_score_does_not_depend_on_category_order(column):
    """The tuned score corrected for selection (a point estimate) and its interval changed when only the category
    order of the agent or task column was reversed (same rows, labels, rng=1): ppo on ant 1.4765 became 1.4663
    (agents reversed) or 1.4792 (tasks reversed). Each sweep's stream was keyed by its (task, agent) positions."""
    df = lr_sweep(tasks=("ant", "hopper", "walker"))
    call = dict(config="lr", views=["best_set"], n_resamples=100, rng=1)
    a = rlstats.tuning(df, "score ~ agent | task/seed", **call)
    b = rlstats.tuning(_reordered(df, column), "score ~ agent | task/seed", **call)
    keys = ["term", "agent", "task"]
    pd.testing.assert_frame_equal(_by_label(b.tidy(), keys), _by_label(a.tidy(), keys), rtol=1e-12)


@pytest.mark.parametrize("column", ["agent", "task"])
def test_curve_bands_do_not_depend_on_category_order(column):
    """Each agent's pointwise band changed when only the category order of the agent or task column was reversed
    (same rows, labels, rng=1): agent_1's at step 250k [2.566, 3.410] became [2.809, 3.594] (agents reversed) or
    [2.853, 3.413] (tasks reversed)."""
    df = simulated_curves()  # the curves of the metamorphic suite
    a = rlstats.curves(df, "score ~ agent | task/seed", step="step", rng=1, n_resamples=200)
    b = rlstats.curves(_reordered(df, column), "score ~ agent | task/seed", step="step", rng=1, n_resamples=200)
    keys = ["agent", "step"]
    pd.testing.assert_frame_equal(_by_label(b.tidy(), keys), _by_label(a.tidy(), keys), rtol=1e-12)


def test_bayes_signed_rank_does_not_depend_on_task_category_order():
    """The Bayesian signed-rank posterior changed when only the task column's category order was reversed (same
    rows, labels, rng=1): agent_1 vs agent_2's P(rope) 0.0405 became 0.044 on 3 agents x 6 tasks x 4 runs."""
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)
    a = _quiet(rlstats.bayes, df, "score ~ agent | task", rope=0.2, rng=1)
    b = _quiet(rlstats.bayes, _reordered(df, "task"), "score ~ agent | task", rope=0.2, rng=1)
    keys = ["agent_1", "agent_2"]
    pd.testing.assert_frame_equal(_by_label(b.tidy(), keys), _by_label(a.tidy(), keys), rtol=1e-12)


@pytest.mark.usefixtures("first_run_only")  # quick fits: the chains as asked
def test_bayes_hierarchical_does_not_depend_on_task_category_order():
    """The hierarchical model's posterior changed when only the task column's category order was reversed (same
    rows, labels, rng=1; 2 chains of 200 draws on 3 agents x 6 tasks x 4 runs): agent_1 vs agent_2's mean difference
    -0.0657 became -0.1291, P(better) 0.3625 became 0.2875. The sampler took the tasks in the design's order; the
    per-task posterior and the diagnostics still list the tasks as the result does. The draws agreed to rounding
    (the pair's scale, a mean over the tasks, summed in another order), which moved the rank-normalised R-hat and
    ESS, read off the ranks of the draws, by up to 1e-4 relative; since audit s36 (bayes36) the sampler reads its
    inputs on a grid far coarser than that rounding and the diagnostics are read off its own draws: the same."""
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)
    options = dict(rope=0.2, rng=1, model="hierarchical", draws=200, warmup=200, chains=2)
    a = _quiet(rlstats.bayes, df, "score ~ agent | task/seed", **options)
    b = _quiet(rlstats.bayes, _reordered(df, "task"), "score ~ agent | task/seed", **options)
    keys = ["agent_1", "agent_2"]
    x, y = _by_label(a.tidy(), keys), _by_label(b.tidy(), keys)
    pd.testing.assert_frame_equal(y, x, rtol=1e-12)


def _pilot_power(df):
    res = rlstats.power("skillings_mack", design=df, formula="score ~ agent | task", seeds=[3], n_sim=40, rng=1,
                        progress=False)
    return res.tidy()["power"].tolist()


def test_power_from_a_pilot_does_not_depend_on_the_row_order():
    """power() from a pilot frame gave another power when the pilot's rows were shuffled (same rng=1, 40 simulated
    data sets of 3 seeds from 3 agents x 4 tasks x 5 runs): 0.325 became 0.30."""
    df = _runs()
    shuffled = df.sample(frac=1.0, random_state=4).reset_index(drop=True)
    assert _pilot_power(shuffled) == _pilot_power(df)


@pytest.mark.parametrize("column", ["agent", "task"])
def test_power_from_a_pilot_does_not_depend_on_category_order(column):
    """power() from a pilot frame gave another power when only the category order of the agent or task column was
    reversed (same rows, labels, rng=1): 0.325 became 0.45 (agents) or 0.425 (tasks)."""
    df = _runs()
    assert _pilot_power(_reordered(df, column)) == _pilot_power(df)


@pytest.fixture(scope="module")
def percentiles_bootstrap_of_runs():
    """percentiles(interval="bootstrap", rng=1) of _runs() as they are: the result both orders are compared with (at
    200 resamples, not the default 10,000: a stream laid out in the categories' order draws other resamples at any
    number; session 40, 1.6 s of CPU)."""
    return rlstats.percentiles(_runs(), "score ~ agent | task", interval="bootstrap", n_resamples=200, rng=1).tidy()


@pytest.mark.parametrize("column", ["agent", "task"])
def test_percentiles_bootstrap_interval_does_not_depend_on_category_order(column, percentiles_bootstrap_of_runs):
    """percentiles(interval="bootstrap") gave other intervals when only the category order of the agent or task
    column was reversed (same rows, labels, rng=1): agent_1's [0.0520, 0.4392] became [0.0595, 0.4353] (agents) or
    [0.0527, 0.4346] (tasks) on 3 agents x 4 tasks x 5 runs."""
    b = rlstats.percentiles(_reordered(_runs(), column), "score ~ agent | task", interval="bootstrap", n_resamples=200,
                            rng=1)
    pd.testing.assert_frame_equal(_by_label(b.tidy(), ["agent"]), _by_label(percentiles_bootstrap_of_runs, ["agent"]),
                                  rtol=1e-12)


def test_label_ranks_are_the_names_sorted_as_the_design_sorts_them():
    """The places the random back ends key their streams by: the names sorted as text, or as numbers when every
    name reads as a finite number (integer task ids keep the design's numeric order, so their results keep their
    bits); a Categorical's order plays no part."""
    from rlstats.resampling import label_ranks

    assert label_ranks(["b", "a", "10", "2"]).tolist() == [3, 2, 0, 1]
    assert label_ranks(["10", "2", "1"]).tolist() == [2, 1, 0]
    assert label_ranks(["10", "2", "nan"]).tolist() == [0, 1, 2]  # NaN is not a finite number: all as text
    assert label_ranks(["10", "2"], numeric=False).tolist() == [0, 1]
    df = rlstats.datasets.simulate(agents=2, tasks=12, seeds=2, rng=0)
    df["task"] = df["task"].astype(str).str[5:].astype(int)
    tasks = rlstats.build(df, "score ~ agent | task").tasks
    assert tasks[:3] == ("1", "2", "3") and label_ranks(tasks).tolist() == list(range(12))


@pytest.mark.usefixtures("first_run_only")  # quick fits: the chains as asked
def test_bayes_hierarchical_does_not_depend_on_agent_category_order():
    """The hierarchical model's posterior changed when only the agent column's category order was reversed (same
    rows, labels, rng=1; 2 chains of 200 draws on 3 agents x 6 tasks x 4 runs): agent_1 vs agent_2's mean
    difference -0.0657 became 0.0499 as agent_2 vs agent_1 (so -0.0499 for agent_1 vs agent_2), P(agent_1 better)
    0.3625 became 0.36. Each pair was fitted in the design's orientation and its group's stream keyed by the agents'
    codes; the pairs are now fitted in their names' sorted order and their draws mirrored back where the result
    names them the other way round."""
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)
    options = dict(rope=0.2, rng=1, model="hierarchical", draws=200, warmup=200, chains=2)
    a = _quiet(rlstats.bayes, df, "score ~ agent | task/seed", **options).tidy()
    b = _quiet(rlstats.bayes, _reordered(df, "agent"), "score ~ agent | task/seed", **options).tidy()
    got = {(str(r.agent_2), str(r.agent_1)): (r.p_worse, r.p_rope, r.p_better, -r.estimate) for r in b.itertuples()}
    for r in a.itertuples():
        assert got[str(r.agent_1), str(r.agent_2)] == pytest.approx((r.p_better, r.p_rope, r.p_worse, r.estimate))
