"""Audit s25 cli25: the command line names every option in the spelling its user types.

The results' notes (what was dropped, withheld, and how to change it) were printed as the Python function spells
its keywords: ``na_action="drop"``, ``pass bounds= when ...``, ``pass n_resamples=940,000``, while the command takes
``-o na_action=drop``, ``-o bounds=`` and ``-o n_resamples=940000`` (``-o n_resamples=940,000`` is a tuple).
"""

from __future__ import annotations

import argparse
import json
import re

import pytest

import rlstats
from conftest import cli_shell

#: a flag a message names (--seed, --summarize-option), and an -o item (-o bounds=, -o "subset=...")
_FLAG = re.compile(r"(?<![\w-])(--[A-Za-z][A-Za-z-]*)")
_ITEM = re.compile(r"""(?<![\w-])-o ("[^"]*"|'[^']*'|[^\s;)]+)""")


def _subparser(*path):
    from rlstats.cli import build_parser

    parser = build_parser()
    for name in path:
        parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
    return parser


def _parses(parser, argv):
    """Whether ``parser`` takes ``argv`` (argparse exits on a bad one)."""
    import contextlib
    import io

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            parser.parse_args(argv)
    except SystemExit:
        return False
    return True


def assert_accepted(text, *command):
    """Every flag and -o item ``text`` names is one that ``rlstats COMMAND`` takes: the flag parses on its parser with
    the word after it as its value (or, where that word is prose, "another --seed moves ...", with a number), a flag
    taking no value alone; an -o item parses (parse_option) to a keyword of the functions the command calls."""
    from rlstats.cli._shared import parse_option

    parser = _subparser(*command)
    base = _DUMMY[command]
    flags = set(_FLAG.findall(text))
    for flag in flags:
        assert flag in parser._option_string_actions, (flag, text)
        if parser._option_string_actions[flag].nargs == 0:
            assert _parses(parser, base + [flag]), (flag, text)
            continue
        words = re.findall(re.escape(flag) + r" (\S+)", text)
        for word in words or ["1"]:  # a word of prose after a flag taking a number: the flag with one
            word = word.rstrip(".,;:)")
            prose = re.fullmatch(r"[a-z]+", word) is not None
            assert _parses(parser, base + [flag, word]) or prose and _parses(parser, base + [flag, "1"]), (flag, text)
    if parser.get_default("hints") is None:  # no -o NAME=VALUE (read-logs' -o is its output file)
        return flags
    for item in _ITEM.findall(text):
        item = item if item[0] in "\"'" else item.rstrip(".,:")
        name, value = parse_option(item.strip("\"'"))
        assert _parses(parser, base + ["-o", item.strip("\"'")]), (item, text)
        assert name in parser.get_default("hints")(parser.parse_args(base))[1], (name, text)
        assert not isinstance(value, tuple), (item, text)  # 940,000 typed as one number
    return flags


#: arguments that parse for each command, to ask its hints for its -o names
_DUMMY = {("compare",): ["f.csv", "score ~ agent | task"], ("power",): ["skillings_mack"],
          ("adastop", "update"): ["state.json", "batch.csv"], ("read-logs",): ["logs", "-o", "out.csv"]}


@pytest.fixture(scope="module")
def gappy_csv(tmp_path_factory):
    """3 agents x 4 tasks x 4 runs with one agent missing on one task: na_action='drop' leaves that task out."""
    data = rlstats.datasets.simulate(agents=3, tasks=4, seeds=4, rng=0)
    data = data[~((data["agent"] == data["agent"].iloc[0]) & (data["task"] == data["task"].iloc[0]))]
    path = tmp_path_factory.mktemp("cli25") / "runs.csv"
    data.to_csv(path, index=False)
    return path, data


ARGS = ("score ~ agent | task", "--method", "percentiles", "--seed", "0", "-o", "na_action=drop",
        "-o", "n_resamples=200", "--no-progress")


