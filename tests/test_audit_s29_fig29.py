"""Audit s29 fig29: tick labels that run together, measured by one rule.

Found (redoing audit s28 fig28, reverted after two failures in CI's fresh environment):

- The calibration figure's layout was not a fixed point: each panel's legend was centred under its panel, and
  bootstrap.interval's (2.57 in of methods, "every score at or below gamma, studentized") was wider than its 2.27 in
  column, so the constrained layout widened the margins, the panels shrank, the legend overhung again, and so at every
  draw: 1.347, 1.252, 1.186, 1.140 in over four draws at a page's width (a single panel at 2.2 in: 0.80 then 0.35
  in). Labels thinned at one draw were crowded at the next; how many draws a test or a docs build made decided it.
- Tick labels 0.25 em apart (fig28's gap) still read as one number: the docs' 150 dpi PNG had "20" and "30" 0.24 em
  apart, under a word space (0.32 em of DejaVu Sans); a 7 pt label is measured to a pixel at 100 dpi, 0.1 em.
- ``Result.plot(figsize=)``'s refusal suggested a size from a formula that knew nothing of the gap rule: at fig28's
  rule it told "about (5.83, 1.5) holds them" for figsize=(5.83, 1.5) itself.

Fixed: one rule, ``rlstats.plotting._drawn_over`` (boxes overlapping or, side by side, under ``TICK_GAP`` = 0.4 em
apart), decides the thinning, the refusal and the size suggested (the guess drawn and grown until the rule holds,
then rounded up, never down); the calibration figure's legends start at their panel's left edge, their methods broken
at spaces to end inside it (so no legend widens the margins), a tick at every count of runs and labels thinned on the figure drawn
at its size (``_numbers_apart``). The checks here measure gaps from matplotlib's text extents themselves.

Also fixed, from fig28's sweep (each drawn at its own size and looked at): 22-letter agent names left AdaStop's and
the permutation test's score panels 0.17 in high and the task table's 6 task rows 0.28 in (the layout held, so
``hold_labels`` did nothing): it now grows a figure of long names until each panel's box is 0.6 in
(``LEAST_PANEL``) and holds a 1.4-line row per name up its side, then fits its titles (the task table's ran 0.3 in
past the edge) and thins its numbers as laid out. The boundaries grid at 8 agents gave its 28-entry key 3.3 of 4.2
in, panels 0.09 in high: the key now adds its own height. Decision grids get 0.17 in an agent from 6 agents on
(fig28's). At scores of 1e-6 the y multiplier ran into a grid panel's title ("1e-6task_01"): the title sits above it.
"""

import re

import matplotlib.pyplot as plt
import pytest

import rlstats
from rlstats.plotting import TICK_GAP, _drawn_over, _shown_tick_labels
from test_contract import CASES


def _gaps_in_em(axis, renderer):
    """Gaps between neighbouring tick labels of ``axis`` as drawn, in ems of their font (written apart from
    _drawn_over: every label's box, sorted along the axis)."""
    labels = _shown_tick_labels(axis)
    boxes = sorted(((t.get_window_extent(renderer), t.get_fontsize()) for t in labels), key=lambda b: b[0].x0)
    return [(b.x0 - a.x1) / renderer.points_to_pixels(min(s, u)) for (a, s), (b, u) in zip(boxes, boxes[1:])]


def test_labels_side_by_side_closer_than_the_gap_are_drawn_over_each_other():
    # two 10 pt labels "20", "30" on one line; the gap between their boxes set in points (1 pt = 1 px at 72 dpi)
    fig = plt.figure(figsize=(3.0, 1.0), dpi=72)
    renderer = fig.canvas.get_renderer()
    assert TICK_GAP == 0.4  # 4 pt at 10 pt
    for gap, crowded in ((-1.0, True), (2.5, True), (3.9, True), (4.1, False), (8.0, False)):
        a = fig.text(0.1, 0.5, "20", fontsize=10)
        width = a.get_window_extent(renderer).width
        b = fig.text(0.1 + (width + gap) / (3.0 * 72), 0.5, "30", fontsize=10)
        measured = b.get_window_extent(renderer).x0 - a.get_window_extent(renderer).x1
        assert measured == pytest.approx(gap, abs=0.05)
        assert bool(_drawn_over([a, b], renderer)) is crowded, gap
        a.remove(), b.remove()
    plt.close(fig)


def _two_labels(figsize, centres):
    """A new figure whose x axis shows two 10 pt numbers ``centres`` apart on an axis of 0 to 1: at 2 in, 0.22 sets
    "0.30" and "0.52" 0.17 em apart (matplotlib 3.11.2; 0.2 em under 3.7.0)."""
    from matplotlib.ticker import FixedLocator

    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    ax.set_xlim(0.0, 1.0)
    ax.xaxis.set_major_locator(FixedLocator([0.3, 0.3 + centres]))
    ax.xaxis.get_major_formatter().set_useOffset(False)  # numbers (a ScalarFormatter): thinned, never turned
    return ax


def test_a_refused_figsize_is_told_a_size_the_same_rule_accepts():
    # labels apart but closer than the gap: refused, and the size told holds them apart by the gap, measured here
    from rlstats.errors import OptionError
    from rlstats.plotting import resized

    ax = _two_labels((2.0, 1.5), 0.22)
    fig = ax.figure
    fig.draw_without_rendering()
    gaps = _gaps_in_em(ax.xaxis, fig.canvas.get_renderer())
    assert len(gaps) == 1 and 0.0 < gaps[0] < TICK_GAP  # apart, but under the gap
    plt.close(fig)
    with pytest.raises(OptionError, match="too small for the 2 tick labels of the x axis") as refused:
        resized(_two_labels((2.0, 1.5), 0.22), (2.0, 1.5))
    width, height = map(float, re.search(r"about \(([\d.]+), ([\d.]+)\) holds them", str(refused.value)).groups())
    assert width > 2.0 and height == 1.5
    ax = resized(_two_labels((2.0, 1.5), 0.22), (width, height))
    ax.figure.draw_without_rendering()
    assert ax.figure.get_size_inches().tolist() == [width, height]
    assert _gaps_in_em(ax.xaxis, ax.figure.canvas.get_renderer())[0] >= TICK_GAP
    plt.close("all")


