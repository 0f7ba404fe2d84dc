"""Array kernels of the performance-percentile aggregate (Jordan et al. 2020).

Everything here is arrays in, arrays out; no pandas, no options objects.

Layout of the game.  Payoffs are held as ``A[..., i, j, k]`` (agent i, task j,
reference agent k).  A joint strategy is ``s = (i, r)`` with ``r = j * n_A + k``
the adversary's pure strategy, so a flat state index is ``i * R + r`` with
``R = n_A * n_E``.  The transition matrix C of paper eq. 5 is stored in three
dense pieces that together hold every non-zero entry:

* ``Q[..., i, r, r']``: the adversary deviates from (i, r) to (i, r');
* ``P[..., i, r, i']``: the agent player deviates from (i, r) to (i', r);
* ``D[..., i, r]``: the self-loop, 1 minus the row's other entries.

That is ``n_A R^2 + n_A^2 R`` numbers instead of ``(n_A R)^2``.  Linear
systems in ``I - gamma C`` are solved densely for small games, and otherwise
by GMRES preconditioned with the diagonal blocks ``I - gamma (D + Q_i)`` (one
per agent), which converges in a few dozen iterations because only the agent
player's moves are left outside the preconditioner.  For the point game the
adversary's moves follow the order of each agent's payoffs, so Q is never
formed: products with it and solves with its blocks are cumulative sums over
the sorted payoffs (:class:`_OrderedAdversary`).  Policy iteration (PBP)
chooses its rows greedily by the last values: when one agent's payoff
intervals all overlap, each adversary move is a tie or uncertain, and the
greedy rows are again cumulative sums, over the order of the values
(:class:`_GreedySystem`, GMRES preconditioned by the same blocks, solved by a
recurrence over the value order: :class:`_ValueOrderBlocks`); otherwise they are
dense blocks, LU-factored once per round.

Runs are counted, never sorted per resample: each run gets an integer code, the
position of its score among the distinct scores of its task, so the empirical
CDF of any (resampled) cell is a cumulative sum of counts over codes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...errors import OptionError
from ...resampling import chunk_generators

#: Julia's isapprox default for Float64 (rtol = sqrt(eps), atol = 0), used by the reference for ties.
TIE_RTOL = float(np.sqrt(np.finfo(np.float64).eps))
#: The "population size" m: a tie moves with probability eta / m (paper eq. 5).
TIE_DIVISOR = 50.0
#: Above this many joint strategies a single game is solved iteratively (spec Section 10).
DENSE_LIMIT = 3000
#: Above this many joint strategies a batch of games is solved iteratively (measured: faster from here on).
BATCH_DENSE_LIMIT = 200
#: Resamples drawn from one spawned generator; fixed, so results never depend on batching or n_jobs.
RNG_BLOCK = 32
#: Relative residual at which GMRES stops.
GMRES_RTOL = 1e-12
GMRES_MAX_ITER = 80
GMRES_MAX_RESTARTS = 4
#: GMRES of the structured PBP solver (:class:`_GreedySystem`): 3e-14 (its bounds then agree with dense LU solves to
#: about 5e-14 relative), or eps |S| where rounding leaves no less (values are about |S| times the rewards: from 135
#: joint strategies on, so only small games see this constant); more restarts before a dense solve, which large
#: games cannot afford.  Was 3e-13, which left 1.2e-12 relative on a lower bound of 0.0019 (8 agents x 2 tasks)
#: once value iteration's start (round s37-pbp) left 2-4 rounds, the last solve not started near its solution.
GREEDY_RTOL = 3e-14
GREEDY_RESTARTS = 12
#: Policy iteration settings of the reference (spec Section 6.1(e)).
PI_TOL = 1e-7
PI_MAX_ITER = 400
PI_CHANGE = 1e-8
#: Numbers per array of the PBP row updates held at once (about 256 MB of float64).
PBP_MEMORY_BUDGET = 2**25
#: Groups of fewer than R / MINOR_GROUP_SHARE equal intervals (but the largest) keep only their ties to earlier states
#: in the structured solver's preconditioner (:class:`_ValueOrderBlocks`): fewer unknowns a round.
MINOR_GROUP_SHARE = 16
#: At most this many group totals a row are unknowns of those solves (memory: rows x unknowns x R numbers).
MAX_UNKNOWNS = 32
#: Value-iteration steps from the rewards that give policy iteration's first round its values (round s37-pbp).
START_STEPS = 4


# ----------------------------------------------------------------------------- data layout


@dataclass(frozen=True)
class Layout:
    """The runs of a complete design, arranged for ECDF and resampling work.

    Slots are the runs ordered by task, then agent, then score; a cell is the
    contiguous block of one (task, agent).

    Attributes
    ----------
    n_agents, n_tasks : int
    counts : ndarray of int, shape (n_tasks, n_agents)
        Runs per cell, T_ij (all >= 1).
    values : ndarray, shape (N,)
        Scores in slot order.
    code : ndarray of intp, shape (N,)
        Global code of each slot's score: distinct scores are numbered task by
        task in increasing order, so equal scores of a task share a code.
    code_start : ndarray of intp, shape (n_tasks + 1,)
        First code of each task (and the total number of codes at the end).
    slot_start : ndarray of intp, shape (n_tasks + 1,)
        First slot of each task.
    cell_start : ndarray of intp, shape (n_tasks * n_agents + 1,)
        First slot of each cell, cells ordered by task then agent.
    """

    n_agents: int
    n_tasks: int
    counts: np.ndarray
    values: np.ndarray
    code: np.ndarray
    code_start: np.ndarray
    slot_start: np.ndarray
    cell_start: np.ndarray

    def task_slots(self, j):
        return slice(self.slot_start[j], self.slot_start[j + 1])

    def cell_sizes(self, j):
        """Run counts of the cells of task j, one per slot of the task."""
        return np.repeat(self.counts[j], self.counts[j])

    def slot_position(self):
        """1-based position of each slot within its cell (its rank among the cell's sorted runs)."""
        sizes = np.diff(self.cell_start)
        return np.arange(self.values.size) - np.repeat(self.cell_start[:-1], sizes) + 1


def make_layout(y, agent, task, n_agents, n_tasks):
    """Build the :class:`Layout` of runs ``y`` with agent and task codes (every cell non-empty)."""
    order = np.lexsort((y, agent, task))
    values, agent, task = y[order], agent[order], task[order]
    counts = np.zeros((n_tasks, n_agents), dtype=np.intp)
    np.add.at(counts, (task, agent), 1)
    # Codes: rank of each distinct score within its task, numbered consecutively over tasks.
    by_value = np.lexsort((values, task))
    v, t = values[by_value], task[by_value]
    new = np.r_[True, (t[1:] != t[:-1]) | (v[1:] != v[:-1])]
    code = np.empty(values.size, dtype=np.intp)
    code[by_value] = np.cumsum(new) - 1
    first_code = np.searchsorted(t, np.arange(n_tasks), side="left")
    code_start = np.r_[code[by_value][first_code], np.cumsum(new)[-1]].astype(np.intp)
    slot_start = np.r_[0, np.cumsum(counts.sum(axis=1))].astype(np.intp)
    cell_start = np.r_[0, np.cumsum(counts.ravel())].astype(np.intp)
    return Layout(n_agents, n_tasks, counts, values, code, code_start, slot_start, cell_start)


# ----------------------------------------------------------------------------- payoffs


def _count_tables(layout, j, codes, agent_of_slot, ties):
    """Integer CDF counts of every agent of task j at every code of the task, for each resample.

    ``codes`` (B, N_j) are the task-local codes of the (drawn) runs and
    ``agent_of_slot`` (N_j,) the agent each slot belongs to.  Returns
    (counts, scale): counts[b, k, u] / (scale * T_k) is agent k's empirical CDF
    at code u, with ties as wins (ties="le", scale 1), as half wins
    (ties="mid", scale 2) or as losses (ties="lt", scale 1, the left limit
    F(x-) that PBP's lower band uses under ties="mid").
    """
    n_a = layout.n_agents
    n_codes = layout.code_start[j + 1] - layout.code_start[j]
    batch = codes.shape[0]
    key = (np.arange(batch)[:, None] * n_a + agent_of_slot[None, :]) * n_codes + codes
    hist = np.bincount(key.ravel(), minlength=batch * n_a * n_codes).reshape(batch, n_a, n_codes)
    cum = np.cumsum(hist, axis=-1)
    if ties == "mid":
        return 2 * cum - hist, 2
    if ties == "lt":
        return cum - hist, 1
    return cum, 1


def _task_payoffs(layout, j, codes, ties):
    """Payoffs of task j for each resample: (B, n_A(i), n_A(k)), plus the per-slot CDF values (B, n_A(k), N_j).

    Row i is the mean over agent i's slots of F_k at the slot's score,
    computed as one integer count divided by T_i T_k: payoffs that are equal
    as fractions are then equal as floats, which the tie rule of the game
    depends on.
    """
    sizes = layout.counts[j]
    agent_of_slot = np.repeat(np.arange(layout.n_agents), sizes)
    table, scale = _count_tables(layout, j, codes, agent_of_slot, ties)
    # counts[b, k, s]: how many of reference k's runs lie at or below slot s's score.
    counts = np.take_along_axis(table, codes[:, None, :], axis=-1)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    sums = np.swapaxes(np.add.reduceat(counts, starts, axis=-1), -1, -2)  # (B, i, k), exact integers
    payoff = sums / (scale * sizes[None, :, None] * sizes[None, None, :])
    return payoff, counts / (scale * sizes[None, :, None])


def _fix_self_payoffs(payoff, self_payoff, identical):
    """Set A[i, j, i] and the user's "identical" pairs to the fixed self payoff."""
    n_a = payoff.shape[-1]
    idx = np.arange(n_a)
    payoff[..., idx, :, idx] = self_payoff
    if identical is not None:
        payoff[..., identical] = self_payoff
    return payoff


def payoff_tensor(layout, ties="le", self_payoff=0.5, identical=None):
    """Payoffs A (n_A, n_E, n_A) and per-slot CDF values of the observed runs.

    Returns
    -------
    payoff : ndarray, shape (n_A, n_E, n_A)
        A[i, j, k] = mean over agent i's runs on task j of F_{k,j}(x), spec Section 4;
        the diagonal and ``identical`` entries are ``self_payoff``.
    z : ndarray, shape (n_A, N)
        z[k, s] = F_{k, task(s)}(x_s) for every slot s (used by PBP-t).
    """
    payoff = np.empty((layout.n_agents, layout.n_tasks, layout.n_agents))
    z = np.empty((layout.n_agents, layout.values.size))
    for j in range(layout.n_tasks):
        part = layout.task_slots(j)
        codes = (layout.code[part] - layout.code_start[j])[None, :]
        a_j, z_j = _task_payoffs(layout, j, codes, ties)
        payoff[:, j, :] = a_j[0]
        z[:, part] = z_j[0]
    return _fix_self_payoffs(payoff, self_payoff, identical), z


def resampled_payoffs(layout, rng, n_resamples, ties="le", self_payoff=0.5, identical=None):
    """Payoffs of ``n_resamples`` stratified bootstrap resamples: (B, n_A, n_E, n_A).

    Every (agent, task) cell is resampled with replacement at its own size
    (spec Section 6.3), task by task, from ``rng``.
    """
    payoff = np.empty((n_resamples, layout.n_agents, layout.n_tasks, layout.n_agents))
    for j in range(layout.n_tasks):
        part = layout.task_slots(j)
        sizes = layout.cell_sizes(j)
        first = np.repeat(np.r_[0, np.cumsum(layout.counts[j])[:-1]], layout.counts[j])
        drawn = first + rng.integers(0, sizes, size=(n_resamples, sizes.size))
        codes = layout.code[part][drawn] - layout.code_start[j]
        payoff[:, :, j, :] = _task_payoffs(layout, j, codes, ties)[0]
    return _fix_self_payoffs(payoff, self_payoff, identical)


# ----------------------------------------------------------------------------- the game


def game_constants(n_agents, n_tasks):
    """(eta, gamma, |S|): move probability, PageRank damping and number of joint strategies (spec 5.2-5.3)."""
    n_states = n_agents * n_agents * n_tasks
    eta = 1.0 / ((n_agents - 1) + (n_agents * n_tasks - 1))
    return eta, (n_states - 1) / n_states, n_states


def _close(a, b):
    """Julia's isapprox(a, b) with default tolerances: equal, or within sqrt(eps) relative."""
    return (a == b) | (np.abs(a - b) <= TIE_RTOL * np.maximum(np.abs(a), np.abs(b)))


def _move_probability(new, old, eta):
    """Paper eq. 5: eta for a strict improvement of the deviator, eta/m for a tie, else 0 (">" tested first)."""
    return np.where(new > old, eta, np.where(_close(new, old), eta / TIE_DIVISOR, 0.0))


def transitions(payoff):
    """The pieces (D, Q, P) of the transition matrix C for payoffs (..., n_A, n_E, n_A); see the module doc."""
    n_a, n_e = payoff.shape[-3], payoff.shape[-2]
    eta, _, _ = game_constants(n_a, n_e)
    u = payoff.reshape(payoff.shape[:-3] + (n_a, n_e * n_a))
    # Adversary: from (i, r) to (i, r') it gains when A[i, r'] < A[i, r].
    q = _move_probability(-u[..., None, :], -u[..., :, None], eta)
    q[..., np.arange(u.shape[-1]), np.arange(u.shape[-1])] = 0.0
    p = _agent_moves(u)
    diag = 1.0 - q.sum(axis=-1) - p.sum(axis=-1)
    return diag, q, p


def _agent_moves(u):
    """P[..., i, r, i']: the agent player moves from (i, r) to (i', r) when A[i', r] > A[i, r] (or ties)."""
    n_a = u.shape[-2]
    eta, _, _ = game_constants(n_a, u.shape[-1] // n_a)
    ut = np.swapaxes(u, -1, -2)  # (..., r, i)
    p = _move_probability(ut[..., None, :, :], u[..., :, :, None], eta)
    p[..., np.arange(n_a), :, np.arange(n_a)] = 0.0
    return p


def dense_transition(diag, q, p):
    """Assemble the full C (..., |S|, |S|) from its pieces (for small games and tests)."""
    n_a, r = diag.shape[-2], diag.shape[-1]
    lead = diag.shape[:-2]
    c = np.zeros(lead + (n_a, r, n_a, r))
    ia, ra = np.arange(n_a), np.arange(r)
    c[..., ia, :, ia, :] = np.moveaxis(q, -3, 0)  # blocks (i, ., i, .)
    # p[..., i, r, i'] goes to c[..., i, r, i', r].
    c[..., :, ra, :, ra] = np.moveaxis(p, -2, 0)
    c[..., ia[:, None], ra[None, :], ia[:, None], ra[None, :]] = diag
    return c.reshape(lead + (n_a * r, n_a * r))


def _apply(diag, q, p, x, transpose):
    """C x (or C^T x) for x of shape (..., n_A, R) without forming C."""
    if transpose:
        return diag * x + np.matmul(x[..., None, :], q)[..., 0, :] + np.einsum("...irj,...ir->...jr", p, x)
    return diag * x + np.matmul(q, x[..., None])[..., 0] + np.einsum("...irj,...jr->...ir", p, x)


def _solve_dense(diag, q, p, gamma, rhs, transpose):
    n_a, r = diag.shape[-2], diag.shape[-1]
    c = dense_transition(diag, q, p)
    m = np.eye(n_a * r) - gamma * c
    if transpose:
        m = np.swapaxes(m, -1, -2)
    flat = rhs.reshape(rhs.shape[:-2] + (n_a * r, 1))
    return np.linalg.solve(m, flat).reshape(rhs.shape)


class _InverseBlocks:
    """Exact solves with the diagonal blocks I - gamma (D + Q_i), for any transition rows (PBP).

    Each block is LU-factored once (LAPACK getrf) and applied by triangular solves: a quarter of the work of
    inverting it, and, unlike numpy's stacked inverse, it does not wake threaded BLAS for every small block
    (measured: 50 blocks of 100 x 100 cost 4.4 s CPU inverted with OpenBLAS's threads, 0.03 s factored).
    LAPACK's getrf and getrs are called directly, the routines of scipy's lu_factor and lu_solve without their
    checks (issue 43: those were 0.6 s of PBP's 7 s on the Atari 100k scores, a block solve taking some 50 us).
    The blocks are strictly diagonally dominant (gamma < 1, D + Q non-negative with row sums at most one): never
    singular.
    """

    def __init__(self, diag, q, gamma, transpose):
        from scipy.linalg.lapack import dgetrf

        r = diag.shape[-1]
        block = -gamma * q
        block[..., np.arange(r), np.arange(r)] += 1.0 - gamma * diag
        self.factors = []
        for m in block.reshape(-1, r, r):
            lu, piv, info = dgetrf(m)
            if info < 0:
                raise ValueError(f"illegal value in argument {-info} of LAPACK getrf")
            self.factors.append((lu, piv))
        self.per_row, self.transpose = int(np.prod(block.shape[1:-2], dtype=int)), transpose

    def apply(self, x):
        from scipy.linalg.lapack import dgetrs

        flat = x.reshape(-1, x.shape[-1])
        out = np.empty_like(flat)
        trans = 1 if self.transpose else 0
        for k, (lu, piv) in enumerate(self.factors):
            out[k], info = dgetrs(lu, piv, flat[k], trans=trans)
            if info != 0:
                raise ValueError(f"illegal value in argument {-info} of LAPACK getrs")
        return out.reshape(x.shape)

    def subset(self, rows):
        sub = object.__new__(_InverseBlocks)
        keep = (np.asarray(rows)[:, None] * self.per_row + np.arange(self.per_row)).ravel()
        sub.factors = [self.factors[k] for k in keep]
        sub.per_row, sub.transpose = self.per_row, self.transpose
        return sub


class _OrderedAdversary:
    """The adversary's moves of the point game, from the order of each agent's payoffs.

    In agent i's block the adversary moves from r to every r' with a smaller
    payoff (probability eta) and to every other r' with an equal payoff
    (eta / m).  Sorting the strategies by payoff and grouping equal payoffs
    turns products with Q_i (or Q_i^T) into cumulative sums, and the block
    system (I - gamma (D + Q_i)) x = b into a recurrence over groups,
    S_{g+1} = alpha_g S_g + beta_g (S_g: the solution summed over the lower
    groups), solved with cumulative products and sums: O(R) work instead of
    a dense R x R block.  For the transposed system the order is reversed.

    This is exact unless two payoffs differ within the tie tolerance without
    being equal (``near_ties``); such games are then solved with the dense
    blocks and this object only preconditions them.
    """

    def __init__(self, payoff, gamma, transpose):
        n_a, r = payoff.shape[-2], payoff.shape[-1]
        eta, _, _ = game_constants(n_a, r // n_a)
        self.shape = payoff.shape
        key = payoff.reshape(-1, r)
        key = -key if transpose else key
        self.rows, self.r = key.shape[0], r
        order = np.argsort(key, axis=1, kind="stable")
        # Flat indices: gathers and scatters with them are cheaper than take_along_axis.
        self.sort_index = (np.arange(self.rows)[:, None] * r + order).ravel()
        ordered = key.ravel()[self.sort_index].reshape(key.shape)
        first = np.ones(ordered.shape, dtype=bool)
        first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
        self.group = np.cumsum(first, axis=1) - 1
        self._set_flat_group()
        close = _close(ordered[:, 1:], ordered[:, :-1]) & first[:, 1:]
        self.near_ties = close.reshape(self.shape[:-1] + (-1,)).any(axis=(-2, -1))
        self.gamma, self.eta = gamma, eta
        # Row sums of Q in sorted order: eta per smaller payoff, eta/m per other equal payoff.
        size = self._per_element(self._group_sum(np.ones_like(ordered)))
        start = np.arange(r)[None, :] - self._rank_in_group(first)
        smaller = start if not transpose else r - start - size
        self.row_sums_sorted = eta * smaller + eta / TIE_DIVISOR * (size - 1)

    def _set_flat_group(self):
        self.flat_group = (np.arange(self.rows)[:, None] * self.r + self.group).ravel()

    def _per_element(self, group_values):
        return group_values.ravel()[self.flat_group].reshape(self.rows, self.r)

    @staticmethod
    def _rank_in_group(first):
        position = np.arange(first.shape[1])[None, :]
        return position - np.maximum.accumulate(np.where(first, position, 0), axis=1)

    def _group_sum(self, values):
        return np.bincount(self.flat_group, weights=values.ravel(), minlength=values.size).reshape(values.shape)

    def _sorted(self, x):
        return x.reshape(-1)[self.sort_index].reshape(self.rows, self.r)

    def _unsorted(self, values):
        out = np.empty(values.size)
        out[self.sort_index] = values.ravel()
        return out.reshape(self.shape)

    def row_sums(self):
        """Sum of each state's adversary moves, shape (..., n_A, R)."""
        return self._unsorted(self.row_sums_sorted)

    def product(self, x):
        """Q x, or Q^T x for the transposed orientation: eta * (lower groups) + eta/m * (rest of own group)."""
        xs = self._sorted(x)
        group_total = self._group_sum(xs)
        below = np.cumsum(group_total, axis=1) - group_total
        out = self.eta * self._per_element(below)
        out += self.eta / TIE_DIVISOR * (self._per_element(group_total) - xs)
        return self._unsorted(out)

    def prepare(self, diag):
        """Constants of the block recurrence for the self-loop probabilities ``diag``."""
        move, tie = self.gamma * self.eta, self.gamma * self.eta / TIE_DIVISOR
        self.inv_c = 1.0 / (1.0 - self.gamma * self._sorted(diag) + tie)
        self.w = self._group_sum(self.inv_c)
        self.denom = 1.0 - tie * self.w
        log_alpha = np.log1p(move * self.w / self.denom)
        log_p = np.cumsum(log_alpha, axis=1)
        self.p_next, self.p_here = np.exp(log_p), np.exp(log_p - log_alpha)  # P_{g+1}, P_g
        return self

    def apply(self, x):
        """Solve the diagonal blocks: (I - gamma (D + Q_i)) y = x, or the transposed blocks."""
        move, tie = self.gamma * self.eta, self.gamma * self.eta / TIE_DIVISOR
        b = self._sorted(x)
        group_b = self._group_sum(b * self.inv_c)
        beta = group_b / self.denom
        scaled = beta / self.p_next
        s = self.p_here * (np.cumsum(scaled, axis=1) - scaled)              # S_g
        group_x = (group_b + move * self.w * s) / self.denom                 # X_g
        solved = (b + move * self._per_element(s) + tie * self._per_element(group_x)) * self.inv_c
        return self._unsorted(solved)

    def subset(self, rows):
        sub = object.__new__(_OrderedAdversary)
        n_a = self.shape[-2]
        flat_rows = (np.asarray(rows)[:, None] * n_a + np.arange(n_a)).ravel()
        for name in ("group", "row_sums_sorted", "inv_c", "w", "denom", "p_next", "p_here"):
            if hasattr(self, name):
                setattr(sub, name, getattr(self, name)[flat_rows])
        sub.shape = (len(rows),) + self.shape[1:]
        sub.rows, sub.r, sub.gamma, sub.eta = flat_rows.size, self.r, self.gamma, self.eta
        order = self.sort_index.reshape(self.rows, self.r)[flat_rows] % self.r
        sub.sort_index = (np.arange(sub.rows)[:, None] * sub.r + order).ravel()
        sub.near_ties = self.near_ties[rows]
        sub._set_flat_group()
        return sub


class _DenseBlockSystem:
    """``I - gamma C`` (or its transpose) from dense pieces, with exact block-inverse preconditioning."""

    def __init__(self, diag, q, p, gamma, transpose, blocks=None):
        self.diag, self.q, self.p, self.gamma, self.transpose = diag, q, p, gamma, transpose
        self.blocks = _InverseBlocks(diag, q, gamma, transpose) if blocks is None else blocks

    def matvec(self, x):
        return x - self.gamma * _apply(self.diag, self.q, self.p, x, self.transpose)

    def precondition(self, x):
        return self.blocks.apply(x)

    def subset(self, rows):
        return _DenseBlockSystem(self.diag[rows], self.q[rows], self.p[rows], self.gamma, self.transpose,
                                 self.blocks.subset(rows))

    def dense_solve(self, rhs):
        return _solve_dense(self.diag, self.q, self.p, self.gamma, rhs, self.transpose)


class _OrderedSystem:
    """``(I - gamma C)^T`` of point games without near ties: adversary moves by order, agent moves dense."""

    def __init__(self, payoff):
        n_a, n_e = payoff.shape[-3], payoff.shape[-2]
        _, self.gamma, _ = game_constants(n_a, n_e)
        self.payoff = payoff
        self.u = payoff.reshape(payoff.shape[:-3] + (n_a, n_e * n_a))
        self.adversary = _OrderedAdversary(self.u, self.gamma, transpose=True)
        self.p = _agent_moves(self.u)
        self.diag = 1.0 - self.adversary.row_sums() - self.p.sum(axis=-1)
        self.adversary.prepare(self.diag)

    def matvec(self, x):
        moved = self.diag * x + self.adversary.product(x) + np.einsum("...irj,...ir->...jr", self.p, x)
        return x - self.gamma * moved

    def precondition(self, x):
        return self.adversary.apply(x)

    def subset(self, rows):
        sub = object.__new__(_OrderedSystem)
        sub.gamma, sub.payoff, sub.u, sub.p, sub.diag = (self.gamma, self.payoff[rows], self.u[rows], self.p[rows],
                                                          self.diag[rows])
        sub.adversary = self.adversary.subset(rows)
        return sub

    def dense_solve(self, rhs):
        return _solve_dense(*transitions(self.payoff), self.gamma, rhs, True)


def _gmres_cycle(system, rhs, x0, rtol, max_iter):
    """One cycle of right-preconditioned GMRES on a batch; returns (x, converged).

    Batched over the leading axis of ``rhs`` (B, n_A, R).  Modified Gram-Schmidt
    is replaced by classical Gram-Schmidt applied twice, which vectorises over
    the batch; a system that has converged keeps its solution (its further
    Krylov coefficients are pinned to zero).
    """
    batch, shape = rhs.shape[0], rhs.shape[1:]
    n = int(np.prod(shape))
    b_norm = np.linalg.norm(rhs.reshape(batch, n), axis=1)
    residual = (rhs - system.matvec(x0)).reshape(batch, n)
    beta = np.linalg.norm(residual, axis=1)
    target = rtol * np.where(b_norm > 0, b_norm, 1.0)
    done = beta <= target
    basis = np.zeros((batch, max_iter + 1, n))
    basis[:, 0] = residual / np.where(beta > 0, beta, 1.0)[:, None]
    tri = np.zeros((batch, max_iter, max_iter))
    cos, sin = np.ones((batch, max_iter)), np.zeros((batch, max_iter))
    g = np.zeros((batch, max_iter + 1))
    g[:, 0] = np.where(done, 0.0, beta)
    steps = 0
    for step in range(max_iter):
        steps = step + 1
        w = system.matvec(system.precondition(basis[:, step].reshape((batch,) + shape))).reshape(batch, n)
        h = np.zeros((batch, step + 2))
        for _ in range(2):  # CGS2: re-orthogonalise once for stability
            coef = np.matmul(basis[:, :step + 1], w[:, :, None])[:, :, 0]
            w = w - np.matmul(coef[:, None, :], basis[:, :step + 1])[:, 0]
            h[:, :step + 1] += coef
        norm = np.linalg.norm(w, axis=1)
        h[:, step + 1] = norm
        basis[:, step + 1] = w / np.where(norm > 0, norm, 1.0)[:, None]
        for k in range(step):  # earlier Givens rotations
            hk, hk1 = h[:, k].copy(), h[:, k + 1].copy()
            h[:, k] = cos[:, k] * hk + sin[:, k] * hk1
            h[:, k + 1] = -sin[:, k] * hk + cos[:, k] * hk1
        radius = np.hypot(h[:, step], h[:, step + 1])
        safe = np.where(radius > 0, radius, 1.0)
        cos[:, step] = np.where(radius > 0, h[:, step] / safe, 1.0)
        sin[:, step] = np.where(radius > 0, h[:, step + 1] / safe, 0.0)
        h[:, step] = radius
        g[:, step + 1] = -sin[:, step] * g[:, step]
        g[:, step] = cos[:, step] * g[:, step]
        # Converged systems: coefficient pinned to zero (unit diagonal, zero right-hand side).
        h[done, :step + 1] = 0.0
        h[done, step] = 1.0
        g[done, step:step + 2] = 0.0
        basis[done, step + 1] = 0.0
        tri[:, :step + 1, step] = h[:, :step + 1]
        done = done | (np.abs(g[:, step + 1]) <= target)
        if done.all():
            break
    k = steps
    coef = np.linalg.solve(tri[:, :k, :k], g[:, :k, None])[..., 0]
    update = np.matmul(coef[:, None, :], basis[:, :k])[:, 0].reshape((batch,) + shape)
    x = x0 + system.precondition(update)
    true_residual = np.linalg.norm((rhs - system.matvec(x)).reshape(batch, n), axis=1)
    return x, true_residual <= 10 * target


def _gmres(system, rhs, x0=None, rtol=None, restarts=GMRES_MAX_RESTARTS):
    """Block-preconditioned GMRES with restarts; any system left unconverged is solved densely."""
    x = np.zeros_like(rhs) if x0 is None else np.broadcast_to(x0, rhs.shape).copy()
    todo = np.arange(rhs.shape[0])
    for _ in range(restarts):
        sub = system if todo.size == rhs.shape[0] else system.subset(todo)
        x[todo], converged = _gmres_cycle(sub, rhs[todo], x[todo], GMRES_RTOL if rtol is None else rtol,
                                          GMRES_MAX_ITER)
        todo = todo[~converged]
        if todo.size == 0:
            return x
    x[todo] = system.subset(todo).dense_solve(rhs[todo])
    return x


def solve(diag, q, p, gamma, rhs, *, transpose=False, x0=None, dense_limit=DENSE_LIMIT):
    """Solve (I - gamma C) x = rhs, or its transpose, for a batch of games given by their pieces.

    Parameters
    ----------
    diag, q, p : ndarray
        Pieces of C with a leading batch axis (B, ...).
    rhs : ndarray, shape (B, n_A, R)
    transpose : bool
        Solve (I - gamma C)^T x = rhs.
    x0 : ndarray, optional
        Starting point of the iterative solver.
    dense_limit : int
        Joint strategies up to which a dense LU solve is used.
    """
    n_states = diag.shape[-2] * diag.shape[-1]
    if n_states <= dense_limit:
        return _solve_dense(diag, q, p, gamma, rhs, transpose)
    return _gmres(_DenseBlockSystem(diag, q, p, gamma, transpose), rhs, x0)


def _stationary_iterative(payoff, x0):
    system = _OrderedSystem(payoff)
    near = system.adversary.near_ties
    # the solution is about 1 / (1 - gamma) = |S| times the right-hand side: rounding alone leaves residuals of about
    # eps |S|, which above 4,500 joint strategies exceeds GMRES_RTOL (the dense fallback then cost minutes)
    rtol = max(GMRES_RTOL, float(np.finfo(float).eps) * system.diag[0].size)
    if not near.any():
        return _gmres(system, np.full(system.diag.shape, (1.0 - system.gamma) / system.diag[0].size), x0, rtol)
    # Payoffs within the tie tolerance but unequal: the dense pieces hold the exact moves; the ordered
    # blocks still precondition well.
    diag, q, p = transitions(payoff)
    dense = _DenseBlockSystem(diag, q, p, system.gamma, True, blocks=system.adversary)
    return _gmres(dense, np.full(diag.shape, (1.0 - system.gamma) / diag[0].size), x0, rtol)


def stationary(payoff, *, x0=None, dense_limit=DENSE_LIMIT):
    """Stationary distribution d (B, n_A, R) of the damped chain for payoffs (B, n_A, n_E, n_A).

    One linear solve (spec 5.3): (I - gamma C)^T d = (1 - gamma) / |S| 1, dense
    up to ``dense_limit`` joint strategies and by preconditioned GMRES above.
    """
    n_a, n_e = payoff.shape[-3], payoff.shape[-2]
    _, gamma, n_states = game_constants(n_a, n_e)
    if n_states <= dense_limit:
        diag, q, p = transitions(payoff)
        d = _solve_dense(diag, q, p, gamma, np.full(diag.shape, (1.0 - gamma) / n_states), True)
    else:
        d = _stationary_iterative(payoff, x0)
    return d / d.sum(axis=(-2, -1), keepdims=True)


def aggregate(payoff, d):
    """y_i = sum_{j,k} q*_{j,k} A[i, j, k] with q* the adversary marginal of d (paper eq. 2)."""
    n_a, n_e = payoff.shape[-3], payoff.shape[-2]
    q_star = d.sum(axis=-2)  # (..., R)
    return np.einsum("...ir,...r->...i", payoff.reshape(payoff.shape[:-3] + (n_a, n_e * n_a)), q_star)


# ----------------------------------------------------------------------------- bootstrap


def _bootstrap_blocks(layout, options, blocks):
    """Aggregates of several RNG blocks, each computed on its own: [(start, stop, y), ...]."""
    out = []
    for start, stop, generator in blocks:
        payoff = resampled_payoffs(layout, generator, stop - start, **options)
        d = stationary(payoff, dense_limit=BATCH_DENSE_LIMIT)
        out.append((start, stop, aggregate(payoff, d)))
    return out


def bootstrap_aggregates(layout, seed_sequence, n_resamples, *, ties="le", self_payoff=0.5, identical=None,
                         n_jobs=1, progress=None):
    """Aggregate scores of ``n_resamples`` stratified resamples: (n_resamples, n_A).

    Resamples come in fixed blocks of ``RNG_BLOCK``, block b drawn from the
    b-th child of ``seed_sequence``, and each block is computed on its own, so
    the result is identical whatever ``n_jobs`` is.  With ``n_jobs`` > 1 the
    blocks are shared out among worker processes (joblib) in a few batches each.
    """
    options = {"ties": ties, "self_payoff": self_payoff, "identical": identical}
    blocks = list(chunk_generators(seed_sequence, n_resamples, RNG_BLOCK))
    out = np.empty((n_resamples, layout.n_agents))
    advance = progress or (lambda n: None)
    if n_jobs == 1:
        batches = [[block] for block in blocks]
        results = (_bootstrap_blocks(layout, options, batch) for batch in batches)
    else:
        try:
            from joblib import Parallel, delayed, effective_n_jobs
        except ImportError:  # pragma: no cover - joblib ships with the test environment
            raise OptionError("n_jobs > 1 needs the joblib package: pip install joblib, or use n_jobs=1") from None

        n_batches = min(len(blocks), 4 * effective_n_jobs(n_jobs))
        batches = [list(part) for part in np.array_split(np.arange(len(blocks)), n_batches)]
        batches = [[blocks[b] for b in part] for part in batches]
        runner = Parallel(n_jobs=n_jobs, return_as="generator")
        results = runner(delayed(_bootstrap_blocks)(layout, options, batch) for batch in batches)
    for done in results:
        for start, stop, values in done:
            out[start:stop] = values
            advance(stop - start)
    return out


def percentile_interval(samples, delta_cell):
    """Type-7 quantiles at delta'/2 and 1 - delta'/2 over resamples (spec 6.3)."""
    lo, hi = np.quantile(samples, [delta_cell / 2, 1 - delta_cell / 2], axis=0, method="linear")
    return lo, hi


# ----------------------------------------------------------------------------- PBP and PBP-t


def dkw_epsilon(size, delta_cell):
    """Massart's DKW half-width sqrt(ln(2/delta') / (2T))."""
    return np.sqrt(np.log(2.0 / delta_cell) / (2.0 * np.asarray(size, dtype=float)))


def _anderson(g_prev, g, g_next, g_top, position, size, eps, cell_start):
    """Anderson's (1969) bounds on E[g(X)] for every cell, vectorised over slots (spec 6.1(c)).

    Per slot t = 1..T of a cell (scores sorted): g_prev = g(x_{t-1}) with
    x_0 = a, g = g(x_t), g_next = g(x_{t+1}) with x_{T+1} = b; ``g_top`` is
    g(x_T) per cell.  The last axis is the slot axis.

    lower = g(x_T) - sum_{t=0}^{T-1} [g(x_{t+1}) - g(x_t)] min(t/T + eps, 1)
    upper = g(b)   - sum_{t=1}^{T}   [g(x_{t+1}) - g(x_t)] max(t/T - eps, 0)
    """
    starts = cell_start[:-1]
    low_weight = np.minimum((position - 1) / size + eps, 1.0)
    high_weight = np.maximum(position / size - eps, 0.0)
    lower = g_top - np.add.reduceat((g - g_prev) * low_weight, starts, axis=-1)
    last = cell_start[1:] - 1
    upper = g_next[..., last] - np.add.reduceat((g_next - g) * high_weight, starts, axis=-1)
    return lower, upper


def _slot_geometry(layout, delta_cell):
    sizes = np.diff(layout.cell_start)
    size = np.repeat(sizes, sizes).astype(float)
    eps = np.repeat(dkw_epsilon(sizes, delta_cell), sizes)
    return layout.slot_position().astype(float), size, eps


def _shifted(g, layout, first_value, last_value):
    """g at the previous and next slot within each cell, with the cell's end values at the edges."""
    starts, stops = layout.cell_start[:-1], layout.cell_start[1:] - 1
    prev = np.empty_like(g)
    prev[..., 1:] = g[..., :-1]
    prev[..., starts] = first_value
    nxt = np.empty_like(g)
    nxt[..., :-1] = g[..., 1:]
    nxt[..., stops] = last_value
    return prev, nxt


def _cell_task(layout):
    return np.repeat(np.arange(layout.n_tasks), layout.n_agents)


def mean_intervals(layout, low, high, delta_cell):
    """Per-cell sample means with Anderson's interval on the mean at delta' (spec Section 7).

    Returns mean, lower, upper, each (n_E, n_A).
    """
    position, size, eps = _slot_geometry(layout, delta_cell)
    task_of_cell = _cell_task(layout)
    x = layout.values
    prev, nxt = _shifted(x, layout, low[task_of_cell], high[task_of_cell])
    top = x[layout.cell_start[1:] - 1]
    lower, upper = _anderson(prev, x, nxt, top, position, size, eps, layout.cell_start)
    means = np.add.reduceat(x, layout.cell_start[:-1]) / np.diff(layout.cell_start)
    shape = (layout.n_tasks, layout.n_agents)
    return means.reshape(shape), lower.reshape(shape), upper.reshape(shape)


def _cdf_at_slots_and_ends(layout, kind, low):
    """F_{k, task}(x) at every slot (n_A, N) and at each task's lower bound a_j (n_A, n_E).

    ``kind`` is "le" (F(x)) or "lt" (F(x-)).  The bounds enclose the task's
    scores, so F_k(a_j) counts k's runs equal to a_j, which can only happen
    when a_j is the task's minimum and ``kind`` is "le".
    """
    _, z = payoff_tensor(layout, ties=kind)
    if kind == "lt":
        return z, np.zeros((layout.n_agents, layout.n_tasks))
    task_of_slot = np.repeat(np.arange(layout.n_tasks), layout.counts.sum(axis=1))
    agent_of_slot = np.repeat(np.tile(np.arange(layout.n_agents), layout.n_tasks), layout.counts.ravel())
    at_low = np.zeros((layout.n_agents, layout.n_tasks))
    np.add.at(at_low, (agent_of_slot, task_of_slot), layout.values == low[task_of_slot])
    return z, at_low / layout.counts.T


def _band(f, x, low, high, eps, sign):
    """DKW band F -/+ eps clipped to [0, 1], 0 below a and 1 from b on (spec 6.1(b))."""
    band = np.clip(f + sign * eps, 0.0, 1.0)
    band = np.where(x < low, 0.0, band)
    return np.where(x >= high, 1.0, band)


def pbp_payoff_bounds(layout, delta_cell, low, high, ties="le", self_payoff=0.5, identical=None):
    """PBP bounds (Z-, Z+) on every payoff, each (n_A, n_E, n_A) (spec 6.1(b)-(c))."""
    n_a, n_e = layout.n_agents, layout.n_tasks
    position, size, eps_slot = _slot_geometry(layout, delta_cell)
    eps_ref = dkw_epsilon(layout.counts, delta_cell)  # (n_E, n_A): band half-width of reference k on task j
    task_of_slot = np.repeat(np.arange(n_e), layout.counts.sum(axis=1))
    task_of_cell = _cell_task(layout)
    x = layout.values
    eps_k_slot = eps_ref[task_of_slot].T  # (n_A(k), N)
    bounds = []
    for sign in (-1.0, 1.0):
        # Under ties="mid" the payoff F_mid lies between F(x-) and F(x): bound below with F(x-).
        z, f_low = _cdf_at_slots_and_ends(layout, "lt" if (ties == "mid" and sign < 0) else "le", low)
        g = _band(z, x[None, :], low[task_of_slot][None, :], high[task_of_slot][None, :], eps_k_slot, sign)
        g_low = _band(f_low, low[None, :], low[None, :], high[None, :], eps_ref.T, sign)  # (k, n_E)
        prev, nxt = _shifted(g, layout, g_low[:, task_of_cell], 1.0)
        top = g[:, layout.cell_start[1:] - 1]
        lower, upper = _anderson(prev, g, nxt, top, position, size, eps_slot, layout.cell_start)
        bounds.append(lower if sign < 0 else upper)
    z_lo, z_hi = (np.clip(b, 0.0, 1.0).reshape(n_a, n_e, n_a).transpose(2, 1, 0) for b in bounds)
    # reshape: (k, cell=(j, i)) -> (k, j, i) -> (i, j, k)
    return (_fix_self_payoffs(z_lo, self_payoff, identical), _fix_self_payoffs(z_hi, self_payoff, identical))


def pbp_t_payoff_bounds(layout, delta_cell, ties="le", self_payoff=0.5, identical=None):
    """PBP-t bounds: Student-t intervals on each payoff, clipped to [0, 1] (spec 6.2).

    Z = mu -/+ sd / sqrt(T) t_{1 - delta'/2, T - 1} over z_t = F_k(x_{i,t}).
    """
    from scipy import stats
    n_a, n_e = layout.n_agents, layout.n_tasks
    _, z = payoff_tensor(layout, ties=ties)
    sizes = np.diff(layout.cell_start)
    starts = layout.cell_start[:-1]
    mean = np.add.reduceat(z, starts, axis=-1) / sizes
    resid = z - np.repeat(mean, sizes, axis=-1)
    sd = np.sqrt(np.add.reduceat(resid ** 2, starts, axis=-1) / (sizes - 1))
    half = sd / np.sqrt(sizes) * stats.t.ppf(1 - delta_cell / 2, sizes - 1)
    out = []
    for value in (mean - half, mean + half):
        value = np.clip(value, 0.0, 1.0).reshape(n_a, n_e, n_a).transpose(2, 1, 0)
        out.append(_fix_self_payoffs(value, self_payoff, identical))
    return tuple(out)


def _interval_move_bounds(lo_new, hi_new, lo_old, hi_old, eta):
    """(C-, C+) of one deviation from payoff intervals of the deviating player (paper eq. 25)."""
    better = lo_new > hi_old
    worse = lo_old > hi_new
    tie = _close(lo_new, lo_old) & _close(hi_new, hi_old)
    lower = np.where(better, eta, np.where(worse, 0.0, np.where(tie, eta / TIE_DIVISOR, 0.0)))
    upper = np.where(better, eta, np.where(worse, 0.0, np.where(tie, eta / TIE_DIVISOR, eta)))
    return lower, upper


def interval_transitions(z_lo, z_hi):
    """Lower and upper pieces ((D-, Q-, P-), (D+, Q+, P+)) of C from payoff bounds (n_A, n_E, n_A)."""
    n_a, n_e = z_lo.shape[0], z_lo.shape[1]
    eta, _, _ = game_constants(n_a, n_e)
    lo, hi = z_lo.reshape(n_a, n_e * n_a), z_hi.reshape(n_a, n_e * n_a)
    # Adversary payoffs are -Z: its interval is [-Z+, -Z-].
    q_lo, q_hi = _interval_move_bounds(-hi[:, None, :], -lo[:, None, :], -hi[:, :, None], -lo[:, :, None], eta)
    p_lo, p_hi = agent_move_bounds(z_lo, z_hi)
    q_lo[..., np.arange(q_lo.shape[-1]), np.arange(q_lo.shape[-1])] = 0.0
    q_hi[..., np.arange(q_hi.shape[-1]), np.arange(q_hi.shape[-1])] = 0.0
    d_lo = 1.0 - q_hi.sum(axis=-1) - p_hi.sum(axis=-1)
    d_hi = 1.0 - q_lo.sum(axis=-1) - p_lo.sum(axis=-1)
    return (d_lo, q_lo, p_lo), (d_hi, q_hi, p_hi)


def agent_move_bounds(z_lo, z_hi):
    """(P-, P+) of C from payoff bounds (n_A, n_E, n_A): the agent player's moves alone (no n_A R^2 adversary pieces)."""
    n_a, n_e = z_lo.shape[0], z_lo.shape[1]
    eta, _, _ = game_constants(n_a, n_e)
    lo, hi = z_lo.reshape(n_a, n_e * n_a), z_hi.reshape(n_a, n_e * n_a)
    p_lo, p_hi = _interval_move_bounds(lo.T[None, :, :], hi.T[None, :, :], lo[:, :, None], hi[:, :, None], eta)
    for p in (p_lo, p_hi):
        p[np.arange(n_a), :, np.arange(n_a)] = 0.0
    return p_lo, p_hi


def _greedy_rows(lower, upper, value):
    """Rows of C in [C-, C+] that put the free mass on the successors of highest value (Algorithm 3).

    A fractional knapsack per state: start from the lower bounds and fill the uncertain successors (and the
    self-loop) in decreasing order of ``value`` (B, n_A, R) until the row sums to one, ties in value towards the
    successors (adversary moves, agent moves, then the self-loop).  The self-loop's room D+ - D- is the whole free
    mass (the sum of the successors' rooms), so the fill takes every successor before the self-loop in full and
    gives the self-loop the rest: a successor is at its upper bound exactly when its value is at least the state's
    own.  A comparison per successor instead of a sort of every row (issue 43: the sorts were half of PBP's time on
    the Atari 100k scores).
    """
    (_, q_lo, p_lo), (_, q_hi, p_hi) = lower, upper
    q = np.where(value[:, :, None, :] >= value[..., None], q_hi, q_lo)  # (i, r) -> (i, r')
    p = np.where(np.swapaxes(value, 1, 2)[:, None] >= value[..., None], p_hi, p_lo)  # (i, r) -> (i', r)
    return 1.0 - q.sum(axis=-1) - p.sum(axis=-1), q, p


# ----------------------------------------------------------------------------- PBP with overlapping intervals


def overlap_groups(z_lo, z_hi):
    """Each agent's adversary strategies grouped by their exact payoff interval, or None where that does not suffice.

    The structured PBP solver (:class:`_GreedySystem`) needs every pair of one agent's payoff intervals to overlap
    (no adversary move is then sure: each is a tie, for equal intervals, or uncertain) and no two unequal intervals
    within the tie tolerance (which would make them a tie of the reference rule without being equal).  Returns
    group codes (n_A, R), or None when a pair is separated or near-tied (the dense solver is then used).
    """
    n_a = z_lo.shape[0]
    lo, hi = z_lo.reshape(n_a, -1), z_hi.reshape(n_a, -1)
    if (lo > hi).any() or (hi.min(axis=1) < lo.max(axis=1)).any():
        return None
    # Values within the tie tolerance come from rounding (payoffs equal in exact arithmetic): they are merged into
    # one value when each such cluster is tight (all its values pairwise close), else the dense solver is used.
    lo, hi = _merge_close(lo), _merge_close(hi)
    if lo is None or hi is None:
        return None
    order = np.lexsort((hi, lo), axis=-1)
    slo, shi = np.take_along_axis(lo, order, 1), np.take_along_axis(hi, order, 1)
    first = np.ones(lo.shape, dtype=bool)
    first[:, 1:] = (slo[:, 1:] != slo[:, :-1]) | (shi[:, 1:] != shi[:, :-1])
    group = np.empty(lo.shape, dtype=np.intp)
    np.put_along_axis(group, order, np.cumsum(first, axis=1) - 1, axis=1)
    return group


def _merge_close(values):
    """Each row's values with runs of neighbours within the tie tolerance replaced by the run's first value.

    None when a run is not tight (its extremes not within the tolerance of the smaller magnitude), where Julia's
    isapprox would not be an equivalence on the run.
    """
    order = np.argsort(values, axis=1, kind="stable")
    s = np.take_along_axis(values, order, 1)
    first = np.ones(s.shape, dtype=bool)
    first[:, 1:] = ~_close(s[:, 1:], s[:, :-1])
    start, end = _run_ends(first)
    low, high = np.take_along_axis(s, start, 1), np.take_along_axis(s, end, 1)
    if (high - low > TIE_RTOL * np.minimum(np.abs(low), np.abs(high))).any() or ((low < 0) & (high > 0)).any():
        return None
    out = np.empty_like(values)
    np.put_along_axis(out, order, low, axis=1)
    return out


def _run_ends(first):
    """First and last position of the run of equal keys that holds each position (rows of sorted keys)."""
    position = np.broadcast_to(np.arange(first.shape[1]), first.shape)
    start = np.maximum.accumulate(np.where(first, position, 0), axis=1)
    last = np.ones(first.shape, dtype=bool)
    last[:, :-1] = first[:, 1:]
    end = np.minimum.accumulate(np.where(last, position, first.shape[1])[:, ::-1], axis=1)[:, ::-1]
    return start, end


class _OverlapAdversary:
    """The adversary's greedy moves of PBP's robust game when one agent's payoff intervals all overlap.

    In block i the adversary moves from r to r' with eta / m when the two intervals are equal (same group) and,
    when they differ (the move's probability lies in [0, eta]), with eta exactly when the value w(r') >= w(r)
    (Algorithm 3's fill: the uncertain successors of value at least the state's own come before its self-loop).
    So Q x = eta (sum over w' >= w minus the same sum within r's group) + eta / m (group total minus x): cumulative
    sums over two orders, by value and by (group, value), fixed for a policy-iteration round: O(R) a product
    after an O(R log R) sort, instead of a dense R x R block.
    """

    def __init__(self, group, value, eta):
        shape = value.shape
        r = shape[-1]
        w = value.reshape(-1, r)
        g = np.broadcast_to(group, shape).reshape(-1, r)
        rows = w.shape[0]
        self.shape, self.eta, self.tie = shape, eta, eta / TIE_DIVISOR
        base = (np.arange(rows) * r)[:, None]
        stride = (np.arange(rows) * (r + 1))[:, None]
        by_value = np.argsort(-w, axis=1, kind="stable")
        ws = np.take_along_axis(w, by_value, 1)
        first = np.ones(w.shape, dtype=bool)
        first[:, 1:] = ws[:, 1:] != ws[:, :-1]
        _, end = _run_ends(first)
        self.by_value, self.value_end = (base + by_value).ravel(), (base + end).ravel()
        rank = np.empty(w.shape, dtype=np.intp)
        np.put_along_axis(rank, by_value, np.cumsum(first, axis=1) - 1, axis=1)
        self.rank = rank.reshape(shape)  # dense rank of each state's value: the adversary's policy
        # by group, then by decreasing value (ties by index): a stable sort of the value order by the small group codes
        # (radix sort), what np.lexsort((-w, g)) gives at a fraction of its time
        key = np.take_along_axis(g, by_value, 1).astype(np.int16 if g.max() < 2**15 else np.intp)
        by_group = np.take_along_axis(by_value, np.argsort(key, axis=1, kind="stable"), 1)
        wg, gg = np.take_along_axis(w, by_group, 1), np.take_along_axis(g, by_group, 1)
        new_group = np.ones(w.shape, dtype=bool)
        new_group[:, 1:] = gg[:, 1:] != gg[:, :-1]
        new_tie = new_group.copy()
        new_tie[:, 1:] |= wg[:, 1:] != wg[:, :-1]
        group_start, group_end = _run_ends(new_group)
        _, tie_end = _run_ends(new_tie)
        self.by_group = (base + by_group).ravel()
        # indices into each row's cumulative sum with a leading zero (stride r + 1)
        self.group_start = (stride + group_start).ravel()
        self.group_end = (stride + group_end + 1).ravel()
        self.tie_end = (stride + tie_end + 1).ravel()
        # Q's row sums: _product of ones, from the counts (the same floating operations on the same integers)
        row_sums = np.empty(w.size)
        row_sums[self.by_value] = self.eta * (end + 1.0).ravel()
        row_sums[self.by_group] += (self.tie * (group_end + 1.0 - group_start)
                                    - self.eta * (tie_end + 1.0 - group_start)).ravel()
        row_sums -= self.tie
        self.row_sums = row_sums.reshape(shape)

    def product(self, x):
        """Q x for x of shape (..., n_A, R).

        Computed on x minus its mean in each block, plus the mean times Q's row sums: values are about
        1 / (1 - gamma) = |S| times the rewards, and cumulative sums of them would lose the digits GMRES needs.
        """
        mean = x.mean(axis=-1, keepdims=True)
        return self._product(x - mean) + mean * self.row_sums

    def _product(self, x):
        flat = x.reshape(-1)
        rows, r = flat.size // self.shape[-1], self.shape[-1]
        out = np.empty(flat.size)
        above = np.cumsum(flat[self.by_value].reshape(rows, r), axis=1).ravel()[self.value_end]
        out[self.by_value] = self.eta * above
        summed = np.zeros((rows, r + 1))
        np.cumsum(flat[self.by_group].reshape(rows, r), axis=1, out=summed[:, 1:])
        summed = summed.ravel()
        start = summed[self.group_start]
        within = self.tie * (summed[self.group_end] - start) - self.eta * (summed[self.tie_end] - start)
        out[self.by_group] += within
        out -= self.tie * flat
        return out.reshape(x.shape)


class _ValueOrderBlocks:
    """Solves with the diagonal blocks ``I - gamma (D + Q_i)`` of the greedy rows (:class:`_GreedySystem`).

    With block i's states sorted by decreasing value w, its adversary moves (:class:`_OverlapAdversary`) are eta to
    every earlier state of another interval group and eta / m to every other member of the state's own group. So
    the block system is y_p = c_p (b_p + t S_g(p) + a X_p), with a = gamma eta, t = gamma eta / m,
    c_p = 1 / (1 - gamma D_p + t), S_g the group's total and X_p the sum of y over the earlier states of other groups:
    a recurrence over the sorted positions, linear in the unknown group totals, which a small system per row gives
    from the recurrence's response to each total (computed once a round). The members of each row's largest group
    (most of the states: wide intervals are clipped to the same [0, 1]) only read the running sum of the other
    groups' states, so the Python loop runs over the other states alone and the largest group is one cumulative sum.

    The totals that are unknowns: the largest group's and those of groups of at least ``min_size`` members (default
    R / MINOR_GROUP_SHARE, at least 2). A smaller group of several members keeps its ties to earlier members (in the
    loop) and drops those to later ones: fewer unknowns, at the price of tie moves of eta / m each. Otherwise exact,
    unless states of different groups have equal values in a row that is not wholly tied (the move then goes both
    ways and the order keeps one direction); rows whose values are all equal (the first round starts from zeros)
    are solved exactly, every group's total an unknown and the row's total another (unless that makes more than
    MAX_UNKNOWNS: then in the index order, as rows of distinct values).
    """

    def __init__(self, groups, value, diag, gamma, eta, by_value, min_size=None):
        shape = value.shape
        r = shape[-1]
        w = value.reshape(-1, r)
        rows = w.shape[0]
        self.shape, self.rows, self.r = shape, rows, r
        self.flat_order = by_value  # flat indices of each row's states by decreasing value (stable)
        g = np.broadcast_to(groups, shape).reshape(-1)[self.flat_order].reshape(rows, r)
        n_groups = int(g.max()) + 1
        size = np.bincount((np.arange(rows)[:, None] * n_groups + g).ravel(),
                           minlength=rows * n_groups).reshape(rows, n_groups)
        largest = np.argmax(size, axis=1)
        # groups whose total is an unknown: the largest, and any of at least min_size members; the other groups of
        # several members ("minor") keep their ties to earlier members only
        min_size = max(2, r // MINOR_GROUP_SHARE) if min_size is None else min_size
        tied = (w.max(axis=1) == w.min(axis=1))[:, None]
        exact = (size >= min_size) | ((np.arange(n_groups) == largest[:, None]) | tied) & (size > 1)
        if exact.sum(axis=1).max() > MAX_UNKNOWNS:
            # all-equal rows with many groups: solved in the index order like the others (their moves to later
            # states of other groups dropped), so that the unknowns stay few (at most 1 + MINOR_GROUP_SHARE)
            tied = np.zeros_like(tied)
            exact = (size >= min_size) | (np.arange(n_groups) == largest[:, None]) & (size > 1)
        n_unknown = int(exact.sum(axis=1).max())
        a, t = gamma * eta, gamma * eta / TIE_DIVISOR
        label = np.take_along_axis(np.where(exact, np.cumsum(exact, axis=1) - 1, -1), g, 1)
        shared = label >= 0
        minor = np.take_along_axis((size > 1) & ~exact, g, 1)
        d = diag.reshape(-1)[self.flat_order].reshape(rows, r)
        self.c = 1.0 / (1.0 - gamma * d + t * shared + a * (tied & ~shared))
        self.ca = np.where(tied, 0.0, a * self.c)
        self.major = g == largest[:, None]
        # the loop: positions outside each row's largest group, padded to the longest row (pads add zeros to a spare
        # slot); CA = sum of ca over the earlier members of the largest group
        outside = (~self.major).sum(axis=1)
        length = int(outside.max())
        pos = np.argsort(self.major, axis=1, kind="stable")[:, :length]
        valid = np.arange(length)[None, :] < outside[:, None]
        self.loop_at = (np.arange(rows)[:, None] * r + np.where(valid, pos, 0)).T.copy()  # (length, rows)
        self.loop_valid = valid.T.copy()
        self.major_float = self.major.astype(float)
        self.ca_major = self.ca * self.major_float
        before = (np.cumsum(self.ca_major, axis=1) - self.ca_major).reshape(-1)[self.loop_at] * self.loop_valid
        ca_n = self.ca.reshape(-1)[self.loop_at] * self.loop_valid
        # the earlier members of the state's own group: -ca (not successors), plus the ties of a minor group
        own = minor * self.c * np.where(tied, t - a, t)
        self.loop_e, self.loop_f, self.loop_before = ca_n * (1.0 + before), ca_n, before
        self.loop_own = own.reshape(-1)[self.loop_at] * self.loop_valid - ca_n
        slot = np.where(valid, np.take_along_axis(g, pos, 1), n_groups)
        self.loop_index = (np.arange(rows)[:, None] * (n_groups + 1) + slot).T.copy()
        self.n_slots = rows * (n_groups + 1)
        # unknowns: the totals of the exact groups, then (with tied rows) the row's total
        unknowns = n_unknown + int(tied.any())
        member = np.ones((rows, unknowns, r))
        member[:, :n_unknown] = label[:, None, :] == np.arange(n_unknown)[:, None]
        coef = np.empty((unknowns, rows, r))
        coef[:n_unknown] = np.moveaxis(member[:, :n_unknown], 1, 0) * (self.c * np.where(tied, t - a, t))
        coef[n_unknown:] = self.c * np.where(tied, a, 0.0)
        self.member = member  # (rows, K, R)
        self.response = np.ascontiguousarray(np.moveaxis(self._recurrence(coef), 0, 1))  # (rows, K, R)
        totals = np.matmul(member, np.swapaxes(self.response, 1, 2))
        self.total_solve = np.linalg.inv(np.eye(unknowns) - totals)

    def _recurrence(self, cb):
        """y_p = cb_p + ca_p X_p over the sorted positions, for cb of shape (E, rows, R): E systems at once."""
        n_sys = cb.shape[0]
        flat = cb.reshape(n_sys, -1)
        # the earlier members of the largest group, summed: at a position outside it, the inclusive sum is that
        cb_major = cb * self.major_float
        cb_before = np.cumsum(cb_major, axis=-1).reshape(n_sys, -1)
        start = flat[:, self.loop_at] + self.loop_f * cb_before[:, self.loop_at]
        start *= self.loop_valid
        # the loop on flat (E * rows) vectors: a few microseconds a numpy call, whatever E
        start = np.swapaxes(start, 0, 1).reshape(-1, n_sys * self.rows)
        index = (self.loop_index[:, None, :] + (np.arange(n_sys) * self.n_slots)[:, None]).reshape(start.shape)
        e, f, before, own = (np.tile(v, n_sys) for v in (self.loop_e, self.loop_f, self.loop_before, self.loop_own))
        running, weighted, group = np.zeros(start.shape[1]), np.zeros(start.shape[1]), np.zeros(n_sys * self.n_slots)
        for n in range(start.shape[0]):
            held = group[index[n]]
            y = start[n]
            y += e[n] * running - f[n] * weighted + own[n] * held
            running += y
            weighted += before[n] * y
            group[index[n]] = held + y
        out = np.zeros((n_sys, self.rows * self.r))
        out[:, self.loop_at[self.loop_valid]] = np.swapaxes(start.reshape(-1, n_sys, self.rows), 0, 1)[:, self.loop_valid]
        out = out.reshape(cb.shape)
        # members of the largest group: the earlier states of the other groups (inclusive = exclusive there)
        out += cb_major
        out += self.ca_major * np.cumsum(out - cb_major, axis=-1)
        return out

    def apply(self, x):
        """Solve (I - gamma (D + Q_i)) y = x for every block of x (..., n_A, R)."""
        b = x.reshape(-1)[self.flat_order].reshape(self.rows, self.r)
        y = self._recurrence((self.c * b)[None])[0]
        totals = np.matmul(self.total_solve, np.matmul(self.member, y[:, :, None]))
        y += np.matmul(np.swapaxes(totals, 1, 2), self.response)[:, 0]
        out = np.empty(y.size)
        out[self.flat_order] = y.ravel()
        return out.reshape(self.shape)


class _GreedySystem:
    """``I - gamma C`` for the greedy rows (Algorithm 3) of values ``value`` (B, n_A, R), without dense blocks.

    Only for payoff intervals that :func:`overlap_groups` accepts.  The agent player's moves are kept dense
    (n_A successors a state); the adversary's are :class:`_OverlapAdversary`.  Preconditioned by exact solves of the
    adversary's blocks (:class:`_ValueOrderBlocks`; measured at 10 x 100 x 10: 5-14 GMRES steps a round instead of
    the self-loops' (Jacobi) 13-52).
    """

    def __init__(self, overlap, value, gamma):
        self.overlap, self.value, self.gamma = overlap, value, gamma
        n_a, r = value.shape[-2], value.shape[-1]
        eta, _, _ = game_constants(n_a, r // n_a)
        self.adversary = _OverlapAdversary(overlap.groups, value, eta)
        # the agent player's n_A moves a state, dense: by sorts and cumulative sums over each column's agents (as the
        # adversary's) they measured slower at 10-40 agents and no faster at 64 (rounds s37-pbp and s38-pbp)
        move = np.swapaxes(value, -1, -2)[:, None, :, :] >= value[..., None]  # (B, i, r, i'): w(i', r) >= w(i, r)
        self.p = np.where(move, overlap.p_hi, overlap.p_lo)
        self.agent_policy, agent_sums = move, self.p.sum(axis=-1)
        self.diag = 1.0 - self.adversary.row_sums - agent_sums
        self.eta = eta

    @cached_property
    def blocks(self):
        """The preconditioner's block solves (built on first use: value iteration's steps need only products)."""
        return _ValueOrderBlocks(self.overlap.groups, self.value, self.diag, self.gamma, self.eta,
                                 self.adversary.by_value)

    def transition(self, x):
        """C x for x of shape (B, n_A, R)."""
        return self.diag * x + self.adversary.product(x) + self.agent_moves(x)

    def agent_moves(self, u):
        """P u: the agent player's moves of the greedy rows, for u of shape (B, n_A, R)."""
        return np.einsum("...irj,...jr->...ir", self.p, u)

    def matvec(self, x):
        # Rows of C sum to one, so (I - gamma C) c = (1 - gamma) c for a constant c: the product is taken of x minus
        # its mean, whose entries are much smaller than the values' (about |S| times the rewards), so that GMRES
        # can reach its tolerance.
        mean = x.mean(axis=(-2, -1), keepdims=True)
        u = x - mean
        moved = self.transition(u)
        return (1.0 - self.gamma) * mean + (u - self.gamma * moved)

    def precondition(self, x):
        return self.blocks.apply(x)

    def subset(self, rows):
        return _GreedySystem(self.overlap, self.value[rows], self.gamma)

    def dense_solve(self, rhs):
        lower, upper = interval_transitions(self.overlap.z_lo, self.overlap.z_hi)
        return _solve_dense(*_greedy_rows(lower, upper, self.value), self.gamma, rhs, False)


@dataclass(frozen=True)
class Overlap:
    """What the structured PBP solver needs of the payoff bounds: :func:`overlap_groups` and the agent moves."""

    z_lo: np.ndarray
    z_hi: np.ndarray
    groups: np.ndarray
    p_lo: np.ndarray
    p_hi: np.ndarray


def overlap_of(z_lo, z_hi):
    """The :class:`Overlap` of payoff bounds, or None where :func:`overlap_groups` refuses them."""
    groups = overlap_groups(z_lo, z_hi)
    if groups is None:
        return None
    return Overlap(z_lo, z_hi, groups, *agent_move_bounds(z_lo, z_hi))


def robust_values(lower, upper, reward, gamma, *, dense_limit=DENSE_LIMIT, overlap=None, start=None):
    """max over C in [C-, C+] of (1 - gamma) mean((I - gamma C)^{-1} R) by policy iteration (Algorithm 2).

    Parameters
    ----------
    lower, upper : tuple of (D, Q, P)
        Entrywise bounds on C.
    reward : ndarray, shape (B, R)
        One reward per adversary strategy r for each of B problems; the reward
        of state (i', r) is reward[r] whatever i'.
        Unused (None) when ``overlap`` is given.
    overlap : Overlap, optional
        :func:`overlap_of` the payoff intervals: each round's greedy rows are then held by
        :class:`_GreedySystem` (sorts and cumulative sums) instead of dense blocks.
    start : ndarray, shape (B, n_A, R), optional
        Values the first round's rows are greedy for (default: with ``overlap``, START_STEPS steps of value
        iteration from the rewards, :func:`_start_values`; otherwise zeros, the reference's). Any start gives the
        same optimum.

    Returns
    -------
    value : ndarray, shape (B,)
    iterations : ndarray of int, shape (B,)
    """
    batch, r = reward.shape
    n_a = (lower[0] if overlap is None else overlap.p_lo).shape[0]
    rhs_all = np.broadcast_to(reward[:, None, :], (batch, n_a, r))
    if start is None and overlap is not None:
        v = _start_values(rhs_all, gamma, lambda value, x: _GreedySystem(overlap, value, gamma).transition(x))
    else:
        # the dense solvers start from zeros, as the reference: their GMRES (GMRES_RTOL) left 1.5e-11 relative on
        # a lower bound of 0.0023 after the fewer rounds from value iteration's start (8 agents x 2 tasks)
        v = np.zeros((batch, n_a, r)) if start is None else np.array(np.broadcast_to(start, (batch, n_a, r)),
                                                                         dtype=float)
    iterations = np.zeros(batch, dtype=int)
    active = np.arange(batch)
    if overlap is None:
        # the rows of the active problems' last round (the lower bounds before the first): compared with the new
        # rows, not copied into a batch-sized store (issue 43: those copies were 1 s of 6 on the Atari 100k scores)
        current = lower
    else:
        # the policy of a round: the dense rank of every state's value within its block (which adversary moves
        # are taken) and the agent player's moves; the first round is compared with the lower bounds
        rank = np.full((batch, n_a, r), -1)
        moves = None
        uncertain = (overlap.groups.max(axis=1) > 0).any() or (overlap.p_hi > overlap.p_lo).any()
    for it in range(1, PI_MAX_ITER + 1):
        v_old = v[active]
        if overlap is None:
            rows = _greedy_rows(lower, upper, v_old)
            changed = np.zeros(active.size, dtype=bool)
            for piece, new in zip(current, rows):
                diff = (new - piece).reshape(active.size, -1)
                changed |= np.maximum(diff.max(axis=1), -diff.min(axis=1)) >= PI_CHANGE
            current = rows
            v_new = solve(*rows, gamma, rhs_all[active], x0=v_old, dense_limit=dense_limit)
        else:
            system = _GreedySystem(overlap, v_old, gamma)
            if it == 1:
                changed = np.full(active.size, uncertain)
            else:
                changed = ((system.adversary.rank != rank[active]).reshape(active.size, -1).any(axis=1)
                           | (system.agent_policy != moves[active]).reshape(active.size, -1).any(axis=1))
            if moves is None:
                moves = np.empty((batch,) + system.agent_policy.shape[1:], dtype=system.agent_policy.dtype)
            rank[active], moves[active] = system.adversary.rank, system.agent_policy
            # values are about |S| times the rewards, so rounding alone leaves residuals of about eps |S|
            rtol = max(GREEDY_RTOL, float(np.finfo(float).eps) * n_a * r)
            v_new = _gmres(system, np.ascontiguousarray(rhs_all[active]), v_old, rtol, GREEDY_RESTARTS)
        v[active] = v_new
        iterations[active] = it
        step = np.abs(v_new - v_old).reshape(active.size, -1).max(axis=1)
        finished = (2 * gamma * step < PI_TOL) | ~changed
        active = active[~finished]
        if overlap is None and finished.any():
            current = tuple(piece[~finished] for piece in current)
        if active.size == 0:
            break
    return (1.0 - gamma) * v.reshape(batch, -1).mean(axis=1), iterations


def _start_values(rhs, gamma, transition):
    """Values for policy iteration's first round: START_STEPS steps of value iteration from the rewards.

    The reference starts from zeros, where every value ties and the first round takes every uncertain move; each
    step v <- R + gamma C v, with C greedy for v (``transition(v, x)`` = C x), looks one move further, and the rows
    greedy for the result are close to the optimum's (issue 43, round s37-pbp: at 10 x 20 x 10, 211 rounds over
    the 20 problems from the rewards alone, 78 after 4 steps, 270 from zeros). Only the order of the values
    within rows and columns chooses rows: the steps run on the values about the rewards' mean m (the constant part
    only adds gamma times itself a step), and the start adds m / (1 - gamma), the values' constant part, from which
    GMRES starts.
    """
    mean = rhs.mean(axis=(1, 2), keepdims=True)
    v = rhs - mean
    for _ in range(START_STEPS):
        v = rhs - mean + gamma * transition(v, v)
    return v + mean / (1.0 - gamma)


def propagate_bounds(z_lo, z_hi, *, dense_limit=DENSE_LIMIT, structured=True):
    """Aggregate bounds (Y-, Y+) for every agent from payoff bounds (spec 6.1(d)-(e)).

    Y+_i maximises the aggregate with rewards Z+_i and Y-_i minimises it with
    Z-_i (as the maximum with rewards -Z-_i); Y- is taken as minus that value,
    not its absolute value (spec P7).  Games above ``dense_limit`` joint strategies whose payoff intervals
    :func:`overlap_groups` accepts are solved without dense blocks (:class:`_GreedySystem`); ``structured=False``
    keeps the dense blocks (the reference the structured solver is tested against).
    """
    n_a, n_e = z_lo.shape[0], z_lo.shape[1]
    _, gamma, n_states = game_constants(n_a, n_e)
    rewards = np.concatenate([z_hi.reshape(n_a, -1), -z_lo.reshape(n_a, -1)], axis=0)
    r = n_e * n_a
    overlap = overlap_of(z_lo, z_hi) if structured and n_states > dense_limit else None
    # the dense pieces hold n_A R^2 numbers each: only the dense solver builds them
    lower, upper = interval_transitions(z_lo, z_hi) if overlap is None else ((None,) * 3, (None,) * 3)
    # Each problem needs a few arrays of n_A R (R + n_A + 1) numbers (dense blocks) or n_A R (n_A + GMRES basis)
    # (structured): solve them in memory-bounded groups (every problem is computed on its own, so the grouping
    # does not change the result).
    width = r + n_a + 1 if overlap is None else 2 * n_a + GMRES_MAX_ITER + 8
    per_group = max(1, PBP_MEMORY_BUDGET // (n_a * r * width))
    values, iterations = np.empty(2 * n_a), np.empty(2 * n_a, dtype=int)
    for start in range(0, 2 * n_a, per_group):
        part = slice(start, min(start + per_group, 2 * n_a))
        values[part], iterations[part] = robust_values(lower, upper, rewards[part], gamma, dense_limit=dense_limit,
                                                       overlap=overlap)
    return -values[n_a:], values[:n_a], iterations


# ----------------------------------------------------------------------------- ranks


# Values closer than this (relative to max(scale, |value|)) are tied: the game's linear solves leave agents with
# identical scores 1e-16 apart, which must not rank them.  ``scale`` is 1 for the aggregate percentiles (in [0, 1])
# and the width of the task's bounds for per-task means (measured from its lower bound), so that a task's ties do not
# depend on the score's units or on a shift.
TIE_TOLERANCE = 1e-10


def above(a, b, scale=1.0):
    """a > b by more than the tie tolerance relative to max(scale, |a|, |b|), elementwise with broadcasting."""
    scale = np.maximum(scale, np.maximum(np.abs(a), np.abs(b)))
    return a > b + TIE_TOLERANCE * scale


def separated_pairs(low, high):
    """The (i, k) with agent i's interval above agent k's (i's lower bound above k's upper bound), and the number of
    pairs whose intervals are both known (not NaN): what the prose and PBP's note on wide intervals count."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    known = ~(np.isnan(low) | np.isnan(high))
    n = int(known.sum())
    with np.errstate(invalid="ignore"):
        beats = above(low[:, None], high[None, :]) & known[:, None] & known[None, :]
    np.fill_diagonal(beats, False)
    return [(int(i), int(k)) for i, k in np.argwhere(beats)], n * (n - 1) // 2


def competition_rank(estimate, scale=1.0):
    """1 + number of agents with a larger estimate ("min" ranking, spec 5.5): tied agents share the best rank.

    Estimates within the tie tolerance (relative to ``scale``) are tied, as R's ``rank(-x, ties.method = "min")``
    on exact ties.
    """
    estimate = np.asarray(estimate, dtype=float)
    return 1 + above(estimate[None, :], estimate[:, None], scale).sum(axis=1)


def rank_range(low, high, scale=1.0, unknown=None):
    """(best, worst) competition ranks consistent with simultaneous intervals (k = i excluded).

    An agent marked ``unknown`` (its interval withheld) may be anywhere: it is surely better or worse than no
    other agent, and possibly better than each.

    best_i = 1 + #{k != i: low_k > high_i} (agents surely better);  worst_i = 1 + #{k != i: high_k > low_i}
    (agents possibly better).  Comparisons are strict beyond the tie tolerance, so every rank of the
    "min" convention consistent with the intervals lies in [best_i, worst_i], and agents whose intervals
    are one tied point share one rank.  Spec 5.5 (the published code) counts low_k >= high_i and
    low_i > high_k instead, which puts identical zero-width intervals at best = worst = n.
    """
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    n = low.size
    off = ~np.eye(n, dtype=bool)
    unknown = np.zeros(n, dtype=bool) if unknown is None else np.asarray(unknown, dtype=bool)
    with np.errstate(invalid="ignore"):
        surely = above(low[None, :], high[:, None], scale) & ~unknown[None, :] & ~unknown[:, None]
        possibly = above(high[None, :], low[:, None], scale) | unknown[None, :] | unknown[:, None]
    best = 1 + (surely & off).sum(axis=1)
    worst = 1 + (possibly & off).sum(axis=1)
    return best, worst
