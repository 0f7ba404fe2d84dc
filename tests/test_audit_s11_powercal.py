"""Audit s11 powercal: the calibration table's rows of ``rlstats.power("bootstrap")``'s default (``power.bootstrap``).

Audited: power("bootstrap") plans bootstrap()'s default reading (two agents' studentised intervals at level
1 - alpha do not overlap) since session 10; its size and its agreement with bootstrap() were measured in
``tests/test_audit_s10_power.py`` on simulate()'s families, but the table had no rows for it. The rows
(``tests/reference/power_bootstrap.py``) measure, on the table's grid and families (a pilot of each family given to
power(design=..., resample="pooled")), its size with no difference and the share of data sets on which its decision
is the one bootstrap() makes called as a user calls it (its defaults, a seed of the user's).
"""

import math
import pathlib
import runpy
import warnings

import numpy as np
import pytest

import rlstats
from rlstats import calibration

REFERENCE = pathlib.Path(__file__).parent / "reference"
POWER = runpy.run_path(str(REFERENCE / "power_bootstrap.py"))
CALIBRATE = runpy.run_path(str(REFERENCE / "calibrate.py"))


def _prose_and_notes(agents):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.power("bootstrap", agents=agents, effect=0.0, tasks=5, seeds=[3], n_sim=2, n_resamples=50,
                            rng=0, progress=False)
    return res._prose(), " ".join(res.notes)


def test_the_rule_is_not_called_conservative_where_it_reads_many_pairs():
    """power("bootstrap") rejects when any two agents' intervals do not overlap, and said for any number of agents
    that the rule is conservative, "so expect a rejection rate below alpha when nothing differs". With 8 agents it
    reads 28 pairs: with no difference it rejected 0.092 of 240 data sets at 8 agents x 26 tasks x 10 normal runs
    (pilot of the table's normal family, 4 design draws; 0.167 of 60 in the worst draw), and 5 of the 32 data sets
    of the table's size row at 8 x 5 x 10 normal runs, where bootstrap() separated as often: the plan is that of
    the analysis, its sentence was not. With two agents the sentence holds (0-0.03 in the table's rows)."""
    prose, notes = _prose_and_notes(8)
    assert "expected below alpha" not in prose and "any of the 28 pairs" in prose
    assert "with two agents" in notes.lower() and "can exceed alpha" in notes
    prose, notes = _prose_and_notes(2)
    assert "expected below alpha" in prose and "28 pairs" not in prose
