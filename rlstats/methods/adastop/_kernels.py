"""Array kernels of AdaStop: permutation paths, spending, boundaries and the step-down.

Everything here works on integer agent codes and float arrays; labels, data
validation and results live in :mod:`rlstats.methods.adastop`.

The test follows Mathieu et al. (2023), Algorithm 3 and Eqs. 8-12, as the
project specification (``specs/adastop.md`` §4.8) states it:

* A comparison ``j = (a, b)`` at interim ``i`` sees the block ``z`` of ``2n``
  scores (``n`` of ``a`` first, then ``n`` of ``b``).  An *assignment* picks
  the ``n`` slots that count for the first agent; its block difference is
  ``d = sum(chosen) - sum(others) = 2 * chosen @ z - sum(z)``.
* A *path* is a sequence of assignments, one per interim, shared by every
  comparison (one permutation per path, Lemma 2 of the paper).  Its signed
  cumulative sum is ``S_k = S_{k-1} + d_k`` and the statistic is ``|S_k|``.
  Path 0 is the identity at every interim, so the observed statistic is that
  path's value, computed with the very same arithmetic (no float mismatch).
* Paths are stored level by level with a ``parent`` pointer into the previous
  level, which is all the per-subset conditioning (Eq. 11) needs.
* That slot choice is the paper's (``joint=False``).  With three agents or
  more it is not a permutation of the data, and the family-wise error can
  exceed alpha.  ``joint=True`` (``permutations="joint"``) makes each
  path's block one relabelling of the pooled ``L n`` runs of the running
  agents, and every comparison reads its difference from it: a permutation of
  the data, with random paths only (no exact tree), exact when every agent's
  runs are exchangeable under the null; identical agents beside agents of
  another spread can exceed alpha (the ``adastop.fwe_spread`` rows of the
  calibration table).  ``holm=True`` (audit s29; the public API's default
  since audit s29b) keeps the paper's paths
  but tests each comparison on its own column at ``alpha / c`` with ``c``
  undecided (Holm's step-down, :meth:`SequentialTest._holm_step_down`):
  exact under any partial null.  All are the same test for two agents.

Exact enumeration versus sampling
---------------------------------
``m_k = min(n_resamples, C(2n, n)**k / 2)`` (the paper's choice of
permutations).  Because the statistic is an absolute value and the same
assignment is applied to every comparison, flipping every block of a path
gives the same ``|S|`` for every comparison; so the exact tree needs only the
half of first-block assignments that keep slot 0 with the first agent, and
then all ``C(2n, n)`` assignments at each later interim.  We enumerate
*exactly at every interim where the half-tree fits* in ``n_resamples``
(for ``n = 5`` the first interim, 126 paths; for ``n = 3`` the first three),
so early decisions carry no Monte Carlo noise.  At the first interim where it
does not fit, ``n_resamples - 1`` random paths are drawn, each a uniformly
chosen exact path of the previous interim extended by a uniform random
assignment (which is a uniform draw over all paths up to the global flip), and
from then on every path is extended by one fresh uniform assignment.  Path 0
stays the identity.  All random choices depend on the interim's own
generator, never on the data.

Spending
--------
Linear spending ``alpha * k / K`` rounded down to the permutation grid: the
number of paths allowed over the boundary at interim ``k`` is
``r_k = floor((alpha * k / K - Q_{k-1}) * m_k)`` and ``Q_k = Q_{k-1} + r_k / m_k``.
When ``m_k`` is a multiple of every earlier ``m_i`` (the exact tree) this is the
paper's ``Q_k = floor(alpha * k / K * m_k) / m_k``; after the switch to
sampling it keeps ``Q_k <= alpha * k / K`` exactly.  The denominator is always
``m_k``, including the paths removed by conditioning (a sub-distribution,
never renormalised).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from ...statistics import monte_carlo_pvalue, order_statistic_ranks, order_statistic_se, tie_tolerance

#: decision codes of a comparison
CONTINUE, LARGER, SMALLER, EQUAL = 0, 1, 2, 3
DECISION_NAMES = ("continue", "larger", "smaller", "equal")

# Slack when flooring a level times a path count: alpha * k / K * m is often an
# integer in exact arithmetic (0.01 * 10_000) and must not lose one to rounding.
_FLOOR_SLACK = 1e-9


#: a batch whose sorted runs each lie within this fraction of the range of both batches' runs of an earlier batch's
#: is "nearly identical" to it (the same runs rounded or re-exported): a warning, not a refusal
NEAR_REPEAT = 1e-3


def same_runs(first, second, within=0.0):
    """Whether two batches of one agent's runs are the same in any order: sorted, every pair closer than ``within``
    times the range of both batches' runs plus :func:`rlstats.statistics.tie_tolerance` of it (``within=0``: equal
    up to the rounding of their representation). Unchanged by a map ``a * y + b`` of the scores (a != 0), as the
    test is: a tolerance relative to the scores (rtol 1e-3) made runs 0.5 and 0.6 "identical" once shifted by 1e4.

    >>> same_runs([10000.5, 10002.0], [10000.6, 10002.0]), same_runs([0.5, 2.0], [0.5001, 2.0], NEAR_REPEAT)
    (False, True)
    """
    first, second = np.sort(np.asarray(first, dtype=float)), np.sort(np.asarray(second, dtype=float))
    if first.shape != second.shape:
        return False
    if not first.size:
        return True
    both = np.concatenate([first, second])
    spread = float(np.ptp(both))
    bound = within * spread + float(tie_tolerance(spread, np.abs(both).max()))
    return bool((np.abs(first - second) <= bound).all())


def repeated_batches(batches):
    """``(k, earlier)`` (0-based) for every batch whose runs equal an earlier batch's (:func:`same_runs`: up to
    rounding), in any order.

    ``batches`` are one agent's batches of runs (1-d arrays).  Only scores that look continuous count: the batch's
    runs are all different and share no value with the agent's other earlier batches.  Scores on a grid (successes
    out of 10, every run at a cap) tie within and across batches, and there an equal batch can be chance, not a
    copied file.
    """
    rows = [np.sort(np.asarray(runs, dtype=float)) + 0.0 for runs in batches]  # + 0.0: -0.0 is 0.0
    out = []
    for k, values in enumerate(rows):
        if values.size < 2 or np.unique(values).size < values.size:
            continue
        same = [i for i in range(k) if same_runs(rows[i], values)]
        others = [rows[i] for i in range(k) if i not in same]
        if same and not any(np.isin(values, other).any() for other in others):
            out.append((k, same[0]))
    return out


# ---------------------------------------------------------------------------
# Assignments of one block
# ---------------------------------------------------------------------------

@lru_cache(maxsize=16)
def block_assignments(n):
    """All ``C(2n, n)`` choices of the first agent's ``n`` slots in a block of ``2n``.

    Returns a read-only float64 array ``(C(2n, n), 2n)`` of 0/1 in
    lexicographic order of the chosen slots: row 0 is the identity (slots
    ``0..n-1``), and the first half of the rows are those that keep slot 0,
    one of each complementary pair.
    """
    combos = np.array(list(itertools.combinations(range(2 * n), n)), dtype=np.intp)
    masks = np.zeros((len(combos), 2 * n))
    np.put_along_axis(masks, combos, 1.0, axis=1)
    masks.setflags(write=False)
    return masks


#: Up to this many assignments per block, random paths pick rows of a table of all block
#: differences (one gather per path); above it each path draws its own slots.
TABLE_LIMIT = 50_000

# C(2n, n) is only ever compared with path counts and TABLE_LIMIT, all far below C(128, 64) ~ 2.4e37, so
# beyond n = 64 that number stands in for it: math.comb(2n, n) itself takes 0.7 s at n = 10**5 and 40 s
# at n = 10**6 (a permutation test's n is the runs per agent of the data).
_COUNT_CAP_N = 64


@lru_cache(maxsize=64)
def assignment_count(n):
    """``C(2n, n)``, the assignments of one block of ``2n`` slots; ``C(128, 64) + 1`` for every ``n > 64``.

    >>> assignment_count(5), assignment_count(10**6) == assignment_count(65)
    (252, True)
    """
    m = min(n, _COUNT_CAP_N)
    return math.comb(2 * m, m) if n == m else math.comb(2 * m, m) + 1


def memory_estimate(n, max_interims, n_resamples, n_pairs, n_agents, *, joint, tests=1):
    """Bytes an AdaStop run of ``tests`` tests asks for, from its sizes alone (an upper estimate).

    Each test stores, per interim, the cumulative sums of its ``m_k <= n_resamples`` paths for every
    comparison and a parent index; one interim adds its temporaries: the relabelled pooled block
    (labels, cell indices and weights of ``n_agents * n`` slots per path) with ``joint``, else the
    slots drawn per path, their gathered scores per comparison, the difference table of up to
    ``TABLE_LIMIT`` assignments, or the exact tree's masks (at most ``2 n_resamples`` rows of ``2n``).

    >>> memory_estimate(5, 6, 10_000, 3, 3, joint=True) < 2**23
    True
    """
    stored = tests * max_interims * n_resamples * (n_pairs + 1)
    if joint:
        interim = n_resamples * (3 * n_agents * n + n_agents + 2 * n_pairs)
    else:
        table = min(assignment_count(n), TABLE_LIMIT) * n_pairs
        interim = n_resamples * (max(2 * n + n * n_pairs, 4 * n) + 2 * n_pairs) + table
    return 8 * (stored + interim)


def random_slots(gen, size, n):
    """``size`` uniform random choices of ``n`` slots among ``2n`` as slot indices; row 0 is the identity.

    Each row is the first half of an independent uniform shuffle of ``0..2n-1``.
    """
    slots = np.tile(np.arange(2 * n), (size, 1))
    gen.permuted(slots, axis=1, out=slots)
    chosen = slots[:, :n]
    chosen[0] = np.arange(n)
    return chosen


# ---------------------------------------------------------------------------
# Path counts and spending
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Schedule:
    """Path counts and spendable counts per interim (all data independent).

    Attributes
    ----------
    n, max_interims, n_resamples : int
    alpha, beta : float
    n_paths : tuple of int
        ``m_k`` for k = 1..K.
    exact : tuple of bool
        Whether interim k enumerates every path (else ``m_k`` random paths).
    reject_counts, accept_counts : tuple of int
        ``r_k``: how many of the ``m_k`` paths may lie beyond the rejection
        (early-accept) boundary at interim k.
    """

    n: int
    max_interims: int
    n_resamples: int
    alpha: float
    beta: float
    n_paths: tuple
    exact: tuple
    reject_counts: tuple
    accept_counts: tuple

    @property
    def assignments(self):
        """``C(2n, n)``, the number of assignments of one block (capped: see :func:`assignment_count`)."""
        return assignment_count(self.n)

    @property
    def reject_level(self):
        """Cumulative level spent by the rejection boundary after each interim, ``Q_k``."""
        return _cumulative(self.reject_counts, self.n_paths)

    @property
    def accept_level(self):
        """Cumulative level spent by the early-accept boundary after each interim."""
        return _cumulative(self.accept_counts, self.n_paths)


def _cumulative(counts, n_paths):
    return tuple(float(q) for q in itertools.accumulate(Fraction(r, m) for r, m in zip(counts, n_paths)))


def path_counts(n, max_interims, n_resamples, enumerate_paths=True):
    """``(m_k, exact_k)`` for k = 1..K: the half exact tree while it fits, then ``n_resamples`` paths."""
    per_block = assignment_count(n)
    counts, exact = [], []
    tree = Fraction(per_block, 2)
    fits = enumerate_paths
    for _ in range(max_interims):
        fits = fits and tree <= n_resamples
        counts.append(int(tree) if fits else n_resamples)
        exact.append(fits)
        if fits:  # once the tree is too large it stays so: never grow a number of K * log C(2n, n) digits
            tree *= per_block
    return tuple(counts), tuple(exact)


def spending_counts(level, max_interims, n_paths):
    """``r_k``: linear spending ``level * k / K`` rounded down to the grid of each interim."""
    spent = Fraction(0)
    counts = []
    for k, m in enumerate(n_paths, start=1):
        allowed = level * k / max_interims * m - float(spent * m)
        r = max(0, math.floor(allowed + _FLOOR_SLACK))
        counts.append(r)
        spent += Fraction(r, m)
    return tuple(counts)


def make_schedule(n, max_interims, n_resamples, alpha, beta=0.0, enumerate_paths=True):
    """The :class:`Schedule` of a test with these options (``enumerate_paths=False``: random paths only)."""
    n_paths, exact = path_counts(n, max_interims, n_resamples, enumerate_paths)
    return Schedule(n=n, max_interims=max_interims, n_resamples=n_resamples, alpha=alpha, beta=beta,
                    n_paths=n_paths, exact=exact,
                    reject_counts=spending_counts(alpha, max_interims, n_paths),
                    accept_counts=spending_counts(beta, max_interims, n_paths) if beta > 0
                    else (0,) * max_interims)


def spendable_level(schedule, n_comparisons=1, interims=None):
    """The level a test's first step can spend over every interim: the schedule's alpha rounded to its grids, or
    with Holm's step-down (``n_comparisons`` = J > 1) alpha / J rounded to them.  0: no comparison can ever be
    rejected (audit s29: alpha / 3 spends nothing at n = 4, K = 1, where alpha spends 1 of the 35 classes).
    ``n_comparisons`` = c, Holm's comparisons not yet rejected: what each of them spends; ``interims``: over the
    first ones only (all by default), what it has spent by then (audit s30: the result re-derived it)."""
    return float(_spendable(schedule, n_comparisons, interims))


def family_level(schedule, n_comparisons):
    """Bonferroni's sum of Holm's first step: the ``n_comparisons`` = J comparisons' levels at alpha / J over every
    interim, summed (J times :func:`spendable_level`, exactly), the family-wise bound the step spends at most."""
    return float(n_comparisons * _spendable(schedule, n_comparisons))


def _spendable(schedule, n_comparisons=1, interims=None):
    """:func:`spendable_level` as the exact Fraction sum of its grids' levels."""
    counts = (schedule.reject_counts if n_comparisons == 1 else
              spending_counts(schedule.alpha / n_comparisons, schedule.max_interims, schedule.n_paths))
    upto = schedule.max_interims if interims is None else interims
    return sum((Fraction(r, m) for r, m in zip(counts[:upto], schedule.n_paths[:upto])), Fraction(0))


