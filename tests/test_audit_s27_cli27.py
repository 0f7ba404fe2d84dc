"""Audit s27 cli27: one home per idea in the command line and the formula module, and a state that can never decide.

Part one (simplicity, behaviour unchanged): update's --help description is help_description's paragraphs; the flags
that apply when an AdaStop state is created are read off update's flag table; --no-progress is a store_false of
progress=, which needs no declared value; compare and power spell a result's notes once per call.
"""

from __future__ import annotations

import pytest

import rlstats
from conftest import cli_run, cli_shell
from test_audit_s26_cli26 import _subparser  # a command's parser, by the names that select it


# -- part one: the command line's one homes ------------------------------------------------------------------------


def test_update_description_is_help_descriptions_paragraphs():
    """adastop update's description is the module docstring's paragraphs from the fourth, by help_description."""
    from rlstats.cli import _shared, adastop

    paragraphs = adastop.__doc__.split("\n\n")
    said = _shared.help_description(adastop.__doc__, slice(3, None))
    assert said.startswith("A batch file is either long (columns agent and score) or wide (one")
    assert said.endswith("is resumed as pairwise.") and "``" not in said
    assert said.count("\n\n") == len(paragraphs) - 4  # one blank line between paragraphs, none dropped
    assert _subparser("adastop", "update").description == said
    assert _shared.help_description(adastop.__doc__) == paragraphs[0].replace("``", "")  # the first, as before


def test_creation_advice_reads_the_flag_table():
    """The advice to pass a creation option is said as a new state file with the flag update's table spells: a
    table spelling --K otherwise would be followed (the convention '--' + name was a second home)."""
    from rlstats.cli._shared import flag_table
    from rlstats.cli.adastop import _new_state_words

    flags = flag_table(_subparser("adastop", "update"))
    assert _new_state_words("Pass --n-resamples 290 to make it so", flags) == (
        "Start a new state file with --n-resamples 290 to make it so")
    assert _new_state_words("then pass --seed 3 and", flags) == "then start a new state file with --seed 3 and"
    assert _new_state_words("use a larger n or K", flags) == "start a new state file with a larger --n or --K"
    other = {**flags, "K": "--interims", "n": "--runs"}
    assert _new_state_words("Pass --interims 4 here; use a larger n or K", other) == (
        "Start a new state file with --interims 4 here; start a new state file with a larger --runs or --interims")
    assert _new_state_words("Pass --K 4 here", other) == "Pass --K 4 here"  # not a flag of that table


def test_no_progress_is_store_false_of_progress():
    """--no-progress gives progress=False by its action's constant (store_false, dest progress), in compare's, power's
    and read-logs' tables alike; the hints read it both ways."""
    from rlstats.cli._shared import _BARE_FLAGS, cost_options, flag_table, in_command_words

    for path in (("compare",), ("power",), ("read-logs",)):
        parser = _subparser(*path)
        assert flag_table(parser)["progress"] == "--no-progress"
        given = {"compare": ["f.csv", "y ~ a"], "power": ["bootstrap"], "read-logs": ["d", "-o", "x.csv"]}[path[0]]
        assert parser.parse_args([*given, "--no-progress"]).progress is False
        assert parser.parse_args(given).progress is True
    assert _BARE_FLAGS["--no-progress"] is False
    args = _subparser("compare").parse_args(["f.csv", "y ~ a"])
    assert args.progress is True and cost_options(args) == {}  # left out: the back end's own default
    assert cost_options(_subparser("compare").parse_args(["f.csv", "y ~ a", "--no-progress"])) == {"progress": False}
    flags = flag_table(_subparser("compare"))
    assert in_command_words("pass progress=False", flags, ()) == "pass --no-progress"
    assert in_command_words("pass progress=True", flags, ()) == "leave out --no-progress"


