"""Performance percentiles (Jordan et al. 2020): numbers checked against independent values.

* spec Section 9.4 synthetic vectors ex1-ex5 (point estimates, PBP, PBP-t);
* a deliberately naive re-implementation in this file (loops over cells and
  states, the transition matrix built entry by entry, the stationary
  distribution as the leading left eigenvector of the damped chain) on
  random designs with ties and unequal run counts;
* invariances the method must have (labels, increasing transforms per task);
* PBP coverage against the true aggregate of a design with known distributions.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.linalg
from scipy import integrate, stats

import rlstats
from rlstats.methods import METHODS
from rlstats.errors import DesignError, OptionError, RlstatsError, RlstatsWarning
from rlstats.methods.percentiles import _kernels as kernels
from rlstats.methods.percentiles import PercentilesResult, percentiles
from rlstats.vocabulary import unknown_columns

FORMULA = "score ~ agent | task"


def frame(cells):
    """Long data from cells[agent][task] = scores (agents a0, a1, ..., tasks t0, t1, ...)."""
    rows = [(f"a{i}", f"t{j}", float(x)) for i, row in enumerate(cells) for j, runs in enumerate(row) for x in runs]
    return pd.DataFrame(rows, columns=["agent", "task", "score"])


T100 = np.arange(100.0)
EXAMPLES = {
    "ex1": [[[1, 2, 3]], [[4, 5, 6]]],
    "ex2": [[[1, 2, 3], [0, 0, 1]], [[4, 5, 6], [0, 1, 1]]],
    "ex3": [[[1, 3, 5, 7], [10, 20]], [[2, 4, 6], [15, 25, 35]], [[0, 8], [5, 30, 40, 50]]],
    "ex4": [[[1, 2, 3]], [[1, 2, 3]], [[1, 2, 3]]],
    "ex5": [[T100, T100 ** 2 / 100], [T100 + 20, 0.9 * T100 + 15]],
}
EXPECTED_Y = {
    "ex1": [0.1, 0.6],
    "ex2": [0.1826628893, 0.5818631465],
    "ex3": [0.3575867044, 0.4271567388, 0.5165742019],
    "ex4": [0.6111111111] * 3,
    "ex5": [0.3027547292, 0.5236774844],
}


# ----------------------------------------------------------------------------- a naive reference


def naive_payoffs(cells, self_payoff=0.5):
    """A[i, j, k] as the exact fraction #{(t, u): x_k,u <= x_i,t} / (T_i T_k), rounded once.

    Rounding once matters: the game's tie rule compares payoffs, and equal
    fractions must give equal floats.
    """
    n_a, n_e = len(cells), len(cells[0])
    a = np.empty((n_a, n_e, n_a))
    for i in range(n_a):
        for j in range(n_e):
            for k in range(n_a):
                ref = np.asarray(cells[k][j], dtype=float)
                wins = sum(int((ref <= x).sum()) for x in cells[i][j])
                a[i, j, k] = self_payoff if i == k else wins / (len(cells[i][j]) * len(ref))
    return a


def isapprox(x, y):
    return x == y or abs(x - y) <= np.sqrt(np.finfo(float).eps) * max(abs(x), abs(y))


def naive_transition(a):
    """C of paper eq. 5, entry by entry, states (i, j, k) in lexicographic order."""
    n_a, n_e, _ = a.shape
    states = [(i, j, k) for i in range(n_a) for j in range(n_e) for k in range(n_a)]
    eta = 1.0 / ((n_a - 1) + (n_a * n_e - 1))
    c = np.zeros((len(states), len(states)))
    for s, (i, j, k) in enumerate(states):
        for t, (i2, j2, k2) in enumerate(states):
            if s == t:
                continue
            if (j2, k2) == (j, k):      # the agent player deviates
                new, old = a[i2, j, k], a[i, j, k]
            elif i2 == i:               # the adversary deviates (payoff -A)
                new, old = -a[i, j2, k2], -a[i, j, k]
            else:
                continue
            c[s, t] = eta if new > old else (eta / 50 if isapprox(new, old) else 0.0)
        c[s, s] = 1 - c[s].sum()
    return c


def naive_solution(a):
    """(d, y) with d the leading left eigenvector of the damped chain, normalised to sum 1."""
    c = naive_transition(a)
    n = c.shape[0]
    gamma = (n - 1) / n
    damped = gamma * c + (1 - gamma) / n
    values, vectors = scipy.linalg.eig(damped.T)
    d = np.real(vectors[:, np.argmax(np.real(values))])
    d = d / d.sum()
    n_a, n_e, _ = a.shape
    q = d.reshape(n_a, n_e * n_a).sum(axis=0)
    return d, a.reshape(n_a, -1) @ q


def random_cells(rng, n_a, n_e, tie_levels=None):
    """Random cells with unequal run counts; integer scores (many ties) when tie_levels is given."""
    cells = []
    for _ in range(n_a):
        row = []
        for _ in range(n_e):
            size = int(rng.integers(2, 7))
            x = rng.integers(0, tie_levels, size) if tie_levels else rng.normal(rng.normal(), 1, size)
            row.append(np.asarray(x, dtype=float))
        cells.append(row)
    return cells


# ----------------------------------------------------------------------------- spec ex1-ex5


@pytest.mark.parametrize("name", sorted(EXPECTED_Y))
def test_synthetic_vectors_point_estimates(name):
    res = percentiles(frame(EXAMPLES[name]), FORMULA, interval=None)
    np.testing.assert_allclose(res.estimate, EXPECTED_Y[name], rtol=0, atol=1e-9)
    assert res.stationary.sum() == pytest.approx(1.0, abs=1e-12)


def test_ex1_by_hand():
    res = percentiles(frame(EXAMPLES["ex1"]), FORMULA, interval=None)
    assert res.payoff[0, 0, 1] == 0 and res.payoff[1, 0, 0] == 1
    # Spec state order (i, k) = (0,0), (1,0), (0,1), (1,1); ours is res.stationary[i, 0, k].
    d = res.stationary[:, 0, :]
    np.testing.assert_allclose([d[0, 0], d[1, 0], d[0, 1], d[1, 1]], [0.0625, 0.1375, 0.1375, 0.6625], atol=1e-12)
    np.testing.assert_allclose(res.reference_weights["weight"], [0.2, 0.8], atol=1e-12)   # q*
    np.testing.assert_allclose(res.agent_weights["weight"], [0.2, 0.8], atol=1e-12)       # p*
    c = kernels.dense_transition(*kernels.transitions(res.payoff))
    order = [0, 2, 1, 3]  # ours (i, k) = (0,0), (0,1), (1,0), (1,1) -> spec order
    expected = np.array([[0, .5, .5, 0], [0, .5, 0, .5], [0, 0, .5, .5], [0, 0, 0, 1]])
    np.testing.assert_allclose(c[np.ix_(order, order)], expected, atol=1e-15)


def test_ex2_ties_count_as_wins():
    res = percentiles(frame(EXAMPLES["ex2"]), FORMULA, interval=None)
    assert res.payoff[0, 1, 1] == pytest.approx(5 / 9, abs=1e-15)
    assert res.payoff[1, 1, 0] == pytest.approx(8 / 9, abs=1e-15)


def test_ex4_identical_data():
    res = percentiles(frame(EXAMPLES["ex4"]), FORMULA, interval=None)
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(res.payoff[:, 0, :][off], 2 / 3, atol=1e-15)
    np.testing.assert_allclose(np.diag(res.payoff[:, 0, :]), 0.5)
    np.testing.assert_allclose(res.agent_weights["weight"], 1 / 3, atol=1e-12)


def test_ex5_payoffs_pbp_and_pbp_t():
    data = frame(EXAMPLES["ex5"])
    pbp = percentiles(data, FORMULA, interval="pbp", delta=0.05)
    np.testing.assert_allclose(pbp.payoff, [[[0.5, 0.324], [0.5, 0.2451]], [[0.684, 0.5], [0.7549, 0.5]]], atol=1e-12)
    np.testing.assert_allclose(pbp.estimate, EXPECTED_Y["ex5"], atol=1e-9)
    np.testing.assert_allclose(pbp.conf_low, [0.1229408474, 0.4173150283], atol=1e-9)
    np.testing.assert_allclose(pbp.conf_high, [0.5883922614, 0.8780544076], atol=1e-9)
    pbp_t = percentiles(data, FORMULA, interval="pbp_t", delta=0.05)
    np.testing.assert_allclose(pbp_t.conf_low, [0.2395896753, 0.5172550828], atol=1e-9)
    np.testing.assert_allclose(pbp_t.conf_high, [0.3764034215, 0.5310898979], atol=1e-9)


def test_ex5_bounds_agree_with_the_iterative_solver():
    layout = kernels.make_layout(*_arrays(EXAMPLES["ex5"]))
    low, high = np.array([0.0, 15.0]), np.array([119.0, 104.1])
    z_lo, z_hi = kernels.pbp_payoff_bounds(layout, 0.05 / 4, low, high)
    dense = kernels.propagate_bounds(z_lo, z_hi, dense_limit=10**9)
    iterative = kernels.propagate_bounds(z_lo, z_hi, dense_limit=0)
    np.testing.assert_allclose(dense[0], iterative[0], atol=1e-10)
    np.testing.assert_allclose(dense[1], iterative[1], atol=1e-10)


@pytest.mark.parametrize("transpose", [False, True])
def test_factored_blocks_solve_as_the_explicit_inverse(transpose):
    # PBP's preconditioner LU-factors the blocks I - gamma (D + Q_i) instead of inverting them (issue 43):
    # the solves must be those of the explicit inverse (the former path), also for a subset of problems.
    rng = np.random.default_rng(3)
    lower, upper = kernels.interval_transitions(*np.sort(rng.uniform(size=(2, 3, 4, 3)), axis=0))
    diag, q, _ = kernels._greedy_rows(lower, upper, rng.normal(size=(5, 3, 12)))
    gamma = kernels.game_constants(3, 4)[1]
    blocks = kernels._InverseBlocks(diag, q, gamma, transpose)
    x = rng.normal(size=(5, 3, 12))
    block = np.eye(12) - gamma * (q + diag[..., None] * np.eye(12))
    inverse = np.linalg.inv(np.swapaxes(block, -1, -2) if transpose else block)
    expected = np.matmul(inverse, x[..., None])[..., 0]
    np.testing.assert_allclose(blocks.apply(x), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(blocks.subset([4, 1]).apply(x[[4, 1]]), expected[[4, 1]], rtol=1e-12, atol=1e-14)
    # LAPACK's getrf/getrs called directly: bit for bit scipy's lu_factor/lu_solve (the former calls)
    former = [scipy.linalg.lu_solve(scipy.linalg.lu_factor(m), v, trans=int(transpose))
              for m, v in zip(block.reshape(-1, 12, 12), x.reshape(-1, 12))]
    np.testing.assert_array_equal(blocks.apply(x), np.reshape(former, x.shape))


def _arrays(cells):
    y, agent, task = [], [], []
    for i, row in enumerate(cells):
        for j, runs in enumerate(row):
            y += list(map(float, runs))
            agent += [i] * len(runs)
            task += [j] * len(runs)
    return np.array(y), np.array(agent), np.array(task), len(cells), len(cells[0])


# ----------------------------------------------------------------------------- against the naive reference


@pytest.mark.parametrize("seed,tie_levels", [(0, None), (1, 4), (2, 3), (3, None)])
def test_payoffs_stationary_and_scores_match_the_naive_reference(seed, tie_levels):
    rng = np.random.default_rng(seed)
    n_a, n_e = (3, 4) if seed % 2 == 0 else (4, 2)
    cells = random_cells(rng, n_a, n_e, tie_levels)
    res = percentiles(frame(cells), FORMULA, interval=None)
    a = naive_payoffs(cells)
    np.testing.assert_array_equal(res.payoff, a)
    np.testing.assert_allclose(kernels.dense_transition(*kernels.transitions(res.payoff)), naive_transition(a),
                               atol=1e-15)
    d, y = naive_solution(a)
    np.testing.assert_allclose(res.stationary.ravel(), d, atol=1e-12)  # the solve equals the eigenvector
    np.testing.assert_allclose(res.estimate, y, atol=1e-12)


def test_iterative_stationary_solver_matches_the_dense_solve():
    rng = np.random.default_rng(5)
    payoff = np.stack([naive_payoffs(random_cells(rng, 4, 5, 5)) for _ in range(3)])
    dense = kernels.stationary(payoff, dense_limit=10**9)
    iterative = kernels.stationary(payoff, dense_limit=0)
    np.testing.assert_allclose(iterative, dense, atol=1e-13)
    np.testing.assert_allclose(kernels.aggregate(payoff, iterative), kernels.aggregate(payoff, dense), atol=1e-13)


def test_near_ties_and_the_dense_fallback_of_the_iterative_solver(monkeypatch):
    rng = np.random.default_rng(9)
    payoff = np.stack([naive_payoffs(random_cells(rng, 3, 4, 4)) for _ in range(4)])
    # Two payoffs within the tie tolerance but unequal: the adversary's moves no longer follow the order alone.
    payoff[1, 0, 1, 1] = payoff[1, 0, 2, 2] * (1 + 1e-10)
    dense = kernels.stationary(payoff, dense_limit=10**9)
    np.testing.assert_allclose(kernels.stationary(payoff, dense_limit=0), dense, atol=1e-13)
    c_near = kernels.dense_transition(*kernels.transitions(payoff[1]))
    np.testing.assert_allclose(c_near, naive_transition(payoff[1]), atol=1e-15)
    # GMRES stopped too early: the unconverged games are solved densely.
    monkeypatch.setattr(kernels, "GMRES_MAX_ITER", 2)
    monkeypatch.setattr(kernels, "GMRES_MAX_RESTARTS", 1)
    np.testing.assert_allclose(kernels.stationary(payoff, dense_limit=0), dense, atol=1e-13)


def test_pbp_problems_grouped_by_memory_give_the_same_bounds(monkeypatch):
    rng = np.random.default_rng(12)
    z = naive_payoffs(random_cells(rng, 3, 2))
    z_lo, z_hi = np.clip(z - 0.1, 0, 1), np.clip(z + 0.1, 0, 1)
    together = kernels.propagate_bounds(z_lo, z_hi)
    monkeypatch.setattr(kernels, "PBP_MEMORY_BUDGET", 1)
    apart = kernels.propagate_bounds(z_lo, z_hi)
    for a, b in zip(together, apart):
        np.testing.assert_array_equal(a, b)



def _pbp_bounds(cells, ties="le"):
    layout = kernels.make_layout(*_arrays(cells))
    low = np.minimum.reduceat(layout.values, layout.slot_start[:-1])
    high = np.maximum.reduceat(layout.values, layout.slot_start[:-1])
    return kernels.pbp_payoff_bounds(layout, 0.05 / (layout.n_agents * layout.n_tasks), low, high, ties=ties)


@pytest.mark.parametrize("agents, tasks, tie_levels, ties, seed", [
    (2, 6, None, "le", 0),   # two agents, unequal runs
    (3, 4, 3, "le", 1),      # integer scores: tied runs and tied payoff intervals
    (3, 3, 4, "mid", 2),     # ties as half wins (PBP bounds below with F(x-))
    (8, 2, None, "le", 3),   # eight agents
])
def test_structured_pbp_solver_gives_the_dense_bounds(agents, tasks, tie_levels, ties, seed):
    # Issue 43: the robust game solved with sorted value orders and cumulative sums (no dense R x R blocks) gives
    # the bounds of dense LU solves within 1e-12 relative, in as many policy-iteration rounds give or take one (the
    # last round's step is compared with PI_TOL after solves of other rounding).  The dense blocks'
    # GMRES (today's default path) stops at 1e-12 and is itself up to 3.1e-12 off the LU solves here (a lower
    # bound of 0.02: 0.01999999999993733), the structured one (1e-13) 3.6e-14.
    z_lo, z_hi = _pbp_bounds(random_cells(np.random.default_rng(seed), agents, tasks, tie_levels), ties)
    assert kernels.overlap_groups(z_lo, z_hi) is not None
    structured = kernels.propagate_bounds(z_lo, z_hi, dense_limit=0)
    exact = kernels.propagate_bounds(z_lo, z_hi, dense_limit=10**9)
    blocks = kernels.propagate_bounds(z_lo, z_hi, dense_limit=0, structured=False)
    for new, lu, gmres in zip(structured[:2], exact[:2], blocks[:2]):
        np.testing.assert_allclose(new, lu, rtol=1e-12, atol=0)
        np.testing.assert_allclose(new, gmres, rtol=5e-12, atol=0)
    # from value iteration's start (round s37-pbp; the dense solvers start from zeros) in fewer rounds; from the
    # same start in as many give or take one: test_policy_iteration_started_from_the_rewards_reaches_the_same_optimum
    assert (structured[2] <= exact[2]).all()


def test_structured_greedy_rows_are_the_dense_greedy_rows():
    # The operator I - gamma C of _GreedySystem, column by column, is the one of Algorithm 3's dense rows,
    # for values with ties (which the greedy fill breaks towards the successors, before the self-loop).
    rng = np.random.default_rng(5)
    z_lo, z_hi = _pbp_bounds(random_cells(rng, 3, 3, tie_levels=3))
    lower, upper = kernels.interval_transitions(z_lo, z_hi)
    gamma = kernels.game_constants(3, 3)[1]
    value = np.round(rng.normal(size=(2, 3, 9)), 1)
    system = kernels._GreedySystem(kernels.overlap_of(z_lo, z_hi), value, gamma)
    n = 27
    columns = np.eye(n).reshape(n, 3, 9)
    for b in range(2):
        sub = system.subset([b] * n)
        got = sub.matvec(columns).reshape(n, n).T
        d, q, p = kernels._greedy_rows(lower, upper, value[[b]])
        expected = np.eye(n) - gamma * kernels.dense_transition(d[0], q[0], p[0])
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def _knapsack_rows(lower, upper, value):
    """Algorithm 3 as written: a fractional knapsack per row, successors sorted by value (the former _greedy_rows)."""
    (d_lo, q_lo, p_lo), (d_hi, q_hi, p_hi) = lower, upper
    batch, (n_a, r) = value.shape[0], d_lo.shape
    cap = np.concatenate([q_hi - q_lo, p_hi - p_lo, (d_hi - d_lo)[..., None]], axis=-1)
    successor = np.concatenate([np.broadcast_to(value[:, :, None, :], (batch, n_a, r, r)),
                                np.broadcast_to(np.swapaxes(value, 1, 2)[:, None], (batch, n_a, r, n_a)),
                                value[..., None]], axis=-1)
    order = np.argsort(-successor, axis=-1, kind="stable")
    cap_sorted = np.take_along_axis(np.broadcast_to(cap, successor.shape), order, axis=-1)
    before = np.cumsum(cap_sorted, axis=-1) - cap_sorted
    add = np.empty_like(cap_sorted)
    np.put_along_axis(add, order, np.clip((d_hi - d_lo)[None, ..., None] - before, 0.0, cap_sorted), axis=-1)
    return d_lo + add[..., -1], q_lo + add[..., :r], p_lo + add[..., r:r + n_a]


@pytest.mark.parametrize("tie_levels, separated", [(3, False), (None, True), (2, True)])
def test_greedy_rows_are_the_sorted_knapsack(tie_levels, separated):
    # Issue 43 (Atari 100k): the greedy rows take each successor of value at least the state's own at its upper
    # bound, without sorting; against Algorithm 3's sorted fill, for tied values and separated intervals (sure moves).
    rng = np.random.default_rng(11)
    if separated:
        z_lo, z_hi = np.sort(rng.uniform(size=(2, 3, 4, 3)), axis=0)
    else:
        z_lo, z_hi = _pbp_bounds(random_cells(rng, 3, 4, tie_levels))
    lower, upper = kernels.interval_transitions(z_lo, z_hi)
    for value in (np.round(rng.normal(size=(4, 3, 12)), 1), np.zeros((1, 3, 12))):
        got, expected = kernels._greedy_rows(lower, upper, value), _knapsack_rows(lower, upper, value)
        for new, old in zip(got, expected):
            np.testing.assert_allclose(new, old, rtol=0, atol=1e-15)
        np.testing.assert_allclose(got[0] + got[1].sum(axis=-1) + got[2].sum(axis=-1), 1.0, rtol=0, atol=1e-15)


@pytest.mark.parametrize("agents, tasks, tie_levels, seed", [(3, 4, 3, 0), (2, 6, None, 1), (4, 3, 2, 2), (3, 6, 4, 3)])
def test_value_order_blocks_solve_the_dense_adversary_blocks(agents, tasks, tie_levels, seed):
    # Issue 43: the structured solver's preconditioner solves I - gamma (D + Q_i) of Algorithm 3's greedy rows
    # by a recurrence over each block's value order: against dense solves of those blocks, for distinct values and
    # for the first round's all-equal values (every other group's state then a successor).  With only the largest
    # group's total as an unknown (min_size above every other group), a smaller group's ties to members of lower
    # value are dropped: against the dense block without them.
    rng = np.random.default_rng(seed)
    z_lo, z_hi = _pbp_bounds(random_cells(rng, agents, tasks, tie_levels))
    overlap = kernels.overlap_of(z_lo, z_hi)
    assert overlap is not None and (np.bincount(overlap.groups.ravel()) > 1).any()
    lower, upper = kernels.interval_transitions(z_lo, z_hi)
    (eta, gamma, _), r = kernels.game_constants(agents, tasks), agents * tasks
    minor_ties = 0
    for value in (rng.normal(size=(2, agents, r)), np.zeros((2, agents, r))):
        system = kernels._GreedySystem(overlap, value, gamma)
        x = rng.normal(size=value.shape)
        _, q, _ = kernels._greedy_rows(lower, upper, value)
        for min_size in (2, r + 1):
            blocks = kernels._ValueOrderBlocks(overlap.groups, value, system.diag, gamma, eta,
                                               system.adversary.by_value, min_size=min_size)
            got = blocks.apply(x)
            for b in range(2):
                for i in range(agents):
                    block_q = q[b, i].copy()
                    g = overlap.groups[i]
                    sizes = np.bincount(g)
                    if min_size > 2 and value[b, i].min() < value[b, i].max():
                        order = np.argsort(-value[b, i], kind="stable")
                        position = np.argsort(order)
                        minor = (sizes[g] > 1) & (g != np.argmax(sizes))
                        drop = minor[:, None] & (g[:, None] == g[None, :]) & (position[None, :] > position[:, None])
                        minor_ties += drop.sum()
                        block_q[drop] = 0.0
                    block = np.eye(r) - gamma * (np.diag(system.diag[b, i]) + block_q)
                    expected = np.linalg.solve(block, x[b, i])
                    np.testing.assert_allclose(got[b, i], expected, rtol=0, atol=1e-12 * np.abs(expected).max())
    assert minor_ties > 0 or (agents, seed) == (2, 1)


def test_value_order_blocks_keep_few_unknowns_for_all_equal_values(monkeypatch):
    # Above MAX_UNKNOWNS group totals, rows of all-equal values are solved in the index order like rows of distinct
    # values: exact for the block without the moves to later states of other groups (memory stays rows x few x R).
    monkeypatch.setattr(kernels, "MAX_UNKNOWNS", 0)
    rng = np.random.default_rng(3)
    z_lo, z_hi = _pbp_bounds(random_cells(rng, 3, 6, 4))
    overlap = kernels.overlap_of(z_lo, z_hi)
    lower, upper = kernels.interval_transitions(z_lo, z_hi)
    gamma, r = kernels.game_constants(3, 6)[1], 18
    value = np.zeros((2, 3, r))
    system = kernels._GreedySystem(overlap, value, gamma)
    x = rng.normal(size=value.shape)
    got = system.precondition(x)
    _, q, _ = kernels._greedy_rows(lower, upper, value)
    later = np.arange(r)[None, :] > np.arange(r)[:, None]
    for b in range(2):
        for i in range(3):
            g = overlap.groups[i]
            block_q = np.where(later & (g[:, None] != g[None, :]), 0.0, q[b, i])
            block = np.eye(r) - gamma * (np.diag(system.diag[b, i]) + block_q)
            expected = np.linalg.solve(block, x[b, i])
            np.testing.assert_allclose(got[b, i], expected, rtol=0, atol=1e-12 * np.abs(expected).max())


def _vacuous_bounds(agents, tasks):
    """Payoff intervals [0, 1] everywhere but the self payoffs (0.5): what a single run a cell gives."""
    z_lo, z_hi = np.zeros((agents, tasks, agents)), np.ones((agents, tasks, agents))
    for i in range(agents):
        z_lo[i, :, i] = z_hi[i, :, i] = 0.5
    return z_lo, z_hi


@pytest.mark.parametrize("agents, tasks, tie_levels, seed", [
    (3, 4, 3, 0),      # integer scores: tied runs and equal payoff intervals within columns
    (4, 3, None, 1),   # continuous scores
    (5, 2, 2, 2),      # two score levels: most intervals equal
    (4, 3, "vacuous", 3),  # every interval [0, 1] but the self payoffs
])
def test_greedy_system_is_the_dense_operator(agents, tasks, tie_levels, seed):
    # Issue 43: the structured solver's operator I - gamma C (the adversary's moves by sorts and cumulative sums, the
    # agent player's dense) column by column against the dense transition matrix of Algorithm 3's rows
    # (_greedy_rows), for distinct, tied (rounded) and all-equal values; its agent moves and self-loops alone too.
    # (Round s38-pbp dropped the agent moves by sorts over each column's agents, which this test also held: slower at
    # 10-40 agents, no faster at 64.)
    rng = np.random.default_rng(seed)
    if tie_levels == "vacuous":
        z_lo, z_hi = _vacuous_bounds(agents, tasks)
    else:
        z_lo, z_hi = _pbp_bounds(random_cells(rng, agents, tasks, tie_levels))
    overlap = kernels.overlap_of(z_lo, z_hi)
    assert overlap is not None
    lower, upper = kernels.interval_transitions(z_lo, z_hi)
    gamma, r = kernels.game_constants(agents, tasks)[1], agents * tasks
    n = agents * r
    for value in (rng.normal(size=(2, agents, r)), np.round(rng.normal(size=(2, agents, r)), 1),
                  np.zeros((2, agents, r))):
        system = kernels._GreedySystem(overlap, value, gamma)
        d, q, p = kernels._greedy_rows(lower, upper, value)
        x = rng.normal(size=value.shape)
        expected = np.einsum("birj,bjr->bir", p, x)
        np.testing.assert_allclose(system.agent_moves(x), expected, rtol=0, atol=1e-12 * np.abs(expected).max())
        np.testing.assert_allclose(system.diag, d, rtol=0, atol=1e-15)
        columns = np.eye(n).reshape(n, agents, r)
        for b in range(2):
            got = system.subset([b] * n).matvec(columns).reshape(n, n).T
            dense = np.eye(n) - gamma * kernels.dense_transition(d[b], q[b], p[b])
            np.testing.assert_allclose(got, dense, rtol=0, atol=1e-15)


@pytest.mark.parametrize("agents, tasks, tie_levels, seed", [(3, 4, 3, 0), (4, 3, None, 1), (8, 2, None, 3),
                                                             (4, 3, "vacuous", 4)])
def test_policy_iteration_started_from_the_rewards_reaches_the_same_optimum(agents, tasks, tie_levels, seed):
    # Issue 43 (round s37-pbp): the structured solver's first round greedy for START_STEPS steps of value iteration
    # from the rewards instead of for zeros (the reference's start) changes only the path of policy iteration, not
    # its optimum: within 1e-12 relative of dense LU solves from zeros, in fewer rounds than from zeros.
    rng = np.random.default_rng(seed)
    if tie_levels == "vacuous":
        z_lo, z_hi = _vacuous_bounds(agents, tasks)
    else:
        z_lo, z_hi = _pbp_bounds(random_cells(rng, agents, tasks, tie_levels))
    gamma = kernels.game_constants(agents, tasks)[1]
    rewards = np.concatenate([z_hi.reshape(agents, -1), -z_lo.reshape(agents, -1)], axis=0)
    overlap = kernels.overlap_of(z_lo, z_hi)
    lower, upper = kernels.interval_transitions(z_lo, z_hi)
    reference, reference_rounds = kernels.robust_values(lower, upper, rewards, gamma, dense_limit=10**9, start=0.0)
    warm, warm_rounds = kernels.robust_values(lower, upper, rewards, gamma, overlap=overlap)
    cold, cold_rounds = kernels.robust_values(lower, upper, rewards, gamma, overlap=overlap, start=0.0)
    for values in (warm, cold):
        np.testing.assert_allclose(values, reference, rtol=1e-12, atol=0)
    assert warm_rounds.sum() < cold_rounds.sum()
    assert np.abs(cold_rounds - reference_rounds).max() <= 1


def test_structured_pbp_solver_refuses_separated_and_loose_near_tied_intervals():
    z_lo = np.full((2, 3, 2), 0.2)
    z_hi = np.full((2, 3, 2), 0.9)
    for i in range(2):
        z_lo[i, :, i] = z_hi[i, :, i] = 0.5
    assert kernels.overlap_groups(z_lo, z_hi) is not None
    z_lo[0, 1, 1], z_hi[0, 1, 1] = 0.45, 0.7  # overlaps every interval of agent 0: still structured
    assert kernels.overlap_groups(z_lo, z_hi) is not None
    z_lo[0, 1, 1] = 0.55  # above the self payoff's point interval [0.5, 0.5]: separated
    assert kernels.overlap_groups(z_lo, z_hi) is None
    z_lo[0, 1, 1], z_hi[0, 1, 1] = 0.2 * (1 + 1e-15), 0.9  # equal to 0.2 up to rounding: merged into 0.2
    assert kernels.overlap_groups(z_lo, z_hi)[0].tolist() == [1, 0, 1, 0, 1, 0]
    z_lo[0, 1, 1] = 0.2 * (1 + 1.2e-8)  # 0.2, 0.2 (1 + 1.2e-8): a tight run (within sqrt(eps) ~ 1.49e-8)
    assert kernels.overlap_groups(z_lo, z_hi)[0].tolist() == [1, 0, 1, 0, 1, 0]
    z_lo[0, 2, 1] = 0.2 * (1 + 2.4e-8)  # 0.2 ... 0.2 (1 + 2.4e-8) chained through 1.2e-8: not tight
    assert kernels.overlap_groups(z_lo, z_hi) is None


def test_ties_mid_payoffs_are_complementary():
    rng = np.random.default_rng(3)
    cells = random_cells(rng, 3, 2, tie_levels=3)
    res = percentiles(frame(cells), FORMULA, interval="pbp", ties="mid")
    off = ~np.eye(3, dtype=bool)
    total = res.payoff + np.transpose(res.payoff, (2, 1, 0))
    np.testing.assert_allclose(np.moveaxis(total, 1, 0)[:, off], 1.0, atol=1e-14)
    assert np.all(res.payoff_low <= res.payoff + 1e-12) and np.all(res.payoff <= res.payoff_high + 1e-12)
    same = percentiles(frame(EXAMPLES["ex4"]), FORMULA, interval=None, ties="mid")
    np.testing.assert_allclose(same.estimate, 0.5, atol=1e-12)


def test_self_payoff_and_identical_override():
    cells = EXAMPLES["ex3"]
    res = percentiles(frame(cells), FORMULA, interval=None, self_payoff=0.4, identical=[("a0", "a2", "t1")])
    expected = naive_payoffs(cells, self_payoff=0.4)
    expected[0, 1, 2] = expected[2, 1, 0] = 0.4
    np.testing.assert_allclose(res.payoff, expected, atol=1e-15)
    np.testing.assert_allclose(res.estimate, naive_solution(expected)[1], atol=1e-12)


# ----------------------------------------------------------------------------- PBP pieces


def naive_anderson(x, g, a, b, eps):
    """Spec 6.1(c) for one cell: x sorted, g a nondecreasing function."""
    t_count = len(x)
    ext = np.r_[a, np.sort(x), b]
    gv = np.array([g(v) for v in ext])
    lower = gv[t_count] - sum((gv[t + 1] - gv[t]) * min(t / t_count + eps, 1) for t in range(t_count))
    upper = gv[t_count + 1] - sum((gv[t + 1] - gv[t]) * max(t / t_count - eps, 0) for t in range(1, t_count + 1))
    return lower, upper


def test_pbp_payoff_bounds_and_per_task_intervals_match_the_formula():
    rng = np.random.default_rng(11)
    cells = random_cells(rng, 3, 2, tie_levels=6)
    res = percentiles(frame(cells), FORMULA, interval="pbp", delta=0.2)
    delta_cell = 0.2 / 6
    for j in range(2):
        a, b = res.support_low[j], res.support_high[j]
        for i in range(3):
            x = cells[i][j]
            eps_i = np.sqrt(np.log(2 / delta_cell) / (2 * len(x)))
            row = res.per_task[(res.per_task["task"] == f"t{j}") & (res.per_task["agent"] == f"a{i}")].iloc[0]
            lo, hi = naive_anderson(x, lambda v: v, a, b, eps_i)
            assert (row["conf_low"], row["conf_high"]) == pytest.approx((lo, hi), abs=1e-12)
            for k in range(3):
                if k == i:
                    continue
                ref = np.asarray(cells[k][j])
                eps_k = np.sqrt(np.log(2 / delta_cell) / (2 * len(ref)))

                def band(v, sign, ref=ref, eps_k=eps_k):
                    if v < a:
                        return 0.0
                    if v >= b:
                        return 1.0
                    return float(np.clip(np.mean(ref <= v) + sign * eps_k, 0, 1))

                lo = naive_anderson(x, lambda v: band(v, -1), a, b, eps_i)[0]
                hi = naive_anderson(x, lambda v: band(v, 1), a, b, eps_i)[1]
                assert res.payoff_low[i, j, k] == pytest.approx(lo, abs=1e-12)
                assert res.payoff_high[i, j, k] == pytest.approx(hi, abs=1e-12)


def test_without_a_band_the_bounds_collapse_to_the_estimates(monkeypatch):
    """With eps = 0, Anderson's bounds on E[g(X)] are the sample mean of g: Z = A, and the mean's interval is the mean."""
    rng = np.random.default_rng(2)
    cells = random_cells(rng, 3, 2)
    layout = kernels.make_layout(*_arrays(cells))
    low = np.minimum.reduceat(layout.values, layout.slot_start[:-1]) - 1
    high = np.maximum.reduceat(layout.values, layout.slot_start[:-1]) + 1
    monkeypatch.setattr(kernels, "dkw_epsilon", lambda size, delta: np.zeros(np.shape(size)))
    z_lo, z_hi = kernels.pbp_payoff_bounds(layout, 0.01, low, high)
    np.testing.assert_allclose(z_lo, naive_payoffs(cells), atol=1e-14)
    np.testing.assert_allclose(z_hi, naive_payoffs(cells), atol=1e-14)
    mean, lower, upper = kernels.mean_intervals(layout, low, high, 0.01)
    means = np.array([[np.mean(cells[i][j]) for i in range(3)] for j in range(2)])
    np.testing.assert_allclose(lower, means, atol=1e-12)
    np.testing.assert_allclose(upper, means, atol=1e-12)


def test_robust_bounds_enclose_every_transition_matrix_in_the_box():
    """The PBP extremes are at least as extreme as the aggregate of random matrices within [C-, C+]."""
    rng = np.random.default_rng(4)
    z = naive_payoffs(random_cells(rng, 2, 2))
    z_lo, z_hi = np.clip(z - 0.15, 0, 1), np.clip(z + 0.15, 0, 1)
    for i in range(2):
        z_lo[i, :, i] = z_hi[i, :, i] = 0.5
    y_lo, y_hi, _ = kernels.propagate_bounds(z_lo, z_hi)
    (d_lo, q_lo, p_lo), (d_hi, q_hi, p_hi) = kernels.interval_transitions(z_lo, z_hi)
    c_lo, c_hi = kernels.dense_transition(d_lo, q_lo, p_lo), kernels.dense_transition(d_hi, q_hi, p_hi)
    n = c_lo.shape[0]
    gamma = (n - 1) / n
    off = ~np.eye(n, dtype=bool)
    for _ in range(300):
        c = np.where(off, c_lo + rng.random((n, n)) * (c_hi - c_lo), 0.0)
        c[np.arange(n), np.arange(n)] = 1 - c.sum(axis=1)
        assert np.all(c >= c_lo - 1e-15) and np.all(c <= c_hi + 1e-15)
        v_hi = np.linalg.solve(np.eye(n) - gamma * c, np.tile(z_hi.reshape(2, -1), (1, 2)).T)
        v_lo = np.linalg.solve(np.eye(n) - gamma * c, np.tile(z_lo.reshape(2, -1), (1, 2)).T)
        assert np.all((1 - gamma) * v_hi.mean(axis=0) <= y_hi + 1e-12)
        assert np.all((1 - gamma) * v_lo.mean(axis=0) >= y_lo - 1e-12)


def test_rank_rules():
    assert kernels.competition_rank([0.3, 0.5, 0.3, 0.1]).tolist() == [2, 1, 2, 4]
    # A zero-width interval must not count itself (spec P16): best 1, worst 1 for the isolated top agent.
    best, worst = kernels.rank_range([0.5, 0.1, 0.15], [0.5, 0.2, 0.3])
    assert best.tolist() == [1, 2, 2] and worst.tolist() == [1, 3, 3]


# ----------------------------------------------------------------------------- invariances


def simulated(agents=4, tasks=3, seeds=12, rng=7):
    return rlstats.datasets.simulate(agents=agents, tasks=tasks, seeds=seeds, effect=1.0, rng=rng)


def test_label_permutation_invariance():
    df = simulated()
    res = percentiles(df, FORMULA, interval="pbp_t")
    rename_agents = {a: f"z{n}" for n, a in enumerate(reversed(sorted(df["agent"].unique())))}
    rename_tasks = {t: f"w{n}" for n, t in enumerate(reversed(sorted(df["task"].unique())))}
    shuffled = df.assign(agent=df["agent"].map(rename_agents), task=df["task"].map(rename_tasks))
    shuffled = shuffled.sample(frac=1.0, random_state=3).reset_index(drop=True)
    other = percentiles(shuffled, FORMULA, interval="pbp_t")
    mine = res.tidy().assign(agent=lambda f: f["agent"].map(rename_agents)).set_index("agent")
    theirs = other.tidy().set_index("agent").loc[mine.index]
    for column in ("estimate", "conf_low", "conf_high"):
        np.testing.assert_allclose(theirs[column], mine[column], atol=1e-12)
    assert (theirs["rank"] == mine["rank"]).all()
    weights = res.task_weights.assign(task=lambda f: f["task"].map(rename_tasks)).set_index("task")["weight"]
    np.testing.assert_allclose(other.task_weights.set_index("task")["weight"].loc[weights.index], weights, atol=1e-12)


@pytest.mark.parametrize("interval", ["pbp", "pbp_t", "bootstrap"])
def test_invariance_to_increasing_transforms_per_task(interval):
    df = simulated()
    transforms = {"task_01": lambda x: np.exp(x / 3), "task_02": lambda x: 5 - 2 / (1 + np.exp(x)),
                  "task_03": lambda x: x ** 3 + 100}
    moved = df.copy()
    for task, f in transforms.items():
        rows = moved["task"] == task
        moved.loc[rows, "score"] = f(moved.loc[rows, "score"])
    options = {"interval": interval, "n_resamples": 300, "rng": 5}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RlstatsWarning)
        a, b = percentiles(df, FORMULA, **options), percentiles(moved, FORMULA, **options)
    np.testing.assert_allclose(b.estimate, a.estimate, atol=1e-12)
    np.testing.assert_allclose(b.conf_low, a.conf_low, atol=1e-12)
    np.testing.assert_allclose(b.conf_high, a.conf_high, atol=1e-12)


def test_higher_is_better_false_equals_negated_scores():
    df = simulated()
    a = percentiles(df.assign(score=-df["score"]), FORMULA, interval="pbp", higher_is_better=False)
    b = percentiles(df, FORMULA, interval="pbp")
    np.testing.assert_allclose(a.estimate, b.estimate, atol=1e-14)
    np.testing.assert_allclose(a.conf_low, b.conf_low, atol=1e-12)
    per_a, per_b = a.per_task, b.per_task
    np.testing.assert_allclose(per_a["estimate"], -per_b["estimate"], atol=1e-12)
    np.testing.assert_allclose(per_a["conf_low"], -per_b["conf_high"], atol=1e-12)
    assert (per_a["rank"] == per_b["rank"]).all()


# ----------------------------------------------------------------------------- bootstrap


class RecordingGenerator:
    """Wraps a Generator and keeps every array it draws, to recompute resamples independently."""

    def __init__(self, seed):
        self.generator = np.random.default_rng(seed)
        self.draws = []

    def integers(self, low, high, size):
        out = self.generator.integers(low, high, size=size)
        self.draws.append(out)
        return out


def test_resampled_payoffs_and_scores_match_a_per_resample_recomputation():
    rng = np.random.default_rng(8)
    cells = random_cells(rng, 3, 2, tie_levels=5)
    layout = kernels.make_layout(*_arrays(cells))
    recorder = RecordingGenerator(1)
    payoff = kernels.resampled_payoffs(layout, recorder, 6)
    y = kernels.aggregate(payoff, kernels.stationary(payoff, dense_limit=0))
    sorted_cells = [[np.sort(cells[i][j]) for j in range(2)] for i in range(3)]
    for b in range(6):
        resample = [[None] * 2 for _ in range(3)]
        for j, draws in enumerate(recorder.draws):  # task by task; slots by agent, runs sorted within cell
            start = 0
            for i in range(3):
                size = len(cells[i][j])
                resample[i][j] = sorted_cells[i][j][draws[b, start:start + size]]
                start += size
        expected = naive_payoffs(resample)
        np.testing.assert_allclose(payoff[b], expected, atol=1e-14)
        np.testing.assert_allclose(y[b], naive_solution(expected)[1], atol=1e-12)


def test_bootstrap_is_reproducible_and_independent_of_n_jobs():
    pytest.importorskip("joblib")
    df = simulated(agents=3, tasks=2, seeds=8)
    options = {"interval": "bootstrap", "n_resamples": 100, "delta": 0.3}
    a = percentiles(df, FORMULA, rng=42, **options)
    b = percentiles(df, FORMULA, rng=42, n_jobs=2, **options)
    c = percentiles(df, FORMULA, rng=43, **options)
    assert a.seed == 42 and a.n_resamples == 100
    # Same draws in worker processes; LAPACK in a worker may round the stationary distribution's
    # last bit differently (seen with numpy 1.24's OpenBLAS), so equal to 1e-14 rather than bit for bit.
    np.testing.assert_allclose(a.bootstrap_distribution, b.bootstrap_distribution, rtol=1e-14, atol=1e-15)
    assert not np.allclose(a.bootstrap_distribution, c.bootstrap_distribution)
    generator = percentiles(df, FORMULA, rng=np.random.default_rng(0), **options)
    assert generator.seed == np.random.default_rng(0).integers(2**63)  # the int drawn, not 'Generator'


def test_bootstrap_interval_is_the_type_7_percentile():
    df = simulated(agents=3, tasks=2, seeds=8)
    res = percentiles(df, FORMULA, interval="bootstrap", n_resamples=400, delta=0.3, rng=0)
    level = 0.3 / 6 / 2
    for i in range(3):
        x = np.sort(res.bootstrap_distribution[:, i])
        for p, bound in ((level, res.conf_low[i]), (1 - level, res.conf_high[i])):
            h = (x.size - 1) * p
            lo = int(np.floor(h))
            assert bound == pytest.approx(x[lo] + (h - lo) * (x[lo + 1] - x[lo]), abs=1e-15)
    assert np.all(res.conf_low <= res.conf_high)


def test_too_few_resamples_warn():
    with pytest.warns(RlstatsWarning, match="extreme order statistics"):
        res = percentiles(simulated(agents=3, tasks=2, seeds=5), FORMULA, interval="bootstrap", n_resamples=20, rng=0)
    assert any("extreme order statistics" in n for n in res.notes)


# ----------------------------------------------------------------------------- coverage


def beta_design(t_runs, rng):
    """3 agents x 2 tasks of Beta-distributed scores on [0, 1]."""
    params = {("a0", "t0"): (2, 5), ("a1", "t0"): (3, 3), ("a2", "t0"): (5, 2),
              ("a0", "t1"): (4, 2), ("a1", "t1"): (2, 2), ("a2", "t1"): (1.5, 3)}
    rows = [(a, t, x) for (a, t), (p, q) in params.items() for x in rng.beta(p, q, t_runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "score"]), params


def true_aggregate(params):
    agents, tasks = ["a0", "a1", "a2"], ["t0", "t1"]
    a = np.empty((3, 2, 3))
    for i, ai in enumerate(agents):
        for j, tj in enumerate(tasks):
            for k, ak in enumerate(agents):
                if i == k:
                    a[i, j, k] = 0.5
                    continue
                fi, fk = stats.beta(*params[(ai, tj)]), stats.beta(*params[(ak, tj)])
                a[i, j, k] = integrate.quad(lambda x: fi.pdf(x) * fk.cdf(x), 0, 1, epsabs=1e-12)[0]
    return naive_solution(a)[1]


def pbp_failures(replications, t_runs, seed):
    rng = np.random.default_rng(seed)
    params = beta_design(t_runs, rng)[1]
    truth = true_aggregate(params)
    failures = 0
    for _ in range(replications):
        data, _ = beta_design(t_runs, rng)
        res = percentiles(data, FORMULA, interval="pbp", delta=0.05, bounds=(0.0, 1.0))
        failures += bool(np.any((truth < res.conf_low) | (truth > res.conf_high)))
    return failures


def test_estimate_converges_to_the_true_aggregate():
    rng = np.random.default_rng(0)
    data, params = beta_design(5000, rng)
    res = percentiles(data, FORMULA, interval="pbp", bounds=(0.0, 1.0))
    truth = true_aggregate(params)
    np.testing.assert_allclose(res.estimate, truth, atol=0.01)
    assert np.all((res.conf_low <= truth) & (truth <= res.conf_high))


def test_pbp_coverage_is_conservative():
    # At the nominal 5% simultaneous failure rate, no failure in 75 would have probability 0.95**75 = 0.021 (the
    # former check, 3 or fewer in 150, 0.055); none failed in 150 of these draws either (2.5 s CPU against 1.2 s).
    assert pbp_failures(75, 200, seed=0) == 0


@pytest.mark.slow
def test_pbp_coverage_is_conservative_with_more_replications():
    assert pbp_failures(1000, 500, seed=1) <= 10  # nominal 5% would give about 50


# ----------------------------------------------------------------------------- errors and options


def test_errors_name_the_problem():
    df = simulated(agents=3, tasks=2, seeds=4)
    missing = df[~((df["agent"] == "agent_2") & (df["task"] == "task_01"))]
    with pytest.raises(DesignError, match="agent 'agent_2' on task 'task_01'"):
        percentiles(missing, FORMULA)
    with pytest.raises(RlstatsError, match="at least two agents"):
        percentiles(df[df["agent"] == "agent_1"], FORMULA)
    with_nan = df.copy()
    with_nan.loc[3, "score"] = np.nan
    with pytest.raises(DesignError, match="score"):
        percentiles(with_nan, FORMULA)
    single = df.groupby(["agent", "task"]).head(1)
    with pytest.raises(DesignError, match='interval="pbp_t" intervals cannot be computed in every cell: they need at '
                                          'least 2 runs per agent and task'):
        percentiles(single, FORMULA, interval="pbp_t")
    for bad, message in [({"interval": "bca"}, "interval"), ({"delta": 0.7}, "at most 0.5"),
                         ({"ties": "half"}, "ties"), ({"self_payoff": 2}, "self_payoff"),
                         ({"bounds": {"task_01": (0, 1)}}, "contain every score"),
                         ({"bounds": {"nope": (0, 1)}}, "nope"),
                         ({"identical": [("agent_1", "ghost", "task_01")]}, "ghost"),
                         ({"n_jobs": 0}, "n_jobs"), ({"n_resamples": 1}, "n_resamples")]:
        with pytest.raises(OptionError, match=message):
            percentiles(df, FORMULA, **bad)
    # one pair for every task is the Design's bounds (rlstats.bounds): a run outside them is named (issue 39)
    with pytest.raises(DesignError, match=r"lie outside the bounds \[0, 1\] \(bounds=\(0, 1\)\): index label 0 \(agent"):
        percentiles(df, FORMULA, bounds=(0, 1))


def test_na_drop_is_stated():
    df = simulated(agents=3, tasks=3, seeds=4)
    df.loc[0, "score"] = np.nan
    res = percentiles(df, FORMULA, na_action="drop", interval=None)
    assert res.nobs == len(df) - 1 and any("dropped" in n for n in res.notes)
    missing = df[~((df["agent"] == "agent_2") & (df["task"] == "task_02"))]
    res = percentiles(missing, FORMULA, na_action="drop", interval=None)
    assert res.tasks == ("task_01", "task_03") and any("task_02" in n for n in res.notes)
    expected = percentiles(missing[missing["task"] != "task_02"], FORMULA, na_action="drop", interval=None)
    np.testing.assert_array_equal(res.estimate, expected.estimate)


def test_given_bounds_widen_pbp():
    df = simulated(agents=3, tasks=2, seeds=30)
    observed = percentiles(df, FORMULA, interval="pbp")
    wide = percentiles(df, FORMULA, interval="pbp", bounds=(-1e3, 1e3))
    assert np.all(wide.conf_low <= observed.conf_low + 1e-12) and np.all(wide.conf_high >= observed.conf_high - 1e-12)
    assert wide.bounds_source == "given" and observed.bounds_source == "observed"
    assert np.all(observed.conf_low <= observed.estimate) and np.all(observed.estimate <= observed.conf_high)


def test_one_task_without_blocks():
    data = frame(EXAMPLES["ex1"]).drop(columns="task")
    res = percentiles(data, "score ~ agent", interval=None)
    np.testing.assert_allclose(res.estimate, [0.1, 0.6], atol=1e-12)


# ----------------------------------------------------------------------------- result


def test_result_tables_are_consistent():
    df = simulated()
    res = percentiles(df, "score ~ agent | task/seed", interval="pbp_t")
    tidy = res.tidy()
    assert list(tidy.columns) == ["agent", "estimate", "conf_low", "conf_high", "rank", "rank_best", "rank_worst"]
    assert (tidy["rank_best"] <= tidy["rank"]).all() and (tidy["rank"] <= tidy["rank_worst"]).all()
    means = df.groupby(["task", "agent"])["score"].mean()
    per_task = res.per_task.set_index(["task", "agent"])
    np.testing.assert_allclose(per_task["estimate"], means.loc[per_task.index], rtol=1e-12)
    # The per-task percentile against the game's reference mixture, and the aggregate as their q*_j-weighted sum.
    weights = res.reference_weights.pivot(index="task", columns="reference", values="weight").loc[list(res.tasks)]
    mixture = weights.to_numpy() / weights.to_numpy().sum(axis=1, keepdims=True)
    np.testing.assert_allclose(per_task["percentile"].to_numpy().reshape(3, 4),
                               np.einsum("ijk,jk->ji", res.payoff, mixture), atol=1e-12)
    task_weight = res.task_weights.set_index("task")["weight"].loc[list(res.tasks)].to_numpy()
    np.testing.assert_allclose(task_weight @ per_task["percentile"].to_numpy().reshape(3, 4), res.estimate, atol=1e-12)
    assert len(res.payoffs) == 4 * 3 * 4 and set(res.payoffs.columns) >= {"agent", "task", "reference", "estimate"}
    assert any("not used for pairing" in n for n in res.notes)


def test_result_contract_through_compare(monkeypatch, capsys):
    import matplotlib.axes
    import matplotlib.figure

    monkeypatch.setitem(METHODS, "percentiles", "rlstats.methods.percentiles:percentiles")
    df = simulated(agents=3, tasks=4, seeds=10)
    before = df.copy(deep=True)
    res = rlstats.compare(df, FORMULA, method="percentiles", interval="pbp_t", rng=1)
    pd.testing.assert_frame_equal(df, before)
    assert isinstance(res, PercentilesResult)
    lines = str(res).splitlines()
    assert lines[1] == "\t" + res.method and lines[3].startswith("data:  ")
    assert unknown_columns(res.tidy().columns) == [] and unknown_columns(res.glance().columns) == []
    assert len(res.glance()) == 1
    data = res.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert len(res.report()) > 200 and r"\toprule" in res.to_latex()
    for kind in type(res)._plot_kinds:
        assert isinstance(res.plot(kind=kind), (matplotlib.axes.Axes, matplotlib.figure.Figure))
    one = res.plot(kind="cdf", tasks=["task_01"])
    assert isinstance(one, matplotlib.axes.Axes)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    assert res.confidence_interval().shape == (3, 3)
    with pytest.raises(OptionError, match="delta"):
        res.confidence_interval(confidence_level=0.9)


# Issue 28: tied scores print as ties, never as "rank 1 (best 3, worst 3)".
def tied_frame(score=None):
    rows = [{"agent": a, "task": f"t{t}", "score": float(r) if score is None else score}
            for t in range(2) for a in "ABC" for r in range(5)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("interval", ["pbp", "pbp_t", "bootstrap"])
def test_constant_scores_tie_at_rank_one(interval):
    frame = tied_frame(500.0)  # a capped return: every run of every agent scores 500
    before = frame.copy()
    res = rlstats.percentiles(frame, "score ~ agent | task", interval=interval, rng=0, n_resamples=2000)
    pd.testing.assert_frame_equal(frame, before)
    assert res.rank.tolist() == [1, 1, 1]
    # the intervals would be one point (the runs do not vary): withheld with their reason (audit s8), so the rank
    # range is every rank
    assert np.isnan(res.conf_low).all() and any("would be one point" in note for note in res.notes)
    assert res.rank_best.tolist() == [1, 1, 1] and res.rank_worst.tolist() == [3, 3, 3]
    lines = str(res).splitlines()
    assert lines[4].startswith("top agents = A, B, C (tied)")
    assert "  A  0.83333 (interval withheld, see the notes)  rank 1 (tied with B, C; best 1, worst 3)" in lines
    assert "A, B and C tie at rank 1" in res.report()
    assert "no pair is resolved" in res.report()


def test_tied_estimates_with_wide_intervals_span_the_ranks_and_print_the_tie():
    res = rlstats.percentiles(tied_frame(), "score ~ agent | task")
    assert res.rank.tolist() == [1, 1, 1] and res.rank_worst.tolist() == [3, 3, 3]
    assert "  B  0.56667 (0.021638, 0.97836)  rank 1 (tied with A, C; best 1, worst 3)" in str(res).splitlines()
    untied = rlstats.percentiles(simulated(), "score ~ agent | task")
    assert "tied" not in str(untied) and " tie at rank" not in untied.report()


def test_rank_range_ties_follow_the_min_convention():
    # Identical zero-width intervals: one shared rank (the published rule gave best = worst = 3).
    best, worst = kernels.rank_range([0.5, 0.5, 0.5 + 1e-16], [0.5, 0.5, 0.5 + 1e-16])
    assert best.tolist() == [1, 1, 1] and worst.tolist() == [1, 1, 1]
    assert kernels.competition_rank([0.5, 0.5 - 1e-16, 0.2]).tolist() == [1, 1, 3]
    # Touching intervals: the upper agent is not surely better (a tie is possible), nor can the lower one beat it.
    best, worst = kernels.rank_range([0.2, 0.4], [0.4, 0.6])
    assert best.tolist() == [1, 1] and worst.tolist() == [2, 1]
    best, worst = kernels.rank_range([0.2, 0.41], [0.4, 0.6])
    assert best.tolist() == [2, 1] and worst.tolist() == [2, 1]


def test_a_one_sided_pair_and_a_designs_bounds_are_the_support():
    # issue 39 item 5: bounds=(None, high) keeps the observed lower end; a ready Design's bounds are used as given
    df = simulated(agents=2, tasks=3, seeds=4)
    observed_low = df.groupby("task", observed=True)["score"].min().to_numpy()
    res = percentiles(df, FORMULA, interval="pbp", bounds=(None, 100.0))
    np.testing.assert_array_equal(res.support_high, 100.0)
    np.testing.assert_array_equal(res.support_low, observed_low)
    assert res.bounds_source == "mixed"
    design = rlstats.build(df, FORMULA, bounds=(-100.0, 100.0))
    ready = percentiles(design, interval="pbp")
    np.testing.assert_array_equal(ready.support_low, -100.0)
    assert ready.bounds_source == "given"
    flipped = percentiles(df, FORMULA, interval="pbp", bounds=(None, 100.0), higher_is_better=False)
    np.testing.assert_array_equal(flipped.support_high, 100.0)
    np.testing.assert_array_equal(flipped.support_low, observed_low)


def test_pbp_runs_blas_on_one_thread(monkeypatch):
    # many small LAPACK calls: a threaded OpenBLAS spun its threads (165 s against 5.3 s of CPU on Atari 100k,
    # 2 cores) and moved the bounds' last bits with the thread count (rlstats.engines.one_blas_thread)
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from rlstats.methods.percentiles import _kernels

    seen = []
    original = _kernels.propagate_bounds

    def recording(*args, **kwargs):
        seen.extend(info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas")
        return original(*args, **kwargs)

    monkeypatch.setattr(_kernels, "propagate_bounds", recording)
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        rlstats.percentiles(df, "score ~ agent | task", interval="pbp", progress=False)
        after = [info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]
    assert seen and set(seen) == {1}
    assert set(after) == {2}  # the caller's setting is back
