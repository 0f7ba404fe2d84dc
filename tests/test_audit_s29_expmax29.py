"""Audit s29, expmax29: ``rlstats.tuning``'s default expected-max band (``band="skew_t"``) on real sweeps.

Found: 15 of the 143 default ``tuning.expected_max_band`` rows at 3-20 runs miss by ``calibration.misses``, all
of them the real sweeps' rows (``distribution`` ``real_dierkes2024``, ``tests/reference/coverage_tuning_real.py``:
Dierkes et al.'s 51 sweeps of 5 tuning runs, each run's 9-10 published seeds its population): at budget k = 1 the
pooled coverage is 0.926, 0.933 and 0.946 at 3, 5 and 10 seeds (below 0.95 - 3 SE = 0.941 at 3 and 5), and every
one of the 15 misses through its worst sweep (0.41-0.86 against the worst-draw threshold 0.885). The worst sweeps
hold a seed 31-54 standard deviations of its run's other seeds from their mean (SAC on LunarLander, 895 and 969
among runs near 200; PPO on Ant, 5,085 among runs near 8,100), and the truth lies on that seed's side whenever the
draws leave it out. The 3 ``tuning.best_interval`` rows of the default (select_then_report_pooled_t) flagged there
do not over-cover: the criterion is one-sided, their pooled coverage (0.975-0.984) holds, and they miss through
their worst sweep (0.48-0.62).

Measured (``tests/reference/coverage_tuning_real_widening.py``, on the table's own data sets, the band recomputed
from the kernels and checked equal to the public function's): widening the band by a factor f on both sides, the
pooled rows hold from f = 1.25, but every sweep reaches 0.885 only at f = 5.9-8.7 (3 seeds), 7.9-11.9 (5) and
10.2-14.5 (10), pooled coverage 0.997-1.000 there; a fixed df in place of Welch-Satterthwaite's, even 1 (t = 12.7),
leaves worst sweeps at 0.52, 0.71 and 0.86. Any df, expansion or bootstrap over the 5 configurations reads the same
drawn seeds, and :func:`test_no_band_from_the_drawn_seeds_holds_a_sweep_and_its_twin` shows why none
can hold: a data set of the worst sweep without its two outlying seeds is a data set of the sweep with them removed
(its twin), whose truth is 29.25 lower at k = 1. Withholding by configuration count would not touch the cause (the
sweeps' seeds, at 3-10 of them alike). So no default was changed; the reproducer below stays a strict xfail.
"""

import csv
import math
from pathlib import Path

import numpy as np
import pytest

import rlstats
from rlstats import calibration
from rlstats.methods.tuning import _kernels as kernels

ROOT = Path(__file__).resolve().parents[1]
LEVEL = 0.95


def default_rows(procedure):
    with open(ROOT / "rlstats" / "calibration.csv", newline="") as handle:
        return [row for row in csv.DictReader(handle)
                if row["procedure"] == procedure and calibration.is_default(row) and 3 <= int(row["runs"]) <= 20]


@pytest.mark.xfail(strict=True, reason="audit s29 expmax29: the default band misses on real sweeps with a rare "
                                       "outlying seed the draws leave out, and no band from the drawn seeds holds")
def test_the_default_expected_max_band_holds_on_every_default_row():
    missing = [row for row in default_rows("tuning.expected_max_band") if calibration.misses(row, LEVEL)]
    assert missing == []


def test_what_misses_is_the_real_sweeps_rows_through_their_worst_sweep():
    band = default_rows("tuning.expected_max_band")
    missing = [row for row in band if calibration.misses(row, LEVEL)]
    assert (len(band), len(missing)) == (143, 15)
    assert {row["distribution"] for row in missing} == {"real_dierkes2024"}
    threshold = LEVEL - 3 * math.sqrt(LEVEL * (1 - LEVEL) / 100)  # one sweep's 100 data sets
    assert round(threshold, 3) == 0.885
    assert all(float(row["coverage_min"]) < threshold for row in missing)
    # pooled, only budget 1 at 3 and 5 seeds misses
    pooled = sorted((int(row["runs"]), row["statistic"]) for row in missing if calibration.pooled_misses(row, LEVEL))
    assert pooled == [(3, "k=1"), (5, "k=1")]
    tuned = [row for row in default_rows("tuning.best_interval") if calibration.misses(row, LEVEL)]
    assert sorted(int(row["runs"]) for row in tuned) == [3, 5, 10]
    for row in tuned:  # one-sided: above the level pooled, below it in the worst sweep
        assert not calibration.pooled_misses(row, LEVEL) and float(row["coverage"]) > LEVEL
        assert float(row["coverage_min"]) <= 0.62


def test_no_band_from_the_drawn_seeds_holds_a_sweep_and_its_twin(mirror):
    """The worst sweep (SAC on LunarLander, DEHB) and its twin without the two outlying seeds (895, 969): at 3 seeds
    a run, P(neither is drawn) = 0.9^6 = 0.531, and those data sets are distributed as the twin's. A band covering
    each sweep in at least 0.885 of its data sets (the house's worst-draw threshold) must then hold both truths,
    29.25 apart at k = 1, in at least 0.885 + (0.885 - 0.469) / 0.531 - 1 = 0.668 of the twin's data sets; the
    default band, which covers the twin itself, is that wide in under 5% of them."""
    runs = rlstats.datasets.load("hpo_optimisation").drop_duplicates()
    runs = runs[(runs["algorithm"] == "sac") & (runs["task"] == "lunar")
                & (runs["procedure"] == "hpo=dehb, rpo=base, return")]
    sweep = [g["score"].to_numpy(dtype=float) for _, g in runs.groupby("tuning_run")]
    twin = [p[p < 500] for p in sweep]
    assert [p.size for p in twin] == [9, 10, 10, 10, 9]
    # truths at k = 1: the runs' mean (each of 5 equally likely), by hand from the published seeds
    gap = np.mean([p.mean() for p in sweep]) - np.mean([p.mean() for p in twin])
    assert gap == pytest.approx(((895 - sweep[0][sweep[0] < 500].mean()) / 10
                                 + (969 - sweep[4][sweep[4] < 500].mean()) / 10) / 5, rel=1e-12)
    assert gap == pytest.approx(29.2536, abs=1e-4)
    n, threshold = 3, 0.885
    clean = 0.9 ** (2 * n)
    both = threshold + (threshold - (1 - clean)) / clean - 1
    assert both == pytest.approx(0.668, abs=1e-3)
    rng = np.random.default_rng(29)
    truth, widths, held = np.mean([p.mean() for p in twin]), [], []
    starts, sizes = np.arange(5) * n, np.full(5, n)
    for _ in range(200):
        y = np.concatenate([p[rng.integers(0, p.size, n)] for p in twin])
        unit = kernels.moment_unit(y)
        point, *moments = kernels.expected_max_moments(y, starts, sizes, np.array([1]), False, unit, True)
        low, high = kernels.skew_t_band(point, *moments, LEVEL, unit)
        widths.append(high[0] - low[0])
        held.append(low[0] <= truth <= high[0])
    widths = np.array(widths)
    assert np.mean(held) >= 0.94  # the default holds on the twin (0.975 of 400 when measured)
    assert np.mean(widths >= gap) < 0.05  # 0.0125 of 400 when measured
    assert 15.5 < np.median(widths) < 18.5  # docs/calibration.md: 17.1 at the median (17.09 of 400)
    assert np.quantile(widths, 1 - both) < gap / 1.5
