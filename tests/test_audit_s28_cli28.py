"""Audit s28 cli28: the ``rlstats`` command, its AdaStop state that can never decide, and a new user's first calls.

Part one (items left by s27): a state created with --allow-powerless printed "equal" at a level of 0 with no word
that the decision is no test (adastop() on the same batches says so in a note; the incremental result lacked it);
--allow-powerless on a state that exists was ignored without a word; the refusal typed the library warning's first
clause again; the "reason column filled, dropped when empty" rule was written three times (twice in the result, once
in the command); render() and notes_beside_csv() kept parameters only tests passed, so a compare call spelled its
notes through in_command_notes twice (once for nothing).

Part two (a new user's calls in a clean folder: --help of every command, demo, compare on atari100k.csv with several
methods and every --format, power, read-logs on sb3_classic, an AdaStop state over several calls, bad inputs): an
unknown option was refused by the top-level parser ("rlstats: error: unrecognized arguments: --sed 0", its usage);
a comma file read with --sep '\t' said "unknown name 'score'"; --format latex advised to_latex()'s environment= and
resize=, which the command has no flag for; a first AdaStop batch 'agent,points' was read as two agents 'agent' and
'points'; --summarize without the step column named no --step; Ctrl-C printed a traceback. Every other error met
was one rlstats line naming the thing and the way on, with status 2; nothing typed was evaluated as code (a formula
or -o subset= calling __import__ is refused).

The level of 0 is checked by hand: two agents with n = 2 runs per batch have C(4, 2) = 6 exact relabellings per
interim, 6^K / 2 paths at interim K (one of each complementary pair); K = 2 gives 18 paths and alpha = 0.05 spends
floor(0.05 * 18) = 0 of them, K = 3 gives 108 and spends 5.
"""

from __future__ import annotations

import inspect
import math

import pandas as pd
import pytest

from conftest import cli_run, cli_shell

WARNED = "with n = 2 runs per batch and K = 2 interims no level can be spent (alpha = 0.05)"
GRID = ("with its runs per interim and interims no level can be spent on the permutation grid, so its decisions are "
        "'no difference found' or 'continue' whatever the scores; ")


@pytest.fixture
def tiny(tmp_path):
    """Two batches of 2 runs of agents a and b (n = 2 read from the first)."""
    (tmp_path / "b1.csv").write_text("agent,score\na,1.0\na,2.5\nb,3.0\nb,4.5\n")
    (tmp_path / "b2.csv").write_text("agent,score\na,0.5\na,1.5\nb,3.5\nb,5.0\n")
    return tmp_path


# -- part one: a state that can never decide ------------------------------------------------------------------------


def test_hand_count_of_the_paths():
    """The module docstring's counts: 6^2 / 2 = 18 paths spend none at alpha = 0.05, 6^3 / 2 = 108 spend 5."""
    assert math.comb(4, 2) == 6
    assert math.floor(0.05 * 6 ** 2 / 2) == 0 and math.floor(0.05 * 6 ** 3 / 2) == 5


def test_powerless_state_says_its_equal_is_no_test(tiny):
    """The finished state of K = 2 batches of n = 2 says 'equal' at level 0: a note (adastop()'s on the same batches,
    its advice as this command takes it) says the decision is no test; it read as an equivalence shown."""
    assert cli_shell("adastop", "update", tiny / "s.json", tiny / "b1.csv", "--K", "2", "--seed", "1",
                     "--allow-powerless").returncode == 0
    done = cli_shell("adastop", "update", tiny / "s.json", tiny / "b2.csv")
    # the decision 'equal' said as what it is (audit s35)
    assert done.returncode == 0 and " ".join("a          b          no difference found".split()) in " ".join(
        done.stdout.split())
    note = ("Note: AdaStop cannot reject: " + GRID + "start a new state file with a larger --n or --K (the paper advises "
            "n * K >= 30)\n")  # the warning's way on (review s31)
    assert note in done.stdout, done.stdout
    status = cli_shell("adastop", "status", tiny / "s.json")
    assert status.returncode == 0 and note in status.stdout, status.stdout


