"""Review s38 fixe38: the findings on cap38's and loud38's changes (task_table's noncentral-t cdf at large df, the
printed Welch statistics of a capped cell, keyword-joined column names in a formula, the cap floor's one home and its
tie rule, plurals)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special, stats

import rlstats
from conftest import NCT_ATOL
from rlstats.methods.task_table import _kernels


def _stirling_error(a):
    """log Gamma(a) less Stirling's (a - 1/2) log a - a + log(2 pi) / 2 (its series past a = 10)."""
    if a >= 10:
        return 1 / (12 * a) - 1 / (360 * a**3) + 1 / (1260 * a**5) - 1 / (1680 * a**7)
    return float(special.gammaln(a)) - ((a - 0.5) * math.log(a) - a + 0.5 * math.log(2 * math.pi))


def reference_cdf(t, df, ncp):
    """P(T <= t) = E_V[Phi(t sqrt(V / df) - ncp)], V chi-square on df, by adaptive quadrature (scipy.integrate.quad)
    over y = log(V / df), whose density exp(a (1 + y - e^y)) a^a / Gamma(a) (a = df / 2) is written so that it keeps
    its digits at df 1e6 (the chi-square's own logpdf loses 1e-10 there), between break points at the density's scale
    and at the step of Phi; t sqrt(V / df) - ncp as (t - ncp) + t expm1(y / 2). Nothing of the kernel's: not its
    nodes, not scipy's incomplete gamma functions (which scipy 1.17 gets wrong by up to 20% of the tail below 4 SDs
    at df 1e8)."""
    a = df / 2.0
    const = 0.5 * math.log(a) - 0.5 * math.log(2 * math.pi) - _stirling_error(a)

    def integrand(y):
        return math.exp(const - a * (math.expm1(y) - y)) * special.ndtr((t - ncp) + t * math.expm1(y / 2))

    lo, hi = math.log(stats.chi2.ppf(1e-30, df) / df), math.log(stats.chi2.isf(1e-30, df) / df)
    sd = math.sqrt(2 / df)
    points = [lo, hi] + [k * sd for k in (-8, -3, -1, 0, 1, 3, 8)]
    if t != 0 and ncp / t > 0:  # Phi's step, at y = 2 log(ncp / t), is 2 / |ncp| wide
        step = 2 * math.log(ncp / t)
        points += [step + k * 2 / abs(ncp) for k in (-40, -8, -3, 0, 3, 8, 40)]
    points = sorted({p for p in points if lo <= p <= hi})
    return sum(integrate.quad(integrand, u, v, epsabs=1e-18, epsrel=1e-13, limit=500)[0]
               for u, v in zip(points[:-1], points[1:]))


def _spread(df, ncp, levels=(1e-10, 1e-6, 0.025, 0.5, 0.975, 1 - 1e-6, 1 - 1e-10)):
    """Values of t near the levels' quantiles of T (the normal's and the chi-square's deviations combined), from the
    far lower tail to the far upper one."""
    out = []
    for p in levels:
        z = stats.norm.ppf(p)
        chi = ncp * (1 / math.sqrt(stats.chi2.isf(p, df) / df) - 1)
        out.append(ncp + math.copysign(math.hypot(z, chi), z))
    return np.array(out)


def _check_against_reference(df, ncp, levels=None):
    t = _spread(df, ncp) if levels is None else _spread(df, ncp, levels)
    reference = np.array([reference_cdf(v, df, ncp) for v in t])
    value = _kernels.noncentral_t_cdf(t, df, ncp)
    # 1e-12 absolute, and 1e-11 relative in the lower tail (the upper tail's 1 - cdf has the float's 1e-16 only)
    np.testing.assert_allclose(value, reference, rtol=0, atol=1e-12)
    lower = reference < 0.5
    np.testing.assert_allclose(value[lower], reference[lower], rtol=1e-11, atol=0)


@pytest.mark.parametrize("df, ncp", [(2500.0, 40.0), (1e4, 40.0), (1e5, 40.0), (1e5, 1e3), (1e6, 100.0),
                                     (1e6, 1e6), (2.0, 1e6)])
