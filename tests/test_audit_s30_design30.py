"""Audit s30 (design30): is every sentence of a result about the rows it analysed, on irregular designs?

Simulated designs made irregular (agents that never share a task, one run in some cells or in every cell of an
agent, an empty cell with and without na_action="drop", unused Categorical levels, NaN scores dropped, a task where
every agent ties, an agent with constant scores, 2 and 8 agents, one task) were run through every back end of
``rlstats.compare`` (print, summary(), tidy(), to_latex()), checking programmatically that every agent and task named
exists in the analysed rows and that no count of agents or tasks exceeds the design's, and reading the rest. What was
wrong:

1. equivalence()'s note on Welch's t with unlike spreads named the pair's order by the tidy columns, "SD ratio,
   agent_1's over agent_2's": for agents named agent_1, agent_2, ... (simulate()'s names) the note about
   "agent_1 vs agent_3" named agent_2, an agent outside the pair. It now says "the 1st agent's over the 2nd's", the
   printed header's words ("delta = 1st agent - 2nd agent").
2. tuning()'s note of the band's kurtosis counted the sweeps whose band it printed, "above 0 in 5 of 12 sweeps", of a
   design of 18 sweeps (6 held one seed, their bands withheld): it now says "of the 12 sweeps with a band".
3. task_table()'s key says "every ordered pair of agents was tested one-sided with the Welch t test"; where neither
   agent's runs vary (a cap every run reached) the kernel ties equal scores and orders different ones by the exact
   permutation p-value 1 / C(n + m, n) instead of Welch's p = 0 (audit s9), so agent_1, every run 3 below every run
   5 of the others, stayed possibly best at p = 1/70 (Holm 0.086) with no word. A note now names those pairs and the
   p-value they took.
4. The raw-scales caution (normalization.warn_raw_scales) compared every task's range with every other's, also on
   agents in groups that never share a task, whose aggregates read their own group's tasks alone: "scores of 6 tasks
   were aggregated on their own scales (... 'task_01' ... 13.3 times the median of the other tasks' ranges)" where no
   aggregate read more than 3 tasks and task_01 was 5.0 times its own group's (equivalence, bayes, tuning). Each
   group's tasks are now judged apart, and a caution names its group ("scores of the 3 tasks of agent_1, agent_2").

The grid itself is tests/reference/irregular_designs_grid.py (18 designs x 14 back ends: 198 ran, 54 refused with a
message naming the cells or options, no crash).
"""
import pandas as pd
import pytest

from conftest import caught

import rlstats

A = [1.0, 1.1, 0.9, 1.05, 0.95]  # SD 0.079
B = [0.6, 0.7, 0.8, 1.5, 1.4]  # SD 0.418: 5.3 times A's


def _unlike_note(names, **options):
    frame = pd.DataFrame([(agent, "t1", v) for agent, values in zip(names, (A, B)) for v in values],
                         columns=["agent", "task", "score"])
    options = {"margin": 1.0, "alternative": "noninferior",
               "control": names[1], "aggregate": None, "progress": False, **options}
    (note,) = [n for n in rlstats.equivalence(frame, "score ~ agent | task", **options).notes
               if "true spreads differ" in n]
    return note


def test_equivalence_unlike_spread_note_names_no_agent_outside_the_pair():
    note = _unlike_note(["agent_1", "agent_3"])
    assert note.startswith("'non-inferior' with runs alike in number (the larger under 2 times the smaller): agent_1 "
                           "vs agent_3, 5 vs 5 runs (t1: SDs 5.3 times apart)")
    assert "agent_2" not in note
    assert "(SD ratio, the 1st agent's over the 2nd's, 1/8 to 1/2 or 2 to 8; their runs do not rule it out: " in note
    # lower scores better reads the mirrored rows: the ratio is the 2nd agent's over the 1st's
    note = _unlike_note(["agent_1", "agent_3"], higher_is_better=False)
    assert "(SD ratio, the 2nd agent's over the 1st's, 1/8 to 1/2 or 2 to 8; " in note and "agent_2" not in note


