"""Audit s11 (bootmed): bootstrap()'s default (studentised) interval of the median of task means on saturated scores.

The three-quarters rule of audit s10 (``rlstats.bounds.saturated_withheld``) withholds it where three quarters or
more of an agent's runs sit at a task's bound; below that share it was given and missed: on single-step saturated
scores at 5 tasks (about 200 data sets a point) it covered 0.935 / 0.950 / 0.910 (3 / 5 / 10 runs) with 36% of the
runs at the cap, 0.906 / 0.933 / 0.920 with 55% and 0.908 / 0.897 / 0.922 with 70%. curves() withholds the median's
bands where 0.3 or more of an agent's runs tie at their task's largest or smallest score (``MEDIAN_TIED_SHARE``,
commit 9499ef6); bootstrap() gave the interval there. It now withholds it by the same rule
(``rlstats.bounds.MEDIAN_TIED_SHARE`` and ``median_tied``, one home for both); measured with
``tests/reference/coverage_bootstrap_median_tied.py`` (numbers in docs/calibration.md).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from conftest import SHARED_DATA, capped_normal_frame, rule_off, welch_off

CAP = -0.12566134685507402  # scipy.stats.norm.ppf(0.45): 55% of the runs at the cap


def _frame(seed, cap=CAP, runs=5, tasks=5, agents=2):
    return capped_normal_frame(cap, seed, runs, tasks, agents)


def test_median_interval_withheld_where_runs_tie_at_the_cap():
    """At 5 tasks x 5 runs with 12 of A's 25 runs (48%) and 15 of B's (60%) at the cap, below the three-quarters
    rule, bootstrap() gave the median intervals (-0.747, -0.088) and (-0.755, -0.025); curves() withholds the median's
    band on such runs, where it covered 0.87-0.90 at 5 tasks, and bootstrap()'s interval covered 0.909-0.924 at 5 tasks
    x 3-10 runs of alike agents with 55% of their runs at the cap. It was then withheld by the share alone; since audit
    s12 where 0.6 or more of the runs tie (B) or half or more of those of the task the median sits on: A's (2 of 5
    tied) is given, as before the rule (such intervals covered 0.96 at that design, and 0.99-1.0 at this one of
    exactly tied tasks). With A's median task capped in 3 of its 5 runs it is withheld too, with a note; the mean's
    and IQM's never are."""
    data = _frame(0)
    assert (data.score == CAP).groupby(data.agent).sum().tolist() == [12, 15]
    res = rlstats.bootstrap(data, "score ~ agent | task", metrics=["median", "mean", "iqm"], n_resamples=200, rng=1)
    # A's as with the rule off (today's draws: (-0.747, -0.088) before audit s33 keyed each cell's stream by its task)
    np.testing.assert_allclose(res.intervals[0, 0], [-0.7214, -0.1067], atol=5e-4)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rlstats.bounds, "MEDIAN_TIED_SHARE", np.inf)  # the rule off
        off = rlstats.bootstrap(data, "score ~ agent | task", metrics=["median", "mean", "iqm"], n_resamples=200,
                                rng=1)
    np.testing.assert_array_equal(res.intervals[0], off.intervals[0])
    np.testing.assert_array_equal(res.intervals[1, 1:], off.intervals[1, 1:])
    assert np.isnan(res.intervals[1, 0]).all() and np.isfinite(res.intervals[:, 1:]).all()
    assert res.saturated.tolist() == [[False, False, False], [True, False, False]]
    assert "0.3 or more of the agent's runs tie at a task's largest or smallest score" in " ".join(res.notes)
    means = data[data.agent == "A"].groupby("task").score.mean()
    middle = means.sort_values().index[2]
    capped = data.copy()
    x, y = capped.index[(capped.agent == "A") & (capped.task == middle) & (capped.score < CAP)][:2]
    # one more of that task's runs at the cap (3 of 5), another lowered as much: its mean, and the median, unchanged
    capped.loc[y, "score"] -= CAP - capped.loc[x, "score"]
    capped.loc[x, "score"] = CAP
    np.testing.assert_allclose(capped[capped.agent == "A"].groupby("task").score.mean(), means, rtol=1e-12)
    res = rlstats.bootstrap(capped, "score ~ agent | task", metrics=["median", "mean", "iqm"], n_resamples=200, rng=1)
    assert np.isnan(res.intervals[:, 0]).all() and np.isfinite(res.intervals[:, 1:]).all()
    text = " ".join(res.notes)
    assert "studentized intervals withheld for the median of A and B: there 0.3 or more of the agent's runs tie" in text
    assert res.saturated[:, 0].all() and not res.saturated[:, 1:].any()


