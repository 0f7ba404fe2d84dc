"""Audit s32 (rhabit32): an R user's spellings (lme4, emmeans, PMCMRplus) that got no hint, each refused naming the
rlstats way, and every way offered run here on a small frame.

1. compare(method=) with R's names of tests: "friedman.test", "quade" (R's quade.test), "wilcoxon" (R's
   pairwise.wilcox.test, wilcox.test) and "tost" (the two one-sided tests) -- the back ends' ``other_names``.
2. skillings_mack(pvalue="chisq") and PMCMRplus' dist= ("Chisquare", "Tukey", "KruskalWallis", "FDist").
3. mixed(adjust=) with emmeans' values: "bonferroni", "sidak", "scheffe", "hochberg", "hommel", "bh", "by" are
   offered (checked against emmeans, tests/reference/mixed_adjust_r.json); "mvt", "fdr" and "BH" name the value
   rlstats takes.
4. na_action="na.pass" (R's na.pass keeps the missing values): said what to use.
"""

import functools
import json
import pathlib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats.errors import OptionError

REFERENCE = json.loads((pathlib.Path(__file__).parent / "reference" / "mixed_adjust_r.json").read_text())


@pytest.fixture(scope="module")
def runs():
    return rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=1, rng=0)


@pytest.fixture(scope="module")
def one_run():
    return rlstats.datasets.simulate(agents=3, tasks=8, seeds=1, effect=1, rng=1)


def _refused(call):
    with pytest.raises(OptionError) as error:
        call()
    return str(error.value)


# ---- 1: R's names of tests given to compare(method=) -----------------------------------------------------------
@pytest.mark.parametrize("method, phrases", [
    ("friedman.test", ("R's friedman.test is method='skillings_mack' here", "pvalue='asymptotic'")),
    ("quade", ("Quade's test (R's quade.test) is method='skillings_mack' here, with variant='quade'",)),
    ("quade.test", ("is method='skillings_mack' here, with variant='quade'",)),
    ("wilcoxon", ("is method='skillings_mack' here, with posthoc='wilcoxon'", "method='task_table' with "
                  "test='mannwhitney'")),
    ("pairwise.wilcox.test", ("is method='skillings_mack' here, with posthoc='wilcoxon'",)),
    ("tost", ("is method='equivalence' here", "margin=")),
])
def test_r_names_of_tests_say_the_rlstats_method(runs, method, phrases):
    said = _refused(lambda: rlstats.compare(runs, "score ~ agent | task", method))
    assert said.startswith(f"method={method!r} is not one of the available methods")
    for phrase in phrases:
        assert phrase in said


def test_friedman_test_way_is_r_friedman_test(one_run):
    """R's friedman.test (chi-squared on k - 1 df, ties corrected), scipy's friedmanchisquare, is the way offered."""
    res = rlstats.compare(one_run, "score ~ agent | task", "skillings_mack", pvalue="asymptotic")
    wide = one_run.pivot(index="task", columns="agent", values="score")
    statistic, p = stats.friedmanchisquare(*[wide[c].to_numpy() for c in wide.columns])
    assert res.pvalue == pytest.approx(p, rel=1e-10)


def _quade_pvalue(wide):
    """Quade's F (Conover 1999, 5.8): tasks weighted by the rank of their range; F on k - 1 and (b - 1)(k - 1) df."""
    b, k = wide.shape
    q = stats.rankdata(wide.max(axis=1) - wide.min(axis=1))
    s = q[:, None] * (stats.rankdata(wide, axis=1) - (k + 1) / 2)
    a2, b2 = (s ** 2).sum(), (s.sum(axis=0) ** 2).sum() / b
    return stats.f.sf((b - 1) * b2 / (a2 - b2), k - 1, (b - 1) * (k - 1))


def test_quade_way_is_quade_f(one_run, runs):
    res = rlstats.compare(one_run, "score ~ agent | task", "skillings_mack", variant="quade")
    wide = one_run.pivot(index="task", columns="agent", values="score").to_numpy()
    assert res.pvalue == pytest.approx(_quade_pvalue(wide), rel=1e-10)
    # several runs a cell: within_cell="mean", as the hint says
    res = rlstats.compare(runs, "score ~ agent | task", "skillings_mack", variant="quade", within_cell="mean")
    means = runs.groupby(["task", "agent"])["score"].mean().unstack().to_numpy()
    assert res.pvalue == pytest.approx(_quade_pvalue(means), rel=1e-10)


def test_wilcoxon_ways_are_the_signed_rank_and_rank_sum_tests(runs):
    res = rlstats.compare(runs, "score ~ agent | task", "skillings_mack", posthoc="wilcoxon")
    row = res.tidy().iloc[0]
    means = runs.groupby(["task", "agent"])["score"].mean().unstack()
    exact = stats.wilcoxon(means[row["agent_1"]], means[row["agent_2"]]).pvalue  # 6 tasks, no ties: exact
    assert row["p_value"] == pytest.approx(exact, rel=1e-10)
    table = rlstats.compare(runs, "score ~ agent | task", "task_table", test="mannwhitney")
    assert table.test == "mannwhitney"


def test_tost_way_is_two_one_sided_welch_tests(runs):
    res = rlstats.compare(runs.query("task == 'task_02'"), "score ~ agent | task", "equivalence", margin=1.0)
    row = res.tidy().query("scope == 'task' and agent_1 == 'agent_1' and agent_2 == 'agent_2'").iloc[0]
    one, two = (runs.query(f"task == 'task_02' and agent == '{a}'")["score"].to_numpy() for a in ("agent_1",
                                                                                                 "agent_2"))
    lower = stats.ttest_ind(one + 1.0, two, equal_var=False, alternative="greater").pvalue
    upper = stats.ttest_ind(one - 1.0, two, equal_var=False, alternative="less").pvalue
    assert row["p_value"] == pytest.approx(max(lower, upper), rel=1e-10)


