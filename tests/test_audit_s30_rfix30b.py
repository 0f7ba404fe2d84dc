"""Audit s30 (rfix30b): a reviewer's findings (its reproducers, not kept, are the tests below), each fixed.

1. equivalence(na_action="drop") left out the tasks some agent did not run from every pair and test, whatever
   aggregate= was (with aggregate=None: agent_3 lacking task_01 took task_01 from agent_1 vs agent_2), and refused
   groups that never share a task "(the aggregate compares every agent on the same tasks)" where no aggregate was
   asked. As task_table's aggregate row: only the aggregate leaves the incomplete tasks out, said; the pairs keep the
   tasks both agents ran.
2. probability_of_improvement: the agents' layouts hold the tasks in their names' sorted order, but each task's tie
   tolerance and the near-tie note's task names were read in the design's order (a Categorical's categories): the
   estimate depended on the category order (0.5 with [a, z], 0.4375 with [z, a]) and the note named the wrong task.
3. permutation()'s refusal of unequal runs named method='task_table', which permutation() does not take.
4. the raw-scales caution's groups and task_table's flat-pairs note wrote names bare and unbounded.
5. the flat-pairs note quoted 1/C(n + m, n) where every flat pair tied (no row took that p-value).
6. require_complete's note said na_action="drop" of na_action="omit".
7. tuning's note of ends past a cap was silenced by any bounds=, also bounds=(0, None), which clips no upper end.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ----------------------------------------------------------------------------- 1. equivalence, na_action="drop"


def _without(df, agent, tasks):
    return df[~((df.agent == agent) & df.task.isin(tasks))].reset_index(drop=True)


def _equivalence(df, **options):
    return _quiet(rlstats.equivalence, df, "score ~ agent | task", margin=1.0, progress=False, **options)


def test_drop_without_aggregate_keeps_the_tasks_both_agents_ran():
    df = _without(rlstats.datasets.simulate(agents=3, tasks=4, seeds=4, effect=0.2, rng=0), "agent_3", ["task_01"])
    dropped = _equivalence(df, aggregate=None, na_action="drop")
    kept = _equivalence(df, aggregate=None, na_action="raise")
    pd.testing.assert_frame_equal(dropped.tidy(), kept.tidy())
    assert dropped.notes == kept.notes
    rows = dropped.tidy()
    pair = rows[(rows.agent_1 == "agent_1") & (rows.agent_2 == "agent_2") & (rows.scope == "task")]
    assert pair.task.tolist() == ["task_01", "task_02", "task_03", "task_04"]
    assert not any("left out" in n for n in dropped.notes)


def test_drop_without_aggregate_takes_groups_apart():
    df = rlstats.datasets.simulate(agents=4, tasks=6, seeds=4, effect=1.0, rng=0)
    first = df.task.isin(["task_01", "task_02", "task_03"])
    apart = df[(df.agent.isin(["agent_1", "agent_2"]) & first)
               | (df.agent.isin(["agent_3", "agent_4"]) & ~first)].reset_index(drop=True)
    dropped = _equivalence(apart, aggregate=None, na_action="drop")
    kept = _equivalence(apart, aggregate=None, na_action="raise")
    pd.testing.assert_frame_equal(dropped.tidy(), kept.tidy())
    assert dropped.glance().n_tasks[0] == 6


def test_drop_leaves_incomplete_tasks_out_of_the_aggregate_only():
    """Since audit s31 (equiv31) each pair's aggregate reads the tasks both its agents ran, whatever na_action= (s30:
    drop read every pair's on the 3 tasks every agent ran, raise withheld it): drop and raise give one table; the pairs
    with agent_3 give the numbers of a run on task_02-04, agent_1 vs agent_2 those of the complete data's (4 tasks)."""
    base = rlstats.datasets.simulate(agents=3, tasks=4, seeds=4, effect=0.2, rng=0)
    df = _without(base, "agent_3", ["task_01"])
    dropped = _equivalence(df, na_action="drop", n_resamples=200, rng=0)
    kept = _equivalence(df, na_action="raise", n_resamples=200, rng=0)
    pd.testing.assert_frame_equal(dropped.tidy(), kept.tidy())
    rows = dropped.tidy()
    pair = rows[(rows.agent_1 == "agent_1") & (rows.agent_2 == "agent_2") & (rows.scope == "task")]
    assert pair.task.tolist() == ["task_01", "task_02", "task_03", "task_04"]
    columns = ["estimate", "conf_low", "conf_high", "p_value"]
    ours = rows[rows.scope == "aggregate"].set_index(["agent_1", "agent_2"])
    assert len(ours) == 3
    three = _equivalence(df[df.task != "task_01"], n_resamples=200, rng=0).tidy().query("scope == 'aggregate'")
    whole = _equivalence(base, n_resamples=200, rng=0).tidy().query("scope == 'aggregate'")
    for theirs, pairs in ((three, [("agent_1", "agent_3"), ("agent_2", "agent_3")]), (whole, [("agent_1", "agent_2")])):
        theirs = theirs.set_index(["agent_1", "agent_2"])
        np.testing.assert_array_equal(ours.loc[pairs, columns].to_numpy(float),
                                      theirs.loc[pairs, columns].to_numpy(float))
    assert ours["n_tasks"].tolist() == [4, 3, 3]
    assert not [n for n in dropped.notes if "left out" in n]


