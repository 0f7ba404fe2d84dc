"""The formats researchers have: SB3 EvalCallback's evaluations.npz, marl-eval's JSON, and smooth= for
episode curves. Every number is checked against one computed here another way: plain Python means of
the arrays or JSON lists, pandas' rolling windows, and on the real SB3 logs (../shared) the TensorBoard
rows SB3 wrote at the same evaluations.

evaluations.npz is written here as ``stable_baselines3.common.callbacks.EvalCallback._on_step`` writes
it (stable-baselines3 2.x): ``np.savez(log_path, timesteps=..., results=..., ep_lengths=...)`` with lists
of per-evaluation lists, plus ``successes=`` when the environment reports ``is_success``.
"""

import json
import statistics

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import NOTES_ATTR
from rlstats.errors import LogReadError, OptionError

SB3_PATTERN = "{agent}/{task}/seed_{seed}"
MARL_EVAL_MOCK = ("instadeepai/marl-eval/5675ad67e8eeb7450bbbe827883849a938b27d80/tests/mock_data_test.json")


def write_evaluations(folder, timesteps, results, lengths, successes=None, name="evaluations.npz"):
    folder.mkdir(parents=True, exist_ok=True)
    extra = {} if successes is None else {"successes": successes}
    np.savez(folder / name, timesteps=timesteps, results=results, ep_lengths=lengths, **extra)
    return folder / name


def write_monitor(path, returns, lengths, t_start=1_700_000_000.0):
    """A monitor.csv as SB3's ResultsWriter writes it; episode i ends at t = i + 1 seconds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = "".join(f"{r},{l},{i + 1}\r\n" for i, (r, l) in enumerate(zip(returns, lengths)))
    path.write_text(f'#{{"t_start": {t_start}, "env_id": "CartPole-v1"}}\nr,l,t\r\n{rows}')


# ----------------------------------------------------------------------------- evaluations.npz

def test_evaluations_one_row_per_evaluation_with_means_and_counts(tmp_path):
    results = {0: [[10.0, 20.0, 30.0], [40.0, 41.0, 45.0]], 1: [[1.0, 2.0, 4.0], [8.0, 8.5, 9.0]]}
    lengths = {0: [[100, 200, 300], [400, 410, 450]], 1: [[10, 20, 40], [80, 85, 90]]}
    for seed in (0, 1):
        write_evaluations(tmp_path / "ppo" / "hopper" / f"seed_{seed}", [5000, 10000], results[seed], lengths[seed],
                          successes=[[True, False, True], [True, True, True]])
    frame = rlstats.read_logs(tmp_path, SB3_PATTERN, progress=False)
    assert list(frame.columns) == ["agent", "task", "seed", "step", "eval/mean_reward", "eval/episodes", "source"]
    assert frame["seed"].tolist() == [0, 0, 1, 1] and frame["step"].tolist() == [5000, 10000] * 2
    expected = [statistics.fmean(row) for seed in (0, 1) for row in results[seed]]
    assert frame["eval/mean_reward"].tolist() == expected == [20.0, 42.0, 7 / 3, 8.5]
    assert frame["eval/episodes"].tolist() == [3.0] * 4
    assert frame["source"].iloc[0] == "ppo/hopper/seed_0/evaluations.npz"
    notes = frame.attrs[NOTES_ATTR]
    assert notes[0].startswith("read 2 runs from 2 Stable-Baselines3 EvalCallback evaluations.npz files, tags "
                               "'eval/mean_reward' (each evaluation's mean return over its episodes) and "
                               "'eval/episodes' (their number); pass tags= for 'eval/mean_ep_length' or "
                               "'eval/success_rate'")
    assert any("mean return over that evaluation's episodes" in note for note in notes)

    asked = rlstats.read_logs(tmp_path, SB3_PATTERN, progress=False,
                              tags={"eval/mean_ep_length": "length", "eval/success_rate": "success"})
    assert asked["length"].tolist() == [statistics.fmean(r) for s in (0, 1) for r in lengths[s]]
    assert asked["success"].tolist() == [2 / 3, 1.0, 2 / 3, 1.0]


def _sb3_1_0_results(returns):
    """``results`` as EvalCallback saved them in SB3 before 1.1 with no Monitor on the evaluation environment:
    evaluate_policy added each step's reward, a float32 array of shape (1,) from the DummyVecEnv EvalCallback wraps
    the environment in, to an episode's return 0.0 (stable_baselines3/common/evaluation.py at v1.0; fixed by
    DLR-RM/stable-baselines3#447 in 1.1.0), so np.savez stacks lists of (1,) arrays to (evaluations, episodes, 1)."""
    evaluations = []
    for episodes in returns:
        kept = []
        for rewards in episodes:
            episode_reward = 0.0
            for reward in rewards:
                episode_reward += np.array([reward], dtype=np.float32)  # DummyVecEnv's buf_rews
            kept.append(episode_reward)
        evaluations.append(kept)
    return evaluations


