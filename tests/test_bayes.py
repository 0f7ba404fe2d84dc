"""rlstats.bayes: the Bayesian signed-rank test against enumeration and baycomp, the hierarchical model's Gibbs
sampler against an independent reference chain, and the result's face (issue 41 item 1)."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.bayes import _kernels as kernels
from rlstats.statistics import tie_tolerance


def _region_matrices(differences, rope):
    """(below, above): for every pair (i, j) of the differences with the pseudo-observation 0 prepended, itself
    included, whether their Walsh average (d_i + d_j) / 2 lies below -rope or above rope, 1/2 on the boundary
    (Benavoli et al. 2014, eq. 9): the O(n^2) enumeration the kernel's O(n) form must equal."""
    d = np.concatenate(([0.0], differences))
    sums = d[:, None] + d[None, :]
    below = (sums < -2 * rope) + 0.5 * (sums == -2 * rope)
    above = (sums > 2 * rope) + 0.5 * (sums == 2 * rope)
    return below, above


def _rhat(draws):
    """The rank-normalised split R-hat (the larger of bulk and tail) of draws (..., chains, draws)."""
    return kernels.diagnose(draws)[0]


def _frame(diffs, runs=1, noise=0.0, seed=0):
    """Two agents whose task-level mean differences are ``diffs`` (agent_1 - agent_2)."""
    rng = np.random.default_rng(seed)
    rows = []
    for t, d in enumerate(diffs):
        for r in range(runs):
            base = 10.0 * t
            rows.append(("A", f"t{t:02d}", r, base + d + noise * rng.normal()))
            rows.append(("B", f"t{t:02d}", r, base + noise * rng.normal()))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.parametrize("rope", [0.0, 0.1, 0.3])
def test_staircase_equals_the_quadratic_form_of_walsh_averages(rope):
    # the O(n) form against sum_ij w_i w_j [Walsh average beyond the ROPE], ties (rounded data) counted 1/2
    rng = np.random.default_rng(3)
    d = np.round(rng.normal(size=12), 1)
    w = kernels.dirichlet_block(rng, 500, 12, 0.5)
    below, above = _region_matrices(d, rope)
    theta, mean = kernels.signed_rank_block(w, d[None], np.ones((1, 12), bool), rope)
    np.testing.assert_allclose(theta[:, 0, 0], np.einsum("is,is->s", below @ w, w), atol=1e-12)
    np.testing.assert_allclose(theta[:, 0, 2], np.einsum("is,is->s", above @ w, w), atol=1e-12)
    np.testing.assert_allclose(mean[:, 0], d @ w[1:], atol=1e-12)


def test_a_pair_on_fewer_tasks_uses_its_tasks_weights():
    rng = np.random.default_rng(4)
    d = rng.normal(size=6)
    w = kernels.dirichlet_block(rng, 200, 6, 0.5)
    present = np.array([[True, True, False, True, False, True]])
    theta, _ = kernels.signed_rank_block(w, d[None], present, 0.1)
    keep = np.r_[True, present[0]]
    sub = w[keep] / w[keep].sum(axis=0)
    below, above = _region_matrices(d[present[0]], 0.1)
    np.testing.assert_allclose(theta[:, 0, 0], np.einsum("is,is->s", below @ sub, sub), atol=1e-12)


@pytest.mark.slow  # baycomp loops over its 50,000 draws in Python (~10 s on a shared core)
def test_signed_rank_equals_baycomp_within_monte_carlo_error():
    baycomp = pytest.importorskip("baycomp", reason="baycomp (a test-only reference: pip install baycomp) is absent")
    rng = np.random.default_rng(5)
    diffs = rng.normal(0.05, 0.2, size=20)
    res = rlstats.bayes(_frame(diffs), "score ~ agent | task", rope=0.05, rng=1)
    row = res.tidy().iloc[0]
    # baycomp's x and y: its diff is y - x, so y = agent A's task means and "right" is A better
    x, y = np.zeros(20), diffs
    left, rope, right = baycomp.SignedRankTest.probs(x, y, rope=0.05, nsamples=50000, random_state=2)
    for ours, theirs in ((row.p_worse, left), (row.p_rope, rope), (row.p_better, right)):
        se = np.sqrt(2 * max(theirs * (1 - theirs), 1e-4) / 50000)
        assert abs(ours - theirs) < 4.5 * se, (ours, theirs)
    assert 0.05 < row.p_better < 0.95  # a case where the probabilities are not all at 0 or 1


def test_probabilities_flip_with_the_agents_and_with_lower_is_better():
    diffs = np.linspace(-0.3, 0.6, 9)
    df = _frame(diffs)
    ab = rlstats.bayes(df, "score ~ agent | task", rope=0.1, rng=0, n_samples=5000).tidy().iloc[0]
    ba = rlstats.bayes(df, "score ~ agent | task", rope=0.1, rng=0, n_samples=5000,
                       higher_is_better=False).tidy().iloc[0]
    assert (ab.p_better, ab.p_rope, ab.p_worse) == pytest.approx((ba.p_worse, ba.p_rope, ba.p_better), abs=0.03)


def test_identical_results_whatever_n_jobs():
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=0.5, rng=1)
    kw = dict(rope=0.1, rng=7, n_samples=25_000)
    one = rlstats.bayes(df, "score ~ agent | task/seed", n_jobs=1, **kw)
    two = rlstats.bayes(df, "score ~ agent | task/seed", n_jobs=2, **kw)
    pd.testing.assert_frame_equal(one.tidy(), two.tidy())
    pd.testing.assert_frame_equal(one.orderings, two.orderings)
    assert one.seed == 7


def test_orderings_sum_to_one_and_agree_with_the_pairs():
    df = rlstats.datasets.simulate(agents=3, tasks=8, seeds=2, effect=2.0, heterogeneity=0.0, rng=2)
    res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.0, rng=0, n_samples=5000, normalize=False)
    assert res.orderings["probability"].sum() == pytest.approx(1.0)
    assert res.orderings["ordering"].iloc[0] == "agent_3 > agent_2 > agent_1"


