"""Audit s17 power17: power() and sample_size() planned from real pilots (Atari 100k scores, the SB3 logs), as a user.

Each test is a defect found by reading what a study printed, checked against the pilot it resampled.
"""

import numpy as np
import pytest
from conftest import caught

import rlstats
from rlstats.errors import DesignError, OptionError

QUIET = {"progress": False}
GAMES = ["Alien", "Breakout"]


def _pilot(atari, runs):
    """DrQ(eps) and SPR on two games, their first ``runs`` runs: the few runs per agent a pilot has."""
    rows = atari[atari["agent"].isin(["DrQ(eps)", "SPR"]) & atari["task"].isin(GAMES) & (atari["seed"] < runs)]
    return rows.reset_index(drop=True)


def test_a_pilot_of_one_run_per_cell_is_refused(atari):
    # Each cell's one run drawn with replacement is that run again: every simulated data set was the pilot itself
    # repeated, and power() printed "power 1" (interval 0.83 to 1 at n_sim=20) as if the runs had no spread.
    one = _pilot(atari, 1)
    with pytest.raises(DesignError, match=r"every agent-task cell of the pilot has one distinct score"):
        rlstats.power("skillings_mack", design=one, formula="score ~ agent | task", seeds=[3], n_sim=20, rng=0,
                      **QUIET)


def test_a_constant_pilot_is_refused_before_the_search(atari):
    # All scores equal: every data set is all ties, power 0 at every number of seeds; sample_size() simulated seven
    # rows up to 100 seeds and then advised "raise max_seeds or the effect"
    flat = _pilot(atari, 5).assign(score=1.0)
    with pytest.raises(DesignError, match=r"every agent-task cell of the pilot has one distinct score"):
        rlstats.sample_size("skillings_mack", 0.8, design=flat, formula="score ~ agent | task", max_seeds=8, n_sim=20,
                            rng=0, **QUIET)
    with pytest.raises(DesignError, match=r"every task of the pilot has one distinct score"):
        rlstats.power("skillings_mack", design=flat, formula="score ~ agent | task", resample="pooled", seeds=[3],
                      n_sim=20, rng=0, **QUIET)


def test_a_pilot_whose_draws_vary_is_planned(atari):
    # the check refuses only data sets that cannot vary: pooled, a one-run pilot mixes the agents' runs
    one = _pilot(atari, 1)
    res = rlstats.power("skillings_mack", design=one, formula="score ~ agent | task", resample="pooled", seeds=[3],
                        n_sim=40, rng=0, **QUIET)
    assert 0 <= res.table["power"].iloc[0] < 0.3


# The study sample_size() runs: two agents x 3 tasks, the rank test's vectorised chi-squared p-value, 20 data sets a
# row; each row's estimated work was 0.002 s (2.0 to 2.4 ms at 2 to 32 seeds), the search's 15 rows 0.032 s. Audit s35
# power35 priced the drawing as it is done, a block of 50 data sets at once (and the dry run's): 0.7 to 1.6 ms a row,
# the doubling rows 0.005 s, and the search's 15 rows (others, on other data sets of the same model) 0.016 s
SEARCH = {"effect": 0.5, "tasks": 3, "n_sim": 20, "max_seeds": 32, "rng": 0, "pvalue": "asymptotic", **QUIET}


def test_max_seconds_bounds_the_whole_search():
    # max_seconds=0.01 ran the 15 rows (0.032 s estimated, 2.3 s on the clock): every row alone was under it.
    # The doubling rows (2, 4, 8, 16, 32 seeds: 0.005 s) are refused before the search ...
    with pytest.raises(OptionError, match=r"this sample-size search would take about .* the doubling rows at 2, 4, 8, "
                                          r"16 and 32 seeds, .* pass max_seconds=60"):
        rlstats.sample_size("skillings_mack", 0.8, max_seconds=0.004, **SEARCH)
    # ... and a search whose bisections go past the bound stops before the row that would (before audit s35's data
    # sets and estimate: 0.015 s, rows at 2, 4, 6, 8, 10, 11, 12 and 16 seeds)
    with pytest.raises(OptionError, match=r"this sample-size search would take .* rows at 2, 4, 7, 8, 10, 11, 12, "
                                          r"13, 14, 16 and 28 seeds, and more"):
        rlstats.sample_size("skillings_mack", 0.8, max_seconds=0.01, **SEARCH)
    res = rlstats.sample_size("skillings_mack", 0.8, max_seconds=0.05, **SEARCH)
    assert res.sample_size == 14 and len(res.table) == 15  # 12 before audit s35 (other data sets)


def test_a_bad_option_is_named_before_the_search_cost_it_inflates():
    with pytest.raises(OptionError, match=r"n_resamples=10000000000000 is more than"):
        rlstats.sample_size("permutation", 0.8, effect=1.0, tasks=2, n_sim=10, n_resamples=10**13, **QUIET)


