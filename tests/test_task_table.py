"""rlstats.task_table: the per-task table, checked against scipy, statsmodels, enumeration and simulation.

The possibly-best mark is a confidence set for the best agent of each task (issue 28): the rule on hand-made data,
each one-sided test against scipy (exact nulls, permutation_test with ties), and the set's coverage re-measured on
a few grid points of ``tests/reference/coverage_possibly_best.py`` (the whole grid under ``-m slow``).
"""

import inspect
import itertools
import math
import pathlib
import runpy
import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import HANG_SECONDS
import rlstats
from rlstats.errors import DesignError, OptionError
from rlstats.methods.task_table import _calibration as calibration
from rlstats.methods.task_table import _kernels
from rlstats.vocabulary import unknown_columns

FORMULA = "score ~ agent | task/seed"
# The script that writes the calibration table: its grid and its measurement of one grid point.
COVERAGE = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_possibly_best.py"))


@pytest.fixture(scope="module")
def data():
    return rlstats.datasets.simulate(agents=3, tasks=4, seeds=6, effect=1.5, heterogeneity=1.0, rng=4)


@pytest.fixture(scope="module")
def table(data):
    return rlstats.task_table(data, FORMULA)


def _cell(data, task, agent):
    return data[(data["task"] == task) & (data["agent"] == agent)]["score"].to_numpy()


def _frame(cells):
    """Long frame from {(task, agent): runs}."""
    rows = [(task, agent, seed, value) for (task, agent), values in cells.items() for seed, value in enumerate(values)]
    return pd.DataFrame(rows, columns=["task", "agent", "seed", "score"])


def _enumerated(x, y, statistic):
    """Exact one-sided permutation p-value of "x is better than y": the share of splits at least as extreme."""
    pooled = np.concatenate([x, y])
    observed = statistic(x, y)
    hits = [statistic(pooled[list(c)], np.delete(pooled, list(c))) >= observed - 1e-12
            for c in itertools.combinations(range(pooled.size), x.size)]
    return np.mean(hits)


def _mean_difference(x, y):
    return x.mean() - y.mean()


def test_the_set_rule_on_hand_made_data():
    # 3 agents x 5 runs, exact permutation test (252 splits): every ordered pair one-sided, Holm over the 6.
    from statsmodels.stats.multitest import multipletests

    cells = {("t", "A"): [10, 11, 12, 13, 14], ("t", "B"): [0, 1, 2, 3, 4], ("t", "C"): [9, 10.5, 11.5, 13.5, 15]}
    res = rlstats.task_table(_frame(cells), FORMULA, test="fisher_pitman")
    runs = {a: np.asarray(v, dtype=float) for (_, a), v in cells.items()}
    ordered = list(itertools.permutations("ABC", 2))
    raw = {(j, a): _enumerated(runs[j], runs[a], _mean_difference) for j, a in ordered}
    adjusted = dict(zip(ordered, multipletests([raw[p] for p in ordered], method="holm")[1]))
    for a in "ABC":
        i = res.agents.index(a)
        p_adjusted = min(adjusted[(j, a)] for j in "ABC" if j != a)
        assert res.p_exclusion[0, i] == pytest.approx(p_adjusted, rel=1e-12)
        assert res.possibly_best[0, i] == (p_adjusted > 0.05)
        for j in "ABC":
            if j != a:
                assert res.p_pairwise[0, res.agents.index(j), i] == pytest.approx(raw[(j, a)], rel=1e-12)
    # A (mean 12) is the best; B is beaten by A and C at p = 1/252 each: Holm's 6/252 and 5/252, both <= 0.05.
    assert res.agents[res.best[0]] == "A" and res.p_values[0, 1] == pytest.approx(1 / 252)
    assert res.p_exclusion[0, 1] == pytest.approx(6 / 252) and res.possibly_best[0].tolist() == [True, False, True]
    tidy = res.tidy()
    assert tidy["possibly_best"].tolist() == [True, False, True]
    assert tidy["significant"].tolist() == [False, True, False]


def test_the_set_with_welch_matches_scipy_and_statsmodels(data, table):
    from statsmodels.stats.multitest import multipletests

    for t, task in enumerate(table.tasks):
        means = {a: _cell(data, task, a).mean() for a in table.agents}
        best = max(means, key=means.get)
        assert table.agents[table.best[t]] == best
        ordered = list(itertools.permutations(table.agents, 2))
        raw = [stats.ttest_ind(_cell(data, task, j), _cell(data, task, a), equal_var=False,
                               alternative="greater").pvalue for j, a in ordered]
        adjusted = dict(zip(ordered, multipletests(raw, method="holm")[1]))
        for a in table.agents:
            i = table.agents.index(a)
            p_adjusted = min(adjusted[(j, a)] for j in table.agents if j != a)
            assert table.p_exclusion[t, i] == pytest.approx(p_adjusted, rel=1e-10)
            assert table.possibly_best[t, i] == (p_adjusted > 0.05)
            if a != best:
                assert table.p_values[t, i] == pytest.approx(dict(zip(ordered, raw))[(best, a)], rel=1e-10)
    assert (~table.possibly_best).any()  # the fixture separates some agents


def test_lower_is_better_flips_every_direction(data):
    flipped = data.assign(score=-data["score"])
    high = rlstats.task_table(data, FORMULA, test="mannwhitney")
    low = rlstats.task_table(flipped, FORMULA, test="mannwhitney", higher_is_better=False)
    np.testing.assert_array_equal(high.best, low.best)
    np.testing.assert_array_equal(high.possibly_best, low.possibly_best)
    np.testing.assert_allclose(high.p_pairwise, low.p_pairwise, equal_nan=True)
    np.testing.assert_allclose(high.hedges_g, low.hedges_g, equal_nan=True)
    np.testing.assert_allclose(high.welch, low.welch, equal_nan=True)


