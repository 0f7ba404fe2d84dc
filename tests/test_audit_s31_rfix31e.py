"""Audit s31 (rfix31e): an R user's trial of rlstats, the findings verified and fixed.

1. The docs' counts of the default studentised intervals' rows left out the 39 rows of the optimality gap of agents
   whose every score is at or below gamma (audit s28 gapboot28), 8 of them missing: README, which_method.md,
   calibration.md and rliable.md now count them, read here from ``calibration_table()``.
2. R's and PMCMRplus' names of values (posthoc='nemenyi', adjustment='single-step' or 'fdr', method='friedman',
   na_action='na.omit') and of options (exact=, REML=, specs=) are refused naming the rlstats way.
3. Conover's post hoc with adjustment='tukey' (PMCMRplus' single-step) can give an adjusted p below the raw one: said.
4. n_resamples=-1e2 was offered n_resamples=-100, which is refused.
5. The command line's numbers are echoed as typed in the option checks' errors (9.5e1, 1e3), and 2,000 (the tuple
   (2, 0)) is told to be written 2000.
6. The note on a run id repeated within a cell names the formula's arm column, not "agent".
"""

import re

import pytest

import rlstats
from rlstats.errors import OptionError
from rlstats.cli._shared import parse_option

from test_audit_s26_docs26 import _words


# ---- 1: the docs' counts of the studentised rows, read from the table -----------------------------------------
def _studentized_counts():
    table = rlstats.calibration_table("bootstrap.interval", default=True)
    rows = table[table["interval"] == "studentized"]
    below = rows["configuration"].fillna("") == rlstats.calibration.GAP_BELOW_GAMMA
    # audit s34 (iqmfar34): the one design of 3 tasks far apart, counted apart (test_readme_counts_the_far_apart_rows)
    far = rows["configuration"].fillna("") == rlstats.calibration.FAR_APART
    # audit s35 (farapart35): and the design of 3 tasks that overlap, their runs apart by chance, counted apart too
    chance = rows["configuration"].fillna("") == rlstats.calibration.APART_BY_CHANCE
    assert set(rows["configuration"].dropna()) == {rlstats.calibration.GAP_BELOW_GAMMA, rlstats.calibration.FAR_APART,
                                                   rlstats.calibration.APART_BY_CHANCE}
    grid, gap = rows[~below & ~far & ~chance], rows[below]

    def count(part, tasks):
        chosen = part[part["tasks"].isin(tasks)]
        return int(chosen["misses"].sum()), len(chosen)

    return grid, gap, count


def test_readme_counts_every_studentised_row():
    grid, gap, count = _studentized_counts()
    assert count(grid, (1, 5, 26)) == (0, 180) and count(grid, (2,)) == (14, 48)
    assert count(gap, (1, 2, 5, 10)) == (8, 39) and set(gap["tasks"]) == {1, 2, 5, 10}
    missed = gap[gap["misses"]]
    assert set(missed["distribution"]) == {"capped", "skewed"}
    assert set(missed[missed["distribution"] == "capped"]["runs"]) == {10, 20}
    # review s31e: one task has capped rows at 20 runs only, so "on every task count" at 10 and 20 was not true
    capped_cells = sorted(map(tuple, missed[missed["distribution"] == "capped"][["tasks", "runs"]].values.tolist()))
    assert capped_cells == [(1, 20), (2, 10), (2, 20), (5, 10), (5, 20), (10, 10), (10, 20)]
    assert missed[missed["distribution"] == "skewed"][["tasks", "runs"]].values.tolist() == [[1, 20]]
    capped = missed[missed["distribution"] == "capped"]["coverage"]
    skewed = missed[missed["distribution"] == "skewed"]["coverage_min"].iloc[0]
    readme = _words("README.md")
    assert ("none of its 180 rows on 1, 5 and 26 tasks of scores on both sides of gamma misses 95% by more than 3 "
            "Monte Carlo SE, pooled or in a design draw; on 2 tasks 14 of 48 do") in readme
    assert (f"of its 39 rows of agents whose every score is at or below gamma (1, 2, 5 and 10 tasks), whose "
            f"optimality gap takes the mean's interval reflected, 8 do: capped runs at 10 and 20 per task on 2, 5 "
            f"and 10 tasks and at 20 on one task ({capped.min():.2f}-{capped.max():.2f}), and skewed runs on one task "
            f"x 20 "
            f"({skewed:.2f} in its worst draw)") in readme


