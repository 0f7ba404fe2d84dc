"""Audit s18 (rank18): the default comparison, ``compare(df, "score ~ agent | task")``, on the designs RL has.

The statistic and the exact permutation p-value are checked against a computation written here from the papers
(Skillings & Mack 1981: block weights sqrt(12 / (k_i + 1)); Mack & Skillings 1980: all runs of a task ranked jointly,
weight 1 / q_i; the null covariance of rank sums drawn without replacement, inverted with numpy's pinv) and the
permutation distribution enumerated label by label; the rest are the defects' reproducers.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from conftest import runs_frame


def _reference(df):
    """(statistic, df, chi-squared p, exact permutation p) of the rank test, every relabelling within tasks counted.

    A task of q runs adds w (rank - (q + 1) / 2) to its agents' sums d; Cov0 = sum_i w_i^2 (q_i + 1) / 12 (diag(q_i
    c_i) - c_i c_i') (rank sums drawn without replacement) depends on the counts alone, so it is inverted once."""
    agents = sorted(df["agent"].unique(), key=str)
    k = len(agents)
    single = df.groupby(["agent", "task"]).size().max() == 1
    cov, contributions, observed = np.zeros((k, k)), [], np.zeros(k)
    for _, g in df.groupby("task"):
        if g["agent"].nunique() < 2:
            continue
        agent = np.array([agents.index(a) for a in g["agent"]])
        q, c = agent.size, np.bincount(agent, minlength=k).astype(float)
        w = np.sqrt(12 / (np.count_nonzero(c) + 1)) if single else 1 / q
        centred = w * (stats.rankdata(g["score"]) - (q + 1) / 2)
        cov += w**2 * (q + 1) / 12 * (np.diag(q * c) - np.outer(c, c))
        observed += np.bincount(agent, weights=centred, minlength=k)
        contributions.append(np.array([np.bincount(a, weights=centred, minlength=k)
                                       for a in sorted(set(itertools.permutations(agent)))]))
    pinv = np.linalg.pinv(cov, rcond=1e-10, hermitian=True)
    d = np.zeros(k)
    for c in contributions:  # every combination of the tasks' relabellings, one axis a task
        d = d[..., None, :] + c
    values = np.einsum("...j,jl,...l->...", d, pinv, d).ravel()
    t0 = float(observed @ pinv @ observed)
    rank = int(np.linalg.matrix_rank(cov, tol=1e-8))
    exact = float(np.mean(values >= t0 - 1e-9 * max(1.0, t0)))
    return t0, rank, float(stats.chi2.sf(t0, rank)), exact


def _designs():
    rng = np.random.default_rng(2)
    chain = [("A", "t1"), ("B", "t1"), ("B", "t2"), ("C", "t2"), ("C", "t3"), ("D", "t3")]
    incomplete = {(a, f"t{t}"): [rng.normal() + i / 2] for t in range(4) for i, a in enumerate("ABC") if (t + i) % 3}
    incomplete.update({(a, "t9"): [rng.normal()] for a in "ABC"})
    mixed = {(a, f"t{t}"): list(rng.normal(size=1 if (a == "A" and t == 0) else 2)) for a in "ABC" for t in range(2)}
    tied = {(a, f"t{t}"): [5.0, 5.0] if t == 0 else list(rng.normal(size=2)) for a in "ABC" for t in range(2)}
    capped = {(a, f"t{t}"): list(np.minimum(rng.normal(size=2) + i, 0.5)) for i, a in enumerate("ABC") for t in range(2)}
    solo = {(a, f"t{t}"): list(rng.normal(size=2)) for a in "ABC" for t in range(2)}
    solo[("A", "solo")] = [1.0, 2.0, 3.0]  # a task only A ran: kept out, and no rank of A there
    return {
        "incomplete, one run": (incomplete, "skillings_mack"),
        "chain A-B, B-C, C-D, two runs": ({cell: list(rng.normal(size=2)) for cell in chain}, "mack_skillings"),
        "one task, three runs": ({(a, "t1"): list(rng.normal(size=3)) for a in "ABC"}, "mack_skillings"),
        "two agents, one run": ({(a, f"t{t}"): [rng.normal()] for a in "AB" for t in range(4)}, "friedman"),
        "one and two runs": (mixed, "mack_skillings"),
        "a task all tied": (tied, "mack_skillings"),
        "capped": (capped, "mack_skillings"),
        "integer agents": ({(a, f"t{t}"): list(rng.normal(size=2)) for a in (1, 2, 3) for t in range(2)},
                           "mack_skillings"),
        "a task of one agent": (solo, "mack_skillings"),
    }


