"""Audit s25 (polish25): sentences of a result true of the rows it analysed, and said once, readably.

1. ``normalize="minmax"`` then a drop (a back end's ``na_action="drop"`` of incomplete tasks, a task kept out because
   fewer than two agents ran there): the min-max note listed the bounds of the tasks left out too (``rlstats demo``).
2. AdaStop on several tasks said "one test per task ... within each task" twice (a line and a note).
3. The task table's footnote nested parentheses three deep, ending in ".)".
4. The AdaStop report on many tasks was one paragraph of every comparison.
5. The AdaStop MuJoCo vignette's prose typed "Thirteen" undecided comparisons beside the 9 the docs' fast size shows.
Found on the way (a scan of the back ends' outputs under na_action="drop" and subset=): the task table's aggregate
key said "all tasks" of a row reading fewer, and the selection check's min-max note named a task it left out.
"""
import re
from pathlib import Path

import rlstats

ROOT = Path(__file__).resolve().parents[1]


def _gapped():
    """3 agents x 4 tasks x 5 seeds; agent_3 never ran task_02, only agent_1 ran task_04."""
    d = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, rng=0)
    d = d[~((d.agent == "agent_3") & (d.task == "task_02"))]
    return d[~((d.task == "task_04") & (d.agent != "agent_1"))].reset_index(drop=True)


def _minmax_note(result):
    notes = [n for n in result.notes if "normalised per task as" in n]
    assert len(notes) == 1, result.notes
    return notes[0]


def test_minmax_note_names_the_analysed_tasks_after_a_back_ends_drop():
    res = rlstats.bootstrap(_gapped(), "score ~ agent | task", normalize="minmax", na_action="drop",
                            n_resamples=200, rng=0)
    note = _minmax_note(res)
    assert note.endswith("in the data: task_01 20.312 to 42.407, task_03 -3.2175 to 5.1829"), note
    assert "task_02" not in note and "task_04" not in note
    assert "task_02" not in res.report().split("normalised per task")[1].split(". ")[0]


def test_minmax_note_names_the_analysed_tasks_after_builds_drop():
    res = rlstats.task_table(_gapped(), "score ~ agent | task", normalize="minmax", rng=0)
    note = _minmax_note(res)
    assert note.endswith("in the data: task_01 20.312 to 42.407, task_02 2.3156 to 3.6684, task_03 -3.2175 to "
                         "5.1829"), note
    assert "1 task (5 runs) kept out of the analysis because fewer than two agents have runs there: task_04" \
        in res.notes


def test_minmax_note_after_na_action_drops_a_task_whole():
    """Rows dropped for a missing agent leave task_03 to one agent: its bounds leave the note with it."""
    d = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, rng=0)
    d["agent"] = d["agent"].astype(object)
    d.loc[(d.task == "task_03") & (d.agent != "agent_1"), "agent"] = None
    res = rlstats.task_table(d, "score ~ agent | task", normalize="minmax", na_action="drop", rng=0)
    assert res.notes[:3] == (
        "'score' normalised per task as (score - min) / (max - min) with min and max the smallest and largest score "
        "of each task in the data less the 10 rows dropped for a missing value in another column: task_01 20.312 "
        "to 42.407, task_02 2.3156 to 3.6684, task_04 1.1638 to 1.731",
        "10 of 60 rows dropped (na_action=\"drop\"): 10 with missing values in 'agent'",
        "1 task (5 runs) kept out of the analysis because fewer than two agents have runs there: task_03")


