"""Audit s26 (review26a): review of session 26's merges (real26, across26, cli26) on main.

Fixed:

- across26's note on runs copied across tasks offered ``subset="~(agent == 'PPO' & task == 'halfcheetah')"`` to
  "leave them out" (the 20 copies) while it leaves out all 30 of PPO's runs on halfcheetah: it now says so;
- two round values runs reach exactly (a gridworld's optimal return 0.955 and 0.946, one run each of agent A's cells
  on two tasks amid means of 8 decimals) read as a copy (chance 1e-11): a pair's resolution is now also the median
  decimal step of the scores it shares (E 0.2, no note); a copy holding round scores is still found, at any unit;
- cli26's order check of ``adastop update`` refused a JSON state named state.txt as "a table", offering a command
  that dropped the batch: a STATE that is missing or holds JSON is a state.

Left for the lead (strict xfails): an agent's runs copied as another agent's on the SAME task got no note (only
cells of different tasks were paired; fixed in s28, copies28); a whole cell of Atari scores copied to another game
(99 shared, E 2.4) and a whole cell of fine scores holding one pair one step apart (E = 1.0 from that near miss)
go unnoted, since RESOLUTION_MARGIN asks ``(100 E)**m / m! <= share``, out of reach for any m <= n once E >= n / 100 (the last fixed in
s27, copies27: the margin multiplies the decimal step's part of E only).
"""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import COPIED_ACROSS, COPIED_RUNS, design_of


def _copy_notes(frame):
    return [note for note in rlstats.build(frame, "score ~ agent | task").notes
            if COPIED_ACROSS in note or COPIED_RUNS in note]


def _frame(n_tasks=5, n_agents=3, n_runs=10, seed=5):
    rng = np.random.default_rng(seed)
    n = n_tasks * n_agents * n_runs
    return pd.DataFrame({"task": np.repeat([f"t{i}" for i in range(n_tasks)], n_agents * n_runs),
                         "agent": np.tile(np.repeat([f"a{j}" for j in range(n_agents)], n_runs), n_tasks),
                         "seed": np.tile(np.arange(n_runs), n_tasks * n_agents),
                         "score": np.round(rng.normal(1000, 300, n), 3)})


def test_the_hint_names_the_runs_its_subset_leaves_out():
    """PPO's 30 runs on halfcheetah hold 20 copies: the subset= offered leaves out all 30, and says so."""
    frame = _frame()
    source = frame.loc[(frame["task"] == "t0") & (frame["agent"] == "a0"), "score"].to_numpy()
    target = np.flatnonzero(((frame["task"] == "t1") & (frame["agent"] == "a0")).to_numpy())[:6]
    frame.loc[target, "score"] = source[:6]
    notes = [note for note in _copy_notes(frame) if COPIED_ACROSS in note]
    assert len(notes) == 1
    assert notes[0].startswith("6 of a0's 10 runs on t0 repeat exactly the scores of 6 of its 10 runs on t1 "
                               "(6 scores shared)")
    assert notes[0].endswith("find the task they were run on and replace the other's copies with its own runs, or "
                             "leave out a0's 10 runs on t0 if those are the copies "
                             "(data=df[mask] (a boolean mask of the rows where ~(agent == 'a0' & task == 't0') "
                             "holds) to rlstats.build)")  # build takes no subset= (review s28)
    kept = design_of(frame, "score ~ agent | task", subset="~(agent == 'a0' & task == 't0')")
    assert int(kept.counts.sum()) == len(frame) - 10  # the 10 runs the note says, not the 6 copies alone
    assert not [note for note in kept.notes if COPIED_ACROSS in note]


def test_an_agents_runs_copied_as_another_agents_on_the_same_task():
    """(Fixed in s28, copies28: the cells of one task are paired too; tested further in test_audit_s28_copies28.py.)"""
    frame = _frame()
    a1 = ((frame["task"] == "t0") & (frame["agent"] == "a1")).to_numpy()
    frame.loc[a1, "score"] = frame.loc[(frame["task"] == "t0") & (frame["agent"] == "a0"), "score"].to_numpy()
    notes = _copy_notes(frame)
    assert len(notes) == 1 and notes[0].startswith(
        "10 of a0's 10 runs on t0 repeat exactly the scores of 10 of a1's 10 runs on t0 (10 scores shared)")


def _gridworld(both_agents):
    """Agents A and B on two grid tasks with the same optimal return 0.955 and 0.946 one step longer: one of A's 10
    runs on each task at each (B's too where ``both_agents``), the others means at 8 decimals."""
    rng = np.random.default_rng(5)
    y = rng.uniform(0.5, 0.95, (4, 10)).round(8)  # A@e1, B@e1, A@e2, B@e2
    cells = [0, 1, 2, 3] if both_agents else [0, 2]
    y[cells, 0], y[cells, 1] = 0.955, 0.946
    return pd.DataFrame({"task": np.repeat(["e1", "e2"], 20), "agent": np.tile(np.repeat(["A", "B"], 10), 2),
                         "score": y.ravel()})


