"""Tests of the blocked rank kernels (Skillings–Mack 1981, Mack–Skillings 1980).

Reference values come from ``shared/specs/skillings_mack.md``: Section 10.2 (an R
oracle running Skillings.Mack 1.10, PMCMRplus 1.9.10, NSM3 1.20 and
stats::friedman.test under R 4.2.2; the script is ``skillings_mack_oracle.R``
described in Section 10), Section 5.4 and 9.4 (independent exact computations,
spot-checked against NSM3 Exact), Section 6 (critical differences).  Other
checks use closed forms (Friedman), scipy (friedmanchisquare, rankdata,
studentized_range), statsmodels (multipletests) and exhaustive enumeration.
"""


import numpy as np
import pytest
from scipy import stats

import rlstats
from rlstats.errors import DesignError, OptionError
from rlstats.methods.skillings_mack import _kernels as br
from rlstats.statistics import midranks

SM, MS = "skillings_mack", "mack_skillings"
_ = None  # a missing cell in the tables below

# ----------------------------------------------------------------------------- data (spec §10.2)

# (a1) Skillings & Mack (1981) Table 1: rows = blocks B1..B9, columns = methods A, B, C, D.
A1 = [
    [3.2, 4.1, 3.8, 4.2],
    [3.1, 3.9, 3.4, 4.0],
    [4.3, 3.5, 4.6, 4.8],
    [3.5, 3.6, 3.9, 4.0],
    [3.6, 4.2, 3.7, 3.9],
    [4.5, 4.7, 3.7, _],
    [_, 4.2, 3.4, _],
    [4.3, 4.6, 4.4, 4.9],
    [3.5, _, 3.7, 3.9],
]
# (a2) Brady (1969) / HWC Example 7.8; columns A, B, R (C-locale order), rows S1..S8.
A2 = [[5, 15, 3], [3, 18, 1], [4, 21, 5], [_, 6, 2], [2, 17, 0], [2, 10, 0], [3, 8, 0], [2, 13, 0]]
# (a3) Sachs (1997) diuretics, 6 persons x 6 diuretics A..F.
A3 = [
    [3.88, 30.58, 25.24, 4.44, 29.41, 38.87],
    [5.64, 30.14, 33.52, 7.94, 30.72, 33.12],
    [5.76, 16.92, 25.45, 4.04, 32.92, 39.15],
    [4.25, 23.19, 18.85, 4.40, 28.23, 28.06],
    [5.91, 26.74, 20.45, 4.23, 23.35, 38.23],
    [4.33, 10.91, 26.67, 4.36, 12.00, 26.65],
]
# (a4) HWC Example 7.9 niacin: rows E1mg, E4mg, E8mg; columns Lab1..Lab4; 3 runs per cell.
A4 = [
    [[7.58, 7.87, 7.71], [8.00, 8.27, 8.00], [7.60, 7.30, 7.82], [8.03, 7.35, 7.66]],
    [[11.63, 11.87, 11.40], [12.20, 11.70, 11.80], [11.04, 11.50, 11.49], [11.50, 10.10, 11.70]],
    [[15.00, 15.92, 15.58], [16.60, 16.40, 15.90], [15.87, 15.91, 16.28], [15.10, 14.80, 15.70]],
]
# (b) complete 4 agents x 10 tasks.
B = [
    [5.021, 8.692, 11.177, 5.818],
    [29.582, 41.828, 26.432, 40.298],
    [-46.426, -35.309, -35.831, -14.765],
    [-101.734, -81.347, -77.492, -75.928],
    [-70.635, -45.854, -35.952, -29.334],
    [-114.466, -98.942, -98.95, -92.253],
    [16.623, 2.939, 15.689, 29.858],
    [128.186, 137.905, 145.126, 149.659],
    [-61.471, -43.459, -25.632, -49.692],
    [-53.454, -55.854, -58.462, -27.043],
]
# (c) = (b) with missing cells; task09 keeps a single run, so the caller drops it.
C_MISSING = {(1, 1), (3, 3), (5, 0), (5, 2)}
C = [[_ if (i, j) in C_MISSING else v for j, v in enumerate(row)] for i, row in enumerate(B[:9])]
# (d) ties, complete, integer scores; (d2) = (d) without g1/agentA and g6/agentD.
D = [[10, 10, 12, 9], [5, 7, 7, 7], [0, 0, 0, 1], [3, 4, 4, 6],
     [8, 8, 9, 9], [2, 1, 2, 3], [11, 13, 13, 12], [4, 4, 5, 4]]
D2 = [[_ if (i, j) in {(1, 0), (6, 3)} else v for j, v in enumerate(row)] for i, row in enumerate(D)]
# (e) 3 agents (dqn, ppo, sac) x 5 tasks (Alien, Boxing, Pong, Qbert, Seaquest) x 3 seeds.
E = [
    [[1017.1, 1679.87, 1612.36], [1044.85, 1151.02, 1036.31], [1884.86, 1571.97, 1973.44]],
    [[0.76, 17.83, 9.52], [16.4, 12.32, 11.1], [18.32, 20.12, 14.99]],
    [[18.47, 26.86, 11.3], [10.86, 29.95, 19.29], [12.8, 23.86, 27.32]],
    [[2016.99, 1268.84, 5091.59], [8743.12, 5917.17, 4641.01], [8962.48, 9793.09, 7249.97]],
    [[636.17, 760.72, 448.26], [446.62, 736.91, 711.89], [1074.7, 478.85, 634.6]],
]
# (e2) = (e) minus Alien/ppo seed 2, Pong/dqn seeds 1-2, Qbert/sac seed 0 and the Boxing/sac cell.
E2 = [[list(cell) for cell in row] for row in E]
E2[0][1] = E2[0][1][:2]
E2[2][0] = E2[2][0][:1]
E2[3][2] = E2[3][2][1:]
E2[1][2] = _
# (g) disconnected: {A, B} in t1-t3 and {C, D} in t4-t6 (E, alone in t7, is dropped with its
# block).  The spec gives T = 2/3 without the scores; T = 2/3 holds exactly when each pair
# splits its three blocks 2-1 (3-0 would give 3), which these scores do.
G = [[1, 2, _, _], [3, 1, _, _], [2, 5, _, _], [_, _, 4, 1], [_, _, 2, 3], [_, _, 6, 5]]


def long_form(table):
    """Table (rows = tasks, columns = agents, cell = value, list of runs or None) -> arrays."""
    y, agent, task = [], [], []
    for i, row in enumerate(table):
        for j, cell in enumerate(row):
            runs = [] if cell is None else (cell if isinstance(cell, list) else [cell])
            y += runs
            agent += [j] * len(runs)
            task += [i] * len(runs)
    return np.array(y, float), np.array(agent), np.array(task), len(table[0]), len(table)


def setup_of(table, variant, **kw):
    y, a, t, k, n = long_form(table)
    return br.build_setup(y, a, t, k, n, variant=variant, **kw)