def test_adastop_says_one_test_per_task_once():
    d = rlstats.datasets.simulate(agents=2, tasks=2, seeds=6, rng=0)
    res = rlstats.adastop(d, "score ~ agent | task", n=3, K=2, n_resamples=200, rng=0)
    for text in (str(res), res.report()):
        assert len(re.findall(r"(?i)within each task", text)) == 1, text
    assert "Note: one AdaStop per task: the family-wise error is controlled within each task, not across tasks" \
        in str(res)
    assert res.report().count("One AdaStop per task: the family-wise error is controlled within each task, not across "
                              "tasks.") == 1
    # the permutation test says it in a note too (audit s27: it had a printed line and a report sentence)
    perm = rlstats.permutation(d, "score ~ agent | task", n_resamples=200, rng=0)
    assert "Note: one permutation test per task: the family-wise error is controlled within each task, not across " \
        "tasks" in str(perm)


def test_task_table_footnote_reads_as_sentences():
    res = rlstats.task_table(_gapped(), "score ~ agent | task", normalize="minmax", rng=0)
    text = str(res)
    assert ".)" not in text and "((" not in text
    assert ("*bold*: best mean\n±: the standard deviation of the runs of the agent on the task (over 5 runs)\n"
            "†: possibly best: the bold and marked agents form a 95% confidence set for the best "
            "agent of the task; every ordered pair of agents was tested one-sided with the Welch t test, Holm over the "
            "k(k-1) pairs\nblank: no runs of the agent on the task (1 cell)\n") in text
    assert res.caption().endswith("Bold: the best mean of each task; †: possibly best: the bold and marked agents form "
                                  "a 95% confidence set for the best agent of the task; every ordered pair of agents "
                                  "was tested one-sided with the Welch t test, Holm over the k(k-1) pairs.")


def _markdown(name):
    text = (ROOT / "vignettes" / f"{name}.py").read_text(encoding="utf-8")
    cells = re.split(r"^# %%", text, flags=re.M)
    return text, "\n".join(c for c in cells if c.startswith(" [markdown]"))


def test_mujoco_vignette_prints_the_counts_it_states():
    """The docs build the fast size (2,000 paths), where 9 comparisons stay undecided and DDPG against SAC on
    HalfCheetah is decided at once; the prose typed the default size's 13 and 'with this seed it stays undecided'.
    The counts are printed from ``result.decisions`` (fast size, measured: 'SAC beats TRPO in 5 of 5 environments',
    'SAC beats DDPG in 5 of 5', '9 comparisons stay undecided: ant 3, humanoid 2, walker 4', 'on Hopper 2
    comparisons run to the full budget of 30 runs')."""
    text, markdown = _markdown("adastop_mujoco")
    assert "Thirteen" not in text and "in all five environments" not in markdown and "and DDPG in four" not in markdown
    assert "with this seed it stays\n# undecided" not in markdown
    assert 'print(f"{len(undecided)} comparisons stay undecided: "' in text
    assert 'print(f"SAC beats {loser} in {len(won)} of {decisions[\'task\'].nunique()} environments "' in text
    # audit s30 (holm30): section 4 replays the default (holm), whose seed-dependent decisions at the default size
    # (50 seeds) are counted there; the joint scheme's Hopper sentence went with it
    assert "# default size (50 seeds of 10,000 paths) 28 of the 30 decisions are the" in markdown


def test_cherry_picking_vignette_expects_rather_than_states_the_random_share():
    """At the fast size 20 random reports showed a share of 0.000 below 0.05 beside '5% of them fall below 0.05'."""
    _, markdown = _markdown("cherry_picking_atari")
    assert "5% of them fall below 0.05" not in markdown
    assert "5% of them are expected below 0.05" in markdown


