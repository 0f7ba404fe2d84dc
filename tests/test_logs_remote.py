"""read_logs from URLs through fsspec: the frame, notes and read log equal to the local folder's (memory:// and
file://, and an S3 server started here where moto and s3fs are installed), whatever n_jobs; the listing and file
bounds; the bytes being read at once bounded; local folders read without fsspec."""

import json
import sys
import threading
import time
import uuid

import numpy as np
import pytest

import rlstats
from rlstats.errors import LogReadError, OptionError
from rlstats.logs import _remote

fsspec = pytest.importorskip("fsspec")
PATTERN = "{agent}/{task}/seed_{seed}"


def _monitor(seed, task):
    rows = "".join(f"{1.5 * i + seed},{10 + i},{0.25 * i:.6f}\r\n" for i in range(6))
    return '#{"t_start": 1700000000.0, "env_id": "%s"}\nr,l,t\r\n%s' % (task, rows)


def _progress(seed):
    return "time/total_timesteps,eval/mean_reward,train/loss\n" + "".join(
        f"{100 * i},{seed + i / 3},{1 / (i + 1)}\n" for i in range(5))


def _npz(seed):
    import io

    buffer = io.BytesIO()
    np.savez(buffer, timesteps=np.arange(1, 5) * 1000, results=np.arange(12.0).reshape(4, 3) + seed,
             ep_lengths=np.full((4, 3), 200))
    return buffer.getvalue()


def _jsonl(seed):
    return "".join(json.dumps({"step": 10 * i, "episode_return": seed * 1.25 + i}) + "\n" for i in range(4))


#: format -> (file name, content of a run)
FILES = {"sb3_monitor": ("0.monitor.csv", lambda seed, task: _monitor(seed, task)),
         "sb3_progress": ("progress.csv", lambda seed, task: _progress(seed)),
         "sb3_eval": ("evaluations.npz", lambda seed, task: _npz(seed)),
         "jsonl": ("log.jsonl", lambda seed, task: _jsonl(seed))}


def _runs():
    """{relative path: bytes}: 2 agents x 2 tasks x 2 seeds of every format in FILES."""
    files = {}
    for agent in ("dqn", "ppo"):
        for task in ("CartPole-v1", "Acrobot-v1"):
            for seed in (0, 1):
                for name, content in FILES.values():
                    data = content(seed + (agent == "ppo"), task)
                    files[f"{agent}/{task}/seed_{seed}/{name}"] = data if isinstance(data, bytes) else data.encode()
    return files


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """The same runs in a local folder and in fsspec's memory filesystem: (folder, its memory:// URL)."""
    local = tmp_path_factory.mktemp("runs")
    memory = fsspec.filesystem("memory")
    prefix = f"/rlstats-{uuid.uuid4().hex}"
    for relative, data in _runs().items():
        (local / relative).parent.mkdir(parents=True, exist_ok=True)
        (local / relative).write_bytes(data)
        memory.pipe(f"{prefix}/{relative}", data)
    yield local, f"memory://{prefix}"
    memory.rm(prefix, recursive=True)


def _same(local, remote):
    assert local.equals(remote)
    assert list(local.attrs["rlstats_notes"]) == list(remote.attrs["rlstats_notes"])
    one, other = local.attrs["read_log"], remote.attrs["read_log"]
    assert (one.files, one.problems, one.ignored, one.segments) == (other.files, other.problems, other.ignored,
                                                                    other.segments)


@pytest.mark.parametrize("format", list(FILES))
def test_a_url_reads_what_the_local_folder_reads(folders, format):
    local, memory = folders
    expected = rlstats.read_logs(local, PATTERN, format=format, progress=False)
    assert len(expected) > 0
    for url in (memory, local.as_uri()):
        for n_jobs in (1, 3):
            frame = rlstats.read_logs(url, PATTERN, format=format, progress=False, n_jobs=n_jobs)
            _same(expected, frame)
            assert frame.attrs["read_log"].root == url


def test_one_file_by_its_url(folders):
    local, memory = folders
    relative = "ppo/Acrobot-v1/seed_1/progress.csv"
    expected = rlstats.read_logs(local / relative, progress=False)
    _same(expected, rlstats.read_logs(f"{memory}/{relative}", progress=False))
    assert expected["eval/mean_reward"].tolist() == [2 + i / 3 for i in range(5)]


def test_the_listing_is_bounded_before_any_file_is_read(folders):
    _, memory = folders
    with pytest.raises(LogReadError, match="passed 10 files") as info:
        rlstats.read_logs(memory, PATTERN, format="jsonl", progress=False, max_files=10)
    assert "max_files=" in str(info.value)
    assert len(rlstats.read_logs(memory, PATTERN, format="jsonl", progress=False, max_files=32)) == 32


