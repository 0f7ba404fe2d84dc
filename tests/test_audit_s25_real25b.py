"""Audit s25 (real25b): the tuning views, power planning from a real pilot and the mixed model on published data,
each number checked against an independent computation, each printed count against the rows analysed.

Independent values: the expected maximum by its closed form over the configurations' means (computed here, with
``math.comb``); the best-set bootstrap and the pilot's power by hand loops in ``tests/reference/tuning_power_real25b.py``
(which prints the numbers quoted below); the mixed model by lme4 1.1-31 / lmerTest 3.1-3 / pbkrtest 0.5-2 /
emmeans 1.8.4-1 from ``tests/reference/mixed_mujoco_real25b_r.R`` (``mixed_mujoco_real25b_r.json``).
Tests reading the published data skip with the reason when neither ../shared/data nor the mirror is here.
One defect: the mixed model's Satterthwaite F followed a Categorical's category order (the last tests); the rest keep
what was checked and found true."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import load_dataset
import rlstats
from rlstats.tables import read_csv

HPO = "ADA-research/combined_hpo_and_reward_shaping/0012b924873a42c3b9a9d0c9766f0b0f92d767aa"
LANDSCAPE = f"{HPO}/experimental_results/landscape_analysis/learning-rate_velocity-weight.csv"
R = json.loads((Path(__file__).parent / "reference" / "mixed_mujoco_real25b_r.json").read_text())


def _landscape(root, rows):
    """The published landscape's ``rows`` (file rows) as one row per seed: config = file row."""
    raw = read_csv(root / LANDSCAPE).iloc[rows]
    scores = raw["final_mean_return"].str.strip("[]").str.split(",", expand=True).astype(float)
    n = scores.shape[1]
    return pd.DataFrame({"agent": "PPO", "task": "LunarLander", "config": np.repeat(np.asarray(rows), n),
                         "seed": np.tile(np.arange(n), len(rows)), "score": scores.to_numpy().ravel()})


def test_tuning_expected_max_and_complete_match_closed_forms_on_a_real_sweep(mirror_root):
    """60 configurations x 10 seeds of the published landscape: the expected best of k configurations, with and
    without replacement, equals the order-statistic closed form over the configurations' means; the complete
    algorithm's estimate is their mean; 600 runs and 60 configurations are counted."""
    data = _landscape(mirror_root, list(range(60)))
    res = rlstats.tuning(data, "score ~ agent | task/seed", config="config", views=["expected_max", "complete"],
                         rng=0)
    m = np.sort(data.groupby("config").score.mean().to_numpy())
    N, i = m.size, np.arange(1, m.size + 1)
    em = res.expected_max().set_index(["budget", "sampling"]).estimate
    for k in (1, 2, 5, 10, 37, 60):
        without = sum(m[j - 1] * comb(j - 1, k - 1) for j in i) / comb(N, k)
        with_ = float(np.sum(m * ((i / N) ** k - ((i - 1) / N) ** k)))
        assert em[(k, "without replacement")] == pytest.approx(without, rel=1e-12)
        assert em[(k, "with replacement")] == pytest.approx(with_, rel=1e-12)
    assert em[(1, "without replacement")] == pytest.approx(577.21, abs=0.005)
    assert em[(10, "without replacement")] == pytest.approx(987.30, abs=0.005)
    row = res.complete_summary().iloc[0]
    assert row.estimate == pytest.approx(m.mean(), rel=1e-13)
    assert (row.n_configs, row.n_runs) == (60, 600)
    assert res.n_configs.tolist() == [[60]]


def test_tuning_best_set_matches_a_hand_bootstrap_on_a_real_sweep(mirror_root):
    """8 close configurations (means 997.20-997.22): each one's probability of being best and the tuned score's
    optimism agree with a hand loop of 20,000 resamples (tests/reference/tuning_power_real25b.py) within 4 Monte
    Carlo standard errors of their difference; the interval's upper end is the closed form."""
    rows = [540, 965, 974, 3494, 4369, 8123, 8491, 9415]
    hand = {540: 0.084, 965: 0.1241, 974: 0.1318, 3494: 0.157, 4369: 0.1747, 8123: 0.1086, 8491: 0.1411,
            9415: 0.0787}
    data = _landscape(mirror_root, rows)
    B = 20_000
    res = rlstats.tuning(data, "score ~ agent | task/seed", config="config", views=["best_set"], rng=3,
                         n_resamples=B)
    best = res.best_set()
    got = dict(zip(best.config.str.removeprefix("config=").astype(int), best.probability_best))
    for row, p in hand.items():
        assert abs(got[row] - p) < 4 * np.sqrt(2 * p * (1 - p) / B)
    tuned = res.tuned().iloc[0]
    assert tuned.optimism == pytest.approx(1.63289, abs=0.05)  # hand loop's mean optimism
    stats_ = data.groupby("config").score.agg(["mean", "std"])
    winner = stats_["mean"].idxmax()
    assert tuned.config == f"config={winner}" and winner == 8123
    half = stats.t.ppf(0.975, 9) * max(stats_.loc[winner, "std"], np.sqrt(np.mean(stats_["std"] ** 2))) / np.sqrt(10)
    assert tuned.conf_high == pytest.approx(stats_.loc[winner, "mean"] + half, rel=1e-12)
    assert tuned.conf_high == pytest.approx(1000.1283, abs=1e-4)