def test_evaluations_of_sb3_before_1_1_with_a_trailing_axis_are_read(tmp_path):
    rewards = [[[1.0, 0.5, 0.25], [1.0, 1.0]], [[2.0, 2.0, 2.0, 0.1], [0.3]]]  # 2 evaluations of 2 episodes
    results = _sb3_1_0_results(rewards)
    write_evaluations(tmp_path / "ppo" / "hopper" / "seed_0", [1000, 2000], results, [[3, 2], [4, 1]])
    with np.load(tmp_path / "ppo" / "hopper" / "seed_0" / "evaluations.npz") as archive:
        assert archive["results"].shape == (2, 2, 1) and archive["results"].dtype == np.float32
    frame = rlstats.read_logs(tmp_path, SB3_PATTERN, progress=False, tags=["eval/mean_reward", "eval/episodes",
                                                                           "eval/mean_ep_length"])
    # each episode's float32 return, then the mean over the evaluation's episodes in float64
    by_hand = [statistics.fmean(float(np.float32(0.0) + sum(np.float32(r) for r in episode)) for episode in ev)
               for ev in rewards]
    # float32 sums promote differently in numpy 1 and 2 (NEP 50): equal to float32 precision
    np.testing.assert_allclose(frame["eval/mean_reward"], by_hand, rtol=1e-6)
    assert by_hand[0] == 1.875 and abs(by_hand[1] - 3.2) < 1e-6
    assert frame["eval/episodes"].tolist() == [2.0, 2.0] and frame["eval/mean_ep_length"].tolist() == [2.5, 2.5]


def test_evaluations_with_a_trailing_axis_equal_the_real_sb3_files(shared_data, tmp_path):
    """Every real evaluations.npz of the SB3 logs, its per-episode arrays given a trailing axis of length 1 (the
    shape SB3 before 1.1 wrote), reads to the same frame but for the source column."""
    root = shared_data / "logs" / "sb3_classic"
    if not root.is_dir():
        pytest.skip(f"the SB3 logs are not at {root}")
    for path in sorted(root.rglob("evaluations.npz")):
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        target = tmp_path / path.parent.relative_to(root) / "evaluations.npz"
        target.parent.mkdir(parents=True)
        np.savez(target, timesteps=arrays["timesteps"], results=arrays["results"][..., None],
                 ep_lengths=arrays["ep_lengths"][..., None])
    tags = ["eval/mean_reward", "eval/mean_ep_length", "eval/episodes"]
    as_written = rlstats.read_logs(root, SB3_PATTERN, format="sb3_eval", tags=tags, progress=False)
    with_axis = rlstats.read_logs(tmp_path, SB3_PATTERN, tags=tags, progress=False)
    assert len(with_axis) == 72
    pd.testing.assert_frame_equal(with_axis, as_written)


@pytest.mark.parametrize("name, shape", [("results", (2, 2, 2)), ("results", (2, 1, 2)), ("ep_lengths", (2, 2, 3)),
                                         ("results", (2, 2, 1, 1))])
def test_evaluations_of_other_shapes_stay_errors_naming_the_shape(tmp_path, name, shape):
    arrays = {"timesteps": [1, 2], "results": np.ones((2, 2)), "ep_lengths": np.ones((2, 2), dtype=int)}
    arrays[name] = np.ones(shape, dtype=arrays[name].dtype)
    write_evaluations(tmp_path / "a", arrays["timesteps"], arrays["results"], arrays["ep_lengths"])
    with pytest.raises(LogReadError) as info:
        rlstats.read_logs(tmp_path, "{agent}", progress=False)
    dtype = "float64" if name == "results" else "int64"
    assert f"corrupt: '{name}' is an array of {dtype} with shape {shape}; EvalCallback writes" in str(info.value)