def cell_summary(table, fun):
    """Aggregate each cell's runs (mean or median), for SM1981 on cell values."""
    return [[_ if cell is None else float(fun(cell)) for cell in row] for row in table]


def balanced_design(k, n, c, rng, ties=False):
    """Continuous (or tie-heavy integer) scores for k agents x n tasks x c runs."""
    task = np.repeat(np.arange(n), k * c)
    agent = np.tile(np.repeat(np.arange(k), c), n)
    y = rng.integers(0, 4, task.size).astype(float) if ties else rng.normal(size=task.size)
    return y, agent, task


def shuffled(y, a, t, rng):
    perm = rng.permutation(y.size)
    return y[perm], a[perm], t[perm]


def hwc_sums(y, a, t, k, n):
    """HWC S_j = sum over tasks of the mean mid-rank of agent j's runs (independent of the kernel)."""
    S = np.zeros(k)
    for i in range(n):
        r = stats.rankdata(y[t == i])
        for j in range(k):
            S[j] += r[a[t == i] == j].mean()
    return S


# ----------------------------------------------------------------------------- oracle values

ORACLE = [
    # name, table, variant, T, df, asymptotic p (None = not printed in the spec)
    ("a1", A1, SM, 15.4930487975, 3, 0.0014402963),
    ("a1", A1, MS, 15.66149503, 3, 0.001330353502),
    ("a2", A2, SM, 13.2809518446, 2, 0.001306405348),
    ("a2", A2, MS, 13.15274725, 2, 0.001392891291),
    ("a3", A3, SM, 23.33333333, 5, 0.0002914597502),
    ("a3", A3, MS, 23.33333333, 5, 0.0002914597502),
    ("a4", A4, MS, 12.9273504274, 3, 0.004796377539),
    ("b", B, SM, 12.0, 3, 0.007383160505),
    ("b", B, MS, 12.0, 3, 0.007383160505),
    ("c", C, SM, 10.22015447, 3, 0.01678452337),
    ("c", C, MS, 10.3404769, 3, 0.01588301481),
    ("d", D, SM, 6.2625, 3, 0.09951450927),
    ("d", D, MS, 6.2625, 3, 0.09951450927),
    ("d2", D2, SM, 5.108795588, 3, 0.1640017554),
    ("d2", D2, MS, 5.05539426, 3, 0.1677855534),
    ("e", E, MS, 8.551111111, 2, 0.01390432195),
    ("e2", E2, MS, 4.402190961, 2, 0.1106818421),
    ("g", G, SM, 0.6666666667, 2, 0.7165313106),
    ("g", G, MS, 0.6666666667, 2, 0.7165313106),
]


@pytest.mark.parametrize("name, table, variant, T, df, p", ORACLE, ids=[f"{o[0]}-{o[2]}" for o in ORACLE])
def test_oracle_statistic_df_and_pvalue(name, table, variant, T, df, p):
    s = setup_of(table, variant)
    t = br.observed_statistic(s)
    assert t == pytest.approx(T, rel=1e-8)
    assert s.df == df
    assert br.asymptotic_pvalue(s, t) == pytest.approx(p, rel=1e-8)


@pytest.mark.parametrize(
    "table, fun, T, p",
    [(E, np.mean, 8.4, 0.01499557682), (E, np.median, 3.6, 0.1652988882),
     (E2, np.mean, 7.066300231, 0.02921274725), (E2, np.median, 2.566300231, 0.2771628289),
     (A4, np.mean, 7.0, 0.0718977725)],
)
def test_oracle_skillings_mack_on_cell_summaries(table, fun, T, p):
    s = setup_of(cell_summary(table, fun), SM)
    t = br.observed_statistic(s)
    assert t == pytest.approx(T, rel=1e-8)
    assert br.asymptotic_pvalue(s, t) == pytest.approx(p, rel=1e-8)


def test_oracle_adjusted_sums_and_covariance_a1():
    s = setup_of(A1, SM)
    A = br.centred_sums(s, s.ranks)
    expected_A = [-14.1255975154326, 4.28124414605184, -4.28124414605184, 14.1255975154326]
    np.testing.assert_allclose(A, expected_A, rtol=1e-12)
    expected_cov = [[22, -7, -8, -7], [-7, 21, -8, -6], [-8, -8, 23, -7], [-7, -6, -7, 20]]
    np.testing.assert_allclose(s.cov, expected_cov, atol=1e-12)


def test_oracle_adjusted_sums_and_covariance_a2():
    s = setup_of(A2, SM)
    A = br.centred_sums(s, s.ranks)
    np.testing.assert_allclose(A, [-1.73205080756888, 13.1243556529821, -11.3923048454133], rtol=1e-12)
    np.testing.assert_allclose(s.cov, [[14, -7, -7], [-7, 15, -8], [-7, -8, 15]], atol=1e-12)


def test_disconnected_design_has_rank_deficient_covariance():
    s = setup_of(G, SM)
    assert (s.df, s.connected) == (2, False)
    assert setup_of(A1, SM).connected


def test_agent_without_runs_lowers_df():
    # Agent E (code 4) lost its only block: the kernels keep it with zero weight.
    y, a, t, _k, n = long_form(G)
    s = br.build_setup(y, a, t, 5, n, variant=MS)
    assert br.observed_statistic(s) == pytest.approx(2 / 3, rel=1e-12)
    assert (s.df, s.connected) == (2, False)


def test_niacin_hwc_sums_and_closed_form():
    y, a, t, k, n = long_form(A4)
    S = hwc_sums(y, a, t, k, n)
    np.testing.assert_allclose(S, [17.6666666667, 30.5, 15.8333333333, 14.0], rtol=1e-9)
    N = y.size
    closed = 12 / (k * (N + n)) * np.sum((S - (N + n) / 2) ** 2)  # thesis eq. 2.19
    assert br.observed_statistic(setup_of(A4, MS)) == pytest.approx(closed, rel=1e-12)
    # HWC scaling: S_hwc = (q_i / c) * the kernel's sums with weight 1 / q_i, centred at (N + n) / 2.
    s = setup_of(A4, MS)
    np.testing.assert_allclose(br.centred_sums(s, s.ranks) * k, S - (N + n) / 2, atol=1e-12)


# ----------------------------------------------------------------------------- Friedman and ties


