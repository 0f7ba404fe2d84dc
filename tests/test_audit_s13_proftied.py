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
from conftest import runs_frame

REFERENCE = pathlib.Path(__file__).parent / "reference"


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
    res = rlstats.performance_profile(runs_frame(runs), "score ~ agent | task", kind="tasks", tau=[2.5])
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
    res = rlstats.performance_profile(runs_frame(runs), "score ~ agent | task", kind="tasks", tau=[0.2])
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
    # (the rows calibrate.py measures: 2 agents, less those another script appends, e.g. s28's gap rows)
    ours = band[(band["agents"] == "2") & ~calibrate["_appended"](band, ["curves.band"])]
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
    res = rlstats.selection_check(runs_frame(runs), "score ~ agent | task", treatment="new", baseline="old",
                                  reported=[f"g{k}" for k in range(5)], reporter="z", sigma=1.0, rng=0)
    label = "normal, known sd"
    reported = res.group_summary.set_index("set").loc["reported"]
    assert reported["interval"] == label
    # one-sided as the reporter's test (session 15: it was mean +- 1.96 / sqrt(5))
    assert res.conf_int is not None and reported["conf_high"] == np.inf
    assert reported["estimate"] - reported["conf_low"] == pytest.approx(1.6448536269514722 / np.sqrt(5), rel=1e-12)
    assert res.tidy().set_index("term").loc["reporter", "pvalue_method"] == label
    for text in (str(res.summary()), res.to_latex()):  # the printed result names no interval of the reported mean
        assert label in text and "normal" not in text.replace(label, ""), text


# ----------------------------------------------------------------------------- tied tasks and the 5-task rule

TASKS = runpy.run_path(str(REFERENCE / "coverage_profiles_tasks.py"))


def test_tied_tasks_count_towards_five_and_the_note_says_so():
    """The 5-task rule counts tasks with 3 or more runs whose runs all tie, from which no skewness is read: 4 spread
    tasks and one of 3 runs at a ceiling give a band (tied tasks count, as measured: ``measure_tied``); 3 spread and
    one tied withhold it, with a note that says which tasks count."""
    rng = np.random.default_rng(2)

    def band(spread):
        runs = {(agent, f"t{k}"): rng.normal(0.2 * k, 0.1, 4) for k in range(spread) for agent in ("a", "b")}
        runs.update({(agent, "cap"): [1.0, 1.0, 1.0] for agent in ("a", "b")})
        return rlstats.performance_profile(runs_frame(runs), "score ~ agent | task", kind="tasks", tau=[0.3])

    given = band(4)
    assert np.isfinite(given.intervals).all() and not any("withheld" in n for n in given.notes)
    withheld = band(3)
    assert np.isnan(withheld.intervals).all()
    note = [n for n in withheld.notes if "withheld (NaN)" in n]
    assert len(note) == 1 and "read from the agent's tasks with 3 or more runs that do not all tie" in note[0]
    assert "needs 5 tasks with 3 or more runs (tasks whose runs all tie count)" in note[0]
    assert "withheld (NaN) for 'a' (4), 'b' (4)" in note[0]


def test_skew_t_band_with_tied_tasks_holds_reduced():
    """Skewed runs, 5 tasks of 3 with 3 tied at their ceiling (the skewness read from 2 tasks), the grid's first
    design draw: measured 0.947 at the worst threshold over 4,000 bands (0.932 in the worst draw at 2,000, 0.956 in this
    one; without ties 0.950 and 0.934); here 800 fresh bands hold 0.95 - 3 SE at every threshold, none withheld."""
    held, withheld = TASKS["held_tied"]("skewed", 5, 3, 3, 0, 40, "ceiling", seed=21)
    assert withheld == 0 and held.shape == (800, 10)
    assert held.mean(axis=0).min() >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / 800), held.mean(axis=0)


@pytest.mark.slow
@pytest.mark.parametrize("distribution, place", [("normal", "ceiling"), ("skewed", "ceiling"), ("capped", "zero")])
@pytest.mark.parametrize("tied", [1, 2, 3])
def test_skew_t_band_with_tied_tasks_holds(distribution, place, tied):
    """``measure_tied`` re-measured on fresh data (seed 31, 5 tasks of 3 runs, 1-3 tied where the band is hardest
    to hold, 4 draws of 500 bands): every threshold's pooled coverage at 95% within 3 SE (measured at seed 0: 0.946 and
    above, as 0.947 without ties; single draws as low without ties, so only the pooled rows are asserted)."""
    from rlstats import calibration

    for row in TASKS["measure_tied"](distribution, 5, tied, 3, 25, place, seed=31):
        assert row["coverage"] >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / row["n_sim"]), row
        assert not calibration.misses({"n_sim": str(row["n_sim"]), "coverage": str(row["coverage"])}, 0.95), row
