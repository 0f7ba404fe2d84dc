"""Audit s36 (small36): left-over defects of earlier sessions.

1. The note on runs copied between two tasks' cells (or two agents' on one task) offered ``subset=`` leaving out a
   whole agent x task cell, after which a method comparing every agent on every task (bootstrap, percentiles, ...)
   refused the call for want of ``na_action="drop"``, which the hint did not say: following it verbatim failed.
"""

import io
import re
import shlex
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.cli import main
from rlstats.design import COPIED_ACROSS


def _copied_frame():
    """Three agents on five tasks, 10 runs each; 6 of a0's runs on t1 repeat its runs on t0 (audit s26's frame)."""
    rng = np.random.default_rng(5)
    n = 5 * 3 * 10
    frame = pd.DataFrame({"task": np.repeat([f"t{i}" for i in range(5)], 30),
                          "agent": np.tile(np.repeat([f"a{j}" for j in range(3)], 10), 5),
                          "seed": np.tile(np.arange(10), 15), "score": np.round(rng.normal(1000, 300, n), 3)})
    source = frame.loc[(frame["task"] == "t0") & (frame["agent"] == "a0"), "score"].to_numpy()
    target = np.flatnonzero(((frame["task"] == "t1") & (frame["agent"] == "a0")).to_numpy())[:6]
    frame.loc[target, "score"] = source[:6]
    return frame


HINTED = ("leave out a0's 10 runs on t0 if those are the copies (subset=\"~(agent == 'a0' & task == 't0')\" and "
          "na_action=\"drop\", which leaves out t0 where the method compares every agent on every task)")


@pytest.mark.parametrize("method", ["bootstrap", "percentiles", "skillings_mack"])
def test_the_copied_runs_hint_runs_as_given(method):
    frame = _copied_frame()
    options = {"n_resamples": 100} if method == "bootstrap" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rlstats.compare(frame, "score ~ agent | task", method=method, rng=1, **options)
    note, = [n for n in result.notes if COPIED_ACROSS in n]
    assert note.endswith(HINTED)
    subset, na_action = re.search(r'\(subset="(.+?)" and na_action="(\w+)"', note).groups()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = rlstats.compare(frame, "score ~ agent | task", method=method, rng=1, subset=subset,
                               na_action=na_action, **options)
    assert not [n for n in kept.notes if COPIED_ACROSS in n]
    if method == "skillings_mack":  # a method reading incomplete designs: na_action="drop" changes nothing
        assert str(kept) == str(rlstats.compare(frame, "score ~ agent | task", rng=1, subset=subset))
    else:  # t0 left out with a note
        assert any(n.startswith("1 task left out because some agent has no runs there") for n in kept.notes)


def test_the_copied_runs_hint_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "copied.csv"
    _copied_frame().to_csv(path, index=False)
    argv = ["compare", str(path), "score ~ agent | task", "--method", "percentiles"]
    assert main(argv) == 0
    text = " ".join(capsys.readouterr().out.split())
    way = ("leave out a0's 10 runs on t0 if those are the copies (-o \"subset=~(agent == 'a0' & task == 't0')\" and "
           "-o na_action=drop, which leaves out t0 where the method compares every agent on every task)")
    assert way in text
    words = shlex.split(way.split("copies (")[1].split(", which")[0].replace(" and ", " "))
    assert main(argv + words) == 0
    text = capsys.readouterr().out
    assert COPIED_ACROSS not in text and "1 task left out because some agent has no runs there" in text
