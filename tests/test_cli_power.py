"""``rlstats power METHOD``: power and sample size from the shell."""

import io
import json
import sys

import pytest

import rlstats.cli as cli
from rlstats.planning import power, sample_size
from rlstats.tables import read_csv


def run(*argv):
    out = io.StringIO()
    status = cli.main(["power", *argv], out=out)
    return status, out.getvalue()


def test_simulated_power_matches_the_python_api():
    status, text = run("skillings_mack", "--effect", "0.8", "--seeds", "3,6", "--tasks", "4", "--n-sim", "60",
                       "--seed", "1", "--no-progress", "--format", "json")
    assert status == 0
    printed = json.loads(text)
    direct = power("skillings_mack", effect=0.8, seeds=[3, 6], tasks=4, n_sim=60, rng=1, progress=False)
    assert printed["table"]["data"] == json.loads(direct.to_json())["table"]["data"]


def test_several_methods_options_and_a_plot(tmp_path):
    figure = tmp_path / "power.png"
    status, text = run("skillings_mack,bootstrap", "--effect", "1", "--seeds", "3,6", "--tasks", "3", "--n-sim",
                       "20", "--seed", "0", "--no-progress", "-o", "n_resamples=200", "--plot", str(figure))
    assert status == 0, text
    assert "bootstrap" in text and "skillings_mack" in text and figure.stat().st_size > 0


def test_pilot_file_with_adastop(published):
    status, text = run("adastop", "--pilot", str(published / "halfcheetah_sac_td3.csv"), "--formula",
                       "score ~ agent", "--seeds", "10,20", "--n-sim", "20", "--seed", "3", "--no-progress",
                       "-o", "K=5")
    assert status == 0, text
    assert "resampled" in text and "adastop" in text


def test_target_power_runs_the_sample_size_search():
    status, text = run("skillings_mack", "--effect", "1", "--tasks", "5", "--n-sim", "50", "--seed", "0",
                       "--target-power", "0.8", "--no-progress")
    assert status == 0
    direct = sample_size("skillings_mack", 0.8, effect=1.0, tasks=5, n_sim=50, rng=0, progress=False)
    assert f"Sample size for power 0.8: {direct.sample_size} seeds" in text


def test_jobs_reach_power_as_n_jobs(monkeypatch):
    """--jobs is power()'s n_jobs= (whose results are the same whatever its value: test_power's
    test_identical_with_two_jobs, which starts the workers; starting them here again cost the suite 6 s)."""
    import rlstats.planning as planning

    asked = []
    real = planning.power

    def recording(*args, **kwargs):
        asked.append(kwargs["n_jobs"])
        return real(*args, **{**kwargs, "n_jobs": 1})

    monkeypatch.setattr(planning, "power", recording)
    args = ("skillings_mack", "--effect", "0.5", "--seeds", "4", "--tasks", "3", "--n-sim", "20", "--seed", "2",
            "--no-progress", "--format", "json")
    one, two = run(*args), run(*args, "--jobs", "2")
    assert asked == [1, 2] and one[0] == two[0] == 0
    assert json.loads(one[1])["table"] == json.loads(two[1])["table"]


@pytest.mark.parametrize("argv, message", [
    (["ttest"], "METHOD 'ttest' is not one of"),
    (["adastop", "--seeds", "3"], "not a multiple of AdaStop's K = 5 (the default)"),
    (["skillings_mack", "--seeds", "a,b"], "--seeds takes whole numbers"),
    (["skillings_mack", "-o", "bogus=1"], "bogus=1 is not an option of skillings_mack"),
    (["skillings_mack", "--formula", "score ~ agent"], "--formula goes with --pilot"),
    (["skillings_mack", "--pilot", "missing.csv"], "--pilot needs --formula"),
    (["skillings_mack", "--pilot", "missing.csv", "--formula", "score ~ agent"], "file not found"),
    (["skillings_mack,bootstrap", "--target-power", "0.8", "--effect", "1"], "one method at a time"),
    (["skillings_mack", "--target-power", "0.8", "--seeds", "3"], "drop --seeds"),
    (["skillings_mack", "--jobs", "0"], "--jobs must be"),
])
def test_errors_print_one_line_and_exit_2(argv, message, capsys):
    status, _ = run(*argv, "--n-sim", "5", "--no-progress")
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and "Traceback" not in err and err.count("\n") == 1