@pytest.mark.parametrize("command", ["compare", "power"])
def test_notes_spelled_once_per_call(tmp_path, monkeypatch, command):
    """compare and power spell a result's notes once for --format csv (the tidy rows on stdout, the notes on stderr),
    where render and notes_beside_csv each spelled them; the notes on stderr are the command's words."""
    from rlstats.cli import _shared

    calls = []
    original = _shared.in_command_notes
    monkeypatch.setattr(_shared, "in_command_notes", lambda result, hints, *a: calls.append(hints) or original(result, hints, *a))
    if command == "compare":
        data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
        path = tmp_path / "d.csv"
        data.to_csv(path, index=False)
        argv = ["compare", path, "score ~ agent | task", "--format", "csv", "--seed", "0", "-o",
                "subset=task != 'task_01'"]  # a note: -o "subset=..." kept 12 of 18 rows
    else:  # 3 seeds: the permutation test spends no level, a note
        argv = ["power", "permutation", "--seeds", "3", "--n-sim", "4", "--tasks", "1", "--agents", "2", "--format",
                "csv", "--seed", "0"]
    status, out, err = cli_run(*argv)
    assert status == 0, err
    assert out.count("\n") == 2  # the header and one row
    assert ("Note: -o \"subset=task != 'task_01'\" kept 12 of 18 rows\n" if command == "compare" else
            "Note: the permutation test can spend no level at 3 seeds per cell (level_spent 0)") in err
    assert len(calls) == 1  # audit s28: render() spelled them again with hints None, for nothing


# -- part two: a state file that can never decide -------------------------------------------------------------------
# Two agents' exact paths: m_k = C(2n, n)^k / 2 at interim k (10,000 paths allow up to 10,000), and linear spending
# spends floor(alpha * m_K) paths at the last interim when none was spent before. At alpha = 0.05: n = 2 runs,
# C(4, 2) = 6: K = 2 gives 18 paths, 0.9 (none), K = 3 gives 108, 5.4; n = 3 at K = 2 gives 20^2 / 2 = 200, 10.


@pytest.fixture
def tiny(tmp_path):
    """A first batch of 2 runs of agents a and b (n = 2 when --n is not given), and a second."""
    (tmp_path / "b1.csv").write_text("agent,score\na,1.0\na,2.5\nb,3.0\nb,4.5\n")
    (tmp_path / "b2.csv").write_text("agent,score\na,0.5\na,1.5\nb,3.5\nb,5.0\n")
    return tmp_path


def _refused(shown):
    assert shown.returncode == 2 and shown.stdout == "", (shown.stdout, shown.stderr)
    assert shown.stderr.startswith("rlstats: error: ") and shown.stderr.count("\n") == 1, shown.stderr
    return shown.stderr



def test_powerless_state_refused_naming_the_smallest_n_and_K(tiny):
    """n = 2 read from the first batch and --K 2: refused before any file is made, naming the smallest n at K = 2 (3)
    and the smallest K at n = 2 (3) that can reject, and --allow-powerless."""
    said = _refused(cli_shell("adastop", "update", tiny / "s.json", tiny / "b1.csv", "--K", "2", "--seed", "1"))
    assert said == ("rlstats: error: with n = 2 runs per batch and K = 2 interims no level can be spent (alpha = "
                    "0.05): a test with this state could never reject, whatever the runs it is fed; the smallest that "
                    "can are n = 3 runs per batch at K = 2 (--n 3, a first batch of 3 runs per agent) or K = 3 at "
                    "n = 2 (--K 3) (the paper advises n * K >= 30); --allow-powerless creates it anyway\n")
    assert sorted(path.name for path in tiny.iterdir()) == ["b1.csv", "b2.csv"]  # no state, no lock
    assert cli_shell("adastop", "update", tiny / "s.json", tiny / "b1.csv", "--K", "3", "--seed", "1").returncode == 0



