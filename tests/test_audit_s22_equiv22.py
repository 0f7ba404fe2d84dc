"""Audit s22 (equiv22): equivalence tests on real data with unequal runs, and the percentiles' count of pairs.

The size of the equivalence tests at the margin with the two agents' runs unequal (a few runs against a baseline's
many) is measured by ``tests/reference/size_equivalence_unbalanced.py``; the calibration table's rows are of equal runs.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import script_module

FORMULA = "score ~ agent | task"
GAMES = ["Alien", "Boxing", "Pong", "Breakout", "Kangaroo"]
REFERENCE = Path(__file__).parent / "reference"


@pytest.fixture
def drq_iris(atari):
    """DrQ(eps) (100 runs a game) and IRIS (5 runs) on five games: a reproduction's few runs against many."""
    return atari[atari["agent"].isin(["DrQ(eps)", "IRIS"]) & atari["task"].isin(GAMES)].reset_index(drop=True)


def test_unequal_runs_quote_their_measured_size(drq_iris):
    """5 runs of IRIS against 100 of DrQ(eps) a game: the table's rows are of equal runs, and the note quotes the size
    measured with unequal runs (tests/reference/size_equivalence_unbalanced.py; before audit s22 nothing was said)."""
    res = rlstats.equivalence(drq_iris, FORMULA, margin=0.1, normalize="atari100k_reference", aggregate=None)
    notes = [n for n in res.notes if n.startswith("runs differing in number")]
    assert len(notes) == 1
    assert notes[0].startswith("runs differing in number: DrQ(eps) vs IRIS (100 vs 5 runs on 5 of 5 tasks); ")
    assert ("the per-task test in up to 0.16 (skewed scores, 5 vs 100 runs) and the across-tasks test in up to 0.13 "
            "(skewed scores, 5 tasks, 3 vs 100 runs) declared equivalence (capped scores: the per-task test at most "
            "0.023 (100 vs 10 runs), within alpha; the across-tasks test up to 0.076 (5 tasks, 100 vs 5 runs);") in notes[0]
    assert "bootstrap-t" not in notes[0]  # no aggregate row was given
    res = rlstats.equivalence(drq_iris, FORMULA, margin=0.1, normalize="atari100k_reference", rng=0, progress=False)
    note, = [n for n in res.notes if n.startswith("runs differing in number")]
    assert note.endswith("; the IQM's bootstrap-t (the aggregate) held alpha there in a reduced measurement (5 tasks, "
                         "skewed scores, 5 vs 100 runs: 0.024-0.028 of 250 simulated tests); add runs to the agent "
                         "with fewer")
    # non-inferiority quotes its own numbers; across='paired_t' was not measured, so only the per-task test is quoted
    res = rlstats.equivalence(drq_iris, FORMULA, margin=0.1, normalize="atari100k_reference", aggregate=None,
                              alternative="noninferior", control="IRIS", across="paired_t")
    note, = [n for n in res.notes if n.startswith("runs differing in number")]
    assert ("the per-task test in up to 0.21 (skewed scores, 100 runs of agent_1 against 3 of agent_2) declared "
            "non-inferiority (capped scores: the per-task test up to 0.095 (3 runs of agent_1 against 100 of "
            "agent_2);") in note
    assert "across-tasks test in" not in note


def test_unequal_runs_note_only_where_runs_differ_twofold(drq_iris):
    """Equal runs (5 of DrQ(eps) a game against IRIS's 5), or 9 against 5: no note; a published table of 100 runs a
    task against 5: the note, naming the pair as printed."""
    five = drq_iris[(drq_iris["agent"] == "IRIS") | (drq_iris["seed"] < 5)]
    res = rlstats.equivalence(five, FORMULA, margin=0.1, normalize="atari100k_reference", aggregate=None)
    assert res.counts.min() == res.counts.max() == 5
    assert not [n for n in res.notes if n.startswith("runs differing in number")]
    nine = drq_iris[(drq_iris["agent"] == "IRIS") | (drq_iris["seed"] < 9)]
    res = rlstats.equivalence(nine, FORMULA, margin=0.1, normalize="atari100k_reference", aggregate=None)
    assert not [n for n in res.notes if n.startswith("runs differing in number")]
    iris = drq_iris[drq_iris["agent"] == "IRIS"]
    table = (drq_iris[drq_iris["agent"] == "DrQ(eps)"].groupby("task")["score"]
             .agg(mean="mean", sd="std", n="size").reset_index())
    res = rlstats.equivalence(iris, FORMULA, margin=50.0, published=table, normalize=False)
    note, = [n for n in res.notes if n.startswith("runs differing in number")]
    assert note.startswith("runs differing in number: IRIS vs published (5 vs 100 runs on 5 of 5 tasks); ")


