"""Audit s23 review23b: review of ada23 and prov23 (the notes build re-states for the rows it analyses; one home for
"did you mean")."""

import numpy as np
import pandas as pd

import rlstats


def _nested_one_agent_task():
    """2 agents x 3 tasks x 2 runs x 2 seeds, task_03 run by agent_1 alone; min-max normalised by rlstats.normalize."""
    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0)
    data["run"] = data["seed"] // 2
    data = data[~((data["task"] == "task_03") & (data["agent"] == "agent_2"))].reset_index(drop=True)
    return rlstats.normalize(data, "minmax")


def test_nested_seeds_a_minmax_note_names_a_task_kept_out():
    """As prov23's test of '| task/seed', through the seeds nested in runs: the test keeps task_03 out, and the
    min-max note must give the bounds of task_01 and task_02 alone (as '| task/seed' does)."""
    res = rlstats.compare(_nested_one_agent_task(), "score ~ agent | task/run/seed")
    plain = rlstats.compare(_nested_one_agent_task(), "score ~ agent | task/seed")
    assert plain.notes[0].endswith("(before these rows were selected): task_01 -2.5537 to 19.542, task_02 1.5192 "
                                   "to 2.2064")
    assert res.notes[0].startswith("seeds ('seed') averaged within each run")
    assert res.notes[1] == plain.notes[0], res.notes
    assert "task_03 14.061" not in " ".join(res.notes)


def _nested_notes(**options):
    from rlstats.design import design_of

    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0)
    data["run"] = data["seed"] // 2
    return design_of(data, "score ~ agent | task/run/seed", eval_env=0, **options).notes


def test_nested_seeds_minmax_bounds_of_a_subset_are_said_so():
    """subset= keeps task_01 and task_02 (16 of 24 rows); the run means' bounds are those of the rows kept, as the
    note said before s23 (a14c48f3) and as it says without the nesting."""
    notes = _nested_notes(subset="task != 'task_03'", normalize="minmax")
    assert notes == (
        "seeds ('seed') averaged within each run: the run is the unit, 2 runs of 2 seeds per agent and task",
        "subset=\"task != 'task_03'\" kept 16 of 24 rows",
        "'score' normalised per task as (score - min) / (max - min) with min and max the smallest and largest score "
        "of each task among the run means (each run's seeds averaged) in the rows subset= kept: task_01 6.4725 to "
        "12.736, task_02 1.5544 to 1.949")


def test_nested_seeds_a_summary_note_names_a_seed_na_action_dropped():
    """Runs of 2 seeds ('sid' 0, 1 in run 0; 10, 11 in run 1), A's seed 10 on t1 ending at step 50. Its summary
    missing, na_action='drop' leaves out its run's two seeds before averaging (saying so): the summary note must
    say "every run ends at step 100" of the seeds averaged, as for '| task/seed', and no line may say the data lack
    those rows (before: "these data lack 2 rows of the frame they were taken from ...", as if the caller's frame
    did, beside the note saying rlstats dropped them)."""
    rng, rows = np.random.default_rng(0), []
    for agent in ["A", "B"]:
        for task in ["t1", "t2"]:
            for sid in (0, 1, 10, 11):
                last = 50 if (agent, task, sid) == ("A", "t1", 10) else 100
                rows += [(agent, task, sid, step, rng.normal()) for step in range(0, last + 1, 10)]
    curves = pd.DataFrame(rows, columns=["agent", "task", "sid", "step", "score"])
    summary = rlstats.summarize_runs(curves, "score ~ agent | task/sid", step="step", how="final")
    summary["run"] = summary["sid"] // 10
    assert "(run '10' of agent 'A' on task 't1' at 50" in summary.attrs["rlstats_notes"][0]
    summary.loc[(summary["agent"] == "A") & (summary["task"] == "t1") & (summary["sid"] == 10), "score"] = np.nan
    res = rlstats.compare(summary, "score ~ agent | task/run/sid", na_action="drop")
    assert res.notes[:2] == (
        "2 of 16 rows dropped (na_action=\"drop\") before the seeds were averaged: 1 with a missing value in 'score' "
        "and 1 more of its run (a run's mean needs every seed); seeds ('sid') averaged within each run: the run is "
        "the unit, 1-2 runs of 2 seeds per agent and task",
        "score: the value at each run's last logged step (every run ends at step 100)")
    assert not [note for note in res.notes if "lack" in note], res.notes
