"""Issue 39's acceptance: a folder laid out like the public Stable-Baselines3 trained-agent collection (one run per
environment, agents on different task sets, a run killed early, a subset taken with pandas), read, summarised and
analysed as a new user would; every printed sentence, mark, bar and contrast must be true of the rows analysed.

The folder is written here (``<algo>/<Env>_1/evaluations.npz`` and ``0.monitor.csv``, as tests/test_provenance.py
writes it): 6 algorithms on 11 environments, `her` only ever beside `tqc`, `qrdqn` only on Atari games (killed at
950k of 10M steps on MsPacman), `a2c` stopped at 100k of 500k on Acrobot.
"""

import re
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest

import rlstats
from test_provenance import read_zoo, write_zoo

ATARI = ["BreakoutNoFrameskip-v4", "MsPacmanNoFrameskip-v4", "PongNoFrameskip-v4", "QbertNoFrameskip-v4"]
CLASSIC = ["Acrobot-v1", "CartPole-v1", "Pendulum-v1", "MountainCar-v0"]
ROBOTS = ["PandaStack-v1", "PandaPush-v1", "FetchReach-v1"]
FORMULA = "score ~ agent | task"
#: the pairs of agents that never ran on a common environment
NEVER_MET = {("a2c", "her"), ("dqn", "her"), ("her", "ppo"), ("her", "qrdqn"), ("qrdqn", "tqc")}


def _plan():
    plan = [(algo, env, 950_000 if (algo, env) == ("qrdqn", ATARI[1]) else 10_000_000, 500_000)
            for algo in ("a2c", "dqn", "ppo", "qrdqn") for env in ATARI]
    plan += [(algo, env, 100_000 if (algo, env) == ("a2c", "Acrobot-v1") else 500_000, 10_000)
             for algo in ("a2c", "dqn", "ppo", "tqc") for env in CLASSIC if (algo, env) != ("dqn", "Pendulum-v1")]
    return plan + [(algo, env, 1_000_000, 50_000) for algo in ("her", "tqc") for env in ROBOTS]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    return read_zoo(write_zoo(tmp_path_factory.mktemp("rl-trained-agents"), _plan()))


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tasks on their own scales: not what this test is about
        return call(*args, **kwargs)


def _said(result):
    """Everything a result says in words: print, report and the LaTeX summary."""
    return "\n".join([str(result), result.report(), result.summary().to_latex()])


def test_the_rank_test_names_the_pairs_that_never_met_and_no_bar_joins_them(collection):
    res = _quiet(rlstats.compare, collection, FORMULA)
    assert len(collection) == 37 and set(res.agents) == {"a2c", "dqn", "her", "ppo", "qrdqn", "tqc"}
    met = res.met_matrix()
    never = {(a, b) for i, a in enumerate(res.agents) for j, b in enumerate(res.agents) if i < j and not met[i, j]}
    assert never == NEVER_MET
    said = _said(res)
    for a, b in NEVER_MET:
        assert f"{a}-{b}" in said
    assert "among the agents present on each task" in str(res) and "her met only tqc" in said
    tidy = res.tidy()
    apart = tidy.apply(lambda r: (r["agent_1"], r["agent_2"]) in NEVER_MET, axis=1)
    assert (tidy.loc[apart, "n_shared_tasks"] == 0).all() and tidy.loc[apart, "p_value"].isna().all()
    assert tidy.loc[~apart, "p_value"].notna().all()
    figure, ax = plt.subplots(figsize=(3.5, 2.5), layout="constrained")
    res.plot(ax=ax)
    ranks = dict(zip(res.agents, np.asarray(res.mean_ranks)))
    for collection_ in ax.collections:
        if collection_.get_gid() == "cd_bar":
            for segment in collection_.get_segments():
                low, high = sorted(segment[:, 0])
                under = sorted(a for a, r in ranks.items() if low <= r <= high)
                assert not [(a, b) for a in under for b in under if (a, b) in NEVER_MET]
    assert any("never on a common task" in t.get_text() for t in ax.texts)
    plt.close(figure)


def test_the_task_table_marks_nothing_that_one_run_cannot_support(collection):
    res = _quiet(rlstats.task_table, collection, FORMULA)
    said = _said(res)
    assert "possibly-best marks withheld (too few runs)" in str(res)
    assert "confidence set" not in said and "over 1 runs" not in said and "dagger" not in said.lower()
    assert "\u2020" not in said and not re.search(r"calibration|coverage", "\n".join(res.notes))
    tidy = res.tidy()
    ran = tidy["n_runs"] > 0
    assert tidy.loc[ran, "possibly_best"].isna().all() and tidy.loc[ran, "std_dev"].isna().all()
    assert tidy[["p_value", "a12_low", "a12_high", "hedges_g", "diff_low"]].isna().all().all()
    # the one statement the data do support: which agent has the larger score on each environment
    assert "her (2 of the 3 it ran)" in res.report()


def test_the_mixed_model_marks_contrasts_of_agents_that_never_met(collection):
    res = _quiet(rlstats.mixed, collection, FORMULA)
    tidy = res.tidy()
    apart = tidy.apply(lambda r: (r["agent_1"], r["agent_2"]) in NEVER_MET, axis=1)
    assert apart.sum() == len(NEVER_MET) and (tidy.loc[apart, "n_shared_tasks"] == 0).all()
    assert (tidy.loc[~apart, "n_shared_tasks"] > 0).all()
    printed = str(res)
    for a, b in NEVER_MET:
        assert f"{a} - {b} (indirect)" in printed
    assert "(indirect): the pair never ran on a common task" in printed


def test_a_pandas_subset_to_the_atari_games_says_only_what_is_true_of_them(collection):
    atari = collection[collection["task"].str.contains("NoFrameskip")]
    for call in (rlstats.compare, rlstats.task_table, rlstats.mixed):
        res = _quiet(call, atari, FORMULA)
        said = _said(res)
        for other in ("Acrobot", "PandaStack", "'her'", r"\bher\b", r"\btqc\b", "never ran on a common task"):
            assert not re.search(other, said), (call.__name__, other)
        assert "run '1' of agent 'qrdqn' on task 'MsPacmanNoFrameskip-v4'" in said
        assert "read 16 runs" in said and "these data lack 21 rows of the frame they were taken from; notes about those rows alone are not shown" in said
