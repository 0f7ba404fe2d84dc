"""Audit s33 (tunefig33): the tuning plots drawn into a caller's paper-sized Axes (a new-user trial on
hpo_landscapes and hpo_optimisation): best_set's rows stacked over each other at 3.4 x 2.55 in (one-line labels)
and at 7 x 5.25 in (two-line "procedure / task" + "tuning_run=k" labels), expected_max's legend over its points."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import rlstats  # noqa: E402
from rlstats.plotting import draw_quietly, _drawn_over, _shown_tick_labels  # noqa: E402

#: procedures named as hpo_optimisation's ("hpo=dehb, rpo=base, return"), each tuned on three tasks
PROCEDURES = [f"hpo={h}, rpo={r}, {o}" for h in ("base", "dehb") for r in ("base", "dehb")
              for o in ("return", "return+stability")]


@pytest.fixture(scope="module")
def procedures():
    """8 procedures x 3 tasks x 5 tuning runs x 3 seeds: 29 sweeps' runs with a chance of being best, each bar
    labelled on two lines ("hpo=base, rpo=dehb, return / ant", "tuning_run=1")."""
    rng = np.random.default_rng(0)
    rows = [(p, task, k, s, 100 * (i % 3) + 10 * k + rng.normal(0, 5)) for i, p in enumerate(PROCEDURES)
            for task in ("ant", "hopper", "walker") for k in range(5) for s in range(3)]
    df = pd.DataFrame(rows, columns=["procedure", "task", "tuning_run", "seed", "score"])
    return rlstats.tuning(df, "score ~ procedure | task/seed", config="tuning_run", n_resamples=100, rng=0,
                          progress=False)


@pytest.fixture(scope="module")
def landscape():
    """One agent on one task, 45 configurations named by a number (hpo_landscapes' "config=8416"), 3 seeds each, of
    one mean: each has a chance of being best."""
    rng = np.random.default_rng(1)
    configs = rng.choice(10_000, 45, replace=False)
    rows = [("ppo", "LunarLander", c, s, 200 + 3 * (s - 1) + rng.normal(0, 0.01)) for c in configs for s in range(3)]
    df = pd.DataFrame(rows, columns=["agent", "task", "config", "seed", "score"])
    return rlstats.tuning(df, "score ~ agent | task/seed", config="config", views=["best_set"], n_resamples=100,
                          rng=0, progress=False)


def _crowded(ax):
    """The pairs of the y tick labels drawn over each other (the package's rule, plotting._drawn_over)."""
    return _drawn_over(_shown_tick_labels(ax.yaxis), draw_quietly(ax.figure))


@pytest.mark.parametrize("width", [3.4, 7.0])
def test_best_set_two_line_labels_apart_on_callers_axes(procedures, width):
    """Two-line labels on a caller's Axes: 28 pairs overlapped at 3.4 and at 7 in (30 rows at one-line pitch)."""
    fig, ax = plt.subplots(figsize=(width, width * 0.75))
    procedures.plot(kind="best_set", ax=ax)
    try:
        assert _crowded(ax) == []
        shown = len(_shown_tick_labels(ax.yaxis))
        table = procedures.tables["best_set"]
        chances = int((table["probability_best"] > 0).sum())  # 29, 27 since curvestream33's draws: random, read
        assert 1 <= shown < chances
        assert f"{shown} of {chances} shown (best_set(runners_up=True) lists all)" in ax.get_title()
    finally:
        plt.close(fig)


def test_best_set_one_line_labels_apart_on_callers_column(landscape):
    """hpo_landscapes' 'config=8416' labels at 3.4 x 2.55 in: 30 rows stacked over each other."""
    fig, ax = plt.subplots(figsize=(3.4, 2.55))
    landscape.plot(kind="best_set", ax=ax)
    try:
        assert _crowded(ax) == []
        shown = len(_shown_tick_labels(ax.yaxis))
        n = int((landscape.tables["best_set"]["probability_best"] > 0).sum())
        assert 1 <= shown < min(n, 30) and f"{shown} of {n} shown" in ax.get_title()
    finally:
        plt.close(fig)


def test_complete_rows_apart_on_callers_column(procedures):
    """complete's 24 rows (8 procedures x 3 tasks) at 3.4 x 2.55 in were drawn over each other (seen on
    hpo_optimisation); on a 7 x 9 in figure all 24 are shown, with no count in the title."""
    fig, ax = plt.subplots(figsize=(3.4, 2.55))
    procedures.plot(kind="complete", ax=ax)
    try:
        assert _crowded(ax) == []
        shown = len(_shown_tick_labels(ax.yaxis))
        assert 1 <= shown < 24 and f"{shown} of 24 shown (complete() lists all)" in ax.get_title()
        # the first rows, top down, as complete() lists them
        assert [t.get_text() for t in _shown_tick_labels(ax.yaxis)] == \
            [f"{p} / {t}" for p, t in procedures.tables["complete"][["agent", "task"]].head(shown).itertuples(index=False)]
    finally:
        plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 9))
    procedures.plot(kind="complete", ax=ax)
    try:
        assert _crowded(ax) == [] and len(_shown_tick_labels(ax.yaxis)) == 24 and "shown" not in ax.get_title()
    finally:
        plt.close(fig)