def test_powerless_state_without_n_or_K_names_n_resamples(tiny):
    """With 20 paths at alpha = 0.05 at most one path's level is spent; with 19 none, whatever n and K (three agents
    relabelled jointly draw random paths): the refusal names --n-resamples 20.  Holm (the default since s29) spends
    alpha / 3 on each of three agents' comparisons first: 60 paths (holmfix29: it named 20, which still refused)."""
    (tiny / "b3.csv").write_text("agent,score\na,1\na,2\nb,3\nb,4\nc,5\nc,6\n")
    said = _refused(cli_shell("adastop", "update", tiny / "s.json", tiny / "b3.csv", "--n-resamples", "59",
                              "--seed", "1"))
    # review s31 (rfix31d): the paths named are those from which on separated runs reject for 95% of seeds (60, the
    # fewest that spend, reject with chance 0.997, 90 with 0.87)
    assert ("no --n or --K can: at alpha / 3 = 0.0167 (Holm) a test needs at least 60 permutation paths, and from 240 "
            "on rejects well separated runs for 95% of seeds or more (--n-resamples 240); --allow-powerless creates it "
            "anyway\n") in said, said
    assert cli_shell("adastop", "update", tiny / "s.json", tiny / "b3.csv", "--n-resamples", "60",
                     "--seed", "1").returncode == 0
    said = _refused(cli_shell("adastop", "update", tiny / "j.json", tiny / "b3.csv", "--n-resamples", "19",
                              "--seed", "1", "--permutations", "joint"))
    assert ("no --n or --K can: at alpha = 0.05 a test needs at least 20 permutation paths, and from 40 on rejects "
            "well separated runs for 95% of seeds or more (--n-resamples 40); --allow-powerless creates it anyway\n"
            ) in said, said
    assert cli_shell("adastop", "update", tiny / "j.json", tiny / "b3.csv", "--n-resamples", "20",
                     "--seed", "1", "--permutations", "joint").returncode == 0


def test_allow_powerless_creates_it_and_every_call_warns_in_the_commands_words(tiny):
    """--allow-powerless creates the state (a dry run of the workflow); its later updates and status warn as the
    creation did, in the command's words (they said "use a larger n or K", AdaStop's keywords)."""
    warning = ("rlstats: warning: with n = 2 runs per batch and K = 2 interims no level can be spent (alpha = 0.05): "
               "the test can never reject; start a new state file with a larger --n or --K (the paper advises "
               "n * K >= 30)\n")
    created = cli_shell("adastop", "update", tiny / "s.json", tiny / "b1.csv", "--K", "2", "--seed", "1",
                        "--allow-powerless")
    assert created.returncode == 0 and created.stderr == warning, created.stderr
    later = cli_shell("adastop", "update", tiny / "s.json", tiny / "b2.csv")
    assert later.returncode == 0 and later.stderr == warning, later.stderr
    status = cli_shell("adastop", "status", tiny / "s.json")
    assert status.returncode == 0 and status.stderr == warning, status.stderr
    assert "the test is finished" in status.stdout
    # a call that fails after the state is read says its warning too, then the error (as before, in Python's words)
    failed = cli_shell("adastop", "update", tiny / "s.json", tiny / "b2.csv")
    assert failed.returncode == 2 and failed.stderr.startswith(warning + "rlstats: error: the test is finished")



