"""Axes and panel helpers shared by every back end's ``plots.py``, and the figure of the calibration table.

Plots draw, never compute: every plot function reads a result's fields, takes
``ax=`` (a new figure only when it is None), lets user keywords win over the
defaults and changes no global style.
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


#: the figsize= of the Result.plot call drawing now: panels() lays its grid out for that shape (None: its own layout)
ASKED_SIZE: ContextVar[tuple[float, float] | None] = ContextVar("rlstats_asked_figsize", default=None)


def axes_or_new(ax: Any, figsize: tuple[float, float], fewer: str = "") -> Any:
    """The caller's Axes, or a new figure's when ``ax`` is None (never ``plt.gca()``), of ``figsize`` inches
    (:func:`own_size`: refused past :data:`MAX_FIGURE_INCHES`, ``fewer`` saying how to draw less).

    The new figure is laid out (constrained) so that its tick labels, axis labels and titles stay inside it when it
    is saved at its own size, as ``plt.savefig`` does outside notebooks; the caller's Axes keep the caller's layout.
    """
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=own_size(figsize, fewer), layout="constrained")
    return ax


#: the longest side of a figure plot() makes, in inches: past any page or poster (A0 is 46.8 in), and a canvas of
#: 10,000 pixels a side at matplotlib's 100 dots an inch (audit s31: figsize=(700, 700) asked for 19.6 GB); the
#: plot's own size too (:func:`own_size`)
MAX_FIGURE_INCHES = 100


def own_size(figsize: tuple[float, float], fewer: str = "", *, sized: bool = True) -> tuple[float, float]:
    """``figsize``, the size a plot makes its own figure at (:func:`axes_or_new`, :func:`panels`: their one check),
    refused past :data:`MAX_FIGURE_INCHES` before the figure is made; unchecked under ``Result.plot(figsize=)``
    (:data:`ASKED_SIZE`), which sets the size asked (:func:`check_figsize`). ``fewer``: what grows it and how to draw
    less ("draw fewer of its 756 rows: pass scopes=..."); by default a subset of the result. ``sized``: whether the
    plot takes ``figsize=`` (the message offers it); :func:`calibration_figure` takes ``width=`` only.

    Refused, not capped: the sizes grow with the rows or panels drawn, and squeezed into 100 in they would overlap
    (equivalence's 2,175 rows of 30 agents, 5 x 244.7 in at 0.14 in a row, would be 0.046 in apart, under their 7-pt
    labels), an unreadable figure said nowhere; a user drawing that much wants a part of it (audit s32 rfix32: the
    bound held for figsize= alone)."""
    width, height = float(figsize[0]), float(figsize[1])
    if ASKED_SIZE.get() is None and max(width, height) > MAX_FIGURE_INCHES:
        from .errors import OptionError

        raise OptionError(f"this plot's own figure would be {width:.4g} x {height:.4g} in, more than the "
                          f"{MAX_FIGURE_INCHES} inches a side a figure rlstats draws may have (a page is 8.5 in wide, "
                          f"an A0 poster 46.8 in); "
                          f"{fewer or 'draw less of it: plot a subset of the agents or tasks (select the rows first)'}"
                          + (f"; or pass figsize= (at most {MAX_FIGURE_INCHES} in a side; refused in turn where the "
                             "labels would not fit it)" if sized else ""))
    return width, height


def check_figsize(figsize: object, ax: Any) -> tuple[float, float] | None:
    """``figsize=`` of ``Result.plot`` as (width, height) inches, checked before anything is drawn: an OptionError
    when it is not two positive numbers, or comes with the caller's ``ax`` (whose figure the caller sized)."""
    if figsize is None:
        return None
    from .errors import OptionError
    from .options import is_finite_number

    if ax is not None:
        raise OptionError("figsize= sizes the figure plot() makes, but ax= draws on the caller's figure: size that "
                          "figure where it is made (plt.subplots(figsize=...)), or leave out ax=")
    if (not isinstance(figsize, (tuple, list, np.ndarray)) or len(figsize) != 2
            or not all(is_finite_number(v) and float(v) > 0 for v in figsize)):
        raise OptionError(f"figsize= must be (width, height) in inches, two positive numbers, e.g. figsize=(5, 3), "
                          f"got {figsize!r:.60}")
    width, height = float(figsize[0]), float(figsize[1])
    if max(width, height) > MAX_FIGURE_INCHES:
        import matplotlib

        dpi = float(matplotlib.rcParams["figure.dpi"])
        size = width * height * dpi ** 2 * 4  # RGBA bytes of the canvas the labels are laid out on
        raise OptionError(f"figsize={figsize!r:.60} asks for a side of more than the {MAX_FIGURE_INCHES} inches a "
                          f"figure rlstats draws may have (a page is 8.5 in wide, an A0 poster 46.8 in): its canvas "
                          f"at {dpi:g} dots an inch would take about {size / 1e9:.3g} GB; give the size in inches, "
                          f"e.g. figsize=(7, 4)")
    return width, height


def resized(drawn: Any, figsize: tuple[float, float] | None) -> Any:
    """``drawn`` (the Axes or Figure a plot returned) with its new figure set to ``figsize`` inches; the constrained
    layout of :func:`axes_or_new` and :func:`panels` lays it out again at that size (None: the plot's own size)."""
    if figsize is not None:
        figure = _figures(drawn)[0]
        # the size plot() makes without figsize=: panels() records it where the size asked chose another grid, whose
        # own size a message quoted as the plot's (audit s34 marks34: "(the plot's own size is (6.9, 1.9))" of a
        # posterior figure 3.3 x 5.7 in by default)
        own = _OWN_SIZE.get(figure, tuple(figure.get_size_inches()))
        apart = _overlapping(figure, design=True)  # panels that overlap by design (twins, insets)
        _laid_out_at(figure, figsize)
        _check_room(figure, figsize, own, apart)
        _fit_tick_labels(figure, figsize, own)
    return drawn


_DOLLAR = re.compile(r"(?<!\\)\$")


def root_figure(figure: Any) -> Any:
    """The Figure that ``figure`` (a Figure or a matplotlib SubFigure, nested or not) is drawn in: the one with a size,
    a layout engine and a canvas to draw (``SubFigure.figure`` is it on every matplotlib from the oldest we allow,
    3.7; fixb37: fitting at draw ran the layout on a SubFigure, which has no size, and every draw failed)."""
    while not hasattr(figure, "get_size_inches"):
        figure = figure.figure
    return figure


def figure_inches(figure: Any) -> tuple[float, float]:
    """The width and height, inches, of ``figure`` as drawn: of a SubFigure its own part of its root figure, where its
    texts must fit (the size that counts for a plot drawn on it, :func:`root_figure`)."""
    if hasattr(figure, "get_size_inches"):
        width, height = figure.get_size_inches()
        return float(width), float(height)
    dpi = root_figure(figure).dpi
    return float(figure.bbox.width / dpi), float(figure.bbox.height / dpi)


def _figures(drawn: Any) -> list[Any]:
    """The figures of an Axes, a Figure or a (nested) sequence of Axes."""
    if drawn is None:
        return []
    if hasattr(drawn, "savefig"):
        return [drawn]
    if hasattr(drawn, "figure"):
        return [drawn.figure]
    return list({id(a.figure): a.figure for a in np.ravel(np.asarray(drawn, dtype=object))}.values())


def texts_of(drawn: Any) -> dict[int, str | None]:
    """The texts (id: string) and tick formatters (id: None) of the figures of ``drawn`` (the caller's ax= before a
    plot draws on it): :func:`literal_dollars` leaves those as the caller made them, but for a title or label the plot
    writes anew."""
    from matplotlib.text import Text

    found: dict[int, str | None] = {}
    for figure in _figures(drawn):
        found |= {id(text): text.get_text() for text in figure.findobj(Text)}
        found |= {id(getattr(axis, f"get_{which}_formatter")()): None for axes in figure.axes
                  for axis in (axes.xaxis, axes.yaxis) for which in ("major", "minor")}
    return found


def names_as_written() -> Any:
    """The context a plot draws in: its texts are drawn as written, not as matplotlib's mathtext, so an agent or task
    named "$x$" or "cost in $" is not drawn as another name (an italic x) or refused at savefig ("$^$") (audit s18).
    Tick labels are formatted again at each draw: :func:`literal_dollars` mends those after the plot."""
    import matplotlib

    return matplotlib.rc_context({"text.parse_math": False})


def literal_dollars(drawn: Any, before: Mapping[int, str | None] | None = None) -> None:
    """Tick labels of a plot drawn under :func:`names_as_written` as matplotlib draws them by default (a log axis'
    "$10^{2}$" is mathtext), with the "$" of names on ticks escaped ("\\$", drawn as "$") by their formatter;
    the caller's own texts and formatters (``before``, :func:`texts_of`) are left as they were, but for a title or
    axis label of the caller's Axes that the plot wrote anew (made before the context, it would read a name's "$")."""
    from matplotlib.text import Text
    from matplotlib.ticker import EngFormatter, FuncFormatter, LogFormatter, PercentFormatter, ScalarFormatter

    numbers, before = (ScalarFormatter, LogFormatter, PercentFormatter, EngFormatter), dict(before or {})
    for figure in _figures(drawn):
        if before:  # the caller's Axes
            ticks = {id(text) for axes in figure.axes for axis in (axes.xaxis, axes.yaxis)
                     for text in _tick_texts(axis)}
            for text in figure.findobj(Text):
                if id(text) in before and id(text) not in ticks and before[id(text)] != text.get_text():
                    text.set_parse_math(False)
        for axes in figure.axes:
            for axis in (axes.xaxis, axes.yaxis):
                for text in _tick_texts(axis):
                    if id(text) not in before:
                        text.set_parse_math(True)
                for which in ("major", "minor"):
                    named = getattr(axis, f"get_{which}_formatter")()
                    if id(named) in before or isinstance(named, numbers) or not any(
                            "$" in label for label in named.format_ticks(getattr(axis, f"get_{which}ticklocs")())):
                        continue
                    # "$" not already escaped: the panels of a shared axis share (and so meet again) one formatter
                    getattr(axis, f"set_{which}_formatter")(
                        FuncFormatter(lambda x, pos, named=named: _DOLLAR.sub(r"\\$", named(x, pos))))


def _tick_texts(axis: Any) -> list[Any]:
    """The offset text and tick labels of ``axis`` made so far. Not ``axis.findobj``, which makes a tick for every
    location (a fifth of a plot's time before it is drawn); those made later, outside :func:`names_as_written`,
    read mathtext as matplotlib's default has it (a tick made from another copies its font, not its parse_math)."""
    made = [*vars(axis).get("majorTicks", ()), *vars(axis).get("minorTicks", ())]  # matplotlib makes both lazily
    return [axis.offsetText] + [label for tick in made for label in (tick.label1, tick.label2)]


#: a short parenthesis such as "(1 = best)", kept on one line when a text is broken at words to fit a figure
_SHORT_PARENTHESIS = re.compile(r"\([^()\n]{1,12}\)")
#: a division by a short term written with spaces, "P(X = Y) / 2,": its sign kept with the words either side, so a
#: broken line never ends with "/" before it (audit s26 real26: the probability of improvement's x label at 3.3 in);
#: longer terms ("PPO / LunarLander", the tuning plot's names) still break there
_SPACED_DIVISION = re.compile(r"(?<=\S) / (?=\S{1,3}(?:\s|$))")


