"""The comparison graph (issue 39 item 2): which agents met on which tasks, and what every back end does with it.

Two designed layouts of 5 agents on 8 tasks, one run per cell:

* DISCONNECTED: A, B, C on t1-t4 and D, E on t5-t8 (two groups that never share a task);
* CONNECTED: A, B, C on t1-t3, B, C, D on t4-t5, C, D, E on t6-t8 (one group; A-D, A-E and B-E never met).

The expectations (groups, shared-task counts, the bars a critical-difference diagram may draw) are worked out by hand
from the layouts in the comments beside them.
"""

import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.connectivity import comparison_graph, components, subset_selecting
from rlstats.errors import DesignError
from rlstats.methods.skillings_mack.plots import nonsignificant_groups

DISCONNECTED = [(("t1", "t2", "t3", "t4"), "ABC"), (("t5", "t6", "t7", "t8"), "DE")]
CONNECTED = [(("t1", "t2", "t3"), "ABC"), (("t4", "t5"), "BCD"), (("t6", "t7", "t8"), "CDE")]
NEVER_MET = [("A", "D"), ("A", "E"), ("B", "E")]


def frame(layout, score=lambda a, t: float("ABCDE".index(a)), seeds=1):
    """Long frame of a layout; by default each agent scores its letter's position (E best on every task)."""
    return pd.DataFrame([{"agent": a, "task": t, "seed": s, "score": score(a, t) + 0.01 * s}
                         for tasks, agents in layout for t in tasks for a in agents for s in range(seeds)])


def noisy(layout, seeds=1, rng=0):
    generator = np.random.default_rng(rng)
    data = frame(layout, seeds=seeds)
    return data.assign(score=data["score"] + generator.normal(size=len(data)))


# ----------------------------------------------------------------------------- the graph itself

def test_the_graph_of_the_connected_layout():
    design = rlstats.build(frame(CONNECTED), "score ~ agent | task")
    graph = design.graph
    # A ran t1-t3, B t1-t5, C t1-t8, D t4-t8, E t6-t8: shared tasks are the overlaps of those ranges
    assert graph.shared.tolist() == [[3, 3, 3, 0, 0],
                                     [3, 5, 5, 2, 0],
                                     [3, 5, 8, 5, 3],
                                     [0, 2, 5, 5, 3],
                                     [0, 0, 3, 3, 3]]
    assert graph.connected and graph.n_groups == 1 and graph.groups == (("A", "B", "C", "D", "E"),)
    assert graph.never_met() == NEVER_MET
    assert graph.pairs_phrase() == "A-D, A-E and B-E"


def test_the_graph_of_the_disconnected_layout():
    graph = rlstats.build(frame(DISCONNECTED), "score ~ agent | task").graph
    assert not graph.connected and graph.n_groups == 2
    assert graph.groups == (("A", "B", "C"), ("D", "E"))
    assert graph.group_tasks == (("t1", "t2", "t3", "t4"), ("t5", "t6", "t7", "t8"))
    assert graph.group.tolist() == [0, 0, 0, 1, 1] and graph.task_group.tolist() == [0] * 4 + [1] * 4
    assert len(graph.never_met()) == 6  # every pair across the groups


def test_components_follow_chains_and_number_groups_by_their_first_agent():
    # agent 3 links 0 and 4 through two tasks; agents 1 and 2 meet on one task; agent 5 ran alone
    present = np.array([[1, 0, 0, 1, 0, 0],
                        [0, 0, 0, 1, 1, 0],
                        [0, 1, 1, 0, 0, 0],
                        [0, 0, 0, 0, 0, 1]], dtype=bool)
    assert components(present).tolist() == [0, 1, 1, 0, 0, 2]
    assert components(np.ones((1, 3), dtype=bool)).tolist() == [0, 0, 0]
    # no informative task at all (the rank kernel's view when every task tied): each agent is its own group
    assert components(np.zeros((0, 3), dtype=bool)).tolist() == [0, 1, 2]
    graph = comparison_graph(present.astype(int), tuple("abcdef"), ("w", "x", "y", "z"))
    assert graph.groups == (("a", "d", "e"), ("b", "c"), ("f",)) and graph.task_group.tolist() == [0, 0, 1, 2]


