"""Audit s25 (cal25): the defaults' calibration rows below their level but within 2 SE of it, on few data sets.

Rows of ``rlstats/calibration.csv`` measured on 200 data sets or fewer whose coverage sat below the level but within 2
Monte Carlo SE of it neither held nor missed by evidence. The default's among them (``curves.band``'s studentised
bands, difference band and max-T at 3, 5 and 10 runs; ``equivalence.size``'s IQM bootstrap-t at 5 and 10 runs;
``power.bootstrap``) were measured again on 4 times as many data sets (each module's ``REMEASURED``, written by
``tests/reference/calibrate.py --replace``).
"""
import pathlib
import runpy

import pytest

from rlstats import calibration

REFERENCE = pathlib.Path(__file__).parent / "reference"


@pytest.mark.xfail(strict=True, reason="audit s25 cal25: curves()' default bands of the mean of one task of 5 skewed "
                                       "runs miss 95% on 400 data sets (pointwise 0.918, worst draw 0.888; "
                                       "simultaneous worst draw 0.900)")
def test_curves_mean_bands_hold_at_one_task_of_five_skewed_runs():
    rows = [r for r in calibration.rows("curves.band") if (r["statistic"], r["tasks"], r["runs"], r["distribution"],
                                                          r["agents"], r["interval"])
            == ("mean", "1", "5", "skewed", "2", "studentized")]
    assert len(rows) == 2
    assert not [r for r in rows if calibration.misses(r, 0.95)]
