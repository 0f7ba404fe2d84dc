"""Audit s26 (real26): what ``rlstats.bootstrap`` (with probability of improvement and performance profiles) and
``rlstats.percentiles`` say on the published scores (Atari 100k normalised, the AdaStop MuJoCo batches raw, the
HalfCheetah SAC/TD3 runs) and the shared Stable-Baselines3 logs, as a user writing a paper reads them: every sentence
of print, summary, LaTeX and report against the rows analysed, the numbers against independent computations (closed
forms, numpy written apart, enumeration of every resample), and the invariances each statistic has (units, shift,
row order, polars). Defects found and mended: the report described intervals of metrics not computed and, where
every interval was withheld, claimed intervals; the probability of improvement's x label broke at its division at a
column's width; the gap's withheld note misstated its case; subset= to a function without it gave no way on. Tests
reading the published scores skip with the reason when neither ../shared/data nor the mirror is here."""

from __future__ import annotations

import numpy as np
import pytest

import rlstats
from rlstats.tables import read_csv


@pytest.fixture
def mujoco(published):
    """The AdaStop MuJoCo scores (4 agents, 5 tasks, 5 to 30 runs a cell), raw returns."""
    return read_csv(published / "mujoco_batches.csv")


def _small(metrics, interval="studentized"):
    data = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, effect=1.0, rng=3)
    return rlstats.bootstrap(data, "score ~ agent | task", metrics=metrics, n_resamples=100, interval=interval,
                             normalize=False, gamma=float(data.score.median()), rng=0)


# ----------------------------------------------------------------------------- report(): only the metrics computed

def test_report_describes_only_the_intervals_of_the_metrics_computed():
    """The report described the median's t interval, the mean's and median's skew widening and the IQM's winsorising
    whatever metrics were asked: an IQM-only report (the Atari 100k subset of the audit) told how a median interval
    it did not give was made. Now each part is said of the metrics computed, and the median's t interval is not
    called studentised."""
    iqm = _small(["iqm"]).report(format="text")
    assert "median" not in iqm and "widened on the side" not in iqm and "Welch" not in iqm
    assert "Each interval is studentised (bootstrap-t; Efron and Tibshirani 1993, Section 12.5)" in iqm
    assert "(winsorised for the IQM)" in iqm
    median = _small(["median"]).report(format="text")
    assert "studentised (bootstrap-t" not in median and "IQM" not in median and "Welch" not in median
    assert ("The median of task means takes a t interval, with its middle task's degrees of freedom, of standard "
            "error sqrt(c/(c - 1)) times the resamples' root-mean-square deviation from the estimate, c = 5 the fewest "
            "runs in a task; the median's interval is widened on the side of its skew") in median
    mean = _small(["mean"]).report(format="text")
    assert "median" not in mean and "IQM" not in mean and "optimality gap" not in mean
    assert "the mean's interval is widened on the side of its skew" in mean
    assert "the mean's interval takes on each side the wider of that bound and the Welch t bound" in mean
    gap = _small(["optimality_gap"]).report(format="text")
    assert "interval withheld" not in gap
    assert "widened on the side" not in gap and "the optimality gap's interval takes on each side the wider" in gap
    full = _small(["iqm", "mean", "median", "optimality_gap"]).report(format="text")
    assert "The intervals of the IQM, mean and optimality gap are studentised (bootstrap-t" in full
    assert "the mean's and the median's intervals are widened on the side of their skew" in full
    assert "the mean's and the optimality gap's intervals take on each side the wider" in full
    unwidened = _small(["iqm", "mean", "median"], interval="studentized_unwidened").report(format="text")
    assert "widened on the side" not in unwidened and "Welch" not in unwidened


# ----------------------------------------------------------------------------- figures at a column's width

def test_probability_of_improvement_label_is_not_broken_at_its_division():
    """At a 3.3 in column the probability of improvement's x label was broken as 'P(X > Y) + P(X = Y) /' over
    '2, averaged over tasks' (read as a division by the second line); a spaced division is now kept whole
    (``plotting.unbroken_parentheses``), and the label breaks after the formula."""
    import matplotlib.pyplot as plt

    from rlstats.plotting import unbroken_parentheses

    data = rlstats.datasets.simulate(agents=4, tasks=3, seeds=5, effect=1.0, rng=0)
    res = rlstats.probability_of_improvement(data, "score ~ agent | task", rng=0)
    ax = res.plot(figsize=(3.3, 3.0))
    try:
        assert ax.get_xlabel() == "P(X > Y) + P(X = Y) / 2,\naveraged over tasks"
    finally:
        plt.close(ax.figure)
    assert unbroken_parentheses("a / b and c/d, PPO / LunarLander (x = 1)") == \
        "a\xa0/\xa0b and c/d, PPO / LunarLander (x\xa0=\xa01)"