def unbroken_parentheses(line: str) -> str:
    """``line`` with the spaces of its short parentheses and of its divisions by a short term ("P(X = Y) / 2") made
    no-break spaces (U+00A0), which word wrapping (:mod:`textwrap`, or splitting at " ") does not break at;
    ``.replace("\xa0", " ")`` after wrapping restores them."""
    line = _SPACED_DIVISION.sub("\xa0/\xa0", line)
    return _SHORT_PARENTHESIS.sub(lambda match: match.group().replace(" ", "\xa0"), line)


#: names up to this wide (points of 10 pt Computer Modern, format.text_width) never collapsed a plot's own layout
#: (the task table of one task collapsed at 46.75, "mmmmm0"; its agents "OTRainbow", 53.5; the permutation test's
#: matrices at 25 letters, the bootstrap's at 60): wider ones have the layout run once more, and checked
LONG_NAME = 40.0


#: Figure -> (width, height) the plot draws it at without figsize= where :func:`panels` chose another grid for the size
#: asked (:data:`ASKED_SIZE`): the plot's own size, as :func:`resized`'s refusals quote it
_OWN_SIZE: weakref.WeakKeyDictionary[Any, tuple[float, float]] = weakref.WeakKeyDictionary()


def _laid_out_at(figure: Any, size: tuple[float, float]) -> list[Any] | None:
    """``figure`` set to ``size`` inches with its titles, axis labels and legend titles broken for it (from their
    words as written: a figure laid out at several sizes in turn, as the search for a size that holds it does).
    The titles and axis labels were written for the plot's own size: at a smaller one they are broken at words to fit
    the figure, rather than cut at its edge. Broken here, not by matplotlib's wrap=True, whose width under a
    constrained layout differs between releases (3.7 left a title 0.87 in past the edge). Returns
    :func:`_fit_texts`' warnings of its draw where the figure stands as drawn, else None."""
    figure.set_size_inches(*size)
    texts = [figure._suptitle, figure._supxlabel, figure._supylabel]
    for axes in figure.axes:
        texts += [axes.title, getattr(axes, "_left_title", None), getattr(axes, "_right_title", None),
                  axes.xaxis.label, axes.yaxis.label]
        legend = axes.get_legend()
        if legend is not None and legend.get_title().get_text():
            # measured without a layout, which a legend wider than the figure collapses (audit s22: curves' line
            # of withheld bands at 3.5 in)
            break_to_width(legend.get_title(), figure, 0.8)
    return _fit_texts(figure, [text for text in texts if text is not None and text.get_text()])


def hold_labels(drawn: Any, names: Iterable[object], steps: int = 6) -> None:
    """The plot's own figure grown until its constrained layout holds its texts: a long agent or task name (``names``:
    the result's) collapsed the layout at the size counted from the rows and columns (matplotlib only warns) and ran
    past the figure's edges (audit s18); a layout that holds may still leave a grid's panels slivers under long
    slanted names, grown to :data:`LEAST_PANEL` (audit s29). Unchanged for names of usual length."""
    import warnings

    from .design import ALL_RUNS
    from .format import text_width

    # the package's own "(all runs)" (40.6 pt, the task of 'score ~ agent') is narrower than any that collapsed
    if all(text_width(name) <= LONG_NAME for name in names if name != ALL_RUNS):
        return
    figure = _figures(drawn)[0]
    engine = figure.get_layout_engine()
    if engine is None:  # no layout to collapse
        return
    for _ in range(steps):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            engine.execute(figure)  # the layout alone, as a draw would run it first, without drawing the artists
        if not any("axes sizes collapsed" in str(w.message) for w in caught):
            # held, but long names, slanted under a grid's panels, may leave them slivers whose numbers run together
            # (audit s28 fig28: AdaStop's score panels of 22-letter agents 0.17 in high, the task table's 0.28 in)
            # a title centred over an Axes that slanted names pushed aside broken inside the figure first (the task
            # table's, 0.3 in past its right edge), as its lines take their height from the panel
            _fit_texts(figure, [axes.title for axes in figure.axes if axes.title.get_text()])
            draw_quietly(figure)  # laid out with the titles as broken
            width, height = figure.get_size_inches()
            short = _squashed(figure)
            if short == (0.0, 0.0):
                _numbers_apart(figure)  # numbers apart on the panels as laid out
                return
            figure.set_size_inches(width + short[0], height + short[1])
            continue
        # the layout gave up, leaving the Axes where they were: the texts' extent is what the figure needs, and more
        box = figure.get_tightbbox(figure.canvas.get_renderer())
        width, height = figure.get_size_inches()
        figure.set_size_inches(max(width, box.width) + 0.5, max(height, box.height) + 0.5)


#: least width and height, inches, of the box a plot's own figure lays each of its panels out in (a colorbar aside):
#: :func:`hold_labels` grows a figure whose long names leave a panel less (or less than its rows' names need)
LEAST_PANEL = 0.6


def _squashed(figure: Any) -> tuple[float, float]:
    """Inches ``figure`` (laid out) is short of :data:`LEAST_PANEL` for each of its panels, across and down: a grid's
    row or column of panels each needs its share."""
    across = down = 0.0
    width, height = figure.get_size_inches()
    for axes in figure.axes:
        if axes.get_label() == "<colorbar>" or not axes.get_visible():
            continue
        box = axes.get_position(original=True)  # the layout's box, before an aspect shrinks it
        spec = axes.get_subplotspec()
        rows, columns = (1, 1) if spec is None else spec.get_gridspec().get_geometry()
        # and a line of 1.4 times its size for each row's name up the side (the task table's 6 tasks in 0.6 in)
        lines = 1.4 / 72 * sum(label.get_fontsize() for label in _shown_tick_labels(axes.yaxis))
        across = max(across, columns * (LEAST_PANEL - box.width * width))
        down = max(down, rows * (max(LEAST_PANEL, lines) - box.height * height))
    return max(across, 0.0), max(down, 0.0)


def fit_title(ax: Any, xlabel: bool = False) -> None:
    """Break ``ax``'s title (and its x label with ``xlabel``) at words until it lies inside its figure
    (:func:`_fit_texts`): for a title whose length depends on the data (a label naming agents), drawn on a figure the
    plot made itself (the caller's own figure is the caller's to lay out). ``ax`` may be a list of one figure's Axes
    (a grid's panels, each titled by a task: laid out once for all)."""
    axes = list(ax) if isinstance(ax, (list, tuple)) else [ax]
    _fit_texts(axes[0].figure, [text for a in axes for text in [a.title] + ([a.xaxis.label] if xlabel else [])])


def mark_observed(ax: Any, value: float, label: str, top: float, **line: Any) -> None:
    """A null distribution's observed value: a dashed line at ``value``, its legend (``label``) beside it on its wider
    side, inside the axes over room left above ``top`` (the distribution's highest point). Above the axes a legend met
    the title a caller sets on ``ax=`` (audit s20); inside, away from the line, it crossed it at a column's width
    (audit s19, the rank test's too in s20); anchored at the line, it never crosses it."""
    style = {"color": "black", "linestyle": "--"}
    style.update(line)
    ax.axvline(value, label=label, **style)
    ax.set_ylim(0.0, max(ax.get_ylim()[1], 1.45 * top))  # about two 8 pt lines of room at 2.6 in
    low, high = ax.get_xlim()
    right = (value - low) < (high - value)  # more room right of the line
    ax.legend(frameon=False, fontsize=8, loc="upper left" if right else "upper right", bbox_to_anchor=(value, 1.0),
              bbox_transform=ax.get_xaxis_transform(), borderaxespad=0.3, handlelength=1.2, handletextpad=0.5)


def fit_xlabel(ax: Any, share: float = 0.8, *, title: bool = False) -> None:
    """Break the x label a plot wrote (and with ``title`` its title) at spaces until it is at most ``share`` of its
    figure's width, also on the caller's ``ax=``: a label wider than the figure is cut whatever layout the caller then
    runs (audit s20: the selection check's null distribution at 3.5 in; audit s24: the mixed model's contrasts and the
    percentiles' aggregates on a 3.3 in figure, 0.4 to 0.96 in past its edge). Measured, not laid out, so the caller's
    layout runs once, later, on the broken label; 0.8 leaves it room to move the Axes (a y label shifts their centre
    by about 5% of the width)."""
    for text in (ax.xaxis.label, ax.title) if title else (ax.xaxis.label,):
        break_to_width(text, ax.figure, share)


def break_to_width(text: Any, figure: Any, share: float, renderer: Any = None) -> None:
    """Break each line of the matplotlib ``text`` at spaces, only as far as it must, until it is at most ``share`` of
    ``figure``'s width (:func:`fit_xlabel`; a figure's own line under its panels), measured without a layout; from
    its words as written where it was broken or set smaller before (:func:`_as_written`). The share is kept, so that
    a draw at another size breaks it again from its words (:func:`_fit_drawn`)."""
    written = _as_written(text)
    _BROKEN_TO[text] = share
    renderer = renderer or figure.canvas.get_renderer()
    room = share * figure_inches(figure)[0] * root_figure(figure).dpi
    _break_text(text, lambda: max(0.0, 1.0 - room / max(text.get_window_extent(renderer).width, 1.0)), 0.9)
    _keep_written(text, written)


def _break_text(text: Any, outside: Callable[[], float], step: float = 0.85) -> None:
    """Break each line of the matplotlib ``text`` at spaces, only as far as it must, until ``outside()`` (the share of
    the line, drawn alone where the text is, that lies outside its room) is 0, or into lines of 8 characters, or of
    its longest word (which no break shortens): first in proportion to the share outside, then ``step`` times
    narrower each time. The one home of breaking a figure's texts (:func:`break_to_width` to a share of the figure's
    width, :func:`_fit_texts` inside the laid-out figure); never at a hyphen ("held-\\nout" reads as two words) nor
    inside a short parenthesis nor at a division by a short
    term (:func:`unbroken_parentheses`). A line broken into several is then broken as evenly as
    that many lines can be (the narrowest width giving no more lines: audit s25, the tuning plot's title at 3.3 in
    ended on "notes)" alone). Its callers keep the text as written (:data:`_WRITTEN`) for a figure resized wider to
    start from again."""
    import textwrap

    def fill(line, chars):
        return textwrap.fill(unbroken_parentheses(line), chars, break_long_words=False,
                             break_on_hyphens=False).replace("\xa0", " ")

    written = text.get_text()
    pieces = []
    for line in written.split("\n"):
        text.set_text(line)
        share = outside()
        piece, chars = line, int(len(line) * (1.0 - share))
        used = len(line)
        # never narrower than its longest word, which no break shortens: narrower only broke every other word onto a
        # line of its own (audit s26: "mean(reported)\n-\nmean(held-out),\nthe\n..." over a long column's name)
        longest = max(8, *(len(word) for word in unbroken_parentheses(line).split(" ")))
        while share > 0 and chars >= 8 and max(chars, longest) < used:
            chars = max(chars, longest)
            piece, used = fill(line, chars), chars
            text.set_text(piece)
            share, chars = outside(), int(chars * step)
        if piece != line:  # as many lines, each as long as the longest must be: no short last line
            lines = piece.count("\n")
            while used > 8 and fill(line, used - 1).count("\n") == lines:
                used -= 1
            piece = fill(line, used)
        pieces.append(piece)
    text.set_text("\n".join(pieces))