def test_evaluations_under_another_name_when_the_format_is_named(tmp_path):
    write_evaluations(tmp_path / "ppo" / "hopper" / "seed_0", [1, 2], [[1.0], [3.0]], [[5], [6]], name="eval_ppo.npz")
    with pytest.raises(LogReadError, match="no training logs under"):
        rlstats.read_logs(tmp_path, SB3_PATTERN, progress=False)
    frame = rlstats.read_logs(tmp_path, SB3_PATTERN, format="sb3_eval", progress=False)
    assert frame["eval/mean_reward"].tolist() == [1.0, 3.0]


def test_evaluations_equal_the_tensorboard_eval_rows_of_the_real_logs(shared_data):
    """SB3 wrote eval/mean_reward = float(np.mean(episode_rewards)) to TensorBoard (as float32) at the step it
    saved the same episodes to evaluations.npz: every row of the one equals the other."""
    pytest.importorskip("tensorboard")
    root = shared_data / "logs" / "sb3_classic"
    if not root.is_dir():
        pytest.skip(f"the SB3 logs are not at {root}")
    keys = ["agent", "task", "seed", "step"]
    evaluations = rlstats.read_logs(root, SB3_PATTERN, format="sb3_eval", tags=["eval/mean_reward",
                                                                                "eval/mean_ep_length"], progress=False)
    events = rlstats.read_logs(root, SB3_PATTERN, format="tensorboard", tags=["eval/mean_reward",
                                                                             "eval/mean_ep_length"], progress=False)
    both = evaluations.merge(events, on=keys, how="outer", suffixes=("_npz", "_tb"), indicator=True)
    assert len(evaluations) == len(events) == len(both) == 72 and (both["_merge"] == "both").all()
    for tag in ("eval/mean_reward", "eval/mean_ep_length"):
        assert np.array_equal(both[f"{tag}_npz"].astype(np.float32), both[f"{tag}_tb"])
    # one run by hand: PPO on CartPole, seed 0
    with np.load(root / "PPO" / "CartPole-v1" / "seed_0" / "evaluations.npz", allow_pickle=False) as archive:
        by_hand = [statistics.fmean(row) for row in archive["results"].tolist()]
        steps = archive["timesteps"].tolist()
    run = evaluations.query("agent == 'PPO' and task == 'CartPole-v1' and seed == 0")
    assert run["step"].tolist() == steps and run["eval/mean_reward"].tolist() == by_hand
    assert by_hand[0] == 332.6


def test_a_run_folder_with_three_formats_asks_which(shared_data):
    root = shared_data / "logs" / "sb3_classic"
    if not root.is_dir():
        pytest.skip(f"the SB3 logs are not at {root}")
    with pytest.raises(LogReadError) as info:
        rlstats.read_logs(root, SB3_PATTERN, progress=False)
    assert ("75 Stable-Baselines3 monitor.csv files, 15 TensorBoard event files, 15 Stable-Baselines3 EvalCallback "
            "evaluations.npz files; choose one with format=, e.g. format='sb3_monitor'") in str(info.value)


# ----------------------------------------------------------------------------- marl-eval JSON

def _marl_eval_by_hand(data):
    """{(environment, task, algorithm, seed, step_count): {metric: mean}} walking the JSON with plain Python."""
    out = {}
    for environment, tasks in data.items():
        for task, algorithms in tasks.items():
            for algorithm, runs in algorithms.items():
                for run, steps in runs.items():
                    for key, logged in steps.items():
                        if key == "absolute_metrics":
                            continue
                        out[environment, task, algorithm, int(run), logged["step_count"]] = {
                            metric: statistics.fmean(values) for metric, values in logged.items()
                            if metric != "step_count"}
    return out


@pytest.fixture
def marl_eval_mock(mirror_root):
    """marl-eval's mock log, byte for byte as published, from the data mirror; skips when the mirror lacks it."""
    path = mirror_root / MARL_EVAL_MOCK
    if not path.is_file():
        pytest.skip(f"marl-eval's mock log is not in the mirror {mirror_root} (expected at {path})")
    return path


