"""Audit s19 (equiv19): practical equivalence as an R user of TOSTER / equivalence / baycomp would check it.

Checked and found right (numbers in the tests below): the per-task Welch TOST against statsmodels' ``ttost_ind``
(p-values, df, the 90% interval), ``across="paired_t"`` against ``ttost_paired`` on the task means, the
Welch-Satterthwaite mean over tasks against its closed form, score x 1000 with margin x 1000 (every number, verdict and
note), Atari 100k human-normalised DrQ(eps) vs SPR at margin 0.05 against ``ttost_ind`` per game, the signed-rank
probabilities against a numpy Dirichlet simulation written here.  The defects are marked in each test's docstring.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import BAYES_CHAINS
from rlstats.errors import OptionError


def _two(scale=1.0, tasks=6, runs=5, shift=0.1, seed=2):
    rng = np.random.default_rng(seed)
    rows = [(a, f"task{t}", r, scale * rng.normal(t * 0.1 + (shift if a == "B" else 0.0), 0.5))
            for t in range(tasks) for a in ("A", "B") for r in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_tost_numbers_match_statsmodels():
    """Per task: Welch's TOST equals statsmodels' ttost_ind(usevar='unequal'); across tasks with across='paired_t':
    ttost_paired of the task means; across='welch': the closed form sum_t (s1^2/n1 + s2^2/n2) / T^2 on
    Welch-Satterthwaite df (values printed by statsmodels 0.15.0, scipy 1.17.1)."""
    from scipy import stats
    weightstats = pytest.importorskip("statsmodels.stats.weightstats")
    df = _two()
    res = rlstats.equivalence(df, "score ~ agent | task", margin=0.4, normalize=False, aggregate=None)
    tidy = res.tidy()
    for task in ("task0", "task3"):
        a, b = (df[(df.task == task) & (df.agent == g)].score.to_numpy() for g in "AB")
        p, low, high = weightstats.ttost_ind(a, b, -0.4, 0.4, usevar="unequal")
        row = tidy[tidy.task == task].iloc[0]
        assert row.p_value == pytest.approx(p, rel=1e-10)
        assert (row.p_lower, row.p_upper) == pytest.approx((low[1], high[1]), rel=1e-10)
        assert row.df == pytest.approx(low[2], rel=1e-10)
    assert tidy.loc[tidy.task == "task0", "p_value"].iloc[0] == pytest.approx(0.470471, abs=1e-6)
    cells = df.groupby(["task", "agent"]).score.agg(["mean", "var", "count"]).unstack()
    d = (cells["mean"]["A"] - cells["mean"]["B"]).to_numpy()
    v = (cells["var"]["A"] / 5 + cells["var"]["B"] / 5).to_numpy()
    se, dfw = np.sqrt(v.sum()) / 6, v.sum() ** 2 / ((cells["var"]["A"] / 5) ** 2 / 4
                                                    + (cells["var"]["B"] / 5) ** 2 / 4).sum()
    across = tidy[tidy.scope == "across tasks"].iloc[0]
    half = stats.t.ppf(0.95, dfw) * se
    assert (across.conf_low, across.conf_high) == pytest.approx((d.mean() - half, d.mean() + half), rel=1e-10)
    assert (across.conf_low, across.conf_high) == pytest.approx((-0.310375, 0.155754), abs=1e-6)
    paired = rlstats.equivalence(df, "score ~ agent | task", margin=0.4, normalize=False, aggregate=None,
                                 across="paired_t").tidy()
    p, _, _ = weightstats.ttost_paired(cells["mean"]["A"].to_numpy(), cells["mean"]["B"].to_numpy(), -0.4, 0.4)
    assert paired[paired.scope == "across tasks"].p_value.iloc[0] == pytest.approx(p, rel=1e-10)
    assert p == pytest.approx(0.0140974, abs=1e-7)


def test_signed_rank_probabilities_match_an_independent_simulation():
    """P(better / rope / worse) of the signed-rank model against a Dirichlet simulation written here (baycomp's
    definition: the region with the largest Walsh-average mass per draw), 200,000 draws: within 4 Monte Carlo
    standard errors of rlstats' 50,000."""
    df = _two(tasks=8, runs=3, shift=0.05, seed=7)
    res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.05, rng=1, normalize=False)
    means = df.groupby(["task", "agent"]).score.mean().unstack()
    x = np.r_[0.0, (means["A"] - means["B"]).to_numpy()]
    w = np.random.default_rng(123).dirichlet(np.r_[0.5, np.ones(8)], size=200_000)
    walsh = np.add.outer(x, x)
    masses = [np.einsum("si,ij,sj->s", w, region.astype(float), w)
              for region in (walsh < -0.1, np.abs(walsh) <= 0.1, walsh > 0.1)]
    independent = np.bincount(np.argmax(np.stack(masses, axis=1), axis=1), minlength=3) / 200_000
    row = res.tidy().iloc[0]
    ours = np.array([row.p_worse, row.p_rope, row.p_better])
    se = np.sqrt(independent * (1 - independent) * (1 / 200_000 + 1 / 50_000))
    assert np.all(np.abs(ours - independent) < 4 * se + 1e-12), (ours, independent)


