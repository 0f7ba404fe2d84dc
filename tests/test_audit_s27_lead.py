"""Session 27, the lead's own mends (audit s27)."""
import html

import numpy as np
import pandas as pd
import pytest

import rlstats


def _gamma_runs(tasks, runs=5, rng=1):
    gen = np.random.default_rng(rng)
    return pd.DataFrame([(a, t, s, gen.gamma(2.0, 0.2)) for a in ("x", "y") for t in tasks for s in range(runs)],
                        columns=["agent", "task", "seed", "score"])


def test_task_tables_median_aggregate_on_two_tasks_says_it_takes_the_means_interval():
    """median27 gave the median of 1-2 task means the mean's interval with a note; the task table's aggregate row took
    that interval through the bootstrap without the note. On 2 tasks the median row is the mean row (the same
    bootstrap draws: bit for bit) and says so; on 3 tasks it is the median's own and says nothing."""
    options = dict(aggregate="bootstrap", n_resamples=1000, rng=0, progress=False)
    two = _gamma_runs(["t1", "t2"])
    median = rlstats.task_table(two, "score ~ agent | task", statistic="median", **options)
    mean = rlstats.task_table(two, "score ~ agent | task", statistic="mean", **options)
    np.testing.assert_array_equal(median.aggregate["intervals"], mean.aggregate["intervals"])
    # the estimate is the average of the two task means (pandas), as the mean's
    by_task = two.groupby(["agent", "task"])["score"].mean().groupby("agent").mean()
    np.testing.assert_allclose(median.aggregate["estimates"], by_task.loc[["x", "y"]].to_numpy(), rtol=1e-12)
    said = [n for n in median.notes if n.startswith("the aggregate row: on 2 tasks the median of task means is the "
                                                     "average of the two task means")]
    assert len(said) == 1 and said[0].endswith("and takes its interval") and said[0] in str(median)
    assert not any("median of task means is" in n for n in mean.notes)
    three = rlstats.task_table(_gamma_runs(["t1", "t2", "t3"]), "score ~ agent | task", statistic="median", **options)
    assert not any("median of task means is" in n for n in three.notes)


def test_the_rank_tests_direction_line_is_true_of_an_incomplete_design():
    """review27b: the key under the pair table said "the 1st agent's mean rank minus the 2nd agent's", but on an
    incomplete design the estimate is the mean over the tasks both ran of their rank difference, which is not the
    difference of the mean ranks printed above it (agent_1 - agent_2: 1.667 against 1.0). Ranked here by hand within
    each task among the agents present (1 = best)."""
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=1, rng=0)
    df = df[~(((df["agent"] == "agent_2") & (df["task"] == "task_01"))
              | ((df["agent"] == "agent_1") & (df["task"] == "task_04")))]
    res = rlstats.skillings_mack(df, "score ~ agent | task")
    cell = df.pivot_table(index="task", columns="agent", values="score", observed=True)
    ranks = cell.rank(axis=1, ascending=False)  # 1 = best among the agents present in the task
    tidy = res.tidy().set_index(["agent_1", "agent_2"])["estimate"]
    for (a, b), estimate in tidy.items():
        shared = ranks[[a, b]].dropna()
        assert estimate == pytest.approx((shared[a] - shared[b]).mean(), rel=1e-12, abs=1e-12), (a, b)
    by_agent = dict(zip(res.agents, res.mean_ranks))
    assert tidy["agent_1", "agent_2"] != pytest.approx(by_agent["agent_1"] - by_agent["agent_2"])
    assert ("estimate: the mean over the tasks both ran of the 1st agent's rank minus the 2nd agent's (1 = best: "
            "negative favours the 1st agent)") in str(res.summary())


def test_permutation_and_adastop_summaries_say_which_way_the_estimate_reads_in_every_format():
    """review27b: only the LaTeX caption said it; the decisions table's estimate is the 1st agent's mean minus the
    2nd's (checked here against the runs with pandas)."""
    df = rlstats.datasets.simulate(agents=2, tasks=1, seeds=5, rng=0)
    res = rlstats.permutation(df, "score ~ agent | task", rng=0, n_resamples=500)
    row = res.tidy().iloc[0]
    means = df.groupby("agent", observed=True)["score"].mean()
    assert row["estimate"] == pytest.approx(means[row["agent_1"]] - means[row["agent_2"]], rel=1e-12)
    key = ("estimate: mean of the 1st agent minus mean of the 2nd agent over the runs used at the decision's "
           "interim")
    summary = res.summary()
    assert f"({key})" in str(summary) and f"({key})" in summary.to_markdown()
    assert f"({html.escape(key)})" in summary._repr_html_()
