"""Audit s28 (design28): does what each result says fit the design it analysed, on awkward designs?

Simulated and hand-built designs (incomplete and disconnected, one run in some cells, 3 against 10 runs, ties,
caps, identical agents, one and two tasks, NaN scores with na_action, Categorical levels, names that sort apart
from their order, integer tasks) were run through every back end of ``rlstats.compare`` and the standalone
functions, reading print, summary(), report(), to_latex() and tidy(), and checked for invariance to row order,
category order and units (x1000). What earlier audits had not covered, and was wrong:

1. An incomplete design in which no task has runs of every agent was refused with the way on
   'pass na_action="drop" to leave out the N task(s)' -- N being every task, and that call then refused
   again ("no task has runs of every agent"). The refusal now says that dropping incomplete tasks would leave
   none, and offers leaving agents out instead.
2. ``bootstrap(task_bootstrap=True)`` and ``performance_profile(task_bootstrap=True)`` ("intervals for a population
   of tasks") gave percentile intervals on any number of tasks with no word of their level. On one task every
   resample of tasks is that task: the intervals were those of its runs alone (which the default withholds below 20
   runs), titled "runs and tasks resampled". On n tasks a quantile of the resampled statistic lies within the range
   of its values on the tasks drawn (widened only by the runs' noise), and n draws straddle a population's median
   with probability 1 - 2^(1 - n): 0.5 at 2 tasks, 0.75 at 3, 0.94 at 5. Measured
   (``tests/reference/task_bootstrap_few_tasks.py``, 200 data sets a design): nominal 95% intervals of the mean
   covered 0.645 at 2 tasks, 0.76 at 3, 0.875 at 5. Now: withheld on one task with a note, and a note with the
   closed-form ceiling where it is below the level (5 tasks or fewer at 95%).
3. bayes()' note of runs at a score cap listed a pair's tasks and then each agent's count "there", counted over that
   agent's own capped tasks only: "A vs C on 3 of 4 tasks (t1, t2, t3; A 5 of its 5 runs there, C 13 of its 15 runs
   there)", where A held 5 of its 15 runs on those tasks at the cap, all on t1. An agent's tasks are now named where
   they are not all the pair's.
4. The task table's caption (what to_latex() sets over the table) read "Mean ± standard deviation over 5 runs
   (seeds) per agent and task (2 cells without: too few runs)" when those 2 cells held one run each: "over 5 runs"
   read of them too. It now says "(2 cells of 1 run: the mean alone)".
5. AdaStop and the permutation test with ``comparisons=`` naming only pairs that never shared a task failed with a
   pandas ``KeyError: 'reason'`` (no decision row to build a table of). It is now a DesignError naming the pairs.
6. The task table's aggregate row quoted the bootstrap's note of intervals it withheld word for word, way on and all:
   "add runs, or use task_bootstrap=True ... or interval=\"percentile\"", options task_table() does not take (an
   OptionError). The note now says they are rlstats.bootstrap()'s.
7. bayes() refused a design with a pair that never shared a task with the way on "subset= the agents that share
   tasks", an option bayes() does not take. It now offers control= an agent that met every other (which then runs)
   or rlstats.compare's subset=, and names the groups of a design split apart with the subset selecting each.
   (Since audit s28 bayespair28 there is no refusal: the pairs that met are compared, the others withheld.)
"""
import itertools
import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError


def _chain(rng=2, runs=3):
    """A-B share tasks 1-3, B-C tasks 4-6: connected, but no task holds every agent."""
    df = rlstats.datasets.simulate(["A", "B", "C"], 6, runs, rng=rng)
    tasks = sorted(df.task.unique())
    gone = ((df.agent == "A") & df.task.isin(tasks[3:])) | ((df.agent == "C") & df.task.isin(tasks[:3]))
    return df[~gone].reset_index(drop=True)


