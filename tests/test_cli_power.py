"""``rlstats power METHOD``: power and sample size from the shell."""

import io
import json

import pytest

import rlstats.cli as cli
from rlstats.power import power, sample_size


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


def test_pilot_file_with_adastop(shared_data):
    status, text = run("adastop", "--pilot", str(shared_data / "halfcheetah_sac_td3.csv"), "--formula",
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


def test_jobs_give_the_same_numbers():
    args = ("skillings_mack", "--effect", "0.5", "--seeds", "4", "--tasks", "3", "--n-sim", "120", "--seed", "2",
            "--no-progress", "--format", "json")
    one, two = run(*args), run(*args, "--jobs", "2")
    assert json.loads(one[1])["table"] == json.loads(two[1])["table"]


@pytest.mark.parametrize("argv, message", [
    (["ttest"], "method='ttest' is not one of"),
    (["adastop", "--seeds", "3"], "not a multiple of AdaStop's K=5"),
    (["skillings_mack", "--seeds", "a,b"], "--seeds takes whole numbers"),
    (["skillings_mack", "-o", "bogus=1"], "bogus=1 is not an option of skillings_mack"),
    (["skillings_mack", "--formula", "score ~ agent"], "--formula goes with --pilot"),
    (["skillings_mack", "--pilot", "missing.csv"], "--pilot needs --formula"),
    (["skillings_mack", "--pilot", "missing.csv", "--formula", "score ~ agent"], "file not found"),
    (["skillings_mack,bootstrap", "--target-power", "0.8", "--effect", "1"], "one method at a time"),
    (["skillings_mack", "--target-power", "0.8", "--seeds", "3"], "drop --seeds"),
    (["skillings_mack", "--jobs", "0"], "n_jobs must be"),
])
def test_errors_print_one_line_and_exit_2(argv, message, capsys):
    status, _ = run(*argv, "--n-sim", "5", "--no-progress")
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and "Traceback" not in err and err.count("\n") == 1