def test_marl_eval_mock_file_against_the_json_by_hand(marl_eval_mock):
    path = marl_eval_mock
    data = json.loads(path.read_text())
    frame = rlstats.read_logs(path, format="marl_eval", progress=False)
    assert list(frame.columns) == ["agent", "task", "seed", "environment", "step", "return", "win_rate", "source"]
    by_hand = _marl_eval_by_hand(data)
    assert len(frame) == len(by_hand) == 54
    for row in frame.itertuples(index=False):
        expected = by_hand[row.environment, row.task, row.agent, row.seed, row.step]
        assert (row[5], row.win_rate) == (expected["return"], expected["win_rate"])
    # runs sorted by their fields (audit s13: the file's order put seed 43289 first), so its rows come after 42's
    first = frame[frame["seed"] == 43289].iloc[0]
    assert (first["agent"], first["task"], first["seed"], first["step"], first["return"]) == \
        ("algo_1", "task_1", 43289, 10006, 2.5)  # [1, 2, 3, 4] at STEP_1
    assert frame["seed"].iloc[0] == 42 and first.name == 3
    assert frame["seed"].dtype == np.int64 and sorted(set(frame["seed"])) == [42, 43289]
    assert frame.attrs[NOTES_ATTR][0] == (
        "read 18 runs from 1 marl-eval JSON file, metrics 'return', 'win_rate' (each the mean of the values logged "
        "at an evaluation); pass tags= for the absolute metrics 'absolute_metrics/return', "
        "'absolute_metrics/win_rate'")

    absolute = rlstats.read_logs(path, format="marl_eval", tags={"absolute_metrics/return": "absolute"},
                                 progress=False)
    assert len(absolute) == 18 and (absolute["step"] == 30000).all()
    run = data["env_1"]["task_1"]["algo_1"]["43289"]
    assert absolute["absolute"].iloc[1] == statistics.fmean(run["absolute_metrics"]["return"]) == 3.625


def test_marl_eval_as_its_json_logger_writes_it(tmp_path):
    """JsonLogger writes <path>/metrics.json: runs named seed_<seed>, evaluations step_<i> with elapsed_time and
    one value per metric; a folder of such files (one per experiment) is found without format=."""
    for seed, returns in ((1, [[1.0, 3.0], [5.0, 6.0]]), (2, [[2.0, 2.0], [4.0, 9.0]])):
        run = {"absolute_metrics": {"episode_return": [7.0 + seed]}}
        for i, values in enumerate(returns):
            run[f"step_{i}"] = {"step_count": 1000 * (i + 1), "elapsed_time": 10.0 * i, "episode_return": values,
                                "win_rate": [0.5 * i]}
        folder = tmp_path / f"experiment_{seed}"
        folder.mkdir()
        (folder / "metrics.json").write_text(json.dumps({"SMAX": {"2s3z": {"IPPO": {f"seed_{seed}": run}}}}))
    frame = rlstats.read_logs(tmp_path, progress=False)
    assert frame[["agent", "task", "seed", "environment", "step"]].values.tolist() == [
        ["IPPO", "2s3z", 1, "SMAX", 1000], ["IPPO", "2s3z", 1, "SMAX", 2000],
        ["IPPO", "2s3z", 2, "SMAX", 1000], ["IPPO", "2s3z", 2, "SMAX", 2000]]
    assert frame["episode_return"].tolist() == [2.0, 5.5, 2.0, 6.5]
    assert frame["win_rate"].tolist() == [0.0, 0.5, 0.0, 0.5]
    assert frame["time_elapsed"].tolist() == [0.0, 10.0] * 2
    # a pattern over the files' folders adds its fields to the ones the JSON states
    named = rlstats.read_logs(tmp_path, "{experiment}", progress=False, tags="absolute_metrics/episode_return")
    assert named[["experiment", "seed", "step", "absolute_metrics/episode_return"]].values.tolist() == [
        ["experiment_1", 1, 2000, 8.0], ["experiment_2", 2, 2000, 9.0]]


