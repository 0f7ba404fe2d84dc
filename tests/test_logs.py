"""rlstats.read_logs on real files: TensorBoard events written by tensorboardX and by the tensorboard
package's own writer, SB3's monitor.csv and progress.csv, CSV / JSON-lines / Spinning Up loggers and
W&B CSV exports, checked cell by cell; corrupt, truncated, empty and incomplete files too.

Stable-Baselines3 needs torch, far too heavy for the test extra, so its two files are written here in
its format, following its source (stable-baselines3 2.x):

- ``monitor.csv``: ``stable_baselines3/common/monitor.py``, ``ResultsWriter.__init__`` writes
  ``"#%s\\n" % json.dumps({"t_start": ..., "env_id": ...})`` and a ``csv.DictWriter`` header
  ``r,l,t``; ``write_row`` writes ``{"r": round(ep_rew, 6), "l": ep_len, "t": round(time - t_start, 6)}``
  (csv's default line terminator ``\\r\\n``).
- ``progress.csv``: ``stable_baselines3/common/logger.py``, ``CSVOutputFormat.write`` (reproduced
  by :func:`sb3_progress_csv` below): keys first seen later are appended to the header, earlier
  rows are rewritten with empty cells, values are written with ``str()``.
"""

import csv
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import NOTES_ATTR
from rlstats.errors import LogReadError, OptionError, RlstatsWarning
from rlstats.logs import choose_return_tag

tensorboardX = pytest.importorskip("tensorboardX")


def write_tb(folder, scalars, walltime0=1_700_000_000.0, suffix=""):
    """Write {tag: [(step, value), ...]} with tensorboardX; wall time = walltime0 + step / 1000. A second file in
    one folder within the same second needs a ``suffix`` (the name holds the time in seconds and the host)."""
    writer = tensorboardX.SummaryWriter(str(folder), filename_suffix=suffix)
    for tag, points in scalars.items():
        for step, value in points:
            writer.add_scalar(tag, value, global_step=step, walltime=walltime0 + step / 1000)
    writer.close()


def event_files(folder):
    return sorted(folder.rglob("events.out.tfevents.*"))


@pytest.fixture
def tb_runs(tmp_path):
    """2 agents x 2 tasks x 2 seeds, 4 steps; eval return = 10 a + t + s + step / 100 (a float32)."""
    root = tmp_path / "runs"
    for a, agent in enumerate(["dqn", "ppo"]):
        for t, task in enumerate(["hopper", "walker"]):
            for seed in (0, 1):
                points = [(step, 10 * a + t + seed + step / 100) for step in (0, 100, 200, 300)]
                write_tb(root / agent / task / f"seed_{seed}",
                         {"eval/mean_reward": points, "train/loss": [(s, 0.5) for s, _ in points],
                          "rollout/ep_rew_mean": [(s, 1.0) for s, _ in points]})
    return root


def test_tensorboard_cell_by_cell(tb_runs):
    frame = rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", progress=False)
    assert list(frame.columns) == ["agent", "task", "seed", "step", "eval/mean_reward", "wall_time", "source"]
    assert len(frame) == 2 * 2 * 2 * 4
    assert frame["seed"].dtype == np.int64 and frame["step"].dtype == np.int64
    for row in frame.itertuples(index=False):
        a, t = ["dqn", "ppo"].index(row.agent), ["hopper", "walker"].index(row.task)
        expected = np.float32(10 * a + t + row.seed + row.step / 100)  # event files store float32
        assert getattr(row, "_4") == float(expected)
        assert row.wall_time == pytest.approx(1_700_000_000.0 + row.step / 1000, abs=1e-6)
        assert row.source.startswith(f"{row.agent}/{row.task}/seed_{row.seed}/events.out.tfevents.")
    assert frame[["agent", "task", "seed", "step"]].equals(
        frame[["agent", "task", "seed", "step"]].sort_values(["agent", "task", "seed", "step"]))
    notes = frame.attrs[NOTES_ATTR]
    assert "read 8 runs from 8 TensorBoard event files" in notes[0]
    assert "'eval/mean_reward' (chosen as the one evaluation return" in notes[0]
    assert frame.attrs["read_log"].ok


def test_tags_rename_several_and_unknown(tb_runs):
    frame = rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", progress=False,
                              tags={"eval/mean_reward": "score", "train/loss": "loss"})
    assert {"score", "loss"} <= set(frame.columns) and (frame["loss"] == 0.5).all()
    with pytest.raises(OptionError, match="no run logs 'nope'.*'eval/mean_reward'"):
        rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", tags="nope", progress=False)


def test_default_tag_ambiguity_lists_the_tags(tmp_path):
    write_tb(tmp_path / "a" / "t" / "seed_1", {"eval/return": [(0, 1.0)], "test/reward": [(0, 2.0)],
                                                "loss": [(0, 3.0)]})
    with pytest.raises(OptionError, match=r"several tags look like.*'eval/return', 'test/reward'.*Logged tags"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)


def test_choose_return_tag_rules():
    assert choose_return_tag(["eval/mean_reward", "eval/mean_ep_length", "rollout/ep_rew_mean"])[0] == \
        "eval/mean_reward"
    assert choose_return_tag(["charts/episodic_return", "charts/episodic_length", "losses/value_loss"])[0] == \
        "charts/episodic_return"
    assert choose_return_tag(["AverageEpRet", "StdEpRet", "AverageTestEpRet", "StdTestEpRet",
                              "MaxTestEpRet", "TestEpLen"])[0] == "AverageTestEpRet"
    with pytest.raises(OptionError, match="no logged tag looks like a return"):
        choose_return_tag(["loss", "entropy"])


def test_tensor_scalars_written_by_the_tensorboard_package(tmp_path):
    """TF2's tf.summary.scalar writes a one-element tensor with the 'scalars' plugin, not simple_value."""
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    from tensorboard.util import tensor_util

    writer = EventFileWriter(str(tmp_path / "sac" / "ant" / "3"))
    for step, value in [(0, 1.25), (5000, 2.5), (10000, -3.75)]:
        item = summary_pb2.Summary.Value(tag="eval/return", tensor=tensor_util.make_tensor_proto(np.float32(value)))
        item.metadata.plugin_data.plugin_name = "scalars"
        writer.add_event(event_pb2.Event(step=step, wall_time=100.0 + step,
                                         summary=summary_pb2.Summary(value=[item])))
    writer.close()
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)
    assert frame["seed"].tolist() == [3, 3, 3] and frame["agent"].tolist() == ["sac"] * 3
    assert frame["step"].tolist() == [0, 5000, 10000]
    assert frame["eval/return"].tolist() == [1.25, 2.5, -3.75]
    assert frame["wall_time"].tolist() == [100.0, 5100.0, 10100.0]


def test_a_restart_in_the_same_folder_supersedes_and_keep_resolves_repeats_within_a_file(tmp_path):
    run = tmp_path / "ppo" / "hopper" / "seed_0"
    write_tb(run, {"eval/return": [(0, 0.0), (100, 1.0), (200, 2.0), (300, 3.0), (300, 3.5)]})
    (first,) = event_files(tmp_path)
    # The restart from the checkpoint at step 200 writes a second file, later (wall time 1,700,001,000 on).
    write_tb(run, {"eval/return": [(200, 20.0), (300, 30.0), (400, 40.0)]}, walltime0=1_700_001_000.0,
             suffix=".restart")
    second = [f for f in event_files(tmp_path) if f != first][0]
    for keep in ("last", "first"):
        frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False, keep=keep)
        assert frame["step"].tolist() == [0, 100, 200, 300, 400]
        assert frame["eval/return"].tolist() == [0.0, 1.0, 20.0, 30.0, 40.0]  # superseded whatever keep
        assert frame["source"].tolist()[1:3] == [f"ppo/hopper/seed_0/{first.name}",
                                                 f"ppo/hopper/seed_0/{second.name}"]
        notes = " ".join(frame.attrs[NOTES_ATTR])
        assert f"{second.name} (steps 200 to 400, restarts: 3 values before it at steps 200 to 300 dropped)" in notes
        assert "logged again" not in notes  # the first file's two values at 300 were superseded
    # Without the restart, keep= picks between the two values the first file logged at step 300.
    second.unlink()
    for keep, at_300 in (("last", 3.5), ("first", 3.0)):
        frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False, keep=keep)
        assert frame["eval/return"].tolist() == [0.0, 1.0, 2.0, at_300]
        assert (f"1 value logged again at a step already logged for the same run and tag in one file; the one "
                f"written {keep} was kept") in frame.attrs[NOTES_ATTR]


def test_fast_decoding_equals_the_protobuf_class(tmp_path):
    """Plain scalars are decoded with numpy; everything else (histograms, text, several values in one
    event, TF2 tensors) goes through tensorboard's protobuf class. Both paths give the same piece."""
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.util import tensor_util

    from rlstats.logs._tensorboard import read_events

    writer = tensorboardX.SummaryWriter(str(tmp_path))
    rng = np.random.default_rng(0)
    for i, step in enumerate([0, 1, 127, 128, 16_383, 16_384, 2**31 + 5, 2**40]):  # varints of 1 to 6 bytes
        writer.add_scalar("eval/return", rng.normal() * 10 ** i, global_step=step, walltime=1e9 + i)
        writer.add_scalar("é/ü 长", float(i), global_step=step)  # non-ASCII tags
        writer.add_histogram("weights", rng.normal(size=50), global_step=step)
        writer.add_text("note", f"step {step}", global_step=step)
    writer.add_scalar("eval/return", float("nan"), global_step=2**40 + 1)
    writer.add_scalar("eval/return", float("-inf"), global_step=2**40 + 2)
    writer.add_scalars("group", {"a": 1.0, "b": 2.0}, global_step=3)  # written to sub-folders
    writer.flush()
    item = summary_pb2.Summary.Value(tag="eval/return", tensor=tensor_util.make_tensor_proto(np.float32(7.5)))
    item.metadata.plugin_data.plugin_name = "scalars"
    two = [summary_pb2.Summary.Value(tag="x", simple_value=1.5), summary_pb2.Summary.Value(tag="y", simple_value=2.5)]
    from tensorboardX.proto.event_pb2 import Event as WriterEvent

    for event in (event_pb2.Event(step=9, wall_time=5.0, summary=summary_pb2.Summary(value=[item])),
                  event_pb2.Event(step=10, wall_time=6.0, summary=summary_pb2.Summary(value=two))):
        writer._get_file_writer().add_event(WriterEvent.FromString(event.SerializeToString()))
    writer.close()
    (path,) = sorted(tmp_path.glob("events.out.tfevents.*"))
    fast, slow = read_events(path)[0], read_events(path, fast=False)[0]
    assert [fast.tags[i] for i in fast.tag] == [slow.tags[i] for i in slow.tag]
    np.testing.assert_array_equal(fast.step, slow.step)
    np.testing.assert_array_equal(fast.value, slow.value)
    np.testing.assert_array_equal(fast.wall_time, slow.wall_time)
    assert set(fast.tags) == {"eval/return", "é/ü_长", "x", "y"}  # tensorboardX writes spaces as _
    assert fast.step.tolist()[-4:] == [2**40 + 2, 9, 10, 10] and fast.value.tolist()[-3:] == [7.5, 1.5, 2.5]


def test_checksums_match_tensorboards_own(monkeypatch):
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c as reference

    from rlstats.logs._tensorboard import masked_crc32c

    rng = np.random.default_rng(1)
    blobs = [rng.integers(0, 256, size=n, dtype=np.uint8).tobytes() for n in (0, 1, 7, 8, 9, 64, 300, 8)]
    data = b"".join(blobs)
    starts = np.cumsum([0] + [len(b) for b in blobs[:-1]])
    ours = masked_crc32c(np.frombuffer(data, dtype=np.uint8), starts, [len(b) for b in blobs])
    assert ours.tolist() == [reference(b) for b in blobs]
    for block in (1, 5, 64):  # gathered a few columns at a time: the same checksums
        monkeypatch.setattr("rlstats.logs._tensorboard.CRC_BLOCK_BYTES", block)
        again = masked_crc32c(np.frombuffer(data, dtype=np.uint8), starts, [len(b) for b in blobs])
        assert again.tolist() == ours.tolist()


