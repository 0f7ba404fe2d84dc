"""Audit s36 (calib36): measured levels of decisions that had none in the calibration table.

1. equivalence()'s note of unlike spreads leaves out a task whose runs rule the rows' spreads out (Bonett's 99%
   interval of the SD ratio within 1/1.7 to 1.7, audit s34 eqnote34). That decision is a claim of its own (the true
   spreads are not the rows'), measured where it is false by ``tests/reference/spread_ruled_out.py``: the
   ``equivalence.spread_ruled_out`` rows (168: runs 3-100, four families, the rows' factors 1/8-8; 20,000 data sets
   a row, seed 36). One misses its level 0.995: capped scores' factor 1/2 (SD ratio 1/1.73) at 30 runs, 0.0067
   wrongly ruled out. The note quotes the worst row at the runs nearest the ruled-out task's.
"""

import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats import calibration

REFERENCE = pathlib.Path(__file__).resolve().parent / "reference"
PROCEDURE = "equivalence.spread_ruled_out"


def _rows():
    return calibration.rows(PROCEDURE)


def test_rows_cover_the_grid_and_one_misses():
    rows = _rows()
    script = runpy.run_path(str(REFERENCE / "spread_ruled_out.py"))
    assert [script["point_of"](r) for r in rows] == script["grid"]()
    assert {r["level"] for r in rows} == {"0.995"} and {r["n_sim"] for r in rows} == {"20000"}
    missed = [r for r in rows if calibration.misses(r, 0.995)]
    assert [(r["runs"], r["distribution"], r["configuration"]) for r in missed] == [("30", "capped", "spread 1/2")]
    assert 1 - float(missed[0]["coverage"]) == pytest.approx(0.00665, abs=1e-9)
    # nothing ruled out at 3 and 5 runs: the interval is too wide to lie within the band
    assert all(float(r["coverage"]) == 1.0 for r in rows if r["runs"] in ("3", "5"))
    # the capped factor-1/2 row at 50 runs is 0.0063, within 3 SE (0.0015) of 0.005
    fifty = next(r for r in rows if (r["runs"], r["distribution"], r["configuration"]) == ("50", "capped", "spread 1/2"))
    assert 1 - float(fifty["coverage"]) == pytest.approx(0.0063, abs=1e-9) and not calibration.misses(fifty, 0.995)
    assert all(calibration.is_default(r) for r in rows)


def test_a_row_reproduces_from_its_script():
    """The 10-run capped factor-2 row (2 data sets ruled out of 20,000) from the script, bit for bit."""
    script = runpy.run_path(str(REFERENCE / "spread_ruled_out.py"))
    (row,) = script["table_rows"]((10, "capped", "2"), 20_000)
    table = next(r for r in _rows() if (r["runs"], r["distribution"], r["configuration"]) == ("10", "capped", "spread 2"))
    assert f"{row['coverage']:.6g}" == table["coverage"] == "0.9999" and f"{row['se']:.6g}" == table["se"]


def _frame(x):
    return pd.DataFrame({"agent": ["A"] * len(x) + ["B"] * len(x), "task": "t1",
                         "score": np.r_[x, x + 0.01]})


@pytest.mark.parametrize("runs, quoted", [(30, 30), (40, 30), (100, 100), (250, 100)])
def test_note_quotes_the_rows_at_the_runs_nearest(runs, quoted):
    """Two agents' runs of one spread (normal quantiles, B = A + 0.01) rule the rows' spreads out: the note names
    the task as ruled out and quotes the worst row at the runs nearest, the miss at 30 in miss_clause's words."""
    x = stats.norm.ppf((np.arange(runs) + 0.5) / runs)
    result = rlstats.equivalence(_frame(x), "score ~ agent | task", margin=1.0, aggregate=None, progress=False, rng=0)
    (note,) = [n for n in result.notes if "ruled out on t1" in n]
    share = {30: "0.0067", 100: "0.0028"}[quoted]
    beyond = ", the most simulated" if runs > 100 else ""
    assert (f"within 1/1.7 to 1.7; wrongly, at the rows' spreads, in up to {share} of 20000 simulated tasks: capped "
            f"scores, SD ratio 1/2, {quoted} runs of each agent{beyond}") in note
    missed = ", above 0.005 by more than 3 Monte Carlo standard errors; " in note
    assert missed == (quoted == 30)
    assert note.endswith("the calibration table's 'equivalence.spread_ruled_out' rows)")


def test_calibration_page_counts_the_rows():
    from test_audit_s26_docs26 import _words

    page = _words("docs/calibration.md")
    assert "At 3-20 runs per cell 250 of the defaults' 7,093 rows miss (250 of 6,997 until audit s36, calib36" in page
    assert "0.0048 of 20,000 at 20 runs, 0.0067 at 30, 0.0063 at 50 and 0.0028 at 100 (SE 0.0005)" in page