def test_expected_max_legend_clear_of_the_axes(procedures):
    """8 procedures' legend at 3.4 x 2.55 in sat inside the Axes, over the points."""
    fig, ax = plt.subplots(figsize=(3.4, 2.55))
    procedures.plot(kind="expected_max", ax=ax)
    try:
        renderer = draw_quietly(fig)
        legend = ax.get_legend().get_window_extent(renderer)
        inside = ax.get_window_extent(renderer)
        assert not legend.overlaps(inside)
        assert len(ax.get_legend().get_texts()) == len(PROCEDURES)
    finally:
        plt.close(fig)


def test_expected_max_figsize_leaving_the_scores_a_sliver_is_refused(procedures):
    """Under its legend above, the panel at figsize=(3.4, 2.55) was 0.43 in high: refused by the shared check
    (plotting.least_panel) with a size at which it is drawn; the plot's own figure grows with its legend's rows."""
    import re

    from rlstats.errors import OptionError

    with pytest.raises(OptionError, match=r"panel of expected best scores: it would be drawn .*about \(") as caught:
        procedures.plot(kind="expected_max", figsize=(3.4, 2.55))
    width, height = map(float, re.search(r"about \(([\d.]+), ([\d.]+)\) holds it", str(caught.value)).groups())
    ax = procedures.plot(kind="expected_max", figsize=(width, height))
    try:
        draw_quietly(ax.figure)
        box = ax.get_position()
        drawn = box.height * ax.figure.get_size_inches()[1]
        assert drawn >= 6 * 10 / 72 - 1e-3  # three 10-pt tick labels a label apart
    finally:
        plt.close(ax.figure)
    ax = procedures.plot(kind="expected_max")
    try:
        draw_quietly(ax.figure)
        # 8 rows of legend above 2.6 in of plot: the panel 1.98 in high (1.2 in under them at the former 3.2 in)
        assert ax.get_position().height * ax.figure.get_size_inches()[1] > 1.9
    finally:
        plt.close(ax.figure)


def test_sensitivity_legend_clear_of_the_axes():
    """8 procedures' legend at 3.4 x 2.55 in sat inside the Axes, over the points and the diagonal."""
    rng = np.random.default_rng(2)
    rows = [(p, task, lr, s, 100 * (i % 3) + 30 * np.log10(lr) * (j - 1) + rng.normal(0, 5))
            for i, p in enumerate(PROCEDURES) for j, task in enumerate(("ant", "hopper", "walker"))
            for lr in (1e-4, 1e-3, 1e-2) for s in range(3)]
    df = pd.DataFrame(rows, columns=["procedure", "task", "lr", "seed", "score"])
    res = rlstats.tuning(df, "score ~ procedure | task/seed", config="lr", n_resamples=100, rng=0, progress=False,
                         views=["sensitivity"])
    fig, ax = plt.subplots(figsize=(3.4, 2.55))
    res.plot(kind="sensitivity", ax=ax)
    try:
        renderer = draw_quietly(fig)
        assert not ax.get_legend().get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))
        assert len(ax.get_legend().get_texts()) == len(PROCEDURES)
    finally:
        plt.close(fig)
