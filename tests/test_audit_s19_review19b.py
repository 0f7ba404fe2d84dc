"""Audit s19 (review19b): second reading of the changes merged after the first review (docs19, left19b, left19c,
gap19). Each test is a minimal reproducer of one defect found; its docstring gives what was seen."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats

GAP_NOTE = "the optimality gap is the mean shortfall below gamma"


def _gap_notes(result):
    return [note for note in result.notes if note.startswith(GAP_NOTE)]


def _frame(cells):
    """{(agent, task): scores} as a tidy frame."""
    rows = [(agent, task, seed, float(s)) for (agent, task), scores in cells.items()
            for seed, s in enumerate(scores)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_gap_note_silent_on_a_target_most_runs_reach():
    """CartPole's solved threshold, gamma = 475, on raw returns where 1 of 20 of A's runs falls short (at 300): the
    gap (A 8.75, B 0) is the target's own shortfall, the one the caller asked for, yet the note called gamma = 475 "a
    target on a normalised scale (1: the reference score)", said the gap "says how far a few outlying runs fall, not
    how the agents compare", and advised setting gamma= to the target in the score's units, which it was."""
    high = np.linspace(480.0, 500.0, 20)
    data = _frame({("A", "CartPole"): np.r_[300.0, high[1:]], ("B", "CartPole"): high})
    res = rlstats.bootstrap(data, "score ~ agent", metrics=["optimality_gap"], gamma=475, n_resamples=50, rng=0,
                            interval="percentile", progress=False)
    assert res.estimates[:, 0] == pytest.approx([175 / 20, 0.0])  # independent: (475 - 300) / 20 runs
    assert _gap_notes(res) == [], _gap_notes(res)
    # every score on one side of a chosen gamma is still said, without calling it a normalised target
    res = rlstats.bootstrap(data, "score ~ agent", metrics=["optimality_gap"], gamma=200, n_resamples=50, rng=0,
                            interval="percentile", progress=False)
    (note,) = _gap_notes(res)
    assert "0 for every agent" in note and "a target on a normalised scale" not in note, note


def test_gap_note_mixed_tasks_says_zero_where_no_run_falls_short():
    """Task Up: every score above gamma = 1; task Down: 1 of each agent's 20 scores above it. The note said the gap
    "rests on a few outlying runs" on Up, where no run falls short (the gap there is 0 for every agent)."""
    up = np.linspace(100.0, 200.0, 20)
    down = np.r_[-np.linspace(10.0, 50.0, 19), 5.0]
    data = _frame({("A", "Up"): up, ("B", "Up"): up * 0.9, ("A", "Down"): down, ("B", "Down"): down * 0.9})
    res = rlstats.bootstrap(data, "score ~ agent | task", metrics=["optimality_gap"], n_resamples=50, rng=0,
                            interval="percentile", progress=False)
    (note,) = _gap_notes(res)
    assert "outlying runs on the first" not in note, note
    assert "every score of Up is at or above it" in note and "0 on the first" in note, note


def test_drop_note_counts_each_dropped_row_once():
    """A row whose score is infinite and whose agent is missing was counted both as "not finite" and as "missing in
    'agent'": "3 of 40 rows dropped: 1 where 'score' is not finite; 1 with a missing value in 'score'; 2 with missing
    values in 'agent'", reasons summing to 4."""
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"agent": np.repeat(["A", "B"], 20), "task": np.tile(np.repeat(["T1", "T2"], 10), 2),
                         "score": rng.normal(size=40)})
    data.loc[0, ["score", "agent"]] = [np.inf, None]
    data.loc[1, ["score", "agent"]] = [np.nan, None]
    data.loc[2, "agent"] = None
    res = rlstats.bootstrap(data, "score ~ agent | task", na_action="drop", n_resamples=50, rng=0, progress=False)
    (note,) = [n for n in res.notes if "rows dropped" in n]
    counts = [int(part.split()[0]) for part in note.split(": ", 1)[1].split("; ")]
    assert note.startswith("3 of 40 rows dropped") and sum(counts) == 3, note
    assert "1 where 'score' is not finite" in note and "1 with a missing value in 'agent'" in note, note


def test_one_task_wording_without_a_task_column():
    """``score ~ agent`` (HalfCheetah's SAC and TD3, no task column): the estimand read "P(agent_1 > agent_2) +
    P(agent_1 = agent_2) / 2 on the one task, (all runs)", the placeholder of no task said as a task's name."""
    rng = np.random.default_rng(1)
    data = pd.DataFrame({"agent": np.repeat(["SAC", "TD3"], 10), "score": rng.normal(size=20)})
    poi = rlstats.probability_of_improvement(data, "score ~ agent", rng=0)
    profile = rlstats.performance_profile(data, "score ~ agent", n_resamples=50, rng=0, progress=False)
    for text in (str(poi), str(profile), poi.summary().to_markdown()):
        assert "(all runs)" not in text and "on the one task" not in text, text
    assert "over all runs, no task named" in str(poi), str(poi)


def test_task_table_key_names_the_test_and_adjustment_used():
    """``task_table(test="mannwhitney", adjustment="bonferroni")``: summary()'s key under the comparisons read
    "p_value: the one-sided Welch p-value ...; p_adjusted: the smallest Holm-adjusted p-value", neither of which
    was used; with adjustment="none" it called unadjusted p-values Holm-adjusted."""
    rng = np.random.default_rng(2)
    data = pd.DataFrame({"agent": np.repeat(["A", "B", "C"], 16), "task": np.tile(np.repeat(["T1", "T2"], 8), 3),
                         "score": rng.normal(size=48) + np.repeat([0.0, 1.0, 2.0], 16)})
    res = rlstats.task_table(data, "score ~ agent | task", test="mannwhitney", adjustment="bonferroni")
    text, latex = str(res.summary()), res.summary().to_latex()
    for shown in (text, latex):  # (welch_t and welch_df are columns of their own, of every test)
        assert "Welch p-value" not in shown and "Holm" not in shown, shown
    assert "the one-sided p-value of the Mann-Whitney U test" in latex, latex
    assert "one-sided p-value of the Mann-Whitney U test" in text and "Bonferroni-adjusted" in text, text
    plain = str(rlstats.task_table(data, "score ~ agent | task", adjustment="none").summary())
    assert "Holm" not in plain and "the smallest p-value (unadjusted" in plain, plain


def test_nested_seed_note_plural_of_batch():
    """AdaStop's MuJoCo runs (``score ~ agent | task/batch/seed``): the note read "the batch is the unit, 1-6 batchs
    of 5 seeds per agent and task"."""
    rng = np.random.default_rng(3)
    rows = [(a, "ant", b, s, rng.normal()) for a in ("PPO", "SAC") for b in range(2 + (a == "SAC"))
            for s in range(3)]
    data = pd.DataFrame(rows, columns=["agent", "task", "batch", "seed", "score"])
    res = rlstats.bootstrap(data, "score ~ agent | task/batch/seed", n_resamples=50, rng=0, interval="percentile",
                            progress=False)
    (note,) = [n for n in res.notes if "averaged within each batch" in n]
    assert "2-3 batches of 3 seeds per agent and task" in note, note