def test_no_complete_task_refusal_does_not_offer_dropping_every_task():
    df = _chain()
    with pytest.raises(DesignError) as refused:
        rlstats.bootstrap(df, "score ~ agent | task", progress=False)
    message = str(refused.value)
    # the way on it offers must not be the call that is refused next
    with pytest.raises(DesignError, match="no task has runs of every agent"):
        rlstats.bootstrap(df, "score ~ agent | task", na_action="drop", progress=False)
    assert 'or pass na_action="drop"' not in message  # not alone: with the subset (audit s28 ways28)
    assert "no task has runs of every agent" in message
    # the rows it offers keep the agents of one task, which then share tasks: the way on leads somewhere (said as
    # rlstats.bootstrap takes it, a mask of the rows, since audit s35 bench35; compare's subset= before)
    condition = message.split("a boolean mask of the rows where ")[-1].split(" holds)")[0]
    assert condition == "agent not in ['C']"
    assert message.endswith('and na_action="drop" to rlstats.bootstrap (it keeps the 2 agents that ran \'task_01\', '
                            'on the tasks where all of them ran)')
    res = rlstats.bootstrap(df.query(condition), "score ~ agent | task", na_action="drop",
                            metrics=["mean"], n_resamples=200, progress=False, rng=1, normalize=False)
    assert set(res.tidy().agent) == {"A", "B"}


# ----------------------------------------------------------------------------- 2. tasks resampled from few tasks