def test_control_pairs_and_the_face():
    import matplotlib.axes
    import matplotlib.figure

    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=0.5, rng=1)
    res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.1, control="agent_1", rng=0, n_samples=2000)
    tidy = res.tidy()
    assert list(tidy[["agent_1", "agent_2"]].itertuples(index=False, name=None)) == [("agent_2", "agent_1"),
                                                                                      ("agent_3", "agent_1")]
    np.testing.assert_allclose(tidy[["p_better", "p_rope", "p_worse"]].sum(axis=1), 1.0)
    assert "ROPE = [-0.1, 0.1] in the units of 'score'" in str(res)
    assert "P(better)" in res.report("text") or "P(better) =" in res.report("text")
    assert len(res.glance()) == 1
    assert isinstance(res.plot(), matplotlib.figure.Figure)
    one = rlstats.bayes(df[df["agent"] != "agent_3"], "score ~ agent | task/seed", rope=0.1, rng=0, n_samples=2000)
    assert isinstance(one.plot(kind="posterior"), matplotlib.axes.Axes)
    normalised = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.1, rng=0, n_samples=2000,
                               normalize=rlstats.datasets.simulate(agents=1, tasks=6, seeds=1, rng=0)
                               .assign(random=0.0, human=100.0)[["task", "random", "human"]])
    assert normalised.rope_scale == "normalised scores"


# ---------------------------------------------------------------------------- diagnostics

def test_rhat_and_ess_on_independent_and_stuck_chains():
    rng = np.random.default_rng(0)
    iid = rng.normal(size=(4, 1000))
    assert _rhat(iid) < 1.01
    assert 3000 < kernels.ess_bulk(iid) < 5000
    ar = np.zeros((4, 1000))
    for t in range(1, 1000):
        ar[:, t] = 0.9 * ar[:, t - 1] + rng.normal(size=4)
    # AR(1) with phi = 0.9: ESS ~ N (1 - phi) / (1 + phi) = 4000 / 19 ~ 210
    assert 120 < kernels.ess_bulk(ar) < 330
    shifted = iid + np.array([0.0, 0.0, 0.0, 1.0])[:, None]
    assert _rhat(shifted) > 1.05


# ---------------------------------------------------------------------------- the hierarchical model

@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:the chains of")
def test_hierarchical_is_identical_whatever_n_jobs_and_converges_on_a_small_design():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=4, effect=0.5, heterogeneity=0.2, rng=3)
    kw = dict(rope=0.1, rng=3, model="hierarchical", warmup=300, draws=500, normalize=False)
    one = rlstats.bayes(df, "score ~ agent | task/seed", n_jobs=1, **kw)
    two = rlstats.bayes(df, "score ~ agent | task/seed", n_jobs=2, **kw)
    pd.testing.assert_frame_equal(one.tidy(), two.tidy())
    pd.testing.assert_frame_equal(one.task_effects, two.task_effects)
    assert one.diagnostics["r_hat"].max() < 1.05
    assert one.plot().__class__.__name__ == "Figure"


def _pair_frame(x):
    """Agent A's runs are ``x`` (tasks, runs), agent B's are 0: the paired differences are x."""
    tasks, runs = x.shape
    return pd.DataFrame({"agent": np.repeat(["A", "B"], tasks * runs),
                         "task": np.tile(np.repeat([f"t{i:02d}" for i in range(tasks)], runs), 2),
                         "seed": np.tile(np.arange(runs), 2 * tasks),
                         "score": np.concatenate([x.ravel(), np.zeros(x.size)])})


def _atari_pair():
    import os

    if not os.environ.get("RLSTATS_DATA_MIRROR"):
        pytest.skip("set RLSTATS_DATA_MIRROR to the mirror of the published data (../shared/data/raw) for Atari 100k")
    df = rlstats.datasets.load("atari100k")
    df = rlstats.normalize(df[df["agent"].isin(["DER", "DrQ"])], "atari100k_reference")
    cells = df.sort_values(["task", "seed"]).pivot_table(index=["task", "seed"], columns="agent", values="score")
    diff = (cells["DER"] - cells["DrQ"]).to_numpy().reshape(26, -1)
    return diff


def _reference_designs():
    rng = np.random.default_rng(0)
    small = rng.normal(0.2, 1.0, size=(6, 5)) + rng.standard_t(3, size=(6, 1)) * 0.3
    heavy = rng.normal(0.0, 0.5, size=(10, 10)) + rng.standard_t(2, size=(10, 1)) * 0.4 + 0.1
    return {"6 tasks x 5 runs": (lambda: small, 0.1), "10 tasks x 10 runs, t2 tasks": (lambda: heavy, 0.05),
            "Atari 100k DER - DrQ": (_atari_pair, 0.01)}


