"""Audit s26 (small26): small whole fixes found by this session's audits.

1. ``rlstats adastop status`` printed none of the result's notes (a batch repeating runs, accepted with
   ``--allow-repeat``, went unsaid after the update); it prints them as the finishing ``update`` and the
   result's print do.
"""

import io

import numpy as np
import pandas as pd
import pytest

import rlstats.cli as cli
from rlstats.methods.adastop import AdaStop


def run(*argv):
    out = io.StringIO()
    status = cli.main(list(argv), out=out)
    return status, out.getvalue()


def _notes_printed(text):
    return [line for line in text.splitlines() if line.startswith("Note: ")]


@pytest.fixture
def repeated_batches(tmp_path):
    """Two wide batches, the second repeating agent A's runs of the first (fed with --allow-repeat)."""
    rng = np.random.default_rng(1)
    a = rng.normal(0, 1, 5)
    paths = []
    for k, b in enumerate((rng.normal(0.1, 1, 5), rng.normal(0.1, 1, 5)), start=1):
        path = tmp_path / f"b{k}.csv"
        pd.DataFrame({"A": a, "B": b}).to_csv(path, index=False)
        paths.append(path)
    return paths


def test_status_prints_the_notes_the_finishing_update_printed(repeated_batches, tmp_path):
    state = tmp_path / "s.json"
    assert run("adastop", "update", str(state), str(repeated_batches[0]), "--K", "2", "--seed", "0")[0] == 0
    status, finished = run("adastop", "update", str(state), str(repeated_batches[1]), "--allow-repeat")
    assert status == 0 and "the test is finished" in finished
    printed = _notes_printed(finished)
    assert any("repeat an earlier interim's exactly" in line for line in printed)
    status, text = run("adastop", "status", str(state))
    assert status == 0
    assert _notes_printed(text) == printed
    # the Python side says the same notes
    result = AdaStop.load(state).result()
    assert [f"Note: {note}" for note in result.notes] == printed
    assert _notes_printed(str(result)) == printed


def test_status_of_a_running_test_prints_its_notes(repeated_batches, tmp_path):
    state = tmp_path / "s.json"
    run("adastop", "update", str(state), str(repeated_batches[0]), "--K", "3", "--seed", "0")
    run("adastop", "update", str(state), str(repeated_batches[1]), "--allow-repeat")
    status, text = run("adastop", "status", str(state))
    assert status == 0
    notes = AdaStop.load(state).result().notes
    assert len(notes) == 3 and _notes_printed(text) == [f"Note: {note}" for note in notes]
