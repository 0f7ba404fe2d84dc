"""Audit s21 (left21b): a reviewer's leftovers: special files as inputs, normalize='s internal 'name' key."""
import os
import subprocess
import sys

import pytest

import rlstats
from conftest import cli_shell
from rlstats.errors import LogReadError, OptionError

F = "score ~ agent | task"


def _cli(*argv, cwd=None):
    return cli_shell(*argv, cwd=cwd)  # what `rlstats ARGS` prints, in this process


def _cli_child(*argv):
    """`python -m rlstats ARGS` in a child process, for a pipe as input: opening one that no process writes to would
    wait for ever, which the child's timeout ends."""
    return subprocess.run([sys.executable, "-m", "rlstats", *argv], capture_output=True, text=True, timeout=60)


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.csv"
    os.mkfifo(path)
    return path


def _runs(tmp_path):
    frame = rlstats.datasets.simulate(agents=2, tasks=3, seeds=2, rng=0)
    frame.to_csv(tmp_path / "runs.csv", index=False)
    return tmp_path / "runs.csv"


SPECIAL = "is not a regular file (a device, pipe or socket); give a table file"


def test_dev_null_as_the_data_file_is_not_a_regular_file():
    done = _cli("compare", "/dev/null", F)
    assert done.returncode == 2
    assert done.stderr.strip() == f"rlstats: error: /dev/null {SPECIAL}"


def test_a_fifo_as_the_reference_file_is_not_a_regular_file(tmp_path, fifo):
    done = _cli_child("compare", str(_runs(tmp_path)), F, "--method", "bootstrap", "-o", f"normalize={fifo}")
    assert done.returncode == 2
    assert done.stderr.strip() == f"rlstats: error: -o normalize={fifo}: {fifo} {SPECIAL}"


def test_read_logs_of_a_fifo_is_not_a_regular_file(fifo):
    with pytest.raises(LogReadError) as info:
        rlstats.read_logs(fifo)
    assert str(info.value) == (f"{fifo} is not a regular file (a device, pipe or socket); give the folder of runs "
                               "(or one log file)")


def test_normalize_name_key_is_refused():
    frame = rlstats.datasets.simulate(agents=2, tasks=3, seeds=2, rng=0)
    reference = frame.groupby("task", as_index=False)["score"].agg(low="min", high="max")
    with pytest.raises(OptionError) as info:
        rlstats.compare(frame, F, method="bootstrap", n_resamples=200, rng=0,
                        normalize={"reference": reference, "name": "atari100k_reference"})
    assert str(info.value) == ("normalize= as a dict takes the keys 'reference', 'low', 'high' and 'check_units'; "
                               "got 'name'")


def test_a_fifo_log_inside_a_folder_of_runs_is_never_opened(tmp_path):
    for agent in ("a", "b"):
        (tmp_path / agent / "t" / "seed_0").mkdir(parents=True)
    (tmp_path / "a" / "t" / "seed_0" / "progress.csv").write_text("step,eval/return\n0,1.0\n")
    os.mkfifo(tmp_path / "b" / "t" / "seed_0" / "progress.csv")  # opening it would block the read for ever
    with pytest.raises(LogReadError) as info:
        rlstats.read_logs(tmp_path, pattern="{agent}/{task}/seed_{seed}")
    assert str(info.value) == (f"{tmp_path}/b/t/seed_0/progress.csv is not a regular file (a device, pipe or "
                               "socket); move it out of the folder of runs, whose log files are all read")


def test_an_adastop_state_that_is_a_pipe(fifo):
    with pytest.raises(rlstats.errors.DesignError) as info:
        rlstats.AdaStop.load(fifo)
    assert str(info.value) == (f"{fifo} is not a regular file (a device, pipe or socket); give the JSON file "
                               "AdaStop.save wrote")
    done = _cli_child("adastop", "status", str(fifo))
    assert done.returncode == 2 and done.stderr.strip() == (
        f"rlstats: error: {fifo} is not a regular file (a device, pipe or socket); give the JSON state file written "
        "by rlstats adastop update")


def test_a_missing_file_is_still_not_found(tmp_path):
    done = _cli("compare", str(tmp_path / "nosuch.csv"), F)
    assert done.stderr.strip() == f"rlstats: error: file not found: {tmp_path}/nosuch.csv"