def test_a_file_over_max_file_bytes_is_refused_before_its_bytes_are_read(folders, monkeypatch):
    from fsspec.implementations.memory import MemoryFileSystem

    _, memory = folders
    opened, original = [], MemoryFileSystem._open
    monkeypatch.setattr(MemoryFileSystem, "_open", lambda self, path, *a, **k: (opened.append(path),
                                                                                original(self, path, *a, **k))[1])
    for format in ("sb3_eval", "jsonl"):  # opened as a file (npz), read whole (text)
        with pytest.raises(LogReadError, match="more than the max_file_bytes=100 a file read from a URL may have"):
            rlstats.read_logs(memory, PATTERN, format=format, progress=False, max_file_bytes=100)
        assert opened == []
    frame = rlstats.read_logs(memory, PATTERN, format="jsonl", progress=False, max_file_bytes=10**6)
    assert len(frame) == 32 and len(opened) == 8
    # a size the listing does not give is found while reading, reading no more than the bound and one byte
    file = _remote.RemoteFile(MemoryFileSystem(), memory.removeprefix("memory://")
                              + "/dqn/Acrobot-v1/seed_0/log.jsonl", "memory://x", None, 10)
    with pytest.raises(_remote.FileProblem, match="more than the max_file_bytes=10 a file"):
        file.read_bytes()


def test_a_file_is_read_asking_for_its_listed_size_not_the_bound():
    """A file object allocates what read(n) asks for before it reads: a 1 GiB bound must not cost 1 GiB a file."""
    import io

    class Recording(io.BytesIO):
        asked: list = []

        def read(self, n=-1):
            self.asked.append(n)
            return super().read(n)

    data = b"x" * 1000
    assert _remote._read_bounded(Recording(data), 1 << 30, 1000) == data and Recording.asked == [1001, 1 << 23]
    Recording.asked.clear()
    assert _remote._read_bounded(Recording(data), 1 << 30, None) == data and Recording.asked == [1 << 23, 1 << 23]
    with pytest.raises(_remote.FileProblem, match="more than the max_file_bytes=999 a file"):
        _remote._read_bounded(Recording(data), 999, 500)  # the file grew past its listing


def test_the_bytes_being_read_at_once_are_bounded_and_the_order_kept():
    """read_in_order: files of these sizes, read by 4 threads with a budget of 100 bytes: never more than 100 bytes
    (or one file alone) started and not handed on, and the outcomes in the order given."""
    sizes = [30, 30, 30, 30, 250, 10, 10, None, 60, 40, 5, 5, 5]
    lock, state = threading.Lock(), {"bytes": 0, "files": 0, "peak": 0, "alone": True}

    def read(index):
        size = sizes[index] or 100
        with lock:
            state["bytes"] += min(size, 100)
            state["files"] += 1
            state["peak"] = max(state["peak"], state["bytes"])
            if size > 100 and state["files"] > 1:
                state["alone"] = False
        time.sleep(0.002 * (len(sizes) - index))  # later files finish first
        with lock:
            state["files"] -= 1
            state["bytes"] -= min(size, 100)
        return index

    out = list(_remote.read_in_order(list(range(len(sizes))), read, 4, sizes.__getitem__, budget=100))
    assert out == list(range(len(sizes)))
    assert state["peak"] <= 100 and state["alone"]


def test_an_unknown_protocol_a_missing_implementation_and_missing_fsspec(monkeypatch):
    with pytest.raises(OptionError, match="names the protocol 'nosuchproto', which fsspec does not know"):
        rlstats.read_logs("nosuchproto://bucket/runs", progress=False)
    from fsspec.registry import known_implementations

    monkeypatch.setitem(known_implementations, "rlstatsgone", {"class": "rlstats_gone_fs.GoneFileSystem",
                                                                "err": "Install rlstats_gone_fs"})
    with pytest.raises(LogReadError, match="pip install rlstats_gone_fs"):
        rlstats.read_logs("rlstatsgone://bucket/runs", progress=False)
    monkeypatch.setitem(sys.modules, "fsspec", None)
    with pytest.raises(LogReadError, match=r"needs fsspec: pip install .*fsspec"):
        rlstats.read_logs("s3://bucket/runs", progress=False)


def test_a_local_folder_is_read_without_fsspec(folders, monkeypatch):
    local, _ = folders
    expected = rlstats.read_logs(local, PATTERN, format="jsonl", progress=False)
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec now fails
    _same(expected, rlstats.read_logs(local, PATTERN, format="jsonl", progress=False))


