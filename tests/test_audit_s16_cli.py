"""Session 16 audit of the ``rlstats`` command end to end: reproducers of what a new user met."""

import re

import pytest

import rlstats
from rlstats.cli import main
from test_cli import run, write_runs  # main(argv) in-process: (status, stdout); runs.csv of a design


@pytest.fixture
def runs_csv(tmp_path):
    return write_runs(tmp_path, agents=3, tasks=4, seeds=3, effect=1.0)


def test_a_drawn_seed_is_reported_and_repeats_the_run(runs_csv, capsys):
    # Bootstrap's text states no seed: run without --seed, the command must say which seed it drew (stderr,
    # so stdout stays the Python result's print) and --seed with it must give the same numbers.
    path, _ = runs_csv
    argv = ["compare", str(path), "score ~ agent | task", "--method", "bootstrap", "-o", "n_resamples=200",
            "--no-progress"]
    status, first = run(argv)
    err = capsys.readouterr().err
    match = re.search(r"--seed (\d+)", err)
    assert status == 0 and match is not None, err
    status, again = run([*argv, "--seed", match.group(1)])
    assert status == 0 and again == first
    # a seed given is not repeated back, and a method that draws nothing says nothing
    run([*argv, "--seed", "4"])
    assert "--seed" not in capsys.readouterr().err
    run(["compare", str(path), "score ~ agent | task", "--method", "mixed"])
    assert "--seed" not in capsys.readouterr().err


def test_a_score_column_with_text_names_the_values(runs_csv, tmp_path, capsys):
    _, df = runs_csv
    bad = df.astype({"score": object})
    bad.loc[4, "score"], bad.loc[9, "score"] = "diverged", "1,5"  # not "n/a": read_csv reads that as missing
    path = tmp_path / "text.csv"
    bad.to_csv(path, index=False)
    status, out = run(["compare", str(path), "score ~ agent | task"])
    err = capsys.readouterr().err
    assert status == 2 and out == "" and "Traceback" not in err
    # the dtype is pandas' own name for a text column: str from pandas 3, object before
    # (the rows as the file's: data rows and lines, audit s17 left17)
    assert re.search(r"column 'score' has dtype (str|object), with 2 values that are not numbers \(first rows: data "
                     r"rows 5, 10 \(lines 6, 11 of \S+text\.csv\), holding 'diverged', '1,5'\); the response must be "
                     r"numeric: correct or remove those rows", err), err


@pytest.mark.parametrize("content, message", [
    (b"", "empty.csv is empty; give a file with a header line and one row per run"),
    (b"agent,task,seed,score\n", "empty.csv has a header but no rows; give a file with one row per run"),
    (b"\xef\xbb\xbfagent,task,seed,score\n", "empty.csv has a header but no rows; give a file with one row per run"),
])
def test_an_empty_file_says_so(tmp_path, capsys, content, message):
    path = tmp_path / "empty.csv"
    path.write_bytes(content)
    status, out = run(["compare", str(path), "score ~ agent | task"])
    err = capsys.readouterr().err
    assert status == 2 and out == "" and err == f"rlstats: error: {path.parent}/{message}\n"


def test_the_help_examples_of_options_run_as_written(atari, mirror, tmp_path, capsys):
    # Each example of compare's epilog (up to its parenthesis), pasted after a command on Atari 100k.
    import inspect
    import shlex

    from rlstats.cli import _methods_epilog

    path = tmp_path / "atari.csv"
    atari[atari["agent"].isin(["DER", "SPR"]) & (atari["seed"] < 6)].to_csv(path, index=False)
    epilog = " ".join(_methods_epilog().split())
    examples = re.findall(r"(?:e\.g\. |\), )(-.*?) \(", epilog)
    assert len(examples) == 3, epilog
    aggregating = next(m for m in sorted(rlstats.methods.METHODS)  # the help names none: it loads no back end
                       if "normalize" in inspect.signature(rlstats.methods.backend(m)).parameters)
    for example in examples:
        method = ["--method", aggregating] if "normalize" in example else []
        status, text = run(["compare", str(path), "score ~ agent | task", "--seed", "1", "--no-progress",
                            *method, *shlex.split(example)])
        assert status == 0, (example, capsys.readouterr().err)
        assert 'Note: -o "subset=' in text if "subset" in example else text  # as typed (audit s25 cli25)


