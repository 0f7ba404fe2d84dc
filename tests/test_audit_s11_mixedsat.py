"""Audit s11 (mixedsat): mixed()'s pairwise contrasts on saturated runs.

The default contrasts (Satterthwaite df, Tukey) missed on the grid's saturated scores with agents apart (0.63-0.90,
``tests/test_audit_s10_saturated.py``). Candidates measured (``tests/reference/coverage_mixed_saturated.py``):
per-agent residual variances with Welch-Satterthwaite df, per-pair differences of cell means (df T - 1), and
withholding the pairs of a saturated agent, the others' from the model refitted without it. Only the last held; it
is the default now. These tests check the rule, its note, the refit against a closed form, and that nothing changes
on unsaturated runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from conftest import capped_normal_frame
from rlstats.design import design_of
from rlstats.methods.mixed._api import saturated_agents


def _capped_frame(seed=0, tasks=5, runs=3):
    """A and B vary (task x agent effects of sd 1, runs of sd 0.2); C and D sit at the cap 10 in all runs but one."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(tasks):
        offset = rng.normal(0, 2)
        for agent, shift in (("A", 0.0), ("B", 0.7)):
            cell = offset + shift + rng.normal(0, 1)
            rows += [(agent, f"t{t}", r, cell + rng.normal(0, 0.2)) for r in range(runs)]
        for agent in ("C", "D"):
            rows += [(agent, f"t{t}", r, 10.0) for r in range(runs)]
    frame = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    frame.loc[(frame["agent"] == "C") & (frame["task"] == "t0") & (frame["seed"] == 0), "score"] = 9.0
    frame.loc[(frame["agent"] == "D") & (frame["task"] == "t1") & (frame["seed"] == 0), "score"] = 9.5
    return frame


