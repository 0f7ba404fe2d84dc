"""Audit s27 (meta27): every sentence of a result is about the rows it analysed, and every statistic is unchanged by
the score's units, the order of the rows and the frame library.

A sweep (not committed) ran the option paths earlier metamorphic sweeps left out (the rank test's within-cell median,
exact and untied paths, AdaStop and the permutation test with listed comparisons, bootstrap's rliable_compat,
task_bootstrap, expanded, basic and no-Welch intervals, probability of improvement's pairs and expanded interval,
performance profiles' t and Wilson bands, default and no-interval percentiles, the task table's IQM, Brunner-Munzel
and FCR-normal paths, curves' mean and median statistics and listed pairs, tuning's budgets, the mixed model's
adjustments, equivalence with control= and without an aggregate, the Bayesian signed-rank test with control=, and
compare(subset=)) and every case of tests/test_metamorphic.py and the s24 and s25 sweeps, on simulated data and on
Atari 100k, under: agent and task Categoricals with unused levels and a gappy index (as a pandas filter leaves them),
a frame filtered from a larger one, string instead of categorical columns, shuffled rows, the score times 1000, and
names renamed so that their sort order reverses.  What it found is below, each with its reproducer.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

import rlstats
from conftest import lr_sweep


# ------------------------------------------------------------------------------------------------ equivalence report

def _two_agents():
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, effect=0.3, rng=3)
    df.attrs = {}
    return df


def _welch_interval(x, y, level=0.90):
    vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    df = (vx + vy) ** 2 / (vx ** 2 / (len(x) - 1) + vy ** 2 / (len(y) - 1))
    half = stats.t.ppf(0.5 + level / 2, df) * np.sqrt(vx + vy)
    d = x.mean() - y.mean()
    return d - half, d + half


# The report's sentence of a pair said how many tasks were tested but not what was shown on them: "agent_1 against
# agent_2: across tasks, not shown equivalent (...); on 1 of 4 tasks individually (each at alpha = 0.05, ...)" reads
# "not shown equivalent on 1 of 4 tasks", while task_02 alone was shown equivalent and the 3 others were not (the
# printed result's "per task: 1 of 4 tasks tested shown equivalent" says it). It now says "shown equivalent on 1 of
# 4 tasks tested individually".
def test_equivalence_report_says_what_the_per_task_count_counts():
    df = _two_agents()
    res = rlstats.equivalence(df, "score ~ agent | task", margin=2.0, aggregate=None, rng=1)
    # independently: each task's 90% Welch interval of agent_1 - agent_2 against +-2
    shown = []
    for task, cell in df.groupby("task", observed=True):
        low, high = _welch_interval(cell.loc[cell["agent"] == "agent_1", "score"].to_numpy(),
                                    cell.loc[cell["agent"] == "agent_2", "score"].to_numpy())
        shown.append(-2.0 < low and high < 2.0)
    assert shown == [False, True, False, False]
    report = res.report(format="text")
    assert "shown equivalent on 1 of 4 tasks tested individually" in report
    assert "on 1 of 4 tasks individually" not in report


# ------------------------------------------------------------------------------------------------ tuning's best set

def _one_seed_configuration():
    """sac's lr sweep (conftest.lr_sweep) with lr=0.1 on hopper cut to its first seed."""
    sweep = lr_sweep()
    sweep = sweep[sweep["agent"] == "sac"]
    return sweep[~((sweep["task"] == "hopper") & (sweep["lr"] == 0.1) & (sweep["seed"] > 0))]


# Where a configuration has one seed, the sweep's best-set probabilities are withheld (audit s15), and the printed
# line says "best set withheld"; but best_set() and the summary's table still said in_best_set False ("no") for its
# selected configuration, beside selected "yes": a claim that the winner is not in the best set, which nothing
# measured. It is now missing (blank in print), as its probability is.
def test_tuning_best_set_membership_is_missing_where_withheld():
    res = rlstats.tuning(_one_seed_configuration(), "score ~ agent | task/seed", config="lr", views=["best_set"],
                         n_resamples=200, rng=1)
    best = res.best_set(runners_up=True)  # every configuration with a chance (best_set(): the sets', new-user s38)
    assert res.best_set()["task"].tolist().count("hopper") == 1  # the withheld sweep's selected one, in either
    hopper = best[best["task"] == "hopper"]
    assert hopper["config"].tolist() == ["lr=0.01"] and hopper["selected"].tolist() == [True]
    assert hopper["probability_best"].isna().all()
    assert hopper["in_best_set"].isna().all()
    # a nullable boolean, so the table still filters by it (review27a: None in an object column raised)
    assert str(best["in_best_set"].dtype) == "boolean"
    assert best[best["in_best_set"]]["task"].tolist() == best[best["in_best_set"].fillna(False)]["task"].tolist()
    assert "hopper" not in set(best[best["in_best_set"]]["task"])
    # a sweep of 4 seeds everywhere keeps its set: each configuration's probability of being best against a hand
    # bootstrap of 20,000 resamples (seeds resampled within each configuration, the arg-max taken: 0.031, 0.909 and
    # 0.060 for lr 0.001, 0.01, 0.1) within 3 SE of the difference, and membership marked (not missing) by the
    # docstring's rule, probability_best at least threshold = 0.05 (no ties here); which side of 0.05 lr=0.001 falls
    # at 200 resamples is Monte Carlo noise (0.05 here, 0.031 at 20,000), so the marks are not pinned
    ant = best[best["task"] == "ant"].set_index("config")
    sweep = _one_seed_configuration()
    rng = np.random.default_rng(0)
    runs = {f"lr={lr}": g["score"].to_numpy() for lr, g in sweep[sweep["task"] == "ant"].groupby("lr")}
    means = np.stack([x[rng.integers(0, x.size, (20_000, x.size))].mean(axis=1) for x in runs.values()], axis=1)
    hand = dict(zip(runs, (means == means.max(axis=1, keepdims=True)).mean(axis=0)))
    assert sorted(hand) == sorted(ant.index)
    for config, p in hand.items():
        got = ant.loc[config, "probability_best"]
        assert abs(got - p) < 3 * math.sqrt(p * (1 - p) * (1 / 200 + 1 / 20_000)), (config, got, p)
    assert ant["in_best_set"].notna().all() and hand["lr=0.01"] > 0.9 and ant.loc["lr=0.01", "in_best_set"]
    assert ant["in_best_set"].tolist() == (ant["probability_best"] >= 0.05 - 1e-12).tolist()
    line = [row for row in str(res.summary()).splitlines() if row.startswith("sac    hopper  lr=0.01")]
    assert len(line) == 2 and line[1].split()[-2:] == ["4", "yes"]  # tuned row, then best set: n_runs 4, selected


