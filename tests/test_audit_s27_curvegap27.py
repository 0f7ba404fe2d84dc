"""Audit s27 (meta27), curvegap27: the optimality gap's curve bands where every score is at or below gamma, the
unrejectable comparisons' note quoting the printed verdict, and ``significant`` where a comparison has no p-value.

1. Where every score of an agent is at or below gamma, its optimality gap is gamma minus its mean of task means at
   every step, so bootstrap() gives the gap the mean's interval reflected (audit s27 median27); curves() kept the
   gap's own studentised bands, without the mean's widening on the side of the runs' skew or Hall's band.
2. The note on comparisons that cannot reject quoted "no step differs", which the verdict no longer prints where
   some steps are withheld ("no step compared differs").
3. At a step where a task has no run of an agent logged the p-value is NaN, but ``significant`` said False.
"""

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


@pytest.mark.xfail(strict=True, reason="curvegap27: the gap's bands below gamma are not the mean's reflected")
def test_gap_bands_below_gamma_are_the_means_reflected():
    df = _skewed()
    gap, mean = _curves(df, "optimality_gap"), _curves(df, "mean")
    np.testing.assert_allclose(gap.estimates, 1 - mean.estimates, atol=1e-12)
    np.testing.assert_allclose(gap.pointwise, 1 - mean.pointwise[..., ::-1], atol=1e-12)
    np.testing.assert_allclose(gap.simultaneous, 1 - mean.simultaneous[..., ::-1], atol=1e-12)


def _unlogged():
    """B's runs of t2 end after step 1 of 4: at steps 2 and 3 B has no run of t2 logged (its curve missing)."""
    df = _skewed()
    df.loc[df.agent == "A", "score"] -= 0.5
    return df[~((df.agent == "B") & (df.task == "t2") & (df.step >= 2))]


@pytest.mark.xfail(strict=True, reason="curvegap27: significant is False where the p-value is NaN")
def test_significant_missing_where_no_pvalue():
    res = rlstats.curves(_unlogged(), "score ~ agent | task/seed", step="step", steps=[0, 1, 2, 3], statistic="mean",
                         compare="all",
                         n_resamples=100, rng=1, progress=False)
    table = res.difference("A", "B")
    assert np.isnan(table.p_adjusted.to_numpy()[2:]).all() and not res.difference_withheld.any()
    assert table.significant.isna().tolist() == [False, False, True, True]


def _few_runs(stop=None):
    """2 agents x 1 task x 3 runs (20 relabellings: no p-value reaches 0.05); ``stop``: B's runs but one end there."""
    rng = np.random.default_rng(3)
    rows = [(a, "t1", s, k, rng.normal()) for a in ("A", "B") for s in range(3) for k in range(4)
            if stop is None or a == "A" or s == 0 or k < stop]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


@pytest.mark.xfail(strict=True, reason="curvegap27: the cannot-reject note quotes words the verdict no longer prints")
def test_unrejectable_note_quotes_the_printed_verdict():
    res = rlstats.curves(_few_runs(stop=2), "score ~ agent | task/seed", step="step", statistic="mean",
                         compare="all", bands="expanded", n_resamples=100, rng=1, progress=False)
    assert res.difference_withheld[0].tolist() == [False, False, True, True]
    verdict = dict(res._verdicts())[("A", "B")]
    assert verdict.startswith("A and B: no step compared differs")
    note = [n for n in res.notes if "cannot" in n and "max-T" in n]
    assert len(note) == 1 and "'no step compared differs' says nothing" in note[0], note
