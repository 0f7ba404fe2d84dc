"""Regression tests of session 8's second mending helper (tag ``[s8 mend2]``): each failed before its fix."""

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import rlstats


def _tied_runs():
    """3 agents x 4 tasks, 3 runs a cell of which two are equal: their residuals tie exactly."""
    rng = np.random.default_rng(0)
    rows = []
    for t in range(4):
        for agent in "ABC":
            a, b = rng.normal(size=2).round(1)
            rows += [(agent, f"t{t}", float(a)), (agent, f"t{t}", float(a)), (agent, f"t{t}", float(b))]
    return pd.DataFrame(rows, columns=["agent", "task", "score"])


def test_mixed_tied_residuals_share_their_normal_score_whatever_the_row_order():
    """The QQ plot's x of two equal residuals followed their rows' order, so ``to_dict()`` changed when the rows
    were shuffled (0.11 apart); tied residuals now share the score of their average rank."""
    df = _tied_runs()
    perm = np.random.default_rng(3).permutation(len(df))
    base = rlstats.mixed(df, "score ~ agent | task")
    shuffled = rlstats.mixed(df.iloc[perm].reset_index(drop=True), "score ~ agent | task")
    scores = np.asarray(base.to_dict()["residual_normal_scores"])
    np.testing.assert_allclose(np.asarray(shuffled.to_dict()["residual_normal_scores"]), scores[perm], atol=1e-12)
    # independent value: ppoints of R's average ranks (n = 36 > 10: a = 1/2)
    n = len(df)
    expected = special.ndtri((stats.rankdata(base.residuals, method="average") - 0.5) / n)
    np.testing.assert_allclose(scores, expected, atol=1e-12)
    assert scores[0] == scores[1]  # the first cell's two equal runs
