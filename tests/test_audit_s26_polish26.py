"""Audit s26 polish26: one record of a figure text as written; AdaStop's step-down caption with no pair acted on; the
selection check's set, inspector and reporter labels in the vocabulary; integers printed one way in a result; a
power study's pilot named by its formula."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats

#: an x label longer than a 6.4 in figure's 80%
LONG_LABEL = ("a long x label with very many words that must break on a figure of a column's width, and still more "
              "words here")


def _label_refitted(later):
    """An x label broken by fit_xlabel at a plot's own 6.4 in, then fitted (as plot(figsize=) does) at ``later``."""
    import matplotlib.pyplot as plt

    from rlstats import plotting

    fig, ax = plt.subplots(figsize=(6.4, 3.0), layout="constrained")
    try:
        ax.set_xlabel(LONG_LABEL, fontsize=10)
        plotting.fit_xlabel(ax)
        assert "\n" in ax.xaxis.label.get_text()  # broken at the plot's own size
        fig.set_size_inches(*later)
        plotting._fit_texts(fig, [ax.xaxis.label])
        return ax.xaxis.label.get_text(), ax.xaxis.label.get_fontsize()
    finally:
        plt.close(fig)


# plotting kept two records of a text before it was fitted: _BROKEN (break_to_width's words as written) and _FITTED
# (_fit_texts' words and size on entry), so _fit_texts at a plot(figsize=) started from fit_xlabel's breaks at the
# plot's own size: at 14 in the label stayed on two lines, at 3 in it was broken further line by line into 4 uneven
# ones ("a long x label with very many" / "words that must break on" / ...). One record now, plotting._WRITTEN.
def test_a_label_broken_at_the_plots_size_is_one_line_again_at_a_wider_figsize():
    assert _label_refitted((14.0, 3.0)) == (LONG_LABEL, 10.0)
    # narrower: broken from the words as written, as evenly as four lines can be
    assert _label_refitted((3.0, 3.0)) == ("a long x label with very many\nwords that must break on a\nfigure of a "
                                           "column's width,\nand still more words here", 10.0)


#: a title no break fits over a 1.2 in panel: broken at its spaces, and set smaller for its long word
SHRUNK = "CrazyClimberWithAVeryLongName over many runs of every agent"


def _fits(fig, ax, size):
    from rlstats import plotting

    fig.set_size_inches(*size)
    plotting.fit_title(ax)
    return ax.title.get_text(), ax.title.get_fontsize()


@pytest.mark.parametrize("broken_first", [False, True])
def test_a_text_broken_and_shrunk_returns_to_its_words_and_size_then_fits_again_alike(broken_first):
    """Broken and set smaller at a narrow size, fitted at a wide one it is as written; narrow again, as first fitted
    (``broken_first``: broken by break_to_width before, as fit_xlabel does at a plot's own size)."""
    import matplotlib.pyplot as plt

    from rlstats import plotting

    fig, ax = plt.subplots(figsize=(1.2, 1.5), layout="constrained")
    try:
        ax.set_title(SHRUNK, fontsize=10)
        if broken_first:
            plotting.break_to_width(ax.title, fig, 0.8)
            assert "\n" in ax.title.get_text()
        first = _fits(fig, ax, (1.2, 1.5))
        assert "\n" in first[0] and first[1] < 10.0  # broken and set smaller
        record = plotting._WRITTEN[ax.title]  # one record: as written, and as fitted
        assert (record.words, record.size, record.left) == (SHRUNK, 10.0, first)
        assert _fits(fig, ax, (9.0, 2.0)) == (SHRUNK, 10.0)  # as written
        assert ax.title not in plotting._WRITTEN  # nothing changed there: no record
        assert _fits(fig, ax, (1.2, 1.5)) == first  # idempotent
        assert _fits(fig, ax, (1.2, 1.5)) == first
        assert _fits(fig, ax, (9.0, 2.0)) == (SHRUNK, 10.0)
    finally:
        plt.close(fig)


