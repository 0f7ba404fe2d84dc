"""Audit s28 (copiesdet28): the note on copied runs on raw floats of few values.

Found: discounted returns of deterministic tasks at full precision (``gamma**k`` of an episode's length ``k``, sums
of two such rewards, ``r * gamma**k`` with a few lengths; ``tests/reference/copied_runs_false_alarms.py``'s new kind
"discounted") take few values on no decimal grid and no grid of differences.  ``copied_runs`` read their resolution
as the floor of the decimal reading (8 significant digits) and, where the few pairs of runs of other cells happened
not to tie, the share of ties measured on the data as 0: two chance repeats within a cell of 5 runs, or two scores
shared by two cells, had a stated chance of about 1e-15.  Measured on 540 data sets (3/5/10 runs x 2/4/8 agents x
1/5/26 tasks, 20 each; a /tmp survey run before the script's kind): 68 noted (12.6%; within 39, across tasks 30,
tasks jointly 5, between agents 2), against the 1e-3 the notes state.

Fixed: a score is raw (``statistics._raw_scores``) when it lies on no decimal grid of 13 significant digits and is
no float32 value times a power of ten; for a block a quarter of whose runs are raw, on no grid of differences
(``_raw_blocks``), the share of ties taken for ``m`` repeats is at least ``_tie_floor``'s: the largest, over the
unknown share ``p``, of ``(N p)**m / m!`` times the Chernoff bound on so few ties among the ``n`` pairs of runs that
cannot be copies of those judged (runs of different cells of the task; within cells, the task's other cells' pairs
too; the same-task check: those of the task's other cells), ``(m + T) / (e n) ((m + T) / T)**(T / m)``.  The note's
chance then bounds both together, whatever few values raw scores take.  Measured
(tests/reference/copied_runs_false_alarms.py, kind "discounted", 40 data sets a setting, 1,080 a step): at full
precision 113 noted before, 2 after; every other kind at full precision 0 of 6,480 before and after; the existing
grid (decimals) unchanged; tests/reference/copied_runs_dump.py's output (160 synthetic frames with copies and every
loader dataset; the MuJoCo returns are float32 values) identical before and after.

Left (strict xfail below): the same returns printed to 1e-6 of the task's spread (7 digits, and 0.9**k, exact to 13
digits, for k <= 13) are decimals whose step is read as the resolution: 91 of 1,080 noted before and after.  Reading
the data's ties there too would lose small frames' copies at 6 and 8 decimals that the decimal model catches.
"""

import math
from pathlib import Path

import numpy as np
import pytest

from rlstats import statistics
from rlstats.statistics import COPY_CHANCE


def _script():
    from conftest import script_module
    return script_module(Path(__file__).parent / "reference" / "copied_runs_false_alarms.py",
                         "copied_runs_false_alarms")


def test_raw_scores():
    """Raw: 0.99**37 (16 digits), a normal draw at full precision, float32 of 0.99**37 read to 7 digits or more;
    not raw: decimals (to 8 decimals, 11 digits), float32 storage of 284.8 (read to 1 decimal), 0, integers."""
    x = [0.99 ** 37, 103.52379427318201, 100.12345678, 284.79998779296875, 0.0, 3.0, 0.9801]
    assert statistics._raw_scores(x).tolist() == [True, True, False, False, False, False, False]
    assert repr(0.99 ** 37) == "0.6894490858690777" and repr(0.9801) == "0.9801"
    rng = np.random.default_rng(0)
    assert statistics._raw_scores(rng.normal(100, 30, 1000)).mean() > 0.95
    assert not statistics._raw_scores(np.round(rng.lognormal(3, 1, 1000), 8)).any()


def test_the_floor_is_where_the_product_of_the_two_chances_is_largest():
    """The rate ``r`` makes ``(N r)**m / m!`` the largest over ``p`` of ``(N p)**m / m! x exp(-n p) (e n p /
    T)**T`` (T > 0; ``exp(-n p)`` at T = 0), found here by a fine grid of ``p``."""
    p = np.geomspace(1e-6, 1.0, 200_001)
    for m, t, n in [(2, 0, 25), (10, 0, 400), (3, 1, 25), (5, 4, 300), (2, 7, 90)]:
        log_tie = -n * p + (t * np.log(math.e * n * p / t) if t else 0.0)
        log_tie = np.where(n * p >= t, log_tie, 0.0)  # the Chernoff bound holds for n p >= T; 1 below
        best = np.max(m * np.log(p) + log_tie)
        rate = statistics._tie_floor(True, t, n, 0, 0, m)
        assert m * math.log(rate) == pytest.approx(best, abs=1e-6)


