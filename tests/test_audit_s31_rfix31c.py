"""Audit s31 rfix31c: equivalence's bootstrap notes name only the pairs whose agents they concern, each pair's notes
those of a run on its own rows; curves' 2-run band note leaves out an agent whose bands a one-run task withholds; the
default equivalence figure keeps every pair with an interval; wording of the comparison, task-table and cost notes."""

import logging
import re

import numpy as np
import pandas as pd
import pytest

import rlstats

_PREFIX = re.compile(r"^the aggregate tests of (.*?): (.*)$", re.S)


def _runs(spec, seed, draw="gamma"):
    """Rows of (agent, tasks, runs a task, task with one run more) ``spec``."""
    rng = np.random.default_rng(seed)
    rows = []
    for agent, tasks, runs, extra in spec:
        for task in tasks:
            for s in range(runs + (task == extra)):
                rows.append((agent, task, s, rng.gamma(2, 1) if draw == "gamma" else rng.normal()))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


_T4 = ["t0", "t1", "t2", "t3"]


def _pair_notes(result, a, b):
    """The bootstrap notes of ``result`` that concern ``a`` vs ``b`` (their prefix naming it), prefix removed."""
    mine = []
    for note in result.notes:
        found = _PREFIX.match(note)
        if found and f"{a} vs {b}" in re.split(r", | and ", found.group(1)):
            mine.append(found.group(2))
    return sorted(mine)


def _alone(df, a, b, **options):
    """(equivalence, bootstrap) of ``a`` and ``b`` on the tasks both ran, their rows alone."""
    sub = df[df["agent"].isin([a, b])]
    shared = set(sub.loc[sub["agent"] == a, "task"]) & set(sub.loc[sub["agent"] == b, "task"])
    sub = sub[sub["task"].isin(shared)]
    alone = rlstats.equivalence(sub, "score ~ agent | task", margin=1.0, **options)
    boot = rlstats.bootstrap(sub, "score ~ agent | task", metrics=["iqm"], confidence_level=0.9,
                             n_resamples=options["n_resamples"], rng=options["rng"])
    return alone, boot


def test_each_pairs_bootstrap_notes_are_its_own_runs():
    """A 5-6 runs on 4 tasks, B 6-7 on 4, C 4-5 on t0-t2, D 7-8 on t1-t3: for each of the 6 pairs, the notes whose
    prefix names it are exactly the bootstrap notes that equivalence() on the pair's rows alone prints (B vs D was
    told "5 runs per task (of A)", its own run says "6 runs per task (of B)"; A vs C's runs-per-task note listed B)."""
    df = _runs([("A", _T4, 5, "t1"), ("B", _T4, 6, "t1"), ("C", _T4[:3], 4, "t1"), ("D", _T4[1:], 7, "t1")], 1)
    options = {"rng": 3, "n_resamples": 200}
    full = rlstats.equivalence(df, "score ~ agent | task", margin=1.0, **options)
    for a, b in [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]:
        alone, boot = _alone(df, a, b, **options)
        own = sorted(n for n in alone.notes if n in boot.notes)
        assert own and _pair_notes(full, a, b) == own, (a, b)
    assert [n[:56] for n in _pair_notes(full, "B", "D")] == [
        "B (6 to 7); D (7 to 8): runs per task differ, so the IQM"]
    assert [n[:56] for n in _pair_notes(full, "A", "C")] == [
        "A (5 to 6); C (4 to 5): runs per task differ, so the IQM"]
    # audit s32 (equivtab32): the bootstrap's note of its 95% intervals at few runs gives way to the rows of this
    # test's decision, each with its pairs' own tasks and fewest runs (B vs D: 6 of B; A vs C: 4 of C)
    level = [n[:n.index(" reads")] + n[n.index(" coverage at"):n.index(", short")] for n in full.notes
             if "rows of another level" in n]
    assert "the aggregate (IQM) test of B vs D coverage at 3 tasks and 6 runs" in level
    assert "the aggregate (IQM) test of A vs C and B vs C coverage at 3 tasks and 4 runs" in level
    # the numbers were already the pair's own (audit s31 equiv31); they stay so
    tidy = full.tidy()
    row = tidy[(tidy["scope"] == "aggregate") & (tidy["agent_1"] == "B") & (tidy["agent_2"] == "D")].iloc[0]
    alone = _alone(df, "B", "D", **options)[0].tidy()
    other = alone[alone["scope"] == "aggregate"].iloc[0]
    assert (row["estimate"], row["std_error"], row["conf_low"], row["conf_high"], row["p_value"]) == (
        other["estimate"], other["std_error"], other["conf_low"], other["conf_high"], other["p_value"])


def test_few_runs_note_names_only_the_pairs_of_its_agent():
    """A 3 runs a task, B, C, D 20 (eq9): the note on A's 3 runs names A's pairs only; B vs C and B vs D, which
    never read A's runs, have no few-runs note, as B vs D alone has none."""
    df = _runs([("A", _T4, 3, None), ("B", _T4, 20, None), ("C", _T4[:3], 20, None), ("D", _T4[1:], 20, None)], 4,
               draw="normal")
    full = rlstats.equivalence(df, "score ~ agent | task", margin=1.0, rng=3, n_resamples=200)
    # audit s32 (equivtab32): the bootstrap's note of its 95% intervals gives way to the rows of this test's decision,
    # one note per task set, each of A's pairs alone
    few = [n[:n.index(" reads")] + n[n.index(" coverage at"):n.index(", short")] for n in full.notes
           if "rows of another level" in n]
    assert few == ["the aggregate (IQM) test of A vs B coverage at 4 tasks and 3 runs",
                   "the aggregate (IQM) test of A vs C coverage at 3 tasks and 3 runs",
                   "the aggregate (IQM) test of A vs D coverage at 3 tasks and 3 runs"]
    assert _pair_notes(full, "B", "C") == _pair_notes(full, "B", "D") == _pair_notes(full, "C", "D") == []