def test_a_subset_hint_with_not_equal_reads_as_the_help_writes_it(tmp_path, capsys):
    # SB3's DQN has no Acrobot runs (shared/data/logs/sb3_classic): the curves error suggests leaving DQN out.
    # '!=' is safe in double quotes (bash expands '!' only before a word), as compare's help itself writes it.
    curves = rlstats.datasets.simulate_curves(agents=3, tasks=2, seeds=3, steps=4, rng=0)
    curves = curves[~((curves["agent"] == "agent_3") & (curves["task"] == "task_01"))]
    path = tmp_path / "curves.csv"
    curves.to_csv(path, index=False)
    status, _ = run(["compare", str(path), "score ~ agent | task/seed", "--method", "curves", "-o", "step=step"])
    err = capsys.readouterr().err
    assert status == 2 and "(-o \"subset=agent != 'agent_3'\" leaves that agent out)" in err, err


@pytest.mark.parametrize("command", [["read-logs"], ["power"], ["adastop"]])
def test_subcommand_help_is_plain_text(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([*command, "--help"])
    help_text = capsys.readouterr().out
    description = help_text.split("\n\n")[1]  # after the usage block
    assert stop.value.code == 0 and "``" not in help_text and description.startswith(f"rlstats {command[0]} ")


def test_python_calls_in_an_error_stay_python(tmp_path, capsys):
    # read-logs writes one row per evaluation; comparing them as final scores is refused with advice that
    # names Python calls: those must stay valid Python, not take -o inside their parentheses.
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=3, rng=0)
    path = tmp_path / "curves.csv"
    curves.to_csv(path, index=False)
    status, out = run(["compare", str(path), "score ~ agent | task"])
    err = capsys.readouterr().err
    assert status == 2 and out == "" and "rows look like learning curves" in err
    # (s17 left17: the command now gives its own way on, not Python calls: "--method curves, -o step=step")
    assert "'score ~ agent | task/seed' and --method curves, -o step=step" in err, err
    assert not re.search(r"\([^()]*-o [^()]*\)", err), err


def test_the_demo_headers_are_the_calls_it_made(tmp_path, monkeypatch):
    from rlstats.format import wrap_prose
    from rlstats.tables import read_csv

    every = rlstats.cli.demo_runs
    monkeypatch.setattr(rlstats.cli, "demo_runs", lambda data, curves: {
        k: v for k, v in every(data, curves).items() if k == "equivalence"})
    status, text = run(["demo", "--out", str(tmp_path / "demo"), "--seed", "2"])
    calls = re.findall(r"^===== \w+: (compare\(.*\)) =====$", text.replace("\n  ", " "), flags=re.M)  # unwrapped
    assert status == 0 and len(calls) == 1, text
    data = read_csv(tmp_path / "demo" / "demo_data.csv")
    for call in calls:  # each header, run as Python, prints what the demo printed under it
        result = eval(call, {"compare": rlstats.compare, "data": data, "learning_curves": None})
        assert "rng=2" in call and wrap_prose(str(result)) in text, call


def test_an_unknown_response_name_on_the_command_line_names_the_columns(runs_csv, capsys):
    path, _ = runs_csv
    status, _ = run(["compare", str(path), "r ~ agent | task"])
    err = capsys.readouterr().err
    assert status == 2 and ("unknown name 'r' in response; names here must be data columns; the data columns are: "
                            "'agent', 'task', 'seed', 'score'") in err, err
    # Python keeps its wider words: a name defined in the caller's code is a response there
    with pytest.raises(rlstats.errors.FormulaError, match="data columns or names defined where the formula is"):
        rlstats.compare(rlstats.tables.read_csv(path), "r ~ agent | task")


def test_power_reports_a_drawn_seed(capsys):
    argv = ["power", "skillings_mack", "--seeds", "3", "--n-sim", "20", "--tasks", "4", "--no-progress"]
    status, first = run(argv)
    match = re.search(r"--seed (\d+)", capsys.readouterr().err)
    assert status == 0 and match is not None
    assert run([*argv, "--seed", match.group(1)]) == (0, first)
