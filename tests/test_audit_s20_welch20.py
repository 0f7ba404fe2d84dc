"""Audit s20 (welch20): the equivalence back end's aggregate of the mean, floored by the Welch t bound as the
bootstrap's own default interval of the mean is (``rlstats.methods.bootstrap._small_runs.welch_floor``)."""

from __future__ import annotations

import warnings

import pytest
from scipy import stats

import rlstats


def _lognormal_pair():
    # 5 tasks x 20 right-skewed runs per agent: the bootstrap-t's lower bound of the mean difference lies inside the
    # Welch t bound (-0.3567 against -0.3756), the side where size_equivalence's skewed rows at 5 tasks x 20 runs held
    # 0.933 of 1,920 (docs/calibration.md)
    return rlstats.datasets.simulate(agents=2, tasks=5, seeds=20, effect=0.0, distribution="lognormal",
                                     heterogeneity=0.0, rng=0)



def test_aggregate_mean_takes_the_wider_of_the_bootstrap_t_and_welch_bounds():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # raw scales
        res = rlstats.equivalence(_lognormal_pair(), "score ~ agent | task", margin=0.365, aggregate="mean",
                                  n_resamples=400, rng=1)
    tidy = res.tidy()
    row = tidy.query("scope == 'aggregate'").iloc[0]
    across = tidy.query("scope == 'across tasks'").iloc[0]
    # the Welch bound: the estimate -+ t(0.95, Welch-Satterthwaite df of the difference) times the aggregate's
    # standard error (already scaled by sqrt(c / (c - 1)), as the bootstrap's welch_floor reads it)
    assert across["df"] == pytest.approx(167.7268, rel=1e-5)
    half = stats.t.ppf(0.95, across["df"]) * row["std_error"]
    assert row["std_error"] == pytest.approx(0.1353015, rel=1e-6)
    assert row["conf_low"] == pytest.approx(row["estimate"] - half, rel=1e-12)  # -0.3756: the Welch bound, wider
    assert row["conf_high"] == pytest.approx(0.0756401, rel=1e-6)  # the bootstrap-t bound, wider than +0.0720
    # the p-value agrees with the interval: -margin (-0.365) now lies inside it, so nothing is shown
    t_lower = (row["estimate"] + 0.365) / row["std_error"]
    assert row["p_lower"] == pytest.approx(stats.t.sf(t_lower, across["df"]), rel=1e-12)  # 0.0579 > alpha
    assert row["p_value"] == row["p_lower"] > 0.05 and not row["shown"]
