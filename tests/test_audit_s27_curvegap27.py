"""Audit s27 (meta27), curvegap27: the optimality gap's curve bands where every score is at or below gamma, the
unrejectable comparisons' note quoting the printed verdict, and ``significant`` where a comparison has no p-value.

1. Where every score of an agent is at or below gamma, its optimality gap is gamma minus its mean of task means at
   every step, so bootstrap() gives the gap the mean's interval reflected (audit s27 median27); curves() kept the
   gap's own studentised bands, without the mean's widening on the side of the runs' skew or Hall's band.
2. The note on comparisons that cannot reject quoted "no step differs", which the verdict no longer prints where
   some steps are withheld ("no step compared differs").
3. At a step where a task has no run of an agent logged the p-value is NaN, but ``significant`` said False.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats


def _skewed(seed=0, n_steps=4, above=None):
    """2 agents x 2 tasks x 5 runs of scores 1 - 0.2 lognormal(0, 0.8) (at or below gamma = 1, skewed low);
    ``above``: an agent one of whose scores is raised to 1.5 at the last step."""
    rng = np.random.default_rng(seed)
    rows = [(a, t, s, k, 1 - 0.2 * rng.lognormal(0, 0.8))
            for a in ("A", "B") for t in ("t1", "t2") for s in range(5) for k in range(n_steps)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    if above is not None:
        df.loc[(df.agent == above) & (df.step == n_steps - 1) & (df.seed == 0) & (df.task == "t1"), "score"] = 1.5
    return df


def _curves(df, statistic, **options):
    return rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic=statistic, n_resamples=400, rng=1,
                          progress=False, **options)


NOTE = "optimality gap is gamma minus its mean of task means at every step: it takes that mean's bands reflected"


def test_gap_bands_below_gamma_are_the_means_reflected():
    """Every score at or below gamma = 1: the gap's bands, pointwise and simultaneous, are 1 minus the mean's
    reversed (a separate statistic="mean" call with the same rng), and so are its resamples; the comparison is the
    gap's own. Before: the gap's own studentised bands, without the mean's skew widening and Hall's band (the upper
    pointwise end at step 0 of A 0.3000, the mean's reflected 0.3133; at step 3 0.4643 against 0.5052)."""
    df = _skewed()
    gap, mean = _curves(df, "optimality_gap", compare="all"), _curves(df, "mean")
    np.testing.assert_allclose(gap.estimates, 1 - mean.estimates, atol=1e-12)
    np.testing.assert_allclose(gap.pointwise, 1 - mean.pointwise[..., ::-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(gap.simultaneous, 1 - mean.simultaneous[..., ::-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(gap.bootstrap_distribution, 1 - mean.bootstrap_distribution, rtol=0, atol=1e-12)
    np.testing.assert_allclose(gap.std_error, mean.std_error, rtol=1e-12)
    # audit s32 curves32: the label-keyed streams moved them from 0.313320, 0.505169 and 0.666958, which the former
    # keys gave (checked under them by test_audit_s32_curves32 until audit s35); audit s33 curvestream33 (a stream a task, its runs in their content's order)
    # moved them from 0.305017, 0.551278 and 0.665167
    assert gap.pointwise[0, 0, 1] == pytest.approx(0.303853, abs=1e-6)
    assert gap.pointwise[0, 3, 1] == pytest.approx(0.587354, abs=1e-6)
    assert gap.simultaneous[0, 3, 1] == pytest.approx(0.643143, abs=1e-6)
    notes = [n for n in gap.notes if NOTE in n]
    assert len(notes) == 1 and notes[0].startswith("every score of every agent logged at the grid steps is at or "
                                                   "below gamma = 1, so each optimality gap"), notes
    # the comparison is the gap's: its max-T test as under the former bands (the same relabellings)
    old = _curves(df, "optimality_gap", compare="all", bands="studentized_unwidened")
    np.testing.assert_array_equal(gap.difference_pvalues, old.difference_pvalues)
    np.testing.assert_allclose(gap.differences, old.differences, rtol=0, atol=1e-12)


def test_gap_bands_of_an_agent_above_gamma_unchanged():
    """B has one score above gamma (step 3): B keeps the gap's own bands at every step (the simultaneous band is one
    band over all steps), bit for bit those bands="studentized_unwidened" gives (the default's before), and the note
    names A alone; A's bands are its mean's reflected."""
    df = _skewed(above="B")
    gap, mean = _curves(df, "optimality_gap"), _curves(df, "mean")
    own = _curves(df, "optimality_gap", bands="studentized_unwidened")
    np.testing.assert_array_equal(gap.pointwise[1], own.pointwise[1])
    np.testing.assert_array_equal(gap.simultaneous[1], own.simultaneous[1])
    np.testing.assert_allclose(gap.pointwise[0], 1 - mean.pointwise[0, :, ::-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(gap.simultaneous[0], 1 - mean.simultaneous[0, :, ::-1], rtol=0, atol=1e-12)
    assert not np.allclose(gap.pointwise[0], own.pointwise[0])  # A's own bands differ from the mean's reflected
    notes = [n for n in gap.notes if NOTE in n]
    assert len(notes) == 1 and notes[0].startswith("every score of A logged at the grid steps is at or below gamma "
                                                   "= 1, so its optimality gap"), notes
    assert notes[0].endswith("the other agents, with a score above gamma, keep the gap's own bands")
    # no note where no agent qualifies, nor under the other band methods
    for res in (_curves(df, "optimality_gap", gamma=0.9), own, _curves(_skewed(), "optimality_gap", bands="expanded")):
        assert not [n for n in res.notes if NOTE in n]


def _unlogged(shift=0.5):
    """B's runs of t2 end after step 1 of 4: at steps 2 and 3 B has no run of t2 logged (its curve missing)."""
    df = _skewed()
    df.loc[df.agent == "A", "score"] -= shift
    return df[~((df.agent == "B") & (df.task == "t2") & (df.step >= 2))]


def test_significant_missing_where_no_pvalue():
    """At steps 2 and 3 B has no run of t2 logged: no p-value there, and significant is missing (it said False),
    the comparison not withheld (its bands are not, for one run of a task logged)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # the mean's skewness read 0 runs of a task: 0/0 warned
        res, alike = (rlstats.curves(_unlogged(shift), "score ~ agent | task/seed", step="step", steps=[0, 1, 2, 3],
                                     statistic="mean", compare="all", n_resamples=100, rng=1, progress=False)
                      for shift in (0.5, 0.0))
    table = res.difference("A", "B")
    assert np.isnan(table.p_adjusted.to_numpy()[2:]).all() and not res.difference_withheld.any()
    assert table.significant.isna().tolist() == [False, False, True, True]
    # 1/101 at both under the former keys (checked under them by test_audit_s32_curves32 until audit s35); one relabelling of the pair's labels'
    # stream reaches step 0's |t| since audit s32 curves32 (2/101), none since audit s33 curvestream33 (a stream a
    # task, its runs in their content's order)
    np.testing.assert_allclose(table.p_adjusted.to_numpy()[:2], [1 / 101, 1 / 101])
    assert table.significant.tolist()[:2] == [True, True]
    # session 28 curvenotes28: the steps not compared are said (the line read "B above A at steps 0-1" alone)
    missing = "not compared at steps 2-3 (a curve missing there, see the notes)"
    assert dict(res._verdicts())[("A", "B")] == f"B above A at steps 0-1; {missing}"
    # no step declared different: the verdict claims only the steps compared (it said "no step differs")
    assert alike.difference("A", "B").significant.isna().tolist() == [False, False, True, True]
    assert dict(alike._verdicts())[("A", "B")] == f"A and B: no step compared differs; {missing}"


def _few_runs(stop=None):
    """2 agents x 1 task x 3 runs (20 relabellings: no p-value reaches 0.05); ``stop``: B's runs but one end there."""
    rng = np.random.default_rng(3)
    rows = [(a, "t1", s, k, rng.normal()) for a in ("A", "B") for s in range(3) for k in range(4)
            if stop is None or a == "A" or s == 0 or k < stop]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_unrejectable_note_quotes_the_printed_verdict():
    """3 runs of each agent on one task (smallest p-value 0.1): the note quotes the verdict as printed, "no step
    compared differs" where B's runs but one end at step 2 (it quoted "no step differs"), "no step differs" where
    every step is compared."""
    res = rlstats.curves(_few_runs(stop=2), "score ~ agent | task/seed", step="step", statistic="mean",
                         compare="all", bands="expanded", n_resamples=100, rng=1, progress=False)
    assert res.difference_withheld[0].tolist() == [False, False, True, True]
    verdict = dict(res._verdicts())[("A", "B")]
    assert verdict.startswith("A and B: no step compared differs")
    note = [n for n in res.notes if "cannot" in n and "max-T" in n]
    assert len(note) == 1 and "'no step compared differs' says nothing" in note[0], note
    full = rlstats.curves(_few_runs(), "score ~ agent | task/seed", step="step", statistic="mean", compare="all",
                          bands="expanded", n_resamples=100, rng=1, progress=False)
    assert dict(full._verdicts())[("A", "B")] == "A and B: no step differs"
    note = [n for n in full.notes if "cannot" in n and "max-T" in n]
    assert len(note) == 1 and "'no step differs' says nothing" in note[0], note
