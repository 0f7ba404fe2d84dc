"""Audit s29 (copies29): the note on copied runs on a deterministic task's discounted returns at full precision.

Found: discounted returns (``gamma**k`` of an episode's length, sums of two such rewards, ``r * gamma**k``; and, new
here, the same cut at a step cap, where the runs reaching it share one return) take few values on no decimal grid:
``copied_runs`` read their resolution as 8 significant digits, and where the few pairs of runs of other cells of
the judged cells' task happened not to tie, the ties measured on the data as 0, so that two chance repeats within a
cell of 5 runs, or two scores shared by two cells, were stated at chances near 1e-9.  Measured on main
(tests/reference/copied_runs_false_alarms.py, kinds "discounted" and "discounted capped" at step 0, full precision,
40 data sets a setting, 1,080 a kind): 113 and 51 data sets noted.
"""

from pathlib import Path

import pytest


def _script():
    from conftest import script_module
    return script_module(Path(__file__).parent / "reference" / "copied_runs_false_alarms.py",
                         "copied_runs_false_alarms")


@pytest.mark.xfail(strict=True, reason="copies29: chance repeats of few discounted returns at full precision noted")
def test_no_false_alarm_on_discounted_returns_reduced():
    """3 and 5 runs, 2 agents, 5 and 26 tasks, 10 data sets a setting, both kinds at full precision (80 data sets):
    main's code noted 21 (within 12, across 9, tasks jointly 4; run with main on the path)."""
    table = _script().false_alarms(10, runs=(3, 5), agents=(2,), tasks=(5, 26),
                                   kinds=("discounted", "discounted capped"), steps=(0.0,))
    assert int(table["data sets"].sum()) == 80 and int(table["any"].sum()) == 0
