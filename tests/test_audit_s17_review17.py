"""Audit s17 (review17): second reading of session 17's merged change.  Each test is a defect's reproducer."""

import numpy as np
import pandas as pd
import pytest

import rlstats


def _nested(tmp_path=None):
    """2 agents x 2 tasks x 3 runs x 2 seeds (24 rows, a RangeIndex); row 17's score is missing."""
    rng = np.random.default_rng(0)
    rows = [(a, t, r, s, float(rng.normal())) for a in "AB" for t in ("t1", "t2") for r in range(3) for s in range(2)]
    df = pd.DataFrame(rows, columns=["agent", "task", "run", "seed", "score"])
    df.loc[17, "score"] = np.nan
    path = None
    if tmp_path is not None:
        path = tmp_path / "nested.csv"
        df.to_csv(path, index=False)
    return df, path


def test_a_missing_seed_score_is_named_by_the_callers_row(tmp_path, capsys):
    """'| task/run/seed' with a seed's score missing: the error named "column '`score`' ... (first rows: index label
    8)", a row of the frame of run means the caller never saw (the missing value is at index label 17), and the
    command turned it into "data row 9 (line 10 of FILE)", a line holding a score.  The row is the caller's: label
    17, data row 18 (line 19)."""
    from test_cli import run

    df, path = _nested(tmp_path)
    with pytest.raises(rlstats.errors.DesignError) as info:
        rlstats.compare(df, "score ~ agent | task/run/seed", method="bootstrap", rng=0)
    assert "column 'score' has 1 missing value (first rows: index label 17)" in str(info.value)
    status, out = run(["compare", str(path), "score ~ agent | task/run/seed", "--method", "bootstrap"])
    err = capsys.readouterr().err
    assert status == 2 and out == ""
    assert f"(first rows: data row 18 (line 19 of {path}))" in err, err
    assert path.read_text().splitlines()[18].endswith(",")  # line 19 is the row without a score


def test_adastop_names_the_agent_whose_scores_are_text():
    """A long batch whose score column is text because of one of B's values: the error said "scores of agent 'A' are
    not numbers: [1.0, 2.0, 3.0]" (the first agent grouped, every value a number).  It names B and its values."""
    seq = rlstats.AdaStop(["A", "B"], n=3, K=2, rng=0)
    batch = pd.DataFrame({"agent": ["A", "A", "B", "B", "A", "B"], "score": [1.0, 2.0, "x", 3.0, 3.0, 4.0]})
    with pytest.raises(rlstats.errors.DesignError) as info:
        seq.update(batch)
    message = str(info.value)
    assert "scores of agent 'B' are not numbers" in message and "'A'" not in message, message
    assert "'x'" in message


def test_a_normalisers_range_is_checked_on_each_seed(tmp_path, capsys):
    """normalize='dm_control' (returns in [0, 1000]) with '| task/run/seed': two seeds of one run at 1500 were "1
    row(s) ... index label 8", a row of the run means (the command: "data row 9 (line 10 of FILE)", a return of
    about 500), and seeds at 2000 and 0, no Control Suite returns, passed as their mean 1000 without a word."""
    from test_cli import run

    rng = np.random.default_rng(0)
    rows = [(a, t, r, s, float(rng.uniform(200, 800))) for a in "AB" for t in ("walker-walk", "cheetah-run")
            for r in range(3) for s in range(2)]
    df = pd.DataFrame(rows, columns=["agent", "task", "run", "seed", "score"])
    df.loc[[16, 17], "score"] = 1500.0
    formula = "score ~ agent | task/run/seed"
    with pytest.raises(rlstats.errors.DesignError) as info:
        rlstats.compare(df, formula, method="bootstrap", rng=0, normalize="dm_control")
    assert ("2 rows of 'score' lie outside it: index label 16 (agent 'B', task 'walker-walk', score 1500.0), "
            "index label 17 (agent 'B', task 'walker-walk', score 1500.0)") in str(info.value)
    path = tmp_path / "dmc.csv"
    df.to_csv(path, index=False)
    status, _ = run(["compare", str(path), formula, "--method", "bootstrap", "-o", "normalize=dm_control"])
    err = capsys.readouterr().err
    assert status == 2 and f"data row 17 (line 18 of {path}) (agent 'B'" in err, err
    df.loc[16, "score"], df.loc[17, "score"] = 2000.0, 0.0
    with pytest.raises(rlstats.errors.DesignError, match=r"1 row of 'score' lies outside it: index label 16 "):
        rlstats.compare(df, formula, method="bootstrap", rng=0, normalize="dm_control")


def test_adastop_update_shows_the_command_wording_of_a_refused_batch(tmp_path, capsys):
    """A batch file whose agent column spells 'A' as ' A' once: build() gives a command-line wording ("strip the spaces
    around it in the file's column 'agent'"), but check_batch_columns re-raised the error with str(), so the command
    said "strip it: df['agent'] = df['agent'].str.strip()".  Python's message is unchanged."""
    from test_cli import run

    batch = pd.DataFrame({"agent": ["A", " A", "A", "B", "B", "B"], "seed": [1, 2, 3, 1, 2, 3],
                          "score": [1.0, 1.5, 2.0, 3.0, 3.5, 4.0]})
    path = tmp_path / "batch.csv"
    batch.to_csv(path, index=False)
    status, _ = run(["adastop", "update", str(tmp_path / "state.json"), str(path), "--n", "3", "--K", "2"])
    err = capsys.readouterr().err
    assert status == 2 and "strip the spaces around it in the file's column 'agent'" in err, err
    assert "str.strip()" not in err
    seq = rlstats.AdaStop(["A", "B"], n=3, K=2, rng=0)
    with pytest.raises(rlstats.errors.DesignError) as info:
        seq.update(batch)
    assert "strip it: df['agent'] = df['agent'].str.strip()" in str(info.value)


def test_a_missing_seed_score_dropped_is_counted_in_the_callers_rows():
    """'| task/run/seed', na_action="drop", one seed's score missing (row 17 of 24): the notes said "3 runs of 2 seeds
    per agent and task" (B has 2 runs left on t1) and "1 of 12 rows dropped (na_action="drop"): 1 with missing
    values" (the data have 24 rows; 12 is the count of run means).  The run goes whole (a run's mean needs every
    seed), said in the caller's rows."""
    df, _ = _nested()
    res = rlstats.compare(df, "score ~ agent | task/run/seed", method="bootstrap", na_action="drop", rng=0,
                          n_resamples=200)
    assert res.nobs == 11  # 12 runs, one left out
    notes = " ".join(res.notes)
    assert "of 12 rows" not in notes, res.notes
    assert ("2 of 24 rows dropped (na_action=\"drop\") before the seeds were averaged: 1 with a missing value in 'score' "
            "and 1 more of its run") in notes, res.notes
    assert "2-3 runs of 2 seeds per agent and task" in notes, res.notes