def test_adastop_report_on_many_tasks_reads_by_task():
    """rlstats demo's AdaStop (12 tasks, 108 comparisons): 13,373 characters in one paragraph, 'mean difference'
    said 109 times; a paragraph per task, the comparisons not shown to differ grouped by where they stopped."""
    d = rlstats.datasets.simulate(agents=5, tasks=12, seeds=10, effect=[0.0, 0.2, 0.4, 0.9, 1.2], missing=0.05,
                                  rng=0)
    res = rlstats.compare(d, "score ~ agent | task", method="adastop", n=5, n_resamples=2000, rng=0, permutations="joint")
    text = res.report(format="text")
    paragraphs = text.split("\n\n")
    assert len(paragraphs) == 14  # the design, one per task, the notes
    assert [p.split(",")[0] for p in paragraphs[1:13]] == [f"On task_{t:02d}" for t in range(1, 13)]
    assert paragraphs[-1].startswith("Interims are consecutive groups") and "Computed with rlstats" in paragraphs[-1]
    assert paragraphs[1] == (
        "On task_01, decisions: agent_1 smaller than agent_5 (interim 2, 10 and 10 runs, mean difference -9.543); "
        "not shown to differ at interim 2 with 10 and 10 runs (mean difference in parentheses): agent_1 vs agent_2 "
        "(-1.989), agent_1 vs agent_3 (-7.486), agent_1 vs agent_4 (-4.563), agent_2 vs agent_3 (-5.497), agent_2 vs "
        "agent_4 (-2.574), agent_2 vs agent_5 (-7.554), agent_3 vs agent_4 (2.923), agent_3 vs agent_5 (-2.057), "
        "agent_4 vs agent_5 (-4.98). Runs used: agent_1 10, agent_2 10, agent_3 10, agent_4 10, agent_5 10.")
    # every comparison is still there, each once
    for a, b in zip(res.decisions["agent_1"], res.decisions["agent_2"]):
        assert f"{a} vs {b} (" in text or f"{a} smaller than {b} (" in text or f"{a} larger than {b} (" in text
    assert len(text) < 9000
    # one test: one paragraph, as before
    one = rlstats.adastop(d[d.task == "task_01"], "score ~ agent | task", n=5, n_resamples=2000, rng=0, permutations="joint")
    assert "\n" not in one.report(format="text")


def test_task_table_aggregate_key_names_the_tasks_it_reads():
    """na_action='drop' leaves task_02 (no agent_3 there) out of the aggregate row, not out of the table."""
    d = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, rng=0)
    d = d[~((d.agent == "agent_3") & (d.task == "task_02"))]
    res = rlstats.task_table(d, "score ~ agent | task", normalize="minmax", statistic="iqm", aggregate="bootstrap",
                             n_resamples=200, na_action="drop", rng=0)
    key = "aggregate: IQM of all runs of the 3 tasks every agent ran pooled (each task weighed alike)"
    assert key + "\n" in str(res)
    assert "Aggregate: IQM of all runs of the 3 tasks every agent ran pooled" in res.caption()
    assert "all tasks" not in str(res) and "all tasks" not in res.caption()
    assert res.aggregate["n_tasks"] == 3
    full = rlstats.task_table(d[d.task != "task_02"], "score ~ agent | task", normalize="minmax", statistic="iqm",
                              aggregate="bootstrap", n_resamples=200, rng=0)
    assert "aggregate: IQM of all runs of all tasks pooled (each task weighed alike)\n" in str(full)


def test_selection_minmax_note_names_the_tasks_it_compares():
    """rlstats demo's selection check: agent_5 never ran task_02 here, so task_02 is left out of the held-out set."""
    d = rlstats.datasets.simulate(agents=3, tasks=5, seeds=5, rng=0)
    d = d[~((d.agent == "agent_3") & (d.task == "task_02"))].reset_index(drop=True)
    res = rlstats.selection_check(d, "score ~ agent | task", treatment="agent_3", baseline="agent_1",
                                  reported=["task_01", "task_03"], normalize="minmax", na_action="drop", rng=0)
    assert "1 task without runs of both 'agent_3' and 'agent_1' left out of the held-out set: task_02" in res.notes
    note = _minmax_note(res)
    assert "task_02" not in note
    assert note.endswith("in the data: task_01 37.617 to 59.712, task_03 18.004 to 26.404, task_04 0.18259 to "
                         "0.74988, task_05 3.4527 to 5.5313"), note
