"""Audit s26 (across26): runs of one task whose scores repeat runs of ANOTHER task exactly.

Found: ``statistics.copied_runs`` (session 25) looked within agent x task cells only.  In the AdaStop paper's MuJoCo
batches (``rlstats.datasets.load("mujoco_adastop")``), 20 of PPO's 30 HalfCheetah runs (batches 1 to 4) hold PPO's
Hopper scores exactly (a column copied between the task files), and no note said so.
Fixed in the one home: ``copied_runs(..., across_blocks=True)`` also pairs the cells of different tasks holding a
score (one sort by score; pairs formed only among the cells holding one score, at most ``COPY_HOLDERS``) and judges
each pair by the within-cell rules (``E = n_a n_b q / (2 sqrt(pi) sigma)``, the coarser resolution and the smaller
spread of the two cells, or the tasks' shares of ties across cells, or the pair's near misses, or the data's near
ties across tasks, the largest; ``E**m / m!`` against ``COPY_CHANCE`` shared among the pairs of cells of different
tasks); ``design.copied_runs_note`` says one sentence per pair found.  The survey of every published dataset is
``tests/reference/copied_across_survey.py``: the note fires on mujoco_adastop alone (PPO halfcheetah ~ hopper, 20
scores, chance 3e-90); the Dopamine baselines with each iteration read as a task (358,200 runs, 71,640 cells) raised
a false alarm (Rainbow's IceHockey at iterations 121 and 178, 2 shared means of ~75 integer returns, chance 2.7e-13)
until the data's near ties across tasks were read as a chance too.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from conftest import load_dataset
import rlstats
from rlstats.design import COPIED_ACROSS, COPIED_RUNS, design_of
from rlstats.statistics import COPY_CHANCE, copied_runs

MUJOCO = ("20 of PPO's 30 runs on halfcheetah repeat exactly the scores of 30 of its 30 runs on hopper (20 distinct "
          "scores shared, some repeated within a cell), whose chance at the scores' resolution is at most 3e-90: one task's runs look copied into the "
          "other's file, not runs of their own; find the task they were run on and replace the other's copies with "
          "its own runs, or leave out PPO's 30 runs on halfcheetah if those are the copies "
          "(subset=\"~(agent == 'PPO' & task == 'halfcheetah')\" and na_action=\"drop\", which leaves out "
          "halfcheetah where the method compares every agent on every task)")  # small36: bootstrap needs it


def across(notes):
    return [note for note in notes if COPIED_ACROSS in note]


def _cell_codes(design):
    n = design.n_agents
    return design.task * n + design.agent, design.n_tasks * n, np.arange(design.n_tasks * n) // n


# -- a frame whose bound is computed by hand ------------------------------------------------------------------------

def _hand_frame(shared=5):
    """Agents A and B on tasks t1 and t2, 10 runs a cell, scores at 2 decimals at least 11 apart (no near misses,
    no ties but those made): ``shared`` of A's runs on t2 hold A's first scores on t1."""
    rng = np.random.default_rng(26)
    slots = rng.permutation(400)[:40] * 11.0 + rng.integers(1, 99, 40) / 100  # 40 scores at least 10.01 apart
    cells = slots.reshape(4, 10).copy()  # A@t1, A@t2, B@t1, B@t2
    cells[1, :shared] = cells[0, :shared]
    return pd.DataFrame({"agent": np.repeat(["A", "A", "B", "B"], 10), "task": np.repeat(["t1", "t2", "t1", "t2"], 10),
                         "seed": np.tile(np.arange(10), 4), "score": cells.ravel()})


def _by_hand(frame, shared):
    """E = n_a n_b q / (2 sqrt(pi) sigma) with q = 0.01 and sigma the smaller spread of A's two cells, and the bound
    E**m / m!, written out."""
    spreads = []
    for task in ("t1", "t2"):
        x = frame.loc[(frame["agent"] == "A") & (frame["task"] == task), "score"].to_numpy()
        q75, q25 = np.percentile(x, [75, 25])
        spreads.append(min(x.std(ddof=1), (q75 - q25) / 1.349))
    expected = 10 * 10 * 0.01 / (2 * math.sqrt(math.pi) * min(spreads))
    return expected, expected ** shared / math.factorial(shared)


def test_the_bound_by_hand():
    frame = _hand_frame(shared=5)
    design = rlstats.build(frame, "score ~ agent | task")
    cell, n_cells, block = _cell_codes(design)
    copies, chance, found = copied_runs(frame["score"].to_numpy()[design.row_position], cell, n_cells, block,
                                        across_blocks=True)
    assert copies.tolist() == [0, 0, 0, 0]
    expected, bound = _by_hand(frame, 5)
    assert 1e-4 < expected < 1e-3  # q / (2 sqrt(pi) sigma) is the largest term here: no near miss, no other tie
    assert found.first.tolist() == [0] and found.second.tolist() == [2]  # A on t1 (cell 0), A on t2 (cell 2)
    assert found.shared.tolist() == [5] and found.runs_first.tolist() == [5] and found.runs_second.tolist() == [5]
    assert found.chance[0] == pytest.approx(bound, rel=1e-12)
    assert bound <= COPY_CHANCE / 4  # shared among the 4 pairs of cells of different tasks
    assert across(design.notes) == [
        f"5 of A's 10 runs on t1 repeat exactly the scores of 5 of its 10 runs on t2 (5 scores shared), whose chance "
        f"at the scores' resolution is at most {bound:.1g}: one task's runs look copied into the other's file, not "
        "runs of their own; find the task they were run on and replace the other's copies with its own runs, or "
        "leave out A's 10 runs on t1 if those are the copies (data=df[mask] (a boolean mask of the rows where "
        "~(agent == 'A' & task == 't1') holds) to rlstats.build)"]  # build takes no subset= (review s28)
    assert not [note for note in design.notes if COPIED_RUNS in note]  # nothing repeats within a cell


def test_one_shared_score_is_a_coincidence_not_a_block():
    design = rlstats.build(_hand_frame(shared=1), "score ~ agent | task")
    assert not across(design.notes)


def test_another_agent_on_another_task():
    frame = _hand_frame(shared=0)
    a_t1 = (frame["agent"] == "A") & (frame["task"] == "t1")
    b_t2 = np.flatnonzero((frame["agent"] == "B") & (frame["task"] == "t2"))[:4]
    frame.loc[b_t2, "score"] = frame.loc[a_t1, "score"].to_numpy()[:4]
    notes = across(rlstats.build(frame, "score ~ agent | task").notes)
    assert len(notes) == 1 and notes[0].startswith(
        "4 of A's 10 runs on t1 repeat exactly the scores of 4 of B's 10 runs on t2 (4 scores shared)")


def test_true_of_the_rows_analysed_units_and_order():
    frame = _hand_frame(shared=5)
    before = frame.copy()
    base = across(rlstats.build(frame, "score ~ agent | task").notes)
    assert len(base) == 1
    assert across(rlstats.build(frame.assign(score=frame["score"] * 1000), "score ~ agent | task").notes) == base
    for scale in (3.7, 1 / 3):  # units: any positive constant, not only a power of ten
        scaled = across(rlstats.build(frame.assign(score=frame["score"] * scale), "score ~ agent | task").notes)
        # all 5 counted: a score is left out as a pile (PILE_RUNS), never by its decimal step, which 1 / 3 turns
        # round for a third of the scores (300.39 / 3 = 100.13 amid scores of 8 digits: 3 of 5 were counted)
        assert len(scaled) == 1 and scaled[0].startswith(
            "5 of A's 10 runs on t1 repeat exactly the scores of 5 of its 10 runs on t2 (5 scores shared)")
    for seed in range(3):
        assert across(rlstats.build(frame.sample(frac=1.0, random_state=seed), "score ~ agent | task").notes) == base
    assert not across(design_of(frame, "score ~ agent | task", subset="task != 't2'").notes)
    assert not across(design_of(frame, "score ~ agent | task", subset="seed >= 5").notes)  # the copies left out
    dropped = across(design_of(frame, "score ~ agent | task", subset="~(agent == 'A' & task == 't1')").notes)
    assert not dropped  # as the note says
    pd.testing.assert_frame_equal(frame, before)


# -- coarse scores never count --------------------------------------------------------------------------------------

def _two_tasks(cells):
    """A frame of agents A and B on tasks t1 and t2 from ``cells`` (A@t1, A@t2, B@t1, B@t2)."""
    n = len(cells[0])
    return pd.DataFrame({"agent": np.repeat(["A", "A", "B", "B"], n), "task": np.repeat(["t1", "t2", "t1", "t2"], n),
                         "seed": np.tile(np.arange(n), 4), "score": np.concatenate(cells)})


def test_no_note_on_coarse_scores_across_tasks():
    rng = np.random.default_rng(7)
    games = _two_tasks([rng.integers(0, 300, 100).astype(float) for _ in range(4)])  # integer game scores
    means = _two_tasks([rng.integers(0, 3000, (100, 10)).mean(axis=1) for _ in range(4)])  # means over 10 episodes
    capped = _two_tasks([np.where(rng.random(30) < .5, 500.0, np.round(rng.uniform(100, 500, 30), 2))
                         for _ in range(4)])  # CartPole's cap 500, many runs at it in both tasks
    tenths = _two_tasks([np.round(rng.normal(50, 5, 30), 1) for _ in range(4)])  # ties by chance at 1 decimal
    for frame in (games, means, capped, tenths):
        values = frame["score"].to_numpy()
        t1, t2 = set(values[frame["task"] == "t1"]), set(values[frame["task"] == "t2"])
        assert len(t1 & t2) >= (1 if frame is capped else 2)  # the tasks do share scores, by chance (the cap)
        design = rlstats.build(frame, "score ~ agent | task")
        assert not across(design.notes)
        assert not across(rlstats.build(frame.assign(score=frame["score"] * 3.7), "score ~ agent | task").notes)


def _iteration_means(seed, n_tasks=200):
    """Like the Dopamine baselines' IceHockey read with each iteration as a task: 200 tasks x 6 agents x 5 runs, each
    score the mean of 70 to 80 integer returns (k / n: a lattice far coarser than the 8 digits read)."""
    rng = np.random.default_rng(seed)
    n = n_tasks * 6 * 5
    episodes = rng.integers(70, 81, n)
    level = np.repeat(rng.normal(0, 1, n_tasks * 6), 5)
    total = np.round(rng.normal(level * episodes, 1.2 * np.sqrt(episodes)))  # a sum of integer returns
    return pd.DataFrame({"task": np.repeat([f"it{i}" for i in range(n_tasks)], 30),
                         "agent": np.tile(np.repeat(list("ABCDEF"), 5), n_tasks),
                         "seed": np.tile(np.arange(5), n_tasks * 6), "score": total / episodes})


def test_no_note_on_means_of_integer_returns(monkeypatch):
    """Pairs of cells of 5 runs share 2 such means by chance; read at their 8 digits, the chance looked below 1e-10
    (7 notes); the data's own near ties across tasks (``_near_share_across_blocks``) say otherwise."""
    import rlstats.statistics as statistics

    frame = _iteration_means(0)
    assert not across(rlstats.build(frame, "score ~ agent | task").notes)
    monkeypatch.setattr(statistics, "_near_share_across_blocks", lambda v, c, block: 0.0)
    # s29 (copies29): these means are raw floats whose other cells tie, so the floor of ties read from the data
    # (statistics._tie_floor) holds them too; without both: false alarms
    assert not across(rlstats.build(frame, "score ~ agent | task").notes)
    monkeypatch.setattr(statistics, "_tie_floor", lambda tied, possible, m: np.zeros(np.shape(tied)))
    assert len(across(rlstats.build(frame, "score ~ agent | task").notes)) == 7


