"""Audit s24 (html24): how results look in a notebook and in a paper: HTML, LaTeX and figures at paper sizes."""

import re

import matplotlib.pyplot as plt
import pytest

import rlstats
from rlstats import format as fmt


LONG = "a very long agent name with several words (v2)"


def _atari(published, agents=("DrQ(eps)", "DER", "SPR")):
    """Atari 100k's human-normalised scores, 3 runs of each agent on each of the 26 games; DrQ(eps) and DER renamed
    with characters HTML and LaTeX give a meaning to."""
    df = rlstats.tables.read_csv(published / "atari100k.csv")
    ref = rlstats.tables.read_csv(published / "atari100k_reference.csv")
    df = df[(df["seed"] < 3) & df["agent"].isin(agents)].merge(ref, on="task")
    df["hns"] = (df["score"] - df["random"]) / (df["human"] - df["random"])
    df["agent"] = df["agent"].replace({"DrQ(eps)": "<b>A&B</b>", "DER": "DER_v2 #1 $5"})
    df["task"] = df["task"].replace({"Pong": "x_y%"})
    return df


# ---- LaTeX: a negative number's sign is a minus, not a hyphen --------------------------------------------------

def test_latex_negative_numbers_are_minus_signs(published):
    # Atari 100k, 3 runs: DrQ(eps) ("<b>A&B</b>") against DER ("DER_v2 #1 $5") has a negative mean-rank difference;
    # LaTeX set "-0.37607" with a hyphen, a third of a minus sign's width (every numeric column ragged)
    res = rlstats.skillings_mack(_atari(published), "hns ~ agent | task")
    tex = res.to_latex()
    rows = [line for line in tex.split("\n") if line.endswith("\\\\")]
    assert not [r for r in rows if re.search(r"(^|[\s&(\[])-\d", r)]
    row = [r for r in rows if r.startswith("$<$b$>$A\\&B$<$/b$>$ & DER\\_v2 \\#1 \\$5 & ")][0]
    assert row.split(" & ")[2:4] == ["$-$0.37607", "$-$2.5727"]
    # a hyphen inside a word, between digits or in a name stays one; an exponent's sign is a minus
    assert fmt.latex_escape("-0.37 in [-1, 2e-05], p-value of Pong-v5 on 2024-01-05 (x = -.5)") == (
        "$-$0.37 in [$-$1, 2e$-$05], p-value of Pong-v5 on 2024-01-05 (x = $-$.5)")
    assert fmt.latex_escape("agent_1 - agent_2") == "agent\\_1 - agent\\_2"
    # the width guess counts the minus as wide as a plus (cmr10: 7.78 pt against the hyphen's 3.33)
    assert fmt.text_width("-0.5") - fmt.text_width("0.5") == pytest.approx(fmt.text_width("+"))


# ---- curves: the legend above the Axes in as many columns as fit --------------------------------------------------

def _legend_rows(legend):
    """The rows a drawn legend sets its labels in (their centres, told apart by more than 4 pixels)."""
    centres = sorted((box.y0 + box.y1) / 2 for box in (text.get_window_extent() for text in legend.get_texts()))
    return 1 + sum(b - a > 4 for a, b in zip(centres, centres[1:]))


@pytest.mark.slow
def test_curves_legend_columns_fit_long_names():
    # 8 agents, one named with 46 characters: the legend above the curves was one column of 8 rows, 54% of a
    # 6.8 x 3 in figure's height (the columns were counted at the plot's own 4.5 in, each as wide as the longest name)
    curves = rlstats.datasets.simulate_curves(agents=8, tasks=2, seeds=2, steps=4, effect=0.5, rng=0)
    curves["agent"] = curves["agent"].astype(str).replace({"agent_2": LONG})
    res = rlstats.curves(curves, "score ~ agent | task/seed", step="step", n_resamples=20, rng=1, normalize=False)
    ax = res.plot(figsize=(6.8, 3))
    fig = ax.figure
    fig.canvas.draw()
    legend = ax.get_legend()
    share = legend.get_window_extent().height / fig.bbox.height
    rows = _legend_rows(legend)
    plt.close(fig)
    assert rows == 3 and share < 0.3, (rows, share)  # 3 columns: the long name's, and two of short names