def test_a_pattern_field_that_renames_a_marl_eval_algorithm_is_an_error(marl_eval_mock, tmp_path):
    """The mock file's three algorithms under a folder 'mava' read with {agent}: the path's 'mava' would replace
    algo_1, algo_2 and algo_3 and merge their runs; an error names the file, the field, both values and the way on."""
    (tmp_path / "mava").mkdir()
    (tmp_path / "mava" / "metrics.json").write_bytes(marl_eval_mock.read_bytes())
    with pytest.raises(OptionError) as info:
        rlstats.read_logs(tmp_path, "{agent}", progress=False)
    assert str(info.value) == (
        "pattern= gives agent='mava' for mava/metrics.json (run env_1/task_1/algo_1/43289), but the file states "
        "agent='algo_1' (the algorithm key); the pattern's value would replace the file's, so runs the file tells "
        "apart could merge. Drop {agent} from the pattern (the file names it), or name that part of the path "
        "otherwise, e.g. {path_agent}, to keep both")
    (tmp_path / "runs" / "seed_1").mkdir(parents=True)
    (tmp_path / "runs" / "seed_1" / "metrics.json").write_text(json.dumps(
        {"SMAX": {"2s3z": {"IPPO": {"seed_7": {"step_1": {"step_count": 1, "return": [1.0]}}}}}}))
    with pytest.raises(OptionError, match=r"gives seed='1' for seed_1/metrics.json \(run SMAX/2s3z/IPPO/seed_7\), "
                                          r"but the file states seed='7' \(the run key, less a leading 'seed_'\)"):
        rlstats.read_logs(tmp_path / "runs", "seed_{seed}", progress=False)
    with pytest.raises(OptionError, match="gives task='3m' for seed_1/metrics.json .*, but the file states "
                                          "task='2s3z'"):
        rlstats.read_logs(tmp_path / "runs", lambda path: {"task": "3m"}, progress=False)
    # the path's part named otherwise: both are kept
    renamed = rlstats.read_logs(tmp_path, "{path_agent}/metrics.json", progress=False)
    assert renamed.groupby("agent").ngroups == 3 and set(renamed["path_agent"]) == {"mava"}


def test_a_pattern_that_agrees_with_a_marl_eval_file_adds_nothing_but_its_note(tmp_path):
    for seed in (1, 2):
        folder = tmp_path / "IPPO" / f"seed_{seed}"
        folder.mkdir(parents=True)
        (folder / "metrics.json").write_text(json.dumps(
            {"SMAX": {"2s3z": {"IPPO": {f"seed_{seed}": {"step_1": {"step_count": 10, "return": [1.0, seed]}}}}}}))
    frame = rlstats.read_logs(tmp_path, "{agent}/seed_{seed}", progress=False)
    assert frame[["agent", "task", "seed", "environment", "return"]].values.tolist() == [
        ["IPPO", "2s3z", 1, "SMAX", 1.0], ["IPPO", "2s3z", 2, "SMAX", 1.5]]
    assert frame.attrs[NOTES_ATTR][2] == ("columns 'task' (the task key), 'environment' (the environment key) from "
                                          "the logs, as the pattern '{agent}/seed_{seed}' gives no {task} or "
                                          "{environment}")
    bare = rlstats.read_logs(tmp_path, progress=False)
    assert bare.attrs[NOTES_ATTR][2] == (
        "columns 'agent' (the algorithm key), 'task' (the task key), 'seed' (the run key, less a leading 'seed_'), "
        "'environment' (the environment key) from the logs, as there is no pattern")


# ----------------------------------------------------------------------------- smooth=

def _rolling_by_pandas(frame, column, window, unit):
    """The trailing mean per run computed by pandas: a window of rows, or of steps as a time-based window."""
    out = []
    for _, run in frame.groupby(["agent", "task", "seed"], sort=False):
        values = run[column].dropna()
        if unit == "episodes":
            smoothed = values.rolling(window, min_periods=1).mean()
        else:  # steps as nanoseconds: pandas' window "<n>ns" holds (t - n, t]
            timed = pd.Series(values.to_numpy(), index=pd.to_timedelta(run.loc[values.index, "step"], unit="ns"))
            smoothed = pd.Series(timed.rolling(f"{window}ns").mean().to_numpy(), index=values.index)
        out.append(smoothed.reindex(run.index))
    return pd.concat(out).to_numpy()


@pytest.fixture
def monitor_runs(tmp_path):
    """2 agents x 2 seeds of one monitor.csv each, 40 to 52 episodes of lengths 5 to 44."""
    gen = np.random.default_rng(0)
    for agent in ("a2c", "ppo"):
        for seed in (0, 1):
            n = int(gen.integers(40, 53))
            write_monitor(tmp_path / agent / "CartPole-v1" / f"seed_{seed}" / "0.monitor.csv",
                          np.round(gen.normal(100, 30, n), 6), gen.integers(5, 45, n))
    return tmp_path


