"""Audit s22 (power22): power planning at the designs RL has (3-10 runs per cell, capped scores, ties, edges)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.datasets import simulate
from rlstats.errors import OptionError

QUIET = {"progress": False}


def _capped_pilot(agents=("DQN", "PPO")):
    """PPO solves every task at the cap (500) in all its runs; DQN scores about 420 and A2C about 100 below it."""
    gen = np.random.default_rng(0)
    centre = {"DQN": 420.0, "PPO": 500.0, "A2C": 100.0}
    rows = [(agent, task, seed, 500.0 if agent == "PPO" else min(500.0, gen.normal(centre[agent], 40.0)))
            for task in ("CartPole", "Acrobot", "MountainCar") for seed in range(5) for agent in agents]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.xfail(strict=True, reason="audit s22: bootstrap() withholds the interval of an agent tied in every task "
                                       "(a capped pilot), and power() counted every data set as no separation, "
                                       "power 0 with no word")
def test_withheld_intervals_are_said_not_counted_silently():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = rlstats.power("bootstrap", design=_capped_pilot(), formula="score ~ agent | task", seeds=[5], n_sim=20,
                            rng=0, n_resamples=200, **QUIET)
    assert res.table["power"].iloc[0] == 0.0
    assert any("withheld" in str(w.message) and "PPO" in str(w.message) for w in caught)


@pytest.mark.xfail(strict=True, reason="audit s22: with three agents one withheld interval (NaN) made np.max NaN, "
                                       "so the other pairs' separation was never counted")
def test_a_withheld_interval_does_not_hide_the_other_pairs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.power("bootstrap", design=_capped_pilot(("DQN", "PPO", "A2C")), formula="score ~ agent | task",
                            seeds=[5], n_sim=20, rng=0, n_resamples=200, **QUIET)
    assert res.table["power"].iloc[0] == 1.0  # DQN (about 420) and A2C (about 100) separate in every data set


@pytest.mark.xfail(strict=True, reason="audit s22: a pilot pooled over agents with no shift printed 'type-I error' "
                                       "but report() said 'We estimated the power'")
def test_report_of_a_pooled_null_pilot_says_type_one_error():
    pilot = simulate(agents=2, tasks=3, seeds=5, rng=0)
    res = rlstats.power("skillings_mack", design=pilot, formula="score ~ agent | task", resample="pooled", seeds=[5],
                        n_sim=20, rng=0, **QUIET)
    assert "type-I error by simulation" in str(res)
    assert res.report("text").startswith("We estimated the type-I error of each method by resampling a pilot")


@pytest.mark.xfail(strict=True, reason="audit s22: an effect that carries the scores past what design.build takes "
                                       "(1e150, or inf) ran the methods on overflowing data: bootstrap power 0, "
                                       "permutation 0.17 at effect=1e308, numpy RuntimeWarnings only")
@pytest.mark.parametrize("source", ["simulate", "pilot"])
def test_an_effect_past_the_front_doors_magnitude_is_refused(source):
    given = {} if source == "simulate" else {"design": simulate(agents=2, tasks=3, seeds=5, rng=0),
                                             "formula": "score ~ agent | task"}
    with pytest.raises(OptionError, match=r"effect=1e\+300"):
        rlstats.power("skillings_mack", effect=1e300, seeds=[5], n_sim=5, rng=0, tasks=None if given else 3,
                      **given, **QUIET)