def test_tuning_kurtosis_note_says_which_sweeps_it_counts():
    # two learning rates a sweep (the seeds' parity), 4 seeds each: each agent one configuration is refused (new-user
    # trial s38), and a configuration's kurtosis needs 4 runs
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=8, effect=1.0, rng=0)
    df = df[~((df.seed > 0) & (df.agent == "agent_3"))].assign(lr=lambda d: d.seed % 2)
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", n_resamples=200, rng=1, progress=False)
    (note,) = [n for n in res.notes if "excess kurtosis" in n]
    # 18 sweeps (3 agents x 6 tasks); agent_3's 6 hold one seed and have no band: 12 bands counted the kurtosis
    # (scipy.stats.kstat's k4 / k2^2 of each configuration, averaged per sweep, floored at 0: 8 above 0, the largest
    # 2.387 of agent_2 on task_06)
    assert "above 0 in 8 of the 12 sweeps with a band, up to 2.39 (agent_2 on task_06)" in note
    assert sum("expected-max bands are withheld in 6 sweeps" in n for n in res.notes) == 1
    # one sweep of two with a band: its own kurtosis, said to be that sweep's (kstat: 0.9285)
    df = rlstats.datasets.simulate(agents=2, tasks=1, seeds=10, effect=1.0, distribution="lognormal", rng=3)
    df = df[~((df.seed > 0) & (df.agent == "agent_2"))].assign(lr=lambda d: d.seed % 2)
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", n_resamples=200, rng=1, progress=False)
    (note,) = [n for n in res.notes if "excess kurtosis" in n]
    assert "excess kurtosis (0.929, the configurations' mean k4 / k2^2, floored at 0, in the one sweep with a band " \
        "(agent_1 on task_01)): " in note


def _flat_task():
    """task_02: every run of agent_1 scores 3, every run of agent_2 and agent_3 scores 5 (a capped score, say)."""
    df = rlstats.datasets.simulate(agents=3, tasks=3, seeds=4, effect=1.0, rng=0)
    for agent, value in (("agent_1", 3.0), ("agent_2", 5.0), ("agent_3", 5.0)):
        df.loc[(df.task == "task_02") & (df.agent == agent), "score"] = value
    return df


def test_task_table_says_where_neither_agents_runs_vary():
    res = rlstats.task_table(_flat_task(), "score ~ agent | task", progress=False)
    row = res.tidy().set_index(["task", "agent"]).loc[("task_02", "agent_1")]
    # every run of agent_2 above every run of agent_1: the one split as extreme, 1 / C(8, 4)
    assert row.p_value == pytest.approx(1 / 70) and bool(row.possibly_best)
    (note,) = [n for n in res.notes if "neither agent's runs vary" in n and "Welch" in n]
    assert note == ("Welch's t has no spread to read where neither agent's runs vary (task_02: agent_1 vs agent_2, "
                    "agent_1 vs agent_3, agent_2 vs agent_3): there equal scores tie (p = 1) and different ones are "
                    "ordered by the exact permutation p-value 1 / C(n + m, n), 1/70 at 4 and 4 runs (every run of one "
                    "agent above every run of the other), not by Welch's p = 0")
    assert note in str(res)


def _disconnected(scale_first=1.0):
    """agent_1 and agent_2 on task_01-03, agent_3 and agent_4 on task_04-06: no aggregate mixes the two groups' tasks."""
    df = rlstats.datasets.simulate(agents=4, tasks=6, seeds=4, effect=1.0, rng=0)
    first = df.task.isin(["task_01", "task_02", "task_03"])
    df = df[(df.agent.isin(["agent_1", "agent_2"]) & first) | (df.agent.isin(["agent_3", "agent_4"]) & ~first)]
    df = df.reset_index(drop=True)
    df.loc[df.task == "task_01", "score"] *= scale_first
    return df


def test_raw_scales_caution_reads_the_tasks_each_group_aggregates():
    # task_01's range is 13.3 times the median of the other five tasks', but 5.0 times its own group's (task_02,
    # task_03) and task_06's 7.4 times task_04's and task_05's: no aggregate mixes ranges ten times apart (scale32's
    # halves are read from 4 tasks: at 3 the narrower half is one task, whose range is mostly chance; review32c)
    res, said = caught(lambda: rlstats.equivalence(_disconnected(), "score ~ agent | task", margin=1.0,
                                                   aggregate=None, progress=False))
    assert not said and not [n for n in res.notes if "on their own scales" in n]
    # ten times wider still, task_01 is 50 times its group's median range: the caution names the group it is of
    with pytest.warns(rlstats.RlstatsWarning, match="scores of the 3 tasks of agent_1, agent_2 are aggregated"):
        res = rlstats.equivalence(_disconnected(10.0), "score ~ agent | task", margin=1.0, aggregate=None,
                                  progress=False)
    (note,) = [n for n in res.notes if "on their own scales" in n and "agent_1, agent_2" in n]
    assert note.startswith("scores of the 3 tasks of agent_1, agent_2 were aggregated on their own scales (the range "
                           "of the scores of 'task_01', largest minus smallest over all agents and runs, is 49.6 "
                           "times the median of the other tasks' ranges)")
