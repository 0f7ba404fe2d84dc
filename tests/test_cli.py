"""The rlstats command: compare on files, demo, and errors without tracebacks."""

import io
import json
import subprocess
import sys

import pandas as pd
import pytest
from conftest import caught

import rlstats
from rlstats.cli import main
from rlstats.tables import read_csv


def write_runs(tmp_path, **design):
    """(path, frame): simulated runs of ``design`` (rlstats.datasets.simulate's options) written as runs.csv."""
    df = rlstats.datasets.simulate(rng=0, **design)
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    return path, df


@pytest.fixture
def runs_csv(tmp_path):
    return write_runs(tmp_path, agents=3, tasks=6, seeds=1, effect=2.0)


def run(argv):
    out = io.StringIO()
    status = main(argv, out=out)
    return status, out.getvalue()


def test_compare_text_matches_the_python_result(runs_csv):
    path, df = runs_csv
    # Three agents on six tasks: a Monte Carlo p-value (the default's exact null since audit s31 trialfix31, 46,656
    # arrangements enumerated), so both sides name the seed.
    status, text = run(["compare", str(path), "score ~ agent | task", "--seed", "3", "-o", "pvalue=monte_carlo"])
    assert status == 0
    expected = rlstats.compare(read_csv(path), "score ~ agent | task", rng=3, pvalue="monte_carlo")
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
    (["compare", "{csv}", "score ~ agent | task", "--method", "nope"], "--method nope is not one of"),
    (["compare", "{csv}", "score ~ agent | task", "-o", "pvalue=magic"], "-o pvalue=magic is not one of"),
    (["compare", "{csv}", "score ~ agent | task", "-o", "colour=1"], "--method skillings_mack has no option 'colour'; its options are: variant"),
    (["compare", "{csv}", "score ~ agent | task", "-o", "novalue"], "NAME=VALUE"),
])
def test_bad_input_exits_2_with_one_message(runs_csv, capsys, argv, message):
    path, _ = runs_csv
    argv = [a.replace("{csv}", str(path)) for a in argv]
    status, _ = run(argv)
    err = capsys.readouterr().err
    assert status == 2 and message in err and "Traceback" not in err


def _quiet_demo(tmp_path):
    # Quiet (issue 42 item 7): no warning about its own simulated data (every warning is recorded, none
    # filtered), and no line a terminal must scroll: the AdaStop report alone was one line of 11,554 characters.
    (status, text), said = caught(lambda: run(["demo", "--out", str(tmp_path / "demo")]))
    assert said == []
    assert max(map(len, text.splitlines())) <= 200
    assert status == 0
    assert (tmp_path / "demo" / "demo_data.csv").is_file()
    return text


@pytest.mark.slow  # 13-27 s of CPU; CI's first step runs the whole demo, and the reduced sibling below stays
def test_demo_runs_every_backend_and_writes_figures(tmp_path):
    text = _quiet_demo(tmp_path)
    assert "method='bootstrap', normalize='minmax', " in text.replace("\n  ", " ")  # headers wrap
    assert "'score' normalised per task" in text
    assert "skillings_mack" in text and (tmp_path / "demo" / "skillings_mack.png").is_file()
    assert "Learning curves" in text and (tmp_path / "demo" / "curves.png").is_file()
    assert {p.stem for p in (tmp_path / "demo").glob("*.png")} == set(rlstats.cli.demo_runs(
        read_csv(tmp_path / "demo" / "demo_data.csv"), read_csv(tmp_path / "demo" / "demo_curves.csv")))


def test_demo_reduced_to_three_backends_is_quiet(tmp_path, monkeypatch):
    # The same checks on the back ends whose output is longest (AdaStop), normalised (probability of improvement)
    # and read from learning curves, so the default run keeps the demo's loop, its normalisation and its figures.
    every = rlstats.cli.demo_runs

    def three(data, curves):
        return {k: v for k, v in every(data, curves).items() if k in {"adastop", "probability_of_improvement", "curves"}}

    monkeypatch.setattr(rlstats.cli, "demo_runs", three)
    text = _quiet_demo(tmp_path)
    assert "method='probability_of_improvement', normalize='minmax', na_action='drop', rng=0)" in (
        text.replace("\n  ", " "))  # the header is the whole call (wrapped)
    assert "'score' normalised per task" in text and "Learning curves" in text
    assert {p.stem for p in (tmp_path / "demo").glob("*.png")} == {"adastop", "probability_of_improvement", "curves"}


