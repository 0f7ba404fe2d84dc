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
        rows = script.measure("capped", 5, 3, 2, seed=303, n_resamples=60, intervals=("studentized",),
                              improvement_intervals=(), draws=1)
    row = {r["metric"]: r for r in rows}
    median = row["median"]
    offered = 2 * 4  # data sets x agents
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


# [calib20 task 1] the default rows at 5 tasks x 20 heavy-tailed runs: the mean's 0.925 and the optimality gap's 0.929
# of 480 held only by their Monte Carlo error (0.920 is 3 SE below 0.95 there); continued to 1,920 intervals (the
# first 480 the same) they read 0.930 and 0.928, below 0.935.

@pytest.mark.xfail(strict=True, reason="calib20: the heavy-tailed rows at 5 tasks x 20 runs were not continued")
def test_heavy_tailed_rows_at_five_tasks_and_twenty_runs_are_measured_on_1920_intervals():
    rows = {r["metric"]: r for r in default_rows(tasks=5, runs=20, distribution="heavy_tailed")}
    assert {m: int(r["n_sim"]) for m, r in rows.items()} == dict.fromkeys(("iqm", "mean", "median", "optimality_gap"),
                                                                           1920)
    se = math.sqrt(0.95 * 0.05 / 1920)
    assert abs(float(rows["mean"]["coverage"]) - 0.9297) < 1e-4 and abs(float(rows["optimality_gap"]["coverage"])
                                                                       - 0.9281) < 1e-4
    assert float(rows["mean"]["coverage"]) < 0.95 - 3 * se and calibration.misses(rows["optimality_gap"], 0.95)
    assert not calibration.misses(rows["iqm"], 0.95) and not calibration.misses(rows["median"], 0.95)


@pytest.mark.xfail(strict=True, reason="calib20: the note at 20 runs said nothing of the miss (or 'more runs')")
def test_a_result_at_twenty_runs_names_the_setting_where_the_default_fell_short():
    import rlstats

    df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=20, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bootstrap(df, "score ~ agent | task", metrics=["mean", "iqm", "optimality_gap"],
                                n_resamples=200, rng=0)
    notes = [n for n in res.notes if "fell short" in n]
    assert len(notes) == 2 and "of the mean fell short" in notes[0] and "optimality gap" in notes[1], res.notes
    assert ("nominal 95% intervals covered 0.930 of 1,920 on heavy-tailed scores at 5 tasks" in notes[0]
            and "the IQM's and the median's held 95% in every simulated setting there" in notes[0])
    assert not any("more runs are needed" in n for n in res.notes)
    fewer = rlstats.bootstrap(df[df["seed"] < 10], "score ~ agent | task", metrics=["mean"], n_resamples=200, rng=0)
    assert not any("fell short" in n or "are few" in n for n in fewer.notes)  # 10 runs: every row held