def separated_rejection(schedule, n_comparisons=1):
    """A lower bound on the chance, over the random paths, that a test of ``schedule`` rejects a perfectly separated
    data set (one whose observed arrangement is the most extreme, as every run of one agent above every run of the
    other far apart makes it): 1 where an interim that spends some level (alpha / ``n_comparisons`` on Holm's first
    step) enumerates its paths, 0 where none spends any.

    At interim k the paths that reach the observed |S_k| are its arrangement and its mirror at every block: 1 of the
    T_k = C(2n, n)**k / 2 classes of the half tree. Each of the m_k - 1 random paths is one of them with chance
    p_k = 1 / T_k, independently, so the count X_k of random paths tied with the observed one is Binomial(m_k - 1, p_k);
    with r_k paths allowed beyond the boundary the test rejects there when X_k < r_k (a tie is not beyond). It
    rejects at some interim with at least the largest of these chances.  Joint relabelling ties the observed pair
    less often (2 agents: as often): the bound holds for it too (review s31: 20 paths at n = 4, K = 1, the fewest
    that spend, have 0.58 and rejected 12 of 20 seeds' separated data)."""
    counts = (schedule.reject_counts if n_comparisons == 1 else
              spending_counts(schedule.alpha / n_comparisons, schedule.max_interims, schedule.n_paths))
    best, log_classes = 0.0, math.log(schedule.assignments)
    for k, (r, m, exact) in enumerate(zip(counts, schedule.n_paths, schedule.exact), start=1):
        if r == 0:
            continue
        if exact:
            return 1.0
        tie = math.exp(math.log(2) - k * log_classes)  # 1 / T_k, 0.0 once T_k passes the float range
        best = max(best, binomial_cdf(r - 1, m - 1, tie))
    return best