def test_margin_at_least_the_range_of_the_scores_is_said():
    """simulate(2 agents, 3 tasks, 4 runs) spans 68.95 score units; margin=6895 (a margin in the wrong units, or a
    percentage where scores are fractions) printed "equivalent within +-6895.2" on every test with no word that no
    difference of means of these scores can reach it.  Now a warning and a note naming margin= and the range; the
    same for bayes(rope=) (P(rope) was 1 by construction).  Not an error: a margin fixed before the data stays the
    caller's (tests/test_audit_s11_eqsat.py runs margin 0.3 on capped scores spanning 0.18)."""
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, effect=0.0, rng=4)
    spread = float(df.score.max() - df.score.min())
    assert spread == pytest.approx(68.952099, abs=1e-6)
    for margin in (100 * spread, spread):
        # a warning from 10 times the range, a units slip; a note from the range on (review s19)
        with (pytest.warns(UserWarning, match=r"margin=.* is at least the range .*68\.952") if margin > 10 * spread
              else warnings.catch_warnings()):
            if margin < 10 * spread:
                warnings.simplefilter("error", rlstats.RlstatsWarning)
            res = rlstats.equivalence(df, "score ~ agent | task", margin=margin, normalize=False, aggregate=None)
        assert sum("is at least the range of all the scores analysed (68.952, from" in n for n in res.notes) == 1
        assert "is at least the range" in str(res)
    res = rlstats.bayes(df, "score ~ agent | task/seed", rope=100, normalize=False, n_samples=200)  # a note only
    with pytest.warns(UserWarning, match=r"rope=1000 is at least the range"):  # 10 times the range: a warning too
        rlstats.bayes(df, "score ~ agent | task/seed", rope=1000, normalize=False, n_samples=200)
    assert res.tidy().p_rope.iloc[0] == 1.0 and any("rope=100 is at least" in n for n in res.notes)
    # a published table's means count: the data span 0.2 alone, the differences up to 10.2
    pair = _two(tasks=2, runs=4).query("agent == 'A'")
    paper = pd.DataFrame({"task": ["task0", "task1"], "mean": [10.0, 10.0], "sd": [1.0, 1.0], "n": [5, 5]})
    quiet = rlstats.equivalence(pair, "score ~ agent | task", margin=3, published=paper, normalize=False,
                                aggregate=None)
    assert not any("is at least the range" in n for n in quiet.notes)
    # just inside the range: nothing said
    inside = rlstats.equivalence(df, "score ~ agent | task", margin=0.99 * spread, normalize=False, aggregate=None)
    assert not any("is at least the range" in n for n in inside.notes)


def test_posterior_probabilities_state_their_monte_carlo_error():
    """The signed-rank P(.) are shares of 50,000 independent draws: over 20 seeds P(better) = 0.2456 moved with sd
    0.00195 (binomial 0.00193) and the hierarchical P(rope) = 0.7231 with sd 0.012 over 6 seeds (8 x 1,000 correlated
    draws), printed to 4 digits with no word of that noise.  Each result now says its largest Monte Carlo standard
    error: sqrt(p (1 - p) / n) of the independent draws, or from the effective sample size of each region's indicator
    (correlated chains)."""
    df = _two(tasks=8, runs=3, shift=0.05, seed=7)
    res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.05, rng=1, normalize=False, n_samples=5_000)
    p = res.tidy()[["p_better", "p_rope", "p_worse"]].to_numpy()
    se = float(np.sqrt(p * (1 - p) / 5_000).max())
    note = [n for n in res.notes if n.startswith("Monte Carlo error")]
    assert len(note) == 1 and f"{se:.2g}" in note[0] and "5,000 independent" in note[0], (se, res.notes)
    assert "Monte Carlo error" in str(res)
    hier = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.05, rng=1, normalize=False, model="hierarchical",
                         chains=4)
    stated = _stated(hier)
    p = hier.tidy().p_rope.iloc[0]
    # at least about the 4 x 1,000 independent draws' error (correlated chains carry less), at most ten times it
    assert np.sqrt(p * (1 - p) / 4_000) * 0.9 <= stated <= 10 * np.sqrt(p * (1 - p) / 4_000)