def test_tie_corrected_matches_r_friedman_on_ties():
    s = setup_of(D, SM, tie_correction=True)
    assert br.observed_statistic(s) == pytest.approx(8.080645161, rel=1e-9)
    assert br.observed_statistic(setup_of(D, SM)) == pytest.approx(6.2625, rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("variant", [SM, MS])
def test_tie_corrected_equals_scipy_friedman(seed, variant):
    rng = np.random.default_rng(seed)
    k, n = 3 + seed % 3, 6 + seed
    y, a, t = balanced_design(k, n, 1, rng, ties=True)
    y, a, t = shuffled(y, a, t, rng)
    s = br.build_setup(y, a, t, k, n, variant=variant, tie_correction=True)
    columns = [np.array([y[(t == i) & (a == j)][0] for i in range(n)]) for j in range(k)]
    expected = stats.friedmanchisquare(*columns).statistic
    assert br.observed_statistic(s) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("seed", range(5))
def test_untied_complete_design_equals_friedman_closed_form(seed):
    rng = np.random.default_rng(100 + seed)
    k, n = 2 + seed, 4 + 3 * seed
    y, a, t = balanced_design(k, n, 1, rng)
    R = np.zeros(k)
    for i in range(n):
        R[a[t == i]] += stats.rankdata(y[t == i])
    friedman = 12 / (n * k * (k + 1)) * np.sum(R**2) - 3 * n * (k + 1)
    for variant in (SM, MS):
        s = br.build_setup(*shuffled(y, a, t, rng), k, n, variant=variant)
        assert br.observed_statistic(s) == pytest.approx(friedman, rel=1e-10)
        assert s.df == k - 1 and s.connected


def test_skillings_mack_refuses_replicated_cells():
    with pytest.raises(DesignError, match="at most one run"):
        setup_of(A4, SM)


def test_unknown_variant_is_an_option_error():
    # Options are validated once, by the public function's options object; the kernels trust them.
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=1, rng=0)
    with pytest.raises(OptionError, match="variant"):
        rlstats.skillings_mack(df, "score ~ agent | task", variant="kruskal")


# ----------------------------------------------------------------------------- mid-ranks


def test_midranks_match_scipy_within_blocks_with_ties_and_unsorted_rows():
    rng = np.random.default_rng(7)
    block = rng.integers(0, 6, 200)
    y = rng.integers(0, 5, 200).astype(float)
    r = midranks(y, block)
    for b in range(6):
        np.testing.assert_array_equal(r[block == b], stats.rankdata(y[block == b]))


def test_midranks_tie_floating_point_noise_and_nothing_more():
    # issue 39: within 1e-12 of the block's largest |score| is a tie (0 and -7.1e-15 beside 5), before it was a win
    y = np.array([0.0, -7.1e-15, 0.0, 5.0])
    np.testing.assert_array_equal(midranks(y, np.zeros(4, int)), [2.0, 2.0, 2.0, 4.0])
    # alone in their block, the same two numbers have no larger scale to be noise of: units of 1e-15 are units
    np.testing.assert_array_equal(midranks(np.array([0.0, -7.1e-15]), np.zeros(2, int)), [2.0, 1.0])
    # float32-derived scores differ from their float64 neighbours by ~1e-8 relative: they are not ties.
    # (float32(0.1) = 0.10000000149, float32(0.3) = 0.30000001192)
    y = np.array([0.1, float(np.float32(0.1)), 0.3, float(np.float32(0.3)), 0.1])
    np.testing.assert_array_equal(midranks(y, np.zeros(5, int)), [1.5, 3.0, 4.0, 5.0, 1.5])


def test_tie_counts_feed_the_correction():
    s = setup_of(D, MS)
    # g0: one pair; g1: a triple; g2: a triple; g3: a pair; g4: two pairs; g5: a pair;
    # g6: a pair; g7: a triple.
    np.testing.assert_array_equal(s.tie_sum, [6, 24, 24, 6, 12, 6, 6, 24])
    assert s.has_ties and not setup_of(B, MS).has_ties


# ----------------------------------------------------------------------------- invariances


@pytest.mark.parametrize("table, variant", [(E2, MS), (C, SM), (D2, MS), (A1, SM)])
def test_invariances(table, variant):
    y, a, t, k, n = long_form(table)
    base = br.observed_statistic(br.build_setup(y, a, t, k, n, variant=variant))
    rng = np.random.default_rng(3)
    relabel = rng.permutation(k)
    y2 = y.copy()
    y2[t == 0] = np.exp(y2[t == 0] / np.abs(y).max())  # strictly increasing transform of task 0
    y3 = y + 1e3 * (t == 1)  # shift of task 1
    cases = {"relabel": (y, relabel[a]), "transform": (y2, a), "shift": (y3, a), "reverse": (-y, a)}
    for name, (yy, aa) in cases.items():
        T = br.observed_statistic(br.build_setup(yy, aa, t, k, n, variant=variant))
        assert T == pytest.approx(base, rel=1e-12), name


def test_row_order_does_not_matter():
    y, a, t, k, n = long_form(E2)
    base = br.observed_statistic(br.build_setup(y, a, t, k, n, variant=MS))
    rng = np.random.default_rng(0)
    perm = rng.permutation(y.size)
    T = br.observed_statistic(br.build_setup(y[perm], a[perm], t[perm], k, n, variant=MS))
    assert T == pytest.approx(base, rel=1e-12)


def test_statistic_is_vectorised_over_a_batch_axis():
    s = setup_of(E2, MS)
    rng = np.random.default_rng(1)
    batch = np.stack([s.ranks, s.ranks[::-1], rng.permutation(s.ranks)])
    T = br.statistic(s, batch.reshape(3, 1, -1))
    assert T.shape == (3, 1)
    assert T[0, 0] == pytest.approx(br.observed_statistic(s))
    for i in range(3):
        assert T[i, 0] == pytest.approx(float(br.statistic(s, batch[i])))


# ----------------------------------------------------------------------------- exact null

# Spec §5.4: k = 2, smallest v with P0(MS >= v) <= alpha [attained], None = "none".
EXACT_CUTOFFS = {
    0.05: {
        2: [None, None, (4.66667, 0.0400), (4.27636, 0.0441), (4.12571, 0.0441)],
        5: [None, (5.88000, 0.0208), (4.20000, 0.0495), (4.03418, 0.0491), (3.97829, 0.0476)],
        10: [(6.40000, 0.0215), (4.86000, 0.0358), (4.28571, 0.0446), (4.19345, 0.0435), (3.93657, 0.0484)],
        20: [(5.00000, 0.0414), (4.32000, 0.0457), (4.20000, 0.0451), (4.03418, 0.0469), (3.91114, 0.0489)],
        26: [(5.53846, 0.0290), (4.52308, 0.0397), (4.21978, 0.0440), (4.02965, 0.0468), (3.88769, 0.0494)],
    },
    0.01: {
        2: [None, None, (7.71429, 0.0050), (7.06909, 0.0073), (6.58286, 0.0100)],
        5: [None, (7.68000, 0.0067), (6.94286, 0.0095), (7.08873, 0.0080), (6.77600, 0.0093)],
        10: [(10.00000, 0.0020), (7.26000, 0.0088), (6.87619, 0.0099), (6.98182, 0.0086), (6.66514, 0.0100)],
        20: [(9.80000, 0.0026), (7.68000, 0.0067), (6.94286, 0.0093), (6.84218, 0.0093), (6.68829, 0.0098)],
        26: [(7.53846, 0.0094), (7.47692, 0.0074), (7.04029, 0.0087), (6.87441, 0.0091), (6.73077, 0.0096)],
    },
}
CELLS = [(alpha, n, c, row[i]) for alpha, rows in EXACT_CUTOFFS.items() for n, row in rows.items()
         for i, c in enumerate([1, 2, 3, 5, 10])]


