"""Audit s26 cli26: the command line's rewriting of the library's hints, and AdaStop's command-line workflow.

Part one: latent defects of ``rlstats.cli._shared.in_command_words`` left by session 25 (no current message
triggers them, so each is reproduced by calling the rewriting function on a message of the library's form): a flag
taking no value said for a hint of the other polarity, a Python expression cut in two, prose that states a value
taken for a hint, the data's names rewritten in power's and read-logs' notes, and the flag table read off argparse's
private list of actions.
"""

from __future__ import annotations

import argparse

import pytest

import rlstats
from conftest import cli_shell


def _subparser(*path):
    from rlstats.cli import build_parser

    parser = build_parser()
    for name in path:
        parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
    return parser


def _compare_hints():
    from rlstats.cli import _compare_hints

    return _compare_hints(_subparser("compare").parse_args(["f.csv", "score ~ agent | task"]))


# -- (a) a flag that takes no value -----------------------------------------------------------------------------


def test_bare_flag_keeps_the_hints_polarity():
    """A flag taking no value is said for the value it gives its keyword, and "without" it for the other."""
    from rlstats.cli._shared import flag_table, in_command_words

    flags, options, _ = _compare_hints()
    said = in_command_words("pass progress=False to hide the bar", flags, options)
    assert said == "pass --no-progress to hide the bar"
    # progress=True is the command without the flag; allow_repeat=True is --allow-repeat, False its absence
    assert in_command_words("pass progress=True to see the bar", flags, options) == \
        "leave out --no-progress to see the bar"
    assert in_command_words("e.g. progress=True", flags, options) == "e.g. without --no-progress"
    update = flag_table(_subparser("adastop", "update"))
    said = in_command_words("Pass allow_repeat=True if it is genuine", update, ())
    assert said == "Pass --allow-repeat if it is genuine"
    assert in_command_words("pass allow_repeat=False", update, ()) == "leave out --allow-repeat"
    assert in_command_words("pass eval_env=0", flags, options) == "pass --allow-python"  # any environment


# -- (b) a Python expression as a hint's value ------------------------------------------------------------------


def test_python_expression_is_not_cut():
    """rng=np.random.default_rng(1) is --seed with the int that Generator seeds the run by (main said 'pass
    --seednp.random.default_rng(1)'); another expression stays Python, whole."""
    import numpy as np

    from rlstats.cli._shared import in_command_words
    from rlstats.resampling import seed_sequence

    flags, options, calls = _compare_hints()
    # --seed takes the int a Generator seeds the run by (rng=default_rng(1) is not rng=1: a seed is drawn from it)
    record = seed_sequence(np.random.default_rng(1))[1]
    shown = in_command_words("pass rng=np.random.default_rng(1) to repeat it", flags, options, calls)
    assert shown == f"pass --seed {record} to repeat it"
    # an expression the command line cannot take stays Python, whole
    for python in ("pass rng=np.random.default_rng() here", "pass rng=np.random.Generator(np.random.PCG64(3))"):
        assert in_command_words(python, flags, options, calls) == python


# -- (c) prose stating a value ------------------------------------------------------------------------------------


def test_prose_stating_a_value_is_left():
    """A quantity's value stated in prose (after "at", "level") is not a hint; a hint beside it is."""
    from rlstats.cli._shared import in_command_words

    flags, options, calls = _compare_hints()
    for prose in ("the family-wise error is held at alpha=0.05 here",
                  "the intervals were computed at confidence_level=0.9; rerun"):
        assert in_command_words(prose, flags, options, calls) == prose
    assert in_command_words("pass alpha=0.1 to", flags, options, calls) == "pass -o alpha=0.1 to"
    assert in_command_words("held at level alpha=0.05; pass alpha=0.1", flags, options, calls) == \
        "held at level alpha=0.05; pass -o alpha=0.1"


# -- (d) the data's names in power's and read-logs' notes ---------------------------------------------------------