def _stated(result):
    note = [n for n in result.notes if n.startswith("Monte Carlo error")]
    assert len(note) == 1 and "effective sample size" in note[0]
    return float(note[0].split("at most ")[1].split(" ")[0])


@pytest.mark.slow
def test_stated_monte_carlo_error_is_the_spread_over_seeds():
    """30 seeds of the hierarchical model's defaults: the largest sd of a P(.) over seeds 0.0096 against a stated
    largest error of 0.0091-0.011 (mean 0.0098); here within a factor 0.6-1.6 (an sd of 30 draws' range)."""
    df = _two(tasks=8, runs=3, shift=0.05, seed=7)
    shares, stated = [], []
    for seed in range(30):
        res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.05, rng=seed, normalize=False,
                            model="hierarchical")
        shares.append(res.tidy().iloc[0][["p_better", "p_rope", "p_worse", "p_better_next", "p_rope_next",
                                          "p_worse_next"]].to_numpy(float))
        stated.append(_stated(res))
    spread = np.std(shares, axis=0, ddof=1).max()
    assert 0.6 <= spread / np.mean(stated) <= 1.6, (spread, np.mean(stated))


def test_incomplete_design_says_which_tasks_each_across_test_reads():
    """A ran t0, t1; B ran t2, t3; C all four.  "A - C: across tasks" averaged t0 and t1 and "B - C: across tasks"
    t2 and t3 with no word that the pairs' "across tasks" are different tasks (bayes() says it for its pairs)."""
    rng = np.random.default_rng(0)
    rows = [(a, f"t{t}", s, rng.normal()) for a, ts in (("A", [0, 1]), ("B", [2, 3]), ("C", [0, 1, 2, 3]))
            for t in ts for s in range(4)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = rlstats.equivalence(df, "score ~ agent | task", margin=0.5, normalize=False, aggregate=None)
    note = [n for n in res.notes if "reads only the tasks both ran" in n]
    assert len(note) == 1 and "A vs C (2 of 4 tasks)" in note[0] and "B vs C (2 of 4 tasks)" in note[0], res.notes
    assert "A vs B" not in note[0]  # no shared task: its own note says so
    complete = rlstats.equivalence(_two(tasks=3), "score ~ agent | task", margin=0.5, normalize=False,
                                   aggregate=None)
    assert not [n for n in complete.notes if "reads only the tasks both ran" in n]


def test_margin_errors_speak_to_what_was_asked():
    """margin=-0.1 with alternative='noninferior' (the lower bound as R's and statsmodels' users write it) and
    margin=(-0.1, 0.2) (TOSTER's low and high bounds) both got "the band is -margin to +margin"."""
    df = _two(tasks=2)
    with pytest.raises(OptionError, match=r"non-inferiority.*margin=0\.1"):
        rlstats.equivalence(df, "score ~ agent | task", margin=-0.1, alternative="noninferior", normalize=False)
    with pytest.raises(OptionError, match=r"one number.*symmetric.*noninferior"):
        rlstats.equivalence(df, "score ~ agent | task", margin=(-0.1, 0.2), normalize=False)
    with pytest.raises(OptionError, match=r"lower scores better.*margin=0\.25"):
        rlstats.equivalence(df, "score ~ agent | task", margin=-0.25, alternative="noninferior",
                            higher_is_better=False, normalize=False)
    with pytest.raises(OptionError, match=r"above 0 \(the band is -margin to \+margin\), got -0\.1"):
        rlstats.equivalence(df, "score ~ agent | task", margin=-0.1, normalize=False)


def test_no_bounding_note_for_a_withheld_across_test():
    """Both agents at one score on every task, across='paired_t': the notes said the paired t 'bounds its variance
    from below' and, two lines on, that the same test is withheld (differences all the same)."""
    rows = [(a, f"t{t}", s, 1.0 + t) for a in "AB" for t in range(3) for s in range(4)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = rlstats.equivalence(df, "score ~ agent | task", margin=0.5, normalize=False, aggregate=None,
                              across="paired_t")
    assert res.tidy().query("scope == 'across tasks'").shown.iloc[0] is None
    assert not [n for n in res.notes if "bounds its variance" in n], res.notes


def test_asymmetric_bounds_by_two_noninferiority_tests_match_statsmodels():
    """The recipe the margin's error gives for TOSTER's (low, high) = (-0.1, 0.2): margin=0.1 non-inferiority and
    margin=0.2 with higher_is_better=False; their one-sided p-values are statsmodels' ttost_ind(-0.1, 0.2) sides
    (0.444451 and 0.158678 here)."""
    weightstats = pytest.importorskip("statsmodels.stats.weightstats")
    df = _two(tasks=1, runs=8)
    options = {"normalize": False, "aggregate": None, "alternative": "noninferior", "control": "B"}
    low = rlstats.equivalence(df, "score ~ agent | task", margin=0.1, **options).tidy().iloc[0]
    high = rlstats.equivalence(df, "score ~ agent | task", margin=0.2, higher_is_better=False, **options).tidy().iloc[0]
    a, b = (df[df.agent == g].score.to_numpy() for g in "AB")
    p, lower, upper = weightstats.ttost_ind(a, b, -0.1, 0.2, usevar="unequal")
    assert (low.p_value, high.p_value) == pytest.approx((lower[1], upper[1]), rel=1e-10)
    assert max(low.p_value, high.p_value) == pytest.approx(p, rel=1e-10)
    assert (low.p_value, high.p_value) == pytest.approx((0.444451, 0.158678), abs=1e-6)


def test_hierarchical_model_states_its_priors():
    """The signed-rank model's print and report state its prior (weight 0.5 at 0); the hierarchical model's said
    "hierarchical model (8 chains of 1000 draws after warm-up)" and "Corani et al. (2017)", never its priors, which a
    methods section needs (brms prints them with prior_summary)."""
    df = _two(tasks=5, runs=3, seed=3)
    # the priors are printed whatever the chains' length: the short chains of conftest.BAYES_CHAINS (0.8 -> 0.1 s),
    # whose convergence warning is not what is tested here
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rlstats.RlstatsWarning)
        res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.05, normalize=False, **BAYES_CHAINS)
    for text in (str(res), res.report(format="text")):
        assert "delta0 ~ U(-max|x|, max|x|)" in text and "nu - 1 ~ Gamma(alpha, beta)" in text, text
        assert "alpha ~ U(1, 2)" in text and "beta ~ U(0.01, 0.1)" in text