def critical_value(null, alpha):
    """Smallest attainable v with P0(T >= v) <= alpha and that level, or None (the spec's tables, Section 5.4)."""
    for v in np.sort(null.values):
        level = br.tail_probability(null, v)
        if level <= alpha * (1 + 1e-10):
            return float(v), level
    return None


def untied_null(k, n, c, variant=MS):
    y, a, t = balanced_design(k, n, c, np.random.default_rng(n * 100 + c))
    return br.exact_null(br.build_setup(y, a, t, k, n, variant=variant))


@pytest.mark.parametrize("alpha, n, c, expected", CELLS)
def test_exact_k2_cutoffs_of_spec(alpha, n, c, expected):
    got = critical_value(untied_null(2, n, c), alpha)
    if expected is None:
        assert got is None
    else:
        assert got[0] == pytest.approx(expected[0], abs=6e-6)
        assert got[1] == pytest.approx(expected[1], abs=5.1e-5)


@pytest.mark.parametrize(
    "n, c, size",
    [(2, 2, 0.0556), (2, 3, 0.0400), (2, 5, 0.0441), (2, 10, 0.0503), (5, 2, 0.0543), (5, 10, 0.0516),
     (20, 5, 0.0524), (20, 3, 0.0451), (26, 2, 0.0571), (26, 3, 0.0539), (26, 10, 0.0494)],
)
def test_exact_type_one_error_of_chi_square_test(n, c, size):
    null = untied_null(2, n, c)
    assert br.tail_probability(null, stats.chi2.ppf(0.95, 1)) == pytest.approx(size, abs=5.1e-5)


def test_exact_upper_tail_n26_c3():
    null = untied_null(2, 26, 3)
    # printed values are rounded to 5 decimals: step down 1e-5 (the lattice gap is ~0.3)
    for v, p in [(3.87546, 0.05388), (4.21978, 0.04399), (4.57875, 0.03567), (4.95238, 0.02873)]:
        assert br.tail_probability(null, v - 1e-5) == pytest.approx(p, abs=5.1e-6)
    assert null.method == "convolve" and null.probabilities.sum() == pytest.approx(1.0, abs=1e-12)


def test_exhaustive_k3_n2_c2_cutoffs():
    null = untied_null(3, 2, 2)
    assert null.method == "enumerate"
    for alpha, v, p in [(0.10, 5.142857, 0.085926), (0.05, 6.142857, 0.040741), (0.01, 8.142857, 0.003704)]:
        got = critical_value(null, alpha)
        assert got[0] == pytest.approx(v, abs=1e-6)
        assert got[1] == pytest.approx(p, abs=1e-6)


def tiny_k2_design():
    """k = 2, unequal block sizes (lattice via the LCM of 3, 4, 5), ties and uneven cells."""
    y = np.array([1.0, 2, 2, 5, 1, 1, 7, 3, 9, 4, 4, 4])
    a = np.array([0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1])
    t = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2])
    return y, a, t, 3


def tiny_k2_cell_design():
    """k = 2, one run per cell, 5 blocks, one tied block (it contributes 0)."""
    y = np.array([1.0, 2, 3, 1, 5, 4, 2, 2, 7, 0])
    return y, np.tile([0, 1], 5), np.repeat(np.arange(5), 2), 5


TINY_K2 = {MS: tiny_k2_design, SM: tiny_k2_cell_design}


@pytest.mark.parametrize("variant", [MS, SM])
def test_enumeration_agrees_with_convolution(variant):
    y, a, t, n = TINY_K2[variant]()
    s = br.build_setup(y, a, t, 2, n, variant=variant)
    conv = br.exact_null(s, method="convolve")
    enum = br.exact_null(s, method="enumerate")
    np.testing.assert_allclose(conv.values, enum.values, rtol=1e-9)
    np.testing.assert_allclose(conv.probabilities, enum.probabilities, atol=1e-14)
    t_obs = br.observed_statistic(s)
    assert br.exact_pvalue(conv, t_obs) == pytest.approx(br.exact_pvalue(enum, t_obs), abs=1e-14)


def test_enumeration_agrees_with_brute_force_over_all_permutations():
    # Independent route: all q_i! orderings of every block, no deduplication.
    import itertools

    y = np.array([3.0, 3, 1, 2, 5, 5, 4, 1, 2])
    a = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2])
    t = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    s = br.build_setup(y, a, t, 3, 3, variant=MS)
    r = s.ranks
    perms = [list(itertools.permutations(np.flatnonzero(t == i))) for i in range(3)]
    T = []
    for p0, p1, p2 in itertools.product(*perms):
        rr = r.copy()
        for idx, p in zip([np.flatnonzero(t == i) for i in range(3)], (p0, p1, p2)):
            rr[idx] = r[list(p)]
        T.append(br.statistic(s, rr))
    T = np.array(T)
    null = br.exact_null(s, method="enumerate")
    t_obs = br.observed_statistic(s)
    assert br.exact_pvalue(null, t_obs) == pytest.approx(np.mean(T >= t_obs - 1e-9), abs=1e-12)
    for v in null.values:
        assert br.tail_probability(null, v) == pytest.approx(np.mean(T >= v - 1e-9), abs=1e-12)


def test_exact_infeasible_raises_option_error():
    with pytest.raises(OptionError, match="monte_carlo"):
        br.exact_null(setup_of(D, MS))
    with pytest.raises(OptionError, match="2 agents"):
        br.exact_null(setup_of(D, MS), method="convolve")


def test_no_attainable_level_and_bad_alpha():
    null = untied_null(2, 2, 1)
    assert critical_value(null, 0.05) is None
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=1, rng=0)
    with pytest.raises(OptionError):
        rlstats.skillings_mack(df, "score ~ agent | task", alpha=1.5)


# ----------------------------------------------------------------------------- Monte Carlo


def test_monte_carlo_does_not_depend_on_batch_size():
    s = setup_of(E2, MS)
    runs = [br.monte_carlo_test(s, 1234, np.random.SeedSequence(42), batch_size=b) for b in (None, 100, 700, 5000)]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.null_distribution, runs[0].null_distribution)
        assert r.pvalue == runs[0].pvalue
    other = br.monte_carlo_test(s, 1234, np.random.SeedSequence(43))
    assert not np.array_equal(other.null_distribution, runs[0].null_distribution)


def _rounded_simulation(**kw):
    df = rlstats.datasets.simulate(effect=0.3, rng=1, **kw)
    df["score"] = np.round(df["score"], 1)  # ties
    return df