@pytest.mark.parametrize("name", list(_designs()))
def test_statistic_and_exact_pvalue_match_an_enumeration(name):
    """The default test's statistic, df, chi-squared p and exact p equal the reference computation's (all within
    1e-9), on incomplete, chained, one-task, two-agent, mixed-run, tied, capped and integer-labelled designs."""
    cells, variant = _designs()[name]
    df = runs_frame(cells)
    res = rlstats.compare(df, "score ~ agent | task", rng=0)
    t, rank, p_chi2, p_exact = _reference(df)
    assert res.variant == variant and res.pvalue_method == "exact"
    assert res.statistic == pytest.approx(t, rel=1e-9, abs=1e-12) and res.df == rank
    assert res.pvalue_asymptotic == pytest.approx(p_chi2, rel=1e-9)
    assert res.pvalue == pytest.approx(p_exact, rel=1e-9)


def test_chain_of_pairs_has_a_constant_statistic_so_its_exact_p_is_one():
    """A-B on t1, B-C on t2, C-D on t3, one run each: every relabelling flips one pair per task, and on a tree of
    pairs T = 3 whatever the order, so the exact p is 1 (the chi-squared 0.39 would mislead); the never-met pairs are
    not compared."""
    df = runs_frame({("A", "t1"): [1.0], ("B", "t1"): [2.0], ("B", "t2"): [1.0], ("C", "t2"): [3.0],
                 ("C", "t3"): [1.0], ("D", "t3"): [5.0]})
    res = rlstats.compare(df, "score ~ agent | task", rng=0)
    assert res.statistic == pytest.approx(3.0) and res.pvalue == 1.0
    assert res.pvalue_asymptotic == pytest.approx(stats.chi2.sf(3.0, 3))
    assert sorted(res.never_met()) == [("A", "C"), ("A", "D"), ("B", "D")]
    assert res.tidy().query("n_shared_tasks == 0")["p_value"].isna().all()


def _two_agents():
    df = rlstats.datasets.simulate(agents=2, tasks=6, seeds=3, effect=1.0, rng=0)
    return rlstats.compare(df, "score ~ agent | task", rng=0)


def test_two_agents_pair_is_not_called_tukey():
    """Two agents: the pair's p-value is the omnibus test's exact one (3.966e-05 here, as printed), and no critical
    difference exists; the summary's table title and its LaTeX caption read "Tukey single-step (studentized range,
    df = Inf; the critical difference)", tidy()'s adjustment column "tukey" and the figure "(tukey-adjusted)"."""
    import matplotlib.pyplot as plt

    res = _two_agents()
    assert res.pvalue_method == "exact" and res.critical_difference is None
    assert res.tidy()["p_value"].iloc[0] == res.pvalue
    summary = res.summary()
    text = str(summary) + summary.to_latex() + summary.to_markdown()
    assert "Tukey" not in text and "critical difference)" not in text
    assert "the omnibus test" in list(summary.tables)[1]
    assert (res.tidy()["adjustment"] == "none").all() and res.posthoc_adjustment == "none"
    ax = res.plot()
    assert "tukey" not in ax.get_title() and "omnibus" in ax.get_title()
    plt.close(ax.figure)


def _bar_spans(ax):
    """Each bar's span of mean ranks (drawn 0.03 beyond the ranks it joins at each end)."""
    return [(min(seg[:, 0]) + 0.03, max(seg[:, 0]) - 0.03) for c in ax.collections if c.get_gid() == "cd_bar"
            for seg in c.get_segments()]


def test_no_bar_covers_an_agent_it_does_not_join():
    """Chain A-B (t1), B-C (t2), C-D (t3), 3 runs: B and C tie at mean rank 1.278, D is at 1.889.  The bar of C-D
    (met, alike) was drawn from 1.278 to 1.889, so it covered B's line too: the diagram joined B and D, which never
    ran on a common task, while its footnote said they are "under no common bar"."""
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(5)
    chain = [("A", "t1"), ("B", "t1"), ("B", "t2"), ("C", "t2"), ("C", "t3"), ("D", "t3")]
    res = rlstats.compare(runs_frame({cell: list(rng.normal(size=3)) for cell in chain}), "score ~ agent | task", rng=0)
    ranks = dict(zip(res.agents, res.mean_ranks))
    assert ranks["B"] == ranks["C"] and ("B", "D") in res.never_met()
    ax = res.plot()
    met = res.met_matrix()
    for low, high in _bar_spans(ax):
        under = [j for j, a in enumerate(res.agents) if low - 1e-9 <= ranks[a] <= high + 1e-9]
        assert all(met[i, j] for i in under for j in under), (low, high, [res.agents[j] for j in under])
    plt.close(ax.figure)


