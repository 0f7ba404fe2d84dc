"""Random number handling shared by every random procedure.

``rng=`` is keyword-only everywhere and becomes a ``numpy.random.SeedSequence``
exactly once, here.  What was passed is recorded so that a result can say how
to reproduce itself.  Work is split into blocks whose generators are spawned
from one ``SeedSequence``, so a result does not depend on the chunk size or on
the number of parallel workers.

It also holds the within-block permutation engine of the blocked rank tests
(:func:`block_layout`, :func:`permute_blocks`).
"""

from __future__ import annotations

import hashlib
import math
import numbers
import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from numpy.typing import ArrayLike, NDArray

from .errors import OptionError

_T = TypeVar("_T")
_R = TypeVar("_R")


def seed_sequence(rng: object) -> tuple[np.random.SeedSequence, int | str]:
    """Turn ``rng`` (None, int, SeedSequence or Generator) into a SeedSequence.

    Returns ``(seed_sequence, record)``, where ``record`` is what a result
    stores: the int given, the entropy drawn for ``None``, or for a Generator
    the int drawn from it (one draw: the caller's stream advances), of which
    the run's streams are a pure function; in each case ``rng=record``
    repeats the run.  A SeedSequence of one int records that int; a spawned
    one, or one seeded by a list of ints, seeds the run by a 128-bit int drawn
    from it (its ``generate_state``, as for a Generator), which is the record
    (it was "SeedSequence", which repeated nothing: audit s19). It is read,
    never advanced (its entropy and spawn key decide).
    """
    if rng is None:
        ss = np.random.SeedSequence()
        return ss, int(ss.entropy)  # type: ignore[arg-type]  # drawn here: one int
    if isinstance(rng, (bool, np.bool_)):
        raise OptionError(f"rng must be None, an int or a numpy Generator, got {rng!r}")
    if isinstance(rng, numbers.Integral):
        if rng < 0:
            raise OptionError(f"rng must be a non-negative int, got {rng}")
        return np.random.SeedSequence(int(rng)), int(rng)
    if isinstance(rng, np.random.SeedSequence):
        # A fresh copy of its entropy and key: spawning from it never advances the caller's object, so the same
        # SeedSequence (or one that has spawned before) repeats the run, as its record does
        entropy = rng.entropy
        if isinstance(entropy, numbers.Integral) and not rng.spawn_key:
            return np.random.SeedSequence(int(entropy)), int(entropy)
        words = rng.generate_state(4, np.uint32)  # a pure function of entropy and spawn key: nothing advances
        drawn = sum(int(w) << (32 * i) for i, w in enumerate(words))
        return np.random.SeedSequence(drawn), drawn
    if isinstance(rng, np.random.Generator):
        # Draw a seed from the caller's generator: their stream advances, as
        # scipy does, and our own stream is a pure function of that draw,
        # which is therefore the record (the Generator's state is not needed).
        drawn = int(rng.integers(2**63))
        return np.random.SeedSequence(drawn), drawn
    raise OptionError(
        f"rng must be None, an int or a numpy.random.Generator, got {type(rng).__name__}; "
        "the legacy np.random.RandomState and the global random state are not used"
    )


def check_rng(rng: Any) -> Any:
    """``rng`` unchanged when :func:`seed_sequence` takes it, else its OptionError; draws nothing.

    For a procedure that turns out to need no random numbers: a bad ``rng`` is still an error, never ignored.
    """
    # typeshed's numbers.Integral declares no comparisons
    valid_int = isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)) and rng >= 0  # type: ignore[operator]
    if rng is None or valid_int or isinstance(rng, (np.random.SeedSequence, np.random.Generator)):
        return rng
    seed_sequence(rng)  # every other value raises there, with its message
    return rng


def child_stream(ss: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """The SeedSequence below ``ss`` at ``key`` (ints), built from the key alone.

    ``ss`` is never mutated (unlike ``ss.spawn``), so the same key gives the
    same stream whatever else was drawn, in any process: a stream per task,
    interim, simulation or agent that does not depend on the order of work.
    """
    return np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + tuple(int(k) for k in key))


def agent_seed_sequence(root: np.random.SeedSequence, label: object) -> np.random.SeedSequence:
    """The agent's own SeedSequence: the root's entropy with a key derived from the agent's label (its text's SHA-256).

    Keying by label (not position) makes every agent's resamples, and so its
    intervals, independent of the other agents and of their order: what it draws
    is a function of its own rows (bootstrap, probability of improvement,
    performance profiles, curves; a pair's stream is its second agent's below its
    first's; tuning's sweep's, its task's below its agent's; AdaStop's and the
    permutation test's per-task tests, keyed by the task's label; the hierarchical
    model's pairs, as a pair's: audit s33).  The same keying one level down gives
    a cell its own stream (:func:`cell_seed_sequence`).
    """
    digest = hashlib.sha256(str(label).encode("utf-8")).digest()
    words = tuple(int.from_bytes(digest[i:i + 4], "little") for i in (0, 4))
    return child_stream(root, *words)


def pair_seed_sequence(root: np.random.SeedSequence, first: object, second: object) -> np.random.SeedSequence:
    """A pair's stream: its second agent's below its first's (:func:`agent_seed_sequence` twice); the caller says
    which agent is first (by its name's place, or the pair as the comparison reads it)."""
    return agent_seed_sequence(agent_seed_sequence(root, first), second)


def cell_seed_sequence(agent: np.random.SeedSequence, task: object) -> np.random.SeedSequence:
    """The stream of an agent's cell on ``task``: below the agent's own (:func:`agent_seed_sequence`), keyed alike by
    the task's label.

    The stratified bootstrap (bootstrap, probability of improvement, performance profiles, equivalence's aggregate)
    draws each cell's runs from it (:class:`CellIndices`), and so do curves' whole-run resamples (a pair's
    relabellings keyed by the pair's stream) and the signed-rank model's Dirichlet weights (keyed by a root of their
    own): a cell's draws are a function of the agent's stream (``rng``'s), the agent's label, the task's label and that cell's runs alone,
    not of the other tasks, their names' order or number (audit s33 bootstream33, curvestream33: renaming one task so
    that it sorted elsewhere moved every task's draws, as did a subset dropping one).  Tuning keys its sweeps alike
    (its task's below its agent's).
    """
    return agent_seed_sequence(agent, task)