#: a column name no break shortens, in the selection check's null-distribution x label
COLUMN = "normalised_human_score_of_the_atari_57_benchmark_suite"


@pytest.mark.parametrize("size, lines", [
    # wider than the plot's own 6.4 in: one line where it fits (before: broken as at 6.4 in)
    ((14.0, 3.5), [f"mean(reported) - mean(held-out), the units of '{COLUMN}'",
                   "over every choice of the reported tasks"]),
    # narrower: no line narrower than the column's name (broken from the label as written, every other word went
    # onto a line of its own: "mean(reported)", "-", "mean(held-out),", "the", "units of", ...)
    ((4.0, 3.5), ["mean(reported) - mean(held-out), the units of", f"'{COLUMN}'",
                  "over every choice of the reported tasks"]),
])
def test_a_label_with_a_long_word_refitted_at_a_figsize(size, lines):
    import matplotlib.pyplot as plt

    df = rlstats.datasets.simulate(agents=["A", "B"], tasks=6, seeds=3, effect=[0.0, 0.5], rng=3)
    result = rlstats.selection_check(df.rename(columns={"score": COLUMN}), f"{COLUMN} ~ agent | task",
                                     treatment="B", baseline="A", reported=["task_01", "task_02"], rng=0)
    ax = result.plot(kind="null_distribution", figsize=size)
    try:
        assert ax.xaxis.label.get_text().split("\n") == lines
    finally:
        plt.close(ax.figure)


def _adastop_none_acted():
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=10, rng=0)
    return rlstats.adastop(df, "score ~ agent", n=5, K=2, rng=0, progress=False, permutations="joint")


# AdaStop's (and the permutation test's) step-down table of a test where no step acted (every action "none") had
# empty agent columns, which the LaTeX caption's "In every column" said as "agent 1: NA; agent 2: NA"
def test_adastop_step_down_with_no_pair_acted_on_says_so():
    result = _adastop_none_acted()
    assert set(result.steps["action"]) == {"none"} and list(result.steps["interim"]) == [1, 2]
    caption = next(line for line in result.to_latex().splitlines()
                   if line.startswith("\\caption{") and "Step-down." in line)
    assert "NA" not in caption and "agent 1" not in caption and "1st agent:" not in caption
    assert caption.endswith("reject the pair with the largest when it exceeds the boundary, else none. No step "
                            "rejected a pair at interims 1-2. In every column, step: 1; comparisons: 3; alpha "
                            "divisor: 1; accept boundary: 0; action: none.}")  # alpha divisor: holm30's column
    assert "agent_1" not in result.summary().tables["Step-down"]
    assert list(result.steps["agent_1"]) == ["", ""]  # the field keeps its columns
    # with early acceptance, and a step that acted: the pair's columns and their words stay
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=10, effect=[0.0, 0.0, 3.0], rng=0)
    acted = rlstats.adastop(df, "score ~ agent", n=5, K=2, rng=0, progress=False, permutations="joint")
    assert "reject" in set(acted.steps["action"])
    tex = acted.to_latex()
    assert "exceeds the boundary (1st agent, 2nd agent), else none." in tex and "No step rejected" not in tex
    assert "agent_1" in acted.summary().tables["Step-down"]
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=15, rng=0)
    early = rlstats.adastop(df, "score ~ agent", n=5, K=3, beta=0.01, rng=0, progress=False, permutations="joint")
    assert set(early.steps["action"]) == {"none"}
    assert ("accept the pair with the smallest below the accept boundary, else none. No step rejected or accepted a "
            "pair at interims 1-3.") in early.to_latex()


def _selection():
    df = rlstats.datasets.simulate(agents=["A", "B"], tasks=8, seeds=5, effect=[0.0, 0.5], rng=3)
    return rlstats.selection_check(df, "score ~ agent | task", treatment="B", baseline="A",
                                   reported=["task_01", "task_02", "task_03"], rng=0)