def test_round_values_every_agent_reaches_are_no_copy():
    assert not _copy_notes(_gridworld(both_agents=True))  # the task's tie share across agents says they are common


def test_round_values_one_agent_reaches_are_no_copy():
    """Shared at their own step (0.001, the median of the shared scores' decimal steps), not the cells' 1e-8: E is
    100 x 0.001 / (2 sqrt(pi) sigma), about 0.2, far above COPY_CHANCE (it was 1e-11 as a chance bound)."""
    import math

    from rlstats.statistics import COPY_CHANCE

    frame = _gridworld(both_agents=False)
    spreads = []
    for task in ("e1", "e2"):
        x = frame.loc[(frame["agent"] == "A") & (frame["task"] == task), "score"].to_numpy()
        q75, q25 = np.percentile(x, [75, 25])
        spreads.append(min(x.std(ddof=1), (q75 - q25) / 1.349))
    expected = 10 * 10 * 0.001 / (2 * math.sqrt(math.pi) * min(spreads))
    assert 0.1 < expected < 0.5 and expected > COPY_CHANCE
    assert not _copy_notes(frame)
    for scale in (1000.0, 3.7):
        assert not _copy_notes(frame.assign(score=frame["score"] * scale))


def test_a_copy_holding_round_scores_is_still_found():
    """A copy of 6 runs, 2 of whose scores are round (0.5, 0.25) amid 8 decimals: the median step of the 6 shared
    scores is the cells' own, and the note says all 6."""
    rng = np.random.default_rng(11)
    y = rng.uniform(0.1, 0.9, (4, 10)).round(8)  # A@e1, B@e1, A@e2, B@e2
    y[0, :2] = 0.5, 0.25
    y[2, :6] = y[0, :6]
    frame = pd.DataFrame({"task": np.repeat(["e1", "e2"], 20), "agent": np.tile(np.repeat(["A", "B"], 10), 2),
                          "score": y.ravel()})
    for scale in (1.0, 1 / 3, 3.7):
        notes = [note for note in _copy_notes(frame.assign(score=frame["score"] * scale)) if COPIED_ACROSS in note]
        assert len(notes) == 1 and notes[0].startswith(
            "6 of A's 10 runs on e1 repeat exactly the scores of 6 of its 10 runs on e2 (6 scores shared)")


# -- cli26: adastop update's order check ----------------------------------------------------------------------------

def _batch_files(folder):
    import rlstats as rl

    data = rl.datasets.simulate(agents=2, tasks=1, seeds=10, rng=0).drop(columns="task")
    for i in (1, 2):
        data[data["seed"] // 5 == i - 1][["agent", "score"]].to_csv(folder / f"b{i}.csv", index=False)
    return folder / "b1.csv", folder / "b2.csv"


def test_a_state_named_txt_is_a_state(tmp_path):
    """A state named state.txt is created and read back (it was refused as 'a table (.txt)', offering a command
    that dropped the batch); a table named as the state is still refused."""
    from conftest import cli_run

    b1, b2 = _batch_files(tmp_path)
    state = tmp_path / "state.txt"
    status, _, err = cli_run("adastop", "update", state, b1, "--n", "5", "--K", "2", "--seed", "0")
    assert status == 0, err
    assert state.read_text().lstrip().startswith("{")
    status, out, err = cli_run("adastop", "update", state, b2)
    assert status == 0, err
    assert out.startswith("after batch 2 of at most 2 (n = 5 runs per agent per batch):")
    status, _, err = cli_run("adastop", "update", b1, b2)  # a table as the state: refused, nothing written
    assert status != 0 and f"STATE {b1} is a table (.csv)" in err


# -- left for the lead: coarse scores copied whole ------------------------------------------------------------------

@pytest.mark.xfail(strict=True, reason="CURL's 100 Alien scores (1 decimal, sd ~100) written over its 100 Amidar runs "
                                       "share 99 scores where E = 2.4 (E**m / m! about 1e-118, share 3.8e-8), but "
                                       "E > COPY_CHANCE asks for (RESOLUTION_MARGIN E)**m / m! <= share, which no "
                                       "m <= n meets once E >= n / 100: a whole cell of such scores copied is never "
                                       "noted (s25's rule that coarse scores never count)")
def test_a_whole_cell_of_atari_scores_copied_to_another_game(published):
    atari = pd.read_csv(published / "atari100k.csv")
    source = ((atari["agent"] == "CURL") & (atari["task"] == "Alien")).to_numpy()
    target = ((atari["agent"] == "CURL") & (atari["task"] == "Amidar")).to_numpy()
    assert source.sum() == target.sum() == 100
    atari.loc[target, "score"] = atari.loc[source, "score"].to_numpy()
    assert [note for note in _copy_notes(atari) if COPIED_ACROSS in note]


# A's whole cell copied with one near pair inside: fixed in s27 (copies27), tested in test_audit_s27_copies27.py