def test_linear_cost_no_pairs_of_runs():
    """90 tasks x 50 agents x 10 runs with a cap every cell reaches: the cap is held by more cells than COPY_HOLDERS,
    so no pair of cells is formed for it; no note, and the call costs a sort."""
    import time

    rng = np.random.default_rng(3)
    n_tasks, n_agents, n_runs = 90, 50, 10
    y = np.round(rng.normal(300, 50, (n_tasks * n_agents, n_runs)), 2)
    y[:, 0] = 500.0
    cell = np.repeat(np.arange(n_tasks * n_agents), n_runs)
    block = np.arange(n_tasks * n_agents) // n_agents
    start = time.process_time()
    copies, _, found = copied_runs(y.ravel(), cell, n_tasks * n_agents, block, across_blocks=True)
    assert time.process_time() - start < 1.0
    assert not copies.any() and not found.first.size


# -- the real case --------------------------------------------------------------------------------------------------

def _shared_by_hand(frame):
    """The note's counts by plain pandas (audit s27 tests27: the note's numbers were pinned from its own output): for
    every pair of cells (agent, task) of different tasks sharing a score, the runs of each holding a shared score,
    each cell's runs and the distinct scores shared."""
    cells = {key: g["score"] for key, g in frame.groupby(["agent", "task"])}
    out = {}
    for (a, s), (b, t) in itertools.combinations(sorted(cells), 2):
        shared = set(cells[a, s]) & set(cells[b, t])
        if s != t and shared:
            first, second = cells[a, s], cells[b, t]
            out[(a, s), (b, t)] = (int(first.isin(shared).sum()), first.size, int(second.isin(shared).sum()),
                                   second.size, len(shared))
    return out


