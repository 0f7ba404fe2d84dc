"""Audit s38 (fixd38): four findings of the day's audits, each checked by the numbers or words it concerns.

1. An agent with one run in every task is refused by probability_of_improvement and by the Wilson profile band with a
   reason true of each interval form (it had said "zero width" of every one).
2. mixed's residual_normal_scores tie residuals that are one value but for rounding across tasks too (two agents'
   residuals of 0.1 on two tasks: -1.7317 and -2.0368 x 1, -1.5341 and -2.0368 x 7.3), without chaining.
3. logs' notes on run fields read from the logs word their plurals through rlstats.grammar.
4. selection_check with 2 reported tasks and the skewness from the effects no longer prints "skewness 0, estimated
   from the reported effects": two values always have sample skewness 0, so the t's p-value is given and a note
   quotes the size measured at 2 reported tasks (selection.size rows).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration
from rlstats.errors import DesignError

FORMULA = "score ~ agent | task"


def _one_run_agent():
    """A with 4 runs on t1-t3, C with one run on each: C has one run in every task."""
    rows = [dict(agent=a, task=t, seed=s, score=float(s % 2) + 0.3 * "AC".index(a) + 0.1 * int(t[1]))
            for a in "AC" for t in ("t1", "t2", "t3") for s in range(4 if a == "A" else 1)]
    return pd.DataFrame(rows)


def _lowest_runs(procedure, interval, metric):
    return min(int(r["runs"]) for r in calibration.rows(procedure)
               if (r["interval"], r["metric"]) == (interval, metric))


def _refusal(function, **options):
    with pytest.raises(DesignError) as caught:
        function(_one_run_agent(), FORMULA, rng=0, **options)
    text = str(caught.value)
    assert text.startswith(("probability of improvement intervals cannot be computed for C: they need at least 2 runs "
                            "in some task of each agent, and it has one run in every task; ",
                            "performance profile bands cannot be computed for C: they need at least 2 runs in some "
                            "task of each agent, and it has one run in every task; ")), text
    return text.split("; ", 1)[1]


def test_score_interval_refusal_says_its_coverage_was_not_measured_at_one_run():
    # The Hanley-McNeil score interval reads no spread: against A's 4 runs, C's one run gives a variance of 0.125 at
    # 1/2 (not zero width). Its calibration rows start at 2 runs per task.
    from rlstats.methods.bootstrap._small_runs import hanley_mcneil_variance
    assert hanley_mcneil_variance(0.5, 1, 4) == 0.125
    assert _lowest_runs("bootstrap.interval", "score", "probability_of_improvement") == 2
    reason = _refusal(rlstats.probability_of_improvement)
    assert "zero width" not in reason
    assert reason == ("the score interval's variance (Hanley-McNeil) reads the runs' counts, not their spread, and "
                      "its coverage was measured from 2 runs per task, not at one; add runs")


@pytest.mark.parametrize("interval", ["percentile", "expanded"])
def test_resampled_improvement_refusal_says_only_the_other_agents_runs_vary(interval):
    reason = _refusal(rlstats.probability_of_improvement, interval=interval, n_resamples=100)
    assert reason == ("an agent's one run per task is the same in every resample, so its pairs' intervals would "
                      "show only the other agent's spread (none against another agent with one run in every task), "
                      "and their coverage was not measured there; add runs")
    # what it says: with C's one run fixed, the percentile interval from A's resampled runs is not of zero width
    full = _one_run_agent()
    two = pd.concat([full, full[full.agent == "C"].assign(seed=1)])  # C's run twice: allowed, and C's runs tie
    res = rlstats.probability_of_improvement(two, FORMULA, interval="percentile", n_resamples=200, rng=0)
    assert np.diff(res.intervals[0])[0] > 0.2


def test_wilson_band_refusal_says_its_coverage_was_not_measured_at_one_run():
    # The Wilson band counts runs above tau; with one run a task it has width (the effective runs are T = 3)
    from rlstats.methods.bootstrap import _kernels
    band = _kernels.profile_wilson_bounds(np.array([1 / 3]), np.ones(3), 0.95)[0]
    assert np.round(band, 3).tolist() == [0.018, 0.875]  # Newcombe 1998 method 4 by hand: 0.0177, 0.8747
    assert _lowest_runs("bootstrap.profile", "wilson", "runs") == 2
    reason = _refusal(rlstats.performance_profile)
    assert reason == ("the Wilson band counts the runs above each tau and would have width, but its coverage was "
                      "measured from 2 runs per task, not at one; add runs, or pass task_bootstrap=True (its "
                      "wilson_tasks band takes the tasks as the sample)")


def test_percentile_profile_band_keeps_its_true_zero_width_reason():
    # a profile band resamples the agent's own runs only: one run a task is the same profile in every resample
    reason = _refusal(rlstats.performance_profile, interval="percentile", n_resamples=100)
    assert reason.startswith("resampling runs within tasks gives intervals of zero width; add runs"), reason


# ----------------------------------------------------------------------------- 2. mixed's QQ scores across tasks


def _cross_task_ties():
    """A's runs spread about 0.6 and B's about 0.93 on each of 4 tasks, every cell's mean its agent's (a singular
    fit: fitted values 0.6 and 0.93): A's residual -0.1 on t1 (0.5 - 0.6) is B's on t2 (0.83 - 0.93), and so on,
    exactly; the fit's rounding leaves them 1e-16 apart, differently in each unit."""
    cells = {("A", "t1"): [0.5, 0.6, 0.7], ("B", "t1"): [0.88, 0.93, 0.98], ("A", "t2"): [0.55, 0.6, 0.65],
             ("B", "t2"): [0.83, 0.93, 1.03], ("A", "t3"): [0.52, 0.6, 0.68], ("B", "t3"): [0.86, 0.93, 1.0],
             ("A", "t4"): [0.58, 0.6, 0.62], ("B", "t4"): [0.91, 0.93, 0.95]}
    return pd.DataFrame([dict(agent=a, task=t, seed=s, score=v) for (a, t), values in cells.items()
                         for s, v in enumerate(values)])


