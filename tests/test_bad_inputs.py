"""A catalogue of bad or awkward inputs: each is a clear rlstats error naming what is wrong.

Each row: what the input is, how to make it from a clean frame, the call, the error class and a
phrase the message must contain. The command-line table below runs the same kind of input through
``rlstats compare`` and expects exit status 2, one message and no traceback.
"""

import subprocess
import sys

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


# ----------------------------------------------------------------------------- options and values


def test_confidence_level_that_looks_like_alpha():
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0)
    with pytest.raises(OptionError, match="confidence_level=0.95"):
        rlstats.bootstrap(df, "score ~ agent | task", confidence_level=0.05, n_resamples=100)


def test_scores_that_overflow_are_an_error():
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0)
    df["score"] = df["score"] * 1e305  # finite, but sums of them are not
    with pytest.raises(DesignError, match="overflow"):
        rlstats.bootstrap(df, "score ~ agent | task", n_resamples=100)


def test_multiprocessing_backend_is_refused_up_front():
    with pytest.raises(OptionError, match="not a joblib backend rlstats can use"):
        rlstats.power("permutation", effect=0.5, seeds=[3], tasks=1, n_sim=4, n_jobs=2, backend="multiprocessing",
                      progress=False)


# ----------------------------------------------------------------------------- the command line, more inputs


def _runs_csv(tmp_path, **to_csv):
    path = tmp_path / "runs.csv"
    rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0).to_csv(path, index=False, **to_csv)
    return path


def _written(path, content):
    path.write_bytes(content)
    return path


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "rlstats", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("make, extra, phrase", [
    (lambda p: _runs_csv(p, sep=";"), [], "looks separated by ';': pass --sep ';'"),
    (lambda p: _written(p / "runs.parquet", b"agent,task\n"), [], "not a readable Parquet"),
    (lambda p: _written(p / "latin.csv", "agent,task,score\nB\xe9b\xe9,t,1\n".encode("latin-1")), [],
     "is not UTF-8 text"),
    (_runs_csv, ["--plot", "missing/folder/cd.png"], "does not exist"),
    (_runs_csv, ["--plot", "cd.docx"], "cannot save a figure as 'cd.docx'"),
])
def test_command_line_input_errors(tmp_path, make, extra, phrase):
    done = _cli("compare", make(tmp_path), "score ~ agent | task", *extra)
    assert done.returncode == 2 and phrase in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""  # nothing was computed or printed before the error


def test_semicolons_read_with_sep(tmp_path):
    done = _cli("compare", _runs_csv(tmp_path, sep=";"), "score ~ agent | task", "--sep", ";")
    assert done.returncode == 0 and "Mack-Skillings" in done.stdout


@pytest.mark.parametrize("formula", ["__import__('os').system('echo PWNED') ~ agent | task",
                                     "().__class__.__bases__ ~ agent | task"])
def test_a_formula_on_the_command_line_runs_no_code(tmp_path, formula):
    done = _cli("compare", _runs_csv(tmp_path), formula)
    assert done.returncode == 2 and "PWNED" not in done.stdout and "--allow-python" in done.stderr
    assert "Traceback" not in done.stderr


def test_allow_python_restores_python_and_json_stays_parseable(tmp_path):
    import json

    done = _cli("compare", _runs_csv(tmp_path), "np.log1p(score - score.min()) ~ agent | task", "--allow-python",
                "--format", "json", "--plot", tmp_path / "cd.png")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "SkillingsMackResult"
    assert "figure written" in done.stderr and (tmp_path / "cd.png").is_file()


def test_version_and_help():
    assert _cli("--version").stdout.strip() == f"rlstats {rlstats.__version__}"
    text = _cli("compare", "--help").stdout
    assert "curves" in text and "skillings_mack" in text and "-o normalize=" in text.replace("\n", " ")


def test_two_atari_agents_with_a_game_column_are_not_pooled(atari):
    # Issue 16: the pooled permutation test reported p = 5e-4 on 26 games at raw scales, with no note.
    pair = atari[atari["agent"].isin(["SPR", "DrQ(eps)"])].rename(columns={"task": "game"})
    with pytest.raises(DesignError, match=r"26 levels \(column 'game'\).*'score ~ agent \| game'"):
        rlstats.compare(pair, "score ~ agent")
