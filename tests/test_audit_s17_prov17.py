"""Audit s17 (prov17): notes after ``rlstats.concat`` of frames read apart (each note must be true of the stacked
frame and of any subset of it), and ``power()`` with the blocked rank test at a design where its exact test cannot
reject. Each test is a minimal reproducer of one defect; its docstring says what was seen."""

from __future__ import annotations

import functools
import itertools
import math
import re

import numpy as np
import pytest

import rlstats
from rlstats.provenance import notes_for

from conftest import SHARED_DATA

SB3 = SHARED_DATA / "logs" / "sb3_classic"
LEFT_OUT = "these data lack {:,} rows of the frame they were taken from; notes about those rows alone are not shown"


def _read_agents(smoothed=()):
    """PPO's and A2C's evaluations read apart (one folder each, runs named by task and seed), with the agent
    added as a column, as a user gathering two algorithms' logs does; ``smoothed``: the agents read with smooth=3."""
    if not SB3.is_dir():
        pytest.skip(f"the SB3 logs are not at {SB3}")
    frames = []
    for agent in ("PPO", "A2C"):
        frame = rlstats.read_logs(SB3 / agent, "{task}/seed_{seed}", format="sb3_eval", progress=False,
                                  tags={"eval/mean_reward": "score"}, **({"smooth": 3} if agent in smoothed else {}))
        frame["agent"] = agent
        frames.append(frame)
    return frames


def _read_counts(notes):
    """{agent named in the note: runs it says were read} of the notes that say how many runs were read."""
    out = {}
    for note in notes:
        found = re.match(r"read (\d+) runs? from .*\(rows with agent '(\w+)'\)$", note)
        if note.startswith("read "):
            assert found, note  # a count of runs read must say whose runs it counts
            out[found.group(2)] = int(found.group(1))
    return out


def test_the_notes_of_two_agents_read_apart_count_the_runs_of_each():
    """PPO's and A2C's SB3 logs read apart and concatenated: the 12-run frame said "read 6 runs from 6 files"
    (each frame's note is bound to task and seed, which collide across the two, so A2C's note was taken for PPO's
    and dropped as a repeat), and so did every result on it and on any subset (a CartPole subset: "read 3 runs"
    of 6)."""
    ppo, a2c = _read_agents()
    both = rlstats.concat([ppo, a2c], ignore_index=True)
    runs = both.groupby(["agent", "task", "seed"]).size()
    assert len(runs) == 12
    assert _read_counts(notes_for(both)) == {"PPO": 6, "A2C": 6}
    # each frame's own note, said of the rows it brought: the same text, with what tells them apart
    assert [n for n in notes_for(both) if n.startswith("read ")] == [
        ppo.attrs["rlstats_notes"][0] + " (rows with agent 'PPO')", a2c.attrs["rlstats_notes"][0] + " (rows with agent 'A2C')"]
    # a subset of rows of both frames: each count is of its own runs present (3 CartPole runs each)
    cartpole = both[both["task"] == "CartPole-v1"]
    assert _read_counts(notes_for(cartpole)) == cartpole.groupby("agent")[["task", "seed"]].value_counts().groupby(
        "agent").size().to_dict() == {"PPO": 3, "A2C": 3}
    # a subset of one frame's rows: only its note, and the line counting the rows of the other (by pandas)
    only_ppo = both[both["agent"] == "PPO"]
    said = notes_for(only_ppo)
    assert _read_counts(said) == {"PPO": 6} and said[-1] == LEFT_OUT.format(int((both["agent"] != "PPO").sum()))
    # a result on the last evaluation of each run repeats the notes true of its rows
    last = both[both["step"] == both.groupby(["agent", "task", "seed"])["step"].transform("max")]
    res = rlstats.compare(last[last["task"] == "CartPole-v1"], "score ~ agent | task/seed")
    assert _read_counts(res.notes) == {"PPO": 3, "A2C": 3}


