"""The bootstrap's bounded draws (rlstats.resampling.UniformIndices): exact, chunk-free, equal in law to numpy's."""

import numpy as np
import pytest
from scipy import stats

from rlstats.methods.bootstrap import _kernels as K
from rlstats.resampling import UniformIndices, multiply_shift

HIGHS = (1, 2, 3, 7, 100, 1000, 12345, 40000, 65535)


@pytest.mark.parametrize("high", HIGHS)
def test_multiply_shift_is_exactly_uniform_over_every_16_bit_value(high):
    """Exhaustive: of the 65,536 values of u, every index keeps the same number after rejection."""
    u = np.arange(2**16, dtype=np.uint64).astype(np.uint16)
    index, rejected = multiply_shift(u, np.uint16(high), np.uint16(2**16 % high))
    assert index.dtype == np.uint32 and index.max() < high
    assert rejected.sum() == 2**16 % high
    kept = np.bincount(index[~rejected], minlength=high)
    assert (kept == 2**16 // high).all()


def test_multiply_shift_is_exactly_uniform_over_every_8_bit_value_for_every_bound():
    """The same code as the 32-bit path, at 8 bits: every u for every high in [1, 255]."""
    u = np.arange(2**8, dtype=np.uint16).astype(np.uint8)
    for high in range(1, 2**8):
        index, rejected = multiply_shift(u, np.uint8(high), np.uint8(2**8 % high))
        assert index.dtype == np.uint16 and index.max() < high
        assert rejected.sum() == 2**8 % high
        assert (np.bincount(index[~rejected], minlength=high) == 2**8 // high).all(), high


@pytest.mark.parametrize("high", [3, 3001, 12345, 2**20 + 7, 2**31 + 1, 2**32 - 1])
def test_multiply_shift_at_32_bits_is_exact_integer_arithmetic(high):
    """Where rejections happen (the first u of every index) and at random u: index and rejection as Python ints."""
    first = [-(-i * 2**32 // high) for i in range(min(high, 5000))]  # the smallest u mapped to index i
    u = np.array(first + [0, 2**32 - 1] + list(np.random.default_rng(high).integers(0, 2**32, 5000)), dtype=np.uint32)
    threshold = 2**32 % high
    index, rejected = multiply_shift(u, np.uint32(high), np.uint32(threshold))
    assert index.dtype == np.uint64
    expected = [(int(v) * high) >> 32 for v in u]
    expected_rejected = [(int(v) * high) % 2**32 < threshold for v in u]
    assert index.tolist() == expected and rejected.tolist() == expected_rejected
    if high <= 5000:  # the first u of each index carries its low half (-i * 2**32) mod high: t of them rejected
        assert rejected[:high].sum() == threshold


class EveryValue:
    """A stand-in bit generator whose row r gives u = r in every 16-bit lane (rows 0..65535: every value once)."""

    def __init__(self, words_per_row):
        self.words, self.row = words_per_row, 0

    def random_raw(self, count):
        rows = np.arange(self.row, self.row + count // self.words, dtype=np.uint64)
        self.row += rows.size
        return np.repeat(rows * np.uint64(0x0001000100010001), self.words)


class Marker:
    """A stand-in replacement stream that marks every replaced position."""

    def integers(self, low, high, size):
        return np.full(size, MARK)


MARK = 70_000  # above any 16-bit bound


@pytest.mark.parametrize("high", [np.array([3, 40000, 7, 65535, 1, 100, 2, 65534, 12345]), 100, 4096])
def test_rows_reject_exactly_the_values_lemire_rejects_in_each_column(high, monkeypatch):
    """Exhaustive, through UniformIndices itself: its own per-column thresholds, in chunks of rows (16 bits a
    value up to 65,535 here)."""
    monkeypatch.setattr(UniformIndices, "CROSSOVER", 2**16 - 1)
    n = np.size(high) if np.ndim(high) else 5
    draws = UniformIndices(np.random.SeedSequence(0), high, n)
    draws.main, draws._replacements = EveryValue(draws.words), Marker()
    out = np.concatenate([draws.rows(k) for k in (1000, 30000, 34536)])
    for j, h in enumerate(np.broadcast_to(high, (n,))):
        column = out[:, j]
        assert (column == MARK).sum() == 2**16 % h
        assert (np.bincount(column[column != MARK], minlength=h) == 2**16 // h).all()


class ChosenLanes:
    """A stand-in bit generator whose 32-bit lanes are the given values, row by row (n even)."""

    def __init__(self, u):
        self.raw, self.used = np.ascontiguousarray(u, dtype=np.uint32).view(np.uint64).ravel(), 0

    def random_raw(self, count):
        self.used += count
        return self.raw[self.used - count:self.used]


def test_wide_rows_reject_exactly_the_values_lemire_rejects():
    """The 32-bit path through UniformIndices: the first u of every index of two columns (bounds 3,001 and 4,099,
    beside a 16-bit-sized bound drawn 32 bits too), rejected exactly where the low half is below 2**32 % high."""
    high = np.array([3001, 4099, 7, 4099])
    u = np.zeros((4099, 4), dtype=np.uint64)
    for j, h in enumerate(high):
        u[:, j] = [-(-(i % h) * 2**32 // h) for i in range(4099)]
    draws = UniformIndices(np.random.SeedSequence(0), high, 4)
    assert draws.bits == 32
    draws.main, draws._replacements = ChosenLanes(u), Marker()
    out = np.concatenate([draws.rows(k) for k in (1, 2000, 2098)])
    for j, h in enumerate(high):
        column = out[:, j]
        expected = [(int(v) * int(h)) % 2**32 < 2**32 % h for v in u[:, j]]
        assert ((column == MARK) == expected).all()
        assert (column == MARK).sum() == (2**32 % h) * (4099 // h) + sum(expected[(4099 // h) * h:])
        assert (column[column != MARK] == [(int(v) * int(h)) >> 32 for v in u[column != MARK, j]]).all()


def test_the_width_follows_the_largest_bound():
    seed = np.random.SeedSequence(0)
    assert UniformIndices(seed, UniformIndices.CROSSOVER, 3).bits == 16
    assert UniformIndices(seed, np.array([2, UniformIndices.CROSSOVER + 1]), 2).bits == 32  # the whole block
    assert UniformIndices(seed, 2**32 - 1, 3).bits == 32
    assert UniformIndices(seed, 2**32, 3).bits == 0  # Generator.integers


@pytest.mark.parametrize("high", [100, np.array([3, 40000, 7, 65535, 1, 100]), 70000, np.array([5, 2**20]), 2**31 + 1,
                                  np.array([3, 2**31 + 1, 5000, 2**32 - 1]), 2**33])
def test_rows_drawn_in_chunks_equal_the_rows_of_one_call(high):
    """Replacements (frequent at high = 2**31 + 1 on the wide path) and every path keep chunking invisible."""
    n = 6 if np.ndim(high) == 0 else np.size(high)
    seed = np.random.SeedSequence(17)
    whole = UniformIndices(seed, high, n).rows(100)
    for sizes in ((1, 33, 66), (50, 50), (7,) * 14 + (2,)):
        draws = UniformIndices(seed, high, n)
        assert np.array_equal(np.concatenate([draws.rows(k) for k in sizes]), whole)
    assert whole.dtype == np.int64 and (whole >= 0).all() and (whole < high).all()
    offsets = np.arange(n) * 10
    assert np.array_equal(UniformIndices(seed, high, n).rows(100, offsets), whole + offsets)
    if np.max(high) > 2**32 - 1:
        return
    below = np.arange(100)[:, None] * n + offsets
    near_the_top = (below + (2**32 - int(np.max(high)) - below.max())).astype(np.uint32)  # sums up to 2**32 - 1
    added_in_32_bits = UniformIndices(seed, high, n).rows(100, near_the_top)
    assert added_in_32_bits.dtype == np.int64
    assert np.array_equal(added_in_32_bits, whole + near_the_top.astype(np.int64))


def test_wide_columns_are_uniform_and_independent_chi_square_and_moments():
    """The real 32-bit path: a small bound beside large ones, and 2**31 + 1 with half its draws replaced."""
    high = np.array([7, 5000, 10**6, 2**31 + 1])
    draws = UniformIndices(np.random.SeedSequence(4), high, high.size).rows(50_000)
    assert stats.chisquare(np.bincount(draws[:, 0], minlength=7)).pvalue > 1e-4
    for j, h in enumerate(high):
        assert draws[:, j].min() >= 0 and draws[:, j].max() < h
        if h > 20:
            assert stats.chisquare(np.bincount(draws[:, j] * 20 // h, minlength=20)).pvalue > 1e-4
        h = float(h)  # h * h overflows int64
        z = draws[:, j] / h  # mean (h - 1) / 2h and variance (h^2 - 1) / 12h^2, 5 standard errors
        assert abs(z.mean() - (h - 1) / (2 * h)) < 5 * np.sqrt((h * h - 1) / (12 * h * h) / z.size)
        assert abs(z.var() - (h * h - 1) / (12 * h * h)) < 5 * np.sqrt(1 / 180 / z.size)
    pairs = np.bincount(draws[:, 0] * 10 + draws[:, 1] // 500, minlength=70)
    assert stats.chisquare(pairs).pvalue > 1e-4


def test_columns_are_uniform_and_independent_chi_square():
    high = np.array([2, 3, 7, 100, 40000])
    draws = UniformIndices(np.random.SeedSequence(3), high, high.size).rows(40_000)
    for j, h in enumerate(high[:4]):  # each column uniform on [0, h)
        counts = np.bincount(draws[:, j], minlength=h)
        assert stats.chisquare(counts).pvalue > 1e-4
    # the column with 39% rejections is uniform too (replacements in 10 bins of 4,000 values)
    assert stats.chisquare(np.bincount(draws[:, 4] // 4000, minlength=10)).pvalue > 1e-4
    # neighbouring columns independent: the pair (col 1, col 2) uniform on 3 x 7 cells
    pairs = np.bincount(draws[:, 1] * 7 + draws[:, 2], minlength=21)
    assert stats.chisquare(pairs).pvalue > 1e-4


def test_bootstrap_distribution_equals_in_law_the_one_from_numpy_integers():
    """The draws changed (issue 17): the metrics' bootstrap distributions are the same in law (two-sample KS)."""
    rng = np.random.default_rng(8)
    sizes = np.array([4, 9, 6, 5])
    task = np.repeat(np.arange(sizes.size), sizes)
    y = np.round(rng.gamma(2.0, 0.6, size=task.size), 1)
    layout = K.agent_layout(y, task, np.concatenate([np.arange(c) for c in sizes]), sizes.size)
    metrics = list(K.BUILTIN_METRICS)
    ours = K.bootstrap_agent(layout, metrics, 1.0, 20_000, np.random.SeedSequence(1))
    local = np.random.default_rng(2).integers(0, np.repeat(sizes, sizes), size=(20_000, layout.n_runs))
    draws = K.Draws(slots=local + layout.slot_base)
    numpy_draws = K.metric_values(layout, K.resample_from_draws(layout, draws), metrics, 1.0)
    for j in range(len(metrics)):
        assert stats.ks_2samp(ours[:, j], numpy_draws[:, j]).pvalue > 1e-3, metrics[j]


@pytest.mark.parametrize("high", [np.array([10] * 6 + [1, 3, 40_000, 65_535]), 40_000, np.array([70_000, 4]), 2000,
                                  np.array([2**31 + 1, 3, 2**31 + 1]), 2**33])
def test_live_rows_are_the_rows_of_the_whole_draw(high):
    # 40,000 rejects 39% of the 16-bit draws: the replacements must land where the whole draw puts them; 70,000
    # takes the wide path
    n = np.size(high) if np.ndim(high) else 7
    offsets = np.arange(n, dtype=np.uint32) * 3
    live_draws = UniformIndices(np.random.SeedSequence(9), high, n)
    whole_draws = UniformIndices(np.random.SeedSequence(9), high, n)
    for k in (500, 1, 333):
        live = np.random.default_rng(k).random(k) < 0.4
        np.testing.assert_array_equal(live_draws.rows(k, offsets, live), whole_draws.rows(k, offsets)[live])
