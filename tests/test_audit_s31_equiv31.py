"""Audit s31 (equiv31): equivalence() and task_table() where agents do not all share every task.

1. equivalence's aggregate of a pair reads the tasks both agents of the pair ran (as its per-task and across-tasks
   tests do, and as R's emmeans would on the pair's data), whatever na_action=; it was withheld for every pair unless
   every agent ran every task, or (na_action="drop") read only the tasks every agent ran, for pairs that shared more.
2. task_table(aggregate="bootstrap", na_action="drop") where no task has every agent refused; it gives the per-task
   rows and withholds the aggregate row with a note.
3. equivalence's measured-size note read the design's task count and fewest runs (of any agent), not the pair's.
4. equivalence's tidy() says the tasks each test read (n_tasks), the aggregate's its pair's.
"""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats

_QUICK = dict(margin=1.0, n_resamples=200, rng=3)


def _three(missing=(("C", "t1"),), runs=6, seed=31):
    """A, B, C on t1-t4, normal scores on one scale, equal runs; the (agent, task) cells in ``missing`` left out."""
    rng = np.random.default_rng(seed)
    rows = [dict(agent=a, task=t, seed=s, score=rng.normal({"A": 0.0, "B": 0.2, "C": 0.1}[a], 1.0))
            for a in "ABC" for t in ["t1", "t2", "t3", "t4"] for s in range(runs)]
    df = pd.DataFrame(rows)
    gone = np.zeros(len(df), dtype=bool)
    for agent, task in missing:
        gone |= (df["agent"] == agent).to_numpy() & (df["task"] == task).to_numpy()
    return df[~gone].reset_index(drop=True)


def _aggregate_rows(res):
    tidy = res.tidy()
    return tidy[tidy["scope"] == "aggregate"].set_index(["agent_1", "agent_2"])


_NUMBERS = ["estimate", "std_error", "statistic", "p_value", "p_lower", "p_upper", "conf_low", "conf_high"]


# ----------------------------------------------------------------------------- 1. each pair's aggregate, its own tasks

@pytest.mark.parametrize("na_action", ["raise", "drop"])
def test_pair_aggregate_reads_the_tasks_both_agents_ran(na_action):
    """C lacks t1: A vs B (all 4 tasks in common) gives the numbers of the complete data's A vs B bit for bit; A vs C
    and B vs C those of the pair's own rows on t2-t4 (a run on that pair alone), and their estimates are the IQM of
    each agent's pooled runs there (scipy's trim_mean), whatever na_action=."""
    df = _three()
    res = rlstats.equivalence(df, "score ~ agent | task", na_action=na_action, **_QUICK)
    got = _aggregate_rows(res)
    assert len(got) == 3 and got["p_value"].notna().all()
    whole = _aggregate_rows(rlstats.equivalence(_three(missing=()), "score ~ agent | task", **_QUICK))
    assert got.loc[("A", "B"), _NUMBERS].tolist() == whole.loc[("A", "B"), _NUMBERS].tolist()
    for a, b in [("A", "C"), ("B", "C")]:
        own = df[df["agent"].isin([a, b]) & (df["task"] != "t1")]
        alone = _aggregate_rows(rlstats.equivalence(own, "score ~ agent | task", **_QUICK))
        assert got.loc[(a, b), _NUMBERS].tolist() == alone.loc[(a, b), _NUMBERS].tolist()
        iqm = [stats.trim_mean(own.loc[own["agent"] == x, "score"].to_numpy(), 0.25) for x in (a, b)]
        assert got.loc[(a, b), "estimate"] == pytest.approx(iqm[0] - iqm[1], rel=1e-12)
    # said, with the pair's own count (the per-pair line and the note of pairs that did not share every task)
    text = str(res)
    assert "aggregate over the 3 tasks both ran:" in text
    assert any("the across-tasks and aggregate tests of 2 pairs that did not share every task read only the tasks "
               "both ran" in note for note in res.notes)
    assert not any("where every agent has runs" in note for note in res.notes)


def test_pair_aggregate_does_not_depend_on_row_order():
    df = _three()
    first = _aggregate_rows(rlstats.equivalence(df, "score ~ agent | task", **_QUICK))
    shuffled = df.sample(frac=1.0, random_state=7).reset_index(drop=True)
    again = _aggregate_rows(rlstats.equivalence(shuffled, "score ~ agent | task", **_QUICK))
    assert first[_NUMBERS].equals(again[_NUMBERS])


