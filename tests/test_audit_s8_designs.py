"""Audit s8 (designs): what the rows say on hard designs (unbalanced runs, missing cells, agents that never meet,
one-run cells, ties and capped scores, constant agents), across every back end and printed form. Each test is a
minimal reproducer of one defect found, asserting the correct behaviour; a strict xfail until it is fixed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats


def _constant_task():
    """A and B 4 runs on each of 2 tasks; on t2 every run of both scores exactly 1 (capped)."""
    rows = [(a, t, s, 1.0 if t == "t2" else base + 0.1 * s)
            for a, base in (("A", 0.0), ("B", 0.3)) for t in ("t1", "t2") for s in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_equivalence_says_why_a_task_test_is_withheld():
    """On t2 both agents score 1 in every run: the per-task TOST is withheld (NaN interval, conclusion 'withheld')
    and the pair's line says '1 of 1 tasks tested shown equivalent (1 withheld)', but no note names t2 or gives
    the reason; every other withheld output of the package has its sentence (the one-run case does)."""
    # margin 0.5, inside the scores' range 0 to 1: a margin of 1 drew the warning that no difference could exceed it
    res = rlstats.equivalence(_constant_task(), "score ~ agent | task", margin=0.5, n_resamples=100, rng=0)
    tidy = res.tidy()
    assert tidy.loc[tidy.task == "t2", "conclusion"].item() == "withheld"
    assert any("t2" in note for note in res.notes)


def _three_and_two_agents():
    """3 agents x 5 runs on task_01; agent_3 has no runs on task_02, so task_02's test has 2 agents (exact)."""
    df = rlstats.datasets.simulate(3, 2, 5, effect=3.0, rng=1, distribution="normal")
    return df[~((df.agent == "agent_3") & (df.task == "task_02"))]


def test_permutation_level_spent_is_true_of_every_task():
    """Each task has its own test: task_01 (3 agents) draws 199 random permutations, task_02 (2 agents) enumerates
    its 126. The header and glance give level spent = 0.04523 (task_01's 9/199), but task_02's test spends
    6/126 = 0.04762 (its result alone says so). A single number must be true of every task's test, or be given
    per task."""
    df = _three_and_two_agents()
    res = rlstats.permutation(df, "score ~ agent | task", n_resamples=199, rng=0, permutations="joint")
    alone = rlstats.permutation(df[df.task == "task_02"], "score ~ agent | task", n_resamples=199, rng=0, permutations="joint")
    first = rlstats.permutation(df[df.task == "task_01"], "score ~ agent | task", n_resamples=199, rng=0, permutations="joint")
    assert alone.level_spent != first.level_spent  # the two tasks' tests spend different levels
    stated = [line for line in str(res).splitlines() if "level spent" in line]
    assert stated and f"{alone.level_spent:.4g}" in stated[0] and f"{first.level_spent:.4g}" in stated[0]


def _missing_cell():
    """3 agents x 3 tasks x 5 runs; agent_3 has no runs on task_02."""
    df = rlstats.datasets.simulate(3, 3, 5, effect=1.0, rng=1, distribution="normal", heterogeneity=0)
    return df[~((df.agent == "agent_3") & (df.task == "task_02"))]


def test_task_table_aggregate_way_on_works():
    """The error's way on must work: with na_action='drop' the aggregate row is computed on the complete tasks
    (or the error must not offer it)."""
    df = _missing_cell()
    with pytest.raises(rlstats.DesignError, match='na_action="drop"'):
        rlstats.task_table(df, "score ~ agent | task", aggregate="bootstrap", rng=0)
    res = rlstats.task_table(df, "score ~ agent | task", aggregate="bootstrap", na_action="drop", rng=0)
    assert "task_02" in str(res)  # the per-task table keeps the task; the aggregate row reads the complete ones


def _agent_missing_a_task():
    """A and B 4 runs on t1 and t2; B has no runs on t2."""
    rng = np.random.default_rng(0)
    rows = [(a, t, s, float(rng.normal(i, 1))) for i, a in enumerate("AB") for t in ("t1", "t2") for s in range(4)
            if (a, t) != ("B", "t2")]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_tuning_says_which_agents_have_no_mean_over_tasks():
    """With an agent missing from a task, the print's 'expected best score after tuning k configurations' section
    lists only the agents with a mean over tasks; B is silently left out (its per-task curves sit in the table, and
    nothing says why it is not shown). Either B's per-task lines are shown or a note names B and the reason."""
    # two learning rates a sweep (the seeds' parity): each agent one configuration is refused (new-user trial s38)
    res = rlstats.tuning(_agent_missing_a_task().assign(lr=lambda d: d.seed % 2), "score ~ agent | task/seed",
                         config="lr", n_resamples=100, rng=0)
    section = str(res).split("expected best score after tuning")[1].split("\n\n")[0]
    assert " A averaged over tasks: " in section and "(mean over tasks)" not in section  # not a task's name (s9)
    assert " B on " in section or any("mean over tasks" in note and "B" in note for note in res.notes)