def test_one_long_record_among_many_short_ones_reads_in_bounded_memory(tmp_path):
    import tracemalloc

    writer = tensorboardX.SummaryWriter(str(tmp_path / "a" / "t" / "1"))
    for step in range(2_000):
        writer.add_scalar("eval/return", float(step), global_step=step)
    writer.add_text("notes", "x" * 20_000, global_step=0)  # one record of 20 kB: a (2,001 x 20 kB) matrix before
    writer.close()
    tracemalloc.start()
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert frame["eval/return"].tolist() == [float(s) for s in range(2_000)]
    assert peak < 60e6  # 680 MB before, for a file of 120 kB


def _damage(tb_runs):
    files = event_files(tb_runs)
    corrupt, truncated, empty = files[0], files[1], files[2]
    data = bytearray(corrupt.read_bytes())
    data[len(data) // 2] ^= 0x40
    corrupt.write_bytes(bytes(data))
    truncated.write_bytes(truncated.read_bytes()[:-10])
    empty.write_bytes(b"")
    # A run that never logged the evaluation return.
    write_tb(tb_runs / "ppo" / "ant" / "seed_0", {"rollout/ep_rew_mean": [(0, 1.0)]})
    return {f.relative_to(tb_runs).as_posix(): kind for f, kind in
            [(corrupt, "corrupt"), (truncated, "truncated"), (empty, "empty")]}


def test_bad_files_are_an_error_listing_them(tb_runs):
    damaged = _damage(tb_runs)
    with pytest.raises(LogReadError) as info:
        rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", tags="eval/mean_reward", progress=False)
    message = str(info.value)
    assert "4 of 9 TensorBoard event files" in message and "on_error='skip'" in message
    for source, kind in damaged.items():
        assert f"{source}: {kind}:" in message
    assert "ppo/ant/seed_0/events" in message and "missing tag: no values of 'eval/mean_reward'" in message


def test_bad_files_skipped_with_a_warning_and_a_log(tb_runs):
    damaged = _damage(tb_runs)
    with pytest.warns(RlstatsWarning, match="skipped 4 of 9 TensorBoard event files"):
        frame = rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", tags="eval/mean_reward",
                                  on_error="skip", progress=False)
    log = frame.attrs["read_log"]
    assert not log.ok and log.skipped and len(log.files) == 9
    kinds = dict(zip(log.to_frame()["source"], log.to_frame()["kind"]))
    assert {k: v for k, v in kinds.items() if k in damaged} == damaged
    assert sorted(kinds.values()) == ["corrupt", "empty", "missing tag", "truncated"]
    assert frame.groupby(["agent", "task", "seed"]).ngroups == 5  # 8 runs, 3 damaged, ant never complete
    assert "4 files or runs could not be used" in " ".join(frame.attrs[NOTES_ATTR])
    assert "truncated" in str(log)


def test_truncated_header_and_garbage(tmp_path):
    write_tb(tmp_path / "a" / "t" / "1", {"eval/return": [(0, 1.0), (1, 2.0)]})
    (path,) = event_files(tmp_path)
    path.write_bytes(path.read_bytes() + b"\x05\x00")
    with pytest.raises(LogReadError, match="truncated: the file ends inside a record header"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)
    path.write_bytes(b"this is not an event file at all, just text")
    with pytest.raises(LogReadError, match="corrupt: the record header at byte 0 fails its checksum"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)


def on_threads_as_if_shipped(monkeypatch):
    """read_logs(n_jobs=...) on joblib's threads, each file's work shipped as loky's worker processes receive it
    (loky's pickler) and its pieces pickled back: a reader that does not pickle fails only there. Loky's processes
    cost seconds of CPU to start and import rlstats, so the tests run them with -m slow only."""
    import pickle

    from joblib import parallel_config
    from joblib.externals.loky.backend.reduction import dumps  # the pickler loky's processes are sent work with
    from rlstats.logs import _read

    read = _read._read_file

    def shipped(*work):
        return pickle.loads(dumps(read(*pickle.loads(dumps(work)))))

    monkeypatch.setattr(_read, "_read_file", shipped)
    return parallel_config(backend="threading")


PARALLEL = ["threading", pytest.param("loky", marks=pytest.mark.slow)]


@pytest.mark.parametrize("backend", PARALLEL)
def test_parallel_reading_gives_the_same_frame(tb_runs, backend, monkeypatch):
    from joblib import parallel_config

    one = rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", progress=False)
    with on_threads_as_if_shipped(monkeypatch) if backend == "threading" else parallel_config(backend="loky"):
        two = rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", progress=False, n_jobs=2)
    pd.testing.assert_frame_equal(one, two)


def test_progress_bar_goes_to_stderr_only(tb_runs, capsys):
    rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", progress=True)
    assert capsys.readouterr().out == ""


def test_patterns_callable_unmatched_and_string_seeds(tb_runs):
    write_tb(tb_runs / "notes" / "scratch", {"eval/mean_reward": [(0, 1.0)]})
    frame = rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", progress=False)
    assert "1 log file did not match the pattern" in " ".join(frame.attrs[NOTES_ATTR])
    assert frame.attrs["read_log"].ignored[0].startswith("notes/scratch/")

    def fields(relative):
        parts = relative.split("/")
        return None if parts[0] == "notes" else {"agent": parts[0].upper(), "task": parts[1], "seed": parts[2]}

    named = rlstats.read_logs(tb_runs, fields, progress=False)
    assert set(named["agent"]) == {"DQN", "PPO"} and set(named["seed"]) == {"seed_0", "seed_1"}
    glob = rlstats.read_logs(tb_runs, "{agent}/*/seed_{seed}", progress=False)
    # Both tasks of one seed fall in one run: the second starts again at step 0, a rerun, read apart and stated.
    assert list(glob.columns[:4]) == ["agent", "seed", "attempt", "step"]
    assert sorted(set(glob["attempt"])) == ["hopper/seed_0", "hopper/seed_1", "walker/seed_0", "walker/seed_1"]
    assert "4 runs started again from their first step (a rerun, not a restart)" in " ".join(glob.attrs[NOTES_ATTR])
    no_pattern = rlstats.read_logs(tb_runs / "dqn", progress=False)
    assert list(no_pattern.columns[:2]) == ["run", "step"]
    assert sorted(set(no_pattern["run"])) == ["hopper/seed_0", "hopper/seed_1", "walker/seed_0", "walker/seed_1"]


def test_pattern_errors(tb_runs):
    for bad, match in [("{agent}/{agent}", "twice"), ("runs/", "no {field}"), ("{agent/{task}", "brace"), (3, "text")]:
        with pytest.raises(OptionError, match=match):
            rlstats.read_logs(tb_runs, bad, progress=False)
    with pytest.raises(LogReadError, match="none of the 8 TensorBoard event files .* matches the pattern"):
        rlstats.read_logs(tb_runs, "{agent}/{task}/run_{seed}", progress=False)


def test_a_field_runs_to_the_first_occurrence_of_the_literal_after_it():
    from rlstats.logs._layout import compile_pattern

    assert compile_pattern("{agent}-{task}-seed{seed}").match("ppo-Hopper-v4-seed1/x") == \
        {"agent": "ppo", "task": "Hopper-v4", "seed": "1"}  # the whole of '-seed', not its '-'
    assert compile_pattern("{agent}_{task}_{seed}").match("sac_Ant_v4_3") == \
        {"agent": "sac", "task": "Ant", "seed": "v4_3"}  # the last field runs to the '/' or the end
    assert compile_pattern("*_{seed}").match("ppo_x_1") == {"seed": "x_1"}  # '*' also stops at the first '_'
    assert compile_pattern("{agent}/**/seed_{seed}").match("ppo/a/seed_2") == {"agent": "ppo", "seed": "2"}
    assert compile_pattern("{agent}/*/seed_{seed}").match("ppo//seed_2") == {"agent": "ppo", "seed": "2"}
    for name in ("ppo/x/seed_", "/x/seed_1", "ppo/x/y/seed_1", "ppo/x/run_1", "ppo/xseed_1"):
        assert compile_pattern("{agent}/*/seed_{seed}").match(name) is None, name
    assert compile_pattern("{agent}/{task}").match("ppo/hopper/seed_0/events") == {"agent": "ppo", "task": "hopper"}
    assert compile_pattern("{agent}_{task}x").match("p_qxrx") is None  # first 'x' only: no backtracking


PATHOLOGICAL_PATTERNS = """
import time
from rlstats.logs._layout import compile_pattern
cases = [("_".join("{f%d}" % i for i in range(6)) + "_x", "a_" * 100),     # over 60 s with backtracking
         ("{a}-{b}-{c}-{d}-{e}-{f}-z", "-" * 200),
         ("_".join("{f%d}" % i for i in range(32)) + "_x", "a_" * 100_000),
         ("{agent}-{task}-seed{seed}/x", "a-" * 100_000 + "seed"),
         ("*-" * 16 + "{a}", "-" * 100_000)]
start = time.process_time()  # CPU seconds: a loaded machine stretches wall time, not the work done
for pattern, name in cases:
    compile_pattern(pattern).match(name)
print(time.process_time() - start)
"""


def test_pattern_matching_takes_linear_time_on_pathological_names():
    import sys

    from conftest import run_child

    # a backtracking matcher takes minutes of CPU here: the cap ends it (SIGXCPU) and the test fails
    done, _ = run_child([sys.executable, "-c", PATHOLOGICAL_PATTERNS], cpu_seconds=60, capture_output=True,
                        text=True)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) < 2.0


def test_adjacent_fields_and_oversized_patterns_are_refused(tb_runs):
    with pytest.raises(OptionError, match=r"puts \{task\} right after \{agent\}.*put a separator between them, "
                                          r"e.g. '\{agent\}_\{task\}'"):
        rlstats.read_logs(tb_runs, "{agent}{task}/seed_{seed}", progress=False)
    with pytest.raises(OptionError, match=r"puts \* right after \{agent\}"):
        rlstats.read_logs(tb_runs, "{agent}*/seed_{seed}", progress=False)
    nine = "".join("{f%d}" % i for i in range(9)) + "x"  # 12-47 s on a 40-character name with backtracking
    with pytest.raises(OptionError, match=r"puts \{f1\} right after \{f0\}"):
        rlstats.read_logs(tb_runs, nine, progress=False)
    with pytest.raises(OptionError, match="has 33 fields and '\\*', more than the 32 allowed"):
        rlstats.read_logs(tb_runs, "_".join("{f%d}" % i for i in range(33)), progress=False)
    with pytest.raises(OptionError, match="has 4,097 characters, more than the 4,096"):
        rlstats.read_logs(tb_runs, "{agent}/" + "x" * 4089, progress=False)


def test_missing_folder_and_no_logs(tmp_path):
    with pytest.raises(LogReadError, match="no such folder"):
        rlstats.read_logs(tmp_path / "nowhere")
    (tmp_path / "readme.md").write_text("hi")
    with pytest.raises(LogReadError, match="no training logs under"):
        rlstats.read_logs(tmp_path)
    with pytest.raises(OptionError, match="format="):
        rlstats.read_logs(tmp_path, format="tfrecord")
    with pytest.raises(OptionError, match="on_error="):
        rlstats.read_logs(tmp_path, on_error="ignore")
    write_tb(tmp_path / "a" / "1", {"eval/return": [(0, 1.0)]})
    with pytest.raises(OptionError, match="step= names the step column of a table"):
        rlstats.read_logs(tmp_path, "{agent}/{seed}", step="global_step")


