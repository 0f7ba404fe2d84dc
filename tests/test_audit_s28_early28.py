"""Audit s28 (meta28), early28: curves()' bands at the steps that some runs do not reach (ended early, started late).

Measured (``tests/reference/coverage_curves_early.py``, the calibration grid's curves of ``coverage_curves_bands.py``
with runs cut for every agent and task: the first run ending before step 5 of 10, the first two ending at random steps
2-7, half the runs ending before step 5, the first run starting at step 5; the mean and the IQM, 1, 2 and 5 tasks, 3,
5 and 10 runs, normal, skewed and capped scores; 400 bands a point over 4 design draws, 10 alike agents a data set).
The whole-run bootstrap resamples every run, so at such a step the number of logged runs in a resample is random;
the default (studentised) bands there were not measured before. FOUND: they hold: at the steps with fewer runs logged
the default's pointwise band covered PW_RANGE and its simultaneous band SIM_RANGE (whole curve); no default row misses.
Their price: on one task the default's pointwise band at those steps is 2.0-2.3 times the expanded band's width (mean,
5 runs with 4 logged), against 1.6 at the complete steps, since a resample holding one logged run has a floored
standard error. The expanded bands (``bands="expanded"``, already quoted short of their level on complete curves)
covered there what they cover at the runs logged there.

FIXED: the calibration notes read the table at the design's fewest runs in a task, also where the bands of some steps
rest on fewer: 10 runs of one task of which 5 end early, ``bands="expanded"``, quoted the 10-run rows (0.863 pointwise,
skewed scores) for bands resting on 5 runs there, whose rows read 0.859 (and 0.630 for 0.675 simultaneous). They now
read the fewest runs of a task logged at a step where a band is given, and say so; complete curves are unchanged (the
fewest logged there is the design's). The new rows (``configuration`` "runs cut: ...") are another design than the
complete curves': the notes of complete curves do not read them.
"""

import pathlib
import runpy

import numpy as np
import pytest

import rlstats
from rlstats import calibration
from rlstats.methods.curves import _api as curves_api

REFERENCE = pathlib.Path(__file__).resolve().parent / "reference"
EARLY = runpy.run_path(str(REFERENCE / "coverage_curves_early.py"))


def _frame(runs, tasks, distribution="normal", agents=2, seed=0):
    offset, scale = EARLY["designs"].design_draw(0, tasks)
    return EARLY["BANDS"]["simulate"](agents, runs, distribution, offset, scale, np.random.default_rng(seed))


def test_cuts_remove_the_rows_they_name():
    """Each cut, against counts of the rows by hand: 2 agents x 2 tasks, 5 runs, 10 steps (0-9)."""
    full = _frame(5, 2)
    assert len(full) == 2 * 2 * 5 * 10
    one = EARLY["cut"](full, "one_at_5", 5, None)
    assert len(full) - len(one) == 2 * 2 * 1 * 5 and one[one["seed"] == 0]["step"].max() == 4
    half = EARLY["cut"](full, "half_at_5", 5, None)  # floor(5 / 2) = 2 runs
    assert len(full) - len(half) == 2 * 2 * 2 * 5 and set(half[half["step"] >= 5]["seed"]) == {2, 3, 4}
    late = EARLY["cut"](full, "late_at_5", 5, None)
    assert len(full) - len(late) == 2 * 2 * 5 and late[late["seed"] == 0]["step"].min() == 5
    two = EARLY["cut"](full, "two_random", 5, np.random.default_rng(1))
    spans = two.groupby(["agent", "task", "seed"])["step"].agg(["min", "max", "size"])
    cut = spans.xs(0, level="seed").index.size + spans.xs(1, level="seed").index.size
    assert cut == 8 and spans["min"].eq(0).all() and (spans["size"] == spans["max"] + 1).all()
    early = spans[spans.index.get_level_values("seed") < 2]["max"]
    assert early.between(2, 7).all() and (spans[spans.index.get_level_values("seed") >= 2]["max"] == 9).all()
    # the steps with fewer runs logged, per agent: against curves()' own count of the fewest logged (fewest_logged)
    for frame in (one, late, two):
        where = EARLY["partial_steps"](frame, 5, 2)
        res = rlstats.curves(frame, "score ~ agent | task/seed", step="step", statistic="mean", bands="expanded",
                             n_resamples=20, rng=0, normalize=False, progress=False)
        np.testing.assert_array_equal(where, res.fewest_logged < 5)
    np.testing.assert_array_equal(EARLY["partial_steps"](one, 5, 2)[0], np.arange(10) >= 5)
    np.testing.assert_array_equal(EARLY["partial_steps"](late, 5, 2)[1], np.arange(10) < 5)