@dataclass(frozen=True)
class _Written:
    """A figure text as the plot wrote it (its words and size) and as the fitting left it (broken, set smaller)."""

    words: str
    size: float
    left: tuple[str, float]


#: each text :func:`break_to_width` or :func:`_fit_texts` broke or set smaller: the one record of what it was before,
#: so that fitted again (a figure resized wider, or narrower again) it starts from its words and size as written, not
#: from the breaks and size of another figure's width (audit s25; s26: fit_xlabel's breaks were kept apart from
#: _fit_texts' and stayed at a wider figsize=); a text the caller has written anew since is fitted as written then
_WRITTEN: weakref.WeakKeyDictionary[Any, _Written] = weakref.WeakKeyDictionary()


#: the share of its figure's width :func:`break_to_width` broke each text to
_BROKEN_TO: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()


def _state(text: Any) -> tuple[str, float]:
    return text.get_text(), text.get_fontsize()


def _as_written(text: Any) -> tuple[str, float]:
    """``text`` set back to its words and size as written where it was fitted and nothing has set it since (else its
    record is forgotten: the caller wrote it anew); returns them."""
    record = _WRITTEN.pop(text, None)
    if record is not None and _state(text) == record.left:
        text.set_text(record.words)
        text.set_fontsize(record.size)
    return _state(text)


def _keep_written(text: Any, written: tuple[str, float]) -> None:
    """Keep ``written`` (:func:`_as_written`'s) as the record of ``text`` where fitting changed it."""
    if _state(text) != written:
        _WRITTEN[text] = _Written(*written, left=_state(text))


def _fit_texts(figure: Any, texts: list[Any]) -> list[Any] | None:
    """Break each text at words until it lies inside the figure, with a margin, along its direction, where it is
    anchored: a centred title over an Axes set off by long tick labels has less room on one side than the other
    (broken by :func:`_break_text`, the one home of breaking a figure's texts). Returns the warnings of the draw that
    placed the texts where none was changed after it, so that the figure stands as drawn (a caller needing it drawn
    does not draw it again: :func:`_drawn_as_is`); None where one was."""
    import warnings

    # a text fitted at another size (a grid's own, 3.3 in) starts from its words and size as written (audit s25: its
    # size did, its lines stayed broken, 4 lines at 9 in)
    written = {text: _as_written(text) for text in texts}
    with warnings.catch_warnings(record=True) as caught:  # a layout that collapses is :func:`_check_room`'s to
        warnings.simplefilter("always")  # report, after this
        figure.draw_without_rendering()  # the constrained layout at the new size places the texts
    return None if _fit_placed(figure, texts, written, figure.canvas.get_renderer()) else caught


def _drawn_as_is(figure: Any, drawn: list[Any] | None) -> list[Any]:
    """The warnings of a draw of ``figure`` as it is: ``drawn``, those of the draw just made where nothing has changed
    since (:func:`_fit_texts`), else those of drawing it now. For the sizes :func:`_size_holding` tries, on a figure
    its refusal closes: a figure drawn again unchanged only moves its panels by a thousandth of a pixel or so (a
    constrained layout run once more converges further), which decides nothing there, and the second draw was half
    the time of each size tried (speed39). A figure a plot returns is drawn as before, so that it is bit for bit the
    figure it was."""
    import warnings

    if drawn is not None:
        return drawn
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure.draw_without_rendering()
    return caught


def _fit_placed(figure: Any, texts: list[Any], written: Mapping[Any, tuple[str, float]], renderer: Any,
                margin: float = 0.03, breaking: bool = True) -> bool:
    """:func:`_fit_texts` on the figure as it is laid out now (``written``: each text's words and size as written);
    whether it changed any text. ``margin``: the share of the figure's side a text is broken to keep off its edge
    (0.03: the layout moves the Axes a little once the texts are broken; 0 where nothing moves them,
    :func:`_fit_unlaid`); without ``breaking``, only set smaller."""
    before = [_state(text) for text in texts]

    def outside(text, margin=margin):
        """The share of ``text`` past the figure less ``margin`` (a share of its side) along its direction; 0 for
        the figure's edge itself."""
        return _past_along(figure, text, renderer, margin)

    for text in texts:
        if breaking and outside(text) > 0:
            _break_text(text, functools.partial(outside, text))
        # a word no break shortens (a task named "CrazyClimber" over a square panel of a grid's outer column, 0.02 in
        # past the edge, audit s24) is set smaller, as far as it must and to no less than 60% of its size: a centred
        # text shrinks on both sides, so by twice its share outside; measured again after each step, as a small font's
        # width shrinks less than its size (hinted glyphs: 7 -> 6.13 pt took CrazyClimberWithALongName from 149.6 to
        # 141.7 px, 5% for 12%, and three steps left it 1.27 px past the edge, audit s25)
        for _ in range(12):
            share = outside(text, 0.0)
            if share <= 0:
                break
            centred = text.get_horizontalalignment() == "center"
            floor = 0.6 * written[text][1]  # of the size as written, not this step's (each step's took 10 pt to 2.96)
            if text.get_fontsize() <= floor:
                break
            text.set_fontsize(max(floor, text.get_fontsize() * (1.0 - (2.0 if centred else 1.0) * share - 0.01)))
        _keep_written(text, written[text])
    return before != [_state(text) for text in texts]


def _past_along(figure: Any, text: Any, renderer: Any, margin: float = 0.0) -> float:
    """The share of ``text`` (drawn where it is) past ``figure`` less ``margin`` (a share of its side) along the
    text's direction: up the side for a vertical text, across for the others."""
    box = text.get_window_extent(renderer)
    vertical = abs(text.get_rotation() % 180 - 90) < 45
    # a SubFigure's own box, where it sits in its root figure's pixels (fixb37: measured from the root's corner, the
    # right subfigure's x label was past a width half the root's and set 40% smaller)
    bounds = figure.bbox
    low, high, start, edge = ((box.y0, box.y1, bounds.y0, bounds.height) if vertical
                              else (box.x0, box.x1, bounds.x0, bounds.width))
    low, high = low - start, high - start
    return max(margin * edge - low, high - edge * (1.0 - margin), 0.0) / max(high - low, 1.0)


def _past_edges(figure: Any, box: Any) -> tuple[float, float, float, float]:
    """Pixels ``box`` reaches past each edge of ``figure`` (a SubFigure's own box): left, bottom, right, top."""
    bounds = figure.bbox
    return (max(0.0, bounds.x0 - box.x0), max(0.0, bounds.y0 - box.y0), max(0.0, box.x1 - bounds.x1),
            max(0.0, box.y1 - bounds.y1))


def _fit_unlaid(figure: Any, texts: list[Any], written: Mapping[Any, tuple[str, float]], renderer: Any) -> None:
    """:func:`_fit_placed` on a figure with no layout engine (the caller's ``plt.subplots()`` saved as it is), where
    nothing moves the Axes to make room for a broken text: a y label broken onto two lines reaches further left, a
    title or x label further up or down (fig37b: the SB3 curves' y label at 3.3 x 2.4 in took the drawing from 0.15
    to 0.35 in past the left edge). Each text past the figure along its direction takes the first of its fittings
    that lies inside the figure on all sides, broken at words (and set smaller where a word stays outside) before
    only set smaller; where none does, the one of those, the text as written and as it is that leaves the figure's
    drawing least past its edges (the text's reach on each side against the rest's), so never further than it was."""
    for text in texts:
        if _past_along(figure, text, renderer) <= 0:
            continue
        now = _state(text)
        visible = text.get_visible()
        text.set_visible(False)
        try:  # the rest of the drawing's reach, which also places the axis labels and titles for their measure
            rest = _past_edges(figure, figure.get_tightbbox(renderer))
        finally:
            text.set_visible(visible)
        options = []
        for how in ("broken", "smaller", "written", "now"):
            words, size = now if how == "now" else written[text]
            text.set_text(words)
            text.set_fontsize(size)
            if how in ("broken", "smaller"):
                _fit_placed(figure, [text], written, renderer, margin=0.0, breaking=how == "broken")
            own = _past_edges(figure, text.get_window_extent(renderer))
            options.append((sum(own) > 0, sum(max(a, b) for a, b in zip(rest, own)), _state(text)))
        inside = [state for out, _, state in options if not out]
        # ties to the text as it is (listed last, taken first): a fitting that gains nothing changes nothing
        chosen = inside[0] if inside else min(reversed(options), key=lambda option: option[1])[2]
        text.set_text(chosen[0])
        text.set_fontsize(chosen[1])
        _WRITTEN.pop(text, None)
        # recorded even as written, so the next draw knows it for the plot's (its words may be those before the
        # plot broke it, fit_xlabel)
        _WRITTEN[text] = _Written(*written[text], left=chosen)


def fit_at_draw(drawn: Any, before: Mapping[int, str | None]) -> None:
    """The titles, axis labels of the caller's ``ax=`` that the plot wrote (those not among ``before``,
    :func:`texts_of`'s record of the figure before it) broken at words, or set smaller, at each draw of the figure,
    after its layout placed the Axes and before they are drawn, until they lie inside the figure (:func:`_fit_placed`),
    and the layout run again on them as broken. Measured at the plot, with the caller's layout still to run, a label
    was fitted to a share of the figure, not to where the layout puts it (session 37, fig37: at 3.3 x 2.4 in the
    curves' and profiles' y labels were cut at both ends, the mixed model's title past the right edge). On a figure
    without a layout engine nothing runs again: each text is fitted only as far as that leaves the drawing less past
    the figure's edges (:func:`_fit_unlaid`)."""
    for figure in _figures(drawn):
        _fitted_at_draw(figure, [text for axes in figure.axes
                                 for text in (axes.title, axes.xaxis.label, axes.yaxis.label)
                                 if text.get_text() and before.get(id(text)) != text.get_text()])


def _fitted_at_draw(figure: Any, texts: list[Any]) -> None:
    """``texts`` of ``figure`` fitted at each of its draws (:func:`fit_at_draw`) while they say what they say now; also
    while a plot counts the rows its caller's Axes hold (:func:`rows_held`: a title broken at the draw took the
    height the rows were counted in, and they overlapped; fig37, tuning's best set at 3.3 x 2.4 in)."""
    fitter = next((artist for artist in figure.artists if hasattr(artist, "fitted_texts")), None)
    if fitter is None:
        fitter = _fitter_class()()
        figure.add_artist(fitter)
    for text in texts:  # each as the plot left it, not as a draw since fitted it (rows_held draws between its calls)
        if not (text in fitter.fitted_texts and _fitted_since(text)):
            fitter.fitted_texts[text] = _state(text)


def _fitted_since(text: Any) -> bool:
    """Whether ``text`` is as a fitting left it (:data:`_WRITTEN`), nothing having set it since."""
    return text in _WRITTEN and _state(text) == _WRITTEN[text].left


