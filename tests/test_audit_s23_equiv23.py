"""Audit s23 (equiv23): Welch's equivalence tests with equal runs but unlike spreads.

With as many runs of each agent, the skewness of the two means cancels in their difference only where the spreads
are alike; where one agent's spread is several times the other's, on skewed (or capped) scores, Welch's t declares
non-inferiority (and TOST) at the margin above alpha. ``tests/reference/size_equivalence_spread.py`` measures it on
a grid (runs 3, 5, 10; 1, 5, 26 tasks; spread ratios 1-8 either way; skewed, heavy-tailed, capped) with candidates
to replace Welch's t.
"""

from pathlib import Path

import numpy as np
import pytest

from conftest import script_module

REFERENCE = Path(__file__).parent / "reference"


@pytest.fixture(scope="module")
def spread():
    return script_module(REFERENCE / "size_equivalence_spread.py", "size_equivalence_spread")


@pytest.mark.xfail(strict=True, reason="audit s23 equiv23: 5 vs 5 runs, skewed, agent 1's spread a quarter of "
                   "agent 2's: Welch's non-inferiority declares at -margin in about 0.13 of simulated tests, and no "
                   "note says so")
def test_welch_noninferiority_unlike_spreads_holds_alpha(spread):
    shares = spread.declared("skewed", 5, 1, 0.25, 2_000, np.random.default_rng(5), candidates=("welch",))
    assert shares["welch", "noninferior -margin"] <= 0.05 + 3 * (0.05 * 0.95 / 2_000) ** 0.5
