"""Audit s14 (sweep): every public back end (the rank test, AdaStop and the permutation test, percentiles,
bootstrap, probability of improvement, performance profiles, curves, task_table, mixed, tuning, selection_check,
equivalence, bayes) and its printed forms, on the designs the project is weakest on, beyond what
tests/test_audit_s8_designs.py, tests/test_audit_s9_meta.py, tests/test_connectivity.py and tests/test_metamorphic.py
check: agents that never share a task (two groups; one agent on a single task), cells and agents with one run,
pandas subsets that leave unused categories or drop seeds, renamings that flip the agents' sorted order, and ties
(a task whose runs all tie, an agent whose runs all tie, integer scores). Small simulated designs (3-4 agents x 2-4
tasks x 1-4 runs). Each test is a minimal reproducer of one defect found, asserting the correct behaviour; a strict
xfail until it is fixed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats


def _two_groups(seeds=4):
    """A and B ran t1 and t2, C and D ran t3 and t4: the two groups never share a task."""
    rng = np.random.default_rng(0)
    rows = [(a, t, s, float("ABCD".index(a) + rng.normal())) for a, tasks in (("A", "12"), ("B", "12"), ("C", "34"),
                                                                              ("D", "34"))
            for t in tasks for s in range(seeds)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"]).assign(task=lambda d: "t" + d["task"])


@pytest.mark.parametrize("method", ["adastop", "permutation"])
def test_no_comparison_is_counted_where_an_agent_never_ran(method):
    """A, B on t1-t2 and C, D on t3-t4 (4 runs each): each task tests its one pair, 4 comparisons in all. AdaStop
    printed 'rejected = 0, equal = 4, undecided = 20 (of 24 comparisons)' and the permutation test 'rejected = 0 of
    24 comparisons': the 20 pairs with an agent that never ran the task were rows with decision 'continue' (reason
    'no runs of C on this task'), so AdaStop's done stayed False however many runs were added, glance() gave
    n_undecided = 20, the decision matrix showed '?' (undecided) where its docstring promises an empty cell for a
    pair not compared, and the permutation test (one interim: nothing continues) called them 'continue' too."""
    df = _two_groups()
    if method == "adastop":
        res = rlstats.adastop(df, "score ~ agent | task", n=2, n_resamples=200, rng=0)
    else:
        res = rlstats.permutation(df, "score ~ agent | task", rng=0)
    tidy = res.tidy()
    assert len(tidy) == 4 and (tidy["n_1"] > 0).all() and (tidy["n_2"] > 0).all()
    assert set(map(tuple, tidy[["task", "agent_1", "agent_2"]].to_numpy())) == {
        ("t1", "A", "B"), ("t2", "A", "B"), ("t3", "C", "D"), ("t4", "C", "D")}
    assert "continue" not in set(tidy["decision"]) and res.done
    assert res.glance()["n_comparisons"].item() == 4 and res.glance()["n_undecided"].item() == 0
    assert "of 4 comparisons" in str(res) and "24" not in str(res).splitlines()[4]
    matrix = res.decision_matrix("t1")
    assert matrix.loc["A", "C"] == "" and matrix.loc["C", "D"] == "" and matrix.loc["A", "B"] in (">", "<", "ns")
    if method == "permutation":
        assert np.isfinite(tidy["p_adjusted"]).all()
    for form in (res.summary(), res.report(format="text"), res.to_latex()):
        assert "no runs of" not in str(form)


def _one_agent_on_one_task():
    """A, B, C 4 runs on t1-t3; D 4 runs on t1 only."""
    rng = np.random.default_rng(5)
    rows = [(a, t, s, float("ABCD".index(a) * 0.7 + 3 * (t == "t3") + rng.normal())) for a in "ABCD"
            for t in ("t1", "t2", "t3") for s in range(4) if a != "D" or t == "t1"]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_bayes_gives_no_interval_across_tasks_from_one_task():
    """D ran t1 only: C vs D share one task, whose difference of means is -0.0323. The signed-rank model printed
    'C vs D ... mean diff -0.02152, 95% interval -0.03227 to -0.001468, tasks 1': an interval of the mean difference
    across tasks that excludes 0, with no spread of tasks behind it. With one task the posterior of the mean is
    w * d, w ~ Beta(1, prior) the task's Dirichlet weight against the prior's pseudo-observation at 0, so the
    interval is d times the quantiles of w, read off the prior alone (here d * [0.05, 0.999]). The interval is
    withheld for pairs on one task, with a note naming them; the pairs on 3 tasks keep theirs."""
    df = _one_agent_on_one_task()
    res = rlstats.bayes(df, "score ~ agent | task", rope=0.2, rng=0)
    tidy = res.tidy().set_index(["agent_1", "agent_2"])
    d = df[df.agent == "C"].query("task == 't1'").score.mean() - df[df.agent == "D"].score.mean()
    assert d == pytest.approx(-0.0323, abs=1e-4)
    for pair in (("A", "D"), ("B", "D"), ("C", "D")):
        assert tidy.loc[pair, "n_tasks"] == 1
        assert np.isnan(tidy.loc[pair, "conf_low"]) and np.isnan(tidy.loc[pair, "conf_high"])
    assert np.isfinite(tidy.loc[("A", "B"), ["conf_low", "conf_high"]].to_numpy(dtype=float)).all()
    assert "-0.03227" not in str(res) and "-0.001468" not in str(res)
    assert any("A vs D; B vs D; C vs D" in note and "one task" in note and "interval" in note for note in res.notes)


def test_bayes_gives_no_ordering_of_the_agents_from_one_task():
    """On t1 alone (4 agents, 4 runs each) the signed-rank model printed 'most probable orderings of the agents:
    > 1 - 1/50000  D > C > B > A': every Dirichlet draw weighs the one task alone, so the ordering of its four means
    came with probability 1, a certainty no run or task behind it supports. The ordering is not given, with a note;
    the pairs' intervals are withheld as on any pair sharing one task."""
    df = _one_agent_on_one_task().query("task == 't1'")
    res = rlstats.bayes(df, "score ~ agent | task", rope=0.2, rng=0)
    assert res.orderings is None and "most probable orderings" not in str(res)
    assert any("orderings of the agents are not given from one task" in note for note in res.notes)
    assert res.tidy()["conf_low"].isna().all()


