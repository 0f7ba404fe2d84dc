"""Session 16 second reading of the session's merged changes (review16)."""
from __future__ import annotations

import pytest

import rlstats
from rlstats.errors import OptionError
from rlstats.methods.adastop import AdaStop


def _caption(latex, table):
    return next(line for line in latex.splitlines() if line.startswith("\\caption{") and table in line)


def test_level_caption_sentences_start_with_a_capital():
    """The level table's caption of a running test added "... level: cumulated up to it. interims 1-3 are not run
    yet: ..." -- a sentence starting lower-case in a caption pasted into a paper (the stopped test's one is
    capitalised)."""
    seq = AdaStop(["A", "B"], n=3, K=3, n_resamples=200, rng=0)
    level = _caption(seq.result().summary().to_latex(), "Level spent per interim")
    assert "level: cumulated up to it. Interims 1-3 are not run yet: their levels are the schedule's." in level


@pytest.mark.parametrize("given, phrase", [
    (lambda d: d, "rlstats.concat takes a list of tables, got one DataFrame: pass [frame]"),
    (lambda d: {"a": d, "b": d}, "rlstats.concat takes a list of tables, got a dict"),
    (lambda d: None, "rlstats.concat takes a list of tables, got None"),
])
def test_concat_of_one_table_or_a_mapping_says_so(given, phrase):
    """rlstats.concat(df) iterated the frame's column names and said "item 0 is a str", as it did for a dict (whose
    keys pandas.concat would have used as an outer level); concat(None) raised Python's TypeError. Each now names
    what was given and the fix, as the empty input's error (session 16) does."""
    data = rlstats.datasets.simulate(2, 2, 2, rng=0)
    with pytest.raises(OptionError) as info:
        rlstats.concat(given(data))
    assert phrase in str(info.value)


def test_state_lock_where_the_lock_file_cannot_be_removed(tmp_path, monkeypatch):
    """Windows' path of the new removal on release: an open file cannot be removed there (os.unlink raises), so the
    lock file stays, emptied of the holder's process id, and the next update takes it."""
    from rlstats.methods.adastop import _incremental

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "the file is open", str(path))

    monkeypatch.setattr(_incremental.os, "unlink", refuse)
    state = tmp_path / "s.json"
    for _ in range(2):
        with _incremental.state_lock(state, timeout=0):
            assert (tmp_path / "s.json.lock").read_text().strip().isdigit()
        assert (tmp_path / "s.json.lock").read_text() == ""