# ---------------------------------------------------------------- Stable-Baselines3

def sb3_monitor_csv(path, episodes, t_start, env_id):
    """monitor.csv exactly as SB3's ResultsWriter writes it (see the module docstring)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        handle.write("#%s\n" % json.dumps({"t_start": t_start, "env_id": env_id}))
        writer = csv.DictWriter(handle, fieldnames=("r", "l", "t"))
        writer.writeheader()
        for r, l, t in episodes:
            writer.writerow({"r": round(r, 6), "l": l, "t": round(t, 6)})


def sb3_progress_csv(path, dumps):
    """progress.csv exactly as SB3's CSVOutputFormat.write writes one dump after another."""
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = []
    with open(path, "w+") as handle:
        for key_values in dumps:
            extra_keys = [k for k in key_values if k not in keys]  # SB3 takes a set difference
            if extra_keys:
                keys.extend(extra_keys)
                handle.seek(0)
                lines = handle.readlines()
                handle.seek(0)
                handle.write(",".join(keys) + "\n")
                for line in lines[1:]:
                    handle.write(line[:-1] + "," * len(extra_keys) + "\n")
            handle.write(",".join("" if key_values.get(k) is None else str(key_values[k]) for k in keys) + "\n")


def test_sb3_monitor_csv(tmp_path):
    episodes = {1: [(9.5, 10, 0.012345), (20.25, 20, 0.03), (31.0, 31, 0.07)], 2: [(12.0, 12, 0.01)]}
    for seed, rows in episodes.items():
        sb3_monitor_csv(tmp_path / "ppo" / f"CartPole-v1_{seed}" / "0.monitor.csv", rows, 1_700_000_000.5,
                        "CartPole-v1")
    assert (tmp_path / "ppo" / "CartPole-v1_1" / "0.monitor.csv").read_bytes().startswith(
        b'#{"t_start": 1700000000.5, "env_id": "CartPole-v1"}\nr,l,t\r\n9.5,10,0.012345\r\n')
    frame = rlstats.read_logs(tmp_path, "{agent}/*_{seed}", progress=False)
    assert list(frame.columns) == ["agent", "task", "seed", "step", "r", "wall_time", "source"]
    assert frame["task"].tolist() == ["CartPole-v1"] * 4  # from the header's env_id
    assert frame["seed"].tolist() == [1, 1, 1, 2]
    assert frame["step"].tolist() == [10, 30, 61, 12]  # cumulative episode length
    assert frame["r"].tolist() == [9.5, 20.25, 31.0, 12.0]
    assert frame["wall_time"].tolist() == [1_700_000_000.5 + 0.012345, 1_700_000_000.5 + 0.03,
                                           1_700_000_000.5 + 0.07, 1_700_000_000.5 + 0.01]
    assert "cumulative episode length" in " ".join(frame.attrs[NOTES_ATTR])
    both = rlstats.read_logs(tmp_path, "{agent}/{task}_{seed}", tags=["r", "l"], progress=False)
    assert both["task"].tolist() == ["CartPole-v1"] * 4 and both["l"].tolist() == [10, 20, 31, 12]


def test_a_monitor_env_id_other_than_the_path_is_a_note_through_to_results(tmp_path):
    """A run trained on Pendulum-v0 filed under Pendulum-v1: the path's task is kept (a folder may name a task in
    its own words, e.g. 'hopper' for Hopper-v4), and a note names both, in the frame and in a result."""
    episodes = [(-1200.5, 200, 1.0), (-900.25, 200, 2.0)]
    for agent in ("ppo", "sac"):
        for seed in (0, 1, 2):
            env_id = "Pendulum-v0" if (agent, seed) == ("sac", 1) else "Pendulum-v1"
            for worker in (0, 1):
                sb3_monitor_csv(tmp_path / agent / "Pendulum-v1" / f"seed_{seed}" / f"{worker}.monitor.csv",
                                [(r + seed + worker, l, t) for r, l, t in episodes], 1_700_000_000.0, env_id)
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    assert set(frame["task"]) == {"Pendulum-v1"}
    note = ("2 files read name a run otherwise than its path, whose name is kept: task 'Pendulum-v1' in the path, "
            "'Pendulum-v0' in the header's env_id (2 files, e.g. sac/Pendulum-v1/seed_1/0.monitor.csv)")
    assert note in frame.attrs[NOTES_ATTR]
    assert not any("from the logs" in n for n in frame.attrs[NOTES_ATTR])  # the pattern gives every task
    runs = rlstats.summarize_runs(frame, "r ~ agent | task/seed", step="step")
    result = rlstats.compare(runs, "r ~ agent | task/seed", n_resamples=99, rng=0)
    assert f"Note: {note}" in str(result).splitlines()


def test_a_monitor_env_id_names_the_task_where_the_pattern_has_none(tmp_path):
    sb3_monitor_csv(tmp_path / "ppo" / "run_1" / "0.monitor.csv", [(1.0, 5, 0.5)], 100.0, "Hopper-v4")
    sb3_monitor_csv(tmp_path / "ppo" / "run_2" / "0.monitor.csv", [(2.0, 5, 0.5)], 100.0, "None")  # no spec
    frame = rlstats.read_logs(tmp_path, "{agent}/run_{seed}", progress=False)
    assert frame[["agent", "seed"]].values.tolist() == [["ppo", 1], ["ppo", 2]]
    assert frame["task"].iloc[0] == "Hopper-v4" and pd.isna(frame["task"].iloc[1])  # SB3 writes "None": no env_id
    assert frame.attrs[NOTES_ATTR][2] == ("column 'task' (the header's env_id) from the logs, as the pattern "
                                          "'{agent}/run_{seed}' gives no {task}")
    bare = rlstats.read_logs(tmp_path / "ppo" / "run_1", progress=False)
    assert bare[["run", "task"]].values.tolist() == [[".", "Hopper-v4"]]
    assert "column 'task' (the header's env_id) from the logs, as there is no pattern" in bare.attrs[NOTES_ATTR]


def test_sb3_monitor_files_of_a_vecenv_count_every_environment(tmp_path):
    run = tmp_path / "ppo" / "1"
    sb3_monitor_csv(run / "0.monitor.csv", [(1.0, 10, 0.5), (2.0, 10, 1.5)], 100.0, "X-v0")
    sb3_monitor_csv(run / "1.monitor.csv", [(3.0, 7, 0.25), (4.0, 8, 1.0)], 100.0, "X-v0")
    frame = rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)
    # Time order: env1 (0.25), env0 (0.5), env1 (1.0), env0 (1.5); steps 7, 17, 25, 35.
    assert frame["step"].tolist() == [7, 17, 25, 35]
    assert frame["r"].tolist() == [3.0, 1.0, 4.0, 2.0]
    assert frame["source"].tolist() == ["ppo/1/1.monitor.csv", "ppo/1/0.monitor.csv"] * 2


def test_sb3_monitor_bad_header_and_truncation(tmp_path):
    path = tmp_path / "a" / "1" / "monitor.csv"
    sb3_monitor_csv(path, [(1.0, 5, 0.1), (2.0, 6, 0.2)], 0.0, "X-v0")
    path.write_bytes(path.read_bytes()[:-5])  # the last row cut mid-write: "2.0,"
    with pytest.raises(LogReadError, match="truncated: the last line has no line end.*'2.0,6,'"):
        rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)
    path.write_text("r,l,t\n1,2,3\n")
    with pytest.raises(LogReadError, match="not SB3's '#{json}' header"):
        rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)
    path.write_text('#{"t_start": 0.0, "env_id": "X-v0"}\nr,l,t\n')
    with pytest.raises(LogReadError, match="empty: its header alone, no episode"):
        rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)


def test_sb3_progress_csv(tmp_path):
    dumps = []
    for i in range(1, 5):
        dump = {"time/fps": 900 + i, "time/iterations": i, "time/time_elapsed": 2 * i,
                "time/total_timesteps": 2048 * i, "rollout/ep_rew_mean": 10.5 * i}
        if i % 2 == 0:
            dump.update({"eval/mean_reward": 100.0 * i, "eval/mean_ep_length": 50.0 * i})
        dumps.append(dump)
    sb3_progress_csv(tmp_path / "a2c" / "Pendulum-v1" / "3" / "progress.csv", dumps)
    text = (tmp_path / "a2c" / "Pendulum-v1" / "3" / "progress.csv").read_text()
    assert text.splitlines()[1] == "901,1,2,2048,10.5,,"  # the first dump, rewritten with empty eval cells
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)
    assert list(frame.columns) == ["agent", "task", "seed", "step", "eval/mean_reward", "time_elapsed", "source"]
    # Rows are the steps where a requested scalar was logged: evaluations every other dump.
    assert frame["step"].tolist() == [4096, 8192]
    assert frame["eval/mean_reward"].tolist() == [200.0, 400.0]
    assert frame["time_elapsed"].tolist() == [4.0, 8.0]
    train = rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", tags={"rollout/ep_rew_mean": "score"},
                              progress=False)
    assert train["score"].tolist() == [10.5, 21.0, 31.5, 42.0]


def test_several_formats_in_one_folder_is_an_error(tmp_path):
    sb3_monitor_csv(tmp_path / "a" / "1" / "monitor.csv", [(1.0, 5, 0.1)], 0.0, "X-v0")
    sb3_progress_csv(tmp_path / "a" / "1" / "progress.csv", [{"time/total_timesteps": 5, "eval/mean_reward": 1.0}])
    with pytest.raises(LogReadError, match="1 Stable-Baselines3 monitor.csv file, 1 Stable-Baselines3 logger "
                                           "progress.csv file; choose one with format="):
        rlstats.read_logs(tmp_path, "{agent}/{seed}")
    frame = rlstats.read_logs(tmp_path, "{agent}/{seed}", format="sb3_progress", progress=False)
    assert frame["eval/mean_reward"].tolist() == [1.0]


# ---------------------------------------------------------------- plain loggers

