"""Audit s36, way36: other procedures on the data sets where mixed()'s default family misses (one agent's runs 4
times as spread as three others', agents alike in mean): ``tests/reference/coverage_mixed_spreads.py --analysis``."""

from __future__ import annotations

import pathlib
import runpy

import numpy as np
import pytest

REFERENCE = pathlib.Path(__file__).resolve().parent / "reference"
SCRIPT = runpy.run_path(str(REFERENCE / "coverage_mixed_spreads.py"))
POINT = (4, "one", 5, 3, "skewed")


def test_every_analysis_sees_the_same_data_sets_and_keys_its_families():
    """One data set a design draw (4): the mixed analyses' families and the rank test's, read off its public call."""
    held = {a: SCRIPT["measure"](*POINT, 1, analysis=a) for a in ("mixed", "scheffe", "rank")}
    assert sorted(held["mixed"]) == [("satterthwaite", "holm"), ("satterthwaite", "tukey")]
    assert sorted(held["scheffe"]) == [("satterthwaite", "scheffe"), ("satterthwaite", "sidak")]
    assert list(held["rank"]) == [("mack_skillings", "normal", "tukey")]
    assert all(len(h) == 4 and all(x.shape == (1,) for x in h) for by in held.values() for h in by.values())
    # on the same fits Scheffe's bound (sqrt(3 F(0.95; 3, df)), about 2.8) is wider than Tukey's (about 2.6): it
    # holds wherever Tukey's holds
    tukey = np.concatenate(held["mixed"]["satterthwaite", "tukey"])
    scheffe = np.concatenate(held["scheffe"]["satterthwaite", "scheffe"])
    assert np.all(scheffe[tukey])


def test_the_analyses_rows_name_their_procedures():
    rank = SCRIPT["rows_of"](POINT, {("mack_skillings", "normal", "tukey"): [np.array([True, False])]}, "rank")
    assert [(r["procedure"], r["test"], r["statistic"], r["interval"], r["configuration"], r["coverage"])
            for r in rank] == [("skillings_mack.pairs_fwer", "mack_skillings", "normal", "tukey",
                                "run sd by agent 1/1/1/4: all_equal", 0.5)]
    mixed = SCRIPT["rows_of"](POINT, {("kenward-roger", "tukey"): [np.array([True, True])]}, "kenward-roger")
    assert [(r["procedure"], r["test"], r["interval"]) for r in mixed] == [("mixed.contrast", "kenward-roger",
                                                                             "tukey")]
    with pytest.raises(SystemExit, match="--analysis 'bootstrap': one of mixed, kenward-roger, scheffe, rank"):
        SCRIPT["main"](["--analysis", "bootstrap"])
    with pytest.raises(SystemExit, match="--analysis 'rank' writes no table rows"):
        SCRIPT["main"](["--analysis", "rank", "--append-table", "rlstats/calibration.csv"])
