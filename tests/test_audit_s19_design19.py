"""Audit s19 (design19): claims that fit the design, swept over every back end with designs as users build them
(pandas subsets of categorical frames, disconnected and chained designs, one-run cells, unbalanced runs, repeated
runs, tied scores).  Each test is a defect's reproducer; the sweep's table is in the session's report."""

import warnings

import numpy as np
import pytest
from conftest import caught, contract_frame

import rlstats

A, B, C = "agent_1", "agent_2", "agent_3"


def _cells(df, pairs):
    """The rows of ``df`` in the (agent, task) cells ``pairs``, as a pandas mask selects them (categories kept)."""
    keep = np.zeros(len(df), dtype=bool)
    for agent, task in pairs:
        keep |= (df["agent"] == agent).to_numpy() & (df["task"] == task).to_numpy()
    return df[keep]


def _curves(seeds=3):
    return rlstats.datasets.simulate_curves(agents=3, tasks=2, seeds=seeds, steps=5, rng=0)


def test_curves_widening_note_gives_each_agent_its_own_n():
    """Curves widen each agent's bootstrap deviations by sqrt(n/(n-1)) at its own fewest runs in a task
    (statistics.run_expansion), but the note said "with n = 3 runs per task (each agent's fewest)" when agent_1 had
    3 runs and the others 10: false of agent_2 and agent_3, widened at n = 10 (the bootstrap's paragraph had the
    same defect, fixed in session 18)."""
    df = _curves(seeds=10)
    df = df[~((df["agent"] == A) & (df["seed"] >= 3))]
    res = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=100, rng=0, normalize=False)
    said = [n for n in res.notes if n.startswith("bootstrap deviations widened")]
    assert len(said) == 1, res.notes
    assert "n = 3 runs per task" not in said[0], said[0]
    assert "3 for agent_1" in said[0] and "10 for agent_2 and agent_3" in said[0], said[0]
    # one n for every agent: said as one number
    even = rlstats.curves(_curves(seeds=3), "score ~ agent | task/seed", step="step", n_resamples=100, rng=0,
                          normalize=False)
    assert any("with n = 3 runs per task," in n for n in even.notes), even.notes


def test_curves_on_constant_scores_raise_no_numpy_warning():
    """Every score 5 (a capped benchmark): curves' max-T band multiplied an infinite critical value by a standard
    error of 0 and numpy's "invalid value encountered in multiply" reached the caller, three times."""
    df = _curves().copy()
    df["score"] = 5.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=100, compare="all", rng=0)
    assert "agent_1 and agent_2: no step differs" in str(res)


def _raw(notes):
    return [n for n in notes if "aggregated on their own scales" in n]


def test_equivalence_says_no_tasks_were_aggregated_where_no_pair_shares_two_tasks():
    """A chain (agent_1-agent_2 on task_01, agent_2-agent_3 on task_02): every across-tasks test and the aggregate
    are withheld (no pair shares two tasks), yet the warning and note said "scores of 2 tasks were aggregated on
    their own scales ... so the tasks with large scores decide the result": nothing was aggregated."""
    df = _cells(rlstats.datasets.simulate(agents=3, tasks=2, seeds=3, rng=0),
                [(A, "task_01"), (B, "task_01"), (B, "task_02"), (C, "task_02")])
    res, said = caught(lambda: rlstats.equivalence(df, "score ~ agent | task", margin=1.0, n_resamples=200, rng=0))
    assert res.tidy().query("scope != 'task'")["p_value"].isna().all()
    assert not _raw(res.notes), res.notes
    assert not [s for s in said if "aggregated on their own scales" in s]
    # where two agents share both tasks the caution stays
    full = rlstats.datasets.simulate(agents=3, tasks=2, seeds=3, rng=0)
    with pytest.warns(UserWarning, match="aggregated on their own scales"):
        kept = rlstats.equivalence(full, "score ~ agent | task", margin=1.0, n_resamples=200, rng=0)
    assert _raw(kept.notes)


def test_tuning_says_no_tasks_were_aggregated_where_no_agent_ran_every_task():
    """Agent A on tasks 1-2 and agent B on tasks 3-4: tuning gives no mean over tasks for either agent (its note
    says so), yet it warned and noted "scores of 4 tasks were aggregated on their own scales"."""
    # two learning rates a sweep (contract_frame): each agent one configuration is refused (new-user trial s38)
    df = _cells(contract_frame("tuning", rlstats.datasets.simulate(agents=2, tasks=4, seeds=4, rng=0)),
                [(A, "task_01"), (A, "task_02"), (B, "task_03"), (B, "task_04")])
    res, said = caught(lambda: rlstats.tuning(df, "score ~ agent | task/seed", config="lr", n_resamples=200, rng=0))
    assert any("no mean over tasks" in n for n in res.notes), res.notes
    assert not _raw(res.notes), res.notes
    assert not [s for s in said if "aggregated on their own scales" in s]


def test_a_run_id_repeated_within_a_cell_is_said_when_rows_are_counted_as_runs():
    """'score ~ agent | task' on a frame whose 'seed' column gives two rows of agent_1 on task_01 the id 0 (two
    evaluation episodes of one run, say): every back end counted them as two runs and printed "runs per cell = 3"
    without a word, while the frame names two runs there (with '| task/seed' the same rows are an error).  Now a
    note says which id repeats where and that each row counts as a run."""
    df = rlstats.datasets.simulate(agents=3, tasks=2, seeds=3, rng=0)
    df.loc[(df["agent"] == A) & (df["task"] == "task_01") & (df["seed"] == 1), "seed"] = 0
    res = rlstats.task_table(df, "score ~ agent | task")
    said = [n for n in res.notes if "repeats" in n and "'seed'" in n]
    assert len(said) == 1, res.notes
    assert "agent 'agent_1' on task 'task_01'" in said[0] and "counted as a run" in said[0], said[0]
    # distinct ids in every cell, or no run column: nothing said
    assert not [n for n in rlstats.task_table(rlstats.datasets.simulate(agents=3, tasks=2, seeds=3, rng=0),
                                              "score ~ agent | task").notes if "repeats" in n]
    assert not [n for n in rlstats.task_table(df.drop(columns="seed"), "score ~ agent | task").notes
                if "repeats" in n]


