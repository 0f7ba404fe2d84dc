"""Session 39 (speedB): figures drawn with less work and the same pixels. An Axes turned off has no tick locations
for matplotlib to measure at each layout (``plotting.axes_off``); the search for a size that holds a refused figure
draws each size it tries once and stops its tick-label check at the first axis still crowded."""

import matplotlib.pyplot as plt

import rlstats
from rlstats import plotting


def test_an_axes_turned_off_has_no_ticks_unless_shared():
    fig, (left, right) = plt.subplots(1, 2, sharex=True)
    plain = fig.add_axes((0.4, 0.4, 0.2, 0.2))
    try:
        for ax in (left, plain):
            plotting.axes_off(ax)
        assert not left.axison and not plain.axison
        assert len(plain.get_xticks()) == 0 and len(plain.get_yticks()) == 0
        # the x axis is the right panel's too: its ticks stay
        assert len(left.get_yticks()) == 0 and list(left.get_xticks()) == list(right.get_xticks()) != []
    finally:
        plt.close(fig)


def test_the_simplex_and_the_critical_difference_diagram_measure_no_ticks():
    df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=3, effect=1.0, rng=0)
    simplex = rlstats.bayes(df, "score ~ agent | task", n_samples=200, rng=0).plot(kind="simplex")
    diagram = rlstats.compare(df, "score ~ agent | task/seed", rng=0).plot()
    try:
        for ax in (simplex, diagram):
            assert not ax.axison
            assert len(ax.get_xticks()) == 0 and len(ax.get_yticks()) == 0, ax.get_title()
    finally:
        plt.close("all")


def _crowded_pair():
    """Two panels of a 3 in wide figure, each with 12 names along x, 0.1 in apart: crowded even at 90 degrees."""
    fig, axes = plt.subplots(1, 2, figsize=(3, 1))
    for ax in axes:
        ax.set_xticks(range(12), [f"n{i}" for i in range(12)])
    return fig, axes


def test_the_tick_label_check_of_a_size_tried_stops_at_the_first_crowded_axis():
    fig, axes = _crowded_pair()
    try:
        crowded, _ = plotting._crowded_tick_labels(fig)
        assert [(ax, name) for ax, name, _ in crowded] == [(axes[0], "x"), (axes[1], "x")]
    finally:
        plt.close(fig)
    fig, axes = _crowded_pair()
    try:
        crowded, _ = plotting._crowded_tick_labels(fig, first=True)
        assert [(ax, name) for ax, name, _ in crowded] == [(axes[0], "x")]
        assert {label.get_rotation() for label in axes[1].get_xticklabels()} == {0.0}  # the second left unturned
    finally:
        plt.close(fig)


def test_a_size_tried_is_drawn_once_where_its_texts_were_not_broken(monkeypatch):
    fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.set_title("short")
    draws = []
    real = type(fig).draw_without_rendering
    monkeypatch.setattr(type(fig), "draw_without_rendering", lambda self: (draws.append(self), real(self))[1])
    try:
        caught = plotting._laid_out_at(fig, (4, 3))  # nothing to break: the figure stands as drawn
        assert caught == [] and len(draws) == 1
        assert plotting._drawn_as_is(fig, caught) is caught and len(draws) == 1
        ax.set_title("a title far too long for a figure of this width, which is broken at words to fit it " * 2)
        assert plotting._laid_out_at(fig, (4, 3)) is None and len(draws) == 2  # broken: drawn again when asked
        assert plotting._drawn_as_is(fig, None) == [] and len(draws) == 3
    finally:
        plt.close(fig)
