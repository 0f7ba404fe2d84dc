"""Session 15 audit of the sides of rlstats.selection_check()'s intervals and of two gaps in rlstats.tuning().

The selection check's tests (inspector and reporter) are one-sided ("greater"), as tidy() says; its intervals were
two-sided, so a result could call the reporter significant while its interval held 0. Checked against scipy's
one-sided intervals (ttest_ind / ttest_1samp with alternative="greater") and by duality over random data sets: a
one-sided lower bound at level 1 - a excludes 0 exactly when the one-sided p-value is at most a. In tuning(): a
sweep where only some configurations have one seed, and seeds that are equal values written differently (0, 0.0).
"""


import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from conftest import one_sweep
from rlstats.tables import read_csv


def _runs(rng, effects, runs=3, skew=False):
    """Long runs of agents "new" and "old" whose per-task mean difference is about ``effects``."""
    rows = []
    for t, v in enumerate(effects):
        for s in range(runs):
            noise = -rng.exponential() if skew else rng.normal()
            rows.append(("new", f"t{t:02d}", s, v + noise))
            rows.append(("old", f"t{t:02d}", s, rng.normal()))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _check(df, reported, **options):
    return rlstats.selection_check(df, "score ~ agent | task", treatment="new", baseline="old",
                                   reported=[f"t{t:02d}" for t in reported], rng=0, **options)


def test_atari_reporter_significant_has_an_interval_above_zero(atari, published):
    """SPR against DER, human-normalised, the five games where SPR gains most reported: the reporter's t gave
    p = 0.0446 (significant at alpha = 0.05) while tidy() printed its 95% interval [-0.2665, 2.764], which holds 0;
    the printed interval of the difference was two-sided as well though the tests are one-sided."""
    reference = read_csv(published / "atari100k_reference.csv")
    pair = rlstats.normalize(atari[atari["agent"].isin(["SPR", "DER"])], reference)
    means = pair.groupby(["task", "agent"])["score"].mean().unstack()
    effect = (means["SPR"] - means["DER"]).sort_values(ascending=False)
    reported = list(effect.index[:5])
    res = rlstats.selection_check(pair, "score ~ agent | task/seed", treatment="SPR", baseline="DER",
                                  reported=reported, reporter="t", inspector="welch", rng=0)
    row = res.tidy().set_index("term").loc["reporter"]
    v_p = effect[reported].to_numpy()
    reporter = stats.ttest_1samp(v_p, 0.0, alternative="greater")
    assert row["p_value"] == pytest.approx(reporter.pvalue, rel=1e-10) and row["p_value"] < 0.05 and row["significant"]
    low = reporter.confidence_interval(0.95).low
    assert row["conf_low"] == pytest.approx(low, rel=1e-10) and row["conf_low"] > 0 and row["conf_high"] == np.inf
    welch = stats.ttest_ind(v_p, effect.drop(reported).to_numpy(), equal_var=False, alternative="greater")
    assert res.conf_int == pytest.approx(tuple(welch.confidence_interval(0.95)), rel=1e-10)
    assert "95% one-sided confidence interval of the difference (Welch t):" in str(res)
    # the default inspector, the permutation test, rejects (p = 0.001): its interval is its test inverted, above 0
    default = rlstats.selection_check(pair, "score ~ agent | task/seed", treatment="SPR", baseline="DER",
                                      reported=reported, n_resamples=999, rng=0)
    assert default.pvalue == pytest.approx(0.001) and default.conf_int[0] > 0 and default.conf_int[1] == np.inf