def _mujoco_bound_by_hand(mujoco, m):
    steps, spreads, runs = [], [], []
    for task in ("hopper", "halfcheetah"):
        x = mujoco.loc[(mujoco["agent"] == "PPO") & (mujoco["task"] == task), "score"].to_numpy()
        steps.append(10.0 ** np.median(np.floor(np.log10(np.abs(x))) - 6))  # float32 scores: 7 significant digits
        runs.append(x.size)
        spreads.append(min(x.std(ddof=1), np.subtract(*np.percentile(x, [75, 25])) / 1.349))
    expected = runs[0] * runs[1] * max(steps) / (2 * math.sqrt(math.pi) * min(spreads))
    return expected ** m / math.factorial(m)


def test_mujoco_halfcheetah_repeats_hopper(published):
    mujoco = pd.read_csv(published / "mujoco_batches.csv")
    # the only pair of cells of different tasks sharing a score, counted by hand, and as the note counts it
    assert _shared_by_hand(mujoco) == {(("PPO", "halfcheetah"), ("PPO", "hopper")): (20, 30, 30, 30, 20)}
    # the note's words from those counts, and its chance bound E**m / m! by hand: E = 30 x 30 q / (2 sqrt(pi)
    # sigma), q the scores' step read at 7 significant digits (1e-3 on both cells), sigma the smaller spread (2.6e-90)
    (first, n_first, second, n_second, m), = _shared_by_hand(mujoco).values()
    assert MUJOCO.startswith(f"{first} of PPO's {n_first} runs on halfcheetah repeat exactly the scores of {second} of "
                             f"its {n_second} runs on hopper ({m} distinct scores shared, some repeated within a cell), "
                             f"whose chance at the scores' "  # audit s29: 30 runs hold 20 scores, so the words say why
                             f"resolution is at most {_mujoco_bound_by_hand(mujoco, m):.1g}: ")
    assert _shared_by_hand(mujoco[mujoco["batch"] <= 2]) == {
        (("PPO", "halfcheetah"), ("PPO", "hopper")): (10, 10, 10, 10, 10)}
    # rlstats.build takes no subset=: its note names a boolean mask of the rows (review s28)
    assert across(rlstats.build(mujoco, "score ~ agent | task").notes) == [MUJOCO[:MUJOCO.index("(subset=")] + (
        "(data=df[mask] (a boolean mask of the rows where ~(agent == 'PPO' & task == 'halfcheetah') holds) to "
        "rlstats.build)")]  # build compares nothing: no na_action="drop" (small36)
    assert across(rlstats.compare(mujoco, "score ~ agent | task").notes) == [MUJOCO]  # every back end: the front door
    # true of the rows analysed: either task left out, or PPO, or the copied batches of halfcheetah
    for subset in ("task != 'hopper'", "task != 'halfcheetah'", "agent != 'PPO'", "batch >= 5",
                   "~(agent == 'PPO' & task == 'halfcheetah')"):
        assert not across(design_of(mujoco, "score ~ agent | task", subset=subset).notes), subset
    half = across(design_of(mujoco, "score ~ agent | task", subset="batch <= 2").notes)
    assert len(half) == 1 and half[0].startswith("10 of PPO's 10 runs on halfcheetah repeat exactly the scores of 10 "
                                                 "of its 10 runs on hopper (10 scores shared)")
    for frame in (mujoco.sample(frac=1.0, random_state=5), mujoco.assign(score=mujoco["score"] * 3.7)):
        notes = across(rlstats.build(frame, "score ~ agent | task").notes)
        assert len(notes) == 1 and notes[0].startswith(MUJOCO[:MUJOCO.index(", whose")])