def test_pbp_interval_holds_its_own_estimate_at_one_run_per_cell():
    """3 agents x 5 tasks x 1 run: percentiles printed 'agent_1  0.007448 (0.008913, 0.9911)', a 95% simultaneous
    interval that excludes its own point estimate (every agent got the same interval: at one run the DKW band's
    half-width is 1.79, so every payoff interval is [0, 1], and the propagation's tie rule, an edge of eta / m
    where two payoff intervals are equal, keeps each agent's lower bound above 0 whatever the scores). An interval
    that the estimate computed from the same runs falls outside cannot hold its level."""
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=1, effect=1.0, rng=3)
    res = rlstats.percentiles(df, "score ~ agent | task")
    tidy = res.tidy().set_index("agent")
    assert tidy.loc["agent_1", "estimate"] == pytest.approx(0.007448, abs=1e-6)
    assert (tidy["conf_low"] <= tidy["estimate"]).all() and (tidy["estimate"] <= tidy["conf_high"]).all()
    # widened to the estimate, and said (the lead's fix: a bound over every game in the payoff intervals holds the
    # observed payoffs' game)
    assert tidy.loc["agent_1", "conf_low"] == tidy.loc["agent_1", "estimate"]
    assert any("PBP's bounds of agent_1" in note and "widened to hold it" in note for note in res.notes)


def test_task_table_makes_no_claim_of_an_agent_on_a_task_it_never_ran():
    """A, B on t1-t2 and C, D on t3-t4: tidy() and the summary's 'comparisons with the best' gave C and D on t1
    'possibly_best no, significant no' (and A, B on t3, t4 alike), two claims about a comparison never made that
    also contradict each other (significant is documented as the complement of the set among the agents with runs:
    not in the set yet not significantly worse). Where the agent has no runs both are missing, as where the mark is
    withheld for want of runs; the cells it ran keep their marks."""
    res = rlstats.task_table(_two_groups(), "score ~ agent | task")
    tidy = res.tidy().set_index(["task", "agent"])
    absent = tidy["n_runs"] == 0
    assert absent.sum() == 8
    assert tidy.loc[absent, "possibly_best"].isna().all() and tidy.loc[absent, "significant"].isna().all()
    ran = tidy.loc[~absent]
    assert ran["possibly_best"].notna().all() and (ran["significant"] == ~ran["possibly_best"]).all()
    comparisons = res.summary().tables["comparisons with the best"].set_index(["task", "agent"])
    assert (comparisons.loc[("t1", "C"), ["possibly_best", "significant"]].astype(str) != "no").all()


