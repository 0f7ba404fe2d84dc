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
    assert curves_api._band_options(options, 2).statistic == "mean"
    with mock.patch.object(statistics, "MEDIAN_IS_MEAN_TASKS", 0):  # the rule lifted in its one home
        lifted = _boot(df, metrics=("mean", "median"))
        assert curves_api._band_options(options, 2) is options
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