# ---- 2: the rank test's p-value spelled as R and PMCMRplus spell it ----------------------------------------------
@pytest.mark.parametrize("options, phrases", [
    ({"pvalue": "chisq"}, ("pvalue='chisq' is not one of the allowed values", "is pvalue='asymptotic' here")),
    ({"pvalue": "Chisquare"}, ("is pvalue='asymptotic' here",)),
    ({"pvalue": "approximate"}, ("coin's approximate()", "is pvalue='monte_carlo' here")),
    ({"dist": "Chisquare"}, ("skillings_mack() has no option dist=", "dist=\"Chisquare\" is pvalue='asymptotic'",
                             "dist=\"Tukey\"", "adjustment='tukey'", "dist=\"KruskalWallis\" belongs to kruskalTest",
                             "pvalue='exact'",
                             "dist=\"FDist\"")),
])
def test_pmcmrplus_distributions_say_the_rlstats_option(runs, options, phrases):
    said = _refused(lambda: rlstats.skillings_mack(runs, "score ~ agent | task", **options))
    for phrase in phrases:
        assert phrase in said


def test_dist_through_compare_says_the_rlstats_option(runs):
    said = _refused(lambda: rlstats.compare(runs, "score ~ agent | task", "skillings_mack", dist="Tukey"))
    assert "has no option dist=" in said and "adjustment='tukey'" in said


# ---- 3: emmeans' adjustments of the mixed model's contrasts ------------------------------------------------------
_OFFERED = {"bonferroni": "bonferroni", "sidak": "sidak", "scheffe": "scheffe", "hochberg": "hochberg",
            "hommel": "hommel", "bh": "BH", "by": "BY", "holm": "holm", "tukey": "tukey", "none": "none"}


@functools.cache
def _fitted(ours):
    return rlstats.mixed(pd.DataFrame(REFERENCE["data"]), "score ~ agent | task/seed", adjust=ours)


@pytest.mark.parametrize("ours", list(_OFFERED))
def test_mixed_adjustments_are_emmeans(ours):
    """p-values and intervals of each adjust= against emmeans 1.8.4.1 (the fit to ~1e-7: tight REML optimum)."""
    theirs = REFERENCE[_OFFERED[ours]]
    pairs = _fitted(ours).tidy()
    assert (pairs["agent_1"] + " - " + pairs["agent_2"]).tolist() == theirs["contrast"]
    np.testing.assert_allclose(pairs["p_adjusted"], theirs["p_value"], rtol=2e-5 if ours == "tukey" else 1e-6)
    np.testing.assert_allclose(pairs["conf_low"], theirs["conf_low"], rtol=1e-6)
    np.testing.assert_allclose(pairs["conf_high"], theirs["conf_high"], rtol=1e-6)
    assert set(pairs["adjustment"]) == {ours}


@pytest.mark.parametrize("ours, line", [
    ("bonferroni", "P value adjustment: bonferroni method for 6 tests"),
    ("sidak", "P value adjustment: sidak method for 6 tests"),
    ("scheffe", "P value adjustment: scheffe method with rank 3"),
    ("bh", "P value adjustment: BH method for 6 tests"),
    ("hochberg", "P value adjustment: hochberg method for 6 tests"),
])
def test_mixed_adjustments_are_printed_as_emmeans_says_them(ours, line):
    res = _fitted(ours)
    assert line in REFERENCE[_OFFERED[ours]]["message"]
    assert line in str(res)
    interval = {"sidak": "Sidak", "scheffe": "Scheffe"}.get(ours, "Bonferroni")
    assert f"95% simultaneous intervals ({interval})" in str(res.summary())


def test_mixed_mvt_is_tukey_on_this_balanced_design():
    """emmeans' mvt (mvtnorm's integral, random to ~1e-4) and Tukey's studentized range agree on a balanced design."""
    np.testing.assert_allclose(REFERENCE["mvt"]["p_value"], REFERENCE["tukey"]["p_value"], atol=3e-4)
    np.testing.assert_allclose(REFERENCE["mvt"]["conf_low"], REFERENCE["tukey"]["conf_low"], atol=3e-3)


@pytest.mark.parametrize("value, phrases", [
    ("mvt", ("adjust='mvt' is not one of the allowed values", "is adjust='tukey' here", "balanced")),
    ("fdr", ("R's p.adjust 'fdr' (Benjamini-Hochberg) is adjust='bh' here",)),
    ("BH", ("did you mean 'bh'?",)),
    ("dunnettx", ("adjust='dunnettx' is not one of the allowed values",)),
])
def test_mixed_other_adjustments_name_the_rlstats_value(runs, value, phrases):
    said = _refused(lambda: rlstats.mixed(runs, "score ~ agent | task", adjust=value))
    for phrase in phrases:
        assert phrase in said


# ---- 4: R's na.pass -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{"na_action": "na.pass"}, {"na.action": "na.pass"}])
def test_na_pass_says_what_to_use(runs, options):
    said = _refused(lambda: rlstats.skillings_mack(runs, "score ~ agent | task", **options))
    assert "R's na.pass (which hands the missing values on to the test) has no counterpart here" in said
    assert "na_action='drop'" in said and "na_action='raise'" in said
