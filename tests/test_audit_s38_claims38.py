"""Audit s38 (claims38): printed claims checked against the rows analysed, in the less visited results.

Each test builds a small design by hand (a cell of one run, a pilot shifted by one SD, a run logged shorter than its
one sibling) and asserts the words the result prints, with the numbers read off the design or the result itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import rlstats

FORMULA = "score ~ agent | task"


def _one_run_frame(c_runs):
    """A and C on t1-t3, 4 runs each but C's c_runs[t]: scores 0/1 alternating, C 0.3 and each task 0.1 higher."""
    rows = [dict(agent=a, task=t, seed=s, score=float(s % 2) + 0.3 * "AC".index(a) + 0.1 * int(t[1]))
            for a in "AC" for t in ("t1", "t2", "t3") for s in range(c_runs.get(t, 4) if a == "C" else 4)]
    return pd.DataFrame(rows)


def test_wilson_profile_band_does_not_say_a_single_run_adds_no_spread():
    # Before: "C: 1 of 3 tasks have a single run, which adds no spread to the intervals (t1)" under the default
    # Wilson band, which resamples nothing: it counts the runs, so the one-run task lowers C's effective runs
    # T^2 / sum(1 / n_t) from 9 / 0.75 = 12 to 9 / 1.5 = 6 and widens C's band at tau 0.5 from 0.533 to 0.721.
    full = rlstats.performance_profile(_one_run_frame({}), FORMULA, tau=[0.5])
    single = rlstats.performance_profile(_one_run_frame({"t1": 1}), FORMULA, tau=[0.5])
    assert single.interval == "wilson"
    widths = [np.diff(res.intervals[1, 0, :])[0] for res in (full, single)]
    assert np.round(widths, 3).tolist() == [0.533, 0.721]
    assert not any("adds no spread" in note for note in single.notes), single.notes
    assert ("C: 1 of 3 tasks has a single run, which the Wilson band counts as one run, lowering its effective "
            "number of runs (T^2 / sum(1 / n_t)) (t1)") in single.notes, single.notes
    # the percentile band resamples runs, and a single run's indicator is the same in every resample
    boot = rlstats.performance_profile(_one_run_frame({"t1": 1}), FORMULA, tau=[0.5], interval="percentile",
                                       n_resamples=100, rng=0)
    assert "C: 1 of 3 tasks has a single run, which adds no spread to the intervals (t1)" in boot.notes


def test_probability_of_improvement_does_not_say_a_single_run_adds_no_spread():
    # Before: "C: 1 of 3 tasks have a single run, which adds no spread to the intervals (t1)". On t1 alone (C's one
    # run against A's 4) the score interval's Hanley-McNeil variance at 1/2 is 0.125 and the percentile interval is
    # not of zero width: A's runs are resampled against C's one. What is true is that the pair rests on one run there.
    from rlstats.methods.bootstrap._small_runs import hanley_mcneil_variance
    assert hanley_mcneil_variance(0.5, 4, 1) == 0.125
    for interval in ("score", "percentile"):
        res = rlstats.probability_of_improvement(_one_run_frame({"t1": 1}), FORMULA, interval=interval,
                                                 n_resamples=200, rng=0)
        assert not any("adds no spread" in note for note in res.notes), res.notes
        assert "C: 1 of 3 tasks has a single run, so its comparisons there rest on that one run (t1)" in res.notes


def test_bootstrap_keeps_its_single_run_note_with_the_verb_agreeing():
    # bootstrap() resamples each agent's runs within a task: C's one run on t1 is the same in every resample. Before:
    # "1 of 3 tasks have"; 2 of 3 keep "have".
    one = rlstats.bootstrap(_one_run_frame({"t1": 1}), FORMULA, n_resamples=100, rng=0)
    assert "C: 1 of 3 tasks has a single run, which adds no spread to the intervals (t1)" in one.notes
    two = rlstats.bootstrap(_one_run_frame({"t1": 1, "t2": 1}), FORMULA, n_resamples=100, rng=0)
    assert "C: 2 of 3 tasks have a single run, which adds no spread to the intervals (t1, t2)" in two.notes


def _pilot(effect):
    rows = [dict(agent=a, task=t, seed=s, score=float(s) + "AB".index(a)) for a in "AB" for t in ("t1", "t2")
            for s in range(3)]
    return rlstats.power("skillings_mack", design=pd.DataFrame(rows), formula=FORMULA, effect=effect, seeds=[3],
                         n_sim=10, rng=0, progress=False)


def test_power_says_a_shift_of_one_sd_in_the_singular():
    # Before: "B raised by 1 within-cell standard deviations of each task" (the note) and "B shifted by 1 pooled
    # within-cell standard deviations" (report()); the pilot's own gaps already said "by 1 ... standard deviation".
    one = _pilot(1.0)
    assert any(note.startswith("pilot: B raised by 1 within-cell standard deviation of each task, on top of")
               for note in one.notes), one.notes
    assert "B shifted by 1 pooled within-cell standard deviation of each task" in one.report(format="text")
    half = _pilot(0.5)
    assert any(note.startswith("pilot: B raised by 0.5 within-cell standard deviations of each task")
               for note in half.notes), half.notes
    assert "B shifted by 0.5 pooled within-cell standard deviations of each task" in half.report(format="text")


