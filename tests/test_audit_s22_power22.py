"""Audit s22 (power22): power planning at the designs RL has (3-10 runs per cell, capped scores, ties, edges)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import caught

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


def test_withheld_intervals_are_said_not_counted_silently():
    res, said = caught(lambda: rlstats.power("bootstrap", design=_capped_pilot(), formula="score ~ agent | task",
                                             seeds=[5], n_sim=20, rng=0, n_resamples=200, **QUIET))
    # PPO's interval is withheld in every data set (its runs all 500): no pair apart, and the warning counts them
    assert res.table["power"].iloc[0] == 0.0
    said = [s for s in said if "withheld the iqm interval of PPO" in s]
    assert len(said) == 1 and said[0].endswith("(raised by 20 method calls on the simulated data sets)")
    # a pilot whose PPO has spread is planned as before, with no such warning
    pilot = _capped_pilot()
    pilot.loc[pilot["agent"] == "PPO", "score"] -= np.tile([0.0, 3.0, 7.0, 1.0, 2.0], 3)
    res, said = caught(lambda: rlstats.power("bootstrap", design=pilot, formula="score ~ agent | task", seeds=[5],
                                             n_sim=20, rng=0, n_resamples=200, **QUIET))
    assert res.table["power"].iloc[0] == 1.0
    assert not any("withheld" in s for s in said)


def test_a_withheld_interval_does_not_hide_the_other_pairs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.power("bootstrap", design=_capped_pilot(("DQN", "PPO", "A2C")), formula="score ~ agent | task",
                            seeds=[5], n_sim=20, rng=0, n_resamples=200, **QUIET)
    assert res.table["power"].iloc[0] == 1.0  # DQN (about 420) and A2C (about 100) separate in every data set


def test_report_of_a_pooled_null_pilot_says_type_one_error():
    pilot = simulate(agents=2, tasks=3, seeds=5, rng=0)
    res = rlstats.power("skillings_mack", design=pilot, formula="score ~ agent | task", resample="pooled", seeds=[5],
                        n_sim=20, rng=0, **QUIET)
    assert "type-I error by simulation" in str(res)
    assert res.table["power"].tolist() == [0.0]
    assert res.report("text").startswith("We estimated the type-I error of each method by resampling a pilot")


@pytest.mark.parametrize("source", ["simulate", "pilot"])
def test_an_effect_past_the_front_doors_magnitude_is_refused(source):
    given = {} if source == "simulate" else {"design": simulate(agents=2, tasks=3, seeds=5, rng=0),
                                             "formula": "score ~ agent | task"}
    with pytest.raises(OptionError, match=r"effect=1e\+300.* reach scores of [0-9.]+e\+300, past 1e\+150"):
        rlstats.power("skillings_mack", effect=1e300, seeds=[5], n_sim=5, rng=0, tasks=None if given else 3,
                      **given, **QUIET)
    # the largest scores a Design takes are planned (1e140 within-cell SDs keep them under 1e150)
    res = rlstats.power("skillings_mack", effect=1e140, seeds=[5], n_sim=5, rng=0, tasks=None if given else 3,
                        **given, **QUIET)
    assert res.table["power"].tolist() == [1.0]


@pytest.mark.parametrize("heterogeneity", [300, 1e300])
def test_a_heterogeneity_past_the_magnitude_is_refused_without_numpy_warnings(heterogeneity):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warnings of the draw are not shown before the error
        with pytest.raises(OptionError, match=r"heterogeneity=.*past 1e\+150.*or heterogeneity"):
            rlstats.power("skillings_mack", effect=1.0, heterogeneity=heterogeneity, seeds=[5], tasks=3, n_sim=5,
                          rng=0, **QUIET)


def test_command_line_says_the_flags_of_an_effect_too_large(capsys):
    from rlstats.cli import main

    assert main(["power", "skillings_mack", "--effect", "1e300", "--seeds", "5", "--n-sim", "5", "--seed", "0",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--effect 1e+300, --heterogeneity 1 reach scores of" in err and "Traceback" not in err


def test_a_small_pilot_resampled_by_agent_says_how_far_its_rates_stray():
    pilot = simulate(agents=2, tasks=5, seeds=3, distribution="normal", rng=100)
    res = rlstats.power("skillings_mack", design=pilot, formula="score ~ agent | task", effect=1.0, seeds=[5],
                        n_sim=20, rng=0, **QUIET)
    said = [note for note in res.notes if note.startswith("pilot: as few as 3 runs per agent and task")]
    assert len(said) == 1
    # (0.90 until audit s35 drew the model's data sets a block at a time: 0.901 -> 0.909 of 1,000)
    # (0.37 to 1 until audit s36 calib36 measured the pilots again on today's pilot draws: 0.368 -> 0.384)
    assert "ranged 0.38 to 1 (10th to 90th percentile) about a true power of 0.91" in said[0]
    # this pilot's own rate (20 data sets), against the true power 0.91 of the model it was drawn from
    assert res.table["power"].tolist() == [0.8]  # 0.75 before audit s34 powerstream34 keyed each cell's stream
    # pooled resampling, and pilots of more than 10 runs per cell (the most measured), get no such note
    for resample, seeds in (("pooled", 3), ("agents", 11)):
        pilot = simulate(agents=2, tasks=5, seeds=seeds, distribution="normal", rng=100)
        res = rlstats.power("skillings_mack", design=pilot, formula="score ~ agent | task", effect=1.0, seeds=[5],
                            n_sim=5, rng=0, resample=resample, **QUIET)
        assert not any(note.startswith("pilot: as few as") for note in res.notes)


@pytest.mark.slow
def test_the_small_pilot_notes_row_is_reproduced():
    """tests/reference/pilot_spread.py's row of 3-run pilots (normal scores) gives the figures the note quotes, as
    printed (3 decimals): audit s36 (calib36) measured them again on today's pilot draws (audit s35 ran this under the
    draws before audit s34 powerstream34, which gave the former 0.368, 0.815, 1.0)."""
    import importlib.util
    import pathlib

    from rlstats.methods import DECLARATIONS

    PILOT_SPREAD_TRUTH, rows = DECLARATIONS["skillings_mack"].power.pilot_spread  # stored there since audit s30
    PILOT_SPREAD = {runs: (agents, pooled) for runs, agents, pooled in rows}

    path = pathlib.Path(__file__).parent / "reference" / "pilot_spread.py"
    spec = importlib.util.spec_from_file_location("pilot_spread", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = {(r[2], r[3]): r[4:] for r in module.rows(20, 200, families=("normal",), sizes=(3,), seeds=[5])}
    truth, low, median, high = rows[("agents", 5)]
    assert truth == pytest.approx(PILOT_SPREAD_TRUTH, abs=0.005)
    assert (low, median, high) == pytest.approx(PILOT_SPREAD[3][0], abs=6e-4)  # printed at 3 decimals
    _, low, median, high = rows[("pooled", 5)]
    assert (low, median, high) == pytest.approx(PILOT_SPREAD[3][1], abs=6e-4)