@pytest.fixture(scope="module")
def keyword_pilot(tmp_path_factory):
    """A pilot whose agents and tasks are named like power's keywords, with one cell of one run."""
    data = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0)
    data["agent"] = data["agent"].map(dict(zip(data["agent"].unique(), ["alpha=0.05", "n_jobs=2"])))
    data["task"] = data["task"].map(dict(zip(data["task"].unique(), ["n_sim=3", "tasks=2"])))
    data = data[~((data["agent"] == "n_jobs=2") & (data["task"] == "tasks=2") & (data["seed"] < 2))]
    path = tmp_path_factory.mktemp("cli26") / "pilot.csv"
    data.to_csv(path, index=False)
    return path


@pytest.mark.slow  # power's simulations and imports: 0.9 s of CPU; the rendering alone below
def test_power_notes_keep_the_pilots_names(keyword_pilot):
    """power's notes write a pilot's names as they are (main said 'one run on --tasks 2'), its hints as flags."""
    shown = cli_shell("power", "skillings_mack", "--pilot", keyword_pilot, "--formula", "score ~ agent | task",
                      "--seeds", "2", "--n-sim", "5", "--seed", "0", "--no-progress")
    assert shown.returncode == 0, shown.stderr
    assert "pilot: n_jobs=2 has one run on tasks=2: drawn with replacement" in shown.stdout
    assert "--resample pooled draws" in shown.stdout


def test_power_rendering_holds_the_labels_given():
    """as_shown() writes the names it is given as they are (run_power passes a pilot's, whose result names no agent
    or task), the hints beside them in the command's spelling, for render() and notes_beside_csv() alike."""
    import contextlib
    import dataclasses
    import io

    from rlstats.cli._shared import as_shown, notes_beside_csv, render
    from rlstats.cli.power import _power_hints

    @dataclasses.dataclass(frozen=True)
    class Noted:
        notes: tuple[str, ...]

        def __str__(self):
            return "\n".join(self.notes)

    hints = _power_hints(_subparser("power").parse_args(["skillings_mack"]))
    result = Noted(("pilot: n_jobs=2 has one run on tasks=2: drawn with replacement, it is that run in every data "
                    "set; resample='pooled' draws from the task's runs",))
    said = "pilot: n_jobs=2 has one run on tasks=2: drawn with replacement, it is that run in every data set; " \
           "--resample pooled draws from the task's runs"
    assert render(as_shown(result, "text", hints, {"n_jobs=2", "tasks=2"}), "text") == said
    assert "on --tasks 2" in render(as_shown(result, "text", hints), "text")  # the names unheld: what main said
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        notes_beside_csv(as_shown(result, "csv", hints, {"n_jobs=2", "tasks=2"}), "csv")
    assert err.getvalue() == f"Note: {said}\n"


@pytest.fixture
def unicode_logs(tmp_path):
    """SB3 progress.csv logs of 2 agents x 2 seeds on a task 'keep=café' written composed and decomposed."""
    import unicodedata

    for agent in ("ppo", "dqn"):
        for seed, form in enumerate(("NFC", "NFD")):
            folder = tmp_path / "logs" / agent / unicodedata.normalize(form, "keep=café") / f"seed_{seed}"
            folder.mkdir(parents=True)
            (folder / "progress.csv").write_text("step,eval_return\n0,1\n10,2\n")
    return tmp_path


def test_read_logs_notes_keep_the_names(unicode_logs):
    """read-logs' notes write the runs' names as they are (main said "task '--keep \"café\"'")."""
    shown = cli_shell("read-logs", unicode_logs / "logs", "--pattern", "{agent}/{task}/seed_{seed}", "--no-progress",
                      "-o", unicode_logs / "out.csv")
    assert shown.returncode == 0, shown.stderr
    assert "task 'keep=café' is written in two Unicode forms" in shown.stdout


# -- (e) the flag table off the parser's public face --------------------------------------------------------------


def test_flag_table_reads_no_private_attribute():
    """flag_table reads keyword_flag's marks, kept from the Action add_argument returns, not argparse's private list
    of a parser's actions (argparse has no public accessor of it)."""
    import inspect
    import re

    from rlstats.cli import _shared

    source = inspect.getsource(_shared)
    assert not re.search(r"\._actions\b|\._option_string_actions\b|\._registries\b", source)
    assert _shared.flag_table(_subparser("compare"))["rng"] == "--seed"
    assert _shared.flag_table(argparse.ArgumentParser()) == {}  # a parser without marks