def test_effect_sizes_match_their_definitions(data, table):
    tidy = table.tidy().set_index(["task", "agent"])
    for t, task in enumerate(table.tasks):
        best = table.agents[table.best[t]]
        x = _cell(data, task, best)
        for a in table.agents:
            if a == best:
                continue
            y = _cell(data, task, a)
            pairs = list(itertools.product(x, y))
            a12 = np.mean([(u > v) + 0.5 * (u == v) for u, v in pairs])
            n, m = x.size, y.size
            pooled = np.sqrt(((n - 1) * x.var(ddof=1) + (m - 1) * y.var(ddof=1)) / (n + m - 2))
            df = n + m - 2  # Hedges' exact J (issue 39 item 7)
            g = math.gamma(df / 2) / (math.sqrt(df / 2) * math.gamma((df - 1) / 2)) * (x.mean() - y.mean()) / pooled
            row = tidy.loc[(task, a)]
            assert row["a12"] == pytest.approx(a12) and row["cliffs_delta"] == pytest.approx(2 * a12 - 1)
            assert row["hedges_g"] == pytest.approx(g, rel=1e-12)
            assert row["a12_low"] <= row["a12"] <= row["a12_high"]
            assert row["hedges_g_low"] < row["hedges_g"] < row["hedges_g_high"]


def test_welch_columns_match_scipy_t_test(data, table):
    tidy = table.tidy().set_index(["task", "agent"])
    for t, task in enumerate(table.tasks):
        x = _cell(data, task, table.agents[table.best[t]])
        for j, a in enumerate(table.agents):
            if j == table.best[t]:
                assert np.isnan(tidy.loc[(task, a), "welch_t"])
                continue
            reference = stats.ttest_ind(x, _cell(data, task, a), equal_var=False)
            # at the effect sizes' level, 1 - 2 (1 - 0.95) / 3 with 3 agents (audit s32: it was 0.95 per pair)
            low, high = reference.confidence_interval(1 - 2 * 0.05 / 3)
            row = tidy.loc[(task, a)]
            assert row["welch_t"] == pytest.approx(reference.statistic, rel=1e-12)
            assert row["welch_df"] == pytest.approx(reference.df, rel=1e-12)
            assert row["diff_low"] == pytest.approx(low, rel=1e-10)
            assert row["diff_high"] == pytest.approx(high, rel=1e-10)


def test_one_sided_tests_match_scipy():
    rng = np.random.default_rng(3)
    x, y = rng.normal(0.8, 1.0, (5, 6)), rng.normal(0.0, 1.0, (5, 7))
    greater, less, how = _kernels.one_sided("welch", x, y, None, 1000)
    assert how == "t"
    np.testing.assert_allclose(greater, stats.ttest_ind(x, y, axis=1, equal_var=False, alternative="greater").pvalue,
                               rtol=1e-12)
    np.testing.assert_allclose(less, stats.ttest_ind(x, y, axis=1, equal_var=False, alternative="less").pvalue,
                               rtol=1e-12)
    # Mann-Whitney without ties: scipy's exact null of U (C(13, 6) = 1716 splits enumerated here)
    greater, less, how = _kernels.one_sided("mannwhitney", x, y, None, 1000)
    assert how == "exact"
    for i in range(5):
        assert greater[i] == pytest.approx(stats.mannwhitneyu(x[i], y[i], method="exact", alternative="greater").pvalue,
                                           rel=1e-12)
        assert less[i] == pytest.approx(stats.mannwhitneyu(x[i], y[i], method="exact", alternative="less").pvalue,
                                        rel=1e-12)


def _rank_sum(x, y, axis=-1):
    return stats.rankdata(np.concatenate([x, y], axis=axis), axis=axis)[..., :x.shape[axis]].sum(axis=axis)


def _rows(function, x, y, axis=-1):
    """``function(x_row, y_row)`` over the rows along ``axis`` (scipy before 1.13 has no axis= for brunnermunzel)."""
    x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
    shape = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    x, y = np.broadcast_to(x, shape + x.shape[-1:]), np.broadcast_to(y, shape + y.shape[-1:])
    flat = [function(a, b) for a, b in zip(x.reshape(-1, x.shape[-1]), y.reshape(-1, y.shape[-1]))]
    return np.array(flat).reshape(shape)


#: scipy 1.13 on takes axis= in brunnermunzel: its own statistic over every split at once (0.94 s of CPU one split at
#: a time in the test below, 0.02 s so, the same p-values)
_BM_AXIS = "axis" in inspect.signature(stats.brunnermunzel).parameters


def _brunner_munzel(x, y, axis=-1):
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy's p-value at zero variance, not used here
        # W^BF of "x is better", +-inf at a separation
        if _BM_AXIS:
            return stats.brunnermunzel(y, x, axis=axis).statistic
        return _rows(lambda a, b: stats.brunnermunzel(b, a).statistic, x, y, axis)


@pytest.mark.parametrize("test, statistic", [("mannwhitney", _rank_sum), ("brunnermunzel", _brunner_munzel),
                                             ("fisher_pitman", lambda x, y, axis=-1: x.mean(axis) - y.mean(axis))])
def test_permutation_type_tests_with_ties_match_scipy_permutation_test(test, statistic):
    rng = np.random.default_rng(5)
    x, y = rng.integers(0, 4, (4, 5)).astype(float), rng.integers(0, 4, (4, 6)).astype(float)
    greater, less, how = _kernels.one_sided(test, x, y, None, 1000)
    assert how == "exact"
    for i in range(2):  # scipy's reference enumerates every split per row: two of the four rows (the budget)
        for alternative, got in [("greater", greater[i]), ("less", less[i])]:
            reference = stats.permutation_test((x[i], y[i]), statistic, permutation_type="independent",
                                               alternative=alternative, n_resamples=np.inf, vectorized=True)
            assert got == pytest.approx(reference.pvalue, rel=1e-12)


def test_monte_carlo_splits_above_the_enumeration_limit():
    # C(24, 12) = 2.7 million splits: random ones, (1 + hits) / (B + 1), the same for every pair of those run counts
    rng = np.random.default_rng(6)
    x, y = rng.normal(0.5, 1.0, (3, 12)), rng.normal(0.0, 1.0, (3, 12))
    greater, less, how = _kernels.one_sided("fisher_pitman", x, y, np.random.default_rng(0), 4000)
    assert how == "monte_carlo" and _kernels.smallest_pvalue("fisher_pitman", 12, 12, 4000) == 1 / 4001
    seed = {"rng": 1} if "rng" in inspect.signature(stats.permutation_test).parameters else {"random_state": 1}
    exact = stats.permutation_test((x[0], y[0]), lambda a, b, axis: a.mean(axis) - b.mean(axis), alternative="greater",
                                   permutation_type="independent", n_resamples=200_000, **seed).pvalue
    assert abs(greater[0] - exact) < 4 * np.sqrt(exact * (1 - exact) / 4000) + 1e-3
    assert np.all(greater * 4001 == np.round(greater * 4001)) and np.all(greater + less >= 1)