def test_report_with_every_interval_withheld_says_none_is_given():
    """One task of 3 runs an agent (the SB3 CartPole runs' design): every interval is withheld, yet the report said
    it reported "95% studentized confidence intervals" and described how they were made. Now it says they are all
    withheld, and the notes that follow say why."""
    data = rlstats.datasets.simulate(agents=2, tasks=1, seeds=3, effect=1.0, rng=0)
    res = rlstats.bootstrap(data, "score ~ agent | task", metrics=["iqm", "mean"], n_resamples=200, rng=0)
    assert np.isnan(res.intervals).all()
    text = res.report(format="text")
    assert text.startswith("We report IQM and mean for 2 agents on 1 task (3 runs per agent and task); their 95% "
                           "studentized confidence intervals from 200 stratified bootstrap resamples (Agarwal et al. "
                           "(2021); the runs resampled with replacement) are all withheld, for the reasons given "
                           "below. The IQM is the mean of the middle 50%")
    assert "studentised (bootstrap-t" not in text and "Monte Carlo standard error" not in text
    assert "Studentized intervals withheld on a single task for the IQM of agent_1 (3) and agent_2 (3)" in text
    given = rlstats.bootstrap(data, "score ~ agent | task", metrics=["iqm"], n_resamples=200, rng=0,
                              interval="percentile").report(format="text")
    assert "with 95% percentile confidence intervals from 200" in given and "withheld, for" not in given


# ----------------------------------------------------------------------------- numbers against independent values

def test_atari_aggregates_equal_numpy_and_the_welch_floor_its_closed_form(atari, mirror):
    """CURL, IRIS and SPR on the 26 Atari 100k games, human-normalised: the IQM (floor(N/4) trimmed off each end of
    the pooled runs), the mean and median of task means and the optimality gap equal numpy's; a mean bound the Welch t
    floor set equals estimate -+ t_df sqrt(c/(c - 1)) SE, df Welch-Satterthwaite's, and every other lies outside it."""
    from scipy import stats

    data = atari[atari.agent.isin(["CURL", "IRIS", "SPR"])]
    res = rlstats.bootstrap(data, "score ~ agent | task", normalize="atari100k_reference", n_resamples=200, rng=0)
    reference = rlstats.datasets.load("atari100k_reference")
    joined = data.merge(reference, on="task")
    joined["y"] = (joined.score - joined.random) / (joined.human - joined.random)
    table = res.tidy().set_index(["agent", "metric"])
    for j, (agent, runs) in enumerate(joined.groupby("agent")):
        pooled = np.sort(runs.y.to_numpy())
        cut = len(pooled) // 4
        by_task = runs.groupby("task").y
        means = by_task.mean()
        assert table.loc[(agent, "iqm"), "estimate"] == pytest.approx(pooled[cut:len(pooled) - cut].mean(), abs=1e-14)
        assert table.loc[(agent, "mean"), "estimate"] == pytest.approx(means.mean(), abs=1e-14)
        assert table.loc[(agent, "median"), "estimate"] == pytest.approx(means.median(), abs=1e-14)
        assert table.loc[(agent, "optimality_gap"), "estimate"] == pytest.approx(
            np.maximum(1 - runs.y.to_numpy(), 0).mean(), abs=1e-14)
        share = by_task.var(ddof=1) / by_task.size()
        df = share.sum() ** 2 / (share ** 2 / (by_task.size() - 1)).sum()
        c = by_task.size().min()
        half = stats.t.ppf(0.975, df) * np.sqrt(c / (c - 1)) * np.sqrt(share.sum()) / len(means)
        low, high = table.loc[(agent, "mean"), ["conf_low", "conf_high"]]
        floored = res.welch_floored[res.agents.index(agent), res.metrics.index("mean")]
        for bound, welch, set_by_floor, outside in ((low, means.mean() - half, floored[0], np.less),
                                                    (high, means.mean() + half, floored[1], np.greater)):
            if set_by_floor:
                assert bound == pytest.approx(welch, abs=1e-12)
            else:
                assert outside(bound, welch)
    assert res.welch_floored[:, res.metrics.index("mean"), 0].all()  # the floor set every lower bound here


