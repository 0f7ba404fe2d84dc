"""Audit s20 (logs20), as a user of ``rlstats.read_logs`` and ``rlstats read-logs`` on the shared Stable-Baselines3
logs (``../shared/data/logs/sb3_classic``) and marl-eval's published JSON: every printed line read against the frame
and the frame against numpy's and pandas' own reading of the files. Each test is a minimal reproducer of one defect
found; its docstring says what was seen."""

from __future__ import annotations

import shutil

import pytest

import rlstats

from conftest import SHARED_DATA, cli_shell

SB3 = SHARED_DATA / "logs" / "sb3_classic"
PATTERN = "{agent}/{task}/seed_{seed}"


@pytest.fixture
def dqn_logs(tmp_path):
    """DQN's three CartPole-v1 runs (evaluations.npz, monitor.csv, TensorBoard), copied to a writable folder."""
    if not SB3.is_dir():
        pytest.skip(f"the SB3 logs are not at {SB3}")
    root = tmp_path / "logs"
    shutil.copytree(SB3 / "DQN", root / "DQN")
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def _notes(frame):
    return list(frame.attrs["rlstats_notes"])


def test_npz_note_names_only_the_columns_read(dqn_logs):
    """``--tags eval/mean_reward=score`` wrote the columns agent, task, seed, step, score, source, and the CLI printed
    "the score of an evaluations.npz row is the mean return ... ; 'eval/episodes' counts them": no such column
    (with ``--tags eval/mean_ep_length`` it also spoke of a mean return the frame does not hold)."""
    frame = rlstats.read_logs(dqn_logs, PATTERN, format="sb3_eval", tags={"eval/mean_reward": "score"},
                              progress=False)
    assert "eval/episodes" not in frame.columns
    text = " ".join(_notes(frame))
    assert "eval/episodes" not in text and "'score'" in text
    lengths = rlstats.read_logs(dqn_logs, PATTERN, format="sb3_eval", tags="eval/mean_ep_length", progress=False)
    text = " ".join(_notes(lengths))
    assert "mean return" not in text and "eval/episodes" not in text
    assert "'eval/mean_ep_length' of an evaluations.npz row is the mean length of that evaluation's episodes" in text
    # the default read keeps its sentence
    default = rlstats.read_logs(dqn_logs, PATTERN, format="sb3_eval", progress=False)
    assert ("the score of an evaluations.npz row is the mean return over that evaluation's episodes (as "
            "EvalCallback logs 'eval/mean_reward'); 'eval/episodes' counts them") in _notes(default)


@pytest.mark.parametrize("fmt", ["sb3_monitor", "tensorboard"])
def test_a_copied_run_is_named(dqn_logs, fmt):
    """``cp -r seed_1 "seed_1 (copy)"`` (a backup beside the run) was read as a fourth seed '1 (copy)', its rows the
    same as seed 1's in every value, step and wall time, without a word; curves then pooled the run twice."""
    task = dqn_logs / "DQN" / "CartPole-v1"
    shutil.copytree(task / "seed_1", task / "seed_1 (copy)")
    frame = rlstats.read_logs(dqn_logs, PATTERN, format=fmt, progress=False)
    assert sorted(frame["seed"].unique()) == ["0", "1", "1 (copy)", "2"]
    copies = [note for note in _notes(frame) if "the same values" in note]
    assert copies == ["2 runs log the same values at the same steps and times as another run, as copies of a run "
                      "do (a run folder copied?), each counted as a run of its own: agent=DQN task=CartPole-v1 seed=1 and "
                      "agent=DQN task=CartPole-v1 seed=1 (copy); leave the copies out (subset=, or move them out of "
                      "the folder read)"]


def test_runs_alike_without_times_are_not_called_copies():
    """Without times (evaluations.npz) equal rows prove nothing: PPO's Acrobot-v1 seeds 0 and 1 are two runs whose
    every evaluation ended at the time limit (-500, 5 episodes each), and are not named; nor is any run of the
    shared logs, read from their monitor.csv and event files, where times tell copies apart."""
    if not SB3.is_dir():
        pytest.skip(f"the SB3 logs are not at {SB3}")
    evaluations = rlstats.read_logs(SB3, PATTERN, format="sb3_eval", progress=False)
    acrobot = evaluations[(evaluations["agent"] == "PPO") & (evaluations["task"] == "Acrobot-v1")]
    seeds = [acrobot[acrobot["seed"] == seed][["step", "eval/mean_reward", "eval/episodes"]].to_numpy()
             for seed in (0, 1)]
    assert (seeds[0] == seeds[1]).all() and set(seeds[0][:, 1]) == {-500.0}
    for fmt in ("sb3_eval", "sb3_monitor", "tensorboard"):
        frame = evaluations if fmt == "sb3_eval" else rlstats.read_logs(SB3, PATTERN, format=fmt, progress=False)
        assert not [note for note in _notes(frame) if "the same values" in note], fmt


