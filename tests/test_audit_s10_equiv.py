"""Audit s10, equivalence on saturated scores: a default that missed its level is replaced, not only quoted.

Where half or more of an agent's runs on a task sit at the task's largest or smallest score (a cap often reached),
``rlstats.equivalence``'s per-task Welch tests declared non-inferiority in up to 0.12 and equivalence in up to 0.09 of
simulated tests at alpha = 0.05, and the across-tasks test (Welch-Satterthwaite) in up to 0.075; a note only quoted
it (audit s9). Now the per-task tests are withheld there (no variance bound tried held alpha at 5 runs), and the
across-tasks test bounds such cells' run variance from below (``rlstats.bounds.variance_floor``), withheld where both
agents' runs of a task all sit at its bound. Elsewhere every number is the former one bit for bit. The calibration
grid has a ``saturated`` family (85% of a baseline's runs at the cap), measured in the ``equivalence.size`` rows.
"""

import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from conftest import long_frame
from rlstats.methods.equivalence import _kernels

REFERENCE = pathlib.Path(__file__).parent / "reference"
SIZE = runpy.run_path(str(REFERENCE / "size_equivalence.py"))
DESIGNS = runpy.run_path(str(REFERENCE / "designs.py"))


def _saturated(rng, tasks, runs, sign=-1.0):
    """(tasks, 2, runs) scores of the grid's saturated family: A at sign * 0.5, B at 0, 85% of B's runs at the cap."""
    deviation = DESIGNS["deviations"](rng, "saturated", (tasks, 2, runs))
    return DESIGNS["scores"]("saturated", deviation, np.array([sign * 0.5, 0.0])[None, :, None])


def test_the_saturated_family_has_85_percent_of_a_baseline_at_its_cap():
    """The family added to the grid: a normal cut at its 0.15 quantile; the other families' draws are unchanged (the
    saturated family's seed index follows the four)."""
    assert stats.norm.cdf(DESIGNS["SATURATED_CAP"]) == pytest.approx(0.15, abs=1e-12)
    y = DESIGNS["scores"]("saturated", np.random.default_rng(0).standard_normal(200_000))
    assert np.mean(y == DESIGNS["SATURATED_CAP"]) == pytest.approx(0.85, abs=0.003)
    assert SIZE["DISTRIBUTIONS"][:4] == DESIGNS["DISTRIBUTIONS"] == ("normal", "skewed", "heavy_tailed", "capped")
    grid = SIZE["grid"]()  # then audit s11's 8 points of across='paired_t' bounded on the saturated family
    assert grid[:len(grid) - 44] == [p for p in grid if p[4] != "saturated"] and len(grid) - 44 == 144
    assert [p[0] for p in grid[-8:]] == ["paired_t_bounded"] * 8


def test_per_task_tests_are_withheld_where_runs_sit_at_a_cap():
    """Task t0: A's runs 3 of 5 at the task's top (tied at the cap), B free; t1 free. Before: both per-task tests
    given, with a note quoting sizes up to 0.12. Now t0's is withheld (its difference of means kept) with a note
    naming it and saying what to read instead; t1's is the plain Welch test, bit for bit."""
    scores = np.array([[[1.0, 1.0, 1.0, 0.2, 0.4], [0.9, 0.5, 0.7, 0.3, 0.8]],
                       [[0.1, 0.5, 0.3, 0.9, 0.6], [0.2, 0.4, 0.8, 0.7, 0.35]]])
    res = rlstats.equivalence(long_frame(scores), "score ~ agent | task", margin=0.3, aggregate=None)
    rows = res.tidy().set_index("task")
    assert rows.loc["t0", "shown"] is None and rows.loc["t0", "conclusion"] == "withheld"
    assert np.isnan(rows.loc["t0", "p_value"]) and rows.loc["t0", "estimate"] == pytest.approx(0.72 - 0.64)
    notes = [n for n in res.notes if n.startswith("per-task tests are withheld")]
    assert len(notes) == 1 and "t0/A vs B" in notes[0] and "t1" not in notes[0] and "two proportions" in notes[0]
    # t1: Welch's t from the kernels, unchanged
    a, b = scores[1]
    estimate, se, df = _kernels.welch(a.mean(), a.std(ddof=1), 5, b.mean(), b.std(ddof=1), 5)
    test = _kernels.tost(estimate, se, df, 0.3, 0.05)
    assert rows.loc["t1", "std_error"] == se and rows.loc["t1", "p_value"] == test["p_value"]
    assert rows.loc["t1", "conf_low"] == test["conf_low"]