# the selection check's plot said its sets by its own SET_LABELS, its print, report, notes and tidy() the inspector's
# and reporter's tests by _INSPECTOR_NAMES and _REPORTER_NAMES, beside the vocabulary's labels of the same codes that
# its LaTeX reads: one home now, vocabulary.VALUE_LABELS
def test_selection_labels_are_read_from_the_vocabulary(monkeypatch):
    import matplotlib.pyplot as plt

    from rlstats import vocabulary

    monkeypatch.setitem(vocabulary.VALUE_LABELS, "set", {"heldout": "kept back"})
    monkeypatch.setitem(vocabulary.VALUE_LABELS, "reporter", {"skew_t": "REPORTER WORDS"})
    monkeypatch.setitem(vocabulary.VALUE_LABELS, "inspector", {"fisher_pitman": "INSPECTOR WORDS"})
    result = _selection()
    ax = result.plot(kind="effects")
    try:
        assert [t.get_text() for t in ax.get_legend().get_texts()][-1] == "kept back"
        assert "kept back:" in ax.title.get_text()
    finally:
        plt.close(ax.figure)
    assert "reporter (REPORTER WORDS)" in str(result)
    assert "inspector (INSPECTOR WORDS)" in str(result)
    assert list(result.tidy()["method"][:2]) == ["INSPECTOR WORDS", "REPORTER WORDS"]
    assert "one-sided INSPECTOR WORDS" not in result.report()  # (the permutation inspector's report names its test)
    assert "The reporter's REPORTER WORDS of a positive mean effect" in result.report()
    assert "kept back: a two-sided 95\\% interval" in result.to_latex()


def test_selection_labels_as_printed():
    result = _selection()
    assert "inspector (permutation test over task labels): mean(reported) - mean(held-out) = " in str(result)
    assert "reporter (skewness-corrected one-sample t test): mean effect = " in str(result)
    assert list(result.tidy()["method"][:2]) == ["permutation test over task labels",
                                                 "skewness-corrected one-sample t test"]
    welch = rlstats.selection_check(rlstats.datasets.simulate(agents=["A", "B"], tasks=8, seeds=5, effect=[0.0, 0.5],
                                                              rng=3),
                                    "score ~ agent | task", treatment="B", baseline="A", inspector="welch",
                                    reporter="wilcoxon", reported=["task_01", "task_02", "task_03"], rng=0)
    assert "A one-sided Welch two-sample t test of equal means gave t = " in welch.report()
    assert "the Welch two-sample t test is approximate there" in " ".join(welch.notes)
    assert "reporter (Wilcoxon signed-rank test): " in str(welch)


def _sweep(configs=1200):
    g = np.random.default_rng(0)
    df = pd.DataFrame({"agent": "A", "task": "T", "lr": np.repeat(np.arange(configs), 2),
                       "seed": np.tile([0, 1], configs)})
    df["score"] = g.normal(size=len(df)) + df["lr"] * 1e-3
    return rlstats.tuning(df, "score ~ agent | task/seed", config="lr", n_resamples=200, rng=0, progress=False)


# a result printed a count two ways: the tuning header "configurations = 1200" (and its lines "selected of 1200",
# "k=1200", its report's "(200 bootstrap resamples)") beside "over 1,200 configurations"; the permutation test's
# "2000 random permutations" beside its note's "2,000 random paths", AdaStop's "10000 random paths" beside
# "10,000", the Bayesian test's "50000 Dirichlet draws" beside "50,000 independent posterior draws". One rule now,
# format.integer (count's), in headers, lines and prose (tables and tidy() keep the numbers).
def test_tuning_prints_its_counts_one_way():
    result = _sweep()
    text = str(result)
    assert "configurations = 1,200, agents = 1, tasks = 1, resamples = 200" in text
    # (a best set of 6 since audit s32 stream32 keyed the sweep's resamples by its names: 5 under the former keys,
    # checked under them by test_audit_s32_curves32 until audit s35)
    assert "lr=547 selected of 1,200, best set of 6" in text and "over 1,200 configurations" in text
    assert ", k=1,200: 3.088 [-3.91, 10.1]" in text
    assert "1200" not in text and "1200" not in result.report()
    assert "over a sweep of 1,200 configurations" in result.report()
    assert result.glance()["n_configs"].item() == 1200 and result.tidy()["n_configs"].tolist() == [1200, 1200]