def test_brunner_munzel_permutation_is_close_to_its_t_version_at_20_runs():
    rng = np.random.default_rng(7)
    x, y = rng.normal(0.6, 1.0, (6, 20)), rng.normal(0.0, 1.3, (6, 20))
    greater, _, how = _kernels.one_sided("brunnermunzel", x, y, np.random.default_rng(1), 20_000)
    t_version = _rows(lambda a, b: stats.brunnermunzel(a, b, alternative="greater").pvalue, x, y)
    assert how == "monte_carlo"
    np.testing.assert_allclose(greater, t_version, atol=0.01)


def test_complete_separation_is_significant_with_brunner_munzel():
    # Every run of A beats every run of B: scipy's t version gives NaN; the permutation p is 1 / C(8, 4) = 1/70,
    # Holm over the 2 ordered pairs 2/70 <= 0.05.
    res = rlstats.task_table(_frame({("t", "A"): [5, 6, 7, 8], ("t", "B"): [1, 2, 3, 4]}), FORMULA,
                             test="brunnermunzel")
    assert res.p_values[0, 1] == pytest.approx(1 / 70) and res.p_exclusion[0, 1] == pytest.approx(2 / 70)
    assert res.possibly_best[0].tolist() == [True, False] and bool(res.tidy()["significant"][1])
    assert not np.isnan(res.a12[0, 1, 1:]).any() and res.a12[0, 1, 2] == 1.0  # the default score interval exists
    assert not any("A12 interval is undefined" in n for n in res.notes)
    old = rlstats.task_table(_frame({("t", "A"): [5, 6, 7, 8], ("t", "B"): [1, 2, 3, 4]}), FORMULA,
                             test="brunnermunzel", effect_intervals="per_pair")
    assert np.isnan(old.a12[0, 1, 1]) and any("A12 interval is undefined in 1 cell (t/B)" in n for n in old.notes)


def test_the_point_best_stays_in_the_set_when_a_rank_test_overrules_it():
    # A has the best mean through one outlier, but B's runs rank above 7 of A's 8: U = 56 of 64, p = 0.0040.
    data = _frame({("t", "A"): [0.0] * 7 + [1000.0], ("t", "B"): list(np.arange(1.0, 9.0))})
    res = rlstats.task_table(data, FORMULA, test="mannwhitney")
    assert res.agents[res.best[0]] == "A" and res.p_exclusion[0, 0] == pytest.approx(2 * res.p_pairwise[0, 1, 0])
    assert res.p_exclusion[0, 0] <= 0.05 and res.possibly_best[0].all()
    assert ("the Mann-Whitney U test finds another agent significantly better than the best by mean in 1 cell (t/A); "
            "as the point best it stays in the set") in res.notes


@pytest.mark.parametrize("test", _kernels.TESTS)
def test_capped_ties_keep_the_mark(test):
    # Two agents at the cap on every seed (CartPole's 500): tied best, both bold, both possibly best.
    data = _frame({("cartpole", "A"): [500.0] * 5, ("cartpole", "B"): [500.0] * 5,
                   ("cartpole", "C"): [300.0, 310.0, 320.0, 330.0, 340.0]})
    res = rlstats.task_table(data, FORMULA, test=test)
    assert res.tied_best[0].tolist() == [True, True, False] and res.possibly_best[0, :2].all()
    assert res.p_pairwise[0, 0, 1] == 1.0 and res.p_pairwise[0, 1, 0] == 1.0
    assert not res.possibly_best[0, 2]  # below both at 1 / C(10, 5) (or a Welch p-value below it)
    assert "*500 \u00b1 0*" in res.display().iloc[0, 1]
    assert "Hedges' g is undefined in 1 cell (cartpole/B): neither agent's runs vary" in res.notes


def test_welch_orders_different_constants():
    # by the exact permutation p-value, 1 / C(4, 2), not Welch's infinite t (audit s9: p = 0 dropped truly best
    # agents from the possibly-best set at tied runs)
    greater, less = _kernels.welch(np.array([[500.0, 500.0]]), np.array([[480.0, 480.0]]))
    assert (greater[0], less[0]) == (1 / 6, 1.0)
    # np.mean of equal floats can differ in the last bit (3 x 0.1 vs 5 x 0.1): still a tie
    greater, less = _kernels.welch(np.full((1, 3), 0.1), np.full((1, 5), 0.1))
    assert (greater[0], less[0]) == (1.0, 1.0)


def test_notes_say_when_nothing_can_be_rejected():
    far_apart = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, effect=30, rng=0)
    res = rlstats.task_table(far_apart, FORMULA, test="mannwhitney")
    assert res.possibly_best.all()
    assert ("the Mann-Whitney U test cannot reject at 3 runs per agent: its smallest one-sided p-value is 0.05, above "
            "Holm's first threshold 0.0083 (alpha / 6 ordered pairs); every agent stays possibly best in every task"
            ) in res.notes
    # Welch can: p = 0 is attainable, so nothing is said
    assert not any("cannot reject" in n for n in rlstats.task_table(far_apart, FORMULA).notes)
    # one run per agent: the marks are withheld (issue 39 item 3), whatever the test, so nothing is said of a test
    # that was not run
    one_run = _frame({("t", "A"): [5.0], ("t", "B"): [1.0]})
    for test in ("fisher_pitman", "welch"):
        notes = rlstats.task_table(one_run, FORMULA, test=test).notes
        assert not any("cannot reject" in n or "could not be compared" in n for n in notes)
        assert any(n.startswith("possibly-best marks and comparisons with the best (tests, effect-size intervals) "
                                "are withheld: they need at least 2 runs per agent and task") for n in notes)


def test_unadjusted_marks_say_they_are_not_a_confidence_set(data):
    res = rlstats.task_table(data, FORMULA, adjustment="none")
    assert any("not a confidence set" in n for n in res.notes) and "not a confidence set" in res.caption()
    holm = rlstats.task_table(data, FORMULA)
    assert (res.possibly_best <= holm.possibly_best).all()  # unadjusted tests reject more


def test_hedges_g_noncentral_t_interval_reproduces_the_issue_example():
    # 5 + 5 runs: normal interval [0.413, 3.404], noncentral-t interval [0.426, 3.322] (issue 28; with the exact J
    # of issue 39 g is 1.9082, not the 1.9092 of the approximate J, and the upper limit 3.322, not 3.324)
    y = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    _, hedges, _ = _kernels.effect_sizes([(y + 3.3424, y)], 0.95)
    g, low, high = hedges[0]
    assert round(g, 4) == 1.9082
    se = np.sqrt(10 / 25 + g * g / 20)
    assert np.round([g - 1.959964 * se, g + 1.959964 * se], 3).tolist() == [0.413, 3.404]
    assert np.round([low, high], 3).tolist() == [0.426, 3.322]


