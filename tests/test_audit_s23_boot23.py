"""Audit s23 (boot23): the stratified bootstrap and ``compare`` as a paper author uses them on Atari 100k (9 agents x
26 games, human-normalised, 3 and 5 runs per game drawn from the published runs)."""

import pandas as pd
import pytest

import rlstats
from rlstats.methods.bootstrap import _small_runs as small_runs


@pytest.fixture(scope="module")
def atari(published):
    return pd.read_csv(published / "atari100k.csv")


def _first_runs(frame, runs):
    return frame.groupby(["agent", "task"]).head(runs).reset_index(drop=True)


def test_coverage_note_quotes_the_rows_of_the_designs_tasks(atari):
    res = rlstats.bootstrap(_first_runs(atari, 3), "score ~ agent | task/seed", normalize="atari100k_reference",
                            metrics=["iqm"], interval="percentile", n_resamples=200, rng=0, progress=False)
    note = next(n for n in res.notes if "are few for percentile intervals" in n)
    # the calibration table's bootstrap.interval rows at 26 tasks x 3 runs: percentile IQM 0.850, 0.850, 0.881,
    # 0.869 (normal, skewed, heavy-tailed, capped); the default's 0.979, 0.990, 0.990, 0.985
    assert "on 26 tasks with 3 runs per task, nominal 95% intervals covered 0.85 to 0.88" in note
    assert 'interval="studentized" (the default) covered 0.98 to 0.99' in note
    # before: "in simulations with 3 runs per task, nominal 95% intervals covered 0.72 to 0.88; ... 0.96 to 0.99" (the
    # 1-, 5- and 26-task rows pooled)


def test_coverage_note_at_five_runs_reads_the_26_task_rows(atari):
    # 26 tasks x 5 runs: the percentile IQM's rows hold 95% by the table's rule (0.931, 0.956, 0.938, 0.912 of 160),
    # so no note (before: "covered 0.82 to 0.96", from the 1- and 5-task rows); the median's miss (0.894 skewed)
    res = rlstats.bootstrap(_first_runs(atari, 5), "score ~ agent | task/seed", normalize="atari100k_reference",
                            metrics=["iqm", "median"], interval="percentile", n_resamples=200, rng=0,
                            progress=False)
    few = [n for n in res.notes if "are few for" in n]
    assert few == ["5 runs per task are few for percentile intervals of the median: in simulations on 26 tasks with 5 "
                   "runs per task, nominal 95% intervals covered 0.89 to 0.96; interval=\"studentized\" (the default) "
                   "covered 0.99 to 0.99"]


def test_nearest_grid_tasks_on_a_log_scale():
    from rlstats.calibration import nearest_count
    assert [nearest_count({5, 26}, n) for n in (2, 5, 10, 11, 12, 26, 57)] == [5, 5, 5, 5, 26, 26, 26]
    # the rows read: 10 tasks quote the 5-task rows (percentile IQM at 3 runs 0.800 to 0.850), one task its own
    assert small_runs.measured_coverage("percentile", "iqm", tasks=10)[3] == (0.8, 0.85)
    assert small_runs.measured_coverage("percentile", "iqm", tasks=26)[3] == (0.85, 0.88125)
    note = small_runs.coverage_note("percentile", "IQM", "iqm", 3, tasks=10)
    assert "in simulations on 5 tasks with 3 runs per task, nominal 95% intervals covered 0.80 to 0.85" in note