def test_pair_aggregate_withheld_only_for_the_pair_short_of_runs():
    """C has 2 runs on t2: only its pairs' aggregates are withheld (the bootstrap-t needs 3 runs a cell), named; A vs
    B's stands, as on the data without C."""
    df = _three(missing=())
    df = df[~((df["agent"] == "C") & (df["task"] == "t2") & (df["seed"] >= 2))]
    res = rlstats.equivalence(df, "score ~ agent | task", **_QUICK)
    got = _aggregate_rows(res)
    assert list(got.index) == [("A", "B")] and np.isfinite(got.loc[("A", "B"), "p_value"])  # no row for the others
    note, = [n for n in res.notes if n.startswith("the aggregate (IQM) difference is withheld")]
    assert "A vs C" in note and "B vs C" in note and "A vs B" not in note and "3 runs or more" in note
    alone = _aggregate_rows(rlstats.equivalence(df[df["agent"] != "C"], "score ~ agent | task", **_QUICK))
    assert got.loc[("A", "B"), _NUMBERS].tolist() == alone.loc[("A", "B"), _NUMBERS].tolist()


# ----------------------------------------------------------------------------- 2. task_table, drop with no task whole

def _chain():
    """A on t1, t2; B on t2, t3; C on t3, t1: linked, but no task has every agent."""
    rng = np.random.default_rng(5)
    ran = {"A": ["t1", "t2"], "B": ["t2", "t3"], "C": ["t3", "t1"]}
    return pd.DataFrame([dict(agent=a, task=t, seed=s, score=rng.normal()) for a, tasks in ran.items()
                         for t in tasks for s in range(5)])


def test_task_table_drop_with_no_complete_task_gives_the_rows():
    df = _chain()
    res = rlstats.task_table(df, "score ~ agent | task/seed", aggregate="bootstrap", na_action="drop",
                             n_resamples=200, rng=0)
    plain = rlstats.task_table(df, "score ~ agent | task/seed", n_resamples=200, rng=0)
    assert res.aggregate is None
    pd.testing.assert_frame_equal(res.tidy(), plain.tidy())
    assert any(note.startswith("the aggregate row is withheld: no task has runs of every agent, so "
                               "na_action=\"drop\" leaves it none") for note in res.notes), res.notes
    # each cell's mean is its runs' (by hand)
    means = df.groupby(["task", "agent"])["score"].mean()
    tidy = res.tidy().dropna(subset=["estimate"]).set_index(["task", "agent"])["estimate"]
    assert np.allclose(tidy.sort_index().to_numpy(), means.sort_index().to_numpy(), rtol=1e-14)


# ----------------------------------------------------------------------------- 3. the size note's counts, the pair's

def test_size_note_reads_the_pairs_runs():
    """A and B 20 runs on 5 tasks, C 3: A vs B's across-tasks paired t is at the calibration's 5-task, 20-run rows
    (capped scores 0.061, above alpha); its note read the design's fewest runs (3, C's), where the table shows none."""
    rng = np.random.default_rng(8)
    rows = [dict(agent=a, task=f"t{t}", seed=s, score=rng.normal(0, 1)) for a in "ABC" for t in range(5)
            for s in range(3 if a == "C" else 20)]
    res = rlstats.equivalence(pd.DataFrame(rows), "score ~ agent | task", margin=1.0, across="paired_t",
                              aggregate=None)
    note, = [n for n in res.notes if n.startswith("measured size at the margin of the across tasks test")]
    assert note.startswith("measured size at the margin of the across tasks test (paired t over tasks) of A vs B at "
                           "5 tasks and 20 runs per agent: 0.061")