def test_percentile_interval_brackets_the_enumerated_bootstrap_quantiles(sb3_evaluations):
    """A2C and PPO's last evaluations on CartPole-v1 and Acrobot-v1 (3 runs a cell, 27 x 27 = 729 equally likely
    stratified resamples): each percentile bound of the IQM (one run cut from each end of 6) and of the mean lies where
    the enumerated bootstrap distribution crosses 0.025 and 0.975, within Monte Carlo error of 20,000 resamples."""
    import itertools

    runs = sb3_evaluations
    last = runs[(runs.step == runs.groupby(["agent", "task"]).step.transform("max")) & (runs.agent != "DQN")]
    res = rlstats.bootstrap(last, "score ~ agent | task", metrics=["iqm", "mean"], interval="percentile",
                            n_resamples=20000, normalize=False, rng=1)
    draws = np.array(list(itertools.product(range(3), repeat=3)))
    slack = 0.006  # about 4 Monte Carlo SEs of a share near 0.025 from 20,000 resamples
    for agent in ("A2C", "PPO"):
        cells = [last[(last.agent == agent) & (last.task == task)].sort_values("seed").score.to_numpy()
                 for task in ("Acrobot-v1", "CartPole-v1")]
        first, second = cells[0][draws], cells[1][draws]  # (27, 3) each
        a = np.repeat(first, 27, axis=0)
        b = np.tile(second, (27, 1))
        pooled = np.sort(np.concatenate([a, b], axis=1), axis=1)
        values = {"mean": (a.mean(axis=1) + b.mean(axis=1)) / 2, "iqm": pooled[:, 1:5].mean(axis=1)}
        for metric, exact in values.items():
            row = res.tidy().query("agent == @agent and metric == @metric").iloc[0]
            for bound, level in ((row.conf_low, 0.025), (row.conf_high, 0.975)):
                assert (exact < bound - 1e-9).mean() <= level + slack
                assert (exact <= bound + 1e-9).mean() >= level - slack
    iqm = res.tidy().set_index(["agent", "metric"]).loc[("A2C", "iqm")]
    assert iqm.estimate == pytest.approx(96.0, abs=1e-9)  # (-177.4 - 89.8 + 244.8 + 406.4) / 4


def test_probability_of_improvement_equals_a_stratified_hanley_mcneil_score_interval(mujoco):
    """On the MuJoCo batches (5 tasks, 5 to 30 runs a cell) each pair's estimate is the mean over tasks of the
    Mann-Whitney share (ties one half), and its interval the p where (p - estimate)^2 = z^2 V(p), V the mean over
    tasks of Hanley and McNeil's variance at p divided by the number of tasks, solved with brentq."""
    from scipy import optimize, stats

    res = rlstats.probability_of_improvement(mujoco, "score ~ agent | task", rng=0)
    z = stats.norm.ppf(0.975)
    tasks = sorted(mujoco.task.unique())
    for row in res.tidy().itertuples():
        shares, sizes = [], []
        for task in tasks:
            x = mujoco[(mujoco.agent == row.agent_1) & (mujoco.task == task)].score.to_numpy()
            y = mujoco[(mujoco.agent == row.agent_2) & (mujoco.task == task)].score.to_numpy()
            shares.append(((x[:, None] > y).sum() + 0.5 * (x[:, None] == y).sum()) / (len(x) * len(y)))
            sizes.append((len(x), len(y)))
        estimate = float(np.mean(shares))

        def excess(p):
            q1, q2 = p / (2 - p), 2 * p * p / (1 + p)
            variance = sum((p * (1 - p) + (m - 1) * (q1 - p * p) + (n - 1) * (q2 - p * p)) / (m * n)
                           for m, n in sizes) / len(sizes) ** 2
            return (p - estimate) ** 2 - z * z * variance

        assert row.estimate == pytest.approx(estimate, abs=1e-14)
        assert row.conf_low == pytest.approx(optimize.brentq(excess, 1e-12, estimate, xtol=1e-14), abs=1e-10)
        assert row.conf_high == pytest.approx(optimize.brentq(excess, estimate, 1 - 1e-12, xtol=1e-14), abs=1e-10)
    assert res.tidy().query("agent_1 == 'SAC' and agent_2 == 'TRPO'").estimate.item() == pytest.approx(0.956222,
                                                                                                        abs=1e-6)


def test_performance_profile_is_the_mean_over_tasks_of_the_share_above_tau(mujoco):
    res = rlstats.performance_profile(mujoco, "score ~ agent | task", tau=[0, 1000, 2500.5, 5000], rng=0)
    for row in res.tidy().itertuples():
        runs = mujoco[mujoco.agent == row.agent]
        assert row.estimate == pytest.approx(runs.groupby("task").score.apply(lambda s: (s > row.tau).mean()).mean(),
                                             abs=1e-14)