# issue 39 item 7: Hedges' exact small-sample correction, by hand and against R's effectsize --------------------

_I20 = np.arange(1, 21)
HEDGES_PAIRS = {  # n + m -> (x, y), the pairs of tests/reference/hedges_g_effectsize.R
    5: ([3.1, 4.7, 5.2], [1.0, 2.5]),
    6: ([0.2, 1.9, 2.4], [-1.0, 0.3, 0.5]),
    10: ([10, 12.5, 11, 14, 13.2], [9, 10.4, 8.8, 11.7, 10.1]),
    40: (_I20 / 3 + _I20 % 4, _I20 / 4 + _I20 % 3),
}
# J(df) = Gamma(df/2) / (sqrt(df/2) Gamma((df-1)/2)) worked out by hand with Gamma(1/2) = sqrt(pi):
# J(3) = (sqrt(pi)/2) / sqrt(3/2); J(4) = 1 / (sqrt(2) sqrt(pi)/2); J(8) = 3! / (2 (15/8) sqrt(pi));
# J(38) = 18! / (sqrt(19) Gamma(37/2)), Gamma(37/2) = 35!! sqrt(pi) / 2^18
EXACT_J = {5: math.sqrt(math.pi / 6), 6: math.sqrt(2 / math.pi), 10: 1.6 / math.sqrt(math.pi),
           40: math.factorial(18) * 2**18 / math.prod(range(1, 36, 2)) / math.sqrt(19 * math.pi)}


@pytest.mark.parametrize("total", sorted(HEDGES_PAIRS))
def test_hedges_g_uses_the_exact_correction_of_effectsize(total):
    x, y = (np.asarray(v, dtype=float) for v in HEDGES_PAIRS[total])
    n, m = x.size, y.size
    assert n + m == total
    assert _kernels.hedges_correction(total - 2) == pytest.approx(EXACT_J[total], rel=1e-13)
    d = (x.mean() - y.mean()) / np.sqrt(((n - 1) * x.var(ddof=1) + (m - 1) * y.var(ddof=1)) / (n + m - 2))
    _, hedges, _ = _kernels.effect_sizes([(x, y)], 0.95)
    g, low, high = hedges[0]
    assert g == pytest.approx(EXACT_J[total] * d, rel=1e-13)
    # the approximation 1 - 3 / (4 df - 1) is what the docstring used to call effectsize's: 0.51% off at n + m = 5
    approximate = 1 - 3 / (4 * (total - 2) - 1)
    assert abs(approximate / EXACT_J[total] - 1) > {5: 5e-3, 6: 2e-3, 10: 5e-4, 40: 1e-6}[total]
    # the limits are those of d's noncentral-t interval times the same J
    t, df = d * math.sqrt(n * m / (n + m)), n + m - 2
    lows, highs = _kernels.noncentral_t_limits(np.array([t]), np.array([float(df)]), 0.95)
    scale = EXACT_J[total] / math.sqrt(n * m / (n + m))
    assert (low, high) == pytest.approx((lows[0] * scale, highs[0] * scale), rel=1e-13)
    # R 4.2.2, effectsize 0.8.3 (tests/reference/hedges_g_effectsize.R): the estimate to rounding; the limits to
    # 1e-6, as close as R's Nelder-Mead search for the noncentrality (abstol 1e-9) gets
    reference = pd.read_csv(pathlib.Path(__file__).parent / "reference" / "hedges_g_effectsize.csv",
                            comment="#").set_index("n_total").loc[total]
    assert g == pytest.approx(reference["hedges_g"], rel=1e-13)
    assert (low, high) == pytest.approx((reference["ci_low"], reference["ci_high"]), abs=1e-6)


def test_hedges_correction_is_exact_for_large_df():
    # five terms of J's asymptotic series in x = (df - 1)/2 leave less than 1e-16 at these df; scipy's Pochhammer
    # symbol is within 3e-13 (df = 1e3), where a difference of log-gammas would be 1.5e-8 off at df = 1e8
    for df in (1e3, 1e5, 1e8):
        x = (df - 1) / 2
        series = math.sqrt(x / (x + 0.5)) * (1 - 1 / (8 * x) + 1 / (128 * x**2) + 5 / (1024 * x**3)
                                             - 21 / (32768 * x**4))
        assert _kernels.hedges_correction(df) == pytest.approx(series, rel=1e-12)


@pytest.mark.parametrize("t, df", [(0.0, 38.0), (3.34, 8.0), (-2.5, 4.0), (12.0, 18.0), (40.0, 198.0), (50.0, 2.0)])
def test_noncentral_t_limits_match_root_finding(t, df):
    from scipy.optimize import brentq

    low, high = _kernels.noncentral_t_limits(np.array([t]), np.array([df]), 0.9)
    for limit, target in [(low[0], 0.95), (high[0], 0.05)]:
        root = brentq(lambda ncp: stats.nct.cdf(t, df, ncp) - target, limit - 5, limit + 5, xtol=1e-13)
        # scipy >= 1.13 agrees to 1e-9; scipy 1.11's nct.cdf is looser, 6e-6 relative at t = 50 with 2 df
        assert limit == pytest.approx(root, rel=2e-5)


def test_permutation_is_exact_enumeration():
    x, y = np.array([3.0, 5.0, 4.0, 6.0]), np.array([1.0, 2.0, 2.5, 4.5])
    greater, less, how = _kernels.one_sided("fisher_pitman", x[None], y[None], None, 1000)
    assert how == "exact"
    assert greater[0] == pytest.approx(_enumerated(x, y, _mean_difference))
    assert less[0] == pytest.approx(_enumerated(y, x, _mean_difference))


