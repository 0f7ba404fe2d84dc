"""Audit s21 (bayescal21b): the ``bayes.decision`` rows at the calibration grid's 10 tasks and 5 runs, which
bayescal21 left out for the CPU budget (tests/reference/bayes_decisions.py, seeded per grid point), and the lookup
of a result's design at the nearest measured one among them."""

import pathlib
import runpy
import warnings

import numpy as np
import pytest

import rlstats
from rlstats import calibration
from rlstats.methods.bayes import _api
from test_audit_s21_bayescal21 import _frame  # two agents of given paired differences

REFERENCE = pathlib.Path(__file__).resolve().parent / "reference"


@pytest.mark.parametrize("tasks, runs, looked_up", [((10, 5, ((10,), 5))), ((10, 3, ((10,), 3))),
                                                     ((26, 5, ((26,), 5))), ((5, 5, ((5,), 5))),
                                                     ((12, 6, ((10, 26), 5)))])
def test_a_design_is_looked_up_at_its_own_or_nearest_measured_row(monkeypatch, tasks, runs, looked_up):
    # a "practically equivalent" reading (P(rope) >= 0.95) of 10 tasks x 5 runs is read against the rows of 10 x 5,
    # which the table now holds, not those of 5 x 3 (the nearest of bayescal21's 5 and 26 tasks x 3 and 10 runs)
    res, asked = looked_up_rows(monkeypatch, np.random.default_rng(3).normal(0.0, 0.5, size=(tasks, runs)))
    assert res.comparisons["p_rope"].iloc[0] >= 0.95
    assert asked == [looked_up]
    # nearest23: 12 tasks read the rows of 10 and 26 tasks, the tasks bracketing them (10 alone before)
    assert all([r for r in calibration.rows("bayes.decision") if r["test"] == "signed_rank"
                and (int(r["tasks"]), int(r["runs"])) == (t, looked_up[1]) and r["statistic"] == "false_equivalence"]
               for t in looked_up[0])


def looked_up_rows(monkeypatch, x):
    """rlstats.bayes on two agents of paired differences x (tasks, runs), rope 1, and the (tasks, runs) of each
    bayes.decision row its decision notes looked up."""
    asked = []
    shortfall = calibration.shortfall

    def spy(rows, level, **design):
        asked.append((tuple(sorted({int(r["tasks"]) for r in rows})), design["runs"]))
        return shortfall(rows, level, **design)

    monkeypatch.setattr(_api.calibration, "shortfall", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(_frame(x), "score ~ agent | task/seed", rope=1.0, rng=0, progress=False)
    return res, asked


def test_the_rows_cover_the_grid():
    # 3 tasks x 3 runs x 4 families x 2 models x 3 configurations, 80 data sets in 4 draws each; and (audit s22) the
    # signed-rank model at 1 and 2 runs: 3 tasks x 2 runs x 4 families x 3 configurations
    rows = calibration.rows("bayes.decision")
    assert len(rows) == 216 + 72
    for model, runs in _api.DECISION_RUNS.items():
        assert ({(int(r["tasks"]), int(r["runs"])) for r in rows if r["test"] == model}
                == {(t, r) for t in _api.DECISION_TASKS for r in runs})
    # audit s24 (cal24): the signed-rank model's rows at the ROPE's edge at 3-10 runs on 320 data sets (80 a draw)
    assert {(r["n_sim"], r["design_draws"]) for r in rows} == {("80", "4"), ("320", "4")}
    assert {(r["test"], r["configuration"], int(r["runs"]) >= 3) for r in rows if r["n_sim"] == "320"} == {
        ("signed_rank", "delta = rope", True)}
    assert len([r for r in rows if r["n_sim"] == "320"]) == 36
    assert (_api.DECISION_TASKS, _api.DECISION_RUNS) == ((5, 10, 26), {"signed_rank": (1, 2, 3, 5, 10),
                                                                        "hierarchical": (3, 5, 10)})


@pytest.mark.parametrize("configuration", [pytest.param("delta = 0", marks=pytest.mark.slow),  # 1.6 s
                                           "delta = 1.5 rope"])  # 1.0 s, in the default run
def test_a_new_row_reproduces_from_its_seeds(configuration):
    # the script's seeds are per grid point: the signed-rank rows at 10 tasks x 5 normal runs come back exactly
    module = runpy.run_path(str(REFERENCE / "bayes_decisions.py"))
    point = ("signed_rank", 10, 5, "normal")
    table = {r["configuration"]: r for r in calibration.rows("bayes.decision") if r["test"] == point[0]
             and (int(r["tasks"]), int(r["runs"]), r["distribution"]) == point[1:]}
    # the configurations of 80 data sets (audit s24 measured the ROPE's edge on 320: its row reproduces in
    # tests/test_audit_s24_cal24.py, a slow test)
    row = module["DESIGNS"]["pooled_row"](module["held_by_draw"](*point, configuration, module["SIMULATIONS"][0]),
                                          0.95)
    own = table[configuration]
    assert (float(own["coverage"]), float(own["coverage_min"]), int(own["n_sim"])) == (
        row["coverage"], row["coverage_min"], row["n_sim"])