def test_across_tasks_bounds_the_variance_of_runs_at_a_cap():
    """Task t0: A's 4 runs all at the task's top 3, B's [2, 2.5, 1.5, 1]; the bound of A's run variance is u (1 - u)
    d^2, u = 0.4035 the Wilson 95% upper bound of 0 runs off the cap in 4 (statsmodels' 90% two-sided interval) and
    d = 1.25 the mean distance of the task's runs off the cap. Before, A's variance was read as 0."""
    from statsmodels.stats.proportion import proportion_confint

    t1 = np.random.default_rng(2).normal(size=(2, 4))
    scores = np.stack([np.array([[3.0, 3.0, 3.0, 3.0], [2.0, 2.5, 1.5, 1.0]]), t1])
    res = rlstats.equivalence(long_frame(scores), "score ~ agent | task", margin=2.0, aggregate=None)
    across = res.tidy().query("scope == 'across tasks'").iloc[0]
    u = proportion_confint(0, 4, alpha=0.1, method="wilson")[1]
    floor = u * (1 - u) * 1.25 ** 2
    v = [floor / 4, np.var(scores[0, 1], ddof=1) / 4, np.var(t1[0], ddof=1) / 4, np.var(t1[1], ddof=1) / 4]
    assert across["std_error"] == pytest.approx(np.sqrt(sum(v)) / 2, rel=1e-12)
    assert across["df"] == pytest.approx(sum(v) ** 2 / sum(x ** 2 / 3 for x in v), rel=1e-12)
    assert across["method"] == "Welch-Satterthwaite over tasks (capped runs' variance bounded)"
    assert any(n.startswith("the across-tasks test of A vs B bounds from below") for n in res.notes)


def test_across_tasks_is_withheld_where_both_agents_always_reach_the_cap():
    """Both agents' runs of t0 all at one score: nothing bounds their spread; the across-tasks test is withheld with
    a note naming t0 and what to do (before, t0 counted as a difference known exactly)."""
    scores = np.stack([np.ones((2, 4)), np.random.default_rng(3).normal(size=(2, 4))])
    res = rlstats.equivalence(long_frame(scores), "score ~ agent | task", margin=2.0, aggregate=None)
    across = res.tidy().query("scope == 'across tasks'").iloc[0]
    assert across["shown"] is None and np.isnan(across["std_error"])
    note = [n for n in res.notes if n.startswith("the across-tasks test is withheld")]
    # the way on as the function called takes it, with the tied task's condition (audit s35 bench35, review35b)
    assert len(note) == 1 and "(t0)" in note[0] and note[0].endswith(
        "leave those out of the data with data=df[mask] (a boolean mask of the rows where task not in ['t0'] holds) "
        "to rlstats.equivalence")


def test_unsaturated_runs_give_the_former_numbers_bit_for_bit():
    """Normal runs (no ties): every row is the plain Welch and Welch-Satterthwaite test of the kernels."""
    scores = np.random.default_rng(4).normal(size=(5, 2, 5))
    res = rlstats.equivalence(long_frame(scores), "score ~ agent | task", margin=0.5, aggregate=None)
    table = res.tidy()
    ordered = np.sort(scores, axis=-1)  # each cell's runs are summed in score order (audit s16: row-order free)
    mean, sd = ordered.mean(axis=-1), ordered.std(axis=-1, ddof=1)
    estimate, se, df = _kernels.welch(mean[:, 0], sd[:, 0], 5, mean[:, 1], sd[:, 1], 5)
    assert (table.query("scope == 'task'")["std_error"].to_numpy() == se).all()
    estimate, se, df = _kernels.welch_mean(mean[:, 0], sd[:, 0], 5, mean[:, 1], sd[:, 1], 5)
    across = table.query("scope == 'across tasks'").iloc[0]
    assert across["std_error"] == se and across["df"] == df and across["method"] == "Welch-Satterthwaite over tasks"
    assert not any("cap" in note for note in res.notes)