@pytest.mark.slow  # NUTS in numpyro: about a minute of CPU per design
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("design", list(_reference_designs()))
def test_hierarchical_posterior_equals_an_independent_nuts_reference(design):
    pytest.importorskip("numpyro", reason="numpyro (the test-only independent reference: pip install numpyro) is "
                                          "absent")
    import runpy
    from pathlib import Path

    make, rope = _reference_designs()[design]
    x = make()
    reference = runpy.run_path(str(Path(__file__).parent / "reference" / "bayes_reference.py"))["reference_draws"](
        x, chains=4, warmup=1500, draws=3000)
    res = rlstats.bayes(_pair_frame(x), "score ~ agent | task/seed", rope=rope, model="hierarchical", chains=8,
                        warmup=1000, draws=4000, rng=0, normalize=False)
    row = res.tidy().iloc[0]
    diag = res.diagnostics.set_index("parameter")
    ref_ess = {name: float(kernels.ess_bulk(reference[name])) for name in ("delta0", "sigma0")}
    assert max(float(_rhat(reference[name])) for name in ("delta0", "sigma0", "nu")) < 1.01

    def close(ours, theirs, sd, ess_ours, ess_theirs, factor=1.0):
        bound = 4.5 * factor * sd * np.sqrt(1 / ess_ours + 1 / ess_theirs)
        assert abs(ours - theirs) <= bound, (design, ours, theirs, bound)

    d0 = reference["delta0"].ravel()
    sd0 = d0.std()
    close(row.estimate, d0.mean(), sd0, diag.loc["delta0", "ess_bulk"], ref_ess["delta0"])
    for q, ours in ((0.025, row.conf_low), (0.975, row.conf_high)):   # a tail quantile's SE is ~2.7 sd / sqrt(ESS)
        close(ours, np.quantile(d0, q), sd0, diag.loc["delta0", "ess_bulk"], ref_ess["delta0"], factor=2.7)
    for ours, theirs in ((row.p_better, np.mean(d0 > rope)), (row.p_worse, np.mean(d0 < -rope))):
        close(ours, theirs, np.sqrt(max(theirs * (1 - theirs), 1e-3)), diag.loc["delta0", "ess_bulk"],
              ref_ess["delta0"])
    s0 = reference["sigma0"].ravel()
    close(diag.loc["sigma0", "estimate"], s0.mean(), s0.std(), diag.loc["sigma0", "ess_bulk"], ref_ess["sigma0"])
    tasks = res.task_effects
    for i in range(x.shape[0]):
        draws = reference["delta"][..., i].ravel()
        close(tasks["estimate"].iloc[i], draws.mean(), draws.std(), diag["ess_bulk"].iloc[3 + i],
              float(kernels.ess_bulk(reference["delta"][..., i])))


@pytest.mark.filterwarnings("ignore:the chains of")
@pytest.mark.usefixtures("first_run_only")  # the chains as asked: the data pin each task, not the chains' length
def test_hierarchical_per_task_posteriors_follow_precise_data():
    # 200 runs per task of noise sd 0.1: each delta_i is pinned by its task's mean (posterior sd ~ 0.007), whatever
    # the prior across tasks; delta0 sits among them and P(better) = P(delta0 > rope) is near 1 for means ~ 1
    rng = np.random.default_rng(8)
    means = np.array([0.8, 1.0, 1.1, 1.3])
    x = means[:, None] + 0.1 * rng.standard_normal((4, 200))
    res = rlstats.bayes(_pair_frame(x), "score ~ agent | task/seed", rope=0.1, model="hierarchical", chains=2,
                        warmup=150, draws=200, rng=0, normalize=False)
    np.testing.assert_allclose(res.task_effects["estimate"], x.mean(axis=1), atol=0.01)
    row = res.tidy().iloc[0]
    assert 0.8 < row.estimate < 1.3 and row.p_better > 0.9
    assert res.diagnostics.shape[0] == 3 + 4 and res.glance()["r_hat"].iloc[0] >= 1.0
    assert res.rope_scale == "the units of 'score'"
    # a next task's masses (baycomp's HierarchicalTest) are probabilities too, and drawn on the simplex
    np.testing.assert_allclose(res.simplex_draws.sum(axis=-1), 1.0)
    assert row.p_better_next + row.p_rope_next + row.p_worse_next == pytest.approx(1.0)


def test_next_task_masses_are_student_t_probabilities():
    from scipy import stats

    delta0, sigma0, nu = np.array([0.1, -0.3]), np.array([0.5, 0.2]), np.array([3.0, 40.0])
    masses = kernels.next_task_masses(delta0, sigma0, nu, 0.05)
    below = stats.t.cdf(-0.05, nu, delta0, sigma0)
    above = stats.t.sf(0.05, nu, delta0, sigma0)
    np.testing.assert_allclose(masses, np.column_stack([below, 1 - below - above, above]), rtol=1e-12)


# ---------------------------------------------------------------------------- the hierarchical model's paired runs

_QUICK = dict(model="hierarchical", rope=0.1, rng=0, chains=2, warmup=100, draws=100, normalize=False)


def _seeded(seeds_a, seeds_b, tasks=3, seed=1):
    """Agents A and B on ``tasks`` tasks with the given seeds; run (agent, task, s) has a score fixed by its labels,
    so that a pair of runs' difference depends only on which seeds are paired."""
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(2, tasks, 20)) + np.arange(tasks)[None, :, None]
    rows = [(agent, f"t{t}", s, table[a, t, s] + 0.3 * (agent == "A"))
            for a, (agent, seeds) in enumerate((("A", seeds_a), ("B", seeds_b))) for t in range(tasks) for s in seeds]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.filterwarnings("ignore:the chains of")
@pytest.mark.usefixtures("first_run_only")  # quick fits: the chains as asked
def test_hierarchical_pairs_runs_by_seed_label_and_names_the_unpaired_ones_once():
    # issue 41 item 1 (review 2): A's seed 0, which B never ran, must not shift the pairs (it did by position)
    full = rlstats.bayes(_seeded(range(0, 6), range(1, 6)), "score ~ agent | task/seed", **_QUICK)
    without = rlstats.bayes(_seeded(range(1, 6), range(1, 6)), "score ~ agent | task/seed", **_QUICK)
    pd.testing.assert_frame_equal(full.tidy(), without.tidy())
    pd.testing.assert_frame_equal(full.task_effects, without.task_effects)
    note = next(n for n in full.notes if "no run of the same seed" in n)
    assert "3 runs of the data's 33" in note and "A vs B: 15 pairs of runs used, 3 runs left out (1 of A on 't0'" in note
    assert not any("no run of the same seed" in n for n in without.notes)
    # one run of A that neither B nor C ran is counted once, not once per pair
    df = pd.concat([_seeded(range(0, 4), range(1, 4)), _seeded([], range(1, 4), seed=2).assign(agent="C")])
    df = df[(df["task"] == "t0") | (df["seed"] != 0)]
    res = rlstats.bayes(df, "score ~ agent | task/seed", **_QUICK)
    note = next(n for n in res.notes if "no run of the same seed" in n)
    assert note.startswith("1 run of the data's 28 ") and "A vs B: 9 pairs of runs used, 1 run left out (1 of A on 't0')" in note \
        and "A vs C: 9 pairs of runs used, 1 run left out (1 of A on 't0')" in note


