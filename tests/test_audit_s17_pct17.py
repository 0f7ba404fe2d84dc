"""Audit s17 (pct17): rlstats.percentiles used as a user would, on real data and from the command line.

Each test reproduces a sentence a result printed that was not true of the rows it analysed, or an option it did not
honour; the data are small stand-ins of the real files' shapes (named in each test) so that the tests stay fast.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration
from rlstats.errors import DesignError
from rlstats.methods.percentiles import _api

FORMULA = "score ~ agent | task"


def _runs(runs, agents=2, tasks=1, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame([(f"a{a}", f"t{t}", r, rng.normal(a, 1.0))
                         for a in range(agents) for t in range(tasks) for r in range(runs)],
                        columns=["agent", "task", "seed", "score"])


def test_coverage_note_says_where_the_simulations_stop():
    """Atari 100k, 2 agents x 26 tasks with 100 runs per cell (interval="bootstrap" from the CLI) printed "100 runs in
    the smallest cell are few for the percentile bootstrap: in simulations ... with 20 runs per cell ...": nothing
    measured says that 100 runs are few; the table's largest runs count is 20."""
    rows = [row for row in calibration.rows(_api.CALIBRATION) if row["interval"] == "pbp_t"]
    largest = max(int(row["runs"]) for row in rows)
    runs = largest + 10
    res = rlstats.percentiles(_runs(runs), FORMULA, interval="pbp_t")
    quoted = [n for n in res.notes if "simultaneous intervals held every true value" in n]
    assert len(quoted) == 1, res.notes
    note = quoted[0]
    assert "are few" not in note, note
    assert note.startswith(f"the smallest cell has {runs} runs, more than any design simulated for Student-t payoff "
                           f"intervals (its coverage there was not measured); at the most runs simulated, "), note
    assert f"with {largest} runs per cell" in note, note
    # at a measured runs count the sentence is unchanged
    at = rlstats.percentiles(_runs(largest), FORMULA, interval="pbp_t")
    assert any(n.startswith(f"{largest} runs in the smallest cell are few for Student-t payoff intervals")
               for n in at.notes), at.notes


def _sweep():
    """The ADA-research sweep's shape: tuned procedures have an optimisation seed and evaluation seeds; the
    baseline (no tuning run) has evaluation seeds only, its optimisation_seed missing."""
    rng = np.random.default_rng(1)
    rows = []
    for task in ("ant", "lunar"):
        for agent, shift in (("dehb", 1.0), ("rs", 0.5)):
            rows += [(agent, task, o, e, rng.normal(shift)) for o in range(3) for e in range(2)]
        rows += [("base", task, np.nan, e, rng.normal()) for e in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "opt", "ev", "score"])


def test_nested_seeds_honour_na_action_drop():
    """The ADA sweep with '| task/optimisation_seed/evaluation_seed' and na_action="drop" raised "column
    'optimisation_seed' has 30 missing value(s) ...; ... or pass na_action="drop"", the option already passed."""
    data = _sweep()
    with pytest.raises(DesignError, match="missing value"):
        rlstats.percentiles(data, "score ~ agent | task/opt/ev")
    before = data.copy()
    res = rlstats.percentiles(data, "score ~ agent | task/opt/ev", na_action="drop")
    pd.testing.assert_frame_equal(data, before)
    assert res.agents == ("dehb", "rs")
    # the same numbers as the tuned rows averaged by hand, and a note that says what was dropped
    tuned = data[data["opt"].notna()].groupby(["agent", "task", "opt"], as_index=False)["score"].mean()
    by_hand = rlstats.percentiles(tuned, "score ~ agent | task/opt")
    np.testing.assert_array_equal(res.estimate, by_hand.estimate)
    dropped = [n for n in res.notes if "rows dropped" in n]
    assert len(dropped) == 1 and dropped[0].startswith(
        "8 of 32 rows dropped (na_action=\"drop\") before the seeds were averaged: 8 with missing values in 'opt' (every row "
        "of agent 'base'); seeds ('ev') averaged within each opt"), res.notes


def test_near_tie_note_of_the_game_says_how_ties_count():
    """Atari 100k (DER's scores are float32 values, CURL's float64; round-off such as 14.77 and 14.770000000000001)
    printed "... were treated as ties in the ranks: floating-point noise, not a win"; the game has no ranks and with
    ties="le" a tie counts as a win for both agents."""
    rng = np.random.default_rng(0)
    rows = [(f"t{t}", a, value) for t, x in enumerate(rng.normal(size=4))
            for a, value in (("a0", 1.0), ("a1", 1.0 - 2e-16), ("a2", x))]
    data = pd.DataFrame(rows, columns=["task", "agent", "score"])
    for ties, counted in (("le", "a win for both"), ("mid", "half a win for each")):
        res = rlstats.percentiles(data, FORMULA, ties=ties, interval=None)
        note, = [n for n in res.notes if "within 1e-12" in n]
        assert note == ("some scores of t0, t1, t2 and 1 more task are within 1e-12 of each other (relative to the "
                        "task's range, plus 4 rounding units of its largest |score|) and were treated as ties in the "
                        f"payoffs: floating-point noise, {counted} (ties=\"{ties}\")"), note
        a0, a1 = res.agents.index("a0"), res.agents.index("a1")
        assert res.payoff[a0, :, a1].tolist() == res.payoff[a1, :, a0].tolist()