def test_noncentral_t_cdf_matches_an_adaptive_integral_over_v(df, ncp):
    """Review s38 fixe38: the 48-node Gauss-Hermite mixture over W was off by 1.3e-5 at df 1e4, 4e-3 at 1e5 and
    9e-3 at 1e6 (ncp 40): the chi-square tail is a step in W of width ncp / sqrt(2 df) that its nodes do not
    resolve. Each regime now integrates over the variable in which the other's step is at least a unit wide."""
    _check_against_reference(df, ncp, levels=(1e-6, 0.025, 0.5, 0.975))


@pytest.mark.slow
@pytest.mark.parametrize("df", [2.0, 50.0, 2500.0, 1e4, 1e5, 1e6])
@pytest.mark.parametrize("ncp", [40.0, 100.0, 1e3, 1e6])
def test_noncentral_t_cdf_grid(df, ncp):
    """The review's grid, from 1e-10 to 1 - 1e-10 of T (measured: at most 5e-15 absolute, 3.4e-13 relative in the
    lower tail, to df 1e6)."""
    _check_against_reference(df, ncp)
    _check_against_reference(df, -ncp, levels=(1e-6, 0.5))  # T of -ncp is -T of ncp


def test_noncentral_t_cdf_is_continuous_at_the_switch():
    """No jump where the limits move from nctdtr to the kernel (|ncp| = 40), at any df (it was 4e-3 at df 1e5), nor
    where the kernel moves from integrating over W to integrating over V (t^2 = 2 df). Before scipy 1.15 nctdtr is
    cdflib's, itself up to 1e-6 off there, and the jump is its error (conftest.NCT_ATOL)."""
    for df in (2.0, 38.0, 2500.0, 1e5, 1e6):
        t = _spread(df, 40.0, (1e-6, 0.025, 0.5, 0.975, 1 - 1e-6))
        below = special.nctdtr(df, np.nextafter(40.0, 0.0), t)
        np.testing.assert_allclose(_kernels.noncentral_t_cdf(t, df, _kernels.NCT_QUADRATURE_NCP), below,
                                   rtol=0, atol=NCT_ATOL)
    for df in (1250.0, 5e4, 2e5):
        edge = math.sqrt(2 * df)
        t = np.array([np.nextafter(edge, 0.0), edge])
        for ncp in (40.0, edge):
            value = _kernels.noncentral_t_cdf(t, df, ncp)
            assert abs(value[1] - value[0]) < 1e-13
            assert value[1] == pytest.approx(reference_cdf(edge, df, ncp), abs=1e-13)


def test_limits_at_many_runs_put_t_at_their_tails():
    """Review s38 fixe38: at 2 x 15,000 runs (29,998 df) and t about 45, each noncentral-t limit puts t at its tail by
    the adaptive integral, to 1e-12 (the mixture over W was 1e-6 off there and moved Hedges' g's limits by 7e-5)."""
    t, df = np.array([45.0, 64.0]), np.array([29_998.0, 29_998.0])
    low, high = _kernels.noncentral_t_limits(t, df, 0.95)
    for value, a, b in zip(t, low, high):
        assert reference_cdf(value, 29_998.0, a) == pytest.approx(0.975, abs=1e-12)
        assert reference_cdf(value, 29_998.0, b) == pytest.approx(0.025, abs=1e-12)


@pytest.mark.slow
def test_hedges_interval_of_many_runs_has_the_integral_s_limits():
    """The review's case: 2 agents x 15,000 normal runs, a shift of 0.52, effect_intervals='fcr_normal': this data's
    Hedges' g interval was [0.496258, 0.542432] and is [0.496335, 0.542355], each limit's ncp putting t at its tail by
    the adaptive integral."""
    rng = np.random.default_rng(3815)
    runs = 15_000
    frame = pd.DataFrame({"task": "t", "agent": np.repeat(["a", "b"], runs), "seed": np.tile(np.arange(runs), 2),
                          "score": np.concatenate([rng.standard_normal(runs) + 0.52, rng.standard_normal(runs)])})
    res = rlstats.task_table(frame, "score ~ agent | task/seed", effect_intervals="fcr_normal")
    _, low, high = res.hedges_g[0, 1]
    assert (round(low, 6), round(high, 6)) == (0.496335, 0.542355)
    root = math.sqrt(runs * runs / (2 * runs))
    a, b = frame.score[:runs].to_numpy(), frame.score[runs:].to_numpy()
    t = (a.mean() - b.mean()) / math.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2) * root
    assert reference_cdf(t, 2 * runs - 2.0, low * root) == pytest.approx(0.975, abs=1e-11)
    assert reference_cdf(t, 2 * runs - 2.0, high * root) == pytest.approx(0.025, abs=1e-11)


