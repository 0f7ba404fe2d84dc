"""Audit s23 restate23: a back end's own drop of rows (``Design.require_complete``, ``select_agents``,
``select_tasks``) re-states the data's notes for the rows it keeps, and the task table's caption reads the unit the
seeds were averaged within from the Design, never from a note's words."""

import rlstats
from rlstats.datasets import simulate_curves
from rlstats.design import design_of

MINMAX = "'score' normalised per task as (score - min) / (max - min) with min and max the smallest and largest " \
         "score of each task in the data: "
RESTATED = MINMAX.replace("in the data", "in the frame normalised (before these rows were selected)")


def _without(data, task="task_03", agent="agent_2"):
    return data[~((data["task"] == task) & (data["agent"] == agent))].reset_index(drop=True)


def _design(data, formula):
    return design_of(data, formula)


def test_bootstrap_restates_minmax_bounds_for_tasks_kept():
    data = rlstats.normalize(_without(rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)), "minmax")
    res = rlstats.bootstrap(data, "score ~ agent | task/seed", na_action="drop", n_resamples=200, rng=0)
    assert res.notes[0] == RESTATED + "task_01 -2.5537 to 19.542, task_02 1.6103 to 2.3227"
    assert res.notes[1].startswith("1 task left out because some agent has no runs there")
    shuffled = data.sample(frac=1, random_state=1)  # the rows' order changes nothing said
    again = rlstats.bootstrap(shuffled, "score ~ agent | task/seed", na_action="drop", n_resamples=200, rng=0)
    assert again.notes[:2] == res.notes[:2]


def test_no_note_bound_to_rows_no_codes_kept():
    """Data without notes keep no codes (nothing to re-state: no memory), and a drop keeps the notes as they are."""
    design = _design(_without(rlstats.datasets.simulate(agents=3, tasks=3, seeds=3, rng=0)), "score ~ agent | task")
    assert design.note_rows is None and design.note_keys is None
    assert design.require_complete("drop", "why").notes == (
        '1 task left out because some agent has no runs there (na_action="drop"; 6 runs dropped): task_03',)


def test_curves_restates_minmax_bounds_for_tasks_kept():
    curves = _without(simulate_curves(agents=3, tasks=3, seeds=3, steps=4, rng=5))
    res = rlstats.curves(rlstats.normalize(curves, "minmax"), "score ~ agent | task/seed", step="step",
                         n_resamples=50, rng=0, na_action="drop")
    assert res.notes[0] == RESTATED + "task_01 -0.064023 to 1.1389, task_02 2.1598 to 7.9305"
    assert res.notes[1] == '1 task left out because some agent has no runs there (na_action="drop"; 6 runs ' \
                           'dropped): task_03'


def _three_agents():
    return rlstats.normalize(_without(rlstats.datasets.simulate(agents=3, tasks=3, seeds=3, rng=0)), "minmax")


def test_task_table_aggregate_design_restated_table_keeps_its_rows():
    """The table's rows keep task_03, so its notes give task_03's bounds (true of the rows above); the aggregate
    row's design (require_complete) has them re-stated for the two tasks it reads, and no second min-max line."""
    data = _three_agents()
    table = rlstats.task_table(data, "score ~ agent | task/seed", na_action="drop", rng=0)
    full = MINMAX + "task_01 -2.5537 to 19.542, task_02 1.3496 to 2.7024, task_03 13.955 to 20.787"
    assert table.notes[0] == full
    assert sum(note.startswith(MINMAX[:40]) for note in table.notes) == 1
    complete = _design(data, "score ~ agent | task/seed").require_complete("drop", "why")
    assert complete.notes[0] == RESTATED + "task_01 -2.5537 to 19.542, task_02 1.3496 to 2.7024"
    assert [note.text for note in complete.inherited_notes] == [complete.notes[0]]


def test_mixed_refit_select_agents_restates():
    """mixed's refit without a saturated agent: select_agents, then the tasks two of them ran (task_03 goes)."""
    design = _design(_three_agents(), "score ~ agent | task/seed")
    sub = design.select_agents(["agent_2", "agent_3"])
    sub = sub.select_tasks([t for t, n in zip(sub.tasks, (sub.counts > 0).sum(axis=1)) if n >= 2])
    assert sub.tasks == ("task_01", "task_02")
    assert sub.notes[0] == RESTATED + "task_01 -2.5537 to 19.542, task_02 1.3496 to 2.7024"
    assert design.notes[0].endswith("task_03 13.955 to 20.787")  # the Design it came from is unchanged


def test_averaged_within_is_the_designs_record():
    """'| task/run/seed' records the run as the unit averaged within; a frame note in those words records nothing,
    and the task table's caption follows the record."""
    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0)
    data["run"] = data["seed"] // 2
    nested = _design(data, "score ~ agent | task/run/seed")
    assert nested.averaged_within == "run" and nested.nobs == 12
    noted = data.copy()
    noted.attrs["rlstats_notes"] = ("seeds ('seed') averaged within each run: the run is the unit",)
    assert _design(noted, "score ~ agent | task/seed").averaged_within is None
    caption = rlstats.task_table(data, "score ~ agent | task/run/seed", rng=0).caption()
    assert "standard deviation over 2 runs ('run', each the mean of its seeds) per agent and task" in caption, caption
    caption = rlstats.task_table(noted, "score ~ agent | task/seed", rng=0).caption()
    assert "standard deviation over 4 runs (seeds) per agent and task" in caption, caption
