"""Audit s15 plan: ``rlstats.sample_size()``, its rule and its printed, LaTeX and command-line output.

Audited: which number of seeds the search answers when its Monte Carlo rows cross the target noisily (measured
against a power curve known in closed form, run through the search itself), the range it gives, the sentence in
print(), report(), to_latex() and ``rlstats power --target-power`` output, and sample_size() run as a user would with
each method it plans, odd targets, a target no row reaches, one every row reaches and a one-row search.
"""

import functools
import io
import math

import numpy as np
import pytest
from scipy import stats

import rlstats
from conftest import quietly
import rlstats.cli as cli
from rlstats.planning import _api as planning
from rlstats.statistics import wilson_interval

QUIET = {"progress": False}


def _monotone(table, column, target):
    """The fewest seeds from which every evaluated number of seeds has ``column`` >= target, or None."""
    answer = None
    for seeds in sorted(table.index, reverse=True):
        if table.loc[seeds, column] < target:
            break
        answer = seeds
    return answer


# --------------------------------------------------------------------------- the rule: rows crossing the target


def test_sample_size_is_not_a_row_that_more_seeds_contradict():
    """The answer was the smallest row whose estimate reached the target, whatever the rows above it showed:
    'Sample size for power 0.8: 11 seeds (estimated power 0.8)' above rows of 12, 13 and 17 seeds at 0.725, 0.775
    and 0.7 (effect 0.5, 3 tasks, 40 data sets, rng=4). The minimum over noisy rows leans optimistic (see the next
    test); the answer is now the fewest seeds from which every number of seeds evaluated reaches the target (18
    here, 17 having fallen short), and the range's ends follow the same rule with the interval's bounds. (rng=4 until
    audit s35 drew the data sets a block at a time; rng=0 shows the same case on those: its answer (18, 14, 21).)"""
    res = quietly(rlstats.sample_size, "skillings_mack", 0.8, effect=0.5, tasks=3, n_sim=40, rng=0, max_seeds=64,
                   pvalue="asymptotic", **QUIET)
    table = res.table.set_index("seeds")
    assert (res.sample_size, res.sample_size_low, res.sample_size_high) == (18, 14, 21)
    for answer, column in ((res.sample_size, "power"), (res.sample_size_low, "conf_high"),
                           (res.sample_size_high, "conf_low")):
        assert answer == _monotone(table, column, 0.8)
        assert table.loc[answer - 1, column] < 0.8  # the number of seeds just below was evaluated, and falls short
    text = str(res)
    assert ("Sample size for power 0.8: 18 seeds, the fewest from which every number of seeds evaluated reaches it "
            "(estimated power 0.875, 95% interval 0.739 to 0.945; 14 and 16 seeds reached it too, but 17 did "
            "not); given the Monte Carlo error the sample size lies between 14 and 21 seeds.") in text


class _KnownCurve(planning._Search):
    """The real search over rows drawn as Monte Carlo estimates (binomial, n_sim data sets) of a known power curve."""

    def __init__(self, curve, n_sim, target, rng):
        super().__init__(None, n_sim, None, 1, target)
        self.curve, self.rng = curve, rng

    def row(self, units):
        if units not in self.rows:
            k = self.rng.binomial(self.n_sim, self.curve(units))
            low, high = wilson_interval(np.array([k]), np.array([self.n_sim]), 0.95)
            self.rows[units] = {"power": k / self.n_sim, "conf_low": float(low[0]), "conf_high": float(high[0])}
        return self.rows[units]


def _answers(delta, n_sim, reps, seed):
    """Over ``reps`` searches of the curve Phi(delta sqrt(n) - z) (a two-sided z-test's power at level 0.05 with n
    observations): the search's answers, those of the smallest row reaching the target on the same rows, the true
    sample size (the smallest n with power 0.8) and the curve."""
    z = stats.norm.ppf(0.975)

    @functools.cache  # the searches ask the same few n thousands of times (scipy's cdf: 0.3 ms a call)
    def curve(n):
        return float(stats.norm.cdf(delta * math.sqrt(n) - z))

    best = next(n for n in range(1, 10_000) if curve(n) >= 0.8)
    rng = np.random.default_rng(seed)
    found, smallest = [], []
    for _ in range(reps):
        search = _KnownCurve(curve, n_sim, 0.8, rng)
        answer = search.run(2, 100)["sample_size"]
        reached = [u for u, row in search.rows.items() if row["power"] >= 0.8]
        if answer is not None and reached:
            found.append(answer)
            smallest.append(min(reached))
    return np.array(found), np.array(smallest), best, curve


def test_the_rule_is_not_optimistic_on_a_known_power_curve():
    """The smallest row reaching the target leaned optimistic: on a power curve known in closed form (a z-test's,
    delta = 0.5, true sample size 32, power 0.795 at 31), searched with 300 data sets per row as sample_size() does,
    its answer was below the true sample size in 47% of 300 studies and above it in 28%. The fewest seeds from which
    every row evaluated reaches the target: 31% below, 39% above."""
    found, _, best, _ = _answers(0.5, 300, 300, seed=1)
    below, above = np.mean(found < best), np.mean(found > best)
    assert below - above < 0.1, (below, above)


