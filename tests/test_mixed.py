"""rlstats.mixed against R: lme4's REML fit, lmerTest's Satterthwaite df and anova(), pbkrtest's Kenward-Roger
df and adjusted covariance, emmeans' marginal means and Tukey/Holm pairwise comparisons.

The reference numbers are in tests/reference/mixed_r.json (and mixed_real_r.json, mixed_small_r.json), written by
tests/reference/mixed_r.R from the data of tests/reference/mixed_data.py (rebuilt here from the same seeds); R's fits there use tight optimiser
tolerances, so both sides sit at the REML optimum.  Tolerances (issue 31): estimates and standard errors 1e-5
relative, df 1e-3, p-values 1e-4.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.mixed import _kernels as kernels

REFERENCE = Path(__file__).parent / "reference"
R = json.loads((REFERENCE / "mixed_r.json").read_text())["designs"]
R |= json.loads((REFERENCE / "mixed_real_r.json").read_text())["designs"]  # the published unequal-run designs
R |= json.loads((REFERENCE / "mixed_small_r.json").read_text())["designs"]  # two agents, three games, 3 runs
_spec = importlib.util.spec_from_file_location("mixed_data", REFERENCE / "mixed_data.py")
mixed_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mixed_data)

EST, SE, DF, P = 1e-5, 1e-5, 1e-3, 1e-4


def _data(name):
    """A design's frame and formula; the Atari ones need the ``mirror`` fixture (../shared/data/raw, offline)."""
    if name in mixed_data.DESIGNS:
        return mixed_data.simulated(name), mixed_data.DESIGNS[name][0]
    if name in mixed_data.MUJOCO:
        return mixed_data.mujoco(name), mixed_data.MUJOCO[name]
    return mixed_data.atari(name), mixed_data.ATARI[name][0]


def _close(actual, expected, rtol, what):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float), rtol=rtol,
                               atol=0, err_msg=what)


def _check(name, ddf):
    df, formula = _data(name)
    ref = R[name]
    res = rlstats.mixed(df, formula, ddf=ddf, f_basis="lmertest")  # lmerTest's F df (audit s33 mixed33)
    key = "satterthwaite" if ddf == "satterthwaite" else "kenward_roger"
    coef = ref["coef_satterthwaite"] if ddf == "satterthwaite" else ref["coef_kenward_roger"]
    table = res.coefficients
    _close(table["estimate"], coef["estimate"], EST, "fixed effects")
    _close(table["std_error"], coef["std_error"], SE, "fixed effects' SE")
    _close(table["df"], coef["df"], DF, "fixed effects' df")
    _close(table["p_value"], coef["p_value"], P, "fixed effects' p")
    # lme4 orders random terms by their number of levels: task:agent before task
    order = np.argsort([-len(t) for t in res.random_terms], kind="stable")
    # a component at its boundary: lme4 stops within ~1e-8 of 0, rlstats at 0
    np.testing.assert_allclose(np.append(res.variance_sd[:-1][order], res.sigma), ref["vc_sd"], rtol=SE,
                               atol=1e-6 * res.sigma, err_msg="standard deviations")
    _close(res.reml_criterion, ref["reml"], 1e-9, "REML criterion")
    assert res.singular == ref["singular"]
    emm = ref[key]["emmeans"]
    assert list(res.emmeans["agent"]) == emm["agent"]
    for column in ("estimate", "std_error", "conf_low", "conf_high"):
        _close(res.emmeans[column], emm[column], SE, f"emmeans {column}")
    _close(res.emmeans["df"], emm["df"], DF, "emmeans df")
    pairs, ref_pairs = res.comparisons, ref[key]["contrasts"]
    _close(pairs["estimate"], ref_pairs["estimate"], EST, "contrasts")
    _close(pairs["std_error"], ref_pairs["std_error"], SE, "contrasts' SE")
    _close(pairs["df"], ref_pairs["df"], DF, "contrasts' df")
    _close(pairs["statistic"], ref_pairs["statistic"], SE, "contrasts' t")
    _close(pairs["p_value"], ref_pairs["p_none"], P, "contrasts' p")
    _close(pairs["p_adjusted"], ref_pairs["p_tukey"], P, "Tukey p")
    # (one pair: R's JSON holds each end as a number, not a list)
    _close(pairs[["conf_low", "conf_high"]].to_numpy().T,
           np.reshape([ref_pairs["tukey_low"], ref_pairs["tukey_high"]], (2, -1)), SE, "Tukey intervals")
    anova = ref[key]["anova"]
    assert res.num_df == anova["num_df"]
    _close(res.statistic, anova["statistic"], SE, "F")
    _close(res.den_df, anova["den_df"], DF, "F's df")
    _close(res.pvalue, anova["p_value"], P, "F's p")
    return res