def _tied_frame(top, bottom=(), seed=7, runs=4, tasks=5):
    """Normal scores of A and B (tasks x runs each); each (agent, task, n) of ``top`` puts n of that agent's runs of
    the task at 3.0 (above every other score), of ``bottom`` at -3.0 (below)."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((2, tasks, runs))
    for value, where in ((3.0, top), (-3.0, bottom)):
        for agent, task, n in where:
            z["AB".index(agent), task, :n] = value
    a, t, _ = np.meshgrid(range(2), range(tasks), range(runs), indexing="ij")
    return pd.DataFrame({"agent": np.array(list("AB"))[a.ravel()], "task": [f"t{i}" for i in t.ravel()],
                         "score": z.ravel()})


#: (A's then B's intervals of the median, mean and IQM) as with the median's tied-share rule off, on today's draws
#: (audit s33 keyed each cell's stream by its task's name; those recorded before the rule, on the former streams, were
#: FIVE's A (-1.141931237651, 2.812209268818) ..., SIX's A (-1.136620818936, 3.479384218422) ..., BOTTOM's A
#: (-2.640893850237, 0.223538586852) ...): the tests check the rule-off run too, bit for bit (_rule_off)
FIVE_BEFORE = [[[-1.215077321382, 2.887500787252], [-0.278690725341, 1.28414155205],
                [-0.753317407862, 1.147686062371]],
               [[-1.391014023478, 0.739722399531], [-0.964799689114, 0.437025693964],
                [-0.884051833524, 0.050937059603]]]
SIX_BEFORE = [[[-1.171381787008, 3.513035536956], [-0.17047365421, 1.411520061512],
               [-1.088356992938, 3.477447331457]],
              [[-1.278208871852, 0.302046284147], [-0.919177319363, -0.069580096371],
               [-0.988717371684, -0.048686948855]]]
BOTTOM_BEFORE = [[[-2.702734525887, 0.288884359968], [-1.943042419257, -0.118181730914],
                  [-3.479775914979, 0.675009237174]], SIX_BEFORE[1]]


def _run(data):
    # the intervals recorded before the rule are the bootstrap-t's: since session 20 the default's mean also takes the
    # Welch bound, so the mean's are read through the former interval (the median's and IQM's are the same in both)
    return rlstats.bootstrap(data, "score ~ agent | task", metrics=["median", "mean", "iqm"], n_resamples=200, rng=1,
                             interval="studentized_no_welch")


def _rule_off(data):
    """:func:`_run` with the median's tied-share rule off (``MEDIAN_TIED_SHARE`` infinite): the intervals before it."""
    return rule_off(lambda: _run(data), (rlstats.bounds, "MEDIAN_TIED_SHARE", np.inf))


def test_the_rule_starts_at_three_tenths_of_the_runs_tied():
    """5 of A's 20 runs tied at their task's largest score (0.25; B's one run there ties with A's): every interval
    as before the rule, bit for bit (1e-6 relative: the oldest numpy and scipy allowed differ in their last digits).
    6 of 20 (0.3): A's median withheld with the note, every other interval as before."""
    data = _tied_frame([("A", 0, 2), ("A", 1, 2), ("A", 2, 1), ("B", 2, 1)])
    five = _run(data)
    np.testing.assert_allclose(five.intervals, FIVE_BEFORE, rtol=1e-6, atol=1e-12)
    np.testing.assert_array_equal(five.intervals, _rule_off(data).intervals)
    assert not five.saturated.any() and not any("tie at a task's" in note for note in five.notes)
    data = _tied_frame([("A", 0, 2), ("A", 1, 2), ("A", 2, 2)])
    six = _run(data)
    assert np.isnan(six.intervals[0, 0]).all() and np.isnan(six.interval_mc_se[0, 0]).all()
    expected = np.array(SIX_BEFORE)
    expected[0, 0] = np.nan
    np.testing.assert_allclose(six.intervals, expected, rtol=1e-6, atol=1e-12)
    off = _rule_off(data).intervals
    np.testing.assert_allclose(off, SIX_BEFORE, rtol=1e-6, atol=1e-12)
    off[0, 0] = np.nan
    np.testing.assert_array_equal(six.intervals, off)
    assert six.saturated.tolist() == [[True, False, False], [False, False, False]]
    note = next(n for n in six.notes if "tie at a task's" in n)
    assert note.startswith("studentized intervals withheld for the median of A: there 0.3 or more")
    assert "0.87-0.95 at 5 tasks x 3-10 runs" in note
    assert not any("three quarters or more" in n for n in six.notes)  # the other rule's note is not given
    # the rule goes by what a metric computes, whatever it is called
    renamed = rlstats.bootstrap(_tied_frame([("A", 0, 2), ("A", 1, 2), ("A", 2, 2)]), "score ~ agent | task",
                                metrics={"middle": "median", "mean": "mean", "iqm": "iqm"}, n_resamples=200, rng=1,
                                interval="studentized_no_welch")
    np.testing.assert_array_equal(renamed.intervals, six.intervals)
    assert any(n.startswith("studentized intervals withheld for the middle of A: there 0.3") for n in renamed.notes)


