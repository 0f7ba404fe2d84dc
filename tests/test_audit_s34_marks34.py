"""Audit s34 (marks34): a new user's trial on real data (Atari 100k, SB3 logs) found claims the rows did not bear out.

MED-4  task_table: an agent left out of the tests (one run) took the bold best of its tasks, yet the legend said the
       marked agents were a confidence set for "the agent with the best mean of the task", and the header counted
       cells "possibly best besides the best" in tasks with no bold best.
LOW-8  curves: na_action="drop" left one task, and the figure named none (it read as an aggregate over all tasks).
MED-5  bayes' posterior figure: figsize= too small quoted the size asked as "the plot's own size" and named no size
       that works.
LOW-11 bayes without rope=: "practically better / equivalent / worse" and a P(rope) column at rope = 0.
"""

import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _one_run_best():
    """Two tasks; agents A and B with 4 runs each, C with one run whose score is the task's best."""
    rows = []
    for task, shift in (("t1", 0.0), ("t2", 10.0)):
        rows += [("A", task, s, shift + v) for s, v in enumerate([1.0, 1.2, 0.9, 1.1])]
        rows += [("B", task, s, shift + v) for s, v in enumerate([0.2, 0.3, 0.1, 0.25])]
        rows.append(("C", task, 0, shift + 5.0))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])



def test_task_table_says_the_set_is_among_the_agents_tested():
    res = rlstats.task_table(_one_run_best(), "score ~ agent | task/seed")
    # no bold best: C's 5.0 has one run and is left out of the tests; A is marked possibly best in both tasks
    assert not res._bold().any() and res.possibly_best[:, 0].all() and not res.possibly_best[:, 1].any()
    legend = res.mark_sentence()
    assert "among the agents with at least 2 runs" in legend
    assert "left out of the tests: C (in t1, t2)" in legend
    for text in (str(res), str(res.summary()), res.to_latex(), res.to_markdown()):
        flat = " ".join(text.split())
        assert "among the agents with at least 2 runs" in flat
    # the header counts the cells as the table shows them: no bold, 2 marked
    for text in (str(res), str(res.summary())):
        header = next(line for line in text.split("\n") if line.startswith("tasks = "))
        assert "besides the best" not in header
        assert header.endswith("0 agent-task cells bold, 2 marked possibly best (2 cells withheld: too few runs; "
                               "no bold best in 2 tasks, whose best is withheld)")


def _short_curves():
    df = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=4, steps=5, rng=0)
    return df[~((df.agent == "agent_2") & (df.task == "task_02"))]


def test_curves_figure_names_the_task_left():
    res = rlstats.curves(_short_curves(), "score ~ agent | task/seed", step="step", na_action="drop", rng=0,
                         n_resamples=200)
    assert res.tasks == ("task_01",)
    ax = res.plot()
    texts = [ax.get_legend().get_title().get_text(), ax.get_title(), ax.get_ylabel()]
    said = " ".join(" ".join(t.split()) for t in texts)
    assert "task_01" in said and "task_02 dropped" in said
    # one task by the data alone: named too, nothing said dropped
    one = rlstats.curves(_short_curves().query("task == 'task_01'"), "score ~ agent | task/seed", step="step",
                         rng=0, n_resamples=200)
    ax = one.plot(band="none")
    said = " ".join(" ".join(t.split()) for t in [ax.get_legend().get_title().get_text(), ax.get_title(),
                                                 ax.get_ylabel()])
    assert "task_01" in said and "dropped" not in said


def _three_agents():
    return rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=0.5, rng=1)


def test_posterior_figsize_refusal_names_the_own_size_and_one_that_works():
    # two pairs (control=), so that the refusal's search for a size lays out two panels (about 1 s of CPU); on Atari
    # 100k's DrQ(eps), SPR and IRIS (three pairs, hierarchical): (6.9, 1.9) -> "about (7.83, 2.16) holds them; the
    # plot's own size is (3.3, 5.7)", where it quoted (6.9, 1.9) as the own size and named none
    res = rlstats.bayes(_three_agents(), "score ~ agent | task/seed", rope=0.1, rng=0, n_samples=500,
                        normalize=False, control="agent_1")
    own = res.plot(kind="posterior").figure.get_size_inches()
    assert tuple(np.round(own, 2)) == (3.3, 3.8)  # one column, two rows of (2.3, 1.9)
    with pytest.raises(OptionError) as caught:
        res.plot(kind="posterior", figsize=(3, 1.2))  # two columns drawn for it, (4.6, 1.9) scaled
    message = str(caught.value)
    assert "they would be drawn over each other" in message and "the plot's own size is (3.3, 3.8)" in message
    found = re.search(r"about \(([\d.]+), ([\d.]+)\) holds them", message)
    assert found is not None, message
    size = (float(found.group(1)), float(found.group(2)))
    # the shape asked, to the rounding up of each side to 3 digits (matplotlib 3.7: (3.31, 1.33); 3.10: (3.92, 1.57))
    assert size[0] > 3 and size[1] > 1.2 and abs(size[0] / size[1] / 2.5 - 1) < 0.01
    res.plot(kind="posterior", figsize=size)  # drawn at the size it names: no error


def test_bayes_without_rope_says_better_or_worse_only():
    res = rlstats.compare(_three_agents(), "score ~ agent | task/seed", method="bayes", rng=0, n_samples=500,
                          normalize=False)
    text = str(res)
    assert "practically" not in text and "equivalent" not in text and "P(rope)" not in text
    assert "better / worse" in text
    assert "p_rope" not in str(res.summary()) and "P(rope)" not in res.to_latex()
    assert "equivalent" not in res.report("text")
    # as baycomp: with rope=0 two probabilities, P(better) + P(worse) = 1
    tidy = res.tidy()
    assert np.allclose(tidy.p_better + tidy.p_worse, 1.0) and (tidy.p_rope == 0).all()
