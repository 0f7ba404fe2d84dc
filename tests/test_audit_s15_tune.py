"""Session 15 user audit of rlstats.tuning(), rlstats.selection_check(), the normalisers and rlstats.datasets on real
data (the Dierkes et al. sweeps and tuning procedures, Atari 100k) and on hard small cases (one configuration, one
seed, ties, NaN, capped and negative scores, unit changes, shuffled rows, unused categorical levels).

Checked and found right (asserted below where cheap): the expected maximum against an enumeration of every subset
and every sequence of draws, the complete algorithm's estimate against the mean of the configurations' means, the
tuning views unchanged by positive scaling and by row order, higher_is_better=False on negated scores, the
human-normalised Atari scores against an explicit merge, the selection check's permutation statistic and reporter t
against scipy. Defects found: each test's docstring says what was wrong.
"""

import itertools
import math

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from conftest import one_sweep
from rlstats.tables import read_csv

matplotlib.use("Agg")


def _grid(seed=0, seeds=4):
    rng = np.random.default_rng(seed)
    return pd.DataFrame([(a, t, lr, s, 100 * (t == "ant") + 10 * rng.gamma(2) + 5 * (lr == 1e-3) * (a == "ppo"))
                         for a in ("ppo", "sac") for t in ("ant", "hopper", "walker")
                         for lr in (1e-4, 3e-4, 1e-3, 3e-3, 1e-2) for s in range(seeds)],
                        columns=["agent", "task", "lr", "seed", "score"])


def test_expected_max_matches_enumeration_and_is_unchanged_by_units_and_row_order():
    """The expected maximum of k of the configurations' means, without replacement (every subset) and with
    replacement (every sequence); the views' numbers scale with the score and do not move with the rows' order."""
    df = _grid()
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", n_resamples=200, rng=0)
    em = res.expected_max().set_index(["agent", "task", "budget", "sampling"])["estimate"]
    for (agent, task), runs in df.groupby(["agent", "task"]):
        means = runs.groupby("lr")["score"].mean().to_numpy()
        for k in range(1, means.size + 1):
            without = np.mean([max(c) for c in itertools.combinations(means, k)])
            within = np.mean([max(c) for c in itertools.product(means, repeat=k)])
            assert em[agent, task, k, "without replacement"] == pytest.approx(without, rel=1e-12)
            assert em[agent, task, k, "with replacement"] == pytest.approx(within, rel=1e-12)
        complete = res.complete_summary().set_index(["agent", "task"])["estimate"]
        assert complete[agent, task] == pytest.approx(means.mean(), rel=1e-12)
    scaled = rlstats.tuning(df.assign(score=df["score"] * 1000).sample(frac=1, random_state=1),
                            "score ~ agent | task/seed", config="lr", n_resamples=200, rng=0)
    for view in ("expected_max", "tuned", "complete_summary"):
        one, other = getattr(res, view)(), getattr(scaled, view)()
        for column in ("estimate", "conf_low", "conf_high"):
            np.testing.assert_allclose(one[column] * 1000, other[column], rtol=1e-9)
    np.testing.assert_allclose(res.best_set()["probability_best"], scaled.best_set()["probability_best"])
    np.testing.assert_allclose(res.sensitivity()["sensitivity"], scaled.sensitivity()["sensitivity"], rtol=1e-9)


