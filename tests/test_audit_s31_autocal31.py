"""Audit s31 (autocal31): the calibration table after pvalue="auto" of the rank test enumerates up to 200,000
within-task arrangements (trialfix31; it stopped at 20,000, AUTO_EXACT_LIMIT, now the post hoc pairs' alone)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats


def _balanced(agents, tasks, runs, rng=0):
    generator = np.random.default_rng(rng)
    t, a, s = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    return pd.DataFrame({"task": [f"t{i:02d}" for i in t.ravel()], "agent": [f"a{i}" for i in a.ravel()],
                         "seed": s.ravel(), "score": generator.normal(size=t.size)})


@pytest.mark.xfail(strict=True, reason="audit s31 autocal31: the printed reason quotes 0.0525 over 2-5 agents")
def test_chi_squared_reason_quotes_the_designs_where_chi_squared_is_taken():
    """Beyond the enumeration limit the printed reason quoted the chi-squared size 'at most 0.0525 over designs of 2-5
    agents x 3-50 tasks x 1-3 runs per cell beyond that'; two agents never take the chi-squared p-value (convolved, or
    Monte Carlo where its size is 0.065-0.127, 0.065 at 2 x 50 x 1, 2^50 arrangements), nor do 3 agents with one run
    on fewer than 40 tasks (Monte Carlo; 0.057-0.072). The 0.0525 is of the 3-5 agent designs where it is taken."""
    res = rlstats.skillings_mack(_balanced(3, 10, 3), "score ~ agent | task/seed", progress=False)
    assert res.pvalue_method == "asymptotic"
    assert "2-5 agents" not in res.pvalue_rule
    assert "0.0525" in res.pvalue_rule and "3-5 agents" in res.pvalue_rule
