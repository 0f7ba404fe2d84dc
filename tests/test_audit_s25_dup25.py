"""Audit s25 (dup25): runs copied within a cell (the AdaStop paper's Hopper batches 3 and 4 repeat batches 1 and 2
for DDPG, PPO and SAC) were counted as new runs by every back end, whose result spoke only of "ties ... mid-ranks".
Now the front door (``design.copied_runs_note``, one home) notes them for every back end taking runs, and only
where an exact repeat is improbable by chance at the scores' decimal resolution (``statistics.copied_runs``): no
note on Atari 100k's 1,154 exact repeats of coarse game scores, nor on scores at a cap."""

import math

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import COPIED_RUNS, design_of
from rlstats.statistics import COPY_CHANCE, _decimal_exponents, _power_of_ten, copied_runs


def decimal_resolution(values):
    # the scores' decimal step (s26: the package reads the exponents only)
    return _power_of_ten(_decimal_exponents(values))

HOPPER = ("30 runs repeat another run's score exactly within 3 agent x task cells (hopper: DDPG 10 of 30, PPO 10 of "
          "30, SAC 10 of 30): at the resolution of the scores (their decimal step, or how often runs of other cells "
          "tie) the chance of so many exact repeats is at most 2e-45 in each, so they look copied (a file or batch read twice), not new runs; each is analysed as a run, "
          "and equal scores tie; drop the repeated rows of those cells (one row per run), or keep them if they are "
          "distinct runs that scored alike")


def copied(res_or_design):
    return [note for note in res_or_design.notes if COPIED_RUNS in note]


@pytest.fixture
def mujoco(published):
    return pd.read_csv(published / "mujoco_batches.csv")


@pytest.fixture
def two(mujoco):
    return mujoco[mujoco["task"].isin(["hopper", "walker"])].reset_index(drop=True)


def test_copied_hopper_runs_are_noted(mujoco):
    res = rlstats.compare(mujoco, "score ~ agent | task")
    assert copied(res) == [HOPPER]


@pytest.mark.parametrize("call", [
    lambda d: rlstats.compare(d, "score ~ agent | task"),
    lambda d: rlstats.bootstrap(d, "score ~ agent | task", n_resamples=100, rng=0, progress=False),
    lambda d: rlstats.percentiles(d, "score ~ agent | task", n_resamples=100, rng=0, progress=False),
    lambda d: rlstats.equivalence(d, "score ~ agent | task", margin=100, n_resamples=100, rng=0, progress=False),
    lambda d: rlstats.bayes(d, "score ~ agent | task", rng=0, progress=False),
    lambda d: rlstats.mixed(d, "score ~ agent | task"),
    lambda d: rlstats.task_table(d, "score ~ agent | task"),
    lambda d: rlstats.compare(d[d["task"] == "hopper"], "score ~ agent", n_resamples=100, rng=0, progress=False),
], ids=["compare", "bootstrap", "percentiles", "equivalence", "bayes", "mixed", "task_table", "permutation"])
def test_every_back_end_taking_runs_says_it(two, call):
    notes = copied(call(two))
    assert len(notes) == 1 and notes[0].startswith("30 runs repeat another run's score exactly within 3 ")
    assert "DDPG 10 of 30, PPO 10 of 30, SAC 10 of 30" in notes[0]


def test_adastop_says_it_of_the_interims_fed_alone(two):
    """AdaStop names the interims a copy came in (its own note); runs of batches it never fed are not analysed, so
    the front door's note of every run of the cell would be false there."""
    hopper = two[two["task"] == "hopper"]
    with pytest.warns(rlstats.RlstatsWarning, match="repeat"):
        res = rlstats.adastop(hopper, "score ~ agent", batch="batch", n=5, K=6, n_resamples=200, rng=0)
    assert not copied(res)
    assert [n for n in res.notes if "repeat" in n] == [
        "runs that repeat an earlier interim's exactly (the same 5 scores in any order; a batch should hold new "
        "runs): DDPG, PPO, SAC at interims 3 (= 1) and 4 (= 2)"]
    early = rlstats.adastop(hopper, "score ~ agent", batch="batch", comparisons=[("DDPG", "PPO")], n_resamples=200,
                            rng=0)  # decided at interim 2: the copies (batches 3, 4) are never fed
    assert not [n for n in early.notes if "repeat" in n]