def test_selection_check_on_atari_matches_an_explicit_computation(atari, published):
    """SPR against DER, human-normalised, the five tasks where SPR gains most reported: the inspector's statistic is
    the difference of the mean effects, the reporter's t is scipy's one-sample t (its skewness is positive, so no
    correction), and both are unchanged by a change of units and shuffled rows."""
    table = read_csv(published / "atari100k_reference.csv")
    pair = rlstats.normalize(atari[atari["agent"].isin(["SPR", "DER"])], table)
    reference = table.set_index("task")
    raw = atari.loc[pair.index]
    expected = (raw["score"] - raw["task"].map(reference["random"])) / (
        raw["task"].map(reference["human"]) - raw["task"].map(reference["random"]))
    np.testing.assert_allclose(pair["score"], expected, rtol=1e-12)
    means = pair.groupby(["task", "agent"])["score"].mean().unstack()
    effect = (means["SPR"] - means["DER"]).sort_values(ascending=False)
    reported = list(effect.index[:5])
    res = rlstats.selection_check(pair, "score ~ agent | task/seed", treatment="SPR", baseline="DER",
                                  reported=reported, n_resamples=999, rng=0)
    v_p, v_i = effect[reported].to_numpy(), effect.drop(reported).to_numpy()
    assert res.statistic == pytest.approx(v_p.mean() - v_i.mean(), rel=1e-12)
    assert res.pvalue_reporter == pytest.approx(stats.ttest_1samp(v_p, 0, alternative="greater").pvalue, rel=1e-9)
    other = rlstats.selection_check(pair.assign(score=pair["score"] * 1000).sample(frac=1, random_state=2),
                                    "score ~ agent | task/seed", treatment="SPR", baseline="DER", reported=reported,
                                    n_resamples=999, rng=0)
    assert (other.pvalue, other.pvalue_reporter) == pytest.approx((res.pvalue, res.pvalue_reporter), rel=1e-9)


def test_best_set_plot_says_when_it_leaves_bars_out():
    """plot(kind="best_set") kept ``best.head(30)`` of the table: on PPO's tuning procedures of Dierkes et al.
    (5 procedures x 3 tasks, 49 tuning runs with a chance of being best) the figure showed 30 bars, ant's and
    humanoid's, with nothing saying that 19 bars (all 15 of lunar, 4 of humanoid) were left out. The figure must
    say how many it shows of how many."""
    rows = [[10.0 + c + 0.1 * s for s in range(3)] for c in range(3)]
    df = pd.concat([one_sweep(rows, agent=f"a{i}", task=f"t{j}") for i in range(4) for j in range(3)],
                   ignore_index=True)
    # every configuration's runs overlap its neighbours', so each sweep keeps 2 to 3 configurations with a chance
    df["score"] += np.tile([0.0, 1.5, -1.5], len(df) // 3)
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", views=["best_set"], n_resamples=200, rng=0)
    shown = res.best_set(runners_up=True)  # every configuration with a chance (best_set(): the sets', new-user s38)
    chances = int((shown["probability_best"] > 0).sum())
    assert chances > 30
    ax = res.plot(kind="best_set")
    # at most 30 bars, and fewer where 30 would make the figure taller than a page (9 in; session 37, fig37)
    bars = len(ax.patches)
    assert 20 <= bars <= 30 and ax.figure.get_size_inches()[1] <= 9.0
    text = " ".join([ax.get_title(), ax.get_xlabel(), ax.figure.texts[0].get_text() if ax.figure.texts else ""])
    assert f"{bars} of {chances}" in text.replace("\n", " "), text
    matplotlib.pyplot.close(ax.figure)


def test_expected_max_plot_shows_a_single_budget():
    """With one budget on the curve (a sweep of one configuration, or the mean over tasks of agents beside a
    baseline run with its defaults, as in Dierkes et al.'s procedures, where only k = 1 is common) the plot drew a
    line through one point and a band of zero width: an empty figure, 'hpo=base, rpo=base' and the four tuned
    procedures listed in the legend with nothing drawn. A single point must be visible (a marker, its band an error
    bar)."""
    df = one_sweep([[1.0, 2.0, 3.0]], agent="base")
    df = pd.concat([df, one_sweep([[1.0, 2.5, 3.0], [0.0, 1.0, 4.0]], agent="tuned")], ignore_index=True)
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", views=["expected_max"], rng=0)
    ax = res.plot(kind="expected_max")
    base = res.expected_max()
    assert (base.loc[base["agent"] == "base", "budget"] == 1).all()
    marked = [line for line in ax.lines if line.get_label() == "base" and line.get_marker() not in (None, "", "None")]
    assert marked, [(line.get_label(), line.get_marker()) for line in ax.lines]
    matplotlib.pyplot.close(ax.figure)


def test_report_prose_says_how_the_default_lower_end_is_made():
    """The report said that the tuned score's interval 'is the winner's Student-t interval with the lower end lowered
    by the optimism's upper bootstrap quantile and the upper end taken from the larger of the winner's and the
    sweep's pooled standard deviation', which is the rule of tuned_lower='winner'. Under the default 'pooled' the
    lower end also takes the larger spread: a winner of sd 0.082 among configurations of sd 3.4 and 3.5 got a lower
    end of 5.43 (pooled sd), not about 9.97 less the optimism's quantile (the winner's own t interval)."""
    df = one_sweep([[10.0, 10.1, 10.2, 10.1], [0.0, 8.0, 2.0, 6.0], [1.0, 9.0, 3.0, 5.0]])
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", views=["best_set"], rng=0)
    row = res.tuned().iloc[0]
    pooled = math.sqrt(np.mean([np.var(v, ddof=1) for v in ([10.0, 10.1, 10.2, 10.1], [0, 8, 2, 6], [1, 9, 3, 5])]))
    half = stats.t.ppf(0.975, 3) * pooled / 2
    assert row["conf_high"] == pytest.approx(10.1 + half, rel=1e-12)
    assert row["conf_low"] < 10.1 - half + 1e-9  # the pooled spread, less the optimism's quantile
    prose = res._prose()
    assert "the larger of the winner's and the sweep's pooled standard deviation on both ends" in prose, prose
    assert "the winner's Student-t interval" not in prose
    winner = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", views=["best_set"], rng=0,
                            tuned_lower="winner")
    assert "lower end lowered by the optimism's upper bootstrap quantile" in winner._prose()


