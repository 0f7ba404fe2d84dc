"""Audit s39 eq39: equivalence()'s per-pair work read in one pass gives the numbers a pass a pair gave, bit for bit:
every pair's ties at a task's bound (bounds.pairs_bound_ties against bounds.bound_ties), each pair's bootstrap read
alone with each agent's pieces computed once (bootstrap.agents_alone with ``reuse``), and the calibration rows the
bootstrap's notes quote read once a table (another table, a test's, read afresh)."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import bounds, calibration
from rlstats.methods import operation


def _capped(agents=5, tasks=4, runs=6, seed=3):
    """Scores capped at 1.0 for the even agents (most runs there), a04 uncapped, a01 missing t0; draws in 0.1
    steps, so that runs tie off the cap too."""
    rng = np.random.default_rng(seed)
    rows = []
    for j in range(agents):
        for t in range(tasks):
            if j == 1 and t == 0:
                continue
            x = np.round(rng.normal(1.2 if j % 2 == 0 else 0.3, 0.6, runs), 1) * (1 + 0.37 * t)
            x = np.minimum(x, 1.0 + 0.37 * t) if j != 4 else x
            rows += [(f"a{j:02d}", f"t{t}", s, float(v)) for s, v in enumerate(x)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.parametrize("rows", [bounds.PAIRS_ROWS, 7])
def test_pairs_bound_ties_are_each_pairs(monkeypatch, rows):
    """Every pair of 5 agents (4 of them capped, one missing a task), in one chunk and in chunks of 7 runs: the counts
    at the bound and the mean distances off it are bound_ties' bytes for that pair alone."""
    monkeypatch.setattr(bounds, "PAIRS_ROWS", rows)
    design = rlstats.build(_capped(), "score ~ agent | task/seed")
    pairs = [(i, j) for i in range(design.n_agents) for j in range(i + 1, design.n_agents)]
    at_bound, distance = bounds.pairs_bound_ties(design, pairs)
    assert at_bound.shape == distance.shape == (10, 4, 2)
    assert at_bound.sum() > 0 and (distance > 0).any()  # the caps are there to count
    for k, pair in enumerate(pairs):
        one_at, one_distance = bounds.bound_ties(design, pair)
        assert at_bound[k].dtype == one_at.dtype
        assert at_bound[k].tobytes() == one_at.tobytes() and distance[k].tobytes() == one_distance.tobytes(), pair


def test_agents_alone_reusing_each_agents_pieces():
    """A bootstrap of 4 agents (IQM, mean and median): each pair read alone with ``reuse`` (each agent's pieces
    computed once) has the intervals, Monte Carlo SEs, caps and notes of the pair read alone without it."""
    df = _capped()
    df = df[df["task"] != "t0"]
    design = rlstats.build(df[df["agent"] != "a04"], "score ~ agent | task/seed")
    result = rlstats.methods.backend("bootstrap")(design, metrics=["iqm", "mean", "median"], n_resamples=200,
                                                  confidence_level=0.9, rng=0, progress=False)
    alone, reuse = operation("bootstrap.agents_alone"), {}
    withheld = 0
    for i, a in enumerate(result.agents):
        for b in result.agents[i + 1:]:
            own, reused = alone(result, [a, b]), alone(result, [a, b], reuse)
            for field in ("intervals", "interval_mc_se", "saturated", "degrees_of_freedom", "skewness"):
                assert getattr(own, field).tobytes() == getattr(reused, field).tobytes(), (a, b, field)
            assert own.notes == reused.notes and own.coverage_notes == reused.coverage_notes
            withheld += int(np.isnan(own.intervals).any())
    assert "pieces" in reuse and withheld > 0  # read from the cache, with some intervals withheld at the cap


def test_bootstrap_notes_read_another_table_afresh(monkeypatch):
    """The rows the bootstrap's coverage notes quote are kept per table read: a table without them (a test's
    calibration) is read as such, and the package's again after it."""
    from rlstats.methods.bootstrap import _small_runs

    real = _small_runs._rows_by_runs("studentized", "iqm", tasks=5)
    assert real and {row["procedure"] for rows in real.values() for row in rows} == {"bootstrap.interval"}
    monkeypatch.setattr(calibration, "rows", lambda procedure: ())
    assert _small_runs._rows_by_runs("studentized", "iqm", tasks=5) == {}
    monkeypatch.undo()
    assert _small_runs._rows_by_runs("studentized", "iqm", tasks=5) == real