def test_the_note_is_true_of_the_rows_analysed(two):
    """Row order, units (the frame's and the formula's), subset= and na_action="drop" (metamorphic); the caller's
    frame is left as it was."""
    before = two.copy()
    notes = lambda d, f="score ~ agent | task", **kw: copied(rlstats.build(d, f, **kw))  # noqa: E731
    base = notes(two)
    assert len(base) == 1 and base[0].startswith("30 runs")
    assert notes(two.sample(frac=1.0, random_state=1)) == base
    assert notes(two.assign(score=two["score"] * 1000)) == base
    assert notes(two, "I(score / 1000) ~ agent | task") == notes(two, "I(7 - 2 * score) ~ agent | task") == base
    assert notes(two, "log(score - score.min() + 1) ~ agent | task") == base
    assert notes(two, normalize="minmax") == base
    sub = copied(design_of(two, "score ~ agent | task", subset="agent != 'DDPG'"))
    assert len(sub) == 1 and sub[0].startswith("20 runs repeat another run's score exactly within 2 agent x task "
                                               "cells (hopper: PPO 10 of 30, SAC 10 of 30)")
    sub = copied(design_of(two, "score ~ agent | task", subset="batch <= 3"))
    assert "15 runs" in sub[0] and "(hopper: DDPG 5 of 15, PPO 5 of 15, SAC 5 of 15)" in sub[0]
    assert not copied(design_of(two, "score ~ agent | task", subset="batch != 3 and batch != 4"))
    assert not copied(design_of(two, "score ~ agent | task", subset="task == 'walker'"))
    holes = two.astype({"score": float})
    holes.loc[holes.index[(holes["task"] == "hopper") & (holes["agent"] == "SAC") & (holes["batch"] == 3)],
              "score"] = np.nan  # SAC's batch 3 missing: its batch 4 still repeats batch 2
    dropped = notes(holes, na_action="drop")
    assert "25 runs" in dropped[0] and "SAC 5 of 25" in dropped[0]
    one = copied(rlstats.build(two[(two["task"] == "hopper")], "score ~ agent"))
    assert one[0].startswith("30 runs repeat another run's score exactly within 3 agents (DDPG 10 of 30, ")
    pd.testing.assert_frame_equal(two, before)
    assert two.attrs == before.attrs


def test_no_note_on_real_data_without_copies(published, sb3, sb3_evaluations):
    atari = pd.read_csv(published / "atari100k.csv")
    assert int(atari.groupby(["agent", "task"])["score"].apply(lambda s: len(s) - s.nunique()).sum()) == 1154
    assert not copied(rlstats.build(atari, "score ~ agent | task"))
    assert not copied(rlstats.build(atari, "score ~ agent | task", normalize="atari100k_reference"))
    # scores normalised before the call (no decimal step left to read), shifted, or of a few seeds: no note either
    normalised = rlstats.normalize(atari, pd.read_csv(published / "atari100k_reference.csv"))
    for frame in (normalised, normalised[normalised["seed"] < 5], atari.assign(score=atari["score"] + 1e4)):
        assert not copied(rlstats.build(frame, "score ~ agent | task"))
    cheetah = pd.read_csv(published / "halfcheetah_sac_td3.csv")
    assert not copied(rlstats.build(cheetah, "score ~ agent"))
    for logs in (sb3, sb3_evaluations):  # scores at CartPole's cap (500) and Acrobot's floor (-500) tie: no copies
        last = logs.sort_values("step").groupby(["agent", "task", "seed"]).tail(1)
        assert (last["score"] == -500).sum() >= 2
        assert not copied(rlstats.build(last, "score ~ agent | task"))
        each_step = logs.assign(task=logs["task"] + " at " + logs["step"].astype(str)).drop(columns="step")
        assert (each_step["score"] == 500).sum() >= 2
        assert not copied(rlstats.build(each_step, "score ~ agent | task"))
        assert not copied(rlstats.build(rlstats.summarize_runs(logs, "score ~ agent | task/seed", step="step"),
                                        "score ~ agent | task"))


def test_decimal_resolution():
    assert decimal_resolution([284.8, 284.79998779296875, 500.0, 0.0, -0.05, 0.0500000007, 1234.5678]).tolist() == \
        [0.1, 0.1, 100.0, math.inf, 0.01, 0.01, pytest.approx(1e-3)]  # read to 7 digits there
    x = np.array([3040.01220703125, 17.998884201049805, 1.5])
    assert np.allclose(decimal_resolution(x * 1000) / decimal_resolution(x), 1000)


