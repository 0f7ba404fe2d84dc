"""``rlstats adastop update|status|plot``: the batch-by-batch workflow from the shell."""

import io
import json

import pandas as pd
import pytest

import rlstats
import rlstats.cli as cli
from rlstats.methods.adastop import AdaStop, adastop
from rlstats.tables import read_csv


def run(*argv):
    out = io.StringIO()
    status = cli.main(list(argv), out=out)
    return status, out.getvalue()


@pytest.fixture
def walker(published, tmp_path):
    """The Walker batches as the reference tool's CSV files: an index column and one column per agent."""
    runs = read_csv(published / "mujoco_batches.csv")
    runs = runs[runs["task"] == "walker"]
    paths = []
    for k in range(1, 7):
        batch = runs[runs["batch"] == k].pivot(index="seed", columns="agent", values="score")
        path = tmp_path / f"walker{k}.csv"
        batch.reset_index(drop=True).to_csv(path)
        paths.append(path)
    return runs, paths


def test_workflow_matches_the_python_api(walker, tmp_path):
    # These files hold only the runs the paper's test asked for (PPO and SAC stop after two batches), so
    # the replay runs the paper's pairwise scheme; the default needs batches that were never collected.
    runs, paths = walker
    state = tmp_path / "state.json"
    status, text = run("adastop", "update", str(state), str(paths[0]), "--K", "6", "--seed", "0",
                       "--permutations", "pairwise")
    assert status == 0 and "created" in text and "n = 5" in text and "permutations = pairwise" in text
    assert "next batch" in text
    k = 1
    while "the test is finished" not in text:
        k += 1
        status, text = run("adastop", "update", str(state), str(paths[k - 1]))
        assert status == 0, text
    one_shot = adastop(runs, "score ~ agent", n=5, K=6, batch="batch", rng=0, permutations="pairwise")
    loaded = AdaStop.load(state)
    pd.testing.assert_frame_equal(loaded.result().decisions, one_shot.decisions)
    assert "AdaStop sequential permutation test" in text  # the final result is printed
    assert k == 6 and loaded.done and json.loads(state.read_text())["options"]["permutations"] == "pairwise"


def batch_files(tmp_path, frame):
    """One long-format CSV per batch of a simulated campaign (every agent, every batch)."""
    paths = []
    for k, batch in frame.groupby("batch"):
        path = tmp_path / f"sim{k}.csv"
        batch[["agent", "score"]].to_csv(path, index=False)
        paths.append(path)
    return paths


@pytest.fixture
def simulated_campaign(tmp_path):
    frame = rlstats.datasets.simulate(agents=4, tasks=1, seeds=30, effect=[0.0, 0.0, 1.0, 2.5], rng=3)
    frame["batch"] = frame["seed"] // 5 + 1
    return frame, batch_files(tmp_path, frame)


def feed_rest(state, paths):
    """Feed batches 2, 3, ... restricted to the agents the state asks for, as a user would; the last output."""
    text = ""
    for path in paths[1:]:
        asked = AdaStop.load(state).agents_to_run
        if not asked:
            break
        batch = read_csv(path)
        batch[batch["agent"].isin(asked)].to_csv(path, index=False)
        status, text = run("adastop", "update", str(state), str(path))
        assert status == 0, text
    return text


def test_default_workflow_is_holm_and_matches_the_python_api(simulated_campaign, tmp_path):
    frame, paths = simulated_campaign
    state = tmp_path / "state.json"
    status, text = run("adastop", "update", str(state), str(paths[0]), "--seed", "4")
    assert status == 0 and "permutations = holm" in text
    text = feed_rest(state, paths)
    assert "the test is finished" in text and "on its own pair's paths at alpha / c" in text
    assert json.loads(state.read_text())["options"]["permutations"] == "holm"
    one_shot = adastop(frame, "score ~ agent", n=5, K=6, batch="batch", rng=4)
    assert one_shot.options["permutations"] == "holm"
    loaded = AdaStop.load(state).result()
    pd.testing.assert_frame_equal(loaded.decisions, one_shot.decisions)
    assert loaded.runs_used["n_runs"].min() < 30  # some agent stopped early: the files were cut to the asked


