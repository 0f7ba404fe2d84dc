"""Audit s23 (adajoint23): AdaStop's default joint relabelling beside agents of another spread.

The paper's AdaStop (Mathieu et al. 2023, Sec. 4, Eq. 8) permutes, for each comparison, the concatenation of the two
agents' 2N scores of an interim ("a permutation sigma_k in S_2N at interim k that reshuffles the order of the scores"),
with one permutation index shared by every comparison (Eq. 9 takes the max over comparisons of the same sigma). The
package's default ``permutations="joint"`` relabels the pooled runs of every running agent instead: exact under the
global null, not when identical agents sit beside agents of another spread. ``tests/reference/size_adastop_spread.py``
measures both schemes (the ``adastop.fwe_spread`` rows of ``rlstats/calibration.csv``).
"""

from __future__ import annotations

import math
import pathlib
import runpy
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration

REFERENCE = pathlib.Path(__file__).parent / "reference"
SPREAD = runpy.run_path(str(REFERENCE / "size_adastop_spread.py"))


def _rows():
    table = pd.DataFrame(calibration.rows("adastop.fwe_spread"))
    table["fwe"] = 1 - table["coverage"].astype(float)
    table["ratio"] = table["configuration"].str.extract(r"ratio=(\d+)")[0].astype(int)
    table["K"] = table["configuration"].str.extract(r"K=(\d+)")[0].astype(int)
    return table


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="left for the lead (a redesign): the default joint relabelling pools every "
                                       "running agent's runs, so two identical agents 4 times as spread as two "
                                       "others are rejected in 0.108 of 600 tests (4 agents, n = 5, K = 4; 3 SE "
                                       "above 0.05 is 0.077); the paper's pairwise scheme holds there (0.053) but "
                                       "misses under identical agents (0.085 here, 0.110 with 8 agents)")
def test_default_keeps_the_level_for_identical_agents_beside_agents_four_times_narrower():
    row = SPREAD["measure"](4, 5, 4, "normal", 4, "joint", 600)
    assert 1 - row["coverage"] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 600)
