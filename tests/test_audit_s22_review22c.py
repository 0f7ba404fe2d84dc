"""Audit s22 review22c: review of the report22, norm22 and review22b merges (signif_apart, did_you_mean, min-max
bounds from the rows analysed, dates in subset= conditions)."""

import datetime

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _frame_with_day_objects():
    """3 agents x 3 tasks x 4 seeds; 'day' holds datetime.date objects (``df['ts'].dt.date``: an object column)."""
    rng = np.random.default_rng(0)
    rows = [(agent, task, seed, rng.normal(i)) for i, agent in enumerate(["A", "B", "C"]) for task in ["t1", "t2", "t3"]
            for seed in range(4)]
    data = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    data["day"] = (pd.Timestamp("2024-01-01") + pd.to_timedelta(data["seed"], "D")).dt.date
    return data


def test_date_objects_compared_with_text_are_refused():
    """An object column of datetime.date values (``df['ts'].dt.date``) compared with text kept every row with != ('kept
    36 of 36 rows') and none with ==, silently per row: refused as a datetime64 column is; dates written as text, or a
    column mixing dates with text, are compared as before (27 of 36 rows kept)."""
    data = _frame_with_day_objects()
    assert isinstance(data["day"].iloc[0], datetime.date) and data["day"].dtype == object
    for condition in ("day != '2024-01-02'", "day == '2024-01-02'", "day in ['2024-01-02']", "day == 1"):
        with pytest.raises(OptionError, match=r"subset=.*: cannot compare a column of date/time objects with the "
                                              r"value ('2024-01-02'|1); "):
            rlstats.compare(data, "score ~ agent | task/seed", subset=condition)
    with pytest.raises(OptionError, match="cannot compare a column of category values with the value"):
        rlstats.compare(data.assign(day=data["day"].astype("category")), "score ~ agent | task/seed",
                        subset="day != '2024-01-02'")
    as_text = rlstats.compare(data.assign(day=data["day"].astype(str)), "score ~ agent | task/seed",
                              subset="day != '2024-01-02'")
    expected = rlstats.compare(data, "score ~ agent | task/seed", subset="seed != 1")
    assert as_text.notes[0] == "subset=\"day != '2024-01-02'\" kept 27 of 36 rows"
    assert as_text.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert as_text.statistic == pytest.approx(11.822222222222221, rel=1e-12)
    mixed = data.assign(day=[d if i else "none" for i, d in enumerate(data["day"])])  # dates and text: compared
    assert rlstats.compare(mixed, "score ~ agent | task/seed", subset="day != 'none'").notes[0] == (
        "subset=\"day != 'none'\" kept 35 of 36 rows")


def _two_agents():
    rng = np.random.default_rng(0)
    return pd.DataFrame([(a, t, s, rng.normal()) for a in "AB" for t in ["t1", "t2"] for s in range(5)],
                        columns=["agent", "task", "seed", "score"])


def test_another_statistic_is_not_called_a_misspelling():
    """aggregate='median' read "(did you mean 'mean'?)" (difflib's ratio 0.8): another statistic, not a misspelling;
    a misspelling or another case of an allowed statistic is still named."""
    from rlstats.options import did_you_mean

    with pytest.raises(OptionError) as caught:
        rlstats.equivalence(_two_agents(), "score ~ agent | task/seed", margin=0.5, aggregate="median")
    assert str(caught.value) == "aggregate='median' is not one of the allowed values: 'iqm', 'mean'"
    with pytest.raises(OptionError) as caught:
        rlstats.equivalence(_two_agents(), "score ~ agent | task/seed", margin=0.5, aggregate="IQM")
    assert str(caught.value) == "aggregate='IQM' is not one of the allowed values: 'iqm', 'mean' (did you mean 'iqm'?)"
    assert did_you_mean("mean", ["iqm", "median"]) == ""
    assert did_you_mean("meen", ["iqm", "mean"]) == " (did you mean 'mean'?)"
    assert did_you_mean("Median", ["median", "mean"]) == " (did you mean 'median'?)"
    assert did_you_mean("two_sided", ["two-sided", "less"]) == " (did you mean 'two-sided'?)"


def test_summary_alpha_from_an_iterator():
    """Summary(alpha=) given an iterator read it up in its first check, so no table kept the levels and 0.0499996
    printed '0.05' in both; now '0.0499996' in each table, 0.2 as '0.2', and the tables given are not modified."""
    from rlstats.results import Summary

    table = pd.DataFrame({"p_value": [0.0499996, 0.2]})
    summary = Summary("m", "h", {"a": table, "b": table}, alpha=(a for a in [0.05]))
    text = str(summary)
    assert text.count("0.0499996") == 2 and text.count("0.2\n") + text.count("0.2 ") >= 2
    assert [t.attrs["rlstats_alpha"] for t in summary.tables.values()] == [(0.05,), (0.05,)]
    assert "rlstats_alpha" not in table.attrs
    assert "0.05" in str(Summary("m", "h", {"a": table}))  # no levels: 3 digits


def _nested():
    rng = np.random.default_rng(1)
    return pd.DataFrame([(a, t, r, s, float(rng.integers(0, 100))) for a in "ABC" for t in ["t1", "t2"]
                         for r in range(3) for s in range(2)], columns=["agent", "task", "run", "seed", "score"])


def test_minmax_of_run_means_says_so():
    """Min-max on seeds averaged within runs took its bounds from the run means (t1 8.5 to 85) while its note said
    'the smallest and largest score of each task in the data' (the data's scores: t1 3 to 95): the note says whose."""
    data = _nested()
    before = data.copy()
    result = rlstats.task_table(data, "score ~ agent | task/run/seed", normalize="minmax")
    note = next(n for n in result.notes if "normalised" in n)
    assert note == ("'score' normalised per task as (score - min) / (max - min) with min and max the smallest and "
                    "largest score of each task among the run means (each run's seeds averaged) in the data: t1 8.5 "
                    "to 85, t2 5 to 88")
    means = data.groupby(["agent", "task", "run"]).score.mean().groupby("task").agg(["min", "max"])
    assert means.loc["t1"].tolist() == [8.5, 85.0] and means.loc["t2"].tolist() == [5.0, 88.0]
    assert data.groupby("task").score.agg(["min", "max"]).loc["t1"].tolist() == [3.0, 95.0]
    pd.testing.assert_frame_equal(data, before)
    plain = rlstats.task_table(data, "score ~ agent | task", normalize="minmax")  # no averaging: as before
    assert "in the data: t1 3 to 95, t2 " in next(n for n in plain.notes if "normalised" in n)
