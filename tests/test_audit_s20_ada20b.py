"""Audit s20, helper ada20b: AdaStop's repeat warning in the score's units, power's AdaStop plan, the decisions'
header, the CLI's --sep '\\t'."""

import io
import numpy as np
import pytest
from conftest import caught

import rlstats
import rlstats.cli as cli
from rlstats.errors import DesignError
from rlstats.methods.adastop import AdaStop, adastop


def _feed(first, second, a=1.0, b=0.0):
    """An AdaStop fed two batches with every score mapped to a * y + b; the warnings of the second update."""
    seq = AdaStop(["x", "y"], n=3, K=4, n_resamples=200, rng=0)
    seq.update({k: a * np.asarray(v) + b for k, v in first.items()})
    _, said = caught(lambda: seq.update({k: a * np.asarray(v) + b for k, v in second.items()}))
    return [s for s in said if "nearly identical" in s]


FIRST = {"x": [0.5, 0.9, 2.0], "y": [1.0, 1.4, 3.0]}
NEW = {"x": [0.6, 1.0, 2.1], "y": [1.1, 1.3, 2.9]}  # new runs, 0.1 apart from batch 1's: 4-5% of their range
ROUNDED = {"x": [0.5001, 0.9, 2.0], "y": [1.0, 1.4, 2.9999]}  # batch 1 rounded: 1e-4 apart, 0.005% of the range


@pytest.mark.parametrize("a, b", [(1.0, 1e4), (1e-10, 0.0), (-3.0, 7.0)])
def test_near_repeat_warning_is_unchanged_by_the_units(a, b):
    """The 'batch nearly identical to batch k' warning compared scores with rtol 1e-3 (and atol 1e-9): after a shift
    of every score by 1e4, runs 0.5 and 0.6 were 'identical to 0.1%' and it warned; in units of 1e-10 of the
    scores' (atol 1e-9) too. Its tolerance is now a fraction of the range of the runs compared."""
    assert _feed(FIRST, NEW) == []
    assert _feed(FIRST, NEW, a, b) == []
    assert len(_feed(FIRST, ROUNDED)) == 1
    assert len(_feed(FIRST, ROUNDED, a, b)) == 1


@pytest.mark.parametrize("a, b", [(1.0, 0.0), (1.0, 1e4), (1e-10, 0.0)])
def test_repeat_within_rounding_is_refused_in_any_units(a, b):
    """A batch equal to an earlier one up to the rounding of its representation (one unit in the last place) is the
    same runs: refused as the exact repeat is, whatever the units (it had only warned)."""
    seq = AdaStop(["x", "y"], n=3, K=4, n_resamples=200, rng=0)
    seq.update({k: a * np.asarray(v) + b for k, v in FIRST.items()})
    again = {k: np.nextafter(a * np.asarray(v) + b, np.inf) for k, v in FIRST.items()}
    with pytest.raises(DesignError, match="repeats batch 1"):
        seq.update(again)
    one = {"x": np.nextafter(a * np.asarray(FIRST["x"]) + b, np.inf), "y": a * np.asarray(NEW["y"]) + b}
    with pytest.raises(DesignError, match="agent x: its runs in this batch repeat batch 1"):
        seq.update(one)


def test_power_plan_states_n_and_K():
    """power('adastop') printed neither K nor n = seeds / K (only report() said K): a plan says what it assumed."""
    plan = rlstats.power("adastop", effect=0.8, seeds=[6, 10], tasks=2, n_sim=2, rng=9, n_resamples=100,
                         adastop={"K": 2}, progress=False)
    line = ("AdaStop assumed K = 2 interims of n = seeds / K runs per agent each: n = 3 at 6 seeds, n = 5 at "
            "10 seeds")
    assert line in str(plan)
    assert line in str(plan.summary())
    given_n = rlstats.power("adastop", effect=0.8, seeds=[4, 6], tasks=1, n_sim=2, rng=9, n_resamples=100,
                            adastop={"n": 2}, progress=False)
    assert ("AdaStop assumed n = 2 runs per agent per interim, and K = seeds / n interims: K = 2 at 4 seeds, K = 3 "
            "at 6 seeds") in str(given_n)


def test_decisions_header_says_what_larger_means():
    """The header read 'agent_1 is <decision> than agent_2' alone; the test rejects identical score distributions
    (its level is exact there, 0.061-0.088 at equal means of different shapes: tests/reference/
    adastop_equal_means.py) and the estimate's sign gives the side."""
    df = rlstats.datasets.simulate(agents=2, tasks=1, seeds=10, effect=3.0, rng=1)
    text = str(adastop(df, "score ~ agent", n=5, K=2, rng=1))
    assert ("decisions (the first agent against the second; larger or smaller: their score distributions "
            "differ, the first agent's mean above or below; no difference found: not shown to differ at this level, "
            "which does not show them equal (the value 'equal' in the decisions table, the AdaStop paper's name)):"
            ) in " ".join(text.split())


@pytest.mark.parametrize("command", ["adastop", "power"])
def test_tab_spelled_out_is_a_tab(tmp_path, command):
    """--sep '\\t' typed in a shell is the two characters backslash-t: read as a tab (check_sep) by every
    subcommand with --sep (not a defect on inspection: kept as a regression test)."""
    rng = np.random.default_rng(0)
    if command == "adastop":
        path = tmp_path / "batch.txt"
        path.write_text("a\tb\n" + "".join(f"{x:.4f}\t{y:.4f}\n" for x, y in rng.normal(size=(3, 2))))
        argv = ["adastop", "update", str(tmp_path / "s.json"), str(path), "--sep", "\\t", "--n-resamples", "200"]
    else:
        path = tmp_path / "pilot.txt"
        rows = [f"{a}\t{t}\t{s}\t{rng.normal():.4f}\n" for a in ("p", "q") for t in ("u", "v") for s in range(3)]
        path.write_text("agent\ttask\tseed\tscore\n" + "".join(rows))
        argv = ["power", "skillings_mack", "--pilot", str(path), "--sep", "\\t", "--formula", "score ~ agent | task", "--seeds", "3", "--n-sim", "2",
                "--effect", "0"]
    out = io.StringIO()
    assert cli.main(argv, out=out) == 0, out.getvalue()
