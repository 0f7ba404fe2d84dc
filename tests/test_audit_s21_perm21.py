"""Session 21 audit (perm21): Monte Carlo p-values never below the exact test's smallest attainable p-value
(AdaStop's permutation test, the rank test's Monte Carlo p-value, the selection check's permutation inspector),
and AdaStop's rejection rate at equal means of different shapes (the ``adastop.fwe_means`` rows)."""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.adastop import permutation


def _three_by_two():
    """Three agents with two runs each, far apart: the largest |mean difference| of all 90 relabellings."""
    return pd.DataFrame({"agent": np.repeat(["a", "b", "c"], 2), "seed": np.tile([0, 1], 3),
                         "score": [0.0, 1.0, 10.0, 11.0, 20.0, 21.0]})


def _brute_force_max_share(scores, agents, n):
    """The share of the distinct relabellings of ``scores`` into ``agents`` groups of ``n`` whose largest |mean
    difference| over all pairs reaches the observed one: the exact first-step p-value, by enumeration."""
    scores = np.asarray(scores, dtype=float)
    labels = set(itertools.permutations(np.repeat(np.arange(agents), n)))
    def top(label):
        means = [scores[np.asarray(label) == a].mean() for a in range(agents)]
        return max(abs(means[a] - means[b]) for a, b in itertools.combinations(range(agents), 2))
    observed = top(np.repeat(np.arange(agents), n))
    return sum(top(label) >= observed - 1e-12 for label in labels) / len(labels), len(labels)


def test_permutation_pvalues_never_below_the_exact_smallest():
    """The joint relabelling's step-down p-values are shares of random paths, which fell below the exact smallest
    p-value 1/15 of 3 agents x 2 runs (0.056 in 16 of 40 seeds at 2,000 paths): floored there now."""
    df = _three_by_two()
    exact, distinct = _brute_force_max_share(df["score"], 3, 2)
    assert (distinct, exact) == (90, pytest.approx(1 / 15))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lowest = min(permutation(df, "score ~ agent", rng=seed, n_resamples=2000,
                                 permutations="joint").tidy()["p_adjusted"].min()
                     for seed in range(40))
    assert lowest == pytest.approx(exact, abs=1e-12)


def test_two_agents_enumerated_pvalues_are_the_exact_shares():
    """Two agents' paths are the exact tree (one of each complementary pair): not floored, the brute-force share."""
    df = pd.DataFrame({"agent": np.repeat(["a", "b"], 3), "seed": np.tile([0, 1, 2], 2),
                       "score": [0.0, 2.0, 1.0, 3.0, 5.0, 4.5]})
    exact, distinct = _brute_force_max_share(df["score"], 2, 3)
    assert distinct == 20 and exact == pytest.approx(2 / 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = permutation(df, "score ~ agent", rng=0)
    assert res.tidy()["p_adjusted"].tolist() == [pytest.approx(exact)]


def _friedman_exact(blocks):
    """Brute force: the share of the (k!)^b within-task relabellings whose sum of squared rank sums reaches the
    observed one (Friedman's statistic is a monotone function of it on complete untied designs)."""
    ranks = [np.argsort(np.argsort(b)) + 1 for b in blocks]
    observed = float(np.sum(np.sum(ranks, axis=0) ** 2))
    total = hits = 0
    for choice in itertools.product(*[list(itertools.permutations(r)) for r in ranks]):
        total += 1
        hits += float(np.sum(np.sum(choice, axis=0) ** 2)) >= observed - 1e-9
    return hits / total, total


def test_rank_test_monte_carlo_never_below_the_exact_p_value():
    """pvalue='monte_carlo' on a design of 36 relabellings drew 2,000 of them and printed 0.148 where the exact
    smallest p-value is 1/6: no more relabellings than draws are now all enumerated, and the note says so."""
    df = pd.DataFrame({"agent": np.tile(["a", "b", "c"], 2), "task": np.repeat(["t1", "t2"], 3),
                       "score": [1.0, 2, 3, 1, 2, 3]})
    exact, total = _friedman_exact([[1.0, 2, 3], [1.0, 2, 3]])
    assert (total, exact) == (36, pytest.approx(1 / 6))
    for seed in range(20):
        res = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="monte_carlo", n_resamples=2000, rng=seed)
        assert res.pvalue >= exact - 1e-12, seed
    assert res.pvalue == pytest.approx(exact) and res.pvalue_method == "exact" and res.pvalue_mc_se is None
    note = ('pvalue="monte_carlo": the design has 36 distinct relabellings within tasks, no more than n_resamples = '
            "2,000, so all were enumerated: the p-value is the exact permutation one, with no Monte Carlo error")
    assert note in res.notes and "exact permutation p-value = 0.1667" in str(res)