def test_ties_at_the_smallest_score_count_and_every_level_withholds():
    """Runs tied at the task's smallest score count as well (6 of 20 at -3.0, 2 of 4 in three tasks); since audit
    s12 the median is withheld only where those of its task tie too: with the ties in t0, t1 and t3 it sits on t4
    (none tied) and is given, as before the rule; with them in t0, t1 and t4 it sits on a tied task and
    ``confidence_interval(level)`` withholds it at every level, the other intervals as with the rule off."""
    given = _tied_frame([], [("A", 0, 2), ("A", 1, 2), ("A", 3, 2)])
    res = _run(given)
    np.testing.assert_allclose(res.intervals, BOTTOM_BEFORE, rtol=1e-6, atol=1e-12)
    np.testing.assert_array_equal(res.intervals, _rule_off(given).intervals)

    data = _tied_frame([], [("A", 0, 2), ("A", 1, 2), ("A", 4, 2)])
    res = _run(data)
    off = _rule_off(data)
    expected = off.intervals.copy()
    assert np.isfinite(expected).all()
    expected[0, 0] = np.nan
    np.testing.assert_array_equal(res.intervals, expected)
    again = res.confidence_interval(0.8)
    median = again[(again.agent == "A") & (again.metric == "median")]
    assert len(median) == 1 and median[["conf_low", "conf_high"]].isna().all().all()
    assert again[again.metric != "median"][["conf_low", "conf_high"]].notna().all().all()


def test_one_home_for_the_share_and_the_count():
    """curves() and bootstrap() read one constant and one helper; the helper counts as enumeration does."""
    from rlstats import bounds
    from rlstats.methods.curves import _api as curves_api

    assert curves_api.MEDIAN_TIED_SHARE is bounds.MEDIAN_TIED_SHARE == 0.3
    data = _tied_frame([("A", 0, 2), ("A", 1, 2), ("A", 2, 1), ("B", 2, 1)])
    design = rlstats.design.build(data, "score ~ agent | task")
    tied = bounds.bound_ties(design, tied_only=True)[0]
    counted = []
    for agent in "AB":  # by hand: runs at a task's largest or smallest score that two or more of its runs share
        n = 0
        for _, task in data.groupby("task"):
            for value in (task.score.max(), task.score.min()):
                if (task.score == value).sum() >= 2:
                    n += int(((task.agent == agent) & (task.score == value)).sum())
        counted.append(n)
    assert tied.sum(axis=0).tolist() == counted == [5, 1]
    assert bounds.median_tied(tied, design.counts).tolist() == [False, False]
    assert bounds.median_tied(tied + np.eye(5, 2, dtype=int), design.counts).tolist() == [True, False]


def test_median_coverage_on_runs_tied_at_the_cap():
    """Alike agents with 36% or 55% of their runs at the grid's saturated cap, 5 tasks x 5 runs (one step of the
    saturated curves; tests/reference/coverage_bootstrap_median_tied.py, 400 intervals a point): before the rule the
    median's intervals covered 0.930 (36%) and 0.909 (55%); under the share rule 0.974 of the 114 of 400 given at
    36%, none given at 55%. Here 10 data sets a design draw (80 intervals a point): 24 of 24 given held at 36%, none
    given at 55%; under audit s12's middle rule (1000 intervals a point: 0.959 of 754 given at 36%, 0.972 of 286 at
    55%) 60 of 61 and 20 of 21."""
    import pathlib
    import runpy

    script = runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "coverage_bootstrap_median_tied.py"))
    intervals, truths = script["measure_alike"](0.36, 5, 5, 10)
    held, given = script["coverage"](intervals, truths, 0)
    assert (held, given) == (60, 61)
    intervals, truths = script["measure_alike"](0.55, 5, 5, 10)
    assert script["coverage"](intervals, truths, 0) == (20, 21)


