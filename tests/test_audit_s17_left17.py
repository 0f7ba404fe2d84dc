"""Audit s17 (left17): older known leftovers.  Each test is a defect's reproducer, in the order of the brief."""

import numpy as np
import pandas as pd
import pytest

import rlstats


def _unmatched_seeds():
    """Agent A ran seeds 0-5 on 4 tasks, B seeds 0-2: the hierarchical model pairs 3 runs of each (24 of 36 rows)."""
    rng = np.random.default_rng(0)
    rows = [(a, f"t{t}", s, 10.0 * t + (0.5 if a == "A" else 0.0) + rng.normal())
            for t in range(4) for a, seeds in (("A", 6), ("B", 3)) for s in range(seeds)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_bayes_report_counts_the_runs_the_model_analysed():
    """Atari 100k, CURL vs IRIS, model='hierarchical': report() began "We compared 2 agents on 26 tasks (2730 runs)"
    while the model paired only 260 runs by seed (the note says 2470 were left out).  The headline now gives the
    runs the model used and the data's count in one clause; the signed-rank model (task means of all runs) keeps the
    data's count."""
    df = _unmatched_seeds()
    res = rlstats.bayes(df, "score ~ agent | task/seed", model="hierarchical", chains=2, warmup=100, draws=200,
                        rng=0, progress=False)
    assert res.nobs == 36 and res.runs_used == 24
    assert "4 tasks (24 of the data's 36 runs: those paired by seed" in res.report()
    sr = rlstats.bayes(df, "score ~ agent | task/seed", n_samples=500, rng=0, progress=False)
    assert sr.runs_used == 36 and "4 tasks (36 runs)" in sr.report()
