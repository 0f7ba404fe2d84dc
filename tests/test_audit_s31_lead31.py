"""Audit s31, the lead's own fixes."""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats


@pytest.mark.parametrize("across", ["paired_t", "welch"])
def test_a_pair_that_shared_no_task_is_withheld_without_numpys_warning(across):
    """A and B never share a task with D (C ran all six): their across-tasks tests are withheld (n_tasks 0); the
    paired t read an empty array of task differences and numpy's "Mean of empty slice" RuntimeWarning reached the
    user."""
    rng = np.random.default_rng(9)
    ran = {"A": range(3), "B": range(3), "C": range(6), "D": range(3, 6)}
    rows = [dict(agent=a, task=f"t{t}", seed=s, score=rng.normal(0, 1)) for a, tasks in ran.items()
            for t in tasks for s in range(5)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = rlstats.equivalence(pd.DataFrame(rows), "score ~ agent | task", margin=1.0, across=across,
                                  aggregate=None)
    tidy = res.tidy()
    across_rows = tidy[tidy["scope"] == "across tasks"].set_index(["agent_1", "agent_2"])
    assert across_rows.loc[("A", "D"), "n_tasks"] == 0 and across_rows.loc[("B", "D"), "n_tasks"] == 0
    assert (across_rows.loc[[("A", "D"), ("B", "D")], "conclusion"] == "withheld").all()
    assert across_rows.loc[[("A", "D"), ("B", "D")], "estimate"].isna().all()
    assert across_rows.loc[("A", "B"), "n_tasks"] == 3 and np.isfinite(across_rows.loc[("A", "B"), "estimate"])
