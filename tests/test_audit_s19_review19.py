"""Audit s19 (review19): the second reading of this session's merged change, each defect's reproducer."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.adastop import _incremental


def _old_seed_sequence(rng):
    """How rlstats before s19 seeded a run from a spawned SeedSequence: used as it is, recorded 'SeedSequence'."""
    return np.random.SeedSequence(rng.entropy, spawn_key=rng.spawn_key), "SeedSequence"


def _batches():
    gen = np.random.default_rng(1)
    return [{a: gen.normal(m, 1, 5) for a, m in zip("ABC", (0.0, 0.3, 1.5))} for _ in range(3)]


def test_a_state_begun_on_a_spawned_seedsequence_before_s19_resumes_with_its_own_stream(monkeypatch):
    """An AdaStop begun with rng=SeedSequence(7).spawn(2)[1] under the rlstats before this session saved its stream's
    entropy and spawn key; the spawned-SeedSequence change (a 128-bit int drawn from it) made from_state draw a new
    stream from them, and the state's digest then refused it: "the seed changed since the batches were fed (edited by
    hand?)". A test in progress must resume with the stream it began with."""
    batches = _batches()
    with monkeypatch.context() as patch:  # the state as the earlier rlstats wrote it
        patch.setattr(_incremental, "seed_sequence", _old_seed_sequence)
        seq = rlstats.AdaStop(["A", "B", "C"], n=5, K=3, n_resamples=200, rng=np.random.SeedSequence(7).spawn(2)[1])
        seq.update(batches[0])
        state = json.loads(json.dumps(seq.to_state()))  # as a file holds it
        seq.update(batches[1])
        expected = seq.result().decisions
    resumed = rlstats.AdaStop.from_state(state)
    resumed.update(batches[1])
    got = resumed.result().decisions
    assert got["decision"].tolist() == expected["decision"].tolist()
    np.testing.assert_array_equal(got["boundary"].to_numpy(float), expected["boundary"].to_numpy(float))
    assert resumed.to_state()["seed"] == {"entropy": 7, "spawn_key": [1], "record": "SeedSequence"}


def test_a_state_begun_now_on_a_spawned_seedsequence_resumes_alike():
    """The same under this rlstats: the stream is SeedSequence(the drawn int), saved and read back as it is."""
    batches = _batches()
    seq = rlstats.AdaStop(["A", "B", "C"], n=5, K=3, n_resamples=200, rng=np.random.SeedSequence(7).spawn(2)[1])
    seq.update(batches[0])
    state = json.loads(json.dumps(seq.to_state()))  # as a file holds it
    seq.update(batches[1])
    resumed = rlstats.AdaStop.from_state(state)
    resumed.update(batches[1])
    np.testing.assert_array_equal(resumed.result().decisions["boundary"].to_numpy(float),
                                  seq.result().decisions["boundary"].to_numpy(float))
    assert state["seed"]["record"] == state["seed"]["entropy"] and state["seed"]["spawn_key"] == []


def _saturated():
    """Success rates of two agents on three easy tasks, every run between 0.947 and 1."""
    gen = np.random.default_rng(3)
    rows = [(a, t, s, min(1.0, gen.normal(0.975, 0.01))) for a in "AB" for t in ("t1", "t2", "t3") for s in range(10)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_a_preregistered_margin_wider_than_tight_scores_is_a_note_not_a_warning():
    """A 10-point non-inferiority or equivalence margin fixed before the data, on success rates that all came out
    between 0.947 and 1 (range 0.053): the data show equivalence (90% interval -0.003 to 0.006), and the margin is
    the caller's correct one, yet the new check warned 'if margin= was meant in other units ... rerun' (as it did in
    tests/test_audit_s11_eqsat.py, margin 0.3 on capped scores spanning 0.065 and 0.18). The fact stays a note; the
    warning, whose point is a units slip (margin=6895 on scores spanning 69), is kept for a margin 10 times the range
    or more."""
    df = _saturated()
    spread = float(df.score.max() - df.score.min())
    assert spread == pytest.approx(0.0532816, abs=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rlstats.RlstatsWarning)
        res = rlstats.equivalence(df, "score ~ agent | task", margin=0.1, rng=0, normalize=False)
    assert sum("is at least the range of all the scores analysed (0.053282" in n for n in res.notes) == 1
    with pytest.warns(UserWarning, match=r"margin=0\.6 is at least the range"):
        rlstats.equivalence(df, "score ~ agent | task", margin=0.6, rng=0, normalize=False, aggregate=None)


def test_the_missing_text_note_reads_the_file_once_per_name_column(tmp_path, monkeypatch):
    """rlstats compare on a file whose agent 'None' and one score 'NA' pandas reads as missing: the note of what the
    file held (left19) read the file again twice per column with missing values, the score column too (whose note
    is never given: numbers hold no names), and parsed every value as a number: 3.3 s on 1M rows where read_table
    took 0.3 s. The frame read_table gave already says which values are missing and which columns are numbers."""
    from rlstats import tables
    from rlstats.cli import _shared

    frame = pd.DataFrame({"agent": ["None", "PPO", "SAC"] * 4, "task": ["t1"] * 6 + ["t2"] * 6,
                          "score": ["NA"] + [str(v) for v in range(11)]})
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    read = _shared.read_table(str(path))
    calls = []
    original = tables.read_csv
    monkeypatch.setattr(tables, "read_csv", lambda *a, **k: calls.append(k.get("usecols")) or original(*a, **k))
    noted = _shared.with_missing_text(read, str(path), None, "score ~ agent | task")
    assert calls == [["agent"]]
    notes = noted.attrs["rlstats_notes"]
    assert notes == ("column 'agent' of the file holds the text 'None' in 4 rows, which pandas.read_csv reads as "
                     "missing values: if 'None' is a name, not a missing value, rename it in the file (e.g. with a "
                     "suffix)",)


def test_monte_carlo_note_where_every_probability_is_zero_or_one():
    """Two agents 3 sd apart on 8 tasks: every draw of the signed-rank model puts agent_1 worse, P(worse) = 1, and
    the new note read "its standard error, sqrt(p (1 - p) / 2,000), is at most 0 ..., so another rng= moves the
    printed probabilities by about that": no Monte Carlo error at all, which 2,000 draws cannot show (one share in
    1/2,000 is unseen at 0.05 with probability (1 - 1/2,000)^2,000 = 0.37). Said as what it is, with the rule of
    three's bound 3 / n."""
    df = rlstats.datasets.simulate(agents=2, tasks=8, seeds=3, effect=3.0, rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(df, "score ~ agent | task/seed", n_samples=2000, rng=0, normalize=False)
    assert res.tidy()[["p_worse", "p_rope", "p_better"]].iloc[0].tolist() == [1.0, 0.0, 0.0]
    said = [n for n in res.notes if n.startswith("Monte Carlo error")]
    assert said == ["Monte Carlo error: every P(.) shown is 0 or 1 in all 2,000 independent posterior draws, where "
                    "sqrt(p (1 - p) / 2,000) is 0; another rng= may still move one by up to about 0.0015 (3 / 2,000, "
                    "the rule of three at 95%)"]
