"""Session 8, mend1: regression tests of the defects this session's audits found in what results say (the task
table's summary LaTeX, performance_profile's prose, percentiles' small-cell note, the selection check's verdict,
plot(figsize=), the equivalence figure). Each asserts the correct behaviour and failed before its fix."""

import pytest

import rlstats


def test_task_table_summary_latex_sets_marks_in_latex_with_their_legend():
    """task_table(...).summary().to_latex() set the best cells as '*35.2 $\\pm$ 5.2*' (Markdown emphasis, printed
    as literal asterisks by LaTeX) and gave no legend for the marks; it must follow res.to_latex(): \\textbf and
    the caption's sentence on the bold and the dagger."""
    df = rlstats.datasets.simulate(3, 4, 5, rng=0)
    res = rlstats.task_table(df, "score ~ agent | task")
    latex = res.summary().to_latex()
    first = latex.split("\\end{table")[0]
    assert r"task\_01 & 32.3 $\pm$ 9.9$^\dagger$ & 30.5 $\pm$ 4.3$^\dagger$ & \textbf{35.2 $\pm$ 5.2} \\" in first
    assert "*35.2" not in latex and "5.2*" not in latex
    assert r"Bold: the best mean of each task; $^\dagger$: possibly best: the bold and marked agents form a 95\%" in first
    assert r"task & agent\_1 & agent\_2 & agent\_3 \\" in first
    # the second table (comparisons with the best) is as before
    assert latex.count(r"\begin{table") == 2 and "Holm-adjusted within task): comparisons with the best." in latex


def test_performance_profile_of_tied_scores_says_one_threshold():
    """When every run scores 1, performance_profile printed 'thresholds = 81 from 1 to 1' and 'for 81 thresholds tau
    from 1 to 1': 81 copies of one value are one threshold. It must use and say that one threshold."""
    df = rlstats.datasets.simulate(2, 3, 3, rng=0)
    df["score"] = 1.0
    res = rlstats.performance_profile(df, "score ~ agent | task")
    assert res.tau.tolist() == [1.0]
    assert res.estimates.tolist() == [[0.0], [0.0]]  # no run scores strictly above 1
    text = str(res)
    assert "thresholds = 1 (tau = 1)" in text and "81" not in text
    assert "every score is 1, so every profile steps from 1 to 0 there" in text
    assert "for the one threshold tau = 1," in res.report()


def test_percentiles_note_of_a_one_run_cell_says_no_row_measures_it():
    """A cell of 1 run (the others 5): the percentile bootstrap's note read '1 runs in the smallest cell are few ...:
    in simulations of ... with 3 runs per cell ... held ... in 0.57', quoting a 3-run design as if it measured a
    1-run cell; and the PBP note read 'with 1 runs'. The count must be in words and the quote said to be of the
    fewest runs simulated, with the 1-run design unmeasured."""
    df = rlstats.datasets.simulate(2, 3, 5, rng=0)
    df = df.drop(df.index[(df.agent == "agent_1") & (df.task == "task_01")][1:])
    notes = rlstats.percentiles(df, "score ~ agent | task", n_resamples=240, rng=0, interval="bootstrap").notes
    note = [n for n in notes if "smallest cell" in n][0]
    assert note.startswith("the smallest cell has 1 run, fewer than any design simulated for the percentile "
                           "bootstrap (its coverage there was not measured); at the fewest runs simulated, 2 agents "
                           "x 1 task with 3 runs per cell")
    assert "1 runs" not in note
    notes = rlstats.percentiles(df, "score ~ agent | task", n_resamples=240, rng=0, interval="pbp").notes
    assert any(n.startswith("with 1 run in the smallest cell (task_01/agent_1) the DKW band at") for n in notes)
    df3 = rlstats.datasets.simulate(2, 3, 3, rng=0)
    note3 = rlstats.percentiles(df3, "score ~ agent | task", n_resamples=240, rng=0, interval="bootstrap").notes[0]
    assert note3.startswith("3 runs in the smallest cell are few for the percentile bootstrap: in simulations of "
                            "2 agents x 1 task with 3 runs per cell")


def test_selection_check_verdict_is_untestable_where_the_inspector_cannot_reject():
    """3 reported and 2 held-out tasks: the exact permutation inspector's smallest attainable p-value is 1/10 > beta =
    0.05, so no data could have flagged selection; yet the verdict read 'the claim survives verification'. It must
    say the check is untestable at this design."""
    df = rlstats.datasets.simulate(2, 5, 5, rng=0)
    df.loc[df.agent == "agent_2", "score"] += 50
    res = rlstats.selection_check(df, "score ~ agent | task", treatment="agent_2", baseline="agent_1",
                                  reported=["task_01", "task_02", "task_03"], rng=0)
    assert res.pvalue == pytest.approx(0.7) and res.pvalue_reporter < 0.05  # a claim, not flagged
    assert res.verdict == "untestable" and res.glance()["verdict"].iloc[0] == "untestable"
    text = str(res) + res.report()
    assert "survives" not in text
    assert "whether they are representative is untestable here" in res.report()
    # 6 reported and 4 held-out tasks: 1/210 < 0.05, the inspector can reject, and the claim does survive
    df = rlstats.datasets.simulate(2, 10, 5, rng=0)
    df.loc[df.agent == "agent_2", "score"] += 50
    res = rlstats.selection_check(df, "score ~ agent | task", treatment="agent_2", baseline="agent_1",
                                  reported=[f"task_{i:02d}" for i in range(1, 7)], rng=0)
    assert res.verdict == "survives" and res.pvalue > 0.05