def test_hierarchical_refuses_a_pair_without_a_common_seed_and_a_design_without_seeds():
    with pytest.raises(rlstats.errors.DesignError, match=r"A and B share no seed on 't0'.*model='signed_rank'"):
        rlstats.bayes(_seeded(range(0, 3), range(3, 6)), "score ~ agent | task/seed", **_QUICK)
    # issue 41 item 1 (review 2): '| task' paired by row order, so a shuffle of the rows changed the result
    with pytest.raises(rlstats.errors.DesignError, match=r"name the run column.*'score ~ agent \| task/seed'"):
        rlstats.bayes(_seeded(range(4), range(4)), "score ~ agent | task", **_QUICK)


@pytest.mark.filterwarnings("ignore:the chains of")
@pytest.mark.usefixtures("first_run_only")  # quick fits: the chains as asked
def test_hierarchical_observed_means_are_of_the_paired_runs():
    df = _seeded(range(0, 5), range(1, 5))
    res = rlstats.bayes(df, "score ~ agent | task/seed", **_QUICK)
    paired = df[df["seed"] >= 1].pivot_table(index="task", columns="agent", values="score")
    np.testing.assert_allclose(res.task_effects["observed"], (paired["A"] - paired["B"]).to_numpy(), rtol=1e-12)


@pytest.mark.filterwarnings("ignore:the chains of")
@pytest.mark.usefixtures("first_run_only")  # quick fits: the chains as asked
def test_hierarchical_figure_draws_come_from_every_chain(monkeypatch):
    # issue 41 item 1 (review 2): the figures showed chain 0's draws only; shift each chain's delta0 apart
    gibbs = kernels.gibbs

    def apart(*args):
        chains, accept = gibbs(*args)
        offset = 1e3 * np.arange(chains.delta0.shape[1])[None, :, None]
        return chains._replace(delta0=chains.delta0 + offset), accept

    monkeypatch.setattr(kernels, "gibbs", apart)
    res = rlstats.bayes(_seeded(range(5), range(5)), "score ~ agent | task/seed", **{**_QUICK, "chains": 4, "draws": 500})
    drawn = res.posterior_draws[0]
    assert drawn.size == 1000                                        # kernels.KEPT_DRAWS of the 2000
    chain = np.round(drawn / drawn.max() * 3).astype(int)          # each chain's offset, 0..3
    np.testing.assert_array_equal(np.bincount(chain, minlength=4), [250, 250, 250, 250])


# issue 41 item 1, review 2: exact ties between regions, and rounding at the ROPE bounds
def test_identical_agents_split_the_tie_whichever_is_named_first():
    # all differences 0, rope 0: P(worse) = P(better) exactly in each sample, so each region wins half of the samples
    # (before: the better mass was 1 - 0.5, rounding decided argmax, and both orders said "agent_1 is worse")
    df = _frame(np.zeros(8))
    for control in (None, "A", "B"):
        row = rlstats.bayes(df, "score ~ agent | task", rng=0, n_samples=2000, normalize=False,
                            control=control).tidy().iloc[0]
        assert row.p_better == row.p_worse == 0.5
        assert row.p_rope == 0.0


def test_mirrored_differences_give_mirrored_probabilities():
    d = np.array([0.3, -0.2, 0.1, -0.4, 0.0, 0.0, 0.0, 0.0])
    one = rlstats.bayes(_frame(d), "score ~ agent | task", rng=0, n_samples=4000, normalize=False).tidy().iloc[0]
    two = rlstats.bayes(_frame(-d), "score ~ agent | task", rng=0, n_samples=4000, normalize=False).tidy().iloc[0]
    assert (one.p_better, one.p_rope, one.p_worse) == (two.p_worse, two.p_rope, two.p_better)


def test_shifted_or_scaled_scores_give_identical_probabilities():
    # Walsh averages exactly on the ROPE bound (0.1 + 0.1 = 2 * 0.1 ...) stay on it after d + 1000 and d * 3
    d = np.array([-.1, .3, .1, -.1, .2, .3, -.4, 0, -.2, 0])
    df = pd.DataFrame({"agent": ["A"] * 10 + ["B"] * 10, "task": [f"t{i}" for i in range(10)] * 2,
                       "score": np.r_[d, np.zeros(10)]})

    def probs(frame, rope):
        row = rlstats.bayes(frame, "score ~ agent | task", rope=rope, rng=0, n_samples=4000,
                            normalize=False).tidy().iloc[0]
        return row.p_better, row.p_rope, row.p_worse

    base = probs(df, 0.1)
    assert probs(df.assign(score=df.score + 1000.0), 0.1) == base
    assert probs(df.assign(score=df.score * 3), 0.3) == base
    # the masses themselves against the O(n^2) enumeration of the exact (decimal) differences
    w = kernels.dirichlet_block(np.random.default_rng(0), 300, 10, 1.0)
    shifted = (d + 1000.0) - 1000.0
    on = 2 * tie_tolerance(0.7, 1000.4)  # the range of the atoms 0 and d, the largest |task mean|
    theta, _ = kernels.signed_rank_block(w, shifted[None], np.ones((1, 10), bool), 0.1, np.array([on]))
    below, above = _region_matrices(np.round(d * 10), 1.0)      # the same data in integer units: no rounding
    np.testing.assert_allclose(theta[:, 0, 0], np.einsum("is,is->s", below @ w, w), atol=1e-12)
    np.testing.assert_allclose(theta[:, 0, 2], np.einsum("is,is->s", above @ w, w), atol=1e-12)