def test_python_dash_m_works_the_same(runs_csv):
    path, _ = runs_csv
    proc = subprocess.run([sys.executable, "-m", "rlstats", "compare", str(path), "score ~ agnet | task"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "did you mean" in proc.stderr and "Traceback" not in proc.stderr


# ----------------------------------------------------------------------------- streams, formats, subset=


def test_dash_reads_the_table_from_standard_input(runs_csv, monkeypatch):
    path, df = runs_csv
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    status, text = run(["compare", "-", "score ~ agent | task", "--seed", "3"])
    assert status == 0 and text == str(rlstats.compare(read_csv(path), "score ~ agent | task", rng=3))


def test_dash_with_nothing_piped_in_says_so(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert run(["compare", "-", "score ~ agent | task"]) == (2, "")
    assert "standard input is empty" in capsys.readouterr().err


def test_csv_format_is_the_tidy_frame(runs_csv):
    path, df = runs_csv
    status, text = run(["compare", str(path), "score ~ agent | task", "--format", "csv", "--seed", "1"])
    expected = rlstats.compare(read_csv(path), "score ~ agent | task", rng=1).tidy()
    pd.testing.assert_frame_equal(read_csv(io.StringIO(text)), expected, check_dtype=False)
    assert status == 0 and len(expected) == 3  # three pairs of three agents


def test_subset_on_the_command_line_uses_the_restricted_grammar(runs_csv):
    path, df = runs_csv
    status, text = run(["compare", str(path), "score ~ agent | task", "-o", "subset=task != 'task_01' & seed < 5"])
    # the note names the option as it was typed (audit s25 cli25: it read subset="..." as Python writes it)
    assert status == 0 and "-o \"subset=task != 'task_01' & seed < 5\" kept 15 of 18 rows" in text
    kept = df[df["task"] != "task_01"]
    assert f"= {rlstats.compare(kept, 'score ~ agent | task').statistic:.5g}" in text


def test_subset_that_would_run_code_runs_nothing(runs_csv, tmp_path, capsys):
    path, _ = runs_csv
    marker = tmp_path / "PWNED"
    payload = f"subset=(@pd.io.common.os.system('touch {marker}') == 0) | (seed >= 0)"
    for method in ("skillings_mack", "bootstrap"):
        assert run(["compare", str(path), "score ~ agent | task", "--method", method, "-o", payload]) == (2, "")
        assert "does not parse" in capsys.readouterr().err and not marker.exists()


def test_allow_python_opens_the_response_but_never_subset(runs_csv, capsys):
    path, _ = runs_csv
    status, text = run(["compare", str(path), "np.log1p(score) ~ agent | task", "--allow-python",
                        "-o", "subset=seed < 5"])
    assert status == 0 and "kept 18 of 18 rows" in text
    assert run(["compare", str(path), "score ~ agent | task", "--allow-python",
                "-o", "subset=seed.between(0, 4)"]) == (2, "")
    assert "it uses calls, which a condition cannot" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["-o", "method=bootstrap"], "-o method=... cannot be set as an option; give it with --method"),
    (["-o", "formula=x"], "give it with the FORMULA argument"),
    (["-o", "data=x"], "give it with the FILE argument"),
    (["-o", "eval_env=1"], "give it with --allow-python"),
    (["-o", "rng=1"], "give it with --seed"),
    (["-o", "n_resamples=10", "-o", "n_resamples=20"], "-o n_resamples is given twice"),
    (["--method", "curves"], "method 'curves' needs -o step=, the column of training steps"),
    (["--method", "bootstrap", "-o", "n_resamples=10000000000000"], "is more than 10,000,000 resamples, the most rlstats takes"),
    (["--sep", ""], "--sep '' is not one character"),
    (["--sep", ";;"], "--sep ';;' is not one character"),
    (["--plot", "/proc/x.png"], "cannot write under /proc"),
    (["--plot", "{tmp}/no/such/x.png"], "folder {tmp}/no/such does not exist"),
    (["--plot", "{tmp}"], "is a folder; give a file name inside it"),
    (["--plot", "{csv}"], "is the input"),
    (["--plot", "-"], "would mix the figure with the text on standard output"),
    (["--plot", "{tmp}/x.nope"], "cannot save a figure as 'x.nope'"),
])
def test_misuse_is_one_line_and_nothing_on_stdout(runs_csv, tmp_path, capsys, extra, message):
    path, _ = runs_csv
    extra = [a.replace("{tmp}", str(tmp_path)).replace("{csv}", str(path)) for a in extra]
    message = message.replace("{tmp}", str(tmp_path))
    assert run(["compare", str(path), "score ~ agent | task", *extra]) == (2, "")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rlstats: error: ") and message in err, err


def test_tab_separator_spelled_out(tmp_path, runs_csv):
    _, df = runs_csv
    path = tmp_path / "runs.txt"
    df.to_csv(path, sep="\t", index=False)
    assert run(["compare", str(path), "score ~ agent | task", "--sep", "\\t"])[0] == 0


