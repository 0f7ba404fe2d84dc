"""Audit s15: a user's audit of rlstats.mixed() and rlstats.percentiles() on real data (Atari 100k, the AdaStop
MuJoCo batches) and hard designs: closed forms and statsmodels for the numbers, units and row order, and the
captions of the tables a paper would print (summary(), to_latex()).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rlstats

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
MUJOCO = DATA / "mujoco_batches.csv"


def _balanced(tasks=6, agents=3, runs=3, seed=1):
    rng = np.random.default_rng(seed)
    rows = []
    for t, level in enumerate(rng.normal(0, 2, tasks)):
        for a in range(agents):
            cell = rng.normal(0, 0.7)
            rows += [{"task": f"t{t}", "agent": f"a{a}", "seed": r, "score": level + 0.5 * a + cell + rng.normal()}
                     for r in range(runs)]
    return pd.DataFrame(rows)


def test_mixed_balanced_pairs_match_the_cell_means_anova():
    """Balanced, random task and task x agent intercepts, sigma_ta > 0: a pair's estimate is the difference of the
    agents' means, its SE sqrt(2 MS_interaction / T) from the cell means' two-way ANOVA, its df (T-1)(A-1)."""
    df = _balanced()
    res = rlstats.mixed(df, "score ~ agent | task/seed")
    cells = df.groupby(["task", "agent"]).score.mean().unstack().to_numpy()
    tasks, agents = cells.shape
    resid = cells - cells.mean(1, keepdims=True) - cells.mean(0, keepdims=True) + cells.mean()
    ms_inter = (resid ** 2).sum() / ((tasks - 1) * (agents - 1))
    pairs = res.tidy().set_index(["agent_1", "agent_2"])
    row = pairs.loc[("a0", "a1")]
    assert row.estimate == pytest.approx(cells[:, 0].mean() - cells[:, 1].mean(), rel=1e-9)
    assert row.std_error == pytest.approx(np.sqrt(2 * ms_inter / tasks), rel=1e-6)
    assert row.df == pytest.approx((tasks - 1) * (agents - 1), rel=1e-6)


def test_mixed_unbalanced_agrees_with_statsmodels_mixedlm():
    """One run per cell, an agent missing from two tasks: the REML fixed effects and their SEs equal statsmodels'
    MixedLM (random task intercepts) to its optimiser's tolerance."""
    smf = pytest.importorskip("statsmodels.formula.api")
    df = _balanced(tasks=8, agents=3, runs=1, seed=4)
    df = df[~((df.agent == "a2") & df.task.isin(["t0", "t1"]))]
    res = rlstats.mixed(df, "score ~ agent | task")
    fit = smf.mixedlm("score ~ agent", df, groups=df["task"]).fit(reml=True, method="lbfgs")
    pairs = res.tidy().set_index(["agent_1", "agent_2"])
    for other in ("a1", "a2"):
        assert -pairs.loc[("a0", other)].estimate == pytest.approx(fit.fe_params[f"agent[T.{other}]"], rel=1e-4)
        assert pairs.loc[("a0", other)].std_error == pytest.approx(fit.bse[f"agent[T.{other}]"], rel=1e-3)


@pytest.mark.skipif(not MUJOCO.exists(), reason="the shared real data (mujoco_batches.csv) is absent")
def test_mixed_on_real_batches_is_unchanged_by_units_and_row_order():
    """The AdaStop MuJoCo batches (5 to 30 runs per cell): scores times 7.3, rows shuffled, give the same p-values
    and estimates scaled by 7.3."""
    df = pd.read_csv(MUJOCO)
    a = rlstats.mixed(df, "score ~ agent | task").tidy()
    shuffled = df.sample(frac=1, random_state=3).assign(score=lambda d: d.score * 7.3)
    b = rlstats.mixed(shuffled, "score ~ agent | task").tidy()
    np.testing.assert_allclose(b.p_adjusted, a.p_adjusted, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b.estimate, 7.3 * a.estimate, rtol=1e-9)


@pytest.mark.parametrize("adjust, words", [("tukey", "95% simultaneous intervals (Tukey)"),
                                           ("holm", "95% simultaneous intervals (Bonferroni)"),
                                           ("none", "95% intervals, not adjusted")])
def test_mixed_pairs_caption_states_the_intervals_level(adjust, words):
    """summary() and to_latex() titled the pairs table 'Pairwise differences (Tukey (studentized range)
    adjustment)': its conf_low/conf_high columns were at no stated level (the means' table said '95% intervals'),
    and a reader could not tell Tukey's simultaneous intervals from per-pair ones, nor Bonferroni's beside Holm's
    p-values."""
    res = rlstats.mixed(_balanced(), "score ~ agent | task/seed", adjust=adjust)
    assert words in str(res.summary())
    assert words.replace("%", "\\%") in res.to_latex()


def test_percentiles_caption_states_the_intervals_level():
    """to_latex() and summary() titled the aggregate table 'Aggregate performance percentiles (PBP (DKW bands and
    Anderson bounds propagated through the game))': the print said '95 percent simultaneous intervals' but the
    table a paper takes did not say the lower/upper columns are 95% simultaneous intervals."""
    df = _balanced(tasks=2, agents=2, runs=8)
    res = rlstats.percentiles(df, "score ~ agent | task")
    assert "95\\% simultaneous intervals" in res.to_latex()
    assert "95% simultaneous intervals" in str(res.summary())
    none = rlstats.percentiles(df, "score ~ agent | task", interval=None)
    assert "(none)" not in str(none.summary())


def test_mixed_singular_task_agent_fit_matches_the_additive_anova():
    """Balanced, 4 tasks x 3 agents x 3 runs, task:agent SD estimated at 0 (a singular fit, stated in the notes): the
    pairs are those of the additive two-way ANOVA of the runs, SE sqrt(2 s^2 / (T R)) with s^2 on N - T - A + 1 df."""
    rng = np.random.default_rng(0)
    tasks, agents, runs = 4, 3, 3
    df = pd.DataFrame([{"task": f"t{t}", "agent": f"a{a}", "seed": r, "score": 0.1 * a + rng.normal()}
                       for t in range(tasks) for a in range(agents) for r in range(runs)])
    res = rlstats.mixed(df, "score ~ agent | task/seed")
    assert res.glance().sd_task_agent[0] == 0 and any("singular fit" in n for n in res.notes)
    resid = (df.score - df.groupby("task").score.transform("mean") - df.groupby("agent").score.transform("mean")
             + df.score.mean())
    dfree = tasks * agents * runs - tasks - agents + 1
    s2 = (resid ** 2).sum() / dfree
    row = res.tidy().iloc[0]
    assert row.std_error == pytest.approx(np.sqrt(2 * s2 / (tasks * runs)), rel=1e-7)
    assert row.df == pytest.approx(dfree, rel=1e-7)
