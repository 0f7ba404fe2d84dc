"""Audit s13 (bayesconv): the hierarchical model's Gibbs sampler with its default chains, warm-up and draws did not
converge on designs RL has.  Measured with tests/reference/bayes_convergence.py (rlstats.bayes(..., model=
"hierarchical") on 2-26 tasks x 3/5/10 runs, Atari 100k pairs and simulated scores): 11 of 90 designs ended with an
R-hat above 1.01 or a bulk ESS below 400, every one of them from the slow mixing of sigma0 and nu (the tasks' spread
and the t's degrees of freedom), up to R-hat 1.12 (delta of CrazyClimber, DER vs DrQ, 26 games x 10 runs, ESS 45)."""

import os

import numpy as np
import pandas as pd
import pytest

import rlstats


def _atari_pair(pair, games, runs):
    if not os.environ.get("RLSTATS_DATA_MIRROR"):
        pytest.skip("set RLSTATS_DATA_MIRROR to the mirror of the published data (../shared/data/raw) for Atari 100k")
    df = rlstats.datasets.load("atari100k")
    first = sorted(df["task"].unique())[:games]
    return df[df["agent"].isin(pair) & df["task"].isin(first) & (df["seed"] < runs)]


@pytest.mark.slow  # 4 s: the first run and the run again with 4 times the draws
def test_atari_eight_games_ten_runs_converges_with_the_defaults():
    """SPR vs CURL on the first 8 Atari 100k games, seeds 0-9 (the user audit's design): with the defaults and rng=0
    the largest R-hat was 1.023 and the smallest bulk ESS 249, both of sigma0, and the result warned; the defaults
    must reach R-hat < 1.01 and ESS >= 400.  The chains are now run again with 4 times the warm-up and draws, and a
    note says so."""
    df = _atari_pair(("SPR", "CURL"), 8, 10)
    res = rlstats.bayes(df, "score ~ agent | task/seed", model="hierarchical", rope=0.0, rng=0, progress=False)
    row = res.tidy().iloc[0]
    assert row["r_hat"] < 1.01 and row["ess_bulk"] >= 400
    assert any("extended to 1,200 and 4,000 a chain" in note for note in res.notes)
    # the first pair's diagnostics rows are those of the extended run, and the result still warns nothing
    assert res.diagnostics["r_hat"].max() < 1.01


def _small(seed=0):
    rng = np.random.default_rng(seed)
    rows = [(a, f"t{t}", r, 10.0 * t + (0.5 if a == "A" else 0.0) + rng.normal())
            for t in range(3) for a in ("A", "B") for r in range(3)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_runs_again_are_bounded_and_stated(monkeypatch):
    """With an ESS limit no chain can reach (monkeypatched to 10^9) the chains are run again at doubling factors up to
    MAX_EXTENSION and no further, the note names the last run's warm-up and draws, and the warning stays;
    max_seconds= too small for any extension (0.15 s: the first run is estimated at 0.091 s, with each sweep's own
    cost since session 18, one at twice the draws would make 0.46 with its bound) runs none and the warning says
    why."""
    from rlstats.methods.bayes import _api

    monkeypatch.setattr(_api, "ESS_LIMIT", 1e9)
    monkeypatch.setattr(_api, "MAX_EXTENSION", 4)
    options = dict(model="hierarchical", chains=2, warmup=100, draws=100, rng=3, progress=False, normalize=False)
    with pytest.warns(UserWarning, match="even with warm-up and draws extended 4 times"):
        res = rlstats.bayes(_small(), "score ~ agent | task/seed", **options)
    assert any("extended to 400 and 400 a chain (the bound: 4 times" in note for note in res.notes)
    # the figures keep as many draws as draws= asks (2 chains x 100), every 4th of the extended run's 800
    assert res.posterior_draws.shape == (1, 200)
    with pytest.warns(UserWarning, match="max_seconds= left no room"):
        tight = rlstats.bayes(_small(), "score ~ agent | task/seed", max_seconds=0.15, **options)
    assert not any("extended to" in note for note in tight.notes)


def test_runs_again_do_not_depend_on_n_jobs(monkeypatch):
    """Each group of pairs sharing tasks is run again on its own stream (keyed by its first pair and the factor), so
    n_jobs=2 gives the numbers n_jobs=1 gives on a design of two groups (C did not run t2), and the printed header
    says that some pairs have more draws than draws= asked."""
    from rlstats.methods.bayes import _api

    monkeypatch.setattr(_api, "ESS_LIMIT", 1e9)
    monkeypatch.setattr(_api, "MAX_EXTENSION", 2)
    df = _small(1)
    extra = _small(2)
    extra = extra[(extra["agent"] == "B") & (extra["task"] != "t2")].assign(agent="C")
    df = pd.concat([df, extra], ignore_index=True)
    options = dict(model="hierarchical", chains=2, warmup=100, draws=100, rng=5, progress=False, normalize=False)
    with pytest.warns(UserWarning):
        one = rlstats.bayes(df, "score ~ agent | task/seed", n_jobs=1, **options)
    with pytest.warns(UserWarning):
        two = rlstats.bayes(df, "score ~ agent | task/seed", n_jobs=2, **options)
    pd.testing.assert_frame_equal(one.tidy(), two.tidy())
    pd.testing.assert_frame_equal(one.diagnostics, two.diagnostics)
    assert "2 chains of 100 draws after warm-up, more where a note says" in str(one)
