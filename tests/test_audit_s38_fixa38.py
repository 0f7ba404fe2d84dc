"""New-user trial s38 on rlstats.tuning() (fixa38).

1. A call without configurations (no config=, no tuning run in the formula) printed a whole "tuning-aware
   evaluation" of 24 sweeps of one configuration each, nothing tuned: now an error naming config= and the formula's
   nesting, and what to run instead. A sweep of one configuration beside sweeps of several (a baseline run with its
   defaults beside tuned agents) still runs.
2. best_set() returned every configuration with a chance (3 rows of 40, 1 in the set) beside "best set of 1": it
   returns the set; best_set(runners_up=True) the configurations with a smaller chance too.
3. Configuration labels printed as the floats' reprs ("hyperparameter=1.873817422860383e-05"): the print, LaTeX,
   plots and notes say each floating-point hyperparameter at the fewest significant digits (3 or more) that keep its
   values apart over every configuration (``config_digits``); the tables and tidy() keep the data's texts.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import load_dataset, lr_sweep, one_sweep
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
    # as the command line says it: -o config= throughout, and the bootstrap as a command
    command = info.value.command_line
    assert command.startswith("tuning() has nothing to tune: without -o config= each agent is one configuration")
    assert "with -o config= (each distinct" in command and "rlstats compare FILE 'score ~ agent | task/seed' --method " \
        "bootstrap" in command and "rlstats.bootstrap" not in command
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


# ---- 2. best_set() returns the best set ------------------------------------------------------------------------------

def _close_runner_up():
    """One sweep of 6 configurations, 4 seeds each (N(0, 1) plus 2, 1, 0.9, 0, 0, 0): lr=0 is the best set alone,
    lr=1 best in 3% of the resamples (a runner-up), the other 4 never."""
    rng = np.random.default_rng(0)
    return one_sweep(rng.normal(size=(6, 4)) + np.array([2.0, 1.0, 0.9, 0, 0, 0])[:, None])


def test_best_set_returns_the_set_and_runners_up_on_request():
    res = rlstats.tuning(_close_runner_up(), FORMULA, config="lr", views=["best_set"], n_resamples=200, rng=0)
    best, every = res.best_set(), res.best_set(runners_up=True)
    assert best["config"].tolist() == ["lr=0"] and best["in_best_set"].all()
    assert int(res.tuned()["n_best_set"].iloc[0]) == len(best) and "best set of 1;" in str(res)
    # the runner-up: best or tied in 6 of the 200 resamples, under the threshold, so outside the set
    assert every["config"].tolist() == ["lr=0", "lr=1"] and every["in_best_set"].tolist() == [True, False]
    assert every["probability_best_or_tied"].tolist() == [0.97, 0.03]
    assert every["in_best_set"].tolist() == (every["probability_best_or_tied"] >= res.threshold).tolist()
    pd.testing.assert_frame_equal(every[every["in_best_set"]].reset_index(drop=True), best)
    assert [n for n in res.notes if n.startswith("best_set() lists")] == [
        "best_set() lists the 1 configuration in the best set (1 of the 6 configurations); best_set(runners_up=True) "
        "adds the 1 other best or tied for best in some resample but in fewer than 0.05 of them; the 4 others (in ppo "
        "on ant) were never best or tied for best in any of the 200 resamples (probability 0)"]
    with pytest.raises(OptionError, match="runners_up must be True or False, got 'yes'"):
        res.best_set(runners_up="yes")


@pytest.mark.slow
def test_best_set_of_the_trial_landscape(mirror):
    """The trial: 40 configurations of learning-rate_angle-weight (10 seeds each); best_set() gave 3 rows beside "best
    set of 1" (1.1 s CPU to load the landscapes: slow; the reduced case above runs by default)."""
    land = load_dataset("hpo_landscapes")
    sweep = land[(land["landscape"] == "learning-rate_angle-weight") & (land["config"] < 40)].assign(agent="PPO")
    res = rlstats.tuning(sweep, FORMULA, config=["hyperparameter", "reward_weight"], views=["best_set"], rng=0)
    assert len(res.best_set()) == 1 and "best set of 1;" in str(res) and len(res.best_set(runners_up=True)) == 3
    assert ("best_set() lists the 1 configuration in the best set (1 of the 40 configurations); "
            "best_set(runners_up=True) adds the 2 others best or tied for best in some resample but in fewer than 0.05 "
            "of them; the 37 others (in PPO on LunarLander) were never best or tied for best in any of the 2,000 "
            "resamples (probability 0)") in res.notes
    # finding 3 on the same data: the labels at the digits that keep each column's 40 values apart
    assert res.config_digits == {"hyperparameter": _fewest_digits(sweep["hyperparameter"]),
                                 "reward_weight": _fewest_digits(sweep["reward_weight"])} == \
        {"hyperparameter": 3, "reward_weight": 3}
    assert "PPO on LunarLander: hyperparameter=1.87e-05, reward_weight=0 selected of 40" in str(res)