@pytest.mark.parametrize("interval", ["a12", "hedges_g"])
def test_effect_size_intervals_cover(interval):
    # Normal runs, 10 per agent, shift 0.8: true A12 = Phi(0.8 / sqrt 2), true g = 0.8 (reduced: 400 samples).
    rng = np.random.default_rng(1)
    truth = stats.norm.cdf(0.8 / np.sqrt(2)) if interval == "a12" else 0.8
    pairs = [(rng.normal(0.8, 1.0, 10), rng.normal(0.0, 1.0, 10)) for _ in range(400)]
    a12, hedges, _ = _kernels.effect_sizes(pairs, 0.95)
    bounds = a12 if interval == "a12" else hedges
    hits = np.sum((bounds[:, 1] <= truth) & (truth <= bounds[:, 2]))
    assert abs(hits / 400 - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 400)


# Grid points re-measured in the default suite (all agents equal: the least favourable): the default, approximate
# test on skewed scores at few runs, and the mean's permutation test on capped scores; each pools the module's
# design draws.
QUICK_POINTS = [("welch", 2, 3, "skewed", "all_equal"), ("fisher_pitman", 2, 5, "capped", "all_equal")]


def _calibration_row(test, agents, runs, distribution, configuration):
    rows = [r for r in calibration.rows() if (r["test"], int(r["agents"]), int(r["runs"]), r["distribution"],
                                              r["configuration"]) == (test, agents, runs, distribution, configuration)]
    assert len(rows) == 1, "the calibration table lacks this grid point"
    return rows[0]


def _check_coverage(point, n_sim):
    measured = COVERAGE["measure"](*point, n_sim, seed=99)
    row = _calibration_row(*point)
    quoted = calibration.shortfall(point[0], point[1], point[2], 0.05, "holm") is not None
    bound = 0.95 - 3 * np.sqrt(0.05 * 0.95 / n_sim)
    if measured["coverage"] < bound and not quoted:
        # A point at 0.95 falls below 3 SE with 320 tasks by its Monte Carlo error alone with probability 0.0032,
        # about once in the slow grid's 305 points (audit s36: brunnermunzel-2-20-normal-all_equal, 291/320 at
        # seed 99, 0.945 on 3,200 other tasks): a fall is confirmed on 4 times the tasks, other data sets, as the
        # reference scripts continue a point, and a real shortfall fails there too.
        confirmed = COVERAGE["measure"](*point, 4 * n_sim, seed=100)["coverage"]
        assert confirmed >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / (4 * n_sim)), (point, measured["coverage"], confirmed)
    # the table agrees with the re-measure within their joint Monte Carlo error
    tabled, n_tabled = float(row["coverage"]), int(row["n_sim"])
    joint = np.sqrt(0.05 * 0.95 * (1 / n_sim + 1 / n_tabled))
    assert abs(measured["coverage"] - tabled) <= 4 * joint, (point, measured["coverage"], tabled)


@pytest.mark.parametrize("point", QUICK_POINTS, ids=lambda point: "-".join(map(str, point)))
def test_possibly_best_set_keeps_the_best_quick(point):
    _check_coverage(point, n_sim=240)


@pytest.mark.slow
@pytest.mark.parametrize("point", COVERAGE["grid"](), ids=lambda point: "-".join(map(str, point)))
def test_possibly_best_set_keeps_the_best(point):
    _check_coverage(point, n_sim=COVERAGE["SIMULATIONS"][0])


def test_results_quote_a_measured_shortfall(monkeypatch):
    rows = ({"test": "welch", "agents": "3", "runs": "3", "distribution": "skewed", "configuration": "all_equal",
             "n_sim": "800", "n_resamples": "10000", "coverage": "0.9", "se": "0.0106", "set_size": "2.9"},
            {"test": "welch", "agents": "3", "runs": "5", "distribution": "capped", "configuration": "all_equal",
             "n_sim": "320", "n_resamples": "2000", "coverage": "0.94", "se": "0.0122", "set_size": "2.9",
             "design_draws": "4", "coverage_min": "0.85"})
    monkeypatch.setattr(calibration, "rows", lambda: rows)
    res = rlstats.task_table(rlstats.datasets.simulate(agents=3, tasks=2, seeds=3, rng=0), FORMULA)
    assert any(n.startswith("measured coverage of the possibly-best set for the Welch t test with 3 agents and 3 "
                            "runs per agent: 0.900 (skewed scores, all equal; 800 simulations), below 0.95") for n in
               res.notes)
    # a row that misses in its worst design draw only is quoted with that draw
    res = rlstats.task_table(rlstats.datasets.simulate(agents=3, tasks=2, seeds=5, rng=0), FORMULA)
    assert any(n.startswith("measured coverage of the possibly-best set for the Welch t test with 3 agents and 5 "
                            "runs per agent: 0.940, 0.850 in the worst of its 4 draws of the tasks' offsets and scales "
                            "(capped scores, all equal; 320 simulations), its worst draw below 0.95 by more than 3 "
                            "Monte Carlo standard errors of a draw") for n in res.notes)
    assert not any("measured coverage of the possibly-best set" in n for n in rlstats.task_table(
        rlstats.datasets.simulate(agents=3, tasks=2, seeds=3, rng=0), FORMULA, alpha=0.1).notes)


def test_calibration_table_ships_with_the_package():
    import configparser

    from rlstats import calibration as package_table

    config = configparser.ConfigParser()
    config.read(pathlib.Path(__file__).resolve().parents[1] / "setup.cfg")
    assert "calibration.csv" in config.get("options.package_data", "rlstats")
    assert package_table.PATH.is_file() and len(calibration.rows()) == len(COVERAGE["grid"]())


def test_outputs_render(table):
    latex = table.to_latex()
    assert r"\textbf{" in latex and r"$^\dagger$" in latex and r"\toprule" in latex
    assert "Welch t test" in latex and "Holm" in latex and r"95\% confidence set" in latex and "6 runs" in latex
    assert "**" in table.to_markdown() and "<b>" in table._repr_html_()
    assert table.tidy().shape == (12, 30) and len(table.glance()) == 1  # 9 columns against the next-ranked (issue 41)
    assert unknown_columns(table.tidy().columns) == []
    assert "possibly best: the bold and marked agents form a 95% confidence set" in table.caption()
    assert r"95\% confidence set for the task's best agent" in table.report()  # LaTeX text by default
    assert "95% confidence set for the task's best agent" in table.report(format="text")
    assert "Welch t test" in str(table) and "Best per task" in table.report()


def test_wide_tables_span_the_page_or_shrink_on_request():
    wide = rlstats.task_table(rlstats.datasets.simulate(agents=5, tasks=2, seeds=3, rng=0), FORMULA)
    assert r"\begin{table*}[t]" in wide.to_latex() and "resizebox" not in wide.to_latex()
    shrunk = wide.to_latex(environment="table", resize=True)
    assert r"\begin{table}[ht]" in shrunk and r"\resizebox{\ifdim\width>\linewidth" in shrunk
    assert "needs \\usepackage{booktabs} and \\usepackage{graphicx}" in shrunk