def test_incremental_result_notes_what_adastop_notes():
    """AdaStop(...).result() of the two batches notes the level spent as adastop() does on the same rows."""
    import warnings

    from rlstats.methods.adastop import AdaStop, adastop

    rows = pd.DataFrame({"agent": list("aabbaabb"), "score": [1, 2.5, 3, 4.5, .5, 1.5, 3.5, 5.0],
                         "batch": [1, 1, 1, 1, 2, 2, 2, 2]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seq = AdaStop(["a", "b"], n=2, K=2, rng=1)
        for batch in (1, 2):
            seq.update(rows[rows["batch"] == batch].drop(columns="batch"))
        whole = adastop(rows, "score ~ agent", n=2, K=2, batch="batch", rng=1)
    assert [note for note in whole.notes if note.startswith("AdaStop cannot reject")] == [
        f"AdaStop cannot reject: {GRID}use a larger n or K (the paper advises n * K >= 30)"]  # one test, no task:
    # "its decisions there" named none; the way on the never-reject warning's, as the incremental test's (s31 bfix31)
    assert [note for note in seq.result().notes if note.startswith("AdaStop cannot reject")] == [
        f"AdaStop cannot reject: {GRID}use a larger n or K (the paper advises n * K >= 30)"]  # the warning's (s31)
    assert seq.result().decisions["decision"].tolist() == whole.decisions["decision"].tolist() == ["equal"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        able = AdaStop(["a", "b"], n=2, K=3, rng=1)
    able.update(rows[rows["batch"] == 1].drop(columns="batch"))
    assert not [note for note in able.result().notes if "cannot reject" in note]


def test_allow_powerless_on_a_state_that_can_reject_is_refused(tiny):
    """--allow-powerless on a later call applies only where the state is one that never rejects (as created with it);
    on a state that can reject it is an error saying why (it was ignored without a word), and nothing is fed."""
    assert cli_shell("adastop", "update", tiny / "s.json", tiny / "b1.csv", "--K", "3", "--seed", "1").returncode == 0
    before = (tiny / "s.json").read_text()
    shown = cli_shell("adastop", "update", tiny / "s.json", tiny / "b2.csv", "--allow-powerless")
    assert shown.returncode == 2 and shown.stdout == ""
    assert shown.stderr == (f"rlstats: error: the test {tiny / 's.json'} holds can reject (n = 2 runs per batch, "
                            "K = 3); --allow-powerless is only for a test that never could: leave it out\n"), shown.stderr
    assert (tiny / "s.json").read_text() == before
    # review28b: refused when such a state would be created too (batch 1 took it, batch 2 refused the same line)
    first = cli_shell("adastop", "update", tiny / "c.json", tiny / "b1.csv", "--K", "3", "--seed", "1",
                      "--allow-powerless")
    assert first.returncode == 2 and not (tiny / "c.json").exists()
    assert first.stderr == ("rlstats: error: the test this call would create can reject (n = 2 runs per batch, K = 3); "
                            "--allow-powerless is only for a test that never could: leave it out\n"), first.stderr
    # a state that never rejects, created with the flag: given again, the flag agrees with it
    assert cli_shell("adastop", "update", tiny / "p.json", tiny / "b1.csv", "--K", "2", "--seed", "1",
                     "--allow-powerless").returncode == 0
    again = cli_shell("adastop", "update", tiny / "p.json", tiny / "b2.csv", "--allow-powerless")
    assert again.returncode == 0, again.stderr


def test_refusal_and_warning_share_one_clause(tiny, monkeypatch):
    """The refusal opens with the library warning's clause, read from its one home (no_level_clause), not typed
    again: a change there shows in both."""
    from rlstats.methods import adastop as package
    from rlstats.methods.adastop import _api, no_level_clause

    assert no_level_clause(2, 2, 0.05) == WARNED
    marked = "CLAUSE {} {} {}".format
    monkeypatch.setattr(_api, "no_level_clause", marked)
    monkeypatch.setattr(package, "no_level_clause", marked)
    refused = cli_shell("adastop", "update", tiny / "s.json", tiny / "b1.csv", "--K", "2", "--seed", "1")
    assert refused.returncode == 2
    assert refused.stderr.startswith("rlstats: error: CLAUSE 2 2 0.05: a test with this state could never "
                                     "reject"), refused.stderr
    created = cli_shell("adastop", "update", tiny / "s.json", tiny / "b1.csv", "--K", "2", "--seed", "1",
                        "--allow-powerless")
    assert created.returncode == 0
    assert created.stderr.startswith("rlstats: warning: CLAUSE 2 2 0.05: the test can never reject")


def test_reason_column_rule_has_one_home():
    """The decisions' reason column, blank where a comparison has none and left out when none has, is one public
    function's rule (without_empty_reasons), which the result's print and summary and the command's progress use."""
    from rlstats.cli import adastop as command
    from rlstats.methods.adastop import _result, without_empty_reasons

    table = pd.DataFrame({"decision": ["equal", "continue"], "reason": [None, "runs exhausted"]})
    kept = without_empty_reasons(table)
    assert kept["reason"].tolist() == ["", "runs exhausted"] and table["reason"].isna().iloc[0]  # a copy
    assert list(without_empty_reasons(table.iloc[:1]).columns) == ["decision"]
    assert inspect.getsource(_result).count('fillna("")') == 1  # in without_empty_reasons alone (it was 2)
    assert 'fillna("")' not in inspect.getsource(command)


# -- render takes the result as shown --------------------------------------------------------------------------------


def test_render_and_notes_beside_csv_take_the_result_as_shown():
    """render() and notes_beside_csv() take the result as_shown() spelled: no hints or labels only tests passed."""
    from rlstats.cli._shared import notes_beside_csv, render

    assert list(inspect.signature(render).parameters) == ["result", "output_format"]
    assert list(inspect.signature(notes_beside_csv).parameters) == ["result", "output_format"]


# -- part two: a new user's first calls ------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, prog, said", [
    (["compare", "runs.csv", "score ~ agent | task", "--bogus"], "rlstats compare",
     "unrecognized arguments: --bogus; see rlstats compare --help"),
    (["power", "skillings_mack", "--sed", "0"], "rlstats power",
     "unrecognized arguments: --sed 0 (did you mean --seed?); see rlstats power --help"),
    (["adastop", "update", "s.json", "b.csv", "--allow-repeats"], "rlstats adastop update",
     "unrecognized arguments: --allow-repeats (did you mean --allow-repeat?); see rlstats adastop update --help"),
    (["adastop", "status", "s.json", "x"], "rlstats adastop status",
     "unrecognized arguments: x; see rlstats adastop status --help"),
])
def test_unrecognized_arguments_name_the_command(argv, prog, said):
    """An argument no option of the command takes is refused by that command, naming it, its --help and the option
    nearest a mistyped one (it was the top-level usage and "rlstats: error: unrecognized arguments: --sed 0")."""
    status, out, err = cli_run(*argv)
    assert status == 2 and out == ""
    assert err.startswith(f"usage: {prog} ") and err.endswith(f"\n{prog}: error: {said}\n"), err


@pytest.mark.parametrize("sep", ["\\t", ";", "|"])
def test_a_given_separator_the_file_does_not_use_is_named(tmp_path, sep):
    """A comma-separated file read with --sep '\\t' (or another the file does not use) is one column, which was
    said as "unknown name 'score' ...; the data columns are: `agent,task,seed,score`"; now as the separator the
    header holds, as when --sep is left out."""
    path = tmp_path / "runs.csv"
    path.write_text("agent,task,seed,score\na,t,0,1\na,t,1,2\nb,t,0,3\nb,t,1,4\n")
    status, out, err = cli_run("compare", path, "score ~ agent | task", "--sep", sep)
    shown = "'\\t'" if sep == "\\t" else repr(sep)
    assert status == 2 and out == ""
    assert err == (f"rlstats: error: {path} has one column 'agent,task,seed,score' when read with {shown} as "
                   f"separator; it looks separated by ',': leave out --sep (the default, ',')\n"), err


def test_a_given_separator_names_the_other_one(tmp_path):
    """A semicolon file read with --sep ',' given: the way is --sep ';'."""
    path = tmp_path / "runs.csv"
    path.write_text("agent;task;seed;score\na;t;0;1\nb;t;0;3\n")
    status, out, err = cli_run("compare", path, "score ~ agent | task", "--sep", ",")
    assert status == 2 and err.endswith("it looks separated by ';': pass --sep ';'\n"), err


def test_latex_layout_advice_in_the_commands_terms(tmp_path):
    """compare --format latex said "to fit one column: environment='table', resize=True", keywords of to_latex() that
    the command has no flag for; it says the edit to the LaTeX that does the same (the library's text unchanged)."""
    long_a, long_b = "agent_" + "a" * 40, "agent_" + "b" * 40  # a table wider than one column (229.5 pt)
    rows = "".join(f"{a},t{t},{s},{v}\n" for t in (1, 2) for s, (a, v) in enumerate(
        [(long_a, 1.0), (long_a, 2.0 + t), (long_b, 3.0), (long_b, 4.0 + t)]))
    (tmp_path / "runs.csv").write_text("agent,task,seed,score\n" + rows)
    status, out, err = cli_run("compare", tmp_path / "runs.csv", "score ~ agent | task", "--format", "latex",
                               "--seed", "0")
    assert status == 0, err
    comments = [line for line in out.splitlines() if line.startswith("% rlstats:")]
    assert comments and "environment=" not in out and "resize=True" not in out
    wide = [line for line in comments if "to fit one column" in line]
    assert wide, comments
    # the mean ranks' table (320 pt) needs the box put in; the pairs' (938 pt, wider than the page) has it already
    fits_the_page = [line for line in wide if "shrunk to the page" not in line]
    boxed = [line for line in wide if "shrunk to the page" in line]
    assert fits_the_page and boxed, wide
    assert all(r"to fit one column: change table* to table and put the tabular in \resizebox{\linewidth}{!}{...} "
               "(shrinks it to " in line for line in fits_the_page), fits_the_page
    assert all(r"to fit one column: change table* to table (its \resizebox then shrinks it to " in line
               for line in boxed), boxed


@pytest.mark.parametrize("header, said", [
    ("agent,points", "the batch has a column 'agent' but none named 'score': a long batch has both (each run's agent "
                     "and score), a wide one a column per agent; name its column of scores 'score'"),
    ("name,score", "the batch has a column 'score' but none named 'agent': a long batch has both (each run's agent "
                   "and score), a wide one a column per agent; name its column of agents 'agent'"),
])
def test_a_long_batch_missing_its_score_column_is_named(tmp_path, header, said):
    """A first batch with a column agent and its scores under another name was read as a wide batch of two agents
    'agent' and 'points' ("scores of agent 'agent' are not numbers"); it is refused naming the missing column, and no
    state is made."""
    (tmp_path / "b.csv").write_text(f"{header}\nPPO,1\nPPO,2\nSAC,3\nSAC,4\n")
    status, out, err = cli_run("adastop", "update", tmp_path / "s.json", tmp_path / "b.csv", "--seed", "0")
    assert status == 2 and out == "" and not (tmp_path / "s.json").exists()
    assert err == f"rlstats: error: {tmp_path / 'b.csv'}: {said}\n", err


def test_an_interrupt_ends_with_one_line_and_status_130(monkeypatch):
    """Ctrl-C during a command printed Python's traceback of wherever it ran; it says one line and exits with 130,
    the shell's status of a command ended by SIGINT (128 + 2)."""
    import rlstats.cli as cli

    def interrupted(args, out):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_compare", interrupted)
    status, out, err = cli_run("compare", "runs.csv", "score ~ agent | task")
    assert (status, out, err) == (130, "", "rlstats: interrupted\n")


@pytest.mark.parametrize("given, said", [
    (["--step", "stepz"], "--step stepz is not a column of {path}; its columns are: agent, task, seed, t, score"),
    ([], "--summarize reads each row's training step from the column step, which {path} does not have; name "
         "the step column with --step (its columns are: agent, task, seed, t, score)"),
])
def test_summarize_names_the_step_option(tmp_path, given, said):
    """--summarize on a file whose step column is not the one given (or not 'step', when --step is left out) said
    "step column 'stepz' not found in data; available: [...]", naming no option: now --step, and the file's columns."""
    path = tmp_path / "curves.csv"
    path.write_text("agent,task,seed,t,score\n" + "".join(f"{a},x,{s},{t},{t * (s + 1)}\n" for a in "ab"
                                                         for s in (0, 1) for t in (1, 2)))
    status, out, err = cli_run("compare", path, "score ~ agent | task/seed", "--summarize", "final", *given)
    assert status == 2 and out == ""
    assert err == "rlstats: error: " + said.format(path=path) + "\n", err


def test_adastop_without_its_command_names_the_choices():
    """rlstats adastop alone said "the following arguments are required: adastop_command", the parser's attribute;
    it names the commands it takes, as its usage line shows them."""
    status, out, err = cli_run("adastop")
    assert status == 2 and err.endswith("rlstats adastop: error: the following arguments are required: "
                                        "{update,status,plot}\n"), err
    assert "usage: rlstats adastop [-h] {update,status,plot} ...\n" in err
