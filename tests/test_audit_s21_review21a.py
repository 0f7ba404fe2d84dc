"""Session 21 review (review21a) of perm21's and left21's work: the rank test's Monte Carlo p-value floored at the
exact test's true least (the agents' renamings keep its statistic), its count of relabellings named apart from
statistics.relabellings."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.skillings_mack import _kernels as rank_kernels


def _concordant(tasks=5):
    """Three agents, one run per task, ranked alike on every task: the exact p-value is the least the design allows,
    6 / 6^tasks (the 3! relabellings that rename the agents on every task give the same statistic)."""
    rows = [{"agent": a, "task": f"t{t}", "score": s + 0.1 * t} for t in range(tasks)
            for a, s in zip("ABC", (1.0, 2.0, 3.0))]
    return pd.DataFrame(rows)


def test_rank_monte_carlo_never_below_exact_least():
    """Review s21: floored at 1/relabellings (1/7776), seed 4 printed 1/2001 = 0.0005 where the exact test's least is
    6/7776 = 1/1296 = 0.00077; floored there now."""
    df = _concordant()
    exact = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="exact").pvalue
    assert exact == pytest.approx(1 / 1296)
    pvalues = [rlstats.skillings_mack(df, "score ~ agent | task", pvalue="monte_carlo", n_resamples=2000,
                                      rng=seed).pvalue for seed in range(6)]
    assert min(pvalues) >= exact
    assert pvalues[4] == pytest.approx(1 / 1296, rel=1e-12)  # no draw as extreme: the floor, not 1/2001


def _cells(counts, rng):
    """Distinct scores for a design with ``counts[t, a]`` runs of agent a on task t."""
    y, agent, task = [], [], []
    for t, row in enumerate(counts):
        for a, c in enumerate(row):
            y += list(rng.normal(size=c))
            agent += [a] * c
            task += [t] * c
    return np.array(y), np.array(agent), np.array(task)


@pytest.mark.parametrize("counts, equal", [
    ([[1, 1, 1]] * 4, True), ([[1, 1, 1, 1]] * 3, True), ([[2, 2, 2]] * 2, True), ([[1, 1]] * 8, True),
    ([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], False), ([[2, 1, 1]] * 3, False), ([[2, 2, 1]] * 2, False),
    ([[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1]], False)])
def test_least_pvalue_against_enumerated_null(counts, equal):
    """kernels.least_pvalue is the exact null's smallest probability (enumerated, distinct scores) on complete
    designs with equal cells, and never above it elsewhere (a lower bound: 1/864 where the least is 1/288)."""
    counts = np.array(counts)
    y, agent, task = _cells(counts, np.random.default_rng(0))
    variant = "skillings_mack" if counts.max() == 1 else "mack_skillings"
    setup = rank_kernels.build_setup(y, agent, task, counts.shape[1], counts.shape[0], variant=variant)
    smallest = float(rank_kernels.exact_null(setup, method="enumerate", limit=10**6).probabilities[-1])
    least = rank_kernels.least_pvalue(counts)
    brute = 1
    for row in counts:
        brute *= len(set(itertools.permutations(np.repeat(np.arange(row.size), row))))
    assert rank_kernels.design_relabellings(counts) == brute
    assert least >= 1 / brute
    if equal:
        assert least == pytest.approx(smallest, rel=1e-12)
    else:
        assert least <= smallest * (1 + 1e-12)


def test_least_pvalue_at_many_runs_is_quick_and_finite():
    """No huge count formed: 20 tasks x 5 agents x 10,000 runs (the count has 2.3 million bits, 2.2 s to form);
    asserted by refusing the exact count there, not timed."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rank_kernels, "design_relabellings", lambda counts: pytest.fail("the exact count was formed"))
        least = rank_kernels.least_pvalue(np.full((20, 5), 10_000))
    assert least == 0.0
    assert rank_kernels.least_pvalue(np.full((3, 3), 1)) == pytest.approx(6 / 216)


def test_rank_relabellings_named_apart_from_statistics():
    """One name, one meaning: statistics.relabellings counts two agents' runs; the rank test's count of k agents'
    multinomials is design_relabellings (review s21: both were 'relabellings')."""
    from rlstats import statistics

    assert not hasattr(rank_kernels, "relabellings")
    assert rank_kernels.design_relabellings(np.array([[3, 3]])) == statistics.relabellings(3, 3) == 20


def test_rank_cannot_reject_note_names_the_design_where_it_sets_the_floor():
    """Review s21: the floored Monte Carlo test's note blamed 'with 30 permutations' (1/31 = 0.032) for the least
    0.167 that the design sets (36 relabellings, 6 alike); with 10 draws of a design whose least is below 1/11 the
    draws are still named."""
    df = pd.DataFrame({"agent": np.tile(["a", "b", "c"], 2), "task": np.repeat(["t1", "t2"], 3),
                       "score": [1.0, 2, 3, 1, 2, 3]})
    res = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="monte_carlo", n_resamples=30, rng=0)
    assert res.pvalue_method == "monte_carlo" and res.pvalue >= 1 / 6
    note = ("the Monte Carlo permutation test cannot reject on 3 agents and 2 tasks: its smallest attainable p-value "
            "is 0.167, above alpha = 0.05")
    assert note in res.notes
    big = pd.DataFrame({"agent": np.tile(["a", "b", "c"], 4), "task": np.repeat(["t1", "t2", "t3", "t4"], 3),
                        "score": np.tile([1.0, 2, 3], 4)})
    res = rlstats.skillings_mack(big, "score ~ agent | task", pvalue="monte_carlo", n_resamples=10, rng=0)
    assert res.pvalue_method == "monte_carlo"
    assert ("the Monte Carlo permutation test cannot reject with 10 permutations: its smallest attainable p-value is "
            "0.0909, above alpha = 0.05") in res.notes