def _curves(runs, **options):
    rng = np.random.default_rng(3)
    rows = [(a, t, s, k, rng.normal(k / 10, 1)) for a, d in runs.items() for t, n in d.items() for s in range(n)
            for k in (0, 10, 20)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    return rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=200, rng=0, **options)


def test_two_run_band_note_leaves_out_a_one_run_agent():
    """A has 1, 5, 5 runs, B 2 a task (cv5): A's bands are withheld for t0's one run (its own note); the 2-run note
    names B alone."""
    res = _curves({"A": {"t0": 1, "t1": 5, "t2": 5}, "B": {"t0": 2, "t1": 2, "t2": 2}})
    two = [n for n in res.notes if n.startswith("bands of the curves are withheld for ")]
    assert two == ["bands of the curves are withheld for B: with 2 runs of a task, half of a task's resamples repeat "
                   "one run, and no band simulated at 2 runs per task held its level over score distributions; add "
                   "runs (at least 3 per agent and task)"]
    assert any(n.startswith("bands of the curves (and their standard errors) are withheld for A at 3 steps (0 to 20), "
                            "where t0 has one run logged") for n in res.notes)


def test_comparison_note_when_every_step_is_withheld():
    """A has 1, 5, 5 runs (cv6): A vs B and A vs C are compared at no step; the note says so, not that "the other
    steps' p-values are still adjusted"."""
    res = _curves({"A": {"t0": 1, "t1": 5, "t2": 5}, "B": {"t0": 4, "t1": 4, "t2": 4},
                   "C": {"t0": 3, "t1": 3, "t2": 3}}, compare="all")
    (note,) = [n for n in res.notes if n.startswith("curve comparisons are withheld")]
    assert note == ("curve comparisons are withheld for A vs B and A vs C at 3 steps (0 to 20), where t0 has one run "
                    "of A logged: as the bands, a comparison needs at least 2 runs per agent and task logged at the "
                    "step (one run gives no spread of its own); no step of these pairs is compared; A has one run of "
                    "t0 in all: add runs to it")  # its one run is all it has (bfix31), not runs that end early


def _pl1():
    rng = np.random.default_rng(1)
    rows = [(a, t, s, rng.normal(0, 1)) for a, tasks in [("A", ["t0", "t1", "t2"]), ("B", ["t0", "t1", "t2"]),
                                                         ("C", ["t2"])] for t in tasks for s in range(5)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_default_figure_keeps_pairs_with_per_task_tests_only():
    """A, B on t0-t2, C on t2 only (pl1): A vs B's across-tasks and aggregate rows, and A vs C's and B vs C's t2
    rows (their only intervals); titled as a result of 3 pairs (no "A - B" line)."""
    import matplotlib.pyplot as plt

    res = rlstats.equivalence(_pl1(), "score ~ agent | task", margin=1.0, rng=3, n_resamples=200, na_action="drop")
    ax = res.plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "A - B: across tasks", "A - B: aggregate (IQM)", "A - C: t2", "B - C: t2"]
    assert ax.get_title() == "Two one-sided tests (TOST) of equivalence"
    plt.close(ax.figure)
    # scopes= chosen: a pair with no interval in them is said below the axis
    ax = res.plot(scopes="aggregate")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A - B: aggregate (IQM)"]
    assert ax.get_title() == "Two one-sided tests (TOST) of equivalence"
    assert ax.get_xlabel().endswith("\nnot drawn (no interval in these scopes): A - C, B - C")
    plt.close(ax.figure)


def test_task_table_one_task_every_agent_ran():
    """A on t0, t1; B on t0, t1, t2; C on t0, t2: with na_action="drop" the mean reads t0 alone."""
    rng = np.random.default_rng(0)
    rows = [(a, t, s, rng.normal()) for a, tasks in [("A", ["t0", "t1"]), ("B", ["t0", "t1", "t2"]),
                                                     ("C", ["t0", "t2"])] for t in tasks for s in range(5)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = rlstats.task_table(df, "score ~ agent | task", aggregate="bootstrap", na_action="drop", rng=0)
    assert res._aggregated() == "mean of the task means of the 1 task every agent ran"


def test_cost_with_every_aggregate_withheld(caplog):
    """Every pair shares one task: no bootstrap runs, and the estimate says so; its seconds are the call's own and the
    3 pairs' tests on the one task (audit s39 eq39: 0.018 s, and 0.6 ms a pair + 33 us a task; s32 rfix32's 2.7 ms a
    pair + 30 us a task before each pair's work was read in one pass)."""
    df = _pl1()
    df = df[df["task"] == "t2"]
    with caplog.at_level(logging.DEBUG, logger="rlstats.cost"):
        rlstats.equivalence(df, "score ~ agent | task", margin=1.0, rng=0, n_resamples=200)
    # the last estimate is the whole call's: the pairs' tests alone are estimated first, a bound below it (s37 bounds37)
    work = [r.work for r in caplog.records if r.name == "rlstats.cost" and r.getMessage().startswith("equivalence")][-1]
    assert work.seconds == pytest.approx(0.018 + 3 * (6e-4 + 3.3e-5))
    assert work.what == "no bootstrap (every pair's aggregate is withheld) + 3 pairs' tests + the call's own 0.018 s"
