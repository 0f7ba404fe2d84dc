"""Audit s22 (review22a): review of the session's merged changes.

The equivalence note on runs differing in number quotes tests/reference/size_equivalence_unbalanced.py; its rows
(seed 22, 20,000 data sets a per-task row, 4,000 an across-tasks row) are what these tests check the note against.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats

FORMULA = "score ~ agent | task"


def _runs(counts, seed=0):
    """Lognormal (skewed) scores of agents A and B with ``counts`` = {(agent, task): runs}."""
    rng = np.random.default_rng(seed)
    rows = [(a, t, r, float(rng.lognormal())) for (a, t), n in counts.items() for r in range(n)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _unequal_note(frame, **options):
    options = {"control": "B", **options}  # the pair (A, B): non-inferiority names its reference (audit s35)
    res = rlstats.equivalence(frame, FORMULA, margin=0.5, aggregate=None, normalize=False, **options)
    return [n for n in res.notes if n.startswith("runs differing in number")]


def test_equivalence_note_from_the_measured_imbalance():
    """Equivalence at 2x runs (10 vs 5) held alpha in the reference rows (5 vs 10: skewed 0.020, capped 0.0018; the
    note said 'comes too easily'); from 4x (20 vs 5: skewed 0.056) the note. Non-inferiority from 2x (capped, 5 vs 10:
    0.070)."""
    assert _unequal_note(_runs({("A", "t0"): 10, ("B", "t0"): 5})) == []
    assert _unequal_note(_runs({("A", "t0"): 19, ("B", "t0"): 5})) == []
    note, = _unequal_note(_runs({("A", "t0"): 20, ("B", "t0"): 5}))
    assert note.startswith("runs differing in number: A vs B (20 vs 5 runs on 1 of 1 task); ")
    assert "with one agent's runs 4 or more times the other's" in note
    note, = _unequal_note(_runs({("A", "t0"): 10, ("B", "t0"): 5}), alternative="noninferior")
    assert "with one agent's runs 2 or more times the other's" in note
    assert ("the per-task test in up to 0.21 (skewed scores, 100 runs of agent_1 against 3 of agent_2) declared "
            "non-inferiority (capped scores: the per-task test up to 0.095 (3 runs of agent_1 against 100 of "
            "agent_2); normal and heavy-tailed scores at most 0.01 above alpha; ") in note
    assert "'non-inferior' there comes too easily on skewed or capped scores; add runs" in note


def test_equivalence_note_per_task_capped_clause():
    """One task (no across-tasks test): the note quoted the across-tasks test's capped size (0.076) and said equivalence
    comes too easily on capped scores, where the per-task TOST held alpha (0.023 at most, 100 vs 10 runs)."""
    note, = _unequal_note(_runs({("A", "t0"): 20, ("B", "t0"): 5}))
    assert "across-tasks" not in note
    assert ("the per-task test in up to 0.16 (skewed scores, 5 vs 100 runs) declared equivalence (capped scores: the "
            "per-task test at most 0.023 (100 vs 10 runs), within alpha; normal and heavy-tailed scores at most 0.01 "
            "above alpha; tests/reference/size_equivalence_unbalanced.py), so 'equivalent' there comes too easily on "
            "skewed scores; add runs") in note
    # five tasks at 4x: the across-tasks test too, whose capped size missed
    note, = _unequal_note(_runs({(a, f"t{i}"): 20 if a == "A" else 5 for a in "AB" for i in range(5)}))
    assert ("(capped scores: the per-task test at most 0.023 (100 vs 10 runs), within alpha; the across-tasks test up "
            "to 0.076 (5 tasks, 100 vs 5 runs); ") in note
    assert "comes too easily on skewed or capped scores" in note


def test_unequal_constants_from_the_reference_rows():
    """A reduced run of size_equivalence_unbalanced.py (4,000 data sets a row, SE 0.0034 at 0.05) reproduces what the
    ratios rest on: equivalence at 5 vs 10 within alpha (full rows: skewed 0.020, capped 0.0018), non-inferiority at
    5 vs 10 on capped scores above it (0.070), per-task TOST on capped scores within alpha at 100 vs 10 (0.023)."""
    from pathlib import Path

    from conftest import script_module

    module = script_module(Path(__file__).parent / "reference" / "size_equivalence_unbalanced.py",
                           "size_equivalence_unbalanced")
    rng = np.random.default_rng(7)
    skewed = module.declared("skewed", (5, 10), 1, 4000, rng)
    capped = module.declared("capped", (5, 10), 1, 4000, rng)
    assert max(skewed["tost +margin"], skewed["tost -margin"]) == pytest.approx(0.020, abs=0.01)
    assert max(capped["tost +margin"], capped["tost -margin"]) < 0.01
    assert capped["noninferior -margin"] == pytest.approx(0.070, abs=0.012)
    capped = module.declared("capped", (100, 10), 1, 4000, rng)
    assert capped["tost +margin"] == pytest.approx(0.023, abs=0.01)


def _sensitivity_not_computed():
    """Agent a tuned on t0 only, b on t1 only, percentiles=None: sensitivity is asked for (by default) and left out."""
    rng = np.random.default_rng(0)
    rows = [(a, t, lr, s, float(rng.normal(lr, 1))) for a, t in (("a", "t0"), ("b", "t1")) for lr in (0.1, 0.2, 0.3)
            for s in range(3)]
    frame = pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])
    return rlstats.tuning(frame, "score ~ agent | task/seed", config="lr", rng=0, progress=False, n_resamples=200,
                          percentiles=None)


def test_not_computed_view_quotes_its_reason():
    """The error quoted the first note starting with the view's name ('sensitivity: the scores were used as given
    (percentiles=None), not percentile-normalised'), not the note that says why the view was not computed."""
    res = _sensitivity_not_computed()
    assert "sensitivity" in res.views and res.tables.get("sensitivity") is None
    with pytest.raises(rlstats.errors.OptionError) as error:
        res.sensitivity()
    assert str(error.value) == ("the sensitivity view was asked for but not computed here: sensitivity() not computed: "
                                "no agent has runs on every task with a configuration run on all of them (the notes "
                                "above say which agent lacks what)")