def test_a_note_of_one_frame_is_not_said_of_the_other_after_concat():
    """PPO read with smooth=3 and A2C read as logged: the concat said "... smoothed ..." of all 12 runs (an
    operation note of one frame, printed as true of every row), and so did the A2C rows alone."""
    ppo, a2c = _read_agents(smoothed=("PPO",))
    smoothing = [n for n in ppo.attrs["rlstats_notes"] if "smooth" in n or "mean over" in n and "window" in n]
    assert len(smoothing) == 1 and not [n for n in a2c.attrs["rlstats_notes"] if n == smoothing[0]]
    both = rlstats.concat([ppo, a2c], ignore_index=True)
    said = notes_for(both)
    assert smoothing[0] not in said and smoothing[0] + " (rows with agent 'PPO')" in said
    # the note both frames say (what an evaluations.npz row is) stays one note, said of every row
    shared = ppo.attrs["rlstats_notes"][1]
    assert shared == a2c.attrs["rlstats_notes"][1] and said.count(shared) == 1
    only_a2c = notes_for(both[both["agent"] == "A2C"])
    assert not [n for n in only_a2c if "PPO" in n or n.startswith(smoothing[0][:20])]
    assert shared in only_a2c and only_a2c[-1] == LEFT_OUT.format(int((both["agent"] == "PPO").sum()))
    assert smoothing[0] + " (rows with agent 'PPO')" in notes_for(both[both["agent"] == "PPO"])


def test_the_concat_of_a_normalised_and_a_raw_frame_says_which_rows_were_normalised():
    """A normalised frame stacked with a raw one of the same tasks: "'score' normalised per task ..." was said of
    every row (the note is bound to the tasks, which both frames have)."""
    a = rlstats.normalize(rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=0), "minmax")
    b = rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=1)
    b["agent"] = "new " + b["agent"].astype(str)
    both = rlstats.concat([a, b], ignore_index=True)
    said = notes_for(both)
    assert said[0].startswith("'score' normalised per task") and said[0].endswith("(rows with agent 'agent_1' and "
                                                                                    "'agent_2')")
    raw = notes_for(both[both["agent"].astype(str).str.startswith("new")])
    assert not [n for n in raw if "normalised" in n]


# ----------------------------------------------------------------------------- power of a rank test that cannot reject

@functools.lru_cache(maxsize=None)
def _rank_test_pvalues(agents, tasks, seeds):
    """Every attainable p-value of the exact blocked rank test at a complete design (each agent ``seeds`` runs on
    each of ``tasks`` tasks, no ties), by enumerating every within-task arrangement of the ranks. The statistic is
    a monotone function of sum_j (R_j - E R_j)^2 over the agents' rank sums R_j (the Friedman and Mack-Skillings
    statistics on a complete design with equal cells are), so its null law is the law of that sum."""
    n = agents * seeds
    sums_per_task = []
    for order in itertools.permutations(range(1, n + 1)):  # each task's ranks, assigned run by run to the agents
        groups = np.asarray(order).reshape(agents, seeds)
        sums_per_task.append(groups.sum(axis=1))
    per_task = np.unique(np.array(sums_per_task), axis=0, return_counts=True)
    values, counts = per_task
    totals = {(): 1}
    for _ in range(tasks):  # convolve the tasks' rank-sum vectors
        nxt = {}
        for total, weight in totals.items():
            for value, count in zip(values, counts):
                key = tuple(np.add(total, value)) if total else tuple(value)
                nxt[key] = nxt.get(key, 0) + weight * int(count)
        totals = nxt
    mean = tasks * seeds * (n + 1) / 2
    statistic = {}
    for key, weight in totals.items():
        t = round(float(np.sum((np.asarray(key) - mean) ** 2)), 6)
        statistic[t] = statistic.get(t, 0) + weight
    t_values = np.array(sorted(statistic))
    weights = np.array([statistic[t] for t in t_values], dtype=float)
    return np.cumsum(weights[::-1])[::-1] / weights.sum()  # P(T >= t) at each attainable t