#: (batch size, threads) of the test below: the default run takes each batch size once with the threads in turn (each
#: count two or three times, the 1,234 batches of one resample on three threads); the whole product with -m slow
_CHUNKS = [(1, 3), (7, 1), (99, 2), (100, 3), (101, 1), (333, 2), (5000, 3)]


@pytest.mark.parametrize("chunks", [_CHUNKS, pytest.param([(batch_size, n_jobs) for batch_size in (
    1, 7, 99, 100, 101, 333, 5000) for n_jobs in (1, 2, 3)], marks=pytest.mark.slow)], ids=["in turn", "every pair"])
def test_monte_carlo_identical_whatever_chunk_size_and_n_jobs(chunks):
    # Missing cells give three block sizes, so each generator's stream holds three groups of keys
    # that row chunks must pick up in the middle.
    d = rlstats.build(_rounded_simulation(agents=4, tasks=9, seeds=3, missing=0.3), "score ~ agent | task")
    s = br.build_setup(d.y, d.agent, d.task, d.n_agents, d.n_tasks, variant=MS)
    assert len(br._cell_layout(s).blocks.values) == 3
    ref = br.monte_carlo_test(s, 1234, np.random.SeedSequence(7))
    for batch_size, n_jobs in chunks:
        r = br.monte_carlo_test(s, 1234, np.random.SeedSequence(7), batch_size=batch_size, n_jobs=n_jobs)
        np.testing.assert_array_equal(r.null_distribution, ref.null_distribution)
        assert r.pvalue == ref.pvalue and r.hits == ref.hits


def test_monte_carlo_public_n_jobs_same_pvalue():
    df = _rounded_simulation(agents=3, tasks=2, seeds=500)  # blocks of 1500 runs: keys are ranked, not packed
    one = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="monte_carlo", n_resamples=1234, rng=7)
    two = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="monte_carlo", n_resamples=1234, rng=7, n_jobs=2)
    np.testing.assert_array_equal(two.null_distribution, one.null_distribution)
    assert two.pvalue == one.pvalue == 0.0008097165991902834
    with pytest.raises(OptionError):
        rlstats.skillings_mack(df, "score ~ agent | task", n_jobs=0)


@pytest.mark.parametrize("kw, pvalue, statistic, null", [
    # Recorded after issue 39 put each cell's runs in a canonical order before the permutations (the p-value no
    # longer depends on the order of the rows). Before, at 9f8a053 (issue 17's row chunks), they were p = 0.6073
    # and 0.00081 from other draws of the same null distribution; the statistic is unchanged. That the draws do
    # not depend on the chunking or n_jobs is the test above.
    (dict(agents=4, tasks=9, seeds=3, missing=0.3), 0.6153846153846154, 1.738398464929017,
     [7.8737162684607505, 2.5610318028918906, 4.473862434907685, 5.192435984343095]),
    (dict(agents=3, tasks=2, seeds=500), 0.0008097165991902834, 48.721714401066095,
     [0.08373654630246652, 2.7103412045303124, 1.1429739613591026, 0.2041309873417717]),
])
def test_monte_carlo_same_permutations_as_before_row_chunks(kw, pvalue, statistic, null):
    r = rlstats.skillings_mack(_rounded_simulation(**kw), "score ~ agent | task", pvalue="monte_carlo",
                               n_resamples=1234, rng=7)
    assert r.pvalue == pvalue
    assert r.statistic == pytest.approx(statistic, rel=1e-13)
    np.testing.assert_allclose(r.null_distribution[[0, 1, 617, 1233]], null, rtol=1e-12)


def test_monte_carlo_memory_does_not_grow_with_a_generators_block():
    # 60,000 runs: one generator's 100 permutations held at once would need 48 MB of keys.
    import tracemalloc

    d = rlstats.build(rlstats.datasets.simulate(agents=6, tasks=100, seeds=100, rng=0), "score ~ agent | task")
    s = br.build_setup(d.y, d.agent, d.task, d.n_agents, d.n_tasks, variant=MS)
    tracemalloc.start()
    try:
        br.monte_carlo_test(s, 200, np.random.SeedSequence(0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8e6


def test_monte_carlo_pvalue_conventions_and_progress():
    s = setup_of(C, MS)
    done = []
    r = br.monte_carlo_test(s, 2500, np.random.SeedSequence(5), progress=done.append, batch_size=1000)
    t = br.observed_statistic(s)
    hits = int(np.sum(r.null_distribution >= t - 1e-9 * max(1, t)))
    assert r.hits == hits
    assert r.pvalue == (1 + hits) / 2501
    assert r.pvalue_reference == hits / 2500
    assert r.standard_error == pytest.approx(np.sqrt(r.pvalue * (1 - r.pvalue) / 2500))
    assert sum(done) == 2500 and len(done) == 3
    assert r.null_distribution.shape == (2500,)


def test_monte_carlo_keeps_each_blocks_rank_multiset():
    # Every resample must be a within-block permutation: check the engine directly.
    from rlstats.resampling import block_layout, permute_blocks

    s = setup_of(E2, MS)
    layout = block_layout(s.ranks2, s.block)
    gens = [np.random.default_rng(i) for i in range(3)]
    out = permute_blocks(layout, gens, [4, 5, 6])
    for vals, perm in zip(layout.values, out):
        assert perm.shape == (15,) + vals.shape
        np.testing.assert_array_equal(np.sort(perm, axis=-1), np.broadcast_to(np.sort(vals, axis=-1), perm.shape))


def test_permutation_engine_wide_values_fall_back_to_ranking_keys():
    from rlstats.resampling import block_layout, permute_blocks

    values = np.r_[np.arange(2, 3002, 2), np.arange(2, 12, 2)]  # a block of 1500 doubled ranks
    block = np.r_[np.zeros(1500, int), np.ones(5, int)]
    layout = block_layout(values, block)
    assert layout.value_bits == (4, 12)
    out = permute_blocks(layout, [np.random.default_rng(0)], [50])
    for vals, perm in zip(layout.values, out):
        np.testing.assert_array_equal(np.sort(perm, axis=-1), np.broadcast_to(vals, perm.shape))
        assert not np.all(perm == vals)


def test_permutation_engine_is_uniform():
    # Position of each value over many shuffles of one block of 5: chi-square of uniformity.
    from rlstats.resampling import block_layout, permute_blocks

    layout = block_layout(np.arange(5), np.zeros(5, int))
    perm = permute_blocks(layout, [np.random.default_rng(0)], [20000])[0][:, 0, :]
    counts = np.stack([(perm == v).sum(axis=0) for v in range(5)])
    chi2 = ((counts - 4000) ** 2 / 4000).sum()
    assert stats.chi2.sf(chi2, 16) > 1e-3
    # all 120 orderings appear with roughly equal frequency
    codes = (perm * 5 ** np.arange(5)).sum(axis=1)
    freq = np.unique(codes, return_counts=True)[1]
    assert freq.size == 120
    assert stats.chisquare(freq).pvalue > 1e-3


@pytest.mark.parametrize("variant", [MS, SM])
def test_monte_carlo_within_four_se_of_exact(variant):
    y, a, t, n = TINY_K2[variant]()
    s = br.build_setup(y, a, t, 2, n, variant=variant)
    exact = br.exact_pvalue(br.exact_null(s), br.observed_statistic(s))
    assert 0.05 < exact < 0.95  # a p-value where a wrong null would show
    mc = br.monte_carlo_test(s, 20000, np.random.SeedSequence(11))
    assert abs(mc.pvalue - exact) <= 4 * np.sqrt(exact * (1 - exact) / 20000) + 1 / 20001


def test_monte_carlo_within_four_se_of_exact_k3_with_ties():
    y = np.array([3.0, 3, 1, 2, 5, 5, 4, 1, 2, 7, 7, 7, 1, 2, 3])
    a = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2])
    t = np.repeat(np.arange(5), 3)
    s = br.build_setup(y, a, t, 3, 5, variant=MS)
    exact = br.exact_pvalue(br.exact_null(s), br.observed_statistic(s))
    assert 0.01 < exact < 0.99
    mc = br.monte_carlo_test(s, 20000, np.random.SeedSequence(2))
    assert abs(mc.pvalue - exact) <= 4 * np.sqrt(exact * (1 - exact) / 20000) + 1 / 20001


