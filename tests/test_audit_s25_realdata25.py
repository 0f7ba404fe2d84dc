"""Audit s25 (realdata25): practical equivalence (TOST and the Bayesian ROPE), read_logs on the real
Stable-Baselines3 and marl-eval logs, and the performance percentiles' PBP intervals, on the published scores at the
designs users have (1 to 26 tasks, 3 to 100 runs a cell, up to 8 agents, subsets made with pandas). Each printed
sentence was read against the rows analysed and the numbers checked against an independent computation. Tests
reading the published scores or the logs skip with the reason when they are not here."""

from __future__ import annotations

import pytest

import rlstats


def _pong_three_runs(atari):
    """CURL and DrQ(eps) on Pong alone, the first 3 runs of each (raw scores)."""
    return atari[atari.agent.isin(["CURL", "DrQ(eps)"]) & (atari.task == "Pong") & (atari.seed < 3)]


# ----------------------------------------------------------------------------- equivalence: what is left to read

def test_equivalence_one_task_points_only_at_tests_given(atari):
    """On one task (CURL and DrQ(eps) on Pong, 3 runs each) both the aggregate and the across-tasks test are withheld;
    the aggregate's note said "add runs or tasks, or read the per-task and across-tasks tests", sending the reader to a
    test the next note withholds. Now it names the per-task test alone; the per-task Welch TOST is scipy's."""
    from scipy import stats

    data = _pong_three_runs(atari)
    res = rlstats.equivalence(data, "score ~ agent | task", margin=5, rng=1)
    note = next(n for n in res.notes if n.startswith("the aggregate (IQM) difference is withheld"))
    # audit s31: of the pair, on the tasks both ran
    assert note.startswith("the aggregate (IQM) difference is withheld for CURL vs DrQ(eps) (only Pong)")
    assert note.endswith("which needs 2 or more of them; add tasks both agents run, or read the per-task tests")
    assert any(n.startswith("the across-tasks test is withheld for CURL vs DrQ(eps)") for n in res.notes)
    row = res.tidy().query("scope == 'task'").iloc[0]
    curl = data[data.agent == "CURL"].score.to_numpy()
    drq = data[data.agent == "DrQ(eps)"].score.to_numpy()
    welch = stats.ttest_ind(curl, drq, equal_var=False)
    se = (curl.mean() - drq.mean()) / welch.statistic
    lower = stats.t.sf((curl.mean() - drq.mean() + 5) / se, welch.df)
    upper = stats.t.cdf((curl.mean() - drq.mean() - 5) / se, welch.df)
    assert row.estimate == pytest.approx(-14.366667, abs=1e-6)
    assert row.std_error == pytest.approx(se, rel=1e-12) and row.df == pytest.approx(welch.df, rel=1e-12)
    assert row.p_value == pytest.approx(max(lower, upper), rel=1e-12) == pytest.approx(0.797, abs=5e-4)
    assert not row.shown


def test_equivalence_withheld_aggregate_keeps_both_ways_where_across_is_given(atari):
    """With 2 runs in a cell the aggregate is withheld but the across-tasks Welch test is given: the note keeps
    pointing at both."""
    data = atari[atari.agent.isin(["CURL", "DrQ(eps)"]) & atari.task.isin(["Pong", "Boxing"]) & (atari.seed < 2)]
    res = rlstats.equivalence(data, "score ~ agent | task", margin=5, rng=1)
    note = next(n for n in res.notes if n.startswith("the aggregate (IQM) difference is withheld"))
    # audit s31: the pair and the cell named
    assert " has 2 runs on " in note
    assert note.endswith("3 runs or more of each agent on each; add runs, or read the per-task and across-tasks tests")
    assert res.tidy().query("scope == 'across tasks'").p_value.notna().all()


# ----------------------------------------------------------------------------- read_logs: tags at different steps

@pytest.fixture
def sb3_folder():
    from conftest import SHARED_DATA

    folder = SHARED_DATA / "logs" / "sb3_classic"
    if not folder.is_dir():
        pytest.skip(f"the SB3 logs are not at {folder} (shared/data/logs/sb3_classic beside the clone; they are not "
                    "published files, so no mirror holds them)")
    return folder


