"""Audit s23 (user23): a new user who knows R follows the README, the docs and the vignettes."""

import io

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
