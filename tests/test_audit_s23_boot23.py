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


@pytest.mark.xfail(strict=True, reason="audit s23 boot23: the coverage note pools the grid's 1-, 5- and 26-task rows "
                   "at a 26-task design (percentile IQM at 3 runs quoted 0.72 to 0.88; its 26-task rows: 0.85 to 0.88)")
def test_coverage_note_quotes_the_rows_of_the_designs_tasks(atari):
    res = rlstats.bootstrap(_first_runs(atari, 3), "score ~ agent | task/seed", normalize="atari100k_reference",
                            metrics=["iqm"], interval="percentile", n_resamples=200, rng=0, progress=False)
    note = next(n for n in res.notes if "are few for percentile intervals" in n)
    # the calibration table's bootstrap.interval rows at 26 tasks x 3 runs: percentile IQM 0.850, 0.850, 0.881,
    # 0.869 (normal, skewed, heavy-tailed, capped); the default's 0.979, 0.990, 0.990, 0.985
    assert "on 26 tasks with 3 runs per task, nominal 95% intervals covered 0.85 to 0.88" in note
    assert 'interval="studentized" (the default) covered 0.98 to 0.99' in note
