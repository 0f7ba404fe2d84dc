"""Audit s27 (median27): the rule that the median of 1 or 2 task means is their mean has one home
(``statistics.median_is_mean``) and its words one (``vocabulary.median_is_mean_words``), read by bootstrap(), curves()
and the ranges-apart caution; the words name each number by what it averages; and the optimality gap, where every
score of an agent is at or below gamma, is gamma minus the mean of task means and takes that mean's interval,
reflected."""

import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import normalization, statistics
from rlstats.methods.bootstrap import _small_runs as small_runs
from rlstats.methods.curves import _api as curves_api


def _frame(tasks, runs, seed=0, scale=0.2):
    """One agent's runs, every score at or below 1 (1 less a lognormal shortfall: skewed to the left)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"agent": "A", "task": np.repeat([f"t{t}" for t in range(tasks)], runs),
                         "score": 1 - scale * rng.lognormal(0.0, 0.8, tasks * runs)})


def _boot(df, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.bootstrap(df, "score ~ agent | task", **{"n_resamples": 400, "rng": 1, "progress": False,
                                                                 **options})


# ----------------------------------------------------------------------------------------------- one home of the rule

def test_interval_kinds_is_computed_once_a_call():
    with mock.patch.object(small_runs, "interval_kinds", wraps=small_runs.interval_kinds) as spy:
        _boot(_frame(2, 5), metrics=("mean", "median"))
    assert spy.call_count == 1


def test_one_rule_read_by_bootstrap_curves_and_the_caution():
    assert [statistics.median_is_mean(n) for n in (1, 2, 3)] == [True, True, False]
    df = _frame(2, 5)
    default = _boot(df, metrics=("mean", "median"))
    np.testing.assert_array_equal(default.intervals[0, 0], default.intervals[0, 1])
    options = curves_api.CurvesOptions.checked(
        step="step", statistic="median", align="last", compare=None, bands="studentized", n_resamples=100,
        confidence_level=0.95, alpha=0.05, gamma=1.0, na_action="raise", progress=False, max_seconds=None, n_jobs=1,
        bounds=None)
    assert curves_api._band_options(options, 2, [False])[0].statistic == "mean"
    with mock.patch.object(statistics, "MEDIAN_IS_MEAN_TASKS", 0):  # the rule lifted in its one home
        lifted = _boot(df, metrics=("mean", "median"))
        assert curves_api._band_options(options, 2, [False])[0] is options
        assert normalization._location_read(("median",), 2)
    assert not np.array_equal(lifted.intervals[0, 0], lifted.intervals[0, 1])  # the median's own t interval
    assert normalization._location_read(("median",), 2) == []


# ------------------------------------------------------------------------------------------------------------- words

ONE = ("on one task the median of task means is that task's mean over its runs, as is the mean of task means: it takes "
       "the interval of the mean of task means, by its method and its rules for withholding it (the t interval made "
       "for the median of 3 or more task means covered less on skewed runs in simulations of 1 and 2 tasks)")
TWO = ONE.replace("on one task", "on 2 tasks").replace("that task's mean over its runs",
                                                       "the average of the two task means")


def test_the_notes_name_each_number_by_what_it_averages():
    one, two = _boot(_frame(1, 25), metrics=("mean", "median")), _boot(_frame(2, 5), metrics=("mean", "median"))
    assert ONE in one.notes and TWO in two.notes
    renamed = _boot(_frame(2, 5), metrics={"avg": "mean", "middle": "median"})
    assert TWO.replace("the median of task means is", "the middle (the median of task means) is") in renamed.notes
    both = _boot(_frame(2, 5), metrics={"median": "median", "middle": "median"})
    assert any(n.startswith("on 2 tasks the median of task means and the middle (the median of task means) are the "
                            "average of the two task means, as is the mean of task means: each takes") for n in both.notes)
    for res in (one, two, renamed, both):
        assert not any("the mean's estimate" in n or "the median's own" in n for n in res.notes)
    assert ("on 2 tasks the median of task means is the average of the two task means, as is the mean of task means, "
            "and takes the interval of the mean of task means") in two.report().replace("\n", " ")
    curve = curves_api._median_is_mean_note(1)
    assert curve.startswith("on one task the median of task means is at every step that task's mean over its runs, as "
                            "is the mean of task means: it takes the bands of the mean of task means")
    assert "the median's own" not in curve


def test_the_ranges_apart_caution_is_silent_on_the_median_of_two_tasks():
    """On 2 tasks the median of task means is their mean, which a task's shift moves as the mean: no caution beyond
    the mean's; from 3 tasks the median reads where the tasks lie (audit s18)."""
    rng = np.random.default_rng(5)
    rows = [dict(agent=a, task=t, run=r, score=100 * k + rng.gamma(2.0))
            for k, t in enumerate("ABC") for a in "xy" for r in range(3)]
    df = pd.DataFrame(rows)
    design = rlstats.design.design_of(df[df.task != "C"], "score ~ agent | task/run")
    assert normalization._location_read(("median",), design.n_tasks) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert normalization.warn_raw_scales(design, None, ("median", "mean")) is design
    three = rlstats.design.design_of(df, "score ~ agent | task/run")
    with pytest.warns(rlstats.errors.RlstatsWarning, match="the task whose mean the median takes depends"):
        normalization.warn_raw_scales(three, None, ("median",))


