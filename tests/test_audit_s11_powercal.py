"""Audit s11 powercal: the calibration table's rows of ``rlstats.power("bootstrap")``'s default (``power.bootstrap``).

Audited: power("bootstrap") plans bootstrap()'s default reading (two agents' studentised intervals at level
1 - alpha do not overlap) since session 10; its size and its agreement with bootstrap() were measured in
``tests/test_audit_s10_power.py`` on simulate()'s families, but the table had no rows for it. The rows
(``tests/reference/power_bootstrap.py``) measure, on the table's grid and families (a pilot of each family given to
power(design=..., resample="pooled")), its size with no difference and the share of data sets on which its decision
is the one bootstrap() makes called as a user calls it (its defaults, a seed of the user's).
"""

import math
import pathlib
import runpy
import warnings

import pytest

import rlstats
from rlstats import calibration

REFERENCE = pathlib.Path(__file__).parent / "reference"
POWER = runpy.run_path(str(REFERENCE / "power_bootstrap.py"))
CALIBRATE = runpy.run_path(str(REFERENCE / "calibrate.py"))


def _tabled(point, statistic):
    agents, tasks, runs, distribution = point
    rows = [r for r in calibration.rows(POWER["PROCEDURE"]) if r["statistic"] == statistic
            and (int(r["agents"]), int(r["tasks"]), int(r["runs"]), r["distribution"]) == point]
    assert len(rows) == 1, "the calibration table lacks this grid point"
    return rows[0]


@pytest.mark.slow  # the suite's time budget (4-5 s): test_power's bootstrap size check is the default run's reduced one
def test_a_size_row_is_reproduced_bit_for_bit():
    """The size row at 2 agents x 5 tasks x 3 normal runs, re-measured by the script on the table's data sets (32,
    4 design draws), is the table's row to the digit; and power() itself, given one draw's pilot, reports the rate
    of the decisions the script counts."""
    point = (2, 5, 3, "normal")
    n_sim = POWER["SIMULATIONS"][0]
    measured = CALIBRATE["measure"](POWER["PROCEDURE"], point, n_sim, False)
    row = _tabled(point, "size")
    assert {k: str(v) for k, v in measured[0].items()} == {k: v for k, v in row.items() if v != ""}
    decisions, _ = POWER["planned"]("normal", 2, 5, 3, 1, 0.0, n_sim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.power("bootstrap", design=POWER["pilot"]("normal", 2, 5, 1), formula=POWER["FORMULA"],
                            effect=0.0, resample="pooled", seeds=[3], n_sim=n_sim,
                            rng=POWER["_seed"](52, 1, 2, 5, 3, 0, 0), progress=False)
    assert res.tidy()["n_tests"].iloc[0] == n_sim
    assert res.tidy()["power"].iloc[0] == decisions.mean()


def test_the_rows_cover_the_grid_and_hold():
    """An agreement row a grid point (2 and 8 agents, 5 and 26 tasks, 3, 5 and 10 runs, the five families) and a
    size row at 2 agents (with more, any pair apart counts and power() states no level for that rate), each the
    default's, none below 0.95 by more than 3 Monte Carlo SE (pooled or in its worst draw)."""
    table = rlstats.calibration_table(POWER["PROCEDURE"])
    assert len(table) == len(POWER["grid"]()) + len([p for p in POWER["grid"]() if p[0] == 2]) == 90
    assert set(table.loc[table["statistic"] == "size", "agents"]) == {2}
    assert table["default"].all() and not table["misses"].any()
    assert sorted(set(table["statistic"])) == ["agreement", "size"]
    assert sorted(set(table["distribution"])) == sorted(POWER["FAMILIES"])
    assert set(table["agents"]) == {2, 8} and set(table["tasks"]) == {5, 26} and set(table["runs"]) == {3, 5, 10}


@pytest.mark.slow
def test_agreement_rows_are_reproduced():
    """The agreement rows at 2 agents x 5 tasks (3 and 5 runs, normal and saturated), where the power is between 0
    and 1, re-measured by the script: the same rows, and the planned power within the row's disagreement of the
    rate bootstrap() realised."""
    for point in ((2, 5, 3, "normal"), (2, 5, 5, "saturated")):
        row, planned, realised = POWER["measure"](point, POWER["SIMULATIONS"][0])
        tabled = _tabled(point, "agreement")
        assert f"{row['coverage']:.6g}" == tabled["coverage"]
        assert abs(planned - realised) <= 1 - row["coverage"] + 1e-12
        assert row["coverage"] >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / row["n_sim"])


def _prose_and_notes(agents):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.power("bootstrap", agents=agents, effect=0.0, tasks=5, seeds=[3], n_sim=2, n_resamples=50,
                            rng=0, progress=False)
    return res._prose(), " ".join(res.notes)


def test_the_rule_is_not_called_conservative_where_it_reads_many_pairs():
    """power("bootstrap") rejects when any two agents' intervals do not overlap, and said for any number of agents
    that the rule is conservative, "so expect a rejection rate below alpha when nothing differs". With 8 agents it
    reads 28 pairs: with no difference it rejected 0.092 of 240 data sets at 8 agents x 26 tasks x 10 normal runs
    (pilot of the table's normal family, 4 design draws; 0.167 of 60 in the worst draw), and 5 of the 32 data sets
    of the table's size row at 8 x 5 x 10 normal runs, where bootstrap() separated as often: the plan is that of
    the analysis, its sentence was not. With two agents the sentence holds (0-0.03 in the table's rows)."""
    prose, notes = _prose_and_notes(8)
    assert "expected below alpha" not in prose and "any of the 28 pairs" in prose
    assert "with two agents" in notes.lower() and "can exceed alpha" in notes
    prose, notes = _prose_and_notes(2)
    assert "expected below alpha" in prose and "28 pairs" not in prose
