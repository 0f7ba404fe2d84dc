"""Audit s23 (user23): a new user who knows R follows the README, the docs and the vignettes."""

import io

import pytest

import rlstats
from rlstats.cli import main


def _run(argv):
    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


def test_cli_formula_before_file_says_the_order(tmp_path, capsys):
    """R users write the formula first (friedman.test(score ~ agent | task, data)), and the README says the Python
    functions take it first too. On the command line the file comes first; with the two swapped the error read
    "rlstats: error: file not found: score ~ agent | task", which names neither the order nor the way on."""
    path = tmp_path / "runs.csv"
    rlstats.datasets.simulate(agents=3, tasks=4, seeds=2, rng=0).to_csv(path, index=False)
    status, printed = _run(["compare", "score ~ agent | task", str(path)])
    err = capsys.readouterr().err
    assert (status, printed) == (2, "")
    assert "file not found" not in err and err.count("\n") == 1
    assert f"rlstats compare {path} 'score ~ agent | task'" in err and "the file comes first" in err


def test_sample_size_with_powers_seeds_names_min_and_max_seeds():
    """The README and the R users' page pair rlstats.power("skillings_mack", effect=0.5, seeds=[3, 5, 10], tasks=10)
    with rlstats.sample_size(...): a user who keeps seeds= read "seeds=[3, 5] is not an option of skillings_mack;
    its options are: variant, ...", which blames the rank test and does not name the search range."""
    with pytest.raises(rlstats.OptionError) as err:
        rlstats.sample_size("skillings_mack", effect=0.5, seeds=[3, 5], tasks=6, n_sim=20, rng=0, progress=False)
    message = str(err.value)
    assert "not an option of skillings_mack" not in message
    assert "min_seeds=3" in message and "max_seeds=5" in message
