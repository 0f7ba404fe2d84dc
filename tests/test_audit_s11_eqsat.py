"""Audit s11, equivalence on saturated runs: the two claims audit s10 quoted rather than fixed.

Audited: ``rlstats.equivalence(across="paired_t")`` and the aggregate's bootstrap-t (IQM) where half or more of an
agent's runs on a task sit at the pair's largest or smallest score (a cap often reached: the calibration grid's
``saturated`` family, 85% of a baseline's runs at the cap), and what ``rlstats.bayes`` prints of its credible
intervals there. The project's rule: a claim that misses its level is replaced, not only quoted; where no procedure
measured holds, it is withheld with a note.
"""

import dataclasses
import pathlib
import runpy
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import long_frame
from rlstats.design import design_of
from rlstats.methods.equivalence import _kernels

REFERENCE = pathlib.Path(__file__).parent / "reference"
SIZE = runpy.run_path(str(REFERENCE / "size_equivalence.py"))
DESIGNS = runpy.run_path(str(REFERENCE / "designs.py"))
#: the one-sided 95% Wilson bound's z (the upper end of the two-sided 90% interval)
Z = 1.6448536269514722


def _wilson_upper(off, n):
    """The one-sided 95% Wilson upper bound of a share off / n, written out (not the package's helper)."""
    p = off / n
    return (p + Z ** 2 / (2 * n) + Z * np.sqrt(p * (1 - p) / n + Z ** 2 / (4 * n ** 2))) / (1 + Z ** 2 / n)


#: three tasks of 4 runs: on t0, 3 of A's runs tie at the pair's top score 1.0 (A's runs there are saturated)
A_RUNS = np.array([[1.0, 1.0, 1.0, 0.98], [0.4775, 0.6075, 0.3675, 0.6575], [0.2725, 0.4225, 0.1725, 0.5725]])
B_RUNS = np.array([[0.9, 0.95, 1.0, 0.85], [0.4, 0.52, 0.33, 0.61], [0.25, 0.3, 0.12, 0.45]])


def _closed_form(a_runs, b_runs):
    """(plain paired-t SE, within-task floor SE) of the example, from the definitions: the plain SE is sd(d) /
    sqrt(T); the floor's is sqrt(sum_t (s_At^2 + s_Bt^2) / n) / T with A's t0 variance at least p (1 - p) d^2, p the
    Wilson bound of 1 run off the top in 4 (0.644, so 1/2), d the mean distance of the pair's t0 runs off 1.0."""
    d = a_runs.mean(axis=1) - b_runs.mean(axis=1)
    plain = d.std(ddof=1) / np.sqrt(d.size)
    off_top = np.array([0.02, 0.1, 0.05, 0.15])  # A's 0.98; B's 0.9, 0.95, 0.85 (B's 1.0 is at the top)
    p = min(_wilson_upper(1, 4), 0.5)
    floor = p * (1 - p) * off_top.mean() ** 2
    var_a, var_b = a_runs.var(axis=1, ddof=1), b_runs.var(axis=1, ddof=1)
    var_a[0] = max(var_a[0], floor)
    return plain, np.sqrt(np.sum((var_a + var_b) / 4)) / d.size