# ------------------------------------------------------------------------------------ the optimality gap below gamma

def _reflected_mean(df, **options):
    """1 minus the mean of task means' default interval, reversed: computed by the mean alone (no gap asked for)."""
    mean = _boot(df, metrics=("mean",), **options)
    return 1 - mean.intervals[:, 0, ::-1], mean


def test_gap_below_gamma_takes_the_means_interval_reflected_on_two_tasks():
    df = _frame(2, 5)
    # rng=2: on audit s33's cell streams rng=1's bootstrap-t lower bound (0.0907) lies outside the Welch bound checked
    # below (0.1106), as it did at none of rng=0, 2-4, 6-9; rng=1's was (0.110566223083255, 0.48680205865656556) before
    res = _boot(df, metrics=("optimality_gap",), rng=2)
    reflected, mean = _reflected_mean(df, rng=2)
    np.testing.assert_allclose(res.estimates[:, 0], 1 - mean.estimates[:, 0], rtol=1e-14)
    np.testing.assert_allclose(res.intervals[:, 0], reflected, rtol=1e-12)
    np.testing.assert_allclose(res.intervals[0, 0], [0.110566223083255, 0.4961721531290929], rtol=1e-9)
    # the gap's interval before: bootstrap-t and Welch floor without the mean's widening on the side of the skew (the
    # shortfalls 1 - score are skewed to the right: the upper bound moves out)
    before, _, _ = small_runs.bootstrap_bounds(
        res.bootstrap_distribution, res.estimates, 0.95, "studentized", None, None, False, res.counts.min(axis=0),
        res.degrees_of_freedom, (res.resampled_standard_errors, res.standard_errors), res.metrics, 2, res.skewness,
        res.welch_degrees_of_freedom)
    assert before[0, 0, 0] == res.intervals[0, 0, 0] and before[0, 0, 1] < res.intervals[0, 0, 1] - 0.01
    # its lower bound is the mean's upper Welch t bound reflected, a closed form: 1 - (mean of task means + the t
    # quantile at the Welch-Satterthwaite df times sqrt(c/(c - 1)) times sqrt(sum s_t^2 / c) / 2)
    from scipy import stats
    cells = df.groupby("task")["score"]
    parts = cells.var(ddof=1).to_numpy() / 5
    welch_df = parts.sum() ** 2 / (parts ** 2 / 4).sum()
    upper = cells.mean().mean() + stats.t.ppf(0.975, welch_df) * np.sqrt(5 / 4) * np.sqrt(parts.sum()) / 2
    assert res.intervals[0, 0, 0] == pytest.approx(1 - upper, rel=1e-12)
    # each end, at rng=2 and at rng=1 (whose bootstrap-t lower bound, 0.0907, lies outside the Welch bound), the wider
    # of the bootstrap-t bound (the run with the Welch floor off) and the Welch bound reflected
    from conftest import rule_off, welch_off
    lower = cells.mean().mean() - (upper - cells.mean().mean())
    floored = False  # the patch reaches the floor: somewhere the Welch bound is the one taken (review rt34c)
    for rng in (2, 1):
        def call(rng=rng):
            return _boot(df, metrics=("optimality_gap",), rng=rng)

        got, off = call().intervals[0, 0], rule_off(call, *welch_off()).intervals[0, 0]
        floored |= bool((got != off).any())
        assert got[0] == pytest.approx(min(off[0], 1 - upper), rel=1e-12), rng
        assert got[1] == pytest.approx(max(off[1], 1 - lower), rel=1e-12), rng
        if rng == 1:
            assert off[0] == pytest.approx(0.0907, abs=5e-5) and got[0] == off[0]  # the bootstrap-t's, taken
    assert floored
    assert res.gap_as_mean.tolist() == [True]
    assert ("every score of every agent is at or below gamma = 1, so each agent's optimality gap is gamma minus its "
            "mean of task means: it takes that mean's interval reflected (gamma minus its bounds, the gap at least 0), "
            "by its method "
            "(widened on the side of the runs' skew) and its rules for withholding it") in res.notes


