"""Audit s24 (cal24): the bootstrap's calibration rows on 2 tasks.

The ``bootstrap.interval`` grid measured 1, 5 and 26 tasks, so a design of 2 to 4 tasks read its 1- and 5-task rows
(``rlstats.calibration.bracketing_counts``): at 2 runs per task the probability of improvement's default score
interval was warned from the 1-task rows (0.91 skewed, heavy-tailed), which say nothing of 2 tasks.
``tests/reference/coverage_small_runs.py`` now measures 2 tasks too (``TASKS``; its ``--add-tasks 2`` wrote the rows).
"""
import pandas as pd
import pytest

import rlstats
from rlstats import calibration
from rlstats.methods.bootstrap import _small_runs as small_runs


@pytest.fixture(scope="module")
def atari(published):
    return pd.read_csv(published / "atari100k.csv")


def _subset(atari, tasks, runs):
    games = sorted(atari["task"].unique())[:tasks]
    keep = atari["agent"].isin(["DER", "SPR"]) & atari["task"].isin(games) & (atari["seed"] < runs)
    return atari[keep].reset_index(drop=True)


@pytest.mark.xfail(strict=True, reason="cal24: no 2-task rows; a 2-4 task design reads the 1-task rows")
def test_two_to_four_tasks_read_the_two_task_rows():
    for tasks, bracket in ((2, {"2"}), (3, {"2", "5"}), (4, {"2", "5"})):
        rows = small_runs._rows_by_runs("score", "probability_of_improvement", tasks=tasks)[2]
        assert {r["tasks"] for r in rows} == bracket


@pytest.mark.xfail(strict=True, reason="cal24: no 2-task rows; the quote names the 1- and 5-task rows")
def test_printed_quote_of_a_two_task_design_names_the_two_task_rows(atari):
    res = rlstats.probability_of_improvement(_subset(atari, 2, 2), "score ~ agent | task", interval="percentile",
                                             n_resamples=200, rng=0)
    note = next(n for n in res.notes if "are few for percentile intervals" in n)
    assert "in simulations on 2 tasks with 2 runs per task" in note
