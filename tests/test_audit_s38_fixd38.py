"""Audit s38 (fixd38): four findings of the day's audits, each checked by the numbers or words it concerns.

1. An agent with one run in every task is refused by probability_of_improvement and by the Wilson profile band with a
   reason true of each interval form (it had said "zero width" of every one).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration
from rlstats.errors import DesignError

FORMULA = "score ~ agent | task"


def _one_run_agent():
    """A with 4 runs on t1-t3, C with one run on each: C has one run in every task."""
    rows = [dict(agent=a, task=t, seed=s, score=float(s % 2) + 0.3 * "AC".index(a) + 0.1 * int(t[1]))
            for a in "AC" for t in ("t1", "t2", "t3") for s in range(4 if a == "A" else 1)]
    return pd.DataFrame(rows)


def _lowest_runs(procedure, interval, metric):
    return min(int(r["runs"]) for r in calibration.rows(procedure)
               if (r["interval"], r["metric"]) == (interval, metric))


def _refusal(function, **options):
    with pytest.raises(DesignError) as caught:
        function(_one_run_agent(), FORMULA, rng=0, **options)
    text = str(caught.value)
    assert text.startswith(("probability of improvement intervals cannot be computed for C: they need at least 2 runs "
                            "in some task of each agent, and it has one run in every task; ",
                            "performance profile bands cannot be computed for C: they need at least 2 runs in some "
                            "task of each agent, and it has one run in every task; ")), text
    return text.split("; ", 1)[1]


def test_score_interval_refusal_says_its_coverage_was_not_measured_at_one_run():
    # The Hanley-McNeil score interval reads no spread: against A's 4 runs, C's one run gives a variance of 0.125 at
    # 1/2 (not zero width). Its calibration rows start at 2 runs per task.
    from rlstats.methods.bootstrap._small_runs import hanley_mcneil_variance
    assert hanley_mcneil_variance(0.5, 1, 4) == 0.125
    assert _lowest_runs("bootstrap.interval", "score", "probability_of_improvement") == 2
    reason = _refusal(rlstats.probability_of_improvement)
    assert "zero width" not in reason
    assert reason == ("the score interval's variance (Hanley-McNeil) reads the runs' counts, not their spread, and "
                      "its coverage was measured from 2 runs per task, not at one; add runs")


@pytest.mark.parametrize("interval", ["percentile", "expanded"])
def test_resampled_improvement_refusal_says_only_the_other_agents_runs_vary(interval):
    reason = _refusal(rlstats.probability_of_improvement, interval=interval, n_resamples=100)
    assert reason == ("an agent's one run per task is the same in every resample, so its pairs' intervals would "
                      "show only the other agent's spread (none against another agent with one run in every task), "
                      "and their coverage was not measured there; add runs")
    # what it says: with C's one run fixed, the percentile interval from A's resampled runs is not of zero width
    full = _one_run_agent()
    two = pd.concat([full, full[full.agent == "C"].assign(seed=1)])  # C's run twice: allowed, and C's runs tie
    res = rlstats.probability_of_improvement(two, FORMULA, interval="percentile", n_resamples=200, rng=0)
    assert np.diff(res.intervals[0])[0] > 0.2


def test_wilson_band_refusal_says_its_coverage_was_not_measured_at_one_run():
    # The Wilson band counts runs above tau; with one run a task it has width (the effective runs are T = 3)
    from rlstats.methods.bootstrap import _kernels
    band = _kernels.profile_wilson_bounds(np.array([1 / 3]), np.ones(3), 0.95)[0]
    assert np.round(band, 3).tolist() == [0.018, 0.875]  # Newcombe 1998 method 4 by hand: 0.0177, 0.8747
    assert _lowest_runs("bootstrap.profile", "wilson", "runs") == 2
    reason = _refusal(rlstats.performance_profile)
    assert reason == ("the Wilson band counts the runs above each tau and would have width, but its coverage was "
                      "measured from 2 runs per task, not at one; add runs, or pass task_bootstrap=True (its "
                      "wilson_tasks band takes the tasks as the sample)")


def test_percentile_profile_band_keeps_its_true_zero_width_reason():
    # a profile band resamples the agent's own runs only: one run a task is the same profile in every resample
    reason = _refusal(rlstats.performance_profile, interval="percentile", n_resamples=100)
    assert reason.startswith("resampling runs within tasks gives intervals of zero width; add runs"), reason