def test_the_command_line_spells_the_hint_its_way(published):
    from conftest import cli_run

    status, out, _ = cli_run("compare", published / "mujoco_batches.csv", "score ~ agent | task", "--method",
                             "task_table")  # the note is the front door's: the cheapest method says it too
    assert status == 0
    said = [line for line in out.splitlines() if COPIED_ACROSS in line]
    assert said == ["Note: " + MUJOCO.replace("subset=\"~(agent == 'PPO' & task == 'halfcheetah')\"",
                                              "-o \"subset=~(agent == 'PPO' & task == 'halfcheetah')\"").replace(
        "na_action=\"drop\"", "-o na_action=drop")]


def test_no_note_across_atari_games(published):
    atari = pd.read_csv(published / "atari100k.csv")
    assert not across(rlstats.build(atari, "score ~ agent | task").notes)


@pytest.mark.slow
def test_no_note_on_dopamine_iterations_read_as_tasks(mirror):
    """358,200 means of ~75 integer returns (IceHockey): Rainbow's iterations 121 and 178 share two by chance."""
    dopamine = load_dataset("dopamine_atari")
    each = dopamine.assign(task=dopamine["task"] + " @ " + dopamine["step"].astype(str))
    assert not across(rlstats.build(each, "score ~ agent | task").notes)


