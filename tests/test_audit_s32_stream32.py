"""Audit s32, stream32: with rng= fixed, is a per-agent (per-pair) random quantity that a method defines from that
agent's (pair's) rows alone the same whatever other agents are in the data, left out by a pandas subset, or renamed
to sort before it?  curves32 made curves() so (resampling.agent_seed_sequence, as bootstrap()); this file checks the
other random back ends and pins the ones that were not.
"""

import hashlib

import numpy as np
import pandas as pd
import pytest

import rlstats

FORMULA = "score ~ agent | task/seed"


# ------------------------------------------------------------------ tuning: a sweep's resamples

@pytest.fixture(scope="module")
def sweeps():
    """Three agents' sweeps (3 learning rates x 4 seeds) on two tasks; b_sac is the agent looked at."""
    rng = np.random.default_rng(0)
    rows = [(a, t, lr, s, (lr == 0.01) + rng.normal()) for a in ("a_ppo", "b_sac", "c_td3") for t in ("ant", "hopper")
            for lr in (0.001, 0.01, 0.1) for s in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])


def _tuning(df, **options):
    return rlstats.tuning(df, FORMULA, config="lr", views=["best_set", "expected_max", "complete"],
                          band="percentile", n_resamples=200, rng=7, progress=False, **options)


def _sweep_rows(result, agent="b_sac", task=None):
    """The rows of ``agent``'s sweeps (one task's, or each task's) in the best-set, tuned, expected-max and complete
    tables, their agent column left out (a renamed agent's rows are compared under its other name)."""
    out = []
    for name in ("best_set", "tuned", "expected_max", "complete"):
        table = result.tables[name]
        rows = table[(table.agent == agent) & (table.task.isin(["ant", "hopper"] if task is None else [task]))]
        out.append(rows.drop(columns="agent").reset_index(drop=True))
    return out


def _same_rows(one, other):
    for x, y in zip(one, other):
        pd.testing.assert_frame_equal(x, y, check_exact=True)


def test_a_sweeps_resamples_do_not_depend_on_the_other_agents(sweeps):
    """b_sac's best-set probabilities, tuned score's optimism and interval, expected-max and complete bands: with
    a_ppo (b_sac 2nd of 3), without it (a pandas subset: 1st of 2), with a_ppo renamed 'zeta' (b_sac 1st of 3), and
    with c_td3 renamed 'aaa' to sort first (b_sac 3rd of 3)."""
    every = _sweep_rows(_tuning(sweeps))
    for other in (sweeps[sweeps.agent != "a_ppo"], sweeps.assign(agent=sweeps.agent.replace({"a_ppo": "zeta"})),
                  sweeps.assign(agent=sweeps.agent.replace({"c_td3": "aaa"}))):
        _same_rows(every, _sweep_rows(_tuning(other)))


def test_a_sweeps_resamples_do_not_depend_on_the_other_tasks(sweeps):
    """b_sac's sweep on hopper: with ant (hopper 2nd of 2), without it (1st of 1), ant renamed to sort after it."""
    every = _sweep_rows(_tuning(sweeps), task="hopper")
    for other in (sweeps[sweeps.task != "ant"], sweeps.assign(task=sweeps.task.replace({"ant": "walker"}))):
        _same_rows(every, _sweep_rows(_tuning(other), task="hopper"))


def test_a_sweeps_resamples_do_not_depend_on_threads_or_row_order(sweeps):
    """The same bits with two threads and with the rows shuffled."""
    every = _sweep_rows(_tuning(sweeps))
    _same_rows(every, _sweep_rows(_tuning(sweeps, n_jobs=2)))
    _same_rows(every, _sweep_rows(_tuning(sweeps.sample(frac=1, random_state=3))))


def _label_key(label):
    """The two 32-bit words of a label's stream key: the first 8 bytes of the SHA-256 of its text, little-endian."""
    digest = hashlib.sha256(label.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "little"), int.from_bytes(digest[4:8], "little")


def sweep_stream(rng, which, agent, task):
    """A sweep's stream built by hand (numpy and hashlib): spawn key (which,) + its agent's words + its task's, below
    the rng's entropy."""
    return np.random.SeedSequence(rng, spawn_key=(which,) + _label_key(agent) + _label_key(task))


def test_a_sweeps_stream_is_its_labels():
    """tuning's stream of b_sac's sweep on hopper is the one built by hand from the two labels."""
    from rlstats.methods.tuning import _api as tuning_api
    from rlstats.resampling import seed_sequence

    class Design:
        agents, tasks = ("a_ppo", "b_sac"), ("ant", "hopper")

    got = tuning_api._sweep_stream(Design, seed_sequence(7)[0])(2, 1, 1)
    hand = sweep_stream(7, 2, "b_sac", "hopper")
    assert (got.entropy, got.spawn_key) == (hand.entropy, hand.spawn_key)
    assert np.array_equal(got.generate_state(4), hand.generate_state(4))


