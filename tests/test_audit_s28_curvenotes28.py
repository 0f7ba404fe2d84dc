"""Audit s28 (meta28), curvenotes28: notes of curves() and summarize_runs() true of the rows analysed.

1. curves(): the notes on steps where a task has one run of an agent logged (bands withheld; comparisons withheld,
   audit s27 curvecmp27), 2 runs logged (studentised bands withheld) or none logged (curve missing) pooled the tasks
   over the steps: "at 4 steps (500k to 800k), where t1 and t2 have one run of agent_3 logged" where t2 had one run
   at 700k-800k only and two or more runs at 500k-600k. They now say each task's steps, tasks at the same steps
   together, past 4 groups the other tasks counted ("and on 6 more tasks at other steps"); where every task named is
   at every step counted, the words of before stay.
2. summarize_runs(): its notes on the rows na_action="drop" dropped ("2 of 143 rows dropped"), on the grid steps not
   read for them, and on values filled or interpolated at a grid step a run did not log were notes of the frame as a
   whole: after any subset of the runs (subset=, or pandas) none was shown, though the runs they named were kept, and
   the rule of how='max' | 'last_k_mean' | 'time_to_threshold' with steps= (logged values within its range) went
   too. They are now bound to the runs they name and said again of the runs kept (the drop's count is of those
   runs' rows, not of the frame's); the rule is a note of every run.
"""

import dataclasses

import numpy as np
import pandas as pd

import rlstats

STEP = 100_000


def _frame(stops, n_steps=9, seed=0, short=("agent_3",), reach=1):
    """agent_1 and agent_3 with 5 runs per task; the runs of the agents in ``short`` but the first ``reach`` end at
    step ``stops[task]`` - 1 on each task, so that from ``stops[task]`` on the task has ``reach`` runs of that agent
    logged."""
    rng = np.random.default_rng(seed)
    rows = []
    for agent in ("agent_1", "agent_3"):
        for task, stop in stops.items():
            for s in range(5):
                last = n_steps if agent not in short or s < reach else stop
                base = rng.normal()
                lift = 1.0 if agent == "agent_3" else 0.0
                rows += [(agent, task, s, k * STEP, base + lift * k / n_steps + 0.3 * rng.normal())
                         for k in range(last)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def _curves(df, **options):
    return rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic="mean", n_resamples=100, rng=1,
                          **{"compare": "all", **options})


def _note(res, start):
    found = [n for n in res.notes if n.startswith(start)]
    assert len(found) == 1, res.notes
    return found[0]


def test_one_run_notes_say_each_task_at_its_steps():
    """By construction t1 has one run of agent_3 logged from 500k (stop 5) and t2 from 700k (stop 7) to the last
    grid step, 800k. Before, both notes said 't1 and t2 have one run ... logged' of 500k to 800k."""
    res = _curves(_frame({"t1": 5, "t2": 7}))
    where = "on t1 at steps 500k to 800k and on t2 at steps 700k to 800k"
    assert _note(res, "bands of the curves (and their standard errors)").startswith(
        f"bands of the curves (and their standard errors) are withheld for agent_3 at 4 steps (500k to 800k), where "
        f"it has one run logged {where}: ")
    assert _note(res, "curve comparisons are withheld").startswith(
        f"curve comparisons are withheld for agent_1 vs agent_3 at 4 steps (500k to 800k), where agent_3 has one run "
        f"logged {where}: ")
    # what the notes say is what was withheld: the comparison at 500k-800k, agent_3's bands there
    np.testing.assert_array_equal(res.difference_withheld[0], res.steps >= 5 * STEP)
    assert np.isnan(res.simultaneous[1, 5:]).all() and not np.isnan(res.simultaneous[1, :5]).any()


def test_every_task_at_every_step_keeps_its_words():
    res = _curves(_frame({"t1": 5, "t2": 5}))
    assert "at 4 steps (500k to 800k), where t1 and t2 have one run of agent_3 logged: " in _note(
        res, "curve comparisons are withheld")


def test_both_agents_and_many_tasks():
    """Each agent's tasks with their steps, the agents apart by a comma; 14 tasks in 7 groups of 2 (stop 2 + i % 7):
    4 groups named in the order of their first step, the other 6 tasks counted."""
    both = _curves(_frame({"t1": 5, "t2": 7}, short=("agent_1", "agent_3")))
    where = "on t1 at steps 500k to 800k and on t2 at steps 700k to 800k"
    assert (f"at 4 steps (500k to 800k), where agent_1 has one run logged {where}, and agent_3 has one run logged "
            f"{where}: ") in _note(both, "curve comparisons are withheld")
    many = _curves(_frame({f"t{i}": 2 + i % 7 for i in range(14)}), compare=None)
    assert ("agent_3 at 7 steps (200k to 800k), where it has one run logged on t0 and t7 at steps 200k to 800k, on t1 "
            "and t8 at steps 300k to 800k, on t2 and t9 at steps 400k to 800k, on t10 and t3 at steps 500k to 800k "
            "and on 6 more tasks at other steps: ") in _note(many, "bands of the curves (and their standard errors)")


