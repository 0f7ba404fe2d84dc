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
    assert "boolean mask" not in err and "filter the file before the command" in err
    # Python keeps the mask, and no longer speaks of a command
    with pytest.raises(rlstats.errors.OptionError) as caught:
        rlstats.compare(rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=0), "score ~ agent | task",
                        subset="len(task) > 3")
    assert "boolean mask" in str(caught.value) and "command" not in str(caught.value)