def test_size_note_reads_the_pairs_tasks():
    """A and B share 5 tasks, C ran 31 and D 26 of them (not A's and B's): the across-tasks tests of A vs B, A vs C
    and B vs C read 5 tasks, where the table's 5-task rows miss alpha; C vs D's reads 26, where they do not. The note
    read the design's 31 (the 26-task rows: nothing said of any pair)."""
    rng = np.random.default_rng(9)
    ran = {"A": range(5), "B": range(5), "C": range(31), "D": range(5, 31)}
    rows = [dict(agent=a, task=f"t{t:02d}", seed=s, score=rng.normal(0, 1)) for a, tasks in ran.items()
            for t in tasks for s in range(20)]
    res = rlstats.equivalence(pd.DataFrame(rows), "score ~ agent | task", margin=1.0, across="paired_t",
                              aggregate=None)
    note, = [n for n in res.notes if n.startswith("measured size at the margin of the across tasks test")]
    assert note.startswith("measured size at the margin of the across tasks test (paired t over tasks) of A vs B, "
                           "A vs C and B vs C at 5 tasks and 20 runs per agent: 0.061"), note


# ----------------------------------------------------------------------------- 4. n_tasks: the tasks each test read

def test_tidy_says_the_tasks_each_test_read():
    res = rlstats.equivalence(_three(), "score ~ agent | task", **_QUICK)
    tidy = res.tidy()
    assert (tidy.loc[tidy["scope"] == "task", "n_tasks"] == 1).all()
    shared = {("A", "B"): 4, ("A", "C"): 3, ("B", "C"): 3}
    for scope in ("across tasks", "aggregate"):
        rows = tidy[tidy["scope"] == scope]
        assert {(a, b): n for a, b, n in zip(rows["agent_1"], rows["agent_2"], rows["n_tasks"])} == shared
    assert res.glance()["n_tasks"].iloc[0] == 4  # the data's tasks, which the per-task tests read
    # A vs C across tasks, by hand on the pair's rows of t2-t4: the mean of the task differences of means, its
    # standard error sqrt(sum_t (s_At^2 / n + s_Ct^2 / n)) / 3 on Welch-Satterthwaite df, TOST by scipy's t
    df = _three()
    cells = df[df["task"] != "t1"].groupby(["task", "agent"])["score"].agg(["mean", "var", "size"]).unstack("agent")
    diff = (cells["mean"]["A"] - cells["mean"]["C"]).mean()
    parts = cells["var"][["A", "C"]] / cells["size"][["A", "C"]]
    se = np.sqrt(parts.to_numpy().sum()) / 3
    dof = parts.to_numpy().sum() ** 2 / (parts.to_numpy() ** 2 / (cells["size"][["A", "C"]].to_numpy() - 1)).sum()
    row = tidy[(tidy["scope"] == "across tasks") & (tidy["agent_1"] == "A") & (tidy["agent_2"] == "C")].iloc[0]
    assert row["estimate"] == pytest.approx(diff, rel=1e-12) and row["std_error"] == pytest.approx(se, rel=1e-12)
    assert row["df"] == pytest.approx(dof, rel=1e-12)
    p = max(stats.t.sf((diff + 1.0) / se, dof), stats.t.cdf((diff - 1.0) / se, dof))
    assert row["p_value"] == pytest.approx(p, rel=1e-10)


def test_unequal_runs_note_counts_the_pairs_tasks():
    """Checked, not a defect: the note of runs unequal in number counts the pair's shared tasks (A and B share 2 of the
    data's 4; B has 20 runs on t1 to A's 5), so the across-tasks test is quoted (1 of 2 tasks reaches the share 0.5;
    1 of the data's 4 would not)."""
    rng = np.random.default_rng(2)
    ran = {"A": {"t1": 5, "t2": 5}, "B": {"t1": 20, "t2": 5}, "C": {"t1": 5, "t2": 5, "t3": 5, "t4": 5},
           "D": {"t3": 5, "t4": 5}}
    rows = [dict(agent=a, task=t, seed=s, score=rng.normal(0, 0.2)) for a, tasks in ran.items()
            for t, n in tasks.items() for s in range(n)]
    res = rlstats.equivalence(pd.DataFrame(rows), "score ~ agent | task", margin=1.0, aggregate=None)
    note, = [n for n in res.notes if n.startswith("runs differing in number")]
    assert note.startswith("runs differing in number: A vs B (5 vs 20 runs on 1 of 2 tasks), B vs C (20 vs 5 runs on "
                           "1 of 2 tasks);")
    assert "the across-tasks test in up to 0.13 (skewed scores, 5 tasks, 3 vs 100 runs)" in note
