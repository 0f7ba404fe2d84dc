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


@pytest.mark.xfail(strict=True, reason="an object column of datetime.date values compared with text keeps every "
                                       "row (!=) or none (==), silently")
def test_date_objects_compared_with_text_are_refused_xfail():
    data = _frame_with_day_objects()
    assert isinstance(data["day"].iloc[0], datetime.date) and data["day"].dtype == object
    with pytest.raises(OptionError, match="cannot compare a column of dates"):
        rlstats.compare(data, "score ~ agent | task/seed", subset="day != '2024-01-02'")
