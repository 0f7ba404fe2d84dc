"""Session 23, lead: what the demo and its figures show a new user (user23's walkthrough)."""

import numpy as np
import pytest

import rlstats

pytest.importorskip("matplotlib")


def _two_agents(tasks=4, runs=5, seed=0):
    rng = np.random.default_rng(seed)
    import pandas as pd
    rows = [(a, f"t{t}", s, rng.normal(0.1 * (a == "B"), 0.2))
            for a in ("A", "B") for t in range(tasks) for s in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_equivalence_plot_leaves_under_a_row_beyond_the_first_and_last():
    import matplotlib.pyplot as plt
    res = rlstats.equivalence(_two_agents(), "score ~ agent | task", margin=0.1, rng=0, n_resamples=200,
                              normalize=False)
    # every scope asked: the default draws the across-tasks and aggregate rows only since audit s31 equivplot31
    ax = res.plot(scopes=("task", "across tasks", "aggregate"))
    n = len(ax.get_yticks())
    assert n == 6  # 4 tasks, across tasks (Welch over tasks) and the aggregate
    assert ax.get_ylim() == pytest.approx((-0.7, n - 0.3))
    plt.close(ax.figure)


def test_demo_equivalence_margin_is_a_tenth_of_the_normalised_range():
    from rlstats.methods import DECLARATIONS
    formula, options = DECLARATIONS["equivalence"].demo
    assert options["margin"] == 0.1  # 0.5 (half the min-max range) declared every pair equivalent beside the rank
    # test's 8 of 10 pairs apart: true, but it taught that the margin is a formality


def test_what_was_read_stays_as_read_beside_rlstats_own_drop(sb3_evaluations):
    # curves leaves Acrobot-v1 out (one agent has no runs there) and says "6 runs dropped"; the read note was
    # re-counted to "read 9 runs from ... files" beside it (restate23), which reads as 9 - 6
    curves = rlstats.curves(sb3_evaluations, "score ~ agent | task/seed", step="step", na_action="drop",
                            n_resamples=200, rng=0, progress=False)
    assert curves.notes[0].startswith("read 15 runs from 15 Stable-Baselines3 EvalCallback evaluations.npz files")
    assert any("6 runs dropped): Acrobot-v1" in note for note in curves.notes)
