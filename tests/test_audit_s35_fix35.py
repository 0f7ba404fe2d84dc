"""Audit s35 fix35: the bootstrap's note of tasks whose runs lie apart beyond the far-apart design's runs, and
fmt.as_fixed writing a rounded number out as if exact."""
import warnings

import numpy as np
import pandas as pd

import rlstats
from rlstats import format as fmt


def _apart(runs):
    """2 agents x 3 tasks at offsets 0, 10, 20 (sd 1): every task's runs apart from the others'."""
    rng = np.random.default_rng(1)
    rows = [(agent, task, seed, offset + rng.normal()) for agent in ("A", "B")
            for task, offset in (("t1", 0), ("t2", 10), ("t3", 20)) for seed in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _apart_notes(runs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rlstats.bootstrap(_apart(runs), "score ~ agent | task/seed", rng=0, n_resamples=500)
    return [n for n in result.notes if n.startswith("the 3 tasks' runs lie apart")]


def test_the_apart_note_beyond_the_far_apart_runs():
    """At 10 runs (far-apart rows at 3 and 5 alone) the note says the runs are beyond that design and quotes the rows
    by chance as of that rare event, without metrics=("mean",) beside the mean's rows there, which miss; until fix35
    it quoted them alone with the option (the IQM's 0.37-0.66, the mean's, metrics=("mean",), 0.53-0.75)."""
    iqm, mean = [n for n in _apart_notes(10) if "of the IQM" in n or "of the mean" in n]
    for note in (iqm, mean):
        assert "metrics=" not in note
        assert "beyond the 3 and 5 runs per task measured on 3 tasks far apart" in note
        assert "in at most 0.034% of data sets" in note
    assert "the IQM covered 0.37 to 0.66 (the mean's 0.53 to 0.75)" in iqm
    assert "the mean covered 0.53 to 0.75" in mean


def test_the_apart_note_at_the_far_apart_runs():
    """At 3 and 5 runs the far-apart rows are quoted, the mean's way on beside them, where they hold."""
    for runs, far, chance in ((3, "0.75 to 0.91", "0.70 to 0.84"), (5, "0.85 to 0.87", "0.62 to 0.71")):
        iqm = _apart_notes(runs)[0]
        assert (f"with {runs} runs per task, nominal 95% studentized intervals of the IQM covered {far} on 3 tasks "
                "far apart (the mean's, metrics=(\"mean\",), 0.94 to 0.97) and " + chance) in iqm
        assert iqm.count("metrics=") == 1 and "beyond" not in iqm


def test_as_fixed_writes_no_rounded_digit_as_exact():
    """fmt.as_fixed writes a number out fixed where every integer digit is significant or it is exact (msg32's
    -500000), the zeros it writes the value's own; a spread of 36,055,513 to 2 digits read "36000000" (msg32, 2a1cc6d9), R's format 3.6e+07."""
    assert fmt.as_fixed(fmt.signif(36055513, 2), 36055513) == "3.6e+07"
    assert fmt.as_fixed("-5e+05", -500000.0) == "-500000"  # exact: msg32's case
    assert fmt.as_fixed("1.25e-05", 1.25e-05) == "0.0000125"  # every integer digit significant
    assert fmt.as_fixed(fmt.signif(34666000, 2), 34666000) == "3.5e+07"
    assert fmt.as_fixed("1.2e+01", 12.3) == "12"
    # digits35's wide levels: every integer digit significant, the zeros signif dropped are the value's own
    assert fmt.as_fixed(fmt.signif(1000000.0381, 8), 1000000.0381) == "1000000"
    assert fmt.signif_levels([1000000.0381, 1000066.3]) == ["1000000", "1000066.3"]
    assert fmt.as_fixed("-5e+05", -500000.4) == "-500000" and fmt.as_fixed("-5e+05", -500001) == "-5e+05"
