"""Audit s28 (lead): small mends found while merging the session's helpers."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError


def _steps_frame():
    rng = np.random.default_rng(1)
    rows = [(a, s, st, rng.normal()) for a in "ab" for s in range(3) for st in range(0, 30, 10)]
    return pd.DataFrame(rows, columns=["agent", "seed", "step", "score"])


def test_curves_without_the_run_column_suggest_a_formula_that_has_one():
    # curvenotes28: 'score ~ agent | seed' with step= was told to write 'score ~ agent | seed/seed'
    with pytest.raises(DesignError) as caught:
        rlstats.curves(_steps_frame(), "score ~ agent | seed", step="step")
    message = str(caught.value)
    assert "seed/seed" not in message
    assert "'score ~ agent | seed/run' if seed names the tasks" in message
    assert "'score ~ agent | task/seed' if it names the runs" in message
    with pytest.raises(DesignError, match=r"e\.g\. 'score ~ agent \| task/seed', so that"):
        rlstats.curves(_steps_frame(), "score ~ agent", step="step")
