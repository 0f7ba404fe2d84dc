"""Audit s38 (meta38): metamorphic relations on scores that sit at a cap (success fractions k/10, one agent at 1.0 on
most tasks) and on integer learning curves, whose spreads are exactly 0 in the data's units and rounding noise in
others (x 7.3, x 1e-3).

Swept (scratch, not committed; test_metamorphic's comparison of tidy(), glance(), to_dict(), the warnings and the
print, summary, Markdown and report with their numbers parsed, and to_latex()'s numbers under a change of units):
the task table (mean/Welch, median/Mann-Whitney, IQM/Brunner-Munzel per pair, Fisher-Pitman), the rank test and its
Wilcoxon post hoc against a control, the permutation test, AdaStop, the bootstrap (default and BCa), probability of
improvement (score and percentile intervals), performance profiles (runs, tasks with t bands, percentile bands),
percentiles (pbp, pbp_t, ties="mid"), the mixed model (Satterthwaite; Kenward-Roger with Holm), equivalence (IQM
aggregate; paired t without one), the signed-rank model, selection_check (Fisher-Pitman/skew-t; Welch/t), curves (IQM,
mean with expanded bands, optimality gap with compare="all", median unwidened with linear alignment), tuning's four
views on an integer sweep, the bootstrap on "minmax" -- under a row shuffle, x 1e3, x 1e-3, x 7.3, + 1000, polars and
pyarrow. Found, and fixed:

* the bootstrap's studentised IQM: the data's standard error of an agent whose winsorised runs are one value in every
  task (D: 1.0 at the cap) was read about the tasks' means of the raw runs, 0 in the data's units and about 1e-10 of
  the score x 7.3 and x 1e-3 (the root of the rounding of a variance); so the interval was withheld as "no spread to
  studentise" in the data's units and as "runs at a cap" in others, and equivalence's aggregate of every pair with D
  said "too many resamples repeat one score" or "three quarters of D's runs sit at a cap" as the units fell. Fixed:
  a task whose counted winsorised runs are one value has variance 0 (bootstrap._small_runs.StandardErrors).
* curves' effective degrees of freedom (Welch-Satterthwaite read off the resamples) of the optimality gap at steps
  where it does not vary (every run at or above gamma, or tied below it): NaN in the data's units, 3.48 and 2.47 x 7.3
  and x 1e-3, from resamples that differ by rounding alone. Fixed: deviations of the resamples within the step's tie
  tolerance (curves._kernels.step_tolerance) are 0 (curves._kernels.effective_df).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import rlstats
from conftest import quietly, simulated_curves

F = "score ~ agent | task"
NESTED = "score ~ agent | task/seed"
UNITS = (1.0, 7.3, 1e-3)


def _success():
    """4 agents x 5 tasks x 5 runs of success fractions k/10; D's runs all 1.0 on t3-t5 and all but one on t1, t2."""
    rng = np.random.default_rng(38)
    rows = []
    for ti, t in enumerate(["t1", "t2", "t3", "t4", "t5"]):
        for a, q in {"A": 0.5, "B": 0.6, "C": 0.75, "D": 0.95}.items():
            for s in range(5):
                k = 10 if a == "D" and ti >= 3 else rng.binomial(10, min(q + 0.03 * ti, 1.0))
                rows.append((a, t, s, k / 10))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _numbers_masked(notes):
    import re
    return [re.sub(r"-?\d+(\.\d+)?(e[+-]?\d+)?", "#", n) for n in notes]


def test_bootstrap_iqm_of_runs_winsorised_to_one_value_in_any_units():
    """D's IQM winsorises every task's runs to 1.0: its data's standard error is 0 in any units (it was 1.1e-10 and
    5.1e-11 of the score x 1e-3 and x 7.3), and the bootstrap's and equivalence's notes say the same of it."""
    df = _success()
    notes, equivalence = [], []
    for c in UNITS:
        scaled = df.assign(score=df["score"] * c)
        result = quietly(rlstats.bootstrap, scaled, F, metrics=("iqm", "mean"), n_resamples=100, rng=1)
        assert result.standard_errors[3, 0] == 0.0, c
        assert np.isnan(result.intervals[3, 0]).all()
        notes.append(_numbers_masked(result.notes))
        pair = quietly(rlstats.equivalence, scaled[scaled["agent"].isin(["C", "D"])], F, margin=0.1 * c,
                       n_resamples=100, rng=1)
        equivalence.append([n for n in pair.notes if n.startswith("the aggregate (IQM) difference")])
    assert notes[1] == notes[2] == notes[0]
    assert any(n.startswith("studentized intervals withheld for the IQM of D; the mean of D: three quarters or more "
                            "of the agent's runs sit at a task's largest or smallest score") for n in notes[0])
    assert equivalence[1] == equivalence[2] == equivalence[0] != []
    assert equivalence[0][0].startswith("the aggregate (IQM) difference is withheld for C vs D: D's runs: three "
                                        "quarters or more of them sit at")


def _integer_curves():
    df = simulated_curves(tasks=2, steps=5)
    df["score"] = np.round(df["score"])  # task_02's runs 0 or 1 (below gamma), task_01's 54-68 (above it)
    return df


def test_curves_gap_df_of_steps_without_spread_in_any_units():
    """From step 250k every run of task_02 scores 1 and every run of task_01 is above gamma: each agent's optimality
    gap is one value in every resample, and its effective df NaN in any units (x 7.3: 3.48, x 1e-3: 3.48 and 2.47)."""
    df = _integer_curves()
    dfs = []
    for c in UNITS:
        result = quietly(rlstats.curves, df.assign(score=df["score"] * c), NESTED, step="step",
                         statistic="optimality_gap", gamma=30 * c, n_resamples=100, rng=1)
        dfs.append(np.asarray(result.df))
    assert np.isnan(dfs[0][:, 1:]).all()
    for other in dfs[1:]:
        np.testing.assert_array_equal(np.isnan(other), np.isnan(dfs[0]))
        np.testing.assert_allclose(other, dfs[0], rtol=1e-9)
