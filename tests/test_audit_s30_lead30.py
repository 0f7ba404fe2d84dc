"""Audit s30 (lead): what the permutation test's methods paragraph cites for the step-down it ran."""
import math
import warnings
from fractions import Fraction

import pytest

import rlstats


@pytest.fixture(scope="module")
def three_agents():
    return rlstats.datasets.simulate(agents=3, tasks=1, seeds=10, rng=0, effect=1.0)


@pytest.mark.parametrize("scheme, cited, other", [("holm", "(Holm, 1979;", "Romano and Wolf"),
                                                  ("joint", "(Romano and Wolf, 2003;", "(Holm, 1979;")])
def test_permutation_prose_cites_the_step_down_it_ran(three_agents, scheme, cited, other):
    """Under the default holm scheme the paragraph cited Romano and Wolf's step-down beside 'Adjusted p-values are
    Holm's'; each scheme now cites its own."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.permutation(three_agents, "score ~ agent", rng=0, progress=False, permutations=scheme,
                                  n_resamples=500)
    prose = res.report(format="text")
    assert f"step-down multiple testing {cited} AdaStop's machinery with one interim" in prose
    assert other not in prose
    if scheme == "holm":
        assert "Adjusted p-values are Holm's" in prose
        # review s31: holm_levels is always a DataFrame, so "is not None" could not fail: its values, by hand. 10 runs
        # per agent have C(20, 10) / 2 = 92,378 paths, so 500 are drawn; Holm's first step spends floor(0.05 / 3 x 500)
        # = 8 of them on each of J = 3 comparisons, and after the one rejection (agent_1 < agent_3) c = 2 spends
        # floor(0.05 / 2 x 500) = 12
        assert math.comb(20, 10) // 2 > 500 and list(res.decisions["decision"]) == ["equal", "smaller", "equal"]
        each, now = (Fraction(math.floor(Fraction(1, 20) / c * 500), 500) for c in (3, 2))
        assert (each, now) == (Fraction(8, 500), Fraction(12, 500))
        assert res.holm_levels.to_dict("records") == [{"n_comparisons": 3, "alpha_divisor": 2,
                                                      "level_each": float(each), "level_all": float(3 * each),
                                                      "interim": 1,
                                                      "level_spent_each": float(now)}]
    else:
        assert res.holm_levels.empty  # no rows for the other schemes