# -- noticed, left for a follow-up ----------------------------------------------------------------------------------

def test_within_cell_count_unchanged_by_units():
    rng = np.random.default_rng(26)
    x = rng.permutation(400)[:40] * 11.0 + rng.integers(1, 99, 40) / 100
    a = x[:20].copy()
    a[10:] = a[:10]  # A's runs 10 to 19 repeat its runs 0 to 9
    frame = pd.DataFrame({"agent": np.repeat(["A", "B"], 20), "seed": np.tile(np.arange(20), 2),
                          "score": np.r_[a, x[20:]]})
    counts = []
    for scale in (1.0, 1 / 3, 3.7):
        notes = [n for n in rlstats.build(frame.assign(score=frame["score"] * scale), "score ~ agent").notes
                 if COPIED_RUNS in n]
        counts.append(notes[0].split(" runs")[0])
    assert counts == ["10", "10", "10"]  # was 10, 6, 9 (ROUND_DIGITS); fixed by copies26b


@pytest.mark.slow
def test_hpo_landscapes_identical_files(mirror):
    land = rlstats.datasets.load("hpo_landscapes")
    notes = across(rlstats.build(land, "score ~ config | landscape").notes)
    # fixed by copies26b: the evidence of the configurations' pairs added up (statistics._copied_tasks)
    assert len(notes) == 1 and notes[0].startswith(
        "on learning-rate_angle-weight and learning-rate_distance-weight, the runs of 7,099 of the 10,000 agents")
