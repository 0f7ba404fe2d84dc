"""Audit s31 (left31): code hygiene, each a second copy of one idea given one home; no number changes.

1. The tasks' (and agents') order of their names sorted, which bootstrap (``_layout_tasks``), bayes (twice) and the
   mixed model (twice) each computed from ``task_places`` / ``agent_places``, is the Design's ``task_order`` and
   ``agent_order``; on a 3-agent x 5-task simulation and its Categorical with both orders reversed, the bootstrap,
   the probability of improvement, the mixed model and bayes' two models gave bit-identical tidy() tables before
   and after (assert_frame_equal, check_exact).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import rlstats


def test_the_designs_orders_are_the_codes_of_the_names_sorted():
    rows = [(a, t, 0, 1.0) for a in (10, 9, 2) for t in ("zeta", "alpha", "mu")]
    frame = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    frame["task"] = pd.Categorical(frame["task"], categories=["zeta", "alpha", "mu"])
    design = rlstats.build(frame, "score ~ agent | task")
    assert design.tasks == ("zeta", "alpha", "mu")  # the Categorical's order
    assert [design.tasks[t] for t in design.task_order] == ["alpha", "mu", "zeta"]
    # agents read as numbers sort as numbers: 2 < 9 < 10, whatever the design's order
    assert [design.agents[a] for a in design.agent_order] == ["2", "9", "10"]
    # each the inverse of its places
    assert np.array_equal(design.task_places[design.task_order], np.arange(3))
    assert np.array_equal(design.agent_places[design.agent_order], np.arange(3))
