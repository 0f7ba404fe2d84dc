"""Audit s21 (pbp21): performance percentiles as a user meets them on Atari 100k and HalfCheetah.

The default PBP's simultaneous coverage at the designs RL evaluations report (2 x 5, 3 x 3, 4 x 5 at 3-20 runs) is in
``rlstats/calibration.csv`` (``tests/reference/coverage_percentiles.py``); here, what a user prints and plots.
"""

import matplotlib.pyplot as plt
import pytest

import rlstats

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