SIMULATED = sorted(mixed_data.DESIGNS)


@pytest.mark.parametrize("name", SIMULATED)
def test_satterthwaite_matches_lmertest_and_emmeans(name):
    _check(name, "satterthwaite")


@pytest.mark.parametrize("name", SIMULATED)
def test_kenward_roger_matches_pbkrtest_and_emmeans(name):
    _check(name, "kenward-roger")


def test_atari_five_games_ten_seeds_matches_r(mirror):
    # the few-task case: lmerTest's df 8 where a Wald z would claim infinite df
    for ddf in ("satterthwaite", "kenward-roger"):
        _check("atari_5x3x10", ddf)


@pytest.mark.parametrize("name", mixed_data.REAL)
def test_published_designs_with_unequal_runs_match_r(mirror, name):
    # all nine Atari 100k agents (5, 10 and 15 runs a cell on 10 games) and MuJoCo's raw AdaStop scores (5 to 30)
    for ddf in ("satterthwaite", "kenward-roger"):
        _check(name, ddf)


@pytest.mark.parametrize("name", sorted(mixed_data.SMALL))
def test_two_agents_on_three_games_at_three_runs_match_r(mirror, name):
    # audit s21: CURL and PlayVirtual on BankHeist, Kangaroo and PrivateEye fit the task:agent variance at 0
    # (singular), where the agent F test's df are Kenward-Roger's 2 and Satterthwaite's 14 in R as here:
    # pbkrtest keeps the zero component in its information matrix (derivatives in the variance, not at 0), while
    # lmerTest's derivatives in theta vanish there, so only Satterthwaite's df read the 12 within-cell df.
    # CURL and DrQ(eps) on Alien, Amidar and Assault are the non-singular control: both df 2.
    res = {ddf: _check(name, ddf) for ddf in ("satterthwaite", "kenward-roger")}
    singular = name == "atari_singular_2x3x3"
    assert res["satterthwaite"].singular == singular
    assert (round(res["satterthwaite"].den_df, 6), round(res["kenward-roger"].den_df, 6)) == ((14, 2) if singular
                                                                                              else (2, 2))
    np.testing.assert_allclose([res["satterthwaite"].pvalue, res["kenward-roger"].pvalue],
                               [0.141458, 0.259471] if singular else [0.281486, 0.281486], atol=1e-6)


@pytest.mark.slow
def test_atari_full_matches_r(mirror):
    res = _check("atari_full", "satterthwaite")
    assert res.nobs == 15_600


def test_holm_and_bonferroni_intervals_match_emmeans():
    name = "unbalanced_seeds_26x5"  # ten pairs with ten different df
    df, formula = _data(name)
    ref = R[name]["satterthwaite"]["contrasts"]
    res = rlstats.mixed(df, formula, adjust="holm")
    _close(res.comparisons["p_adjusted"], ref["p_holm"], P, "Holm p")
    _close(res.comparisons[["conf_low", "conf_high"]].to_numpy().T, [ref["holm_low"], ref["holm_high"]], SE,
           "Bonferroni intervals")
    none = rlstats.mixed(df, formula, adjust="none")
    np.testing.assert_array_equal(none.comparisons["p_adjusted"], none.comparisons["p_value"])


def test_lme4_spelling_means_the_same():
    df = mixed_data.simulated("balanced_seeds_8x3x5")
    bar = rlstats.mixed(df, "score ~ agent | task/seed")
    both = rlstats.compare(df, "score ~ agent + (1 | task) + (1 | task:agent)", method="mixed")
    swapped = rlstats.mixed(df, "score ~ (1 | task) + agent + (1 | agent:task)")
    for other in (both, swapped):
        pd.testing.assert_frame_equal(other.comparisons, bar.comparisons)
        assert other.random_terms == bar.random_terms == ("task", "task:agent")
    # (1 | task) alone on replicated cells: the interaction is added, and a note says so
    alone = rlstats.mixed(df, "score ~ agent + (1 | task)")
    pd.testing.assert_frame_equal(alone.comparisons, bar.comparisons)
    assert any("task:agent intercepts were added" in note for note in alone.notes)
    single = mixed_data.simulated("balanced_5x4")
    assert rlstats.mixed(single, "score ~ agent + (1 | task)").random_terms == ("task",)


