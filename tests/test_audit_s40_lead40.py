"""Audit s40 (lead): what session 39 noticed and left alone, mended."""

from __future__ import annotations

import numpy as np
import pandas as pd

import rlstats


def test_published_table_is_not_priced_as_a_bootstrap():
    """A published table has no runs to bootstrap, so equivalence() makes no bootstrap against it; its estimate
    priced one of every run at n_resamples= (here 10^5 resamples x 10,000 runs, about 35 s estimated) and refused a
    call that takes 0.1 s under max_seconds=1."""
    rng = np.random.default_rng(0)
    runs = 2_000
    tasks = [f"t{i}" for i in range(5)]
    df = pd.DataFrame({"agent": "A", "task": np.repeat(tasks, runs), "score": rng.normal(size=5 * runs)})
    table = pd.DataFrame({"task": tasks, "mean": 0.0, "sd": 1.0, "n": 10})
    res = rlstats.equivalence(df, "score ~ agent | task", margin=0.5, published=table, n_resamples=100_000,
                              max_seconds=1, progress=False)
    assert res.pairs == (("A", "published"),)
    # the runs' Welch test against the summaries is what was computed: t of the first task by hand
    first = df["score"].to_numpy()[:runs]
    se = np.sqrt(first.var(ddof=1) / runs + 1.0 / 10)
    row = res.tidy().iloc[0]
    assert np.isclose(row["estimate"], first.mean(), rtol=1e-12) and np.isclose(row["std_error"], se, rtol=1e-12)
