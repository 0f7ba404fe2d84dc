"""Audit s15 (table15): a user's audit of task_table() and equivalence() on real data (Atari 100k, HalfCheetah
SAC/TD3, the MuJoCo batches), as a paper writer reads them: the numbers against scipy, and what the captions and
prose say of the rows analysed when lower scores are better."""


import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

import rlstats


def _atari_cells(df):
    games = sorted(df.task.unique())[:3]
    return df[df.agent.isin(["DER", "SPR", "IRIS"]) & df.task.isin(games)].groupby(["agent", "task"]).head(3)


def test_task_table_welch_matches_scipy_on_atari(atari):
    """The p-values against the best and Welch's t are scipy's one-sided ttest_ind (3 runs a cell, real scores),
    and negating the scores with higher_is_better=False moves none of them."""
    sub = _atari_cells(atari)
    table = rlstats.task_table(sub, "score ~ agent | task/seed", rng=0)
    td = table.tidy()
    checked = 0
    for _, row in td.dropna(subset=["welch_t"]).iterrows():
        best = td[(td.task == row.task) & td.best].agent.iloc[0]
        x = sub[(sub.task == row.task) & (sub.agent == best)].score
        y = sub[(sub.task == row.task) & (sub.agent == row.agent)].score
        ref = st.ttest_ind(x, y, equal_var=False, alternative="greater")
        assert row.p_value == pytest.approx(ref.pvalue, rel=1e-9)
        assert row.welch_t == pytest.approx(ref.statistic, rel=1e-9)
        checked += 1
    assert checked == 6
    flipped = rlstats.task_table(sub.assign(score=-sub.score), "score ~ agent | task/seed", rng=0,
                                 higher_is_better=False).tidy()
    np.testing.assert_allclose(flipped.p_value, td.p_value, rtol=1e-12)
    assert (flipped.possibly_best == td.possibly_best).all()


def _lower_better_table():
    rng = np.random.default_rng(0)
    rows = [(a, t, s, float(mu + rng.normal()))
            for t in ("T1", "T2") for a, mu in (("A", 0.0), ("B", 5.0), ("C", 1.0)) for s in range(4)]
    return rlstats.task_table(pd.DataFrame(rows, columns=["agent", "task", "seed", "score"]),
                              "score ~ agent | task/seed", higher_is_better=False)


def test_task_table_says_lower_is_better():
    """With higher_is_better=False the bold cell is the task's lowest mean, but the caption (to_latex, the print's
    legend) said only 'Bold: the best mean of each task', so a reader of the paper's table alone took the bold 419 of
    Alien (IRIS, against 681 and 810) for a mistake; and the methods prose said the A12 is the 'probability that a run
    of the best scores higher', untrue there: it is computed on the oriented scores, the probability that a run of the
    best scores lower."""
    table = _lower_better_table()
    assert table.best.tolist() == [0, 0]
    assert "lowest mean" in table.caption() and "lower is better" in table.caption()
    assert "lowest mean" in table.to_latex()
    prose = table.report(format="text")
    assert "scores higher" not in prose and "scores lower" in prose


def test_equivalence_latex_caption_says_level_and_side():
    """to_latex() of a non-inferiority test with lower scores better captioned its 'lower'/'upper' columns only as
    'Tests against the margin ±50', with alpha = 0.05: the columns hold the 90% interval (1 - 2 alpha), which the
    caption never said, and the table alone did not say that non-inferior means an upper end below +50 (lower
    scores better), not within ±50."""
    rng = np.random.default_rng(1)
    # sd 100: the scores' range (about 400) exceeds the margin, which would otherwise draw its warning (s19)
    rows = [(a, t, s, float(rng.normal(0, 100))) for t in ("T1", "T2", "T3") for a in ("A", "B") for s in range(5)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = rlstats.equivalence(df, "score ~ agent | task/seed", margin=50, alternative="noninferior", control="B",
                              higher_is_better=False, rng=0, normalize=False)
    caption = res.to_latex().split("\\caption{", 1)[1].split("}\n", 1)[0]
    assert "90\\%" in caption
    assert "lower scores are better" in caption and "below +50" in caption
    tost = rlstats.equivalence(df, "score ~ agent | task/seed", margin=50, rng=0, normalize=False)
    caption = tost.to_latex().split("\\caption{", 1)[1].split("}\n", 1)[0]
    assert "90\\% interval lies within $\\pm$50" in caption


def test_task_table_latex_notes_only_of_what_it_prints():
    """to_latex() sets the notes under the table of means, marks and daggers, and among them were sentences about
    the effect-size intervals against the best ("each task's effect-size intervals against its best are at 95%
    jointly: ... at most 5% of those printed miss", "Hedges' g is undefined in 2 cells (PrivateEye/IRIS,
    PrivateEye/PlayVirtual)" on Atari 100k): that table prints no effect size, so a paper's footnote spoke of
    intervals it does not hold. They belong with the comparisons (print, summary(), tidy()), which keep them."""
    table = _lower_better_table()
    joint = [n for n in table.notes if "effect-size intervals against its best" in n]
    assert len(joint) == 1
    assert "effect-size intervals" not in table.to_latex()
    assert "effect-size intervals" not in table.to_markdown()
    assert "effect-size intervals" in table.summary().to_latex()
    assert joint[0] in str(table.summary())


def test_bayes_latex_captions_say_level_and_direction():
    """bayes(..., higher_is_better=False).to_latex() on Atari 100k gave the pairs' table with columns 'estimate',
    'lower', 'upper' (-0.5743, -1.206, -0.2208 for DER vs SPR) and the per-task table 'observed' (-3.8989 on Boxing)
    under captions that said only the ROPE: not that lower/upper are a 95% credible interval, nor that the
    differences are second agent - first agent (lower is better: positive favours the first agent; "agent 2 -
    agent 1" before audit s27 gave the pair's columns their words), which the print says; a reader of
    the paper's table took -3.9 on Boxing for DER 3.9 below SPR on negated scores, where DER is 3.9 above it."""
    rng = np.random.default_rng(2)
    rows = [(a, t, s, float(mu + rng.normal())) for t in ("T1", "T2", "T3", "T4", "T5")
            for a, mu in (("A", 0.0), ("B", 1.0)) for s in range(3)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.1, higher_is_better=False, rng=0, n_samples=2000)
    captions = [c.split("}\n", 1)[0] for c in res.to_latex().split("\\caption{")[1:] if not c.startswith("(continued")]
    captions = [c for c in captions if ": Pairs." in c or ": Per task." in c]
    assert len(captions) == 2
    for caption in captions:
        assert "2nd agent - 1st agent (lower is better: positive favours the 1st agent)" in caption
    assert "95\\% credible interval" in captions[0]