def test_read_logs_says_tags_logged_at_different_steps(sb3_folder):
    """SB3 logs 'rollout/ep_rew_mean' after each rollout and 'eval/mean_reward' every 5,000 steps; read together they
    were joined on the step, 'eval/mean_reward' NaN in 1,524 of 1,596 rows, without a word. Now a note says so, with
    the counts of the event files (each run's steps of each tag, counted in the audit with tensorboard's own
    EventAccumulator: 1,530 and 72 of the 1,596 steps logged)."""
    frame = rlstats.read_logs(sb3_folder, "{agent}/{task}/seed_{seed}/", format="tensorboard",
                              tags=["rollout/ep_rew_mean", "eval/mean_reward"], progress=False)
    assert len(frame) == 1596
    assert frame["rollout/ep_rew_mean"].notna().sum() == 1530 and frame["eval/mean_reward"].notna().sum() == 72
    assert ("the scalars read ('rollout/ep_rew_mean', 'eval/mean_reward') are not all logged at the same steps: a row "
            "is a step where any of them was logged, NaN in a column at steps where its scalar was not "
            "('rollout/ep_rew_mean' in 66 rows, 'eval/mean_reward' in 1,524 rows); an analysis of one of them refuses "
            "those rows until they are dropped (na_action=\"drop\"), or read that scalar alone with "
            "tags=") in frame.attrs["rlstats_notes"]
    one = rlstats.read_logs(sb3_folder, "{agent}/{task}/seed_{seed}/", format="tensorboard",
                            tags=["eval/mean_reward", "eval/mean_ep_length"], progress=False)
    assert len(one) == 72 and not any("same steps" in note for note in one.attrs["rlstats_notes"])


def test_read_logs_sb3_counts_match_the_files(sb3_folder):
    """Every monitor.csv and evaluations.npz read: rows per run equal the files' episodes (csv module) and
    evaluations (numpy), the monitor steps the cumulative episode lengths in wall-time order."""
    import csv
    import json

    import numpy as np

    monitor = rlstats.read_logs(sb3_folder, "{agent}/{task}/seed_{seed}/", format="sb3_monitor", progress=False)
    evaluations = rlstats.read_logs(sb3_folder, "{agent}/{task}/seed_{seed}/", format="sb3_eval", progress=False)
    assert monitor.attrs["rlstats_notes"][0] == ("read 15 runs from 75 Stable-Baselines3 monitor.csv files, column "
                                                 "'r' (the episode return, SB3's default)")
    for run in sorted(sb3_folder.glob("*/*/seed_*")):
        agent, task, seed = run.relative_to(sb3_folder).parts
        episodes = []
        for path in run.glob("*.monitor.csv"):
            with open(path, newline="") as handle:
                start = json.loads(handle.readline()[1:])["t_start"]
                episodes += [(start + float(row["t"]), int(row["l"]), float(row["r"])) for row in csv.DictReader(handle)]
        episodes.sort()
        rows = monitor[(monitor.agent == agent) & (monitor.task == task) & (monitor.seed == int(seed[5:]))]
        assert rows.step.tolist() == np.cumsum([e[1] for e in episodes]).tolist()
        assert rows.r.tolist() == [e[2] for e in episodes]
        stored = np.load(run / "evaluations.npz")
        rows = evaluations[(evaluations.agent == agent) & (evaluations.task == task)
                           & (evaluations.seed == int(seed[5:]))]
        assert rows.step.tolist() == stored["timesteps"].tolist()
        np.testing.assert_allclose(rows["eval/mean_reward"], stored["results"].mean(axis=1), rtol=1e-15)
    assert len(monitor) == 9714 and len(evaluations) == 72


# ----------------------------------------------------------------------------- checked and found true (kept as tests)