def test_reduction_to_cells_equals_the_dense_full_data_criterion():
    # Independent check of the cell reduction: the REML criterion from the N x N covariance, written out.
    df = mixed_data.simulated("unbalanced_seeds_26x5").iloc[:120]
    res = rlstats.mixed(df, "score ~ agent | task/seed")
    design = rlstats.design.build(df, rlstats.formula.parse("score ~ agent | task/seed"))
    y, agent, task = design.y, design.agent, design.task
    n = y.size
    x = np.zeros((n, design.n_agents))
    x[:, 0] = 1
    x[np.arange(n), agent] = 1
    cell = task * design.n_agents + agent
    s2 = res.sigma**2
    v = s2 * (np.eye(n) + res.theta[0]**2 * (task[:, None] == task[None, :])
              + res.theta[1]**2 * (cell[:, None] == cell[None, :]))
    vinv = np.linalg.inv(v)
    xvx = x.T @ vinv @ x
    beta = np.linalg.solve(xvx, x.T @ vinv @ y)
    e = y - x @ beta
    reml = (np.linalg.slogdet(v)[1] + np.linalg.slogdet(xvx)[1] + e @ vinv @ e + (n - x.shape[1]) * np.log(2 * np.pi))
    np.testing.assert_allclose(res.reml_criterion, reml, rtol=1e-10)
    np.testing.assert_allclose(res.coefficients["estimate"], beta, rtol=1e-9)
    np.testing.assert_allclose(np.sqrt(np.diag(res.vcov)), np.sqrt(np.diag(np.linalg.inv(xvx))), rtol=1e-9)


def test_fit_agrees_with_statsmodels_mixedlm():
    # A second, independent REML implementation: statsmodels' MixedLM with tasks as groups and the cells as a
    # variance component (its optimiser is looser, so 1e-4).
    sm = pytest.importorskip("statsmodels.formula.api")
    df = mixed_data.simulated("seeds_5x3x10")  # not singular: statsmodels' optimiser handles a boundary less well
    df = df.assign(agent=df["agent"].astype(str), task=df["task"].astype(str))
    fit = sm.mixedlm("score ~ agent", df, groups="task", re_formula="1",
                     vc_formula={"cell": "0 + C(agent)"}).fit(reml=True)
    res = rlstats.mixed(df, "score ~ agent | task/seed")
    np.testing.assert_allclose(res.coefficients["estimate"], fit.fe_params, rtol=1e-4)
    np.testing.assert_allclose(res.sigma**2, fit.scale, rtol=1e-4)
    np.testing.assert_allclose(res.variance_sd[:2]**2, [fit.cov_re.iloc[0, 0], fit.vcomp[0]], rtol=1e-3)


def test_satterthwaite_df_is_exact_in_a_balanced_design():
    # Balanced, one run per cell: the agent contrasts' Satterthwaite df are the two-way ANOVA's (a-1)(t-1).
    res = rlstats.mixed(mixed_data.simulated("balanced_5x4"), "score ~ agent | task")
    np.testing.assert_allclose(res.comparisons["df"], 4 * 3, rtol=1e-8)
    np.testing.assert_allclose(res.den_df, 12, rtol=1e-8)


def test_singular_fit_is_noted():
    # its numbers are checked against lme4's with the other designs
    res = rlstats.mixed(mixed_data.simulated("singular_6x3x3"), "score ~ agent | task/seed")
    assert res.singular and any(note.startswith("singular fit") for note in res.notes)
    assert "random task intercepts" in next(note for note in res.notes if note.startswith("singular fit"))


def test_print_reads_like_lmertest_then_emmeans():
    res = rlstats.mixed(mixed_data.simulated("seeds_5x3x10"), "score ~ agent | task/seed")
    text = str(res)
    for piece in ("REML criterion at convergence:", "Random effects:", "Fixed effects (Satterthwaite's df):",
                  "agent_1 - agent_2", "P value adjustment: tukey method for comparing a family of 3 estimates",
                  "Number of obs: 150, groups: task:agent, 15; task, 5"):
        assert piece in text
    assert res.df == (res.num_df, res.den_df)
    assert res.glance().loc[0, "den_df"] == res.den_df


