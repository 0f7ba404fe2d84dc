"""Every CSV the package reads gives back the floats exactly as written, on any supported pandas."""

import warnings

import numpy as np
import pandas as pd
import pytest

from rlstats.cli import read_table
from rlstats.tables import read_csv

# Values that pandas 2's default parser moves by one ulp (the first is an Atari 100k score), the
# extremes of the float range, and random values over many magnitudes.
NEAR_TIES = [99.99999999999997, 748.8999999999999, -7.105427357601002e-15, 0.30000000000000004,
             1.7e307, 5e-324, 2.2250738585072014e-308, 123456789.12345679]


def _values():
    rng = np.random.default_rng(0)
    scale = 10.0 ** rng.integers(-12, 12, 3000)
    return np.concatenate([NEAR_TIES, rng.standard_normal(3000) * scale])


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t")])
def test_floats_round_trip_exactly_without_warnings(tmp_path, suffix, sep):
    values = _values()
    frame = pd.DataFrame({"agent": "a", "task": "t", "score": values})
    path = tmp_path / f"runs{suffix}"
    frame.to_csv(path, sep=sep, index=False)  # pandas writes the shortest repr that round-trips
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pandas 3 deprecates float_precision: it must not be passed there
        for got in (read_csv(path, sep=sep), read_table(path)):
            assert got["score"].dtype == np.float64
            mismatched = np.flatnonzero(got["score"].to_numpy() != values)
            assert mismatched.size == 0, f"{mismatched.size} values changed, e.g. {values[mismatched[:3]]}"


def test_written_text_is_parsed_as_python_parses_it(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("score\n" + "\n".join(repr(float(v)) for v in _values()) + "\n")
    expected = [float(line) for line in path.read_text().split()[1:]]
    assert read_csv(path)["score"].tolist() == expected
