"""Audit s24 (cli24): the ``rlstats`` command as a new user meets it, on the real sweeps, scores and logs of
/work/shared/data; each defect reproduced in-process (``rlstats.cli.main``), on real files where the defect needs
them (skipped, with the reason, where the shared data are absent)."""

import io
import os
from pathlib import Path

import pandas as pd
import pytest

import rlstats
import rlstats.cli as cli
from rlstats.errors import OptionError

SHARED = Path(os.environ.get("RLSTATS_SHARED_DATA", "/work/shared/data"))
ATARI = SHARED / "atari100k.csv"
needs_atari = pytest.mark.skipif(not ATARI.is_file(), reason=f"the shared Atari 100k scores are absent ({ATARI})")


def _run_cli(argv, capsys):
    out = io.StringIO()
    status = cli.main([str(a) for a in argv], out=out)
    return status, out.getvalue(), capsys.readouterr().err


def _atari_subset(tmp_path, agents=("DER", "DrQ", "SPR"), tasks=("Alien", "Boxing", "Pong")):
    frame = pd.read_csv(ATARI)
    frame = frame[frame["agent"].isin(agents) & frame["task"].isin(tasks) & (frame["seed"] < 10)]
    path = tmp_path / "atari.csv"
    frame.to_csv(path, index=False)
    return path, frame


# 1. R's spellings in a subset= condition (%in% c(...), &&, ||, !) were refused as "invalid syntax" alone.
@pytest.mark.parametrize("condition, said", [
    ("agent %in% c('SPR', 'DrQ')", "R's x %in% c('a', 'b') is written x in ['a', 'b'] here"),
    ("agent == 'SPR' || agent == 'DrQ'", "R's && and || are written & and | here"),
    ("!(agent == 'SPR')", "R's ! is written ~ (or not) here"),
    ("agent in c('SPR', 'DrQ')", "R's c('a', 'b') is written ['a', 'b'] here"),
])
def test_r_spellings_of_a_condition_are_named(condition, said):
    with pytest.raises(OptionError) as caught:
        rlstats.conditions.parse_condition(condition)
    assert said in str(caught.value)
    assert said in caught.value.command_line


# 2. 'score ~ agent' on several tasks told the command line's user to call rlstats.build(..., pool_tasks=True).
@needs_atari
def test_pooled_tasks_refusal_on_the_command_line_names_its_ways(tmp_path, capsys):
    path, _ = _atari_subset(tmp_path)
    status, text, err = _run_cli(["compare", path, "score ~ agent", "--seed", "0"], capsys)
    assert status == 2 and text == ""
    assert "rlstats.build" not in err and "pool_tasks" not in err
    assert "use 'score ~ agent | task'" in err
    # audit s28 (ways28): each command names its own way; power's is its --formula with blocks and --tasks
    assert "keep the rows of one task (-o \"subset=task in ['Alien']\" with rlstats compare)" in err
    assert "remove the column 'task' from the file" in err
    # power takes no subset= (-o subset= is refused there) and its --tasks keeps tasks of a formula's blocks only
    status, text, err = _run_cli(["power", "skillings_mack", "--pilot", path, "--formula", "score ~ agent",
                                  "--n-sim", "5", "--seeds", "3", "--seed", "0"], capsys)
    assert status == 2 and text == ""
    assert "rlstats.build" not in err and "subset" not in err
    assert "(--formula \"score ~ agent | task\" --tasks Alien with rlstats power)" in err