def test_command_line_notes_point_at_what_a_shell_user_has(dqn_logs, tmp_path):
    """``rlstats read-logs ... --on-error skip`` printed "2 files or runs could not be used and were skipped (see
    attrs['read_log'])": a Python attribute of a frame the shell user never has (the file written keeps no read log);
    the list is in the warning printed just before it."""
    path = dqn_logs / "DQN" / "CartPole-v1" / "seed_2" / "evaluations.npz"
    path.write_bytes(path.read_bytes()[:700])
    out = cli_shell("read-logs", str(dqn_logs), "--pattern", PATTERN, "--format", "sb3_eval", "--on-error", "skip",
                    "--no-progress", "-o", str(tmp_path / "out.csv"))
    assert out.returncode == 0, out.stderr
    assert "attrs[" not in out.stdout and "attrs[" not in out.stderr
    assert "could not be used and was skipped (listed in the warning above)" in out.stdout
    assert "DQN/CartPole-v1/seed_2/evaluations.npz: corrupt" in out.stderr


def test_a_wildcard_in_the_path_says_it_is_not_expanded(dqn_logs):
    """``read_logs("logs/DQN/*/seed_1")`` (a quoted glob, as ``ls`` takes it) said "no such folder: logs/DQN/*/seed_1;
    give the folder of runs": true, but the way on is the pattern, which chooses runs inside the folder read."""
    with pytest.raises(rlstats.errors.LogReadError) as caught:
        rlstats.read_logs(dqn_logs / "DQN" / "*" / "seed_1", PATTERN, progress=False)
    message = str(caught.value)
    assert "wildcards are not expanded" in message and f"{dqn_logs / 'DQN'}" in message and "pattern=" in message


def test_command_line_several_paths_say_read_logs_reads_one_folder(dqn_logs, tmp_path):
    """``rlstats read-logs logs/DQN/CartPole-v1/seed_* ...`` (the shell expands the wildcard) said "rlstats: error:
    unrecognized arguments: logs/DQN/CartPole-v1/seed_1 logs/DQN/CartPole-v1/seed_2", as if the paths were a typo."""
    seeds = sorted(str(p) for p in (dqn_logs / "DQN" / "CartPole-v1").glob("seed_*"))
    out = cli_shell("read-logs", *seeds, "--format", "sb3_eval", "--no-progress", "-o", str(tmp_path / "out.csv"))
    assert out.returncode == 2 and "unrecognized arguments" not in out.stderr
    assert "reads one folder or log file, not 3 paths" in out.stderr
    assert f"{dqn_logs / 'DQN' / 'CartPole-v1'}" in out.stderr and "--pattern" in out.stderr


def test_command_line_tags_advice_is_in_the_command_line_spelling(dqn_logs, tmp_path):
    """``--tags eval/mean_reward=agent`` said "... the run field 'agent' (from --pattern ), ...; name its column with
    --tags, e.g. --tags {'eval/mean_reward': 'score'}": a Python dict the option does not take (it takes TAG=COLUMN)."""
    out = cli_shell("read-logs", str(dqn_logs), "--pattern", PATTERN, "--format", "sb3_eval", "--tags",
                    "eval/mean_reward=agent", "--no-progress", "-o", str(tmp_path / "out.csv"))
    assert out.returncode == 2
    assert "(from --pattern)" in out.stderr and "e.g. --tags eval/mean_reward=score" in out.stderr, out.stderr


def test_an_empty_path_is_an_error(dqn_logs, monkeypatch):
    """``rlstats read-logs "$LOGDIR"`` with the variable unset (``read_logs("")``) read the current folder, searched
    recursively: "found several kinds of logs under : 14 CSV files, 245 ... monitor.csv files, ...", a folder nobody
    named."""
    monkeypatch.chdir(dqn_logs)
    with pytest.raises(rlstats.errors.OptionError, match="the path read is empty"):
        rlstats.read_logs("", PATTERN, progress=False)


def test_a_header_of_numbers_is_quoted_in_short(tmp_path):
    """Flowers' ``sac_hc_all_perfs.txt`` (space-separated numbers) read with ``format="spinup"`` (tab-separated) is one
    column whose name is its first line: the error printed all 3,000-odd characters of it as "columns: ..."."""
    path = tmp_path / "perfs.txt"
    path.write_text("\n".join(" ".join(f"{v:.15e}" for v in range(k, k + 200)) for k in range(3)) + "\n")
    with pytest.raises(rlstats.errors.LogReadError) as caught:
        rlstats.read_logs(path, format="spinup", progress=False)
    message = str(caught.value)
    assert "no step column found; columns: " in message and len(message) < 600, len(message)


