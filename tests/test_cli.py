"""The rlstats command: compare on files, demo, and errors without tracebacks."""

import io
import json
import subprocess
import sys

import pytest

import rlstats
from rlstats.cli import main
from rlstats.tables import read_csv


@pytest.fixture
def runs_csv(tmp_path):
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=1, effect=2.0, rng=0)
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    return path, df


def run(argv):
    out = io.StringIO()
    status = main(argv, out=out)
    return status, out.getvalue()


def test_compare_text_matches_the_python_result(runs_csv):
    path, df = runs_csv
    # Three agents on six tasks: the default p-value is Monte Carlo, so both sides name the seed.
    status, text = run(["compare", str(path), "score ~ agent | task", "--seed", "3"])
    assert status == 0
    expected = rlstats.compare(read_csv(path), "score ~ agent | task", rng=3)
    assert text == str(expected) and "seed 3" in text


@pytest.mark.parametrize("fmt, marker", [("markdown", "| agent"), ("latex", r"\toprule"),
                                         ("summary", "Pairwise comparisons")])
def test_compare_formats(runs_csv, fmt, marker):
    path, _ = runs_csv
    status, text = run(["compare", str(path), "score ~ agent | task", "--format", fmt])
    assert status == 0 and marker in text


def test_compare_json_and_options(runs_csv):
    path, _ = runs_csv
    status, text = run(["compare", str(path), "score ~ agent | task", "--format", "json", "--seed", "3",
                        "-o", "pvalue=monte_carlo", "-o", "n_resamples=500"])
    data = json.loads(text)
    assert status == 0 and data["seed"] == 3 and data["n_resamples"] == 500 and data["pvalue_method"] == "monte_carlo"


def test_compare_tsv_and_parquet(tmp_path, runs_csv):
    _, df = runs_csv
    tsv = tmp_path / "runs.tsv"
    df.to_csv(tsv, sep="\t", index=False)
    assert run(["compare", str(tsv), "score ~ agent | task"])[0] == 0
    pytest.importorskip("pyarrow")
    parquet = tmp_path / "runs.parquet"
    df.to_parquet(parquet)
    assert run(["compare", str(parquet), "score ~ agent | task"])[0] == 0


def test_plot_is_written(runs_csv, tmp_path):
    path, _ = runs_csv
    figure = tmp_path / "cd.png"
    status, _ = run(["compare", str(path), "score ~ agent | task", "--plot", str(figure)])
    assert status == 0 and figure.stat().st_size > 1000


@pytest.mark.parametrize("argv, message", [
    (["compare", "missing.csv", "score ~ agent | task"], "file not found"),
    (["compare", "{csv}", "score ~ agnet | task"], "did you mean 'agent'"),
    (["compare", "{csv}", "score ~ agent | task", "--method", "nope"], "method='nope'"),
    (["compare", "{csv}", "score ~ agent | task", "-o", "pvalue=magic"], "pvalue='magic'"),
    (["compare", "{csv}", "score ~ agent | task", "-o", "colour=1"], "method='skillings_mack' has no option 'colour'; its options are: variant"),
    (["compare", "{csv}", "score ~ agent | task", "-o", "novalue"], "NAME=VALUE"),
])
def test_bad_input_exits_2_with_one_message(runs_csv, capsys, argv, message):
    path, _ = runs_csv
    argv = [a.replace("{csv}", str(path)) for a in argv]
    status, _ = run(argv)
    err = capsys.readouterr().err
    assert status == 2 and message in err and "Traceback" not in err


def test_demo_runs_every_backend_and_writes_figures(tmp_path):
    status, text = run(["demo", "--out", str(tmp_path / "demo")])
    assert status == 0
    assert "skillings_mack" in text and (tmp_path / "demo" / "skillings_mack.png").is_file()
    assert (tmp_path / "demo" / "demo_data.csv").is_file()
    assert "Learning curves" in text and (tmp_path / "demo" / "curves.png").is_file()


def test_python_dash_m_works_the_same(runs_csv):
    path, _ = runs_csv
    proc = subprocess.run([sys.executable, "-m", "rlstats", "compare", str(path), "score ~ agnet | task"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "did you mean" in proc.stderr and "Traceback" not in proc.stderr
