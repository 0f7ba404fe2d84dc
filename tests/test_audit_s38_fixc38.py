"""Session 38 (fixc38): findings of a new-user trial on Atari 100k's CURL, DER, DrQ(eps), SPR x 6 games x 10 seeds.

1. bayes(): DrQ(eps) vs SPR printed P(better) = 0.656 beside "mean diff = -0.184" and "SPR > DrQ(eps) 0.653": the
   signed-rank model's probabilities are about the Walsh averages' median (the pseudo-median), the mean and the
   orderings about the Dirichlet-weighted mean. The row now shows the pseudo-median's posterior median beside the
   probabilities, the mean labelled as the other quantity, and the orderings' line says they rank by the mean.
2. bayes(...).to_latex() with one pair came out transposed ("1st agent & DrQ(eps)" as its header row).
3. The equivalence figure's caption said "per task, not drawn: 2 of 6 shown beyond the margin" with none of the 6
   per-task rows drawn, and its "aggregate" row did not say it is the IQM.
4. rlstats.curves() without step= was Python's TypeError (a missing keyword-only argument).
5. selection_check() refused treatment=, baseline= and reported= one missing option at a time.
6. res.summary() was no str: ``res.summary()[:3000]`` was a TypeError.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.bayes import _kernels as kernels

FORMULA = "score ~ agent | task/seed"
#: A - B per task: five small gains and one large loss, so the mean difference (-0.25) and the pseudo-median (the
#: median of the Walsh averages, about +0.1) have opposite signs, as DrQ(eps) vs SPR's Boxing made them
OUTLIER = (0.10, 0.12, 0.08, 0.11, 0.09, -2.0)


def _pair(diffs=OUTLIER, runs=2):
    rows = []
    for t, d in enumerate(diffs):
        for r in range(runs):
            noise = 0.01 * (r - (runs - 1) / 2)
            rows += [("A", f"t{t}", r, 5.0 * t + d + noise), ("B", f"t{t}", r, 5.0 * t + noise)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _walsh_median(weights, atoms):
    """Per column of ``weights`` (atoms x draws), the smallest Walsh average (a_i + a_j) / 2 whose cumulative weight
    sum of w_i w_j over every ordered pair (i, j) reaches 1/2: the O(n^2) enumeration, independent of the kernel."""
    walsh = ((atoms[:, None] + atoms[None, :]) / 2).ravel()
    products = (weights[:, None, :] * weights[None, :, :]).reshape(-1, weights.shape[1])
    order = np.argsort(walsh, kind="stable")
    reached = np.cumsum(products[order], axis=0) >= 0.5
    return walsh[order][reached.argmax(axis=0)]


# ---------------------------------------------------------------------------------------------------------- item 1

@pytest.mark.parametrize("draws", [400, 401])
@pytest.mark.parametrize("rounded", [False, True])
def test_kernel_pseudo_median_is_the_median_of_the_draws_weighted_walsh_medians(rounded, draws):
    rng = np.random.default_rng(38)
    d = rng.normal(size=(2, 9))
    d = np.round(d, 1) if rounded else d  # ties among the Walsh averages, and draws at one of them
    present = np.ones((2, 9), bool)
    present[1, [2, 5]] = False
    w = kernels.dirichlet_block(rng, draws, 9, 0.5)
    assert kernels.posterior_pseudo_median(w, d[0], present[0]) == np.median(_walsh_median(w, np.r_[0.0, d[0]]))
    keep = np.r_[True, present[1]]
    sub = _walsh_median(w[keep] / w[keep].sum(axis=0), np.r_[0.0, d[1, present[1]]])
    assert kernels.posterior_pseudo_median(w, d[1], present[1]) == np.median(sub)


def test_bayes_pseudo_median_against_independent_dirichlet_draws():
    res = rlstats.bayes(_pair(), FORMULA, rope=0.05, rng=0, n_samples=4000)
    row = res.tidy().iloc[0]
    # its own posterior from numpy's Dirichlet (prior weight 0.5 at 0, 1 per task) and the O(n^2) enumeration
    rng = np.random.default_rng(1)
    weights = rng.dirichlet([0.5] + [1.0] * 6, size=20000).T
    theirs = _walsh_median(weights, np.r_[0.0, OUTLIER])
    se = np.sqrt(0.25 / 20000) + np.sqrt(0.25 / 4000)
    # the reported posterior median is a median of their draws, within Monte Carlo error
    # (the task means' differences carry the scores' rounding: 0.09 is 0.08999999999999986 here)
    assert (theirs <= row.pseudo_median + 1e-12).mean() >= 0.5 - 3 * se
    assert (theirs < row.pseudo_median - 1e-12).mean() <= 0.5 + 3 * se
    assert 0.08 < row.pseudo_median < 0.12 and row.estimate < -0.15  # opposite signs, as the data are built
    assert row.p_better > row.p_worse


def test_bayes_prints_the_pseudo_median_beside_the_probabilities_and_labels_the_mean():
    res = rlstats.bayes(_pair(), FORMULA, rope=0.05, rng=0, n_samples=2000)
    text = str(res)
    head = next(line for line in text.splitlines() if "P(better)" in line and "pair" in line)
    # the columns in this order: the probabilities, the quantity they are about, then the mean with its interval
    assert head.split() == ["pair", "P(better)", "P(rope)", "P(worse)", "pseudo-median", "mean", "diff", "lower",
                            "upper", "tasks"]
    row = res.tidy().iloc[0]
    line = next(line for line in text.splitlines() if line.strip().startswith("A vs B"))
    cells = line.split()
    assert float(cells[6]) == pytest.approx(row.pseudo_median, rel=1e-4) and float(cells[6]) > 0
    assert float(cells[7]) == pytest.approx(row.estimate, rel=1e-4) and float(cells[7]) < 0
    assert "pseudo-median: posterior median of the median of those Walsh averages" in " ".join(text.split())
    assert "can have the other sign" in text
    # the orderings say what they rank by: the mean, not the pseudo-median
    assert "most probable orderings of the agents (by their Dirichlet-weighted mean over tasks, as mean diff, " \
           "not the pseudo-median P(.) is about):" in text
    assert "B > A" in text.split("most probable orderings")[1].splitlines()[1]
    # the prose and the LaTeX caption name both
    assert f"pseudo-median difference {row.pseudo_median:.3g} (posterior median)" in res.report()
    caption = " ".join(res.to_latex().split())
    assert "pseudo-median: posterior median of the median of those Walsh averages" in caption
    assert "estimate and its interval: posterior of the mean difference across tasks, another quantity" in caption
    assert "pseudo-median and estimate = 1st agent - 2nd agent" in caption


def test_at_rope_zero_the_pseudo_median_has_the_sign_of_p_better():
    res = rlstats.bayes(_pair(), FORMULA, rope=0.0, rng=0, n_samples=2000)
    row = res.tidy().iloc[0]
    assert row.p_better > 0.5 and row.pseudo_median > 0 and row.estimate < 0
    flipped = rlstats.bayes(_pair(tuple(-d for d in OUTLIER)), FORMULA, rope=0.0, rng=0, n_samples=2000)
    assert flipped.tidy().iloc[0].pseudo_median == -row.pseudo_median


def test_hierarchical_orderings_say_they_rank_by_delta0():
    # the joint fit ranks by each agent's delta0 against a reference, a centre, not a mean (it said "their mean
    # difference across tasks"); the words come from the fields, so a result's fields stand in for a 3 s fit
    import dataclasses

    res = rlstats.bayes(_pair(), FORMULA, rope=0.05, rng=0, n_samples=500)
    hier = dataclasses.replace(res, model="hierarchical", chains=2, draws=10,
                               comparisons=res.comparisons.drop(columns="pseudo_median"))
    text = "\n".join(hier._extra_lines())
    assert "most probable orderings of the agents (by their centre (delta0) across tasks against one reference, in a " \
           "joint fit):" in text
    assert "pseudo-median" not in text and "pseudo-median" not in hier.report()


# ---------------------------------------------------------------------------------------------------------- item 2

def test_one_pair_latex_is_a_row_per_pair_as_several():
    latex = rlstats.bayes(_pair(), FORMULA, rope=0.05, rng=0, n_samples=500).to_latex()
    pairs = latex[:latex.index(r"\end{table")]
    assert "1st agent & 2nd agent & P(better) & P(rope) & P(worse) & pseudo-median" in pairs
    assert "\nA & B & " in pairs
    assert "1st agent & A" not in pairs and "2nd agent & B" not in pairs


def test_table_latex_keeps_a_one_row_pair_table_a_row():
    from rlstats import format as fmt

    pair = pd.DataFrame({"agent_1": ["A"], "agent_2": ["B"], **{f"quantity_{i}": [1.2345] for i in range(9)}})
    assert "1st agent & 2nd agent & quantity" in fmt.table_latex(pair)
    # a one-row table named by its first column alone is still transposed where that fits
    term = pd.DataFrame({"term": ["reporter"], **{f"quantity_{i}": [1.2345] for i in range(9)}})
    assert "term & reporter" in fmt.table_latex(term)


# ---------------------------------------------------------------------------------------------------------- item 3

def _equivalence(aggregate="iqm"):
    return rlstats.equivalence(_pair(runs=3), FORMULA, margin=0.05, rng=0, n_resamples=100, aggregate=aggregate)


@pytest.mark.filterwarnings("ignore::rlstats.RlstatsWarning")
def test_equivalence_caption_says_what_is_drawn_and_names_the_aggregate():
    res = _equivalence()
    ax = res.plot()
    label = " ".join(ax.get_xlabel().split())
    beyond = int(res.comparisons.query("scope == 'task'")["conclusion"].str.startswith("shown ").sum())
    assert beyond >= 1
    assert label.endswith(f"per task: 6 tests not drawn, {beyond} of them shown beyond the margin")
    assert "per task, not drawn" not in label
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks == ["across tasks", "aggregate (IQM)"]
    # every task drawn: nothing said of tasks not drawn
    every = res.plot(scopes=("task", "across tasks", "aggregate"))
    assert "per task" not in every.get_xlabel() and "aggregate (IQM)" in [t.get_text() for t in every.get_yticklabels()]
    assert [t.get_text() for t in _equivalence("mean").plot().get_yticklabels()][-1] == "aggregate (mean)"


# ---------------------------------------------------------------------------------------------------------- item 4

def test_curves_without_step_is_an_option_error_naming_it():
    with pytest.raises(rlstats.OptionError) as caught:
        rlstats.curves(_pair(), FORMULA)
    said = str(caught.value)
    assert "step=" in said and "training steps" in said
    assert "rlstats.summarize_runs" in said and "rlstats.task_table" in said
    assert "the data have no such column ('agent', 'task', 'seed', 'score')" in said
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=2, steps=3, rng=0)
    with pytest.raises(rlstats.OptionError, match=r"the data have 'step': step='step'\. For one score per run"):
        rlstats.curves(curves, FORMULA)


# ---------------------------------------------------------------------------------------------------------- item 5

def test_selection_check_names_every_missing_option_at_once():
    with pytest.raises(rlstats.OptionError) as caught:
        rlstats.selection_check(_pair(), "score ~ agent | task")
    said = str(caught.value)
    assert said.startswith("treatment=, baseline= and reported= are required")
    assert "'A', 'B'" in said and "boolean column" in said
    with pytest.raises(rlstats.OptionError, match=r"^baseline= is required"):
        rlstats.selection_check(_pair(), "score ~ agent | task", treatment="A", reported=["t0", "t1"])


# ---------------------------------------------------------------------------------------------------------- item 6

def test_summary_is_a_str_that_keeps_its_tables():
    res = rlstats.bayes(_pair(), FORMULA, rope=0.05, rng=0, n_samples=500)
    summary = res.summary()
    text = str(summary)
    assert isinstance(summary, str) and type(text) is str
    assert summary[:40] == text[:40] and len(summary) == len(text) and "Notes:" in summary
    assert summary.splitlines() == text.splitlines() and summary.count("P(better)") == text.count("P(better)")
    assert repr(summary) == text  # printed at a prompt as the text, not a quoted string
    assert summary.title() == text.title() and summary.upper() == text.upper()  # str's methods, none shadowed
    assert summary.method == res.method
    assert "Pairs" in summary.tables and summary._repr_html_().startswith("<table>")
    assert summary.to_latex() == res.to_latex() and summary.to_markdown() == res.to_markdown()
    # a rendering leaves no summary without its text behind it; copies keep the text and the tables
    assert res.summary() == text
    import copy
    import pickle

    again = copy.deepcopy(summary)
    assert again == text and type(again) is type(summary) and list(again.tables) == list(summary.tables)
    unpickled = pickle.loads(pickle.dumps(summary))
    assert unpickled == text and unpickled.notes == summary.notes and unpickled.tables["Pairs"].equals(
        summary.tables["Pairs"])


def test_every_result_class_returns_the_one_summary_type():
    from rlstats.results import Summary

    results = [rlstats.bayes(_pair(), FORMULA, rope=0.05, rng=0, n_samples=500), _equivalence(),
               rlstats.task_table(_pair(runs=3), FORMULA, rng=0, n_resamples=100)]
    for res in results:
        summary = res.summary()
        assert type(summary) is Summary and summary[:10] == str(summary)[:10]