def test_several_kinds_of_logs_count_one_file_as_one(dqn_logs):
    """A folder of SB3 runs with one progress.csv beside them said "found several kinds of logs under ...: 3
    Stable-Baselines3 monitor.csv files, ..., 1 Stable-Baselines3 logger progress.csv files"; the kinds came in the
    order found, and the example format= was the stray file's ('sb3_progress')."""
    (dqn_logs / "progress.csv").write_text("time/total_timesteps,rollout/ep_rew_mean\n100,1.0\n")
    with pytest.raises(rlstats.errors.LogReadError) as caught:
        rlstats.read_logs(dqn_logs, progress=False)
    message = str(caught.value)
    assert message.endswith(": 3 TensorBoard event files, 3 Stable-Baselines3 monitor.csv files, 3 Stable-Baselines3 "
                            "EvalCallback evaluations.npz files, 1 Stable-Baselines3 logger progress.csv file; choose "
                            "one with format=, e.g. format='tensorboard'"), message


def _resume_in_place(path, episodes=3):
    """Append episodes as SB3's Monitor(override_existing=False) does: no new header, ``t`` from the new start."""
    rows = len(path.read_text().splitlines()) - 2
    with path.open("a", newline="\n") as handle:
        handle.write("".join(f"{100 + k}.0,{100 + k},{1.5 + k}\n" for k in range(episodes)))
    return rows + 3  # the line of the first appended episode


def test_a_monitor_file_resumed_in_place_is_named(dqn_logs):
    """SB3's ``Monitor(..., override_existing=False)`` (a run resumed after a crash) appends its episodes to the same
    monitor.csv, their ``t`` counted from the new start under the old header. Of DQN's one file a run, nothing was
    said (the rows' wall times went back to the first training's start); of PPO's four, the note said "4 log files
    with steps that go back (a restart appended to the same file?) ...: split the file at the restart", naming none."""
    line = _resume_in_place(dqn_logs / "DQN" / "CartPole-v1" / "seed_1" / "0.monitor.csv")
    frame = rlstats.read_logs(dqn_logs, PATTERN, format="sb3_monitor", progress=False)
    back = [note for note in _notes(frame) if "goes back" in note]
    assert len(back) == 1 and back[0].endswith(f": DQN/CartPole-v1/seed_1/0.monitor.csv (line {line})"), back
    run = frame[frame["seed"] == 1]
    assert (run["wall_time"].diff().dropna() < 0).sum() == 1  # the wall times the note speaks of
    shutil.copytree(SB3 / "PPO" / "CartPole-v1" / "seed_1", dqn_logs / "PPO" / "CartPole-v1" / "seed_1")
    for path in (dqn_logs / "PPO").rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    lines = [_resume_in_place(dqn_logs / "PPO" / "CartPole-v1" / "seed_1" / f"{k}.monitor.csv") for k in range(4)]
    notes = _notes(rlstats.read_logs(dqn_logs, PATTERN, format="sb3_monitor", progress=False))
    steps = [note for note in notes if "steps that go back" in note]
    assert len(steps) == 1 and steps[0].endswith(
        ": " + ", ".join(f"PPO/CartPole-v1/seed_1/{k}.monitor.csv" for k in range(4))), steps
    times = [note for note in notes if "goes back" in note]
    assert len(times) == 1 and "put in time order by it" in times[0] and times[0].endswith(
        ": DQN/CartPole-v1/seed_1/0.monitor.csv (line " + f"{line}), "
        + ", ".join(f"PPO/CartPole-v1/seed_1/{k}.monitor.csv (line {n})" for k, n in enumerate(lines))), times


@pytest.fixture
def marl_eval_two_environments(tmp_path):
    """marl-eval's published test file with a second environment holding a task of the same name ('task_1')."""
    import json

    source = SHARED_DATA / "raw" / "instadeepai" / "marl-eval" / "5675ad67e8eeb7450bbbe827883849a938b27d80" / "tests"
    if not (source / "mock_data_test.json").is_file():
        pytest.skip("marl-eval's test file is not in the shared data")
    data = json.loads((source / "mock_data_test.json").read_text())
    data["env_2"] = {"task_1": data["env_1"]["task_2"]}
    (tmp_path / "metrics.json").write_text(json.dumps(data))
    return tmp_path


def test_duplicate_steps_name_the_column_that_tells_them_apart(marl_eval_two_environments):
    """Two marl-eval environments with a task named alike: curves on ``| task/seed`` said "run '42' of agent 'algo_1'
    on task 'task_1' has 2 rows at step 10006 ...; keep one row per run and step, e.g. the last logged", which would
    drop one environment's runs; the rows differ in the column 'environment'."""
    frame = rlstats.read_logs(marl_eval_two_environments, tags="return", progress=False)
    assert sorted(frame["environment"].unique()) == ["env_1", "env_2"]
    with pytest.raises(rlstats.errors.DesignError) as caught:
        rlstats.curves(frame, "`return` ~ agent | task/seed", step="step", rng=0, progress=False)
    message = str(caught.value)
    assert "they differ in column 'environment' ('env_1' and 'env_2')" in message, message
