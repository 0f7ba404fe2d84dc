"""Audit s30 w2fix30: advice that works on the data, options a result used, the raw-scales wording, power's digits."""

import numpy as np
import pandas as pd
import pytest
from conftest import caught

import rlstats
from rlstats.errors import DesignError


def _one_run_agent(tasks=4):
    """4 agents x ``tasks`` tasks, 5 runs a cell but agent_3's one run in every task."""
    rng = np.random.default_rng(0)
    rows = [dict(task=f"task_{t}", agent=f"agent_{a}", seed=r, score=rng.normal(a + t, 1))
            for t in range(tasks) for a in range(4) for r in range(1 if a == 3 else 5)]
    return pd.DataFrame(rows)


def test_task_bootstrap_advice_works_on_one_run_agent():
    df = _one_run_agent()
    res = rlstats.bootstrap(df, "score ~ agent | task", metrics=["mean"], task_bootstrap=True, rng=0,
                            n_resamples=100, progress=False)
    note = next(n for n in res.notes if "intervals withheld with tasks resampled" in n)
    # lowercase where it is stored: printed after "Note: ", capitalised only where a sentence opens (results.sentences)
    assert note.startswith("the mean: intervals withheld")
    assert "Note: the mean: intervals withheld" in str(res)
    # the plain advice refuses this design...
    with pytest.raises(DesignError, match="agent_3"):
        rlstats.bootstrap(df, "score ~ agent | task", metrics=["mean"], rng=0, n_resamples=100, progress=False)
    # ...so the note names agent_3's one run and what works: runs added to it, or the data without it
    assert ("task_bootstrap=False, which needs at least 2 runs in some task of each agent: agent_3 has one run in "
            "every task, so add runs to it or leave it out of the data") in note
    without = rlstats.bootstrap(df[df.agent != "agent_3"], "score ~ agent | task", metrics=["mean"], rng=0,
                                n_resamples=100, progress=False)
    assert np.isfinite(without.intervals).all() and without.intervals.shape[0] == 3
    extra = df[(df.agent == "agent_3") & (df.task == "task_0")].assign(seed=1, score=3.5)
    added = rlstats.bootstrap(pd.concat([df, extra]), "score ~ agent | task", metrics=["mean"], rng=0,
                              n_resamples=100, progress=False)
    assert added.intervals.shape[0] == 4
    # and the percentile interval, the note's other way, gives intervals on this data as it is
    pct = rlstats.bootstrap(df, "score ~ agent | task", metrics=["mean"], task_bootstrap=True, rng=0,
                            n_resamples=100, interval="percentile", progress=False)
    assert np.isfinite(pct.intervals).all()


def test_one_task_advice_names_the_one_run_agent():
    df = _one_run_agent(tasks=1)
    res = rlstats.bootstrap(df, "score ~ agent | task", metrics=["mean"], task_bootstrap=True, rng=0,
                            n_resamples=50, interval="percentile", progress=False)
    assert np.isnan(res.intervals).all()
    assert any("task_bootstrap=False gives the intervals of this task's runs, which needs at least 2 runs in some "
               "task of each agent: agent_3 has one run in every task" in n for n in res.notes)


def test_power_print_and_latex_give_the_same_digits():
    from rlstats.format import DIGITS

    res = rlstats.power("permutation", effect=0.7, seeds=[7], tasks=2, n_sim=7, rng=1, progress=False)
    row = res.table.iloc[0]
    assert (int(row["n_rejections"]), int(row["n_sim"])) == (3, 7)  # 3 of 14 tests: 0.2143 is 3/14
    printed, latex = str(res), res.to_latex()
    assert DIGITS == 5
    z = 1.959963984540054  # Wilson's interval of 3 in 14 by its closed form: 0.0757139 to 0.475892
    centre, half = (3 / 14 + z * z / 28) / (1 + z * z / 14), z / (1 + z * z / 14) * np.sqrt(3 / 14 * 11 / 14 / 14 + z * z / 784)
    assert (row["conf_low"], row["conf_high"]) == pytest.approx((centre - half, centre + half), abs=1e-12)
    for value in ("0.21429", "0.075714", "0.47589"):  # 3/14 and its Wilson interval at 5 digits, both ways
        assert value in printed and value in latex
    assert "0.2143 " not in printed
    assert "Note: the permutation test runs one test per task" in printed


def _sweep():
    """2 agents x 2 tasks x 4 configurations x 3 seeds; task 'wide' on a scale 50 times 'narrow''s."""
    rng = np.random.default_rng(3)
    rows = [dict(agent=a, task=t, config=c, seed=s, score=(50 if t == "wide" else 1) * (c + rng.normal()))
            for a in ("A", "B") for t in ("narrow", "wide") for c in range(4) for s in range(3)]
    return pd.DataFrame(rows)


def test_raw_scales_caution_says_what_it_read():
    df = _sweep()
    means = df.groupby(["agent", "task", "config"]).score.mean().groupby("task").agg(["min", "max"])
    ratio = float(f"{(means.loc['wide', 'max'] - means.loc['wide', 'min']) / (means.loc['narrow', 'max'] - means.loc['narrow', 'min']):.3g}")
    res, said = caught(lambda: rlstats.tuning(df, "score ~ agent | task/seed", config="config",
                                              views=["expected_max"], rng=0, progress=False))
    assert any(w.startswith(f"scores of 2 tasks are aggregated on their own scales (the range of the scores of "
                            f"'wide', largest minus smallest of all agents' configuration means over their seeds, "
                            f"is {ratio} times the median of the other tasks' ranges)") for w in said), said
    assert "largest minus smallest of all agents' configuration means over their seeds" in str(res)
    # bootstrap() reads every run: its wording says so
    runs = df.groupby("task").score.agg(["min", "max"])
    ratio = float(f"{(runs.loc['wide', 'max'] - runs.loc['wide', 'min']) / (runs.loc['narrow', 'max'] - runs.loc['narrow', 'min']):.3g}")
    res, said = caught(lambda: rlstats.bootstrap(df, "score ~ agent | task", metrics=["mean"], n_resamples=50,
                                                 interval="percentile", rng=0, progress=False))
    assert any(f"(the range of the scores of 'wide', largest minus smallest over all agents and runs, is {ratio} "
               "times" in w for w in said), said