def test_plot_takes_figsize_for_the_figure_it_makes():
    """res.plot(figsize=(4, 3)) raised matplotlib's AttributeError ('LineCollection.set() got an unexpected keyword
    argument figsize'): the keyword reached the drawing calls. plot() must size the new figure it makes (one panel
    or several, and the Bayesian result's own plot()), refuse a bad size or figsize= with the caller's ax= as an
    OptionError naming the keyword and the way on, and every result's plot() must take it."""
    import importlib
    import inspect

    import matplotlib.pyplot as plt

    from rlstats.methods import DECLARATIONS

    df = rlstats.datasets.simulate(2, 3, 5, rng=0)
    res = rlstats.compare(df, "score ~ agent | task")
    drawn = res.plot(figsize=(4, 3))
    assert drawn.figure.get_size_inches().tolist() == [4.0, 3.0]
    assert type(drawn.figure.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    panels = rlstats.bootstrap(df, "score ~ agent | task", n_resamples=50, rng=0).plot(figsize=(6, 2))
    assert panels.get_size_inches().tolist() == [6.0, 2.0]
    bayes = rlstats.bayes(df, "score ~ agent | task", rope=0.1, n_samples=200, rng=0).plot(figsize=(3.5, 3.5))
    assert bayes.figure.get_size_inches().tolist() == [3.5, 3.5]
    figure, ax = plt.subplots()
    with pytest.raises(rlstats.OptionError, match=r"figsize= sizes the figure plot\(\) makes, but ax= .*"
                                                  r"plt.subplots\(figsize=...\)"):
        res.plot(ax=ax, figsize=(4, 3))
    assert not ax.has_data()  # refused before drawing on the caller's axes
    for bad in [(4,), (0, 3), "big", (4, float("nan"))]:
        with pytest.raises(rlstats.OptionError, match=r"figsize= must be \(width, height\) in inches"):
            res.plot(figsize=bad)
    plt.close("all")
    for declared in DECLARATIONS.values():
        module, name = declared.result.split(":")
        result = getattr(importlib.import_module(module), name)
        assert "figsize" in inspect.signature(result.plot).parameters, declared.name


def test_equivalence_figure_keeps_its_x_label_inside_when_saved_at_its_own_size(tmp_path):
    """equivalence(...).plot() on 2 agents x 3 tasks: the x label, centred on axes that long y labels push right,
    reached 0.059 in past the right edge of the 5 x 2.2 in figure saved at its own size ('band ±margi' cut off).
    Every line of the label must lie inside the figure."""
    import matplotlib.pyplot as plt

    res = rlstats.equivalence(rlstats.datasets.simulate(2, 3, 5, rng=0), "score ~ agent | task", margin=1.0,
                              n_resamples=200, rng=0)
    ax = res.plot()
    figure = ax.figure
    try:
        figure.savefig(tmp_path / "equivalence.png")  # at its own size, laid out as saved
        width, height = figure.get_size_inches() * figure.dpi
        for text in (ax.xaxis.label, ax.title):
            box = text.get_window_extent(figure.canvas.get_renderer())
            assert box.x0 >= 0 and box.x1 <= width and box.y0 >= 0 and box.y1 <= height, (text.get_text(), box)
        # (audit s38 fixc38: and the per-task tests not drawn, whenever there are some)
        assert " ".join(ax.get_xlabel().split()) == (
            "difference (the units of 'score') 90% intervals, band \u00b1margin (filled: shown equivalent) per task: 3 "
            "tests not drawn, none of them shown beyond the margin")
    finally:
        plt.close(figure)


def test_task_table_summary_markdown_sets_the_best_in_bold():
    """The summary's Markdown table showed the best as *x*, which Markdown renders in italics, beside a legend
    saying bold; it now uses **x** as res.to_markdown() does."""
    df = rlstats.datasets.simulate(agents=3, tasks=2, seeds=5, rng=0)
    res = rlstats.task_table(df, "score ~ agent | task", n_resamples=200, rng=1)
    table = res.summary().to_markdown().split("*per-task table*")[1].split("*comparisons with the best*")[0]
    rows = [line for line in table.splitlines() if line.startswith("| task_0")]
    assert rows == [line for line in res.to_markdown().splitlines() if line.startswith("| task_0")]
    assert sum(cell.strip().startswith("**") for row in rows for cell in row.split("|")) == 2