def test_cap_floor_has_one_home():
    """Review s38 fixe38: task_table's cap floor re-derived equivalence's variance floor inline; both now call
    rlstats.bounds.variance_floor, numbers unchanged: p (1 - p) d^2 with p the Wilson 95% upper bound of 0 of n runs
    off the cap, z^2 / (n + z^2), at most 1/2."""
    from rlstats import bounds
    from rlstats.methods.equivalence import _api as equivalence

    assert equivalence.variance_floor is bounds.variance_floor
    x = np.array([[1.0] * 5, [1.0] * 3 + [0.0] * 2])
    y = np.array([[1.0, 0.7, 0.6, 1.0, 0.8], [0.5, 0.2, 0.4, 0.3, 0.1]])
    floor_x, floor_y = _kernels.cap_floors(x, y)
    z2 = stats.norm.ppf(0.95) ** 2
    p = z2 / (5 + z2)
    np.testing.assert_allclose(floor_x, [p * (1 - p) * 0.3**2, 0.0], rtol=1e-13)
    assert floor_y.tolist() == [0.0, 0.0]
    np.testing.assert_allclose(bounds.variance_floor([5, 3], [5, 10], [0.3, 2.0]), [p * (1 - p) * 0.3**2, 1.0],
                               rtol=1e-13)


def _capped_frame(first, second, scale=1.0, shift=0.0):
    return pd.DataFrame({"task": "t1", "agent": np.repeat(["a", "b"], 5), "seed": np.tile(range(5), 2),
                         "score": np.concatenate([first, second]) * scale + shift})


def test_cap_floor_reads_runs_tied_but_for_rounding():
    """Review s38 fixe38: a cell counted as all at the cap only where its runs were exactly equal; 1.0 and
    0.9999999999999999 (one ulp apart) left it unfloored (one-sided p 0.044 where the floored test gives 0.059). Runs
    within the pair's tie tolerance (rlstats.statistics.tie_tolerance: 1e-12 of the range plus 4 ulps of the largest
    |score|) tie, at any units and origin; runs 1e-6 of the range apart do not."""
    second = np.array([1.0, 0.7, 0.6, 1.0, 0.8])
    exact = rlstats.task_table(_capped_frame(np.ones(5), second), "score ~ agent | task/seed")
    p = exact.p_pairwise[0, 0, 1]
    assert p == pytest.approx(0.0590, abs=5e-4)
    for scale, shift in ((1.0, 0.0), (1e6, 3.0), (1e-6, 0.0)):
        rounded = np.array([1.0, 0.9999999999999999, 1.0, 1.0, 1 - 2e-16])
        res = rlstats.task_table(_capped_frame(rounded, second, scale, shift), "score ~ agent | task/seed")
        assert res.p_pairwise[0, 0, 1] == pytest.approx(p, rel=1e-6), (scale, shift)
        assert any("all tie at a cap" in note for note in res.notes)
    x = np.array([[1.0, 0.9999999999999999, 1.0], [1.0, 1 - 1e-6, 1.0]])
    y = np.array([[1.0, 0.7, 0.6], [1.0, 0.7, 0.6]])
    floors = _kernels.cap_floors(x, y)[0]
    assert floors[0] > 0 and floors[1] == 0


