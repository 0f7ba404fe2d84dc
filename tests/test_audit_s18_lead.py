"""Session 18, the lead's own mends."""
from rlstats.format import natural_key


def test_natural_key_reads_only_decimal_runs_as_numbers():
    # '²' is a Unicode digit that int() cannot read; the old isdigit() test raised ValueError on it
    names = ["seed_10", "²", "seed_2", "10", "2", "٣"]
    assert sorted(names, key=natural_key) == ["2", "٣", "10", "seed_2", "seed_10", "²"]