def _fit_drawn(figure: Any, texts: Mapping[Any, tuple[str, float]], renderer: Any) -> None:
    """:func:`fit_at_draw`'s work at a draw: the texts as the plot (or an earlier draw's fitting) left them, the caller
    having written none anew, set back as the plot left them (``texts``) and fitted to the figure as laid out, the
    layout run again, at most three times: the same texts at a size however the figure was drawn before (fixb37: a y
    label broken at 3.3 in stayed broken at 8 x 4 in; without a layout a title shrank further at each smaller draw)."""
    import warnings

    ours = [text for text, left in texts.items() if text.figure is figure and text.get_visible()
            and (_state(text) == left or _fitted_since(text))]
    root = root_figure(figure)  # a SubFigure's root has the layout engine, which lays out the whole figure
    engine = root.get_layout_engine()
    # as written: as fitting recorded it where the text is as fitting left it, else as it is (written anew since)
    written = {text: (_WRITTEN[text].words, _WRITTEN[text].size) if _fitted_since(text) else _state(text)
               for text in ours}
    moved = False
    for text in ours:  # as the plot left it at this size (broken to a share of the width where it was), then fitted
        before = _state(text)
        if text in _BROKEN_TO:
            text.set_text(written[text][0])
            text.set_fontsize(written[text][1])
            _WRITTEN.pop(text, None)
            break_to_width(text, figure, _BROKEN_TO[text], renderer)
        else:
            text.set_text(texts[text][0])
            text.set_fontsize(texts[text][1])
        moved = moved or _state(text) != before
    if engine is None:  # nothing moves the Axes: each text fitted only where that leaves the figure less cut
        _fit_unlaid(figure, ours, written, renderer)
    else:
        if moved:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                engine.execute(root)
        for _ in range(3):
            if not _fit_placed(figure, ours, written, renderer):
                break
            with warnings.catch_warnings():  # a layout that collapses says so at the caller's draw, as it would have
                warnings.simplefilter("ignore")
                engine.execute(root)
    for text in ours:  # recorded even as written, so that the next draw knows it for the plot's (as _fit_unlaid)
        _WRITTEN[text] = _Written(*written[text], left=_state(text))


@functools.cache
def _fitter_class() -> Any:
    """The artist of :func:`fit_at_draw`: drawn first of the figure's (after its layout, before the Axes), nothing to
    see, no part of the layout; a class made on first use, as matplotlib is imported only to draw."""
    from matplotlib.artist import Artist
    from matplotlib.transforms import Bbox

    class FitAtDraw(Artist):
        def __init__(self) -> None:
            super().__init__()
            self.fitted_texts: dict[Any, tuple[str, float]] = {}  # each text as the plot left it: words, size
            self.set_zorder(-1e9)
            self.set_in_layout(False)

        def draw(self, renderer: Any) -> None:
            _fit_drawn(self.figure, self.fitted_texts, renderer)

        def get_window_extent(self, renderer: Any = None) -> Any:
            return Bbox.null()

    # named as the module's attribute (:func:`__getattr__`), so that a figure drawn by a plot pickles, as matplotlib's do
    FitAtDraw.__qualname__ = FitAtDraw.__name__ = "_FitAtDraw"
    return FitAtDraw


def __getattr__(name: str) -> Any:
    """``_FitAtDraw``, :func:`_fitter_class`'s class, made on first use (a pickled figure names it here)."""
    if name == "_FitAtDraw":
        return _fitter_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _overlapping(figure: Any, drawn: bool = False, design: bool = False) -> set[tuple[int, int]]:
    """The pairs of the figure's Axes whose drawings (with their titles and labels) overlap, drawn as it is now
    (``drawn``: the caller has just laid it out at its present size); with ``design``, those whose boxes themselves
    overlap (twins, insets), which overlap by design (audit s33 msg33: read on their drawings with the labels, two
    panels whose titles ran into each other at the plot's own layout were taken to overlap by design, and passed)."""
    import itertools

    if len(figure.axes) < 2:
        return set()
    if not drawn:
        figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    boxes = [axes.get_window_extent(renderer) if design else axes.get_tightbbox(renderer) for axes in figure.axes]
    return {(i, j) for i, j in itertools.combinations(range(len(boxes)), 2) if boxes[i].overlaps(boxes[j])}


def _check_room(figure: Any, figsize: tuple[float, float], own: Any, apart: set[tuple[int, int]]) -> None:
    """An OptionError, the figure closed, when ``figsize`` cannot hold the panels apart: the constrained layout
    collapsed them (matplotlib only warns) or panels apart at the plot's own size (``apart``) now overlap; or draws a
    panel smaller than its plot declared it reads at (:func:`least_panel`), with a size that holds it."""
    import warnings

    import matplotlib.pyplot as plt

    caught = _drawn_as_is(figure, None)
    collapsed = [w for w in caught if "axes sizes collapsed" in str(w.message)]
    for w in caught:
        if w not in collapsed:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if collapsed or _overlapping(figure, drawn=True) - apart:
        from .errors import OptionError

        def holds(drawn):  # laid out at the size tried: not collapsed, no panels drawn over each other, none short, no
            # tick labels crowded (the checks resized() makes after this one)
            tried = _drawn_as_is(figure, drawn)
            return (not any("axes sizes collapsed" in str(w.message) for w in tried)
                    and not _overlapping(figure, drawn=True) - apart and not _short_panels(figure)
                    and not _crowded_tick_labels(figure, first=True, drawn=True)[0])

        # a size that holds it, found as the short panels' is: the shape asked kept (the grid drawn is the one a
        # plot picks for that shape), checked by laying the figure out at it (audit s34 marks34: no size was named)
        found = _size_holding(figure, figsize, holds, lambda: 1.4, within=1.2)
        plt.close(figure)
        n = len(figure.axes)
        what = (f"the {n} panels of this figure with their labels: they would be drawn over each other" if n > 1
                else "this figure's labels: they leave no room for the plot")
        size = (f"about ({found[0]:g}, {found[1]:g}) holds {'them' if n > 1 else 'it'}; " if found else "")
        raise OptionError(f"figsize=({figsize[0]:g}, {figsize[1]:g}) is too small for {what}; pass a larger "
                          f"figsize= ({size}the plot's own size is ({own[0]:.3g}, {own[1]:.3g}))"
                          + (", or plot fewer panels" if n > 1 else ""))
    short = _short_panels(figure)  # laid out and drawn above: panels that keep apart, drawn under their least size
    if short:
        _refuse_short_panels(figure, figsize, own, short)


def _size_holding(figure: Any, figsize: tuple[float, float], holds: Callable[[list[Any] | None], bool],
                  grow: Callable[[], float] = lambda: 1.25, within: float = 1.02) -> tuple[float, float] | None:
    """The smallest size of the shape of ``figsize`` (to ``within``: 2%, rounded up as a message prints it; the
    overlapping panels' refusal asks 20% in steps of 1.4, as each try lays out every panel again: 1.3 s a try for six
    panels of decision grids, seven tries were 9 CPU seconds) at which ``figure``,
    laid out there (:func:`_laid_out_at`), ``holds(drawn)`` (``drawn``: :func:`_laid_out_at`'s warnings, for
    :func:`_drawn_as_is`); None where none within :data:`MAX_FIGURE_INCHES` does.
    ``grow()``: how much larger to try next after a size that does not hold (at least 1.05, at most 4). The shape is
    kept so that the grid of panels a plot picks for it (:func:`largest_panels`) is the one drawn here; the labels
    around a panel keep their size, so the drawing grows by more than the figure. The one search of the refusals of
    :func:`_check_room` for a size that holds a figure."""
    def fits(scale):
        size = (_up(figsize[0] * scale), _up(figsize[1] * scale))
        if max(size) > MAX_FIGURE_INCHES:
            return False
        return holds(_laid_out_at(figure, size))

    low, high, held = 1.0, 1.0, False
    for _ in range(8):
        low, high = high, high * min(max(grow(), 1.05), 4.0)
        if max(figsize) * high > MAX_FIGURE_INCHES:
            break
        if held := fits(high):
            break
    if not held:
        return None
    while high / low > within:
        middle = (low * high) ** 0.5
        low, high = (low, middle) if fits(middle) else (middle, high)
    return _up(figsize[0] * high), _up(figsize[1] * high)


def axes_off(ax: Any) -> None:
    """``ax.axis("off")``, its tick locations emptied: matplotlib finds and measures the ticks of an Axes whose axes
    are off at each layout (a title's position reads the y axis' offset), though it draws none, so the Bayesian
    simplexes' six panels took four times as long to lay out as without them (speed39). Nothing drawn changes.
    An axis shared with another Axes keeps its ticks, which are the other's too."""
    from matplotlib.ticker import NullLocator

    ax.axis("off")
    for axis, shared in ((ax.xaxis, ax.get_shared_x_axes()), (ax.yaxis, ax.get_shared_y_axes())):
        if len(shared.get_siblings(ax)) == 1:
            axis.set_major_locator(NullLocator())
            axis.set_minor_locator(NullLocator())


#: what a plot declares of a panel that reads only at a least size (:func:`least_panel`): Axes -> (width, height, what
#: one panel is, why that size), read by :func:`_check_room`
_LEAST: weakref.WeakKeyDictionary[Any, tuple[float, float, str, str]] = weakref.WeakKeyDictionary()


def least_panel(ax: Any, width: float, height: float, what: str, why: str) -> None:
    """Declare that ``ax``'s drawing (its box as laid out, after a fixed aspect shrinks it) reads only at ``width`` x
    ``height`` inches or more, computed by the plot from its labels and fonts: under ``Result.plot(figsize=)`` a size
    drawing it smaller is refused by the one check of a figure's room, :func:`_check_room`, with a size that holds it.
    ``what`` names one panel ("simplex") and ``why`` says what sets the size, for the message (audit s33 msg33: six
    simplexes at (3.4, 2.6) were drawn 13 x 9 pt, their posterior clouds dots, where a constrained layout keeps the
    labels and shrinks the drawing: nothing overlaps, so the check of panels drawn over each other let it pass)."""
    _LEAST[ax] = (float(width), float(height), what, why)


def _short_panels(figure: Any) -> list[tuple[Any, float, float]]:
    """(Axes, width, height in inches as drawn) of the figure's panels drawn smaller than :func:`least_panel` declared
    (the figure laid out at its size)."""
    size = figure.get_size_inches()
    short = []
    for axes in figure.axes:
        need = _LEAST.get(axes)
        if need is None or not axes.get_visible():
            continue
        box = axes.get_position()  # as drawn: after an aspect's shrinking
        width, height = box.width * size[0], box.height * size[1]
        if width < need[0] - 1e-3 or height < need[1] - 1e-3:
            short.append((axes, width, height))
    return short


def _refuse_short_panels(figure: Any, figsize: tuple[float, float], own: Any,
                         short: list[tuple[Any, float, float]]) -> None:
    """The OptionError of :func:`_check_room` for panels drawn under their least size (:func:`_short_panels`): the
    figure closed, the smallest panel's size and the one declared said, and a size at which every one is drawn at its
    least, found by growing the figure by the shortfall and laying it out again until none is short."""
    import matplotlib.pyplot as plt

    from .errors import OptionError

    axes, drawn_w, drawn_h = min(short, key=lambda item: item[1] * item[2])
    need_w, need_h, what, why = _LEAST[axes]

    def shortfall():  # grown by the shortfall of the panels short at the size tried last
        return max([max(_LEAST[a][0] / max(w, 1e-3), _LEAST[a][1] / max(h, 1e-3))
                    for a, w, h in _short_panels(figure)] or [1.05])

    found = _size_holding(figure, figsize, lambda drawn: (_drawn_as_is(figure, drawn), not _short_panels(figure))[1],
                          shortfall)
    plt.close(figure)
    n = len(figure.axes)
    whose = f"the {n} panels of this figure: each {what}" if n > 1 else f"this figure's {what}: it"
    size = f"about ({found[0]:g}, {found[1]:g}) holds {'them' if n > 1 else 'it'}; " if found else ""
    raise OptionError(f"figsize=({figsize[0]:g}, {figsize[1]:g}) is too small for {whose} would be drawn "
                      f"{drawn_w:.2f} x {drawn_h:.2f} in, under the {need_w:.2f} x {need_h:.2f} in that show it "
                      f"({why}); pass a larger figsize= ({size}the plot's own size is ({own[0]:.3g}, {own[1]:.3g}))"
                      + (", or plot fewer panels" if n > 1 else ""))