@pytest.mark.slow
@pytest.mark.parametrize("delta, n_sim", [(0.3, 1000), (0.5, 100), (0.5, 1000), (0.8, 100), (0.8, 300)])
def test_the_rule_is_not_optimistic_on_known_power_curves(delta, n_sim):
    """The measurement behind the rule, over flat and steep curves and 100 to 1,000 data sets per row (2,000
    searches each): answers whose true power is more than 0.02 short of the target are at most 0.7 times as many
    as with the smallest row reaching it, on the same rows (measured: 0.025 against 0.049 at delta 0.3 with 1,000
    data sets per row, 0.125 against 0.332 at delta 0.5 with 100, 0.080 against 0.168 at delta 0.8 with 100)."""
    found, smallest, best, curve = _answers(delta, n_sim, 2_000, seed=2)
    short = np.mean([curve(n) < 0.78 for n in found])
    short_before = np.mean([curve(n) < 0.78 for n in smallest])
    assert short <= 0.7 * short_before, (short, short_before)


# --------------------------------------------------------------------------- LaTeX and the command line


def test_to_latex_gives_the_sample_size_sentence():
    """print() ends with 'Sample size for power 0.8: 5 seeds (...)'; to_latex() (and so `rlstats power
    --target-power 0.8 --format latex`) gave the tables alone, without the answer the search was run for."""
    res = quietly(rlstats.sample_size, "skillings_mack", 0.8, effect=1.0, tasks=5, n_sim=100, rng=0, **QUIET)
    latex = res.to_latex()
    first = latex.split("\\end{table")[0]
    # 4 seeds on audit s35's data sets (drawn a block at a time; 5 before)
    assert "Sample size for power 0.8: 4 seeds" in first and "95\\% interval" in first
    assert "95% interval" not in latex.replace("95\\%", "")  # escaped: a bare % would start a LaTeX comment


def test_command_line_latex_gives_the_sample_size_sentence():
    """`rlstats power skillings_mack --target-power 0.8 --format latex` printed no sample size at all."""
    stream = io.StringIO()
    code = cli.main(["power", "skillings_mack", "--effect", "1", "--tasks", "5", "--n-sim", "100", "--seed", "0",
                     "--target-power", "0.8", "--format", "latex", "--no-progress"], out=stream)
    out = stream.getvalue()
    assert code == 0 and "Sample size for power 0.8: 4 seeds" in out  # 5 before audit s35's data sets


# --------------------------------------------------------------------------- the sentence, as a user reads it


def test_a_search_whose_largest_row_falls_short_says_so():
    """The rule's other side: rows of 8 seeds reached power 0.9 (0.9 of 20 data sets) and 12, the most searched, fell
    short (0.85), so no number of seeds searched has every row from it on reaching the target. The warning must not
    read 'not reached with up to 12 seeds (largest estimate 0.9)', nor the sentence 'did not reach' alone. (rng=36
    until audit s35 drew the data sets a block at a time; rng=91 shows the case on those, 8 seeds at 0.95.)"""
    with pytest.warns(rlstats.errors.RlstatsWarning) as caught:
        res = rlstats.sample_size("skillings_mack", 0.9, effect=0.8, tasks=3, n_sim=20, rng=91, max_seeds=12,
                                  pvalue="asymptotic", **QUIET)
    assert res.sample_size is None and res.sample_size_high is None
    assert res.table.set_index("seeds").loc[[8, 12], "power"].tolist() == [0.95, 0.85]
    messages = [str(w.message) for w in caught]
    assert any("not reached at 12 seeds, the most searched (estimate 0.85), though 8 seeds reached it" in m
               for m in messages), messages
    assert ("did not reach power 0.9 at 12 seeds, the most searched (estimated power 0.85), though 8 seeds reached "
            "it") in str(res)


def test_an_answer_where_the_search_starts_keeps_the_monte_carlo_range():
    """Where the target is reached at the search's start the sentence gave the answer ('2 seeds or fewer') and how to
    search lower, and dropped the range: 'Sample size for power 0.999: 2 seeds or fewer (estimated power 1, 95%
    interval 0.929 to 1)' said nothing of no interval being above 0.999, which 50 data sets per number of seeds
    cannot show (all 50 rejecting gives a lower bound of 0.929); and at effect 1.8 on 5 tasks, 2 seeds at 0.95
    (0.764 to 0.991), the range's upper end, 3 seeds, went unsaid."""
    never = quietly(rlstats.sample_size, "skillings_mack", 0.999, effect=3.0, tasks=5, n_sim=50, rng=0, max_seeds=8,
                     **QUIET)
    assert never.sample_size == 2 and never.sample_size_high is None
    text = str(never)
    assert "2 seeds or fewer" in text and "the interval at 8 seeds, the most searched, is not entirely above" in text
    assert "with 50 data sets per number of seeds no interval can be: raise n_sim" in text
    # rng=1 (0 until audit s35 drew the data sets a block at a time: rng=0's 2 seeds now reach past the range)
    ranged = quietly(rlstats.sample_size, "skillings_mack", 0.8, effect=1.8, tasks=5, n_sim=20, rng=1, **QUIET)
    assert (ranged.sample_size, ranged.sample_size_high) == (2, 3)
    assert "2 seeds or fewer" in str(ranged) and "given the Monte Carlo error it is at most 3 seeds" in str(ranged)