def _equal_effects(scale):
    """Every task's effect is exactly 1 (times ``scale``) in exact arithmetic: agent a scores b's runs plus one."""
    rng = np.random.default_rng(0)
    base = pd.DataFrame([("b", f"t{t}", s, float(rng.integers(0, 50))) for t in range(8) for s in range(3)],
                        columns=["agent", "task", "seed", "score"])
    df = pd.concat([base, base.assign(agent="a", score=base["score"] + 1)], ignore_index=True)
    return df.assign(score=df["score"] * scale)


@pytest.mark.parametrize("scale", [1.0, 0.1, 1e-3])
def test_selection_check_effects_that_tie_have_no_spread(scale):
    """Every per-task effect is exactly 1 x scale (agent a scores b's runs plus one): the effects differ only by
    round-off (range 3.6e-15 at scale 1). The reporter's t said so (undefined), but the detection probability was
    printed as 1 from an sd of the effects of 1.2e-15, the difference's interval was [-2.4e-15, 1.5e-15], and the
    pooled t and Welch inspectors returned statistics of round-off that moved with the units (t = -0.47, -1.41,
    -1.94 and p = 0.67, 0.90, 0.95 at scales 1, 0.1, 0.001). Effects without spread give no interval and no
    detection probability, and the parametric inspectors refuse them, as they do effects that tie exactly."""
    df = _equal_effects(scale)
    call = dict(treatment="a", baseline="b", reported=["t0", "t1", "t2"], normalize=False, rng=0)
    res = rlstats.selection_check(df, "score ~ agent | task", **call)
    assert np.isnan(res.pvalue_reporter)
    assert res.detection_probability is None
    assert np.isnan(res.conf_int).all()
    for inspector in ("t", "welch"):
        with pytest.raises(rlstats.errors.DesignError, match="no spread"):
            rlstats.selection_check(df, "score ~ agent | task", inspector=inspector, **call)
    with pytest.raises(rlstats.errors.DesignError, match="no spread"):
        rlstats.selection_check(df, "score ~ agent | task", sigma="pooled", inspector="z", **call)


