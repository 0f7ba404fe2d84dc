"""Audit s23 (logs23), as a user of ``rlstats.read_logs`` with real training logs (``../shared/data/logs/sb3_classic``,
marl-eval's published JSON) and the damaged copies a real folder of runs holds: every row the reader merges, drops or
keeps checked against a plain ``csv`` / ``json`` reading of the same text. Each test is a minimal reproducer of one
defect found; its docstring says what was seen."""

from __future__ import annotations

import csv
import json
import re

import numpy as np
import pytest

import rlstats
from rlstats.errors import LogReadError

from conftest import SHARED_DATA

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


@pytest.mark.parametrize("name, text", [
    ("log.csv", "step,return\n9007199254740993,1\n9007199254740992,2\n"),
    ("log.jsonl", '{"step": 9007199254740993, "return": 1}\n{"step": 9007199254740992, "return": 2}\n')])
def test_whole_steps_of_a_table_are_read_exactly(tmp_path, name, text):
    """A table logging the steps 9,007,199,254,740,993 and 9,007,199,254,740,992 (whole numbers the file writes
    exactly, past 2**53) was read as one row at 9.007199e+15, the return 1 dropped under the note '1 value logged
    again at a step already logged', which it was not: the step column went through floats. Event files and
    marl-eval keep int64 steps."""
    _write(tmp_path / "run1" / name, text)
    frame = rlstats.read_logs(tmp_path, progress=False)
    assert frame["step"].tolist() == [9007199254740992, 9007199254740993]
    assert frame["return"].tolist() == [2.0, 1.0]
    assert not any("logged again" in note for note in _notes(frame))


@pytest.mark.parametrize("name, text, line", [("log.csv", "step,return\n100,1\ninf,2\n", 3),
                                              ("log.jsonl", '{"step": 100, "return": 1}\n{"step": 1e400, "return": 2}\n',
                                               2)])
def test_an_infinite_step_of_a_table_is_corrupt(tmp_path, name, text, line):
    """A CSV row at step ``inf`` (or a JSON record's 1e400) was kept as a row at step inf, every step of the run read
    as a float (100.0), without a word; the run's last value then sat at no step of training. An empty step is a row
    without a step (left out, counted); an infinite one is a corrupt line, named."""
    _write(tmp_path / "run1" / name, text)
    with pytest.raises(LogReadError, match=rf"column 'step' holds inf in data row 2 \(line {line} of the file\), "
                                           "not a step"):
        rlstats.read_logs(tmp_path, progress=False)


@pytest.mark.parametrize("path, text, said", [
    # a logger resumed, appending to its file with a header naming a new scalar
    ("run1/progress.csv", "time/total_timesteps,rollout/ep_rew_mean\n100,1.0\n200,2.0\n"
                          "time/total_timesteps,rollout/ep_rew_mean,eval/mean_reward\n300,3.0,5\n",
     r"progress\.csv: unreadable: line 4 has 3 fields where the header names 2; it starts as the header does \(a "
     r"header written again"),
    # the same header written again
    ("run1/log.csv", "step,return\n100,1.0\n200,2.0\nstep,return\n100,1.5\n200,2.5\n",
     r"log\.csv: corrupt: data row 3 \(line 4 of the file\) repeats the header \(a header written again"),
    ("ppo/s0/0.monitor.csv", HEADER + "r,l,t\n10,10,0.1\n20,10,0.2\nr,l,t\n30,10,0.3\n",
     r"0\.monitor\.csv: corrupt: data row 3 \(line 5 of the file\) repeats the header \(a header written again"),
    ("ppo/s0/0.monitor.csv", HEADER + "r,l,t\n10,10,0.1\n20,10,0.2\n30,10,0.3,1\n",
     r"0\.monitor\.csv: unreadable: line 5 has 4 fields where the header names 3")])
def test_a_header_inside_a_table_is_named_with_the_way_on(tmp_path, path, text, said):
    """A progress.csv whose logger was resumed appending to it, with a header naming one more scalar, was 'Error
    tokenizing data. C error: Expected 2 fields in line 4, saw 3' (pandas' words, no way on); the same header
    written again was "column 'step' holds 'step' in data row 3, not a number" (no line, no cause, no way on)."""
    _write(tmp_path / path, text)
    with pytest.raises(LogReadError, match=said) as error:
        rlstats.read_logs(tmp_path, progress=False)
    assert "C error" not in str(error.value)
    assert "split the file" in str(error.value) or "as many fields as the header" in str(error.value)