def test_cdf_band_below_the_smallest_score():
    """SB3 CartPole-v1 (3 runs per agent, bounds (0, 500)): plot(kind="cdf") drew A2C's band from 0 to its smallest
    score, 244.8, with zero width, as if the CDF were known to be 0 there; the DKW band there is [0, eps], eps =
    sqrt(log(2 / delta') / (2 n)) = 0.92."""
    import matplotlib.pyplot as plt

    data = pd.DataFrame({"agent": ["A2C"] * 3 + ["PPO"] * 3, "task": "CartPole-v1", "seed": [0, 1, 2] * 2,
                         "score": [406.4, 495.2, 244.8, 326.6, 321.0, 363.6]})
    res = rlstats.percentiles(data, FORMULA, bounds=(0, 500))
    eps = np.sqrt(np.log(2 / res.delta_cell) / (2 * 3))
    first = res.ecdf.groupby("agent").head(1).set_index("agent")
    assert first["score"].tolist() == [0.0, 0.0]
    assert first["cdf"].tolist() == [0.0, 0.0] and first["cdf_low"].tolist() == [0.0, 0.0]
    np.testing.assert_allclose(first["cdf_high"], min(eps, 1.0), rtol=1e-12)
    # the rows at the scores are unchanged: F(x) -/+ eps, clipped to [0, 1]
    a2c = res.ecdf[(res.ecdf["agent"] == "A2C") & (res.ecdf["score"] > 0)]
    assert a2c["score"].tolist() == [244.8, 406.4, 495.2]
    np.testing.assert_allclose(a2c["cdf_high"], np.minimum(np.array([1, 2, 3]) / 3 + eps, 1.0), rtol=1e-12)
    # drawn: the band over [0, 244.8) reaches eps
    ax = res.plot(kind="cdf")
    band = ax.collections[0].get_paths()[0].vertices
    left = band[(band[:, 0] >= 0) & (band[:, 0] < 244.8)]
    assert left[:, 1].max() == pytest.approx(min(eps, 1.0))
    plt.close(ax.figure)


def test_bootstrap_single_run_note_names_the_cells():
    """MuJoCo batches with SAC's halfcheetah runs cut to one: the note said "1 cell has a single run, which adds no
    spread to the bootstrap intervals" without saying which (PBP's DKW note names such cells, audit s14)."""
    data = _runs(4, agents=3, tasks=2)
    data = data[~((data["agent"] == "a2") & (data["task"] == "t1") & (data["seed"] > 0))]
    res = rlstats.percentiles(data, FORMULA, interval="bootstrap", n_resamples=300, rng=0)
    # audit s38 claims38: the other agents' runs are resampled there; the cell lacks only its own spread
    assert ("1 cell has a single run (t1/a2): the bootstrap intervals show the other agents' spread there, not its "
            "own" in res.notes), res.notes


def test_cdf_plot_names_the_response():
    """The ADA sweep's 'final_mean_return ~ procedure | task' (or a cost with higher_is_better=False): the CDF plot's
    score axis read "score", a column the data do not have; rlstats.bootstrap's plots name the response."""
    import matplotlib.pyplot as plt

    data = _runs(5).rename(columns={"score": "final_mean_return"})
    res = rlstats.percentiles(data, "final_mean_return ~ agent | task")
    ax = res.plot(kind="cdf")
    assert ax.get_xlabel() == "final_mean_return"
    plt.close(ax.figure)
    ax = res.plot(kind="cdf", quantile=True)
    assert ax.get_ylabel() == "final_mean_return"
    plt.close(ax.figure)
    fig = rlstats.percentiles(data.assign(task=data["seed"] % 2), "final_mean_return ~ agent | task").plot(kind="cdf")
    assert fig._supxlabel.get_text() == "final_mean_return"
    plt.close(fig)


def test_pbp_t_says_which_payoff_intervals_have_no_width():
    """SB3 A2C and PPO (3 runs each): every PPO run on CartPole-v1 lies between the same two A2C runs, so its payoff
    against A2C has sample SD 0 and a Student-t interval of zero width; PPO printed (0.3519, 0.4407), its lower bound
    the estimate, and no sentence said why. MuJoCo batches: 19 of the 60 payoffs (an agent's runs all above or all
    below another's)."""
    data = pd.DataFrame({"agent": ["A2C"] * 3 + ["PPO"] * 3, "task": "CartPole-v1", "seed": [0, 1, 2] * 2,
                         "score": [406.4, 495.2, 244.8, 326.6, 321.0, 363.6]})
    res = rlstats.percentiles(data, FORMULA, interval="pbp_t")
    width = res.payoffs.eval("conf_high - conf_low")[res.payoffs["agent"] != res.payoffs["reference"]]
    assert (width == 0).sum() == 1  # PPO against A2C: every run at the percentile 1/3
    assert ("1 of 2 payoff intervals has zero width (PPO on CartPole-v1 against A2C): every run of the agent lies at "
            "the same percentile of the reference's runs, which a Student-t interval reads as certainty; PBP's DKW "
            "bands (interval=\"pbp\") do not") in res.notes, res.notes
    assert not any("zero width" in n for n in rlstats.percentiles(data, FORMULA, interval="pbp").notes)


