"""Audit, session 12: tick labels of ``res.plot(figsize=...)`` drawn over each other at a paper's sizes, and the
selection check's two intervals of one mean.

Figures: ``Result.plot(figsize=...)`` checked that panels stay apart (``plotting._check_room``) but not that the
tick labels of one axis do. With realistic names (agents such as "PPO-clip-0.2", the 26 Atari 100k games, 8 agents)
at figsize=(3.4, 2.6) and (7, 4), the selection check's effects (26 games), the mixed model's contrasts (28 pairs),
the probability of improvement's pairs, the bootstrap's intervals (8 agents), the task table and the percentile
weights (26 games), tuning's best set and complete views, equivalence's intervals and AdaStop's decision matrices
drew names over names, and at (3.4, 2.6) the probability of improvement two numbers over each other. Overlap is
measured here from the drawn text boxes (``get_window_extent``), apart from the package's own check.
"""

import itertools
import math
import re

import matplotlib
import matplotlib.figure
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.tables import read_csv

AGENTS = ["CURL-contrastive", "DER-Rainbow-n20", "DrQ", "DrQ(eps)", "OTRainbow", "PPO-clip-0.2", "PlayVirtual",
          "SPR-aug-0.2"]
GAMES = ["Alien", "Amidar", "Assault", "Asterix", "BankHeist", "BattleZone", "Boxing", "Breakout", "ChopperCommand",
         "CrazyClimber", "DemonAttack", "Freeway", "Frostbite", "Gopher", "Hero", "Jamesbond", "Kangaroo", "Krull",
         "KungFuMaster", "MsPacman", "Pong", "PrivateEye", "Qbert", "RoadRunner", "Seaquest", "UpNDown"]
SIZES = [(3.4, 2.6), (7.0, 4.0)]


def _figure(drawn):
    return drawn if isinstance(drawn, matplotlib.figure.Figure) else drawn.figure


def _drawn_labels(axis):
    """The tick labels matplotlib draws: visible, not blank, at a tick inside the view."""
    low, high = sorted(axis.get_view_interval())
    eps = (high - low) * 1e-9
    return [label for tick, where in zip(axis.get_major_ticks(), axis.get_majorticklocs())
            if low - eps <= where <= high + eps for label in (tick.label1, tick.label2)
            if label.get_visible() and label.get_text().strip()]


