"""Audit s23 (logs23), as a user of ``rlstats.read_logs`` with real training logs (``../shared/data/logs/sb3_classic``,
marl-eval's published JSON) and the damaged copies a real folder of runs holds: every row the reader merges, drops or
keeps checked against a plain ``csv`` / ``json`` reading of the same text. Each test is a minimal reproducer of one
defect found; its docstring says what was seen."""

from __future__ import annotations

import pytest

import rlstats
from rlstats.errors import LogReadError

HEADER = '#{"t_start": 1700000000.0, "env_id": "CartPole-v1"}\n'


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _notes(frame):
    return list(frame.attrs["rlstats_notes"])


@pytest.mark.parametrize("length, said", [("1e19", r"1e\+19 in data row 2 \(line 4 of the file\), more steps than any "
                                                     r"run takes \(2\*\*53 or more\)"),
                                          ("inf", r"inf in data row 2 \(line 4 of the file\), more steps than any "
                                                  r"run takes"),
                                          ("2.5", r"2\.5 in data row 2 \(line 4 of the file\), not a whole number"),
                                          ("9007199254740990", r"9\.0072e\+15 in data row 2 \(line 4 of the file\), "
                                                               r"which brings the run's steps to 2\*\*53 or more")])
def test_a_monitor_length_that_is_no_whole_count_of_steps_is_corrupt(tmp_path, length, said):
    """An episode length ``l`` of 1e19 (a corrupt cell) made the cumulative step -9,223,372,036,854,775,808 (numpy's
    'invalid value encountered in cast'): the run's rows came out of order, the episode after it was dropped as
    'logged again at a step already logged' and the file was said to have steps going back. A length 2.5 became a
    step 12 (12.5 cut), without a word. SB3 writes whole lengths; anything else is a corrupt line, named."""
    _write(tmp_path / "ppo" / "s0" / "0.monitor.csv", HEADER + f"r,l,t\n10,10,0.1\n20,{length},0.2\n30,10,0.3\n")
    with pytest.raises(LogReadError, match=r"column 'l' \(the episode length\) holds " + said):
        rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)
    # mended, the steps are the cumulative lengths and no row is dropped
    _write(tmp_path / "ppo" / "s0" / "0.monitor.csv", HEADER + "r,l,t\n10,10,0.1\n20,7,0.2\n30,10,0.3\n")
    frame = rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)
    assert frame["step"].tolist() == [10, 17, 27] and frame["r"].tolist() == [10.0, 20.0, 30.0]


def test_a_monitor_row_without_a_time_is_corrupt(tmp_path):
    """Of a run of two monitor.csv files (a VecEnv), an episode whose ``t`` cell was empty was put after every other
    episode (numpy sorts NaN last): its return 20 read at step 60, the last, where it ended third (step 30), and the
    note blamed 'a restart appended to the same file'. The time orders the environments' episodes: without it the
    step of every later row is unknown, so the file is corrupt, its line named."""
    _write(tmp_path / "ppo" / "s0" / "0.monitor.csv", HEADER + "r,l,t\n10,10,0.1\n20,10,\n30,10,0.3\n")
    _write(tmp_path / "ppo" / "s0" / "1.monitor.csv", HEADER + "r,l,t\n11,10,0.15\n21,10,0.25\n31,10,0.35\n")
    with pytest.raises(LogReadError, match=r"0\.monitor\.csv: corrupt: column 't' \(the episode's end, in seconds "
                                           r"since t_start\) holds no value in data row 2 \(line 4 of the file\)"):
        rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)
    # with its time, the third episode of the run (return 20) ends at step 30
    _write(tmp_path / "ppo" / "s0" / "0.monitor.csv", HEADER + "r,l,t\n10,10,0.1\n20,10,0.2\n30,10,0.3\n")
    frame = rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)
    assert frame["step"].tolist() == [10, 20, 30, 40, 50, 60]
    assert frame["r"].tolist() == [10.0, 11.0, 20.0, 21.0, 30.0, 31.0]