def test_one_task_error_names_the_tasks_kept_out():
    """A and B on t1, A alone on t2 and t3, C alone on t4: the rank test keeps out the three tasks one agent ran and
    is left with t1, one run each; its error said "the data hold 1 task ('t1')", of a frame holding four."""
    df = runs_frame({("A", "t1"): [1.0], ("B", "t1"): [2.0], ("A", "t2"): [3.0], ("A", "t3"): [1.0],
                     ("C", "t4"): [2.0]})
    with pytest.raises(rlstats.errors.DesignError) as info:
        rlstats.compare(df, "score ~ agent | task")
    message = str(info.value)
    assert "but once the 3 tasks that fewer than two agents ran are kept out (t2, t3, t4), the data hold 1 task " \
           "('t1') with one value per agent" in message, message


def test_mean_ranks_figure_says_ranks_are_among_each_tasks_agents():
    """E ran only beside A (t0, t1) and beat it; B, C and D ran t2-t7 with A.  E's mean rank, 1, is taken among two
    agents, D's 1.04 among four, yet the bars read "mean rank within task (1 = best)" with E on top, as if E beat D;
    the print and the critical-difference diagram say "among the agents present on each task"."""
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(4)
    cells = {(a, f"t{t}"): list(rng.normal(size=3) + 2 * i) for t in range(2, 8) for i, a in enumerate("ABCD")}
    cells.update({(a, f"t{t}"): list(rng.normal(size=3) + (10 if a == "E" else 0)) for t in (0, 1) for a in "AE"})
    res = rlstats.compare(runs_frame(cells), "score ~ agent | task", rng=0)
    assert ("D", "E") in res.never_met()
    ax = res.plot(kind="mean_ranks")
    assert ax.get_xlabel() == "mean rank among each task's agents (1 = best)"
    plt.close(ax.figure)
    complete = rlstats.compare(runs_frame({(a, f"t{t}"): [float(t * i)] for t in range(3)
                                           for i, a in enumerate("ABC")}), "score ~ agent | task", rng=0)
    ax = complete.plot(kind="mean_ranks")
    assert ax.get_xlabel() == "mean rank within task (1 = best)"
    plt.close(ax.figure)


def _cells_frame(cells):
    """[(agent, task, runs)] -> a frame with those runs (scores 0; the size below reads the design alone)."""
    return pd.DataFrame([(a, t, 0.0) for a, t, c in cells for _ in range(c)], columns=["agent", "task", "score"])


_OFF_GRID = {  # designs the calibration table's balanced grid does not hold, each on the chi-squared p-value
    "4 x 5 x 3, one agent missing per task": [(a, f"t{j}", 3) for j in range(5) for i, a in enumerate("ABCD")
                                              if i != j % 4],
    "4 x 10 x 1, one agent missing per task": [(a, f"t{j}", 1) for j in range(10) for i, a in enumerate("ABCD")
                                               if i != j % 4],
    "3 x 5, runs 100 / 5 / 5": [(a, f"t{j}", c) for j in range(5) for a, c in zip("ABC", (100, 5, 5))],
    "4 x 5, 1 to 3 runs": [(a, f"t{j}", 1 + (i + j) % 3) for j in range(5) for i, a in enumerate("ABCD")],
}


@pytest.mark.parametrize("name", list(_OFF_GRID))
def test_chi_squared_default_holds_its_level_off_the_calibration_grid(name):
    """Untied scores under the null: each task's ranks are a uniform permutation whatever the scores, so the default
    test's size is the share of permuted ranks whose chi-squared p is at most 0.05 (measured at 100,000 permutations:
    0.0444, 0.0424, 0.0486 and 0.0440; 20,000 here)."""
    from rlstats.design import design_of
    from rlstats.methods.skillings_mack import _kernels as kernels

    design = design_of(_cells_frame(_OFF_GRID[name]), "score ~ agent | task")
    res = rlstats.compare(_cells_frame(_OFF_GRID[name]), "score ~ agent | task", rng=0)  # all tied: p = 1
    assert res.pvalue_method == "asymptotic"
    setup = kernels.build_setup(np.arange(design.nobs, dtype=float), design.agent, design.task, design.n_agents,
                                design.n_tasks, variant="skillings_mack" if res.variant != "mack_skillings"
                                else "mack_skillings")
    rng, n = np.random.default_rng(18), 20_000
    ranks = np.empty((n, design.nobs))
    for j in range(design.n_tasks):
        rows = np.flatnonzero(design.task == j)
        ranks[:, rows] = rng.permuted(np.broadcast_to(np.arange(1.0, rows.size + 1), (n, rows.size)), axis=1)
    size = np.mean(stats.chi2.sf(kernels.statistic(setup, ranks), res.df) <= 0.05)
    assert size <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / n), size


