"""Audit s28 fig28: text drawn over text in the package's figures.

Found: on the docs site's calibration figure (a page wide, panels 1.74 in) the ``bootstrap.interval`` panel labelled
every count of runs measured (2 to 200, nine labels on a log axis) and "20" and "30" were 2 px, 0.2 em, apart at
100 dpi: they read "2030". The tick labels were fixed (a FixedLocator of every count), whatever the panel's width, and
the house check of crowded tick labels (``rlstats.plotting._drawn_over``) counted only boxes that overlap.

Fixed: ``_drawn_over`` also counts upright labels side by side closer than ``TICK_GAP`` (0.25 em) as drawn over each
other; ``rlstats.plotting.thin_numbers`` (the number thinning of ``Result.plot(figsize=)``, given a public home)
thins the calibration figure's labels once its panels are laid out, keeping an unlabelled tick at every count
(bootstrap.interval: 2, 5, 20, 50, 200 labelled). The check: ``test_contract.text_overlaps`` (renderer extents:
tick labels of an axis overlapping or under 0.25 em apart side by side, slanted ones closer than a font's height
across, a tick label inside an axis label or title), run by ``check_panels`` and the contract plot test on every
plot they already draw; -m slow sweeps every back end's plots at their own size and at paper sizes over hard data.
"""

import matplotlib
import matplotlib.figure
import matplotlib.pyplot as plt
import pytest

import rlstats
from rlstats.plotting import _drawn_over, thin_numbers
from test_contract import CASES, CURVE_METHODS, shown_ticks, text_overlaps


def test_the_check_finds_labels_too_close_and_labels_inside_labels():
    # made to fail: "20" and "30" at x = 0.5 and 0.5 + 0.012 of a 3 in Axes (0.036 in, 2.6 pt apart at centres; each
    # "20" at 7 pt is ~7.8 pt wide, so they overlap); a y label moved over the y tick labels
    fig, ax = plt.subplots(figsize=(3.0, 2.0))
    ax.set_xticks([0.5, 0.512], ["20", "30"], fontsize=7)
    ax.set_ylabel("coverage")
    ax.yaxis.set_label_coords(0.0, 0.5)  # on the spine: over the tick labels left of it
    problems = text_overlaps(fig)
    assert any("'20' and '30'" in p for p in problems) and any("inside 'coverage'" in p for p in problems)
    ax.set_xticks([0.2, 0.8], ["20", "30"])
    ax.yaxis.set_label_coords(-0.2, 0.5)
    assert text_overlaps(fig) == []
    plt.close(fig)


def test_labels_closer_than_a_quarter_em_are_drawn_over_each_other():
    # two 10 pt labels "20", "30" side by side; the gap between their boxes set in points (1 pt = 1 px at 72 dpi)
    fig = plt.figure(figsize=(3.0, 1.0), dpi=72)
    renderer = fig.canvas.get_renderer()
    for gap, crowded in ((1.5, True), (2.4, True), (2.6, False), (6.0, False)):
        a = fig.text(0.1, 0.5, "20", fontsize=10)
        width = a.get_window_extent(renderer).width
        b = fig.text(0.1 + (width + gap) / (3.0 * 72), 0.5, "30", fontsize=10)
        measured = b.get_window_extent(renderer).x0 - a.get_window_extent(renderer).x1
        assert measured == pytest.approx(gap, abs=0.05)
        assert bool(_drawn_over([a, b], renderer)) is crowded, gap  # TICK_GAP: 0.25 em = 2.5 pt at 10 pt
        a.remove(), b.remove()
    plt.close(fig)


def test_thin_numbers_keeps_every_other_label_where_they_crowd():
    fig, ax = plt.subplots(figsize=(1.2, 1.0))
    ax.set_xscale("log")
    ax.set_xlim(1.8, 220)
    runs = [2, 3, 5, 10, 20, 30, 50, 100, 200]
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(runs))
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    fig.draw_without_rendering()
    assert _drawn_over(shown_ticks(ax.xaxis), fig.canvas.get_renderer())  # 1.2 in cannot hold nine
    thin_numbers(ax.xaxis, lambda: (fig.draw_without_rendering(), fig.canvas.get_renderer())[1])
    kept = [t.get_text() for t in shown_ticks(ax.xaxis)]
    assert len(kept) >= 2 and set(kept) < {str(r) for r in runs} and text_overlaps(fig) == []
    plt.close(fig)


@pytest.mark.slow  # 8 agents: 10 s of AdaStop's runs
def test_decision_matrices_of_eight_agents_keep_their_names_apart():
    # at 1.65 in a panel, 8 slanted names 0.13 in apart (under a 7 pt line across) ran together: 0.17 in an agent
    df = rlstats.datasets.simulate(agents=8, tasks=2, seeds=5, effect=1.0, rng=0)
    fig = rlstats.compare(df, "score ~ agent | task", method="adastop", n=5, K=1, rng=1).plot(kind="decisions")
    try:
        assert text_overlaps(fig) == [] and all(a.get_position().width * 3.3 > 1.3 for a in fig.axes)
    finally:
        plt.close(fig)


