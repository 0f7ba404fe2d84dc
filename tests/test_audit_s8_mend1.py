"""Session 8, mend1: regression tests of the defects this session's audits found in what results say (the task
table's summary LaTeX, performance_profile's prose, percentiles' small-cell note, the selection check's verdict,
plot(figsize=), the equivalence figure). Each asserts the correct behaviour and failed before its fix."""

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
    assert r"Bold: the best mean of each task; $^\dagger$: possibly best (the bold and marked agents form a 95\%" in first
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