def test_a_test_that_cannot_reject_says_so_in_the_result(atari):
    # AdaStop at 5 seeds (n = 1, K = 5) and the permutation test at 3 runs per agent (smallest two-sided p 0.1) spend
    # no level: the table printed "power 0" for them, the reason only in a warning on stderr, not in print() or
    # report()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.power(["permutation", "adastop"], design=_pilot(atari, 5), formula="score ~ agent | task",
                            effect=0.5, seeds=[5, 10], n_sim=10, rng=0, **QUIET)
        few = rlstats.power("permutation", effect=3.0, tasks=1, seeds=[3, 4], n_sim=10, rng=0, **QUIET)
    rows = res.table.set_index(["method", "seeds"])
    assert rows.loc[("adastop", 5), "level_spent"] == 0 and rows.loc[("adastop", 5), "power"] == 0
    assert rows.loc[("adastop", 10), "level_spent"] > 0
    assert ("AdaStop can spend no level at 5 seeds per cell (level_spent 0): it cannot reject there, whatever the "
            "effect") in res.notes
    assert not any("permutation test can spend no level" in note for note in res.notes)  # 5 runs: it can
    assert ("the permutation test can spend no level at 3 seeds per cell (level_spent 0): it cannot reject there, "
            "whatever the effect") in few.notes
    assert "can spend no level at 3 seeds" in str(few) and "can spend no level at 3 seeds" in few.report()


@pytest.mark.parametrize("given", [{"normalize": "atari100k_reference"},
                                   {"bootstrap": {"normalize": "atari100k_reference"}}])
def test_normalize_is_refused_with_the_way_to_normalise_the_pilot(atari, given):
    # planning bootstrap()'s IQM of human-normalised Atari scores: normalize= went on to bootstrap(), which was given
    # the simulated data's Design and said "normalize= needs the DataFrame; normalise before building the Design",
    # a Design the user never built
    with pytest.raises(OptionError, match=r"normalize= is not taken by power\(\): normalise the pilot first, "
                                          r"rlstats.normalize\(pilot, reference\)"):
        rlstats.power("bootstrap", design=_pilot(atari, 5), formula="score ~ agent | task", effect=0.5, seeds=[5],
                      n_sim=4, rng=0, **given, **QUIET)


def test_a_normalised_pilot_is_not_warned_about_raw_scales(atari, published):
    # Human-normalised Atari 100k scores (rlstats.normalize, its note in the pilot's notes): power("bootstrap") warned
    # "scores of 26 tasks are aggregated on their own scales ... normalise them first with normalize=" from each
    # analysis, of data sets drawn from normalised runs
    from rlstats.tables import read_csv

    reference = read_csv(published / "atari100k_reference.csv")
    pilot = rlstats.normalize(atari[atari["agent"].isin(["DrQ(eps)", "SPR"]) & (atari["seed"] < 5)], reference,
                              low="random", high="human")
    res, said = caught(lambda: rlstats.power("bootstrap", design=pilot, formula="score ~ agent | task", effect=0.3,
                                             seeds=[5], n_sim=4, rng=0, n_resamples=50, **QUIET))
    assert not [s for s in said if "on their own scales" in s]
    assert "pilot: 'score' normalised per task as (score - random) / (human - random)" in " ".join(res.notes)


def test_bounds_that_the_shift_crosses_are_refused_before_drawing():
    # Success rates in (0, 1) planned with bootstrap's bounds=(0, 1): effect=2 carried agent_2's runs on task_01 past
    # 1, and power() raised DesignError "2 row(s) of 'score' lie outside the bounds [0, 1] ...: row 5 (agent 'agent_2',
    # task 'task_01', value 1.24) ...; fix those rows", rows of a simulated data set; simulated scores (no bounds)
    # met them the same way
    rates = rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, distribution="normal", heterogeneity=0, rng=0)
    rates["score"] = 1 / (1 + np.exp(-rates["score"]))
    plan = {"seeds": [4], "n_sim": 4, "rng": 0, "n_resamples": 50, "bounds": (0, 1), **QUIET}
    with pytest.raises(OptionError, match=r"effect=2 carries agent_2's runs on task_01 to 1.2\d, above bootstrap's "
                                          r"bounds=\(0, 1\)"):
        rlstats.power("bootstrap", design=rates, formula="score ~ agent | task", effect=2, **plan)
    with pytest.raises(OptionError, match=r"bounds= of bootstrap bound a pilot's scores"):
        rlstats.power("bootstrap", effect=1, **plan)
    res = rlstats.power("bootstrap", design=rates, formula="score ~ agent | task", effect=0.2, **plan)
    assert res.table["n_tests"].iloc[0] == 4  # a shift that stays within them is planned


def test_cells_of_one_run_are_named(atari):
    # a pilot with one SPR run on Breakout (the others have 5) resampled that run as SPR's every run there, a cell with
    # no spread, and the result did not say so
    pilot = _pilot(atari, 5)
    pilot = pilot[~((pilot["agent"] == "SPR") & (pilot["task"] == "Breakout") & (pilot["seed"] > 0))]
    res = rlstats.power("permutation", design=pilot, formula="score ~ agent | task", effect=0.5, seeds=[4], n_sim=10,
                        rng=0, **QUIET)
    assert ("pilot: SPR has one run on Breakout: drawn with replacement, it is that run in every data set (no spread "
            "there); resample='pooled' draws from the task's runs") in res.notes
    assert not any("one run on" in note for note in rlstats.power(
        "permutation", design=_pilot(atari, 5), formula="score ~ agent | task", effect=0.5, seeds=[4], n_sim=10, rng=0,
        **QUIET).notes)
