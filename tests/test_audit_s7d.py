"""Audit s7d: every output format of a result (print, summary, report, LaTeX, Markdown, HTML, tidy, glance, JSON,
plot, CLI) checked against the others and against the rows analysed. Each test is a minimal reproducer of one
defect found, kept as a regression test now that it is fixed: a number or word shown in one format that differed
from another, or that was not true of the rows."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

import rlstats


def _adastop_one_agent_short():
    """A and C 10 runs, C only 5: A vs B and B vs C are decided at interim 1, A vs C runs out of runs."""
    rng = np.random.default_rng(0)
    rows = [(a, s, float(rng.normal(10.0 * (a == "B"), 1))) for a in "ABC" for s in range(5 if a == "C" else 10)]
    return pd.DataFrame(rows, columns=["agent", "seed", "score"])


def test_adastop_summary_does_not_show_nan_as_a_decided_comparisons_reason():
    res = rlstats.compare(_adastop_one_agent_short(), "score ~ agent", method="adastop", n_resamples=100, rng=1,
                          progress=False, permutations="joint")
    assert (res.tidy().decision != "continue").any() and (res.tidy().decision == "continue").any()
    summary = res.summary()
    for shown in (str(summary), summary.to_markdown(), summary._repr_html_()):
        decided = [line for line in shown.splitlines() if re.search(r"\b(smaller|larger)\b", line)]
        assert decided and not any("NaN" in line for line in decided)
    assert not any(line.startswith("reason") and "NaN" in line for line in summary.to_latex().splitlines())


def _two_run_cell():
    """A and B 5 runs on each of 2 tasks; B only 2 runs on t1, so B's studentized intervals are withheld."""
    rng = np.random.default_rng(0)
    rows = [(a, f"t{t}", r, float(rng.normal(i, 1))) for i, a in enumerate("AB") for t in range(2)
            for r in range(2 if (a, t) == ("B", 1) else 5)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_bootstrap_report_does_not_write_a_withheld_interval_as_nan():
    res = rlstats.compare(_two_run_cell(), "score ~ agent | task", method="bootstrap", n_resamples=100, rng=1,
                          progress=False)
    assert res.tidy().query("agent == 'B'").conf_low.isna().all()
    assert "NaN" not in res.report(format="text") and "NaN" not in res.report()


def test_task_table_markdown_header_escapes_a_pipe_in_an_agent_name():
    rng = np.random.default_rng(0)
    rows = [(a, t, r, float(rng.normal(i, 1))) for i, a in enumerate(["a|b", "c"]) for t in ("t1", "t2")
            for r in range(4)]
    res = rlstats.compare(pd.DataFrame(rows, columns=["agent", "task", "seed", "score"]), "score ~ agent | task",
                          method="task_table", progress=False)
    table = [line for line in res.to_markdown().splitlines() if line.startswith("|")]
    cells = {len(re.findall(r"(?<!\\)\|", line)) for line in table}
    assert len(table) == 4 and cells == {4}


def test_bootstrap_median_bound_monte_carlo_se_is_not_zero_when_it_moves_with_rng():
    df = _two_run_cell().query("agent == 'A'")
    tables = [rlstats.compare(df, "score ~ agent | task", method="bootstrap", metrics=["median"], n_resamples=100,
                              rng=seed, progress=False).summary().tables for seed in (1, 2)]
    rows = [next(t for t in tab.values() if "conf_low_mc_se" in t.columns).iloc[0] for tab in tables]
    assert rows[0].conf_low != rows[1].conf_low
    assert rows[0].conf_low_mc_se > 0


def test_skillings_mack_latex_caption_gives_the_p_value_of_the_result():
    rng = np.random.default_rng(0)
    rows = [(a, f"t{t}", float(rng.normal(i, 1))) for i, a in enumerate("ABC") for t in range(6)
            if not (a == "C" and t == 0)]
    res = rlstats.compare(pd.DataFrame(rows, columns=["agent", "task", "score"]), "score ~ agent | task",
                          progress=False)
    assert res.glance().pvalue_method.iloc[0] == "exact"
    p = f"{res.glance().p_value.iloc[0]:.4f}"
    stated = re.findall(r"p-value = ([0-9.e-]+?)\.?(?:\s|$|\})", res.to_latex())
    assert stated and all(s.startswith(p[:5]) for s in stated), (p, stated)
