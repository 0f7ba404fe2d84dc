"""Audit s30 (lead): what the permutation test's methods paragraph cites for the step-down it ran."""
import warnings

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
        assert "Adjusted p-values are Holm's" in prose and res.holm_levels is not None
