"""Audit s32 (cal32): the size at the margin of equivalence()'s across-tasks and aggregate tests on incomplete designs.

Since audit s31 (equiv31) each pair's across-tasks test and aggregate read the tasks both its agents ran; the
calibration table measured them on complete two-agent designs only (5 and 26 tasks). ``tests/reference/
size_equivalence_incomplete.py`` measures them as equivalence() runs them on two incomplete layouts (3 agents on 5
tasks, A vs B sharing 2 and B vs C 4; a staircase of 4 agents on 8 tasks, pairs sharing 8, 4 and 2), 3, 5 and 10 runs,
the grid's four families, each pair at its own true difference on its shared tasks: 432 ``equivalence.size`` rows
(``tasks`` the pair's shared tasks, ``configuration`` "delta = -margin, A vs B: 2 of 5 tasks shared"), none missing.
"""

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest

import rlstats
from rlstats import calibration
from rlstats.methods.equivalence import _api

from conftest import script_module

REFERENCE = Path(__file__).parent / "reference"


@pytest.fixture(scope="module")
def script():
    return script_module(REFERENCE / "size_equivalence_incomplete.py", "size_equivalence_incomplete")


def _rows(script):
    return [r for r in calibration.rows(_api.CALIBRATION) if script.appended(r)]


def test_rows_count_and_hold(script):
    """432 rows (3-agent layout: 2 pairs, staircase: 4; two scopes; TOST at +-margin and non-inferiority at -margin;
    3, 5, 10 runs; 4 families), every one a default's row, none below 0.95 by 3 Monte Carlo SE pooled or in a draw;
    ``tasks`` the pair's shared tasks; across tasks 1,000 tests a row, the aggregate 100 (400 where continued)."""
    rows = _rows(script)
    assert len(rows) == 432 == sum(script.appended(r) for r in rows)
    assert not [r for r in rows if calibration.misses(r, 0.95)]
    assert all(calibration.is_default(r) for r in rows)
    shared = {(a, b, layout): int(s.sum()) for layout in script.LAYOUTS for a, b, s in script.pairs_measured(layout)}
    assert sorted(set(shared.values())) == [2, 4, 8]
    for row in rows:
        pair = row["configuration"].split(", ")[1].split(":")[0]
        assert row["configuration"].endswith(f": {row['tasks']} of {5 if row['agents'] == '3' else 8} tasks shared")
        assert int(row["tasks"]) == shared[(*pair.split(" vs "), next(
            layout for layout in script.LAYOUTS if len(script.LAYOUTS[layout][1]) == int(row["agents"])))]
    assert {r["n_sim"] for r in rows if r["interval"] == "welch_mean"} == {"1000"}
    assert {r["n_sim"] for r in rows if r["interval"] == "bootstrap_t"} <= {"100", "400"}
    assert {r["n_resamples"] for r in rows if r["interval"] == "bootstrap_t"} == {"400"}


