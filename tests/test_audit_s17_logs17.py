"""Audit s17 (logs17), as a user of ``rlstats.read_logs`` and ``rlstats read-logs`` on the shared Stable-Baselines3
logs (``../shared/data/logs/sb3_classic``: evaluations.npz, TensorBoard and monitor.csv, each checked against numpy's
and pandas' own reading of the files), marl-eval's published JSON, and the same folders as ``file://`` and
``memory://`` URLs. Every note and printed line was read against the frame. Each test is a minimal reproducer of one
defect found; its docstring says what was seen."""

from __future__ import annotations

import json
import os
import shutil
import sys
import warnings

import pandas as pd
import pytest

import rlstats
from rlstats.errors import LogReadError

from conftest import SHARED_DATA

SB3 = SHARED_DATA / "logs" / "sb3_classic"
PATTERN = "{agent}/{task}/seed_{seed}"


def _needs_sb3():
    if not SB3.is_dir():
        pytest.skip(f"the SB3 logs are not at {SB3}")


def test_the_files_read_are_the_files_of_the_runs_read(sb3_run_missing_a_file):
    """With one of seed 0's four monitor.csv files cut mid-line, ``on_error="skip"`` leaves seed 0 out whole (its
    steps count all four files' episodes), and the frame's rows come from seed 1's four files; the note said "read 1
    run from 6 Stable-Baselines3 monitor.csv files" (8 listed less the two problems, one of them a run, not a file),
    and the read log's "8 ... files, 2 with problems" counted that run as a file."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = rlstats.read_logs(sb3_run_missing_a_file, "seed_{seed}", format="sb3_monitor", on_error="skip",
                                  progress=False)
    assert frame["source"].nunique() == 4
    assert frame.attrs["rlstats_notes"][0].startswith("read 1 run from 4 Stable-Baselines3 monitor.csv files,")
    first = str(frame.attrs["read_log"]).splitlines()[0]
    assert "8 Stable-Baselines3 monitor.csv files under" in first and ", 1 with problems, 1 run left out," in first


def _scandir_refusing(folder_name):
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path).rstrip("/").endswith("/" + folder_name):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    return scandir


@pytest.mark.parametrize("url", [False, True])
def test_a_folder_that_cannot_be_listed_is_an_error(url, monkeypatch):
    """A folder of runs the user may not read (``chmod 000 A2C``; simulated here, as the tests may run as root): the
    local walk (os.walk) and fsspec's (``file://``) both skipped it silently, and the frame held 9 runs of DQN and PPO
    under "read 9 runs from 9 ... files", the 6 runs of A2C gone without a note."""
    _needs_sb3()
    if url:
        pytest.importorskip("fsspec")
    monkeypatch.setattr(os, "scandir", _scandir_refusing("A2C"))
    with pytest.raises(LogReadError, match=r"cannot list the folder .*/A2C under .*: Permission denied; its runs would be left out"):
        rlstats.read_logs(f"file://{SB3}" if url else SB3, PATTERN, format="sb3_eval", progress=False)


@pytest.mark.parametrize("url", [False, True])
def test_a_symlinked_folder_not_followed_is_named(tmp_path, url):
    """Run folders gathered by symbolic links (``runs/PPO -> /scratch/.../PPO``): neither the local walk nor fsspec's
    follows a link to a folder, so ``read_logs`` read the one copied run and said "read 1 run from 1 ... file", the
    linked runs gone without a word (and a folder of links alone was "no training logs under runs"). They are not
    followed (a W&B folder's ``latest-run`` link would read a run twice), but named, in the notes and the error."""
    _needs_sb3()
    if url:
        pytest.importorskip("fsspec")
    runs = tmp_path / "runs"
    (runs / "PPO" / "CartPole-v1").mkdir(parents=True)
    shutil.copytree(SB3 / "PPO" / "CartPole-v1" / "seed_2", runs / "PPO" / "CartPole-v1" / "seed_2")
    (runs / "PPO" / "CartPole-v1" / "seed_0").symlink_to(SB3 / "PPO" / "CartPole-v1" / "seed_0")
    (runs / "A2C").symlink_to(SB3 / "A2C")
    path = f"file://{runs}" if url else runs
    frame = rlstats.read_logs(path, PATTERN, format="sb3_eval", progress=False)
    assert frame["seed"].unique().tolist() == [2]
    note = [n for n in frame.attrs["rlstats_notes"] if "symbolic link" in n]
    assert note == ["2 folders under symbolic links were not followed, their files not read (give a link's target "
                    "as a folder of its own to read it): A2C, PPO/CartPole-v1/seed_0"]
    assert frame.attrs["read_log"].unfollowed == ("A2C", "PPO/CartPole-v1/seed_0")
    shutil.rmtree(runs / "PPO")
    with pytest.raises(LogReadError, match=r"no training logs under .*; 1 folder under a symbolic link was not "
                                           r"followed: A2C"):
        rlstats.read_logs(path, PATTERN, format="sb3_eval", progress=False)


@pytest.mark.parametrize("pattern, typo, meant", [("{agent}/{task}/seed_{sed}", "sed", "seed"),
                                                  ("{agnet}/{task}/seed_{seed}", "agnet", "agent")])
def test_a_misspelt_field_of_the_pattern_is_warned(pattern, typo, meant):
    """``pattern="{agent}/{task}/seed_{sed}"`` read the shared logs into a frame with a column ``sed`` and no
    ``seed``, with no warning or note: the typo surfaced only later, in a formula's ``| task/seed``, or never (a
    ``summarize_runs`` over ``run``). It is now a warning naming the field and the one meant."""
    _needs_sb3()
    with pytest.warns(rlstats.RlstatsWarning, match=rf"pattern field {{{typo}}} .* did you mean {{{meant}}}"):
        frame = rlstats.read_logs(SB3, pattern, format="sb3_eval", progress=False)
    assert typo in frame.columns and meant not in frame.columns
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a field named on purpose, far from agent, task and seed: no warning
        rlstats.read_logs(SB3, "{algo}/{env}/seed_{seed}", format="sb3_eval", progress=False)


def test_a_deep_folder_is_walked_without_recursion(tmp_path):
    """A log 1,100 folders deep (a path of 2,200 characters, within Linux's 4,096): the local walk (os.walk, recursive
    under Python 3.11) raised a bare RecursionError, where the same folder as a ``file://`` URL was read. Here 400
    folders deep under a recursion limit 250 frames above the test's own (os.walk needs a frame a level), for speed."""
    depth, made, here = 400, 0, os.open(tmp_path, os.O_RDONLY)
    frames, frame = 0, sys._getframe()
    while frame is not None:
        frames, frame = frames + 1, frame.f_back
    limit = sys.getrecursionlimit()
    try:  # made and removed a level at a time, by descriptor: shutil.rmtree (pytest's clean-up) would recurse
        for made in range(1, depth + 1):
            os.mkdir("a", dir_fd=here)
            here, parent = os.open("a", os.O_RDONLY, dir_fd=here), here
            os.close(parent)
        log = os.open("progress.csv", os.O_WRONLY | os.O_CREAT, dir_fd=here)
        os.write(log, b"step,eval/return\n1,1.0\n2,2.0\n")
        os.close(log)
        sys.setrecursionlimit(frames + 250)
        read = rlstats.read_logs(tmp_path, progress=False)
    finally:
        sys.setrecursionlimit(limit)
        if "progress.csv" in os.listdir(here):
            os.remove("progress.csv", dir_fd=here)
        for _ in range(made):
            here, child = os.open("..", os.O_RDONLY, dir_fd=here), here
            os.close(child)
            os.rmdir("a", dir_fd=here)
        os.close(here)
    assert read["eval/return"].tolist() == [1.0, 2.0]
    assert read["run"].unique().tolist() == ["/".join(["a"] * depth)]


MARL_EVAL = (SHARED_DATA / "raw" / "instadeepai" / "marl-eval" / "5675ad67e8eeb7450bbbe827883849a938b27d80" / "tests"
             / "mock_data_test.json")


def test_marl_eval_evaluations_in_another_key_order_read_the_same(tmp_path):
    """A JSON object's keys carry no order: marl-eval's published test file with each run's evaluations written
    ``STEP_3, STEP_2, STEP_1`` (as ``json.dump(sort_keys=True)`` writes ``step_10`` before ``step_2``) gave the same
    rows, but the note "18 log files with steps that go back (a restart appended to the same file?); ... the attempts'
    values interleaved": one file, no restart, nothing interleaved."""
    if not MARL_EVAL.is_file():
        pytest.skip(f"marl-eval's test file is not at {MARL_EVAL}")
    data = json.loads(MARL_EVAL.read_text())
    for tasks in data.values():
        for algorithms in tasks.values():
            for runs in algorithms.values():
                for run, logged in runs.items():
                    runs[run] = dict(reversed(list(logged.items())))
    (tmp_path / "metrics.json").write_text(json.dumps(data))
    expected = rlstats.read_logs(MARL_EVAL, format="marl_eval", progress=False)
    frame = rlstats.read_logs(tmp_path / "metrics.json", progress=False)
    pd.testing.assert_frame_equal(frame.drop(columns="source"), expected.drop(columns="source"))
    assert frame.attrs["rlstats_notes"] == expected.attrs["rlstats_notes"]


def test_a_file_of_several_runs_whose_steps_go_back_is_counted_once(tmp_path):
    """A W&B chart export whose Step column goes back (a run restarted and its history exported whole) holds two
    runs: the note said "2 log files with steps that go back" of the one file read."""
    (tmp_path / "export.csv").write_text("Step,ppo-hopper-1 - eval/return,ppo-hopper-2 - eval/return\n"
                                         "1,1.0,2.0\n2,1.5,2.5\n1,9.0,9.0\n3,2.0,3.0\n")
    frame = rlstats.read_logs(tmp_path, "{agent}-{task}-{seed}", progress=False)
    assert frame["seed"].tolist() == [1, 1, 1, 2, 2, 2]
    assert any(note.startswith("1 log file with steps that go back") for note in frame.attrs["rlstats_notes"])


def _wandb_api(*runs):
    """A stand-in for ``wandb.Api()``: runs of (id, seed, first step, last step, offset of the values)."""
    from types import SimpleNamespace

    def run(identity, seed, first, last, offset):
        history = [{"_step": s, "_timestamp": 1e9 + offset + s, "return": offset + s} for s in range(first, last + 1)]
        return SimpleNamespace(id=identity, name=identity, group="PPO", config={"env_id": "CartPole-v1", "seed": seed},
                               scan_history=lambda keys=None, **_: iter(history))

    listed = [run(*r) for r in runs]
    return SimpleNamespace(runs=lambda path, filters=None, **_: listed)


WANDB_FIELDS = {"agent": "group", "task": "env_id", "seed": "seed"}


def test_read_wandb_sorts_its_runs_as_read_logs_does():
    """read_wandb's frame kept the order the API listed the runs in (seeds 10, 2, 1 as listed), where read_logs, whose
    frame read_wandb's docstring says it is, sorts runs by their fields, numbers as numbers (1, 2, 10): the same
    project read twice could give two frames."""
    listed = [("c", 10, 0, 2, 0), ("b", 2, 0, 2, 0), ("a", 1, 0, 2, 0)]
    frames = [rlstats.read_wandb("me/p", keys="return", fields=WANDB_FIELDS, progress=False, api=_wandb_api(*runs))
              for runs in (listed, listed[::-1])]
    assert frames[0]["seed"].tolist() == [1, 1, 1, 2, 2, 2, 10, 10, 10]
    pd.testing.assert_frame_equal(frames[0], frames[1])


def test_read_wandb_refuses_two_runs_it_would_read_as_one():
    """Two W&B runs of one seed (a crashed run and its rerun, or a run resumed as a new W&B run) were merged into one
    run: the rerun's values replaced the first's under "3 values logged again at a step already logged in the same
    run" (two runs), and a resumed one was joined to it under "read 1 runs", 2 W&B runs read, without a word."""
    for second in (("a2", 0, 0, 2, 100), ("a2", 0, 3, 4, 100)):
        with pytest.raises(rlstats.OptionError, match=r"W&B runs 'a' \(wandb:me/p/a\) and 'a2' \(wandb:me/p/a2\) have "
                                                      r"the same agent='PPO', task='CartPole-v1', seed=0"):
            rlstats.read_wandb("me/p", keys="return", fields=WANDB_FIELDS, progress=False,
                               api=_wandb_api(("a", 0, 0, 2, 0), second))


def test_read_wandb_notes_count_in_words_and_a_misspelt_field_is_warned():
    """"read 1 runs of W&B project" and "1 runs did not match the pattern"; ``fields={"sed": "seed"}`` passed
    without the warning read_logs gives a misspelt pattern field."""
    api = _wandb_api(("a", 0, 0, 2, 0), ("x", 1, 0, 2, 0))
    frame = rlstats.read_wandb("me/p", keys="return", pattern=lambda name: {"seed": 0} if name == "a" else None,
                               progress=False, api=api)
    notes = frame.attrs["rlstats_notes"]
    assert notes[0].startswith("read 1 run of W&B project 'me/p'")
    assert any(note.startswith("1 run did not match the pattern") for note in notes)
    with pytest.warns(rlstats.RlstatsWarning, match=r"did you mean \{seed\}"):
        rlstats.read_wandb("me/p", keys="return", fields={"agent": "group", "sed": "seed"}, progress=False, api=api)


def test_smoothing_past_an_infinite_value_is_the_window_mean(tmp_path):
    """``smooth=2`` over a run that logged ``inf`` once (a diverged evaluation, kept as a row and counted in the
    notes): every smoothed value after it became NaN (running sums inf - inf), windows that never hold it too, with
    a RuntimeWarning from numpy and no note; the note still said 1 value was infinite, of 2 inf and 3 NaN."""
    run = tmp_path / "a" / "t" / "seed_0"
    run.mkdir(parents=True)
    (run / "progress.csv").write_text("step,eval/return\n1,1.0\n2,inf\n3,1.0\n4,1.0\n5,1.0\n6,3.0\n7,-inf\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = rlstats.read_logs(tmp_path, PATTERN, progress=False, smooth=2)
    assert frame["eval/return"].tolist()[:6] == [1.0, float("inf"), float("inf"), 1.0, 1.0, 2.0]
    assert frame["eval/return"].tolist()[6] == float("-inf")
    frame = rlstats.read_logs(tmp_path, PATTERN, progress=False, smooth=3, smooth_over="steps")
    assert frame["eval/return"].tolist()[4:6] == [1.0, 5 / 3]


def test_a_run_without_a_field_is_smoothed_as_one_run(tmp_path):
    """A pattern callable naming ``task`` for some runs only: the run without one (its ``task`` missing) was not
    smoothed at all (NaN != NaN split each of its rows into a run of its own: 2.0 and 3.0 where the window of 2 gives
    1.5 and 2.5), under the note that every value is the mean of the last 2."""
    for run, steps in (("a", 4), ("b", 4), ("c", 3)):
        (tmp_path / run).mkdir()
        (tmp_path / run / "progress.csv").write_text("step,eval/return\n" + "".join(f"{s},{s}.0\n"
                                                                                    for s in range(1, steps + 1)))

    def pattern(path):
        return {"agent": "c"} if path.startswith("c") else {"agent": "x", "task": path.split("/")[0]}

    frame = rlstats.read_logs(tmp_path, pattern, progress=False, smooth=2)
    assert frame["eval/return"].tolist() == [1.0, 1.5, 2.5] + [1.0, 1.5, 2.5, 3.5] * 2


def test_max_files_bounds_a_local_listing_too(tmp_path):
    """``max_files=`` bounded a URL's listing only: given a local folder (a home folder named by mistake, with
    millions of files), it was accepted and did nothing, the whole tree walked before any answer. A local listing
    past it is now refused as a URL's is."""
    for k in range(12):
        (tmp_path / f"run_{k}").mkdir()
        (tmp_path / f"run_{k}" / "progress.csv").write_text("step,eval/return\n1,1.0\n")
    with pytest.raises(LogReadError, match=r"the listing of .* passed 10 files .* pass a larger max_files="):
        rlstats.read_logs(tmp_path, "run_{seed}", progress=False, max_files=10)
    assert len(rlstats.read_logs(tmp_path, "run_{seed}", progress=False, max_files=12)) == 12


def test_json_booleans_are_read_as_1_and_0_with_a_note_and_never_among_numbers(tmp_path):
    """A JSON-lines log's ``true`` was read as the number 1.0 without a word: among returns (``1.0, true, 3.0``) it
    became a return of 1.0, where the same cell written ``True`` in a CSV file is an error ("not a number"), and a
    step written ``true`` was step 1. A column of booleans alone (a success flag) is read as 1 and 0 with a note;
    a boolean among numbers, or as a step, is an error naming the file, the column and the row."""
    run = tmp_path / "a" / "t" / "seed_0"
    run.mkdir(parents=True)
    log = run / "log.jsonl"
    log.write_text('{"step": 1, "eval/return": 1.0, "eval/success": false}\n'
                   '{"step": 2, "eval/return": 2.0, "eval/success": true}\n')
    frame = rlstats.read_logs(tmp_path, PATTERN, tags=["eval/return", "eval/success"], progress=False)
    assert frame["eval/success"].tolist() == [0.0, 1.0]
    assert "'eval/success' logged as true/false, read as 1/0" in frame.attrs["rlstats_notes"]
    for text, phrase in (('{"step": 1, "eval/return": 1.0}\n{"step": 2, "eval/return": true}\n',
                          "column 'eval/return' holds true in data row 2 among numbers, not a number"),
                         ('{"step": true, "eval/return": 1.0}\n', "column 'step' holds true in data row 1, not a number")):
        log.write_text(text)
        with pytest.raises(LogReadError, match=phrase):
            rlstats.read_logs(tmp_path, PATTERN, progress=False)


def test_monitor_files_of_several_folders_are_not_one_run():
    """``pattern="{agent}/{task}"`` over the shared SB3 logs (a seed folder under each task) read "5 runs from 75
    monitor.csv files": each run the 3 seeds' VecEnv files read side by side, its steps counting the episodes of all
    12 (PPO CartPole-v1 ended at step 97,211, three runs of ~32,000), without a word. A VecEnv's monitor files are
    written to one folder (SB3's monitor_dir), so files of one run in several folders are an error asking for the
    field that tells them apart."""
    _needs_sb3()
    with pytest.raises(rlstats.OptionError, match=r"pattern= puts the monitor.csv files of 3 folders in the run "
                                                  r"agent=A2C task=Acrobot-v1 \(A2C/Acrobot-v1/seed_0, "
                                                  r"A2C/Acrobot-v1/seed_1, A2C/Acrobot-v1/seed_2\)"):
        rlstats.read_logs(SB3, "{agent}/{task}", format="sb3_monitor", progress=False)


def test_a_file_the_named_format_cannot_read_names_the_format_its_name_announces():
    """``format="marl_eval"`` given an evaluations.npz advised "save it as UTF-8, e.g. with iconv -f latin1 -t utf-8"
    of a binary archive, and ``format="csv"`` over SB3's monitor.csv files said "no step column found; columns:
    #{...}; pass step='<column>'": neither named the format the file's name announces, which reads it."""
    _needs_sb3()
    run = SB3 / "PPO" / "CartPole-v1"
    with pytest.raises(LogReadError, match=r"evaluations.npz: unreadable: .*; its name is that of a Stable-Baselines3 "
                                           r"EvalCallback evaluations.npz file, which format='sb3_eval' reads"):
        rlstats.read_logs(run / "seed_0" / "evaluations.npz", format="marl_eval", progress=False)
    # its '#{json}' first line read as a header of 2 fields over records of 3 (audit s21 review21b: no longer a
    # shifted table, whose missing step column this said)
    with pytest.raises(LogReadError, match=r"0.monitor.csv: unreadable: line 2 has 3 fields where the header names 2.*"
                                           r"; its name is that of a Stable-Baselines3 monitor.csv file, which "
                                           r"format='sb3_monitor' reads"):
        rlstats.read_logs(run, "seed_{seed}", format="csv", progress=False)