def test_paired_t_standard_error_is_bounded_by_the_runs_at_a_cap():
    """On 3 tasks whose differences of means are alike (0.07, 0.0625, 0.08) the paired t's standard error was
    0.0051, a tenth of the runs' own sampling noise (0.049), and with margin=0.1 it declared A and B equivalent,
    though on t0 A's runs sit at the cap (3 of 4; the per-task test there is withheld). Now, where a cell is
    saturated, the paired t's standard error is at least the across-tasks test's, whose variance bounds those cells'
    run variance: max(0.0051, 0.0493) on T - 1 df."""
    plain, floor = _closed_form(A_RUNS, B_RUNS)
    assert plain == pytest.approx(0.005069, abs=1e-6) and floor == pytest.approx(0.049336, abs=1e-6)
    res = rlstats.equivalence(long_frame(np.stack([A_RUNS, B_RUNS], axis=1)), "score ~ agent | task", margin=0.1,
                              aggregate=None, across="paired_t")
    across = res.tidy().query("scope == 'across tasks'").iloc[0]
    assert across["method"] == "paired t over tasks (capped runs' variance bounded)"
    assert across["std_error"] == pytest.approx(max(plain, floor), rel=1e-12) and across["df"] == 2
    assert not across["shown"]  # before: 0.0708 +- 2.92 x 0.0051 lay inside +-0.1, "equivalent"
    assert any(n.startswith("the across-tasks test of A vs B (paired t over tasks) bounds its variance") and
               "in up to 0.11" in n for n in res.notes)
    # runs off the cap everywhere: the plain paired t, bit for bit
    free = rlstats.equivalence(long_frame(np.stack([A_RUNS, B_RUNS], axis=1)[1:]), "score ~ agent | task", margin=0.1,
                               aggregate=None, across="paired_t").tidy().query("scope == 'across tasks'").iloc[0]
    # (each cell's runs summed in score order, audit s16)
    d = np.sort(A_RUNS[1:], axis=1).mean(axis=1) - np.sort(B_RUNS[1:], axis=1).mean(axis=1)
    assert free["method"] == "paired t over tasks" and free["std_error"] == d.std(ddof=1) / np.sqrt(2)


def test_paired_t_adds_the_bound_where_a_task_always_sits_at_the_cap():
    """A fourth task where every run of both agents is 1.0 (a cap always reached) contributes a difference of
    exactly 0 and nothing to the bound: the largest of the two read then missed alpha (0.098 at 5 tasks x 3 runs),
    so there the paired t's variance is the sum of the two, sd(d)^2 / T + the bound's."""
    a_runs, b_runs = np.vstack([A_RUNS, np.ones((1, 4))]), np.vstack([B_RUNS, np.ones((1, 4))])
    d = a_runs.mean(axis=1) - b_runs.mean(axis=1)
    plain = d.std(ddof=1) / 2
    _, floor3 = _closed_form(A_RUNS, B_RUNS)
    floor = floor3 * 3 / 4  # the same sum of variances over T = 4 tasks
    res = rlstats.equivalence(long_frame(np.stack([a_runs, b_runs], axis=1)), "score ~ agent | task", margin=0.1,
                              aggregate=None, across="paired_t")
    across = res.tidy().query("scope == 'across tasks'").iloc[0]
    assert across["std_error"] == pytest.approx(np.hypot(plain, floor), rel=1e-12) and across["df"] == 3


def _public_size(tasks, runs, per_draw, seed, alternative="noninferior", sign=-1.0):
    """The share of data sets of the saturated family (4 design draws) in which rlstats.equivalence(across=
    'paired_t') declared its alternative at the margin, called as a user calls it."""
    shown = []
    # one Design refilled with each data set's scores (task, then agent, then run, as _long orders them)
    design = design_of(long_frame(np.zeros((tasks, 2, runs))), "score ~ agent | task")
    for draw in range(4):
        offset, scale = DESIGNS["design_draw"](draw, tasks)
        rng = np.random.default_rng([seed, draw])
        margin = abs(SIZE["truths"]("saturated", sign, offset, scale)["mean"])
        y = SIZE["simulate"]("saturated", sign, offset, scale, runs, per_draw, rng)
        for scores in y:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # raw scales of the design draws: on purpose
                res = rlstats.equivalence(dataclasses.replace(design, y=scores.ravel()), margin=margin, aggregate=None,
                                          across="paired_t", alternative=alternative, control="B")
            shown.append(res.tidy().query("scope == 'across tasks'")["shown"].iloc[0] is True)
    return float(np.mean(shown)), len(shown)