def binomial_cdf(k, n, p):
    """P(X <= ``k``) for X ~ Binomial(``n``, ``p``), summed over the shorter tail in logs: scipy's ``binom.cdf``
    without importing scipy, which ``adastop update`` must not load (tests/test_startup.py) now that every schedule
    that spends is asked its chance of rejecting separated runs (audit s32 left32)."""
    if k < 0:
        return 0.0
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    lower = k < n * p  # the tail left of the mean is the shorter sum there
    if not lower and _upper_tail_negligible(k + 1, n, p):
        return 1.0  # what the sum below gives, bit for bit, without its n - k terms
    x = np.arange(0, k + 1) if lower else np.arange(k + 1, n + 1)
    # log C(n, x) from the first x's by the ratios C(n, x) / C(n, x - 1) = (n - x + 1) / x
    first = int(x[0])
    steps = np.log((n - x[1:] + 1.0) / x[1:])
    log_choose = (math.lgamma(n + 1) - math.lgamma(first + 1) - math.lgamma(n - first + 1)
                  + np.concatenate(([0.0], np.cumsum(steps))))
    log_terms = log_choose + x * math.log(p) + (n - x) * math.log1p(-p)
    tail = float(np.exp(log_terms).sum())
    return min(1.0, tail) if lower else max(0.0, 1.0 - tail)


