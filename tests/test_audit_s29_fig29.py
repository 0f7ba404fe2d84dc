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
then rounded up, never down); the calibration figure's legends are as wide as their panels (``mode="expand"``), their
methods broken at spaces to end inside the panel, a tick at every count of runs and labels thinned on the figure drawn
at its size (``_numbers_apart``). The checks here measure gaps from matplotlib's text extents themselves.
"""

import re

import matplotlib
import matplotlib.pyplot as plt
import pytest

import rlstats
from rlstats.plotting import TICK_GAP, _drawn_over, _shown_tick_labels


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
        fig.set_dpi(150)  # the docs' PNG's resolution: a word space still
        fig.draw_without_rendering()
        assert min(_gaps_in_em(panel.xaxis, fig.canvas.get_renderer())) >= 0.32
    finally:
        plt.close(fig)