def test_two_run_and_unlogged_notes_say_each_task_at_its_steps():
    """Two runs of agent_3 reach the end on t1 from 500k and on t2 from 700k (the studentised bands' rule of 3 runs);
    with every run of agent_3 ending early and steps= the whole grid, t1 has none logged from 500k, t2 from 700k."""
    res = _curves(_frame({"t1": 5, "t2": 7}, reach=2), compare=None)
    assert _note(res, "bands of the curves are withheld").startswith(
        "bands of the curves are withheld for agent_3 at 4 steps (500k to 800k), where it has 2 runs logged on t1 at "
        "steps 500k to 800k and on t2 at steps 700k to 800k: ")
    none = _curves(_frame({"t1": 5, "t2": 7}, reach=0), steps=np.arange(9) * STEP, compare=None)
    assert ("agent_3 has no run logged at 4 steps (500k to 800k): on t1 at steps 500k to 800k and on t2 at steps "
            "700k to 800k; ") in _note(none, "curves and bands are missing")
    assert np.isnan(none.estimates[1, 5:]).all() and not np.isnan(none.estimates[1, :5]).any()


# 2. summarize_runs(): notes on runs it dropped rows of, read through other values or read within steps=


def _runs_frame():
    """2 agents x 3 tasks x 4 runs logged at 0, 200k, ..., 1M; two scores missing (agent_1's run 0 on task_01 at 1M,
    agent_2's run 1 on task_02 at 400k) and one row absent (agent_2's run 1 on task_03 at 600k)."""
    df = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=4, steps=6, rng=0)
    cell = lambda agent, task, seed, step: ((df["agent"] == agent) & (df["task"] == task)  # noqa: E731
                                           & (df["seed"] == seed) & (df["step"] == step))
    df.loc[cell("agent_1", "task_01", 0, 1_000_000) | cell("agent_2", "task_02", 1, 400_000), "score"] = np.nan
    return df[~cell("agent_2", "task_03", 1, 600_000)].reset_index(drop=True)


_GRID = [0, 200_000, 400_000, 600_000, 800_000, 1_000_000]
_ROW_01 = ("1 row of 1 run dropped (na_action=\"drop\", a missing or not finite value) before the runs were "
           "summarised: run '0' of agent 'agent_1' on task 'task_01' (1 row)")
_CELL_01 = ("1 grid step of 1 run not read because its value would come from a row dropped by na_action='drop' (a "
            "dropped row is not used, nor filled in by the value of the step before): run '0' of agent 'agent_1' on "
            "task 'task_01' at step 1M")


def _analysed(runs, subset):
    """The notes of compare() on the runs ``subset`` keeps: by subset=, and by a pandas subset."""
    by_option = rlstats.compare(runs, "score ~ agent | task/seed", subset=subset).notes
    by_pandas = rlstats.compare(runs.query(subset), "score ~ agent | task/seed").notes
    return by_option, by_pandas


def test_drop_notes_follow_the_runs_a_subset_keeps():
    """The rows dropped and the grid steps not read belong, by construction, to agent_1's run 0 on task_01 (at 1M)
    and agent_2's run 1 on task_02 (at 400k). Before, both notes were notes of the frame as a whole: after any subset
    neither was shown, the kept run's drop included."""
    runs = rlstats.summarize_runs(_runs_frame(), "score ~ agent | task/seed", step="step", steps=_GRID,
                                  na_action="drop")
    notes = runs.attrs["rlstats_notes"]
    assert notes[0] == "2 of 143 rows dropped (na_action=\"drop\"): 2 with missing values in 'score'"  # as read
    assert notes[2].startswith("2 grid steps of 2 runs not read")
    for said in _analysed(runs, "task == 'task_01'"):
        assert _ROW_01 in said and _CELL_01 in said
        assert not any("'task_02'" in n or "of 143 rows" in n for n in said)
    for said in _analysed(runs, "task == 'task_03'"):  # neither run kept: nothing of their drops
        assert not any("dropped" in n for n in said)
    for said in _analysed(runs, "task != 'task_01'"):
        assert _ROW_01.replace("'0' of agent 'agent_1' on task 'task_01'", "'1' of agent 'agent_2' on task "
                               "'task_02'") in said
        assert not any("task 'task_01'" in n for n in said)


