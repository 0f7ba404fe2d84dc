"""Audit s21 (kr21): the mixed model's Kenward-Roger df on a singular fit against R (its reference test is in
tests/test_mixed.py, R's numbers in tests/reference/mixed_small_r.json), PBP's note on wide intervals, and the
selection check's seed where its exact enumeration draws nothing."""

import numpy as np
import pandas as pd
import pytest

import rlstats


def _pbp_note(res):
    return [note for note in res.notes if "DKW band" in note]


def test_pbp_note_is_true_of_a_result_that_separates_the_agents(mirror):
    """HalfCheetah, SAC against TD3 (192 and 193 runs): PBP puts SAC at (0.527, 0.593) and TD3 at (0.130, 0.393), SAC
    above TD3, beside a note that "PBP needs hundreds to thousands of runs per cell to separate agents".  The note now
    states the half-width (0.11) and that this result separates its one pair, agents closer together needing more
    runs."""
    df = rlstats.datasets.load("halfcheetah_sac_td3")
    res = rlstats.percentiles(df, "score ~ agent | task", progress=False)
    np.testing.assert_allclose([res.conf_low[0], res.conf_high[0], res.conf_low[1], res.conf_high[1]],
                               [0.5266, 0.5926, 0.1295, 0.3934], atol=1e-4)
    note, = _pbp_note(res)
    assert "needs hundreds to thousands of runs per cell to separate agents" not in note
    assert note == ("with 192 runs in the smallest cell (HalfCheetah/SAC) the DKW band half-width at delta' = 0.025 "
                    "is 0.11, so PBP intervals are wide: they separate the one pair here; agents closer together "
                    "need more runs per cell to be separated")


def test_pbp_note_of_a_band_wider_than_the_unit_interval():
    """C has one run on t2 and A one on t3: the note said the half-width "is 1.72", a CDF band that is clipped to
    [0, 1], so it says nothing of those cells' payoffs.  No pair is separated, which the note now says."""
    rng = np.random.default_rng(1)
    size = {("C", "t2"): 1, ("A", "t3"): 1}
    rows = [(a, t, s, float("ABC".index(a) * 0.5 + rng.normal())) for a in "ABC" for t in ("t1", "t2", "t3")
            for s in range(size.get((a, t), 4))]
    res = rlstats.percentiles(pd.DataFrame(rows, columns=["agent", "task", "seed", "score"]), "score ~ agent | task",
                              progress=False)
    note, = _pbp_note(res)
    assert "1.72" not in note
    assert note == ("with 1 run in the smallest cell (t2/C, t3/A) the DKW band at delta' = 0.00556 is all of [0, 1] "
                    "(its half-width would be more than 1), so PBP intervals are wide: they separate none of the "
                    "3 pairs here; PBP needs hundreds to thousands of runs per cell to separate agents")


@pytest.mark.parametrize("rng", [0, 7, None])
def test_selection_checks_exact_enumeration_records_no_seed(rng):
    """The default Fisher-Pitman inspector on 3 of 12 tasks enumerates all 220 subsets: with rng=0 the report ended
    "random seed 0" (``seed`` 0), with rng=7 it did not (``check_rng(rng) and None`` is 0 for rng=0).  No seed is
    recorded, and the report says no random draws were made, whatever rng=."""
    df = rlstats.datasets.simulate(agents=2, tasks=12, seeds=5, distribution="normal", heterogeneity=0.0, rng=0)
    res = rlstats.selection_check(df, "score ~ agent | task", treatment="agent_2", baseline="agent_1",
                                  reported=["task_01", "task_02", "task_03"], rng=rng)
    assert res.pvalue_method == "exact" and res.n_resamples == 220
    assert res.seed is None
    text = res.report(format="text")
    assert "random seed" not in text
    assert "(enumerating every subset: no random draws were made)" in text
    assert res.pvalue == pytest.approx(0.9182, abs=1e-4)


def _singular_note(res):
    note, = [note for note in res.notes if note.startswith("singular fit")]
    return note


def test_singular_note_says_which_df_count_the_zero_component(mirror):
    """CURL and PlayVirtual on BankHeist, Kangaroo and PrivateEye at 3 runs (human-normalised): the task:agent
    variance is estimated at 0 and the note said "the df approximations rest on the remaining components", true of
    Satterthwaite's df 14 but not of Kenward-Roger's 2, which R's pbkrtest gives too (tests/test_mixed.py) because
    its information matrix keeps the zero component: without the task:agent term (the same REML criterion, 30.79146)
    pbkrtest gives 14 (tests/reference/mixed_singular_dropped_r.R).  The note now says so per ddf."""
    df = rlstats.normalize(rlstats.datasets.load("atari100k"), "atari100k_reference")
    df = df[df.agent.isin(["CURL", "PlayVirtual"]) & df.task.isin(["BankHeist", "Kangaroo", "PrivateEye"])
            & (df.seed < 3)]
    sat = rlstats.mixed(df, "score ~ agent | task/seed", progress=False)
    kr = rlstats.mixed(df, "score ~ agent | task/seed", ddf="kenward-roger", progress=False)
    assert (round(sat.den_df, 6), round(kr.den_df, 6)) == (14, 2)
    assert "Satterthwaite's df rest on the remaining components" in _singular_note(sat)
    assert ("Kenward-Roger's df still count it (pbkrtest keeps it in the information matrix), so they are those of "
            "the model with it; without it they would be those of the remaining components") in _singular_note(kr)
