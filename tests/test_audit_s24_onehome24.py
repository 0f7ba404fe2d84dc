"""Audit s24 (onehome24): one home per idea for pieces the s23 read-through found written more than once.

1. The simulated count (of runs, agents) nearest a design's, the smaller on a tie, is
   :func:`rlstats.calibration.nearest_count` (equivalence wrote it twice inline, bayes, mixed and tuning once each).
2. ``Design.normalized`` is read again of the rows a back end's own drop keeps (``Design.analysed_note_keys``, the one
   home of the note keys of the rows analysed), so a stack's normalised tasks left alone are normalised scores.
3. The bootstrap's notes that the task table's aggregate row and equivalence's aggregate quote are the result's
   fields ``withheld_notes`` and ``weighting_notes``, never picked by their words.
5. A count of what was read stays as read after rlstats' own drop in ``summarize_runs`` too
   (``provenance.rebind(as_read=True)``, the rule ``design.build`` and a Design's own drop follow).
"""
import pathlib
import re

import numpy as np
import pandas as pd
import pytest

import rlstats

from rlstats import calibration

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "rlstats"


def test_nearest_count_ties_go_to_the_smaller_count():
    nearest = calibration.nearest_count
    assert [nearest((3, 5, 10, 20), n) for n in (1, 3, 4, 5, 6, 7, 8, 15, 16, 100)] == [
        3, 3, 3, 5, 5, 5, 10, 10, 20, 20]
    assert nearest((10, 5, 3, 5), 4) == 3 and nearest({2, 4}, 3) == 2  # any order, repeats, a set
    assert nearest((5,), 1) == 5


def test_nearest_count_refuses_an_empty_grid():
    with pytest.raises(ValueError, match="no simulated counts"):
        calibration.nearest_count((), 3)


def test_no_back_end_writes_the_nearest_count_inline():
    # the rule's inline spelling, min(grid, key=lambda r: (abs(r - runs), r)), lives in calibration.py alone
    inline = re.compile(r"min\([^\n]*key=lambda (\w+): \(?abs\(\1 - ")
    found = [str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
             if path.name != "calibration.py" and inline.search(path.read_text(encoding="utf-8"))]
    assert found == []


# ------------------------------------------------------------------ 3. the bootstrap's notes a back end quotes
def _one_run_on(task_name):
    """2 agents x 3 tasks x 4 runs, agent_1 with one run on the task named ``task_name``."""
    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0)
    data["task"] = data["task"].astype(str).replace({"task_01": task_name})
    return data[~((data.task == task_name) & (data.agent == "agent_1") & (data.seed > 0))].reset_index(drop=True)


def test_task_table_aggregate_notes_do_not_depend_on_a_task_name():
    # task_table picked the bootstrap's notes by their words ("withheld" in a note): a task named 'withheld_task'
    # brought in the bootstrap's single-run note, which the table's own notes say in its words, and 'Pong' did not
    said = {}
    for name in ("withheld_task", "Pong"):
        data = _one_run_on(name)
        res = rlstats.task_table(data, "score ~ agent | task", rng=0, aggregate="bootstrap", normalize=False,
                                 n_resamples=200)
        boot = rlstats.bootstrap(data, "score ~ agent | task", rng=0, metrics=["mean"], normalize=False,
                                 n_resamples=200)
        # the bootstrap's notes: its single-run note, then the one withholding agent_1's interval (1 run in a task)
        assert len(boot.notes) == 2 and boot.notes[0].startswith("agent_1: 1 of 3 tasks has a single run")
        assert boot.withheld_notes == boot.notes[1:] and boot.withheld_notes[0].startswith(
            "studentized intervals need at least 3 runs in every task and are withheld for agent_1 (1)")
        # quoted whole, after whose options its way on names (audit s28)
        assert res.notes[-1].endswith("(the options named are bootstrap()'s, not task_table()'s): "
                                      + boot.withheld_notes[0]) and boot.notes[0] not in res.notes
        said[name] = [note.replace(name, "<task>") for note in res.notes]
    assert said["withheld_task"] == said["Pong"] and len(said["Pong"]) == 4