@pytest.mark.slow
def test_paired_t_holds_alpha_on_saturated_runs():
    """At 5 tasks x 3 runs of the saturated family, the paired t over tasks declared non-inferiority at the margin
    in 0.107 of data sets (4,000; the table's row: 0.109) at alpha = 0.05; reduced here to 200 data sets through the
    public function (0.110 before the bound, 0.030 with it). Now within 3 Monte Carlo SE of alpha.

    Slow (200 public calls, 3.9 s CPU): the default run checks the same size at the same point on 1,000 data sets a
    configuration through tests/reference/size_equivalence.py (test_paired_t_size_on_a_reduced_saturated_grid[5-3],
    within 3 SE of alpha, both alternatives), whose standard error and df are the public function's on the family's
    data sets (test_the_size_module_reads_paired_t_as_the_public_function_does)."""
    size, n = _public_size(5, 3, 50, seed=111)
    assert size <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / n)


def _saturated(seed, tasks, runs, sign=-1.0):
    """(tasks, 2, runs) scores of the grid's saturated family: A at sign * 0.5, B at 0, 85% of B's runs at the cap."""
    deviation = DESIGNS["deviations"](np.random.default_rng(seed), "saturated", (tasks, 2, runs))
    return DESIGNS["scores"]("saturated", deviation, np.array([sign * 0.5, 0.0])[None, :, None])


def test_the_iqm_test_is_withheld_where_the_bootstrap_withholds_an_agents_interval_at_a_cap():
    """5 tasks x 5 runs of the saturated family: 22 of B's 25 runs sit at the cap, so rlstats.bootstrap withholds
    B's studentised IQM interval (three quarters or more at a bound, fewer than 8 runs off it), yet equivalence()
    read the same resamples and gave the aggregate test, with a note quoting its measured non-inferiority size
    0.051-0.067 (0.071-0.080 at 5 runs in three measurements of 800-1,600 data sets, in this audit). Now it is
    withheld there with a note saying why (where still given on such runs it held: at most 0.051)."""
    res = rlstats.equivalence(long_frame(_saturated(8, 5, 5)), "score ~ agent | task", margin=0.3, n_resamples=200,
                              rng=0, alternative="noninferior", control="B")
    row = res.tidy().query("scope == 'aggregate'").iloc[0]
    assert row["shown"] is None and np.isnan(row["conf_low"]) and np.isfinite(row["estimate"])
    said = [n for n in res.notes if n.startswith("the aggregate (IQM) difference is withheld for A vs B")]
    assert len(said) == 1 and "B's runs" in said[0] and "at the cap" in said[0]
    assert not any(n.startswith("the aggregate test of A vs B reads runs") for n in res.notes)


def test_the_size_module_reads_paired_t_as_the_public_function_does():
    """tests/reference/size_equivalence.py measures across='paired_t' on saturated runs on arrays
    (``interval="paired_t_bounded"``); on 12 data sets of the family (some with a task every run of both agents
    reaches) its standard error is the public function's."""
    rng = np.random.default_rng(12)
    always = 0
    for k in range(12):
        scores = _saturated(int(rng.integers(2**31)), 5, 3 if k % 2 else 5, sign=(-1.0, 1.0)[k % 3 == 0])
        mean, sd, tied, floor = SIZE["summaries"](scores[None])
        _, se, df = SIZE["_paired_bounded"](_kernels, mean, sd, tied, floor, scores.shape[-1])
        always += int((scores == scores.max(axis=(1, 2), keepdims=True)).all(axis=(1, 2)).any())
        # the margin does not enter the standard error; 0.01 keeps it inside every data set's range (0.3 was not, and
        # drew the warning that no difference could exceed it)
        across = rlstats.equivalence(long_frame(scores), "score ~ agent | task", margin=0.01, aggregate=None,
                                     across="paired_t").tidy().query("scope == 'across tasks'").iloc[0]
        assert across["std_error"] == pytest.approx(se[0], rel=1e-12, nan_ok=True) and across["df"] == df[0]
    assert always >= 2  # both branches of the bound were read


