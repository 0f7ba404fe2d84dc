"""New-user trial s38 on rlstats.tuning() (fixa38).

1. A call without configurations (no config=, no tuning run in the formula) printed a whole "tuning-aware
   evaluation" of 24 sweeps of one configuration each, nothing tuned: now an error naming config= and the formula's
   nesting, and what to run instead. A sweep of one configuration beside sweeps of several (a baseline run with its
   defaults beside tuned agents) still runs.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import lr_sweep
from rlstats.errors import DesignError, OptionError

FORMULA = "score ~ agent | task/seed"


def _atari_subset(atari):
    """The trial's data: CURL, DER, DrQ(eps) and SPR on six games, seeds 0-9."""
    keep = (atari["agent"].isin(["CURL", "DER", "DrQ(eps)", "SPR"])
            & atari["task"].isin(["Alien", "Boxing", "Breakout", "Freeway", "Pong", "Krull"]) & (atari["seed"] < 10))
    return atari[keep].reset_index(drop=True)


# ---- 1. nothing to tune ----------------------------------------------------------------------------------------------

def test_no_configurations_is_an_error_naming_config_and_the_nesting(atari):
    sub = _atari_subset(atari)
    before = sub.copy()
    with pytest.raises(OptionError) as info:
        rlstats.tuning(sub, FORMULA, normalize="atari100k_reference")
    text = str(info.value)
    assert text.startswith("tuning() has nothing to tune: without config= each agent is one configuration")
    assert "config=" in text and "'score ~ agent | task/tuning_run/seed'" in text
    # the data hold no column that could name the configurations, and the way on for agents of one configuration each
    assert "these data have no column besides the formula's that varies between the runs of an agent on a task" in text
    assert "rlstats.bootstrap(df, 'score ~ agent | task/seed')" in text
    pd.testing.assert_frame_equal(sub, before)  # the caller's frame unchanged


def test_no_configurations_names_the_columns_that_could_hold_them():
    df = lr_sweep()
    with pytest.raises(OptionError, match=re.escape("the data's column that varies between an agent's runs on a task "
                                                    "and could name them: config='lr'")):
        rlstats.tuning(df.assign(seed=np.arange(len(df))), FORMULA)  # every run its own seed
    # seeds repeated across configurations, config= forgotten: refused as repeated seeds first (audit s32), the column
    # named there
    with pytest.raises(DesignError, match=re.escape("these rows look like several configurations: pass config='lr'")):
        rlstats.tuning(df, FORMULA)


def test_config_of_one_value_per_sweep_is_an_error_naming_it():
    df = lr_sweep()
    one = df[df["lr"] == 0.01]
    with pytest.raises(DesignError) as info:
        rlstats.tuning(one, FORMULA, config="lr")
    text = str(info.value)
    assert text.startswith("config='lr' holds one configuration in every sweep (agent x task): each agent ran with "
                           "one configuration on each task, so tuning() has nothing to select")
    assert "rlstats.bootstrap(df, 'score ~ agent | task/seed')" in text


def test_a_nested_tuning_run_of_one_level_per_sweep_is_an_error_naming_the_formula_part():
    df = lr_sweep().assign(run=0)
    df = df[df["lr"] == 0.01].drop(columns="lr")
    with pytest.raises(DesignError, match=re.escape("the formula's 'run' ('| task/run/seed') holds one configuration "
                                                    "in every sweep")):
        rlstats.tuning(df, "score ~ agent | task/run/seed")


def test_one_configuration_beside_tuned_sweeps_still_runs():
    # a baseline run with its defaults (one configuration) beside a tuned agent: best by construction, as before
    df = lr_sweep()
    df = df[(df["agent"] == "ppo") | (df["lr"] == 0.01)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.tuning(df, FORMULA, config="lr", views=["best_set"], n_resamples=100, rng=0)
    assert res.n_configs.tolist() == [[3, 1], [3, 1]]
    assert any("each have one configuration, so each is best by construction" in n for n in res.notes)