@pytest.mark.slow
def test_mixed_contrasts_of_long_names_thin_their_numbers():
    # 22-letter names left 0.3 in of Axes for the contrasts: "-7.5", "-5.0", "-2.5", "0.0" ran together
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)
    df["agent"] = df["agent"].astype(str) + LONG
    formula, options = CASES["mixed"]
    ax = rlstats.compare(df, formula, method="mixed", rng=1, **options).plot(kind="contrasts")
    try:
        assert text_overlaps(ax.figure) == [] and len(shown_ticks(ax.xaxis)) >= 2
    finally:
        plt.close(ax.figure)


def test_calibration_panel_labels_the_runs_apart():
    # the docs figure's bootstrap.interval panel alone at its width there (2.2 in a column: 1.74 in of Axes)
    table = rlstats.calibration_table("bootstrap.interval")
    fig = rlstats.plotting.calibration_figure(table, width=2.2)
    try:
        (panel,) = fig.axes
        runs = sorted(set(rlstats.calibration.coverage_by_runs(table)["runs"]))
        ticks = panel.xaxis.get_majorticklocs().tolist() + panel.xaxis.get_minorticklocs().tolist()
        assert sorted(ticks) == runs  # a tick at every count measured (matplotlib drops minor ones under major)
        assert text_overlaps(fig) == []
        labelled = [int(t.get_text()) for t in shown_ticks(panel.xaxis)]
        assert labelled[0] == runs[0] and len(labelled) >= 3 and not {20, 30} <= set(labelled)
    finally:
        plt.close(fig)


# --------------------------------------------------------------------------- the full sweep (-m slow)

LONG = "AgentWithAVeryLongName"


def _hard_data(case, method):
    """Data that crowd text: 8 agents x 26 tasks, long agent names, scores of 1e6 and 1e-6, 60 steps of curves."""
    if method in CURVE_METHODS:
        df = rlstats.datasets.simulate_curves(agents=8 if case == "many" else 3, tasks=4, seeds=3,
                                              steps=60 if case == "many" else 5, effect=0.5, rng=0)
    else:
        # AdaStop's and the permutation test's per-task grids at 8 agents x 6 tasks: 26 tasks repeat the panel
        # (6 min a back end)
        tasks = (6 if method in ("adastop", "permutation") else 26) if case == "many" else 6
        df = rlstats.datasets.simulate(agents=8 if case == "many" else 3, tasks=tasks, seeds=4, effect=1.0, rng=0)
    if case == "long":
        df["agent"] = df["agent"].astype(str) + LONG
    elif case in ("large", "tiny"):
        df["score"] = df["score"] * (1e6 if case == "large" else 1e-6)
    return df


def _overlaps_of(drawn):
    figure = drawn if isinstance(drawn, matplotlib.figure.Figure) else drawn.figure
    try:
        return text_overlaps(figure)
    finally:
        plt.close(figure)


#: found by this sweep and not fixed yet (audit s28 fig28): 22-letter agent names, slanted, squash AdaStop's and the
#: permutation test's per-task score panels and the task table's heat map to slivers 0.15-0.3 in high, whose
#: numbers or task names then run together (the layout holds, so hold_labels does not grow the figure); at scores of
#: 1e-6 the same score panels' slanted agent names reach the titles of the panels below, and the Bayesian posterior's
#: nine x labels ("-0.20" ... "0.20", a ROPE of 0.2 over differences of 1e-6) are under 0.25 em apart at 3.3 in
#: at 8 agents x 6 tasks AdaStop's and the permutation test's boundaries grid (own size) has y labels ("0", "25")
#: of squashed panels run together
KNOWN = {("adastop", "long"), ("permutation", "long"), ("task_table", "long"), ("adastop", "tiny"),
         ("permutation", "tiny"), ("bayes", "tiny"), ("adastop", "many"), ("permutation", "many")}


@pytest.mark.slow
@pytest.mark.parametrize("case", ["many", "long", "large", "tiny"])
@pytest.mark.parametrize("method", sorted(CASES))
def test_no_text_over_text_at_own_and_paper_sizes(method, case, request):
    if (method, case) in KNOWN:
        request.applymarker(pytest.mark.xfail(strict=True, reason="found by this sweep, not fixed: see KNOWN"))
    formula, options = CASES[method]
    df = _hard_data(case, method)
    try:
        result = rlstats.compare(df, formula, method=method, rng=1, **options)
    except rlstats.RlstatsError as error:
        pytest.skip(f"not computable on this data: {error}")
    problems = {}
    for kind in type(result)._plot_kinds:
        for figsize in (None, (3.3, 2.5), (7.0, 3.0)):
            try:
                drawn = result.plot(kind=kind, figsize=figsize)
            except rlstats.OptionError:  # a kind the run cannot draw, or a size refused by name: said, not drawn
                continue
            problems[(kind, figsize)] = _overlaps_of(drawn)
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}


@pytest.mark.slow
def test_power_plots_and_calibration_figure_keep_text_apart():
    result = rlstats.power(["skillings_mack", "adastop"], effect=0.7, seeds=[2, 4, 6, 10, 20, 30, 50], tasks=3,
                           n_sim=20, rng=1, adastop={"K": 2}, progress=False)
    problems = {}
    for kind in type(result)._plot_kinds:
        for figsize in (None, (3.3, 2.5), (7.0, 3.0)):
            problems[(kind, figsize)] = _overlaps_of(result.plot(kind=kind, figsize=figsize))
    for width in (None, 3.3, 7.0):
        problems[("calibration", width)] = _overlaps_of(rlstats.plotting.calibration_figure(width=width))
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}
