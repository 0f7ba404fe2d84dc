"""Audit s35 (farapart35): data whose 3 tasks' runs lie apart by chance, on tasks whose scores overlap.

``calibration.tasks_apart`` sent an agent whose 3 tasks' runs lie apart (pairwise disjoint ranges) to the rows of 3
tasks far apart (audit s34 iqmfar34: one design whose populations lie apart; the IQM's studentised interval 0.75-0.91,
the mean's 0.94-0.97). The rule cannot tell that design from tasks that overlap whose runs happen to lie apart: of 3
tasks drawn as the grid draws them (offsets uniform on [0, 2], scales lognormal; a design a data set) that is 2.2-5.7%
of data sets at 3 runs, 0.11-0.83% at 5 and 0.0006-0.034% at 10. ``tests/reference/coverage_apart_by_chance.py``
measured the default intervals conditional on that event (rejection: data sets drawn in blocks, vectorised, and kept
where ``tasks_apart`` holds; 2,500 a point, 1,000 at 10 normal runs; withheld intervals not counted): the IQM's
covered 0.37-0.84 and the mean's 0.53-0.91, below the far-apart rows (the mean's where those hold; the same designs'
data sets not conditioned 0.95-0.99). So the far-apart rows are not the right quote for them: the 18 rows of
``configuration`` ``calibration.APART_BY_CHANCE``, and the note of data whose runs lie apart quotes both designs (the
mean's too, which had no note), the IQM's cause (its trim where the scores lie apart) said of the far-apart design
alone.
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np
import pytest

import rlstats
from rlstats import calibration

REFERENCE = pathlib.Path(__file__).parent / "reference"
BY = runpy.run_path(str(REFERENCE / "coverage_apart_by_chance.py"))


def _rows(configuration=calibration.APART_BY_CHANCE):
    """The IQM's and the mean's rows (audit s35 apart35 added the median's and the gap's:
    tests/test_audit_s35_apart35.py)."""
    return [r for r in calibration.rows("bootstrap.interval") if r["configuration"] == configuration
            and r["metric"] in ("iqm", "mean")]


#: the table's coverage of the default interval (metric, runs, distribution), conditional on the runs lying apart
MEASURED = {  # (metric, runs, distribution): (coverage, n_sim)
    ("iqm", "3", "normal"): ("0.8392", "2500"), ("mean", "3", "normal"): ("0.9052", "2500"),
    ("iqm", "3", "skewed"): ("0.754", "2500"), ("mean", "3", "skewed"): ("0.7988", "2500"),
    ("iqm", "3", "capped"): ("0.699111", "2250"), ("mean", "3", "capped"): ("0.867947", "2499"),
    ("iqm", "5", "normal"): ("0.7104", "2500"), ("mean", "5", "normal"): ("0.7804", "2500"),
    ("iqm", "5", "skewed"): ("0.6164", "2500"), ("mean", "5", "skewed"): ("0.646", "2500"),
    ("iqm", "5", "capped"): ("0.64906", "2499"), ("mean", "5", "capped"): ("0.7676", "2500"),
    ("iqm", "10", "normal"): ("0.664", "1000"), ("mean", "10", "normal"): ("0.74", "1000"),
    ("iqm", "10", "skewed"): ("0.3732", "2500"), ("mean", "10", "skewed"): ("0.5268", "2500"),
    ("iqm", "10", "capped"): ("0.6424", "2500"), ("mean", "10", "capped"): ("0.752", "2500"),
}


def test_rows_in_the_table_all_miss():
    rows = _rows()
    assert len(rows) == 18 and all(map(BY["appended"], rows)) and all(map(calibration.is_default, rows))
    assert {(r["metric"], r["runs"], r["distribution"]): (r["coverage"], r["n_sim"]) for r in rows} == MEASURED
    assert all(calibration.pooled_misses(r, 0.95) for r in rows)
    assert {r["design_draws"] for r in rows} == {""} and {r["tasks"] for r in rows} == {"3"}
    calibrate = runpy.run_path(str(REFERENCE / "calibrate.py"))
    assert calibrate["appended_scripts"]("bootstrap.interval")[-1] == "coverage_apart_by_chance"
    # not the far-apart rows' coverage: at 3 and 5 runs the IQM's lower than there in 5 of 6 cells, the mean's in all
    far = {(r["metric"], r["runs"], r["distribution"]): float(r["coverage"]) for r in _rows(calibration.FAR_APART)}
    lower = {key: float(MEASURED[key][0]) < far[key] - 3 * np.hypot(*(
        np.sqrt(c * (1 - c) / n) for c, n in ((far[key], 1000), (float(MEASURED[key][0]), int(MEASURED[key][1])))))
        for key in far}
    assert [key for key, low in lower.items() if not low] == [("iqm", "3", "normal")]
    # nor read by any other note: the grid's reads leave them out
    from rlstats.methods.bootstrap import _small_runs

    for metric in ("iqm", "mean"):
        found = _small_runs._rows_by_runs("studentized", metric, tasks=3)
        assert all(r["configuration"] != calibration.APART_BY_CHANCE for rows in found.values() for r in rows)


def test_task_draws_are_design_draw():
    """designs.task_draws (the script's vectorised draw) is design_draw's law, and design_draw's draws are unchanged
    (its former body: uniform offsets, then lognormal scales, from the keyed stream)."""
    designs = BY["designs"]
    for seed, tasks in ((0, 3), (7, 5), (3, 26)):
        rng = np.random.default_rng([20401, seed, tasks])
        offset, scale = rng.uniform(0.0, 2.0, tasks), np.exp(rng.normal(0.0, 0.5, tasks))
        got = designs.design_draw(seed, tasks)
        assert np.array_equal(got[0], offset) and np.array_equal(got[1], scale)
    offset, scale = designs.task_draws(np.random.default_rng(1), (20_000, 3))
    assert offset.min() >= 0 and offset.max() < 2 and abs(offset.mean() - 1) < 0.01
    assert abs(np.log(scale).std() - 0.5) < 0.005 and abs(np.log(scale).mean()) < 0.005


def test_truths_against_coverage_small_runs():
    """The script's vectorised truths (20,000 quantiles a task, a partition) against coverage_small_runs.truths (the
    grid's: 200,000, a sort) on 2 designs of each family: within 1e-3 (the intervals are 0.5-3 wide)."""
    small = BY["SMALL"]
    offset, scale = BY["designs"].task_draws(np.random.default_rng(4), (2, 3))
    for distribution in BY["DISTRIBUTIONS"]:
        got = BY["truths"](distribution, offset, scale)
        for i in range(2):
            want = small["truths"](distribution, offset[i], scale[i], 0.0)
            assert got["iqm"][i] == pytest.approx(want["iqm"], abs=1e-3)
            assert got["mean"][i] == pytest.approx(want["mean"], abs=1e-3)


def test_reduced_measurement():
    """The reduced version of the slow test: the first 40 data sets of the table's rows at 3 capped runs (the
    stream of the rows: the same 40 data sets and intervals), each one whose runs lie apart; two IQM intervals withheld
    (two tasks' runs all at their caps: no spread to studentise; and, since audit s38 meta38, one whose runs winsorise
    to one value in every task, whose standard error of 4e-10 was the rounding of 0 and its interval a point below
    the truth), not counted (the row's 250 of 2,500)."""
    result = BY["measure"](3, "capped", kept=40, baseline=False)
    apart = result["apart"]
    counts = {m: tuple(int(apart[m][k].sum()) for k in ("held", "below", "above")) + (apart[m]["withheld"],)
              for m in ("iqm", "mean")}
    assert counts == {"iqm": (29, 7, 2, 2), "mean": (36, 4, 0, 0)}
    assert result["rate"] == pytest.approx(0.05521)


def test_kept_data_sets_lie_apart_and_an_agents_interval_is_its_own():
    """The rejection step keeps data sets whose runs lie apart, of designs that overlap (offsets within [0, 2]); an
    agent's interval in the script's one call with every data set an agent is the one it gets alone."""
    offset, scale, scores, rate = BY["draw_apart"](5, "normal", 5, np.random.default_rng(0), block=20_000)
    assert calibration.tasks_apart(scores.min(axis=-1), scores.max(axis=-1)).all() and 0 < rate < 0.01
    assert (offset >= 0).all() and (offset < 2).all()
    together = rlstats.bootstrap(BY["frame"](scores), "score ~ agent | task", metrics=("iqm", "mean"),
                                 n_resamples=200, normalize=False, rng=1)
    alone = rlstats.bootstrap(BY["frame"](scores[:1]), "score ~ agent | task", metrics=("iqm", "mean"),
                              n_resamples=200, normalize=False, rng=1)
    assert np.array_equal(together.intervals[:1], alone.intervals)


def _apart_by_chance(runs, agents=2, distribution=None, seed=0):
    """``agents`` agents' final scores, each data set one the script keeps (runs apart by chance); skewed from 10 runs
    (normal runs lie apart in 6 of a million data sets there, skewed in 330)."""
    distribution = distribution or ("normal" if runs < 10 else "skewed")
    _, _, scores, _ = BY["draw_apart"](runs, distribution, agents, np.random.default_rng(seed), block=20_000)
    frame = BY["frame"](scores)
    return frame.assign(agent=frame.agent.str.replace("d", "a"))


APART = "the 3 tasks' runs lie apart (each task's all below or all above every other's)"
WHY = ("; where the tasks' scores lie apart too, the IQM of the pooled runs, trimming floor(N / 4) of them from each end "
       "(3 of 15 at 5 runs a task, 20%, not the population's 25%), keeps more of the outer tasks than the population's "
       "does and is biased")
CHANCE = ("on 3 tasks whose scores overlap (offsets and scales drawn as the grid's) and whose runs lay apart by "
          "chance")
OPTION = 'metrics=("mean",),'
NOTES = {  # the IQM's and the mean's notes, every agent's runs apart (the table's rows' ranges)
    3: (f"{APART}{WHY}: in simulations with 3 runs per task, nominal 95% studentized intervals of the IQM covered "
        f"0.75 to 0.91 on 3 tasks far apart (the mean's, {OPTION} 0.94 to 0.97) and 0.70 to 0.84 {CHANCE} (the "
        "mean's 0.80 to 0.91)",
        f"{APART}: in simulations with 3 runs per task, nominal 95% studentized intervals of the mean covered 0.94 to "
        f"0.97 on 3 tasks far apart and 0.80 to 0.91 {CHANCE}"),
    5: (f"{APART}{WHY}: in simulations with 5 runs per task, nominal 95% studentized intervals of the IQM covered "
        f"0.85 to 0.87 on 3 tasks far apart (the mean's, {OPTION} 0.94 to 0.97) and 0.62 to 0.71 {CHANCE} (the "
        "mean's 0.65 to 0.78)",
        f"{APART}: in simulations with 5 runs per task, nominal 95% studentized intervals of the mean covered 0.94 to "
        f"0.97 on 3 tasks far apart and 0.65 to 0.78 {CHANCE}"),
    # audit s35 fix35: beyond the far-apart rows' runs, said so, the rows by chance as of that event, no option
    10: tuple(f"{APART}: 10 runs per task is beyond the 3 and 5 runs per task measured on 3 tasks far apart, the "
              "design such data most likely come from: 3 tasks whose scores overlap (offsets and scales drawn as the "
              "grid's) lay their runs apart by chance in at most 0.034% of data sets at 10 runs per task; on those, "
              f"nominal 95% studentized intervals of the {label} covered {covered}"
              for label, covered in (("IQM", "0.37 to 0.66 (the mean's 0.53 to 0.75)"), ("mean", "0.53 to 0.75"))),
}


def test_notes_quote_both_designs():
    """Every agent's runs apart: the IQM's note quotes the far-apart rows and the rows by chance, each with the mean's,
    the IQM's cause said of tasks whose scores lie apart; the mean's note quotes both designs (it had none: the
    far-apart rows hold). At 10 runs (no far-apart rows) the rows by chance alone, as of that rare event (fix35);
    beyond 10 that the runs are beyond those measured (nothing until audit s36 former36, and the grid's notes)."""
    for runs in (3, 5, 10):
        res = rlstats.bootstrap(_apart_by_chance(runs), "score ~ agent | task", metrics=("iqm", "mean"),
                                n_resamples=100, normalize=False, rng=0)
        assert res.notes == NOTES[runs], (runs, res.notes)
    res = rlstats.bootstrap(_apart_by_chance(11), "score ~ agent | task", metrics=("iqm", "mean"), n_resamples=100,
                            normalize=False, rng=0)
    apart = [n for n in res.notes if "lie apart" in n]
    assert len(apart) == 2 and all("11 runs per task is beyond those measured on such data" in n for n in apart)
    assert not any(n.startswith("11 runs per task are few") for n in res.notes)


def test_some_agents_apart_named_and_task_table_says_it():
    data = _apart_by_chance(5, agents=3)
    data.loc[(data.agent == "a00002") & (data.task == "t1"), "score"] = data[data.agent == "a00002"].score.mean()
    res = rlstats.bootstrap(data, "score ~ agent | task", metrics=("mean",), n_resamples=100, normalize=False, rng=0)
    (note,) = res.notes
    assert note.startswith("the 3 tasks' runs (of a00000 and a00001) lie apart (each task's all below or all above")
    table = rlstats.compare(_apart_by_chance(3), "score ~ agent | task", method="task_table", aggregate="bootstrap",
                            statistic="iqm", normalize=False, rng=0)
    (note,) = [n for n in table.notes if "lie apart" in n]
    assert note.startswith("the aggregate row's intervals, from rlstats.bootstrap()")
    assert note.endswith(NOTES[3][0].split(": in simulations")[1])


@pytest.mark.slow  # about 2 minutes: a row of the table measured again, bit for bit
def test_table_rows_measured_again():
    result = BY["measure"](5, "normal", baseline=False)
    rows = BY["rows_of"]((5, "normal"), result)
    for row in rows:
        (table,) = [r for r in _rows() if r["metric"] == row["metric"] and r["runs"] == "5"
                    and r["distribution"] == "normal"]
        assert table["coverage"] == f"{row['coverage']:.6g}" and table["n_sim"] == str(row["n_sim"])


def test_readme_and_calibration_page_count_the_rows():
    from test_audit_s26_docs26 import _words

    table = rlstats.calibration_table("bootstrap.interval", default=True, configuration=calibration.APART_BY_CHANCE)
    said = {}
    for metric in ("iqm", "mean"):
        mine = table[table["metric"] == metric]
        said[metric] = (len(mine), int(mine["misses"].sum()), f"{mine['coverage'].min():.2f}",
                        f"{mine['coverage'].max():.2f}")
    assert said == {"iqm": (9, 9, "0.37", "0.84"), "mean": (9, 9, "0.53", "0.91")}
    readme = _words("README.md")
    assert ("the IQM's 9 rows at 3, 5 and 10 runs miss (0.37-0.84) and the mean's 9 too (0.53-0.91; "
            "`docs/calibration.md`, \"Audit s35\")") in readme
    page = _words("docs/calibration.md")
    # audit s35 apart35: 250 of 6,997 since (tests/test_audit_s35_apart35.py)
    assert "213 of 6,949 until audit s35, apart35, added" in page and "; 214 until audit s35, former35" in page
    for (metric, runs, distribution), (coverage, _) in MEASURED.items():
        cell = f"| {runs} runs, {distribution} | **{float(coverage):.3f}** |"
        if metric == "iqm":
            assert cell in page, cell
