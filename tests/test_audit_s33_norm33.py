"""Audit s33 (norm33, new-user trial sub3): ``n = rlstats.normalize(df, ref); n["score"] = df["score"].values`` put the
raw game scores back under the normaliser's note, which rode on in ``attrs``: bootstrap printed "'score' normalised
per task ..." above raw means (1910.9 / 4307.8 on Atari 100k), report() wrote it into the methods paragraph, and
the note hid the raw-scales warning the same rows get without attrs.

Fixed: normalize()'s note records each row's task and normalised value as one 64-bit hash
(``provenance.value_hashes``, the one home ttt33b made for time summaries); where the notes are carried into a
build (``provenance.carried``) a row whose value is not among them means the note is not true of these rows: it is
dropped, with its effects, and one line says so. Subsets, sorts, shuffles, copies, concat and Parquet keep it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import rlstats
from conftest import ATTRS_IN_PARQUET
from rlstats.provenance import NORMALISED, carried, has_note

FORMULA = "score ~ agent | task/seed"
SAID = "'score' normalised per task"


def _raw():
    """4 tasks, one on a scale 1000 times the others', 2 agents, 5 seeds: raw means differ by task scale."""
    rng = np.random.default_rng(33)
    rows = []
    for t, scale in zip(["a", "b", "c", "d"], [1.0, 1.0, 1.0, 1000.0]):
        for agent, shift in [("A", 0.0), ("B", 0.5)]:
            for seed in range(5):
                rows.append((agent, t, seed, scale * (1.0 + shift + rng.uniform())))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


REFERENCE = pd.DataFrame({"task": ["a", "b", "c", "d"], "random": [0.0, 0.0, 0.0, 0.0],
                          "human": [2.0, 2.0, 2.0, 2000.0]})


def _boot(data):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = rlstats.bootstrap(data, FORMULA, metrics="mean", rng=0, progress=False, n_resamples=50)
    return res, [str(w.message) for w in caught]


def _raw_scales(messages):
    return [m for m in messages if "aggregated on their own scales" in m]


def test_raw_scores_put_back_drop_the_note_and_warn():
    raw = _raw()
    n = rlstats.normalize(raw, REFERENCE)
    n["score"] = raw["score"].to_numpy()  # the raw scores back, attrs kept
    res, messages = _boot(n)
    assert not any(SAID in note for note in res.notes)
    line = [note for note in res.notes if "not those normalize() wrote" in note]
    assert len(line) == 1 and "40 of 40 rows" in line[0]
    assert len(_raw_scales(messages)) == 1  # as the same rows without attrs
    fresh, fresh_messages = _boot(pd.DataFrame(raw.to_dict("list")))
    assert np.allclose(res.estimates, fresh.estimates)
    # the raw means, as pandas computes them (an independent value): 387.93 and 553.48
    assert np.allclose(res.estimates.ravel(), raw.groupby("agent").score.mean().to_numpy())
    assert res.notes[1:] == fresh.notes  # the raw-scales note, as without attrs
    assert "normalised" not in res.report("text")
    assert not has_note(n, NORMALISED)


def test_one_row_changed_drops_the_note():
    n = rlstats.normalize(_raw(), REFERENCE)
    n.loc[3, "score"] = 0.123456
    notes = [note.text for note in carried(n)]
    assert not any(SAID in t for t in notes)
    assert any("1 of 40 rows" in t and "not those normalize() wrote" in t for t in notes)


def test_the_note_stays_where_the_values_are_normalize_s(tmp_path):
    raw = _raw()
    n = rlstats.normalize(raw, REFERENCE)
    other = rlstats.normalize(raw.assign(agent=raw.agent + "2"), REFERENCE)
    missing = n.copy()
    missing.loc[0, "score"] = np.nan  # a missing score is dropped, not a value other than normalize's
    path = tmp_path / "n.parquet"
    n.to_parquet(path)
    frames = {"itself": n, "subset": n[n.agent == "A"], "sorted": n.sort_values("score"),
              "shuffled": n.sample(frac=1.0, random_state=1), "copy": n.copy(deep=True),
              "parts": pd.concat([n.iloc[:17], n.iloc[17:]]), "concat": rlstats.concat([n, other]),
              **({"parquet": pd.read_parquet(path)} if ATTRS_IN_PARQUET else {}),  # pandas 2.0 writes no notes
              "seed float": n.astype({"seed": float}),
              "task category": n.astype({"task": "category"}),
              "missing": missing}
    for name, frame in frames.items():
        notes = [note.text for note in carried(frame)]
        assert any(SAID in t for t in notes), name
        assert not any("not those normalize() wrote" in t for t in notes), name
        assert has_note(frame, NORMALISED), name
    res, messages = _boot(frames["shuffled"])
    assert any(SAID in note for note in res.notes) and not _raw_scales(messages)


def test_a_renamed_task_column_cannot_be_checked_and_says_so():
    n = rlstats.normalize(_raw(), REFERENCE)
    notes = [note.text for note in carried(n.rename(columns={"task": "game"}))]
    assert notes == ["whether 'score' holds the values normalize() wrote cannot be checked (no column 'task' in these "
                     "data), so normalize()'s note on it is not shown"]
    # a renamed score column names no column here: the note is read as before (it names 'score', not the response)
    assert any(SAID in t for t in (note.text for note in carried(n.rename(columns={"score": "s"}))))


def test_run_summaries_of_normalised_curves_keep_the_note():
    raw = _raw()
    curves = pd.concat([raw.assign(step=s) for s in range(3)], ignore_index=True)
    curves["score"] += curves["step"]
    normalised = rlstats.normalize(curves, REFERENCE)
    for how in ("auc", "final"):  # the area is no value normalize() wrote: the summary's frame reads no record
        summary = rlstats.summarize_runs(normalised, FORMULA, step="step", how=how)
        assert any(SAID in note.text for note in carried(summary)), how


def test_a_bounded_record_checks_a_share_of_the_rows(monkeypatch):
    """Beyond VALUES_CAP distinct hashes, those divisible by the modulus are kept: the raw scores put back are found
    among the rows checked (here 40 rows, a cap of 8: modulus 10, 4 of the 40 hashes kept)."""
    monkeypatch.setattr(rlstats.provenance, "VALUES_CAP", 8)
    raw = _raw()
    n = rlstats.normalize(raw, REFERENCE)
    record = next(note.values for note in rlstats.provenance.provenance_of(n).notes if note.values)
    assert record["modulus"] == 10 and len(record["hashes"]) <= 8 * 8 * 4 / 3 + 4
    assert has_note(n, NORMALISED) and has_note(n.sample(frac=1.0, random_state=2), NORMALISED)
    back = n.copy()
    back["score"] = raw["score"].to_numpy()
    notes = [note.text for note in carried(back)]
    assert not any(SAID in t for t in notes)
    assert any("rows checked (1 in 10)" in t and "not those normalize() wrote" in t for t in notes)