def _one_task_of_26(alternative):
    """5 runs of A against 100 of B on t0, 5 against 5 on the 25 other tasks."""
    counts = {(a, f"t{i}"): 100 if (a, i) == ("B", 0) else 5 for a in "AB" for i in range(26)}
    return _unequal_note(_runs(counts), alternative=alternative)


def test_across_tasks_quoted_only_where_most_tasks_differ():
    """Runs unequal on 1 of 26 tasks: the note quoted the across-tasks test's size measured with every task's runs
    unequal (0.12 for non-inferiority), where runs unequal on 1 of 26 held alpha (0.054 at most, --partial); the per-task
    test of that task is still quoted. On 13 of 26 tasks (0.070 skewed, 0.069 capped) the across-tasks test is."""
    note, = _one_task_of_26("noninferior")
    assert note.startswith("runs differing in number: A vs B (5 vs 100 runs on 1 of 26 tasks); ")
    assert "the across-tasks test" not in note
    assert "the per-task test in up to 0.21" in note
    counts = {(a, f"t{i}"): 100 if (a == "B" and i < 13) else 5 for a in "AB" for i in range(26)}
    note, = _unequal_note(_runs(counts), alternative="noninferior")
    assert note.startswith("runs differing in number: A vs B (5 vs 100 runs on 13 of 26 tasks); ")
    assert ("and the across-tasks test in up to 0.12 (skewed scores, 5 tasks, 100 runs of agent_1 against 5 of "
            "agent_2) declared non-inferiority") in note
    # across-tasks only (every per-task interval withheld would leave it alone): 12 of 26 is below half
    counts = {(a, f"t{i}"): 100 if (a == "B" and i < 12) else 5 for a in "AB" for i in range(26)}
    assert "the across-tasks test" not in _unequal_note(_runs(counts), alternative="noninferior")[0]


def test_partial_rows_reproduce():
    """A reduced --partial row (1,000 data sets): 5 vs 100 runs on 1 of 5 tasks holds alpha (full row: 0.051 at most)."""
    from pathlib import Path

    from conftest import script_module

    module = script_module(Path(__file__).parent / "reference" / "size_equivalence_unbalanced.py",
                           "size_equivalence_unbalanced")
    shares = module.partial_declared("skewed", 5, 1, 1000, np.random.default_rng(3))
    assert max(shares.values()) < 0.075  # SE at 0.05 and 1,000: 0.007
    shares = module.partial_declared("skewed", 5, 5, 1000, np.random.default_rng(3))
    assert shares["tost +margin"] > 0.08  # every task unequal: 0.11-0.13 in the full rows


def test_bayes_docstring_names_the_measured_runs():
    """bayes()' docstring said a decision read at fewer than 3 runs is not measured; the signed-rank model's rows run
    from 1 run (audit s22, DECISION_RUNS)."""
    from rlstats.methods.bayes import _api

    doc = " ".join(rlstats.bayes.__doc__.split())
    runs = _api.DECISION_RUNS
    assert (f"fewer than {runs['hierarchical'][0]} (the signed-rank model: {runs['signed_rank'][0]}) or more than "
            f"{runs['hierarchical'][-1]} runs" in doc)
    assert runs == {"signed_rank": (1, 2, 3, 5, 10), "hierarchical": (3, 5, 10)}
    assert "3, 5 or 10 runs, and for the signed-rank model 1 and 2 runs too" in doc
    # the figures it quotes of those rows (it said alike agents were "never" read better or worse, true at 3-10 runs)
    from rlstats import calibration

    rates = {}
    for r in calibration.rows("bayes.decision"):
        if r["test"] == "signed_rank" and r["runs"] in ("1", "2"):
            rates.setdefault((r["statistic"], r["configuration"]), []).append(1 - float(r["coverage"]))
    assert (min(rates["false_equivalence", "delta = rope"]), max(rates["false_equivalence", "delta = rope"])) == \
        pytest.approx((0.0125, 0.10))
    assert max(rates["false_equivalence", "delta = 1.5 rope"]) == pytest.approx(0.025)
    assert max(rates["false_difference", "delta = 0"]) == pytest.approx(0.0375)
    assert ("At 1 and 2 runs the signed-rank model read \"equivalent\" on the ROPE's edge in 0.0125-0.10, at 1.5 times "
            "it in at most 0.025, and alike agents \"better\" or \"worse\" in up to 0.0375 (capped scores, 5 tasks x 2 "
            "runs)") in doc