def test_gap_below_gamma_on_one_task_by_the_means_count():
    df = _frame(1, 30)
    res = _boot(df, metrics=("optimality_gap", "mean"))
    np.testing.assert_allclose(res.intervals[:, 0], 1 - res.intervals[:, 1, ::-1], rtol=1e-12)
    # the lower bound is the Welch t floor's, a closed form: 1 - (mean + t(0.975, 29) sqrt(30/29) s / sqrt(30))
    from scipy import stats
    y = df["score"].to_numpy()
    upper = y.mean() + stats.t.ppf(0.975, 29) * np.sqrt(30 / 29) * y.std(ddof=1) / np.sqrt(30)
    assert res.intervals[0, 0, 0] == pytest.approx(1 - upper, rel=1e-12)
    assert res.intervals[0, 0, 0] == pytest.approx(0.16642639382042285, rel=1e-9)
    assert any(n.endswith("(on one task from 20 runs, where the gap's own interval needs 50)") for n in res.notes)
    short = _boot(_frame(1, 19), metrics=("optimality_gap",))  # below the mean's count: withheld, said
    assert np.isnan(short.intervals).all()
    assert any("the optimality gap's from 50 runs (the mean's 20 where every score of the agent is at or below gamma"
               in n for n in short.notes)


def test_gap_as_mean_is_each_agents_and_the_default_only():
    above = _frame(2, 5, seed=1).assign(agent="B")
    above.loc[above.index[0], "score"] = 1.2  # one run above gamma: B's gap is its own
    df = pd.concat([_frame(2, 5), above], ignore_index=True)
    res = _boot(df, metrics=("mean", "optimality_gap"))
    assert res.gap_as_mean.tolist() == [True, False]
    np.testing.assert_allclose(res.intervals[0, 1], 1 - res.intervals[0, 0, ::-1], rtol=1e-12)
    assert not np.allclose(res.intervals[1, 1], 1 - res.intervals[1, 0, ::-1])
    assert any(n.startswith("every score of A is at or below gamma = 1, so the optimality gap of A is gamma minus its "
                            "mean of task means") for n in res.notes)
    # the former defaults are kept bit for bit; gamma above every score but one moves nothing else
    former = _boot(df, metrics=("mean", "optimality_gap"), interval="studentized_unwidened")
    assert former.gap_as_mean is None and not any(n.startswith("every score of") for n in former.notes)


def test_gap_below_gamma_against_the_mean_of_the_shortfalls():
    """The mean of the shortfalls 1 - score, a bootstrap of its own (its resamples drawn in the shortfalls' order, so
    only Monte Carlo apart): at 20,000 resamples (0.13 s) within 0.005 of the gap's interval (0.0593 apart at 400 on the upper
    bound, the bootstrap-t's noisy tail; before audit s27 the gap's upper bound was the unwidened one, 0.44 here)."""
    df = _frame(2, 5)
    gap = _boot(df, metrics=("optimality_gap",), n_resamples=20_000)
    shortfalls = _boot(df.assign(score=1 - df["score"]), metrics=("mean",), n_resamples=20_000)
    np.testing.assert_allclose(gap.intervals, shortfalls.intervals, atol=0.005)