def _quoted(res, band):
    found = [n for n in res.notes if n.startswith(f"measured coverage of the {band} band of the mean")]
    assert len(found) == 1, res.notes
    return found[0]


def _lowest(runs, band):
    """The lowest worst-draw coverage of the complete curves' expanded rows of the mean on one task at ``runs``, read
    from the table here (what the note should quote)."""
    rows = [r for r in calibration.rows("curves.band") if r["statistic"] == "mean" and r["interval"] == "expanded"
            and r["band"] == band and r["runs"] == str(runs) and r["tasks"] == "1" and r["configuration"] == ""]
    assert len(rows) == 4
    return min(calibration.worst_coverage(r) for r in rows)


def test_notes_read_the_rows_at_the_runs_logged():
    """10 runs of one task, 5 of them ending before step 5 (by construction): the expanded bands at steps 5-9 rest on
    5 runs. Before, the notes quoted the 10-run rows (0.863 pointwise); now the 5-run rows, saying why. The complete
    frame quotes the 10-run rows, as before."""
    full = _frame(10, 1, "skewed", seed=3)
    cut = EARLY["cut"](full, "half_at_5", 10, None)
    options = dict(step="step", statistic="mean", bands="expanded", n_resamples=100, rng=1, normalize=False,
                   progress=False)
    whole = rlstats.curves(full, "score ~ agent | task/seed", **options)
    short = rlstats.curves(cut, "score ~ agent | task/seed", **options)
    np.testing.assert_array_equal(short.fewest_logged, [[10] * 5 + [5] * 5] * 2)
    for band in ("pointwise", "simultaneous"):
        assert "(10 runs per task, 1 task): " in _quoted(whole, band)
        assert f": {_lowest(10, band):.3f} (" in _quoted(whole, band)
        assert ("(5 runs per task, as the fewest runs of a task logged at a step with a band, 1 task): "
                in _quoted(short, band))
        assert f": {_lowest(5, band):.3f} (" in _quoted(short, band)
        assert dict(short.measured_coverage)[band] == pytest.approx(_lowest(5, band))


def test_runs_read_where_bands_are_given():
    """The runs the notes read: the design's fewest unless a band is given at a step with fewer logged (by hand)."""
    fewest = np.array([5, 10])
    logged = np.array([[5, 5, 3, 3], [10, 4, 4, 0]])
    given = np.array([[True, True, False, False], [True, True, True, False]])
    assert curves_api._runs_read(fewest, logged, given) == 4
    assert curves_api._runs_read(fewest, logged, given & (logged > 4)) == 5
    assert curves_api._runs_read(fewest, logged, np.zeros_like(given)) == 5