def test_a_monitor_file_without_an_episode_counts_none(tmp_path):
    """A VecEnv environment that finished no episode (long episodes, a short or killed run) leaves SB3's header and
    column names alone in its monitor.csv. read_logs called it 'empty' and left its run out ('without it every step
    would be too small'), an error by default; but it adds no episode, so every step of the run is the same without
    it (SB3's load_results reads it as no rows). Read as none, named in a note; a run of such files alone is empty."""
    _write(tmp_path / "ppo" / "s0" / "0.monitor.csv", HEADER + "r,l,t\n10,10,0.1\n20,10,0.2\n")
    _write(tmp_path / "ppo" / "s0" / "1.monitor.csv", HEADER + "r,l,t\n")
    _write(tmp_path / "ppo" / "s1" / "0.monitor.csv", HEADER + "r,l,t\n10,10,0.1\n20,10,0.2\n")
    _write(tmp_path / "ppo" / "s1" / "1.monitor.csv", HEADER + "r,l,t\n30,5,0.15\n")
    frame = rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)
    assert frame["seed"].tolist() == ["s0", "s0", "s1", "s1", "s1"]
    assert frame["step"].tolist() == [10, 20, 10, 15, 25]
    assert frame["r"].tolist() == [10.0, 20.0, 10.0, 30.0, 20.0]
    assert frame.attrs["read_log"].ok
    assert ("1 Stable-Baselines3 monitor.csv file holds no episode (its header alone: an environment that finished "
            "none), read as none: ppo/s0/1.monitor.csv") in _notes(frame)
    # a run whose files hold no episode at all is a problem of that run
    _write(tmp_path / "ppo" / "s0" / "0.monitor.csv", HEADER + "r,l,t\n")
    with pytest.raises(LogReadError, match=r"ppo/s0/0\.monitor\.csv, ppo/s0/1\.monitor\.csv: empty: no episode in "
                                           r"its 2 files"):
        rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)


@pytest.mark.parametrize("timesteps, shown", [(np.array([5000.0, 1e19]), "1e+19"),
                                              (np.array([5000, 2**64 - 1], dtype=np.uint64), "18446744073709551615")])
def test_an_evaluations_step_beyond_int64_is_corrupt(tmp_path, timesteps, shown):
    """An evaluations.npz whose 'timesteps' held 1e19 (float) or 2**64 - 1 (uint64) was read with the steps
    -9,223,372,036,854,775,808 and -1 (numpy's cast wrapping), the run's rows reordered, without a word."""
    folder = tmp_path / "ppo" / "s0"
    folder.mkdir(parents=True)
    np.savez(folder / "evaluations.npz", timesteps=timesteps, results=np.ones((2, 3)),
             ep_lengths=np.ones((2, 3), dtype=np.int64))
    with pytest.raises(LogReadError, match=f"'timesteps' holds {re.escape(shown)}, more steps than any run takes"):
        rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)
    np.savez(folder / "evaluations.npz", timesteps=np.array([5000, 10000], dtype=timesteps.dtype),
             results=np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 9.0]]), ep_lengths=np.ones((2, 3), dtype=np.int64))
    frame = rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)
    assert frame["step"].tolist() == [5000, 10000] and frame["eval/mean_reward"].tolist() == [2.0, 6.0]


def test_a_csv_log_ending_without_a_line_end_is_named(tmp_path):
    """A CSV log cut off while its last value was written ('200,2' of '200,2.75') has as many fields as the
    header, so it was read as a return 2 at step 200 without a word: every CSV writer (pandas, the csv module,
    loggers) ends each record with a line end. The row is kept (a file written by hand may lack the last one), and
    the note names the file and the line."""
    _write(tmp_path / "run1" / "log.csv", "step,return\n100,1.0\n200,2")
    _write(tmp_path / "run2" / "log.csv", "step,return\n100,1.0\n200,2.75\n")
    frame = rlstats.read_logs(tmp_path, progress=False)
    assert frame["return"].tolist() == [1.0, 2.0, 1.0, 2.75]
    assert ("1 CSV file ends without a line end (cut off while its last line was written?), that line read as "
            "written: run1/log.csv (line 3: '200,2')") in _notes(frame)


