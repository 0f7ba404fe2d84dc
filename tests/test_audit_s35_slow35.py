"""Audit s35, slow35: the slow tests that reproduce figures measured on power()'s pilot draws before audit s34
powerstream34.

powerstream34 (94c33674) drew each pilot cell's runs from a stream of its own (keyed by its agent's and task's labels,
a call a cell for a block of planning._sources.DRAW_BLOCK data sets). The figures the package quotes of small pilots
(DECLARATIONS[...].power.pilot_spread: the 10th-50th-90th percentiles of a pilot's power over pilots, measured by
tests/reference/pilot_spread.py) had been measured on the former draws; slow35 ran their slow tests under a patch of
power()'s pilot source back to those draws (``former_pilot_draws``). Audit s36 (calib36) measured the figures again on
today's draws with the same script and seeds (the rank test's 3-run pilots: median 0.815 -> 0.837; the permutation
test's 0.292, 0.434, 0.681 -> 0.287, 0.438, 0.701) and retired the patch: the slow tests
(test_audit_s22_power22, test_audit_s30_spread30) now reproduce them on today's code.

And a strict-xfail reproducer of a print defect the slow metamorphic sweep of session 21 found (a task table's
rounded spread written out as if exact).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from rlstats.planning import _api as planning


def _study():
    rng = np.random.default_rng(3)
    pilot = pd.DataFrame({"agent": np.repeat(["b", "a"], 9), "task": np.tile(np.repeat(["y", "x", "z"], 3), 2),
                          "score": np.round(rng.normal(size=18), 2)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return planning._prepare("bootstrap", pilot, "score ~ agent | task", 0.5, None, None, "mixed", 1.0, "agents",
                                 None, 0.05, 4, 11, 1, None, None, False, None, {})[0]


def test_todays_pilot_draws_are_pinned():
    """Two data sets of 2 seeds of a 2 x 3 pilot as power() draws them since audit s34 powerstream34, on which the
    quoted pilot figures are measured since audit s36 (calib36); the draws before it (the retired
    ``former_pilot_draws`` patch) were [[-0.67, -0.67, -0.42, -0.3, ...], ...]. A range's data sets are its own."""
    study = _study()
    today = [[-1.06, -1.06, -0.42, -0.07, -0.35, 0.23, -1.48, 1.5, 0.48, 0.48, -1.66, -1.66],
             [-0.67, -0.28, -0.3, -0.3, 3.32, 3.32, 1.5, 1.5, 0.48, -0.24, -1.66, -0.51]]
    assert study.source.draws(study.root, 2, 0, 2).round(2).tolist() == today
    assert study.source.draws(study.root, 2, 1, 2).round(2).tolist() == today[1:]


def test_task_table_prints_no_rounded_spread_as_exact():
    """A task table's ± spread of 36,055,513 (2 significant digits, scientific notation by fmt.signif) written out
    in fixed notation beside spreads printed to every integer digit reads '36000000': as exact as '125831' beside
    it. Before msg32 it read '3.6e+07'; the unscaled sweep prints every integer digit (3467). Fixed in audit s35
    fix35 (fmt.as_fixed writes fixed only where no rounded integer digit reads as exact)."""
    import rlstats

    df = pd.DataFrame({"agent": ["A"] * 6 + ["B"] * 6, "task": (["x"] * 3 + ["y"] * 3) * 2,
                       "score": [1e5, 2e5, 3.5e5, 0, 2e7, 7e7, 1.1e5, 2.1e5, 3.2e5, 1e6, 2e6, 3e6]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.task_table(df, "score ~ agent | task", normalize=False, rng=1)
    sd = res.tidy().set_index(["agent", "task"]).loc[("A", "y"), "std_dev"]
    assert round(sd) == 36055513 and "125831" in str(res)
    assert "36000000" not in str(res) and ("36055513" in str(res) or "3.6e+07" in str(res))