def test_pairs_of_saturated_agents_are_withheld_with_a_note():
    """C and D sit at the cap in 14 of their 15 runs: every pair of theirs loses its test and interval (the estimate,
    the model's SE and df stay), and the note names them, says why and quotes what was measured."""
    res = rlstats.mixed(_capped_frame(), "score ~ agent | task/seed")
    table = res.tidy().set_index(["agent_1", "agent_2"])
    withheld = [("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]
    for column in ("statistic", "p_value", "p_adjusted", "conf_low", "conf_high"):
        assert table.loc[withheld, column].isna().all()
        assert np.isfinite(table.loc[("A", "B"), column])
    assert not table.loc[withheld, "significant"].any()
    assert np.isfinite(table[["estimate", "std_error", "df"]].to_numpy()).all()
    np.testing.assert_allclose(table.loc[("C", "D"), "estimate"], (-1.0 + 0.5) / 15, rtol=1e-9)
    note = next(n for n in res.notes if n.startswith("pairwise tests and intervals withheld"))
    assert "every pair of C, D" in note and "fewer than 12 are off it" in note and "0.63-0.90" in note
    assert "the tests and intervals of the other 1 pair come from the model fitted to the other agents alone" in note
    assert "withheld" in str(res)


def test_the_pairs_left_come_from_the_refit_a_paired_t_test_by_task():
    """The pair left (A, B) is the model fitted to A and B alone: for two agents in a balanced design with both
    variance components positive, its contrast's variance is that of the task-wise differences of cell means over
    the tasks (SE = sd(d_t) / sqrt(T)), its Satterthwaite df T - 1, and Tukey's family of one pair is the t test;
    so p and the interval are a one-sample t test of d_t (scipy), the closed form checked here."""
    frame = _capped_frame()
    res = rlstats.mixed(frame, "score ~ agent | task/seed")
    row = res.tidy().query("agent_1 == 'A' and agent_2 == 'B'").iloc[0]
    cells = frame[frame["agent"].isin(["A", "B"])].groupby(["task", "agent"])["score"].mean().unstack()
    d = (cells["A"] - cells["B"]).to_numpy()
    test = stats.ttest_1samp(d, 0.0)
    np.testing.assert_allclose(row["std_error"], d.std(ddof=1) / np.sqrt(d.size), rtol=1e-6)
    np.testing.assert_allclose(row["df"], d.size - 1, rtol=1e-6)
    np.testing.assert_allclose(row["p_adjusted"], test.pvalue, rtol=1e-6)
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
    np.testing.assert_allclose([row["conf_low"], row["conf_high"]], [d.mean() - half, d.mean() + half], rtol=1e-6)
    # the same numbers as the model of A and B on their own
    alone = rlstats.mixed(frame[frame["agent"].isin(["A", "B"])], "score ~ agent | task/seed").tidy().iloc[0]
    for column in ("std_error", "df", "statistic", "p_adjusted", "conf_low", "conf_high"):
        np.testing.assert_allclose(row[column], alone[column], rtol=1e-9)


def test_the_rule_ignores_units_and_row_order():
    """Scores times 1000 and rows shuffled: the same pairs withheld, the same t, df and p, intervals times 1000."""
    frame = _capped_frame()
    res = rlstats.mixed(frame, "score ~ agent | task/seed").tidy()
    moved = frame.sample(frac=1.0, random_state=3).assign(score=lambda f: f["score"] * 1000.0)
    again = rlstats.mixed(moved, "score ~ agent | task/seed").tidy()
    pd.testing.assert_frame_equal(res[["agent_1", "agent_2"]], again[["agent_1", "agent_2"]])
    for column in ("statistic", "df", "p_adjusted"):
        np.testing.assert_allclose(again[column], res[column], rtol=1e-9, equal_nan=True)
    np.testing.assert_allclose(again[["conf_low", "conf_high"]], res[["conf_low", "conf_high"]] * 1000.0, rtol=1e-9,
                               equal_nan=True)


def test_unsaturated_runs_keep_their_contrasts():
    """Normal runs and capped ones (a third at the ceiling) keep the pairs' SE, df, adjusted p and intervals they had
    before the rule (recorded with the code before it; 1e-6 relative, as test_audit_s10_saturated compares)."""
    before = {None: [[0.315904791852, 37.999999999965, 0.992458725504, -0.807457527795, 0.733416154852],
                     [0.315904791852, 37.999999999965, 0.269725425528, -1.26720917947, 0.273664503177],
                     [0.315904791852, 37.999999999965, 0.323515594604, -1.230188492999, 0.310685189649]],
              0.4307272992954576: [[0.205144896176, 37.999999999951, 0.803454563243, -0.629987327158, 0.370638113798],
                                   [0.205144896176, 37.999999999951, 0.300442205363, -0.808846972083, 0.191778468874],
                                   [0.205144896176, 37.999999999951, 0.661087093748, -0.679172365403,
                                    0.321453075554]]}
    for cap, numbers in before.items():
        frame = capped_normal_frame(cap, 5, runs=3, agents=3, spread=1.0, seeds=True)
        res = rlstats.mixed(frame, "score ~ agent | task/seed")
        got = res.tidy()[["std_error", "df", "p_adjusted", "conf_low", "conf_high"]].to_numpy()
        np.testing.assert_allclose(got, numbers, rtol=1e-6, atol=1e-12)
        assert not any("withheld" in note for note in res.notes)


def test_one_run_per_cell_the_best_agent_is_not_at_a_cap():
    """With one run per cell the best agent of every task holds the task's largest score in all its runs; without a
    second run at that score it is no cap (``bound_ties(tied_only=True)``), so nothing is withheld. Success rates at
    1.0 shared by two agents are a cap: those two agents' pairs are withheld."""
    rng = np.random.default_rng(1)
    scores = rng.standard_normal((6, 3)) + np.array([0.0, 0.5, 3.0])
    frame = pd.DataFrame({"task": np.repeat([f"t{i}" for i in range(6)], 3), "agent": list("ABC") * 6,
                          "score": scores.ravel()})
    design = design_of(frame, "score ~ agent | task")
    assert not saturated_agents(design).any()
    res = rlstats.mixed(frame, "score ~ agent | task")
    assert np.isfinite(res.tidy()["p_adjusted"]).all()
    rates = frame.assign(score=np.where(frame["agent"] == "A", rng.uniform(0.2, 0.6, 18), 1.0))
    rates.loc[(rates["agent"] == "B") & (rates["task"] == "t0"), "score"] = 0.9
    assert saturated_agents(design_of(rates, "score ~ agent | task")).tolist() == [False, True, True]


@pytest.mark.slow
def test_families_given_on_saturated_runs_hold():
    """The families mixed() gives on the grid's saturated runs (agents 0 to 1 noise units apart) hold: at 3 agents x
    26 tasks x 20 runs, where pairs are given in every data set (62% of the pairs), 93 of 100 held (audit s11); here
    20 of those data sets (5 a design draw)."""
    import pathlib
    import runpy

    script = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_mixed_saturated.py"))
    held, given, total, share = script["measure_default"](3, 26, 20, "saturated", "spread 0 to 1", 5)
    assert total == 20 and given >= 15 and held / given >= 0.85 and 0.3 < share < 1