def test_equivalence_on_atari_matches_statsmodels_and_keeps_units_and_order(atari):
    """CURL vs DrQ(eps) on five Atari games, human-normalised, margin 0.05: each per-task TOST p-value is
    statsmodels' ttost_ind (Welch), the across-tasks test the Welch-Satterthwaite mean of the task differences by
    hand; the same with the scores and the margin times 1000 and with the rows shuffled."""
    import numpy as np
    from scipy import stats
    from statsmodels.stats.weightstats import ttost_ind

    tasks = ["Boxing", "Breakout", "Pong", "Qbert", "Seaquest"]
    data = rlstats.normalize(atari, "atari100k_reference")
    data = data[data.agent.isin(["CURL", "DrQ(eps)"]) & data.task.isin(tasks)]
    res = rlstats.equivalence(data, "score ~ agent | task", margin=0.05, aggregate=None)
    table = res.tidy()
    parts = []
    for task in tasks:
        a = data[(data.agent == "CURL") & (data.task == task)].score.to_numpy()
        b = data[(data.agent == "DrQ(eps)") & (data.task == task)].score.to_numpy()
        row = table[(table.scope == "task") & (table.task == task)].iloc[0]
        assert row.p_value == pytest.approx(ttost_ind(a, b, -0.05, 0.05, usevar="unequal")[0], rel=1e-9)
        parts += [(a.var(ddof=1) / a.size, a.size - 1), (b.var(ddof=1) / b.size, b.size - 1)]
    v, nu = np.array(parts).T
    means = data.groupby(["task", "agent"]).score.mean().unstack()
    delta, se = (means["CURL"] - means["DrQ(eps)"]).mean(), np.sqrt(v.sum()) / len(tasks)
    df = v.sum() ** 2 / (v ** 2 / nu).sum()
    across = table[table.scope == "across tasks"].iloc[0]
    assert (across.estimate, across.std_error, across.df) == pytest.approx((delta, se, df), rel=1e-12)
    assert across.conf_low == pytest.approx(delta - stats.t.ppf(0.95, df) * se, rel=1e-12)
    assert across.conclusion == "shown below -0.05, beyond the margin"
    assert "margin = 0.05 (normalised scores)" in str(res)
    scaled = data.assign(score=data.score * 1000).sample(frac=1, random_state=3)
    other = rlstats.equivalence(scaled, "score ~ agent | task", margin=50, aggregate=None).tidy()
    np.testing.assert_allclose(other.p_value, table.p_value, rtol=1e-9)
    np.testing.assert_allclose(other.estimate / 1000, table.estimate, rtol=1e-9)
    assert other.shown.tolist() == table.shown.tolist()


def test_percentiles_pbp_separations_match_the_intervals(atari):
    """Six Atari agents of 100 runs on Boxing: 'they separate 4 of the 15 pairs' is the count of disjoint printed
    intervals (SPR's against DrQ, CURL, OTRainbow, DER), the DKW half-width sqrt(log(2 / delta') / (2 n)) with
    delta' = 0.05 / 6 cells and n = 100, and every agent's best and worst rank those the intervals allow."""
    import itertools
    import math

    data = atari[atari.agent.isin(["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]) & (atari.task == "Boxing")]
    res = rlstats.percentiles(data, "score ~ agent | task", interval="pbp", rng=1, progress=False)
    table = res.tidy().set_index("agent")
    apart = [(a, b) for a, b in itertools.combinations(table.index, 2)
             if table.conf_low[a] > table.conf_high[b] or table.conf_low[b] > table.conf_high[a]]
    assert sorted(apart, key=sorted) == sorted([("CURL", "SPR"), ("DER", "SPR"), ("DrQ", "SPR"),
                                                ("OTRainbow", "SPR")], key=sorted)
    width = math.sqrt(math.log(2 / (0.05 / 6)) / 200)
    assert f"DKW band half-width at delta' = 0.00833 is {width:.2f}" in str(res)
    assert "they separate 4 of the 15 pairs here" in str(res)
    for a in table.index:
        above = sum(table.conf_low[o] > table.conf_high[a] for o in table.index if o != a)
        below = sum(table.conf_high[o] < table.conf_low[a] for o in table.index if o != a)
        assert (table.rank_best[a], table.rank_worst[a]) == (1 + above, len(table) - below)
    assert table.loc["SPR", ["conf_low", "conf_high"]].tolist() == pytest.approx([0.5357, 0.7073], abs=5e-5)


def test_curves_on_sb3_evaluations_are_the_runs_means(sb3_folder):
    """The per-step means of the curves of the SB3 evaluations on CartPole-v1 are the means of the three runs'
    evaluation means (numpy on evaluations.npz), on the steps every agent reaches (DQN stops at 20k)."""
    import numpy as np

    frame = rlstats.read_logs(sb3_folder, "{agent}/{task}/seed_{seed}/", format="sb3_eval",
                              tags={"eval/mean_reward": "score"}, progress=False)
    res = rlstats.curves(frame, "score ~ agent | task/seed", step="step", statistic="mean", rng=1,
                         subset="task == 'CartPole-v1'")
    table = res.tidy()
    for agent in ("A2C", "DQN", "PPO"):
        runs = [np.load(sb3_folder / agent / "CartPole-v1" / f"seed_{s}" / "evaluations.npz")["results"].mean(axis=1)
                for s in range(3)]
        expected = np.mean([r[:4] for r in runs], axis=0)
        np.testing.assert_allclose(table[table.agent == agent].estimate, expected, rtol=1e-12)
    assert table.step.unique().tolist() == [5000, 10000, 15000, 20000]
    assert any("the runs of DQN on CartPole-v1 stop at 20k" in note for note in res.notes)
