"""Audit s27 labels27: the pair's columns say which agent is which in every format, in one home.

1. The shared vocabulary headed agent_1 and agent_2 "agent 1" and "agent 2" in LaTeX (and their codes in text,
   Markdown and HTML), over cells holding agents that simulate() names agent_1, agent_2, ...: a reader could not tell
   the column from the agent, nor which agent's score is subtracted from which. AdaStop alone headed them "first
   agent" and "second agent", by a map of its own (HEADERS, carried in the frame's attrs). Now every format heads
   them "1st agent" and "2nd agent" (short: "second agent" put the Bayesian test's pair table of Atari 100k, 215 pt,
   into a two-column table*), and each back end says which way its difference reads.
2. AdaStop's n_1 and n_2 were labelled "runs 1" and "runs 2", which no table showed (its map said "runs of first");
   ``rlstats adastop status`` printed the raw code boundary_mc_se beside "first agent".
3. The permutation test per task said "one test per task" in a printed line of its own and a sentence of its
   report, where AdaStop says it in a note.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

import rlstats
import rlstats.cli as cli
from rlstats import datasets, vocabulary


def _poi():
    df = datasets.simulate(agents=3, tasks=2, seeds=3, effect=1.0, rng=0)
    return rlstats.probability_of_improvement(df, "score ~ agent | task")


def _header(text, start):
    return next(line for line in text.splitlines() if line.lstrip().startswith(start))


def test_pair_columns_headed_first_and_second_agent_in_every_format():
    res = _poi()
    summary = res.summary()
    assert _header(str(res), "1st agent").split() == ["1st", "agent", "2nd", "agent", "estimate", "conf_low",
                                                     "conf_high"]
    assert _header(str(summary), "1st agent").split()[:4] == ["1st", "agent", "2nd", "agent"]
    assert "| 1st agent | 2nd agent | estimate |" in summary.to_markdown()
    assert "<th>1st agent</th><th>2nd agent</th>" in summary._repr_html_()
    latex = res.to_latex()
    # (three pairs: the table is transposed, a row per column)
    assert "1st agent & agent\\_1 & agent\\_1 & agent\\_2 \\\\" in latex
    assert "2nd agent & agent\\_2 & agent\\_3 & agent\\_3 \\\\" in latex
    assert "agent 1" not in latex and "agent 2" not in latex
    # the estimand says the direction with the words heading the columns, in print and LaTeX alike
    said = "P(1st agent > 2nd agent) + P(1st agent = 2nd agent) / 2 within a task, averaged over tasks"
    assert f"estimate: {said}" in str(res) and said in summary.tables
    assert "P(1st agent $>$ 2nd agent) + P(1st agent = 2nd agent) / 2" in latex
    # the frames and tidy() keep the codes
    assert list(res.tidy().columns[:2]) == ["agent_1", "agent_2"]
    assert list(summary.tables[said].columns[:2]) == ["agent_1", "agent_2"]


def test_runs_of_the_pair_labelled_as_shown_in_one_home():
    assert vocabulary.label("n_1") == "runs of 1st" and vocabulary.label("n_2") == "runs of 2nd"
    assert not {"runs 1", "runs 2", "agent 1", "agent 2"} & {t.label for t in vocabulary.VOCABULARY.values()}


def _run(*argv):
    out = io.StringIO()
    status = cli.main(list(argv), out=out)
    return status, out.getvalue()


def test_adastop_command_heads_every_decision_column_in_words(tmp_path):
    rng = np.random.default_rng(1)
    batch = tmp_path / "b1.csv"
    pd.DataFrame({"A": rng.normal(0, 1, 5), "B": rng.normal(0.1, 1, 5)}).to_csv(batch, index=False)
    status, text = _run("adastop", "update", str(tmp_path / "s.json"), str(batch), "--K", "3", "--seed", "0")
    assert status == 0
    header = _header(text, "1st agent")
    assert [w for w in header.split("  ") if w] == ["1st agent", "2nd agent", "decision", "interim", "estimate",
                                                    "runs of 1st", "runs of 2nd", "boundary", "boundary MC SE"]


_PER_TASK = "one permutation test per task: the family-wise error is controlled within each task, not across tasks"


def test_permutation_per_task_says_one_test_per_task_in_one_note():
    df = datasets.simulate(agents=3, tasks=2, seeds=4, effect=1.0, rng=0)
    res = rlstats.permutation(df, "score ~ agent | task", n_resamples=100, rng=0, permutations="joint")
    assert [note for note in res.notes if "per task" in note] == [_PER_TASK]
    printed = str(res)
    assert printed.count("within each task") == 1 and f"Note: {_PER_TASK}" in printed
    report = res.report("text")
    assert report.count("within each task") == 1 and "On task_02, 0 of 3 comparisons differ. One permutation " \
        "test per task: the family-wise error is controlled within each task, not across tasks." in report
    assert "one permutation test per task" in res.to_latex()
    # one task: no such note
    alone = rlstats.permutation(df[df["task"] == "task_01"], "score ~ agent", n_resamples=100, rng=0, permutations="joint")
    assert not [note for note in alone.notes if "per task" in note]


def _direction_data():
    return datasets.simulate(agents=3, tasks=4, seeds=3, effect=1.0, rng=0)


def _latex_caption(result, table):
    return next(line for line in result.to_latex().splitlines() if line.startswith("\\caption{") and f": {table}" in line)


def test_each_pair_table_says_which_way_its_estimate_reads():
    """The mixed model's, the rank tests' and equivalence's pair tables said no direction: each now says it under the
    table (text, Markdown, HTML) and in its LaTeX caption, and the numbers read that way (the first agent's minus the
    second's, recomputed here from the runs)."""
    df = _direction_data()
    cell = df.groupby(["task", "agent"])["score"].mean().unstack()
    mean = df.groupby("agent")["score"].mean()  # balanced: the estimated marginal means are the agents' means
    mixed = rlstats.mixed(df, "score ~ agent | task/seed", normalize=False)
    row = mixed.tidy().iloc[0]
    assert (row["agent_1"], row["agent_2"]) == ("agent_1", "agent_2")
    np.testing.assert_allclose(row["estimate"], mean["agent_1"] - mean["agent_2"], rtol=1e-9)
    key = "estimate: the 1st agent's estimated marginal mean minus the 2nd agent's"
    assert f"({key})" in str(mixed.summary()) and f"({key})" in mixed.summary().to_markdown()
    assert f"E{key[1:]}." in _latex_caption(mixed, "Pairwise")
    ranks = rlstats.skillings_mack(df, "score ~ agent | task", posthoc="wilcoxon", control="agent_1")
    row = ranks.tidy().iloc[0]  # agent_2 against the control agent_1: the 1st agent is agent_2
    assert (row["agent_1"], row["agent_2"]) == ("agent_2", "agent_1")
    np.testing.assert_allclose(row["estimate"], np.median(cell["agent_2"] - cell["agent_1"]), rtol=1e-9)
    assert "(estimate: the median over shared tasks of the 1st agent's per-task score minus the 2nd agent's)" \
        in str(ranks.summary())
    mean_ranks = rlstats.skillings_mack(df, "score ~ agent | task")
    ordered = mean_ranks.tidy().set_index(["agent_1", "agent_2"])["estimate"]
    by_agent = dict(zip(mean_ranks.agents, mean_ranks.mean_ranks))
    np.testing.assert_allclose(ordered["agent_1", "agent_3"], by_agent["agent_1"] - by_agent["agent_3"], rtol=1e-9)
    assert "Estimate: the mean over the tasks both ran of the 1st agent's rank minus the 2nd agent's (1 = best: " \
           "negative favours the 1st agent)." in _latex_caption(mean_ranks, "Pairwise")
    tost = rlstats.equivalence(df, "score ~ agent | task", margin=1.0, aggregate=None, normalize=False)
    rows = tost.tidy()[lambda t: t["scope"] == "task"]
    first = rows[(rows["agent_1"] == "agent_1") & (rows["agent_2"] == "agent_3")]
    np.testing.assert_allclose(first["estimate"], (cell["agent_1"] - cell["agent_3"]).to_numpy(), rtol=1e-9)
    assert "(estimate: delta = 1st agent - 2nd agent)" in str(tost.summary())
    assert "Estimate: delta = 1st agent - 2nd agent." in _latex_caption(tost, "Tests against")
    assert "(delta = 1st agent - 2nd agent)" in str(tost)