def test_plots_draw_on_given_axes(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = rlstats.mixed(mixed_data.simulated("seeds_5x3x10"), "score ~ agent | task/seed")
    fig, ax = plt.subplots()
    assert res.plot(ax=ax) is ax
    assert len(ax.get_yticklabels()) == 3
    fig2, axes = plt.subplots(1, 4)
    assert res.plot(ax=axes, kind="diagnostics") is fig2
    # residuals against fitted values, and the QQ panels' points: residuals, task and task x agent effects
    assert len(axes[0].collections[0].get_offsets()) == res.nobs
    assert len(axes[2].collections[0].get_offsets()) == res.n_tasks
    assert len(axes[3].collections[0].get_offsets()) == res.cell_effects.size == 15
    with pytest.raises(rlstats.errors.OptionError, match="this plot has 4 panel"):
        res.plot(ax=axes[:3], kind="diagnostics")
    drawn = res.plot(kind="diagnostics")
    drawn.savefig(tmp_path / "diagnostics.png")
    without_cells = rlstats.mixed(mixed_data.simulated("unbalanced_12x4"), "score ~ agent | task")
    assert len(without_cells.plot(kind="diagnostics").axes) == 3 and without_cells.cell_normal_scores is None
    # the contrasts figure keeps its two-line label and the pair names inside the saved image
    contrasts = res.plot(kind="contrasts").figure
    contrasts.draw_without_rendering()  # laid out as saved (at the figure's dpi); only positions are read
    renderer = contrasts.canvas.get_renderer()
    box = contrasts.bbox
    for text in [contrasts.axes[0].xaxis.label, *contrasts.axes[0].get_yticklabels()]:
        extent = text.get_window_extent(renderer)
        assert box.x0 - 1 <= extent.x0 and extent.x1 <= box.x1 + 1, text.get_text()
    plt.close("all")


def test_fitted_values_and_residuals_follow_the_data_rows():
    # R's fitted() and residuals() are in the data's row order, whatever order the rows come in
    df = mixed_data.simulated("seeds_5x3x10").sample(frac=1.0, random_state=0)
    res = rlstats.mixed(df, "score ~ agent | task/seed")
    np.testing.assert_allclose(res.fitted_values + res.residuals, df["score"].to_numpy(), rtol=1e-12)
    in_order = rlstats.mixed(df.sort_index(), "score ~ agent | task/seed")
    np.testing.assert_allclose(res.residuals, in_order.residuals[np.argsort(np.argsort(df.index))], rtol=1e-9)


def test_fitted_values_and_task_effects_are_lme4s_conditional_modes():
    # Independent: the BLUPs from Henderson's equations on the full data, written out.
    df = mixed_data.simulated("unbalanced_12x4")
    res = rlstats.mixed(df, "score ~ agent | task")
    design = rlstats.design.build(df, rlstats.formula.parse("score ~ agent | task"))
    n = design.nobs
    z = np.zeros((n, design.n_tasks))
    z[np.arange(n), design.task] = 1
    x = np.zeros((n, design.n_agents))
    x[:, 0] = 1
    x[np.arange(n), design.agent] = 1
    v = res.sigma**2 * np.eye(n) + (res.sigma * res.theta[0])**2 * z @ z.T
    beta = res.coefficients["estimate"].to_numpy()
    u = (res.sigma * res.theta[0])**2 * z.T @ np.linalg.solve(v, design.y - x @ beta)
    np.testing.assert_allclose(res.task_effects, u, rtol=1e-8, atol=1e-12)
    in_data_order = np.argsort(design.row_position)
    np.testing.assert_allclose(res.fitted_values, (x @ beta + u[design.task])[in_data_order], rtol=1e-10)


def test_kenward_roger_with_every_variance_component_at_zero():
    # both intercept variances at 0 can make pbkrtest's V2 exactly 0: R divides to rho = Inf and df 4 (here it raised
    # ZeroDivisionError on about 1 in 12 null data sets of 2 agents x 3 tasks x 2 runs)
    assert kernels._kr_ddf(0.5, 0.5, 1) == (4.0, 1.0)
    # equal task means and cell means equal to the agents' means: lme4 puts both SDs at 0; R 4 (lme4, pbkrtest,
    # emmeans) gives these SEs and df (4 for the intercept and the means, 2 for the difference)
    rows = [(f"t{t}", f"a{a}", s, (1.0 if s == 0 else -1.0) * (1 + 0.5 * a) + a)
            for t in range(3) for a in range(2) for s in range(2)]
    res = rlstats.mixed(pd.DataFrame(rows, columns=["task", "agent", "seed", "score"]), "score ~ agent | task/seed",
                        ddf="kenward-roger")
    assert res.singular and np.all(res.theta == 0)
    np.testing.assert_allclose(res.coefficients[["std_error", "df"]], [[0.5700877, 4], [0.8062258, 2]], rtol=1e-6)
    np.testing.assert_allclose(res.emmeans["df"], [4, 4], rtol=1e-9)
    np.testing.assert_allclose(res.comparisons[["estimate", "std_error", "df", "p_adjusted"]],
                               [[-1, 0.8062258, 2, 0.3406195]], rtol=1e-6)


def test_tukey_pvalue_of_two_agents_is_the_t_test():
    t, df = np.array([2.3]), np.array([7.5])
    from scipy import stats

    np.testing.assert_allclose(kernels.tukey_pvalues(t, df, 2), 2 * stats.t.sf(2.3, 7.5), rtol=1e-12)
    np.testing.assert_allclose(kernels.tukey_pvalues(t, df, 3)[0],
                               stats.studentized_range.sf(np.sqrt(2) * 2.3, 3, 7.5), rtol=1e-12)


def test_studentized_range_matches_scipy():
    # The vectorised quadrature against scipy's adaptive one (one value at a time), where p > 1e-6.
    from scipy import stats

    from rlstats.statistics import studentized_range_isf, studentized_range_sf

    for k in (3, 6):
        for df in (2.0, 8.0, 40.0, 361.9):
            for q in (2.0, 4.5):
                np.testing.assert_allclose(studentized_range_sf(q, k, df), stats.studentized_range.sf(q, k, df),
                                           rtol=1e-6)
    df = np.array([3.5, 14.3, 125.0])
    np.testing.assert_allclose(studentized_range_sf(studentized_range_isf(0.05, 4, df), 4, df), 0.05, rtol=1e-9)
    np.testing.assert_allclose(studentized_range_isf(0.05, 4, df), stats.studentized_range.ppf(0.95, 4, df),
                               rtol=1e-6)
    # more df than R's ptukey resolves are infinite, as there
    assert studentized_range_sf(3.0, 4, 30_000.0) == studentized_range_sf(3.0, 4, np.inf)
    assert studentized_range_isf(0.05, 4, 30_000.0) == studentized_range_isf(0.05, 4)


def test_a_fit_that_did_not_converge_says_so():
    fitted = kernels.Fit(theta=np.array([0.5, 0.0]), sigma=1.0, beta=np.zeros(2), vcov=np.eye(2), reml=1.0,
                         converged=False, message="ABNORMAL", gradient=np.array([0.3, 0.0]))
    from rlstats.methods.mixed._api import _fit_notes

    notes = _fit_notes(fitted, ("task", "task:agent"), "satterthwaite")
    assert any("did not" not in n and "stopped away from a stationary point (gradient 0.3" in n for n in notes)
    assert any(n.startswith("singular fit") and "task:agent" in n for n in notes)


def test_cite_names_the_df_method_used():
    df = mixed_data.simulated("balanced_5x4")
    satterthwaite = rlstats.cite(rlstats.mixed(df, "score ~ agent | task"))
    kenward_roger = rlstats.cite(rlstats.mixed(df, "score ~ agent | task", ddf="kenward-roger"))
    assert "@article{bates2015" in satterthwaite and "satterthwaite1946" in satterthwaite
    assert "kenward1997" not in satterthwaite
    assert "kenward1997" in kenward_roger and "satterthwaite1946" not in kenward_roger


# ---- issue 39 item 5: a score with known bounds never gets an interval outside them
def test_dm_controls_range_clips_the_means_and_bounds_the_differences():
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=2, effect=1.0, distribution="normal", rng=0)
    df["score"] = np.clip(960.0 + 15.0 * df["score"], 0.0, 1000.0)  # Control Suite returns near the cap
    free = rlstats.mixed(df.assign(score=df["score"] / 1000), "score ~ agent | task/seed", normalize=False)
    capped = rlstats.mixed(df, "score ~ agent | task/seed", normalize="dm_control")  # implies [0, 1]
    assert free.emmeans["conf_high"].max() > 1
    columns = ["estimate", "conf_low", "conf_high"]
    np.testing.assert_allclose(capped.emmeans[columns], np.clip(free.emmeans[columns], 0.0, 1.0), rtol=1e-12)
    np.testing.assert_allclose(capped.comparisons[columns], np.clip(free.comparisons[columns], -1.0, 1.0),
                               rtol=1e-12)
    moved = int((free.emmeans[columns].to_numpy() > 1).sum())
    ends = rlstats.format.count(moved, "end")
    assert f"{ends} of the agents' means clipped to [0, 1], the score's bounds (normalize='dm_control': " \
           "its range [0, 1000] is a bound, [0, 1] once normalised): the true value lies within them, so " \
           "clipping keeps the coverage" in capped.notes
    # bounds= on the analysed scale: a difference lies within plus or minus high - low
    narrow = rlstats.mixed(df, "score ~ agent | task/seed", normalize="dm_control", bounds=(0.9, None))
    np.testing.assert_allclose(narrow.comparisons[columns], np.clip(free.comparisons[columns], -0.1, 0.1),
                               rtol=1e-12)