# issue 41 item 1, review 2: what the printed numbers are
def test_print_says_what_the_difference_is_and_what_the_probabilities_are():
    df = _frame([0.3, -0.1, 0.2, 0.4, 0.1, -0.2])
    low = rlstats.bayes(df, "score ~ agent | task", rng=0, n_samples=2000, normalize=False, higher_is_better=False)
    high = rlstats.bayes(df, "score ~ agent | task", rng=0, n_samples=2000, normalize=False)
    # the agents as the tables head them (audit s27)
    assert "mean diff = 2nd agent - 1st agent (lower is better: positive favours the 1st agent)" in str(low)
    assert "mean diff = 1st agent - 2nd agent (higher is better" in str(high)
    assert "differences are 2nd agent - 1st agent" in low.report("text")
    # what the probabilities are about, beside them (audit s38 fixc38: "(about a median: it can disagree with the
    # sign of the mean)" beside the mean alone read as a contradiction)
    assert ("largest Dirichlet-weighted mass of the Walsh averages; pseudo-median: posterior median of the median of "
            "those Walsh averages") in str(high)
    assert low.comparisons["estimate"].iloc[0] == -high.comparisons["estimate"].iloc[0]
    assert low.comparisons["pseudo_median"].iloc[0] == -high.comparisons["pseudo_median"].iloc[0]


def test_no_rope_wording_and_shares_of_zero_or_one():
    df = _frame([0.3, 0.1, 0.2, 0.4, 0.1, 0.2, 0.5, 0.3])
    res = rlstats.bayes(df, "score ~ agent | task", rng=0, n_samples=2000, normalize=False)
    text = str(res)
    assert "no ROPE" in text and "[-0, 0]" not in text
    assert res.tidy().p_rope.iloc[0] == 0.0                       # the stored value stays the share
    assert "< 1/2000" in text                                      # P(rope) = 0 of 2000 draws
    assert "+-0" not in res.report("text") and "no region of practical equivalence" in res.report("text")
    wide = rlstats.bayes(df, "score ~ agent | task", rope=0.1, rng=0, n_samples=2000, normalize=False)
    assert r"$\pm$0.1" in wide.report("latex") and "+-" not in wide.report("latex")


def test_signed_rank_summary_has_no_all_nan_task_columns():
    res = rlstats.bayes(_frame([0.3, -0.1, 0.2, 0.4]), "score ~ agent | task", rng=0, n_samples=500,
                        normalize=False)
    per_task = res.summary().tables["Per task"]
    assert list(per_task.columns) == ["agent_1", "agent_2", "task", "observed"]
    np.testing.assert_allclose(per_task["observed"], [0.3, -0.1, 0.2, 0.4], atol=1e-12)


# issue 41 item 1, review 2: the figures
def test_plot_with_more_pairs_than_a_page_holds_names_the_way_on():
    import matplotlib.pyplot as plt

    from rlstats.errors import OptionError
    from rlstats.methods.bayes import plots

    df = rlstats.datasets.simulate(agents=9, tasks=4, seeds=1, rng=0)
    res = rlstats.bayes(df, "score ~ agent | task", rng=0, n_samples=200, normalize=False)
    assert len(res.comparisons) == 36 > plots.MAX_PANELS
    for kind in ("simplex", "posterior"):
        with pytest.raises(OptionError, match=r"36 pairs.*control="):
            res.plot(kind=kind)
    one = rlstats.bayes(df, "score ~ agent | task", rng=0, n_samples=200, normalize=False, control=res.agents[0])
    fig = one.plot()
    assert fig.get_size_inches()[1] < 9.5                          # a page (8 panels, 3 a row: 2.1 in each)
    plt.close("all")


def test_signed_rank_posterior_plot_labels_its_numbers():
    import matplotlib.pyplot as plt

    df = _frame([0.3, -0.1, 0.2, 0.4, 0.1, -0.2])
    res = rlstats.bayes(df, "score ~ agent | task", rng=0, n_samples=500, normalize=False, rope=0.1)
    ax = res.plot(kind="posterior")
    assert "Walsh shares" in ax.get_title() and "worse" in ax.get_title()
    assert "A \u2212 B" in ax.get_xlabel() and "units of 'score'" in ax.get_xlabel()
    low = rlstats.bayes(df, "score ~ agent | task", rng=0, n_samples=500, normalize=False, higher_is_better=False)
    ax = low.plot(kind="posterior")
    assert "B \u2212 A, lower is better" in ax.get_xlabel() and "ROPE shaded" not in ax.get_xlabel()
    plt.close("all")


# ---------------------------------------------------------------------------- issue 41 items 1-2: names and notes

@pytest.mark.filterwarnings("ignore:the chains of")  # short chains: the names are tested, not the fit
@pytest.mark.usefixtures("first_run_only")  # quick fits: the chains as asked
def test_hierarchical_names_delta0_the_centre_not_the_mean():
    import matplotlib.pyplot as plt

    # one task far from the rest: the Student-t's centre delta0 stays near the others (0.1), the mean does not (0.6)
    diffs = [0.1, 0.05, 0.15, 0.1, 0.12, 0.08, 0.1, 4.1]
    res = rlstats.bayes(_frame(diffs, runs=3, noise=0.05), "score ~ agent | task/seed", model="hierarchical",
                        rope=0.05, chains=2, warmup=150, draws=150, rng=0, normalize=False)
    estimate = res.tidy()["estimate"].iloc[0]            # the tidy column keeps its name
    assert abs(estimate - 0.1) < 0.1 and abs(estimate - np.mean(diffs)) > 0.4
    text = str(res)
    assert "mean diff" not in text and "centre (delta0) = 1st agent - 2nd agent" in text
    assert "posterior probability that delta0, the centre (location) of the tasks' differences" in text
    report = res.report("text")
    assert "mean difference across" not in report and "centre of the differences (delta0) 0.0" in report
    assert "the probabilities are those of delta0, the centre (location) of the tasks' differences, which is not " \
           "their mean" in report
    assert "centre (delta0)" in res.summary().tables["Pairs"].columns or "estimate" in res.summary().tables["Pairs"]
    assert res.plot().get_xlabel().startswith("centre of the differences (delta0), A \u2212 B")
    plt.close("all")
    signed = rlstats.bayes(_frame(diffs), "score ~ agent | task", rope=0.05, n_samples=500, rng=0, normalize=False)
    assert "mean diff = 1st agent - 2nd agent" in str(signed) and "mean difference" in signed.report("text")


