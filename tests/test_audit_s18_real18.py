"""Audit s18 (real18), a paper author analysing the real Atari 100k scores (9 agents on 26 games: 100 runs each
for six agents, 15 for PlayVirtual, 5 for IRIS and SimPLe): the mixed model against statsmodels' MixedLM, the
blocked rank test's counts and mean ranks against pandas, equivalence and the Bayesian model with a ROPE, and the
bootstrap's prose, each printed sentence read against the rows analysed. Tests that read the published scores use
the mirror (``../shared/data/raw`` or ``RLSTATS_DATA_MIRROR``) and skip with the reason when it is absent."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats

REFERENCE = "atari100k_reference"


@pytest.fixture
def hns(atari, published):
    """Human-normalised scores computed here from the reference table (not through the package's normaliser)."""
    ref = pd.read_csv(published / "atari100k_reference.csv")
    frame = atari.merge(ref, on="task")
    return frame.assign(hns=(frame.score - frame.random) / (frame.human - frame.random))


# ----------------------------------------------------------------------------- bootstrap's methods paragraph

def test_expanded_report_gives_each_agents_own_run_count(atari, mirror):
    """The expanded interval scales each agent's interval by its own fewest runs per task (SPR's interval is the same
    bits alone as beside IRIS), yet the paragraph said "with c = 5 the fewest runs in a task" of all 9 agents, and
    the studentised one "c the fewest runs in a task": for SPR c was 100, not 5."""
    kw = dict(normalize=REFERENCE, rng=0, progress=False, n_resamples=200, metrics=["iqm"])
    both = atari[atari.agent.isin(["SPR", "IRIS"])]
    res = rlstats.bootstrap(both, "score ~ agent | task", interval="expanded", **kw)
    alone = rlstats.bootstrap(atari[atari.agent == "SPR"], "score ~ agent | task", interval="expanded", **kw)
    spr = res.tidy().set_index("agent").loc["SPR", ["conf_low", "conf_high"]].to_numpy(float)
    np.testing.assert_array_equal(spr, alone.tidy()[["conf_low", "conf_high"]].to_numpy(float)[0])
    fewest = both.groupby(["agent", "task"]).size().groupby("agent").min()
    assert fewest.to_dict() == {"IRIS": 5, "SPR": 100}
    text = res.report(format="text")
    assert "c = 5 the fewest" not in text
    assert "c the agent's fewest runs in a task (5 for IRIS, 100 for SPR)" in text
    assert "c = 100" in alone.report(format="text")
    student = rlstats.bootstrap(both, "score ~ agent | task", **kw).report(format="text")
    assert "c the fewest runs in a task" not in student and "c the agent's fewest runs in a task" in student


def test_small_runs_note_names_the_agents_with_few_runs(atari, mirror):
    """With IRIS (5 runs per game) beside SPR (100), the note said "5 runs per task are few for expanded intervals of
    the IQM", as if of every interval; only IRIS's rest on 5 runs (SPR's interval is the same bits alone, where no
    note is printed)."""
    kw = dict(normalize=REFERENCE, rng=0, progress=False, n_resamples=200, metrics=["iqm"], interval="expanded")
    both = rlstats.bootstrap(atari[atari.agent.isin(["SPR", "IRIS"])], "score ~ agent | task", **kw)
    alone = rlstats.bootstrap(atari[atari.agent == "SPR"], "score ~ agent | task", **kw)
    assert not any("are few for" in n for n in alone.notes)
    (note,) = [n for n in both.notes if "are few for" in n]
    assert note.startswith("5 runs per task (of IRIS) are few for expanded intervals of the IQM")