def test_the_subset_condition_takes_the_shorter_spelling_and_quotes_odd_names():
    assert subset_selecting("agent", ("D", "E"), ("A", "B", "C")) == "agent in ['D', 'E']"
    assert subset_selecting("agent", ("A", "B", "C"), ("D", "E")) == "agent not in ['D', 'E']"
    assert subset_selecting("my agent", ("x",)) == "`my agent` in ['x']"


# ----------------------------------------------------------------------------- refusals across groups

REFUSING = {
    # back end -> (call, what the message says the back end would do)
    "skillings_mack": (lambda d: rlstats.skillings_mack(d, "score ~ agent | task"),
                       "the rank test's mean ranks and post hoc would set side by side agents that no task compared"),
    "mixed": (lambda d: rlstats.mixed(d, "score ~ agent | task"),
              "the mixed model would contrast them through its random task intercepts alone, assuming the groups' "
              "tasks alike on average"),
    "bootstrap": (lambda d: rlstats.bootstrap(d, "score ~ agent | task", n_resamples=50, rng=0),
                  "aggregate metrics compare agents on the same tasks"),
    "probability_of_improvement": (lambda d: rlstats.probability_of_improvement(d, "score ~ agent | task",
                                                                               n_resamples=50, rng=0),
                                   "aggregate metrics compare agents on the same tasks"),
    "performance_profile": (lambda d: rlstats.performance_profile(d, "score ~ agent | task", n_resamples=50, rng=0),
                            "aggregate metrics compare agents on the same tasks"),
    "percentiles": (lambda d: rlstats.percentiles(d, "score ~ agent | task", rng=0),
                    "performance percentiles compare every agent against every other on every task"),
    "task_table aggregate": (lambda d: rlstats.task_table(d, "score ~ agent | task/seed", aggregate="bootstrap",
                                                          n_resamples=100, rng=0),
                             "the aggregate row compares agents on the same tasks"),
}


@pytest.mark.parametrize("name", REFUSING)
def test_groups_that_never_met_are_refused_with_the_groups_and_their_subsets(name):
    call, what = REFUSING[name]
    data = noisy(DISCONNECTED, seeds=2)
    with pytest.raises(DesignError) as info:
        call(data)
    message = str(info.value)
    assert "\n" not in message  # one line, as the command line prints it
    start = ("the agents fall into 2 groups that never ran on a common task, so agents of different groups cannot be "
             f"compared ({what}")
    # audit s35: a back end's own function takes no subset=: the rows first, by a mask (was compare(..., method=)'s)
    groups = ("): group 1: A, B, C (on 4 tasks: t1, t2, t3, t4), data=df[mask] (a boolean mask of the rows where "
              "agent not in ['D', 'E'] holds); group 2: D, E (on 4 tasks: t5, t6, t7, t8), data=df[mask] (a boolean "
              "mask of the rows where agent in ['D', 'E'] holds); analyse one group at a time by passing its data= "
              f"to rlstats.{name.split()[0]}, or add runs that link the groups")
    assert message.startswith(start) and message.endswith(groups)


@pytest.mark.parametrize("method", ["skillings_mack", "mixed", "bootstrap"])
def test_the_suggested_subset_works_when_pasted(method):
    data = noisy(DISCONNECTED, seeds=2)
    with pytest.raises(DesignError) as info:
        rlstats.compare(data, "score ~ agent | task", method=method, **({} if method == "mixed" else {"rng": 0}))
    suggested = re.findall(r'subset="([^"]+)"', str(info.value))
    assert suggested == ["agent not in ['D', 'E']", "agent in ['D', 'E']"]
    for condition, agents in zip(suggested, [("A", "B", "C"), ("D", "E")]):
        options = {} if method == "mixed" else {"rng": 0}
        result = rlstats.compare(data, "score ~ agent | task", method=method, subset=condition, **options)
        assert result.agents == agents
        assert any(f"subset={condition!r} kept" in note for note in result.notes)
        # the same text selects the same rows with pandas
        assert set(data.query(condition)["agent"]) == set(agents)