def test_signed_rank_on_one_or_two_tasks_says_so():
    from rlstats.methods.bayes._api import FEW_TASKS, _prior_share

    # the share of the Walsh-average mass holding the pseudo-observation, against Dirichlet draws
    rng = np.random.default_rng(0)
    for prior, n in ((0.5, 1), (0.5, 2), (1.0, 2), (1.0, 3), (2.0, 5)):
        w0 = rng.dirichlet([prior] + [1.0] * n, 50_000)[:, 0]
        assert _prior_share(prior, n) == pytest.approx(np.mean(w0 ** 2 + 2 * w0 * (1 - w0)), abs=6e-3)
    assert FEW_TASKS == 3  # tests/reference/few_tasks_signed_rank.py: decisive under the null in over a third below
    # SB3-shaped: A2C and PPO on the two classic-control tasks, final returns normalised to [0, 1]; P(better) 0.86
    two = pd.DataFrame({"agent": ["A2C"] * 6 + ["PPO"] * 6, "task": (["Acrobot-v1"] * 3 + ["CartPole-v1"] * 3) * 2,
                        "seed": [0, 1, 2] * 4, "score": [0.0, 0.8204, 0.6452, 0.8128, 0.9904, 0.4896,
                                                         0.0, 0.0, 0.0, 0.6532, 0.642, 0.7272]})
    res = rlstats.bayes(two, "score ~ agent | task/seed", rope=0.05, n_samples=2000, rng=0)
    assert res.comparisons["p_better"].iloc[0] > 0.8
    note = [n for n in res.notes if "rest on fewer than 3 tasks" in n]
    assert note == ["the signed-rank probabilities of A2C vs PPO (2 tasks) rest on fewer than 3 tasks: the posterior "
                    "knows only their differences and the prior's pseudo-observation at 0 (weight 0.5, in 31% or more "
                    "of the Walsh-average mass on average), and with identical agents it reached a probability of "
                    "0.95 in over a third of simulated data sets of 1 or 2 tasks; read them as a description of these "
                    "tasks, not of tasks in general, and add tasks"]
    assert "rest on fewer than 3 tasks" in res.report("text")
    three = rlstats.bayes(_frame([0.3, 0.2, 0.4]), "score ~ agent | task", rope=0.05, n_samples=500, rng=0,
                          normalize=False)
    assert not any("fewer than 3 tasks" in n for n in three.notes)
    one = rlstats.bayes(_frame([0.3]), "score ~ agent | task", n_samples=500, rng=0, normalize=False)
    # one shared task: the probabilities are withheld (session 14's second reading: P(worse) = 1 whenever the task's
    # difference is negative at rope = 0), so no note reads them
    assert one.comparisons[["p_better", "p_rope", "p_worse"]].isna().all(axis=None)
    assert not any("fewer than 3 tasks" in n for n in one.notes)
    assert any(n.startswith("the probabilities and credible intervals of A vs B are withheld") for n in one.notes)


@pytest.mark.filterwarnings("ignore:the chains of")  # short chains: the note is tested, not the fit
@pytest.mark.usefixtures("first_run_only")  # quick fits: the chains as asked
def test_hierarchical_note_states_the_pairing_and_its_assumption_without_asserting_it():
    # published data number their runs 0..n-1: the runs of one label need not share any randomness
    res = rlstats.bayes(_frame([0.1, 0.2, 0.3], runs=3, noise=0.1), "score ~ agent | task/seed", model="hierarchical",
                        chains=2, warmup=100, draws=100, rng=0, normalize=False)
    text = " ".join(res.notes)
    assert "share its randomness" not in text
    assert ("each pair's runs on a task are paired by their seed label and the pairs' differences are the replicates: "
            "this removes randomness that runs of one label share (an environment seed, say), if they do; where the "
            "labels only number the runs the pairs are arbitrary, which independent runs allow but which gains "
            "nothing") in res.notes
# ---------------------------------------------------------------------------- orderings (issue 41 item 1)

def _three_agents(seed=2, tasks=6, runs=4):
    return rlstats.datasets.simulate(agents=3, tasks=tasks, seeds=runs, effect=0.5, rng=seed)


def test_codes_of_enumerate_every_ordering_once():
    # the Lehmer code of each permutation of 4 values is its index in orderings(4), best first
    table = kernels.orderings(4)
    values = np.array([[-p.index(a) for a in range(4)] for p in table], dtype=float)  # agent p[0] highest
    assert kernels.codes_of(values).tolist() == list(range(24))
    assert kernels.codes_of(-values, higher_is_better=False).tolist() == list(range(24))


@pytest.mark.filterwarnings("ignore:the chains of", "ignore:the joint fit")
@pytest.mark.usefixtures("first_run_only")  # quick fits: the chains as asked
def test_hierarchical_orderings_are_the_joint_draws_ranked():
    df = _three_agents(tasks=4, runs=3)
    res = rlstats.bayes(df, "score ~ agent | task/seed", model="hierarchical", orderings=True, chains=2, warmup=100,
                        draws=100, rng=1, normalize=False)
    assert res.orderings["probability"].sum() == pytest.approx(1.0)
    assert res.orderings["probability"].is_monotonic_decreasing and len(res.orderings) <= 6
    assert "Orderings" in res.summary().tables
    joint = res.diagnostics[res.diagnostics["parameter"] == "delta0 (joint fit, orderings)"]
    assert list(joint["agent_2"]) == ["agent_1", "agent_1"]      # the reference: control= or the first agent


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:the chains of", "ignore:the joint fit")
def test_hierarchical_pairs_do_not_depend_on_the_orderings():
    df = _three_agents()
    kw = dict(model="hierarchical", chains=2, warmup=100, draws=150, rng=1, normalize=False)
    res = rlstats.bayes(df, "score ~ agent | task/seed", orderings=True, **kw)
    # without orderings=True the hierarchical model lists none, and says how to ask
    plain = rlstats.bayes(df, "score ~ agent | task/seed", **kw)
    assert plain.orderings is None and any("orderings=True" in n for n in plain.notes)
    # the pairwise fits do not depend on whether the orderings were asked for (their own streams)
    pd.testing.assert_frame_equal(plain.tidy(), res.tidy())


