"""Small statistics shared by several back ends.

Mid-ranks (scores of one block closer than :func:`tie_tolerance` of the block's range and largest absolute
score tie: :func:`near_ties`, the one home of that rule), the probability of improvement P(X > Y) + P(X = Y) / 2
from them,
the Monte Carlo p-value ``(1 + hits) / (B + 1)`` and its standard error, the relabellings of two agents' runs
within tasks that an exact permutation null enumerates (:func:`relabellings`), the Monte Carlo standard error of
a resampled quantile (:func:`order_statistic_se`),
Holm, Bonferroni, Hochberg, Hommel, Benjamini-Hochberg and Benjamini-Yekutieli
adjustments (R's ``p.adjust``), the Wilson interval of a proportion, the floor of a resample's
standard error in bootstrap-t intervals and bands (:func:`floored_standard_errors`), the
Welch-Satterthwaite degrees of freedom of a sum of independent variances (:func:`welch_satterthwaite_df`), the
Cornish-Fisher term of a studentised mean (:func:`cornish_fisher_shift`), the skewness of a mean of task means
(:func:`skewness_of_means`), the Welch t floor of a bootstrap-t interval of a mean (:func:`welch_floor`) and the
runs' skewness and excess kurtosis per group from unbiased k-statistics (:func:`shape_ratios`,
:func:`grouped_shape_ratios`), and the runs of a cell that repeat others' scores where chance would not, or that
repeat the scores of runs on another task (:func:`copied_runs`, read by :func:`rlstats.design.copied_runs_note`).
The tails the default rank test prints (normal, chi-squared with whole
degrees of freedom, the studentized range with infinite degrees of freedom)
are computed here from ``math.erfc``, so that ``rlstats compare`` does not
pay for importing scipy.stats (most of the command's start-up time); the
studentized range with finite degrees of freedom (the mixed model's Tukey
contrasts) is here too, its one home.
Arrays in, arrays out; no pandas, no option checking (callers validate).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

_erfc = np.frompyfunc(math.erfc, 1, 1)

#: Two scores of one block (task) closer than this times the block's range (largest minus smallest score), plus
#: ``TIE_ULPS`` rounding units of its largest ``|score|``, are tied in every rank (:func:`tie_tolerance`). Double
#: precision resolves 2.2e-16 relative; a score summed or averaged over many terms (an episode's return, a normalised
#: mean) carries round-off far below 1e-12 of the differences an RL comparison can mean, so the rule ties floating-point
#: noise (0 and -7e-15 beside scores of size 1; 714.6 and 714.6000000000001) and nothing else. The range, not the
#: largest ``|score|``, sets it so that the ties, and so every rank, are the same whatever the score's units: an affine
#: map a * y + b (a > 0) of a block scales its range by a and keeps its order, whereas 1e-12 of the largest ``|score|``
#: grew with a shift (Atari 100k's Boxing + 1e4 joined 0.05 and float32's 0.0500000007, and the rank test's statistic
#: moved by 7e-6 of itself; audit s20).  A block whose every score is at noise level around 0 has no range to judge
#: noise by and keeps its exact values.
TIE_TOLERANCE = 1e-12

#: Rounding units (machine epsilons, 2.2e-16 each) of a block's largest ``|score|`` that also tie
#: (:func:`tie_tolerance`): the rounding of the scores' representation, which the range cannot see when it is as
#: small as that rounding (0.1 + 0.2 and 0.3 alone in a block; the runs of a task equal but for the order of their
#: sums), and which the map a * y + b adds (half an ulp of each product and of each result, so values an ulp apart
#: may be three apart after it).  4 eps is 4 to 8 ulps: a pair that close was not told apart by its arithmetic.  The
#: limit: after a shift by b, pairs closer than 4 eps |b| (8.9e-12 at b = 1e4) tie, as they would not unshifted.
TIE_ULPS = 4


def tie_tolerance(spread: ArrayLike, magnitude: ArrayLike) -> NDArray[np.float64]:
    """The distance below which two scores of a block tie: ``TIE_TOLERANCE`` times the block's ``spread`` (range,
    largest minus smallest score) plus ``TIE_ULPS`` machine epsilons of its ``magnitude`` (largest ``|score|``);
    elementwise.

    >>> float(tie_tolerance(2.0, 1.0)) == 2e-12 + 4 * 2.0 ** -52
    True
    """
    return (TIE_TOLERANCE * np.asarray(spread, dtype=np.float64)
            + TIE_ULPS * np.finfo(np.float64).eps * np.asarray(magnitude, dtype=np.float64))


def block_tolerances(y: ArrayLike, block: ArrayLike, n_blocks: int | None = None) -> NDArray[np.float64]:
    """Each block's :func:`tie_tolerance` from its finite scores' range and largest ``|score|`` (0 for a block without
    any), shape ``(n_blocks,)`` (default: the largest code + 1).

    >>> block_tolerances([1.0, 3.0, -5.0], [0, 0, 1]).tolist() == [2e-12 + 12 * 2.0 ** -52, 20 * 2.0 ** -52]
    True
    """
    return tie_tolerance(*spread_and_magnitude(*block_ranges(y, block, n_blocks)))


def spread_and_magnitude(low: ArrayLike, high: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(spread, magnitude) of scores lying in [``low``, ``high``] (:func:`block_ranges`): ``high - low`` and the
    larger ``|bound|``, what :func:`tie_tolerance` and :func:`difference_tolerance` read; 0 and 0 where there is no
    finite score (``low > high``); elementwise.

    >>> [v.tolist() for v in spread_and_magnitude([-5.0, np.inf], [3.0, -np.inf])]
    [[8.0, 0.0], [5.0, 0.0]]
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    some = high >= low
    return (np.where(some, high - low, 0.0),
            np.where(some, np.maximum(np.abs(np.where(some, low, 0.0)), np.abs(np.where(some, high, 0.0))), 0.0))


def block_ranges(y: ArrayLike, block: ArrayLike,
                 n_blocks: int | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each block's smallest and largest finite score, in one pass (inf and -inf for a block without any), shape
    ``(n_blocks,)`` each (default: the largest code + 1).

    >>> [a.tolist() for a in block_ranges([1.0, 3.0, -5.0, np.nan], [0, 0, 1, 2])]
    [[1.0, -5.0, inf], [3.0, -5.0, -inf]]
    """
    y = np.asarray(y, dtype=np.float64)
    block = np.asarray(block, dtype=np.intp)
    n = (int(block.max()) + 1 if block.size else 0) if n_blocks is None else n_blocks
    finite = np.isfinite(y)
    low, high = np.full(n, np.inf), np.full(n, -np.inf)
    np.minimum.at(low, block[finite], y[finite])
    np.maximum.at(high, block[finite], y[finite])
    return low, high


#: the fewest scores :func:`block_value_order` lays out as a grid: lexsort itself is as fast below (1,000 scores in
#: 10 blocks, 0.17 ms either way; 100 scores, 8 us against 0.1 ms), the same permutation
_GRID_LEAST = 2048


def block_value_order(values: ArrayLike, block: ArrayLike) -> NDArray[np.intp]:
    """``np.lexsort((values, block))``, the same permutation, in time linear in the number of blocks.

    A global sort of N scores costs N log N, and its indirect passes leave the caches once N is large (the blocked
    rank test's time grew 15x for 10x the tasks). Here the rows are grouped by block with a stable radix sort of
    16-bit codes, laid out as a (blocks, largest block) grid (the spare cells NaN, or the largest integer, after
    every real value) and sorted along each row, stably: the ties keep their rows' order and NaN goes last, as in
    lexsort. Fewer than ``_GRID_LEAST`` scores, many blocks (more than 65,535), very unequal blocks or other dtypes
    fall back to lexsort.

    Examples
    --------
    >>> block_value_order([3.0, 1.0, 2.0, 0.5, 1.0], [1, 1, 0, 0, 1]).tolist()
    [3, 2, 1, 4, 0]
    """
    values, block = np.asarray(values), np.asarray(block)
    n = values.size
    if n == 0 or n < _GRID_LEAST or values.dtype.kind not in "fiu" or block.dtype.kind not in "iu" \
            or int(block.min()) < 0 \
            or int(block.max()) > 65_534:
        return np.lexsort((values, block))
    counts = np.bincount(block)
    m = int(counts.max())
    if counts.size * m > 2 * n + 4096:  # very unequal blocks: the grid would be mostly padding
        return np.lexsort((values, block))
    by_block = np.argsort(block.astype(np.uint16), kind="stable")  # radix sort: each block's rows in their order
    row = np.repeat(np.arange(counts.size), counts)
    column = np.arange(n) - np.repeat(np.cumsum(counts) - counts, counts)
    pad = np.nan if values.dtype.kind == "f" else np.iinfo(values.dtype).max
    grid = np.full((counts.size, m), pad, dtype=values.dtype)
    grid[row, column] = values[by_block]
    rows = np.full((counts.size, m), -1, dtype=np.intp)
    rows[row, column] = by_block
    order = np.take_along_axis(rows, np.argsort(grid, axis=1, kind="stable"), axis=1).ravel()
    return order[order >= 0]


#: The relative precision to which :func:`_decimal_exponents` reads a score: twice float32's machine epsilon, so that
#: a score stored as float32 (284.79998779296875 is 284.8) or rescaled by a power of ten keeps its decimal digits, and
#: no score is read to more than 8 significant digits (which errs towards chance repeats: never a false alarm).
READ_PRECISION = 2.0 ** -22

#: The chance, at most, of any exact repeat of scores within a cell for :func:`copied_runs` to read its repeats as
#: copied runs: below it a repeat is improbable as a coincidence of runs at the scores' resolution.  It is an
#: allowance per family of checks, each sharing it among its own tests: the cells holding two runs or more (within
#: cells), the pairs of such cells of different blocks, the pairs of blocks (judged jointly over their agents) and
#: the pairs of cells of one block (two agents on one task); so a false note anywhere in honest data is at most
#: about four times as likely, one family's at most this.
COPY_CHANCE = 1e-3

#: Where a cell's ties expected by chance, ``E``, exceed :data:`COPY_CHANCE`, its repeats count only if their chance
#: stays below the share at ``E`` with its part read from the decimal step and spread alone taken this many times: a
#: resolution read that much too fine (scores normalised before the call, whose grid is not found, tie far more
#: often than their decimal step says) raises no note, and a file read twice (every run repeated: 2 decimals x 10
#: runs a cell, 1,000 runs a cell at full precision) is still found.  The ties measured on the data (across a task's
#: cells, near misses) are not multiplied (s27: a whole cell copied holding one near pair, ``E = 1.0`` from it, was
#: missed; ``tests/reference/copied_runs_false_alarms.py``: no more notes on honest data).
RESOLUTION_MARGIN = 100.0

#: The fewest runs of a cell repeating others' scores that :func:`copied_runs` counts: a block of copied runs, not one
#: coincidence (a single row repeated whole, run id and all, is :func:`rlstats.design.build`'s error already).  A score
#: held by k > 2 runs counts where more than this many scores are held by k runs each (a block read k times), not
#: a cap and a floor that as many runs reach.
BLOCK_RUNS = 2

def _decimal_exponents(values):
    """The power of ten of each value's decimal step, as floats holding integers (inf for 0): a value of ``s``
    significant digits whose leading digit is at ``10**e`` lies on the grid of step ``10**(e - s + 1)``, read to
    :data:`READ_PRECISION` (a value's resolution: unchanged by a power of ten applied to the values, but for the power
    itself, and by their float32 storage); exact whatever numpy computes ``10.0 ** -k`` as (numpy 1.24's 10.0 ** -1
    is 0.09999999999999999).

    >>> _decimal_exponents([284.8, 284.79998779296875, 500.0, 0.0, 3040.01220703125]).tolist()
    [-1.0, -1.0, 2.0, inf, -3.0]
    """
    x = np.abs(np.asarray(values, dtype=float))
    out = np.full(x.shape, np.inf)
    nonzero = x > 0
    x = x[nonzero]
    lead = np.floor(np.log10(x))
    exponent = lead - 7  # 8 significant digits always read x to READ_PRECISION
    found = np.zeros(x.shape, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        for digits in range(1, 8):
            e = lead - digits + 1
            power = 10.0 ** np.abs(e)  # exact to 10**22
            rounded = np.where(e >= 0, np.round(x / power) * power, np.round(x * power) / power)
            fits = ~found & (np.abs(rounded - x) <= READ_PRECISION * x)
            exponent[fits], found = e[fits], found | fits
    out[nonzero] = exponent
    return out


def _power_of_ten(exponent):
    exponent = np.asarray(exponent, dtype=float)
    with np.errstate(divide="ignore", over="ignore"):
        return np.where(exponent >= 0, 10.0 ** np.abs(exponent), 1.0 / 10.0 ** np.abs(exponent))


#: A common step of a cell's differences counts as its scores' grid (:func:`_grid_steps`) when it is at least this many
#: times the noise the scores are read to (:data:`READ_PRECISION` of their largest magnitude): ``n`` continuous scores
#: lie within 4 noise units of such a grid with probability about ``(8 / 16)**(n - 2)`` (and the grid found then only
#: makes the chance of a repeat larger, so that fewer repeats count).
GRID_NOISE = 16.0


def _segment_rows(begin, size):
    """The rows ``begin[i]``, ..., ``begin[i] + size[i] - 1`` of every segment, one after another."""
    return np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size) + np.repeat(begin, size)


#: The chance at most with which the differences of continuous scores at a decimal step ``q`` lie within 2 steps of
#: a grid :func:`_grid_steps` reads to that step (all but one of ``k`` differences: ``(5 q / g)**(k - 1)``); a grid
#: found by chance only makes a copy harder to see (a resolution read too coarse), so this bounds the copies lost.
GRID_CHANCE = 1e-3


def _grid_steps(v, first, last, q=None):
    """The step of a grid on which every value of each segment ``v[first[i]:last[i] + 1]`` of sorted scores lies, to
    :data:`READ_PRECISION` of the segment's largest magnitude (the smallest difference or a tenth of it at most, fitted
    over the segment's range), or 0 where there is none at least :data:`GRID_NOISE` times that precision (continuous
    scores); vectorised over the segments (a loop over the 10 divisors of the smallest difference, none over segments).
    Given ``q``, each segment's decimal step, a segment with no such grid is read again to half of ``q`` in place of
    that precision (a grid at least 8 decimal steps wide, every difference within 2 of them of it, kept where that is
    improbable by chance, :data:`GRID_CHANCE`): scores on a grid then rounded to decimals (means over 75 episodes to
    5 decimals, 0.66667) are off it by up to half a decimal step each, more than the precision of float arithmetic
    (audit s28, copies28).
    Unlike a decimal step it is kept by an affine map ``a * y + b`` (scaled by ``|a|``): scores normalised per task,
    ``(score - random) / (human - random)``, keep the grid of their game scores, ``0.1 / (human - random)`` for scores
    recorded to one decimal.

    >>> v = np.array([0.5, 1.25, 3.0, 10000.5, 10001.25, 10003.0, 0.1234567, 0.7654321, 2.0])
    >>> _grid_steps(np.concatenate([np.sort(v[:3]), np.sort(v[3:6]), np.sort(v[6:])]), np.array([0, 3, 6]),
    ...             np.array([2, 5, 8])).tolist()
    [0.25, 0.25, 0.0]
    >>> thirds = np.array([0.33333, 0.66667, 1.0, 1.33333, 2.33333, 5.0])  # on the grid 1 / 3, to 5 decimals
    >>> [float(_grid_steps(thirds, np.array([0]), np.array([5]), q)[0]).__round__(5) for q in (None, np.array([1e-5]))]
    [0.0, 0.33333]
    """
    size = last - first + 1
    out = np.zeros(first.size)
    if not first.size or not (size >= 2).any():
        return out
    index = np.repeat(np.arange(first.size), size)
    x = v[_segment_rows(first, size)]
    tol = np.zeros(first.size)
    np.maximum.at(tol, index, np.abs(x))
    tol *= READ_PRECISION
    out, _ = _grid_fit(x, index, v[last] - v[first], tol)
    if q is not None:
        again = (out == 0) & (np.asarray(q, dtype=float) > tol)
        if again.any():
            # each difference then within 2 decimal steps of the grid (the rounding of its two ends, and the fit's),
            # as continuous scores' differences are by chance with probability 5 q / g each: the grid is kept where
            # all but one of them doing so has a chance of at most GRID_CHANCE (a copied cell, few distinct
            # scores, fitted a grid by chance otherwise, and its copies were lost)
            wide = np.where(again, np.maximum(tol, np.asarray(q, dtype=float) / 2), np.inf)  # inf: none refitted
            grid, count = _grid_fit(x, index, v[last] - v[first], wide)
            with np.errstate(divide="ignore", invalid="ignore"):
                sure = (count - 1) * np.log(5 * np.asarray(q, dtype=float) / grid) <= math.log(GRID_CHANCE)
            out = np.where(again & sure & (count >= 2), grid, out)
    return out


def _grid_fit(x, index, span, tol):
    """:func:`_grid_steps`' fit: per segment (``index``: each sorted value's), the grid of step at least
    :data:`GRID_NOISE` times ``tol`` every difference lies within ``4 tol`` of, else 0; and the count of differences
    above ``tol``."""
    out = np.zeros(span.size)
    d, at = np.diff(x), index[1:]
    keep = (at == index[:-1]) & (d > tol[at])  # the differences between distinct scores of one segment
    d, at = d[keep], at[keep]
    smallest = np.full(span.size, np.inf)
    np.minimum.at(smallest, at, d)
    left = np.bincount(at, minlength=span.size) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(1, 11):
            left &= ~(smallest / j < GRID_NOISE * tol)
            if not left.any():
                break
            g = span / np.bincount(at, weights=np.round(d * j / smallest[at]), minlength=span.size)
            fits = np.abs(d - np.round(d / g[at]) * g[at]) <= 4 * tol[at]
            found = left & (np.bincount(at, weights=~fits, minlength=span.size) == 0)
            out[found], left = g[found], left & ~found
    return out, np.bincount(at, minlength=span.size)


class CopiedAcross(NamedTuple):
    """Pairs of cells of different blocks (tasks) whose runs share scores where chance would not
    (:func:`copied_runs` with ``across_blocks=True``), one entry per pair, ``first < second``."""

    first: NDArray[np.intp]
    second: NDArray[np.intp]
    #: distinct scores the two cells share (those counted: no rounder than either cell's others)
    shared: NDArray[np.intp]
    #: the runs of each cell holding one of them
    runs_first: NDArray[np.intp]
    runs_second: NDArray[np.intp]
    #: the chance bound ``E**m / m!`` of so many shared scores
    chance: NDArray[np.float64]
    #: pairs of blocks whose cells of one agent each repeat each other, judged jointly over the agents (given
    #: ``agent=``; :func:`_copied_tasks`); an agent's pair of cells on such a pair of blocks is said there, not in
    #: the pairs above
    tasks: CopiedTasks | None = None
    #: pairs of cells of the SAME block (two agents' runs on one task) sharing scores where chance would not, judged
    #: as the pairs above but against the ties among the runs of the block's other cells (:func:`_copied_same_block`),
    #: with their own share of :data:`COPY_CHANCE` (:func:`copied_runs` always sets it; ``tasks`` and
    #: ``same_block`` are None in it)
    same_block: CopiedAcross | None = None


