"""Session 20 review (review20) of the session's merged change, read hunk by hunk as a second reader: each defect
reproduced first (strict xfail), then fixed."""

import timeit
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError


def _five_tasks_twenty_runs(offset=5.0):
    """2 agents x 5 tasks x 20 normal runs around ``offset`` (every score above gamma = 1 at offset 5)."""
    rng = np.random.default_rng(0)
    return pd.DataFrame([(a, f"t{t}", s, offset + rng.standard_normal()) for a in "AB" for t in range(5)
                         for s in range(20)], columns=["agent", "task", "seed", "score"])


def test_coverage_note_only_of_intervals_given():
    """bootstrap() on scores all above gamma = 1 (Atari 100k's DER and SPR, 20 runs of 5 games, raw scores) withholds
    the optimality gap's interval for every agent, and said so, yet its next note read "studentized intervals of the
    optimality gap fell short in simulations with 20 runs per task ... covered 0.928 of 1,920": a warning about
    intervals the result does not give (the mean's note, of intervals given, stays). Since the default took the Welch
    bound (calib20b) no note falls short at 20 runs; the former interval, `studentized_no_welch`, keeps both notes'
    rows, so the rule is read through it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bootstrap(_five_tasks_twenty_runs(), "score ~ agent | task", rng=0, n_resamples=200,
                                progress=False, interval="studentized_no_welch")
    gap = res.tidy().query("metric == 'optimality_gap'")
    assert gap["conf_low"].isna().all()
    assert any(n.startswith("studentized intervals withheld for the optimality gap of A and B") for n in res.notes)
    assert any(n.startswith("20 runs per task are few for studentized_no_welch intervals of the mean") for n in res.notes)
    assert not any("intervals of the optimality gap" in n and "are few" in n for n in res.notes), res.notes


def _runs_frame(copies):
    """read_logs-like rows of 8 runs of 50 steps, timed; ``copies``: {seed: the seed whose rows it repeats}."""
    rng = np.random.default_rng(0)
    seeds, steps = 8, 50
    frame = pd.DataFrame({"agent": "PPO", "task": "CartPole-v1", "seed": np.repeat(np.arange(seeds), steps),
                          "step": np.tile(np.arange(steps), seeds), "r": rng.normal(size=seeds * steps),
                          "wall_time": rng.random(seeds * steps), "source": "x"})
    for seed, of in copies.items():
        frame.loc[frame["seed"] == seed, ["r", "wall_time"]] = frame.loc[frame["seed"] == of, ["r", "wall_time"]].to_numpy()
    return frame


def test_copied_runs_note_is_plain_english():
    """read_logs' new note on copied runs wrote a group of three as "seed=2 and ... seed=3 and ... seed=7", and said
    "copies of one run" of two groups of copies (seeds 0 and 1; 2 and 3), which are copies of two runs."""
    from rlstats.logs._read import _copied_runs, _copies_text

    keys = ("agent", "task", "seed")
    three = _copies_text(_copied_runs(_runs_frame({3: 2, 7: 2}), keys))
    assert three.startswith("3 runs log the same values at the same steps and times as another run"), three
    assert ("agent=PPO task=CartPole-v1 seed=2, agent=PPO task=CartPole-v1 seed=3 and agent=PPO task=CartPole-v1 "
            "seed=7; leave the copies out") in three
    two = _copies_text(_copied_runs(_runs_frame({1: 0, 3: 2}), keys))
    assert "copies of one run" not in two and two.startswith("4 runs log"), two
    assert "seed=0 and agent=PPO task=CartPole-v1 seed=1; agent=PPO task=CartPole-v1 seed=2 and" in two


def test_adastop_refusal_of_an_agents_copied_runs_says_agent_or_agents():
    """AdaStop.update's new refusal read "agent(s) a: their runs in this batch repeat batch 1 exactly": the package
    writes counts without "(s)" (format.count); one agent is "agent a: its runs", two "agents a, b: their runs"."""
    seq = rlstats.AdaStop(["a", "b", "c"], n=3, K=4, n_resamples=200, rng=0)
    seq.update({"a": [1.0, 2.0, 3.5], "b": [1.5, 2.5, 3.0], "c": [2.0, 0.5, 1.0]})
    with pytest.raises(DesignError) as one:
        seq.update({"a": [3.5, 1.0, 2.0], "b": [1.6, 2.5, 3.0], "c": [7.0, 0.1, 1.0]})
    assert "agent a: its runs in this batch repeat batch 1 exactly (the same 3 scores in any order)" in str(one.value)
    with pytest.raises(DesignError) as two:
        seq.update({"a": [3.5, 1.0, 2.0], "b": [1.5, 2.5, 3.0], "c": [7.0, 0.1, 1.0]})
    assert "agents a, b: their runs in this batch repeat batch 1 exactly" in str(two.value)
    assert "(s)" not in str(one.value) + str(two.value)


def test_task_table_with_many_runs_per_cell():
    """task_table() raised OverflowError ("int too large to convert to float") from 1 / math.comb(n + m, n), the
    exact p-value of two flat samples, which welch() computes for every pair: at 2 agents x 600 runs of one task
    (C(1200, 600) ~ 4e359). The p-value is Welch's, as scipy gives it; flat samples at two values get 1 / C(n + m, n),
    below the smallest double here (0)."""
    from scipy import stats

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=600), rng.normal(size=600) + 0.2
    df = pd.DataFrame({"agent": ["A"] * 600 + ["B"] * 600, "task": "t", "score": np.r_[a, b]})
    table = rlstats.task_table(df, "score ~ agent | task").tidy().set_index("agent")
    expected = stats.ttest_ind(b, a, equal_var=False, alternative="greater").pvalue
    assert table.loc["A", "p_value"] == pytest.approx(expected, rel=1e-9)
    flat = df.assign(score=np.r_[np.zeros(600), np.ones(600)])
    table = rlstats.task_table(flat, "score ~ agent | task").tidy().set_index("agent")
    assert table.loc["A", "p_value"] == 0.0 and table.loc["B", "best"]



def _best_seconds(call, repeats=5):
    return min(timeit.repeat(call, number=1, repeat=repeats))


@pytest.mark.slow
def test_near_ties_costs_little_beyond_its_sort():
    """near_ties() found each block's tolerance with np.minimum.at, np.maximum.at and np.maximum.at over every score
    (statistics.block_tolerances): on NumPy 1.24 (the oldest supported) 2.2-2.6 times the block sort it already does,
    0.60 s for 10^6 scores in 10 tasks (0.36 s with the range read off the sorted blocks); about 1.4 times after."""
    from rlstats.statistics import block_value_order, near_ties

    rng = np.random.default_rng(0)
    y, block = rng.normal(size=200_000), rng.integers(0, 10, 200_000)
    ratio = _best_seconds(lambda: near_ties(y, block)) / _best_seconds(lambda: block_value_order(y, block))
    assert ratio < 1.9, ratio


def test_near_ties_tolerances_are_block_tolerances():
    """Whatever way near_ties() finds each block's tolerance, it is statistics.block_tolerances' (NaN and inf set no
    range): the same snapped scores and pairs as with those tolerances given, on 300 random blocks of scores rounded
    to 0-2 decimals at several scales and shifts."""
    from rlstats.statistics import block_tolerances, near_ties

    rng = np.random.default_rng(20)
    for _ in range(300):
        n, blocks = int(rng.integers(1, 40)), int(rng.integers(1, 6))
        y = np.round(rng.normal(size=n) * 10.0 ** rng.integers(-3, 5), int(rng.integers(0, 3))) + rng.choice(
            [0.0, 1e4, -7.0])
        y[rng.random(n) < 0.1] = np.nan
        y[rng.random(n) < 0.05] = np.inf
        block = rng.integers(0, blocks, n)
        got, want = near_ties(y, block), near_ties(y, block, block_tolerances(y, block))
        assert np.array_equal(got[0], want[0], equal_nan=True) and got[1] == want[1]
    assert near_ties([1.0, 1.0 + 1e-13, 2.0, 5.0, 5.0 + 1e-13], [0, 0, 0, 1, 1])[1] == 1  # a range of 1 joins 1e-13; alone (range 1e-13) it does not


def test_a_run_logged_twice_with_a_text_timestamp_is_not_called_two_runs():
    """curves()' new reading of repeated (run, step) rows: rows that differ in a text column are "rows of different
    runs" (marl-eval's 'environment'). A run whose last evaluation was logged again an hour later, with a text
    column 'logged_at' of when each row was written, was told "they differ in column 'logged_at' (...), so they are
    rows of different runs, not one run's logged twice; name the runs apart in the formula (e.g. a task column
    joining 'logged_at' and the task)": a column that differs on every row of the run tells rows apart, not runs."""
    rows = [("ppo", "CartPole", seed, 100 * step, float(step), f"2024-05-01 10:0{step}:{seed}0") for seed in (0, 1)
            for step in range(5)] + [("ppo", "CartPole", 0, 400, 4.0, "2024-05-01 11:00:00")]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score", "logged_at"])
    with pytest.raises(DesignError) as caught:
        rlstats.curves(df, "score ~ agent | task/seed", step="step")
    text = str(caught.value)
    assert "run '0' of agent 'ppo' on task 'CartPole' has 2 rows at step 400" in text
    assert "rows of different runs" not in text and "keep one row per run and step" in text
    # a column constant along each of two runs named alike still names them (marl-eval's environments)
    two = pd.concat([df.iloc[:10].assign(logged_at="x"), df.iloc[:10].assign(logged_at="y", score=lambda d: -d.score)])
    with pytest.raises(DesignError, match=r"they differ in column 'logged_at' \('x' and 'y'\), so they are rows of "
                                          "different runs"):
        rlstats.curves(two, "score ~ agent | task/seed", step="step")