# ---------------------------------------------------------------- issue 39 items 4 and 7: units and the optimum

def _balanced_reml(y):
    """The closed-form REML optimum of a balanced design ``y[task, agent, run]`` (random task and, with runs,
    task x agent intercepts): the ANOVA estimates of the variance components (REML's when they are positive),
    the SE and df of a difference of agents and of an agent's mean (Satterthwaite's combination of mean squares)
    and the F test of the agents."""
    t, a, n = y.shape
    grand, cells = y.mean(), y.mean(axis=2)
    task, agent = cells.mean(axis=1), cells.mean(axis=0)
    ms_task = a * n * np.sum((task - grand) ** 2) / (t - 1)
    ms_agent = n * t * np.sum((agent - grand) ** 2) / (a - 1)
    ms_cell = n * np.sum((cells - agent[None] - task[:, None] + grand) ** 2) / ((a - 1) * (t - 1))
    if n == 1:
        sigma2, components = ms_cell, [(ms_task - ms_cell) / a]
    else:
        sigma2 = np.sum((y - cells[..., None]) ** 2) / (a * t * (n - 1))
        components = [(ms_task - ms_cell) / (a * n), (ms_cell - sigma2) / n]
    mean_var = (ms_task + (a - 1) * ms_cell) / (a * n * t)
    mean_df = (ms_task + (a - 1) * ms_cell) ** 2 / (ms_task**2 / (t - 1) + (a - 1) * ms_cell**2 / (t - 1))
    return {"theta": np.sqrt(np.array(components) / sigma2), "sigma": np.sqrt(sigma2), "mean": agent,
            "diff_se": np.sqrt(2 * ms_cell / (n * t)), "diff_df": (a - 1) * (t - 1), "mean_se": np.sqrt(mean_var),
            "mean_df": mean_df, "F": ms_agent / ms_cell}


