"""Audit s29 (real29b): what a user copies into a paper -- ``print(res)``, ``res.summary()``, ``res.to_latex()``,
``res.report()``, the task table and the command line -- on the published scores (Atari 100k raw and
human-normalised, min-max-normalised AdaStop MuJoCo batches, HalfCheetah SAC/TD3), the SB3 logs, marl-eval's JSON
and Dierkes et al.'s landscapes.

Checked and found right: LaTeX of every back end run (compare, task_table, bootstrap, percentiles, mixed, tuning,
equivalence, probability_of_improvement) with agents and tasks named ``DrQ_eps 50% & co``, ``SPR#2``, ``CURL~x``,
``Pong_v5`` and ``Box&ing`` has no unescaped ``_ % & # ^ < >``, balanced braces and no non-ASCII character; the
command line's text, summary, markdown, LaTeX and CSV equal the API's but for the way an option is spelled
(``-o x=`` for ``x=``); the task table's aggregate (IRIS 2.18 = mean of its 4 task means), its "Best per task"
counts and the mixed model's marginal means (the means of the task means, checked with pandas); the rank test's
mean ranks (checked with its rescaling written by hand); read-logs' SB3 evaluations (every row equals its
evaluations.npz) and marl-eval's final returns (means and standard deviations by hand).

Defects found and mended:

- The printed result gave some numbers at 4 significant digits that its own header, its summary and its LaTeX table
  give at 5: performance percentiles printed the top agent as "aggregate = 0.36332" in its header and "0.3633" in
  its line below (its LaTeX table: 0.36332), and the rank test printed DDPG's mean rank on the MuJoCo batches as
  "3.3" where the summary and the LaTeX table read 3.2997. A reader checking a pasted table against the print saw
  two values. The print now uses the digits of the tables.
- task_table(aggregate="iqm") (rliable's IQM row, and the command line's -o aggregate=iqm) was refused as "must be
  None or 'bootstrap'" without the way to it: the row's metric is statistic=. The refusal now names
  aggregate='bootstrap' with statistic='iqm' (checked by running it on Atari 100k: its IQM row equals
  rlstats.bootstrap's IQM and scipy's trim_mean(0.25) of the pooled normalised runs for all 9 agents).
- read_logs of one marl-eval file not named metrics.json (marl-eval's own mock_data_test.json) listed every format
  without saying that format='marl_eval' reads any .json file; it now says so (the command line: --format marl_eval).

Left as found (reported): the Bayesian test's print gives shares and differences at 4 digits beside its LaTeX's 5
(P(better) 0.9891 vs 0.98914 on the MuJoCo batches), tuning()'s print its expected-max lines at 4 and 3; tuning's
intervals run above a cap the data show (LunarLander landscapes: 5.6% of runs at exactly 1000, tuned-score interval
up to 1092.3) unless bounds= is given, and nothing suggests it.

Tests reading the published scores skip with the reason when neither ../shared/data nor the mirror is here."""

from __future__ import annotations

import re

import pytest

import rlstats
from rlstats.tables import read_csv


@pytest.fixture
def mujoco(published):
    """The AdaStop MuJoCo batches on ant and walker (PPO, SAC, DDPG, TRPO, 5 to 30 runs per cell): two tasks keep
    the tests fast."""
    frame = read_csv(published / "mujoco_batches.csv")
    return frame[frame["task"].isin(["ant", "walker"])]


def _latex_rows(tex):
    """{first cell: [other cells]} of every body row of a LaTeX tabular, the minus signs back to hyphens."""
    rows = {}
    for line in tex.split("\n"):
        if line.endswith(r"\\") and " & " in line:
            cells = [c.strip().replace("$-$", "-") for c in line[:-2].split(" & ")]
            rows.setdefault(cells[0], cells[1:])
    return rows


def test_percentiles_print_gives_the_latex_digits(mujoco):
    res = rlstats.percentiles(mujoco, "score ~ agent | task", interval=None)
    rows = _latex_rows(res.to_latex())
    printed = str(res)
    for agent in res.agents:
        line = next(x for x in printed.split("\n") if x.startswith(f"  {agent} "))
        assert line.split()[1] == rows[agent][0], (line, rows[agent])
    top = re.search(r"aggregate = (\S+),", printed).group(1)
    assert top in [cells[0] for cells in rows.values()]


def test_rank_test_print_gives_the_mean_ranks_of_the_latex_table(mujoco):
    res = rlstats.compare(mujoco, "score ~ agent | task", pvalue="asymptotic")
    rows = _latex_rows(res.to_latex())
    lines = str(res).split("\n")
    at = next(i for i, x in enumerate(lines) if x.startswith("mean ranks"))
    names, values = lines[at + 1].split(), lines[at + 2].split()
    assert names == list(res.agents)
    assert {n: v for n, v in zip(names, values)} == {a: rows[a][0] for a in res.agents}


def test_task_table_aggregate_named_as_a_statistic_says_how():
    import pandas as pd

    frame = pd.DataFrame({"agent": ["A", "B"] * 4, "task": ["t"] * 8, "score": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    with pytest.raises(rlstats.OptionError) as caught:
        rlstats.task_table(frame, "score ~ agent | task", aggregate="iqm")
    assert "aggregate='bootstrap' with statistic='iqm'" in str(caught.value)


def test_one_json_log_not_named_metrics_json_is_pointed_to_marl_eval(tmp_path):
    # marl-eval's own test file is mock_data_test.json: its logger names files metrics.json, users rename them
    path = tmp_path / "mock_data_test.json"
    path.write_text('{"env": {"task": {"algo": {"0": {"STEP_1": {"step_count": 10, "return": [1.0]}}}}}}')
    with pytest.raises(rlstats.LogReadError) as caught:
        rlstats.read_logs(path)
    assert "format='marl_eval'" in str(caught.value)
    assert rlstats.read_logs(path, format="marl_eval")["return"].tolist() == [1.0]