def test_reference_rows_measure_the_miss():
    """A reduced run of the reference script's rows: per task on skewed scores, TOST at +margin declares equivalence
    in far more than alpha with 5 runs against 100 (0.1605 in the full script's 20,000 data sets) and not with 3 against
    3 (0.0076)."""
    module = script_module(REFERENCE / "size_equivalence_unbalanced.py", "size_equivalence_unbalanced")
    rng = np.random.default_rng(5)
    unequal = module.declared("skewed", (5, 100), 1, 4000, rng)
    equal = module.declared("skewed", (3, 3), 1, 4000, rng)
    assert unequal["tost +margin"] == pytest.approx(0.16, abs=0.02)  # SE at 0.16 and 4,000: 0.006
    assert unequal["tost -margin"] < 0.01
    assert equal["tost +margin"] < 0.02 and equal["noninferior -margin"] < 0.05


def _withheld_design():
    """3 agents x 2 tasks: A and B 400 runs a cell, C one run a cell (its bootstrap interval withheld)."""
    rng = np.random.default_rng(3)
    rows = [(a, t, r, loc + rng.normal()) for t in ("t0", "t1") for a, loc, n in (("A", 0.0, 400), ("B", 5.0, 400),
                                                                                  ("C", 10.0, 1))
            for r in range(n)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "score"])


def test_pairs_counted_where_intervals_are_shown():
    """C's bootstrap interval is withheld (one run a cell): the prose said "1 of 3 pairs is resolved", counting the two
    pairs with C that nothing judged, where PBP's note counts the pairs whose intervals are both shown; both now count
    those and say how many were not judged."""
    res = rlstats.percentiles(_withheld_design(), FORMULA, interval="bootstrap", n_resamples=500, rng=0,
                              progress=False)
    assert np.isnan(res.conf_low[2]) and np.isfinite(res.conf_low[:2]).all()
    assert res.conf_low[1] > res.conf_high[0]  # B above A: the one pair shown, resolved
    sentence = res._separation_sentence()  # report() writes it for LaTeX (B $>$ A)
    assert sentence == ("1 of the 1 pair whose intervals are both shown is resolved (lower bound above the other's "
                        "upper bound): B > A; the 2 pairs with C, whose interval is withheld, are not judged.")
    assert "the 2 pairs with C, whose interval is withheld, are not judged." in res.report()
    assert "of 3 pairs" not in res.report()
    from rlstats.methods.percentiles import _api
    clause = _api._separation_clause(res.conf_low, res.conf_high)
    assert clause == (": they separate the one pair whose intervals are both shown here (2 pairs with an interval "
                      "withheld are not judged); agents closer together need more runs per cell to be separated")
    # none shown separated, and every interval withheld
    low, high = np.array([0.1, 0.2, np.nan]), np.array([0.5, 0.6, np.nan])
    assert _api._separation_clause(low, high).startswith(
        ": they do not separate the one pair whose intervals are both shown here (2 pairs with an interval withheld "
        "are not judged); PBP needs")


def test_pairs_counted_where_every_interval_is_withheld():
    """Every run of every task ties: PBP's intervals are all withheld (one point each); the prose said "No agent's
    interval lies above another's" of intervals it did not show."""
    rows = [(a, t, r, 1.0) for t in ("t0", "t1") for a in "ABC" for r in range(3)]
    res = rlstats.percentiles(pd.DataFrame(rows, columns=["agent", "task", "run", "score"]), FORMULA)
    assert np.isnan(res.conf_low).all()
    assert ("No pair has both intervals shown, so no pair is resolved: the 3 pairs with A, B, C, whose intervals are "
            "withheld, are not judged.") in res.report()
