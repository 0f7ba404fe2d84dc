"""Audit s26 review26b: review of docs26, hall26 and polish26 (main 9a340cf2..d9f709ea).

``Formula.normal_form`` (a power study's pilot named by its formula in its settings and ``to_dict()``) must be a
formula that reads back as the same one. (docs26's map test passed on a module's name found inside another file's
name: it is tightened in ``tests/test_audit_s26_docs26.py``, where the map's check lives.)
"""

from __future__ import annotations

import pytest

from rlstats.formula import parse


FIELDS = ("response", "groups", "blocks", "replicate", "crossed", "outer", "random")


def _read_back(text):
    """The fields of ``text``'s formula and of its normal form read back."""
    first = parse(text)
    again = parse(first.normal_form)
    return {f: getattr(first, f) for f in FIELDS}, {f: getattr(again, f) for f in FIELDS}


# normal_form dropped the back-quotes ("my score ~ the agent | task name/seed", a FormulaError read back; a power
# study's to_dict() recorded its pilot so) and lme4's intercepts beyond '+ (1 | task)' ("score ~ agent | task")
@pytest.mark.parametrize("text, normal", [
    ("`my score` ~ `the agent` | `task name`/seed", "`my score` ~ `the agent` | `task name`/seed"),
    ("score~agent|`task-name`:`run id`", "score ~ agent | `task-name`:`run id`"),
    ("log(`my score` + 1)~agent|`class`", "log(`my score` + 1) ~ agent | `class`"),
    ("score ~ agent + (1 | task) + (1|task:agent)", "score ~ agent + (1 | task) + (1 | task:agent)"),
    ("score ~ agent + (1 | `task name`) + (1 | `task name`:agent)",
     "score ~ agent + (1 | `task name`) + (1 | `task name`:agent)"),
    ("score~agent|task/run/seed", "score ~ agent | task/run/seed"),
    ("score ~ agent + (1 | task)", "score ~ agent | task"),  # means the same
])
def test_normal_form_reads_back_as_the_formula(text, normal):
    assert parse(text).normal_form == normal
    first, again = _read_back(text)
    if text.endswith("+ (1 | task)"):
        first["random"] = ()  # lme4's one intercept of the blocks is '| task'
    assert first == again
