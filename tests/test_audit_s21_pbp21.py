"""Audit s21 (pbp21): performance percentiles as a user meets them on Atari 100k and HalfCheetah.

The default PBP's simultaneous coverage at the designs RL evaluations report (2 x 5, 3 x 3, 4 x 5 at 3-20 runs) is in
``rlstats/calibration.csv`` (``tests/reference/coverage_percentiles.py``); here, what a user prints and plots.
"""

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

import rlstats
from rlstats import calibration
from conftest import script_module

FORMULA = "score ~ agent | task"
#: four agents of 5, 15 and 100 runs on five games: the design of a paper's table
AGENTS = ["IRIS", "SimPLe", "PlayVirtual", "SPR"]
GAMES = ["Alien", "Boxing", "Pong", "Breakout", "Kangaroo"]


@pytest.fixture
def four_by_five(atari):
    return atari[atari["agent"].isin(AGENTS) & atari["task"].isin(GAMES)].reset_index(drop=True)


def test_weights_map_fits_one_column(four_by_five):
    """The weights heat map at 3.5 in wide, one column of a two-column paper: its title, one line wider than the map
    at 4 agents x 5 tasks, ran over the colour bar and the call refused the size ("too small for the 2 panels");
    written on two lines it fits, with the map's weights as the result gives them (Breakout against IRIS, 0.33)."""
    res = rlstats.percentiles(four_by_five, FORMULA)
    ax = res.plot(kind="weights", figsize=(3.5, 2.7))
    try:
        assert tuple(ax.figure.get_size_inches()) == (3.5, 2.7)
        assert ax.get_title() == "Adversary's weights\nq*(task, reference)"
        texts = {t.get_text() for t in ax.texts}
        weights = res.reference_weights.set_index(["task", "reference"])["weight"]
        assert weights["Breakout", "IRIS"] == pytest.approx(0.33448, abs=1e-5)
        assert f"{weights['Breakout', 'IRIS']:.2f}" == "0.33" and "0.33" in texts
    finally:
        plt.close(ax.figure)


REFERENCE = Path(__file__).resolve().parent / "reference"
PERCENTILES = script_module(REFERENCE / "coverage_percentiles.py", "coverage_percentiles_s21")


# the default run re-measures 4 x 5 (session 39: intervals shrunk to a fifth of their width held in 0.55 of its 40 data
# sets, 0.75 and 0.90 at the other two, which -m slow re-measures; a cell level left undivided, 8 times delta, held
# in all 40 at each of the three: PBP at these runs is that wide)
@pytest.mark.parametrize("point", [("pbp", 4, 5, 3, "heavy_tailed"),
                                   pytest.param(("pbp", 3, 3, 5, "capped"), marks=pytest.mark.slow),
                                   pytest.param(("pbp", 2, 5, 10, "skewed"), marks=pytest.mark.slow)])
def test_default_measured_at_the_designs_rl_reports(point):
    """The table holds the default's simultaneous coverage at 2 x 5, 3 x 3 and 4 x 5 (audit s21: 400 data sets a row,
    every one held, SE 0.011 at the level); a re-measure of 40 data sets (10 per design draw) holds every one again,
    and the result quotes nothing there."""
    from rlstats.methods.percentiles import _api

    interval, agents, tasks, runs, distribution = point
    rows = [r for r in calibration.rows("percentiles.interval")
            if (r["interval"], int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"]) == point]
    assert len(rows) == 1
    assert (float(rows[0]["coverage"]), int(rows[0]["n_sim"]), float(rows[0]["coverage_min"])) == (1.0, 400, 1.0)
    measured = PERCENTILES.table_rows(point, 10)[0]
    assert (measured["coverage"], measured["n_sim"]) == (1.0, 40)
    assert _api._coverage_note(interval, runs, agents, tasks) is None


def test_rank_ranges_and_separations_hold_with_the_intervals():
    """--ranks: every rank range holds the true rank and every printed "a > b" is true whenever every interval holds
    (they follow from the intervals); at 4 x 5 with 3 runs, 20 data sets, both held in all of them, and no pair was
    separated: the intervals span nearly all of [0, 1]."""
    held, widths, ranked, separations = PERCENTILES._results("pbp", 4, 5, 3, "normal", 5, [21, 4, 5, 3], 1000)
    held, ranked = np.concatenate(held), np.concatenate(ranked)
    assert held.size == ranked.size == 20 and held.all() and ranked.all()
    assert separations.tolist() == [0] * 20  # no "a > b" printed
    assert float(np.median(widths)) == pytest.approx(0.99, abs=0.01)  # at 3 runs PBP's intervals span [0, 1]


@pytest.mark.parametrize("interval", ["pbp", "pbp_t"])
def test_atari_unchanged_by_affine_maps_of_each_task_and_row_order(four_by_five, interval):
    """Rank-based to the last bit: per-task maps a * y + b (a from 0.02 to 30, b up to 1e4) and a shuffle of the rows
    leave every statistic and the printed text as they were (4 agents x 5 games of Atari 100k: IRIS on top at 0.37496,
    interval (0.0040176, 0.99712) under PBP); the per-task means move with the map."""
    res = rlstats.percentiles(four_by_five, FORMULA, interval=interval)
    rng = np.random.default_rng(21)
    a = dict(zip(GAMES, np.exp(rng.uniform(-4, 3.4, len(GAMES)))))
    b = dict(zip(GAMES, rng.uniform(-1e4, 1e4, len(GAMES))))
    mapped = four_by_five.assign(score=four_by_five["score"] * four_by_five["task"].map(a)
                                 + four_by_five["task"].map(b))
    shuffled = four_by_five.sample(frac=1.0, random_state=21)
    for other in (rlstats.percentiles(mapped, FORMULA, interval=interval),
                  rlstats.percentiles(shuffled, FORMULA, interval=interval)):
        for field in ("estimate", "conf_low", "conf_high", "rank", "rank_best", "rank_worst", "payoff", "stationary",
                      "payoff_low", "payoff_high"):
            np.testing.assert_array_equal(getattr(other, field), getattr(res, field), err_msg=field)
        assert str(other) == str(res) and other.report("text") == res.report("text")
    if interval == "pbp":
        assert res.agents[int(np.argmin(res.rank))] == "IRIS"
        top = res.tidy().set_index("agent").loc["IRIS"]
        assert (round(top["estimate"], 5), round(top["conf_low"], 7), round(top["conf_high"], 5)) == \
            (0.37496, 0.0040176, 0.99712)
    moved = rlstats.percentiles(mapped, FORMULA, interval=interval).per_task
    np.testing.assert_allclose(moved["estimate"], res.per_task["estimate"] * res.per_task["task"].map(a)
                               + res.per_task["task"].map(b), rtol=1e-12, atol=1e-9)