@pytest.mark.parametrize("agents, tasks, seeds", [(2, 1, (3, 4)), (3, 2, (1,)), (3, 3, (1,)), (3, 4, (1,)),
                                                   (2, 3, (2,)), (3, 5, (1,))])
def test_power_of_the_rank_test_states_the_level_it_can_spend(agents, tasks, seeds):
    """power() of the blocked rank test at 2 agents x 1 task x 3 seeds printed power 0 with no note (its exact test's
    smallest p-value is 2 / C(6, 3) = 0.1 > 0.05) and level_spent NaN; AdaStop's and the permutation test's table
    said so. Now the level it can spend is the largest attainable exact p-value at most alpha (0 where none is),
    checked here by enumeration."""
    res = rlstats.power("skillings_mack", agents=agents, tasks=tasks, seeds=list(seeds), effect=3.0, n_sim=10, rng=0,
                        progress=False)
    for s in seeds:
        attainable = _rank_test_pvalues(agents, tasks, s)
        at_most = attainable[attainable <= 0.05]
        expected = float(at_most.max()) if at_most.size else 0.0
        row = res.table.set_index("seeds").loc[s]
        assert row["level_spent"] == pytest.approx(expected, rel=1e-12, abs=1e-15), (s, attainable.min())
    cannot = [s for s in seeds if _rank_test_pvalues(agents, tasks, s).min() > 0.05]
    said = [n for n in res.notes if "can spend no level" in n]
    if cannot:
        assert said == [f"the blocked rank test can spend no level at {cannot[0]} seeds per cell (level_spent 0): it "
                        "cannot reject there, whatever the effect"]
        assert "can spend no level" in str(res) and "can spend no level" in res.report()
    else:
        assert not said


def test_the_enumeration_matches_closed_forms():
    """The enumeration above against closed forms: two agents on one task is the two-sided rank-sum test, whose
    smallest p is 2 / C(2n, n); three agents on T tasks with one run, 6 / 6**T (the same ranking on every task)."""
    assert _rank_test_pvalues(2, 1, 3).min() == pytest.approx(2 / math.comb(6, 3))
    assert _rank_test_pvalues(2, 1, 4).min() == pytest.approx(2 / math.comb(8, 4))
    assert _rank_test_pvalues(3, 3, 1).min() == pytest.approx(6 / 6**3)
    # the levels test_power.py and test_recorded_outputs.py state, as fractions
    for (agents, tasks, seeds), level in {(3, 4, 1): 1 / 24, (2, 3, 2): 1 / 27, (3, 5, 1): 17 / 432}.items():
        attainable = _rank_test_pvalues(agents, tasks, seeds)
        assert attainable[attainable <= 0.05].max() == pytest.approx(level, rel=1e-12)


def test_parts_of_one_frame_read_back_apart_are_still_one_frame():
    """Parts of one normalised frame pickled apart (their provenances equal, no longer one object) are still taken
    as one frame's parts: the whole frame again says every note as it was, unqualified."""
    import pickle

    frame = rlstats.normalize(rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=0), "minmax")
    parts = [pickle.loads(pickle.dumps(frame.iloc[:5])), pickle.loads(pickle.dumps(frame.iloc[5:]))]
    assert notes_for(rlstats.concat(parts)) == notes_for(frame) == tuple(frame.attrs["rlstats_notes"])


def test_a_note_whose_rows_nothing_tells_apart_is_not_shown():
    """A normalised frame stacked with a raw one of the same agents, tasks and seeds: no column but the score tells
    their rows apart, so the normalisation note cannot be said of its rows alone: it is left out, and the line says
    notes are not shown."""
    a = rlstats.normalize(rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=0), "minmax")
    b = rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=1)
    assert notes_for(rlstats.concat([a, b])) == (
        "notes of the frame these rows came from that no longer hold for them are not shown",)