def test_the_measured_path_is_the_public_function(script):
    """The script runs ``_api._run`` on a refilled Design; equivalence() on the same runs as a DataFrame gives each
    pair's across-tasks and aggregate intervals bit for bit (staircase, 3 skewed runs: three bootstraps)."""
    layout, runs = "4 agents on 8 tasks, a staircase", 3
    offset, scale = script.DESIGNS["design_draw"](0, 8)
    y = script.simulate(layout, "skewed", 1.0, offset, scale, runs, 1, np.random.default_rng(32))[0]
    data = y[script.cells(layout, runs)]
    options = _api.EquivalenceOptions.checked(margin=1.0, n_resamples=script.N_RESAMPLES, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = _api._run(dataclasses.replace(script.template(layout, runs), y=data).runs_by_score(), options, 7,
                         "").comparisons
        public = rlstats.equivalence(script.frame_of(layout, runs, data), "score ~ agent | task/seed", margin=1.0,
                                     n_resamples=script.N_RESAMPLES, rng=7, progress=False).comparisons
    keep = ["agent_1", "agent_2", "scope", "n_tasks", "conf_low", "conf_high"]
    mine, public = (t[t["scope"] != "task"][keep].reset_index(drop=True) for t in (mine, public))
    assert mine.equals(public)
    assert sorted(set(mine["n_tasks"])) == [2, 4, 8] and np.isfinite(mine["conf_low"]).sum() >= 8


def test_across_tasks_rows_reproduce(script):
    """One point's across-tasks rows, from their recorded seeds (1,000 data sets a row, vectorised): the table's."""
    point = ("3 agents on 5 tasks", 3, "capped")
    measured = []
    for configuration in script.CONFIGURATIONS:
        measured += script.rows_of(point, *script.held_by_draw(point, configuration, script.SIMULATIONS[0], 0,
                                                               scopes=("welch_mean",)))
    table = {(r["test"], r["configuration"]): r for r in _rows(script) if r["interval"] == "welch_mean"
             and r["agents"] == "3" and r["runs"] == "3" and r["distribution"] == "capped"}
    assert len(measured) == len(table) == 6
    for row in measured:
        kept = table[row["test"], row["configuration"]]
        assert (row["n_sim"], f"{row['coverage']:.6g}", f"{row['coverage_min']:.6g}") == (
            int(kept["n_sim"]), kept["coverage"], kept["coverage_min"])


def test_aggregate_path_checks_the_across_tasks_intervals(script):
    """A reduced run of the aggregate's path (one data set per design draw, the staircase at 3 capped runs): each
    pair's across-tasks interval from ``_api._run`` is the vectorised one (asserted inside), and each measured pair
    gets its rows."""
    point = ("4 agents on 8 tasks, a staircase", 3, "capped")
    held, covered = script.held_by_draw(point, "delta = -margin", 0, 1, scopes=("bootstrap_t",))
    assert sorted({(a, b) for a, b, *_ in held}) == [("A", "B"), ("A", "D"), ("B", "C"), ("C", "D")]
    assert all(len(flags) == 4 and all(f.size == 1 for f in flags) for flags in held.values())


def test_size_notes_read_the_rows_of_the_pairs_shared_tasks(script, monkeypatch):
    """A pair's size note brackets its own shared tasks among the rows of its test and runs, the rows of incomplete
    layouts included: 2 shared tasks read the 2-task rows (the 5-task rows before them), 3 read 2 and 4, 6 read 5 and
    8. None misses, so equivalence() says nothing of them; were the across-tasks row of A vs B at 2 of 5 tasks x 3
    runs short (made so here), the note would quote it for the pair sharing 2 tasks and for A vs C (3: 2 and 4
    bracket it), not for B vs C (4)."""
    rows = [r for r in calibration.rows(_api.CALIBRATION) if not _api._unlike_spread_row(r)
            and r["test"] == "tost" and r["interval"] == "welch_mean" and r["runs"] == "3"]
    assert {n: calibration.bracketing_rows(rows, n)[1] for n in (2, 3, 6, 12)} == {
        2: (2,), 3: (2, 4), 6: (5, 8), 12: (8, 26)}
    layout, runs = "3 agents on 5 tasks", 3
    offset, scale = script.DESIGNS["design_draw"](0, 5)
    y = script.simulate(layout, "normal", 1.0, offset, scale, runs, 1, np.random.default_rng(5))[0]
    frame = script.frame_of(layout, runs, y[script.cells(layout, runs)])

    def sized(res):
        return [n for n in res.notes if n.startswith("measured size at the margin")]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert sized(rlstats.equivalence(frame, "score ~ agent | task/seed", margin=1.0, aggregate=None)) == []
        original = calibration.rows

        def short(procedure):
            out = original(procedure)
            if procedure != _api.CALIBRATION:
                return out
            return tuple(dict(r, coverage="0.8") if script.appended(r) and r["interval"] == "welch_mean"
                         and r["runs"] == "3" and r["test"] == "tost" and r["distribution"] == "normal"
                         and r["configuration"] == "delta = +margin, A vs B: 2 of 5 tasks shared" else r for r in out)

        monkeypatch.setattr(calibration, "rows", short)
        two, three = sized(rlstats.equivalence(frame, "score ~ agent | task/seed", margin=1.0, aggregate=None))
    quoted = ("3 runs per agent: 0.200 (normal scores, delta = +margin, A vs B: 2 of 5 tasks shared; 1000 simulated "
              "tests)")
    lead = "measured size at the margin of the across tasks test (Welch-Satterthwaite over tasks) of "
    assert two.startswith(f"{lead}A vs B at 2 tasks and {quoted}"), two
    # A vs C shares 3 tasks: the rows of 2 and 4 bracket it, and the worse is quoted
    assert three.startswith(f"{lead}A vs C at 2 and 4 tasks (the worse on 2) and {quoted}"), three


@pytest.mark.slow
def test_one_point_reproduces_its_rows(script):
    """A whole point, both scopes, from its recorded seeds (200 aggregate data sets through ``_api._run``, about 20 s):
    the table's rows (3 agents on 5 tasks, 3 skewed runs), on the bootstrap's cell streams of audit s33 bootstream33,
    on which audit s35 former35 re-measured this point's 12 rows (one moved: the aggregate's TOST of B vs C at
    -margin declared nothing in 100 tests, coverage 1 and worst draw 1, where the streams before gave 0.99 and 0.96)."""
    point = ("3 agents on 5 tasks", 3, "skewed")
    measured = script.table_rows(point)
    table = {(r["interval"], r["test"], r["configuration"]): r for r in _rows(script)
             if r["agents"] == "3" and r["runs"] == "3" and r["distribution"] == "skewed"}
    assert len(measured) == len(table) == 12
    for row in measured:
        kept = table[row["interval"], row["test"], row["configuration"]]
        assert (row["n_sim"], f"{row['coverage']:.6g}", f"{row['coverage_min']:.6g}") == (
            int(kept["n_sim"]), kept["coverage"], kept["coverage_min"])