def _small(runs=3, tasks=2, agents=3, seed=5):
    rng = np.random.default_rng(seed)
    return pd.DataFrame([dict(task=f"t{t}", agent=f"a{a}", seed=r, score=rng.normal(0.3 * a, 1))
                         for t in range(tasks) for a in range(agents) for r in range(runs)])


def test_options_record_n_resamples_only_where_it_was_used():
    import json

    df = _small()
    # the task table: Welch's t, no aggregate row, draws nothing
    welch = rlstats.task_table(df, "score ~ agent | task/seed", rng=0, progress=False)
    assert welch.seed is None and "n_resamples" not in welch.options
    assert "n_resamples" not in json.loads(welch.to_json())["options"]
    # with the aggregate row's bootstrap it is used
    agg = rlstats.task_table(df, "score ~ agent | task/seed", aggregate="bootstrap", n_resamples=200, rng=0,
                             progress=False)
    assert agg.options["n_resamples"] == 200 and agg.aggregate["n_resamples"] == 200
    # a permutation test of 3 and 3 runs enumerates its C(6, 3) = 20 splits whatever n_resamples: unused
    exact = rlstats.task_table(df, "score ~ agent | task/seed", test="mannwhitney", rng=0, progress=False)
    assert "n_resamples" not in exact.options
    # 9 and 9 runs have C(18, 9) = 48,620 splits: above 20,000, n_resamples decides whether they are enumerated
    # (60,000: all of them) or drawn (the default 10,000): used either way
    from rlstats.methods.task_table._kernels import split_count
    assert split_count(9, 9, 60_000) == (48_620, True) and split_count(9, 9, 10_000) == (10_000, False)
    big = _small(runs=9, tasks=1, agents=2)
    many = rlstats.task_table(big, "score ~ agent | task/seed", test="mannwhitney", n_resamples=60_000, rng=0,
                              progress=False)
    assert many.options["n_resamples"] == 60_000
    drawn = rlstats.task_table(big, "score ~ agent | task/seed", test="mannwhitney", rng=0, progress=False)
    assert drawn.options["n_resamples"] == 10_000 and drawn.seed is not None

    # equivalence: its aggregate withheld (2 runs a cell, it needs 3) draws nothing
    two = _small(runs=2)
    eq = rlstats.equivalence(two, "score ~ agent | task", margin=1.0, aggregate="mean", n_resamples=500, rng=0,
                             progress=False)
    assert eq.seed is None and eq.n_resamples is None and "n_resamples" not in eq.options
    assert any(n.startswith("the aggregate (mean over tasks) difference is withheld") for n in eq.notes)
    eq = rlstats.equivalence(df, "score ~ agent | task", margin=1.0, aggregate="mean", n_resamples=500, rng=0,
                             progress=False)
    assert eq.n_resamples == 500 and eq.options["n_resamples"] == 500

    # the rank test, pvalue="monte_carlo" where n_resamples is at least the relabellings: enumerated, and
    # n_resamples decided that (3 agents, 2 tasks of one run: (3!)^2 = 36 relabellings)
    one = _small(runs=1)
    rank = rlstats.skillings_mack(one, "score ~ agent | task", pvalue="monte_carlo", n_resamples=100, rng=0,
                                  progress=False)
    assert rank.pvalue_method == "exact" and rank.n_resamples is None
    assert any("36 distinct relabellings within tasks, no more than n_resamples = 100" in n for n in rank.notes)
    assert rank.options["n_resamples"] == 100
    assert json.loads(rank.to_json())["options"]["n_resamples"] == 100
    # the exact p-value asked for: n_resamples unused
    assert "n_resamples" not in rlstats.skillings_mack(one, "score ~ agent | task", pvalue="exact",
                                                       progress=False).options


def test_profile_t_band_advice_names_the_one_run_agent():
    df = _one_run_agent(tasks=6)
    res = rlstats.performance_profile(df, "score ~ agent | task", kind="tasks", task_bootstrap=True, progress=False)
    # rfix30a's wording (task_bootstrap=False, interval='t'), merged with this clause
    note = next(n for n in res.notes if "task_bootstrap=False, interval='t' gives the bands of these tasks" in n)
    assert ("(Student t bands, which hold their level for normal runs, and need at least 2 runs in some "
            "task of each agent: agent_3 has one run in every task, so add runs to it or leave it out of the data; "
            "task_bootstrap=False alone gives the skew-corrected t band, withheld as this one); add tasks") in note
    with pytest.raises(DesignError, match="t profile bands cannot be computed for agent_3"):
        rlstats.performance_profile(df, "score ~ agent | task", kind="tasks", interval="t", progress=False)
    without = rlstats.performance_profile(df[df.agent != "agent_3"], "score ~ agent | task", kind="tasks",
                                          interval="t", progress=False)
    assert np.isfinite(without.intervals).all()