@pytest.mark.parametrize("window, unit", [(1, "episodes"), (7, "episodes"), (30, "steps"), (500, "steps")])
def test_smooth_equals_pandas_rolling(monitor_runs, window, unit):
    raw = rlstats.read_logs(monitor_runs, SB3_PATTERN, progress=False)
    smoothed = rlstats.read_logs(monitor_runs, SB3_PATTERN, progress=False, smooth=window, smooth_over=unit)
    pd.testing.assert_frame_equal(smoothed.drop(columns="r"), raw.drop(columns="r"))  # nothing else changes
    np.testing.assert_allclose(smoothed["r"], _rolling_by_pandas(raw, "r", window, unit), rtol=1e-12)
    word = "episodes" if unit == "episodes" else "steps"
    said = f"'r' smoothed: each value is the mean of its run's values logged over the last {window} {word}"
    assert any(note.startswith(said) for note in smoothed.attrs[NOTES_ATTR])


def test_smooth_by_hand_and_in_the_result(tmp_path):
    write_monitor(tmp_path / "a2c" / "CartPole-v1" / "seed_0" / "0.monitor.csv", [1, 2, 3, 10, 20], [14] * 5)
    write_monitor(tmp_path / "ppo" / "CartPole-v1" / "seed_0" / "0.monitor.csv", [5, 7, 9, 11, 13], [10, 20, 30, 5, 5])
    frame = rlstats.read_logs(tmp_path, SB3_PATTERN, progress=False, smooth=2)
    assert frame["r"].tolist() == [1, 1.5, 2.5, 6.5, 15, 5, 6, 8, 10, 12]
    steps = rlstats.read_logs(tmp_path, SB3_PATTERN, progress=False, smooth=20, smooth_over="steps")
    # ppo ends episodes at steps 10, 30, 60, 65, 70: windows (s - 20, s] hold 1, 1, 1, 2 and 3 episodes
    assert steps["r"].tolist()[5:] == [5, 7, 9, 10, 11]
    result = rlstats.summarize_runs(frame, "r ~ agent | task/seed", step="step")
    assert result["r"].tolist() == [15.0, 12.0]
    assert any("smoothed: each value is the mean" in note for note in result.attrs[NOTES_ATTR])


def test_smooth_each_column_over_the_rows_it_was_logged_at(tmp_path):
    """Two scalars logged at different steps: each is smoothed over its own logged values, gaps stay gaps."""
    for seed in (0, 1):
        lines = ['{"step": 0, "eval/return": 1.0, "train/loss": 4.0}', '{"step": 1, "train/loss": 2.0}',
                 f'{{"step": 2, "eval/return": {3.0 + seed}, "train/loss": 0.0}}']
        path = tmp_path / "ppo" / "hopper" / f"seed_{seed}" / "log.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text("\n".join(lines) + "\n")
    frame = rlstats.read_logs(tmp_path, SB3_PATTERN, progress=False, tags=["eval/return", "train/loss"], smooth=2)
    values = frame["eval/return"].to_numpy()
    assert values[[0, 2, 3, 5]].tolist() == [1.0, 2.0, 1.0, 2.5] and np.isnan(values[[1, 4]]).all()
    assert frame["train/loss"].tolist()[:3] == [4.0, 3.0, 1.0]


# ----------------------------------------------------------------------------- the table of formats

def _write_events(path):
    tensorboardX = pytest.importorskip("tensorboardX")
    with tensorboardX.SummaryWriter(str(path.parent)) as writer:
        for step, value in ((100, 1.5), (200, 2.5)):
            writer.add_scalar("eval/return", value, step)


def _write_text(text):
    return lambda path: path.write_text(text)


MARL_EVAL_SAMPLE = {"env": {"task": {"algo": {"seed_0": {"step_0": {"step_count": 100, "return": [1.0, 2.0]},
                                                         "step_1": {"step_count": 200, "return": [2.0, 3.0]}}}}}}