def test_a_file_problem_read_in_parallel_is_the_same_problem(tmp_path):
    """With ``n_jobs=2`` a folder holding one empty file stopped with joblib's 'BrokenProcessPool: A result has failed
    to un-serialize' (FileProblem could not be rebuilt from its pickle), where ``n_jobs=1`` skips the file with a
    warning naming it: the result of a read depended on n_jobs."""
    for seed in range(3):
        _write(tmp_path / f"s{seed}" / "log.csv", f"step,return\n100,{seed}\n200,{seed + 1}\n")
    _write(tmp_path / "s3" / "log.csv", "")
    frames = []
    for n_jobs in (1, 2):
        with pytest.warns(UserWarning, match="s3/log.csv: empty: the file has no content"):
            frames.append(rlstats.read_logs(tmp_path, "{seed}", on_error="skip", n_jobs=n_jobs, progress=False))
    assert frames[1].equals(frames[0]) and frames[1]["return"].tolist() == [0.0, 1.0, 1.0, 2.0, 2.0, 3.0]
    assert str(frames[1].attrs["read_log"]) == str(frames[0].attrs["read_log"])
    with pytest.raises(LogReadError, match="1 of 4 CSV files .* could not be used"):
        rlstats.read_logs(tmp_path, "{seed}", n_jobs=2, progress=False)


def test_the_note_on_infinite_values_names_the_drop_that_drops_them(tmp_path):
    """A run logging an infinite return was read with the note 'analyses refuse it until it is dropped
    (na_action="drop" for NaN) or mended', as if na_action="drop" left infinite values in: it drops them too (the
    summary counts '1 where 'return' is not finite'), and the error on them says so."""
    _write(tmp_path / "s0" / "log.csv", "step,return\n100,1\n200,inf\n")
    _write(tmp_path / "s1" / "log.csv", "step,return\n100,2\n200,3\n")
    frame = rlstats.read_logs(tmp_path, "{seed}", progress=False)
    note = next(note for note in _notes(frame) if "infinite" in note)
    assert "for NaN" not in note and 'na_action="drop"' in note
    runs = frame.assign(agent=frame["seed"].map({"s0": "a", "s1": "b"}), task="t")
    summary = rlstats.summarize_runs(runs, "`return` ~ agent | task/seed", step="step", na_action="drop")
    assert summary["return"].tolist() == [1.0, 3.0]
    assert any("1 where '`return`' is not finite" in note for note in _notes(summary))


def _marl_eval(runs):
    """marl-eval's JSON of the runs {(algorithm, run key): [return per evaluation]}, every 1,000 steps."""
    layout = {}
    for (algorithm, run), returns in runs.items():
        layout.setdefault(algorithm, {})[run] = {f"STEP_{i}": {"step_count": 1000 * (i + 1), "return": [value]}
                                                 for i, value in enumerate(returns)}
    return json.dumps({"env": {"t": layout}})


def test_a_run_two_files_give_is_named(tmp_path):
    """marl-eval's merged file beside one of its parts (``concatenate_json_files`` output and a run's metrics.json)
    gave run ppo seed 1 twice, with other values: read_logs kept the values of the file sorted last (7, 8, 9), dropped
    the others (1, 2, 3) and said '3 values logged again at a step already logged for the same run and tag in one
    file', naming neither file. Which file is right is the caller's to say: the run is a problem naming both."""
    _write(tmp_path / "merged.json", _marl_eval({("ppo", "seed_1"): [1, 2, 3], ("ppo", "seed_2"): [4, 5, 6],
                                                 ("sac", "seed_1"): [0, 1, 1], ("sac", "seed_2"): [0, 1, 2]}))
    _write(tmp_path / "run1" / "metrics.json", _marl_eval({("ppo", "seed_1"): [7, 8, 9]}))
    with pytest.raises(LogReadError, match=r"merged\.json: run 'env/t/ppo/seed_1', run1/metrics\.json: run "
                                           r"'env/t/ppo/seed_1': run in several files: 2 files give the run, both at "
                                           r"steps 1,000 to 3,000"):
        rlstats.read_logs(tmp_path, format="marl_eval", progress=False)
    with pytest.warns(UserWarning, match="1 run given by several files"):
        frame = rlstats.read_logs(tmp_path, format="marl_eval", on_error="skip", progress=False)
    assert frame.groupby(["agent", "seed"]).size().to_dict() == {("ppo", 2): 3, ("sac", 1): 3, ("sac", 2): 3}
    assert frame["return"].tolist() == [4.0, 5.0, 6.0, 0.0, 1.0, 1.0, 0.0, 1.0, 2.0]
    assert not any("logged again" in note for note in _notes(frame))