def test_aggregate_row_comes_from_the_bootstrap(data):
    res = rlstats.task_table(data, FORMULA, aggregate="bootstrap", statistic="iqm", n_resamples=300, rng=0)
    boot = rlstats.bootstrap(data, "score ~ agent | task/seed", metrics=["iqm"], n_resamples=300,
                             rng=np.random.SeedSequence(0).spawn(1)[0])
    np.testing.assert_allclose(res.aggregate["estimates"], boot.estimates[:, 0])
    assert "Aggregate" in res.to_latex() and any("normalize=" in n for n in res.notes)


def test_errors(data):
    with pytest.raises(OptionError, match="test"):
        rlstats.task_table(data, FORMULA, test="ttest")
    with pytest.raises(DesignError, match="needs tasks"):
        rlstats.task_table(data[data["task"] == "task_01"], "score ~ agent")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (apt-get install "
                    "texlive-latex-recommended); the LaTeX output is checked for compilation where it is")
def test_latex_output_compiles(table, tmp_path):
    summary = rlstats.compare(rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, rng=0), "score ~ agent | task")
    document = "\n".join([r"\documentclass{article}", r"\usepackage{booktabs}", r"\usepackage{graphicx}",
                          r"\begin{document}", table.to_latex(), summary.to_latex(), r"\end{document}"])
    (tmp_path / "t.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=HANG_SECONDS)
    assert done.returncode == 0, done.stdout[-3000:]


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (apt-get install "
                    "texlive-latex-recommended)")
def test_every_report_compiles_as_latex(tmp_path):
    # pvalue="monte_carlo" in the prose used to stop pdflatex with "Missing $ inserted".
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, effect=1.0, rng=0)
    reports = [rlstats.compare(df, "score ~ agent | task", pvalue="monte_carlo", n_resamples=200, rng=0),
               rlstats.bootstrap(df, "score ~ agent | task", n_resamples=200, rng=0),
               rlstats.task_table(df, FORMULA)]
    body = "\n\n".join(r.report(format="latex") for r in reports)
    assert "monte\\_carlo" in body or "Monte Carlo" in body
    (tmp_path / "r.tex").write_text("\\documentclass{article}\\begin{document}\n" + body + "\n\\end{document}\n",
                                    encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "r.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=HANG_SECONDS)
    assert done.returncode == 0, done.stdout[-2000:]


def test_effect_size_intervals_quote_their_measured_coverage_where_short():
    # 2 agents x 3 runs is on the table's grid, where the per-pair A12 interval covers about 0.79 (skewed, one best)
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, effect=1.0, rng=0)
    res = rlstats.task_table(df, FORMULA, effect_intervals="per_pair")
    row = calibration.effect_size_shortfall("a12", 2, 3, 0.95, "per_pair")
    assert row is not None and float(row["coverage"]) < 0.95 - 3 * float(row["se"])
    assert any(n.startswith("measured coverage of the 95% Vargha-Delaney A12 interval (Brunner-Munzel) against the "
                            f"best with 2 agents and 3 runs per agent: {float(row['coverage']):.3f}") for n in res.notes)
    off_level = rlstats.task_table(df, FORMULA, confidence_level=0.9, effect_intervals="per_pair")
    assert not any("Vargha-Delaney A12 interval" in n for n in off_level.notes)  # measured at 95% only
    # the default holds its level at every measured design, so it quotes nothing
    assert calibration.effect_size_shortfall("a12", 2, 3, 0.95) is None
    assert not any("Vargha-Delaney A12 interval" in n for n in rlstats.task_table(df, FORMULA).notes)


# ---- issue 40 item 1: effect-size intervals at their level from 3 runs, adjusted for the choice of the best
EFFECTS = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_effect_sizes.py"))


def test_fcr_level_by_hand():
    # 1 - 2 * 0.05 / k: 0.95 with 2 agents, 1 - 0.1 / 3 and 1 - 0.1 / 8
    assert _kernels.fcr_level(0.95, np.array([2, 3, 8])) == pytest.approx([0.95, 1 - 0.1 / 3, 0.9875], rel=1e-15)


@pytest.mark.parametrize("estimate, n, m", [(1.0, 3, 3), (7 / 9, 3, 3), (0.5, 5, 5), (0.3, 4, 6), (0.0, 10, 10),
                                            (0.93, 20, 20)])
def test_a12_score_limits_solve_newcombes_equation(estimate, n, m):
    # an independent root finder on Newcombe's quadratic in theta, with the t quantile and the continuity correction
    from scipy import optimize

    q, n_star = stats.t.ppf(0.975, n + m - 2), (n + m) / 2 - 1

    def excess(theta, centre):
        v = theta * (1 - theta) / (n * m) * (1 + (n_star - 1) * (1 - theta) / (2 - theta)
                                             + (n_star - 1) * theta / (1 + theta))
        return (centre - theta) ** 2 - q * q * v

    low_c, high_c = max(estimate - 0.5 / (n * m), 0.0), min(estimate + 0.5 / (n * m), 1.0)
    low = 0.0 if low_c == 0 else optimize.brentq(excess, 0.0, low_c - 1e-15, args=(low_c,), xtol=1e-14)
    high = 1.0 if high_c == 1 else optimize.brentq(excess, high_c + 1e-15, 1.0, args=(high_c,), xtol=1e-14)
    got = _kernels.a12_score_limits(np.array([estimate]), n, m, 0.95)
    assert (float(got[0][0]), float(got[1][0])) == pytest.approx((low, high), abs=1e-12)
    assert low <= estimate <= high


def test_fcr_hedges_interval_is_the_noncentral_t_limits_without_j():
    x, y = np.array([3.1, 4.7, 5.2, 6.0]), np.array([1.0, 2.5, 2.2])
    n, m = x.size, y.size
    d = (x.mean() - y.mean()) / np.sqrt(((n - 1) * x.var(ddof=1) + (m - 1) * y.var(ddof=1)) / (n + m - 2))
    root = math.sqrt(n * m / (n + m))
    lows, highs = _kernels.noncentral_t_limits(np.array([d * root]), np.array([n + m - 2.0]), 0.99)
    _, hedges, welch = _kernels.effect_sizes([(x, y)], 0.95, intervals="fcr_normal", effect_levels=0.99)
    assert hedges[0, 1:] == pytest.approx([lows[0] / root, highs[0] / root], rel=1e-13)
    # Welch's interval at the effect sizes' level too (audit s32: it stayed at ``level``), as scipy's at 0.99
    reference = stats.ttest_ind(x, y, equal_var=False).confidence_interval(0.99)
    assert welch[0, 2:] == pytest.approx([reference.low, reference.high], rel=1e-12)