def test_printed_welch_statistics_are_those_of_the_p_value():
    """Review s38 fixe38: against a cell whose runs all sit at a cap the printed Welch t, df and interval read the
    cell's variance as 0 (t 2.25 on 4 df, one-sided p 0.044) while its p-value read the floor (0.059). Both now read
    the floor: t and df give the p-value, and the interval is the difference -+ t quantile x the floored standard
    error, at the effect sizes' level."""
    second = np.array([1.0, 0.7, 0.6, 1.0, 0.8])
    res = rlstats.task_table(_capped_frame(np.ones(5), second), "score ~ agent | task/seed")
    t, df, low, high = res.welch[0, 1]
    assert stats.t.sf(t, df) == pytest.approx(res.p_pairwise[0, 0, 1], rel=1e-12)
    z2 = stats.norm.ppf(0.95) ** 2
    p = z2 / (5 + z2)
    variance = p * (1 - p) * 0.3**2 / 5 + second.var(ddof=1) / 5
    assert t == pytest.approx(0.18 / math.sqrt(variance), rel=1e-12)
    half = stats.t.ppf(0.975, df) * math.sqrt(variance)  # two agents: the effect sizes' level is 0.95
    np.testing.assert_allclose([low, high], [0.18 - half, 0.18 + half], rtol=1e-10)
    tidy = res.tidy().set_index("agent")
    assert tidy.loc["b", "welch_t"] == t and tidy.loc["b", "welch_df"] == df
    assert any("Welch's t, df and interval printed against" in note for note in res.notes)


@pytest.mark.parametrize("column", ["time in seconds", "a is b", "win or lose", "fast and good", "not done",
                                    "x if y else z", "is it not in"])
def test_a_spaced_column_of_keywords_gets_the_back_quote_advice(column):
    """Review s38 fixe38: loud38 read words joined by Python's keywords as Python ('score if True else 0'), so a
    column named 'time in seconds' (or 'win or lose') written unquoted got "unknown name 'time'" in place of the
    advice to back-quote it. Where the words' names are not all columns and the words joined by spaces name a column
    of the data, the advice is back, the caret under the words ('is it not in', not Python, always had it); the command
line refuses the expression and back-quotes the column in its way on."""
    from rlstats.errors import FormulaError

    frame = pd.DataFrame({"task": ["t"] * 6, "agent": list("aaabbb"), column: np.arange(6.0)})
    expected = f"column names that contain spaces must be back-quoted, e.g. `{column}`"
    with pytest.raises(FormulaError, match=expected) as error:
        rlstats.task_table(frame, f"{column} ~ agent | task")
    assert "unknown name" not in str(error.value) and str(error.value).endswith("^" * len(column))
    res = rlstats.task_table(frame, f"`{column}` ~ agent | task")
    assert res.estimates.shape == (1, 2)
    from rlstats.formula import RESTRICTED, evaluate_response, parse

    with pytest.raises(FormulaError) as error:  # the command line's grammar: its own refusal, the same way on
        evaluate_response(parse(f"{column} ~ agent | task"), frame, eval_env=RESTRICTED)
    assert (expected in str(error.value)
            or f"the data has a column '{column}': back-quote it: '`{column}` ~ agent | task'" in str(error.value))


def test_keyword_expressions_of_columns_stay_python():
    """The other side: words joined by keywords whose names are all columns stay Python, and words naming no column
    are the unknown name they are."""
    from rlstats.errors import FormulaError
    from rlstats.formula import evaluate_response, parse

    frame = pd.DataFrame({"score": [1.0, 2.0], "agent": ["a", "b"], "time in seconds": [3.0, 4.0]})
    np.testing.assert_allclose(evaluate_response(parse("score if True else 0 ~ agent"), frame).values, [1.0, 2.0])
    with pytest.raises(FormulaError, match="unknown name 'time' in response; names here must be data columns"):
        evaluate_response(parse("time in minutes ~ agent"), frame)


def test_counted_words_come_from_grammar():
    """Review s38 fixe38: 'the data's {what}s', 'the {what}s are' and 'more than {length:,} entries' were plurals built
    by hand ('more than 1 entries' for one task; a label kind ending in s, x or y would have read 'classs',
    'entrys'); they are rlstats.grammar's."""
    from rlstats.errors import OptionError, agent_named, check_key_count, label_named

    with pytest.raises(OptionError, match="keep the keys naming the data's entries$"):
        check_key_count(["a"], "threshold", dict.fromkeys(range(10_002)), what="entry")
    with pytest.raises(OptionError, match="; the classes are: 'a', 'b'$"):
        agent_named(["a", "b"], "hue", "c", what="class")
    with pytest.raises(OptionError, match="names both the classes '9' and '9.0'"):
        label_named(["9", "9.0"], "hue", 9, what="class")
    with pytest.raises(OptionError, match="tasks= has more than 1 entry but the arrays' second axis"):
        rlstats.from_rliable({"a": np.zeros((3, 1))}, tasks=iter(["x", "y"]))
