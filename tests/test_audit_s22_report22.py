"""Audit s22 (report22): what res.report() and res.to_latex() say against the print and the numbers."""

import dataclasses
import re

import pytest

import rlstats
from rlstats.datasets import simulate


@pytest.fixture(scope="module")
def bayes_pair():
    """A signed-rank result of 2 agents on 5 tasks, 4000 posterior draws (shares are multiples of 1/4000)."""
    data = simulate(2, 5, 3, effect=0.8, rng=4)
    return rlstats.compare(data, "score ~ agent | task/seed", method="bayes", rope=0.0, n_samples=4000, rng=0)


def _with_shares(res, better, rope, worse):
    table = res.comparisons.copy()
    table.loc[0, ["p_better", "p_rope", "p_worse"]] = [better, rope, worse]
    return dataclasses.replace(res, comparisons=table)


def test_bayes_share_below_threshold_not_rounded_onto_it(bayes_pair):
    # 3799 of 4000 draws: P(worse) = 0.94975, short of the 0.95 at which the notes read 'practically worse'; the
    # report's 3 digits gave "0.95" while the print gave 0.9497 (audit s22): now every format keeps it off 0.95
    res = _with_shares(bayes_pair, 201 / 4000, 0.0, 3799 / 4000)
    report = res.report(format="text")
    # rope=0: no P(equivalent) (audit s34 marks34)
    assert "P(better) = 0.0503, P(worse) = 0.9497, " in report
    # the print's 5 digits since audit s30 (mends30: format.DIGITS, as summary() and to_latex())
    assert re.search(r"agent_1 vs agent_2 +0\.05025 +0\.94975 ", str(res))
    assert "& 0.05025 & 0.94975 &" in res.to_latex()  # one pair: a row of the pairs' table (fixc38)
    # above it too: 3801 of 4000 is 0.9503 (it reached the threshold, but not at exactly 0.95)
    above = _with_shares(bayes_pair, 199 / 4000, 0.0, 3801 / 4000).report(format="text")
    assert "P(worse) = 0.9503, " in above
    # a share of exactly 0.95 stays "0.95"; one far from it keeps 3 digits
    exact = _with_shares(bayes_pair, 0.05, 0.0, 0.95).report(format="text")
    assert "P(better) = 0.05, P(worse) = 0.95, " in exact
    far = _with_shares(bayes_pair, 0.069, 0.0, 0.931).report(format="text")
    assert "P(better) = 0.069, P(worse) = 0.931, " in far


def _three_by_five(drop=None):
    data = simulate(3, 5, 3, effect=1.0, rng=2)
    if drop == "cell":  # agent_2 never ran task_03
        data = data.drop(data.index[(data.agent == "agent_2") & (data.task == "task_03")])
    return data


def test_rank_table_caption_says_ranks_are_among_the_agents_present():
    # agent_2 ran 4 of the 5 tasks: its mean rank 1.9444 is among the 3 agents on 4 tasks; the print and the report
    # said "among the agents present on each task", the LaTeX caption (the table pasted alone) did not (audit s22)
    res = rlstats.compare(_three_by_five("cell"), "score ~ agent | task")
    runs = ", a run ranked r among the q runs of its task counting (r - 1/2) k / q + 1/2"
    assert f"mean ranks on 1..k{runs} (1 = best, among the agents present on each task):" in str(res)
    latex = res.to_latex()
    assert "Mean ranks (1 = best, among the agents present on each task). Mack-Skillings chi-squared = 7.2845" in latex
    assert "agent\\_2 & 1.9444 & 4 & 12 \\\\" in latex
    assert (f"Mean ranks on 1..k{runs} (1 = best, among the agents present on each task): agent_3 (1.49), "
            "agent_2 (1.94), agent_1 (2.36).") in res.report(format="text")
    # a complete design keeps the plain name (the ranks are all on one 1..k scale)
    complete = rlstats.compare(_three_by_five(), "score ~ agent | task")
    assert list(complete.summary().tables)[0] == "Mean ranks (1 = best)"