def test_rejecting_sizes_match_the_closed_form():
    """rejecting_sizes: None for a test that can reject; else the smallest n at its K and K at its n, checked against
    floor(alpha * C(2n, n)^K / 2) >= 1 by enumeration over n, K <= 12 (two agents, 10,000 paths)."""
    import math
    import warnings

    from rlstats.methods.adastop import AdaStop, rejecting_sizes

    def spends(n, K):  # the last interim's paths, none spent before (each earlier share is below it)
        return math.floor(0.05 * min(math.comb(2 * n, n) ** K // 2, 10_000)) >= 1

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n, K in [(2, 2), (1, 2), (1, 5), (3, 1), (2, 1), (1, 1)]:
            sizes = rejecting_sizes(AdaStop(["a", "b"], n=n, K=K))
            assert spends(n, K) is (sizes is None), (n, K)
            if sizes is not None:
                assert sizes == (min(m for m in range(1, 13) if spends(m, K)),
                                 min(k for k in range(1, 13) if spends(n, k)))
        assert rejecting_sizes(AdaStop(["a", "b"], n=2, K=2)) == (3, 3)
        assert rejecting_sizes(AdaStop(["a", "b"], n=1, K=2)) == (3, 6)  # n = 1: 2^(K - 1) paths, 32 at K = 6
        assert rejecting_sizes(AdaStop(["a", "b", "c"], n=2, K=2, n_resamples=19)) == (None, None)


# -- part three: the formula module's one homes ---------------------------------------------------------------------


@pytest.mark.parametrize("text, data_name, normal_form", [
    ("score~agent|task/seed", "score and agent and task/seed", "score ~ agent | task/seed"),
    ("score ~ agent | task/run/seed", "score and agent and task/run/seed", "score ~ agent | task/run/seed"),
    ("score ~ agent | task:seed:env", "score and agent and task:seed:env", "score ~ agent | task:seed:env"),
    ("`my score` ~ `the agent` | `task name`/`run-id`", "my score and the agent and task name/run-id",
     "`my score` ~ `the agent` | `task name`/`run-id`"),
    ("I(score * 100) ~ agent | `class`/seed", "I(score * 100) and agent and class/seed",
     "I(score * 100) ~ agent | `class`/seed"),
    ("score ~ agent + (1 | task) + (1 | task:agent)", "score and agent and task",
     "score ~ agent + (1 | task) + (1 | task:agent)"),
])
def test_block_text_one_home(text, data_name, normal_form):
    """data_name and normal_form write the blocks term from one home (_block_text), as they did (values from the
    code before it, 3f2194c5); the normal form reads back as itself."""
    from rlstats.formula import parse

    formula = parse(text)
    assert (formula.data_name, formula.normal_form) == (data_name, normal_form)
    assert parse(normal_form).normal_form == normal_form


def test_written_and_quoted_share_their_test():
    """A name a formula writes bare (a Python name, no keyword) is quoted in a message; any other is back-quoted
    in both; the tokenizer reads the same names bare."""
    from rlstats.formula import _bare, _quoted, _written

    names = {"a": True, "_1": True, "é": True, "lambda_": True, "my score": False, "class": False, "x-y": False,
             "1a": False}
    assert {name: _bare(name) for name in names} == names
    assert [_written(n) for n in names] == ["a", "_1", "é", "lambda_", "`my score`", "`class`", "`x-y`", "`1a`"]
    assert [_quoted(n) for n in names] == ["'a'", "'_1'", "'é'", "'lambda_'", "`my score`", "`class`", "`x-y`",
                                           "`1a`"]


# -- part four: the studentised band methods, at home in the light declaration module -------------------------------


def test_studentized_bands_live_in_the_declaration_module():
    """STUDENTIZED_BANDS is curves' _backend's (imported by _api and _result), which imports no back end module: its
    cost rule reads it without importing _api (pandas and the kernels). Its rule counts 2 passes for both."""
    import ast
    import inspect
    import types

    from rlstats.cost import Shape
    from rlstats.methods.curves import _api, _backend, _result

    assert _backend.STUDENTIZED_BANDS == ("studentized", "studentized_unwidened")
    assert _api.STUDENTIZED_BANDS is _backend.STUDENTIZED_BANDS is _result.STUDENTIZED_BANDS
    assert set(_backend.STUDENTIZED_BANDS) < set(_api.BAND_METHODS)
    imported = {node.module for node in ast.walk(ast.parse(inspect.getsource(_backend)))
                if isinstance(node, ast.ImportFrom)}
    # grammar (re and typing only) came with audit s36 small36's plural(): still no back end module
    assert imported == {"typing", "_declaration", "cost", "grammar"}
    shape = Shape(rows=400, agents=2, tasks=1, cells=2, most_runs=4)
    rows = {bands: _backend.cost(shape, types.SimpleNamespace(bands=bands, n_resamples=10, pairs=())).units
            for bands in _api.BAND_METHODS}
    assert rows == {"studentized": 8000, "studentized_unwidened": 8000, "expanded": 4000}