# ---- 3. configuration labels at the digits that keep them apart ----------------------------------------------------

def _float_sweep():
    """Two float hyperparameters as a grid writes them (np.logspace, np.linspace), and an integer one: lr's values
    1.8738e-05 and 1.8745e-05 agree to 3 digits, so lr needs 4; reward_weight's are apart at 3."""
    rng = np.random.default_rng(0)
    lr = [1.873817422860383e-05, 1.8745e-05, 4.328761281083062e-05]
    weight = [0.0, 8.282828282828282, 2.121212121212121]
    rows = [("ppo", "lunar", a, w, batch, s, 100.0 * (i == 0) + rng.normal())
            for i, (a, w) in enumerate(zip(lr, weight)) for batch in (64, 128) for s in range(3)]
    return pd.DataFrame(rows, columns=["agent", "task", "lr", "reward_weight", "batch", "seed", "score"])


def _fewest_digits(values, least=3):
    """An independent count: the fewest %g digits (least or more) that print the distinct values apart."""
    distinct = sorted(set(values))
    return next(d for d in range(least, 18) if len({f"{v:.{d}g}" for v in distinct}) == len(distinct))


def test_configuration_labels_print_at_the_digits_that_keep_them_apart():
    df = _float_sweep()
    res = rlstats.tuning(df, FORMULA, config=["lr", "reward_weight", "batch"], views=["best_set"],
                         n_resamples=200, rng=0)
    assert res.config_digits == {"lr": _fewest_digits(df["lr"]), "reward_weight": _fewest_digits(df["reward_weight"])}
    assert res.config_digits == {"lr": 4, "reward_weight": 3}  # the integer column as written
    full = "lr=1.873817422860383e-05, reward_weight=0.0, batch=64"
    assert res.tuned()["config"].tolist() == [full]  # the tables and tidy() keep the data's texts
    assert res.tidy()["config"].tolist() == [full]
    text = str(res)
    assert "ppo on lunar: lr=1.874e-05, reward_weight=0, batch=64 selected of 6" in text and full not in text
    latex = res.to_latex()
    assert "lr=1.874e$-$05, reward\\_weight=0, batch=64" in latex and "1.873817422860383" not in latex
    # every configuration's label printed apart (lr=1.874e-05 and 1.8745e-05 read 1.87e-05 alike at 3 digits)
    labels = {res.config_label(f"lr={a!r}, reward_weight={w!r}, batch={b}")
              for a, w, b in df[["lr", "reward_weight", "batch"]].drop_duplicates().itertuples(index=False)}
    assert len(labels) == 6 and "lr=1.874e-05, reward_weight=0, batch=64" in labels
    assert "lr=4.329e-05, reward_weight=2.12, batch=64" in labels


def test_one_seed_note_names_configurations_as_printed():
    df = _float_sweep().query("not (lr > 4e-05 and seed > 0)")  # one configuration's seeds cut to one
    res = rlstats.tuning(df, FORMULA, config=["lr", "reward_weight", "batch"], views=["best_set"], n_resamples=200,
                         rng=0)
    (note,) = [n for n in res.notes if n.startswith("best-set probabilities")]
    assert note.endswith("(configurations of one seed: ppo on lunar: 'lr=4.329e-05, reward_weight=2.12, batch=128', "
                         "'lr=4.329e-05, reward_weight=2.12, batch=64')")