def _capped_pair():
    """Two agents on two tasks, 3 runs each; agent_1's runs on task_a all at the cap 0.7 (np.std of three 0.7s, ddof 1,
    is 1.36e-16: the mean of equal floats differs from them in its last bit)."""
    import pandas as pd

    return pd.DataFrame({"agent": ["agent_1"] * 6 + ["agent_2"] * 6,
                         "task": (["task_a"] * 3 + ["task_b"] * 3) * 2, "seed": [0, 1, 2] * 4,
                         "score": [0.7, 0.7, 0.7, 2.0, 2.5, 3.0, 0.5, 0.6, 0.4, 2.2, 2.4, 2.9]})


def test_task_table_cell_of_tied_runs_has_no_spread():
    # np.std([0.7] * 3, ddof=1) is 1.36e-16: the table read "0.7 ± 1.4e-16" (print, LaTeX, tidy), "7 ± 0" at x10
    # (audit s22); runs that all tie now have standard deviation 0, as kernels.welch_t already read them
    res = rlstats.task_table(_capped_pair(), "score ~ agent | task/seed")
    assert re.search(r"\ntask_a +\*0\.7 ± 0\* +0\.5 ± 0\.1 †\n", str(res))
    assert "task\\_a & \\textbf{0.7 $\\pm$ 0} & 0.5 $\\pm$ 0.1$^\\dagger$ \\\\" in res.to_latex()
    assert res.tidy()["std_dev"].tolist()[:2] == [0.0, pytest.approx(0.1, abs=1e-15)]
    scaled = _capped_pair().assign(score=lambda d: d.score * 10)
    assert re.search(r"\ntask_a +\*7 ± 0\* +5 ± 1 †\n", str(rlstats.task_table(scaled, "score ~ agent | task")))


def test_equivalence_bound_near_the_margin_is_not_printed_as_the_margin():
    # agent_2 - agent_3 across tasks: 90% CI -4.234 to -0.748013 and one-sided p 0.049999 (shown beyond the margin);
    # against a margin of 0.748 the report read "-4.23 to -0.748" (the end on the margin) and the print "one-sided
    # p-value (delta < -0.748) = 0.05" (on alpha) beside "shown below" (audit s22): the digits now keep them apart
    data = _three_by_five()
    first = rlstats.equivalence(data, "score ~ agent | task", margin=1.0, aggregate=None)
    across = first.comparisons.query("scope == 'across tasks' and agent_1 == 'agent_2' and agent_2 == 'agent_3'")
    high = float(across["conf_high"].iloc[0])
    assert high == pytest.approx(-0.748013, abs=1e-6)
    margin = -float(rlstats.format.signif(high, 3))  # 0.748: the interval's end lies 1.3e-5 beyond -margin
    res = rlstats.equivalence(data, "score ~ agent | task", margin=margin, aggregate=None)
    row = res.comparisons.query("scope == 'across tasks' and agent_1 == 'agent_2' and agent_2 == 'agent_3'").iloc[0]
    assert row["p_beyond"] == pytest.approx(0.049999, abs=1e-6) and row["conclusion"].startswith("shown below")
    report = res.report(format="text")
    assert ("agent_2 against agent_3: across these 5 tasks, shown below -0.748, beyond the margin (mean difference over tasks -2.49, "
            "90% CI -4.23 to -0.74801);") in report
    assert ("across these 5 tasks: shown below -0.748, beyond the margin (mean difference over tasks -2.491, 90% CI -4.234 to "
            "-0.74801, one-sided p-value (delta < -0.748) = 0.049999;") in str(res)
    # ends and p-values away from the margin and alpha keep their digits
    assert ("agent_1 against agent_2: across these 5 tasks, not shown equivalent (mean difference over tasks -0.804, 90% CI -2.86 to "
            "1.25)") in report


def test_signif_apart_only_adds_digits_on_a_mark():
    from rlstats.format import format_pvalue, signif_apart

    assert signif_apart(0.0499961, 4, [0.05]) == "0.049996"
    assert signif_apart(0.0500039, 4, [0.05]) == "0.050004"
    assert signif_apart(0.05, 4, [0.05]) == "0.05"
    assert signif_apart(-0.74801, 3, [-0.748, 0.748]) == "-0.74801"
    assert signif_apart(0.0512, 3, [0.05]) == "0.0512"
    assert format_pvalue(0.0499961, alpha=[0.05]) == "0.049996" and format_pvalue(0.0499961) == "0.05"
    assert format_pvalue(1e-20, alpha=[0.05]) == "< 2.2e-16"