# -- part two: AdaStop's command-line workflow, as a new user meets it ----------------------------------------------


@pytest.fixture
def batches(tmp_path):
    """Three simulated agents (effects 0, 0.3, 1.5) on one task, 5 runs per batch: batch files b1.csv, b2.csv as
    long tables, and a state s.json holding batch 1 (K = 4, 200 paths, seed 0)."""
    data = rlstats.datasets.simulate(agents=3, tasks=1, seeds=10, effect=[0, 0.3, 1.5], rng=3)
    for number in (1, 2):
        part = data[data["seed"].between(5 * number - 5, 5 * number - 1)]
        part[["agent", "score"]].to_csv(tmp_path / f"b{number}.csv", index=False)
    shown = cli_shell("adastop", "update", tmp_path / "s.json", tmp_path / "b1.csv", "--K", "4", "--seed", "0",
                      "--n-resamples", "200")
    assert shown.returncode == 0, shown.stderr
    return tmp_path


def _error(shown):
    assert shown.returncode == 2 and shown.stdout == "", (shown.stdout, shown.stderr)
    assert shown.stderr.startswith("rlstats: error: ") and shown.stderr.count("\n") == 1, shown.stderr
    return shown.stderr[len("rlstats: error: "):].rstrip("\n")


def test_misspelt_agent_names_the_one_the_batch_lacks(batches):
    """A misspelt agent is guessed among the agents the batch lacks (main guessed agent_1, whose runs the batch
    holds), and the refusal opens with the batch file."""
    text = (batches / "b2.csv").read_text().replace("agent_2", "agent_two")
    (batches / "bad.csv").write_text(text)
    said = _error(cli_shell("adastop", "update", batches / "s.json", batches / "bad.csv"))
    assert said == (f"{batches / 'bad.csv'}: unknown agent agent_two in the batch (did you mean 'agent_2'?); "
                    "this test compares agent_1, agent_2, agent_3")


def test_repeated_batch_names_the_file(batches):
    """A batch fed twice is refused naming its file and the flag that accepts it."""
    said = _error(cli_shell("adastop", "update", batches / "s.json", batches / "b1.csv"))
    assert said == (f"{batches / 'b1.csv'}: this batch repeats batch 1 (the same runs for every agent, in any "
                    "order); it was probably fed twice. Pass --allow-repeat if it is genuine")


def test_arguments_in_the_wrong_order(batches):
    """The batch given first and the state second is said so, with the command in its order, and nothing is
    written."""
    said = _error(cli_shell("adastop", "update", batches / "b1.csv", batches / "new.json"))
    assert said == (f"STATE {batches / 'b1.csv'} is a table and BATCH {batches / 'new.json'} a JSON file: the state "
                    f"comes first: rlstats adastop update {batches / 'new.json'} {batches / 'b1.csv'}")
    said = _error(cli_shell("adastop", "update", batches / "b2.csv", batches / "s.json"))
    assert said.startswith(f"STATE {batches / 'b2.csv'} is a table and BATCH {batches / 's.json'} a JSON file")
    assert not (batches / "new.json").exists()