def test_tuning_procedures_counts_interval_units_and_row_order(mirror):
    """PPO's tuning procedures (return objective) of Dierkes et al. after drop_duplicates(): 15 sweeps, 63
    configurations in all (3 baselines of one), the deduplicated tuning runs counted with 9 seeds; each tuned
    interval's upper end is the winner's mean plus t times the larger of its and the pooled SD over sqrt(n); the
    tables are unchanged (but for the unit) by scores in thousands and shuffled rows."""
    opt = load_dataset("hpo_optimisation")
    data = opt[(opt.algorithm == "ppo") & (opt.objective == "return")].drop_duplicates()
    formula = "score ~ procedure | task/tuning_run/seed"
    res = rlstats.tuning(data, formula, rng=1, n_resamples=300)
    assert int(res.n_configs.sum()) == 63 and res.n_configs.shape == (3, 5)
    assert "15 sweeps (one per procedure and task) of 63 configurations in all" in res.report()
    tuned = res.tuned()
    assert sorted(tuned.n_runs.tolist()) == [9] + [10] * 14  # hpo=dehb, rpo=base on ant: run 3 lost a repeat
    for (procedure, task), g in data.groupby(["procedure", "task"]):
        s = g.groupby("tuning_run").score.agg(["mean", "std", "size"])
        sel = s["mean"].idxmax()
        dof = s["size"] - 1
        pooled = np.sqrt(np.nansum(dof * s["std"] ** 2) / dof.sum())
        n = s.loc[sel, "size"]
        upper = s.loc[sel, "mean"] + stats.t.ppf(0.975, n - 1) * max(s.loc[sel, "std"], pooled) / np.sqrt(n)
        row = tuned[(tuned.agent == procedure) & (tuned.task == task)].iloc[0]
        assert row.config == f"tuning_run={sel}"
        assert row.conf_high == pytest.approx(upper, rel=1e-12)
    other = data.sample(frac=1, random_state=5).assign(score=lambda d: d.score / 1000)
    res2 = rlstats.tuning(other, formula, rng=1, n_resamples=300)
    for view in ("tuned", "expected_max"):
        a, b = getattr(res, view)(), getattr(res2, view)()
        for column in ("estimate", "conf_low", "conf_high"):
            np.testing.assert_allclose(a[column] / 1000, b[column], rtol=1e-12)
    np.testing.assert_array_equal(res.best_set().probability_best, res2.best_set().probability_best)


GAMES = ["Pong", "Breakout", "Boxing", "Freeway", "Kangaroo"]


def test_power_from_an_atari_pilot_matches_an_independent_simulation(atari):
    """A pilot of DER and DrQ, 10 runs on 5 games, each agent resampled from its own runs: the blocked rank test's
    rate at 5 seeds (200 data sets) agrees with a hand simulation's (300 data sets, a permutation test of the
    summed midranks; tests/reference/tuning_power_real25b.py: 0.65) within 3 standard errors of the difference, and the print says what the pilot was and that nothing was shifted."""
    pilot = atari[atari.agent.isin(["DER", "DrQ"]) & atari.task.isin(GAMES) & (atari.seed < 10)]
    res = rlstats.power("skillings_mack", design=pilot, formula="score ~ agent | task", seeds=[5], n_sim=200,
                        rng=1)
    power = res.tidy().set_index("seeds").power
    assert power.index.tolist() == [5]  # its value checked against the hand simulation only (no pin of rng=1's draw)
    for seeds, hand in ((5, 0.65),):
        se = np.sqrt(power[seeds] * (1 - power[seeds]) / 200 + hand * (1 - hand) / 300)
        assert abs(power[seeds] - hand) < 3 * max(se, 0.01)
    text = str(res)
    assert "pilot of 2 agents x 5 tasks, 100 runs (resampled with replacement, each agent from its own runs)" in text
    assert "effect = 0, alpha = 0.05, 200 simulated data sets per number of seeds" in text
    assert "with no shift: this is the power at the differences the pilot shows, not a type-I error" in text