def test_normalize_name_key_is_refused_with_a_dataset_too():
    frame = rlstats.datasets.simulate(agents=2, tasks=3, seeds=2, rng=0)
    with pytest.raises(OptionError) as info:
        rlstats.compare(frame, F, method="bootstrap", n_resamples=200, rng=0,
                        normalize={"reference": "atari100k_reference", "name": "x"})
    assert str(info.value) == ("normalize= as a dict takes the keys 'reference', 'low', 'high' and 'check_units'; "
                               "got 'name'")


def test_the_command_line_refuses_a_name_key_and_still_names_its_file(tmp_path):
    frame = rlstats.datasets.simulate(agents=2, tasks=3, seeds=2, rng=0)
    frame.to_csv(tmp_path / "runs.csv", index=False)
    reference = frame.groupby("task", as_index=False)["score"].agg(random="min", human="max")
    reference["human"] += 1.0
    reference.to_csv(tmp_path / "ref.csv", index=False)
    done = _cli("compare", "runs.csv", F, "--method", "bootstrap", "-o", "normalize={'reference': 'ref.csv', "
                "'name': 'x'}", cwd=tmp_path)
    assert done.stderr.strip() == ("rlstats: error: -o normalize= as a dict takes the keys 'reference', 'low', "
                                   "'high' and 'check_units'; got 'name'")
    done = _cli("compare", "runs.csv", F, "--method", "bootstrap", "-o", "normalize=ref.csv", "-o",
                "n_resamples=200", cwd=tmp_path)
    assert done.returncode == 0 and "ref.csv" in done.stdout, done.stderr


def _two_sets(scale_heldout):
    """4 reported tasks and 4 fresh held-out tasks, each task's scores ranging over 1 (x ``scale_heldout`` on the
    fresh ones): alike within each set."""
    import numpy as np
    import pandas as pd

    def runs(tasks, scale):
        rows = [{"agent": agent, "task": task, "seed": seed, "score": scale * (shift * (1 + 0.1 * k) + 0.5 * seed + 0.1 * k)}
                for k, task in enumerate(tasks) for agent, shift in (("a", 0.5), ("b", 0.0)) for seed in (0, 1)]
        return pd.DataFrame(rows)

    return runs(["r1", "r2", "r3", "r4"], 1.0), runs(["h1", "h2", "h3", "h4"], scale_heldout), np


def test_selection_check_cautions_scales_apart_between_reported_and_fresh_heldout():
    reported, fresh, _ = _two_sets(20.0)
    with pytest.warns(UserWarning, match="aggregated on their own scales"):
        res = rlstats.selection.selection_check(reported, F, treatment="a", baseline="b", heldout=fresh,
                                                  reported=["r1", "r2", "r3", "r4"], rng=0)
    # each task's range is 1 + 0.05 k (k = 0..3) times its set's scale: h4's 23 over the median of the other seven
    # (1, 1.05, 1.1, 1.15, 20, 21, 22) is 20; within either set the ratio is at most 1.15
    assert res.notes == ("scores of 8 tasks were aggregated on their own scales (the range of the scores of 'h4', "
                         "largest minus smallest over both agents' runs, is 20 times the median of the other tasks' "
                         "ranges), so the tasks with wide ranges decide the result; normalize= puts them on one "
                         "scale, or pass normalize=False if they are on one scale already",)


def test_selection_check_sets_on_one_scale_are_not_cautioned():
    import warnings

    reported, fresh, _ = _two_sets(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = rlstats.selection.selection_check(reported, F, treatment="a", baseline="b", heldout=fresh,
                                                reported=["r1", "r2", "r3", "r4"], rng=0)
    assert not any("own scales" in note for note in res.notes)
    # a common unit (x 1000 on both sets) changes nothing of the caution, nor of the p-value
    big, big_fresh, _ = _two_sets(20.0)
    big["score"] *= 1000.0
    big_fresh["score"] *= 1000.0
    with pytest.warns(UserWarning, match="is 20 times the median"):
        scaled = rlstats.selection.selection_check(big, F, treatment="a", baseline="b", heldout=big_fresh,
                                                   reported=["r1", "r2", "r3", "r4"], rng=0)
    small, small_fresh, _ = _two_sets(20.0)
    with pytest.warns(UserWarning, match="is 20 times the median"):
        plain = rlstats.selection.selection_check(small, F, treatment="a", baseline="b", heldout=small_fresh,
                                                  reported=["r1", "r2", "r3", "r4"], rng=0)
    assert scaled.pvalue == pytest.approx(plain.pvalue) and plain.pvalue == pytest.approx(1.0)