def test_spinning_up_progress_txt(tmp_path):
    header = ["Epoch", "AverageEpRet", "StdEpRet", "AverageTestEpRet", "StdTestEpRet", "TotalEnvInteracts", "Time"]
    rows = [[0, -150.25, 10.0, -140.5, 5.0, 4000, 12.5], [1, -120.0, 9.0, -100.125, 4.0, 8000, 25.0]]
    path = tmp_path / "sac" / "Pendulum" / "s0" / "progress.txt"
    path.parent.mkdir(parents=True)
    # Spinning Up (spinup/utils/logx.py, Logger.dump_tabular): the headers once, then "\t".join(map(str, vals)).
    path.write_text("\t".join(header) + "\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows))
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/s{seed}", progress=False)
    assert frame["step"].tolist() == [4000, 8000]
    assert frame["AverageTestEpRet"].tolist() == [-140.5, -100.125]
    assert frame["time_elapsed"].tolist() == [12.5, 25.0]


def test_cleanrl_style_csv_with_column_mapping(tmp_path):
    path = tmp_path / "ppo_continuous" / "HalfCheetah" / "seed1.csv"
    path.parent.mkdir(parents=True)
    path.write_text("global_step,charts/episodic_return,charts/episodic_length,wall_time\n"
                    "1000,-0.1,1000,1700000000.25\n2000,0.30000000000000004,1000,1700000001.5\n")
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed{seed}.csv", progress=False)
    assert frame["seed"].tolist() == [1, 1] and frame["step"].tolist() == [1000, 2000]
    assert frame["charts/episodic_return"].tolist() == [-0.1, 0.30000000000000004]  # exact decimals
    assert frame["wall_time"].tolist() == [1700000000.25, 1700000001.5]
    mapped = rlstats.read_logs(tmp_path, "{agent}/{task}/seed{seed}.csv", step="charts/episodic_length",
                               tags={"charts/episodic_return": "score"}, progress=False)
    assert mapped["step"].tolist() == [1000] and mapped["score"].tolist() == [0.30000000000000004]
    assert "1 value logged again" in " ".join(mapped.attrs[NOTES_ATTR])
    (tmp_path / "notes.csv").write_text("not,a,log\n1,2\n")  # outside the pattern: never opened
    assert len(rlstats.read_logs(tmp_path, "{agent}/{task}/seed{seed}.csv", progress=False)) == 2
    with pytest.raises(LogReadError, match="step='nope' names no column"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/seed{seed}.csv", step="nope", progress=False)


def test_csv_corrupt_cell_and_truncated_row(tmp_path):
    path = tmp_path / "a" / "t" / "1.csv"
    path.parent.mkdir(parents=True)
    path.write_text("step,eval/return\n0,1.5\n10,oops\n")
    with pytest.raises(LogReadError, match="corrupt: column 'eval/return' holds 'oops' in data row 2"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}.csv", tags="eval/return", progress=False)
    path.write_text("step,eval/return,loss\n0,1.5,3\n10,2")
    with pytest.raises(LogReadError, match="truncated"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}.csv", progress=False)


def test_json_lines(tmp_path):
    path = tmp_path / "a" / "t" / "0" / "metrics.jsonl"
    path.parent.mkdir(parents=True)
    lines = [{"step": 0, "eval/return": 1.0, "_timestamp": 10.0}, {"step": 5, "eval/return": 2.5, "_timestamp": 11.0}]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)
    assert frame["eval/return"].tolist() == [1.0, 2.5] and frame["wall_time"].tolist() == [10.0, 11.0]
    path.write_text(json.dumps(lines[0]) + "\n" + json.dumps(lines[1])[:15])
    with pytest.raises(LogReadError, match="truncated: line 2 is not JSON"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)


def test_deeply_nested_json_is_an_error_naming_the_file_the_line_and_the_bound(tmp_path):
    path = tmp_path / "a" / "t" / "0" / "metrics.jsonl"
    path.parent.mkdir(parents=True)
    nested = {"step": 1, "eval/return": 2.0, "extra": json.loads("[" * 64 + "]" * 64)}  # 65 levels: the bound + 1
    path.write_text(json.dumps({"step": 0, "eval/return": 1.0}) + "\n" + json.dumps(nested) + "\n")
    with pytest.raises(LogReadError, match=r"a/t/0/metrics.jsonl: corrupt: line 2 nests JSON 65 levels deep, "
                                           r"more than the 64"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)
    path.write_text(json.dumps({"step": 0, "eval/return": 1.0}) + "\n" + "[" * 200_000 + "]" * 200_000 + "\n")
    with pytest.raises(LogReadError, match="line 2 nests JSON 200,000 levels deep"):  # a RecursionError before
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)
    strings = {"step": 0, "eval/return": 1.0, "note": "[" * 500 + '\\"{' * 100}  # brackets in a string are text
    path.write_text(json.dumps(strings) + "\n")
    assert rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)["eval/return"].tolist() == [1.0]
    monitor = tmp_path / "b" / "1" / "monitor.csv"
    monitor.parent.mkdir(parents=True)
    monitor.write_text("#" + "[" * 5000 + "]" * 5000 + "\nr,l,t\n1,2,3\n")
    with pytest.raises(LogReadError, match="the '#{json}' header line nests JSON 5,000 levels deep"):
        rlstats.read_logs(tmp_path / "b", "{agent}/{seed}", progress=False)
    monitor.write_text('#[1, 2]\nr,l,t\n1,2,3\n')
    with pytest.raises(LogReadError, match="header line is not a JSON object"):
        rlstats.read_logs(tmp_path / "b", "{agent}/{seed}", progress=False)


def _depth_by_the_rule(text):
    """json_depth's rule, character by character: a quote after an odd run of backslashes is escaped."""
    depth = deepest = run = 0
    inside = False
    for character in text:
        if character == '"' and run % 2 == 0:
            inside = not inside
        elif not inside and character in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif not inside and character in "]}":
            depth -= 1
        run = run + 1 if character == "\\" else 0
    return deepest


def _nesting(value):
    """The nesting of a parsed JSON value: 1 + its deepest child for a list or an object."""
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    return 0 if children is None else 1 + max(map(_nesting, children), default=0)


def _random_json(rng, level=0):
    """Lists, objects, numbers and strings full of brackets, quotes, backslashes and non-ASCII letters."""
    text = (lambda: "".join(rng.choice(list('[]{}"\\ aé\n'), size=int(rng.integers(0, 8)))))
    kind = int(rng.integers(4)) if level < 10 else 3
    if kind == 0:
        return [_random_json(rng, level + 1) for _ in range(int(rng.integers(0, 3)))]
    if kind == 1:
        return {text(): _random_json(rng, level + 1) for _ in range(int(rng.integers(0, 3)))}
    return text() if kind == 2 else float(rng.normal())


@pytest.mark.parametrize("texts", [100, pytest.param(300, marks=pytest.mark.slow)])  # random texts of each kind
@pytest.mark.parametrize("block", [1, 2, 3, 7, 1 << 18])
def test_json_depth_counts_brackets_outside_strings_only_across_blocks(monkeypatch, block, texts):
    from rlstats.logs import _tabular

    monkeypatch.setattr(_tabular, "JSON_BLOCK_BYTES", block)  # every state carried from one block to the next
    assert [_tabular.json_depth(text) for text in (
        r'["\\"]', r'["\"[", []]', r'["\\\"[", [[]]]', r'["\\\\", [[]]]', '{"a": "}}}{{{[[["}', '["é[", ["ü\\"]"]]',
        '"[[[', ']]][[', "", "7", '"\\')] == [1, 2, 3, 3, 1, 2, 0, 0, 0, 0, 0]
    rng = np.random.default_rng(block)
    for _ in range(texts):  # valid JSON: the depth json itself finds
        value = _random_json(rng)
        text = json.dumps(value, ensure_ascii=False, indent=int(rng.integers(2)) or None)
        assert _tabular.json_depth(text) == _nesting(json.loads(text)), text
    for _ in range(texts):  # any text, invalid JSON too: the rule by hand
        text = "".join(rng.choice(list('[]{}"\\ aé'), size=int(rng.integers(0, 40))))
        assert _tabular.json_depth(text) == _depth_by_the_rule(text), text


def test_json_depth_is_faster_than_json_and_bounded_in_memory():
    import time
    import tracemalloc

    from rlstats.logs._tabular import json_depth

    rng = np.random.default_rng(0)  # marl-eval's layout: 1 MB of lists of numbers under a few levels of keys
    runs = {f"seed_{s}": {f"step_{k}": {"step_count": 1000 * k, "return": rng.normal(size=40).round(6).tolist()}
                          for k in range(250)} for s in range(10)}
    text = json.dumps({"env": {"task": {"algo": runs}}})

    def best(function):
        times = []
        for _ in range(3):
            start = time.process_time()  # CPU seconds: load would stretch one side's wall time and not the other's
            function()
            times.append(time.process_time() - start)
        return min(times)

    assert json_depth(text) == 7
    assert best(lambda: json_depth(text)) < 0.75 * best(lambda: json.loads(text))  # 0.3 measured; 2.0 before
    brackets = "[" * 2_000_000 + "]" * 2_000_000  # every byte one that matters
    tracemalloc.start()
    assert json_depth(brackets) == 2_000_000
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 3 * len(brackets) + (16 << 20)  # the text twice and a block's arrays (37 times the text before)