def _numbers(res):
    table = res.tidy()
    return table[["task", "estimate", "std_error", "df", "p_value", "conf_low", "conf_high"]], res.notes


@pytest.mark.parametrize("scale, shift", [(1000.0, 0.0), (1.0, -7.5), (0.01, 3.0)])
def test_saturated_tests_are_unchanged_by_units_shifts_and_row_order(scale, shift):
    """Scores times a positive scale plus a shift (margin times the scale) and rows shuffled: the same tests
    withheld, the same bounded across-tasks test in the scores' units, the same notes."""
    scores = _saturated(np.random.default_rng(5), 5, 5)
    frame = long_frame(scores)
    base = rlstats.equivalence(frame, "score ~ agent | task", margin=0.3, aggregate=None)
    moved = frame.assign(score=frame["score"] * scale + shift).sample(frac=1.0, random_state=1)
    other = rlstats.equivalence(moved, "score ~ agent | task", margin=0.3 * scale, aggregate=None)
    (a, notes_a), (b, notes_b) = _numbers(base), _numbers(other)
    assert list(a["task"]) == list(b["task"]) and notes_a == notes_b
    assert any("per-task tests are withheld" in n for n in notes_a)
    for column, unit in (("estimate", scale), ("std_error", scale), ("df", 1.0), ("p_value", 1.0)):
        x, y = a[column].to_numpy(float), b[column].to_numpy(float)
        assert np.array_equal(np.isnan(x), np.isnan(y))
        assert np.allclose(x[~np.isnan(x)] * unit, y[~np.isnan(y)], rtol=1e-9, atol=0)
    assert np.allclose(a["conf_low"].to_numpy(float) * scale + 0, b["conf_low"].to_numpy(float), rtol=1e-9,
                       equal_nan=True)


def test_the_size_module_reads_runs_as_the_public_function_does():
    """tests/reference/size_equivalence.py measures the saturated rows on arrays (``summaries``); on 6 data sets of
    the family its per-task withholding and across-tasks standard error are the public function's."""
    rng = np.random.default_rng(6)
    for _ in range(6):
        scores = _saturated(rng, 4, 5)
        mean, sd, tied, floor = SIZE["summaries"](scores[None])
        res = rlstats.equivalence(long_frame(scores), "score ~ agent | task", margin=0.3, aggregate=None).tidy()
        given = res.query("scope == 'task'")["shown"].notna().to_numpy()
        assert np.array_equal(given & ~tied[0].any(axis=-1), given)
        sd = np.where(tied, np.sqrt(np.maximum(sd ** 2, floor)), sd)[0]
        _, se, _ = _kernels.welch_mean(mean[0, :, 0], sd[:, 0], 5, mean[0, :, 1], sd[:, 1], 5)
        if (tied[0].any(axis=-1) & (sd == 0).all(axis=-1)).any():
            se = np.nan
        assert res.query("scope == 'across tasks'")["std_error"].iloc[0] == pytest.approx(se, rel=1e-12,
                                                                                             nan_ok=True)


def test_the_saturated_rows_of_the_table_hold_and_a_fresh_point_agrees():
    """The table's saturated rows of the defaults hold alpha; one point measured afresh (5 tasks x 5 runs, across
    tasks, non-inferiority at -margin, 100 data sets per draw) holds too."""
    table = rlstats.calibration_table("equivalence.size", distribution="saturated")
    defaults = table[table["interval"].isin(["welch", "welch_mean"])]
    assert len(defaults) == 60 and not defaults["misses"].any()
    held = SIZE["held_by_draw"]("welch_mean", "", 5, 5, "saturated", "delta = -margin", 100, seed=11)
    row = DESIGNS["pooled_row"](held["noninferior"], 0.95)
    assert row["coverage"] >= 0.95 - 3 * DESIGNS["binomial_se"](0.95, row["n_sim"])


