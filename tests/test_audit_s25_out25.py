"""Audit s25 (out25): what a paper pastes from rlstats.

1. The bootstrap's notes named withheld intervals by codes, "agent_4/optimality_gap", in the LaTeX table (and the
   print) whose prose and ``metric`` column say "optimality gap" (:func:`rlstats.vocabulary.metric_label`).
2. Straight quotes in LaTeX text: pdflatex's default encoding sets ``"`` and ``'`` as closing quotes, so
   ``interval="percentile"`` read interval=”percentile” and 'task_04' read ’task_04’.
3. Figures: AdaStop's boundaries grid (3 agents, a 25-letter task name in the right column) at its own size drew that
   panel's title 1.27 px past the figure's right edge; tuning's best-set bars repeated what the title says.
"""

import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import drawn_outside
from rlstats import format as fmt


def _flat_gap():
    """Five agents on six tasks; agent_4's runs are all at or above 1, so its optimality gap is 0 in every resample."""
    return rlstats.datasets.simulate(agents=5, tasks=6, seeds=4, effect=1.0, rng=0)


def test_bootstrap_notes_name_metrics_by_their_labels():
    res = rlstats.bootstrap(_flat_gap(), "score ~ agent | task", n_resamples=200, rng=1)
    note, = [n for n in res.notes if n.startswith("studentized intervals withheld for")]
    assert note.startswith("studentized intervals withheld for the optimality gap of agent_4: the runs have no "
                           "spread")
    latex = res.to_latex()
    assert "optimality\\_gap" not in latex and "the optimality gap of agent\\_4" in latex
    # and the names it quotes open and close (item 2), in the table's notes and in the report
    typeset = "\n".join(line for line in latex.splitlines() if not line.startswith("%"))  # not the comment's code
    for text in (typeset, res.report()):
        assert "every score of `task\\_04' is below every score of `task\\_05'" in text
        assert not re.search(r"(^|[\s(\[{=])'", text, re.M)


def test_latex_quotes_open_and_close():
    assert fmt.latex_escape("use interval=\"percentile\" or 'task_04' (agents' runs, SPR's)") == (
        "use interval=``percentile'' or `task\\_04' (agents' runs, SPR's)")
    assert fmt.latex_escape("\"a\" ('b') [\"c\"]") == "``a'' (`b') [``c'']"


def _grid_frame(last_task):
    rng = np.random.default_rng(0)
    tasks = ["Alien", "Amidar", "Boxing", last_task]
    return pd.DataFrame([(agent, task, seed, rng.normal(i, 1.0)) for i, agent in enumerate("abc") for task in tasks
                         for seed in range(6)], columns=["agent", "task", "seed", "score"])


def test_adastop_boundaries_grid_title_stays_inside():
    res = rlstats.adastop(_grid_frame("CrazyClimberWithALongName"), "score ~ agent | task", rng=0, n=3,
                          n_resamples=100)
    figure = res.plot(kind="boundaries")
    # audit s29 (fig29): the key gets its own room above the panels, 2.8 in before; its drawn height differs by
    # matplotlib version (3.285 in at 3.11, 3.275 at 3.7)
    assert figure.get_size_inches() == pytest.approx((3.3, 3.28), abs=0.02)
    assert drawn_outside(figure) == (0.0, 0.0, 0.0, 0.0)  # was (0, 0, 0.0127, 0): 1.27 px past the right edge
    sizes = {panel.get_title(): panel.title.get_fontsize() for panel in figure.axes if panel.get_title()}
    # matplotlib 3.11: 6.13 pt and 1.27 px past the edge, now about 5.7 pt inside; matplotlib 3.7: 6.56 pt, inside
    assert 4.8 < sizes.pop("CrazyClimberWithALongName") < 7.0 and set(sizes.values()) == {8.0}


def _untuned(agents, tasks):
    rng = np.random.default_rng(0)
    rows = [(agent, task, seed, rng.normal(i + j, 1.0)) for i, agent in enumerate(agents)
            for j, task in enumerate(tasks) for seed in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_best_set_bars_say_what_differs_and_the_title_what_they_share():
    # two learning rates a sweep (the seeds' parity): each agent one configuration is refused (new-user trial s38)
    res = rlstats.tuning(_untuned(["agent_1", "agent_2"], ["task_01"]).assign(lr=lambda d: d.seed % 2),
                         "score ~ agent | task/seed", config="lr", rng=0, n_resamples=200, progress=False)
    ax = res.plot(kind="best_set")
    assert {t.get_text().split("\n")[0] for t in ax.get_yticklabels()} == {"agent_1", "agent_2"}
    assert ax.get_title().split("\n")[0] == "task_01"
    one = rlstats.tuning(_untuned(["agent_1"], ["task_01"]).assign(lr=lambda d: d.seed % 2),
                         "score ~ agent | task/seed", config="lr", rng=0, n_resamples=200, progress=False)
    ax = one.plot(kind="best_set")
    assert ax.get_title().split("\n")[0] == "agent_1 / task_01"
    assert not re.search("agent_1", " ".join(t.get_text() for t in ax.get_yticklabels()))
    # the complete algorithm's points alike (they were "agent_1 / task_01", "agent_2 / task_01")
    ax = res.plot(kind="complete")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["agent_1", "agent_2"]
    assert ax.get_title().startswith("task_01\nintervals withheld")


def test_a_title_set_smaller_regains_its_size_on_a_wider_figure():
    """Set smaller at 3.3 in, the right column's title kept that size when plot(figsize=(6.9, 3.2)) gave it room."""
    res = rlstats.adastop(_grid_frame("CrazyClimberWithALongName"), "score ~ agent | task", rng=0, n=3,
                          n_resamples=100)
    figure = res.plot(kind="boundaries", figsize=(6.9, 3.2))
    assert drawn_outside(figure) == (0.0, 0.0, 0.0, 0.0)
    sizes = {panel.get_title(): panel.title.get_fontsize() for panel in figure.axes if panel.get_title()}
    assert set(sizes.values()) == {8.0}
