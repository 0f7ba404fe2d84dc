"""Audit s30 (ufix30): defects a new user's trial on real data found (its reproducers, not kept, are the tests below).

1. tuning() averaged the expected-max curve over tasks on their raw scales (Dierkes et al.'s PPO sweeps: ant's
   configurations 6,767-8,179, lunar's 246-295) without the caution compare(method="bootstrap") gives the same rows.
2. equivalence(na_action="drop") dropped no incomplete task, and the aggregate's withholding note stated a rule every
   agent met.
3. The permutation test's refusal of unequal runs advised to "compare them pairwise", which nothing does.
4. percentiles' PBP interval recorded n_resamples=10000 among its options, though it draws no resample.
"""

import io
import itertools
import json

import numpy as np
import pandas as pd
import pytest
from conftest import caught, load_dataset

import rlstats
from rlstats import cli


# ------------------------------------------------------------------------- 1. tuning's mean over tasks, raw scales
def _ppo_ant_lunar():
    runs = load_dataset("hpo_optimisation").drop_duplicates()
    return runs[(runs.algorithm == "ppo") & runs.task.isin(["ant", "lunar"])
                & runs.procedure.isin(["hpo=dehb, rpo=base, return", "hpo=base, rpo=base, return"])]


def test_tuning_mean_over_tasks_of_raw_scales_is_cautioned(mirror):
    """The expected max averages configurations' means over tasks: their ranges (ant 1,412.6, lunar 49.8) are 28.4
    times apart, as bootstrap() reads the same rows through '| task/tuning_run/seed'; the seeds' ranges (2,033 and
    208: 9.76 times) are not what the mean over tasks adds, and tuning() said nothing."""
    sub = _ppo_ant_lunar()
    means = sub.groupby(["procedure", "task", "tuning_run"]).score.mean().groupby("task").agg(["min", "max"])
    spread = means["max"] - means["min"]
    ratio = spread["ant"] / spread["lunar"]
    assert ratio == pytest.approx(28.36, abs=0.01)
    res, said = caught(lambda: rlstats.tuning(sub, "score ~ procedure | task/seed", config="tuning_run",
                                              views=["expected_max"], rng=0, progress=False))
    # the arm column by its name since audit s32 block32 ("all agents'" of 'score ~ procedure | task/seed')
    expected = (f"scores of 2 tasks are aggregated on their own scales (the range of the scores of 'ant', largest "
                f"minus smallest of all procedures' configuration means over their seeds, is {float(f'{ratio:.3g}')} times the median of the other "
                "tasks' ranges), so the tasks with wide ranges decide the result; normalise them first with "
                "normalize=")
    assert any(w.startswith(expected) for w in said), said
    assert "Note: scores of 2 tasks were aggregated on their own scales (the range of the scores of 'ant'" in str(res)
    # the numbers are those of before: only the caution is new
    line = [x for x in str(res).splitlines() if "hpo=base, rpo=base, return averaged over tasks" in x]
    assert line == ["  hpo=base, rpo=base, return averaged over tasks: k=1: 3520 [3435, 3606]"]
    # scores said to be on one scale: no caution
    quiet, said = caught(lambda: rlstats.tuning(sub, "score ~ procedure | task/seed", config="tuning_run",
                                                views=["expected_max"], rng=0, progress=False, normalize=False))
    assert not [w for w in said if "own scales" in w] and "own scales" not in str(quiet)


# ------------------------------------------------------------------------- 2. equivalence's na_action and its note
def _three_agents_one_empty_cell(atari):
    sub = atari[atari.agent.isin(["DER", "SPR", "DrQ"])
                & atari.task.isin(["Alien", "Amidar", "Assault", "Asterix", "BankHeist"]) & (atari.seed < 10)]
    return sub[~((sub.agent == "SPR") & (sub.task == "Alien"))]