@pytest.mark.slow
def test_sample_size_from_an_atari_pilot_is_monotone_and_stated(atari):
    """sample_size on the same pilot (about 5 s): the rates it evaluated rise with the seeds and the answer is the
    fewest seeds from which every evaluated rate reaches 0.8. Each rate (200 data sets) agrees with the hand
    simulation's (300 data sets; tests/reference/tuning_power_real25b.py) within 3 standard errors of the difference
    (measured: at most 1.96 SE apart, at 2 seeds, on the pilot's draws since audit s34 powerstream34; 1.24 before)."""
    pilot = atari[atari.agent.isin(["DER", "DrQ"]) & atari.task.isin(GAMES) & (atari.seed < 10)]
    res = rlstats.sample_size("skillings_mack", 0.8, design=pilot, formula="score ~ agent | task", n_sim=200, rng=1,
                              max_seeds=40)
    rows = res.tidy().sort_values("seeds")
    # the seeds the search evaluated follow its rates: [2, 4, 5, 6, 7, 8] on the pilot's draws before audit s34
    # powerstream34 (94c33674: each pilot cell its own stream); since then 0.115, 0.32, 0.5, 0.695, 0.84, 0.935, 0.955,
    # 0.985, 1.0 at these, each against the hand simulation where it has one
    assert rows.seeds.tolist() == [2, 3, 4, 5, 6, 7, 8, 9, 12]
    assert np.all(np.diff(rows.power.to_numpy()) > 0)
    hand = {2: 0.1767, 4: 0.4867, 5: 0.65, 6: 0.7967, 7: 0.8967, 8: 0.9333}
    assert set(hand) < set(rows.seeds)
    for seeds, power in zip(rows.seeds, rows.power):
        if seeds not in hand:
            continue
        se = np.sqrt(power * (1 - power) / 200 + hand[seeds] * (1 - hand[seeds]) / 300)
        assert abs(power - hand[seeds]) < 3 * max(se, 0.01), (seeds, power, hand[seeds])
    # the answer: the fewest seeds from which every evaluated rate reaches 0.8 (7 by the hand simulation's 0.8967,
    # 6 seeds' 0.7967 lying 0.1 SE of 200 data sets below 0.8: either may come), read from the rates evaluated
    reached = rows.seeds[(rows.power >= 0.8)[::-1].cummin()[::-1]].min()
    assert reached in (6, 7) and f"Sample size for power 0.8: {reached} seeds" in str(res)


@pytest.mark.parametrize("ddf", ["satterthwaite", "kenward-roger"])
@pytest.mark.parametrize("name", ["all", "early", "missing3"])
def test_mixed_matches_lme4_on_the_mujoco_batches(published, name, ddf):
    """The AdaStop MuJoCo scores (4 agents x 5 tasks, 5 to 30 runs a cell; 'early': batches 1-2, SAC's halfcheetah
    cell left out): fixed effects, pairs, marginal means and the omnibus F as lme4/lmerTest/pbkrtest/emmeans give
    them (relative differences measured 1e-9 to 5e-7)."""
    mujoco = read_csv(published / "mujoco_batches.csv")
    data = {"all": mujoco, "missing3": _three_missing_cells(mujoco)}.get(
        name, mujoco.query("batch <= 2 and not (agent == 'SAC' and task == 'halfcheetah')"))
    ref = R[name]
    res = rlstats.mixed(data, "score ~ agent | task/seed", ddf=ddf, f_basis="lmertest")  # lmerTest's F df
    assert res.nobs == ref["n"]
    np.testing.assert_allclose(res.coefficients.estimate, ref["fixef"], rtol=1e-6)
    np.testing.assert_allclose(res.reml_criterion, ref["reml"], rtol=1e-9)
    out, r = res.tidy(), ref[ddf]
    for ours, theirs in (("estimate", "estimate"), ("std_error", "std_error"), ("df", "df"),
                         ("p_adjusted", "p_tukey"), ("conf_low", "conf_low"), ("conf_high", "conf_high")):
        np.testing.assert_allclose(out[ours], r[theirs], rtol=2e-6)
    means = res.emmeans
    np.testing.assert_allclose(means.estimate, r["emmean"], rtol=1e-6)
    np.testing.assert_allclose(means.std_error, r["emmean_se"], rtol=1e-6)
    np.testing.assert_allclose([res.statistic, res.df[1], res.pvalue], [r["f"], r["den_df"], r["f_p"]], rtol=2e-6)
    if name == "early":
        assert "SAC ran 4 of the 5 tasks" in str(res)
        assert out.n_shared_tasks.tolist() == [5, 4, 5, 4, 5, 4]