#: format -> (file name, writer, column): a file of one run logging 1.5 at step 100 and 2.5 at step 200.
SAMPLES = {
    "tensorboard": ("events.out.tfevents.1.host", _write_events, "eval/return"),
    "sb3_monitor": ("0.monitor.csv", lambda path: write_monitor(path, [1.5, 2.5], [100, 100]), "r"),
    "sb3_progress": ("progress.csv", _write_text("time/total_timesteps,eval/mean_reward\n100,1.5\n200,2.5\n"),
                     "eval/mean_reward"),
    "spinup": ("progress.txt", _write_text("Epoch\tAverageTestEpRet\tTotalEnvInteracts\n0\t1.5\t100\n1\t2.5\t200\n"),
               "AverageTestEpRet"),
    "csv": ("log.csv", _write_text("global_step,charts/episodic_return\n100,1.5\n200,2.5\n"), "charts/episodic_return"),
    "jsonl": ("log.jsonl", _write_text('{"step": 100, "eval/return": 1.5}\n{"step": 200, "eval/return": 2.5}\n'),
              "eval/return"),
    "wandb_csv": ("export.csv", _write_text('"Step","run - eval/return","run - eval/return__MIN"\n'
                                            '100,1.5,1\n200,2.5,2\n'), "eval/return"),
    "sb3_eval": ("evaluations.npz", lambda path: write_evaluations(path.parent, [100, 200], [[1.0, 2.0], [2.0, 3.0]],
                                                                    [[5, 5], [5, 5]]), "eval/mean_reward"),
    "marl_eval": ("metrics.json", _write_text(json.dumps(MARL_EVAL_SAMPLE)), "return"),
}


def test_every_format_record_is_complete_and_reachable(tmp_path):
    from rlstats.cli import build_parser
    from rlstats.logs import FORMATS, file_format
    from rlstats.logs._formats import load

    assert set(SAMPLES) == set(FORMATS)  # every format is read below
    with pytest.raises(OptionError, match="format='nope' is not one of the allowed values: " +
                                          ", ".join(repr(name) for name in FORMATS) + "$"):
        rlstats.read_logs(".", format="nope")
    with pytest.raises(LogReadError, match=r"\(looked for events\.out\.tfevents\.\*, \*monitor\.csv, progress\.csv, "
                                           r"progress\.txt, \*\.csv, \*\.jsonl, progress\.json, evaluations\.npz, "
                                           r"metrics\.json\)$"):  # the names the records recognise
        rlstats.read_logs(tmp_path)
    command = build_parser()._subparsers._group_actions[0].choices["read-logs"]
    assert list(next(a for a in command._actions if a.dest == "format").choices) == list(FORMATS)
    assert len({record.label for record in FORMATS.values()}) == len(FORMATS)
    for name, record in FORMATS.items():
        assert record.name == name and record.label
        assert load(record.reader).__module__.startswith("rlstats.logs._")
        for hook in (record.default_tags, record.runs_inside, record.combine):
            assert hook is None or callable(load(hook))
        assert set(record.also_reads) <= set(FORMATS) - {name}
        # Reachable: its own names announce it (no record before it takes them), or format= names it.
        names = [*record.file_names, *(f"x{e}" for e in record.name_endings),
                 *(f"{b}x" for b in record.name_beginnings)]
        assert [file_format(n) for n in names] == [name] * len(names) and (names or record.also_reads)
        assert record.reads(SAMPLES[name][0])


@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_format_reads_its_sample_with_and_without_format(tmp_path, name):
    from rlstats.logs import FORMATS, file_format

    file_name, write, column = SAMPLES[name]
    (tmp_path / "run").mkdir()
    write(tmp_path / "run" / file_name)
    frame = rlstats.read_logs(tmp_path, format=name, progress=False)
    assert frame["step"].tolist() == [100, 200] and frame[column].tolist() == [1.5, 2.5]
    assert frame.attrs[NOTES_ATTR][0].startswith(f"read 1 run from 1 {FORMATS[name].label.removesuffix('s')}, ")
    note = FORMATS[name].note_of({column: column for column in frame.columns})  # the tags read, by default
    assert (note in frame.attrs[NOTES_ATTR]) if note else len(frame.attrs[NOTES_ATTR]) == 1
    found = rlstats.read_logs(tmp_path, progress=False)  # a W&B export is found as a CSV file, read the same
    assert found.attrs["read_log"].format == file_format(file_name) == (name if name != "wandb_csv" else "csv")
    pd.testing.assert_frame_equal(found, frame)


def test_no_format_is_named_outside_its_record():
    """The readers and read_logs ask the records, never ``if format == "..."``: no code string names a format."""
    import ast
    from pathlib import Path

    from rlstats.logs import FORMATS

    package = Path(rlstats.__file__).parent
    for path in [*sorted((package / "logs").glob("*.py")), package / "cli" / "logs.py"]:
        if path.name == "_formats.py":
            continue
        tree = ast.parse(path.read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
                      and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
        named = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                 and node.value in FORMATS and id(node) not in docstrings]
        assert not named, f"{path.name} names the formats {named}"