def test_real_sb3_runs_at_acrobots_floor_and_cartpoles_cap():
    """Stable-Baselines3 A2C and PPO on CartPole-v1 and Acrobot-v1 (3 seeds), the evaluation at 20k steps: PPO's
    three Acrobot runs sit at -500 (no episode solved), A2C has one there and two CartPole runs at 500: half of each
    agent's runs tie at a task's bound, below the three-quarters rule. The median's intervals were given,
    (-235.1, 307.1) and (-203.5, 33.4); then withheld, as curves() withholds its band there; the mean's as before.
    Since audit s26 the median, on 2 tasks the average of the two task means as the mean, takes the mean's interval."""
    logs = SHARED_DATA / "logs" / "sb3_classic"
    if not logs.is_dir():
        pytest.skip(f"the real SB3 logs are not at {logs} (../shared/data/logs/sb3_classic beside the repository)")
    runs = rlstats.read_logs(logs, "{agent}/{task}/seed_{seed}", format="sb3_eval", tags={"eval/mean_reward": "score"},
                             progress=False)
    runs = runs[(runs.agent != "DQN") & (runs.step == 20000)]
    # rng=2: since audit s33 keyed each cell's stream by its task's name, rng=0's resamples put A2C's bootstrap-t upper
    # bound (418.2) beyond the Welch bound checked below; rng=2's do not, as rng=0's did before
    res = rlstats.bootstrap(runs, "score ~ agent | task", metrics=["median", "mean"], n_resamples=200, rng=2,
                            progress=False)
    # audit s26 (median26): on these 2 tasks the median is the mean of the two task means and takes the mean's
    # interval and rules (below); the tie rule withholds the median's own t interval from 3 tasks
    assert list(res.agents) == ["A2C", "PPO"]
    # the mean's bootstrap-t bounds as recorded, but A2C's upper one: since session 20 the default takes the Welch
    # bound where it is wider, estimate + t_df SE sqrt(c / (c - 1)) (c = 3 runs a task, SE and df Welch's over the
    # two tasks' runs: -500, -89.8, -177.4 and 216.2, 500, 500), computed here from the runs
    welch = []
    for _, cell in runs[runs.agent == "A2C"].groupby("task")["score"]:
        welch.append((cell.mean(), cell.var(ddof=1) / cell.size, cell.size))
    means, parts, sizes = map(np.array, zip(*welch))
    df = parts.sum() ** 2 / (parts ** 2 / (sizes - 1)).sum()
    upper = means.mean() + stats.t.ppf(0.975, df) * np.sqrt(parts.sum()) / 2 * np.sqrt(3 / 2)
    assert upper == pytest.approx(348.794213, rel=1e-6)
    # (rng=0 on the former streams: [-607.963002065, upper], [-241.275101231, 192.516448874])
    np.testing.assert_allclose(res.intervals[:, 1], [[-714.561787478, upper], [-252.610883824, 202.607659108]],
                               rtol=1e-6)
    assert res.welch_floored[:, 1].tolist() == [[False, True], [False, False]]
    np.testing.assert_array_equal(res.intervals[:, 0], res.intervals[:, 1])
    assert not any(n.startswith("studentized intervals withheld for the median") for n in res.notes)
    assert any(n.startswith("on 2 tasks the median of task means is the average of the two task means") for n in res.notes)
    # each end, at rng=2 and at rng=0 (whose A2C bootstrap-t upper bound, 418.2, lies beyond the Welch bound), the
    # wider of the bootstrap-t bound (the run with the Welch floor off) and the Welch bound, both agents
    floored = False  # the patch reaches the floor: somewhere the Welch bound is the one taken (review rt34c)
    for rng in (2, 0):
        def call(rng=rng):
            return rlstats.bootstrap(runs, "score ~ agent | task", metrics=["median", "mean"], n_resamples=200,
                                     rng=rng, progress=False)

        got, off = call().intervals[:, 1], rule_off(call, *welch_off()).intervals[:, 1]
        floored |= bool((got != off).any())
        for k, agent in enumerate(("A2C", "PPO")):
            cells = runs[runs.agent == agent].groupby("task")["score"]
            parts, sizes = (cells.var(ddof=1) / cells.size()).to_numpy(), cells.size().to_numpy()
            df = parts.sum() ** 2 / (parts ** 2 / (sizes - 1)).sum()
            half = stats.t.ppf(0.975, df) * np.sqrt(parts.sum()) / 2 * np.sqrt(3 / 2)
            centre = cells.mean().mean()
            assert got[k, 0] == pytest.approx(min(off[k, 0], centre - half), rel=1e-12), (rng, agent)
            assert got[k, 1] == pytest.approx(max(off[k, 1], centre + half), rel=1e-12), (rng, agent)
        if rng == 0:
            assert off[0, 1] == pytest.approx(418.2, abs=0.05) and got[0, 1] == off[0, 1]  # the bootstrap-t's, taken
    assert floored
