"""Audit s35 (plots35): figure defects a new-user trial found on real data (atari100k, dopamine_atari).

1. the selection check's per-task effects drawn into a one-column Axes (3.4 in): its 26 task names stacked over each
   other (and its x label and title cut at the figure's edges);
2. the bootstrap's interval plot: the eighth agent's bar (PALETTE's black, SPR on atari100k) hid the black tick of its
   point estimate;
3. the curves plot with compare=: the steps where the comparisons found a difference were printed, never drawn;
4. res.plot() returns the Axes: its docstring said so but not how to save the figure (ax.figure.savefig).
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

import rlstats  # noqa: E402
from rlstats.plotting import PALETTE, draw_quietly, _drawn_over, _shown_tick_labels  # noqa: E402


def _luminance(rgb):
    """WCAG relative luminance of an sRGB colour (0..1 channels)."""
    rgb = np.asarray(rgb, dtype=float)[:3]
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ [0.2126, 0.7152, 0.0722])


def _contrast(a, b):
    """WCAG contrast ratio of two opaque colours: 1 (same) to 21 (black on white)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _over(color, background):
    """An RGBA colour as drawn over an opaque background."""
    rgba = np.asarray(to_rgba(color))
    return rgba[:3] * rgba[3] + np.asarray(to_rgba(background))[:3] * (1 - rgba[3])


@pytest.fixture(scope="module")
def twelve_agents():
    """12 agents (PALETTE's 12 colours, the eighth black) on 3 tasks, intervals wide enough to hold each tick."""
    df = rlstats.datasets.simulate(agents=12, tasks=3, seeds=5, rng=0)
    return rlstats.bootstrap(df, "score ~ agent | task/seed", metrics=["mean"], n_resamples=200, rng=0,
                             progress=False, task_bootstrap=False)


def test_estimate_tick_contrasts_with_every_bar(twelve_agents):
    """Each estimate's tick is at least 3:1 (WCAG's least contrast for graphics) against the bar it is drawn on, as
    the bar is drawn (its alpha over the Axes' face): the black tick on the eighth agent's black bar was 2.0:1."""
    ax = twelve_agents.plot()
    try:
        bars = [patch for patch in ax.patches]
        ticks = ax.collections[-1]
        colours = ticks.get_colors()
        colours = np.repeat(colours, len(bars), axis=0) if len(colours) == 1 else colours
        face = ax.get_facecolor()
        ratios = [_contrast(colours[i][:3], _over(bar.get_facecolor(), face)) for i, bar in enumerate(bars)]
        assert len(bars) == 12
        assert {to_rgba(c)[:3] for c in PALETTE} == {tuple(bar.get_facecolor()[:3]) for bar in bars}
        assert min(ratios) >= 3.0, np.round(ratios, 2)
    finally:
        plt.close("all")


def test_improvement_tick_contrasts_with_a_black_bar():
    """The probability of improvement's bars in a colour the caller gives (black): its tick still shows."""
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, rng=1)
    res = rlstats.probability_of_improvement(df, "score ~ agent | task/seed", rng=0, progress=False)
    ax = res.plot(color="black")
    try:
        bar, ticks = ax.patches[0], ax.collections[-1]
        assert _contrast(ticks.get_colors()[0][:3], _over(bar.get_facecolor(), ax.get_facecolor())) >= 3.0
    finally:
        plt.close("all")


@pytest.fixture(scope="module")
def checked_26():
    """A selection check on 26 tasks (Atari 100k's count), 8 reported."""
    df = rlstats.datasets.simulate(agents=["new", "old"], tasks=[f"Game{i:02d}Long" for i in range(26)], seeds=3,
                                   effect=[0.3, 0.0], rng=2)
    return rlstats.selection_check(df, "score ~ agent | task/seed", treatment="new", baseline="old",
                                   reported=[f"Game{i:02d}Long" for i in range(8)], n_resamples=999, rng=0,
                                   progress=False)