def test_rank_test_monte_carlo_with_fewer_draws_than_relabellings_is_floored():
    """Fewer draws (30) than relabellings (36): a Monte Carlo p-value, never below 1/(B + 1) nor the exact least
    6/36 (review s21: the 3! renamings of the agents give the same statistic), and the kernel's count of
    relabellings is the product of multinomials counted by brute force."""
    from rlstats.methods.skillings_mack import _kernels

    counts = np.array([[1, 2, 1], [2, 1, 0], [1, 1, 1]])
    brute = 1
    for row in counts:
        labels = np.repeat(np.arange(row.size), row)
        brute *= len(set(itertools.permutations(labels)))
    assert _kernels.design_relabellings(counts) == brute == 12 * 3 * 6
    df = pd.DataFrame({"agent": np.tile(["a", "b", "c"], 2), "task": np.repeat(["t1", "t2"], 3),
                       "score": [1.0, 2, 3, 1, 2, 3]})
    values = []
    for seed in range(10):
        res = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="monte_carlo", n_resamples=30, rng=seed)
        assert res.pvalue_method == "monte_carlo"
        assert res.pvalue == pytest.approx(max((1 + np.count_nonzero(res.null_distribution >= res.statistic - 1e-9))
                                               / 31, 6 / 36))
        values.append(res.pvalue)
    assert min(values) >= 1 / 31


def _tied_selection_data():
    """20 tasks, 2 runs of each agent: the effect (mean difference) is 5 on ten tasks, the two reported among them,
    and 0 on the other ten, so C(10, 2) = 45 of the C(20, 2) = 190 subsets tie the reported sum, the largest."""
    tasks = [f"t{i:02d}" for i in range(20)]
    rows = []
    for i, task in enumerate(tasks):
        for seed in range(2):
            rows.append({"agent": "old", "task": task, "seed": seed, "score": float(seed)})
            rows.append({"agent": "new", "task": task, "seed": seed, "score": float(seed) + (5.0 if i < 10 else 0.0)})
    return pd.DataFrame(rows), tasks[:2]


def test_selection_inspector_never_below_the_exact_smallest():
    """With fewer draws (100) than subsets (190) the permutation inspector's Monte Carlo p-value fell below the share
    of subsets that tie the reported sum, the exact least 45/190 (0.149 printed): floored there now."""
    df, reported = _tied_selection_data()
    effects = np.r_[np.full(10, 5.0), np.zeros(10)]
    sums = [effects[list(s)].sum() for s in itertools.combinations(range(20), 2)]
    exact = np.mean(np.asarray(sums) >= effects[:2].sum())
    assert exact == pytest.approx(45 / 190)
    values = []
    for seed in range(20):
        res = rlstats.selection_check(df, "score ~ agent | task", treatment="new", baseline="old", reported=reported,
                                      n_resamples=100, rng=seed)
        assert res.pvalue_method == "monte_carlo" and res.pvalue >= exact - 1e-12, (seed, res.pvalue)
        values.append(res.pvalue)
    assert min(values) == pytest.approx(45 / 190) and max(values) > 45 / 190


@pytest.mark.parametrize("seed", range(6))
def test_least_pvalue_is_the_share_of_subsets_tying_the_top(seed):
    """kernels.least_pvalue against brute force over every k-subset of small tied effects."""
    from rlstats.methods.selection import _kernels

    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 10))
    k = int(rng.integers(1, n))
    v = rng.integers(0, 3, n).astype(float) * 0.7
    sums = np.array([v[list(s)].sum() for s in itertools.combinations(range(n), k)])
    brute = np.mean(sums >= sums.max() - 1e-12)
    assert _kernels.least_pvalue(v, k) == pytest.approx(brute, rel=1e-12), (v, k)
    rows = np.stack([v, v[::-1], np.arange(n, dtype=float)])  # along the last axis: one per data set
    assert _kernels.least_pvalue(rows, k) == pytest.approx([brute, brute, 1 / math.comb(n, k)], rel=1e-12)