class CopiedTasks(NamedTuple):
    """Pairs of blocks (tasks) whose cells of the same agent share scores where chance would not, judged jointly over
    the agents (:func:`copied_runs` with ``agent=``), one entry per pair of blocks, ``first < second``."""

    first: NDArray[np.intp]
    second: NDArray[np.intp]
    #: the agents whose cells on the two blocks share scores counted, and the agents with runs on both (at most)
    cells: NDArray[np.intp]
    agents: NDArray[np.intp]
    #: distinct scores shared, summed over those agents
    shared: NDArray[np.intp]
    #: the joint chance bound (:func:`_copied_tasks`)
    chance: NDArray[np.float64]
    #: of those agents, the pairs of cells that count alone too (said here, not among :class:`CopiedAcross`' pairs)
    alone: NDArray[np.intp]


#: A score held by runs of more cells than this is a value many runs reach (a cap, a floor, a failure), not one copied
#: between two tasks' files: :func:`copied_runs` pairs the cells of different tasks holding a score only up to this
#: many (a column copied between files is held by two cells; pairing more would cost the square of their count).
COPY_HOLDERS = 8


#: A score held by more runs of one cell than this is a pile (a cap or a floor that runs reach), not a copied run,
#: unless more than :data:`BLOCK_RUNS` of the cell's scores are held by as many runs (a block read k times):
#: :func:`copied_runs` leaves it out of the repeats within the cell and of the scores it shares with cells of other
#: blocks (:func:`_countable`; a run copied, and its cell read twice, holds it twice).  Unlike a score's decimal
#: step, which a change of units moves (300.39 / 3 = 100.13 amid scores of 8 digits), it is unit-free.
PILE_RUNS = 2


@overload
def copied_runs(y: ArrayLike, cell: ArrayLike, n_cells: int, block: ArrayLike | None = None, *,
                across_blocks: Literal[False] = False, agent: ArrayLike | None = None
                ) -> tuple[NDArray[np.intp], NDArray[np.float64]]: ...
@overload
def copied_runs(y: ArrayLike, cell: ArrayLike, n_cells: int, block: ArrayLike | None = None, *,
                across_blocks: Literal[True], agent: ArrayLike | None = None
                ) -> tuple[NDArray[np.intp], NDArray[np.float64], CopiedAcross]: ...
def copied_runs(y: ArrayLike, cell: ArrayLike, n_cells: int, block: ArrayLike | None = None, *,
                across_blocks: bool = False, agent: ArrayLike | None = None) -> tuple[Any, ...]:
    """Per cell, the runs whose score repeats an earlier run's exactly where such repeats are improbable by chance
    (copied runs: a file read twice, a batch saved again), and the chance of as many; with ``across_blocks``, also
    the pairs of cells of different blocks (tasks) whose runs share scores so improbably (a column copied from one
    task's file to another's).

    At the scores' own resolution the tied pairs among a cell's ``n`` runs number about ``E = C(n, 2) q / (2
    sqrt(pi) sigma)`` by chance, ``q`` the median decimal step of the cell's scores (:func:`_decimal_exponents`) or
    the step of a grid their differences lie on (:func:`_grid_steps`: scores normalised or shifted after they were
    recorded), the coarser, and ``sigma`` the smaller of their standard deviation and IQR / 1.349 (a normal
    density's square integrates to ``1 / (2 sqrt(pi) sigma)``; the smaller spread overstates the chance); or, where
    it is larger, ``C(n, 2)`` times the share of pairs of runs of different cells of its block (``block``: each
    cell's task) that tie, the chance measured on the data themselves, whatever was done to the scores (normalised
    Atari scores tie across agents where the game scores do); or, where it is larger, the ties its near misses imply
    (pairs 1 to ``k`` steps apart over :data:`NEAR_STEPS`, half as many per step: runs that failed alike cluster and
    tie by chance, whatever the spread of the rest).  ``m`` repeats come by chance with probability at
    most ``E**m / m!`` (a Poisson tail).  A cell's repeats count where its scores are fine, ``E`` at most
    :data:`COPY_CHANCE`, or where so many repeats stay improbable at ``E`` with its decimal-step part taken
    :data:`RESOLUTION_MARGIN` times (a file read twice: every run repeated), and the chance of as many repeats is at most :data:`COPY_CHANCE` shared among the cells
    holding two runs or more (a false alarm anywhere in the data at most that likely), counting only the scores
    :func:`_countable` keeps (not 0; held by at most :data:`PILE_RUNS` runs, or by as many as more than
    :data:`BLOCK_RUNS` other scores of the cell are: a block of runs read k times, where a cap or floor that many runs
    reach is a pile), and only :data:`BLOCK_RUNS` runs or more: a block, not one coincidence.  Coarse scores (integer
    game scores and their means over episodes,
    successes out of 10, a cap or floor many runs reach) tie by chance and never count.  Unchanged by the order of
    the runs.  Which runs count (``copies``, the pairs and their counts) reads only which runs hold equal scores and
    whether a score is 0: it is unchanged by ``a * y`` for any ``a != 0`` and by ``y + b`` where no repeated score is
    0 or ``-b`` (float rounding merging no two scores); whether they are noted reads ``E``, whose resolution is
    unchanged by a power of ten and by a shift by a multiple of it (and, where :func:`_grid_steps` finds the grid, by
    any ``a * y + b``), and whose shares of ties are unchanged by any of them.

    Two cells ``a`` and ``b`` of different blocks are judged alike (:func:`_copied_across`): ``m`` distinct scores
    held by runs of both, each counted in both (:func:`_countable`, the rule within cells) and held by at most
    :data:`COPY_HOLDERS` cells (a cap or a floor piles up),
    against ``E = n_a n_b q / (2 sqrt(pi) sigma)``, ``q`` the coarsest of the two cells' resolutions and the median
    decimal step of the scores they share (a value runs reach exactly, a gridworld's optimal return 0.955 amid means
    of 8 decimals, is shared at its own step), ``sigma``
    the smaller of their spreads (two densities' product integrates to at most the larger of their squares'
    integrals), or ``n_a n_b`` times either block's share of ties across its cells, or the ties the pair's near
    misses imply, the largest; the same rules then, with :data:`COPY_CHANCE` shared among the pairs of cells of
    different blocks holding two runs or more.  Found by sorting the scores once (no loop over pairs of runs).  With
    ``agent`` (each cell's agent), the pairs of blocks whose cells of one agent each share scores are also judged
    jointly over the agents (:func:`_copied_tasks`), returned in ``across.tasks`` (an agent's pair of cells on such a
    pair of blocks then said there only, not among ``across``' pairs).  The pairs of cells of ONE block (two agents'
    runs on one task: a baseline's file saved again as the new method's) are judged likewise, in
    ``across.same_block`` (:func:`_copied_same_block`: the block's share of ties read from its other cells' runs).
    Where a block's scores are raw floats (:func:`_raw_blocks`: no decimal step nor grid to read a resolution from;
    a deterministic task's discounted returns, 0.99**k at full precision, take few such values), the share of ties
    in every one of these checks is at least the rate :func:`_tie_floor` reads for ``m`` repeats from the ties among
    the runs of the cells not judged (:meth:`_Ties.floor`: of their tasks, and of the whole data where their tasks
    or the judged cells tie elsewhere too), read where they tie at all.  On decimals the same floor is read from the
    other cells' own ties only, each cell's with the runs at its most-held score left out (discounted returns printed
    to 6 decimals take few values their decimal step does not show; a cap many runs reach says nothing of how often
    the rest tie; ties across cells are what a copy between cells makes, audit s30), and a cell's repeats within it
    beyond its own most-held score are judged against it among its runs beyond those (the larger chance stated).
    The floor is read in a second pass, the cells the first pass noted left out of it (a copy's ties are no sign of
    the scores' support), and only where the first noted something, so that it can only take notes away.

    Returns
    -------
    copies : ndarray of intp, shape (n_cells,)
        Runs beyond the first with their score, counted in the cells whose repeats look copied; 0 elsewhere.
    chance : ndarray of float, shape (n_cells,)
        The chance bound ``E**m / m!`` of each cell counted (nan elsewhere).
    across : CopiedAcross
        With ``across_blocks`` only: the pairs of cells of different blocks counted (and, in ``same_block``, those of
        one block).
    """
    y, cell = np.asarray(y, dtype=float) + 0.0, np.asarray(cell)  # + 0.0: -0.0 is 0.0
    copies, chance = np.zeros(n_cells, dtype=np.intp), np.full(n_cells, np.nan)
    block = np.zeros(n_cells, dtype=np.intp) if block is None else np.asarray(block)
    empty = np.zeros(0, dtype=np.intp)
    nothing = CopiedAcross(empty, empty, empty, empty, empty, np.zeros(0))
    across = nothing._replace(same_block=nothing)
    ordered = np.sort(y)
    if (ordered[1:] == ordered[:-1]).any():  # else no score repeats anywhere (most data): one sort, no sort by cell
        del ordered
        order = np.lexsort((y, cell))
        v, c = y[order], cell[order]
        counted: dict[str, _Ties] = {}  # the ties across cells, once, where needed

        def ties():
            if "ties" not in counted:
                counted["ties"] = _Ties(y, cell, n_cells, block, v, c)
            return counted["ties"]

        def checks():
            copies[:], chance[:] = 0, np.nan
            _copied_within(v, c, n_cells, block, ties, copies, chance)
            if across_blocks:
                return _copied_across(y, cell, n_cells, block, v, c, ties, None if agent is None else np.asarray(agent))
            return across

        across = checks()
        # again with the floor of ties read from the data, the cells noted here left out of it (a copy's ties are
        # no sign of the scores' support); most data note nothing
        kept = ~_noted_cells(copies, across, block, n_cells)[c]
        if not kept.all() and kept.sum() >= 2:
            full = counted["ties"]
            full.evidence = _Ties(v[kept], c[kept], n_cells, block, v[kept], c[kept])
            full.evidence.evidence, full.evidence._raw = full.evidence, full.raw()  # raw read on all runs
            across = checks()
    return (copies, chance, across) if across_blocks else (copies, chance)


_log = np.frompyfunc(math.log, 1, 1)  # math's, not numpy's: the bounds read the same in every caller and version
_exp = np.frompyfunc(math.exp, 1, 1)


def _log_poisson_tail(m, expected):
    """``log(E**m / m!)`` elementwise, the log of the Poisson bound on ``m`` or more events expected ``E`` times
    (``-inf`` where ``E <= 0``; computed in logs: a cluster of 900 runs has E in the thousands)."""
    m, expected = np.broadcast_arrays(np.asarray(m), np.asarray(expected, dtype=float))
    out = np.full(m.shape, -np.inf)
    on = expected > 0
    if on.any():
        counts, at = np.unique(m[on], return_inverse=True)  # few distinct m: each m! once
        out[on] = m[on] * _log(expected[on]).astype(float) - _lgamma(counts + 1.0).astype(float)[at.reshape(-1)]
    return out


def _counts(m, expected, model, share):
    """Per entry, whether ``m`` exact repeats where ``E = expected`` count as copies (:func:`copied_runs`' rules), and
    their chance bound ``E**m / m!`` (at most 1); ``model``: the part of ``E`` read from the decimal step and spread
    alone, which :data:`RESOLUTION_MARGIN` multiplies (the ties measured on the data are what they are)."""
    m = np.asarray(m)
    with np.errstate(over="ignore", invalid="ignore"):
        bound = np.where(m > 0, _exp(np.minimum(_log_poisson_tail(m, expected), 0.0)).astype(float), 1.0)
        margin = np.maximum(RESOLUTION_MARGIN * np.asarray(model, dtype=float), expected)
        sure = (m > 0) & (_log_poisson_tail(m, margin) <= math.log(share))
    return (m >= BLOCK_RUNS) & ((expected <= COPY_CHANCE) | sure) & (bound <= share), bound


def _countable(value, cell, held):
    """Per distinct score of a cell (``value`` held by ``held`` runs of ``cell``), whether it counts as copied
    (:func:`copied_runs`' one rule, within cells and across blocks): not 0, and held by at most :data:`PILE_RUNS`
    runs, or by ``k`` runs where more than :data:`BLOCK_RUNS` of the cell's scores are held by ``k`` runs each (a
    block read ``k`` times); a score more runs reach is a pile (a cap, a floor).  It reads which runs hold equal
    scores and nothing of their values but 0, so it is unchanged by ``a * y`` (``a != 0``) and by ``y + b`` where no
    score repeated is ``0`` or ``-b``, as long as distinct scores stay distinct in floating point."""
    out = value != 0
    big = np.flatnonzero(held > PILE_RUNS)  # few: only these need the cell's count of scores held as often
    if big.size:
        top = int(held.max()) + 1
        _, inverse, kinds = np.unique(cell[big].astype(np.int64) * top + held[big], return_inverse=True,
                                      return_counts=True)
        out[big] &= kinds[inverse.reshape(-1)] > BLOCK_RUNS
    return out