def label_ranks(labels: Sequence[str], numeric: bool | None = None) -> NDArray[np.intp]:
    """Each label's place among ``labels`` sorted (as numbers where ``numeric``, else as text; None: as numbers when
    every label reads as a finite number): codes to key random streams by and lay out draws in, so that they do not
    depend on the labels' order in the design (a Categorical's category order). For labels that are not a
    Categorical this is the design's own order, so such results keep their bits."""
    if numeric is None:
        numeric = all(_finite_number(label) for label in labels)
    order = sorted(range(len(labels)), key=lambda i: float(labels[i]) if numeric else str(labels[i]))
    ranks = np.empty(len(labels), dtype=np.intp)
    ranks[order] = np.arange(len(labels))
    return ranks


def _finite_number(label: object) -> bool:
    try:
        return math.isfinite(float(label))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def child_generator(ss: np.random.SeedSequence, *key: int) -> np.random.Generator:
    """A Generator on :func:`child_stream` ``(ss, *key)``."""
    return np.random.Generator(np.random.PCG64(child_stream(ss, *key)))


def chunk_seeds(ss: np.random.SeedSequence, n_total: int,
                chunk_size: int) -> Iterator[tuple[int, int, np.random.SeedSequence]]:
    """Yield ``(start, stop, SeedSequence)`` covering ``range(n_total)`` in blocks.

    Blocks have a fixed size that does not depend on the caller's memory
    budget, and block ``b`` always gets the ``b``-th spawned child of ``ss``,
    so the draws for a given replicate never depend on how work is batched.
    """
    n_blocks = -(-n_total // chunk_size)
    for b, child in enumerate(ss.spawn(n_blocks)):
        start = b * chunk_size
        yield start, min(start + chunk_size, n_total), child


def chunk_generators(ss: np.random.SeedSequence, n_total: int,
                     chunk_size: int) -> Iterator[tuple[int, int, np.random.Generator]]:
    """Yield ``(start, stop, Generator)``: the blocks of :func:`chunk_seeds`, each with a PCG64 Generator."""
    for start, stop, child in chunk_seeds(ss, n_total, chunk_size):
        yield start, stop, np.random.Generator(np.random.PCG64(child))


#: The unsigned type twice as wide as each lane type: it holds a lane times a bound whole.
WIDER = {np.dtype(np.uint8): np.uint16, np.dtype(np.uint16): np.uint32, np.dtype(np.uint32): np.uint64}


def multiply_shift(u: NDArray[np.unsignedinteger[Any]], high: ArrayLike,
                   threshold: ArrayLike) -> tuple[NDArray[np.unsignedinteger[Any]], NDArray[np.bool_]]:
    """Lemire's bounded integers on b-bit values, b the width of ``u``'s dtype (8, 16 or 32): ``(index, rejected)``.

    ``index = (u * high) >> b`` (in the type twice as wide, :data:`WIDER`) and
    ``rejected`` (bool) where the low half of ``u * high`` is below
    ``threshold = 2**b % high``.  ``high`` (1 <= high < 2**b) and ``threshold``
    are of ``u``'s dtype, scalars or broadcast against ``u``.

    Exactness: for uniform ``u`` on ``[0, 2**b)`` the accepted indices are
    exactly uniform on ``[0, high)``.  Write ``u * high = i * 2**b + l`` with
    ``0 <= l < 2**b``: ``i`` is the index and ``l`` the low half.  The ``u``
    mapped to one ``i`` are those with ``u * high`` in ``[i * 2**b, (i + 1) * 2**b)``;
    their products are the multiples of ``high`` in that range, so their low
    halves ``l`` are every member of ``[0, 2**b)`` in one residue class
    ``-i * 2**b`` modulo ``high`` (consecutive ``u`` step ``l`` by ``high``).
    The interval ``[threshold, 2**b)`` holds ``2**b - (2**b % high)`` values, a
    multiple of ``high``: exactly ``2**b // high`` members of every residue
    class.  So every index keeps ``2**b // high`` accepted ``u``, and
    ``2**b % high`` values are rejected in all (Lemire 2019, ACM TOMACS 29(1),
    Section 4).  The same code runs at every width, so the test that
    enumerates every 8- and 16-bit ``u`` checks the 32-bit arithmetic too.
    """
    bits = 8 * u.dtype.itemsize
    rejected = np.less(np.multiply(u, high), threshold)  # arithmetic in u's type wraps: the low half
    index = np.multiply(u, high, dtype=WIDER[u.dtype])
    index >>= bits
    return index, rejected


#: The one width rule of :class:`UniformIndices` (:func:`lane_bits`): 16-bit lanes while at most 1 in
#: ``REJECTION_SHARE`` (2.5%) of a row's lanes is expected to be rejected, else 32-bit lanes.  Measured (issue 43,
#: s7-draws; benchmarks/bench_lane_width.py, benchmarks/README.md): a 32-bit lane costs 0.3-1.4 ns more than a
#: 16-bit lane without rejections, and each 1% of rejected 16-bit lanes 0.3-0.6 ns a lane (a replacement costs
#: 30-60 ns), so 16 bits break even at 2.7-3.3% of rejections on whole rows with one bound (the bootstrap's
#: balanced tasks), 1.8-2.2% with a bound per column, 1.9-2.4% reading chosen units (the complete view's seeds) and
#: 1.0-1.6% on the complete view's configuration counts.  2.5% keeps each path within about 0.3 ns a lane of its
#: better width (the configuration counts, a few % of the complete view, within 0.6) and favours the bootstrap.
REJECTION_SHARE = 40


def lane_bits(high: int | ArrayLike) -> int:
    """Bits a lane of :class:`UniformIndices` for the bounds ``high`` of a row: 16, 32, or 0 (Generator.integers).

    The one width rule of every bounded draw in the package.  A 16-bit lane below bound h is rejected with
    probability ``(2**16 % h) / 2**16`` and replaced one by one, a 32-bit lane with probability below ``h / 2**32``
    but at half as many lanes an output.  So the cost of a row at 16 bits is its lanes plus its expected rejections,
    the mean of ``(2**16 % h) / 2**16`` over its columns (columns of bound 1 count: they are lanes that never
    reject): 16 bits while that mean is at most ``1 / REJECTION_SHARE``, 32 bits above it or when some bound
    exceeds 2**16 - 1, and ``Generator.integers`` when some bound exceeds 2**32 - 1.

    Parameters
    ----------
    high : int or array_like of int
        The exclusive bound of every column of a row (>= 1), or one bound for all of them.

    Returns
    -------
    int
        16, 32 or 0.

    Examples
    --------
    >>> lane_bits(100), lane_bits(2000), lane_bits(4096), lane_bits(3000), lane_bits(70_000), lane_bits(2**32)
    (16, 16, 16, 32, 32, 0)
    >>> lane_bits([3000, 1, 1, 1])  # one 3.9% bound among lanes that never reject: 1.0% on average
    16
    """
    high = np.asarray(high, dtype=np.int64)
    top = int(high.max())
    if top > UniformIndices.WIDE:
        return 0
    if top < 2**16:
        threshold = 2**16 % high
        if int(threshold.sum()) * REJECTION_SHARE <= 2**16 * threshold.size:
            return 16
    return 32


class UniformIndices:
    """Exact uniform integers in ``[0, high)`` per column, drawn row by row from one block's stream.

    The bounded draws of tuning's seeds and configurations; :class:`CellIndices` draws the stratified bootstrap's
    runs, a cell at a time.
    ``Generator.integers`` spends about 3 ns on each bounded draw here (a generic rejection loop around one 32-bit
    output), several times the cost of the random bits a draw needs.  This draws b bits a value, 64 / b values
    from each 64-bit output of the block's PCG64, with whole-array operations (:func:`multiply_shift`, exact at
    every width): b = 16 (four values an output) or b = 32 (two values an output) by the one width rule
    :func:`lane_bits`, chosen once for the block from all its columns' bounds.  A rejected value is replaced by
    ``Generator.integers`` on a second stream of the block (``child_stream(seed, 0)``, made on first use), in
    row-major order.

    Row r always takes the next ``ceil(n * b / 64)`` outputs of the main stream and replacements come in
    row-major order from their own stream, so drawing a block's rows in several calls gives exactly the rows of
    one call (row chunks never change results).  :meth:`units` reads a row as ``n / width`` units of ``width``
    consecutive columns and maps and replaces only the lanes of the units asked for: the main stream advances
    alike, and the replacements of those lanes come in the same (row, column) order, so the units read are
    independent and exactly uniform whichever are asked for, in whatever order they are listed, and are those of
    :meth:`rows` when every unit is asked for.  When some ``high`` exceeds 2**32 - 1 every draw goes through
    ``Generator.integers`` on the main stream.  The b-bit lanes of an output are read in the machine's byte
    order: a given seed gives the same draws on every little-endian machine (all numpy's wheels but s390x),
    other draws on a big-endian one.

    Parameters
    ----------
    seed : numpy.random.SeedSequence
        The block's stream.
    high : int or ndarray of int, shape (n,)
        Exclusive upper bound of each column (>= 1).
    n : int
        Columns (values per row).
    width : int, optional
        Columns of a unit of :meth:`units` (dividing ``n``; default 1).
    bits : int, optional
        16, 32 or 0 instead of :func:`lane_bits`' choice: for measuring the rule and testing both paths; the draws
        are exactly uniform at any width a bound fits in.
    """

    #: Largest ``high`` drawn 32 bits a value; above it, ``Generator.integers``.
    WIDE = 2**32 - 1

    seed: np.random.SeedSequence
    n: int
    width: int
    main: np.random.PCG64
    high: Any  # an int, or an int64 array of one bound per column
    bits: int  # 16 or 32 bits a value, 0 for Generator.integers
    high_lanes: NDArray[Any]
    threshold: NDArray[Any]
    words: int

    def __init__(self, seed: np.random.SeedSequence, high: int | NDArray[np.integer[Any]], n: int, *,
                 width: int = 1, bits: int | None = None) -> None:
        self.seed, self.n, self.width = seed, int(n), int(width)
        self.main = np.random.PCG64(seed)
        high64 = np.asarray(high, dtype=np.int64)
        self.high = high64 if np.ndim(high) else int(high)
        self.bits = lane_bits(high64) if bits is None else int(bits)
        if self.bits and int(high64.max()) >= 2**self.bits:  # a forced width must hold every bound (no wrap-around)
            raise ValueError(f"bits={self.bits} cannot draw below a bound of {int(high64.max())}")
        if self.bits:
            lane = np.uint16 if self.bits == 16 else np.uint32
            self.high_lanes = np.asarray(high, dtype=lane)
            self.threshold = np.asarray(2**self.bits % high64, dtype=lane)
            self.lanes = 64 // self.bits
            self.words = -(-self.n // self.lanes)
        self._replacements = None
        self._unit_bounds: tuple[Any, ...] | None = None

    def _draw_lanes(self, k):
        """The next k rows' b-bit values, (k, n), from ceil(n * b / 64) outputs a row."""
        lane = self.high_lanes.dtype
        return self.main.random_raw(k * self.words).view(lane).reshape(k, self.lanes * self.words)[:, :self.n]

    def rows(self, k: int, offsets: NDArray[Any] | None = None,
             live: NDArray[np.bool_] | None = None) -> NDArray[np.int64]:
        """(k, n) int64 draws of the next k rows, plus ``offsets`` (broadcast to (k, n)) when given.

        uint32 ``offsets`` (the caller's promise that every sum stays below 2**32) are added in 32 bits
        before one conversion to int64 on the 16-bit path: faster than adding int64 offsets to the 32-bit
        indices (the 32-bit path's indices are int64 already).
        ``live`` (a boolean mask of the k rows) keeps those rows only, ``rows(k, offsets)[live]``: every row's
        bits and rejections are still drawn, so the stream advances as ever, but only the live rows become
        indices, most of the work when few rows are live (``offsets`` then broadcast to (live rows, n)).
        """
        if live is not None:
            return self._live_rows(k, offsets, live) if self.bits else self.rows(k, offsets)[live]
        if not self.bits:
            out = np.random.Generator(self.main).integers(0, self.high, size=(k, self.n))
            return out if offsets is None else np.add(out, offsets, out=out)
        index, rejected = multiply_shift(self._draw_lanes(k), self.high_lanes, self.threshold)
        if self.bits == 32:
            wide: NDArray[np.int64] = index.view(np.int64)  # every index is below 2**32
            self._replace(wide, np.flatnonzero(rejected))
            return wide if offsets is None else np.add(wide, offsets, out=wide)
        self._replace(index, np.flatnonzero(rejected))
        if offsets is None:
            return index.astype(np.int64)
        if offsets.dtype == np.uint32:
            return np.add(index, offsets, out=index).astype(np.int64)
        return np.add(index, offsets, dtype=np.int64)

    def _replace(self, index, rejected):
        """Put the replacements of the row-major flat positions ``rejected`` into ``index`` (k, n)."""
        if rejected.size:
            high = self.high if not np.ndim(self.high) else self.high[rejected % self.n]
            index.ravel()[rejected] = self._replacement_stream().integers(0, high, size=rejected.size)

    def _live_rows(self, k, offsets, live):
        u = self._draw_lanes(k)
        rejected = np.flatnonzero(np.less(np.multiply(u, self.high_lanes), self.threshold))  # as multiply_shift
        if rejected.size:
            high = self.high if not np.ndim(self.high) else self.high[rejected % self.n]
            replacement = self._replacement_stream().integers(0, high, size=rejected.size)
        index = np.multiply(u[live], self.high_lanes, dtype=WIDER[u.dtype])  # multiply_shift's index: the high half
        index >>= self.bits
        if self.bits == 32:
            index = index.view(np.int64)
        if rejected.size:
            row, column = np.divmod(rejected, self.n)
            kept = live[row]
            index[(np.cumsum(live) - 1)[row[kept]], column[kept]] = replacement[kept]
        return np.add(index, offsets, dtype=np.int64) if offsets is not None else index.astype(np.int64, copy=False)

    def units(self, k: int, which: NDArray[np.integer[Any]] | None = None) -> NDArray[Any]:
        """The next k rows read as ``G = n / width`` units of ``width`` columns: ``(width, k * G)``, or ``(width,
        which.size)`` with ``which``.

        Column ``r * G + g`` (or column i with ``which``, whose item i is the flat position ``r * G + g`` of a unit
        in the k rows, in any order) holds the ``width`` draws of unit g of row r.  Every row's lanes are drawn, so
        the stream advances by k rows whichever units are read; only the units read are mapped and have their
        rejected lanes replaced, in the order of the lanes' positions (row, unit, column), so the result does not
        depend on the order of ``which``.  uint32 on 16-bit lanes, int64 otherwise.
        """
        G, width = self.n // self.width, self.width
        if not self.bits:
            out = self.rows(k).reshape(k * G, width)
            return np.ascontiguousarray((out if which is None else out[which]).T)
        lanes = np.ascontiguousarray(self._draw_lanes(k)).reshape(k * G, width)
        if which is not None:  # each unit's lanes as one item: a gather of items, not of rows
            lanes = np.take(lanes.view(np.dtype((np.void, lanes.itemsize * width))).ravel(), which)
            lanes = lanes.view(self.high_lanes.dtype).reshape(-1, width)
        u = np.ascontiguousarray(lanes.T)
        high, bound, threshold, same = self._unit_bounds or self._make_unit_bounds()
        at: NDArray[Any] | None = None  # each column's unit g, where the units' bounds differ
        if not same:
            at = which % G if which is not None else np.tile(np.arange(G), k)
            bound, threshold = np.take(bound, at, axis=1), np.take(threshold, at, axis=1)
        index, rejected = multiply_shift(u, bound, threshold)
        if self.bits == 32:
            index = index.view(np.int64)  # the high half, below 2**32
        flagged = np.flatnonzero(rejected)
        if flagged.size:
            lane, column = np.divmod(flagged, u.shape[1])
            unit = which[column] if which is not None else column
            flagged = flagged[np.argsort(unit * width + lane, kind="stable")]  # in the lanes' order
            lane, column = np.divmod(flagged, u.shape[1])
            h = high[lane, 0] if at is None else high[lane, at[column]]
            index.ravel()[flagged] = self._replacement_stream().integers(0, h)
        return index

    def _make_unit_bounds(self):
        """(high, lane bounds, thresholds, same): (width, G) arrays of the units' bounds, (width, 1) when every
        unit has the same, made once."""
        G = self.n // self.width
        high = np.broadcast_to(np.asarray(self.high, dtype=np.int64), (self.n,)).reshape(G, self.width).T
        same = bool((high == high[:, :1]).all())
        high = np.ascontiguousarray(high[:, :1] if same else high)
        lane = self.high_lanes.dtype
        self._unit_bounds = (high, high.astype(lane), (2**self.bits % high).astype(lane), same)
        return self._unit_bounds

    def _replacement_stream(self):
        if self._replacements is None:
            self._replacements = np.random.Generator(np.random.PCG64(child_stream(self.seed, 0)))
        return self._replacements


#: Lanes of one slab of :class:`CellIndices` (16 MB of 32-bit lanes at most): each cell's stream is read once a slab.
SLAB_LANES = 2**19
#: Standard deviations (and as many lanes again) of a block's expected rejections that :class:`CellIndices` reserves.
RESERVE_SD = 8


class CellIndices:
    """Exact uniform run indices of one agent's cells, each cell on its own stream: rows ``first`` to ``stop`` of the
    agent's resamples, read row by row.

    A row holds the cells' draws side by side, cell t's ``c_t`` columns each uniform on ``[0, c_t)``.  Cell t reads
    its own PCG64 stream (``seeds[t]``: :func:`cell_seed_sequence`, keyed by the agent's and the task's labels) in
    blocks of ``block`` rows (a multiple of 4): block b is its outputs ``[b S_t, (b + 1) S_t)``, first ``E_t`` outputs
    of reserve, then the block's ``block c_t`` values in row-major order, ``b_t = lane_bits(c_t)`` bits each (the
    package's one width rule, on the cell's bound alone; 64 / b_t values an output, so ``S_t = E_t + block c_t b_t /
    64``), mapped by :func:`multiply_shift`.  A rejected value takes the next accepted 32-bit value of its block's
    reserve (:func:`multiply_shift`, in row-major order within the block); ``E_t`` holds the block's expected
    rejections plus ``RESERVE_SD`` standard deviations plus ``RESERVE_SD`` values (beyond them, which a block meets
    with probability below 1e-12, replacements come from ``Generator.integers`` on ``child_stream(seeds[t], b)``:
    still exact).  So cell t's draws in row r are a function of its seed, ``c_t`` and r alone: of no other cell (nor
    their number, order or names) and of no batching, provided a drawer starts at a block's first row (``first`` a
    multiple of ``block``), as every group of whole blocks does.

    Each stream is moved to ``first``'s block by ``PCG64.advance`` (no draws) and read a slab at a time: whole blocks
    while they hold at most :data:`SLAB_LANES` values, else a multiple of 4 rows, so the per-cell Python work (one
    ``random_raw`` a cell and slab) is small beside the draws.  A slab is held cell by cell, the cells of one size
    side by side (a (cells, rows x c) array), so that every operation on a chunk of rows is a few whole-array passes
    over each size's cells, whatever their number.  The values of an output are read in the machine's byte order, as
    :class:`UniformIndices` does.

    Parameters
    ----------
    seeds : sequence of numpy.random.SeedSequence, length T
        Each cell's stream.
    sizes : array_like of int, shape (T,)
        Each cell's runs c_t >= 1 (its draws' bound and its columns).
    first, stop : int
        The rows drawn, ``first`` a multiple of ``block``.
    block : int
        Rows of a block (a multiple of 4), the unit whose draws do not depend on the others'.
    """

    def __init__(self, seeds: Sequence[np.random.SeedSequence], sizes: ArrayLike, first: int, stop: int,
                 block: int) -> None:
        sizes = np.asarray(sizes, dtype=np.int64)
        self.seeds, self.sizes, self.block = list(seeds), sizes, int(block)
        self.row, self.stop = int(first), int(stop)
        if self.block % 4:
            raise ValueError(f"blocks of a multiple of 4 rows, not {block}")
        if self.row % self.block:
            raise ValueError(f"a drawer starts at a block's first row, not at row {first} (blocks of {block})")
        self.n = n = int(sizes.sum())
        self.start = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
        rule = {int(c): lane_bits(int(c)) for c in np.unique(sizes)}
        bits = np.array([rule[int(c)] for c in sizes], dtype=np.int64)
        if not bits.all():
            raise ValueError(f"a cell of {int(sizes.max())} runs: more than {UniformIndices.WIDE} to draw from")
        threshold = np.array([2**int(b) % int(c) for b, c in zip(bits, sizes)], dtype=np.float64)
        mean = self.block * sizes * threshold / 2.0**bits
        lanes = np.where(threshold > 0, np.ceil(mean + RESERVE_SD * np.sqrt(mean) + RESERVE_SD), 0)
        self.reserve = (-(-lanes // 2)).astype(np.int64)
        self.span = self.reserve + self.block * sizes * bits // 64
        self.streams = [np.random.PCG64(seed) for seed in self.seeds]
        for stream, span in zip(self.streams, self.span):
            stream.advance(int(self.row // self.block) * int(span))
        self.groups = []  # the cells of each (size, width), side by side
        for c, width in sorted({(int(c), int(b)) for c, b in zip(sizes, bits)}):
            cells = np.flatnonzero((sizes == c) & (bits == width))
            lane = np.uint16 if width == 16 else np.uint32
            self.groups.append(_CellGroup(c, width, lane, cells, lane(c), lane(2**width % c),
                                          int(self.reserve[cells[0]])))
        if self.block * n <= SLAB_LANES:
            self.slab_blocks, self.slab_rows = max(1, SLAB_LANES // (self.block * n)), 0
        else:
            self.slab_blocks, self.slab_rows = 0, max(4, SLAB_LANES // n // 4 * 4)
        self.first = self.filled = self.row  # the slab's rows [first, filled)
        self.buffers: list[NDArray[Any]] = []
        self.key_offsets: list[NDArray[Any]] = []
        self.overflow: dict[tuple[int, int], np.random.Generator] = {}

    # -- reading the streams

    def _refill(self):
        r, block = self.row, self.block
        b = r // block
        if self.slab_blocks:  # whole blocks, each with its reserve
            m = min(self.slab_blocks, -(-(self.stop - r) // block))
            rows = m * block
            self._buffers(rows)
            self._reserves_from(b, m)
            for g, buffer, reserve in zip(self.groups, self.buffers, self.raw_reserves):
                for i, t in enumerate(g.cells):
                    raw = self.streams[t].random_raw(m * int(self.span[t])).reshape(m, -1)
                    buffer[i, :rows * g.size].reshape(m, -1)[:] = raw[:, g.reserve:].view(g.lane)
                    reserve[i] = raw[:, :g.reserve]
            self.filled = min(r + rows, self.stop)
        else:  # part of a block (a multiple of 4 rows, so whole outputs a cell): its reserve read at its first row
            if r % block == 0:
                self._reserves_from(b, 1)
                for g, reserve in zip(self.groups, self.raw_reserves):
                    for i, t in enumerate(g.cells):
                        reserve[i, 0] = self.streams[t].random_raw(g.reserve)
            rows = min(self.slab_rows, (b + 1) * block - r, self.stop - r)
            self._buffers(rows)
            for g, buffer in zip(self.groups, self.buffers):
                words = -(-rows * g.size * g.width // 64)
                for i, t in enumerate(g.cells):
                    buffer[i, :rows * g.size] = self.streams[t].random_raw(words).view(g.lane)[:rows * g.size]
            self.filled = r + rows
        self.first = r

    def _buffers(self, rows):
        if not self.buffers or self.buffers[0].shape[1] < rows * self.groups[0].size:
            self.buffers = [np.empty((g.cells.size, rows * g.size), dtype=g.lane) for g in self.groups]

    def _reserves_from(self, first_block, m):
        """Room for the reserves of blocks ``first_block`` on (m of them), each group's (cells, m, E) outputs."""
        self.block0, self.blocks = first_block, m
        self.raw_reserves = [np.empty((g.cells.size, m, g.reserve), dtype=np.uint64) for g in self.groups]
        self.used = [np.zeros((g.cells.size, m), dtype=np.int64) for g in self.groups]
        self.accepted: list[tuple[NDArray[np.int64], NDArray[np.int64]] | None] = [None] * len(self.groups)

    def _reserve(self, j):
        """Group j's accepted reserve values, (cells, blocks, 2 E) each block's in their order first, and their
        counts (cells, blocks): made on first use in a slab."""
        made = self.accepted[j]
        if made is None:
            c = self.groups[j].size
            u = self.raw_reserves[j].view(np.uint32)
            index, rejected = multiply_shift(u, np.uint32(c), np.uint32(2**32 % c))
            order = np.argsort(rejected, axis=-1, kind="stable")  # the accepted first, in their order
            made = self.accepted[j] = (np.take_along_axis(index, order, axis=-1).astype(np.int64),
                                       (~rejected).sum(axis=-1))
        return made

    # -- the draws

    def _draws(self, k):
        """The next k rows: for each group, its cells' draws (cells, k c) in row-major order within each cell."""
        out = []
        while True:
            if self.row >= self.filled:
                self._refill()
            take = min(k, self.filled - self.row)
            at = self.row - self.first
            parts = []
            for j, (g, buffer) in enumerate(zip(self.groups, self.buffers)):
                index, rejected = multiply_shift(buffer[:, at * g.size:(at + take) * g.size], g.high, g.threshold)
                flagged = np.flatnonzero(rejected)
                if flagged.size:
                    self._replace(j, index, flagged)
                parts.append(index)
            out.append(parts)
            self.row += take
            k -= take
            if not k:
                break
        if len(out) == 1:
            return out[0]
        return [np.concatenate([p[i] for p in out], axis=1) for i in range(len(self.groups))]

    def _replace(self, j, index, flagged):
        """Replace group j's rejected values ``flagged`` (flat positions in ``index``, (cells, rows x c), row-major
        within each cell) from their blocks' reserves, in row-major order within each (cell, block)."""
        g = self.groups[j]
        cell, position = np.divmod(flagged, index.shape[1])
        block = (self.row + position // g.size) // self.block - self.block0
        key = cell * self.blocks + block  # non-decreasing: flagged is ordered by cell, then row
        used = self.used[j].ravel()
        rank = np.arange(key.size) - np.searchsorted(key, key) + used[key]  # its place among its (cell, block)'s
        used += np.bincount(key, minlength=used.size)
        accepted, count = self._reserve(j)
        ok = rank < count.ravel()[key]
        values = np.empty(key.size, dtype=np.int64)
        values[ok] = accepted[cell[ok], block[ok], rank[ok]]
        for i in np.flatnonzero(~ok):  # beyond the reserve (below 1e-12 a block): in order, from the block's own
            t, b = int(g.cells[cell[i]]), int(block[i]) + self.block0
            generator = self.overflow.get((t, b))
            if generator is None:
                generator = self.overflow[(t, b)] = np.random.Generator(np.random.PCG64(child_stream(self.seeds[t],
                                                                                                     b)))
            values[i] = generator.integers(0, g.size)
        index.ravel()[flagged] = values

    def rows(self, k: int, offsets: NDArray[Any] | None = None) -> NDArray[np.int64]:
        """(k, n) int64 draws of the next k rows (cells side by side, in ``seeds``' order), plus ``offsets``
        (broadcast to (k, n))."""
        out = np.empty((k, self.n), dtype=np.int64)
        for g, index in zip(self.groups, self._draws(k)):
            columns = (self.start[g.cells][:, None] + np.arange(g.size)).ravel()
            out[:, columns] = index.reshape(g.cells.size, k, g.size).transpose(1, 0, 2).reshape(k, -1)
        return out if offsets is None else np.add(out, offsets, out=out, casting="unsafe")

    def counts(self, k: int) -> NDArray[np.int64]:
        """(k, n) int64: how many times each column's run is drawn in each of the next k rows (cell t's draw v
        counted at column ``start_t + v``, the cells side by side as in :meth:`rows`)."""
        n = self.n
        if not self.key_offsets or self.key_offsets[0].shape[1] < k * self.groups[0].size:
            wide = k * n <= 2**32  # keys below 2**32: the 16-bit values' keys added in 32 bits
            self.key_offsets = [
                (self.start[g.cells][:, None] + np.repeat(np.arange(k) * n, g.size)[None, :]).astype(
                    np.uint32 if wide and g.width == 16 else np.int64) for g in self.groups]
        keys = []
        for g, index, offsets in zip(self.groups, self._draws(k), self.key_offsets):
            offsets = offsets[:, :k * g.size]
            if g.width == 16 and offsets.dtype == np.uint32:
                keys.append(np.add(index, offsets, out=index).astype(np.int64).ravel())
            else:
                keys.append(np.add(index, offsets, dtype=np.int64).ravel())
        key = keys[0] if len(keys) == 1 else np.concatenate(keys)
        return np.bincount(key, minlength=k * n).reshape(k, n)


@dataclass(frozen=True)
class _CellGroup:
    """The cells of :class:`CellIndices` of one size drawn at one width, side by side."""

    size: int
    width: int
    lane: Any
    cells: NDArray[np.intp]
    high: Any
    threshold: Any
    reserve: int  # E, the outputs of reserve a block


def _numpy_uses_openblas():
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except Exception:  # an older numpy, whose show_config cannot return its BLAS: einsum
        return False
    return "openblas" in str(blas.get("name", "")).lower()


#: :func:`fixed_dot` by BLAS's dot where numpy links OpenBLAS (its wheels): 2-3x faster than einsum, and
#: each value a function of its two vectors alone (OpenBLAS's dot neither splits by alignment nor, up to
#: 10,000 values, across threads; tested on the machine that runs the tests).  Another BLAS may sum by
#: alignment or by thread: einsum there.
DOT_BY_BLAS = _numpy_uses_openblas()
#: Values summed in one piece: longer vectors are summed in fixed segments, because OpenBLAS sums more
#: than 10,000 values on several threads (the bits would depend on the machine's thread count) and
#: einsum's iterator buffers 8,192 values at a time (a longer row's bits would depend on the rows around it).
DOT_SEGMENT = 8192


def _segment_dot(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    if DOT_BY_BLAS:  # numpy's matmul of a (1, n) row by an (n, 1) column is one BLAS dot
        return np.matmul(a[..., None, :], b[..., :, None])[..., 0, 0]
    return np.einsum("...j,...j->...", a, b)


def _contiguous_float(x: ArrayLike) -> NDArray[np.float64]:
    x = np.asarray(x, dtype=np.float64)
    return x if x.strides[-1] == x.itemsize else np.ascontiguousarray(x)


def fixed_dot(a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """``(a * b).sum(axis=-1)`` of (..., n) arrays (leading axes broadcast), each value from its two vectors alone.

    A matrix product (gemm, gemv) sums in blocks that depend on how many
    rows and columns are multiplied together and on BLAS's thread count, so
    a resample's statistic would follow the batch size or ``n_jobs``
    (measured: both happen with OpenBLAS).  Here every value is one dot
    per segment of :data:`DOT_SEGMENT` values, by BLAS where numpy links
    OpenBLAS, otherwise by einsum (single-threaded), in a fixed order.  Both
    sum a strided vector in another order than a contiguous one, so the
    vectors are made contiguous first.
    """
    a, b = _contiguous_float(a), _contiguous_float(b)
    n = a.shape[-1]
    if n <= DOT_SEGMENT:
        return _segment_dot(a, b)
    whole = n - n % DOT_SEGMENT
    segments = (whole // DOT_SEGMENT, DOT_SEGMENT)
    total = _segment_dot(a[..., :whole].reshape(a.shape[:-1] + segments),
                         b[..., :whole].reshape(b.shape[:-1] + segments)).sum(axis=-1)
    if whole < n:
        total += _segment_dot(a[..., whole:], b[..., whole:])
    return total


def keep_work_arrays_on_heap() -> None:
    """Let the C allocator reuse work arrays of a few MB instead of mapping fresh pages for each.

    Loops over chunks allocate and free arrays of about 1 MB (draws, counts)
    again and again.  glibc maps arrays above its mmap threshold (128 KB at
    start) and hands freed heap memory back to the system when more than
    twice that threshold sits free at the top, so each new array can cost a
    page fault per 4 KB: measured, 30-50% of the bootstrap kernel's time on
    26 tasks x 100 runs, varying with the order of earlier allocations.
    Freeing one 4 MB mapping makes glibc raise the threshold to 4 MB (its
    own rule, which any large temporary array triggers anyway), after which
    1 MB work arrays come from the heap and are reused.  The array is never
    touched, so this costs one mmap and one munmap; other allocators ignore it.
    """
    np.empty(2**19)


def worker_count(n_jobs: int) -> int:
    """Threads that ``n_jobs`` asks for: -1 is one per core."""
    return (os.cpu_count() or 1) if n_jobs == -1 else n_jobs


def parallel_map(function: Callable[[_T], _R], items: Iterable[_T], n_jobs: int) -> Iterator[_R]:
    """``map(function, items)`` in order: in the caller's thread, or over ``n_jobs`` threads (-1: one per core).

    Threads, not processes: the work is numpy's (draws, sorts, sums), which
    mostly releases the GIL, and threads share the inputs without copying
    them.  (A row-wise ``np.cumsum`` and numpy's matmul, which :func:`fixed_dot`
    calls for BLAS's dot, keep it; ``np.bincount`` releases it but, like the
    other passes that stream memory, gains little from a second thread:
    ``benchmarks/bench_speed_limit.py --threads``, benchmarks/README.md.)
    Items are taken lazily, a few per worker in flight, so memory stays
    bounded whatever their number, and an ``items`` generator that draws
    from a sequential stream runs in the caller's thread, in order.
    """
    if n_jobs == 1:
        yield from map(function, items)
        return
    workers = worker_count(n_jobs)
    with ThreadPoolExecutor(workers) as pool:
        pending: deque[Future[_R]] = deque()
        for item in items:
            pending.append(pool.submit(function, item))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


# ---------------------------------------------------------------------------
# Within-block permutations with a batch axis.
#
# The engine behind every blocked permutation test: each block (a task) holds a
# fixed multiset of small non-negative integers (doubled mid-ranks, say), and a
# resample is an independent uniform random permutation of every block's values
# over that block's slots.  Blocks of equal size are stacked into one
# ``(n_resamples, n_blocks, size)`` array so the work is a handful of numpy passes
# whatever the number of blocks or resamples.
#
# Why sorting random keys and not ``Generator.permuted``: numpy's shuffle draws
# one bounded integer per element through a generic rejection loop (about 12 ns
# an element); here a block is shuffled by sorting 64-bit keys whose high 52 bits
# are uniform random and whose low bits carry the value, so one vectorised
# fill, one SIMD sort and one mask give the permuted values (about 4 ns an
# element).  The order of distinct i.i.d. keys is a uniform permutation.  Two keys
# of a block tie in their 52 random bits with probability of order
# ``q (q - 1) / 2**53`` (5e-11 for a block of 600); the tied pair then keeps value
# order, a departure from uniformity far below any Monte Carlo error.  Blocks
# whose values need more than 11 bits (more than 1023 runs when the values are
# doubled ranks) are permuted by ranking the random keys instead.
# ---------------------------------------------------------------------------

# Random keys carry 52 random bits: their value bits must leave room for them.
_KEY_BITS = 63
_RANDOM_BITS = 52


@dataclass(frozen=True)
class BlockLayout:
    """Blocks grouped by size, ready to be permuted.

    Attributes
    ----------
    values : tuple of ndarray
        One int64 array ``(n_blocks_g, size_g)`` per size group: the values
        each block permutes over its slots.
    blocks : tuple of ndarray
        For each group, the block codes of its rows (in the order of
        ``values``).
    slots : tuple of ndarray
        For each group, the slot indices (positions in the caller's slot
        order) that its ``(n_blocks_g, size_g)`` array occupies, flattened.
    value_bits : tuple of int
        Bits needed for the largest value of each group.
    """

    values: tuple[NDArray[np.int64], ...]
    blocks: tuple[NDArray[np.intp], ...]
    slots: tuple[NDArray[np.intp], ...]
    value_bits: tuple[int, ...]


def canonical_order(values: ArrayLike, *keys: ArrayLike) -> NDArray[np.intp]:
    """Positions that sort rows by ``keys`` (the first outermost), then by value: the order random draws act on.

    A random stream picks positions.  Where the rows within a key are exchangeable (the runs of one agent on one
    task, or of one batch), putting them in this order before drawing makes a shuffle of the caller's rows draw
    the same resamples and give the same result with the same ``rng`` (issue 39).  Equal values keep their
    relative order, which cannot matter: they are the same number.

    Parameters
    ----------
    values : array_like, shape (N,)
        The scores.
    *keys : array_like, shape (N,)
        Codes of the groups the rows belong to, outermost first (e.g. task, agent).

    Returns
    -------
    ndarray of intp, shape (N,)

    Examples
    --------
    >>> canonical_order([3.0, 1.0, 2.0, 0.5], [1, 1, 0, 0])
    array([3, 2, 1, 0])
    """
    from .statistics import block_value_order  # linear in the groups (a global lexsort is N log N)

    keys_ = [np.asarray(key) for key in keys]
    if keys_ and all(k.dtype.kind in "iu" and k.size and int(k.min()) >= 0 for k in keys_):
        dims = tuple(int(k.max()) + 1 for k in keys_)
        if math.prod(dims) < 2**62:  # one code whose order is the keys' (the first outermost)
            code = np.ravel_multi_index(keys_, dims) if len(keys_) > 1 else keys_[0]
            return block_value_order(np.asarray(values), code)
    return np.lexsort((np.asarray(values),) + tuple(keys_[::-1]))


def block_layout(values: ArrayLike, block: ArrayLike) -> BlockLayout:
    """Group slots into equal-size blocks.

    Parameters
    ----------
    values : array_like of int, shape (N,)
        Non-negative integer value of each slot.
    block : array_like of int, shape (N,)
        Block code of each slot.  Slots need not be sorted.

    Returns
    -------
    BlockLayout
        Slots of each block in their original relative order, blocks grouped
        by size in increasing order of size.
    """
    values = np.asarray(values, dtype=np.int64)
    block = np.asarray(block, dtype=np.intp)
    order = np.argsort(block, kind="stable")
    codes, starts, sizes = np.unique(block[order], return_index=True, return_counts=True)
    groups: tuple[list[Any], list[Any], list[Any], list[Any]] = ([], [], [], [])
    for size in np.unique(sizes):
        rows = np.flatnonzero(sizes == size)
        slot_idx = order[starts[rows, None] + np.arange(size)]
        vals = values[slot_idx]
        groups[0].append(vals)
        groups[1].append(codes[rows])
        groups[2].append(slot_idx.ravel())
        groups[3].append(max(1, int(vals.max()).bit_length()))
    return BlockLayout(*(tuple(g) for g in groups))


def group_streams(layout: BlockLayout, generator: np.random.Generator, n_resamples: int,
                  first: int = 0) -> tuple[np.random.Generator, ...]:
    """Per size group, a generator positioned at resample ``first`` of that group's keys in ``generator``'s stream.

    The keys of ``n_resamples`` resamples are laid out in ``generator``'s
    stream group by group (all resamples of the first size group, then of the
    next), one 64-bit draw per key.  A copy of the generator advanced to each
    group's first key lets :func:`permute_blocks` draw those resamples a few
    rows at a time and still get exactly the keys of one call for all of
    them, so peak memory need not grow with the resamples drawn from one
    generator.

    Parameters
    ----------
    layout : BlockLayout
    generator : numpy.random.Generator
        A fresh PCG64 generator (as :func:`chunk_generators` yields); not advanced.
    n_resamples : int
        Resamples this generator draws.
    first : int
        The first of them to be drawn from the returned generators.

    Returns
    -------
    tuple of numpy.random.Generator
        One per size group of ``layout``.
    """
    state = generator.bit_generator.state
    streams, offset = [], 0
    for vals in layout.values:
        bits = np.random.PCG64()
        bits.state = state  # type: ignore[assignment]  # a PCG64's state, from the generator's PCG64
        bits.advance(offset + first * vals.size)
        streams.append(np.random.Generator(bits))
        offset += n_resamples * vals.size
    return tuple(streams)


def permute_blocks(layout: BlockLayout, streams: Sequence[np.random.Generator | tuple[np.random.Generator, ...]],
                   sizes: Sequence[int] | NDArray[np.integer[Any]]) -> tuple[NDArray[np.int64], ...]:
    """Draw within-block permutations for several resamples at once.

    Parameters
    ----------
    layout : BlockLayout
        From :func:`block_layout`.
    streams : sequence of numpy.random.Generator or of tuple of them
        Per piece of work, one generator (which draws the keys of every size
        group in turn) or the per-group generators of :func:`group_streams`,
        which give the same keys.  Drawing advances them, so consecutive
        calls with the same streams continue where the previous one stopped.
    sizes : sequence of int
        How many resamples each piece draws.  Each resample's keys depend only
        on its generator's stream and its position in it, so grouping or
        splitting the resamples of a generator gives the same permutations.

    Returns
    -------
    tuple of ndarray
        One int64 array ``(sum(sizes), n_blocks_g, size_g)`` per size group
        holding the permuted values.
    """
    total = int(np.sum(sizes))
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    out = []
    for g, (vals, bits) in enumerate(zip(layout.values, layout.value_bits)):
        keys = np.empty((total,) + vals.shape)
        for piece, lo, hi in zip(streams, bounds[:-1], bounds[1:]):
            (piece[g] if isinstance(piece, tuple) else piece).random(out=keys[lo:hi])
        out.append(_sort_values_by_keys(keys, vals, bits))
    return tuple(out)


def _sort_values_by_keys(keys, vals, bits):
    """Turn uniform floats into permuted ``vals`` along the last axis (in place)."""
    if bits > _KEY_BITS - _RANDOM_BITS:
        # Values too wide to share a key with 52 random bits: rank the keys.
        order = np.argsort(keys, axis=-1)
        return np.take_along_axis(np.broadcast_to(vals, keys.shape), order, axis=-1)
    # u in [0, 1) -> 1 + u in [1, 2): the IEEE bit pattern is then exponent
    # 0x3FF followed by 52 random mantissa bits, increasing with u.  Shifting
    # left by `bits` pushes the exponent out (its low bit becomes the sign
    # bit, the same for every key, so the order is kept) and frees the low
    # bits for the value.
    np.add(keys, 1.0, out=keys)
    ints = keys.view(np.int64)
    np.left_shift(ints, bits, out=ints)
    np.bitwise_or(ints, vals, out=ints)
    ints.sort(axis=-1)
    np.bitwise_and(ints, (1 << bits) - 1, out=ints)
    return ints