def test_filled_and_within_notes_follow_the_runs_a_subset_keeps():
    """agent_2's run 1 on task_03 did not log 600k: its area reads 600k from 400k (align's rule), the one value filled;
    how='max' with steps= reads the logged values within their range, a rule of every run."""
    df = _runs_frame().fillna({"score": 0.0})
    area = rlstats.summarize_runs(df, "score ~ agent | task/seed", step="step", how="auc", steps=_GRID)
    filled = ("1 value of 1 run filled from the run's previous evaluation (a grid step it did not log): run '1' of "
              "agent 'agent_2' on task 'task_03' at step 600k")
    assert filled in area.attrs["rlstats_notes"]
    for said in _analysed(area, "task == 'task_03'"):
        assert filled in said
    for said in _analysed(area, "task != 'task_03'"):
        assert not any("filled" in n for n in said)
    largest = rlstats.summarize_runs(df, "score ~ agent | task/seed", step="step", how="max", steps=_GRID[:4])
    within = ("how='max' reads each run's logged values within the range of steps= (steps 0 to 600k), not values "
              "aligned to its grid")
    for said in _analysed(largest, "task == 'task_02'"):
        assert within in said


def test_align_steps_notes_follow_the_runs_a_subset_keeps():
    """align_steps' notes of the same rows (its cells left out, filled): before, notes of the frame as a whole."""
    aligned = rlstats.align_steps(_runs_frame(), "score ~ agent | task/seed", step="step", steps=_GRID,
                                  na_action="drop")
    assert aligned.attrs["rlstats_notes"][2].startswith("2 grid steps of 2 runs left out of the aligned rows")

    def analysed(subset):
        return rlstats.curves(aligned, "score ~ agent | task/seed", step="step", subset=subset, n_resamples=20,
                              rng=0, na_action="drop").notes

    kept = analysed("task == 'task_01'")
    assert _ROW_01.replace("summarised", "aligned") in kept
    assert _CELL_01.replace("not read", "left out of the aligned rows") in kept
    assert not any("filled from" in n for n in kept)
    other = analysed("task == 'task_03'")
    assert not any("dropped" in n for n in other)
    assert ("1 value of 1 run filled from the run's previous evaluation (a grid step it did not log): run '1' of agent "
            "'agent_2' on task 'task_03' at step 600k") in other


# 3. curves(): the prose's run count where runs end early


def test_prose_says_where_fewer_runs_are_logged():
    """The prose said '(5 runs per agent and task) at each of 9 steps' where, by construction, agent_3 had one run of
    t1 logged from 500k and of t2 from 700k, and (steps=) none of either from 500k and 700k in the second frame."""
    res = _curves(_frame({"t1": 5, "t2": 7}), compare=None)
    np.testing.assert_array_equal(res.fewest_logged, [[5] * 9, [5] * 5 + [1] * 4])
    assert ("over 2 tasks (5 runs per agent and task, fewer at the steps some runs do not reach: agent_3 down to 1 run "
            "of a task at steps 500k-800k) at each of 9 steps") in res._prose()
    full = _curves(_frame({"t1": 9, "t2": 9}), compare=None)  # every run reaches every step: nothing said
    assert "(5 runs per agent and task) at each of 9 steps" in full._prose()
    # the step count with its thousands separator, as the print's "steps = 1,998" (the SB3 monitor logs' grid)
    many = dataclasses.replace(full, steps=np.arange(1, 1999) * 10, fewest_logged=None)
    assert "at each of 1,998 steps from 10 to 19.98k." in many._prose()
    none = _curves(_frame({"t1": 5, "t2": 7}, reach=0, short=("agent_1", "agent_3")), steps=np.arange(9) * STEP,
                   compare=None)
    assert ("(5 runs per agent and task, fewer at the steps some runs do not reach: agent_1 and agent_3 no run of a "
            "task at steps 500k-800k)") in none._prose()


