"""The package's bounded draws (rlstats.resampling.UniformIndices, its width rule lane_bits and its units): exact,
chunk-free, equal in law to numpy's."""

import numpy as np
import pytest
from scipy import stats

from rlstats.methods.bootstrap import _kernels as K
from rlstats import resampling
from rlstats.resampling import UniformIndices, lane_bits, multiply_shift

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

    def integers(self, low, high, size=None):
        return np.full(np.shape(high) if size is None else size, MARK)


MARK = 70_000  # above any 16-bit bound


@pytest.mark.parametrize("high", [np.array([3, 40000, 7, 65535, 1, 100, 2, 65534, 12345]), 100, 4096])
def test_rows_reject_exactly_the_values_lemire_rejects_in_each_column(high, monkeypatch):
    """Exhaustive, through UniformIndices itself: its own per-column thresholds, in chunks of rows (16 bits a
    value up to 65,535 here, whatever the width rule would choose)."""
    n = np.size(high) if np.ndim(high) else 5
    draws = UniformIndices(np.random.SeedSequence(0), high, n, bits=16)
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


def test_the_width_follows_the_expected_share_of_rejected_lanes():
    # the one rule: 16 bits while at most 1/40 of a row's 16-bit lanes are expected to be rejected
    assert resampling.REJECTION_SHARE == 40
    assert 65536 % 63898 == 1638 and 65536 % 63897 == 1639  # 1638 / 65536 = 2.4994% <= 2.5% < 1639 / 65536
    assert lane_bits(63898) == 16 and lane_bits(63897) == 32
    assert lane_bits(1680) == 16 and lane_bits(1681) == 32  # 65536 % 1680 = 16, 65536 % 1681 = 1658
    assert lane_bits(4096) == 16 and lane_bits(3000) == 32 and lane_bits(2**16 - 1) == 16 and lane_bits(2**16) == 32
    # the mean over the row's columns, not the largest bound: lanes of bound 1 never reject
    assert lane_bits([63897, 1]) == 16 and lane_bits([63897, 63897]) == 32 and lane_bits([3000] + [1] * 3) == 16
    assert lane_bits([5, 2**16]) == 32 and lane_bits(2**32 - 1) == 32 and lane_bits([3, 2**32]) == 0
    seed = np.random.SeedSequence(0)
    for high, n in ((63898, 3), (63897, 3), (np.array([63897, 1]), 2), (np.array([3, 40000, 7]), 3), (2**32, 3)):
        assert UniformIndices(seed, high, n).bits == lane_bits(high)


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


# issue 43 (s7-draws): tuning's unit draws are UniformIndices.units, under the same width rule; exact at its boundary


