"""A catalogue of bad or awkward inputs: each is a clear rlstats error naming what is wrong.

Each row: what the input is, how to make it from a clean frame, the call, the error class and a
phrase the message must contain. The command-line table below runs the same kind of input through
``rlstats compare`` and expects exit status 2, one message and no traceback.
"""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError, OptionError


def _atari_like():
    """Two agents on 4 'games' at very different scales: pooling them is the wrong answer."""
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, effect=0.5, heterogeneity=1.0, rng=0)
    return df.rename(columns={"task": "game"})


CASES = [
    # (id, make data, formula, options, error class, phrase)
    ("blocks named game", _atari_like, "score ~ agent", {}, DesignError, "score ~ agent | game"),
    ("blocks named env, string codes", lambda: _atari_like().rename(columns={"game": "env"}).astype({"env": str}),
     "score ~ agent", {}, DesignError, "column 'env'"),
    ("integer block codes", lambda: _atari_like().assign(game=lambda d: d["game"].cat.codes),
     "score ~ agent", {}, DesignError, "column 'game'"),
    ("swapped nesting", _atari_like, "score ~ agent | seed/game", {}, DesignError, "'score ~ agent | game/seed'"),
    ("duplicated rows with a run id", lambda: pd.concat([_atari_like()] * 2), "score ~ agent | game", {},
     DesignError, "40 row(s) repeat another row"),
    ("curves as runs", lambda: rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=4, rng=0),
     "score ~ agent | task", {}, DesignError, "column 'step' takes 4 values"),
]


@pytest.mark.parametrize("name, make, formula, options, error, phrase", CASES, ids=[c[0] for c in CASES])
def test_python_api(name, make, formula, options, error, phrase):
    data = make()
    before = data.copy(deep=True)
    with pytest.raises(error) as info:
        rlstats.compare(data, formula, **options)
    assert phrase in str(info.value)
    pd.testing.assert_frame_equal(data, before)


def test_pooling_on_purpose_is_stated():
    design = rlstats.build(_atari_like(), "score ~ agent", pool_tasks=True)
    res = rlstats.compare(design, "score ~ agent", n_resamples=200, rng=0)
    assert "runs of 4 levels of 'game' pooled" in str(res)


def test_a_ready_design_with_another_formula_is_an_error():
    design = rlstats.build(_atari_like(), "score ~ agent | game")
    assert rlstats.compare(design, "score ~ agent|game").nobs == 40  # the same formula, spaced differently
    with pytest.raises(OptionError, match="differs from the one the Design was built with"):
        rlstats.compare(design, "log(score) ~ agent | game")


def test_seed_and_batch_columns_are_not_blocks():
    df = rlstats.datasets.simulate(agents=2, tasks=1, seeds=6, rng=0).drop(columns="task")
    df["batch"] = df["seed"] // 3
    rlstats.build(df, "score ~ agent")  # seed and batch number runs: no error


def test_equal_scores_without_a_run_id_are_runs():
    df = pd.DataFrame({"agent": ["a", "a", "b", "b"] * 2, "task": ["t"] * 4 + ["u"] * 4, "score": [1.0] * 8})
    assert rlstats.build(df, "score ~ agent | task").nobs == 8


CLI_CASES = [
    ("blocks named game", _atari_like, "score ~ agent", "score ~ agent | game"),
    ("swapped nesting", _atari_like, "score ~ agent | seed/game", "game/seed"),
]


@pytest.mark.parametrize("name, make, formula, phrase", CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_command_line(name, make, formula, phrase, tmp_path):
    path = tmp_path / "runs.csv"
    make().to_csv(path, index=False)
    done = subprocess.run([sys.executable, "-m", "rlstats", "compare", str(path), formula],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert phrase in done.stderr and "Traceback" not in done.stderr