# The pins this re-keying moved (test_audit_s10_order, s20_ties20b, s26_polish26, s22_tuning22, s11_user, and
# test_tuning's kept methods) pin today's draws; until audit s34 (repin34b) this file also ran tuning() under the
# former place keys, a path the package no longer has, and found every former pin.


# ------------------------------------------------------------------ bayes: a pair's posterior

@pytest.fixture(scope="module")
def three():
    df = rlstats.datasets.simulate(agents=3, tasks=3, seeds=6, effect=0.5, rng=2)
    return df.assign(agent=df.agent.astype(str))


def _pair_row(df, **options):
    res = rlstats.bayes(df, FORMULA, rng=4, progress=False, **options)
    rows = res.comparisons
    return rows[(rows.agent_1 == "agent_1") & (rows.agent_2 == "agent_2")].reset_index(drop=True)


def _others(df):
    """agent_3 left out by a pandas subset, renamed to sort first, renamed to sort last."""
    return (df[df.agent != "agent_3"], df.assign(agent=df.agent.replace({"agent_3": "aaa"})),
            df.assign(agent=df.agent.replace({"agent_3": "zzz"})))


def test_a_pairs_signed_rank_posterior_does_not_depend_on_the_other_agents(three):
    """agent_1 v agent_2 under the Dirichlet-process model: the Dirichlet weights fall on the tasks, shared by every
    pair, so the pair's draws are its own; its estimate (the draws' mean) is the same bits with agent_3 or not."""
    every = _pair_row(three, n_samples=2000)
    for other in _others(three):
        pd.testing.assert_frame_equal(every, _pair_row(other, n_samples=2000), check_exact=True)


# audit s33 (stream33): each pair's chains come from a stream of its own, keyed by its agents' names, inside
# kernels.gibbs (kernels._PairDraws); the two tests below were strict xfails until then


def test_a_pairs_gibbs_chains_do_not_depend_on_the_other_pairs_of_its_group():
    """At the kernel (a reduced run of the test below): a pair's chains from its stream, fitted alone and fitted
    with another pair on the same tasks, are the same bits (they differed while the group drew from one
    generator)."""
    from rlstats.methods.bayes import _kernels as bayes_kernels

    gen = np.random.default_rng(0)
    sums, counts = gen.normal(size=(2, 4)) * 5, np.full((2, 4), 5.0)
    within = gen.uniform(2, 6, (2, 4))
    priors = bayes_kernels.Priors(delta_high=np.full(2, 5.0), sigma0_high=np.full(2, 50.0),
                                  sigma_high=np.full(2, 1000.0))

    def chains(n):
        part = bayes_kernels.Priors(*(p[:n] for p in priors[:3]))
        streams = [np.random.SeedSequence(1, spawn_key=(p,)) for p in range(n)]
        return bayes_kernels.gibbs(sums[:n], counts[:n], within[:n], part, streams, 2, 20, 20)[0]

    np.testing.assert_array_equal(chains(1).delta0[0], chains(2).delta0[0])


@pytest.mark.slow
def test_a_pairs_hierarchical_posterior_does_not_depend_on_the_other_agents(three):
    """agent_1 v agent_2 under the hierarchical model: the same bits with agent_3, without it, and with it renamed to
    sort first or last (its chains moved with agent_3 until audit s33: the draws of the group's pairs were
    interleaved in one generator's arrays; each pair now has a stream of its own inside kernels.gibbs)."""
    options = dict(model="hierarchical", chains=2, warmup=100, draws=200)
    every = _pair_row(three, **options)
    for other in _others(three):
        pd.testing.assert_frame_equal(every, _pair_row(other, **options), check_exact=True)


# ------------------------------------------------------------------ adastop and the permutation test: a task's test



@pytest.fixture(scope="module")
def tasks3():
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=10, effect=0.3, rng=2)
    return df.assign(task=df.task.astype(str))


def _task_row(result, task="task_02"):
    rows = result.decisions
    return rows[rows.task == task].reset_index(drop=True)


@pytest.mark.parametrize("method", ["adastop", "permutation"])
def test_a_tasks_test_does_not_depend_on_the_other_tasks(tasks3, method):
    """One independent test per task (the family-wise error is controlled within each): task_02's decision and
    boundary are those of its own rows, the same bits with task_01 left out or renamed to sort after it (until
    audit s33 its stream was keyed by its place among the tasks' names, and they moved: AdaStop's boundary
    0.213261 -> 0.199668, the permutation test's 0.176046 -> 0.178095)."""
    def run(df):
        options = dict(n=5, K=2) if method == "adastop" else {}
        return _task_row(getattr(rlstats, method)(df, FORMULA, n_resamples=100, rng=3, progress=False, **options))

    every = run(tasks3)
    for other in (tasks3[tasks3.task != "task_01"], tasks3.assign(task=tasks3.task.replace({"task_01": "zeta"}))):
        pd.testing.assert_frame_equal(every, run(other), check_exact=True)