def _shown_tick_labels(axis: Any) -> list[Any]:
    """The tick labels ``axis`` draws: visible, not empty, at a tick inside the view (matplotlib keeps labels of
    ticks past the limits, which it does not draw); none where the axis or the Axes' axes are off (``axis("off")``:
    a simplex's triangles keep tick labels matplotlib does not draw)."""
    if not (axis.axes.axison and axis.get_visible()):
        return []
    low, high = sorted(axis.get_view_interval())
    span = (high - low) * 1e-9
    ticks = axis.get_major_ticks()
    shown = []
    for tick, where in zip(ticks, axis.get_majorticklocs()):
        if low - span <= where <= high + span:
            shown += [label for label in (tick.label1, tick.label2)
                      if label.get_visible() and label.get_text().strip()]
    return shown


#: least gap between two upright tick labels side by side, in ems of the smaller font: closer, two numbers read as one
#: (audit s28 fig28: the calibration figure's "20" and "30", 0.2 em apart, read "2030"; s29 fig29: at 0.24 em in the
#: docs' 150 dpi PNG still, under a word space, 0.32 em of DejaVu Sans; a 7 pt label is measured to a pixel at 100
#: dpi, 0.1 em, so 0.4 keeps a word space at any resolution). The one rule of crowded tick labels: the thinning, the
#: refusal of a figsize= and the size that refusal suggests are all measured by it.
TICK_GAP = 0.4