def test_readme_counts_the_far_apart_rows():
    """Audit s34 (iqmfar34): the README's sentence of the bootstrap's default on 3 tasks far apart."""
    table = rlstats.calibration_table("bootstrap.interval", default=True, configuration=rlstats.calibration.FAR_APART)
    iqm, mean = table[table["metric"] == "iqm"], table[table["metric"] == "mean"]
    assert (len(iqm), int(iqm["misses"].sum()), len(mean), int(mean["misses"].sum())) == (6, 6, 6, 0)
    assert (round(iqm["coverage"].min(), 2), round(iqm["coverage"].max(), 2)) == (0.75, 0.91)
    readme = _words("README.md")  # which results quote the rows is said between these (audit s34 iqmfar34b)
    assert ("on 3 tasks far apart (offsets 0, 3 and 12, scales 0.3, 0.6 and 3 in noise units, one design outside the "
            "grid, which a result quotes where") in readme
    assert ("the IQM's 6 rows at 3 and 5 runs miss (0.75-0.91: its floor(N / 4) trim sits above the population's IQM "
            "there), the mean's 6 hold") in readme


def test_which_method_and_calibration_pages_count_the_gap_rows_below_gamma():
    grid, gap, count = _studentized_counts()
    assert count(gap, (2,)) == (2, 12) and count(gap, (1, 2, 5, 10)) == (8, 39)
    page = _words("docs/which_method.md")
    assert ("hold it on the measured grid but on 2 tasks (14 of 48 rows short there) and for the optimality gap of an "
            "agent whose every score is at or below gamma on capped runs from 10 runs per task and skewed ones on one "
            "task x 20 (8 of its 39 rows short), which a result's notes quote") in page
    page = _words("docs/calibration.md")
    assert ("miss more: 14 of the grid's 48 (below; 18 of 64 before audit s26") in page
    assert ("and 2 of the 12 of the optimality gap of agents whose every score is at or below gamma (capped runs at 10 "
            "and 20 per task, which miss on 1, 5 and 10 tasks too: 8 of its 39 rows, below)") in page


def test_rliable_page_counts_the_gap_rows_at_five_tasks():
    grid, gap, count = _studentized_counts()
    assert count(grid, (5, 26)) == (0, 128) and count(gap, (5,)) == (2, 12)
    low = grid[grid["tasks"].isin((5, 26))]["coverage"].min()
    five = gap[(gap["tasks"] == 5) & gap["misses"]].sort_values("runs")
    assert five["runs"].tolist() == [10, 20] and set(five["distribution"]) == {"capped"}
    page = _words("docs/rliable.md")
    assert f"it covered {low:.3f}–1.00 at 3-20 runs per task on 5 and 26 tasks (all 128 of its rows there of scores " \
           "on both sides of gamma hold 95%" in page
    cover = five["coverage"].tolist()
    assert (f"the optimality gap of an agent whose every score is at or below gamma, which takes the mean's interval "
            f"reflected, misses on capped runs at 10 and 20 runs per task: 2 of its 12 rows on 5 tasks ({cover[0]:.3f} "
            f"and {cover[1]:.3f}, {five['coverage_min'].iloc[1]:.2f} in the worst draw), 8 of its 39 on 1, 2, 5 and 10 "
            f"tasks, and a result's notes quote them too") in page


# ---- 2: R's and PMCMRplus' names refused naming the rlstats way --------------------------------------------------
@pytest.fixture(scope="module")
def ranks_data():
    return rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=1, rng=0)


