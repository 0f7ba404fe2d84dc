"""Audit s22 (frames22): the front door and every back end's printed result with data that do not come in the tidy
default shape (foreign frames, nullable and pyarrow dtypes, categoricals, odd indexes and names, labels that look
like numbers, subsets); each defect found has its reproducer here."""

import io
import json

import pytest

import rlstats
from rlstats.cli import main


def run(argv):
    """(status, stdout) of ``rlstats ARGV``."""
    out = io.StringIO()
    status = main(argv, out=out)
    return status, out.getvalue()


def _runs():
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=4, effect=1.0, rng=0)
    df.attrs = {}
    return df


# ------------------------------------------------------------------ labels a CSV holds as text that reads as numbers

def _numeric_text_labels(tmp_path):
    """Agents '1', '01' and '10' in a CSV: three agents, whose labels pandas' reader would read as the numbers 1, 1, 10."""
    df = _runs()
    df["agent"] = df["agent"].astype(str).map({"agent_1": "1", "agent_2": "01", "agent_3": "10"})
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    return path, df


def test_command_line_keeps_agents_that_read_as_one_number(tmp_path, capsys, monkeypatch):
    # the command line read agents '1' and '01' of a CSV as the one number 1: two agents merged, a test of 2 agents
    # (chi-squared 3.8149, df = 1) in place of 3 (4.2212, df = 2)
    path, df = _numeric_text_labels(tmp_path)
    expected = rlstats.compare(df, "score ~ agent | task")  # the labels as text: three agents
    assert expected.df == 2 and round(expected.statistic, 4) == 4.2212
    note = ("column 'agent' of the file writes one number in several ways ('1', '01'), so its values are read as "
            "written, as text, each its own name")
    status, text = run(["compare", str(path), "score ~ agent | task", "--format", "json"])
    assert status == 0
    got = json.loads(text)
    assert got["agents"] == ["01", "1", "10"] and got["df"] == 2
    assert got["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert got["notes"] == [note]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))  # the same piped in
    status, text = run(["compare", "-", "score ~ agent | task", "--format", "json"])
    assert status == 0 and json.loads(text)["df"] == 2 and json.loads(text)["notes"] == [note]


def test_command_line_keeps_numbers_written_one_way_as_numbers(tmp_path):
    # agents 1, 2 and 10, each written one way, stay numbers: sorted as numbers, no note
    df = _runs()
    df["agent"] = df["agent"].astype(str).map({"agent_1": 1, "agent_2": 2, "agent_3": 10})
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    status, text = run(["compare", str(path), "score ~ agent | task", "--format", "json"])
    got = json.loads(text)
    assert status == 0 and got["agents"] == ["1", "2", "10"] and got["notes"] == [] and got["df"] == 2
    assert got["statistic"] == pytest.approx(rlstats.compare(df, "score ~ agent | task").statistic, rel=1e-12)


# ------------------------------------------------------------------ a subset= comparing numbers with text

def test_subset_comparing_numbers_with_text_is_an_error():
    # subset="agent != '10'" on agents held as numbers kept every row (numbers never equal text), so the agent the
    # user left out was analysed: 3 agents, chi-squared 4.2212 on 2 df, where agents 20 and 30 give 3 on 1 df
    df = _runs()
    df["agent"] = df["agent"].astype(str).map({"agent_1": 10, "agent_2": 20, "agent_3": 30})
    kept = rlstats.compare(df, "score ~ agent | task", subset="agent != 10")
    assert kept.agents == ("20", "30") and kept.df == 1 and kept.statistic == pytest.approx(3.0, abs=1e-12)
    said = "column 'agent' holds numbers, and '10' is text, which no number equals; write 10 without quotes"
    for frame in (df, df.astype({"agent": "category"}), df.astype({"agent": "Int64"})):
        for condition in ("agent != '10'", "agent == '10'", "agent not in ['10']", "'10' != agent"):
            with pytest.raises(rlstats.errors.OptionError) as info:
                rlstats.compare(frame, "score ~ agent | task", subset=condition)
            assert str(info.value) == f"subset={condition!r}: {said}"
    text = df.astype({"agent": str})  # and text beside a number
    with pytest.raises(rlstats.errors.OptionError) as info:
        rlstats.compare(text, "score ~ agent | task", subset="agent not in [10, 20.5]")
    assert str(info.value) == ("subset='agent not in [10, 20.5]': column 'agent' holds text, and 10 is a number, "
                               "which no text equals; write '10' in quotes")
    assert rlstats.compare(text, "score ~ agent | task", subset="agent != '10'").statistic == kept.statistic
    with pytest.raises(rlstats.errors.OptionError, match="is text, which no number equals; compare it with a number"):
        rlstats.compare(df, "score ~ agent | task", subset="seed != 'x'")


def test_command_line_subset_of_agents_read_as_text(tmp_path):
    # agents '1', '01', '10' of a file are read as text (above): a number in the condition is the error saying so
    path, df = _numeric_text_labels(tmp_path)
    status, text = run(["compare", str(path), "score ~ agent | task", "--format", "json", "-o", "subset=agent != 1"])
    assert status != 0 and text == ""
    status, text = run(["compare", str(path), "score ~ agent | task", "--format", "json", "-o", "subset=agent != '1'"])
    got = json.loads(text)
    expected = rlstats.compare(df, "score ~ agent | task", subset="agent != '1'")
    assert got["agents"] == ["01", "10"] and got["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    flags = df.assign(agent=df["agent"] == 10)[lambda d: d["agent"] | (d["score"] > -1e9)]  # agents True and False
    with pytest.raises(rlstats.errors.OptionError) as info:
        rlstats.compare(flags, "score ~ agent | task", subset="agent != 'True'")
    assert str(info.value).endswith("column 'agent' holds True/False values, and 'True' is text, which no True/False "
                                    "value equals; write True without quotes")


def test_subset_leaving_out_a_value_the_column_lacks_says_so():
    # subset="agent != 'agent_02'" (a typo of agent_2) kept every row, agent_2's too, and its note said only "kept 48
    # of 48 rows"; the note now names the value no row holds, as the error of a condition keeping no rows does
    df = _runs()
    res = rlstats.compare(df, "score ~ agent | task", subset="agent != 'agent_02'")
    assert res.agents == ("agent_1", "agent_2", "agent_3") and res.df == 2
    assert res.statistic == pytest.approx(rlstats.compare(df, "score ~ agent | task").statistic, rel=1e-12)
    assert ("subset=\"agent != 'agent_02'\" kept 48 of 48 rows; 'agent_02' is no value of column 'agent' (did you "
            "mean 'agent_2', 'agent_1', 'agent_3'?)") in res.notes
    res = rlstats.compare(df, "score ~ agent | task", subset="agent not in ['agent_3', 'PPO'] and task != 'task_01'")
    assert res.agents == ("agent_1", "agent_2") and res.nobs == 24
    assert ("subset=\"agent not in ['agent_3', 'PPO'] and task != 'task_01'\" kept 24 of 48 rows; 'PPO' is no value "
            "of column 'agent'") in res.notes
    plain = rlstats.compare(df, "score ~ agent | task", subset="agent != 'agent_2'")  # every value present: no more
    assert "subset=\"agent != 'agent_2'\" kept 32 of 48 rows" in plain.notes


# ------------------------------------------------------------------ names the formula reads from the index

def test_formula_naming_an_index_level_says_reset_index():
    # a groupby result keeps agent and task in its index; the error said only "unknown column 'agent' ... the data
    # columns are: 'score'"
    runs = _runs()
    df = runs.groupby(["agent", "task", "seed"], observed=True).mean()
    way = ("'agent' is a level of the data's index, not a column (a groupby result keeps its keys there); move the "
           "index into the columns first: df = df.reset_index()")
    with pytest.raises(rlstats.errors.FormulaError) as info:
        rlstats.compare(df, "score ~ agent | task")
    assert str(info.value).startswith(f"unknown column 'agent' in the grouping term; {way}")
    with pytest.raises(rlstats.errors.FormulaError, match="'task' is a level of the data's index"):
        rlstats.compare(runs.set_index("task"), "score ~ agent | task/seed")  # the nested path too
    with pytest.raises(rlstats.errors.OptionError) as info:
        rlstats.compare(runs.set_index("agent"), "score ~ task", subset="agent != 'agent_2'")
    assert str(info.value) == f"subset=\"agent != 'agent_2'\" names column 'agent', which the data do not have; {way}"
    res = rlstats.compare(df.reset_index(), "score ~ agent | task")  # the way on gives the tidy frame's numbers
    assert res.statistic == pytest.approx(rlstats.compare(runs, "score ~ agent | task").statistic, rel=1e-12)


def test_adastop_batches_keep_agents_as_written(tmp_path):
    # a long batch with agents '1', '01' and '10': read as numbers, '1' and '01' were one agent of 4 runs ("the first
    # batch has different numbers of runs per agent (1 4, 10 2)")
    import pandas as pd

    first = pd.DataFrame({"agent": ["1", "1", "01", "01", "10", "10"], "score": [0.1, 0.3, 1.2, 1.5, 2.0, 2.2]})
    second = pd.DataFrame({"agent": ["01", "01", "10", "10", "1", "1"], "score": [0.4, 0.2, 1.1, 1.7, 2.4, 2.1]})
    state = tmp_path / "state.json"
    for i, batch in enumerate((first, second)):
        path = tmp_path / f"batch{i}.csv"
        batch.to_csv(path, index=False)
        extra = ["--n", "2", "--K", "2", "--seed", "0", "--permutations", "joint"] if i == 0 else []
        status, _ = run(["adastop", "update", str(state), str(path), *extra])
        assert status == 0
    status, text = run(["adastop", "status", str(state)])
    expected = rlstats.AdaStop(["1", "01", "10"], n=2, K=2, rng=0)
    for batch in (first, second):
        expected.update(batch)
    table = expected.result().tidy()
    assert status == 0 and "runs used: 1 4, 01 4, 10 4" in text
    for row in table.itertuples():  # headed "1st agent", "2nd agent" since audit s27 ("first agent" in s26)
        # a non-rejection printed in words since audit s35 adastop35 (tidy() keeps the reference's 'equal')
        shown = "no difference found" if row.decision == "equal" else row.decision
        assert f"{row.agent_1:<9}  {row.agent_2:<9}  {shown}" in text


# ------------------------------------------------------------------ a boolean Series as subset=, by its index

def test_subset_series_is_read_by_its_index():
    # a boolean Series given as subset= was read by position: on rows in another order than the mask's index it kept
    # the wrong rows (3 agents, chi-squared 3.6279, where pandas' s[mask] keeps agents 1 and 3, 2.5208)
    import numpy as np

    df = _runs()
    mask = df["agent"] != "agent_2"
    shuffled = df.sample(frac=1, random_state=1)
    res = rlstats.compare(shuffled, "score ~ agent | task", subset=mask)
    assert res.agents == ("agent_1", "agent_3") and res.nobs == 32
    assert res.statistic == pytest.approx(2.520833333333333, rel=1e-12)
    assert res.statistic == pytest.approx(rlstats.compare(shuffled[mask.reindex(shuffled.index)], "score ~ agent | task").statistic, rel=1e-12)
    assert "subset=a boolean mask kept 32 of 48 rows" in res.notes
    by_position = rlstats.compare(shuffled, "score ~ agent | task", subset=mask.to_numpy())  # an array: positions
    assert by_position.agents == ("agent_1", "agent_2", "agent_3") and by_position.nobs == 32
    with pytest.raises(rlstats.errors.OptionError) as info:  # labels that are not the data's: pandas refuses too
        rlstats.compare(df.set_index(np.arange(100, 148)), "score ~ agent | task", subset=mask)
    assert str(info.value) == ("subset= is a boolean Series in another order than the data's rows, and its index "
                               "label 0 is no row of the data; build it from these data (e.g. data['agent'] != 'x'), "
                               "or pass mask.to_numpy() to select rows by position")


# ------------------------------------------------------------------ an infinite score

def test_an_infinite_score_error_gives_na_action_drop():
    # the error of an inf score said it is "not a missing value" and left out na_action="drop", which drops it with
    # a note
    import numpy as np

    df = _runs()
    df.loc[3, "score"] = np.inf
    with pytest.raises(rlstats.errors.FormulaError) as info:
        rlstats.compare(df, "score ~ agent | task")
    assert str(info.value).startswith("column 'score' contains 1 non-finite value (1 inf; first rows: index label 3); "
                                      "remove those rows, or pass na_action=\"drop\" to drop them (the result will "
                                      "say how many)")
    dropped = rlstats.compare(df, "score ~ agent | task", na_action="drop")
    assert "1 of 48 rows dropped (na_action=\"drop\"): 1 where 'score' is not finite" in dropped.notes
    assert dropped.statistic == pytest.approx(rlstats.compare(df.drop(index=3), "score ~ agent | task").statistic,
                                              rel=1e-12)
    assert dropped.nobs == 47