# ----------------------------------------------------------------------------- invariances on real scores

def _numbers(table, columns=("estimate", "conf_low", "conf_high")):
    return table[list(columns)].to_numpy(dtype=float)


def test_mujoco_aggregates_follow_units_shift_row_order_and_polars(mujoco):
    """Raw MuJoCo returns: the IQM, mean and median (estimates and bounds) scale by 1000 and move by 5000 with the
    scores; the optimality gap does so with gamma given in the same units (gamma 1000 -> 1e6; +5000 leaves it); a
    shuffled frame and a polars frame give the same bits. Percentiles and the probability of improvement depend on
    the scores' order within a task alone: the same under a*y + b and exp(y / 1000)."""
    formula = "score ~ agent | task"

    def boot(data, gamma):
        return rlstats.bootstrap(data, formula, n_resamples=200, normalize=False, gamma=gamma, rng=0).tidy()

    base = boot(mujoco, 1000.0)
    np.testing.assert_allclose(_numbers(boot(mujoco.assign(score=mujoco.score * 1000), 1e6)), _numbers(base) * 1000,
                               rtol=1e-12)
    shifted = boot(mujoco.assign(score=mujoco.score + 5000), 6000.0)
    gap = (base.metric == "optimality_gap").to_numpy()
    np.testing.assert_allclose(_numbers(shifted)[~gap], _numbers(base)[~gap] + 5000, rtol=1e-12)
    np.testing.assert_allclose(_numbers(shifted)[gap], _numbers(base)[gap], rtol=1e-9, atol=1e-9)
    shuffled = mujoco.sample(frac=1, random_state=3)
    np.testing.assert_array_equal(_numbers(boot(shuffled, 1000.0)), _numbers(base))
    pl = pytest.importorskip("polars")
    np.testing.assert_array_equal(_numbers(boot(pl.from_pandas(mujoco), 1000.0)), _numbers(base))

    percentiles = rlstats.percentiles(mujoco, formula).tidy()
    improvement = rlstats.probability_of_improvement(mujoco, formula, rng=0).tidy()
    for other in (mujoco.assign(score=mujoco.score * 1000 + 7), mujoco.assign(score=np.exp(mujoco.score / 1000)),
                  shuffled):
        np.testing.assert_array_equal(_numbers(rlstats.percentiles(other, formula).tidy()), _numbers(percentiles))
        np.testing.assert_array_equal(_numbers(rlstats.probability_of_improvement(other, formula, rng=0).tidy()),
                                      _numbers(improvement))
    assert percentiles.set_index("agent").loc["SAC", "estimate"] == pytest.approx(0.525501, abs=1e-6)


def test_normalised_atari_is_the_same_with_scores_and_reference_in_other_units(atari, mirror):
    """Human-normalised scores do not move when the raw scores and the reference's random and human scores are given
    together in other units (x 1000)."""
    data = atari[atari.agent.isin(["DER", "IRIS"]) & atari.task.isin(["Pong", "Boxing", "Breakout", "Qbert"])]
    reference = rlstats.datasets.load("atari100k_reference")
    formula = "score ~ agent | task"
    base = rlstats.bootstrap(data, formula, normalize="atari100k_reference", n_resamples=200, rng=0).tidy()
    scaled = rlstats.bootstrap(data.assign(score=data.score * 1000), formula,
                               normalize=reference.assign(random=reference.random * 1000,
                                                          human=reference.human * 1000),
                               n_resamples=200, rng=0).tidy()
    np.testing.assert_allclose(_numbers(scaled), _numbers(base), rtol=1e-10, atol=1e-12)


def test_subset_option_equals_a_pandas_subset_and_says_what_it_kept(mujoco):
    """compare(subset=) (the option; bootstrap() and percentiles() take none) gives the numbers of the same rows
    selected with pandas, and its note counts them; the copied-runs note of a pandas subset names the cells left."""
    formula = "score ~ agent | task"
    condition = "agent != 'SAC' and task != 'hopper'"
    kept = mujoco[(mujoco.agent != "SAC") & (mujoco.task != "hopper")]
    by_option = rlstats.compare(mujoco, formula, method="bootstrap", subset=condition, n_resamples=200, rng=0)
    by_pandas = rlstats.bootstrap(kept, formula, n_resamples=200, rng=0)
    np.testing.assert_array_equal(_numbers(by_option.tidy()), _numbers(by_pandas.tidy()))
    assert f'subset="{condition}" kept 250 of 415 rows' in by_option.notes
    assert by_option.n_agents == 3 and by_option.n_tasks == 4 and by_option.nobs == 250 == len(kept)
    percentiles = rlstats.compare(mujoco, formula, method="percentiles", subset=condition)
    np.testing.assert_array_equal(_numbers(percentiles.tidy()),
                                  _numbers(rlstats.percentiles(kept, formula).tidy()))
    no_sac = rlstats.percentiles(mujoco[mujoco.agent != "SAC"], formula)
    assert any(note.startswith("20 runs repeat another run's score exactly within 2 agent x task cells (hopper: "
                               "DDPG 10 of 30, PPO 10 of 30)") for note in no_sac.notes)