def test_fcr_hedges_interval_widens_by_the_runs_kurtosis_around_d():
    # issue 40: the default stretches fcr_normal's limits around d by sqrt(max(1, V / V_normal)), V the delta
    # method's variance of d with the pooled kurtosis of the residuals, V_normal the same at kurtosis 3
    x, y = np.array([0.1, 0.2, 0.15, 0.3, 4.0, 0.25]), np.array([-1.0, -0.9, -1.2, -0.8, -1.1, -0.95])
    n, m = x.size, y.size
    d = (x.mean() - y.mean()) / np.sqrt(((n - 1) * x.var(ddof=1) + (m - 1) * y.var(ddof=1)) / (n + m - 2))
    r = np.r_[x - x.mean(), y - y.mean()]
    kurtosis = (r ** 4).mean() / (r ** 2).mean() ** 2  # 7.5 here: one far run
    stretch = math.sqrt((1 / n + 1 / m + d * d * (kurtosis - 1) / (4 * (n + m - 2)))
                        / (1 / n + 1 / m + d * d / (2 * (n + m - 2))))
    assert kurtosis > 3 and stretch > 1.05
    (_, normal, _), (_, widened, _) = (_kernels.effect_sizes([(x, y)], 0.95, intervals=i) for i in
                                       ("fcr_normal", "fcr"))
    assert widened[0, 0] == normal[0, 0]  # the estimate is g either way
    assert widened[0, 1:] == pytest.approx(d + stretch * (normal[0, 1:] - d), rel=1e-13)
    # light tails (kurtosis below 3) and d = 0 leave the exact interval as it is
    flat = np.array([0.0, 1.0, 0.0, 1.0]), np.array([0.5, 1.5, 0.5, 1.5])
    assert (_kernels.effect_sizes([flat], 0.95, intervals="fcr")[1] ==
            _kernels.effect_sizes([flat], 0.95, intervals="fcr_normal")[1]).all()
    assert _kernels.kurtosis_stretch(x, y, 0.0) == 1.0


@pytest.mark.parametrize("point", [(2, 3, "skewed", "one_best", 40), (8, 3, "normal", "all_equal", 8)])
def test_default_effect_size_intervals_hold_their_level_where_per_pair_ones_miss(point):
    # reduced re-measurement of two grid points of tests/reference/coverage_effect_sizes.py (whole grid: -m slow);
    # the per-pair intervals covered 0.79 and 0.81 (A12) there, below these bounds
    rows = {(r["interval"], r["metric"]): r for r in EFFECTS["measure"](*point, intervals=("fcr", "per_pair"))}
    for metric in ("a12", "hedges_g"):
        row = rows["fcr", metric]
        assert row["coverage"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / row["n_sim"]), row
    old = rows["per_pair", "a12"]
    assert old["coverage"] < 0.95 - 3 * math.sqrt(0.95 * 0.05 / old["n_sim"]), old


@pytest.mark.slow
def test_default_effect_size_intervals_hold_their_level_on_the_whole_grid():
    rows = [{k: str(v) for k, v in row.items()}
            for point in EFFECTS["grid"]() for row in EFFECTS["table_rows"](point, EFFECTS["SIMULATIONS"][0])]
    columns = ("interval", "metric", "agents", "runs", "distribution", "configuration")
    table = {tuple(row[c] for c in columns): row for row in rlstats.calibration.rows(calibration.EFFECT_SIZE_PROCEDURE)}
    assert len(rows) == 400 and all(tuple(row[c] for c in columns) in table for row in rows)
    # today's code measures the table's rows: every row of as many tasks as the table's is the table's row
    same = [(row, table[tuple(row[c] for c in columns)]) for row in rows]
    same = [(row, tabled) for row, tabled in same if row["n_sim"] == tabled["n_sim"]]
    assert len(same) == 399 and all(float(row["coverage"]) == pytest.approx(float(tabled["coverage"]), abs=1e-6) and
                                    float(row["coverage_min"]) == pytest.approx(float(tabled["coverage_min"]), abs=1e-6)
                                    for row, tabled in same)
    # a default (fcr) row that misses is quoted by the result (Hedges' g at 8 capped agents and 2 runs: 0.896 of
    # 2,800 tasks), or the table measured its point on more tasks where it holds (Hedges' g at 2 skewed agents and 5
    # runs: worst draw 0.880 of 100 tasks, 0.969 of 8,000 in the table)
    missed = [row for row in rows if row["interval"] == "fcr" and rlstats.calibration.misses(row, 0.95)]
    for row in missed:
        tabled = table[tuple(row[c] for c in columns)]
        quoted = calibration.effect_size_shortfall(row["metric"], int(row["agents"]), int(row["runs"]), 0.95)
        held = int(tabled["n_sim"]) > int(row["n_sim"]) and not rlstats.calibration.misses(tabled, 0.95)
        assert quoted is not None or held, (row, tabled)


# ---- issue 39 item 5: a score with known bounds never gets an interval outside them
def test_bounds_clip_welchs_interval_of_a_difference_to_the_bounds_width():
    import pandas as pd

    values = {"A": [1.0, 0.98, 0.2], "B": [0.0, 0.02, 0.9]}  # success rates in [0, 1]
    df = pd.DataFrame([(a, "t1", s, values[a][s]) for a in "AB" for s in range(3)],
                      columns=["agent", "task", "seed", "score"])
    free = rlstats.task_table(df, "score ~ agent | task/seed", n_resamples=200, rng=0)
    capped = rlstats.task_table(df, "score ~ agent | task/seed", bounds=(0, 1), n_resamples=200, rng=0)
    a, b = np.array(values["A"]), np.array(values["B"])  # Welch's interval of A's mean less B's, by hand
    difference = a.mean() - b.mean()
    se2 = a.var(ddof=1) / 3 + b.var(ddof=1) / 3
    df_w = se2 ** 2 / ((a.var(ddof=1) / 3) ** 2 / 2 + (b.var(ddof=1) / 3) ** 2 / 2)
    from scipy import stats

    half = stats.t.ppf(0.975, df_w) * np.sqrt(se2)
    assert free.welch[0, 1, 2:] == pytest.approx([difference - half, difference + half], rel=1e-12)
    assert free.welch[0, 1, 0] == pytest.approx(difference / np.sqrt(se2), rel=1e-12) and difference + half > 1
    assert capped.welch[0, 1, 2:] == pytest.approx([difference - half, 1.0], rel=1e-12)
    assert capped.welch[0, 1, 3] == 1.0
    assert "1 end of Welch's intervals of the differences of means clipped to [-1, 1], the largest difference " \
           "the bounds allow (bounds=(0, 1)): the true value lies within them, so clipping keeps the coverage" \
           in capped.notes
    np.testing.assert_array_equal(capped.p_values, free.p_values)