def test_compare_notes_in_the_command_spelling(gappy_csv):
    """The notes of compare's text, summary, Markdown and CSV (on stderr) name -o and the flags; the numbers are the
    Python route's; every flag and -o item named is one compare takes."""
    path, data = gappy_csv
    python = rlstats.compare(data, "score ~ agent | task", method="percentiles", rng=0, na_action="drop",
                             n_resamples=200, progress=False)
    assert any('na_action="drop"' in note for note in python.notes)  # the Python API's text is unchanged
    assert any("pass bounds= when" in note for note in python.notes)
    for output in ("summary", "markdown"):  # text: below, the whole of it
        shown = cli_shell("compare", str(path), *ARGS, "--format", output)
        assert shown.returncode == 0, shown.stderr
        text = shown.stdout.replace("\\_", "_")  # Markdown escapes underscores
        assert "-o na_action=drop" in text and 'na_action="drop"' not in text, output
        assert "pass -o bounds= when" in text and "pass bounds=" not in text, output
        assert_accepted(text, "compare")
    # the text is the Python result's, but for its notes' spelling: the same numbers, the same notes
    from rlstats.cli import _compare_hints
    from rlstats.cli._shared import as_shown, render

    hints = _compare_hints(_subparser("compare").parse_args(_DUMMY[("compare",)]))
    assert cli_shell("compare", str(path), *ARGS).stdout == render(as_shown(python, "text", hints), "text")
    assert render(as_shown(python, "text", hints), "text") != str(python)
    shown = cli_shell("compare", str(path), *ARGS, "--format", "csv")
    assert "-o na_action=drop" in shown.stderr and "pass -o bounds=" in shown.stderr
    assert 'na_action="drop"' not in shown.stderr


def test_json_output_keeps_the_python_record(gappy_csv):
    """--format json is the result's record: its notes as the Python API writes them, unchanged."""
    path, data = gappy_csv
    python = rlstats.compare(data, "score ~ agent | task", method="percentiles", rng=0, na_action="drop",
                             n_resamples=200, progress=False)
    shown = cli_shell("compare", str(path), *ARGS, "--format", "json")
    assert json.loads(shown.stdout)["notes"] == list(python.notes)


def test_column_and_formula_named_as_options_are_left(tmp_path):
    """A response column named as an option (bounds, alpha) and the formula text are not taken for hints: the data
    line is as written, and only the note's keyword (pass bounds=) becomes -o bounds=."""
    data = rlstats.datasets.simulate(agents=2, tasks=2, seeds=4, rng=1).rename(
        columns={"score": "bounds", "agent": "alpha"})
    path = tmp_path / "named.csv"
    data.to_csv(path, index=False)
    shown = cli_shell("compare", str(path), "bounds ~ alpha | task", "--method", "percentiles", "--seed", "0",
                      "-o", "n_resamples=200", "-o", "subset=bounds > -1000", "--no-progress")
    assert shown.returncode == 0, shown.stderr
    assert "data:  bounds and alpha and task" in shown.stdout
    assert 'pass -o bounds= when' in shown.stdout
    assert '-o "subset=bounds > -1000" kept 16 of 16 rows' in shown.stdout
    assert_accepted(shown.stdout, "compare")


def test_in_command_words_numbers_and_prose():
    """A count with thousands separators is one number as -o reads it; formula text, bare names and numbers are
    left as they are."""
    from rlstats.cli._shared import in_command_notes, in_command_words, parse_option

    flags, options = {"n_resamples": "--n-resamples", "rng": "--seed"}, {"bounds", "alpha"}
    assert in_command_words("pass n_resamples=940,000 to make it", flags, ()) == "pass --n-resamples 940000 to make it"
    said = in_command_words("pass bounds=1,500 (or alpha=0.05, 2,3)", {}, options)
    assert said == "pass -o bounds=1500 (or -o alpha=0.05, 2,3)"
    assert parse_option("bounds=1500") == ("bounds", 1500)
    for prose in ("score ~ agent | task", "alpha ~ bounds | task", "n = 5 runs, alpha = 0.05", "1 / sqrt(n_resamples)",
                  "another rng could", "bounds == 3"):
        assert in_command_words(prose, flags, options) == prose

    class Fake:
        notes = ()
    assert in_command_notes(Fake(), (flags, options)).notes == ()  # nothing to say: the same object