@pytest.mark.slow
def test_mixed_matches_lme4_on_all_of_atari_100k(atari):
    """All of Atari 100k, human-normalised (9 agents x 26 games, 5 to 100 runs a cell; about 3 s): pairs, marginal
    means and the omnibus F as lme4/lmerTest/emmeans give them with the agents in rlstats' order (the F's
    denominator df is lmerTest's for that order of levels: 190.589; in R's locale order, SimPLe before SPR, lmerTest
    gives 190.575 for the same F)."""
    ref = R["atari"]
    res = rlstats.mixed(rlstats.normalize(atari, "atari100k_reference"), "score ~ agent | task/seed")
    assert res.nobs == ref["n"] == 16_250
    np.testing.assert_allclose(res.coefficients.estimate, ref["fixef"], rtol=1e-8, atol=1e-10)
    out, r = res.tidy(), ref["satterthwaite"]
    assert [f"{a} - {b}" for a, b in zip(out.agent_1, out.agent_2)] == r["contrast"]
    for ours, theirs in (("estimate", "estimate"), ("std_error", "std_error"), ("df", "df"),
                         ("p_adjusted", "p_tukey"), ("conf_low", "conf_low"), ("conf_high", "conf_high")):
        # R's ptukey and qtukey integrate numerically: tail p-values (1e-7 to 1e-4 here) agree to 1e-5 relative and
        # the Tukey bounds to 1.3e-7 in intervals 0.8 wide
        atol = {"p_adjusted": 1e-9, "conf_low": 1e-6, "conf_high": 1e-6}.get(ours, 1e-12)
        np.testing.assert_allclose(out[ours], r[theirs], rtol=5e-6, atol=atol)
    np.testing.assert_allclose(res.emmeans.estimate, r["emmean"], rtol=1e-8)
    # R's numerical Hessian gives the six agents of 100 runs a game df 74.13210 to 74.13286 (CURL, the reference
    # level, lowest); rlstats one value, 74.13293, as the agents' identical cell counts make it
    np.testing.assert_allclose(res.emmeans.df, r["emmean_df"], rtol=2e-5)
    alike = res.emmeans.set_index("agent").df[["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]]
    np.testing.assert_allclose(alike, alike.iloc[0], rtol=1e-9)
    # lmerTest's anova() df is f_basis="lmertest"'s; the default since audit s33 mixed33 (f_basis="orthonormal", free
    # of the levels' order) gives 190.518 here, and the same F (audit s34 slow34: this slow test still compared the
    # default's df with lmerTest's 190.589)
    lmertest = rlstats.mixed(rlstats.normalize(atari, "atari100k_reference"), "score ~ agent | task/seed",
                             f_basis="lmertest")
    np.testing.assert_allclose([lmertest.statistic, lmertest.den_df], [r["f"], r["den_df"]], rtol=1e-6)
    np.testing.assert_allclose([res.statistic, res.den_df], [r["f"], 190.517812], rtol=1e-6)
    # a p-value of 5e-8 moves 30 times as fast as F: 1.2e-5 relative from F's 4e-7
    np.testing.assert_allclose(lmertest.pvalue, r["f_p"], rtol=3e-5)


def _three_missing_cells(mujoco):
    """The first batch (5 runs a cell) with SAC's halfcheetah and ant cells and PPO's walker cell left out."""
    return mujoco.query("batch == 1 and not (agent == 'SAC' and task in ['halfcheetah', 'ant']) "
                        "and not (agent == 'PPO' and task == 'walker')")


@pytest.mark.parametrize("ddf", ["satterthwaite", "kenward-roger"])
def test_mixed_f_test_does_not_depend_on_a_categoricals_order(published, ddf):
    """The same runs with the agent column as a Categorical in another category order printed another F test:
    denominator df 9.6942 to 9.7603 over the 24 orders (p-value 0.06434 to 0.06399), since lmerTest's F df depends on
    the basis of its contrasts, the Doolittle factor of X'X in the order of the levels. Now the contrasts are formed
    with the agents in their names' sorted order whatever the data's: lmerTest's numbers with the levels so ordered
    (tests/reference/mixed_mujoco_real25b_r.R, design 'missing3': 9.740055 df, p = 0.0640973) in every order.
    Kenward-Roger's F was the same in every order before and stays so."""
    data = _three_missing_cells(read_csv(published / "mujoco_batches.csv"))
    ref = R["missing3"][ddf]
    for categories in (None, ["TRPO", "SAC", "DDPG", "PPO"], ["SAC", "PPO", "TRPO", "DDPG"]):
        frame = data if categories is None else data.astype({"agent": pd.CategoricalDtype(categories)})
        res = rlstats.mixed(frame, "score ~ agent | task/seed", ddf=ddf, f_basis="lmertest")
        np.testing.assert_allclose([res.statistic, res.den_df], [ref["f"], ref["den_df"]], rtol=1e-6)
        np.testing.assert_allclose(res.pvalue, ref["f_p"], rtol=2e-6)
    assert f"denom df = {9.7401 if ddf == 'satterthwaite' else 9.8522}" in str(res)