def test_the_aggregate_rows_select_the_bootstraps_notes_by_field_not_words():
    # a re-worded note still reaches the aggregate row: the fields are what the selection reads
    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, rng=1)
    data = data[~((data.agent == "agent_2") & (data.task == "task_01") & (data.seed > 2))].reset_index(drop=True)
    boot = rlstats.bootstrap(data, "score ~ agent | task", rng=0, metrics=["iqm"], normalize=False, n_resamples=200)
    assert len(boot.weighting_notes) == 1 and boot.weighting_notes[0] in boot.notes
    assert boot.weighting_notes[0].startswith("agent_2: runs per task differ (3 to 5), so the IQM weighs each task")
    res = rlstats.task_table(data, "score ~ agent | task", rng=0, statistic="iqm", aggregate="bootstrap",
                             normalize=False, n_resamples=200)
    assert boot.weighting_notes[0] in res.notes
    # equivalence leaves the bootstrap's withholding notes out (their way on is the bootstrap's options) and says
    # the pair's own: PPO failing every run
    sb3 = pd.DataFrame({"agent": ["A2C"] * 6 + ["PPO"] * 6, "task": (["Acrobot-v1"] * 3 + ["CartPole-v1"] * 3) * 2,
                        "seed": [0, 1, 2] * 4, "score": [0.0, 0.8204, 0.6452, 0.8128, 0.9904, 0.4896] + [0.0] * 6})
    boot = rlstats.bootstrap(sb3, "score ~ agent | task/seed", metrics=["iqm"], n_resamples=2000, rng=0)
    assert len(boot.withheld_notes) == 1 and boot.withheld_notes[0].startswith(
        "studentized intervals withheld for the IQM of PPO: the runs have no spread to studentise")
    res = rlstats.equivalence(sb3, "score ~ agent | task/seed", margin=0.05, n_resamples=2000, rng=0)
    assert boot.withheld_notes[0] not in res.notes
    assert any(n.startswith("the aggregate (IQM) difference is withheld for A2C vs PPO") for n in res.notes)
    # not exported: the notes hold them
    assert "withheld_notes" not in boot.to_dict() and "weighting_notes" not in boot.to_dict()


# ------------------------------------------------------------ 5. what was read stays as read beside rlstats' own drop
def test_summarize_runs_keeps_the_read_count_as_read(sb3_evaluations):
    # summarize_runs re-counted the read note on the runs left after na_action dropped one: "read 14 runs from
    # Stable-Baselines3 ... files" beside "4 of 72 rows dropped"; every other back end keeps it as read
    data = sb3_evaluations.copy()
    one = (data.agent == "A2C") & (data.task == "Acrobot-v1") & (data.seed == data.seed.min())
    data.loc[one, "score"] = np.nan  # one whole run missing: na_action="drop" leaves it out, and says so
    summary = rlstats.summarize_runs(data, "score ~ agent | task/seed", step="step", na_action="drop")
    notes = rlstats.provenance.notes_for(summary)
    assert len(summary) == 14
    assert notes[0].startswith("read 15 runs from 15 Stable-Baselines3 EvalCallback evaluations.npz files")
    assert notes[2].startswith("4 of 72 rows dropped (na_action=\"drop\")")
    # as curves, whose own drop of Acrobot-v1 leaves the read note as read (audit s23, lead)
    design = rlstats.build(data, "score ~ agent | task/seed", na_action="drop", curves=True, step="step")
    assert design.notes[0] == notes[0]


# ------------------------------------------------------------- 2. Design.normalized of the rows a back end analyses
def _normalised_beside_raw():
    """3 agents x 2 tasks normalised by rlstats.normalize, stacked with a raw task (x 100) that agent_3 did not run."""
    data = rlstats.datasets.simulate(agents=3, tasks=3, seeds=5, rng=0)
    data = data.assign(task=data["task"].astype(str), agent=data["agent"].astype(str))
    raw = data[(data.task == "task_03") & (data.agent != "agent_3")]
    return rlstats.concat([rlstats.normalize(data[data.task != "task_03"], "minmax"), raw.assign(score=raw.score * 100)])


def test_an_own_drop_of_the_raw_rows_leaves_normalised_scores():
    # a back end's own drop of the raw task kept Design.normalized False, so the task table's aggregate row, which
    # reads the two normalised tasks alone, said it "pools raw scores of tasks on different scales"
    stack = _normalised_beside_raw()
    design = rlstats.build(stack, "score ~ agent | task/seed")
    assert not design.normalized  # the raw task is analysed: not normalised scores (audit s23 review23c)
    complete = design.require_complete("drop", "the test needs it")
    assert complete.tasks == ("task_01", "task_02") and complete.normalized
    assert complete.units == "normalised scores"
    res = rlstats.task_table(stack, "score ~ agent | task/seed", rng=0, aggregate="bootstrap", na_action="drop",
                             n_resamples=200)
    assert res.notes[-1].startswith("the aggregate row reads the 2 tasks where every agent has runs")
    assert not any("pools raw scores" in note or "own scales" in note for note in res.notes)
    # a selection that keeps raw rows stays raw; one of normalised rows alone is normalised, as build's would be
    assert not design.select_agents(["agent_1", "agent_2"]).normalized
    assert design.select_tasks(["task_02"]).normalized
    assert rlstats.build(stack[stack.task != "task_03"], "score ~ agent | task/seed").normalized
    assert design.analysed_note_keys["task"].tolist() == ["task_01", "task_02", "task_03"]
    assert complete.analysed_note_keys["task"].tolist() == ["task_01", "task_02"]
    # the raw stack's pooled raw scores are still said where the aggregate reads the raw task (agent_3 left out)
    res = rlstats.task_table(stack[stack.agent != "agent_3"], "score ~ agent | task/seed", rng=0,
                             aggregate="bootstrap", n_resamples=200)
    assert res.notes[-1].startswith("the aggregate row: scores of 3 tasks were aggregated on their own scales (the "
                                    "range of the scores of 'task_03'")  # the bootstrap's rule since audit s30
