"""Session 14 (lead): a multi-panel figure's grid laid out for the size ``plot(figsize=)`` asks for.

``Result.plot(figsize=)`` drew the plot's own grid and then resized it: the Bayesian result's three simplexes, a
column of three at a column's width, were drawn in panels of 0.30 x 0.22 in at figsize=(3.4, 2.6). The grid is now
chosen for the size asked (:func:`rlstats.plotting.largest_panels`); without figsize= every figure keeps its own
layout.
"""
import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.plotting import largest_panels


def test_largest_panels_by_hand():
    # 3 panels of 2.2 x 2.1 in at 3.4 x 2.6: scales min(3.4 / 2.2, 2.6 / 6.3) = 0.413 in one column,
    # min(1.7 / 2.2, 2.6 / 4.2) = 0.619 in two, min(1.133 / 2.2, 2.6 / 2.1) = 0.515 in three
    assert largest_panels(3, (2.2, 2.1), (3.4, 2.6), 1) == 2
    # a tall figure keeps one column; a wide short one takes a row
    assert largest_panels(3, (2.2, 2.1), (3.4, 9.0), 1) == 1
    assert largest_panels(3, (2.2, 2.1), (9.0, 2.6), 1) == 3
    # the grid asked by the plot is kept where another only ties it (4 panels of 1 x 1 in a 2 x 2 in figure:
    # two columns scale 1, four a row 0.5, one a column 0.5)
    assert largest_panels(4, (1.0, 1.0), (2.0, 2.0), 2) == 2
    # 4 panels at 4 x 1 in: a row of four (scale 1) against the plot's two columns (0.5)
    assert largest_panels(4, (1.0, 1.0), (4.0, 1.0), 2) == 4
    assert largest_panels(1, (2.0, 2.0), (1.0, 5.0), 1) == 1


def _three_agents():
    rng = np.random.default_rng(0)
    rows = [(agent, f"task{t}", seed, rng.normal(shift + 0.1 * t, 1.0))
            for agent, shift in zip("ABC", (0.0, 0.3, 0.6)) for t in range(6) for seed in range(5)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _panel_boxes(figure):
    figure.canvas.draw()
    return [ax.get_position().transformed(figure.transFigure).transformed(figure.dpi_scale_trans.inverted())
            for ax in figure.axes]


def test_three_simplexes_at_one_columns_size_are_laid_out_for_it():
    res = rlstats.bayes(_three_agents(), "score ~ agent | task", rope=0.1, n_samples=400, rng=0)
    own = res.plot()
    boxes = _panel_boxes(own)
    assert len({round(b.x0, 2) for b in boxes}) == 1  # its own layout: one column (unchanged)
    stacked_height = min(b.height for b in boxes)
    plt.close(own)
    fitted = res.plot(figsize=(3.4, 2.6))
    assert fitted.get_size_inches().tolist() == [3.4, 2.6]
    boxes = _panel_boxes(fitted)
    assert len(boxes) == 3 and len({round(b.x0, 2) for b in boxes}) == 2  # two a row
    # each triangle's panel 1.01 x 0.72 in (stacked at this size: 0.30 x 0.22 in)
    assert min(b.width for b in boxes) > 0.9 and min(b.height for b in boxes) > 0.6
    plt.close("all")
    assert stacked_height > 1.5  # at its own size (3.4 x 6.3 in) the stacked panels were large


def test_the_size_an_error_names_holds_the_panels():
    df = rlstats.datasets.simulate(2, 3, 5, rng=0)
    res = rlstats.bootstrap(df, "score ~ agent | task", n_resamples=50, rng=0)
    with pytest.raises(rlstats.OptionError, match=r"too small") as caught:
        res.plot(figsize=(1.0, 1.0))
    width, height = map(float, re.search(r"own size is \(([\d.]+), ([\d.]+)\)", str(caught.value)).groups())
    drawn = res.plot(figsize=(width, height))  # no error
    assert drawn.get_size_inches().tolist() == [width, height]
    plt.close("all")