def test_equivalence_na_action_drop_leaves_out_the_incomplete_task(atari):
    """SPR has no runs on Alien. Since audit s31 (equiv31) each pair's aggregate reads the tasks both its agents ran,
    whatever na_action=: DER vs DrQ all 5 (Alien too), the pairs with SPR the 4 it ran (s30 had every pair's read the
    4 tasks every agent ran, with na_action="drop", and withheld it without)."""
    sub = _three_agents_one_empty_cell(atari)
    kw = dict(normalize="atari100k_reference", rng=0, na_action="drop")
    res = rlstats.compare(sub, "score ~ agent | task", method="equivalence", margin=0.1, n_resamples=200, **kw)
    assert not any("where every agent has runs" in line for line in str(res).splitlines())
    assert res.glance().n_tasks[0] == 5
    assert res.tidy().query("scope == 'task' and agent_1 == 'DER' and agent_2 == 'DrQ'").task.tolist()[0] == "Alien"
    aggregate = res.tidy().query("scope == 'aggregate'")
    assert len(aggregate) == 3
    # the IQM of each agent's 10-a-task normalised runs on the pair's tasks (the pooled runs' 25% trimmed mean)
    from scipy.stats import trim_mean
    for row in aggregate.itertuples():
        tasks = set(sub.task[sub.agent == row.agent_1]) & set(sub.task[sub.agent == row.agent_2])
        kept = rlstats.normalize(sub[sub.task.isin(tasks)], "atari100k_reference")
        iqm = kept.groupby("agent", observed=True).score.apply(lambda x: trim_mean(x.to_numpy(), 0.25))
        assert row.n_tasks == len(tasks) == (4 if "SPR" in (row.agent_1, row.agent_2) else 5)
        assert row.estimate == pytest.approx(iqm[row.agent_1] - iqm[row.agent_2], rel=1e-12)


def test_equivalence_withheld_aggregate_states_the_condition_that_failed(atari):
    """Without na_action="drop" the aggregate was withheld for every pair, SPR having no runs on Alien; since audit s31
    (equiv31) each pair's reads the tasks both its agents ran, the same numbers with or without the option."""
    sub = _three_agents_one_empty_cell(atari)
    res = rlstats.compare(sub, "score ~ agent | task", method="equivalence", margin=0.1,
                          normalize="atari100k_reference", rng=0, n_resamples=200)
    assert not [n for n in res.notes if n.startswith("the aggregate (IQM) difference is withheld")]
    dropped = rlstats.compare(sub, "score ~ agent | task", method="equivalence", margin=0.1,
                              normalize="atari100k_reference", rng=0, n_resamples=200, na_action="drop")
    pd.testing.assert_frame_equal(res.tidy(), dropped.tidy())


# ------------------------------------------------------------------------- 3. the permutation test's advice
def test_permutation_refusal_of_unequal_runs_names_a_way_that_runs(atari):
    """DER 10, SPR 10, SimPLe 5 runs of Alien: the refusal's way on is the task table's permutation test of the mean
    difference, which takes unequal runs; run as advised on the pair, its p-value is the exact one, 204 / 3003."""
    sub = atari[atari.agent.isin(["DER", "SPR", "SimPLe"]) & (atari.task == "Alien") & (atari.seed < 10)]
    advice = "method='task_table', test='fisher_pitman'"
    for subset in (None, "agent in ['DER', 'SimPLe']"):
        with pytest.raises(rlstats.DesignError) as error:
            rlstats.compare(sub, "score ~ agent | task", method="permutation", subset=subset, rng=0)
        assert advice in str(error.value), str(error.value)
        assert "compare them pairwise" not in str(error.value)
    res = rlstats.compare(sub, "score ~ agent | task", method="task_table", test="fisher_pitman", rng=0,
                          subset="agent in ['DER', 'SimPLe']")
    x = sub[sub.agent == "DER"].score.to_numpy()
    y = sub[sub.agent == "SimPLe"].score.to_numpy()
    pooled = np.concatenate([x, y])
    chosen = np.zeros((3003, 15), dtype=bool)
    chosen[np.arange(3003)[:, None], np.array(list(itertools.combinations(range(15), 10)))] = True
    diffs = (pooled * chosen).sum(axis=1) / 10 - (pooled * ~chosen).sum(axis=1) / 5
    exact = float(np.mean(diffs >= x.mean() - y.mean() - 1e-9))
    assert exact == pytest.approx(204 / 3003, abs=1e-15)
    row = res.tidy().set_index("agent").loc["SimPLe"]
    assert row["p_value"] == pytest.approx(exact, rel=1e-12)


