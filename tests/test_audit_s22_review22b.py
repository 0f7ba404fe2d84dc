"""Audit s22 review22b: the session's power planning, subset= and compare --summarize, tried as a new user."""

import io
import json

import numpy as np
import pandas as pd
import pytest

from rlstats.cli import main, read_table

FORMULA = "`eval/mean_reward` ~ agent | task/seed"


def curves_file(tmp_path):
    """3 agents x 2 tasks x 3 seeds, logged at steps 1k to 3k (3 values per run); agent C above B above A."""
    rng = np.random.default_rng(0)
    rows = [(agent, task, seed, step, float(rng.normal(10 * i + step / 1000)))
            for i, agent in enumerate(["A", "B", "C"]) for task in ["t1", "t2"] for seed in range(3)
            for step in (1000, 2000, 3000)]
    path = tmp_path / "curves.csv"
    pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "eval/mean_reward"]).to_csv(path, index=False)
    return path


def error_of(argv, capsys):
    assert main(argv) == 2
    return capsys.readouterr().err


def test_summary_errors_name_summarize_option(tmp_path, capsys):
    """compare --summarize: summarize_runs' hints said 'fewer than k=10 logged values' and 'needs threshold=:', which
    the command line takes as --summarize-option k=... (-o k= is no option of the summary)."""
    path = str(curves_file(tmp_path))
    err = error_of(["compare", path, FORMULA, "--summarize", "last_k_mean"], capsys)
    assert err == ("rlstats: error: 18 runs have fewer than --summarize-option k=10 logged values; lower k\n")
    err = error_of(["compare", path, FORMULA, "--summarize", "time_to_threshold"], capsys)
    assert err.startswith("rlstats: error: time_to_threshold needs --summarize-option threshold= (a number"), err
    err = error_of(["compare", path, FORMULA, "--summarize", "last_k_mean", "--summarize-option", "k=0"], capsys)
    assert err == "rlstats: error: --summarize-option k= must be at least 1, got 0\n"
    # and an option of the method still reads -o
    err = error_of(["compare", path, FORMULA, "--summarize", "final", "--method", "adastop"], capsys)
    assert "-o n=" in err and "--summarize-option" not in err, err