def test_a_run_two_files_give_at_different_steps_is_joined_with_a_note(tmp_path):
    """A run whose evaluations lie in two marl-eval files at different steps (a run resumed into a new file) was read
    as one run of six evaluations without a word: the rows of two files joined into one run are said."""
    _write(tmp_path / "a" / "metrics.json", _marl_eval({("ppo", "seed_1"): [1, 2, 3], ("ppo", "seed_2"): [4, 5, 6]}))
    later = json.loads(_marl_eval({("ppo", "seed_1"): [7, 8, 9]}))
    for i, evaluation in enumerate(later["env"]["t"]["ppo"]["seed_1"].values()):
        evaluation["step_count"] = 4000 + 1000 * i
    _write(tmp_path / "b" / "metrics.json", json.dumps(later))
    frame = rlstats.read_logs(tmp_path, format="marl_eval", progress=False)
    assert frame.groupby("seed").size().to_dict() == {1: 6, 2: 3}
    assert frame.loc[frame["seed"] == 1, "return"].tolist() == [1.0, 2.0, 3.0, 7.0, 8.0, 9.0]
    assert ("1 run given by several files, at different steps or of different scalars, read as one run: agent=ppo "
            "task=t seed=1 "
            "environment=env (a/metrics.json, b/metrics.json)") in _notes(frame)


def test_two_wandb_chart_exports_of_the_same_runs_are_no_conflict(tmp_path):
    """Two W&B chart exports (one CSV per chart: the return, the loss) give the same runs at the same steps, each its
    own scalar: read as one run each, said in the note, never a 'run in several files' problem."""
    _write(tmp_path / "return.csv", "Step,ppo-1 - return,ppo-2 - return\n100,1,4\n200,2,5\n")
    _write(tmp_path / "loss.csv", "Step,ppo-1 - loss,ppo-2 - loss\n100,0.5,0.7\n200,0.25,0.35\n")
    frame = rlstats.read_logs(tmp_path, "{agent}-{seed}", format="wandb_csv", tags=["return", "loss"],
                              progress=False)
    assert frame["return"].tolist() == [1.0, 2.0, 4.0, 5.0] and frame["loss"].tolist() == [0.5, 0.25, 0.7, 0.35]
    assert frame.attrs["read_log"].ok
    assert ("2 runs given by several files, at different steps or of different scalars, read as one run each: "
            "agent=ppo seed=1 (loss.csv, return.csv); agent=ppo seed=2 (loss.csv, return.csv)") in _notes(frame)


@pytest.mark.parametrize("name, text, line", [("log.csv", "step,return\n100,1.0\n\n200,2..5\n", 4),
                                              ("log.jsonl", '{"step": 100, "return": 1}\n\n{"step": 200, "return": '
                                                            '"2..5"}\n', 3)])
def test_a_word_among_numbers_names_its_line(tmp_path, name, text, line):
    """A garbled cell ('2..5') was "column 'return' holds '2..5' in data row 2, not a number": the data row, which a
    blank line puts off the file's line, and no way on."""
    _write(tmp_path / "run1" / name, text)
    with pytest.raises(LogReadError, match=rf"column 'return' holds '2\.\.5' in data row 2 \(line {line} of the "
                                           r"file\), not a number; mend or remove the line"):
        rlstats.read_logs(tmp_path, progress=False)


def test_real_monitor_logs_read_alike_on_processes_and_as_the_csv_module_reads_them():
    """The shared SB3 logs' DQN runs (one monitor.csv each): the same frame with n_jobs=1 and 2, and each run's episode
    count, last step (the sum of its lengths) and last return as the csv module reads the files."""
    root = SHARED_DATA / "logs" / "sb3_classic"
    if not root.is_dir():
        pytest.skip(f"the SB3 logs are not at {root}")
    frames = [rlstats.read_logs(root / "DQN", "{task}/seed_{seed}", format="sb3_monitor", n_jobs=n_jobs,
                                progress=False) for n_jobs in (1, 2)]
    assert frames[1].equals(frames[0])
    for seed, (episodes, last_step, last_return) in {0: (2008, 19999, 9.0), 1: (1868, 19996, 9.0),
                                                     2: (2018, 19993, 12.0)}.items():
        with open(root / "DQN" / "CartPole-v1" / f"seed_{seed}" / "0.monitor.csv", newline="") as handle:
            handle.readline()
            rows = list(csv.DictReader(handle))
        assert (len(rows), sum(int(row["l"]) for row in rows), float(rows[-1]["r"])) == (episodes, last_step,
                                                                                          last_return)
        run = frames[0][frames[0]["seed"] == seed]
        assert (len(run), run["step"].iloc[-1], run["r"].iloc[-1]) == (episodes, last_step, last_return)