def test_rows_in_the_table():
    """The script's rows: both bands of every grid point, the expanded ones everywhere, the default's pointwise one but
    where it is withheld at every step with fewer runs (3 runs: 2 logged; one task with 3 logged, where more than 2.5%
    of the resamples repeat one run), its simultaneous one but at one task of 3 runs (withheld at every step); none of
    the default's misses. Complete curves' notes do not read them (test_notes_read_the_rows_at_the_runs_logged)."""
    assert EARLY["PREFIX"] is calibration.RUNS_CUT  # the script reads the one spelling
    rows = [r for r in calibration.rows("curves.band") if EARLY["appended"](r)]
    by_point = {}
    for r in rows:
        point = (r["statistic"], int(r["runs"]), int(r["tasks"]), r["distribution"],
                 r["configuration"][len(EARLY["PREFIX"]):])
        by_point.setdefault(point, set()).add((r["interval"], r["band"]))
    assert set(by_point) == set(EARLY["grid"]())
    for (statistic, runs, tasks, _, how), kinds in by_point.items():
        assert {("expanded", "pointwise"), ("expanded", "simultaneous")} <= kinds
        # withheld at every step with fewer runs logged: 2 logged (3 runs), or 3 of one task (half of 5)
        withheld = runs == 3 or (runs, tasks, how) == (5, 1, "half_at_5")
        assert (("studentized", "pointwise") in kinds) == (not withheld), (statistic, runs, tasks, how)
        # the whole curve's band is given where the complete steps have one (not at one task of 3 runs)
        assert (("studentized", "simultaneous") in kinds) == ((runs, tasks) != (3, 1)), (statistic, runs, tasks, how)
    defaults = [r for r in rows if calibration.is_default({"procedure": "curves.band", **r})]
    assert defaults and not any(calibration.misses(r, 0.95) for r in defaults)
    # 400 bands a row; pointwise, those given at some step with fewer runs (at one task of 5 runs, two_random leaves 3
    # logged at some steps, withheld there)
    assert all(int(r["n_sim"]) == 400 for r in defaults if r["band"] == "simultaneous")
    assert all(int(r["n_sim"]) >= 319 for r in defaults if r["band"] == "pointwise")


def test_reduced_measurement():
    """The first data set of the first design draw of one point (1 task x 5 normal runs, the first ending before step
    5): 10 bands, held values shares; the full measurement is the slow test below."""
    held, widths = EARLY["measure"]("mean", 5, 1, "normal", "one_at_5", data_sets=4, n_resamples=100,
                                    bands=("studentized",), draws=1)
    for key, by_draw in held.items():
        values = np.concatenate(by_draw)
        assert values.size == 10 and ((values >= 0) & (values <= 1)).all(), key
    # 5 of 10 steps per band with fewer runs logged: the share held is a multiple of 1/5
    shares = np.concatenate(held["studentized", "pointwise"]) * 5
    np.testing.assert_allclose(shares, np.round(shares))
    assert widths["studentized", "partial"] > widths["studentized", "full"]  # 4 runs logged, not 5


CAPPED_EARLY = ("iqm", 5, 2, "capped", "late_at_5")


@pytest.mark.slow
@pytest.mark.parametrize("point", [("mean", 5, 1, "skewed", "two_random"), CAPPED_EARLY])
def test_full_measurement_reproduces_the_rows(point):
    """The script's rows at two points are the table's (the same seeds), on curves()' keys of audit s32 curves32 and
    cell streams of audit s33 curvestream33, on which audit s35 former35 re-measured them (the skewed point's first
    row 0.97, 0.9725 on the former keys; the capped IQM point, which audit s34 slow34 found no longer given back under
    the former keys, 0.955 / 0.984 / 0.9325 / 0.9715 for studentized simultaneous / pointwise, expanded simultaneous /
    pointwise, where the table held 0.96 / 0.983 / 0.9375 / 0.9705; every row holds, as before)."""
    table = {(r["statistic"], r["runs"], r["tasks"], r["distribution"], r["configuration"], r["interval"], r["band"]): r
             for r in calibration.rows("curves.band") if EARLY["appended"](r)}
    held, _ = EARLY["measure"](*point)
    for row in EARLY["rows_of"](point, held, 300):
        mine = table[(point[0], str(point[1]), str(point[2]), point[3], EARLY["PREFIX"] + point[4],
                      row["interval"], row["band"])]
        assert float(mine["coverage"]) == pytest.approx(row["coverage"], abs=1e-5)
        assert int(mine["n_sim"]) == row["n_sim"]
