"""Session 39 fig39: the calibration figure of the whole table, laid out at a page's width.

Found: ``rlstats.plotting.calibration_figure(rlstats.calibration_table())``, the docs' calibration page, warned twice
"constrained_layout not applied because axes sizes collapsed to zero" and was 6.8 x 21.4 in of 26 panels a few pixels
wide, three a row: titles ran into each other ("adastopadastop.fwe_means"), legends of up to 18 methods (each in the
layout, under its panel) lay over the neighbouring panels and past the figure's edges. Five of its panels did it
(FIVE below: the warning at each draw, three pairs of panels over each other, equivalence.size's legend past the
right edge).

Fixed: two columns at a page's width (``CALIBRATION_COLUMN`` = 3.2 in, one at a column's), each row of panels followed
by a row of the grid with no Axes for its legends, which stay out of the layout; the rows' heights are measured on the
figure drawn (each drawing ``_CALIBRATION_PANEL`` = 1.2 in, the legends' row as deep as its longest legend reaches, a
gap clear of the next titles). Refused: a height past ``MAX_FIGURE_INCHES`` (before drawing where the panels alone
exceed it), ``width=`` under ``CALIBRATION_LEAST_WIDTH`` or not a number, and a width at which a method name without
spaces would end past the figure's edge (with a width that holds it).

The full table's figure costs 7 s CPU to draw: it is checked under -m slow (and by the docs build); the default run
draws five of its panels once for the module (2 s), each test reading that one figure.
"""

import itertools
import re
import warnings

import matplotlib.pyplot as plt
import pytest

import rlstats
import rlstats.plotting as plotting

#: five procedures of the table whose figure collapsed before (four in a row of three and one under them)
FIVE = ["bootstrap.interval", "adastop.fwe_means", "equivalence.size", "tuning.best_interval", "skillings_mack.size"]


def _draw(table, **kwargs):
    """(figure, warnings recorded while it was made and drawn at the docs' 150 dpi then at 100)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure = rlstats.plotting.calibration_figure(table, **kwargs)
        for dpi in (150, 100):
            figure.set_dpi(dpi)
            figure.draw_without_rendering()
    return figure, [str(w.message) for w in caught]


@pytest.fixture(scope="module")
def table():
    return rlstats.calibration_table(FIVE)


@pytest.fixture(scope="module")
def drawn(table):
    """The figure of FIVE, let go by pyplot (conftest closes every figure pyplot holds after each test, which leaves
    it a canvas that cannot draw) and given its own Agg canvas: the tests of the module read it in turn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure, caught = _draw(table)
    plt.close(figure)
    FigureCanvasAgg(figure)
    return figure, caught


def _layout_warnings(caught):
    return [message for message in caught if "constrained_layout" in message or "collapsed" in message]


def _panels_apart(figure):
    """Pairs of panels whose boxes with their titles, tick labels and axis labels overlap (legends apart: their own
    check), and each panel's drawing in inches."""
    renderer = figure.canvas.get_renderer()
    boxes = [panel.get_tightbbox(renderer, bbox_extra_artists=[]) for panel in figure.axes]
    over = [(figure.axes[i].get_title(), figure.axes[j].get_title())
            for i, j in itertools.combinations(range(len(boxes)), 2) if boxes[i].overlaps(boxes[j])]
    sizes = [(panel.get_window_extent(renderer).width / figure.dpi, panel.get_window_extent(renderer).height / figure.dpi)
             for panel in figure.axes]
    return over, sizes


def _legends_placed(figure):
    """(legends not inside the figure, (legend, panel) pairs where a legend lies over another panel's box with its
    titles and labels or over another legend, legends over their own panel's drawing, tick labels or x label)."""
    renderer = figure.canvas.get_renderer()
    whole = figure.bbox
    legends = [panel.get_legend().get_window_extent(renderer) for panel in figure.axes]
    panels = [panel.get_tightbbox(renderer, bbox_extra_artists=[]) for panel in figure.axes]
    outside = [figure.axes[i].get_title() for i, box in enumerate(legends)
               if box.x0 < whole.x0 or box.x1 > whole.x1 or box.y0 < whole.y0 or box.y1 > whole.y1]
    over = [(figure.axes[i].get_title(), figure.axes[j].get_title())
            for i, j in itertools.permutations(range(len(legends)), 2)
            if legends[i].overlaps(panels[j]) or legends[i].overlaps(legends[j])]
    own = []
    for panel, box in zip(figure.axes, legends):
        parts = [panel.get_window_extent(renderer), panel.xaxis.label.get_window_extent(renderer)]
        parts += [label.get_window_extent(renderer) for label in panel.get_xticklabels() if label.get_text()]
        if any(box.overlaps(part) for part in parts):
            own.append(panel.get_title())
    return outside, over, own


def _at(figure, dpi):
    """``figure`` drawn (laid out) at ``dpi``."""
    figure.set_dpi(dpi)
    figure.draw_without_rendering()
    return figure


def test_no_layout_warning_at_any_draw(drawn):
    figure, caught = drawn  # made, then drawn at 150 and 100 dpi
    assert _layout_warnings(caught) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # drawn again at the docs' resolution, it warns of nothing
        _at(figure, 150)


