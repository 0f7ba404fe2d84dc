"""Audit s21 (cli21): the ``rlstats`` command as a new user meets it, from the README and --help."""

import io

import pytest

import rlstats
from rlstats.cli import main


def run(argv):
    """(status, stdout) of ``rlstats ARGV``; stderr is read by capsys in the tests."""
    out = io.StringIO()
    status = main(argv, out=out)
    return status, out.getvalue()


@pytest.fixture
def runs_csv(tmp_path):
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, effect=1.0, rng=0)
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    return path, df


@pytest.mark.parametrize("methods", ["", ",", " , "])
def test_power_with_no_method_is_a_usage_error(capsys, methods):
    status, text = run(["power", methods, "--n-sim", "10", "--seeds", "3", "--seed", "0"])
    err = capsys.readouterr().err
    assert status == 2 and text == "" and "Traceback" not in err
    assert err.startswith("rlstats: error: METHOD is empty") and "skillings_mack" in err


def test_power_method_errors_speak_of_the_argument(capsys):
    assert run(["power", "skillings_mack,foo", "--n-sim", "10", "--seeds", "3", "--seed", "0"])[0] == 2
    err = capsys.readouterr().err
    assert "method='foo'" not in err and "METHOD 'foo' is not one of" in err
    assert run(["power", "skillings_mack,,bootstrap", "--n-sim", "10", "--seeds", "3", "--seed", "0"])[0] == 2
    err = capsys.readouterr().err
    assert "item 2 is empty" in err


def test_subset_refusal_gives_the_command_line_way_on(runs_csv, capsys):
    path, _ = runs_csv
    status, text = run(["compare", str(path), "score ~ agent | task", "-o", "subset=len(task) > 3"])
    err = capsys.readouterr().err
    assert status == 2 and text == ""
    assert "pass it as -o subset=" not in err  # the command cannot take a mask: in Python it is one
    assert ("for anything else filter the file before the command, or use Python, where a boolean mask works "
            "too (a condition") in err
    # Python keeps the mask, and no longer speaks of a command
    with pytest.raises(rlstats.errors.OptionError) as caught:
        rlstats.compare(rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=0), "score ~ agent | task",
                        subset="len(task) > 3")
    assert "boolean mask" in str(caught.value) and "command" not in str(caught.value)


def test_normalize_takes_a_file_of_reference_scores(tmp_path, capsys):
    import pandas as pd

    runs = pd.DataFrame({"agent": ["A"] * 4 + ["B"] * 4, "task": ["Pong", "Pong", "Alien", "Alien"] * 2,
                         "seed": [0, 1] * 4, "score": [1.0, 3.0, 100.0, 300.0, 2.0, 4.0, 200.0, 400.0]})
    runs.to_csv(tmp_path / "runs.csv", index=False)
    reference = pd.DataFrame({"task": ["Pong", "Alien"], "random": [0.0, 0.0], "human": [10.0, 1000.0]})
    reference.to_csv(tmp_path / "reference.csv", index=False)
    reference.rename(columns={"random": "lo", "human": "hi"}).to_csv(tmp_path / "bounds.csv", index=False)
    argv = ["compare", str(tmp_path / "runs.csv"), "score ~ agent | task", "--method", "task_table", "--seed", "0",
            "--format", "csv", "-o", "statistic=mean"]
    status, text = run([*argv, "-o", f"normalize={tmp_path / 'reference.csv'}"])
    err = capsys.readouterr().err
    assert status == 0, err
    table = pd.read_csv(io.StringIO(text)).set_index(["task", "agent"])["estimate"]
    # Pong: (1 + 3) / 2 / 10 = 0.2 and 0.3; Alien: 200 / 1000 = 0.2 and 300 / 1000 = 0.3
    assert table.to_dict() == pytest.approx({("Alien", "A"): 0.2, ("Alien", "B"): 0.3, ("Pong", "A"): 0.2,
                                             ("Pong", "B"): 0.3})
    assert f"from {tmp_path / 'reference.csv'}" in err  # the note names the file the bounds came from
    # other column names through the dict form, the file named by its path
    status, text = run([*argv, "-o", f"normalize={{'reference': '{tmp_path / 'bounds.csv'}', 'low': 'lo', "
                                     "'high': 'hi'}"])
    assert status == 0 and pd.read_csv(io.StringIO(text))["estimate"].tolist() == pytest.approx(table.tolist())
    capsys.readouterr()
    # a missing file, and a name that is neither: errors in the command's terms
    assert run([*argv, "-o", "normalize=nosuch.csv"])[0] == 2
    assert capsys.readouterr().err == "rlstats: error: -o normalize=nosuch.csv: file not found: nosuch.csv\n"
    assert run([*argv, "-o", "normalize=nosuch"])[0] == 2
    err = capsys.readouterr().err
    assert "DataFrame" not in err and "a CSV, TSV or Parquet file" in err