def _flat_cells(n_tasks, rng=0):
    """Two agents whose runs are constant within each cell: a resample of tasks is then a sample of task means."""
    gen = np.random.default_rng(rng)
    rows = [(agent, f"t{t}", k, value) for agent in ("A", "B") for t, value in enumerate(gen.normal(0, 1, n_tasks))
            for k in range(3)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_the_ceiling_the_note_quotes_is_the_chance_that_n_draws_straddle_their_median():
    # exhaustive: each of n continuous draws lies above or below the median with probability 1/2, independently
    for n in (2, 3, 4, 5, 6):
        straddle = sum(0 < sum(signs) < n for signs in itertools.product((0, 1), repeat=n)) / 2 ** n
        assert straddle == pytest.approx(1 - 2.0 ** (1 - n))
    # and the premise: with no spread within cells the interval of the mean lies within the task means' range
    df = _flat_cells(3)
    res = rlstats.bootstrap(df, "score ~ agent | task", task_bootstrap=True, metrics=["mean"], n_resamples=300,
                            interval="percentile", rng=1, progress=False, normalize=False)
    means = df.groupby(["agent", "task"]).score.mean()
    for agent, low, high in res.tidy()[["agent", "conf_low", "conf_high"]].itertuples(index=False):
        assert means[agent].min() - 1e-12 <= low <= high <= means[agent].max() + 1e-12


def test_one_task_resampled_as_tasks_withholds_the_intervals():
    df = rlstats.datasets.simulate(2, 1, 5, rng=3)
    res = rlstats.bootstrap(df, "score ~ agent | task", task_bootstrap=True, n_resamples=200, rng=1, progress=False,
                            metrics=["mean", "iqm"], normalize=False)
    assert np.isnan(res.intervals).all()
    assert np.isnan(res.confidence_interval(0.8)[["conf_low", "conf_high"]].to_numpy()).all()
    assert any(n.startswith("intervals withheld: task_bootstrap=True") and "one task" in n for n in res.notes)
    assert res.withheld_notes and "(interval withheld)" in res.report()
    profile = rlstats.performance_profile(df, "score ~ agent | task", task_bootstrap=True, n_resamples=200, rng=1,
                                          progress=False, normalize=False)
    assert np.isnan(profile.intervals).all()
    assert any(n.startswith("bands withheld: task_bootstrap=True") for n in profile.notes)


@pytest.mark.parametrize("n_tasks, ceiling", [(2, "0.5"), (3, "0.75"), (5, "0.938")])
def test_few_tasks_resampled_quote_their_ceiling(n_tasks, ceiling):
    df = _flat_cells(n_tasks)
    res = rlstats.bootstrap(df, "score ~ agent | task", task_bootstrap=True, metrics=["mean"], n_resamples=200,
                            interval="percentile", rng=1, progress=False, normalize=False)
    assert np.isfinite(res.intervals).all()
    said = [n for n in res.notes if n.startswith("with tasks resampled (task_bootstrap=True)")]
    assert len(said) == 1 and f"= {ceiling} of samples of {n_tasks} tasks" in said[0] and "short of 95%" in said[0]
    latex = res.to_latex()  # the note goes with the table pasted into a paper
    assert f"task\\_bootstrap=True) from {n_tasks} tasks" in latex and f"{ceiling} of samples" in latex


def test_six_tasks_and_other_levels_follow_the_closed_form():
    df = _flat_cells(6)
    quiet = rlstats.bootstrap(df, "score ~ agent | task", task_bootstrap=True, metrics=["mean"], n_resamples=200,
                              interval="percentile", rng=1, progress=False, normalize=False)  # 1 - 2^-5 = 0.969 >= 0.95
    # no ceiling clause; since audit s28 taskboot28 the coverage measured on 5 and 10 tasks is quoted instead (the
    # ceiling is not the coverage: tests/test_audit_s28_taskboot28.py)
    said = [n for n in quiet.notes if "task_bootstrap=True) from 6 tasks" in n]
    assert len(said) == 1 and "2^(1 - 6)" not in said[0] and "in simulations on 5 and 10 tasks" in said[0]
    strict = rlstats.bootstrap(df, "score ~ agent | task", task_bootstrap=True, metrics=["mean"], n_resamples=200,
                               interval="percentile", rng=1, progress=False, normalize=False, confidence_level=0.99)
    assert any("= 0.969 of samples of 6 tasks" in n and "short of 99%" in n for n in strict.notes)


# ----------------------------------------------------------------------------- 3. whose runs sit at the cap, where


def test_bayes_cap_note_names_each_agents_own_capped_tasks():
    cap = 500.0
    below = [310.0, 350.0, 390.0, 420.0, 460.0]
    runs = {("A", "t1"): [cap] * 5, ("A", "t2"): below, ("A", "t3"): [v - 20 for v in below],
            ("A", "t4"): [v - 40 for v in below],
            ("C", "t1"): [cap] * 5, ("C", "t2"): [cap] * 4 + [470.0], ("C", "t3"): [cap] * 3 + [440.0, 480.0],
            ("C", "t4"): [v + 10 for v in below]}
    df = pd.DataFrame([(a, t, k, v) for (a, t), values in runs.items() for k, v in enumerate(values)],
                      columns=["agent", "task", "seed", "score"])
    res = rlstats.bayes(df, "score ~ agent | task", n_samples=2000, rng=1, progress=False)
    note = next(n for n in res.notes if "as at a score cap" in n)
    # counted from the frame: A's capped runs all on t1 (5 of its 5 there); C's on t1-t3, 12 of its 15 runs there
    at_cap = df[df.score == cap].groupby("agent").size()
    assert at_cap["A"] == 5 and at_cap["C"] == 12
    assert "on 3 of 4 tasks (t1, t2, t3; A 5 of its 5 runs on t1, C 12 of its 15 runs there)" in note


# ----------------------------------------------------------------------------- 4. the runs behind a bare cell


def test_task_table_caption_says_the_runs_of_cells_without_a_deviation():
    df = rlstats.datasets.simulate(["A", "B", "C"], 3, 5, rng=4)
    keep = ~((df.agent == "A") & df.task.isin(["task_01", "task_02"]) & (df.groupby(["agent", "task"], observed=True)
                                                                         .cumcount() > 0))
    res = rlstats.task_table(df[keep], "score ~ agent | task", rng=0, progress=False)
    runs = df[keep].groupby(["task", "agent"], observed=True).size()
    assert sorted(runs[runs == 1].index.tolist()) == [("task_01", "A"), ("task_02", "A")]  # the cells bare of a sd
    assert res.caption().startswith("Mean \u00b1 standard deviation over 5 runs (seeds) per agent and task (2 cells "
                                    "of 1 run: the mean alone). ")
    assert "2 cells of 1 run: the mean alone" in res.to_latex()


# ----------------------------------------------------------------------------- 5. comparisons of agents never met


@pytest.mark.parametrize("method", ["adastop", "permutation"])
def test_comparisons_of_agents_that_never_met_are_refused_by_name(method):
    df = _chain(runs=5)  # A-C share no task
    n = {"n": 5} if method == "adastop" else {}
    with pytest.raises(DesignError, match=r"no comparison asked for has a task on which both its agents ran "
                                          r"\(A-C: it shares no task\)"):
        rlstats.compare(df, "score ~ agent | task", method=method, comparisons=[("A", "C")], progress=False, **n)
    # a pair that met beside it is still tested, the other said in the note
    res = rlstats.compare(df, "score ~ agent | task", method=method, comparisons=[("A", "C"), ("A", "B")],
                          progress=False, rng=1, **n)
    assert set(zip(res.tidy().agent_1, res.tidy().agent_2)) == {("A", "B")}
    assert any("A-C share no task and is compared on none" in n for n in res.notes)


# ----------------------------------------------------------------------------- 6. whose options a quoted note names


def test_task_table_aggregate_row_says_whose_options_the_quoted_way_on_names():
    df = rlstats.datasets.simulate(["A", "B", "C"], 4, 5, rng=4)
    keep = ~((df.agent == "A") & (df.task == "task_01") & (df.groupby(["agent", "task"], observed=True)
                                                           .cumcount() > 0))
    res = rlstats.task_table(df[keep], "score ~ agent | task", aggregate="bootstrap", n_resamples=200, rng=1,
                             progress=False)
    said = [n for n in res.notes if "task_bootstrap=True" in n]
    assert len(said) == 1 and said[0].startswith("the aggregate row's intervals, from rlstats.bootstrap() (the "
                                                 "options named are bootstrap()'s, not task_table()'s): studentized")
    with pytest.raises(rlstats.OptionError, match="task_bootstrap"):  # the way on is indeed not task_table()'s
        rlstats.task_table(df[keep], "score ~ agent | task", aggregate="bootstrap", task_bootstrap=True)


# ----------------------------------------------------------------------------- 7. bayes' way on past a never-met pair


def test_bayes_never_met_pair_is_withheld_and_control_still_runs():
    # audit s28 bayespair28 (a deliberate change): the refusal is gone; bayes() compares the pairs that met and
    # withholds the one that did not, as rlstats.equivalence does (tests/test_audit_s28_bayespair28.py)
    df = _chain(runs=5)
    res = rlstats.bayes(df, "score ~ agent | task", n_samples=500, rng=1, progress=False)
    tidy = res.tidy()
    assert tidy[["agent_1", "agent_2", "n_tasks"]].values.tolist() == [["A", "B", 3], ["A", "C", 0], ["B", "C", 3]]
    assert tidy["p_better"].isna().tolist() == [False, True, False]
    assert any(n.startswith("1 pair of agents never ran on a common task (A-C)") for n in res.notes)
    res = rlstats.bayes(df, "score ~ agent | task", control="B", n_samples=500, rng=1, progress=False)
    assert res.tidy()[["agent_1", "agent_2", "n_tasks"]].values.tolist() == [["A", "B", 3], ["C", "B", 3]]
    apart = pd.concat([df[~((df.agent == "B") & df.task.isin(["task_04", "task_05", "task_06"]))],
                       df[df.agent == "C"].assign(agent="D")], ignore_index=True)  # {A, B} on 1-3, {C, D} on 4-6
    res = rlstats.bayes(apart, "score ~ agent | task", n_samples=500, rng=1, progress=False)
    assert res.tidy().loc[res.tidy()["n_tasks"] > 0, ["agent_1", "agent_2"]].values.tolist() == [["A", "B"],
                                                                                                 ["C", "D"]]