def test_rank_test_never_met_note_says_when_it_lists_only_some_agents():
    """A chain of four agents (agent_1-agent_2 on task_01 and task_04, agent_2-agent_3 on task_02, agent_3-agent_4 on
    task_03): every agent but none met all others, but the note listed "(agent_1 met only agent_2; agent_4 met only
    agent_3; agent_2 met only agent_1, agent_3)" and left agent_3 (who never met agent_1) out without a word, so
    that a reader took agent_3 to have met everyone."""
    df = _cells(rlstats.datasets.simulate(agents=4, tasks=4, seeds=3, rng=0),
                [(A, "task_01"), (B, "task_01"), (B, "task_02"), (C, "task_02"), (C, "task_03"),
                 ("agent_4", "task_03"), (A, "task_04"), (B, "task_04")])
    res = rlstats.compare(df, "score ~ agent | task")
    said = [n for n in res.notes if "never ran on a common task" in n]
    assert len(said) == 1, res.notes
    assert "agent_3 met only agent_2, agent_4" in said[0] or "1 more agent" in said[0], said[0]


def _one_agent_on_one_task(task):
    """3 agents x 4 tasks x 3 runs, agent_1 on ``task`` only: that task has 3 agents, the others 2."""
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, rng=0)
    return df[~((df["agent"] == A) & (df["task"] != task))]


def test_adastop_says_per_task_how_its_paths_were_drawn():
    """AdaStop per task draws its permutation paths exactly where they are few (2 agents x 3 runs: 10) and at random
    elsewhere (3 agents: 200), but its design line read the first task's row alone: with agent_1 on task_02 only it
    printed "every path enumerated exactly" though task_02's 200 paths were random, and with agent_1 on task_01 only
    "200 random paths" though tasks 2-4 were enumerated."""
    for task, random_tasks in (("task_02", "task_02"), ("task_01", "task_01")):
        res = rlstats.adastop(_one_agent_on_one_task(task), "score ~ agent | task", n=3, n_resamples=200, rng=0, permutations="joint")
        drawn = res.spending.drop_duplicates("task").set_index("task")["exact"]
        assert not drawn[random_tasks] and drawn.drop(random_tasks).all()
        line = [x for x in str(res).splitlines() if "permutation paths" in x][0]
        assert f"200 random paths (identity included) on {random_tasks}" in line, line
        assert "every path enumerated exactly on " in line, line


def test_permutation_test_says_which_tasks_drew_at_random():
    """The same design in the permutation test printed "n = 3 runs per agent, 200 random permutations (identity
    included); n = 3 runs per agent, all 10 permutations enumerated (...)" without saying which task was which."""
    with pytest.warns(UserWarning, match="can never reject"):  # 3 runs a side on tasks 2-4
        res = rlstats.permutation(_one_agent_on_one_task("task_01"), "score ~ agent | task", n_resamples=200,
                                  rng=0, permutations="joint")
    line = [x for x in str(res).splitlines() if "random permutations" in x][0]
    assert "200 random permutations (identity included) on task_01" in line, line
    assert "enumerated (one of each complementary pair) on task_02, task_03 and task_04" in line, line


def test_equivalence_says_no_tasks_were_aggregated_where_every_across_test_is_withheld():
    """One run per cell: Welch's across-tasks test and the aggregate are withheld for every pair (they need the runs'
    spread), yet the note said "scores of 4 tasks were aggregated on their own scales"; with across='paired_t', which
    one run per cell suffices for, the tasks are averaged and the caution stays, after the design's notes."""
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=1, rng=0)
    res, said = caught(lambda: rlstats.equivalence(df, "score ~ agent | task", margin=1.0, n_resamples=200, rng=0))
    assert res.tidy().query("scope != 'task'")["p_value"].isna().all()
    assert not _raw(res.notes) and not [s for s in said if "aggregated on their own scales" in s]
    with pytest.warns(UserWarning, match="aggregated on their own scales"):
        paired = rlstats.equivalence(df, "score ~ agent | task", margin=1.0, across="paired_t", rng=0)
    assert _raw(paired.notes) == [paired.notes[0]], paired.notes


def test_tuning_paragraph_says_its_sweeps_are_of_the_cells_with_runs():
    """Agent A on tasks 1-2 and agent B on tasks 3-4: the paragraph said "2 agents on 4 tasks over 4 sweeps (one per
    agent and task)", which reads as 8; the 4 sweeps are of the agent-task cells with runs.  A complete design keeps
    its words."""
    df = _cells(contract_frame("tuning", rlstats.datasets.simulate(agents=2, tasks=4, seeds=4, rng=0)),
                [(A, "task_01"), (A, "task_02"), (B, "task_03"), (B, "task_04")])
    text = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", n_resamples=200, rng=0).report()
    assert "over 4 sweeps (one per agent and task with runs)" in text, text[:300]
    full = contract_frame("tuning", rlstats.datasets.simulate(agents=2, tasks=2, seeds=4, rng=0))
    with pytest.warns(UserWarning, match="aggregated on their own scales"):
        text = rlstats.tuning(full, "score ~ agent | task/seed", config="lr", n_resamples=200, rng=0).report()
    assert "over 4 sweeps (one per agent and task) of" in text, text[:300]