def _drawn_over(labels: list[Any], renderer: Any) -> list[tuple[str, str]]:
    """The pairs of neighbouring ``labels`` drawn over each other: boxes that overlap or, side by side, are closer
    than :data:`TICK_GAP`, or for labels turned at a slant (whose upright boxes overlap though the words do not)
    lines closer than a font size, measured across."""
    import math

    shown = []
    for label in labels:
        box = label.get_window_extent(renderer)
        shown.append((label, box, ((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)))
    along = 0 if len(shown) < 2 or abs(shown[0][2][0] - shown[-1][2][0]) >= abs(shown[0][2][1] - shown[-1][2][1]) \
        else 1
    shown.sort(key=lambda item: item[2][along])
    pairs = []
    for (a, box_a, _), (b, box_b, _) in zip(shown, shown[1:]):
        angle = math.radians(a.get_rotation() % 180)
        if min(abs(angle), abs(angle - math.pi / 2), abs(angle - math.pi)) < 1e-3:
            gap = TICK_GAP * min(a.get_fontsize(), b.get_fontsize()) * renderer.points_to_pixels(1.0)
            side_by_side = min(box_a.y1, box_b.y1) > max(box_a.y0, box_b.y0)  # on one line of text
            crowded = box_b.x0 - box_a.x1 < gap if side_by_side and along == 0 else box_a.overlaps(box_b)
        else:  # slanted lines: their distance across is the step along the axis times the sine of the slant
            step = abs((box_b.x1 - box_a.x1) if along == 0 else (box_b.y1 - box_a.y1))
            slant = abs(math.sin(angle)) if along == 0 else abs(math.cos(angle))
            crowded = step * slant < a.get_fontsize() * renderer.points_to_pixels(1.0)
        if crowded:
            pairs.append((a.get_text(), b.get_text()))
    return pairs


def _numeric(axis: Any, labels: list[Any]) -> bool:
    """Whether the labels are numbers (a number formatter's: thinning them loses nothing) rather than names, which
    a plot sets one per row or column (as a FuncFormatter, FixedFormatter or categories) and may be made of digits
    (agents named by a learning rate: audit s12 review)."""
    from matplotlib.ticker import EngFormatter, LogFormatter, PercentFormatter, ScalarFormatter

    if not isinstance(axis.get_major_formatter(), (ScalarFormatter, LogFormatter, PercentFormatter, EngFormatter)):
        return False
    for label in labels:
        text = label.get_text().replace("\u2212", "-").replace("%", "").strip()
        if text.startswith("$"):  # mathtext of a log axis' formatter
            continue
        try:
            float(text)
        except ValueError:
            return False
    return True


def draw_quietly(figure: Any) -> Any:
    """``figure`` laid out and drawn (without rendering) at its size; its renderer. A collapsed layout is not warned
    of: :func:`_check_room` reports it, and :func:`hold_labels` grows the figure for it."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        figure.draw_without_rendering()
    return figure.canvas.get_renderer()


def _thin_numbers(axis: Any, draw: Callable[[], Any]) -> Any:
    """The number tick labels of ``axis`` thinned (every second, third, ... tick in view kept, at least two, so the
    view stays as drawn and two labels give the scale) until none is drawn over its neighbour by :func:`_drawn_over`;
    ``draw()`` places them again and returns the renderer, which this returns. Names are never thinned."""
    from matplotlib.ticker import FixedLocator

    renderer = draw()
    labels = _shown_tick_labels(axis)
    if not _drawn_over(labels, renderer) or not _numeric(axis, labels):
        return renderer
    locations = [label.get_position()[0 if axis.axis_name == "x" else 1] for label in labels]
    for step in range(2, len(locations)):
        axis.set_major_locator(FixedLocator(locations[::step]))
        renderer = draw()
        if not _drawn_over(_shown_tick_labels(axis), renderer):
            break
    return renderer


def _numbers_apart(figure: Any, passes: int = 3) -> None:
    """The number tick labels of every Axes of ``figure`` thinned where :func:`_drawn_over` finds them drawn over each
    other, measured on the figure drawn at its size and drawn again until a whole pass finds none: thinning one axis
    can move the others (a shorter label at a panel's edge widens the constrained layout's panels). For a plot's own
    figure, whose tick locations are set before its panels' widths are known (audit s29 fig29: the calibration
    figure's "20" and "30", 0.2 em apart, read "2030")."""
    for _ in range(passes):
        renderer = draw_quietly(figure)
        crowded = [axis for axes in figure.axes for axis in (axes.xaxis, axes.yaxis)
                   if _drawn_over(labels := _shown_tick_labels(axis), renderer) and _numeric(axis, labels)]
        if not crowded:
            return
        for axis in crowded:  # this axis' ticks placed again alone, the panels where the layout put them
            _thin_numbers(axis, functools.partial(_placed_ticks, axis, renderer))


def _placed_ticks(axis: Any, renderer: Any) -> Any:
    """``renderer``, once the tick labels of ``axis`` are placed where its Axes are now (the figure not drawn again)."""
    axis.get_tightbbox(renderer)
    return renderer


def _fit_tick_labels(figure: Any, figsize: tuple[float, float], own: Any) -> None:
    """Tick labels apart at ``figsize``: numbers thinned (:func:`_thin_numbers`), names along x turned 45 then 90
    degrees; where they still overlap an OptionError, the figure closed, naming the axis and a size that would hold
    them (names are never dropped or shortened: each labels its row or column)."""
    crowded, renderer = _crowded_tick_labels(figure)
    if crowded:
        _refuse_tick_labels(figure, figsize, own, crowded, renderer)


def _crowded_tick_labels(figure: Any, first: bool = False,
                         drawn: bool = False) -> tuple[list[tuple[Any, str, list[Any]]], Any]:
    """(the (Axes, axis name, tick labels) still drawn over each other after numbers are thinned and names along x
    turned, the renderer): the rule of :func:`_fit_tick_labels`, which refuses where any are, and of the size a
    refusal of :func:`_check_room` names (audit s34 marks34: a size holding the panels apart left two y labels
    crowded, and the size named was refused in turn). For a size that search tries (on a figure it closes after),
    ``first``: only the first axis still crowded, whether any is, without turning the others' names at two draws an
    axis (speed39: six panels' names tried at 45 and 90 degrees, 12 draws, were 60% of a refusal's time at a size
    already known not to hold); ``drawn``: the figure as the search has just drawn it, not drawn again first."""
    def draw():
        return draw_quietly(figure)

    renderer = figure.canvas.get_renderer() if drawn else draw()
    crowded = []
    for axes in figure.axes:
        for axis, name in ((axes.xaxis, "x"), (axes.yaxis, "y")):
            labels = _shown_tick_labels(axis)
            if not _drawn_over(labels, renderer):
                continue
            if _numeric(axis, labels):
                renderer = _thin_numbers(axis, draw)
            elif name == "x":
                for angle in (45, 90):
                    for label in axis.get_ticklabels():
                        label.set(rotation=angle, ha="right", va="top" if angle < 90 else "center",
                                  rotation_mode="anchor")
                    renderer = draw()
                    if not _drawn_over(_shown_tick_labels(axis), renderer):
                        break
            labels = _shown_tick_labels(axis)
            if _drawn_over(labels, renderer):
                crowded.append((axes, name, labels))
                if first:
                    return crowded, renderer
    return crowded, renderer


def rows_held(ax: Any, n: int, draw: Callable[[int], Any]) -> int:
    """How many of a plot's ``n`` rows (one y tick label each, the first at the top) the caller's Axes ``ax`` hold
    apart at their labels' font and line count, at least one, drawn: ``draw(k)`` draws the first ``k`` rows, taking
    away those it drew before. The caller's figure keeps its size (a plot cannot grow it, as it grows its own or
    refuses a ``figsize=``), so the rows past its height are left out, which the plot's title says; measured on the
    figure drawn by the rule of :func:`_drawn_over` (audit s33 tunefig33: the best set's 30 rows in 3.4 x 2.55 in, and
    its two-line labels at 7 x 5.25 in, stacked over each other)."""
    def drawn(k):  # the rows, and the title and x label they come with fitted at each draw, as they will be when the
        # caller's figure is drawn (:func:`fit_at_draw`): the rows counted in the height the broken title leaves
        draw(k)
        _fitted_at_draw(ax.figure, [text for text in (ax.title, ax.xaxis.label) if text.get_text()])

    k = n
    drawn(k)
    for _ in range(n):
        if k <= 1:
            break
        renderer = draw_quietly(ax.figure)
        shown = _shown_tick_labels(ax.yaxis)
        if not _drawn_over(shown, renderer):
            break
        # a first guess: the rows about the Axes' height over 1.1 k apart (matplotlib's margins), each a label apart
        tallest = max(label.get_window_extent(renderer).height for label in shown)
        k = max(1, min(k - 1, int(ax.get_window_extent(renderer).height / (1.1 * tallest))))
        drawn(k)
    return k


def names_apart(axis: Any, names: Sequence[str], least: int = 1) -> int:
    """Every k-th of ``names`` (one per tick of ``axis``, in order) written, counted from the last (the top row of a
    plot whose first row is at the bottom), the others' ticks kept unnamed, with the least k at which the names shown
    are apart by the rule of every figure's tick labels (:func:`_drawn_over`), measured on the caller's figure drawn
    at its size; returns k (1: every name written). For a caller's Axes (``ax=``), whose size a plot cannot grow, as
    it grows its own or refuses a ``figsize=`` (:func:`_fit_tick_labels`), drawing a row for every name where
    :func:`rows_held` would drop rows that are part of the claim (audit s35 plots35: the selection check's 26 task
    names stacked over each other in a one-column Axes; its held-out tasks are the check, none may be left out).
    ``least``: a k known too small to try (the Axes have lost room since it was measured)."""
    n = len(names)
    figure = axis.axes.figure

    def named(every):
        axis.set_ticklabels([name if (n - 1 - i) % every == 0 else "" for i, name in enumerate(names)])
        shown = _shown_tick_labels(axis)
        return shown, _drawn_over(shown, draw_quietly(figure))

    least = int(min(max(least, 1), max(n, 1)))
    shown, crowded = named(least)
    if not crowded or n < 2 or least == n:
        return least
    # from a lower bound, the names k rows apart no closer than the tallest name's extent (the rule also asks a gap),
    # then checked by the rule, each step one figure drawn (0.3 s a draw at 26 rows: trying k = 2, 3, ... took 4 s)
    renderer = figure.canvas.get_renderer()
    boxes = [label.get_window_extent(renderer) for label in shown]
    centres = sorted((b.y0 + b.y1) / 2 if axis.axis_name == "y" else (b.x0 + b.x1) / 2 for b in boxes)
    pitch = max(float(np.median(np.diff(centres))), 1e-9)
    size = max(b.height if axis.axis_name == "y" else b.width for b in boxes)
    every = int(min(n, max(least + 1, np.ceil(least * size / pitch - 1e-9))))
    while every < n and named(every)[1]:
        every += 1
    if every == n:
        named(n)
    return every


def _up(value: float) -> float:
    """``value`` rounded up to 3 significant digits, as a message prints it: never a size below the one measured."""
    import math

    scale = 10.0 ** (2 - math.floor(math.log10(value)))
    return math.ceil(value * scale - 1e-6) / scale


def _refuse_tick_labels(figure: Any, figsize: tuple[float, float], own: Any,
                        crowded: list[tuple[Any, str, list[Any]]], renderer: Any) -> None:
    """The OptionError of :func:`_fit_tick_labels` for the ``crowded`` (Axes, axis name, tick labels): the figure
    closed, the first axis named, and a size that holds every one's labels apart by the rule that refused them
    (:func:`_drawn_over`, on the figure drawn at that size)."""
    import matplotlib.pyplot as plt

    from .errors import OptionError
    from .format import count, listed

    inch = figure.dpi
    width, height = figsize
    grows = set()
    for axes, name, labels in crowded:
        boxes = [label.get_window_extent(renderer) for label in labels]
        box = axes.get_window_extent(renderer)
        spec = axes.get_subplotspec()
        grid = (1, 1) if spec is None else spec.get_gridspec().get_geometry()  # (rows, columns) sharing the growth
        # a first guess: each label needs its extent along the axis and a gap to its neighbours: all of them side by
        # side, and each two neighbours' halves between their centres, which ticks inside the view set closer than
        # the axis is long (audit s24: two thinned labels 32 px apart on an 85 px axis were told the size asked)
        gap = TICK_GAP * labels[0].get_fontsize() * renderer.points_to_pixels(1.0)
        extent = box.width if name == "x" else box.height
        spans = sorted(((b.x0 + b.x1) / 2, b.width) if name == "x" else ((b.y0 + b.y1) / 2, b.height) for b in boxes)
        crowding = max([max(0.6 * (w + v), 0.5 * (w + v) + gap) / max(d - c, 1e-9)
                        for (c, w), (d, v) in zip(spans, spans[1:])], default=1.0)
        grow = max(sum(w for _, w in spans) * 1.2 - extent, extent * (crowding - 1.0), 0.0)
        across = 0.0
        if axes.get_aspect() != "auto":  # a drawing of fixed shape (a matrix) grows along both axes together
            across = grow * (box.height / box.width if name == "x" else box.width / box.height)
            grows.add("xy")
        grows.add(name)
        grow_x, grow_y = (grow, across) if name == "x" else (across, grow)
        width = max(width, figsize[0] + grid[1] * grow_x / inch)
        height = max(height, figsize[1] + grid[0] * grow_y / inch)
    # the guess checked by the rule that refused: the figure drawn at it, and grown on until every axis named holds
    # its labels apart (audit s29 fig29: a guess short of the 0.25 em gap told the size it then refused)
    axes_named = [axes.xaxis if name == "x" else axes.yaxis for axes, name, _ in crowded]
    for _ in range(12):
        width, height = _up(width), _up(height)
        figure.set_size_inches(width, height)
        renderer = draw_quietly(figure)
        if not any(_drawn_over(_shown_tick_labels(axis), renderer) for axis in axes_named):
            break
        width *= 1.15 if {"x", "xy"} & grows else 1.0
        height *= 1.15 if {"y", "xy"} & grows else 1.0
    plt.close(figure)
    axes, name, labels = crowded[0]
    names = listed([repr(label.get_text().replace("\n", " ")) for label in labels], limit=3)
    more = f" and {count(len(crowded) - 1, 'other axis')}" if len(crowded) > 1 else ""
    axis = axes.xaxis if name == "x" else axes.yaxis
    fewer = "" if _numeric(axis, labels) else f", or plot fewer {'columns' if name == 'x' else 'rows'}"
    raise OptionError(f"figsize=({figsize[0]:g}, {figsize[1]:g}) is too small for the "
                      f"{count(len(labels), 'tick label')} of the {name} axis ({names}){more}: they would be drawn "
                      f"over each other; pass a larger figsize= (about ({width:g}, {height:g}) holds them; the "
                      f"plot's own size is ({own[0]:.3g}, {own[1]:.3g})){fewer}")


#: Width of one column of a two-column paper, in inches: a new multi-panel figure is this wide by default.
COLUMN_WIDTH = 3.3

#: Smallest font, in points, that the figures use (ticks, legends, notes); anything larger reads in print.
SMALL_FONT = 7


def panels(ax: Any, n: int, panel_size: tuple[float, float], *, width: float | None = None, columns: int | None = None,
           sharex: bool = False, sharey: bool = False, what: str = "panel", hint: str = "",
           fewer: str = "") -> tuple[Any, list[Any]]:
    """(figure, list of n Axes) for a multi-panel plot: the caller's Axes, or a new grid when ``ax`` is None.

    A new figure is ``width`` inches wide (default :data:`COLUMN_WIDTH`) and wraps the panels into as
    many columns of ``panel_size[0]`` inches (a panel with its tick labels) as fit, or into ``columns``
    when given, so that every panel stays readable whatever the number of tasks or metrics: a row of
    n panels shrunk to a column's width is not. Under ``Result.plot(figsize=)`` (:data:`ASKED_SIZE`) the columns
    are those whose grid draws the panels largest at that size (:func:`largest_panels`), unless ``columns`` is given.  Each row is ``panel_size[1]`` inches high.  Shared axes label only the outer panels;
    slots left over in the last row are removed, not left blank.

    ``ax`` may be one Axes (n = 1) or any sequence or array of n Axes; ``what`` names what one panel
    shows and ``hint`` how to draw fewer, for the error when the count differs. A new figure past
    :data:`MAX_FIGURE_INCHES` is refused (:func:`own_size`; ``fewer`` says how to draw less).
    """
    if ax is not None:
        axes = list(np.ravel(np.asarray(ax, dtype=object)))
        if len(axes) != n:
            from .errors import OptionError
            from .format import count

            raise OptionError(f"this plot has {count(n, 'panel')}, one per {what}, but ax= holds {len(axes)} Axes; "
                              f"pass one Axes per {what}{hint}")
        return axes[0].figure, axes
    import matplotlib.pyplot as plt

    width = COLUMN_WIDTH if width is None else float(width)
    asked = ASKED_SIZE.get() if columns is None else None  # columns given by the plot stay its own
    columns = int(max(1, min(n, width // panel_size[0] if columns is None else columns)))
    default_width, default_rows = width, -(-n // columns)  # the plot's own grid, without figsize=
    if asked is not None and (best := largest_panels(n, panel_size, asked, columns)) != columns:
        # Three panels stacked for a page's width were drawn a third of their size at figsize=(3.4, 2.6): for the
        # size asked, the grid whose panels come out largest, at its own size (resized() scales it).
        columns, width = best, best * panel_size[0]
    rows = -(-n // columns)
    own = None if asked is None else (default_width, panel_size[1] * default_rows)
    fewer = fewer or (f"draw fewer of its {n:,} {what}s ({rows:,} rows of them): plot a subset of the agents or tasks "
                      "(select the rows first)" if rows > 1 else "")
    fig, grid = plt.subplots(rows, columns, figsize=own_size((width, panel_size[1] * rows), fewer), squeeze=False,
                             sharex=sharex, sharey=sharey, layout="constrained")
    if own is not None and (own[0] != fig.get_figwidth() or own[1] != fig.get_figheight()):
        _OWN_SIZE[fig] = own
    axes = list(grid.ravel())
    for spare in axes[n:]:
        spare.remove()
    if sharex and n % columns:
        # The panel above a removed slot is now the bottom of its column: it needs its x tick labels.
        for panel in axes[n - columns:(rows - 1) * columns]:
            panel.xaxis.set_tick_params(labelbottom=True)
    for panel in axes[:n]:
        panel.tick_params(labelsize=SMALL_FONT)
    return fig, axes[:n]


def largest_panels(n: int, panel_size: tuple[float, float], figsize: tuple[float, float], columns: int) -> int:
    """The number of columns of a grid of ``n`` panels of ``panel_size`` inches that, scaled to fit ``figsize``,
    draws them largest: ``columns`` unless another grid's panels come out larger (then the fewest such columns)."""
    def scale(c):
        return round(min(figsize[0] / (c * panel_size[0]), figsize[1] / (-(-n // c) * panel_size[1])), 9)

    best = max(range(1, n + 1), key=lambda c: (scale(c), -c))
    return best if scale(best) > scale(columns) else columns


def figure_legend(fig: Any, axes: Iterable[Any], *, extra: Iterable[Any] = (), title: str | None = None,
                  **kwargs: Any) -> Any:
    """One legend above all panels: every labelled artist of the panels once, then ``extra`` handles.

    Needs a constrained layout (what :func:`panels` makes) to keep its room; ``kwargs`` win.
    """
    seen: dict[str, Any] = {}
    for panel in axes:
        for handle, label in zip(*panel.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    handles = list(seen.values()) + list(extra)
    if not handles:
        return None
    options: dict[str, Any] = {"loc": "outside upper center", "fontsize": SMALL_FONT, "frameon": False, "handlelength": 1.5,
               "columnspacing": 1.0, "title": title, "title_fontsize": SMALL_FONT + 1}
    options.update(kwargs)
    if "ncols" not in options:
        options["ncols"] = legend_columns([h.get_label() for h in handles], fig.get_figwidth(), options)
    return fig.legend(handles=handles, **options)


#: the text of a legend above its Axes (:func:`legend_above`)
_LEGEND_ABOVE = {"fontsize": SMALL_FONT + 1, "handlelength": 1.5, "columnspacing": 1.0}


def legend_above_height(labels: Sequence[str], width: float) -> float:
    """Inches of the rows of a legend of ``labels`` above an Axes ``width`` inches wide (:func:`legend_above`), and of
    its title: what a plot's own figure adds to its height for it."""
    rows = -(-len(labels) // legend_columns(labels, width, _LEGEND_ABOVE))
    return (rows + 1) * 1.5 * _LEGEND_ABOVE["fontsize"] / 72


def legend_above(ax: Any, title: str | None = None, drawn_as: Mapping[str, Any] | None = None) -> Any:
    """The legend of ``ax`` in rows above it, clear of what is drawn (inside, it hid curves, bands and points wherever
    it sat: the curves plot; tuning's expected_max, audit s33 tunefig33: 8 procedures over the points at 3.4 in).

    As many columns as the Axes' width holds (at most 4, :func:`legend_columns`); a layout engine
    (``layout="constrained"``, or ``bbox_inches="tight"`` when saving) keeps its room. None without labelled artists.
    ``drawn_as``: the handle the legend draws for a label, where its artist's own would not say it (a tuple of
    handles, drawn over each other: the curves' marks of compared steps).
    """
    handles, labels = ax.get_legend_handles_labels()
    handles = [(drawn_as or {}).get(label, handle) for handle, label in zip(handles, labels)]
    if not handles:
        return None
    options = _LEGEND_ABOVE
    # at the width the figure is shown at: plot(figsize=)'s (ASKED_SIZE), to which resized() brings the plot's own
    width = (ASKED_SIZE.get() or figure_inches(ax.figure))[0]
    columns = legend_columns(labels, ax.get_position().width * width, options)
    return ax.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=columns, frameon=False,
                     borderaxespad=0.2, title=title, title_fontsize=SMALL_FONT + 1, **options)


def legend_columns(labels: Sequence[str], width: float, options: Mapping[str, Any], most: int = 4) -> int:
    """How many columns of a legend of ``labels`` (``options``: its fontsize, handlelength, columnspacing) fit
    across ``width`` inches, at most ``most``: each column as wide as its own longest label (a character is ~0.6 em
    wide), the labels filling the columns in order as matplotlib fills them, so that one long name widens its column
    only (audit s24: it set a curves legend of 8 agents in one column, 8 rows over half a 6.8 x 3 in figure)."""
    lengths = [len(str(label)) for label in labels]
    entry = options["handlelength"] + 0.8 + options["columnspacing"]  # em: the handle, its gap and the spacing
    for columns in range(max(1, min(len(lengths), most)), 1, -1):
        filled = np.array_split(np.asarray(lengths), columns)  # matplotlib's order: the first columns the fuller
        if sum(entry + 0.6 * column.max() for column in filled) * options["fontsize"] <= width * 72:
            return columns
    return 1


#: Okabe & Ito's colour-blind-safe palette, then four further distinct colours, so that up to 12
#: agents get 12 different colours.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
           "#882255", "#999933", "#44AA99", "#888888")


def _luminance(rgb: Any) -> float:
    """WCAG 2 relative luminance of an sRGB colour (channels 0..1)."""
    rgb = np.asarray(rgb, dtype=float)[:3]
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ [0.2126, 0.7152, 0.0722])


def mark_colors(ax: Any, bars: Sequence[Any], x: Sequence[float]) -> list[str]:
    """The colour of a mark at ``x`` on each of ``bars`` (the patches of ``ax.barh``, in order): black or white,
    whichever contrasts more (WCAG 2's ratio) with the bar as drawn (its alpha over the Axes' face), or with the Axes'
    face where the mark lies off its bar (a withheld interval draws no bar). At least 4.5:1 on any colour, where one
    black mark on every bar sat at 2.0:1 on :data:`PALETTE`'s black at alpha 0.75 (audit s35 plots35: SPR's estimate
    hidden on atari100k's nine agents)."""
    from matplotlib.colors import to_rgba

    face = np.asarray(to_rgba(ax.get_facecolor()))[:3]
    out = []
    for bar, where in zip(bars, x):
        under = face
        low, width = bar.get_x(), bar.get_width()
        if np.isfinite(where) and np.isfinite(low) and np.isfinite(width) and low <= where <= low + width:
            rgba = np.asarray(to_rgba(bar.get_facecolor()))
            under = rgba[:3] * rgba[3] + face * (1.0 - rgba[3])
        light = _luminance(under)
        # black's ratio (L + 0.05) / 0.05 against white's 1.05 / (L + 0.05)
        out.append("black" if (light + 0.05) ** 2 >= 0.05 * 1.05 else "white")
    return out


def palette(n: int, colors: Iterable[str] | None = None) -> list[str]:
    """``n`` colours: the caller's, or :data:`PALETTE`, repeating only beyond its length."""
    colors = PALETTE if colors is None else tuple(colors)
    return [colors[i % len(colors)] for i in range(n)]


#: Width of a two-column paper's text, in inches: the calibration figure's default width (three panels a row).
PAGE_WIDTH = 6.8
#: Height of a page's text, in inches (letter or A4), and the least pitch (inches) at which rows' 7-8 pt tick labels
#: stay apart: a new figure of one row per pair is no taller than a page while its rows fit (36 pairs: 12.6 in).
PAGE_HEIGHT, ROW_PITCH_MIN = 9.0, 0.14


def rows_height(n: int, pitch: float, extra: float) -> float:
    """Height of a new figure of ``n`` rows ``pitch`` inches apart plus ``extra`` inches of titles and labels: at most
    :data:`PAGE_HEIGHT` while the rows can be :data:`ROW_PITCH_MIN` apart there, taller only for more rows than that."""
    return min(extra + pitch * n, max(PAGE_HEIGHT, extra + ROW_PITCH_MIN * n))


#: How the calibration figure draws a method of each role (rlstats.calibration.ROLES).
CALIBRATION_STYLES: dict[str, dict[str, Any]] = {
    "default": {"linestyle": "-", "linewidth": 1.6, "marker": "o", "markersize": 3.5},
    "former default": {"linestyle": "--", "linewidth": 1.3, "marker": "s", "markersize": 3},
    "other": {"linestyle": ":", "linewidth": 1.1, "marker": ".", "markersize": 4},
}


def calibration_figure(table: pd.DataFrame | None = None, *, ax: Axes | Sequence[Axes] | None = None,
                       width: float | None = None, colors: Sequence[str] | None = None) -> Figure:
    """Coverage against runs per cell, one panel per procedure, from a calibration table.

    Each line is a method (its ``test``, ``band`` or ``interval``): solid when it is the procedure's default,
    dashed when it was the default before issue 40's at-level defaults, dotted otherwise; a point is the lowest
    coverage over the rest of the design (agents, tasks, score distribution, metric, ...) at that many runs per
    cell; every count of runs measured has a tick, labelled where the labels stay a word apart at the figure's size
    (every second, third, ... where they would not). Open triangles mark the lowest single design draw where the rows
    record their draws, and a grey line the nominal level. Each panel's methods are listed under it, broken at words
    to its width; a new figure has as many columns of panels as ``width`` holds (two at a page's width), each row as
    tall as its longest list of methods needs. Filter the table first to draw part of it
    (``rlstats.calibration_table(distribution="skewed")``); ``rlstats.calibration.coverage_by_runs`` gives the
    points drawn.

    Parameters
    ----------
    table : pandas.DataFrame, optional
        A frame of :func:`rlstats.calibration_table` (the whole table when None).
    ax : matplotlib Axes or sequence of Axes, optional
        One Axes per procedure; a new figure when None.
    width : float, optional
        Width of a new figure in inches (default :data:`PAGE_WIDTH`, a two-column paper's text), at least
        :data:`CALIBRATION_LEAST_WIDTH`: as many columns of panels as fit, each about
        :data:`CALIBRATION_COLUMN` inches.
    colors : sequence of colours, optional
        The methods' colours within a panel (default :data:`PALETTE`).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    OptionError
        The table has no row with runs per cell, ``ax`` holds another number of Axes than procedures, ``width`` is
        not a number of at least :data:`CALIBRATION_LEAST_WIDTH` inches, or the figure would be taller than
        :data:`MAX_FIGURE_INCHES` (filter the table to fewer procedures).

    See Also
    --------
    rlstats.calibration_table : the table this draws.

    Examples
    --------
    >>> import rlstats
    >>> table = rlstats.calibration_table(["bootstrap.interval", "curves.band"])
    >>> figure = rlstats.plotting.calibration_figure(table)
    >>> [panel.get_title() for panel in figure.axes]
    ['bootstrap.interval', 'curves.band']
    """
    from matplotlib import rcParams
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter
    from matplotlib.transforms import ScaledTranslation

    from .calibration import calibration_table, coverage_by_runs
    from .errors import OptionError

    inches = _calibration_width(width) if ax is None else None  # checked before the table is read
    points = coverage_by_runs(calibration_table() if table is None else table)
    names = list(dict.fromkeys(points["procedure"]))
    if not names:
        raise OptionError("the calibration table given has no row with runs per cell to draw; pass "
                          "rlstats.calibration_table() or a filter of it that keeps some")
    if inches is not None:
        fig, axes = _calibration_grid(len(names), inches)
    else:
        fig, axes = panels(ax, len(names), (CALIBRATION_COLUMN, 2.0), what="procedure",
                           hint=" (or filter the table to fewer procedures)")
    for panel, name in zip(axes, names):
        rows = points[points["procedure"] == name]
        methods = list(dict.fromkeys(zip(rows["role"], rows["method"])))  # defaults first (coverage_by_runs' order)
        for (role, method), color in zip(methods, palette(len(methods), colors)):
            line = rows[(rows["role"] == role) & (rows["method"] == method)]
            panel.plot(line["runs"], line["coverage"], color=color, label=method, **CALIBRATION_STYLES[role])
            drawn = line[line["worst"].notna()]
            if len(drawn):
                panel.plot(drawn["runs"], drawn["worst"], linestyle="none", marker="v", markersize=4,
                           markerfacecolor="none", markeredgecolor=color, markeredgewidth=0.8)
        for level in sorted(set(rows["level"])):
            panel.axhline(level, color="0.6", linewidth=0.9, zorder=0)
        panel.set_xscale("log")
        # a tick at every count of runs measured; labelled where the labels stay apart (_numbers_apart, below)
        panel.xaxis.set_major_locator(FixedLocator(sorted(set(rows["runs"]))))
        panel.xaxis.set_minor_locator(FixedLocator(sorted(set(rows["runs"]))))
        panel.xaxis.set_minor_formatter(NullFormatter())
        panel.xaxis.set_major_formatter(ScalarFormatter())
        low = np.nanmin([rows["coverage"].min(), rows["worst"].min()])
        # room below the lowest point, and never so little range that a 0.01 shortfall looks like a cliff
        panel.set_ylim(max(0.0, min(0.85, np.floor(low * 20) / 20 - 0.02)), 1.01)
        panel.set_title(name, fontsize=SMALL_FONT + 1)
        panel.set_xlabel("runs per cell", fontsize=SMALL_FONT, labelpad=1.0)
        spec = panel.get_subplotspec()
        if spec is None or spec.is_first_col():
            panel.set_ylabel("coverage", fontsize=SMALL_FONT)
        for side in ("top", "right"):
            panel.spines[side].set_visible(False)
        # under the tick labels and the x label by their height in points, not a share of the panel's (audit s20: on
        # a short panel the share put the methods over the numbers)
        below = -(rcParams["xtick.major.size"] + rcParams["xtick.major.pad"] + 1.4 * SMALL_FONT + 1.0
                  + 1.4 * SMALL_FONT + 2.0) / 72
        # from the panel's left edge, its methods broken to end inside it (_legend_inside, below): a legend wider than
        # its panel widened the layout's margins, the panels shrank to make room, the legend (centred on them)
        # overhung again, and so at every draw (audit s29 fig29). (Not mode="expand": its width stays in the pixels
        # of its last draw, a savefig's dpi, and the next draw's layout read it.)
        legend = panel.legend(loc="upper left", bbox_to_anchor=(0.0, 0.0), fontsize=SMALL_FONT, frameon=False,
                              bbox_transform=panel.transAxes + ScaledTranslation(0.0, below, fig.dpi_scale_trans),
                              ncols=1, handlelength=2.2, borderaxespad=0, borderpad=0, labelspacing=0.25)
        if ax is None:
            # its own figure keeps a row of the grid under the panels for their legends (_calibration_rows): out of
            # the layout, so a legend's width never sets a column's (session 39 fig39: in the layout, the whole
            # table's 26 panels at a page's width collapsed it, matplotlib warning "axes sizes collapsed to zero",
            # panels a few pixels wide and their legends over their neighbours)
            legend.set_in_layout(False)
    keys = [Line2D([], [], color="0.2", label=role, **CALIBRATION_STYLES[role]) for role in CALIBRATION_STYLES]
    keys += [Line2D([], [], color="0.6", linewidth=0.9, label="nominal level"),
             Line2D([], [], linestyle="none", marker="v", markerfacecolor="none", markeredgecolor="0.2",
                    label="worst design draw")]
    key: dict[str, Any] = {"fontsize": SMALL_FONT, "handlelength": 2.2, "columnspacing": 1.0}
    # as many columns as fit the figure's width (audit s20: six in a row were 481 px on a 350 px figure at 3.5 in)
    columns = legend_columns([str(k.get_label()) for k in keys], fig.get_figwidth(), key, most=len(keys))
    fig.legend(handles=keys, loc="outside upper center", frameon=False, ncols=columns, **key)
    line = fig.supxlabel("runs per cell (log scale); each point the lowest coverage over the rest of the design",
                         fontsize=SMALL_FONT)
    break_to_width(line, fig, 0.95)
    if ax is None:
        _calibration_rows(fig, axes)
        # counts of runs close on a log axis keep their ticks but lose labels, measured on the figure drawn at its size
        # (bootstrap.interval's 2 to 200 at a page's width: "20" and "30" 0.2 em apart read "2030", audit s28 fig28)
        _numbers_apart(fig)
    return fig


#: inches a column of the calibration figure's panels takes (a panel with its tick labels and its methods under it):
#: two columns at a page's width (:data:`PAGE_WIDTH`), one at a column's; and the least width a new figure may have,
#: its panel 1.45 in wide beside the "coverage" label and its tick labels (narrower, the methods under it break into
#: lines of a word or two; at 1.5 in the panel is 0.94 in)
CALIBRATION_COLUMN, CALIBRATION_LEAST_WIDTH = 3.2, 2.0

#: inches of a calibration panel's drawing (without its title, tick labels and methods), and of the gap between the
#: last method listed under a panel and the title of the panel below
_CALIBRATION_PANEL, _CALIBRATION_GAP = 1.2, 0.12


#: the share by which a line of 7 pt text drawn at one resolution may be wider at another (DejaVu Sans' hinting:
#: "simultaneous, studentized" 92.9 pt at 100 dpi, 97.0 pt at 150, 90.4 pt at 200; session 39 fig39: methods broken to
#: end inside their panel at 100 dpi ended up to 0.07 in past it at the docs' 150 dpi, past the figure's edge at
#: width=2.2)
_HINTED = 0.06


def _calibration_width(width: Any) -> float:
    """``width=`` of :func:`calibration_figure`'s own figure, inches: :data:`PAGE_WIDTH` for None; an OptionError
    where it is not a number from :data:`CALIBRATION_LEAST_WIDTH` to :data:`MAX_FIGURE_INCHES` (before, none was
    checked: width=0 failed in numpy, "Singular matrix", width=-1 in matplotlib)."""
    from .errors import OptionError
    from .options import is_finite_number

    if width is None:
        return PAGE_WIDTH
    if not is_finite_number(width) or not CALIBRATION_LEAST_WIDTH <= float(width) <= MAX_FIGURE_INCHES:
        raise OptionError(f"width= of the calibration figure must be a number of inches from "
                          f"{CALIBRATION_LEAST_WIDTH:g} (one panel with its labels and methods) to "
                          f"{MAX_FIGURE_INCHES}, e.g. width={PAGE_WIDTH} (a page's text), got {width!r:.60}")
    return float(width)


def _calibration_grid(n: int, width: float) -> tuple[Any, list[Any]]:
    """(figure, n Axes) of :func:`calibration_figure`'s own figure ``width`` inches wide: the panels in as many
    columns as fit (:data:`CALIBRATION_COLUMN`), each row of panels followed by a row of the grid with no Axes,
    where their legends go (its height set by :func:`_calibration_rows`)."""
    import matplotlib.pyplot as plt

    columns = int(max(1, min(n, width // CALIBRATION_COLUMN)))
    rows = -(-n // columns)
    # refused before anything is drawn where the panels alone are too tall: a row is 1.7 in at least, its drawing
    # and 0.5 in of title, tick labels and x label (and more: a line of methods at least, and the gap under it)
    own_size((width, rows * (_CALIBRATION_PANEL + 0.5)), _fewer_procedures(n, rows), sized=False)
    # a first height: the panels and about four methods under each; _calibration_rows sets the one drawn
    fig = plt.figure(figsize=(width, min(rows * 2.4, MAX_FIGURE_INCHES)), layout="constrained")
    grid = fig.add_gridspec(2 * rows, columns, height_ratios=[_CALIBRATION_PANEL, 0.6] * rows)
    axes = [fig.add_subplot(grid[2 * (i // columns), i % columns]) for i in range(n)]
    for panel in axes:
        panel.tick_params(labelsize=SMALL_FONT)
    return fig, axes


def _fewer_procedures(n: int, rows: int) -> str:
    """How to draw less of :func:`calibration_figure`'s own figure: :func:`own_size`'s ``fewer``."""
    from .format import count, verb

    return (f"filter the table to fewer procedures (rlstats.calibration_table(procedures)): its "
            f"{count(n, 'panel')} {verb(n, 'stands')} in {count(rows, 'row')}; or pass a larger width= for more "
            "panels a row")


def _calibration_rows(fig: Any, axes: Sequence[Any]) -> None:
    """The height of :func:`calibration_figure`'s own figure and of its grid's rows: each panel's drawing
    :data:`_CALIBRATION_PANEL` inches high, and the row of the grid under each row of panels as tall as its longest
    legend (its methods broken inside its panel, :func:`_legend_inside`) reaches below the panels' tick labels and
    x labels, :data:`_CALIBRATION_GAP` clear of the titles of the row below (or of the line under the panels).
    Measured on the figure drawn: the layout's margins (titles, tick labels, the key above) keep their size whatever
    the height, so the rows' heights set as ratios come out as asked. Refused past :data:`MAX_FIGURE_INCHES` (the
    figure closed): the table filtered to fewer procedures draws less."""
    from .errors import OptionError

    grid = axes[0].get_subplotspec().get_gridspec()
    rows, columns = grid.get_geometry()
    rows //= 2
    renderer = draw_quietly(fig)
    for panel in axes:  # out of the layout: breaking them moves nothing else, no second draw is needed to measure
        _legend_inside(panel)
    dpi = fig.dpi
    _refuse_wide_methods(fig, axes, renderer)
    ratios = list(grid.get_height_ratios())
    height = fig.get_figheight()
    per_ratio = axes[0].get_position().height * height / ratios[0]  # inches of the grid's rows a unit of ratio
    margins = height - per_ratio * sum(ratios)  # the layout's: titles, tick labels, x labels, the key, the line
    supxlabel = fig._supxlabel
    for row in range(rows):
        mine = axes[row * columns:(row + 1) * columns]
        lowest = min(panel.get_legend().get_window_extent(renderer).y0 for panel in mine)
        below = axes[(row + 1) * columns:(row + 2) * columns]
        if below:
            top = max(panel.get_tightbbox(renderer, for_layout_only=True).y1 for panel in below)
        else:
            top = supxlabel.get_window_extent(renderer).y1 if supxlabel is not None else 0.0
        # inches the legends' row must grow by (shrink by, where negative) for the gap to the row below
        grow = (top - lowest) / dpi + _CALIBRATION_GAP
        ratios[2 * row + 1] = max(0.01, per_ratio * ratios[2 * row + 1] + grow)
    grid.set_height_ratios(ratios)
    needed = margins + sum(ratios)
    try:
        own_size((fig.get_figwidth(), needed), _fewer_procedures(len(axes), rows), sized=False)
    except OptionError:
        import matplotlib.pyplot as plt

        plt.close(fig)
        raise
    fig.set_figheight(needed)


def _refuse_wide_methods(fig: Any, axes: Sequence[Any], renderer: Any) -> None:
    """An OptionError, the figure closed, where a method listed under a panel of :func:`calibration_figure`'s own
    figure, broken at its spaces (:func:`_legend_inside`), still ends past the figure's right edge (with
    :data:`_HINTED` of its width to spare): a name without spaces longer than the panel is wide
    ("select_then_report_pooled_t" at width=2.2), which no break shortens; says the width that holds it (the
    panels' left edge stays where it is at a wider figure, their right edge moves with it)."""
    right = fig.bbox.x1
    past, widest = 0.0, None
    for panel in axes:
        for text in panel.get_legend().get_texts():
            box = text.get_window_extent(renderer)
            if box.x1 + _HINTED * box.width - right > past:
                past, widest = box.x1 + _HINTED * box.width - right, (panel.get_title(), text.get_text())
    if widest is None:
        return
    import matplotlib.pyplot as plt

    from .errors import OptionError

    plt.close(fig)
    width = _up(fig.get_figwidth() + past / fig.dpi)
    line = max(widest[1].splitlines(), key=len)
    raise OptionError(f"width={fig.get_figwidth():g} is too narrow for the methods of {widest[0]}: their line "
                      f"{line!r} breaks no further (lines of 8 characters or more, a name kept whole) and would end "
                      f"past the figure's edge; pass width={width:g} or more, or filter the table to other procedures")


def _legend_inside(panel: Any) -> int:
    """Break each method of ``panel``'s legend (drawn from the panel's left edge) at spaces until it ends inside the
    panel's right edge (:func:`_break_text`: a code without spaces, "select_then_report_pooled_t", stays whole);
    returns the legend's lines. Broken with :data:`_HINTED` of each line's width to spare, so that it ends inside at
    any resolution it is saved at."""
    renderer = panel.figure.canvas.get_renderer()
    right = panel.get_window_extent(renderer).x1
    texts = panel.get_legend().get_texts()
    for text in texts:
        def outside(text=text):
            box = text.get_window_extent(renderer)
            return max(0.0, box.x1 + _HINTED * box.width - right) / max(box.width, 1.0)

        _break_text(text, outside)
    return sum(text.get_text().count("\n") + 1 for text in texts)


