"""Review s34 (rtfix34b): the far-apart note where its rows were measured alone, and two command-line refusals.

HIGH-1: ``calibration.tasks_apart`` sent 3 or more tasks apart to the far-apart rows (measured on 3 tasks), whose note
says the pooled IQM's trim "cuts within the outer tasks alone and is biased". With 4 tasks apart floor(N / 4) trims
the two outer tasks as the population's IQM does. Measured here (the studentised bootstrap IQM interval, 1,000
resamples, 400 intervals each, the far-apart design's offsets 0, 3, 12 and scales 0.3, 0.6, 3, a 4th task at 30 sd 1
and a 5th at 45 sd 1): 3 x 5 normal 0.885 (the table's 0.853), 4 x 5 normal 0.960, 5 x 5 normal 0.970, 5 x 3 normal
0.953, 5 x 5 capped 0.988: the note fires on exactly 3 tasks with runs.

MED: ``rlstats compare f.csv --formula '...'`` suggested "-o formula=", which is refused (formula is positional).
LOW: ``rlstats power --normalize ref.csv`` with wrong columns said "has no column 'random', 'human'" without naming
--normalize.
"""

from __future__ import annotations

import pathlib
import runpy
import shlex

import numpy as np
import pytest

import rlstats
from rlstats.cli import main

REFERENCE = pathlib.Path(__file__).parent / "reference"
FAR = runpy.run_path(str(REFERENCE / "coverage_far_apart.py"))


def _apart_data(offset, scale, runs, agents=2, seed=0):
    designs = FAR["designs"]
    offset, scale = np.asarray(offset, float), np.asarray(scale, float)
    deviation = designs.deviations(np.random.default_rng(seed), "normal", (agents, offset.size, runs))
    return FAR["_frame"](designs.scores("normal", deviation, 0.0, offset[None, :, None], scale[None, :, None]))




def test_four_and_five_tasks_apart_no_far_apart_note():
    """4 x 5 and 5 x 5 runs apart (every agent's tasks' ranges disjoint): the grid's note, not the far-apart rows'."""
    from rlstats import calibration

    for offset, scale in (([0, 3, 12, 30], [0.3, 0.6, 3, 1]), ([0, 3, 12, 30, 45], [0.3, 0.6, 3, 1, 1])):
        data = _apart_data(offset, scale, 5)
        low = data.groupby(["agent", "task"]).score.min().unstack().to_numpy()
        high = data.groupby(["agent", "task"]).score.max().unstack().to_numpy()
        assert (np.diff(np.sort(low, axis=1), axis=1) > 0).all()
        assert (low[:, 1:] > high[:, :-1]).all()  # the tasks' runs lie apart
        assert not calibration.tasks_apart(low, high).any()
        if len(offset) == 4:
            res = rlstats.bootstrap(data, "score ~ agent | task", metrics=("iqm",), n_resamples=100,
                                    normalize=False, rng=0)
            assert not any("lie apart" in n for n in res.notes)
            assert any(n.startswith("5 runs per task are few for studentized intervals of the IQM") for n in res.notes)
    # the measured design, 3 tasks, still told
    res = rlstats.bootstrap(_apart_data([0, 3, 12], [0.3, 0.6, 3], 5), "score ~ agent | task", metrics=("iqm",),
                            n_resamples=100, normalize=False, rng=0)
    assert any(n.startswith("the 3 tasks' runs lie apart") for n in res.notes)


def test_compare_formula_flag_named_positional(tmp_path, capsys):
    path = tmp_path / "f.csv"
    path.write_text("agent,task,seed,score\na,t,0,1\n")
    with pytest.raises(SystemExit):
        main(["compare", str(path), "--formula", "score ~ agent | task"])
    err = capsys.readouterr().err
    assert "-o formula=" not in err
    # the file typed kept in the way on (review s35 rv35a)
    assert (f"FORMULA is the second positional argument: rlstats compare {shlex.quote(str(path))} "
            "'score ~ agent | task'" in err), err
    with pytest.raises(SystemExit):
        main(["compare", str(path), "score ~ agent | task", "--file", "runs.csv"])
    err = capsys.readouterr().err
    assert ("FILE is the first positional argument: rlstats compare runs.csv 'score ~ agent | task'; see rlstats "
            "compare --help" in err), err


def test_power_normalize_wrong_columns_said_of_the_flag(tmp_path, capsys):
    pilot, ref = tmp_path / "p.csv", tmp_path / "ref.csv"
    pilot.write_text("agent,task,seed,score\n" + "".join(f"{a},{t},{s},{i + s}\n" for i, (a, t) in
                                                         enumerate([("a", "t"), ("a", "u"), ("b", "t"), ("b", "u")])
                                                         for s in (0, 1)))
    ref.write_text("task,lo,hi\nt,0,1\nu,0,1\n")
    assert main(["power", "bootstrap", "--pilot", str(pilot), "--formula", "score ~ agent | task", "--normalize",
                 str(ref), "--seeds", "2", "--n-sim", "10"]) == 2
    err = capsys.readouterr().err
    assert f"error: --normalize {ref}: the reference has no columns 'random', 'human'; its columns are" in err, err