def _sb3_runs(root, lengths):
    """SB3 progress.csv files of ppo on cart, one a seed, logged at 100, 200, ... for ``lengths[seed]`` rows."""
    for seed, n in enumerate(lengths):
        folder = root / "ppo" / "cart" / f"seed_{seed}"
        folder.mkdir(parents=True)
        pd.DataFrame({"time/total_timesteps": np.arange(1, n + 1) * 100,
                      "rollout/ep_rew_mean": np.arange(n, dtype=float)}).to_csv(folder / "progress.csv", index=False)
    return rlstats.read_logs(root, "{agent}/{task}/seed_{seed}", progress=False).attrs["read_log"]


def test_read_logs_says_a_run_shorter_than_its_one_sibling_in_the_singular(tmp_path):
    # Before: "agent=ppo task=cart seed=0 ends at step 300 (its 1 siblings: median 500)": one sibling, no median.
    log = _sb3_runs(tmp_path / "two", (3, 5))
    assert [str(e) for e in log.ended_early] == ["agent=ppo task=cart seed=0 ends at step 300 (its 1 sibling: 500)"]
    log = _sb3_runs(tmp_path / "three", (3, 5, 5))
    assert [str(e) for e in log.ended_early] == ["agent=ppo task=cart seed=0 ends at step 300 (its 2 siblings: "
                                                 "median 500)"]


def test_adastop_says_it_can_reject_on_no_task_unambiguously():
    # Before: "AdaStop cannot reject on every task: ..." where it can reject on none (n = 2, K = 2 spend no level on
    # either task), which reads as "on some task it cannot". Where only some tasks spend nothing it names them.
    rows = [dict(agent=a, task=t, seed=s, score=float(s) + "AB".index(a)) for a in "AB" for t in ("t1", "t2")
            for s in range(4)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.adastop(pd.DataFrame(rows), FORMULA, n=2, K=2, rng=0)
    note = next(n for n in res.notes if n.startswith("AdaStop cannot reject"))
    assert note.startswith("AdaStop cannot reject on any task: with its runs per interim and interims no level can "
                           "be spent"), note
    assert "on every task" not in note


DISCONNECTED = {("A", "t1"): 4, ("B", "t1"): 4, ("A", "t2"): 4, ("B", "t2"): 4,
                ("C", "t3"): 4, ("D", "t3"): 4, ("C", "t4"): 4, ("D", "t4"): 4}


def _frame(cells, seed=0):
    r = np.random.default_rng(seed)
    return pd.DataFrame([dict(agent=a, task=t, seed=k, score=float(r.normal(ord(a) - 64, 1)))
                         for (a, t), n in cells.items() for k in range(n)])


def test_bayes_counts_the_pairs_compared_that_did_not_share_every_task():
    # Before: "2 pairs of agents did not share every task" beside the note that 4 pairs never ran on a common task:
    # 6 of the 6 pairs shared fewer than the 4 tasks; the 2 counted are the pairs compared (A-B and C-D, 2 tasks each).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(_frame(DISCONNECTED), FORMULA, n_samples=2000, rng=0)
    assert res.tidy().dropna(subset=["p_better"])[["agent_1", "agent_2", "n_tasks"]].values.tolist() == [
        ["A", "B", 2], ["C", "D", 2]]
    assert ("2 pairs of agents compared did not share every task: each pair is compared on the tasks where both ran "
            "(n_tasks in tidy())") in res.notes, res.notes
    # all pairs met: the count is of every pair, said as before
    chain = {**{(a, "t1"): 4 for a in "ABC"}, ("A", "t2"): 4, ("B", "t2"): 4}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(_frame(chain), FORMULA, n_samples=2000, rng=0)
    assert ("2 pairs of agents did not share every task: each pair is compared on the tasks where both ran "
            "(n_tasks in tidy())") in res.notes, res.notes


def test_percentiles_single_run_cell_is_said_as_the_bootstrap_reads_it():
    # Before: "1 cell has a single run (t1/a2), which adds no spread to the bootstrap intervals". An agent's percentile
    # on a task reads the other agents' runs, which are resampled there (the refusal of a2's interval with one run in
    # every task says so: "its interval would show only the other agents' spread"); what the cell lacks is its own.
    r = np.random.default_rng(0)
    rows = [dict(agent=a, task=t, seed=s, score=float(r.normal())) for a in ("a1", "a2", "a3") for t in ("t1", "t2")
            for s in range(1 if (a, t) == ("a2", "t1") else 4)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.percentiles(pd.DataFrame(rows), FORMULA, interval="bootstrap", n_resamples=100, rng=0)
    assert ("1 cell has a single run (t1/a2): the bootstrap intervals show the other agents' spread there, not its "
            "own") in res.notes, res.notes
    assert not any("adds no spread" in note for note in res.notes)
