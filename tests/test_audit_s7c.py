"""Audit s7c: printed results of curves, normalisers, log readers, power, tuning views, profiles and the CLI checked
against the rows they analysed. Each test is a minimal reproducer of one defect found, kept as a regression
test now that it is fixed: what a result said that was not true of its rows, an invariance that broke, a silent
change, or a crash with a non-rlstats error.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import curves_frame

STEPS = np.arange(0, 91, 10)
#: Two agents, every run logged at steps 0, 10, ..., 90, the score step + 5 N(0, 1); B 5 points above A.
_curves_frame = partial(curves_frame, tasks=("t1", "t2"), runs=5, steps=STEPS, seed=3, trend=STEPS.astype(float),
                        scale=5.0, shift=(0.0, 5.0), run="run")


def test_curves_withholding_reason_is_true_at_steps_past_every_run():
    df = _curves_frame()
    res = rlstats.curves(df, "score ~ agent | task/run", step="step", steps=[0, 50, 100, 150], n_resamples=200,
                         rng=1, progress=False)
    assert not any("repeat one run in every task" in note for note in res.notes)


def test_normalize_refuses_an_infinite_reference_bound():
    df = pd.DataFrame({"agent": ["A", "A", "B", "B"], "task": ["x", "y", "x", "y"], "score": [1.0, 2.0, 3.0, 4.0]})
    ref = pd.DataFrame({"task": ["x", "y"], "random": [0.0, 0.0], "human": [np.inf, 10.0]})
    with pytest.raises(rlstats.errors.DesignError, match=r"infinite 'random' or 'human' score for task 'x'.*give finite bounds"):
        rlstats.normalize(df, ref)


def test_align_steps_refuses_a_two_dimensional_grid():
    df = _curves_frame(runs=3, tasks=("t1",))
    with pytest.raises(rlstats.errors.OptionError):
        rlstats.align_steps(df, "score ~ agent | task/run", step="step", steps=[[10, 20], [30, 40]])


def _peaked_frame():
    """Two agents x 3 runs logged at steps 0, 10, ..., 90 with score = step, except 100 at step 30."""
    rows = [(agent, "t", r, s, 100.0 if s == 30 else float(s)) for agent in "AB" for r in range(3)
            for s in range(0, 100, 10)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "step", "score"])


def test_summarize_runs_max_with_steps_is_the_largest_logged_value_in_range():
    res = rlstats.summarize_runs(_peaked_frame(), "score ~ agent | task/run", step="step", how="max", steps=[0, 50])
    assert any("the largest value of each run (steps 0 to 50" in note for note in res.attrs["rlstats_notes"])
    assert (res["score"] == 100.0).all()


def test_summarize_runs_last_k_mean_with_steps_is_what_its_note_says():
    df = _peaked_frame()
    df["score"] = df["step"].astype(float)
    res = rlstats.summarize_runs(df, "score ~ agent | task/run", step="step", how="last_k_mean", k=2, steps=[0, 50])
    note = [n for n in res.attrs["rlstats_notes"] if "last 2 logged values" in n]
    assert not note or (res["score"] == 45.0).all()


def test_power_warning_counts_method_calls_on_the_simulated_data_sets():
    rows = [(agent, "t", r, float(r) + (agent == "B")) for agent in "AB" for r in range(6)]
    pilot = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    with pytest.warns(rlstats.errors.RlstatsWarning) as caught:
        res = rlstats.power("permutation", design=pilot, formula="score ~ agent", seeds=[3], n_sim=3, rng=1,
                            progress=False)
    assert int(res.tidy()["n_sim"].iloc[0]) == 3
    said = [str(w.message) for w in caught if "method calls on the simulated data sets" in str(w.message)]
    assert said and all("raised by 3 method calls" in text for text in said)


def _two_scales():
    """Two agents x 2 tasks x 4 runs; task 't2' on a scale 100 times t1's."""
    rows = [(agent, task, r, (1.0 + r + (agent == "B")) * scale) for agent in "AB"
            for task, scale in (("t1", 1.0), ("t2", 100.0)) for r in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_performance_profile_warns_of_raw_scales_like_bootstrap():
    with pytest.warns(rlstats.errors.RlstatsWarning, match="aggregated on their own scales"):
        rlstats.performance_profile(_two_scales(), "score ~ agent | task", progress=False, rng=1)


def test_tuning_expected_max_mean_over_tasks_warns_of_raw_scales():
    rows = [(agent, task, c, s, (1.0 + c + s + (agent == "B")) * scale) for agent in "AB"
            for task, scale in (("t1", 1.0), ("t2", 100.0)) for c in range(3) for s in range(3)]
    df = pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])
    with pytest.warns(rlstats.errors.RlstatsWarning, match="aggregated on their own scales"):
        rlstats.tuning(df, "score ~ agent | task/seed", config="lr", views=["expected_max"], n_resamples=100, rng=1,
                       progress=False)


def test_curves_comparison_does_not_depend_on_the_order_of_the_pair():
    rng = np.random.default_rng(3)
    rows = [(agent, task, r, s, float(s) + rng.normal() * 5 + shift) for agent, shift in (("A", 0.0), ("B", 3.0))
            for task in ("t1", "t2") for r in range(5) for s in range(0, 91, 10)]
    df = pd.DataFrame(rows, columns=["agent", "task", "run", "step", "score"])
    kw = dict(step="step", n_resamples=200, rng=1, progress=False, bands="expanded")
    ab = rlstats.curves(df, "score ~ agent | task/run", compare=[("A", "B")], **kw)
    ba = rlstats.curves(df, "score ~ agent | task/run", compare=[("B", "A")], **kw)
    np.testing.assert_allclose(ab.differences, -ba.differences)
    np.testing.assert_allclose(ab.difference_pvalues, ba.difference_pvalues)


def test_align_steps_does_not_fill_dropped_missing_scores_silently():
    df = _curves_frame(runs=4, tasks=("t1",))
    df.loc[[5, 6, 17], "score"] = np.nan
    out = rlstats.align_steps(df, "score ~ agent | task/run", step="step", na_action="drop")
    filled = out[(out["agent"] == "A") & (out["run"] == 0) & out["step"].isin([50, 60])]["score"]
    notes = " ".join(out.attrs["rlstats_notes"])
    assert filled.isna().all() or ("filled" in notes or "carried" in notes)
