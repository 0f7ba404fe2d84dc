"""Audit s22 (review22a): review of the session's merged changes.

The equivalence note on runs differing in number quotes tests/reference/size_equivalence_unbalanced.py; its rows
(seed 22, 20,000 data sets a per-task row, 4,000 an across-tasks row) are what these tests check the note against.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats

FORMULA = "score ~ agent | task"


def _runs(counts, seed=0):
    """Lognormal (skewed) scores of agents A and B with ``counts`` = {(agent, task): runs}."""
    rng = np.random.default_rng(seed)
    rows = [(a, t, r, float(rng.lognormal())) for (a, t), n in counts.items() for r in range(n)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _unequal_note(frame, **options):
    res = rlstats.equivalence(frame, FORMULA, margin=0.5, aggregate=None, normalize=False, **options)
    return [n for n in res.notes if n.startswith("runs differing in number")]


@pytest.mark.xfail(strict=True, reason="the equivalence note fires at 2x runs, where the reference rows held alpha "
                                       "(5 vs 10, skewed 0.020, capped 0.0018)")
def test_equivalence_note_not_at_twice_the_runs():
    assert _unequal_note(_runs({("A", "t0"): 10, ("B", "t0"): 5})) == []


@pytest.mark.xfail(strict=True, reason="a per-task-only equivalence note quotes the across-tasks capped size and says "
                                       "capped scores declare too easily, where per-task TOST on capped held (<= 0.023)")
def test_equivalence_note_per_task_capped_clause():
    note, = _unequal_note(_runs({("A", "t0"): 20, ("B", "t0"): 5}))
    assert "across tasks" not in note
    assert "on skewed or capped scores" not in note
