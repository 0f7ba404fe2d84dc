"""Audit s32, the lead's merges: what the helpers' branches needed of each other."""
import numpy as np
import pytest
from scipy import stats

from rlstats.methods.adastop._kernels import binomial_cdf


@pytest.mark.parametrize("n", [0, 1, 2, 5, 19, 99, 999, 9_999])
def test_binomial_cdf_is_scipys_without_scipy(n):
    """``adastop update`` must not load scipy (tests/test_startup.py), and since left32 every schedule that spends
    is asked its chance of rejecting separated runs, a binomial tail: the scipy-free sum agrees with scipy's
    ``binom.cdf`` over tails, p near 0 and 1 and k out of range."""
    for p in (0.0, 1e-300, 1e-12, 1e-6, 0.001, 0.1, 0.5, 0.9, 0.999, 1.0):
        for k in sorted({-1, 0, 1, 2, n // 10, n // 2, n - 1, n, n + 1}):
            expected = float(stats.binom.cdf(k, n, p))
            assert binomial_cdf(k, n, p) == pytest.approx(expected, rel=1e-10, abs=1e-300), (k, n, p)
    assert np.isclose(binomial_cdf(9, 19, 0.3), 0.9674, atol=1e-4)


def test_the_command_line_leaves_other_libraries_deprecations_unsaid(capsys, monkeypatch):
    """pyparsing 3.3 deprecates names matplotlib 3.7 (the oldest allowed) calls, with a warning that is both a
    UserWarning and a DeprecationWarning: the command line printed it as "rlstats: warning: 'enablePackrat'
    deprecated", first on stderr before its own error (tests/test_security.py on the oldest versions). Another
    library's deprecation is not said; rlstats' own warnings are."""
    import warnings

    from rlstats.cli import main
    from rlstats.errors import RlstatsWarning

    class OtherDeprecation(UserWarning, DeprecationWarning):
        pass

    def run(args, out):
        warnings.warn("'enablePackrat' deprecated - use 'enable_packrat'", OtherDeprecation)
        warnings.warn("a note of the data", RlstatsWarning)
        return 0

    import rlstats.cli as cli

    parser = cli.build_parser()
    original = parser.parse_known_args

    def parsed(argv):
        args, extra = original(["demo", "--help"][:1])
        args.run = run
        return args, extra

    monkeypatch.setattr(cli, "build_parser", lambda: type("P", (), {"parse_known_args": staticmethod(parsed)})())
    assert main([]) == 0
    err = capsys.readouterr().err
    assert "enablePackrat" not in err and "rlstats: warning: a note of the data" in err


def test_equivalence_never_advises_more_resamples_than_it_takes():
    """The near-alpha note's count is 4 p (1 - p) / (p - alpha)^2: at p = 0.050001 that is 1.9e11, beyond the 10^7
    n_resamples= takes (rlstats.options.MAX_RESAMPLES), so no count is advised (read-through rt32b); at p = 0.06,
    4 x 0.06 x 0.94 / 0.01^2 = 2,256 is (2,257 in floats, rounded up)."""
    from types import SimpleNamespace

    from rlstats.methods.equivalence._api import _near_alpha_note

    options = SimpleNamespace(alpha=0.05)
    (far,) = _near_alpha_note([("A vs B", 0.050001, 0.004)], options)
    assert "no n_resamples= up to 10_000_000 would put it 2 standard errors from alpha" in far
    assert "would put it 2 standard errors from alpha if" not in far
    (near,) = _near_alpha_note([("A vs B", 0.06, 0.008)], options)
    assert "n_resamples=2_257 would put it 2 standard errors from alpha if its p-value is" in near