# R's simulated p-values (#/B, B = 10000, within-block permutation of observed mid-ranks).
ORACLE_MC = [("a4", A4, MS, 0.0017), ("c", C, MS, 0.0086), ("c", C, SM, 0.0088), ("d", D, MS, 0.0381),
             ("d", D, SM, 0.0375), ("d2", D2, MS, 0.0596), ("d2", D2, SM, 0.0613), ("e", E, MS, 0.0105),
             ("e2", E2, MS, 0.1062)]


@pytest.mark.parametrize("name, table, variant, p_r", ORACLE_MC, ids=[f"{o[0]}-{o[2]}" for o in ORACLE_MC])
def test_monte_carlo_agrees_with_r_oracle(name, table, variant, p_r):
    B = 10000
    r = br.monte_carlo_test(setup_of(table, variant), B, np.random.SeedSequence(20240601))
    se = np.sqrt(2 * max(p_r, 1 / B) * (1 - p_r) / B)  # two independent estimates
    assert abs(r.pvalue_reference - p_r) <= 4 * se


def _null_rejection_rates(k, n, c, n_sim, n_resamples, rng):
    """Rejection rates at 0.05 of the asymptotic and MC tests on null data (one location per task)."""
    reject = np.zeros(2)
    for _sim in range(n_sim):
        y, a, t = balanced_design(k, n, c, rng)
        y = y + 10 * t  # different task locations, identical agents within a task
        s = br.build_setup(y, a, t, k, n, variant=MS)
        T = br.observed_statistic(s)
        reject[0] += br.asymptotic_pvalue(s, T) <= 0.05
        ss = np.random.SeedSequence(int(rng.integers(2**32)))
        reject[1] += br.monte_carlo_test(s, n_resamples, ss).pvalue <= 0.05
    return reject / n_sim


def _check_calibration(n_sim, n_resamples, k=2, n=5, c=3, exact_size=0.0495):
    rates = _null_rejection_rates(k, n, c, n_sim, n_resamples, np.random.default_rng(2024))
    se = np.sqrt(0.05 * 0.95 / n_sim)
    assert np.all(rates <= 0.05 + 3 * se)
    if exact_size is not None:  # exact size of the chi-square test, spec §9.4 (k = 2, n = 5, c = 3)
        assert abs(rates[0] - exact_size) <= 4 * se


def test_calibration_under_the_null_reduced():
    _check_calibration(1000, 99)


@pytest.mark.slow
def test_calibration_under_the_null_full():
    _check_calibration(5000, 199)
    _check_calibration(3000, 199, k=4, n=6, c=5, exact_size=None)


# ----------------------------------------------------------------------------- post hoc

Q05 = {2: 2.771808, 3: 3.314493, 4: 3.633160, 5: 3.857656, 6: 4.030092}
CD_TABLE = {  # spec §6, n = 26, alpha = 0.05
    2: {1: 9.99, 3: 15.27, 5: 19.14, 10: 26.44, 25: 41.21, 50: 57.99},
    5: {1: 31.10, 3: 50.79, 5: 64.74, 10: 90.68, 25: 142.52, 50: 201.16},
    6: {1: 38.44, 3: 63.34, 5: 80.90, 10: 113.49, 25: 178.56, 50: 252.10},
}


def test_critical_difference_values_of_spec():
    for k, q in Q05.items():
        assert br.critical_difference(k, 26, 1)[2] == pytest.approx(q, abs=1e-6)
    for k, row in CD_TABLE.items():
        for c, cd in row.items():
            assert br.critical_difference(k, 26, c)[0] == pytest.approx(cd, abs=0.006)
    cd, cd_rank, _q = br.critical_difference(6, 26, 10)
    assert cd == pytest.approx(113.488, abs=5e-4)
    assert cd_rank == pytest.approx(113.488 / 260, abs=1e-5)


def test_niacin_tukey_cd_and_decisions():
    s = setup_of(A4, MS)
    ph = br.pairwise(s, higher_is_better=False)
    assert ph.adjustment == "tukey"
    assert ph.cd_sum == pytest.approx(13.0995, abs=1e-4)
    assert ph.q_alpha == pytest.approx(3.633160, abs=1e-6)
    y, a, t, k, n = long_form(A4)
    S = hwc_sums(y, a, t, k, n)
    gap = np.abs(S[ph.agent_u] - S[ph.agent_v])
    np.testing.assert_array_equal(gap >= ph.cd_sum, ph.reject)
    assert ph.reject.any() and not ph.reject.all()
    # the mean-rank scale: (S / n - 1/2) / c + 1/2 and CD / (n c)
    np.testing.assert_allclose(ph.mean_rank, (S / n - 0.5) / 3 + 0.5, rtol=1e-12)
    assert ph.cd_mean_rank == pytest.approx(ph.cd_sum / 9)


@pytest.mark.parametrize("seed", range(6))
def test_tukey_rejects_exactly_when_gap_exceeds_cd(seed):
    rng = np.random.default_rng(seed)
    k, n, c = 3 + seed % 4, 4 + seed, 1 + seed % 3
    y, a, t = balanced_design(k, n, c, rng)
    y = y + 0.4 * a  # some real differences
    ph = br.pairwise(br.build_setup(y, a, t, k, n, variant=MS), alpha=0.05)
    S = hwc_sums(y, a, t, k, n)
    gap = np.abs(S[ph.agent_u] - S[ph.agent_v])
    np.testing.assert_array_equal(gap >= ph.cd_sum, ph.pvalue_adjusted <= 0.05)
    # and the same on the mean-rank scale
    np.testing.assert_allclose(np.abs(ph.mean_rank_diff), gap / (n * c), rtol=1e-10)


