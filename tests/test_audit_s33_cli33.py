"""Audit s33 cli33: the command line's words for a Python user's and an R user's habits (new-user trial s33b cli1.sh).

1. ``rlstats power ... --design pilot.csv`` (Python's ``design=``) and ``rlstats compare ... --rng 0`` (``rng=``) were
   refused with argparse's bare "unrecognized arguments", though the README says such an error names the nearest
   option: a flag spelled as the Python keyword it sets, as an ``-o`` option, or as R spells it (``--conf.level``,
   ``--p.adjust``), is now named as the command takes it.
2. ``rlstats power --pilot ...`` printed a note advising ``design=pilot[mask] (a boolean mask ...)``, Python code, on
   the command line: now the pilot file filtered first.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import cli_run

F = "score ~ agent | task"


@pytest.mark.parametrize("argv, said", [
    # Python's keyword, which a flag of another name sets
    (["power", "skillings_mack", "--design", "pilot.csv"],
     "--design pilot.csv (did you mean --pilot pilot.csv? it sets Python's design=)"),
    (["compare", "runs.csv", F, "--rng", "0"], "--rng 0 (did you mean --seed 0? it sets Python's rng=)"),
    (["power", "skillings_mack", "--n-jobs", "2"], "--n-jobs 2 (did you mean --jobs 2? it sets Python's n_jobs=)"),
    (["power", "skillings_mack", "--rng=3"], "--rng=3 (did you mean --seed 3? it sets Python's rng=)"),
    (["read-logs", "logs", "-o", "x.csv", "--n_jobs", "4"], "--n_jobs 4 (did you mean --jobs 4? it sets Python's "
                                                             "n_jobs=)"),
    (["adastop", "update", "s.json", "b.csv", "--rng", "1"], "--rng 1 (did you mean --seed 1? it sets Python's rng=)"),
    (["demo", "--rng", "1"], "--rng 1 (did you mean --seed 1? it sets Python's rng=)"),
    (["compare", "runs.csv", F, "--summarize", "last_k_mean", "--k", "10"],
     "--k 10 (did you mean --summarize-option k=10? it sets Python's k=)"),
    (["power", "skillings_mack", "--design"], "--design (did you mean --pilot? it sets Python's design=)"),
    # an option -o sets
    (["compare", "runs.csv", F, "--n-resamples", "2000"], "--n-resamples 2000 (did you mean -o n_resamples=2000?)"),
    (["power", "bootstrap", "--n_resamples", "500"], "--n_resamples 500 (did you mean -o n_resamples=500?)"),
    # R's spellings (options.HABITS), said as the command takes the option: the method's (the formula's default, the
    # rank test, or --method), as the Python call says them
    (["compare", "runs.csv", F, "--conf.level", "0.9"],
     "--conf.level 0.9; --method skillings_mack has no option conf.level=: its name here is -o alpha= (conf.level= is "
     "R's spelling; alpha = 1 - conf.level); pass -o alpha=0.1"),
    (["compare", "runs.csv", F, "--method", "bootstrap", "--conf.level", "0.9"],
     "--conf.level 0.9; --method bootstrap has no option conf.level=: its name here is -o confidence_level= "
     "(conf.level= is R's spelling); pass -o confidence_level=0.9"),
    (["compare", "runs.csv", F, "--p.adjust", "holm"],
     "--p.adjust holm; --method skillings_mack has no option p.adjust=: its name here is -o adjustment= (p.adjust= is "
     "R's spelling); pass -o adjustment=holm"),
    (["compare", "runs.csv", F, "--method", "mixed", "--p.adjust", "holm"],
     "--p.adjust holm; --method mixed has no option p.adjust=: its name here is -o adjust= (p.adjust= is R's "
     "spelling); pass -o adjust=holm"),
    (["compare", "runs.csv", F, "--na.action", "na.omit"],
     "--na.action na.omit; --method skillings_mack has no option na.action=: its name here is -o na_action= "
     "(na.action= is R's spelling); pass -o na_action=drop"),
    (["power", "bootstrap", "--conf.level", "0.9"],
     "--conf.level 0.9; bootstrap in rlstats power has no option conf.level=: its name here is -o confidence_level= "
     "(conf.level= is R's spelling); pass -o confidence_level=0.9"),
    (["power", "skillings_mack", "--conf.level", "0.9"],
     "--conf.level 0.9; rlstats power has no option conf.level=: its name here is --alpha (conf.level= is R's "
     "spelling; alpha = 1 - conf.level); pass --alpha 0.1"),
    (["power", "permutation", "--R", "100"],  # what the method's n_resamples= counts, as power() says it
     "--R 100; permutation in rlstats power has no option R=: its name here is -o n_resamples= (R= is the spelling of "
     "R's boot(), a count of bootstrap resamples; here -o n_resamples= is: permutations); pass -o n_resamples=100"),
    (["power", "skillings_mack", "--sig.level", "0.01"],
     "--sig.level 0.01; rlstats power has no option sig.level=: its name here is --alpha (sig.level= is the spelling "
     "of R's pwr and power.t.test); pass --alpha 0.01"),
    (["power", "skillings_mack", "--power", "0.8"],
     "--power 0.8; rlstats power has no option power=: its name here is --target-power (power= is the spelling of "
     "R's pwr and power.t.test); pass --target-power 0.8"),
])
def test_an_unknown_flag_names_the_one_meant(argv, said):
    status, out, err = cli_run(*argv)
    prog = "rlstats " + ("adastop update" if argv[0] == "adastop" else argv[0])
    assert status == 2 and out == ""
    assert err.endswith(f"\n{prog}: error: unrecognized arguments: {said}; see {prog} --help\n"), err


def _pilot(path):
    """2 agents x 3 tasks x 5 seeds, PPO's runs on walker a copy of its runs on hopper."""
    rng = np.random.default_rng(0)
    rows = [(t, a, s, round(float(rng.normal(10 if a == "SAC" else 9, 1)), 6))
            for t in ("ant", "hopper", "walker") for a in ("PPO", "SAC") for s in range(5)]
    frame = pd.DataFrame(rows, columns=["task", "agent", "seed", "score"])
    ppo = frame["agent"] == "PPO"
    frame.loc[ppo & (frame["task"] == "walker"), "score"] = frame.loc[ppo & (frame["task"] == "hopper"),
                                                                      "score"].to_numpy()
    frame.to_csv(path, index=False)
    return path