def test_legend_columns_each_as_wide_as_its_own_labels():
    # the rule: each column as wide as its own longest label, the labels filling the columns in order as matplotlib
    # fills them: at 8 pt an entry is 3.3 em (26.4 pt) and a character 4.8 pt, so the long name's column is 247.2 pt
    # and a one-letter one's 31.2 pt: 2 columns need 278.4 pt (3.87 in), 3 need 309.6 (4.3 in), 4 need 340.8
    # (4.73 in); each as wide as the longest name, 2 needed 494.4 pt (6.87 in) and 4 needed 13.7 in
    options = {"fontsize": 8, "handlelength": 1.5, "columnspacing": 1.0}
    names = ["a", LONG, "b", "c", "d", "e", "f", "g"]
    assert [rlstats.plotting.legend_columns(names, w, options) for w in (3.8, 3.9, 4.3, 4.74, 9.0)] == [1, 2, 3, 4, 4]
    assert rlstats.plotting.legend_columns(names, 6.4, options, most=8) == 7  # 7: 434.4 pt; 8: 465.6 pt (6.47 in)
    # the curves' legend counts them at the width plot(figsize=) shows the figure at, not the plot's own 4.5 in
    from rlstats.methods.curves.plots import _legend_above
    from rlstats.plotting import ASKED_SIZE

    fig, ax = plt.subplots(figsize=(4.5, 3), layout="constrained")
    for name in names:
        ax.plot([0, 1], [0, 1], label=name)
    token = ASKED_SIZE.set((6.8, 3.0))
    try:
        legend = _legend_above(ax)
    finally:
        ASKED_SIZE.reset(token)
    fig.set_size_inches(6.8, 3.0)
    fig.canvas.draw()
    rows = _legend_rows(legend)
    plt.close(fig)
    assert rows == 2  # 4 columns (the rule's most) at 6.8 in; at 4.5 in and the longest name's width: 1, 8 rows


# ---- plot(figsize=): a refusal's suggested size holds the labels it names ----------------------------------------

def _crowded_axis(figsize):
    """A new figure whose x axis shows two tick labels 0.0006 apart on an axis 0.02 long (at 2 in: 4 px apart)."""
    from matplotlib.ticker import FixedLocator, FormatStrFormatter

    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    ax.plot([-0.01, 0.01], [0, 1])
    ax.set_xlim(-0.01, 0.01)
    ax.xaxis.set_major_locator(FixedLocator([0.0, 0.0006]))
    ax.xaxis.set_major_formatter(FormatStrFormatter("%.4f"))
    return ax


def test_a_too_small_figsize_is_told_a_larger_one():
    # Atari 100k's percentiles(kind="cdf") at (7.5, 3.5): PrivateEye's panel kept ticks 0 and 0.0006 32 px apart on
    # an 85 px axis, labels 33 px wide; "about (7.5, 3.5) holds them" named the size asked (the labels' widths summed
    # were less than the axis' length), and so again at that size. Now (8.84, 3.5). Here one axis alike.
    from rlstats.errors import OptionError
    from rlstats.plotting import resized

    with pytest.raises(OptionError, match="too small for the 2 tick labels of the x axis") as refused:
        resized(_crowded_axis((2.0, 1.5)), (2.0, 1.5))
    plt.close("all")
    width, height = map(float, re.search(r"about \(([\d.]+), ([\d.]+)\) holds them", str(refused.value)).groups())
    assert width > 4.0 and height == 1.5
    # and the size told holds them
    ax = resized(_crowded_axis((2.0, 1.5)), (width, height))
    assert ax.figure.get_size_inches().tolist() == [width, height]
    plt.close("all")


# ---- HTML: the method heads the test block where the print puts it, at the left -----------------------------------

def test_the_method_caption_is_at_the_left(published):
    # Atari 100k, DrQ(eps) against DER: the block's longest line (the per-task count) is 224 characters of
    # monospace; the centred caption began past 1000 px, beyond a notebook's view
    res = rlstats.equivalence(_atari(published, ("DrQ(eps)", "DER")), "hns ~ agent | task", margin=0.1,
                              normalize=False, n_resamples=200, rng=1)
    shown = res._repr_html_()
    assert shown.startswith('<table><caption style="text-align:left">Two one-sided tests (TOST) of equivalence'
                            '</caption>')


# ---- equivalence's figure: one pair is named once, in the title -------------------------------------------------

def test_equivalence_figure_names_one_pair_once(published):
    # with one pair, every one of the 27 rows repeated it ('<b>A&B</b> - DER_v2 #1 $5: Alien'), half the figure's
    # width: figsize=(3.3, 2.5) was refused with no size that would do, now (3.3, 4.61) is told
    res = rlstats.equivalence(_atari(published, ("DrQ(eps)", "DER")), "hns ~ agent | task", margin=0.1,
                              normalize=False, n_resamples=200, rng=1)
    # every scope asked: the default draws the across-tasks and aggregate rows only since audit s31 equivplot31
    ax = res.plot(scopes=("task", "across tasks", "aggregate"))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    title = ax.get_title()
    plt.close(ax.figure)
    assert labels[0] == "Alien" and labels[-2:] == ["across tasks", "aggregate (IQM)"] and len(labels) == 27
    assert title == "Two one-sided tests (TOST) of equivalence\n<b>A&B</b> - DER_v2 #1 $5"
