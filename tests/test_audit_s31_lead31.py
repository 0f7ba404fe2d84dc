"""Audit s31, the lead's own fixes."""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats


@pytest.mark.parametrize("across", ["paired_t", "welch"])
def test_a_pair_that_shared_no_task_is_withheld_without_numpys_warning(across):
    """A and B never share a task with D (C ran all six): their across-tasks tests are withheld (n_tasks 0); the
    paired t read an empty array of task differences and numpy's "Mean of empty slice" RuntimeWarning reached the
    user."""
    rng = np.random.default_rng(9)
    ran = {"A": range(3), "B": range(3), "C": range(6), "D": range(3, 6)}
    rows = [dict(agent=a, task=f"t{t}", seed=s, score=rng.normal(0, 1)) for a, tasks in ran.items()
            for t in tasks for s in range(5)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = rlstats.equivalence(pd.DataFrame(rows), "score ~ agent | task", margin=1.0, across=across,
                                  aggregate=None)
    tidy = res.tidy()
    across_rows = tidy[tidy["scope"] == "across tasks"].set_index(["agent_1", "agent_2"])
    assert across_rows.loc[("A", "D"), "n_tasks"] == 0 and across_rows.loc[("B", "D"), "n_tasks"] == 0
    assert (across_rows.loc[[("A", "D"), ("B", "D")], "conclusion"] == "withheld").all()
    assert across_rows.loc[[("A", "D"), ("B", "D")], "estimate"].isna().all()
    assert across_rows.loc[("A", "B"), "n_tasks"] == 3 and np.isfinite(across_rows.loc[("A", "B"), "estimate"])


# ----------------------------------------------------------------- review s31e: R's names offered back as rlstats takes
@pytest.fixture(scope="module")
def one_run():
    return rlstats.datasets.simulate(agents=3, tasks=6, seeds=1, rng=0)


@pytest.mark.parametrize("given, offered", [(True, "exact"), ("TRUE", "exact"), ("T", "exact"), (1, "exact"),
                                            ("false", "asymptotic"), ("F", "asymptotic")])
def test_r_exact_is_offered_the_pvalue_that_runs(one_run, given, offered):
    """R's exact=TRUE as Python or the command line reads it (TRUE, T, 1) was offered back word for word
    (pvalue=TRUE), which pvalue= refuses."""
    with pytest.raises(rlstats.OptionError) as info:
        rlstats.skillings_mack(one_run, "score ~ agent | task", exact=given)
    assert str(info.value).endswith(f"pass pvalue={offered!r}")
    rlstats.skillings_mack(one_run, "score ~ agent | task", pvalue=offered)  # the advice runs


def test_an_exact_value_r_has_not_offers_both_ways_not_itself(one_run):
    with pytest.raises(rlstats.OptionError) as info:
        rlstats.skillings_mack(one_run, "score ~ agent | task", exact=None)
    assert str(info.value).endswith("pass pvalue='exact' for exact=True; pass pvalue='asymptotic' for exact=False "
                                    "(it was None)")


def test_pmcmrplus_names_say_the_adjustment_that_goes_with_them(one_run):
    """frdAllPairsConoverTest's default adjustment is the single step (tukey here), not this posthoc's Holm 'auto';
    Nemenyi's and the single step's tukey is all pairs: with control= it is holm."""
    messages = {}
    for option, value in (("posthoc", "frdAllPairsConoverTest"), ("posthoc", "nemenyi"),
                          ("adjustment", "single-step")):
        with pytest.raises(rlstats.OptionError) as info:
            rlstats.skillings_mack(one_run, "score ~ agent | task", **{option: value})
        messages[value] = str(info.value)
    assert messages["frdAllPairsConoverTest"].endswith("is posthoc='conover' here, with adjustment='tukey' for its "
                                                       "default single-step (Holm is this one's \"auto\")")
    assert messages["nemenyi"].endswith("with adjustment='tukey' (its \"auto\" on balanced designs; 'holm' with "
                                        "control=)")
    assert messages["single-step"].endswith("is adjustment='tukey' here (all pairs; with control=, 'holm')")
    # each advice runs
    rlstats.skillings_mack(one_run, "score ~ agent | task", posthoc="conover", adjustment="tukey")
    rlstats.skillings_mack(one_run, "score ~ agent | task", posthoc="ranks", adjustment="holm", control="agent_1")
