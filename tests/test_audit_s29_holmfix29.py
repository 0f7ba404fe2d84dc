"""Audit s29 (holmfix29): two faults of Holm's step-down, AdaStop's and the permutation test's default.

1. Whether a test can ever reject was judged at alpha, but Holm's first step spends alpha / J on each of the J
   comparisons.  Three agents (J = 3) at n = 4, K = 1: alpha spends floor(0.05 * 35) = 1 of the C(8, 4) / 2 = 35
   classes, alpha / 3 spends floor(0.0167 * 35) = 0, yet AdaStop said nothing, ``rejecting_sizes`` of n = 3 named n = 4
   (a size that still cannot reject), and the command line refused --allow-powerless on it.  Eight agents (J = 28)
   at n = 5, K = 1: floor(0.05 / 28 * 126) = 0, the same silence.  Now the level judged is alpha / J (the kernels'
   ``spendable_level``; hand counts in the tests).
2. Holm's c counted the comparisons still undecided, so with beta > 0 a comparison accepted as equal gave its share
   away: 3 null agents, n = 5, K = 4, beta = 0.6, B = C accepted at interim 3, then A-B and A-C were tested at
   alpha / 2.  Holm's bound needs c = the comparisons not yet rejected; now so.  At beta = 0 (the default) nothing
   is accepted before the last interim, and 60 beta = 0 designs (3-4 agents, 168 rejections) gave bit-identical
   decisions, histories and steps before and after.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from conftest import caught, cli_shell


def _made(agents, n, K, **options):
    from rlstats.methods.adastop import AdaStop

    return caught(lambda: AdaStop(list(agents), n=n, K=K, **options))


def test_hand_counts():
    """The counts the docstring quotes: half the C(2n, n) classes times alpha / J, rounded down."""
    assert math.floor(0.05 * math.comb(8, 4) / 2) == 1 and math.floor(0.05 / 3 * math.comb(8, 4) / 2) == 0
    assert math.floor(0.05 / 3 * math.comb(10, 5) / 2) == 2          # n = 5 is 3 agents' smallest n at K = 1
    assert math.floor(0.05 / 3 * (math.comb(6, 3) / 2) ** 1 * 0.5) == 0  # n = 3, K = 2: nothing at interim 1 ...
    assert math.floor(0.05 / 3 * (math.comb(6, 3) / 2) * math.comb(6, 3)) == 3  # ... 3 of the 200 paths by 2
    assert math.floor(0.05 / 28 * math.comb(10, 5) / 2) == 0
    assert math.floor(0.05 / 28 * math.comb(12, 6) / 2) == 0 and math.floor(0.05 / 28 * math.comb(14, 7) / 2) == 3


@pytest.mark.parametrize("agents, n, sizes", [("ABC", 3, (5, 2)), ("ABC", 4, (5, 2)), ("ABCDEFGH", 5, (7, 2))])
def test_holm_powerless_is_judged_at_alpha_over_j(agents, n, sizes):
    from rlstats.methods.adastop import rejecting_sizes

    seq, said = _made(agents, n, 1)
    assert seq._test.first_step_level == 0.0
    assert rejecting_sizes(seq) == sizes
    J = math.comb(len(agents), 2)
    assert len(said) == 1 and "the test can never reject" in said[0], said
    assert f"Holm's step-down spends alpha / {J} = " in said[0], said
    # the sizes named can reject: their first step spends some level
    assert _made(agents, sizes[0], 1)[0]._test.first_step_level > 0
    assert _made(agents, n, sizes[1])[0]._test.first_step_level > 0


def test_joint_keeps_alpha():
    """permutations="joint" spends alpha on its one boundary: 3 agents at n = 4, K = 1 can reject, silently."""
    from rlstats.methods.adastop import rejecting_sizes

    seq, said = _made("ABC", 4, 1, permutations="joint")
    assert said == [] and rejecting_sizes(seq) is None


def test_permutation_warns_at_alpha_over_j():
    """The permutation test of 3 agents x 4 runs: alpha / 3 spends nothing of 35 classes: a warning says so."""
    import pandas as pd

    from rlstats.methods.adastop import permutation

    df = pd.DataFrame({"agent": np.repeat(list("ABC"), 4), "score": np.arange(12.0)})
    with pytest.warns(UserWarning, match=r"per agent no level can be spent \(alpha = 0.05, of which Holm's step-down "
                                         r"spends alpha / 3"):
        permutation(df, "score ~ agent", rng=0)


def test_cli_names_sizes_that_can_reject(tmp_path):
    """3 agents, n = 4 read from the batch, K = 1: refused (it was created silently), naming n = 5 or K = 2."""
    (tmp_path / "b.csv").write_text("agent,score\n" + "".join(f"{a},{v}\n" for a in "ABC" for v in range(4)))
    shown = cli_shell("adastop", "update", tmp_path / "s.json", tmp_path / "b.csv", "--K", "1", "--seed", "1")
    assert shown.returncode == 2 and not (tmp_path / "s.json").exists()
    assert "n = 5 runs per batch at K = 1 (--n 5, a first batch of 5 runs per agent) or K = 2 at n = 4" in \
        shown.stderr, shown.stderr
    taken = cli_shell("adastop", "update", tmp_path / "s.json", tmp_path / "b.csv", "--K", "1", "--seed", "1",
                      "--allow-powerless")
    assert taken.returncode == 0, taken.stderr  # it was refused as "can reject"


def test_holm_c_keeps_the_share_of_an_accepted_comparison():
    """3 null agents, n = 5, K = 4, beta = 0.6 (seed 5): B = C is accepted at interim 3; the other two are then
    tested at c = 3 (nothing was rejected), not c = 2."""
    seq, _ = _made("ABC", 5, 4, beta=0.6, rng=5)
    gen = np.random.default_rng(5)
    while not seq.done:
        seq.update({a: gen.normal(0, 1, 5) for a in seq.agents_to_run})
    # audit s30: Holm's c is the step's alpha_divisor; n_comparisons counts the undecided set tested (2 after the
    # accept), as the other schemes' steps do
    steps = [(s["interim"], s["step"], s["alpha_divisor"], s["n_comparisons"], s["action"], s["comparison"])
             for s in seq._test.steps]
    assert steps == [(1, 1, 3, 3, "none", -1), (2, 1, 3, 3, "none", -1), (3, 1, 3, 3, "accept", 2),
                     (3, 2, 3, 2, "none", -1), (4, 1, 3, 2, "none", -1)]
    assert seq._pairs[2] == (1, 2)  # B vs C


@pytest.mark.parametrize("permutations, hinted", [("holm", True), ("joint", True), ("pairwise", False)])
def test_the_pairwise_replay_hint_is_given_to_holm_states_too(permutations, hinted):
    """A batch lacking an agent, fed to a holm state (the default), names the pairwise replay as a joint state's
    refusal does (it was given to joint states only); a pairwise state, which is that scheme, does not."""
    from rlstats.errors import DesignError

    seq, _ = _made("abc", 5, 3, rng=0, n_resamples=200, permutations=permutations)
    gen = np.random.default_rng(1)
    seq.update({a: gen.normal(0, 1, 5) for a in "abc"})
    assert seq.agents_to_run == ("a", "b", "c")
    with pytest.raises(DesignError) as info:
        seq.update({a: gen.normal(0, 1, 5) for a in "bc"})
    assert ("the batch lacks agent a" in str(info.value)
            and ('replay it from its first batch in a new AdaStop with permutations="pairwise"' in str(info.value))
            is hinted), str(info.value)


@pytest.mark.parametrize("agents, runs, permutations, way", [
    # Holm's smallest adjusted p-value J / (C(2n, n) / 2): 3 / 35 = 0.086 at 4 runs, 3 / 126 = 0.024 at 5; the joint
    # relabelling's 2 J n!^2 ((L - 2) n)! / (L n)! = 0.0036 at 3 x 3
    (3, 3, "holm", '; at 5 runs per agent it can; permutations="joint" can reject at these runs, and keeps alpha where '
                   "the agents' scores are alike in spread and shape (its calibration rows miss alpha where spreads "
                   "differ 4-fold or more)"),
    # 28 / 462 = 0.061 at 6 runs, 28 / 1716 = 0.016 at 7
    (8, 5, "holm", '; at 7 runs per agent it can; permutations="joint" can reject'),
    # the joint share at 3 x 2 is 1/15 > alpha: joint is not offered
    (3, 2, "holm", "above alpha = 0.05; at 5 runs per agent it can"),
    (2, 2, "holm", "; at 4 runs per agent it can"),  # one comparison: 1 / 10 at 3 runs, 1 / 35 at 4
])
def test_cannot_reject_note_names_a_way_on(agents, runs, permutations, way):
    import pandas as pd

    import rlstats

    df = pd.DataFrame({"agent": np.repeat([f"a{i}" for i in range(agents)], runs),
                       "score": np.repeat(10.0 * np.arange(agents), runs) + np.tile(np.arange(runs), agents)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        notes = rlstats.compare(df, "score ~ agent", permutations=permutations, rng=0).notes
    note = [n for n in notes if "cannot reject" in n]
    assert len(note) == 1 and way in note[0], notes
    if agents == 3 and runs == 2:
        assert "joint" not in note[0]
        assert math.comb(6, 2) == 15  # 2 * 3 * 2!^2 * 2! / 6! = 48 / 720 = 1/15
        assert 2 * 3 * 4 * 2 / math.factorial(6) == pytest.approx(1 / 15)
    if runs == 3:
        assert 2 * 3 * 36 * 6 / math.factorial(9) < 0.05 < 3 / (math.comb(8, 4) / 2)


POINT = ("permutation", 3, 1, 5, "skewed", "holm")


def _row():
    from rlstats import calibration

    (row,) = [r for r in calibration.rows("adastop.fwe") if (r["test"], r["agents"], r["tasks"], r["runs"],
                                                              r["distribution"], r["interval"])
              == tuple(map(str, POINT))]
    return row


def test_the_holm_row_that_missed_in_one_draw_holds_on_2400_tests():
    """The permutation test of 3 skewed agents x 5 runs read 0.150 in a draw of 60 tests (a missing row, and a
    'missed alpha' note on every such call); Holm's exact bound is J x 2 / (C(10, 5) / 2) = 6 / 126 = 0.048 (the
    first step rejects on the 2 extreme paths of each pair's 126).  On 2,400 tests it reads 0.050, 0.057 in its worst
    draw of 600: within 3 SE of alpha, so the row holds and the note is gone."""
    import pandas as pd

    from rlstats import calibration
    from rlstats.methods.adastop import permutation

    assert 3 * 2 / (math.comb(10, 5) / 2) == pytest.approx(0.0476, abs=1e-4)
    row = _row()
    assert (row["n_sim"], row["coverage"], row["coverage_min"]) == ("2400", "0.949583", "0.943333")
    assert not calibration.misses(row, 0.95)
    assert abs(1 - float(row["coverage"]) - 6 / 126) < 3 * math.sqrt(0.05 * 0.95 / 2400)
    df = pd.DataFrame({"agent": np.repeat(list("ABC"), 5), "score": np.random.default_rng(0).normal(size=15)})
    assert not any("family-wise" in note for note in permutation(df, "score ~ agent", rng=0).notes)


@pytest.mark.slow
def test_the_row_is_the_reference_scripts():
    """tests/reference/size_adastop.py's MORE_TESTS gives this point 2,400 tests: its measure() gives the row (2 s)."""
    import pathlib
    import runpy

    size = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "size_adastop.py"))
    measured = size["table_rows"](POINT, size["SIMULATIONS"][0])[0]
    row = _row()
    assert (str(measured["n_sim"]), f"{measured['coverage']:.6g}", f"{measured['coverage_min']:.6g}") == (
        row["n_sim"], row["coverage"], row["coverage_min"])