def test_orderings_switch_off_and_bounds():
    df = _three_agents()
    assert rlstats.bayes(df, "score ~ agent | task/seed", orderings=False, n_samples=500, rng=0).orderings is None
    many = rlstats.datasets.simulate(agents=9, tasks=3, seeds=2, rng=0)
    with pytest.raises(rlstats.errors.OptionError, match="at most 8 agents"):
        rlstats.bayes(many, "score ~ agent | task/seed", orderings=True, n_samples=500, rng=0)
    holes = df[~((df["agent"] == "agent_2") & (df["task"] == df["task"].iloc[0]))]
    with pytest.raises(rlstats.errors.DesignError, match="orderings=True needs every agent on every task"):
        rlstats.bayes(holes, "score ~ agent | task/seed", orderings=True, n_samples=500, rng=0)


@pytest.mark.slow  # two fits of 8 chains x 2,000 draws (~10 s on a shared core)
@pytest.mark.filterwarnings("ignore:the chains of")
def test_two_agent_ordering_equals_the_pairwise_posterior_when_the_reference_is_exact():
    # The joint fit's independent check: with two agents whose reference (B) has runs that barely vary, the unpaired
    # joint model and the paired pairwise model (checked against NUTS) have the same likelihood and priors, so the
    # ordering's probability P(delta0 > 0) equals the pairwise p_better at rope=0, within Monte Carlo error.
    rng = np.random.default_rng(11)
    means = np.array([0.3, -0.2, 0.5, 0.1, 0.4, -0.1])
    x = means[:, None] + 0.5 * rng.standard_normal((6, 8))
    df = _pair_frame(x)
    df.loc[df["agent"] == "B", "score"] = 1e-7 * rng.standard_normal(int((df["agent"] == "B").sum()))
    kw = dict(model="hierarchical", rope=0.0, chains=8, warmup=500, draws=2000, normalize=False)
    res = rlstats.bayes(df, "score ~ agent | task/seed", orderings=True, rng=4, **kw)
    p_order = float(res.orderings.set_index("ordering")["probability"].get("A > B", 0.0))
    p_pair = float(res.tidy()["p_better"].iloc[0])
    ess = float(res.diagnostics["ess_bulk"].min())
    se = np.sqrt(2 * p_pair * (1 - p_pair) / ess)
    assert 0.6 < p_pair < 0.97
    assert abs(p_order - p_pair) < 4.5 * se, (p_order, p_pair, se)


def test_two_agent_signed_rank_ordering_is_the_share_of_positive_mean_differences():
    # two agents: the ordering A > B holds in exactly the draws where the Dirichlet-weighted mean difference is
    # positive (the ROPE plays no part), here all 1,000 draws kept for the figures; it is not p_better (a median's)
    diffs = np.array([0.4, -0.3, 0.2, 0.05, -0.1, 0.3])
    res = rlstats.bayes(_frame(diffs), "score ~ agent | task", rope=0.1, n_samples=1000, rng=3, normalize=False)
    p = res.orderings.set_index("ordering")["probability"]
    assert p.get("A > B", 0.0) == pytest.approx(float(np.mean(res.posterior_draws[0] > 0)), abs=1e-12)
    assert p.sum() == pytest.approx(1.0)


# ---------------------------------------------------------------------------- weak orderings (audit s7)

def _weak_orderings(k):
    """Every weak ordering of k agents as a level vector (0 = best place), by enumeration: the vectors of
    {0..k-1}^k whose levels are 0..m-1 without a gap (1, 3, 13, 75, 541 of them for k = 1..5, the Fubini numbers)."""
    from itertools import product

    return [levels for levels in product(range(k), repeat=k) if set(levels) == set(range(max(levels) + 1))]


def _places(levels):
    """The tied groups, best first, of a level vector: the answer :func:`kernels.weak_ordering` must give."""
    return [tuple(a for a in range(len(levels)) if levels[a] == level) for level in range(max(levels) + 1)]


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_codes_of_give_every_weak_ordering_one_code_whatever_the_agents_order(k):
    from itertools import permutations

    every = _weak_orderings(k)
    assert len(every) == [1, 3, 13, 75][k - 1]
    values = 100.0 - np.array(every, dtype=float)               # level 0 highest; tied agents exactly equal
    codes = kernels.codes_of(values)
    assert len(set(codes.tolist())) == len(every)               # one code per weak ordering
    assert [kernels.weak_ordering(c, k) for c in codes] == [_places(levels) for levels in every]
    # lower is better: the same places from the negated values
    assert kernels.codes_of(-values, higher_is_better=False).tolist() == codes.tolist()
    # the same weak ordering of the same agents, whatever the order of the columns (the agents' order in the data)
    for order in permutations(range(k)):
        shuffled = kernels.codes_of(values[:, list(order)])
        for code, levels in zip(shuffled, every):
            places = [tuple(sorted(order[a] for a in group)) for group in kernels.weak_ordering(code, k)]
            assert places == _places(levels)