def test_a_folder_of_logs_named_otherwise_points_at_format(tmp_path, capsys):
    import json

    import pandas as pd

    runs = {"env_1": {"task_1": {"algo_1": {"0": {
        "STEP_1": {"step_count": 10, "return": [1.0, 2.0]}, "STEP_2": {"step_count": 20, "return": [3.0, 5.0]},
        "absolute_metrics": {"return": [4.0]}}}}}}
    folder = tmp_path / "logs"
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "mock_data_test.json").write_text(json.dumps(runs))
    (folder / "README").write_text("notes")
    status, text = run(["read-logs", str(folder), "-o", "-"])
    err = capsys.readouterr().err
    assert status == 2 and text == ""
    assert err.startswith(f"rlstats: error: no training logs under {folder} (looked for ")
    assert ("its 2 files (first: 'README', 'tests/mock_data_test.json') have none of those names: if they are logs, "
            "pass --format (one of tensorboard, ") in err
    status, text = run(["read-logs", str(folder), "--format", "marl_eval", "-o", "-"])
    assert status == 0
    read = pd.read_csv(io.StringIO(text))
    assert read["return"].tolist() == [1.5, 4.0] and read["step"].tolist() == [10, 20]


def test_a_whole_float_above_the_resamples_bound_names_the_bound(runs_csv, capsys):
    path, df = runs_csv
    status, _ = run(["compare", str(path), "score ~ agent | task", "--method", "bootstrap", "-o", "n_resamples=1e8"])
    err = capsys.readouterr().err
    assert status == 2 and "pass -o n_resamples=100000000" not in err
    # echoed as typed since audit s31 rfix31e (100000000.0 before)
    assert err.startswith("rlstats: error: -o n_resamples=1e8 is more than 10,000,000 resamples, the most "
                          "rlstats takes")
    # below the bound the hint stays, and is taken
    assert run(["compare", str(path), "score ~ agent | task", "--method", "bootstrap", "-o", "n_resamples=1e3"])[0] == 2
    assert "pass -o n_resamples=1000" in capsys.readouterr().err


def test_a_bounds_advice_names_the_flag(tmp_path, capsys):
    import pandas as pd

    batch = tmp_path / "batch.csv"
    pd.DataFrame({"agent": ["A"] * 5 + ["B"] * 5, "score": [float(i) for i in range(10)]}).to_csv(batch, index=False)
    state = str(tmp_path / "state.json")
    assert run(["adastop", "update", state, str(batch), "--n-resamples", "100000000000"])[0] == 2
    err = capsys.readouterr().err
    assert "pass a smaller --n-resamples (the default is 10,000)" in err
    assert run(["adastop", "update", state, str(batch), "--K", "100000"])[0] == 2
    assert "pass a smaller --K (the paper's designs use at most 10)" in capsys.readouterr().err
    # an option set with -o is named as -o sets it
    from rlstats.cli._shared import in_command_words

    assert in_command_words("each is kept in memory; pass a smaller draws", {}, {"draws"}) == \
        "each is kept in memory; pass a smaller -o draws="


def test_normalize_dict_with_an_unknown_key_is_an_option_error(runs_csv, capsys):
    path, df = runs_csv
    with pytest.raises(rlstats.errors.OptionError, match=r"normalize= as a dict takes the keys 'reference', 'low', "
                                                         r"'high' and 'check_units'; got 'lo' \(did you mean 'low'\?\)"):
        rlstats.bootstrap(df, "score ~ agent | task", normalize={"reference": "minmax", "lo": 1}, rng=0,
                          n_resamples=100)
    with pytest.raises(rlstats.errors.OptionError, match="got 'by'"):
        rlstats.task_table(df, "score ~ agent | task", normalize={"reference": "minmax", "by": "task"})
    status, _ = run(["compare", str(path), "score ~ agent | task", "--method", "bootstrap", "--seed", "0",
                     "-o", "normalize={'reference': 'minmax', 'lo': 'x'}"])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err and "-o normalize= as a dict takes the keys" in err


@pytest.mark.parametrize("pairs", [[1, 2], (1,), [(["agent_1"], "agent_2")]])
def test_pairs_that_are_no_pairs_are_an_option_error(runs_csv, pairs, capsys):
    """audit s21: -o pairs=[1,2] (pairs that are no pairs) ended in a TypeError of len(), a traceback on the
    command line."""
    path, df = runs_csv
    # a list where a name goes: since audit s30 (opts30) the one rule for names says what a name is
    with pytest.raises(rlstats.errors.OptionError, match="pairs must be" if not isinstance(pairs[0], tuple)
                       else r"pairs= names an agent as it appears in the data, .*got list \['agent_1'\]"):
        rlstats.probability_of_improvement(df, "score ~ agent | task", pairs=pairs, rng=0)
    status, _ = run(["compare", str(path), "score ~ agent | task", "--method", "probability_of_improvement",
                     "--seed", "0", "-o", f"pairs={pairs!r}"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("rlstats: error: ") and "Traceback" not in err