def test_subset_given_to_a_function_without_it_says_how_to_select_rows():
    """bootstrap(subset=...) (R's habit; compare() and curves() take it) was refused with the options list alone;
    now the error says how to select the rows (a mask, or compare()'s subset=; no pandas query(), which evaluates
    text outside the restricted grammar)."""
    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    with pytest.raises(rlstats.errors.OptionError) as error:
        rlstats.bootstrap(data, "score ~ agent | task", subset="task != 'task_01'")
    assert str(error.value).startswith(
        "bootstrap() has no option 'subset'; select the rows first with a boolean mask of the rows (data=df[mask] to "
        "rlstats.bootstrap); its options are: metrics, n_resamples,")  # audit s35: one wording (rows_way)
    with pytest.raises(rlstats.errors.OptionError) as error:
        rlstats.percentiles(data, "score ~ agent | task", subset=(data.task != "task_01").to_numpy())
    assert "select the rows first with a boolean mask of the rows (data=df[mask] to rlstats.percentiles)" in str(
        error.value)
    assert "False" not in str(error.value)  # the mask is not printed


def test_gap_withheld_note_says_the_case_of_the_runs_analysed():
    """PPO's last evaluations on the SB3 logs: all -500 on Acrobot (a tie), all above gamma = 1 on CartPole, so its
    gap is (501 + 0) / 2 in every resample and its interval is withheld. The note said the runs tie in every task or
    all lie at or above gamma, neither of which holds; it now says what does: in every task they tie or lie at or
    above gamma."""
    import pandas as pd

    runs = pd.DataFrame({"agent": ["PPO"] * 6 + ["A2C"] * 6,
                         "task": (["Acrobot-v1"] * 3 + ["CartPole-v1"] * 3) * 2,
                         "score": [-500.0, -500.0, -500.0, 326.6, 321.0, 363.6,
                                   -500.0, -89.8, -177.4, 406.4, 495.2, 244.8]})
    res = rlstats.bootstrap(runs, "score ~ agent | task", metrics=["optimality_gap"], n_resamples=200,
                            normalize=False, rng=0)
    ppo = res.agents.index("PPO")
    assert np.isnan(res.intervals[ppo, 0]).all() and res.estimates[ppo, 0] == pytest.approx(250.5)  # (501 + 0) / 2
    note = next(n for n in res.notes if "no spread to studentise" in n)
    assert "in every task they tie or lie at or above gamma" in note


def test_profile_band_on_one_task_is_newcombes_continuity_corrected_wilson(published):
    """HalfCheetah SAC (192 runs) and TD3 (193), one task: the profile's band at each tau is the continuity-corrected
    Wilson interval of the share of runs above tau (Newcombe 1998, method 4), written out here."""
    from scipy import stats

    runs = read_csv(published / "halfcheetah_sac_td3.csv")
    res = rlstats.performance_profile(runs, "score ~ agent | task", tau=[0, 8000, 11000, 12000, 13000, 20000], rng=0)
    z = stats.norm.ppf(0.975)
    for row in res.tidy().itertuples():
        x = runs[runs.agent == row.agent].score.to_numpy()
        n, p = len(x), float((x > row.tau).mean())
        low = 0.0 if p == 0 else (2 * n * p + z * z - 1 - z * np.sqrt(z * z - 2 - 1 / n + 4 * p * (n * (1 - p) + 1))) \
            / (2 * (n + z * z))
        high = 1.0 if p == 1 else (2 * n * p + z * z + 1 + z * np.sqrt(z * z + 2 - 1 / n + 4 * p * (n * (1 - p) - 1))) \
            / (2 * (n + z * z))
        assert row.estimate == pytest.approx(p, abs=1e-15)
        assert row.conf_low == pytest.approx(max(low, 0.0), abs=1e-13)
        assert row.conf_high == pytest.approx(min(high, 1.0), abs=1e-13)
    sac = res.tidy().query("agent == 'SAC' and tau == 12000").iloc[0]
    assert sac.estimate == pytest.approx(122 / 192)
