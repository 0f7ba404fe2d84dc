"""Audit s37 (meta37): metamorphic relations on the paths the earlier sweeps (test_metamorphic, s9-s36 meta files)
left out, and on integer scores whose summaries tie exactly, which a change of units unties by rounding.

Swept (scratch, not committed; test_metamorphic's comparison of tidy(), glance(), to_dict(), the warnings and the
print, summary(), Markdown and report with their numbers parsed): the mixed model with adjust= holm, bonferroni,
scheffe, hochberg, hommel, bh and by; the hierarchical model with rope=; non-inferiority against control= with
higher_is_better=False and equivalence's mean aggregate (margin x c); the task table's bootstrap aggregate and its
per-pair intervals with Mann-Whitney; run profiles on a tau grid moved with the score and on the default grid;
percentiles' PBP; selection_check; curves with compare="all"; tuning's four views; Conover's post hoc; probability of
improvement; power() from a pilot (rank test, bootstrap, permutation) and sample_size() -- under the score x 1e-6,
x 1e-3, x 1e3, x 1e6, + 1e6, a duplicated and a MultiIndex index. The command line (compare with skillings_mack,
task_table, bootstrap with gamma=, equivalence with margin=, mixed, bayes with rope=, percentiles, profiles, the
permutation test, selection, curves, --summarize auc and time_to_threshold with the threshold moved) on CSV files
x 1e-6, x 1e-3, x 1e3, x 1e6, in text, summary, LaTeX and CSV. Every number held (the mixed model's REML criterion by
its log|c| offset; + 1e6 moved differences by 2e-9 of their size, the rounding of scores at 1e6); the printed numbers
kept their significant digits (R's format() drops a trailing zero: 44.110 prints 44.11); LaTeX's layout (table or
table*, transposed) follows the printed widths, as test_metamorphic says.

Then on s36's tied design (A: b + 1, 3, 5, B: b + 2, 3, 4, C random, D = A + 1: A's and B's means tie, D's are A's
+ 1 exactly) every back end's default and 30 option paths x 7.3, x 1e-6, x 0.1, + 1e6, + 0.1. Found, and fixed:

* equivalence's aggregate (bootstrap-t): with the difference at the margin (A - D = -1, margin 1), t_lower =
  (delta + margin) / se is 0 in the data's units and +-1e-16 in others, and the resampled t* of resamples that
  reproduce the data's difference tie with it but for rounding; the counts #{t* >= t_lower} moved: p_value of A vs D
  0.5248 (x 1), 0.5 (x 0.1, x 7.3, + 0.1), B vs D 0.5743, 0.5248, 0.5446. Fixed: kernels.bootstrap_t reads a
  deviation delta* - delta, and delta +- margin, within the rounding of a difference of the pair's aggregates
  (statistics.difference_tolerance of the two agents' scores) as 0: 0.5446 and 0.5743 in every unit.
* performance_profile(kind="runs") on its default grid: a grid point on a run's score but for the grid's rounding
  (tau 7 of 6, 6.25, ...) counted the runs at it as above it x 7.3 (A's profile at tau 7: 0.944 -> 1.0, its Wilson
  band's lower end 0.706 -> 0.781). Fixed: the default grid's points within statistics.tie_tolerance of a score are
  that score (bootstrap._api._at_scores), so the profile compares the run's score with itself in any units.

* the mixed model's residual_normal_scores (the QQ plot's x) averaged the ranks of residuals that tie exactly, which
  other units untied by the fit's rounding (about 1e-13 of the residuals' size x 0.1, 9e-11 + 1e6; x 7.3 a tied
  residual's score -1.480 -> -1.430), and in the data's own units some residuals tied but 1.8e-15 apart took
  separate ranks. Fixed: residuals and predicted effects within statistics.difference_tolerance of the scores tie
  (near_ties) before ranking (mixed._api._normal_scores).

On integer learning curves (simulated_curves rounded) and an integer sweep (lr_sweep rounded), x 7.3, x 1e-6, x 0.1,
+ 1e6, + 0.1, found and fixed:

* curves' mean band: a task whose runs tie at a step (0 or 1 at once) had its runs' G1 read off their deviations
  from a mean rounded in its last bit (+-1 in tenths, none in integers), and Hall's band of the mean moved (the lower
  end at 28.33: 26.755 -> 23.935 x 0.1). Fixed: runs within the task's tie tolerance at a step have no spread and no
  skewness (curves._kernels._task_shapes, as bootstrap._small_runs.pooled_run_skewness); and a difference of two
  curves within twice the step tolerance is 0 (3.6e-15, and 1.2e-10 + 1e6).
* tuning: the expected best of 1 configuration with replacement of means -1, 0, 1 printed 5.5511e-17 (its weights'
  rounding; 5.4654e-23 x 1e-6); now 0 within difference_tolerance of the sweep's scores. The kurtosis note named ppo
  or sac ("up to 2.24 (ppo on ant)") as the units rounded two tied sweeps; now the first printing the largest.

* selection_check's reporter (audit s36's strict xfail): the third cumulant of symmetric runs is rounding x 7.3 + 1e6
  (skewness -7.41e-12) and decided "Hall's correction applied"; now 0 within the deviations' rounding (3 e sum d^2
  per arm, selection._kernels.effect_cumulants); tests/test_audit_s36_meta36.py's test passes without its xfail.

* performance_profile(kind="tasks") (audit s36's other strict xfail): a task mean at tau compared exactly; now within
  its rounding of tau (AgentLayout.mean_tolerance) it is at tau, in the estimate and every resample alike;
  tests/test_audit_s36_meta36.py's test passes without its xfail.

Checked and held besides: the caller's frame (values, dtypes, index, attrs) after every public function on category,
category with an unused level, string[pyarrow], int, Int64, float32, sparse scores, a duplicated, MultiIndex,
shuffled and named index, unchanged; and each result's tidy() numbers (frames: in the rows' order) those of the
plain frame to 1e-9 under the label dtypes and indexes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats

F = "score ~ agent | task"


def _tied():
    """6 tasks x 4 agents x 3 integer runs: A's and B's means tie on every task, D's are A's + 1 exactly."""
    rng = np.random.default_rng(4)
    rows = []
    for t in range(6):
        base = int(rng.integers(0, 20))
        runs = {"A": [base + 1, base + 3, base + 5], "B": [base + 2, base + 3, base + 4],
                "C": (base + rng.integers(0, 9, 3)).tolist(), "D": [base + 2, base + 4, base + 6]}
        rows += [(a, f"t{t}", s, float(x)) for a, v in runs.items() for s, x in enumerate(v)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"]).astype({"agent": "category",
                                                                                  "task": "category"})


UNITS = [(1.0, 0.0), (0.1, 0.0), (7.3, 0.0), (1e-6, 0.0), (1.0, 0.1), (7.3, 1e6)]


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def _aggregate_rows(c, d, **options):
    df = _tied()
    result = _quiet(rlstats.equivalence, df.assign(score=df["score"] * c + d), F, margin=1.0 * c, aggregate="mean",
                    n_resamples=100, rng=1, **options)
    tidy = result.tidy()
    return tidy[tidy["scope"] == "aggregate"].set_index(["agent_1", "agent_2"])


def test_equivalence_aggregate_at_the_margin_in_any_units():
    """The difference A - D is exactly -margin: each p-value the same count of resamples in every unit."""
    base = _aggregate_rows(1.0, 0.0)
    assert base.loc[("A", "D"), "estimate"] == -1.0  # at the margin: t_lower is 0
    # (hits + 1) / 101 with hits counted on t* snapped to 0 where a resample reproduces the data's difference
    assert base.loc[("A", "D"), "p_lower"] == pytest.approx(55 / 101, abs=1e-15)
    assert base.loc[("B", "D"), "p_lower"] == pytest.approx(58 / 101, abs=1e-15)
    for c, d in UNITS[1:]:
        other = _aggregate_rows(c, d)
        for column in ("p_value", "p_lower", "p_upper"):
            # (a p-value the Welch t floor gives is continuous in the units' rounding: to 1e-9, the suite's REL)
            np.testing.assert_allclose(other[column].to_numpy(), base[column].to_numpy(), rtol=1e-9, atol=0,
                                       err_msg=f"{column} x {c} + {d}")
        assert other["shown"].tolist() == base["shown"].tolist()


def test_non_inferiority_aggregate_at_the_margin_in_any_units():
    base = _aggregate_rows(1.0, 0.0, alternative="noninferior", control="D")
    for c, d in UNITS[1:]:
        other = _aggregate_rows(c, d, alternative="noninferior", control="D")
        np.testing.assert_allclose(other["p_value"].to_numpy(), base["p_value"].to_numpy(), rtol=1e-9, atol=0,
                                   err_msg=f"x {c} + {d}")


def test_bootstrap_t_ties_resamples_at_the_data_difference_within_the_tolerance():
    """The kernel: a deviation within ``tolerance`` of 0 is a tie with t_lower = 0, counted as reaching it."""
    from rlstats.methods.equivalence import _kernels as kernels

    draws = np.array([-1.0 + 1e-15, -1.0 - 1e-15, -1.0, -0.5, -1.5])  # three reproduce delta = -1 but for rounding
    out = kernels.bootstrap_t(np.array(-1.0 + 2e-16), np.array(0.5), draws, np.full(5, 0.5), 1.0, 0.05,
                              tolerance=1e-12)
    assert out["t_lower"] == 0.0
    assert out["p_lower"] == (4 + 1) / 6  # the three ties and -0.5 reach t_lower = 0
    untied = kernels.bootstrap_t(np.array(-1.0 + 2e-16), np.array(0.5), draws, np.full(5, 0.5), 1.0, 0.05)
    assert untied["p_lower"] != out["p_lower"]  # without the tolerance the rounding decides


@pytest.mark.parametrize("c, d", UNITS)
def test_run_profile_on_the_default_grid_at_a_score(c, d):
    """A's runs on t0..t5 are b + 1, 3, 5; the default grid holds tau = 7, a score of A's (and D's, B's) on some
    task: the share of runs above it, averaged over tasks, is counted exactly in every unit."""
    df = _tied()
    result = _quiet(rlstats.performance_profile, df.assign(score=df["score"] * c + d), F, kind="runs", rng=1)
    tidy = result.tidy()
    tau = (tidy["tau"].to_numpy() - d) / c
    at = np.isclose(tau, 7.0, rtol=1e-9, atol=1e-9) & (tidy["agent"] == "A").to_numpy()
    assert at.sum() == 1
    runs = df[df["agent"] == "A"]
    expected = (runs["score"] > 7.0).groupby(runs["task"], observed=True).mean().mean()
    assert expected == pytest.approx(17 / 18)  # one run scores 7 exactly, none below but on t0's
    assert tidy.loc[at, "estimate"].item() == pytest.approx(expected, abs=1e-15)
    # and the grid's point is the score itself, as the data give it in these units
    assert tidy.loc[at, "tau"].item() in set(df["score"] * c + d)


@pytest.mark.parametrize("c, d", UNITS[1:])
def test_mixed_qq_scores_of_tied_residuals_in_any_units(c, d):
    """A's and B's cells are symmetric about one mean: their residuals tie in pairs in the data's units, and share
    the average of their ranks (R's rank(ties.method = "average")) in every unit."""
    from scipy import special, stats

    df = _tied()
    base = rlstats.mixed(df, "score ~ agent | task/seed")
    residuals = base.residuals
    # ties in the data's units: exact, and with numpy 2 some 2e-15 apart (the fit's rounding; numpy 1.24, CI's oldest
    # allowed, ties them all exactly); residuals to 9 decimals tie both
    rounded = np.round(residuals, 9)
    assert len(residuals) - len(np.unique(rounded)) >= 6
    assert np.diff(np.unique(rounded)).min() > 1e-4  # the real gaps
    n = residuals.size
    expected = special.ndtri((stats.rankdata(rounded, method="average") - 0.5) / n)  # ppoints, n > 10
    np.testing.assert_allclose(base.residual_normal_scores, expected, rtol=1e-12)
    other = _quiet(rlstats.mixed, df.assign(score=df["score"] * c + d), "score ~ agent | task/seed")
    np.testing.assert_allclose(other.residuals / c, residuals, rtol=0, atol=1e-9 * (1 + d))
    np.testing.assert_allclose(other.residual_normal_scores, expected, rtol=1e-12)
    np.testing.assert_allclose(other.task_normal_scores, base.task_normal_scores, rtol=1e-12)


# ------------------------------------------------------------------------------------------------ curves and tuning

def _integer_curves():
    from conftest import simulated_curves

    df = simulated_curves(tasks=2, steps=5)
    return df.assign(score=np.round(df["score"]))  # task_02's runs tie at 0 or 1 at some steps


@pytest.mark.parametrize("c, d", [(0.1, 0.0), (1.0, 0.1), (7.3, 0.0)])
def test_curves_mean_band_of_runs_that_tie_at_a_step(c, d):
    """The mean's Hall band reads the runs' skewness: runs that tie at a step have none, in any units (x 0.1 their
    deviations from a mean rounded in its last bit read as G1 = +-1 and the band's lower end moved 26.755 to
    23.935)."""
    from rlstats.methods.curves import _kernels

    df = _integer_curves()
    call = dict(step="step", compare="all", statistic="mean", n_resamples=100, rng=1)
    base = rlstats.curves(df, "score ~ agent | task/seed", **call).tidy()
    other = rlstats.curves(df.assign(score=df["score"] * c + d), "score ~ agent | task/seed", **call).tidy()
    for column in ("estimate", "conf_low", "conf_high"):
        np.testing.assert_allclose((other[column] - d) / c, base[column], rtol=1e-9, err_msg=column)
    assert base["conf_low"].iloc[0] == pytest.approx(26.755034, abs=1e-6)
    # the kernel: three runs of one task that tie, in tenths, have no spread and no skewness
    values = np.array([[0.1, 1.0], [0.1, 2.0], [0.1, 4.0]])
    g1, usable, share, _, _ = _kernels._task_shapes(values, np.zeros(3, dtype=np.intp), 1)
    assert usable.tolist() == [[False, True]] and g1[0, 0] == 0.0 and share[0, 0] == 0.0
    assert g1[0, 1] == pytest.approx(stats_g1([1.0, 2.0, 4.0]), rel=1e-12)


def stats_g1(x):
    """The k-statistic skewness k3 / k2^1.5 of a sample (the adjusted Fisher-Pearson G1)."""
    from scipy import stats

    return stats.skew(x, bias=False)


def test_curves_difference_of_curves_that_tie_is_zero():
    df = _integer_curves()
    for c, d in [(1.0, 0.0), (1.0, 1e6), (0.1, 0.0)]:
        res = rlstats.curves(df.assign(score=df["score"] * c + d), "score ~ agent | task/seed", step="step",
                             compare="all", statistic="mean", n_resamples=100, rng=1)
        differences = np.asarray(res.to_dict()["differences"], dtype=float)
        assert differences[2, 0] == 0.0  # the two curves tie at the first step of the third pair


def _integer_sweep():
    from conftest import lr_sweep

    df = lr_sweep(categorical=True)
    return df.assign(score=np.round(df["score"]))


@pytest.mark.parametrize("c, d", [(1.0, 0.0), (1e-6, 0.0), (1.0, 0.1)])
def test_tuning_expected_max_of_one_draw_and_the_kurtosis_note(c, d):
    """ppo on hopper's configuration means are -1, 0 and 1 (x c + d): the expected best of 1 draw is their mean, 0
    (it printed 5.5511e-17 with replacement, its weights' rounding), and two sweeps of excess kurtosis 2.24 are named
    as the first of them in any units."""
    df = _integer_sweep()
    res = rlstats.tuning(df.assign(score=df["score"] * c + d), "score ~ agent | task/seed", config="lr",
                         views=["expected_max", "complete"], n_resamples=100, rng=1)
    em = res.expected_max()
    one = em[(em["agent"] == "ppo") & (em["task"] == "hopper") & (em["budget"] == 1)]
    means = df[(df["agent"] == "ppo") & (df["task"] == "hopper")].groupby("lr", observed=True)["score"].mean()
    assert means.mean() == 0.0
    if d == 0:
        assert one["estimate"].tolist() == [0.0, 0.0]  # without and with replacement: 0, not its rounding
    else:
        assert one["estimate"].tolist() == pytest.approx([d, d], rel=1e-12)
    assert "up to 2.24 (ppo on ant)" in str(res)
