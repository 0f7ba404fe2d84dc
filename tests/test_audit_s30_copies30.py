"""Audit s30 (copies30): the note on copied runs on a deterministic task's discounted returns PRINTED to 6 decimals.

Found: discounted returns (``gamma**k`` of an episode's length and the rest of copies29's generator) written to
1e-6 of the task's spread (a log's ``%.6f``) are decimals, so ``statistics._raw_blocks`` does not call them raw and
the floor of ties copies29 reads from the data (``_Ties.floor``) never applied: their decimal step says a tie is
improbable, and the few returns each agent's runs take tie within its cells far more often.  Measured on main
(tests/reference/copied_runs_false_alarms.py, 40 data sets a setting, 1,080 a kind, step 1e-6): "discounted" 91 noted
(within 64, across 18, tasks jointly 8, between agents 6), "discounted capped" 39 (within 37, across 1, between
agents 1); at full precision (step 0) 11 and 5.

Fixed (``statistics._Ties.floor``, ``_Ties.rest``, ``_copied_within``): the floor applies to decimals too, read
there from the other cells' OWN ties only (pairs of one cell's runs tied: for one cell judged, of its task's other
cells and, where the data show ties as in s29, of all other cells; for two cells judged, of every cell but the two),
each cell's with the runs at its most-held score left out where two runs or more hold it (``_Ties.rest``: one score
many runs reach, a cap, says nothing of how often the rest of a cell's scores tie; a few-valued support ties at
several); and a cell judged within is judged likewise, its repeats beyond its most-held score among its runs beyond
those against that floor (the chance of the rest given so few ties elsewhere), beside the chance of all its repeats
at the other rates, the larger stated.  The rate is copies29's: the largest over ``p`` of the chance of ``m``
repeats times the Chernoff bound on so few ties among the others (``_tie_floor``).  Ties ACROSS cells are not read on
decimals: they are what a copy between cells makes, and copies too small to be noted (2 runs of each agent read again
on another task) raised the floor of a whole cell copied beside them (copied_runs_dump.py's synthetic frame 148: its
pair across tasks and its pair on one task lost, measured while building).  Raw floats are read as in s29.  The second
pass (the floor read with the cells the first noted left out) now runs wherever the first noted anything; the floor
only raises the chance, so notes are only taken away.

Measured after (40 data sets a setting, 1,080 a kind): step 1e-6, discounted 91 -> 30 (within 7, across 13, tasks
jointly 5, between agents 6), discounted capped 39 -> 5 (within 3, across 1, between agents 1); step 0 as main,
11 and 4 (main 5); every other kind and step unchanged at 0 (the floor only takes notes away).  copied_runs_dump.py
(every loader dataset, 160 synthetic frames with copies): the same cells and pairs noted in all 176 frames as main.
Detection (session 30's script, not kept; no test reads these figures: the honest data of the script's grid, 5 and
10 runs, 2 and 4 agents, 5 tasks, 10 data sets a setting, one copy written in: half a cell's runs over its other
half, a cell saved as another agent's, a cell copied to another task): unchanged in every kind and step but
discounted returns at 1e-6 (within 13 -> 12, across tasks 15 -> 14 of 40) and discounted capped at 1e-6 (1 -> 0,
1 -> 0): copies of returns that honest runs repeat about as often.  Without the top score left out (every tie of
the other cells read), capped scores at 1e-6 kept 3 of 20 within-cell copies (20 on main).
"""

from pathlib import Path

import numpy as np
import pytest

from rlstats import statistics


def _script():
    from conftest import script_module
    return script_module(Path(__file__).parent / "reference" / "copied_runs_false_alarms.py",
                         "copied_runs_false_alarms")


def test_fewer_false_alarms_on_discounted_returns_printed_to_six_decimals_reduced():
    """3 and 5 runs, 2 agents, 5 and 26 tasks, 10 data sets a setting, both kinds at step 1e-6 (80 data sets): main
    noted 17 (discounted 8, discounted capped 9), now 4 (2 and 2)."""
    table = _script().false_alarms(10, runs=(3, 5), agents=(2,), tasks=(5, 26),
                                   kinds=("discounted", "discounted capped"), steps=(1e-6,))
    by_kind = table.groupby("kind")["any"].sum()
    assert int(table["data sets"].sum()) == 80
    assert (int(by_kind["discounted"]), int(by_kind["discounted capped"])) == (2, 2)