@pytest.mark.parametrize("options, phrase", [
    ({"posthoc": "nemenyi"}, "Nemenyi's all-pairs mean-rank test (PMCMRplus::frdAllPairsNemenyiTest) is "
                             "posthoc='ranks' here"),
    ({"posthoc": "Nemenyi"}, "posthoc='ranks' here"),
    ({"posthoc": "frdAllPairsNemenyiTest"}, "posthoc='ranks' here"),
    ({"posthoc": "tukey"}, "posthoc='ranks' here, with adjustment='tukey'"),
    ({"posthoc": "frdAllPairsConoverTest"}, "posthoc='conover' here"),
    ({"adjustment": "single-step"}, "PMCMRplus' single-step (its default) is adjustment='tukey' here"),
    ({"adjustment": "fdr"}, "R's p.adjust 'fdr' (Benjamini-Hochberg) is adjustment='bh' here"),
    ({"na_action": "na.omit"}, "R's na.omit is na_action='drop' here"),
    ({"exact": True}, "skillings_mack() has no option exact=: its name here is pvalue= (exact= is R's spelling"),
])
def test_r_names_of_the_rank_test_say_the_rlstats_way(ranks_data, options, phrase):
    with pytest.raises(OptionError) as error:
        rlstats.skillings_mack(ranks_data, "score ~ agent | task", **options)
    assert phrase in str(error.value)
    if "exact" in options:
        assert "pass pvalue='exact'" in str(error.value)


@pytest.mark.parametrize("method, phrase", [
    ("friedman", "Friedman's test (R's friedman.test) is method='skillings_mack' here"),
    ("nemenyi", "is method='skillings_mack' here, with its default post hoc"),
    ("conover", "is method='skillings_mack' here, with posthoc='conover'"),
    ("lmer", "lme4's lmer() is method='mixed' here"),
])
def test_r_names_of_methods_say_the_rlstats_way(ranks_data, method, phrase):
    with pytest.raises(OptionError) as error:
        rlstats.compare(ranks_data, "score ~ agent | task", method=method)
    assert phrase in str(error.value)


def test_friedman_is_the_rank_test_on_a_complete_one_run_design():
    """The way on's claim: on one run per cell, skillings_mack(pvalue='asymptotic') is R's friedman.test: chi-squared
    12 / (b k (k + 1)) sum R_j^2 - 3 b (k + 1) on k - 1 df (no ties here)."""
    from scipy import stats
    df = rlstats.datasets.simulate(agents=3, tasks=8, seeds=1, effect=1, rng=1)
    res = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="asymptotic")
    wide = df.pivot(index="task", columns="agent", values="score")
    statistic, p = stats.friedmanchisquare(*[wide[c].to_numpy() for c in wide.columns])
    assert res.pvalue == pytest.approx(p, rel=1e-10)


@pytest.mark.parametrize("options, phrase", [
    ({"REML": False}, "mixed() has no option REML=: mixed() fits by REML alone"),
    ({"specs": "pairwise ~ agent"}, "mixed() has no option specs=: emmeans' specs= (pairwise ~ agent) is what mixed() "
                                    "always reports"),
])
def test_lme4_and_emmeans_options_say_what_mixed_does(ranks_data, options, phrase):
    with pytest.raises(OptionError) as error:
        rlstats.mixed(ranks_data, "score ~ agent | task", **options)
    assert phrase in str(error.value)


