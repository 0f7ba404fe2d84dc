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


def test_curves_mean_bands_hold_at_one_task_of_five_skewed_runs():
    """Audit s25: cal25 found the default bands of the mean at one task of 5 skewed runs short of 95% on 400 data sets
    (pointwise 0.918, worst draw 0.888; simultaneous 0.936, worst draw 0.900: a strict xfail); band25 widened them on
    the side of the runs' skew, pooled over tasks and steps, the pointwise band holding Hall's skew-corrected t band
    too, and they hold on the same data sets (0.957, worst draw 0.937; 0.950, 0.925). Audit s26 (hall26) capped
    Hall's band where its cubic flattens (its width had jumped with the skewness): 0.950 (0.927) and 0.946 (0.920).
    Audit s27 (maxt27): a continuation's rows are those of 400 fresh data sets (the 240 that triggered it no longer
    among them): 0.951 (0.948) and 0.965 (0.95)."""
    rows = {r["band"]: r for r in calibration.rows("curves.band") if (r["statistic"], r["tasks"], r["runs"],
                                                                      r["distribution"], r["agents"], r["interval"])
            == ("mean", "1", "5", "skewed", "2", "studentized")}
    assert sorted(rows) == ["pointwise", "simultaneous"]
    assert not [r for r in rows.values() if calibration.misses(r, 0.95)]
    assert [(rows[b]["n_sim"], rows[b]["coverage"], rows[b]["coverage_min"]) for b in ("pointwise", "simultaneous")] \
        == [("800", "0.950625", "0.948"), ("800", "0.965", "0.95")]


MODULES = {"curves.band": "coverage_curves_bands", "equivalence.size": "size_equivalence",
           "power.bootstrap": "power_bootstrap"}


def _module(procedure):
    return runpy.run_path(str(REFERENCE / f"{MODULES[procedure]}.py"))


def _own_rows(procedure):
    """The procedure's rows its grid writes (not those another script appends)."""
    calibrate = runpy.run_path(str(REFERENCE / "calibrate.py"))
    appended = [runpy.run_path(str(REFERENCE / f"{script}.py"))["appended"]
                for script in calibrate["appended_scripts"](procedure)]
    return [r for r in calibration.rows(procedure) if not any(own(r) for own in appended)]


@pytest.mark.parametrize("procedure", sorted(MODULES))
def test_every_row_has_its_grid_point(procedure):
    """``point_of`` (what ``calibrate.py --replace`` reads) gives each row a point of the module's grid, and each
    point of ``REMEASURED`` is one."""
    module = _module(procedure)
    grid = set(module["grid"]())
    assert {module["point_of"](r) for r in _own_rows(procedure)} == grid
    assert module["REMEASURED"] <= grid


#: data sets (curves: curves; each band row counts both agents' bands) a row of a REMEASURED point holds
DATA_SETS = {"curves.band": {240, 400}, "equivalence.size": {400}, "power.bootstrap": {128}}


@pytest.mark.parametrize("procedure", sorted(MODULES))
def test_remeasured_points_are_the_tables(procedure):
    """The table's rows at each REMEASURED point are the re-measurement (4 times the data sets; curves continued to
    400 where a default's row then missed)."""
    module = _module(procedure)
    seen = set()
    for row in _own_rows(procedure):
        n_sim = int(row["n_sim"])
        if procedure == "curves.band" and row["band"] in ("simultaneous", "pointwise"):
            n_sim //= 2  # two agents' bands a data set
        if module["point_of"](row) in module["REMEASURED"]:
            assert n_sim in DATA_SETS[procedure], row
            seen.add(module["point_of"](row))
    assert seen == module["REMEASURED"]
    # curves: cal25's 40 and audit s27's 14 at 2 tasks (curves27)
    assert len(seen) == {"curves.band": 54, "equivalence.size": 5, "power.bootstrap": 6}[procedure]


def test_remeasured_default_rows_hold():
    """On 4 times the data sets every default row of the re-measured points holds 95% by the table's 3-SE rule
    (pooled and in its worst design draw): since band25 widened the mean's bands, curves()' bands of the mean at one
    task of 5 skewed runs too (they missed before: the test above)."""
    missing = []
    for procedure in MODULES:
        module = _module(procedure)
        for row in _own_rows(procedure):
            if module["point_of"](row) in module["REMEASURED"] and calibration.is_default(row) \
                    and calibration.misses(row, float(row["level"])):
                missing.append((procedure, row["statistic"], row["band"], row["tasks"], row["runs"],
                                row["distribution"], row["coverage"], row["coverage_min"]))
    assert missing == []