def test_drop_leaving_the_aggregate_too_few_tasks_says_so():
    """Pairs that share one task: their aggregate is withheld, named with the task (audit s31: of each pair, whatever
    na_action=; s30 said the option left the aggregate no task where every agent has runs)."""
    base = rlstats.datasets.simulate(agents=3, tasks=3, seeds=4, effect=0.2, rng=0)
    none = base[~((base.agent == "agent_3") & (base.task == "task_01"))
                & ~((base.agent == "agent_1") & (base.task != "task_01"))]
    result = _equivalence(none, na_action="drop", n_resamples=200, rng=0)
    given = result.tidy().query("scope == 'aggregate'")  # agent_2 vs agent_3 share task_02 and task_03
    assert list(zip(given.agent_1, given.agent_2, given.n_tasks)) == [("agent_2", "agent_3", 2)]
    assert (result.tidy().scope == "task").sum() == 3  # agent_1 vs agent_2 on task_01, agent_2 vs agent_3 on 02, 03
    withheld = [n for n in result.notes if n.startswith("the aggregate (IQM) difference is withheld")]
    assert withheld == ["the aggregate (IQM) difference is withheld for agent_1 vs agent_2 (only task_01), agent_1 vs "
                        "agent_3 (no task shared): it is read from a studentised bootstrap of the pair's runs on the "
                        "tasks both its agents ran, which needs 2 or more of them; add tasks both agents run, or read the "
                        "per-task tests"]
    one = _without(base, "agent_3", ["task_02", "task_03"])
    result = _equivalence(one, na_action="omit", n_resamples=200, rng=0)
    withheld = [n for n in result.notes if n.startswith("the aggregate (IQM) difference is withheld")]
    assert len(withheld) == 1
    assert withheld[0].startswith("the aggregate (IQM) difference is withheld for agent_1 vs agent_3 (only task_01), "
                                  "agent_2 vs agent_3 (only task_01)")
    assert result.tidy().query("scope == 'aggregate'").n_tasks.tolist() == [3]  # agent_1 vs agent_2
    assert not any("left out" in n for n in result.notes)


# ----------------------------------------------------------------------------- 2. probability of improvement