def test_a_results_record_is_not_a_state(batches):
    """A result's to_json() record given as the state says what it is and which file to give."""
    import rlstats as rl

    data = rl.datasets.simulate(agents=2, tasks=1, seeds=10, rng=0).drop(columns="task")
    result = rl.adastop(data.assign(batch=data["seed"] // 5), "score ~ agent", batch="batch", n=5, K=2, rng=0,
                        n_resamples=200)
    (batches / "result.json").write_text(result.to_json())
    said = _error(cli_shell("adastop", "status", batches / "result.json"))
    assert said == (f"the AdaStop state {batches / 'result.json'}: this is a result's record (to_json()), not an "
                    "AdaStop state: it holds no test to continue; give the JSON state file that rlstats adastop update "
                    "(or AdaStop.save) wrote")


@pytest.fixture
def keyed(batches):
    """A state created with --key-file k.key (32 bytes, mode 600), holding batch 1."""
    import os

    key = batches / "k.key"
    key.write_bytes(bytes(range(32)))
    os.chmod(key, 0o600)
    shown = cli_shell("adastop", "update", batches / "ks.json", batches / "b1.csv", "--K", "4", "--seed", "0",
                      "--n-resamples", "200", "--key-file", key)
    assert shown.returncode == 0, shown.stderr
    return batches


def test_key_errors_in_the_command_spelling(keyed):
    """The key errors name --key-file alone on the command line; a missing key file says what to give."""
    state = keyed / "ks.json"
    said = _error(cli_shell("adastop", "status", state))
    assert said == (f"the digests of batch 1 of the AdaStop state {state} were made with a key (HMAC-SHA256, key id "
                    "f9cb10eccec43045), and none was given: give that key to read or update the state "
                    "(--key-file PATH)")
    said = _error(cli_shell("adastop", "status", keyed / "s.json", "--key-file", keyed / "k.key"))
    assert said.endswith("nobody can bless an edited state by adding one: leave out --key-file, or start a new test "
                         "with it")
    said = _error(cli_shell("adastop", "status", state, "--key-file", keyed / "nope.key"))
    assert said == (f"--key-file {keyed / 'nope.key'}: no such file; give the file that holds the state's key (a new "
                    "state's key is made with: head -c 32 /dev/urandom > KEY; chmod 600 KEY)")


def test_update_help_shows_a_key_file():
    """adastop update --help shows a keyed state's command and how to make its key."""
    shown = cli_shell("adastop", "update", "--help")
    assert "rlstats adastop update state.json batch1.csv --key-file adastop.key" in shown.stdout
    assert "head -c 32 /dev/urandom > adastop.key; chmod 600 adastop.key" in shown.stdout


def test_creation_options_advised_as_a_new_state(batches):
    """A finished test's note advising more paths says it of a new state file (the next update refuses
    --n-resamples on this one); the number is the Python note's (n_resamples=290)."""
    state = batches / "k2.json"
    created = cli_shell("adastop", "update", state, batches / "b1.csv", "--K", "2", "--seed", "1",
                        "--n-resamples", "200", "--permutations", "joint")
    assert created.returncode == 0, created.stderr
    shown = cli_shell("adastop", "update", state, batches / "b2.csv")
    assert shown.returncode == 0, shown.stderr
    assert "the test is finished" in shown.stdout
    assert ("Start a new state file with --n-resamples 290 to make the margin exceed 2 Monte Carlo SE"
            in shown.stdout), shown.stdout
    assert "Pass --n-resamples" not in shown.stdout


def test_powerless_state_advice_names_the_flags(batches):
    """A state created with n = 2, K = 2 warns in the command's words: a new state file with a larger --n or --K."""
    rows = (batches / "b1.csv").read_text().splitlines()
    (batches / "tiny.csv").write_text("\n".join([rows[0], *rows[1:3], *rows[6:8]]) + "\n")  # 2 runs of 2 agents
    shown = cli_shell("adastop", "update", batches / "t.json", batches / "tiny.csv", "--K", "2", "--seed", "1",
                      "--n-resamples", "200", "--allow-powerless")  # refused without it since audit s27 cli27
    assert shown.returncode == 0, shown.stderr
    assert shown.stderr == ("rlstats: warning: with n = 2 runs per batch and K = 2 interims no level can be spent "
                            "(alpha = 0.05): the test can never reject; start a new state file with a larger --n or "
                            "--K (the paper advises n * K >= 30)\n")


def test_update_help_describes_batches_and_keys():
    """adastop update --help describes the batch layouts, the refusal of repeats, the digests and the key file's
    rules, as plain text."""
    shown = cli_shell("adastop", "update", "--help").stdout
    for said in ("A batch file is either long (columns agent and score) or wide (one",
                 "--allow-repeat accepts them", "The key file must not be readable by other", "(chmod 600)"):
        assert said in shown, said
    assert "``" not in shown
