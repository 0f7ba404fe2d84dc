"""Audit s31 equivplot31: equivalence's cost counts each bootstrap pass of an incomplete design, its bootstrap notes
name the pairs they concern, and its figure at paper size (the aggregate rows by default, one panel per scope)."""

import logging

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _three(missing=True, runs=4, seed=1):
    """A, B on 4 tasks; C on 3 (missing) or 4, ``runs`` runs a cell, differences well inside 0.1."""
    rng = np.random.default_rng(seed)
    rows = []
    for a, mu in (("A", 0.0), ("B", 0.02), ("C", 0.01)):
        for t in range(4):
            if missing and a == "C" and t == 3:
                continue
            rows += [(a, f"t{t}", s, mu + 0.1 * t + rng.normal(0, 0.05)) for s in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _estimate(caplog, df, **options):
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="rlstats.cost"):
        result = rlstats.equivalence(df, "score ~ agent | task", margin=0.1, rng=0, **options)
    (work,) = [r.work for r in caplog.records if r.name == "rlstats.cost" and r.getMessage().startswith("equivalence")]
    return result, work


def test_cost_counts_each_bootstrap_pass(caplog, monkeypatch):
    """C misses t3: A vs B is bootstrapped on 4 tasks (32 runs), A vs C and B vs C on the 3 all ran (A, B, C: 36
    runs), 68 runs a resample, not the data's 44; the complete design (48 runs) is one pass. The rows each bootstrap
    was called with are counted by a spy on the bootstrap back end, independently of the formula."""
    from rlstats import methods

    real, seen = methods.backend("bootstrap"), []

    def spy(design, **kw):
        seen.append(len(design.y))
        return real(design, **kw)

    monkeypatch.setattr(methods, "backend", lambda name: spy if name == "bootstrap" else real)
    _, work = _estimate(caplog, _three(), n_resamples=1000)
    assert sorted(seen) == [32, 36]
    assert work.units == 1000 * (32 + 36)
    seen.clear()
    _, complete = _estimate(caplog, _three(missing=False), n_resamples=1000)
    assert seen == [48] and complete.units == 1000 * 48
    # memory: the groups run one after the other; the peak is the largest group's agents (3 here), as one pass
    assert work.memory == complete.memory == 64 * 1000 * 3
    assert "2 bootstraps" in work.what


def test_max_seconds_refuses_when_the_passes_push_it_over(caplog):
    """10,000 resamples: one pass of 44 runs is 0.0154 s at 3.5e-8 s a value, the two passes' 68 runs 0.0238 s; a bound
    of 0.02 s refuses the call (it admitted it when one pass was counted), and admits the complete design's 48 runs
    (0.0168 s)."""
    with pytest.raises(OptionError, match="max_seconds"):
        rlstats.equivalence(_three(), "score ~ agent | task", margin=0.1, rng=0, n_resamples=10_000, max_seconds=0.02)
    _, work = _estimate(caplog, _three(missing=False), n_resamples=10_000, max_seconds=0.02)
    assert work.seconds == pytest.approx(10_000 * 48 * 3.5e-8)


def test_bootstrap_notes_name_their_pairs():
    """Two task sets bootstrapped (A vs B on 4 tasks, A vs C and B vs C on 3): the bootstrap's note on few runs, the
    same of both, says it holds for every pair's aggregate; where only one set's runs are few, the note names that set's
    pairs."""
    result = rlstats.equivalence(_three(), "score ~ agent | task", margin=0.1, rng=0, n_resamples=500)
    few = [n for n in result.notes if "runs per task are few" in n]
    assert len(few) == 1 and few[0].startswith("the aggregate tests of all 3 pairs: 4 runs per task are few")
    # A and B with 10 runs a cell, C with 4 on 3 tasks: the note of few runs is that of A vs C and B vs C alone
    df = _three()
    more = _three(runs=10, seed=2)
    df = pd.concat([df[df["agent"] == "C"], more[more["agent"] != "C"]], ignore_index=True)
    result = rlstats.equivalence(df, "score ~ agent | task", margin=0.1, rng=0, n_resamples=500)
    few = [n for n in result.notes if "are few for studentized" in n]
    assert len(few) == 1 and few[0].startswith("the aggregate tests of A vs C and B vs C: 4 runs per task (of C) are "
                                               "few"), few
    # one task set (complete design): the note as the bootstrap says it
    result = rlstats.equivalence(_three(missing=False), "score ~ agent | task", margin=0.1, rng=0, n_resamples=500)
    assert any(n.startswith("4 runs per task are few") for n in result.notes)