def test_the_command_line_reads_a_url(folders, tmp_path):
    from rlstats.cli import main

    local, memory = folders
    out = tmp_path / "runs.csv"
    assert main(["read-logs", memory, "--pattern", PATTERN, "--format", "sb3_progress", "--jobs", "2",
                 "-o", str(out), "--no-progress"]) == 0
    expected = rlstats.read_logs(local, PATTERN, format="sb3_progress", progress=False)
    from rlstats.tables import read_csv

    written = read_csv(out)
    assert written["eval/mean_reward"].tolist() == expected["eval/mean_reward"].tolist()
    assert written["source"].tolist() == expected["source"].tolist()


@pytest.mark.slow
def test_an_http_server_gives_the_local_frame(folders):
    """Python's http.server on the loopback address (its folder pages are fsspec's listing; it refuses range
    requests, so a zip archive is read whole): a folder URL ending in / and one file."""
    pytest.importorskip("aiohttp", reason="fsspec's HTTP filesystem needs aiohttp (pip install aiohttp)")
    import functools
    import http.server

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    local, _ = folders
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(local)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/"
        for format in ("sb3_eval", "jsonl"):
            _same(rlstats.read_logs(local, PATTERN, format=format, progress=False),
                  rlstats.read_logs(url, PATTERN, format=format, progress=False, n_jobs=2))
        relative = "dqn/CartPole-v1/seed_1/0.monitor.csv"
        _same(rlstats.read_logs(local / relative, progress=False), rlstats.read_logs(url + relative, progress=False))
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_an_s3_server_gives_the_local_frame(folders):
    """A moto S3 server on the loopback address, read with s3fs: the same frames as the local folder."""
    pytest.importorskip("s3fs", reason="s3fs is not installed (pip install s3fs)")
    server_module = pytest.importorskip("moto.server", reason="moto's server is not installed "
                                                              "(pip install 'moto[server]')")
    boto3 = pytest.importorskip("boto3")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="test", aws_secret_access_key="test",
                     region_name="us-east-1").create_bucket(Bucket="logs")
        options = {"key": "test", "secret": "test", "client_kwargs": {"endpoint_url": endpoint,
                                                                      "region_name": "us-east-1"}}
        s3 = fsspec.filesystem("s3", **options)
        for relative, data in _runs().items():
            s3.pipe(f"logs/runs/{relative}", data)
        local, _ = folders
        for format in FILES:
            expected = rlstats.read_logs(local, PATTERN, format=format, progress=False)
            for n_jobs in (1, 4):
                _same(expected, rlstats.read_logs("s3://logs/runs", PATTERN, format=format, progress=False,
                                                  n_jobs=n_jobs, storage_options=options))
        with pytest.raises(LogReadError, match="no such folder: s3://logs/nothing"):
            rlstats.read_logs("s3://logs/nothing", progress=False, storage_options=options)
    finally:
        server.stop()


# issue 43 item 4 (review): reads bounded when no size is listed, an archive read once, the listing stopped early

def _sizeless_and_counted(monkeypatch):
    """MemoryFileSystem with no sizes in its listing or info (as an HTTP folder's page) and every byte read from its
    files counted: {"read": bytes read, "opened": paths opened}."""
    import io

    from fsspec.implementations.memory import MemoryFileSystem

    counts = {"read": 0, "opened": []}

    class Counted(io.BytesIO):
        def read(self, n=-1):
            chunk = super().read(n)
            counts["read"] += len(chunk)
            return chunk

    ls, info, opener = MemoryFileSystem.ls, MemoryFileSystem.info, MemoryFileSystem._open

    def sizeless_ls(self, path, detail=True, **kwargs):
        out = ls(self, path, detail=detail, **kwargs)
        return [{k: v for k, v in entry.items() if k != "size"} for entry in out] if detail else out

    def counted_open(self, path, mode="rb", **kwargs):
        counts["opened"].append(path)
        with opener(self, path, mode, **kwargs) as handle:
            return Counted(handle.getvalue())

    monkeypatch.setattr(MemoryFileSystem, "ls", sizeless_ls)
    monkeypatch.setattr(MemoryFileSystem, "info", lambda self, path, **kwargs: {
        k: v for k, v in info(self, path, **kwargs).items() if k != "size"})
    monkeypatch.setattr(MemoryFileSystem, "_open", counted_open)
    return counts


@pytest.fixture
def memory_prefix():
    memory = fsspec.filesystem("memory")
    prefix = f"/rlstats-{uuid.uuid4().hex}"
    yield memory, prefix
    memory.rm(prefix, recursive=True)


