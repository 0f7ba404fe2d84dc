"""Audit s28 (design28): does what each result says fit the design it analysed, on awkward designs?

Simulated and hand-built designs (incomplete and disconnected, one run in some cells, 3 against 10 runs, ties,
caps, identical agents, one and two tasks, NaN scores with na_action, Categorical levels, names that sort apart
from their order, integer tasks) were run through every back end of ``rlstats.compare`` and the standalone
functions, reading print, summary(), report(), to_latex() and tidy(), and checked for invariance to row order,
category order and units (x1000). What earlier audits had not covered, and was wrong:

1. An incomplete design in which no task has runs of every agent was refused with the way on
   'pass na_action="drop" to leave out the N task(s)' -- N being every task, and that call then refused
   again ("no task has runs of every agent"). The refusal now says that dropping incomplete tasks would leave
   none, and offers leaving agents out instead.
"""
import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError


def _chain(rng=2):
    """A-B share tasks 1-3, B-C tasks 4-6: connected, but no task holds every agent."""
    df = rlstats.datasets.simulate(["A", "B", "C"], 6, 3, rng=rng)
    tasks = sorted(df.task.unique())
    gone = ((df.agent == "A") & df.task.isin(tasks[3:])) | ((df.agent == "C") & df.task.isin(tasks[:3]))
    return df[~gone].reset_index(drop=True)


def test_no_complete_task_refusal_does_not_offer_dropping_every_task():
    df = _chain()
    with pytest.raises(DesignError) as refused:
        rlstats.bootstrap(df, "score ~ agent | task", progress=False)
    message = str(refused.value)
    # the way on it offers must not be the call that is refused next
    with pytest.raises(DesignError, match="no task has runs of every agent"):
        rlstats.bootstrap(df, "score ~ agent | task", na_action="drop", progress=False)
    assert 'na_action="drop"' not in message
    assert "no task has runs of every agent" in message
    # the subset it offers keeps the agents of one task, which then share tasks: the way on leads somewhere
    subset = message.split("subset=")[-1].split(" to rlstats.compare")[0].strip("'\"")
    assert subset == "agent not in ['C']"
    res = rlstats.compare(df, "score ~ agent | task", method="bootstrap", subset=subset, na_action="drop",
                          n_resamples=200, progress=False, rng=1)
    assert set(res.tidy().agent) == {"A", "B"}
