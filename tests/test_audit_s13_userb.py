"""Audit s13 (userb), as a careful new user familiar with R, the scientific Python stack and rliable would run them:
``rlstats.curves`` (bands and comparisons with ``compare="all"`` and pairs; IQM, mean, median and optimality gap,
each checked by hand with ``scipy.stats.trim_mean`` and numpy at a step), ``rlstats.bootstrap`` (the four metrics by
hand), ``rlstats.probability_of_improvement`` (against a loop over runs) and ``rlstats.performance_profile``
(``kind="runs"`` and ``kind="tasks"``), on the Dopamine Atari curves and the Atari 100k scores through the mirror, the
SB3 logs read with ``rlstats.read_logs`` and subsets made with pandas (a few tasks, two agents, one task,
``df[df.seed < 3]``, the last steps only, scores rescaled, rows shuffled, a Categorical with unused levels, polars).
Each sentence of the print, summary, report, LaTeX and notes was read against the rows analysed and the figures were
saved at one column's size (3.4 x 2.6 inches) and looked at. Each test is a minimal reproducer of one defect found;
its docstring gives the numbers seen.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats


def _curves(runs_per_agent, n_tasks, steps=4, gap=100.0):
    """Two agents far apart (b above a by ``gap``) on ``n_tasks`` tasks, ``runs_per_agent`` runs each."""
    rng = np.random.default_rng(0)
    rows = [(agent, f"t{t}", seed, step, rng.normal() + (gap if agent == "b" else 0.0) * step)
            for agent in ("a", "b") for t in range(n_tasks) for seed in range(runs_per_agent)
            for step in range(1, steps + 1)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def _cannot(res):
    return [n for n in res.notes if "cannot reject" in n]


def test_curve_comparison_that_cannot_reject_says_so():
    """A curve comparison of two agents with 3 runs each on one task relabels the 6 runs 20 ways (C(6, 3)), two of
    which (the observed labelling and its mirror) give the observed largest difference, so its p-value is 0.1 or more
    whatever the data: b above a by 100 to 400 noise units at every step printed "a and b: no step differs" (adjusted
    p 0.0958 at every step, 500 relabellings) and nothing said that no data could give p <= 0.05, as the rank test,
    AdaStop and the selection check say (``format.cannot_reject``). With 2 tasks (400 relabellings, smallest p 0.005)
    nothing is said."""
    res = rlstats.curves(_curves(3, 1), "score ~ agent | task/seed", step="step", compare="all", rng=1,
                         n_resamples=500, progress=False)
    assert np.nanmin(res.difference_pvalues) > 0.05
    (note,) = _cannot(res)
    assert "a vs b" in note and "3 runs of each agent on 1 task" in note
    assert "smallest attainable p-value is 0.1, above alpha = 0.05" in note
    assert note in res.report().replace("\\", "") or note[1:] in res.report()
    two = rlstats.curves(_curves(3, 2), "score ~ agent | task/seed", step="step", compare="all", rng=1,
                         n_resamples=500, progress=False)
    assert not _cannot(two) and np.nanmax(two.difference_pvalues) <= 0.05
    # unequal runs: 2 of a and 3 of b on one task, C(5, 2) = 10 labellings, no mirror: smallest p 0.1
    uneven = _curves(3, 1)
    uneven = uneven[~((uneven.agent == "a") & (uneven.seed == 2))]
    (note,) = _cannot(rlstats.curves(uneven, "score ~ agent | task/seed", step="step", compare="all", rng=1,
                                     n_resamples=500, progress=False))
    assert "2 to 3 runs of each agent on 1 task" in note and "p-value is 0.1," in note


def test_sb3_curve_comparisons_that_cannot_reject_say_so(sb3_evaluations):
    """The SB3 logs' evaluations on CartPole-v1 (Acrobot-v1 dropped: DQN has no runs there), 3 seeds an agent: A2C
    against DQN (CartPole returns 35-500 against 9-13) printed "A2C and DQN: no step differs" with nothing saying
    that 3 runs of each on one task cannot give a p-value below 0.1."""
    res = rlstats.curves(sb3_evaluations, "score ~ agent | task/seed", step="step", compare="all", rng=1,
                         n_resamples=300, na_action="drop", progress=False)
    (note,) = _cannot(res)
    assert "A2C vs DQN, A2C vs PPO and DQN vs PPO" in note and "0.1, above alpha = 0.05" in note
