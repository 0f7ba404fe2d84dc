"""Audit s35 (former35b): a grid point of ``tests/reference/coverage_small_runs.py`` continued by name.

On the bootstrap's cell streams of audit s33 the former default's rows at 5 tasks x 20 heavy-tailed runs read 0.93125
and 0.933333 of 480 intervals, above the 2-SE line (0.930), so the continuation rule alone kept the point at 480, where
those rows hold; the table's 1,920-interval misses, the Welch floor's evidence (audit s20), were measured on the
streams before and reproduced only under ``test_audit_s34_slow34.former_streams`` (its last reader; this audit removed
it, and the file that held only it and its self-test). The script now continues the points
of ``CONTINUED_POINTS`` whatever their rows read (``--continue distribution,tasks,runs`` names one for a run, and
re-measures its default rows in place); re-measured so on today's streams the two rows read 0.927604 and 0.929688 of
1,920 and miss, as on the streams before (0.929688 and 0.928125).
"""

from __future__ import annotations

import math
import pathlib

import pytest

from conftest import script_module
from rlstats import calibration

SCRIPT = pathlib.Path(__file__).parent / "reference" / "coverage_small_runs.py"


@pytest.fixture(scope="module")
def script():
    return script_module(SCRIPT, "coverage_small_runs")


def test_the_named_point_is_continued_though_its_rows_of_480_hold_beyond_2_se(script, monkeypatch):
    point = ("heavy_tailed", 5, 20)
    assert point in script.CONTINUED_POINTS
    # today's rows of 480 of the former default (worst draws 0.925, as measured): neither is 2 SE below, pooled or in
    # a draw
    rows = [{"interval": "studentized_no_welch", "metric": m, "n_sim": 480, "coverage": c, "design_draws": 4,
             "coverage_min": w} for m, c, w in (("mean", 0.93125, 0.925), ("optimality_gap", 0.933333, 0.925))]
    assert 0.95 - 2 * math.sqrt(0.95 * 0.05 / 480) == pytest.approx(0.93, abs=5e-4)
    assert not any(script.near_miss(r) for r in rows)
    calls = []
    monkeypatch.setattr(script, "measure", lambda *a, **k: calls.append((a, k)) or [
        {**r, "n_sim": 1920, "coverage": 0.9} for r in rows])
    assert script.continued(rows, ("normal", 5, 20)) is rows and not calls  # not named, holds: kept
    again = script.continued(rows, point)
    assert [r["n_sim"] for r in again] == [1920, 1920]
    (args, kwargs), = calls
    assert args[:4] == ("heavy_tailed", 5, 20, script.CONTINUED_SIMULATIONS) and kwargs["seed"] == 2005
    assert script.continued(rows, point, quick=True) is rows  # --quick continues nothing


def test_the_table_holds_the_named_point_on_1920_intervals_and_its_former_default_misses():
    rows = {(r["interval"], r["metric"]): r for r in calibration.rows("bootstrap.interval")
            if (r["tasks"], r["runs"], r["distribution"], r["configuration"]) == ("5", "20", "heavy_tailed", "")}
    widened = {k: r for k, r in rows.items() if k[0] in ("studentized", "studentized_no_welch")}
    assert len(widened) == 6 and {r["n_sim"] for r in widened.values()} == {"1920"}
    former = [rows["studentized_no_welch", m] for m in ("mean", "optimality_gap")]
    assert [(r["coverage"], r["coverage_min"]) for r in former] == [("0.927604", "0.91875"), ("0.929688", "0.910417")]
    assert all(calibration.misses(r, 0.95) for r in former)
    default = [rows["studentized", m] for m in ("iqm", "mean", "median", "optimality_gap")]
    assert [r["coverage"] for r in default] == ["0.944271", "0.958333", "0.968229", "0.946354"]
    assert not any(calibration.misses(r, 0.95) for r in default)


@pytest.mark.parametrize("text, why", [("heavy,5,20", "not a grid point"), ("heavy_tailed,5", "not a grid point"),
                                       ("heavy_tailed,1,20", "not a grid point with default rows"),
                                       ("heavy_tailed,5,2", "not a grid point with default rows"),
                                       ("heavy_tailed,5,x", "not a grid point"), ("", "not a grid point")])
def test_continue_names_a_grid_point_with_default_rows(script, text, why):
    with pytest.raises(SystemExit) as error:
        script.named_point(text)
    message = str(error.value)
    assert message.startswith(f"--continue {text!r}: {why}") and "heavy_tailed" in message and "runs 3, 5, 10, 20" in message
    assert script.named_point(" heavy_tailed, 5 ,20") == ("heavy_tailed", 5, 20)