def test_state_written_before_the_option_resumes_as_pairwise(simulated_campaign, tmp_path, capsys):
    # A state without "permutations" was written with the old default (pairwise): resuming it must give
    # the uninterrupted pairwise run, not switch scheme halfway.
    frame, paths = simulated_campaign
    state = tmp_path / "old.json"
    assert run("adastop", "update", str(state), str(paths[0]), "--seed", "4", "--permutations", "pairwise")[0] == 0
    saved = json.loads(state.read_text())
    del saved["options"]["permutations"]
    state.write_text(json.dumps(saved))
    feed_rest(state, paths)
    paper = adastop(frame, "score ~ agent", n=5, K=6, batch="batch", rng=4, permutations="pairwise")
    pd.testing.assert_frame_equal(AdaStop.load(state).result().history, paper.history)
    assert json.loads(state.read_text())["options"]["permutations"] == "pairwise"
    default = adastop(frame, "score ~ agent", n=5, K=6, batch="batch", rng=4)
    assert not default.history.equals(paper.history)  # the two schemes differ on these data
    # a later --permutations must match what the state ran
    capsys.readouterr()
    assert run("adastop", "update", str(state), str(paths[-1]), "--permutations", "joint")[0] == 2
    assert "permutations = 'pairwise'" in capsys.readouterr().err


def test_status_and_plot(walker, tmp_path):
    _, paths = walker
    state = tmp_path / "s.json"
    run("adastop", "update", str(state), str(paths[0]), "--seed", "1")
    status, text = run("adastop", "status", str(state))
    assert status == 0 and "after batch 1 of at most 6" in text and "runs used: DDPG 5" in text
    for kind in ("decisions", "scores", "boundaries"):
        image = tmp_path / f"{kind}.png"
        status, text = run("adastop", "plot", str(state), str(image), "--kind", kind)
        assert status == 0 and image.stat().st_size > 1000


def test_long_batch_files(tmp_path):
    state = tmp_path / "s.json"
    batch = tmp_path / "b1.csv"
    pd.DataFrame({"agent": ["x"] * 4 + ["y"] * 4, "score": [1.0, 2, 3, 4, 11, 12, 13, 14]}).to_csv(batch, index=False)
    status, text = run("adastop", "update", str(state), str(batch), "--K", "2", "--alpha", "0.3", "--seed", "0")
    assert status == 0 and "n = 4" in text
    saved = json.loads(state.read_text())
    assert saved["options"]["K"] == 2 and saved["options"]["alpha"] == 0.3 and saved["batches"][0]["y"][0] == 11.0


@pytest.mark.parametrize("argv, message", [
    (["--alpha", "0.01"], "only applies when the state is created"),
    (["--seed", "5"], "--seed only applies"),
])
def test_changed_options_are_refused(walker, tmp_path, capsys, argv, message):
    _, paths = walker
    state = tmp_path / "s.json"
    run("adastop", "update", str(state), str(paths[0]), "--seed", "0")
    before = state.read_text()
    status, _ = run("adastop", "update", str(state), str(paths[1]), *argv)
    assert status == 2 and message in capsys.readouterr().err
    assert state.read_text() == before


def test_errors_exit_2_without_traceback(walker, tmp_path, capsys):
    _, paths = walker
    state = tmp_path / "s.json"
    assert run("adastop", "status", str(state))[0] == 2
    assert "no AdaStop state" in capsys.readouterr().err
    # the joint relabelling (the default before audit s29b), which has not decided PPO and SAC after two batches
    run("adastop", "update", str(state), str(paths[0]), "--seed", "0", "--permutations", "joint")
    run("adastop", "update", str(state), str(paths[1]))
    before = state.read_text()
    # walker2.csv again
    status, _ = run("adastop", "update", str(state), str(paths[1]))
    err = capsys.readouterr().err
    assert status == 2 and "repeats batch 2" in err and "Traceback" not in err
    # walker3.csv: the reference package stopped PPO and SAC after two batches; the joint test needs them
    status, _ = run("adastop", "update", str(state), str(paths[2]))
    err = capsys.readouterr().err
    assert status == 2 and "lacks agents PPO, SAC" in err and "Traceback" not in err
    assert state.read_text() == before
    # with the paper's scheme PPO and SAC are decided after two batches, so they must not run
    paper = tmp_path / "paper.json"
    run("adastop", "update", str(paper), str(paths[0]), "--seed", "0", "--permutations", "pairwise")
    run("adastop", "update", str(paper), str(paths[1]))
    before = paper.read_text()
    status, _ = run("adastop", "update", str(paper), str(paths[1]))
    err = capsys.readouterr().err
    assert status == 2 and "should not run" in err and "Traceback" not in err
    assert paper.read_text() == before
    assert run("adastop", "update", str(state), str(tmp_path / "missing.csv"))[0] == 2
    assert "file not found" in capsys.readouterr().err
    (tmp_path / "broken.json").write_text("{")
    assert run("adastop", "status", str(tmp_path / "broken.json"))[0] == 2
    assert "cannot read the AdaStop state" in capsys.readouterr().err


