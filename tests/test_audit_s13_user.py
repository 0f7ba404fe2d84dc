"""Audit s13, as a careful new user (familiar with R's ``friedman.test``, PMCMRplus, TOSTER, lme4/lmerTest/emmeans
and the scientific Python stack) would run them: ``rlstats.compare(df, "score ~ agent | task")`` with its default
blocked rank test and post hoc (Mack-Skillings checked by hand, Friedman against scipy, Conover's t and the Wilcoxon
post hoc against their formulas and scipy), ``rlstats.equivalence`` (Welch TOST per task and across tasks checked by
hand) and ``rlstats.bayes``, and ``rlstats.mixed`` (against statsmodels' REML fit and scipy's studentized range), on
the Atari 100k and HalfCheetah scores through the mirror and on subsets made with pandas (a few tasks, two agents, one
task, ``df[df.seed < 3]``, an agent renamed or copied under another name, tasks shifted or rescaled, rows shuffled,
polars frames). Each sentence of the print, summary, report, LaTeX and notes was read against the rows analysed and
one figure per function was saved at one column's size (3.4 x 2.6 inches) and looked at. Each test is a minimal
reproducer of one defect found; its docstring gives the numbers seen."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import rlstats

TASKS = ["Alien", "Boxing", "Breakout", "Pong", "Seaquest", "Kangaroo", "Krull", "Gopher"]


@pytest.fixture
def three_agents(atari, mirror):
    """DER, DrQ and SPR on eight Atari 100k games, 10 runs each (the mirror set for the human normaliser)."""
    return atari[atari["task"].isin(TASKS) & atari["agent"].isin(["DER", "DrQ", "SPR"]) & (atari["seed"] < 10)]


# ----------------------------------------------------------------------------- bayes


def test_bayes_tables_do_not_print_a_share_of_no_draws_as_a_certainty(three_agents):
    """DER against SPR on eight games (human-normalised, ROPE 0.05): no posterior draw favoured DER, and the print and
    the report said "P(better) < 1/5000", but ``res.summary()``'s Pairs table and ``res.to_latex()`` (the table a
    paper takes) wrote P(better) = 0, a certainty the draws cannot give. The tables now read as the print does; the
    stored value (``tidy()``) stays the share."""
    res = rlstats.bayes(three_agents, "score ~ agent | task", rope=0.05, normalize="atari100k_reference", rng=0,
                        n_samples=5000)
    assert res.tidy()["p_better"].iloc[1] == 0.0               # DER vs SPR: the stored share
    assert "< 1/5000" in str(res)
    pairs = res.summary().tables["Pairs"]
    assert pairs["p_better"].iloc[1] == "< 1/5000"
    latex = res.to_latex()
    row = next(line for line in latex.splitlines() if line.startswith("P(better)"))
    assert row.split("&")[2].strip() == "$<$ 1/5000"


def test_bayes_ordering_seen_in_every_draw_is_not_a_certainty(published):
    """HalfCheetah, SAC against TD3 (one task; its note says to read it as a description of that task): every
    posterior draw ordered SAC above TD3, and while the pair's line said "P(better) > 1 - 1/2000", the orderings
    printed "1  SAC > TD3", the report "The most probable ordering was SAC > TD3 (1)" and the Orderings table (and
    so the LaTeX) 1: a certainty from 2,000 draws. They now read "> 1 - 1/2000" as the pairs do. (Session 14: from
    one task no ordering is given, as every draw weighs that task alone; the runs are read here as two tasks, the
    second a copy of the first, where every draw still orders SAC above TD3.)"""
    from rlstats.tables import read_csv

    runs = read_csv(published / "halfcheetah_sac_td3.csv")
    runs = pd.concat([runs, runs.assign(task=runs["task"].astype(str) + " again")], ignore_index=True)
    res = rlstats.bayes(runs, "score ~ agent | task", rng=0, n_samples=2000)
    assert res.orderings["probability"].iloc[0] == 1.0             # the stored share
    assert "> 1 - 1/2000  SAC > TD3" in str(res)
    assert "SAC > TD3 (> 1 - 1/2000)" in res.report("text")
    assert res.summary().tables["Orderings"]["probability"].iloc[0] == "> 1 - 1/2000"


def test_bayes_simplex_titles_clear_the_rope_corner_at_one_column(three_agents):
    """``res.plot(figsize=(3.4, 2.6))`` of the three pairs' simplexes: each panel's title ("DER vs DrQ") was drawn
    over the label of the triangle's top corner ("rope" and its share), the title's box 11 pixels (at 100 dpi) into the
    label's in the first panel, since the label sat above the Axes where the title goes. The title now clears it."""
    import matplotlib.pyplot as plt

    res = rlstats.bayes(three_agents, "score ~ agent | task", rope=0.05, normalize="atari100k_reference", rng=0,
                        n_samples=2000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = res.plot(figsize=(3.4, 2.6))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    try:
        for panel in fig.axes:
            title = panel.title.get_window_extent(renderer)
            corner = next(t for t in panel.texts if t.get_text().startswith("rope"))
            box = corner.get_window_extent(renderer)
            assert title.y0 >= box.y1 - 0.5, (panel.title.get_text(), title.y0, box.y1)
    finally:
        plt.close(fig)


def test_bayes_simplex_corners_read_as_the_print(three_agents):
    """The simplex's corner labels wrote each share with three decimals, so a region no draw reached read "0.000" (and
    5e-04 "0.001") beside the print's "< 1/2000" (the lead's look at the figure after the tables' fix above). They
    now read as the print does."""
    import matplotlib.pyplot as plt

    res = rlstats.bayes(three_agents, "score ~ agent | task", rope=0.05, normalize="atari100k_reference", rng=0,
                        n_samples=2000)
    assert res.tidy()["p_better"].iloc[1] == 0.0                   # DER vs SPR: no draw favours DER
    fig = res.plot(kind="simplex")
    try:
        said = [t.get_text() for t in fig.axes[1].texts]
        assert "DER\n< 1/2000" in said, said
    finally:
        plt.close(fig)


def test_tick_labels_of_axes_turned_off_are_not_read_as_crowded():
    """An Axes with ``axis("off")`` (the simplex's triangles) keeps tick labels matplotlib does not draw; figsize=
    checks read them as drawn and refused a hierarchical model's three simplexes at (3.4, 2.6) for "the 2 tick labels
    of the y axis ('0.0', '0.5')", none of which is on the figure."""
    import matplotlib.pyplot as plt

    from rlstats.plotting import _shown_tick_labels

    fig, ax = plt.subplots(figsize=(1, 1))
    try:
        fig.canvas.draw()
        assert _shown_tick_labels(ax.yaxis)                           # drawn while the axes are on
        ax.axis("off")
        fig.canvas.draw()
        assert _shown_tick_labels(ax.yaxis) == [] and _shown_tick_labels(ax.xaxis) == []
    finally:
        plt.close(fig)


# ----------------------------------------------------------------------------- mixed


def test_mixed_says_which_agents_means_reach_tasks_they_never_ran(atari, mirror):
    """IRIS on Alien, Boxing and Breakout only, SimPLe on Pong, Seaquest and Kangaroo only, DER and SPR on all six:
    the summary's table was headed "intervals of each agent's mean over these 6 tasks" and the report said
    "Estimated marginal means: IRIS 2.84, SPR 0.852, SimPLe 0.383, DER 0.111", ranking IRIS first on games where it
    has no run, and no note said that IRIS's and SimPLe's means are the model's predictions on three tasks each
    never ran (only the IRIS-SimPLe contrast was marked indirect). A note now names them."""
    runs = atari[atari["task"].isin(TASKS[:6]) & atari["agent"].isin(["DER", "SPR", "IRIS", "SimPLe"])
                 & (atari["seed"] < 10)]
    runs = runs[~((runs["agent"] == "IRIS") & runs["task"].isin(["Pong", "Seaquest", "Kangaroo"]))
                & ~((runs["agent"] == "SimPLe") & runs["task"].isin(["Alien", "Boxing", "Breakout"]))]
    res = rlstats.mixed(runs, "score ~ agent | task/seed", normalize="atari100k_reference")
    note = next((n for n in res.notes if "estimated marginal mean" in n), None)
    assert note is not None, res.notes
    assert "IRIS and SimPLe ran 3 of the 6 tasks" in note
    assert "DER" not in note and "SPR" not in note
    assert note in res.report("text").replace("\n", " ") or note[1:] in res.report("text")
    # a complete design has no such note
    full = rlstats.mixed(atari[atari["task"].isin(TASKS[:6]) & atari["agent"].isin(["DER", "SPR"])
                               & (atari["seed"] < 10)], "score ~ agent | task/seed",
                         normalize="atari100k_reference")
    assert not any("estimated marginal mean" in n for n in full.notes)


def test_mixed_figure_names_the_normalisation(atari, mirror):
    """DER, DrQ and SPR on six games, human-normalised (``normalize="atari100k_reference"``): the print's note says
    the scores were normalised, but the contrast figure's x axis read "difference of estimated marginal means" with
    no unit, so a figure pasted alone into a paper gives differences of 0.19 and 0.71 in no stated scale (the
    equivalence figure says "normalised scores", the curves' axis "normalised"). It now says so; raw scores keep
    their response's name."""
    import matplotlib.pyplot as plt

    runs = atari[atari["task"].isin(TASKS[:6]) & atari["agent"].isin(["DER", "DrQ", "SPR"]) & (atari["seed"] < 5)]
    res = rlstats.mixed(runs, "score ~ agent | task/seed", normalize="atari100k_reference")
    ax = res.plot(figsize=(3.4, 2.6))
    try:
        assert "normalised scores" in ax.get_xlabel().replace("\n", " "), ax.get_xlabel()
    finally:
        plt.close(ax.figure)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # raw scales: the caution is not this test's
        raw = rlstats.mixed(runs, "score ~ agent | task/seed")
    ax = raw.plot(figsize=(3.4, 2.6))
    try:
        assert "the units of 'score'" in ax.get_xlabel().replace("\n", " "), ax.get_xlabel()
    finally:
        plt.close(ax.figure)


# ----------------------------------------------------------------------------- compare / skillings_mack


def test_critical_difference_diagram_names_alike_pairs_no_bar_can_join(atari):
    """IRIS on Alien, Boxing and Breakout only, SimPLe on Pong, Seaquest and Kangaroo only, DER and SPR on all six
    (every run): mean ranks SPR 1.52, IRIS 1.54, SimPLe 1.81, DER 2.50; Holm's post hoc finds SPR and SimPLe not
    different (adjusted p = 0.435), but IRIS, between them in rank order, never met SimPLe, so no bar can join SPR
    and SimPLe. The figure, titled "bars join agents that met, not different (holm)", left them under no common bar
    and its footer named only IRIS-SimPLe: read as a diagram is read, SPR and SimPLe differ. A line now names the
    pairs found alike that no bar joins."""
    import matplotlib.pyplot as plt

    runs = atari[atari["task"].isin(TASKS[:6]) & atari["agent"].isin(["DER", "SPR", "IRIS", "SimPLe"])]
    runs = runs[~((runs["agent"] == "IRIS") & runs["task"].isin(["Pong", "Seaquest", "Kangaroo"]))
                & ~((runs["agent"] == "SimPLe") & runs["task"].isin(["Alien", "Boxing", "Breakout"]))]
    res = rlstats.compare(runs, "score ~ agent | task")
    rows = res.tidy().set_index(["agent_1", "agent_2"])
    assert not rows.loc[("SPR", "SimPLe"), "significant"]
    ax = res.plot(figsize=(3.4, 2.6))
    try:
        said = " ".join(t.get_text().replace("\n", " ") for t in ax.texts)
        assert "not different, yet under no common bar" in said and "SPR-SimPLe" in said
        assert "never on a common task" in said                   # the never-met pair is still named
        # the title broken to the column keeps "(1 = best)" whole (it read "(1" and "= best)" on two lines)
        assert any("(1 = best)" in line for line in ax.get_title().split("\n")), ax.get_title()
    finally:
        plt.close(ax.figure)


# ----------------------------------------------------------------------------- equivalence


def test_equivalence_raw_scales_caution_follows_the_across_tasks_test(atari):
    """DER against DrQ on Alien, Boxing, Breakout, Pong and Seaquest, raw scores (largest 10.7 to 1072), 10 runs:
    the across-tasks test averages the tasks' raw differences, yet the caution that the large tasks decide came only
    from the aggregate's bootstrap. With ``aggregate=None``, or with 2 runs a cell (the aggregate withheld), the result
    averaged raw Alien and Pong differences with no warning and no note; and ``normalize=False``, which the warning
    itself offers for scores on one scale, still warned and noted. The caution now follows the across-tasks test and
    ``normalize=False`` silences it."""
    runs = atari[atari["task"].isin(TASKS[:5]) & atari["agent"].isin(["DER", "DrQ"]) & (atari["seed"] < 10)]
    caution = "aggregated on their own scales"
    for kwargs in ({"aggregate": None}, {"aggregate": "iqm"}):
        with pytest.warns(rlstats.RlstatsWarning, match=caution):
            res = rlstats.equivalence(runs, "score ~ agent | task", margin=20, rng=0, n_resamples=200, **kwargs)
        assert sum(caution in n for n in res.notes) == 1
    with pytest.warns(rlstats.RlstatsWarning, match=caution):
        res = rlstats.equivalence(runs[runs["seed"] < 2], "score ~ agent | task", margin=20, rng=0)
    assert any(caution in n for n in res.notes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = rlstats.equivalence(runs, "score ~ agent | task", margin=20, rng=0, n_resamples=200, normalize=False)
    assert not any(caution in n for n in res.notes)


def test_pair_never_compared_is_not_called_not_significant_in_the_tables(atari):
    """The design above, 10 runs (IRIS and SimPLe 5): the print says "1 pair never ran on a common task
    (IRIS-SimPLe): not compared", but ``res.summary()`` and ``res.to_latex()`` gave its row "0 & NaN & NaN & & &
    no", significant "no" as for a pair tested and not found different (SPR-SimPLe, p = 0.879, reads the same).
    The tables now say "not compared" there; ``tidy()`` keeps its boolean."""
    runs = atari[atari["task"].isin(TASKS[:6]) & atari["agent"].isin(["DER", "SPR", "IRIS", "SimPLe"])
                 & (atari["seed"] < 10)]
    runs = runs[~((runs["agent"] == "IRIS") & runs["task"].isin(["Pong", "Seaquest", "Kangaroo"]))
                & ~((runs["agent"] == "SimPLe") & runs["task"].isin(["Alien", "Boxing", "Breakout"]))]
    res = rlstats.compare(runs, "score ~ agent | task")
    assert not res.tidy()["significant"].iloc[4]                   # IRIS-SimPLe: the tidy boolean stays
    table = res.summary().tables[next(name for name in res.summary().tables if name.startswith("Pairwise"))]
    assert table["significant"].tolist() == ["yes", "yes", "no", "no", "not compared", "no"]
    row = next(line for line in res.to_latex().splitlines() if line.startswith("IRIS & SimPLe"))
    assert row.rstrip(" \\").endswith("not compared"), row
    # its estimate and statistic are not given: blank as its p-values are, not "NaN" (the lead's read of the report)
    assert [cell.strip() for cell in row.rstrip(" \\").split("&")] == ["IRIS", "SimPLe", "0", "", "", "", "",
                                                                      "not compared"], row