def _balanced(seed, tasks, agents, runs):
    rng = np.random.default_rng(seed)
    y = (rng.normal(size=(tasks, agents, runs)) + 2.0 * rng.normal(size=(tasks, 1, 1))
         + (0.7 * rng.normal(size=(tasks, agents, 1)) if runs > 1 else 0.0) + 0.3 * np.arange(agents)[None, :, None])
    t, a, s = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    frame = pd.DataFrame({"task": [f"t{i}" for i in t.ravel()], "agent": [f"a{i}" for i in a.ravel()],
                          "seed": s.ravel(), "score": y.ravel()})
    return y, frame, "score ~ agent | task/seed" if runs > 1 else "score ~ agent | task"


# (seed, tasks, agents, runs): before issue 39 the first was 2e-9 off, the last 2e-8 (theta) and 5e-8 (df); all have
# positive ANOVA estimates, so REML's optimum is inside and equals them
BALANCED = [(0, 8, 4, 1), (1, 5, 4, 1), (4, 7, 5, 1), (2, 8, 3, 3), (6, 5, 4, 3), (10, 7, 5, 3), (7, 8, 4, 5)]


@pytest.mark.parametrize("ddf", ["satterthwaite", "kenward-roger"])
@pytest.mark.parametrize("seed,tasks,agents,runs", BALANCED)
def test_balanced_designs_reach_the_closed_form_reml_optimum(seed, tasks, agents, runs, ddf):
    # issue 39 item 7: the last Newton steps are kept, so the fit sits at the optimum to round-off, not 1e-7
    y, frame, formula = _balanced(seed, tasks, agents, runs)
    exact = _balanced_reml(y)
    assert np.all(exact["theta"] > 0)
    res = rlstats.mixed(frame, formula, ddf=ddf)
    close = dict(rtol=1e-9, atol=0)
    np.testing.assert_allclose(res.theta, exact["theta"], **close)
    np.testing.assert_allclose(res.sigma, exact["sigma"], **close)
    np.testing.assert_allclose(res.emmeans["estimate"], exact["mean"], **close)
    np.testing.assert_allclose(res.comparisons["std_error"], exact["diff_se"], **close)
    np.testing.assert_allclose(res.comparisons["df"], exact["diff_df"], **close)
    np.testing.assert_allclose(res.statistic, exact["F"], **close)
    np.testing.assert_allclose(res.den_df, exact["diff_df"], **close)
    if ddf == "satterthwaite":  # Kenward-Roger adjusts the means' covariance; its differences are exact
        np.testing.assert_allclose(res.emmeans["std_error"], exact["mean_se"], **close)
        np.testing.assert_allclose(res.emmeans["df"], exact["mean_df"], **close)


def _unit_free(res):
    return {"theta": res.theta, "F": res.statistic, "den_df": res.den_df, "p": res.pvalue,
            "t": res.comparisons["statistic"], "df": res.comparisons["df"], "p_adjusted": res.comparisons["p_adjusted"],
            "means_df": res.emmeans["df"], "coef_df": res.coefficients["df"]}


