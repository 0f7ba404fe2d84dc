"""Audit s36 former36: the one-task counts of the bootstrap's studentised intervals (``ONE_TASK_MIN_RUNS`` and the
former defaults' ``FORMER_ONE_TASK_MIN_RUNS``) computed from today's calibration rows, so that they cannot drift from
them again; the notes of tasks whose runs lie apart beyond the runs measured on such data."""
import warnings

import numpy as np
import pandas as pd

import rlstats
from rlstats import calibration
from rlstats.methods.bootstrap import _small_runs as small_runs

#: the configuration of the median's own t interval's rows on 1 and 2 tasks (tests/reference/coverage_small_runs.py)
MEDIAN_T = "t interval"


def _one_task_rows(interval, metric, configurations=("", "withheld")):
    """The calibration table's one-task rows of ``interval`` and ``metric`` (not those of other designs: agents below
    gamma, tasks apart)."""
    return [r for r in calibration.rows(small_runs.PROCEDURE)
            if (r["interval"], r["metric"], r["tasks"]) == (interval, metric, "1")
            and r["configuration"] in configurations]


def _held_from(rows):
    """The fewest runs from which every row holds 95% (``calibration.misses``), or None where only the most runs
    measured hold (one count at the grid's end is no run of evidence: the rule the counts have followed since audit
    s19, the mean's bootstrap-t alone holding at 200 runs and missing at 20-100)."""
    counts = sorted({int(r["runs"]) for r in rows})
    held = [c for c in counts if not any(calibration.misses(r, 0.95) for r in rows if int(r["runs"]) >= c)]
    return None if not held or held[0] == counts[-1] else held[0]


def test_the_default_one_task_counts_are_the_rows():
    measured = {m: _held_from(_one_task_rows("studentized", m)) for m in ("iqm", "mean", "optimality_gap")}
    assert measured == {"iqm": 20, "mean": 20, "optimality_gap": 50}
    # the median of task means on one task is the task's mean and takes the mean's interval (audit s26)
    assert small_runs.ONE_TASK_MIN_RUNS == {**measured, "median": measured["mean"]}


def test_the_former_one_task_counts_are_the_rows():
    """Until former36 FORMER_ONE_TASK_MIN_RUNS held the counts before audit s35's re-measure (median 30, the gap
    never) where today's rows hold from 20 and 50."""
    # studentized_no_welch: the IQM's interval is the default's, the median's its own t interval (the default's rows
    # "t interval", measured with the median's rule on one task lifted), the mean's and the gap's its own rows
    measured = {"iqm": _held_from(_one_task_rows("studentized", "iqm")),
                "median": _held_from(_one_task_rows("studentized", "median", (MEDIAN_T,))),
                "mean": _held_from(_one_task_rows("studentized_no_welch", "mean")),
                "optimality_gap": _held_from(_one_task_rows("studentized_no_welch", "optimality_gap"))}
    assert measured == {"iqm": 20, "mean": None, "median": 20, "optimality_gap": 50}
    assert small_runs.one_task_min_runs("studentized_no_welch") == measured
    # studentized_unwidened: its gap is the same interval; its mean's and median's (no skew widening) have no one-task
    # rows, and are withheld whatever the runs (tests/reference/coverage_one_task_unwidened.py)
    assert not _one_task_rows("studentized_unwidened", "median") + _one_task_rows("studentized_unwidened", "mean")
    assert small_runs.one_task_min_runs("studentized_unwidened") == {**measured, "median": None}


