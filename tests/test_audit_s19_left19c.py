"""Audit s19, helper left19c: notes about rows not analysed, columns not printed, levels not measured."""
import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import BAYES_CHAINS


def test_repeated_run_note_is_about_the_tasks_analysed():
    """A seed repeated within agent 'a' on task 'B' was noted ("seed 5 of agent 'a' on task 'B': 2 rows"), and task
    'B', where only 'a' has runs, was then kept out of the test: the note spoke of rows not analysed."""
    df = pd.DataFrame({"agent": ["a"] * 3 + ["b"] * 3 + ["a"] * 2, "task": ["A"] * 6 + ["B"] * 2,
                       "seed": [0, 1, 2, 0, 1, 2, 5, 5], "score": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    res = rlstats.compare(df, "score ~ agent | task")
    assert any("kept out" in n and "B" in n for n in res.notes)
    assert not any("repeat" in n and "'B'" in n for n in res.notes), res.notes
    # a repeat on a task analysed is still said
    df.loc[1, "seed"] = 0
    res = rlstats.compare(df, "score ~ agent | task")
    assert any("repeats an id" in n and "task 'A'" in n for n in res.notes), res.notes


@pytest.mark.filterwarnings("ignore:the chains of")  # short chains, not run again: the note is tested
def test_hierarchical_monte_carlo_note_names_a_printed_column():
    """The hierarchical model's note named "P(worse next)", a column its print does not show (only P(better next)
    and P(rope next) are printed). In the short chains of conftest.BAYES_CHAINS (the note is tested, not the fit;
    4 chains of 200 draws until session 40, 2.8 s of CPU) at rng=4, where the largest standard error of all six
    shares is P(worse next)'s (rng=3 in the longer chains)."""
    df = rlstats.datasets.simulate(2, 4, 3, effect=[0, -0.3], rng=3)
    chains = {**BAYES_CHAINS, "rng": 4}
    res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.05, normalize=False, **chains)
    note = [n for n in res.notes if n.startswith("Monte Carlo error")]
    assert len(note) == 1
    named = note[0].split("agent_1 vs agent_2, ")[1].split(")")[0]
    assert named in str(res).split("Note:")[0], (named, note)


def _capped_pair():
    """Two agents whose runs mostly sit at a cap of 100 (every test's capped-score notes fire)."""
    rng = np.random.default_rng(0)
    rows = [(a, f"t{t}", s, 100.0 if rng.random() < cap else rng.uniform(50, 100))
            for t in range(5) for a, cap in (("A", 0.6), ("B", 0.5)) for s in range(6)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_equivalence_at_another_alpha_claims_no_measured_level():
    """The tests' size was measured at alpha = 0.05 only (equivalence.size rows). At alpha=0.1 the capped-score notes
    said "the across-tasks test, which holds its alpha there" and "no bound ... tried held alpha at 5 runs": a level
    of 0.1 never measured. Each level a note quotes is now the measured one, 0.05, named."""
    res = rlstats.equivalence(_capped_pair(), "score ~ agent | task", margin=5.0, aggregate="mean", alpha=0.1, rng=0,
                              alternative="noninferior", control="B", progress=False)
    text = " ".join(res.notes)
    assert "the mean's bootstrap-t was not measured" in text and "per-task tests are withheld" in text
    assert not re.search(r"(holds|held) (its )?alpha(?! = 0\.05)", text), text


def _best_noisy():
    """One task: a best agent of 5 noisy runs, two of 20 tight runs; 'mid' beats 'low' far more clearly than the best
    does, so low's Holm-adjusted p (min over the agents above it) is below its unadjusted p against the best."""
    rng = np.random.default_rng(0)
    scores = {"best": rng.normal(20, 8, 5), "mid": rng.normal(12, 1, 20), "low": rng.normal(8, 1, 20)}
    return pd.DataFrame([("a", k, v) for k, vs in scores.items() for v in vs], columns=["task", "agent", "score"])


def test_task_table_summary_says_why_p_exclusion_can_be_below_p_value():
    """On /work/shared/data's MuJoCo batches, halfcheetah PPO printed p_value 0.000127 (best SAC vs PPO) and
    p_adjusted 1.84e-05: the smallest Holm-adjusted p of any agent against PPO, here TRPO's. A reader took the
    adjustment to have lowered a p-value. The numbers below are scipy's Welch tests with statsmodels' Holm over the 6
    ordered pairs (low: p 0.00061 against the best, Holm 2.2188e-15 from mid); the summary now keys the columns. The
    column is p_exclusion since session 38 (fixb38: its name read as R's p.adjust() of the p_value)."""
    res = rlstats.task_table(_best_noisy(), "score ~ agent | task", rng=0)
    low = res.tidy().set_index("agent").loc["low"]
    assert low["p_value"] == pytest.approx(0.00061004, rel=1e-4)
    assert low["p_exclusion"] == pytest.approx(2.2188039e-15, rel=1e-4)
    key = "p_exclusion: the p-value for dropping the agent from the possibly-best set, the smallest Holm-adjusted"
    text = str(res.summary())
    assert key in text and text.index(key) > text.index("comparisons with the best")
    assert "so it can be below p_value" in text
    assert key in res.summary().to_markdown() and key in res.summary()._repr_html_()
    # LaTeX heads the columns by their labels, and its caption keys them so
    latex = " ".join(res.summary().to_latex().split())
    assert "exclusion p-value: the p-value for dropping the agent from the possibly-best set, the smallest " \
        "Holm-adjusted p-value of any agent" in latex
    assert "so it can be below p-value" in latex


@pytest.mark.parametrize("inspector", ["fisher_pitman", "z"])
def test_selection_null_figure_legend_clear_of_the_observed_line(inspector):
    """At 3.5 x 2.6 in the null distribution's legend ("observed = 1.559 (p = 0.0595)") was drawn across the dashed
    observed line it names (z inspector; the permutation one with the first 4 of 12 tasks reported)."""
    import matplotlib.pyplot as plt

    df = rlstats.datasets.simulate(agents=["old", "new"], tasks=12, seeds=4, effect=[0, 0.4], rng=0)
    tasks = sorted(df["task"].unique())
    options = {"inspector": "z", "sigma": "pooled"} if inspector == "z" else {"n_resamples": 999}
    res = rlstats.selection_check(df, "score ~ agent | task", treatment="new", baseline="old", reported=tasks[:4],
                                  rng=0, progress=False, normalize=False, **options)
    figure, ax = plt.subplots(figsize=(3.5, 2.6))
    res.plot(kind="null_distribution", ax=ax)
    figure.tight_layout()
    figure.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    x = ax.transData.transform((res.statistic, 0))[0]
    box = ax.get_window_extent()
    # the line runs the axes' height at x: the legend must not cross it there
    crosses = legend.x0 <= x <= legend.x1 and legend.y0 < box.y1 and legend.y1 > box.y0
    assert not crosses, (legend, x, box)
    assert figure.get_window_extent().contains(legend.x1 - 1, legend.y1 - 1)  # not cut at the figure's edge
    plt.close(figure)


def test_improvement_and_profiles_on_one_task_say_one_task():
    """On one task the probability of improvement printed "within a task, averaged over tasks", its report "averaged
    over 1 task" and its figure "averaged over tasks"; the performance profile "(mean over tasks)". Each now names
    the one task; several tasks keep "averaged over tasks"."""
    import matplotlib.pyplot as plt

    df = rlstats.datasets.simulate(3, ["Pong"], 6, effect=[0, 0.5, 1], rng=0)
    poi = rlstats.probability_of_improvement(df, "score ~ agent | task", rng=0, progress=False)
    profile = rlstats.performance_profile(df, "score ~ agent | task", rng=0, progress=False)
    ax = poi.plot()
    texts = [str(poi), str(poi.summary()), poi.report(), ax.get_xlabel(), str(profile), str(profile.summary()),
             profile.report()]
    plt.close(ax.figure)
    for text in texts:
        assert "over tasks" not in text and "over 1 task" not in text, text
    assert "on the one task, Pong" in str(poi) and "on the one task, Pong" in str(profile)
    several = rlstats.probability_of_improvement(rlstats.datasets.simulate(2, 3, 4, rng=0), "score ~ agent | task",
                                                 progress=False)
    assert "averaged over tasks" in str(several)
