"""Audit s37 (claims37): printed claims checked against the design and rows analysed.

Each test builds a small design by hand (agents that never shared a task, cells of one run, ...) and asserts the
text the result prints or reports, with the numbers read off the design itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import rlstats


def _frame(cells, seed=0):
    """Runs of each (agent, task): n runs scoring about 10 x the agent's letter's place (A 10, B 20, ...)."""
    r = np.random.default_rng(seed)
    rows = [dict(agent=a, task=t, run=k, score=float(r.normal(10 * (ord(a) - 64), 1)))
            for (a, t), n in cells.items() for k in range(n)]
    return pd.DataFrame(rows)


DISCONNECTED = {("A", "t1"): 5, ("B", "t1"): 5, ("A", "t2"): 5, ("B", "t2"): 5,
                ("C", "t3"): 5, ("D", "t3"): 5, ("C", "t4"): 5, ("D", "t4"): 5}
CHAIN = {("A", "t1"): 5, ("B", "t1"): 5, ("B", "t2"): 5, ("C", "t2"): 5}


def _equivalence(cells):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.equivalence(_frame(cells), "score ~ agent | task", margin=1, rng=0, n_resamples=200)


def test_equivalence_report_counts_only_pairs_that_met():
    # Before: "We tested 6 pairs of agents on 4 tasks" where 4 of the 6 (A-C, A-D, B-C, B-D) never ran on a common
    # task and each printed "withheld: A and C share no task": no test of them was made.
    res = _equivalence(DISCONNECTED)
    text = res.report(format="text")
    assert text.startswith("We tested 2 of the 6 pairs of agents (the pairs that ran a common task) on 4 tasks"), text
    assert "We tested 6 pairs" not in text
    met = res.comparisons[res.comparisons["scope"] == "task"][["agent_1", "agent_2"]].drop_duplicates()
    assert sorted(map(tuple, met.to_numpy())) == [("A", "B"), ("C", "D")]
    # the chain A-B on t1, B-C on t2: A-C never met
    text = _equivalence(CHAIN).report(format="text")
    assert text.startswith("We tested 2 of the 3 pairs of agents (the pairs that ran a common task) on 2 tasks"), text
    # every pair met: the count as before
    full = {(a, t): 5 for a in "AB" for t in ("t1", "t2")}
    assert _equivalence(full).report(format="text").startswith("We tested 1 pair of agents on 2 tasks")


def test_rank_test_with_a_control_still_says_which_agents_never_met():
    # A and C never ran on a common task (A on t1, t3; C on t2, t4; B and D link them).  Without control= the note
    # names A-C; with control="B" the post hoc family (A-B, C-B, D-B) holds no never-met pair, and before the fix the
    # print showed mean ranks A 2.5 and C 1.5 side by side with no word that they never met.
    cells = {("A", "t1"): 3, ("B", "t1"): 3, ("B", "t2"): 3, ("C", "t2"): 3, ("A", "t3"): 3, ("B", "t3"): 3,
             ("B", "t4"): 3, ("C", "t4"): 3, ("D", "t1"): 3, ("D", "t2"): 3}
    df = _frame(cells)
    met_only = "so it places an agent among the agents it met only (A met only B, D; C met only B, D)"
    res = rlstats.skillings_mack(df, "score ~ agent | task", control="B")
    assert set(zip(res.comparisons["agent_1"], res.comparisons["agent_2"])) == {("A", "B"), ("C", "B"), ("D", "B")}
    assert list(res.notes) == [
        "1 pair of agents never ran on a common task (A-C): the post hoc against the control B leaves it out, and a "
        "mean rank is taken within each task among the agents that ran there, " + met_only], res.notes
    assert "Note: 1 pair of agents never ran on a common task (A-C)" in str(res)
    # the family holding the never-met pair: its note as before, once
    res = rlstats.skillings_mack(df, "score ~ agent | task", control="A")
    assert [n for n in res.notes if "never ran" in n] == [
        "1 pair of agents never ran on a common task (C-A): they are not compared post hoc and no critical-difference "
        "bar joins them; a mean rank is taken within each task among the agents that ran there, " + met_only]
    # every pair met: no such note
    full = _frame({(a, t): 3 for a in "ABC" for t in ("t1", "t2", "t3")})
    assert not [n for n in rlstats.skillings_mack(full, "score ~ agent | task", control="B").notes if "never" in n]


def test_sequential_and_permutation_reports_of_tasks_without_a_pair_asked_for():
    # A on t1 and t3, C on t2 and t4, B everywhere: with reference="A" the tests compare A-B on t1 and t3 only.
    # Before: AdaStop's report read "On t2, decisions: . Runs used: B 0, C 0.", the permutation test's "On t2, every
    # comparison was withheld (too few runs)." (B and C ran 5 runs each there), and both "We compared 3 agents (A, B,
    # C)" of C, in no comparison.
    cells = {("A", "t1"): 5, ("B", "t1"): 5, ("B", "t2"): 5, ("C", "t2"): 5, ("A", "t3"): 5, ("B", "t3"): 5,
             ("B", "t4"): 5, ("C", "t4"): 5}
    df = _frame(cells)
    for method in ("adastop", "permutation"):
        res = rlstats.compare(df, "score ~ agent | task", method=method, reference="A", rng=0)
        assert sorted(set(res.decisions["task"])) == ["t1", "t3"]
        assert set(res.decisions["agent_2"]) | set(res.decisions["agent_1"]) == {"A", "B"}
        text = res.report(format="text")
        assert text.startswith("We compared 2 of the 3 agents (A, B; C in no comparison) with "), text
        for task in ("t2", "t4"):
            assert f"On {task}, no comparison: each pair compared has an agent without runs there." in text, text
        assert "decisions: ." not in text and "too few runs" not in text
        assert "On t1, " in text and "On t3, " in text
    # comparisons= leaving an agent out of a complete design: said as well
    full = _frame({(a, t): 5 for a in "ABC" for t in ("t1", "t2")})
    res = rlstats.compare(full, "score ~ agent | task", method="permutation", comparisons=[("A", "B")], rng=0)
    assert res.report(format="text").startswith("We compared 2 of the 3 agents (A, B; C in no comparison) with ")
    res = rlstats.compare(full, "score ~ agent | task", method="permutation", rng=0)
    assert res.report(format="text").startswith("We compared 3 agents (A, B, C) with ")


def test_selection_check_says_which_reported_tasks_gave_the_runs_skewness():
    # The skew-corrected reporter reads the skewness from the runs' cumulants of the reported tasks with 3 runs or
    # more of each agent (rlstats.methods.selection._kernels.effect_cumulants); before, a reported task of one run of
    # the treatment was still counted: "estimated from the runs' within-task cumulants of the reported tasks".
    df = rlstats.datasets.simulate(3, 10, 5, effect=1.0, rng=3, heterogeneity=0)
    one = df[~((df["agent"] == "agent_3") & (df["task"] == "task_03") & (df["seed"] >= 1))]
    reported = ["task_01", "task_02", "task_03", "task_04"]
    res = rlstats.selection_check(one, "score ~ agent | task", treatment="agent_3", baseline="agent_1",
                                  reported=reported, rng=0)
    runs = res.effects.set_index("task").loc[reported, ["n_treatment", "n_baseline"]].min(axis=1)
    assert runs.tolist() == [5, 5, 1, 5]
    assert res.reporter_skewness_source == "runs"
    assert ("estimated from the runs' within-task cumulants of 3 of the 4 reported tasks (those with 3 runs or more "
            "of each agent)") in str(res)
    # every reported task with its runs: as before
    res = rlstats.selection_check(df, "score ~ agent | task", treatment="agent_3", baseline="agent_1",
                                  reported=reported, rng=0)
    assert "estimated from the runs' within-task cumulants of the reported tasks" in str(res)
    assert "reported tasks (those with 3 runs" not in str(res)


def test_bayes_decision_note_says_the_pairs_runs_as_they_are():
    # agent_3 has 1 run on task_01 and 5 on the others; before, the note on decisions outside the calibration grid
    # read "agent_1 vs agent_3 (4 tasks, 1 run)", as if every cell held one run.
    df = rlstats.datasets.simulate(3, 4, 5, effect=2.0, rng=3, heterogeneity=0)
    one = df[~((df["agent"] == "agent_3") & (df["task"] == "task_01") & (df["seed"] >= 1))]
    cells = one.groupby(["agent", "task"]).size()
    assert cells["agent_3"].tolist() == [1, 5, 5, 5] and set(cells[["agent_1", "agent_2"]]) == {5}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(one, "score ~ agent | task", rng=0)
    note = next(n for n in res.notes if "read as 'practically better or worse'" in n)
    assert note.startswith("agent_1 vs agent_2 (4 tasks, 5 runs), agent_1 vs agent_3 (4 tasks, 1 to 5 runs), "
                           "agent_2 vs agent_3 (4 tasks, 1 to 5 runs): "), note


def test_probability_of_improvement_note_names_the_pairs_of_few_runs():
    # agent_1 has 3 runs per task, agent_2 and agent_3 10: before, "3 runs per task are few for score intervals of the
    # probability of improvement" was said of all 3 pairs, agent_2 vs agent_3 among them (10 and 10 runs).
    df = rlstats.datasets.simulate(3, 4, 10, effect=2.0, rng=3, heterogeneity=0)
    df = df[~((df["agent"] == "agent_1") & (df["seed"] >= 3))]
    assert df.groupby("agent").size().to_dict() == {"agent_1": 12, "agent_2": 40, "agent_3": 40}
    res = rlstats.compare(df, "score ~ agent | task", method="probability_of_improvement")
    note = next(n for n in res.notes if "are few for score intervals" in n)
    assert note.startswith("3 runs per task (of agent_1 vs agent_2 and agent_1 vs agent_3) are few for score "
                           "intervals of the probability of improvement: in simulations on 2 and 5 tasks with 3 runs "
                           "per task"), note
    # every pair at the fewest runs: no pairs named
    even = df[df["seed"] < 3]
    note = next(n for n in rlstats.compare(even, "score ~ agent | task", method="probability_of_improvement").notes
                if "are few for score intervals" in n)
    assert note.startswith("3 runs per task are few for score intervals"), note


def test_rank_test_on_cell_summaries_reports_the_runs_it_summarised():
    # within_cell="mean" ranks one mean per cell; before, the report said the data held "1 run per agent and task"
    # where the cells held 3 to 10 runs (69 in all, 9 cells, 3 empty)
    cells = {("A", "t1"): 3, ("B", "t1"): 10, ("C", "t1"): 10, ("A", "t2"): 3, ("B", "t2"): 10, ("A", "t3"): 3,
             ("C", "t3"): 10, ("B", "t4"): 10, ("C", "t4"): 10}
    df = _frame(cells)
    assert len(df) == 69
    res = rlstats.skillings_mack(df, "score ~ agent | task", within_cell="mean")
    text = res.report(format="text")
    assert text.startswith("We compared 3 agents on 4 tasks (9 cell means of 69 runs, 3 empty cells) with the "
                           "Skillings and Mack (1981) rank test, on the mean of each agent's runs per task"), text
    assert "1 run per agent and task" not in text
    full = _frame({(a, t): 5 for a in "ABC" for t in ("t1", "t2", "t3")})
    text = rlstats.skillings_mack(full, "score ~ agent | task", within_cell="median").report(format="text")
    assert text.startswith("We compared 3 agents on 3 tasks (9 cell medians of 45 runs) with "), text
    # one run per cell given as such: as before
    means = df.groupby(["agent", "task"], as_index=False)["score"].mean()
    text = rlstats.skillings_mack(means, "score ~ agent | task").report(format="text")
    assert text.startswith("We compared 3 agents on 4 tasks (1 run per agent and task, 3 empty cells)"), text


def test_power_says_which_tasks_of_a_per_task_rate_lack_the_shifted_agent():
    # A, B on t1-t2 and C, D on t3-t4, every run from one N(0, 1); D raised by 1.5 SD (resample='pooled'). The
    # permutation test's rate is per task over all 4 tasks, 2 of which D never ran: over 200 data sets it read 0.4675
    # where the tasks D ran give 0.87 (tasks=['t3', 't4']), the A-B tasks rejecting 26 of 400 tests. The rate is
    # kept; before, nothing said that half its tests could not see the shift.
    r = np.random.default_rng(0)
    rows = [dict(agent=a, task=t, run=k, score=float(r.normal(0, 1))) for a, t in
            [("A", "t1"), ("B", "t1"), ("A", "t2"), ("B", "t2"), ("C", "t3"), ("D", "t3"), ("C", "t4"), ("D", "t4")]
            for k in range(10)]
    pilot = pd.DataFrame(rows)
    common = dict(design=pilot, formula="score ~ agent | task", effect=1.5, n_sim=20, seeds=[10], rng=0,
                  progress=False, resample="pooled")
    res = rlstats.power("permutation", **common)
    assert res.table["n_tests"].tolist() == [80]  # 20 data sets x 4 tasks
    assert ("the rate of the permutation test counts the tests of 2 of the 4 tasks where D, the agent shifted, has no "
            "runs (t1 and t2): the shift plays no part there, and their tests reject at the pilot's own differences "
            "whatever the effect; for the power on the tasks D ran, pass tasks=['t3', 't4']") in res.notes, res.notes
    kept = rlstats.power("permutation", **common, tasks=["t3", "t4"])
    assert kept.table["n_tests"].tolist() == [40]
    assert not [n for n in kept.notes if "plays no part" in n]
    # the shifted agent on every task, or no shift: no such note
    assert not [n for n in rlstats.power("permutation", **{**common, "effect": 0.0}).notes if "plays no part" in n]
    full = rlstats.datasets.simulate(2, 3, 5, rng=0)
    assert not [n for n in rlstats.power("permutation", design=full, formula="score ~ agent | task", effect=1.0,
                                         n_sim=10, seeds=[5], rng=0, progress=False).notes if "plays no part" in n]