def _capped_pair_tasks(rng, n_sim, tasks, runs, share, sign):
    """(n_sim, tasks, 2, runs) normal runs capped where ``share`` of B's runs reach the cap, A at sign * 0.5, and the
    true difference of means (the same on every task)."""
    cap = stats.norm.ppf(1 - share)

    def mean(mu):  # E min(mu + Z, cap)
        return mu * stats.norm.cdf(cap - mu) - stats.norm.pdf(cap - mu) + cap * stats.norm.sf(cap - mu)

    y = np.minimum(np.array([sign * 0.5, 0.0])[:, None] + rng.standard_normal((n_sim, tasks, 2, runs)), cap)
    return y, mean(sign * 0.5) - mean(0.0)


def _declared(y, margin, alternative, rule):
    """Per-task and across-tasks declarations of (n_sim, tasks, 2, runs) runs, with or without the saturation rule."""
    mean, sd, tied, floor = SIZE["summaries"](y)
    runs = y.shape[-1]
    if not rule:
        tied = np.zeros(tied.shape, dtype=bool)
    estimate, se, df = _kernels.welch(mean[..., 0], sd[..., 0], runs, mean[..., 1], sd[..., 1], runs)
    se = np.where(tied.any(axis=-1), np.nan, se)
    task = _kernels.tost(estimate, se, df, margin, 0.05, alternative)["shown"]
    sd = np.where(tied, np.sqrt(np.maximum(sd ** 2, floor)), sd)
    estimate, se, df = _kernels.welch_mean(mean[..., 0], sd[..., 0], runs, mean[..., 1], sd[..., 1], runs)
    se = np.where((tied.any(axis=-1) & (sd == 0).all(axis=-1)).any(axis=-1), np.nan, se)
    return task, _kernels.tost(estimate, se, df, margin, 0.05, alternative)["shown"]


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.70, 0.85])
def test_size_and_power_on_saturated_runs(share):
    """The measurement of the report, reduced (4,000 data sets of 5 tasks a point): at the margin the former tests
    miss alpha somewhere, the new ones hold everywhere (3 Monte Carlo SE: 0.0104 across tasks); the power at a true
    difference of 0 (both agents alike, the same margin) is printed for the report."""
    rng = np.random.default_rng(int(share * 100))
    worst = {True: 0.0, False: 0.0}
    for runs in (3, 5, 10, 20):
        for sign, alternative in ((-1.0, "noninferior"), (-1.0, "equivalence"), (1.0, "equivalence")):
            y, delta = _capped_pair_tasks(rng, 4_000, 5, runs, share, sign)
            for rule in (True, False):
                task, across = _declared(y, abs(delta), alternative, rule)
                worst[rule] = max(worst[rule], task.mean(), across.mean())
                print(share, runs, sign, alternative, rule, round(task.mean(), 4), round(across.mean(), 4))
        y, _ = _capped_pair_tasks(rng, 4_000, 5, runs, share, 0.0)
        _, delta = _capped_pair_tasks(rng, 1, 1, 1, share, -1.0)
        for rule in (True, False):
            task, across = _declared(y, abs(delta), "noninferior", rule)
            print("power", share, runs, rule, round(task.mean(), 4), round(across.mean(), 4))
    assert worst[True] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4_000) < worst[False]