@pytest.mark.parametrize("tasks, runs", [(5, 3), (5, 5), (26, 3)])
def test_paired_t_size_on_a_reduced_saturated_grid(tasks, runs):
    """The bounded paired t at the margin, both alternatives and both margins, 250 data sets per design draw
    (1,000 a configuration, fresh seed): within 3 Monte Carlo SE of alpha (0.0207 at 1,000), and the table's new
    rows agree with this measurement; the plain paired t's rows there missed (5 x 3: 0.109, 0.11 at +margin)."""
    for configuration in SIZE["CONFIGURATIONS"]:
        point = ("paired_t_bounded", "", tasks, runs, "saturated")
        held = SIZE["held_by_draw"](*point, configuration, 250, seed=17)
        for row in SIZE["rows_of"]((*point, configuration), held):
            assert row["coverage"] >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / row["n_sim"]), (point, configuration, row)
            table = rlstats.calibration_table("equivalence.size", interval="paired_t_bounded", tasks=tasks,
                                              runs=runs, configuration=configuration, test=row["test"])
            assert len(table) == 1 and not table["misses"].iloc[0]
            assert abs(table["coverage"].iloc[0] - row["coverage"]) <= 4 * np.sqrt(0.05 * 0.95 * 2 / 1000)


@pytest.mark.parametrize("scale, shift", [(1e-6, 0.0), (250.0, -40.0)])
def test_bounded_paired_t_is_unchanged_by_units_shifts_and_row_order(scale, shift):
    """The bound reads distances off the cap and spreads, so scaling the scores scales the standard error and the
    interval, a shift moves only the task means, and shuffled rows change nothing."""
    frame = long_frame(_saturated(5, 5, 5))
    base = rlstats.equivalence(frame, "score ~ agent | task", margin=0.3, aggregate=None,
                               across="paired_t").tidy().query("scope == 'across tasks'").iloc[0]
    assert base["method"] == "paired t over tasks (capped runs' variance bounded)"
    moved = frame.assign(score=frame["score"] * scale + shift).sample(frac=1.0, random_state=3)
    other = rlstats.equivalence(moved, "score ~ agent | task", margin=0.3 * scale, aggregate=None,
                                across="paired_t").tidy().query("scope == 'across tasks'").iloc[0]
    for column in ("estimate", "std_error", "conf_low", "conf_high"):
        assert other[column] == pytest.approx(base[column] * scale, rel=1e-9), column
    assert other["p_value"] == pytest.approx(base["p_value"], rel=1e-9) and other["shown"] == base["shown"]


def test_the_plain_paired_t_is_no_longer_quoted_from_saturated_rows():
    """The size note of across='paired_t' quoted the worst row at the design, the plain paired t's on saturated
    runs (5 tasks x 3 runs: 0.868 in a draw) even for runs with no cap; those rows describe a test no longer run on
    such runs. Unsaturated runs now read the other families' rows only, saturated runs the bounded test's."""
    rows = rlstats.calibration_table("equivalence.size", interval="paired_t", distribution="saturated")
    assert len(rows) == 24 and rows["misses"].any()  # kept byte for byte
    free = long_frame(np.random.default_rng(1).normal(size=(5, 2, 3)))
    res = rlstats.equivalence(free, "score ~ agent | task", margin=0.3, aggregate=None, across="paired_t")
    assert not any("saturated scores" in n for n in res.notes)
    capped = rlstats.equivalence(long_frame(_saturated(5, 5, 3)), "score ~ agent | task", margin=0.3, aggregate=None,
                                 across="paired_t")
    assert not any(n.startswith("measured size") for n in capped.notes)


