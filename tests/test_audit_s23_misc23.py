"""Audit s23 (misc23): small loudness and wording defects in read_logs, summarize_runs, curves, AdaStop and the
``rlstats`` command, each reproduced on real files or states."""

import io
import json
import unicodedata

import pandas as pd
import pytest

import rlstats
import rlstats.cli as cli
from rlstats.design import NOTES_ATTR
from rlstats.errors import DesignError, OptionError
from rlstats.methods.adastop import AdaStop


def _run_cli(argv, capsys):
    out = io.StringIO()
    status = cli.main(list(argv), out=out)
    return status, out.getvalue(), capsys.readouterr().err


def _monitor(folder, lengths, env_id="Hopper-v4"):
    """A Stable-Baselines3 monitor.csv (its header, then r,l,t) whose episode i returns i."""
    folder.mkdir(parents=True)
    lines = ["#" + json.dumps({"t_start": 1.0, "env_id": env_id}), "r,l,t"]
    lines += [f"{i:.1f},{length},{i + 1.0}" for i, length in enumerate(lengths)]
    (folder / "0.monitor.csv").write_text("\n".join(lines) + "\n")


# 1. Names differing only in Unicode normalisation (a folder copied from a Mac is NFD).
def test_names_differing_only_in_unicode_normalisation_are_merged_with_a_note(tmp_path):
    nfc, nfd = unicodedata.normalize("NFC", "Käfer"), unicodedata.normalize("NFD", "Käfer")
    assert nfc != nfd and len(nfc) == 5 and len(nfd) == 6
    _monitor(tmp_path / nfc / "hopper" / "seed_0", [100] * 5)
    _monitor(tmp_path / nfd / "hopper" / "seed_1", [100] * 5)
    _monitor(tmp_path / "dqn" / "hopper" / "seed_0", [100] * 5)
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    assert sorted(frame["agent"].unique()) == [nfc, "dqn"]
    assert frame.groupby("agent")["seed"].nunique().to_dict() == {"dqn": 1, nfc: 2}
    notes = " ".join(frame.attrs[NOTES_ATTR])
    assert ("agent 'Käfer' is written in two Unicode forms in the paths, composed (1 file) and decomposed "
            "(1 file, as files copied from a Mac are), read as one agent in the composed form") in notes


# 2. The command line's --summarize notes name --summarize-option steps=, not Python's steps=.
def test_summarize_notes_on_the_command_line_name_the_summarize_option(tmp_path, capsys):
    rows = [dict(agent=a, task="t", seed=s, step=st * 100, score=st + s + (a == "b"))
            for a in "ab" for s in range(4) for st in range(6 if (a, s) == ("a", 0) else 11)]
    path = tmp_path / "curves.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    status, text, _ = _run_cli(["compare", str(path), "score ~ agent | task/seed", "--summarize", "final",
                                "--seed", "0"], capsys)
    assert status == 0
    assert "run '0' of agent 'a' on task 't' at 500, its task's runs reaching 1k" in text
    assert ("to summarise every run at one step, pass --summarize-option steps= ending at a step every run "
            "reaches") in text
    assert "pass steps=" not in text


# 3. A restart that drops values at one step says "at step 300", not "at steps 300 to 300".
def test_a_restart_dropping_one_step_says_at_step(tmp_path):
    tensorboardX = pytest.importorskip("tensorboardX")
    run = tmp_path / "ppo" / "hopper" / "seed_0"
    for points, start, suffix in (([(0, 0.0), (100, 1.0), (200, 2.0), (300, 3.0)], 1_700_000_000.0, ""),
                                  ([(300, 30.0), (400, 40.0)], 1_700_001_000.0, ".restart")):
        writer = tensorboardX.SummaryWriter(str(run), filename_suffix=suffix)
        for step, value in points:
            writer.add_scalar("eval/return", value, global_step=step, walltime=start + step / 1000)
        writer.close()
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    assert frame["eval/return"].tolist() == [0.0, 1.0, 2.0, 30.0, 40.0]
    notes = " ".join(frame.attrs[NOTES_ATTR])
    assert "restarts: 1 value before it at step 300 dropped)" in notes
    assert "300 to 300" not in notes