def test_a_column_without_a_value_is_no_tag_and_a_bad_t_start_is_corrupt(tmp_path):
    path = tmp_path / "a" / "t" / "1" / "log.csv"
    path.parent.mkdir(parents=True)
    path.write_text("global_step,score,other\n1,,2\n2,,3\n")  # an IndexError before
    with pytest.raises(OptionError, match="no run logs 'score'; pass tags= naming logged tags: 'other'"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", tags="score", progress=False)
    (tmp_path / "a" / "t" / "2").mkdir()
    (tmp_path / "a" / "t" / "2" / "log.csv").write_text("global_step,score\n1,5\n")
    with pytest.raises(LogReadError, match="a/t/1/log.csv: missing tag: no values of 'score'; it logs 'other'"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", tags="score", progress=False)
    monitor = tmp_path / "b" / "1" / "monitor.csv"
    monitor.parent.mkdir(parents=True)
    monitor.write_text('#{"t_start": "soon", "env_id": "X-v0"}\nr,l,t\n1,2,3\n')  # a ValueError before
    with pytest.raises(LogReadError, match="corrupt: the '#{json}' header's t_start is 'soon', not a number"):
        rlstats.read_logs(tmp_path / "b", "{agent}/{seed}", progress=False)


def test_json_lines_with_a_new_key_on_every_line_are_refused_before_the_table(tmp_path):
    path = tmp_path / "a" / "t" / "0" / "metrics.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({"step": i, f"k{i}": 1.0}) + "\n" for i in range(4_000)))  # 16M cells
    with pytest.raises(LogReadError, match="4,000 records use 4,001 different keys, a table of 16,004,000 cells "
                                           "for 8,000 values"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", tags="k1", progress=False)


def test_wandb_chart_export(tmp_path):
    """The web UI's 'Export CSV' of a line chart: Step, then '<run> - <metric>' with __MIN/__MAX."""
    text = ("\"Step\",\"ppo_hopper_s1 - eval/return\",\"ppo_hopper_s1 - eval/return__MIN\","
            "\"ppo_hopper_s1 - eval/return__MAX\",\"sac_hopper_s2 - eval/return\","
            "\"sac_hopper_s2 - eval/return__MIN\",\"sac_hopper_s2 - eval/return__MAX\"\n"
            "0,1.5,1.5,1.5,2.5,2.5,2.5\n1000,3,3,3,,,\n2000,,,,4.25,4.25,4.25\n")
    (tmp_path / "export.csv").write_text(text)
    frame = rlstats.read_logs(tmp_path, "{agent}_{task}_s{seed}", progress=False)
    assert frame[["agent", "task", "seed", "step", "eval/return"]].values.tolist() == [
        ["ppo", "hopper", 1, 0, 1.5], ["ppo", "hopper", 1, 1000, 3.0],
        ["sac", "hopper", 2, 0, 2.5], ["sac", "hopper", 2, 2000, 4.25]]
    assert set(frame["source"]) == {"export.csv"}
    by_name = rlstats.read_logs(tmp_path / "export.csv", progress=False)
    assert sorted(set(by_name["run"])) == ["ppo_hopper_s1", "sac_hopper_s2"]


def test_a_column_name_with_a_line_break_is_not_tried_as_a_wandb_column(tmp_path):
    import time

    path = tmp_path / "a" / "t" / "1" / "log.csv"
    path.parent.mkdir(parents=True)
    name = " - " * 20_000 + "\nx"  # the W&B column pattern tried every ' - ' against every end: ~40 s
    path.write_text(f'Step,"{name}",score\n1,3,2.5\n')
    start = time.process_time()  # CPU seconds: a loaded machine stretches wall time, not the work done
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", tags="score", step="Step", progress=False)
    assert time.process_time() - start < 2 and frame["score"].tolist() == [2.5]


# ---------------------------------------------------------------- into the statistics

def test_the_frame_goes_into_curves_and_summaries(tb_runs):
    frame = rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", tags={"eval/mean_reward": "score"},
                              progress=False)
    auc = rlstats.summarize_runs(frame, "score ~ agent | task/seed", step="step", how="final")
    assert auc.shape == (8, 4)
    expected = {(a, t, s): np.float32(10 * i + j + s + 3) for i, a in enumerate(["dqn", "ppo"])
                for j, t in enumerate(["hopper", "walker"]) for s in (0, 1)}
    for row in auc.itertuples(index=False):
        assert row.score == float(expected[(row.agent, row.task, int(row.seed))])
    result = rlstats.compare(auc, "score ~ agent | task/seed")
    assert "TensorBoard event files" in str(result)


# ---------------------------------------------------------------- the command line

def run_cli(*argv):
    import rlstats.cli as cli

    out = io.StringIO()
    status = cli.main(["read-logs", *argv], out=out)
    return status, out.getvalue()


def test_cli_writes_a_file_that_compare_reads(tb_runs, tmp_path):
    output = tmp_path / "runs.csv"
    status, text = run_cli(str(tb_runs), "--pattern", "{agent}/{task}/seed_{seed}", "--tags",
                           "eval/mean_reward=score", "--no-progress", "-o", str(output))
    assert status == 0 and "32 rows of 8 runs written to" in text and "tag 'eval/mean_reward' as 'score'" in text
    from rlstats.cli import read_table

    frame = read_table(output)
    direct = rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", tags={"eval/mean_reward": "score"},
                               progress=False)
    pd.testing.assert_frame_equal(frame, direct, check_dtype=False)
    final = rlstats.summarize_runs(frame, "score ~ agent | task/seed", step="step")
    final.to_csv(tmp_path / "final.csv", index=False)
    import rlstats.cli as cli

    out = io.StringIO()
    assert cli.main(["compare", str(tmp_path / "final.csv"), "score ~ agent | task/seed"], out=out) == 0


def test_cli_parquet_keeps_the_notes(tb_runs, tmp_path, monkeypatch):
    try:
        import pyarrow  # noqa: F401
    except ImportError as error:  # absent, or built for another numpy
        pytest.skip(f"pyarrow cannot be imported: {error}")
    output = tmp_path / "runs.parquet"
    with on_threads_as_if_shipped(monkeypatch):  # --jobs 2 on threads (loky's processes: the slow tests above)
        status, _ = run_cli(str(tb_runs), "--pattern", "{agent}/{task}/seed_{seed}", "--no-progress", "--jobs", "2",
                            "-o", str(output))
    assert status == 0
    frame = pd.read_parquet(output)
    assert len(frame) == 32
    if tuple(int(p) for p in pd.__version__.split(".")[:2]) >= (2, 1):  # pandas 2.1 keeps attrs in Parquet
        assert "TensorBoard event files" in frame.attrs[NOTES_ATTR][0]


def test_cli_bad_folder_is_one_message_and_status_2(tmp_path, capsys):
    status, text = run_cli(str(tmp_path / "nowhere"), "--pattern", "{agent}/{seed}", "-o", str(tmp_path / "x.csv"))
    captured = capsys.readouterr()
    assert status == 2 and text == ""
    assert captured.err.startswith("rlstats: error: no such folder") and "Traceback" not in captured.err
    assert captured.err.count("\n") == 1
    status, _ = run_cli(str(tmp_path), "-o", str(tmp_path / "x.xlsx"))
    assert status == 2 and "must end in .csv" in capsys.readouterr().err


def test_cli_advice_names_the_command_options(tb_runs, tmp_path, capsys):
    _damage(tb_runs)
    status, _ = run_cli(str(tb_runs), "--pattern", "{agent}/{task}/seed_{seed}", "--tags", "eval/mean_reward",
                        "--no-progress", "-o", str(tmp_path / "x.csv"))
    err = capsys.readouterr().err
    assert status == 2 and "pass --on-error skip to read the others" in err and "Traceback" not in err
    write_tb(tb_runs / "ppo" / "ant" / "seed_1", {"test/return": [(0, 1.0)]})  # a second evaluation return
    status, _ = run_cli(str(tb_runs), "--pattern", "{agent}/{task}/seed_{seed}", "--no-progress", "--on-error",
                        "skip", "-o", str(tmp_path / "x.csv"))
    assert status == 2 and "name the one to read with --tags, e.g. --tags eval/mean_reward" in \
        capsys.readouterr().err


def test_cli_refuses_to_write_over_what_it_reads(tb_runs, capsys):
    first = event_files(tb_runs)[0]
    before = first.read_bytes()
    for folder in (tb_runs, first):  # a file of the folder read, or the one file read
        status, text = run_cli(str(folder), "--pattern", "{agent}/{task}/seed_{seed}", "--no-progress", "-o",
                               str(first.with_name(first.name)))
        err = capsys.readouterr().err
        assert status == 2 and text == "" and first.read_bytes() == before
        assert err.startswith("rlstats: error: -o ") and err.count("\n") == 1
        assert "writing it would overwrite the data: give another path" in err
    monitor = tb_runs / "ppo" / "hopper" / "seed_0" / "0.monitor.csv"  # overwritten with exit 0 before
    sb3_monitor_csv(monitor, [(1.0, 5, 0.1)], 0.0, "X-v0")
    status, _ = run_cli(str(tb_runs), "--format", "sb3_monitor", "--pattern", "{agent}/{task}/seed_{seed}",
                        "--no-progress", "-o", str(monitor))
    assert status == 2 and "one of the files read" in capsys.readouterr().err and monitor.read_text().startswith("#")


def test_cli_writes_csv_to_standard_output_and_the_summary_to_standard_error(tb_runs, capsys):
    status, text = run_cli(str(tb_runs), "--pattern", "{agent}/{task}/seed_{seed}", "--tags",
                           "eval/mean_reward=score", "--no-progress", "-o", "-")
    err = capsys.readouterr().err
    assert status == 0 and "32 rows of 8 runs written to standard output" in err
    assert "tag 'eval/mean_reward' as 'score'" in err and "written" not in text
    direct = rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{seed}", tags={"eval/mean_reward": "score"},
                               progress=False)
    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(text)), direct, check_dtype=False)


@pytest.mark.parametrize("arguments, phrase", [
    (["--pattern", "{agent}{task}/seed_{seed}"], "--pattern '{agent}{task}/seed_{seed}' puts {task} right after "
                                                 "{agent}"),
    (["--pattern", "{agent}/" + "x" * 5000], "--pattern has 5,008 characters, more than the 4,096"),
    (["--tags", "=score"], "--tags item '=score' names no tag; write TAG or TAG=COLUMN"),
    (["--tags", ",".join(f"t{i}" for i in range(1001))], "--tags names more than the 1,000 scalars"),
    (["--tags", "nope"], "no run logs 'nope'; pass --tags naming logged tags: 'eval/mean_reward', "),
    (["--jobs", "1000000"], "--jobs 1000000 is more than 4 workers per core"),  # as --jobs takes it (s25 cli25)
    (["--format", "sb3_monitor"], "no training logs under"),
    (["-o", "/proc/runs.csv"], "-o /proc/runs.csv: cannot write under /proc"),
    (["-o", "/nowhere/runs.csv"], "-o /nowhere/runs.csv: folder /nowhere does not exist"),
    (["-o", "{tmp}/runs.xlsx"], "-o {tmp}/runs.xlsx must end in .csv, .tsv or .parquet, or be - for CSV on "
                                "standard output"),
])
def test_cli_mistakes_are_one_line_and_status_2(tb_runs, tmp_path, capsys, arguments, phrase):
    options = {"--pattern": "{agent}/{task}/seed_{seed}", "-o": str(tmp_path / "runs.csv")}
    given = dict(zip(arguments[::2], (a.replace("{tmp}", str(tmp_path)) for a in arguments[1::2])))
    phrase = phrase.replace("{tmp}", str(tmp_path))
    argv = [str(tb_runs), "--no-progress"] + [x for item in {**options, **given}.items() for x in item]
    status, text = run_cli(*argv)
    err = capsys.readouterr().err
    assert status == 2 and text == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("rlstats: error: ") and phrase in err, err
    assert not (tmp_path / "runs.csv").exists()


def test_cli_writes_no_new_log_into_the_folder_it_reads(tb_runs, tmp_path, capsys):
    inside = tb_runs / "frame.csv"  # a CSV there would be read as a training log next time
    status, text = run_cli(str(tb_runs), "--pattern", "{agent}/{task}/seed_{seed}", "--no-progress", "-o", str(inside))
    assert status == 2 and text == "" and "where the next read-logs would take it for a training log" in \
        capsys.readouterr().err
    assert not inside.exists()


def test_cli_lists_bad_files_on_one_line(tb_runs, tmp_path, capsys):
    _damage(tb_runs)
    (tb_runs / "dqn" / "hopper" / "seed_0" / "events.out.tfevents.2.latin1").write_bytes(b"")
    status, _ = run_cli(str(tb_runs), "--pattern", "{agent}/{task}/seed_{seed}", "--tags", "eval/mean_reward",
                        "--no-progress", "-o", str(tmp_path / "x.csv"))
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert "(pass --on-error skip to read the others): " in err and err.count("; ") >= 3
    latin = tmp_path / "latin" / "a" / "t" / "s1" / "log.csv"
    latin.parent.mkdir(parents=True)
    latin.write_bytes("step,scor\xe9\n1,2\n".encode("latin1"))
    status, _ = run_cli(str(tmp_path / "latin"), "--pattern", "{agent}/{task}/s{seed}", "--no-progress", "-o",
                        str(tmp_path / "y.csv"))
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert "not UTF-8 text (byte b'\\xe9' at position 9); save it as UTF-8" in err


# ---------------------------------------------------------------- W&B public API (stubbed: no network here)

class StubRun:
    """The documented part of ``wandb.apis.public.Run`` that read_wandb uses."""

    def __init__(self, run_id, name, config, history, group=None):
        self.id, self.name, self.config, self.group = run_id, name, config, group
        self._history = history

    def scan_history(self, keys=None, page_size=1000, min_step=None, max_step=None):
        # As documented: with keys=, only the rows that have every one of them.
        for row in self._history:
            if keys is None or all(k in row for k in keys):
                yield {k: row[k] for k in (keys or row)} | {"_timestamp": row["_timestamp"]}


class StubApi:
    def __init__(self, runs):
        self._runs, self.calls = runs, []

    def runs(self, path, filters=None, order="+created_at", per_page=50):
        self.calls.append((path, filters))
        return iter(self._runs)


def _stub_history(seed, n=3):
    rows = []
    for i in range(n):
        rows.append({"_step": i, "_timestamp": 1000.0 + i, "charts/return": float(seed + i)})
        if i % 2 == 0:
            rows.append({"_step": i, "_timestamp": 1000.5 + i, "eval/return": 10.0 * seed + i})
    return rows


