"""Audit s32 (msg32): messages and notes new users met on real data (SB3 logs, the ADA-research sweeps, marl-eval)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.cli import main
from rlstats.errors import DesignError, OptionError

SB3 = Path(__file__).resolve().parents[2] / "shared" / "data" / "logs" / "sb3_classic"


def _cli(argv, capsys):
    out = io.StringIO()
    status = main(argv, out=out)
    return status, out.getvalue(), capsys.readouterr().err


# ----------------------------------------------------------------------------- 1. a binary training log as a table

def _npz(tmp_path):
    source = SB3 / "PPO" / "CartPole-v1" / "seed_0" / "evaluations.npz"
    if source.is_file():
        return shutil.copy(source, tmp_path / "evaluations.npz")
    path = tmp_path / "evaluations.npz"
    np.savez(path, timesteps=np.array([5000, 10000]), results=np.ones((2, 5)), ep_lengths=np.ones((2, 5)))
    return path


def test_an_evaluations_npz_given_as_a_table_points_to_read_logs(tmp_path, capsys):
    """The .npz (a zip archive, 'PK') was called text that is not UTF-8, with iconv advice."""
    status, _, err = _cli(["compare", str(_npz(tmp_path)), "score ~ agent | task"], capsys)
    assert status == 2
    assert "iconv" not in err and "UTF-8" not in err
    assert "read-logs" in err and "--format sb3_eval" in err


def test_a_tfevents_file_and_a_parquet_file_without_its_suffix(tmp_path, capsys):
    events = tmp_path / "events.out.tfevents.1700000000.host.1.0"
    events.write_bytes(b"\x18\x00\x00\x00\x00\x00\x00\x00\xa3\x7fK\"\t\x00\x00\x00\x00\x00\x00\xf0?\x1a\rbrain.Event:2")
    status, _, err = _cli(["compare", str(events), "score ~ agent | task"], capsys)
    assert status == 2 and "read-logs" in err and "--format tensorboard" in err and "iconv" not in err
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"agent": ["A", "B"] * 6, "task": ["t"] * 12, "score": np.arange(12.0)})
    table = tmp_path / "runs.dat"
    frame.to_parquet(table)
    status, out, err = _cli(["compare", str(table), "score ~ agent | task", "--method", "bootstrap",
                             "-o", "n_resamples=200", "--seed", "0"], capsys)
    assert status == 0, err


def test_latin1_text_keeps_the_iconv_advice(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    path.write_bytes("agent,task,score\ncaf\xe9,t,1\n".encode("latin1"))
    status, _, err = _cli(["compare", str(path), "score ~ agent | task"], capsys)
    assert status == 2 and "iconv" in err


# ----------------------------------------------------------------------------- 2. a sweep without config=

def _sweep(extra=True):
    rng = np.random.default_rng(0)
    rows = [("PPO", "LunarLander", c, 10 ** (-3 - c / 50), s, rng.normal()) for c in range(50) for s in range(10)]
    frame = pd.DataFrame(rows, columns=["agent", "task", "cfg", "learning_rate", "seed", "score"])
    return frame if extra else frame.drop(columns=["cfg", "learning_rate"])


def test_seeds_repeating_in_a_sweep_without_config_name_the_columns(capsys):
    with pytest.raises(DesignError) as info:
        rlstats.tuning(_sweep(), "score ~ agent | task/seed")
    text = str(info.value)
    assert "config='cfg'" in text and "'learning_rate'" in text and "'score'" not in text
    with pytest.raises(DesignError) as info:  # no column tells them apart: the advice is not given
        rlstats.tuning(_sweep(extra=False), "score ~ agent | task/seed")
    assert "config=" not in str(info.value)
    two = pd.DataFrame([("PPO", "L", lr, gamma, s, 1.0) for lr in (1, 2) for gamma in (0.9, 0.99) for s in range(3)],
                       columns=["agent", "task", "lr", "gamma", "seed", "score"])
    with pytest.raises(DesignError) as info:  # two hyperparameters, neither alone enough
        rlstats.tuning(two, "score ~ agent | task/seed", config="lr")
    assert "config= looks too coarse: pass config=['lr', 'gamma']" in str(info.value)


# ----------------------------------------------------------------------------- 4. sensitivity over a replicate level

def test_sensitivity_left_out_for_a_replicate_level_says_why():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame([(a, t, r, s, rng.normal()) for a in "AB" for t in ("t1", "t2", "t3") for r in range(3)
                          for s in range(4)], columns=["agent", "task", "tuning_run", "seed", "score"])
    res = rlstats.tuning(frame, "score ~ agent | task/seed", config="tuning_run", n_resamples=200, rng=0)
    with pytest.raises(OptionError) as info:
        res.sensitivity()
    text = str(info.value)
    assert "views=['sensitivity'" not in text
    assert "'tuning_run' is a replicate level" in text


# ----------------------------------------------------------------------------- 5. a bounds= note on the command line

def _capped_runs(path):
    rng = np.random.default_rng(1)
    rows = []
    for agent, task, n in (("A", "crash", 3), ("B", "crash", 3), ("A", "fine", 4), ("B", "fine", 5)):
        for s in range(n):
            value = -500.0 if task == "crash" and (agent == "A" or s < 1) else rng.normal(100, 30)
            rows += [(agent, task, s, 1, value / 2), (agent, task, s, 2, value)]
    pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"]).to_csv(path, index=False)
    return path


def test_the_bounds_note_in_command_words_names_the_task(tmp_path, capsys):
    # the final rows, with two learning rates (the seeds' parity) on the task 'fine': each agent one configuration is
    # refused (new-user trial s38), and --summarize keeps the formula's columns only, not config='s
    final = pd.read_csv(_capped_runs(tmp_path / "curves.csv")).query("step == 2").drop(columns="step")
    final.assign(lr=(final["seed"] % 2).where(final["task"] == "fine", 0)).to_csv(tmp_path / "runs.csv", index=False)
    status, out, err = _cli(["compare", str(tmp_path / "runs.csv"), "score ~ agent | task/seed",
                             "--method", "tuning", "--seed", "0", "-o", "n_resamples=200", "-o", "config=lr"], capsys)
    assert status == 0, err
    note = next(line for line in (out + err).splitlines() if "lie below -500" in line)
    assert '-o "bounds=(-500, None)"' in note and "pass bounds=" not in note
    assert "smallest score of task 'crash' (4 of its 6 runs reach it)" in note


# ----------------------------------------------------------------------------- 3. install hints

def test_install_hints_never_name_only_the_unclaimed_index_name(monkeypatch):
    """The hints said pip install 'rlstats[logs]' while the name is not yet claimed on PyPI; now one home gives the
    command as this rlstats was installed, and the packages alone (which always work)."""
    from rlstats import errors

    monkeypatch.setattr(errors, "_source_checkout", lambda: "/src/rl stats")
    monkeypatch.setattr(errors, "_editable_install", lambda: False)  # installed as a copy (fin32a: -e if editable)
    assert errors.install_hint("logs", ["tensorboard"]) == \
        'pip install "/src/rl stats[logs]" (or the package alone: pip install tensorboard)'
    monkeypatch.setattr(errors, "_source_checkout", lambda: None)
    monkeypatch.setattr(errors, "_from_an_index", lambda: False)
    assert errors.install_hint("distributed", ["dask[distributed]"]) == \
        "pip install \"dask[distributed]\" (from a source checkout of rlstats: pip install \".[distributed]\")"
    monkeypatch.setattr(errors, "_from_an_index", lambda: True)
    assert errors.install_hint("parquet", ["pyarrow"]).startswith("pip install \"rlstats[parquet]\" (or the package")


def test_the_source_checkout_is_read_from_pips_record():
    """Here rlstats is an editable install of a checkout (pip's direct_url.json), or runs from one."""
    from rlstats import errors

    where = errors._source_checkout()
    assert where is not None and (Path(where) / "setup.cfg").is_file()


# ----------------------------------------------------------------------------- 6. wording and counts

def test_one_log_file_not_matching_is_said_in_the_singular(tmp_path):
    from rlstats.errors import LogReadError

    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "metrics.json").write_text('{"env": {"t": {"a": {"seed_0": {"STEP_0": {"step_count": 1, '
                                         '"return": [1.0]}}}}}}')
    with pytest.raises(LogReadError) as info:
        rlstats.read_logs(folder, "{agent}/{task}/{seed}", format="marl_eval", progress=False)
    assert "the marl-eval JSON file under" in str(info.value) and "does not match" in str(info.value)