POWER = ("power", "skillings_mack", "--formula", "score ~ agent | task/seed", "--seeds", "3", "--n-sim", "2", "--seed",
         "0", "--no-progress")


def test_power_pilot_note_says_the_file_filtered_not_python(tmp_path):
    """The copied-runs note of a pilot named design=pilot[mask], Python code, on the command line."""
    path = _pilot(tmp_path / "pilot.csv")
    status, out, err = cli_run(*POWER, "--pilot", path)
    assert status == 0, err
    assert "pilot[mask]" not in out and "boolean mask" not in out
    assert ("or leave out PPO's 5 runs on hopper if those are the copies (filter the pilot file first, keeping the "
            "rows where ~(agent == 'PPO' & task == 'hopper') holds and -o na_action=drop, which leaves out hopper where "
            "the method compares every agent on every task)") in " ".join(out.split())
    # --format json is the result's record as Python writes it
    status, out, err = cli_run(*POWER, "--pilot", path, "--format", "json")
    notes = " ".join(json.loads(out)["notes"])
    assert status == 0 and "design=pilot[mask] (a boolean mask of the rows where ~(agent == 'PPO' & task == " \
                           "'hopper') holds)" in notes


def test_compare_keeps_its_subset_way(tmp_path):
    """compare takes -o subset=: its note named it already, and still does."""
    path = _pilot(tmp_path / "runs.csv")
    status, out, err = cli_run("compare", path, "score ~ agent | task/seed", "--seed", "0")
    assert status == 0, err
    assert ("(-o \"subset=~(agent == 'PPO' & task == 'hopper')\" and -o na_action=drop, which leaves out hopper "
            "where the method compares every agent on every task)") in " ".join(out.split())


def test_a_call_on_the_data_in_a_note_is_the_command(tmp_path):
    """A way on's example call on the data, rlstats.compare(df, "score ~ agent | task") or rlstats.bootstrap(df,
    ..., task_bootstrap=True), stayed Python in the command's notes: now the command with its method and -o."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame([(t, a, 0, float(rng.normal())) for t in "abcd" for a in "XYZ"],
                         columns=["task", "agent", "seed", "score"])
    frame.to_csv(tmp_path / "one.csv", index=False)
    status, out, err = cli_run("compare", tmp_path / "one.csv", F, "--method", "task_table", "-o",
                               "aggregate=bootstrap", "--seed", "0")
    assert status == 0, err
    assert "compare the agents across tasks with a rank test: rlstats compare FILE \"score ~ agent | task\"\n" in out
    assert ("resample tasks as well: rlstats compare FILE \"score ~ agent | task\" --method bootstrap -o "
            "task_bootstrap=True (") in out
    assert "rlstats.compare(" not in out and "rlstats.bootstrap(" not in out


def test_the_tied_task_note_names_no_pandas_method(tmp_path):
    """equivalence's note on a task whose runs all tie named DataFrame.query beside compare's subset=; the command
    line has no DataFrame: its -o subset= alone."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame([(t, a, s, 1.0 if t == "a" else float(rng.normal())) for t in "abcd" for a in "XY"
                          for s in range(4)], columns=["task", "agent", "seed", "score"])
    frame.to_csv(tmp_path / "tie.csv", index=False)
    status, out, err = cli_run("compare", tmp_path / "tie.csv", F, "--method", "equivalence", "-o", "margin=0.5",
                               "--seed", "0")
    assert status == 0, err
    # the tied task's condition, in the command's spelling (audit s35 bench35, review35b: "-o subset=" alone)
    assert "leave those out of the data with -o \"subset=task not in ['a']\"" in out
    assert "DataFrame" not in out