def test_read_wandb_through_a_stub_of_the_public_api():
    runs = [StubRun(f"id{k}", f"ppo_hopper_{k}", {"env_id": "Hopper-v4", "algo": {"name": "ppo"}, "seed": k},
                    _stub_history(k), group="ppo") for k in (1, 2)]
    api = StubApi(runs)
    frame = rlstats.read_wandb("me/proj", keys={"eval/return": "score", "charts/return": "train"},
                               fields={"agent": "algo.name", "task": "env_id", "seed": "seed"},
                               filters={"state": "finished"}, api=api, progress=False)
    assert api.calls == [("me/proj", {"state": "finished"})]
    assert list(frame.columns) == ["agent", "task", "seed", "step", "score", "train", "wall_time", "source"]
    assert frame["seed"].tolist() == [1, 1, 1, 2, 2, 2] and set(frame["agent"]) == {"ppo"}
    assert np.isnan(frame["score"].iloc[1]) and np.isnan(frame["score"].iloc[4])  # evaluated every other step
    assert frame["score"].iloc[[0, 2, 3, 5]].tolist() == [10.0, 12.0, 20.0, 22.0]
    assert frame["train"].tolist() == [1.0, 2.0, 3.0, 2.0, 3.0, 4.0]
    assert frame["wall_time"].tolist()[:3] == [1000.5, 1001.0, 1002.5]  # the latest write at each step
    assert frame["source"].tolist()[0] == "wandb:me/proj/id1"
    assert "read 2 runs of W&B project 'me/proj'" in frame.attrs[NOTES_ATTR][0]

    named = rlstats.read_wandb("me/proj", keys="eval/return", pattern="{agent}_{task}_{seed}", api=api,
                               progress=False)
    assert named[["agent", "task", "seed"]].drop_duplicates().values.tolist() == [["ppo", "hopper", 1],
                                                                                 ["ppo", "hopper", 2]]
    # the pattern and fields= may both give a column where they agree on every run; where not, an error
    both = rlstats.read_wandb("me/proj", keys="eval/return", pattern="{agent}_{task}_{seed}",
                              fields={"seed": "seed", "agent": "group"}, api=api, progress=False)
    pd.testing.assert_frame_equal(both, named)
    with pytest.raises(OptionError, match="pattern= gives task='hopper' for run 'ppo_hopper_1' "
                                          r"\(wandb:me/proj/id1\), but fields= takes task='Hopper-v4' from its "
                                          "'env_id'; give 'task' one source: drop {task} from the pattern or 'task' "
                                          "from fields=, or name one of them otherwise"):
        rlstats.read_wandb("me/proj", keys="eval/return", pattern="{agent}_{task}_{seed}", fields={"task": "env_id"},
                           api=api, progress=False)


def test_read_wandb_missing_key_and_no_package(monkeypatch):
    api = StubApi([StubRun("a", "run-a", {}, _stub_history(1)), StubRun("b", "run-b", {}, [])])
    with pytest.raises(LogReadError, match=r"(?s)1 of 2 W&B runs .*wandb:me/proj/b: missing tag"):
        rlstats.read_wandb("me/proj", keys="eval/return", api=api, progress=False)
    with pytest.warns(RlstatsWarning, match="skipped 1 of 2 W&B runs"):
        frame = rlstats.read_wandb("me/proj", keys="eval/return", api=api, on_error="skip", progress=False)
    assert set(frame["run"]) == {"run-a"}
    monkeypatch.setitem(__import__("sys").modules, "wandb", None)
    with pytest.raises(LogReadError, match="needs the wandb package.*format='wandb_csv'"):
        rlstats.read_wandb("me/proj", keys="eval/return")


# ---------------------------------------------------------------- every run accounted for (issue 29)

SB3_PATTERN = "{agent}/{task}/seed_{seed}"


def test_the_median_of_the_others_equals_numpys_on_each_run_left_out():
    from rlstats.logs._read import _median_of_others

    rng = np.random.default_rng(0)
    for n in range(2, 12):
        values = rng.integers(0, 6, size=n).astype(float)  # ties included
        expected = [np.median(np.delete(values, i)) for i in range(n)]
        assert _median_of_others(values).tolist() == expected


def test_a_run_ending_well_before_its_siblings_is_named_with_its_last_step(tmp_path):
    # seed 3 is killed at 800 of 1,000; agent sac has one run (no sibling) and stops at 200; on walker, 899 is under
    # 0.9 x 1,000 (the median of 1,000, 1,000 and 900) and named, 900 is not (its others' median is 1,000 too).
    for seed, last in ((0, 1000), (1, 1000), (2, 1000), (3, 800)):
        write_tb(tmp_path / "ppo" / "hopper" / f"seed_{seed}",
                 {"eval/return": [(s, 1.0) for s in range(0, last + 1, 100)]})
    for seed, last in ((0, 1000), (1, 1000), (2, 900), (3, 899)):
        write_tb(tmp_path / "ppo" / "walker" / f"seed_{seed}", {"eval/return": [(0, 1.0), (last, 2.0)]})
    write_tb(tmp_path / "sac" / "hopper" / "seed_0", {"eval/return": [(0, 1.0), (200, 2.0)]})
    frame = rlstats.read_logs(tmp_path, SB3_PATTERN, progress=False)
    early = frame.attrs["read_log"].ended_early
    assert [(e.run, e.last_step, e.siblings, e.siblings_median) for e in early] == [
        ({"agent": "ppo", "task": "hopper", "seed": 3}, 800, 3, 1000.0),
        ({"agent": "ppo", "task": "walker", "seed": 3}, 899, 3, 1000.0)]
    assert ("2 runs end well before the other runs with the same agent and task (last logged step under 90% of "
            "their median: killed, or still running?), so a value at the last step would compare different steps: "
            "agent=ppo task=hopper seed=3 ends at step 800 (its 3 siblings: median 1,000); agent=ppo task=walker "
            "seed=3 ends at step 899 (its 3 siblings: median 1,000)") in frame.attrs[NOTES_ATTR]
    assert "ends early: agent=ppo task=hopper seed=3 ends at step 800" in str(frame.attrs["read_log"])
    # The frame's own last steps, computed again by pandas.
    assert frame.groupby(["agent", "task", "seed"])["step"].max().loc[("ppo", "hopper", 3)] == 800


def test_files_of_a_run_continue_restart_rerun_or_run_alongside(tmp_path):
    def run(seed, name):
        return tmp_path / "ppo" / "hopper" / f"seed_{seed}" / "tb" / name

    # seed 0: PPO_2 restarts at 500 (inside 0..1,000) and logs 500..800: PPO_1's 500..1,000 are dropped, 900 and
    # 1,000 too; seed 1: PPO_2 starts again at 0 (a rerun); seed 2: PPO_2 continues at 1,100; seed 3 has train/
    # and eval/ files side by side (other tags). Wall times put each PPO_2 after its PPO_1.
    for seed in range(4):
        write_tb(run(seed, "PPO_1"), {"eval/return": [(s, s / 100) for s in range(0, 1001, 100)]})
        write_tb(run(seed, "PPO_1") / "train", {"train/loss": [(s, 0.5) for s in range(0, 1001, 100)]})
    write_tb(run(0, "PPO_2"), {"eval/return": [(s, -s / 100) for s in range(500, 801, 100)]}, 1_700_100_000.0)
    write_tb(run(1, "PPO_2"), {"eval/return": [(s, -s / 100) for s in range(0, 1001, 100)]}, 1_700_100_000.0)
    write_tb(run(2, "PPO_2"), {"eval/return": [(s, -s / 100) for s in range(1100, 1201, 100)]}, 1_700_100_000.0)
    frame = rlstats.read_logs(tmp_path, SB3_PATTERN, tags=["eval/return", "train/loss"], progress=False)
    assert list(frame.columns[:5]) == ["agent", "task", "seed", "attempt", "step"]
    by_run = {key: part for key, part in frame.groupby(["seed", "attempt"])}
    assert sorted(by_run) == [(0, "PPO_1"), (1, "PPO_1"), (1, "PPO_2"), (2, "PPO_1"), (3, "PPO_1")]
    # The restart supersedes both files of the abandoned training from step 500 on.
    assert by_run[0, "PPO_1"]["step"].tolist() == list(range(0, 801, 100))
    assert by_run[0, "PPO_1"]["eval/return"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, -5.0, -6.0, -7.0, -8.0]
    assert by_run[0, "PPO_1"]["train/loss"].tolist()[:5] == [0.5] * 5
    assert by_run[0, "PPO_1"]["train/loss"].iloc[5:].isna().all()
    assert by_run[1, "PPO_2"]["eval/return"].tolist() == [-s / 100 for s in range(0, 1001, 100)]
    assert by_run[1, "PPO_2"]["train/loss"].isna().all()
    assert by_run[1, "PPO_1"]["eval/return"].tolist() == [s / 100 for s in range(0, 1001, 100)]
    assert by_run[2, "PPO_1"]["step"].tolist() == list(range(0, 1201, 100))
    assert by_run[3, "PPO_1"]["train/loss"].tolist() == [0.5] * 11
    assert by_run[3, "PPO_1"]["eval/return"].tolist() == [s / 100 for s in range(0, 1001, 100)]
    segments = [(s.run["seed"], s.run["attempt"], s.source.split("/tb/")[1].rsplit("/", 1)[0], s.first_step,
                 s.last_step, s.joins, s.dropped, s.dropped_steps) for s in frame.attrs["read_log"].segments]
    assert segments == [(0, "PPO_1", "PPO_1", 0, 1000, "first", 0, None),
                        (0, "PPO_1", "PPO_1/train", 0, 1000, "alongside", 0, None),
                        (0, "PPO_1", "PPO_2", 500, 800, "restarts", 12, (500, 1000)),
                        (1, "PPO_1", "PPO_1", 0, 1000, "first", 0, None),
                        (1, "PPO_1", "PPO_1/train", 0, 1000, "alongside", 0, None),
                        (1, "PPO_2", "PPO_2", 0, 1000, "reruns", 0, None),
                        (2, "PPO_1", "PPO_1", 0, 1000, "first", 0, None),
                        (2, "PPO_1", "PPO_1/train", 0, 1000, "alongside", 0, None),
                        (2, "PPO_1", "PPO_2", 1100, 1200, "continues", 0, None),
                        (3, "PPO_1", "PPO_1", 0, 1000, "first", 0, None),
                        (3, "PPO_1", "PPO_1/train", 0, 1000, "alongside", 0, None)]
    notes = frame.attrs[NOTES_ATTR]
    assert notes[0].startswith("read 5 runs from 11 TensorBoard event files")
    assert notes[1].startswith(
        "4 runs read from several files, in the order written (attrs['read_log'].segments); a file that restarts "
        "inside the steps of the ones before it (from a checkpoint) supersedes their values from its first step on: "
        "agent=ppo task=hopper seed=0: PPO_1 (steps 0 to 1,000), PPO_1/train (steps 0 to 1,000), PPO_2 (steps 500 "
        "to 800, restarts: 12 values before it at steps 500 to 1,000 dropped); agent=ppo task=hopper seed=1: PPO_1 "
        "(steps 0 to 1,000), PPO_1/train (steps 0 to 1,000), PPO_2 (steps 0 to 1,000, a rerun from the start); "
        "agent=ppo task=hopper seed=2: PPO_1 (steps 0 to 1,000), PPO_1/train (steps 0 to 1,000), PPO_2 (steps 1,100 "
        "to 1,200, continues); agent=ppo task=hopper seed=3: events.out.tfevents.")
    assert notes[2] == ("1 run started again from its first step (a rerun, not a restart): each attempt is read as a "
                        "run of its own, told apart by the column 'attempt' (the folder it began in; rlstats refuses "
                        "two runs with one seed), so keep the one you mean, e.g. subset=\"~(agent == 'ppo' & task "
                        "== 'hopper' & seed == 1 & attempt != 'PPO_2')\" keeps the last attempt of the first: "
                        "agent=ppo task=hopper seed=1 ('PPO_1', 'PPO_2')")
    assert notes[3].endswith(": agent=ppo task=hopper seed=0 attempt=PPO_1 ends at step 800 (its 4 siblings: "
                             "median 1,000)")
    # The rerun is never averaged as another seed: a back end identifying runs by seed refuses it.
    with pytest.raises(rlstats.errors.DesignError, match="has 2 rows at step 0"):
        rlstats.curves(frame, "`eval/return` ~ agent | task/seed", step="step", n_resamples=50, rng=0)