def test_pair_on_four_shared_tasks_of_one_run_is_not_declared_different_by_a_normal_tail():
    """A and B met on 4 tasks only, one run each, and A won all 4; each met C (always last) on 6 tasks of its own.
    Relabelling A and B within their 4 tasks, A wins all 4 or loses all 4 with probability 2 / 16 = 0.125, the
    exact two-sided p of the pair; the post hoc's normal tail gave p = 0.0455 (z = 2) and, after Holm had rejected
    both pairs with C, declared A and B different.  Under that partial null (A, B alike, C far worse) 400 data sets
    declared them different in 13.75% (5 shared tasks: 7.75%; 6: 2.5%): the post hoc's family-wise error is 0.125
    at alpha = 0.05."""
    cells = {(a, f"s{t}"): [2.0 if a == "A" else 1.0] for t in range(4) for a in "AB"}
    for t in range(6):
        cells.update({("A", f"a{t}"): [float(t)], ("C", f"a{t}"): [-10.0 - t],
                      ("B", f"b{t}"): [float(t)], ("C", f"b{t}"): [-10.0 - t]})
    res = rlstats.compare(runs_frame(cells), "score ~ agent | task", rng=0)
    pair = res.tidy().set_index(["agent_1", "agent_2"]).loc[("A", "B")]
    assert res.pvalue <= 0.05 and pair["n_shared_tasks"] == 4
    exact = 2 / 2**4  # each shared task a fair coin under the null: A wins all four or loses all four
    assert pair["p_value"] >= exact - 1e-12 and not pair["significant"], (pair["p_value"], pair["significant"])
    assert pair["p_value"] == pytest.approx(exact, rel=1e-12) and res.pairs_exact == 3
    assert "3 of 3 pairs differ" not in str(res) and "(the pairs' p-values are exact permutation p-values)" in str(res)


def test_pair_pvalues_are_the_exact_permutation_law_of_their_contrast():
    """Three agents on four tasks of one or two runs, a tie in t4: every pair has at most 20,000 arrangements, so each
    gets P0(|D| >= |d|) over the relabellings of the tasks (540 of them, each task's labels permuted as a whole and the
    estimate recomputed by skillings_mack: 0.622222, 0.711111, 0.666667), which the places of the pair's runs among a
    task's mid-ranks, counted here, give too."""
    cells = {("A", "t1"): [1., 5.], ("B", "t1"): [2., 3.], ("C", "t1"): [4.], ("A", "t2"): [1.], ("B", "t2"): [2., 7.],
             ("A", "t3"): [3., 1.], ("C", "t3"): [2.], ("B", "t4"): [1.], ("C", "t4"): [1.]}
    df = runs_frame(cells)
    res = rlstats.compare(df, "score ~ agent | task", rng=0)
    tidy = res.tidy()
    assert res.pairs_exact == 3
    np.testing.assert_allclose(tidy["p_value"], [28 / 45, 32 / 45, 2 / 3], rtol=1e-12)
    for (u, v), p in zip(zip(tidy["agent_1"], tidy["agent_2"]), tidy["p_value"]):
        laws = []
        for _, g in df.groupby("task"):
            if not {u, v} <= set(g["agent"]):
                continue
            ranks = stats.rankdata(g["score"])
            c_u, c_v, q, k = (g["agent"] == u).sum(), (g["agent"] == v).sum(), len(g), g["agent"].nunique()
            laws.append([k / q * (ranks[list(a)].mean() - ranks[list(b)].mean())
                         for a in itertools.combinations(range(q), c_u)
                         for b in itertools.combinations(sorted(set(range(q)) - set(a)), c_v)])
        total = np.array([sum(x) for x in itertools.product(*laws)])
        observed = tidy.set_index(["agent_1", "agent_2"]).loc[(u, v), "estimate"] * len(laws)
        assert p == pytest.approx(np.mean(np.abs(total) >= abs(observed) - 1e-9), rel=1e-12)