def test_tie_notes_say_the_tolerance_is_a_sum():
    """The near-tie note read "within 1e-12 of each other (relative to the task's range, or 4 rounding units of its
    largest |score|)": the tolerance is the sum of the two (statistics.tie_tolerance), so a pair joined may be within
    neither alone: beside 0 (range 1), 1 and 1 - 1.0004e-12 join, above 1e-12 of the range and above 4 eps of 1
    (8.9e-16), below their sum (1.0009e-12)."""
    from rlstats.statistics import near_tie_note, near_ties

    eps = np.finfo(float).eps
    gap = 1e-12 + 2 * eps  # above 1e-12 x range 1 and above 4 eps x 1, below their sum
    assert gap > 1e-12 and gap > 4 * eps and gap < 1e-12 + 4 * eps
    assert near_ties([0.0, 1.0 - gap, 1.0], [0, 0, 0])[1] == 1
    note = near_tie_note(1)
    assert "relative to the task's range, plus 4 rounding units of its largest |score|" in note, note


def test_runs_past_k_batches_are_counted_with_thousands_separators():
    """adastop()'s note on the runs past K batches wrote "(A 4970, B 4970)" where every other count of the package
    reads "4,970" (5,000 runs of each agent, n = 5, K = 6: 5,000 - 30)."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"agent": np.repeat(["A", "B"], 5000), "seed": np.tile(np.arange(5000), 2),
                       "score": rng.normal(size=10_000)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.adastop(df, "score ~ agent", n=5, K=6, n_resamples=200, rng=0)
    assert "runs beyond the first K = 6 batches of n = 5 are not used (A 4,970, B 4,970)" in res.notes, res.notes