def test_flag_tables_read_off_the_parsers():
    """Each command's table of keyword -> flag is its parser's: every flag in it parses, and its keyword is one the
    function the command calls takes."""
    import inspect

    from rlstats.cli._shared import flag_table, keyword_names
    from rlstats.comparison import compare
    from rlstats.methods.adastop import AdaStop
    from rlstats.planning import power, sample_size
    from rlstats.runs import summarize_runs

    def takes(*functions):
        return {name for f in functions for name in inspect.signature(f).parameters}

    cases = {("compare",): (None, keyword_names(compare)), ("power",): (None, keyword_names(power, sample_size)),
             ("adastop", "update"): (None, takes(AdaStop, AdaStop.update)), ("demo",): (None, {"rng"})}
    tables = {}
    for command, (scope, keywords) in cases.items():
        parser = _subparser(*command)
        tables[command] = table = flag_table(parser, scope)
        assert set(table) <= keywords, (command, set(table) - keywords)
        assert {flag.split()[0] for flag in table.values()} <= set(parser._option_string_actions)
    summary = flag_table(_subparser("compare"), "summary")
    assert set(summary) <= takes(summarize_runs) and summary["k"] == "--summarize-option k="
    assert tables[("compare",)] == {"method": "--method", "rng": "--seed", "eval_env": "--allow-python",
                                    "max_seconds": "--max-seconds", "progress": "--no-progress"}
    assert tables[("power",)]["n_jobs"] == "--jobs" and tables[("power",)]["design"] == "--pilot"
    assert tables[("adastop", "update")]["n_resamples"] == "--n-resamples"


def test_adastop_update_notes_name_its_flags():
    """adastop update prints the result's notes with its flags (--n-resamples 940000), the Python result keeps
    n_resamples=940,000."""
    import dataclasses

    from rlstats.cli._shared import in_command_notes

    update = _subparser("adastop", "update")
    args = update.parse_args(["s.json", "b.csv"])
    result = rlstats.AdaStop(["a", "b"], n=3, K=2, rng=0)
    result.update({"a": [1.0, 2.0, 3.0], "b": [1.5, 2.5, 3.5]})
    res = result.result()
    res = dataclasses.replace(res, notes=res.notes + ("pass n_resamples=940,000 to make the margin exceed 2 SE",))
    shown = in_command_notes(res, (args.flags, ()))
    assert shown.notes[-1] == "pass --n-resamples 940000 to make the margin exceed 2 SE"
    assert res.notes[-1].startswith("pass n_resamples=940,000")
    assert_accepted(shown.notes[-1], "adastop", "update")


def test_power_notes_name_its_options():
    """power's notes: a method's keyword as -o, power()'s own as its flag; a Python structure is left as written."""
    from rlstats.cli._shared import in_command_words
    from rlstats.cli.power import _power_hints

    parser = _subparser("power")
    args = parser.parse_args(["bootstrap"])
    note = ("unless bootstrap={'interval': ...} names another; interval='percentile' is the thesis's rule; "
            "power() runs it on the scores as they are (heterogeneity=0 simulates tasks alike)")
    said = in_command_words(note, *_power_hints(args))
    assert said == ("unless bootstrap={'interval': ...} names another; -o interval=percentile is the thesis's rule; "
                    "power() runs it on the scores as they are (--heterogeneity 0 simulates tasks alike)")
    assert assert_accepted(said, "power") == {"--heterogeneity"}


def test_the_check_of_named_flags_refuses():
    """assert_accepted fails on a flag the command does not take, a value it refuses and a count -o reads as a tuple."""
    for text, command in (("pass --nosuch 3", ("compare",)), ("use --format yaml", ("compare",)),
                          ("pass -o n_resamples=940,000", ("compare",)), ("pass --jobs 1,000,000", ("read-logs",)),
                          ("pass --K 2.5", ("adastop", "update"))):
        with pytest.raises(AssertionError):
            assert_accepted(text, *command)
    assert assert_accepted("pass --jobs 1000000, or --no-progress", "read-logs") == {"--jobs", "--no-progress"}
    assert assert_accepted("another --seed moves it", "adastop", "update") == {"--seed"}


def test_said_once_stays_said():
    """A note already in the command's spelling (compare --summarize's, spelled where the summary is made) is not
    spelled again when the result prints: '-o na_action=drop', not '-o -o na_action=drop'."""
    from rlstats.cli._shared import in_command_words

    _subparser("compare")  # the flags that take no value are known once a parser is built, as main() builds it
    flags = {"k": "--summarize-option k=", "rng": "--seed", "progress": "--no-progress"}
    for message in ('pass k=10 or steps=[1, 2] (na_action="drop"); another rng=', "progress=False keeps it quiet"):
        once = in_command_words(message, flags, {"na_action", "steps"})
        assert in_command_words(once, flags, {"na_action", "steps"}) == once
    assert in_command_words("progress=False keeps it quiet", flags, ()) == "--no-progress keeps it quiet"


