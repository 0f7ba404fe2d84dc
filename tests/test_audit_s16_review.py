"""Session 16 second reading of the session's merged changes (review16)."""
from __future__ import annotations

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