def test_the_refusal_says_more_groups_than_it_shows():
    layout = [((f"t{i}a", f"t{i}b"), (f"a{i}", f"b{i}")) for i in range(8)]
    data = pd.DataFrame([{"agent": a, "task": t, "score": float(j)} for tasks, agents in layout for t in tasks
                         for j, a in enumerate(agents)])
    with pytest.raises(DesignError, match="8 groups that never ran") as info:
        rlstats.skillings_mack(data, "score ~ agent | task")
    assert "where agent in ['a5', 'b5'] holds); ... and 2 more groups; analyse" in str(info.value)


def test_curves_refuse_groups_that_never_met():
    curves = rlstats.datasets.simulate_curves(agents=4, tasks=4, seeds=3, steps=5, rng=0)
    apart = curves[(curves["agent"].isin(["agent_1", "agent_2"])) == curves["task"].isin(["task_01", "task_02"])]
    with pytest.raises(DesignError) as info:
        rlstats.curves(apart, "score ~ agent | task/seed", step="step", n_resamples=50, rng=0)
    assert ("(curves aggregate every agent over the same tasks): group 1: agent_1, agent_2 (on 2 tasks: task_01, "
            "task_02), subset=\"agent in ['agent_1', 'agent_2']\"; group 2") in str(info.value)
    kept = rlstats.curves(apart, "score ~ agent | task/seed", step="step", n_resamples=50, rng=0,
                          subset="agent in ['agent_1', 'agent_2']")
    assert kept.agents == ("agent_1", "agent_2")


# ----------------------------------------------------------------------------- the rank test on a connected layout

NOTE = ("3 pairs of agents never ran on a common task (A-D, A-E and B-E): they are not compared post hoc and no "
        "critical-difference bar joins them; a mean rank is taken within each task among the agents that ran there, "
        "so it places an agent among the agents it met only (A met only B, C; E met only C, D; B met only A, C, D; "
        "and 1 more agent met only some: D)")


@pytest.fixture(scope="module")
def ranks():
    # E > D > C > B > A on every task: within-task ranks give mean ranks A 3, B (2*3 + 3*2)/5 = 2.4,
    # C (1*3 + 2*2 + 3*3)/8 = 2, D (1*2 + 2*3)/5 = 1.6, E 1
    return rlstats.skillings_mack(frame(CONNECTED), "score ~ agent | task")


def test_the_rank_test_names_the_pairs_that_never_met(ranks):
    assert ranks.mean_ranks.tolist() == pytest.approx([3, 2.4, 2, 1.6, 1], abs=1e-12)
    assert NOTE in ranks.notes
    tidy = ranks.tidy()
    never = tidy[tidy["n_shared_tasks"] == 0]
    assert list(zip(never["agent_1"], never["agent_2"])) == NEVER_MET == ranks.never_met()
    assert never["p_value"].isna().all() and never["p_adjusted"].isna().all() and not never["significant"].any()
    assert tidy["n_shared_tasks"].tolist() == [3, 3, 0, 0, 5, 2, 0, 5, 3, 3]
    printed = str(ranks)
    assert ("post hoc (holm, alpha = 0.05): 0 of 7 pairs compared differ; 3 pairs never ran on a common task "
            "(A-D, A-E and B-E): not compared") in printed
    assert f"Note: {NOTE}" in printed
    assert NOTE in ranks.report().replace("\\", "")
    matrix = ranks.met_matrix()
    assert [(ranks.agents[i], ranks.agents[j]) for i, j in zip(*np.nonzero(np.triu(~matrix)))] == NEVER_MET


def test_the_wilcoxon_post_hoc_leaves_out_the_pairs_that_never_met_too():
    res = rlstats.skillings_mack(frame(CONNECTED), "score ~ agent | task", posthoc="wilcoxon")
    tidy = res.tidy()
    never = tidy["n_shared_tasks"] == 0
    assert list(zip(tidy.loc[never, "agent_1"], tidy.loc[never, "agent_2"])) == NEVER_MET
    assert tidy.loc[never, ["estimate", "p_value", "p_adjusted"]].isna().all().all()
    assert tidy.loc[~never, "p_value"].notna().all() and NOTE in res.notes