def test_mixed_qq_scores_tie_residuals_across_tasks_in_any_units():
    from scipy import special, stats

    df = _cross_task_ties()
    # the residuals as exact arithmetic gives them (score - its agent's mean), rounded to 9 decimals: the ties
    exact = np.round(df["score"] - df["agent"].map({"A": 0.6, "B": 0.93}), 9).to_numpy()
    assert len(exact) - len(np.unique(exact)) == 13  # 0 eight times, -0.1, -0.05, -0.02, 0.02, 0.05, 0.1 twice
    expected = special.ndtri((stats.rankdata(exact, method="average") - 0.5) / exact.size)  # ppoints, n > 10
    for c in (1.0, 7.3, 1e-3):
        res = rlstats.mixed(df.assign(score=df["score"] * c), "score ~ agent | task/seed")
        assert res.theta.tolist() == [0.0, 0.0]
        np.testing.assert_allclose(res.residuals / c, exact, rtol=0, atol=1e-15)
        np.testing.assert_allclose(res.residual_normal_scores, expected, rtol=1e-12, err_msg=f"x {c}")


def _difference_ties_by_loop(values, tolerance):
    """The rule of statistics.difference_ties, one value at a time (its loop before audit s38 fixd38)."""
    values = np.asarray(values, dtype=float)
    tolerance = np.broadcast_to(np.asarray(tolerance, dtype=float), values.shape)
    zero = np.abs(values) <= tolerance
    out = np.where(zero, 0.0, values)
    rest = np.flatnonzero(np.isfinite(values) & ~zero)
    first = -1
    for i in rest[np.lexsort((-tolerance[rest], values[rest]))].tolist():
        if first < 0 or not values[i] - values[first] <= tolerance[first] + tolerance[i]:
            first = i
        out[i] = values[first]
    return out


def test_difference_ties_vectorised_keeps_its_rule_without_chaining():
    from rlstats.statistics import difference_ties

    # a chain of steps below the tolerance: groups start anew, not one group (1.0 takes 1.6; 2.2 starts, takes 2.8)
    assert difference_ties([2.8, 0.3, 2.2, 1.6, 1.0], 0.5).tolist() == [2.2, 0.0, 2.2, 1.0, 1.0]
    # a wide tolerance reaches past a narrow neighbour: 0.9 joins 0's group through 0's tolerance of 1
    assert difference_ties([5.0, 5.5, 5.9], [1.0, 0.01, 0.01]).tolist() == [5.0, 5.0, 5.0]
    assert difference_ties([5.9, 5.5, 5.0, np.nan], [0.01, 0.01, 1.0, 0.1]).tolist()[:3] == [5.0, 5.0, 5.0]
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        values = np.round(rng.normal(size=n), 1) + rng.normal(scale=1e-3, size=n) * (rng.random(n) < 0.5)
        values[rng.random(n) < 0.1] = np.nan
        tolerance = rng.choice([0.0, 1e-3, 0.05, 0.3], size=n)
        np.testing.assert_array_equal(difference_ties(values, tolerance), _difference_ties_by_loop(values, tolerance))


# ----------------------------------------------------------------------------- 3. the logs' stated-field notes


def test_stated_notes_agree_with_one_and_two_columns_and_files():
    from rlstats.logs._formats import FORMATS
    from rlstats.logs._layout import Renamed, stated_notes

    marl = FORMATS["marl_eval"]
    one = stated_notes(marl, ["task"], (), "{agent}/{seed}.json")
    two = stated_notes(marl, ["task", "agent"], (), "{seed}.json")
    assert one == ["column 'task' (the task key) from the logs, as the pattern '{agent}/{seed}.json' gives no "
                   "{task}"]
    assert two == ["columns 'agent' (the algorithm key), 'task' (the task key) from the logs, as the pattern "
                   "'{seed}.json' gives no {agent} or {task}"]
    monitor = FORMATS["sb3_monitor"]
    a = Renamed("task", "hopper", "Hopper-v4", "a/0.monitor.csv")
    b = Renamed("task", "hopper", "Hopper-v4", "a/1.monitor.csv")
    assert stated_notes(monitor, (), [a], "{task}/{seed}.monitor.csv") == [
        "1 file read names a run otherwise than its path, whose name is kept: task 'hopper' in the path, "
        "'Hopper-v4' in the header's env_id (a/0.monitor.csv)"]
    assert stated_notes(monitor, (), [a, b], "{task}/{seed}.monitor.csv") == [
        "2 files read name a run otherwise than its path, whose name is kept: task 'hopper' in the path, "
        "'Hopper-v4' in the header's env_id (2 files, e.g. a/0.monitor.csv)"]