def _tied_best():
    """On t1 A (1, 3, 2, 2) and B (2, 2, 1.5, 2.5) tie for the best mean 2, C (0, 1, 1, 0) is below; on t2 each
    agent's runs are moved up by its place (B best)."""
    runs = {"A": [1.0, 3.0, 2.0, 2.0], "B": [2.0, 2.0, 1.5, 2.5], "C": [0.0, 1.0, 1.0, 0.0]}
    rows = [(a, t, s, v + shift * "ABC".index(a)) for t, shift in (("t1", 0), ("t2", 1)) for a, values in runs.items()
            for s, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_task_table_comparisons_with_a_tied_best_do_not_depend_on_category_order():
    """A and B tie for the best mean on t1; C's test and effect sizes 'against the best' were against whichever
    tied agent came first in the design's order, so reversing only the agent column's category order moved them:
    C's p_value 0.01367 became 0.003434, A12 0.9375 became 1.0, Hedges' g 1.843 became 2.606, the difference's
    interval (0.2428, 2.757) became (0.611, 2.389), and the tied best left without a p-value (NaN) went from A to B
    (the next-ranked agent of a tie moved too). The reference is now the tied best first in the names' sorted order,
    as the random back ends key their streams (resampling.label_ranks), whatever the category order."""
    df = _tied_best()
    reordered = df.assign(agent=pd.Categorical(df["agent"], categories=["C", "B", "A"]))
    columns = ["estimate", "best", "possibly_best", "p_value", "a12", "hedges_g", "diff_low", "diff_high", "next_agent"]
    tables = []
    for frame in (df, reordered):
        tidy = rlstats.task_table(frame, "score ~ agent | task").tidy()
        tidy["agent"] = tidy["agent"].astype(str)
        tables.append(tidy.sort_values(["task", "agent"]).set_index(["task", "agent"])[columns])
    pd.testing.assert_frame_equal(tables[1], tables[0])
    t1 = tables[0].loc["t1"]
    a, c = (df.query(f"task == 't1' and agent == '{agent}'")["score"] for agent in "AC")
    welch = stats.ttest_ind(a, c, equal_var=False, alternative="greater").pvalue  # C against A, the first tied best
    assert np.isnan(t1.loc["A", "p_value"]) and t1.loc["C", "p_value"] == pytest.approx(welch, rel=1e-10)
    assert t1.loc["B", "next_agent"] == "A"


@pytest.mark.parametrize("method", ["adastop", "permutation"])
def test_the_report_counts_the_comparisons_each_task_ran(method):
    """D ran t1 only (A, B, C ran t1-t3, 4 runs each): t1's test has 6 comparisons, t2's and t3's 3. The report's
    'with step-down multiple testing of 6 pairwise comparisons' divided all rows by the tasks, counting on t2 and t3
    the pairs of D, which never ran them (and, once those pairs had no rows, would have read 12 / 3 = 4, true of no
    task). It gives the range by task."""
    df = _one_agent_on_one_task()
    if method == "adastop":
        res = rlstats.adastop(df, "score ~ agent | task", n=2, n_resamples=200, rng=0)
    else:
        res = rlstats.permutation(df, "score ~ agent | task", rng=0)
    assert res.tidy().groupby("task").size().to_dict() == {"t1": 6, "t2": 3, "t3": 3}
    assert "3 to 6 pairwise comparisons by task" in res.report(format="text")
    complete = rlstats.permutation(df[df.agent != "D"], "score ~ agent | task", rng=0)
    assert " 3 pairwise comparisons" in complete.report(format="text")


def test_adastop_names_a_one_run_cell_in_the_singular():
    """A cell of one run that n = 2 does not divide was named 'agent 'C' on task 't2' has 1 runs'."""
    df = _two_groups()
    df = df[~((df.agent == "C") & (df.task == "t3") & (df.seed > 0))]
    with pytest.raises(rlstats.DesignError, match=r"agent 'C' on task 't3' has 1 run, not a multiple of n = 2"):
        rlstats.adastop(df, "score ~ agent | task", n=2)


def test_percentiles_name_the_one_run_cells_their_note_is_about():
    """C has one run on t2 and A one on t3 (4 runs elsewhere): PBP's note said 'with 1 run in the smallest cell the
    DKW band half-width at delta' = 0.00556 is 1.72, so PBP intervals are wide' without naming the cells, whose
    payoffs that band leaves anywhere in [0, 1]. The note names them (where not every cell is smallest)."""
    rng = np.random.default_rng(1)
    size = {("C", "t2"): 1, ("A", "t3"): 1}
    rows = [(a, t, s, float("ABC".index(a) * 0.5 + rng.normal())) for a in "ABC" for t in ("t1", "t2", "t3")
            for s in range(size.get((a, t), 4))]
    res = rlstats.percentiles(pd.DataFrame(rows, columns=["agent", "task", "seed", "score"]), "score ~ agent | task")
    # (audit s21: the cells now follow "smallest cell", and a band clipped to [0, 1] is said to be all of it)
    assert ("with 1 run in the smallest cell (t2/C, t3/A) the DKW band at delta' = 0.00556 is all of [0, 1]"
            in "\n".join(res.notes))


def test_mixed_gives_agents_with_the_same_runs_a_difference_of_zero():
    """agent_2's runs a copy of agent_1's (3 agents x 3 tasks x 4 runs): the mixed model printed 'agent_1 - agent_2
    -2.9371e-15 2.0924 31 -1.4037e-15 1' and the coefficient 'agentagent_2 2.9371e-15', rounding noise of the fit,
    which read 0 once the agent column's category order was reversed. A difference within TIE_TOLERANCE of the
    scores' largest magnitude is 0 (the tie rule of rlstats.statistics), so both orders print the same numbers."""
    df = rlstats.datasets.simulate(agents=3, tasks=3, seeds=4, rng=0)
    df = df.astype({"agent": str, "task": str})
    df = pd.concat([df[df.agent != "agent_2"], df[df.agent == "agent_1"].assign(agent="agent_2")], ignore_index=True)
    reordered = df.assign(agent=pd.Categorical(df["agent"], categories=["agent_3", "agent_2", "agent_1"]))
    a = rlstats.mixed(df, "score ~ agent | task")
    b = rlstats.mixed(reordered, "score ~ agent | task")
    pair = a.tidy().set_index(["agent_1", "agent_2"]).loc[("agent_1", "agent_2")]
    assert pair["estimate"] == 0.0 and pair["statistic"] == 0.0 and pair["p_value"] == 1.0
    assert "e-15" not in str(a) and "e-16" not in str(a)
    flipped = b.tidy().set_index(["agent_1", "agent_2"]).loc[("agent_2", "agent_1")]
    assert flipped["estimate"] == 0.0


def test_the_bootstrap_names_the_tasks_where_an_agent_has_one_run():
    """C has one run on t2 and A one on t3 (4 runs elsewhere): bootstrap, probability_of_improvement and
    performance_profile noted 'A: 1 of 3 tasks have a single run, which adds no spread to the intervals' without
    naming the task. The note names it."""
    rng = np.random.default_rng(1)
    size = {("C", "t2"): 1, ("A", "t3"): 1}
    rows = [(a, t, s, float("ABC".index(a) * 0.5 + rng.normal())) for a in "ABC" for t in ("t1", "t2", "t3")
            for s in range(size.get((a, t), 4))]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    # audit s38 claims38: "has", and each result's own effect of the run (the probability of improvement's pairs
    # and the Wilson band read the other runs or the counts, which a one-run task does not leave without spread)
    effects = {rlstats.bootstrap: "which adds no spread to the intervals",
               rlstats.probability_of_improvement: "so its comparisons there rest on that one run",
               rlstats.performance_profile: "which the Wilson band counts as one run, lowering its effective number "
                                            "of runs (T^2 / sum(1 / n_t))"}
    for call, effect in effects.items():
        notes = call(df, "score ~ agent | task", n_resamples=100, rng=0).notes
        assert f"A: 1 of 3 tasks has a single run, {effect} (t3)" in notes
        assert f"C: 1 of 3 tasks has a single run, {effect} (t2)" in notes