def test_rank_and_mixed_pvalues_near_alpha_keep_their_side():
    # a Monte Carlo p-value (k + 1) / (B + 1) with B = 20000 permutations and k = 999 is 0.049998, below alpha: the
    # report read "rejected ... p = 0.05" (audit s22); now the digits that show its side, in the print too
    rank = rlstats.compare(_three_by_five(), "score ~ agent | task")
    rank = dataclasses.replace(rank, pvalue=1000 / 20001)
    assert ("The test rejected the hypothesis that all agents perform alike at alpha = 0.05 (chi-squared = 7.4133, "
            "df = 2, p = 0.049998, p-value from") in rank.report(format="text")
    assert "Mack-Skillings chi-squared = 7.4133, df = 2, p-value = 0.049998\n" in str(rank)
    above = dataclasses.replace(rank, pvalue=1001 / 20001)  # 0.050047: 4 digits already tell
    assert "did not reject" in above.report(format="text") and "p = 0.05005," in above.report(format="text")
    mixed = rlstats.compare(_three_by_five(), "score ~ agent | task/seed", method="mixed")
    mixed = dataclasses.replace(mixed, pvalue=0.0500021)
    assert "The agents were not shown to differ (F = 1.66 on 2 and 8 df, p = 0.050002)." in mixed.report(format="text")
    assert "p-value = 0.050002" in str(mixed)


def test_task_table_best_reads_apart_from_its_rivals():
    # task_04: agent_2's mean 12.121 is the best, agent_3's 12.074 possibly best; at 3 digits both read "12.1", the
    # bold one looking picked at random (audit s22); now the digits that tell them apart, in every format
    res = rlstats.task_table(_three_by_five(), "score ~ agent | task")
    assert re.search(r"\ntask_04 +9\.64 ± 2\.6 † +\*12\.12 ± 1\.9\* +12\.07 ± 1\.8 †\n", str(res))
    assert ("task\\_04 & 9.64 $\\pm$ 2.6$^\\dagger$ & \\textbf{12.12 $\\pm$ 1.9} & 12.07 $\\pm$ 1.8$^\\dagger$ \\\\"
            in res.to_latex())
    assert "| task_04 | 9.64 ± 2.6 † | **12.12 ± 1.9** | 12.07 ± 1.8 † |" in res.to_markdown()
    # rows whose means differ at 3 digits keep them
    assert re.search(r"\ntask_05 +9\.81 ± 0\.53 † +\*11\.1 ± 0\.48\* +10\.7 ± 0\.91 †\n", str(res))


def test_latex_table_pvalue_near_alpha_keeps_its_side():
    # the across-tasks test of agent_2 vs agent_3 at margin 0.748: one-sided p 0.049999 beside "shown below"; the
    # summary's tables (3 digits) read "0.05" (audit s22); now "0.049999" in LaTeX, the print and Markdown
    res = rlstats.equivalence(_three_by_five(), "score ~ agent | task", margin=0.748, aggregate=None)
    rows = res.to_latex().split("\n")
    row = [line for line in rows if line.startswith("across tasks & agent\\_2 & agent\\_3")][0]
    assert row == ("across tasks & agent\\_2 & agent\\_3 &  & $-$2.491 & $-$4.234 & $-$0.74801 & 0.95 & 0.049999 & "
                   "shown below $-$0.748, beyond the margin \\\\")  # signs set as minus (audit s24 small24)
    assert re.search(r"across tasks +agent_2 +agent_3 +-2\.491 +-4\.234 +-0\.74801 +0\.95 +0\.049999 +shown below",
                     str(res.summary()))
    assert "| 0.049999 |" in res.to_markdown()
    # the tidy frame and a p-value away from alpha are untouched
    assert "& 0.965 & 0.0354 & shown below $-$0.748" in res.to_latex()
    assert "rlstats_alpha" not in res.tidy().attrs