def _poi_frame():
    rows = []
    for s in range(4):
        rows += [("A", "a", s, 1.0 + 2e-9 * s + 1e-9), ("B", "a", s, 1.0 + 2e-9 * s)]
        rows += [("A", "z", s, 1e4 * s), ("B", "z", s, 1e4 * s + 1)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_improvement_does_not_depend_on_the_category_order():
    # by hand: on a, A_s > B_s' iff 2s + 1 > 2s' (s >= s'): 10 of 16; on z, iff s > s': 6 of 16; no ties (the
    # differences, 1e-9 on a and 1 on z, lie far above each task's tolerance): (10/16 + 6/16) / 2 = 0.5
    df = _poi_frame()
    intervals = []
    for order in (["a", "z"], ["z", "a"]):
        frame = df.assign(task=pd.Categorical(df.task, categories=order))
        result = _quiet(rlstats.probability_of_improvement, frame, "score ~ agent | task")
        assert result.estimates[0] == 0.5
        assert not any("1e-12" in n for n in result.notes)
        intervals.append(result.intervals)
    np.testing.assert_array_equal(*intervals)


def test_improvement_near_tie_note_names_the_task_holding_it():
    rng = np.random.default_rng(0)
    rows = [(a, t, s, float(rng.normal())) for t in ("alpha", "beta", "gamma") for a in "AB" for s in range(4)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    at = (df.task == "alpha") & (df.seed == 0)
    df.loc[at & (df.agent == "B"), "score"] = df.loc[at & (df.agent == "A"), "score"].iloc[0] + 1e-15
    said = []
    for order in (["alpha", "beta", "gamma"], ["gamma", "beta", "alpha"]):
        frame = df.assign(task=pd.Categorical(df.task, categories=order))
        result = _quiet(rlstats.probability_of_improvement, frame, "score ~ agent | task")
        said.append(([n for n in result.notes if "within 1e-12" in n], float(result.estimates[0])))
    assert said[0] == said[1]
    assert len(said[0][0]) == 1 and said[0][0][0].startswith("some scores of alpha are within 1e-12")


# ----------------------------------------------------------------------------- 3. permutation's refusal


def _unequal():
    df = rlstats.datasets.simulate(agents=2, tasks=1, seeds=6, effect=1.0, rng=0)
    return df[~((df.agent == "agent_2") & (df.seed >= 4))]


def test_permutation_refusal_names_the_way_of_the_function_called():
    df = _unequal()
    with pytest.raises(DesignError) as direct:
        rlstats.permutation(df, "score ~ agent | task")
    assert str(direct.value).endswith(
        "or test them on their runs as they are: rlstats.task_table(..., test='fisher_pitman') (a permutation test of "
        "the mean difference, which takes unequal runs)")
    with pytest.raises(DesignError) as through:
        rlstats.compare(df, "score ~ agent | task", method="permutation")
    assert str(through.value).endswith(
        "or test them on their runs as they are: method='task_table', test='fisher_pitman' (a permutation test of "
        "the mean difference, which takes unequal runs)")


# ----------------------------------------------------------------------------- 4, 5. names and the flat-pairs note


def test_raw_scales_caution_quotes_and_bounds_group_names():
    df = rlstats.datasets.simulate(agents=9, tasks=4, seeds=2, effect=1.0, rng=0)
    first = df.task.isin(["task_01", "task_02"])
    group = ["agent_1", "agent_2", "agent_3", "agent_4", "agent_5", "agent_6", "agent_7"]
    df = df[(df.agent.isin(group) & first) | (df.agent.isin(["agent_8", "agent_9"]) & ~first)].copy()
    df["agent"] = df.agent.astype(str).replace({"agent_1": "PPO, tuned"})
    df.loc[df.task == "task_01", "score"] *= 1000
    design = rlstats.build(df, "score ~ agent | task")
    from rlstats.normalization import warn_raw_scales
    notes = _quiet(warn_raw_scales, design, None).notes[len(design.notes):]
    assert len(notes) == 1
    assert notes[0].startswith("scores of the 2 tasks of 'PPO, tuned', 'agent_2', 'agent_3', 'agent_4', 'agent_5' "
                               "and 2 more were aggregated on their own scales")


def _flat_frame():
    df = rlstats.datasets.simulate(agents=3, tasks=2, seeds=4, effect=1.0, rng=0)
    flat = df.task == "task_02"
    df.loc[flat & (df.agent == "agent_1"), "score"] = 3.0
    df.loc[flat & (df.agent != "agent_1"), "score"] = 5.0
    return df


def test_flat_pairs_note_quotes_names_with_commas():
    df = _flat_frame()
    df["agent"] = df.agent.astype(str).replace({"agent_2": "PPO, tuned"})
    df["task"] = df.task.astype(str).replace({"task_02": "Hopper, v4"})
    result = _quiet(rlstats.task_table, df, "score ~ agent | task", progress=False)
    said = [n for n in result.notes if n.startswith("Welch's t")]
    assert said == ["Welch's t has no spread to read where neither agent's runs vary ('Hopper, v4': 'PPO, tuned' vs "
                    "'agent_1', 'PPO, tuned' vs 'agent_3', 'agent_1' vs 'agent_3'): there equal scores tie (p = 1) "
                    "and different ones are ordered by the exact permutation p-value 1 / C(n + m, n), 1/70 at 4 and "
                    "4 runs (every run of one agent above every run of the other), not by Welch's p = 0"]


def test_flat_pairs_note_says_only_what_happened():
    df = _flat_frame()
    # agent_1's one run on task_02 is not tested: the one flat pair tested ties (agent_2 and agent_3 at 5)
    one = df[~((df.task == "task_02") & (df.agent == "agent_1") & (df.seed > 0))]
    result = _quiet(rlstats.task_table, one, "score ~ agent | task", progress=False)
    rows = result.tidy().set_index(["task", "agent"])
    assert rows.loc[("task_02", "agent_3"), "p_value"] == 1.0
    said = [n for n in result.notes if n.startswith("Welch's t")]
    assert said == ["Welch's t has no spread to read where neither agent's runs vary (task_02: agent_2 vs agent_3): "
                    "there the runs tie at one score and tie in the test (p = 1), where Welch's t is undefined "
                    "(0 / 0)"]
    # every pair apart: only the permutation p-value is said
    apart = df.copy()
    apart.loc[(apart.task == "task_02") & (apart.agent == "agent_3"), "score"] = 7.0
    result = _quiet(rlstats.task_table, apart, "score ~ agent | task", progress=False)
    said = [n for n in result.notes if n.startswith("Welch's t")]
    assert said == ["Welch's t has no spread to read where neither agent's runs vary (task_02: agent_1 vs agent_2, "
                    "agent_1 vs agent_3, agent_2 vs agent_3): there the runs of one agent all lie above the other's "
                    "and are ordered by the exact permutation p-value 1 / C(n + m, n), 1/70 at 4 and 4 runs, not by "
                    "Welch's p = 0"]
    assert result.tidy().set_index(["task", "agent"]).loc[("task_02", "agent_2"), "p_value"] == pytest.approx(1 / 70)


# ----------------------------------------------------------------------------- 6. the option value given


def test_incomplete_tasks_note_names_the_option_value_given():
    df = _without(rlstats.datasets.simulate(agents=3, tasks=4, seeds=4, effect=0.2, rng=0), "agent_3", ["task_01"])
    for value in ("drop", "omit"):
        result = _quiet(rlstats.bootstrap, df, "score ~ agent | task", metrics=["mean"], n_resamples=100, rng=0,
                        progress=False, na_action=value)
        assert [n for n in result.notes if "left out" in n] == [
            f"1 task left out because some agent has no runs there (na_action=\"{value}\"; 8 runs dropped): task_01"]
        table = _quiet(rlstats.task_table, df, "score ~ agent | task", aggregate="bootstrap", n_resamples=100, rng=0,
                       progress=False, na_action=value)
        assert [n for n in table.notes if "left out" in n] == [
            f"the aggregate row reads the 3 tasks where every agent has runs; 1 task left out of it "
            f"(na_action=\"{value}\"; the rows above keep it): task_01"]


# ----------------------------------------------------------------------------- 7. tuning's cap note, by side


def _capped_sweep():
    rng = np.random.default_rng(1)
    rows = [("A", task, c, s, min(rng.normal(995 + 3 * c, 10), 1000.0))
            for task in ("t1", "t2") for c in range(6) for s in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])


def _cap_notes(df, bounds, words):
    """tuning()'s notes on interval ends beyond the data's scores, on one side (its words)."""
    result = _quiet(rlstats.tuning, df, "score ~ agent | task/lr/seed", n_resamples=200, rng=0, progress=False,
                    bounds=bounds)
    return [n for n in result.notes if words in n]


def test_cap_note_judges_each_side_of_the_bounds():
    df = _capped_sweep()

    def said(bounds):
        return _cap_notes(df, bounds, " lie above ")

    expected = ("24 ends of the tuned scores and their intervals, and of the expected-max curves and bands lie "
                "above 1000, the largest score of tasks 't1', 't2' (31 of their 48 runs reach it): if the scores "
                "cannot exceed it (a cap), "
                "pass bounds={} to clip them to it, which keeps the coverage (the true value lies within)")
    assert said(None) == [expected.format("(None, 1000)")]
    assert said((0, None)) == [expected.format("(0, 1000)")]
    assert said((None, 1000)) == [] and said((0, 1000)) == []


def test_floor_note_keeps_the_upper_bound_given():
    rng = np.random.default_rng(1)
    rows = [("A", task, c, s, max(rng.normal(5 - 3 * c, 10), 0.0))
            for task in ("t1", "t2") for c in range(6) for s in range(4)]
    df = pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])

    def said(bounds):
        return _cap_notes(df, bounds, " lie below ")

    expected = ("22 ends of the tuned scores and their intervals, and of the expected-max curves and bands lie "
                "below 0, the smallest score of tasks 't1', 't2' (28 of their 48 runs reach it): if the scores "
                "cannot fall below it (a cap), "
                "pass bounds={} to clip them to it, which keeps the coverage (the true value lies within)")
    assert said(None) == [expected.format("(0, None)")]
    assert said((None, 100)) == [expected.format("(0, 100)")]
    assert said((0, None)) == []