def _bars(ax, result):
    """The agents under each critical-difference bar, read from the drawn line artists (gid 'cd_bar')."""
    ranks = np.asarray(result.mean_ranks)
    covered = []
    for collection in ax.collections:
        if collection.get_gid() != "cd_bar":
            continue
        for segment in collection.get_segments():
            low, high = sorted(segment[:, 0])
            covered.append(tuple(a for a, r in zip(result.agents, ranks) if low <= r <= high))
    return covered


def test_no_critical_difference_bar_joins_agents_that_never_met(ranks, tmp_path):
    figure, ax = plt.subplots(figsize=(3.5, 2.5), layout="constrained")  # a paper column
    assert ranks.plot(ax=ax) is ax
    bars = _bars(ax, ranks)
    # in rank order E, D, C, B, A every agent alike (no pair differs); a bar may grow until it would hold a pair
    # that never met: E-D-C (B-E never met), D-C-B (A-D), C-B-A
    assert sorted(bars) == sorted([("C", "D", "E"), ("B", "C", "D"), ("A", "B", "C")])
    for bar in bars:
        assert not any((a, b) in NEVER_MET for a in bar for b in bar)
    texts = [t.get_text() for t in ax.texts]
    assert "never on a common task, so not compared and under no\ncommon bar: A-D, A-E and B-E" in texts
    assert ax.get_title() == "Mean ranks among each task's agents (1 = best)\nbars join agents that met, not different (holm)"
    # the check matters: without the met matrix one bar would join all five
    order = list(np.argsort(ranks.mean_ranks, kind="stable"))
    assert nonsignificant_groups(order, ranks.significance_matrix()) == [(0, 4)]
    figure.savefig(tmp_path / "cd_never_met.png", dpi=150)
    plt.close(figure)


def test_a_control_bar_stops_at_an_agent_the_control_never_met():
    # scores alike up to noise: mean ranks C 1.875, D 2, E 2, B 2.2, A 2.333 (rank order C, D, E, B, A); the
    # control C met everyone and differs from no one: one bar over all five
    data = noisy(CONNECTED, rng=1).assign(score=lambda d: d["score"] - d["agent"].map("ABCDE".index))
    res = rlstats.skillings_mack(data, "score ~ agent | task", control="C")
    assert _bars(res.plot(), res) == [tuple("ABCDE")]
    # control B never met E, which lies between B and C in rank order... the bar stops before E
    res = rlstats.skillings_mack(data, "score ~ agent | task", control="B")
    tidy = res.tidy()
    assert tidy.loc[tidy["n_shared_tasks"] == 0, "agent_1"].tolist() == ["E"]
    order = [res.agents[j] for j in np.argsort(res.mean_ranks, kind="stable")]
    bars = _bars(res.plot(), res)
    assert len(bars) == 1 and "B" in bars[0] and "E" not in bars[0]
    assert set(bars[0]) == set(order[order.index("E") + 1:]) or set(bars[0]) == set(order[:order.index("E")])
    plt.close("all")


def test_an_agent_that_only_met_one_other_is_named_with_it():
    # the SB3 collection's shape: her ran beside tqc only, tqc beside everyone else
    layout = [(("FetchPush", "FetchReach"), ("her", "tqc")),
              (("Pendulum", "Hopper", "Walker"), ("tqc", "sac", "td3", "ppo"))]
    data = frame(layout, score=lambda a, t: float(len(a) + (a == "her")))
    res = rlstats.skillings_mack(data, "score ~ agent | task")
    note = [n for n in res.notes if "never ran on a common task" in n][0]
    assert note.startswith("3 pairs of agents never ran on a common task (her-ppo, her-sac and her-td3)")
    assert note.endswith("(her met only tqc; ppo met only sac, td3, tqc; sac met only ppo, td3, tqc; and 1 more agent "
                         "met only some: td3)")


# ----------------------------------------------------------------------------- the mixed model

MIXED_NOTE = ("3 pairs of agents never ran on a common task (A-D, A-E and B-E): their contrasts are indirect, resting "
              "on the model (each agent's effect the same on every task, carried through the agents that link the "
              "pair, and the random task intercepts) rather than on a task where both ran; tidy() gives them 0 "
              "shared tasks, and they stay in Tukey's family of all 10 pairs")


@pytest.fixture(scope="module")
def model():
    return rlstats.mixed(noisy(CONNECTED, rng=3), "score ~ agent | task")