def _in_units(res, factor):
    """The result's quantities with units, divided by ``factor``."""
    return {"estimate": res.comparisons["estimate"] / factor, "se": res.comparisons["std_error"] / factor,
            "means": res.emmeans["estimate"] / factor, "means_se": res.emmeans["std_error"] / factor,
            "sd": res.variance_sd / factor, "vcov": res.vcov / factor / factor, "tasks": res.task_effects / factor,
            "fitted": res.fitted_values / factor, "residuals": res.residuals / factor,
            "reml": res.reml_criterion - (res.nobs - res.n_agents) * np.log(factor**2)}


def _check_units(name, ddf, factors):
    """Unit-free numbers agree to 1e-9 at every factor, the others scale, and a power of two changes no bit."""
    df, formula = _data(name)
    base = rlstats.mixed(df, formula, ddf=ddf)
    for factor in factors:
        res = rlstats.mixed(df.assign(score=df["score"] * factor), formula, ddf=ddf)
        for key, value in _unit_free(res).items():
            np.testing.assert_allclose(value, _unit_free(base)[key], rtol=1e-9, atol=1e-300, err_msg=f"{key} {factor}")
        for key, value in _in_units(res, factor).items():
            np.testing.assert_allclose(value, _in_units(base, 1.0)[key], rtol=1e-9, atol=1e-12 * base.sigma,
                                       err_msg=f"{key} {factor}")
        assert res.singular == base.singular and res.converged
    # a power of two changes no bit: the fit runs on the same unit-size numbers
    doubled = rlstats.mixed(df.assign(score=df["score"] * 2.0**-40), formula, ddf=ddf)
    assert doubled.den_df == base.den_df and np.array_equal(doubled.comparisons["df"], base.comparisons["df"])
    assert np.array_equal(doubled.comparisons["std_error"], base.comparisons["std_error"] * 2.0**-40)


#: issue 39 item 4's scalings: Satterthwaite's df were 15.26, 3.54, 0.043 at 1e-5 ... 1e-7 units and 1e-150 raised
#: ZeroDivisionError (1e148: the design refuses values from 1e150 on, since other back ends square them)
UNIT_FACTORS = (1e-150, 1e-12, 1e-8, 1e-7, 1e-6, 1e-5, 3.0, 1e5, 1e12, 1e148)


@pytest.mark.parametrize("ddf", ["satterthwaite", "kenward-roger"])
@pytest.mark.parametrize("name", ["balanced_5x4", "unbalanced_seeds_26x5", "singular_6x3x3"])
def test_every_statistic_is_free_of_the_scores_units(name, ddf):
    # the default run: the smallest and the largest scaling, and one between that is not a power of two
    _check_units(name, ddf, (1e-150, 3.0, 1e148))


@pytest.mark.slow
@pytest.mark.parametrize("ddf", ["satterthwaite", "kenward-roger"])
@pytest.mark.parametrize("name", ["balanced_5x4", "unbalanced_seeds_26x5", "singular_6x3x3"])
def test_every_statistic_is_free_of_the_scores_units_at_every_scaling(name, ddf):
    _check_units(name, ddf, UNIT_FACTORS)


@pytest.mark.parametrize("name", ["balanced_capped", "unbalanced"])
def test_cluster_robust_alternative_matches_clubsandwich(name):
    # issue 40: the alternative measured against the default intervals (tests/reference/coverage_mixed.py,
    # compare_cr2) is clubSandwich's CR2 by task with its Satterthwaite df, to lme4's optimiser tolerance
    import runpy

    cr2 = runpy.run_path(str(REFERENCE / "mixed_cr2.py"))
    ref = json.loads((REFERENCE / "mixed_cr2_r.json").read_text())[name]
    design = rlstats.design.design_of(pd.DataFrame(ref["data"]), "score ~ agent | task/seed")
    m = kernels.model(design.y, design.agent, design.task, design.n_agents, design.n_tasks, True)
    fit = kernels.fit(m)
    _, pairs, _, _ = kernels.agent_contrasts(design.n_agents)
    variance, df = cr2["cr2_t"](m, fit, pairs)
    np.testing.assert_allclose(pairs @ fit.beta, ref["estimate"], rtol=1e-6)
    np.testing.assert_allclose(np.sqrt(variance), ref["std_error"], rtol=1e-6)
    np.testing.assert_allclose(df, ref["df"], rtol=1e-6)
    # balanced: each pair's CR2 variance is that of the paired t over tasks, with tasks - 1 df
    if name == "balanced_capped":
        cells = pd.DataFrame(ref["data"]).groupby(["task", "agent"])["score"].mean().unstack().to_numpy()
        d = cells[:, 0] - cells[:, 1]
        np.testing.assert_allclose(variance[0], d.var(ddof=1) / d.size, rtol=1e-12)
        np.testing.assert_allclose(df, d.size - 1, rtol=1e-12)


