"""Audit s23 (boot23): the stratified bootstrap and ``compare`` as a paper author uses them on Atari 100k (9 agents x
26 games, human-normalised, 3 and 5 runs per game drawn from the published runs)."""

import pandas as pd
import pytest

import rlstats
from rlstats.methods.bootstrap import _small_runs as small_runs


@pytest.fixture(scope="module")
def atari(published):
    return pd.read_csv(published / "atari100k.csv")


def _first_runs(frame, runs):
    return frame.groupby(["agent", "task"]).head(runs).reset_index(drop=True)


def test_coverage_note_quotes_the_rows_of_the_designs_tasks(atari):
    res = rlstats.bootstrap(_first_runs(atari, 3), "score ~ agent | task/seed", normalize="atari100k_reference",
                            metrics=["iqm"], interval="percentile", n_resamples=200, rng=0, progress=False)
    note = next(n for n in res.notes if "are few for percentile intervals" in n)
    # the calibration table's bootstrap.interval rows at 26 tasks x 3 runs: percentile IQM 0.850, 0.850, 0.881,
    # 0.869 (normal, skewed, heavy-tailed, capped); the default's 0.979, 0.990, 0.990, 0.985
    assert "on 26 tasks with 3 runs per task, nominal 95% intervals covered 0.85 to 0.88" in note
    assert 'interval="studentized" (the default) covered 0.98 to 0.99' in note
    # before: "in simulations with 3 runs per task, nominal 95% intervals covered 0.72 to 0.88; ... 0.96 to 0.99" (the
    # 1-, 5- and 26-task rows pooled)


def test_coverage_note_at_five_runs_reads_the_26_task_rows(atari):
    # 26 tasks x 5 runs: the percentile IQM's rows hold 95% by the table's rule (0.931, 0.956, 0.938, 0.912 of 160),
    # so no note (before: "covered 0.82 to 0.96", from the 1- and 5-task rows); the median's miss (0.894 skewed)
    res = rlstats.bootstrap(_first_runs(atari, 5), "score ~ agent | task/seed", normalize="atari100k_reference",
                            metrics=["iqm", "median"], interval="percentile", n_resamples=200, rng=0,
                            progress=False)
    few = [n for n in res.notes if "are few for" in n]
    assert few == ["5 runs per task are few for percentile intervals of the median: in simulations on 26 tasks with 5 "
                   "runs per task, nominal 95% intervals covered 0.89 to 0.96; interval=\"studentized\" (the default) "
                   "covered 0.99 to 0.99"]


def test_grid_tasks_bracketing_the_design():
    # nearest23: the log-nearest count (nearest_count, 10 tasks -> 5) gave way to the counts bracketing the design
    from rlstats.calibration import bracketing_counts
    assert [bracketing_counts({1, 5, 26}, n) for n in (2, 5, 10, 11, 12, 26, 57)] == [
        (1, 5), (5,), (5, 26), (5, 26), (5, 26), (26,), (26,)]
    # the rows read: 10 tasks quote the 5- and 26-task rows (percentile IQM at 3 runs 0.800 to 0.881; the 5-task
    # rows' 0.800 to 0.850 before), one task its own
    assert small_runs.measured_coverage("percentile", "iqm", tasks=10)[3] == (0.8, 0.88125)
    assert small_runs.measured_coverage("percentile", "iqm", tasks=26)[3] == (0.85, 0.88125)
    note = small_runs.coverage_note("percentile", "IQM", "iqm", 3, tasks=10)
    assert "in simulations on 5 and 26 tasks with 3 runs per task, nominal 95% intervals covered 0.80 to 0.88" in note


# ----------------------------------------------------------------------------- numbers against independent values


