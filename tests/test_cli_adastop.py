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
def walker(shared_data, tmp_path):
    """The Walker batches as the reference tool's CSV files: an index column and one column per agent."""
    runs = read_csv(shared_data / "mujoco_batches.csv")
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


def test_default_workflow_is_joint_and_matches_the_python_api(simulated_campaign, tmp_path):
    frame, paths = simulated_campaign
    state = tmp_path / "state.json"
    status, text = run("adastop", "update", str(state), str(paths[0]), "--seed", "4")
    assert status == 0 and "permutations = joint" in text
    text = feed_rest(state, paths)
    assert "the test is finished" in text and "every agent still running" in text
    assert json.loads(state.read_text())["options"]["permutations"] == "joint"
    one_shot = adastop(frame, "score ~ agent", n=5, K=6, batch="batch", rng=4)
    assert one_shot.options["permutations"] == "joint"
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
    run("adastop", "update", str(state), str(paths[0]), "--seed", "0")
    run("adastop", "update", str(state), str(paths[1]))
    before = state.read_text()
    # walker2.csv again
    status, _ = run("adastop", "update", str(state), str(paths[1]))
    err = capsys.readouterr().err
    assert status == 2 and "repeats batch 2" in err and "Traceback" not in err
    # walker3.csv: the reference package stopped PPO and SAC after two batches; the default test needs them
    status, _ = run("adastop", "update", str(state), str(paths[2]))
    err = capsys.readouterr().err
    assert status == 2 and "lacks agent(s) PPO, SAC" in err and "Traceback" not in err
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