def test_a_file_of_no_listed_size_is_refused_after_reading_no_more_than_the_bound(memory_prefix, monkeypatch):
    """A 2 MB CSV without a line end in a folder whose listing gives no sizes: the W&B header sniff and the read
    each stop after max_file_bytes + 1 bytes, and the file is the problem the read log states."""
    memory, prefix = memory_prefix
    memory.pipe(f"{prefix}/ppo/hopper/huge.csv", b"Step" + b",x" * 1_000_000)
    memory.pipe(f"{prefix}/ppo/hopper/seed_0/log.csv", b"step,return\n1,2.5\n2,3.5\n")
    counts = _sizeless_and_counted(monkeypatch)
    with pytest.warns(rlstats.errors.RlstatsWarning, match="huge.csv: unreadable: it has more than the max_file"):
        frame = rlstats.read_logs(f"memory://{prefix}", "{agent}/{task}/seed_{seed}", format="csv", progress=False,
                                  max_file_bytes=1000, on_error="skip")
    assert frame["return"].tolist() == [2.5, 3.5]
    (problem,), = [frame.attrs["read_log"].problems]
    assert problem.source == "ppo/hopper/huge.csv" and problem.kind == "unreadable"
    assert "more than the max_file_bytes=1,000 a file read from a URL may have" in problem.detail
    huge = [path for path in counts["opened"] if path.endswith("huge.csv")]
    assert len(huge) == 2  # sniffed, then read
    assert counts["read"] == 2 * 1001 + 24  # two reads of it stopped a byte past the bound, and log.csv's 24 bytes
    # the text stream alone: a readline without a limit stops at the bound
    file = _remote.RemoteFile(memory, f"{prefix}/ppo/hopper/huge.csv", "memory://x", None, 500)
    counts["read"] = 0
    with pytest.raises(_remote.FileProblem, match="more than the max_file_bytes=500 a file"):
        with file.open(encoding="utf-8") as handle:
            handle.readline()
    assert counts["read"] == 501


def test_the_w_and_b_header_is_sniffed_with_a_bound(tmp_path, monkeypatch):
    from rlstats.logs import _tabular

    monkeypatch.setattr(_tabular, "MAX_HEADER_CHARS", 40)
    wandb, other = tmp_path / "wandb.csv", tmp_path / "other.csv"
    wandb.write_text("Step," + ",".join(f"run{i} - charts/return" for i in range(100)))  # no line end, 2 KB
    other.write_text("step," + ",".join(f"column{i}" for i in range(100)) + "\n1," + ",".join("0" * 100))
    assert _tabular.looks_like_wandb_export(wandb) and not _tabular.looks_like_wandb_export(other)
    monkeypatch.setattr(_tabular, "MAX_HEADER_CHARS", 1 << 20)
    assert _tabular.looks_like_wandb_export(wandb) and not _tabular.looks_like_wandb_export(other)


def test_an_evaluations_npz_is_downloaded_once(folders, monkeypatch):
    _, memory = folders
    counts = _sizeless_and_counted(monkeypatch)
    frame = rlstats.read_logs(memory, PATTERN, format="sb3_eval", progress=False)
    assert len(frame) == 32
    assert len(counts["opened"]) == 8 and len(set(counts["opened"])) == 8  # each of the 8 archives once
    assert counts["read"] == sum(len(data) for relative, data in _runs().items()
                                 if relative.endswith(".npz"))  # each read whole once


def test_the_listing_stops_at_the_folder_that_passes_max_files(memory_prefix, monkeypatch):
    """40 folders of 3 files each: with max_files=10, only the folders up to the one holding the 11th file are
    listed (fs.walk is lazy)."""
    from fsspec.implementations.memory import MemoryFileSystem

    memory, prefix = memory_prefix
    for folder in range(40):
        for seed in range(3):
            memory.pipe(f"{prefix}/ppo/task{folder:02d}/log{seed}.jsonl", b'{"step": 1, "r": 1}\n')
    listed, ls = [], MemoryFileSystem.ls

    def counted_ls(self, path, detail=True, **kwargs):
        out = ls(self, path, detail=detail, **kwargs)
        listed.extend(entry["name"] for entry in out if entry["type"] == "file")
        return out

    monkeypatch.setattr(MemoryFileSystem, "ls", counted_ls)
    with pytest.raises(LogReadError, match="passed 10 files"):
        rlstats.read_logs(f"memory://{prefix}", progress=False, max_files=10)
    # the folders task00 to task03 (the 11th file is in task03), not the 120 files of the 40
    assert len(listed) == 12 and {name.rsplit("/", 2)[1] for name in listed} == {f"task0{i}" for i in range(4)}