# ------------------------------------------------------------------------------------------------ printed tables

def _one_run_cell():
    return pd.DataFrame({"agent": ["a"] * 4 + ["b"] * 3 + ["c"] * 3 + ["a"] * 3 + ["b"] * 3 + ["c"],
                         "task": ["t1"] * 10 + ["t2"] * 7,
                         "score": [1.0, 2.0, 3.0, 2.5, 5.0, 6.0, 5.5, 0.0, 1.0, 0.5, 1.0, 2.0, 1.5, 3.0, 4.0, 3.5,
                                   9.0]})


# A withheld mark (a cell of one run) is a missing value of a nullable boolean in the task table's tidy(); the summary
# printed it as pandas' "<NA>" (LaTeX "$<$NA$>$", Markdown "\<NA\>", HTML "&lt;NA&gt;") where every other withheld
# value prints blank.
def test_withheld_marks_print_blank_in_summary_tables():
    res = rlstats.task_table(_one_run_cell(), "score ~ agent | task", rng=1)
    tidy = res.tidy().set_index(["task", "agent"])
    assert tidy.loc[("t2", "c"), "possibly_best"] is pd.NA and tidy.loc[("t2", "c"), "n_runs"] == 1
    summary = res.summary()
    for text in (str(summary), summary.to_markdown(), summary.to_latex(), summary._repr_html_()):
        assert "NA" not in text.replace("NaN", "")
    row = [line.split() for line in str(summary).splitlines() if line.startswith("t2    c ")]
    assert row == [["t2", "c", "9", "1", "yes"]]


# ------------------------------------------------------------------------------------------------ subset= of levels

# subset= keeps a Categorical's levels (as pandas' and R's subset() do), so the levels it emptied itself were then said
# again as levels of the caller's data "with no runs left out" ("1 agent level with no runs left out: agent_3") where
# the same call on string columns said only what the subset kept: another printed result for another frame dtype.
# The levels a subset empties are now left out with it (its note says what it kept); a level the caller's own frame
# never used is still said.
def test_subset_on_categoricals_says_what_it_kept_once():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=2, effect=1.0, rng=0)
    df.attrs = {}
    keep = "task != 'task_05' and agent != 'agent_3'"
    kept = f'subset="{keep}" kept 16 of 30 rows'
    results = [rlstats.compare(frame, "score ~ agent | task", method="task_table", subset=keep)
               for frame in (df, df.astype({"agent": str, "task": str}))]
    assert [r.notes for r in results] == [(kept,), (kept,)]
    # the table of the 16 rows, agent_1 and agent_2 on 4 tasks, 2 runs each: each cell's mean, as computed here
    means = df[(df["task"] != "task_05") & (df["agent"] != "agent_3")].groupby(["task", "agent"], observed=True)
    for res in results:
        tidy = res.tidy().set_index(["task", "agent"])
        assert tidy["n_runs"].tolist() == [2] * 8
        np.testing.assert_allclose(tidy["estimate"], means["score"].mean().reindex(tidy.index), rtol=1e-12)
    unused = df.assign(task=df["task"].cat.add_categories(["task_00"]))  # a level the caller's frame never used
    said = rlstats.compare(unused, "score ~ agent | task", method="task_table", subset=keep).notes
    assert said == (kept, "1 task level with no runs left out: task_00")


def test_subset_keeps_categorical_columns_of_any_name():
    """review27a: the emptied levels were set through keyword arguments, so a Categorical column named 7 (any label
    not a string) raised Python's TypeError on a call that worked before; a repeated name too would have."""
    gen = np.random.default_rng(0)
    df = pd.DataFrame({"agent": np.repeat(list("abc"), 20), "task": np.tile(np.repeat(["t1", "t2", "t3", "t4"], 5), 3),
                       "score": gen.normal(size=60)})
    df[7] = pd.Categorical(np.repeat(list("xyz"), 20))
    before = df.copy()
    res = rlstats.compare(df, "score ~ agent | task", method="task_table", subset="agent != 'b'")
    pd.testing.assert_frame_equal(df, before)  # the caller's frame untouched
    assert res.notes == ('subset="agent != \'b\'" kept 40 of 60 rows',)
    kept = rlstats.design.subset_rows(df, "agent != 'b'")
    assert list(kept[7].cat.categories) == ["x", "z"] and kept.columns.tolist() == ["agent", "task", "score", 7]