def test_calibration_figure_keeps_its_layout_and_its_labels_apart():
    # bootstrap.interval alone at 2.2 in: its legend (2.57 in unbroken) shrank the panel from 0.80 to 0.35 in at the
    # second draw; now the same at each draw, the methods inside it, every count a tick, the labels a word apart
    table = rlstats.calibration_table("bootstrap.interval")
    fig = rlstats.plotting.calibration_figure(table, width=2.2)
    try:
        (panel,) = fig.axes
        widths = []
        for _ in range(2):
            fig.draw_without_rendering()
            widths.append(panel.get_position().width)
        assert widths[0] * 2.2 > 1.3 and widths == pytest.approx([widths[0]] * 2, rel=1e-6)
        renderer = fig.canvas.get_renderer()
        right = panel.get_window_extent(renderer).x1
        assert all(t.get_window_extent(renderer).x1 <= right + 1 for t in panel.get_legend().get_texts())
        runs = sorted(set(rlstats.calibration.coverage_by_runs(table)["runs"]))
        ticks = panel.xaxis.get_majorticklocs().tolist() + panel.xaxis.get_minorticklocs().tolist()
        assert sorted(ticks) == runs  # matplotlib drops a minor tick under a major one
        gaps = _gaps_in_em(panel.xaxis, renderer)
        labelled = [int(t.get_text()) for t in _shown_tick_labels(panel.xaxis)]
        assert labelled[0] == runs[0] and len(labelled) >= 3 and min(gaps) >= TICK_GAP
        fig.set_dpi(150)  # the docs' PNG's resolution: a word space still, the panel as wide
        fig.draw_without_rendering()
        assert min(_gaps_in_em(panel.xaxis, fig.canvas.get_renderer())) >= 0.32
        fig.set_dpi(100)
        fig.draw_without_rendering()
        assert panel.get_position().width == pytest.approx(widths[0], rel=0.01)  # hinting alone: 0.2%
    finally:
        plt.close(fig)



LONG = "AgentWithAVeryLongName"


def _rows_apart(axis, renderer):
    """Whether the upright tick labels up ``axis`` are apart: each box below the next, sorted by height."""
    boxes = sorted((t.get_window_extent(renderer) for t in _shown_tick_labels(axis)), key=lambda b: b.y0)
    return all(a.y1 <= b.y0 for a, b in zip(boxes, boxes[1:]))


def test_task_table_of_long_names_keeps_a_line_for_each_task():
    # 3 agents of 22-letter names slanted under the heat map left its 6 task rows 0.28 in (7 pt names ran together)
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)
    df["agent"] = df["agent"].astype(str) + LONG
    ax = rlstats.compare(df, "score ~ agent | task", method="task_table", rng=1).plot(kind="table")
    fig = ax.figure
    try:
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        assert ax.get_window_extent(renderer).height / fig.dpi >= 6 * 7 * 1.4 / 72 - 0.01
        assert _rows_apart(ax.yaxis, renderer)
        title = ax.title.get_window_extent(renderer)
        assert title.x0 >= 0 and title.x1 <= fig.bbox.width  # was 0.3 in past the right edge
    finally:
        plt.close(fig)


@pytest.mark.slow  # 0.9 s
def test_boundaries_grid_of_eight_agents_gives_its_key_its_own_room():
    # 28 pairs and 4 marks in 2 columns over 2 tasks: the panels were left 0.09 in, their numbers on each other
    df = rlstats.datasets.simulate(agents=8, tasks=2, seeds=4, effect=1.0, rng=0)
    fig = rlstats.compare(df, "score ~ agent | task", method="adastop", n=2, n_resamples=200, alpha=0.2,
                          rng=1).plot(kind="boundaries")
    try:
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        for panel in fig.axes:
            assert panel.get_window_extent(renderer).height / fig.dpi > 0.7
            assert _rows_apart(panel.yaxis, renderer)
    finally:
        plt.close(fig)


@pytest.mark.slow  # 5 s: AdaStop's grid of long names is laid out several times
def test_adastop_score_panels_of_long_names_and_tiny_scores():
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)
    long = df.assign(agent=df["agent"].astype(str) + LONG)
    for method in ("adastop", "permutation"):
        fig = rlstats.compare(long, "score ~ agent | task", method=method, rng=1, **CASES[method][1]).plot(
            kind="scores")
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        assert all(p.get_window_extent(renderer).height / fig.dpi >= 0.55 for p in fig.axes)  # were 0.17 in
        assert all(_rows_apart(p.yaxis, renderer) for p in fig.axes)
        plt.close(fig)
        tiny = df.assign(score=df["score"] * 1e-6)
        fig = rlstats.compare(tiny, "score ~ agent | task", method=method, rng=1, **CASES[method][1]).plot(
            kind="scores")
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        for panel in fig.axes:
            multiplier = panel.yaxis.get_offset_text()
            assert multiplier.get_text()  # "1e-6" or "1e-5"
            assert not multiplier.get_window_extent(renderer).overlaps(panel.title.get_window_extent(renderer))
        plt.close(fig)