# ---- the state under concurrent, repeated or hand-edited use (issue 16 item 4) ------------------------

import os
import stat
import subprocess
import sys
import warnings

import numpy as np

from conftest import HANG_SECONDS, cli_shell, run_child
from rlstats.errors import DesignError


def _long_batch(path, seed, n=3):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"agent": ["a"] * n + ["b"] * n, "score": rng.normal(size=2 * n).round(6)})
    frame.to_csv(path, index=False)
    return frame


def _cli(*argv):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.Popen([sys.executable, "-m", "rlstats", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.parametrize("races", [1, pytest.param(2, marks=pytest.mark.slow)])  # 1.8 s of CPU a race
def test_concurrent_updates_never_lose_a_batch(tmp_path, races):
    first = tmp_path / "b1.csv"
    _long_batch(first, 0)
    for trial in range(races):  # races of two processes each (a third took 1.6 s of the default run)
        state = tmp_path / f"state{trial}.json"
        status, _ = run("adastop", "update", str(state), str(first), "--K", "6", "--n-resamples", "200",
                        "--seed", "0")
        assert status == 0
        second, third = tmp_path / f"x{trial}.csv", tmp_path / f"y{trial}.csv"
        _long_batch(second, 10 + trial)
        _long_batch(third, 20 + trial)
        procs = [_cli("adastop", "update", str(state), str(p)) for p in (second, third)]
        outputs = [p.communicate(timeout=HANG_SECONDS) for p in procs]
        assert all(p.returncode == 0 for p in procs), outputs
        printed = sorted(o[0].splitlines()[0] for o in outputs)
        assert printed == ["after batch 2 of at most 6 (n = 3 runs per agent per batch):",
                           "after batch 3 of at most 6 (n = 3 runs per agent per batch):"]
        assert len(json.loads(state.read_text())["batches"]) == 3
        assert not list(tmp_path.glob(f".{state.name}.*.tmp"))


def test_shuffled_batch_is_refused_and_rounded_one_warns(tmp_path):
    seq = AdaStop(["a", "b"], n=3, K=5, n_resamples=200, rng=0)
    seq.update({"a": [1.0, 2.0, 3.5], "b": [0.25, 4.0, 2.0]})
    with pytest.raises(DesignError, match="repeats batch 1 .*in any order"):
        seq.update({"a": [3.5, 1.0, 2.0], "b": [2.0, 0.25, 4.0]})
    assert seq.interim == 1
    with pytest.warns(UserWarning, match="nearly identical to batch 1"):
        seq.update({"a": [1.0001, 2.0, 3.5], "b": [0.25, 4.0, 2.0001]})  # b's runs alone equal: refused (s20)
    assert seq.interim == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seq.update({"a": [7.0, 8.0, 9.0], "b": [0.0, 1.0, 2.0]})


def test_hand_edited_state_is_detected(tmp_path):
    seq = AdaStop(["a", "b"], n=2, K=4, n_resamples=200, rng=0)
    seq.update({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    seq.update({"a": [5.0, 2.5], "b": [3.0, 1.0]})
    path = seq.save(tmp_path / "state.json")
    state = json.loads(path.read_text())
    assert len(state["digests"]) == 2 and AdaStop.load(path).interim == 2
    state["batches"][1]["a"] = [5.0, 2.4]  # still a valid batch, but not the one fed
    path.write_text(json.dumps(state))
    # the error names the state file (audit s23)
    with pytest.raises(DesignError, match=f"batch 2 of the AdaStop state {path} does not match its recorded digest"):
        AdaStop.load(path)
    del state["digests"]  # removing the digests hides nothing: a version 3 state always has them
    path.write_text(json.dumps(state))
    with pytest.raises(DesignError, match="has no \"digests\": a version 4 state always records one per batch"):
        AdaStop.load(path)


def test_state_from_before_digests_loads_with_a_warning(tmp_path, capsys):
    # Version 1 was written both before digests existed and after: without them it loads, and says so.
    from rlstats.methods.adastop._integrity import legacy_digest

    seq = AdaStop(["a", "b"], n=2, K=4, n_resamples=200, rng=0)
    seq.update({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    state = seq.to_state()
    assert state["version"] == 4
    del state["integrity"], state["draws"]
    state.update(version=1, digests=[legacy_digest(b) for b in state["batches"]])
    path = tmp_path / "old.json"
    path.write_text(json.dumps(state))
    with pytest.warns(rlstats.RlstatsWarning, match="version 1, which had digests of the batches' scores only"):
        assert AdaStop.load(path).interim == 1  # version 1 with digests: verified, migrated
    state["batches"][0]["a"] = [1.0, 2.5]
    path.write_text(json.dumps(state))
    with pytest.raises(DesignError, match="does not match its recorded digest"):
        AdaStop.load(path)
    del state["digests"]
    path.write_text(json.dumps(state))
    with pytest.warns(rlstats.RlstatsWarning, match="recorded no digests, so its batches, options and seed cannot be "
                                                    "verified"):
        old = AdaStop.load(path)
    assert old.interim == 1 and any("without digests" in note for note in old.result().notes)
    status, text = run("adastop", "status", str(path))
    assert status == 0 and "after batch 1" in text
    assert "rlstats: warning: the AdaStop state was written in version 1, which recorded no digests" in \
        capsys.readouterr().err
    for version in (0, 5, "2", True):
        state["version"] = version
        path.write_text(json.dumps(state))
        with pytest.raises(DesignError, match="is not supported .*reads versions 1, 2, 3, 4"):
            AdaStop.load(path)


def test_save_keeps_mode_and_symlink_and_removes_stale_temporaries(tmp_path):
    seq = AdaStop(["a", "b"], n=2, K=4, n_resamples=200, rng=0)
    seq.update({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    real = tmp_path / "real" / "state.json"
    real.parent.mkdir()
    seq.save(real)
    os.chmod(real, 0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    stale = real.parent / ".state.json.abc123.tmp"
    stale.write_text("{}")
    os.utime(stale, (1, 1))
    seq.update({"a": [0.5, 2.0], "b": [3.0, 9.0]})
    seq.save(link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640
    assert AdaStop.load(link).interim == 2 and not stale.exists()


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.update(batches={"a": 1}), "\"batches\" must be a list"),
    (lambda s: s.update(batches=[{"a": ["x", 1.0], "b": [1.0, 2.0]}]), "\"batches\" must be a list"),
    (lambda s: s.update(agents="ab"), "\"agents\" must be a list"),
    (lambda s: s.update(options=[1, 2]), "\"options\" must be an object"),
    (lambda s: s["options"].update(n={"deep": 1}), "\"options.n\" must be a number"),
    (lambda s: s.update(seed={"entropy": "zero", "spawn_key": []}), "\"seed\" must hold"),
])
def test_malformed_states_are_one_clear_error(tmp_path, capsys, edit, message):
    seq = AdaStop(["a", "b"], n=2, K=4, n_resamples=200, rng=0)
    seq.update({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    state = seq.to_state()
    edit(state)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    with pytest.raises(DesignError, match=message):
        AdaStop.load(path)
    assert run("adastop", "status", str(path))[0] == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_deeply_nested_state_is_one_clear_error(tmp_path, capsys):
    path = tmp_path / "state.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DesignError, match="nested too deeply"):
        AdaStop.load(path)
    assert run("adastop", "status", str(path))[0] == 2
    assert "nested too deeply" in capsys.readouterr().err


# ---- sizes, the lock, and one line for every mistake (issue 27) --------------------------------------

import fcntl
import time

from rlstats.errors import OptionError
from rlstats.methods.adastop import state_lock


def _saved_state(tmp_path, **changes):
    seq = AdaStop(["a", "b"], n=2, K=4, n_resamples=200, rng=0)
    seq.update({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    state = seq.to_state()
    state["options"].update(changes)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    return path


HUGE_SIZES = [({"K": 10**9}, "K=1000000000 is more than 1,000 interims"),
              ({"n": 10**9}, "n=1000000000 is more than 10,000 runs per agent per batch"),
              ({"n_resamples": 10**12}, "n_resamples=1000000000000 is more than 10,000,000 permutation paths")]

# `rlstats adastop status PATH` for each path named, in one child process: each command's exit status, stdout,
# stderr and CPU seconds (the parent's CPU cap ends a hang)
_STATUS_EACH = '''
import contextlib, io, json, sys, time
from rlstats.cli import main
done = []
for path in sys.argv[1:]:
    out, err = io.StringIO(), io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["adastop", "status", path], out=out)
        except SystemExit as exc:
            status = exc.code
    done.append([status, out.getvalue(), err.getvalue(), time.process_time() - start])
print(json.dumps(done))
'''


@pytest.fixture(scope="module")
def huge_states_status(tmp_path_factory):
    """The three states of HUGE_SIZES and what `adastop status` gives on each, from one child process (a child
    a state cost ~1 s of CPU to start Python and rlstats, three times)."""
    paths = [_saved_state(tmp_path_factory.mktemp("huge"), **changes) for changes, _ in HUGE_SIZES]
    done, _ = run_child([sys.executable, "-c", _STATUS_EACH, *map(str, paths)], cpu_seconds=180,
                        capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return dict(zip(range(len(paths)), zip(paths, json.loads(done.stdout))))


@pytest.mark.parametrize("case", range(len(HUGE_SIZES)), ids=["K", "n", "n_resamples"])
def test_state_asking_for_huge_sizes_is_one_line_within_seconds(huge_states_status, case):
    # adastop status used to hang on K = 10**9 or n = 10**9 and raise MemoryError on n_resamples = 10**12
    path, (status, stdout, stderr, cpu) = huge_states_status[case]
    # CPU seconds of the command itself, not wall time (which load stretches)
    assert status == 2 and stdout == "" and cpu < 30
    assert stderr.startswith(f"rlstats: error: the AdaStop state {path} is inconsistent: ")
    assert HUGE_SIZES[case][1] in stderr
    assert stderr.count("\n") == 1


def test_state_with_more_batches_than_K_or_too_many_agents_is_refused(tmp_path):
    path = _saved_state(tmp_path, K=1)
    state = json.loads(path.read_text())
    state["batches"] *= 2
    state["digests"] *= 2
    path.write_text(json.dumps(state))
    with pytest.raises(DesignError, match="holds 2 batches but K = 1"):
        AdaStop.load(path)
    state = json.loads(_saved_state(tmp_path).read_text())
    state["agents"] = [f"x{i}" for i in range(100_000)]
    with pytest.raises(DesignError, match="lists 100,000 agents, more than 1000"):
        AdaStop.from_state(state)


def _hold_lock(path):
    """A second process that takes the state's lock and keeps it until killed; returns it once it holds it."""
    code = ("import sys, time\n"
            "from rlstats.methods.adastop import state_lock\n"
            f"with state_lock({str(path)!r}):\n"
            "    print('held', flush=True)\n"
            f"    time.sleep({HANG_SECONDS})\n")
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_update_gives_up_on_a_held_lock_and_names_the_holder(tmp_path):
    first, second = tmp_path / "b1.csv", tmp_path / "b2.csv"
    _long_batch(first, 0)
    _long_batch(second, 1)
    state = tmp_path / "state.json"
    assert run("adastop", "update", str(state), str(first), "--seed", "0")[0] == 0
    before = state.read_text()
    holder = _hold_lock(state)
    try:
        # the update in this process (a `python -m rlstats` child cost 1.2 s of CPU to start), the lock in another
        done = cli_shell("adastop", "update", state, second, "--lock-timeout", "0.2")
        # it gave up while the lock was still held (not by outwaiting the holder): no wall-clock bound that
        # load could trip is needed
        held_throughout = holder.poll() is None
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert f"its lock {state}.lock was not released within 0.2 s" in done.stderr
    assert f"process {holder.pid}" in done.stderr and "--lock-timeout" in done.stderr
    assert held_throughout and state.read_text() == before
    # the holder gone, the same update goes through
    assert run("adastop", "update", str(state), str(second), "--lock-timeout", "5")[0] == 0


def test_state_lock_times_out_against_another_open_file_description(tmp_path):
    # flock locks belong to an open file description: one opened and locked here blocks state_lock's own
    state = tmp_path / "s.json"
    handle = os.open(f"{state}.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(handle, fcntl.LOCK_EX)
    try:
        start = time.monotonic()
        with pytest.raises(DesignError, match=rf"lock {state}\.lock was not released within 0\.2 s") as caught:
            with state_lock(state, timeout=0.2):
                pass
        assert 0.2 <= time.monotonic() - start < 60  # generous: load delays the giving up; a hang never ends
        assert f"process {os.getpid()}" in str(caught.value)  # /proc/locks (Linux) names this process
    finally:
        os.close(handle)
    with state_lock(state, timeout=0.2) as target:
        assert target == state and (tmp_path / "s.json.lock").read_text() == f"{os.getpid()}\n"
    assert not (tmp_path / "s.json.lock").exists()  # released: removed, no stale process id (audit s16)
    for bad in (-1, float("nan"), float("inf"), "5", True):
        with pytest.raises(OptionError, match="lock timeout must be a number of seconds"):
            with state_lock(state, timeout=bad):
                pass


def test_separator_option_and_batch_from_standard_input(tmp_path, monkeypatch, capsys):
    semicolon = tmp_path / "b1.csv"
    semicolon.write_text("agent;score\na;1\na;2\na;3.5\nb;4\nb;5\nb;6.5\n")
    state = tmp_path / "s.json"
    # the advice names an option adastop update has
    assert run("adastop", "update", str(state), str(semicolon))[0] == 2
    assert "pass --sep ';'" in capsys.readouterr().err and not state.exists()
    status, text = run("adastop", "update", str(state), str(semicolon), "--sep", ";", "--seed", "0")
    assert status == 0 and "created" in text
    piped = io.TextIOWrapper(io.BytesIO(b"agent,score\na,7\na,8\na,9.5\nb,1\nb,0\nb,2.5\n"))
    monkeypatch.setattr(sys, "stdin", piped)
    status, text = run("adastop", "update", str(state), "-")
    assert status == 0 and "after batch 2" in text
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(state.read_bytes())))
    status, text = run("adastop", "status", "-")
    assert status == 0 and "after batch 2" in text and "runs used: a 6, b 6" in text


@pytest.mark.parametrize("argv, message", [
    (["update", "{state}", "{state}"], "STATE {state} is the input"),
    (["update", "{tmp}/missing/s.json", "{batch}"], "folder {tmp}/missing does not exist"),
    (["update", "/proc/s.json", "{batch}"], "cannot write under /proc"),
    (["update", "{tmp}", "{batch}"], "is a folder"),
    (["update", "-", "{batch}"], "cannot be - (standard input)"),
    (["update", "{tmp}/new.json", "{batch}", "--K", "1000000000"], "--K 1000000000 is more than 1,000 interims"),
    (["update", "{tmp}/new.json", "{batch}", "--lock-timeout", "-1"], "--lock-timeout -1 is not a number of seconds"),
    (["update", "{tmp}/new.json", "{batch}", "--sep", ""], "--sep '' is not one character"),
    (["status", "{tmp}"], "is a folder; give the JSON state file"),
    (["status", "{tmp}/junk.bin"], "cannot read the AdaStop state {tmp}/junk.bin: 'utf-8' codec"),
    (["update", "{state}", "{tmp}/junk.bin"], "{tmp}/junk.bin is not UTF-8 text"),
    (["plot", "{state}", "{state}"], "OUT {state} is the input"),
    (["plot", "{state}", "/proc/x.png"], "cannot write under /proc"),
    (["plot", "{state}", "{tmp}/missing/x.png"], "folder {tmp}/missing does not exist"),
    (["plot", "{state}", "{tmp}/x.txt"], "cannot save a figure as 'x.txt'"),
])
def test_every_mistake_is_one_line_before_any_output(tmp_path, capsys, argv, message):
    batch = tmp_path / "b1.csv"
    _long_batch(batch, 0)
    state = tmp_path / "state.json"
    assert run("adastop", "update", str(state), str(batch), "--seed", "0")[0] == 0
    (tmp_path / "junk.bin").write_bytes(b"\xff\xfe\x00agent,score")
    before = sorted(p.name for p in tmp_path.iterdir()), state.read_text()
    capsys.readouterr()
    names = {"state": state, "tmp": tmp_path, "batch": batch}
    status, text = run("adastop", *[a.format(**names) for a in argv])
    err = capsys.readouterr().err
    assert status == 2 and text == "" and err.startswith("rlstats: error: ") and err.count("\n") == 1
    assert message.format(**names) in err
    assert (sorted(p.name for p in tmp_path.iterdir()), state.read_text()) == before  # nothing made or changed


def test_plot_to_standard_output_is_a_png_and_a_closed_pipe_is_quiet(tmp_path):
    state = tmp_path / "state.json"
    _long_batch(tmp_path / "b1.csv", 0)
    assert run("adastop", "update", str(state), str(tmp_path / "b1.csv"), "--n", "3", "--K", "3")[0] == 0
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-m", "rlstats", "adastop", "plot", str(state), "-"], capture_output=True,
                          env=env, timeout=HANG_SECONDS)
    assert done.returncode == 0 and done.stdout[:8] == b"\x89PNG\r\n\x1a\n" and b"standard output (PNG)" in done.stderr


class _ClosedPipe(io.StringIO):
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_went_away_ends_the_command_quietly(walker, tmp_path, monkeypatch, capsys):
    _, batches = walker
    state = tmp_path / "state.json"
    assert run("adastop", "update", str(state), str(batches[0]))[0] == 0
    capsys.readouterr()
    with open(tmp_path / "stdout", "w") as stdout:  # a real descriptor, which main points at /dev/null
        monkeypatch.setattr("sys.stdout", stdout)
        assert cli.main(["adastop", "status", str(state)], out=_ClosedPipe()) == 1
    assert capsys.readouterr().err == ""


# ---- issue 39 item 6: digests that chain the options, and a key ---------------------------------------------------

def _key_file(path, content=b"k" * 32, mode=0o600):
    path.write_bytes(content)
    path.chmod(mode)
    return path


def _edited_state(path, edit):
    state = json.loads(path.read_text())
    edit(state)
    path.write_text(json.dumps(state, indent=1))


def _fails_in_one_line(capsys, argv, phrase):
    capsys.readouterr()
    status, text = run("adastop", *map(str, argv))
    err = capsys.readouterr().err
    assert status == 2 and text == "" and err.startswith("rlstats: error: ") and err.count("\n") == 1, err
    assert phrase in err, err


def test_an_edited_option_is_refused_by_every_command(tmp_path, capsys):
    first, second = tmp_path / "b1.csv", tmp_path / "b2.csv"
    _long_batch(first, 0, n=5)
    _long_batch(second, 1, n=5)
    state = tmp_path / "state.json"
    assert run("adastop", "update", str(state), str(first), "--seed", "0", "--n-resamples", "300")[0] == 0
    _edited_state(state, lambda s: s["options"].update(alpha=0.5))
    before = state.read_text()
    phrase = f"batch 1 of the AdaStop state {state} does not match its recorded digest: option alpha changed"
    _fails_in_one_line(capsys, ["status", state], phrase)
    _fails_in_one_line(capsys, ["plot", state, tmp_path / "x.png"], phrase)
    _fails_in_one_line(capsys, ["update", state, second], phrase)
    assert state.read_text() == before and not (tmp_path / "x.png").exists()
    # the same with K 6 -> 2, and with the first batch fed twice (its digest copied along)
    _edited_state(state, lambda s: s["options"].update(alpha=0.05, K=2))
    _fails_in_one_line(capsys, ["status", state], f"batch 1 of the AdaStop state {state} does not match its recorded "
                                                  "digest: option K changed")
    _edited_state(state, lambda s: s["options"].update(K=6))
    assert run("adastop", "status", str(state))[0] == 0  # restored: accepted again
    _edited_state(state, lambda s: [s[k].append(s[k][0]) for k in ("batches", "digests")]
                  + [s["integrity"]["scores"].append(s["integrity"]["scores"][0])])
    _fails_in_one_line(capsys, ["status", state], f"batch 2 of the AdaStop state {state} does not match its recorded "
                                                  "digest: it repeats batch 1")


def test_a_keyed_state_from_creation_to_the_end(tmp_path, capsys):
    first, second = tmp_path / "b1.csv", tmp_path / "b2.csv"
    _long_batch(first, 0)
    _long_batch(second, 1)
    key, other = _key_file(tmp_path / "adastop.key"), _key_file(tmp_path / "other.key", b"o" * 32)
    state = tmp_path / "state.json"
    status, text = run("adastop", "update", str(state), str(first), "--seed", "0", "--n-resamples", "200",
                       "--key-file", str(key))
    from rlstats.methods.adastop._integrity import key_id

    assert status == 0 and f"digests keyed by --key-file (key id {key_id(b'k' * 32)})" in text
    assert json.loads(state.read_text())["integrity"]["algorithm"] == "hmac-sha256"
    assert b"k" * 32 not in state.read_bytes()
    _fails_in_one_line(capsys, ["status", state], "were made with a key (HMAC-SHA256, key id")
    _fails_in_one_line(capsys, ["update", state, second], "were made with a key (HMAC-SHA256, key id")
    _fails_in_one_line(capsys, ["status", state, "--key-file", other], "were made with another key than the one "
                                                                      "given")
    _fails_in_one_line(capsys, ["plot", state, tmp_path / "x.png", "--key-file", other], "another key")
    assert run("adastop", "status", str(state), "--key-file", str(key))[0] == 0
    assert run("adastop", "update", str(state), str(second), "--key-file", str(key))[0] == 0
    assert AdaStop.load(state, key=b"k" * 32).interim == 2
    # a score edited and every digest recomputed as plain SHA-256 by someone without the key
    from rlstats.methods.adastop._integrity import record

    def resign(state):
        state["batches"][1]["a"][0] += 1.0
        settings = {name: state.get(name) for name in ("agents", "options", "seed", "migrated", "draws")}
        state["digests"], plain = record(settings, state["batches"], None)
        state["integrity"] = {**plain, "algorithm": "hmac-sha256", "key_id": key_id(b"k" * 32)}

    before = state.read_text()
    _edited_state(state, resign)
    _fails_in_one_line(capsys, ["status", state, "--key-file", key], f"batch 1 of the AdaStop state {state} does not "
                       "match its recorded digest: its digests are plain SHA-256, recomputed without the key")
    _edited_state(state, lambda s: s["integrity"].update(algorithm="sha256"))
    _fails_in_one_line(capsys, ["update", state, second, "--key-file", key], "a key was given, but the digests of the "
                                                                            f"AdaStop state {state} are plain SHA-256")
    state.write_text(before)
    # a key cannot be added to a plain state
    plain_state = tmp_path / "plain.json"
    assert run("adastop", "update", str(plain_state), str(first), "--seed", "0", "--n-resamples", "200")[0] == 0
    _fails_in_one_line(capsys, ["update", plain_state, second, "--key-file", key], "a key applies only when a state "
                                                                                  "is created")


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
@pytest.mark.parametrize("content, mode, phrase", [
    (b"k" * 32, 0o644, "may be read or written by every user (mode 0644): anyone could then recompute the digests; "
                       "restrict it (chmod 600"),
    (b"k" * 32, 0o602, "may be read or written by every user (mode 0602)"),
    (b"", 0o600, "is empty: an empty key would protect nothing"),
    (b"short", 0o600, "is 5 bytes, fewer than the 16 a key needs to resist guessing"),
    (b"k" * 5000, 0o600, "holds more than 4096 bytes: it is not a key file"),
    (None, None, "--key-file {tmp}/adastop.key: no such file"),
    ("folder", None, "is a folder; give the file that holds the key"),
])
def test_a_key_file_that_protects_nothing_is_refused_before_any_file_is_made(tmp_path, capsys, content, mode, phrase):
    batch = tmp_path / "b1.csv"
    _long_batch(batch, 0)
    key = tmp_path / "adastop.key"
    if content == "folder":
        key.mkdir()
    elif content is not None:
        _key_file(key, content, mode)
    before = sorted(p.name for p in tmp_path.iterdir())
    _fails_in_one_line(capsys, ["update", tmp_path / "state.json", batch, "--key-file", key],
                       phrase.format(tmp=tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert str(b"k" * 32) not in capsys.readouterr().err  # a key is never quoted


def test_the_state_is_never_written_over_the_key_file(tmp_path, capsys):
    batch = tmp_path / "b1.csv"
    _long_batch(batch, 0)
    key = _key_file(tmp_path / "adastop.key")
    _fails_in_one_line(capsys, ["update", key, batch, "--key-file", key], "is the input")
    assert key.read_bytes() == b"k" * 32


# ---------------------------------------------------------------- issue 42 item 6: no fcntl (Windows)

_WITHOUT_FCNTL = r'''
import os, sys, types
sys.modules["fcntl"] = None  # "import fcntl" raises ImportError, as on Windows
held = {}  # msvcrt.locking as Windows has it: one handle of a file holds byte 0; closing it releases the lock


def locking(fd, mode, nbytes):
    assert mode == fake.LK_NBLCK and nbytes == 1 and os.lseek(fd, 0, os.SEEK_CUR) == 0
    key = os.fstat(fd).st_ino
    holder = held.get(key)
    if holder is not None and holder != fd:
        try:
            still = os.fstat(holder).st_ino == key
        except OSError:
            still = False
        if still:
            raise PermissionError(13, "Permission denied")
    held[key] = fd


import subprocess  # reads msvcrt to decide it is on Windows: before the stand-in
import rlstats.cli
import rlstats.methods.adastop._incremental  # the module that once imported fcntl at its top
from rlstats.errors import DesignError
from rlstats.methods.adastop import state_lock
fake = types.ModuleType("msvcrt")
fake.LK_NBLCK, fake.locking = 2, locking
sys.modules["msvcrt"] = fake  # what _try_lock imports where fcntl does not exist

folder = sys.argv[1]
state, batch = os.path.join(folder, "s.json"), os.path.join(folder, "b.csv")
open(batch, "w").write("agent,score\n" + "".join(f"x,{i}\ny,{i + 10}\n" for i in range(5)))
assert rlstats.cli.main(["adastop", "update", state, batch, "--K", "2", "--seed", "0"]) == 0
with state_lock(state):
    try:
        with state_lock(state, timeout=0.05):
            raise SystemExit("a second holder took the lock")
    except DesignError as error:
        assert "is being updated by another process" in str(error), error
with state_lock(state, timeout=0.05):  # released when the first handle closed
    pass
assert rlstats.cli.main(["adastop", "status", state]) == 0
assert "fcntl" not in sys.modules or sys.modules["fcntl"] is None
print("locked without fcntl")
'''


def test_the_state_lock_works_where_fcntl_does_not_exist(tmp_path):
    """On Windows there is no fcntl: the package imports, AdaStop updates its state and the lock still excludes a
    second holder, through msvcrt.locking (a stand-in here that keeps Windows' rules)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    done, _ = run_child([sys.executable, "-c", _WITHOUT_FCNTL, str(tmp_path)], cpu_seconds=120, capture_output=True,
                        text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("locked without fcntl")
