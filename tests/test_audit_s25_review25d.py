"""Audit s25 review25d: review of band25 (curves' mean bands widened for the runs' skew) and vocab25 (LaTeX labels).

Found: the LaTeX survey of test_audit_s25_vocab25.py built its cases from test_metamorphic.CASES at import, which
test_audit_s24_meta24 (and test_audit_s25_meta25) extend when they are imported: run alone
(``pytest tests/test_audit_s25_vocab25.py``) the survey held 70 cases (default and slow), after
test_audit_s24_meta24 (the full run's order) 19 more (its option paths), so what it checked depended on which files
ran. test_metamorphic's own parametrisation is fixed when it is first imported (before any extension), the same
either way.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

_TESTS = pathlib.Path(__file__).parent


def _survey_cases():
    """The vocab25 survey's case names in a fresh interpreter: imported alone, then again (reloaded, its cases made
    afresh) after test_audit_s24_meta24 has extended test_metamorphic's cases. One interpreter for both: a second
    cost 1.2 s of CPU to start, and a reload runs the module's code as an import after meta24's would."""
    code = ("import importlib, json, sys; sys.path.insert(0, sys.argv[1])\n"
            "import test_audit_s25_vocab25 as v\n"
            "alone = sorted(set(v.CASES) | set(v.SLOW))\n"
            "import test_audit_s24_meta24\n"
            "v = importlib.reload(v)\n"
            "print(json.dumps([alone, sorted(set(v.CASES) | set(v.SLOW))]))")
    env = dict(os.environ, MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, "-c", code, str(_TESTS)], capture_output=True, text=True, env=env,
                         check=True, cwd=_TESTS.parent)
    return json.loads(out.stdout.splitlines()[-1])


def test_vocab_survey_cases_do_not_depend_on_import_order():
    """Alone and after test_audit_s24_meta24 the survey holds the same 89 cases (default and slow), meta24's 19
    among them (before: 70 alone)."""
    import test_audit_s24_meta24 as s24
    alone, after_meta24 = _survey_cases()
    assert set(s24.EXTRA) <= set(alone) and len(alone) == 89
    assert alone == after_meta24


@pytest.mark.parametrize("statistic", ["median", "iqm"])
def test_unwidened_option_says_it_changes_the_mean_only(statistic):
    """The median's or IQM's bands under bands="studentized_unwidened" are the default's, bit for bit, and a note
    says so (before: the option was taken without a word)."""
    import rlstats

    data = rlstats.datasets.simulate_curves(agents=2, tasks=4, seeds=5, steps=4, effect=0.5, rng=0)
    run = dict(step="step", statistic=statistic, n_resamples=100, rng=0, progress=False)
    old = rlstats.curves(data, "score ~ agent | task/seed", bands="studentized_unwidened", **run)
    new = rlstats.curves(data, "score ~ agent | task/seed", **run)
    assert np.array_equal(old.pointwise, new.pointwise, equal_nan=True)
    said = [n for n in old.notes if n not in new.notes]
    label = {"median": "median", "iqm": "IQM"}[statistic]
    assert said == [f"bands=\"studentized_unwidened\" changes the mean's bands only (their widening for the runs' "
                    f"skew since audit s25): the {label}'s bands are the default's, as bands=\"studentized\" gives them"]
