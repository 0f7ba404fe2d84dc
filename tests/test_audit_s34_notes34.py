"""Audit s34 (notes34, simplicity: one home per idea): two notes checked against the rows they describe.

1. A time summary's note (``summarize_runs(how="time_to_threshold")``) recorded every run's key values and time as its
   own hashes (``spec["runs"]``, ``spec["labels"]``), checked by ``design._times_held``; normalize()'s note recorded
   them with ``provenance.values_record``, checked by ``provenance.values_checked``, bounded by ``VALUES_CAP``. The
   time record had no cap: a summary of 10**6 runs wrote 8 MB into attrs (three times over in a Parquet footer).
   Fixed: the time note's record is a ``values_record`` (``spec["values"]``) and both are checked by one function
   (``provenance.ValuesAt.unheld``): beyond VALUES_CAP runs, a deterministic share of the rows (those whose hash the
   record's modulus divides) is checked for both, and both refusals say "(1 in k)".
2. ``provenance.fingerprint`` hashed the key columns as their dtype stores them, so a frame whose seeds were only
   recast (int64 to float64, or to a Categorical) was taken for other rows: its frame notes were dropped with "notes
   ... that no longer hold for them are not shown", while the values records (hash33) read the same labels alike.
   Fixed: the fingerprint hashes each row's labels as ``label_hashes`` reads them, as the values records do.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import direction_read
from rlstats.errors import OptionError
from rlstats.provenance import (NORMALISED, SMALLER_BETTER, Note, carried, fingerprint, has_note, provenance_of,
                                set_notes, value_hashes)
from test_audit_s33_ttt33 import FORMULA, _curves

CAP = 8


def _time_record(frame):
    note = next(n for n in provenance_of(frame).notes if n.kind == SMALLER_BETTER)
    return note.data["values"]


def _best(frame, **kwargs):
    res = rlstats.task_table(frame, FORMULA, **kwargs)
    tidy = res.tidy()
    return sorted(tidy[tidy.best].agent.unique()), str(res)


def _in_share(frame, column, keys, modulus):
    return value_hashes(frame[keys], frame[column]) % np.uint64(modulus) == 0


@pytest.fixture(scope="module")
def times():
    return rlstats.summarize_runs(_curves(), FORMULA, step="step", how="time_to_threshold", threshold=10)


def test_the_time_record_is_normalize_s_record(times):
    """One format: the run keys, each run's time hashed (27 runs, 27 hashes), the key labels, modulus 1."""
    import base64

    record = _time_record(times)
    # "largest": the 8 largest magnitudes, from which a common factor is read (audit s36 small36)
    # "rows": 64 rows' key hash and value, from which a factor is read on any rows keeping one (review s36 rv36a)
    assert set(record) == {"column", "keys", "hashes", "maker", "modulus", "labels", "largest", "rows"}
    assert record["largest"] == sorted(set(np.abs(times["score"].dropna()).tolist()), reverse=True)[:8]
    assert record["keys"] == ["agent", "task", "seed"] and record["column"] == "score" and record["modulus"] == 1
    assert np.frombuffer(base64.b64decode(record["hashes"]), dtype="<u8").size == 27
    assert "runs" not in provenance_of(times).notes[-1].data


def test_beyond_the_cap_both_records_check_the_same_share(monkeypatch):
    """VALUES_CAP 8: 27 runs give modulus 2 * ceil(27 / 8) = 8, as normalize()'s 40 rows give 10 (norm33); the rows
    checked are those whose hash the modulus divides, for the time note as for normalize()'s."""
    monkeypatch.setattr(rlstats.provenance, "VALUES_CAP", CAP)
    times = rlstats.summarize_runs(_curves(), FORMULA, step="step", how="time_to_threshold", threshold=10)
    record = _time_record(times)
    assert record["modulus"] == 8
    keys = ["agent", "task", "seed"]
    share = _in_share(times, "score", keys, 8)
    assert share.sum() == len(np.frombuffer(__import__("base64").b64decode(record["hashes"]), dtype="<u8")) > 0
    best, text = _best(times)
    assert best == ["fast"] and "higher_is_better=False, read from the data" in text
    # the column negated: every checked row is wrong, and the refusal says which share was checked
    n = int(_in_share(times.assign(score=-times.score), "score", keys, 8).sum())
    with pytest.raises(OptionError, match=rf"{n} rows? of {n} checked \(1 in 8\) holds? another value"):
        direction_read(times.assign(score=-times.score), FORMULA)  # what task_table calls first
    # one slow run's time changed to a value whose row falls outside the share: not checked, read as recorded (the
    # rule), and inside it: refused
    changed, row = times.copy(), int(np.flatnonzero(times.agent == "slow")[0])
    for value in range(1001, 1100):
        changed.iloc[row, changed.columns.get_loc("score")] = value
        if not _in_share(changed.iloc[row:row + 1], "score", keys, 8)[0]:
            break
    else:
        raise AssertionError("no value in 1001-1099 puts the row outside the share")
    assert direction_read(changed, FORMULA)[1] is False
    for value in range(1001, 1100):
        changed.iloc[row, changed.columns.get_loc("score")] = value
        if _in_share(changed.iloc[row:row + 1], "score", keys, 8)[0]:
            break
    else:
        raise AssertionError("no value in 1001-1099 puts the row inside the share")
    with pytest.raises(OptionError, match=r"1 row of \d+ checked \(1 in 8\) holds another value"):
        direction_read(changed, FORMULA)