def test_other_results_print_their_counts_one_way():
    from rlstats import format as fmt

    assert (fmt.integer(1200), fmt.integer(999), fmt.integer(np.int64(-10000))) == ("1,200", "999", "-10,000")
    assert fmt.count(10000, "random path") == "10,000 random paths"
    df = rlstats.datasets.simulate(agents=3, tasks=2, seeds=6, rng=0)
    perm = rlstats.permutation(df, "score ~ agent | task", n_resamples=1500, rng=0, progress=False, permutations="joint")
    assert "n = 6 runs per agent, 1,500 random permutations (identity included)" in str(perm)
    boot = rlstats.bootstrap(df, "score ~ agent | task", n_resamples=1200, rng=0, progress=False, normalize=False)
    assert "resamples = 1,200, confidence level = 0.95" in str(boot)
    assert "1,200 stratified bootstrap resamples" in boot.report() and "1200" not in str(boot) + boot.report()
    small = rlstats.datasets.simulate(agents=2, tasks=4, seeds=3, rng=0)
    signed = rlstats.bayes(small, "score ~ agent | task", rope=0.1, n_samples=12000, rng=0, progress=False,
                           normalize=False)
    assert "model: Bayesian signed-rank test (12,000 Dirichlet draws, prior weight 0.5 at 0)" in str(signed)
    assert "a Dirichlet process prior of weight 0.5 at 0 and 12,000 posterior draws;" in signed.report()


def _pilot_power():
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, effect=0.5, rng=0)
    return rlstats.power("skillings_mack", design=df, formula="score ~ agent | task", effect=1.0,
                         shifted_agent="agent_2", seeds=[3], n_sim=10, rng=1, progress=False)


# a power study from a pilot named it by the data: line's words (R's "data: x and y"): its settings table read
# "pilot & score and agent and task", its report "resampling a pilot (score and agent and task)"
def test_a_pilot_is_named_by_its_formula():
    res = _pilot_power()
    tex = res.to_latex()
    assert "pilot & score and agent and task" not in tex
    assert "pilot & score \\textasciitilde{} agent \\textbar{} task \\\\" in tex
    assert "resampling a pilot (score ~ agent | task): 10 data sets per number of seeds" in res.report(format="text")
    assert res.simulation["pilot"] == "score ~ agent | task"
    assert str(res).splitlines()[3].startswith("data:  score and agent and task: pilot of 2 agents x 3 tasks, 30 runs")
    nested = rlstats.power("skillings_mack", design=rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, rng=0),
                           formula="log(score + 100) ~ agent | task/seed", effect=1.0, shifted_agent="agent_2",
                           seeds=[3], n_sim=10, rng=1, progress=False)
    assert nested.simulation["pilot"] == "log(score + 100) ~ agent | task/seed"
    # one name whatever the formula's spacing: the two studies combine (their settings are the same)
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, effect=0.5, rng=0)
    spaced = rlstats.power("skillings_mack", design=df, formula="score~agent|task", effect=1.0, shifted_agent="agent_2",
                           seeds=[5], n_sim=10, rng=1, progress=False)
    assert spaced.simulation["pilot"] == "score ~ agent | task"
    assert list(type(res).combine(res, spaced).table["seeds"]) == [3, 5]