#: The log of an upper tail whose float sum, to within any rounding of the terms (their logs' errors are under 0.1
#: at n = 10**7), is below half the spacing of floats under 1 (2**-54): 1.0 minus it is 1.0 exactly.
_NEGLIGIBLE_LOG = math.log(2.0 ** -54) - 20.0


def _upper_tail_negligible(first, n, p):
    """Whether P(X >= ``first``), X ~ Binomial(``n``, ``p``) with ``first`` above the mean, is too small to move 1.0:
    the terms from ``first`` on fall by ratios (n - x) / (x + 1) * p / (1 - p), largest at ``first``, so the tail is at
    most its first term over 1 - that ratio. :func:`least_resamples`' bound at 10,000,000 paths summed 10**7 terms
    of such a tail three times (4.5 s of CPU to refuse a state that cannot reject: audit s27 cli27's test)."""
    ratio = (n - first) / (first + 1) * p / (1.0 - p)
    if ratio >= 1.0:
        return False
    log_first = (math.lgamma(n + 1) - math.lgamma(first + 1) - math.lgamma(n - first + 1) + first * math.log(p)
                 + (n - first) * math.log1p(-p))
    return log_first - math.log1p(-ratio) < _NEGLIGIBLE_LOG


# ---------------------------------------------------------------------------
# Order statistics of the surviving paths
# ---------------------------------------------------------------------------

def upper_boundary(values, alive, r):
    """Rejection boundary: the (r+1)-th largest surviving value, 0 when at most r survive.

    At most ``r`` surviving paths lie strictly above it (Eq. 10 with the
    ``1/m_k`` denominator: ``r = floor(q_k * m_k)``).
    """
    v = values if alive is None else values[alive]
    if v.size <= r:
        return 0.0
    position = v.size - r - 1
    return float(np.partition(v, position)[position])


def lower_boundary(values, alive, r):
    """Early-accept boundary: the (r+1)-th smallest surviving value.

    With ``r = 0`` (no level to spend, e.g. ``beta = 0``) it is 0, so nothing
    is accepted early and no path is removed; when at most ``r`` paths
    survive it is infinite (Eq. 20's supremum).
    """
    if r == 0:
        return 0.0
    v = values if alive is None else values[alive]
    if v.size <= r:
        return math.inf
    return float(np.partition(v, r)[r])


def boundary_se(values, alive, r, upper=True):
    """Monte Carlo standard error of :func:`upper_boundary` (or :func:`lower_boundary`) over random paths.

    The boundary is an order statistic of the ``m`` path values, the paths removed by conditioning set below
    every survivor (above, for the lower boundary), which is where the ``1/m`` sub-distribution puts them: the
    (r+1)-th largest (smallest) of all ``m``.  Its error is the binomial order-statistic one
    (:func:`rlstats.statistics.order_statistic_se`): the ranks wander by ``sqrt(m p (1 - p))`` paths, times the
    local slope of the values.  0 where the rule, not an order statistic, sets the boundary (no level to spend,
    or at most ``r`` paths left); NaN where the slope would reach a removed path of the lower boundary.
    """
    m = values.size
    survivors = m if alive is None else int(np.count_nonzero(alive))
    if m < 2 or survivors <= r or (not upper and r == 0):
        return 0.0
    full = np.array(values, dtype=np.float64)
    if alive is not None:
        full[~alive] = 0.0 if upper else math.inf  # |S| >= 0: a removed path sits at the upper boundary's floor
    position = m - r - 1 if upper else r
    level = position / (m - 1)
    _, lo, hi, _ = order_statistic_ranks(m, level)
    # the two order statistics it reads put in place by one partition (a sort of every path at every interim was a
    # sixth of AdaStop's CPU; audit s40 suite40cal)
    se = float(order_statistic_se(np.partition(full, (int(lo), int(hi))), level))
    return se if math.isfinite(se) else math.nan


