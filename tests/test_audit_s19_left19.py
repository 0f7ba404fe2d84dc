"""Audit s19 (left19): small leftovers, each a defect's reproducer, in the order of the brief."""

import contextlib
import io

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.cli import main


def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in args], out=out)
    return status, out.getvalue(), err.getvalue()


def _runs(agents=("None", "PPO", "SAC")):
    gen = np.random.default_rng(0)
    rows = [(a, t, r, gen.normal()) for a in agents for t in ("t1", "t2", "t3") for r in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "score"])


@pytest.mark.parametrize("name", ["None", "nan"])
def test_rows_dropped_for_text_read_as_missing_name_that_text(tmp_path, name):
    """An agent called 'None' (or 'nan') in a CSV is read as missing by pandas' reader; with -o na_action=drop the
    whole agent went and the result said only "12 of 36 rows dropped (na_action="drop"): 12 with missing values",
    never the name the user wrote."""
    path = tmp_path / "runs.csv"
    _runs((name, "PPO", "SAC")).to_csv(path, index=False)
    status, out, err = _cli("compare", path, "score ~ agent | task", "-o", "na_action=drop")
    assert status == 0, err
    assert '12 of 36 rows dropped (na_action="drop"): 12 with missing values' in out
    assert (f"column 'agent' of the file holds the text '{name}' in 12 rows, which pandas.read_csv reads as missing "
            f"values: if '{name}' is a name") in " ".join(out.split()), out