def test_segments_without_wall_times_go_in_path_order_with_numbers_read_as_numbers(tmp_path):
    # progress.csv has no wall time: PPO_10 comes after PPO_9 (not after PPO_1) and restarts at 400.
    folder = tmp_path / "a2c" / "pendulum" / "1"
    for number, steps in ((1, range(0, 301, 100)), (9, range(300, 601, 100)), (10, range(400, 501, 100))):
        sb3_progress_csv(folder / f"PPO_{number}" / "progress.csv",
                         [{"time/total_timesteps": s, "eval/mean_reward": number * 1000 + s} for s in steps])
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)
    assert frame["step"].tolist() == [0, 100, 200, 300, 400, 500]
    assert frame["eval/mean_reward"].tolist() == [1000.0, 1100.0, 1200.0, 9300.0, 10400.0, 10500.0]
    assert [(s.joins, s.dropped, s.dropped_steps) for s in frame.attrs["read_log"].segments] == [
        ("first", 0, None), ("restarts", 1, (300, 300)), ("restarts", 3, (400, 600))]


def test_fields_and_columns_that_would_overwrite_each_other_are_errors(tb_runs, tmp_path):
    for field in ("step", "wall_time", "source", "time_elapsed", "attempt"):
        with pytest.raises(OptionError, match=f"gives a field '{field}', the name of the frame's own column "
                                              f"'{field}'.*name the field otherwise, e.g. {{run_{field}}}"):
            rlstats.read_logs(tb_runs, "{agent}/{task}/seed_{%s}" % field, progress=False)
    with pytest.raises(OptionError, match="gives a field 'step'"):
        rlstats.read_logs(tb_runs, lambda path: {"agent": path.split("/")[0], "step": path}, progress=False)
    for column, what in (("agent", "the run field 'agent' \\(from pattern=\\)"),
                         ("step", "the frame's own column 'step' \\(the logged step\\)"),
                         ("source", "the frame's own column 'source'")):
        with pytest.raises(OptionError, match=f"the scalar 'eval/mean_reward' would be read into a column named "
                                              f"'{column}', {what}.*tags={{'eval/mean_reward': 'score'}}"):
            rlstats.read_logs(tb_runs, SB3_PATTERN, tags={"eval/mean_reward": column}, progress=False)
    # The default column of monitor.csv ('r') against a field named r.
    sb3_monitor_csv(tmp_path / "m" / "ppo" / "1" / "0.monitor.csv", [(1.0, 10, 0.5)], 100.0, "X-v0")
    with pytest.raises(OptionError, match="the scalar 'r' would be read into a column named 'r', the run field 'r'"):
        rlstats.read_logs(tmp_path / "m", "{agent}/{r}", progress=False)


def test_a_duplicated_csv_column_and_a_negative_episode_length_are_errors_naming_them(tmp_path):
    (tmp_path / "csv" / "ppo" / "1").mkdir(parents=True)
    (tmp_path / "csv" / "ppo" / "1" / "log.csv").write_text("step,score,loss,score\n0,1.0,0.5,2.0\n")
    with pytest.raises(LogReadError, match="ppo/1/log.csv: unreadable: the header names the column 'score' twice"):
        rlstats.read_logs(tmp_path / "csv", "{agent}/{seed}", progress=False)
    path = tmp_path / "mon" / "ppo" / "1" / "0.monitor.csv"
    sb3_monitor_csv(path, [(1.0, 10, 0.5), (2.0, -3, 0.7), (3.0, 4, 0.9)], 100.0, "X-v0")
    with pytest.raises(LogReadError, match=r"ppo/1/0.monitor.csv: corrupt: column 'l' \(the episode length\) holds -3 "
                                           r"in data row 2 \(line 4 of the file\), not a length of 0 or more"):
        rlstats.read_logs(tmp_path / "mon", "{agent}/{seed}", progress=False)
    assert path.read_text().splitlines()[3] == "2.0,-3,0.7"  # line 4 is the row named


def test_fields_keep_the_types_a_callable_gives_and_seeds_become_integers_only_without_loss(tmp_path):
    for name in ("lr_0.1_seed_007", "lr_0.2_seed_7", "lr_0.2_seed_8"):
        write_tb(tmp_path / name, {"eval/return": [(0, 1.0)]})

    def fields(path):
        lr, seed = path.split("/")[0].split("_")[1::2]
        return {"agent": "ppo", "lr": float(lr), "seed": int(seed)}

    typed = rlstats.read_logs(tmp_path, fields, progress=False)
    assert typed["lr"].dtype == np.float64 and typed["lr"].tolist() == [0.1, 0.2, 0.2]
    assert typed["seed"].dtype == np.int64 and typed["seed"].tolist() == [7, 7, 8]
    text = rlstats.read_logs(tmp_path, "lr_{lr}_seed_{seed}", progress=False)
    assert text["seed"].tolist() == ["007", "7", "8"]  # as integers, '007' and '7' would become one seed
    assert text["lr"].tolist() == ["0.1", "0.2", "0.2"]  # text from a path stays text


def test_read_logs_is_discover_then_read_each_run_then_assemble(tb_runs):
    from rlstats.logs._layout import compile_pattern
    from rlstats.logs._read import ReadOptions, _complete_runs, assemble_runs, find_runs, read_runs

    (tb_runs / "notes").mkdir()
    write_tb(tb_runs / "notes", {"eval/mean_reward": [(0, 1.0)]})  # outside the pattern: never opened
    unread = next((tb_runs / "notes").iterdir())
    unread.write_bytes(b"not an event file")
    options = ReadOptions.checked(None, None, "last", "raise", False, 1, None, "episodes")
    found = find_runs(tb_runs, compile_pattern(SB3_PATTERN), options)
    assert found.record.name == "tensorboard" and len(found.files) == 9 and len(found.to_read) == 8
    assert found.ignored == [f"notes/{unread.name}"]
    assert found.fields[0] == {"agent": "dqn", "task": "hopper", "seed": "0"}
    runs, field_names = read_runs(found, options)
    assert field_names == ["agent", "task", "seed"] and not found.problems
    assert [(fields, [index for index, _ in pieces]) for fields, pieces in runs.values()] == [
        (fields, [i]) for i, fields in enumerate(found.fields)]  # one run a file, in the order found
    mapping = {"eval/mean_reward": "score"}
    sentence = "tag 'eval/mean_reward' as 'score'"
    frame = assemble_runs(_complete_runs(runs, mapping, found), field_names, mapping, sentence, found, options)
    by_read_logs = rlstats.read_logs(tb_runs, SB3_PATTERN, tags=mapping, progress=False)
    pd.testing.assert_frame_equal(frame, by_read_logs)
    assert frame.attrs == by_read_logs.attrs and frame["score"].iloc[-1] == np.float32(10 + 1 + 1 + 3)


@pytest.mark.parametrize("backend", PARALLEL)
def test_every_core_reads_the_same_frame(tb_runs, backend, monkeypatch):
    from joblib import parallel_config

    one = rlstats.read_logs(tb_runs, SB3_PATTERN, progress=False)
    with on_threads_as_if_shipped(monkeypatch) if backend == "threading" else parallel_config(backend="loky"):
        pd.testing.assert_frame_equal(rlstats.read_logs(tb_runs, SB3_PATTERN, progress=False, n_jobs=-1), one)


# The real Stable-Baselines3 logs of ../shared/data/logs/sb3_classic (PPO, A2C, DQN; 3 seeds), copied and damaged.

@pytest.fixture
def sb3_logs(shared_data, tmp_path):
    import shutil

    source = shared_data / "logs" / "sb3_classic"
    if not source.is_dir():
        pytest.skip(f"the SB3 logs are not at {source}")
    return Path(shutil.copytree(source, tmp_path / "sb3_classic"))


def event_steps(path):
    """(byte offset, step) of every record of an event file, decoded by the tensorboard package."""
    from tensorboard.compat.proto import event_pb2

    from rlstats.logs._tensorboard import frame_records

    data = path.read_bytes()
    offsets, lengths = frame_records(data)
    return [(int(o), event_pb2.Event.FromString(data[o + 12:o + 12 + n]).step) for o, n in zip(offsets, lengths)]


def test_real_sb3_logs_a_killed_run_is_named(sb3_logs):
    # PPO on CartPole, seed 1, killed after step 8,192: its event file ends at the record boundary before the first
    # record past 8,192 (what a killed process leaves, every record flushed whole), and its monitor files end there too.
    run = sb3_logs / "PPO" / "CartPole-v1" / "seed_1"
    (events,) = (run / "tb" / "PPO_1").glob("events.out.tfevents.*")
    cut = next(offset for offset, step in event_steps(events) if step > 8192)
    events.write_bytes(events.read_bytes()[:cut])
    frame = rlstats.read_logs(sb3_logs, SB3_PATTERN, format="tensorboard", progress=False)
    assert frame.attrs[NOTES_ATTR][0].startswith("read 15 runs from 15 TensorBoard event files")
    (early,) = frame.attrs["read_log"].ended_early
    assert (early.run, early.last_step, early.siblings, early.siblings_median) == (
        {"agent": "PPO", "task": "CartPole-v1", "seed": 1}, 5000, 2, 30000.0)
    assert "agent=PPO task=CartPole-v1 seed=1 ends at step 5,000 (its 2 siblings: median 30,000)" in \
        frame.attrs[NOTES_ATTR][-1]
    assert not frame.attrs["read_log"].segments
    # monitor.csv: every episode that ended by the time the 8,192nd step was taken, as SB3's load_results counts.
    t_cut = {}
    for path in sorted(run.glob("*.monitor.csv")):
        episodes = pd.read_csv(path, skiprows=1)
        t_cut[path] = episodes
    merged = pd.concat(t_cut.values()).sort_values("t", kind="stable")
    stop = merged["t"].to_numpy()[np.searchsorted(merged["l"].cumsum().to_numpy(), 8192)]
    for path, episodes in t_cut.items():
        header = path.read_text().splitlines()[0]
        path.write_text(header + "\n" + episodes[episodes["t"] < stop].to_csv(index=False, lineterminator="\r\n"))
    expected_last = int(merged.loc[merged["t"] < stop, "l"].sum())
    monitors = rlstats.read_logs(sb3_logs, SB3_PATTERN, format="sb3_monitor", progress=False)
    (early,) = monitors.attrs["read_log"].ended_early
    assert early.run == {"agent": "PPO", "task": "CartPole-v1", "seed": 1} and early.last_step == expected_last
    assert 7000 < expected_last <= 8192 and early.siblings_median == pytest.approx((32278 + 32531) / 2)


