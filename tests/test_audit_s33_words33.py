"""Audit s33 (words33): sentences about columns whose names are already plural, and True/False in subset=.

1. A formula's block or arm column named as a plural ("games", "algos", "envs", "seeds") was its own singular in
   the sentences session 32 built from the formula's columns: "1 games", "every algos", "each algos's runs on a
   games", "games-level differences". The columns' names are now read as nouns by one rule (``format.singular``,
   ``Formula.block_word`` / ``arm_word``): "1 game", "every algo", while "bus", "status", "class" and "ss" stay.
2. ``subset=`` compared a column of numbers with True/False as Python does (True == 1): ``seed > True`` kept the
   seeds above 1. A True/False literal now compares only with a column of True/False values.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.datasets import simulate
from rlstats.errors import DesignError, OptionError

PLURAL = {"score": "ret", "agent": "algos", "task": "games", "seed": "seeds"}
FORMULA = "ret ~ algos | games"


def _plural_named(agents=3, tasks=3, seeds=4):
    df = simulate(agents=[f"A{i}" for i in range(agents)], tasks=[f"g{i}" for i in range(tasks)], seeds=seeds,
                  effect=np.linspace(0, 1, agents), rng=0)
    return df.rename(columns=PLURAL)


def _incomplete(df):
    """No runs of A1 on g2, one run of A2 on g1 (four elsewhere)."""
    df = df[~((df.algos == "A1") & (df.games == "g2"))]
    return df[~((df.algos == "A2") & (df.games == "g1") & (df.seeds > 0))]


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


# ---- 1. plural column names read as nouns ----

def test_errors_say_one_game_and_every_algo():
    df = _plural_named()
    with pytest.raises(DesignError) as info:
        _quiet(lambda: rlstats.adastop(df, FORMULA, n=5, rng=1))
    assert str(info.value).startswith("algo 'A0' on game 'g0' has 4 runs, not a multiple of n = 5")
    with pytest.raises(DesignError) as info:
        _quiet(lambda: rlstats.permutation(_incomplete(df), FORMULA, rng=1, na_action="drop"))
    assert ("so every algo needs the same number of runs on game 'g1'; found A0 4, A1 4, A2 1. Drop runs to "
            "balance the algos") in str(info.value)
    with pytest.raises(DesignError) as info:
        _quiet(lambda: rlstats.bootstrap(_incomplete(df), FORMULA, rng=1, n_resamples=200))
    assert str(info.value).startswith("1 algo x game cell has no runs (algo 'A1' on game 'g2')")
    assert str(info.value).endswith('pass na_action="drop" to leave out the 1 game where some algo has no runs')


def test_notes_and_reports_say_game_and_algo():
    df = _plural_named()
    res = _quiet(lambda: rlstats.bayes(df, FORMULA + "/seeds", rope=0.2, rng=1, n_samples=1000))
    assert ("each algo's runs on a game are averaged first for the signed-rank model's game-level differences"
            in res.notes)
    one = _quiet(lambda: rlstats.equivalence(df[df.games == "g0"], FORMULA, margin=0.1, rng=1, n_resamples=200))
    report = one.report("text")
    assert "We tested 3 pairs of algos on 1 game (12 runs) with two one-sided tests" in report
    # one game: no test across games (audit s36 fixeq36), and each pair's one test "on g0, the one game of the data"
    assert "Per game we used Welch's t (one game: no test across games)" in report
    assert "on g0, the one game of the data, " in report
    assert "they share only one game (g0), and a test across games needs 2 or more" in report
    boot = _quiet(lambda: rlstats.bootstrap(_incomplete(df), FORMULA, rng=1, n_resamples=200, na_action="drop"))
    assert ("A2: runs per game differ (1 to 4), so the IQM and the optimality gap weigh each game alike, a run of a "
            "game with c runs counting c_max / c times (as if every game had the algo's most runs, c_max); pooling "
            "the runs would weigh the games by their runs") in boot.notes


def test_averaged_seeds_note_says_per_algo_and_game():
    df = _plural_named(agents=2, tasks=2, seeds=2)
    df = pd.concat([df.assign(runs=r) for r in (0, 1)], ignore_index=True)
    res = _quiet(lambda: rlstats.task_table(df, "ret ~ algos | games/runs/seeds"))
    assert ("seeds ('seeds') averaged within each run: the run is the unit, 2 runs of 2 seeds per algo and game"
            in res.notes), res.notes


def test_pooled_tasks_refusal_and_tuning_unit_say_one_game_and_algo():
    df = _plural_named(agents=2, tasks=3, seeds=3)
    with pytest.raises(DesignError) as info:
        rlstats.compare(df, "ret ~ algos")
    assert str(info.value).startswith(
        "data contain 3 levels (column 'games'), each with runs of two or more algos, but the formula 'ret ~ algos' "
        "has no blocking term, so they would be pooled at their own scales; use 'ret ~ algos | games', filter the "
        "data to one game (pass subset=\"games in ['g0']\" to rlstats.compare)")
    # without config= each algo is one configuration: nothing to tune, refused in the data's words (new-user trial s38)
    with pytest.raises(rlstats.errors.OptionError) as info:
        rlstats.tuning(df, "ret ~ algos | games/seeds", views=["best_set"], n_resamples=100, rng=0)
    assert str(info.value).startswith("tuning() has nothing to tune: without config= each algo is one configuration, "
                                      "so every sweep (algo x game) has one")
    assert "rlstats.bootstrap(df, 'ret ~ algos | games/seeds')" in str(info.value)


def test_count_of_one_says_the_singular():
    from rlstats.format import count
    assert [count(1, w) for w in ("games", "envs", "algos", "seeds", "bus", "status", "class", "ss")] == \
        ["1 game", "1 env", "1 algo", "1 seed", "1 bus", "1 status", "1 class", "1 ss"]


def test_singular_plural_and_article_of_column_names():
    from rlstats.format import a_or_an, count, plural, singular
    names = ("games", "envs", "algos", "seeds", "entries", "batches", "classes", "cases", "indices", "statuses",
             "buses", "biases", "Train_Envs", "GAMES")
    assert [singular(w) for w in names] == ["game", "env", "algo", "seed", "entry", "batch", "class", "case", "index",
                                            "status", "bus", "bias", "Train_Env", "GAME"]
    one = ("bus", "status", "class", "ss", "axis", "bias", "series", "task", "env2", "s")
    assert [singular(w) for w in one] == list(one)  # nothing mangled
    assert [plural(w) for w in one] == ["buses", "statuses", "classes", "sses", "axes", "biases", "series", "tasks",
                                        "env2s", "ses"]
    assert [plural(w) for w in names] == list(names)  # a plural name is said as it is
    assert [plural(singular(w)) for w in names[:-1]] == list(names[:-1])  # and its noun's plural is it
    assert [plural(w) for w in ("IQM", "GAME", "entry")] == ["IQMs", "GAMEs", "entries"]
    assert [count(3, w) for w in ("game", "games", "bus", "class")] == ["3 games", "3 games", "3 buses", "3 classes"]
    assert [a_or_an(singular(w)) for w in ("algos", "envs", "games", "units", "updates", "hours", "MDPs")] == \
        ["an algo", "an env", "a game", "a unit", "an update", "an hour", "an MDP"]


@pytest.mark.parametrize("column, one, many", [("class", "class", "classes"), ("bus", "bus", "buses"),
                                               ("status", "status", "statuses"), ("envs", "env", "envs")])
def test_singular_looking_block_columns_are_not_mangled(column, one, many):
    df = _incomplete(_plural_named()).rename(columns={"games": column})
    res = _quiet(lambda: rlstats.bootstrap(df, f"ret ~ algos | `{column}`", rng=1, n_resamples=50, na_action="drop"))
    assert (f"A2: runs per {one} differ (1 to 4), so the IQM and the optimality gap weigh each {one} alike, a run of "
            f"{'an' if one[0] in 'ae' else 'a'} {one} with c runs counting c_max / c times (as if every {one} had the "
            f"algo's most runs, c_max); pooling the runs would weigh the {many} by their runs") in res.notes
    assert f"1 {one} left out because some algo has no runs there" in "\n".join(res.notes)


# ---- 2. subset=: True/False compares only with a column of True/False values ----

def _flagged():
    df = _plural_named(agents=2, tasks=2, seeds=4).rename(columns={"seeds": "seed"})
    df["flag"] = df["seed"] % 2 == 0
    df["lv"] = df["games"].map({"g0": "easy", "g1": "hard"})
    return df


@pytest.mark.parametrize("subset", ["seed > True", "seed == True", "seed != False", "True < seed",
                                    "seed in [True, 2]", "seed not in [False]"])
def test_boolean_literal_against_numbers_is_refused(subset):
    value = "False" if "False" in subset else "True"
    number = int(value == "True")
    with pytest.raises(OptionError) as info:
        rlstats.compare(_flagged(), FORMULA, method="task_table", subset=subset)
    assert str(info.value) == (
        f"subset={subset!r}: column 'seed' holds numbers (int64), not True/False values, and {value} is True/False, "
        f"which Python (and R's subset()) would read as the number {number}; write {number} where the number is "
        "meant; True/False compares only with a column of True/False values")


def test_boolean_literal_against_text_is_refused_naming_its_dtype():
    with pytest.raises(OptionError) as info:
        rlstats.compare(_flagged(), FORMULA, method="task_table", subset="lv == True")
    assert str(info.value) == (
        f"subset='lv == True': column 'lv' holds text ({_flagged()['lv'].dtype}), not True/False values, and True is "
        "True/False, which no text equals; write 'True' in quotes where the text is meant; True/False compares only "
        "with a column of True/False values")


@pytest.mark.parametrize("subset, seeds", [("flag == True", [0, 2]), ("flag", [0, 2]), ("~flag", [1, 3]),
                                           ("flag != False", [0, 2]), ("flag in [False]", [1, 3]),
                                           ("flag > False", [0, 2]), ("seed > 1", [2, 3])])
def test_boolean_columns_still_compare_with_true_and_false(subset, seeds):
    df = _flagged()
    assert sorted(set(df["seed"][rlstats.conditions.parse_condition(subset).mask(df)])) == seeds
    res = rlstats.compare(df, FORMULA, method="task_table", subset=subset)
    assert f"subset={subset!r} kept 8 of 16 rows" in "\n".join(res.notes)  # 2 algos x 2 games x the 2 seeds kept


@pytest.mark.parametrize("flag", [pd.array([True, False, None, True] * 4, dtype="boolean"),
                                  pd.Series([True, False, None, True] * 4, dtype=object)],
                         ids=["nullable boolean", "objects"])
def test_boolean_columns_with_missing_values_still_compare(flag):
    df = _flagged().iloc[:16].assign(flag=flag)
    mask = rlstats.conditions.parse_condition("flag == True").mask(df)
    assert mask.tolist() == [True, False, False, True] * 4


def test_the_command_line_refuses_true_beside_numbers_alike(tmp_path, capsys):
    from rlstats.cli import main
    path = tmp_path / "runs.csv"
    _flagged().to_csv(path, index=False)
    status = main(["compare", str(path), FORMULA, "-o", "subset=seed > True"])
    assert status != 0
    assert capsys.readouterr().err == (
        "rlstats: error: -o \"subset=seed > True\": column 'seed' holds numbers (int64), not True/False values, and "
        "True is True/False, which Python (and R's subset()) would read as the number 1; write 1 where the number is "
        "meant; True/False compares only with a column of True/False values\n")