# 3. power's refusal of simulation flags with a pilot: "--distribution describe ...: drop it" for one flag.
def test_power_refuses_simulation_flags_with_a_pilot_in_good_grammar(tmp_path, capsys):
    path = tmp_path / "pilot.csv"
    pd.DataFrame({"agent": ["a", "b"] * 3, "score": [1.0, 2.0, 1.5, 2.5, 1.2, 2.2]}).to_csv(path, index=False)
    status, _, err = _run_cli(["power", "permutation", "--pilot", path, "--formula", "score ~ agent",
                               "--distribution", "normal"], capsys)
    assert status == 2
    assert "--distribution describes simulated data; with --pilot the runs are resampled as they are: drop it" in err
    status, _, err = _run_cli(["power", "permutation", "--pilot", path, "--formula", "score ~ agent",
                               "--distribution", "normal", "--heterogeneity", "0"], capsys)
    assert status == 2
    assert ("--distribution and --heterogeneity describe simulated data; with --pilot the runs are resampled as "
            "they are: drop them") in err


# 4. tuning's printed views: "... 1 more rows in the view's table".
def test_tuning_counts_the_rows_left_in_good_grammar():
    rows = [dict(agent=f"a{i}", task="t", lr=lr, seed=s, score=i + lr + 0.1 * s + 0.01 * (s * lr % 3))
            for i in range(9) for lr in (1, 2) for s in range(3)]
    result = rlstats.tuning(pd.DataFrame(rows), "score ~ agent | task/seed", config="lr", n_resamples=100, rng=0,
                            views=["best_set"], progress=False)
    text = str(result)
    assert "... 1 more row in the view's table" in text
    assert "1 more rows" not in text


# 5. --help stated no default for power's --jobs and --backend, read-logs' --jobs and --pattern, and adastop
# update's --seed (drawn, and recorded in the state).
#: options whose absence is no value of theirs: an output, a figure, a repeatable item, a key file, a search asked for
_NO_DEFAULT = {"--plot", "--option", "--summarize", "--summarize-option", "--key-file", "--formula",
               "--target-power", "--output"}


def _value_options(parser, name="rlstats"):
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, sub in action.choices.items():
                yield from _value_options(sub, f"{name} {command}")
        elif action.option_strings and action.nargs != 0 and action.help != argparse.SUPPRESS:
            yield name, action


def test_help_states_the_default_of_every_option_that_takes_a_value():
    unsaid = [f"{name} {action.option_strings[-1]}" for name, action in _value_options(cli.build_parser())
              if action.option_strings[-1] not in _NO_DEFAULT and "default" not in action.help]
    assert unsaid == []


# 6. power's refusal of too many numbers of seeds named Python's keyword, "seeds lists 101 ...", not --seeds.
def test_power_refuses_a_long_seeds_list_naming_the_flag(capsys):
    status, text, err = _run_cli(["power", "skillings_mack", "--effect", "0.5", "--n-sim", "10",
                                  "--seeds", ",".join(map(str, range(1, 102)))], capsys)
    assert status == 2 and text == ""
    assert err.startswith("rlstats: error: --seeds lists 101 numbers of seeds, more than 100")


# Checked and fine: the command's results are the Python API's for the same inputs, on the real data.
def _without_versions(value):
    if isinstance(value, dict):
        return {k: _without_versions(v) for k, v in value.items() if k != "versions"}
    if isinstance(value, list):
        return [_without_versions(v) for v in value]
    return value


def _tuning_equals_the_python_api(frame, tmp_path, capsys):
    import json

    path = tmp_path / "sweeps.csv"
    frame.to_csv(path, index=False)
    formula, condition = "score ~ procedure | task/tuning_run/seed", "objective == 'return' & rpo != 'dehb'"
    status, text, err = _run_cli(["compare", path, formula, "--method", "tuning", "--seed", "5", "--format", "json",
                                  "-o", "n_resamples=100", "-o", f"subset={condition}", "--no-progress"], capsys)
    assert status == 0, err
    by_command = json.loads(text)
    by_python = json.loads(rlstats.compare(pd.read_csv(path), formula, method="tuning", subset=condition,
                                           n_resamples=100, rng=5, progress=False).to_json())
    assert _without_versions(by_command) == _without_versions(by_python)
    assert by_command["seed"] == 5
    kept = int(((frame["objective"] == "return") & (frame["rpo"] != "dehb")).sum())
    assert f"kept {kept} of {len(frame)} rows" in " ".join(by_command["notes"])