def _constant_agent():
    """A scores exactly 0.5 in each of its 4 runs on both tasks; B's runs vary."""
    rows = [(a, t, s, 0.5 if a == "A" else 0.6 + 0.1 * s) for a in "AB" for t in ("t1", "t2") for s in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_tuning_withholds_a_one_point_interval():
    """A's runs are all 0.5: tuning prints 'tuned score 0.5 [0.5, 0.5]' and an expected-max band [0.5, 0.5], a 95%
    claim that no run not yet seen can fall elsewhere, resting on no spread at all. rlstats.bootstrap on the same
    rows withholds A's interval ('an interval of one point would say nothing of runs not yet seen'); tuning should
    withhold it too, with a note."""
    df = _constant_agent()
    boot = rlstats.bootstrap(df, "score ~ agent | task", metrics=("mean",), n_resamples=100, rng=0)
    assert np.isnan(boot.tidy().set_index("agent").loc["A", "conf_low"])
    res = rlstats.tuning(df.assign(lr=df.seed % 2), "score ~ agent | task/seed", config="lr", n_resamples=100, rng=0)
    tuned = res.tuned().set_index(["agent", "task"])
    assert tuned.loc[("A", "t1"), "conf_low"] != tuned.loc[("A", "t1"), "conf_high"] or \
        np.isnan(tuned.loc[("A", "t1"), "conf_low"])
    assert "[0.5, 0.5]" not in str(res)


def _alike_agents_unequal_runs():
    """A and B drawn alike on each task (t1 ~ N(0, 1), t2 ~ N(10, 1)); A has 3 runs on t1 and 10 on t2, B the
    reverse. Any aggregate that treats the tasks alike finds A and B alike."""
    rng = np.random.default_rng(0)
    size = {("A", "t1"): 3, ("A", "t2"): 10, ("B", "t1"): 10, ("B", "t2"): 3}
    rows = [(a, t, s, float(rng.normal(10.0 * (t == "t2"), 1))) for a in "AB" for t in ("t1", "t2")
            for s in range(size[a, t])]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_iqm_does_not_weigh_tasks_by_their_run_counts():
    """A user with 3 runs on one task and 10 on another (a crashed cluster job) gets bootstrap IQMs 9.24 (7.7 to
    10.2) and 0.23 (-0.6 to 2.2) for two agents drawn from the same distribution on each task, and equivalence
    reports 'aggregate: not shown equivalent (difference 9.01, 90% CI 7.13 to 10.0)': the pooled trimmed mean counts
    each run once, so each agent's tasks weigh by its own runs there, and nothing says so. The per-task mean (4.97
    against 5.17) treats tasks alike; the IQM of the task-averaged score distribution does too."""
    df = _alike_agents_unequal_runs()
    res = rlstats.bootstrap(df, "score ~ agent | task", metrics=("iqm", "optimality_gap"), gamma=5.0,
                            n_resamples=100, rng=0)
    est = res.tidy().set_index(["agent", "metric"])["estimate"]
    assert abs(est["A", "iqm"] - est["B", "iqm"]) < 2.0
    assert abs(est["A", "optimality_gap"] - est["B", "optimality_gap"]) < 1.0
    eq = rlstats.equivalence(df, "score ~ agent | task", margin=2.0, n_resamples=100, rng=0)
    aggregate = eq.tidy().query("scope == 'aggregate'")
    assert abs(aggregate["estimate"].item()) < 2.0


def test_curves_iqm_does_not_weigh_tasks_by_their_run_counts():
    """The same design as the bootstrap's, logged at steps 0 and 100: the print gives A 9.24 (7.65 to 10.2) and
    B 0.230 (-0.657 to 2.24) at the last step, bands far apart for agents alike on every task (with compare='all'
    its own permutation test says 'A and B: no step differs')."""
    df = _alike_agents_unequal_runs()
    df = pd.concat([df.assign(step=0), df.assign(step=100)], ignore_index=True)
    res = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=100, rng=0)
    last = res.tidy().query("step == 100").set_index("agent")["estimate"]
    assert abs(last["A"] - last["B"]) < 2.0
    # each task alike at the step: the bootstrap's IQM of the same runs (another implementation of the weighting)
    boot = rlstats.bootstrap(df[df.step == 100], "score ~ agent | task", metrics=("iqm",), n_resamples=100, rng=0)
    np.testing.assert_allclose(last[["A", "B"]].to_numpy(), boot.estimates[:, 0], rtol=1e-12)
    assert any("weighs each task alike" in note for note in res.notes)