# ---------------------------------------------------------------- issue 39 item 4: ties at floating-point noise

from conftest import noise_ties  # noqa: E402

@pytest.mark.parametrize("test", ["mannwhitney", "brunnermunzel"])
def test_rank_tests_and_a12_read_noise_as_ties_and_means_stay_exact(test):
    # b's runs equal a's up to 1e-15 (0 against -7e-15 among scores up to 13): the ranks are those of exact ties
    noisy, exact = noise_ties(3)
    res = rlstats.task_table(noisy, "score ~ agent | task/seed", test=test, rng=0)
    ties = rlstats.task_table(exact, "score ~ agent | task/seed", test=test, rng=0)
    mean_based = ["std_dev", "welch_t", "welch_df", "diff_low", "diff_high", "hedges_g", "hedges_g_low",
                  "hedges_g_high", "estimate"]
    pd.testing.assert_frame_equal(res.tidy().drop(columns=mean_based), ties.tidy().drop(columns=mean_based))
    # the means and sds are those of the scores given, noise included
    np.testing.assert_array_equal(res.estimates, noisy.groupby(["task", "agent"])["score"].mean().unstack())
    assert any("are within 1e-12" in note for note in res.notes)


# ----------------------------------------------------------------------------- issue 41 item 3: against the next-ranked

def test_effect_sizes_against_the_next_ranked_agent():
    df = rlstats.datasets.simulate(agents=4, tasks=3, seeds=5, effect=1.0, rng=0)
    table = rlstats.task_table(df, "score ~ agent | task/seed")
    tidy = table.tidy()
    assert not unknown_columns(tidy)
    for task, rows in tidy.groupby("task"):
        rows = rows.sort_values("estimate", ascending=False)
        agents = rows["agent"].tolist()
        assert rows["next_agent"].iloc[0] is None and np.isnan(rows["a12_next"].iloc[0])
        assert rows["next_agent"].iloc[1:].tolist() == agents[:-1]  # each agent's neighbour above
        # the second-ranked agent's neighbour is the best: the same numbers as against the best
        second = rows.iloc[1]
        for column in ("a12", "a12_low", "a12_high", "hedges_g", "hedges_g_low", "hedges_g_high", "diff_low",
                       "diff_high"):
            nxt = column.replace("a12", "a12_next").replace("hedges_g", "hedges_g_next").replace("diff", "diff_next")
            assert second[nxt] == second[column]
        for _, row in rows.iloc[1:].iterrows():
            x = df.loc[(df["task"] == task) & (df["agent"] == row["next_agent"]), "score"].to_numpy()
            y = df.loc[(df["task"] == task) & (df["agent"] == row["agent"]), "score"].to_numpy()
            wins = (x[:, None] > y[None, :]).mean() + 0.5 * (x[:, None] == y[None, :]).mean()
            assert row["a12_next"] == pytest.approx(wins, abs=1e-12)
            # at the effect sizes' level, 1 - 2 (1 - 0.95) / 4 with 4 agents (audit s32)
            welch = stats.ttest_ind(x, y, equal_var=False).confidence_interval(1 - 2 * 0.05 / 4)
            assert (row["diff_next_low"], row["diff_next_high"]) == pytest.approx((welch.low, welch.high), rel=1e-9)
    assert "ranked just above each agent" in table.report()


def test_effect_sizes_against_the_next_ranked_are_withheld_without_runs():
    df = rlstats.datasets.simulate(agents=3, tasks=2, seeds=4, effect=2.0, rng=1)
    # agent_2 keeps one run on task_01: its comparisons, and the one below it, lose their intervals
    keep = ~((df["task"] == "task_01") & (df["agent"] == "agent_2") & (df["seed"] > 0))
    table = rlstats.task_table(df[keep], "score ~ agent | task/seed")
    tidy = table.tidy().set_index(["task", "agent"])
    # task_01 ranks agent_3, agent_2 (one run), agent_1: both of agent_2's pairs lose their intervals and g
    assert tidy.loc[("task_01", "agent_1"), "next_agent"] == "agent_2"
    for cell in (("task_01", "agent_1"), ("task_01", "agent_2")):
        assert np.isnan(tidy.loc[cell, "a12_next_low"]) and np.isnan(tidy.loc[cell, "hedges_g_next"])
        assert np.isfinite(tidy.loc[cell, "a12_next"])  # A12 counts wins from one run a side
    assert np.isfinite(tidy.loc[("task_02", "agent_1"), "a12_next_low"])
    # against the best, agent_1's comparison keeps its interval: a note names the cell withheld only here
    assert np.isfinite(tidy.loc[("task_01", "agent_1"), "a12_low"])
    assert any("the comparisons with the next-ranked agent are withheld in 1 cell (task_01/agent_1)" in n
               for n in table.notes)


# issue 41 item 4: the intervals against the next-ranked agent (rows task_table.next_ranked of calibration.csv)

@pytest.mark.parametrize("point", [(3, 3, "skewed", "spaced"), (8, 5, "heavy_tailed", "all_equal")])
def test_next_ranked_intervals_hold_their_level_reduced(point):
    # a reduced re-measurement of two grid points: the share of printed next-ranked intervals that hold the exact
    # truth is at least 0.95 - 3 SE, pooled and in the worst design draw
    module = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_next_ranked.py"))
    agents, runs, distribution, configuration = point
    for row in module["measure"](agents, runs, distribution, configuration, 12, seed=9):
        assert row["n_sim"] == 4 * 12 * (agents - 1)
        assert not rlstats.calibration.misses({k: str(v) for k, v in row.items()}, 0.95), row