# 4. curves on monitor logs: a grid step is filled from the run's previous episode, not "evaluation".
def test_curves_on_monitor_logs_fill_from_the_previous_episode(tmp_path):
    for agent in ("dqn", "ppo"):
        for seed in (0, 1, 2):
            _monitor(tmp_path / agent / "hopper" / f"seed_{seed}", [100 + 10 * seed] * 20)
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    result = rlstats.curves(frame, "r ~ agent | task/seed", step="step", steps=[550, 1000, 1950],
                            n_resamples=200, rng=0)
    # episodes end at multiples of 100, 110, 120 (seeds 0-2): 1,000 ends one of seed 0 and 550 one of seed 1, so
    # 2 + 2 + 3 grid steps of each agent's three runs are filled: 14 values of 6 runs
    filled = [n for n in result.notes if "filled from" in n]
    assert filled and filled[0].startswith("14 values of 6 runs filled from the run's previous episode (a grid step "
                                           "it did not log)")
    summary = rlstats.summarize_runs(frame, "r ~ agent | task/seed", step="step", how="auc", steps=[550, 1950])
    assert any("previous episode" in n for n in summary.attrs[NOTES_ATTR])
    assert not any("evaluation" in n for n in list(summary.attrs[NOTES_ATTR]) + list(result.notes))


# 5. AdaStop's messages.
def test_an_unknown_agent_in_a_batch_gets_a_did_you_mean():
    seq = AdaStop(["PPO", "DQN"], n=2, K=4, n_resamples=200, rng=0)
    with pytest.raises(DesignError, match=r"unknown agent ppo in the batch \(did you mean 'PPO'\?\); this test "
                                          r"compares PPO, DQN"):
        seq.update({"ppo": [1.0, 2.0], "DQN": [3.0, 4.0]})
    frame = pd.DataFrame({"agent": ["ppo", "ppo", "DQN", "DQN"], "score": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(DesignError, match=r"did you mean 'PPO'\?"):
        seq.update(frame)


def test_integrity_errors_name_the_state_file(tmp_path):
    seq = AdaStop(["a", "b"], n=2, K=4, n_resamples=200, rng=0)
    seq.update({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    path = seq.save(tmp_path / "state.json")
    state = json.loads(path.read_text())
    state["batches"][0]["a"] = [1.0, 2.5]
    path.write_text(json.dumps(state))
    with pytest.raises(DesignError, match=f"batch 1 of the AdaStop state {path} does not match its recorded digest"):
        AdaStop.load(path)
    state["options"]["K"] = 5
    del state["digests"]
    path.write_text(json.dumps(state))
    with pytest.raises(DesignError, match=f"the AdaStop state {path} has no \"digests\""):
        AdaStop.load(path)


def test_the_commands_memory_error_names_the_flags(tmp_path, capsys):
    batch = tmp_path / "b.csv"
    pd.DataFrame({"agent": list("aabb"), "score": [1.0, 2.0, 3.0, 4.0]}).to_csv(batch, index=False)
    status, _, err = _run_cli(["adastop", "update", str(tmp_path / "s.json"), str(batch), "--K", "1000",
                               "--n-resamples", "1000000"], capsys)
    assert status == 2
    assert ("this AdaStop would need about 15.0 GiB (K = 1,000 interims x n_resamples = 1,000,000 paths x 1 "
            "comparison, n = 2 runs per agent per batch)") in err
    assert "pass a smaller --n-resamples (the default is 10,000), a smaller --K or fewer comparisons" in err
    with pytest.raises(OptionError, match=r"pass a smaller n_resamples \(the default is 10,000\), a smaller K or "):
        AdaStop(["a", "b"], n=2, K=1000, n_resamples=1_000_000)


def test_the_commands_several_tasks_error_names_the_command(tmp_path, capsys):
    batch = tmp_path / "b.csv"
    pd.DataFrame({"agent": list("aabb"), "score": [1.0, 2.0, 3.0, 4.0], "task": list("xyxy")}).to_csv(batch,
                                                                                                   index=False)
    status, _, err = _run_cli(["adastop", "update", str(tmp_path / "s.json"), str(batch)], capsys)
    assert status == 2
    assert "the batch's column 'task' holds 2 values (x, y)" in err
    assert "rlstats.adastop(df" not in err
    assert ("give each task its own state file and batch files (rlstats adastop update STATE BATCH, one state per "
            "task)") in err
    with pytest.raises(DesignError, match=r"rlstats.adastop\(df, 'score ~ agent \| task', batch=...\)"):
        AdaStop(["a", "b"], n=2, K=4).update(pd.read_csv(batch))


# 6. One wording for the runs given to AdaStop.
def test_runs_used_table_and_docstring_say_runs_given():
    from rlstats.methods.adastop._result import AdaStopResult

    assert "runs used by the test and runs given" in AdaStopResult.__doc__
    assert "runs available" not in AdaStopResult.__doc__