def test_copied_runs_counts_and_chance():
    """The counts and the chance bound E**m / m! with E = C(n, 2) q / (2 sqrt(pi) sigma), by hand."""
    x = np.round(np.random.default_rng(2).normal(50, 5, 8), 4)
    y = np.r_[x, x[:3]]  # three runs copied
    counts, chance = copied_runs(y, np.zeros(y.size, dtype=int), 1)
    q = float(np.median(decimal_resolution(y)))
    sigma = min(y.std(ddof=1), np.subtract(*np.percentile(y, [75, 25])) / 1.349)
    e = 11 * 10 / 2 * q / (2 * math.sqrt(math.pi) * sigma)
    assert q == pytest.approx(1e-4) and e < COPY_CHANCE
    assert counts.tolist() == [3] and chance[0] == pytest.approx(e ** 3 / 6)
    # the same cell among 5 cells of two runs or more: each gets a fifth of the chance, still fired; the order of runs
    cells = np.r_[np.zeros(y.size, dtype=int), np.repeat([1, 2, 3, 4], 2)]
    both = np.r_[y, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    order = np.random.default_rng(0).permutation(both.size)
    assert copied_runs(both[order], cells[order], 5)[0].tolist() == [3, 0, 0, 0, 0]
    # one repeat of 1-decimal scores among 15 runs (PlayVirtual's UpNDown in Atari 100k: 6095.2 twice, E = 7.1e-4):
    # one coincidence, not a block of runs
    upndown = np.array([2854.7, 3119.2, 3949.2, 4103.4, 5466.8, 5895., 6095.2, 6095.2, 6196.2, 6750., 9222.1,
                        11568.3, 14100.8, 27589.8, 40371.8])
    assert copied_runs(upndown, np.zeros(15, dtype=int), 1)[0].tolist() == [0]
    # two such repeats: E**2 / 2 = 2.5e-7 alone, counted; among 10 cells still (1e-4 each)
    two = np.r_[upndown, 9222.1]
    alone = copied_runs(two, np.zeros(16, dtype=int), 1)
    e = 16 * 15 / 2 * 0.1 / (2 * math.sqrt(math.pi) * min(two.std(ddof=1),
                                                            np.subtract(*np.percentile(two, [75, 25])) / 1.349))
    assert alone[0].tolist() == [2] and alone[1][0] == pytest.approx(e ** 2 / 2)
    # ... unless the runs of other cells of the task tie as often: the chance is then measured on them (1 tied pair
    # of 16 x 8 across cells: E = 120 / 128), as for scores normalised after they were recorded
    others = np.r_[np.round(np.linspace(2000.3, 9000.7, 7), 1), 9222.1]
    cells = np.r_[np.zeros(16, dtype=int), np.ones(8, dtype=int)]
    assert copied_runs(np.r_[two, others], cells, 2, [0, 0])[0].tolist() == [0, 0]
    assert copied_runs(np.r_[two, others], cells, 2, [0, 1])[0].tolist() == [2, 0]
    # a cap many runs reach (CartPole's 500) amid fine scores, and every run at the cap, and integer scores
    capped = np.r_[[500.0] * 4, 312.25, 451.5, 287.75, 499.5, 402.25, 377.5]
    assert copied_runs(capped, np.zeros(capped.size, dtype=int), 1)[0].tolist() == [0]
    assert copied_runs(np.full(6, 500.0), np.zeros(6, dtype=int), 1)[0].tolist() == [0]
    games = np.random.default_rng(1).integers(0, 300, 100).astype(float)
    assert copied_runs(games, np.zeros(100, dtype=int), 1)[0].tolist() == [0]


def test_the_chance_of_a_repeat_by_simulation():
    """E, the tied pairs ``copied_runs`` expects by chance in a cell, against simulation (audit s27 tests27: the test
    checked numpy's rounding against the formula before, and never called rlstats).

    The package's E is read back from its chance bound E**m / m! on a cell of n = 200 normal scores recorded to 7
    decimals (198 normal quantiles and m = 2 copies of two of them: E = 5.7e-4, below COPY_CHANCE, so the cell counts
    and its bound is reported). The simulation: 1,000,000 standard normal draws on the grid of step 1e-7, whose tied
    pairs over the C(N, 2) pairs give the chance that two runs tie (about 14,000 tied pairs: a relative SE of 0.85%).
    The package's rate per pair, times the cell's sigma as its docstring defines it (the smaller of sd and
    IQR / 1.349: 0.982 here, the simulation's being 1), must match the simulated rate within 3 SE."""
    from scipy import stats

    rng = np.random.default_rng(0)
    draws = 1_000_000
    grid = np.rint(rng.normal(size=draws) * 1e7)  # a run's score on the grid of step q = 1e-7 (sigma = 1)
    _, held = np.unique(grid, return_counts=True)
    tied = float((held * (held - 1) // 2).sum())
    simulated_rate = tied / math.comb(draws, 2)
    # the closed form the simulation checks too: q / (2 sqrt(pi) sigma) per pair
    assert simulated_rate == pytest.approx(1e-7 / (2 * math.sqrt(math.pi)), rel=3 / math.sqrt(tied))
    x = np.round(stats.norm.ppf((np.arange(198) + 0.5) / 198), 7)
    y = np.r_[x, x[50], x[120]]
    copies, chance = copied_runs(y, np.zeros(y.size, dtype=np.intp), 1)
    assert copies.tolist() == [2] and 0 < chance[0] < COPY_CHANCE
    expected = math.sqrt(2 * chance[0])  # E from the bound E**2 / 2!
    sigma = min(np.std(y, ddof=1), np.subtract(*np.percentile(y, [75, 25])) / 1.349)
    assert round(float(sigma), 3) == 0.982
    assert expected / math.comb(y.size, 2) * sigma == pytest.approx(simulated_rate, rel=3 / math.sqrt(tied))
    # units: the scores in hundredths (q = 1e-5, sigma 100 times) give the same E
    assert copied_runs(y * 100, np.zeros(y.size, dtype=np.intp), 1)[1][0] == pytest.approx(chance[0], rel=1e-9)