@pytest.mark.slow
def test_tuning_on_a_real_tuning_experiment_equals_the_python_api(tmp_path, capsys):
    try:
        frame = rlstats.datasets.load("hpo_optimisation")
    except Exception as exc:  # no mirror and no network: the published file cannot be had
        pytest.skip(f"the hpo_optimisation data are not available here ({type(exc).__name__})")
    frame = frame.drop_duplicates()
    _tuning_equals_the_python_api(frame[(frame["algorithm"] == "sac") & (frame["task"] == "lunar")], tmp_path, capsys)


def test_tuning_on_a_small_tuning_experiment_equals_the_python_api(tmp_path, capsys):
    """The reduced version of the test above: its layout, 3 procedures x 3 tuning runs x 3 seeds."""
    rows = [dict(procedure=f"hpo={hpo}, rpo={rpo}, {objective}", hpo=hpo, rpo=rpo, objective=objective, task="lunar",
                 tuning_run=run, seed=seed, score=200.0 + 10 * run + seed + 5 * (hpo == "rs"))
            for hpo, rpo, objective in (("rs", "base", "return"), ("base", "rs", "return"), ("rs", "dehb", "return"))
            for run in range(3) for seed in range(3)]
    _tuning_equals_the_python_api(pd.DataFrame(rows), tmp_path, capsys)


LOGS = SHARED / "logs" / "sb3_classic"


@pytest.mark.skipif(not LOGS.is_dir(), reason=f"the shared SB3 training logs are absent ({LOGS})")
def test_read_logs_of_real_sb3_evaluations_equals_the_python_api(tmp_path, capsys):
    out = tmp_path / "eval.csv"
    status, text, err = _run_cli(["read-logs", LOGS, "--format", "sb3_eval", "--pattern", "{agent}/{task}/seed_{seed}",
                               "--tags", "eval/mean_reward=score", "-o", out, "--no-progress"], capsys)
    assert status == 0 and text.startswith(f"72 rows of 15 runs written to {out}"), err
    frame = rlstats.read_logs(LOGS, "{agent}/{task}/seed_{seed}", format="sb3_eval", tags={"eval/mean_reward": "score"},
                              progress=False)
    written = pd.read_csv(out)
    assert list(written.columns) == list(frame.columns) and len(written) == len(frame) == 72
    assert written["score"].tolist() == frame["score"].tolist()
    assert written.groupby(["agent", "task"]).seed.nunique().to_dict() == {
        ("A2C", "Acrobot-v1"): 3, ("A2C", "CartPole-v1"): 3, ("DQN", "CartPole-v1"): 3, ("PPO", "Acrobot-v1"): 3,
        ("PPO", "CartPole-v1"): 3}


# 7. tuning's -o config=c(lr, gamma) (R's vector of names) was "column(s) ['c(lr,gamma)'] not found" alone, where
# -o config=lr,gamma got the list's spelling.
@pytest.mark.parametrize("given", ["c(lr,gamma)", "c('lr', 'gamma')", 'c("lr","gamma")'])
def test_tuning_config_in_r_spelling_is_answered_with_the_list(tmp_path, capsys, given):
    rows = [dict(agent="ppo", task="t", lr=lr, gamma=g, seed=s, score=lr + g + s)
            for lr in (1, 2) for g in (0.9, 0.99) for s in range(3)]
    path = tmp_path / "sweep.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    status, text, err = _run_cli(["compare", path, "score ~ agent | task/seed", "--method", "tuning",
                                  "-o", f"config={given}", "--seed", "0"], capsys)
    assert status == 2 and text == ""
    assert "R's c(...) is written as a list" in err
    assert "-o \"config=['lr','gamma']\"" in err
