"""Array kernels of the stratified bootstrap: resampling, metrics, intervals.

Every resample is held as *counts*: how many times each of an agent's runs
was drawn.  Runs are stored once per agent in ascending order of score (the
"pooled order"), so that every built-in statistic is a few linear passes over
a ``(n_resamples, n_runs)`` count matrix and nothing is sorted per resample:

* per-task means are one weighted sum of each task's counts;
* the interquartile mean is read off the cumulative counts (which resampled
  values fall between the floor(N/4)-th and the (N - floor(N/4))-th order
  statistic) and one weighted sum per row; on larger designs the cumulative
  counts are needed only in two narrow windows around the cuts (:class:`WindowedTrim`);
* a score distribution is one cumulative count read at each threshold;
* probability of improvement counts, for every X run, the resampled Y runs
  below it (cumulative counts on the two agents' merged sorted runs).

Since issue 17 the default path (built-in metrics, no task resampling) never
materialises the resampled scores: each block's draws become canonical
counts by one ``bincount`` (:class:`CountDrawer`) and every
statistic is read off them (:class:`CountStatistics`, :class:`ProfileStatistics`,
:func:`improvement_distribution`).
The draws are those of the draw path (:func:`draw`, used for user metrics),
so the statistics agree with it up to floating-point rounding of the sums
(about 1e-15; tested).  BCa's jackknife is in closed form (:func:`leave_one_out_values`).

Draws are made in a fixed *canonical* layout (task by task, runs sorted by
score within a task), each cell (agent, task) from its own random stream keyed by the agent's and the task's
labels (:func:`rlstats.resampling.cell_seed_sequence`), read in fixed blocks of ``RNG_BLOCK`` resamples
(:class:`rlstats.resampling.CellIndices`: 16 or 32 bits a value by the one width rule), so a cell's draws depend on
neither the batch size, ``n_jobs``, the other agents nor the other tasks (their names, order or number: audit s33
bootstream33).  Task resampling (``task_bootstrap``) draws which tasks from the agent's stream, split into the same
blocks (:func:`agent_blocks`).

The ``rliable_*`` functions reproduce rliable 1.2.0 bit for bit: its draw
order with a legacy ``RandomState`` and its exact numpy/scipy operations
(spec anchors_ecosystem.md Section 1.4).
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

import numpy as np

from ...statistics import (corrected_wilson_interval, difference_tolerance, hall_inverse, near_ties,
                           order_statistic_se, spread_and_magnitude)
from ...engines import Engine, map_ordered, workers
from ...resampling import (CellIndices, canonical_order, cell_seed_sequence, chunk_seeds, fixed_dot,
                           keep_work_arrays_on_heap, parallel_map)

#: Resamples of a block: the unit of work and of the draws (a cell's reserve of replacements, task resampling's
#: spawned generator); fixed so results never depend on batching or ``n_jobs``.
RNG_BLOCK = 100
#: Elements of one (resamples x runs) array held at once; bounds memory whatever n_resamples is.
MEMORY_BUDGET = 2**20
#: Elements of one work array of the counts path: 1 MB of int64, so that a chunk's arrays stay in the core's
#: cache and below glibc's raised mmap threshold (measured: about 10-15% faster than 8 MB chunks at 26 x 100
#: runs, bench_speed_limit.py --alternating; 2**16 and 2**18 slower too); never changes results.
COUNT_BUDGET = 2**17
#: Values in one of ``rliable_compat``'s batches: 2 MB of float64 (measured at 26 x 100 runs: about 7% faster
#: than 2**17 with n_jobs=2 and no slower on one thread, 2**19 and 2**20 no faster; 8 MB batches were about 8%
#: slower, bench_speed_limit.py --alternating); never changes results.
COMPAT_BUDGET = 2**18


# ----------------------------------------------------------------------------- layouts


@dataclass(frozen=True)
class AgentLayout:
    """One agent's runs, arranged for count-based resampling.

    Attributes
    ----------
    values : ndarray, shape (n,)
        The runs' scores in ascending order (the pooled order of counts).
    task_of : ndarray of intp, shape (n,)
        Task code of each run, in pooled order.
    task_sizes : ndarray of intp, shape (T,)
        Runs per task, c_t >= 1.
    slot_to_pooled : ndarray of intp, shape (n,)
        Canonical slot (task by task, ascending score within task) -> pooled position.
    slot_base : ndarray of intp, shape (n,)
        First canonical slot of each slot's task (so a draw j of that task is slot_base + j).
    task_start : ndarray of intp, shape (T,)
        First canonical slot of each task.
    sorted_by_task : ndarray, shape (T, c_max)
        Scores sorted within each task, NaN-padded.
    canonical_values : ndarray, shape (n,)
        Scores in canonical slot order.
    run_matrix : ndarray or None, shape (R, T)
        Scores in the design's run order when every task has R runs (rliable's layout), else None.
    tasks : tuple or None
        Each task's label, in the layout's order: the keys of the cells' streams (:func:`cell_seeds`; None: the
        task codes).
    """

    values: np.ndarray
    task_of: np.ndarray
    task_sizes: np.ndarray
    slot_to_pooled: np.ndarray
    slot_base: np.ndarray
    task_start: np.ndarray
    sorted_by_task: np.ndarray
    canonical_values: np.ndarray
    run_matrix: np.ndarray | None
    tasks: tuple | None = None

    @property
    def n_runs(self):
        return self.values.size

    @property
    def n_tasks(self):
        return self.task_sizes.size

    @functools.cached_property
    def balanced(self):  # cached: read once per chunk of the counts path
        return bool((self.task_sizes == self.task_sizes[0]).all())

    @functools.cached_property
    def run_weight(self):
        """(n,) each run's weight in the pooled order for the IQM and the optimality gap: c_max / c_t, as if every
        task had c_max runs, so that each task weighs alike whatever its runs (audit s8: pooling the runs of
        unequal tasks weighed them by their runs); None when every task has the agent's c runs (weight 1)."""
        if self.balanced:
            return None
        return self.task_sizes.max() / self.task_sizes[self.task_of]

    @functools.cached_property
    def mean_tolerance(self):
        """(T,) within this of a threshold a task's mean of its runs is at it, not above: the mean's rounding, the
        :func:`rlstats.statistics.difference_tolerance` of the task's scores' range and largest ``|score|`` (audit s37
        meta37: a mean of 9 at tau = 9 counted as not above it, and x 7.3 + 1e6, rounded, as above)."""
        with np.errstate(invalid="ignore"):
            low, high = np.nanmin(self.sorted_by_task, axis=1), np.nanmax(self.sorted_by_task, axis=1)
        return difference_tolerance(*spread_and_magnitude(low, high))

    @property
    def weighted_runs(self):
        """The weighted runs' total, T c_max (n when balanced): the IQM trims floor(of it / 4) at each end."""
        return float(self.n_tasks * self.task_sizes.max())


def agent_layout(y, task, run, n_tasks, tasks=None):
    """The :class:`AgentLayout` of one agent's runs.

    Parameters
    ----------
    y, task, run : ndarray, shape (n,)
        The agent's scores, task codes (every task 0..n_tasks-1 present) and
        run index within (agent, task), in the design's order.
    n_tasks : int
    tasks : sequence, optional
        The label of each task code: its cell's stream is keyed by it (default: the codes).
    """
    y = np.asarray(y, dtype=np.float64)
    task = np.asarray(task, dtype=np.intp)
    sizes = np.bincount(task, minlength=n_tasks).astype(np.intp)
    canonical = canonical_order(y, task)  # task, then score (stable: ties keep run order)
    c_values, c_task = y[canonical], task[canonical]
    start = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.intp)
    pooled = np.argsort(c_values, kind="stable")
    slot_to_pooled = np.empty_like(pooled)
    slot_to_pooled[pooled] = np.arange(pooled.size)
    c_max = int(sizes.max())
    by_task = np.full((n_tasks, c_max), np.nan)
    by_task[c_task, np.arange(y.size) - start[c_task]] = c_values
    run_matrix = None
    if (sizes == sizes[0]).all():
        run_matrix = np.empty((int(sizes[0]), n_tasks))
        run_matrix[run, task] = y
    return AgentLayout(values=c_values[pooled], task_of=c_task[pooled], task_sizes=sizes,
                       slot_to_pooled=slot_to_pooled.astype(np.intp), slot_base=start[c_task],
                       task_start=start, sorted_by_task=by_task, canonical_values=c_values, run_matrix=run_matrix,
                       tasks=None if tasks is None else tuple(tasks))