# ------------------------------------------------------------------------- 4. options record only what ran
def test_pbp_records_no_resamples_it_did_not_draw(atari, tmp_path):
    sub = atari[atari.agent.isin(["DER", "IRIS", "SPR"]) & atari.task.isin(["Alien", "Boxing", "Pong"])
                & (atari.seed < 5)]
    pbp = rlstats.compare(sub, "score ~ agent | task", method="percentiles")
    assert pbp.glance().n_resamples[0] is None and "n_resamples" not in pbp.options
    assert pbp.options["interval"] == "pbp" and pbp.options["delta"] == 0.05
    boot = rlstats.compare(sub, "score ~ agent | task", method="percentiles", interval="bootstrap", n_resamples=200,
                           rng=0)
    assert boot.glance().n_resamples[0] == 200 and boot.options["n_resamples"] == 200
    path = tmp_path / "small.csv"
    sub[["agent", "task", "seed", "score"]].to_csv(path, index=False)
    out = io.StringIO()
    argv = ["compare", str(path), "score ~ agent | task", "--method", "percentiles", "--format", "json"]
    assert cli.main(argv, out=out) == 0
    record = json.loads(out.getvalue())
    assert record["n_resamples"] is None and "n_resamples" not in record["options"]
    # the score interval of the probability of improvement, a closed form, likewise
    poi = rlstats.compare(sub, "score ~ agent | task", method="probability_of_improvement")
    assert poi.n_resamples is None and "n_resamples" not in poi.options
    assert pd.Series(poi.options).get("interval") == "score"


def test_task_table_aggregate_row_cautions_by_the_bootstraps_rule():
    """The paper table's aggregate row said "pools raw scores of tasks on different scales" of any 2 raw tasks, a rule
    of its own; it now gives the bootstrap's caution (warn_raw_scales: ranges ten times apart), once, and none where
    the bootstrap gives none (these simulated tasks' ranges: 7 times apart). Audit s32 (scale32): the tasks "alike"
    were simulate()'s default, scales 10 ** U(-1, 1) (sd 9.0, 0.27 and 2.5): the narrower half's median range is
    now read too, and they are cautioned; alike tasks are simulated with heterogeneity=0."""
    g = np.random.default_rng(0)
    rows = [(a, t, r, (5 + g.normal() + (a == "B")) * scale) for a in "AB"
            for t, scale in (("t1", 1.0), ("t2", 100.0), ("t3", 1.0)) for r in range(6)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    spread = df.groupby("task").score.agg(lambda x: x.max() - x.min())
    ratio = spread["t2"] / np.median(spread[["t1", "t3"]])
    res, said = caught(lambda: rlstats.task_table(df, "score ~ agent | task", rng=0, aggregate="bootstrap",
                                                  n_resamples=100))
    assert len([w for w in said if "own scales" in w]) == 1
    assert [n for n in res.notes if "scales" in n] == [
        f"the aggregate row: scores of 3 tasks were aggregated on their own scales (the range of the scores of 't2', "
        f"largest minus smallest over all agents and runs, is {float(f'{ratio:.3g}')} times the median of the other "
        "tasks' ranges), so the tasks with wide ranges decide the result; normalize= puts them on one scale, or pass "
        "normalize=False if they are on one scale already"]
    alike = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0, heterogeneity=0)
    quiet, said = caught(lambda: rlstats.task_table(alike, "score ~ agent | task/seed", rng=0, aggregate="bootstrap",
                                                    n_resamples=100))
    assert not [w for w in said if "own scales" in w] and not [n for n in quiet.notes if "scales" in n]
    boot, said = caught(lambda: rlstats.bootstrap(alike, "score ~ agent | task/seed", metrics=["mean"], rng=0,
                                                  n_resamples=100))
    assert not [w for w in said if "own scales" in w]