def test_range_note_names_the_runs_that_start_late():
    """agent_3's runs on t2 start at 300k (by construction), every run ends at 800k: the curves start at 300k. Before,
    the note said 'the runs of agent_1 on t1, agent_3 on t1, agent_1 on t2, agent_3 on t2 stop at 800k', which cut
    nothing, and not why the range starts at 300k; align_steps' grid note likewise."""
    df = _frame({"t1": 9, "t2": 9})
    late = df[~((df["agent"] == "agent_3") & (df["task"] == "t2") & (df["step"] < 3 * STEP))]
    assert ("curves cover steps 300k to 800k, within the steps every agent reaches on every task (the runs of agent_3 "
            "on t2 start at 300k), so that") in _note(_curves(late, compare=None), "curves cover")
    both = late[~((late["agent"] == "agent_1") & (late["task"] == "t1") & (late["step"] > 6 * STEP))]
    assert ("(the runs of agent_3 on t2 start at 300k; those of agent_1 on t1 stop at 600k)"
            in _note(_curves(both, compare=None), "curves cover"))
    aligned = rlstats.align_steps(both, "score ~ agent | task/seed", step="step")
    assert ("each task's grid stays within the steps every agent reaches there (the runs of agent_3 on t2 start where "
            "their task's grid starts; those of agent_1 on t1 stop where their task's grid ends); ") in \
        aligned.attrs["rlstats_notes"][1]


def test_verdict_says_the_steps_not_compared_where_a_curve_is_missing():
    """With steps= the whole grid, agent_3 has no run of t1 logged from 600k (every run ends at 500k by construction):
    its curve, the difference and its p-value are missing there. Before, the line read 'agent_3 above agent_1 at steps
    0-500k', as if 600k-800k had been compared and found alike."""
    df = _frame({"t1": 6, "t2": 9}, reach=0, seed=3)
    df.loc[df["agent"] == "agent_3", "score"] += 2.0
    res = _curves(df, steps=np.arange(9) * STEP)
    assert np.isnan(res.differences[0, 6:]).all() and not np.isnan(res.differences[0, :6]).any()
    line = ("agent_3 above agent_1 at steps 0-500k; not compared at steps 600k-800k (a curve missing there, see the "
            "notes)")
    assert res._verdicts()[0][1] == line and f"  {line}" in str(res).splitlines()
    import matplotlib.pyplot as plt
    ax = res.plot(kind="difference")
    assert ax.get_legend().get_title().get_text().replace("\n", " ") == line.split("; ")[1]
    plt.close(ax.figure)


def test_long_lists_of_steps_count_the_steps_left():
    """7 of agent A's 8 runs sit at the task's largest score (10) at steps 1k-2k, 5k-6k, ..., 29k-30k (k % 4 in 1, 2;
    by construction): 16 steps in 8 stretches, the bands withheld there. Six stretches are listed; before, 'and 2
    more' counted the other stretches beside '16 steps', read as 2 more steps; now the 4 steps left are counted."""
    rng = np.random.default_rng(0)
    rows = [(agent, "t1", s, k * 1000, 10.0 if agent == "A" and k % 4 in (1, 2) and s < 7
             else min(9.0, 5 + rng.normal())) for agent in ("A", "B") for s in range(8) for k in range(32)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    res = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=20, rng=0, statistic="mean")
    assert _note(res, "bands of the curves are withheld").startswith(
        "bands of the curves are withheld for A at 16 steps (1k-2k, 5k-6k, 9k-10k, 13k-14k, 17k-18k, 21k-22k and 4 "
        "more steps): there three quarters or more")


def test_steps_with_fewer_runs_widened_and_their_df_at_those_runs():
    """One task, 5 runs of each agent, 2 of agent_3's ending at 400k (by construction): 3 logged from 500k. The
    Welch-Satterthwaite df of one task is n - 1 (closed form): 4 where 5 runs are logged, 2 where 3 are. Before, 4 at
    every step, and the deviations widened by sqrt(5/4) there too (the design's 5 runs): on SpinningUp HalfCheetah, 10
    runs of SAC and TD3 with 5 of SAC's cut at 300k, 'df = 9' was said of the steps of 5 runs and its t-expanded band
    was 0.77 times as wide as at their df (t quantile 2.262 for 2.776, widening 1.054 for 1.118). Complete curves keep
    their df and bands bit for bit (the other curves tests pin them)."""
    res = _curves(_frame({"t1": 5}, reach=3), compare=None, bands="expanded")
    np.testing.assert_array_equal(res.df, [[4.0] * 9, [4.0] * 5 + [2.0] * 4])
    assert ("bootstrap deviations widened by sqrt(n/(n - 1)) with n = 5 runs per task, and at the steps some runs do "
            "not reach the fewest runs of a task logged there (agent_3 down to 3 at steps 500k to 800k), because ") in \
        _note(res, "bootstrap deviations widened")
    # two tasks, 5 runs of t2 and 3 of t1 logged from 500k: the Welch-Satterthwaite df lies within [2, 4 + 2] (it
    # read 6.30-7.96 there before, past the sum of the tasks' n - 1)
    two = _curves(_frame({"t1": 5, "t2": 9}, reach=3), compare=None, bands="expanded")
    assert (two.df[1, 5:] <= 6 + 1e-9).all() and (two.df[1, 5:] >= 2).all()