def test_aggregate_plot_says_when_intervals_are_withheld():
    """MuJoCo batches at a constant score (every run at a cap): print said "(interval withheld, see the notes)" for
    every agent, while plot() drew bare points under the title "Aggregate performance percentile, 95% simultaneous PBP
    intervals", read as intervals of no width."""
    import matplotlib.pyplot as plt

    capped = _runs(4, agents=3, tasks=2).assign(score=1.0)
    res = rlstats.percentiles(capped, FORMULA)
    assert np.isnan(res.conf_low).all()
    ax = res.plot()
    assert ax.get_title() == "Aggregate performance percentile (PBP intervals withheld, see the notes)"
    plt.close(ax.figure)
    fine = rlstats.percentiles(_runs(4, agents=3, tasks=2), FORMULA)
    ax = fine.plot()
    assert ax.get_title() == "Aggregate performance percentile, 95% simultaneous PBP intervals"
    plt.close(ax.figure)


def test_aggregate_plot_says_when_some_intervals_are_withheld():
    """The same title rule where some agents' intervals are withheld (a result with one interval set to NaN)."""
    import dataclasses

    import matplotlib.pyplot as plt

    res = rlstats.percentiles(_runs(4, agents=3, tasks=2), FORMULA)
    low, high = res.conf_low.copy(), res.conf_high.copy()
    low[0] = high[0] = np.nan
    ax = dataclasses.replace(res, conf_low=low, conf_high=high).plot()
    assert ax.get_title() == ("Aggregate performance percentile, 95% simultaneous PBP intervals\n(withheld for 1 of 3 "
                              "agents, drawn as bare points; see the notes)")
    plt.close(ax.figure)


def test_identical_pairs_are_stated():
    """MuJoCo batches with identical=[("SAC", "PPO", "ant")]: PPO's aggregate moved from 0.175 to 0.235 and nothing
    printed said that two payoffs had been set to 0.5 rather than read from the runs."""
    data = _runs(6, agents=3, tasks=2)
    res = rlstats.percentiles(data, FORMULA, identical=[("a2", "a0", "t1")], interval=None)
    i, k, j = res.agents.index("a2"), res.agents.index("a0"), res.tasks.index("t1")
    assert res.payoff[i, j, k] == res.payoff[k, j, i] == 0.5
    assert ("identical=: the payoffs of a2 and a0 against each other on t1 were set to 0.5 (self_payoff), not read "
            "from their runs") in res.notes, res.notes
    plain = rlstats.percentiles(data, FORMULA, interval=None)
    assert not any("identical=" in n for n in plain.notes)



def test_withheld_intervals_say_why_when_runs_are_separated():
    """SB3 CartPole-v1, DQN (8.6 to 9.2) against PPO (321.0 to 363.6), 3 runs each: with interval="pbp_t" or
    "bootstrap" every payoff is 0 or 1 without spread and the aggregate intervals are one point, withheld with "the
    runs they rest on do not vary (every task's runs tie, and its observed bounds are one value)": the runs vary."""
    data = pd.DataFrame({"agent": ["DQN"] * 3 + ["PPO"] * 3, "task": "CartPole-v1", "seed": [0, 1, 2] * 2,
                         "score": [9.2, 8.8, 8.6, 326.6, 321.0, 363.6]})
    for interval in ("pbp_t", "bootstrap"):
        res = rlstats.percentiles(data, FORMULA, interval=interval, n_resamples=400, rng=0)
        assert np.isnan(res.conf_low).all()
        note, = [n for n in res.notes if n.startswith("simultaneous intervals withheld")]
        assert "tie" not in note, note
        assert note == ("simultaneous intervals withheld for DQN, PPO: they would be one point, as every payoff they "
                        "rest on has no spread (on every task each agent's runs lie all above, all below or at one "
                        "percentile of each other agent's), which "
                        + ("Student-t intervals read" if interval == "pbp_t" else "resampling reads")
                        + " as certainty; use interval='pbp', or add runs"), note
    # constant scores keep their own reason
    constant = rlstats.percentiles(data.assign(score=1.0), FORMULA, interval="pbp_t")
    assert any("every task's runs tie" in n for n in constant.notes), constant.notes


def test_report_counts_resolved_pairs_in_good_english():
    """Atari 100k, DrQ(eps) and DER on Boxing and Pong (PBP-t): the report said "1 of 1 pairs are resolved"."""
    data = _runs(30, agents=2, tasks=2).assign(score=lambda d: d["score"] + 1.5 * (d["agent"] == "a1"))
    text = rlstats.percentiles(data, FORMULA, interval="pbp_t").report(format="text")
    assert "1 of 1 pair is resolved (lower bound above the other's upper bound): a1 > a0." in text, text