def medians_by(e, group, n_groups):
    """The median of ``e`` within each group (``group``: each value's, in ``range(n_groups)``), as ``np.median`` takes
    it (the mean of the middle two); nan for an empty group.  One sort, no loop over groups."""
    by = np.lexsort((e, group))
    e, group = e[by], group[by]
    lo = np.searchsorted(group, np.arange(n_groups), "left")
    size = np.searchsorted(group, np.arange(n_groups), "right") - lo
    out = np.full(n_groups, np.nan)
    held = size > 0
    out[held] = (e[lo[held] + (size[held] - 1) // 2] + e[lo[held] + size[held] // 2]) / 2
    return out


def _median_exponents(v, c, cells):
    """Each of ``cells``' median decimal exponent (:func:`_decimal_exponents`, as ``np.median`` takes it) over its
    runs; ``v``, ``c``: the scores and cells sorted by cell."""
    mine = np.isin(c, cells)
    _, group = np.unique(c[mine], return_inverse=True)  # cells in order: c sorted, cells unique sorted
    return medians_by(_decimal_exponents(v[mine]), group.reshape(-1), cells.size)


def _scales(v, first, last, q):
    """Per cell (rows ``first`` to ``last`` of ``v``, sorted), the resolution :func:`copied_runs` reads, the coarser of
    the decimal step ``q`` and the scores' grid (:func:`_grid_steps`), and the spread (:func:`_spreads`)."""
    return np.maximum(q, _grid_steps(v, first, last, q)), _spreads(v, first, last)


def _copied_within(v, c, n_cells, block, ties, copies, chance):
    """:func:`copied_runs` within cells, into ``copies`` and ``chance``; ``v``, ``c``: the scores and cells sorted by
    cell, then score; ``ties()``: the ties across cells (:class:`_Ties`)."""
    new = np.r_[True, (v[1:] != v[:-1]) | (c[1:] != c[:-1])]
    if new.all():
        return
    firsts = np.flatnonzero(new)
    held = np.diff(np.r_[firsts, v.size])
    counted = _countable(v[firsts], c[firsts], held)
    m_all = np.bincount(c[firsts], weights=(held - 1) * counted, minlength=n_cells).astype(np.intp)
    # each cell's most-held score but 0, and whether it counts (the floor on decimals judges the rest: _Ties.within)
    top, top_counted = np.zeros(n_cells), np.zeros(n_cells)
    np.maximum.at(top, c[firsts], held * (v[firsts] != 0))
    np.maximum.at(top_counted, c[firsts], held * counted)
    share = COPY_CHANCE / int((np.bincount(c, minlength=n_cells) >= 2).sum())
    # Only cells where the repeats could count (none in most data): E >= C(n, 2) q / (2 sqrt(pi) range), sigma being
    # at most the range and q at least the median decimal step; the rest are passed over without a loop over them
    # (900,000 runs in 90,000 cells of hpo_landscapes)
    cells = np.flatnonzero(m_all >= BLOCK_RUNS)
    if not cells.size:
        return
    m = m_all[cells]
    first, last = np.searchsorted(c, cells, "left"), np.searchsorted(c, cells, "right") - 1
    size, spread = last - first + 1, v[last] - v[first]
    median = _median_exponents(v, c, cells)
    with np.errstate(divide="ignore", invalid="ignore"):
        low = size * (size - 1) / 2 * _power_of_ten(median) / (2 * math.sqrt(math.pi) * spread)
        possible = (((low <= COPY_CHANCE) | (_log_poisson_tail(m, RESOLUTION_MARGIN * low) <= math.log(share)))
                    & (_log_poisson_tail(m, low) <= math.log(share)))
    if not possible.any():
        return
    cells, m, first, last, size = cells[possible], m[possible], first[possible], last[possible], size[possible]
    q, sigma = _scales(v, first, last, _power_of_ten(median[possible]))
    judged = (sigma > 0) & np.isfinite(q)  # else most runs share one score, or it is 0: a point mass, not a resolution
    cells, m, q, sigma, size = cells[judged], m[judged], q[judged], sigma[judged], size[judged]
    counted = ties()
    # on decimals the floor is read from the other cells' ties beyond their most-held score (_Ties.within), and so
    # judges this cell's repeats beyond its own, among its runs beyond those: a cap that runs reach ties them at
    # one score by chance, whatever the rest do
    decimals = ~counted.raw()[block[cells]]
    h = np.where(decimals & (top[cells] >= 2), top[cells], 0.0)
    rest = np.where(h > 0, m - np.where(top_counted[cells] == top[cells], h - 1, 0.0), m)
    floor = counted.floor(cells, cells, np.maximum(rest, 1))
    # each block's share of ties across its cells; on raw floats at least the floor the other cells' ties allow
    across = np.maximum(counted.shares[block[cells]], np.where(decimals, 0.0, floor))
    model = size * (size - 1) / 2 * (q / (2 * math.sqrt(math.pi) * sigma))
    expected = np.maximum(size * (size - 1) / 2 * np.maximum(q / (2 * math.sqrt(math.pi) * sigma), across),
                          _near_ties_cells(v, c, cells, cells, q))  # the ties a cluster (failed runs) makes by chance
    counts, bound = _counts(m, expected, model, share)
    with np.errstate(over="ignore"):
        beyond = np.where(rest > 0, _exp(np.minimum(_log_poisson_tail(
            rest, (size - h) * (size - h - 1) / 2 * np.where(decimals, floor, 0.0)), 0.0)).astype(float), 1.0)
    beyond = np.where(decimals & (floor > 0), beyond, 0.0)
    counts &= beyond <= share
    bound = np.maximum(bound, beyond)
    copies[cells[counts]], chance[cells[counts]] = m[counts], bound[counts]


def _copied_across(y, cell, n_cells, block, v, c, ties, agent=None):
    """:func:`copied_runs` across blocks: the pairs of cells of different blocks sharing scores where chance would
    not.  One sort by score; the pairs are formed only among the cells holding one score (at most
    :data:`COPY_HOLDERS`), never over all runs."""
    empty = np.zeros(0, dtype=np.intp)
    nothing = CopiedAcross(empty, empty, empty, empty, empty, np.zeros(0))
    none = nothing._replace(same_block=nothing)
    order = np.lexsort((cell, y))
    s, k = y[order], cell[order]
    firsts = np.flatnonzero(np.r_[True, (s[1:] != s[:-1]) | (k[1:] != k[:-1])])  # one row per (score, cell)
    held = np.diff(np.r_[firsts, s.size])  # the runs of the cell holding the score
    s, k = s[firsts], k[firsts]
    # the one rule of what counts (_countable), read over all the cell's scores (a block read k times)
    countable = _countable(s, k, held)
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    cells_holding = np.diff(np.r_[starts, s.size])
    spans = (cells_holding >= 2) & (cells_holding <= COPY_HOLDERS)  # of one block too: two agents on one task
    keep = np.repeat(spans, cells_holding) & countable
    if not keep.any():
        return none  # no score held by two cells (most data)
    s, k, held = s[keep], k[keep], held[keep]
    cells = np.unique(k)
    median = _median_exponents(v, c, cells)  # each cell's decimal step, for the first bound below
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    size = np.diff(np.r_[starts, s.size])
    a_parts, b_parts, ha_parts, hb_parts, score_parts = [], [], [], [], []
    for width in range(2, int(size.max(initial=1)) + 1):  # the pairs among the cells holding each score, by count
        at = starts[size == width][:, None] + np.arange(width)
        i, j = np.triu_indices(width, 1)
        a_parts.append(k[at][:, i].ravel())
        b_parts.append(k[at][:, j].ravel())
        ha_parts.append(held[at][:, i].ravel())
        hb_parts.append(held[at][:, j].ravel())
        score_parts.append(np.repeat(s[starts[size == width]], i.size))
    if not a_parts:
        return none
    a, b = np.concatenate(a_parts), np.concatenate(b_parts)  # a < b: sorted by cell within a score
    ha, hb, shared = np.concatenate(ha_parts), np.concatenate(hb_parts), np.concatenate(score_parts)
    other = block[a] != block[b]
    runs = np.bincount(cell, minlength=n_cells)
    lo, hi = np.searchsorted(c, np.arange(n_cells), "left"), np.searchsorted(c, np.arange(n_cells), "right") - 1
    spread = np.where(hi >= lo, v[np.maximum(hi, 0)] - v[np.minimum(lo, v.size - 1)], 0.0)
    q = np.zeros(n_cells)
    q[cells] = _power_of_ten(median)
    same_block = _copied_same_block(a[~other], b[~other], ha[~other], hb[~other], shared[~other], n_cells, runs,
                                    block, q, spread, v, c, lo, hi, ties)
    none = none._replace(same_block=same_block)
    a, b, ha, hb, shared = a[other], b[other], ha[other], hb[other], shared[other]
    if not a.size:
        return none
    code = a.astype(np.int64) * n_cells + b
    pairs, inverse, m = np.unique(code, return_inverse=True, return_counts=True)
    runs_a = np.bincount(inverse, weights=ha).astype(np.intp)
    runs_b = np.bincount(inverse, weights=hb).astype(np.intp)
    first, second = (pairs // n_cells).astype(np.intp), (pairs % n_cells).astype(np.intp)
    # the median decimal step of the scores each pair shares: values a cell's runs reach exactly (a gridworld's
    # optimal return 0.955 amid means of 8 decimals) are shared at their own, coarser, resolution; a median, so that
    # a unit such as 1 / 3 turning some copied scores round (300.39 / 3 = 100.13) leaves it as it was
    shared_q = _power_of_ten(medians_by(_decimal_exponents(shared), inverse.reshape(-1), pairs.size))
    # COPY_CHANCE shared among the pairs of cells of different blocks holding two runs or more
    per_block = np.bincount(block, weights=(runs >= 2).astype(float), minlength=int(block.max()) + 1)
    tests = (per_block.sum() ** 2 - (per_block ** 2).sum()) / 2
    share = COPY_CHANCE / max(tests, 1.0)
    near: dict[str, float] = {}

    def near_share():  # how often runs of different blocks (nearly) tie, in the data; the costliest: once, if needed
        if "near" not in near:
            near["near"] = _near_share_across_blocks(v, c, block)
        return near["near"]

    def pair_ties(index):  # the larger of the two blocks' shares of ties across their cells, and the raw floor
        counted = ties()
        return np.maximum.reduce([counted.shares[block[first[index]]], counted.shares[block[second[index]]],
                                  counted.floor(first[index], second[index], m[index])])

    found = _judged_pairs(first, second, m, runs, q, shared_q, spread, v, c, lo, hi, share, pair_ties, near_share)
    tasks = None
    if agent is not None:
        same = agent[first] == agent[second]
        counted = np.zeros(first.size, dtype=bool)
        counted[[p for p, _ in found]] = True
        tasks = _copied_tasks(first[same], second[same], m[same], counted[same], runs, block, q, shared_q[same], v, c,
                              lo, hi, ties, near_share)
    if not found and (tasks is None or not tasks.first.size):
        return none
    index = np.array([p for p, _ in found], dtype=np.intp)
    bound = np.array([bound for _, bound in found], dtype=float)
    if tasks is not None and tasks.first.size and index.size:  # an agent's pair on two blocks noted jointly: said there
        n_blocks = np.int64(int(block.max()) + 1)
        a, b = block[first[index]], block[second[index]]
        joint = np.isin(np.minimum(a, b) * n_blocks + np.maximum(a, b), tasks.first * n_blocks + tasks.second)
        alone = ~(joint & (agent[first[index]] == agent[second[index]]))
        index, bound = index[alone], bound[alone]
    return CopiedAcross(first[index], second[index], m[index].astype(np.intp), runs_a[index], runs_b[index], bound,
                        tasks, none.same_block)


def _copied_same_block(a, b, ha, hb, shared, n_cells, runs, block, q, spread, v, c, lo, hi, ties):
    """:func:`copied_runs` between the cells of one block (two agents' runs on one task: a baseline's file saved again
    as the new method's), as :class:`CopiedAcross`: the pairs of cells ``a < b`` of the same block holding the scores
    ``shared`` (``ha``, ``hb`` runs of each; one entry per score a pair shares), judged as pairs of different blocks
    are (:func:`_judged_pairs`), with :data:`COPY_CHANCE` shared among the pairs of cells of one block holding two
    runs or more, and the share of ties measured on the data the largest of: the block's share among the runs of its
    OTHER cells (the two cells' left out: a copy would make it large, and one file saved under three agents' names
    would make that of the pairs holding one of the two large too); the same pooled over every block (agents on a
    deterministic task of few returns tie on each such task); each cell's own ties among its runs (those
    :func:`_countable` keeps), pooled over all cells and of either cell (two honest cells tie about as often as their
    runs do among themselves, at most the larger, Cauchy-Schwarz; a copy between them adds none).  Honest agents on
    one task share the scores it makes likely (a cap, a solved task's return, coarse or integer scores): the first is
    a pile (:func:`_countable`), the others lie on a coarse step or tie elsewhere too; on raw floats, at least the
    floor of ties the other cells allow (:meth:`_Ties.floor`, audit s29)."""
    empty = np.zeros(0, dtype=np.intp)
    if not a.size:
        return CopiedAcross(empty, empty, empty, empty, empty, np.zeros(0))
    pairs, inverse, m = np.unique(a.astype(np.int64) * n_cells + b, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    first, second = (pairs // n_cells).astype(np.intp), (pairs % n_cells).astype(np.intp)
    shared_q = _power_of_ten(medians_by(_decimal_exponents(shared), inverse, pairs.size))
    per_block = np.bincount(block, weights=(runs >= 2).astype(float), minlength=int(block.max()) + 1)
    share = COPY_CHANCE / max(float((per_block * (per_block - 1) / 2).sum()), 1.0)

    def pair_ties(index):  # the block's share of ties across its cells, those of the pair's two cells left out
        counted = ties()  # counted once for the whole call (the sort of all scores, each kind's keys)
        tied, possible, held = counted.tied, counted.possible, counted.held
        f, s = first[index], second[index]
        others = possible[block[f]] - (runs[f] + runs[s]) * (held[block[f]] - runs[f] - runs[s]) - runs[f] * runs[s]
        between = counted.between(f, s)
        with_either = counted.with_block(f) + counted.with_block(s) - between
        # and each cell's own ties: two honest cells tie about as often as their runs do among themselves (at most
        # the larger of the two, Cauchy-Schwarz), a copy between them adding none (a deterministic task's few
        # returns, 0.99**k at full precision, that no other agent shows when there is none)
        own, pairs_within = _countable_ties_within(v, c, n_cells), runs * (runs - 1) / 2
        # and every task's, pooled (those pairs left out): agents on a deterministic task tie on each such task; and
        # every cell's own, pooled: a task's few returns tie within its cells too, whichever agent ran them; and on
        # raw floats the floor the other cells' ties allow (:meth:`_Ties.floor`)
        pooled_others = possible.sum() - (possible[block[f]] - others)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.maximum.reduce([np.where(others > 0, (tied[block[f]] - with_either) / others, 0.0),
                                      np.where(pooled_others > 0, (tied.sum() - with_either) / pooled_others, 0.0),
                                      np.full(f.size, own.sum() / max(pairs_within.sum(), 1.0)),
                                      own[f] / np.maximum(pairs_within[f], 1), own[s] / np.maximum(pairs_within[s], 1),
                                      counted.floor(f, s, m[index])])

    found = _judged_pairs(first, second, m, runs, q, shared_q, spread, v, c, lo, hi, share, pair_ties, lambda: 0.0)
    index = np.array([p for p, _ in found], dtype=np.intp)
    return CopiedAcross(first[index], second[index], m[index].astype(np.intp),
                        np.bincount(inverse, weights=ha)[index].astype(np.intp),
                        np.bincount(inverse, weights=hb)[index].astype(np.intp),
                        np.array([bound for _, bound in found], dtype=float))


def _countable_ties_within(v, c, n_cells):
    """Per cell, the pairs of its runs with equal scores that :func:`_countable` keeps (not 0, not a pile); ``v``,
    ``c``: the scores and cells sorted by cell, then score."""
    firsts = np.flatnonzero(np.r_[True, (v[1:] != v[:-1]) | (c[1:] != c[:-1])])
    held = np.diff(np.r_[firsts, v.size])
    kept = _countable(v[firsts], c[firsts], held)
    return np.bincount(c[firsts], weights=held * (held - 1) / 2 * kept, minlength=n_cells)


def _judged_pairs(first, second, m, runs, q, shared_q, spread, v, c, lo, hi, share, pair_ties, near_share):
    """The pairs of cells (``first``, ``second``, sharing ``m`` scores) that count alone, as ``[(index, chance
    bound)]`` (:func:`copied_runs`); ``q``: each cell's median decimal step; ``shared_q``: each pair's, of the scores
    it shares; ``spread``: a cell's range; ``pair_ties(index)``: the share of ties measured on the data for those
    pairs; ``near_share()``: the data's share of near ties, if any."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        low = runs[first] * runs[second] * np.maximum(np.maximum(q[first], q[second]), shared_q) / (
            2 * math.sqrt(math.pi) * np.minimum(spread[first], spread[second]))

    def possible(m, low):  # most pairs share one score: only those sharing more are bounded
        out = m >= BLOCK_RUNS
        out[out] = _log_poisson_tail(m[out], low[out]) <= math.log(share)
        return out

    # the chance measured on the data, each where a pair is left to judge (most data leave none after the first)
    pick = np.flatnonzero(possible(m, low))
    if not pick.size:
        return []
    ties = pair_ties(pick)
    left = possible(m[pick], np.maximum(low[pick], runs[first[pick]] * runs[second[pick]] * ties))
    pick, ties = pick[left], ties[left]
    if not pick.size:
        return []
    a, b, m = first[pick], second[pick], m[pick]
    cells = np.unique(np.r_[a, b])
    resolution, sigma = np.zeros(q.size), np.zeros(q.size)  # of the cells judged, as within cells
    resolution[cells], sigma[cells] = _scales(v, lo[cells], hi[cells], q[cells])
    step, sigma = np.maximum(np.maximum(resolution[a], resolution[b]), shared_q[pick]), np.minimum(sigma[a], sigma[b])
    judged = (sigma > 0) & np.isfinite(step)  # else a point mass in either cell, not a resolution
    a, b, m, step, sigma, pick = a[judged], b[judged], m[judged], step[judged], sigma[judged], pick[judged]
    near_between = _near_ties_cells(v, c, a, b, step)
    with np.errstate(over="ignore"):
        rate = np.maximum(step / (2 * math.sqrt(math.pi) * sigma), ties[judged])
    pairs = runs[a] * runs[b]
    model = pairs * (step / (2 * math.sqrt(math.pi) * sigma))
    counts, _ = _counts(m, np.maximum(pairs * rate, near_between), model, share)
    if not counts.any():
        return []  # the data's near ties across blocks, the costliest to measure, can only add to the chance
    near = near_share()
    counts, bound = _counts(m, np.maximum(pairs * np.maximum(rate, near), near_between), model, share)
    return list(zip(pick[counts].tolist(), bound[counts].tolist()))


def _log_gamma_tail(n, x):
    """``log P(Gamma(n, 1) >= x)``, bounded above: ``e**-x x**(n-1) / (n-1)! * x / (x - n + 1)`` for ``x > n - 1``
    (the Poisson sum ``e**-x sum_{j<n} x**j / j!`` by its last term and a geometric series), else 0; ``-inf`` at
    ``x = inf`` (a ``p`` of 0).  ``x - (n - 1)``, not ``(x - n) + 1``, which lost a small ``x``'s digits (n = 1,
    x = 4.3e-12: -4.8e-6, below the tail's log, audit s26 review26c)."""
    n, x = np.asarray(n, dtype=float), np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = -x + (n - 1) * np.log(x) - np.asarray(_lgamma(n), dtype=float) + np.log(x / (x - (n - 1)))
    return np.where(np.isposinf(x), -np.inf, np.where(x > n - 1, np.minimum(bound, 0.0), 0.0))


def _spreads(v, first, last):
    """Per cell (rows ``first`` to ``last`` of ``v``, sorted), the smaller of the standard deviation of its scores and
    their IQR / 1.349 (a normal's, read robustly; np.percentile's linear quantiles), nan for one run: numpy's own
    arithmetic, by one pass per distinct count of runs (not per cell)."""
    size = last - first + 1
    out = np.full(first.size, np.nan)
    for n in np.unique(size[size >= 2]):
        at = np.flatnonzero(size == n)
        x = v[first[at, None] + np.arange(n)]
        q75, q25 = np.percentile(x, [75, 25], axis=1)
        out[at] = np.minimum(np.std(x, axis=1, ddof=1), (q75 - q25) / 1.349)
    return out


def _near_ties_cells(v, c, a, b, step):
    """Per pair of cells ``a[i]``, ``b[i]``, the most of ``near(k) / (2 k)`` over :data:`NEAR_STEPS`, ``near(k)`` the
    pairs of a score of ``a[i]`` and one of ``b[i]`` distinct and at most ``k`` steps ``step[i]`` apart (``a[i] ==
    b[i]``: the pairs of runs of that cell, each counted once): the ties expected by chance where the scores cluster
    (runs that failed alike).  ``v``, ``c``: the scores and cells sorted by cell, then score.  Counted by binary
    search in each cell's scores (as ``np.searchsorted`` in that cell alone: a score ``z`` of ``b[i]`` is at most
    ``x + w`` where its rank among all scores is), all pairs at once."""
    out = np.zeros(a.size)
    if not a.size:
        return out
    begin = np.searchsorted(c, a, "left")
    size = np.searchsorted(c, a, "right") - begin
    pair = np.repeat(np.arange(a.size), size)
    x = v[_segment_rows(begin, size)]  # a's scores
    other, w, apart = b[pair], step[pair], (a != b)[pair]
    held = np.unique(b)  # only the scores of the cells searched
    begin = np.searchsorted(c, held, "left")
    size = np.searchsorted(c, held, "right") - begin
    rows = _segment_rows(begin, size)
    v, c = v[rows], np.repeat(np.arange(held.size), size)
    other = np.searchsorted(held, other)
    ordered, top = np.sort(v), np.int64(v.size + 1)
    start = np.searchsorted(c, other, "left")
    keys = {side: c.astype(np.int64) * top + np.searchsorted(ordered, v, side) for side in ("left", "right")}

    def below(t, side):  # other's scores <= t ("right") or < t ("left")
        return np.searchsorted(keys[side], other * top + np.searchsorted(ordered, t, side), side) - start

    at, under = below(x, "right"), below(x, "left")
    with np.errstate(invalid="ignore"):
        for k in NEAR_STEPS:  # within a cell, the scores above x; across two, those on either side
            near = below(x + (k + 0.5) * w, "right") - at
            near += np.where(apart, under - below(x - (k + 0.5) * w, "left"), 0)
            out = np.maximum(out, np.bincount(pair, weights=near, minlength=a.size) / (2 * k))
    return out


def _copied_tasks(first, second, m, counted, runs, block, q, shared_q, v, c, lo, hi, ties, near_share):
    """Pairs of blocks (tasks) whose cells of one agent each share scores (``first[i]``, ``second[i]``: such a
    pair of cells, ``m[i]`` scores shared; ``counted[i]`` where it counts alone), judged jointly over the agents: a
    task's file read twice as another's repeats every agent's runs, each pair of cells perhaps not improbable alone
    (hpo_landscapes: 10 runs a configuration, E = 0.09 from the ties across configurations).

    Per pair of cells, ``p = min(1, E**m / m!)``, ``E`` as for a pair judged alone but with the resolution's term
    ``q / (2 sqrt(pi) sigma)`` (decimal step only, no grid, the spreads vectorised) times :data:`RESOLUTION_MARGIN`
    (a resolution read too fine would otherwise add up over thousands of cells), the measured shares of ties and
    near ties as they are.  The cells of different agents hold different runs, so under chance the ``p`` of the
    agents with runs on both blocks (1 for those sharing nothing) are independent and each at least uniform (``P(p
    <= t) <= t``, a Poisson tail bound); their product is then at most ``t`` with probability at most ``P(Gamma(n,
    1) >= -log t)`` (Fisher's combination), :func:`_log_gamma_tail`, ``n`` taken as the fewer of the two blocks'
    agents, at least those on both (the tail only grows with ``n``).  A pair of blocks counts where
    that is at most :data:`COPY_CHANCE` shared among the pairs of blocks and at least :data:`BLOCK_RUNS` agents share
    scores (``alone`` counts those of its pairs of cells that count by themselves too, which the note then says in
    this one sentence).  Vectorised over the pairs of cells."""
    empty = np.zeros(0, dtype=np.intp)
    none = CopiedTasks(empty, empty, empty, empty, empty, np.zeros(0), empty)
    if not first.size:
        return none
    n_blocks = int(block.max()) + 1
    ta, tb = np.minimum(block[first], block[second]), np.maximum(block[first], block[second])
    groups, inverse, cells = np.unique(ta.astype(np.int64) * n_blocks + tb, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    agents_on = np.bincount(block, weights=(runs > 0).astype(float), minlength=n_blocks)
    ga, gb = groups // n_blocks, groups % n_blocks
    n = np.minimum(agents_on[ga], agents_on[gb])
    blocks_held = int((agents_on > 0).sum())
    share = COPY_CHANCE / max(blocks_held * (blocks_held - 1) / 2, 1.0)
    alone = np.bincount(inverse, weights=counted, minlength=groups.size).astype(np.intp)
    eligible = cells >= BLOCK_RUNS
    if not eligible.any():
        return none
    pick = eligible[inverse]
    first, second, m, inverse, shared_q = first[pick], second[pick], m[pick], inverse[pick], shared_q[pick]
    involved = np.unique(np.r_[first, second])
    sigma = np.zeros(q.size)
    sigma[involved] = _spreads(v, lo[involved], hi[involved])
    step = np.maximum(np.maximum(q[first], q[second]), shared_q)  # as a pair judged alone: the shared scores' step too
    pairs = (runs[first] * runs[second]).astype(float)

    def joint(expected):
        with np.errstate(invalid="ignore"):
            x = -np.bincount(inverse, weights=np.minimum(_log_poisson_tail(m, expected), 0.0), minlength=groups.size)
        return _log_gamma_tail(n, x)

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        model = np.where(np.minimum(sigma[first], sigma[second]) > 0,
                         RESOLUTION_MARGIN * step / (2 * math.sqrt(math.pi) * np.minimum(sigma[first], sigma[second])),
                         np.inf)  # a point mass in either cell: no resolution, no evidence
    measured = ties()
    rate = np.maximum.reduce([model, measured.shares[block[first]], measured.shares[block[second]],
                              measured.floor(first, second, m)])
    if not (joint(pairs * rate) <= math.log(share)).any():
        return none  # the near ties, costlier, can only add to the chance
    rate = np.maximum(rate, near_share())
    expected = np.maximum(pairs * rate, _near_ties_cells(v, c, first, second, step))
    log_chance = joint(expected)
    found = eligible & (log_chance <= math.log(share))
    found = found & (np.bincount(inverse, minlength=groups.size) >= BLOCK_RUNS)
    if not found.any():
        return none
    shared = np.bincount(inverse, weights=m, minlength=groups.size)
    sharing = np.bincount(inverse, minlength=groups.size)
    return CopiedTasks(ga[found].astype(np.intp), gb[found].astype(np.intp), sharing[found].astype(np.intp),
                       n[found].astype(np.intp), shared[found].astype(np.intp), np.exp(log_chance[found]),
                       alone[found])


def _near_share_across_blocks(v, c, block):
    """The share of pairs of runs of different blocks whose scores tie by chance as the data's near misses imply: the
    most of ``near(k) / (2 k)`` over :data:`NEAR_STEPS`, ``near(k)`` the pairs of runs of different blocks at distinct
    scores at most ``k`` steps apart (each score's step its cell's median decimal step), over all pairs of runs of
    different blocks; ``v``, ``c``: the scores and cells sorted by cell, then score.  Scores that are means of a few
    integer returns (a game's score over the episodes of an iteration, k / n) lie on a lattice far coarser than
    their decimal step, and a pair of cells of 5 runs each shares two of them by chance where the runs of thousands
    of cells nearly tie as often (the Dopamine baselines' IceHockey, each iteration read as a task)."""
    q = _power_of_ten(medians_by(_decimal_exponents(v), c, int(c.max()) + 1))[c]  # each cell's median step
    t = block[c]
    order = np.argsort(v, kind="stable")
    s, q, t = v[order], q[order], t[order]
    n = s.size
    rank = np.arange(n, dtype=np.int64)
    key = np.sort(t.astype(np.int64) * (n + 1) + rank)  # each block's runs by score, as ranks in the sort of all
    base = t.astype(np.int64) * (n + 1)
    above = np.searchsorted(s, s, "right")  # past the runs of equal score
    per_block = np.bincount(t).astype(float)
    pairs = (float(n) ** 2 - float((per_block ** 2).sum())) / 2
    if pairs <= 0:
        return 0.0
    most, past_equal, finite = 0.0, np.searchsorted(key, base + above, "left"), np.isfinite(q)
    with np.errstate(invalid="ignore", over="ignore"):
        for k in NEAR_STEPS:
            up = np.where(finite, np.searchsorted(s, s + (k + 0.5) * q, "right"), above)  # 0's step is inf: none
            same = np.searchsorted(key, base + up, "left") - past_equal  # those of the same block
            most = max(most, float((up - above - same).sum()) / (2 * k))
    return most / pairs


#: The widths, in steps of the scores' resolution, over which :func:`copied_runs` counts a cell's near misses (pairs
#: of runs whose scores differ by 1 to k steps): a pair ties about half as often as it lies 1 step apart where the
#: scores' density is smooth over k steps, so ``near(k) / (2 k)`` estimates the ties expected by chance in clusters
#: that one spread misses (runs that failed alike, near one return), from tight (1 step) to wide (1,000 steps).
NEAR_STEPS = (1, 3, 10, 30, 100, 300, 1000)


def _noted_cells(copies, across, block, n_cells):
    """The cells any check of :func:`copied_runs` noted: those counted within, those of the pairs of cells noted (of
    different blocks and of one), and every cell of the pairs of blocks noted jointly."""
    noted = copies > 0
    for pairs in (across, across.same_block):
        if pairs is not None:
            noted[pairs.first] = noted[pairs.second] = True
    if across.tasks is not None and across.tasks.first.size:
        noted |= np.isin(block, np.r_[across.tasks.first, across.tasks.second])
    return noted


class _Ties:
    """The ties between runs of different cells that :func:`copied_runs` reads on the data, counted once a call (by
    one sort of all the scores, the shares per block only where they are needed): per block, the pairs of runs of
    different cells and those of them with equal scores (:func:`_ties_across_cells`), the same over the whole data,
    and per cell or pair of cells the ties it takes part in (to leave out the cells judged).  ``v``, ``c``: the
    scores and cells sorted by cell, then score."""

    def __init__(self, y, cell, n_cells, block, v, c):
        self.v, self.c, self.block = v, c, block
        self.tied, self.possible = _ties_across_cells(y, cell, n_cells, block, v, c)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.shares = np.where(self.possible > 0, self.tied / self.possible, 0.0)
        self.runs = np.bincount(cell, minlength=n_cells).astype(float)
        self.held = np.bincount(block, weights=self.runs, minlength=self.tied.size)  # each block's runs
        ordered = np.sort(v)
        self._rank = np.searchsorted(ordered, v, "left")  # each run's score as its rank among all
        n = float(v.size)
        self.tied_all = float(_tied_pairs(ordered, np.zeros(v.size, dtype=np.intp), 1)[0]
                              - _tied_pairs(v, c, n_cells).sum())
        self.possible_all = (n * n - float((self.runs ** 2).sum())) / 2
        self._keys: dict[str, NDArray[np.int64]] = {}
        self._raw: NDArray[np.bool_] | None = None
        self._within: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
        self._top: NDArray[np.float64] = np.zeros(0)  # each cell's most-held score's runs (:meth:`within`)
        #: the ties the floor reads (:meth:`floor`): None for none (the first pass of :func:`copied_runs`), else
        #: those among the runs of the cells no check noted in that pass
        self.evidence: _Ties | None = None
        self._y, self._cell = y, cell

    def equal(self, by, a, b):
        """Per ``i``, the pairs of a run of cell ``a[i]`` and a run of group ``b[i]`` with equal scores (``by``:
        "cell", "block" or "all", the groups' kind): a binary search of the group's scores, ranked in the sort of
        all, for each of ``a[i]``'s (the ranks and each kind's keys sorted once)."""
        top = np.int64(self.v.size + 1)
        if by not in self._keys:
            group = {"cell": self.c, "block": self.block[self.c], "all": np.zeros(self.c.size, dtype=np.intp)}[by]
            self._keys[by] = np.sort(group.astype(np.int64) * top + self._rank)
        keys = self._keys[by]
        begin = np.searchsorted(self.c, a, "left")
        size = np.searchsorted(self.c, a, "right") - begin
        pair = np.repeat(np.arange(a.size), size)
        at = np.broadcast_to(np.asarray(b), a.shape)[pair].astype(np.int64) * top + self._rank[
            _segment_rows(begin, size)]
        equal = np.searchsorted(keys, at, "right") - np.searchsorted(keys, at, "left")
        return np.bincount(pair, weights=equal, minlength=a.size)

    def between(self, a, b):
        """Per pair of cells ``a[i]``, ``b[i]``, the pairs of a run of each with equal scores."""
        return self.equal("cell", a, b)

    def with_block(self, a):
        """Per cell ``a[i]``, the pairs of one of its runs and a run of another cell of its block with equal scores."""
        return self.equal("block", a, self.block[a]) - self.between(a, a)

    def with_all(self, a):
        """Per cell ``a[i]``, the pairs of one of its runs and a run of any other cell with equal scores."""
        return self.equal("all", a, 0) - self.between(a, a)

    def raw(self):
        """Per block, whether its scores are raw floats (:func:`_raw_blocks`), once."""
        if self._raw is None:
            self._raw = _raw_blocks(self._y, self.block[self._cell], self.tied.size)
        return self._raw

    def within(self):
        """Per cell, the pairs of its runs tied (but at 0; a pile's too, which :func:`_countable` leaves out of
        copies: a cap runs reach is a sign of few values) and the pairs of its runs, both 0 where every score is held
        by the same number of runs, two or more: a file read k times is no sign of the scores' support (its copies
        are what is judged), once; on decimals, the runs at the cell's most-held score (but 0) left out of both
        where two or more hold it."""
        if self._within is None:
            firsts = np.flatnonzero(np.r_[True, (self.v[1:] != self.v[:-1]) | (self.c[1:] != self.c[:-1])])
            held = np.diff(np.r_[firsts, self.v.size])
            most, fewest = np.zeros(self.runs.size), np.full(self.runs.size, np.inf)
            np.maximum.at(most, self.c[firsts], held)
            np.minimum.at(fewest, self.c[firsts], held)
            single = (fewest < 2) | (most > fewest)  # not a cell read k times over, every score held by k runs
            kept = self.v[firsts] != 0  # a pile's ties too (a cap runs reach: no copy, a sign of few values)
            tied = np.bincount(self.c[firsts], weights=held * (held - 1) / 2 * kept, minlength=self.runs.size)
            top = np.zeros(self.runs.size)
            np.maximum.at(top, self.c[firsts], held * kept)
            self._top = np.where(single & (top >= 2), top, 0.0)
            self._within = np.where(single, tied, 0.0), np.where(single, self.runs * (self.runs - 1) / 2, 0.0)
        return self._within

    def rest(self):
        """:meth:`within` with the runs at each cell's most-held score (but 0; held by two or more) left out: one
        score many runs reach (a cap, a floor) says nothing of how often the rest of a cell's scores tie; a few-valued
        support (discounted returns printed to 6 decimals) ties at several (audit s30: the floor on decimals)."""
        tied, pairs = self.within()
        runs = np.where(pairs > 0, self.runs - self._top, 0.0)
        return tied - self._top * (self._top - 1) / 2, runs * (runs - 1) / 2

    def floor(self, a, b, m):
        """Per pair of cells ``a[i]``, ``b[i]`` judged (``a[i] == b[i]``: one cell's runs) for ``m[i]`` repeats, the
        share of ties :func:`copied_runs` takes at least: where the block of either holds raw floats
        (:func:`_raw_blocks`), :func:`_tie_floor` of the ties among the runs of the OTHER cells (the
        judged cells' pairs left out: a copy makes no tie there), of their blocks (:meth:`local`) and, where those
        or the judged cells show ties that are not the copy judged (:meth:`shown`), of the whole data, the largest,
        read only where those runs tie at all (the data show the scores' support discrete: a deterministic task's
        few returns, 0.99**k at full precision); none where they do not (continuous scores at full precision, a file
        read twice, whose copies tie only where they were copied; a continuous task beside a deterministic one).
        On decimals (audit s30) only the other cells' own ties (:meth:`within`, a cell's most-held score's runs left
        out), of the judged cell's block and of all, those of all only where :meth:`shown`.  The ties are
        :attr:`evidence`'s: the cells noted in a first pass without the floor left out (other copies in the data tie
        only where they were copied too, and would raise the floor for these)."""
        a, b, m = np.asarray(a), np.asarray(b), np.asarray(m, dtype=float)
        out = np.zeros(a.size)
        if self.evidence is None:
            return out
        return self.evidence.floor_of_others(a, b, m, self.shown(a, b))

    def shown(self, a, b):
        """Per pair of cells judged (``a[i] == b[i]``: one cell), whether the data show ties that are not the copy
        judged where it is, on all the runs (the cells may be some the first pass noted): among their blocks' other
        cells (:meth:`local`), of the judged cells with any other (a pair's with each other left out), and a pair's
        within each cell (none from a cell read k times over); a continuous task's cells tie with none."""
        two = a != b
        own, _ = self.within()
        mine = (self.with_all(a) + np.where(two, self.with_all(b) + own[a] + own[b] - 2 * self.between(a, b), 0.0))
        return (mine > 0) | np.logical_or.reduce([t > 0 for t, _ in self.local(a, b)])

    def local(self, a, b):
        """Per pair of cells judged, the (ties, pairs of runs) of their blocks' other cells: across cells, of either
        judged cell's block; for one cell judged, the other cells' own (:meth:`within`)."""
        two = a != b
        ra, rb = self.runs[a], np.where(two, self.runs[b], 0.0)
        between = np.where(two, self.between(a, b), 0.0)
        block_a = self.with_block(a)  # ties with the other cells of its block
        block_b = np.where(two, self.with_block(b), 0.0)
        same = two & (self.block[a] == self.block[b])
        out = []
        for k, t, n, on_k in ((self.block[a], block_a, ra, True), (self.block[b], block_b, rb, two)):
            left = np.where(same, block_a + block_b - between, t)  # the judged cells' ties left out
            pairs = np.where(same, ra * (self.held[k] - ra) + rb * (self.held[k] - rb) - ra * rb,
                             n * (self.held[k] - n))
            out.append((np.where(on_k, self.tied[k] - left, 0.0), self.possible[k] - pairs))
        tied, pairs = self.within()
        k, one = self.block[a], np.where(two, 0.0, 1.0)
        per_block = (np.bincount(self.block, weights=tied, minlength=self.tied.size),
                     np.bincount(self.block, weights=pairs, minlength=self.tied.size))
        out.append(((per_block[0][k] - tied[a]) * one, (per_block[1][k] - pairs[a]) * one))
        return out

    def floor_of_others(self, a, b, m, shown):
        """:meth:`floor` read on these runs (the evidence); ``shown``: where the whole data's ties count too
        (:meth:`shown`)."""
        two = a != b
        ra, rb = self.runs[a], np.where(two, self.runs[b], 0.0)
        between = np.where(two, self.between(a, b), 0.0)
        same = two & (self.block[a] == self.block[b])
        local = self.local(a, b)
        # every block's, pooled: a deterministic task's few returns tie across its agents, task after task
        in_blocks = self.with_block(a) + np.where(two, self.with_block(b), 0.0) - np.where(same, between, 0.0)
        pairs = ra * (self.held[self.block[a]] - ra) + rb * (self.held[self.block[b]] - rb) - np.where(same, ra * rb, 0.0)
        pooled = [(self.tied.sum() - in_blocks, self.possible.sum() - pairs)]
        with_all = self.with_all(a) + np.where(two, self.with_all(b) - between, 0.0)
        total = float(self.v.size)
        pairs = ra * (total - ra) + rb * (total - rb) - ra * rb
        pooled.append((self.tied_all - with_all, self.possible_all - pairs))
        # one cell judged: the other cells' own ties too, of its block (above) and of all (an agent's few returns
        # its own, the other agents' apart from them: each agent's shortest episode longer)
        tied, pairs = self.within()
        one = np.where(two, 0.0, 1.0)
        pooled.append(((tied.sum() - tied[a]) * one, (pairs.sum() - pairs[a]) * one))
        # the whole data's ties only where the judged cells' own blocks show ties too (a suite holding one
        # deterministic task and continuous ones: the continuous tasks' copies judged at their own rate)
        rates = [_tie_floor(t, n, m) for t, n in local] + [_tie_floor(t, n, m) * shown for t, n in pooled]
        raw = self.raw()
        decimals = ~(raw[self.block[a]] | raw[self.block[b]])
        if decimals.any():
            # decimals: only the other cells' own ties (a cell's repeats among its runs; two cells judged, those of
            # every cell but the two), whose copies of two runs or more the first pass noted; ties across cells are
            # what a copy between cells makes, and a partial copy not noted would raise the floor of another
            tied, pairs = self.rest()
            k, one = self.block[a], np.where(two, 0.0, 1.0)
            per_block = (np.bincount(self.block, weights=tied, minlength=self.tied.size),
                         np.bincount(self.block, weights=pairs, minlength=self.tied.size))
            block = ((per_block[0][k] - tied[a]) * one, (per_block[1][k] - pairs[a]) * one)
            own = (tied.sum() - tied[a] - np.where(two, tied[b], 0.0),
                   pairs.sum() - pairs[a] - np.where(two, pairs[b], 0.0))
            mine = np.maximum(_tie_floor(*block, m), _tie_floor(*own, m) * shown)
            return np.where(decimals, mine, np.maximum.reduce(rates))
        return np.maximum.reduce(rates)


def _tie_floor(tied, possible, m):
    """The share of ties :func:`copied_runs` takes at least for ``m`` repeats where ``possible`` pairs of runs that
    cannot be copies of those judged hold ``tied`` ties, read only where they hold one or more (0 elsewhere): at a
    share ``p`` of ties, ``m`` repeats among ``N`` pairs come with chance at most ``(N p)**m / m!``, and so few ties
    among the others (``n`` pairs, ``T`` ties) with chance at most ``exp(-n p) (e n p / T)**T`` (Chernoff, for ``n p
    >= T``); their product is largest at ``p = (m + T) / n``, where it is ``(N r)**m / m!`` with ``r = (m + T) /
    (e n) ((m + T) / T)**(T / m)``, the rate returned: with it the stated chance bounds that of the two together,
    whatever share of ties the support of the scores makes."""
    tied, possible, m = np.broadcast_arrays(np.asarray(tied, dtype=float), np.asarray(possible, dtype=float),
                                            np.asarray(m, dtype=float))
    on = (tied > 0) & (possible > 0) & (m > 0)
    out = np.zeros(tied.shape)
    t, n, m = tied[on], possible[on], m[on]
    out[on] = (m + t) / (math.e * n) * np.exp(t / m * np.log((m + t) / t))
    return out


def _raw_scores(values):
    """Which scores are raw floats: on no decimal grid of 13 significant digits (to 4 units of the last place) and
    no float32 value times a power of ten (10**-6 to 10**6; float32 storage, whose decimals
    :func:`_decimal_exponents` reads to :data:`READ_PRECISION`).  A score printed to decimals, stored as float32
    from them or rescaled by a power of ten is not raw.  Raw scores may be continuous (a physics return) or few
    values computed exactly (a deterministic task's discounted returns, 0.99**k): nothing in one score says which,
    so the ties they make by chance are read from the data (:meth:`_Ties.floor`).

    >>> _raw_scores([0.99 ** 40, 123.456, 284.79998779296875, 100.12345678, 0.0, 3.0]).tolist()
    [True, False, False, False, False, False]
    """
    x = np.abs(np.asarray(values, dtype=float))
    out = np.zeros(x.shape, dtype=bool)
    on = (x > 0) & np.isfinite(x)
    x = x[on]
    e = np.floor(np.log10(x)) - 12  # 13 significant digits
    power = _power_of_ten(np.abs(e))
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = np.where(e >= 0, np.round(x / power) * power, np.round(x * power) / power)
    raw = np.abs(rounded - x) > 4 * np.finfo(float).eps * x
    for k in range(-6, 7):  # float32 storage, rescaled by a power of ten or not: a decimal read to READ_PRECISION
        scaled = x / 10.0 ** k if k >= 0 else x * 10.0 ** -k
        raw &= scaled.astype(np.float32).astype(float) != scaled
    out[on] = raw
    return out


def _raw_blocks(y, run_block, n_blocks):
    """Per block, whether a quarter of its runs' scores or more are raw floats (:func:`_raw_scores`; a task's few
    returns at full precision hold short decimals too, 0.99**2 = 0.9801) on no grid of differences
    (:func:`_grid_steps` of the block's scores: decimals times 1 / 3 are raw floats on the grid 0.01 / 3, whose
    resolution is known); ``run_block``: each run's."""
    runs = np.bincount(run_block, minlength=n_blocks).astype(float)
    raw = (np.bincount(run_block, weights=_raw_scores(y), minlength=n_blocks) >= runs / 4) & (runs > 0)
    if raw.any():
        on = raw[run_block]
        x, b = y[on], run_block[on]
        order = np.lexsort((x, b))
        x, b, blocks = x[order], b[order], np.flatnonzero(raw)
        grid = _grid_steps(x, np.searchsorted(b, blocks, "left"), np.searchsorted(b, blocks, "right") - 1)
        raw[blocks[grid > 0]] = False
    return raw


def _ties_across_cells(y, cell, n_cells, block, v, c):
    """Per block, the pairs of runs in different cells whose scores are equal, and the pairs of runs in different
    cells (:class:`_Ties`)."""
    n_blocks = int(block.max()) + 1 if block.size else 1
    pairs = lambda k: k * (k - 1) / 2  # noqa: E731
    runs = np.bincount(cell, minlength=n_cells).astype(float)
    possible = pairs(np.bincount(block, weights=runs, minlength=n_blocks)) - np.bincount(
        block, weights=pairs(runs), minlength=n_blocks)
    t = block[cell]
    order = np.lexsort((y, t))
    tied_all = _tied_pairs(y[order], t[order], n_blocks)
    tied_within = _tied_pairs(v, c, n_cells)
    return tied_all - np.bincount(block, weights=tied_within, minlength=n_blocks), possible


def _tied_pairs(values, groups, n_groups):
    """Per group, the pairs of equal ``values`` (sorted by group, then value)."""
    new = np.concatenate(([True], (values[1:] != values[:-1]) | (groups[1:] != groups[:-1])))
    starts = np.flatnonzero(new)
    k = np.diff(np.concatenate((starts, [values.size]))).astype(float)
    return np.bincount(groups[starts], weights=k * (k - 1) / 2, minlength=n_groups)


def best_of(values: ArrayLike, axis: int = -1) -> NDArray[np.bool_]:
    """Which of ``values`` are the largest along ``axis``: within :func:`tie_tolerance` of the largest (1e-12 of the
    finite values' range plus 4 eps of their largest magnitude), so that two summaries of the same runs summed in
    another order (1 ulp apart) are both best, and a map a * y + b of the values (a > 0) keeps the best; NaN and
    -inf (absent) never are.

    >>> best_of([0.1 + 0.2 + 0.3, 0.3 + 0.2 + 0.1, 0.5]).tolist()
    [True, True, False]
    """
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    with np.errstate(invalid="ignore"):
        top = np.nanmax(np.where(np.isnan(values), -np.inf, values), axis=axis, keepdims=True)
        low = np.min(np.where(finite, values, np.inf), axis=axis, keepdims=True)
        magnitude = np.max(np.where(finite, np.abs(values), 0.0), axis=axis, keepdims=True)
        near = top - values <= tie_tolerance(np.where(top > low, top - low, 0.0), magnitude)
    return near & finite


def _nan_as_zero(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``np.nan_to_num(x)`` for floats without infinities (a block's largest finite ``|score|``), at a fifth of its
    cost on a small array."""
    return np.where(np.isnan(x), 0.0, x)


def near_ties(y: ArrayLike, block: ArrayLike, tolerance: ArrayLike | None = None) -> tuple[NDArray[np.float64], int]:
    """Scores with near-equal scores of their block made equal, and how many pairs that joined.

    Within each block, the sorted scores are split where consecutive ones differ by more than the block's
    :func:`tie_tolerance` (1e-12 of its range plus 4 eps of its largest ``|score|``: the same pairs tie after any
    map a * y + b, a > 0, of the block, but for the rounding the map adds); every score of a group is replaced by
    the group's
    smallest (so a chain of steps below the tolerance joins one group).  Only ranks may read the result: the
    means and differences of the scores stay those of ``y``.

    Parameters
    ----------
    y : array_like of float, shape (N,)
        Finite scores (NaN is left alone and never joins a group).
    block : array_like of int, shape (N,)
        Block code of each score.
    tolerance : array_like of float, optional
        Each block's tolerance, :func:`block_tolerances` of all its scores, when ``y`` holds only some of them (one
        pair of agents of a task); by default that of the scores in ``y``.

    Returns
    -------
    snapped : ndarray of float, shape (N,)
    n_pairs : int
        Pairs of scores of one block that differ in ``y`` but are equal in ``snapped`` (the note's count).

    Examples
    --------
    >>> snapped, n_pairs = near_ties([0.0, -7e-15, 1.0, 2.0, 1.0], [0, 0, 0, 1, 1])
    >>> snapped.tolist(), n_pairs
    ([-7e-15, -7e-15, 1.0, 2.0, 1.0], 1)
    """
    y = np.asarray(y, dtype=np.float64)
    block = np.asarray(block, dtype=np.intp)
    if y.size == 0:
        return y.copy(), 0
    order = block_value_order(y, block)
    ys, bs = y[order], block[order]
    new_block = np.concatenate(([True], bs[1:] != bs[:-1]))  # not np.r_: its parsing took a tenth of a small call
    if tolerance is None:  # block_tolerances' values, read off the sorted blocks (its ufunc.at is slow on NumPy < 1.25)
        starts = np.flatnonzero(new_block)
        finite = np.where(np.isfinite(ys), ys, np.nan)
        low, high = np.fmin.reduceat(finite, starts), np.fmax.reduceat(finite, starts)
        tolerance = np.zeros(int(bs[-1]) + 1)
        tolerance[bs[starts]] = tie_tolerance(np.where(high >= low, high - low, 0.0),
                                              _nan_as_zero(np.fmax(np.abs(low), np.abs(high))))
    else:
        tolerance = np.asarray(tolerance, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        apart = np.concatenate(([True], ~(ys[1:] - ys[:-1] <= tolerance[bs[1:]])))
    new_group = new_block | apart
    first = np.flatnonzero(new_group)
    group = np.cumsum(new_group) - 1
    snapped = np.empty_like(y)
    snapped[order] = ys[first[group]]
    # pairs joined: the pairs of each group minus those already exactly equal
    sizes = np.bincount(group).astype(np.int64)
    exact = np.concatenate(([True], new_group[1:] | (ys[1:] != ys[:-1])))
    exact_sizes = np.diff(np.concatenate((np.flatnonzero(exact), [ys.size]))).astype(np.int64)
    n_pairs = int((sizes * (sizes - 1) // 2).sum() - (exact_sizes * (exact_sizes - 1) // 2).sum())
    return snapped, n_pairs


def difference_tolerance(spread: ArrayLike, magnitude: ArrayLike) -> NDArray[np.float64]:
    """The distance within which a difference of two means of scores (or of two scores) is 0 but for rounding, and
    two such differences are one value: twice the :func:`tie_tolerance` of the scores the two means are of (their
    ``spread``, range, and ``magnitude``, largest ``|score|``), each mean rounded at their magnitude; elementwise.

    The one home of this tolerance (review s36 rv36a): equivalence's differences of means, task_table's Hedges' g,
    the rank test's Wilcoxon post hoc and Quade's ranges and selection_check's effects read it of the two agents'
    own scores on one task (a third agent's run at 1e9 zeroed A - B's difference of 1e-4 where it was read of every
    agent's); :func:`noise_free` shows the values within it of 0 as 0, :func:`difference_ties` ties differences.

    >>> float(difference_tolerance(2.0, 1.0)) == 2 * (2e-12 + 4 * 2.0 ** -52)
    True
    """
    return 2.0 * tie_tolerance(spread, magnitude)


#: The largest share of an aggregate over tasks that one task's values can carry (:func:`aggregate_tolerance`), per
#: aggregate: a mean over tasks weighs each 1/T; an interquartile mean whose tasks weigh alike keeps the middle half
#: of them, a task's runs at most 1/T of the whole and so 2/T of the mean kept; a median (or any other) may be one
#: task's value alone.
TASK_SHARE = {"mean": 1.0, "optimality_gap": 1.0, "iqm": 2.0}


def aggregate_tolerance(tolerance: ArrayLike, statistic: str) -> NDArray[np.float64]:
    """The rounding of a difference of two aggregates over tasks, from each task's own ``tolerance`` (..., tasks),
    the :func:`difference_tolerance` of the two agents' scores on that task (NaN: a task without them, which the
    aggregate leaves out): the most a combination of the tasks'
    values with weights summing to 1, none above the aggregate's share of one task (:data:`TASK_SHARE` / T, at most
    1), can carry of their roundings (the largest tolerances first, each at that share). Not one tolerance of the
    scores pooled over tasks: a task at 1e9 then zeroed real differences of 1e-4 on the others (review s37 rv37a).

    >>> [float(aggregate_tolerance([4.0, 1.0, 1.0, 2.0], s)) for s in ("mean", "iqm", "median")]
    [2.0, 3.0, 4.0]
    """
    tolerance = np.asarray(tolerance, dtype=np.float64)
    held = ~np.isnan(tolerance)
    n = held.sum(axis=-1)[..., None]
    share = np.minimum(TASK_SHARE.get(statistic, np.inf) / np.fmax(n, 1), 1.0)
    weight = np.clip(1.0 - share * np.arange(tolerance.shape[-1]), 0.0, share)  # the largest first
    return (-np.sort(np.where(held, -tolerance, 0.0), axis=-1) * weight).sum(axis=-1)


def noise_free(values: ArrayLike, spread: ArrayLike, magnitude: ArrayLike) -> NDArray[np.float64]:
    """``values`` with those within :func:`difference_tolerance` of 0 (from the scores' ``spread``, their range, and
    ``magnitude``, their largest ``|score|``; elementwise) set to 0: the rounding left by a difference or mean of
    scores that cancel, shown as 0 (the tie rule of :func:`near_ties`, so that a shift of the scores does not zero a
    real difference).

    >>> noise_free([0.1 + 0.2 - 0.3, 0.25], 0.3, 0.3).tolist()
    [0.0, 0.25]
    """
    values = np.asarray(values, dtype=np.float64)
    return np.where(np.abs(values) <= difference_tolerance(spread, magnitude), 0.0, values)


def difference_ties(values: ArrayLike, tolerance: ArrayLike) -> NDArray[np.float64]:
    """``values`` (differences, each within its ``tolerance`` of its rounding: :func:`difference_tolerance`) with
    those that are one value but for rounding made equal, without chaining and whatever their order: those within
    their own tolerance of 0 are 0 (:func:`noise_free`'s rule; each tolerance is its own task's scale, so a 0 at a
    large scale does not take a small task's real difference, review s36 rvfix36); the others sorted by value, equal
    ones by tolerance from the largest, a group starts at its smallest value and takes each next one that lies within
    the two's tolerances of it (their sum), every member taking the group's first value; NaN stays. Unlike
    :func:`near_ties`, whose groups chain steps below the tolerance (review s36 rv36a: |d| of 1e-4 .. 8e-4 joined one
    group under a tolerance of 4e-4).

    Vectorised (audit s38 fixd38: a loop over the values, too slow for a mixed model's residuals): the sorted values
    split into clusters where no earlier value's reach (its value plus its tolerance) comes within the next one's
    tolerance of it, so that no group spans two; each pass then forms the next group of every cluster at once, as
    many passes as a cluster's groups (one for values equal but for rounding).

    >>> difference_ties([2.8, 0.3, 2.2, 1.6, 1.0], 0.5).tolist()
    [2.2, 0.0, 2.2, 1.0, 1.0]
    """
    values = np.asarray(values, dtype=np.float64)
    tolerance = np.broadcast_to(np.asarray(tolerance, dtype=np.float64), values.shape)
    zero = np.abs(values) <= tolerance
    out = np.where(zero, 0.0, values)
    rest = np.flatnonzero(np.isfinite(values) & ~zero)
    if rest.size < 2:
        return out
    order = rest[np.lexsort((-tolerance[rest], values[rest]))]
    v, t = values[order], tolerance[order]
    # a value no earlier one can reach starts a cluster (a group never crosses it: it would start there anyway); the
    # reach's own rounding is allowed for (8 eps of the terms), so that the pairs' test alone decides at the margin
    reach = np.fmax.accumulate(v + t)
    gap, slack = v[1:] - reach[:-1], t[1:] + 8 * np.finfo(np.float64).eps * (np.abs(v[1:]) + np.abs(reach[:-1]) + t[1:])
    cluster = np.cumsum(np.concatenate(([True], ~(gap <= slack))))
    pending = np.arange(v.size)
    while pending.size:
        c = cluster[pending]
        starts = np.concatenate(([True], c[1:] != c[:-1]))
        first = pending[np.maximum.accumulate(np.where(starts, np.arange(pending.size), 0))]
        apart = ~(v[pending] - v[first] <= t[first] + t[pending])
        # the group: its cluster's pending values before the first one apart from the cluster's first
        seen = np.cumsum(apart)
        member = seen == (seen - apart)[starts][np.cumsum(starts) - 1]
        out[order[pending[member]]] = v[first[member]]
        pending = pending[~member]
    return out


def near_tied_blocks(y: ArrayLike, snapped: ArrayLike, block: ArrayLike) -> NDArray[np.intp]:
    """The codes of the blocks (sorted) in which :func:`near_ties` joined scores that differ: where ``snapped``, its
    result for ``y``, moved a score (each group takes its smallest score, so a block with a pair joined moves one).

    >>> y = [0.0, -7e-15, 1.0, 2.0, 1.0]; near_tied_blocks(y, near_ties(y, [0, 0, 0, 1, 1])[0], [0, 0, 0, 1, 1])
    array([0])
    """
    y, snapped = np.asarray(y, dtype=np.float64), np.asarray(snapped, dtype=np.float64)
    return np.unique(np.asarray(block, dtype=np.intp)[np.isfinite(y) & (snapped != y)])


#: How many tasks the near-tie note names before counting the rest ("task_01, task_02, task_03 and 3 more tasks")
NEAR_TIE_TASKS_NAMED = 3


def near_tie_note(n_pairs: int, where: str = "in the ranks", counted: str = "not a win",
                  tasks: Sequence[str] = ()) -> str | None:
    """The note of a result whose ranks joined near-equal scores (``n_pairs`` pairs, :func:`near_ties`' count; None
    when there are none); ``where`` and ``counted`` say where the ties were read and how a tie counts there
    (percentiles' game: "in the payoffs", a win for both with ties="le"); ``tasks``: the names of the tasks where
    they were (:func:`near_tied_blocks`), the first :data:`NEAR_TIE_TASKS_NAMED` named and the rest counted (audit
    s30 mends30: the note named none); none given, "of one task".

    The note gives no count: the pairs that differ but tie are those the scores' representation kept apart, which
    the units decide (audit s21: 12,583 pairs of six Atari 100k games, 12,488 after a map a * y + b of each game's
    scores whose rounding made some exactly equal), whereas the ties, and so the ranks, are the same in any units.

    >>> near_tie_note(0) is None, near_tie_note(3).startswith("some scores of one task are within 1e-12")
    (True, True)
    """
    if not n_pairs:
        return None
    from .format import count, join_and, names_shown  # here: format loads the methods' registry (vocabulary)

    shown = names_shown(tasks)
    which = "one task" if not shown else join_and(shown) if len(shown) <= NEAR_TIE_TASKS_NAMED else (
        ", ".join(shown[:NEAR_TIE_TASKS_NAMED]) + f" and {count(len(shown) - NEAR_TIE_TASKS_NAMED, 'more task')}")
    return (f"some scores of {which} are within {TIE_TOLERANCE:g} of each other (relative to the task's range, plus "
            f"{TIE_ULPS} rounding units of its largest |score|) and were treated as ties {where}: floating-point "
            f"noise, {counted}")


def doubled_midranks(y: ArrayLike, block: ArrayLike, n_blocks: int) -> tuple[NDArray[np.int64], NDArray[Any]]:
    """Twice the within-block mid-ranks (integers) and sum(t**3 - t) of ties per block.

    Ties are scores equal after :func:`near_ties` (exact equality, as R's ``rank()``, plus differences below the
    block's :func:`tie_tolerance`).
    """
    block = np.asarray(block, dtype=np.intp)
    return exact_doubled_midranks(near_ties(y, block)[0], block, n_blocks)


def exact_doubled_midranks(y: NDArray[Any], block: NDArray[np.intp],
                           n_blocks: int) -> tuple[NDArray[np.int64], NDArray[Any]]:
    """:func:`doubled_midranks` of scores whose ties are already made: only exactly equal scores tie (``-0.0`` and
    ``0.0`` too), as in R's ``rank()`` and ``scipy.stats.rankdata``. No NaN (it would sort last and take ranks)."""
    order = block_value_order(y, block)
    ys, bs = y[order], block[order]
    idx = np.arange(y.size)
    new_block = np.concatenate(([True], bs[1:] != bs[:-1]))
    new_group = new_block | np.concatenate(([True], ys[1:] != ys[:-1]))
    block_start = np.maximum.accumulate(np.where(new_block, idx, 0))
    first = idx[new_group]
    last = np.concatenate((first[1:] - 1, [y.size - 1]))
    group = np.cumsum(new_group) - 1
    doubled = np.empty(y.size, dtype=np.int64)
    doubled[order] = first[group] + last[group] + 2 - 2 * block_start
    t = (last - first + 1).astype(np.float64)
    tie_sum = np.bincount(bs[first], weights=t**3 - t, minlength=n_blocks)
    return doubled, tie_sum


def midranks(y: ArrayLike, block: ArrayLike) -> NDArray[np.float64]:
    """Mid-ranks of ``y`` within each block (ties get the average rank).

    Parameters
    ----------
    y : array_like of float, shape (N,)
        Responses.
    block : array_like of int, shape (N,)
        Block code of each response; rows need not be sorted.

    Returns
    -------
    ndarray of float, shape (N,)
        Rank of each response among the responses of its block, 1 = smallest,
        ties sharing the mean of their ranks, as R's ``rank(ties.method =
        "average")``; scores within the block's :func:`tie_tolerance` of each other
        are ties (:func:`near_ties`).
    """
    block = np.asarray(block, dtype=np.intp)
    n_blocks = int(block.max()) + 1 if block.size else 0
    return doubled_midranks(y, block, n_blocks)[0] / 2.0


def floored_standard_errors(std_errors: ArrayLike, replicates: ArrayLike, share: float,
                             axis: int = 0) -> NDArray[np.float64]:
    """Each resample's standard error raised to at least ``share`` times the standard deviation of the resamples'
    statistic (``replicates`` along ``axis``), for bootstrap-t intervals and bands.

    A resample that repeats one run of a task (or whose runs tie) has a standard error near 0 that sees none of its
    real deviation from the estimate, and its studentised deviation, huge, would set the interval's quantile;
    floored, it is at most its deviation over ``share`` of the bootstrap's spread.  The one home of that floor
    (the curves' bands and the bootstrap's studentised intervals).  NaN replicates are left out of the spread (no
    spread at all: no floor); a NaN standard error takes the floor (``fmax``).

    >>> floored_standard_errors([[0.0, 2.0], [1.0, 0.0]], [[1.0, 0.0], [3.0, 0.0]], 0.25).tolist()
    [[0.3535533905932738, 2.0], [1.0, 0.0]]
    """
    import warnings

    replicates = np.asarray(replicates, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a slice without values: no spread, no floor
        spread = np.nanstd(replicates, axis=axis, ddof=1, keepdims=True)
    return np.fmax(std_errors, share * np.nan_to_num(spread))


#: Floor of a resample's standard error in the bootstrap's studentised intervals of the IQM, mean and optimality
#: gap (and the equivalence test's bootstrap-t aggregate, which reads the bootstrap's resamples), as a share of the
#: resamples' standard deviation (:func:`floored_standard_errors`; the curves have their own shares).
#: A resample that repeats one run of a task has that task's variance 0: where one task dominates the spread (raw
#: scores of one of 5 tasks 100 times the others'), at 3 runs a ninth of the resamples do, their t is in the
#: hundreds, and the mean's interval was 6 times wider unfloored than floored at 0.25 for the same coverage (480
#: intervals: 0.98 and 0.98 on normal scores, 0.95 and 0.94 skewed); a floor of 0.5 lost it (0.87 skewed, 0.84
#: capped). On issue 40's grid the floor of 0.25 kept every row at 3 runs that held without it (it binds
#: rarely from 5 runs). Chosen by simulation (issue 40).
STUDENTIZED_SE_FLOOR = 0.25


def run_expansion(fewest_runs: ArrayLike) -> NDArray[np.float64]:
    """sqrt(c / (c - 1)) for each agent's fewest runs c in a task (1 below 2 runs, where nothing is given): the
    bootstrap's studentised interval's half-widths (and the equivalence test's bootstrap-t aggregate) are scaled by
    it, as the expanded and the median's intervals are.

    Resampling c runs shrinks the variance of each task mean by (c - 1) / c, and the bootstrap-t's quantiles did
    not make up for it on skewed and heavy-tailed scores (issue 40, 480 intervals a row): with the factor the
    optimality gap at 26 tasks of 10 skewed runs covered 0.933 (0.917 without), the mean at 5 tasks of 20
    heavy-tailed runs 0.925 (0.919); the mean at 5 tasks of 5 skewed runs rose from 0.906 to 0.917, still short
    (its misses are on the upper side: samples without a large run), which the bootstrap's skew widening
    (:func:`skew_widened`) then closed (0.927, worst design draw 0.892).
    """
    fewest_runs = np.asarray(fewest_runs, dtype=np.float64)
    return np.where(fewest_runs >= 2, np.sqrt(fewest_runs / np.maximum(fewest_runs - 1, 1)), 1.0)


def cornish_fisher_shift(skewness: ArrayLike, level: float) -> NDArray[np.float64]:
    """The Cornish-Fisher (Edgeworth) term of a studentised mean at ``level``: skewness / 6 (2 z^2 + 1), in
    standard errors, z the normal quantile of (1 + level) / 2.

    The one home of the term: the skew widening of intervals and bands (:func:`skew_widened`) multiplies it by
    the standard error.  The tuning views' skew-t band
    (``tuning._kernels.skew_t_band``) writes it as ``|gamma| (2 z^2 + 1) / 6``, the same term rounded in another
    order, and the selection reporter's skew-corrected t (:func:`hall_transform`) uses Hall's
    transformation, whose first-order term it is; both keep their own arithmetic (see there).

    Parameters
    ----------
    skewness : array_like
        The skewness (standardised third cumulant) of the estimate whose interval is corrected, e.g. the runs'
        skewness over sqrt(n) for a mean of n runs.
    level : float
        The two-sided confidence level (e.g. 0.95).

    Returns
    -------
    ndarray
        The shift of the interval's ends, in standard errors, the same sign as ``skewness``. For the studentised
        mean T of skewness gamma, P(T <= x) = Phi(x) + gamma (2 x^2 + 1) / 6 phi(x) + O(1/n) (Edgeworth), so its
        quantiles are -/+ z - shift to first order and the interval mean - se (its quantiles) has both ends moved
        up by the shift for a right-skewed estimate.

    References
    ----------
    Hall, P. (1992). *The Bootstrap and Edgeworth Expansion*. Springer. Chapter 2 (Edgeworth and Cornish-Fisher
    expansions; the studentised mean's first polynomial q_1(x) = gamma (2 x^2 + 1) / 6).

    Examples
    --------
    >>> round(float(cornish_fisher_shift(1.0, 0.95)), 12)  # (2 * 1.959963984540054^2 + 1) / 6
    1.447152940231
    """
    from scipy.special import ndtri  # here, so that importing rlstats does not import scipy

    z = ndtri((1 + level) / 2)
    # skewness / 6 first, then the polynomial: the bootstrap's widening rounded it in this order (bit for bit)
    return np.asarray(skewness, dtype=np.float64) / 6 * (2 * z * z + 1)


def skew_widened(bounds: ArrayLike, standard_error: ArrayLike, skewness: ArrayLike,
                 level: float) -> NDArray[np.float64]:
    """``bounds`` (..., 2) widened on the side of the skew by the Cornish-Fisher (Edgeworth) term of a studentised
    mean, :func:`cornish_fisher_shift` standard errors, z the normal quantile of ``level``; never narrowed.
    ``standard_error`` and ``skewness`` have the shape of ``bounds`` without its last axis. The one home of the
    widening: the bootstrap's mean and median intervals and curves()' mean and median bands, step by step.

    Why (bootstrap): the t interval of the median is symmetric, but its middle task's mean is skewed like the runs: at 5
    tasks of 10 lognormal runs every miss was above the interval (a middle task without its rare large runs), 0.936
    pooled and 0.873 in the design draw whose middle task is the narrowest (1,600 intervals); widened on that side,
    0.964 and 0.935, 1.13 times as wide (1.02 on normal scores).  Shifting both ends instead moved the misses below the
    interval at 3 runs; Hall's transformation on the t quantile made it 1.5 times as wide.  The mean's bootstrap-t reads
    skewness from each task's few runs: at 5 tasks of 5 lognormal runs its misses were above it too (0.933 on 1,920
    intervals, 0.943 over 6,080), and the pooled skewness's term, on top, adds about 0.8 points where runs are skewed,
    1.02-1.07 times as wide at 10 runs.

    Examples
    --------
    >>> skew_widened(np.array([[-1.0, 1.0]]), np.array([0.5]), np.array([0.6]), 0.95).round(6).tolist()
    [[-1.0, 1.434146]]
    """
    shift = cornish_fisher_shift(skewness, level) * np.asarray(standard_error, dtype=np.float64)
    out = np.array(bounds, dtype=np.float64)
    out[..., 0] -= np.maximum(-shift, 0.0)
    out[..., 1] += np.maximum(shift, 0.0)
    return out


#: The metrics whose default interval takes on each side the wider of the bootstrap-t and Welch t bounds.
WELCH_FLOOR_METRICS = ("mean", "optimality_gap")
#: The most tasks on which the median of task means is their mean: the task's own mean on one, the two's mean on two
#: (with any runs per task: both weigh each task alike). There the median takes the mean's interval in bootstrap() and
#: its bands in curves() (audits s26 median26 and curves26).
MEDIAN_IS_MEAN_TASKS = 2


def median_is_mean(n_tasks: int) -> bool:
    """Whether the median of ``n_tasks`` task means is their mean (:data:`MEDIAN_IS_MEAN_TASKS` or fewer tasks): the one
    rule that bootstrap()'s median interval, curves()' median bands and the ranges-apart caution
    (``normalization.warn_raw_scales``) read (audit s27 median27: each had written it)."""
    return n_tasks <= MEDIAN_IS_MEAN_TASKS


def gap_is_mean(scores: ArrayLike, agent: ArrayLike, n_agents: int, gamma: float) -> NDArray[np.bool_]:
    """(n_agents,) whether no score of each agent is above ``gamma``: then its optimality gap, the mean of
    max(gamma - score, 0) over each task's runs averaged over tasks, is gamma minus its mean of task means on any
    tasks and runs (at every step of a curve), one number whose resamples are the mean's reflected, so it takes the
    mean's interval or bands reflected (gamma minus their ends), by their rules. The one rule of bootstrap()'s gap
    interval and curves()' gap bands (audit s27 median27, curvegap27). ``scores``: (rows,) or (rows, steps), NaN
    where not logged (not read); ``agent``: (rows,) each row's agent code."""
    above = np.asarray(scores) > gamma  # NaN: False
    per_row = above.reshape(above.shape[0], -1).sum(axis=1)
    return np.bincount(np.asarray(agent), weights=per_row, minlength=n_agents) == 0


#: The short name of such an interval where a table names its method (equivalence's aggregate of the mean).
WELCH_FLOOR_NAME = "bootstrap-t with Welch t floor"
#: A bound the Welch floor sets whose bootstrap-t bound lies more than this many of its Monte Carlo SEs inside it is
#: the closed form, whatever the resamples (another draw moves the bootstrap-t bound beyond it less than once in 740,
#: Phi(-3)): its Monte Carlo SE is 0, not the 4e-83 of Phi(d / se) there (audit s24 small24).
WELCH_FLOOR_CLOSED_SE = 3.0


def welch_floor(bounds: NDArray[np.float64], se: NDArray[np.float64], estimates: NDArray[np.float64],
                observed: NDArray[np.float64], welch: ArrayLike, level: float,
                metrics: Sequence[Any]) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """(bounds, mc_se, floored) with the mean's and the optimality gap's bootstrap-t bounds moved out, on each side, to
    the Welch t bound where that is wider: estimate -+ t_df sqrt(c / (c - 1)) SE, ``observed`` the (K, M) standard errors
    already times sqrt(c / (c - 1)) (c the agent's fewest runs in a task), df ``welch`` (K,), the Welch-Satterthwaite
    degrees of freedom of the agent's mean over tasks (``rlstats.methods.bootstrap._small_runs.welch_df``; the
    optimality gap reads the same). The one home of the floor: the bootstrap's default interval, and the equivalence
    test's aggregate of the mean on its difference (one row, the difference's Welch-Satterthwaite df; audit s20).

    Why (audit s20): the bootstrap-t alone covered 0.928 (mean) and 0.930 (optimality gap) of 1,920 nominal 95%
    intervals at 5 tasks x 20 heavy-tailed runs (t with 3 df), below its level by more than 3 Monte Carlo SE, and less
    as the runs grew (0.948 at 10), so no count of runs to withhold below was measured. The Welch t interval alone held
    there (the mean's 0.956) but
    not on skewed runs (0.912 at 5 tasks x 5 runs), where the bootstrap-t's skewed quantiles do. Their wider bound on
    each side covered 0.958 and 0.946 there, and 0.948 and 0.976 at 5 skewed runs (1,920 intervals each); none of the
    64 grid rows of the mean and the optimality gap (5 and 26 tasks x 3-20 runs) misses, at 1.00-1.08 times the
    bootstrap-t's median width. The Welch bound is a closed form of the data, so a bound's Monte Carlo error is taken
    as the bootstrap-t bound's times Phi(d / se), about the chance that other resamples put the bootstrap-t bound
    beyond the Welch one, d its distance beyond it (negative inside): all of it where the bootstrap-t bound is far
    outside, none where it is far inside (against the spread over seeds: tests/test_bootstrap.py), and exactly 0 more
    than :data:`WELCH_FLOOR_CLOSED_SE` of its SEs inside. NaN (withheld) bootstrap-t bounds stay NaN. ``floored``
    (the shape of ``bounds``) is True where the Welch bound was taken.

    The optimality gap's floor reads the mean's df, not the Welch-Satterthwaite df of its own task means of
    max(gamma - score, 0), which would match its standard error (audit s24 small24: 2.38 against 11.6 for SPR at 3
    runs on Atari 100k). Its own df held as well where measured (tests/reference/coverage_gap_welch_df.py, the same
    resamples of the same data sets): on issue 40's skewed and capped families at 5 and 26 tasks x 3 and 5 runs,
    nominal 95% intervals covered 0.975-0.988 with it and 0.975-0.992 with the mean's (lowest design draw 0.950
    either way; 960 intervals a row at 5 tasks, 240 at 26), and at 5 tasks x 10 and 20 heavy-tailed runs, where the
    floor was needed, 0.949 and 0.948 with either (1,920 each), the median widths within 7% of each other (its own df
    is not always the larger: median 4.0 against 4.4 at 5 tasks x 3 skewed runs, 14.9 against 10.6 at 26). It is
    kept because the calibration table's 32 default rows of the gap at 5 and 26 tasks (``bootstrap.interval``) were
    measured with the mean's df: a switch is those rows re-measured with it (``tests/reference/calibrate.py --only
    bootstrap.interval --default-only``), not this change alone. On one task both dfs are c - 1 (the gap's infinite
    where no run is below gamma).
    """
    from scipy import special, stats
    floored = np.zeros(np.shape(bounds), dtype=bool)
    columns = [j for j, m in enumerate(metrics) if m in WELCH_FLOOR_METRICS]
    if not columns:
        return bounds, se, floored
    half = stats.t.ppf((1 + level) / 2, np.asarray(welch, dtype=float))[:, None] * observed[:, columns]
    welch_bounds = np.stack([estimates[:, columns] - half, estimates[:, columns] + half], axis=-1)
    old = bounds[:, columns]
    wider = np.stack([welch_bounds[..., 0] < old[..., 0], welch_bounds[..., 1] > old[..., 1]], axis=-1)
    bounds, se = bounds.copy(), se.copy()
    bounds[:, columns] = np.where(wider, welch_bounds, old)  # NaN compares False: a withheld bound stays withheld
    beyond = (old - welch_bounds) * np.array([-1.0, 1.0])  # > 0 where the bootstrap-t bound is the wider
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = beyond / se[:, columns]  # the bootstrap-t bound's distance beyond the Welch one, in its MC SEs
        share = np.where(inside < -WELCH_FLOOR_CLOSED_SE, 0.0, special.ndtr(inside))
    se[:, columns] = np.where(se[:, columns] > 0, se[:, columns] * share, se[:, columns])
    floored[:, columns] = wider
    return bounds, se, floored


def skewness_of_means(run_skewness: ArrayLike, variances: ArrayLike, sizes: ArrayLike,
                      axis: int = 0) -> NDArray[np.float64]:
    """The skewness of a mean of independent task means whose runs share one skewness: for :func:`skew_widened`.

    A task of c runs with variance s^2 and skewness g has a mean of variance v = s^2 / c and third cumulant
    g s^3 / c^2 = g v^(3/2) / sqrt(c); an average of such means over the tasks S has skewness
    g sum_S v^(3/2) / sqrt(c) over (sum_S v)^(3/2) (the 1 / abs(S) factors cancel). 0 where that is not finite
    (no task with spread). The one home of the formula: bootstrap()'s mean and median intervals read it per agent
    (``rlstats.methods.bootstrap._small_runs.widening_skewness``, S all tasks or the middle ones), curves()' median
    and mean bands per step (``rlstats.methods.curves._kernels.median_skewness`` and ``mean_skewness``).

    Parameters
    ----------
    run_skewness : array_like
        g, the runs' skewness (pooled over tasks); broadcast against the sums over ``axis``.
    variances : array_like
        v, each task mean's variance (s^2 / c), the tasks along ``axis``.
    sizes : array_like
        c, each task's runs, the shape of ``variances``.
    axis : int
        The axis of the tasks.

    Returns
    -------
    ndarray
        The skewness, ``variances``' shape without ``axis``.

    Examples
    --------
    >>> round(float(skewness_of_means(2.0, [0.25, 1.0], [4, 4])), 12)  # 2 (0.125 + 1) / 2 / 1.25^1.5
    0.8049844719
    """
    variances, sizes = np.asarray(variances, dtype=np.float64), np.asarray(sizes, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (np.asarray(run_skewness, dtype=np.float64) * np.sum(variances ** 1.5 / np.sqrt(sizes), axis=axis)
               / np.sum(variances, axis=axis) ** 1.5)
    return np.where(np.isfinite(out), out, 0.0)


def hall_transform(s: ArrayLike, gamma: ArrayLike, n: ArrayLike) -> NDArray[np.float64]:
    """Hall's (1992) monotone skewness correction of a studentised mean ``s = (mean - mu0) / sd``:
    ``sqrt(n) (s + gamma s^2 / 3 + gamma^2 s^3 / 27 + gamma / (6 n))``, a cubic increasing in s for any gamma.

    Its first-order term at t = sqrt(n) s is gamma (2 t^2 + 1) / (6 sqrt(n)), the Cornish-Fisher shift of
    :func:`cornish_fisher_shift` at the mean's skewness gamma / sqrt(n); the whole cubic, not that shift, is kept
    here: it is monotone, so a test and its inversion (:func:`hall_inverse`) agree. The one home of the
    transformation: the selection reporter's skew-corrected t, the skew-corrected band of
    ``performance_profile(kind="tasks")`` and curves()' pointwise band of the mean
    (``rlstats.methods.curves._kernels.hall_band``) use it, the two bands through :func:`hall_inverse` capped.

    Examples
    --------
    >>> round(float(hall_inverse(hall_transform(0.5, 1.2, 6), 1.2, 6)), 12)
    0.5
    """
    s, gamma, n = (np.asarray(v, dtype=np.float64) for v in (s, gamma, n))
    return np.asarray(np.sqrt(n) * (s + gamma * s ** 2 / 3 + gamma ** 2 * s ** 3 / 27 + gamma / (6 * n)))


#: Audit s26 (hall26): an end of Hall's inverted interval on the side away from the skew follows the inverted cubic
#: only while the cubic's slope there, (1 + k u / 3)^2, is at least this number squared (a = 0.6: the end moves at
#: most 1 / a^2 = 2.8 standard errors per unit of the quantile), and beyond goes on along its tangent in the mean's
#: skewness k (:func:`hall_inverse` with ``capped=True``).
HALL_SLOPE_ROOT = 0.6


def hall_cap(q: ArrayLike, root: float = HALL_SLOPE_ROOT) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The mean's skewness k at which the far end of Hall's interval at quantile ``q`` (> 0) reaches the point of
    the cubic where 1 + k u / 3 = ``root`` (``u`` the end in standard errors): 1 - k q - k^2 / 6 = root^3, written
    2 (1 - root^3) / (q + sqrt(q^2 + 2 (1 - root^3) / 3)) so that no difference cancels at large q; and the far
    end's slope in k there, (q + k / 3) / (k root^2) - 3 (1 - root) / k^2 standard errors per unit of k."""
    q = np.asarray(q, dtype=np.float64)
    room = 1 - root ** 3
    cap = 2 * room / (q + np.sqrt(q * q + 2 * room / 3))
    return cap, (q + cap / 3) / (cap * root ** 2) - 3 * (1 - root) / cap ** 2


def hall_inverse(x: ArrayLike, gamma: ArrayLike, n: ArrayLike, capped: bool = False) -> NDArray[np.float64]:
    """The s with ``hall_transform(s, gamma, n) == x`` (real cube root: the transform is
    ``sqrt(n) (((1 + gamma s / 3)^3 - 1) / gamma + gamma / (6 n))``); ``x / sqrt(n)`` where gamma is 0.

    With a = cbrt(1 + gamma y), s = 3 (a - 1) / gamma is written 3 y / (a^2 + a + 1) (as a^3 - 1 = (a - 1)
    (a^2 + a + 1)): the difference a - 1 cancelled to a few digits for a skewness near 0 (1e-5 relative at 1e-11,
    audit s12 review), and the denominator is at least 3/4.

    ``capped=True`` is the inversion an interval's end takes, ``x`` its quantile (``-q`` or ``q``): the cubic is
    flat at sqrt(n) s = -3 / k (k = gamma / sqrt(n), the mean's skewness), and where ``|x|`` passes ``1 / |k| - |k| / 6``
    the inverted end on the side away from the skew (x gamma < 0) crosses that point, so an interval's width jumps
    with the skewness (a cube root's vertical tangent: 1.70 times the t interval at G1 = 0.78 of 5 runs, 2.38 at
    0.80, x = -+2.776) and then shrinks as it grows (2.09 at 1.5). Capped, k is held at :func:`hall_cap`'s of ``|x|``
    (the skewness at which the cubic's slope at that end falls to ``HALL_SLOPE_ROOT`` squared), and the end away
    from the skew goes on along its tangent in k beyond, so an interval between the two ends widens with the
    skewness, continuously (audit s26 hall26, here since hall26b; an end on the side of the skew stays at the cap's value, inside the
    t interval's). Where ``|x|`` is infinite, the plain inversion's +-inf. curves()' band of the mean
    (``rlstats.methods.curves._kernels.hall_band``) and the skew-corrected band of
    ``performance_profile(kind="tasks")`` invert so; the selection reporter's test and its interval do not (a test's
    p-value needs the transformation itself, at every level)."""
    gamma, n = np.asarray(gamma, dtype=np.float64), np.asarray(n, dtype=np.float64)
    if capped:
        x = np.asarray(x, dtype=np.float64)
        root_n = np.sqrt(n)
        with np.errstate(invalid="ignore", divide="ignore"):  # an infinite x: a cap of 0 (its value is the plain one)
            cap, slope = hall_cap(np.abs(x))
            # gamma held at the cap, so that below it the plain inversion is returned bit for bit
            held = hall_inverse(x, np.sign(gamma) * np.minimum(np.abs(gamma), cap * root_n), n)
            beyond = np.maximum(np.abs(gamma / root_n) - cap, 0.0) * slope  # the far end's way on along its tangent
            s = np.where(x * gamma < 0, held + np.sign(x) * beyond / root_n, held)
        return np.asarray(np.where(np.isinf(x), hall_inverse(x, gamma, n), s))
    y = np.asarray(x, dtype=np.float64) / np.sqrt(n) - gamma / (6 * n)
    with np.errstate(invalid="ignore"):  # an infinite x: 0 inf or inf / inf, where s is x's (the cubic increases)
        a = np.cbrt(1 + gamma * y)
        s = 3 * y / (a * a + a + 1)
    return np.asarray(np.where(np.isinf(y), y, s))


def shape_ratios(sizes: ArrayLike, second: ArrayLike, third: ArrayLike | None = None,
                 fourth: ArrayLike | None = None) -> tuple[NDArray[np.float64] | None, NDArray[np.float64] | None]:
    """Each group's skewness G1 = k3 / k2^1.5 and excess kurtosis G2 = k4 / k2^2 (unbiased k-statistics; scipy's
    ``skew`` and ``kurtosis`` with ``bias=False``) from the sums of its deviations' powers.

    Parameters
    ----------
    sizes : array_like, shape (G,)
        Values in each group, n.
    second, third, fourth : array_like, shape (G,)
        Each group's sums of the 2nd, 3rd and 4th powers of its values' deviations from the group's mean, in any
        one unit (the ratios are unit-free); ``third`` (``fourth``) None skips G1 (G2).

    Returns
    -------
    (g1, g2) : ndarray or None, shape (G,)
        G1 = k3 / k2^1.5 with k3 = n / ((n - 1)(n - 2)) S3 and k2 = S2 / (n - 1); G2 = k4 / k2^2 with k4 = n^2 ((n +
        1) m4 - 3 (n - 1) m2^2) / ((n - 1)(n - 2)(n - 3)) and k2 = n m2 / (n - 1), m_r = S_r / n. 0 for a group
        whose values do not spread (S2 = 0); not defined (NaN or inf) below 3 values for G1 and 4 for G2, which the
        caller leaves out.

    References
    ----------
    Joanes, D. N. and Gill, C. A. (1998). Comparing measures of sample skewness and kurtosis. *Journal of the Royal
    Statistical Society D* 47(1), 183-189 (G1 and G2).

    Examples
    --------
    >>> g1, g2 = shape_ratios([4], [6.75], [10.125], [26.578125])  # 0, 0, 0, 3: deviations -0.75 (3) and 2.25
    >>> float(g1[0]), float(g2[0])  # scipy.stats.skew and kurtosis with bias=False
    (2.0, 4.0)
    """
    n = np.asarray(sizes, dtype=np.float64)
    second = np.asarray(second, dtype=np.float64)
    g1 = g2 = None
    with np.errstate(invalid="ignore", divide="ignore"):
        if third is not None:
            k3 = n / ((n - 1) * (n - 2)) * np.asarray(third, dtype=np.float64)
            g1 = np.where(second > 0, k3 / (second / np.maximum(n - 1, 1)) ** 1.5, 0.0)
        if fourth is not None:
            m2, m4 = second / n, np.asarray(fourth, dtype=np.float64) / n
            k4 = n ** 2 * ((n + 1) * m4 - 3 * (n - 1) * m2 ** 2) / ((n - 1) * (n - 2) * (n - 3))
            g2 = np.where(m2 > 0, k4 / (n * m2 / (n - 1)) ** 2, 0.0)
    return g1, g2


def grouped_shape_ratios(deviations: ArrayLike, starts: ArrayLike, sizes: ArrayLike, *, skewness: bool = True,
                         kurtosis: bool = True) -> tuple[NDArray[np.float64] | None, NDArray[np.float64] | None]:
    """:func:`shape_ratios` of groups held one after another: ``deviations`` (N,) are each value's deviation from
    its group's mean (in a unit the caller picks so that 4th powers neither underflow nor overflow), group g the
    ``sizes[g]`` values from ``starts[g]``; vectorised (``np.add.reduceat``), no loop per group.

    >>> x = np.array([0.0, 0.0, 0.0, 3.0, 1.0, 2.0, 3.0])
    >>> deviations = x - np.repeat([0.75, 2.0], [4, 3])
    >>> g1, g2 = grouped_shape_ratios(deviations, [0, 4], [4, 3])
    >>> g1.tolist(), float(g2[0])
    ([2.0, 0.0], 4.0)
    """
    deviations = np.asarray(deviations, dtype=np.float64)
    starts = np.asarray(starts, dtype=np.intp)
    second = np.add.reduceat(deviations ** 2, starts)
    third = np.add.reduceat(deviations ** 3, starts) if skewness else None
    fourth = np.add.reduceat(deviations ** 4, starts) if kurtosis else None
    return shape_ratios(sizes, second, third, fourth)


@functools.lru_cache(maxsize=32)
def _wilson_z(confidence_level: float) -> Any:
    """The normal quantile of :func:`wilson_interval` at ``confidence_level``, computed once a level: scipy's
    ``norm.ppf`` costs 0.3-0.6 ms a call, the rest of a small interval a tenth of that (the power search asks one a
    row, the bound of a pair's ties one a pair)."""
    from scipy import stats
    return stats.norm.ppf(0.5 + confidence_level / 2)


def wilson_interval(successes: ArrayLike, trials: ArrayLike,
                    confidence_level: float = 0.95) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Wilson score interval of a binomial proportion (vectorised); NaN where there are no trials."""
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    # no trials, no interval (a power row withheld without simulating it)
    trials = np.where(trials > 0, trials, np.nan)
    z = _wilson_z(float(confidence_level))
    p = successes / trials
    denominator = 1 + z**2 / trials
    centre = (p + z**2 / (2 * trials)) / denominator
    half = z / denominator * np.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2))
    # At 0 or all successes the bound is exactly 0 or 1 (rounding leaves a 1e-19 otherwise).
    low = np.where(successes == 0, 0.0, np.clip(centre - half, 0, 1))
    high = np.where(successes == trials, 1.0, np.clip(centre + half, 0, 1))
    return np.where(np.isnan(trials), np.nan, low), high


def corrected_wilson_interval(proportion: ArrayLike, size: ArrayLike, confidence_level: float = 0.95
                              ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Wilson score interval with continuity correction (Newcombe 1998, method 4), for any positive ``size``.

    Each bound solves (|p_hat - p| - 1 / (2 n))^2 = z^2 p (1 - p) / n on its side of ``proportion`` (the Wilson
    interval centred half a step of 1 / n away), so ``size`` may be an effective sample size, not only a count;
    a proportion of exactly 0 (1) has the lower (upper) bound 0 (1). Vectorised; arrays broadcast.
    """
    from scipy import special
    p = np.asarray(proportion, dtype=float)
    n = np.asarray(size, dtype=float)
    z2 = special.ndtri(0.5 + confidence_level / 2) ** 2

    def wilson_root(centre, side):
        # (centre - q)^2 = z2 q (1 - q) / n: the root on ``side`` (-1 below, +1 above) of the shifted centre
        a, b = 1 + z2 / n, 2 * centre + z2 / n
        return (b + side * np.sqrt(np.maximum(b * b - 4 * a * centre * centre, 0.0))) / (2 * a)

    step = 0.5 / n
    low = np.where(p <= 0, 0.0, wilson_root(np.clip(p - step, 0.0, 1.0), -1))
    high = np.where(p >= 1, 1.0, wilson_root(np.clip(p + step, 0.0, 1.0), 1))
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def probability_of_improvement(y: ArrayLike, block: ArrayLike, is_x: ArrayLike,
                               counts: NDArray[Any]) -> NDArray[np.float64]:
    """Per block, P(X > Y) + P(X = Y) / 2 over all pairs of an X run and a Y run (Mann-Whitney U / (n_x n_y)).

    Parameters
    ----------
    y : ndarray of float, shape (N,)
        Runs of both arms.
    block : ndarray of int, shape (N,)
        Block (task) code of each run.
    is_x : ndarray of bool, shape (N,)
        True for the runs of X, False for those of Y.
    counts : ndarray, shape (n_blocks, 2)
        Runs of X (column 0) and of Y (column 1) in each block.

    Returns
    -------
    ndarray, shape (n_blocks,)
        NaN where a block lacks one of the arms.
    """
    # U = R_x - n_x (n_x + 1) / 2 counts the pairs x > y plus half the ties, R_x the X runs' mid-rank sum.
    ranks = midranks(y, block)
    cell = 2 * np.asarray(block) + (~np.asarray(is_x))
    rank_sums = np.bincount(cell, weights=ranks, minlength=2 * counts.shape[0]).reshape(-1, 2)[:, 0]
    n_x, n_y = counts[:, 0], counts[:, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rank_sums - n_x * (n_x + 1) / 2) / (n_x * n_y)


def welch_satterthwaite_df(variances: Sequence[ArrayLike], sizes: Sequence[ArrayLike],
                           axis: int | None = None) -> NDArray[np.float64]:
    """Welch-Satterthwaite degrees of freedom (sum v)^2 / sum v^2 / (n - 1) of a sum of independent variances.

    The one home of the formula: Welch's two-sample t (``variances`` (s_x^2 / n, s_y^2 / m)), the mean over tasks
    of task-level differences (also summed over the tasks' ``axis``) and the mean over tasks of one agent's task
    means (one component, summed over ``axis``).

    Parameters
    ----------
    variances : sequence of array_like
        Each component's variance, s^2 / n (the variance of its mean); the components are added elementwise.
    sizes : sequence of array_like
        The run counts n of each component, broadcast against its variance.
    axis : int, optional
        Also sum the components over this axis (e.g. the tasks); None sums the components only.

    Returns
    -------
    ndarray
        Formed from each term's share of the total variance, v / sum v, whose squares do not underflow as squared
        variances of scores in tiny units (~1e-80) do. No check of its input: NaN where every variance is 0 (0 / 0),
        infinite or NaN where a component with variance has n = 1; the callers decide what those mean.

    Examples
    --------
    >>> round(float(welch_satterthwaite_df([4.0 / 5, 1.0 / 8], [5, 8])), 12)  # 0.925^2 / (0.8^2 / 4 + 0.125^2 / 7)
    5.274078150798
    >>> welch_satterthwaite_df([np.array([[1.0, 1.0]])], [np.array([[3, 3]])], axis=-1).tolist()  # two equal terms
    [4.0]
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        # Python's sum starts at 0, and 0 + v is v: two components add as v_1 + v_2, bit for bit
        total: Any = sum(np.asarray(v, dtype=np.float64) for v in variances)
        if axis is not None:
            total = np.sum(total, axis=axis, keepdims=True)
        terms: Any = sum((np.asarray(v, dtype=np.float64) / total) ** 2 / (np.asarray(n) - 1)
                         for v, n in zip(variances, sizes))
        if axis is not None:
            terms = np.sum(terms, axis=axis)
        return np.asarray(1.0 / terms, dtype=np.float64)


#: :func:`relabellings` counts exactly up to this (a float holds it; ``math.comb`` of such a count is quick) and in
#: floating point above it, ``inf`` past the largest double.
EXACT_RELABELLINGS = 1e300
#: The most cells (relabellings x the pair's runs) of a table that lists every relabelling of two agents' runs; beyond
#: it the relabellings are drawn at random. task_table's splits (a byte a cell): 2 runs against 700 have 245,751
#: splits, a 172 MB table (review s21); curves' max-T null (8-byte run indices, built from Python lists first): 2 runs
#: against 1,000 with n_resamples=501,501 would have listed all 501,501 in 4 GB of indices and ~18 GB of lists
#: (audit s22).
ENUMERATED_CELLS = 2**23


def listable(labellings: int | float, runs: int) -> bool:
    """Whether a table of ``labellings`` relabellings of ``runs`` runs stays within :data:`ENUMERATED_CELLS` cells: the
    one cap of task_table's splits and curves' max-T null on listing every relabelling.

    >>> listable(252, 10), listable(501_501, 1_002)
    (True, False)
    """
    return labellings * runs <= ENUMERATED_CELLS


def relabellings(first: ArrayLike, second: ArrayLike) -> int | float:
    """The ways to relabel the runs of two agents within tasks, keeping each task's counts: the product over tasks
    of ``C(first + second, first)``, the size of the exact permutation null of a two-sample test (one task: a scalar).

    An exact int up to ``EXACT_RELABELLINGS``, a float above it (``inf`` past 1.8e308): the count is only compared
    with numbers of resamples and inverted into a smallest attainable p-value, and ``math.comb`` of the exact one
    takes 0.7 s at 100,000 runs of each agent (40 s at 10**6).

    >>> relabellings(3, 3), relabellings([3, 2], [3, 1]), relabellings(10**5, 10**5)
    (20, 60, inf)
    """
    a = np.atleast_1d(np.asarray(first, dtype=np.int64))
    b = np.atleast_1d(np.asarray(second, dtype=np.int64))
    log = sum(math.lgamma(int(x + y) + 1) - math.lgamma(int(x) + 1) - math.lgamma(int(y) + 1) for x, y in zip(a, b))
    if log <= math.log(EXACT_RELABELLINGS) + 1e-9 * max(1.0, log):  # the exact count holds the boundary's rounding
        exact = math.prod(math.comb(int(x + y), int(x)) for x, y in zip(a, b))
        if exact <= EXACT_RELABELLINGS:
            return exact
    return math.exp(log) if log < math.log(np.finfo(np.float64).max) else math.inf


@overload
def monte_carlo_pvalue(hits: int | np.integer[Any], n_resamples: int, smallest: float = 0.0) -> float: ...
@overload
def monte_carlo_pvalue(hits: NDArray[Any], n_resamples: int, smallest: float = 0.0) -> NDArray[np.float64]: ...
def monte_carlo_pvalue(hits: int | np.integer[Any] | NDArray[Any], n_resamples: int,
                       smallest: float = 0.0) -> float | NDArray[np.float64]:
    """``(1 + hits) / (n_resamples + 1)``: a Monte Carlo p-value that is never 0 and is valid at any B.

    ``hits`` counts resampled statistics at least as extreme as the observed
    one (an int or an array of them).  Phipson and Smyth (2010), Stat. Appl.
    Genet. Mol. Biol. 9(1), Article 39.  ``smallest``, the smallest p-value the
    exact test can attain, is a floor: drawn relabellings can fall below it by
    chance (audit s20: 0.0898 of 2,000 draws where 0.1 is the least of 20
    labellings), and the floor keeps the p-value valid (it rejects only where
    the unfloored one does).
    """
    if np.ndim(hits) == 0:
        return max((1 + int(hits)) / (n_resamples + 1), smallest)
    return np.maximum((1 + np.asarray(hits)) / (n_resamples + 1), smallest)


@overload
def monte_carlo_se(pvalue: float, n_resamples: int) -> float: ...
@overload
def monte_carlo_se(pvalue: NDArray[np.float64], n_resamples: int) -> NDArray[np.float64]: ...
def monte_carlo_se(pvalue: float | NDArray[np.float64], n_resamples: int) -> float | NDArray[np.float64]:
    """Binomial standard error ``sqrt(p (1 - p) / B)`` of a Monte Carlo p-value from B resamples."""
    return np.sqrt(pvalue * (1 - pvalue) / n_resamples)


def order_statistic_ranks(b: int, level: ArrayLike) -> tuple[Any, Any, Any, Any]:
    """(spread, lo, hi, bad) of :func:`order_statistic_se` at ``level`` of B = ``b`` statistics: the ranks wander by
    ``spread``; the two order statistics it reads are those at the 0-based positions ``lo`` and ``hi`` of the ascending
    order (0 where ``bad``: NaN levels). Only those two need be in place, so a partition at them can stand for a sort
    (AdaStop's boundaries, where a sort of every path at every interim was a sixth of its CPU)."""
    level = np.asarray(level, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        spread = np.sqrt(b * level * (1 - level))
        centre = level * (b - 1)
        lo = np.clip(np.floor(centre - spread), 0, b - 1)
        hi = np.clip(np.ceil(centre + spread), 0, b - 1)
    bad = ~np.isfinite(lo) | ~np.isfinite(hi)
    return spread, np.where(bad, 0, lo).astype(np.intp), np.where(bad, 0, hi).astype(np.intp), bad


def order_statistic_se(sorted_stats: ArrayLike, level: ArrayLike) -> NDArray[np.float64]:
    """Monte Carlo standard error of the ``level``-quantile (0-1) of B resampled statistics (bootstrap or permutation).

    Binomial order-statistic argument: the number of the B replicates below
    the true quantile is Binomial(B, p), so the estimated quantile wanders by
    about s = sqrt(B p (1 - p)) ranks.  The standard error is s ranks times
    the local slope of the empirical quantile function, measured between the
    order statistics s ranks either side of the estimate (position
    ``level * (B - 1)`` of the ascending order).  Works along the last axis;
    NaN levels give NaN.  The bootstrap's interval bounds and AdaStop's
    rejection boundaries take their Monte Carlo error from here.

    Examples
    --------
    Fifty sets of B = 10,000 normal draws: the 97.5% quantile's error is sqrt(p (1 - p) / B) / phi(1.96) = 0.0267

    >>> x = np.sort(np.random.default_rng(0).standard_normal((50, 10_000)), axis=1)
    >>> bool(abs(order_statistic_se(x, np.full(50, 0.975)).mean() / 0.0267 - 1) < 0.1)
    True
    """
    sorted_stats = np.asarray(sorted_stats, dtype=np.float64)
    level = np.asarray(level, dtype=np.float64)
    spread, lo_i, hi_i, bad = order_statistic_ranks(sorted_stats.shape[-1], level)
    x_lo = np.take_along_axis(sorted_stats, lo_i[..., None], axis=-1)[..., 0]
    x_hi = np.take_along_axis(sorted_stats, hi_i[..., None], axis=-1)[..., 0]
    width = hi_i - lo_i
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.where(width > 0, (x_hi - x_lo) * spread / np.maximum(width, 1), 0.0)
    return np.asarray(np.where(bad, np.nan, se), dtype=np.float64)


def holm(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """Holm (1979) step-down adjusted p-values (capped at 1)."""
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    return adjusted


def bonferroni(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bonferroni adjusted p-values (capped at 1)."""
    return np.minimum(1.0, p * p.size)


def _step_up(p, factor):
    """Step-up adjusted p-values: min over j >= i of factor[j] p_(j) in ascending order, capped at 1."""
    order = np.argsort(p, kind="stable")
    scaled = factor * p[order]
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return adjusted


def hochberg(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """Hochberg (1988) step-up adjusted p-values: the (m - i + 1) p_(i) made monotone from the largest down."""
    m = p.size
    return _step_up(p, m - np.arange(m, dtype=np.float64))


def benjamini_hochberg(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """Benjamini and Hochberg (1995) false-discovery-rate adjusted p-values, m p_(i) / i stepped up."""
    m = p.size
    return _step_up(p, m / np.arange(1.0, m + 1))


def benjamini_yekutieli(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """Benjamini and Yekutieli (2001) adjusted p-values: Benjamini-Hochberg's times sum_{i<=m} 1/i (any dependence)."""
    m = p.size
    return _step_up(p, m * np.sum(1.0 / np.arange(1.0, m + 1)) / np.arange(1.0, m + 1))


def hommel(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """Hommel (1988) adjusted p-values: closed testing with Simes' test of every intersection.

    The adjusted p of a hypothesis is the largest Simes p-value over the intersections that contain it.  Wright
    (1992) reduces these to one pass over the intersection sizes j = m..2: Simes' p of the j largest p-values, c_j =
    min_l j p_(m-j+l) / l, bounds every hypothesis among them, and for a smaller p_(i) the worst intersection of
    size j joins it to j - 1 of the largest, with Simes' p min(c_j, j p_(i)).
    """
    m = p.size
    order = np.argsort(p, kind="stable")
    ordered = p[order]
    adjusted = ordered.copy()
    for j in range(m, 1, -1):
        c = float(np.min(j * ordered[m - j:] / np.arange(1.0, j + 1)))
        adjusted[m - j:] = np.maximum(adjusted[m - j:], c)
        adjusted[:m - j] = np.maximum(adjusted[:m - j], np.minimum(c, j * ordered[:m - j]))
    out = np.empty_like(p)
    out[order] = np.minimum(adjusted, 1.0)
    return out


#: R's p.adjust methods under scipy's names ("bh", "by": scipy's false_discovery_control), name -> the adjusted
#: p-values of a vector of them: the rank test's post hoc and the mixed model's pairs read them (audit s32 rhabit32)
P_ADJUST = {"holm": holm, "bonferroni": bonferroni, "hochberg": hochberg, "hommel": hommel, "bh": benjamini_hochberg,
            "by": benjamini_yekutieli, "none": np.copy}


def _signed_rank_counts(n):
    """Number of subsets of {1..n} with each sum 0..n(n+1)/2 (the exact null of V times 2**n)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for i in range(1, n + 1):
        counts[i:] = counts[i:] + counts[:-i].copy()
    return counts


def wilcoxon_signed_rank(differences: ArrayLike) -> tuple[float, float, int]:
    """Two-sided Wilcoxon signed-rank test of paired differences, with R's ``wilcox.test`` defaults.

    Zero differences are dropped; V is the sum of the ranks of |d| over the
    positive d (mid-ranks for tied |d|).  With fewer than 50 non-zero
    differences, no tied |d| and no zero, the p-value is exact (R's
    ``psignrank``); otherwise the normal approximation with continuity
    correction and the tie-corrected variance n(n+1)(2n+1)/24 - sum(t^3 - t)/48.

    Returns
    -------
    (V, pvalue, n_used) ; pvalue is NaN when no difference is non-zero.

    References
    ----------
    Wilcoxon, F. (1945), Biometrics Bulletin 1(6), 80-83; Hollander, M. and
    Wolfe, D. A. (1973), Nonparametric Statistical Methods, Section 3.1; R's
    ``stats::wilcox.test.default`` (paired = TRUE, exact = NULL, correct = TRUE).
    """
    from scipy import stats
    d = np.asarray(differences, dtype=np.float64)
    zeros = bool(np.any(d == 0))
    d = d[d != 0]
    n = d.size
    if n == 0:
        return 0.0, float("nan"), 0
    doubled, tie_sum = doubled_midranks(np.abs(d), np.zeros(n, dtype=np.intp), 1)
    v = float(doubled[d > 0].sum() / 2.0)
    ties = bool(tie_sum[0] > 0)
    centre = n * (n + 1) / 4.0
    if n < 50 and not ties and not zeros:
        counts = _signed_rank_counts(n)
        cdf = np.cumsum(counts) / counts.sum()
        vi = int(round(v))
        # R: upper tail P(V >= v) when v is above the centre, else P(V <= v); doubled, capped at 1.
        p = 1.0 - cdf[vi - 1] if v > centre else cdf[vi]
        return v, float(min(1.0, 2.0 * p)), n
    sigma = np.sqrt(n * (n + 1) * (2 * n + 1) / 24.0 - tie_sum[0] / 48.0)
    z = v - centre
    z = (z - np.sign(z) * 0.5) / sigma
    return v, float(2.0 * min(stats.norm.cdf(z), stats.norm.sf(z))), n


def normal_sf(x: ArrayLike) -> NDArray[np.float64]:
    """P(Z > x) for a standard normal Z, elementwise; erfc keeps the relative precision of far tails.

    >>> round(float(normal_sf(1.959963984540054)), 12)
    0.025
    """
    x = np.asarray(x, dtype=np.float64)
    return np.asarray(0.5 * _erfc(x * math.sqrt(0.5)), dtype=np.float64)


def chi2_sf(x: ArrayLike, df: int) -> NDArray[np.float64]:
    """P(X > x) for X chi-squared with a whole number ``df`` >= 1 of degrees of freedom, elementwise.

    The closed forms of the regularised upper incomplete gamma function at whole and half-whole
    orders (Abramowitz and Stegun 26.4.4-26.4.5), each term on the log scale so that nothing
    overflows for large x: e^(-x/2) sum_{i < df/2} (x/2)^i / i! for even df; erfc(sqrt(x/2)) +
    e^(-x/2) sum_{1 <= i <= (df-1)/2} (x/2)^(i-1/2) / Gamma(i+1/2) for odd df.

    >>> round(float(chi2_sf(5.6, 2)), 10), round(float(chi2_sf(3.841458820694124, 1)), 10)
    (0.0608100626, 0.05)
    """
    x = np.asarray(x, dtype=np.float64)
    half = np.maximum(x, 0.0) / 2.0
    with np.errstate(divide="ignore"):
        log_half = np.log(half)
    if df % 2 == 0:
        orders: list[tuple[float, float]] = [(i, math.lgamma(i + 1.0)) for i in range(df // 2)]
        total = np.zeros_like(half)
    else:
        orders = [(i - 0.5, math.lgamma(i + 0.5)) for i in range(1, (df + 1) // 2)]
        total = np.asarray(_erfc(np.sqrt(half)), dtype=np.float64)
    with np.errstate(invalid="ignore"):  # 0 * log(0) at x = 0 and inf - inf at x = inf, both set below
        for power, log_gamma in orders:
            total = total + np.exp(np.where(power == 0, 0.0, power * log_half) - half - log_gamma)
    return np.select([np.isnan(x), x == np.inf], [np.nan, 0.0], np.minimum(total, 1.0))


#: step of the trapezoid rule in z for the studentized range; the integrands are entire and fall off like
#: the normal density, so the rule converges geometrically (0.1 agrees with 0.01 to 2e-14 up to k = 100)
_RANGE_STEP = 0.1

#: R's ptukey (and so emmeans) treats more degrees of freedom than this as infinite; so do we, to give R's numbers
LARGE_DF = 25_000

#: Gauss-Legendre panels (10 nodes each) over each part of log s and over z, for finite df (tests/test_mixed.py
#: checks the result against scipy's adaptive quadrature: within 1e-6 relative for df >= 2 where p > 1e-6)
_S_PANELS, _Z_PANELS = 8, 10

_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def _range_sf(q, k):
    """P(R > q) for the range R of ``k`` independent standard normals, elementwise over q (any shape)."""
    q = np.asarray(q, dtype=np.float64)
    out = np.where(q > 0, 0.0, 1.0)  # q = inf: 0; q <= 0: 1
    out[np.isnan(q)] = np.nan
    inside = np.isfinite(q) & (q > 0)
    if not inside.any():
        return out
    shift = q[inside][:, None]
    z = np.arange(-shift.max() / 2.0 - 10.0, 10.0 + _RANGE_STEP, _RANGE_STEP)
    above = normal_sf(z)  # Q(z)
    beyond = normal_sf(z + shift)  # Q(z + q)
    # Q(z) - Q(z + q), from the lower tails where z is far below zero (the upper ones would cancel)
    between = np.where(z > -shift / 2.0, above - beyond, normal_sf(-z - shift) - normal_sf(-z))
    terms, power = np.ones_like(between), np.ones_like(above)
    for _ in range(k - 2):  # sum_j Q(z)^j between^(k-2-j), by Horner's rule
        power = power * above
        terms = terms * between + power
    density = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    out[inside] = np.minimum(k * _RANGE_STEP * (density * beyond * terms).sum(axis=1), 1.0)
    return out


@functools.lru_cache(maxsize=4)
def _legendre(nodes):
    return np.polynomial.legendre.leggauss(nodes)


def _gauss_legendre(lo, hi, panels, nodes=10):
    """Nodes and weights of composite Gauss-Legendre rules on [lo, hi] (arrays broadcast: shape (..., panels*nodes))."""
    x, w = _legendre(nodes)
    lo, hi = np.asarray(lo, dtype=float)[..., None], np.asarray(hi, dtype=float)[..., None]
    edges = lo + (hi - lo) * np.linspace(0.0, 1.0, panels + 1)
    half = (edges[..., 1:] - edges[..., :-1]) / 2
    mid = (edges[..., 1:] + edges[..., :-1]) / 2
    points = (mid[..., :, None] + half[..., :, None] * x).reshape(*mid.shape[:-1], -1)
    weights = (half[..., :, None] * w).reshape(*mid.shape[:-1], -1)
    return points, weights


def studentized_range_sf(q: ArrayLike, k: int, df: ArrayLike = math.inf) -> NDArray[np.float64]:
    """P(Q > q) for the studentized range of ``k`` normal means with ``df`` degrees of freedom (elementwise over
    q and df; more than :data:`LARGE_DF` count as infinite, as in R's ``ptukey``).

    With infinite df, Q is the range R of k standard normals: with the smallest of them at z, the range exceeds q
    when one of the other k - 1 lies above z + q, so P(R > q) = k int phi(z) [Q(z)^(k-1) - (Q(z) - Q(z + q))^(k-1)]
    dz, Q the normal upper tail, the bracket written as Q(z + q) times a sum of positive terms so that small tails
    keep their digits (trapezoid rule). With finite df, Q = R / s with s = sqrt(chi2_df / df), so P(Q > q) =
    E[P(R > q s)], integrated over log s by composite Gauss-Legendre rules over its bulk (near normal, sd
    1 / sqrt(2 df)) and its long left tail, so that p-values far below 1e-12 keep their digits (scipy is
    imported for this case only).

    >>> round(float(studentized_range_sf(3.3144931553981, 3)), 10)
    0.05
    >>> round(float(studentized_range_sf(3.877, 3, 10)), 4)
    0.05
    """
    q, df = np.broadcast_arrays(np.asarray(q, dtype=np.float64), np.asarray(df, dtype=np.float64))
    shape = q.shape
    q, df = q.ravel(), df.ravel()
    out = np.full(q.size, np.nan)
    infinite = df > LARGE_DF
    out[infinite] = _range_sf(q[infinite], k)
    finite = df <= LARGE_DF  # NaN df: NaN
    if finite.any():
        out[finite] = _studentized_range_sf(q[finite], k, df[finite])
    return out.reshape(shape)


def _studentized_range_sf(q, k, df):
    """P(Q > q) for finite df (1-d arrays): ``E_s[1 - W(q s)]``, both integrals by Gauss-Legendre rules.

    ``W`` is the range's CDF of k standard normals, ``1 - W(w) = k int phi(z) (Phi(z)^(k-1) - (Phi(z) -
    Phi(z - w))^(k-1)) dz``, the difference of powers formed as an expm1 so that small tail probabilities keep
    their relative precision. A fixed rule in z on [-8.5, 8.5] suits every w here (the trapezoid of the
    infinite-df case follows the far tail instead, one grid point per erfc: too slow for 160 s nodes a row).
    """
    from scipy.special import log_ndtr, ndtr

    f = df[:, None]
    inner = np.maximum(9.0 / np.sqrt(2.0 * df), 1e-12)
    # the left tail of log s falls like exp(df t): down to where df (-t - (1 - exp(2t)) / 2) > 40
    outer = np.minimum(-(40.0 / df + 0.5), -inner)
    t_tail, w_tail = _gauss_legendre(outer, -inner, _S_PANELS)
    t_bulk, w_bulk = _gauss_legendre(-inner, inner, _S_PANELS)
    t, wt = np.concatenate([t_tail, t_bulk], axis=-1), np.concatenate([w_tail, w_bulk], axis=-1)
    log_density = (f / 2 * np.log(f) - _lgamma(f / 2).astype(float) - (f / 2 - 1) * math.log(2.0) + f * t
                   - f * np.exp(2 * t) / 2)
    z, wz = _gauss_legendre(-8.5, 8.5, _Z_PANELS)
    w = q[:, None] * np.exp(t)                                     # (rows, s nodes)
    log_a = log_ndtr(z)                                            # log Phi(z)
    ratio = ndtr(z[None, None, :] - w[..., None]) / np.exp(log_a)  # Phi(z - w) / Phi(z), in [0, 1]
    with np.errstate(divide="ignore"):  # ratio 1 (w = 0): log1p(-1) = -inf, expm1(-inf) = -1, as it should
        tail = -np.exp((k - 1) * log_a) * np.expm1((k - 1) * np.log1p(-np.minimum(ratio, 1.0)))
    phi = np.exp(-z**2 / 2) / np.sqrt(2 * np.pi)
    one_minus_w = k * (tail * (phi * wz)).sum(axis=-1)             # (rows, s nodes)
    return np.clip((one_minus_w * wt * np.exp(log_density)).sum(axis=-1), 0.0, 1.0)


@overload
def studentized_range_isf(alpha: float, k: int, df: float = ...) -> float: ...
@overload
def studentized_range_isf(alpha: float, k: int, df: NDArray[Any]) -> NDArray[np.float64]: ...
def studentized_range_isf(alpha: float, k: int, df: float | NDArray[Any] = math.inf) -> float | NDArray[np.float64]:
    """The q with P(Q > q) = ``alpha`` for the studentized range of ``k`` means with ``df`` degrees of freedom
    (a float for a number df; an array of the shape of an array df).

    Regula falsi on log P(Q > q) - log(alpha) with the Illinois step (the end kept twice has its
    value halved), inside a bracket found by doubling, for every distinct df at once: 10 to 18
    integrals to the last digits.

    >>> round(studentized_range_isf(0.05, 4), 6)
    3.63316
    """
    if np.ndim(df) == 0:
        return _range_isf_one(float(alpha), int(k), math.inf if df > LARGE_DF else float(df))
    df = np.asarray(df, dtype=float)
    distinct, where = np.unique(np.where(df > LARGE_DF, np.inf, df), return_inverse=True)
    return _range_isf(float(alpha), int(k), distinct)[where.reshape(df.shape)]


@functools.lru_cache(maxsize=256)
def _range_isf_one(alpha, k, df):
    return float(_range_isf(alpha, k, np.array([df]))[0])


def _range_isf(alpha, k, df):
    """:func:`studentized_range_isf` for a 1-d array of df, each root found to the last digits."""
    target = math.log(alpha)

    def gap(q, rows):
        return np.log(np.maximum(studentized_range_sf(q, k, df[rows]), 1e-300)) - target

    every = np.arange(df.size)
    low, high = np.zeros(df.size), np.ones(df.size)
    gap_low, gap_high = np.full(df.size, -target), gap(high, every)
    while (grow := gap_high > 0).any():  # double the bracket until it holds the root
        low[grow], gap_low[grow], high[grow] = high[grow], gap_high[grow], 2.0 * high[grow]
        gap_high[grow] = gap(high[grow], grow)
    kept = np.zeros(df.size)  # which end stayed at the last step: 1 low, -1 high
    open_ = np.ones(df.size, dtype=bool)
    for _ in range(200):
        q = (low * gap_high - high * gap_low) / (gap_high - gap_low)
        open_ &= (low < q) & (q < high) & (high - low > 4e-16 * high)
        if not open_.any():
            break
        value = np.zeros(df.size)
        value[open_] = gap(q[open_], open_)
        exact = open_ & (value == 0)
        low[exact] = high[exact] = q[exact]
        open_ &= ~exact
        up, down = open_ & (value > 0), open_ & (value < 0)
        gap_high = np.where(up & (kept == 1), gap_high / 2, gap_high)
        gap_low = np.where(down & (kept == -1), gap_low / 2, gap_low)
        low, gap_low = np.where(up, q, low), np.where(up, value, gap_low)
        high, gap_high = np.where(down, q, high), np.where(down, value, gap_high)
        kept = np.where(up, 1, np.where(down, -1, kept))
    return np.where(np.abs(gap_low) < np.abs(gap_high), low, high)