@pytest.mark.parametrize("inspector, equal_var", [("t", True), ("welch", False)])
def test_inspector_interval_is_scipys_one_sided_interval(inspector, equal_var):
    """conf_int and confidence_interval() were scipy's two-sided ttest_ind intervals (e.g. (-0.39, 1.56)); the test
    beside them is one-sided."""
    rng = np.random.default_rng(10)
    df = _runs(rng, np.r_[np.full(7, 0.8), np.zeros(13)])
    res = _check(df, range(7), inspector=inspector)
    v = res.effects.set_index("task")["effect"]
    v_p, v_i = v.iloc[:7].to_numpy(), v.iloc[7:].to_numpy()
    reference = stats.ttest_ind(v_p, v_i, equal_var=equal_var, alternative="greater")
    assert res.pvalue == pytest.approx(reference.pvalue, rel=1e-10)
    assert res.conf_int == pytest.approx(tuple(reference.confidence_interval(0.95)), rel=1e-10)
    assert tuple(res.confidence_interval(0.9)) == pytest.approx(tuple(reference.confidence_interval(0.9)), rel=1e-10)
    inspector_row = res.tidy().set_index("term").loc["inspector"]
    assert (inspector_row["conf_low"], inspector_row["conf_high"]) == pytest.approx(res.conf_int, rel=1e-12)


_SIDED = ({"inspector": "t", "reporter": "skew_t"}, {"inspector": "welch", "reporter": "t"},
          {"inspector": "z", "reporter": "z", "sigma": 1.0},
          {"inspector": "fisher_pitman", "n_resamples": 300})  # Monte Carlo (792 subsets)


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["in turn", "every"])
def test_one_sided_bounds_agree_with_the_one_sided_tests_over_random_data(every):
    """Duality: on 16 random data sets the one-sided 95% lower bound of each test (pooled t, Welch and z inspectors;
    t, skew-corrected t and z reporters; the permutation inspector's, with Monte Carlo p-values) is above 0 exactly
    when its one-sided p-value is at most 0.05 (and at 0.9 through confidence_interval()). The
    two-sided intervals disagreed with the tests on the data sets whose p-value lay between 0.025 and 0.05.
    The default run checks each data set under two of the four option sets in turn (each set on 8 data sets, skewed
    and not); -m slow every set on every data set."""
    rng = np.random.default_rng(2026)
    disagreements, checked = [], 0
    for i in range(16):
        effects = rng.normal(size=12) + np.r_[np.full(5, rng.uniform(0, 1.5)), np.zeros(7)]
        df = _runs(rng, effects, skew=bool(i % 2))
        for options in _SIDED if every else (_SIDED[i % 4], _SIDED[(i + 1) % 4]):
            res = _check(df, range(5), **options)
            tidy = res.tidy().set_index("term")
            for term in ("inspector", "reporter"):
                row = tidy.loc[term]
                checked += 1
                if (row["conf_low"] > 0) != (row["p_value"] <= 1 - 0.95) or row["conf_high"] != np.inf:
                    disagreements.append((i, options, term, row["p_value"], row["conf_low"], row["conf_high"]))
            # another level, through confidence_interval()
            if (res.confidence_interval(0.9).low > 0) != (res.pvalue <= 1 - 0.9):
                disagreements.append((i, options, "inspector at 0.9", res.pvalue))
    assert checked == (128 if every else 64) and disagreements == []


def test_permutation_interval_inverts_the_permutation_test():
    """The permutation inspector's interval was Welch's (on Atari SPR vs DER, five top games: p = 0.001 beside a
    Welch interval whose one-sided lower end was -0.018). Its lower end L is now the least shift of the reported
    effects that the permutation test does not reject: checked against scipy.stats.permutation_test (exact, every
    split) of the reported effects less L -/+ a small step, at 0.95 and 0.8."""
    rng = np.random.default_rng(5)
    df = _runs(rng, rng.normal(size=12) + np.r_[np.full(5, 1.2), np.zeros(7)])
    res = _check(df, range(5))
    assert res.pvalue_method == "exact" and res.interval_method == "permutation"
    v = res.effects.set_index("task")["effect"]
    v_p, v_i = v.iloc[:5].to_numpy(), v.iloc[5:].to_numpy()

    def p_at(delta):
        return stats.permutation_test((v_p - delta, v_i), lambda x, y: x.mean() - y.mean(), n_resamples=np.inf,
                                      permutation_type="independent", alternative="greater").pvalue

    assert res.pvalue == pytest.approx(p_at(0.0), rel=1e-12)
    for level in (0.95, 0.8):
        low = res.confidence_interval(level).low
        step = 1e-6 * np.ptp(v)
        assert p_at(low - step) <= 1 - level < p_at(low + step), level
    assert res.conf_int[0] == res.confidence_interval(0.95).low and res.conf_int[1] == np.inf
    # in the score's units, whatever the rows' order; Monte Carlo subsets give the bound of their own p-value
    other = _check(df.assign(score=df["score"] * 1000).sample(frac=1, random_state=1), range(5))
    assert other.conf_int[0] == pytest.approx(1000 * res.conf_int[0], rel=1e-9)
    drawn = _check(df, range(5), n_resamples=500)
    assert drawn.pvalue_method == "monte_carlo" and (drawn.conf_int[0] > 0) == (drawn.pvalue <= 0.05)
    assert "95% one-sided confidence interval of the difference (permutation test inverted over shifts)" \
        in str(res)


