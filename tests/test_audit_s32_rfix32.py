"""Audit s32 rfix32: the rank test's exact enumeration priced (F1), equivalence's per-pair work priced (F2), the rank
test's chi-squared reason placed on or off its measured grid (F3), AUTO_EXACT_LIMIT's comment and docstring (F4),
R's exact=TRUE as numpy bool or 1.0 (F5), equivalence's aggregate_tasks in JSON (F6), automatic figure sizes bounded
(F7)."""

import logging

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _work(caplog, call, *args, **kwargs):
    """The estimate a call logs on ``rlstats.cost`` (the first record whose message starts with ``call``)."""
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="rlstats.cost"):
        getattr(rlstats, call)(*args, **kwargs)
    return [r.work for r in caplog.records if r.name == "rlstats.cost" and r.getMessage().startswith(call)][0]


def _tied_one_task(agents=5, runs=2):
    """``agents`` agents x 1 task x ``runs`` runs, integer scores 0-3 (ties): 10! / 2!^5 = 113,400 arrangements."""
    rng = np.random.default_rng(0)
    rows = [(f"a{j}", "t0", s, float(rng.integers(0, 4))) for j in range(agents) for s in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_f1_enumeration_is_priced(caplog):
    """5 agents x 1 task x 2 runs: 113,400 arrangements of the one task enumerated, 0.17-0.20 s CPU measured warm
    (OPENBLAS_NUM_THREADS=1); estimated 8.5e-5 s when a row was priced and nothing else."""
    work = _work(caplog, "skillings_mack", _tied_one_task(), "score ~ agent | task/seed", progress=False)
    assert 0.15 < work.seconds < 0.6
    assert "113,400" in work.what


def test_f1_power_refuses_enumerations_past_max_seconds():
    """Each data set of the tied pilot has an exact null of its own (0.26 s a data set measured, 10.4 s for 40):
    max_seconds=1 refuses before any is computed."""
    with pytest.raises(OptionError, match="max_seconds"):
        rlstats.power("skillings_mack", design=_tied_one_task(), formula="score ~ agent | task/seed", effect=1.0,
                      seeds=[2], n_sim=40, rng=0, max_seconds=1, progress=False)
