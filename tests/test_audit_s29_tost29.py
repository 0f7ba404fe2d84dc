"""Audit s29 (tost29): the equivalence back end's default tests miss alpha with equal runs but unlike spreads.

Found: 112 of the 786 default ``equivalence.size`` rows of ``rlstats/calibration.csv`` (``interval`` "welch" per task,
"welch_mean" across tasks) miss alpha by the house rule (``calibration.misses``), every one of them a row of equal
runs and unlike spreads (``configuration`` "..., spread r", audit s23's ``tests/reference/size_equivalence_spread.py``)
on skewed (51) or capped (61) scores, 3-10 runs, 1, 5 and 26 tasks: skewed where agent 1 (claimed non-inferior) is the
narrower (the wider agent's lognormal mean, whose t is skewed toward the side the test rejects on), capped where it is
the wider (its upper tail cut); worst per task non-inferiority 0.201 (capped, 3 runs, spread 8) and 0.183 (skewed, 3
runs, spread 1/8). ``docs/calibration.md`` already counted them (112 of 486 rows of unlike spreads).

Measured (``size_equivalence_spread.py --combined``, seed 2929): audit s23's candidates one at a time did not hold; this
audit tried them together, a test declaring only where Welch's t on min(n) - 1 df, Hall's skewness-corrected t at
each agent's own skewness and the bootstrap-t all declare (``max_all``: each side's largest p-value). It still misses:
per task non-inferiority 0.1005, 0.106 and 0.0835 of 2,000 tests at 3, 5 and 10 runs (skewed, spread 1/8), 0.099 at 3
capped runs (spread 8), 0.0805 at 5 skewed runs at a ratio of only 2, and 0.088 of 600 across 5 tasks (skewed, 5
runs, spread 1/8); and it costs power (non-inferiority at a true difference of 0, margin 1 noise unit, 1 task x 5
normal runs: 0.276 against Welch's 0.394 at one spread, 0.417 against 0.577 with agent 1 four times narrower). No
replacement held, so nothing in the package changes: Welch's t stays the default and ``equivalence()`` keeps quoting
these rows as a condition (audit s23 equivgate23). The reproducers below stay strict xfails until a test holds.
"""

import csv
import functools
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from rlstats import calibration

from conftest import script_module

REFERENCE = Path(__file__).parent / "reference"


@pytest.fixture(scope="module")
def spread():
    return script_module(REFERENCE / "size_equivalence_spread.py", "size_equivalence_spread")


@functools.lru_cache(maxsize=None)
def _default_misses():
    """The default equivalence.size rows (Welch per task and across tasks) below 0.95 by more than 3 binomial SE at
    the level, pooled or in their worst design draw: the house rule written out here, read with the csv module."""
    with open(calibration.PATH, newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["procedure"] == "equivalence.size"
                and r["interval"] in ("welch", "welch_mean")]
    out = []
    for r in rows:
        n = int(r["n_sim"])
        missed = float(r["coverage"]) < 0.95 - 3 * math.sqrt(0.95 * 0.05 / n)
        if r["coverage_min"] and r["design_draws"]:
            draws = int(r["design_draws"])
            missed |= float(r["coverage_min"]) < 0.95 - 3 * math.sqrt(0.95 * 0.05 * draws / n)
        if missed:
            out.append(r)
    return rows, out


def test_default_misses_tabulated():
    """The 112 misses: all of equal runs and unlike spreads, skewed or capped, at 3-10 runs; the worst as quoted.
    Audit s32 (cal32): the 216 across-tasks rows of pairs that did not share every task add none."""
    rows, missed = _default_misses()
    assert len(rows) == 786 + 216 and len(missed) == 112
    assert sum(calibration.misses(r, 0.95) for r in rows) == 112  # the package's rule agrees with the one above
    assert all(", spread " in r["configuration"] for r in missed)
    assert {r["distribution"] for r in missed} == {"skewed", "capped"}
    assert {r["runs"] for r in missed} == {"3", "5", "10"}
    worst = min(missed, key=lambda r: float(r["coverage"]))
    assert (worst["distribution"], worst["tasks"], worst["runs"], worst["test"], worst["configuration"]) == (
        "capped", "1", "3", "noninferior", "delta = -margin, spread 8")
    assert 1 - float(worst["coverage"]) == pytest.approx(0.201)


@pytest.mark.xfail(strict=True, reason="audit s29 tost29: no test measured in Welch's place holds alpha with unlike "
                                       "spreads (0.08-0.11 at best); the default rows still miss")
def test_default_equivalence_rows_hold_alpha():
    assert not _default_misses()[1]


@pytest.mark.xfail(strict=True, reason="audit s29 tost29: Welch's non-inferiority at the margin, capped scores, 1 task "
                                       "x 3 runs, agent 1's spread 8 times agent 2's, declares in about 0.2")
@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # agent 2's 3 runs at the cap: Welch's t of it
def test_welch_noninferiority_capped_spread_8_reproducer(spread):
    """Independent of the package's kernels: scipy's Welch test (``ttest_ind``, ``equal_var=False``, one-sided) of
    agent 1 - agent 2 against -margin, 4,000 data sets of the script's capped scores at the true difference -margin:
    0.217 declared (the table's row, seed 23: 0.201), against alpha's 3 Monte Carlo SE, 0.060."""
    rng = np.random.default_rng(2929)
    offset, scale = np.zeros(1), np.ones(1)
    margin = abs(float(spread._truth("capped", -spread.SHIFT, 8.0, offset, scale).mean()))
    one, two = spread._simulate("capped", 3, -spread.SHIFT, 8.0, offset, scale, 4_000, rng)
    p = stats.ttest_ind(one[:, 0] + margin, two[:, 0], axis=-1, equal_var=False, alternative="greater").pvalue
    share = float(np.mean(p <= 0.05))
    assert share <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 4_000)


def test_combined_candidates_still_miss(spread):
    """The combination of audit s23's candidates (each side's largest p-value of Welch's t on min(n) - 1 df, Hall's
    corrected t and the bootstrap-t) still misses at 5 skewed runs, spread 1/8: the script's full run 0.106 of 2,000
    (seed 2929, 199 resamples); here 1,000 data sets, 99 resamples, beyond alpha's 3 Monte Carlo SE (0.071)."""
    shares = spread.declared("skewed", 5, 1, 0.125, 1_000, np.random.default_rng(29), n_resamples=99,
                             p_values=spread.combined_p)
    se = math.sqrt(0.05 * 0.95 / 1_000)
    combined = shares["max_all", "noninferior -margin"]
    assert combined > 0.05 + 3 * se
    assert abs(combined - 0.106) < 4 * math.sqrt(0.106 * 0.894 / 1_000)  # the full run's, within 4 SE
    for name in ("welch", *spread.COMBINED, "boot_min_df"):  # declares only where each of them declares
        assert combined <= shares[name, "noninferior -margin"]
