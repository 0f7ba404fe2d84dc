"""Audit s23 (review23a): review of boot23 (the bootstrap's small-runs note reads the grid's number of tasks nearest
the design) and equiv23 (the ``equivalence.size`` rows of equal runs and unlike spreads, and their note)."""

import pathlib

import pytest

import rlstats

PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "calibration.md"


# review23a: equiv23's 486 equivalence.size rows of unlike spreads are rows of the default (Welch's t;
# calibration.DEFAULTS) and 112 of them miss; docs/calibration.md said "37 of the defaults' 4,382 rows miss" (a strict
# xfail before the page was mended; tests/test_audit_s10_saturated.py's page check failed on main)
def test_calibration_page_counts_the_rows_of_unlike_spreads():
    table = rlstats.calibration_table(default=True)
    mine = table[(table["runs"] >= 3) & (table["runs"] <= 20)]
    spread = mine["configuration"].astype(str).str.contains(", spread ")
    assert (len(mine), int(mine["misses"].sum())) == (4_868, 149)
    assert (int(spread.sum()), int(mine[spread]["misses"].sum())) == (486, 112)
    assert "149 of the defaults' 4,868 rows miss" in PAGE.read_text(encoding="utf-8")
