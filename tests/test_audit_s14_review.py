"""Audit s14 (review): a second reading of session 14's change (68cd336..d0963e2).

Read: power("skillings_mack")/sample_size() planning pvalue="auto" and sample_size's answers and sentence; the CLI
flag checks; AdaStop and the permutation test dropping pairs with an agent absent from a task; bayes on one shared
task; task_table's missing marks and tie order; mixed's rounding noise; PBP bounds widened to the estimate;
plotting.largest_panels; to_latex's \\textbar{}; rlstats.build taking polars/pyarrow.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.planning import sample_size


def _one_agent_on_one_task():
    """A, B, C on t1-t3 (B better by 2 SD); D on t1 only; 10 runs a cell."""
    rng = np.random.default_rng(1)
    rows = [dict(task=t, agent=a, seed=s, score=rng.normal() + 2.0 * (a == "B"))
            for t in ("t1", "t2", "t3") for a in "ABCD" if a != "D" or t == "t1" for s in range(10)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("method", ["adastop", "permutation"])
def test_pairs_not_compared_for_an_absent_agent_are_named(method):
    """Session 14 dropped the rows of pairs with an agent that never ran a task (they had been 'continue' rows with
    the reason 'no runs of D on this task'); nothing then said so: with D on t1 only, the print of AdaStop and of the
    permutation test listed 3 comparisons on t2 and t3 and no note named D's absence; with reference='D' tasks t2
    and t3 had no comparison at all and nothing said so either (task_table notes groups that never shared a task)."""
    df = _one_agent_on_one_task()
    options = dict(n=5, K=2) if method == "adastop" else {}
    res = getattr(rlstats, method)(df, "score ~ agent | task", rng=0, **options)
    assert any("D has no runs on t2 and t3" in note for note in res.notes), res.notes
    ref = getattr(rlstats, method)(df, "score ~ agent | task", rng=0, reference="D", **options)
    assert any("D has no runs on t2 and t3" in note and "t2 and t3 have no comparison" in note
               for note in ref.notes), ref.notes


def test_sample_size_at_the_smallest_multiple_says_no_fewer():
    """AdaStop's seeds are multiples of K (n * K runs): with K = 4 the search starts at 4, the fewest it can take,
    yet the sentence read '4 seeds or fewer ... fewer were not tried: pass a smaller min_seeds', and min_seeds=2 is
    refused ('the search needs multiples of 4')."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sample_size("adastop", 0.5, effect=10.0, tasks=1, n_sim=20, rng=0, progress=False, adastop={"K": 4},
                          alpha=0.2)
    assert res.sample_size == 4
    text = str(res)
    assert "or fewer" not in text and "smaller min_seeds" not in text, text
    assert "Sample size for power 0.5: 4 seeds, the fewest" in text, text


def test_combine_refuses_a_method_run_with_different_options():
    """Session 14 made the rank test's sentence name its p-value from the result's options. combine() of a study at
    2 seeds with pvalue="asymptotic" and one at 8 seeds with the default ("auto") gave one table whose report said
    both rows 'rejected when skillings_mack()'s default p-value ... was at most alpha' (the last result's options
    kept for all: the 2-seed row's chi-squared p-value went unmentioned)."""
    from rlstats.errors import OptionError
    from rlstats.planning import PowerResult, power

    kwargs = dict(effect=1.0, tasks=5, n_sim=10, rng=0, progress=False)
    chi2 = power("skillings_mack", seeds=[2], pvalue="asymptotic", **kwargs)
    auto = power("skillings_mack", seeds=[8], **kwargs)
    with pytest.raises(OptionError, match="skillings_mack's options differ"):
        PowerResult.combine(chi2, auto)
    assert PowerResult.combine(chi2, power("skillings_mack", seeds=[8], pvalue="asymptotic", **kwargs)).seeds == (2, 8)


def test_bayes_gives_no_certainty_by_construction_from_one_task():
    """Session 14 withheld the signed-rank model's credible interval of a pair sharing one task and the orderings
    from one task ('every posterior draw weighs that task alone, so the ordering of its means would come with
    probability 1'). The pair's own probabilities come from the same single task: with rope=0 the Walsh averages
    are 0 (the prior's), d/2 and d, so the region of d's sign holds all the non-zero mass in every draw and
    P(better) or P(worse) is 1 whenever d != 0. Runs A 1, 2, 3 and B 1.1, 2.05, 3.02 (d = -0.039) printed
    'A vs B  < 1/500  < 1/500  > 1 - 1/500'; the few-tasks note says such a probability 'reached 0.95 in over a
    third of simulated data sets of 1 or 2 tasks', true of 1 and 2 tasks pooled, but from one task it is every
    data set with d != 0."""
    df = pd.DataFrame({"task": ["t1"] * 6, "agent": list("AAABBB"), "score": [1, 2, 3, 1.1, 2.05, 3.02]})
    res = rlstats.bayes(df, "score ~ agent | task", rng=0, n_samples=500)
    row = res.comparisons.iloc[0]
    assert np.isnan(row["p_worse"]) and np.isnan(row["p_better"]) and np.isnan(row["p_rope"]), row
    # the lead's decision: withheld as the interval and the orderings are, with the note naming the pair
    assert any(note.startswith("the probabilities and credible intervals of A vs B are withheld") for note in res.notes)
    text = str(res)
    assert "> 1 - 1/500" not in text and "< 1/500" not in text