def test_a_grid_of_thousands_of_steps_has_a_thousands_separator():
    from rlstats.runs import _span

    assert _span(np.arange(1998.0) * 10) == "1,998 steps from 0 to 19.97k"


def test_the_drawn_seed_when_every_interval_was_withheld(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    pd.DataFrame({"agent": ["A", "B"] * 3, "task": "t", "seed": [0, 0, 1, 1, 2, 2],
                  "score": [1.0, 2, 3, 1, 3, 1]}).to_csv(path, index=False)
    status, out, err = _cli(["compare", str(path), "score ~ agent | task/seed", "--method", "bootstrap",
                           "-o", "n_resamples=200"], capsys)
    assert status == 0 and "intervals withheld" in out
    assert "every interval was withheld, so no number shown depends on it" in err and "to repeat" not in err


def test_the_run_that_stops_furthest_short_is_listed_first():
    rows = []
    for agent, last in (("A2C", 30000), ("DQN", 25000), ("PPO", 30000)):
        for s in range(3):
            end = 10000 if (agent == "PPO" and s == 2) else last
            rows += [(agent, "CartPole", s, step, step / 100 + s) for step in range(5000, end + 1, 5000)]
    frame = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    runs = rlstats.summarize_runs(frame, "score ~ agent | task/seed", step="step", how="final")
    (note,) = [n for n in runs.attrs["rlstats_notes"] if "earlier in training" in n]
    assert "(run '2' of agent 'PPO' on task 'CartPole' at 10k, its task's runs reaching 30k; run '0' of agent 'DQN'" \
        in note


def test_a_task_table_column_reads_in_one_notation():
    frame = rlstats.datasets.simulate(agents=2, tasks=2, seeds=5, rng=0)
    frame["score"] = frame["score"] * 1000 - 5
    frame.loc[frame["task"] == "task_01", "score"] = -500000.0
    table = rlstats.task_table(frame, "score ~ agent | task/seed", normalize=False)
    text = str(table)
    assert "-500000 ± 0" in text and "e+05" not in text


# ----------------------------------------------------------------------------- 7, 8. a permutation test that cannot reject

def test_permutation_at_three_runs_warns_once_and_says_the_level_it_cannot_reach():
    import warnings

    frame = rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, rng=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = rlstats.permutation(frame, "score ~ agent | task/seed", rng=0, progress=False)
    said = [str(w.message) for w in caught if "no level can be spent" in str(w.message)]
    assert len(said) == 1 and "with n = 3 runs per agent (on each of the 5 tasks) no level" in said[0]
    text = str(result)
    assert "0 each at c = 3" not in text
    assert "alpha / 3 = 0.0167 at c = 3, of which no level can be spent at these runs (0 each)" in text
    assert "smallest attainable p-value is 0.3" in text


# ----------------------------------------------------------------------------- 9. power()'s pilot note

def test_the_pilot_note_says_the_agents_are_alike_and_the_shift_is_powers():
    import warnings

    pilot = rlstats.datasets.simulate(agents=2, tasks=5, seeds=3, effect=0.0, rng=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.power("skillings_mack", design=pilot, formula="score ~ agent | task", effect=1.0, seeds=[3],
                            n_sim=4, rng=0, progress=False)
    (note,) = [n for n in res.notes if n.startswith("pilot: as few as")]
    assert "alike agents" not in note
    assert ("drawn from one model (2 agents x 5 tasks of normal scores, the agents alike) and resampled by power() "
            "with one agent shifted by 1 pooled within-cell SD (the planned difference;") in note


# ----------------------------------------------------------------------------- 10. the mean ranks' scale

def test_the_printed_mean_ranks_say_their_scale():
    """Runs ranked within their task are put on 1..k: (r - 1/2) k / q + 1/2 of a run ranked r among q (checked here
    against pandas' ranks); the heading said only "mean ranks (1 = best)"."""
    frame = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, rng=0)
    res = rlstats.skillings_mack(frame, "score ~ agent | task/seed", progress=False)
    rank = frame.groupby("task")["score"].rank(ascending=False)
    size = frame.groupby("task")["score"].transform("size")
    expected = ((rank - 0.5) * 3 / size + 0.5).groupby(frame["agent"]).mean().to_numpy()
    np.testing.assert_allclose(res.mean_ranks, expected, rtol=1e-12)
    assert ("mean ranks on 1..3, a run ranked r among the q runs of its task counting (r - 1/2) k / q + 1/2 "
            "(1 = best):") in str(res)
    assert list(res.summary().tables)[0] == "Mean ranks (1 = best)"  # the key users index by stays


def test_the_read_log_of_one_file_in_a_folder_is_singular(tmp_path):
    folder = tmp_path / "logs" / "run"
    folder.mkdir(parents=True)
    (folder / "metrics.json").write_text('{"env": {"t": {"a": {"seed_0": {"STEP_0": {"step_count": 1, '
                                         '"return": [1.0]}}}}}}')
    frame = rlstats.read_logs(tmp_path / "logs", format="marl_eval", progress=False)
    assert str(frame.attrs["read_log"]).startswith("read_logs: 1 marl-eval JSON file under ")
