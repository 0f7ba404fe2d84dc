"""Session 18, the lead's own mends."""
from conftest import caught
from rlstats.format import natural_key


def test_natural_key_reads_only_decimal_runs_as_numbers():
    # '²' is a Unicode digit that int() cannot read; the old isdigit() test raised ValueError on it
    names = ["seed_10", "²", "seed_2", "10", "2", "٣"]
    assert sorted(names, key=natural_key) == ["2", "٣", "10", "seed_2", "seed_10", "²"]


def test_power_ranges_apart_warning_gives_advice_power_takes():
    """left18's caution for tasks on ranges apart (IQM on CartPole-like 0..500 beside Acrobot-like -500..0) offered
    normalize=, which power() refuses (user18 mended the tenfold-scale caution the same way)."""
    import numpy as np
    import pandas as pd

    import rlstats

    rng = np.random.default_rng(0)
    rows = [(agent, task, seed, centre + 40 * rng.normal()) for agent in ("A", "B")
            for task, centre in (("cartpole", 300.0), ("acrobot", -300.0)) for seed in range(5)]
    pilot = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    _, everything = caught(lambda: rlstats.power("bootstrap", design=pilot, formula="score ~ agent | task", seeds=[3],
                                                 n_sim=4, rng=0, progress=False))
    said = [s for s in everything if "ranges apart" in s]
    assert said, everything
    assert all("normalize=" not in text and "rlstats.normalize(pilot" in text for text in said)


def test_a_number_column_beside_text_compares_alike_on_every_numpy():
    """numpy 1.24 (CI's oldest) gave up comparing an int column with '3' element-wise, so `seed == '3'` was an
    error there and "keeps no rows" on numpy 2; on both, a column of numbers beside text is now the one error saying
    how to write the number (audit s22: `seed != '3'` kept every row, seed 3's too)."""
    import numpy as np
    import pandas as pd
    import pytest

    from rlstats.conditions import parse_condition
    from rlstats.errors import OptionError

    seeds = np.array([1, 3, 5])
    for text in ("seed != '3'", "seed == '3'"):
        with pytest.raises(OptionError, match="column 'seed' holds numbers, and '3' is text, which no "
                                                             "number equals; write 3 without quotes"):
            parse_condition(text).evaluate(pd.DataFrame({"seed": seeds}))