def _apart(runs):
    """2 agents x 3 tasks at offsets 0, 10, 20 (sd 1): every task's runs apart from the others' (fix35's design)."""
    rng = np.random.default_rng(1)
    rows = [(agent, task, seed, offset + rng.normal()) for agent in ("A", "B")
            for task, offset in (("t1", 0), ("t2", 10), ("t3", 20)) for seed in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _notes(runs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.bootstrap(_apart(runs), "score ~ agent | task/seed", rng=0, n_resamples=50,
                                 metrics=["iqm", "mean", "median", "optimality_gap"]).notes


def test_the_apart_notes_beyond_the_runs_measured_on_such_data():
    """Until former36, beyond the runs measured on tasks apart (the median's and the gap's 3 and 5 by chance) the
    grid's rows of overlapping tasks were quoted alone (the median's 0.92 to 0.99 on 2 and 5 tasks at 10 runs, where by
    chance at 5 runs it covered 0.56 to 0.81), and at 7 runs the IQM's note said '5 runs per task is beyond the 3
    and 5'."""
    for runs in (7, 20):  # 10: test_audit_s35_apart35 and fix35
        notes = _notes(runs)
        # no grid row of overlapping tasks read for data whose tasks' runs lie apart
        assert not any(n.startswith(f"{runs} runs per task are few") for n in notes), notes
        apart = [n for n in notes if n.startswith("the 3 tasks' runs lie apart")]
        assert len(apart) == 4, notes
        for note in apart:
            assert f"{runs} runs per task is beyond th" in note, note  # "the 3 and 5 ..." or "those measured ..."
    median, gap = [n for n in notes if "intervals of the median" in n or "intervals of the optimality gap" in n]
    for note, covered in ((median, "0.56 to 0.81"), (gap, "0.73 to 0.85")):  # the rows by chance at 5 runs, by hand
        label = "median" if note is median else "optimality gap"
        assert note.endswith("20 runs per task is beyond those measured on such data, 3 and 5 on 3 tasks whose scores "
                             "overlap (offsets and scales drawn as the grid's) and whose runs lay apart by chance, so "
                             f"whether nominal 95% studentized intervals of the {label} reach 95% there is not "
                             f"measured; with the most runs measured they covered {covered} (apart by chance, 5 runs "
                             "per task)"), note
    iqm = [n for n in notes if "intervals of the IQM" in n][0]
    assert iqm.endswith("3 and 5 on 3 tasks far apart and 3, 5 and 10 on 3 tasks whose scores overlap (offsets and "
                        "scales drawn as the grid's) and whose runs lay apart by chance, so whether nominal 95% studentized "
                        "intervals of the IQM reach 95% there is not measured; with the most runs measured they covered "
                        "0.85 to 0.87 (far apart, 5 runs per task) and 0.37 to 0.66 (apart by chance, 10 runs per "
                        "task)"), iqm


def _curves(runs, statistic, compare=None):
    """2 agents x 3 tasks at offsets 0, 10, 20 (sd 1) over 10 steps: every task's runs apart at every step."""
    rng = np.random.default_rng(0)
    rows = [(agent, task, seed, step, offset + 0.1 * step + rng.normal()) for agent in ("A", "B")
            for task, offset in (("t1", 0), ("t2", 10), ("t3", 20)) for seed in range(runs) for step in range(1, 11)]
    data = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.curves(data, "score ~ agent | task/seed", step="step", statistic=statistic, n_resamples=30,
                             normalize=False, rng=0, progress=False, **({"compare": compare} if compare else {}))
    return [n for n in res.notes if n.startswith("the 3 tasks' runs lie apart")]


APART = "the 3 tasks' runs lie apart (each task's all below or all above every other's)"


def test_curves_apart_notes_say_what_is_not_measured():
    """curves(): beyond the 3 and 5 runs measured on such data nothing was said (the grid's rows alone), nor of the
    difference bands and the optimality gap's bands, which neither design measured (audit s36 former36)."""
    assert _curves(10, "median") == [
        f"{APART}: 10 runs per task is beyond those measured on such data for the bands of the median, 3 and 5 on 3 "
        "tasks far apart and 3 and 5 on 3 tasks whose scores overlap (offsets and scales drawn as the grid's) and whose "
        "runs lay apart by chance, so their coverage there is not measured"]
    notes = _curves(5, "median", compare="all")
    assert len(notes) == 3 and "0.836 (skewed scores, 500 simulated curves)" in notes[0]
    assert notes[2] == (f"{APART}: the difference bands have not been measured on such data (the rows of both designs "
                        "are of each agent's bands)")
    assert _curves(5, "optimality_gap") == [
        f"{APART}: the bands of the optimality gap have not been measured on such data (the rows of 3 tasks far apart "
        "and of runs apart by chance are of the bands of the IQM, the mean and the median)"]