def test_tuning_seeds_equal_as_numbers_are_one_seed():
    """Seeds were compared as text: seed 0 and seed 0.0 of one configuration counted as two seeds (two runs of
    configuration lr=1 with 'seed 0'), so the duplicate went uncaught and the configuration's mean used both."""
    df = pd.DataFrame({"agent": "ppo", "task": "ant", "lr": [1, 1, 1, 2, 2, 2],
                       "seed": pd.Series([0, 0.0, 1, 0, 1, 2], dtype=object), "score": [1.0, 5.0, 2.0, 3, 4, 5]})
    with pytest.raises(rlstats.errors.DesignError, match="seed '0' appears more than once for agent 'ppo' on task "
                       "'ant' with configuration 'lr=1' \\(2 such rows\\)"):
        rlstats.tuning(df, "score ~ agent | task/seed", config="lr", rng=0)
    # the seeds that are distinct values stay distinct, whatever their types
    fine = df.assign(seed=pd.Series([0, 1.0, "2", 0, 1, 2], dtype=object))
    res = rlstats.tuning(fine, "score ~ agent | task/seed", config="lr", views=["best_set"], n_resamples=200, rng=0)
    assert res.tuned()["n_runs"].tolist() == [3]


def test_best_set_is_withheld_where_a_configuration_has_one_seed():
    """The bootstrap resamples each configuration's seeds, so a configuration with one seed is the same value in
    every resample: its score is treated as certain. Here lr=1's one run (1.29) sits between the others' means, and
    the sweep printed 'lr=1 selected of 3, best set of 1' as if that run were its true mean. A simulation (5
    configurations, normal seeds, 150 sweeps each; tests/reference/tuning_one_seed_best_set.py) measured the best set
    holding the truly best configuration (0.8 sd ahead) in 0.967 of sweeps with 5 seeds everywhere, 0.867 when one
    worse configuration had one seed and 0.727 when the best one had; the one-seed configuration's probability was 0
    or 1 (within 0.02) in 57-72% of sweeps against 7-24% with 5 seeds. The probabilities, the set, the optimism and the
    tuned score are withheld there, with a note naming the configurations with one seed, as for a sweep of one seed
    everywhere."""
    df = one_sweep([[1.30, 1.20, 1.25], [1.29], [1.28, 1.10, 1.20]])
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", views=["best_set"], n_resamples=200, rng=0)
    best, tuned = res.best_set(), res.tuned().iloc[0]
    assert best["probability_best"].isna().all() and not best["in_best_set"].any()
    assert np.isnan(tuned["optimism"]) and np.isnan(tuned["estimate"]) and np.isnan(tuned["n_best_set"])
    assert np.isnan(tuned["conf_low"]) and np.isnan(tuned["conf_high"])
    assert tuned["mean_selected"] == 1.29 and tuned["config"] == "lr=1"  # the one-seed run, selected
    note = [n for n in res.notes if n.startswith("best-set probabilities and the optimism correction are withheld")]
    assert len(note) == 1 and "lr=1" in note[0], res.notes
    assert "best set withheld" in str(res)
    # the configurations with two seeds or more keep them
    two = rlstats.tuning(df[df["lr"] != 1], "score ~ agent | task/seed", config="lr", views=["best_set"],
                         n_resamples=200, rng=0)
    assert two.best_set()["probability_best"].notna().all()