def test_best_set_is_withheld_with_one_seed_per_configuration():
    """With one seed per configuration every seed resample is the data itself, so the bootstrap gave the winner a
    probability of being best of exactly 1, a 'best set of 1', and an optimism of exactly 0 (a 'tuned score corrected
    for selection' equal to the winner's own mean), however close the configurations were: three configurations at
    1.30, 1.29 and 1.28 printed 'best set of 1; tuned score 1.3'. One seed shows no seed noise, so the probabilities
    and the optimism correction are withheld there, with a note, as the intervals are; a sweep of one
    configuration (nothing selected) keeps its probability 1 and optimism 0."""
    df = one_sweep([[1.30], [1.29], [1.28]])
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", views=["best_set"], n_resamples=200, rng=0)
    best, tuned = res.best_set(), res.tuned().iloc[0]
    assert best["probability_best"].isna().all() and not best["in_best_set"].any()
    assert np.isnan(tuned["optimism"]) and np.isnan(tuned["estimate"]) and tuned["mean_selected"] == 1.30
    assert tuned["config"] == "lr=0" and np.isnan(tuned["n_best_set"])
    assert any(note.startswith("best-set probabilities and the optimism correction are withheld") for note in res.notes)
    assert "best set of 1" not in str(res) and "best set withheld" in str(res)
    assert "probabilities, the optimism and the tuned score were withheld" in res._prose()
    ax = res.plot(kind="best_set")
    assert len(ax.patches) == 0 and ("probabilities withheld where one of several\nconfigurations has one seed"
                                     in ax.get_title())  # s34 tune34: of several (one alone is best by construction)
    matplotlib.pyplot.close(ax.figure)
    # (beside a tuned sweep: a call whose every sweep has one configuration is refused, new-user trial s38)
    one = rlstats.tuning(pd.concat([one_sweep([[1.30]]), one_sweep([[1.3, 1.2], [1.29, 1.4]], agent="sac")]),
                         "score ~ agent | task/seed", config="lr", views=["best_set"], n_resamples=200, rng=0)
    assert one.best_set().set_index("agent").loc[["ppo"], "probability_best"].tolist() == [1.0]
    assert one.tuned().set_index("agent").loc["ppo", "optimism"] == 0.0
    # two seeds in each configuration: the bootstrap sees their noise, and the probabilities are shared
    two = rlstats.tuning(one_sweep([[1.30, 1.2], [1.29, 1.4], [1.28, 1.1]]), "score ~ agent | task/seed", config="lr",
                         views=["best_set"], n_resamples=200, rng=0)
    assert two.best_set()["probability_best"].notna().all() and two.tuned()["optimism"].iloc[0] > 0


def test_weights_that_vary_within_a_configuration_are_refused():
    """weights= must be one weight per configuration, but the check compared each configuration's mean weight with
    its first run's: weights 1, 0, 2 in one configuration (mean 1, first 1) passed, and the complete algorithm
    silently weighed that configuration by 1 (estimate 1.2347 with shares 1/3 each)."""
    df = one_sweep([[0.1, 0.2, 0.3], [1.0, 1.1, 0.9], [2.0, 2.5, 3.0]])
    df["w"] = [1.0, 0.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    with pytest.raises(rlstats.errors.DesignError, match="varies within a configuration"):
        rlstats.tuning(df, "score ~ agent | task/seed", config="lr", weights="w", views=["complete"], rng=0)
    constant = rlstats.tuning(df.assign(w=np.repeat([1.0, 2.0, 1.0], 3)), "score ~ agent | task/seed", config="lr",
                              weights="w", views=["complete"], rng=0)
    means = np.array([0.2, 1.0, 2.5])
    assert constant.complete_summary()["estimate"].iloc[0] == pytest.approx(means @ [0.25, 0.5, 0.25], rel=1e-12)


def _capped_tasks():
    """Task A: configuration c scores c + seed / 10; task B: every run at a cap of 1000 but two of configuration 9's
    five, which fail at 100 (4% of B's runs, so B's 5th and 95th percentiles are both 1000)."""
    rows = [("ppo", task, c, s, float(c + 0.1 * s) if task == "A" else 100.0 if (c == 9 and s < 2) else 1000.0)
            for c in range(10) for s in range(5) for task in ("A", "B")]
    return pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])