def test_noninferiority_figure_draws_one_side():
    """alternative='noninferior' (margin 5): the figure shaded -5 to +5 with dashed lines at both, labelled "band
    +-margin", and task_01's interval (-4.92 to 6.86) crossed the +5 line with a filled mark, "shown non-inferior": the
    picture of an equivalence test.  Now the shaded side is delta > -margin (delta < margin when lower is better),
    one dashed line, and the label says so."""
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=6, effect=0.0, rng=4)
    for higher, edge in ((True, -5.0), (False, 5.0)):
        res = rlstats.equivalence(df, "score ~ agent | task", margin=5, alternative="noninferior",
                                  control="agent_2", normalize=False,
                                  aggregate=None, higher_is_better=higher)
        ax = res.plot()
        dashed = [line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == "--"]
        assert dashed == [edge]
        (span,) = ax.patches
        xs = span.get_patch_transform().transform(span.get_path().vertices)[:, 0]  # Rectangle or Polygon (< 3.9)
        low, high = xs.min(), xs.max()
        left, right = ax.get_xlim()
        assert (low, high) == pytest.approx((edge, right) if higher else (left, edge), rel=1e-12)
        assert "\u00b1margin" not in ax.get_xlabel()
        assert ("delta > -margin" if higher else "delta < margin") in ax.get_xlabel().replace("\u00a0", " ")


def test_signed_rank_seeds_agree_within_the_stated_error():
    """One rng= gives the same numbers bit for bit; 12 others move P(.) by about the note's standard error
    (1,000 draws: sd over seeds within 0.55-1.6 times the stated largest error, a range for an sd of 12; 20 seeds
    from 0, 100 and 200 gave 1.01, 0.96 and 0.86)."""
    df = _two(tasks=8, runs=3, shift=0.05, seed=7)

    def fit(seed):
        return rlstats.bayes(df, "score ~ agent | task/seed", rope=0.05, rng=seed, normalize=False, n_samples=1_000)

    assert fit(3).tidy().equals(fit(3).tidy())
    fits = [fit(seed) for seed in range(12)]
    shares = np.array([f.tidy().iloc[0][["p_better", "p_rope", "p_worse"]].to_numpy(float) for f in fits])
    stated = [float(n.split("is at most ")[1].split(" ")[0]) for f in fits for n in f.notes
              if n.startswith("Monte Carlo error")]
    assert len(stated) == 12
    assert 0.55 <= shares.std(axis=0, ddof=1).max() / np.mean(stated) <= 1.6