def _one_copy(y, what):
    """Whether ``copied_runs`` finds one copy written into ``y`` (tasks x agents x runs): ``within``, the last half
    of t0's a0 runs saved over its first; ``same``, t0's a0 saved as a1; ``across``, t0's a0 saved as t1's a0."""
    n_tasks, n_agents, n_runs = y.shape
    y = y.copy()
    if what == "within":
        y[0, 0, :n_runs // 2] = y[0, 0, -(n_runs // 2):]
    elif what == "same":
        y[0, 1] = y[0, 0]
    else:
        y[1, 0] = y[0, 0]
    n_cells = n_tasks * n_agents
    copies, _, across = statistics.copied_runs(y.ravel(), np.repeat(np.arange(n_cells), n_runs), n_cells,
                                               np.arange(n_cells) // n_agents, across_blocks=True,
                                               agent=np.arange(n_cells) % n_agents)
    if what == "within":
        return bool(copies[0])
    pairs = across.same_block if what == "same" else across
    return (0, 1 if what == "same" else n_agents) in set(zip(pairs.first.tolist(), pairs.second.tolist()))


def test_copies_of_capped_scores_at_six_decimals_are_kept():
    """Capped scores (a third of each cell's runs at its cap) at 1e-6 of the spread, 5 tasks x 2 agents x 10 runs,
    20 data sets: the copies found as on main (within 20, saved as another agent 15, across tasks 20).  Read with
    each cell's ties at its most-held score (the cap's pile) too, the floor kept 3 of the 20 within-cell copies
    (measured while building)."""
    script = _script()
    found = {"within": 0, "same": 0, "across": 0}
    for r in range(20):
        y = script.honest(np.random.default_rng([30, r]), "capped", 1e-6, 5, 2, 10)
        for what in found:
            found[what] += _one_copy(y, what)
    assert found == {"within": 20, "same": 15, "across": 20}


def test_partial_copies_do_not_hide_a_whole_cell_copied():
    """copied_runs_dump.py's synthetic frame 148: 2 tasks x 4 agents x 5 runs of normal scores to 3 decimals, each
    agent's first 2 runs of t0 saved again on t1 (too few to note) and t0's a0 saved whole as t1's a3: the pair across
    tasks (cells 0 and 7) and the pair on t1 (a0 and a3, 2 scores shared) are found, as on main.  Reading the ties
    across cells on decimals, the 8 partial copies raised the floor and both were lost (measured while building)."""
    rng = np.random.default_rng(148)
    shape = (int(rng.integers(2, 9)), int(rng.integers(2, 6)), int(rng.choice([3, 5, 10, 30])))
    decimals = int(rng.choice([0, 1, 2, 3, 6, 8]))
    assert shape == (2, 4, 5) and decimals == 3
    y = np.round(rng.normal(100, 30, shape), decimals)
    y[1, :, :2] = y[0, :, :2]
    y[-1, -1] = y[0, 0]
    cell = np.repeat(np.arange(8), 5)
    copies, _, across = statistics.copied_runs(y.ravel(), cell, 8, np.arange(8) // 4, across_blocks=True,
                                               agent=np.arange(8) % 4)
    assert not copies.any()
    assert list(zip(across.first.tolist(), across.second.tolist())) == [(0, 7)]
    assert list(zip(across.same_block.first.tolist(), across.same_block.second.tolist())) == [(4, 7)]


@pytest.mark.slow
def test_fewer_false_alarms_on_discounted_returns_printed_to_six_decimals_full():
    """Both kinds at step 1e-6 over the script's whole grid, 40 data sets a setting (1,080 a kind): main 91 and 39,
    now 30 and 5."""
    table = _script().false_alarms(40, kinds=("discounted", "discounted capped"), steps=(1e-6,))
    by_kind = table.groupby("kind")["any"].sum()
    assert int(table["data sets"].sum()) == 2160
    assert (int(by_kind["discounted"]), int(by_kind["discounted capped"])) == (30, 5)