def test_nemenyi_on_friedman_design():
    # c = 1: mean ranks are Friedman's R_j / n (rank 1 = best) and CD is Demsar's Nemenyi CD.
    y, a, t, k, n = long_form(A3)
    ph = br.pairwise(setup_of(A3, SM), higher_is_better=True)
    R = np.zeros(k)
    for i in range(n):
        R[a[t == i]] += stats.rankdata(-y[t == i])
    np.testing.assert_allclose(ph.mean_rank, R / n, rtol=1e-12)
    demsar = Q05[6] / np.sqrt(2) * np.sqrt(k * (k + 1) / (6 * n))
    assert ph.cd_mean_rank == pytest.approx(demsar, rel=1e-6)
    np.testing.assert_array_equal(np.abs(ph.mean_rank_diff) >= ph.cd_mean_rank, ph.reject)


def test_mean_ranks_with_missing_cells_average_present_blocks():
    y, a, t, k, n = long_form(C)
    s = setup_of(C, SM)
    expected = np.zeros(k)
    present = np.zeros(k)
    for i in range(n):
        m = t == i
        expected[a[m]] += stats.rankdata(y[m])
        present[a[m]] += 1
    np.testing.assert_allclose(br.mean_ranks(s, higher_is_better=False), expected / present, rtol=1e-12)


def test_direction_reverses_ranks_but_not_the_statistic():
    y, a, t, k, n = long_form(E2)
    up = br.build_setup(y, a, t, k, n, variant=MS)
    down = br.build_setup(-y, a, t, k, n, variant=MS)
    assert br.observed_statistic(up) == pytest.approx(br.observed_statistic(down), rel=1e-12)
    np.testing.assert_allclose(br.mean_ranks(up, higher_is_better=True), br.mean_ranks(down, higher_is_better=False))
    p_up, p_down = br.pairwise(up), br.pairwise(down)
    np.testing.assert_allclose(p_up.z, -p_down.z)
    np.testing.assert_allclose(p_up.pvalue_adjusted, p_down.pvalue_adjusted)
    # complete balanced design: the two directions' mean ranks sum to k + 1
    s = setup_of(A4, MS)
    np.testing.assert_allclose(br.mean_ranks(s) + br.mean_ranks(s, higher_is_better=False), 5.0)


def test_two_agents_z_squared_is_the_statistic_when_balanced():
    y, a, t, k, n = long_form(A4)
    keep = a < 2
    s = br.build_setup(y[keep], a[keep], t[keep], 2, n, variant=MS)
    ph = br.pairwise(s)
    assert ph.z[0] ** 2 == pytest.approx(br.observed_statistic(s), rel=1e-12)
    assert ph.pvalue[0] == pytest.approx(br.asymptotic_pvalue(s, br.observed_statistic(s)), rel=1e-10)


def test_pairwise_sign_follows_mean_ranks_with_unequal_runs():
    # Unequal runs per cell: the contrast compares means of runs, so z and the estimate agree in sign.
    rng = np.random.default_rng(5)
    y, a, t = [], [], []
    for task in range(6):
        for agent, (runs, shift) in enumerate([(30, 0.0), (2, 1.0), (8, 0.5)]):
            y += list(rng.normal(shift, 1.0, runs))
            a += [agent] * runs
            t += [task] * runs
    s = br.build_setup(np.array(y), np.array(a), np.array(t), 3, 6, variant=MS)
    ph = br.pairwise(s)
    np.testing.assert_array_equal(np.sign(ph.z), np.sign(ph.mean_rank_diff))
    np.testing.assert_allclose(ph.mean_rank_diff, ph.mean_rank[ph.agent_u] - ph.mean_rank[ph.agent_v])


@pytest.mark.parametrize("tie_value, tie_correction", [(3.0, True), (3.5, False)])
def test_pairwise_variance_is_the_exact_permutation_variance(tie_value, tie_correction):
    # Tiny unbalanced design: enumerate every within-task arrangement of the runs.  With a tie
    # (3.0, 3.0) the exact variance uses the observed mid-ranks (tie_correction=True); without ties
    # the default untied spread q (q + 1) / 12 is exact.
    from itertools import permutations

    table = [[[1.0, 4.0], [2.0], [3.0, tie_value]], [[5.0], None, [1.0, 2.0]], [[2.0], [7.0, 1.0], [0.5]]]
    y, a, t, k, n = long_form(table)
    s = br.build_setup(y, a, t, k, n, variant=MS, tie_correction=tie_correction)
    ph = br.pairwise(s)
    per_task = []
    for i in range(n):
        m = t == i
        values = []
        for order in set(permutations(range(m.sum()))):
            yy = y.copy()
            yy[np.flatnonzero(m)] = y[m][list(order)]
            values.append(br.shared_task_contrasts(br.build_setup(yy, a, t, k, n, variant=MS))[0])
        per_task.append(np.array(values))
    # Tasks are independent, so the variance of the sum is the sum of the per-task variances.
    total_var = sum(v.var(axis=0) for v in per_task)
    np.testing.assert_allclose(ph.se ** 2, total_var[ph.agent_u, ph.agent_v], rtol=1e-10)


def test_holm_and_bonferroni_match_statsmodels():
    from statsmodels.stats.multitest import multipletests

    s = setup_of(E2, MS)
    assert br.pairwise(s).adjustment == "holm"  # auto on an unbalanced design
    for method in ("holm", "bonferroni"):
        ph = br.pairwise(s, adjustment=method)
        np.testing.assert_allclose(ph.pvalue_adjusted, multipletests(ph.pvalue, method=method)[1], rtol=1e-12)
        assert ph.cd_sum is None
    with pytest.raises(OptionError, match="holm"):
        br.pairwise(s, adjustment="tukey")
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=1, rng=0)
    with pytest.raises(OptionError, match="adjustment"):
        rlstats.skillings_mack(df, "score ~ agent | task", adjustment="scheffe")


def test_pairwise_standard_errors_on_incomplete_blocks():
    s = setup_of(A1, SM)
    ph = br.pairwise(s, higher_is_better=False)
    y, a, t, k, n = long_form(A1)
    # A vs B share B1-B6 and B8: six blocks of 4 agents (variance 2 * 4 * 5 / 12) and one of 3 (2 * 3 * 4 / 12).
    assert ph.n_shared[0] == 7
    assert ph.se[0] == pytest.approx(np.sqrt(6 * 40 / 12 + 2))
    diff = 0.0
    for i in range(n):
        m = t == i
        if {0, 1} <= set(a[m]):
            r = stats.rankdata(y[m])
            diff += r[a[m] == 0][0] - r[a[m] == 1][0]
    assert ph.diff[0] == pytest.approx(diff)
    assert ph.pvalue[0] == pytest.approx(2 * stats.norm.sf(abs(diff) / np.sqrt(22)))