def test_summarized_numbers_equal_the_python_route(tmp_path, capsys):
    """--summarize last_k_mean with k=2 gives the statistic of summarize_runs then compare."""
    import rlstats

    path = curves_file(tmp_path)
    assert main(["compare", str(path), FORMULA, "--summarize", "last_k_mean", "--summarize-option", "k=2",
                 "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    runs = rlstats.summarize_runs(pd.read_csv(path), FORMULA, step="step", how="last_k_mean", k=2)
    result = rlstats.compare(runs, FORMULA)
    assert printed["statistic"] == pytest.approx(result.statistic, rel=1e-12)
    # agents A < B < C in every run: each task's mean ranks 2, 5, 8 (S_j = 4, 10, 16 over 2 tasks); the statistic
    # sum_j (S_j - n (kc + 1) / 2)^2 over its null mean n k (kc + 1) (k - 1) / 12 times k - 1, n = 2, k = c = 3
    assert result.statistic == pytest.approx(12 / (2 * 3 * 10) * (36 + 0 + 36), rel=1e-12)


def test_summary_of_an_expression_says_which(tmp_path, capsys):
    """The summary of a response expression is the column 'value'; its note said 'value: the value at each run's last
    logged step', and nothing printed said of what (the statistic: the log's ranks are the scores' ranks, 14.4)."""
    import rlstats

    path = str(curves_file(tmp_path))
    formula = "log(`eval/mean_reward` + 5) ~ agent | task/seed"
    assert main(["compare", path, formula, "--summarize", "final", "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert "value (log(`eval/mean_reward` + 5)): the value at each run's last logged step (every run ends at step " \
           "3k)" in printed["notes"], printed["notes"]
    assert printed["statistic"] == pytest.approx(12 / (2 * 3 * 10) * (36 + 0 + 36), rel=1e-12)
    runs = rlstats.summarize_runs(pd.read_csv(path), formula, step="step").sort_values(["agent", "task", "seed"])
    last = pd.read_csv(path).query("step == 3000")  # in the order agent, task, seed
    assert runs["value"].tolist() == pytest.approx(np.log(last["eval/mean_reward"].to_numpy() + 5), rel=1e-12)
    # a column's summary keeps its name alone
    runs = rlstats.summarize_runs(pd.read_csv(path), FORMULA, step="step")
    assert runs.attrs["rlstats_notes"][0].startswith("eval/mean_reward: the value at each run's last")


def _frame_with_dates():
    rng = np.random.default_rng(0)
    rows = [(agent, task, seed, rng.normal(i)) for i, agent in enumerate(["A", "B", "C"]) for task in ["t1", "t2", "t3"]
            for seed in range(4)]
    data = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    data["day"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(data["seed"], "D")
    return data


def test_dates_compared_with_text_are_refused():
    """A column of dates tested for (in)equality with text or a number kept every row (numpy reads them unequal per
    row; pandas and R parse the text: 27 of 36 rows), where day > '2024-01-02' was refused: now refused alike, and the
    same selection made in pandas is read as it is."""
    import rlstats
    from rlstats.errors import OptionError

    data = _frame_with_dates()
    for condition in ("day != '2024-01-02'", "day not in ['2024-01-02']", "day == 1"):
        with pytest.raises(OptionError, match="cannot compare a column of datetime64"):
            rlstats.compare(data, "score ~ agent | task/seed", subset=condition)
    with pytest.raises(OptionError, match=r"cannot compare a column of datetime64\[\w+, UTC\]"):
        rlstats.compare(data.assign(day=data["day"].dt.tz_localize("UTC")), "score ~ agent | task/seed",
                        subset="day != '2024-01-02'")
    masked = rlstats.compare(data, "score ~ agent | task/seed", subset=data["day"] != "2024-01-02")
    expected = rlstats.compare(data, "score ~ agent | task/seed", subset="seed != 1")
    assert masked.notes[0] == "subset=a boolean mask kept 27 of 36 rows"
    assert masked.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert masked.statistic == pytest.approx(11.822222222222221, rel=1e-12)


def _numbered_agents_file(tmp_path, blank=True):
    """Agents 1, 2 and 10 on 3 tasks x 4 seeds; one agent field left empty (row 6 of the file)."""
    rng = np.random.default_rng(1)
    rows = [(agent, task, seed, rng.normal(i)) for i, agent in enumerate(["1", "2", "10"])
            for task in ["t1", "t2", "t3"] for seed in range(4)]
    data = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    if blank:
        data.loc[5, "agent"] = ""
    path = tmp_path / "numbered.csv"
    data.to_csv(path, index=False)
    return path


def test_numbered_agents_with_an_empty_field_keep_their_names(tmp_path, capsys):
    """A name column of whole numbers with an empty field: pandas' reader made it floats, and agents 1, 2 and 10 were
    printed as 1.0, 2.0 and 10.0. Now read as whole numbers (Int64): the names as written, the same statistic as the
    file without the empty field's row, and conditions on numbers still read."""
    import rlstats

    path = str(_numbered_agents_file(tmp_path))
    assert main(["compare", path, "score ~ agent | task/seed", "-o", "na_action=drop", "--format", "csv"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype=str)
    assert printed[["agent_1", "agent_2"]].values.tolist() == [["1", "2"], ["1", "10"], ["2", "10"]]
    (tmp_path / "full").mkdir()
    data = pd.read_csv(_numbered_agents_file(tmp_path / "full", blank=False)).drop(index=5)
    expected = rlstats.compare(data, "score ~ agent | task/seed")
    assert main(["compare", path, "score ~ agent | task/seed", "-o", "na_action=drop", "--format", "json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert said["statistic"] == pytest.approx(11.225249040249093, rel=1e-12)
    assert main(["compare", path, "score ~ agent | task/seed", "-o", "na_action=drop", "-o", "subset=agent != 10",
                 "--format", "json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["nobs"] == 23
    # a file writing 1.0 keeps floats (the names as written are not whole numbers)
    read = read_table(_write(tmp_path / "f.csv", "agent,task,seed,score\n1.0,a,0,1\n,a,1,2\n2.5,a,0,3\n"),
                      names=("agent", "task", "seed"))
    assert read["agent"].dtype.kind == "f"
    read = read_table(_write(tmp_path / "i.csv", "agent,task,seed,score\n1,a,0,1\n,a,1,2\n10,a,0,3\n"),
                      names=("agent", "task", "seed"))
    assert str(read["agent"].dtype) == "Int64" and read["agent"].tolist()[::2] == [1, 10]


def _write(path, text):
    path.write_text(text)
    return str(path)


def _frame():
    rng = np.random.default_rng(0)
    rows = [(agent, task, seed, rng.normal(i)) for i, agent in enumerate(["A", "B", "C"]) for task in ["t1", "t2", "t3"]
            for seed in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_mask_errors_say_what_the_mask_holds():
    """subset='s mask errors quoted a label as np.int64(1) and called a nullable boolean mask with a missing value 'an
    array of dtype object'; the same mask filled with False keeps the rows of the mask without that row."""
    import rlstats
    from rlstats.errors import OptionError

    data = _frame()
    data.index = data.index * 10
    with pytest.raises(OptionError, match="its index label 1 is no row of the data;"):
        rlstats.compare(data, "score ~ agent | task/seed", subset=pd.Series((data["seed"] != 2).to_numpy()))
    mask = (data["seed"] != 2).astype("boolean")
    mask.iloc[0] = pd.NA
    with pytest.raises(OptionError, match=r"subset= is a boolean mask with 1 missing value \(first at position 0\), "
                                          r"which keeps a row neither in nor out; fill them, e.g. mask.fillna\(False\)"):
        rlstats.compare(data, "score ~ agent | task/seed", subset=mask)
    filled = rlstats.compare(data, "score ~ agent | task/seed", subset=mask.fillna(False))
    expected = rlstats.compare(data.iloc[1:], "score ~ agent | task/seed", subset="seed != 2")
    assert filled.notes[0] == "subset=a boolean mask kept 26 of 36 rows"
    assert filled.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert filled.statistic == pytest.approx(14.536, abs=5e-4)  # as the Int64 seed with a missing value gave


def test_time_to_threshold_note_when_every_run_reaches_it(tmp_path):
    """time_to_threshold's note said '0 of 18 runs never reached it and are censored at step ...' when every run had
    (the real SB3 logs' CartPole-v1 alone, -o "subset=task == 'CartPole-v1'": '0 of 9 runs')."""
    import rlstats

    data = pd.read_csv(curves_file(tmp_path))
    runs = rlstats.summarize_runs(data, FORMULA, step="step", how="time_to_threshold", threshold=-100)
    note = runs.attrs["rlstats_notes"][-1]
    assert note.endswith("at which the run reached -100 (steps 1k to 3k; every run ends at step 3k); every run reached "
                         "it; smaller is better here: a function taking higher_is_better= reads it as False unless "
                         "it is given, and says so in a note"), note  # every such function takes it (audit s34)
    assert runs["eval/mean_reward"].tolist() == [1000] * 18 and not runs["censored"].any()
    # some runs censored: counted as before (agent A's 6 runs, about 0 to 3, and one of B's, about 10 to 13)
    runs = rlstats.summarize_runs(data, FORMULA, step="step", how="time_to_threshold", threshold=12.5)
    never = data.groupby(["agent", "task", "seed"])["eval/mean_reward"].max() < 12.5
    assert int(runs["censored"].sum()) == int(never.sum()) == 7
    # (audit s28 censor28: they count their task's horizon, 3k, no longer 4k, one interval after the end)
    assert "; 7 of 18 runs never reached it by their task's horizon, the last step every run of the task logs (step " \
           "3k), and count that step: " in runs.attrs["rlstats_notes"][-1]
    assert runs.loc[runs["censored"], "eval/mean_reward"].eq(3000).all()
