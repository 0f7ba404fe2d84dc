"""Audit s13 (proftied): the ``kind="tasks"`` profile's skew-corrected band with tied tasks, calibrate.py's
``--only``, and the selection check's known-sd interval label.

Audited: ``performance_profile(kind="tasks")``'s default ``interval="skew_t"`` band where some of an agent's tasks
have runs that all tie (runs at a ceiling, constant scores): its 5-task rule and its notes; ``--only`` of
``tests/reference/calibrate.py`` against rows of the same procedure that another script appended to
``rlstats/calibration.csv``; the label of ``selection_check(reporter="z")``'s interval in every output.
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest

import rlstats

REFERENCE = pathlib.Path(__file__).parent / "reference"


def _frame(runs):
    """A long frame from {(agent, task): scores}."""
    return pd.DataFrame([{"agent": agent, "task": task, "seed": seed, "score": float(score)}
                         for (agent, task), scores in runs.items() for seed, score in enumerate(scores)])


# ----------------------------------------------------------------------------- the few-runs note of the skew_t band

def test_few_runs_note_counts_only_agents_whose_band_is_given():
    """Agent 'many' has 10 runs on each of 6 tasks (its band given, its skewness read from 10 runs a task); agent
    'few' has 3 runs on 2 tasks and 2 on 4 (its band withheld: 2 tasks of 3 runs). The note said the band "reads the
    runs' skewness from tasks with as few as 3 runs", which is true of no band given; with 'many' alone no such note
    appears."""
    rng = np.random.default_rng(0)
    tasks = [f"t{k}" for k in range(6)]
    runs = {("many", t): rng.normal(k, 1.0, 10) for k, t in enumerate(tasks)}
    runs.update({("few", t): rng.normal(k, 1.0, 3 if k < 2 else 2) for k, t in enumerate(tasks)})
    res = rlstats.performance_profile(_frame(runs), "score ~ agent | task", kind="tasks", tau=[2.5])
    assert np.isnan(res.intervals[list(res.agents).index("few")]).all()
    assert np.isfinite(res.intervals[list(res.agents).index("many")]).all()
    assert not any("as few as" in n for n in res.notes), res.notes


def test_few_runs_note_counts_only_tasks_the_skewness_is_read_from():
    """Agent 'a' has 10 spread runs on 5 tasks and 3 runs all at a ceiling of 1 on a sixth (agent 'b' 10 spread runs
    on all 6): its skewness is read from the 5 tasks of 10 runs (a tied task shows none), yet the note said "as few as
    3 runs"."""
    rng = np.random.default_rng(1)
    runs = {("a", f"t{k}"): rng.normal(0.1 * k, 0.1, 10) for k in range(5)}
    runs[("a", "t5")] = [1.0, 1.0, 1.0]
    runs.update({("b", f"t{k}"): rng.normal(0.1 * k, 0.1, 10) for k in range(6)})
    res = rlstats.performance_profile(_frame(runs), "score ~ agent | task", kind="tasks", tau=[0.2])
    assert np.isfinite(res.intervals).all()
    assert not any("as few as" in n for n in res.notes), res.notes


# ----------------------------------------------------------------------------- calibrate.py --only

def test_only_keeps_rows_another_script_appended(tmp_path):
    """``calibrate.py --only curves.band`` replaced every ``curves.band`` row of the table with its own grid's,
    dropping the 64 rows (agents 8) that ``coverage_curves_fresh.py --append-table`` wrote; they came back only by
    re-running that script's append. On a tiny table: the rows calibrate.py measures are replaced, the appended one is
    kept byte for byte after them, the other procedure's row is untouched."""
    calibrate = runpy.run_path(str(REFERENCE / "calibrate.py"))
    columns = calibrate["COLUMNS"]

    def row(procedure, agents, coverage):
        values = {"procedure": procedure, "statistic": "median", "band": "pointwise", "interval": "studentized",
                  "agents": agents, "tasks": "10", "runs": "5", "distribution": "normal", "level": "0.95",
                  "n_sim": "240", "n_resamples": "300", "coverage": coverage, "se": "0.0140683", "design_draws": "4",
                  "coverage_min": coverage}
        return ",".join(values.get(c, "") for c in columns)

    path = tmp_path / "table.csv"
    path.write_text("\n".join([",".join(columns), row("adastop.fwe", "2", "0.9625"), row("curves.band", "2", "0.95"),
                               row("curves.band", "8", "0.966146")]) + "\n")
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    measured = [{"procedure": "curves.band", "statistic": "median", "band": "pointwise", "interval": "studentized",
                 "agents": 2, "tasks": 10, "runs": 5, "distribution": "normal", "level": 0.95, "n_sim": 240,
                 "n_resamples": 300, "coverage": "0.9625", "se": "0.0140683", "design_draws": 4,
                 "coverage_min": "0.9625"}]
    calibrate["merged"](table, measured, ["curves.band"]).to_csv(path, index=False)
    lines = path.read_text().splitlines()
    assert lines == [",".join(columns), row("adastop.fwe", "2", "0.9625"), row("curves.band", "2", "0.9625"),
                     row("curves.band", "8", "0.966146")]
    # the package table: re-measuring curves.band as its grid gives (2 agents) keeps the 64 appended rows
    from rlstats import calibration

    real = pd.read_csv(calibration.PATH, dtype=str, keep_default_na=False)
    band = real[real["procedure"] == "curves.band"]
    ours = band[band["agents"] == "2"]
    out = calibrate["merged"](real, ours.to_dict("records"), ["curves.band"])
    kept = out[out["procedure"] == "curves.band"]
    assert len(kept) == len(band) and (kept["agents"] == "8").sum() == 64 and len(out) == len(real)
    # a measured row the appending script would claim is an error, not a row twice
    with pytest.raises(ValueError, match="appended"):
        calibrate["merged"](table, measured + [{**measured[0], "agents": 8}], ["curves.band"])


# ----------------------------------------------------------------------------- the selection check's z interval

def test_known_sd_reporter_names_its_interval_so():
    """``selection_check(reporter="z", sigma=1)`` bounds the reported mean by mean +- 1.96 sigma / sqrt(n), the
    normal interval with the sd known, but labelled it "normal" in the by-set table (summary, LaTeX) and in
    the tidy reporter row's ``pvalue_method``: "normal, known sd" (as the z inspector's interval is named)."""
    rng = np.random.default_rng(0)
    runs = {}
    for k in range(10):
        runs[("new", f"g{k}")] = rng.normal(0.5 if k < 5 else 0.0, 1.0, 3)
        runs[("old", f"g{k}")] = rng.normal(0.0, 1.0, 3)
    res = rlstats.selection_check(_frame(runs), "score ~ agent | task", treatment="new", baseline="old",
                                  reported=[f"g{k}" for k in range(5)], reporter="z", sigma=1.0, rng=0)
    label = "normal, known sd"
    reported = res.group_summary.set_index("set").loc["reported"]
    assert reported["interval"] == label
    assert res.conf_int is not None and reported["conf_high"] - reported["conf_low"] == pytest.approx(
        2 * 1.959963984540054 / np.sqrt(5), rel=1e-12)
    assert res.tidy().set_index("term").loc["reporter", "pvalue_method"] == label
    for text in (str(res.summary()), res.to_latex()):  # the printed result names no interval of the reported mean
        assert label in text and "normal" not in text.replace(label, ""), text