def test_beyond_the_cap_normalize_s_note_follows_the_same_rule(monkeypatch):
    """normalize()'s note, one row changed outside the share, is kept; inside it, dropped: as the time note."""
    from test_audit_s33_norm33 import REFERENCE, SAID, _raw

    monkeypatch.setattr(rlstats.provenance, "VALUES_CAP", CAP)
    n = rlstats.normalize(_raw(), REFERENCE)
    changed = n.copy()
    for inside in (False, True):
        for value in np.arange(1, 100) / 7:
            changed.loc[0, "score"] = value
            if _in_share(changed.iloc[:1], "score", ["task"], 10)[0] == inside:
                break
        else:
            raise AssertionError(f"no value k / 7 (k < 100) puts the row {'inside' if inside else 'outside'} the share")
        texts = [note.text for note in carried(changed)]
        assert any(SAID in t for t in texts) != inside
        assert any("1 of" in t and "rows checked (1 in 10)" in t for t in texts) == inside


def test_a_huge_time_summary_writes_a_bounded_record():
    """70,000 runs (one row each, built by hand with the summary's note): the record keeps at most VALUES_CAP hashes."""
    from rlstats.provenance import VALUES_CAP, values_record

    n = 70_000
    keys = pd.DataFrame({"agent": np.repeat(["a", "b"], n // 2), "task": "t", "seed": np.arange(n)})
    record = values_record(keys, np.arange(n, dtype=float), "score", "summarize_runs")
    assert record["modulus"] == 4 and len(record["hashes"]) <= VALUES_CAP * 8 * 4 // 3 + 4


@pytest.mark.parametrize("recast", ["seed float", "seed category", "seed str", "agent category"])
def test_a_recast_key_column_keeps_the_frame_s_notes(recast):
    frame = pd.DataFrame({"agent": ["a", "a", "b", "b"], "task": "t", "seed": [0, 1, 0, 1], "score": [1.0, 2, 3, 4]})
    set_notes(frame, [Note("3 files not read", scope="frame")], columns=("agent", "task", "seed"))
    again = {"seed float": lambda f: f.astype({"seed": float}),
             "seed category": lambda f: f.astype({"seed": "category"}),
             "seed str": lambda f: f.assign(seed=f.seed.astype(str)),
             "agent category": lambda f: f.astype({"agent": "category"})}[recast](frame)
    assert fingerprint(again, ["agent", "task", "seed"]) == fingerprint(frame, ["agent", "task", "seed"])
    assert [note.text for note in carried(again)] == ["3 files not read"]
    relabelled = frame.assign(seed=frame.seed + 1)  # other labels: other rows, as before
    assert [note.text for note in carried(relabelled)] == [
        "notes of the frame these rows came from that no longer hold for them are not shown"]


def test_a_design_of_changed_times_is_still_refused(times):
    """The time note's record rides in its data, not in Note.values: build keeps the note on a negated column (as
    before), and a Design of it is refused by its record, as the frame is."""
    design = rlstats.build(times.assign(score=-times.score), FORMULA)
    with pytest.raises(OptionError, match=r"27 rows of 27 hold another value.*first: agent='fast', task='t1', seed=0, "
                                          r"score=-400"):
        direction_read(design, FORMULA)
    assert direction_read(rlstats.build(times, FORMULA), FORMULA)[1] is False


def test_a_missing_time_is_not_read_as_another_value(times):
    """One rule for both records: a missing value is dropped where it is read, never taken for another (before, a
    time set to NaN was refused as 'another value than the time recorded', normalize()'s kept its note)."""
    missing = times.copy()
    missing.loc[missing.index[0], "score"] = np.nan
    assert direction_read(missing, FORMULA)[1] is False
    with pytest.raises(rlstats.errors.DesignError, match="column 'score' has 1 missing value"):
        direction_read(missing, FORMULA)[0].pipe(rlstats.build, FORMULA)