# ---- 3: Conover's single-step adjusted p below its raw p, said --------------------------------------------------
def test_conover_single_step_says_why_an_adjusted_p_is_below_its_raw_p(ranks_data):
    res = rlstats.skillings_mack(ranks_data, "score ~ agent | task", within_cell="mean", posthoc="conover",
                                 adjustment="tukey")
    row = res.comparisons.iloc[0]
    # the numbers are PMCMRplus' (tests/test_skillings_mack.py::test_conover_posthoc_equals_pmcmrplus), unchanged,
    # here by hand (Conover 1999, 5.8): the cell means ranked within the 6 tasks, rank sums 6, 15, 15, Friedman's T 9;
    # t = |R_1 - R_2| / sqrt(2 n (A - C) / ((n - 1)(k - 1)) (1 - T / (n (k - 1)))) = 4.7434 on (6 - 1)(3 - 1) = 10 df,
    # and scipy's studentized range of 3 means on infinite df at sqrt(2) t
    import numpy as np
    from scipy import stats

    ranks = ranks_data.groupby(["task", "agent"]).score.mean().unstack().rank(axis=1).to_numpy()
    n, k = ranks.shape
    sums, a, c = ranks.sum(axis=0), (ranks ** 2).sum(), n * k * (k + 1) ** 2 / 4
    friedman = (k - 1) * ((sums - n * (k + 1) / 2) ** 2).sum() / (a - c)
    assert sums.tolist() == [6.0, 15.0, 15.0] and friedman == pytest.approx(9.0, rel=1e-12)
    t = abs(sums[0] - sums[1]) / np.sqrt(2 * n * (a - c) / ((n - 1) * (k - 1)) * (1 - friedman / (n * (k - 1))))
    assert row["statistic"] == pytest.approx(t, rel=1e-12) == 4.743416490252569
    assert row["p_value"] == pytest.approx(2 * stats.t.sf(t, 10), rel=1e-9)
    assert row["p_adjusted"] == pytest.approx(stats.studentized_range.sf(np.sqrt(2) * t, 3, np.inf), rel=1e-8)
    assert any("so 2 pairs have adjusted p-values below their raw ones ('agent_1' vs 'agent_2': 0.00079 raw, "
               "6.3e-06 adjusted), as in PMCMRplus" in note and "studentized range of 3 means with infinite df" in note
               and "(tasks - 1) x (agents - 1) = 10 df" in note for note in res.notes)
    holm = rlstats.skillings_mack(ranks_data, "score ~ agent | task", within_cell="mean", posthoc="conover",
                                  adjustment="holm")
    assert not any("below their raw ones" in note for note in holm.notes)
    from rlstats.vocabulary import VOCABULARY
    assert "posthoc='conover' with adjustment='tukey'" in VOCABULARY["p_adjusted"].description


# ---- 4 and 5: integer options' messages -------------------------------------------------------------------------
def test_a_negative_whole_float_is_not_offered_back_as_an_int():
    with pytest.raises(OptionError) as error:
        rlstats.options.check_resamples(-1e2, minimum=2)
    assert str(error.value) == "n_resamples must be at least 2, got -100.0"
    with pytest.raises(OptionError) as error:
        rlstats.options.check_resamples(1e3)
    assert "pass n_resamples=1000" in str(error.value)


@pytest.mark.parametrize("typed, said", [
    ("confidence_level=9.5e1", "got 9.5e1; for a 95% interval pass confidence_level=0.95"),
    ("confidence_level=950", "must be strictly between 0 and 1, got 950"),
    ("n_resamples=1e3", "n_resamples must be an int, got the float 1e3; pass n_resamples=1000"),
    ("n_resamples=-1e2", "n_resamples must be at least 2, got -1e2"),
    ("n_resamples=1e8", "n_resamples=1e8 is more than 10,000,000 resamples"),
    ("n_resamples=2,000", "n_resamples must be a whole number, got 2,000 (read as the tuple (2, 0)); write 2000"),
])
def test_the_command_lines_numbers_are_echoed_as_typed(typed, said):
    name, value = parse_option(typed)
    check = (rlstats.options.check_confidence_level if name == "confidence_level"
             else lambda v: rlstats.options.check_resamples(v, minimum=2))
    with pytest.raises(OptionError) as error:
        check(value)
    assert re.search(re.escape(said) + r"(?![\d.])", str(error.value)), str(error.value)


# ---- 6: the repeated-run-id note names the arm column ----------------------------------------------------------
def test_repeated_run_id_note_names_the_formulas_arm_column():
    df = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0).rename(columns={"agent": "landscape"})
    df = df.assign(seed=0)
    res = rlstats.skillings_mack(df, "score ~ landscape | task")
    note = next(note for note in res.notes if "repeats an id within a cell" in note)
    assert "seed 0 of landscape 'agent_1' on task 'task_01'" in note and "of agent" not in note
