"""Audit s27 (maxt27): the curves grid's continuation decided on the data sets that triggered it.

``coverage_curves_bands.table_rows`` continues a grid point from 60 (or 240) data sets to 400 where a default's row
misses; the 400 were the same data sets continued, so the 60 that made the row miss stayed in the row that decided
(selection toward a miss). At 2 tasks of 3 capped runs the max-T row of the mean read 37 of 400 (0.9075, worst draw
0.87) for a test that relabels exchangeable runs (exact), and results comparing curves quoted it.
"""

import pathlib
import runpy

import pytest

REFERENCE = pathlib.Path(__file__).parent / "reference"


def _calls(first_coverage):
    """The (n_sim, seed) of each ``measure`` call ``table_rows`` makes at a grid point whose first stage gives a
    default max-T row of ``first_coverage`` (a stand-in measurement: no simulation)."""
    bands = runpy.run_path(str(REFERENCE / "coverage_curves_bands.py"))
    calls = []

    def measure(*point, n_sim, n_resamples=400, seed=0, draws=None):
        calls.append((n_sim, seed))
        coverage = first_coverage if len(calls) == 1 else 0.95
        return [{"statistic": point[0], "band": "max_t", "interval": "", "runs": point[1], "tasks": point[2],
                 "distribution": point[3], "agents": point[4], "n_resamples": n_resamples, "n_sim": n_sim,
                 "coverage": coverage, "se": 0.01, "set_size": "", "design_draws": 4, "coverage_min": coverage}]

    table_rows = bands["table_rows"]
    table_rows.__globals__["measure"] = lambda *point, **kw: measure(*point[:5], n_sim=point[5], **kw)
    rows = table_rows(("mean", 3, 2, "capped", 2), 60)
    return calls, rows


@pytest.mark.xfail(strict=True, reason="the continuation re-measures the data sets that triggered it (seed 0, "
                                       "the first 60 among the 400)")
def test_continuation_decides_on_fresh_data_sets():
    calls, rows = _calls(0.85)
    assert calls[0] == (60, 0)
    (n_sim, seed), = calls[1:]
    assert n_sim == 400 and seed != 0  # other streams: none of the 60 that triggered it
    assert rows[0]["n_sim"] == 400