def test_published_tables_read_the_agents_runs_at_a_cap():
    """With published=, the agent's runs are read as without it: t0 (A's runs 3 of 5 at the cap) is withheld, t1
    is Welch's test from the summaries, bit for bit."""
    scores = np.array([[1.0, 1.0, 1.0, 0.2, 0.4], [0.1, 0.5, 0.3, 0.9, 0.6]])
    frame = pd.DataFrame({"task": np.repeat(["t0", "t1"], 5), "agent": "A", "score": scores.ravel()})
    table = pd.DataFrame({"task": ["t0", "t1"], "mean": [0.6, 0.5], "sd": [0.2, 0.3], "n": [5, 5]})
    res = rlstats.equivalence(frame, "score ~ agent | task", margin=0.3, published=table)
    rows = res.tidy().query("scope == 'task'").set_index("task")
    assert rows.loc["t0", "shown"] is None and rows.loc["t1", "shown"] is not None
    assert any(n.startswith("per-task tests are withheld in 1 case") and "t0/A vs published" in n for n in res.notes)
    estimate, se, df = _kernels.welch(scores[1].mean(), scores[1].std(ddof=1), 5, 0.5, 0.3, 5)
    assert rows.loc["t1", "std_error"] == se and rows.loc["t1", "df"] == df
    across = res.tidy().query("scope == 'across tasks'").iloc[0]
    assert across["method"] == "Welch-Satterthwaite over tasks (capped runs' variance bounded)"


def test_the_aggregate_on_saturated_runs_quotes_its_measured_size():
    """The IQM's bootstrap-t on saturated scores at 5 tasks declared non-inferiority at the margin in 0.051-0.067 of
    1,600 simulated tests a design (3-20 runs; 0.067 at 10 runs, above alpha by more than 3 SE), which the table's
    100 data sets a row could not resolve; nothing said so. Audit s10 had a note quote it; audit s11 withholds the
    test where the bootstrap withholds an agent's interval at a cap (here B's: 22 of 25 runs at it), with a note
    saying why (tests/test_audit_s11_eqsat.py), and the note of audit s10 is gone with the miss."""
    frame = long_frame(_saturated(np.random.default_rng(8), 5, 5))
    res = rlstats.equivalence(frame, "score ~ agent | task", margin=0.3, n_resamples=200, rng=0)
    assert any(n.startswith("the aggregate (IQM) difference is withheld for A vs B: B's runs") for n in res.notes)
    assert not any(n.startswith("the aggregate test of") for n in res.notes)
    free = long_frame(np.random.default_rng(8).normal(size=(5, 2, 5)))
    res = rlstats.equivalence(free, "score ~ agent | task", margin=0.3, n_resamples=200, rng=0)
    assert not any(n.startswith("the aggregate test of") or "withheld" in n for n in res.notes)


@pytest.mark.slow
def test_aggregate_size_on_saturated_runs_at_five_tasks():
    """The measurement the note quoted, reduced: 10 runs, 200 data sets per design draw (800), fresh seed; since
    audit s11 the test is withheld where the bootstrap withholds an agent's interval, and holds alpha."""
    held = SIZE["held_by_draw"]("bootstrap_t", "iqm", 5, 10, "saturated", "delta = -margin", 200, seed=9)
    row = DESIGNS["pooled_row"](held["noninferior"], 0.95)
    assert row["coverage"] >= 0.95 - 3 * DESIGNS["binomial_se"](0.95, row["n_sim"])


def test_a_third_agent_changes_nothing_of_a_pairs_saturated_tests():
    """The cap a pair's runs sit at is read from the pair's own runs. Before: from the task's runs of every agent,
    so a third agent C scoring above A's tied top runs on t0 (1.2, never reached by A or B) turned A vs B's withheld
    t0 test into a plain Welch test (and the note vanished): adding an agent changed the A vs B rows."""
    scores = np.array([[[1.0, 1.0, 1.0, 0.2, 0.4], [0.9, 0.5, 0.7, 0.3, 0.8]],
                       [[0.1, 0.5, 0.3, 0.9, 0.6], [0.2, 0.4, 0.8, 0.7, 0.35]]])
    pair = long_frame(scores)
    third = pair[pair["agent"] == "B"].assign(agent="C", score=lambda d: d["score"] + 0.4)
    options = dict(margin=0.3, aggregate=None, control="A")
    alone = rlstats.equivalence(pair, "score ~ agent | task", **options).tidy()
    beside = rlstats.equivalence(pd.concat([pair, third], ignore_index=True), "score ~ agent | task", **options).tidy()
    ab = beside[beside["agent_1"] == "B"].reset_index(drop=True)
    pd.testing.assert_frame_equal(ab[alone.columns], alone)
    assert (ab["conclusion"] == "withheld").sum() == 1