def test_summarize_notes_said_once(tmp_path):
    """compare --summarize: the summary's note is spelled for the command where the summary is made, and not again
    when the result prints; the statistic is the Python route's."""
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=5, rng=0)
    curves.loc[0, "score"] = float("nan")
    path = tmp_path / "curves.csv"
    curves.to_csv(path, index=False)
    shown = cli_shell("compare", str(path), "score ~ agent | task/seed", "--summarize", "last_k_mean",
                      "--summarize-option", "k=3", "-o", "na_action=drop", "--seed", "0", "--no-progress")
    assert shown.returncode == 0, shown.stderr
    assert "1 of 60 rows dropped (-o na_action=drop)" in shown.stdout and "-o -o" not in shown.stdout
    python = rlstats.compare(rlstats.summarize_runs(curves, "score ~ agent | task/seed", how="last_k_mean", k=3, step="step",
                                                    na_action="drop"), "score ~ agent | task/seed", rng=0)
    assert f"= {python.statistic:.5g}" in shown.stdout
    assert_accepted(shown.stdout, "compare")


@pytest.fixture
def step_folder(tmp_path):
    """SB3 progress.csv logs of 2 agents x 2 seeds, 5 steps each, under folders named 'step=5'."""
    for agent in ("ppo", "dqn"):
        for seed in range(2):
            folder = tmp_path / "logs" / agent / "step=5" / f"seed_{seed}"
            folder.mkdir(parents=True)
            (folder / "progress.csv").write_text("step,eval_return\n" + "".join(
                f"{10 * i},{i + seed}\n" for i in range(5)))
    return tmp_path


def test_read_logs_paths_and_counts_as_written(step_folder):
    """read-logs names its flags from its parser; a path's folder named step=5 is left as written (main said
    'dqn/--step 5/seed_0/progress.csv'), and a count is one number --smooth takes (main said '--smooth 1,000')."""
    out = step_folder / "out.csv"
    shown = cli_shell("read-logs", str(step_folder / "logs"), "--pattern", "{agent}/{task}/seed_{seed}",
                      "--step", "nope", "--no-progress", "-o", str(out))
    assert shown.returncode == 2
    assert "dqn/step=5/seed_0/progress.csv: unreadable: --step nope names no column" in shown.stderr
    assert "--step 5" not in shown.stderr
    shown = cli_shell("read-logs", str(step_folder / "logs"), "--pattern", "{agent}/step=5/seed_{seed}",
                      "--smooth", "1000", "--no-progress", "-o", str(out))
    assert shown.returncode == 2 and "rlstats: error: --smooth 1000 logged values is at least" in shown.stderr
    assert "e.g. --smooth 1\n" in shown.stderr
    assert_accepted(shown.stderr, "read-logs")


def test_calls_of_the_command_said_as_its_options():
    """A note's call of the function compare runs, the data left out, is said as compare's options; another call, or
    one with an argument the command does not take, stays Python."""
    from rlstats.cli import _compare_hints
    from rlstats.cli._shared import in_command_words

    hints = _compare_hints(_subparser("compare").parse_args(_DUMMY[("compare",)]))
    cases = {"use model='hierarchical' or rlstats.equivalence(..., across='paired_t')":
             "use -o model=hierarchical or --method equivalence -o across=paired_t",
             "rlstats.compare(..., method='equivalence', subset=...) keeps it":
             "--method equivalence -o subset=... keeps it",
             "use rlstats.equivalence(...), whose test": "use --method equivalence, whose test",
             "rlstats.mixed(..., confidence_level=0.9)": "--method mixed -o confidence_level=0.9"}
    for note, said in cases.items():
        assert in_command_words(note, *hints) == said
        assert_accepted(said, "compare")
    for python in ("rlstats.tuning(..., views=['a', ...])", "rlstats.curves(df, ..., step='step')",
                   "rlstats.bootstrap(..., nosuch=3)", "rlstats.compare(...)", "rlstats.read_logs(..., tags='x')"):
        assert in_command_words(python, *hints) == python