# ---------------------------------------------------------------------------
# One AdaStop run on one task
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class _Level:
    parent: np.ndarray   # (m_k,) index into the previous level's paths
    sums: np.ndarray     # (m_k, J) signed cumulative sums; columns of decided comparisons are 0
    # path statistics closer than this are ties: the sum over the interims so far of statistics.tie_tolerance of
    # (the runs fed x their range, their summed |score|), bounds on how far near-tied scores and the rounding of sums
    # taken in another order move S (tied scores make paths tie with the observed sum exactly); a shift of the scores
    # leaves every S as it was and moves this by its rounding term alone (1e-12 of the summed |score| grew with the
    # shift and tied 0.05 with float32's 0.0500000007 at 1e4: audit s20 ties20b)
    tolerance: float = 0.0


class SequentialTest:
    """The state of one AdaStop test: stored paths, decisions and the step-down trace.

    Parameters
    ----------
    pairs : array_like of int, shape (J, 2)
        Agent codes ``(a, b)`` of each comparison; "larger" means ``a`` has the
        larger mean.
    schedule : Schedule
    joint : bool
        False (the paper): a path assigns, at each interim, one choice of
        ``n`` slots among ``2n`` and every comparison applies it to its own
        pooled pair.  True: a path relabels the pooled block of every agent
        still running (one random assignment of the ``L n`` scores to the
        ``L`` agents) and every comparison reads its difference from that one
        relabelling; needs a schedule of random paths.  Both coincide for two
        agents.
    places : array_like of int, optional
        Each agent code's place in the order the random paths lay the agents out in (the caller passes their
        names' places among the names sorted, so that the codes' order draws nothing different); None: the
        codes' own order.
    flip : array_like of bool, optional
        Comparisons whose slot choices (``joint=False``) are applied to the pooled pair ``(b, a)`` and their
        differences negated: the same paths as the comparison ``(b, a)`` would see, reported as ``(a, b)``.
        None: none.

    Notes
    -----
    :meth:`run_interim` computes everything into locals before it changes the
    state, so an exception leaves the object as it was.
    """

    def __init__(self, pairs, schedule, joint=False, places=None, flip=None, holm=False):
        self.pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
        self.holm = bool(holm)
        self.places = None if places is None else np.asarray(places, dtype=np.intp)
        self.flip = np.zeros(len(self.pairs), dtype=bool) if flip is None else np.asarray(flip, dtype=bool)
        self.schedule = schedule
        self.joint = bool(joint)
        if self.joint and any(schedule.exact):
            raise ValueError("joint relabelling uses random paths only: build the schedule with "
                             "enumerate_paths=False")
        if self.joint and self.holm:
            raise ValueError("the Holm step-down reads each comparison's own slot choices: joint=False")
        n_comparisons = len(self.pairs)
        self.levels = []
        self.decision = np.full(n_comparisons, CONTINUE, dtype=np.int8)
        self.decided_at = np.zeros(n_comparisons, dtype=np.intp)
        self.steps = []      # one dict per step-down iteration
        self.history = []    # one dict per (interim, comparison tested)
        self._cache = {}
        self._shares = {}    # Holm: the spending counts of alpha / c and beta / c, by c

    # ---- state ----------------------------------------------------------------
    @property
    def interim(self):
        """Number of interims run so far."""
        return len(self.levels)

    @property
    def undecided(self):
        return np.flatnonzero(self.decision == CONTINUE)

    @property
    def done(self):
        return self.undecided.size == 0

    @property
    def first_step_level(self):
        """The level the step-down's first step can spend over every interim: the schedule's alpha rounded to its
        grids, or with Holm alpha / J for each of the J comparisons.  0: no comparison can ever be rejected (audit
        s29: Holm's alpha / 28 spends nothing of the 126 classes of 8 agents' pairs at n = 5 with one interim, where
        alpha spends 6)."""
        return spendable_level(self.schedule, self.first_divisor)

    @property
    def first_divisor(self):
        """What the first step divides alpha by: Holm's J, the comparisons tested, or 1 (the other schemes)."""
        return len(self.pairs) if self.holm else 1

    @property
    def not_rejected(self):
        """Holm's c now: the comparisons not yet rejected (one accepted as equal keeps its share)."""
        return len(self.pairs) - int(np.count_nonzero((self.decision == LARGER) | (self.decision == SMALLER)))

    def active_agents(self):
        """Codes of the agents that appear in an undecided comparison (to be run next)."""
        return np.unique(self.pairs[self.undecided])

    # ---- one interim ------------------------------------------------------------
    def run_interim(self, block, gen):
        """Add interim k = interim + 1 and run its step-down decisions.

        Parameters
        ----------
        block : ndarray, shape (n_agents, n)
            The new scores of each agent; only rows of active agents are read.
        gen : numpy.random.Generator
            This interim's own generator (used only when it samples paths).

        Returns
        -------
        list of int
            Comparisons decided at this interim, in order.
        """
        k = self.interim + 1
        if k > self.schedule.max_interims:
            raise RuntimeError("the test has already used every interim")
        if self.done:
            raise RuntimeError("every comparison is already decided")
        level = self._new_level(block, gen, k)
        fed = block[self.active_agents()]
        level = _Level(level.parent, level.sums, (self.levels[-1].tolerance if self.levels else 0.0)
                       + float(tie_tolerance(fed.size * np.ptp(fed), np.abs(fed).sum())))
        self.levels.append(level)
        return self._step_down(k)

    def _new_level(self, block, gen, k):
        sched = self.schedule
        cols = self.undecided
        previous = self.levels[-1].sums if self.levels else np.zeros((1, len(self.pairs)))
        m_previous = previous.shape[0]
        sums = np.zeros((sched.n_paths[k - 1], len(self.pairs)))
        if sched.exact[k - 1]:
            masks = block_assignments(sched.n)
            if k == 1:
                masks = masks[: len(masks) // 2]  # one of each complementary pair
            d = self._pair_differences(masks, block, cols)
            parent = np.repeat(np.arange(m_previous), len(masks))
            sums[:, cols] = (previous[:, None, cols] + d[None, :, :]).reshape(-1, len(cols))
            return _Level(parent=parent, sums=sums)
        first_sampled = k == 1 or sched.exact[k - 2]
        if first_sampled:
            parent = gen.integers(0, m_previous, size=sched.n_paths[k - 1])
            parent[0] = 0
            carried = previous[np.ix_(parent, cols)]
        else:
            parent = np.arange(m_previous)
            carried = previous[:, cols]
        if self.joint:
            d = self._joint_differences(gen, block, cols, sched.n_paths[k - 1])
        else:
            d = self._random_pair_differences(gen, block, cols, sched.n_paths[k - 1])
        sums[:, cols] = carried + d
        return _Level(parent=parent, sums=sums)

    def _pooled(self, block, cols):
        """The pooled pairs ``(2n, |cols|)`` the slot choices act on (a flipped comparison's second agent first),
        and the flipped columns."""
        pairs, flip = self.pairs[cols], self.flip[cols]
        first, second = np.where(flip, pairs[:, 1], pairs[:, 0]), np.where(flip, pairs[:, 0], pairs[:, 1])
        return np.concatenate([block[first], block[second]], axis=1).T, flip

    def _pair_differences(self, masks, block, cols):
        """Block differences ``(paths, |cols|)`` when each path's slot choice is applied to every pair."""
        z, flip = self._pooled(block, cols)
        d = 2.0 * (masks @ z) - z.sum(axis=0)
        d[:, flip] = -d[:, flip]  # exact: the differences of (a, b) on the paths of (b, a)
        return d

    def _random_pair_differences(self, gen, block, cols, size):
        """Block differences of ``size`` uniform random slot choices, row 0 the identity.

        A uniform choice is a uniform row of the table of all ``C(2n, n)``
        choices, so small blocks gather from that table (the identity is its
        row 0, computed with the same arithmetic); large blocks sum the
        chosen slots directly.
        """
        n = self.schedule.n
        if self.schedule.assignments <= TABLE_LIMIT:
            table = self._pair_differences(block_assignments(n), block, cols)
            pick = gen.integers(0, len(table), size=size)
            pick[0] = 0
            return table[pick]
        z, flip = self._pooled(block, cols)
        chosen = random_slots(gen, size, n)
        d = 2.0 * z[chosen].sum(axis=1) - z.sum(axis=0)
        d[:, flip] = -d[:, flip]
        return d

    def _joint_differences(self, gen, block, cols, size):
        """Block differences ``(paths, |cols|)`` when each path relabels the pooled block of all running agents."""
        pairs = self.pairs[cols]
        agents, local = np.unique(pairs, return_inverse=True)
        if self.places is not None:  # the agents laid out in their places' order
            order = np.argsort(self.places[agents], kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            agents, local = agents[order], rank[local]
        local = local.reshape(pairs.shape)
        n_agents, n = len(agents), self.schedule.n
        pooled = block[agents].ravel()
        labels = np.repeat(np.arange(n_agents), n)
        relabelled = gen.permuted(np.broadcast_to(labels, (size, labels.size)), axis=1)
        relabelled[0] = labels  # the identity, summed with the same arithmetic as every other path
        cells = (np.arange(size)[:, None] * n_agents + relabelled).ravel()
        agent_sums = np.bincount(cells, weights=np.tile(pooled, size), minlength=size * n_agents)
        agent_sums = agent_sums.reshape(size, n_agents)
        return agent_sums[:, local[:, 0]] - agent_sums[:, local[:, 1]]

    # ---- boundaries ----------------------------------------------------------------
    def boundaries(self, comparisons, k):
        """Rejection and early-accept boundaries of the set ``comparisons`` at interim ``k``.

        The earlier boundaries of the same set are recomputed on the stored
        paths (Eq. 11 per subset) and cached.
        """
        reject, accept, _, _ = self._level(tuple(int(c) for c in comparisons), k)
        return reject, accept

    def boundary_errors(self, comparisons, k):
        """Monte Carlo standard errors of :meth:`boundaries` (0 at an interim whose paths are all enumerated).

        A random path is an independent draw (the identity excepted), so the boundary of a random interim is an
        order statistic of ``m_k`` independent paths (:func:`boundary_se`), with the same set's survival mask as
        :meth:`boundaries`.  Computed with the boundaries, once, and cached with them.
        """
        return self._level(tuple(int(c) for c in comparisons), k, errors=True)[3]

    def _counts(self, share):
        """``(reject_counts, accept_counts)`` of the schedule's alpha and beta divided by ``share`` (1: the
        schedule's own; the Holm step-down's level of one comparison among ``share`` undecided ones)."""
        if share == 1:
            return self.schedule.reject_counts, self.schedule.accept_counts
        if share not in self._shares:
            sched = self.schedule
            self._shares[share] = (spending_counts(sched.alpha / share, sched.max_interims, sched.n_paths),
                                   spending_counts(sched.beta / share, sched.max_interims, sched.n_paths)
                                   if sched.beta > 0 else (0,) * sched.max_interims)
        return self._shares[share]

    def _level(self, key, i, errors=False, share=1):
        """``(reject, accept, survive, errors)`` of the set ``key`` at interim ``i``, spending the level divided
        by ``share``; ``errors`` (the boundaries' Monte Carlo SEs) is None unless asked for, as only the interim a
        decision is taken at needs them."""
        cached = self._cache.get((key, i, share))
        if cached is not None and (cached[3] is not None or not errors):
            return cached
        level = self.levels[i - 1]
        reject_counts, accept_counts = self._counts(share)
        alive = None if i == 1 else self._level(key, i - 1, share=share)[2][level.parent]
        stat = np.abs(level.sums[:, list(key)])
        high = stat.max(axis=1)
        reject = upper_boundary(high, alive, reject_counts[i - 1])
        survive = high <= reject + level.tolerance
        accept_count = accept_counts[i - 1]
        accept = 0.0
        low = None
        if accept_count:
            low = stat.min(axis=1)
            accept = lower_boundary(low, alive, accept_count)
            survive &= low >= accept - level.tolerance
        if alive is not None:
            survive &= alive
        found = None
        if errors:
            found = (0.0, 0.0)
            if not self.schedule.exact[i - 1]:
                found = (boundary_se(high, alive, reject_counts[i - 1], upper=True),
                         0.0 if low is None else boundary_se(low, alive, accept_count, upper=False))
        out = (reject, accept, survive, found)
        self._cache[(key, i, share)] = out
        return out

    # ---- step-down -------------------------------------------------------------------
    def _step_down_start(self):
        """What both step-downs start an interim from: the observed statistics, their absolute values, the tie
        tolerance and the comparisons still undecided (a new list)."""
        observed = self.levels[-1].sums[0]
        return observed, np.abs(observed), self.levels[-1].tolerance, [int(j) for j in self.undecided]

    def _step_down(self, k):
        if self.holm:
            return self._holm_step_down(k)
        observed, absolute, tolerance, current = self._step_down_start()
        faced, decided, step = {}, [], 0
        while current:
            step += 1
            reject, accept, _, (reject_se, accept_se) = self._level(tuple(current), k, errors=True)
            stats = absolute[current]
            high, low = current[int(np.argmax(stats))], current[int(np.argmin(stats))]
            record = {"interim": k, "step": step, "n_comparisons": len(current), "alpha_divisor": 1,
                      "boundary": reject,
                      "boundary_mc_se": reject_se, "accept_boundary": accept, "accept_boundary_mc_se": accept_se,
                      "max_statistic": float(absolute[high]), "min_statistic": float(absolute[low]),
                      "action": "none", "comparison": -1}
            for j in current:
                faced[j] = (reject, accept, reject_se, accept_se)
            if absolute[high] > reject + tolerance:  # beyond every tie of the boundary
                chosen, code, action = high, LARGER if observed[high] > 0 else SMALLER, "reject"
            elif absolute[low] < accept - tolerance:
                chosen, code, action = low, EQUAL, "accept"
            else:
                self.steps.append(record)
                break
            record.update(action=action, comparison=chosen)
            self.steps.append(record)
            self.decision[chosen] = code
            self.decided_at[chosen] = k
            decided.append(chosen)
            current.remove(chosen)
        return self._close_interim(k, current, faced, decided)

    def _holm_step_down(self, k):
        """Holm's step-down over each comparison's own sequential test: with ``c`` comparisons not yet rejected, each
        undecided one is tested at ``alpha / c`` (and ``beta / c``) spent linearly, its boundaries the order statistics of its own
        column of paths (conditioned on its own earlier ones at that level).  A column is an exact permutation
        distribution of the pair's runs whatever the other agents' spreads, and Bonferroni's sum needs no model of
        how the comparisons depend: the family-wise error is at most alpha under any partial null.  The first
        comparison decided is the one furthest beyond its boundary (as a ratio)."""
        observed, absolute, tolerance, current = self._step_down_start()
        faced, decided, step = {}, [], 0
        while current:
            step += 1
            # Holm's c: the comparisons not yet rejected; one accepted as equal keeps its share (audit s29: c
            # counted the undecided only, so beta > 0 tested at alpha / 2 after an early accept among 3)
            share = self.not_rejected
            bounds = {j: self._level((j,), k, errors=True, share=share) for j in current}
            for j in current:
                reject, accept, _, (reject_se, accept_se) = bounds[j]
                faced[j] = (reject, accept, reject_se, accept_se)
            beyond = [j for j in current if absolute[j] > bounds[j][0] + tolerance]
            below = [j for j in current if absolute[j] < bounds[j][1] - tolerance]
            # the set tested is the undecided comparisons (as the other schemes' steps count it); Holm's c, which
            # also counts those accepted as equal, divides alpha (audit s30: n_comparisons held c)
            record = {"interim": k, "step": step, "n_comparisons": len(current), "alpha_divisor": share,
                      "boundary": math.nan,
                      "boundary_mc_se": math.nan, "accept_boundary": math.nan, "accept_boundary_mc_se": math.nan,
                      "max_statistic": float(absolute[current].max()), "min_statistic": float(absolute[current].min()),
                      "action": "none", "comparison": -1}
            if beyond:  # the largest ratio first (a zero boundary: every survivor may lie beyond it)
                chosen = max(beyond, key=lambda j: (absolute[j] / bounds[j][0] if bounds[j][0] > 0 else math.inf))
                code, action = (LARGER if observed[chosen] > 0 else SMALLER), "reject"
            elif below:
                chosen = min(below, key=lambda j: absolute[j] / bounds[j][1])
                code, action = EQUAL, "accept"
            else:
                self.steps.append(record)
                break
            reject, accept, _, (reject_se, accept_se) = bounds[chosen]
            record.update(action=action, comparison=chosen, boundary=reject, boundary_mc_se=reject_se,
                          accept_boundary=accept, accept_boundary_mc_se=accept_se)
            self.steps.append(record)
            self.decision[chosen] = code
            self.decided_at[chosen] = k
            decided.append(chosen)
            current.remove(chosen)
        return self._close_interim(k, current, faced, decided)

    def _close_interim(self, k, current, faced, decided):
        """Accept what is left at the last interim, record each comparison's last boundaries faced, and return the
        comparisons decided at interim ``k``."""
        observed = self.levels[-1].sums[0]
        if k == self.schedule.max_interims:
            for j in current:
                self.decision[j] = EQUAL
                self.decided_at[j] = k
                decided.append(j)
        for j, (reject, accept, reject_se, accept_se) in sorted(faced.items()):
            self.history.append({"interim": k, "comparison": j, "sum": float(observed[j]),
                                 "statistic": float(abs(observed[j])), "boundary": reject,
                                 "boundary_mc_se": reject_se, "accept_boundary": accept,
                                 "accept_boundary_mc_se": accept_se, "decision": int(self.decision[j])})
        self._forget_decided()
        return decided

    def _forget_decided(self):
        """Drop cached survival masks of sets that can no longer occur (they contain decided comparisons)."""
        still = set(int(j) for j in self.undecided)
        self._cache = {key: value for key, value in self._cache.items() if set(key[0]) <= still}


def stepdown_pvalues(test, smallest=0.0):
    """Step-down adjusted p-values of a one-interim test (Westfall and Young's max-|T| method).

    Comparisons are taken in decreasing order of their observed statistic
    (ties in index order, as the step-down takes them); the p-value of the
    t-th is the largest, over steps s <= t, of the share of the ``m_1`` paths
    whose maximum over the comparisons left at step s reaches the observed
    value of step s.  Path 0 (the identity) counts, so a p-value is never
    below ``1 / m_1``, and ``p <= alpha`` exactly when the boundary rule rejects.  A path within the level's
    tolerance of the observed value ties with it and counts as reaching it.  Random paths (not the exact tree) give
    Monte Carlo p-values, ``(1 + hits) / (B + 1)`` over the B paths beside the identity, floored at ``smallest``,
    the exact test's smallest attainable p-value (:func:`rlstats.statistics.monte_carlo_pvalue`; audit s21: 0.056
    of 2,000 joint relabellings of 3 agents x 2 runs, whose least is 1/15), so a floored p-value above alpha can
    sit beside a rejection that the paths drew by chance; the exact tree's shares are exact and not floored.
    """
    stat = np.abs(test.levels[0].sums)
    observed, tolerance = stat[0], test.levels[0].tolerance
    m = test.schedule.n_paths[0]
    if test.holm:  # each comparison's own share of paths, then Holm's c * p (c left) with its running maximum
        own = np.count_nonzero(stat >= observed - tolerance, axis=0) / m
        if not test.schedule.exact[0]:
            own = monte_carlo_pvalue(np.rint(own * m) - 1, m - 1, smallest)
        order = np.argsort(own, kind="stable")
        pvalues = np.empty(observed.size)
        pvalues[order] = np.minimum(1.0, np.maximum.accumulate(own[order] * np.arange(observed.size, 0, -1)))
        return pvalues
    order = np.argsort(-observed, kind="stable")
    pvalues = np.empty(observed.size)
    running = 0.0
    for t, j in enumerate(order):
        count = np.count_nonzero(stat[:, order[t:]].max(axis=1) >= observed[j] - tolerance)
        running = max(running, count / m)
        pvalues[j] = running
    if test.schedule.exact[0]:
        return pvalues
    return monte_carlo_pvalue(np.rint(pvalues * m) - 1, m - 1, smallest)