# ----------------------------------------------------------------------------- 4. selection_check at 2 reported tasks


def _selection_frame(runs, tasks=10):
    """new and old on game_00..game_09 (runs of each), new ahead by about 0.5 with noise."""
    rng = np.random.default_rng(3)
    rows = [dict(agent=a, task=f"game_{t:02d}", seed=r, score=float(rng.normal(0.5 * (a == "new"), 1.0)))
            for t in range(tasks) for a in ("new", "old") for r in range(runs)]
    return pd.DataFrame(rows)


def _reporter_line(res):
    return next(x for x in str(res).splitlines() if x.startswith("reporter ("))


def test_two_reported_effects_are_not_said_to_estimate_a_skewness():
    from rlstats.methods.selection import _kernels as kernels

    # any two values have sample skewness 0: the effects' estimate says nothing
    assert kernels.effect_skewness(np.array([[0.1, 5.0], [-3.0, 0.2]])).tolist() == [0.0, 0.0]
    two = rlstats.selection_check(_selection_frame(2), FORMULA, treatment="new", baseline="old",
                                  reported=["game_00", "game_01"])
    assert two.reporter_skewness_source == "effects" and two.reporter_skewness == 0.0
    line = _reporter_line(two)
    assert "estimated from the reported effects" not in line and "skewness 0" not in line
    assert line.endswith("(two reported effects cannot estimate a skewness: no correction, the plain t's p-value)")
    # the skew-corrected and the plain t agree there, p-value and interval
    plain = rlstats.selection_check(_selection_frame(2), FORMULA, treatment="new", baseline="old",
                                    reported=["game_00", "game_01"], reporter="t")
    assert two.pvalue_reporter == plain.pvalue_reporter
    summary = two.group_summary.set_index("set")
    assert summary.loc["reported", "interval"] == "t (two effects cannot estimate a skewness: no correction)"
    assert summary.loc["reported", "conf_low"] == pytest.approx(
        plain.group_summary.set_index("set").loc["reported", "conf_low"], rel=1e-12)  # Hall's at 0 is the t's
    # the note: what the t assumes there, and the size the selection.size rows measured at 2 reported tasks
    rows = [r for r in calibration.rows("selection.size") if (r["statistic"], r["test"], r["configuration"],
                                                              r["runs"]) == ("reporter", "skew_t", "2 reported", "2")]
    sizes = sorted(1 - float(r["coverage"]) for r in rows)
    assert [round(x, 3) for x in sizes] == [0.039, 0.042, 0.045, 0.051] and {r["tasks"] for r in rows} == {"10"}
    assert {r["n_sim"] for r in rows} == {"8000"}
    assert ("the reporter's skewness-corrected one-sample t test is the plain t with 2 reported tasks: two effects "
            "cannot estimate a skewness (the runs' can, with effect=\"mean_diff\" and 3 runs of each agent on a "
            "reported task), and the t assumes the effects are not skewed; simulated with 2 reported of 10 tasks and "
            "2 runs of each agent per task (where it is the plain t too), its size at 0.05 was 0.039 to 0.051 over "
            "normal, skewed, heavy-tailed and capped scores (8,000 null data sets each; skewed: a mirrored "
            "lognormal, rare large losses)") in two.notes, two.notes


def test_two_reported_tasks_with_the_runs_skewness_and_one_reported_task():
    # with 3 runs of each agent the skewness is the runs' (their within-task cumulants): estimated, said so, no note
    runs = rlstats.selection_check(_selection_frame(3), FORMULA, treatment="new", baseline="old",
                                   reported=["game_00", "game_01"])
    assert runs.reporter_skewness_source == "runs"
    assert "estimated from the runs' within-task cumulants of the reported tasks" in _reporter_line(runs)
    assert not any("cannot estimate a skewness" in n for n in runs.notes)
    # one reported task: the t reporters refuse (no spread of one effect), and the z reporter has no skewness
    for reporter in ("skew_t", "t"):
        with pytest.raises(DesignError, match=f'reporter="{reporter}" needs at least 2 reported tasks, got 1'):
            rlstats.selection_check(_selection_frame(2), FORMULA, treatment="new", baseline="old",
                                    reported=["game_00"], reporter=reporter)
    z = rlstats.selection_check(_selection_frame(2), FORMULA, treatment="new", baseline="old", reported=["game_00"],
                                reporter="z", sigma=1.0)
    assert z.reporter_skewness is None and "skewness" not in _reporter_line(z)