def test_percentile_bounds_are_the_exact_bootstrap_quantiles_of_an_enumerated_case():
    # one agent, 2 tasks x 3 runs: the exact stratified bootstrap distribution is the 27 x 27 equally likely
    # resamples, here enumerated with scipy's trim_mean (the IQM, one run cut from each end of 6) and the mean of task
    # means; its inverted-CDF 2.5% and 97.5% quantiles are atoms the 20,000 drawn resamples' bounds land on
    import itertools

    import numpy as np
    from scipy import stats

    runs = {"a": [0.1, 0.7, 2.0], "b": [0.3, 1.1, 1.6]}
    exact = []
    for ia in itertools.product(range(3), repeat=3):
        for ib in itertools.product(range(3), repeat=3):
            a, b = [runs["a"][i] for i in ia], [runs["b"][i] for i in ib]
            exact.append((stats.trim_mean(a + b, 0.25), (np.mean(a) + np.mean(b)) / 2))
    quantiles = np.quantile(np.array(exact), [0.025, 0.975], axis=0, method="inverted_cdf").T
    np.testing.assert_allclose(quantiles, [[0.35, 1.675], [13 / 30, 1.5]])
    frame = pd.DataFrame([("A", t, k, y) for t, ys in runs.items() for k, y in enumerate(ys)],
                         columns=["agent", "task", "seed", "score"])
    res = rlstats.bootstrap(frame, "score ~ agent | task", metrics=["iqm", "mean"], interval="percentile",
                            n_resamples=20_000, rng=0, progress=False)
    np.testing.assert_allclose(res.intervals[0], quantiles, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.tidy()["estimate"], [0.925, 0.9666666666666667])


def test_default_mean_bound_is_the_welch_t_bound_where_that_is_wider(atari):
    # Atari 100k, 3 runs per game, human-normalised: the default's mean bounds of DER (upper), OTRainbow (upper) and
    # CURL (lower) are the closed-form Welch bound, estimate -+ t_{0.975, df} sqrt(3/2) SE, computed here from the
    # reference table by hand (scipy's t; SE and df from the per-game sample variances); IRIS's lower one is its
    # bootstrap-t bound, below (wider than) that Welch bound (it was the Welch bound before audit s33 keyed each
    # cell's stream by its task's name: its bootstrap-t bound then lay inside)
    import numpy as np
    from scipy import stats

    d = _first_runs(atari, 3)
    res = rlstats.bootstrap(d, "score ~ agent | task/seed", normalize="atari100k_reference", metrics=["mean"],
                            n_resamples=500, rng=0, progress=False)
    tidy = res.tidy().set_index("agent")
    reference = rlstats.datasets.load("atari100k_reference").set_index("task")
    expected = {"DER": (1, 0.39687635490543177), "OTRainbow": (1, 0.24939398508203683),
                "CURL": (0, 0.19317589060639984), "IRIS": (0, 0.8534604069213716)}
    for agent, (side, value) in expected.items():
        runs = d[d.agent == agent]
        low, high = reference.loc[runs.task, "random"].to_numpy(), reference.loc[runs.task, "human"].to_numpy()
        y = pd.Series((runs.score.to_numpy() - low) / (high - low)).groupby(runs.task.to_numpy())
        share = y.var(ddof=1) / y.size()
        se = np.sqrt(share.sum()) / len(share)
        df = share.sum() ** 2 / (share ** 2 / (y.size() - 1)).sum()
        half = stats.t.ppf(0.975, df) * np.sqrt(3 / 2) * se
        by_hand = y.mean().mean() + (half if side else -half)
        assert by_hand == pytest.approx(value, abs=1e-9)  # scipy versions differ in t.ppf by 2e-12
        if agent == "IRIS":  # the wider of the two: its bootstrap-t bound, 0.8485
            assert tidy.loc[agent, "conf_low"] < by_hand - 1e-3 and not res.welch_floored[res.agents.index(agent), 0, 0]
            continue
        assert tidy.loc[agent, "conf_high" if side else "conf_low"] == pytest.approx(by_hand, abs=1e-12)


# ----------------------------------------------------------------------------- figures


def test_probability_of_improvement_bars_stay_off_the_spines(atari):
    import numpy as np

    res = rlstats.probability_of_improvement(_first_runs(atari, 3), "score ~ agent | task/seed",
                                             normalize="atari100k_reference", rng=0, progress=False)
    ax = res.plot()
    low, high = np.nanmin(res.intervals[:, 0]), np.nanmax(res.intervals[:, 1])
    assert low == pytest.approx(0.078279, abs=1e-6)
    left, right = ax.get_xlim()
    span = high - low
    assert left < low - 0.05 * span and right > high + 0.05 * span, (left, right, low, high)
    # before: xlim (0.0783, 0.948), the lowest bar's left end on the spine; now 10% of the bars' span (0.0783 to
    # 0.9068) each side
    assert (left, right) == pytest.approx((-0.0046, 0.9897), abs=1e-4)