@pytest.mark.parametrize("make, message", [
    (lambda tmp: tmp.joinpath("file").write_text("x") and tmp / "file", "is a file, not a folder"),
    (lambda tmp: "/proc/rlstats-demo", "cannot write under /proc"),
    (lambda tmp: tmp.joinpath("file").write_text("x") and tmp / "file" / "sub", "cannot create the folder"),
])
def test_demo_out_that_cannot_be_a_folder(tmp_path, capsys, make, message):
    assert run(["demo", "--out", str(make(tmp_path))]) == (2, "")
    assert message in capsys.readouterr().err


def test_a_formula_too_long_to_be_real(runs_csv, capsys):
    path, _ = runs_csv
    assert run(["compare", str(path), "score ~ agent | task" + " " * 96_000]) == (2, "")
    assert "more than the 5,000 a formula may have" in capsys.readouterr().err


def test_a_latin1_byte_deep_in_a_file_is_placed_exactly(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    text = "agent,task,score\n" + "a,t,1\n" * 200_000 + "b,t\u00e9,2\n"  # beyond pandas' first chunk
    path.write_bytes(text.encode("latin-1"))
    assert run(["compare", str(path), "score ~ agent | task"]) == (2, "")
    assert f"(byte b'\\xe9' at position {text.index(chr(0xe9))})" in capsys.readouterr().err


def test_read_logs_smooth_is_passed_through(tmp_path):
    """--smooth N [--smooth-over steps] writes what read_logs(smooth=N, smooth_over=...) returns, and says so."""
    from test_log_formats import SB3_PATTERN, write_monitor

    logs = tmp_path / "logs"
    write_monitor(logs / "a2c" / "CartPole-v1" / "seed_0" / "0.monitor.csv", [1, 2, 3, 10, 20], [14] * 5)
    write_monitor(logs / "ppo" / "CartPole-v1" / "seed_0" / "0.monitor.csv", [5, 7, 9, 11, 13], [10, 20, 30, 5, 5])
    expected = {("2", "episodes"): [1, 1.5, 2.5, 6.5, 15, 5, 6, 8, 10, 12],  # the last 2 episodes, by hand
                # windows (s - 20, s]: a2c ends episodes every 14 steps, so each holds its last 2 (1 at first);
                # ppo ends them at steps 10, 30, 60, 65, 70: 1, 1, 1, 2 and 3 episodes
                ("20", "steps"): [1, 1.5, 2.5, 6.5, 15, 5, 7, 9, 10, 11]}
    for (window, unit), values in expected.items():
        output = tmp_path / f"smooth_{unit}.csv"
        status, text = run(["read-logs", str(logs), "--pattern", SB3_PATTERN, "--smooth", window, "--smooth-over",
                            unit, "--no-progress", "-o", str(output)])
        assert status == 0
        assert f"'r' smoothed: each value is the mean of its run's values logged over the last {window} {unit}" in text
        written = read_csv(output)
        assert written["r"].tolist() == values
        direct = rlstats.read_logs(logs, SB3_PATTERN, progress=False, smooth=int(window), smooth_over=unit)
        pd.testing.assert_frame_equal(written, direct, check_dtype=False)
    status, _ = run(["read-logs", str(logs), "--pattern", SB3_PATTERN, "--smooth", "2", "--no-progress", "-o",
                     str(tmp_path / "default_unit.csv")])
    assert status == 0 and read_csv(tmp_path / "default_unit.csv")["r"].tolist() == expected[("2", "episodes")]
    raw = tmp_path / "raw.csv"
    assert run(["read-logs", str(logs), "--pattern", SB3_PATTERN, "--no-progress", "-o", str(raw)])[0] == 0
    assert read_csv(raw)["r"].tolist() == [1, 2, 3, 10, 20, 5, 7, 9, 11, 13]  # no --smooth: the raw returns


def test_read_logs_help_names_smooth(capsys):
    with pytest.raises(SystemExit):
        main(["read-logs", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--smooth N" in text and "trailing rolling mean over the last N episodes" in text
    assert "--smooth-over {episodes,steps}" in text


@pytest.mark.filterwarnings("always:scores of .* tasks are aggregated")  # pyproject.toml ignores it elsewhere
def test_warnings_give_their_hints_in_the_command_lines_spelling(tmp_path, capsys):
    # the library's warnings name keywords (normalize='atari100k_reference', normalize=False); on the command line
    # those are -o options, as its errors already said (session 9: warnings kept the Python spelling)
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, rng=0)  # tasks on scales of their own
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    status, _ = run(["compare", str(path), "score ~ agent | task", "--method", "mixed"])
    err = capsys.readouterr().err
    assert status == 0
    assert err.startswith("rlstats: warning: scores of 4 tasks are aggregated on their own scales"), err
    assert "-o normalize=atari100k_reference" in err and "pass -o normalize=False" in err, err
    assert "normalize='atari100k_reference'" not in err