def test_pairs_without_shared_tasks_are_not_tested():
    table = [[1.0, 2.0, None, None], [2.0, 1.0, None, None], [None, None, 1.0, 2.0], [None, None, 3.0, 1.0]]
    s = setup_of(table, SM)
    ph = br.pairwise(s)
    untestable = ph.n_shared == 0
    assert untestable.sum() == 4
    assert np.isnan(ph.z[untestable]).all() and not ph.reject[untestable].any()
    assert np.isfinite(ph.pvalue_adjusted[~untestable]).all()


# ----------------------------------------------------------------------------- issue 31: exact rank-sum differences

def _enumerated_difference_counts(k, n):
    """Counts of D = R_0 - R_1 over all (k!)^n rank assignments (every block a permutation of 1..k)."""
    import itertools
    from collections import Counter

    per_block = Counter(p[0] - p[1] for p in itertools.permutations(range(1, k + 1)))
    counts = Counter({0: 1})
    for _ in range(n):  # each block independent: all (k!)^n assignments, grouped by their D
        grown = Counter()
        for d, c in counts.items():
            for e, m in per_block.items():
                grown[d + e] += c * m
        counts = grown
    return counts


def _brute_force_difference_counts(k, n):
    """The same counts by listing every one of the (k!)^n assignments (tiny designs only)."""
    import itertools
    from collections import Counter

    blocks = list(itertools.permutations(range(1, k + 1)))
    return Counter(sum(b[0] - b[1] for b in combo) for combo in itertools.product(blocks, repeat=n))


def _eisinga_upper(d, k, n):
    """Eisinga et al. (2017), eq. 5, P(D >= d) two-sided, in exact rational arithmetic."""
    from fractions import Fraction
    from math import comb

    if d == 0:
        return Fraction(1)
    total = Fraction(0)
    for h in range(n + 1):
        inner = sum((-1) ** s * comb(2 * h, h + s) * comb(k * s - d + h, k * s - d - h)
                    for s in range(h + 1) if k * s - d - h >= 0)
        total += Fraction(comb(n, h), k**h * (1 - k) ** n) * inner
    return 2 * total


@pytest.mark.parametrize("k, n", [(3, 4), (4, 3), (2, 5), (5, 2)])
def test_rank_sum_difference_null_equals_enumeration_of_all_assignments(k, n):
    counts = _brute_force_difference_counts(k, n)
    total = sum(counts.values())
    assert total == __import__("math").factorial(k) ** n
    upper = br.rank_sum_difference_null(k, n)
    assert upper.size == n * (k - 1) + 1
    for d in range(upper.size):
        expected = sum(c for value, c in counts.items() if abs(value) >= d) / total
        assert upper[d] == pytest.approx(expected, rel=1e-13, abs=0)
        assert upper[d] == pytest.approx(float(_eisinga_upper(d, k, n)), rel=1e-13)


@pytest.mark.parametrize("k, n", [(5, 5), (10, 10), (6, 26)])
def test_rank_sum_difference_null_equals_eisinga_closed_form(k, n):
    # Larger designs: the grouped enumeration and the closed form (exact rationals), including the far tail.
    counts = _enumerated_difference_counts(k, n)
    total = sum(counts.values())
    assert total == __import__("math").factorial(k) ** n
    upper = br.rank_sum_difference_null(k, n)
    for d in list(range(0, upper.size, max(1, upper.size // 12))) + [upper.size - 1]:
        exact = _eisinga_upper(d, k, n)
        assert upper[d] == pytest.approx(float(exact), rel=1e-12)
        assert sum(c for value, c in counts.items() if abs(value) >= d) == exact * total
    # Eisinga et al. (2017), Table 4: k = n = 5, d = 10 has p = 0.0804 (to the 4 digits printed there);
    # the closed form's own value is the check of record.
    if (k, n) == (5, 5):
        assert upper[10] == pytest.approx(float(_eisinga_upper(10, 5, 5)), rel=1e-13)


def test_exact_pvalues_round_half_integer_differences_up():
    upper = br.rank_sum_difference_null(3, 4)
    np.testing.assert_array_equal(br.exact_rank_sum_pvalues([0, 2, -2, 2.5, 3], 3, 4),
                                  [upper[0], upper[2], upper[2], upper[3], upper[3]])


def test_quade_kernel_closed_form_on_a_hand_computed_design():
    # 3 blocks x 3 agents, by hand (Conover 1999, Section 5.8):
    # ranges 2, 6, 1 -> Q = 2, 3, 1; ranks (ascending) rows (1,2,3), (3,1,2), (2,1,3) minus 2:
    # S_ij = Q_i (R_ij - 2): (-2, 0, 2), (3, -3, 0), (0, -1, 1); A = 4+4+9+9+1+1 = 28, S = (1, -4, 3),
    # B = (1 + 16 + 9) / 3 = 26/3, F = 2 * B / (A - B) = (52/3) / (58/3) = 52/58.
    scores = np.array([[1.0, 2.0, 3.0], [9.0, 3.0, 6.0], [5.0, 4.0, 5.5]])
    q = br.quade_test(scores, higher_is_better=False)
    assert q.statistic == pytest.approx(52 / 58, rel=1e-14)
    assert (q.df, q.df_denominator) == (2, 4)
    assert q.pvalue == pytest.approx(stats.f.sf(52 / 58, 2, 4), rel=1e-14)
    np.testing.assert_allclose(q.sums, [1, -4, 3])
    assert q.residual == pytest.approx(28 - 26 / 3)
    # Conover's t for (0, 2): (S_0 - S_2) / sqrt(2 b (A - B) / ((b - 1)(k - 1))) = -2 / sqrt(6 * 58/3 / 4).
    estimate, t, p = br.quade_pairs(q, np.array([0]), np.array([2]))
    assert t[0] == pytest.approx(-2 / np.sqrt(6 * (58 / 3) / 4), rel=1e-14)
    assert p[0] == pytest.approx(2 * stats.t.sf(abs(t[0]), 4), rel=1e-14)
    # weighted mean ranks: sum_i Q_i R_ij / sum Q = (2*1 + 3*3 + 1*2, 2*2 + 3*1 + 1*1, 2*3 + 3*2 + 1*3) / 6
    np.testing.assert_allclose(q.weighted_mean_ranks, np.array([13, 8, 15]) / 6)
    assert estimate[0] == pytest.approx((13 - 15) / 6)
    # The direction flips the sums and mean ranks, never F.
    flipped = br.quade_test(scores, higher_is_better=True)
    assert flipped.statistic == q.statistic
    np.testing.assert_allclose(flipped.sums, -q.sums)


def test_quade_kernel_all_blocks_alike_is_nan_with_r_pvalue():
    # A = B needs every block to order the agents alike with tied ranges (then all Q_i are equal).
    scores = np.tile([1.0, 2.0, 3.0], (4, 1)) + 10.0 * np.arange(4)[:, None]
    q = br.quade_test(scores)
    assert np.isnan(q.statistic) and q.pvalue == pytest.approx(6.0 ** -3)  # R: (k!)^(1 - b)