def test_real_sb3_logs_a_rerun_and_a_restart_are_named(sb3_logs):
    def latest_wall_time(folder):
        (events,) = folder.glob("events.out.tfevents.*")
        return float(rlstats.read_logs(events, tags="eval/mean_reward", progress=False)["wall_time"].max())

    # A2C on CartPole, seed 0, started again from scratch in tb/A2C_2 and stopped after two evaluations.
    rerun = sb3_logs / "A2C" / "CartPole-v1" / "seed_0" / "tb"
    write_tb(rerun / "A2C_2", {"eval/mean_reward": [(5000, 11.0), (10000, 12.0)], "time/fps": [(2000, 900.0)]},
             walltime0=latest_wall_time(rerun / "A2C_1") + 60)
    # A2C on Acrobot, seed 2, restarted from its checkpoint at 12,000 in tb/A2C_2 (reset_num_timesteps=False), then
    # killed again after one evaluation: the abandoned evaluations at 15,000 and 20,000 go, 20,000 never re-logged.
    restart = sb3_logs / "A2C" / "Acrobot-v1" / "seed_2" / "tb"
    write_tb(restart / "A2C_2", {"time/fps": [(12000, 800.0)], "eval/mean_reward": [(15000, -77.0)]},
             walltime0=latest_wall_time(restart / "A2C_1") + 60)
    original = rlstats.read_logs(restart / "A2C_1", tags="eval/mean_reward", progress=False)
    assert original["step"].tolist() == [5000, 10000, 15000, 20000]

    frame = rlstats.read_logs(sb3_logs, SB3_PATTERN, format="tensorboard", progress=False)
    notes = frame.attrs[NOTES_ATTR]
    assert notes[0].startswith("read 16 runs from 17 TensorBoard event files")
    assert sorted(set(frame["attempt"])) == ["A2C_1", "A2C_2", "DQN_1", "PPO_1"]
    runs = frame.groupby(["agent", "task", "seed", "attempt"])
    assert runs["eval/mean_reward"].apply(list).loc[("A2C", "CartPole-v1", 0, "A2C_2")] == [11.0, 12.0]
    acrobot = runs["step"].apply(list).loc[("A2C", "Acrobot-v1", 2, "A2C_1")]
    assert acrobot == [5000, 10000, 15000]
    assert frame.loc[(frame["task"] == "Acrobot-v1") & (frame["seed"] == 2) & (frame["agent"] == "A2C"),
                     "eval/mean_reward"].tolist() == original["eval/mean_reward"].tolist()[:2] + [-77.0]
    assert ("agent=A2C task=Acrobot-v1 seed=2: A2C_1 (steps 5,000 to 20,000), A2C_2 (step 15,000, "
            "restarts: 2 values before it at steps 15,000 to 20,000 dropped)") in notes[1]
    assert ("agent=A2C task=CartPole-v1 seed=0: A2C_1 (steps 5,000 to 30,000), A2C_2 (steps 5,000 to 10,000, a "
            "rerun from the start)") in notes[1]
    assert "agent=A2C task=CartPole-v1 seed=0 ('A2C_1', 'A2C_2')" in notes[2]
    early = {(e.run["task"], e.run["seed"], e.run["attempt"]): (e.last_step, e.siblings_median)
             for e in frame.attrs["read_log"].ended_early}
    assert early == {("CartPole-v1", 0, "A2C_2"): (10000, 30000.0), ("Acrobot-v1", 2, "A2C_1"): (15000, 20000.0)}


# ---------------------------------------------------------------- reading that scales (issue 29)

def _reference_rows(runs, mapping, keep):
    """read_logs' rows record by record in plain Python, the rules as documented: records in the order written
    (file, then position in it); of a (step, tag) logged twice the first or last kept; one row per step, its
    wall time and time elapsed the latest of its records, its source the last file."""
    rows, dropped = [], 0
    for fields, pieces in runs:
        records = sorted(((index, position, piece.step[position], piece.tags[piece.tag[position]],
                           piece.value[position], None if piece.wall_time is None else piece.wall_time[position],
                           None if piece.time_elapsed is None else piece.time_elapsed[position])
                          for index, piece in pieces for position in range(piece.step.size)
                          if piece.tags[piece.tag[position]] in mapping), key=lambda r: (r[0], r[1]))
        kept = {}
        for record in records:
            key = (record[2], record[3])
            dropped += key in kept
            if keep == "last" or key not in kept:
                kept[key] = record
        for step in sorted({step for step, _ in kept}):
            mine = [r for (s, _), r in kept.items() if s == step]
            latest = (lambda i: max((r[i] for r in mine if r[i] is not None and not np.isnan(r[i])), default=np.nan))
            rows.append({**fields, "step": step, **{mapping[r[3]]: r[4] for r in mine}, "wall_time": latest(5),
                         "time_elapsed": latest(6), "file": max(r[0] for r in mine)})
    return rows, dropped


@pytest.mark.parametrize("cases", [150, pytest.param(400, marks=pytest.mark.slow)])
def test_rows_are_made_run_by_run_exactly_as_record_by_record(cases):
    """_assemble (one run at a time, sorting only runs not already in order) against the plain-Python rules,
    on 400 random sets of runs (the default run: the first 150): duplicates within and across files, files out of
    order, one file holding several pieces of a run (as W&B's API gives one per key), float steps, tags missing,
    times absent or NaN."""
    from rlstats.logs._pieces import Piece
    from rlstats.logs._read import _assemble

    rng = np.random.default_rng(29)
    for case in range(cases):
        keep = ("last", "first")[case % 2]
        mapping = dict(zip(rng.permutation(["a", "b", "c"])[:rng.integers(1, 4)], ["x", "y", "z"]))
        sources = [f"f{i}" for i in range(5)]
        floats = case % 7 == 0
        spec = []
        for run in range(rng.integers(1, 4)):
            pieces = []
            for _ in range(rng.integers(1, 4)):
                n, tags = int(rng.integers(1, 12)), tuple(rng.permutation(["a", "b", "c", "d"])[:rng.integers(1, 5)])
                step = np.sort(rng.integers(0, 8, n)) if rng.random() < 0.6 else rng.integers(0, 8, n)
                step = step + 0.5 * rng.integers(0, 2, n) if floats else step
                wall = None if rng.random() < 0.3 else np.where(rng.random(n) < 0.2, np.nan, rng.random(n))
                spent = None if rng.random() < 0.7 else rng.random(n)
                pieces.append((int(rng.integers(0, 5)), tags, step, rng.integers(0, len(tags), n), rng.normal(size=n),
                               wall, spent))
            spec.append(({"agent": f"g{run % 2}", "seed": str(run)}, pieces))
        if not any(t in mapping for _, pieces in spec for _, tags, *_ in pieces for t in tags):
            continue
        build = (lambda: [(fields, [(i, Piece(tags, s, t, v, w, e)) for i, tags, s, t, v, w, e in pieces])
                          for fields, pieces in spec])
        expected, dropped = _reference_rows(build(), mapping, keep)
        frame, duplicates, _ = _assemble({k: run for k, run in enumerate(build())}, ["agent", "seed"], mapping,
                                         sources, keep)
        assert duplicates == dropped, case
        want = pd.DataFrame(expected, columns=["agent", "seed", "step", *mapping.values(), "wall_time",
                                               "time_elapsed", "file"])
        assert frame["agent"].tolist() == want["agent"].tolist(), case
        assert frame["seed"].tolist() == want["seed"].astype(int).tolist(), case
        np.testing.assert_array_equal(frame["step"], want["step"].to_numpy(dtype=float), err_msg=str(case))
        assert frame["step"].dtype == (np.float64 if floats and not np.all(want["step"] % 1 == 0) else np.int64)
        for column in mapping.values():
            np.testing.assert_array_equal(frame[column], want[column].to_numpy(dtype=float), err_msg=str(case))
        has_wall = any(w is not None for _, pieces in spec for *_, w, _ in pieces)
        assert ("wall_time" in frame) == has_wall, case
        if has_wall:
            np.testing.assert_array_equal(frame["wall_time"], want["wall_time"].to_numpy(dtype=float))
        if "time_elapsed" in frame:
            np.testing.assert_array_equal(frame["time_elapsed"], want["time_elapsed"].to_numpy(dtype=float))
        assert frame["source"].tolist() == [sources[i] for i in want["file"]], case


def test_rows_are_released_run_by_run_and_the_frame_holds_strings_as_pandas_would():
    from rlstats.logs._pieces import Piece
    from rlstats.logs._read import _assemble

    pieces = [(0, Piece(("r",), np.arange(3), np.zeros(3, np.intp), np.ones(3))),
              (1, Piece(("r",), np.arange(2), np.zeros(2, np.intp), np.ones(2)))]
    runs = {0: ({"agent": "ppo", "task": None}, pieces[:1]), 1: ({"agent": "dqn", "task": "x"}, pieces[1:])}
    frame, _, _ = _assemble(runs, ["agent", "task"], {"r": "score"}, ["a/f", "b/f"], "last")
    assert all(piece.step is None and piece.value is None for _, piece in pieces)  # let go once its rows were made
    like = pd.DataFrame({"agent": np.array(["ppo"] * 3 + ["dqn"] * 2, dtype=object),
                         "task": np.array([None] * 3 + ["x"] * 2, dtype=object),
                         "source": np.array(["a/f"] * 3 + ["b/f"] * 2, dtype=object)})
    for column in like:  # the type pandas gives those values (str on pandas 3, object before), without per-row objects
        assert frame[column].dtype == like[column].dtype
        pd.testing.assert_series_equal(frame[column], like[column])


def test_checksums_two_bytes_at_a_time_at_every_offset_and_length():
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c as reference

    from rlstats.logs._tensorboard import masked_crc32c

    rng = np.random.default_rng(3)
    lengths = list(range(0, 41)) + [255, 256, 1001]
    for lead in range(3):  # records starting at even and odd bytes
        blobs = [rng.integers(0, 256, size=n, dtype=np.uint8).tobytes() for n in rng.permutation(lengths)]
        data = bytes(lead) + b"".join(blobs)
        starts = lead + np.cumsum([0] + [len(b) for b in blobs[:-1]])
        ours = masked_crc32c(np.frombuffer(data, dtype=np.uint8), starts, [len(b) for b in blobs])
        assert ours.tolist() == [reference(b) for b in blobs]


@pytest.mark.parametrize("line_end", ["\r\n", "\n", "\r"])
def test_monitor_csv_reads_the_same_whatever_its_line_ends(tmp_path, line_end):
    text = ('#{"t_start": 100.5, "env_id": "X-v0"}\n' + "r,l,t\n" + "1.5,10,0.25\n" + "-2.25,7,0.5\n"
            + "3,5,1.125\n").replace("\n", line_end)
    path = tmp_path / "ppo" / "1" / "monitor.csv"
    path.parent.mkdir(parents=True)
    path.write_bytes(text.encode())
    frame = rlstats.read_logs(tmp_path, "{agent}/{seed}", tags=["r", "l"], progress=False)
    assert frame["step"].tolist() == [10, 17, 22] and frame["r"].tolist() == [1.5, -2.25, 3.0]
    assert frame["wall_time"].tolist() == [100.75, 101.0, 101.625] and frame["task"].tolist() == ["X-v0"] * 3
    path.write_bytes(text.encode()[:-len(line_end) - 3])  # cut off in the last row
    with pytest.raises(LogReadError, match="truncated: the last line has no line end"):
        rlstats.read_logs(tmp_path, "{agent}/{seed}", progress=False)


def test_a_frame_of_many_scalars_is_not_fragmented(recwarn):
    from rlstats.logs._pieces import Piece
    from rlstats.logs._read import _assemble

    tags = tuple(f"t{i}" for i in range(120))
    piece = Piece(tags, np.repeat(np.arange(2), 120), np.tile(np.arange(120), 2), np.arange(240.0))
    frame, _, _ = _assemble({0: ({"run": "a"}, [(0, piece)])}, ["run"], {t: t for t in tags}, ["f"], "last")
    frame["added"] = 1.0  # pandas warns on a frame of over 100 blocks
    assert not [w for w in recwarn if "fragmented" in str(w.message)]
    assert frame["t119"].tolist() == [119.0, 239.0]


@pytest.mark.slow
def test_reading_event_files_takes_memory_in_proportion_to_them(tmp_path):
    """Issue 29's goal, on 50 and 100 runs x 3 tags x 10,000 steps (83 and 165 MB of events): the peak memory of
    read_logs above its imports stays under twice the files' size (benchmarks/bench_logs.py, one process each)."""
    import pathlib
    import subprocess
    import sys

    script = pathlib.Path(__file__).parents[1] / "benchmarks" / "bench_logs.py"
    out = subprocess.run([sys.executable, str(script), "tensorboard", "--runs", "50", "100", "--no-peer",
                          "--repeat", "1", "--folder", str(tmp_path)], capture_output=True, text=True, check=True)
    rows = [parts for parts in map(str.split, out.stdout.splitlines()) if parts[2:3] == ["rlstats"]]
    assert [int(r[0]) for r in rows] == [50, 100]
    for runs, _, _, rows_read, *_, per_disk in rows:
        assert int(rows_read.replace(",", "")) == int(runs) * 10_000
        assert float(per_disk) < 2.0, out.stdout