def test_the_floor_by_hand():
    """One task, 2 agents x 5 runs of 0.99**k, one tie between the agents (25 pairs of runs of different cells):
    the floor for 2 repeats, written out."""
    k = np.array([[3, 9, 14, 21, 30], [3, 8, 40, 41, 42]])
    y = 0.99 ** k.ravel().astype(float)
    cell = np.repeat([0, 1], 5)
    order = np.lexsort((y, cell))
    tied, possible = statistics._ties_across_cells(y, cell, 2, np.array([0, 0]), y[order], cell[order])
    assert tied.tolist() == [1.0] and possible.tolist() == [25.0]
    floor = statistics._tie_floor(statistics._raw_blocks(y, np.zeros(10, dtype=int), 1), tied, possible,
                                  tied.sum(), possible.sum(), 2)
    assert floor[0] == pytest.approx(3 / (math.e * 25) * 3 ** 0.5, rel=1e-12)  # (m + T) / (e n) ((m + T) / T)**(T / m)
    # the same returns printed to 6 decimals are no raw floats: no floor
    assert statistics._raw_blocks(np.round(y, 6), np.zeros(10, dtype=int), 1).tolist() == [False]


def test_two_chance_repeats_of_few_returns_are_no_copy():
    """A cell of 5 discounted returns holding two chance repeats, the other agent's 5 runs tying none: noted before
    (stated chance 6e-9, run on the parent commit), now not; the same repeats in scores at 3 decimals (not raw) are
    still noted."""
    y = 0.99 ** np.array([13, 13, 17, 17, 22, 30, 35, 43, 57, 60], dtype=float)
    cell = np.repeat([0, 1], 5)
    copies, _ = statistics.copied_runs(y, cell, 2, np.array([0, 0]))
    assert copies.tolist() == [0, 0]
    rng = np.random.default_rng(4)
    z = np.round(rng.normal(100, 30, 10), 3)
    z[1], z[3] = z[0], z[2]
    copies, chance = statistics.copied_runs(z, cell, 2, np.array([0, 0]))
    assert copies.tolist() == [2, 0] and chance[0] < COPY_CHANCE / 2


def _family(replicates, runs, agents, tasks):
    table = _script().false_alarms(replicates, runs=runs, agents=agents, tasks=tasks, kinds=("discounted",),
                                   steps=(0.0,))
    return table


def test_no_false_alarm_on_discounted_returns_reduced():
    """Reduced run of the new kind (full precision), where the old code noted most: 5 and 10 runs, 2 agents, 1 and
    5 tasks, 15 data sets each (the parent commit's code noted 13 of these 60: within 11, across tasks 1, tasks
    jointly 1).
    None now."""
    table = _family(15, (5, 10), (2,), (1, 5))
    assert int(table["data sets"].sum()) == 60 and int(table["any"].sum()) == 0


@pytest.mark.slow
def test_no_false_alarm_on_discounted_returns_full():
    """The new kind at full precision over the whole grid, 100 data sets a setting (2,700): the notes' stated chance,
    about COPY_CHANCE per data set, allows about 3 (at most 9 but with chance 1e-3); 40 a setting measured 2 of
    1,080 (before: 113, within 63, across tasks 54, tasks jointly 19)."""
    table = _family(100, (3, 5, 10), (2, 4, 8), (1, 5, 26))
    assert int(table["data sets"].sum()) == 2700 and int(table["any"].sum()) <= 9


@pytest.mark.xfail(strict=True, reason="left: few values printed to a decimal step far finer than their spacing (the "
                   "decimal model trusted; no rule found that keeps the small synthetic frames' copies)")
def test_discounted_returns_printed_to_fine_decimals_are_no_copy():
    """The same returns rounded to 1e-6 of the task's spread (7 significant digits: not raw, the decimal step read
    as the resolution): 91 of 1,080 data sets noted before and after this fix (40 a setting); here 5 runs, 2 agents,
    5 tasks, 15 data sets: some noted."""
    table = _script().false_alarms(15, runs=(5,), agents=(2,), tasks=(5,), kinds=("discounted",), steps=(1e-6,))
    assert int(table["any"].sum()) == 0
