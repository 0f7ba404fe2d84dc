"""Audit s7c: printed results of curves, normalisers, log readers, power, tuning views, profiles and the CLI checked
against the rows they analysed. Each test is a minimal reproducer of one defect found, marked xfail(strict=True)
until it is fixed: what a result says that is not true of its rows, an invariance that breaks, a silent change, or
a crash with a non-rlstats error.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats


def _curves_frame(runs=5, tasks=("t1", "t2"), last=90, seed=3):
    """Two agents, every run logged at steps 0, 10, ..., ``last``; B 5 points above A."""
    rng = np.random.default_rng(seed)
    rows = [(agent, task, r, s, float(s) + rng.normal() * 5 + shift)
            for agent, shift in (("A", 0.0), ("B", 5.0)) for task in tasks for r in range(runs)
            for s in range(0, last + 1, 10)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "step", "score"])


def test_curves_withholding_reason_is_true_at_steps_past_every_run():
    df = _curves_frame()
    res = rlstats.curves(df, "score ~ agent | task/run", step="step", steps=[0, 50, 100, 150], n_resamples=200,
                         rng=1, progress=False)
    assert not any("repeat one run in every task" in note for note in res.notes)


@pytest.mark.xfail(strict=True, reason=(
    "normalize() with an infinite reference bound (human = inf for task 'x'): every score of the task is silently "
    "normalised to 0.0, where a NaN bound is a DesignError and a zero range is refused; cause: _bounds "
    "(rlstats/normalization.py:213-222) checks NaN and empty ranges but not infinite bounds"))
def test_normalize_refuses_an_infinite_reference_bound():
    df = pd.DataFrame({"agent": ["A", "A", "B", "B"], "task": ["x", "y", "x", "y"], "score": [1.0, 2.0, 3.0, 4.0]})
    ref = pd.DataFrame({"task": ["x", "y"], "random": [0.0, 0.0], "human": [np.inf, 10.0]})
    with pytest.raises(rlstats.errors.DesignError):
        rlstats.normalize(df, ref)


@pytest.mark.xfail(strict=True, reason=(
    "align_steps(steps=[[1, 2], [3, 4]]): a 2-D steps= is silently flattened into the grid 1, 2, 3, 4 (its note "
    "says 'a grid of 4 steps from 1 to 4'), where performance_profile's tau= of that shape is an OptionError; "
    "cause: .ravel() in the steps= check (rlstats/runs.py:322)"))
def test_align_steps_refuses_a_two_dimensional_grid():
    df = _curves_frame(runs=3, tasks=("t1",))
    with pytest.raises(rlstats.errors.OptionError):
        rlstats.align_steps(df, "score ~ agent | task/run", step="step", steps=[[10, 20], [30, 40]])


def _peaked_frame():
    """Two agents x 3 runs logged at steps 0, 10, ..., 90 with score = step, except 100 at step 30."""
    rows = [(agent, "t", r, s, 100.0 if s == 30 else float(s)) for agent in "AB" for r in range(3)
            for s in range(0, 100, 10)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "step", "score"])


@pytest.mark.xfail(strict=True, reason=(
    "summarize_runs(how='max', steps=[0, 50]) says 'the largest value of each run (steps 0 to 50 ...)' and gives "
    "50, but each run logged 100 at step 30: the maximum is taken over the grid's aligned values only; cause: with "
    "steps= every summary reads the aligned grid row (rlstats/runs.py:639-660) while _summary_text "
    "(rlstats/runs.py:536) describes the run's logged values"))
def test_summarize_runs_max_with_steps_is_the_largest_logged_value_in_range():
    res = rlstats.summarize_runs(_peaked_frame(), "score ~ agent | task/run", step="step", how="max", steps=[0, 50])
    assert any("the largest value of each run (steps 0 to 50" in note for note in res.attrs["rlstats_notes"])
    assert (res["score"] == 100.0).all()


@pytest.mark.xfail(strict=True, reason=(
    "summarize_runs(how='last_k_mean', k=2, steps=[0, 50]) says 'the mean of each run's last 2 logged values, a "
    "window ending at the run's last logged step (every run ends at step 50)' and gives 25 = mean(value at 0, value "
    "at 50), but the last 2 logged values up to step 50 are 40 and 50 (mean 45) and every run was logged to step "
    "90; cause: the grid row stands for the run (rlstats/runs.py:639-660), the note (rlstats/runs.py:530-534) says "
    "logged values"))
def test_summarize_runs_last_k_mean_with_steps_is_what_its_note_says():
    df = _peaked_frame()
    df["score"] = df["step"].astype(float)
    res = rlstats.summarize_runs(df, "score ~ agent | task/run", step="step", how="last_k_mean", k=2, steps=[0, 50])
    note = [n for n in res.attrs["rlstats_notes"] if "last 2 logged values" in n]
    assert not note or (res["score"] == 45.0).all()


@pytest.mark.xfail(strict=True, reason=(
    "power('permutation', seeds=[3], n_sim=3): the relayed warning says it was 'raised by 4 method calls on the "
    "simulated data sets', but 3 data sets were simulated (tidy n_sim = n_tests = 3); cause: _evaluate "
    "(rlstats/planning/_api.py:462-470) adds the dry run's warnings (the first data set, run again in the blocks) "
    "to the blocks' counts"))
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


@pytest.mark.xfail(strict=True, reason=(
    "performance_profile on raw scores of tasks whose scales differ 100-fold: one tau is compared with both tasks' "
    "scores and the fractions averaged over tasks, silently, where bootstrap() on the same frame warns 'scores of 2 "
    "tasks are aggregated on their own scales'; cause: performance_profile (rlstats/methods/bootstrap/_api.py:1076) "
    "never calls warn_raw_scales (rlstats/normalization.py:478)"))
def test_performance_profile_warns_of_raw_scales_like_bootstrap():
    with pytest.warns(rlstats.errors.RlstatsWarning, match="aggregated on their own scales"):
        rlstats.performance_profile(_two_scales(), "score ~ agent | task", progress=False, rng=1)


@pytest.mark.xfail(strict=True, reason=(
    "tuning(views=['expected_max']) prints the expected best score 'on (mean over tasks)' of raw scores of tasks "
    "whose scales differ 100-fold, silently, where bootstrap() on such a frame warns 'scores of 2 tasks are "
    "aggregated on their own scales'; cause: tuning (rlstats/methods/tuning/_api.py:252, design_of) never calls "
    "warn_raw_scales (rlstats/normalization.py:478)"))
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


@pytest.mark.xfail(strict=True, reason=(
    "align_steps(na_action='drop') with 3 missing scores inside runs: the note says '3 of 80 rows dropped' but the "
    "aligned frame still has 80 rows, the 3 dropped steps filled with the value of the step before (run 0 of A "
    "has its missing steps 50 and 60 filled with its step-40 score), and no note counts the filled cells; cause: "
    "the dropped rows leave gaps inside the runs' logged ranges, which align (rlstats/runs.py:417 onwards, "
    "method='last') fills like any grid step between logged steps"))
def test_align_steps_does_not_fill_dropped_missing_scores_silently():
    df = _curves_frame(runs=4, tasks=("t1",))
    df.loc[[5, 6, 17], "score"] = np.nan
    out = rlstats.align_steps(df, "score ~ agent | task/run", step="step", na_action="drop")
    filled = out[(out["agent"] == "A") & (out["run"] == 0) & out["step"].isin([50, 60])]["score"]
    notes = " ".join(out.attrs["rlstats_notes"])
    assert filled.isna().all() or ("filled" in notes or "carried" in notes)
