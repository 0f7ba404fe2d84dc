"""The measured coverage of the possibly-best set, read from ``calibration.csv`` beside this module.

The table is written by ``tests/reference/coverage_possibly_best.py``: for each test, number of agents, runs per
agent, score distribution and configuration of true means, the share of simulated tasks whose set held every truly
best agent (Holm at alpha = 0.05, the defaults).
"""

from __future__ import annotations

import math
import pathlib

from ... import calibration

PATH = pathlib.Path(__file__).with_name("calibration.csv")
#: the level and adjustment the table was measured at
ALPHA, ADJUSTMENT = 0.05, "holm"


def rows():
    """The table's rows as dicts of strings (none when the file is absent)."""
    return calibration.read(PATH)


def shortfall(test, agents, runs, alpha, adjustment):
    """The row with the lowest coverage at this design when it misses 1 - alpha by more than 3 Monte Carlo SE.

    The standard error is the binomial one at the nominal level, sqrt(alpha (1 - alpha) / n_sim). None when every
    row at the design holds its level, when the design is not on the table's grid, or when ``alpha`` and
    ``adjustment`` are not the ones the table was measured at.
    """
    if adjustment != ADJUSTMENT or not math.isclose(alpha, ALPHA):
        return None
    return calibration.shortfall(rows(), 1 - alpha, test=test, agents=agents, runs=runs)