def test_the_iqm_rule_reads_the_pairs_runs_and_not_their_units_or_order():
    """The aggregate's withholding counts runs at the pair's bound: scaled (x 1e-6, shifted) and shuffled scores
    withhold it too, and a third agent C scoring above the cap on every task (so that no run of A or B is at the
    task's top over all agents, and the bootstrap's own rule, read over all agents, withholds nothing) leaves A vs
    B's test withheld: a pair's tests read the pair's runs."""
    frame = long_frame(_saturated(8, 5, 5))
    moved = frame.assign(score=frame["score"] * 1e-6 + 3.0).sample(frac=1.0, random_state=1)
    res = rlstats.equivalence(moved, "score ~ agent | task", margin=0.3e-6, n_resamples=200, rng=0)
    assert res.tidy().query("scope == 'aggregate'")["shown"].iloc[0] is None
    third = frame[frame["agent"] == "B"].assign(agent="C", score=lambda d: d["score"] + 5.0)
    res = rlstats.equivalence(pd.concat([frame, third], ignore_index=True), "score ~ agent | task", margin=0.3,
                              n_resamples=200, rng=0, control="B")
    rows = res.tidy().query("scope == 'aggregate'").set_index("agent_1")
    assert rows.loc["A", "shown"] is None
    assert any(n.startswith("the aggregate (IQM) difference is withheld for A vs B: B's runs") for n in res.notes)


@pytest.mark.slow
def test_iqm_size_on_saturated_runs_at_five_tasks():
    """The measurement behind the rule, reduced: 5 tasks x 5 runs (the design where the test given everywhere
    declared non-inferiority in 0.071-0.080 of 800-1,600), 200 data sets per design draw, fresh seed: within 3 SE."""
    held = SIZE["held_by_draw"]("bootstrap_t", "iqm", 5, 5, "saturated", "delta = -margin", 200, seed=13)
    for test in ("noninferior", "equivalence"):
        row = DESIGNS["pooled_row"](held[test], 0.95)
        assert row["coverage"] >= 0.95 - 3 * DESIGNS["binomial_se"](0.95, row["n_sim"]), (test, row)


def test_bayes_says_how_its_credible_intervals_read_on_runs_at_a_cap():
    """rlstats.bayes on runs mostly at a cap printed only the credible note's normal-score figures (0.81-0.83 at 5
    tasks, P(better) 0.09-0.10 with no difference), and at 26 tasks nothing; on the grid's saturated family (400 data
    sets a design, 3 and 10 runs) the signed-rank interval held the true mean difference in 0.62-0.81 at 5 tasks,
    0.77-0.84 at 10 and 0.89-0.94 at 26, and P(better) or P(worse) reached 0.95 with no difference in up to 0.18.
    The model is unchanged; a note now says so for the pairs whose runs mostly sit at a task's bound, at any number
    of tasks, and not elsewhere."""
    res = rlstats.bayes(long_frame(_saturated(8, 26, 3)), "score ~ agent | task/seed", n_samples=2_000, rng=0)
    said = [n for n in res.notes if "sit at the pair's largest or smallest score of the task" in n
            and "A vs B on 25 of 26 tasks (t0, t1, t10, t11 and 21 more" in n]  # audit s22: tasks named
    assert len(said) == 1 and "0.62-0.81" in said[0] and "0.89-0.94 at 26" in said[0] and "up to 0.18" in said[0]
    free = rlstats.bayes(long_frame(np.random.default_rng(1).normal(size=(26, 2, 3))), "score ~ agent | task/seed",
                         n_samples=2_000, rng=0)
    assert not any("largest or smallest score" in n for n in free.notes)


@pytest.mark.slow
def test_bayes_signed_rank_coverage_on_saturated_runs():
    """The measurement the note quotes, reduced: 5 tasks x 3 runs of the saturated family with no difference, 25 data
    sets per design draw (100): the 95% credible interval holds 0 in about 0.62 (0.615 of 400)."""
    held = 0
    for draw in range(4):
        offset, scale = DESIGNS["design_draw"](draw, 5)
        y = SIZE["simulate"]("saturated", 0.0, offset, scale, 3, 25, np.random.default_rng([29, draw]))
        for i, scores in enumerate(y):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = rlstats.bayes(long_frame(scores), "score ~ agent | task/seed", n_samples=2_000, rng=i)
                row = fit.tidy().iloc[0]
            held += row["conf_low"] <= 0.0 <= row["conf_high"]
    assert 0.45 <= held / 100 <= 0.80