def test_noninferiority_report_says_not_shown_is_not_inferior():
    """The equivalence report ends "Not shown equivalent does not mean different: the interval may be too wide for
    the margin."; a non-inferiority report with "not shown non-inferior" rows said nothing of the kind."""
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=6, effect=0.0, rng=4)
    res = rlstats.equivalence(df, "score ~ agent | task", margin=5, alternative="noninferior",
                              control="agent_2", normalize=False,
                              aggregate=None)
    assert (res.tidy().conclusion == "not shown non-inferior").any()
    assert "Not shown non-inferior does not mean inferior" in res.report(format="text")


def test_hierarchical_rope_probabilities_match_a_grid_posterior():
    """An independent computation of the hierarchical model's P(delta0 below, within, above the ROPE): with 200 runs
    a task and run noise 0.01 the task differences delta_i are known (posterior sd 0.0007 against a spread of 0.7),
    so the posterior of (delta0, sigma0, nu) is the product of Student-t densities of the task means times the
    model's priors (delta0 ~ U(-max|x|, max|x|), sigma0 ~ U(0, 1000 sd of the task means), nu - 1 ~ Gamma(alpha,
    beta) averaged over alpha ~ U(1, 2), beta ~ U(0.01, 0.1)), integrated on a grid here.  rope 0.25, rng=0:
    rlstats 0.1071 / 0.3456 / 0.5473 (stated Monte Carlo error at most 0.0059), grid 0.1067 / 0.3429 / 0.5504
    (401 x 240 x 120 points; the 161 x 100 x 50 below agree to 1e-3)."""
    from scipy import stats
    from scipy.integrate import trapezoid  # numpy's own is np.trapz before numpy 2

    d = np.array([-0.6, 0.05, 0.3, 0.45, 1.4])
    noise = np.random.default_rng(0).normal(0, 0.01, (d.size, 200))
    rows = [(a, f"t{t}", s, (d[t] + noise[t, s]) if a == "A" else 0.0)
            for t in range(d.size) for s in range(200) for a in "AB"]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.25, rng=0, normalize=False, model="hierarchical")
    ours = res.tidy().iloc[0][["p_worse", "p_rope", "p_better"]].to_numpy(float)
    x = d[:, None] + noise
    means, high = x.mean(axis=1), np.abs(x).max()
    grid_d = np.linspace(-high, high, 161)
    log_s = np.linspace(np.log(1e-3), np.log(1000 * means.std()), 100)
    log_m = np.linspace(np.log(1e-3), np.log(3e3), 50)                      # m = nu - 1
    shape, rate = np.linspace(1, 2, 21), np.linspace(0.01, 0.1, 21)
    gamma = stats.gamma.pdf(np.exp(log_m)[:, None, None], shape[None, :, None], scale=1 / rate[None, None, :])
    # the uniform priors of sigma0 and of the hyperparameters; the Jacobians of the log grids
    log_prior = (np.log(trapezoid(trapezoid(gamma, rate, axis=2), shape, axis=1)) + log_m)[None, :] \
        + log_s[:, None]
    log_post = sum(stats.t.logpdf(m, 1 + np.exp(log_m)[None, None, :], loc=grid_d[:, None, None],
                                  scale=np.exp(log_s)[None, :, None]) for m in means) + log_prior[None]
    density = trapezoid(trapezoid(np.exp(log_post - log_post.max()), log_m, axis=2), log_s, axis=1)
    cdf = np.concatenate([[0.0], np.cumsum((density[1:] + density[:-1]) / 2 * np.diff(grid_d))])
    cdf /= cdf[-1]
    low, up = np.interp([-0.25, 0.25], grid_d, cdf)
    grid = np.array([low, up - low, 1 - up])
    assert grid == pytest.approx([0.1067, 0.3424, 0.5509], abs=2e-3)
    note = [n for n in res.notes if n.startswith("Monte Carlo error")][0]
    stated = float(note.split("is at most ")[1].split(" ")[0])
    assert np.all(np.abs(ours - grid) <= 4 * stated + 3e-3), (ours, grid, stated)
    assert res.tidy().estimate.iloc[0] == pytest.approx(trapezoid(grid_d * density, grid_d)
                                                        / trapezoid(density, grid_d), abs=0.02)
