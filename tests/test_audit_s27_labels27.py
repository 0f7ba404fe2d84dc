"""Audit s27 labels27: the pair's columns say which agent is which in every format, in one home.

1. The shared vocabulary headed agent_1 and agent_2 "agent 1" and "agent 2" in LaTeX (and their codes in text,
   Markdown and HTML), over cells holding agents that simulate() names agent_1, agent_2, ...: a reader could not tell
   the column from the agent, nor which agent's score is subtracted from which. AdaStop alone headed them "first
   agent" and "second agent", by a map of its own (HEADERS, carried in the frame's attrs).
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
    assert _header(str(res), "first agent").split() == ["first", "agent", "second", "agent", "estimate", "conf_low",
                                                       "conf_high"]
    assert _header(str(summary), "first agent").split()[:4] == ["first", "agent", "second", "agent"]
    assert "| first agent | second agent | estimate |" in summary.to_markdown()
    assert "<th>first agent</th><th>second agent</th>" in summary._repr_html_()
    latex = res.to_latex()
    # (three pairs: the table is transposed, a row per column)
    assert "first agent & agent\\_1 & agent\\_1 & agent\\_2 \\\\" in latex
    assert "second agent & agent\\_2 & agent\\_3 & agent\\_3 \\\\" in latex
    assert "agent 1" not in latex and "agent 2" not in latex
    # the estimand says the direction with the words heading the columns, in print and LaTeX alike
    said = "P(first agent > second agent) + P(first agent = second agent) / 2 within a task, averaged over tasks"
    assert f"estimate: {said}" in str(res) and said in summary.tables
    assert "P(first agent $>$ second agent) + P(first agent = second agent) / 2" in latex
    # the frames and tidy() keep the codes
    assert list(res.tidy().columns[:2]) == ["agent_1", "agent_2"]
    assert list(summary.tables[said].columns[:2]) == ["agent_1", "agent_2"]


def test_runs_of_the_pair_labelled_as_shown_in_one_home():
    assert vocabulary.label("n_1") == "runs of first" and vocabulary.label("n_2") == "runs of second"
    assert not {"runs 1", "runs 2", "agent 1", "agent 2"} & {t.label for t in vocabulary.VOCABULARY.values()}
    import rlstats.methods.adastop._result as adastop_result

    assert not hasattr(adastop_result, "HEADERS") and not hasattr(adastop_result, "headed")


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
    header = _header(text, "first agent")
    assert [w for w in header.split("  ") if w] == ["first agent", "second agent", "decision", "interim", "estimate",
                                                    "runs of first", "runs of second", "boundary", "boundary MC SE"]


_PER_TASK = "one permutation test per task: the family-wise error is controlled within each task, not across tasks"


def test_permutation_per_task_says_one_test_per_task_in_one_note():
    df = datasets.simulate(agents=3, tasks=2, seeds=4, effect=1.0, rng=0)
    res = rlstats.permutation(df, "score ~ agent | task", n_resamples=100, rng=0)
    assert [note for note in res.notes if "per task" in note] == [_PER_TASK]
    printed = str(res)
    assert printed.count("within each task") == 1 and f"Note: {_PER_TASK}" in printed
    report = res.report("text")
    assert report.count("within each task") == 1 and "On task_02, 0 of 3 comparisons differ. One permutation " \
        "test per task: the family-wise error is controlled within each task, not across tasks." in report
    assert "one permutation test per task" in res.to_latex()
    # one task: no such note
    alone = rlstats.permutation(df[df["task"] == "task_01"], "score ~ agent", n_resamples=100, rng=0)
    assert not [note for note in alone.notes if "per task" in note]