@pytest.mark.parametrize("ddf", ["satterthwaite", "kenward-roger"])
def test_many_tasks_fit_in_memory_linear_in_cells(ddf):
    # issue 43 item 1: 800 tasks x 3 agents x 2 runs = 2,400 cells, where one dense cells x cells matrix would be
    # 46 MB (the former kernels held several); the fit still reaches the closed-form REML optimum
    import tracemalloc

    y, frame, formula = _balanced(3, 800, 3, 2)
    exact = _balanced_reml(y)
    rlstats.mixed(frame.iloc[:60], formula, ddf=ddf)  # the modules' imports outside the traced fit
    tracemalloc.start()
    res = rlstats.mixed(frame, formula, ddf=ddf)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 12 * 2**20, peak  # about 2 MB; one dense cells x cells matrix would be 44 MB
    close = dict(rtol=1e-8, atol=0)
    np.testing.assert_allclose(res.theta, exact["theta"], **close)
    np.testing.assert_allclose(res.sigma, exact["sigma"], **close)
    np.testing.assert_allclose(res.comparisons["std_error"], exact["diff_se"], **close)
    np.testing.assert_allclose(res.comparisons["df"], exact["diff_df"], **close)


def test_per_task_grid_formulas_match_dense_products():
    # issue 43 item 1: X'V^{-1}X, X'V^{-1}y, X'V^{-1} G_i V^{-1} X and V^{-1}X come from the (tasks x agents) grid
    # n / d; here against the dense matrices of an unbalanced design (missing cells, 1 to 4 runs a cell)
    rng = np.random.default_rng(5)
    agents, tasks = 4, 7
    n = rng.integers(0, 5, size=(tasks, agents))
    n[:, 0] = np.maximum(n[:, 0], 1)
    task = np.repeat(np.repeat(np.arange(tasks), agents), n.ravel())
    agent = np.repeat(np.tile(np.arange(agents), tasks), n.ravel())
    m = kernels.model(rng.normal(size=task.size), agent, task, agents, tasks, True)
    theta = np.array([1.3, 0.6])
    same = m.cell_task[:, None] == m.cell_task[None, :]
    g = [np.outer(m.root, m.root) * same, np.diag(m.cell_n)]
    v = np.eye(m.r) + theta[0] ** 2 * g[0] + theta[1] ** 2 * g[1]
    vx = np.linalg.solve(v, m.x)
    pc = kernels._pieces(m, theta)
    close = dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(pc.vx, vx, **close)
    np.testing.assert_allclose(pc.phi, np.linalg.inv(m.x.T @ vx), **close)
    np.testing.assert_allclose(pc.beta, pc.phi @ vx.T @ m.y, **close)
    for i in range(2):
        np.testing.assert_allclose(kernels._vx_g_vx(m, pc, i), vx.T @ g[i] @ vx, **close)


def test_kenward_roger_df_of_single_rows_equal_the_general_formula():
    # the rank-one shortcut of kenward_roger_t (A1 = A2 = t'Wt) against _kr_a's matrices, row by row
    frame = rlstats.datasets.simulate(4, 9, 3, effect=0.5, missing=0.2, rng=2)
    codes = {name: np.unique(frame[name].astype(str), return_inverse=True)[1] for name in ("agent", "task")}
    m = kernels.model(frame["score"].to_numpy(float), codes["agent"], codes["task"], 4, 9, True)
    setup = kernels.kenward_roger_setup(m, kernels.fit(m))
    means, pairs, _, _ = kernels.agent_contrasts(4)
    rows = np.vstack([means, pairs])
    general = [kernels._kr_ddf(*kernels._kr_a(setup, row[None, :]), 1)[0] for row in rows]
    np.testing.assert_allclose(kernels.kenward_roger_t(setup, rows)[1], general, rtol=1e-12)


def test_cost_counts_runs_and_tukeys_pairs():
    # issue 43: linear in the runs, plus one studentized-range integral per pair of agents under Tukey's adjustment,
    # plus every pair's variance and df, agents^2 products a pair whatever the adjustment (audit s31 bounds31)
    import types

    from rlstats.cost import Shape
    from rlstats.methods.mixed._backend import cost

    shape = Shape(rows=100_000, agents=10, tasks=1000, cells=10_000, most_runs=10)
    tukey = cost(shape, types.SimpleNamespace(adjust="tukey"))
    forms = 45 * 10 ** 2 * 7e-9 / 2e-6  # in row equivalents: 15.75
    assert tukey.units == pytest.approx(100_000 + 300 * 45 + forms) and "45 Tukey pairs" in tukey.what
    assert cost(shape, types.SimpleNamespace(adjust="holm")).units == pytest.approx(100_000 + forms)
    assert tukey.memory == 24 * 45 * 10  # the pairs' contrast rows