def test_codes_of_tie_values_that_differ_by_rounding_only():
    summed = 0.1 + 0.2 + 0.3                                    # 0.6000000000000001: one ulp above 0.6
    values = np.array([[summed, 0.6, 0.5], [0.6, summed, 0.5], [0.6 + 1e-9, 0.6, 0.5], [0.5, 0.6, 0.6 + 1e-9]])
    places = [kernels.weak_ordering(c, 3) for c in kernels.codes_of(values)]
    assert places == [[(0, 1), (2,)], [(0, 1), (2,)], [(0,), (1,), (2,)], [(2,), (1,), (0,)]]
    # the signed-rank model's draws: two agents with the same task means, one summed in another order, tie in every
    # draw (the scale is the draw's weighted mean of |task means|); the third is below them in every draw
    weights = kernels.dirichlet_block(np.random.default_rng(0), 500, 4, 0.5)
    means = np.array([[summed, 0.6, 0.1], [2.0, 2.0, 1.0], [0.6, summed, 0.2], [1e3, 1e3, 9e2]])
    codes = kernels.ordering_codes(weights, means, True)
    assert {tuple(kernels.weak_ordering(c, 3)) for c in codes} == {((0, 1), (2,))}


def test_ordering_table_of_constructed_draws_with_ties():
    from types import SimpleNamespace

    from rlstats.methods.bayes._api import _ordering_frame

    # 10 draws of agents A, B, C: 5 with A and B tied above C, 3 with A > B > C, 2 with C above A and B tied
    values = np.array([[2.0, 2.0, 1.0]] * 5 + [[3.0, 2.0, 1.0]] * 3 + [[1.0, 1.0, 2.0]] * 2)
    design = SimpleNamespace(agents=("A", "B", "C"), n_agents=3)
    notes = []
    table = _ordering_frame(design, kernels.codes_of(values), True, notes)
    assert table["ordering"].tolist() == ["A = B > C", "A > B > C", "C > A = B"]
    assert table["probability"].tolist() == [0.5, 0.3, 0.2]
    assert notes == ["orderings: some agents tied in 7 of the 10 posterior draws (values within 1e-12 of each other "
                     "relative to the draw's range, plus its rounding, as the same task means give, e.g. both at a "
                     "score cap): agents "
                     "tied in a draw are written 'A = B' and are not ordered there"]
    # lower is better: the same draws negated read best first with '<'
    table = _ordering_frame(design, kernels.codes_of(-values, higher_is_better=False), False, [])
    assert table["ordering"].tolist() == ["A = B < C", "A < B < C", "C < A = B"]
    # no ties: no note
    notes = []
    _ordering_frame(design, kernels.codes_of(values[5:8]), True, notes)
    assert notes == []


def _capped(seed=3, tasks=6):
    """A and B at the score cap (500) on every run of every task; C and D below it, varying."""
    rng = np.random.default_rng(seed)
    rows = [(a, f"t{t}", r, 500.0 if a in "AB" else float(rng.uniform(100, 400)))
            for a in "ABCD" for t in range(tasks) for r in range(3)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _as_sets(table, rename=None):
    """{ordering as a tuple of sets of agents, best first: probability}, with agents renamed by ``rename``."""
    rename = rename or {}
    out = {}
    for ordering, p in zip(table["ordering"], table["probability"]):
        places = tuple(frozenset(rename.get(a, a) for a in place.split(" = ")) for place in ordering.split(" > "))
        out[places] = p
    return out


def test_capped_agents_tie_in_every_draw_whatever_their_names():
    df = _capped()
    kw = dict(n_samples=2000, rng=4, normalize=False)
    res = rlstats.bayes(df, "score ~ agent | task/seed", **kw)
    # the draws order C and D as a fit of those two alone does (the Dirichlet weights are the tasks', shared), and
    # tie A and B above both in every draw
    alone = rlstats.bayes(df[df["agent"].isin(["C", "D"])], "score ~ agent | task/seed", **kw).orderings
    p_cd = float(alone.set_index("ordering")["probability"].get("C > D", 0.0))
    assert 0 < p_cd < 1
    expected = {"A = B > C > D": p_cd, "A = B > D > C": 1 - p_cd}
    got = dict(zip(res.orderings["ordering"], res.orderings["probability"]))
    assert got.keys() == expected.keys() and got == pytest.approx(expected, abs=1e-15)
    assert res.orderings["probability"].sum() == pytest.approx(1.0, abs=1e-15)
    assert "some agents tied in 2000 of the 2000 posterior draws" in str(res)
    # renamed (A -> Z: now the last agent) or with the rows in another order: the same orderings of the same agents
    renamed = rlstats.bayes(df.assign(agent=df["agent"].replace({"A": "Z"})), "score ~ agent | task/seed", **kw)
    assert _as_sets(renamed.orderings, {"Z": "A"}) == _as_sets(res.orderings)
    shuffled = rlstats.bayes(df.sample(frac=1.0, random_state=0), "score ~ agent | task/seed", **kw)
    assert _as_sets(shuffled.orderings) == _as_sets(res.orderings)
    # lower is better: A and B are now last, tied, and "D < C" (D best) holds where C's mean was above D's
    low = rlstats.bayes(df, "score ~ agent | task/seed", higher_is_better=False, **kw).orderings
    assert dict(zip(low["ordering"], low["probability"])) == pytest.approx({"D < C < A = B": p_cd,
                                                                           "C < D < A = B": 1 - p_cd}, abs=1e-15)


def test_runs_that_vary_are_told_from_runs_that_do_not_whatever_the_units():
    """One relative rule (runs_do_not_vary) for the pairwise and the joint hierarchical fits: runs of 1e-13 to 3e-13
    vary as they do times 1e13, and runs all at one value do not, at any scale (review s7: a floor of 1 in the rule
    refused the small runs)."""
    from rlstats.methods.bayes import _kernels as kernels

    for scale in (1e-13, 1.0, 1e13):
        x = np.array([1.0, 2.0, 3.0]) * scale
        assert not kernels.runs_do_not_vary(np.square(x - x.mean()).sum(), np.square(x).sum())
        flat = np.full(3, 0.1 + 0.2) * scale  # one value, with its rounding
        assert kernels.runs_do_not_vary(np.square(flat - flat.mean()).sum(), np.square(flat).sum())
    assert kernels.runs_do_not_vary(0.0, 0.0)  # runs all at 0
