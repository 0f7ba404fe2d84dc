"""Audit s19 (gap19): the optimality gap's raw-scores note where few runs fall below gamma, the nested-seed note's
plural, the permutation test's advice on balancing runs, and the p-value printed beside a verdict beyond the margin.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.tables import read_csv

GAP_NOTE = "the optimality gap is the mean shortfall below gamma"


@pytest.fixture
def halfcheetah(published):
    """HalfCheetah final returns, SAC (192 runs) and TD3 (193), Colas et al. 2019."""
    return read_csv(published / "halfcheetah_sac_td3.csv")


def _gap_notes(res):
    return [n for n in res.notes if n.startswith(GAP_NOTE)]


def _one_task(scores_a, scores_b):
    return pd.DataFrame({"agent": ["A"] * len(scores_a) + ["B"] * len(scores_b), "task": "t",
                         "score": np.r_[scores_a, scores_b]})


def test_gap_on_raw_scores_decided_by_one_run_is_said_so(halfcheetah):
    """HalfCheetah SAC/TD3, raw returns, gamma = 1: SAC's one run at -565.6166 is the only score of 385 below gamma,
    so SAC's gap is (1 + 565.6166) / 192 = 2.9511 and TD3's 0: a number about one run, now said so."""
    res = rlstats.bootstrap(halfcheetah, "score ~ agent", metrics=["optimality_gap"], n_resamples=200, rng=0)
    sac = res.tidy().set_index("agent").loc["SAC", "estimate"]
    runs = halfcheetah.query("agent == 'SAC'")["score"].to_numpy()
    assert sac == pytest.approx(np.maximum(1 - runs, 0).mean(), rel=1e-12)
    assert sac == pytest.approx((1 + 565.6166) / 192, rel=1e-6)
    (note,) = _gap_notes(res)
    assert "only 1 of the 385 scores is below it (fewer than a tenth of each agent's scores on every task)" in note
    assert "the shortfall of those few scores spread over all of an agent's runs (0 for an agent with none)" in note
    assert note in str(res)
    # gamma = 11000 lies within the bulk (17 of SAC's 192 scores below it, 91 of TD3's 193): nothing said
    res = rlstats.bootstrap(halfcheetah, "score ~ agent", metrics=["optimality_gap"], gamma=11000, n_resamples=200,
                            rng=0)
    assert (halfcheetah["score"] < 11000).groupby(halfcheetah["agent"]).sum().to_dict() == {"SAC": 17, "TD3": 91}
    assert res.tidy().set_index("agent").loc["SAC", "estimate"] == pytest.approx(np.maximum(11000 - runs, 0).mean())
    assert _gap_notes(res) == []


def test_gap_note_share_rule_on_both_sides():
    """The rule: on raw scores the note is given where, on every task, fewer than a tenth of each agent's scores lie
    below gamma, or fewer than a tenth of each agent's above it. A: 1 of 20 below (5%): said; 2 of 20 (10%): gamma is
    in the bulk of A's runs, silent; 1 of 20 above: said; an agent of 2 runs both below among 30 above: its gap is its
    mean shortfall, silent; normalised scores: silent whatever the share."""
    high = np.arange(10.0, 30.0)
    one_low = _one_task(np.r_[-5.0, high[1:]], high)  # A: 1 of 20 below gamma = 1
    res = rlstats.bootstrap(one_low, "score ~ agent", metrics=["optimality_gap"], n_resamples=200, rng=0)
    assert res.tidy().set_index("agent")["estimate"].to_dict() == pytest.approx({"A": 6 / 20, "B": 0.0})
    (note,) = _gap_notes(res)
    assert "only 1 of the 40 scores is below it (fewer than a tenth of each agent's scores on every task)" in note
    two_low = _one_task(np.r_[-5.0, -3.0, high[2:]], high)  # A: 2 of 20, a tenth: gamma within the bulk
    res = rlstats.bootstrap(two_low, "score ~ agent", metrics=["optimality_gap"], n_resamples=200, rng=0)
    assert res.tidy().set_index("agent").loc["A", "estimate"] == pytest.approx((6 + 4) / 20)
    assert _gap_notes(res) == []
    few_runs = _one_task([-5.0, -3.0], high[:30])  # 2 of 22 pooled, but both of A's runs: no outliers
    res = rlstats.bootstrap(few_runs, "score ~ agent", metrics=["optimality_gap"], interval="percentile",
                            n_resamples=200, rng=0)
    assert res.tidy().set_index("agent").loc["A", "estimate"] == pytest.approx(5.0)
    assert _gap_notes(res) == []
    one_high = _one_task(np.r_[-high[1:], 30.0], -high)  # A: 1 of 20 above gamma
    res = rlstats.bootstrap(one_high, "score ~ agent", metrics=["optimality_gap"], n_resamples=200, rng=0)
    a_gap = np.mean(np.maximum(1 - np.r_[-high[1:], 30.0], 0))
    assert res.tidy().set_index("agent").loc["A", "estimate"] == pytest.approx(a_gap)
    assert a_gap == pytest.approx(1 - np.mean(np.r_[-high[1:], 30.0]) + 29 / 20)  # gamma - mean + the excess / 20
    (note,) = _gap_notes(res)
    assert "all but 1 of the 40 scores are below it (more than nine tenths of each agent's scores on every task)" in note
    two_tasks = pd.concat([one_low, one_high.assign(task="u")])  # each task: 1 of A's 20 on the far side
    res = rlstats.bootstrap(two_tasks, "score ~ agent | task", metrics=["optimality_gap"], n_resamples=200, rng=0)
    (note,) = _gap_notes(res)
    assert ("fewer than a tenth of each agent's scores of t are below it and fewer than a tenth of each agent's of u "
            "above it, so the gap rests on a few outlying runs on the first") in note
    reference = pd.DataFrame({"task": ["t"], "random": [0.0], "human": [10.0]})
    res = rlstats.bootstrap(one_low, "score ~ agent | task", metrics=["optimality_gap"], normalize=reference,
                            n_resamples=200, rng=0)
    assert _gap_notes(res) == []


def test_nested_seed_note_counts_in_words():
    """Runs of one seed each: "1-4 runs of 1 seed", and "1 run of 1 seed" where every cell has one run."""
    rows = [(a, t, r) for a in "AB" for t in "xy" for r in range(1 if (a, t) == ("A", "x") else 4)]
    df = pd.DataFrame(rows, columns=["agent", "task", "run"]).assign(seed=0, score=np.arange(len(rows)) % 5 * 1.0)
    (note,) = [n for n in rlstats.compare(df, "score ~ agent | task/run/seed").notes if n.startswith("seeds")]
    assert note.endswith("the run is the unit, 1-4 runs of 1 seed per agent and task")
    design = rlstats.design.design_of(df[df["run"] == 0], "score ~ agent | task/run/seed")
    assert any(n.endswith("the run is the unit, 1 run of 1 seed per agent and task") for n in design.notes)


def test_unequal_runs_advice_says_drop_without_looking_at_scores(halfcheetah):
    """SAC 192 runs, TD3 193: the advice must not invite dropping the run that suits the comparison."""
    with pytest.raises(rlstats.DesignError) as info:
        rlstats.compare(halfcheetah, "score ~ agent")
    text = str(info.value)
    assert "found SAC 192, TD3 193" in text
    assert "without looking at their scores" in text
    assert "choosing them by score biases the test" in text


def test_verdict_beyond_the_margin_prints_the_p_value_that_supports_it(atari):
    """DrQ(eps) - SPR across tasks (Atari 100k, 10 runs a game, human-normalised), margin 0.05: the 90% interval lies
    wholly below -0.05. The printed line gives the one-sided p-value of delta < -0.05, the t of the estimate against
    -0.05 on Welch-Satterthwaite df (scipy's closed form, 0.0097), not the TOST p (0.9903), which tidy() keeps."""
    from scipy import stats
    drq_spr = atari[atari["agent"].isin(["DrQ(eps)", "SPR"]) & (atari["seed"] < 10)]
    res = rlstats.equivalence(drq_spr, "score ~ agent | task/seed", margin=0.05, normalize="atari100k_reference",
                              aggregate=None, rng=0)
    across = res.tidy().query("scope == 'across tasks'").iloc[0]
    assert across["p_value"] == pytest.approx(0.990346, abs=1e-6)  # tidy()'s meaning unchanged
    p = stats.t.cdf((across["estimate"] + 0.05) / across["std_error"], across["df"])
    assert p == pytest.approx(0.009654, abs=1e-6)
    line = next(x for x in str(res).splitlines() if x.strip().startswith("across these 26 tasks:"))
    assert line.strip().startswith("across these 26 tasks: shown below -0.05, beyond the margin (mean difference over tasks -0.19654")
    assert f"one-sided p-value (delta < -0.05) = {rlstats.format.format_pvalue(p)}" in line
    assert "0.9903" not in line
    (table,) = res.summary().tables.values()  # the table beside the verdicts: the one-sided p too, named in the caption
    across_row = table.query("scope == 'across tasks'").iloc[0]
    assert across_row["p_value"] == pytest.approx(0.990346, abs=1e-6)
    assert across_row["p_beyond"] == pytest.approx(p, rel=1e-9)
    assert table.query("conclusion.str.startswith('shown ')")["p_beyond"].lt(0.05).all()
    assert table.query("not conclusion.str.startswith('shown ')")["p_beyond"].isna().all()
    assert "(a one-sided test at alpha = 0.05)" in str(res.summary())  # the key under the table (audit s20)
    # after the direction of the estimate (audit s27)
    assert ("(estimate: delta = 1st agent - 2nd agent; p_beyond is that test's p-value (p_value, the test of the "
            "alternative, is near 1 there))" in str(res.summary()))
    game = res.tidy().query("scope == 'task' and task == 'Krull'").iloc[0]  # shown above 0.05
    assert game["conclusion"] == "shown above 0.05, beyond the margin"
    p_above = stats.t.sf((game["estimate"] - 0.05) / game["std_error"], game["df"])
    assert p_above < 0.05
    assert 1 - game["p_upper"] == pytest.approx(p_above, rel=1e-9)


def test_verdict_beyond_the_margin_bootstrap_p_value():
    """The aggregate's bootstrap-t: the one-sided Monte Carlo p-value past the bound, (hits + 1) / (B + 1), is at most
    alpha exactly when the interval lies wholly past it; agent_1 - agent_2 = +3 on normal scores, margin 0.5."""
    df = rlstats.datasets.simulate(agents=2, tasks=6, seeds=10, effect=[0, -3], heterogeneity=0,
                                   distribution="normal", rng=1)
    res = rlstats.equivalence(df, "score ~ agent | task", margin=0.5, rng=0, n_resamples=999)
    row = res.comparisons.query("scope == 'aggregate'").iloc[0]
    assert row["conclusion"] == "shown above 0.5, beyond the margin" and row["conf_low"] > 0.5
    assert row["p_value"] == 1.0 and row["p_beyond"] == pytest.approx(1 / 1000)  # no t* below t_upper: 0 hits
    assert "aggregate: shown above 0.5, beyond the margin" in str(res)
    assert "one-sided p-value (delta > 0.5) = 0.001; bootstrap-t (IQM)" in str(res)
    assert "p_beyond" not in res.tidy().columns  # tidy()'s columns unchanged
    inside = res.comparisons.query("conf_low <= 0.5 and conf_high >= -0.5")
    assert inside["p_beyond"].isna().all()