def test_panels_apart_two_a_row_each_drawing_as_tall_as_asked(drawn, table):
    figure = _at(drawn[0], 100)
    over, sizes = _panels_apart(figure)
    assert over == []
    assert [panel.get_title() for panel in figure.axes] == list(dict.fromkeys(table["procedure"]))
    assert figure.get_figwidth() == plotting.PAGE_WIDTH and figure.get_figheight() <= plotting.MAX_FIGURE_INCHES
    # two columns at a page's width: each drawing 2.9 in wide (0.4 in of the page's 6.8 the "coverage" labels'), and
    # 1.2 in high as the rows' ratios set it (before: 0.0 to 0.2 in wide)
    for width, height in sizes:
        assert width > 2.7
        assert height == pytest.approx(plotting._CALIBRATION_PANEL, abs=0.02)
    lefts = sorted({round(panel.get_position().x0, 3) for panel in figure.axes})
    assert len(lefts) == 2


@pytest.mark.parametrize("dpi", [150, 100])  # the docs' PNG, matplotlib's default
def test_each_legend_inside_the_figure_and_clear_of_other_panels(drawn, dpi):
    figure = _at(drawn[0], dpi)
    assert _legends_placed(figure) == ([], [], [])
    # every method drawn listed (test_calibration: a line per method of the table), broken at spaces only
    for panel in figure.axes:
        written = [" ".join(text.get_text().split()) for text in panel.get_legend().get_texts()]
        assert written == [line.get_label() for line in panel.get_lines() if not line.get_label().startswith("_")]
        assert len(written) == {"bootstrap.interval": 14, "equivalence.size": 12}.get(panel.get_title(), len(written))


def test_legends_row_gap_to_the_titles_below(drawn):
    # the legends' row is as deep as its longest legend reaches, no deeper: the lowest legend of a row ends
    # _CALIBRATION_GAP (0.12 in) above the highest title of the next row
    figure = _at(drawn[0], 100)
    renderer = figure.canvas.get_renderer()
    rows = [figure.axes[0:2], figure.axes[2:4], figure.axes[4:5]]
    for mine, below in zip(rows, rows[1:]):
        lowest = min(panel.get_legend().get_window_extent(renderer).y0 for panel in mine)
        top = max(panel.get_tightbbox(renderer, bbox_extra_artists=[]).y1 for panel in below)
        assert (lowest - top) / figure.dpi == pytest.approx(plotting._CALIBRATION_GAP, abs=0.01)


@pytest.mark.parametrize("width", [1.5, 0, -3, "7", float("nan"), 150])
def test_width_out_of_bounds_is_refused_before_drawing(table, width):
    before = plt.get_fignums()
    with pytest.raises(rlstats.errors.OptionError, match=r"width= of the calibration figure must be a number of "
                                                          r"inches from 2 .* to 100"):
        rlstats.plotting.calibration_figure(table, width=width)
    assert plt.get_fignums() == before


def test_a_name_without_spaces_wider_than_its_panel_is_refused_with_a_width_that_holds_it(table):
    one = table[table["procedure"] == "tuning.best_interval"]
    before = plt.get_fignums()
    with pytest.raises(rlstats.errors.OptionError, match="'select_then_report_pooled_t' breaks no further") as refused:
        rlstats.plotting.calibration_figure(one, width=2.0)  # the least width allowed
    assert plt.get_fignums() == before  # the figure refused is closed
    width = float(re.search(r"pass width=([0-9.]+) or more", str(refused.value)).group(1))
    assert 2.0 < width < 2.4  # 2.21 in here, 2.2 with matplotlib 3.7's text metrics
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = rlstats.plotting.calibration_figure(one, width=width)  # laid out and drawn at 100 dpi
        assert _legends_placed(figure)[0] == []
        assert _legends_placed(_at(figure, 150))[0] == []


def test_a_figure_taller_than_the_bound_is_refused(table, monkeypatch):
    # at a bound of 4 in, two small panels in one column (two rows, 2 x 1.7 = 3.4 in at least) pass the check before
    # drawing and are refused once their legends are measured (5.6 in); at 3 in, before anything is drawn
    two = table[table["procedure"].isin(["adastop.fwe_means", "tuning.best_interval"])]
    before = plt.get_fignums()
    heights = []
    for bound in (4, 3):
        monkeypatch.setattr(plotting, "MAX_FIGURE_INCHES", bound)
        with pytest.raises(rlstats.errors.OptionError, match=r"filter the table to fewer procedures .* its 2 panels "
                                                              r"stand in 2 rows; or pass a larger width=") as refused:
            rlstats.plotting.calibration_figure(two, width=2.5)
        assert plt.get_fignums() == before
        heights.append(float(re.search(r"would be 2\.5 x ([0-9.]+) in", str(refused.value)).group(1)))
    assert heights[0] == pytest.approx(5.6, abs=0.3) and heights[1] == pytest.approx(3.4)


@pytest.mark.slow  # 7 s CPU: the whole table, as the docs draw it
def test_whole_table_at_a_page_width():
    figure, caught = _draw(rlstats.calibration_table())
    try:
        assert _layout_warnings(caught) == []
        assert len(figure.axes) == 26 and figure.get_figwidth() == plotting.PAGE_WIDTH
        assert 25 < figure.get_figheight() < 45  # 35.4 in: 13 rows of two panels and their legends
        for dpi in (150, 100):
            figure.set_dpi(dpi)
            figure.draw_without_rendering()
            over, sizes = _panels_apart(figure)
            assert over == [] and all(w > 2.7 and h == pytest.approx(1.2, abs=0.02) for w, h in sizes)
            assert _legends_placed(figure) == ([], [], [])
    finally:
        plt.close(figure)