def test_mixed_marks_the_contrasts_of_pairs_that_never_met(model):
    tidy = model.tidy()
    assert tidy.columns[:3].tolist() == ["agent_1", "agent_2", "n_shared_tasks"]
    assert tidy["n_shared_tasks"].tolist() == [3, 3, 0, 0, 5, 2, 0, 5, 3, 3]
    assert MIXED_NOTE in model.notes
    printed = str(model)
    marked = [line.split()[:4] for line in printed.splitlines() if "(indirect)" in line and " - " in line]
    assert marked == [["A", "-", "D", "(indirect)"], ["A", "-", "E", "(indirect)"], ["B", "-", "E", "(indirect)"]]
    assert "P value adjustment: tukey method for comparing a family of 5 estimates" in printed
    assert "(indirect): the pair never ran on a common task; its contrast rests on the model (see the notes)" in printed
    report = model.report().replace("\\", "")
    assert MIXED_NOTE in report
    for a, b in zip(tidy.loc[tidy["significant"], "agent_1"], tidy.loc[tidy["significant"], "agent_2"]):
        assert (f"{a} vs {b} (indirect: never on a common task)" in report) == ((a, b) in NEVER_MET)
    ax = model.plot(kind="contrasts")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert [label for label in labels if "indirect" in label] == ["A - D (indirect)", "A - E (indirect)",
                                                                  "B - E (indirect)"]
    plt.close("all")


def test_an_indirect_contrast_is_the_chain_through_the_linking_agents():
    # additive scores (agent effect + task effect, no noise but a tiny one to leave a residual): the model's A - E
    # is the agents' difference, -4, although A and E never met -- carried through B, C and D
    effects, task_effects = dict(zip("ABCDE", [0.0, 1.0, 2.0, 3.0, 4.0])), {f"t{i}": 10.0 * i for i in range(1, 9)}
    wobble = iter(np.random.default_rng(0).normal(scale=1e-6, size=100))
    data = frame(CONNECTED, score=lambda a, t: effects[a] + task_effects[t] + next(wobble))
    tidy = rlstats.mixed(data, "score ~ agent | task").tidy().set_index(["agent_1", "agent_2"])
    for a, b in NEVER_MET:
        assert tidy.loc[(a, b), "estimate"] == pytest.approx(effects[a] - effects[b], abs=1e-5)
        assert tidy.loc[(a, b), "n_shared_tasks"] == 0


def test_a_complete_design_prints_no_indirect_mark():
    res = rlstats.mixed(rlstats.datasets.simulate(agents=3, tasks=6, seeds=1, distribution="normal", rng=0),
                        "score ~ agent | task")
    assert "(indirect)" not in str(res) and (res.tidy()["n_shared_tasks"] == 6).all()


# ----------------------------------------------------------------------------- task table and selection check

def test_task_table_notes_the_groups_and_counts_wins_over_the_tasks_each_agent_ran():
    res = rlstats.task_table(frame(DISCONNECTED, seeds=2), "score ~ agent | task/seed", rng=0)
    assert ("the agents fall into 2 groups that never ran on a common task (A, B, C | D, E): each task's marks "
            "compare the agents that ran it, and the counts of tasks won are not a ranking across groups") in res.notes
    # C is best on t1-t4, E on t5-t8, each of its 4 tasks
    assert "Best per task: C (4 of the 4 it ran), E (4 of the 4 it ran)." in res.report()
    connected = rlstats.task_table(frame(CONNECTED, seeds=2), "score ~ agent | task/seed", rng=0)
    assert not any("groups" in note for note in connected.notes)
    assert "Best per task: C (3 of the 8 it ran), E (3 of the 3 it ran), D (2 of the 5 it ran)." in connected.report()


def test_a_selection_check_between_agents_that_never_met_names_the_agents_that_did():
    data = frame(CONNECTED, seeds=2)
    with pytest.raises(DesignError) as info:
        rlstats.selection_check(data, "score ~ agent | task/seed", treatment="A", baseline="E", reported=["t1"])
    assert str(info.value) == ("treatment 'A' and baseline 'E' never ran on a common task, so no task has an effect "
                               "to check; name a baseline that shares tasks with the treatment: 'B', 'C'")