def overlapping_tick_labels(figure):
    """Every pair of one axis' tick labels drawn over each other: upright (or turned 90 degrees) labels whose window
    boxes overlap; slanted labels (whose boxes overlap though the words need not) whose lines are closer across
    than one font size."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    pairs = []
    for axes in figure.axes:
        for name, axis in (("x", axes.xaxis), ("y", axes.yaxis)):
            boxes = [(label, label.get_window_extent(renderer)) for label in _drawn_labels(axis)]
            for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
                theta = math.radians(a.get_rotation() % 180)
                if min(theta, abs(theta - math.pi / 2), abs(theta - math.pi)) < 1e-3:
                    hit = box_a.overlaps(box_b)
                else:
                    step = abs(box_a.x1 - box_b.x1) if name == "x" else abs(box_a.y1 - box_b.y1)
                    across = step * abs(math.sin(theta) if name == "x" else math.cos(theta))
                    hit = across < a.get_fontsize() * figure.dpi / 72
                if hit:
                    pairs.append((name, a.get_text(), b.get_text()))
    return pairs


def _suggested(error):
    """The (width, height) an OptionError of too-small tick labels says would hold them."""
    found = re.search(r"about \(([\d.]+), ([\d.]+)\) holds them", str(error))
    assert found, str(error)
    return float(found[1]), float(found[2])


@pytest.mark.slow  # 2-5 s: 26 rows drawn three times
def test_selection_effects_of_26_games_refused_at_a_column_with_a_size_that_holds_them():
    """The selection check's effects, one row per game: at figsize=(3.4, 2.6) the 26 game names were drawn over each
    other (49 overlapping pairs, e.g. 'CrazyClimber' over 'DemonAttack'); now an OptionError naming the axis and a
    size, at which they are apart."""
    df = rlstats.datasets.simulate(agents=AGENTS[:2], tasks=GAMES, seeds=3, effect=0.5, rng=0)
    res = rlstats.selection_check(df, "score ~ agent | task", treatment=AGENTS[1], baseline=AGENTS[0],
                                  reported=GAMES[:8], n_resamples=99, rng=1, progress=False)
    with pytest.raises(rlstats.OptionError, match=r"figsize=\(3.4, 2.6\) is too small for the 26 tick labels of the "
                                                  r"y axis .*pass a larger figsize=.*or plot fewer rows") as caught:
        res.plot(figsize=(3.4, 2.6))
    width, height = _suggested(caught.value)
    assert width == 3.4 and 3.4 < height < 8
    figure = _figure(res.plot(figsize=(width, height)))
    assert overlapping_tick_labels(figure) == []
    plt.close(figure)


def test_numbers_on_a_crowded_axis_refused_when_two_labels_already_overlap():
    """The probability of improvement of 2 agents with long names at figsize=(3.4, 2.6): the names leave the x axis
    0.35 in, and its two labels '0.25' and '0.50' were drawn over each other; two labels cannot be thinned, so an
    OptionError with a wider size, at which they are apart."""
    df = rlstats.datasets.simulate(agents=AGENTS[:2], tasks=GAMES[:6], seeds=4, effect=0.5, rng=0)
    res = rlstats.compare(df, "score ~ agent | task", method="probability_of_improvement", n_resamples=50, rng=1)
    with pytest.raises(rlstats.OptionError, match=r"2 tick labels of the x axis \('0.25', '0.50'\)") as caught:
        res.plot(figsize=(3.4, 2.6))
    assert "fewer" not in str(caught.value)  # numbers are not rows or columns to drop
    width, height = _suggested(caught.value)
    assert 3.4 < width < 5 and height == 2.6
    figure = _figure(res.plot(figsize=(width, height)))
    assert overlapping_tick_labels(figure) == []
    plt.close(figure)


def _names_figure(names, figsize=(6.4, 4.8)):
    from rlstats.plotting import axes_or_new

    ax = axes_or_new(None, figsize)
    ax.bar(range(len(names)), np.arange(1, len(names) + 1) / len(names))
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(np.linspace(0, 1, 41))  # 41 numbers: crowded at a small size
    return ax


def test_resized_turns_names_and_thins_numbers_without_dropping_a_name():
    """A figure of 8 long agent names along x and 41 numbers along y, resized to one column: names were drawn over
    each other (upright, 7 pairs) and numbers too; now the names are turned (all 8 kept, in order) and the numbers
    thinned to every k-th tick in view (the view unchanged), none over another."""
    from rlstats.plotting import resized

    ax = _names_figure(AGENTS)
    limits = ax.get_xlim(), ax.get_ylim()
    resized(ax, (3.4, 2.6))
    assert overlapping_tick_labels(ax.figure) == []
    assert [label.get_text() for label in _drawn_labels(ax.xaxis)] == AGENTS
    assert ax.xaxis.get_ticklabels()[0].get_rotation() in (45.0, 90.0)
    numbers = [float(label.get_text().replace("\u2212", "-")) for label in _drawn_labels(ax.yaxis)]
    step = np.diff(numbers)
    assert len(numbers) >= 2 and np.allclose(step, step[0]) and step[0] > 0.025 * 1.5
    assert (ax.get_xlim(), ax.get_ylim()) == limits
    plt.close(ax.figure)


@pytest.mark.slow  # 1.5 s
def test_resized_refuses_names_it_cannot_separate_and_closes_the_figure():
    """26 game names along x at figsize=(1.5, 2): even turned upright they overlap; an OptionError naming the x axis,
    'fewer columns' and a wider size, the figure closed (no half-drawn figure left for plt.show)."""
    from rlstats.plotting import resized

    ax = _names_figure(GAMES)
    ax.set_yticks([0, 1])
    with pytest.raises(rlstats.OptionError, match=r"26 tick labels of the x axis \('Alien', 'Amidar', 'Assault' and "
                                                  r"23 more\).*or plot fewer columns") as caught:
        resized(ax, (1.5, 2.0))
    assert not plt.fignum_exists(ax.figure.number)
    width, height = _suggested(caught.value)
    assert width > 1.5 and height == 2.0


def _atari_frame(df, ref, agents=8, runs=5):
    """8 Atari 100k agents (renamed to longer names as papers print them) x 26 games x ``runs`` runs, human
    normalised (``ref``: the reference scores by task)."""
    names = dict(zip(["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "IRIS", "PlayVirtual", "SPR"], AGENTS))
    df = df[df["agent"].isin(list(names)[:agents]) & (df["seed"] < runs)]
    random, human = df["task"].map(ref["random"]), df["task"].map(ref["human"])
    score = (df["score"] - random) / (human - random)
    return df.assign(score=score, agent=df["agent"].map(names))


@pytest.mark.slow
@pytest.mark.parametrize("method", ["bootstrap", "curves", "equivalence", "mixed", "percentiles", "permutation",
                                    "performance_profile", "probability_of_improvement", "selection", "skillings_mack",
                                    "task_table", "tuning", "adastop", "bayes"])
def test_every_figure_kind_keeps_tick_labels_apart_or_refuses(method, atari, published):
    """Every plot kind of every back end on 8 Atari 100k agents x 26 games (4 x 6 for the per-task and per-pair
    panel figures, which refuse 26 panels; 4 x 26 for equivalence's rows of pairs and games) at (3.4, 2.6) and
    (7, 4): drawn with no two tick labels over each other, or an OptionError; a refusal for tick labels names a size
    at which they are apart."""
    from test_contract import CASES, CURVE_METHODS

    formula, options = CASES[method]
    options = dict(options)
    df = _atari_frame(atari, read_csv(published / "atari100k_reference.csv").set_index("task"))
    if method in ("adastop", "bayes", "permutation"):
        df = df[df["agent"].isin(AGENTS[:4]) & df["task"].isin(GAMES[:6])]
    if method == "equivalence":  # 6 pairs x 26 games, 156 rows: 28 pairs' 728 rows take minutes to measure
        df = df[df["agent"].isin(AGENTS[:4])]
    if method in CURVE_METHODS:
        df = rlstats.datasets.simulate_curves(agents=8, tasks=26, seeds=3, steps=5, effect=0.5, rng=0)
        df = df.assign(agent=df["agent"].map(dict(zip(sorted(df["agent"].unique()), AGENTS))),
                       task=df["task"].map(dict(zip(sorted(df["task"].unique()), GAMES))))
    if method == "selection":
        options.update(treatment=AGENTS[-1], baseline=AGENTS[2], reported=GAMES[:8])
    if method == "adastop":
        options.update(n=5)
    res = rlstats.compare(df, formula, method=method, rng=1, **options)
    drawn_or_refused = 0
    for kind in type(res)._plot_kinds:
        for size in SIZES:
            try:
                figure = _figure(res.plot(kind=kind, figsize=size))
            except rlstats.OptionError as error:
                drawn_or_refused += 1
                if "tick label" in str(error):
                    figure = _figure(res.plot(kind=kind, figsize=_suggested(error)))
                    assert overlapping_tick_labels(figure) == [], (kind, size, str(error))
                    plt.close(figure)
                continue
            drawn_or_refused += 1
            assert overlapping_tick_labels(figure) == [], (kind, size)
            plt.close(figure)
    assert drawn_or_refused == 2 * len(type(res)._plot_kinds)


# ---------------------------------------------------------------- the selection check's intervals of one mean


def _skewed_selection_frame():
    """2 agents x 10 tasks x 5 runs, the treatment's runs skewed towards losses (rare failures) on every task."""
    rng = np.random.default_rng(4)
    rows = []
    for t in range(10):
        for s in range(5):
            loss = -6.0 if rng.random() < 0.15 else 0.0
            rows += [("new", GAMES[t], s, 1.0 + rng.normal(0, 0.5) + loss), ("old", GAMES[t], s, rng.normal(0, 0.5))]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_the_reported_mean_has_one_interval_the_reporters_and_each_is_labelled():
    """The reported mean's 95% interval was printed twice, differently: the "Tests" table gave the skew-corrected
    interval of the default reporter (on Atari 100k SPR vs DrQ(eps), 8 reported games: -1210.7 to 3079.9), the "Mean
    effect by set" table the plain t's (-1181.9 to 3079.9), neither saying which. Now both give the reporter's
    interval, checked against Hall's (1992) correction by hand (scipy's k-statistics of the runs, the cubic solved
    numerically), and the table names each set's interval; the held-out set keeps Student's t."""
    from scipy import optimize, stats

    df = _skewed_selection_frame()
    reported = GAMES[:5]
    res = rlstats.selection_check(df, "score ~ agent | task", treatment="new", baseline="old", reported=reported,
                                  n_resamples=99, rng=0)
    by_set = res.group_summary.set_index("set")
    tests = res.tidy().set_index("term")
    # by hand: the effects, their skewness from the runs' k-statistics, Hall's lower end, Student's t upper end
    runs = {agent: np.array([df[(df.agent == agent) & (df.task == game)].score.to_numpy() for game in reported])
            for agent in ("new", "old")}
    v = runs["new"].mean(axis=1) - runs["old"].mean(axis=1)
    k2 = (stats.kstat(runs["new"], 2, axis=1) + stats.kstat(runs["old"], 2, axis=1)) / 5
    k3 = (stats.kstat(runs["new"], 3, axis=1) - stats.kstat(runs["old"], 3, axis=1)) / 25
    gamma, n, sd = k3.mean() / k2.mean() ** 1.5, v.size, v.std(ddof=1)
    assert gamma < -0.5  # skewed towards losses: the correction moves the lower end
    q = stats.t.ppf(0.95, n - 1)  # one-sided as the reporter's test (session 15: 0.975, two-sided)
    def hall(s):  # Hall's (1992) transformation of a studentised mean
        return np.sqrt(n) * (s + gamma * s ** 2 / 3 + gamma ** 2 * s ** 3 / 27 + gamma / (6 * n))

    s = optimize.brentq(lambda s: hall(s) - q, 0.0, 50.0)
    low, high = v.mean() - sd * max(s, q / np.sqrt(n)), np.inf
    assert low < v.mean() - q * sd / np.sqrt(n) - 0.01  # apart from the t's lower end
    assert tests.loc["reporter", ["conf_low", "conf_high"]].tolist() == pytest.approx([low, high], rel=1e-9)
    assert by_set.loc["reported", ["conf_low", "conf_high"]].tolist() == pytest.approx([low, high], rel=1e-9)
    assert by_set.loc["reported", "std_error"] == pytest.approx(sd / np.sqrt(n), rel=1e-12)
    heldout = res.effects.loc[res.effects["set"] == "heldout", "effect"].to_numpy()
    half = stats.t.ppf(0.975, heldout.size - 1) * heldout.std(ddof=1) / np.sqrt(heldout.size)
    assert by_set.loc["heldout", ["conf_low", "conf_high"]].tolist() == pytest.approx(
        [heldout.mean() - half, heldout.mean() + half], rel=1e-9)
    assert by_set["interval"].tolist() == ["t, skewness-corrected (from the runs)", "t"]
    printed = str(res.summary())
    assert "t, skewness-corrected (from the runs)" in printed.split("Mean effect by set")[1].split("Tests")[0]
    # the paper's reporter: both tables give the t interval, named so
    plain = rlstats.selection_check(df, "score ~ agent | task", treatment="new", baseline="old", reported=reported,
                                    reporter="t", n_resamples=99, rng=0)
    t_row = plain.group_summary.set_index("set").loc["reported"]
    assert t_row["interval"] == "t" and t_row["conf_low"] == pytest.approx(v.mean() - q * sd / np.sqrt(n), rel=1e-9)
    assert plain.tidy().set_index("term").loc["reporter", "conf_low"] == t_row["conf_low"]
    # the known-sd reporter: its normal interval and standard error in both tables; the signed-rank reporter gives
    # no interval, so the table keeps the t's, named so
    z = rlstats.selection_check(df, "score ~ agent | task", treatment="new", baseline="old", reported=reported,
                                reporter="z", sigma=1.0, n_resamples=99, rng=0)
    z_row = z.group_summary.set_index("set").loc["reported"]
    z_half = stats.norm.ppf(0.95) / np.sqrt(n)
    assert z_row[["std_error", "conf_low", "conf_high"]].tolist() == pytest.approx(
        [1 / np.sqrt(n), v.mean() - z_half, np.inf], rel=1e-12)
    assert z.tidy().set_index("term").loc["reporter", ["conf_low", "conf_high"]].tolist() == \
        z_row[["conf_low", "conf_high"]].tolist() and z_row["interval"] == "normal, known sd"
    signed = rlstats.selection_check(df, "score ~ agent | task", treatment="new", baseline="old", reported=reported,
                                     reporter="wilcoxon", n_resamples=99, rng=0)
    assert signed.group_summary["interval"].tolist() == ["t", "t"]
    assert np.isnan(signed.tidy().set_index("term").loc["reporter", "conf_low"])
