"""Second reading of session 16's CLI, datasets/normaliser and bootstrap changes (review16b)."""
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError


def _message(tasks, reference):
    with pytest.raises(DesignError) as info:
        rlstats.normalize(pd.DataFrame({"task": tasks, "score": 1.0}), reference)
    return str(info.value)


def test_spelling_hint_never_crosses_a_dataset_version():
    # D4RL's versions are different datasets: maze2d-umaze-v0 is not a spelling of maze2d-umaze-v1 (the only
    # maze2d-umaze in the reference), nor hopper-medium-v3 of v0/v1/v2, nor pen-human-v2 of v0/v1
    for task in ("maze2d-umaze-v0", "hopper-medium-v3", "pen-human-v2"):
        text = _message([task], "d4rl_reference")
        assert "spells" not in text and "could be" not in text, text
        assert "add their 'random' and 'expert' scores to the reference or drop them from the data" in text
    # a name with no version of its own, or the same version in another spelling, still gets its hint
    assert "'hopper-medium' could be 'hopper-medium-v0', 'hopper-medium-v1' or 'hopper-medium-v2'" in _message(
        ["hopper-medium"], "d4rl_reference")
    assert "'hopper_medium_v2' -> 'hopper-medium-v2'" in _message(["hopper_medium_v2"], "d4rl_reference")
    # Atari's reference names carry no version: an environment id's version is no dataset's
    assert "'ALE/Pong-v5' -> 'Pong'" in _message(["ALE/Pong-v5"], "atari_reference")


def test_spelling_hint_never_merges_two_tasks_of_the_data():
    # 'Pong' is in the data already: renaming 'PongNoFrameskip-v4' to it would pool two tasks' runs as one
    text = _message(["PongNoFrameskip-v4", "Pong", "pong"], "atari_reference")
    assert "spells" not in text and "->" not in text and "could be" not in text, text
    assert "add their 'random' and 'human' scores to the reference or drop them from the data" in text


def test_a_parquet_file_of_no_rows_is_said_in_the_files_terms(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    from rlstats.cli import main

    path = tmp_path / "runs.parquet"
    pd.DataFrame({"agent": ["A"], "task": ["t"], "score": [1.0]}).iloc[:0].to_parquet(path)
    assert main(["compare", str(path), "score ~ agent"]) == 2
    err = capsys.readouterr().err
    assert f"{path} has no rows; give a file with one row per run" in err, err  # as a CSV of a header alone
    assert "DataFrame" not in err


def test_spelling_hint_never_renames_two_tasks_to_one():
    # 'pong' and 'PongNoFrameskip-v4' both fold to 'Pong': renaming both would pool two tasks' runs as one
    text = _message(["pong", "PongNoFrameskip-v4", "Alien"], "atari_reference")
    assert "->" not in text and "replace(" not in text, text
    assert "add their 'random' and 'human' scores to the reference or drop them from the data" in text
    # one of them alone still gets its hint
    assert "'pong' -> 'Pong'" in _message(["pong", "Alien"], "atari_reference")


def test_one_bad_value_and_an_int_are_said_in_good_grammar():
    from rlstats.errors import FormulaError, OptionError

    df = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0)
    df["score"] = df["score"].astype(str)
    df.loc[3, "score"] = "n/a"
    with pytest.raises(FormulaError) as info:
        rlstats.compare(df, "score ~ agent", rng=0)
    assert "errors='coerce') makes it a missing value" in str(info.value), str(info.value)
    df.loc[4, "score"] = "x"
    with pytest.raises(FormulaError) as info:
        rlstats.compare(df, "score ~ agent", rng=0)
    assert "errors='coerce') makes them missing values" in str(info.value), str(info.value)
    with pytest.raises(OptionError, match="got an int: pass"):
        rlstats.concat(5)