def test_units_at_the_boundary_of_the_rule_reject_exactly_lemires_values_16_bits():
    """Every 16-bit value through units(): bound 63,898 (1,638 of 65,536 rejected, the most the rule keeps at 16
    bits) beside small bounds, units asked in a shuffled order and in chunks of rows: each (unit, column) keeps
    65536 // h values of every index and marks exactly 65536 % h."""
    high = np.array([63898, 3, 7, 63898])  # two units of two columns
    draws = UniformIndices(np.random.SeedSequence(0), high, 4, width=2)
    assert draws.bits == 16
    draws.main, draws._replacements = EveryValue(draws.words), Marker()
    rows = []
    for k in (1000, 30000, 34536):
        which = np.random.default_rng(k).permutation(2 * k)
        got = draws.units(k, which)  # (2, 2k): column i is unit which[i] = r * 2 + g
        out = np.empty((k, 2, 2), dtype=np.int64)
        out[which // 2, which % 2] = got.T
        rows.append(out.reshape(k, 4))
    out = np.concatenate(rows)
    for j, h in enumerate(high):
        column = out[:, j]
        assert (column == MARK).sum() == 2**16 % h
        assert (np.bincount(column[column != MARK], minlength=h) == 2**16 // h).all()


def test_units_at_the_boundary_of_the_rule_reject_exactly_lemires_values_32_bits():
    """Bound 63,897 (1,639 of 65,536 16-bit lanes would be rejected: one more than the rule keeps at 16 bits) is
    drawn 32 bits a value: the first u of every index, rejected exactly where the low half is below 2**32 % h."""
    h = 63897
    draws = UniformIndices(np.random.SeedSequence(0), h, 2, width=2)
    assert draws.bits == 32
    i = np.arange(h, dtype=np.uint64)
    first = (i * np.uint64(2**32) + np.uint64(h - 1)) // np.uint64(h)  # the smallest u mapped to index i
    u = np.stack([first, first[::-1]], axis=1)
    draws.main, draws._replacements = ChosenLanes(u), Marker()
    out = np.concatenate([draws.units(k).T for k in (1, 30000, h - 30001)])
    threshold = 2**32 % h
    for j in range(2):
        expected = (u[:, j] * np.uint64(h)) % np.uint64(2**32) < threshold
        assert ((out[:, j] == MARK) == expected).all()
        assert expected.sum() == threshold  # the low halves of the first u's: every residue class once
        kept = out[:, j] != MARK
        assert (out[kept, j] == (u[kept, j] * np.uint64(h)) >> np.uint64(32)).all()


@pytest.mark.parametrize("high", [63898, 63897, np.array([63898, 63897])])
def test_units_at_the_boundary_are_uniform_and_independent_chi_square(high):
    # both sides of the rule's edge (16, 32 and 32 bits: the pair's mean share is 1,638.5 / 65,536) with real streams
    draws = UniformIndices(np.random.SeedSequence(6), np.resize(high, 4), 4, width=2)
    assert draws.bits == (16 if np.size(high) == 1 and high == 63898 else 32)
    k = 30_000
    which = np.flatnonzero(np.random.default_rng(1).random(2 * k) < 0.7)
    got = draws.units(k, which).astype(np.int64)
    for j in range(2):
        for g in range(2):
            x = got[j, which % 2 == g]
            h = int(np.resize(high, 4)[2 * g + j])
            assert x.min() >= 0 and x.max() < h
            assert stats.chisquare(np.bincount(x * 20 // h, minlength=20)).pvalue > 1e-4
    bound = np.resize(high, 2)  # each column's bound, the same in both units
    pairs = np.bincount(got[0] * 10 // bound[0] * 10 + got[1] * 10 // bound[1], minlength=100)
    assert pairs.size == 100
    assert stats.chisquare(pairs).pvalue > 1e-4


@pytest.mark.parametrize("high", [np.array([[3, 5], [7, 2]]), np.array([[63898, 9], [3, 63898]]),
                                  np.array([[63897, 2], [70000, 5]]), np.array([[2**33, 4], [3, 5]])])
def test_units_are_the_rows_and_do_not_depend_on_order_or_chunks(high):
    """Every unit asked: the rows' draws. Some asked, in any order and in chunks of rows: the draws of one call
    asking for the same units (replacements are drawn for the units read only, in the lanes' order)."""
    n, seed = high.size, np.random.SeedSequence(12)
    whole = UniformIndices(seed, high.ravel(), n).rows(300)
    np.testing.assert_array_equal(UniformIndices(seed, high.ravel(), n, width=2).units(300).T.reshape(300, n), whole)
    which = np.flatnonzero(np.random.default_rng(0).random(600) < 0.5)  # flat positions r * 2 + g in 300 rows
    once = UniformIndices(seed, high.ravel(), n, width=2).units(300, which)
    some = UniformIndices(seed, high.ravel(), n, width=2)
    parts = []
    for lo, k in ((0, 1), (1, 120), (121, 179)):
        here = which[(which >= 2 * lo) & (which < 2 * (lo + k))] - 2 * lo
        shuffled = np.random.default_rng(k).permutation(here.size)
        got = np.empty((2, here.size), dtype=once.dtype)
        got[:, shuffled] = some.units(k, here[shuffled])
        parts.append(got)
    np.testing.assert_array_equal(np.concatenate(parts, axis=1), once)


def test_units_of_some_units_are_uniform_and_in_any_order():
    # 32-bit lanes with a bound that rejects a quarter of them: the replacements keep every draw uniform
    high = np.array([[3 * 2**30, 5], [7, 2]])  # (G, width)
    draws = UniformIndices(np.random.SeedSequence(2), high.ravel(), 4, width=2)
    assert draws.bits == 32
    units = np.flatnonzero(np.random.default_rng(0).random(2 * 40_000) < 0.6)  # 40,000 rows of 2 units
    got = draws.units(40_000, units)
    assert got.shape == (2, units.size)
    g = units % 2
    for j in range(2):
        for unit in range(2):
            x = got[j, g == unit].astype(np.int64)
            h = high[unit, j]
            bins = np.minimum(x * 7 // h, 6) if h > 7 else x  # seven equal bins of the large bound
            p = np.bincount(bins, minlength=min(h, 7)) / x.size
            expected = np.full(min(h, 7), 1 / min(h, 7)) if h <= 7 else np.diff(-(-np.arange(8) * h // 7)) / h
            np.testing.assert_allclose(p, expected, atol=5 * np.sqrt(0.25 / x.size))
    # the same units listed in another order give the same draws, each with its unit
    again = UniformIndices(np.random.SeedSequence(2), high.ravel(), 4, width=2)
    order = np.random.default_rng(1).permutation(units.size)
    np.testing.assert_array_equal(again.units(40_000, units[order]), got[:, order])