def test_equal_means_shortfall_is_quoted_and_the_prose_says_what_the_level_is_for(monkeypatch):
    """A made-up ``adastop.fwe_means`` row that misses (0.090 of 400 tests; 3 SE above 0.05 is 0.083)
    is quoted at its design only, with the default options; the methods paragraph says the level is for identical
    distributions."""
    from rlstats import calibration

    def row(runs, K, coverage, distribution="skewed_vs_normal", **draws):
        return {"procedure": "adastop.fwe_means", "test": "adastop", "agents": "3", "tasks": "1", "runs": str(runs),
                "interval": "holm",  # the default scheme's rows (audit s29b)
                "distribution": distribution, "configuration": f"K={K}", "level": "0.95", "n_sim": "400",
                "n_resamples": "2000", "coverage": str(coverage), "se": "0.011", **draws}

    rows = (row(5, 6, 0.91, design_draws="4", coverage_min="0.89"), row(5, 6, 0.95, "capped_vs_normal"),
            row(3, 6, 0.90))
    original = calibration.rows
    monkeypatch.setattr(calibration, "rows", lambda p: rows if p == "adastop.fwe_means" else original(p))
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=30, rng=0)
    res = rlstats.adastop(df, "score ~ agent", rng=0)
    quoted = ("AdaStop's level is exact when the agents' score distributions are identical, not when only their means "
              "are: with 3 agents, n = 5 runs per interim and K = 6 interims, agents of equal mean, one with skewed "
              "scores and the others normal, were declared different in 0.090 of 400 simulated tests, 0.110 in the "
              "worst of its 4 draws of the tasks' offsets and scales, above alpha = 0.05 by more than 3 Monte Carlo "
              "standard errors; a 'larger' or 'smaller' says the distributions differ, and the mean difference says "
              "which way")
    assert quoted in res.notes and " ".join(quoted.split()) in " ".join(str(res).split())
    for options in ({"K": 5}, {"alpha": 0.1}, {"permutations": "pairwise"}, {"permutations": "joint"}):
        assert not any("equal mean" in n for n in rlstats.adastop(df, "score ~ agent", rng=0, **options).notes)
    assert not any("equal mean" in n for n in permutation(df, "score ~ agent", rng=0).notes)
    level = ("The level is exact when the agents' score distributions are identical, not when only their means are "
             "equal: agents of equal mean but different shape can be declared different more often than alpha.")
    assert level in res._prose() and level in permutation(df, "score ~ agent", rng=0)._prose()


def test_equal_means_rows_cover_the_grid_and_their_range():
    """The table's 54 rows: 2 and 3 agents, n = 3, 5, 10, K = 2, 4, 6, three pairs of shapes; rejection rates as
    measured (0.0275 to 0.0875 over all, 0.0375 to 0.0725 with two agents), 400 tests each, 2 rows missing 0.95.
    Audit s29b: 27 more rows of the default permutations="holm" at 3 agents (interval "holm", the joint rows
    "joint"), 0.025 to 0.0775, none missing."""
    from rlstats import calibration

    holm = [r for r in calibration.rows("adastop.fwe_means") if r["interval"] == "holm"]
    assert len(holm) == 27 and {r["agents"] for r in holm} == {"3"} and {r["n_sim"] for r in holm} == {"400"}
    rates = [1 - float(r["coverage"]) for r in holm]
    assert (min(rates), max(rates)) == (pytest.approx(0.025), pytest.approx(0.0775))
    assert not any(calibration.misses(r, 0.95) for r in holm)
    rows = [r for r in calibration.rows("adastop.fwe_means") if r["interval"] != "holm"]
    assert sorted({(r["agents"], r["runs"], r["configuration"], r["distribution"]) for r in rows}) == sorted(
        (str(a), str(n), f"K={K}", d) for a in (2, 3) for n in (3, 5, 10) for K in (2, 4, 6)
        for d in ("skewed_vs_normal", "heavy_tailed_vs_normal", "capped_vs_normal"))
    rate = {r["agents"]: [] for r in rows}
    for r in rows:
        rate[r["agents"]].append(1 - float(r["coverage"]))
    assert (min(rate["2"]), max(rate["2"])) == (pytest.approx(0.0375), pytest.approx(0.0725))
    assert (min(rate["3"]), max(rate["3"])) == (pytest.approx(0.0275), pytest.approx(0.0875))
    assert {r["n_sim"] for r in rows} == {"400"} and sum(calibration.misses(r, 0.95) for r in rows) == 2
