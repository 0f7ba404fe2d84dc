"""Benchmarks of ``rlstats.read_logs``: time and peak memory beside tbparse and a pandas loop.

Run from the repository root, e.g. ``python benchmarks/bench_logs.py tensorboard --runs 50 100 200``.

``tensorboard`` (issue 29): runs x 3 tags x 10,000 steps of scalar events (200 runs: about 6 million
events), one event file per run at ``agent_{a}/task_{t}/seed_{s}/``, written by the minimal TFRecord
writer below (the bytes tensorboardX writes for ``add_scalar``, checked against its protobuf class
before the timing). Readers: ``rlstats.read_logs`` with the three tags, and tbparse's ``SummaryReader``
(``pip install tbparse``), which gives the same long table of step, tag, value and folder.

``monitor`` (issue 29): runs x 5,000 episodes of SB3 ``monitor.csv`` (as ``ResultsWriter`` writes it).
Readers: ``rlstats.read_logs`` and two plain pandas loops: ``pandas`` (``pandas.read_csv`` per file, the step
as the cumulative episode length, agent, task and seed inserted as columns, one ``concat``) and
``pandas-keys`` (the same, with agent, task and seed made once by ``concat(keys=...)``).

``events1000`` (issue 14, the default): 1,000 runs x 500 steps x 2 tags written by tensorboardX, read with
one job and with two, in this process; tensorboard's ``EventFileLoader`` on 20 of the files, for scale.

For ``tensorboard`` and ``monitor``, every reader runs in a fresh subprocess that imports what it needs (for
rlstats, tensorboard's protobuf classes too, as tbparse's import does), reads the folder ``--repeat`` times
and reports the best time, the peak resident memory (``ru_maxrss``) of its first read above what the imports
took, and the whole process's peak; ``--rounds`` measures the readers in turn that many times (best time,
highest peak). The data sets are written once into a temporary folder (or ``--folder``, kept and reused;
smaller run counts are hard links to the first runs of the largest).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TAGS = ("eval/mean_reward", "rollout/ep_rew_mean", "train/loss")
STEPS = 10_000
EPISODES = 5_000
PATTERN = "agent_{agent}/task_{task}/seed_{seed}"


def _layout(n_runs):
    """(agent, task, seed) of each run: 5 agents x 5 tasks x n_runs / 25 seeds."""
    if n_runs % 25:
        raise SystemExit(f"--runs must be multiples of 25 (5 agents x 5 tasks), got {n_runs}")
    return [(a, t, s) for a in range(5) for t in range(5) for s in range(n_runs // 25)]


# ------------------------------------------------------------------ writing the data sets

def _varint_width(values):
    width = np.ones(values.size, dtype=np.int64)
    for k in range(1, 10):
        width += values >= (1 << (7 * k))
    return width


def event_file_bytes(steps, tag_index, wall, value):
    """A TFRecord file of one ``simple_value`` scalar event per record (steps >= 1), after the file-version
    event tensorboardX writes first; records framed and checksummed as TensorBoard expects."""
    from rlstats.logs._tensorboard import masked_crc32c

    tags = [t.encode() for t in TAGS]
    first = b"\x09" + np.float64(wall[0]).tobytes() + b"\x1a\x0dbrain.Event:2"
    width = _varint_width(steps)
    tag_length = np.array([len(t) for t in tags])[tag_index]
    payload = 21 + width + tag_length
    record = payload + 16
    start = len(first) + 16 + np.concatenate([[0], np.cumsum(record)[:-1]])
    buffer = np.zeros(int(start[-1] + record[-1]), dtype=np.uint8)
    buffer[:8] = np.frombuffer(np.uint64(len(first)).tobytes(), np.uint8)
    buffer[12:12 + len(first)] = np.frombuffer(first, np.uint8)
    for k, tag in enumerate(tags):
        for w in np.unique(width).tolist():
            rows = np.flatnonzero((tag_index == k) & (width == w))
            if not rows.size:
                continue
            t = len(tag)
            parts = [np.full((rows.size, 1), 0x09, np.uint8), wall[rows].astype("<f8").view(np.uint8).reshape(-1, 8),
                     np.full((rows.size, 1), 0x10, np.uint8)]
            v = steps[rows].astype(np.uint64)
            for j in range(w):
                parts.append(((v >> np.uint64(7 * j)) & np.uint64(0x7F) | np.uint64(0x80 if j < w - 1 else 0))
                             .astype(np.uint8)[:, None])
            fixed = bytes([0x2A, t + 9, 0x0A, t + 7, 0x0A, t]) + tag + b"\x15"
            parts.append(np.broadcast_to(np.frombuffer(fixed, np.uint8), (rows.size, len(fixed))))
            parts.append(value[rows].astype("<f4").view(np.uint8).reshape(-1, 4))
            body = np.hstack(parts)
            header = np.asarray(payload[rows], dtype="<u8").view(np.uint8).reshape(-1, 8)
            at = start[rows, None]
            buffer[at + np.arange(8)] = header
            buffer[at + 12 + np.arange(body.shape[1])] = body
    starts = np.concatenate([[0], start])
    lengths = np.concatenate([[len(first)], payload])
    buffer[starts[:, None] + 8 + np.arange(4)] = (masked_crc32c(buffer, starts, np.full(starts.size, 8))
                                                  .astype("<u4").view(np.uint8).reshape(-1, 4))
    buffer[(starts + 12 + lengths)[:, None] + np.arange(4)] = (masked_crc32c(buffer, starts + 12, lengths)
                                                               .astype("<u4").view(np.uint8).reshape(-1, 4))
    return buffer.tobytes()


def _run_scalars(seed):
    rng = np.random.default_rng(seed)
    steps = np.repeat(np.arange(1, STEPS + 1, dtype=np.int64) * 100, len(TAGS))
    tag_index = np.tile(np.arange(len(TAGS)), STEPS)
    wall = 1_700_000_000.0 + np.arange(steps.size) * 0.01
    value = np.cumsum(rng.normal(0.1, 1.0, steps.size)).astype(np.float32)
    return steps, tag_index, wall, value


def check_writer():
    """The writer's bytes equal what tensorboardX's protobuf class serialises, record by record."""
    from tensorboardX.proto.event_pb2 import Event
    from tensorboardX.proto.summary_pb2 import Summary

    from rlstats.logs._tensorboard import frame_records

    steps = np.array([1, 127, 128, 16_384, 2_000_000, 10**12])
    tag_index = np.arange(steps.size) % len(TAGS)
    wall = 1_700_000_000.0 + np.arange(steps.size) * 0.37
    value = np.linspace(-3, 7, steps.size).astype(np.float32)
    data = event_file_bytes(steps, tag_index, wall, value)
    offsets, lengths = frame_records(data)  # framing and checksums as the reader checks them
    expected = [Event(wall_time=wall[0], file_version="brain.Event:2").SerializeToString()]
    expected += [Event(wall_time=w, step=int(s), summary=Summary(value=[Summary.Value(tag=TAGS[k], simple_value=v)]))
                 .SerializeToString() for s, k, w, v in zip(steps, tag_index, wall, value)]
    got = [data[o + 12:o + 12 + n] for o, n in zip(offsets.tolist(), lengths.tolist())]
    assert got == expected, "the benchmark's event writer differs from tensorboardX's protobuf class"


def write_tensorboard(root, n_runs):
    for a, t, s in _layout(n_runs):
        folder = root / f"agent_{a}" / f"task_{t}" / f"seed_{s}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "events.out.tfevents.1700000000.bench.1.0"
        if not path.exists():
            path.write_bytes(event_file_bytes(*_run_scalars((a * 10 + t) * 1000 + s)))


def write_monitors(root, n_runs):
    for a, t, s in _layout(n_runs):
        folder = root / f"agent_{a}" / f"task_{t}" / f"seed_{s}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "0.monitor.csv"
        if path.exists():
            continue
        rng = np.random.default_rng((a * 10 + t) * 1000 + s)
        lengths = rng.integers(10, 500, EPISODES)
        returns = np.round(np.cumsum(rng.normal(0.05, 1.0, EPISODES)) + lengths * 0.1, 6)
        times = np.round(np.cumsum(lengths) * 0.000713, 6)
        header = '#{"t_start": 1700000000.123456, "env_id": "Task%d-v0"}\nr,l,t\r\n' % t
        rows = "".join(f"{r},{n},{e}\r\n" for r, n, e in zip(returns.tolist(), lengths.tolist(), times.tolist()))
        path.write_text(header + rows, newline="")


def subset(root, kind, n_runs):
    """A folder of the first n_runs runs of ``root``, hard links to its files."""
    target = root.parent / f"{root.name}_{n_runs}"
    for a, t, s in _layout(n_runs):
        source = root / f"agent_{a}" / f"task_{t}" / f"seed_{s}"
        folder = target / source.relative_to(root)
        folder.mkdir(parents=True, exist_ok=True)
        for path in source.iterdir():
            if not (folder / path.name).exists():
                os.link(path, folder / path.name)
    return target


def folder_size(root):
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


# ------------------------------------------------------------------ the readers (run in a child process)

def _reader(name):
    """A named reader, its imports done: read(folder, kind) -> number of rows."""
    if name == "rlstats":
        import rlstats
        from rlstats.logs._tensorboard import _event_class

        _event_class()  # its imports (tensorboard's protobuf classes) before the baseline, as tbparse's are

        def read(folder, kind):
            tags = list(TAGS) if kind == "tensorboard" else None
            return len(rlstats.read_logs(folder, PATTERN, tags=tags, progress=False))
        return read
    if name == "tbparse":
        from tbparse import SummaryReader

        def read(folder, kind):
            return len(SummaryReader(str(folder), extra_columns={"dir_name", "wall_time"}).scalars)
        return read
    if name == "pandas":
        import pandas as pd

        def read(folder, kind):
            frames = []
            for path in sorted(Path(folder).rglob("*monitor.csv")):
                agent, task, seed = path.relative_to(folder).parts[:3]
                frame = pd.read_csv(path, skiprows=1)
                frame.insert(0, "step", frame["l"].cumsum())
                frame.insert(0, "seed", int(seed.removeprefix("seed_")))
                frame.insert(0, "task", task.removeprefix("task_"))
                frame.insert(0, "agent", agent.removeprefix("agent_"))
                frames.append(frame)
            return len(pd.concat(frames, ignore_index=True))
        return read
    if name == "pandas-keys":
        import pandas as pd

        def read(folder, kind):
            frames, keys = [], []
            for path in sorted(Path(folder).rglob("*monitor.csv")):
                frame = pd.read_csv(path, skiprows=1)
                frame["step"] = frame["l"].cumsum()
                frames.append(frame)
                keys.append(path.relative_to(folder).parts[:3])
            frame = pd.concat(frames, keys=keys, names=["agent", "task", "seed", None])  # the run columns made once
            return len(frame.reset_index(level=[0, 1, 2]))
        return read
    raise SystemExit(f"unknown reader {name}")


def _max_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


def child(name, folder, kind, repeat):
    read = _reader(name)
    base = _max_rss()
    times, peak = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        rows = read(Path(folder), kind)
        times.append(time.perf_counter() - start)
        peak = peak or _max_rss()  # the first read's peak, as a user reading once sees it
    print(json.dumps({"seconds": min(times), "rows": rows, "base": base, "peak": peak}))


def measure(name, folder, kind, repeat):
    out = subprocess.run([sys.executable, __file__, "--child", name, str(folder), kind, str(repeat)],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONWARNINGS="ignore"))
    if out.returncode:
        raise SystemExit(f"{name} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ the figures

def scaling(kind, root, run_counts, peers, repeat, rounds):
    write = write_tensorboard if kind == "tensorboard" else write_monitors
    start = time.perf_counter()
    check_writer() if kind == "tensorboard" else None
    full = root / kind
    write(full, max(run_counts))
    print(f"wrote {max(run_counts)} runs in {time.perf_counter() - start:.1f} s; readers in turn, {rounds} round(s), "
          f"best time and highest peak kept")
    print(f"{'runs':>5} {'MB on disk':>10} {'reader':>8} {'rows':>11} {'seconds':>8} {'ms/run':>7} "
          f"{'peak MB':>8} {'above imports':>13} {'/ disk':>6}")
    for n in run_counts:
        folder = subset(full, kind, n)
        size = folder_size(folder)
        results = {}
        for _ in range(rounds):  # in turn, so that a change in the machine's load hits every reader
            for name in ("rlstats",) + tuple(peers):
                r = measure(name, folder, kind, repeat if name == "rlstats" else 1)
                r["above"] = r["peak"] - r["base"]
                best = results.setdefault(name, r)
                best.update(seconds=min(best["seconds"], r["seconds"]), peak=max(best["peak"], r["peak"]),
                            above=max(best["above"], r["above"]))
        for name, r in results.items():
            print(f"{n:>5} {size / 1e6:>10.1f} {name:>8} {r['rows']:>11,} {r['seconds']:>8.2f} "
                  f"{r['seconds'] / n * 1e3:>7.1f} {r['peak'] / 1e6:>8.0f} {r['above'] / 1e6:>13.0f} "
                  f"{r['above'] / size:>6.2f}", flush=True)
        ours = results["rlstats"]
        for name in peers:
            print(f"{'':>5} {name} / rlstats: {results[name]['seconds'] / ours['seconds']:.2f}x the time, "
                  f"{results[name]['above'] / ours['above']:.2f}x the memory above imports", flush=True)


def events1000(root, seeds, steps, repeat):
    """Issue 14's workload, timed in this process."""
    import rlstats
    from measure import best_time  # benchmarks/measure.py

    def write_run(folder, seed):
        from tensorboardX import SummaryWriter

        rng = np.random.default_rng(seed)
        writer = SummaryWriter(str(folder), max_queue=1000, flush_secs=3600)
        curve = np.cumsum(rng.normal(0.1, 1.0, steps))
        for i in range(steps):
            writer.add_scalar("eval/mean_reward", curve[i], global_step=i * 2_000)
            writer.add_scalar("train/loss", 1.0 / (i + 1), global_step=i * 2_000)
        writer.close()

    n_runs = 4 * 10 * seeds
    if len(list(root.rglob("events.out.tfevents.*"))) != n_runs:
        from joblib import Parallel, delayed

        start = time.perf_counter()
        jobs = [(root / f"agent_{a}" / f"task_{t:02d}" / f"seed_{s}", (a * 100 + t) * 100 + s)
                for a in range(4) for t in range(10) for s in range(seeds)]
        Parallel(n_jobs=2)(delayed(write_run)(folder, seed) for folder, seed in jobs)
        print(f"wrote {n_runs} runs x {steps} steps x 2 tags with tensorboardX in "
              f"{time.perf_counter() - start:.1f} s (2 jobs)")
    print(f"{n_runs} event files, {folder_size(root) / 1e6:.1f} MB")

    def read(n_jobs):
        return rlstats.read_logs(root, "{agent}/{task}/seed_{seed}", progress=False, n_jobs=n_jobs)

    frame = read(1)
    assert frame.shape[0] == n_runs * steps, frame.shape
    for n_jobs in (1, 2):
        seconds = best_time(lambda: read(n_jobs), repeat)
        print(f"read_logs, n_jobs={n_jobs}: {seconds:.2f} s for {frame.shape[0]:,} rows "
              f"({seconds / n_runs * 1e3:.2f} ms per run; best of {repeat})")

    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    files = sorted(root.rglob("events.out.tfevents.*"))[:20]
    start = time.perf_counter()
    for path in files:
        for _ in EventFileLoader(str(path)).Load():
            pass
    per_file = (time.perf_counter() - start) / len(files)
    print(f"tensorboard's EventFileLoader (decoding only, no frame): {per_file * 1e3:.1f} ms per run, "
          f"{per_file * n_runs:.0f} s projected for {n_runs} runs")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child(argv[1], argv[2], argv[3], int(argv[4]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", nargs="?", default="events1000", choices=("tensorboard", "monitor", "events1000"))
    parser.add_argument("--runs", type=int, nargs="+", default=[50, 100, 200],
                        help="run counts (multiples of 25) for tensorboard and monitor")
    parser.add_argument("--no-peer", action="store_true", help="time rlstats alone (tbparse takes minutes)")
    parser.add_argument("--folder", default=None, help="where to write the logs (default: a temporary folder)")
    parser.add_argument("--repeat", type=int, default=3, help="reads per rlstats measurement (best kept)")
    parser.add_argument("--rounds", type=int, default=1, help="measurements of each reader, in turn")
    parser.add_argument("--seeds", type=int, default=25, help="events1000: seeds per agent and task")
    parser.add_argument("--steps", type=int, default=500, help="events1000: logged steps per run")
    args = parser.parse_args(argv)
    import pandas as pd

    import rlstats

    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, numpy {np.__version__}, pandas "
          f"{pd.__version__}, rlstats {rlstats.__version__}; load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(args.folder or scratch)
        if args.workload == "events1000":
            return events1000(root / "events1000", args.seeds, args.steps, args.repeat)
        peers = () if args.no_peer else (("tbparse",) if args.workload == "tensorboard" else ("pandas", "pandas-keys"))
        scaling(args.workload, root, sorted(args.runs), peers, args.repeat, args.rounds)
        print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