def _integer_coded_groups():
    """Agents 1, 2 ran tasks 10 and 20; agents 3, 4 ran tasks 30 and 40 (integer codes, as many logs store them)."""
    rng = np.random.default_rng(0)
    rows = [(a, t, s, float(rng.normal())) for a, ts in ((1, (10, 20)), (2, (10, 20)), (3, (30, 40)), (4, (30, 40)))
            for t in ts for s in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_suggested_subset_keeps_the_group_of_integer_coded_agents():
    """The error says 'analyse one group at a time by passing its subset=': pasting the suggested condition
    raises 'subset="agent in ['1', '2']" keeps no rows', since the labels are compared as strings with a column of
    integers (and DataFrame.query, which the error says reads the same text, keeps none either)."""
    import re
    df = _integer_coded_groups()
    with pytest.raises(rlstats.DesignError) as caught:
        rlstats.compare(df, "score ~ agent | task")
    suggested = [text for _, text in re.findall(r"subset=([\"'])(.*?)\1", str(caught.value))]
    assert len(suggested) == 2
    for condition, agents in zip(suggested, ({1, 2}, {3, 4})):
        res = rlstats.compare(df, "score ~ agent | task", subset=condition)
        assert {str(a) for a in res.tidy()[["agent_1", "agent_2"]].to_numpy().ravel()} == {str(a) for a in agents}
        assert set(df.query(condition)["agent"]) == agents


def _every_run_at_the_cap():
    """A and B, 5 runs on each of 3 tasks, every run scoring exactly 1 (all solved)."""
    rows = [(a, t, s, 1.0) for a in "AB" for t in ("t1", "t2", "t3") for s in range(5)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_percentiles_withhold_a_one_point_simultaneous_interval():
    """Every run at the cap: the default PBP printed 'A 0.75 (0.75, 0.75)' as a 95% simultaneous interval, beside a
    note that the DKW band's half-width is 0.74 'so PBP intervals are wide': the observed bounds of each task are one
    value, so the interval reads no spread (with bounds=(0, 2) it is (0.10, 0.96)). A one-point interval is withheld
    with its reason, as rlstats.bootstrap withholds one."""
    df = _every_run_at_the_cap()
    for interval in ("pbp", "bootstrap"):
        res = rlstats.percentiles(df, "score ~ agent | task", interval=interval, n_resamples=400, rng=0)
        assert np.isnan(res.conf_low).all() and np.isnan(res.conf_high).all()
        assert any("one point" in note for note in res.notes)
    known = rlstats.percentiles(df, "score ~ agent | task", bounds=(0, 2))
    assert (known.conf_high - known.conf_low > 0.5).all()


def test_an_error_names_rows_by_position_where_the_index_repeats_labels():
    """A frame with a repeated index (pd.concat without ignore_index) and two missing scores: the error said 'first
    rows: 7, 7', which names no row. Where labels repeat, rows are named by position."""
    df = rlstats.datasets.simulate(2, 3, 4, rng=1).set_axis([7] * 24)
    df.iloc[[3, 10], df.columns.get_loc("score")] = np.nan
    with pytest.raises(rlstats.DesignError, match=r"positions 3, 10 \(the index repeats labels"):
        rlstats.compare(df, "score ~ agent | task")
    df.iloc[[3, 10], df.columns.get_loc("score")] = np.inf
    with pytest.raises(rlstats.RlstatsError, match=r"positions 3, 10"):
        rlstats.compare(df, "score ~ agent | task")


def test_task_table_summary_latex_heads_each_agent_by_its_name():
    """Agents named agent_1 .. agent_3 (rlstats.datasets.simulate's names) on 3 tasks: the summary's LaTeX table
    headed its agent columns 'agent 1 & agent 2 & agent\\_3', the first two relabelled as the tidy columns agent_1
    and agent_2 of a pair table, the third as it is: each header must be the agent's name."""
    res = rlstats.task_table(_missing_cell(), "score ~ agent | task")
    latex = res.summary().to_latex()
    assert r"task & agent\_1 & agent\_2 & agent\_3 \\" in latex
    assert "agent 1 & agent 2 & agent" not in latex and "1st agent" not in latex  # the pair's label (audit s27)
    # text, Markdown and HTML head them as they are too (they head the pair's columns agent_1, agent_2 by label)
    summary = res.summary()
    assert "| task | agent_1 | agent_2 | agent_3 |" in summary.to_markdown()
    assert "<th>agent_1</th><th>agent_2</th>" in summary._repr_html_() and "1st agent" not in str(summary)