def test_selection_effects_in_a_column_axes(checked_26):
    """Drawn into the caller's one-column Axes (3.4 x 2.6 in), the task names shown are apart (the rule of every
    figure's tick labels, _drawn_over), every task's point is drawn, and the x label lies inside the figure."""
    fig, ax = plt.subplots(figsize=(3.4, 2.6), layout="constrained")
    try:
        checked_26.plot(ax=ax)
        renderer = draw_quietly(fig)
        shown = _shown_tick_labels(ax.yaxis)
        assert not _drawn_over(shown, renderer)
        assert 2 <= len(shown) < 26
        assert sum(len(c.get_offsets()) for c in ax.collections if c.get_offsets().size) == 26
        box = ax.xaxis.label.get_window_extent(renderer)
        assert box.x0 >= 0 and box.x1 <= fig.bbox.width
    finally:
        plt.close("all")


@pytest.mark.slow
def test_selection_effects_refused_at_a_short_figsize(checked_26):
    """plot(figsize=) of one column too short for 26 names is refused with a size that holds them (the one rule of
    figsize=, unchanged: 2.7 s, its size search)."""
    with pytest.raises(rlstats.errors.OptionError, match=r"26 tick labels of the y axis.*about \(3\.4, ([0-9.]+)\)"):
        checked_26.plot(figsize=(3.4, 2.6))


@pytest.mark.slow
def test_selection_effects_size_named_holds_them(checked_26):
    """The size the refusal names draws the 26 names apart (5 s: the refusal's search, then the figure)."""
    import re

    with pytest.raises(rlstats.errors.OptionError) as caught:
        checked_26.plot(figsize=(3.4, 2.6))

    height = float(re.search(r"about \(3\.4, ([0-9.]+)\)", str(caught.value)).group(1))
    ax = checked_26.plot(figsize=(3.4, height))
    try:
        assert not _drawn_over(_shown_tick_labels(ax.yaxis), draw_quietly(ax.figure))
        assert len(_shown_tick_labels(ax.yaxis)) == 26
    finally:
        plt.close("all")


@pytest.fixture(scope="module")
def compared_curves():
    """Three agents' curves, one far ahead of the others: comparisons that differ at some steps."""
    df = rlstats.datasets.simulate_curves(agents=["A", "B", "C"], tasks=4, seeds=5, steps=12, effect=[0.6, 0.0, 0.05],
                                          rng=3)
    return rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic="mean",
                          compare=[("A", "B"), ("B", "C")], n_resamples=200, rng=0, progress=False)


def test_curves_mark_the_compared_steps(compared_curves):
    """Each comparison's steps with a difference are marked under the curves, one mark per direction found, labelled
    as the print says it ("A above B"), covering exactly the steps the max-T test found (and no other)."""
    res = compared_curves
    ax = res.plot()
    try:
        marks = {c.get_label(): c for c in ax.collections if " above " in str(c.get_label())}
        expected = {}
        for i, (a, b) in enumerate(res.pairs):
            differs = res.difference_pvalues[i] <= res.alpha
            for name, flags in ((f"{a} above {b}", differs & (res.differences[i] > 0)),
                                (f"{b} above {a}", differs & (res.differences[i] < 0))):
                if flags.any():
                    expected[name] = set(res.steps[flags].tolist())
        assert expected and set(marks) == set(expected)
        for name, collection in marks.items():
            covered = set()
            for segment in collection.get_segments():
                low, high = sorted(segment[:, 0])
                covered |= {s for s in res.steps.tolist() if low <= s <= high}
            assert covered == expected[name], name
        legend = {t.get_text() for t in ax.get_legend().get_texts()}
        assert set(expected) <= legend
    finally:
        plt.close("all")


def test_plot_docstring_says_how_to_save():
    """Result.plot's docstring says what it returns and how to save it (an Axes has no savefig)."""
    doc = rlstats.results.Result.plot.__doc__
    assert "ax.figure.savefig" in doc and "fig.savefig" in doc
