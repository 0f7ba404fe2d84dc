"""Audit s23 (review23d): review of nearest23, equivgate23 and misc23.

The curves' calibration note named the simulated task counts bracketing the design over every run count of the
table, though it reads the rows of one run count only: at 3 runs per task the studentized bands were simulated on 5
and 26 tasks (no 1-task rows there), so a 2-task design read the 5-task rows alone but the note said "1 and 5 tasks
(the worse on 5)". Since review23d the counts are bracketed among the rows of the band at the runs read."""

import warnings

import pytest

import rlstats
from rlstats import calibration


def _curves_row(tasks, runs, coverage):
    return {"statistic": "iqm", "band": "simultaneous", "interval": "studentized", "runs": str(runs),
            "tasks": str(tasks), "distribution": "capped", "agents": "2", "n_sim": "150", "n_resamples": "500",
            "coverage": str(coverage), "se": "0.019"}



def test_curves_note_names_only_the_task_counts_read_at_its_runs(monkeypatch):
    """Was a strict xfail: the note named 1 and 5 tasks, reading the 5-task row alone."""
    # the real table's shape: studentized rows at 3 runs on 5 and 26 tasks; at 5 runs on 1, 5 and 26
    rows = (_curves_row(5, 3, 0.85), _curves_row(26, 3, 0.93), _curves_row(1, 5, 0.96), _curves_row(5, 5, 0.96))
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows if procedure == "curves.band" else ())
    from rlstats.datasets import simulate_curves
    df = simulate_curves(agents=2, tasks=2, seeds=3, steps=5, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=50, rng=0, normalize=False)
    (note,) = [n for n in res.notes if n.startswith("measured coverage of the simultaneous band")]
    assert note.startswith("measured coverage of the simultaneous band of the IQM at the nearest simulated design "
                           "(3 runs per task, 5 tasks): 0.850 (capped scores, 150 simulated curves)")