def batch_blocks(n_runs, batch_size=None):
    """How many RNG blocks one batch holds, so that a batch has about MEMORY_BUDGET elements."""
    per_batch = batch_size if batch_size is not None else max(1, MEMORY_BUDGET // max(1, n_runs))
    return max(1, int(per_batch) // RNG_BLOCK)


# ----------------------------------------------------------------------------- draws


@dataclass(frozen=True)
class Draws:
    """One batch of stratified draws for one agent.

    ``slots`` are canonical slots: shape (b, n) without task resampling, or
    (b, T, c_max) with it, where position p of replicate b holds task
    ``chosen[b, p]`` and ``mask`` marks the c_chosen valid draws.
    """

    slots: np.ndarray
    chosen: np.ndarray | None = None
    mask: np.ndarray | None = None

    @property
    def n(self):
        return self.slots.shape[0]


def cell_seeds(ss, layout):
    """Each cell's stream below the agent's ``ss``, keyed by its task's label (the layout's ``tasks``; else its code)."""
    tasks = layout.tasks if layout.tasks is not None else range(layout.n_tasks)
    return [cell_seed_sequence(ss, task) for task in tasks]


def cell_draws(ss, layout, start, stop):
    """The :class:`rlstats.resampling.CellIndices` of the agent's resamples ``start`` to ``stop`` (whole blocks)."""
    return CellIndices(cell_seeds(ss, layout), layout.task_sizes, start, stop, RNG_BLOCK)


def draw(seed, layout, size, task_bootstrap=True):
    """Draw ``size`` resamples of one agent with task resampling from the block stream ``seed`` (a SeedSequence).

    Each of the T task positions first draws a task uniformly with
    replacement, then that task's runs are drawn with replacement (rliable's
    ``task_bootstrap``), by ``Generator.integers``.  (Without task resampling the
    draws are the cells' own, :func:`draw_blocks`.)
    """
    if not task_bootstrap:
        raise ValueError("draw() resamples tasks; the stratified draws are draw_blocks()'s, from the cells' streams")
    sizes = layout.task_sizes
    rng = np.random.Generator(np.random.PCG64(seed))
    chosen = rng.integers(0, layout.n_tasks, size=(size, layout.n_tasks))
    c_chosen = sizes[chosen]
    c_max = int(sizes.max())
    if layout.balanced:
        local = rng.integers(0, c_max, size=(size, layout.n_tasks, c_max))
        mask = None
    else:
        local = rng.integers(0, c_chosen[..., None], size=(size, layout.n_tasks, c_max))
        mask = np.arange(c_max) < c_chosen[..., None]
    return Draws(slots=local + layout.task_start[chosen][..., None], chosen=chosen, mask=mask)


def agent_blocks(ss, n_resamples, seeds=True):
    """The agent's fixed RNG blocks: ``[(start, stop, SeedSequence), ...]``, spawned from ``ss`` (task resampling's
    streams; without ``seeds`` each is None: the cells' draws need only the blocks' rows, :func:`cell_draws`)."""
    if not seeds:
        return [(start, min(start + RNG_BLOCK, n_resamples), None) for start in range(0, n_resamples, RNG_BLOCK)]
    return list(chunk_seeds(ss, n_resamples, RNG_BLOCK))


def draw_blocks(blocks, layout, task_bootstrap=False, ss=None):
    """The draws of consecutive RNG blocks, concatenated into one batch: each block's from its seed with task
    resampling, else each cell's from its own stream below the agent's ``ss`` (:func:`cell_draws`)."""
    if task_bootstrap:
        return _concatenate([draw(seed, layout, stop - start, True) for start, stop, seed in blocks])
    start, stop = blocks[0][0], blocks[-1][1]
    return Draws(slots=cell_draws(ss, layout, start, stop).rows(stop - start, layout.slot_base))


def _concatenate(parts):
    if len(parts) == 1:
        return parts[0]
    cat = np.concatenate
    chosen = None if parts[0].chosen is None else cat([p.chosen for p in parts])
    mask = None if parts[0].mask is None else cat([p.mask for p in parts])
    return Draws(slots=cat([p.slots for p in parts]), chosen=chosen, mask=mask)


# ----------------------------------------------------------------------------- counts straight from the draws


def chunk_rows(n_runs, budget=None):
    """Rows of one (rows x runs) work array: at most RNG_BLOCK, and about ``budget`` elements.

    Row chunks are drawn one after another from the cells' streams, which gives
    exactly the blocks' draws (:class:`rlstats.resampling.CellIndices`), so memory stays flat.
    """
    budget = COUNT_BUDGET if budget is None else budget
    return max(1, min(RNG_BLOCK, int(budget) // max(1, n_runs)))


#: Runs in one slice of whole tasks when a chunk holds a single resample of more runs than this: the studentised
#: interval's task moments are summed slice by slice, in the core's cache (``_small_runs.StandardErrors``; 4.1-5.5 ->
#: 2.7-3.4 ns a value at 500,000 runs an agent).  The draws and counts are not: counted slice by slice (the same
#: integers) they were no faster than whole rows (benchmarks/README.md, issue 43 item 1).  Never changes results.
TASK_BLOCK = 2**16


def task_slices(layout, size=None):
    """Edges ``[0, e_1, ..., n]`` of consecutive groups of whole tasks, each at most ``size`` runs (or one task), or
    None when the agent has at most ``size`` runs (``size`` defaults to :data:`TASK_BLOCK`)."""
    size = TASK_BLOCK if size is None else int(size)
    n = layout.n_runs
    if n <= size:
        return None
    ends = np.cumsum(layout.task_sizes)
    edges, start = [0], 0
    while start < n:
        reach = int(np.searchsorted(ends, start + size, side="right")) - 1  # the furthest task end in reach
        stop = int(ends[reach]) if reach >= 0 else start  # (-1 would wrap to the last end)
        if stop <= start:  # a task of more than `size` runs: alone
            stop = int(ends[np.searchsorted(ends, start, side="right")])
        edges.append(stop)
        start = stop
    return edges


class CountDrawer:
    """Draws RNG blocks' resamples of the agent whose stream is ``ss`` as canonical counts, in row chunks.

    The draws are those of :func:`draw_blocks` (without task resampling), so every
    statistic computed from them equals the one computed from
    :func:`resample_from_draws`; they are turned into counts by one bincount
    per chunk (:meth:`rlstats.resampling.CellIndices.counts`), and never gathered into
    scores.  The cells' seeds are made once per agent and only read, so threads may share it.

    Attributes
    ----------
    rows : int
        Resamples per chunk (:func:`chunk_rows`).
    """

    def __init__(self, layout, ss, budget=None):
        self.layout, self.seeds = layout, cell_seeds(ss, layout)
        self.n, self.rows = layout.n_runs, chunk_rows(layout.n_runs, budget)
        self.last = per_thread(dict)  # this thread's drawer, which a group starting where it stopped goes on with

    def drawer(self, start, stop):
        """A :class:`rlstats.resampling.CellIndices` at row ``start``: this thread's last one when it stopped there
        (at a block's end: its streams are there), which saves making the cells' generators again; else a new one."""
        last = self.last()
        draws = last.get("drawer")
        if draws is None or draws.row != start:
            draws = last["drawer"] = CellIndices(self.seeds, self.layout.task_sizes, start, stop, RNG_BLOCK)
        draws.stop = stop
        return draws

    def chunks(self, blocks):
        """Yield ``(start, stop, counts)`` for consecutive blocks ``[(start, stop, SeedSequence), ...]``.

        One generator over all the blocks, so the work arrays are freed and
        reallocated in the same order chunk after chunk (and reused from the
        heap, see :func:`rlstats.resampling.keep_work_arrays_on_heap`).
        """
        rows = self.rows
        start, stop = blocks[0][0], blocks[-1][1]
        draws = self.drawer(start, stop)
        for first in range(start, stop, rows):
            k = min(rows, stop - first)
            yield first, first + k, draws.counts(k)


#: Resampled runs in one item of work of the counts path (about 16 work arrays): progress advances and
#: threads share work item by item.
ITEM_BUDGET = 16 * COUNT_BUDGET


def blocks_per_item(n_runs):
    """RNG blocks in one item of work when a resample has ``n_runs`` runs (about ITEM_BUDGET resampled runs)."""
    return max(1, ITEM_BUDGET // max(1, RNG_BLOCK * n_runs))


def block_groups(blocks, per_item, n_jobs=1):
    """Consecutive RNG blocks in items of ``per_item`` blocks, the unit of work (and of progress).

    With threads or a Dask cluster (``n_jobs`` an :class:`rlstats.engines.Engine`), items are made smaller
    where needed so that there are at least four per thread (the last ones then keep every thread busy).
    """
    if not (n_jobs == 1 or isinstance(n_jobs, Engine) and n_jobs.serial):
        per_item = max(1, min(per_item, len(blocks) // (4 * workers(n_jobs))))
    return [blocks[first:first + per_item] for first in range(0, len(blocks), per_item)]


def run_blocks(groups, compute, n_jobs=1, advance=None, out=None):
    """Run ``compute(group)`` for every group of RNG blocks: serially, on ``n_jobs`` threads, or on the engine
    ``n_jobs`` names (:class:`rlstats.engines.Engine`: a Dask cluster).

    Without ``out``, ``compute`` writes its rows of the output itself and returns its group (threads share the
    output). With ``out``, it returns the rows of its group's resamples and they are written here, in the
    caller's thread: the form that runs on other processes (Dask). Each group's result depends only on its own
    blocks, so the output is identical whatever ``n_jobs`` or engine.  Progress advances, in the caller's
    thread, by each group's resamples.
    """
    keep_work_arrays_on_heap()
    for group, done in zip(groups, map_ordered(compute, groups, n_jobs)):
        if out is not None:
            out[group[0][0]:group[-1][1]] = done
        else:
            group = done  # the (start, stop, seed) blocks it computed
        if advance is not None:
            advance(group[-1][1] - group[0][0])


class per_thread:
    """A callable returning this thread's own ``factory()`` (work buffers that threads must not share).

    Sent to another process (Dask), it travels as its factory: each process makes its own buffers.
    """

    def __init__(self, factory):
        self.factory, self.local = factory, threading.local()

    def __call__(self):
        made = getattr(self.local, "value", None)
        if made is None:
            made = self.local.value = self.factory()
        return made

    def __reduce__(self):
        return per_thread, (self.factory,)


def statistics_from_counts(ss, layout, n_resamples, width, factory, *, budget=None, n_jobs=1, advance=None):
    """(n_resamples, width) ``statistics(counts)`` of every resample, read off canonical counts chunk by chunk.

    ``factory(rows)`` makes a statistics object (its own work buffers) for
    chunks of at most ``rows`` resamples; each thread makes one.
    """
    out = np.empty((n_resamples, width))
    counter = CountDrawer(layout, ss, budget)
    statistics = per_thread(lambda: factory(counter.rows))

    def compute(group):  # the group's rows (run_blocks writes them: the form that runs on a Dask worker too)
        own = statistics()
        first = group[0][0]
        rows = np.empty((group[-1][1] - first, width))
        for start, stop, counts in counter.chunks(group):
            rows[start - first:stop - first] = own(counts)
        return rows

    run_blocks(block_groups(agent_blocks(ss, n_resamples, False), blocks_per_item(layout.n_runs), n_jobs), compute,
               n_jobs,
               advance, out)
    return out


def pooled_slots(layout):
    """Canonical slot of each pooled position (the inverse of ``slot_to_pooled``)."""
    out = np.empty_like(layout.slot_to_pooled)
    out[layout.slot_to_pooled] = np.arange(out.size)
    return out


#: Standard deviations of a cumulative count between a cut of the IQM and the edge of its window
#: (:func:`trim_windows`).  Wider windows cost time; a row outside them is computed in full, so this
#: changes which rows take the full sum (whose rounding differs in the last bits), never more.
WINDOW_SD = 7.0
#: Runs per agent up to which :class:`WindowedTrim` packs two counts into one double exactly
#: (2 * 2**bit_length(n) * n < 2**53).
WINDOW_MAX_RUNS = 2**26 - 1


def cumulative_count_moments(layout):
    """Mean and variance of C_k, the copies a resample draws at pooled positions <= k, for every k.

    C_k is a sum over tasks of independent binomials: task t contributes
    Binomial(c_t, m_tk / c_t), m_tk of its c_t runs lying at or below k.  So
    E[C_k] = k + 1 and Var[C_k] = sum_t m_tk (1 - m_tk / c_t), where
    sum_t m_tk^2 / c_t grows by (2 m + 1) / c_t at each run (m: the runs of
    its task already passed: its rank within the task, as the pooled order
    keeps each task's canonical order).  In place: a few arrays of n at most.
    """
    n = layout.n_runs
    variance = np.empty(n)
    variance[layout.slot_to_pooled] = np.arange(n) - layout.slot_base  # m, then 2m + 1 over c_t, summed
    variance *= 2
    variance += 1
    variance /= layout.task_sizes[layout.task_of]
    np.cumsum(variance, out=variance)
    mean = np.arange(1.0, n + 1)
    np.subtract(mean, variance, out=variance)
    return mean, np.maximum(variance, 0.0, out=variance)


def trim_windows(layout, sd=None):
    """Pooled positions ``(a1, b1, a2, b2)`` around the IQM's two cuts, or None where windows do not pay.

    The window [a1, b1) of the lower cut L = floor(n/4) is the narrowest
    with L at least ``sd`` standard deviations above E[C_(a1-1)] and below
    E[C_(b1-1)] (:func:`cumulative_count_moments`); [a2, b2) likewise for
    the upper cut n - L.  Used when the windows are disjoint and span at
    most half the runs.  ``sd`` defaults to :data:`WINDOW_SD`.
    """
    n = layout.n_runs
    low, high = n // 4, n - n // 4
    if low < 1 or n > WINDOW_MAX_RUNS:
        return None
    sd = WINDOW_SD if sd is None else sd
    mean, variance = cumulative_count_moments(layout)
    spread = sd * np.sqrt(variance)

    def window(cut):
        surely_at_most = np.flatnonzero(mean + spread <= cut)
        surely_at_least = np.flatnonzero(mean - spread >= cut)
        start = int(surely_at_most[-1]) + 1 if surely_at_most.size else 0
        return start, max(start + 1, int(surely_at_least[0]) + 1 if surely_at_least.size else n)  # never empty

    (a1, b1), (a2, b2) = window(low), window(high)
    if b1 > a2 or (b1 - a1) + (b2 - a2) > n // 2:
        return None
    return a1, b1, a2, b2


class WindowedTrim:
    """The IQM's trimmed sum of canonical counts, with cumulative counts taken inside two windows only.

    :func:`trimmed_sum` sums clip(C_k, L, H) (v_k - v_(k+1)) over every
    pooled position k.  Below the first window C_k <= L and above the last
    C_k >= H, so those terms are constants; between the windows L <= C_k <= H,
    and sum_k C_k (v_k - v_(k+1)) there is, by parts, one weighted sum of the
    counts; C at each window's start is one more weighted sum.  Only the
    windows' counts are permuted and cumulated, in one strip: C before the
    first window, its counts, the copies between the windows, the second
    window's counts, so one cumulative sum gives C at every position of both.
    A row whose cumulative counts leave a window (rare by construction,
    :func:`trim_windows`) is computed in full by ``fallback``.  Every row is
    computed from its own counts alone, so chunking never changes results.
    Work buffers for ``rows`` resamples are reused call after call (one object per thread).
    """

    def __init__(self, layout, windows, order, rows):
        a1, b1, a2, b2 = windows  # a2 < b2 <= n
        n, values, position = layout.n_runs, layout.values, layout.slot_to_pooled
        self.low, self.high = np.int64(n // 4), np.int64(n - n // 4)
        # C at both windows' starts from one weighted sum: whole numbers below 2**53, so exact
        self.base = float(2 ** (n.bit_length() + 1))
        self.starts = np.multiply(position < a2, self.base)
        self.starts += position < a1
        # copies at position p count in C_k for max(p, b1) <= k < a2: by parts, v_max(p, b1) - v_a2
        self.middle = np.zeros(n)
        before = position < a2
        self.middle[before] = values[np.maximum(position[before], b1)] - values[a2]
        self.constant = self.high * values[min(b2, n - 1)] - self.low * values[a1]  # v_n = v_(n-1)

        def steps(start, stop):  # the steps v_k - v_(k+1) of a window, none past the last run
            return values[start:stop] - np.append(values[start + 1:stop + 1], values[-1])[:stop - start]
        # the strip's columns 0 and `gap` are written per call (their slot 0 is a placeholder) and step 0
        self.gap = 1 + (b1 - a1)
        self.slots = np.concatenate(([0], order[a1:b1], [0], order[a2:b2])).astype(np.intp)
        self.steps = np.concatenate(([0.0], steps(a1, b1), [0.0], steps(a2, b2)))
        self.clipped = np.empty((rows, self.slots.size))

    def __call__(self, counts, as_float, fallback):
        low, high, gap = self.low, self.high, self.gap
        b = counts.shape[0]
        starts = fixed_dot(as_float, self.starts)
        at_second = np.floor(starts / self.base)
        at_first = starts - self.base * at_second
        total = fixed_dot(as_float, self.middle)
        total += self.constant
        # np.take, not counts[:, slots]: indexing lays the strip out column by column, and the row-wise
        # cumulative sum and clip below then take twice as long (benchmarks/README.md, issue 17's round six)
        cum = np.take(counts, self.slots, axis=1)
        cum[:, 0] = at_first
        cum[:, gap] = at_second - at_first - cum[:, 1:gap].sum(axis=1)  # the copies between the windows
        cum.cumsum(axis=1, out=cum)
        inside = (at_first <= low) & (cum[:, gap - 1] >= low) & (at_second <= high) & (cum[:, -1] >= high)
        total += fixed_dot(np.clip(cum, low, high, out=self.clipped[:b]), self.steps)  # clipped and made float
        total /= high - low
        outside = (~inside).nonzero()[0]
        if outside.size:
            total[outside] = fallback(counts[outside])
        return total


class CountStatistics:
    """Built-in statistics read off canonical counts, with work buffers reused chunk after chunk.

    Calling it on integer counts (rows, n) from :class:`CountDrawer`
    gives (rows, M) statistics equal to :func:`metric_values` on the same
    draws up to floating-point rounding (sums are taken in another order):

    * per-task means: one weighted sum of each task's counts (for mean and median);
    * optimality gap: one counts-weighted sum of min(score, gamma);
    * IQM: the counts in pooled order, their integer cumulative sums clipped
      to [floor(n/4), n - floor(n/4)] and one weighted sum (:func:`trimmed_sum`);
      on larger designs only inside windows around the two cuts (:class:`WindowedTrim`).

    No sum is a matrix product (weighted row sums by
    :func:`rlstats.resampling.fixed_dot`, task sums by einsum), so a row's value
    does not depend on how many rows are computed together.

    Attributes
    ----------
    order : ndarray
        Canonical slots in pooled (sorted) order (:func:`pooled_slots`).
    clipped : ndarray
        min(score, gamma) of each canonical slot, the optimality gap's weights.
    steps : ndarray
        ``v_k - v_(k+1)`` of the pooled values, the IQM's weights.
    windowed : WindowedTrim or None
        The IQM inside two windows; None when it is the full cumulative sum (``windows=None``).
    """

    def __init__(self, layout, metrics, gamma, rows, windows="auto"):
        self.layout, self.metrics, self.gamma = layout, tuple(metrics), gamma
        n = layout.n_runs
        self.order = pooled_slots(layout)
        # each run's shortfall max(gamma - score, 0): 0 where a run reaches gamma, so a resample of such runs has a
        # gap of exactly 0 in any units (gamma minus a mean of min(score, gamma) rounded below 0 at 1e-6, audit s24)
        self.shortfall = np.maximum(gamma - layout.canonical_values, 0.0)
        self.steps = layout.values[:-1] - layout.values[1:]
        # unequal runs per task: weighted copies (AgentLayout.run_weight), cut at floor(T c_max / 4), no windows
        self.weight = layout.run_weight  # in the pooled order of the cumulative counts
        self.total = layout.weighted_runs if self.weight is not None else n
        self.cut = int(self.total) // 4 if self.weight is not None else n // 4
        if self.weight is not None:
            self.shortfall = self.shortfall * self.weight[layout.slot_to_pooled]
        self.float_counts = np.empty((rows, n))
        # balanced designs: the scores as (tasks, runs), for one einsum per chunk
        self.by_task = layout.canonical_values.reshape(layout.n_tasks, -1) if layout.balanced else None
        if isinstance(windows, str):  # "auto"; None: the full cumulative sum; or (a1, b1, a2, b2)
            windows = trim_windows(layout) if "iqm" in self.metrics and self.weight is None else None
        # (the windows count whole copies: a weighted agent takes the full sum)
        self.windowed = None if windows is None or self.weight is not None else \
            WindowedTrim(layout, windows, self.order, rows)
        # the full cumulative sum's buffers, reused chunk after chunk; with windows it sees a few rows only
        full_sum = "iqm" in self.metrics and self.windowed is None
        self.buffers = (np.empty((rows, n), dtype=np.int64), np.empty((rows, n))) if full_sum else None

    def task_means(self, counts):
        layout = self.layout
        if self.by_task is not None:
            sums = np.einsum("btc,tc->bt", counts.reshape(counts.shape[0], *self.by_task.shape), self.by_task)
        else:
            sums = np.add.reduceat(counts * layout.canonical_values, layout.task_start, axis=1)
        return sums / layout.task_sizes

    def iqm(self, counts):
        b, n = counts.shape
        buffers = self.buffers
        if self.weight is None:
            cum = np.take(counts, self.order, axis=1, out=None if buffers is None else buffers[0][:b])
        else:  # weighted copies: floats
            cum = np.take(counts, self.order, axis=1) * self.weight
        np.cumsum(cum, axis=1, out=cum)
        low, high = self.cut, self.total - self.cut
        work = np.empty(cum.shape) if buffers is None else buffers[1][:b]
        np.clip(cum, low, high, out=work)  # clipped and made float in one pass (exact: whole numbers)
        values = self.layout.values
        total = fixed_dot(work[:, :-1], self.steps) + high * values[-1] - low * values[0]
        return total / (high - low)

    def __call__(self, counts):
        b, n = counts.shape
        as_float = self.float_counts[:b]
        as_float[...] = counts
        out = np.empty((b, len(self.metrics)))
        means = None
        for j, metric in enumerate(self.metrics):
            if metric == "iqm":
                out[:, j] = self.iqm(counts) if self.windowed is None else self.windowed(counts, as_float, self.iqm)
            elif metric == "optimality_gap":
                out[:, j] = fixed_dot(as_float, self.shortfall) / self.total
            else:  # mean and median of the task means
                if means is None:
                    means = self.task_means(as_float)
                # the mean as np.mean computes it (sum, then divided by the count), without its fixed cost
                out[:, j] = np.add.reduce(means, axis=1) / means.shape[1] if metric == "mean" else median_of_rows(means)
        return out


# ----------------------------------------------------------------------------- resamples as counts


@dataclass(frozen=True)
class Resample:
    """What every statistic needs from a batch of resamples of one agent.

    Attributes
    ----------
    counts : ndarray, shape (b, n)
        Times each run (pooled order) was drawn.
    total : ndarray, shape (b,)
        Values per resample (sum of counts).
    task_means : ndarray, shape (b, P)
        Mean of each task position (P = T; with task resampling, a task drawn
        twice is two positions).
    draws : Draws or None
        The draws themselves (for user metrics that need the score matrix).
    """

    counts: np.ndarray
    total: np.ndarray
    task_means: np.ndarray
    draws: Draws | None = None

    @functools.cached_property
    def counts_float(self):
        """The counts as float64, for weighted sums (BLAS sums floats only)."""
        return self.counts.astype(np.float64, copy=False)


def resample_from_draws(layout, draws):
    """Counts, totals and task-position means of a batch of draws."""
    b, n = draws.n, layout.n_runs
    pooled = layout.slot_to_pooled[draws.slots]
    rows = np.arange(b, dtype=np.intp).reshape((b,) + (1,) * (pooled.ndim - 1)) * n
    keys = (pooled + rows).ravel()
    weights = None if draws.mask is None else draws.mask.ravel().astype(np.float64)
    counts = np.bincount(keys, weights=weights, minlength=b * n).reshape(b, n)
    scores = layout.canonical_values[draws.slots]
    if draws.chosen is None:
        total = np.full(b, float(n))
        if layout.balanced:
            sums = scores.reshape(b, layout.n_tasks, -1).sum(axis=2)
        else:
            sums = np.add.reduceat(scores, layout.task_start, axis=1)
        means = sums / layout.task_sizes
    else:
        c_chosen = layout.task_sizes[draws.chosen]
        if draws.mask is not None:
            scores = np.where(draws.mask, scores, 0.0)
        means = scores.sum(axis=2) / c_chosen
        total = c_chosen.sum(axis=1).astype(np.float64)
    return Resample(counts=counts, total=total, task_means=means, draws=draws)


def resample_from_counts(layout, counts):
    """A Resample from arbitrary count rows (the point estimate, jackknife rows)."""
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    T = layout.n_tasks
    sizes = np.stack([np.bincount(layout.task_of, weights=row, minlength=T) for row in counts])
    sums = np.stack([np.bincount(layout.task_of, weights=row * layout.values, minlength=T) for row in counts])
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / sizes
    return Resample(counts=counts, total=counts.sum(axis=1), task_means=means)


def observed(layout):
    """The data themselves as a single 'resample' (every run drawn once)."""
    return resample_from_counts(layout, np.ones(layout.n_runs))


# ----------------------------------------------------------------------------- built-in metrics


def metric_mean(layout, r, gamma):
    """Mean over tasks of per-task means (rliable ``aggregate_mean``)."""
    return r.task_means.mean(axis=1)


def metric_median(layout, r, gamma):
    """Median over tasks of per-task means (rliable ``aggregate_median``)."""
    return median_of_rows(r.task_means)


def median_of_rows(x):
    """``np.median(x, axis=1)``, the same bits, for finite x: one partition, without np.median's fixed cost.

    np.median spends about 50 us a call on a chunk's 50 x 26 task means (this,
    about 10 us), paid once per chunk of the counts path.  Task means are
    finite: the design drops or refuses scores that are not.
    """
    half = x.shape[1] // 2
    if x.shape[1] % 2:  # + 0.0: np.mean's sum starts from +0.0, so a median of -0.0 comes out +0.0
        return np.partition(x, half, axis=1)[:, half] + 0.0
    middle = np.partition(x, (half - 1, half), axis=1)
    return (middle[:, half - 1] + middle[:, half]) / 2 + 0.0  # np.mean of the two: their sum over 2


def metric_iqm(layout, r, gamma):
    """Mean of the runs between the floor(N/4)-th and (N - floor(N/4))-th order statistics.

    This is ``scipy.stats.trim_mean(x, 0.25, axis=None)`` over all runs x tasks
    (rliable ``aggregate_iqm``): floor(N/4) values are cut from each end, with
    no fractional weighting.  Read off the cumulative counts in pooled order
    by summation by parts (:func:`trimmed_sum`): no sort per resample.  Where the
    agent's tasks have unequal runs, each run counts c_max / c_t times
    (:attr:`AgentLayout.run_weight`), the trimmed mean of the task-averaged
    score distribution, and floor(T c_max / 4) weighted copies are cut.
    """
    counts = r.counts_float
    if layout.run_weight is None:
        total = np.rint(r.total)
    else:  # each task weighs alike (AgentLayout.run_weight): the copies are weighted, their total T c_max
        counts = counts * layout.run_weight
        total = np.rint(counts.sum(axis=1))
    cut = np.floor(total / 4)
    return trimmed_sum(counts, layout.values, cut, total - cut) / (total - 2 * cut)


def trimmed_sum(counts, values, low, high):
    """(b,) sum of the order statistics low+1 .. high of each weighted sorted sample.

    ``counts`` (b, n) are the copies of each of the ascending ``values`` (n,)
    in each resample; ``low`` and ``high`` (b,) are the numbers of copies cut
    below and kept up to.  With q_j = clip(C_j, low, high) for the cumulative
    counts C_j, the copies of value j inside the window are q_j - q_(j-1), so
    the sum is, by parts, sum_(j<n) q_j (v_j - v_(j+1)) + q_n v_n - q_0 v_1 with
    q_n = high (every row's counts sum to at least ``high``) and q_0 = low.
    One cumulative sum, one clip and one matrix-vector product.
    """
    cum = np.cumsum(counts, axis=1)
    low = np.broadcast_to(np.asarray(low, dtype=np.float64), cum.shape[:1])
    high = np.broadcast_to(np.asarray(high, dtype=np.float64), cum.shape[:1])
    np.clip(cum, low[:, None], high[:, None], out=cum)
    steps = values[:-1] - values[1:]
    return fixed_dot(cum[:, :-1], steps) + high * values[-1] - low * values[0]


def metric_optimality_gap(layout, r, gamma):
    """gamma minus the mean of min(score, gamma) over all runs x tasks (rliable's definition), computed as the mean
    of max(gamma - score, 0), exactly 0 where every run reaches gamma; where the agent's tasks have unequal runs, the
    mean over tasks of each task's mean (:attr:`AgentLayout.run_weight`)."""
    shortfall = np.maximum(gamma - layout.values, 0.0)
    if layout.run_weight is None:
        return fixed_dot(r.counts_float, shortfall) / r.total
    counts = r.counts_float * layout.run_weight  # each task weighs alike (AgentLayout.run_weight)
    return fixed_dot(counts, shortfall) / counts.sum(axis=1)


BUILTIN_METRICS = {
    "iqm": metric_iqm,
    "mean": metric_mean,
    "median": metric_median,
    "optimality_gap": metric_optimality_gap,
}


def score_matrices(layout, draws):
    """The resampled (b, R, T) score matrices of a balanced agent, for user metrics."""
    c = int(layout.task_sizes[0])
    flat = layout.sorted_by_task.ravel()
    if draws.chosen is None:
        task_rows = np.repeat(np.arange(layout.n_tasks), c)[None, :]
        cols = draws.slots - layout.slot_base[None, :]
        scores = flat[task_rows * c + cols].reshape(draws.n, layout.n_tasks, c)
    else:
        cols = draws.slots - layout.task_start[draws.chosen][..., None]
        scores = flat[draws.chosen[..., None] * c + cols]
    return np.ascontiguousarray(scores.transpose(0, 2, 1))


def call_user_metric(func, matrices):
    """Evaluate a user metric on (b, R, T) score matrices: one call if vectorised, else one per matrix."""
    if getattr(func, "vectorized", False):
        out = np.asarray(func(matrices), dtype=np.float64)
        if out.shape != (matrices.shape[0],):
            raise ValueError(f"a vectorized metric must return shape ({matrices.shape[0]},), got {out.shape}")
        return out
    return np.array([float(func(m)) for m in matrices])


def metric_values(layout, r, metrics, gamma):
    """(b, M) statistics of a Resample; ``metrics`` are built-in names or callables."""
    columns = []
    for metric in metrics:
        if callable(metric):
            columns.append(call_user_metric(metric, score_matrices(layout, r.draws)))
        else:
            columns.append(BUILTIN_METRICS[metric](layout, r, gamma))
    return np.column_stack(columns)


def point_estimates(layout, metrics, gamma):
    """(M,) statistics of the data: built-ins from counts, user metrics on the (R, T) run matrix."""
    r = observed(layout)
    out = []
    for metric in metrics:
        if callable(metric):
            out.append(call_user_metric(metric, layout.run_matrix[None])[0])
        else:
            out.append(BUILTIN_METRICS[metric](layout, r, gamma)[0])
    return np.array(out)


def bootstrap_agent(layout, metrics, gamma, n_resamples, ss, *, task_bootstrap=False, batch_size=None,
                    advance=None, n_jobs=1):
    """(n_resamples, M) bootstrap distribution of the metrics for one agent.

    Built-in metrics without task resampling are read off canonical counts
    (:class:`CountDrawer`); user metrics and task resampling go
    through the draws.  ``batch_size`` bounds the elements held at once
    (about ``batch_size`` x runs per thread); neither it nor ``n_jobs``
    changes the draws or the result.
    """
    if not task_bootstrap and not any(callable(m) for m in metrics):
        budget = None if batch_size is None else batch_size * layout.n_runs
        return statistics_from_counts(ss, layout, n_resamples, len(metrics),
                                      lambda rows: CountStatistics(layout, metrics, gamma, rows),
                                      budget=budget, n_jobs=n_jobs, advance=advance)
    out = np.empty((n_resamples, len(metrics)))

    def compute(group):  # the group's rows (run_blocks writes them)
        draws = draw_blocks(group, layout, task_bootstrap, ss)
        return metric_values(layout, resample_from_draws(layout, draws), metrics, gamma)

    groups = block_groups(agent_blocks(ss, n_resamples, task_bootstrap), batch_blocks(layout.n_runs, batch_size),
                          n_jobs)
    run_blocks(groups, compute, n_jobs, advance, out)
    return out


def task_mean_spread(layout, n_resamples, ss, n_jobs=1, advance=None):
    """(n_resamples,) the standard error over tasks of each resample's mean of task means, the sd of its T task means
    (runs resampled within them) over sqrt(T): of the very resamples :func:`bootstrap_agent` draws from ``ss`` with
    ``task_bootstrap=True`` (the same blocks), row b pairing with its row b (the mean's bootstrap-t over tasks,
    ``_small_runs.expanded_tasks_bounds``; audit s29 taskboot29)."""
    out = np.empty((n_resamples, 1))

    def compute(group):
        means = resample_from_draws(layout, draw_blocks(group, layout, True)).task_means
        return (means.std(axis=1, ddof=1) / np.sqrt(layout.n_tasks))[:, None]

    groups = block_groups(agent_blocks(ss, n_resamples), batch_blocks(layout.n_runs, None), n_jobs)
    run_blocks(groups, compute, n_jobs, advance, out)
    return out[:, 0]


# ----------------------------------------------------------------------------- performance profiles


def profile_values(layout, r, tau, kind):
    """(b, n_tau) score distribution ("runs") or average-score distribution ("tasks").

    ``"runs"``: each resampled copy weighs 1 / (tasks x its task's runs); the
    weight above tau is a suffix of the pooled (sorted) order, so one
    cumulative sum per row read at ``searchsorted(values, tau, "right")``.
    Not a matrix product with a (runs x tau) table: BLAS's row bits depend
    on how many rows are multiplied together, hence on the batch and ``n_jobs``.
    """
    if kind == "runs":
        weighted = r.counts_float / (layout.n_tasks * layout.task_sizes[layout.task_of])
        b, n = weighted.shape
        above = np.zeros((b, n + 1))  # the weight of pooled positions >= i; none from n on
        np.cumsum(weighted[:, ::-1], axis=1, out=above[:, n - 1::-1])
        return above[:, np.searchsorted(layout.values, tau, side="right")]
    chosen = None if r.draws is None else r.draws.chosen  # the task at each position where tasks are resampled
    tolerance = layout.mean_tolerance[None, :] if chosen is None else layout.mean_tolerance[chosen]
    return (r.task_means[:, :, None] > tau[None, None, :] + tolerance[:, :, None]).mean(axis=1)


class ProfileStatistics:
    """A profile read off canonical counts (no task resampling), buffers reused chunk after chunk.

    (The bootstrap of ``"tasks"`` profiles goes through the draws, whose task
    sums round as before: a task mean equal to a threshold must compare as
    it always did.)

    ``"runs"``: the fraction of runs above tau averaged over tasks is the
    weighted count of the pooled runs above tau, i.e. one minus a cumulative
    (weighted) count read at ``searchsorted(values, tau, "right")``: one
    cumulative sum per resample whatever the number of thresholds.
    ``"tasks"``: per-task means from counts compared with tau.
    """

    def __init__(self, layout, tau, kind, rows):
        self.layout, self.tau, self.kind = layout, np.asarray(tau, dtype=np.float64), kind
        self.order = pooled_slots(layout)
        self.at = np.searchsorted(layout.values, self.tau, side="right")  # runs <= tau
        n = layout.n_runs
        self.weight = None if layout.balanced else 1.0 / (layout.n_tasks * layout.task_sizes[layout.task_of])
        self.work = np.empty((rows, n + 1), dtype=np.int64 if layout.balanced else np.float64)
        self.statistics = CountStatistics(layout, (), 0.0, rows) if kind == "tasks" else None

    def __call__(self, counts):
        b, n = counts.shape
        if self.kind == "tasks":
            means = self.statistics.task_means(counts.astype(np.float64))
            above = self.tau[None, None, :] + self.layout.mean_tolerance[None, :, None]  # a mean at tau is not above
            return (means[:, :, None] > above).mean(axis=1)
        work = self.work[:b]
        work[:, 0] = 0
        np.take(counts, self.order, axis=1, out=work[:, 1:]) if self.weight is None else np.multiply(
            np.take(counts, self.order, axis=1), self.weight, out=work[:, 1:])
        np.cumsum(work[:, 1:], axis=1, out=work[:, 1:])
        below = work[:, self.at]
        if self.weight is None:
            return (n - below) / n
        return 1.0 - below


def profile_agent(layout, tau, kind, n_resamples, ss, *, task_bootstrap=False, batch_size=None, advance=None,
                  n_jobs=1):
    """(n_resamples, n_tau) bootstrap distribution of one agent's profile (identical whatever ``n_jobs``)."""
    if kind == "runs" and not task_bootstrap:
        budget = None if batch_size is None else batch_size * layout.n_runs
        return statistics_from_counts(ss, layout, n_resamples, tau.size,
                                      lambda rows: ProfileStatistics(layout, tau, kind, rows),
                                      budget=budget, n_jobs=n_jobs, advance=advance)
    out = np.empty((n_resamples, tau.size))

    def compute(group):
        draws = draw_blocks(group, layout, task_bootstrap, ss)
        out[group[0][0]:group[-1][1]] = profile_values(layout, resample_from_draws(layout, draws), tau, kind)
        return group

    groups = block_groups(agent_blocks(ss, n_resamples, task_bootstrap), batch_blocks(layout.n_runs, batch_size),
                          n_jobs)
    run_blocks(groups, compute, n_jobs, advance)
    return out


def profile_estimate(layout, tau, kind):
    """(n_tau,) the profile of the data (every run counted once)."""
    if kind == "tasks":
        return profile_values(layout, observed(layout), tau, kind)[0]
    return ProfileStatistics(layout, tau, kind, 1)(np.ones((1, layout.n_runs), dtype=np.int64))[0]


def profile_effective_runs(task_sizes):
    """The runs of a simple random sample whose proportion has the variance of the profile's at a common p.

    The ``"runs"`` profile is sum_t p_hat_t / T with p_hat_t from n_t runs, of variance sum_t p_t (1 - p_t) /
    (T^2 n_t); at a common p that is p (1 - p) / n_eff with n_eff = T^2 / sum_t (1 / n_t), and tasks with unequal p_t
    only lower it (sum_t p_t (1 - p_t) <= T p (1 - p) at mean p), so a band sized by n_eff is conservative there.
    """
    sizes = np.asarray(task_sizes, dtype=np.float64)
    return sizes.size ** 2 / np.sum(1.0 / sizes)


def profile_wilson_bounds(estimate, task_sizes, confidence_level):
    """(n_tau, 2) the stratified Wilson band of one agent's ``"runs"`` profile (Yan and Su 2010, continuity-corrected).

    The Wilson score interval with continuity correction (Newcombe 1998, method 4) at the effective runs
    :func:`profile_effective_runs`: the correction is half the profile's step 1 / (T n) with n runs in every task.
    """
    low, high = corrected_wilson_interval(estimate, profile_effective_runs(task_sizes), confidence_level)
    return np.stack([low, high], axis=-1)


def profile_task_bounds(layout, confidence_level, skewness=None):
    """(low, high, flat), each (T,): the bounds of each task's mean behind the ``"skew_t"`` and ``"t"`` bands of a
    ``"tasks"`` profile, one-sided at (1 - confidence_level) / T each (Bonferroni over the tasks).

    At a threshold tau the profile counts the tasks with mean mu_t > tau. The band's lower end counts the tasks whose
    lower bound is above tau; it can exceed that count only if some task with mu_t <= tau has its lower bound above
    mu_t. The upper end counts the tasks whose upper bound is above tau; it can fall short only if some task with
    mu_t > tau has its upper bound below mu_t. Each task is on one side of tau, so the band misses with probability
    at most T (1 - confidence_level) / T, whatever the tasks' means: the pointwise level holds wherever each bound
    does (simulation measures that). A task whose runs all tie (after :func:`near_ties`), or with one run, has no
    spread to bound its mean with: its bounds are -inf and inf (it counts in the upper end only). The means are
    those of the estimate (:func:`profile_estimate`), so the band always holds the estimate.

    ``skewness`` None: Student t bounds. Else the runs' skewness g (pooled over the agent's tasks,
    ``_small_runs.pooled_run_skewness``): each task's t statistic goes through Hall's (1992) monotone transformation
    at g (``rlstats.statistics.hall_transform``, the selection check's skew-corrected t), whose inversion at the t
    quantile moves the bound on the side of the skew out; the bounds are never inside the t bounds. Inverted capped
    (``hall_inverse(..., capped=True)``, audit s26 hall26b): the quantile of 0.05 / T is large, so the bound crossed
    the cubic's flat point at a small skewness (G1 0.38 at 26 tasks of 5 runs) and jumped (1.29 -> 2.50 times the t
    interval between G1 0.30 and 0.40), then shrank; capped it widens with the skewness, continuously.
    """
    from scipy import stats

    sizes = layout.task_sizes
    means = observed(layout).task_means[0]
    snapped = near_ties(layout.canonical_values, np.repeat(np.arange(sizes.size), sizes))[0]  # task-blocked order
    flat = (sizes < 2) | (np.maximum.reduceat(snapped, layout.task_start)
                          == np.minimum.reduceat(snapped, layout.task_start))
    values = layout.sorted_by_task
    squares = np.nansum((values - np.nanmean(values, axis=1, keepdims=True)) ** 2, axis=1)
    spread = np.sqrt(squares / np.maximum(sizes - 1, 1))
    quantile = stats.t.ppf(1.0 - (1.0 - confidence_level) / sizes.size, np.maximum(sizes - 1, 1))
    half = np.where(flat, np.inf, quantile * spread / np.sqrt(sizes))
    low, high = means - half, means + half
    if skewness is not None and skewness != 0:
        # the mean mu at which the transformed statistic of (mean - mu) / spread is -/+ the quantile
        with np.errstate(invalid="ignore"):
            low = np.minimum(low, means - spread * hall_inverse(quantile, skewness, sizes, capped=True))
            high = np.maximum(high, means - spread * hall_inverse(-quantile, skewness, sizes, capped=True))
        low, high = np.where(flat, -np.inf, low), np.where(flat, np.inf, high)
    return low, high, flat


def profile_t_bounds(task_low, task_high, tau):
    """(n_tau, 2) the ``"t"`` band: the fractions of tasks whose lower bound, and whose upper bound, is above tau."""
    tau = np.asarray(tau, dtype=np.float64)
    return np.stack([(task_low[:, None] > tau).mean(axis=0), (task_high[:, None] > tau).mean(axis=0)], axis=-1)


def profile_range(layouts, kind, pooled, edge, margin):
    """(low, high): the thresholds over which the profiles change, from the data.

    ``low`` is the largest threshold at which every agent's profile is still at least ``1 - edge``,
    ``high`` the smallest at which every profile is at most ``edge``, both read on 2,001 quantiles of
    the pooled scores (profiles only step at data values), then widened by ``margin`` of the span on
    each side within the scores' range.  Between the two some profile is still changing; beyond them
    a heavy tail would only stretch the axis (a human-normalised Atari score of 400 next to most
    runs below 2).  Falls back to the scores' range when every profile drops at one value.
    """
    smallest, largest = float(pooled.min()), float(pooled.max())
    candidates = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, 2001)))
    profiles = np.stack([profile_estimate(layout, candidates, kind) for layout in layouts])
    still_high = (profiles >= 1.0 - edge).all(axis=0)
    fallen = (profiles <= edge).all(axis=0)  # true at least at the largest score
    low = candidates[still_high].max() if still_high.any() else smallest
    high = candidates[fallen].min()
    if not high > low:
        return smallest, largest
    pad = margin * (high - low)
    return max(smallest, low - pad), min(largest, high + pad)


# ----------------------------------------------------------------------------- probability of improvement


@dataclass(frozen=True)
class PairLayout:
    """Where each run of agent X falls among agent Y's runs of the same task.

    Attributes
    ----------
    y_below, y_through : ndarray of intp, shape (n_x,)
        For X's canonical slot i (task t), the Y canonical slot bound
        ``start_y,t + #{Y runs of t < x_i}`` and ``start_y,t + #{Y runs of t <= x_i}``:
        indices into Y's cumulative slot counts.
    y_before_task : ndarray, shape (n_x,)
        Y draws in the tasks before t (each task always gets c_y,t draws).
    weight : ndarray, shape (n_x,)
        1 / (T c_x,t c_y,t): the mean over tasks of U_t / (c_x,t c_y,t).
    near_ties : int
        Pairs (x run, y run) that differ but within their task's tie tolerance (``statistics.near_ties``), so count
        as ties.
    near_tasks : tuple of int
        The tasks (codes) holding them, for the note that names them.
    """

    y_below: np.ndarray
    y_through: np.ndarray
    y_before_task: np.ndarray
    weight: np.ndarray
    near_ties: int = 0
    near_tasks: tuple = ()


def pair_layout(x, y, tolerance=None):
    """Locate agent ``x``'s runs among agent ``y``'s, task by task (AgentLayouts on the same tasks).

    Scores within each task's tie tolerance of each other (``tolerance``, per task, ``statistics.block_tolerances``
    of all the task's scores; by default the pair's own) are ties (:func:`rlstats.statistics.near_ties`): the
    layout is that of the snapped scores,
    which keep their order, so the canonical slots stand.
    """
    below, through, joined, near_tasks = [], [], 0, []
    for t in range(x.n_tasks):
        x_scores = x.sorted_by_task[t, :x.task_sizes[t]]
        y_scores = y.sorted_by_task[t, :y.task_sizes[t]]
        both, _ = near_ties(np.concatenate([x_scores, y_scores]), np.zeros(x_scores.size + y_scores.size, np.intp),
                            None if tolerance is None else tolerance[t:t + 1])
        x_tied, y_tied = both[:x_scores.size], both[x_scores.size:]
        low, high = np.searchsorted(y_tied, x_tied, side="left"), np.searchsorted(y_tied, x_tied, side="right")
        here = int((high - low).sum() - (np.searchsorted(y_scores, x_scores, side="right")
                                          - np.searchsorted(y_scores, x_scores, side="left")).sum())
        joined += here
        near_tasks += [t] if here else []
        below.append(y.task_start[t] + low)
        through.append(y.task_start[t] + high)
    x_task = np.repeat(np.arange(x.n_tasks), x.task_sizes)
    weight = 1.0 / (x.n_tasks * x.task_sizes[x_task] * y.task_sizes[x_task])
    return PairLayout(y_below=np.concatenate(below).astype(np.intp), y_through=np.concatenate(through).astype(np.intp),
                      y_before_task=y.task_start[x_task].astype(np.float64), weight=weight, near_ties=joined,
                      near_tasks=tuple(near_tasks))


def improvement_from_counts(pair, x_counts, y_counts):
    """(b,) mean over tasks of P(X > Y) + P(X = Y) / 2 from canonical slot counts.

    Each drawn X run scores the resampled Y runs of its task strictly below
    it plus half of those equal to it: half the sum of the cumulative Y
    counts at the two bounds of its tie group, minus the Y draws of earlier
    tasks.
    """
    cum = np.zeros((y_counts.shape[0], y_counts.shape[1] + 1))
    cum[:, 1:] = np.cumsum(y_counts, axis=1)  # in the counts' own type (whole numbers: exact), a few times faster
    # np.take keeps each row's values together (cum[:, index] would lay them out by column, and the
    # arithmetic below then runs about 1.6x slower); the same operations, so the same bits
    wins = np.take(cum, pair.y_below, axis=1)
    wins += np.take(cum, pair.y_through, axis=1)
    wins *= 0.5
    wins -= pair.y_before_task
    wins *= x_counts
    return fixed_dot(wins, pair.weight)


def improvement_point(pair, x, y):
    """The observed probability of improvement of X over Y (every run counted once)."""
    return float(improvement_from_counts(pair, np.ones((1, x.n_runs)), np.ones((1, y.n_runs)))[0])


def improvement_distribution(pairs, pair_layouts, layouts, seeds, n_resamples, *, n_jobs=1, advance=None):
    """(P, n_resamples) probability of improvement of each pair ``(x, y)``, read off canonical counts.

    ``seeds`` maps each agent of the pairs to its stream (its cells' below it): each agent is drawn once,
    as :func:`bootstrap_agent` draws it (:class:`CountDrawer`), in row chunks of one size for every agent, and
    every pair is read off the chunk's counts (:func:`improvement_from_counts`).  A value depends on its own
    resample's counts alone, so chunks and threads never change results.
    """
    involved = list(seeds)
    blocks = {a: agent_blocks(seeds[a], n_resamples, False) for a in involved}
    rows = min(chunk_rows(layouts[a].n_runs) for a in involved)
    drawers = {a: CountDrawer(layouts[a], seeds[a], budget=rows * layouts[a].n_runs) for a in involved}
    out = np.empty((len(pairs), n_resamples))

    def compute(indices):
        for parts in zip(*(drawers[a].chunks([blocks[a][i] for i in indices]) for a in involved)):
            start, stop = parts[0][:2]
            counts = {a: part[2] for a, part in zip(involved, parts)}
            for i, (x, y) in enumerate(pairs):
                out[i, start:stop] = improvement_from_counts(pair_layouts[i], counts[x], counts[y])
        return [blocks[involved[0]][i] for i in indices]  # the group's (start, stop, seed) blocks, for progress

    per_item = blocks_per_item(max(layouts[a].n_runs for a in involved))
    n_blocks = len(blocks[involved[0]])
    run_blocks(block_groups(list(range(n_blocks)), per_item, n_jobs), compute, n_jobs, advance)
    return out


# ----------------------------------------------------------------------------- intervals


def percentile_levels(confidence_level):
    """Lower and upper percentiles (0-100) as arch computes them for rliable: 100 a, 100 (1 - a), a = (1 - cl) / 2."""
    alpha = (1.0 - confidence_level) / 2
    return 100 * alpha, 100 * (1.0 - alpha)


def _quantiles(sorted_stats, levels):
    """Linear-interpolation quantiles (np.percentile's default) of each row at its own levels (0-1)."""
    b = sorted_stats.shape[-1]
    pos = np.clip(np.nan_to_num(levels, nan=0.0), 0, 1) * (b - 1)  # NaN levels are masked by the caller
    lo = np.floor(pos).astype(np.intp)
    hi = np.minimum(lo + 1, b - 1)
    frac = pos - lo
    x_lo = np.take_along_axis(sorted_stats, lo[..., None], axis=-1)[..., 0]
    x_hi = np.take_along_axis(sorted_stats, hi[..., None], axis=-1)[..., 0]
    return x_lo + frac * (x_hi - x_lo)


#: replicates within this much of the estimate, relative to the largest |value| of the metric's bootstrap
#: distribution, tie with it: a resample holding the same runs in another order gives the estimate up to rounding
BCA_TIE_RTOL = 1e-12


def bias_correction(stats, estimate):
    """z0 = Phi^-1 of the share of replicates below the estimate, ties counted half (as scipy does).

    A tie is judged relative to the metric's scale (:data:`BCA_TIE_RTOL`), so that rounding noise, whose sign
    depends on the score's units, never moves a replicate from tied to below.
    """
    from scipy import special
    estimate = estimate[..., None]
    scale = np.maximum(np.abs(estimate), np.abs(np.nan_to_num(stats)).max(axis=-1, keepdims=True))
    equal = np.abs(stats - estimate) <= BCA_TIE_RTOL * scale
    below = (stats < estimate) & ~equal
    return special.ndtri(below.mean(axis=-1) + 0.5 * equal.mean(axis=-1))


def interval_bounds(stats, estimate, confidence_level, kind, z0=None, acceleration=None):
    """Bounds and their Monte Carlo standard errors from bootstrap distributions.

    Parameters
    ----------
    stats : ndarray, shape (..., B)
    estimate : ndarray, shape (...)
    confidence_level : float
    kind : {"percentile", "basic", "bca"}
    z0, acceleration : ndarray, shape (...)
        BCa bias correction and acceleration (``kind="bca"`` only).

    Returns
    -------
    bounds, mc_se : ndarray, shape (..., 2)
        Lower and upper bound; NaN where BCa is undefined (z0 infinite).
    """
    from scipy import special
    sorted_stats = np.sort(stats, axis=-1)
    lo_pct, hi_pct = percentile_levels(confidence_level)
    levels = np.stack(np.broadcast_arrays(np.full(estimate.shape, lo_pct / 100), np.full(estimate.shape, hi_pct / 100)),
                      axis=-1)
    if kind == "bca":
        z = special.ndtri(levels)
        z0 = z0[..., None]
        a = acceleration[..., None]
        with np.errstate(invalid="ignore", divide="ignore"):
            levels = special.ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)))
        levels = np.where(np.isfinite(z0), levels, np.nan)
    quantile = np.stack([_quantiles(sorted_stats, levels[..., i]) for i in range(2)], axis=-1)
    se = np.stack([order_statistic_se(sorted_stats, levels[..., i]) for i in range(2)], axis=-1)
    if kind == "basic":
        quantile = 2 * estimate[..., None] - quantile[..., ::-1]
        se = se[..., ::-1]
    nan = np.isnan(levels)
    return np.where(nan, np.nan, quantile), np.where(nan, np.nan, se)


def acceleration_from_jackknife(values):
    """Single-sample BCa acceleration from leave-one-out values (..., n): sum u^3 / (6 (sum u^2)^1.5)."""
    u = values.mean(axis=-1, keepdims=True) - values
    u = _unit_size(u)  # a is scale-free; cubes of influences in tiny units would underflow to 0
    num = (u**3).sum(axis=-1)
    den = 6 * (u**2).sum(axis=-1) ** 1.5
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def _unit_size(u):
    """``u`` divided by its largest |value| along the last axis (where that is positive and finite)."""
    top = np.abs(u).max(axis=-1, keepdims=True)
    return u / np.where((top > 0) & np.isfinite(top), top, 1.0)


def _median_with_replacement(sorted_means, rank, x):
    """Median of ``sorted_means`` (T,) after the value at ``rank`` is replaced by ``x`` (vectorised over rank, x).

    Written for a million runs: a few arrays of len(x) at a time, no index array per order statistic.
    """
    size = sorted_means.size
    # the other T - 1 means, in order: other[i] = sorted_means[i + (i >= rank)]
    below = np.searchsorted(sorted_means, x, side="left")
    below -= sorted_means[rank] < x  # the others strictly below x

    def element(i):  # the i-th smallest of the others with x inserted at position `below`
        index = (below < i).astype(np.intp)
        np.subtract(i, index, out=index)  # position among the others
        index += index >= rank
        np.minimum(index, size - 1, out=index)
        value = sorted_means.take(index)
        del index
        inserted = below == i
        value[inserted] = x[inserted]
        return value

    if size % 2:
        return element(size // 2)
    value = element(size // 2 - 1)
    value += element(size // 2)
    value *= 0.5
    return value


def leave_one_out_values(layout, metrics, gamma):
    """(n, M) each built-in metric with one run left out, for every run in pooled order.

    Closed forms from the sorted sample, O(n log T) in all: the left-out run
    changes one task mean (mean, median of task means: the median by one
    search among the other sorted task means), one term of the optimality
    gap, and shifts the trimmed window of the IQM by at most one position
    (prefix sums of the sorted values).  Runs alone in their task give NaN
    for mean and median (their task would have no runs).
    """
    v, task, sizes = layout.values, layout.task_of, layout.task_sizes
    n, T = v.size, layout.n_tasks
    out = np.empty((n, len(metrics)))
    if "mean" in metrics or "median" in metrics:
        sums = np.bincount(task, weights=v, minlength=T)
        means = sums / sizes
        c = sizes[task]
        with np.errstate(invalid="ignore", divide="ignore"):
            new_mean = (sums[task] - v) / (c - 1)
        new_mean[c < 2] = np.nan
        del c
        rank_of_task = np.empty(T, dtype=np.intp)
        order = np.argsort(means, kind="stable")
        rank_of_task[order] = np.arange(T)
        sorted_means = means[order]
    for j, metric in enumerate(metrics):
        if metric in ("iqm", "optimality_gap") and layout.run_weight is not None:
            out[:, j] = _weighted_leave_one_out(layout, metric, gamma)
        elif metric == "mean":
            out[:, j] = (sums / sizes).sum() / T + (new_mean - means[task]) / T
        elif metric == "median":
            out[:, j] = _median_with_replacement(sorted_means, rank_of_task[task], new_mean)
        elif metric == "optimality_gap":
            shortfall = np.maximum(gamma - v, 0.0)
            out[:, j] = (shortfall.sum() - shortfall) / (n - 1) if n > 1 else np.nan
        else:  # iqm of the n - 1 others: sorted'[i] = v[i + (i >= p)], kept i in [cut, n - 1 - cut)
            m = n - 1
            if m < 1:
                out[:, j] = np.nan
                continue
            cut = m // 4
            lo, hi = cut, m - cut
            centre = v[(lo + hi) // 2]
            window = out[:, j]
            np.subtract(centre, v, out=window)  # -(v_p - centre): left out from inside the window
            prefix = np.r_[0.0, np.cumsum(v - centre)]
            window += prefix[hi + 1] - prefix[lo]
            window[hi:] = prefix[hi] - prefix[lo]  # left out above the window
            window[:lo] = prefix[hi + 1] - prefix[lo + 1]  # left out below it
            window /= hi - lo
            window += centre
    return out


def _weighted_leave_one_out(layout, metric, gamma, rows=256):
    """(n,) the IQM or optimality gap of an agent with unequal runs per task (each task weighing alike,
    :attr:`AgentLayout.run_weight`) with each run left out in turn: its task's other c_t - 1 runs then carry the
    task's weight, c_max / (c_t - 1) each (NaN for a task's only run). Computed from count rows, ``rows`` at a time
    (quadratic in the runs, as unequal designs are small)."""
    n, sizes = layout.n_runs, layout.task_sizes[layout.task_of]
    out = np.empty(n)
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        counts = np.ones((stop - start, n))
        left = np.arange(start, stop)
        with np.errstate(divide="ignore", invalid="ignore"):
            same = layout.task_of[None, :] == layout.task_of[left, None]
            counts = np.where(same, sizes / (sizes - 1.0), counts)  # the task's weight on its other runs
        counts[np.arange(stop - start), left] = 0.0
        out[start:stop] = BUILTIN_METRICS[metric](layout, resample_from_counts(layout, counts), gamma)
    out[sizes < 2] = np.nan
    return out


def stratified_acceleration(layout, metrics, gamma):
    """(M,) BCa acceleration from the within-task jackknife of the built-in metrics.

    Davison & Hinkley (1997, Section 3.2.1) for several samples: the
    empirical influence of run j of task t is l_tj = (c_t - 1)(mean_j th_(tj) - th_(tj)),
    and a = sum_t c_t^-3 sum_j l_tj^3 / (6 (sum_t c_t^-2 sum_j l_tj^2)^1.5).
    Tasks with one run carry no within-task variation and are skipped.  The
    leave-one-out values come in closed form (:func:`leave_one_out_values`),
    so the cost is that of a sort, not quadratic in the runs.
    """
    task, sizes = layout.task_of, layout.task_sizes
    keep = None if (sizes > 1).all() else sizes[task] > 1  # copies only when some task has a single run
    if keep is not None:
        task = task[keep]
    shrink = (sizes - 1) / np.maximum(sizes, 1)  # (c_t - 1) / c_t per task
    num, den = np.zeros(len(metrics)), np.zeros(len(metrics))
    for j, metric in enumerate(metrics):  # one metric at a time: a few arrays of n values at once
        values = leave_one_out_values(layout, [metric], gamma)[:, 0]
        if keep is not None:
            values = values[keep]
        task_mean = np.bincount(task, weights=values, minlength=sizes.size) / np.maximum(sizes, 1)
        influence = task_mean[task]
        influence -= values
        del values
        influence *= shrink[task]
        influence = _unit_size(influence)  # a is scale-free: cubes in tiny units would underflow to 0
        num[j] = np.einsum("i,i,i->", influence, influence, influence)
        den[j] = np.einsum("i,i->", influence, influence)
    den = 6 * den**1.5
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def task_jackknife_acceleration(layout, metrics, gamma):
    """(M,) BCa acceleration from leaving out one whole task at a time (for task resampling)."""
    if layout.n_tasks < 2:
        return np.zeros(len(metrics))
    full = observed(layout)
    values = []
    for t in range(layout.n_tasks):
        keep = layout.task_of != t
        counts = keep.astype(np.float64)[None]
        r = Resample(counts=counts, total=counts.sum(axis=1), task_means=np.delete(full.task_means, t, axis=1),
                     draws=None)
        row = []
        for metric in metrics:
            if callable(metric):
                row.append(call_user_metric(metric, np.delete(layout.run_matrix, t, axis=1)[None])[0])
            else:
                row.append(BUILTIN_METRICS[metric](layout, r, gamma)[0])
        values.append(row)
    return acceleration_from_jackknife(np.asarray(values).T)


def run_jackknife_acceleration(run_matrix, func):
    """BCa acceleration of a user metric from leaving out one run index of every task (arch's jackknife)."""
    runs = run_matrix.shape[0]
    if runs < 2:
        return 0.0
    held_out = np.stack([np.delete(run_matrix, r, axis=0) for r in range(runs)])
    return float(acceleration_from_jackknife(call_user_metric(func, held_out)))


# ----------------------------------------------------------------------------- rliable_compat


def rliable_metric(name, matrices, gamma, task_means):
    """rliable's metric on (b, R, T) matrices with rliable's exact numpy/scipy operations.

    ``task_means`` is ``np.mean(matrices, axis=1)`` (for mean and median: computed once, the same bits).
    """
    b, runs, tasks = matrices.shape
    if name in ("mean", "median"):
        return np.mean(task_means, axis=1) if name == "mean" else np.median(task_means, axis=1)
    if name == "iqm":
        return rliable_iqm(matrices)
    return gamma - np.mean(np.minimum(matrices.reshape(b, runs * tasks), gamma), axis=1)


def rliable_iqm(matrices, in_place=False):
    """scipy's ``trim_mean(x, 0.25, axis=None)`` of each (R, T) matrix, as rliable computes it.

    ``np.partition`` copies its input, then partitions the copy; ``in_place``
    partitions ``matrices`` themselves (reordering them): the same algorithm
    on the same values, so the same bits, without the copy.
    """
    b, runs, tasks = matrices.shape
    n = runs * tasks
    cut = int(0.25 * n)
    flat = matrices.reshape(b, n)
    if in_place:
        flat.partition((cut, n - cut - 1), axis=1)
    else:
        flat = np.partition(flat, (cut, n - cut - 1), axis=1)
    return np.mean(flat[:, cut:n - cut], axis=1)


def rliable_values(matrices, metrics, gamma, scratch=False):
    """(b, M) metrics of (b, R, T) matrices; ``scratch``: the matrices may be reordered (the IQM, last, in place)."""
    is_iqm = [isinstance(m, str) and m == "iqm" for m in metrics]  # (user metrics may be unhashable: no `in`)
    needed = any(isinstance(m, str) and m in ("mean", "median") for m in metrics)
    task_means = np.mean(matrices, axis=1) if needed else None
    in_place = scratch and any(is_iqm)
    columns = [np.zeros(matrices.shape[0]) if in_place and iqm else
               call_user_metric(m, matrices) if callable(m) else rliable_metric(m, matrices, gamma, task_means)
               for m, iqm in zip(metrics, is_iqm)]
    out = np.column_stack(columns)  # a copy: a user metric may have returned a view of the matrices
    if in_place:  # after every other metric has read the matrices in their order
        out[:, np.flatnonzero(is_iqm)] = rliable_iqm(matrices, in_place=True)[:, None]
    return out


def rliable_bootstrap(run_matrices, metrics, gamma, n_resamples, seed, *, task_bootstrap=False, advance=None,
                      n_jobs=1):
    """Bootstrap distributions exactly as rliable 1.2.0 draws them once the legacy global generator is seeded with ``seed``.

    One legacy ``RandomState(seed)`` of our own serves every agent in turn;
    per replicate rliable draws ``choice(R, (R, T))`` (run indices per task
    cell) and, with ``task_bootstrap``, then ``choice(T, (1, T))`` (task
    indices).  Without task resampling consecutive replicates are drawn in
    one call, which consumes the legacy stream identically.  The draws stay
    in this thread, in rliable's order; with ``n_jobs`` > 1 the metrics of
    each batch are computed on threads (the same operations, so the same bits).

    Returns a list of (n_resamples, M) arrays, one per agent.
    """
    state = np.random.RandomState(seed)
    out = [np.empty((n_resamples, len(metrics))) for _ in run_matrices]
    keep_work_arrays_on_heap()  # batches of a few MB (COMPAT_BUDGET), allocated and freed again and again

    def batches():
        for agent, matrix in enumerate(run_matrices):
            runs, tasks = matrix.shape
            per_batch = max(1, COMPAT_BUDGET // matrix.size)  # arrays of about 2 MB, reused (COMPAT_BUDGET)
            for start in range(0, n_resamples, per_batch):
                stop = min(start + per_batch, n_resamples)
                if task_bootstrap:
                    run_idx = np.empty((stop - start, runs, tasks), dtype=np.intp)
                    task_idx = np.empty((stop - start, 1, tasks), dtype=np.intp)
                    for i in range(stop - start):  # the two draws interleave per replicate
                        run_idx[i] = state.choice(runs, (runs, tasks))
                        task_idx[i] = state.choice(tasks, (1, tasks))
                else:
                    run_idx = state.choice(runs, (stop - start, runs, tasks))
                    task_idx = np.arange(tasks)[None, None, :]
                yield agent, start, stop, run_idx, task_idx

    by_task = [np.ascontiguousarray(matrix.T).ravel() for matrix in run_matrices]  # position t R + r: x[r, t]

    def compute(batch):  # on a thread: everything but the draws
        agent, start, stop, run_idx, task_idx = batch
        run_idx += task_idx * run_matrices[agent].shape[0]  # flat positions: one pass, then one gather
        out[agent][start:stop] = rliable_values(by_task[agent].take(run_idx), metrics, gamma, scratch=True)
        return stop - start

    for done in parallel_map(compute, batches(), n_jobs):
        if advance is not None:
            advance(done)
    return out


def rliable_bounds(stats, estimate, confidence_level, kind):
    """arch's percentile or basic bounds: np.percentile per column at 100 a and 100 (1 - a)."""
    lo_pct, hi_pct = percentile_levels(confidence_level)
    lower, upper = np.percentile(stats, [lo_pct, hi_pct])
    if kind == "basic":
        lower, upper = 2.0 * estimate - upper, 2.0 * estimate - lower
    return lower, upper


# ----------------------------------------------------------------------------- inferential intervals


def inferential_epsilon(low_estimate, high_estimate, low_upper, high_lower, pvalue, alpha):
    """Correction factor of the inferential intervals of two agents (thesis eq. 2.28, Appendix B.2 rule).

    Parameters
    ----------
    low_estimate, high_estimate : float
        The smaller and the larger point estimate (t1 <= t2).
    low_upper, high_lower : float
        Upper bound of the smaller estimate's interval, lower bound of the larger's.
    pvalue, alpha : float
        The test's p-value and level.

    Returns
    -------
    epsilon : float
    branch : str
        ``"shrunk"`` (significant: eps = 0.999 min(eps_2.28, 1)), ``"widened"``
        (not significant but the descriptive intervals are disjoint:
        eps = 1.001 eps_2.28), ``"unchanged"`` (eps = 1) or ``"undefined"`` (NaN:
        the descriptive intervals do not contain their estimates and no
        scaling makes them overlap).

    Notes
    -----
    Eq. 2.28: eps = (t2 - t1)(1 + P - alpha) / (t2 - t1 + t1_up - t2_low), which
    leaves a gap of (t2 - t1)(alpha - P) between the scaled intervals: positive
    exactly when P < alpha.  The 0.999 and 1.001 nudges (Appendix B.2) make the
    boundary case P = alpha fall on the side of the test's decision.
    """
    diff = high_estimate - low_estimate
    denominator = diff + low_upper - high_lower
    significant = pvalue <= alpha
    disjoint = high_lower > low_upper
    if not significant and not disjoint:
        return 1.0, "unchanged"
    if not denominator > 0:
        # Intervals that do not contain their estimates: the gap no longer shrinks as eps grows.
        return (0.999, "shrunk") if significant else (np.nan, "undefined")
    eps = diff * (1 + pvalue - alpha) / denominator
    if significant:
        return 0.999 * min(eps, 1.0), "shrunk"
    return 1.001 * eps, "widened"


def metric_bounds(distribution, estimates, level, interval, z0, acceleration, compat):
    """(bounds, mc_se) of shape (K, M, 2) from (K, M, B) distributions."""
    if not compat:
        return interval_bounds(distribution, estimates, level, interval, z0, acceleration)
    bounds = np.empty(estimates.shape + (2,))
    for index in np.ndindex(estimates.shape):
        bounds[index] = rliable_bounds(distribution[index], estimates[index], level, interval)
    _, se = interval_bounds(distribution, estimates, level, interval)
    return bounds, se


def overlaps(intervals):
    """(M,) whether two agents' intervals (2, M, 2) share a point."""
    return (intervals[0, :, 0] <= intervals[1, :, 1]) & (intervals[1, :, 0] <= intervals[0, :, 1])