# ---- one line for every mistake, checked before the simulations (issue 27) ----------------------------

@pytest.mark.parametrize("argv, message", [
    # --plot under /proc used to print the result, then a traceback
    (["--plot", "/proc/x.png"], "--plot /proc/x.png: cannot write under /proc"),
    (["--plot", "{tmp}/missing/x.png"], "folder {tmp}/missing does not exist"),
    (["--plot", "{tmp}/x.txt"], "cannot save a figure as 'x.txt'"),
    (["--plot", "{pilot}", "--pilot", "{pilot}", "--formula", "score ~ agent"], "--plot {pilot} is the input"),
    (["--seeds", "1000000000"], "--seeds 1000000000 is more than 10,000 runs per agent and task"),
    (["--n-sim", "1000000000"], "--n-sim 1000000000 is more than 1,000,000"),
    (["--tasks", "1000000000"], "--tasks 1000000000 is more than 10,000 tasks"),
    (["--seeds", "5000", "--tasks", "200"], "makes 2,000,000 runs per simulated data set, more than 1,000,000"),
    (["--target-power", "0.8", "--effect", "1", "--max-seeds", "1000000"], "--max-seeds 1000000 is more than 10,000"),
    (["--sep", ";"], "--sep goes with --pilot"),
    (["--pilot", "{semicolon}", "--formula", "score ~ agent"], "pass --sep ';'"),
    (["--format", "csv", "-o", "n_resamples=10000000000000", "--seeds", "5"], "n_resamples=10000000000000 is more"),
])
def test_mistakes_are_one_line_and_nothing_is_printed(tmp_path, published, capsys, argv, message):
    semicolon = tmp_path / "pilot.csv"
    read_csv(published / "halfcheetah_sac_td3.csv").to_csv(semicolon, sep=";", index=False)
    names = {"tmp": tmp_path, "pilot": published / "halfcheetah_sac_td3.csv", "semicolon": semicolon}
    method = "permutation" if "n_resamples" in " ".join(argv) else "skillings_mack"
    status, text = run(method, "--n-sim", "5", "--no-progress", *[a.format(**names) for a in argv])
    err = capsys.readouterr().err
    assert status == 2 and text == "" and err.startswith("rlstats: error: ") and err.count("\n") == 1
    assert message.format(**names) in err


def test_pilot_with_a_separator_or_on_standard_input_and_csv_output(published, tmp_path, monkeypatch):
    pilot = published / "halfcheetah_sac_td3.csv"
    semicolon = tmp_path / "pilot.csv"
    read_csv(pilot).to_csv(semicolon, sep=";", index=False)
    args = ("--formula", "score ~ agent", "--seeds", "5", "--n-sim", "10", "--seed", "0", "--no-progress",
            "--format", "csv")
    status, text = run("permutation", "--pilot", str(semicolon), "--sep", ";", *args)
    assert status == 0 and text.splitlines()[0].startswith("method,seeds,power,")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(pilot.read_bytes())))
    assert run("permutation", "--pilot", "-", *args) == (status, text)


def test_figure_is_written_before_the_result_is_printed(tmp_path, monkeypatch, capsys):
    from rlstats.cli import _shared

    def full_disk(result, path):
        raise _shared.UsageError(f"cannot write the figure {path}: No space left on device; give another path")

    monkeypatch.setattr(_shared, "save_plot", full_disk)
    status, text = run("skillings_mack", "--seeds", "3", "--tasks", "3", "--n-sim", "5", "--no-progress",
                       "--plot", str(tmp_path / "p.png"))
    assert status == 2 and text == "" and "No space left" in capsys.readouterr().err
