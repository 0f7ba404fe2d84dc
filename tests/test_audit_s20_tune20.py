"""Session 20 user audit of rlstats.tuning() on the real sweeps of Dierkes et al. (``hpo_landscapes``,
``hpo_optimisation``) and of rlstats.power() / sample_size() with real pilots (Atari 100k, the MuJoCo batches).

Checked and found right: the expected maximum of k of 60 LunarLander configurations against the order-statistic sums
written apart (with and without replacement, to 1e-10), the best set's probabilities and the optimism against a
bootstrap of the seeds written apart (within Monte Carlo error), every view unchanged by row order and by the score in
thousandths, higher_is_better=False on negated scores; power() on the Atari 100k pilot (DER and DrQ, 26 games, the
pooled resample with a shift of 0.3 within-cell SDs) against a direct simulation that draws the runs and calls
skillings_mack() itself. Defects found: each test's docstring says what was wrong.
"""

import pytest

import rlstats
from conftest import one_sweep
from rlstats.datasets._hpo import LANDSCAPE_FILES
from rlstats.tables import read_csv


def _two_seeds_sweep(task="LunarLander"):
    return one_sweep([[1.0, 2.0], [2.0, 4.0], [0.5, 1.5]], task=task)


def test_sensitivity_note_names_what_is_missing():
    """A LunarLander sweep analysed with config=["hyperparameter", "reward_weight"] printed "sensitivity() needs
    config= columns and at least two tasks; not computed": the config= columns were given; only a second task was
    missing. The note names what the data lack (one task, which) and nothing they have."""
    res = rlstats.tuning(_two_seeds_sweep(), "score ~ agent | task/seed", config="lr", rng=0, n_resamples=100)
    note = next(n for n in res.notes if n.startswith("sensitivity()"))
    assert "config=" not in note
    assert "at least two tasks" in note and "'LunarLander'" in note
    # without config= columns (each agent one configuration) on two tasks: nothing to tune, an error naming config=
    # (new-user trial s38; it ran, its sensitivity note naming config=)
    one = one_sweep([[1.0, 2.0, 4.0, 0.5]], task="LunarLander")
    two = rlstats.concat([one, one.assign(task="Hopper")])
    with pytest.raises(rlstats.errors.OptionError, match="without config= each agent is one configuration"):
        rlstats.tuning(two, "score ~ agent | task/seed", rng=0, n_resamples=100, views=["sensitivity", "complete"])


def test_landscape_description_says_what_the_files_hold(mirror):
    """rlstats.datasets.available() described hpo_landscapes as "10,000 sampled configurations each (config is the
    row of the file; values repeat, a sample of the grid)". Each published file holds every combination of its 100
    hyperparameter values and 100 reward weights exactly once: the full 100 x 100 grid, no configuration repeated."""
    key = LANDSCAPE_FILES["gamma_velocity-weight"]
    raw = read_csv(mirror / key)
    pairs = raw.iloc[:, :2]
    assert len(raw) == 10_000 and not pairs.duplicated().any()
    assert pairs.nunique().tolist() == [100, 100]
    text = rlstats.datasets.available().set_index("name").loc["hpo_landscapes", "description"]
    assert "values repeat" not in text and "sample of the grid" not in text
    assert "100 x 100" in text


def test_pilot_plan_says_which_pilot_runs_it_drew_from(published):
    """power() on the MuJoCo batches with agents=["PPO", "SAC"] and tasks=["hopper", "walker"] printed "data:  score
    and agent and task (resampled with replacement, all agents from the pooled runs)": nothing said that 2 of the
    pilot's 4 agents and 2 of its 5 tasks were drawn from, nor from how many runs, while a simulated plan prints
    "simulated: 2 agents x 8 tasks (...)". The data line now says it: 2 agents x 2 tasks, 80 runs (hopper 30 + 30,
    walker 10 + 10)."""
    pilot = read_csv(published / "mujoco_batches.csv")
    res = rlstats.power("permutation", design=pilot, formula="score ~ agent | task", agents=["PPO", "SAC"],
                        tasks=["hopper", "walker"], seeds=[5], effect=0.5, resample="pooled", n_sim=10, rng=0,
                        progress=False)
    line = str(res).splitlines()[3]
    assert line.startswith("data:  score and agent and task: pilot of 2 agents x 2 tasks, 80 runs (resampled"), line
    one = rlstats.power("permutation", design=pilot[pilot.task == "hopper"], formula="score ~ agent",
                        agents=["PPO", "SAC"], seeds=[5], n_sim=10, rng=0, progress=False)
    assert ": pilot of 2 agents, 60 runs (resampled" in str(one).splitlines()[3]


def test_permutation_power_says_where_it_cannot_reject(published):
    """power("permutation") on the MuJoCo pilot's PPO, SAC and TRPO at 2 seeds printed power 0 (0 of 100 tests, an
    effect of 3 within-cell SDs) with level_spent 0.05 and no note, while permutation() on such data says "the
    permutation test cannot reject at 2 runs per agent: its smallest attainable p-value is 0.0667, above alpha =
    0.05" (3 agents x 2 runs, joint relabelling: 2 |F| (2!)^2 2! / 6! = 1/15). A plan that says nothing of why reads
    as a measured power of 0. The rate's level is now 0 there and the plan says it cannot reject, as for AdaStop. (The joint relabelling: holm, the default since audit s29b, cannot
    reject at 4 seeds either, its pairs' 35 classes at alpha / 3.)"""
    pilot = read_csv(published / "mujoco_batches.csv")
    pilot = pilot[pilot.agent.isin(["PPO", "SAC", "TRPO"]) & (pilot.task == "hopper")]
    res = rlstats.power("permutation", design=pilot, formula="score ~ agent", seeds=[2, 4], effect=3.0, n_sim=10,
                        rng=0, progress=False, n_resamples=200, permutations="joint")
    table = res.tidy().set_index("seeds")
    assert table.loc[2, "power"] == 0 and table.loc[2, "level_spent"] == 0
    assert table.loc[4, "level_spent"] == pytest.approx(0.05) and table.loc[4, "power"] > 0
    assert any(n.startswith("the permutation test can spend no level at 2 seeds per cell") for n in res.notes)


def test_holdout_error_shows_the_values_as_written():
    """holdout= naming the seed column of a LunarLander sweep (0..9, not True/False) raised "holdout= column 'h' must
    be True/False (...), got values [np.int64(0), np.int64(1), np.int64(2), np.int64(3), np.int64(4)]": NumPy's
    reprs, not the column's values."""
    frame = _two_seeds_sweep().assign(h=lambda d: d["seed"] + 3)
    with pytest.raises(rlstats.errors.DesignError) as caught:
        rlstats.tuning(frame, "score ~ agent | task/seed", config="lr", holdout="h", rng=0, n_resamples=100)
    assert "got values [3, 4]" in str(caught.value) and "np." not in str(caught.value)