def test_sensitivity_reads_a_task_whose_percentiles_coincide():
    """The sensitivity view maps each task's 5th and 95th percentiles to 0 and 1; where they coincide (task B: 48 of
    50 runs at the cap of 1000) it set every score of the task to 0, and said nothing: B's two failures of
    configuration 9 (the best on A) vanished, and the view printed sensitivity 0 (per-task tuned 0.503, cross-task
    0.503). The task's smallest and largest scores must then serve as its range, with a note."""
    df = _capped_tasks()
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", views=["sensitivity"], rng=0)
    assert any("task 'B'" in note and "smallest and largest" in note for note in res.notes), res.notes
    # independently: A by its percentiles, B by its range; per-task tuning against one configuration for both
    a = df[df["task"] == "A"]
    low, high = np.percentile(a["score"], [5, 95])
    gamma_a = ((a["score"] - low) / (high - low)).groupby(a["lr"]).mean()
    b = df[df["task"] == "B"]
    gamma_b = ((b["score"] - 100.0) / 900.0).groupby(b["lr"]).mean()
    per_task = (gamma_a.max() + gamma_b.max()) / 2
    cross_task = ((gamma_a + gamma_b) / 2).max()
    row = res.sensitivity().iloc[0]
    assert row["per_task_tuned"] == pytest.approx(per_task, rel=1e-12)
    assert row["cross_task_tuned"] == pytest.approx(cross_task, rel=1e-12)
    assert row["sensitivity"] == pytest.approx(per_task - cross_task, rel=1e-9) and row["sensitivity"] > 0.05


def test_best_set_keeps_configurations_tied_for_best():
    """On Dierkes et al.'s learning-rate x velocity-weight landscape (10,000 configurations of PPO on LunarLander,
    10 seeds each) four configurations score the cap of 1000 with every seed, so they are best (tied) in every
    resample, but ties share the credit and 676 configurations shared it: the largest probability was 0.0488, and the
    print said 'best set of 0' beside the selected configuration. A configuration best or tied for best in at least
    ``threshold`` of the resamples belongs to the best set; the probabilities stay shared. Here three configurations
    always at a cap of 10 and 80 that reach it in (3/4)^4 = 0.32 of resamples share each resample about 28 ways."""
    values = [[10.0] * 4] * 3 + [[10.0, 10.0, 10.0, 9.0]] * 80
    res = rlstats.tuning(one_sweep(values), "score ~ agent | task/seed", config="lr", views=["best_set"],
                         n_resamples=500, rng=0)
    best = res.best_set().set_index("config")
    assert best["probability_best"].max() < 0.05 and best["probability_best"].sum() == pytest.approx(1.0)
    assert best.loc[["lr=0", "lr=1", "lr=2"], "in_best_set"].all()
    assert res.tuned()["n_best_set"].iloc[0] == len(values)  # each reaches the cap in a third of the resamples
    assert "best set of 0" not in str(res)


def test_config_values_equal_as_numbers_are_one_configuration():
    """The configurations were the config columns' values as text, so a column of Python objects holding 0 and 0.0
    (equal numbers, as JSON or hand-built frames give) made two configurations, 'lr=0' of one seed and 'lr=0.0' of
    two: 4 configurations where there are 3, silently."""
    df = one_sweep([[0.1, 0.2, 0.3], [1.0, 1.1, 0.9], [2.0, 2.5, 3.0]])
    mixed = df.assign(lr=df["lr"].astype(float).astype(object))
    mixed.loc[0, "lr"] = 0  # an int among floats: the same setting
    res = rlstats.tuning(mixed, "score ~ agent | task/seed", config="lr", views=["expected_max"], rng=0)
    assert res.n_configs.tolist() == [[3]]
    plain = rlstats.tuning(df.assign(lr=df["lr"].astype(float)), "score ~ agent | task/seed", config="lr",
                           views=["expected_max"], rng=0)
    pd.testing.assert_frame_equal(res.expected_max(), plain.expected_max())


def test_config_naming_a_column_twice_is_refused():
    """config=['lr', 'lr'] was accepted: the labels read 'lr=2, lr=2' and the sensitivity view counted two
    hyperparameters ('effective dimension ... of 2') where there is one."""
    df = one_sweep([[0.1, 0.2, 0.3], [1.0, 1.1, 0.9], [2.0, 2.5, 3.0]])
    with pytest.raises(rlstats.errors.OptionError, match="more than once"):
        rlstats.tuning(df, "score ~ agent | task/seed", config=["lr", "lr"], views=["best_set"], rng=0)
