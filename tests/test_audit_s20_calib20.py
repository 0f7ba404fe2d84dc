"""Audit s20 (calib20): the bootstrap's default interval in the calibration table, where it is withheld and where
a row held only by its Monte Carlo error.

``tests/reference/coverage_small_runs.py`` counted an interval the package withholds (the rule of runs at a cap,
``BootstrapResult.saturated``) as a miss, so the grid's capped rows could not be re-measured under the rule: a
withheld interval claims nothing. It now counts coverage over the intervals given and the withheld ones apart
(``withheld``, printed; not a table column), as ``coverage_one_task.py`` does.
"""

from __future__ import annotations

import importlib.util
import math
import pathlib
import warnings

import numpy as np
import pytest

from rlstats import calibration

REFERENCE = pathlib.Path(__file__).parent / "reference"


def reference_script(name="coverage_small_runs"):
    spec = importlib.util.spec_from_file_location(name, REFERENCE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def default_rows(**design):
    return [r for r in calibration.rows("bootstrap.interval") if r["interval"] == "studentized"
            and r["configuration"] == "" and all(r[k] == str(v) for k, v in design.items())]


@pytest.mark.xfail(strict=True, reason="calib20: a withheld interval was counted as a miss")
def test_withheld_intervals_are_not_counted_as_misses():
    # capped scores, 5 tasks x 3 runs: the median's interval is withheld (runs tied at the cap) for some agents
    script = reference_script()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = script.measure("capped", 5, 3, 3, seed=303, n_resamples=100, intervals=("studentized",),
                              improvement_intervals=(), draws=1)
    row = {r["metric"]: r for r in rows}
    median = row["median"]
    offered = 3 * 4  # data sets x agents
    assert 0 < median["withheld"] < offered and median["n_sim"] == offered - median["withheld"]
    assert row["mean"]["withheld"] == 0 and row["mean"]["n_sim"] == offered


@pytest.mark.xfail(strict=True, reason="calib20: the capped rows were measured before the rule of runs at a cap")
def test_capped_default_median_rows_count_the_intervals_given():
    # the rule withholds 23-38% of the median's intervals on the grid's capped scores at 5 tasks (docs/calibration.md,
    # audit s12): the rows count the given ones alone, and those hold the level
    for tasks in (5, 26):
        for row in default_rows(metric="median", distribution="capped", tasks=tasks):
            n = int(row["n_sim"])
            assert n < 480 if tasks == 5 else n <= 480, row
            assert not calibration.misses(row, 0.95), row
