"""Audit s25 (realdata25): practical equivalence (TOST and the Bayesian ROPE), read_logs on the real
Stable-Baselines3 and marl-eval logs, and the performance percentiles' PBP intervals, on the published scores at the
designs users have (1 to 26 tasks, 3 to 100 runs a cell, up to 8 agents, subsets made with pandas). Each printed
sentence was read against the rows analysed and the numbers checked against an independent computation. Tests
reading the published scores or the logs skip with the reason when they are not here."""

from __future__ import annotations

import pytest

import rlstats


def _pong_three_runs(atari):
    """CURL and DrQ(eps) on Pong alone, the first 3 runs of each (raw scores)."""
    return atari[atari.agent.isin(["CURL", "DrQ(eps)"]) & (atari.task == "Pong") & (atari.seed < 3)]


# ----------------------------------------------------------------------------- equivalence: what is left to read

@pytest.mark.xfail(strict=True, reason="the aggregate's withheld note sends the reader to the across-tasks test, "
                                       "which one task withholds too")
def test_equivalence_one_task_points_only_at_tests_given(atari):
    res = rlstats.equivalence(_pong_three_runs(atari), "score ~ agent | task", margin=5, rng=1)
    note = next(n for n in res.notes if n.startswith("the aggregate (IQM) difference is withheld"))
    assert "across-tasks" not in note
